/* vp.Series: an immutable numeric column backed by a C double array. The
 * statistics and operations are core/series and core/series_ops; this is
 * the glue (arguments, results, and the Lua predicates of where/filter,
 * called once per element).
 *
 * A Series is indexed from s.first (1 unless it says otherwise): a
 * capture's columns by the capture's frame numbers, so that the frames a
 * restricted capture's column names (s[i], s:argmax(), s:where(x),
 * s:top(k)) are the frames cap:frame(i) takes. s:totable() is a plain
 * list from 1; operations that keep the order keep the numbering. */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "core/series_ops.h"
#include "l_common.h"
#include "l_formats.h"

typedef struct {
    vp_series *s;
    lua_Integer first; /* the index of s->v[0] */
} lseries;

/* A Series' values live outside Lua's heap, so the collector, which paces
 * itself by what Lua allocates, would let thousands of garbage slices of a
 * long column pile up (each a few bytes to it): bytes newly held by a
 * Series count as that much allocation (a collector step of that debt). */
static void gc_debt(lua_State *L, size_t bytes)
{
    /* a step runs even a collector the script stopped: leave that one be */
    if (bytes >= 64 * 1024 && lua_gc(L, LUA_GCISRUNNING))
        lua_gc(L, LUA_GCSTEP, (int)(bytes / 1024 < INT_MAX ? bytes / 1024 : INT_MAX));
}

void vp_l_push_series_at(lua_State *L, vp_series *s, lua_Integer first)
{
    lseries *u = lua_newuserdatauv(L, sizeof *u, 0);
    u->s = s;
    u->first = first;
    luaL_setmetatable(L, VP_SERIES_T);
    if (s->refs == 1) /* this Series alone holds them */
        gc_debt(L, s->cap * sizeof *s->v);
}

void vp_l_push_series(lua_State *L, vp_series *s)
{
    vp_l_push_series_at(L, s, 1);
}

vp_series *vp_l_check_series(lua_State *L, int idx)
{
    lseries *u = luaL_checkudata(L, idx, VP_SERIES_T);
    return u->s;
}

static lua_Integer first_of(lua_State *L, int idx)
{
    return ((lseries *)luaL_checkudata(L, idx, VP_SERIES_T))->first;
}

/* Push the new series r an operation returned (NULL: out of memory),
 * numbered from first. */
static int push_new_at(lua_State *L, vp_series *r, lua_Integer first)
{
    if (!r)
        return luaL_error(L, "out of memory");
    vp_l_push_series_at(L, r, first);
    return 1;
}

/* The same, numbered as the Series at index 1 (an operation that keeps
 * the order of its values). */
static int push_like(lua_State *L, vp_series *r)
{
    return push_new_at(L, r, first_of(L, 1));
}

/* The same, numbered from 1 (values that lost their place). */
static int push_new(lua_State *L, vp_series *r)
{
    return push_new_at(L, r, 1);
}

/* vp.Series(t [, first]): a Series from a list of numbers (indexed from
 * first, 1 by default) or from another Series (its indices, or from first). */
