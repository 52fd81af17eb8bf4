/* Hitches: the frames whose time jumps above their baseline (the median of
 * the frames just before: core/hitch, hitches.lua's rule), and for each the
 * nodes and budget groups whose self time jumped above theirs. The
 * definitions are hitches.lua's (stdlib/vp/hitches.lua, hitches.DEFINITIONS),
 * computed with the same floating-point operations, so the answers are
 * those of the Lua definition bit for bit: times are 4 us units, turned
 * into ms as the Lua code turns each value (x * 0.004), which keeps their
 * order. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/hitch.h"
#include "formats/vprof_int.h"

/* ---- detection -------------------------------------------------------------------- */

vp_errcode vp_vprof_hitches(const vp_vprof *m, const vp_hitch_rule *rule, vp_hitch **out,
                            uint32_t *count, vp_error *err)
{
    double *ms = malloc((size_t)m->frame_count * sizeof *ms + 1);
    if (!ms) {
        *out = NULL;
        *count = 0;
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    }
    for (uint32_t i = 0; i < m->frame_count; i++)
        ms[i] = vp_vprof_frame_ms(m, i);
    vp_errcode rc = vp_hitches(ms, m->frame_count, rule, out, count, err);
    free(ms);
    return rc;
}

/* ---- causes ------------------------------------------------------------------------- */

typedef struct cand {
    uint32_t index;
    uint64_t self; /* units, in the hitch frame */
} cand;

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* One frame decoded: self time by node index, and by group. */
typedef struct frame_self {
    uint64_t *node;  /* node_count */
    uint64_t *group; /* group_count; zero between uses */
    vprof_scratch s;
} frame_self;

static vp_errcode frame_self_read(vp_vprof *m, uint32_t fi, frame_self *fs, vp_error *err)
{
    const vp_vprof_epoch *ep;
    vp_errcode rc = vp_vprof_frame_next(m, fi, &fs->s, VPROF_WANT_SELF, UINT32_MAX, &ep, err);
    if (rc != VP_OK)
        return rc;
    for (uint32_t pos = 0; pos < ep->n; pos++) {
        uint64_t self = fs->s.self[pos];
        fs->node[ep->order[pos]] = self;
        fs->group[ep->group[pos]] += self;
    }
    return VP_OK;
}

/* Give the group sums back their zeros (only the groups of frame fi's
 * nodes can be nonzero). */
static void frame_self_clear(vp_vprof *m, uint32_t fi, frame_self *fs)
{
    for (uint32_t v = 0; v < m->frames[fi].n; v++)
        fs->group[m->nodes[v].group] = 0;
}

/* The ordered list of the best `limit` causes so far. */
typedef struct best {
    vp_vprof_cause *list;
    uint32_t n, limit;
    const vp_vprof *m;
    const uint32_t *rank; /* nodes: path order; NULL for groups (by name) */
} best;

static int cause_before(const best *b, const vp_vprof_cause *x, const vp_vprof_cause *y)
{
    if (x->excess_ms != y->excess_ms)
        return x->excess_ms > y->excess_ms;
    if (b->rank)
        return b->rank[x->index] < b->rank[y->index];
    int c = strcmp(vp_vprof_name(b->m, b->m->groups[x->index].name),
                   vp_vprof_name(b->m, b->m->groups[y->index].name));
    return c ? c < 0 : x->index < y->index;
}

static void best_offer(best *b, vp_vprof_cause c)
{
    if (b->n == b->limit && !cause_before(b, &c, &b->list[b->n - 1]))
        return;
    uint32_t at = b->n < b->limit ? b->n++ : b->n - 1;
    while (at > 0 && cause_before(b, &c, &b->list[at - 1])) {
        b->list[at] = b->list[at - 1];
        at--;
    }
    b->list[at] = c;
}

/* Values of a batch of candidates over the window frames, a row of `w`
 * values per candidate, kept under this many bytes (a longer window is
 * read again per batch). */
#define BATCH_BYTES ((size_t)32 << 20)

/* A cause is listed only when its excess is above this (ms): not a
 * rounding error's worth. */
#define MIN_EXCESS_MS 1e-9

/* Window values kept for the next hitch up to this many (a window of 30
 * frames and a thousand candidates); a longer window's are freed. */
