/* Several captures at once (vp_vprof_batches_all, vp_vprof_open_all): what
 * the threads give equals what each capture gives alone, a failure frees
 * everything, and the summed progress reaches the files' sizes; and the
 * measuring pass those threads run against values worked out by hand.
 * Captures written with the benchmark's writer (bench/vprof_write.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "formats/vprof.h"
#include "vprof_write.h"

/* A writer of a new temporary file at path (a mkstemp template), with the
 * default options; NULL (a failed check) when it could not be made. */
static vp_vprof_writer *new_writer(char *path)
{
    if (!check_tmpfile(path, NULL, 0))
        return NULL;
    vp_vprof_wopts o;
    vp_vprof_wopts_init(&o);
    vp_error err;
    vp_vprof_writer *w = vp_vprof_writer_open(path, &o, &err);
    CHECK(w != NULL);
    return w;
}

/* A capture of `frames` frames: two groups, a root and three nodes whose
 * times vary with the frame and with `seed`. 0 when it could not be
 * written. */
static int write_capture(char *path, uint32_t frames, unsigned seed)
{
    vp_vprof_writer *w = new_writer(path);
    if (!w)
        return 0;
    vp_error err;
    int32_t g0 = 0, g1 = 0;
    CHECK_EQ(vp_vprof_writer_group(w, "Render", 0, &g0, &err), VP_OK);
    CHECK_EQ(vp_vprof_writer_group(w, "Logic", 0, &g1, &err), VP_OK);
    CHECK_EQ(vp_vprof_writer_node(w, 0, "A", g0, 1, NULL, &err), VP_OK);
    CHECK_EQ(vp_vprof_writer_node(w, 1, "B", g1, 2, NULL, &err), VP_OK);
    CHECK_EQ(vp_vprof_writer_node(w, 0, "C", g1, 3, NULL, &err), VP_OK);
    for (uint32_t f = 0; f < frames; f++) {
        vp_vprof_wtiming t[4];
        uint64_t b = 4 * (uint64_t)((f * 7 + seed) % 13), c = 4 * (uint64_t)((f * 3 + seed) % 5);
        uint64_t a = b + 4 * (uint64_t)((f + seed) % 4);
        t[0] = (vp_vprof_wtiming){a + c + 8, 1};
        t[1] = (vp_vprof_wtiming){a, 1 + f % 2};
        t[2] = (vp_vprof_wtiming){b, f % 3};
        t[3] = (vp_vprof_wtiming){c, 1};
        CHECK_EQ(vp_vprof_writer_frame(w, (int32_t)f, t, &err), VP_OK);
    }
    CHECK_EQ(vp_vprof_writer_close(w, NULL, &err), VP_OK);
    return 1;
}

static vp_vprof *open_path(const char *path)
{
    vp_vprof *m = NULL;
    vp_error err;
    CHECK_EQ(vp_vprof_open(path, NULL, &m, &err), VP_OK);
    return m;
}

static int counts_equal(const vp_counts *a, const vp_counts *b)
{
    if (a->d != b->d || a->n != b->n || memcmp(&a->sum, &b->sum, sizeof a->sum) != 0)
        return 0;
    for (size_t i = 0; i < a->d; i++)
        if (memcmp(&a->v[i], &b->v[i], sizeof a->v[i]) != 0 || a->c[i] != b->c[i])
            return 0;
    return 1;
}

static int batched_equal(const vp_batched *a, const vp_batched *b)
{
    if (!a || !b)
        return a == b;
    if (a->k != b->k || !counts_equal(&a->all, &b->all))
        return 0;
    for (size_t i = 0; i < a->k; i++)
        if (!counts_equal(&a->batch[i], &b->batch[i]))
            return 0;
    return 1;
}

/* Two models' requests at once, interleaved (one with the groups'), equal
 * each request's pass run alone. */
