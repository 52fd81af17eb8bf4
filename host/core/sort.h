/* Sorting an index array with a comparator that takes its context as an
 * argument. qsort's comparator has no context, so callers used to park the
 * model they sort by in a file-level static; qsort_r is not in C11 and its
 * glibc and BSD signatures differ. */
#ifndef VP_SORT_H
#define VP_SORT_H

#include <stddef.h>
#include <stdint.h>

/* < 0, 0 or > 0 as index a sorts before, with or after index b. */
typedef int (*vp_idx_cmp)(uint32_t a, uint32_t b, const void *ctx);

/* Sort idx[0..n) in place, ascending by cmp. A heap sort: O(n log n) in
 * the worst case, no allocation, and so no way to fail; not stable, so
 * comparators that must give one order break ties themselves (by index). */
void vp_sort_idx(uint32_t *idx, size_t n, vp_idx_cmp cmp, const void *ctx);

#endif
