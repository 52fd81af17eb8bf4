#include "formats/dlag.h"

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
/* Smallest tail record: address, empty array, empty string, u8, u32,
 * f32 x 4, u8. */
#define HOP_MIN (4 + 1 + 1 + 1 + 4 + 16 + 1)

static vp_errcode rd_u32(vp_cursor *c, uint32_t *v, const char *field, vp_error *err)
{
    uint64_t off = vp_cursor_off(c);
    if (vp_rd_u32(c, v))
        return VP_OK;
    return vp_fail(err, VP_ETRUNC, off,
                   "expected the u32 %s, found the end of the file (%zu bytes left)", field,
                   vp_cursor_left(c));
}

static vp_errcode rd_fixed(vp_cursor *c, void *dst, size_t n, const char *field, vp_error *err)
{
    uint64_t off = vp_cursor_off(c);
    if (vp_rd_bytes(c, dst, n))
        return VP_OK;
    return vp_fail(err, VP_ETRUNC, off,
                   "expected %s (%zu bytes), found the end of the file (%zu bytes left)", field,
                   n, vp_cursor_left(c));
}

static vp_errcode rd_f32s(vp_cursor *c, float *v, int n, const char *field, vp_error *err)
{
    uint64_t off = vp_cursor_off(c);
    for (int k = 0; k < n; k++)
        if (!vp_rd_f32(c, &v[k])) {
            c->p = c->start + (off - c->base_off);
            return vp_fail(err, VP_ETRUNC, off,
                           "expected %s (%d x f32), found the end of the file (%zu bytes left)",
                           field, n, vp_cursor_left(c));
        }
    return VP_OK;
}

static vp_errcode rd_cstr(vp_cursor *c, uint64_t *soff, size_t *len, const char *field,
                          vp_error *err)
{
    uint64_t off = vp_cursor_off(c);
    const char *s;
    if (vp_rd_cstr(c, &s, len)) {
        *soff = off;
        return VP_OK;
    }
    return vp_fail(err, VP_ETRUNC, off,
                   "expected the NUL-terminated %s, no NUL in the %zu bytes left", field,
                   vp_cursor_left(c));
}

static vp_errcode samples_index(vp_cursor *c, vp_dlag_samples *s, const char *what,
                                vp_error *err)
{
    s->array_off = vp_cursor_off(c);
    vp_errcode rc = vp_chunked_skip_fixed(c, VP_DLAG_SAMPLE_SIZE, what, &s->count, err);
    s->end_off = vp_cursor_off(c);
    return rc;
}

static vp_errcode graph_state_read(vp_cursor *c, uint64_t i, vp_dlag_graph_state *gs,
                                   vp_error *err)
{
    char what[64];
    gs->offset = vp_cursor_off(c);
    if (!vp_rd_u16(c, &gs->measurement_count))
        return vp_fail(err, VP_ETRUNC, gs->offset,
                       "expected the u16 measurement_count of graph state %llu, found the end "
                       "of the file",
                       (unsigned long long)i + 1);
    snprintf(what, sizeof what, "graph state %llu bitfield", (unsigned long long)i + 1);
    const uint8_t *bits;
    gs->bitfield_off = vp_cursor_off(c);
    vp_errcode rc = vp_bitfield_read(c, gs->measurement_count, what, &bits, &gs->bitfield_len,
                                     err);
    if (rc)
        return rc;
    snprintf(what, sizeof what, "graph state %llu offset", (unsigned long long)i + 1);
    if ((rc = rd_f32s(c, gs->offset_v, 4, what, err)))
        return rc;
    snprintf(what, sizeof what, "graph state %llu scale", (unsigned long long)i + 1);
    if ((rc = rd_f32s(c, gs->scale, 4, what, err)))
        return rc;
    uint8_t two[2];
    snprintf(what, sizeof what, "graph state %llu print_titles and unknown",
             (unsigned long long)i + 1);
    if ((rc = rd_fixed(c, two, 2, what, err)))
        return rc;
    gs->print_titles = two[0];
    gs->unknown = two[1];
    return VP_OK;
}

