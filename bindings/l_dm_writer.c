/* vp.writer("dm", path): the Lua face of write/dm_write.h. Records are
 * tables with the field names the reader gives; flags take true/false or
 * the byte to write (deliberately odd files). */
#include <string.h>

#include "write/dm_write.h"
#include "l_common.h"
#include "l_formats.h"

#define DM_WRITER_T "vp.dm.writer"
/* Group bits 0..19 (format-notes): the writer shares nothing with the
 * reader but the notes. */
#define DM_GROUP_BITS 20

/* Options of w:close{terminate =, trailing =}. */
typedef struct dm_close_opts {
    int terminate;
    const char *trailing;
    size_t ntrailing;
} dm_close_opts;

static vp_errcode dm_wclose(void *w, const void *copts, uint64_t *bytes, vp_error *err)
{
    const dm_close_opts *o = copts;
    if (!o)
        return vp_dm_writer_close(w, 1, NULL, 0, bytes, err);
    return vp_dm_writer_close(w, o->terminate, o->trailing, o->ntrailing, bytes, err);
}

/* dm_wsize, dm_wraw, dm_wtruncate, dm_wdata (l_common.h). */
VP_LWRITER_FORWARD(dm)

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
        if (!k || !(vp_l_key_in(k, base_keys) || vp_l_key_in(k, ext_keys) ||
                    vp_l_key_in(k, read_keys)))
            luaL_error(L, "%s: unknown field '%s'", what, luaL_tolstring(L, -1, NULL));
    }
    vp_dm_wgroup_init(g);
    g->short_time = (uint16_t)vp_l_int_field(L, idx, "short_time", 0, 0, UINT16_MAX, what);
    vp_l_vec_field(L, idx, "position", g->position, 3, what);
    vp_l_vec_field(L, idx, "orientation", g->orientation, 4, what);
    vp_l_vec_field(L, idx, "direction", g->direction, 3, what);
    g->state = (uint16_t)vp_l_int_field(L, idx, "state", 0, 0, UINT16_MAX, what);
    g->have_ext = vp_l_flag_field(L, idx, "have_ext", vp_l_has_any(L, idx, ext_keys), what);
    if (g->have_ext != 1)
        return;
    g->unknown_1 = (uint16_t)vp_l_int_field(L, idx, "unknown_1", 0, 0, UINT16_MAX, what);
    vp_l_vec_field(L, idx, "velocity", g->velocity, 3, what);
    g->unknown_2 = (uint8_t)vp_l_int_field(L, idx, "unknown_2", 0, 0, 255, what);
    g->unknown_3 = (uint8_t)vp_l_int_field(L, idx, "unknown_3", 0, 0, 255, what);
    g->jetpack_energy = (uint16_t)vp_l_int_field(L, idx, "jetpack_energy", 0, 0, UINT16_MAX, what);
    g->ground_time = (int16_t)vp_l_int_field(L, idx, "ground_time", 0, INT16_MIN, INT16_MAX, what);
    g->time_since_last_jump =
        (int16_t)vp_l_int_field(L, idx, "time_since_last_jump", 0, INT16_MIN, INT16_MAX, what);
    g->have_collision =
        vp_l_flag_field(L, idx, "have_collision", vp_l_has_any(L, idx, coll_keys), what);
    if (g->have_collision) {
        lua_getfield(L, idx, "arrows");
        size_t n = lua_istable(L, -1) ? lua_rawlen(L, -1) : 0;
        if (n > 255)
            luaL_error(L, "%s: at most 255 arrows (u8 count)", what);
        float *a = vp_l_anchored(L, anchor, n * 6 * sizeof *a);
        for (size_t i = 0; i < n; i++) {
            lua_rawgeti(L, -1, (lua_Integer)i + 1);
            if (!lua_istable(L, -1))
                luaL_error(L, "%s: arrow %d must be {origin=, direction=}", what, (int)i + 1);
            int at = lua_gettop(L);
            vp_l_vec_field(L, at, "origin", a + i * 6, 3, what);
            vp_l_vec_field(L, at, "direction", a + i * 6 + 3, 3, what);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        g->arrows = a;
        g->narrows = n;
        lua_getfield(L, idx, "floats");
        n = lua_istable(L, -1) ? lua_rawlen(L, -1) : 0;
        if (n > 255)
            luaL_error(L, "%s: at most 255 floats (u8 count)", what);
        float *f = vp_l_anchored(L, anchor, n * sizeof *f);
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
        g->arrow_count = (int)vp_l_int_field(L, idx, "arrow_count", -1, -1, 255, what);
        g->float_count = (int)vp_l_int_field(L, idx, "float_count", -1, -1, 255, what);
    }
    vp_l_vec_field(L, idx, "unknown_4", g->unknown_4, 3, what);
    vp_l_vec_field(L, idx, "unknown_5", g->unknown_5, 3, what);
    g->unknown_6 = (uint8_t)vp_l_int_field(L, idx, "unknown_6", 0, 0, 255, what);
}

