/* The .dw and .dm parsers on memory buffers (no Lua): framing, offsets in
 * messages, partial reads, seeks past the index checkpoints, and writer
 * output read back. Built with ASan/UBSan by `make ctest`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "formats/dm.h"
#include "write/dm_write.h"
#include "formats/dw.h"
#include "write/dw_write.h"
#include "formats/trace_common.h"
#include "write/wbuf.h"

static vp_dw *dw_buf(const void *p, size_t n, vp_error *err)
{
    vp_dw *d = NULL;
    vp_dw_open_mem(p, n, NULL, &d, err);
    return d;
}

static vp_dm *dm_buf(const void *p, size_t n, vp_error *err)
{
    vp_dm *d = NULL;
    vp_dm_open_mem(p, n, NULL, &d, err);
    return d;
}

/* A slot with no movement block and no hits: 12 bytes. */
static void bare_slot(vp_wbuf *b, uint32_t id)
{
    vp_wbuf_u8(b, 1);
    vp_wbuf_u8(b, 0);
    vp_wbuf_u32(b, id);
    vp_wbuf_u32(b, 0);
    vp_wbuf_u8(b, 0);
    vp_wbuf_u8(b, 0);
}

static void test_dw_framing(void)
{
    vp_error err;
    vp_wbuf b = {0};
    vp_wbuf_bytes(&b, "\1\2\3\4", 4);
    vp_wbuf_u8(&b, 9);
    for (uint32_t i = 0; i < 150; i++) {
        if (i % 4 == 3)
            vp_wbuf_u8(&b, 0);
        bare_slot(&b, 100 + i);
    }
    vp_wbuf_u32(&b, 7);
    vp_dw *d = dw_buf(b.data, b.len, &err);
    CHECK(d != NULL);
    if (!d)
        return;
    CHECK_EQ(d->trace_count, 150);
    CHECK_EQ(d->slot_count, 150 + 37);
    CHECK_EQ(d->empty_slots, 37);
    CHECK(d->have_footer);
    CHECK_EQ(d->last_trace_counter, 7);
    CHECK_EQ(d->warnings.count, 0);
    CHECK_EQ(d->nckpt, 3);
    vp_dw_iter it;
    vp_dw_trace t;
    for (uint64_t want = 0; want < 150; want += 13) {
        vp_dw_iter_seek_trace(d, &it, want);
        CHECK_EQ(vp_dw_iter_next(d, &it, &t, &err), 1);
        CHECK_EQ(t.trace_id, 100 + want);
        CHECK_EQ(t.index, want);
    }
    vp_dw_iter_seek_trace(d, &it, 150);
    int extra = 0;
    while (vp_dw_iter_next(d, &it, &t, &err) > 0)
        extra += t.used;
    CHECK_EQ(extra, 0);
    vp_dw_free(d);

    /* Without the footer: all slots kept, a warning. */
    d = dw_buf(b.data, b.len - 4, &err);
    CHECK(d != NULL);
    if (d) {
        CHECK_EQ(d->trace_count, 150);
        CHECK(!d->have_footer);
        CHECK(d->truncated);
        CHECK_EQ(d->warnings.count, 1);
        CHECK_STR_CONTAINS(d->warnings.items[0], "without the 4-byte footer");
        vp_dw_free(d);
    }
    /* A bad used byte: the offset of the second slot. */
    b.data[5 + 12] = 3;
    d = dw_buf(b.data, b.len, &err);
    CHECK(d == NULL);
    CHECK_EQ(err.code, VP_EFORMAT);
    CHECK_EQ(err.offset, 17);
    CHECK_STR_CONTAINS(err.msg, "at byte 17: slot 2: expected the used byte 0 (empty) or 1 (trace), found 3");
    vp_wbuf_free(&b);

    /* Too short for a header. */
    d = dw_buf("\1\2", 2, &err);
    CHECK(d == NULL);
    CHECK_EQ(err.code, VP_ETRUNC);
}

