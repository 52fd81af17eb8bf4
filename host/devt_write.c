#include "devt_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_common.h"

#define EVENT_BYTES 9

struct vp_devt_writer {
    vp_devt_wopts o;
    uint8_t *bitfield; /* owned copy of o.bitfield */
    vp_wbuf buf;
    int header_done;
    size_t group_count_at; /* where the header's group_count sits */
    uint32_t groups;
    int has_cut;
    size_t cut;
    vp_wbuf out; /* finished copy handed out by _bytes */
};

vp_devt_writer *vp_devt_writer_new(const vp_devt_wopts *o)
{
    vp_devt_writer *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->o = *o;
    if (o->bitfield) {
        w->bitfield = malloc(o->bitfield_len ? o->bitfield_len : 1);
        if (!w->bitfield) {
            free(w);
            return NULL;
        }
        memcpy(w->bitfield, o->bitfield, o->bitfield_len);
        w->o.bitfield = w->bitfield;
    }
    return w;
}

void vp_devt_writer_free(vp_devt_writer *w)
{
    if (!w)
        return;
    vp_wbuf_free(&w->buf);
    vp_wbuf_free(&w->out);
    free(w->bitfield);
    free(w);
}

static void header_emit(vp_devt_writer *w)
{
    if (w->header_done)
        return;
    w->header_done = 1;
    vp_wbuf_u32(&w->buf, w->o.time);
    vp_wbuf_u32(&w->buf, w->o.unknown);
    vp_wbuf_u32(&w->buf, w->o.graph_duration);
    vp_wbuf_u16(&w->buf, w->o.prefix);
    if (w->o.bitfield)
        vp_wbuf_bytes(&w->buf, w->o.bitfield, w->o.bitfield_len);
    else
        /* N entries take N/64 + 1 little-endian 64-bit words. */
        vp_wbuf_zero(&w->buf, ((size_t)(w->o.prefix / 64) + 1) * 8);
    w->group_count_at = w->buf.len;
    vp_wbuf_u32(&w->buf, 0); /* filled in when the bytes are taken */
}

static void event_put(vp_wbuf *b, const vp_devt_wevent *e)
{
    vp_wbuf_u32(b, e->time1);
    vp_wbuf_u32(b, e->time2);
    vp_wbuf_u8(b, e->type);
}

void vp_devt_writer_group(vp_devt_writer *w, const vp_devt_wevent *ev, size_t n,
                          const vp_devt_wframing *f)
{
    header_emit(w);
    w->groups++;
    vp_wbuf_u32(&w->buf, f && f->has_total ? f->total : (uint32_t)n);
    size_t i = 0;
    if (f && f->chunks) {
        for (size_t k = 0; k < f->nchunks; k++) {
            vp_wbuf_u8(&w->buf, f->chunks[k]);
            for (unsigned j = 0; j < f->chunks[k] && i < n; j++)
                event_put(&w->buf, &ev[i++]);
        }
        while (i < n)
            event_put(&w->buf, &ev[i++]);
        return;
    }
    /* Blocks of 255 while at least 255 are left, then the rest (maybe 0):
     * the block that is not full is what ends the array. */
    for (;;) {
        size_t left = n - i;
        unsigned count = left >= 255 ? 255 : (unsigned)left;
        vp_wbuf_u8(&w->buf, (uint8_t)count);
        for (unsigned j = 0; j < count; j++)
            event_put(&w->buf, &ev[i++]);
        if (count < 255)
            break;
    }
}

void vp_devt_writer_raw(vp_devt_writer *w, const void *p, size_t n)
{
    header_emit(w);
    vp_wbuf_bytes(&w->buf, p, n);
}

void vp_devt_writer_truncate(vp_devt_writer *w, size_t n)
{
    w->has_cut = 1;
    w->cut = n;
}

size_t vp_devt_writer_size(vp_devt_writer *w)
{
    header_emit(w);
    return w->buf.len;
}

const uint8_t *vp_devt_writer_bytes(vp_devt_writer *w, size_t *len, vp_error *err)
{
    header_emit(w);
    w->out.len = 0;
    vp_wbuf_bytes(&w->out, w->buf.data, w->buf.len);
    if (w->buf.oom || w->out.oom) {
        vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory building the .devt file");
        return NULL;
    }
    uint32_t gc = w->o.has_group_count ? w->o.group_count : w->groups;
    uint8_t *p = w->out.data + w->group_count_at;
    p[0] = (uint8_t)gc;
    p[1] = (uint8_t)(gc >> 8);
    p[2] = (uint8_t)(gc >> 16);
    p[3] = (uint8_t)(gc >> 24);
    *len = w->has_cut && w->cut < w->out.len ? w->cut : w->out.len;
    return w->out.data;
}

vp_errcode vp_devt_writer_save(vp_devt_writer *w, const char *path, vp_error *err)
{
    size_t len;
    const uint8_t *p = vp_devt_writer_bytes(w, &len, err);
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
