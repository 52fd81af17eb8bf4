/* Lua binding of the movement trace (.dm): the capture and its records
 * (child userdata decoded on access from the file), groups as plain tables
 * built when iterated, and cap:track(bit), one group bit through the
 * records as columns (dm_track.c). The writer is l_dm_writer.c. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/dm.h"
#include "l_common.h"
#include "l_formats.h"
#include "l_trace.h"

#define DM_T "vp.dm"
#define DM_RECORD_T "vp.dm.record"

static vp_dm *dm_check(lua_State *L, int idx)
{
    return vp_lcap_check(L, idx, DM_T)->model;
}

/* ---- capture ----------------------------------------------------------- */

static int dm_tostring(lua_State *L)
{
    const char *base;
    vp_dm *d = vp_lcap_tostring_model(L, DM_T, &base);
    if (!d)
        return 1;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "<dm ");
    luaL_addstring(&b, base);
    luaL_addstring(&b, ": ");
    vp_l_push_count(L, d->record_count);
    luaL_addvalue(&b);
    luaL_addstring(&b, d->record_count == 1 ? " record, " : " records, ");
    vp_l_push_count(L, d->group_count);
    luaL_addvalue(&b);
    luaL_addstring(&b, " groups");
    if (d->empty_records) {
        luaL_addstring(&b, ", ");
        vp_l_push_count(L, d->empty_records);
        luaL_addvalue(&b);
        luaL_addstring(&b, " empty");
    }
    if (d->truncated)
        luaL_addstring(&b, ", truncated");
    luaL_addstring(&b, ">");
    luaL_pushresult(&b);
    return 1;
}

static int dm_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)dm_check(L, 1)->record_count);
    return 1;
}

static void push_record(lua_State *L, const vp_dm_record *r, int cap_idx)
{
    vp_dm_record *u = vp_lchild_new(L, sizeof *u, DM_RECORD_T, cap_idx);
    *u = *r;
}

/* One step of the slot iterator (l_common): the next element of the
 * record array; a record with data is a used slot. */
static int dm_slot_next(lua_State *L, int cap, void *model, void *state, uint64_t *slot,
                        int *used, vp_error *err)
{
    vp_dm_record r;
    int n = vp_dm_iter_next(model, state, &r, err);
    if (n <= 0)
        return n;
    *slot = r.slot;
    *used = r.have_data == 1;
    if (*used)
        push_record(L, &r, cap);
    return 1;
}

static void dm_slot_begin(void *model, void *state)
{
    vp_dm_iter_begin(model, state);
}

static void dm_slot_seek(void *model, void *state, uint64_t index)
{
    vp_dm_iter_seek_record(model, state, index);
}

static const vp_lslots dm_slots_def = {.cap_tname = DM_T,
                                       .what = "record",
                                       .state_size = sizeof(vp_dm_iter),
                                       .begin = dm_slot_begin,
                                       .seek = dm_slot_seek,
                                       .next = dm_slot_next};

/* cap:records([i]) -> iterator over the records with data, from the i-th. */
static int dm_records(lua_State *L)
{
    return vp_lslots_used(L, &dm_slots_def);
}

/* cap:slots() -> i, record | false for every element of the array. */
static int dm_slots(lua_State *L)
{
    return vp_lslots_all(L, &dm_slots_def);
}

/* cap:record(i) -> record (1-based); raises out of range. */
static int dm_record(lua_State *L)
{
    return vp_lslots_at(L, &dm_slots_def, dm_check(L, 1)->record_count);
}

/* "0 1 5" : the group bits present in the file. */
static void push_bits(lua_State *L, uint32_t bits)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    int first = 1;
    for (int k = 0; k < 32; k++) {
        if (!((bits >> k) & 1))
            continue;
        char s[8];
        snprintf(s, sizeof s, first ? "%d" : " %d", k);
        luaL_addstring(&b, s);
        first = 0;
    }
    luaL_pushresult(&b);
}

