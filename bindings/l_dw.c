/* Lua binding of the weapon trace (.dw): the capture, its traces (child
 * userdata decoded on access from the mapped file), hits as plain tables
 * built when iterated, and the writer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/dw.h"
#include "write/dw_write.h"
#include "l_common.h"
#include "l_formats.h"

#define DW_T "vp.dw"
#define DW_TRACE_T "vp.dw.trace"
#define DW_WRITER_T "vp.dw.writer"

static vp_dw *dw_check(lua_State *L, int idx)
{
    return vp_lcap_check(L, idx, DW_T)->model;
}

static void dw_free(void *m)
{
    vp_dw_free(m);
}

static void push_guid_fields(lua_State *L, uint64_t guid)
{
    lua_pushinteger(L, (lua_Integer)guid);
    lua_setfield(L, -2, "guid");
    lua_pushinteger(L, (lua_Integer)(guid >> 8));
    lua_setfield(L, -2, "entity_id");
    lua_pushinteger(L, (lua_Integer)(guid & 0xff));
    lua_setfield(L, -2, "controller");
}

static void set_bytes(lua_State *L, const char *k, const uint8_t *p, size_t n)
{
    lua_pushlstring(L, (const char *)p, n);
    lua_setfield(L, -2, k);
}

static void set_num(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

static void push_type_name(lua_State *L, unsigned type)
{
    const char *name = vp_dw_hit_type_name(type);
    if (name)
        lua_pushstring(L, name);
    else
        lua_pushfstring(L, "unknown_%d", (int)type);
}

/* ---- capture ----------------------------------------------------------- */

static int dw_close(lua_State *L)
{
    vp_lcap_close(luaL_checkudata(L, 1, DW_T));
    return 0;
}

static int dw_tostring(lua_State *L)
{
    vp_lcap *c = luaL_checkudata(L, 1, DW_T);
    const char *base = vp_lcap_basename(L, 1);
    if (!c->model) {
        lua_pushfstring(L, "<dw %s: closed>", base);
        return 1;
    }
    vp_dw *d = c->model;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, "<dw ");
    luaL_addstring(&b, base);
    luaL_addstring(&b, ": ");
    vp_l_push_count(L, d->trace_count);
    luaL_addvalue(&b);
    luaL_addstring(&b, d->trace_count == 1 ? " trace, " : " traces, ");
    vp_l_push_count(L, d->slot_count);
    luaL_addvalue(&b);
    luaL_addstring(&b, " slots, ");
    vp_l_push_count(L, d->client_hits);
    luaL_addvalue(&b);
    luaL_addstring(&b, " client / ");
    vp_l_push_count(L, d->server_hits);
    luaL_addvalue(&b);
    luaL_addstring(&b, " server hits");
    if (d->truncated)
        luaL_addstring(&b, ", truncated");
    luaL_addstring(&b, ">");
    luaL_pushresult(&b);
    return 1;
}

static int dw_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)dw_check(L, 1)->trace_count);
    return 1;
}

/* New trace child for t; the capture is at cap_idx. */
static void push_trace(lua_State *L, const vp_dw_trace *t, int cap_idx)
{
    vp_dw_trace *u = vp_lchild_new(L, sizeof *u, DW_TRACE_T, cap_idx);
    *u = *t;
}

/* Iterator over slots. Upvalues: capture, state userdata (vp_dw_iter),
 * mode (true: every slot as `index, trace|false`; false: traces only). */
static int dw_iter(lua_State *L)
{
    vp_dw *d = dw_check(L, lua_upvalueindex(1));
    vp_dw_iter *it = lua_touserdata(L, lua_upvalueindex(2));
    int all = lua_toboolean(L, lua_upvalueindex(3));
    vp_dw_trace t;
    vp_error err;
    for (;;) {
        int r = vp_dw_iter_next(d, it, &t, &err);
        if (r < 0)
            return vp_lcap_raise(L, lua_upvalueindex(1), &err);
        if (r == 0)
            return 0;
        if (all) {
            lua_pushinteger(L, (lua_Integer)t.slot + 1);
            if (t.used) {
                lua_pushvalue(L, lua_upvalueindex(1));
                push_trace(L, &t, -1);
                lua_remove(L, -2);
            } else {
                lua_pushboolean(L, 0);
            }
            return 2;
        }
        if (t.used) {
            lua_pushvalue(L, lua_upvalueindex(1));
            push_trace(L, &t, -1);
            lua_remove(L, -2);
            return 1;
        }
    }
}

static int push_iter(lua_State *L, int all, uint64_t first_trace)
{
    vp_dw *d = dw_check(L, 1);
    lua_pushvalue(L, 1);
    vp_dw_iter *it = lua_newuserdatauv(L, sizeof *it, 0);
    if (first_trace)
        vp_dw_iter_seek_trace(d, it, first_trace); /* past the end: exhausted */
    else
        vp_dw_iter_begin(d, it);
    lua_pushboolean(L, all);
    lua_pushcclosure(L, dw_iter, 3);
    return 1;
}

/* cap:traces([i]) -> iterator over traces, from the i-th (1-based). */
static int dw_traces(lua_State *L)
{
    dw_check(L, 1);
    lua_Integer i = luaL_optinteger(L, 2, 1);
    luaL_argcheck(L, i >= 1, 2, "trace numbers start at 1");
    return push_iter(L, 0, (uint64_t)i - 1);
}

