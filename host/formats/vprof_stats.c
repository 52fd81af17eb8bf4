/* Statistics over the frames: the whole-capture accumulator the open pass
 * and the statistics pass share (per-group self-time summaries, folded or
 * not, and per-node totals), the same totals over a range, the one pass
 * that measures per-frame quantities (the frame time, a node's field, a
 * group's self time) into their sinks (columns, summaries, batches), and
 * the summary figures read off the model. The bindings only hand the results to Lua. */
#include <stdlib.h>
#include <string.h>

#include "core/sort.h"
#include "formats/vprof_int.h"

#define MS_PER_UNIT (VP_VPROF_US_PER_UNIT / 1000.0)

/* ---- the model's statistics ------------------------------------------------ */

static int streams_fit(vp_vprof *m)
{
    vp_vprof_stats *st = &m->stats;
    if (m->group_count <= st->gcap && st->group)
        return 1;
    uint32_t ncap = m->group_count > 16 ? m->group_count : 16;
    vp_stream **g = realloc(st->group, (size_t)ncap * sizeof *g);
    if (g)
        st->group = g;
    vp_stream **f = realloc(st->folded, (size_t)ncap * sizeof *f);
    if (f)
        st->folded = f;
    if (!g || !f)
        return 0;
    for (uint32_t i = st->gcap; i < ncap; i++)
        g[i] = f[i] = NULL;
    st->gcap = ncap;
    return 1;
}

static void streams_free(vp_stream **arr, uint32_t n)
{
    for (uint32_t i = 0; arr && i < n; i++) {
        if (arr[i])
            vp_stream_free(arr[i]);
        free(arr[i]);
        arr[i] = NULL;
    }
}

int vprof_stats_alloc(vp_vprof *m, unsigned what)
{
    return !(what & (VP_VPROF_STATS_GROUPS | VP_VPROF_STATS_FOLDED)) || streams_fit(m);
}

void vprof_stats_drop(vp_vprof *m, unsigned what)
{
    vp_vprof_stats *st = &m->stats;
    if (what & VP_VPROF_STATS_GROUPS)
        streams_free(st->group, st->gcap);
    if (what & VP_VPROF_STATS_FOLDED)
        streams_free(st->folded, st->gcap);
    if (what & VP_VPROF_STATS_NODES) {
        free(st->node);
        st->node = NULL;
        free(st->node_some);
        st->node_some = NULL;
    }
    st->have &= ~what;
}

/* ---- the accumulator ---------------------------------------------------------- */

int vprof_acc_begin(vprof_acc *a, vp_vprof *m, unsigned what, vp_vprof_node_stat *out,
                    uint32_t first)
{
    memset(a, 0, sizeof *a);
    /* Folded figures start as copies of the plain ones (acc_epoch). */
    if (what & VP_VPROF_STATS_FOLDED)
        what |= VP_VPROF_STATS_GROUPS;
    a->what = what;
    a->first = first;
    a->out = out;
    a->own_out = out == NULL;
    if (out)
        memset(out, 0, (size_t)m->node_count * sizeof *out);
    for (uint32_t v = 0; out && v < m->node_count; v++)
        out[v].peak_frame = UINT32_MAX;
    vprof_stats_drop(m, what & ~VP_VPROF_STATS_NODES);
    return vprof_stats_alloc(m, what);
}

static void gsets_free(struct vprof_gsets *g)
{
    free(g->active);
    free(g->start);
    free(g->pos);
    free(g->in);
}

void vprof_acc_names(vprof_acc *a, const char *const *names, uint32_t n)
{
    if (a->own_out && (a->what & VP_VPROF_STATS_NODES)) {
        a->names = names;
        a->n_names = n;
    }
}

void vprof_acc_free(vprof_acc *a)
{
    free(a->want);
    free(a->wpos);
    free(a->order);
    free(a->tot);
    free(a->inner);
    gsets_free(&a->g);
    gsets_free(&a->f);
    if (a->own_out)
        free(a->out);
    memset(a, 0, sizeof *a);
}

/* Grow *p to n elements of `size` bytes, zeroing the new ones; 0 on OOM. */
static int fit(void **p, uint32_t old, uint32_t n, size_t size)
{
    void *q = realloc(*p, (size_t)n * size + 1);
    if (!q)
        return 0;
    memset((char *)q + (size_t)old * size, 0, (size_t)(n - old) * size);
    *p = q;
    return 1;
}

