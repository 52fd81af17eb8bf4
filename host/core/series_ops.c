#include "core/series_ops.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fsum.h"

/* A series of n values to be filled in by the caller (n set already). */
static vp_series *series_of(size_t n)
{
    vp_series *r = vp_series_new(n);
    if (r)
        r->n = n;
    return r;
}

/* ---- arithmetic ------------------------------------------------------------ */

static vp_series *arith(const double *a, const double *b, double x, size_t n, vp_series_op op,
                        int x_first)
{
    vp_series *r = series_of(n);
    if (!r)
        return NULL;
    double *o = r->v;
    for (size_t i = 0; i < n; i++) {
        double p = a[i], q = b ? b[i] : x;
        if (x_first) {
            double t = p;
            p = q;
            q = t;
        }
        switch (op) {
        case VP_SERIES_ADD:
            o[i] = p + q;
            break;
        case VP_SERIES_SUB:
            o[i] = p - q;
            break;
        case VP_SERIES_MUL:
            o[i] = p * q;
            break;
        case VP_SERIES_DIV:
            o[i] = p / q;
            break;
        }
    }
    return r;
}

vp_series *vp_series_arith(const vp_series *a, const vp_series *b, vp_series_op op)
{
    if (a->n != b->n)
        return NULL;
    return arith(a->v, b->v, 0, a->n, op, 0);
}

vp_series *vp_series_arith_scalar(const vp_series *a, double x, vp_series_op op, int x_first)
{
    return arith(a->v, NULL, x, a->n, op, x_first);
}

/* ---- median ------------------------------------------------------------------ */

double vp_series_median(vp_series *s)
{
    size_t c = vp_series_numbers(s);
    if (!c)
        return NAN;
    double lo = vp_series_rank(s, (c + 1) / 2);
    if (c % 2)
        return lo;
    return (lo + vp_series_rank(s, c / 2 + 1)) / 2;
}

/* ---- selections -------------------------------------------------------------- */

int vp_series_cmp_parse(const char *s, vp_series_cmp *out)
{
    static const struct {
        const char *name;
        vp_series_cmp cmp;
    } ops[] = {{">", VP_CMP_GT},  {">=", VP_CMP_GE}, {"<", VP_CMP_LT},  {"<=", VP_CMP_LE},
               {"==", VP_CMP_EQ}, {"~=", VP_CMP_NE}, {"!=", VP_CMP_NE}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(s, ops[i].name) == 0) {
            *out = ops[i].cmp;
            return 1;
        }
    return 0;
}

int vp_series_cmp_test(double v, vp_series_cmp cmp, double x)
{
    if (isnan(v))
        return 0;
    switch (cmp) {
    case VP_CMP_GT:
        return v > x;
    case VP_CMP_GE:
        return v >= x;
    case VP_CMP_LT:
        return v < x;
    case VP_CMP_LE:
        return v <= x;
    case VP_CMP_EQ:
        return v == x;
    case VP_CMP_NE:
        return v != x;
    }
    return 0;
}

/* Run `body` for every index i whose value v satisfies v cmp x, with the
 * comparison chosen once outside the loop (NaN fails each of them, and ~=
 * tests it explicitly). */
#define FOR_MATCHES(s, cmp, x, from, body)                                          \
    do {                                                                            \
        const double *v_ = (s)->v;                                                  \
        size_t n_ = (s)->n;                                                         \
        switch (cmp) {                                                              \
        case VP_CMP_GT:                                                             \
            for (size_t i = (from); i < n_; i++)                                    \
                if (v_[i] > (x)) { body; }                                          \
            break;                                                                  \
        case VP_CMP_GE:                                                             \
            for (size_t i = (from); i < n_; i++)                                    \
                if (v_[i] >= (x)) { body; }                                         \
            break;                                                                  \
        case VP_CMP_LT:                                                             \
            for (size_t i = (from); i < n_; i++)                                    \
                if (v_[i] < (x)) { body; }                                          \
            break;                                                                  \
        case VP_CMP_LE:                                                             \
            for (size_t i = (from); i < n_; i++)                                    \
                if (v_[i] <= (x)) { body; }                                         \
            break;                                                                  \
        case VP_CMP_EQ:                                                             \
            for (size_t i = (from); i < n_; i++)                                    \
                if (v_[i] == (x)) { body; }                                         \
            break;                                                                  \
        case VP_CMP_NE:                                                             \
            for (size_t i = (from); i < n_; i++)                                    \
                if (v_[i] != (x) && !isnan(v_[i])) { body; }                        \
            break;                                                                  \
        }                                                                           \
    } while (0)

