/* Several captures at once (vp_vprof_batches_all, vp_vprof_open_all): what
 * the threads give equals what each capture gives alone, a failure frees
 * everything, and the summed progress reaches the files' sizes. Captures
 * written with the benchmark's writer (bench/vprof_write.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "formats/vprof.h"
#include "vprof_write.h"

/* A capture of `frames` frames: two groups, a root and three nodes whose
 * times vary with the frame and with `seed`. 0 when it could not be
 * written. */
static int write_capture(char *path, uint32_t frames, unsigned seed)
{
    if (!check_tmpfile(path, NULL, 0))
        return 0;
    vp_vprof_wopts o;
    vp_vprof_wopts_init(&o);
    vp_error err;
    vp_vprof_writer *w = vp_vprof_writer_open(path, &o, &err);
    CHECK(w != NULL);
    if (!w)
        return 0;
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
        if (m->groups[g].has_nodes)
            q[nq++] = (vp_vprof_quantity){.kind = VP_VPROF_Q_GROUP, .index = g, .fold = (int)(nq & 1)};
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
    unlink(p1);
    unlink(p2);
    unlink(junk);
    return check_done("test_vprof_jobs");
}