static int groups_fit(vprof_acc *a, vp_vprof *m, uint32_t n)
{
    if (m->group_count > a->gcap) {
        uint32_t ncap = m->group_count > 16 ? m->group_count : 16;
        if (!fit((void **)&a->g.active, a->gcap, ncap, sizeof(uint32_t)) ||
            !fit((void **)&a->g.start, a->gcap, ncap + 1, sizeof(uint32_t)) ||
            !fit((void **)&a->g.in, a->gcap, ncap, 1) ||
            !fit((void **)&a->f.active, a->gcap, ncap, sizeof(uint32_t)) ||
            !fit((void **)&a->f.start, a->gcap, ncap + 1, sizeof(uint32_t)) ||
            !fit((void **)&a->f.in, a->gcap, ncap, 1))
            return 0;
        a->gcap = ncap;
    }
    if (n > a->pcap) {
        if (!fit((void **)&a->g.pos, a->pcap, n, sizeof(uint32_t)) ||
            !fit((void **)&a->f.pos, a->pcap, n, sizeof(uint32_t)))
            return 0;
        a->pcap = n;
    }
    return streams_fit(m);
}

/* Make a stream exist, with the zeros of the frames before fi. */
static int stream_start(vp_stream **slot, uint32_t fi)
{
    if (*slot)
        return 1;
    vp_stream *s = malloc(sizeof *s);
    if (!s)
        return 0;
    vp_stream_init(s);
    if (fi && !vp_stream_add(s, 0, fi)) {
        free(s);
        return 0;
    }
    *slot = s;
    return 1;
}

/* The positions 0 .. n - 1 ordered by their key (by[pos], mapped through
 * map when it is not NULL; keys < nkeys) into pos, key x's run starting at
 * start[x] (nkeys + 1 entries): a counting sort, stable. */
static void positions_by_key(uint32_t nkeys, const uint32_t *by, const uint32_t *map, uint32_t n,
                             uint32_t *pos, uint32_t *start)
{
    memset(start, 0, ((size_t)nkeys + 1) * sizeof *start);
    for (uint32_t p = 0; p < n; p++)
        start[(map ? map[by[p]] : by[p]) + 1]++;
    for (uint32_t x = 0; x < nkeys; x++)
        start[x + 1] += start[x];
    for (uint32_t p = 0; p < n; p++)
        pos[start[map ? map[by[p]] : by[p]]++] = p;
    for (uint32_t x = nkeys; x > 0; x--) /* each run's start again */
        start[x] = start[x - 1];
    start[0] = 0;
}

/* The groups of an epoch's positions (by[pos]) and each one's positions.
 * Nodes are only ever added, so the set of groups only grows (a folded
 * group can change with a group's flags, and then the folded figures are
 * recomputed anyway: fold_changed). scratch (group_count entries) maps
 * a group to its index in active while the runs are made. */
static int gsets_build(struct vprof_gsets *g, const uint32_t *by, uint32_t n, vp_stream **streams,
                       uint32_t fi, uint32_t *scratch)
{
    for (uint32_t pos = 0; pos < n; pos++) {
        uint32_t x = by[pos];
        if (!g->in[x]) {
            if (!stream_start(&streams[x], fi))
                return 0;
            g->in[x] = 1;
            g->active[g->n++] = x;
        }
    }
    /* scratch: group -> its index in active, the key the runs are in */
    for (uint32_t k = 0; k < g->n; k++)
        scratch[g->active[k]] = k;
    positions_by_key(g->n, by, scratch, n, g->pos, g->start);
    return 1;
}

/* Fold the position totals of the epoch that ends into the node totals. */
static void acc_flush(vprof_acc *a)
{
    for (uint32_t pos = 0; pos < a->ep_n; pos++) {
        vp_vprof_node_stat *o = &a->out[a->order[pos]];
        const struct vprof_pos_tot *t = &a->tot[pos];
        int inner = a->inner[pos];
        uint64_t self = inner ? t->self : t->time, peak_self = inner ? t->peak_self : t->peak;
        o->time += t->time;
        o->self += self;
        o->calls += t->calls;
        if (t->peak > o->peak) { /* later frames: only a larger peak wins */
            o->peak = t->peak;
            o->peak_frame = t->peak_frame;
        }
        if (peak_self > o->peak_self)
            o->peak_self = peak_self;
    }
}

static int out_fit(vprof_acc *a, uint32_t n)
{
    if (!a->own_out || n <= a->out_cap)
        return 1;
    uint32_t ncap = a->out_cap ? a->out_cap : 64;
    while (ncap < n)
        ncap = ncap > UINT32_MAX / 2 ? n : ncap * 2;
    if (!fit((void **)&a->out, a->out_cap, ncap, sizeof *a->out))
        return 0;
    for (uint32_t v = a->out_cap; v < ncap; v++)
        a->out[v].peak_frame = UINT32_MAX;
    a->out_cap = ncap;
    return 1;
}

/* The wanted nodes (vprof_acc_names) among the epoch's n positions: the
 * nodes added since the last epoch are looked up by name, and wpos lists
 * the positions of every wanted node. */
