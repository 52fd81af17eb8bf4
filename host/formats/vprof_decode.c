/* Timing records: the decoder every pass uses, and its scratch arrays. */
#include <stdlib.h>
#include <string.h>

#include "formats/vprof_int.h"

#if defined(__GNUC__)
#define VPROF_INLINE static inline __attribute__((always_inline))
#else
#define VPROF_INLINE static inline
#endif

static inline uint64_t rd_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* One record at p, which has at least VPROF_REC_MAX bytes after it. */
VPROF_INLINE const uint8_t *rec_fast(const uint8_t *p, int ew, uint64_t *t, uint32_t *c,
                                     vprof_decode_stats *st)
{
    uint32_t calls = p[0];
    if (calls == 255) {
        calls = (uint32_t)p[1] | (uint32_t)p[2] << 8;
        st->anomalies += calls < 255;
        p += 3;
    } else {
        p += 1;
    }
    uint64_t time = (uint64_t)p[0] | (uint64_t)p[1] << 8;
    p += 2;
    if (time == 0xFFFF) {
        time = rd_le(p, ew);
        p += ew;
        st->escapes++;
        st->anomalies += time < 0xFFFF;
    }
    *t = time;
    *c = calls;
    return p;
}

/* One record at p with only `left` bytes after it; NULL when it does not
 * fit. */
static const uint8_t *rec_checked(const uint8_t *p, size_t left, int ew, uint64_t *t, uint32_t *c,
                                  vprof_decode_stats *st)
{
    if (left < 3)
        return NULL;
    uint32_t calls = p[0];
    size_t k = 1;
    if (calls == 255) {
        calls = (uint32_t)p[1] | (uint32_t)p[2] << 8;
        k = 3;
    }
    if (left < k + 2)
        return NULL;
    uint64_t time = (uint64_t)p[k] | (uint64_t)p[k + 1] << 8;
    size_t len = k + 2;
    if (time == 0xFFFF) {
        if (left < len + (size_t)ew)
            return NULL;
        time = rd_le(p + len, ew);
        len += (size_t)ew;
        st->escapes++;
        st->anomalies += time < 0xFFFF;
    }
    st->anomalies += k == 3 && calls < 255;
    *t = time;
    *c = calls;
    return p + len;
}

/* The decoder, specialised by the compiler with and without calls. */
VPROF_INLINE uint32_t timings(const uint8_t **pp, const uint8_t *end, uint32_t i, uint32_t n,
                              int ew, uint64_t *units, uint32_t *calls, vprof_decode_stats *st,
                              const int with_calls)
{
    const uint8_t *p = *pp;
    uint64_t any = 0;
    while (i < n && (size_t)(end - p) >= 4 * VPROF_REC_MAX) {
        /* Almost every record is the short form (calls < 255, time below
         * 0xFFFF units): 3 bytes. Four of them are taken at fixed offsets,
         * which breaks the chain of lengths the record-by-record loop has
         * to follow; any escape drops to that loop for one record. */
        if (i + 4 <= n && p[0] != 255 && p[3] != 255 && p[6] != 255 && p[9] != 255) {
            uint64_t t0 = (uint64_t)p[1] | (uint64_t)p[2] << 8;
            uint64_t t1 = (uint64_t)p[4] | (uint64_t)p[5] << 8;
            uint64_t t2 = (uint64_t)p[7] | (uint64_t)p[8] << 8;
            uint64_t t3 = (uint64_t)p[10] | (uint64_t)p[11] << 8;
            if (t0 != 0xFFFF && t1 != 0xFFFF && t2 != 0xFFFF && t3 != 0xFFFF) {
                units[i] = t0;
                units[i + 1] = t1;
                units[i + 2] = t2;
                units[i + 3] = t3;
                any |= t0 | t1 | t2 | t3;
                if (with_calls) {
                    calls[i] = p[0];
                    calls[i + 1] = p[3];
                    calls[i + 2] = p[6];
                    calls[i + 3] = p[9];
                }
                p += 12;
                i += 4;
                continue;
            }
        }
        uint64_t t;
        uint32_t c;
        p = rec_fast(p, ew, &t, &c, st);
        units[i] = t;
        any |= t;
        if (with_calls)
            calls[i] = c;
        i++;
    }
    /* Near the end of the bytes, record by record with every length checked. */
    for (; i < n; i++) {
        uint64_t t;
        uint32_t c;
        const uint8_t *q = rec_checked(p, (size_t)(end - p), ew, &t, &c, st);
        if (!q)
            break;
        p = q;
        units[i] = t;
        any |= t;
        if (with_calls)
            calls[i] = c;
    }
    st->any |= any;
    *pp = p;
    return i;
}

