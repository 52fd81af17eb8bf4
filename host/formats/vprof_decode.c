/* Timing records: the decoders the open pass and the re-reading of frames
 * share, and their scratch arrays. */
#include <stdlib.h>
#include <string.h>

#include "formats/vprof_int.h"

static inline uint64_t rd_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

/* Decode n timing records (calls, time) at *pp. Returns the number of
 * records decoded; fewer than n means the buffer ended first. */
uint32_t vp_vprof_timings_decode(const uint8_t **pp, const uint8_t *end, uint32_t n, int ew,
                                 uint64_t *units, uint32_t *calls, vprof_decode_stats *st)
{
    const uint8_t *p = *pp;
    const size_t max_rec = 1 + 2 + 2 + 8;
    uint32_t i = 0;
    /* Fast path: while a whole worst-case record fits, skip bounds checks. */
    for (; i < n && (size_t)(end - p) >= max_rec; i++) {
        uint32_t c = p[0];
        if (c == 255) {
            c = (uint32_t)p[1] | (uint32_t)p[2] << 8;
            st->anomalies += c < 255;
            p += 3;
        } else {
            p += 1;
        }
        uint64_t t = (uint64_t)p[0] | (uint64_t)p[1] << 8;
        p += 2;
        if (t == 0xFFFF) {
            t = ew == 4 ? rd_le(p, 4) : rd_le(p, 8);
            p += ew;
            st->escapes++;
            st->anomalies += t < 0xFFFF;
        }
        units[i] = t;
        calls[i] = c;
    }
    for (; i < n; i++) {
        if (end - p < 3)
            break;
        uint32_t c = p[0];
        const uint8_t *q = p + 1;
        if (c == 255) {
            c = (uint32_t)p[1] | (uint32_t)p[2] << 8;
            st->anomalies += c < 255;
            q = p + 3;
        }
        if (end - q < 2)
            break;
        uint64_t t = (uint64_t)q[0] | (uint64_t)q[1] << 8;
        q += 2;
        if (t == 0xFFFF) {
            if (end - q < ew)
                break;
            t = rd_le(q, ew);
            q += ew;
            st->escapes++;
            st->anomalies += t < 0xFFFF;
        }
        units[i] = t;
        calls[i] = c;
        p = q;
    }
    *pp = p;
    return i;
}

/* The open pass's decoder: like vp_vprof_timings_decode, but calls are only checked,
 * and each time is also added to its parent's slot of csum (n + 1 slots;
 * the root's parent slot n is zeroed by the caller, every other slot here
 * as its own record is read), so self times need no second walk over the
 * tree. */
uint32_t vp_vprof_timings_index(const uint8_t **pp, const uint8_t *end, uint32_t n, int ew,
                                const uint32_t *parent_pos, uint64_t *units, uint64_t *csum,
                                vprof_decode_stats *st)
{
    const uint8_t *p = *pp;
    const size_t max_rec = 1 + 2 + 2 + 8;
    uint32_t i = 0;
    while (i < n && (size_t)(end - p) >= 4 * max_rec) {
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
                /* A parent precedes its children in pre-order, so zeroing a
                 * slot when its record is read is always soon enough. */
                csum[i] = csum[i + 1] = csum[i + 2] = csum[i + 3] = 0;
                csum[parent_pos[i]] += t0;
                csum[parent_pos[i + 1]] += t1;
                csum[parent_pos[i + 2]] += t2;
                csum[parent_pos[i + 3]] += t3;
                p += 12;
                i += 4;
                continue;
            }
        }
        if (p[0] == 255) {
            st->anomalies += ((uint32_t)p[1] | (uint32_t)p[2] << 8) < 255;
            p += 3;
        } else {
            p += 1;
        }
        uint64_t t = (uint64_t)p[0] | (uint64_t)p[1] << 8;
        p += 2;
        if (t == 0xFFFF) {
            t = rd_le(p, ew);
            p += ew;
            st->escapes++;
            st->anomalies += t < 0xFFFF;
        }
        units[i] = t;
        csum[i] = 0;
        csum[parent_pos[i]] += t;
        i++;
    }
    /* Near the end of the buffer the checked decoder does the rest. */
    uint32_t calls_scratch[64];
    while (i < n) {
        uint32_t k = n - i < 64 ? n - i : 64;
        uint32_t got = vp_vprof_timings_decode(&p, end, k, ew, units + i, calls_scratch, st);
        for (uint32_t j = i; j < i + got; j++)
            csum[j] = 0;
        for (uint32_t j = i; j < i + got; j++)
            csum[parent_pos[j]] += units[j];
        i += got;
        if (got < k)
            break;
    }
    *pp = p;
    return i;
}

/* Self time by position: inclusive minus the children's inclusive times,
 * clamped at 0 (children can exceed their parent by timer truncation).
 * Returns the frame time: the root's children's sum, or the root's own
 * time when that is larger. */
uint64_t vp_vprof_self_by_pos(const vp_vprof_epoch *ep, const uint64_t *units, uint64_t *self)
{
    uint32_t n = ep->n;
    memset(self, 0, (size_t)n * sizeof *self);
    for (uint32_t pos = n; pos-- > 1;)
        self[ep->parent_pos[pos]] += units[pos];
    uint64_t root_children = n ? self[0] : 0;
    for (uint32_t pos = 0; pos < n; pos++)
        self[pos] = units[pos] > self[pos] ? units[pos] - self[pos] : 0;
    uint64_t root = n ? units[0] : 0;
    return root > root_children ? root : root_children;
}

int vp_vprof_scratch_fit(vprof_scratch *s, uint32_t n, uint32_t groups)
{
    if (n > s->cap) {
        uint64_t *u = realloc(s->units, (size_t)n * sizeof *u);
        if (u)
            s->units = u;
        /* self doubles as the open pass's child-sum array: n + 1 slots. */
        uint64_t *sf = realloc(s->self, ((size_t)n + 1) * sizeof *sf);
        if (sf)
            s->self = sf;
        uint32_t *c = realloc(s->calls, (size_t)n * sizeof *c);
        if (c)
            s->calls = c;
        if (!u || !sf || !c)
            return 0;
        s->cap = n;
    }
    if (groups > s->gcap) {
        uint64_t *g = realloc(s->gacc, (size_t)groups * sizeof *g);
        if (!g)
            return 0;
        s->gacc = g;
        s->gcap = groups;
    }
    return 1;
}

void vp_vprof_scratch_free(vprof_scratch *s)
{
    free(s->units);
    free(s->self);
    free(s->calls);
    free(s->gacc);
}
