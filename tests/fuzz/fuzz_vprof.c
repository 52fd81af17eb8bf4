/* libFuzzer harness: open any bytes as a VProf capture, then exercise every
 * read path the bindings use (random frame reads, whole passes, paths). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/vprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count_cb(void *ud, uint32_t fi, const vp_vprof_epoch *ep, const uint64_t *units,
                    const uint64_t *self, const uint32_t *calls)
{
    (void)fi;
    uint64_t *acc = ud;
    for (uint32_t i = 0; i < ep->n; i++)
        *acc += units[i] + self[i] + calls[i];
    return 0;
}

/* One measuring pass with every kind of quantity and sink: the frame time,
 * a few nodes' fields (the last, a node index one past the end, refused),
 * the first groups folded or not; batches over two segments (or cuts that
 * do not fit, when the mode byte says so). */
static void measure(vp_vprof *m, uint8_t mode)
{
    enum { NQ = 8 };
    vp_vprof_quantity q[NQ];
    vp_series *col[NQ];
    vp_stream sum[NQ];
    vp_batched *b[NQ];
    size_t cuts[3] = {0, m->frame_count / 2, (mode & 64) ? m->frame_count + 1 : m->frame_count};
    for (size_t i = 0; i < NQ; i++) {
        col[i] = vp_series_new(0);
        vp_stream_init(&sum[i]);
        uint32_t idx = (uint32_t)i * 7;
        q[i] = (vp_vprof_quantity){.kind = i == 0 ? VP_VPROF_Q_FRAME : i < 5 ? VP_VPROF_Q_NODE : VP_VPROF_Q_GROUP,
                                   .index = i < 5 ? (m->node_count ? idx % m->node_count : 0)
                                                  : (m->group_count ? idx % m->group_count : 0),
                                   .field = (vp_vprof_field)(i % 3), .fold = (int)(i & 1),
                                   .column = col[i], .summary = &sum[i], .batches = &b[i]};
    }
    vp_error err;
    vp_vprof_measure(m, q, NQ, cuts, 2, &err);
    for (size_t i = 0; i < NQ; i++)
        vp_batched_free(b[i]);
    if (mode & 128) { /* a node out of range: refused, nothing left */
        q[1].index = m->node_count;
        if (vp_vprof_measure(m, q, NQ, cuts, 2, &err) == VP_OK)
            abort();
        for (size_t i = 0; i < NQ; i++)
            if (b[i])
                abort();
    }
    for (size_t i = 0; i < NQ; i++) {
        vp_series_unref(col[i]);
        vp_stream_free(&sum[i]);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The first byte picks the escape width mode, so forced widths get
     * fuzzed too, and the statistics the open pass computes (none, node
     * totals alone, groups, everything: each takes its own path through
     * the accumulator), whether node totals are for some names only, and
     * whether the open is strict (a cut or damaged file refused, else its
     * complete frames kept); the rest is the file. */
    if (size < 1)
        return 0;
    static const int widths[] = {0, 4, 8};
    static const unsigned stats[] = {0, VP_VPROF_STATS_NODES, VP_VPROF_STATS_FOLDED, VP_VPROF_STATS_ALL};
    static const char *const names[] = {"a", "A", "Frame", ""};
    vp_open_opts opts = {.escape_width = widths[data[0] % 3], .stats = stats[(data[0] >> 2) & 3],
                         .strict = (data[0] >> 5) & 1};
    if (data[0] & 16) {
        opts.node_names = names;
        opts.n_node_names = 4;
    }
    vp_vprof *m;
    vp_error err;
    if (vp_vprof_open_mem(data + 1, size - 1, &opts, &m, &err) != VP_OK)
        return 0;
    uint64_t acc = 0;
    vp_vprof_pass(m, 0, m->frame_count ? m->frame_count - 1 : 0, count_cb, &acc, &err);
    for (uint32_t fi = 0; fi < m->frame_count && fi < 8; fi++) {
        uint32_t n = m->frames[fi].n;
        void *mem = malloc(vp_vprof_fdata_size(n) + 1);
        vp_vprof_fdata fd;
        vp_vprof_fdata_init(&fd, n, mem);
        vp_vprof_frame_read(m, fi, &fd, &err);
        free(mem);
    }
    /* The whole-capture statistics (those of the open pass first), hitches
     * and their causes, node orders. */
    for (uint32_t v = 0; v < m->node_count; v++) {
        const vp_vprof_node_stat *t = vp_vprof_node_total(m, v);
        acc += t ? t->time + t->self + t->calls : 0;
    }
    vp_vprof_stats_need(m, VP_VPROF_STATS_ALL, &err);
    measure(m, data[0]);
    vp_hitch_rule rule = {2.5, 5, 0, data[0] & 1, 1 + data[0] % 40};
    vp_hitch *hs;
    uint32_t nh;
    if (vp_vprof_hitches(m, &rule, &hs, &nh, &err) == VP_OK) {
        vp_vprof_cause cn[4], cg[4];
        uint32_t a, b;
        for (uint32_t k = 0; k < nh && k < 8; k++)
            vp_vprof_causes(m, hs[k].frame, rule.window, 4, cn, &a, cg, &b, &err);
        free(hs);
    }
    vp_vprof_node_stat *st = calloc(m->node_count + 1, sizeof *st);
    uint32_t *order = calloc(m->node_count + 1, sizeof *order), count;
    if (st && order && vp_vprof_node_stats(m, 0, m->frame_count ? m->frame_count - 1 : 0, st, &err) ==
                           VP_OK)
        vp_vprof_node_order(m, st, m->frame_count, VP_VPROF_BY_PEAK_OVER_AVG, order, &count);
    free(st);
    free(order);
    char path[512];
    for (uint32_t v = 0; v < m->node_count; v++) {
        size_t len = vp_vprof_node_path(m, v, path, sizeof path);
        if (len < sizeof path && vp_vprof_node_by_path(m, path, len) == VP_VPROF_NO_NODE)
            abort(); /* every path must lead to some node (names may hold '/') */
        (void)vp_vprof_visible_group(m, v);
    }
    vp_vprof_free(m);
    return 0;
}
