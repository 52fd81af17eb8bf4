/* The open pass: one walk over the file that validates the framing, adds
 * the nodes and groups its records declare, builds the frame index and
 * computes each frame's time and each group's self time. Run once per
 * escape width that might be the file's; a file that ends inside a frame
 * keeps the frames before it (the rollback). Layout facts:
 * ../shared/specs/vprof-format.md, corrected by format-notes.md (escape
 * width 4 or 8, positional group ids starting at 0 or 31, prepended
 * children, frame time from the root's children). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cursor.h"
#include "core/sort.h"
#include "formats/vprof_int.h"

typedef enum { PARSE_CLEAN, PARSE_TRUNC, PARSE_ERROR } parse_status;

typedef struct attempt {
    vp_vprof *m;
    parse_status status;
    vp_error err;        /* PARSE_ERROR */
    char trunc_msg[320]; /* PARSE_TRUNC */
    vprof_decode_stats st;
    int nonzero;
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
    nd->depth = m->nodes[parent].depth + 1;
    nd->first_frame = m->frame_count;
    nd->group = gi;
    nd->dup = 0;
    /* The engine prepends a new child to its parent's list. */
    nd->next_sibling = m->nodes[parent].first_child;
    m->nodes[parent].first_child = idx;
    return VP_OK;
}

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
        m->groups[gi].name = name_off;
        m->groups[gi].flags = flags;
        m->groups[gi].declared = 1;
        return VP_OK;
    }
    if (vp_vprof_group_add(m, id, name, len, flags, 1) == VP_VPROF_NO_NODE)
        return vp_fail(err, VP_ENOMEM, rec_off, "out of memory");
    return VP_OK;
}

/* Make sure every group that has a node present at this node count has a
 * self-time column, zero-filled for the frames before it appeared. */
static int columns_fit(vp_vprof *m, uint32_t from_node, uint32_t to_node)
{
    for (uint32_t i = from_node; i < to_node; i++) {
        vp_vprof_group *g = &m->groups[m->nodes[i].group];
        if (g->self_ms)
            continue;
        g->self_ms = vp_series_new(m->frame_count + 64);
        if (!g->self_ms || !vp_series_resize(g->self_ms, m->frame_count))
            return 0;
    }
    return 1;
}

/* Undo the structure added by a frame that turned out to be incomplete:
 * its nodes and groups never appear in a kept frame. Runs once, at the end. */
static int rollback(vp_vprof *m, uint32_t nodes, uint32_t groups)
{
    for (uint32_t i = groups; i < m->group_count; i++)
        vp_series_unref(m->groups[i].self_ms);
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
    m->epoch.n = 0;
    free(m->epoch.order);
    m->epoch.order = NULL;
    return 1;
}

static int frame_commit(vp_vprof *m, uint64_t off, int32_t tick, uint32_t n, uint64_t frame_units)
{
    uint32_t old_cap = m->frame_cap;
    if (!vp_vprof_grow((void **)&m->frame_off, &m->frame_cap, m->frame_count + 1,
                       sizeof *m->frame_off))
        return 0;
    if (m->frame_cap != old_cap) {
        /* The three arrays share frame_cap: grow the other two to match. */
        int32_t *t = realloc(m->frame_tick, (size_t)m->frame_cap * sizeof *t);
        if (t)
            m->frame_tick = t;
        uint32_t *fn = realloc(m->frame_nodes, (size_t)m->frame_cap * sizeof *fn);
        if (fn)
            m->frame_nodes = fn;
        if (!t || !fn) {
            m->frame_cap = old_cap;
            return 0;
        }
    }
    m->frame_off[m->frame_count] = off;
    m->frame_tick[m->frame_count] = tick;
    m->frame_nodes[m->frame_count] = n;
    m->frame_count++;
    return vp_series_push(m->frame_ms, vp_vprof_ms(frame_units));
}

#define TRUNC(...) snprintf(a->trunc_msg, sizeof a->trunc_msg, __VA_ARGS__)