size_t vp_series_count(const vp_series *s, vp_series_cmp cmp, double x)
{
    size_t c = 0;
    FOR_MATCHES(s, cmp, x, 0, c++);
    return c;
}

size_t vp_series_find(const vp_series *s, vp_series_cmp cmp, double x, size_t from)
{
    FOR_MATCHES(s, cmp, x, from, return i);
    return s->n;
}

vp_series *vp_series_filter(const vp_series *s, vp_series_cmp cmp, double x)
{
    vp_series *r = vp_series_new(vp_series_count(s, cmp, x));
    if (!r)
        return NULL;
    double *o = r->v;
    size_t k = 0;
    FOR_MATCHES(s, cmp, x, 0, o[k++] = v_[i]);
    r->n = k;
    return r;
}

vp_series *vp_series_slice(const vp_series *s, size_t first, size_t last)
{
    if (last > s->n)
        last = s->n;
    size_t n = first < last ? last - first : 0;
    vp_series *r = series_of(n);
    if (r && n)
        memcpy(r->v, s->v + first, n * sizeof *r->v);
    return r;
}

/* ---- windows ----------------------------------------------------------------- */

static void rolling_mean(const double *v, size_t n, size_t w, double *o)
{
    vp_ksum k = {0, 0};
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isnan(v[i])) {
            vp_ksum_add(&k, v[i]);
            count++;
        }
        if (i >= w && !isnan(v[i - w])) {
            vp_ksum_add(&k, -v[i - w]);
            count--;
        }
        o[i] = count ? vp_ksum_get(&k) / (double)count : NAN;
    }
}

/* A queue of indexes whose values decrease from the front: the front is the
 * window's maximum. Each index enters and leaves once. */
static int rolling_max(const double *v, size_t n, size_t w, double *o)
{
    size_t *q = malloc((n ? n : 1) * sizeof *q), head = 0, tail = 0;
    if (!q)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (head < tail && q[head] + w <= i)
            head++;
        if (!isnan(v[i])) {
            while (head < tail && v[q[tail - 1]] <= v[i])
                tail--;
            q[tail++] = i;
        }
        o[i] = head < tail ? v[q[head]] : NAN;
    }
    free(q);
    return 1;
}

static double median_sorted(const double *w, size_t k)
{
    if (!k)
        return NAN;
    return k % 2 ? w[k / 2] : (w[k / 2 - 1] + w[k / 2]) / 2;
}

