#include "formats/dw.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cursor.h"
#include "formats/trace_common.h"

static const char *const hit_type_names[VP_DW_HIT_TYPES] = {
    "ERROR",       "Spawn",  "Bounce", "Posefile_Hit", "Ragdoll_Hit", "Ragdoll_Miss",
    "Impact",      "Shot",   "Detonate", "Timeout",    "Validated",
};

const char *vp_dw_hit_type_name(unsigned type)
{
    return type < VP_DW_HIT_TYPES ? hit_type_names[type] : NULL;
}

/* Where a read happened, for messages: slots and hits are numbered from 1
 * as Lua sees them. */
typedef struct dw_ctx {
    uint64_t slot;
    const char *side; /* "client" / "server", NULL outside the hit lists */
    unsigned hit, nhits;
    const char *bound; /* what ends the readable range */
} dw_ctx;

static void ctx_where(const dw_ctx *x, char *buf, size_t n)
{
    if (x->side)
        snprintf(buf, n, "slot %" PRIu64 ", %s hit %u of %u", x->slot + 1, x->side, x->hit + 1,
                 x->nhits);
    else
        snprintf(buf, n, "slot %" PRIu64, x->slot + 1);
}

/* The one message for a cut field (core/cursor.h), with where it is. */
static vp_errcode dw_short(const dw_ctx *x, const vp_cursor *c, const char *field, uint64_t need,
                           vp_error *err)
{
    char where[96];
    ctx_where(x, where, sizeof where);
    return vp_cursor_short(c, where, field, need, x->bound, err);
}

static vp_errcode count_too_big(const dw_ctx *x, uint64_t off, const char *field, unsigned count,
                                uint64_t need, size_t left, vp_error *err)
{
    char where[96];
    ctx_where(x, where, sizeof where);
    return vp_fail(err, VP_ETRUNC, off,
                   "%s: %s %u needs at least %" PRIu64 " bytes, only %zu left before %s", where,
                   field, count, need, left, x->bound);
}

/* A hit record at the cursor. Every length is checked before it is read. */
static vp_errcode hit_parse(vp_cursor *c, vp_dw_hit *h, const dw_ctx *x, vp_error *err)
{
    memset(h, 0, sizeof *h);
    h->off = vp_cursor_off(c);
    /* type .. have_entity: 40 fixed bytes */
    if (vp_cursor_left(c) < VP_DW_HIT_MIN - 1)
        return dw_short(x, c, "a hit record", VP_DW_HIT_MIN, err);
    vp_rd_u8(c, &h->type);
    vp_rd_u32(c, &h->trace_id);
    vp_rd_u32(c, &h->time);
    vp_rd_u16(c, &h->unknown_09);
    vp_rd_vec3(c, h->position);
    vp_rd_vec3(c, h->direction);
    vp_rd_u32(c, &h->physics_material);
    vp_rd_u8(c, &h->have_entity);
    if (h->have_entity) {
        if (vp_cursor_left(c) < VP_DW_ENTITY_SIZE)
            return dw_short(x, c, "the entity block", VP_DW_ENTITY_SIZE, err);
        vp_rd_u64(c, &h->entity.guid);
        vp_rd_vec3(c, h->entity.position);
        vp_rd_vec4(c, h->entity.rotation);
        uint8_t b = 0;
        vp_rd_u8(c, &b);
        h->entity.unknown_24 = (int8_t)b;
        vp_rd_u8(c, &h->entity.unknown_25);
    }
    if (!vp_rd_u8(c, &h->have_ragdoll))
        return dw_short(x, c, "the have_ragdoll byte", 1, err);
    if (h->have_ragdoll) {
        if (vp_cursor_left(c) < 9)
            return dw_short(x, c, "the ragdoll guid and count", 9, err);
        vp_rd_u64(c, &h->ragdoll_guid);
        uint64_t count_off = vp_cursor_off(c);
        vp_rd_u8(c, &h->ragdoll_count);
        uint64_t need = (uint64_t)h->ragdoll_count * VP_DW_MATRIX_SIZE;
        if (need > vp_cursor_left(c))
            return count_too_big(x, count_off, "ragdoll count", h->ragdoll_count, need,
                                 vp_cursor_left(c), err);
        h->ragdoll_off = vp_cursor_off(c);
        vp_skip(c, (size_t)need);
    }
    h->size = vp_cursor_off(c) - h->off;
    return VP_OK;
}

