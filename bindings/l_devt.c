/* Placeholder until the devt model lands: opening reports it clearly. */
#include "l_common.h"
#include "l_formats.h"

int vp_l_open_devt(lua_State *L, const char *path, int opts)
{
    (void)opts;
    lua_pushnil(L);
    lua_pushfstring(L, "%s: the devt format is not supported yet", path);
    lua_pushliteral(L, "EFORMAT");
    return 3;
}

int vp_l_writer_devt(lua_State *L, const char *path, int opts)
{
    (void)path;
    (void)opts;
    return luaL_error(L, "vp.writer: the devt format is not supported yet");
}

void vp_l_register_devt(lua_State *L)
{
    (void)L;
}
