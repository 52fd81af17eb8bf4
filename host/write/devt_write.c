#include "write/devt_write.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "write/trace_write.h"
#include "write/wbuf.h"

#define EVENT_BYTES 9

struct vp_devt_writer {
    vp_devt_wopts o;
    uint8_t *bitfield; /* owned copy of o.bitfield */
    vp_wfile file;
    int header_done;
    size_t group_count_at; /* where the header's group_count sits */
    uint32_t groups;
};

static void writer_free(vp_devt_writer *w)
{
    vp_wfile_free(&w->file);
    free(w->bitfield);
    free(w);
}

vp_devt_writer *vp_devt_writer_open(const char *path, const vp_devt_wopts *o, vp_error *err)
{
    static const vp_devt_wopts zero;
    vp_devt_writer *w = vp_trace_writer_new(sizeof *w, offsetof(vp_devt_writer, file),
                                            VP_TW_MEMORY, path, err);
    if (!w)
        return NULL;
    w->o = o ? *o : zero;
    if (w->o.bitfield) {
        w->bitfield = malloc(w->o.bitfield_len ? w->o.bitfield_len : 1);
        if (!w->bitfield) {
            writer_free(w);
            vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
            return NULL;
        }
        memcpy(w->bitfield, w->o.bitfield, w->o.bitfield_len);
        w->o.bitfield = w->bitfield;
    }
    return w;
}

static void header_emit(vp_devt_writer *w)
{
    if (w->header_done)
        return;
    w->header_done = 1;
    vp_wbuf *b = &w->file.buf;
    vp_wbuf_u32(b, w->o.time);
    vp_wbuf_u32(b, w->o.unknown);
    vp_wbuf_u32(b, w->o.graph_duration);
    vp_wbuf_u16(b, w->o.prefix);
    if (w->o.bitfield)
        vp_wbuf_bytes(b, w->o.bitfield, w->o.bitfield_len);
    else
        vp_bitfield_write(b, w->o.prefix, NULL, NULL);
    w->group_count_at = b->len;
    vp_wbuf_u32(b, 0); /* filled in when the bytes are taken */
}

static int event_put(void *ud, vp_wbuf *b, uint64_t i)
{
    const vp_devt_wevent *e = (const vp_devt_wevent *)ud + i;
    vp_wbuf_u32(b, e->time1);
    vp_wbuf_u32(b, e->time2);
    vp_wbuf_u8(b, e->type);
    return 1;
}

void vp_devt_writer_group(vp_devt_writer *w, const vp_devt_wevent *ev, size_t n,
                          const vp_wframing *f)
{
    header_emit(w);
    w->groups++;
    /* event_put only reads the events. */
    vp_totaled_write_framed(&w->file.buf, n, f, event_put, (void *)ev);
}

const uint8_t *vp_devt_writer_data(vp_devt_writer *w, size_t *len, vp_error *err)
{
    header_emit(w);
    vp_wfile_copy(&w->file);
    uint32_t gc = w->o.has_group_count ? w->o.group_count : w->groups;
    return vp_wfile_done(&w->file, w->group_count_at, gc, "the .devt file", len, err);
}

/* vp_devt_writer_raw, _truncate, _tell and _close (trace_write.h). */
VP_WFILE_WRITER(devt, header_emit, writer_free)