static int dw_slots(lua_State *L)
{
    return push_iter(L, 1, 0);
}

/* cap:trace(i) -> trace (1-based), nil past the end. */
static int dw_trace(lua_State *L)
{
    vp_dw *d = dw_check(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    if (i < 1 || (uint64_t)i > d->trace_count) {
        lua_pushnil(L);
        return 1;
    }
    vp_dw_iter it;
    vp_dw_iter_seek_trace(d, &it, (uint64_t)i - 1);
    vp_dw_trace t;
    vp_error err;
    int n = vp_dw_iter_next(d, &it, &t, &err);
    if (n <= 0 || !t.used) {
        if (n >= 0)
            vp_fail(&err, VP_EFORMAT, UINT64_MAX, "trace %d could not be found again", (int)i);
        return vp_lcap_raise(L, 1, &err);
    }
    push_trace(L, &t, 1);
    return 1;
}

static void push_header_hex(lua_State *L, const uint8_t h[4])
{
    char hex[12];
    snprintf(hex, sizeof hex, "%02x %02x %02x %02x", h[0], h[1], h[2], h[3]);
    lua_pushstring(L, hex);
}

static int dw_summary(lua_State *L)
{
    vp_dw *d = dw_check(L, 1);
    lua_newtable(L);
    int list = lua_gettop(L);
    push_header_hex(L, d->header);
    vp_l_row_add(L, list, "header");
    lua_pushinteger(L, d->max_size);
    vp_l_row_add(L, list, "max_size");
    lua_pushinteger(L, (lua_Integer)d->slot_count);
    vp_l_row_add(L, list, "slots");
    lua_pushinteger(L, (lua_Integer)d->trace_count);
    vp_l_row_add(L, list, "traces");
    lua_pushinteger(L, (lua_Integer)d->empty_slots);
    vp_l_row_add(L, list, "empty slots");
    lua_pushinteger(L, (lua_Integer)d->client_hits);
    vp_l_row_add(L, list, "client hits");
    lua_pushinteger(L, (lua_Integer)d->server_hits);
    vp_l_row_add(L, list, "server hits");
    lua_pushinteger(L, (lua_Integer)d->movement_blocks);
    vp_l_row_add(L, list, "movement blocks");
    if (d->have_footer) {
        lua_pushinteger(L, d->last_trace_counter);
        vp_l_row_add(L, list, "last trace counter");
        lua_pushboolean(L, d->last_trace_counter < d->trace_count);
        vp_l_row_add(L, list, "counter wrapped");
    } else {
        lua_pushliteral(L, "missing");
        vp_l_row_add(L, list, "last trace counter");
    }
    lua_pushboolean(L, d->truncated);
    vp_l_row_add(L, list, "truncated");
    return 1;
}

/* Plain fields of the capture, set once at open. */
static void dw_set_fields(lua_State *L, int capidx, const vp_dw *d)
{
    lua_pushlstring(L, (const char *)d->header, 4);
    vp_lcap_setfield(L, capidx, "header");
    lua_createtable(L, 4, 0);
    for (int i = 0; i < 4; i++) {
        lua_pushinteger(L, d->header[i]);
        lua_rawseti(L, -2, i + 1);
    }
    vp_lcap_setfield(L, capidx, "header_bytes");
    lua_pushinteger(L, (lua_Integer)((uint32_t)d->header[0] | (uint32_t)d->header[1] << 8 |
                                     (uint32_t)d->header[2] << 16 | (uint32_t)d->header[3] << 24));
    vp_lcap_setfield(L, capidx, "header_u32");
    lua_pushinteger(L, d->max_size);
    vp_lcap_setfield(L, capidx, "max_size");
    if (d->have_footer) {
        lua_pushinteger(L, d->last_trace_counter);
        vp_lcap_setfield(L, capidx, "last_trace_counter");
    }
    lua_pushboolean(L, d->have_footer);
    vp_lcap_setfield(L, capidx, "has_footer");
    /* The counter counts every trace recorded; each used slot was recorded
     * at least once, so a counter below the used slots has wrapped. */
    lua_pushboolean(L, d->have_footer && d->last_trace_counter < d->trace_count);
    vp_lcap_setfield(L, capidx, "wrapped");
    lua_pushboolean(L, d->truncated);
    vp_lcap_setfield(L, capidx, "truncated");
    lua_pushinteger(L, (lua_Integer)d->trace_count);
    vp_lcap_setfield(L, capidx, "trace_count");
    lua_pushinteger(L, (lua_Integer)d->slot_count);
    vp_lcap_setfield(L, capidx, "slot_count");
    lua_pushinteger(L, (lua_Integer)d->empty_slots);
    vp_lcap_setfield(L, capidx, "empty_slots");
    lua_pushinteger(L, (lua_Integer)d->client_hits);
    vp_lcap_setfield(L, capidx, "client_hit_count");
    lua_pushinteger(L, (lua_Integer)d->server_hits);
    vp_lcap_setfield(L, capidx, "server_hit_count");
    lua_pushinteger(L, (lua_Integer)d->movement_blocks);
    vp_lcap_setfield(L, capidx, "movement_count");
    lua_createtable(L, 0, VP_DW_HIT_TYPES);
    for (unsigned k = 0; k < VP_DW_HIT_TYPES; k++) {
        lua_pushinteger(L, (lua_Integer)d->hits_by_type[k]);
        lua_setfield(L, -2, vp_dw_hit_type_name(k));
    }
    if (d->hits_by_type[VP_DW_HIT_TYPES]) {
        lua_pushinteger(L, (lua_Integer)d->hits_by_type[VP_DW_HIT_TYPES]);
        lua_setfield(L, -2, "unknown");
    }
    vp_lcap_setfield(L, capidx, "hits_by_type");
    lua_pushinteger(L, (lua_Integer)d->slots_end);
    vp_lcap_setfield(L, capidx, "slots_end");
}

int vp_l_open_dw(lua_State *L, const char *path, int opts)
{
    vp_open_opts o;
    vp_l_open_opts(L, opts, &o);
    vp_dw *d;
    vp_error err;
    if (vp_dw_open(path, &o, &d, &err) != VP_OK)
        return vp_l_fail(L, path, &err);
    vp_lcap_new(L, DW_T, d, dw_free, "dw", path, d->map.size, &d->warnings);
    dw_set_fields(L, lua_gettop(L), d);
    return 1;
}

/* ---- trace ------------------------------------------------------------- */

static vp_dw_trace *trace_check(lua_State *L, int idx, vp_dw **d)
{
    void *m;
    vp_dw_trace *t = vp_lchild_check(L, idx, DW_TRACE_T, &m);
    *d = m;
    return t;
}

static void push_movement(lua_State *L, const vp_dw *d, uint64_t off)
{
    vp_dw_movement m;
    vp_dw_movement_at(d, off, &m);
    lua_createtable(L, 0, 20);
    vp_l_set_int(L, "offset", (lua_Integer)off);
    set_bytes(L, "unknown_00", m.unknown_00, 4);
    vp_l_set_vec3(L, "ray_start", m.ray_start);
    vp_l_set_vec3(L, "ray_end", m.ray_end);
    set_num(L, "weapon_range", m.weapon_range);
    vp_l_set_int(L, "unknown_20", m.unknown_20);
    set_bytes(L, "unknown_22", m.unknown_22, sizeof m.unknown_22);
    set_bytes(L, "unknown_44", m.unknown_44, sizeof m.unknown_44);
    vp_l_set_int(L, "bullet", m.bullet);
    set_bytes(L, "unknown_49", m.unknown_49, sizeof m.unknown_49);
    vp_l_set_vec3(L, "unknown_4c", m.unknown_4c);
    vp_l_set_int(L, "damage_per_round", m.damage_per_round);
    set_bytes(L, "unknown_5c", m.unknown_5c, sizeof m.unknown_5c);
    vp_l_set_vec3(L, "unknown_68", m.unknown_68);
    vp_l_set_int(L, "weapon_template_id", m.weapon_template_id);
    vp_l_set_int(L, "slot_index", m.slot_index);
    set_bytes(L, "unknown_79", m.unknown_79, sizeof m.unknown_79);
}

static void push_hit(lua_State *L, const vp_dw *d, const vp_dw_hit *h, const char *side,
                     unsigned index)
{
    lua_createtable(L, 0, 18);
    lua_pushstring(L, side);
    lua_setfield(L, -2, "side");
    vp_l_set_int(L, "index", (lua_Integer)index + 1);
    vp_l_set_int(L, "offset", (lua_Integer)h->off);
    vp_l_set_int(L, "type", h->type);
    push_type_name(L, h->type);
    lua_setfield(L, -2, "type_name");
    vp_l_set_int(L, "trace_id", h->trace_id);
    vp_l_set_int(L, "time", h->time);
    vp_l_set_int(L, "unknown_09", h->unknown_09);
    vp_l_set_vec3(L, "position", h->position);
    vp_l_set_vec3(L, "direction", h->direction);
    vp_l_set_int(L, "physics_material", h->physics_material);
    vp_l_set_int(L, "have_entity", h->have_entity);
    if (h->have_entity) {
        lua_createtable(L, 0, 7);
        push_guid_fields(L, h->entity.guid);
        vp_l_set_vec3(L, "position", h->entity.position);
        vp_l_push_vec(L, h->entity.rotation, &h->entity.rotation[3]);
        lua_setfield(L, -2, "rotation");
        vp_l_set_int(L, "unknown_24", h->entity.unknown_24);
        vp_l_set_int(L, "unknown_25", h->entity.unknown_25);
        lua_setfield(L, -2, "entity");
    }
    vp_l_set_int(L, "have_ragdoll", h->have_ragdoll);
    if (h->have_ragdoll) {
        lua_createtable(L, 0, 5);
        push_guid_fields(L, h->ragdoll_guid);
        vp_l_set_int(L, "count", h->ragdoll_count);
        lua_createtable(L, h->ragdoll_count, 0);
        for (unsigned i = 0; i < h->ragdoll_count; i++) {
            float m[16];
            vp_dw_matrix_at(d, h, i, m);
            lua_createtable(L, 4, 0);
            for (int r = 0; r < 4; r++) {
                lua_createtable(L, 4, 0);
                for (int k = 0; k < 4; k++) {
                    lua_pushnumber(L, m[r * 4 + k]);
                    lua_rawseti(L, -2, k + 1);
                }
                lua_rawseti(L, -2, r + 1);
            }
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        lua_setfield(L, -2, "transforms");
        lua_setfield(L, -2, "ragdoll");
    }
}

/* Hit iterator. Upvalues: trace userdata, state userdata. The state walks
 * the client list, then (for "both") the server list. */
typedef struct hit_state {
    uint64_t off;
    unsigned i, n;
    int side;      /* 0 client, 1 server */
    int both;      /* continue with the server list after the client one */
} hit_state;

static int hit_iter(lua_State *L)
{
    vp_dw *d;
    vp_dw_trace *t = trace_check(L, lua_upvalueindex(1), &d);
    hit_state *s = lua_touserdata(L, lua_upvalueindex(2));
    while (s->i >= s->n) {
        if (!s->both || s->side == 1)
            return 0;
        s->side = 1;
        s->off = t->server_off;
        s->i = 0;
        s->n = t->server_count;
    }
    vp_dw_hit h;
    vp_error err;
    if (vp_dw_hit_at(d, s->off, &h, &err) != VP_OK) {
        vp_lchild_pushcap(L, lua_upvalueindex(1));
        return vp_lcap_raise(L, lua_gettop(L), &err);
    }
    push_hit(L, d, &h, s->side ? "server" : "client", s->i);
    s->off += h.size;
    s->i++;
    return 1;
}

static int push_hit_iter(lua_State *L, int side, int both)
{
    vp_dw *d;
    vp_dw_trace *t = trace_check(L, 1, &d);
    lua_pushvalue(L, 1);
    hit_state *s = lua_newuserdatauv(L, sizeof *s, 0);
    s->side = side;
    s->both = both;
    s->i = 0;
    s->off = side ? t->server_off : t->client_off;
    s->n = side ? t->server_count : t->client_count;
    lua_pushcclosure(L, hit_iter, 2);
    return 1;
}

static int trace_client_hits(lua_State *L)
{
    return push_hit_iter(L, 0, 0);
}

static int trace_server_hits(lua_State *L)
{
    return push_hit_iter(L, 1, 0);
}

static int trace_hits(lua_State *L)
{
    return push_hit_iter(L, 0, 1);
}

/* A list of one side's hits (a plain table). */
static void push_hit_list(lua_State *L, const vp_dw *d, uint64_t off, unsigned n, int side)
{
    lua_createtable(L, (int)n, 0);
    for (unsigned i = 0; i < n; i++) {
        vp_dw_hit h;
        vp_error err;
        if (vp_dw_hit_at(d, off, &h, &err) != VP_OK)
            luaL_error(L, "%s", err.msg);
        push_hit(L, d, &h, side ? "server" : "client", i);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
        off += h.size;
    }
}

static int trace_hit_list(lua_State *L)
{
    vp_dw *d;
    vp_dw_trace *t = trace_check(L, 1, &d);
    static const char *const sides[] = {"client", "server", NULL};
    int side = luaL_checkoption(L, 2, NULL, sides);
    push_hit_list(L, d, side ? t->server_off : t->client_off,
                  side ? t->server_count : t->client_count, side);
    return 1;
}

static int trace_get(lua_State *L);

/* Every field as a plain table (hits included), for printing and JSON. */
static int trace_totable(lua_State *L)
{
    vp_dw *d;
    vp_dw_trace *t = trace_check(L, 1, &d);
    static const char *const keys[] = {"index", "slot", "offset", "size", "used", "unknown_01",
                                       "trace_id", "ammo_type_id", "has_movement",
                                       "client_count", "server_count", NULL};
    lua_settop(L, 1);
    lua_createtable(L, 0, 14);
    vp_l_getter_fields(L, 1, trace_get, keys);
    if (t->movement_off) {
        push_movement(L, d, t->movement_off);
        lua_setfield(L, 2, "movement");
    }
    push_hit_list(L, d, t->client_off, t->client_count, 0);
    lua_setfield(L, 2, "client");
    push_hit_list(L, d, t->server_off, t->server_count, 1);
    lua_setfield(L, 2, "server");
    return 1;
}

static int trace_get(lua_State *L)
{
    vp_dw *d;
    vp_dw_trace *t = trace_check(L, 1, &d);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "trace_id") == 0)
        lua_pushinteger(L, t->trace_id);
    else if (strcmp(k, "ammo_type_id") == 0)
        lua_pushinteger(L, t->ammo_type_id);
    else if (strcmp(k, "index") == 0)
        lua_pushinteger(L, (lua_Integer)t->index + 1);
    else if (strcmp(k, "slot") == 0)
        lua_pushinteger(L, (lua_Integer)t->slot + 1);
    else if (strcmp(k, "offset") == 0)
        lua_pushinteger(L, (lua_Integer)t->off);
    else if (strcmp(k, "size") == 0)
        lua_pushinteger(L, (lua_Integer)t->size);
    else if (strcmp(k, "used") == 0)
        lua_pushinteger(L, t->used);
    else if (strcmp(k, "unknown_01") == 0)
        lua_pushinteger(L, t->unknown_01);
    else if (strcmp(k, "client_count") == 0)
        lua_pushinteger(L, t->client_count);
    else if (strcmp(k, "server_count") == 0)
        lua_pushinteger(L, t->server_count);
    else if (strcmp(k, "has_movement") == 0)
        lua_pushboolean(L, t->movement_off != 0);
    else if (strcmp(k, "movement") == 0) {
        if (t->movement_off)
            push_movement(L, d, t->movement_off);
        else
            lua_pushnil(L);
    } else
        lua_pushnil(L);
    return 1;
}

