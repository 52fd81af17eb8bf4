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

/* An exporter's failure: a closed pipe ends the program quietly (exit 141,
 * vp.error's EPIPE); a write error's message names the output; anything
 * else is the capture's (cap at index 1), named by its path. */
static int raise_export(lua_State *L, const vp_error *err)
{
    if (err->code == VP_EPIPE)
        return vp_l_raise_code(L, vp_errcode_name(err->code), NULL);
    if (err->code == VP_EIO)
        return vp_l_raise_code(L, vp_errcode_name(err->code), err->msg);
    lua_getiuservalue(L, 1, 1);
    lua_getfield(L, -1, "path");
    return raise_error(L, err, lua_tostring(L, -1));
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
    return rc == VP_OK ? 0 : raise_export(L, &err);
}

/* folded(cap, file, base | nil, {what =}) -> lines, total_us: the
 * collapsed stacks (vp_export_vprof_folded), streamed to the file. */
static int l_folded(lua_State *L)
{
    vp_vprof *m = check_vprof(L, 1);
    FILE *f = check_file(L, 2);
    vp_vprof *base = lua_isnoneornil(L, 3) ? NULL : check_vprof(L, 3);
    vp_export_opts o = {NULL, NULL, 0, VP_VPROF_NO_NODE};
    if (lua_istable(L, 4))
        o.what = vp_l_opt_str(L, 4, "what", NULL);
    uint64_t lines, total;
    vp_error err;
    if (vp_export_vprof_folded(m, base, f, &o, &lines, &total, &err) != VP_OK)
        return raise_export(L, &err);
    lua_pushinteger(L, (lua_Integer)lines);
    lua_pushinteger(L, (lua_Integer)total);
    return 2;
}

/* group_columns(cap, cols, ids, keep) -> {{ms per column} for ids[1..keep]},
 * {frames per column}, {the others' ms per frame per column}, the others'
 * total ms: ids are the ranked group ids (the groups with nodes). */
static int l_group_columns(lua_State *L)
{
    vp_vprof *m = check_vprof(L, 1);
    lua_Integer cols = luaL_checkinteger(L, 2);
    luaL_argcheck(L, cols >= 1 && cols <= 1 << 16, 2, "columns must be in 1..65536");
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_Integer nids = luaL_len(L, 3), keep = luaL_checkinteger(L, 4);
    luaL_argcheck(L, nids >= 0 && nids <= m->group_count, 3, "at most one id per group");
    luaL_argcheck(L, keep >= 0 && keep <= 4096, 4, "keep must be in 0..4096");
    if (keep > nids)
        keep = nids;
    /* rank of each group index, from the ids (UINT32_MAX: not listed) */
    lua_createtable(L, 0, (int)nids);
    for (lua_Integer i = 1; i <= nids; i++) {
        lua_rawgeti(L, 3, i);
        lua_pushinteger(L, i - 1);
        lua_rawset(L, -3);
    }
    uint32_t *order = lua_newuserdatauv(L, (size_t)nids * sizeof *order + 1, 0);
    uint32_t found = 0;
    for (uint32_t g = 0; g < m->group_count; g++) {
        if (lua_rawgeti(L, -2, m->groups[g].id) == LUA_TNUMBER) {
            order[lua_tointeger(L, -1)] = g;
            found++;
        }
        lua_pop(L, 1);
    }
    luaL_argcheck(L, found == (uint32_t)nids, 3, "an id that names no group, or twice");
    vp_export_gcols q = {(uint32_t)cols, (uint32_t)keep, (uint32_t)nids, order, NULL, NULL, NULL, NULL};
    q.out = lua_newuserdatauv(L, ((size_t)cols * (size_t)(keep + 1) + 1) * sizeof *q.out, 0);
    q.other = q.out + (size_t)cols * (size_t)keep;
    q.other_total = q.other + cols;
    q.frames = lua_newuserdatauv(L, (size_t)cols * sizeof *q.frames, 0);
    vp_error err;
    if (vp_export_vprof_group_columns(m, &q, &err) != VP_OK) {
        lua_getiuservalue(L, 1, 1);
        lua_getfield(L, -1, "path");
        return raise_error(L, &err, lua_tostring(L, -1));
    }
    lua_createtable(L, (int)keep, 0);
    for (lua_Integer k = 0; k < keep; k++) {
        lua_createtable(L, (int)cols, 0);
        for (lua_Integer c = 0; c < cols; c++) {
            lua_pushnumber(L, q.out[(size_t)c * (size_t)keep + (size_t)k]);
            lua_rawseti(L, -2, c + 1);
        }
        lua_rawseti(L, -2, k + 1);
    }
    lua_createtable(L, (int)cols, 0);
    for (lua_Integer c = 0; c < cols; c++) {
        lua_pushinteger(L, q.frames[c]);
        lua_rawseti(L, -2, c + 1);
    }
    lua_createtable(L, (int)cols, 0);
    for (lua_Integer c = 0; c < cols; c++) {
        lua_pushnumber(L, q.other[c]);
        lua_rawseti(L, -2, c + 1);
    }
    lua_pushnumber(L, *q.other_total);
    return 4;
}

int vp_l_open_export(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"vprof", l_vprof}, {"folded", l_folded}, {"group_columns", l_group_columns}, {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
