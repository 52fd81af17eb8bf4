/* The .dw and .dm parsers on memory buffers and files (no Lua): framing,
 * offsets in messages, partial reads, seeks past the index checkpoints, and
 * every block of a trace and a movement group, read from bytes built here
 * from the spec (bytes.h). Built with ASan/UBSan by `make ctest`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "bytes.h"
#include "formats/dm.h"
#include "formats/dw.h"
#include "formats/trace_common.h"

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
static void bare_slot(tb *b, uint32_t id)
{
    tb_u8(b, 1);
    tb_u8(b, 0);
    tb_u32(b, id);
    tb_u32(b, 0);
    tb_u8(b, 0);
    tb_u8(b, 0);
}

static void test_dw_framing(void)
{
    vp_error err;
    tb b = {0};
    tb_put(&b, "\1\2\3\4", 4);
    tb_u8(&b, 9);
    for (uint32_t i = 0; i < 150; i++) {
        if (i % 4 == 3)
            tb_u8(&b, 0);
        bare_slot(&b, 100 + i);
    }
    tb_u32(&b, 7);
    vp_dw *d = dw_buf(b.p, b.len, &err);
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
    d = dw_buf(b.p, b.len - 4, &err);
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
    b.p[5 + 12] = 3;
    d = dw_buf(b.p, b.len, &err);
    CHECK(d == NULL);
    CHECK_EQ(err.code, VP_EFORMAT);
    CHECK_EQ(err.offset, 17);
    CHECK_STR_CONTAINS(err.msg, "at byte 17: slot 2: expected the used byte 0 (empty) or 1 (trace), found 3");
    tb_free(&b);

    /* Too short for a header. */
    d = dw_buf("\1\2", 2, &err);
    CHECK(d == NULL);
    CHECK_EQ(err.code, VP_ETRUNC);
}

/* A hit without entity and ragdoll blocks, or (entity) with both: the
 * entity's guid, and a ragdoll of `transforms` 4x4 matrices holding
 * 0, 1, 2, ... */
static void put_hit(tb *b, uint8_t type, int entity, uint64_t guid, unsigned transforms)
{
    tb_u8(b, type);
    tb_u32(b, 77); /* trace_id */
    tb_u32(b, 0);  /* time */
    tb_u16(b, 0);  /* unknown_09 */
    tb_zero(b, 24 + 4); /* position, direction, physics_material */
    tb_u8(b, entity);
    if (entity) {
        tb_u32(b, (uint32_t)guid);
        tb_u32(b, (uint32_t)(guid >> 32));
        tb_zero(b, 12 + 16 + 2); /* position, rotation, unknown_24, unknown_25 */
    }
    tb_u8(b, entity); /* have_ragdoll */
    if (entity) {
        tb_u32(b, (uint32_t)guid);
        tb_u32(b, (uint32_t)(guid >> 32));
        tb_u8(b, transforms);
        for (unsigned i = 0; i < transforms * 16; i++)
            tb_f32(b, (float)i);
    }
}

/* A trace with every block (movement, entity, ragdoll), an empty slot and
 * the footer, as the notes lay them out, read back field by field. */