static int trace_tostring(lua_State *L)
{
    vp_dw *d;
    vp_dw_trace *t = trace_check(L, 1, &d);
    char buf[160];
    snprintf(buf, sizeof buf,
             "<dw trace %llu (slot %llu) id=0x%08x ammo=%u: %u client / %u server hits>",
             (unsigned long long)t->index + 1, (unsigned long long)t->slot + 1,
             (unsigned)t->trace_id, (unsigned)t->ammo_type_id, (unsigned)t->client_count,
             (unsigned)t->server_count);
    lua_pushstring(L, buf);
    return 1;
}

static int trace_eq(lua_State *L)
{
    vp_dw_trace *a = luaL_testudata(L, 1, DW_TRACE_T);
    vp_dw_trace *b = luaL_testudata(L, 2, DW_TRACE_T);
    lua_pushboolean(L, a && b && a->off == b->off);
    return 1;
}

/* ---- writer ------------------------------------------------------------ */

static vp_errcode dw_wclose(void *w, const char *path, uint64_t *bytes, vp_error *err)
{
    (void)path;
    return vp_dw_writer_close(w, 1, (uint32_t)vp_dw_writer_traces(w), bytes, err);
}

static uint64_t dw_wsize(void *w)
{
    return vp_dw_writer_bytes(w);
}

