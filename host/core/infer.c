#include "core/infer.h"
#include "core/hist.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Distributions ------------------------------------------------------------ */

#define LOG_SQRT_2PI 0.91893853320467274178
#define PI 3.14159265358979323846

double vp_log_gamma(double x)
{
    if (!(x > 0) || isinf(x))
        return isinf(x) && x > 0 ? x : NAN;
    /* Stirling's series (terms B_2k / (2k (2k - 1) x^(2k - 1)) up to k = 7)
     * is accurate to 1e-17 from 12 up; below, step up with
     * Gamma(x + 1) = x Gamma(x). */
    double shift = 0;
    if (x < 12) {
        double prod = 1;
        while (x < 12) {
            prod *= x;
            x += 1;
        }
        shift = log(prod);
    }
    double r = 1 / x, r2 = r * r;
    double series =
        r * (1.0 / 12 -
             r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680 - r2 * (1.0 / 1188 - r2 * (691.0 / 360360 - r2 / 156))))));
    return (x - 0.5) * log(x) - x + LOG_SQRT_2PI + series - shift;
}

/* The continued fraction of I_x(a, b) / (x^a y^b / (a B(a, b))) (DLMF
 * 8.17.22), evaluated with the modified Lentz method; y = 1 - x. It
 * converges fast for x < (a + 1) / (a + b + 2). */
static double beta_cf(double x, double a, double b)
{
    const double tiny = 1e-300;
    double f = 1, c = 1, d = 0;
    for (int i = 1; i <= 20000; i++) {
        int m = i / 2;
        double num;
        if (i % 2)
            num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
        else
            num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
        d = 1 + num * d;
        if (fabs(d) < tiny)
            d = tiny;
        c = 1 + num / c;
        if (fabs(c) < tiny)
            c = tiny;
        d = 1 / d;
        double delta = c * d;
        f *= delta;
        if (fabs(delta - 1) < 1e-16)
            break;
    }
    return 1 / f;
}

/* I_x(a, b) given both x and y = 1 - x, so that a caller with y small
 * (the t distribution near 0) loses nothing to 1 - x. */
static double beta_inc_xy(double x, double y, double a, double b)
{
    if (x <= 0)
        return 0;
    if (y <= 0)
        return 1;
    double lfront = vp_log_gamma(a + b) - vp_log_gamma(a) - vp_log_gamma(b) + a * log(x) + b * log(y);
    if (x < (a + 1) / (a + b + 2))
        return exp(lfront) * beta_cf(x, a, b) / a;
    return 1 - exp(lfront) * beta_cf(y, b, a) / b;
}

double vp_beta_inc(double x, double a, double b)
{
    if (!(a > 0) || !(b > 0) || !(x >= 0 && x <= 1))
        return NAN;
    return beta_inc_xy(x, 1 - x, a, b);
}

double vp_normal_cdf(double z)
{
    return 0.5 * erfc(-z / sqrt(2.0));
}

double vp_t_two_sided(double t, double df)
{
    if (isnan(t) || !(df > 0))
        return NAN;
    if (isinf(t))
        return 0;
    if (df > 1e7)
        return erfc(fabs(t) / sqrt(2.0));
    double t2 = t * t;
    /* P(|T| >= |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2) */
    double p = beta_inc_xy(df / (df + t2), t2 / (df + t2), df / 2, 0.5);
    return p > 1 ? 1 : p;
}

double vp_t_cdf(double t, double df)
{
    double p = vp_t_two_sided(t, df);
    if (isnan(p))
        return p;
    return t >= 0 ? 1 - p / 2 : p / 2;
}

double vp_t_quantile(double p, double df)
{
    if (!(p > 0 && p < 1) || !(df > 0))
        return NAN;
    if (p == 0.5)
        return 0;
    double tail = p < 0.5 ? p : 1 - p;
    double target = 2 * tail;
    double lo = 0, hi = 1;
    while (vp_t_two_sided(hi, df) > target && hi < 1e300)
        hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
        double mid = lo + (hi - lo) / 2;
        if (vp_t_two_sided(mid, df) > target)
            lo = mid;
        else
            hi = mid;
    }
    double t = lo + (hi - lo) / 2;
    return p < 0.5 ? -t : t;
}

double vp_normal_quantile(double p)
{
    if (!(p > 0 && p < 1))
        return NAN;
    if (p == 0.5)
        return 0;
    double q = p < 0.5 ? p : 1 - p;
    /* A rough start (Abramowitz and Stegun 26.2.23, error < 4.5e-4), then
     * Halley steps on the upper tail 0.5 erfc(z / sqrt 2) = q. */
    double t = sqrt(-2 * log(q));
    double z = t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1 + t * (1.432788 + t * (0.189269 + t * 0.001308)));
    for (int i = 0; i < 8; i++) {
        double dens = exp(-0.5 * z * z - LOG_SQRT_2PI);
        if (dens <= 0)
            break;
        double u = (0.5 * erfc(z / sqrt(2.0)) - q) / dens;
        z += u / (1 - z * u / 2);
        if (fabs(u) < 1e-16 * (z > 1 ? z : 1))
            break;
    }
    return p < 0.5 ? -z : z;
}

