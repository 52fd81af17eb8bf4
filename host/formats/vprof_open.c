/* The open pass: one walk over the file that validates the framing, adds
 * the nodes and groups its records declare, keeps each frame's record
 * (offset, tick, node count, time) and, when asked, accumulates the
 * whole-capture statistics (vprof_stats.c). Run once per
 * escape width that might be the file's; a file that ends inside a frame
 * keeps the frames before it (the rollback), and so does one whose bytes
 * break the format after a complete frame (damage). Layout facts:
 * ../shared/specs/vprof-format.md, corrected by format-notes.md (escape
 * width 4 or 8, positional group ids starting at 0 or 31, prepended
 * children, frame time from the root's children). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/bigmem.h"
#include "core/sort.h"
#include "formats/vprof_int.h"

/* PARSE_CORRUPT: bytes that break the format after the frames so far
 * (err says where and how); like PARSE_TRUNC, the frames before are kept. */
typedef enum { PARSE_CLEAN, PARSE_TRUNC, PARSE_CORRUPT, PARSE_ERROR } parse_status;

typedef struct attempt {
    vp_vprof *m;
    parse_status status;
    vp_error err;        /* PARSE_ERROR, PARSE_CORRUPT */
    char trunc_msg[320]; /* PARSE_TRUNC */
    vprof_decode_stats st;
} attempt;

static const char *token_name(unsigned t)
{
    switch (t) {
    case TOK_START_FRAME: return "Token_StartFrame";
    case TOK_ADD_NODE: return "Token_AddNode";
    case TOK_ADD_GROUP: return "Token_AddBudgetGroup";
    case TOK_TIMINGS: return "Token_Timings";
    case TOK_END_FRAME: return "Token_EndOfFrame";
    default: return "an unknown token";
    }
}

/* Add the node of an AddNode record. */
static vp_errcode node_add(vp_vprof *m, int32_t parent_id, const char *name, size_t len,
                           int32_t group_id, int32_t id, uint64_t rec_off, vp_error *err)
{
    uint32_t parent = vp_vprof_node_by_id(m, parent_id);
    if (parent == VP_VPROF_NO_NODE)
        return vp_fail(err, VP_EFORMAT, rec_off,
                       "node '%.*s' (id %d) names parent id %d, which no earlier record declared",
                       (int)(len > 80 ? 80 : len), name, (int)id, (int)parent_id);
    if (vp_vprof_node_by_id(m, id) != VP_VPROF_NO_NODE)
        return vp_fail(err, VP_EFORMAT, rec_off,
                       "node '%.*s' reuses id %d, which an earlier record declared",
                       (int)(len > 80 ? 80 : len), name, (int)id);
    uint32_t gi = vp_vprof_group_resolve(
        m, group_id,
        m->group_base != VP_VPROF_DEFAULT_GROUPS || group_id >= VP_VPROF_DEFAULT_GROUPS, rec_off);
    if (gi == VP_VPROF_NO_NODE ||
        !vp_vprof_grow((void **)&m->nodes, &m->node_cap, m->node_count + 1, sizeof *m->nodes))
        return vp_fail(err, VP_ENOMEM, rec_off, "out of memory");
    uint32_t name_off = vp_vprof_names_add(m, name, len);
    uint32_t idx = m->node_count;
    if (name_off == UINT32_MAX || !vp_vprof_idmap_put(m->node_ids, id, idx))
        return vp_fail(err, VP_ENOMEM, rec_off, "out of memory");
    vp_vprof_node *nd = &m->nodes[m->node_count++];
    nd->id = id;
    nd->group_id = group_id;
    nd->parent = parent;
    nd->first_child = VP_VPROF_NO_NODE;
    nd->name = name_off;
    nd->label = name_off;
    nd->depth = m->nodes[parent].depth + 1;
    nd->first_frame = m->frame_count;
    nd->group = gi;
    nd->dup = 0;
    nd->path_len = 0;
    vp_vprof_node_set_vis(m, idx);
    /* The engine prepends a new child to its parent's list. */
    nd->next_sibling = m->nodes[parent].first_child;
    m->nodes[parent].first_child = idx;
    return VP_OK;
}

static void vis_sweep(vp_vprof *m);