typedef struct dw_stats {
    uint64_t client_hits, server_hits, movement_blocks;
    uint64_t by_type[VP_DW_HIT_TYPES + 1];
    uint64_t first_odd_type_off;
} dw_stats;

static vp_errcode hits_parse(vp_cursor *c, dw_ctx *x, const char *side, uint8_t *count,
                             uint64_t *first, dw_stats *st, vp_error *err)
{
    x->side = NULL;
    uint64_t count_off = vp_cursor_off(c);
    if (!vp_rd_u8(c, count))
        return dw_short(x, c, strcmp(side, "client") == 0 ? "client_count" : "server_count", 1,
                          err);
    uint64_t need = (uint64_t)*count * VP_DW_HIT_MIN;
    if (need > vp_cursor_left(c))
        return count_too_big(x, count_off,
                             strcmp(side, "client") == 0 ? "client_count" : "server_count", *count,
                             need, vp_cursor_left(c), err);
    *first = vp_cursor_off(c);
    x->side = side;
    x->nhits = *count;
    for (unsigned i = 0; i < *count; i++) {
        x->hit = i;
        vp_dw_hit h;
        vp_errcode rc = hit_parse(c, &h, x, err);
        if (rc != VP_OK)
            return rc;
        if (st) {
            unsigned k = h.type < VP_DW_HIT_TYPES ? h.type : VP_DW_HIT_TYPES;
            if (k == VP_DW_HIT_TYPES && st->by_type[k] == 0)
                st->first_odd_type_off = h.off;
            st->by_type[k]++;
        }
    }
    x->side = NULL;
    if (st) {
        if (strcmp(side, "client") == 0)
            st->client_hits += *count;
        else
            st->server_hits += *count;
    }
    return VP_OK;
}

/* The slot at the cursor, validated to its last byte. EFORMAT for a bad
 * used byte, ETRUNC when the slot runs past the cursor's end. */
static vp_errcode slot_parse(vp_cursor *c, vp_dw_trace *t, dw_ctx *x, dw_stats *st,
                             vp_error *err)
{
    memset(t, 0, sizeof *t);
    t->off = vp_cursor_off(c);
    t->slot = x->slot;
    x->side = NULL;
    if (!vp_rd_u8(c, &t->used))
        return dw_short(x, c, "the used byte", 1, err);
    if (t->used == 0) {
        t->size = 1;
        return VP_OK;
    }
    if (t->used != 1)
        return vp_fail(err, VP_EFORMAT, t->off,
                       "slot %" PRIu64 ": expected the used byte 0 (empty) or 1 (trace), found %u",
                       x->slot + 1, t->used);
    if (vp_cursor_left(c) < 9)
        return dw_short(x, c, "unknown_01, trace_id and ammo_type_id", 9, err);
    vp_rd_u8(c, &t->unknown_01);
    vp_rd_u32(c, &t->trace_id);
    vp_rd_u32(c, &t->ammo_type_id);
    if (t->ammo_type_id != 0) {
        if (vp_cursor_left(c) < VP_DW_MOVEMENT_SIZE)
            return dw_short(x, c, "the movement block (ammo_type_id is not 0)",
                              VP_DW_MOVEMENT_SIZE, err);
        t->movement_off = vp_cursor_off(c);
        vp_skip(c, VP_DW_MOVEMENT_SIZE);
        if (st)
            st->movement_blocks++;
    }
    vp_errcode rc = hits_parse(c, x, "client", &t->client_count, &t->client_off, st, err);
    if (rc == VP_OK)
        rc = hits_parse(c, x, "server", &t->server_count, &t->server_off, st, err);
    if (rc != VP_OK)
        return rc;
    t->size = vp_cursor_off(c) - t->off;
    return VP_OK;
}

