/* The inference primitives against closed forms, textbook table values
 * and brute force: log Gamma against libm, the incomplete beta and the t
 * distribution where they have closed forms (Cauchy for df = 1, df = 2),
 * t and normal quantiles from the tables, Kolmogorov's critical values,
 * pairwise-difference order statistics, dominance and the KS statistic by
 * counting every pair on random samples with many ties. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "core/infer.h"

static int close_rel(double got, double want, double tol)
{
    return fabs(got - want) <= tol * fabs(want) || fabs(got - want) < 1e-300;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The k-th smallest difference by listing them all. */
static double brute_kth(const double *a, size_t m, const double *b, size_t n, size_t k)
{
    double *d = malloc(m * n * sizeof *d);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < n; j++)
            d[i * n + j] = b[j] - a[i];
    qsort(d, m * n, sizeof *d, cmp);
    double v = d[k - 1];
    free(d);
    return v;
}

static double brute_ks(const double *a, size_t m, const double *b, size_t n)
{
    double best = 0;
    for (size_t t = 0; t < m + n; t++) {
        double x = t < m ? a[t] : b[t - m];
        size_t ca = 0, cb = 0;
        for (size_t i = 0; i < m; i++)
            ca += a[i] <= x;
        for (size_t j = 0; j < n; j++)
            cb += b[j] <= x;
        double g = fabs((double)ca / (double)m - (double)cb / (double)n);
        if (g > best)
            best = g;
    }
    return best;
}

