/* Decoding frames again, from the offsets the open pass indexed: one
 * frame at a time (vp_vprof_frame_read) or a whole range in order
 * (vp_vprof_pass). */
#include <string.h>

#include "core/cursor.h"
#include "formats/vprof_int.h"

/* Position the cursor at the first timing record of frame fi. */
static vp_errcode frame_seek_timings(const vp_vprof *m, uint32_t fi, vp_cursor *c, vp_error *err)
{
    uint64_t off = m->frame_off[fi];
    vp_cursor_init(c, m->map.data + off, (size_t)(m->map.size - off), off);
    uint8_t tok;
    if (!vp_rd_u8(c, &tok) || tok != TOK_START_FRAME || !vp_skip(c, 4))
        return vp_fail(err, VP_EFORMAT, off, "frame %u no longer starts here (file changed?)",
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
    return vp_fail(err, VP_EFORMAT, vp_cursor_off(c),
                   "frame %u cannot be read again (file changed since it was opened?)", fi + 1);
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
    if (fi >= m->frame_count || fd->n != m->frame_nodes[fi])
        return vp_fail(err, VP_EFORMAT, UINT64_MAX, "no frame %u", fi + 1);
    vp_cursor c;
    vp_errcode rc = frame_seek_timings(m, fi, &c, err);
    if (rc != VP_OK)
        return rc;
    uint32_t n = fd->n;
    const vp_vprof_epoch *ep = vp_vprof_epoch_for(m, n);
    if (!ep)
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    /* Decode in position order, with fd->self as scratch (it is computed
     * last), then scatter units and calls to node-index order. */
    vprof_decode_stats st = {0};
    const uint8_t *start = c.p;
    if (vp_vprof_timings_decode(&c.p, c.end, n, m->escape_width, fd->self, fd->calls, &st) < n)
        return vp_fail(err, VP_EFORMAT, vp_cursor_off(&c), "frame %u cannot be read again", fi + 1);
    vp_map_note_random(&m->map, (uint64_t)(c.p - start));
    for (uint32_t pos = 0; pos < n; pos++)
        fd->units[ep->order[pos]] = fd->self[pos];
    for (uint32_t pos = 0; pos < n; pos++)
        fd->self[pos] = fd->calls[pos];
    for (uint32_t pos = 0; pos < n; pos++)
        fd->calls[ep->order[pos]] = (uint32_t)fd->self[pos];
    /* Self by node index. */
    memset(fd->self, 0, (size_t)n * sizeof *fd->self);
    for (uint32_t v = 1; v < n; v++)
        fd->self[m->nodes[v].parent] += fd->units[v];
    for (uint32_t v = 0; v < n; v++)
        fd->self[v] = fd->units[v] > fd->self[v] ? fd->units[v] - fd->self[v] : 0;
    return VP_OK;
}

vp_errcode vp_vprof_pass(vp_vprof *m, uint32_t first, uint32_t last, vp_vprof_pass_fn fn, void *ud,
                         vp_error *err)
{
    if (!m->frame_count || first > last || last >= m->frame_count)
        return VP_OK;
    vprof_scratch s = {0};
    vp_errcode rc = VP_OK;
    uint64_t next_release = m->frame_off[first] + VP_MAP_RELEASE_STEP;
    for (uint32_t fi = first; fi <= last; fi++) {
        uint32_t n = m->frame_nodes[fi];
        const vp_vprof_epoch *ep = vp_vprof_epoch_for(m, n);
        if (!ep || !vp_vprof_scratch_fit(&s, n, 0)) {
            rc = vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
            break;
        }
        vp_cursor c;
        if ((rc = frame_seek_timings(m, fi, &c, err)) != VP_OK)
            break;
        vprof_decode_stats st = {0};
        if (vp_vprof_timings_decode(&c.p, c.end, n, m->escape_width, s.units, s.calls, &st) < n) {
            rc = vp_fail(err, VP_EFORMAT, vp_cursor_off(&c), "frame %u cannot be read again",
                         fi + 1);
            break;
        }
        vp_vprof_self_by_pos(ep, s.units, s.self);
        if (fn(ud, fi, ep, s.units, s.self, s.calls))
            break;
        if (vp_cursor_off(&c) >= next_release) {
            vp_map_release(&m->map, vp_cursor_off(&c));
            next_release = vp_cursor_off(&c) + VP_MAP_RELEASE_STEP;
        }
    }
    vp_map_release(&m->map, m->map.size);
    vp_vprof_scratch_free(&s);
    return rc;
}