double vp_kolmogorov_q(double lambda)
{
    if (isnan(lambda))
        return NAN;
    if (lambda <= 0)
        return 1;
    if (lambda < 1.18) {
        /* P(K <= l) = sqrt(2 pi) / l sum_{k >= 1} exp(-(2k - 1)^2 pi^2 / (8 l^2)),
         * which converges fast where the alternating series does not. */
        double s = 0, w = PI * PI / (8 * lambda * lambda);
        for (int k = 1; k <= 50; k++) {
            double term = exp(-(2 * k - 1) * (2 * k - 1) * w);
            s += term;
            if (term < 1e-17 * s)
                break;
        }
        double q = 1 - sqrt(2 * PI) / lambda * s;
        return q < 0 ? 0 : q;
    }
    double s = 0, sign = 1;
    for (int k = 1; k <= 100; k++) {
        double term = exp(-2.0 * k * k * lambda * lambda);
        s += sign * term;
        sign = -sign;
        if (term < 1e-17)
            break;
    }
    double q = 2 * s;
    return q < 0 ? 0 : (q > 1 ? 1 : q);
}

double vp_anderson_darling_q(double z)
{
    if (isnan(z))
        return NAN;
    if (z <= 0)
        return 1;
    /* Two fitted pieces of the limit cdf, each a polynomial in z (Horner,
     * highest power first). */
    static const double low[] = {-0.00168691, 0.011672, -0.0347962, 0.0649821, -0.247105, -2.00012};
    static const double high[] = {0.0003146, -0.008056, 0.082433, -0.43424, 2.30695, -1.0776};
    if (z < 2) {
        double poly = 0;
        for (size_t i = 0; i < sizeof low / sizeof *low; i++)
            poly = poly * z + low[i];
        double cdf = -exp(-1.2337141 / z) / sqrt(z) * poly;
        return cdf >= 1 ? 0 : 1 - cdf;
    }
    double poly = 0;
    for (size_t i = 0; i < sizeof high / sizeof *high; i++)
        poly = poly * z + high[i];
    /* cdf = exp(-exp(-poly)); the upper tail without cancellation */
    return -expm1(-exp(-poly));
}

/* Series ------------------------------------------------------------------- */

int vp_batch_means(const double *x, size_t n, size_t k, vp_batch_map map, double c, double *out)
{
    if (k < 1 || k > n)
        return 0;
    size_t base = n / k, extra = n % k, i = 0;
    for (size_t b = 0; b < k; b++) {
        size_t len = base + (b < extra ? 1 : 0);
        double s = 0;
        for (size_t e = i + len; i < e; i++) {
            double v = x[i];
            if (map == VP_BATCH_AT_MOST)
                v = v <= c ? 1 : 0;
            else if (map == VP_BATCH_EXCESS)
                v = v > c ? v - c : 0;
            s += v;
        }
        out[b] = s / (double)len;
    }
    return 1;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

double *vp_sorted_copy(const double *x, size_t n, size_t *out_n)
{
    double *s = malloc(n ? n * sizeof *s : 1);
    if (!s)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i]))
            s[k++] = x[i];
    qsort(s, k, sizeof *s, cmp_double);
    *out_n = k;
    return s;
}

int vp_is_sorted(const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i]) || (i && x[i] < x[i - 1]))
            return 0;
    }
    return 1;
}

/* Value counts ------------------------------------------------------------------ */

void vp_batch_cuts(size_t n, size_t k, size_t *cuts)
{
    size_t base = k ? n / k : 0, extra = k ? n % k : 0;
    for (size_t b = 0; b <= k; b++)
        cuts[b] = b * base + (b < extra ? b : extra);
}

typedef struct vc_pair {
    double v;
    uint64_t c;
} vc_pair;

static int cmp_pair(const void *pa, const void *pb)
{
    double a = ((const vc_pair *)pa)->v, b = ((const vc_pair *)pb)->v;
    return (a > b) - (a < b);
}

void vp_batched_free(vp_batched *s)
{
    if (!s)
        return;
    free(s->batch);
    free(s->vbuf);
    free(s->cbuf);
    free(s);
}

/* While a sample is built its counts live in one store that may move:
 * batch b's start there is kept in off[b] (the second half of the batch
 * array, as the d of a vp_counts nobody reads), and batched_point makes
 * the pointers again after a move. */
static size_t *batch_off(vp_batched *s, size_t b)
{
    return &s->batch[s->k + b].d;
}

