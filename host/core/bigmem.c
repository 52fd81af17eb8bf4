/* mremap (Linux) moves a grown array's pages instead of copying them. */
#define _GNU_SOURCE
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

/* Grow a huge-page array p (old_bytes) into q, a fresh map_huge of
 * mapped_len(new_bytes) > mapped_len(old_bytes): its pages are moved to
 * the head of q rather than copied, so the kernel neither copies them nor
 * zeroes a second set (on a virtual machine, zeroing the pages of the
 * doubling copies of a 700,000-frame capture's records took a fifth of
 * its open). 1 when moved (p is gone), 0 when the caller must copy. */
static int move_pages(void *p, size_t old_bytes, size_t new_bytes, void *q)
{
#ifdef MREMAP_FIXED
    size_t from = mapped_len(old_bytes);
    if (old_bytes >= VP_BIG_MIN && from < mapped_len(new_bytes))
        return mremap(p, from, from, MREMAP_MAYMOVE | MREMAP_FIXED, q) != MAP_FAILED;
#else
    (void)p;
    (void)old_bytes;
    (void)new_bytes;
    (void)q;
#endif
    return 0;
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
        if (p && !move_pages(p, old_bytes, new_bytes, q)) {
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