static int want_epoch(vprof_acc *a, vp_vprof *m, uint32_t n)
{
    if (m->node_count > a->want_cap) {
        if (!fit((void **)&a->want, a->want_cap, m->node_count, 1))
            return 0;
        a->want_cap = m->node_count;
    }
    for (uint32_t v = a->want_n; v < m->node_count; v++) {
        const char *name = vp_vprof_name(m, m->nodes[v].name);
        for (uint32_t k = 0; k < a->n_names && !a->want[v]; k++)
            a->want[v] = strcmp(name, a->names[k]) == 0;
    }
    a->want_n = m->node_count;
    if (!fit((void **)&a->wpos, 0, n, sizeof *a->wpos))
        return 0;
    a->nw = 0;
    for (uint32_t pos = 0; pos < n; pos++)
        if (a->want[a->order[pos]])
            a->wpos[a->nw++] = pos;
    return 1;
}

/* A new epoch (the tree grew, or the pass began): fold the totals so far
 * into the nodes, start position totals for the new order, and the streams
 * and position runs of its groups. */
static int acc_epoch(vprof_acc *a, vp_vprof *m, const vp_vprof_epoch *ep, uint32_t fi)
{
    uint32_t n = ep->n;
    if (a->what & VP_VPROF_STATS_NODES) {
        if (!out_fit(a, n))
            return 0;
        acc_flush(a);
        if (n > a->pos_cap) {
            if (!fit((void **)&a->order, 0, n, sizeof *a->order) ||
                !fit((void **)&a->tot, 0, n, sizeof *a->tot) ||
                !fit((void **)&a->inner, 0, n, sizeof *a->inner))
                return 0;
            a->pos_cap = n;
        }
        memcpy(a->order, ep->order, (size_t)n * sizeof *a->order);
        memset(a->tot, 0, (size_t)n * sizeof *a->tot);
        memset(a->inner, 0, (size_t)n * sizeof *a->inner);
        for (uint32_t j = 0; j < ep->n_inner; j++)
            a->inner[ep->inner[j]] = 1;
        if (a->names && !want_epoch(a, m, n))
            return 0;
    }
    if (a->what & (VP_VPROF_STATS_GROUPS | VP_VPROF_STATS_FOLDED)) {
        if (!groups_fit(a, m, n))
            return 0;
        uint32_t *scratch = malloc(((size_t)m->group_count + 1) * sizeof *scratch);
        int ok = scratch != NULL;
        uint32_t before = a->g.n; /* the groups of the epochs before */
        if (ok && (a->what & VP_VPROF_STATS_GROUPS))
            ok = gsets_build(&a->g, ep->group, n, m->stats.group, fi, scratch);
        if (ok && (a->what & VP_VPROF_STATS_FOLDED) && !a->f_live) {
            /* Until some node folds elsewhere the folded sums are the plain
             * ones: start them here as copies of those of the groups the
             * nodes before this epoch count towards (folding cannot move
             * them: a flag change is fold_changed); the new nodes' folded
             * groups start with zeros below. */
            for (uint32_t pos = 0; pos < n && !a->f_live; pos++)
                a->f_live = ep->vis[pos] != ep->group[pos];
            for (uint32_t k = 0; ok && a->f_live && k < before; k++) {
                uint32_t g = a->g.active[k];
                vp_stream *c = malloc(sizeof *c);
                ok = c && vp_stream_copy(c, m->stats.group[g]);
                if (!ok) {
                    free(c);
                    break;
                }
                m->stats.folded[g] = c;
                a->f.in[g] = 1;
                a->f.active[a->f.n++] = g;
            }
        }
        if (ok && a->f_live)
            ok = gsets_build(&a->f, ep->vis, n, m->stats.folded, fi, scratch);
        free(scratch);
        if (!ok)
            return 0;
    }
    a->ep_n = n;
    return 1;
}

/* Each group's self time in the frame, gathered from its positions into a
 * register (the runs' lengths repeat frame after frame, so their loop
 * branches predict well). */
static int gsets_add(const struct vprof_gsets *g, vp_stream **streams, const uint64_t *self)
{
    const uint32_t *pos = g->pos;
    for (uint32_t k = 0; k < g->n; k++) {
        uint64_t sum = 0;
        for (uint32_t j = g->start[k]; j < g->start[k + 1]; j++)
            sum += self[pos[j]];
        if (!vp_stream_add(streams[g->active[k]], sum, 1))
            return 0;
    }
    return 1;
}

/* A position's totals: one frame's time and calls, and its self time. */
static inline void tot_add(struct vprof_pos_tot *t, uint64_t u, uint32_t calls, uint32_t fi)
{
    t->time += u;
    t->calls += calls;
    /* New peaks are rare after the first frames: branches, not stores
     * every time. */
    if (u > t->peak) { /* the first frame of a new peak */
        t->peak = u;
        t->peak_frame = fi;
    }
}