#define KEEP_VALS ((size_t)32 << 10)

/* What vp_vprof_causes works in, kept by the model from one hitch to the
 * next: a capture with thousands of hitches would otherwise allocate and
 * free (and the allocator fault in again) the same arrays for each. */
struct vprof_causes_mem {
    frame_self fs;
    cand *cn, *cg;
    double *vals; /* the candidates' window values, in ms */
    /* Entries each array has room for (vp_vprof_grow). */
    uint32_t node_cap, cn_cap, group_cap, cg_cap, vals_cap;
};

void vprof_causes_mem_free(vp_vprof *m)
{
    struct vprof_causes_mem *c = m->causes_mem;
    if (!c)
        return;
    free(c->fs.node);
    free(c->fs.group);
    vp_vprof_scratch_free(&c->fs.s);
    free(c->cn);
    free(c->cg);
    free(c->vals);
    free(c);
    m->causes_mem = NULL;
}

/* m->causes_mem with room for the model's nodes and groups, fs.group zero
 * (fs.node needs no clearing: a frame's read sets every node it holds, and
 * only those are read); NULL on OOM. */
static struct vprof_causes_mem *causes_mem(vp_vprof *m)
{
    struct vprof_causes_mem *c = m->causes_mem;
    if (!c && !(c = m->causes_mem = calloc(1, sizeof *c)))
        return NULL;
    uint32_t nodes = m->node_count + 1, groups = m->group_count + 1;
    if (!vp_vprof_grow((void **)&c->fs.node, &c->node_cap, nodes, sizeof *c->fs.node) ||
        !vp_vprof_grow((void **)&c->cn, &c->cn_cap, nodes, sizeof *c->cn) ||
        !vp_vprof_grow((void **)&c->fs.group, &c->group_cap, groups, sizeof *c->fs.group) ||
        !vp_vprof_grow((void **)&c->cg, &c->cg_cap, groups, sizeof *c->cg)) {
        vprof_causes_mem_free(m);
        return NULL;
    }
    memset(c->fs.group, 0, (size_t)groups * sizeof *c->fs.group);
    return c;
}

