/* vp.infer.core: the comparison statistics' heavy loops (host/core/infer.h)
 * for stdlib/vp/infer.lua; luaopen_vp preloads it. Glue only: a sample is a vp.Series or a list of
 * numbers (copied); functions that take sorted samples check the order. */
#include <math.h>
#include <stdlib.h>

#include "core/infer.h"
#include "l_common.h"
#include "l_formats.h"

typedef struct {
    const double *v;
    size_t n;
} sample;

/* Argument idx as a sample: a Series' own array, or a list's numbers
 * copied into a userdata left on the stack (collected with it). */
static sample check_sample(lua_State *L, int idx)
{
    sample s;
    vp_series *ser = luaL_testudata(L, idx, VP_SERIES_T) ? vp_l_check_series(L, idx) : NULL;
    if (ser) {
        s.v = ser->v;
        s.n = ser->n;
        return s;
    }
    luaL_argexpected(L, lua_type(L, idx) == LUA_TTABLE, idx, "vp.Series or list of numbers");
    lua_Integer n = luaL_len(L, idx);
    double *buf = lua_newuserdatauv(L, (n > 0 ? (size_t)n : 1) * sizeof *buf, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, idx, i);
        int ok;
        buf[i - 1] = lua_tonumberx(L, -1, &ok);
        if (!ok)
            luaL_error(L, "bad argument #%d: element %d is not a number", idx, (int)i);
        lua_pop(L, 1);
    }
    s.v = buf;
    s.n = (size_t)(n > 0 ? n : 0);
    return s;
}

static sample check_sorted(lua_State *L, int idx)
{
    sample s = check_sample(L, idx);
    luaL_argcheck(L, vp_is_sorted(s.v, s.n), idx, "not in ascending order (see vp.infer.sorted)");
    return s;
}

/* A number, or nil for NaN (no such value, arguments out of range). */
static int push_num(lua_State *L, double v)
{
    if (isnan(v))
        lua_pushnil(L);
    else
        lua_pushnumber(L, v);
    return 1;
}