int main(void)
{
    /* log Gamma: libm agrees (this test may touch signgam; vpscript does not) */
    double xs[] = {1e-8, 0.1, 0.5, 1, 1.5, 2, 3.7, 9.99, 10, 12.5, 100, 1e6};
    for (size_t i = 0; i < sizeof xs / sizeof *xs; i++)
        CHECK(fabs(vp_log_gamma(xs[i]) - lgamma(xs[i])) <= 1e-13 * fmax(1, fabs(lgamma(xs[i]))));
    CHECK(isnan(vp_log_gamma(0)) && isnan(vp_log_gamma(-1)));

    /* incomplete beta: closed forms */
    CHECK(close_rel(vp_beta_inc(0.3, 1, 1), 0.3, 1e-13));
    CHECK(close_rel(vp_beta_inc(0.3, 2.5, 1), pow(0.3, 2.5), 1e-13));
    CHECK(close_rel(vp_beta_inc(0.3, 1, 4), 1 - pow(0.7, 4), 1e-13));
    CHECK(close_rel(vp_beta_inc(0.5, 7.25, 7.25), 0.5, 1e-13));
    CHECK(vp_beta_inc(0, 2, 3) == 0 && vp_beta_inc(1, 2, 3) == 1);
    CHECK(isnan(vp_beta_inc(1.5, 2, 3)));

    /* t: Cauchy (df 1) and df 2 in closed form, both tails */
    double ts[] = {-40, -3, -1, -0.2, 0, 0.7, 2, 9, 1e4};
    for (size_t i = 0; i < sizeof ts / sizeof *ts; i++) {
        double t = ts[i];
        CHECK(close_rel(vp_t_cdf(t, 1), 0.5 + atan(t) / 3.14159265358979323846, 1e-12));
        CHECK(close_rel(vp_t_cdf(t, 2), 0.5 + t / (2 * sqrt(2 + t * t)), 1e-12));
    }
    /* a far tail without cancellation: P(|T| >= 1e4), df 2 = 1 - 1e4 / sqrt(2 + 1e8) */
    CHECK(close_rel(vp_t_two_sided(1e4, 2), 9.9999999e-9, 1e-6));
    /* the normal limit */
    CHECK(close_rel(vp_t_two_sided(1.959963984540054, 1e9), 0.05, 1e-12));
    /* near it, the first term of the expansion in 1/df: P(|Z| >= t) + phi(t) (t^3 + t) / (2 df) */
    CHECK(close_rel(vp_t_two_sided(3, 1e6), erfc(3 / sqrt(2.0)) + exp(-4.5) / sqrt(2 * 3.14159265358979) * 15 / 1e6,
                    1e-8));

    /* quantiles (the tables' 12.706, 2.228, 2.042, 4.032, to more digits by
     * inverting the closed-form cdf of integer df: Student's series in
     * cos^2 of atan(t / sqrt df)) */
    CHECK(close_rel(vp_t_quantile(0.975, 1), 12.706204736174676, 1e-12));
    CHECK(close_rel(vp_t_quantile(0.975, 10), 2.228138851986274, 1e-12));
    CHECK(close_rel(vp_t_quantile(0.975, 30), 2.042272456301238, 1e-12));
    CHECK(close_rel(vp_t_quantile(0.995, 5), 4.032142983555211, 1e-12));
    CHECK(close_rel(vp_t_quantile(0.025, 10), -2.228138851986274, 1e-12));
    CHECK(vp_t_quantile(0.5, 3) == 0 && isnan(vp_t_quantile(1, 3)));
    /* fractional df: the quantile inverts the cdf */
    CHECK(close_rel(vp_t_cdf(vp_t_quantile(0.9, 3.4), 3.4), 0.9, 1e-12));
    CHECK(close_rel(vp_normal_quantile(0.975), 1.959963984540054, 1e-14));
    CHECK(close_rel(vp_normal_quantile(0.995), 2.5758293035489004, 1e-14));
    CHECK(close_rel(vp_normal_quantile(1e-10), -6.361340902404056, 1e-12));
    CHECK(close_rel(vp_normal_cdf(vp_normal_quantile(0.3)), 0.3, 1e-14));

    /* Kolmogorov: the 5 % and 1 % critical values, and both series meet */
    CHECK(close_rel(vp_kolmogorov_q(1.3580986393225505), 0.05, 1e-9));
    CHECK(close_rel(vp_kolmogorov_q(1.6276236115189), 0.01, 1e-9));
    CHECK(fabs(vp_kolmogorov_q(1.18 - 1e-12) - vp_kolmogorov_q(1.18)) < 1e-12);
    CHECK(vp_kolmogorov_q(0) == 1 && vp_kolmogorov_q(0.05) == 1);
    CHECK(vp_kolmogorov_q(10) < 1e-80);

    /* Anderson-Darling: the limit's 10, 5 and 1 % points (1.933, 2.492, 3.878) */
    CHECK(fabs(vp_anderson_darling_q(1.933) - 0.10) < 2e-4);
    CHECK(fabs(vp_anderson_darling_q(2.492) - 0.05) < 2e-4);
    CHECK(fabs(vp_anderson_darling_q(3.878) - 0.01) < 1e-4);
    CHECK(vp_anderson_darling_q(0) == 1 && vp_anderson_darling_q(40) < 1e-15);
    CHECK(fabs(vp_anderson_darling_q(2 - 1e-9) - vp_anderson_darling_q(2)) < 1e-5);
    /* the two-sample statistic with ties, against a plain Python evaluation of
     * Scholz and Stephens' formula over the same data */
    double ad_a[] = {1, 2, 2, 3, 5, 8}, ad_b[] = {2, 3, 3, 4, 9, 10, 11};
    CHECK(close_rel(vp_ad_statistic(ad_a, 6, ad_b, 7), 1.5261001883590968, 1e-12));
    double ad_c[10], ad_d[12];
    for (int i = 0; i < 12; i++) {
        if (i < 10)
            ad_c[i] = 0.1 * i;
        ad_d[i] = 0.1 * i + 0.05;
    }
    CHECK(close_rel(vp_ad_statistic(ad_c, 10, ad_d, 12), 0.7278499764143087, 1e-12));
    CHECK(vp_ad_statistic(ad_a, 6, ad_a, 6) < 1e-12);

    /* batch means: sizes differ by one, the first batches the longer */
    double x[] = {1, 2, 3, 4, 5, 6, 7};
    double out[3];
    CHECK(vp_batch_means(x, 7, 3, VP_BATCH_VALUE, 0, out));
    CHECK(out[0] == 2 && out[1] == 4.5 && out[2] == 6.5);
    CHECK(vp_batch_means(x, 7, 3, VP_BATCH_AT_MOST, 4, out));
    CHECK(out[0] == 1 && out[1] == 0.5 && out[2] == 0);
    CHECK(vp_batch_means(x, 7, 3, VP_BATCH_EXCESS, 4, out));
    CHECK(out[0] == 0 && out[1] == 0.5 && out[2] == 2.5);
    CHECK(!vp_batch_means(x, 7, 8, VP_BATCH_VALUE, 0, out));
    CHECK(!vp_batch_means(x, 7, 0, VP_BATCH_VALUE, 0, out));

    size_t sn;
    double raw[] = {3, NAN, -1, 2, 2};
    double *s = vp_sorted_copy(raw, 5, &sn);
    CHECK_EQ(sn, 4);
    CHECK(s[0] == -1 && s[1] == 2 && s[2] == 2 && s[3] == 3);
    CHECK(vp_is_sorted(s, sn) && !vp_is_sorted(raw, 5));
    free(s);

    /* pairs, dominance and KS against brute force, with ties */
    srand(11);
    int bad_kth = 0, bad_count = 0, bad_dom = 0, bad_ks = 0;
    for (int round = 0; round < 200; round++) {
        size_t m = 1 + (size_t)(rand() % 40), n = 1 + (size_t)(rand() % 40);
        double *a = malloc(m * sizeof *a), *b = malloc(n * sizeof *b);
        int levels = round % 2 ? 6 : 100000;
        for (size_t i = 0; i < m; i++)
            a[i] = (double)(rand() % levels) * 0.25;
        for (size_t j = 0; j < n; j++)
            b[j] = (double)(rand() % levels) * 0.25 + (round % 5 == 0 ? -0.5 : 0.25);
        qsort(a, m, sizeof *a, cmp);
        qsort(b, n, sizeof *b, cmp);
        for (int t = 0; t < 6; t++) {
            size_t k = 1 + (size_t)rand() % (m * n);
            if (t == 0)
                k = 1;
            if (t == 1)
                k = m * n;
            double want = brute_kth(a, m, b, n, k);
            if (vp_pair_diff_kth(a, m, b, n, k) != want)
                bad_kth++;
            uint64_t below, equal, bl = 0, eq = 0;
            vp_pair_diff_count(a, m, b, n, want, &below, &equal);
            for (size_t i = 0; i < m; i++)
                for (size_t j = 0; j < n; j++) {
                    bl += b[j] - a[i] < want;
                    eq += b[j] - a[i] == want;
                }
            if (below != bl || equal != eq)
                bad_count++;
        }
        /* dominance, one batch: the mean over b of (#a < b - #a > b) / m is Cliff's delta */
        double dom;
        CHECK(vp_dominance_batches(b, n, a, m, 1, &dom));
        double gt = 0, lt = 0;
        for (size_t i = 0; i < m; i++)
            for (size_t j = 0; j < n; j++) {
                gt += b[j] > a[i];
                lt += b[j] < a[i];
            }
        if (fabs(dom - (gt - lt) / (double)(m * n)) > 1e-12)
            bad_dom++;
        if (fabs(vp_ks_statistic(a, m, b, n, NULL) - brute_ks(a, m, b, n)) > 1e-12)
            bad_ks++;
        free(a);
        free(b);
    }
    CHECK_EQ(bad_kth, 0);
    CHECK_EQ(bad_count, 0);
    CHECK_EQ(bad_dom, 0);
    CHECK_EQ(bad_ks, 0);
    double one[] = {1};
    CHECK(isnan(vp_pair_diff_kth(one, 1, one, 1, 2)));
    CHECK(vp_pair_diff_kth(one, 1, one, 1, 1) == 0);
    double at;
    double a2[] = {1, 2, 3}, b2[] = {4, 5};
    CHECK(vp_ks_statistic(a2, 3, b2, 2, &at) == 1 && at == 3);

    return check_done("infer");
}
