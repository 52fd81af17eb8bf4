#include "formats/dlag.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cursor.h"
#include "formats/trace_common.h"

/* Positional: entry k is measurement index k + 1. Index 59 repeats "Total
 * Objects" (44 is the first), as the overlay's own table does. */
static const char *const measurement_names[VP_DLAG_NAME_COUNT] = {
    /* page 0 */
    "Client Frame", "Server Frame", "Server Update Rate", "Local Gateway",
    "Local Gateway dropped", "The Internets", "The Internets dropped", "Socket RTT",
    /* page 1 */
    "Packet Downloss", "Packet Upploss", "Client Application Ping", "Server Application Ping",
    "Server Player Input Delay", "Server PInput Delay Sample", "Gameplay Buffering",
    "Client Lateness",
    /* page 2 */
    "Server Lateness", "Probed MTU", "Game Messages Sent", "Game Messages Received",
    "Game Bytes Sent", "Game Bytes Received", "Game Compression Ratio", "Game Packets/Second",
    /* page 3 */
    "Game Bytes/Second", "Game Shaped Bytes", "Client Source", "Matrix Upstream", "GSS Received",
    "GSS Object Processed", "Matrix Downstream", "Client Final",
    /* page 4 */
    "Simulated Objects", "Update Starved Maximum", "Update Starved Average",
    "Late Update Maximum", "Late Update Average", "Update Requests", "Rejected Update Requests",
    "Reordered Objects",
    /* page 5 */
    "Priority Inversions", "Dropped Priority Updates", "Simulation Duration", "Total Objects",
    "Matrix Frame", "Matrix Update Duration", "Keyframes Requested", "Keyframes Queued",
    /* page 6 */
    "Keyframe Delay", "Matrix Bytes/Second", "Batching Delay", "Total Budget",
    "Keyframes Budget", "Reserved Budget", "Unreliable Budget", "Raia Frame",
    /* page 7 */
    "Raia Update Duration", "Updated Objects", "Total Objects", "VT Used Bandwidth",
    "Movement Confirmed Period", "Movement Validations", "Movement Simulation Time",
    "Movement Correction Length",
    /* page 8 */
    "Remote Extrapolation Time", "Remote Extrapolation Length", "Clock Smoothing Delta",
    "Clock Gameplay Delta", "Last Send", "Last Received", "Rate", "MPH",
    /* page 9 */
    "RPM",
};

const char *vp_dlag_measurement_name(uint32_t index)
{
    return index >= 1 && index <= VP_DLAG_NAME_COUNT ? measurement_names[index - 1] : NULL;
}

uint32_t vp_dlag_measurement_page(uint32_t index)
{
    return index ? (index - 1) / VP_DLAG_PAGE_SIZE : 0;
}

/* Smallest measurement on disk: u32 total + the count byte of an empty
 * array. */
#define MEASUREMENT_MIN 5
/* Smallest graph state: u16 count, an 8-byte bitfield, 2 x f32[4], 2 x u8. */
#define GRAPH_STATE_MIN (2 + 8 + 32 + 2)

static vp_errcode samples_index(vp_cursor *c, vp_dlag_samples *s, const char *what,
                                vp_error *err)
{
    s->array_off = vp_cursor_off(c);
    vp_errcode rc = vp_chunked_skip_fixed(c, VP_DLAG_SAMPLE_SIZE, what, &s->count, err);
    return rc;
}

static vp_errcode graph_state_read(vp_cursor *c, uint64_t i, vp_dlag_graph_state *gs,
                                   vp_error *err)
{
    char what[80];
    unsigned long long n = (unsigned long long)i + 1;
    gs->offset = vp_cursor_off(c);
    snprintf(what, sizeof what, "the u16 measurement_count of graph state %llu", n);
    vp_errcode rc = vp_field_u16(c, &gs->measurement_count, what, err);
    if (rc)
        return rc;
    snprintf(what, sizeof what, "graph state %llu bitfield", n);
    const uint8_t *bits;
    gs->bitfield_off = vp_cursor_off(c);
    if ((rc = vp_bitfield_read(c, gs->measurement_count, what, &bits, &gs->bitfield_len, err)))
        return rc;
    snprintf(what, sizeof what, "the Vec4f offset of graph state %llu", n);
    if ((rc = vp_field_f32s(c, gs->offset_v, 4, what, err)))
        return rc;
    snprintf(what, sizeof what, "the Vec4f scale of graph state %llu", n);
    if ((rc = vp_field_f32s(c, gs->scale, 4, what, err)))
        return rc;
    snprintf(what, sizeof what, "the u8 print_titles and u8 unknown of graph state %llu", n);
    if ((rc = vp_need(c, 2, what, err)))
        return rc;
    vp_rd_u8(c, &gs->print_titles);
    vp_rd_u8(c, &gs->unknown);
    return VP_OK;
}