static void stats_merge(dw_stats *to, const dw_stats *from)
{
    to->client_hits += from->client_hits;
    to->server_hits += from->server_hits;
    to->movement_blocks += from->movement_blocks;
    if (from->by_type[VP_DW_HIT_TYPES] && !to->by_type[VP_DW_HIT_TYPES])
        to->first_odd_type_off = from->first_odd_type_off;
    for (int k = 0; k <= VP_DW_HIT_TYPES; k++)
        to->by_type[k] += from->by_type[k];
}

static int ckpt_push(vp_dw *d, size_t *cap, uint64_t off, uint64_t slot, uint64_t trace)
{
    vp_dw_ckpt *ck = vp_trace_grow(d->ckpt, d->nckpt, cap, sizeof *ck);
    if (!ck)
        return 0;
    d->ckpt = ck;
    d->ckpt[d->nckpt++] = (vp_dw_ckpt){off, slot, trace};
    return 1;
}

/* vp_src_parse callbacks: a slot (with its statistics when st is set) and a
 * hit. Each run starts afresh: a slot read again over a larger window
 * counts once. */
typedef struct slot_ctx {
    dw_ctx x;
    vp_dw_trace t;
    dw_stats *st;
} slot_ctx;

static vp_errcode slot_cb(vp_cursor *c, void *ctx, vp_error *err)
{
    slot_ctx *s = ctx;
    if (s->st)
        memset(s->st, 0, sizeof *s->st);
    vp_errcode rc = slot_parse(c, &s->t, &s->x, s->st, err);
    s->x.side = NULL;
    return rc;
}

typedef struct hit_ctx {
    dw_ctx x;
    vp_dw_hit h;
} hit_ctx;

static vp_errcode hit_cb(vp_cursor *c, void *ctx, vp_error *err)
{
    hit_ctx *h = ctx;
    return hit_parse(c, &h->h, &h->x, err);
}

/* Parse slots from *pos while they end at or before `end`; stops at the
 * first failure (returned, err filled) or when *pos reaches end. */
static vp_errcode slots_run(vp_dw *d, uint64_t *pos, uint64_t end, const char *bound,
                            size_t *ckcap, dw_stats *st, vp_error *err)
{
    while (*pos < end) {
        /* Counted per slot and merged once the slot is complete, so a slot
         * read twice (see dw_parse) is counted once. */
        dw_stats one;
        slot_ctx x = {.x = {.slot = d->slot_count, .bound = bound}, .st = &one};
        uint64_t at = *pos;
        vp_errcode rc = vp_src_parse(&d->src, at, end, slot_cb, &x, pos, err);
        if (rc != VP_OK) {
            *pos = at;
            return rc;
        }
        stats_merge(st, &one);
        if (x.t.used) {
            if (d->trace_count % VP_DW_CKPT_EVERY == 0 &&
                !ckpt_push(d, ckcap, at, d->slot_count, d->trace_count))
                return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory indexing the traces");
            d->trace_count++;
        } else {
            d->empty_slots++;
        }
        d->slot_count++;
    }
    return VP_OK;
}

