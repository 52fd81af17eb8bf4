/* Decoding frames again, from the frame records the open pass kept: one
 * frame at a time (vp_vprof_frame_read) or a whole range in order
 * (vp_vprof_pass). A frame's bytes run from its offset to the next frame's,
 * so each is asked of the source whole; a file that shrank since it was
 * opened fails there with ECHANGED, naming both sizes. */
#include <stdlib.h>
#include <string.h>

#include "core/cursor.h"
#include "core/fsum.h"
#include "formats/vprof_int.h"

/* The bytes of frame fi, whole, and a cursor at its first timing record. */
static vp_errcode frame_seek_timings(vp_vprof *m, uint32_t fi, vp_cursor *c, vp_error *err)
{
    uint64_t off = m->frames[fi].off;
    uint64_t end = fi + 1 < m->frame_count ? m->frames[fi + 1].off : m->frames_end;
    const uint8_t *p = vp_src_get(&m->src, off, (size_t)(end - off), NULL, err);
    if (!p)
        return err->code;
    vp_cursor_init(c, p, (size_t)(end - off), off);
    uint8_t tok;
    if (!vp_rd_u8(c, &tok) || tok != TOK_START_FRAME || !vp_skip(c, 4))
        return vp_fail(err, VP_ECHANGED, off,
                       "frame %u no longer starts here: the file changed since it was opened",
                       fi + 1);
    for (;;) {
        const char *s;
        size_t len;
        if (!vp_rd_u8(c, &tok))
            break;
        if (tok == TOK_TIMINGS)
            return VP_OK;
        if (tok == TOK_ADD_GROUP && vp_rd_cstr(c, &s, &len) && vp_skip(c, 4))
            continue;
        if (tok == TOK_ADD_NODE && vp_skip(c, 4) && vp_rd_cstr(c, &s, &len) && vp_skip(c, 8))
            continue;
        break;
    }
    return vp_fail(err, VP_ECHANGED, vp_cursor_off(c),
                   "frame %u cannot be read again: the file changed since it was opened", fi + 1);
}

vp_errcode vp_vprof_frame_decode(vp_vprof *m, uint32_t fi, const vp_vprof_epoch *ep,
                                 vprof_scratch *s, unsigned want, uint32_t upto, vp_error *err)
{
    vp_cursor c;
    vp_errcode rc = frame_seek_timings(m, fi, &c, err);
    if (rc != VP_OK)
        return rc;
    uint32_t n = ep->n;
    if (upto > n || (want & VPROF_WANT_SELF))
        upto = n;
    vprof_decode_stats st = {0};
    uint8_t tok = 0;
    if (vp_vprof_timings(&c.p, c.end, 0, upto, m->escape_width, s->units,
                         (want & VPROF_WANT_CALLS) ? s->calls : NULL, &st) < upto ||
        (upto == n && (!vp_rd_u8(&c, &tok) || tok != TOK_END_FRAME || vp_cursor_left(&c) != 0)))
        return vp_fail(err, VP_ECHANGED, vp_cursor_off(&c),
                       "frame %u cannot be read again: the file changed since it was opened",
                       fi + 1);
    if (want & VPROF_WANT_SELF)
        vp_vprof_self_by_pos(ep, s->units, s->self, s->tmp);
    return VP_OK;
}

vp_errcode vp_vprof_frame_next(vp_vprof *m, uint32_t fi, vprof_scratch *s, unsigned want,
                               uint32_t upto, const vp_vprof_epoch **ep, vp_error *err)
{
    uint32_t n = m->frames[fi].n;
    *ep = vp_vprof_epoch_for(m, n);
    if (!*ep || !vp_vprof_scratch_fit(s, n))
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    return vp_vprof_frame_decode(m, fi, *ep, s, want, upto, err);
}

size_t vp_vprof_fdata_size(uint32_t n)
{
    return (size_t)n * (2 * sizeof(uint64_t) + sizeof(uint32_t));
}

