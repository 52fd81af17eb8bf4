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

/* A table {[group id] = {per column}} of one of the column arrays. */
static void push_by_group(lua_State *L, const vp_vprof *m, const vp_export_columns *c, const double *a)
{
    lua_createtable(L, 0, (int)c->ngroups);
    for (uint32_t k = 0; k < c->ngroups; k++) {
        lua_createtable(L, (int)c->cols, 0);
        for (uint32_t col = 0; col < c->cols; col++) {
            lua_pushnumber(L, a[(size_t)col * c->ngroups + k]);
            lua_rawseti(L, -2, (lua_Integer)col + 1);
        }
        lua_rawseti(L, -2, m->groups[c->groups[k]].id);
    }
}

/* A list of n numbers. */
static void push_list(lua_State *L, const double *a, const uint32_t *u, size_t n)
{
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        if (a)
            lua_pushnumber(L, a[i]);
        else
            lua_pushinteger(L, u[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/* columns(cap, cols [, {minmax =, per_frame =, groups =}]) -> {sum =
 * {[group id] = {ms per column}}, frames = {frames per column}, min =,
 * max = (minmax: likewise), other = {ms per column} (groups: the other
 * groups' together), top =, tick = (per_frame: per frame, the id of the
 * group with the most self time, -1 for none; the tick)}: the self time
 * per column of the groups listed by id (groups), else of every group
 * with nodes: vp_export_vprof_columns. */
static int l_columns(lua_State *L)
{
    vp_vprof *m = check_vprof(L, 1);
    lua_Integer cols = luaL_checkinteger(L, 2);
    luaL_argcheck(L, cols >= 1 && cols <= 1 << 16, 2, "columns must be in 1..65536");
    int minmax = 0, per_frame = 0, listed = 0;
    if (!lua_isnoneornil(L, 3)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        minmax = vp_l_opt_bool(L, 3, "minmax", 0);
        per_frame = vp_l_opt_bool(L, 3, "per_frame", 0);
        listed = lua_getfield(L, 3, "groups") != LUA_TNIL;
        if (listed)
            luaL_argcheck(L, lua_istable(L, -1), 3, "groups must be a list of group ids");
        lua_pop(L, 1);
    }
    /* the groups' indices, in userdata so an error raised below frees them */
    uint32_t *groups = lua_newuserdatauv(L, (size_t)m->group_count * sizeof *groups + 1, 0);
    uint32_t ng = 0;
    if (listed) {
        lua_getfield(L, 3, "groups");
        lua_Integer n = luaL_len(L, -1);
        luaL_argcheck(L, n >= 0 && n <= (lua_Integer)m->group_count, 3, "at most one id per group");
        /* group index by id (ids are unique: vp_vprof's groups) */
        lua_createtable(L, 0, (int)m->group_count);
        for (uint32_t g = 0; g < m->group_count; g++) {
            lua_pushinteger(L, g);
            lua_rawseti(L, -2, m->groups[g].id);
        }
        lua_createtable(L, 0, (int)n); /* ids seen */
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, -3, i);
            lua_pushvalue(L, -1);
            int known = lua_rawget(L, -4) == LUA_TNUMBER;
            luaL_argcheck(L, known, 3, "an id that names no group");
            uint32_t g = (uint32_t)lua_tointeger(L, -1);
            lua_pop(L, 1);
            lua_pushvalue(L, -1);
            luaL_argcheck(L, lua_rawget(L, -3) == LUA_TNIL, 3, "a group listed twice");
            lua_pop(L, 1);
            lua_pushboolean(L, 1);
            lua_rawset(L, -3);
            groups[ng++] = g;
        }
        lua_pop(L, 3);
    } else {
        for (uint32_t g = 0; g < m->group_count; g++)
            if (m->groups[g].has_nodes)
                groups[ng++] = g;
    }
    size_t cells = (size_t)cols * ng;
    vp_export_columns c = {(uint32_t)cols, ng, groups, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    c.sum = lua_newuserdatauv(L, ((minmax ? 3 : 1) * cells + (size_t)cols) * sizeof(double) + 1, 0);
    if (minmax) {
        c.min = c.sum + cells;
        c.max = c.min + cells;
    }
    if (listed)
        c.other = c.sum + (minmax ? 3 : 1) * cells;
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
    lua_createtable(L, 0, 7);
    push_by_group(L, m, &c, c.sum);
    lua_setfield(L, -2, "sum");
    push_list(L, NULL, c.frames, (size_t)cols);
    lua_setfield(L, -2, "frames");
    if (c.other) {
        push_list(L, c.other, NULL, (size_t)cols);
        lua_setfield(L, -2, "other");
    }
    if (minmax) {
        push_by_group(L, m, &c, c.min);
        lua_setfield(L, -2, "min");
        push_by_group(L, m, &c, c.max);
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
        {"vprof", l_vprof}, {"folded", l_folded}, {"columns", l_columns}, {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