static void test_dw_writer_roundtrip(void)
{
    char path[] = "/tmp/vpscript-test-dw-XXXXXX";
    if (!check_tmpfile(path, NULL, 0))
        return;
    vp_error err;
    static const vp_dw_wopts wo = {.header = {4, 0, 0, 0}, .max_size = 3};
    vp_dw_writer *w = vp_dw_writer_open(path, &wo, &err);
    CHECK(w != NULL);
    if (!w)
        return;
    vp_dw_whit hits[2];
    vp_dw_whit_init(&hits[0]);
    vp_dw_whit_init(&hits[1]);
    hits[0].type = 1;
    hits[1].type = 4;
    hits[1].have_entity = 1;
    hits[1].entity_guid = (uint64_t)0x51A2 << 8 | 1;
    float mats[32];
    for (int i = 0; i < 32; i++)
        mats[i] = (float)i;
    hits[1].have_ragdoll = 1;
    hits[1].ragdoll_guid = hits[1].entity_guid;
    hits[1].ragdoll = mats;
    hits[1].ragdoll_n = 2;
    vp_dw_wtrace t;
    vp_dw_wtrace_init(&t);
    t.trace_id = 77;
    t.ammo_type_id = 11;
    t.movement.weapon_template_id = 1001;
    t.movement.damage_per_round = 25;
    t.movement.unknown_44[0] = 0xEF;
    t.client = hits;
    t.nclient = 2;
    t.server = hits + 1;
    t.nserver = 1;
    CHECK_EQ(vp_dw_writer_trace(w, &t, &err), VP_OK);
    CHECK_EQ(vp_dw_writer_empty(w, &err), VP_OK);
    uint64_t bytes = 0;
    CHECK_EQ(vp_dw_writer_close(w, 1, 1, &bytes, &err), VP_OK);
    /* 5 + (10 + 136 + 1 + 41 + (40 + 38 + 1 + 9 + 128) + 1 + 216) + 1 + 4 */
    CHECK_EQ(bytes, 5 + 10 + 136 + 1 + 41 + 216 + 1 + 216 + 1 + 4);

    vp_dw *d = NULL;
    CHECK_EQ(vp_dw_open(path, NULL, &d, &err), VP_OK);
    if (d) {
        vp_dw_iter it;
        vp_dw_trace tr;
        vp_dw_iter_begin(d, &it);
        CHECK_EQ(vp_dw_iter_next(d, &it, &tr, &err), 1);
        CHECK_EQ(tr.trace_id, 77);
        vp_dw_movement m;
        CHECK_EQ(vp_dw_movement_at(d, tr.movement_off, &m, &err), VP_OK);
        CHECK_EQ(m.weapon_template_id, 1001);
        CHECK_EQ(m.damage_per_round, 25);
        CHECK_EQ(m.unknown_44[0], 0xEF);
        vp_dw_hit h;
        CHECK_EQ(vp_dw_hit_at(d, tr.server_off, &h, &err), VP_OK);
        CHECK_EQ(h.type, 4);
        CHECK_EQ(h.entity.guid >> 8, 0x51A2);
        CHECK_EQ(h.ragdoll_count, 2);
        float mx[16];
        CHECK_EQ(vp_dw_matrix_at(d, &h, 1, mx, &err), VP_OK);
        CHECK(mx[0] == 16.0f && mx[15] == 31.0f);
        CHECK_EQ(d->empty_slots, 1);
        CHECK_EQ(d->last_trace_counter, 1);
        vp_dw_free(d);
    }
    unlink(path);
}

/* n records without groups, chunk-framed as the notes say. */
static void dm_records(vp_wbuf *b, unsigned n)
{
    unsigned i = 0;
    for (;;) {
        unsigned c = n - i >= 255 ? 255 : n - i;
        vp_wbuf_u8(b, (uint8_t)c);
        for (unsigned k = 0; k < c; k++, i++) {
            vp_wbuf_u8(b, 1);
            vp_wbuf_u32(b, i + 1);
            vp_wbuf_u32(b, 0);
        }
        if (c != 255)
            break;
    }
}

