/* Numeric columns: a growable double array with the statistics every
 * analysis needs. Reference counted, because a capture and the Lua values
 * handed out for its columns share one array instead of copying it. */
#ifndef VP_SERIES_H
#define VP_SERIES_H

#include <stddef.h>

struct vp_series_sel;

typedef struct vp_series {
    double *v;
    size_t n, cap;
    struct vp_series_sel *sel; /* percentile cache (series.c), NULL when none */
    double sum;       /* the sum of the numbers among the first sum_n values, cached */
    size_t sum_n;
    size_t nums;      /* how many of the first sum_n values are numbers (not NaN) */
    unsigned refs;
} vp_series;

/* A new series with refs = 1 and room for `cap` values; NULL on OOM. */
vp_series *vp_series_new(size_t cap);
vp_series *vp_series_ref(vp_series *s);
void vp_series_unref(vp_series *s);

/* Append; 0 on OOM. */
int vp_series_push(vp_series *s, double x);
/* vp_series_push without the call when there is room (hot loops). */
static inline int vp_series_push_fast(vp_series *s, double x)
{
    if (s->n < s->cap && !s->sel) {
        s->v[s->n++] = x;
        return 1;
    }
    return vp_series_push(s, x);
}

/* Make the length n, padding with zeros; 0 on OOM. */
int vp_series_resize(vp_series *s, size_t n);

/* NaN is a missing value, and every statistic below is of the numbers:
 * NaN is skipped wherever it stands, and a series with no number (empty,
 * or NaN only) has no mean, minimum, maximum, deviation or percentile
 * (NaN; argmax and argmin return n), and a sum of 0. */

/* How many values are numbers (not NaN); cached with the sum. */
size_t vp_series_numbers(vp_series *s);
/* The exact sum of the numbers, rounded once (fsum.h), cached until the
 * series changes. */
double vp_series_sum(vp_series *s);
double vp_series_mean(vp_series *s);
double vp_series_min(const vp_series *s);
double vp_series_max(const vp_series *s);
size_t vp_series_argmax(const vp_series *s); /* 0-based, the first on ties */
size_t vp_series_argmin(const vp_series *s);
/* Population standard deviation (divides by the count). */
double vp_series_stddev(vp_series *s);
/* Nearest-rank percentile, p in [0, 100]: the number at rank ceil(p/100*m)
 * of the m numbers in ascending order (rank 1 for p = 0). NaN also when p
 * is out of range (or when the copy below cannot be allocated). */
double vp_series_percentile(vp_series *s, double p);
/* The number at rank r (1-based) of the ascending order, for r in 1..m.
 * Each call is a selection in a copy of the values (NaN sorted last):
 * O(n). The series keeps that copy until it changes or is freed, so
 * asking one column for p50, p95 and p99 copies it once; call
 * vp_series_drop_cache to give the memory back sooner. A series is not
 * for concurrent use from several threads. */
double vp_series_rank(vp_series *s, size_t r);
/* Free the percentile copy now (it is rebuilt when next needed). */
void vp_series_drop_cache(vp_series *s);

#endif