static inline void tot_self(struct vprof_pos_tot *t, uint64_t sv)
{
    t->self += sv;
    if (sv > t->peak_self)
        t->peak_self = sv;
}

int vprof_acc_frame(vprof_acc *a, vp_vprof *m, const vp_vprof_epoch *ep, uint32_t fi,
                    const uint64_t *units, const uint64_t *self, const uint32_t *calls)
{
    if (ep->n != a->ep_n) {
        if (!acc_epoch(a, m, ep, fi))
            return 0;
    }
    uint32_t n = ep->n;
    struct vprof_pos_tot *t = a->tot;
    if (a->names) { /* node totals of some nodes: the wanted ones */
        for (uint32_t k = 0; k < a->nw; k++) {
            uint32_t pos = a->wpos[k];
            tot_add(&t[pos], units[pos], calls[pos], fi);
            if (a->inner[pos])
                tot_self(&t[pos], self[pos]);
        }
    } else if (a->what & VP_VPROF_STATS_NODES) {
        for (uint32_t pos = 0; pos < n; pos++)
            tot_add(&t[pos], units[pos], calls[pos], fi);
        /* A leaf's self time is its time: only the inner nodes keep self
         * totals (acc_flush takes the leaves' from their time totals), and
         * self[] need only hold theirs (vp_vprof_self_inner). */
        for (uint32_t j = 0; j < ep->n_inner; j++)
            tot_self(&t[ep->inner[j]], self[ep->inner[j]]);
    }
    if ((a->what & VP_VPROF_STATS_GROUPS) && !gsets_add(&a->g, m->stats.group, self))
        return 0;
    if (a->f_live && !gsets_add(&a->f, m->stats.folded, self))
        return 0;
    return 1;
}

int vprof_acc_end(vprof_acc *a, vp_vprof *m, uint32_t frames)
{
    if (a->what & VP_VPROF_STATS_NODES) {
        if (!out_fit(a, m->node_count))
            return 0;
        acc_flush(a);
        a->ep_n = 0;
        /* Frames of the range [first, first + frames) holding each node, and
         * the peak frame of a node never above 0: its first such frame. */
        uint64_t end = (uint64_t)a->first + frames;
        for (uint32_t v = 0; v < m->node_count; v++) {
            vp_vprof_node_stat *o = &a->out[v];
            uint64_t from = m->nodes[v].first_frame > a->first ? m->nodes[v].first_frame : a->first;
            o->frames = from < end ? (uint32_t)(end - from) : 0;
            if (o->peak_frame == UINT32_MAX)
                o->peak_frame = o->frames ? (uint32_t)from : 0;
        }
        if (a->own_out) {
            free(m->stats.node);
            m->stats.node = a->out;
            a->out = NULL;
            a->out_cap = 0;
            free(m->stats.node_some);
            m->stats.node_some = NULL;
            if (a->names) { /* some nodes' totals: the wanted ones */
                if (m->node_count > a->want_cap &&
                    !fit((void **)&a->want, a->want_cap, m->node_count, 1))
                    return 0;
                m->stats.node_some = a->want;
                a->want = NULL;
                a->want_cap = 0;
            }
        }
    }
    if (a->own_out)
        m->stats.have |= a->names ? a->what & ~VP_VPROF_STATS_NODES : a->what;
    return 1;
}

/* ---- statistics on demand ---------------------------------------------------------- */

/* The accumulator's pass (a begun): frames [first, end) decoded whole (calls
 * as `want` says), added, and the totals finished. */
static vp_errcode acc_pass(vprof_acc *a, vp_vprof *m, uint32_t first, uint32_t end, unsigned want,
                           vp_error *err)
{
    vprof_scratch s = {0};
    vp_errcode rc = VP_OK;
    for (uint32_t fi = first; fi < end && rc == VP_OK; fi++) {
        const vp_vprof_epoch *ep;
        if ((rc = vp_vprof_frame_next(m, fi, &s, want, UINT32_MAX, &ep, err)) == VP_OK &&
            !vprof_acc_frame(a, m, ep, fi, s.units, s.self, s.calls))
            rc = vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    }
    if (rc == VP_OK && !vprof_acc_end(a, m, end - first))
        rc = vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    vp_vprof_scratch_free(&s);
    return rc;
}

