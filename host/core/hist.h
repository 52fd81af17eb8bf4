/* Exact value counts of unsigned integers, and a per-frame quantity
 * summarised as it streams past.
 *
 * Profiler times are integers (VProf: 4 us units), and a long capture holds
 * far fewer distinct values than frames. Counting each distinct value gives
 * the same nearest-rank percentiles as sorting every value, in memory
 * proportional to the distinct values: a 10-million-frame column of group
 * self times is a few thousand counts, and they give the column's exact
 * sum too (vp_stream_sum). vp_stream adds the first minimum and maximum,
 * so a whole-capture pass keeps no column at all. */
#ifndef VP_HIST_H
#define VP_HIST_H

#include <stddef.h>
#include <stdint.h>

/* The 1-based rank of the nearest-rank percentile p (0..100) of n values:
 * ceil(p/100 * n), at least 1, at most n. p*n/100 rather than p/100*n, and
 * a tolerance, so that p95 of 100 values is rank 95 and not 96 through
 * rounding. The one definition (vp_series_percentile uses it too). */
uint64_t vp_nearest_rank(double p, uint64_t n);

typedef struct vp_hist_slot {
    uint64_t value, count; /* count 0: an empty slot */
} vp_hist_slot;

/* Values below this are counted in a plain array once a histogram has seen
 * that many values (so a histogram of a few values stays small): the usual
 * 4 us self times of a group or a node then cost an increment, no probing. */
#define VP_HIST_SMALL 1024u

typedef struct vp_hist {
    uint32_t *small;     /* counts of 1 .. VP_HIST_SMALL - 1, or NULL */
    vp_hist_slot *slots; /* the other values: open addressing, linear probing */
    uint32_t cap;        /* a power of two; 0 before the first nonzero value */
    uint32_t used;       /* distinct nonzero values */
    uint64_t key;        /* mixes the values' slots (hist.c) */
    uint64_t zeros;      /* the value 0, the most common one, kept apart */
    uint64_t n;          /* values counted */
    /* The distinct values in ascending order with their cumulative counts,
     * built when a rank is asked for and dropped by the next add. */
    vp_hist_slot *sorted;
    uint32_t sorted_n;
} vp_hist;

/* An empty histogram (all zeros is one too). */
void vp_hist_init(vp_hist *h);
void vp_hist_free(vp_hist *h);

/* Count value v `times` more times; 0 on OOM (the histogram is unchanged). */
int vp_hist_add_slow(vp_hist *h, uint64_t v, uint64_t times);

static inline int vp_hist_add(vp_hist *h, uint64_t v, uint64_t times)
{
    if (!h->sorted) {
        if (v == 0) {
            h->zeros += times;
            h->n += times;
            return 1;
        }
        if (v < VP_HIST_SMALL && h->small && times == 1 && h->small[v] < UINT32_MAX) {
            h->small[v]++;
            h->n++;
            return 1;
        }
    }
    return vp_hist_add_slow(h, v, times);
}

/* Distinct values counted (builds the sorted view; 0 on OOM). */
uint64_t vp_hist_distinct(vp_hist *h);

/* The distinct values in ascending order, each with the number of values
 * up to and including it (so the last cumulative count is n); *k receives
 * how many. NULL on OOM or when there are no values. Valid until the next
 * add or free. */
const vp_hist_slot *vp_hist_sorted(vp_hist *h, uint32_t *k);

/* The value at 1-based rank r (1..n) of the ascending order; 0 when r is
 * out of range or on OOM (*ok says which, may be NULL). */
uint64_t vp_hist_at_rank(vp_hist *h, uint64_t r, int *ok);

/* A per-frame quantity (integer units) summarised as it streams in frame
 * order: the value counts, from which the sum comes (vp_stream_sum), and
 * the first minimum and maximum with their 0-based positions. */
typedef struct vp_stream {
    vp_hist h;
    uint64_t min, max;
    uint64_t argmin, argmax;
} vp_stream;

void vp_stream_init(vp_stream *s);
void vp_stream_free(vp_stream *s);
/* *dst (initialised, empty) becomes a copy of *src; 0 on OOM. */
int vp_stream_copy(vp_stream *dst, const vp_stream *src);

/* Append `times` copies of v (positions n .. n + times - 1); 0 on OOM. */
static inline int vp_stream_add(vp_stream *s, uint64_t v, uint64_t times)
{
    uint64_t at = s->h.n;
    if (!vp_hist_add(&s->h, v, times))
        return 0;
    if (at == 0) {
        s->min = s->max = v;
        s->argmin = s->argmax = 0;
    } else if (v > s->max) {
        s->max = v;
        s->argmax = at;
    } else if (v < s->min) {
        s->min = v;
        s->argmin = at;
    }
    return 1;
}

static inline uint64_t vp_stream_n(const vp_stream *s)
{
    return s->h.n;
}

/* The sum of the values as doubles, value x scale (fsum.h: exact, then
 * rounded once): exactly what vp_series_sum gives for the column of those
 * doubles, in any order. NaN on OOM. */
double vp_stream_sum(vp_stream *s, double scale);

/* Nearest-rank percentile p (0..100) in units; 0 with *ok = 0 when empty,
 * p is out of range or on OOM. */
uint64_t vp_stream_percentile(vp_stream *s, double p, int *ok);

/* Population standard deviation of value x scale over the counts (NaN when
 * empty): sum(count x (x - mean)^2) / n, so it can differ in the last bits
 * from a Series' stddev, which adds the squares in frame order. */
double vp_stream_stddev(vp_stream *s, double scale);

#endif
