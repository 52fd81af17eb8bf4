#include "core/series.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/bigmem.h"
#include "core/fsum.h"
#include "core/hist.h"

/* A series' percentile cache: a copy of its values, which successive
 * selections leave ever more ordered. `fixed` lists positions already
 * holding their final value (everything before no larger, everything after
 * no smaller), ascending, so a later selection searches only between the
 * two nearest: after p50, p99 looks at the top half. */
struct vp_series_sel {
    double *buf;
    size_t bytes; /* of buf (core/bigmem) */
    size_t fixed[16];
    unsigned nfixed;
};

void vp_series_drop_cache(vp_series *s)
{
    if (!s->sel)
        return;
    vp_big_free(s->sel->buf, s->sel->bytes);
    free(s->sel);
    s->sel = NULL;
}

vp_series *vp_series_new(size_t cap)
{
    vp_series *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (cap) {
        s->v = cap <= ((size_t)-1) / sizeof *s->v ? vp_big_realloc(NULL, 0, cap * sizeof *s->v) : NULL;
        if (!s->v) {
            free(s);
            return NULL;
        }
        s->cap = cap;
    }
    s->refs = 1;
    return s;
}

vp_series *vp_series_ref(vp_series *s)
{
    s->refs++;
    return s;
}

void vp_series_unref(vp_series *s)
{
    if (!s || --s->refs)
        return;
    vp_series_drop_cache(s);
    vp_big_free(s->v, s->cap * sizeof *s->v);
    free(s);
}

static int series_reserve(vp_series *s, size_t n)
{
    if (n <= s->cap)
        return 1;
    size_t ncap = s->cap ? s->cap : 16;
    while (ncap < n) {
        if (ncap > ((size_t)-1) / 2 / sizeof(double))
            return 0;
        ncap *= 2;
    }
    double *v = vp_big_realloc(s->v, s->cap * sizeof *v, ncap * sizeof *v);
    if (!v)
        return 0;
    s->v = v;
    s->cap = ncap;
    return 1;
}

static void series_dirty(vp_series *s)
{
    vp_series_drop_cache(s);
    s->sum_n = (size_t)-1;
}

int vp_series_push(vp_series *s, double x)
{
    if (s->n == s->cap && !series_reserve(s, s->n + 1))
        return 0;
    s->v[s->n++] = x;
    if (s->sel)
        series_dirty(s);
    return 1;
}

int vp_series_resize(vp_series *s, size_t n)
{
    if (!series_reserve(s, n))
        return 0;
    if (n > s->n)
        memset(s->v + s->n, 0, (n - s->n) * sizeof *s->v);
    s->n = n;
    series_dirty(s);
    return 1;
}

/* The sum and the count of the numbers, in one pass cached until the
 * series changes. Appending changes n, so the cache is valid exactly while
 * sum_n is still n (a new series: 0 and 0); other changes reset sum_n. */
static void series_totals(vp_series *s)
{
    if (s->sum_n == s->n)
        return;
    vp_xsum x;
    vp_xsum_init(&x);
    size_t nums = 0;
    for (size_t i = 0; i < s->n; i++)
        if (!isnan(s->v[i])) {
            vp_xsum_add(&x, s->v[i]);
            nums++;
        }
    s->sum = vp_xsum_get(&x);
    s->nums = nums;
    s->sum_n = s->n;
}

size_t vp_series_numbers(vp_series *s)
{
    series_totals(s);
    return s->nums;
}

double vp_series_sum(vp_series *s)
{
    series_totals(s);
    return s->sum;
}

double vp_series_mean(vp_series *s)
{
    series_totals(s);
    return s->nums ? s->sum / (double)s->nums : NAN;
}

double vp_series_min(const vp_series *s)
{
    size_t i = vp_series_argmin(s);
    return i < s->n ? s->v[i] : NAN;
}

double vp_series_max(const vp_series *s)
{
    size_t i = vp_series_argmax(s);
    return i < s->n ? s->v[i] : NAN;
}

/* The first number's index, or n; a comparison with NaN is false, so the
 * loops below never pick one. */
static size_t first_number(const vp_series *s)
{
    size_t i = 0;
    while (i < s->n && isnan(s->v[i]))
        i++;
    return i;
}

