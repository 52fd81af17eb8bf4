#include "write/dm_write.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "write/trace_write.h"
#include "write/wbuf.h"

struct vp_dm_writer {
    vp_wstream file;
    vp_wbuf out; /* emitted blocks not yet flushed */
    vp_chunkw chunks;
    uint64_t records;
    vp_wbuf tail, peek; /* for vp_dm_writer_data */
};

void vp_dm_wgroup_init(vp_dm_wgroup *g)
{
    memset(g, 0, sizeof *g);
    g->arrow_count = -1;
    g->float_count = -1;
}

static vp_errcode dm_flush(vp_dm_writer *w, vp_error *err)
{
    /* Memory running out in the open block is as fatal as in the output. */
    if (w->chunks.pending.oom || w->chunks.elem.oom)
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "%s: out of memory", w->file.path);
    return vp_wstream_flush(&w->file, &w->out, err);
}

vp_dm_writer *vp_dm_writer_open(const char *path, vp_error *err)
{
    vp_dm_writer *w =
        vp_trace_writer_new(sizeof *w, offsetof(vp_dm_writer, file), VP_TW_STREAM, path, err);
    if (w)
        vp_chunkw_init(&w->chunks);
    return w;
}

static void put_f32s(vp_wbuf *b, const float *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        vp_wbuf_f32(b, v[i]);
}

static void put_group(vp_wbuf *b, const vp_dm_wgroup *g)
{
    vp_wbuf_u16(b, g->short_time);
    put_f32s(b, g->position, 3);
    put_f32s(b, g->orientation, 4);
    put_f32s(b, g->direction, 3);
    vp_wbuf_u16(b, g->state);
    vp_wbuf_u8(b, g->have_ext);
    if (g->have_ext != 1)
        return;
    vp_wbuf_u16(b, g->unknown_1);
    put_f32s(b, g->velocity, 3);
    vp_wbuf_u8(b, g->unknown_2);
    vp_wbuf_u8(b, g->unknown_3);
    vp_wbuf_u16(b, g->jetpack_energy);
    vp_wbuf_u16(b, (uint16_t)g->ground_time);
    vp_wbuf_u16(b, (uint16_t)g->time_since_last_jump);
    vp_wbuf_u8(b, g->have_collision);
    if (g->have_collision) {
        vp_wbuf_u8(b, (uint8_t)(g->arrow_count >= 0 ? g->arrow_count : (int)g->narrows));
        put_f32s(b, g->arrows, g->narrows * 6);
        vp_wbuf_u8(b, (uint8_t)(g->float_count >= 0 ? g->float_count : (int)g->nfloats));
        put_f32s(b, g->floats, g->nfloats);
    }
    put_f32s(b, g->unknown_4, 3);
    put_f32s(b, g->unknown_5, 3);
    vp_wbuf_u8(b, g->unknown_6);
}

static vp_errcode commit(vp_dm_writer *w, vp_error *err)
{
    vp_chunkw_commit(&w->chunks, &w->out);
    w->records++;
    return w->out.len >= (1u << 20) ? dm_flush(w, err) : VP_OK;
}

vp_errcode vp_dm_writer_record(vp_dm_writer *w, const vp_dm_wrecord *r, vp_error *err)
{
    for (size_t i = 0; i < r->ngroups; i++)
        if (r->groups[i].narrows > 255 || r->groups[i].nfloats > 255)
            return vp_fail(err, VP_ELIMIT, UINT64_MAX,
                           "a collision block holds at most 255 arrows and 255 floats (u8 "
                           "counts)");
    vp_wbuf *b = vp_chunkw_elem(&w->chunks);
    vp_wbuf_u8(b, r->have_data);
    if (r->have_data == 1) {
        vp_wbuf_u32(b, r->time);
        vp_wbuf_u32(b, r->bitfield);
        for (size_t i = 0; i < r->ngroups; i++)
            put_group(b, &r->groups[i]);
    }
    return commit(w, err);
}

vp_errcode vp_dm_writer_empty(vp_dm_writer *w, vp_error *err)
{
    vp_wbuf_u8(vp_chunkw_elem(&w->chunks), 0);
    return commit(w, err);
}

vp_errcode vp_dm_writer_raw(vp_dm_writer *w, const void *p, size_t n, vp_error *err)
{
    vp_chunkw_raw(&w->chunks, p, n);
    (void)err;
    return VP_OK;
}

uint64_t vp_dm_writer_records(const vp_dm_writer *w)
{
    return w->records;
}

uint64_t vp_dm_writer_tell(const vp_dm_writer *w)
{
    /* The open block is written as its count byte, then its records. */
    return w->file.flushed + w->out.len + 1 + w->chunks.pending.len;
}

void vp_dm_writer_truncate(vp_dm_writer *w, uint64_t n)
{
    vp_wstream_truncate(&w->file, n);
}

const uint8_t *vp_dm_writer_data(vp_dm_writer *w, size_t *len, vp_error *err)
{
    if (dm_flush(w, err) != VP_OK)
        return NULL;
    /* What closing would add: the open block's count byte and records. */
    w->tail.len = 0;
    vp_wbuf_u8(&w->tail, (uint8_t)w->chunks.in_block);
    vp_wbuf_bytes(&w->tail, w->chunks.pending.data, w->chunks.pending.len);
    if (w->tail.oom) {
        vp_fail(err, VP_ENOMEM, UINT64_MAX, "%s: out of memory", w->file.path);
        return NULL;
    }
    return vp_wstream_contents(&w->file, w->tail.data, w->tail.len, &w->peek, len, err);
}

vp_errcode vp_dm_writer_close(vp_dm_writer *w, int terminate, const void *trailing, size_t ntrail,
                              uint64_t *bytes, vp_error *err)
{
    if (terminate || w->chunks.in_block != 0 || w->chunks.pending.len != 0)
        vp_chunkw_finish(&w->chunks, &w->out);
    vp_wbuf_bytes(&w->out, trailing, ntrail);
    vp_errcode rc = dm_flush(w, err);
    rc = vp_wstream_close(&w->file, rc, bytes, err);
    vp_chunkw_free(&w->chunks);
    vp_wbuf_free(&w->out);
    vp_wbuf_free(&w->tail);
    vp_wbuf_free(&w->peek);
    free(w);
    return rc;
}