vp_errcode vp_vprof_stats_need(vp_vprof *m, unsigned what, vp_error *err)
{
    if (!m->fold_differs && (m->stats.have & VP_VPROF_STATS_GROUPS))
        m->stats.have |= VP_VPROF_STATS_FOLDED; /* the same figures */
    unsigned missing = what & ~m->stats.have & VP_VPROF_STATS_ALL;
    if (!missing)
        return VP_OK;
    /* One pass computes everything not there yet, so no script pays for a
     * third. Folding changes nothing without hidden groups. */
    missing = ~m->stats.have & VP_VPROF_STATS_ALL;
    if (!m->fold_differs)
        missing &= ~VP_VPROF_STATS_FOLDED;
    vprof_acc a;
    unsigned want = VPROF_WANT_SELF | ((missing & VP_VPROF_STATS_NODES) ? VPROF_WANT_CALLS : 0);
    vp_errcode rc = vprof_acc_begin(&a, m, missing, NULL, 0)
                        ? acc_pass(&a, m, 0, m->frame_count, want, err)
                        : vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    if (rc != VP_OK)
        vprof_stats_drop(m, missing);
    vprof_acc_free(&a);
    if (rc == VP_OK && !m->fold_differs)
        m->stats.have |= VP_VPROF_STATS_FOLDED;
    return rc;
}

const vp_vprof_node_stat *vp_vprof_node_total(const vp_vprof *m, uint32_t v)
{
    const vp_vprof_stats *st = &m->stats;
    if (v >= m->node_count || !st->node)
        return NULL;
    if ((st->have & VP_VPROF_STATS_NODES) || (st->node_some && st->node_some[v]))
        return &st->node[v];
    return NULL;
}

vp_stream *vp_vprof_group_stream(vp_vprof *m, uint32_t g, int fold)
{
    vp_vprof_stats *st = &m->stats;
    if (g >= st->gcap)
        return NULL;
    if (fold && m->fold_differs)
        return (st->have & VP_VPROF_STATS_FOLDED) ? st->folded[g] : NULL;
    return (st->have & VP_VPROF_STATS_GROUPS) ? st->group[g] : NULL;
}

/* ---- node totals and columns over a range ------------------------------------------ */

vp_errcode vp_vprof_node_stats(vp_vprof *m, uint32_t first, uint32_t last,
                               vp_vprof_node_stat *out, vp_error *err)
{
    if (!m->frame_count || first > last || last >= m->frame_count) {
        memset(out, 0, (size_t)m->node_count * sizeof *out);
        return VP_OK;
    }
    if (first == 0 && last == m->frame_count - 1) {
        vp_errcode rc = vp_vprof_stats_need(m, VP_VPROF_STATS_NODES, err);
        if (rc == VP_OK)
            memcpy(out, m->stats.node, (size_t)m->node_count * sizeof *out);
        return rc;
    }
    vprof_acc a;
    vp_errcode rc = vprof_acc_begin(&a, m, VP_VPROF_STATS_NODES, out, first)
                        ? acc_pass(&a, m, first, last + 1, VPROF_WANT_CALLS | VPROF_WANT_SELF, err)
                        : vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    vprof_acc_free(&a);
    return rc;
}

typedef struct order_ctx {
    const double *key;
    const uint8_t *has; /* the node has a value */
    const uint32_t *rank;
} order_ctx;

/* Sorts before: a larger value, a value before none, then the path order. */
static int cmp_order(uint32_t a, uint32_t b, const void *ctx)
{
    const order_ctx *c = ctx;
    if (c->has[a] != c->has[b])
        return c->has[a] ? -1 : 1;
    if (c->has[a] && c->key[a] != c->key[b])
        return c->key[a] > c->key[b] ? -1 : 1;
    return c->rank[a] < c->rank[b] ? -1 : c->rank[a] > c->rank[b];
}

int vp_vprof_node_order(vp_vprof *m, const vp_vprof_node_stat *st, uint32_t nframes,
                        vp_vprof_node_key key, uint32_t *out, uint32_t *count)
{
    *count = 0;
    const uint32_t *rank = vp_vprof_path_order(m);
    double *k = malloc((size_t)m->node_count * sizeof *k + 1);
    uint8_t *has = malloc((size_t)m->node_count + 1);
    if (!rank || !k || !has) {
        free(k);
        free(has);
        return 0;
    }
    /* The values as top.lua's rows hold them (doubles computed the same
     * way), so the order is the one sorting those rows gives. */
    for (uint32_t v = 1; v < m->node_count; v++) {
        const vp_vprof_node_stat *a = &st[v];
        if (!a->frames)
            continue;
        double time_ms = vp_vprof_ms(a->time), per_frame = time_ms / (double)nframes;
        has[v] = 1;
        switch (key) {
        case VP_VPROF_BY_TIME: k[v] = time_ms; break;
        case VP_VPROF_BY_SELF: k[v] = vp_vprof_ms(a->self); break;
        case VP_VPROF_BY_PER_CALL:
            has[v] = a->calls > 0;
            k[v] = has[v] ? time_ms / (double)a->calls : 0;
            break;
        case VP_VPROF_BY_PEAK: k[v] = vp_vprof_ms(a->peak); break;
        case VP_VPROF_BY_PEAK_OVER_AVG:
            has[v] = per_frame > 0;
            k[v] = has[v] ? vp_vprof_ms(a->peak) / per_frame : 0;
            break;
        }
        out[(*count)++] = v;
    }
    order_ctx ctx = {k, has, rank};
    vp_sort_idx(out, *count, cmp_order, &ctx);
    free(k);
    free(has);
    return 1;
}

