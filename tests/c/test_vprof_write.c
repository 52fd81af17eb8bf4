/* The C VProf writer of bench/gen_vprof.c (bench/vprof_write.h): slots,
 * ids, error codes, and the bytes of a frame, checked against the spec by
 * hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "vprof_write.h"

static size_t slurp(const char *path, unsigned char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

static void test_frame_bytes(const char *path)
{
    vp_vprof_wopts o;
    vp_vprof_wopts_init(&o);
    o.escape_width = 8;
    o.root_id = 5;
    vp_error err;
    vp_vprof_writer *w = vp_vprof_writer_open(path, &o, &err);
    CHECK(w != NULL);
    if (!w)
        return;
    int32_t gid = -1;
    CHECK_EQ(vp_vprof_writer_group(w, "G", 6, &gid, &err), VP_OK);
    CHECK_EQ(gid, 0);
    size_t a = 0, b = 0;
    CHECK_EQ(vp_vprof_writer_node(w, 5, "A", gid, 9, &a, &err), VP_OK);
    CHECK_EQ(vp_vprof_writer_node(w, 5, "B", gid, 3, &b, &err), VP_OK);
    CHECK_EQ(a, 1);
    CHECK_EQ(b, 2);
    CHECK_EQ(vp_vprof_writer_slot(w, 9), 1);
    CHECK_EQ(vp_vprof_writer_slot(w, 5), 0);
    CHECK_EQ(vp_vprof_writer_slot(w, 77), -1);

    CHECK_EQ(vp_vprof_writer_node(w, 42, "X", 0, 11, NULL, &err), VP_EFORMAT);
    CHECK(strstr(err.msg, "unknown parent node id 42") != NULL);
    CHECK_EQ(vp_vprof_writer_node(w, 5, "X", 0, 9, NULL, &err), VP_EFORMAT);
    CHECK(strstr(err.msg, "node id 9 is already used") != NULL);

    vp_vprof_wtiming t[3] = {{0, 1}, {4ull * 0x123456789ull, 300}, {8, 254}};
    CHECK_EQ(vp_vprof_writer_frame(w, 7, t, &err), VP_OK);
    uint64_t size = 0;
    CHECK_EQ(vp_vprof_writer_close(w, &size, &err), VP_OK);

    static const unsigned char want[] = {
        1, 0, 0, 0, 5, 0, 0, 0,            /* header: version 1, root 5 */
        0, 7, 0, 0, 0,                     /* StartFrame, tick 7 */
        2, 'G', 0, 6, 0, 0, 0,             /* AddBudgetGroup */
        1, 5, 0, 0, 0, 'A', 0, 0, 0, 0, 0, 9, 0, 0, 0, /* AddNode A */
        1, 5, 0, 0, 0, 'B', 0, 0, 0, 0, 0, 3, 0, 0, 0, /* AddNode B */
        3,                                 /* Timings */
        1, 0, 0,                           /* root */
        254, 2, 0,                         /* B (prepended, so first) */
        255, 44, 1, 255, 255, 0x89, 0x67, 0x45, 0x23, 1, 0, 0, 0, /* A: 8-byte escape */
        4,                                 /* EndOfFrame */
    };
    unsigned char got[256];
    size_t n = slurp(path, got, sizeof got);
    CHECK_EQ(n, sizeof want);
    CHECK_EQ(size, sizeof want);
    CHECK(n == sizeof want && memcmp(got, want, n) == 0);
}

