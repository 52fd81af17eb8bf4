#include "core/bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifdef MADV_HUGEPAGE
#define HUGE_PAGE ((size_t)2 << 20)

static size_t mapped_len(size_t bytes)
{
    return (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

/* A fresh mapping of `len` bytes (a multiple of HUGE_PAGE) starting on a
 * huge-page boundary, advised huge; NULL on failure. */
static void *map_huge(size_t len)
{
    if (len > SIZE_MAX - HUGE_PAGE)
        return NULL;
    uint8_t *raw = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                        -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    uintptr_t start = ((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    size_t head = start - (uintptr_t)raw, tail = HUGE_PAGE - head;
    if (head)
        munmap(raw, head);
    if (tail)
        munmap((void *)(start + len), tail);
    /* Advice only: without it the pages are small, and still correct. */
    madvise((void *)start, len, MADV_HUGEPAGE);
    return (void *)start;
}
#endif

void *vp_big_realloc(void *p, size_t old_bytes, size_t new_bytes)
{
#ifdef MADV_HUGEPAGE
    if (new_bytes >= VP_BIG_MIN) {
        if (p && old_bytes >= VP_BIG_MIN && mapped_len(new_bytes) == mapped_len(old_bytes))
            return p;
        void *q = map_huge(mapped_len(new_bytes));
        if (!q)
            return NULL;
        if (p) {
            memcpy(q, p, old_bytes < new_bytes ? old_bytes : new_bytes);
            vp_big_free(p, old_bytes);
        }
        return q;
    }
    if (p && old_bytes >= VP_BIG_MIN) {
        void *q = malloc(new_bytes ? new_bytes : 1);
        if (!q)
            return NULL;
        memcpy(q, p, new_bytes);
        vp_big_free(p, old_bytes);
        return q;
    }
#else
    (void)old_bytes;
#endif
    return realloc(p, new_bytes ? new_bytes : 1);
}

void vp_big_free(void *p, size_t bytes)
{
    if (!p)
        return;
#ifdef MADV_HUGEPAGE
    if (bytes >= VP_BIG_MIN) {
        munmap(p, mapped_len(bytes));
        return;
    }
#else
    (void)bytes;
#endif
    free(p);
}
