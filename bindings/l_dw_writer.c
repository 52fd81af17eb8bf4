/* vp.writer("dw", path [, {header =, max_size =}]): the Lua face of
 * write/dw_write.h. Traces and hits are tables with the field names the
 * reader gives; flags take true/false or the byte to write (deliberately
 * odd files). */
#include <string.h>

#include "write/dw_write.h"
#include "l_common.h"
#include "l_formats.h"

#define DW_WRITER_T "vp.dw.writer"
/* Hit types 0..10 by name (format-notes); the writer shares nothing with
 * the reader but the notes. */
static const char *const hit_type_names[] = {
    "ERROR",  "Spawn", "Bounce",   "Posefile_Hit", "Ragdoll_Hit", "Ragdoll_Miss",
    "Impact", "Shot",  "Detonate", "Timeout",      "Validated",
};
#define DW_HIT_TYPES (sizeof hit_type_names / sizeof hit_type_names[0])

/* Options of w:close{last_trace_counter =, footer =}. */
typedef struct dw_close_opts {
    int footer;
    uint32_t counter;
} dw_close_opts;

static vp_errcode dw_wclose(void *w, const void *copts, uint64_t *bytes, vp_error *err)
{
    const dw_close_opts *o = copts;
    if (!o)
        return vp_dw_writer_close(w, 1, (uint32_t)vp_dw_writer_traces(w), bytes, err);
    return vp_dw_writer_close(w, o->footer, o->counter, bytes, err);
}

/* dw_wsize, dw_wraw, dw_wtruncate, dw_wdata (l_common.h). */
VP_LWRITER_FORWARD(dw)

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
        for (unsigned k = 0; k < DW_HIT_TYPES; k++)
            if (strcmp(s, hit_type_names[k]) == 0)
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
    h->have_entity = vp_l_flag_field(L, idx, "have_entity", has_entity, what);

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
        h->have_ragdoll = vp_l_flag_field(L, idx, "have_ragdoll", 1, what);
    } else {
        lua_pop(L, 1);
        h->have_ragdoll = vp_l_flag_field(L, idx, "have_ragdoll", 0, what);
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
    t.used = vp_l_flag_field(L, 2, "used", 1, what);
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
    uint64_t off = vp_dw_writer_tell(lw->w);
    vp_error err;
    return vp_lwriter_wrote(L, "w:trace", off, vp_dw_writer_trace(lw->w, &t, &err), &err);
}

static int writer_empty_slot(lua_State *L)
{
    vp_lwriter *lw = vp_lwriter_check(L, DW_WRITER_T);
    uint64_t off = vp_dw_writer_tell(lw->w);
    vp_error err;
    return vp_lwriter_wrote(L, "w:empty_slot", off, vp_dw_writer_empty(lw->w, &err), &err);
}

/* w:close{last_trace_counter = N, footer = true} -> file size */
static int writer_close(lua_State *L)
{
    static const char *const keys[] = {"last_trace_counter", "footer", NULL};
    vp_lwriter *lw = luaL_checkudata(L, 1, DW_WRITER_T);
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        vp_l_check_keys(L, 2, "w:close", keys);
    }
    dw_close_opts o = {.footer = vp_l_opt_bool(L, 2, "footer", 1)};
    if (lw->w) {
        lua_Integer traces = (lua_Integer)(uint32_t)vp_dw_writer_traces(lw->w);
        o.counter = (uint32_t)(lua_istable(L, 2) ? vp_l_int_field(L, 2, "last_trace_counter", traces,
                                                                  0, UINT32_MAX, "w:close")
                                                 : traces);
    }
    return vp_lwriter_close_with(L, &o);
}

/* w.traces: traces (used slots) written so far. */
static int writer_get(lua_State *L)
{
    vp_lwriter *lw = luaL_checkudata(L, 1, DW_WRITER_T);
    const char *k = lua_tostring(L, 2);
    if (lw->w && k && strcmp(k, "traces") == 0) {
        lua_pushinteger(L, (lua_Integer)vp_dw_writer_traces(lw->w));
        return 1;
    }
    return 0;
}

static const luaL_Reg dw_wmethods[] = {{"trace", writer_trace},
                                       {"empty_slot", writer_empty_slot},
                                       {"close", writer_close},
                                       {NULL, NULL}};

static const vp_lwriter_ops dw_wops = {.tname = DW_WRITER_T,
                                       .name = "dw writer",
                                       .methods = dw_wmethods,
                                       .get = writer_get,
                                       .close = dw_wclose,
                                       VP_LWRITER_FORWARDED(dw)};

int vp_l_writer_dw(lua_State *L, const char *path, int opts)
{
    static const char *const keys[] = {"header", "max_size", NULL};
    vp_dw_wopts o;
    memset(&o, 0, sizeof o);
    if (lua_istable(L, opts)) {
        vp_l_check_keys(L, opts, "vp.writer dw options", keys);
        lua_getfield(L, opts, "header");
        if (lua_type(L, -1) == LUA_TSTRING) {
            size_t n;
            const char *s = lua_tolstring(L, -1, &n);
            if (n != 4)
                luaL_error(L, "vp.writer dw: header must be 4 bytes, got %d", (int)n);
            memcpy(o.header, s, 4);
        } else if (lua_istable(L, -1)) {
            for (int i = 0; i < 4; i++) {
                lua_rawgeti(L, -1, i + 1);
                o.header[i] = (uint8_t)luaL_optinteger(L, -1, 0);
                lua_pop(L, 1);
            }
        } else if (lua_isinteger(L, -1)) {
            lua_Integer v = lua_tointeger(L, -1);
            for (int i = 0; i < 4; i++)
                o.header[i] = (uint8_t)(v >> (8 * i));
        } else if (!lua_isnil(L, -1)) {
            luaL_error(L, "vp.writer dw: header must be a 4-byte string, a list of 4 bytes or "
                          "a u32");
        }
        lua_pop(L, 1);
    }
    if (lua_istable(L, opts))
        o.max_size = (uint8_t)vp_l_int_field(L, opts, "max_size", 0, 0, 255, "vp.writer dw");
    vp_error err;
    vp_dw_writer *w = vp_dw_writer_open(path, &o, &err);
    return vp_lwriter_push(L, &dw_wops, path, w, &err);
}

