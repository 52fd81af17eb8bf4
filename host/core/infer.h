/* The heavy loops of the comparison statistics (stdlib/vp/infer.lua holds
 * the methods; docs/compare.md states them): the distributions p-values
 * and intervals need, batch means of a series or of a function of it,
 * order statistics of the pairwise differences of two samples
 * (Hodges-Lehmann), the per-value dominance behind Cliff's delta and the
 * two-sample Kolmogorov-Smirnov statistic. Pure functions: no state; only
 * vp_sorted_copy's result and some functions' scratch are allocated. */
#ifndef VP_INFER_H
#define VP_INFER_H

#include <stddef.h>
#include <stdint.h>

/* Distributions ------------------------------------------------------------ */

/* log Gamma(x) for x > 0 (NaN otherwise). libm's lgamma writes the global
 * signgam; this one writes nothing. Relative error below 1e-14. */
double vp_log_gamma(double x);
/* The regularised incomplete beta function I_x(a, b), a, b > 0, x in
 * [0, 1]; NaN outside. */
double vp_beta_inc(double x, double a, double b);
/* Student's t with df > 0 degrees of freedom (fractional df allowed; df
 * above 1e7 is taken as the normal): P(T <= t). */
double vp_t_cdf(double t, double df);
/* P(|T| >= |t|), without the cancellation of 2 (1 - cdf) in the tail. */
double vp_t_two_sided(double t, double df);
/* The t with P(T <= t) = p, p in (0, 1); NaN outside. */
double vp_t_quantile(double p, double df);
/* Standard normal: P(Z <= z), and the z with P(Z <= z) = p, p in (0, 1). */
double vp_normal_cdf(double z);
double vp_normal_quantile(double p);
/* Kolmogorov's limit distribution: P(K > lambda) = 2 sum_{k >= 1}
 * (-1)^(k-1) exp(-2 k^2 lambda^2); 1 for lambda <= 0. */
double vp_kolmogorov_q(double lambda);

/* The Anderson-Darling limit distribution (of the one-sample statistic,
 * and of the two-sample one): P(A^2 > z), from Marsaglia and Marsaglia's
 * fitted formula (2004; absolute error below 2e-6). 1 for z <= 0. */
double vp_anderson_darling_q(double z);

/* Series ------------------------------------------------------------------- */

/* What vp_batch_means averages: x itself, the indicator 1{x <= c}, or the
 * excess max(x - c, 0). */
typedef enum { VP_BATCH_VALUE, VP_BATCH_AT_MOST, VP_BATCH_EXCESS } vp_batch_map;

/* Split x[0..n) in its order into k contiguous batches whose sizes differ
 * by at most one (the first n % k batches hold one value more) and write
 * the mean of map(x) over each batch to out[0..k). Returns 0 (nothing
 * written) unless 1 <= k <= n. NaN values are the caller's to drop. */
int vp_batch_means(const double *x, size_t n, size_t k, vp_batch_map map, double c, double *out);

/* A new ascending copy of x[0..n) without its NaN values (malloc'd; the
 * caller frees it), its length in *out_n; NULL when out of memory (an
 * empty x gives a valid one-byte block and *out_n = 0). */
double *vp_sorted_copy(const double *x, size_t n, size_t *out_n);

/* 1 when x[0..n) is ascending (no NaN), else 0. */
int vp_is_sorted(const double *x, size_t n);

/* Two sorted samples ----------------------------------------------------------
 * a[0..m) and b[0..n) ascending, without NaN. "Differences" are the m n
 * values b[j] - a[i]. Each is the value-count function below on the
 * samples' counts (an allocation of their distinct values: 0 or NaN when
 * it fails, as said). */

/* How many differences are below v (*below) and equal to v (*equal); 0
 * when out of memory. O(m + n). */
int vp_pair_diff_count(const double *a, size_t m, const double *b, size_t n, double v, uint64_t *below,
                       uint64_t *equal);