static void test_batches_all(vp_vprof *m1, vp_vprof *m2)
{
    size_t cuts1[4], cuts2[3];
    vp_batch_cuts(m1->frame_count, 3, cuts1);
    vp_batch_cuts(m2->frame_count, 2, cuts2);
    uint32_t n1[2] = {1, 2}, n2[1] = {3}, n3[3] = {0, 3, 1};
    vp_batched *o1[2] = {0}, *o2[1] = {0}, *o3[3] = {0};
    vp_batched **g2 = calloc(m2->group_count + 1, sizeof *g2);
    vp_vprof_batch_req req[4] = {
        {.m = m1, .nodes = n1, .count = 2, .field = VP_VPROF_TIME_MS, .cuts = cuts1, .k = 3, .out = o1},
        {.m = m2, .nodes = n2, .count = 1, .field = VP_VPROF_SELF_MS, .cuts = cuts2, .k = 2, .out = o2,
         .gout = g2},
        {.m = m1, .nodes = n3, .count = 3, .field = VP_VPROF_CALLS, .cuts = cuts1, .k = 3, .out = o3},
        {.m = m2, .nodes = NULL, .count = 0, .field = VP_VPROF_TIME_MS, .cuts = cuts2, .k = 2, .out = NULL},
    };
    for (size_t i = 0; i < 4; i++)
        req[i].rc = VP_EIO; /* each must be set */
    CHECK_EQ(vp_vprof_batches_all(req, 4), 4);
    for (size_t i = 0; i < 4; i++)
        CHECK_EQ(req[i].rc, VP_OK);

    vp_error err;
    vp_batched *a1[2] = {0}, *a2[1] = {0}, *a3[3] = {0};
    vp_batched **ag2 = calloc(m2->group_count + 1, sizeof *ag2);
    /* The same batches from vp_vprof_measure called here. */
    vp_vprof_quantity q1[2], q2[64], q3[3];
    for (size_t i = 0; i < 2; i++)
        q1[i] = (vp_vprof_quantity){.kind = VP_VPROF_Q_NODE, .index = n1[i], .field = VP_VPROF_TIME_MS,
                                    .batches = &a1[i]};
    for (size_t i = 0; i < 3; i++)
        q3[i] = (vp_vprof_quantity){.kind = VP_VPROF_Q_NODE, .index = n3[i], .field = VP_VPROF_CALLS,
                                    .batches = &a3[i]};
    CHECK(m2->group_count < 63);
    q2[0] = (vp_vprof_quantity){.kind = VP_VPROF_Q_NODE, .index = n2[0], .field = VP_VPROF_SELF_MS, .batches = &a2[0]};
    for (uint32_t g = 0; g < m2->group_count && g < 63; g++)
        q2[1 + g] = (vp_vprof_quantity){.kind = VP_VPROF_Q_GROUP, .index = g,
                                        .batches = vp_vprof_group_stream(m2, g, 0) ? &ag2[g] : NULL};
    CHECK_EQ(vp_vprof_measure(m1, q1, 2, cuts1, 3, &err), VP_OK);
    CHECK_EQ(vp_vprof_measure(m2, q2, 1 + m2->group_count, cuts2, 2, &err), VP_OK);
    CHECK_EQ(vp_vprof_measure(m1, q3, 3, cuts1, 3, &err), VP_OK);
    for (size_t i = 0; i < 2; i++)
        CHECK(o1[i] && batched_equal(o1[i], a1[i]));
    CHECK(o2[0] && batched_equal(o2[0], a2[0]));
    for (size_t i = 0; i < 3; i++)
        CHECK(o3[i] && batched_equal(o3[i], a3[i]));
    size_t groups = 0;
    for (uint32_t g = 0; g < m2->group_count; g++) {
        CHECK(batched_equal(g2[g], ag2[g]));
        groups += g2[g] != NULL;
    }
    CHECK(groups >= 2);

    for (size_t i = 0; i < 2; i++) {
        vp_batched_free(o1[i]);
        vp_batched_free(a1[i]);
    }
    vp_batched_free(o2[0]);
    vp_batched_free(a2[0]);
    for (size_t i = 0; i < 3; i++) {
        vp_batched_free(o3[i]);
        vp_batched_free(a3[i]);
    }
    for (uint32_t g = 0; g < m2->group_count; g++) {
        vp_batched_free(g2[g]);
        vp_batched_free(ag2[g]);
    }
    free(g2);
    free(ag2);
}