/* First position in w[0..k) whose value is not below x. */
static size_t lower_bound(const double *w, size_t k, double x)
{
    size_t lo = 0, hi = k;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Small windows: the window's numbers kept sorted; a step is a binary
 * search and a move of at most `w` values. */
static int rolling_median_small(const double *v, size_t n, size_t w, double *o)
{
    double *win = malloc(w * sizeof *win);
    size_t k = 0;
    if (!win)
        return 0;
    for (size_t i = 0; i < n; i++) {
        if (i >= w && !isnan(v[i - w])) {
            size_t at = lower_bound(win, k, v[i - w]);
            memmove(win + at, win + at + 1, (k - at - 1) * sizeof *win);
            k--;
        }
        if (!isnan(v[i])) {
            size_t at = lower_bound(win, k, v[i]);
            memmove(win + at + 1, win + at, (k - at) * sizeof *win);
            win[at] = v[i];
            k++;
        }
        o[i] = median_sorted(win, k);
    }
    free(win);
    return 1;
}

/* A binary heap of (key, index) with the largest key on top. The lower half
 * of a window keys its values as they are (a max-heap), the upper half
 * negated (a min-heap). */
typedef struct {
    double key;
    size_t i;
} heap_ent;

typedef struct {
    heap_ent *h;
    size_t n, cap;
    double sign;
} heap;

static int heap_push(heap *q, double v, size_t i)
{
    if (q->n == q->cap) {
        size_t ncap = q->cap ? 2 * q->cap : 64;
        heap_ent *h = realloc(q->h, ncap * sizeof *h);
        if (!h)
            return 0;
        q->h = h;
        q->cap = ncap;
    }
    heap_ent e = {q->sign * v, i};
    size_t at = q->n++;
    while (at) {
        size_t up = (at - 1) / 2;
        if (!(e.key > q->h[up].key))
            break;
        q->h[at] = q->h[up];
        at = up;
    }
    q->h[at] = e;
    return 1;
}

static void heap_pop(heap *q)
{
    heap_ent e = q->h[--q->n];
    size_t at = 0, n = q->n;
    for (;;) {
        size_t l = 2 * at + 1, b = l;
        if (l >= n)
            break;
        if (l + 1 < n && q->h[l + 1].key > q->h[l].key)
            b = l + 1;
        if (!(q->h[b].key > e.key))
            break;
        q->h[at] = q->h[b];
        at = b;
    }
    if (n)
        q->h[at] = e;
}

/* Entries that left the window stay in the heaps until they reach a top. */
static void heap_prune(heap *q, size_t first)
{
    while (q->n && q->h[0].i < first)
        heap_pop(q);
}

static double heap_top(const heap *q)
{
    return q->sign * q->h[0].key;
}

/* Move the top of `from` to `to`; side[i] says which half index i is in. */
static int heap_move(heap *from, heap *to, unsigned char *side, unsigned char to_side)
{
    heap_ent e = from->h[0];
    heap_pop(from);
    side[e.i] = to_side;
    return heap_push(to, from->sign * e.key, e.i);
}

/* Large windows: the window's numbers split into a lower half (a max-heap)
 * and an upper half (a min-heap) of equal size (the lower one holding one
 * more for an odd count), so the median is on their tops. A value that
 * leaves the window is only counted out; it is dropped when it surfaces.
 * O(n log n) at worst whatever the window. */
static int rolling_median_large(const double *v, size_t n, size_t w, double *o)
{
    heap lo = {NULL, 0, 0, 1}, hi = {NULL, 0, 0, -1};
    unsigned char *side = malloc(n ? n : 1); /* 1: in lo, 0: in hi */
    size_t live_lo = 0, live_hi = 0;
    int ok = side != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        size_t first = i + 1 >= w ? i + 1 - w : 0;
        if (i >= w && !isnan(v[i - w])) {
            if (side[i - w])
                live_lo--;
            else
                live_hi--;
        }
        heap_prune(&lo, first);
        heap_prune(&hi, first);
        if (!isnan(v[i])) {
            if (!live_lo || v[i] <= heap_top(&lo)) {
                side[i] = 1;
                ok = heap_push(&lo, v[i], i);
                live_lo++;
            } else {
                side[i] = 0;
                ok = heap_push(&hi, v[i], i);
                live_hi++;
            }
        }
        while (ok && (live_lo > live_hi + 1 || live_lo < live_hi)) {
            if (live_lo > live_hi) {
                ok = heap_move(&lo, &hi, side, 0);
                live_lo--;
                live_hi++;
                heap_prune(&lo, first);
            } else {
                ok = heap_move(&hi, &lo, side, 1);
                live_hi--;
                live_lo++;
                heap_prune(&hi, first);
            }
        }
        size_t c = live_lo + live_hi;
        o[i] = !c ? NAN : c % 2 ? heap_top(&lo) : (heap_top(&lo) + heap_top(&hi)) / 2;
    }
    free(lo.h);
    free(hi.h);
    free(side);
    return ok;
}

/* Up to this window, keeping the window sorted beats the two heaps. */
#define SMALL_WINDOW 256

