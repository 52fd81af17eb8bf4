/* The debug-trace bindings' shared glue (l_trace.h). */
#include "l_trace.h"

#include <string.h>

void *vp_ltrace_list(lua_State *L, int idx, const char *who, const char *what, size_t elem_size,
                     vp_ltrace_fill fill, size_t *n)
{
    idx = lua_absindex(L, idx);
    *n = lua_istable(L, idx) ? (size_t)lua_rawlen(L, idx) : 0;
    char *list = lua_newuserdatauv(L, (*n ? *n : 1) * elem_size, 0);
    memset(list, 0, (*n ? *n : 1) * elem_size);
    for (size_t i = 0; i < *n; i++) {
        if (lua_rawgeti(L, idx, (lua_Integer)i + 1) != LUA_TTABLE)
            luaL_error(L, "%s: %s %d must be a table", who, what, (int)i + 1);
        fill(L, lua_gettop(L), list + i * elem_size);
        lua_pop(L, 1);
    }
    return list;
}

void *vp_ltrace_part(lua_State *L, const char *who, const char *what, size_t elem_size,
                     vp_ltrace_fill fill, size_t *n, vp_wframing *f)
{
    luaL_checktype(L, 2, LUA_TTABLE);
    if (!lua_isnoneornil(L, 3))
        luaL_checktype(L, 3, LUA_TTABLE);
    void *list = vp_ltrace_list(L, 2, who, what, elem_size, fill, n);
    vp_l_framing_opt(L, 3, who, f);
    return list;
}

uint32_t vp_ltrace_opt_u32(lua_State *L, int opts, const char *who, const char *key,
                           lua_Integer max)
{
    if (!lua_istable(L, opts))
        return 0;
    lua_getfield(L, opts, key);
    uint32_t v = lua_isnil(L, -1) ? 0 : vp_l_uint_range(L, -1, who, key, max);
    lua_pop(L, 1);
    return v;
}

int vp_ltrace_opt_count(lua_State *L, int opts, const char *who, const char *key,
                        uint32_t *count)
{
    if (!lua_istable(L, opts))
        return 0;
    lua_getfield(L, opts, key);
    int has = !lua_isnil(L, -1);
    if (has)
        *count = vp_l_uint_range(L, -1, who, key, UINT32_MAX);
    lua_pop(L, 1);
    return has;
}
