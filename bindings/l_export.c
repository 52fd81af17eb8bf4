/* vp.export.core: the streaming VProf exporters (host/export) for
 * stdlib/vp/export; luaopen_vp preloads it. Glue only: a capture, a Lua
 * file handle to write to, options. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <string.h>

#include "export/vprof_export.h"
#include "l_common.h"
#include "l_formats.h"

static vp_vprof *check_vprof(lua_State *L, int idx)
{
    return vp_lcap_check(L, idx, "vp.vprof")->model;
}

static FILE *check_file(lua_State *L, int idx)
{
    luaL_Stream *p = luaL_checkudata(L, idx, LUA_FILEHANDLE);
    if (!p->closef)
        luaL_argerror(L, idx, "the file is closed");
    return p->f;
}

/* Raise a vp.error (code name, message) through vp.error.new. */
static int raise_error(lua_State *L, const vp_error *err, const char *what)
{
    return vp_l_raise_code(L, vp_errcode_name(err->code), lua_pushfstring(L, "%s: %s", what, err->msg));
}

/* export(cap, file, format, {name =, what =, per_frame =, node =}):
 * format "chrome", "speedscope" or "csv"; node a vp.vprof.node (csv). */
static int l_vprof(lua_State *L)
{
    vp_vprof *m = check_vprof(L, 1);
    FILE *f = check_file(L, 2);
    static const char *const kinds[] = {"chrome", "speedscope", "csv", NULL};
    int kind = luaL_checkoption(L, 3, NULL, kinds);
    vp_export_opts o = {NULL, NULL, 0, VP_VPROF_NO_NODE};
    if (lua_istable(L, 4)) {
        o.name = vp_l_opt_str(L, 4, "name", NULL);
        o.what = vp_l_opt_str(L, 4, "what", NULL);
        o.per_frame = vp_l_opt_bool(L, 4, "per_frame", 0);
        if (lua_getfield(L, 4, "node") != LUA_TNIL) {
            vp_vprof *nm;
            uint32_t *idx = vp_lchild_check(L, -1, "vp.vprof.node", (void **)&nm);
            luaL_argcheck(L, nm == m, 4, "node belongs to another capture");
            o.node = *idx;
        }
        lua_pop(L, 1);
    }
    vp_error err;
    vp_errcode rc = kind == 0   ? vp_export_vprof_chrome(m, f, &o, &err)
                    : kind == 1 ? vp_export_vprof_speedscope(m, f, &o, &err)
                                : vp_export_vprof_csv(m, f, &o, &err);
    if (rc != VP_OK) {
        lua_getiuservalue(L, 1, 1);
        lua_getfield(L, -1, "path");
        return raise_error(L, &err, rc == VP_EIO ? (o.what ? o.what : "output") : lua_tostring(L, -1));
    }
    return 0;
}

/* A table {[group id] = {per column}} of one of the column arrays. */
static void push_by_group(lua_State *L, const vp_vprof *m, const double *a, lua_Integer cols)
{
    lua_createtable(L, 0, (int)m->group_count);
    for (uint32_t g = 0; g < m->group_count; g++) {
        if (!m->groups[g].has_nodes)
            continue;
        lua_createtable(L, (int)cols, 0);
        for (lua_Integer c = 0; c < cols; c++) {
            lua_pushnumber(L, a[(size_t)c * m->group_count + g]);
            lua_rawseti(L, -2, c + 1);
        }
        lua_rawseti(L, -2, m->groups[g].id);
    }
}

/* columns(cap, cols [, {minmax =, per_frame =}]) -> {sum = {[group id] =
 * {ms per column}}, frames = {frames per column}, min =, max = (minmax:
 * likewise), top =, tick = (per_frame: per frame, the id of the group
 * with the most self time, -1 for none; the tick)}: each group's (with
 * nodes) self time per column, vp_export_vprof_columns. */
static int l_columns(lua_State *L)
{
    vp_vprof *m = check_vprof(L, 1);
    lua_Integer cols = luaL_checkinteger(L, 2);
    luaL_argcheck(L, cols >= 1 && cols <= 1 << 16, 2, "columns must be in 1..65536");
    int minmax = 0, per_frame = 0;
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        minmax = vp_l_opt_bool(L, 3, "minmax", 0);
        per_frame = vp_l_opt_bool(L, 3, "per_frame", 0);
    }
    size_t cells = (size_t)cols * m->group_count;
    vp_export_columns c = {(uint32_t)cols, NULL, NULL, NULL, NULL, NULL, NULL};
    /* the arrays live in userdata, so an error raised below frees them */
    c.sum = lua_newuserdatauv(L, (minmax ? 3 : 1) * cells * sizeof(double) + 1, 0);
    if (minmax) {
        c.min = c.sum + cells;
        c.max = c.min + cells;
    }
    c.frames = lua_newuserdatauv(L, (size_t)cols * sizeof *c.frames, 0);
    if (per_frame) {
        c.top = lua_newuserdatauv(L, (size_t)m->frame_count * sizeof *c.top + 1, 0);
        c.tick = lua_newuserdatauv(L, (size_t)m->frame_count * sizeof *c.tick + 1, 0);
    }
    vp_error err;
    if (vp_export_vprof_columns(m, &c, &err) != VP_OK) {
        lua_getiuservalue(L, 1, 1);
        lua_getfield(L, -1, "path");
        return raise_error(L, &err, lua_tostring(L, -1));
    }
    lua_createtable(L, 0, 6);
    push_by_group(L, m, c.sum, cols);
    lua_setfield(L, -2, "sum");
    lua_createtable(L, (int)cols, 0);
    for (lua_Integer k = 0; k < cols; k++) {
        lua_pushinteger(L, c.frames[k]);
        lua_rawseti(L, -2, k + 1);
    }
    lua_setfield(L, -2, "frames");
    if (minmax) {
        push_by_group(L, m, c.min, cols);
        lua_setfield(L, -2, "min");
        push_by_group(L, m, c.max, cols);
        lua_setfield(L, -2, "max");
    }
    if (per_frame) {
        lua_createtable(L, (int)m->frame_count, 0);
        for (uint32_t f = 0; f < m->frame_count; f++) {
            lua_pushinteger(L, c.top[f] == VP_VPROF_NO_NODE ? -1 : (lua_Integer)m->groups[c.top[f]].id);
            lua_rawseti(L, -2, (lua_Integer)f + 1);
        }
        lua_setfield(L, -2, "top");
        lua_createtable(L, (int)m->frame_count, 0);
        for (uint32_t f = 0; f < m->frame_count; f++) {
            lua_pushinteger(L, c.tick[f]);
            lua_rawseti(L, -2, (lua_Integer)f + 1);
        }
        lua_setfield(L, -2, "tick");
    }
    return 1;
}

int vp_l_open_export(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"vprof", l_vprof}, {"columns", l_columns}, {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
