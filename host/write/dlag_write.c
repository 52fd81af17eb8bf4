#include "write/dlag_write.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "write/trace_write.h"
#include "write/wbuf.h"

/* How far the file has got, in file order. */
enum { PH_HEADER, PH_MEASUREMENTS, PH_GRAPH_STATES, PH_HOST, PH_HOPS };

static const char *const phase_names[] = {"the header", "the measurements", "the graph states",
                                          "the traceroute host", "the tail records"};

struct vp_dlag_writer {
    vp_dlag_wopts o;
    vp_wfile file;
    int phase;
    uint32_t measurements;
};

vp_dlag_writer *vp_dlag_writer_open(const char *path, const vp_dlag_wopts *o, vp_error *err)
{
    static const vp_dlag_wopts zero;
    vp_dlag_writer *w = vp_trace_writer_new(sizeof *w, offsetof(vp_dlag_writer, file),
                                            VP_TW_MEMORY, path, err);
    if (w)
        w->o = o ? *o : zero;
    return w;
}

static void header_emit(vp_dlag_writer *w)
{
    if (w->phase != PH_HEADER)
        return;
    vp_wbuf_u32(&w->file.buf, w->o.time);
    vp_wbuf_u32(&w->file.buf, 0); /* measurement count, filled in at the end */
    w->phase = PH_MEASUREMENTS;
}

/* Elements for vp_chunked_write_framed: they only read the array at ud,
 * which callers pass without its const. */
static int sample_put(void *ud, vp_wbuf *b, uint64_t i)
{
    const vp_dlag_wsample *s = (const vp_dlag_wsample *)ud + i;
    vp_wbuf_f32(b, s->value);
    vp_wbuf_u32(b, s->time);
    vp_wbuf_u32(b, s->unknown);
    return 1;
}

static int graph_state_put(void *ud, vp_wbuf *b, uint64_t i)
{
    const vp_dlag_wgraph_state *g = (const vp_dlag_wgraph_state *)ud + i;
    vp_wbuf_u16(b, g->measurement_count);
    if (g->bitfield)
        vp_wbuf_bytes(b, g->bitfield, g->bitfield_len);
    else
        vp_bitfield_write(b, g->measurement_count, NULL, NULL);
    for (int k = 0; k < 4; k++)
        vp_wbuf_f32(b, g->offset[k]);
    for (int k = 0; k < 4; k++)
        vp_wbuf_f32(b, g->scale[k]);
    vp_wbuf_u8(b, g->print_titles);
    vp_wbuf_u8(b, g->unknown);
    return 1;
}

static vp_errcode phase_enter(vp_dlag_writer *w, int phase, vp_error *err)
{
    header_emit(w);
    if (w->phase > phase || (w->phase == phase && phase != PH_MEASUREMENTS && phase != PH_HOPS))
        return vp_fail(err, VP_EFORMAT, UINT64_MAX, "%s cannot be written after %s",
                       phase_names[phase], phase_names[w->phase]);
    /* Complete the parts in between as a real export would have them. */
    if (w->phase < PH_GRAPH_STATES && phase > PH_GRAPH_STATES)
        vp_wbuf_u8(&w->file.buf, 0);
    if (w->phase < PH_HOST && phase > PH_HOST)
        vp_wbuf_u8(&w->file.buf, 0);
    w->phase = phase;
    return VP_OK;
}

vp_errcode vp_dlag_writer_measurement(vp_dlag_writer *w, const vp_dlag_wsample *s, size_t n,
                                      const vp_wframing *f, vp_error *err)
{
    vp_errcode rc = phase_enter(w, PH_MEASUREMENTS, err);
    if (rc)
        return rc;
    w->measurements++;
    vp_totaled_write_framed(&w->file.buf, n, f, sample_put, (void *)s);
    return VP_OK;
}

vp_errcode vp_dlag_writer_graph_states(vp_dlag_writer *w, const vp_dlag_wgraph_state *gs,
                                       size_t n, const vp_wframing *f, vp_error *err)
{
    vp_errcode rc = phase_enter(w, PH_GRAPH_STATES, err);
    if (rc)
        return rc;
    vp_chunked_write_framed(&w->file.buf, n, f, graph_state_put, (void *)gs);
    return VP_OK;
}

vp_errcode vp_dlag_writer_host(vp_dlag_writer *w, const char *host, int nul, vp_error *err)
{
    vp_errcode rc = phase_enter(w, PH_HOST, err);
    if (rc)
        return rc;
    vp_wbuf_bytes(&w->file.buf, host, strlen(host) + (nul ? 1 : 0));
    return VP_OK;
}

vp_errcode vp_dlag_writer_hop(vp_dlag_writer *w, const vp_dlag_whop *h, vp_error *err)
{
    vp_errcode rc = phase_enter(w, PH_HOPS, err);
    if (rc)
        return rc;
    vp_wbuf *b = &w->file.buf;
    vp_wbuf_bytes(b, h->address, 4);
    vp_chunked_write_framed(b, h->nsamples, &h->framing, sample_put, (void *)h->samples);
    vp_wbuf_cstr(b, h->name ? h->name : "");
    vp_wbuf_u8(b, h->unknown_u8_1);
    vp_wbuf_u32(b, h->unknown_u32);
    for (int k = 0; k < 4; k++)
        vp_wbuf_f32(b, h->unknown_floats[k]);
    vp_wbuf_u8(b, h->unknown_u8_2);
    return VP_OK;
}

const uint8_t *vp_dlag_writer_data(vp_dlag_writer *w, size_t *len, vp_error *err)
{
    header_emit(w);
    vp_wbuf *out = vp_wfile_copy(&w->file);
    /* Completed on the copy, so the writer can go on after a look. */
    if (!w->o.no_complete) {
        if (w->phase < PH_GRAPH_STATES)
            vp_wbuf_u8(out, 0);
        if (w->phase < PH_HOST)
            vp_wbuf_u8(out, 0);
    }
    uint32_t mc = w->o.has_measurement_count ? w->o.measurement_count : w->measurements;
    return vp_wfile_done(&w->file, 4, mc, "the .dlag file", len, err);
}

/* vp_dlag_writer_raw, _truncate, _tell and _close (trace_write.h); the
 * writer owns nothing but its file. */
VP_WFILE_WRITER(dlag, header_emit, free)
