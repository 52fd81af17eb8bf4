/* Placeholder until the dw model lands: opening reports it clearly. */
#include "l_common.h"
#include "l_formats.h"

int vp_l_open_dw(lua_State *L, const char *path, int opts)
{
    (void)opts;
    lua_pushnil(L);
    lua_pushfstring(L, "%s: the dw format is not supported yet", path);
    lua_pushliteral(L, "EFORMAT");
    return 3;
}

int vp_l_writer_dw(lua_State *L, const char *path, int opts)
{
    (void)path;
    (void)opts;
    return luaL_error(L, "vp.writer: the dw format is not supported yet");
}

void vp_l_register_dw(lua_State *L)
{
    (void)L;
}
