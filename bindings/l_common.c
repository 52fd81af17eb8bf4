#include "l_common.h"

#include <string.h>

vp_lcap *vp_lcap_new(lua_State *L, const char *tname, void *model, void (*free_model)(void *),
                     const char *format, const char *path, uint64_t size, const vp_warnings *w)
{
    vp_lcap *c = lua_newuserdatauv(L, sizeof *c, 2);
    c->model = model;
    c->free_model = free_model;
    luaL_setmetatable(L, tname);

    lua_createtable(L, 0, 8);
    lua_pushstring(L, format);
    lua_setfield(L, -2, "format");
    lua_pushstring(L, path);
    lua_setfield(L, -2, "path");
    lua_pushinteger(L, (lua_Integer)size);
    lua_setfield(L, -2, "size");
    lua_createtable(L, w ? (int)w->count : 0, 0);
    for (size_t i = 0; w && i < w->count; i++) {
        lua_pushstring(L, w->items[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "warnings");
    lua_setiuservalue(L, -2, 1);

    lua_newtable(L);
    lua_setiuservalue(L, -2, 2);
    return c;
}

vp_lcap *vp_lcap_check(lua_State *L, int idx, const char *tname)
{
    vp_lcap *c = luaL_checkudata(L, idx, tname);
    if (!c->model)
        luaL_error(L, "capture is closed");
    return c;
}

void vp_lcap_close(vp_lcap *c)
{
    if (c->model && c->free_model)
        c->free_model(c->model);
    c->model = NULL;
}

void vp_lcap_setfield(lua_State *L, int idx, const char *key)
{
    idx = lua_absindex(L, idx);
    lua_getiuservalue(L, idx, 1);
    lua_insert(L, -2);
    lua_setfield(L, -2, key);
    lua_pop(L, 1);
}

void vp_lcap_cache(lua_State *L, int idx)
{
    lua_getiuservalue(L, idx, 2);
}

void *vp_lchild_new(lua_State *L, size_t size, const char *tname, int cap_idx)
{
    cap_idx = lua_absindex(L, cap_idx);
    void *p = lua_newuserdatauv(L, size, 1);
    memset(p, 0, size);
    luaL_setmetatable(L, tname);
    lua_pushvalue(L, cap_idx);
    lua_setiuservalue(L, -2, 1);
    return p;
}

void *vp_lchild_check(lua_State *L, int idx, const char *tname, void **model)
{
    void *p = luaL_checkudata(L, idx, tname);
    lua_getiuservalue(L, idx, 1);
    vp_lcap *c = lua_touserdata(L, -1);
    lua_pop(L, 1);
    if (!c || !c->model)
        luaL_error(L, "capture is closed");
    *model = c->model;
    return p;
}

void vp_lchild_pushcap(lua_State *L, int idx)
{
    lua_getiuservalue(L, idx, 1);
}

/* __index: methods first, then the fields table (captures), then the
 * class's property getter. Upvalues: methods, getter (or nil). */
static int class_index(lua_State *L)
{
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL)
        return 1;
    lua_pop(L, 1);
    if (lua_getiuservalue(L, 1, 1) == LUA_TTABLE) {
        lua_pushvalue(L, 2);
        if (lua_rawget(L, -2) != LUA_TNIL)
            return 1;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    if (lua_isnil(L, lua_upvalueindex(2)))
        return 0;
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_call(L, 2, 1);
    return 1;
}

void vp_l_class(lua_State *L, const char *tname, const luaL_Reg *meta, const luaL_Reg *methods,
                lua_CFunction getter)
{
    luaL_newmetatable(L, tname);
    if (meta)
        luaL_setfuncs(L, meta, 0);
    lua_newtable(L);
    if (methods)
        luaL_setfuncs(L, methods, 0);
    /* Expose the methods table so help() and completion can list it. */
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, "__methods");
    if (getter)
        lua_pushcfunction(L, getter);
    else
        lua_pushnil(L);
    lua_pushcclosure(L, class_index, 2);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

int vp_l_fail(lua_State *L, const char *path, const vp_error *err)
{
    lua_pushnil(L);
    lua_pushfstring(L, "%s: %s", path, err->msg);
    lua_pushstring(L, vp_errcode_name(err->code));
    return 3;
}

int vp_l_raise(lua_State *L, const char *path, const vp_error *err)
{
    return luaL_error(L, "%s: %s", path, err->msg);
}

void vp_l_push_vec(lua_State *L, const float *xyz, const float *w)
{
    lua_createtable(L, 0, w ? 4 : 3);
    lua_pushnumber(L, xyz[0]);
    lua_setfield(L, -2, "x");
    lua_pushnumber(L, xyz[1]);
    lua_setfield(L, -2, "y");
    lua_pushnumber(L, xyz[2]);
    lua_setfield(L, -2, "z");
    if (w) {
        lua_pushnumber(L, *w);
        lua_setfield(L, -2, "w");
    }
}

int vp_l_opt_bool(lua_State *L, int idx, const char *key, int def)
{
    if (!lua_istable(L, idx))
        return def;
    lua_getfield(L, idx, key);
    int v = lua_isnil(L, -1) ? def : lua_toboolean(L, -1);
    lua_pop(L, 1);
    return v;
}

lua_Integer vp_l_opt_int(lua_State *L, int idx, const char *key, lua_Integer def)
{
    if (!lua_istable(L, idx))
        return def;
    lua_getfield(L, idx, key);
    lua_Integer v = def;
    if (!lua_isnil(L, -1)) {
        int ok;
        v = lua_tointegerx(L, -1, &ok);
        if (!ok)
            luaL_error(L, "option '%s' must be an integer", key);
    }
    lua_pop(L, 1);
    return v;
}

const char *vp_l_opt_str(lua_State *L, int idx, const char *key, const char *def)
{
    if (!lua_istable(L, idx))
        return def;
    lua_getfield(L, idx, key);
    const char *v = def;
    if (!lua_isnil(L, -1)) {
        v = lua_tostring(L, -1);
        if (!v)
            luaL_error(L, "option '%s' must be a string", key);
    }
    /* The string stays alive in the options table, which the caller holds. */
    lua_pop(L, 1);
    return v;
}