static vp_errcode dw_wraw(void *w, const void *p, size_t n, vp_error *err)
{
    return vp_dw_writer_raw(w, p, n, err);
}

static const vp_lwriter_ops dw_wops = {.tname = DW_WRITER_T,
                                       .name = "dw writer",
                                       .close = dw_wclose,
                                       .size = dw_wsize,
                                       .raw = dw_wraw};

static float num_field(lua_State *L, int idx, const char *k, const char *what)
{
    lua_getfield(L, idx, k);
    double v = 0;
    if (!lua_isnil(L, -1)) {
        int ok;
        v = lua_tonumberx(L, -1, &ok);
        if (!ok)
            luaL_error(L, "%s: field '%s' must be a number", what, k);
    }
    lua_pop(L, 1);
    return (float)v;
}

/* Unknown bytes: a string of at most n bytes, zero-padded. */
static void bytes_field(lua_State *L, int idx, const char *k, uint8_t *dst, size_t n,
                        const char *what)
{
    memset(dst, 0, n);
    lua_getfield(L, idx, k);
    if (!lua_isnil(L, -1)) {
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        if (!s || lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "%s: field '%s' must be a string of bytes", what, k);
        if (len > n)
            luaL_error(L, "%s: field '%s' holds %d bytes, at most %d fit", what, k, (int)len,
                       (int)n);
        memcpy(dst, s, len);
    }
    lua_pop(L, 1);
}

