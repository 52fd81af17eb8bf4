/* vp.writer("vprof", path [, opts]): the Lua face of write/vprof_write.h.
 * Tests and examples build captures with it, broken ones included (raw,
 * truncate). The file is written as it goes: w:data() reads it back, and a
 * cut asked for with w:truncate(n) is made when the file is closed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "write/vprof_write.h"
#include "l_common.h"
#include "l_formats.h"

#define WRITER_T "vp.vprof.writer"

typedef struct lwriter {
    vp_lwriter base; /* base.w: the vp_vprof_writer */
    vp_vprof_wtiming *times;
    size_t times_cap;
    vp_vprof_wopts opts;
} lwriter;

/* vprof_wclose, vprof_wsize, vprof_wraw, vprof_wtruncate, vprof_wdata (l_common.h). */
VP_LWRITER_FORWARD_CLOSE(vprof)
VP_LWRITER_FORWARD(vprof)

/* The frame times buffer goes with the host writer. */
static void vprof_wrelease(vp_lwriter *base)
{
    lwriter *lw = (lwriter *)base;
    free(lw->times);
    lw->times = NULL;
    lw->times_cap = 0;
}

static lwriter *lwriter_check(lua_State *L)
{
    return (lwriter *)vp_lwriter_check(L, WRITER_T);
}

static int32_t check_i32(lua_State *L, int arg, const char *what)
{
    lua_Integer v = luaL_checkinteger(L, arg);
    if (v < INT32_MIN || v > INT32_MAX)
        luaL_error(L, "%s %I does not fit an int32", what, v);
    return (int32_t)v;
}

/* w:group(name [, flags]) -> id */
static int lwriter_group(lua_State *L)
{
    lwriter *lw = lwriter_check(L);
    const char *name = luaL_checkstring(L, 2);
    lua_Integer flags = luaL_optinteger(L, 3, 0);
    /* Flags are a bit set written as int32: accept the unsigned spelling too. */
    if (flags < INT32_MIN || flags > (lua_Integer)UINT32_MAX)
        return luaL_error(L, "group flags %I do not fit 32 bits", flags);
    int32_t id;
    vp_error err;
    if (vp_vprof_writer_group(lw->base.w, name, (int32_t)(uint32_t)flags, &id, &err) != VP_OK)
        return vp_lwriter_raise(L, &lw->base, &err);
    lua_pushinteger(L, id);
    return 1;
}

/* w:default_groups() -> {name = id}: the spec's 31 default groups, in ID
 * order. */
static int lwriter_default_groups(lua_State *L)
{
    lwriter *lw = lwriter_check(L);
    vp_error err;
    lua_createtable(L, 0, VP_VPROF_WRITER_DEFAULTS);
    for (int i = 0; i < VP_VPROF_WRITER_DEFAULTS; i++) {
        int32_t id;
        if (vp_vprof_writer_group(lw->base.w, vp_vprof_writer_defaults[i].name,
                                  vp_vprof_writer_defaults[i].flags, &id, &err) != VP_OK)
            return vp_lwriter_raise(L, &lw->base, &err);
        lua_pushinteger(L, id);
        lua_setfield(L, -2, vp_vprof_writer_defaults[i].name);
    }
    return 1;
}

/* w:node(parent_id, name, group_id [, node_id]) -> node_id */
static int lwriter_node(lua_State *L)
{
    lwriter *lw = lwriter_check(L);
    int32_t parent = check_i32(L, 2, "parent id");
    const char *name = luaL_checkstring(L, 3);
    int32_t group = check_i32(L, 4, "group id");
    int32_t id;
    vp_error err;
    if (lua_isnoneornil(L, 5)) {
        if (vp_vprof_writer_next_id(lw->base.w, &id, &err) != VP_OK)
            return vp_lwriter_raise(L, &lw->base, &err);
    } else {
        id = check_i32(L, 5, "node id");
    }
    if (vp_vprof_writer_node(lw->base.w, parent, name, group, id, NULL, &err) != VP_OK)
        return vp_lwriter_raise(L, &lw->base, &err);
    lua_pushinteger(L, id);
    return 1;
}

/* Microseconds from a Lua number: truncated, must be >= 0. */
static uint64_t check_us(lua_State *L, int idx, lua_Integer node_id)
{
    int isnum;
    lua_Number us = lua_tonumberx(L, idx, &isnum);
    if (!isnum)
        luaL_error(L, "w:frame: time of node %I must be a number, got %s", node_id,
                   luaL_typename(L, idx));
    if (!(us >= 0) || us >= 18446744073709551616.0)
        luaL_error(L, "w:frame: time of node %I must be a finite number >= 0", node_id);
    return (uint64_t)floor(us);
}