static void batched_point(vp_batched *s)
{
    for (size_t b = 0; b < s->k; b++) {
        size_t at = *batch_off(s, b);
        s->batch[b].v = s->vbuf + at;
        s->batch[b].c = s->cbuf + at;
    }
}

static vp_batched *batched_alloc(size_t k, size_t cap)
{
    vp_batched *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->k = k;
    s->batch = calloc(2 * k + 1, sizeof *s->batch);
    s->cap = cap ? cap : 1;
    s->vbuf = malloc(s->cap * sizeof *s->vbuf);
    s->cbuf = malloc(s->cap * sizeof *s->cbuf);
    if (!s->batch || !s->vbuf || !s->cbuf) {
        vp_batched_free(s);
        return NULL;
    }
    batched_point(s);
    return s;
}

static int batched_room(vp_batched *s, size_t more)
{
    if (s->used + more <= s->cap)
        return 1;
    size_t ncap = s->cap * 2 > s->used + more ? s->cap * 2 : s->used + more;
    double *v = realloc(s->vbuf, ncap * sizeof *v);
    if (v)
        s->vbuf = v;
    uint64_t *c = realloc(s->cbuf, ncap * sizeof *c);
    if (c)
        s->cbuf = c;
    batched_point(s);
    if (!v || !c)
        return 0;
    s->cap = ncap;
    return 1;
}

/* Merge the sorted counts x and y into v, c (room for xd + yd); returns the
 * distinct count. */
static size_t merge_counts(const double *xv, const uint64_t *xc, size_t xd, const double *yv, const uint64_t *yc,
                           size_t yd, double *v, uint64_t *c)
{
    size_t i = 0, j = 0, d = 0;
    while (i < xd || j < yd) {
        if (j >= yd || (i < xd && xv[i] < yv[j])) {
            v[d] = xv[i];
            c[d++] = xc[i++];
        } else if (i >= xd || yv[j] < xv[i]) {
            v[d] = yv[j];
            c[d++] = yc[j++];
        } else {
            v[d] = xv[i];
            c[d++] = xc[i++] + yc[j++];
        }
    }
    return d;
}

vp_batched *vp_batched_new(size_t k)
{
    return batched_alloc(k, 2 * k + 8);
}

int vp_batched_put(vp_batched *s, size_t b, const double *v, const uint64_t *c, size_t d, double sum)
{
    if (b >= s->k)
        return 0;
    if (!batched_room(s, s->batch[b].d + d))
        return 0;
    /* the merged counts go at the end of the store; the old ones stay behind */
    vp_counts *x = &s->batch[b];
    size_t at = s->used;
    size_t nd = merge_counts(x->v, x->c, x->d, v, c, d, s->vbuf + at, s->cbuf + at);
    for (size_t i = 0; i < d; i++)
        x->n += c[i];
    x->d = nd;
    x->sum += sum;
    *batch_off(s, b) = at;
    x->v = s->vbuf + at;
    x->c = s->cbuf + at;
    s->used += nd;
    return 1;
}

/* A finished sample's store holds, besides the live counts, what each put
 * left behind and the doubling's slack: copy the live ones into a store of
 * their size (a capture of many groups keeps thousands of small samples). */
static int batched_compact(vp_batched *s)
{
    size_t live = s->all.d;
    for (size_t b = 0; b < s->k; b++)
        live += s->batch[b].d;
    if (live == s->cap)
        return 1;
    size_t cap = live ? live : 1;
    double *v = malloc(cap * sizeof *v);
    uint64_t *c = malloc(cap * sizeof *c);
    if (!v || !c) {
        free(v);
        free(c);
        return 1; /* the sample stands as it is */
    }
    size_t at = 0;
    for (size_t b = 0; b <= s->k; b++) {
        vp_counts *x = b < s->k ? &s->batch[b] : &s->all;
        if (x->d) {
            memcpy(v + at, x->v, x->d * sizeof *v);
            memcpy(c + at, x->c, x->d * sizeof *c);
        }
        if (b < s->k)
            *batch_off(s, b) = at;
        x->v = v + at;
        x->c = c + at;
        at += x->d;
    }
    free(s->vbuf);
    free(s->cbuf);
    s->vbuf = v;
    s->cbuf = c;
    s->used = live;
    s->cap = cap;
    return 1;
}

