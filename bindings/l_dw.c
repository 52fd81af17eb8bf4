/* Lua binding of the weapon trace (.dw): the capture and its traces (child
 * userdata decoded on access, read through the capture's source), hits as plain tables
 * built when iterated. The writer is l_dw_writer.c. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/dw.h"
#include "l_common.h"
#include "l_formats.h"
#include "l_trace.h"

#define DW_T "vp.dw"
#define DW_TRACE_T "vp.dw.trace"

static vp_dw *dw_check(lua_State *L, int idx)
{
    return vp_lcap_check(L, idx, DW_T)->model;
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
    vp_l_push_name(L, vp_dw_hit_type_name(type), "unknown_%d", (int)type);
}

/* ---- capture ----------------------------------------------------------- */

static int dw_tostring(lua_State *L)
{
    const char *base;
    vp_dw *d = vp_lcap_tostring_model(L, DW_T, &base);
    if (!d)
        return 1;
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

/* One step of the slot iterator (l_common): the next slot; a trace is a
 * used slot. */
static int dw_slot_next(lua_State *L, int cap, void *model, void *state, uint64_t *slot,
                        int *used, vp_error *err)
{
    vp_dw_trace t;
    int r = vp_dw_iter_next(model, state, &t, err);
    if (r <= 0)
        return r;
    *slot = t.slot;
    *used = t.used != 0;
    if (*used)
        push_trace(L, &t, cap);
    return 1;
}

static void dw_slot_begin(void *model, void *state)
{
    vp_dw_iter_begin(model, state);
}

static void dw_slot_seek(void *model, void *state, uint64_t index)
{
    vp_dw_iter_seek_trace(model, state, index);
}

static const vp_lslots dw_slots_def = {.cap_tname = DW_T,
                                       .what = "trace",
                                       .state_size = sizeof(vp_dw_iter),
                                       .begin = dw_slot_begin,
                                       .seek = dw_slot_seek,
                                       .next = dw_slot_next};

/* cap:traces([i]) -> iterator over traces, from the i-th (1-based). */
static int dw_traces(lua_State *L)
{
    return vp_lslots_used(L, &dw_slots_def);
}

/* cap:slots() -> i, trace | false for every slot of the ring. */
static int dw_slots(lua_State *L)
{
    return vp_lslots_all(L, &dw_slots_def);
}

/* cap:trace(i) -> trace (1-based); raises out of range. */
static int dw_trace(lua_State *L)
{
    return vp_lslots_at(L, &dw_slots_def, dw_check(L, 1)->trace_count);
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
    vp_l_row_int(L, list, "max_size", d->max_size);
    vp_l_row_int(L, list, "slots", (lua_Integer)d->slot_count);
    vp_l_row_int(L, list, "traces", (lua_Integer)d->trace_count);
    vp_l_row_int(L, list, "empty slots", (lua_Integer)d->empty_slots);
    vp_l_row_int(L, list, "client hits", (lua_Integer)d->client_hits);
    vp_l_row_int(L, list, "server hits", (lua_Integer)d->server_hits);
    vp_l_row_int(L, list, "movement blocks", (lua_Integer)d->movement_blocks);
    if (d->have_footer) {
        vp_l_row_int(L, list, "last trace counter", d->last_trace_counter);
        vp_l_row_bool(L, list, "counter wrapped", d->last_trace_counter < d->trace_count);
    } else {
        lua_pushliteral(L, "missing");
        vp_l_row_add(L, list, "last trace counter");
    }
    vp_l_row_bool(L, list, "truncated", d->truncated);
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
    vp_lcap_set_int(L, capidx, "max_size", d->max_size);
    if (d->have_footer) {
        vp_lcap_set_int(L, capidx, "last_trace_counter", d->last_trace_counter);
    }
    vp_lcap_set_bool(L, capidx, "has_footer", d->have_footer);
    /* The counter counts every trace recorded; each used slot was recorded
     * at least once, so a counter below the used slots has wrapped. */
    vp_lcap_set_bool(L, capidx, "wrapped",
                     d->have_footer && d->last_trace_counter < d->trace_count);
    vp_lcap_set_bool(L, capidx, "truncated", d->truncated);
    vp_lcap_set_int(L, capidx, "trace_count", (lua_Integer)d->trace_count);
    vp_lcap_set_int(L, capidx, "slot_count", (lua_Integer)d->slot_count);
    vp_lcap_set_int(L, capidx, "empty_slots", (lua_Integer)d->empty_slots);
    vp_lcap_set_int(L, capidx, "client_hit_count", (lua_Integer)d->client_hits);
    vp_lcap_set_int(L, capidx, "server_hit_count", (lua_Integer)d->server_hits);
    vp_lcap_set_int(L, capidx, "movement_count", (lua_Integer)d->movement_blocks);
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
    vp_lcap_set_int(L, capidx, "slots_end", (lua_Integer)d->slots_end);
}

/* vp_l_open_dw (l_trace.h). */
VP_LTRACE_OPEN(dw, DW_T, dw_set_fields)

/* ---- trace ------------------------------------------------------------- */

static vp_dw_trace *trace_check(lua_State *L, int idx, vp_dw **d)
{
    void *m;
    vp_dw_trace *t = vp_lchild_check(L, idx, DW_TRACE_T, &m);
    *d = m;
    return t;
}

/* The movement block at off as a table; `tr` is its trace (for errors). */
static void push_movement(lua_State *L, vp_dw *d, uint64_t off, int tr)
{
    vp_dw_movement m;
    vp_error err;
    if (vp_dw_movement_at(d, off, &m, &err) != VP_OK)
        vp_lchild_raise(L, tr, &err);
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

static void push_hit(lua_State *L, vp_dw *d, const vp_dw_hit *h, const char *side,
                     unsigned index, int tr)
{
    tr = lua_absindex(L, tr);
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
    /* Any non-zero byte announces the block. */
    lua_pushboolean(L, h->have_entity != 0);
    lua_setfield(L, -2, "have_entity");
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
    lua_pushboolean(L, h->have_ragdoll != 0);
    lua_setfield(L, -2, "have_ragdoll");
    if (h->have_ragdoll) {
        lua_createtable(L, 0, 5);
        push_guid_fields(L, h->ragdoll_guid);
        vp_l_set_int(L, "count", h->ragdoll_count);
        lua_createtable(L, h->ragdoll_count, 0);
        for (unsigned i = 0; i < h->ragdoll_count; i++) {
            float m[16];
            vp_error err;
            if (vp_dw_matrix_at(d, h, i, m, &err) != VP_OK)
                vp_lchild_raise(L, tr, &err);
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
    if (vp_dw_hit_at(d, s->off, &h, &err) != VP_OK)
        return vp_lchild_raise(L, lua_upvalueindex(1), &err);
    push_hit(L, d, &h, s->side ? "server" : "client", s->i, lua_upvalueindex(1));
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
static void push_hit_list(lua_State *L, vp_dw *d, uint64_t off, unsigned n, int side, int tr)
{
    tr = lua_absindex(L, tr);
    lua_createtable(L, (int)n, 0);
    for (unsigned i = 0; i < n; i++) {
        vp_dw_hit h;
        vp_error err;
        if (vp_dw_hit_at(d, off, &h, &err) != VP_OK)
            vp_lchild_raise(L, tr, &err);
        push_hit(L, d, &h, side ? "server" : "client", i, tr);
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
                  side ? t->server_count : t->client_count, side, 1);
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
        push_movement(L, d, t->movement_off, 1);
        lua_setfield(L, 2, "movement");
    }
    push_hit_list(L, d, t->client_off, t->client_count, 0, 1);
    lua_setfield(L, 2, "client");
    push_hit_list(L, d, t->server_off, t->server_count, 1, 1);
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
        lua_pushboolean(L, t->used != 0);
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
            push_movement(L, d, t->movement_off, 1);
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
    return vp_lchild_eq(L, DW_TRACE_T, offsetof(vp_dw_trace, off), sizeof(uint64_t));
}

void vp_l_register_dw(lua_State *L)
{
    static const luaL_Reg cap_methods[] = {{"traces", dw_traces},
                                           {"slots", dw_slots},
                                           {"trace", dw_trace},
                                           {"summary", dw_summary},
                                           {NULL, NULL}};
    vp_lcap_class(L, DW_T, dw_tostring, dw_len, cap_methods);

    static const luaL_Reg trace_meta[] = {
        {"__tostring", trace_tostring}, {"__eq", trace_eq}, {NULL, NULL}};
    static const luaL_Reg trace_methods[] = {{"client_hits", trace_client_hits},
                                             {"server_hits", trace_server_hits},
                                             {"hits", trace_hits},
                                             {"hit_list", trace_hit_list},
                                             {"totable", trace_totable},
                                             {NULL, NULL}};
    vp_l_class(L, DW_TRACE_T, trace_meta, trace_methods, trace_get);
}