static vp_errcode group_record(vp_vprof *m, const char *name, size_t len, int32_t flags,
                               uint32_t *declared, uint64_t rec_off, vp_error *err)
{
    if (*declared == 0) {
        /* Positional ids start at 0 when the file re-sends every group (all
         * public engines), else after the 31 defaults. */
        m->group_base =
            (len == 11 && memcmp(name, "Unaccounted", 11) == 0) ? 0 : VP_VPROF_DEFAULT_GROUPS;
        if (m->group_base && !vp_vprof_groups_add_defaults(m))
            return vp_fail(err, VP_ENOMEM, rec_off, "out of memory");
    }
    int64_t id64 = (int64_t)m->group_base + (int64_t)*declared;
    if (id64 > INT32_MAX)
        return vp_fail(err, VP_ELIMIT, rec_off, "too many budget groups");
    int32_t id = (int32_t)id64;
    (*declared)++;
    uint32_t gi = vp_vprof_group_by_id(m, id);
    if (gi != VP_VPROF_NO_NODE) {
        /* Named by a node before its declaration: the declaration wins. */
        uint32_t name_off = vp_vprof_names_add(m, name, len);
        if (name_off == UINT32_MAX)
            return vp_fail(err, VP_ENOMEM, rec_off, "out of memory");
        int hid = (m->groups[gi].flags ^ flags) & VP_BUDGETFLAG_HIDDEN;
        m->groups[gi].name = name_off;
        m->groups[gi].flags = flags;
        m->groups[gi].declared = 1;
        if (hid) {
            /* Nodes already fold by the old flags: fold them again, and
             * recompute folded statistics the frames so far were summed
             * into with the old ones. */
            vis_sweep(m);
            m->fold_changed |= m->frame_count > 0;
        }
        return VP_OK;
    }
    if (vp_vprof_group_add(m, id, name, len, flags, 1) == VP_VPROF_NO_NODE)
        return vp_fail(err, VP_ENOMEM, rec_off, "out of memory");
    return VP_OK;
}

/* ---- the window the open pass reads through ------------------------------
 * The pass walks the file front to back through the source's window; a
 * record that the window cuts is read again from its start after a refill
 * (rd_record), and the timing decoder resumes where it stopped (rd_timings),
 * so nothing depends on where the window ends. */
typedef struct rd {
    vp_src *src;
    const uint8_t *start, *p, *end; /* the window's bytes; p is the cursor */
    uint64_t start_off;             /* file offset of start */
    uint64_t size;
} rd;

static inline uint64_t rd_off(const rd *r)
{
    return r->start_off + (uint64_t)(r->p - r->start);
}

/* At least `need` bytes at the cursor: 1; 0 when the file ends first; -1
 * when the source fails (err: the file shrank, an I/O error). */
static int rd_fill(rd *r, size_t need, vp_error *err)
{
    if ((size_t)(r->end - r->p) >= need)
        return 1;
    uint64_t off = rd_off(r);
    if (need > r->size - off)
        return 0;
    size_t avail;
    const uint8_t *q = vp_src_get(r->src, off, need, &avail, err);
    if (!q)
        return -1;
    r->start = r->p = q;
    r->start_off = off;
    r->end = q + avail;
    return 1;
}

/* A record of `pre` fixed bytes, a NUL-terminated name and `post` fixed
 * bytes, whole in the window: *rec points at it, *len is the name's length
 * and the cursor moves past it. 1, 0 (the file ends first) or -1. */
static int rd_record(rd *r, size_t pre, size_t post, const uint8_t **rec, size_t *len,
                     vp_error *err)
{
    size_t want = pre + 1 + post;
    for (;;) {
        int k = rd_fill(r, want, err);
        if (k <= 0)
            return k;
        size_t have = (size_t)(r->end - r->p);
        const uint8_t *z = memchr(r->p + pre, 0, have - pre);
        if (z && (size_t)(r->end - z) > post) {
            *rec = r->p;
            *len = (size_t)(z - (r->p + pre));
            r->p = z + 1 + post;
            return 1;
        }
        /* The window cuts the record: read it again from its start with
         * room for all of it (the name's length is known once its NUL is),
         * unless the window already holds the rest of the file. */
        uint64_t left = r->size - rd_off(r);
        if (have == left)
            return 0;
        want = z ? (size_t)(z - r->p) + 1 + post : have * 2;
        if (want > left)
            want = (size_t)left;
    }
}

