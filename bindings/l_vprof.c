/* Placeholder until the vprof model lands: opening reports it clearly. */
#include "l_common.h"
#include "l_formats.h"

int vp_l_open_vprof(lua_State *L, const char *path, int opts)
{
    (void)opts;
    lua_pushnil(L);
    lua_pushfstring(L, "%s: the vprof format is not supported yet", path);
    lua_pushliteral(L, "EFORMAT");
    return 3;
}

void vp_l_register_vprof(lua_State *L)
{
    (void)L;
}
