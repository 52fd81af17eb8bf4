/* Sums of doubles: the exact sum of a set of values, and a running sum.
 *
 * A column's sum (Series:sum, and the summaries a capture streams in
 * place of its columns) is exact: the sum of the values as real numbers,
 * rounded once to the nearest double. It is then the same whatever the
 * order the values come in, so a summary can add a value's count times the
 * value at the end instead of adding every frame's value as it streams
 * past, and still equal the sum of the column (hist.h: vp_stream_sum).
 *
 * A running sum (a cumulative or rolling sum: a value per position) stays
 * Neumaier's compensated sum, which costs a few operations a value. */
#ifndef VP_FSUM_H
#define VP_FSUM_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* Neumaier's compensated running sum: sum + comp is the running total. */
typedef struct vp_ksum {
    double sum, comp;
} vp_ksum;

static inline void vp_ksum_add(vp_ksum *k, double x)
{
    double t = k->sum + x;
    if (fabs(k->sum) >= fabs(x))
        k->comp += (k->sum - t) + x;
    else
        k->comp += (x - t) + k->sum;
    k->sum = t;
}

static inline double vp_ksum_get(const vp_ksum *k)
{
    return k->sum + k->comp;
}

/* Partials a finite sum can need at most: they do not overlap, and the
 * bits of a double run from 2^-1074 to 2^1023. */
#define VP_XSUM_PARTIALS 2100

/* An exact sum. Each value's significand is added, as an integer, to a
 * bucket for its exponent (an addition of integers: exact, and about as
 * fast as a plain sum); every few hundred values the buckets are emptied
 * into Shewchuk's partials (as Python's math.fsum keeps them), which hold
 * the exact sum so far as a few non-overlapping doubles and give it
 * rounded once. About 33 KB: a local of the function that sums, not a
 * field. Needs no allocation and cannot fail. */
typedef struct vp_xsum {
    double special;   /* the infinities and NaNs added (0 when none) */
    double plain;     /* the sum added naively: the answer after an overflow */
    int overflow;     /* the exact sum went out of range */
    unsigned pending; /* values in the buckets */
    int lo, hi;       /* the buckets in use (lo > hi: none) */
    size_t n;         /* partials in use: non-overlapping, ascending magnitude */
    int64_t bucket[2048];       /* by biased exponent: signed significands */
    double p[VP_XSUM_PARTIALS];
} vp_xsum;

void vp_xsum_init(vp_xsum *s);
void vp_xsum_add(vp_xsum *s, double x);
/* Add c x x exactly (c < 2^53): a value's count times the value. */
void vp_xsum_add_times(vp_xsum *s, double x, double c);
/* The sum rounded to the nearest double (ties to even). NaN when a NaN or
 * infinities of both signs were added, that infinity when one was; when
 * the exact sum is beyond the largest double, the naive sum (an infinity,
 * or what the order of the values made of it). */
double vp_xsum_get(vp_xsum *s);

#endif