static void push_list(lua_State *L, const double *v, size_t n)
{
    lua_createtable(L, n > 0x7fffffff ? 0 : (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, v[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

/* infer.sorted(x) -> Series: ascending, NaN dropped */
static int i_sorted(lua_State *L)
{
    sample x = check_sample(L, 1);
    size_t n;
    double *v = vp_sorted_copy(x.v, x.n, &n);
    vp_series *s = v ? vp_series_new(0) : NULL;
    if (!s) {
        free(v);
        return luaL_error(L, "out of memory");
    }
    s->v = v;
    s->n = s->cap = n;
    vp_l_push_series(L, s);
    return 1;
}

/* infer.concat({x, y, ...}) -> Series: the samples one after the other */
static int i_concat(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer parts = luaL_len(L, 1);
    vp_series *s = vp_series_new(0);
    if (!s)
        return luaL_error(L, "out of memory");
    vp_l_push_series(L, s); /* collected with it on an error below */
    for (lua_Integer p = 1; p <= parts; p++) {
        lua_rawgeti(L, 1, p);
        sample x = check_sample(L, lua_gettop(L));
        for (size_t i = 0; i < x.n; i++)
            if (!vp_series_push(s, x.v[i]))
                return luaL_error(L, "out of memory");
        lua_settop(L, 2);
    }
    return 1;
}

static size_t check_batches(lua_State *L, int idx, size_t n)
{
    lua_Integer k = luaL_checkinteger(L, idx);
    luaL_argcheck(L, k >= 1 && (size_t)k <= n, idx, "batches must be in 1..#x");
    return (size_t)k;
}

/* infer.batch_means(x, k [, "value" | "at_most" | "excess" [, c]]) -> list of k means */
static int i_batch_means(lua_State *L)
{
    static const char *const maps[] = {"value", "at_most", "excess", NULL};
    sample x = check_sample(L, 1);
    size_t k = check_batches(L, 2, x.n);
    int map = luaL_checkoption(L, 3, "value", maps);
    double c = luaL_optnumber(L, 4, 0);
    double *out = lua_newuserdatauv(L, k * sizeof *out, 0);
    vp_batch_means(x.v, x.n, k, map == 0 ? VP_BATCH_VALUE : map == 1 ? VP_BATCH_AT_MOST : VP_BATCH_EXCESS, c,
                   out);
    push_list(L, out, k);
    return 1;
}

/* infer.dominance_batches(x, other_sorted, k) -> list of k means */
static int i_dominance_batches(lua_State *L)
{
    sample x = check_sample(L, 1);
    sample o = check_sorted(L, 2);
    size_t k = check_batches(L, 3, x.n);
    luaL_argcheck(L, o.n > 0, 2, "an empty sample");
    double *out = lua_newuserdatauv(L, k * sizeof *out, 0);
    vp_dominance_batches(x.v, x.n, o.v, o.n, k, out);
    push_list(L, out, k);
    return 1;
}

/* infer.pair_diff_kth(a_sorted, b_sorted, k) -> the k-th smallest b[j] - a[i] */
static int i_pair_diff_kth(lua_State *L)
{
    sample a = check_sorted(L, 1), b = check_sorted(L, 2);
    lua_Integer k = luaL_checkinteger(L, 3);
    return push_num(L, k >= 1 ? vp_pair_diff_kth(a.v, a.n, b.v, b.n, (uint64_t)k) : NAN);
}

/* infer.pair_diff_count(a_sorted, b_sorted, v) -> below, equal */
static int i_pair_diff_count(lua_State *L)
{
    sample a = check_sorted(L, 1), b = check_sorted(L, 2);
    double v = luaL_checknumber(L, 3);
    uint64_t below, equal;
    vp_pair_diff_count(a.v, a.n, b.v, b.n, v, &below, &equal);
    lua_pushinteger(L, (lua_Integer)below);
    lua_pushinteger(L, (lua_Integer)equal);
    return 2;
}

/* infer.ks(a_sorted, b_sorted) -> d, at */
static int i_ks(lua_State *L)
{
    sample a = check_sorted(L, 1), b = check_sorted(L, 2);
    double at;
    lua_pushnumber(L, vp_ks_statistic(a.v, a.n, b.v, b.n, &at));
    push_num(L, at);
    return 2;
}

/* infer.ad(a_sorted, b_sorted) -> the two-sample Anderson-Darling A^2 */
static int i_ad(lua_State *L)
{
    sample a = check_sorted(L, 1), b = check_sorted(L, 2);
    lua_pushnumber(L, vp_ad_statistic(a.v, a.n, b.v, b.n));
    return 1;
}

/* The distributions, by name: each takes one or two numbers and returns
 * one. The closures carry their index into these constant tables. */
static const struct {
    const char *name;
    double (*f)(double);
} FN1[] = {{"normal_cdf", vp_normal_cdf},
           {"normal_quantile", vp_normal_quantile},
           {"kolmogorov_q", vp_kolmogorov_q},
           {"anderson_darling_q", vp_anderson_darling_q}};

static const struct {
    const char *name;
    double (*f)(double, double);
} FN2[] = {{"t_cdf", vp_t_cdf}, {"t_two_sided", vp_t_two_sided}, {"t_quantile", vp_t_quantile}};

static int call1(lua_State *L)
{
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(1));
    return push_num(L, FN1[i].f(luaL_checknumber(L, 1)));
}

static int call2(lua_State *L)
{
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(1));
    return push_num(L, FN2[i].f(luaL_checknumber(L, 1), luaL_checknumber(L, 2)));
}

static int i_beta_inc(lua_State *L)
{
    return push_num(L, vp_beta_inc(luaL_checknumber(L, 1), luaL_checknumber(L, 2), luaL_checknumber(L, 3)));
}

int vp_l_open_infer(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"sorted", i_sorted},
        {"concat", i_concat},
        {"batch_means", i_batch_means},
        {"dominance_batches", i_dominance_batches},
        {"pair_diff_kth", i_pair_diff_kth},
        {"pair_diff_count", i_pair_diff_count},
        {"ks", i_ks},
        {"ad", i_ad},
        {"beta_inc", i_beta_inc},
        {NULL, NULL}};
    luaL_newlib(L, fns);
    for (size_t i = 0; i < sizeof FN1 / sizeof *FN1; i++) {
        lua_pushinteger(L, (lua_Integer)i);
        lua_pushcclosure(L, call1, 1);
        lua_setfield(L, -2, FN1[i].name);
    }
    for (size_t i = 0; i < sizeof FN2 / sizeof *FN2; i++) {
        lua_pushinteger(L, (lua_Integer)i);
        lua_pushcclosure(L, call2, 1);
        lua_setfield(L, -2, FN2[i].name);
    }
    return 1;
}
