#include "formats/dm.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cursor.h"

/* Where a read happened, for messages (1-based as Lua sees them). */
typedef struct dm_ctx {
    uint64_t slot;
    int in_group;
    unsigned group, bit;
} dm_ctx;

/* The one message for a cut field (core/cursor.h), with where it is. */
static vp_errcode dm_short(const dm_ctx *x, const vp_cursor *c, const char *field, uint64_t need,
                           vp_error *err)
{
    char where[80];
    if (x->in_group)
        snprintf(where, sizeof where, "slot %" PRIu64 ", group %u (bit %u)", x->slot + 1,
                 x->group + 1, x->bit);
    else
        snprintf(where, sizeof where, "slot %" PRIu64, x->slot + 1);
    return vp_cursor_short(c, where, field, need, NULL, err);
}

static unsigned popcount20(uint32_t bits)
{
    unsigned n = 0;
    for (unsigned b = 0; b < VP_DM_GROUP_BITS; b++)
        n += (bits >> b) & 1;
    return n;
}

typedef struct dm_stats {
    uint64_t ext_groups, collision_groups;
    uint64_t by_bit[VP_DM_GROUP_BITS];
    uint64_t odd_ext, odd_ext_off;
} dm_stats;

static vp_errcode group_parse(vp_cursor *c, vp_dm_group *g, const dm_ctx *x, dm_stats *st,
                              vp_error *err)
{
    memset(g, 0, sizeof *g);
    g->off = vp_cursor_off(c);
    g->bit = x->bit;
    if (vp_cursor_left(c) < VP_DM_GROUP_MIN)
        return dm_short(x, c, "a group", VP_DM_GROUP_MIN, err);
    vp_rd_u16(c, &g->short_time);
    vp_rd_vec3(c, g->position);
    vp_rd_vec4(c, g->orientation);
    vp_rd_vec3(c, g->direction);
    vp_rd_u16(c, &g->state);
    vp_rd_u8(c, &g->have_ext);
    if (g->have_ext == 1) {
        if (vp_cursor_left(c) < VP_DM_EXT_HEAD)
            return dm_short(x, c, "the extended block", VP_DM_EXT_HEAD, err);
        vp_rd_u16(c, &g->unknown_1);
        vp_rd_vec3(c, g->velocity);
        vp_rd_u8(c, &g->unknown_2);
        vp_rd_u8(c, &g->unknown_3);
        vp_rd_u16(c, &g->jetpack_energy);
        vp_rd_i16(c, &g->ground_time);
        vp_rd_i16(c, &g->time_since_last_jump);
        vp_rd_u8(c, &g->have_collision);
        if (g->have_collision) {
            if (!vp_rd_u8(c, &g->arrow_count))
                return dm_short(x, c, "the collision arrow_count", 1, err);
            uint64_t need = (uint64_t)g->arrow_count * 24;
            if (need > vp_cursor_left(c))
                return dm_short(x, c, "the collision arrows (arrow_count x 24)", need, err);
            g->arrows_off = vp_cursor_off(c);
            vp_skip(c, (size_t)need);
            if (!vp_rd_u8(c, &g->float_count))
                return dm_short(x, c, "the collision float_count", 1, err);
            need = (uint64_t)g->float_count * 4;
            if (need > vp_cursor_left(c))
                return dm_short(x, c, "the collision floats (float_count x 4)", need, err);
            g->floats_off = vp_cursor_off(c);
            vp_skip(c, (size_t)need);
        }
        if (vp_cursor_left(c) < VP_DM_EXT_TAIL)
            return dm_short(x, c, "the unknown Vec3f, Vec3f, u8 closing the extended block",
                              VP_DM_EXT_TAIL, err);
        vp_rd_vec3(c, g->unknown_4);
        vp_rd_vec3(c, g->unknown_5);
        vp_rd_u8(c, &g->unknown_6);
        if (st) {
            st->ext_groups++;
            if (g->have_collision)
                st->collision_groups++;
        }
    } else if (g->have_ext != 0 && st) {
        if (!st->odd_ext++)
            st->odd_ext_off = g->off + 44;
    }
    if (st)
        st->by_bit[g->bit]++;
    g->size = vp_cursor_off(c) - g->off;
    return VP_OK;
}

