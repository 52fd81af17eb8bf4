/* vp.output.core: core/outfile for stdlib/vp/output.lua; luaopen_vp
 * preloads it. Glue only: an output (userdata "vp.output.file") owns a
 * vp_outfile and a Lua file handle on its FILE, which Lua code and the C
 * exporters write; commit or abort closes both. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "core/outfile.h"
#include "l_formats.h"

#define OUTPUT_MT "vp.output.file"

typedef struct output {
    vp_outfile o;
    int open; /* neither committed nor aborted */
} output;

/* The handle's own close (f:close() by a script): nothing; the FILE is
 * the output's, closed by commit or abort. */
static int handle_close(lua_State *L)
{
    lua_pushboolean(L, 1);
    return 1;
}

/* The handle stops being usable from Lua (io sees closef == NULL as closed). */
static void handle_detach(lua_State *L, int idx)
{
    lua_getiuservalue(L, idx, 1);
    luaL_Stream *p = lua_touserdata(L, -1);
    if (p) {
        p->closef = NULL;
        p->f = NULL;
    }
    lua_pop(L, 1);
}

/* open(path) -> output | nil, message */
static int l_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    output *out = lua_newuserdatauv(L, sizeof *out, 1);
    out->open = 0;
    vp_error err;
    if (vp_outfile_open(path, &out->o, &err) != VP_OK) {
        luaL_pushfail(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    out->open = 1;
    luaL_setmetatable(L, OUTPUT_MT);
    luaL_Stream *p = lua_newuserdatauv(L, sizeof *p, 0);
    p->f = out->o.f;
    p->closef = handle_close;
    luaL_setmetatable(L, LUA_FILEHANDLE);
    lua_setiuservalue(L, -2, 1);
    return 1;
}

/* out:file() -> the Lua file handle to write to */
static int l_file(lua_State *L)
{
    luaL_checkudata(L, 1, OUTPUT_MT);
    lua_getiuservalue(L, 1, 1);
    return 1;
}

/* out:commit() -> true | nil, message */
static int l_commit(lua_State *L)
{
    output *out = luaL_checkudata(L, 1, OUTPUT_MT);
    luaL_argcheck(L, out->open, 1, "the output was already committed or aborted");
    handle_detach(L, 1);
    out->open = 0;
    vp_error err;
    vp_errcode rc = vp_outfile_commit(&out->o, &err);
    vp_outfile_free(&out->o);
    if (rc != VP_OK) {
        luaL_pushfail(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

/* out:abort(): the new file removed, the destination untouched (also __gc, __close) */
static int l_abort(lua_State *L)
{
    output *out = luaL_checkudata(L, 1, OUTPUT_MT);
    if (out->open) {
        handle_detach(L, 1);
        out->open = 0;
        vp_outfile_abort(&out->o);
        vp_outfile_free(&out->o);
    }
    return 0;
}

/* stat(path) -> kind ("file", "directory" or "other"), "dev:ino" | nil:
 * the same identity string for two names of one file */
static int l_stat(lua_State *L)
{
    uint64_t dev, ino;
    int kind = vp_file_identity(luaL_checkstring(L, 1), &dev, &ino);
    if (!kind) {
        luaL_pushfail(L);
        return 1;
    }
    lua_pushstring(L, kind == VP_FILE_REGULAR ? "file" : kind == VP_FILE_DIRECTORY ? "directory" : "other");
    lua_pushfstring(L, "%I:%I", (lua_Integer)dev, (lua_Integer)ino);
    return 2;
}

int vp_l_open_output(lua_State *L)
{
    static const luaL_Reg methods[] = {{"file", l_file}, {"commit", l_commit}, {"abort", l_abort}, {NULL, NULL}};
    if (luaL_newmetatable(L, OUTPUT_MT)) {
        luaL_newlib(L, methods);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, l_abort);
        lua_setfield(L, -2, "__gc");
        lua_pushcfunction(L, l_abort);
        lua_setfield(L, -2, "__close");
    }
    lua_pop(L, 1);
    static const luaL_Reg fns[] = {{"open", l_open}, {"stat", l_stat}, {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