vp_errcode vp_vprof_causes(vp_vprof *m, uint32_t fi, uint32_t window, uint32_t limit,
                           vp_vprof_cause *nodes, uint32_t *nc, vp_vprof_cause *groups,
                           uint32_t *ng, vp_error *err)
{
    *nc = *ng = 0;
    if (!limit || fi >= m->frame_count)
        return VP_OK;
    uint32_t first = fi > window ? fi - window : 0, w = fi - first;
    const uint32_t *rank = vp_vprof_path_order(m);
    struct vprof_causes_mem *mem = rank ? causes_mem(m) : NULL;
    if (!mem)
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    frame_self *fs = &mem->fs;
    cand *cn = mem->cn, *cg = mem->cg;
    vp_errcode rc = VP_OK;
    /* The window and the frame in one read when they are not too long
     * (the frame is read first, and would otherwise take a read of its own). */
    uint64_t from = m->frames[first].off, to = fi + 1 < m->frame_count ? m->frames[fi + 1].off : m->frames_end;
    if (to - from <= VP_SRC_WINDOW && !vp_src_get(&m->src, from, (size_t)(to - from), NULL, err))
        return err->code;
    /* The frame itself: every node and group with self time is a candidate,
     * the largest first. */
    if ((rc = frame_self_read(m, fi, fs, err)) != VP_OK)
        return rc;
    uint32_t ncn = 0, ncg = 0;
    for (uint32_t v = 0; v < m->frames[fi].n; v++)
        if (fs->node[v])
            cn[ncn++] = (cand){v, fs->node[v]};
    for (uint32_t g = 0; g < m->group_count; g++)
        if (fs->group[g])
            cg[ncg++] = (cand){g, fs->group[g]};
    frame_self_clear(m, fi, fs);
    qsort(cn, ncn, sizeof *cn, cmp_cand);
    qsort(cg, ncg, sizeof *cg, cmp_cand);

    best bn = {nodes, 0, limit, m, rank}, bg = {groups, 0, limit, m, NULL};
    size_t bytes = m->causes_batch ? m->causes_batch : BATCH_BYTES;
    size_t batch = w ? bytes / ((size_t)w * sizeof *mem->vals) : ncn + ncg;
    if (batch < 1)
        batch = 1;
    /* BATCH_BYTES of values, or one window's when that is more: within
     * the frame count's 32 bits. */
    size_t nvals = (batch < ncn + ncg ? batch : ncn + ncg) * (size_t)(w ? w : 1) + 1;
    if (nvals >= UINT32_MAX ||
        !vp_vprof_grow((void **)&mem->vals, &mem->vals_cap, (uint32_t)nvals, sizeof *mem->vals))
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    double *vals = mem->vals;
    /* Candidates in batches: nodes first, then groups. A candidate's excess
     * is at most its self time (baselines are >= 0), so once the list is
     * full, a node whose self time is below the last excess cannot make it,
     * nor can any after it: the rest are skipped. */
    uint32_t kn = 0, kg = 0;
    while (kn < ncn || kg < ncg) {
        if (kn < ncn && bn.n == limit && vp_vprof_ms(cn[kn].self) < bn.list[limit - 1].excess_ms)
            kn = ncn;
        if (kg < ncg && bg.n == limit && vp_vprof_ms(cg[kg].self) < bg.list[limit - 1].excess_ms)
            kg = ncg;
        uint32_t bn_n = (uint32_t)(ncn - kn < batch ? ncn - kn : batch);
        uint32_t bg_n = (uint32_t)(ncg - kg < batch - bn_n ? ncg - kg : batch - bn_n);
        if (!bn_n && !bg_n)
            break;
        for (uint32_t j = first; j < fi; j++) {
            if ((rc = frame_self_read(m, j, fs, err)) != VP_OK)
                goto out;
            uint32_t n = m->frames[j].n;
            for (uint32_t c = 0; c < bn_n; c++) {
                uint32_t v = cn[kn + c].index;
                vals[(size_t)c * w + (j - first)] = vp_vprof_ms(v < n ? fs->node[v] : 0);
            }
            for (uint32_t c = 0; c < bg_n; c++)
                vals[(size_t)(bn_n + c) * w + (j - first)] = vp_vprof_ms(fs->group[cg[kg + c].index]);
            frame_self_clear(m, j, fs);
        }
        for (uint32_t c = 0; c < bn_n + bg_n; c++) {
            const cand *x = c < bn_n ? &cn[kn + c] : &cg[kg + c - bn_n];
            best *b = c < bn_n ? &bn : &bg;
            double self_ms = vp_vprof_ms(x->self);
            if (b->n == limit && self_ms < b->list[limit - 1].excess_ms)
                continue;
            double *row = vals + (size_t)c * w;
            if (w) {
                /* A cheap test that spares most candidates the median. A
                 * candidate is listed only if its excess is above
                 * MIN_EXCESS_MS and, once the list is full, not below e,
                 * the last excess listed. Call a value v high when self - v
                 * is at most MIN_EXCESS_MS (list not full) or below e
                 * (full), in ms as computed below. The baseline is at least
                 * the lower middle value (an even count's mean of the two
                 * middle ones is not below the smaller) and self - x only
                 * falls as x rises, so once w - (w - 1) / 2 values are
                 * high, the lower middle one is, and the candidate cannot
                 * be listed. */
                int full = b->n == limit;
                double e = full ? b->list[limit - 1].excess_ms : MIN_EXCESS_MS;
                uint32_t high = 0;
                if (full)
                    for (uint32_t j = 0; j < w; j++)
                        high += self_ms - row[j] < e;
                else
                    for (uint32_t j = 0; j < w; j++)
                        high += self_ms - row[j] <= e;
                if (high >= w - (w - 1) / 2)
                    continue;
            }
            double base = w ? vp_median(row, w) : 0;
            double excess = self_ms - base;
            if (excess > MIN_EXCESS_MS)
                best_offer(b, (vp_vprof_cause){x->index, self_ms, excess});
        }
        kn += bn_n;
        kg += bg_n;
    }
    *nc = bn.n;
    *ng = bg.n;
out:
    if (mem->vals_cap > KEEP_VALS) { /* a long window's: not kept */
        free(mem->vals);
        mem->vals = NULL;
        mem->vals_cap = 0;
    }
    return rc;
}