static vp_errcode dw_parse(void *model, int strict, vp_error *err)
{
    vp_dw *d = model;
    const uint64_t size = d->src.size;
    if (size < 5)
        return vp_fail(err, VP_ETRUNC, size < 4 ? 0 : 4,
                       "expected the 4-byte header and the max_size byte (5 bytes), the file has "
                       "only %" PRIu64,
                       size);
    uint8_t head[5];
    vp_errcode rc = vp_src_read(&d->src, 0, head, 5, err);
    if (rc)
        return rc;
    memcpy(d->header, head, 4);
    d->max_size = head[4];

    size_t ckcap = 0;
    dw_stats st;
    memset(&st, 0, sizeof st);
    uint64_t pos = 5;
    vp_error first;
    memset(&first, 0, sizeof first);
    if (size >= 9) {
        rc = slots_run(d, &pos, size - 4, "the 4-byte footer", &ckcap, &st, &first);
        if (rc == VP_OK) {
            uint8_t f[4];
            if ((rc = vp_src_read(&d->src, pos, f, 4, err)))
                return rc;
            d->last_trace_counter =
                (uint32_t)f[0] | (uint32_t)f[1] << 8 | (uint32_t)f[2] << 16 | (uint32_t)f[3] << 24;
            d->have_footer = 1;
            d->slots_end = pos;
        } else if (rc != VP_ETRUNC) {
            *err = first;
            return rc;
        }
    }
    if (!d->have_footer) {
        /* The slots do not stop 4 bytes before the end: either the footer
         * is missing or the file ends inside a slot. Read on to the end of
         * the file and keep every slot that is complete. */
        vp_error tail;
        rc = slots_run(d, &pos, size, "the end of the file", &ckcap, &st, &tail);
        if (rc == VP_ENOMEM || vp_src_failed(rc)) {
            *err = tail;
            return rc;
        }
        d->slots_end = pos;
        d->truncated = 1;
        /* Formatted without an offset prefix: tail.msg has its own. */
        vp_error cut;
        if (rc == VP_OK)
            vp_fail(&cut, VP_ETRUNC, UINT64_MAX,
                    "the file ends without the 4-byte footer (last_trace_counter): its %" PRIu64
                    " slots run to the last byte",
                    d->slot_count);
        else
            vp_fail(&cut, VP_ETRUNC, UINT64_MAX,
                    "%s; the file is truncated or its footer is missing: kept %" PRIu64
                    " complete slot%s",
                    tail.msg, d->slot_count, d->slot_count == 1 ? "" : "s");
        cut.offset = rc == VP_OK ? size : tail.offset;
        /* A strict open refuses a cut file with the warning's message. */
        if (strict) {
            *err = cut;
            return VP_ETRUNC;
        }
        vp_warn(&d->warnings, "%s", cut.msg);
    }
    d->client_hits = st.client_hits;
    d->server_hits = st.server_hits;
    d->movement_blocks = st.movement_blocks;
    memcpy(d->hits_by_type, st.by_type, sizeof st.by_type);
    if (st.by_type[VP_DW_HIT_TYPES])
        vp_warn(&d->warnings,
                "%" PRIu64 " hit records have a type outside 0..10 (the first at byte %" PRIu64
                "): kept with their number, named unknown_N",
                st.by_type[VP_DW_HIT_TYPES], st.first_odd_type_off);
    return VP_OK;
}

/* The checkpoints: what the model owns besides its source and warnings. */
static void dw_free_arrays(vp_dw *d)
{
    free(d->ckpt);
}

/* vp_dw_open, vp_dw_open_mem, vp_dw_free (trace_common.h). */
VP_TRACE_READER(dw, dw_parse, dw_free_arrays)

void vp_dw_iter_begin(const vp_dw *d, vp_dw_iter *it)
{
    (void)d;
    it->off = 5;
    it->slot = 0;
    it->trace = 0;
}

vp_errcode vp_dw_trace_at(vp_dw *d, uint64_t off, uint64_t slot, uint64_t trace, vp_dw_trace *t,
                          vp_error *err)
{
    memset(t, 0, sizeof *t);
    if (off < 5 || off >= d->slots_end)
        return vp_fail(err, VP_EFORMAT, off, "no slot starts here");
    slot_ctx x = {.x = {.slot = slot, .bound = "the end of the slots"}};
    vp_errcode rc = vp_src_parse(&d->src, off, d->slots_end, slot_cb, &x, NULL, err);
    *t = x.t;
    t->index = trace;
    return rc;
}

int vp_dw_iter_next(vp_dw *d, vp_dw_iter *it, vp_dw_trace *t, vp_error *err)
{
    if (it->slot >= d->slot_count || it->off >= d->slots_end)
        return 0;
    if (vp_dw_trace_at(d, it->off, it->slot, it->trace, t, err) != VP_OK)
        return -1;
    it->off += t->size;
    it->slot++;
    if (t->used)
        it->trace++;
    return 1;
}

