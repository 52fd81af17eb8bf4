/* libFuzzer harness: index any bytes as a .dlag export, then read back every
 * sample, graph state and tail record the way the binding does. Opening
 * validated the framing, so a read that fails afterwards is a bug: abort. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_trace.h"
#include "formats/dlag.h"

static void samples_read(vp_dlag *d, const vp_dlag_samples *s, size_t size)
{
    /* An array holds at least its count byte, unless the file was cut
     * before it; its samples are in the file. */
    if ((s->array_off >= size && !d->truncated) ||
        (s->count && s->array_off + 1 + s->count * VP_DLAG_SAMPLE_SIZE > size))
        abort();
    vp_error err;
    vp_dlag_sample sm;
    for (uint64_t i = 0; i < s->count; i++)
        if (!vp_dlag_sample_get(d, s, i, &sm, &err))
            abort();
    if (vp_dlag_sample_get(d, s, s->count, &sm, &err))
        abort();
    for (int which = 0; which < 2; which++) {
        vp_series *r = vp_dlag_series(d, s, which, &err);
        if (!r || r->n != s->count)
            abort();
        if (r->n)
            (void)vp_series_percentile(r, 95);
        vp_series_unref(r);
    }
}

static void walk(vp_dlag *d, const uint8_t *data, size_t size)
{
    (void)data;
    vp_error err;
    uint64_t samples = 0;
    for (uint32_t k = 0; k < d->measurement_count; k++) {
        const vp_dlag_measurement *m = &d->measurements[k];
        if (m->index != k + 1)
            abort();
        (void)vp_dlag_measurement_name(m->index);
        (void)vp_dlag_measurement_page(m->index);
        samples_read(d, &m->samples, size);
        samples += m->samples.count;
    }
    if (samples != d->sample_count)
        abort();
    for (uint64_t i = 0; i < d->graph_state_count; i++) {
        vp_dlag_graph_state gs;
        if (!vp_dlag_graph_state_get(d, i, &gs, &err))
            abort();
        if (gs.bitfield_off + gs.bitfield_len > size)
            abort();
    }
    if (d->have_host && d->host_off + d->host_len >= size)
        abort();
    for (uint64_t i = 0; i < d->hop_count; i++) {
        vp_dlag_hop h;
        if (!vp_dlag_hop_get(d, i, &h, &err))
            abort();
        if (h.name_off + h.name_len >= size)
            abort();
        samples_read(d, &h.samples, size);
    }
    if (d->hops_off + d->trailing_bytes > size)
        abort();
}

/* A strict open refuses exactly the files a lenient one keeps cut, and
 * agrees with it on the others. */
static int strict_refuses(const vp_dlag *d)
{
    return d->truncated;
}

static int strict_agrees(const vp_dlag *s, const vp_dlag *d)
{
    return s->sample_count == d->sample_count && s->graph_state_count == d->graph_state_count &&
           s->hop_count == d->hop_count;
}

FUZZ_TRACE_HARNESS(dlag, walk, strict_refuses, strict_agrees)