static vp_errcode hop_read(vp_cursor *c, uint64_t i, vp_dlag_hop *h, vp_error *err)
{
    char what[80];
    unsigned long long n = (unsigned long long)i + 1;
    vp_errcode rc;
    h->offset = vp_cursor_off(c);
    snprintf(what, sizeof what, "the u8[4] address of tail record %llu", n);
    if ((rc = vp_field_bytes(c, h->address, 4, what, err)))
        return rc;
    snprintf(what, sizeof what, "tail record %llu samples", n);
    if ((rc = samples_index(c, &h->samples, what, err)))
        return rc;
    snprintf(what, sizeof what, "name of tail record %llu", n);
    if ((rc = vp_field_cstr(c, &h->name_off, &h->name_len, what, err)))
        return rc;
    snprintf(what, sizeof what, "the u8, u32, f32 x 4 and u8 closing tail record %llu", n);
    if ((rc = vp_need(c, 1 + 4 + 16 + 1, what, err)))
        return rc;
    vp_rd_u8(c, &h->unknown_u8_1);
    vp_rd_u32(c, &h->unknown_u32);
    vp_rd_f32s(c, h->unknown_floats, 4);
    vp_rd_u8(c, &h->unknown_u8_2);
    return VP_OK;
}

/* Append to a growable offset table; its length is bounded by the caller
 * (every entry stands for a record proven to be in the file). */
static int offs_push(uint64_t **offs, uint64_t n, uint64_t *cap, uint64_t v)
{
    if (n == *cap) {
        uint64_t ncap = *cap ? *cap * 2 : 16;
        uint64_t *p = realloc(*offs, (size_t)ncap * sizeof *p);
        if (!p)
            return 0;
        *offs = p;
        *cap = ncap;
    }
    (*offs)[n] = v;
    return 1;
}

/* A cut: a strict open fails with it; a lenient one keeps every complete
 * record read so far and warns. Either way the index ends here. */
static vp_errcode dlag_cut(vp_dlag *d, int strict, const vp_error *cut, vp_error *err)
{
    if (strict) {
        *err = *cut;
        return cut->code;
    }
    d->truncated = 1;
    vp_warn(&d->warnings,
            "%s; the file is truncated: kept %u measurement%s (%llu complete sample%s) and %llu "
            "graph state%s",
            cut->msg, d->measurement_count, d->measurement_count == 1 ? "" : "s",
            (unsigned long long)d->sample_count, d->sample_count == 1 ? "" : "s",
            (unsigned long long)d->graph_state_count, d->graph_state_count == 1 ? "" : "s");
    return VP_OK;
}

/* vp_src_parse callbacks: graph state i, tail record i (rec_ctx: the
 * 0-based index and the record decoded). */
typedef struct rec_ctx {
    uint64_t i;
    union {
        vp_dlag_graph_state gs;
        vp_dlag_hop h;
    } u;
} rec_ctx;

static vp_errcode gs_parse(vp_cursor *c, void *ctx, vp_error *err)
{
    return graph_state_read(c, ((rec_ctx *)ctx)->i, &((rec_ctx *)ctx)->u.gs, err);
}

static vp_errcode hop_parse(vp_cursor *c, void *ctx, vp_error *err)
{
    return hop_read(c, ((rec_ctx *)ctx)->i, &((rec_ctx *)ctx)->u.h, err);
}

/* A cut, or a failure of the source (never kept as a cut). */
static vp_errcode dlag_stop(vp_dlag *d, int strict, vp_errcode rc, const vp_error *cut,
                            vp_error *err)
{
    if (vp_src_failed(rc)) {
        *err = *cut;
        return rc;
    }
    return dlag_cut(d, strict, cut, err);
}

