#include "dlag_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_common.h"

/* How far the file has got, in file order. */
enum { PH_HEADER, PH_MEASUREMENTS, PH_GRAPH_STATES, PH_HOST, PH_HOPS };

static const char *const phase_names[] = {"the header", "the measurements", "the graph states",
                                          "the traceroute host", "the tail records"};

struct vp_dlag_writer {
    vp_dlag_wopts o;
    vp_wbuf buf;
    int phase;
    uint32_t measurements;
    int has_cut;
    size_t cut;
    vp_wbuf out;
};

vp_dlag_writer *vp_dlag_writer_new(const vp_dlag_wopts *o)
{
    vp_dlag_writer *w = calloc(1, sizeof *w);
    if (w)
        w->o = *o;
    return w;
}

void vp_dlag_writer_free(vp_dlag_writer *w)
{
    if (!w)
        return;
    vp_wbuf_free(&w->buf);
    vp_wbuf_free(&w->out);
    free(w);
}

static void header_emit(vp_dlag_writer *w)
{
    if (w->phase != PH_HEADER)
        return;
    vp_wbuf_u32(&w->buf, w->o.time);
    vp_wbuf_u32(&w->buf, 0); /* measurement count, filled in at the end */
    w->phase = PH_MEASUREMENTS;
}

/* The count byte of each block, then its elements, by the exact rule or by
 * the caller's list of count bytes (see vp_devt_wframing). */
static void chunked_put(vp_wbuf *b, size_t n, const vp_dlag_wframing *f,
                        void (*put)(vp_wbuf *b, const void *elems, size_t i), const void *elems)
{
    size_t i = 0;
    if (f && f->chunks) {
        for (size_t k = 0; k < f->nchunks; k++) {
            vp_wbuf_u8(b, f->chunks[k]);
            for (unsigned j = 0; j < f->chunks[k] && i < n; j++)
                put(b, elems, i++);
        }
        while (i < n)
            put(b, elems, i++);
        return;
    }
    for (;;) {
        size_t left = n - i;
        unsigned count = left >= 255 ? 255 : (unsigned)left;
        vp_wbuf_u8(b, (uint8_t)count);
        for (unsigned j = 0; j < count; j++)
            put(b, elems, i++);
        if (count < 255)
            break;
    }
}

static void sample_put(vp_wbuf *b, const void *elems, size_t i)
{
    const vp_dlag_wsample *s = (const vp_dlag_wsample *)elems + i;
    vp_wbuf_f32(b, s->value);
    vp_wbuf_u32(b, s->time);
    vp_wbuf_u32(b, s->unknown);
}

static void graph_state_put(vp_wbuf *b, const void *elems, size_t i)
{
    const vp_dlag_wgraph_state *g = (const vp_dlag_wgraph_state *)elems + i;
    vp_wbuf_u16(b, g->measurement_count);
    if (g->bitfield)
        vp_wbuf_bytes(b, g->bitfield, g->bitfield_len);
    else
        vp_wbuf_zero(b, ((size_t)(g->measurement_count / 64) + 1) * 8);
    for (int k = 0; k < 4; k++)
        vp_wbuf_f32(b, g->offset[k]);
    for (int k = 0; k < 4; k++)
        vp_wbuf_f32(b, g->scale[k]);
    vp_wbuf_u8(b, g->print_titles);
    vp_wbuf_u8(b, g->unknown);
}

static vp_errcode phase_enter(vp_dlag_writer *w, int phase, vp_error *err)
{
    header_emit(w);
    if (w->phase > phase || (w->phase == phase && phase != PH_MEASUREMENTS && phase != PH_HOPS))
        return vp_fail(err, VP_EFORMAT, UINT64_MAX, "%s cannot be written after %s",
                       phase_names[phase], phase_names[w->phase]);
    /* Complete the parts in between as a real export would have them. */
    if (w->phase < PH_GRAPH_STATES && phase > PH_GRAPH_STATES)
        vp_wbuf_u8(&w->buf, 0);
    if (w->phase < PH_HOST && phase > PH_HOST)
        vp_wbuf_u8(&w->buf, 0);
    w->phase = phase;
    return VP_OK;
}