/* w:record{time=, groups={[bit]=group}, bitfield=, used=} -> offset. `used`
 * (true) writes the have_data byte 1; false or a number writes that byte
 * (broken files: 0 makes an empty record followed by the data anyway). */
static int writer_record(lua_State *L)
{
    static const char *const keys[] = {"time", "groups", "bitfield", "used", NULL};
    vp_lwriter *lw = vp_lwriter_check(L, DM_WRITER_T);
    luaL_checktype(L, 2, LUA_TTABLE);
    vp_l_check_keys(L, 2, "w:record", keys);
    lua_settop(L, 2);
    lua_newtable(L); /* 3: anchor */
    vp_dm_wrecord r;
    memset(&r, 0, sizeof r);
    const char *what = "w:record";
    r.have_data = vp_l_flag_field(L, 2, "used", 1, what);
    r.time = (uint32_t)vp_l_int_field(L, 2, "time", 0, 0, UINT32_MAX, what);
    lua_getfield(L, 2, "groups");
    int gi = lua_gettop(L);
    uint32_t bits = 0;
    vp_dm_wgroup *gs = vp_l_anchored(L, 3, 32 * sizeof *gs);
    size_t n = 0;
    if (!lua_isnil(L, gi)) {
        if (!lua_istable(L, gi))
            luaL_error(L, "w:record: groups must be a table {[bit] = group}");
        lua_pushnil(L);
        while (lua_next(L, gi)) {
            lua_pop(L, 1);
            int ok;
            lua_Integer b = lua_tointegerx(L, -1, &ok);
            if (!ok || lua_type(L, -1) != LUA_TNUMBER || b < 0 || b >= DM_GROUP_BITS)
                luaL_error(L, "w:record: groups are keyed by bit 0..19 (use bitfield= to set "
                              "other bits)");
        }
        for (int b = 0; b < DM_GROUP_BITS; b++) {
            lua_rawgeti(L, gi, b);
            if (!lua_isnil(L, -1)) {
                group_from_table(L, -1, &gs[n++], 3);
                bits |= 1u << b;
            }
            lua_pop(L, 1);
        }
    }
    r.bitfield = (uint32_t)vp_l_int_field(L, 2, "bitfield", bits, 0, UINT32_MAX, what);
    r.groups = gs;
    r.ngroups = n;
    uint64_t off = vp_dm_writer_tell(lw->w);
    vp_error err;
    return vp_lwriter_wrote(L, "w:record", off, vp_dm_writer_record(lw->w, &r, &err), &err);
}

static int writer_empty(lua_State *L)
{
    vp_lwriter *lw = vp_lwriter_check(L, DM_WRITER_T);
    uint64_t off = vp_dm_writer_tell(lw->w);
    vp_error err;
    return vp_lwriter_wrote(L, "w:empty", off, vp_dm_writer_empty(lw->w, &err), &err);
}

/* w:close{terminate = true, trailing = "bytes"} -> file size */
static int writer_close(lua_State *L)
{
    static const char *const keys[] = {"terminate", "trailing", NULL};
    luaL_checkudata(L, 1, DM_WRITER_T);
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        vp_l_check_keys(L, 2, "w:close", keys);
    }
    dm_close_opts o = {.terminate = vp_l_opt_bool(L, 2, "terminate", 1)};
    if (lua_istable(L, 2)) {
        lua_getfield(L, 2, "trailing"); /* stays on the stack until the close */
        o.trailing = lua_tolstring(L, -1, &o.ntrailing);
    }
    return vp_lwriter_close_with(L, &o);
}

/* w.records: records written so far (array elements). */
static int writer_get(lua_State *L)
{
    vp_lwriter *lw = luaL_checkudata(L, 1, DM_WRITER_T);
    const char *k = lua_tostring(L, 2);
    if (lw->w && k && strcmp(k, "records") == 0) {
        lua_pushinteger(L, (lua_Integer)vp_dm_writer_records(lw->w));
        return 1;
    }
    return 0;
}

static const luaL_Reg dm_wmethods[] = {
    {"record", writer_record}, {"empty", writer_empty}, {"close", writer_close}, {NULL, NULL}};

static const vp_lwriter_ops dm_wops = {.tname = DM_WRITER_T,
                                       .name = "dm writer",
                                       .methods = dm_wmethods,
                                       .get = writer_get,
                                       .close = dm_wclose,
                                       VP_LWRITER_FORWARDED(dm)};

int vp_l_writer_dm(lua_State *L, const char *path, int opts)
{
    if (lua_istable(L, opts)) {
        static const char *const none[] = {NULL};
        vp_l_check_keys(L, opts, "vp.writer dm options", none);
    }
    vp_error err;
    vp_dm_writer *w = vp_dm_writer_open(path, &err);
    return vp_lwriter_push(L, &dm_wops, path, w, &err);
}
