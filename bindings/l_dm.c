/* Lua binding of the movement trace (.dm): the capture, its records (child
 * userdata decoded on access from the mapped file), groups as plain tables
 * built when iterated, and the writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../host/dm.h"
#include "../host/dm_write.h"
#include "l_common.h"
#include "l_formats.h"

#define DM_T "vp.dm"
#define DM_RECORD_T "vp.dm.record"
#define DM_WRITER_T "vp.dm.writer"

static vp_dm *dm_check(lua_State *L, int idx)
{
    return vp_lcap_check(L, idx, DM_T)->model;
}

static void dm_free(void *m)
{
    vp_dm_free(m);
}

static void push_count(lua_State *L, uint64_t n)
{
    char raw[32], out[48];
    int len = snprintf(raw, sizeof raw, "%llu", (unsigned long long)n);
    int o = 0;
    for (int i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = raw[i];
    }
    lua_pushlstring(L, out, (size_t)o);
}

static void set_int(lua_State *L, const char *k, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}

static void set_vec3(lua_State *L, const char *k, const float v[3])
{
    vp_l_push_vec(L, v, NULL);
    lua_setfield(L, -2, k);
}

/* Raise with the capture's path (upvalue or argument at capidx). */
static int raise_at(lua_State *L, int capidx, const vp_error *err)
{
    lua_getiuservalue(L, capidx, 1);
    lua_getfield(L, -1, "path");
    return vp_l_raise(L, lua_tostring(L, -1), err);
}

/* ---- capture ----------------------------------------------------------- */

static int dm_close(lua_State *L)
{
    vp_lcap_close(luaL_checkudata(L, 1, DM_T));
    return 0;
}