static int dm_summary(lua_State *L)
{
    vp_dm *d = dm_check(L, 1);
    lua_newtable(L);
    int list = lua_gettop(L);
    vp_l_row_int(L, list, "records", (lua_Integer)d->record_count);
    vp_l_row_int(L, list, "empty records", (lua_Integer)d->empty_records);
    vp_l_row_int(L, list, "groups", (lua_Integer)d->group_count);
    push_bits(L, d->bits_seen);
    vp_l_row_add(L, list, "group bits");
    vp_l_row_int(L, list, "extended groups", (lua_Integer)d->ext_groups);
    vp_l_row_int(L, list, "collision groups", (lua_Integer)d->collision_groups);
    if (d->record_count) {
        vp_l_row_int(L, list, "first time", d->time_min);
        vp_l_row_int(L, list, "last time", d->time_max);
    }
    vp_l_row_bool(L, list, "truncated", d->truncated);
    vp_l_row_int(L, list, "trailing bytes", (lua_Integer)d->trailing_bytes);
    return 1;
}

static void dm_set_fields(lua_State *L, int capidx, const vp_dm *d)
{
    vp_lcap_set_int(L, capidx, "record_count", (lua_Integer)d->record_count);
    vp_lcap_set_int(L, capidx, "slot_count", (lua_Integer)d->slot_count);
    vp_lcap_set_int(L, capidx, "empty_records", (lua_Integer)d->empty_records);
    vp_lcap_set_int(L, capidx, "group_count", (lua_Integer)d->group_count);
    vp_lcap_set_int(L, capidx, "ext_group_count", (lua_Integer)d->ext_groups);
    vp_lcap_set_int(L, capidx, "collision_group_count", (lua_Integer)d->collision_groups);
    lua_createtable(L, 0, VP_DM_GROUP_BITS);
    for (int b = 0; b < VP_DM_GROUP_BITS; b++) {
        if (!d->groups_by_bit[b])
            continue;
        lua_pushinteger(L, (lua_Integer)d->groups_by_bit[b]);
        lua_rawseti(L, -2, b);
    }
    vp_lcap_setfield(L, capidx, "groups_by_bit");
    vp_lcap_set_int(L, capidx, "bits_seen", d->bits_seen);
    if (d->record_count) {
        vp_lcap_set_int(L, capidx, "time_min", d->time_min);
        vp_lcap_set_int(L, capidx, "time_max", d->time_max);
    }
    vp_lcap_set_bool(L, capidx, "terminated", d->terminated);
    vp_lcap_set_bool(L, capidx, "truncated", d->truncated);
    vp_lcap_set_int(L, capidx, "trailing_bytes", (lua_Integer)d->trailing_bytes);
    vp_lcap_set_int(L, capidx, "array_end",
                    (lua_Integer)(d->terminated ? d->array_end : d->data_end));
}

/* vp_l_open_dm (l_trace.h). */
VP_LTRACE_OPEN(dm, DM_T, dm_set_fields)

/* ---- record ------------------------------------------------------------ */

static vp_dm_record *record_check(lua_State *L, int idx, vp_dm **d)
{
    void *m;
    vp_dm_record *r = vp_lchild_check(L, idx, DM_RECORD_T, &m);
    *d = m;
    return r;
}

