#include "core/fsum.h"

void vp_xsum_init(vp_xsum *s)
{
    s->n = 0;
    s->special = 0;
    s->plain = 0;
    s->overflow = 0;
}

void vp_xsum_add(vp_xsum *s, double x)
{
    s->plain += x;
    if (!isfinite(x)) {
        s->special += x;
        return;
    }
    if (s->overflow)
        return;
    /* Add x to every partial in turn, from the smallest: each addition's
     * rounding error (exact: two-sum of the larger and the smaller) stays
     * as a partial, the rounded sum moves on. */
    size_t i = 0;
    for (size_t j = 0; j < s->n; j++) {
        double y = s->p[j];
        if (fabs(x) < fabs(y)) {
            double t = x;
            x = y;
            y = t;
        }
        double hi = x + y, lo = y - (hi - x);
        if (!isfinite(hi)) {
            s->overflow = 1;
            return;
        }
        if (lo != 0)
            s->p[i++] = lo;
        x = hi;
    }
    if (i == VP_XSUM_PARTIALS) { /* cannot happen: partials do not overlap */
        s->overflow = 1;
        return;
    }
    s->p[i] = x;
    s->n = i + 1;
}

void vp_xsum_add_times(vp_xsum *s, double x, double c)
{
    double p = c * x;
    if (!isfinite(p) && isfinite(x)) { /* beyond the largest double */
        s->plain += p;
        s->overflow = 1;
        return;
    }
    vp_xsum_add(s, p);
    if (isfinite(p))
        vp_xsum_add(s, fma(c, x, -p)); /* what rounding c x to p lost */
}

double vp_xsum_get(const vp_xsum *s)
{
    if (s->special != 0) /* NaN too */
        return s->special;
    if (s->overflow)
        return s->plain;
    size_t n = s->n;
    if (!n)
        return 0;
    /* From the largest partial down, until an addition is inexact: its
     * rounding error lo then decides the result, except that a tie (lo
     * exactly half an ulp) must be broken by the sign of what lies below. */
    double hi = s->p[--n], lo = 0;
    while (n > 0) {
        double x = hi, y = s->p[--n];
        hi = x + y;
        lo = y - (hi - x);
        if (lo != 0)
            break;
    }
    if (n > 0 && ((lo < 0 && s->p[n - 1] < 0) || (lo > 0 && s->p[n - 1] > 0))) {
        double y = lo * 2, x = hi + y;
        if (y == x - hi)
            hi = x;
    }
    return hi;
}
