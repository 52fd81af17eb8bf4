/* Series operations (core/series_ops) against plain reference loops on
 * random columns with NaN, ties and empty series: every window size path
 * of the rolling median, the heap of top(k), the bins' edges. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "core/series_ops.h"

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The same number, or both NaN; a relative tolerance for sums. */
static int same(double a, double b, double tol)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    if (a == b)
        return 1;
    return fabs(a - b) <= tol * (1 + fabs(a) + fabs(b));
}

/* Median of the numbers of v[lo..hi] by sorting a copy. */
static double ref_median(const double *v, size_t lo, size_t hi)
{
    double *c = malloc((hi - lo + 1) * sizeof *c);
    size_t k = 0;
    for (size_t i = lo; i <= hi; i++)
        if (!isnan(v[i]))
            c[k++] = v[i];
    double m = NAN;
    if (k) {
        qsort(c, k, sizeof *c, cmp_dbl);
        m = k % 2 ? c[k / 2] : (c[k / 2 - 1] + c[k / 2]) / 2;
    }
    free(c);
    return m;
}

static vp_series *random_series(size_t n, int round)
{
    vp_series *s = vp_series_new(n);
    for (size_t i = 0; i < n; i++) {
        double x;
        if (rand() % 10 == 0)
            x = NAN;
        else if (round % 3 == 0)
            x = (double)(rand() % 5); /* ties */
        else
            x = (double)rand() / RAND_MAX * 100.0 - 20.0;
        vp_series_push(s, x);
    }
    return s;
}

static void check_rolling(const vp_series *s, size_t w, int *bad)
{
    vp_series *mean = vp_series_rolling(s, w, VP_ROLL_MEAN);
    vp_series *max = vp_series_rolling(s, w, VP_ROLL_MAX);
    vp_series *med = vp_series_rolling(s, w, VP_ROLL_MEDIAN);
    for (size_t i = 0; i < s->n; i++) {
        size_t lo = i + 1 >= w ? i + 1 - w : 0, k = 0;
        double sum = 0, mx = NAN;
        for (size_t j = lo; j <= i; j++) {
            double x = s->v[j];
            if (isnan(x))
                continue;
            sum += x;
            k++;
            if (isnan(mx) || x > mx)
                mx = x;
        }
        if (!same(mean->v[i], k ? sum / (double)k : NAN, 1e-9) || !same(max->v[i], mx, 0) ||
            !same(med->v[i], ref_median(s->v, lo, i), 0))
            (*bad)++;
    }
    vp_series_unref(mean);
    vp_series_unref(max);
    vp_series_unref(med);
}

