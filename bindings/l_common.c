#include "l_common.h"

#include <stdio.h>
#include <stdlib.h>
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

void vp_lcap_set_int(lua_State *L, int idx, const char *key, lua_Integer v)
{
    idx = lua_absindex(L, idx);
    lua_pushinteger(L, v);
    vp_lcap_setfield(L, idx, key);
}

void vp_lcap_set_bool(lua_State *L, int idx, const char *key, int v)
{
    idx = lua_absindex(L, idx);
    lua_pushboolean(L, v);
    vp_lcap_setfield(L, idx, key);
}

void vp_lcap_cache(lua_State *L, int idx)
{
    lua_getiuservalue(L, idx, 2);
}

int vp_lcap_cached(lua_State *L, int capidx, lua_Integer slot)
{
    vp_lcap_cache(L, capidx);
    if (lua_rawgeti(L, -1, slot) == LUA_TUSERDATA) {
        lua_remove(L, -2);
        return 1;
    }
    lua_pop(L, 2);
    return 0;
}

void vp_lcap_cache_set(lua_State *L, int capidx, lua_Integer slot)
{
    capidx = lua_absindex(L, capidx);
    vp_lcap_cache(L, capidx);
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, slot);
    lua_pop(L, 1);
}

void vp_lcap_weak_cache(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    lua_getiuservalue(L, idx, 2);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "v");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_pop(L, 1);
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

int vp_lchild_raise(lua_State *L, int idx, const vp_error *err)
{
    vp_lchild_pushcap(L, idx);
    return vp_lcap_raise(L, lua_gettop(L), err);
}

int vp_lchild_eq(lua_State *L, const char *tname, size_t offset, size_t size)
{
    const char *a = luaL_testudata(L, 1, tname);
    const char *b = luaL_testudata(L, 2, tname);
    int same = a && b && memcmp(a + offset, b + offset, size) == 0;
    if (same) {
        lua_getiuservalue(L, 1, 1);
        lua_getiuservalue(L, 2, 1);
        same = lua_rawequal(L, -1, -2);
        lua_pop(L, 2);
    }
    lua_pushboolean(L, same);
    return 1;
}

uint64_t vp_l_check_index(lua_State *L, int idx, const char *what, uint64_t n)
{
    lua_Integer i = luaL_checkinteger(L, idx);
    if (i >= 1 && (uint64_t)i <= n)
        return (uint64_t)i - 1;
    if (n == 0)
        luaL_error(L, "%s %I is out of range: there are none", what, i);
    luaL_error(L, "%s %I is out of range 1..%I", what, i, (lua_Integer)n);
    return 0;
}

/* Upvalues: capture, state, the vp_lslots, all. */
static int lslots_iter(lua_State *L)
{
    const vp_lslots *s = lua_touserdata(L, lua_upvalueindex(3));
    void *model = vp_lcap_check(L, lua_upvalueindex(1), s->cap_tname)->model;
    void *state = lua_touserdata(L, lua_upvalueindex(2));
    int all = lua_toboolean(L, lua_upvalueindex(4));
    for (;;) {
        uint64_t slot = 0;
        int used = 0;
        vp_error err;
        int r = s->next(L, lua_upvalueindex(1), model, state, &slot, &used, &err);
        if (r < 0)
            return vp_lcap_raise(L, lua_upvalueindex(1), &err);
        if (r == 0)
            return 0;
        if (all) {
            lua_pushinteger(L, (lua_Integer)slot + 1);
            if (used)
                lua_insert(L, -2);
            else
                lua_pushboolean(L, 0);
            return 2;
        }
        if (used)
            return 1;
    }
}

/* Push the iterator over the capture at 1: every slot as `i, rec|false`
 * when `all`, else the used slots as `rec`. Returns the state (kept alive
 * by the iterator) for the caller to position. */
static void *lslots_push(lua_State *L, const vp_lslots *s, int all)
{
    vp_lcap_check(L, 1, s->cap_tname);
    lua_pushvalue(L, 1);
    void *state = lua_newuserdatauv(L, s->state_size, 0);
    memset(state, 0, s->state_size);
    lua_pushlightuserdata(L, (void *)s);
    lua_pushboolean(L, all);
    lua_pushcclosure(L, lslots_iter, 4);
    return state;
}