static uint64_t guid_of(lua_State *L, int idx, const char *what)
{
    lua_getfield(L, idx, "guid");
    int has_guid = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (has_guid)
        return (uint64_t)vp_l_int_field(L, idx, "guid", 0, LUA_MININTEGER, LUA_MAXINTEGER, what);
    uint64_t id = (uint64_t)vp_l_int_field(L, idx, "entity_id", 0, 0, (lua_Integer)1 << 56, what);
    uint64_t ctl = (uint64_t)vp_l_int_field(L, idx, "controller", 0, 0, 255, what);
    return id << 8 | ctl;
}

static int hit_type_of(lua_State *L, int idx, const char *what)
{
    lua_getfield(L, idx, "type");
    int t = 0;
    if (lua_type(L, -1) == LUA_TSTRING) {
        const char *s = lua_tostring(L, -1);
        t = -1;
        for (unsigned k = 0; k < VP_DW_HIT_TYPES; k++)
            if (strcmp(s, vp_dw_hit_type_name(k)) == 0)
                t = (int)k;
        if (t < 0)
            luaL_error(L, "%s: unknown hit type '%s'", what, s);
    } else if (!lua_isnil(L, -1)) {
        int ok;
        lua_Integer v = lua_tointegerx(L, -1, &ok);
        if (!ok || v < 0 || v > 255)
            luaL_error(L, "%s: field 'type' must be a hit type name or 0..255", what);
        t = (int)v;
    }
    lua_pop(L, 1);
    return t;
}

