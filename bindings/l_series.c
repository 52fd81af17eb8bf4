/* vp.Series: an immutable numeric column backed by a C double array. */
#include <math.h>

#include "l_common.h"
#include "l_formats.h"

typedef struct {
    vp_series *s;
} lseries;

void vp_l_push_series(lua_State *L, vp_series *s)
{
    lseries *u = lua_newuserdatauv(L, sizeof *u, 0);
    u->s = s;
    luaL_setmetatable(L, VP_SERIES_T);
}

vp_series *vp_l_check_series(lua_State *L, int idx)
{
    lseries *u = luaL_checkudata(L, idx, VP_SERIES_T);
    return u->s;
}

/* vp.Series(t): a Series from a list of numbers or from another Series. */
int vp_l_series_new(lua_State *L)
{
    lseries *src = luaL_testudata(L, 1, VP_SERIES_T);
    if (src) {
        vp_l_push_series(L, vp_series_ref(src->s));
        return 1;
    }
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 1);
    vp_series *s = vp_series_new(n > 0 ? (size_t)n : 0);
    if (!s)
        return luaL_error(L, "out of memory");
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, 1, i);
        int ok;
        double x = lua_tonumberx(L, -1, &ok);
        lua_pop(L, 1);
        if (!ok) {
            vp_series_unref(s);
            return luaL_error(L, "vp.Series: element %d is not a number", (int)i);
        }
        vp_series_push(s, x);
    }
    vp_l_push_series(L, s);
    return 1;
}

static int s_gc(lua_State *L)
{
    lseries *u = luaL_checkudata(L, 1, VP_SERIES_T);
    vp_series_unref(u->s);
    u->s = NULL;
    return 0;
}

static int s_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)vp_l_check_series(L, 1)->n);
    return 1;
}

static int s_get(lua_State *L)
{
    vp_series *s = vp_l_check_series(L, 1);
    int ok;
    lua_Integer i = lua_tointegerx(L, 2, &ok);
    if (ok && i >= 1 && (size_t)i <= s->n)
        lua_pushnumber(L, s->v[i - 1]);
    else
        lua_pushnil(L);
    return 1;
}

static int s_sum(lua_State *L)
{
    lua_pushnumber(L, vp_series_sum(vp_l_check_series(L, 1)));
    return 1;
}

static int s_mean(lua_State *L)
{
    lua_pushnumber(L, vp_series_mean(vp_l_check_series(L, 1)));
    return 1;
}

static int s_min(lua_State *L)
{
    lua_pushnumber(L, vp_series_min(vp_l_check_series(L, 1)));
    return 1;
}

static int s_max(lua_State *L)
{
    lua_pushnumber(L, vp_series_max(vp_l_check_series(L, 1)));
    return 1;
}

static int s_argmax(lua_State *L)
{
    vp_series *s = vp_l_check_series(L, 1);
    if (!s->n)
        lua_pushnil(L);
    else
        lua_pushinteger(L, (lua_Integer)vp_series_argmax(s) + 1);
    return 1;
}

static int s_argmin(lua_State *L)
{
    vp_series *s = vp_l_check_series(L, 1);
    if (!s->n)
        lua_pushnil(L);
    else
        lua_pushinteger(L, (lua_Integer)vp_series_argmin(s) + 1);
    return 1;
}

static int s_stddev(lua_State *L)
{
    lua_pushnumber(L, vp_series_stddev(vp_l_check_series(L, 1)));
    return 1;
}

static int s_percentile(lua_State *L)
{
    vp_series *s = vp_l_check_series(L, 1);
    double p = luaL_checknumber(L, 2);
    luaL_argcheck(L, p >= 0 && p <= 100, 2, "percentile must be in 0..100");
    lua_pushnumber(L, vp_series_percentile(s, p));
    return 1;
}

static int s_totable(lua_State *L)
{
    vp_series *s = vp_l_check_series(L, 1);
    lua_createtable(L, s->n > 0x7fffffff ? 0 : (int)s->n, 0);
    for (size_t i = 0; i < s->n; i++) {
        lua_pushnumber(L, s->v[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* s:slice(i [, j]): a new Series of elements i..j (1-based, inclusive). */
static int s_slice(lua_State *L)
{
    vp_series *s = vp_l_check_series(L, 1);
    lua_Integer n = (lua_Integer)s->n;
    lua_Integer i = luaL_optinteger(L, 2, 1), j = luaL_optinteger(L, 3, n);
    if (i < 1)
        i = 1;
    if (j > n)
        j = n;
    vp_series *r = vp_series_new(j >= i ? (size_t)(j - i + 1) : 0);
    if (!r)
        return luaL_error(L, "out of memory");
    for (lua_Integer k = i; k <= j; k++)
        vp_series_push(r, s->v[k - 1]);
    vp_l_push_series(L, r);
    return 1;
}

static int s_tostring(lua_State *L)
{
    vp_series *s = vp_l_check_series(L, 1);
    if (!s->n) {
        lua_pushliteral(L, "<Series n=0>");
        return 1;
    }
    char buf[160];
    snprintf(buf, sizeof buf, "<Series n=%zu mean=%.4g p99=%.4g max=%.4g>", s->n,
             vp_series_mean(s), vp_series_percentile(s, 99), vp_series_max(s));
    lua_pushstring(L, buf);
    return 1;
}

void vp_l_register_series(lua_State *L)
{
    static const luaL_Reg meta[] = {
        {"__gc", s_gc}, {"__len", s_len}, {"__tostring", s_tostring}, {NULL, NULL}};
    static const luaL_Reg methods[] = {
        {"sum", s_sum},       {"mean", s_mean},         {"min", s_min},
        {"max", s_max},       {"argmax", s_argmax},     {"argmin", s_argmin},
        {"stddev", s_stddev}, {"percentile", s_percentile}, {"totable", s_totable},
        {"slice", s_slice},   {NULL, NULL}};
    vp_l_class(L, VP_SERIES_T, meta, methods, s_get);
}