/* The group as a table; `rec` is the record it belongs to (for errors). */
static void push_group(lua_State *L, vp_dm *d, const vp_dm_group *g, unsigned index, int rec)
{
    rec = lua_absindex(L, rec);
    vp_error err;
    lua_createtable(L, 0, 24);
    vp_l_set_int(L, "bit", g->bit);
    vp_l_set_int(L, "index", (lua_Integer)index + 1);
    vp_l_set_int(L, "offset", (lua_Integer)g->off);
    vp_l_set_int(L, "size", (lua_Integer)g->size);
    vp_l_set_int(L, "short_time", g->short_time);
    vp_l_set_vec3(L, "position", g->position);
    vp_l_push_vec(L, g->orientation, &g->orientation[3]);
    lua_setfield(L, -2, "orientation");
    vp_l_set_vec3(L, "direction", g->direction);
    vp_l_set_int(L, "state", g->state);
    /* The block is there only for the byte 1 (others are warned about). */
    lua_pushboolean(L, g->have_ext == 1);
    lua_setfield(L, -2, "have_ext");
    if (g->have_ext != 1)
        return;
    vp_l_set_int(L, "unknown_1", g->unknown_1);
    vp_l_set_vec3(L, "velocity", g->velocity);
    vp_l_set_int(L, "unknown_2", g->unknown_2);
    vp_l_set_int(L, "unknown_3", g->unknown_3);
    vp_l_set_int(L, "jetpack_energy", g->jetpack_energy);
    vp_l_set_int(L, "ground_time", g->ground_time);
    vp_l_set_int(L, "time_since_last_jump", g->time_since_last_jump);
    lua_pushboolean(L, g->have_collision != 0);
    lua_setfield(L, -2, "have_collision");
    if (g->have_collision) {
        vp_l_set_int(L, "arrow_count", g->arrow_count);
        vp_l_set_int(L, "float_count", g->float_count);
        lua_createtable(L, g->arrow_count, 0);
        for (unsigned i = 0; i < g->arrow_count; i++) {
            float o[3], dir[3];
            if (vp_dm_arrow_at(d, g, i, o, dir, &err) != VP_OK)
                vp_lchild_raise(L, rec, &err);
            lua_createtable(L, 0, 2);
            vp_l_set_vec3(L, "origin", o);
            vp_l_set_vec3(L, "direction", dir);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        lua_setfield(L, -2, "arrows");
        lua_createtable(L, g->float_count, 0);
        for (unsigned i = 0; i < g->float_count; i++) {
            float v;
            if (vp_dm_float_at(d, g, i, &v, &err) != VP_OK)
                vp_lchild_raise(L, rec, &err);
            lua_pushnumber(L, v);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        lua_setfield(L, -2, "floats");
    }
    vp_l_set_vec3(L, "unknown_4", g->unknown_4);
    vp_l_set_vec3(L, "unknown_5", g->unknown_5);
    vp_l_set_int(L, "unknown_6", g->unknown_6);
}

/* A walk over the groups of a record: where the next one starts, the bit
 * to look at next and the groups handed out so far. The group iterator,
 * the group list and record:group(bit) read the groups through it (a group
 * starts where the one before it ends). */
typedef struct group_walk {
    uint64_t off;
    unsigned bit, count;
} group_walk;

static void group_walk_begin(group_walk *w, const vp_dm_record *r)
{
    w->off = r->groups_off;
    w->bit = 0;
    w->count = 0;
}

/* The next group of record r: 1 with *g and its 0-based *index, 0 after
 * the last. A read that fails raises naming the record at rec. */
static int group_walk_next(lua_State *L, vp_dm *d, const vp_dm_record *r, int rec, group_walk *w,
                           vp_dm_group *g, unsigned *index)
{
    while (w->bit < VP_DM_GROUP_BITS && !((r->bitfield >> w->bit) & 1))
        w->bit++;
    if (w->bit >= VP_DM_GROUP_BITS)
        return 0;
    vp_error err;
    if (vp_dm_group_at(d, w->off, w->bit, g, &err) != VP_OK)
        vp_lchild_raise(L, rec, &err);
    w->off += g->size;
    w->bit++;
    *index = w->count++;
    return 1;
}

/* Group iterator. Upvalues: record, its group_walk. */
static int group_iter(lua_State *L)
{
    vp_dm *d;
    vp_dm_record *r = record_check(L, lua_upvalueindex(1), &d);
    group_walk *w = lua_touserdata(L, lua_upvalueindex(2));
    vp_dm_group g;
    unsigned index;
    if (!group_walk_next(L, d, r, lua_upvalueindex(1), w, &g, &index))
        return 0;
    push_group(L, d, &g, index, lua_upvalueindex(1));
    return 1;
}

static int record_groups(lua_State *L)
{
    vp_dm *d;
    vp_dm_record *r = record_check(L, 1, &d);
    lua_pushvalue(L, 1);
    group_walk_begin(lua_newuserdatauv(L, sizeof(group_walk), 0), r);
    lua_pushcclosure(L, group_iter, 2);
    return 1;
}

/* Every group of the record: a list in bit order (by_bit: keyed by bit). */
static void push_groups(lua_State *L, vp_dm *d, const vp_dm_record *r, int by_bit, int rec)
{
    rec = lua_absindex(L, rec);
    lua_createtable(L, by_bit ? 0 : (int)r->group_count, by_bit ? (int)r->group_count : 0);
    group_walk w;
    group_walk_begin(&w, r);
    vp_dm_group g;
    unsigned index;
    while (group_walk_next(L, d, r, rec, &w, &g, &index)) {
        push_group(L, d, &g, index, rec);
        lua_rawseti(L, -2, by_bit ? (lua_Integer)g.bit : (lua_Integer)index + 1);
    }
}

/* record:group(bit) -> group table or nil */
static int record_group(lua_State *L)
{
    vp_dm *d;
    vp_dm_record *r = record_check(L, 1, &d);
    lua_Integer want = luaL_checkinteger(L, 2);
    if (want < 0 || want >= VP_DM_GROUP_BITS || !((r->bitfield >> want) & 1)) {
        lua_pushnil(L);
        return 1;
    }
    group_walk w;
    group_walk_begin(&w, r);
    vp_dm_group g;
    unsigned index;
    while (group_walk_next(L, d, r, 1, &w, &g, &index)) {
        if ((lua_Integer)g.bit == want) {
            push_group(L, d, &g, index, 1);
            return 1;
        }
    }
    lua_pushnil(L);
    return 1;
}

static int record_group_list(lua_State *L)
{
    vp_dm *d;
    vp_dm_record *r = record_check(L, 1, &d);
    push_groups(L, d, r, 0, 1);
    return 1;
}

static int record_get(lua_State *L)
{
    vp_dm *d;
    vp_dm_record *r = record_check(L, 1, &d);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "time") == 0)
        lua_pushinteger(L, r->time);
    else if (strcmp(k, "bitfield") == 0)
        lua_pushinteger(L, r->bitfield);
    else if (strcmp(k, "group_count") == 0)
        lua_pushinteger(L, r->group_count);
    else if (strcmp(k, "index") == 0)
        lua_pushinteger(L, (lua_Integer)r->index + 1);
    else if (strcmp(k, "slot") == 0)
        lua_pushinteger(L, (lua_Integer)r->slot + 1);
    else if (strcmp(k, "offset") == 0)
        lua_pushinteger(L, (lua_Integer)r->off);
    else if (strcmp(k, "size") == 0)
        lua_pushinteger(L, (lua_Integer)r->size);
    else if (strcmp(k, "used") == 0)
        lua_pushboolean(L, r->have_data == 1);
    else if (strcmp(k, "bits") == 0) {
        lua_createtable(L, (int)r->group_count, 0);
        int n = 0;
        for (int b = 0; b < VP_DM_GROUP_BITS; b++)
            if ((r->bitfield >> b) & 1) {
                lua_pushinteger(L, b);
                lua_rawseti(L, -2, ++n);
            }
    } else
        lua_pushnil(L);
    return 1;
}

