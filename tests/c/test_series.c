/* Series statistics: nearest-rank percentiles (against a sorted reference
 * on many random columns, so quickselect is checked where it branches),
 * NaN handling, sums that do not drift. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "core/series.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    vp_series *s = vp_series_new(0);
    for (int i = 1; i <= 100; i++)
        vp_series_push(s, i);
    CHECK(vp_series_percentile(s, 50) == 50);
    CHECK(vp_series_percentile(s, 95) == 95);
    CHECK(vp_series_percentile(s, 99) == 99);
    CHECK(vp_series_percentile(s, 0) == 1);
    CHECK(vp_series_percentile(s, 100) == 100);
    CHECK(isnan(vp_series_percentile(s, 101)));
    CHECK(vp_series_mean(s) == 50.5);
    CHECK_EQ(vp_series_argmax(s), 99);
    vp_series_unref(s);

    srand(7);
    int mismatches = 0;
    for (int round = 0; round < 300; round++) {
        size_t n = 1 + (size_t)(rand() % 500);
        vp_series *r = vp_series_new(n);
        double *ref = malloc(n * sizeof *ref);
        for (size_t i = 0; i < n; i++) {
            /* Few distinct values in some rounds: ties are the hard case. */
            double x = round % 3 == 0 ? (double)(rand() % 4) : (double)rand() / RAND_MAX;
            vp_series_push(r, x);
            ref[i] = x;
        }
        qsort(ref, n, sizeof *ref, cmp);
        for (int q = 0; q < 8; q++) {
            double p = (double)(rand() % 10001) / 100.0;
            double want_rank = ceil(p * (double)n / 100.0 - 1e-9);
            size_t rank = want_rank < 1 ? 1 : (size_t)want_rank;
            if (vp_series_percentile(r, p) != ref[rank - 1])
                mismatches++;
        }
        vp_series_unref(r);
        free(ref);
    }
    CHECK_EQ(mismatches, 0);

    /* Two columns asked in turn each keep their own selection copy; a push
     * after a selection must be seen by the next one. */
    vp_series *a = vp_series_new(0), *b = vp_series_new(0);
    for (int i = 1; i <= 1000; i++) {
        vp_series_push(a, i);
        vp_series_push(b, 1001 - i + 5000);
    }
    CHECK(vp_series_percentile(a, 50) == 500);
    CHECK(vp_series_percentile(b, 50) == 5500);
    CHECK(vp_series_percentile(a, 99) == 990);
    CHECK(vp_series_percentile(b, 1) == 5010);
    vp_series_push(a, 0);
    vp_series_push(a, -1);
    CHECK(vp_series_percentile(a, 0) == -1);
    CHECK(a->sel != NULL && b->sel != NULL);
    vp_series_drop_cache(a);
    CHECK(a->sel == NULL);
    CHECK(vp_series_percentile(a, 100) == 1000);
    vp_series_resize(a, 2000); /* zeros appended: the copy must be rebuilt */
    CHECK(vp_series_percentile(a, 50) == 0);
    vp_series_unref(a);
    CHECK(vp_series_percentile(b, 100) == 6000);
    vp_series_unref(b);

    vp_series *z = vp_series_new(0);
    vp_series_push(z, NAN);
    vp_series_push(z, 2);
    vp_series_push(z, 1);
    /* NaN is skipped wherever it stands: the statistics of {2, 1} */
    CHECK(vp_series_percentile(z, 50) == 1);
    CHECK(vp_series_percentile(z, 100) == 2);
    CHECK(vp_series_max(z) == 2 && vp_series_min(z) == 1);
    CHECK_EQ(vp_series_argmax(z), 1);
    CHECK_EQ(vp_series_argmin(z), 2);
    CHECK(vp_series_sum(z) == 3 && vp_series_mean(z) == 1.5 && vp_series_stddev(z) == 0.5);
    CHECK_EQ(vp_series_numbers(z), 2);
    vp_series_unref(z);
    vp_series *none = vp_series_new(0);
    vp_series_push(none, NAN);
    CHECK(isnan(vp_series_max(none)) && isnan(vp_series_mean(none)) && isnan(vp_series_percentile(none, 50)));
    CHECK_EQ(vp_series_argmax(none), 1); /* n: no number */
    CHECK(vp_series_sum(none) == 0);
    vp_series_unref(none);

    vp_series *big = vp_series_new(0);
    for (int i = 0; i < 1000000; i++)
        vp_series_push(big, 0.1);
    CHECK(fabs(vp_series_sum(big) - 100000.0) < 1e-6);
    vp_series_unref(big);
    return check_done("test_series");
}
