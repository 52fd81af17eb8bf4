/* Hitch frames in a column of frame times (hitch.h). */
#include "core/hitch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- medians ------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Reorder v[0..n) so that v[k] is its k-th smallest (0-based), with no
 * larger value before it and no smaller one after (Wirth's selection). */
static void select_kth(double *v, ptrdiff_t n, ptrdiff_t k)
{
    ptrdiff_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double x = v[k];
        ptrdiff_t i = lo, j = hi;
        do {
            while (v[i] < x)
                i++;
            while (x < v[j])
                j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        } while (i <= j);
        if (j < k)
            lo = i;
        if (k < i)
            hi = j;
    }
}

double vp_median(double *v, size_t n)
{
    size_t h = n / 2;
    select_kth(v, (ptrdiff_t)n, (ptrdiff_t)h);
    if (n % 2)
        return v[h];
    double below = v[0]; /* the largest of v[0..h): the lower middle */
    for (size_t i = 1; i < h; i++)
        below = v[i] > below ? v[i] : below;
    return (below + v[h]) / 2;
}

/* ---- detection -------------------------------------------------------------------- */

/* A sliding window of frame times with its median in O(log n) a step: a
 * Fenwick tree of counts over the ranks of the distinct times. For long
 * windows with many frames to test, where copying each window would cost
 * window x frames. */
typedef struct slide {
    double *vals;     /* distinct times, ascending */
    uint32_t *tree;   /* Fenwick counts over ranks 1..nv */
    uint32_t nv, top; /* top: the highest power of two <= nv */
    uint32_t count;   /* values in the window */
} slide;

static int slide_init(slide *s, const double *ms, uint32_t n)
{
    s->vals = malloc((size_t)n * sizeof *s->vals + 1);
    s->tree = calloc((size_t)n + 1, sizeof *s->tree);
    if (!s->vals || !s->tree)
        return 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!isnan(ms[i]))
            s->vals[k++] = ms[i];
    qsort(s->vals, k, sizeof *s->vals, cmp_double);
    uint32_t d = 0;
    for (uint32_t i = 0; i < k; i++)
        if (!d || s->vals[d - 1] != s->vals[i])
            s->vals[d++] = s->vals[i];
    s->nv = d;
    for (s->top = 1; s->top * 2 <= d && s->top * 2 > s->top; s->top *= 2)
        ;
    return 1;
}

