/* Placeholder until the VProf writer lands. */
#include "l_common.h"
#include "l_formats.h"

int vp_l_writer_vprof(lua_State *L, const char *path, int opts)
{
    (void)path;
    (void)opts;
    return luaL_error(L, "vp.writer: the vprof writer is not built yet");
}
