/* The inference primitives against closed forms, textbook table values
 * and brute force: log Gamma against libm, the incomplete beta and the t
 * distribution where they have closed forms (Cauchy for df = 1, df = 2),
 * t and normal quantiles from the tables, Kolmogorov's critical values,
 * pairwise-difference order statistics, dominance and the KS statistic by
 * counting every pair on random samples with many ties, and the weighted
 * batch sums of the bootstrap by hand. */
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

    /* an empty column, which may have no array at all, cut once: an empty sample */
    {
        size_t none[] = {0, 0};
        vp_batched *b0 = vp_batched_of_values(NULL, none, 1);
        CHECK(b0 && b0->all.n == 0 && b0->all.d == 0);
        vp_batched_free(b0);
    }

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
            CHECK(vp_pair_diff_count(a, m, b, n, want, &below, &equal));
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
    /* a sample kept as its batches' value counts gives what the column gives */
    srand(12);
    int bad_means = 0, bad_rank = 0, bad_dom2 = 0, bad_top = 0, bad_pool = 0;
    for (int round = 0; round < 100; round++) {
        size_t n = 20 + (size_t)(rand() % 300), k = 1 + (size_t)(rand() % 20);
        if (k > n)
            k = n;
        double *xs2 = malloc(n * sizeof *xs2), *y = malloc(n * sizeof *y);
        int levels = round % 3 ? 40 : 100000;
        for (size_t i = 0; i < n; i++) {
            xs2[i] = (double)(rand() % levels) * 0.004;
            y[i] = (double)(rand() % levels) * 0.004 + 0.008;
        }
        size_t *cuts = malloc((k + 1) * sizeof *cuts);
        vp_batch_cuts(n, k, cuts);
        vp_batched *bx = vp_batched_of_values(xs2, cuts, k), *by = vp_batched_of_values(y, cuts, k);
        CHECK(bx && by);
        if (!bx || !by)
            break;
        CHECK_EQ(bx->all.n, n);
        double *want = malloc(k * sizeof *want), *got = malloc(k * sizeof *got);
        double c = xs2[(size_t)rand() % n];
        for (int map = 0; map < 3; map++) {
            vp_batch_means(xs2, n, k, (vp_batch_map)map, c, want);
            CHECK(vp_batched_means(bx, (vp_batch_map)map, c, got));
            for (size_t b = 0; b < k; b++)
                if (map < 2 ? got[b] != want[b] : !close_rel(got[b], want[b], 1e-12))
                    bad_means++;
        }
        size_t sn2;
        double *sx = vp_sorted_copy(xs2, n, &sn2), *sy = vp_sorted_copy(y, n, &sn2);
        for (size_t r = 1; r <= n; r++)
            if (vp_counts_rank(&bx->all, r) != sx[r - 1])
                bad_rank++;
        uint64_t top = 1 + (uint64_t)rand() % n;
        double q = sx[n - top], ex = 0;
        for (size_t i = n - top; i < n; i++)
            ex += sx[i] - q;
        if (vp_counts_top_excess(&bx->all, top, q) != ex)
            bad_top++;
        for (size_t r = 1; r <= 2 * n; r += 1 + r / 7) {
            /* the r-th of both together, by merging the sorted columns */
            size_t i = 0, j = 0;
            double v = 0;
            for (size_t t = 0; t < r; t++)
                v = (j >= n || (i < n && sx[i] <= sy[j])) ? sx[i++] : sy[j++];
            if (vp_counts_pooled_rank(&bx->all, &by->all, r) != v)
                bad_pool++;
        }
        vp_dominance_batches(xs2, n, sy, n, k, want);
        CHECK(vp_batched_dominance(bx, &by->all, got));
        for (size_t b = 0; b < k; b++)
            if (fabs(got[b] - want[b]) > 1e-12) /* in -1 .. 1: the column's sum rounds */
                bad_dom2++;
        /* pairs, KS and AD from the counts are the columns' */
        uint64_t kk = 1 + (uint64_t)rand() % ((uint64_t)n * n);
        CHECK(vp_counts_pair_kth(&bx->all, &by->all, kk) == vp_pair_diff_kth(sx, n, sy, n, kk));
        CHECK(vp_counts_ad(&bx->all, &by->all) == vp_ad_statistic(sx, n, sy, n));
        /* joined: the segments of two parts regrouped are the batches of the whole */
        if (k >= 2) {
            size_t split = cuts[k / 2] + (cuts[k / 2 + 1] - cuts[k / 2]) / 2; /* inside batch k / 2 */
            size_t c1[64], c2[64], m1 = 0, m2 = 0, batch_of[64], seg = 0;
            c1[m1++] = 0;
            for (size_t b = 1; b < k && cuts[b] < split; b++)
                c1[m1++] = cuts[b];
            c1[m1] = split;
            c2[m2++] = 0;
            for (size_t b = 1; b < k; b++)
                if (cuts[b] > split)
                    c2[m2++] = cuts[b] - split;
            c2[m2] = n - split;
            vp_batched *p1 = vp_batched_of_values(xs2, c1, m1), *p2 = vp_batched_of_values(xs2 + split, c2, m2);
            /* each segment goes to the batch holding its first value */
            for (size_t b = 0; b < m1 + m2; b++) {
                size_t start = b < m1 ? c1[b] : split + c2[b - m1], at = 0;
                while (at + 1 < k && cuts[at + 1] <= start)
                    at++;
                batch_of[seg++] = at;
            }
            const vp_batched *parts[2] = {p1, p2};
            vp_batched *j = vp_batched_join(parts, 2, batch_of, k);
            CHECK(j && j->k == k);
            for (size_t b = 0; j && b < k; b++) {
                CHECK(j->batch[b].n == bx->batch[b].n && j->batch[b].d == bx->batch[b].d);
                for (size_t i = 0; i < j->batch[b].d && i < bx->batch[b].d; i++)
                    CHECK(j->batch[b].v[i] == bx->batch[b].v[i] && j->batch[b].c[i] == bx->batch[b].c[i]);
            }
            CHECK(j && j->all.d == bx->all.d && j->all.n == bx->all.n);
            vp_batched_free(j);
            vp_batched_free(p1);
            vp_batched_free(p2);
        }
        free(sx);
        free(sy);
        free(want);
        free(got);
        free(cuts);
        vp_batched_free(bx);
        vp_batched_free(by);
        free(xs2);
        free(y);
    }
    CHECK_EQ(bad_means, 0);
    CHECK_EQ(bad_rank, 0);
    CHECK_EQ(bad_top, 0);
    CHECK_EQ(bad_pool, 0);
    CHECK_EQ(bad_dom2, 0);
    /* batches put piece by piece merge their counts and add their sums */
    vp_batched *pb = vp_batched_new(2);
    double v1[] = {1, 3}, v2[] = {2, 3, 9};
    uint64_t k1[] = {2, 1}, k2[] = {1, 4, 1};
    CHECK(pb && vp_batched_put(pb, 0, v1, k1, 2, 5) && vp_batched_put(pb, 0, v2, k2, 3, 23) &&
          vp_batched_put(pb, 1, v1, k1, 2, 5) && vp_batched_finish(pb));
    CHECK(pb->batch[0].d == 4 && pb->batch[0].n == 9 && pb->batch[0].sum == 28 && pb->batch[0].c[2] == 5);
    CHECK(pb->all.d == 4 && pb->all.n == 12 && pb->all.c[0] == 4 && pb->all.v[3] == 9);
    CHECK(vp_counts_at_most(&pb->all, 2.5) == 5 && isnan(vp_counts_rank(&pb->all, 13)));
    /* finished, the store holds the live counts only: batch 0's 4, batch 1's 2, all's 4 */
    CHECK(pb->used == 10 && pb->cap == 10);
    CHECK(pb->batch[1].d == 2 && pb->batch[1].v[1] == 3 && pb->batch[1].c[0] == 2 && pb->all.v[0] == 1);
    vp_batched_free(pb);
    size_t cuts7[4];
    vp_batch_cuts(7, 3, cuts7);
    CHECK(cuts7[0] == 0 && cuts7[1] == 3 && cuts7[2] == 5 && cuts7[3] == 7);

    /* VP_BOOT_SUM: each weighting's sum of the batch sums (3, 3 and 19)
     * times their weights; a weighting of nothing has no sum */
    double xs3[] = {1, 2, 3, 4, 5, 10};
    size_t cuts3[] = {0, 2, 3, 6};
    vp_batched *bs = vp_batched_of_values(xs3, cuts3, 3);
    double w3[] = {1, 1, 1, 0, 3, 0, 1, 0, 2, 0, 0, 0}, sums[4] = {0};
    CHECK(bs && vp_batched_boot(bs, w3, 4, VP_BOOT_SUM, 0, sums));
    CHECK(sums[0] == 25 && sums[1] == 9 && sums[2] == 41 && isnan(sums[3]));
    vp_batched_free(bs);

    double one[] = {1};
    CHECK(isnan(vp_pair_diff_kth(one, 1, one, 1, 2)));
    CHECK(vp_pair_diff_kth(one, 1, one, 1, 1) == 0);
    double at;
    double a2[] = {1, 2, 3}, b2[] = {4, 5};
    CHECK(vp_ks_statistic(a2, 3, b2, 2, &at) == 1 && at == 3);

    return check_done("infer");
}