static int record_totable(lua_State *L)
{
    vp_dm *d;
    vp_dm_record *r = record_check(L, 1, &d);
    static const char *const keys[] = {"index",    "slot",        "offset", "size", "used", "time",
                                       "bitfield", "group_count", "bits",   NULL};
    lua_settop(L, 1);
    lua_createtable(L, 0, 10);
    vp_l_getter_fields(L, 1, record_get, keys);
    push_groups(L, d, r, 0, 1);
    lua_setfield(L, 2, "groups");
    return 1;
}

static int record_tostring(lua_State *L)
{
    vp_dm *d;
    vp_dm_record *r = record_check(L, 1, &d);
    char buf[128];
    snprintf(buf, sizeof buf, "<dm record %llu (slot %llu) time=%lu: %u groups, bits 0x%05lx>",
             (unsigned long long)r->index + 1, (unsigned long long)r->slot + 1,
             (unsigned long)r->time, r->group_count, (unsigned long)r->bitfield);
    lua_pushstring(L, buf);
    return 1;
}

static int record_eq(lua_State *L)
{
    return vp_lchild_eq(L, DM_RECORD_T, offsetof(vp_dm_record, off), sizeof(uint64_t));
}

/* The track's memory lives in a userdata with a __gc, so an error raised
 * while the columns are built cannot leak it. */
