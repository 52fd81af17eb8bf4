/* Operations over whole Series: arithmetic, selections, windows, bins and
 * orders, each one pass (or a sort) in C over the column, so a question
 * about a million frames costs milliseconds instead of a Lua loop.
 *
 * Every operation leaves its inputs unchanged and returns a new series
 * (refs = 1) or plain numbers. Missing values are NaN, and the rule is:
 *   - element-wise arithmetic and diff propagate NaN (IEEE);
 *   - selections (count, find, filter, top) never select a NaN;
 *   - statistics (those of core/series.h, median, rolling windows,
 *     histogram, cumsum) skip NaN wherever it stands: they are computed
 *     over the numbers, NaN when there is none;
 *   - sort puts NaN last.
 * Indexes are 0-based here; the Lua binding adds 1. */
#ifndef VP_SERIES_OPS_H
#define VP_SERIES_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "core/series.h"

typedef enum { VP_SERIES_ADD, VP_SERIES_SUB, VP_SERIES_MUL, VP_SERIES_DIV } vp_series_op;

/* a[i] op b[i]; NULL when the lengths differ or on OOM (tell them apart by
 * comparing the lengths first). */
vp_series *vp_series_arith(const vp_series *a, const vp_series *b, vp_series_op op);
/* a[i] op x, or x op a[i] when x_first; NULL on OOM. */
vp_series *vp_series_arith_scalar(const vp_series *a, double x, vp_series_op op, int x_first);

/* Median of the numbers (NaN skipped): the middle value, or the mean of the
 * two middle values for an even count; NaN when there is no number. The
 * order statistics come from vp_series_rank, so the series' selection
 * cache is used and kept. */
double vp_series_median(vp_series *s);

typedef enum { VP_CMP_GT, VP_CMP_GE, VP_CMP_LT, VP_CMP_LE, VP_CMP_EQ, VP_CMP_NE } vp_series_cmp;

/* Parse ">", ">=", "<", "<=", "==", "~=" (also "!="); 0 when unknown. */
int vp_series_cmp_parse(const char *s, vp_series_cmp *out);
/* v cmp x, false whenever v is NaN. */
int vp_series_cmp_test(double v, vp_series_cmp cmp, double x);

/* How many values satisfy v cmp x. */
size_t vp_series_count(const vp_series *s, vp_series_cmp cmp, double x);
/* The first index >= from whose value satisfies v cmp x; s->n when none. */
size_t vp_series_find(const vp_series *s, vp_series_cmp cmp, double x, size_t from);
/* The values that satisfy v cmp x, in order; NULL on OOM. */
vp_series *vp_series_filter(const vp_series *s, vp_series_cmp cmp, double x);

/* Values first..last-1 (0-based, half-open; clamped to the series, empty
 * when first >= last); NULL on OOM. */
vp_series *vp_series_slice(const vp_series *s, size_t first, size_t last);

typedef enum { VP_ROLL_MEAN, VP_ROLL_MEDIAN, VP_ROLL_MAX } vp_roll_kind;

/* Trailing window: value i is the statistic of the numbers among values
 * max(0, i - window + 1) .. i (the value itself included; the first
 * window - 1 values use the shorter windows they have), NaN when that
 * window holds no number. Same length as s. window >= 1; NULL on OOM.
 * mean: O(n) with a compensated running sum; max: O(n) (a monotonic
 * queue); median: windows up to 256 values are kept sorted (a binary
 * search and a short move per value), larger ones as two heaps, the lower
 * and the upper half (O(n log n) at worst, whatever the window). */
vp_series *vp_series_rolling(const vp_series *s, size_t window, vp_roll_kind kind);

/* Counts of the values per bin. edges[0..nedges) strictly increasing,
 * nedges >= 2: bin j holds edges[j] <= v < edges[j+1], the last bin also
 * v == edges[nedges-1]. Values below edges[0] and above the last edge are
 * counted in *below and *above, NaN in *missing. counts has nedges - 1
 * entries. */
void vp_series_histogram(const vp_series *s, const double *edges, size_t nedges, uint64_t *counts,
                         uint64_t *below, uint64_t *above, uint64_t *missing);
/* The nbins + 1 edges of nbins equal-width bins from the smallest to the
 * largest number (min - 0.5 .. max + 0.5 when they are equal, as numpy
 * does); 0 when the series holds no number. */
int vp_series_bin_edges(const vp_series *s, size_t nbins, double *edges);

/* Running sum of the numbers (compensated); NaN where the value is NaN,
 * which is then left out of the sum. NULL on OOM. */
vp_series *vp_series_cumsum(const vp_series *s);
/* s[i + 1] - s[i]: n - 1 values (none for n < 2). NULL on OOM. */
vp_series *vp_series_diff(const vp_series *s);
/* |s[i]| (NaN stays NaN). NULL on OOM. */
vp_series *vp_series_abs(const vp_series *s);
/* Consecutive windows of `width` (> 0) on the clock the values of `clock`
 * make (a duration per element, frame times in ms: NaN and negative ones
 * count 0): window k ends after the first element at which the clock
 * reaches k x width (a window may hold one element longer than the width
 * alone, and the clock then skips the edges it passed); the last window
 * ends with the series, however short. Writes each window's end (the
 * 0-based index after its last element) to ends[0..max) and returns how
 * many windows there are, so a call with max = 0 counts them. */
size_t vp_series_windows(const vp_series *clock, double width, size_t *ends, size_t max);
/* The values in ascending order, NaN last (the order percentiles use).
 * NULL on OOM. */
vp_series *vp_series_sorted(const vp_series *s);
/* The indexes of the k largest numbers, largest first (ties: the earlier
 * index first); fewer when the series has fewer numbers. `out` holds k
 * entries; returns how many were written. 0 on OOM as well as when there
 * is nothing to return: *oom tells which. */
size_t vp_series_top(const vp_series *s, size_t k, size_t *out, int *oom);

#endif
