/* Hitches: the frames whose time jumps above their baseline (the median of
 * the frames just before), and for each the nodes and budget groups whose
 * self time jumped above theirs. The definitions are hitches.lua's
 * (stdlib/vp/hitches.lua, hitches.DEFINITIONS), computed here with the
 * same floating-point operations, so the answers are those of the Lua
 * definition bit for bit: times are 4 us units, medians are taken of the
 * units and turned into ms as the Lua code turns each value (x * 0.004),
 * which keeps their order. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "formats/vprof_int.h"

/* ---- medians ------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Reorder v[0..n) so that v[k] is its k-th smallest (0-based), with no
 * larger value before it and no smaller one after (Wirth's selection). */
static void select_kth(uint64_t *v, ptrdiff_t n, ptrdiff_t k)
{
    ptrdiff_t lo = 0, hi = n - 1;
    while (lo < hi) {
        uint64_t x = v[k];
        ptrdiff_t i = lo, j = hi;
        do {
            while (v[i] < x)
                i++;
            while (x < v[j])
                j--;
            if (i <= j) {
                uint64_t t = v[i];
                v[i++] = v[j];
                v[j--] = t;
            }
        } while (i <= j);
        if (j < k)
            lo = i;
        if (k < i)
            hi = j;
    }
}

/* The median in ms of n > 0 values in units (reordered in place): the
 * middle one, or the mean of the two middle ones for an even n
 * (stats.median). A selection, not a sort: a window's median is asked for
 * each candidate cause of each hitch. */
static double median_ms(uint64_t *v, size_t n)
{
    size_t h = n / 2;
    select_kth(v, (ptrdiff_t)n, (ptrdiff_t)h);
    if (n % 2)
        return vp_vprof_ms(v[h]);
    uint64_t below = v[0]; /* the largest of v[0..h): the lower middle */
    for (size_t i = 1; i < h; i++)
        below = v[i] > below ? v[i] : below;
    return (vp_vprof_ms(below) + vp_vprof_ms(v[h])) / 2;
}

/* ---- detection -------------------------------------------------------------------- */

/* A sliding window of frame times with its median in O(log n) a step: a
 * Fenwick tree of counts over the ranks of the distinct times. For long
 * windows with many frames to test, where copying each window would cost
 * window x frames. */
typedef struct slide {
    uint64_t *vals; /* distinct times, ascending */
    uint32_t *tree; /* Fenwick counts over ranks 1..nv */
    uint32_t nv, top; /* top: the highest power of two <= nv */
} slide;

static int slide_init(slide *s, const vp_vprof *m)
{
    uint32_t n = m->frame_count;
    s->vals = malloc((size_t)n * sizeof *s->vals + 1);
    s->tree = calloc((size_t)n + 1, sizeof *s->tree);
    if (!s->vals || !s->tree)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        s->vals[i] = m->frames[i].units;
    qsort(s->vals, n, sizeof *s->vals, cmp_u64);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!k || s->vals[k - 1] != s->vals[i])
            s->vals[k++] = s->vals[i];
    s->nv = k;
    for (s->top = 1; s->top * 2 <= k && s->top * 2 > s->top; s->top *= 2)
        ;
    return 1;
}