static void test_dm_arrays(void)
{
    static const unsigned sizes[] = {0, 1, 254, 255, 256, 300, 510};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        vp_wbuf b = {0};
        dm_records(&b, sizes[k]);
        vp_error err;
        vp_dm *d = dm_buf(b.data, b.len, &err);
        CHECK(d != NULL);
        if (d) {
            CHECK_EQ(d->record_count, sizes[k]);
            CHECK(d->terminated);
            CHECK_EQ(d->warnings.count, 0);
            CHECK_EQ(d->array_end, b.len);
            if (sizes[k]) {
                vp_dm_iter it;
                vp_dm_record r;
                vp_dm_iter_seek_record(d, &it, sizes[k] - 1);
                CHECK_EQ(vp_dm_iter_next(d, &it, &r, &err), 1);
                CHECK_EQ(r.time, sizes[k]);
            }
            vp_dm_free(d);
        }
        vp_wbuf_free(&b);
    }
}

static void test_dm_bad(void)
{
    vp_error err;
    /* A group count the bytes left cannot hold: the bitfield's offset. */
    uint8_t buf[] = {1, 1, 0, 0, 0, 0, 0x03, 0, 0, 0, 0, 0};
    vp_dm *d = dm_buf(buf, sizeof buf, &err);
    CHECK(d != NULL);
    if (d) {
        CHECK(d->truncated);
        CHECK_EQ(d->record_count, 0);
        CHECK_STR_CONTAINS(d->warnings.items[0], "at byte 6: slot 1: bitfield 0x00000003 names 2 groups");
        vp_dm_free(d);
    }
    d = dm_buf("", 0, &err);
    CHECK(d == NULL);
    CHECK_EQ(err.code, VP_ETRUNC);
}

/* A .dm writer on a new temporary file named in path (a mkstemp
 * template); NULL when either fails. */
static vp_dm_writer *dm_tmp_writer(char *path)
{
    if (!check_tmpfile(path, NULL, 0))
        return NULL;
    vp_error err;
    vp_dm_writer *w = vp_dm_writer_open(path, &err);
    CHECK(w != NULL);
    return w;
}

static void test_dm_writer(void)
{
    char path[] = "/tmp/vpscript-test-dm-XXXXXX";
    vp_error err;
    vp_dm_writer *w = dm_tmp_writer(path);
    if (!w)
        return;
    vp_dm_wgroup g[2];
    vp_dm_wgroup_init(&g[0]);
    vp_dm_wgroup_init(&g[1]);
    g[0].state = 5;
    g[1].have_ext = 1;
    g[1].have_collision = 1;
    float arrows[6] = {1, 2, 3, 4, 5, 6}, floats[2] = {0.5f, 2};
    g[1].arrows = arrows;
    g[1].narrows = 1;
    g[1].floats = floats;
    g[1].nfloats = 2;
    g[1].ground_time = -40;
    vp_dm_wrecord r = {.have_data = 1, .time = 9, .bitfield = 0x11, .ngroups = 2, .groups = g};
    for (int i = 0; i < 300; i++)
        CHECK_EQ(vp_dm_writer_record(w, &r, &err), VP_OK);
    uint64_t bytes;
    CHECK_EQ(vp_dm_writer_close(w, 1, NULL, 0, &bytes, &err), VP_OK);
    /* record: 9 + 45 + (45 + 23 + 1 + 24 + 1 + 8 + 25) */
    CHECK_EQ(bytes, 2 + 300 * (9 + 45 + 127));
    vp_dm *d = NULL;
    CHECK_EQ(vp_dm_open(path, NULL, &d, &err), VP_OK);
    if (d) {
        CHECK_EQ(d->record_count, 300);
        CHECK_EQ(d->group_count, 600);
        CHECK_EQ(d->collision_groups, 300);
        vp_dm_iter it;
        vp_dm_record rec;
        vp_dm_iter_seek_record(d, &it, 299);
        CHECK_EQ(vp_dm_iter_next(d, &it, &rec, &err), 1);
        vp_dm_group g0, g4;
        CHECK_EQ(vp_dm_group_at(d, rec.groups_off, 0, &g0, &err), VP_OK);
        CHECK_EQ(g0.state, 5);
        CHECK_EQ(vp_dm_group_at(d, rec.groups_off + g0.size, 4, &g4, &err), VP_OK);
        CHECK_EQ(g4.ground_time, -40);
        float f1;
        CHECK_EQ(vp_dm_float_at(d, &g4, 1, &f1, &err), VP_OK);
        CHECK(f1 == 2.0f);
        float o[3], dir[3];
        CHECK_EQ(vp_dm_arrow_at(d, &g4, 0, o, dir, &err), VP_OK);
        CHECK(o[2] == 3.0f && dir[0] == 4.0f);
        vp_dm_free(d);
    }
    unlink(path);
}