int vp_batched_finish(vp_batched *s)
{
    size_t total = 0;
    uint64_t n = 0;
    double sum = 0;
    for (size_t b = 0; b < s->k; b++) {
        total += s->batch[b].d;
        n += s->batch[b].n;
        sum += s->batch[b].sum;
    }
    vc_pair *p = malloc((total ? total : 1) * sizeof *p);
    if (!p || !batched_room(s, total)) {
        free(p);
        return 0;
    }
    size_t m = 0;
    for (size_t b = 0; b < s->k; b++)
        for (size_t i = 0; i < s->batch[b].d; i++)
            p[m++] = (vc_pair){s->batch[b].v[i], s->batch[b].c[i]};
    qsort(p, m, sizeof *p, cmp_pair);
    double *av = s->vbuf + s->used;
    uint64_t *ac = s->cbuf + s->used;
    size_t d = 0;
    for (size_t i = 0; i < m; i++) {
        if (d && av[d - 1] == p[i].v) {
            ac[d - 1] += p[i].c;
        } else {
            av[d] = p[i].v;
            ac[d++] = p[i].c;
        }
    }
    free(p);
    s->used += d;
    s->all = (vp_counts){av, ac, d, n, sum};
    return batched_compact(s);
}

vp_batched *vp_batched_of_values(const double *x, const size_t *cuts, size_t k)
{
    if (cuts[0] != 0)
        return NULL;
    for (size_t b = 0; b < k; b++)
        if (cuts[b + 1] < cuts[b])
            return NULL;
    size_t n = cuts[k];
    /* room for the values and, after them, the whole sample's counts */
    vp_batched *s = batched_alloc(k, 2 * n);
    if (!s)
        return NULL;
    if (n) /* an empty column may have no array at all */
        memcpy(s->vbuf, x, n * sizeof *x);
    for (size_t b = 0; b < k; b++) {
        size_t len = cuts[b + 1] - cuts[b];
        double *v = s->vbuf + cuts[b], sum = 0;
        for (size_t i = 0; i < len; i++)
            sum += v[i];
        qsort(v, len, sizeof *v, cmp_double);
        /* folded to the front of the free store, which never passes v */
        double *dv = s->vbuf + s->used;
        uint64_t *dc = s->cbuf + s->used;
        size_t d = 0;
        for (size_t i = 0; i < len; i++) {
            if (d && dv[d - 1] == v[i]) {
                dc[d - 1]++;
            } else {
                dv[d] = v[i];
                dc[d++] = 1;
            }
        }
        *batch_off(s, b) = s->used;
        s->batch[b] = (vp_counts){dv, dc, d, len, sum};
        s->used += d;
    }
    if (!vp_batched_finish(s)) {
        vp_batched_free(s);
        return NULL;
    }
    return s;
}

vp_batched *vp_batched_join(const vp_batched *const *parts, size_t nparts, const size_t *batch_of, size_t k)
{
    vp_batched *s = vp_batched_new(k);
    size_t seg = 0;
    for (size_t p = 0; s && p < nparts; p++) {
        for (size_t b = 0; b < parts[p]->k; b++, seg++) {
            const vp_counts *x = &parts[p]->batch[b];
            if (!vp_batched_put(s, batch_of[seg], x->v, x->c, x->d, x->sum)) {
                vp_batched_free(s);
                return NULL;
            }
        }
    }
    if (s && !vp_batched_finish(s)) {
        vp_batched_free(s);
        return NULL;
    }
    return s;
}

uint64_t vp_counts_at_most(const vp_counts *c, double x)
{
    uint64_t n = 0;
    for (size_t i = 0; i < c->d && c->v[i] <= x; i++)
        n += c->c[i];
    return n;
}

double vp_counts_rank(const vp_counts *c, uint64_t r)
{
    if (r < 1 || r > c->n)
        return NAN;
    uint64_t seen = 0;
    for (size_t i = 0; i < c->d; i++) {
        seen += c->c[i];
        if (seen >= r)
            return c->v[i];
    }
    return NAN;
}

double vp_counts_top_excess(const vp_counts *c, uint64_t k, double q)
{
    if (k > c->n)
        k = c->n;
    uint64_t skip = c->n - k, seen = 0;
    double s = 0;
    for (size_t i = 0; i < c->d; i++) {
        uint64_t from = seen > skip ? seen : skip, to = seen + c->c[i];
        for (uint64_t j = from; j < to; j++)
            s += c->v[i] - q;
        seen = to;
    }
    return s;
}

double vp_counts_pooled_rank(const vp_counts *a, const vp_counts *b, uint64_t r)
{
    if (r < 1 || r > a->n + b->n)
        return NAN;
    size_t i = 0, j = 0;
    uint64_t seen = 0;
    while (i < a->d || j < b->d) {
        double v;
        uint64_t c = 0;
        if (j >= b->d || (i < a->d && a->v[i] <= b->v[j]))
            v = a->v[i];
        else
            v = b->v[j];
        if (i < a->d && a->v[i] == v)
            c += a->c[i++];
        if (j < b->d && b->v[j] == v)
            c += b->c[j++];
        seen += c;
        if (seen >= r)
            return v;
    }
    return NAN;
}