vp_series *vp_series_rolling(const vp_series *s, size_t window, vp_roll_kind kind)
{
    if (window < 1)
        window = 1;
    vp_series *r = series_of(s->n);
    if (!r)
        return NULL;
    int ok = 1;
    switch (kind) {
    case VP_ROLL_MEAN:
        rolling_mean(s->v, s->n, window, r->v);
        break;
    case VP_ROLL_MAX:
        ok = rolling_max(s->v, s->n, window, r->v);
        break;
    case VP_ROLL_MEDIAN:
        ok = window <= SMALL_WINDOW ? rolling_median_small(s->v, s->n, window, r->v)
                                    : rolling_median_large(s->v, s->n, window, r->v);
        break;
    }
    if (!ok) {
        vp_series_unref(r);
        return NULL;
    }
    return r;
}

/* ---- bins -------------------------------------------------------------------- */

void vp_series_histogram(const vp_series *s, const double *edges, size_t nedges, uint64_t *counts,
                         uint64_t *below, uint64_t *above, uint64_t *missing)
{
    size_t nbins = nedges - 1;
    double lo = edges[0], hi = edges[nbins];
    memset(counts, 0, nbins * sizeof *counts);
    *below = *above = *missing = 0;
    for (size_t i = 0; i < s->n; i++) {
        double x = s->v[i];
        if (isnan(x)) {
            (*missing)++;
        } else if (x < lo) {
            (*below)++;
        } else if (x > hi) {
            (*above)++;
        } else if (x == hi) {
            counts[nbins - 1]++;
        } else {
            /* the last edge not above x: its bin */
            size_t a = 0, b = nbins;
            while (b - a > 1) {
                size_t mid = a + (b - a) / 2;
                if (edges[mid] <= x)
                    a = mid;
                else
                    b = mid;
            }
            counts[a]++;
        }
    }
}

int vp_series_bin_edges(const vp_series *s, size_t nbins, double *edges)
{
    double lo = NAN, hi = NAN;
    for (size_t i = 0; i < s->n; i++) {
        double x = s->v[i];
        if (isnan(x))
            continue;
        if (isnan(lo) || x < lo)
            lo = x;
        if (isnan(hi) || x > hi)
            hi = x;
    }
    if (isnan(lo) || nbins < 1)
        return 0;
    if (lo == hi) {
        lo -= 0.5;
        hi += 0.5;
    }
    for (size_t j = 0; j < nbins; j++)
        edges[j] = lo + (hi - lo) * (double)j / (double)nbins;
    edges[nbins] = hi;
    return 1;
}

/* ---- running values and orders ------------------------------------------------- */

vp_series *vp_series_cumsum(const vp_series *s)
{
    vp_series *r = series_of(s->n);
    if (!r)
        return NULL;
    vp_ksum k = {0, 0};
    for (size_t i = 0; i < s->n; i++) {
        if (isnan(s->v[i])) {
            r->v[i] = NAN;
            continue;
        }
        vp_ksum_add(&k, s->v[i]);
        r->v[i] = vp_ksum_get(&k);
    }
    return r;
}

vp_series *vp_series_diff(const vp_series *s)
{
    size_t n = s->n > 1 ? s->n - 1 : 0;
    vp_series *r = series_of(n);
    if (!r)
        return NULL;
    for (size_t i = 0; i < n; i++)
        r->v[i] = s->v[i + 1] - s->v[i];
    return r;
}

vp_series *vp_series_abs(const vp_series *s)
{
    vp_series *r = series_of(s->n);
    if (!r)
        return NULL;
    for (size_t i = 0; i < s->n; i++)
        r->v[i] = fabs(s->v[i]);
    return r;
}

size_t vp_series_windows(const vp_series *clock, double width, size_t *ends, size_t max)
{
    size_t k = 0;
    double elapsed = 0, edge = width;
    for (size_t i = 0; i < clock->n; i++) {
        double d = clock->v[i];
        if (d > 0) /* NaN and negative durations move no clock */
            elapsed += d;
        if (elapsed >= edge || i + 1 == clock->n) {
            if (ends && k < max)
                ends[k] = i + 1;
            k++;
            /* a value longer than a window ends it alone: the next starts after it */
            while (edge <= elapsed)
                edge += width;
        }
    }
    return k;
}