static vp_errcode hop_read(vp_cursor *c, uint64_t i, vp_dlag_hop *h, vp_error *err)
{
    char what[64];
    vp_errcode rc;
    h->offset = vp_cursor_off(c);
    snprintf(what, sizeof what, "the address of tail record %llu", (unsigned long long)i + 1);
    if ((rc = rd_fixed(c, h->address, 4, what, err)))
        return rc;
    snprintf(what, sizeof what, "tail record %llu samples", (unsigned long long)i + 1);
    if ((rc = samples_index(c, &h->samples, what, err)))
        return rc;
    snprintf(what, sizeof what, "name of tail record %llu", (unsigned long long)i + 1);
    if ((rc = rd_cstr(c, &h->name_off, &h->name_len, what, err)))
        return rc;
    uint8_t b[5];
    snprintf(what, sizeof what, "the u8 and u32 of tail record %llu", (unsigned long long)i + 1);
    if ((rc = rd_fixed(c, b, 5, what, err)))
        return rc;
    h->unknown_u8_1 = b[0];
    h->unknown_u32 = (uint32_t)b[1] | (uint32_t)b[2] << 8 | (uint32_t)b[3] << 16 |
                     (uint32_t)b[4] << 24;
    snprintf(what, sizeof what, "the floats of tail record %llu", (unsigned long long)i + 1);
    if ((rc = rd_f32s(c, h->unknown_floats, 4, what, err)))
        return rc;
    snprintf(what, sizeof what, "the last u8 of tail record %llu", (unsigned long long)i + 1);
    return rd_fixed(c, &h->unknown_u8_2, 1, what, err);
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

static vp_errcode dlag_index(vp_dlag *d, vp_error *err)
{
    vp_cursor c;
    vp_cursor_init(&c, d->map.data, (size_t)d->map.size, 0);
    vp_errcode rc;
    if ((rc = rd_u32(&c, &d->time, "time", err)))
        return rc;
    d->count_off = vp_cursor_off(&c);
    if ((rc = rd_u32(&c, &d->measurement_count, "measurement count", err)))
        return rc;
    if ((uint64_t)d->measurement_count * MEASUREMENT_MIN > vp_cursor_left(&c))
        return vp_fail(err, VP_ELIMIT, d->count_off,
                       "measurement count %u needs at least %llu bytes (%d per measurement), "
                       "only %zu left",
                       d->measurement_count,
                       (unsigned long long)d->measurement_count * MEASUREMENT_MIN,
                       MEASUREMENT_MIN, vp_cursor_left(&c));
    if (d->measurement_count) {
        d->measurements = calloc(d->measurement_count, sizeof *d->measurements);
        if (!d->measurements)
            return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory for %u measurements",
                           d->measurement_count);
    }
    for (uint32_t k = 0; k < d->measurement_count; k++) {
        vp_dlag_measurement *m = &d->measurements[k];
        const char *name = vp_dlag_measurement_name(k + 1);
        char what[96];
        m->index = k + 1;
        m->offset = vp_cursor_off(&c);
        snprintf(what, sizeof what, "total of measurement %u", k + 1);
        if ((rc = rd_u32(&c, &m->total, what, err)))
            return rc;
        if (name)
            snprintf(what, sizeof what, "measurement %u (%s) samples", k + 1, name);
        else
            snprintf(what, sizeof what, "measurement %u samples", k + 1);
        if ((rc = samples_index(&c, &m->samples, what, err)))
            return rc;
        d->sample_count += m->samples.count;
        if (m->samples.count != m->total)
            vp_warn(&d->warnings,
                    "at byte %llu: measurement %u total says %u samples, the array holds %llu",
                    (unsigned long long)m->offset, k + 1, m->total,
                    (unsigned long long)m->samples.count);
    }

    d->graph_states_off = vp_cursor_off(&c);
    vp_chunked it;
    vp_chunked_begin(&it);
    uint64_t cap = 0;
    int r;
    while ((r = vp_chunked_next(&it, &c, GRAPH_STATE_MIN, "graph states", err)) > 0) {
        vp_dlag_graph_state gs;
        if ((rc = graph_state_read(&c, d->graph_state_count, &gs, err)))
            return rc;
        if (!offs_push(&d->graph_state_offs, d->graph_state_count, &cap, gs.offset))
            return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory for graph states");
        d->graph_state_count++;
    }
    if (r < 0)
        return err ? err->code : VP_ETRUNC;

    if ((rc = rd_cstr(&c, &d->host_off, &d->host_len, "traceroute host", err)))
        return rc;

    d->hops_off = vp_cursor_off(&c);
    cap = 0;
    while (vp_cursor_left(&c)) {
        vp_dlag_hop h;
        uint64_t at = vp_cursor_off(&c);
        vp_error herr;
        if (hop_read(&c, d->hop_count, &h, &herr)) {
            d->trailing_bytes = d->map.size - at;
            vp_warn(&d->warnings, "%s; the last %llu bytes (from byte %llu) were ignored",
                    herr.msg, (unsigned long long)d->trailing_bytes, (unsigned long long)at);
            break;
        }
        if (!offs_push(&d->hop_offs, d->hop_count, &cap, at))
            return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory for tail records");
        d->hop_count++;
    }
    return VP_OK;
}