/* Add (d = 1) or remove (d = -1) a time; NaN is never in the window. */
static void slide_add(slide *s, double v, int d)
{
    if (isnan(v))
        return;
    /* rank of v: its index in vals, 1-based */
    uint32_t lo = 0, hi = s->nv - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->vals[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (uint32_t i = lo + 1; i <= s->nv; i += i & (0u - i))
        s->tree[i] += (uint32_t)d;
    s->count += (uint32_t)d;
}

/* The k-th smallest (1-based) value in the window. */
static double slide_kth(const slide *s, uint32_t k)
{
    uint32_t pos = 0;
    for (uint32_t step = s->top; step; step >>= 1)
        if (pos + step <= s->nv && s->tree[pos + step] < k) {
            pos += step;
            k -= s->tree[pos];
        }
    return s->vals[pos]; /* rank pos + 1 */
}

static double slide_median(const slide *s)
{
    uint32_t h = s->count / 2;
    if (s->count % 2)
        return slide_kth(s, h + 1);
    return (slide_kth(s, h) + slide_kth(s, h + 1)) / 2;
}

/* Make room for one more element in *p (*cap elements of `size` bytes). */
static int room_for(void **p, uint32_t *cap, uint32_t n, size_t size)
{
    if (n < *cap)
        return 1;
    uint32_t c = *cap ? *cap : 64;
    while (c <= n)
        c = c > UINT32_MAX / 2 ? UINT32_MAX : c * 2;
    void *q = realloc(*p, (size_t)c * size);
    if (!q)
        return 0;
    *p = q;
    *cap = c;
    return 1;
}

static int hitch_push(vp_hitch **out, uint32_t *count, uint32_t *cap, vp_hitch h)
{
    if (!room_for((void **)out, cap, *count, sizeof **out))
        return 0;
    (*out)[(*count)++] = h;
    return 1;
}

static inline int relative_hitch(const vp_hitch_rule *r, double t, double b)
{
    return t >= r->factor * b && t - b >= r->min_excess_ms;
}

vp_errcode vp_hitches(const double *ms, uint32_t n, const vp_hitch_rule *rule, vp_hitch **out,
                      uint32_t *count, vp_error *err)
{
    uint32_t w = rule->window ? rule->window : 1, cap = 0;
    *out = NULL;
    *count = 0;
    double *win = malloc(((size_t)(w < n ? w : n) + 1) * sizeof *win);
    uint32_t *cand = NULL, ncand = 0, ccap = 0;
    slide sl = {0};
    if (!win)
        goto oom;
    /* Frames to test, in order; the baseline is found below for each. */
    if (rule->absolute) {
        for (uint32_t i = 0; i < n; i++)
            if (ms[i] > rule->threshold_ms && !hitch_push(out, count, &cap, (vp_hitch){i, 0, ms[i], 0}))
                goto oom;
    } else {
        /* The window's minimum bounds its median from below, so a frame
         * that is no hitch against the minimum is none against the median:
         * only the frames passing this test get the median. The minimum
         * comes from a deque of increasing times. */
        uint32_t qcap = (w < n ? w : n) + 2, head = 0, tail = 0; /* a ring of indices */
        uint32_t *dq = malloc((size_t)qcap * sizeof *dq);
        if (!dq)
            goto oom;
        for (uint32_t i = 1; i < n; i++) {
            double prev = ms[i - 1];
            if (!isnan(prev)) {
                while (tail != head) {
                    uint32_t last = tail ? tail - 1 : qcap - 1;
                    if (ms[dq[last]] < prev)
                        break;
                    tail = last;
                }
                dq[tail] = i - 1;
                tail = tail + 1 == qcap ? 0 : tail + 1;
            }
            while (head != tail && i > w && dq[head] < i - w)
                head = head + 1 == qcap ? 0 : head + 1;
            if (head == tail)
                continue; /* nothing but NaN before: no baseline */
            double t = ms[i], mn = ms[dq[head]];
            if (t >= rule->min_excess_ms && relative_hitch(rule, t, mn)) {
                if (!room_for((void **)&cand, &ccap, ncand, sizeof *cand)) {
                    free(dq);
                    goto oom;
                }
                cand[ncand++] = i;
            }
        }
        free(dq);
        for (uint32_t k = 0; k < ncand; k++)
            if (!hitch_push(out, count, &cap, (vp_hitch){cand[k], 0, ms[cand[k]], 0}))
                goto oom;
    }
    /* Baselines: each window copied and its median selected, or, when
     * that would cost more than a sliding window over every frame, the
     * sliding window. */
    uint64_t copy_cost = (uint64_t)*count * (w < n ? w : n);
    if (copy_cost > 64 * (uint64_t)n + 4096) {
        if (!slide_init(&sl, ms, n))
            goto oom;
        uint32_t k = 0;
        for (uint32_t i = 0; i < n && k < *count; i++) {
            if (i > 0)
                slide_add(&sl, ms[i - 1], 1);
            if (i > w)
                slide_add(&sl, ms[i - 1 - w], -1);
            if ((*out)[k].frame == i) {
                if (sl.count) {
                    (*out)[k].has_baseline = 1;
                    (*out)[k].baseline_ms = slide_median(&sl);
                }
                k++;
            }
        }
    } else {
        for (uint32_t k = 0; k < *count; k++) {
            uint32_t i = (*out)[k].frame, first = i > w ? i - w : 0, m = 0;
            for (uint32_t j = first; j < i; j++)
                if (!isnan(ms[j]))
                    win[m++] = ms[j];
            if (m) {
                (*out)[k].has_baseline = 1;
                (*out)[k].baseline_ms = vp_median(win, m);
            }
        }
    }
    if (!rule->absolute) {
        /* Keep the candidates that pass against the median. */
        uint32_t kept = 0;
        for (uint32_t k = 0; k < *count; k++)
            if ((*out)[k].has_baseline && relative_hitch(rule, (*out)[k].frame_ms, (*out)[k].baseline_ms))
                (*out)[kept++] = (*out)[k];
        *count = kept;
    }
    free(win);
    free(cand);
    free(sl.vals);
    free(sl.tree);
    return VP_OK;
oom:
    free(win);
    free(cand);
    free(sl.vals);
    free(sl.tree);
    free(*out);
    *out = NULL;
    *count = 0;
    return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
}
