/* VProf reader tests on bytes laid out by hand from the spec (not by the
 * writer), so a shared misreading cannot pass both. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "formats/vprof.h"

typedef struct {
    uint8_t b[8192];
    size_t n;
} buf;

static void u8(buf *f, unsigned v)
{
    f->b[f->n++] = (uint8_t)v;
}

static void le(buf *f, uint64_t v, int width)
{
    for (int i = 0; i < width; i++)
        u8(f, (unsigned)(v >> (8 * i)) & 0xff);
}

static void str(buf *f, const char *s)
{
    size_t k = strlen(s) + 1;
    memcpy(f->b + f->n, s, k);
    f->n += k;
}

static void header(buf *f, int32_t root)
{
    le(f, 1, 4);
    le(f, (uint32_t)root, 4);
}

static void start(buf *f, int32_t tick)
{
    u8(f, 0);
    le(f, (uint32_t)tick, 4);
}

static void group(buf *f, const char *name, int32_t flags)
{
    u8(f, 2);
    str(f, name);
    le(f, (uint32_t)flags, 4);
}

static void node(buf *f, int32_t parent, const char *name, int32_t grp, int32_t id)
{
    u8(f, 1);
    le(f, (uint32_t)parent, 4);
    str(f, name);
    le(f, (uint32_t)grp, 4);
    le(f, (uint32_t)id, 4);
}

/* One timing record: calls and time in microseconds, with escapes. */
static void timing(buf *f, unsigned calls, uint64_t us, int ew)
{
    if (calls >= 255) {
        u8(f, 255);
        le(f, calls > 65535 ? 65535 : calls, 2);
    } else {
        u8(f, calls);
    }
    uint64_t units = us / 4;
    if (units >= 0xFFFF) {
        le(f, 0xFFFF, 2);
        le(f, units, ew);
    } else {
        le(f, units, 2);
    }
}

/* One frame's timings: Token_Timings, then {calls, us} for the root and
 * each node in the file's order (newest child first), then Token_EndFrame. */
typedef struct {
    unsigned calls;
    uint64_t us;
} timed;

static void timings(buf *f, const timed *t, size_t n, int ew)
{
    u8(f, 3);
    for (size_t i = 0; i < n; i++)
        timing(f, t[i].calls, t[i].us, ew);
    u8(f, 4);
}

/* TIMINGS(&f, ew, {calls, us}, ...): timings() on a list written in place. */
#define TIMINGS(f, ew, ...)                                                    \
    timings((f), (const timed[]){__VA_ARGS__},                                 \
            sizeof((const timed[]){__VA_ARGS__}) / sizeof(timed), (ew))

static vp_vprof *open_buf(const buf *f, int ew, vp_error *err)
{
    vp_open_opts o = {.escape_width = ew};
    vp_vprof *m = NULL;
    vp_vprof_open_mem(f->b, f->n, &o, &m, err);
    return m;
}

/* open_buf (width detected) that must succeed: counts as a check and names
 * the reader's error when it fails. */
static vp_vprof *open_ok(const buf *f, vp_error *err)
{
    vp_vprof *m = open_buf(f, 0, err);
    CHECK(m != NULL);
    if (!m)
        fprintf(stderr, "  %s\n", err->msg);
    return m;
}

/* Frame i's data read into fd (a check) over memory for every node, which
 * the caller frees. */
static void *frame_read(vp_vprof *m, uint32_t i, vp_vprof_fdata *fd, vp_error *err)
{
    void *mem = malloc(vp_vprof_fdata_size(m->node_count));
    vp_vprof_fdata_init(fd, m->node_count, mem);
    CHECK_EQ(vp_vprof_frame_read(m, i, fd, err), VP_OK);
    return mem;
}