static void test_limits(const char *path)
{
    vp_error err;
    vp_vprof_wopts o;
    vp_vprof_wopts_init(&o);
    o.escape_width = 5;
    CHECK(vp_vprof_writer_open(path, &o, &err) == NULL);
    CHECK_EQ(err.code, VP_EFORMAT);
    CHECK(vp_vprof_writer_open("/nonexistent-dir/x.vprof", NULL, &err) == NULL);
    CHECK_EQ(err.code, VP_ENOENT);

    vp_vprof_writer *w = vp_vprof_writer_open(path, NULL, &err);
    CHECK(w != NULL);
    if (!w)
        return;
    o.escape_width = 4;
    o.group_base = 31;
    CHECK_EQ(vp_vprof_writer_node(w, 0, "A", 0, 1, NULL, &err), VP_OK);
    vp_vprof_wtiming t[2] = {{0, 0}, {4ull << 32, 1}};
    /* Width 4 cannot hold 2^32 units: nothing is written. */
    CHECK_EQ(vp_vprof_writer_frame(w, 1, t, &err), VP_ELIMIT);
    /* NULL times: zeros for every node. */
    CHECK_EQ(vp_vprof_writer_frame(w, 1, NULL, &err), VP_OK);
    uint64_t size = 0;
    CHECK_EQ(vp_vprof_writer_close(w, &size, &err), VP_OK);
    CHECK_EQ(size, 8 + 5 + 1 + 4 + 2 + 4 + 4 + 1 + 3 + 3 + 1);
    unsigned char got[64];
    CHECK_EQ(slurp(path, got, sizeof got), size);

    /* group_base 31: positional ids from 31. */
    w = vp_vprof_writer_open(path, &o, &err);
    CHECK(w != NULL);
    if (!w)
        return;
    int32_t g1 = 0, g2 = 0;
    CHECK_EQ(vp_vprof_writer_group(w, "X", 4, &g1, &err), VP_OK);
    CHECK_EQ(vp_vprof_writer_group(w, "Y", 4, &g2, &err), VP_OK);
    CHECK_EQ(g1, 31);
    CHECK_EQ(g2, 32);
    CHECK_EQ(vp_vprof_writer_close(w, NULL, &err), VP_OK);
}

/* Many nodes (the map grows) and many frames (the buffer flushes). */
static void test_volume(const char *path)
{
    vp_error err;
    vp_vprof_writer *w = vp_vprof_writer_open(path, NULL, &err);
    CHECK(w != NULL);
    if (!w)
        return;
    enum { NODES = 3000, FRAMES = 200 };
    int ok = 1;
    for (int i = 1; i < NODES && ok; i++)
        ok = vp_vprof_writer_node(w, i / 2, "n", 0, i, NULL, &err) == VP_OK;
    CHECK(ok);
    for (int i = 0; i < NODES; i++)
        ok &= vp_vprof_writer_slot(w, i) == i;
    CHECK(ok);
    vp_vprof_wtiming *t = calloc(NODES, sizeof *t);
    for (int i = 0; i < NODES; i++)
        t[i] = (vp_vprof_wtiming){(uint64_t)i * 4, 1};
    for (int f = 0; f < FRAMES && ok; f++)
        ok = vp_vprof_writer_frame(w, f, t, &err) == VP_OK;
    CHECK(ok);
    free(t);
    uint64_t size = 0;
    CHECK_EQ(vp_vprof_writer_close(w, &size, &err), VP_OK);
    /* header 8; per frame StartFrame and tick 5, Timings 1, EndOfFrame 1
     * and 3 bytes a node (calls 1, time 2: below the escapes); the first
     * frame also holds the 2,999 AddNode records of 15 bytes (name "n") */
    CHECK_EQ(size, 8 + 2999 * 15 + FRAMES * (7 + (uint64_t)NODES * 3));
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (f) {
        fseek(f, 0, SEEK_END);
        CHECK_EQ(ftell(f), (long)size);
        fclose(f);
    }
    CHECK(size > (1u << 20)); /* more than one output buffer */
}

int main(void)
{
    char path[] = "/tmp/vp-test-vprof-write.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return check_done("vprof_write");
    close(fd);
    test_frame_bytes(path);
    test_limits(path);
    test_volume(path);
    unlink(path);
    return check_done("vprof_write");
}