static void test_dw_blocks(void)
{
    char path[] = "/tmp/vpscript-test-dw-XXXXXX";
    uint64_t guid = (uint64_t)0x51A2 << 8 | 1;
    tb b = {0};
    tb_put(&b, "\4\0\0\0", 4);
    tb_u8(&b, 3);              /* max_size */
    tb_u8(&b, 1);              /* used */
    tb_u8(&b, 0);
    tb_u32(&b, 77);            /* trace_id */
    tb_u32(&b, 11);            /* ammo_type_id: the movement block follows */
    size_t mv = b.len;
    tb_zero(&b, 0x88);
    b.p[mv + 0x44] = 0xEF;     /* unknown_44[0] */
    b.p[mv + 0x58] = 25;       /* damage_per_round */
    b.p[mv + 0x74] = 1001 & 0xFF; /* weapon_template_id */
    b.p[mv + 0x75] = 1001 >> 8;
    tb_u8(&b, 2);              /* client hits */
    put_hit(&b, 1, 0, 0, 0);
    put_hit(&b, 4, 1, guid, 2);
    tb_u8(&b, 1);              /* server hits */
    put_hit(&b, 4, 1, guid, 2);
    tb_u8(&b, 0);              /* an empty slot */
    tb_u32(&b, 1);             /* last_trace_counter */
    int written = check_tmpfile(path, b.p, b.len);
    tb_free(&b);
    if (!written)
        return;
    vp_error err;
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

/* Record i without groups: time i + 1. */
static void bare_record(tb *b, unsigned i, void *ud)
{
    (void)ud;
    tb_u8(b, 1);
    tb_u32(b, i + 1);
    tb_u32(b, 0);
}

static void test_dm_arrays(void)
{
    static const unsigned sizes[] = {0, 1, 254, 255, 256, 300, 510};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        tb b = {0};
        tb_chunked(&b, sizes[k], bare_record, NULL);
        vp_error err;
        vp_dm *d = dm_buf(b.p, b.len, &err);
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
        tb_free(&b);
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

/* One movement group as format-notes lays it out: the base block, and
 * with `ext` the extended block, holding the collision block with
 * `collision` (one arrow 1..6 and the floats 0.5 and 2). */
typedef struct dm_group {
    float pos0, vel1;
    uint16_t state, energy;
    int16_t ground_time;
    int ext, collision;
} dm_group;

static void put_group(tb *b, const dm_group *g)
{
    tb_u16(b, 0); /* short_time */
    tb_f32(b, g->pos0);
    tb_zero(b, 8 + 16 + 12); /* position y z, orientation, direction */
    tb_u16(b, g->state);
    tb_u8(b, g->ext);
    if (!g->ext)
        return;
    tb_u16(b, 0); /* unknown_1 */
    tb_zero(b, 4);
    tb_f32(b, g->vel1);
    tb_zero(b, 4);
    tb_u16(b, 0); /* unknown_2, unknown_3 */
    tb_u16(b, g->energy);
    tb_u16(b, (uint16_t)g->ground_time);
    tb_u16(b, 0); /* time_since_last_jump */
    tb_u8(b, g->collision);
    if (g->collision) {
        tb_u8(b, 1);
        for (int i = 1; i <= 6; i++)
            tb_f32(b, (float)i);
        tb_u8(b, 2);
        tb_f32(b, 0.5f);
        tb_f32(b, 2);
    }
    tb_zero(b, 12 + 12 + 1); /* unknown_4, unknown_5, unknown_6 */
}

static void put_record(tb *b, uint32_t time, uint32_t bitfield, const dm_group *g, size_t n)
{
    tb_u8(b, 1);
    tb_u32(b, time);
    tb_u32(b, bitfield);
    for (size_t i = 0; i < n; i++)
        put_group(b, &g[i]);
}

/* Bits 0 and 4: a plain group (state 5), and one with the extended and
 * collision blocks (ground_time -40). */
static void collision_record(tb *b, unsigned i, void *ud)
{
    (void)i;
    (void)ud;
    dm_group g[2] = {{.state = 5}, {.ext = 1, .collision = 1, .ground_time = -40}};
    put_record(b, 9, 0x11, g, 2);
}

static void test_dm_groups(void)
{
    char path[] = "/tmp/vpscript-test-dm-XXXXXX";
    tb b = {0};
    tb_chunked(&b, 300, collision_record, NULL);
    int written = check_tmpfile(path, b.p, b.len);
    tb_free(&b);
    if (!written)
        return;
    vp_error err;
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
 * file truncated while open fails the walk with ECHANGED. 40,000 records
 * (2.6 MB, over two windows), times falling then rising, bit 2 plain on
 * even records and extended on odd ones; bit 0 on each. */
enum { TRACK_N = 40000 };

static void track_record(tb *b, unsigned i, void *ud)
{
    (void)ud;
    dm_group g[2] = {{0}, {.pos0 = (float)i}};
    if (i % 2) {
        g[1].ext = 1;
        g[1].vel1 = (float)i / 2;
        g[1].ground_time = (int16_t)(i % 100);
        g[1].energy = (uint16_t)i;
    }
    put_record(b, i < TRACK_N / 2 ? TRACK_N - i : i, 0x5, g, 2);
}

static void test_dm_track_and_truncation(void)
{
    char path[] = "/tmp/vpscript-test-dmtrack-XXXXXX";
    enum { N = TRACK_N };
    tb b = {0};
    tb_chunked(&b, N, track_record, NULL);
    int written = check_tmpfile(path, b.p, b.len);
    tb_free(&b);
    if (!written)
        return;
    vp_error err;
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

int main(void)
{
    test_dm_track_and_truncation();
    test_dw_framing();
    test_dw_blocks();
    test_dm_arrays();
    test_dm_bad();
    test_dm_groups();
    return check_done("test_dw");
}
