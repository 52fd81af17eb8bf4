/* A frame range of a VProf capture (--frames A:B): the model keeps the
 * records of those frames only, so every pass, statistic and hitch rule
 * sees the range as the whole capture. */
#include <string.h>

#include "vprof_int.h"

vp_errcode vp_vprof_restrict(vp_vprof *m, uint32_t first, uint32_t last, vp_error *err)
{
    if (first > last || last >= m->frame_count)
        return vp_fail(err, VP_ELIMIT, UINT64_MAX,
                       "frames %u..%u are not a range of the capture's %u frames",
                       (unsigned)first + 1, (unsigned)last + 1, (unsigned)m->frame_count);
    uint32_t n = last - first + 1;
    /* The last kept frame ends where the next one starts (or where the
     * frames ended): frame reads take their end from there. */
    if (last + 1 < m->frame_count)
        m->frames_end = m->frames[last + 1].off;
    if (first)
        memmove(m->frames, m->frames + first, (size_t)n * sizeof *m->frames);
    m->frame_count = n;
    m->frame_base += first;

    vp_stream_free(&m->frame_stream);
    vp_stream_init(&m->frame_stream);
    for (uint32_t fi = 0; fi < n; fi++)
        if (!vp_stream_add(&m->frame_stream, m->frames[fi].units, 1))
            return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    vp_series_unref(m->frame_ms);
    m->frame_ms = NULL;
    vprof_stats_drop(m, VP_VPROF_STATS_ALL);

    for (uint32_t v = 0; v < m->node_count; v++) {
        vp_vprof_node *nd = &m->nodes[v];
        nd->first_frame = nd->first_frame > first ? nd->first_frame - first : 0;
    }
    return VP_OK;
}
