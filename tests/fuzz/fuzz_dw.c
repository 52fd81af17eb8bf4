/* libFuzzer harness: open any bytes as a .dw weapon trace, then decode every
 * slot, movement block, hit and ragdoll transform the way the binding does,
 * and seek to traces at random. Opening validated the framing, so a decode
 * that fails afterwards, or totals that disagree with the open pass, are
 * bugs: abort. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_trace.h"
#include "formats/dw.h"

static void walk(vp_dw *d, const uint8_t *data, size_t size)
{
    vp_error err;
    if (d->slots_end > size || d->trace_count + d->empty_slots != d->slot_count)
        abort();
    vp_dw_iter it;
    vp_dw_iter_begin(d, &it);
    vp_dw_trace t;
    uint64_t traces = 0, slots = 0, client = 0, server = 0;
    float acc = 0;
    int r;
    while ((r = vp_dw_iter_next(d, &it, &t, &err)) > 0) {
        slots++;
        if (!t.used)
            continue;
        if (t.index != traces++)
            abort();
        if (t.movement_off) {
            vp_dw_movement mv;
            if (vp_dw_movement_at(d, t.movement_off, &mv, &err) != VP_OK)
                abort();
            acc += mv.weapon_range;
        }
        const uint64_t first[2] = {t.client_off, t.server_off};
        const unsigned count[2] = {t.client_count, t.server_count};
        for (int s = 0; s < 2; s++) {
            uint64_t off = first[s];
            for (unsigned i = 0; i < count[s]; i++) {
                vp_dw_hit h;
                if (vp_dw_hit_at(d, off, &h, &err) != VP_OK)
                    abort();
                for (unsigned k = 0; k < h.ragdoll_count; k++) {
                    float mx[16];
                    if (vp_dw_matrix_at(d, &h, k, mx, &err) != VP_OK)
                        abort();
                    acc += mx[15];
                }
                (void)vp_dw_hit_type_name(h.type);
                off += h.size;
            }
            if (off > t.off + t.size)
                abort();
        }
        client += t.client_count;
        server += t.server_count;
    }
    if (r < 0 || slots != d->slot_count || traces != d->trace_count || client != d->client_hits ||
        server != d->server_hits)
        abort();
    /* Random access lands on the trace it was asked for. */
    if (d->trace_count) {
        uint64_t want = (size ? data[0] : 0) % d->trace_count;
        vp_dw_iter_seek_trace(d, &it, want);
        if (vp_dw_iter_next(d, &it, &t, &err) <= 0 || !t.used || t.index != want)
            abort();
    }
    vp_dw_iter_seek_trace(d, &it, d->trace_count);
    while (vp_dw_iter_next(d, &it, &t, &err) > 0)
        if (t.used)
            abort();
    (void)acc;
}

/* A strict open refuses exactly the files a lenient one keeps cut, and
 * finds the same slots in the others. */
static int strict_refuses(const vp_dw *d)
{
    return d->truncated;
}

static int strict_agrees(const vp_dw *s, const vp_dw *d)
{
    return s->slot_count == d->slot_count;
}

FUZZ_TRACE_HARNESS(dw, walk, strict_refuses, strict_agrees)
