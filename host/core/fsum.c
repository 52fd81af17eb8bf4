#include "core/fsum.h"

#include <string.h>

/* Bucket additions between emptyings: each adds less than 2^53 in
 * magnitude, so a bucket stays below 2^62. */
#define PENDING_MAX 512u

void vp_xsum_init(vp_xsum *s)
{
    s->special = 0;
    s->plain = 0;
    s->overflow = 0;
    s->pending = 0;
    s->lo = (int)(sizeof s->bucket / sizeof s->bucket[0]);
    s->hi = -1;
    s->n = 0;
    memset(s->bucket, 0, sizeof s->bucket);
}

/* Add a finite x to the partials: each addition's rounding error (exact:
 * two-sum of the larger and the smaller) stays as a partial, the rounded
 * sum moves on. */
static void partials_add(vp_xsum *s, double x)
{
    if (s->overflow)
        return;
    if (!isfinite(x)) { /* a bucket beyond the largest double */
        s->overflow = 1;
        return;
    }
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

/* Empty the buckets into the partials. A bucket b holds an integer below
 * 2^62 in magnitude, worth b x 2^(e - 1075) (e at least 1: the subnormals'
 * scale is the smallest normal one's): two doubles of 31 bits each hold
 * it exactly. */
static void flush(vp_xsum *s)
{
    for (int e = s->lo; e <= s->hi; e++) {
        int64_t b = s->bucket[e];
        if (!b)
            continue;
        s->bucket[e] = 0;
        int64_t low = b & INT64_C(0x7fffffff), high = b - low;
        int scale = (e ? e : 1) - 1075;
        partials_add(s, ldexp((double)high, scale));
        partials_add(s, ldexp((double)low, scale));
    }
    s->lo = (int)(sizeof s->bucket / sizeof s->bucket[0]);
    s->hi = -1;
    s->pending = 0;
}

void vp_xsum_add(vp_xsum *s, double x)
{
    s->plain += x;
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    int e = (int)((bits >> 52) & 0x7ff);
    if (e == 0x7ff) { /* an infinity or a NaN */
        s->special += x;
        return;
    }
    int64_t m = (int64_t)(bits & ((UINT64_C(1) << 52) - 1));
    if (e)
        m |= INT64_C(1) << 52;
    s->bucket[e] += bits >> 63 ? -m : m;
    if (e < s->lo)
        s->lo = e;
    if (e > s->hi)
        s->hi = e;
    if (++s->pending == PENDING_MAX)
        flush(s);
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

double vp_xsum_get(vp_xsum *s)
{
    if (s->special != 0) /* NaN too */
        return s->special;
    flush(s);
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