int vp_lslots_all(lua_State *L, const vp_lslots *s)
{
    void *model = vp_lcap_check(L, 1, s->cap_tname)->model;
    s->begin(model, lslots_push(L, s, 1));
    return 1;
}

int vp_lslots_used(lua_State *L, const vp_lslots *s)
{
    void *model = vp_lcap_check(L, 1, s->cap_tname)->model;
    lua_Integer i = luaL_optinteger(L, 2, 1);
    if (i < 1)
        luaL_argerror(L, 2, lua_pushfstring(L, "%s numbers start at 1", s->what));
    void *state = lslots_push(L, s, 0);
    if (i > 1)
        s->seek(model, state, (uint64_t)i - 1); /* past the end: exhausted */
    else
        s->begin(model, state);
    return 1;
}

int vp_lslots_at(lua_State *L, const vp_lslots *s, uint64_t count)
{
    void *model = vp_lcap_check(L, 1, s->cap_tname)->model;
    uint64_t i = vp_l_check_index(L, 2, s->what, count);
    void *state = lua_newuserdatauv(L, s->state_size, 0);
    s->seek(model, state, i);
    uint64_t slot;
    int used = 0;
    vp_error err;
    int n = s->next(L, 1, model, state, &slot, &used, &err);
    if (n <= 0 || !used) {
        if (n >= 0)
            vp_fail(&err, VP_EFORMAT, UINT64_MAX, "%s %llu could not be found again", s->what,
                    (unsigned long long)i + 1);
        return vp_lcap_raise(L, 1, &err);
    }
    return 1; /* the child next pushed */
}

/* Upvalues: object, next position, the vp_liter. */
static int liter_next(lua_State *L)
{
    const vp_liter *it = lua_touserdata(L, lua_upvalueindex(3));
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(2));
    lua_pushvalue(L, lua_upvalueindex(1));
    int n = it->step(L, lua_gettop(L), i);
    if (n > 0) {
        lua_pushinteger(L, i + 1);
        lua_replace(L, lua_upvalueindex(2));
    }
    return n;
}

void vp_liter_push(lua_State *L, int obj, const vp_liter *it)
{
    lua_pushvalue(L, obj);
    lua_pushinteger(L, 0);
    lua_pushlightuserdata(L, (void *)it);
    lua_pushcclosure(L, liter_next, 3);
}

/* __index: methods first, then the fields table (captures), then the
 * class's property getter. Upvalues: methods, getter (or nil). */
