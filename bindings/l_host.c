/* The vp.host module: what a script needs of the process it runs in, for
 * vpscript and a stock lua5.4 alike (require "vp.host": preloaded by
 * luaopen_vp, and luaopen_vp_host in vp.so):
 *
 *   local host = require "vp.host"
 *   host.sandbox(source, name [, limits])   -- l_sandbox.c
 *       -> value | nil, message, kind [, where]
 *   host.isatty(stream)        -- stream: "stdin", "stdout" or "stderr"
 *   host.columns(stream)       -- the terminal's width, or nil */
#include <sys/ioctl.h>
#include <unistd.h>

#include <lauxlib.h>

#include "l_formats.h"

static int stream_fd(lua_State *L, int idx)
{
    static const char *const names[] = {"stdin", "stdout", "stderr", NULL};
    return luaL_checkoption(L, idx, NULL, names);
}

static int host_isatty(lua_State *L)
{
    lua_pushboolean(L, isatty(stream_fd(L, 1)));
    return 1;
}

static int host_columns(lua_State *L)
{
    struct winsize ws;
    int fd = stream_fd(L, 1);
    if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        lua_pushinteger(L, ws.ws_col);
    else
        lua_pushnil(L);
    return 1;
}

int luaopen_vp_host(lua_State *L)
{
    static const luaL_Reg fns[] = {{"sandbox", vp_l_sandbox},
                                   {"isatty", host_isatty},
                                   {"columns", host_columns},
                                   {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