static void slide_add(slide *s, uint64_t v, int d)
{
    /* rank of v: its index in vals, 1-based */
    uint32_t lo = 0, hi = s->nv - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->vals[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (uint32_t i = lo + 1; i <= s->nv; i += i & (0u - i))
        s->tree[i] += (uint32_t)d;
}

/* The k-th smallest (1-based) value in the window. */
static uint64_t slide_kth(const slide *s, uint32_t k)
{
    uint32_t pos = 0;
    for (uint32_t step = s->top; step; step >>= 1)
        if (pos + step <= s->nv && s->tree[pos + step] < k) {
            pos += step;
            k -= s->tree[pos];
        }
    return s->vals[pos]; /* rank pos + 1 */
}

static double slide_median_ms(const slide *s, uint32_t n)
{
    uint32_t h = n / 2;
    if (n % 2)
        return vp_vprof_ms(slide_kth(s, h + 1));
    return (vp_vprof_ms(slide_kth(s, h)) + vp_vprof_ms(slide_kth(s, h + 1))) / 2;
}

static int hitch_push(vp_vprof_hitch **out, uint32_t *count, uint32_t *cap, vp_vprof_hitch h)
{
    if (*count == *cap && !vp_vprof_grow((void **)out, cap, *count + 1, sizeof **out))
        return 0;
    (*out)[(*count)++] = h;
    return 1;
}

static inline int relative_hitch(const vp_vprof_hitch_rule *r, double t, double b)
{
    return t >= r->factor * b && t - b >= r->min_excess_ms;
}

vp_errcode vp_vprof_hitches(const vp_vprof *m, const vp_vprof_hitch_rule *rule,
                            vp_vprof_hitch **out, uint32_t *count, vp_error *err)
{
    uint32_t n = m->frame_count, w = rule->window ? rule->window : 1, cap = 0;
    *out = NULL;
    *count = 0;
    uint64_t *win = malloc(((size_t)(w < n ? w : n) + 1) * sizeof *win);
    uint32_t *cand = NULL, ncand = 0, ccap = 0;
    slide sl = {0};
    if (!win)
        goto oom;
    /* Frames to test, in order; the baseline is found below for each. */
    if (rule->absolute) {
        for (uint32_t i = 0; i < n; i++)
            if (vp_vprof_frame_ms(m, i) > rule->threshold_ms &&
                !hitch_push(out, count, &cap,
                            (vp_vprof_hitch){i, i > 0, vp_vprof_frame_ms(m, i), 0}))
                goto oom;
    } else {
        /* The window's minimum bounds its median from below, so a frame
         * that is no hitch against the minimum is none against the median:
         * only the frames passing this test get the median. The minimum
         * comes from a deque of increasing times. */
        uint32_t qcap = (w < n ? w : n) + 2, head = 0, tail = 0; /* a ring of indices */
        uint32_t *dq = malloc((size_t)qcap * sizeof *dq);
        if (!dq)
            goto oom;
        for (uint32_t i = 1; i < n; i++) {
            uint64_t prev = m->frames[i - 1].units;
            while (tail != head) {
                uint32_t last = tail ? tail - 1 : qcap - 1;
                if (m->frames[dq[last]].units < prev)
                    break;
                tail = last;
            }
            dq[tail] = i - 1;
            tail = tail + 1 == qcap ? 0 : tail + 1;
            if (i > w && dq[head] < i - w)
                head = head + 1 == qcap ? 0 : head + 1;
            double t = vp_vprof_frame_ms(m, i), mn = vp_vprof_ms(m->frames[dq[head]].units);
            if (t >= rule->min_excess_ms && relative_hitch(rule, t, mn)) {
                if (ncand == ccap &&
                    !vp_vprof_grow((void **)&cand, &ccap, ncand + 1, sizeof *cand)) {
                    free(dq);
                    goto oom;
                }
                cand[ncand++] = i;
            }
        }
        free(dq);
        for (uint32_t k = 0; k < ncand; k++)
            if (!hitch_push(out, count, &cap,
                            (vp_vprof_hitch){cand[k], 1, vp_vprof_frame_ms(m, cand[k]), 0}))
                goto oom;
    }
    /* Baselines: each window copied and its median selected, or, when
     * that would cost more than a sliding window over every frame, the
     * sliding window. */
    uint64_t copy_cost = (uint64_t)*count * (w < n ? w : n);
    if (copy_cost > 64 * (uint64_t)n + 4096) {
        if (!slide_init(&sl, m))
            goto oom;
        uint32_t k = 0;
        for (uint32_t i = 0; i < n && k < *count; i++) {
            if (i > 0)
                slide_add(&sl, m->frames[i - 1].units, 1);
            if (i > w)
                slide_add(&sl, m->frames[i - 1 - w].units, -1);
            if ((*out)[k].frame == i) {
                if (i > 0)
                    (*out)[k].baseline_ms = slide_median_ms(&sl, i < w ? i : w);
                k++;
            }
        }
    } else {
        for (uint32_t k = 0; k < *count; k++) {
            uint32_t i = (*out)[k].frame, first = i > w ? i - w : 0;
            if (i == 0)
                continue;
            for (uint32_t j = first; j < i; j++)
                win[j - first] = m->frames[j].units;
            (*out)[k].baseline_ms = median_ms(win, i - first);
        }
    }
    if (!rule->absolute) {
        /* Keep the candidates that pass against the median. */
        uint32_t kept = 0;
        for (uint32_t k = 0; k < *count; k++)
            if (relative_hitch(rule, (*out)[k].frame_ms, (*out)[k].baseline_ms))
                (*out)[kept++] = (*out)[k];
        *count = kept;
    }
    free(win);
    free(cand);
    free(sl.vals);
    free(sl.tree);
    return VP_OK;
oom:
    free(win);
    free(cand);
    free(sl.vals);
    free(sl.tree);
    free(*out);
    *out = NULL;
    *count = 0;
    return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
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
    uint64_t *vals;
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
    uint64_t *vals = mem->vals;
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
                vals[(size_t)c * w + (j - first)] = v < n ? fs->node[v] : 0;
            }
            for (uint32_t c = 0; c < bg_n; c++)
                vals[(size_t)(bn_n + c) * w + (j - first)] = fs->group[cg[kg + c].index];
            frame_self_clear(m, j, fs);
        }
        for (uint32_t c = 0; c < bn_n + bg_n; c++) {
            const cand *x = c < bn_n ? &cn[kn + c] : &cg[kg + c - bn_n];
            best *b = c < bn_n ? &bn : &bg;
            double self_ms = vp_vprof_ms(x->self);
            if (b->n == limit && self_ms < b->list[limit - 1].excess_ms)
                continue;
            uint64_t *row = vals + (size_t)c * w;
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
                        high += self_ms - vp_vprof_ms(row[j]) < e;
                else
                    for (uint32_t j = 0; j < w; j++)
                        high += self_ms - vp_vprof_ms(row[j]) <= e;
                if (high >= w - (w - 1) / 2)
                    continue;
            }
            double base = w ? median_ms(row, w) : 0;
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