static int dm_tostring(lua_State *L)
{
    vp_lcap *c = luaL_checkudata(L, 1, DM_T);
    lua_getiuservalue(L, 1, 1);
    lua_getfield(L, -1, "path");
    const char *path = lua_tostring(L, -1);
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : (path ? path : "?");
    if (!c->model) {
        lua_pushfstring(L, "<dm %s (closed)>", base);
        return 1;
    }
    vp_dm *d = c->model;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "<dm ");
    luaL_addstring(&b, base);
    luaL_addstring(&b, ": ");
    push_count(L, d->record_count);
    luaL_addvalue(&b);
    luaL_addstring(&b, d->record_count == 1 ? " record, " : " records, ");
    push_count(L, d->group_count);
    luaL_addvalue(&b);
    luaL_addstring(&b, " groups");
    if (d->empty_records) {
        luaL_addstring(&b, ", ");
        push_count(L, d->empty_records);
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

/* Upvalues: capture, state (vp_dm_iter), mode (true: every slot as
 * `slot, record|false`; false: data records only). */
static int dm_iter(lua_State *L)
{
    vp_dm *d = dm_check(L, lua_upvalueindex(1));
    vp_dm_iter *it = lua_touserdata(L, lua_upvalueindex(2));
    int all = lua_toboolean(L, lua_upvalueindex(3));
    for (;;) {
        vp_dm_record r;
        vp_error err;
        int n = vp_dm_iter_next(d, it, &r, &err);
        if (n < 0)
            return raise_at(L, lua_upvalueindex(1), &err);
        if (n == 0)
            return 0;
        int data = r.have_data == 1;
        if (all) {
            lua_pushinteger(L, (lua_Integer)r.slot + 1);
            if (data) {
                lua_pushvalue(L, lua_upvalueindex(1));
                push_record(L, &r, -1);
                lua_remove(L, -2);
            } else {
                lua_pushboolean(L, 0);
            }
            return 2;
        }
        if (data) {
            lua_pushvalue(L, lua_upvalueindex(1));
            push_record(L, &r, -1);
            lua_remove(L, -2);
            return 1;
        }
    }
}

static int push_iter(lua_State *L, int all, uint64_t first)
{
    vp_dm *d = dm_check(L, 1);
    lua_pushvalue(L, 1);
    vp_dm_iter *it = lua_newuserdatauv(L, sizeof *it, 0);
    if (first)
        vp_dm_iter_seek_record(d, it, first);
    else
        vp_dm_iter_begin(d, it);
    lua_pushboolean(L, all);
    lua_pushcclosure(L, dm_iter, 3);
    return 1;
}

/* cap:records([i]) -> iterator over the records with data, from the i-th. */
static int dm_records(lua_State *L)
{
    dm_check(L, 1);
    lua_Integer i = luaL_optinteger(L, 2, 1);
    luaL_argcheck(L, i >= 1, 2, "record numbers start at 1");
    return push_iter(L, 0, (uint64_t)i - 1);
}

static int dm_slots(lua_State *L)
{
    return push_iter(L, 1, 0);
}

static int dm_record(lua_State *L)
{
    vp_dm *d = dm_check(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    if (i < 1 || (uint64_t)i > d->record_count) {
        lua_pushnil(L);
        return 1;
    }
    vp_dm_iter it;
    vp_dm_iter_seek_record(d, &it, (uint64_t)i - 1);
    vp_dm_record r;
    vp_error err;
    int n = vp_dm_iter_next(d, &it, &r, &err);
    if (n <= 0 || r.have_data != 1) {
        if (n == 0 || (n > 0 && r.have_data != 1))
            vp_fail(&err, VP_EFORMAT, UINT64_MAX, "record %d could not be found again",
                    (int)i);
        return raise_at(L, 1, &err);
    }
    push_record(L, &r, 1);
    return 1;
}

static void add_row(lua_State *L, int *n, const char *name)
{
    lua_createtable(L, 0, 2);
    lua_pushstring(L, name);
    lua_setfield(L, -2, "name");
    lua_insert(L, -2);
    lua_setfield(L, -2, "value");
    lua_rawseti(L, -2, ++*n);
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
    int n = 0;
    lua_newtable(L);
    lua_pushinteger(L, (lua_Integer)d->record_count);
    add_row(L, &n, "records");
    lua_pushinteger(L, (lua_Integer)d->empty_records);
    add_row(L, &n, "empty records");
    lua_pushinteger(L, (lua_Integer)d->group_count);
    add_row(L, &n, "groups");
    push_bits(L, d->bits_seen);
    add_row(L, &n, "group bits");
    lua_pushinteger(L, (lua_Integer)d->ext_groups);
    add_row(L, &n, "extended groups");
    lua_pushinteger(L, (lua_Integer)d->collision_groups);
    add_row(L, &n, "collision groups");
    if (d->record_count) {
        lua_pushinteger(L, d->time_min);
        add_row(L, &n, "first time");
        lua_pushinteger(L, d->time_max);
        add_row(L, &n, "last time");
    }
    lua_pushboolean(L, d->truncated);
    add_row(L, &n, "truncated");
    lua_pushinteger(L, (lua_Integer)d->trailing_bytes);
    add_row(L, &n, "trailing bytes");
    return 1;
}

static void dm_set_fields(lua_State *L, int capidx, const vp_dm *d)
{
    lua_pushinteger(L, (lua_Integer)d->record_count);
    vp_lcap_setfield(L, capidx, "record_count");
    lua_pushinteger(L, (lua_Integer)d->slot_count);
    vp_lcap_setfield(L, capidx, "slot_count");
    lua_pushinteger(L, (lua_Integer)d->empty_records);
    vp_lcap_setfield(L, capidx, "empty_records");
    lua_pushinteger(L, (lua_Integer)d->group_count);
    vp_lcap_setfield(L, capidx, "group_count");
    lua_pushinteger(L, (lua_Integer)d->ext_groups);
    vp_lcap_setfield(L, capidx, "ext_group_count");
    lua_pushinteger(L, (lua_Integer)d->collision_groups);
    vp_lcap_setfield(L, capidx, "collision_group_count");
    lua_createtable(L, 0, VP_DM_GROUP_BITS);
    for (int b = 0; b < VP_DM_GROUP_BITS; b++) {
        if (!d->groups_by_bit[b])
            continue;
        lua_pushinteger(L, (lua_Integer)d->groups_by_bit[b]);
        lua_rawseti(L, -2, b);
    }
    vp_lcap_setfield(L, capidx, "groups_by_bit");
    lua_pushinteger(L, d->bits_seen);
    vp_lcap_setfield(L, capidx, "bits_seen");
    if (d->record_count) {
        lua_pushinteger(L, d->time_min);
        vp_lcap_setfield(L, capidx, "time_min");
        lua_pushinteger(L, d->time_max);
        vp_lcap_setfield(L, capidx, "time_max");
    }
    lua_pushboolean(L, d->terminated);
    vp_lcap_setfield(L, capidx, "terminated");
    lua_pushboolean(L, d->truncated);
    vp_lcap_setfield(L, capidx, "truncated");
    lua_pushinteger(L, (lua_Integer)d->trailing_bytes);
    vp_lcap_setfield(L, capidx, "trailing_bytes");
    lua_pushinteger(L, (lua_Integer)(d->terminated ? d->array_end : d->data_end));
    vp_lcap_setfield(L, capidx, "array_end");
}

int vp_l_open_dm(lua_State *L, const char *path, int opts)
{
    int strict = vp_l_opt_bool(L, opts, "strict", 0);
    vp_dm *d;
    vp_error err;
    if (vp_dm_open(path, &d, &err) != VP_OK)
        return vp_l_fail(L, path, &err);
    if (strict && (d->truncated || d->trailing_bytes)) {
        vp_error e = {.code = d->truncated ? VP_ETRUNC : VP_EFORMAT, .offset = UINT64_MAX};
        snprintf(e.msg, sizeof e.msg, "%s",
                 d->warnings.count ? d->warnings.items[0] : "truncated");
        vp_dm_free(d);
        return vp_l_fail(L, path, &e);
    }
    vp_lcap_new(L, DM_T, d, dm_free, "dm", path, d->map.size, &d->warnings);
    dm_set_fields(L, lua_gettop(L), d);
    return 1;
}

/* ---- record ------------------------------------------------------------ */

static vp_dm_record *record_check(lua_State *L, int idx, vp_dm **d)
{
    void *m;
    vp_dm_record *r = vp_lchild_check(L, idx, DM_RECORD_T, &m);
    *d = m;
    return r;
}

static void push_group(lua_State *L, const vp_dm *d, const vp_dm_group *g, unsigned index)
{
    lua_createtable(L, 0, 24);
    set_int(L, "bit", g->bit);
    set_int(L, "index", (lua_Integer)index + 1);
    set_int(L, "offset", (lua_Integer)g->off);
    set_int(L, "size", (lua_Integer)g->size);
    set_int(L, "short_time", g->short_time);
    set_vec3(L, "position", g->position);
    vp_l_push_vec(L, g->orientation, &g->orientation[3]);
    lua_setfield(L, -2, "orientation");
    set_vec3(L, "direction", g->direction);
    set_int(L, "state", g->state);
    set_int(L, "have_ext", g->have_ext);
    if (g->have_ext != 1)
        return;
    set_int(L, "unknown_1", g->unknown_1);
    set_vec3(L, "velocity", g->velocity);
    set_int(L, "unknown_2", g->unknown_2);
    set_int(L, "unknown_3", g->unknown_3);
    set_int(L, "jetpack_energy", g->jetpack_energy);
    set_int(L, "ground_time", g->ground_time);
    set_int(L, "time_since_last_jump", g->time_since_last_jump);
    set_int(L, "have_collision", g->have_collision);
    if (g->have_collision) {
        set_int(L, "arrow_count", g->arrow_count);
        set_int(L, "float_count", g->float_count);
        lua_createtable(L, g->arrow_count, 0);
        for (unsigned i = 0; i < g->arrow_count; i++) {
            float o[3], dir[3];
            vp_dm_arrow_at(d, g, i, o, dir);
            lua_createtable(L, 0, 2);
            set_vec3(L, "origin", o);
            set_vec3(L, "direction", dir);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        lua_setfield(L, -2, "arrows");
        lua_createtable(L, g->float_count, 0);
        for (unsigned i = 0; i < g->float_count; i++) {
            lua_pushnumber(L, vp_dm_float_at(d, g, i));
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        lua_setfield(L, -2, "floats");
    }
    set_vec3(L, "unknown_4", g->unknown_4);
    set_vec3(L, "unknown_5", g->unknown_5);
    set_int(L, "unknown_6", g->unknown_6);
}

/* Group iterator. Upvalues: record, state {off, bit (next to look at),
 * index}. */
typedef struct group_state {
    uint64_t off;
    unsigned bit, index;
} group_state;

static int group_iter(lua_State *L)
{
    vp_dm *d;
    vp_dm_record *r = record_check(L, lua_upvalueindex(1), &d);
    group_state *s = lua_touserdata(L, lua_upvalueindex(2));
    while (s->bit < VP_DM_GROUP_BITS && !((r->bitfield >> s->bit) & 1))
        s->bit++;
    if (s->bit >= VP_DM_GROUP_BITS)
        return 0;
    vp_dm_group g;
    vp_error err;
    if (vp_dm_group_at(d, s->off, s->bit, &g, &err) != VP_OK) {
        vp_lchild_pushcap(L, lua_upvalueindex(1));
        return raise_at(L, lua_gettop(L), &err);
    }
    push_group(L, d, &g, s->index);
    s->off += g.size;
    s->bit++;
    s->index++;
    return 1;
}

static int record_groups(lua_State *L)
{
    vp_dm *d;
    vp_dm_record *r = record_check(L, 1, &d);
    lua_pushvalue(L, 1);
    group_state *s = lua_newuserdatauv(L, sizeof *s, 0);
    s->off = r->groups_off;
    s->bit = 0;
    s->index = 0;
    lua_pushcclosure(L, group_iter, 2);
    return 1;
}

/* Every group of the record: a list in bit order (as_map: keyed by bit). */
static void push_groups(lua_State *L, const vp_dm *d, const vp_dm_record *r, int by_bit)
{
    lua_createtable(L, by_bit ? 0 : (int)r->group_count, by_bit ? (int)r->group_count : 0);
    uint64_t off = r->groups_off;
    unsigned index = 0;
    for (unsigned b = 0; b < VP_DM_GROUP_BITS; b++) {
        if (!((r->bitfield >> b) & 1))
            continue;
        vp_dm_group g;
        vp_error err;
        if (vp_dm_group_at(d, off, b, &g, &err) != VP_OK)
            luaL_error(L, "%s", err.msg);
        push_group(L, d, &g, index);
        lua_rawseti(L, -2, by_bit ? (lua_Integer)b : (lua_Integer)index + 1);
        off += g.size;
        index++;
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
    uint64_t off = r->groups_off;
    unsigned index = 0;
    for (unsigned b = 0; b < VP_DM_GROUP_BITS; b++) {
        if (!((r->bitfield >> b) & 1))
            continue;
        vp_dm_group g;
        vp_error err;
        if (vp_dm_group_at(d, off, b, &g, &err) != VP_OK)
            return luaL_error(L, "%s", err.msg);
        if ((lua_Integer)b == want) {
            push_group(L, d, &g, index);
            return 1;
        }
        off += g.size;
        index++;
    }
    lua_pushnil(L);
    return 1;
}

static int record_group_list(lua_State *L)
{
    vp_dm *d;
    vp_dm_record *r = record_check(L, 1, &d);
    push_groups(L, d, r, 0);
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
    else if (strcmp(k, "have_data") == 0)
        lua_pushinteger(L, r->have_data);
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
    static const char *const keys[] = {"index",     "slot",     "offset",      "size", "have_data",
                                       "time",      "bitfield", "group_count", "bits", NULL};
    lua_settop(L, 1);
    lua_createtable(L, 0, 10);
    for (int i = 0; keys[i]; i++) {
        lua_pushcfunction(L, record_get);
        lua_pushvalue(L, 1);
        lua_pushstring(L, keys[i]);
        lua_call(L, 2, 1);
        lua_setfield(L, 2, keys[i]);
    }
    push_groups(L, d, r, 0);
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
    vp_dm_record *a = luaL_testudata(L, 1, DM_RECORD_T);
    vp_dm_record *b = luaL_testudata(L, 2, DM_RECORD_T);
    lua_pushboolean(L, a && b && a->off == b->off);
    return 1;
}

/* ---- writer ------------------------------------------------------------ */

typedef struct dm_lwriter {
    vp_dm_writer *w;
} dm_lwriter;

static dm_lwriter *writer_check(lua_State *L)
{
    dm_lwriter *lw = luaL_checkudata(L, 1, DM_WRITER_T);
    if (!lw->w)
        luaL_error(L, "dm writer is closed");
    return lw;
}

static int key_in(const char *k, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(k, list[i]) == 0)
            return 1;
    return 0;
}

/* Raise on a string key of table idx not in `allowed` (typos in tests must
 * not write defaults silently). Non-string keys are the caller's business. */
static void check_keys(lua_State *L, int idx, const char *what, const char *const *allowed)
{
    idx = lua_absindex(L, idx);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING || !key_in(lua_tostring(L, -1), allowed)) {
            const char *k = luaL_tolstring(L, -1, NULL);
            luaL_error(L, "%s: unknown field '%s'", what, k);
        }
    }
}

static int has_any(lua_State *L, int idx, const char *const *keys)
{
    for (int i = 0; keys[i]; i++) {
        int t = lua_getfield(L, idx, keys[i]);
        lua_pop(L, 1);
        if (t != LUA_TNIL)
            return 1;
    }
    return 0;
}

static lua_Integer int_field(lua_State *L, int idx, const char *k, lua_Integer def,
                             lua_Integer lo, lua_Integer hi, const char *what)
{
    lua_getfield(L, idx, k);
    lua_Integer v = def;
    if (!lua_isnil(L, -1)) {
        int ok;
        v = lua_tointegerx(L, -1, &ok);
        if (!ok)
            luaL_error(L, "%s: field '%s' must be an integer", what, k);
        if (v < lo || v > hi)
            luaL_error(L, "%s: field '%s' = %I is out of range", what, k, v);
    }
    lua_pop(L, 1);
    return v;
}

/* {x=, y=, z=[, w=]} or {a, b, c[, d]} at the top of the stack. */
static void vec_top(lua_State *L, float *v, int n, const char *what, const char *k)
{
    static const char *const names[] = {"x", "y", "z", "w"};
    if (!lua_istable(L, -1))
        luaL_error(L, "%s: field '%s' must be a vector table {x=, y=, z=}", what, k);
    for (int i = 0; i < n; i++) {
        if (lua_getfield(L, -1, names[i]) == LUA_TNIL) {
            lua_pop(L, 1);
            lua_rawgeti(L, -1, i + 1);
        }
        int ok = 1;
        v[i] = lua_isnil(L, -1) ? 0.0f : (float)lua_tonumberx(L, -1, &ok);
        if (!ok)
            luaL_error(L, "%s: field '%s.%s' must be a number", what, k, names[i]);
        lua_pop(L, 1);
    }
}

static void vec_field(lua_State *L, int idx, const char *k, float *v, int n, const char *what)
{
    lua_getfield(L, idx, k);
    if (lua_isnil(L, -1))
        memset(v, 0, (size_t)n * sizeof *v);
    else
        vec_top(L, v, n, what, k);
    lua_pop(L, 1);
}

static void *anchored(lua_State *L, int anchor, size_t n)
{
    void *p = lua_newuserdatauv(L, n ? n : 1, 0);
    lua_rawseti(L, anchor, (lua_Integer)lua_rawlen(L, anchor) + 1);
    return p;
}

static void group_from_table(lua_State *L, int idx, vp_dm_wgroup *g, int anchor)
{
    static const char *const base_keys[] = {
        "short_time", "position", "orientation", "direction", "state", "have_ext", NULL};
    static const char *const ext_keys[] = {
        "unknown_1",  "velocity",  "unknown_2", "unknown_3", "jetpack_energy",
        "ground_time", "time_since_last_jump", "have_collision", "arrows", "arrow_count",
        "floats",     "float_count", "unknown_4", "unknown_5", "unknown_6", NULL};
    static const char *const coll_keys[] = {"arrows", "arrow_count", "floats", "float_count",
                                            NULL};
    static const char *const read_keys[] = {"bit", "index", "offset", "size", NULL};
    const char *what = "dm group";
    idx = lua_absindex(L, idx);
    if (!lua_istable(L, idx))
        luaL_error(L, "%s must be a table", what);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
        if (!k || !(key_in(k, base_keys) || key_in(k, ext_keys) || key_in(k, read_keys)))
            luaL_error(L, "%s: unknown field '%s'", what, luaL_tolstring(L, -1, NULL));
    }
    vp_dm_wgroup_init(g);
    g->short_time = (uint16_t)int_field(L, idx, "short_time", 0, 0, UINT16_MAX, what);
    vec_field(L, idx, "position", g->position, 3, what);
    vec_field(L, idx, "orientation", g->orientation, 4, what);
    vec_field(L, idx, "direction", g->direction, 3, what);
    g->state = (uint16_t)int_field(L, idx, "state", 0, 0, UINT16_MAX, what);
    g->have_ext = (uint8_t)int_field(L, idx, "have_ext", has_any(L, idx, ext_keys), 0, 255, what);
    if (g->have_ext != 1)
        return;
    g->unknown_1 = (uint16_t)int_field(L, idx, "unknown_1", 0, 0, UINT16_MAX, what);
    vec_field(L, idx, "velocity", g->velocity, 3, what);
    g->unknown_2 = (uint8_t)int_field(L, idx, "unknown_2", 0, 0, 255, what);
    g->unknown_3 = (uint8_t)int_field(L, idx, "unknown_3", 0, 0, 255, what);
    g->jetpack_energy = (uint16_t)int_field(L, idx, "jetpack_energy", 0, 0, UINT16_MAX, what);
    g->ground_time = (int16_t)int_field(L, idx, "ground_time", 0, INT16_MIN, INT16_MAX, what);
    g->time_since_last_jump =
        (int16_t)int_field(L, idx, "time_since_last_jump", 0, INT16_MIN, INT16_MAX, what);
    g->have_collision = (uint8_t)int_field(L, idx, "have_collision",
                                           has_any(L, idx, coll_keys), 0, 255, what);
    if (g->have_collision) {
        lua_getfield(L, idx, "arrows");
        size_t n = lua_istable(L, -1) ? lua_rawlen(L, -1) : 0;
        if (n > 255)
            luaL_error(L, "%s: at most 255 arrows (u8 count)", what);
        float *a = anchored(L, anchor, n * 6 * sizeof *a);
        for (size_t i = 0; i < n; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i + 1);
            if (!lua_istable(L, -1))
                luaL_error(L, "%s: arrow %d must be {origin=, direction=}", what, (int)i + 1);
            int at = lua_gettop(L);
            vec_field(L, at, "origin", a + i * 6, 3, what);
            vec_field(L, at, "direction", a + i * 6 + 3, 3, what);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        g->arrows = a;
        g->narrows = n;
        lua_getfield(L, idx, "floats");
        n = lua_istable(L, -1) ? lua_rawlen(L, -1) : 0;
        if (n > 255)
            luaL_error(L, "%s: at most 255 floats (u8 count)", what);
        float *f = anchored(L, anchor, n * sizeof *f);
        for (size_t i = 0; i < n; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i + 1);
            int ok;
            f[i] = (float)lua_tonumberx(L, -1, &ok);
            if (!ok)
                luaL_error(L, "%s: float %d must be a number", what, (int)i + 1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        g->floats = f;
        g->nfloats = n;
        g->arrow_count = (int)int_field(L, idx, "arrow_count", -1, -1, 255, what);
        g->float_count = (int)int_field(L, idx, "float_count", -1, -1, 255, what);
    }
    vec_field(L, idx, "unknown_4", g->unknown_4, 3, what);
    vec_field(L, idx, "unknown_5", g->unknown_5, 3, what);
    g->unknown_6 = (uint8_t)int_field(L, idx, "unknown_6", 0, 0, 255, what);
}

/* w:record{time=, groups={[bit]=group}, bitfield=, have_data=} -> offset */
static int writer_record(lua_State *L)
{
    static const char *const keys[] = {"time", "groups", "bitfield", "have_data", NULL};
    dm_lwriter *lw = writer_check(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    check_keys(L, 2, "w:record", keys);
    lua_settop(L, 2);
    lua_newtable(L); /* 3: anchor */
    vp_dm_wrecord r;
    memset(&r, 0, sizeof r);
    const char *what = "w:record";
    r.have_data = (uint8_t)int_field(L, 2, "have_data", 1, 0, 255, what);
    r.time = (uint32_t)int_field(L, 2, "time", 0, 0, UINT32_MAX, what);
    lua_getfield(L, 2, "groups");
    int gi = lua_gettop(L);
    uint32_t bits = 0;
    vp_dm_wgroup *gs = anchored(L, 3, 32 * sizeof *gs);
    size_t n = 0;
    if (!lua_isnil(L, gi)) {
        if (!lua_istable(L, gi))
            luaL_error(L, "w:record: groups must be a table {[bit] = group}");
        lua_pushnil(L);
        while (lua_next(L, gi)) {
            lua_pop(L, 1);
            int ok;
            lua_Integer b = lua_tointegerx(L, -1, &ok);
            if (!ok || lua_type(L, -1) != LUA_TNUMBER || b < 0 || b >= VP_DM_GROUP_BITS)
                luaL_error(L, "w:record: groups are keyed by bit 0..19 (use bitfield= to set "
                              "other bits)");
        }
        for (int b = 0; b < VP_DM_GROUP_BITS; b++) {
            lua_rawgeti(L, gi, b);
            if (!lua_isnil(L, -1)) {
                group_from_table(L, -1, &gs[n++], 3);
                bits |= 1u << b;
            }
            lua_pop(L, 1);
        }
    }
    r.bitfield = (uint32_t)int_field(L, 2, "bitfield", bits, 0, UINT32_MAX, what);
    r.groups = gs;
    r.ngroups = n;
    uint64_t off = vp_dm_writer_offset(lw->w);
    vp_error err;
    if (vp_dm_writer_record(lw->w, &r, &err) != VP_OK)
        return luaL_error(L, "w:record: %s", err.msg);
    lua_pushinteger(L, (lua_Integer)off);
    return 1;
}

static int writer_empty(lua_State *L)
{
    dm_lwriter *lw = writer_check(L);
    uint64_t off = vp_dm_writer_offset(lw->w);
    vp_error err;
    if (vp_dm_writer_empty(lw->w, &err) != VP_OK)
        return luaL_error(L, "w:empty: %s", err.msg);
    lua_pushinteger(L, (lua_Integer)off);
    return 1;
}

static int writer_raw(lua_State *L)
{
    dm_lwriter *lw = writer_check(L);
    size_t n;
    const char *s = luaL_checklstring(L, 2, &n);
    uint64_t off = vp_dm_writer_offset(lw->w);
    vp_error err;
    if (vp_dm_writer_raw(lw->w, s, n, &err) != VP_OK)
        return luaL_error(L, "w:raw: %s", err.msg);
    lua_pushinteger(L, (lua_Integer)off);
    return 1;
}

static int writer_tell(lua_State *L)
{
    dm_lwriter *lw = writer_check(L);
    lua_pushinteger(L, (lua_Integer)vp_dm_writer_offset(lw->w));
    return 1;
}

static int writer_count(lua_State *L)
{
    dm_lwriter *lw = writer_check(L);
    lua_pushinteger(L, (lua_Integer)vp_dm_writer_records(lw->w));
    return 1;
}

/* w:close{terminate = true, trailing = "bytes"} -> file size */
static int writer_close(lua_State *L)
{
    static const char *const keys[] = {"terminate", "trailing", NULL};
    dm_lwriter *lw = luaL_checkudata(L, 1, DM_WRITER_T);
    if (!lw->w)
        return 0;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        check_keys(L, 2, "w:close", keys);
    }
    int terminate = vp_l_opt_bool(L, 2, "terminate", 1);
    size_t ntrail = 0;
    const char *trail = NULL;
    if (lua_istable(L, 2)) {
        lua_getfield(L, 2, "trailing");
        trail = lua_tolstring(L, -1, &ntrail);
    }
    vp_dm_writer *w = lw->w;
    lw->w = NULL;
    uint64_t bytes = 0;
    vp_error err;
    if (vp_dm_writer_close(w, terminate, trail, trail ? ntrail : 0, &bytes, &err) != VP_OK)
        return luaL_error(L, "w:close: %s", err.msg);
    lua_pushinteger(L, (lua_Integer)bytes);
    return 1;
}

static int writer_gc(lua_State *L)
{
    dm_lwriter *lw = luaL_checkudata(L, 1, DM_WRITER_T);
    if (lw->w) {
        vp_error err;
        vp_dm_writer *w = lw->w;
        lw->w = NULL;
        vp_dm_writer_close(w, 1, NULL, 0, NULL, &err);
    }
    return 0;
}

static int writer_tostring(lua_State *L)
{
    dm_lwriter *lw = luaL_checkudata(L, 1, DM_WRITER_T);
    if (!lw->w)
        lua_pushliteral(L, "<dm writer (closed)>");
    else
        lua_pushfstring(L, "<dm writer: %d records>", (int)vp_dm_writer_records(lw->w));
    return 1;
}

int vp_l_writer_dm(lua_State *L, const char *path, int opts)
{
    if (lua_istable(L, opts)) {
        static const char *const none[] = {NULL};
        check_keys(L, opts, "vp.writer dm options", none);
    }
    vp_error err;
    vp_dm_writer *w = vp_dm_writer_open(path, &err);
    if (!w)
        return luaL_error(L, "vp.writer: %s", err.msg);
    dm_lwriter *lw = lua_newuserdatauv(L, sizeof *lw, 0);
    lw->w = w;
    luaL_setmetatable(L, DM_WRITER_T);
    return 1;
}

void vp_l_register_dm(lua_State *L)
{
    static const luaL_Reg cap_meta[] = {{"__gc", dm_close},
                                        {"__close", dm_close},
                                        {"__tostring", dm_tostring},
                                        {"__len", dm_len},
                                        {NULL, NULL}};
    static const luaL_Reg cap_methods[] = {{"records", dm_records}, {"slots", dm_slots},
                                           {"record", dm_record},   {"summary", dm_summary},
                                           {"close", dm_close},     {NULL, NULL}};
    vp_l_class(L, DM_T, cap_meta, cap_methods, NULL);

    static const luaL_Reg rec_meta[] = {
        {"__tostring", record_tostring}, {"__eq", record_eq}, {NULL, NULL}};
    static const luaL_Reg rec_methods[] = {{"groups", record_groups},
                                           {"group", record_group},
                                           {"group_list", record_group_list},
                                           {"totable", record_totable},
                                           {NULL, NULL}};
    vp_l_class(L, DM_RECORD_T, rec_meta, rec_methods, record_get);

    static const luaL_Reg w_meta[] = {{"__gc", writer_gc},
                                      {"__close", writer_gc},
                                      {"__tostring", writer_tostring},
                                      {NULL, NULL}};
    static const luaL_Reg w_methods[] = {{"record", writer_record}, {"empty", writer_empty},
                                         {"raw", writer_raw},       {"tell", writer_tell},
                                         {"count", writer_count},   {"close", writer_close},
                                         {NULL, NULL}};
    vp_l_class(L, DM_WRITER_T, w_meta, w_methods, NULL);
}