int vp_vprof_has_hidden_groups(const vp_vprof *m)
{
    for (uint32_t g = 0; g < m->group_count; g++)
        if (m->groups[g].has_nodes && (m->groups[g].flags & VP_BUDGETFLAG_HIDDEN))
            return 1;
    return 0;
}

/* ---- measuring: one pass, each quantity into its sinks ------------------------------- */

/* Where a quantity's value of a frame comes from. */
enum { SRC_FRAME, SRC_UNITS, SRC_SELF, SRC_CALLS, SRC_GROUP, SRC_FOLDED };

/* A quantity being measured (one with some sink): its source, and its batch
 * sample being filled, segment after segment. */
typedef struct mq {
    const vp_vprof_quantity *q;
    uint8_t src;
    uint32_t pos;  /* nodes: position in the frame's epoch, NO_NODE before the
                    * node exists; groups: the group index */
    uint32_t gs, ge; /* groups: the run [gs, ge) of by_group[src] holding the
                      * epoch's positions that count towards the group */
    double scale;  /* the value of a unit: ms, or 1 for calls */
    vp_batched *b; /* the sample (q->batches asked for), else NULL */
    vp_hist h;     /* the segment's value counts (units) */
    double sum;    /* and its sum, added in frame order as a column's batch
                    * sum is */
} mq;

typedef struct measure {
    vp_vprof *m;
    mq *q;
    size_t n;
    const size_t *cuts;
    size_t k, b;      /* segments, the one being filled */
    uint32_t *posof;  /* node -> position in the epoch */
    /* The epoch's positions ordered by the group they count towards, plain
     * (ep->group) and folded (ep->vis), and where each group's run starts:
     * a group's self time is then a sum over its run, in a register. */
    uint32_t *by_group[2], *gstart[2];
    uint32_t ep_n;
    double *v;        /* scratch for a segment's flush */
    uint64_t *c;
    size_t room;
} measure;

static int cuts_fit(const vp_vprof *m, const size_t *cuts, size_t k)
{
    if (!cuts || !k || cuts[0] != 0 || cuts[k] != m->frame_count)
        return 0;
    for (size_t b = 0; b < k; b++)
        if (cuts[b + 1] < cuts[b])
            return 0;
    return 1;
}

/* A new epoch: each node quantity's position, and how many records are to
 * be read (a time or a call count needs those up to the last node asked
 * for; self times need every record, vp_vprof_frame_decode reads them). */
static uint32_t measure_epoch(measure *ms, const vp_vprof_epoch *ep)
{
    ms->ep_n = ep->n;
    for (uint32_t pos = 0; pos < ep->n; pos++)
        ms->posof[ep->order[pos]] = pos;
    for (int f = 0; f < 2; f++)
        if (ms->by_group[f])
            positions_by_key(ms->m->group_count, f ? ep->vis : ep->group, NULL, ep->n, ms->by_group[f],
                             ms->gstart[f]);
    uint32_t upto = 0;
    for (size_t i = 0; i < ms->n; i++) {
        mq *x = &ms->q[i];
        if (x->src == SRC_GROUP || x->src == SRC_FOLDED) {
            const uint32_t *st = ms->gstart[x->src == SRC_FOLDED];
            x->gs = st[x->pos];
            x->ge = st[x->pos + 1];
            continue;
        }
        if (x->src != SRC_UNITS && x->src != SRC_SELF && x->src != SRC_CALLS)
            continue;
        x->pos = x->q->index < ep->n ? ms->posof[x->q->index] : VP_VPROF_NO_NODE;
        if (x->pos != VP_VPROF_NO_NODE && x->pos + 1 > upto)
            upto = x->pos + 1;
    }
    return upto;
}

/* The counts of h (units) and sum into batch b of s. */
static int put_hist(measure *ms, vp_batched *s, size_t b, vp_hist *h, double sum, double scale)
{
    uint32_t d;
    const vp_hist_slot *sl = vp_hist_sorted(h, &d);
    if (!sl && h->n)
        return 0;
    if (d > ms->room) {
        free(ms->v);
        free(ms->c);
        ms->v = malloc((size_t)d * sizeof *ms->v);
        ms->c = malloc((size_t)d * sizeof *ms->c);
        ms->room = ms->v && ms->c ? d : 0;
        if (!ms->room)
            return 0;
    }
    for (uint32_t i = 0; i < d; i++) {
        ms->v[i] = (double)sl[i].value * scale;
        ms->c[i] = sl[i].count - (i ? sl[i - 1].count : 0);
    }
    return vp_batched_put(s, b, ms->v, ms->c, d, sum);
}