/* vp_vprof_measure: every kind of quantity with every sink in one pass.
 * Each column equals the one a pass for that quantity alone gives, its
 * batches those of the column itself (vp_batched_of_values), its summary
 * the column's count and maximum; the frame times' column is the model's.
 * Cuts that do not fit and an index out of range are refused, with no
 * batches left behind. */
static void test_measure(vp_vprof *m)
{
    enum { NQ = 16 };
    size_t cuts[4];
    vp_batch_cuts(m->frame_count, 3, cuts);
    vp_vprof_quantity q[NQ];
    vp_stream sum[NQ];
    vp_batched *b[NQ];
    size_t nq = 0;
    q[nq++] = (vp_vprof_quantity){.kind = VP_VPROF_Q_FRAME};
    for (uint32_t v = 0; v < 4 && v < m->node_count; v++)
        for (int f = 0; f < 3; f++)
            q[nq++] = (vp_vprof_quantity){.kind = VP_VPROF_Q_NODE, .index = v, .field = (vp_vprof_field)f};
    for (uint32_t g = 0; g < m->group_count && nq < NQ; g++)
        if (m->groups[g].has_nodes) {
            q[nq] = (vp_vprof_quantity){.kind = VP_VPROF_Q_GROUP, .index = g, .fold = (int)(nq & 1)};
            nq++;
        }
    CHECK(nq > 13);
    for (size_t i = 0; i < nq; i++) {
        vp_stream_init(&sum[i]);
        q[i].column = vp_series_new(0);
        q[i].summary = &sum[i];
        q[i].batches = &b[i];
    }
    vp_error err;
    CHECK_EQ(vp_vprof_measure(m, q, nq, cuts, 3, &err), VP_OK);
    vp_series *ft = vp_vprof_frame_series(m);
    CHECK(ft && ft->n == q[0].column->n && memcmp(ft->v, q[0].column->v, ft->n * sizeof *ft->v) == 0);
    vp_series_unref(ft);
    for (size_t i = 0; i < nq; i++) {
        vp_series *col = q[i].column;
        CHECK_EQ(col->n, m->frame_count);
        /* alone, a column only */
        vp_vprof_quantity one = q[i];
        one.summary = NULL;
        one.batches = NULL;
        one.column = vp_series_new(0);
        CHECK_EQ(vp_vprof_measure(m, &one, 1, NULL, 0, &err), VP_OK);
        CHECK(one.column->n == col->n && memcmp(one.column->v, col->v, col->n * sizeof *col->v) == 0);
        vp_series_unref(one.column);
        vp_batched *ref = vp_batched_of_values(col->v, cuts, 3);
        CHECK(b[i] && batched_equal(b[i], ref));
        vp_batched_free(ref);
        double scale = q[i].kind == VP_VPROF_Q_NODE && q[i].field == VP_VPROF_CALLS ? 1.0 : 0.004;
        double mx = 0;
        for (size_t f = 0; f < col->n; f++)
            mx = col->v[f] > mx ? col->v[f] : mx;
        CHECK_EQ(vp_stream_n(&sum[i]), m->frame_count);
        CHECK((double)sum[i].max * scale == mx);
        vp_batched_free(b[i]);
    }
    size_t bad[2] = {0, m->frame_count - 1};
    CHECK_EQ(vp_vprof_measure(m, q, nq, bad, 1, &err), VP_ELIMIT);
    for (size_t i = 0; i < nq; i++)
        CHECK(b[i] == NULL);
    q[1].index = m->node_count;
    CHECK_EQ(vp_vprof_measure(m, q, nq, cuts, 3, &err), VP_ELIMIT);
    for (size_t i = 0; i < nq; i++) {
        CHECK(b[i] == NULL);
        vp_series_unref(q[i].column);
        vp_stream_free(&sum[i]);
    }
}