/* The k-th smallest difference, k in [1, m n], exact; NaN when k is out of
 * range or out of memory. */
double vp_pair_diff_kth(const double *a, size_t m, const double *b, size_t n, uint64_t k);

/* For each x[i] (any order) the batch means (as vp_batch_means, k batches)
 * of d_i = (#{other < x[i]} - #{other > x[i]}) / m over the ascending
 * other[0..m): the per-value share of Cliff's delta. 0 unless
 * 1 <= k <= n and m >= 1. O(n log L) with L the distinct values of other
 * (scratch for them; without memory, O(n log m) over other itself). */
int vp_dominance_batches(const double *x, size_t n, const double *other, size_t m, size_t k, double *out);

/* sup_x |F_a(x) - F_b(x)| of the empirical distribution functions; *at (if
 * not NULL) gets an x where it is reached. 0 when a sample is empty (or out
 * of memory, *at NaN). */
double vp_ks_statistic(const double *a, size_t m, const double *b, size_t n, double *at);

/* The two-sample Anderson-Darling statistic (vp_counts_ad); 0 when a
 * sample is empty or out of memory. */
double vp_ad_statistic(const double *a, size_t m, const double *b, size_t n);

/* Value counts ------------------------------------------------------------------
 * A stretch of a series kept as its distinct values in ascending order, how
 * often each came and the sum of the values. With the stretches the
 * batches of a sample (vp_batched), every statistic of vp.infer comes from
 * the counts: batch means of the values, of 1{x <= c} and of max(x - c, 0)
 * for any c chosen later, order statistics, the pooled order of two
 * samples, the order of all pairwise differences and each batch's share of
 * Cliff's delta. A profiler's times are quantised (VProf: 4 us), so a
 * batch of a million frames is a few thousand counts, and neither a column
 * nor its time order is needed. */
typedef struct vp_counts {
    const double *v;  /* d distinct values, ascending, no NaN */
    const uint64_t *c; /* how often each came (> 0) */
    size_t d;
    uint64_t n;        /* the values: the sum of c */
    double sum;        /* their sum (how it was added is the maker's) */
} vp_counts;

/* A sample in k contiguous batches: each batch's counts, and the whole
 * sample's (the batches merged; its sum the batches' sums added in order). */
typedef struct vp_batched {
    size_t k;
    vp_counts *batch;
    vp_counts all;
    double *vbuf;     /* storage: every batch's values and counts, then all's */
    uint64_t *cbuf;
    size_t used, cap; /* entries of vbuf and cbuf */
} vp_batched;

/* The standard batches of n values: k contiguous batches whose sizes differ
 * by at most one, the first n % k one longer: cuts[b] is where batch b
 * starts, cuts[k] = n. */
void vp_batch_cuts(size_t n, size_t k, size_t *cuts);

/* The batches [cuts[b], cuts[b + 1]) of x (b < k; cuts ascending, cuts[0]
 * = 0; no NaN in x), each batch's sum added in order as vp_batch_means adds
 * it. NULL when out of memory or the cuts are not ascending. */
vp_batched *vp_batched_of_values(const double *x, const size_t *cuts, size_t k);
/* k empty batches to fill with vp_batched_put, then vp_batched_finish;
 * NULL when out of memory. */
vp_batched *vp_batched_new(size_t k);
/* Add d counts (v ascending without NaN, c > 0) and their sum to batch b;
 * 0 when out of memory. */
int vp_batched_put(vp_batched *s, size_t b, const double *v, const uint64_t *c, size_t d, double sum);
/* Merge the batches into `all`; 0 when out of memory. */
int vp_batched_finish(vp_batched *s);
/* A new sample whose batch b holds the segments i (of every part's
 * batches, in order) with batch_of[i] = b, merged; NULL when out of memory. */
vp_batched *vp_batched_join(const vp_batched *const *parts, size_t nparts, const size_t *batch_of, size_t k);
void vp_batched_free(vp_batched *s);

