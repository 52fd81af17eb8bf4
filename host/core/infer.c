#include "core/infer.h"

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

/* Two samples ---------------------------------------------------------------- */

/* The differences b[j] - a[i] at most v. For a fixed j they fall as i
 * grows, so those at most v are the i from some q_j on; q_j never falls as
 * j grows (rounding is monotone, so this holds for the computed
 * differences too): one pass over both. */
static uint64_t count_at_most(const double *a, size_t m, const double *b, size_t n, double v)
{
    uint64_t c = 0;
    size_t q = 0;
    for (size_t j = 0; j < n; j++) {
        while (q < m && b[j] - a[q] > v)
            q++;
        c += m - q;
    }
    return c;
}

void vp_pair_diff_count(const double *a, size_t m, const double *b, size_t n, double v, uint64_t *below,
                        uint64_t *equal)
{
    uint64_t lt = 0;
    size_t p = 0;
    for (size_t j = 0; j < n; j++) {
        while (p < m && b[j] - a[p] >= v)
            p++;
        lt += m - p;
    }
    *below = lt;
    *equal = count_at_most(a, m, b, n, v) - lt;
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
static double kth_by_keys(const double *a, size_t m, const double *b, size_t n, uint64_t k, double lo_v, double hi_v)
{
    uint64_t lo = key_of(lo_v), hi = key_of(hi_v);
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (count_at_most(a, m, b, n, value_of(mid)) >= k)
            hi = mid;
        else
            lo = mid;
    }
    return value_of(hi);
}

/* The smallest difference above v (+inf when none): for each j the
 * differences above v are those with i below some p_j, the smallest of them
 * at i = p_j - 1; p_j never falls as j grows. */
static double next_above(const double *a, size_t m, const double *b, size_t n, double v)
{
    double best = INFINITY;
    size_t p = 0;
    for (size_t j = 0; j < n; j++) {
        while (p < m && b[j] - a[p] > v)
            p++;
        if (p > 0 && b[j] - a[p - 1] < best)
            best = b[j] - a[p - 1];
    }
    return best;
}


/* The differences in (lo, hi], `count` of them, into a new array sorted
 * ascending; NULL when out of memory. */
static double *between(const double *a, size_t m, const double *b, size_t n, double lo, double hi, size_t count)
{
    double *buf = malloc(count ? count * sizeof *buf : 1);
    if (!buf)
        return NULL;
    size_t q = 0, p = 0, k = 0;
    for (size_t j = 0; j < n; j++) {
        while (q < m && b[j] - a[q] > hi)
            q++;
        while (p < m && b[j] - a[p] > lo)
            p++;
        for (size_t i = q; i < p && k < count; i++)
            buf[k++] = b[j] - a[i];
    }
    qsort(buf, k, sizeof *buf, cmp_double);
    return buf;
}

double vp_pair_diff_kth(const double *a, size_t m, const double *b, size_t n, uint64_t k)
{
    if (m == 0 || n == 0 || k < 1 || k > (uint64_t)m * n)
        return NAN;
    /* Bisect on the value, keeping count(<= lo) < k <= count(<= hi), until
     * the bracket holds no more than m + n differences; then list those and
     * pick. A block of tied differences (quantised times) stops the counts
     * from shrinking: then the smallest difference above lo either is the
     * answer or moves lo past the block. */
    double lo = b[0] - a[m - 1], hi = b[n - 1] - a[0];
    uint64_t c_lo = count_at_most(a, m, b, n, lo), c_hi = (uint64_t)m * n;
    if (c_lo >= k)
        return lo;
    uint64_t limit = (uint64_t)m + n, last_width = c_hi - c_lo + 1;
    for (int iter = 0; iter < 200; iter++) {
        if (c_hi - c_lo <= limit) {
            double *buf = between(a, m, b, n, lo, hi, (size_t)(c_hi - c_lo));
            if (!buf)
                break;
            double v = buf[k - c_lo - 1];
            free(buf);
            return v;
        }
        if (c_hi - c_lo == last_width) {
            double x = next_above(a, m, b, n, lo);
            uint64_t cx = count_at_most(a, m, b, n, x);
            if (cx >= k)
                return x;
            lo = x;
            c_lo = cx;
            continue;
        }
        last_width = c_hi - c_lo;
        double mid = lo + (hi - lo) / 2;
        if (!(mid > lo && mid < hi))
            return hi; /* no double between: the k-th difference is hi */
        uint64_t c = count_at_most(a, m, b, n, mid);
        if (c >= k) {
            hi = mid;
            c_hi = c;
        } else {
            lo = mid;
            c_lo = c;
        }
    }
    return kth_by_keys(a, m, b, n, k, lo, hi);
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

double vp_ks_statistic(const double *a, size_t m, const double *b, size_t n, double *at)
{
    double d = 0, where = NAN;
    size_t i = 0, j = 0;
    if (m == 0 || n == 0) {
        if (at)
            *at = where;
        return 0;
    }
    while (i < m && j < n) {
        double v = a[i] < b[j] ? a[i] : b[j];
        while (i < m && a[i] == v)
            i++;
        while (j < n && b[j] == v)
            j++;
        double g = fabs((double)i / (double)m - (double)j / (double)n);
        if (g > d) {
            d = g;
            where = v;
        }
    }
    if (at)
        *at = where;
    return d;
}

double vp_ad_statistic(const double *a, size_t m, const double *b, size_t n)
{
    if (m == 0 || n == 0)
        return 0;
    double N = (double)m + (double)n, dm = (double)m, dn = (double)n;
    double sum_a = 0, sum_b = 0;
    size_t i = 0, j = 0;
    while (i < m || j < n) {
        double v = j >= n || (i < m && a[i] <= b[j]) ? a[i] : b[j];
        size_t ia = i, jb = j;
        while (i < m && a[i] == v)
            i++;
        while (j < n && b[j] == v)
            j++;
        double fa = (double)(i - ia), fb = (double)(j - jb), l = fa + fb;
        double ma = (double)ia + fa / 2, mb = (double)jb + fb / 2, bj = (double)(ia + jb) + l / 2;
        double den = bj * (N - bj) - N * l / 4;
        if (den <= 0)
            continue; /* every value tied: nothing to weigh */
        double da = N * ma - dm * bj, db = N * mb - dn * bj;
        sum_a += l * da * da / den;
        sum_b += l * db * db / den;
    }
    return (N - 1) / (N * N) * (sum_a / dm + sum_b / dn);
}