int vp_batched_percentiles(const vp_batched *s, double p, double *out)
{
    for (size_t b = 0; b < s->k; b++) {
        if (!s->batch[b].n)
            return 0;
        out[b] = vp_counts_rank(&s->batch[b], vp_nearest_rank(p, s->batch[b].n));
    }
    return 1;
}

/* Per batch, the running counts and sums over its distinct values: entry
 * i of batch b's arrays holds the count and the sum of its first i. */
typedef struct {
    uint64_t *cnt;
    double *sum;
    size_t *off; /* batch b's arrays start at off[b] (d_b + 1 entries) */
} boot_prefix;

static int boot_prefix_make(const vp_batched *s, boot_prefix *p)
{
    size_t total = 0;
    for (size_t b = 0; b < s->k; b++)
        total += s->batch[b].d + 1;
    p->cnt = malloc(total * sizeof *p->cnt);
    p->sum = malloc(total * sizeof *p->sum);
    p->off = malloc((s->k + 1) * sizeof *p->off);
    if (!p->cnt || !p->sum || !p->off) {
        free(p->cnt);
        free(p->sum);
        free(p->off);
        return 0;
    }
    size_t at = 0;
    for (size_t b = 0; b < s->k; b++) {
        const vp_counts *x = &s->batch[b];
        p->off[b] = at;
        p->cnt[at] = 0;
        p->sum[at] = 0;
        for (size_t i = 0; i < x->d; i++) {
            p->cnt[at + i + 1] = p->cnt[at + i] + x->c[i];
            p->sum[at + i + 1] = p->sum[at + i] + x->v[i] * (double)x->c[i];
        }
        at += x->d + 1;
    }
    p->off[s->k] = at;
    return 1;
}