#define TRACK_T "vp.dm.track"

static int track_gc(lua_State *L)
{
    vp_dm_track_free(luaL_checkudata(L, 1, TRACK_T));
    return 0;
}

/* Push a list of n numbers read by get(i). */
#define PUSH_COLUMN(L, n, expr)                                                                   \
    do {                                                                                          \
        lua_createtable(L, (n) > INT32_MAX ? 0 : (int)(n), 0);                                    \
        for (size_t i = 0; i < (n); i++) {                                                        \
            expr;                                                                                 \
            lua_rawseti(L, -2, (lua_Integer)i + 1);                                               \
        }                                                                                         \
    } while (0)

/* cap:track(bit) -> {time, record, x, y, z, ext, vx, vy, vz, ground_time,
 * since_jump, energy}: every group under `bit` (0..19), one list per field
 * in the order of (record time, record index). record is 1-based; ext says
 * whether the sample has the extended block (the fields after it are 0
 * without one). */
static int dm_track(lua_State *L)
{
    vp_dm *d = dm_check(L, 1);
    lua_Integer bit = luaL_checkinteger(L, 2);
    luaL_argcheck(L, bit >= 0 && bit < VP_DM_GROUP_BITS, 2, "a group bit is 0..19");
    vp_dm_track *t = vp_l_scratch(L, sizeof *t, TRACK_T, track_gc);
    vp_error err;
    if (vp_dm_track_bit(d, (unsigned)bit, t, &err) != VP_OK)
        return vp_lcap_raise(L, 1, &err);
    size_t n = t->n;
    lua_createtable(L, 0, 12);
    PUSH_COLUMN(L, n, lua_pushinteger(L, t->time[i]));
    lua_setfield(L, -2, "time");
    PUSH_COLUMN(L, n, lua_pushinteger(L, (lua_Integer)t->record[i] + 1));
    lua_setfield(L, -2, "record");
    static const char *const pos_keys[] = {"x", "y", "z"}, *const vel_keys[] = {"vx", "vy", "vz"};
    for (int k = 0; k < 3; k++) {
        PUSH_COLUMN(L, n, lua_pushnumber(L, t->pos[3 * i + (size_t)k]));
        lua_setfield(L, -2, pos_keys[k]);
        PUSH_COLUMN(L, n, lua_pushnumber(L, t->vel[3 * i + (size_t)k]));
        lua_setfield(L, -2, vel_keys[k]);
    }
    PUSH_COLUMN(L, n, lua_pushboolean(L, t->ext[i]));
    lua_setfield(L, -2, "ext");
    PUSH_COLUMN(L, n, lua_pushinteger(L, t->ground_time[i]));
    lua_setfield(L, -2, "ground_time");
    PUSH_COLUMN(L, n, lua_pushinteger(L, t->since_jump[i]));
    lua_setfield(L, -2, "since_jump");
    PUSH_COLUMN(L, n, lua_pushinteger(L, t->energy[i]));
    lua_setfield(L, -2, "energy");
    vp_dm_track_free(t);
    return 1;
}

void vp_l_register_dm(lua_State *L)
{
    static const luaL_Reg cap_methods[] = {{"records", dm_records}, {"slots", dm_slots},
                                           {"record", dm_record},   {"summary", dm_summary},
                                           {"track", dm_track},     {NULL, NULL}};
    vp_lcap_class(L, DM_T, dm_tostring, dm_len, cap_methods);

    static const luaL_Reg rec_meta[] = {
        {"__tostring", record_tostring}, {"__eq", record_eq}, {NULL, NULL}};
    static const luaL_Reg rec_methods[] = {{"groups", record_groups},
                                           {"group", record_group},
                                           {"group_list", record_group_list},
                                           {"totable", record_totable},
                                           {NULL, NULL}};
    vp_l_class(L, DM_RECORD_T, rec_meta, rec_methods, record_get);
}
