#include "write/dw_write.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "write/trace_write.h"
#include "write/wbuf.h"

struct vp_dw_writer {
    vp_wstream file;
    vp_wbuf buf;
    uint64_t traces;
    vp_wbuf peek; /* for vp_dw_writer_data */
};

/* Flush when this much is buffered: traces are small, files are not. */
#define DW_FLUSH_AT (1u << 20)

void vp_dw_wtrace_init(vp_dw_wtrace *t)
{
    memset(t, 0, sizeof *t);
    t->used = 1;
    t->client_count = -1;
    t->server_count = -1;
}

void vp_dw_whit_init(vp_dw_whit *h)
{
    memset(h, 0, sizeof *h);
    h->ragdoll_count = -1;
}

static vp_errcode maybe_flush(vp_dw_writer *w, vp_error *err)
{
    return w->buf.len >= DW_FLUSH_AT || w->buf.oom ? vp_wstream_flush(&w->file, &w->buf, err)
                                                   : VP_OK;
}

vp_dw_writer *vp_dw_writer_open(const char *path, const vp_dw_wopts *o, vp_error *err)
{
    static const vp_dw_wopts zero;
    if (!o)
        o = &zero;
    vp_dw_writer *w =
        vp_trace_writer_new(sizeof *w, offsetof(vp_dw_writer, file), VP_TW_STREAM, path, err);
    if (!w)
        return NULL;
    vp_wbuf_bytes(&w->buf, o->header, 4);
    vp_wbuf_u8(&w->buf, o->max_size);
    return w;
}

static void put_vec3(vp_wbuf *b, const float v[3])
{
    for (int i = 0; i < 3; i++)
        vp_wbuf_f32(b, v[i]);
}

/* The field sizes below, in order, must add up to the 0x88-byte block: a
 * miscount would shift every later byte of the file. */
_Static_assert(4 + 12 + 12 + 4 + 2 + 34 + 4 + 1 + 3 + 12 + 4 + 12 + 12 + 4 + 1 + 15 == 0x88,
               "movement block layout");

static void put_movement(vp_wbuf *b, const vp_dw_wmovement *m)
{
    vp_wbuf_bytes(b, m->unknown_00, 4);          /* 0x00 */
    put_vec3(b, m->ray_start);                   /* 0x04 */
    put_vec3(b, m->ray_end);                     /* 0x10 */
    vp_wbuf_f32(b, m->weapon_range);             /* 0x1C */
    vp_wbuf_u16(b, m->unknown_20);               /* 0x20 */
    vp_wbuf_bytes(b, m->unknown_22, 34);         /* 0x22 */
    vp_wbuf_bytes(b, m->unknown_44, 4);          /* 0x44 */
    vp_wbuf_u8(b, m->bullet);                    /* 0x48 */
    vp_wbuf_bytes(b, m->unknown_49, 3);          /* 0x49 */
    put_vec3(b, m->unknown_4c);                  /* 0x4C */
    vp_wbuf_u32(b, m->damage_per_round);         /* 0x58 */
    vp_wbuf_bytes(b, m->unknown_5c, 12);         /* 0x5C */
    put_vec3(b, m->unknown_68);                  /* 0x68 */
    vp_wbuf_u32(b, m->weapon_template_id);       /* 0x74 */
    vp_wbuf_u8(b, m->slot_index);                /* 0x78 */
    vp_wbuf_bytes(b, m->unknown_79, 15);         /* 0x79 .. 0x87 */
}

static void put_hit(vp_wbuf *b, const vp_dw_whit *h)
{
    vp_wbuf_u8(b, h->type);
    vp_wbuf_u32(b, h->trace_id);
    vp_wbuf_u32(b, h->time);
    vp_wbuf_u16(b, h->unknown_09);
    put_vec3(b, h->position);
    put_vec3(b, h->direction);
    vp_wbuf_u32(b, h->physics_material);
    vp_wbuf_u8(b, h->have_entity);
    if (h->have_entity) {
        vp_wbuf_u64(b, h->entity_guid);
        put_vec3(b, h->entity_position);
        for (int i = 0; i < 4; i++)
            vp_wbuf_f32(b, h->entity_rotation[i]);
        vp_wbuf_u8(b, (uint8_t)h->entity_unknown_24);
        vp_wbuf_u8(b, h->entity_unknown_25);
    }
    vp_wbuf_u8(b, h->have_ragdoll);
    if (h->have_ragdoll) {
        vp_wbuf_u64(b, h->ragdoll_guid);
        vp_wbuf_u8(b, (uint8_t)(h->ragdoll_count >= 0 ? h->ragdoll_count : (int)h->ragdoll_n));
        for (size_t i = 0; i < h->ragdoll_n * 16; i++)
            vp_wbuf_f32(b, h->ragdoll[i]);
    }
}