static inline int32_t le_i32(const uint8_t *p)
{
    return (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                     (uint32_t)p[3] << 24);
}

/* Decode a frame's n timing records, refilling the window as it goes.
 * Returns how many were decoded (fewer: the file ended), or -1 (err). */
static int64_t rd_timings(rd *r, uint32_t n, int ew, vprof_scratch *s, int want_calls,
                          vprof_decode_stats *st, vp_error *err)
{
    uint32_t i = 0;
    for (;;) {
        i = vp_vprof_timings(&r->p, r->end, i, n, ew, s->units, want_calls ? s->calls : NULL, st);
        if (i == n)
            return i;
        uint64_t left = r->size - rd_off(r);
        if (left == (uint64_t)(r->end - r->p))
            return i; /* the window already holds the rest of the file */
        int k = rd_fill(r, left < VPROF_REC_MAX ? (size_t)left : VPROF_REC_MAX, err);
        if (k < 0)
            return -1;
    }
}

/* The root's group is resolved with the first frame; nodes added before it
 * (in that frame's records) get their folded group again. */
static void vis_sweep(vp_vprof *m)
{
    for (uint32_t v = 0; v < m->node_count; v++)
        vp_vprof_node_set_vis(m, v);
    vp_vprof_epoch_reset(m);
}

/* Undo the structure added by a frame that turned out to be incomplete:
 * its nodes and groups never appear in a kept frame. Runs once, at the end. */
static int rollback(vp_vprof *m, uint32_t nodes, uint32_t groups)
{
    m->node_count = nodes;
    m->group_count = groups;
    vp_vprof_idmap_clear(m->node_ids);
    vp_vprof_idmap_clear(m->group_ids);
    for (uint32_t i = 0; i < m->node_count; i++) {
        m->nodes[i].first_child = VP_VPROF_NO_NODE;
        if (!vp_vprof_idmap_put(m->node_ids, m->nodes[i].id, i))
            return 0;
    }
    for (uint32_t i = 1; i < m->node_count; i++) {
        vp_vprof_node *nd = &m->nodes[i];
        nd->next_sibling = m->nodes[nd->parent].first_child;
        m->nodes[nd->parent].first_child = i;
    }
    for (uint32_t i = 0; i < m->group_count; i++)
        if (!vp_vprof_idmap_put(m->group_ids, m->groups[i].id, i))
            return 0;
    vis_sweep(m);
    return 1;
}

static int frame_commit(vp_vprof *m, uint64_t off, int32_t tick, uint32_t n, uint64_t units)
{
    if (m->frame_count == m->frame_cap) {
        /* Doubling, in huge pages once large (core/bigmem: a page fault
         * per 4 KiB of records cost more than decoding them). */
        uint32_t ncap = m->frame_cap ? m->frame_cap * 2 : 4096;
        if (ncap <= m->frame_cap)
            return 0;
        vp_vprof_frame *f = vp_big_realloc(m->frames, (size_t)m->frame_cap * sizeof *f,
                                           (size_t)ncap * sizeof *f);
        if (!f)
            return 0;
        m->frames = f;
        m->frame_cap = ncap;
    }
    m->frames[m->frame_count++] = (vp_vprof_frame){off, units, tick, n};
    return vp_stream_add(&m->frame_stream, units, 1);
}

/* Bytes between progress reports. */
#define PROGRESS_STEP ((uint64_t)32 << 20)

/* The file of `size` bytes ends inside frame fno, which starts at
 * frame_off: the truncation, with what was expected there. */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void cut_in_frame(attempt *a, uint64_t size, uint32_t fno, uint64_t frame_off,
                         const char *fmt, ...)
{
    int k = snprintf(a->trunc_msg, sizeof a->trunc_msg,
                     "at byte %llu: the file ends inside frame %u (which starts at byte %llu): expected ",
                     (unsigned long long)size, fno, (unsigned long long)frame_off);
    if (k > 0 && (size_t)k < sizeof a->trunc_msg) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(a->trunc_msg + k, sizeof a->trunc_msg - (size_t)k, fmt, ap);
        va_end(ap);
    }
    a->status = PARSE_TRUNC;
}