int vp_l_series_new(lua_State *L)
{
    lseries *src = luaL_testudata(L, 1, VP_SERIES_T);
    if (src) {
        vp_l_push_series_at(L, vp_series_ref(src->s), luaL_optinteger(L, 2, src->first));
        return 1;
    }
    lua_Integer first = luaL_optinteger(L, 2, 1);
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
    vp_l_push_series_at(L, s, first);
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

/* s[i] (i from s.first), s.first, s.last (s.first + #s - 1). */
static int s_get(lua_State *L)
{
    lseries *u = luaL_checkudata(L, 1, VP_SERIES_T);
    vp_series *s = u->s;
    int ok;
    lua_Integer i = lua_tointegerx(L, 2, &ok);
    if (ok) {
        if (i >= u->first && i - u->first < (lua_Integer)s->n)
            lua_pushnumber(L, s->v[i - u->first]);
        else
            lua_pushnil(L);
        return 1;
    }
    const char *k = lua_tostring(L, 2);
    if (k && strcmp(k, "first") == 0)
        lua_pushinteger(L, u->first);
    else if (k && strcmp(k, "last") == 0)
        lua_pushinteger(L, u->first + (lua_Integer)s->n - 1);
    else
        lua_pushnil(L);
    return 1;
}

/* s:sum(), s:mean(), ...: one number of the series' numbers (core/series.h:
 * NaN is skipped). */
#define SERIES_NUMBER(method, fn)                                                                 \
    static int method(lua_State *L)                                                               \
    {                                                                                             \
        lua_pushnumber(L, fn(vp_l_check_series(L, 1)));                                           \
        return 1;                                                                                 \
    }

SERIES_NUMBER(s_sum, vp_series_sum)
SERIES_NUMBER(s_mean, vp_series_mean)
SERIES_NUMBER(s_min, vp_series_min)
SERIES_NUMBER(s_max, vp_series_max)
SERIES_NUMBER(s_stddev, vp_series_stddev)

/* A percentile sorts a copy of the values, kept with the Series (its
 * selection cache): that copy counts as allocation too. */
static void sel_debt(lua_State *L, const vp_series *s, int had)
{
    if (!had && s->sel)
        gc_debt(L, s->n * sizeof *s->v);
}

static int s_median(lua_State *L)
{
    vp_series *s = vp_l_check_series(L, 1);
    int had = s->sel != NULL;
    lua_pushnumber(L, vp_series_median(s));
    sel_debt(L, s, had);
    return 1;
}

/* s:argmax(), s:argmin(): the index of the extreme, nil when there is no
 * number. */
#define SERIES_INDEX(method, fn)                                                                  \
    static int method(lua_State *L)                                                               \
    {                                                                                             \
        vp_series *s = vp_l_check_series(L, 1);                                                   \
        size_t i = fn(s);                                                                         \
        if (i >= s->n)                                                                            \
            lua_pushnil(L);                                                                       \
        else                                                                                      \
            lua_pushinteger(L, (lua_Integer)i + first_of(L, 1));                                  \
        return 1;                                                                                 \
    }

SERIES_INDEX(s_argmax, vp_series_argmax)
SERIES_INDEX(s_argmin, vp_series_argmin)

static int s_count(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)vp_series_numbers(vp_l_check_series(L, 1)));
    return 1;
}