/* Read one hit table at idx into h (ragdoll floats anchored). */
static void hit_from_table(lua_State *L, int idx, vp_dw_whit *h, uint32_t trace_id, int anchor)
{
    static const char *const keys[] = {
        "type",        "type_name", "trace_id", "time",   "unknown_09",   "position",
        "direction",   "physics_material", "have_entity", "entity", "have_ragdoll", "ragdoll",
        "side",        "index",     "offset",   NULL};
    static const char *const ekeys[] = {"guid",     "entity_id",  "controller", "position",
                                        "rotation", "unknown_24", "unknown_25", NULL};
    static const char *const rkeys[] = {"guid", "entity_id", "controller", "count",
                                        "transforms", NULL};
    const char *what = "dw hit";
    idx = lua_absindex(L, idx);
    luaL_checktype(L, idx, LUA_TTABLE);
    vp_l_check_keys(L, idx, what, keys);
    vp_dw_whit_init(h);
    h->type = (uint8_t)hit_type_of(L, idx, what);
    h->trace_id = (uint32_t)vp_l_int_field(L, idx, "trace_id", trace_id, 0, UINT32_MAX, what);
    h->time = (uint32_t)vp_l_int_field(L, idx, "time", 0, 0, UINT32_MAX, what);
    h->unknown_09 = (uint16_t)vp_l_int_field(L, idx, "unknown_09", 0, 0, UINT16_MAX, what);
    vp_l_vec_field(L, idx, "position", h->position, 3, what);
    vp_l_vec_field(L, idx, "direction", h->direction, 3, what);
    h->physics_material =
        (uint32_t)vp_l_int_field(L, idx, "physics_material", 0, 0, UINT32_MAX, what);

    lua_getfield(L, idx, "entity");
    int has_entity = lua_istable(L, -1);
    if (has_entity) {
        int e = lua_gettop(L);
        vp_l_check_keys(L, e, "dw hit entity", ekeys);
        h->entity_guid = guid_of(L, e, "dw hit entity");
        vp_l_vec_field(L, e, "position", h->entity_position, 3, "dw hit entity");
        vp_l_vec_field(L, e, "rotation", h->entity_rotation, 4, "dw hit entity");
        h->entity_unknown_24 =
            (int8_t)vp_l_int_field(L, e, "unknown_24", 0, -128, 127, "dw hit entity");
        h->entity_unknown_25 =
            (uint8_t)vp_l_int_field(L, e, "unknown_25", 0, 0, 255, "dw hit entity");
    }
    lua_pop(L, 1);
    h->have_entity = (uint8_t)vp_l_int_field(L, idx, "have_entity", has_entity, 0, 255, what);

    lua_getfield(L, idx, "ragdoll");
    int has_ragdoll = lua_istable(L, -1);
    if (has_ragdoll) {
        int r = lua_gettop(L);
        vp_l_check_keys(L, r, "dw hit ragdoll", rkeys);
        h->ragdoll_guid = guid_of(L, r, "dw hit ragdoll");
        lua_getfield(L, r, "transforms");
        size_t n = lua_istable(L, -1) ? lua_rawlen(L, -1) : 0;
        if (n > 255)
            luaL_error(L, "dw hit ragdoll: at most 255 transforms (u8 count)");
        float *f = vp_l_anchored(L, anchor, n * 16 * sizeof *f);
        for (size_t i = 0; i < n; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i + 1);
            if (!lua_istable(L, -1))
                luaL_error(L, "dw hit ragdoll: transform %d must be a 4x4 table", (int)i + 1);
            int flat = lua_rawlen(L, -1) == 16;
            for (int k = 0; k < 16; k++) {
                if (flat) {
                    lua_rawgeti(L, -1, k + 1);
                } else {
                    lua_rawgeti(L, -1, k / 4 + 1);
                    if (!lua_istable(L, -1))
                        luaL_error(L, "dw hit ragdoll: transform %d row %d must be a table",
                                   (int)i + 1, k / 4 + 1);
                    lua_rawgeti(L, -1, k % 4 + 1);
                    lua_remove(L, -2);
                }
                f[i * 16 + (size_t)k] = (float)luaL_optnumber(L, -1, 0);
                lua_pop(L, 1);
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1); /* transforms */
        h->ragdoll = f;
        h->ragdoll_n = n;
        h->ragdoll_count = (int)vp_l_int_field(L, r, "count", -1, -1, 255, "dw hit ragdoll");
        lua_pop(L, 1); /* ragdoll table */
        h->have_ragdoll = (uint8_t)vp_l_int_field(L, idx, "have_ragdoll", 1, 0, 255, what);
    } else {
        lua_pop(L, 1);
        h->have_ragdoll = (uint8_t)vp_l_int_field(L, idx, "have_ragdoll", 0, 0, 255, what);
        if (h->have_ragdoll)
            luaL_error(L, "dw hit: have_ragdoll without a ragdoll table");
    }
}