/* The element at the cursor. ETRUNC when it runs past the end. */
static vp_errcode record_parse(vp_cursor *c, vp_dm_record *r, const dm_ctx *x0, dm_stats *st,
                               vp_error *err)
{
    memset(r, 0, sizeof *r);
    dm_ctx x = *x0;
    r->off = vp_cursor_off(c);
    r->slot = x.slot;
    if (!vp_rd_u8(c, &r->have_data))
        return dm_short(&x, c, "the have_data byte", 1, err);
    if (r->have_data == 1) {
        if (vp_cursor_left(c) < 8)
            return dm_short(&x, c, "time and bitfield", 8, err);
        vp_rd_u32(c, &r->time);
        uint64_t bits_off = vp_cursor_off(c);
        vp_rd_u32(c, &r->bitfield);
        r->group_count = popcount20(r->bitfield);
        uint64_t need = (uint64_t)r->group_count * VP_DM_GROUP_MIN;
        if (need > vp_cursor_left(c))
            return vp_fail(err, VP_ETRUNC, bits_off,
                           "slot %" PRIu64 ": bitfield 0x%08" PRIx32
                           " names %u groups, which need at least %" PRIu64
                           " bytes, only %zu left before the end of the file",
                           x.slot + 1, r->bitfield, r->group_count, need, vp_cursor_left(c));
        r->groups_off = vp_cursor_off(c);
        x.in_group = 1;
        x.group = 0;
        for (unsigned b = 0; b < VP_DM_GROUP_BITS; b++) {
            if (!((r->bitfield >> b) & 1))
                continue;
            x.bit = b;
            vp_dm_group g;
            vp_errcode rc = group_parse(c, &g, &x, st, err);
            if (rc != VP_OK)
                return rc;
            x.group++;
        }
    }
    r->size = vp_cursor_off(c) - r->off;
    return VP_OK;
}

/* Warn, and keep the warning as the error a strict open fails with (the
 * first such warning wins). */
#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void dm_refusable(vp_dm *d, vp_error *refuse, vp_errcode code, uint64_t off,
                         const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    vp_warn(&d->warnings, "%s", msg);
    if (refuse->code == VP_OK) {
        vp_fail(refuse, code, UINT64_MAX, "%s", msg); /* msg names its offset */
        refuse->offset = off;
    }
}

static void stats_merge(dm_stats *to, const dm_stats *from)
{
    to->ext_groups += from->ext_groups;
    to->collision_groups += from->collision_groups;
    for (int b = 0; b < VP_DM_GROUP_BITS; b++)
        to->by_bit[b] += from->by_bit[b];
    if (from->odd_ext && !to->odd_ext)
        to->odd_ext_off = from->odd_ext_off;
    to->odd_ext += from->odd_ext;
}

/* vp_src_parse callbacks: a record (with its statistics when st is set)
 * and a group. Each run starts afresh: a record read again over a larger
 * window counts once. */
typedef struct rec_ctx {
    dm_ctx x;
    vp_dm_record rec;
    dm_stats one, *st;
} rec_ctx;

static vp_errcode rec_parse(vp_cursor *c, void *ctx, vp_error *err)
{
    rec_ctx *r = ctx;
    if (r->st)
        memset(r->st, 0, sizeof *r->st);
    return record_parse(c, &r->rec, &r->x, r->st, err);
}

typedef struct group_ctx {
    dm_ctx x;
    vp_dm_group g;
} group_ctx;

static vp_errcode grp_parse(vp_cursor *c, void *ctx, vp_error *err)
{
    group_ctx *g = ctx;
    return group_parse(c, &g->g, &g->x, NULL, err);
}