static void attempt_run(attempt *a, const vp_map *map, int ew, const vp_open_opts *opts)
{
    vp_vprof *m = a->m;
    m->escape_width = ew;
    vp_cursor c;
    vp_cursor_init(&c, map->data, (size_t)map->size, 0);
    vprof_scratch s = {0};
    uint32_t declared = 0, epoch_nodes = 0;
    uint64_t next_release = VP_MAP_RELEASE_STEP;
    uint64_t size = map->size;

    if (!vp_rd_i32(&c, &m->version) || !vp_rd_i32(&c, &m->root_id)) {
        vp_fail(&a->err, VP_ETRUNC, 0,
                "expected the 8-byte VProf header (int32 version, int32 root node id), "
                "the file has %llu bytes",
                (unsigned long long)size);
        a->status = PARSE_ERROR;
        return;
    }
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
                                  .group = VP_VPROF_NO_NODE};
    if (m->nodes[0].name == UINT32_MAX)
        goto oom;
    m->node_count = 1;

    while (vp_cursor_left(&c)) {
        uint64_t frame_off = vp_cursor_off(&c);
        uint32_t fno = m->frame_count + 1;
        uint32_t nodes_before = m->node_count, groups_before = m->group_count;
        uint8_t tok;
        int32_t tick;
        vp_rd_u8(&c, &tok);
        if (tok != TOK_START_FRAME) {
            vp_fail(&a->err, VP_EFORMAT, frame_off,
                    "expected Token_StartFrame (0) to begin frame %u%s, found byte %u (%s)", fno,
                    fno > 1 ? "" : " after the 8-byte header", tok, token_name(tok));
            a->status = PARSE_ERROR;
            break;
        }
        if (!vp_rd_i32(&c, &tick)) {
            TRUNC("at byte %llu: the file ends inside frame %u (which starts at byte %llu): "
                  "expected its int32 tick",
                  (unsigned long long)size, fno, (unsigned long long)frame_off);
            a->status = PARSE_TRUNC;
            break;
        }
        /* Structure records until Token_Timings. */
        for (;;) {
            uint64_t rec_off = vp_cursor_off(&c);
            if (!vp_rd_u8(&c, &tok)) {
                TRUNC("at byte %llu: the file ends inside frame %u (which starts at byte %llu): "
                      "expected Token_AddNode, Token_AddBudgetGroup or Token_Timings",
                      (unsigned long long)size, fno, (unsigned long long)frame_off);
                a->status = PARSE_TRUNC;
                break;
            }
            if (tok == TOK_TIMINGS)
                break;
            const char *name;
            size_t len;
            if (tok == TOK_ADD_GROUP) {
                int32_t flags;
                if (!vp_rd_cstr(&c, &name, &len) || !vp_rd_i32(&c, &flags)) {
                    TRUNC("at byte %llu: the file ends inside frame %u (which starts at byte "
                          "%llu): expected the rest of the Token_AddBudgetGroup record at byte "
                          "%llu (NUL-terminated name, int32 flags)",
                          (unsigned long long)size, fno, (unsigned long long)frame_off,
                          (unsigned long long)rec_off);
                    a->status = PARSE_TRUNC;
                    break;
                }
                if (group_record(m, name, len, flags, &declared, rec_off, &a->err) != VP_OK) {
                    a->status = PARSE_ERROR;
                    break;
                }
            } else if (tok == TOK_ADD_NODE) {
                int32_t parent, group, id;
                if (!vp_rd_i32(&c, &parent) || !vp_rd_cstr(&c, &name, &len) ||
                    !vp_rd_i32(&c, &group) || !vp_rd_i32(&c, &id)) {
                    TRUNC("at byte %llu: the file ends inside frame %u (which starts at byte "
                          "%llu): expected the rest of the Token_AddNode record at byte %llu "
                          "(int32 parent, NUL-terminated name, int32 group, int32 id)",
                          (unsigned long long)size, fno, (unsigned long long)frame_off,
                          (unsigned long long)rec_off);
                    a->status = PARSE_TRUNC;
                    break;
                }
                if (node_add(m, parent, name, len, group, id, rec_off, &a->err) != VP_OK) {
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
            epoch_nodes = 0;
        }
        const vp_vprof_epoch *ep = vp_vprof_epoch_for(m, n);
        if (!ep || !columns_fit(m, epoch_nodes, n) || !vp_vprof_scratch_fit(&s, n, m->group_count))
            goto oom;
        epoch_nodes = n;

        uint64_t timings_off = vp_cursor_off(&c);
        uint64_t *csum = s.self;
        csum[n] = 0; /* the root's parent slot; the others are zeroed as read */
        uint32_t got =
            vp_vprof_timings_index(&c.p, c.end, n, ew, ep->parent_pos, s.units, csum, &a->st);
        if (got < n) {
            TRUNC("at byte %llu: the file ends inside frame %u (which starts at byte %llu): "
                  "expected the timings of %u nodes from byte %llu, found %u",
                  (unsigned long long)size, fno, (unsigned long long)frame_off, n,
                  (unsigned long long)timings_off, got);
            a->status = PARSE_TRUNC;
            goto frame_failed;
        }
        uint64_t end_off = vp_cursor_off(&c);
        if (!vp_rd_u8(&c, &tok)) {
            TRUNC("at byte %llu: the file ends inside frame %u (which starts at byte %llu): "
                  "expected Token_EndOfFrame (4)",
                  (unsigned long long)size, fno, (unsigned long long)frame_off);
            a->status = PARSE_TRUNC;
            goto frame_failed;
        }
        if (tok != TOK_END_FRAME) {
            vp_fail(&a->err, VP_EFORMAT, end_off,
                    "expected Token_EndOfFrame (4) after the timings of %u nodes in frame %u "
                    "(which starts at byte %llu), found byte %u",
                    n, fno, (unsigned long long)frame_off, tok);
            a->status = PARSE_ERROR;
            goto frame_failed;
        }

        /* Frame time: the root's children's sum, or the root's own time when
         * that is larger (format-notes: the root is ~0 in real captures). */
        uint64_t frame_units = s.units[0] > csum[0] ? s.units[0] : csum[0];
        memset(s.gacc, 0, (size_t)m->group_count * sizeof *s.gacc);
        uint64_t any = 0;
        for (uint32_t pos = 0; pos < n; pos++) {
            uint64_t u = s.units[pos], cs = csum[pos];
            any |= u;
            s.gacc[ep->group[pos]] += u > cs ? u - cs : 0;
        }
        a->nonzero |= any != 0;
        for (uint32_t g = 0; g < m->group_count; g++)
            if (m->groups[g].self_ms &&
                !vp_series_push_fast(m->groups[g].self_ms, vp_vprof_ms(s.gacc[g])))
                goto oom;
        if (!frame_commit(m, frame_off, tick, n, frame_units))
            goto oom;

        if (vp_cursor_off(&c) >= next_release) {
            vp_map_release((vp_map *)map, vp_cursor_off(&c));
            if (opts && opts->progress)
                opts->progress(opts->progress_ud, vp_cursor_off(&c), size);
            next_release = vp_cursor_off(&c) + VP_MAP_RELEASE_STEP;
        }
        continue;

    frame_failed:
        if (a->status == PARSE_TRUNC && !rollback(m, nodes_before, groups_before))
            goto oom;
        break;
    }
    vp_map_release((vp_map *)map, size);
    vp_vprof_scratch_free(&s);
    return;
oom:
    vp_vprof_scratch_free(&s);
    vp_fail(&a->err, VP_ENOMEM, UINT64_MAX, "out of memory");
    a->status = PARSE_ERROR;
}

/* Which of two readings of the same file makes more sense. */
static int attempt_better(const attempt *x, const attempt *y)
{
    static const int rank[] = {[PARSE_CLEAN] = 2, [PARSE_TRUNC] = 1, [PARSE_ERROR] = 0};
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

/* Derived facts, computed once the reading is final. */
static int finalize(vp_vprof *m, const attempt *a)
{
    for (uint32_t i = 0; i < m->node_count; i++)
        if (m->nodes[i].group != VP_VPROF_NO_NODE)
            m->groups[m->nodes[i].group].has_nodes = 1;
    for (uint32_t g = 0; g < m->group_count; g++)
        if (!m->groups[g].has_nodes) {
            vp_series_unref(m->groups[g].self_ms);
            m->groups[g].self_ms = NULL;
        }
    if (m->nodes[0].group == VP_VPROF_NO_NODE) {
        /* No frame: still give the root its group. */
        m->nodes[0].group = vp_vprof_group_resolve(m, 0, 0, 0);
        if (m->nodes[0].group == VP_VPROF_NO_NODE)
            return 0;
        m->groups[m->nodes[0].group].has_nodes = 1;
    }
    if (!number_namesakes(m))
        return 0;
    if (m->frame_count && !a->nonzero) {
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

static vp_errcode open_map(vp_map *map, const vp_open_opts *opts, vp_vprof **out, vp_error *err)
{
    *out = NULL;
    int forced = opts ? opts->escape_width : 0;
    if (forced != 0 && forced != 4 && forced != 8)
        return vp_fail(err, VP_EFORMAT, UINT64_MAX, "escape width must be 4 or 8, not %d", forced);

    attempt a = {.m = vp_vprof_model_new()}, b = {0};
    if (!a.m)
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    attempt_run(&a, map, forced ? forced : 4, opts);
    /* The escape field is a C `unsigned long`: 4 bytes on Windows and 32-bit
     * builds, 8 on 64-bit Linux/macOS. Width 4 is tried first; when the
     * stream stops making sense after an escape, width 8 is tried too and
     * the reading that makes more sense wins. */
    if (!forced && a.st.escapes && (a.status != PARSE_CLEAN || a.st.anomalies)) {
        b.m = vp_vprof_model_new();
        if (!b.m) {
            vp_vprof_free(a.m);
            return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
        }
        attempt_run(&b, map, 8, opts);
        if (attempt_better(&b, &a)) {
            attempt t = a;
            a = b;
            b = t;
        }
        vp_vprof_free(b.m);
    }
    if (a.status == PARSE_ERROR) {
        *err = a.err;
        vp_vprof_free(a.m);
        return err->code;
    }
    vp_vprof *m = a.m;
    if (a.status == PARSE_TRUNC) {
        if (m->frame_count == 0) {
            vp_fail(err, VP_ETRUNC, UINT64_MAX, "%s; no frame is complete", a.trunc_msg);
            vp_vprof_free(m);
            return VP_ETRUNC;
        }
        m->truncated = 1;
        vp_warn(&m->warnings, "truncated %s; the %u complete frames before it are kept",
                a.trunc_msg, m->frame_count);
    }
    if (!finalize(m, &a)) {
        vp_vprof_free(m);
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    }
    m->map = *map;
    *out = m;
    return VP_OK;
}

vp_errcode vp_vprof_open(const char *path, const vp_open_opts *opts, vp_vprof **out, vp_error *err)
{
    vp_map map;
    *out = NULL;
    vp_errcode rc = vp_map_open(&map, path, err);
    if (rc != VP_OK)
        return rc;
    rc = open_map(&map, opts, out, err);
    if (rc != VP_OK)
        vp_map_close(&map);
    return rc;
}

vp_errcode vp_vprof_open_mem(const void *buf, size_t n, const vp_open_opts *opts, vp_vprof **out,
                             vp_error *err)
{
    vp_map map;
    vp_map_wrap(&map, buf, n);
    return open_map(&map, opts, out, err);
}