/* The batch means of map(x) (vp_batch_map) into out[0..k); 0 when a batch
 * is empty. Exactly vp_batch_means' for the value and the indicator
 * (counts); the excess is summed per distinct value. */
int vp_batched_means(const vp_batched *s, vp_batch_map map, double c, double *out);
/* Each batch's nearest-rank percentile p (0..100) into out[0..k); 0 when a
 * batch is empty. */
int vp_batched_percentiles(const vp_batched *s, double p, double *out);

/* What vp_batched_boot computes of each weighting of the batches. */
typedef enum { VP_BOOT_QUANTILE, VP_BOOT_TAIL_MEAN, VP_BOOT_SUM } vp_boot_stat;

/* The statistic of the values of s's batches drawn with weights, for each
 * of reps weightings: batch b counts w[r * k + b] times in weighting r
 * (whole numbers >= 0; a block bootstrap of the stretches draws them).
 * VP_BOOT_QUANTILE: the nearest-rank percentile `param` (0..100) of the
 * weighted values; VP_BOOT_TAIL_MEAN: the mean of the slowest max(1,
 * floor(N param / 100)) of them (N the weighted count; ties at the
 * threshold counted as needed), the "param % low" frame time; VP_BOOT_SUM:
 * the weighted sum of the batches' sums (param unused; O(reps k)). NaN for
 * a weighting without values. O(reps k log(d) log(all.d)) after one pass
 * over the counts; 0 (nothing written) when out of memory. */
int vp_batched_boot(const vp_batched *s, const double *w, size_t reps, vp_boot_stat stat, double param,
                    double *out);

/* For each batch the mean over its values x of (#{other < x} - #{other >
 * x}) / other.n (vp_dominance_batches), from counts; 0 when other is
 * empty or a batch is. */
int vp_batched_dominance(const vp_batched *s, const vp_counts *other, double *out);

/* How many values are at most x. */
uint64_t vp_counts_at_most(const vp_counts *c, double x);
/* The value of rank r (1-based) in ascending order; NaN out of 1..n. */
double vp_counts_rank(const vp_counts *c, uint64_t r);
/* The sum of (x - q) over the k largest values, added in ascending order
 * one value at a time (as a loop over the sorted column adds it). */
double vp_counts_top_excess(const vp_counts *c, uint64_t k, double q);
/* The value of rank r (1-based) among the values of a and b together; NaN
 * out of 1..a.n + b.n. */
double vp_counts_pooled_rank(const vp_counts *a, const vp_counts *b, uint64_t r);
/* Differences b - a (each pair of a value of a and one of b, as doubles):
 * how many are below v and equal to v. O(a.d + b.d). */
void vp_counts_pair_count(const vp_counts *a, const vp_counts *b, double v, uint64_t *below, uint64_t *equal);
/* The k-th smallest difference, k in [1, a.n b.n], exact: a bisection on
 * the value (one counting pass a step) until at most a.d + b.d distinct
 * pairs of values remain in the bracket, which are then listed and sorted
 * (scratch for them; without memory the bisection goes on over the
 * doubles' order, at most 64 more passes). NaN when k is out of range. */
double vp_counts_pair_kth(const vp_counts *a, const vp_counts *b, uint64_t k);
/* sup |F_a - F_b| and where (vp_ks_statistic). */
double vp_counts_ks(const vp_counts *a, const vp_counts *b, double *at);
/* The two-sample Anderson-Darling statistic in Scholz and Stephens'
 * version for tied values (A^2_akN with k = 2: each distinct value z_j
 * counts with its multiplicity l_j, the samples' counts below it plus half
 * their ties): (N - 1) / N^2 sum_i (1 / n_i) sum_j l_j (N M_ij - n_i B_j)^2
 * / (B_j (N - B_j) - N l_j / 4), N = m + n, B_j the pooled count below z_j
 * plus l_j / 2. Its null mean is 1. 0 when a sample is empty. */
double vp_counts_ad(const vp_counts *a, const vp_counts *b);

#endif