/* Before frame fi: close the segments that end there. */
static int segments_at(measure *ms, size_t fi)
{
    while (ms->b < ms->k && ms->cuts[ms->b + 1] <= fi) {
        for (size_t i = 0; i < ms->n; i++) {
            mq *x = &ms->q[i];
            if (!x->b)
                continue;
            if (!put_hist(ms, x->b, ms->b, &x->h, x->sum, x->scale))
                return 0;
            vp_hist_free(&x->h);
            x->sum = 0;
        }
        ms->b++;
    }
    return 1;
}

/* One frame's value of each quantity into its sinks. */
static int measure_frame(measure *ms, uint32_t fi, const vprof_scratch *s)
{
    for (size_t i = 0; i < ms->n; i++) {
        mq *x = &ms->q[i];
        uint64_t v;
        switch (x->src) {
        case SRC_FRAME: v = ms->m->frames[fi].units; break;
        case SRC_UNITS: v = x->pos == VP_VPROF_NO_NODE ? 0 : s->units[x->pos]; break;
        case SRC_SELF: v = x->pos == VP_VPROF_NO_NODE ? 0 : s->self[x->pos]; break;
        case SRC_CALLS: v = x->pos == VP_VPROF_NO_NODE ? 0 : s->calls[x->pos]; break;
        default: { /* a group's self time: the sum over its positions */
            const uint32_t *bp = ms->by_group[x->src == SRC_FOLDED];
            v = 0;
            for (uint32_t j = x->gs; j < x->ge; j++)
                v += s->self[bp[j]];
            break;
        }
        }
        const vp_vprof_quantity *q = x->q;
        if (q->column && !vp_series_push_fast(q->column, (double)v * x->scale))
            return 0;
        if (q->summary && !vp_stream_add(q->summary, v, 1))
            return 0;
        if (x->b) {
            x->sum += (double)v * x->scale;
            if (!vp_hist_add(&x->h, v, 1))
                return 0;
        }
    }
    return 1;
}

static vp_errcode check_quantities(const vp_vprof *m, const vp_vprof_quantity *q, size_t nq,
                                   vp_error *err)
{
    for (size_t i = 0; i < nq; i++) {
        if (q[i].kind == VP_VPROF_Q_NODE && q[i].index >= m->node_count)
            return vp_fail(err, VP_ELIMIT, UINT64_MAX, "measure: no node %u", q[i].index);
        if (q[i].kind == VP_VPROF_Q_GROUP && q[i].index >= m->group_count)
            return vp_fail(err, VP_ELIMIT, UINT64_MAX, "measure: no group %u", q[i].index);
        if (q[i].kind != VP_VPROF_Q_FRAME && q[i].kind != VP_VPROF_Q_NODE &&
            q[i].kind != VP_VPROF_Q_GROUP)
            return vp_fail(err, VP_ELIMIT, UINT64_MAX, "measure: no such quantity");
    }
    return VP_OK;
}

