/* luaopen_vp: the `vp` module, shared by the vpscript host (preloaded) and
 * the loadable vp.so for stock lua5.4. */
#include <string.h>

#include "core/registry.h"
#include "core/sha256.h"
#include "l_common.h"
#include "l_dist.h"
#include "l_formats.h"

#ifndef VP_VERSION
#define VP_VERSION "0.1.0"
#endif

/* The Lua side of each format in the registry (core/registry.c): formats
 * with a C reader name it; the laige reports are read in Lua by vp.laige. */
static const struct format_glue {
    const char *id;
    vp_l_open_fn open; /* NULL: implemented in Lua by vp.laige */
} glue[] = {
    {VP_FMT_VPROF, vp_l_open_vprof},
    {VP_FMT_DEVT, vp_l_open_devt},
    {VP_FMT_DLAG, vp_l_open_dlag},
    {VP_FMT_DM, vp_l_open_dm},
    {VP_FMT_DW, vp_l_open_dw},
    {VP_FMT_LAIGE_PROFILE, NULL},
    {VP_FMT_LAIGE_BUDGET, NULL},
};

/* The glue of a format the registry knows, or NULL. */
static const struct format_glue *glue_find(const char *id)
{
    if (!vp_format_find(id))
        return NULL;
    for (size_t i = 0; i < sizeof glue / sizeof glue[0]; i++)
        if (strcmp(glue[i].id, id) == 0)
            return &glue[i];
    return NULL;
}

/* vp.formats() -> {{name, description, extensions = {...}}, ...} */
static int vp_formats_l(lua_State *L)
{
    size_t n;
    const vp_format *f = vp_formats(&n);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 3);
        lua_pushstring(L, f[i].id);
        lua_setfield(L, -2, "name");
        lua_pushstring(L, f[i].description);
        lua_setfield(L, -2, "description");
        lua_newtable(L);
        for (int k = 0; k < VP_FORMAT_MAX_EXT && f[i].ext[k]; k++) {
            lua_pushstring(L, f[i].ext[k]);
            lua_rawseti(L, -2, k + 1);
        }
        lua_setfield(L, -2, "extensions");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* vp.detect(path) -> format | nil, message, code */
static int vp_detect_l(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    const char *fmt = NULL;
    vp_error err;
    if (vp_detect_file(path, &fmt, &err) != VP_OK)
        return vp_l_fail(L, path, &err);
    lua_pushstring(L, fmt);
    return 1;
}

/* vp.sha256(bytes) -> 64 hex digits: the content hash vp.history keys
 * its captures by. */
static int vp_sha256_l(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    char hex[65];
    vp_sha256_hex(s, n, hex);
    lua_pushstring(L, hex);
    return 1;
}

/* vp.sha256_file(path) -> 64 hex digits | nil, message, code */
static int vp_sha256_file_l(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    char hex[65];
    vp_error err;
    if (vp_sha256_file(path, hex, &err) != VP_OK)
        return vp_l_fail(L, path, &err);
    lua_pushstring(L, hex);
    return 1;
}

/* Open path as fmt (a format the registry knows) with the options at index
 * opts: push what vp.open returns (the capture, or nil, message, code) and
 * return how many. */
static int open_as(lua_State *L, const char *path, const char *fmt, int opts)
{
    const struct format_glue *f = glue_find(fmt);
    if (!f)
        return luaL_error(L, "vp.open: format '%s' has no reader", fmt);
    if (f->open)
        return f->open(L, path, opts);
    /* The laige reports are text and JSON: parsed in Lua by vp.laige. */
    lua_getglobal(L, "require");
    lua_pushliteral(L, "vp.laige");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "open");
    lua_pushstring(L, path);
    lua_pushvalue(L, opts);
    lua_pushstring(L, f->id);
    lua_call(L, 3, 3);
    if (lua_isnil(L, -3))
        return 3;
    lua_pop(L, 2);
    return 1;
}

/* vp.open(path [, opts]) -> cap | nil, message, code */
static int vp_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    if (!lua_isnoneornil(L, 2))
        luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    const char *fmt = vp_l_opt_str(L, 2, "format", NULL);
    vp_error err;
    if (fmt) {
        if (!glue_find(fmt))
            return luaL_error(L, "vp.open: unknown format '%s'", fmt);
    } else if (vp_detect_file(path, &fmt, &err) != VP_OK) {
        return vp_l_fail(L, path, &err);
    }
    return open_as(L, path, fmt, 2);
}

/* vp.open_all(paths [, opts]) -> caps, failures: vp.open of every path with
 * the same options, caps[i] the capture or false, failures[i] = {message,
 * code} where it could not be opened. The VProf captures are read at once,
 * on threads of their own (the processors a machine has to spare read the
 * runs of a comparison or a gate together); the others one after another. */