static void attempt_run(attempt *a, vp_src *src, int ew, const vp_open_opts *opts)
{
    vp_vprof *m = a->m;
    m->escape_width = ew;
    rd r = {src, NULL, NULL, NULL, 0, src->size};
    vprof_scratch s = {0};
    vprof_acc acc;
    unsigned what = opts ? opts->stats & VP_VPROF_STATS_ALL : 0;
    int acc_on = 0;
    uint32_t declared = 0;
    uint64_t next_progress = PROGRESS_STEP;
    uint64_t size = src->size;
    int k;

    if ((k = rd_fill(&r, 8, &a->err)) <= 0) {
        if (k == 0)
            vp_fail(&a->err, VP_ETRUNC, 0,
                    "expected the 8-byte VProf header (int32 version, int32 root node id), "
                    "the file has %llu bytes",
                    (unsigned long long)size);
        a->status = PARSE_ERROR;
        return;
    }
    m->version = le_i32(r.p);
    m->root_id = le_i32(r.p + 4);
    r.p += 8;
    if (m->version != 1) {
        vp_fail(&a->err, VP_EVERSION, 0, "VProf version %d is not known, expected 1",
                (int)m->version);
        a->status = PARSE_ERROR;
        return;
    }
    /* The root has no AddNode record. */
    if (!vp_vprof_grow((void **)&m->nodes, &m->node_cap, 1, sizeof *m->nodes) ||
        !vp_vprof_idmap_put(m->node_ids, m->root_id, 0))
        goto oom;
    m->nodes[0] = (vp_vprof_node){.id = m->root_id,
                                  .parent = VP_VPROF_NO_NODE,
                                  .first_child = VP_VPROF_NO_NODE,
                                  .next_sibling = VP_VPROF_NO_NODE,
                                  .name = vp_vprof_names_add(m, "Root", 4),
                                  .group = VP_VPROF_NO_NODE,
                                  .vis = VP_VPROF_NO_NODE};
    if (m->nodes[0].name == UINT32_MAX)
        goto oom;
    m->node_count = 1;
    if (what) {
        if (!vprof_acc_begin(&acc, m, what, NULL, 0))
            goto oom;
        if (opts->node_names)
            vprof_acc_names(&acc, opts->node_names, opts->n_node_names);
        acc_on = 1;
    }

    while (rd_off(&r) < size) {
        uint64_t frame_off = rd_off(&r);
        uint32_t fno = m->frame_count + 1;
        uint32_t nodes_before = m->node_count, groups_before = m->group_count;
        if ((k = rd_fill(&r, 1, &a->err)) < 0)
            goto src_failed;
        uint8_t tok = *r.p++;
        if (tok != TOK_START_FRAME) {
            vp_fail(&a->err, VP_EFORMAT, frame_off,
                    "expected Token_StartFrame (0) to begin frame %u%s, found byte %u (%s)", fno,
                    fno > 1 ? "" : " after the 8-byte header", tok, token_name(tok));
            a->status = PARSE_CORRUPT;
            break;
        }
        if ((k = rd_fill(&r, 4, &a->err)) <= 0) {
            if (k < 0)
                goto src_failed;
            cut_in_frame(a, size, fno, frame_off, "its int32 tick");
            break;
        }
        int32_t tick = le_i32(r.p);
        r.p += 4;
        /* Structure records until Token_Timings. */
        for (;;) {
            uint64_t rec_off = rd_off(&r);
            if ((k = rd_fill(&r, 1, &a->err)) <= 0) {
                if (k < 0)
                    goto src_failed;
                cut_in_frame(a, size, fno, frame_off,
                             "Token_AddNode, Token_AddBudgetGroup or Token_Timings");
                break;
            }
            tok = *r.p++;
            if (tok == TOK_TIMINGS)
                break;
            const uint8_t *rec;
            size_t len;
            if (tok == TOK_ADD_GROUP || tok == TOK_ADD_NODE) {
                /* AddNode: int32 parent, name, int32 group, int32 id;
                 * AddBudgetGroup: name, int32 flags. */
                int node = tok == TOK_ADD_NODE;
                if ((k = rd_record(&r, node ? 4 : 0, node ? 8 : 4, &rec, &len, &a->err)) <= 0) {
                    if (k < 0)
                        goto src_failed;
                    cut_in_frame(a, size, fno, frame_off, "the rest of the %s record at byte %llu (%s)",
                                 node ? "Token_AddNode" : "Token_AddBudgetGroup",
                                 (unsigned long long)rec_off,
                                 node ? "int32 parent, NUL-terminated name, int32 group, int32 id"
                                      : "NUL-terminated name, int32 flags");
                    break;
                }
                const uint8_t *tail = rec + (node ? 4 : 0) + len + 1;
                vp_errcode rc = node ? node_add(m, le_i32(rec), (const char *)rec + 4, len, le_i32(tail),
                                                le_i32(tail + 4), rec_off, &a->err)
                                     : group_record(m, (const char *)rec, len, le_i32(tail), &declared,
                                                    rec_off, &a->err);
                if (rc != VP_OK) {
                    a->status = PARSE_ERROR;
                    break;
                }
            } else {
                vp_fail(&a->err, VP_EFORMAT, rec_off,
                        "expected Token_AddNode (1), Token_AddBudgetGroup (2) or Token_Timings "
                        "(3) in frame %u (which starts at byte %llu), found byte %u (%s)",
                        fno, (unsigned long long)frame_off, tok, token_name(tok));
                a->status = PARSE_ERROR;
                break;
            }
        }
        if (a->status != PARSE_CLEAN)
            goto frame_failed;

        uint32_t n = m->node_count;
        if (m->nodes[0].group == VP_VPROF_NO_NODE) {
            /* The engine's root node is in group 0 (Unaccounted). */
            m->nodes[0].group = vp_vprof_group_resolve(m, 0, 0, 0);
            m->nodes[0].group_id = 0;
            if (m->nodes[0].group == VP_VPROF_NO_NODE)
                goto oom;
            vis_sweep(m);
        }
        const vp_vprof_epoch *ep = vp_vprof_epoch_for(m, n);
        if (!ep || !vp_vprof_scratch_fit(&s, n))
            goto oom;

        uint64_t timings_off = rd_off(&r);
        int64_t got =
            rd_timings(&r, n, ew, &s, acc_on && (what & VP_VPROF_STATS_NODES), &a->st, &a->err);
        if (got < 0)
            goto src_failed;
        if (got < n) {
            cut_in_frame(a, size, fno, frame_off, "the timings of %u nodes from byte %llu, found %u",
                         n, (unsigned long long)timings_off, (unsigned)got);
            goto frame_failed;
        }
        uint64_t end_off = rd_off(&r);
        if ((k = rd_fill(&r, 1, &a->err)) <= 0) {
            if (k < 0)
                goto src_failed;
            cut_in_frame(a, size, fno, frame_off, "Token_EndOfFrame (4)");
            goto frame_failed;
        }
        tok = *r.p++;
        if (tok != TOK_END_FRAME) {
            vp_fail(&a->err, VP_EFORMAT, end_off,
                    "expected Token_EndOfFrame (4) after the timings of %u nodes in frame %u "
                    "(which starts at byte %llu), found byte %u",
                    n, fno, (unsigned long long)frame_off, tok);
            a->status = PARSE_ERROR;
            goto frame_failed;
        }
        uint64_t frame_units;
        if (acc_on) {
            /* Groups sum every node's self time; node totals need only the
             * inner nodes' (a leaf's is its time). */
            frame_units = acc.what & (VP_VPROF_STATS_GROUPS | VP_VPROF_STATS_FOLDED)
                              ? vp_vprof_self_by_pos(ep, s.units, s.self, s.tmp)
                              : vp_vprof_self_inner(ep, s.units, s.self, s.tmp);
            if (!vprof_acc_frame(&acc, m, ep, m->frame_count, s.units, s.self, s.calls))
                goto oom;
        } else {
            frame_units = vp_vprof_frame_units(ep, s.units);
        }
        if (!frame_commit(m, frame_off, tick, n, frame_units))
            goto oom;
        m->frames_end = rd_off(&r);

        if (m->frames_end >= next_progress) {
            if (opts && opts->progress)
                opts->progress(opts->progress_ud, m->frames_end, size);
            next_progress = m->frames_end + PROGRESS_STEP;
        }
        continue;

    src_failed:
        a->status = PARSE_ERROR;
        break;
    frame_failed:
        /* Bytes that break the format (not a failed allocation or a limit)
         * end the frames like a cut does. */
        if (a->status == PARSE_ERROR && a->err.code == VP_EFORMAT)
            a->status = PARSE_CORRUPT;
        if (a->status != PARSE_ERROR && !rollback(m, nodes_before, groups_before))
            goto oom;
        break;
    }
    if (acc_on) {
        if (a->status != PARSE_ERROR && !vprof_acc_end(&acc, m, m->frame_count))
            goto oom;
        vprof_acc_free(&acc);
    }
    vp_vprof_scratch_free(&s);
    return;
oom:
    if (acc_on)
        vprof_acc_free(&acc);
    vp_vprof_scratch_free(&s);
    vp_fail(&a->err, VP_ENOMEM, UINT64_MAX, "out of memory");
    a->status = PARSE_ERROR;
}
/* Which of two readings of the same file makes more sense. */
static int attempt_better(const attempt *x, const attempt *y)
{
    static const int rank[] = {[PARSE_CLEAN] = 3, [PARSE_TRUNC] = 2, [PARSE_CORRUPT] = 1, [PARSE_ERROR] = 0};
    if (rank[x->status] != rank[y->status])
        return rank[x->status] > rank[y->status];
    if (x->m->frame_count != y->m->frame_count)
        return x->m->frame_count > y->m->frame_count;
    return x->st.anomalies < y->st.anomalies;
}