static void movement_from_table(lua_State *L, int idx, vp_dw_wmovement *m)
{
    static const char *const keys[] = {
        "unknown_00", "ray_start",  "ray_end",    "weapon_range",     "unknown_20",
        "unknown_22", "unknown_44", "bullet",     "unknown_49",       "unknown_4c",
        "damage_per_round", "unknown_5c", "unknown_68", "weapon_template_id", "slot_index",
        "unknown_79", "offset",     NULL};
    const char *what = "dw movement";
    idx = lua_absindex(L, idx);
    vp_l_check_keys(L, idx, what, keys);
    bytes_field(L, idx, "unknown_00", m->unknown_00, 4, what);
    vp_l_vec_field(L, idx, "ray_start", m->ray_start, 3, what);
    vp_l_vec_field(L, idx, "ray_end", m->ray_end, 3, what);
    m->weapon_range = num_field(L, idx, "weapon_range", what);
    m->unknown_20 = (uint16_t)vp_l_int_field(L, idx, "unknown_20", 0, 0, UINT16_MAX, what);
    bytes_field(L, idx, "unknown_22", m->unknown_22, sizeof m->unknown_22, what);
    bytes_field(L, idx, "unknown_44", m->unknown_44, sizeof m->unknown_44, what);
    m->bullet = (uint8_t)vp_l_int_field(L, idx, "bullet", 0, 0, 255, what);
    bytes_field(L, idx, "unknown_49", m->unknown_49, sizeof m->unknown_49, what);
    vp_l_vec_field(L, idx, "unknown_4c", m->unknown_4c, 3, what);
    m->damage_per_round =
        (uint32_t)vp_l_int_field(L, idx, "damage_per_round", 0, 0, UINT32_MAX, what);
    bytes_field(L, idx, "unknown_5c", m->unknown_5c, sizeof m->unknown_5c, what);
    vp_l_vec_field(L, idx, "unknown_68", m->unknown_68, 3, what);
    m->weapon_template_id =
        (uint32_t)vp_l_int_field(L, idx, "weapon_template_id", 0, 0, UINT32_MAX, what);
    m->slot_index = (uint8_t)vp_l_int_field(L, idx, "slot_index", 0, 0, 255, what);
    bytes_field(L, idx, "unknown_79", m->unknown_79, sizeof m->unknown_79, what);
}

/* Hits of one side, in an anchored array. */
static vp_dw_whit *hits_from_list(lua_State *L, int tidx, const char *key, size_t *n,
                                  uint32_t trace_id, int anchor)
{
    *n = 0;
    lua_getfield(L, tidx, key);
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return NULL;
    }
    if (!lua_istable(L, -1))
        luaL_error(L, "w:trace: field '%s' must be a list of hit tables", key);
    int list = lua_gettop(L);
    size_t len = lua_rawlen(L, list);
    if (len > 255)
        luaL_error(L, "w:trace: at most 255 %s hits (u8 count)", key);
    vp_dw_whit *hs = vp_l_anchored(L, anchor, len * sizeof *hs);
    for (size_t i = 0; i < len; i++) {
        lua_rawgeti(L, list, (lua_Integer)i + 1);
        if (!lua_istable(L, -1))
            luaL_error(L, "w:trace: %s hit %d must be a table", key, (int)i + 1);
        hit_from_table(L, -1, &hs[i], trace_id, anchor);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    *n = len;
    return hs;
}

/* w:trace{...} -> offset of the slot */
static int writer_trace(lua_State *L)
{
    static const char *const keys[] = {"used",   "unknown_01",   "trace_id",     "ammo_type_id",
                                       "movement", "client",     "server",       "client_count",
                                       "server_count", NULL};
    vp_lwriter *lw = vp_lwriter_check(L, DW_WRITER_T);
    luaL_checktype(L, 2, LUA_TTABLE);
    vp_l_check_keys(L, 2, "w:trace", keys);
    vp_dw_wtrace t;
    vp_dw_wtrace_init(&t);
    const char *what = "w:trace";
    t.used = (uint8_t)vp_l_int_field(L, 2, "used", 1, 0, 255, what);
    t.unknown_01 = (uint8_t)vp_l_int_field(L, 2, "unknown_01", 0, 0, 255, what);
    t.trace_id = (uint32_t)vp_l_int_field(L, 2, "trace_id", 0, 0, UINT32_MAX, what);
    t.ammo_type_id = (uint32_t)vp_l_int_field(L, 2, "ammo_type_id", 0, 0, UINT32_MAX, what);
    t.client_count = (int)vp_l_int_field(L, 2, "client_count", -1, -1, 255, what);
    t.server_count = (int)vp_l_int_field(L, 2, "server_count", -1, -1, 255, what);
    lua_getfield(L, 2, "movement");
    if (lua_istable(L, -1)) {
        if (t.ammo_type_id == 0)
            luaL_error(L, "w:trace: a movement block is only written when ammo_type_id is not 0");
        movement_from_table(L, -1, &t.movement);
    }
    lua_pop(L, 1);
    /* The hit arrays and ragdoll floats live in userdata anchored in a
     * table at index 3 until the trace is written. */
    lua_settop(L, 2);
    lua_newtable(L);
    t.client = hits_from_list(L, 2, "client", &t.nclient, t.trace_id, 3);
    t.server = hits_from_list(L, 2, "server", &t.nserver, t.trace_id, 3);
    uint64_t off = vp_dw_writer_bytes(lw->w);
    vp_error err;
    if (vp_dw_writer_trace(lw->w, &t, &err) != VP_OK)
        return luaL_error(L, "w:trace: %s", err.msg);
    lua_pushinteger(L, (lua_Integer)off);
    return 1;
}

static int writer_empty_slot(lua_State *L)
{
    vp_lwriter *lw = vp_lwriter_check(L, DW_WRITER_T);
    uint64_t off = vp_dw_writer_bytes(lw->w);
    vp_error err;
    if (vp_dw_writer_empty(lw->w, &err) != VP_OK)
        return luaL_error(L, "w:empty_slot: %s", err.msg);
    lua_pushinteger(L, (lua_Integer)off);
    return 1;
}