/* vp_vprof_measure against values worked out here from what was written:
 * a capture whose tree grows after frame 40 (a new epoch: D under C, E in
 * a hidden group under A), every node's time, self time and calls, every
 * group's self time plain and folded (E's hidden group folds into A's
 * Render), and their batches over cuts that straddle the epoch change.
 * Self time is a node's time less its children's, at least 0; a node
 * counts 0 in the frames before it exists. */
enum { RF = 90, RN = 6, RG = 4 }; /* frames; nodes with the root; groups with Unaccounted */

static uint64_t ref_units(uint32_t f, int slot)
{
    static const uint64_t base[RN] = {0, 30, 9, 11, 4, 6};
    return base[slot] + (uint64_t)((f * (3 + (uint32_t)slot)) % 7);
}

static void test_measure_reference(void)
{
    char path[] = "/tmp/vp_test_jobs4_XXXXXX";
    vp_vprof_writer *w = new_writer(path);
    if (!w)
        return;
    vp_error err;
    /* slots: 1 A (Render, under the root), 2 B (Logic, under A), 3 C (Logic,
     * under the root); from frame 40: 4 D (Render, under C), 5 E (Hidden,
     * under A). Groups by the written ID: 0 Unaccounted, 1 Render, 2 Logic,
     * 3 Hidden. */
    static const int parent[RN] = {-1, 0, 1, 0, 3, 1}, group[RN] = {0, 1, 2, 2, 1, 3};
    static const int folded[RG] = {0, 1, 2, 1};
    int32_t gid[RG];
    CHECK_EQ(vp_vprof_writer_group(w, "Unaccounted", 0, &gid[0], &err), VP_OK);
    CHECK_EQ(vp_vprof_writer_group(w, "Render", 0, &gid[1], &err), VP_OK);
    CHECK_EQ(vp_vprof_writer_group(w, "Logic", 0, &gid[2], &err), VP_OK);
    CHECK_EQ(vp_vprof_writer_group(w, "Hidden", VP_BUDGETFLAG_HIDDEN, &gid[3], &err), VP_OK);
    static const char *const name[RN] = {"Root", "A", "B", "C", "D", "E"};
    /* ref[q][f]: the values by hand, in 4 us units (calls as counts) */
    static uint64_t t[RN][RF], self[RN][RF], calls[RN][RF], gs[2][RG][RF];
    memset(gs, 0, sizeof gs);
    for (uint32_t f = 0; f < RF; f++) {
        int live = f < 40 ? 4 : RN;
        if (f == 0 || f == 40)
            for (int k = f ? 4 : 1; k < live; k++)
                CHECK_EQ(vp_vprof_writer_node(w, parent[k], name[k], gid[group[k]], k, NULL, &err), VP_OK);
        for (int k = live - 1; k >= 0; k--) { /* children have higher slots */
            uint64_t kids = 0;
            for (int c = k + 1; c < live; c++)
                kids += parent[c] == k ? t[c][f] : 0;
            /* a node's own time on top of its children's, or short of it (self 0) */
            t[k][f] = k == 0 || f % 11 != 5 ? kids + ref_units(f, k) : kids / 2;
            self[k][f] = t[k][f] > kids ? t[k][f] - kids : 0;
            calls[k][f] = k ? 1 + (f + (uint32_t)k) % 3 : 1;
        }
        vp_vprof_wtiming tm[RN];
        for (int k = 0; k < RN; k++) {
            if (k >= live)
                t[k][f] = self[k][f] = calls[k][f] = 0;
            tm[k] = (vp_vprof_wtiming){4 * t[k][f], (uint32_t)calls[k][f]};
            gs[0][group[k]][f] += self[k][f];
            gs[1][folded[group[k]]][f] += self[k][f];
        }
        CHECK_EQ(vp_vprof_writer_frame(w, (int32_t)f, tm, &err), VP_OK);
    }
    CHECK_EQ(vp_vprof_writer_close(w, NULL, &err), VP_OK);
    vp_vprof *m = open_path(path);
    unlink(path);
    if (!m)
        return;
    CHECK_EQ(m->frame_count, RF);
    enum { NQ = 3 * RN + 2 * RG };
    vp_vprof_quantity q[NQ];
    const uint64_t *want[NQ];
    vp_batched *b[NQ];
    size_t nq = 0;
    for (int k = 0; k < RN; k++) {
        uint32_t v = k ? vp_vprof_node_by_id(m, k) : 0;
        CHECK(v < m->node_count);
        for (int fld = 0; fld < 3; fld++) {
            want[nq] = fld == 0 ? t[k] : fld == 1 ? self[k] : calls[k];
            q[nq++] = (vp_vprof_quantity){.kind = VP_VPROF_Q_NODE, .index = v, .field = (vp_vprof_field)fld};
        }
    }
    static const char *const gname[RG] = {"Unaccounted", "Render", "Logic", "Hidden"};
    for (int fold = 0; fold < 2; fold++)
        for (int g = 0; g < RG; g++) {
            uint32_t gi = vp_vprof_group_by_name(m, gname[g]);
            CHECK(gi < m->group_count);
            want[nq] = gs[fold][g];
            q[nq++] = (vp_vprof_quantity){.kind = VP_VPROF_Q_GROUP, .index = gi, .fold = fold};
        }
    size_t cuts[4] = {0, 25, 61, RF}; /* the middle stretch holds both epochs */
    for (size_t i = 0; i < nq; i++) {
        q[i].column = vp_series_new(0);
        q[i].batches = &b[i];
    }
    CHECK_EQ(vp_vprof_measure(m, q, nq, cuts, 3, &err), VP_OK);
    for (size_t i = 0; i < nq; i++) {
        int is_calls = q[i].kind == VP_VPROF_Q_NODE && q[i].field == VP_VPROF_CALLS;
        double scale = is_calls ? 1.0 : 0.004, v[RF];
        size_t bad = 0;
        CHECK_EQ(q[i].column->n, RF);
        for (uint32_t f = 0; f < RF; f++) {
            v[f] = (double)want[i][f] * scale;
            bad += q[i].column->n == RF && q[i].column->v[f] != v[f];
        }
        if (bad)
            fprintf(stderr, "test_measure_reference: quantity %zu: %zu frames differ\n", i, bad);
        CHECK_EQ(bad, 0);
        vp_batched *r = vp_batched_of_values(v, cuts, 3);
        CHECK(b[i] && r && batched_equal(b[i], r));
        vp_batched_free(r);
        vp_batched_free(b[i]);
        vp_series_unref(q[i].column);
    }
    vp_vprof_free(m);
}