/* cap:track's columns (dm_track.c): one bit through the records, sorted
 * by (time, record), the extended fields only where the block is; and a
 * file truncated while open fails the walk with ECHANGED. */
static void test_dm_track_and_truncation(void)
{
    char path[] = "/tmp/vpscript-test-dmtrack-XXXXXX";
    vp_error err;
    vp_dm_writer *w = dm_tmp_writer(path);
    if (!w)
        return;
    /* 40,000 records (2.6 MB, over two windows), times falling then rising,
     * bit 2 plain on even records and extended on odd ones; bit 0 on each. */
    enum { N = 40000 };
    for (int i = 0; i < N; i++) {
        vp_dm_wgroup g[2];
        vp_dm_wgroup_init(&g[0]);
        vp_dm_wgroup_init(&g[1]);
        g[1].position[0] = (float)i;
        if (i % 2) {
            g[1].have_ext = 1;
            g[1].velocity[1] = (float)i / 2;
            g[1].ground_time = (int16_t)(i % 100);
            g[1].jetpack_energy = (uint16_t)i;
        }
        uint32_t t = i < N / 2 ? (uint32_t)(N - i) : (uint32_t)i;
        vp_dm_wrecord r = {.have_data = 1, .time = t, .bitfield = 0x5, .ngroups = 2, .groups = g};
        CHECK_EQ(vp_dm_writer_record(w, &r, &err), VP_OK);
    }
    uint64_t bytes;
    CHECK_EQ(vp_dm_writer_close(w, 1, NULL, 0, &bytes, &err), VP_OK);
    vp_dm *d = NULL;
    CHECK_EQ(vp_dm_open(path, NULL, &d, &err), VP_OK);
    if (!d)
        return;
    vp_dm_track t;
    CHECK_EQ(vp_dm_track_bit(d, 2, &t, &err), VP_OK);
    CHECK_EQ(t.n, N);
    int sorted = 1, fields = 1;
    for (size_t i = 0; i < t.n; i++) {
        if (i && (t.time[i - 1] > t.time[i] ||
                  (t.time[i - 1] == t.time[i] && t.record[i - 1] >= t.record[i])))
            sorted = 0;
        uint64_t rec = t.record[i];
        if (t.pos[3 * i] != (float)rec || t.ext[i] != (rec % 2) ||
            (t.ext[i] && (t.vel[3 * i + 1] != (float)rec / 2 || t.energy[i] != (uint16_t)rec)) ||
            (!t.ext[i] && (t.vel[3 * i + 1] != 0 || t.energy[i] != 0 || t.ground_time[i] != 0)))
            fields = 0;
    }
    CHECK(sorted);
    CHECK(fields);
    /* Times N/2 + 1 .. N appear twice: record N/2 - 1 (time N/2 + 1) comes
     * before record N/2 + 1 (time N/2 + 1)... and the earliest is time N/2. */
    CHECK_EQ(t.time[0], N / 2);
    vp_dm_track_free(&t);
    CHECK_EQ(vp_dm_track_bit(d, 7, &t, &err), VP_OK);
    CHECK_EQ(t.n, 0);
    vp_dm_track_free(&t);

    CHECK_EQ(truncate(path, 8192), 0);
    vp_dm_iter it;
    vp_dm_iter_begin(d, &it);
    vp_dm_record rec;
    int r;
    uint64_t walked = 0;
    while ((r = vp_dm_iter_next(d, &it, &rec, &err)) > 0)
        walked++;
    CHECK_EQ(r, -1);
    CHECK(walked < N);
    CHECK_EQ(err.code, VP_ECHANGED);
    CHECK_STR_CONTAINS(err.msg, "the file was truncated while open: it had");
    CHECK_EQ(vp_dm_track_bit(d, 2, &t, &err), VP_ECHANGED);
    vp_dm_track_free(&t);
    vp_dm_free(d);
    unlink(path);
}