uint32_t vp_vprof_timings(const uint8_t **pp, const uint8_t *end, uint32_t i, uint32_t n, int ew,
                          uint64_t *units, uint32_t *calls, vprof_decode_stats *st)
{
    if (calls)
        return timings(pp, end, i, n, ew, units, calls, st, 1);
    return timings(pp, end, i, n, ew, units, NULL, st, 0);
}

uint64_t vp_vprof_root_kids(const vp_vprof_epoch *ep, const uint64_t *units)
{
    uint64_t cs = 0;
    if (ep->n_inner && ep->inner[0] == 0)
        for (uint32_t k = ep->kid_start[0]; k < ep->kid_start[1]; k++)
            cs += units[ep->kids[k]];
    return cs;
}

uint64_t vp_vprof_self_by_pos(const vp_vprof_epoch *ep, const uint64_t *units, uint64_t *self,
                              uint64_t *tmp)
{
    if (!ep->n)
        return 0;
    memcpy(self, units, (size_t)ep->n * sizeof *self); /* leaves are their own self time */
    return vp_vprof_self_inner(ep, units, self, tmp);
}

uint64_t vp_vprof_self_inner(const vp_vprof_epoch *ep, const uint64_t *units, uint64_t *self,
                             uint64_t *tmp)
{
    if (!ep->n)
        return 0;
    /* The inner nodes' child sums come from one running sum over every
     * child in kids[] order (each inner node's children are a run of it):
     * two flat loops of independent loads, where adding each time into its
     * parent's slot would chain every sibling's store to the next, and a
     * loop per inner node would mispredict its length. */
    const uint32_t *inner = ep->inner, *ks = ep->kid_start, *kids = ep->kids;
    uint32_t nk = ks[ep->n_inner];
    uint64_t run = 0;
    tmp[0] = 0;
    for (uint32_t k = 0; k < nk; k++) {
        run += units[kids[k]];
        tmp[k + 1] = run;
    }
    for (uint32_t j = 0; j < ep->n_inner; j++) {
        uint64_t cs = tmp[ks[j + 1]] - tmp[ks[j]], u = units[inner[j]];
        self[inner[j]] = u > cs ? u - cs : 0;
    }
    uint64_t root = ep->n_inner && inner[0] == 0 ? tmp[ks[1]] - tmp[ks[0]] : 0;
    return units[0] > root ? units[0] : root;
}

/* Grow *p to n + 1 elements of `size` bytes; 0 on OOM (*p untouched). */
static int fit(void **p, uint32_t n, size_t size)
{
    void *q = realloc(*p, ((size_t)n + 1) * size);
    if (!q)
        return 0;
    *p = q;
    return 1;
}

int vp_vprof_scratch_fit(vprof_scratch *s, uint32_t n)
{
    if (n <= s->cap && s->units)
        return 1;
    if (!fit((void **)&s->units, n, sizeof *s->units) || !fit((void **)&s->self, n, sizeof *s->self) ||
        !fit((void **)&s->tmp, n, sizeof *s->tmp) || !fit((void **)&s->calls, n, sizeof *s->calls))
        return 0;
    s->cap = n;
    return 1;
}

void vp_vprof_scratch_free(vprof_scratch *s)
{
    free(s->units);
    free(s->self);
    free(s->tmp);
    free(s->calls);
    memset(s, 0, sizeof *s);
}