int main(void)
{
    srand(11);
    int bad_arith = 0, bad_sel = 0, bad_roll = 0, bad_misc = 0;
    for (int round = 0; round < 120; round++) {
        size_t n = (size_t)(rand() % 300); /* 0 included */
        vp_series *a = random_series(n, round), *b = random_series(n, round + 1);
        double x = (double)(rand() % 40) - 5;

        /* arithmetic: exactly IEEE, NaN in gives NaN out */
        vp_series *sum = vp_series_arith(a, b, VP_SERIES_ADD);
        vp_series *quo = vp_series_arith(a, b, VP_SERIES_DIV);
        vp_series *rsub = vp_series_arith_scalar(a, x, VP_SERIES_SUB, 1);
        vp_series *mul = vp_series_arith_scalar(a, x, VP_SERIES_MUL, 0);
        for (size_t i = 0; i < n; i++)
            if (!same(sum->v[i], a->v[i] + b->v[i], 0) || !same(quo->v[i], a->v[i] / b->v[i], 0) ||
                !same(rsub->v[i], x - a->v[i], 0) || !same(mul->v[i], a->v[i] * x, 0))
                bad_arith++;
        vp_series_unref(sum);
        vp_series_unref(quo);
        vp_series_unref(rsub);
        vp_series_unref(mul);

        /* selections never take a NaN */
        for (int c = 0; c <= VP_CMP_NE; c++) {
            size_t want = 0;
            for (size_t i = 0; i < n; i++)
                want += vp_series_cmp_test(a->v[i], (vp_series_cmp)c, x);
            vp_series *f = vp_series_filter(a, (vp_series_cmp)c, x);
            size_t got = 0;
            for (size_t at = vp_series_find(a, (vp_series_cmp)c, x, 0); at < n;
                 at = vp_series_find(a, (vp_series_cmp)c, x, at + 1)) {
                if (isnan(a->v[at]) || f->v[got] != a->v[at])
                    bad_sel++;
                got++;
            }
            if (got != want || f->n != want || vp_series_count(a, (vp_series_cmp)c, x) != want)
                bad_sel++;
            vp_series_unref(f);
        }

        /* median, cumsum, diff, sorted */
        if (n && !same(vp_series_median(a), ref_median(a->v, 0, n - 1), 0))
            bad_misc++;
        vp_series *cs = vp_series_cumsum(a), *d = vp_series_diff(a), *so = vp_series_sorted(a);
        double run = 0;
        for (size_t i = 0; i < n; i++) {
            if (!isnan(a->v[i]))
                run += a->v[i];
            if (!same(cs->v[i], isnan(a->v[i]) ? NAN : run, 1e-12))
                bad_misc++;
            if (i + 1 < n && !same(d->v[i], a->v[i + 1] - a->v[i], 0))
                bad_misc++;
            if (i && !isnan(so->v[i]) && (isnan(so->v[i - 1]) || so->v[i - 1] > so->v[i]))
                bad_misc++;
        }
        if (d->n != (n > 1 ? n - 1 : 0) || so->n != n)
            bad_misc++;
        vp_series_unref(cs);
        vp_series_unref(d);
        vp_series_unref(so);

        /* rolling windows, both median paths (small <= 256 < large) */
        size_t windows[] = {1, 2, 7, 64, 256, 257, 1000};
        for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++)
            check_rolling(a, windows[w], &bad_roll);

        /* top(k): the k largest numbers, largest first, earlier index on ties */
        size_t k = (size_t)(rand() % 20), out[20];
        int oom;
        size_t got = vp_series_top(a, k, out, &oom);
        size_t numbers = 0;
        for (size_t i = 0; i < n; i++)
            numbers += !isnan(a->v[i]);
        if (oom || got != (k < numbers ? k : numbers))
            bad_misc++;
        for (size_t j = 0; j < got; j++) {
            size_t better = 0; /* numbers ranked before out[j] */
            for (size_t i = 0; i < n; i++)
                if (!isnan(a->v[i]) && (a->v[i] > a->v[out[j]] || (a->v[i] == a->v[out[j]] && i < out[j])))
                    better++;
            if (better != j)
                bad_misc++;
        }

        /* histogram: every value counted once, in the bin its edges say */
        double edges[9];
        uint64_t counts[8], below, above, missing, total = 0;
        if (vp_series_bin_edges(a, 8, edges)) {
            vp_series_histogram(a, edges, 9, counts, &below, &above, &missing);
            for (int j = 0; j < 8; j++)
                total += counts[j];
            if (below || above || total + missing != n)
                bad_misc++;
            for (size_t i = 0; i < n; i++) {
                double v = a->v[i];
                if (isnan(v))
                    continue;
                int bin = 7;
                for (int j = 0; j < 8; j++)
                    if (v >= edges[j] && v < edges[j + 1]) {
                        bin = j;
                        break;
                    }
                counts[bin]--;
            }
            for (int j = 0; j < 8; j++)
                if (counts[j])
                    bad_misc++;
        } else if (numbers) {
            bad_misc++;
        }
        vp_series_unref(a);
        vp_series_unref(b);
    }
    /* the two-heap median over a long series, where values keep leaving
     * the window (stale entries surface, the halves rebalance) */
    for (int round = 0; round < 3; round++) {
        vp_series *lng = random_series(4000, round);
        check_rolling(lng, round == 0 ? 257 : 300 + 200 * (size_t)round, &bad_roll);
        vp_series_unref(lng);
    }
    CHECK_EQ(bad_arith, 0);
    CHECK_EQ(bad_sel, 0);
    CHECK_EQ(bad_roll, 0);
    CHECK_EQ(bad_misc, 0);

    /* unequal lengths are refused */
    vp_series *p = vp_series_new(0), *q = vp_series_new(0);
    vp_series_push(p, 1);
    CHECK(vp_series_arith(p, q, VP_SERIES_ADD) == NULL);
    /* the empty series: no median, empty results */
    CHECK(isnan(vp_series_median(q)));
    vp_series *e = vp_series_rolling(q, 5, VP_ROLL_MEDIAN);
    CHECK_EQ(e->n, 0);
    vp_series_unref(e);
    double edges[3];
    CHECK_EQ(vp_series_bin_edges(q, 2, edges), 0);
    /* one distinct value: the bins span value - 0.5 .. value + 0.5 */
    CHECK_EQ(vp_series_bin_edges(p, 2, edges), 1);
    CHECK(edges[0] == 0.5 && edges[1] == 1.0 && edges[2] == 1.5);

    /* values outside explicit edges and NaN are counted apart */
    vp_series *h = vp_series_new(0);
    double vals[] = {-1, 0, 0.5, 1, 2, 3, NAN, 4};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
        vp_series_push(h, vals[i]);
    double ed[] = {0, 1, 3};
    uint64_t c[2], below, above, missing;
    vp_series_histogram(h, ed, 3, c, &below, &above, &missing);
    CHECK_EQ(c[0], 2); /* 0, 0.5 */
    CHECK_EQ(c[1], 3); /* 1, 2, 3 (the last edge is in the last bin) */
    CHECK_EQ(below, 1);
    CHECK_EQ(above, 1);
    CHECK_EQ(missing, 1);
    /* median with NaN: the numbers' median */
    CHECK(vp_series_median(h) == 1);
    vp_series_unref(h);
    vp_series_unref(p);
    vp_series_unref(q);

    /* sort: infinities, signed zeros, tiny and huge magnitudes in order */
    double odd[] = {3, -INFINITY, 0.0, -0.0, NAN, 1e-310, -1e-310, INFINITY, -2.5, 1e300, -1e300, 2};
    vp_series *o = vp_series_new(0);
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
        vp_series_push(o, odd[i]);
    vp_series *so = vp_series_sorted(o);
    double want[] = {-INFINITY, -1e300, -2.5, -1e-310, 0, 0, 1e-310, 2, 3, 1e300, INFINITY};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        CHECK(so->v[i] == want[i]);
    CHECK(isnan(so->v[11]));
    CHECK(signbit(so->v[4]) && !signbit(so->v[5])); /* -0 before 0 */
    vp_series_unref(so);
    vp_series_unref(o);

    vp_series_cmp cmp;
    CHECK(vp_series_cmp_parse(">=", &cmp) && cmp == VP_CMP_GE);
    CHECK(vp_series_cmp_parse("~=", &cmp) && cmp == VP_CMP_NE);
    CHECK(!vp_series_cmp_parse("=>", &cmp));
    return check_done("series_ops");
}