static vp_errcode dlag_index(void *model, int strict, vp_error *err)
{
    vp_dlag *d = model;
    vp_src *s = &d->src;
    const uint64_t size = s->size;
    vp_errcode rc;
    /* The header: without it there is nothing to keep. */
    if ((rc = vp_src_u32(s, 0, &d->time, "the u32 time", err)))
        return rc;
    d->count_off = 4;
    if ((rc = vp_src_u32(s, 4, &d->header_measurement_count, "the u32 measurement count", err)))
        return rc;
    uint64_t pos = 8;
    /* More measurements than the bytes left can hold: a strict open refuses
     * the count; a lenient one reads the measurements that are there. The
     * allocation is bounded by the file either way (each has its u32). */
    uint32_t fit = d->header_measurement_count;
    uint64_t left = size - pos;
    if ((uint64_t)fit * MEASUREMENT_MIN > left) {
        if (strict)
            return vp_fail(err, VP_ELIMIT, d->count_off,
                           "measurement count %u needs at least %llu bytes (%d per measurement), "
                           "only %llu left",
                           fit, (unsigned long long)fit * MEASUREMENT_MIN, MEASUREMENT_MIN,
                           (unsigned long long)left);
        fit = (uint32_t)(left / 4);
    }
    if (fit) {
        d->measurements = calloc(fit, sizeof *d->measurements);
        if (!d->measurements)
            return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory for %u measurements", fit);
    }
    vp_error cut;
    uint64_t mismatches = 0;
    for (uint32_t k = 0; k < d->header_measurement_count; k++) {
        const char *name = vp_dlag_measurement_name(k + 1);
        char what[96];
        uint64_t at = pos;
        uint32_t total = 0;
        snprintf(what, sizeof what, "the u32 total of measurement %u", k + 1);
        /* Past `fit` fewer than 4 bytes are left: vp_src_u32 says the total is cut. */
        rc = vp_src_u32(s, pos, &total, what, &cut);
        if (rc == VP_OK && k >= fit) /* cannot happen: fit covers every u32 */
            rc = vp_fail(&cut, VP_ETRUNC, pos, "%s: past the measurements that fit", what);
        if (rc)
            return dlag_stop(d, strict, rc, &cut, err);
        pos += 4;
        vp_dlag_measurement *m = &d->measurements[k];
        m->index = k + 1;
        m->total = total;
        if (name)
            snprintf(what, sizeof what, "measurement %u (%s) samples", k + 1, name);
        else
            snprintf(what, sizeof what, "measurement %u samples", k + 1);
        m->samples.array_off = pos;
        rc = vp_chunked_skip_src(s, &pos, size, VP_DLAG_SAMPLE_SIZE, what, &m->samples.count, &cut);
        if (vp_src_failed(rc))
            return dlag_stop(d, strict, rc, &cut, err);
        d->measurement_count++;
        d->sample_count += m->samples.count;
        if (rc)
            return dlag_cut(d, strict, &cut, err);
        /* A hostile file may disagree in every measurement: name the first
         * few, count the rest once at the end. */
        if (m->samples.count != m->total && mismatches++ < VP_DLAG_WARN_EACH)
            vp_warn(&d->warnings,
                    "at byte %llu: measurement %u total says %u samples, the array holds %llu",
                    (unsigned long long)at, k + 1, m->total,
                    (unsigned long long)m->samples.count);
    }
    if (mismatches > VP_DLAG_WARN_EACH)
        vp_warn(&d->warnings,
                "%llu more measurements have a total that disagrees with their array",
                (unsigned long long)(mismatches - VP_DLAG_WARN_EACH));

    /* A strict open proves each block of graph states fits before reading
     * it; a lenient one reads the states one by one, so that a cut keeps
     * the complete ones (the offset table grows with states proven in the
     * file, so it stays bounded). */
    d->graph_states_off = pos;
    vp_chunked it;
    vp_chunked_begin(&it);
    uint64_t cap = 0;
    int r;
    while ((r = vp_chunked_next_src(&it, s, &pos, size, strict ? GRAPH_STATE_MIN : 0,
                                    "graph states", &cut)) > 0) {
        rec_ctx x = {.i = d->graph_state_count};
        rc = vp_src_parse(s, pos, size, gs_parse, &x, &pos, &cut);
        if (rc)
            return dlag_stop(d, strict, rc, &cut, err);
        if (!offs_push(&d->graph_state_offs, d->graph_state_count, &cap, x.u.gs.offset))
            return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory for graph states");
        d->graph_state_count++;
    }
    if (r < 0)
        return dlag_stop(d, strict, cut.code, &cut, err);

    d->host_off = pos;
    if ((rc = vp_src_cstr(s, pos, size, "traceroute host", &d->host_len, &cut)))
        return dlag_stop(d, strict, rc, &cut, err);
    d->have_host = 1;
    pos += d->host_len + 1;

    d->hops_off = pos;
    cap = 0;
    while (pos < size) {
        rec_ctx x = {.i = d->hop_count};
        uint64_t at = pos;
        rc = vp_src_parse(s, pos, size, hop_parse, &x, &pos, &cut);
        if (vp_src_failed(rc)) {
            *err = cut;
            return rc;
        }
        if (rc) {
            if (strict) {
                *err = cut;
                return cut.code;
            }
            d->truncated = 1;
            d->trailing_bytes = size - at;
            vp_warn(&d->warnings, "%s; the last %llu bytes (from byte %llu) were ignored", cut.msg,
                    (unsigned long long)d->trailing_bytes, (unsigned long long)at);
            break;
        }
        if (!offs_push(&d->hop_offs, d->hop_count, &cap, at))
            return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory for tail records");
        d->hop_count++;
    }
    return VP_OK;
}