/* A request that fails (cuts short of the frame count): its index back,
 * its error, and every other request's results freed (ASan: no leak). */
static void test_batches_all_failure(vp_vprof *m1, vp_vprof *m2)
{
    size_t cuts1[3], bad[2] = {0, m2->frame_count - 1};
    vp_batch_cuts(m1->frame_count, 2, cuts1);
    uint32_t n1[2] = {1, 2}, n2[1] = {3};
    vp_batched *o1[2] = {0}, *o2[1] = {0}, *o3[1] = {0};
    vp_vprof_batch_req req[3] = {
        {.m = m1, .nodes = n1, .count = 2, .field = VP_VPROF_TIME_MS, .cuts = cuts1, .k = 2, .out = o1},
        {.m = m2, .nodes = n2, .count = 1, .field = VP_VPROF_TIME_MS, .cuts = bad, .k = 1, .out = o2},
        {.m = m1, .nodes = n2, .count = 1, .field = VP_VPROF_CALLS, .cuts = cuts1, .k = 2, .out = o3},
    };
    CHECK_EQ(vp_vprof_batches_all(req, 3), 1);
    CHECK_EQ(req[1].rc, VP_ELIMIT);
    CHECK_STR_CONTAINS(req[1].err.msg, "the cuts must ascend");
    CHECK(o1[0] == NULL && o1[1] == NULL && o2[0] == NULL && o3[0] == NULL);
    CHECK_EQ(vp_vprof_batches_all(req, 0), 0);
}