size_t vp_series_argmax(const vp_series *s)
{
    size_t best = first_number(s);
    for (size_t i = best + 1; i < s->n; i++)
        if (s->v[i] > s->v[best])
            best = i;
    return best;
}

size_t vp_series_argmin(const vp_series *s)
{
    size_t best = first_number(s);
    for (size_t i = best + 1; i < s->n; i++)
        if (s->v[i] < s->v[best])
            best = i;
    return best;
}

double vp_series_stddev(vp_series *s)
{
    double mean = vp_series_mean(s), acc = 0;
    if (isnan(mean))
        return NAN;
    for (size_t i = 0; i < s->n; i++)
        if (!isnan(s->v[i])) {
            double d = s->v[i] - mean;
            acc += d * d;
        }
    return sqrt(acc / (double)s->nums);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    /* NaN sorts last so it never masquerades as a low percentile. */
    if (isnan(x))
        return isnan(y) ? 0 : 1;
    if (isnan(y))
        return -1;
    return (x > y) - (x < y);
}

/* NaN compares greater than every number, so it never masquerades as a
 * low percentile. */
static inline int less(double x, double y)
{
    return isnan(y) ? !isnan(x) : x < y;
}

static void swap(double *a, double *b)
{
    double t = *a;
    *a = *b;
    *b = t;
}

/* Put the k-th smallest of v[lo..hi] at v[k] (quickselect, median-of-three
 * pivot). A column queried for a few percentiles then costs O(n) each,
 * not a sort. When partitioning stops shrinking the range fast enough (a
 * pathological order), the rest is sorted, which bounds the worst case. */
static void select_kth(double *v, size_t lo, size_t hi, size_t k)
{
    unsigned budget = 64;
    while (hi > lo) {
        if (!budget--) {
            qsort(v + lo, hi - lo + 1, sizeof *v, cmp_double);
            return;
        }
        size_t mid = lo + (hi - lo) / 2;
        if (less(v[mid], v[lo]))
            swap(&v[mid], &v[lo]);
        if (less(v[hi], v[lo]))
            swap(&v[hi], &v[lo]);
        if (less(v[hi], v[mid]))
            swap(&v[hi], &v[mid]);
        double pivot = v[mid];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (less(v[i], pivot))
                i++;
            while (less(pivot, v[j]))
                j--;
            if (i <= j) {
                swap(&v[i], &v[j]);
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return;
    }
}

double vp_series_percentile(vp_series *s, double p)
{
    size_t m = vp_series_numbers(s);
    if (!m || !(p >= 0 && p <= 100))
        return NAN;
    return vp_series_rank(s, (size_t)vp_nearest_rank(p, m));
}

double vp_series_rank(vp_series *s, size_t rank)
{
    if (rank < 1 || rank > vp_series_numbers(s))
        return NAN;
    if (!s->sel) {
        struct vp_series_sel *sel = calloc(1, sizeof *sel);
        if (!sel)
            return NAN;
        sel->bytes = s->n * sizeof *sel->buf;
        if (!(sel->buf = vp_big_realloc(NULL, 0, sel->bytes))) {
            free(sel);
            return NAN;
        }
        memcpy(sel->buf, s->v, s->n * sizeof *sel->buf);
        s->sel = sel;
    }
    struct vp_series_sel *sel = s->sel;
    size_t k = rank - 1, lo = 0, hi = s->n - 1;
    unsigned at = 0;
    for (; at < sel->nfixed && sel->fixed[at] < k; at++)
        lo = sel->fixed[at] + 1;
    if (at < sel->nfixed && sel->fixed[at] == k)
        return sel->buf[k];
    if (at < sel->nfixed)
        hi = sel->fixed[at] - 1;
    select_kth(sel->buf, lo, hi, k);
    if (sel->nfixed < sizeof sel->fixed / sizeof sel->fixed[0]) {
        memmove(sel->fixed + at + 1, sel->fixed + at, (sel->nfixed - at) * sizeof *sel->fixed);
        sel->fixed[at] = k;
        sel->nfixed++;
    }
    return sel->buf[k];
}