void vp_vprof_fdata_init(vp_vprof_fdata *fd, uint32_t n, void *mem)
{
    fd->n = n;
    fd->units = mem;
    fd->self = fd->units + n;
    fd->calls = (uint32_t *)(fd->self + n);
}

vp_errcode vp_vprof_frame_read(vp_vprof *m, uint32_t fi, vp_vprof_fdata *fd, vp_error *err)
{
    if (fi >= m->frame_count || fd->n != m->frames[fi].n)
        return vp_fail(err, VP_EFORMAT, UINT64_MAX, "no frame %u", fi + 1);
    uint32_t n = fd->n;
    const vp_vprof_epoch *ep;
    vprof_scratch s = {0};
    vp_errcode rc =
        vp_vprof_frame_next(m, fi, &s, VPROF_WANT_CALLS | VPROF_WANT_SELF, UINT32_MAX, &ep, err);
    if (rc == VP_OK) {
        /* Scatter to node-index order. */
        for (uint32_t pos = 0; pos < n; pos++) {
            uint32_t v = ep->order[pos];
            fd->units[v] = s.units[pos];
            fd->self[v] = s.self[pos];
            fd->calls[v] = s.calls[pos];
        }
    }
    vp_vprof_scratch_free(&s);
    return rc;
}

vp_errcode vp_vprof_pass(vp_vprof *m, uint32_t first, uint32_t last, vp_vprof_pass_fn fn, void *ud,
                         vp_error *err)
{
    if (!m->frame_count || first > last || last >= m->frame_count)
        return VP_OK;
    vprof_scratch s = {0};
    vp_errcode rc = VP_OK;
    for (uint32_t fi = first; fi <= last; fi++) {
        const vp_vprof_epoch *ep;
        if ((rc = vp_vprof_frame_next(m, fi, &s, VPROF_WANT_CALLS | VPROF_WANT_SELF, UINT32_MAX,
                                      &ep, err)) != VP_OK)
            break;
        if (fn(ud, fi, ep, s.units, s.self, s.calls))
            break;
    }
    vp_vprof_scratch_free(&s);
    return rc;
}

vp_series *vp_vprof_frame_series(vp_vprof *m)
{
    if (!m->frame_ms) {
        vp_series *s = vp_series_new(m->frame_count);
        if (!s)
            return NULL;
        for (uint32_t fi = 0; fi < m->frame_count; fi++)
            s->v[fi] = vp_vprof_frame_ms(m, fi);
        s->n = m->frame_count;
        m->frame_ms = s;
    }
    return vp_series_ref(m->frame_ms);
}

double vp_vprof_time_sum(vp_vprof *m, uint32_t first, uint32_t last)
{
    /* The whole capture: each distinct time once, times its count. */
    if (first == 0 && last + 1 == m->frame_count)
        return vp_stream_sum(&m->frame_stream, VP_VPROF_US_PER_UNIT / 1000.0);
    vp_xsum x;
    vp_xsum_init(&x);
    for (uint32_t fi = first; fi <= last; fi++)
        vp_xsum_add(&x, vp_vprof_frame_ms(m, fi));
    return vp_xsum_get(&x);
}

double vp_vprof_slowest_sum(vp_vprof *m, uint32_t k, int *ok)
{
    uint32_t n = m->frame_count;
    *ok = 0;
    if (k < 1 || k > n)
        return 0;
    uint64_t v = vp_hist_at_rank(&m->frame_stream.h, (uint64_t)n - k + 1, ok);
    if (!*ok)
        return 0;
    double above = 0;
    uint32_t count = 0;
    for (uint32_t fi = 0; fi < n; fi++)
        if (m->frames[fi].units > v) {
            above += vp_vprof_frame_ms(m, fi);
            count++;
        }
    return above + (double)(k - count) * vp_vprof_ms(v);
}