/* How many of batch x's distinct values are at most v (binary search). */
static size_t upto(const vp_counts *x, double v)
{
    size_t lo = 0, hi = x->d;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->v[mid] <= v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The weighted count of values at most v, and (if sum) their weighted sum. */
static double boot_at_most(const vp_batched *s, const boot_prefix *p, const double *w, double v, double *sum)
{
    double n = 0, t = 0;
    for (size_t b = 0; b < s->k; b++) {
        if (w[b] <= 0)
            continue;
        size_t i = p->off[b] + upto(&s->batch[b], v);
        n += w[b] * (double)p->cnt[i];
        if (sum)
            t += w[b] * p->sum[i];
    }
    if (sum)
        *sum = t;
    return n;
}

/* The smallest of all's values with a weighted count at most it of r or more. */
static double boot_rank(const vp_batched *s, const boot_prefix *p, const double *w, double r)
{
    size_t lo = 0, hi = s->all.d;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (boot_at_most(s, p, w, s->all.v[mid], NULL) >= r)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo < s->all.d ? s->all.v[lo] : NAN;
}

int vp_batched_boot(const vp_batched *s, const double *w, size_t reps, vp_boot_stat stat, double param,
                    double *out)
{
    if (stat == VP_BOOT_SUM) {
        for (size_t r = 0; r < reps; r++) {
            const double *wr = w + r * s->k;
            double n = 0, sum = 0;
            for (size_t b = 0; b < s->k; b++)
                if (wr[b] > 0) {
                    n += wr[b] * (double)s->batch[b].n;
                    sum += wr[b] * s->batch[b].sum;
                }
            out[r] = n < 1 ? NAN : sum;
        }
        return 1;
    }
    boot_prefix p;
    if (!boot_prefix_make(s, &p))
        return 0;
    for (size_t r = 0; r < reps; r++) {
        const double *wr = w + r * s->k;
        double n = 0;
        for (size_t b = 0; b < s->k; b++)
            if (wr[b] > 0)
                n += wr[b] * (double)s->batch[b].n;
        if (n < 1) {
            out[r] = NAN;
            continue;
        }
        if (stat == VP_BOOT_QUANTILE) {
            out[r] = boot_rank(s, &p, wr, (double)vp_nearest_rank(param, (uint64_t)n));
            continue;
        }
        double k = floor(n * param / 100 + 1e-9);
        if (k < 1)
            k = 1;
        double q = boot_rank(s, &p, wr, n - k + 1), below_sum;
        double below = boot_at_most(s, &p, wr, q, &below_sum);
        double whole_sum = 0;
        for (size_t b = 0; b < s->k; b++)
            if (wr[b] > 0)
                whole_sum += wr[b] * p.sum[p.off[b] + s->batch[b].d];
        /* the values above q, then as many of the values equal to q as the k need */
        out[r] = (whole_sum - below_sum + (k - (n - below)) * q) / k;
    }
    free(p.cnt);
    free(p.sum);
    free(p.off);
    return 1;
}

int vp_batched_means(const vp_batched *s, vp_batch_map map, double c, double *out)
{
    for (size_t b = 0; b < s->k; b++) {
        const vp_counts *x = &s->batch[b];
        if (!x->n)
            return 0;
        double len = (double)x->n;
        if (map == VP_BATCH_VALUE) {
            out[b] = x->sum / len;
        } else if (map == VP_BATCH_AT_MOST) {
            out[b] = (double)vp_counts_at_most(x, c) / len;
        } else {
            double e = 0;
            for (size_t i = x->d; i > 0 && x->v[i - 1] > c; i--)
                e += (double)x->c[i - 1] * (x->v[i - 1] - c);
            out[b] = e / len;
        }
    }
    return 1;
}

int vp_batched_dominance(const vp_batched *s, const vp_counts *other, double *out)
{
    if (!other->n)
        return 0;
    for (size_t b = 0; b < s->k; b++) {
        const vp_counts *x = &s->batch[b];
        if (!x->n)
            return 0;
        /* sum over x's values of #{other < v} - #{other > v}: exact in integers */
        int64_t acc = 0;
        uint64_t below = 0; /* other's values below v */
        size_t j = 0;
        for (size_t i = 0; i < x->d; i++) {
            double v = x->v[i];
            while (j < other->d && other->v[j] < v)
                below += other->c[j++];
            uint64_t equal = j < other->d && other->v[j] == v ? other->c[j] : 0;
            int64_t d = (int64_t)below - (int64_t)(other->n - below - equal);
            acc += (int64_t)x->c[i] * d;
        }
        out[b] = (double)acc / (double)other->n / (double)x->n;
    }
    return 1;
}

/* Pairs ---------------------------------------------------------------------------
 * The differences b - a of a value of b and one of a, as doubles, each pair
 * of distinct values standing for the product of their counts. For a fixed
 * value of b the differences fall as a's value grows, so those at most v
 * are a's values from some q on; q never falls as b's value grows (rounding
 * is monotone, so this holds for the computed differences too): one pass
 * over both. */

/* Differences at most v (*w, weighted) and the distinct pairs of values
 * behind them (*pairs). */
static void pairs_at_most(const vp_counts *a, const vp_counts *b, double v, uint64_t *w, uint64_t *pairs)
{
    uint64_t cw = 0, cp = 0, before = 0;
    size_t q = 0;
    for (size_t j = 0; j < b->d; j++) {
        while (q < a->d && b->v[j] - a->v[q] > v)
            before += a->c[q++];
        cw += b->c[j] * (a->n - before);
        cp += a->d - q;
    }
    *w = cw;
    if (pairs)
        *pairs = cp;
}

void vp_counts_pair_count(const vp_counts *a, const vp_counts *b, double v, uint64_t *below, uint64_t *equal)
{
    uint64_t lt = 0, before = 0;
    size_t p = 0;
    for (size_t j = 0; j < b->d; j++) {
        while (p < a->d && b->v[j] - a->v[p] >= v)
            before += a->c[p++];
        lt += b->c[j] * (a->n - before);
    }
    uint64_t le;
    pairs_at_most(a, b, v, &le, NULL);
    *below = lt;
    *equal = le - lt;
}

/* Doubles mapped to unsigned integers in the same order (finite values). */
static uint64_t key_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return (u >> 63) ? ~u : (u | 0x8000000000000000u);
}

static double value_of(uint64_t k)
{
    uint64_t u = (k >> 63) ? (k & 0x7fffffffffffffffu) : ~k;
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* The k-th smallest difference by bisection over the doubles themselves
 * (their order as integers): at most 64 counting passes, no memory. */
static double kth_by_keys(const vp_counts *a, const vp_counts *b, uint64_t k, double lo_v, double hi_v)
{
    uint64_t lo = key_of(lo_v), hi = key_of(hi_v);
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2, w;
        pairs_at_most(a, b, value_of(mid), &w, NULL);
        if (w >= k)
            hi = mid;
        else
            lo = mid;
    }
    return value_of(hi);
}

/* The smallest difference above v (+inf when none): for each value of b the
 * differences above v are those with a's values below some p, the smallest
 * at p - 1; p never falls as b's value grows. */
static double next_above(const vp_counts *a, const vp_counts *b, double v)
{
    double best = INFINITY;
    size_t p = 0;
    for (size_t j = 0; j < b->d; j++) {
        while (p < a->d && b->v[j] - a->v[p] > v)
            p++;
        if (p > 0 && b->v[j] - a->v[p - 1] < best)
            best = b->v[j] - a->v[p - 1];
    }
    return best;
}

/* The `count` distinct pairs whose difference is in (lo, hi], sorted by it;
 * NULL when out of memory. */