static int cmp_sibling(uint32_t a, uint32_t b, const void *ctx)
{
    const vp_vprof *m = ctx;
    const vp_vprof_node *x = &m->nodes[a], *y = &m->nodes[b];
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    int c = strcmp(m->names + x->name, m->names + y->name);
    if (c)
        return c;
    return a < b ? -1 : 1;
}

/* Same-named siblings stay separate nodes; the later ones are numbered so
 * that paths stay unique ("#2", "#3"). Sorting by (parent, name, index)
 * keeps this O(n log n) however wide the tree. */
static int number_namesakes(vp_vprof *m)
{
    uint32_t n = m->node_count - 1;
    if (!n)
        return 1;
    uint32_t *idx = malloc((size_t)n * sizeof *idx);
    if (!idx)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        idx[i] = i + 1;
    vp_sort_idx(idx, n, cmp_sibling, m);
    for (uint32_t i = 1, run = 1; i < n; i++) {
        const vp_vprof_node *prev = &m->nodes[idx[i - 1]];
        vp_vprof_node *cur = &m->nodes[idx[i]];
        if (prev->parent == cur->parent && strcmp(m->names + prev->name, m->names + cur->name) == 0)
            cur->dup = ++run;
        else
            run = 1;
    }
    free(idx);
    return 1;
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return h ^ (h >> 29);
}

