#include "core/sort.h"

/* Move idx[root] down until neither child sorts after it (a max-heap over
 * idx[0..n)). */
static void sift_down(uint32_t *idx, size_t root, size_t n, vp_idx_cmp cmp, const void *ctx)
{
    uint32_t v = idx[root];
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            break;
        if (child + 1 < n && cmp(idx[child + 1], idx[child], ctx) > 0)
            child++;
        if (cmp(idx[child], v, ctx) <= 0)
            break;
        idx[root] = idx[child];
        root = child;
    }
    idx[root] = v;
}

void vp_sort_idx(uint32_t *idx, size_t n, vp_idx_cmp cmp, const void *ctx)
{
    if (n < 2)
        return;
    for (size_t i = n / 2; i-- > 0;)
        sift_down(idx, i, n, cmp, ctx);
    for (size_t end = n - 1; end > 0; end--) {
        uint32_t t = idx[0];
        idx[0] = idx[end];
        idx[end] = t;
        sift_down(idx, 0, end, cmp, ctx);
    }
}