vp_errcode vp_dlag_writer_measurement(vp_dlag_writer *w, const vp_dlag_wsample *s, size_t n,
                                      const vp_dlag_wframing *f, vp_error *err)
{
    vp_errcode rc = phase_enter(w, PH_MEASUREMENTS, err);
    if (rc)
        return rc;
    w->measurements++;
    vp_wbuf_u32(&w->buf, f && f->has_total ? f->total : (uint32_t)n);
    chunked_put(&w->buf, n, f, sample_put, s);
    return VP_OK;
}

vp_errcode vp_dlag_writer_graph_states(vp_dlag_writer *w, const vp_dlag_wgraph_state *gs,
                                       size_t n, const vp_dlag_wframing *f, vp_error *err)
{
    vp_errcode rc = phase_enter(w, PH_GRAPH_STATES, err);
    if (rc)
        return rc;
    chunked_put(&w->buf, n, f, graph_state_put, gs);
    return VP_OK;
}

vp_errcode vp_dlag_writer_host(vp_dlag_writer *w, const char *host, int nul, vp_error *err)
{
    vp_errcode rc = phase_enter(w, PH_HOST, err);
    if (rc)
        return rc;
    vp_wbuf_bytes(&w->buf, host, strlen(host) + (nul ? 1 : 0));
    return VP_OK;
}

vp_errcode vp_dlag_writer_hop(vp_dlag_writer *w, const vp_dlag_whop *h, vp_error *err)
{
    vp_errcode rc = phase_enter(w, PH_HOPS, err);
    if (rc)
        return rc;
    vp_wbuf_bytes(&w->buf, h->address, 4);
    chunked_put(&w->buf, h->nsamples, &h->framing, sample_put, h->samples);
    vp_wbuf_cstr(&w->buf, h->name ? h->name : "");
    vp_wbuf_u8(&w->buf, h->unknown_u8_1);
    vp_wbuf_u32(&w->buf, h->unknown_u32);
    for (int k = 0; k < 4; k++)
        vp_wbuf_f32(&w->buf, h->unknown_floats[k]);
    vp_wbuf_u8(&w->buf, h->unknown_u8_2);
    return VP_OK;
}

void vp_dlag_writer_raw(vp_dlag_writer *w, const void *p, size_t n)
{
    header_emit(w);
    vp_wbuf_bytes(&w->buf, p, n);
}

void vp_dlag_writer_truncate(vp_dlag_writer *w, size_t n)
{
    w->has_cut = 1;
    w->cut = n;
}

size_t vp_dlag_writer_size(vp_dlag_writer *w)
{
    header_emit(w);
    return w->buf.len;
}

const uint8_t *vp_dlag_writer_bytes(vp_dlag_writer *w, size_t *len, vp_error *err)
{
    header_emit(w);
    w->out.len = 0;
    vp_wbuf_bytes(&w->out, w->buf.data, w->buf.len);
    /* Completed on the copy, so the writer can go on after a look. */
    if (!w->o.no_complete) {
        if (w->phase < PH_GRAPH_STATES)
            vp_wbuf_u8(&w->out, 0);
        if (w->phase < PH_HOST)
            vp_wbuf_u8(&w->out, 0);
    }
    if (w->buf.oom || w->out.oom) {
        vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory building the .dlag file");
        return NULL;
    }
    uint32_t mc = w->o.has_measurement_count ? w->o.measurement_count : w->measurements;
    uint8_t *p = w->out.data + 4;
    p[0] = (uint8_t)mc;
    p[1] = (uint8_t)(mc >> 8);
    p[2] = (uint8_t)(mc >> 16);
    p[3] = (uint8_t)(mc >> 24);
    *len = w->has_cut && w->cut < w->out.len ? w->cut : w->out.len;
    return w->out.data;
}

vp_errcode vp_dlag_writer_save(vp_dlag_writer *w, const char *path, vp_error *err)
{
    size_t len;
    const uint8_t *p = vp_dlag_writer_bytes(w, &len, err);
    if (!p)
        return VP_ENOMEM;
    FILE *f = fopen(path, "wb");
    if (!f)
        return vp_fail(err, VP_EIO, UINT64_MAX, "cannot create %s: %s", path, strerror(errno));
    size_t put = len ? fwrite(p, 1, len, f) : 0;
    int e = errno;
    if (fclose(f) != 0) {
        if (put == len)
            e = errno;
        put = len + 1;
    }
    if (put != len)
        return vp_fail(err, VP_EIO, UINT64_MAX, "cannot write %s: %s", path, strerror(e));
    return VP_OK;
}