/* The slot of `name` in a table of group indices (open addressing, mask + 1
 * slots): the group there, or an empty slot (UINT32_MAX). */
static size_t name_slot(const vp_vprof *m, const uint32_t *tab, size_t mask, const char *name)
{
    size_t i = (size_t)name_hash(name) & mask;
    while (tab[i] != UINT32_MAX && strcmp(m->names + m->groups[tab[i]].name, name) != 0)
        i = (i + 1) & mask;
    return i;
}

/* Group names are unique by construction: a later group (by index) named
 * as an earlier one is called "name#k", the smallest k >= 2 no group has,
 * with a warning, so rules, the Chrome trace's counters and every table
 * name each group once. */
static int unique_group_names(vp_vprof *m)
{
    size_t nslots = 16;
    while (nslots < (size_t)m->group_count * 4)
        nslots <<= 1;
    uint32_t *tab = malloc(nslots * sizeof *tab);
    char *buf = NULL;
    if (!tab)
        return 0;
    memset(tab, 0xFF, nslots * sizeof *tab);
    int ok = 1;
    for (uint32_t g = 0; g < m->group_count; g++) { /* every name first: a new name must be free */
        size_t i = name_slot(m, tab, nslots - 1, m->names + m->groups[g].name);
        if (tab[i] == UINT32_MAX)
            tab[i] = g;
    }
    for (uint32_t g = 0; ok && g < m->group_count; g++) {
        const char *name = m->names + m->groups[g].name;
        if (tab[name_slot(m, tab, nslots - 1, name)] == g)
            continue;
        size_t len = strlen(name);
        char *p = realloc(buf, len + 24);
        if (!(ok = p != NULL))
            break;
        buf = p;
        memcpy(buf, m->names + m->groups[g].name, len);
        size_t i;
        for (unsigned k = 2;; k++) {
            snprintf(buf + len, 24, "#%u", k);
            i = name_slot(m, tab, nslots - 1, buf);
            if (tab[i] == UINT32_MAX)
                break;
        }
        uint32_t off = vp_vprof_names_add(m, buf, strlen(buf));
        if (!(ok = off != UINT32_MAX))
            break;
        vp_warn(&m->warnings, "budget group %d is named as group %d before it: called '%s'", m->groups[g].id,
                m->groups[tab[name_slot(m, tab, nslots - 1, m->names + m->groups[g].name)]].id, buf);
        m->groups[g].name = off;
        tab[i] = g;
    }
    free(buf);
    free(tab);
    return ok;
}