static vp_errcode dm_parse(void *model, int strict, vp_error *err)
{
    vp_dm *d = model;
    vp_error refuse = {.code = VP_OK};
    vp_src *s = &d->src;
    const uint64_t size = s->size;
    uint64_t pos = 0;
    vp_dm_iter it;
    vp_dm_iter_begin(d, &it);
    size_t ckcap = 0;
    dm_stats st;
    memset(&st, 0, sizeof st);
    uint64_t odd_data = 0, odd_data_off = 0, high_bits = 0, high_off = 0;
    uint32_t high_union = 0;
    uint64_t last_count_off = UINT64_MAX;
    int overclaim = 0;
    char overclaim_msg[160] = "";

    for (;;) {
        vp_dm_iter before = it;
        before.off = pos;
        vp_error e;
        int r = vp_chunked_next_src(&it.ch, s, &pos, size, 0, "dm records", &e);
        if (r == 0) {
            d->terminated = 1;
            d->array_end = pos;
            break;
        }
        if (r < 0) {
            if (vp_src_failed(e.code)) {
                *err = e;
                return e.code;
            }
            if (d->slot_count == 0 && size == 0)
                return vp_fail(err, VP_ETRUNC, 0, "expected the first count byte of the record "
                                                  "array, the file is empty");
            /* A full block of 255 and then the end of the file. */
            d->truncated = 1;
            dm_refusable(d, &refuse, VP_ETRUNC, e.offset,
                         "%s: the file ends without the record array's final count byte; kept "
                         "%" PRIu64 " complete record%s",
                         e.msg, d->slot_count, d->slot_count == 1 ? "" : "s");
            break;
        }
        if (it.ch.count_off != last_count_off) {
            last_count_off = it.ch.count_off;
            uint64_t left = size - pos;
            if (it.ch.last_count > left) {
                overclaim = 1;
                snprintf(overclaim_msg, sizeof overclaim_msg,
                         " (the block count %u at byte %" PRIu64
                         " claims more records than the %" PRIu64 " bytes after it can hold)",
                         it.ch.last_count, it.ch.count_off, left);
            }
        }
        rec_ctx rc_ = {.x = {.slot = d->slot_count}};
        rc_.st = &rc_.one;
        vp_errcode rc = vp_src_parse(s, pos, size, rec_parse, &rc_, &pos, &e);
        if (vp_src_failed(rc)) {
            *err = e;
            return rc;
        }
        if (rc != VP_OK) {
            d->truncated = 1;
            dm_refusable(d, &refuse, VP_ETRUNC, e.offset,
                         "%s; the file is truncated%s: kept %" PRIu64 " complete record%s", e.msg,
                         overclaim ? overclaim_msg : "", d->slot_count,
                         d->slot_count == 1 ? "" : "s");
            break;
        }
        const vp_dm_record *rec = &rc_.rec;
        stats_merge(&st, &rc_.one);
        if (rec->have_data == 1) {
            if (d->record_count % VP_DM_CKPT_EVERY == 0) {
                vp_dm_iter *ck = vp_trace_grow(d->ckpt, d->nckpt, &ckcap, sizeof *ck);
                if (!ck)
                    return vp_fail(err, VP_ENOMEM, UINT64_MAX,
                                   "out of memory indexing the records");
                d->ckpt = ck;
                d->ckpt[d->nckpt++] = before;
            }
            if (d->record_count == 0 || rec->time < d->time_min)
                d->time_min = rec->time;
            if (d->record_count == 0 || rec->time > d->time_max)
                d->time_max = rec->time;
            d->record_count++;
            d->group_count += rec->group_count;
            d->bits_seen |= rec->bitfield;
            if (rec->bitfield >> VP_DM_GROUP_BITS) {
                if (!high_bits++)
                    high_off = rec->off + 5;
                high_union |= rec->bitfield;
            }
        } else {
            d->empty_records++;
            if (rec->have_data != 0 && !odd_data++)
                odd_data_off = rec->off;
        }
        d->slot_count++;
        it.off = pos;
        it.slot = d->slot_count;
        it.record = d->record_count;
        d->data_end = pos;
    }
    if (d->slot_count == 0)
        d->data_end = d->terminated ? d->array_end : 0;

    if (d->terminated && size > pos) {
        d->trailing_bytes = size - pos;
        dm_refusable(d, &refuse, VP_EFORMAT, d->array_end,
                     "at byte %" PRIu64 ": %" PRIu64
                     " bytes after the record array's final count byte (garbage after the last "
                     "record?) were not read",
                     d->array_end, d->trailing_bytes);
    }
    /* A strict open refuses a cut file, and bytes after the array. */
    if (strict && refuse.code != VP_OK) {
        *err = refuse;
        return refuse.code;
    }
    d->ext_groups = st.ext_groups;
    d->collision_groups = st.collision_groups;
    memcpy(d->groups_by_bit, st.by_bit, sizeof st.by_bit);
    if (odd_data)
        vp_warn(&d->warnings,
                "%" PRIu64 " records have a have_data byte other than 0 or 1 (the first at byte "
                "%" PRIu64 "): read as empty, as only 1 is followed by data",
                odd_data, odd_data_off);
    if (high_bits)
        vp_warn(&d->warnings,
                "%" PRIu64 " records set bitfield bits 20..31 (mask 0x%08" PRIx32
                ", the first at byte %" PRIu64 "): only bits 0..19 name groups, the rest were "
                "ignored",
                high_bits, high_union & ~(uint32_t)((1u << VP_DM_GROUP_BITS) - 1), high_off);
    if (st.odd_ext)
        vp_warn(&d->warnings,
                "%" PRIu64 " groups have a have_ext byte other than 0 or 1 (the first at byte "
                "%" PRIu64 "): read without the extended block, which only 1 announces",
                st.odd_ext, st.odd_ext_off);
    return VP_OK;
}