static int vp_open_all(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    if (!lua_isnoneornil(L, 2))
        luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    const char *forced = vp_l_opt_str(L, 2, "format", NULL);
    if (forced && !glue_find(forced))
        return luaL_error(L, "vp.open_all: unknown format '%s'", forced);
    lua_Integer n = luaL_len(L, 1);
    luaL_argcheck(L, n >= 0 && n < (lua_Integer)1 << 24, 1, "too many paths");
    lua_createtable(L, (int)n, 0); /* 3: caps */
    lua_newtable(L);               /* 4: failures */
    const char **vpaths = lua_newuserdatauv(L, (size_t)n * sizeof *vpaths + 1, 0);
    lua_Integer *slots = lua_newuserdatauv(L, (size_t)n * sizeof *slots + 1, 0);
    size_t nv = 0;
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_rawgeti(L, 1, i) != LUA_TSTRING)
            return luaL_error(L, "vp.open_all: path %d must be a string", (int)i);
        const char *path = lua_tostring(L, -1); /* kept alive by paths */
        lua_pop(L, 1);
        const char *fmt = forced;
        vp_error err;
        int got;
        if (!fmt && vp_detect_file(path, &fmt, &err) != VP_OK) {
            got = vp_l_fail(L, path, &err);
        } else if (strcmp(fmt, VP_FMT_VPROF) == 0) {
            vpaths[nv] = path;
            slots[nv++] = i;
            continue;
        } else {
            got = open_as(L, path, fmt, 2);
        }
        if (got == 1) {
            lua_rawseti(L, 3, i);
        } else {
            vp_l_fail_table(L);
            lua_rawseti(L, 4, i);
            lua_pushboolean(L, 0);
            lua_rawseti(L, 3, i);
        }
        lua_settop(L, 6);
    }
    if (nv)
        vp_l_open_vprof_all(L, vpaths, slots, nv, 2, 3, 4);
    lua_settop(L, 4);
    return 2;
}

/* vp.writer(format, path [, opts]) -> writer: the writers are Lua, built
 * with string.pack (vp.write, stdlib/vp/write/<format>.lua); an error is
 * raised where vp.writer was called, as a C function raises it. */
static int vp_writer(lua_State *L)
{
    lua_settop(L, 3);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "vp.write");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "open");
    lua_remove(L, -2);
    lua_insert(L, 1);
    if (lua_pcall(L, 3, 1, 0) != LUA_OK) {
        if (lua_type(L, -1) == LUA_TSTRING) {
            luaL_where(L, 1);
            lua_insert(L, -2);
            lua_concat(L, 2);
        }
        return lua_error(L);
    }
    return 1;
}

int luaopen_vp(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"open", vp_open},       {"open_all", vp_open_all}, {"batches_all", vp_l_batches_all}, {"frames_of", vp_l_frames_of}, {"writer", vp_writer},   {"formats", vp_formats_l},
        {"detect", vp_detect_l}, {"Series", vp_l_series_new}, {"Dist", vp_l_dist_of},
        {"sha256", vp_sha256_l}, {"sha256_file", vp_sha256_file_l}, {NULL, NULL}};
    vp_l_register_series(L);
    vp_l_register_dist(L);
    vp_l_register_vprof(L);
    vp_l_register_devt(L);
    vp_l_register_dlag(L);
    vp_l_register_dm(L);
    vp_l_register_dw(L);
    /* The statistics' C loops are vp.infer's engine, not part of the vp
     * namespace: require "vp.infer.core" (after require "vp") finds them. */
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, vp_l_open_infer);
    lua_setfield(L, -2, "vp.infer.core");
    lua_pushcfunction(L, vp_l_open_export);
    lua_setfield(L, -2, "vp.export.core");
    lua_pushcfunction(L, vp_l_open_hitches);
    lua_setfield(L, -2, "vp.hitches.core");
    lua_pushcfunction(L, vp_l_open_json);
    lua_setfield(L, -2, "vp.json.core");
    lua_pushcfunction(L, luaopen_vp_host);
    lua_setfield(L, -2, "vp.host");
    lua_pushcfunction(L, vp_l_open_text);
    lua_setfield(L, -2, "vp.text.core");
    lua_pushcfunction(L, vp_l_open_output);
    lua_setfield(L, -2, "vp.output.core");
    lua_pop(L, 1);
    luaL_newlib(L, fns);
    lua_pushliteral(L, VP_VERSION);
    lua_setfield(L, -2, "version");
    return 1;
}