static int class_index(lua_State *L)
{
    /* Reachable directly through getmetatable(x).__index(v, k): user values
     * exist only on full userdata. */
    luaL_checktype(L, 1, LUA_TUSERDATA);
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

/* close, __close and __gc of a capture. Upvalue: the class name. */
static int lcap_close_method(lua_State *L)
{
    vp_lcap_close(luaL_checkudata(L, 1, lua_tostring(L, lua_upvalueindex(1))));
    return 0;
}

void vp_lcap_class(lua_State *L, const char *tname, lua_CFunction tostring, lua_CFunction len,
                   const luaL_Reg *methods)
{
    const luaL_Reg meta[] = {{"__tostring", tostring}, {"__len", len}, {NULL, NULL}};
    vp_l_class(L, tname, meta, methods, NULL);
    luaL_getmetatable(L, tname);
    lua_getfield(L, -1, "__methods");
    lua_pushstring(L, tname);
    lua_pushcclosure(L, lcap_close_method, 1);
    lua_pushvalue(L, -1);
    lua_setfield(L, -4, "__gc");
    lua_pushvalue(L, -1);
    lua_setfield(L, -4, "__close");
    lua_setfield(L, -2, "close");
    lua_pop(L, 2);
}

int vp_l_fail(lua_State *L, const char *path, const vp_error *err)
{
    lua_pushnil(L);
    lua_pushfstring(L, "%s: %s", path, err->msg);
    lua_pushstring(L, vp_errcode_name(err->code));
    return 3;
}

void vp_l_fail_table(lua_State *L)
{
    lua_createtable(L, 0, 2); /* nil, message, code, t */
    lua_insert(L, -3);        /* nil, t, message, code */
    lua_setfield(L, -3, "code");
    lua_setfield(L, -2, "message");
    lua_remove(L, -2); /* t */
}

int vp_l_raise(lua_State *L, const char *path, const vp_error *err)
{
    return luaL_error(L, "%s: %s", path, err->msg);
}

void *vp_l_scratch(lua_State *L, size_t size, const char *tname, lua_CFunction gc)
{
    if (luaL_newmetatable(L, tname)) {
        lua_pushcfunction(L, gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_pop(L, 1);
    void *p = lua_newuserdatauv(L, size, 0);
    memset(p, 0, size);
    luaL_setmetatable(L, tname);
    return p;
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

void vp_l_open_opts(lua_State *L, int idx, vp_open_opts *o)
{
    memset(o, 0, sizeof *o);
    o->strict = vp_l_opt_bool(L, idx, "strict", 0);
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

/* ---- captures: helpers for tostring, summary and errors ------------------ */

const char *vp_lcap_path(lua_State *L, int capidx)
{
    lua_getiuservalue(L, capidx, 1);
    lua_getfield(L, -1, "path");
    const char *p = lua_tostring(L, -1);
    lua_pop(L, 2); /* the fields table keeps the string alive */
    return p ? p : "?";
}

const char *vp_lcap_basename(lua_State *L, int capidx)
{
    const char *path = vp_lcap_path(L, capidx);
    const char *base = strrchr(path, '/');
    return base ? base + 1 : path;
}

void *vp_lcap_tostring_model(lua_State *L, const char *tname, const char **base)
{
    vp_lcap *c = luaL_checkudata(L, 1, tname);
    *base = vp_lcap_basename(L, 1);
    if (c->model)
        return c->model;
    lua_getiuservalue(L, 1, 1);
    lua_getfield(L, -1, "format");
    lua_pushfstring(L, "<%s %s: closed>", lua_tostring(L, -1), *base);
    return NULL;
}

int vp_l_raise_code(lua_State *L, const char *code, const char *msg)
{
    /* What the calls below raise instead (the host's stop hook raising a
     * signal's error object, out of memory) goes on as it is. */
    lua_getglobal(L, "require");
    lua_pushliteral(L, "vp.error");
    if (lua_pcall(L, 1, 1, 0) != LUA_OK)
        return lua_error(L);
    if (lua_istable(L, -1) && lua_getfield(L, -1, "new") == LUA_TFUNCTION) {
        lua_pushstring(L, code);
        lua_pushstring(L, msg);
        lua_pcall(L, 2, 1, 0); /* the object, or the error raised instead */
        return lua_error(L);
    }
    lua_pushstring(L, msg ? msg : code);
    return lua_error(L);
}

int vp_lcap_raise(lua_State *L, int capidx, const vp_error *err)
{
    const char *msg = lua_pushfstring(L, "%s: %s", vp_lcap_path(L, capidx), err->msg);
    return vp_l_raise_code(L, vp_errcode_name(err->code), msg);
}

void vp_l_push_name(lua_State *L, const char *name, const char *unnamed, int n)
{
    if (name)
        lua_pushstring(L, name);
    else
        lua_pushfstring(L, unnamed, n);
}

void vp_l_push_count(lua_State *L, uint64_t n)
{
    char raw[32], out[48];
    int len = snprintf(raw, sizeof raw, "%llu", (unsigned long long)n);
    int o = 0;
    for (int i = 0; i < len; i++) {
        if (i && (len - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = raw[i];
    }
    lua_pushlstring(L, out, (size_t)o);
}

void vp_l_row_add(lua_State *L, int list, const char *name)
{
    lua_createtable(L, 0, 2);
    lua_pushstring(L, name);
    lua_setfield(L, -2, "name");
    lua_insert(L, -2);
    lua_setfield(L, -2, "value");
    lua_rawseti(L, list, (lua_Integer)lua_rawlen(L, list) + 1);
}

void vp_l_row_int(lua_State *L, int list, const char *name, lua_Integer v)
{
    lua_pushinteger(L, v);
    vp_l_row_add(L, list, name);
}

void vp_l_row_bool(lua_State *L, int list, const char *name, int v)
{
    lua_pushboolean(L, v);
    vp_l_row_add(L, list, name);
}

void vp_l_row_tail(lua_State *L, int list, uint64_t trailing_bytes, int truncated,
                   const vp_warnings *w)
{
    if (trailing_bytes)
        vp_l_row_int(L, list, "trailing_bytes", (lua_Integer)trailing_bytes);
    if (truncated)
        vp_l_row_bool(L, list, "truncated", 1);
    vp_l_row_int(L, list, "warnings", (lua_Integer)w->count);
}

void vp_l_set_int(lua_State *L, const char *k, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}

void vp_l_set_vec3(lua_State *L, const char *k, const float v[3])
{
    vp_l_push_vec(L, v, NULL);
    lua_setfield(L, -2, k);
}

void vp_l_push_bits(lua_State *L, const uint8_t *bits, size_t len)
{
    lua_newtable(L);
    lua_Integer n = 0;
    for (size_t i = 0; i < len * 8; i++)
        if (bits[i >> 3] >> (i & 7) & 1) {
            lua_pushinteger(L, (lua_Integer)i);
            lua_rawseti(L, -2, ++n);
        }
}

void vp_l_getter_fields(lua_State *L, int obj, lua_CFunction getter, const char *const *keys)
{
    obj = lua_absindex(L, obj);
    for (int i = 0; keys[i]; i++) {
        lua_pushcfunction(L, getter);
        lua_pushvalue(L, obj);
        lua_pushstring(L, keys[i]);
        lua_call(L, 2, 1);
        lua_setfield(L, -2, keys[i]);
    }
}

/* ---- hitches ------------------------------------------------------------------ */

void vp_l_hitch_rule(lua_State *L, int idx, vp_hitch_rule *r)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    memset(r, 0, sizeof *r);
    lua_getfield(L, idx, "factor");
    r->factor = luaL_optnumber(L, -1, 2.5);
    lua_getfield(L, idx, "min_excess_ms");
    r->min_excess_ms = luaL_optnumber(L, -1, 5);
    lua_getfield(L, idx, "threshold_ms");
    r->absolute = !lua_isnil(L, -1);
    r->threshold_ms = luaL_optnumber(L, -1, 0);
    lua_pop(L, 3);
    lua_Integer w = vp_l_opt_int(L, idx, "window", 30);
    luaL_argcheck(L, w >= 1 && w <= UINT32_MAX, idx, "window must be at least 1");
    r->window = (uint32_t)w;
}

vp_hitch *vp_l_hitch_list(lua_State *L, vp_hitch *h, uint32_t count)
{
    vp_hitch *list = lua_newuserdatauv(L, (size_t)count * sizeof *list + 1, 0);
    if (count)
        memcpy(list, h, (size_t)count * sizeof *list);
    free(h);
    return list;
}

int vp_l_resolve_frames(lua_State *L, int idx, lua_Integer n, lua_Integer out[2])
{
    luaL_argcheck(L, lua_istable(L, idx), idx, "frames must be {first, last}");
    out[0] = 1;
    out[1] = n;
    for (int k = 0; k < 2; k++) {
        if (lua_rawgeti(L, idx, k + 1) == LUA_TNIL) {
            lua_pop(L, 1);
            lua_getfield(L, idx, k ? "last" : "first");
        }
        if (!lua_isnil(L, -1)) {
            int ok;
            lua_Integer x = lua_tointegerx(L, -1, &ok);
            luaL_argcheck(L, ok && x != 0, idx, "frames: frame numbers are integers from 1, negative from the end");
            out[k] = x < 0 ? n + 1 + x : x;
        }
        lua_pop(L, 1);
    }
    if (out[0] < 1)
        out[0] = 1;
    if (out[1] > n)
        out[1] = n;
    return n >= 1 && out[0] <= out[1];
}

/* vp.frames_of(frames, n) -> first, last | nil: vp.open's frames rule
 * (vp_l_resolve_frames) for a capture of n frames. */
int vp_l_frames_of(lua_State *L)
{
    lua_Integer n = luaL_checkinteger(L, 2), v[2];
    if (!vp_l_resolve_frames(L, 1, n, v))
        return 0;
    lua_pushinteger(L, v[0]);
    lua_pushinteger(L, v[1]);
    return 2;
}
