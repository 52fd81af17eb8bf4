/* Minimal bootstrap host; replaced by the full CLI. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>

int luaopen_vp(lua_State *L);

int main(int argc, char **argv)
{
    lua_State *L = luaL_newstate();
    luaL_openlibs(L);
    luaL_requiref(L, "vp", luaopen_vp, 1);
    lua_pop(L, 1);
    (void)luaL_dostring(L, "package.path = './stdlib/?.lua;./stdlib/?/init.lua;' .. package.path");
    if (argc < 2) {
        fprintf(stderr, "usage: vpscript script [args]\n");
        return 2;
    }
    lua_createtable(L, argc, 1);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, i - 1);
    }
    lua_setglobal(L, "arg");
    int status = luaL_loadfile(L, argv[1]);
    if (status == LUA_OK) {
        for (int i = 2; i < argc; i++)
            lua_pushstring(L, argv[i]);
        status = lua_pcall(L, argc - 2, 0, 0);
    }
    if (status != LUA_OK)
        fprintf(stderr, "vpscript: %s\n", lua_tostring(L, -1));
    lua_close(L);
    return status == LUA_OK ? 0 : 1;
}