/* w:frame(tick [, times]); times[node_id] = us | {us = , calls = } */
static int lwriter_frame(lua_State *L)
{
    lwriter *lw = lwriter_check(L);
    int32_t tick = check_i32(L, 2, "tick");
    if (!lua_isnoneornil(L, 3))
        luaL_checktype(L, 3, LUA_TTABLE);
    size_t n = vp_vprof_writer_node_count(lw->base.w);
    if (n > lw->times_cap) {
        size_t cap = lw->times_cap ? lw->times_cap : 64;
        while (cap < n)
            cap *= 2;
        vp_vprof_wtiming *t = realloc(lw->times, cap * sizeof *t);
        if (!t)
            return luaL_error(L, "w:frame: out of memory");
        lw->times = t;
        lw->times_cap = cap;
    }
    memset(lw->times, 0, n * sizeof *lw->times);
    if (lua_istable(L, 3)) {
        lua_pushnil(L);
        while (lua_next(L, 3)) {
            int isint;
            lua_Integer id = lua_tointegerx(L, -2, &isint);
            if (!isint || id < INT32_MIN || id > INT32_MAX)
                return luaL_error(L, "w:frame: times keys must be node ids (int32), got %s",
                                  luaL_typename(L, -2));
            long slot = vp_vprof_writer_slot(lw->base.w, (int32_t)id);
            if (slot < 0)
                return luaL_error(L, "w:frame: times names node id %I, which was never added",
                                  id);
            vp_vprof_wtiming *t = &lw->times[slot];
            if (lua_istable(L, -1)) {
                lua_getfield(L, -1, "us");
                t->time_us = lua_isnil(L, -1) ? 0 : check_us(L, -1, id);
                lua_pop(L, 1);
                lua_getfield(L, -1, "calls");
                if (lua_isnil(L, -1)) {
                    t->calls = 1;
                } else {
                    lua_Integer c = lua_tointegerx(L, -1, &isint);
                    if (!isint || c < 0)
                        return luaL_error(L, "w:frame: calls of node %I must be an integer >= 0",
                                          id);
                    t->calls = c > (lua_Integer)UINT32_MAX ? UINT32_MAX : (uint32_t)c;
                }
                lua_pop(L, 1);
            } else {
                t->time_us = check_us(L, -1, id);
                t->calls = 1;
            }
            lua_pop(L, 1);
        }
    }
    vp_error err;
    if (vp_vprof_writer_frame(lw->base.w, tick, lw->times, &err) != VP_OK)
        return vp_lwriter_raise(L, &lw->base, &err);
    return 0;
}

static int lwriter_get(lua_State *L)
{
    lwriter *lw = luaL_checkudata(L, 1, WRITER_T);
    const char *k = lua_tostring(L, 2);
    if (!k)
        return 0;
    if (strcmp(k, "root_id") == 0)
        lua_pushinteger(L, lw->opts.root_id);
    else if (strcmp(k, "escape_width") == 0)
        lua_pushinteger(L, lw->opts.escape_width);
    else if (strcmp(k, "group_base") == 0)
        lua_pushinteger(L, lw->opts.group_base);
    else if (strcmp(k, "version") == 0)
        lua_pushinteger(L, lw->opts.version);
    else if (lw->base.w && strcmp(k, "frames") == 0)
        lua_pushinteger(L, (lua_Integer)vp_vprof_writer_frame_count(lw->base.w));
    else if (lw->base.w && strcmp(k, "node_count") == 0)
        lua_pushinteger(L, (lua_Integer)vp_vprof_writer_node_count(lw->base.w));
    else if (lw->base.w && strcmp(k, "group_count") == 0)
        lua_pushinteger(L, (lua_Integer)vp_vprof_writer_group_count(lw->base.w));
    else
        return 0;
    return 1;
}

static const luaL_Reg vprof_wmethods[] = {{"group", lwriter_group},
                                          {"default_groups", lwriter_default_groups},
                                          {"node", lwriter_node},
                                          {"frame", lwriter_frame},
                                          {NULL, NULL}};

static const vp_lwriter_ops vprof_wops = {.tname = WRITER_T,
                                          .name = "vprof writer",
                                          .methods = vprof_wmethods,
                                          .get = lwriter_get,
                                          .close = vprof_wclose,
                                          .release = vprof_wrelease,
                                          VP_LWRITER_FORWARDED(vprof)};

static int32_t opt_i32(lua_State *L, int opts, const char *key, int32_t def)
{
    lua_Integer v = vp_l_opt_int(L, opts, key, def);
    if (v < INT32_MIN || v > INT32_MAX)
        luaL_error(L, "vp.writer: option '%s' (%I) does not fit an int32", key, v);
    return (int32_t)v;
}

int vp_l_writer_vprof(lua_State *L, const char *path, int opts)
{
    vp_vprof_wopts o;
    vp_vprof_wopts_init(&o);
    o.version = opt_i32(L, opts, "version", o.version);
    o.root_id = opt_i32(L, opts, "root_id", o.root_id);
    o.escape_width = (int)opt_i32(L, opts, "escape_width", o.escape_width);
    o.group_base = opt_i32(L, opts, "group_base", o.group_base);
    if (o.escape_width != 4 && o.escape_width != 8)
        return luaL_error(L, "vp.writer: option 'escape_width' must be 4 or 8, got %d",
                          o.escape_width);
    if (o.group_base < 0)
        return luaL_error(L, "vp.writer: option 'group_base' must be >= 0 (0 or 31), got %d",
                          (int)o.group_base);
    lwriter *lw = (lwriter *)vp_lwriter_new(L, &vprof_wops, sizeof *lw, path);
    lw->opts = o;
    vp_error err;
    lw->base.w = vp_vprof_writer_open(path, &o, &err);
    if (!lw->base.w)
        return luaL_error(L, "vp.writer: %s", err.msg);
    return 1;
}