typedef struct {
    int calls;
    uint64_t done, total;
    int ascending;
} progress_seen;

static void on_progress(void *ud, uint64_t done, uint64_t total)
{
    progress_seen *p = ud;
    if (p->calls && (done < p->done || total != p->total))
        p->ascending = 0;
    if (done > total)
        p->ascending = 0;
    p->calls++;
    p->done = done;
    p->total = total;
}

static uint64_t file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n > 0 ? (uint64_t)n : 0;
}

/* A good capture, a file that is no capture and one that is not there:
 * one model (equal to the capture opened alone) and two errors, the
 * progress summed to the sizes. */
static void test_open_all(const char *good, const char *junk)
{
    const char *paths[3] = {good, junk, "/nonexistent/vp_test_vprof_jobs.vprof"};
    progress_seen seen = {0, 0, 0, 1};
    vp_open_opts o = {0};
    o.progress = on_progress;
    o.progress_ud = &seen;
    vp_vprof_opened out[3];
    memset(out, 0xff, sizeof out);
    vp_vprof_open_all(paths, 3, &o, out);
    CHECK_EQ(out[0].rc, VP_OK);
    CHECK(out[0].m != NULL);
    CHECK(out[1].rc != VP_OK);
    CHECK(out[1].m == NULL);
    CHECK_EQ(out[2].rc, VP_ENOENT);
    CHECK(out[2].m == NULL);
    CHECK(seen.calls >= 1);
    CHECK(seen.ascending);
    CHECK_EQ(seen.total, file_size(good) + file_size(junk));
    CHECK_EQ(seen.done, seen.total);

    vp_vprof *alone = open_path(good);
    if (out[0].m && alone) {
        CHECK_EQ(out[0].m->frame_count, alone->frame_count);
        CHECK_EQ(out[0].m->node_count, alone->node_count);
        CHECK_EQ(out[0].m->group_count, alone->group_count);
    }
    vp_vprof_free(alone);
    vp_vprof_free(out[0].m);

    /* no options, no progress */
    vp_vprof_open_all(paths, 1, NULL, out);
    CHECK_EQ(out[0].rc, VP_OK);
    vp_vprof_free(out[0].m);
}

int main(void)
{
    char p1[] = "/tmp/vp_test_jobs1_XXXXXX", p2[] = "/tmp/vp_test_jobs2_XXXXXX";
    char junk[] = "/tmp/vp_test_jobs3_XXXXXX";
    static const char garbage[] = "this is no VProf capture, only some bytes of text";
    if (write_capture(p1, 300, 1) && write_capture(p2, 200, 5) &&
        check_tmpfile(junk, garbage, sizeof garbage)) {
        vp_vprof *m1 = open_path(p1), *m2 = open_path(p2);
        if (m1 && m2) {
            test_batches_all(m1, m2);
            test_batches_all_failure(m1, m2);
            test_measure(m1);
            test_measure(m2);
        }
        vp_vprof_free(m1);
        vp_vprof_free(m2);
        test_open_all(p1, junk);
    }
    test_measure_reference();
    unlink(p1);
    unlink(p2);
    unlink(junk);
    return check_done("test_vprof_jobs");
}