void vp_dw_iter_seek_trace(vp_dw *d, vp_dw_iter *it, uint64_t index)
{
    vp_dw_iter_begin(d, it);
    size_t k = (size_t)(index / VP_DW_CKPT_EVERY);
    if (k < d->nckpt) {
        it->off = d->ckpt[k].off;
        it->slot = d->ckpt[k].slot;
        it->trace = d->ckpt[k].trace;
    }
    /* Step over slots until the next one is trace `index`. */
    while (it->slot < d->slot_count) {
        vp_dw_trace t;
        if (vp_dw_trace_at(d, it->off, it->slot, it->trace, &t, NULL) != VP_OK)
            return;
        if (t.used && it->trace == index)
            return;
        it->off += t.size;
        it->slot++;
        if (t.used)
            it->trace++;
    }
}

vp_errcode vp_dw_movement_at(vp_dw *d, uint64_t off, vp_dw_movement *m, vp_error *err)
{
    memset(m, 0, sizeof *m);
    if (off < 5 || off + VP_DW_MOVEMENT_SIZE > d->slots_end)
        return vp_fail(err, VP_EFORMAT, off, "no movement block starts here");
    vp_cursor c;
    vp_errcode rc = vp_src_cursor(&d->src, off, VP_DW_MOVEMENT_SIZE, &c, err);
    if (rc != VP_OK)
        return rc;
    vp_rd_bytes(&c, m->unknown_00, 4);
    vp_rd_vec3(&c, m->ray_start);
    vp_rd_vec3(&c, m->ray_end);
    vp_rd_f32(&c, &m->weapon_range);
    vp_rd_u16(&c, &m->unknown_20);
    vp_rd_bytes(&c, m->unknown_22, sizeof m->unknown_22);
    vp_rd_bytes(&c, m->unknown_44, sizeof m->unknown_44);
    vp_rd_u8(&c, &m->bullet);
    vp_rd_bytes(&c, m->unknown_49, sizeof m->unknown_49);
    vp_rd_vec3(&c, m->unknown_4c);
    vp_rd_u32(&c, &m->damage_per_round);
    vp_rd_bytes(&c, m->unknown_5c, sizeof m->unknown_5c);
    vp_rd_vec3(&c, m->unknown_68);
    vp_rd_u32(&c, &m->weapon_template_id);
    vp_rd_u8(&c, &m->slot_index);
    vp_rd_bytes(&c, m->unknown_79, sizeof m->unknown_79);
    return VP_OK;
}

vp_errcode vp_dw_hit_at(vp_dw *d, uint64_t off, vp_dw_hit *h, vp_error *err)
{
    memset(h, 0, sizeof *h);
    if (off < 5 || off >= d->slots_end)
        return vp_fail(err, VP_EFORMAT, off, "no hit record starts here");
    hit_ctx x = {.x = {.side = "the", .bound = "the end of the slots"}};
    vp_errcode rc = vp_src_parse(&d->src, off, d->slots_end, hit_cb, &x, NULL, err);
    if (rc == VP_OK)
        *h = x.h;
    return rc;
}

vp_errcode vp_dw_matrix_at(vp_dw *d, const vp_dw_hit *h, unsigned i, float m[16], vp_error *err)
{
    memset(m, 0, 16 * sizeof *m);
    if (i >= h->ragdoll_count)
        return vp_fail(err, VP_EFORMAT, UINT64_MAX, "no transform %u in this ragdoll block",
                       i + 1);
    uint64_t off = h->ragdoll_off + (uint64_t)i * VP_DW_MATRIX_SIZE;
    if (off + VP_DW_MATRIX_SIZE > d->slots_end)
        return vp_fail(err, VP_EFORMAT, off, "transform %u runs past the slots", i + 1);
    vp_cursor c;
    vp_errcode rc = vp_src_cursor(&d->src, off, VP_DW_MATRIX_SIZE, &c, err);
    if (rc != VP_OK)
        return rc;
    for (int row = 0; row < 4; row++)
        vp_rd_vec4(&c, &m[row * 4]);
    return VP_OK;
}