static int s_percentile(lua_State *L)
{
    vp_series *s = vp_l_check_series(L, 1);
    double p = luaL_checknumber(L, 2);
    luaL_argcheck(L, p >= 0 && p <= 100, 2, "percentile must be in 0..100");
    int had = s->sel != NULL;
    lua_pushnumber(L, vp_series_percentile(s, p));
    sel_debt(L, s, had);
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

/* s:slice(i [, j]): a new Series of elements i..j (inclusive, s's
 * indices; it keeps them: its first is i). */
static int s_slice(lua_State *L)
{
    vp_series *s = vp_l_check_series(L, 1);
    lua_Integer f = first_of(L, 1), last = f + (lua_Integer)s->n - 1;
    lua_Integer i = luaL_optinteger(L, 2, f), j = luaL_optinteger(L, 3, last);
    if (i < f)
        i = f;
    if (j > last)
        j = last;
    if (j < i)
        return push_new_at(L, vp_series_new(0), i);
    return push_new_at(L, vp_series_slice(s, (size_t)(i - f), (size_t)(j - f + 1)), i);
}

/* The comparison of a threshold selection: argument idx, ">" by default. */
static vp_series_cmp check_cmp(lua_State *L, int idx)
{
    vp_series_cmp cmp = VP_CMP_GT;
    const char *op = luaL_optstring(L, idx, ">");
    if (!vp_series_cmp_parse(op, &cmp))
        luaL_argerror(L, idx, lua_pushfstring(L, "comparison must be >, >=, <, <=, == or ~=, not '%s'", op));
    return cmp;
}

/* Is argument 2 a predicate (called with value, index) rather than a
 * threshold? Raises for anything else. */
static int is_predicate(lua_State *L)
{
    if (lua_type(L, 2) == LUA_TNUMBER)
        return 0;
    if (lua_type(L, 2) == LUA_TFUNCTION || luaL_getmetafield(L, 2, "__call") != LUA_TNIL) {
        lua_settop(L, 2);
        return 1;
    }
    return luaL_typeerror(L, 2, "number or function");
}

/* pred(s[i], i) for the predicate at index 2: Lua, once per element (i
 * from s.first). */
static int call_predicate(lua_State *L, const vp_series *s, size_t i)
{
    lua_pushvalue(L, 2);
    lua_pushnumber(L, s->v[i]);
    lua_pushinteger(L, (lua_Integer)i + first_of(L, 1));
    lua_call(L, 2, 1);
    int keep = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return keep;
}

/* s:where(x [, op]) or s:where(pred) -> {i, ...}: the indices (from
 * s.first) whose value v satisfies v op x (">" by default; NaN never
 * does), or pred(v, i). */
static int s_where(lua_State *L)
{
    vp_series *s = vp_l_check_series(L, 1);
    lua_Integer k = 0, f = first_of(L, 1);
    if (is_predicate(L)) {
        lua_newtable(L);
        for (size_t i = 0; i < s->n; i++)
            if (call_predicate(L, s, i)) {
                lua_pushinteger(L, (lua_Integer)i + f);
                lua_rawseti(L, 3, ++k);
            }
        return 1;
    }
    double x = luaL_checknumber(L, 2);
    vp_series_cmp cmp = check_cmp(L, 3);
    size_t count = vp_series_count(s, cmp, x);
    lua_createtable(L, count > 0x7fffffff ? 0 : (int)count, 0);
    for (size_t i = vp_series_find(s, cmp, x, 0); i < s->n; i = vp_series_find(s, cmp, x, i + 1)) {
        lua_pushinteger(L, (lua_Integer)i + f);
        lua_rawseti(L, -2, ++k);
    }
    return 1;
}

/* s:filter(x [, op]) or s:filter(pred) -> Series of the values where()
 * selects, in order. */
static int s_filter(lua_State *L)
{
    vp_series *s = vp_l_check_series(L, 1);
    if (is_predicate(L)) {
        /* The result is a Lua value from the start: an error in pred
         * leaves it to the collector. */
        vp_series *r = vp_series_new(0);
        if (!r)
            return luaL_error(L, "out of memory");
        vp_l_push_series(L, r);
        for (size_t i = 0; i < s->n; i++)
            if (call_predicate(L, s, i) && !vp_series_push(r, s->v[i]))
                return luaL_error(L, "out of memory");
        return 1;
    }
    double x = luaL_checknumber(L, 2);
    return push_new(L, vp_series_filter(s, check_cmp(L, 3), x));
}

static int s_count_above(lua_State *L)
{
    vp_series *s = vp_l_check_series(L, 1);
    lua_pushinteger(L, (lua_Integer)vp_series_count(s, VP_CMP_GT, luaL_checknumber(L, 2)));
    return 1;
}

/* s:rolling(window [, "mean"|"median"|"max"]) -> Series */
static int s_rolling(lua_State *L)
{
    static const char *const kinds[] = {"mean", "median", "max", NULL};
    static const vp_roll_kind as[] = {VP_ROLL_MEAN, VP_ROLL_MEDIAN, VP_ROLL_MAX};
    vp_series *s = vp_l_check_series(L, 1);
    lua_Integer w = luaL_checkinteger(L, 2);
    luaL_argcheck(L, w >= 1, 2, "window must be at least 1");
    int kind = luaL_checkoption(L, 3, "mean", kinds);
    return push_like(L, vp_series_rolling(s, (size_t)w, as[kind]));
}

static void set_count(lua_State *L, const char *k, uint64_t v)
{
    lua_pushinteger(L, (lua_Integer)v);
    lua_setfield(L, -2, k);
}

/* s:histogram(bins | {edge, ...}) -> {edges, counts, below, above, missing} */
static int s_histogram(lua_State *L)
{
    vp_series *s = vp_l_check_series(L, 1);
    size_t nedges;
    if (lua_type(L, 2) == LUA_TNUMBER) {
        lua_Integer k = luaL_checkinteger(L, 2);
        luaL_argcheck(L, k >= 1 && k <= 1000000, 2, "bins must be in 1..1000000");
        nedges = (size_t)k + 1;
    } else {
        luaL_checktype(L, 2, LUA_TTABLE);
        lua_Integer k = luaL_len(L, 2);
        luaL_argcheck(L, k >= 2 && k <= 1000001, 2, "edges: a list of 2 to 1000001 increasing numbers");
        nedges = (size_t)k;
    }
    /* edges and counts in one block owned by Lua (an error frees it) */
    double *edges = lua_newuserdatauv(L, nedges * (sizeof(double) + sizeof(uint64_t)), 0);
    uint64_t *counts = (uint64_t *)(edges + nedges);
    int have = 1;
    if (lua_type(L, 2) == LUA_TNUMBER) {
        have = vp_series_bin_edges(s, nedges - 1, edges);
    } else {
        for (size_t i = 0; i < nedges; i++) {
            lua_rawgeti(L, 2, (lua_Integer)i + 1);
            int ok;
            edges[i] = lua_tonumberx(L, -1, &ok);
            lua_pop(L, 1);
            if (!ok || isnan(edges[i]) || (i && !(edges[i] > edges[i - 1])))
                return luaL_argerror(L, 2, "edges must be increasing numbers");
        }
    }
    uint64_t below = 0, above = 0, missing = s->n;
    if (have)
        vp_series_histogram(s, edges, nedges, counts, &below, &above, &missing);
    lua_createtable(L, 0, 5);
    lua_createtable(L, have ? (int)nedges : 0, 0);
    for (size_t i = 0; have && i < nedges; i++) {
        lua_pushnumber(L, edges[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "edges");
    lua_createtable(L, have ? (int)nedges - 1 : 0, 0);
    for (size_t i = 0; have && i + 1 < nedges; i++) {
        lua_pushinteger(L, (lua_Integer)counts[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "counts");
    set_count(L, "below", below);
    set_count(L, "above", above);
    set_count(L, "missing", missing);
    return 1;
}

static int s_cumsum(lua_State *L)
{
    return push_like(L, vp_series_cumsum(vp_l_check_series(L, 1)));
}

/* s:diff(): s[i] - s[i - 1], indexed by i (from s.first + 1). */
static int s_diff(lua_State *L)
{
    return push_new_at(L, vp_series_diff(vp_l_check_series(L, 1)), first_of(L, 1) + 1);
}

static int s_abs(lua_State *L)
{
    return push_like(L, vp_series_abs(vp_l_check_series(L, 1)));
}

/* s:windows(width [, clock]) -> {{first, last, start, span}, ...}: the
 * consecutive windows of `width` on the clock (a Series of durations of
 * the same length; s itself by default: frame times), first and last
 * indices (from s.first); start is the clock where the window begins, span
 * what it covers. */
static int s_windows(lua_State *L)
{
    vp_series *s = vp_l_check_series(L, 1);
    double width = luaL_checknumber(L, 2);
    luaL_argcheck(L, width > 0 && width < HUGE_VAL, 2, "width must be a positive number");
    vp_series *clock = lua_isnoneornil(L, 3) ? s : vp_l_check_series(L, 3);
    if (clock->n != s->n)
        return luaL_error(L, "Series lengths differ: %I and %I (the clock needs one duration per value)",
                          (lua_Integer)s->n, (lua_Integer)clock->n);
    size_t k = vp_series_windows(clock, width, NULL, 0);
    size_t *ends = lua_newuserdatauv(L, (k ? k : 1) * sizeof *ends, 0);
    vp_series_windows(clock, width, ends, k);
    lua_Integer base = first_of(L, 1);
    lua_createtable(L, k > 0x7fffffff ? 0 : (int)k, 0);
    size_t first = 0;
    double at = 0;
    for (size_t w = 0; w < k; w++) {
        double span = 0;
        for (size_t i = first; i < ends[w]; i++)
            if (clock->v[i] > 0)
                span += clock->v[i];
        lua_createtable(L, 0, 4);
        lua_pushinteger(L, (lua_Integer)first + base);
        lua_setfield(L, -2, "first");
        lua_pushinteger(L, (lua_Integer)ends[w] - 1 + base);
        lua_setfield(L, -2, "last");
        lua_pushnumber(L, at);
        lua_setfield(L, -2, "start");
        lua_pushnumber(L, span);
        lua_setfield(L, -2, "span");
        lua_rawseti(L, -2, (lua_Integer)w + 1);
        at += span;
        first = ends[w];
    }
    return 1;
}

static int s_sort(lua_State *L)
{
    return push_new(L, vp_series_sorted(vp_l_check_series(L, 1)));
}

/* s:top(k) -> {i, ...}: the indices of the k largest values, largest first. */
static int s_top(lua_State *L)
{
    vp_series *s = vp_l_check_series(L, 1);
    lua_Integer k = luaL_checkinteger(L, 2);
    luaL_argcheck(L, k >= 0, 2, "k must be at least 0");
    size_t want = (size_t)k < s->n ? (size_t)k : s->n;
    size_t *idx = lua_newuserdatauv(L, (want ? want : 1) * sizeof *idx, 0);
    int oom;
    size_t got = vp_series_top(s, want, idx, &oom);
    if (oom)
        return luaL_error(L, "out of memory");
    lua_createtable(L, (int)got, 0);
    lua_Integer f = first_of(L, 1);
    for (size_t i = 0; i < got; i++) {
        lua_pushinteger(L, (lua_Integer)idx[i] + f);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* s:hitches{factor =, window =, min_excess_ms =, threshold_ms =} -> list of
 * {frame, frame_ms, baseline_ms}: the hitch frames of a column of frame
 * times (core/hitch: hitches.lua's rule; vp.hitches checks the
 * parameters), frame its index (from s.first, as s:argmax's). */
static int s_hitches(lua_State *L)
{
    vp_series *s = vp_l_check_series(L, 1);
    vp_hitch_rule r;
    vp_l_hitch_rule(L, 2, &r);
    luaL_argcheck(L, s->n < UINT32_MAX, 1, "more frames than a frame number holds");
    vp_hitch *h;
    uint32_t count;
    vp_error err;
    if (vp_hitches(s->v, (uint32_t)s->n, &r, &h, &count, &err) != VP_OK)
        return luaL_error(L, "%s", err.msg);
    vp_hitch *list = vp_l_hitch_list(L, h, count);
    lua_Integer first = first_of(L, 1);
    lua_createtable(L, (int)count, 0);
    for (uint32_t k = 0; k < count; k++) {
        lua_createtable(L, 0, 3);
        lua_pushinteger(L, (lua_Integer)list[k].frame + first);
        lua_setfield(L, -2, "frame");
        lua_pushnumber(L, list[k].frame_ms);
        lua_setfield(L, -2, "frame_ms");
        if (list[k].has_baseline) {
            lua_pushnumber(L, list[k].baseline_ms);
            lua_setfield(L, -2, "baseline_ms");
        }
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    return 1;
}

/* ---- arithmetic: s + t, s - 1, 2 * s, s / t, -s ------------------------------ */

static int arith(lua_State *L, vp_series_op op, const char *sym)
{
    lseries *a = luaL_testudata(L, 1, VP_SERIES_T), *b = luaL_testudata(L, 2, VP_SERIES_T);
    if (a && b) {
        if (a->s->n != b->s->n)
            return luaL_error(L, "Series lengths differ: %I and %I (element-wise %s needs equal lengths)",
                              (lua_Integer)a->s->n, (lua_Integer)b->s->n, sym);
        if (a->first != b->first)
            return luaL_error(L, "Series of different frames: one starts at %I, the other at %I (element-wise "
                                 "%s pairs equal indices)", a->first, b->first, sym);
        return push_new_at(L, vp_series_arith(a->s, b->s, op), a->first);
    }
    int num = a ? 2 : 1;
    if (lua_type(L, num) != LUA_TNUMBER)
        return luaL_error(L, "attempt to perform arithmetic (%s) on a Series and a %s value", sym,
                          luaL_typename(L, num));
    double x = lua_tonumber(L, num);
    return push_new_at(L, vp_series_arith_scalar(a ? a->s : b->s, x, op, !a), a ? a->first : b->first);
}

static int s_add(lua_State *L)
{
    return arith(L, VP_SERIES_ADD, "+");
}

static int s_sub(lua_State *L)
{
    return arith(L, VP_SERIES_SUB, "-");
}

static int s_mul(lua_State *L)
{
    return arith(L, VP_SERIES_MUL, "*");
}

static int s_div(lua_State *L)
{
    return arith(L, VP_SERIES_DIV, "/");
}

static int s_unm(lua_State *L)
{
    return push_like(L, vp_series_arith_scalar(vp_l_check_series(L, 1), -1, VP_SERIES_MUL, 0));
}

static int s_tostring(lua_State *L)
{
    vp_series *s = vp_l_check_series(L, 1);
    if (!s->n) {
        lua_pushliteral(L, "<Series n=0>");
        return 1;
    }
    /* NaN prints as "nan" whatever its sign bit (0/0 is -nan in glibc) */
    double v[3] = {vp_series_mean(s), vp_series_percentile(s, 99), vp_series_max(s)};
    for (int i = 0; i < 3; i++)
        if (isnan(v[i]))
            v[i] = NAN;
    char buf[200];
    lua_Integer f = first_of(L, 1);
    if (f != 1)
        snprintf(buf, sizeof buf, "<Series n=%zu (%lld..%lld) mean=%.4g p99=%.4g max=%.4g>", s->n, (long long)f,
                 (long long)(f + (lua_Integer)s->n - 1), v[0], v[1], v[2]);
    else
        snprintf(buf, sizeof buf, "<Series n=%zu mean=%.4g p99=%.4g max=%.4g>", s->n, v[0], v[1], v[2]);
    lua_pushstring(L, buf);
    return 1;
}

void vp_l_register_series(lua_State *L)
{
    static const luaL_Reg meta[] = {{"__gc", s_gc},   {"__len", s_len}, {"__tostring", s_tostring},
                                     {"__add", s_add}, {"__sub", s_sub}, {"__mul", s_mul},
                                     {"__div", s_div}, {"__unm", s_unm}, {NULL, NULL}};
    static const luaL_Reg methods[] = {
        {"sum", s_sum},         {"mean", s_mean},         {"min", s_min},
        {"max", s_max},         {"argmax", s_argmax},     {"argmin", s_argmin},
        {"stddev", s_stddev},   {"percentile", s_percentile}, {"median", s_median},
        {"totable", s_totable}, {"slice", s_slice},       {"where", s_where},
        {"filter", s_filter},   {"count_above", s_count_above}, {"rolling", s_rolling},
        {"histogram", s_histogram}, {"cumsum", s_cumsum}, {"diff", s_diff},
        {"sort", s_sort},       {"top", s_top},           {"hitches", s_hitches},
        {"count", s_count},     {"abs", s_abs},           {"windows", s_windows},
        {NULL, NULL}};
    vp_l_class(L, VP_SERIES_T, meta, methods, s_get);
}