vp_errcode vp_vprof_measure(vp_vprof *m, vp_vprof_quantity *q, size_t nq, const size_t *cuts,
                            size_t k, vp_error *err)
{
    int batches = 0, sinks = 0;
    for (size_t i = 0; i < nq; i++) {
        if (q[i].batches) {
            *q[i].batches = NULL;
            batches = 1;
        }
        sinks |= q[i].column || q[i].summary || q[i].batches;
    }
    vp_errcode rc = check_quantities(m, q, nq, err);
    if (rc != VP_OK)
        return rc;
    if (batches && !cuts_fit(m, cuts, k))
        return vp_fail(err, VP_ELIMIT, UINT64_MAX, "batches: the cuts must ascend from 0 to the frame count");
    if (!sinks)
        return VP_OK; /* nothing asked: no frame read */
    measure ms = {.m = m, .cuts = cuts, .k = batches ? k : 0, .ep_n = UINT32_MAX};
    vprof_scratch s = {0};
    ms.q = calloc(nq + 1, sizeof *ms.q);
    if (!ms.q)
        goto oom;
    unsigned want = 0;
    int decode = 0, plain = 0, folded = 0;
    for (size_t i = 0; i < nq; i++) {
        if (!q[i].column && !q[i].summary && !q[i].batches)
            continue; /* nothing asked of it */
        mq *x = &ms.q[ms.n++];
        x->q = &q[i];
        x->scale = MS_PER_UNIT;
        x->pos = q[i].index;
        if (q[i].kind == VP_VPROF_Q_FRAME) {
            x->src = SRC_FRAME;
        } else if (q[i].kind == VP_VPROF_Q_GROUP) {
            x->src = q[i].fold && m->fold_differs ? SRC_FOLDED : SRC_GROUP;
            plain |= x->src == SRC_GROUP;
            folded |= x->src == SRC_FOLDED;
            want |= VPROF_WANT_SELF;
        } else if (q[i].field == VP_VPROF_CALLS) {
            x->src = SRC_CALLS;
            x->scale = 1.0;
            want |= VPROF_WANT_CALLS;
        } else {
            x->src = q[i].field == VP_VPROF_SELF_MS ? SRC_SELF : SRC_UNITS;
            want |= x->src == SRC_SELF ? VPROF_WANT_SELF : 0;
        }
        decode |= x->src != SRC_FRAME;
        if (q[i].batches && !(x->b = vp_batched_new(k)))
            goto oom;
    }
    ms.posof = malloc(((size_t)m->node_count + 1) * sizeof *ms.posof);
    if (!ms.posof)
        goto oom;
    for (int f = 0; f < 2; f++) {
        if (!(f ? folded : plain))
            continue;
        ms.by_group[f] = malloc(((size_t)m->node_count + 1) * sizeof *ms.by_group[f]);
        ms.gstart[f] = malloc(((size_t)m->group_count + 1) * sizeof *ms.gstart[f]);
        if (!ms.by_group[f] || !ms.gstart[f])
            goto oom;
    }
    uint32_t upto = 0;
    for (uint32_t fi = 0; fi < m->frame_count; fi++) {
        if (decode) {
            const vp_vprof_epoch *ep;
            if (m->frames[fi].n != ms.ep_n) {
                if (!(ep = vp_vprof_epoch_for(m, m->frames[fi].n)))
                    goto oom;
                upto = measure_epoch(&ms, ep);
            }
            if ((rc = vp_vprof_frame_next(m, fi, &s, want, upto, &ep, err)) != VP_OK)
                goto done;
        }
        if (!segments_at(&ms, fi) || !measure_frame(&ms, fi, &s))
            goto oom;
    }
    if (!segments_at(&ms, SIZE_MAX))
        goto oom;
    for (size_t i = 0; i < ms.n; i++)
        if (ms.q[i].b && !vp_batched_finish(ms.q[i].b))
            goto oom;
    goto done;
oom:
    rc = vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
done:
    for (size_t i = 0; i < ms.n; i++) {
        mq *x = &ms.q[i];
        vp_hist_free(&x->h);
        if (rc == VP_OK && x->b)
            *x->q->batches = x->b;
        else
            vp_batched_free(x->b);
    }
    free(ms.q);
    free(ms.posof);
    for (int f = 0; f < 2; f++) {
        free(ms.by_group[f]);
        free(ms.gstart[f]);
    }
    free(ms.v);
    free(ms.c);
    vp_vprof_scratch_free(&s);
    return rc;
}

vp_errcode vp_vprof_group_batches(vp_vprof *m, int fold, const uint8_t *want, const size_t *cuts, size_t k,
                                  vp_batched **out, const vp_vprof_quantity *extra, size_t nextra,
                                  vp_error *err)
{
    for (uint32_t g = 0; g < m->group_count; g++)
        out[g] = NULL;
    for (size_t i = 0; i < nextra; i++)
        if (extra[i].batches)
            *extra[i].batches = NULL;
    /* the groups' batches are for those with a summary: some node counts
     * towards them */
    vp_errcode rc = vp_vprof_stats_need(m, fold ? VP_VPROF_STATS_FOLDED : VP_VPROF_STATS_GROUPS, err);
    if (rc != VP_OK)
        return rc;
    vp_vprof_quantity *q = malloc((nextra + m->group_count + 1) * sizeof *q);
    if (!q)
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    if (nextra)
        memcpy(q, extra, nextra * sizeof *q);
    for (uint32_t g = 0; g < m->group_count; g++)
        q[nextra + g] = (vp_vprof_quantity){
            .kind = VP_VPROF_Q_GROUP, .index = g, .fold = fold,
            .batches = (!want || want[g]) && vp_vprof_group_stream(m, g, fold) ? &out[g] : NULL};
    rc = vp_vprof_measure(m, q, nextra + m->group_count, cuts, k, err);
    free(q);
    return rc;
}

/* ---- figures read off the model ------------------------------------------------------- */

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
    *lo = *hi = m->frames[0].tick;
    for (uint32_t i = 1; i < m->frame_count; i++) {
        if (m->frames[i].tick < *lo)
            *lo = m->frames[i].tick;
        if (m->frames[i].tick > *hi)
            *hi = m->frames[i].tick;
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