static vc_pair *between(const vp_counts *a, const vp_counts *b, double lo, double hi, size_t count)
{
    vc_pair *buf = malloc((count ? count : 1) * sizeof *buf);
    if (!buf)
        return NULL;
    size_t q = 0, p = 0, k = 0;
    for (size_t j = 0; j < b->d; j++) {
        while (q < a->d && b->v[j] - a->v[q] > hi)
            q++;
        while (p < a->d && b->v[j] - a->v[p] > lo)
            p++;
        for (size_t i = q; i < p && k < count; i++)
            buf[k++] = (vc_pair){b->v[j] - a->v[i], b->c[j] * a->c[i]};
    }
    qsort(buf, k, sizeof *buf, cmp_pair);
    return buf;
}

double vp_counts_pair_kth(const vp_counts *a, const vp_counts *b, uint64_t k)
{
    if (!a->n || !b->n || k < 1 || k > a->n * b->n)
        return NAN;
    /* Bisect on the value, keeping count(<= lo) < k <= count(<= hi), until
     * the bracket holds no more than a.d + b.d distinct pairs; then list
     * those and pick. Many pairs with one difference (quantised times) stop
     * the pairs from thinning out: then the smallest difference above lo
     * either is the answer or moves lo past them. */
    double lo = b->v[0] - a->v[a->d - 1], hi = b->v[b->d - 1] - a->v[0];
    uint64_t c_lo, p_lo, p_hi = (uint64_t)a->d * b->d;
    pairs_at_most(a, b, lo, &c_lo, &p_lo);
    if (c_lo >= k)
        return lo;
    uint64_t limit = (uint64_t)a->d + b->d, last = p_hi - p_lo + 1;
    for (int iter = 0; iter < 200; iter++) {
        if (p_hi - p_lo <= limit) {
            vc_pair *buf = between(a, b, lo, hi, (size_t)(p_hi - p_lo));
            if (!buf)
                break;
            uint64_t seen = c_lo;
            double v = hi;
            for (size_t i = 0; i < p_hi - p_lo; i++) {
                seen += buf[i].c;
                if (seen >= k) {
                    v = buf[i].v;
                    break;
                }
            }
            free(buf);
            return v;
        }
        if (p_hi - p_lo == last) {
            double x = next_above(a, b, lo);
            uint64_t cx, px;
            pairs_at_most(a, b, x, &cx, &px);
            if (cx >= k)
                return x;
            lo = x;
            c_lo = cx;
            p_lo = px;
            continue;
        }
        last = p_hi - p_lo;
        double mid = lo + (hi - lo) / 2;
        if (!(mid > lo && mid < hi))
            return hi; /* no double between: the k-th difference is hi */
        uint64_t c, pc;
        pairs_at_most(a, b, mid, &c, &pc);
        if (c >= k) {
            hi = mid;
            p_hi = pc;
        } else {
            lo = mid;
            c_lo = c;
            p_lo = pc;
        }
    }
    return kth_by_keys(a, b, k, lo, hi);
}

double vp_counts_ks(const vp_counts *a, const vp_counts *b, double *at)
{
    double d = 0, where = NAN;
    if (a->n && b->n) {
        double m = (double)a->n, n = (double)b->n;
        uint64_t ca = 0, cb = 0;
        size_t i = 0, j = 0;
        while (i < a->d && j < b->d) {
            double v = a->v[i] < b->v[j] ? a->v[i] : b->v[j];
            if (a->v[i] == v)
                ca += a->c[i++];
            if (b->v[j] == v)
                cb += b->c[j++];
            double g = fabs((double)ca / m - (double)cb / n);
            if (g > d) {
                d = g;
                where = v;
            }
        }
    }
    if (at)
        *at = where;
    return d;
}

double vp_counts_ad(const vp_counts *a, const vp_counts *b)
{
    if (!a->n || !b->n)
        return 0;
    double dm = (double)a->n, dn = (double)b->n, N = dm + dn;
    double sum_a = 0, sum_b = 0;
    uint64_t ia = 0, jb = 0;
    size_t i = 0, j = 0;
    while (i < a->d || j < b->d) {
        double v = j >= b->d || (i < a->d && a->v[i] <= b->v[j]) ? a->v[i] : b->v[j];
        double fa = i < a->d && a->v[i] == v ? (double)a->c[i++] : 0;
        double fb = j < b->d && b->v[j] == v ? (double)b->c[j++] : 0;
        double l = fa + fb;
        double ma = (double)ia + fa / 2, mb = (double)jb + fb / 2, bj = (double)(ia + jb) + l / 2;
        ia += (uint64_t)fa;
        jb += (uint64_t)fb;
        double den = bj * (N - bj) - N * l / 4;
        if (den <= 0)
            continue; /* every value tied: nothing to weigh */
        double da = N * ma - dm * bj, db = N * mb - dn * bj;
        sum_a += l * da * da / den;
        sum_b += l * db * db / den;
    }
    return (N - 1) / (N * N) * (sum_a / dm + sum_b / dn);
}