/* The measurements and the offsets of the graph states and tail records: what the model owns besides its source and warnings. */
static void dlag_free_arrays(vp_dlag *d)
{
    free(d->measurements);
    free(d->graph_state_offs);
    free(d->hop_offs);
}

/* vp_dlag_open, vp_dlag_open_mem, vp_dlag_free (trace_common.h). */
VP_TRACE_READER(dlag, dlag_index, dlag_free_arrays)

const uint8_t *vp_dlag_bytes(vp_dlag *d, uint64_t off, size_t len, vp_error *err)
{
    static const uint8_t none[1];
    if (len == 0)
        return none;
    return vp_src_get(&d->src, off, len, NULL, err);
}

int vp_dlag_sample_get(vp_dlag *d, const vp_dlag_samples *s, uint64_t i, vp_dlag_sample *out,
                       vp_error *err)
{
    if (i >= s->count) {
        vp_fail(err, VP_EFORMAT, UINT64_MAX, "no sample %llu (the array holds %llu)",
                (unsigned long long)i + 1, (unsigned long long)s->count);
        return 0;
    }
    /* One count byte before each block of 255 elements. */
    uint64_t off = s->array_off + i / 255 + 1 + i * VP_DLAG_SAMPLE_SIZE;
    if (off > d->src.size || d->src.size - off < VP_DLAG_SAMPLE_SIZE) {
        vp_fail(err, VP_ETRUNC, off, "sample %llu runs past the end of the file",
                (unsigned long long)i + 1);
        return 0;
    }
    vp_cursor c;
    if (vp_src_cursor(&d->src, off, VP_DLAG_SAMPLE_SIZE, &c, err) != VP_OK)
        return 0;
    vp_rd_f32(&c, &out->value);
    vp_rd_u32(&c, &out->time);
    vp_rd_u32(&c, &out->unknown);
    return 1;
}

vp_series *vp_dlag_series(vp_dlag *d, const vp_dlag_samples *s, int which, vp_error *err)
{
    vp_series *r = vp_series_new((size_t)s->count);
    if (!r) {
        vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory for %llu samples",
                (unsigned long long)s->count);
        return NULL;
    }
    for (uint64_t i = 0; i < s->count; i++) {
        vp_dlag_sample sm;
        if (!vp_dlag_sample_get(d, s, i, &sm, err)) {
            vp_series_unref(r);
            return NULL;
        }
        if (!vp_series_push(r, which ? (double)sm.time : (double)sm.value)) {
            vp_series_unref(r);
            vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory for %llu samples",
                    (unsigned long long)s->count);
            return NULL;
        }
    }
    return r;
}

/* Decode record x->i of the `count` indexed at open (file offsets `offs`)
 * with fn into x: 1, or 0 with err filled (`what` names the record when
 * the index is out of range). */
static int indexed_get(vp_dlag *d, const uint64_t *offs, uint64_t count, const char *what,
                       vp_src_parse_fn fn, rec_ctx *x, vp_error *err)
{
    if (x->i >= count) {
        vp_fail(err, VP_EFORMAT, UINT64_MAX, "no %s %llu", what, (unsigned long long)x->i + 1);
        return 0;
    }
    return vp_src_parse(&d->src, offs[x->i], d->src.size, fn, x, NULL, err) == VP_OK;
}

int vp_dlag_graph_state_get(vp_dlag *d, uint64_t i, vp_dlag_graph_state *out, vp_error *err)
{
    rec_ctx x = {.i = i};
    if (!indexed_get(d, d->graph_state_offs, d->graph_state_count, "graph state", gs_parse, &x,
                     err))
        return 0;
    *out = x.u.gs;
    return 1;
}

int vp_dlag_hop_get(vp_dlag *d, uint64_t i, vp_dlag_hop *out, vp_error *err)
{
    rec_ctx x = {.i = i};
    if (!indexed_get(d, d->hop_offs, d->hop_count, "tail record", hop_parse, &x, err))
        return 0;
    *out = x.u.h;
    return 1;
}