/* The streamed writers' w:data() (the file as closing it would leave it,
 * read back) and w:truncate() (made at close). */
static void test_stream_data(void)
{
    char path[] = "/tmp/vpscript-test-data-XXXXXX";
    if (!check_tmpfile(path, NULL, 0))
        return;
    vp_error err;
    size_t len = 0;

    vp_dm_writer *m = vp_dm_writer_open(path, &err);
    CHECK(m != NULL);
    if (m) {
        vp_dm_wrecord r = {.have_data = 1, .time = 7};
        CHECK_EQ(vp_dm_writer_record(m, &r, &err), VP_OK);
        const uint8_t *p = vp_dm_writer_data(m, &len, &err);
        /* count 1, have_data 1, time 7, bitfield 0 */
        static const uint8_t want[] = {1, 1, 7, 0, 0, 0, 0, 0, 0, 0};
        CHECK_EQ(len, sizeof want);
        CHECK(p && memcmp(p, want, sizeof want) == 0);
        CHECK_EQ(vp_dm_writer_empty(m, &err), VP_OK);
        p = vp_dm_writer_data(m, &len, &err);
        CHECK_EQ(len, 11);
        CHECK(p && p[0] == 2 && p[10] == 0);
        vp_dm_writer_truncate(m, 4);
        p = vp_dm_writer_data(m, &len, &err);
        CHECK_EQ(len, 4);
        uint64_t bytes = 0;
        CHECK_EQ(vp_dm_writer_close(m, 1, NULL, 0, &bytes, &err), VP_OK);
        CHECK_EQ(bytes, 4);
        vp_dm *d = NULL;
        CHECK_EQ(vp_dm_open(path, NULL, &d, &err), VP_OK);
        if (d) {
            CHECK(d->truncated);
            CHECK_EQ(d->record_count, 0);
            vp_dm_free(d);
        }
    }

    static const vp_dw_wopts wo = {.header = {1, 2, 3, 4}, .max_size = 2};
    vp_dw_writer *w = vp_dw_writer_open(path, &wo, &err);
    CHECK(w != NULL);
    if (w) {
        CHECK_EQ(vp_dw_writer_empty(w, &err), VP_OK);
        const uint8_t *p = vp_dw_writer_data(w, &len, &err);
        static const uint8_t want[] = {1, 2, 3, 4, 2, 0, 0, 0, 0, 0};
        CHECK_EQ(len, sizeof want);
        CHECK(p && memcmp(p, want, sizeof want) == 0);
        vp_dw_writer_truncate(w, 6);
        uint64_t bytes = 0;
        CHECK_EQ(vp_dw_writer_close(w, 1, 0, &bytes, &err), VP_OK);
        CHECK_EQ(bytes, 6);
        vp_dw *d = NULL;
        CHECK_EQ(vp_dw_open(path, NULL, &d, &err), VP_OK);
        if (d) {
            CHECK(d->truncated && !d->have_footer);
            CHECK_EQ(d->empty_slots, 1);
            vp_dw_free(d);
        }
    }
    unlink(path);
}

int main(void)
{
    test_dm_track_and_truncation();
    test_dw_framing();
    test_dw_writer_roundtrip();
    test_dm_arrays();
    test_dm_bad();
    test_dm_writer();
    test_stream_data();
    return check_done("test_dw");
}
