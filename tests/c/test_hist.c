/* Exact value counts (core/hist): every nearest-rank percentile equals the
 * value a sort of the same data puts at that rank, and vp_series' answer on
 * the same values in ms, bit for bit; the streamed sum, minimum and maximum
 * equal the Series'. On random data and on the adversarial kinds: all
 * equal, all distinct, one huge outlier, zeros, and values chosen to pile
 * up in one run of a table indexed by their low bits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "core/hist.h"
#include "core/series.h"

#define SCALE 0.004 /* ms per VProf unit, as the reader converts */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Check v[0..n) every way: returns the number of mismatches. */
static int check_data(const uint64_t *v, size_t n)
{
    int bad = 0;
    vp_stream s;
    vp_stream_init(&s);
    vp_series *ser = vp_series_new(n);
    uint64_t *sorted = malloc(n * sizeof *sorted + 1);
    for (size_t i = 0; i < n; i++) {
        vp_stream_add(&s, v[i], 1);
        vp_series_push(ser, (double)v[i] * SCALE);
        sorted[i] = v[i];
    }
    qsort(sorted, n, sizeof *sorted, cmp_u64);
    static const double ps[] = {0, 0.1, 1, 5, 10, 25, 33.3, 50, 66.7, 75, 90, 95, 99, 99.9, 100};
    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
        int ok;
        uint64_t got = vp_stream_percentile(&s, ps[k], &ok);
        uint64_t rank = vp_nearest_rank(ps[k], n);
        bad += !ok || got != sorted[rank - 1];
        double as_ms = (double)got * SCALE, want = vp_series_percentile(ser, ps[k]);
        bad += memcmp(&as_ms, &want, sizeof as_ms) != 0; /* bit for bit */
    }
    double sum = vp_stream_sum(&s, SCALE), want_sum = vp_series_sum(ser);
    bad += memcmp(&sum, &want_sum, sizeof sum) != 0;
    bad += s.max != sorted[n - 1] || s.min != sorted[0];
    bad += s.argmax != vp_series_argmax(ser) || s.argmin != vp_series_argmin(ser);
    bad += fabs(vp_stream_stddev(&s, SCALE) - vp_series_stddev(ser)) >
           1e-9 * (1 + vp_series_stddev(ser));
    bad += vp_stream_n(&s) != n;
    vp_stream_free(&s);
    vp_series_unref(ser);
    free(sorted);
    return bad;
}

int main(void)
{
    enum { N = 20000 };
    uint64_t *v = malloc(N * sizeof *v);

    /* Random columns of many sizes, few and many distinct values. */
    int bad = 0;
    for (int round = 0; round < 200; round++) {
        size_t n = 1 + next() % (round < 100 ? 50 : N);
        uint64_t spread = round % 3 == 0 ? 4 : round % 3 == 1 ? 3000 : UINT32_MAX;
        for (size_t i = 0; i < n; i++)
            v[i] = next() % spread;
        bad += check_data(v, n);
    }
    CHECK_EQ(bad, 0);

    /* All equal, all distinct (ascending and descending), one huge outlier,
     * all zero, a single value. */
    for (size_t i = 0; i < N; i++)
        v[i] = 2500;
    CHECK_EQ(check_data(v, N), 0);
    for (size_t i = 0; i < N; i++)
        v[i] = i + 1;
    CHECK_EQ(check_data(v, N), 0);
    for (size_t i = 0; i < N; i++)
        v[i] = N - i;
    CHECK_EQ(check_data(v, N), 0);
    for (size_t i = 0; i < N; i++)
        v[i] = 2500 + i % 7;
    v[N / 2] = UINT64_MAX / 3; /* an escaped 8-byte time */
    CHECK_EQ(check_data(v, N), 0);
    memset(v, 0, N * sizeof *v);
    CHECK_EQ(check_data(v, N), 0);
    v[0] = 7;
    CHECK_EQ(check_data(v, 1), 0);

    /* Values that share their low bits (multiples of 2^20) must not pile up
     * in one run of slots: 200,000 distinct ones count in well under a
     * second (a run per value would take minutes). */
    vp_hist h;
    vp_hist_init(&h);
    clock_t t0 = clock();
    int added = 0;
    for (uint64_t i = 1; i <= 200000; i++)
        added += vp_hist_add(&h, i << 20, 1);
    CHECK_EQ(added, 200000);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    CHECK(secs < 2.0);
    CHECK_EQ(vp_hist_distinct(&h), 200000);
    int ok;
    CHECK_EQ(vp_hist_at_rank(&h, 100000, &ok), (uint64_t)100000 << 20);
    CHECK(ok);
    vp_hist_at_rank(&h, 0, &ok); /* out of range */
    CHECK(!ok);
    /* An add after a rank query drops the sorted view and counts again. */
    CHECK(vp_hist_add(&h, 0, 3));
    CHECK_EQ(vp_hist_at_rank(&h, 1, &ok), 0);
    CHECK_EQ(vp_hist_at_rank(&h, 4, &ok), (uint64_t)1 << 20);
    vp_hist_free(&h);

    /* An empty stream answers nothing. */
    vp_stream e;
    vp_stream_init(&e);
    vp_stream_percentile(&e, 50, &ok);
    CHECK(!ok);
    CHECK(isnan(vp_stream_stddev(&e, SCALE)));
    vp_stream_percentile(&e, 101, &ok);
    CHECK(!ok);
    vp_stream_free(&e);
    free(v);
    return check_done("test_hist");
}