/* A double's bits as an unsigned key in the same order: negative numbers
 * have every bit flipped, the others only the sign bit. */
static uint64_t sort_key(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return (u >> 63) ? ~u : (u | (UINT64_C(1) << 63));
}

static double key_value(uint64_t k)
{
    uint64_t u = (k >> 63) ? (k & ~(UINT64_C(1) << 63)) : ~k;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* Least significant byte first, one counting pass per byte; a byte all the
 * keys share is skipped. a and tmp hold n keys; returns the one that holds
 * them sorted. */
static const uint64_t *radix_sort(uint64_t *a, uint64_t *tmp, size_t n)
{
    for (unsigned shift = 0; shift < 64; shift += 8) {
        size_t count[256] = {0};
        for (size_t i = 0; i < n; i++)
            count[(a[i] >> shift) & 0xff]++;
        if (count[(a[0] >> shift) & 0xff] == n)
            continue;
        size_t at = 0;
        for (int b = 0; b < 256; b++) {
            size_t c = count[b];
            count[b] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++)
            tmp[count[(a[i] >> shift) & 0xff]++] = a[i];
        uint64_t *t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}

vp_series *vp_series_sorted(const vp_series *s)
{
    size_t n = s->n, m = 0;
    vp_series *r = series_of(n);
    uint64_t *keys = malloc((n ? n : 1) * sizeof *keys), *tmp = malloc((n ? n : 1) * sizeof *tmp);
    if (!r || !keys || !tmp) {
        vp_series_unref(r);
        free(keys);
        free(tmp);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (!isnan(s->v[i]))
            keys[m++] = sort_key(s->v[i]);
    const uint64_t *sorted = m ? radix_sort(keys, tmp, m) : keys;
    for (size_t i = 0; i < m; i++)
        r->v[i] = key_value(sorted[i]);
    for (size_t i = m; i < n; i++)
        r->v[i] = NAN;
    free(keys);
    free(tmp);
    return r;
}

/* Does index a rank before index b among the largest (larger value, then
 * earlier index)? */
static int ranks_before(const double *v, size_t a, size_t b)
{
    return v[a] > v[b] || (v[a] == v[b] && a < b);
}

/* Restore the heap below `at`: h[0] is the index that ranks last. */
static void sift_down(const double *v, size_t *h, size_t k, size_t at)
{
    for (;;) {
        size_t l = 2 * at + 1, r = l + 1, worst = at;
        if (l < k && ranks_before(v, h[worst], h[l]))
            worst = l;
        if (r < k && ranks_before(v, h[worst], h[r]))
            worst = r;
        if (worst == at)
            return;
        size_t t = h[at];
        h[at] = h[worst];
        h[worst] = t;
        at = worst;
    }
}

size_t vp_series_top(const vp_series *s, size_t k, size_t *out, int *oom)
{
    const double *v = s->v;
    *oom = 0;
    if (k > s->n)
        k = s->n;
    if (!k)
        return 0;
    size_t *h = malloc(k * sizeof *h), size = 0;
    if (!h) {
        *oom = 1;
        return 0;
    }
    /* A heap of the k best so far whose root is the one that ranks last. */
    for (size_t i = 0; i < s->n; i++) {
        if (isnan(v[i]))
            continue;
        if (size < k) {
            size_t at = size++;
            h[at] = i;
            while (at) {
                size_t up = (at - 1) / 2;
                if (!ranks_before(v, h[up], h[at]))
                    break;
                size_t t = h[up];
                h[up] = h[at];
                h[at] = t;
                at = up;
            }
        } else if (ranks_before(v, i, h[0])) {
            h[0] = i;
            sift_down(v, h, size, 0);
        }
    }
    /* Taking the root that ranks last each time fills out from the end. */
    for (size_t left = size; left; left--) {
        out[left - 1] = h[0];
        h[0] = h[left - 1];
        sift_down(v, h, left - 1, 0);
    }
    free(h);
    return size;
}