static void all_groups(buf *f)
{
    static const char *names[] = {"Unaccounted", "World Rendering", "Displacement_Rendering",
                                  "Game", "Player", "NPCs", "Server Animation",
                                  "Client_Animation", "Physics"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        group(f, names[i], i == 1 || i == 2 || i == 7 ? 1 : 6);
}

/* Two frames; frame 2 adds a second child under A, prepended. */
static void test_tree_and_times(void)
{
    buf f = {.n = 0};
    header(&f, 0);
    start(&f, 100);
    all_groups(&f);
    node(&f, 0, "A", 8, 1);
    node(&f, 1, "B", 3, 2);
    /* root: ~0, calls 1, as real captures; then A, B */
    TIMINGS(&f, 4, {1, 0}, {1, 10000}, {2, 4000});
    start(&f, 100); /* ticks may repeat */
    node(&f, 1, "C", 3, 3);
    TIMINGS(&f, 4, {1, 0}, {1, 12000}, {7, 5000}, {2, 4000}); /* C: newest child first */

    vp_error err;
    vp_vprof *m = open_ok(&f, &err);
    if (!m)
        return;
    CHECK_EQ(m->frame_count, 2);
    CHECK_EQ(m->node_count, 4);
    CHECK_EQ(m->group_base, 0);
    CHECK_EQ(m->frames[1].tick, 100);
    CHECK(vp_vprof_frame_ms(m, 0) == 10.0); /* root's children, not the root */
    CHECK(vp_vprof_frame_ms(m, 1) == 12.0);
    uint32_t a = vp_vprof_node_by_id(m, 1), c = vp_vprof_node_by_id(m, 3);
    CHECK_EQ(m->nodes[a].first_child, c);
    CHECK_EQ(m->nodes[c].first_frame, 1);
    CHECK_EQ(m->nodes[c].depth, 2);

    vp_vprof_fdata fd;
    void *mem = frame_read(m, 1, &fd, &err);
    CHECK_EQ(fd.units[c] * 4, 5000);
    CHECK_EQ(fd.calls[c], 7);
    CHECK_EQ(fd.self[a] * 4, 12000 - 5000 - 4000);
    free(mem);

    /* Group self time per frame: summarised by the statistics pass (not
     * asked for at open), and as columns on request. */
    uint32_t phys = vp_vprof_group_by_id(m, 8), game = vp_vprof_group_by_id(m, 3);
    CHECK_EQ(m->stats.have, 0);
    CHECK_EQ(vp_vprof_stats_need(m, VP_VPROF_STATS_GROUPS, &err), VP_OK);
    vp_stream *sp = vp_vprof_group_stream(m, phys, 0), *sg = vp_vprof_group_stream(m, game, 0);
    CHECK(sp && sg);
    if (sp && sg) {
        CHECK_EQ(vp_stream_n(sp), 2);
        CHECK_EQ(sp->max * 4, 6000); /* A's self: 10 - 4 ms */
        CHECK_EQ(sp->argmax, 0);
        CHECK_EQ(sp->min * 4, 3000); /* 12 - 5 - 4 ms */
        CHECK_EQ(sp->argmin, 1);
        CHECK(vp_stream_sum(sp, VP_VPROF_US_PER_UNIT / 1000.0) == 9.0);
        CHECK_EQ(sg->max * 4, 9000); /* B + C in frame 2 */
        CHECK_EQ(sg->argmax, 1);
    }
    vp_vprof_quantity gq = {.kind = VP_VPROF_Q_GROUP, .index = phys, .column = vp_series_new(0)};
    CHECK_EQ(vp_vprof_measure(m, &gq, 1, NULL, 0, &err), VP_OK);
    CHECK(gq.column->n == 2 && gq.column->v[0] == 6.0 && gq.column->v[1] == 3.0);
    vp_series_unref(gq.column);
    CHECK(strcmp(vp_vprof_name(m, m->groups[phys].name), "Physics") == 0);

    char path[64];
    vp_vprof_node_path(m, c, path, sizeof path);
    CHECK(strcmp(path, "Root/A/C") == 0);
    CHECK_EQ(vp_vprof_node_by_path(m, "Root/A/B", 8), vp_vprof_node_by_id(m, 2));
    CHECK_EQ(vp_vprof_node_by_path(m, "A/C", 3), c);
    CHECK_EQ(vp_vprof_node_by_path(m, "Root/A/X", 8), VP_VPROF_NO_NODE);
    vp_vprof_free(m);
}

/* Children's sum above the parent's time clamps the parent's self at 0;
 * a root that reports more than its children sets the frame time. */
static void test_self_clamp_and_root_time(void)
{
    buf f = {.n = 0};
    header(&f, 7);
    start(&f, 1);
    group(&f, "Unaccounted", 6);
    node(&f, 7, "A", 0, 1);
    node(&f, 1, "B", 0, 2);
    TIMINGS(&f, 4, {1, 20000}, {1, 4000}, {1, 4008}); /* root larger than its children */
    vp_error err;
    vp_vprof *m = open_ok(&f, &err);
    if (!m)
        return;
    CHECK(vp_vprof_frame_ms(m, 0) == 20.0);
    vp_vprof_fdata fd;
    void *mem = frame_read(m, 0, &fd, &err);
    CHECK_EQ(fd.self[vp_vprof_node_by_id(m, 1)], 0);
    CHECK_EQ(fd.self[0] * 4, 16000);
    free(mem);
    vp_vprof_free(m);
}

/* Escapes: calls exactly 255 escaped; times at and above 0xFFFF units in
 * 4- and 8-byte escape fields; width detected. */
static void test_escapes(int ew)
{
    buf f = {.n = 0};
    header(&f, 0);
    for (int fr = 0; fr < 3; fr++) {
        start(&f, fr);
        if (fr == 0) {
            group(&f, "Unaccounted", 6);
            node(&f, 0, "Big", 0, 1);
            node(&f, 0, "Many", 0, 2);
        }
        /* Many: calls escape, clamps; Big */
        TIMINGS(&f, ew, {1, 0}, {65535 + (unsigned)fr, 3},
                {255, (uint64_t)0xFFFF * 4 + (uint64_t)fr * 400000});
    }
    vp_error err;
    vp_vprof *m = open_ok(&f, &err);
    if (!m)
        return;
    CHECK_EQ(m->escape_width, ew);
    CHECK_EQ(m->escapes_seen, 1);
    CHECK_EQ(m->frame_count, 3);
    CHECK(vp_vprof_frame_ms(m, 2) == (0xFFFF * 4 + 800000) / 1000.0);
    vp_vprof_fdata fd;
    void *mem = frame_read(m, 1, &fd, &err);
    CHECK_EQ(fd.calls[vp_vprof_node_by_id(m, 1)], 255);
    CHECK_EQ(fd.calls[vp_vprof_node_by_id(m, 2)], 65535);
    free(mem);
    vp_vprof_free(m);
}

/* A file that declares only groups after the 31 defaults. */
static void test_group_base_31(void)
{
    buf f = {.n = 0};
    header(&f, 0);
    start(&f, 1);
    group(&f, "Scripting", 4);
    node(&f, 0, "Lua", 31, 1);
    node(&f, 0, "Phys", 8, 2);
    node(&f, 0, "Odd", 77, 3);
    TIMINGS(&f, 4, {1, 1000}, {1, 1000}, {1, 1000}, {1, 1000});
    vp_error err;
    vp_vprof *m = open_ok(&f, &err);
    if (!m)
        return;
    CHECK_EQ(m->group_base, 31);
    uint32_t g = m->nodes[vp_vprof_node_by_id(m, 1)].group;
    CHECK(strcmp(vp_vprof_name(m, m->groups[g].name), "Scripting") == 0);
    g = m->nodes[vp_vprof_node_by_id(m, 2)].group;
    CHECK(strcmp(vp_vprof_name(m, m->groups[g].name), "Physics") == 0);
    g = m->nodes[vp_vprof_node_by_id(m, 3)].group;
    CHECK(strcmp(vp_vprof_name(m, m->groups[g].name), "group#77") == 0);
    CHECK_EQ(m->warnings.count, 1);
    CHECK_STR_CONTAINS(m->warnings.items[0], "group id 77 is never declared");
    vp_vprof_free(m);
}

static void test_errors(void)
{
    vp_error err;
    buf f = {.n = 0};
    header(&f, 0);
    start(&f, 1);
    node(&f, 9, "Orphan", 0, 1);
    CHECK(open_buf(&f, 0, &err) == NULL);
    CHECK_EQ(err.code, VP_EFORMAT);
    CHECK_STR_CONTAINS(err.msg, "at byte 13: node 'Orphan' (id 1) names parent id 9");

    f.n = 0;
    header(&f, 0);
    start(&f, 1);
    u8(&f, 9);
    CHECK(open_buf(&f, 0, &err) == NULL);
    CHECK_STR_CONTAINS(err.msg, "at byte 13: expected Token_AddNode (1), Token_AddBudgetGroup "
                                "(2) or Token_Timings (3)");

    f.n = 0;
    le(&f, 3, 4);
    le(&f, 0, 4);
    CHECK(open_buf(&f, 0, &err) == NULL);
    CHECK_EQ(err.code, VP_EVERSION);

    /* A name with no NUL before the end is a truncation. */
    f.n = 0;
    header(&f, 0);
    start(&f, 1);
    u8(&f, 2);
    memcpy(f.b + f.n, "Unacc", 5);
    f.n += 5;
    CHECK(open_buf(&f, 0, &err) == NULL);
    CHECK_EQ(err.code, VP_ETRUNC);
    CHECK_STR_CONTAINS(err.msg, "Token_AddBudgetGroup record at byte 13");

    /* Garbage after the last frame: the frame before it is kept (damage is
     * kept as a cut is), and a strict open refuses it. */
    f.n = 0;
    header(&f, 0);
    start(&f, 1);
    TIMINGS(&f, 4, {1, 0});
    u8(&f, 0x41);
    vp_vprof *m = open_buf(&f, 0, &err);
    CHECK(m != NULL);
    if (m) {
        CHECK_EQ(m->frame_count, 1);
        CHECK_EQ(m->corrupt, 1);
        CHECK_EQ(m->truncated, 0);
        int said = 0;
        for (size_t w = 0; w < m->warnings.count; w++)
            said += strstr(m->warnings.items[w],
                           "corrupt at byte 18: expected Token_StartFrame (0) to begin frame 2") != NULL;
        CHECK_EQ(said, 1);
        vp_vprof_free(m);
    }
    vp_open_opts strict = {.strict = 1};
    m = NULL;
    CHECK(vp_vprof_open_mem(f.b, f.n, &strict, &m, &err) == VP_EFORMAT && m == NULL);
    CHECK_STR_CONTAINS(err.msg, "at byte 18: expected Token_StartFrame (0) to begin frame 2");
}

/* A truncated last frame is dropped, with its new nodes, and reported. */
static void test_truncated(void)
{
    buf f = {.n = 0};
    header(&f, 0);
    start(&f, 1);
    group(&f, "Unaccounted", 6);
    node(&f, 0, "A", 0, 1);
    TIMINGS(&f, 4, {1, 0}, {1, 8000});
    size_t second = f.n;
    start(&f, 2);
    node(&f, 0, "Late", 0, 2);
    u8(&f, 3);
    timing(&f, 1, 0, 4);
    vp_error err;
    vp_vprof *m = open_ok(&f, &err);
    if (!m)
        return;
    CHECK_EQ(m->frame_count, 1);
    CHECK_EQ(m->truncated, 1);
    CHECK_EQ(m->node_count, 2);
    CHECK_EQ(vp_vprof_node_by_id(m, 2), VP_VPROF_NO_NODE);
    char want[96];
    snprintf(want, sizeof want, "frame 2 (which starts at byte %zu)", second);
    CHECK(m->warnings.count >= 1);
    CHECK_STR_CONTAINS(m->warnings.items[0], want);
    vp_vprof_free(m);
}

static void test_zero_and_namesakes(void)
{
    buf f = {.n = 0};
    header(&f, 0);
    start(&f, 1);
    group(&f, "Unaccounted", 6);
    node(&f, 0, "S", 0, 1);
    node(&f, 0, "S", 0, 2);
    TIMINGS(&f, 4, {1, 0}, {0, 0}, {0, 0});
    vp_error err;
    vp_vprof *m = open_ok(&f, &err);
    if (!m)
        return;
    CHECK_EQ(m->zero_timings, 1);
    CHECK_EQ(m->node_count, 3);
    char p[32];
    vp_vprof_node_path(m, vp_vprof_node_by_id(m, 2), p, sizeof p);
    CHECK(strcmp(p, "Root/S#2") == 0);
    CHECK_EQ(vp_vprof_node_by_path(m, "Root/S", 6), vp_vprof_node_by_id(m, 1));
    vp_vprof_free(m);
}

/* The statistics the bindings hand to Lua: per-node totals over a range,
 * per-node series, group self times with a hidden group folded into its
 * nearest visible ancestor's group, and the summary figures. */
static void test_stats(void)
{
    buf f = {.n = 0};
    header(&f, 0);
    start(&f, 5);
    all_groups(&f);                  /* ids 0..8 */
    group(&f, "Hidden", 0x8000 | 4); /* id 9 */
    node(&f, 0, "A", 8, 1);
    node(&f, 1, "H", 9, 2);
    TIMINGS(&f, 4, {1, 0}, {1, 10000}, {3, 4000}); /* root, A, H */
    start(&f, 3);
    TIMINGS(&f, 4, {1, 0}, {1, 8000}, {2, 2000});

    vp_error err;
    vp_vprof *m = open_ok(&f, &err);
    if (!m)
        return;
    uint32_t a = vp_vprof_node_by_id(m, 1), h = vp_vprof_node_by_id(m, 2);
    uint32_t phys = vp_vprof_group_by_id(m, 8), hid = vp_vprof_group_by_id(m, 9);

    vp_vprof_node_stat st[3];
    CHECK_EQ(vp_vprof_node_stats(m, 0, 1, st, &err), VP_OK);
    CHECK_EQ(st[a].time * 4, 18000);
    CHECK_EQ(st[a].self * 4, 6000 + 6000);
    CHECK_EQ(st[a].peak * 4, 10000);
    CHECK_EQ(st[a].peak_frame, 0);
    CHECK_EQ(st[h].calls, 5);
    CHECK_EQ(st[h].frames, 2);
    CHECK_EQ(vp_vprof_node_stats(m, 1, 1, st, &err), VP_OK);
    CHECK_EQ(st[a].frames, 1);
    CHECK_EQ(st[a].peak_frame, 1);
    CHECK_EQ(vp_vprof_node_stats(m, 1, 0, st, &err), VP_OK); /* empty: zeros */
    CHECK_EQ(st[a].frames, 0);
    CHECK_EQ(st[a].time, 0);

    vp_series *ser[2] = {vp_series_new(0), vp_series_new(0)};
    vp_vprof_quantity nq[2] = {{.kind = VP_VPROF_Q_NODE, .index = h, .field = VP_VPROF_SELF_MS, .column = ser[0]},
                               {.kind = VP_VPROF_Q_NODE, .index = a, .field = VP_VPROF_SELF_MS, .column = ser[1]}};
    CHECK_EQ(vp_vprof_measure(m, nq, 2, NULL, 0, &err), VP_OK);
    CHECK_EQ(ser[0]->n, 2);
    CHECK(ser[0]->v[0] == 4.0 && ser[0]->v[1] == 2.0);
    CHECK(ser[1]->v[0] == 6.0 && ser[1]->v[1] == 6.0);
    vp_series_unref(ser[0]);
    vp_series_unref(ser[1]);

    CHECK_EQ(vp_vprof_has_hidden_groups(m), 1);
    CHECK_EQ(vp_vprof_visible_group(m, h), phys);
    vp_vprof_quantity gq[2] = {{.kind = VP_VPROF_Q_GROUP, .index = phys, .fold = 1, .column = vp_series_new(0)},
                               {.kind = VP_VPROF_Q_GROUP, .index = hid, .fold = 1, .column = vp_series_new(0)}};
    CHECK_EQ(vp_vprof_measure(m, gq, 2, NULL, 0, &err), VP_OK);
    CHECK(gq[0].column->v[0] == 10.0 && gq[0].column->v[1] == 8.0);
    CHECK(gq[1].column->n == 2 && gq[1].column->v[0] == 0.0); /* nothing counts towards it folded */
    vp_series_unref(gq[1].column);
    gq[1].column = vp_series_new(0);
    gq[1].fold = 0;
    CHECK_EQ(vp_vprof_measure(m, &gq[1], 1, NULL, 0, &err), VP_OK);
    CHECK(gq[1].column->v[0] == 4.0); /* unfolded */
    vp_series_unref(gq[0].column);
    vp_series_unref(gq[1].column);
    /* The same folded and unfolded figures summarised by the statistics pass. */
    CHECK_EQ(vp_vprof_stats_need(m, VP_VPROF_STATS_ALL, &err), VP_OK);
    vp_stream *fp = vp_vprof_group_stream(m, phys, 1), *up = vp_vprof_group_stream(m, phys, 0);
    CHECK(fp && up && vp_stream_sum(fp, VP_VPROF_US_PER_UNIT / 1000.0) == 18.0 &&
          vp_stream_sum(up, VP_VPROF_US_PER_UNIT / 1000.0) == 12.0);
    CHECK(vp_vprof_group_stream(m, hid, 1) == NULL); /* no node folds into it */
    CHECK(vp_vprof_group_stream(m, hid, 0) != NULL);

    int32_t lo = 0, hi = 0;
    CHECK(vp_vprof_tick_range(m, &lo, &hi));
    CHECK(lo == 3 && hi == 5);
    CHECK_EQ(vp_vprof_groups_with_nodes(m), 3); /* Unaccounted (the root), Physics, Hidden */
    CHECK_EQ(vp_vprof_group_by_name(m, "Hidden"), hid);
    CHECK_EQ(vp_vprof_group_by_name(m, "nope"), VP_VPROF_NO_NODE);
    vp_vprof_free(m);
}

/* Causes found in batches of candidates (a long window) are the ones found
 * all at once; hitches by both rules. */
static void test_causes_batches(void)
{
    buf f = {.n = 0};
    header(&f, 0);
    for (int i = 0; i < 80; i++) {
        start(&f, i);
        if (i == 0) {
            all_groups(&f);
            node(&f, 0, "F", 3, 1);
            for (int k = 0; k < 6; k++)
                node(&f, 1, k % 2 ? "A" : "B", k + 1, 2 + k);
        }
        u8(&f, 3);
        uint64_t kid[6], sum = 0;
        for (int k = 0; k < 6; k++) {
            kid[k] = 1000 + 400 * (uint64_t)((i * 7 + k * 13) % 5);
            if (i % 20 == 19 && k == i % 6)
                kid[k] += 30000 + 1000 * (uint64_t)k;
            if (i % 20 == 19 && k == (i + 3) % 6)
                kid[k] += 12000;
            sum += kid[k];
        }
        timing(&f, 1, 0, 4);
        timing(&f, 1, sum, 4);
        for (int k = 5; k >= 0; k--) /* newest child first */
            timing(&f, 1, kid[k], 4);
        u8(&f, 4);
    }
    vp_error err;
    vp_vprof *m = open_ok(&f, &err);
    if (!m)
        return;
    vp_hitch_rule rule = {2, 5, 0, 0, 30};
    vp_hitch *hs;
    uint32_t nh;
    CHECK_EQ(vp_vprof_hitches(m, &rule, &hs, &nh, &err), VP_OK);
    CHECK_EQ(nh, 4); /* frames 19, 39, 59, 79 (0-based) */
    CHECK_EQ(hs[0].frame, 19);
    for (uint32_t k = 0; k < nh; k++) {
        vp_vprof_cause n1[4], g1[4], n2[4], g2[4];
        uint32_t a1, b1, a2, b2;
        m->causes_batch = 0;
        CHECK_EQ(vp_vprof_causes(m, hs[k].frame, 30, 4, n1, &a1, g1, &b1, &err), VP_OK);
        m->causes_batch = 30 * sizeof(uint64_t); /* one candidate per batch */
        CHECK_EQ(vp_vprof_causes(m, hs[k].frame, 30, 4, n2, &a2, g2, &b2, &err), VP_OK);
        CHECK_EQ(a1, a2);
        CHECK_EQ(b1, b2);
        CHECK(a1 >= 2 && b1 >= 2);
        CHECK(memcmp(n1, n2, a1 * sizeof *n1) == 0);
        CHECK(memcmp(g1, g2, b1 * sizeof *g1) == 0);
        CHECK(n1[0].excess_ms >= n1[1].excess_ms);
    }
    free(hs);
    rule.absolute = 1;
    rule.threshold_ms = 40;
    CHECK_EQ(vp_vprof_hitches(m, &rule, &hs, &nh, &err), VP_OK);
    CHECK_EQ(nh, 4);
    CHECK_EQ(hs[0].frame, 19);
    CHECK(hs[0].has_baseline);
    free(hs);
    vp_vprof_free(m);
}

/* Globs (cap:find): whole-string matches, stars that stop at '/' or not,
 * classes, escapes; a long run of stars stays linear. */
static void test_glob(void)
{
    static const struct {
        const char *glob, *s;
        int want;
    } cases[] = {
        {"Physics*", "Physics_Step", 1}, {"Physics*", "Root/Physics_Step", 0},
        {"*", "", 1},                   {"*", "a/b", 0},
        {"**", "a/b", 1},               {"**/Solve", "Root/AI/Solve", 1},
        {"**/Solve", "Solve", 0},       {"Root/*/Solve", "Root/AI/Solve", 1},
        {"Root/*/Solve", "Root/A/B/Solve", 0}, {"?", "/", 0},
        {"?x", "ax", 1},                {"[a-c]x", "bx", 1},
        {"[a-c]x", "dx", 0},            {"[!a-c]x", "dx", 1},
        {"[!a-c]x", "/x", 1},           {"[]]", "]", 1},
        {"[!]]", "a", 1},               {"[!]]", "]", 0},
        {"[-a]", "-", 1},               {"[a-]", "-", 1},
        {"\\*", "*", 1},                {"\\*", "x", 0},
        {"a\\", "a\\", 1},              {"T*k#2", "Tick#2", 1},
        {"a*b*c", "aXbYc", 1},          {"a*b*c", "aXbY/c", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = vp_vprof_glob_match(cases[i].glob, strlen(cases[i].glob), cases[i].s,
                                      strlen(cases[i].s));
        if (got != cases[i].want)
            fprintf(stderr, "glob '%s' on '%s': %d\n", cases[i].glob, cases[i].s, got);
        CHECK_EQ(got, cases[i].want);
    }
    CHECK_EQ(vp_vprof_glob_error("ab[cd", 5), 2);
    CHECK_EQ(vp_vprof_glob_error("[!]", 3), 0);
    CHECK_EQ(vp_vprof_glob_error("\\[x", 3), -1);
    CHECK_EQ(vp_vprof_glob_match("[x", 2, "x", 1), -1);
    /* 500 stars against 5,000 bytes: a backtracking matcher would not end */
    char g[1002], s[5001];
    for (int i = 0; i < 500; i++)
        g[2 * i] = '*', g[2 * i + 1] = 'a';
    g[1000] = 'b';
    memset(s, 'a', 5000);
    CHECK_EQ(vp_vprof_glob_match(g, 1001, s, 5000), 0);
    s[4999] = 'b';
    CHECK_EQ(vp_vprof_glob_match(g, 1001, s, 5000), 1);
}

int main(void)
{
    test_glob();
    test_causes_batches();
    test_tree_and_times();
    test_self_clamp_and_root_time();
    test_escapes(4);
    test_escapes(8);
    test_group_base_31();
    test_errors();
    test_truncated();
    test_zero_and_namesakes();
    test_stats();
    return check_done("test_vprof");
}