static vp_errcode dlag_finish(vp_dlag *d, vp_dlag **out, vp_error *err)
{
    vp_errcode rc = dlag_index(d, err);
    if (rc) {
        vp_dlag_free(d);
        return rc;
    }
    *out = d;
    return VP_OK;
}

vp_errcode vp_dlag_open(vp_dlag **out, const char *path, vp_error *err)
{
    *out = NULL;
    vp_dlag *d = calloc(1, sizeof *d);
    if (!d)
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    vp_errcode rc = vp_map_open(&d->map, path, err);
    if (rc) {
        free(d);
        return rc;
    }
    return dlag_finish(d, out, err);
}

vp_errcode vp_dlag_parse(vp_dlag **out, const void *buf, size_t n, vp_error *err)
{
    *out = NULL;
    vp_dlag *d = calloc(1, sizeof *d);
    if (!d)
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    vp_map_wrap(&d->map, buf, n);
    return dlag_finish(d, out, err);
}

void vp_dlag_free(vp_dlag *d)
{
    if (!d)
        return;
    vp_map_close(&d->map);
    free(d->measurements);
    free(d->graph_state_offs);
    free(d->hop_offs);
    vp_warnings_free(&d->warnings);
    free(d);
}

const uint8_t *vp_dlag_bytes(const vp_dlag *d, uint64_t off)
{
    return d->map.data + off;
}

int vp_dlag_sample_get(const vp_dlag *d, const vp_dlag_samples *s, uint64_t i,
                       vp_dlag_sample *out, vp_error *err)
{
    if (i >= s->count) {
        vp_fail(err, VP_EFORMAT, UINT64_MAX, "no sample %llu (the array holds %llu)",
                (unsigned long long)i + 1, (unsigned long long)s->count);
        return 0;
    }
    /* One count byte before each block of 255 elements. */
    uint64_t off = s->array_off + i / 255 + 1 + i * VP_DLAG_SAMPLE_SIZE;
    vp_cursor c;
    if (off > d->map.size) {
        vp_fail(err, VP_ETRUNC, off, "sample %llu is past the end of the file",
                (unsigned long long)i + 1);
        return 0;
    }
    vp_cursor_init(&c, d->map.data + off, (size_t)(d->map.size - off), off);
    if (!vp_rd_f32(&c, &out->value) || !vp_rd_u32(&c, &out->time) ||
        !vp_rd_u32(&c, &out->unknown)) {
        vp_fail(err, VP_ETRUNC, off, "sample %llu runs past the end of the file",
                (unsigned long long)i + 1);
        return 0;
    }
    return 1;
}

vp_series *vp_dlag_series(const vp_dlag *d, const vp_dlag_samples *s, int which)
{
    vp_series *r = vp_series_new((size_t)s->count);
    if (!r)
        return NULL;
    for (uint64_t i = 0; i < s->count; i++) {
        vp_dlag_sample sm;
        if (!vp_dlag_sample_get(d, s, i, &sm, NULL))
            break; /* cannot happen: the array was validated at open */
        if (!vp_series_push(r, which ? (double)sm.time : (double)sm.value)) {
            vp_series_unref(r);
            return NULL;
        }
    }
    return r;
}

int vp_dlag_graph_state_get(const vp_dlag *d, uint64_t i, vp_dlag_graph_state *out,
                            vp_error *err)
{
    if (i >= d->graph_state_count) {
        vp_fail(err, VP_EFORMAT, UINT64_MAX, "no graph state %llu", (unsigned long long)i + 1);
        return 0;
    }
    uint64_t off = d->graph_state_offs[i];
    vp_cursor c;
    vp_cursor_init(&c, d->map.data + off, (size_t)(d->map.size - off), off);
    return graph_state_read(&c, i, out, err) == VP_OK;
}

int vp_dlag_hop_get(const vp_dlag *d, uint64_t i, vp_dlag_hop *out, vp_error *err)
{
    if (i >= d->hop_count) {
        vp_fail(err, VP_EFORMAT, UINT64_MAX, "no tail record %llu", (unsigned long long)i + 1);
        return 0;
    }
    uint64_t off = d->hop_offs[i];
    vp_cursor c;
    vp_cursor_init(&c, d->map.data + off, (size_t)(d->map.size - off), off);
    return hop_read(&c, i, out, err) == VP_OK;
}