/* w:close{last_trace_counter = N, footer = true} -> bytes */
static int writer_close(lua_State *L)
{
    vp_lwriter *lw = luaL_checkudata(L, 1, DW_WRITER_T);
    if (!lw->w)
        return 0;
    static const char *const keys[] = {"last_trace_counter", "footer", NULL};
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        vp_l_check_keys(L, 2, "w:close", keys);
    }
    int footer = vp_l_opt_bool(L, 2, "footer", 1);
    lua_Integer counter = lua_istable(L, 2)
                              ? vp_l_int_field(L, 2, "last_trace_counter",
                                          (lua_Integer)(uint32_t)vp_dw_writer_traces(lw->w), 0,
                                          UINT32_MAX, "w:close")
                              : (lua_Integer)(uint32_t)vp_dw_writer_traces(lw->w);
    vp_dw_writer *w = lw->w;
    lw->w = NULL;
    uint64_t bytes = 0;
    vp_error err;
    if (vp_dw_writer_close(w, footer, (uint32_t)counter, &bytes, &err) != VP_OK)
        return luaL_error(L, "w:close: %s", err.msg);
    lua_pushinteger(L, (lua_Integer)bytes);
    return 1;
}

static int writer_tostring(lua_State *L)
{
    vp_lwriter *lw = luaL_checkudata(L, 1, DW_WRITER_T);
    if (!lw->w)
        lua_pushliteral(L, "<dw writer (closed)>");
    else
        lua_pushfstring(L, "<dw writer: %d traces, %d bytes>", (int)vp_dw_writer_traces(lw->w),
                        (int)vp_dw_writer_bytes(lw->w));
    return 1;
}

int vp_l_writer_dw(lua_State *L, const char *path, int opts)
{
    static const char *const keys[] = {"header", "max_size", NULL};
    uint8_t header[4] = {0, 0, 0, 0};
    if (lua_istable(L, opts)) {
        vp_l_check_keys(L, opts, "vp.writer dw options", keys);
        lua_getfield(L, opts, "header");
        if (lua_type(L, -1) == LUA_TSTRING) {
            size_t n;
            const char *s = lua_tolstring(L, -1, &n);
            if (n != 4)
                luaL_error(L, "vp.writer dw: header must be 4 bytes, got %d", (int)n);
            memcpy(header, s, 4);
        } else if (lua_istable(L, -1)) {
            for (int i = 0; i < 4; i++) {
                lua_rawgeti(L, -1, i + 1);
                header[i] = (uint8_t)luaL_optinteger(L, -1, 0);
                lua_pop(L, 1);
            }
        } else if (lua_isinteger(L, -1)) {
            lua_Integer v = lua_tointeger(L, -1);
            for (int i = 0; i < 4; i++)
                header[i] = (uint8_t)(v >> (8 * i));
        } else if (!lua_isnil(L, -1)) {
            luaL_error(L, "vp.writer dw: header must be a 4-byte string, a list of 4 bytes or "
                          "a u32");
        }
        lua_pop(L, 1);
    }
    lua_Integer max_size =
        lua_istable(L, opts) ? vp_l_int_field(L, opts, "max_size", 0, 0, 255, "vp.writer dw") : 0;
    vp_error err;
    vp_dw_writer *w = vp_dw_writer_open(path, header, (uint8_t)max_size, &err);
    if (!w)
        return luaL_error(L, "vp.writer: %s", err.msg);
    vp_lwriter_new(L, &dw_wops, sizeof(vp_lwriter), path)->w = w;
    return 1;
}

void vp_l_register_dw(lua_State *L)
{
    static const luaL_Reg cap_meta[] = {{"__gc", dw_close},
                                        {"__close", dw_close},
                                        {"__tostring", dw_tostring},
                                        {"__len", dw_len},
                                        {NULL, NULL}};
    static const luaL_Reg cap_methods[] = {{"traces", dw_traces}, {"slots", dw_slots},
                                           {"trace", dw_trace},   {"summary", dw_summary},
                                           {"close", dw_close},   {NULL, NULL}};
    vp_l_class(L, DW_T, cap_meta, cap_methods, NULL);

    static const luaL_Reg trace_meta[] = {
        {"__tostring", trace_tostring}, {"__eq", trace_eq}, {NULL, NULL}};
    static const luaL_Reg trace_methods[] = {{"client_hits", trace_client_hits},
                                             {"server_hits", trace_server_hits},
                                             {"hits", trace_hits},
                                             {"hit_list", trace_hit_list},
                                             {"totable", trace_totable},
                                             {NULL, NULL}};
    vp_l_class(L, DW_TRACE_T, trace_meta, trace_methods, trace_get);

    static const luaL_Reg w_meta[] = {{"__gc", vp_lwriter_gc},
                                      {"__close", vp_lwriter_gc},
                                      {"__tostring", writer_tostring},
                                      {NULL, NULL}};
    static const luaL_Reg w_methods[] = {{"trace", writer_trace}, {"empty_slot", writer_empty_slot},
                                         {"raw", vp_lwriter_raw_at}, {"tell", vp_lwriter_tell},
                                         {"close", writer_close}, {NULL, NULL}};
    vp_lwriter_class(L, &dw_wops, w_meta, w_methods, NULL);
}