static vp_errcode check_counts(const vp_dw_wtrace *t, vp_error *err)
{
    if (t->nclient > 255 || t->nserver > 255)
        return vp_fail(err, VP_ELIMIT, UINT64_MAX,
                       "a trace holds at most 255 client and 255 server hits (u8 counts)");
    const vp_dw_whit *lists[2] = {t->client, t->server};
    size_t ns[2] = {t->nclient, t->nserver};
    for (int s = 0; s < 2; s++)
        for (size_t i = 0; i < ns[s]; i++)
            if (lists[s][i].have_ragdoll && lists[s][i].ragdoll_n > 255)
                return vp_fail(err, VP_ELIMIT, UINT64_MAX,
                               "a ragdoll block holds at most 255 transforms (u8 count)");
    return VP_OK;
}

vp_errcode vp_dw_writer_trace(vp_dw_writer *w, const vp_dw_wtrace *t, vp_error *err)
{
    vp_errcode rc = check_counts(t, err);
    if (rc != VP_OK)
        return rc;
    vp_wbuf *b = &w->buf;
    vp_wbuf_u8(b, t->used);
    vp_wbuf_u8(b, t->unknown_01);
    vp_wbuf_u32(b, t->trace_id);
    vp_wbuf_u32(b, t->ammo_type_id);
    if (t->ammo_type_id != 0)
        put_movement(b, &t->movement);
    vp_wbuf_u8(b, (uint8_t)(t->client_count >= 0 ? t->client_count : (int)t->nclient));
    for (size_t i = 0; i < t->nclient; i++)
        put_hit(b, &t->client[i]);
    vp_wbuf_u8(b, (uint8_t)(t->server_count >= 0 ? t->server_count : (int)t->nserver));
    for (size_t i = 0; i < t->nserver; i++)
        put_hit(b, &t->server[i]);
    w->traces++;
    return maybe_flush(w, err);
}

vp_errcode vp_dw_writer_empty(vp_dw_writer *w, vp_error *err)
{
    vp_wbuf_u8(&w->buf, 0);
    return maybe_flush(w, err);
}

vp_errcode vp_dw_writer_raw(vp_dw_writer *w, const void *p, size_t n, vp_error *err)
{
    vp_wbuf_bytes(&w->buf, p, n);
    return maybe_flush(w, err);
}

uint64_t vp_dw_writer_traces(const vp_dw_writer *w)
{
    return w->traces;
}

uint64_t vp_dw_writer_tell(const vp_dw_writer *w)
{
    return w->file.flushed + w->buf.len;
}

static void writer_free(vp_dw_writer *w)
{
    vp_wbuf_free(&w->buf);
    vp_wbuf_free(&w->peek);
    free(w);
}

void vp_dw_writer_truncate(vp_dw_writer *w, uint64_t n)
{
    vp_wstream_truncate(&w->file, n);
}

const uint8_t *vp_dw_writer_data(vp_dw_writer *w, size_t *len, vp_error *err)
{
    if (vp_wstream_flush(&w->file, &w->buf, err) != VP_OK)
        return NULL;
    /* What closing would add: the footer, last_trace_counter = traces. */
    uint32_t n = (uint32_t)w->traces;
    uint8_t footer[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
    return vp_wstream_contents(&w->file, footer, sizeof footer, &w->peek, len, err);
}

vp_errcode vp_dw_writer_close(vp_dw_writer *w, int footer, uint32_t last_trace_counter,
                              uint64_t *bytes, vp_error *err)
{
    if (footer)
        vp_wbuf_u32(&w->buf, last_trace_counter);
    vp_errcode rc = vp_wstream_flush(&w->file, &w->buf, err);
    rc = vp_wstream_close(&w->file, rc, bytes, err);
    writer_free(w);
    return rc;
}
