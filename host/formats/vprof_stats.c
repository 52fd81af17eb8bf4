/* Statistics over a range of frames, each one pass of vp_vprof_pass: the
 * per-node totals behind cap:node_stats, the per-node series behind
 * cap:series, and group self times with hidden groups folded. Plus the
 * summary figures read off the model. The bindings only hand the results
 * to Lua. */
#include <stdlib.h>
#include <string.h>

#include "formats/vprof_int.h"

typedef struct {
    vp_vprof_node_stat *acc;
} stats_pass;

static int stats_cb(void *ud, uint32_t fi, const vp_vprof_epoch *ep, const uint64_t *units,
                    const uint64_t *self, const uint32_t *calls)
{
    stats_pass *sp = ud;
    for (uint32_t pos = 0; pos < ep->n; pos++) {
        vp_vprof_node_stat *a = &sp->acc[ep->order[pos]];
        a->time += units[pos];
        a->self += self[pos];
        a->calls += calls[pos];
        a->frames++;
        if (units[pos] > a->peak || a->frames == 1) {
            a->peak = units[pos];
            a->peak_frame = fi;
        }
        if (self[pos] > a->peak_self)
            a->peak_self = self[pos];
    }
    return 0;
}

vp_errcode vp_vprof_node_stats(vp_vprof *m, uint32_t first, uint32_t last,
                               vp_vprof_node_stat *out, vp_error *err)
{
    memset(out, 0, (size_t)m->node_count * sizeof *out);
    stats_pass sp = {out};
    return vp_vprof_pass(m, first, last, stats_cb, &sp, err);
}

/* One pass filling a series per requested node: each node's position is
 * looked up again only when the tree grows (a new epoch). */
typedef struct {
    vp_series *const *out;
    const uint32_t *nodes;
    uint32_t *pos; /* per requested node: position in the epoch, or NO_NODE */
    uint32_t count;
    vp_vprof_field field;
    uint32_t ep_n;
    int oom;
} series_pass;

static int series_cb(void *ud, uint32_t fi, const vp_vprof_epoch *ep, const uint64_t *units,
                     const uint64_t *self, const uint32_t *calls)
{
    series_pass *sp = ud;
    (void)fi;
    if (ep->n != sp->ep_n) {
        sp->ep_n = ep->n;
        for (uint32_t k = 0; k < sp->count; k++)
            sp->pos[k] = VP_VPROF_NO_NODE;
        for (uint32_t pos = 0; pos < ep->n; pos++)
            for (uint32_t k = 0; k < sp->count; k++)
                if (ep->order[pos] == sp->nodes[k])
                    sp->pos[k] = pos;
    }
    for (uint32_t k = 0; k < sp->count; k++) {
        uint32_t pos = sp->pos[k];
        double v = 0;
        if (pos != VP_VPROF_NO_NODE)
            v = sp->field == VP_VPROF_CALLS
                    ? (double)calls[pos]
                    : vp_vprof_ms(sp->field == VP_VPROF_SELF_MS ? self[pos] : units[pos]);
        if (!vp_series_push_fast(sp->out[k], v)) {
            sp->oom = 1;
            return 1;
        }
    }
    return 0;
}

vp_errcode vp_vprof_node_series(vp_vprof *m, const uint32_t *nodes, uint32_t count,
                                vp_vprof_field field, vp_series *const *out, vp_error *err)
{
    if (!m->frame_count || !count)
        return VP_OK;
    uint32_t *pos = malloc((size_t)count * sizeof *pos);
    if (!pos)
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    series_pass sp = {out, nodes, pos, count, field, UINT32_MAX, 0};
    vp_errcode rc = vp_vprof_pass(m, 0, m->frame_count - 1, series_cb, &sp, err);
    free(pos);
    if (rc == VP_OK && sp.oom)
        rc = vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    return rc;
}

int vp_vprof_has_hidden_groups(const vp_vprof *m)
{
    for (uint32_t g = 0; g < m->group_count; g++)
        if (m->groups[g].has_nodes && (m->groups[g].flags & VP_BUDGETFLAG_HIDDEN))
            return 1;
    return 0;
}

void vp_vprof_fold_map(const vp_vprof *m, uint32_t *vis)
{
    for (uint32_t v = 0; v < m->node_count; v++)
        vis[v] = vp_vprof_visible_group(m, v);
}

typedef struct {
    const vp_vprof *m;
    const uint32_t *vis; /* node index -> group index (folded) */
    uint64_t *acc;       /* per group */
    vp_series *const *out;
    int oom;
} fold_pass;

static int fold_cb(void *ud, uint32_t fi, const vp_vprof_epoch *ep, const uint64_t *units,
                   const uint64_t *self, const uint32_t *calls)
{
    fold_pass *fp = ud;
    (void)fi;
    (void)units;
    (void)calls;
    memset(fp->acc, 0, (size_t)fp->m->group_count * sizeof *fp->acc);
    for (uint32_t pos = 0; pos < ep->n; pos++)
        fp->acc[fp->vis[ep->order[pos]]] += self[pos];
    for (uint32_t g = 0; g < fp->m->group_count; g++)
        if (fp->out[g] && !vp_series_push(fp->out[g], vp_vprof_ms(fp->acc[g]))) {
            fp->oom = 1;
            return 1;
        }
    return 0;
}

vp_errcode vp_vprof_group_self_fold(vp_vprof *m, const uint32_t *vis, vp_series *const *out,
                                    vp_error *err)
{
    if (!m->frame_count)
        return VP_OK;
    uint64_t *acc = malloc(((size_t)m->group_count + 1) * sizeof *acc);
    if (!acc)
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    fold_pass fp = {m, vis, acc, out, 0};
    vp_errcode rc = vp_vprof_pass(m, 0, m->frame_count - 1, fold_cb, &fp, err);
    free(acc);
    if (rc == VP_OK && fp.oom)
        rc = vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    return rc;
}

uint32_t vp_vprof_groups_with_nodes(const vp_vprof *m)
{
    uint32_t n = 0;
    for (uint32_t g = 0; g < m->group_count; g++)
        n += m->groups[g].has_nodes;
    return n;
}

int vp_vprof_tick_range(const vp_vprof *m, int32_t *lo, int32_t *hi)
{
    if (!m->frame_count)
        return 0;
    *lo = *hi = m->frame_tick[0];
    for (uint32_t i = 1; i < m->frame_count; i++) {
        if (m->frame_tick[i] < *lo)
            *lo = m->frame_tick[i];
        if (m->frame_tick[i] > *hi)
            *hi = m->frame_tick[i];
    }
    return 1;
}

uint32_t vp_vprof_group_by_name(const vp_vprof *m, const char *name)
{
    for (uint32_t g = 0; g < m->group_count; g++)
        if (strcmp(vp_vprof_name(m, m->groups[g].name), name) == 0)
            return g;
    return VP_VPROF_NO_NODE;
}