/* Two sorted samples: their counts ----------------------------------------------- */

/* The counts of sorted x[0..n) into new arrays (*v, *c); 0 when out of
 * memory. */
static int counts_of_sorted(const double *x, size_t n, vp_counts *out, double **v, uint64_t **c)
{
    *v = malloc((n ? n : 1) * sizeof **v);
    *c = malloc((n ? n : 1) * sizeof **c);
    if (!*v || !*c) {
        free(*v);
        free(*c);
        *v = NULL;
        *c = NULL;
        return 0;
    }
    size_t d = 0;
    for (size_t i = 0; i < n; i++) {
        if (d && (*v)[d - 1] == x[i]) {
            (*c)[d - 1]++;
        } else {
            (*v)[d] = x[i];
            (*c)[d++] = 1;
        }
    }
    *out = (vp_counts){*v, *c, d, n, 0};
    return 1;
}

/* Both samples' counts, or 0 (nothing to free) when out of memory. */
typedef struct two_counts {
    vp_counts a, b;
    double *av, *bv;
    uint64_t *ac, *bc;
} two_counts;

static int two_of_sorted(two_counts *t, const double *a, size_t m, const double *b, size_t n)
{
    if (!counts_of_sorted(a, m, &t->a, &t->av, &t->ac))
        return 0;
    if (!counts_of_sorted(b, n, &t->b, &t->bv, &t->bc)) {
        free(t->av);
        free(t->ac);
        return 0;
    }
    return 1;
}

static void two_free(two_counts *t)
{
    free(t->av);
    free(t->ac);
    free(t->bv);
    free(t->bc);
}

int vp_pair_diff_count(const double *a, size_t m, const double *b, size_t n, double v, uint64_t *below,
                       uint64_t *equal)
{
    two_counts t;
    *below = *equal = 0;
    if (!two_of_sorted(&t, a, m, b, n))
        return 0;
    vp_counts_pair_count(&t.a, &t.b, v, below, equal);
    two_free(&t);
    return 1;
}

double vp_pair_diff_kth(const double *a, size_t m, const double *b, size_t n, uint64_t k)
{
    two_counts t;
    if (!two_of_sorted(&t, a, m, b, n))
        return NAN;
    double v = vp_counts_pair_kth(&t.a, &t.b, k);
    two_free(&t);
    return v;
}

double vp_ks_statistic(const double *a, size_t m, const double *b, size_t n, double *at)
{
    two_counts t;
    if (!two_of_sorted(&t, a, m, b, n)) {
        if (at)
            *at = NAN;
        return 0;
    }
    double d = vp_counts_ks(&t.a, &t.b, at);
    two_free(&t);
    return d;
}

double vp_ad_statistic(const double *a, size_t m, const double *b, size_t n)
{
    two_counts t;
    if (!two_of_sorted(&t, a, m, b, n))
        return 0;
    double d = vp_counts_ad(&t.a, &t.b);
    two_free(&t);
    return d;
}

/* The first index of sorted s[0..m) whose value is >= x (strict: > x). */
static size_t bound(const double *s, size_t m, double x, int strict)
{
    size_t lo = 0, hi = m;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strict ? s[mid] <= x : s[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int vp_dominance_batches(const double *x, size_t n, const double *other, size_t m, size_t k, double *out)
{
    if (k < 1 || k > n || m < 1)
        return 0;
    /* Frame times are quantised: `other` holds far fewer distinct values
     * than values, and a search among those stays in the cache. below[u] =
     * #other < vals[u]; the values equal to vals[u] follow. */
    size_t l = 0;
    for (size_t i = 0; i < m; i++)
        if (i == 0 || other[i] != other[i - 1])
            l++;
    double *vals = malloc(l * sizeof *vals);
    size_t *below = malloc((l + 1) * sizeof *below);
    if (vals && below) {
        size_t u = 0;
        for (size_t i = 0; i < m; i++)
            if (i == 0 || other[i] != other[i - 1]) {
                vals[u] = other[i];
                below[u++] = i;
            }
        below[l] = m;
    }
    size_t base = n / k, extra = n % k, i = 0;
    for (size_t bt = 0; bt < k; bt++) {
        size_t len = base + (bt < extra ? 1 : 0);
        double s = 0;
        for (size_t e = i + len; i < e; i++) {
            size_t lt, le;
            if (vals && below) {
                size_t u = bound(vals, l, x[i], 0);
                lt = below[u];
                le = u < l && vals[u] == x[i] ? below[u + 1] : lt;
            } else {
                lt = bound(other, m, x[i], 0);
                le = bound(other, m, x[i], 1);
            }
            s += ((double)lt - (double)(m - le)) / (double)m;
        }
        out[bt] = s / (double)len;
    }
    free(vals);
    free(below);
    return 1;
}