/* Each node's full path length and the ancestor that heads its elided path
 * (parents first, so one sweep): what vprof_paths.c cuts paths by. */
static void path_lengths(vp_vprof *m)
{
    for (uint32_t v = 0; v < m->node_count; v++) {
        vp_vprof_node *nd = &m->nodes[v];
        uint64_t len = strlen(m->names + nd->label);
        if (nd->dup) {
            char suffix[16];
            len += (uint64_t)snprintf(suffix, sizeof suffix, "#%u", nd->dup);
        }
        if (nd->parent != VP_VPROF_NO_NODE)
            len += (uint64_t)m->nodes[nd->parent].path_len + 1;
        nd->path_len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
        nd->head = len <= VPROF_HEAD_MAX || nd->parent == VP_VPROF_NO_NODE
                       ? v
                       : m->nodes[nd->parent].head;
    }
}

/* Derived facts, computed once the reading is final. */
static int finalize(vp_vprof *m, const attempt *a)
{
    for (uint32_t i = 0; i < m->node_count; i++)
        if (m->nodes[i].group != VP_VPROF_NO_NODE)
            m->groups[m->nodes[i].group].has_nodes = 1;
    if (m->nodes[0].group == VP_VPROF_NO_NODE) {
        /* No frame: still give the root its group. */
        m->nodes[0].group = vp_vprof_group_resolve(m, 0, 0, 0);
        if (m->nodes[0].group == VP_VPROF_NO_NODE)
            return 0;
        m->groups[m->nodes[0].group].has_nodes = 1;
        vis_sweep(m);
    }
    m->hidden_groups = vp_vprof_has_hidden_groups(m);
    for (uint32_t v = 0; v < m->node_count && !m->fold_differs; v++)
        m->fold_differs = m->nodes[v].vis != m->nodes[v].group;
    vp_vprof_stats *st = &m->stats;
    if (m->fold_changed)
        vprof_stats_drop(m, VP_VPROF_STATS_FOLDED);
    if (!m->fold_differs && (st->have & VP_VPROF_STATS_GROUPS))
        st->have |= VP_VPROF_STATS_FOLDED; /* folding changes nothing */
    if (!number_namesakes(m) || !vprof_labels(m) || !unique_group_names(m))
        return 0;
    path_lengths(m);
    if (m->frame_count && !a->st.any) {
        m->zero_timings = 1;
        vp_warn(&m->warnings,
                "this capture holds no timings: every node time is 0 in all %u frames (the "
                "2013/TF2 recorder clears per-frame values before it writes them)",
                m->frame_count);
    }
    if (m->frame_count == 0 && a->status == PARSE_CLEAN)
        vp_warn(&m->warnings, "the capture has no frames");
    if (a->st.anomalies)
        vp_warn(&m->warnings,
                "%d escaped values are below their escape threshold (the writer should have "
                "used the short form); read as written",
                a->st.anomalies);
    m->escapes_seen = a->st.escapes > 0;
    return 1;
}

