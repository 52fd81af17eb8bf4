/* vp_sort_idx: against an insertion sort on random keys (ties included, broken by
 * index as every caller does), with the context reaching the comparator. */
#include <stdlib.h>

#include "check.h"
#include "core/sort.h"

typedef struct {
    const int *keys;
    int calls;
} key_ctx;

static int by_key(uint32_t a, uint32_t b, const void *ctx)
{
    key_ctx *k = (key_ctx *)ctx;
    k->calls++;
    if (k->keys[a] != k->keys[b])
        return k->keys[a] < k->keys[b] ? -1 : 1;
    return (a > b) - (a < b);
}

/* The reference: an insertion sort, too simple to be wrong. */
static void ref_sort(uint32_t *v, size_t n, const int *keys)
{
    key_ctx ctx = {keys, 0};
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && by_key(v[j - 1], v[j], &ctx) > 0; j--) {
            uint32_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

int main(void)
{
    srand(11);
    int mismatches = 0;
    for (int round = 0; round < 200; round++) {
        size_t n = (size_t)(rand() % 300);
        int *keys = malloc((n + 1) * sizeof *keys);
        uint32_t *got = malloc((n + 1) * sizeof *got), *want = malloc((n + 1) * sizeof *want);
        for (size_t i = 0; i < n; i++) {
            keys[i] = round % 2 ? rand() % 5 : rand();
            got[i] = want[i] = (uint32_t)(n - 1 - i);
        }
        key_ctx ctx = {keys, 0};
        vp_sort_idx(got, n, by_key, &ctx);
        ref_sort(want, n, keys);
        for (size_t i = 0; i < n; i++)
            mismatches += got[i] != want[i];
        if (n > 1 && ctx.calls == 0)
            mismatches++;
        free(keys);
        free(got);
        free(want);
    }
    CHECK_EQ(mismatches, 0);

    uint32_t one = 7;
    vp_sort_idx(&one, 1, by_key, NULL); /* n < 2 never calls the comparator */
    CHECK_EQ(one, 7);
    vp_sort_idx(NULL, 0, by_key, NULL);
    return check_done("test_sort");
}