/* The checkpoints: what the model owns besides its source and warnings. */
static void dm_free_arrays(vp_dm *d)
{
    free(d->ckpt);
}

/* vp_dm_open, vp_dm_open_mem, vp_dm_free (trace_common.h). */
VP_TRACE_READER(dm, dm_parse, dm_free_arrays)

void vp_dm_iter_begin(const vp_dm *d, vp_dm_iter *it)
{
    (void)d;
    memset(it, 0, sizeof *it);
    vp_chunked_begin(&it->ch);
}

int vp_dm_iter_next(vp_dm *d, vp_dm_iter *it, vp_dm_record *r, vp_error *err)
{
    if (it->slot >= d->slot_count || it->off > d->data_end)
        return 0;
    uint64_t pos = it->off;
    int n = vp_chunked_next_src(&it->ch, &d->src, &pos, d->data_end, 0, "dm records", err);
    if (n <= 0) {
        if (n == 0)
            vp_fail(err, VP_EFORMAT, pos, "the record array ended early");
        return -1;
    }
    rec_ctx x = {.x = {.slot = it->slot}};
    if (vp_src_parse(&d->src, pos, d->data_end, rec_parse, &x, &pos, err) != VP_OK)
        return -1;
    *r = x.rec;
    r->index = it->record;
    it->off = pos;
    it->slot++;
    if (r->have_data == 1)
        it->record++;
    return 1;
}

void vp_dm_iter_seek_record(vp_dm *d, vp_dm_iter *it, uint64_t index)
{
    vp_dm_iter_begin(d, it);
    if (index >= d->record_count) {
        it->slot = d->slot_count;
        return;
    }
    size_t k = (size_t)(index / VP_DM_CKPT_EVERY);
    if (k < d->nckpt)
        *it = d->ckpt[k];
    for (;;) {
        vp_dm_iter save = *it;
        vp_dm_record r;
        if (vp_dm_iter_next(d, it, &r, NULL) <= 0)
            return;
        if (r.have_data == 1 && r.index == index) {
            *it = save;
            return;
        }
    }
}

vp_errcode vp_dm_group_at(vp_dm *d, uint64_t off, unsigned bit, vp_dm_group *g, vp_error *err)
{
    if (off >= d->data_end)
        return vp_fail(err, VP_EFORMAT, off, "no group starts here");
    group_ctx x = {.x = {.in_group = 1, .bit = bit}};
    vp_errcode rc = vp_src_parse(&d->src, off, d->data_end, grp_parse, &x, NULL, err);
    if (rc == VP_OK)
        *g = x.g;
    return rc;
}

/* Element i of one of a group's collision arrays, `count` elements of
 * `nf` floats from `first` (count 0 without collision data), into v (zeros
 * when the read fails); `what` names the element in messages. */
static vp_errcode collision_elem(vp_dm *d, uint64_t first, unsigned count, size_t nf,
                                 const char *what, unsigned i, float *v, vp_error *err)
{
    memset(v, 0, nf * sizeof *v);
    if (i >= count)
        return vp_fail(err, VP_EFORMAT, UINT64_MAX, "no %s %u in this group", what, i + 1);
    uint64_t off = first + (uint64_t)i * nf * 4;
    if (off + nf * 4 > d->data_end)
        return vp_fail(err, VP_EFORMAT, off, "%s %u runs past the records", what, i + 1);
    vp_cursor c;
    vp_errcode rc = vp_src_cursor(&d->src, off, nf * 4, &c, err);
    if (rc == VP_OK)
        vp_rd_f32s(&c, v, nf);
    return rc;
}

vp_errcode vp_dm_arrow_at(vp_dm *d, const vp_dm_group *g, unsigned i, float origin[3],
                          float direction[3], vp_error *err)
{
    float v[6]; /* origin, direction */
    vp_errcode rc = collision_elem(d, g->arrows_off, g->have_collision ? g->arrow_count : 0, 6,
                                   "arrow", i, v, err);
    memcpy(origin, v, 3 * sizeof *v);
    memcpy(direction, v + 3, 3 * sizeof *v);
    return rc;
}

vp_errcode vp_dm_float_at(vp_dm *d, const vp_dm_group *g, unsigned i, float *v, vp_error *err)
{
    return collision_elem(d, g->floats_off, g->have_collision ? g->float_count : 0, 1, "float",
                          i, v, err);
}