/* Open from a source; takes it over (closes it on failure). */
static vp_errcode open_src(vp_src *src, const vp_open_opts *opts, vp_vprof **out, vp_error *err)
{
    *out = NULL;
    int forced = opts ? opts->escape_width : 0;
    if (forced != 0 && forced != 4 && forced != 8) {
        vp_src_close(src);
        return vp_fail(err, VP_EFORMAT, UINT64_MAX, "escape width must be 4 or 8, not %d", forced);
    }
    attempt a = {.m = vp_vprof_model_new()}, b = {0};
    if (!a.m) {
        vp_src_close(src);
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    }
    attempt_run(&a, src, forced ? forced : 4, opts);
    /* The escape field is a C `unsigned long`: 4 bytes on Windows and 32-bit
     * builds, 8 on 64-bit Linux/macOS. Width 4 is tried first; when the
     * stream stops making sense after an escape, width 8 is tried too and
     * the reading that makes more sense wins. A source that failed (the file
     * changed) is not a reading to retry. */
    if (!forced && a.st.escapes && (a.status != PARSE_CLEAN || a.st.anomalies) &&
        !(a.status == PARSE_ERROR && a.err.code == VP_ECHANGED)) {
        b.m = vp_vprof_model_new();
        if (!b.m) {
            vp_vprof_free(a.m);
            vp_src_close(src);
            return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
        }
        attempt_run(&b, src, 8, opts);
        if (attempt_better(&b, &a)) {
            attempt t = a;
            a = b;
            b = t;
        }
        vp_vprof_free(b.m);
    }
    vp_vprof *m = a.m;
    vp_errcode rc = VP_OK;
    if (a.status == PARSE_ERROR ||
        (a.status == PARSE_CORRUPT && (m->frame_count == 0 || (opts && opts->strict)))) {
        *err = a.err;
        rc = err->code;
    } else if (a.status == PARSE_CORRUPT) {
        m->corrupt = 1;
        vp_warn(&m->warnings, "corrupt %s; the %u complete frames before it are kept", a.err.msg,
                m->frame_count);
    } else if (a.status == PARSE_TRUNC && (m->frame_count == 0 || (opts && opts->strict))) {
        rc = vp_fail(err, VP_ETRUNC, UINT64_MAX, "%s%s", a.trunc_msg,
                     m->frame_count ? "" : "; no frame is complete");
    } else if (a.status == PARSE_TRUNC) {
        m->truncated = 1;
        vp_warn(&m->warnings, "truncated %s; the %u complete frames before it are kept",
                a.trunc_msg, m->frame_count);
    }
    if (rc == VP_OK && !finalize(m, &a))
        rc = vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    if (rc != VP_OK) {
        vp_vprof_free(m);
        vp_src_close(src);
        return rc;
    }
    /* The window's bytes are dropped, so what is read later comes from the
     * file as it is then (a file cut since shows at once); its buffer stays
     * for those reads: making it anew would fault its pages in again. */
    src->len = 0;
    m->src = *src;
    *out = m;
    return VP_OK;
}

/* A capture is its model and what was computed over it, the statistics
 * and the hitches' causes: each part frees its own. */
void vp_vprof_free(vp_vprof *m)
{
    if (!m)
        return;
    vprof_stats_drop(m, VP_VPROF_STATS_ALL);
    free(m->stats.group);
    free(m->stats.folded);
    vprof_causes_mem_free(m);
    vp_vprof_model_free(m);
}

vp_errcode vp_vprof_open(const char *path, const vp_open_opts *opts, vp_vprof **out, vp_error *err)
{
    vp_src src;
    *out = NULL;
    vp_errcode rc = vp_src_open(&src, path, err);
    if (rc != VP_OK)
        return rc;
    return open_src(&src, opts, out, err);
}

vp_errcode vp_vprof_open_mem(const void *buf, size_t n, const vp_open_opts *opts, vp_vprof **out,
                             vp_error *err)
{
    vp_src src;
    vp_src_wrap(&src, buf, n);
    return open_src(&src, opts, out, err);
}
