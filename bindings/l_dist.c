/* vp.Dist (l_dist.h): the statistics of a summarised per-frame quantity,
 * the ones a vp.Series of the values gives, by the same names: the exact
 * sum, the first minimum and maximum, nearest-rank percentiles from exact
 * counts. A value is its units x the dist's scale, as the column would hold
 * it (the same double: VProf's ms are units x (4 / 1000.0) both ways). */
#include <math.h>
#include <stdalign.h>
#include <stdio.h>
#include <string.h>

#include "core/infer.h"
#include "l_common.h"
#include "l_dist.h"
#include "l_formats.h"

#define DATA_OFFSET ((sizeof(vp_ldist) + alignof(max_align_t) - 1) / alignof(max_align_t) * alignof(max_align_t))

vp_ldist *vp_l_dist_new(lua_State *L, const vp_ldist_src *src, double scale, size_t data_size,
                        int parent_idx)
{
    vp_ldist *d = vp_lchild_new(L, DATA_OFFSET + data_size, VP_DIST_T, parent_idx);
    d->src = src;
    d->scale = scale;
    vp_stream_init(&d->own);
    return d;
}

void *vp_l_dist_data(vp_ldist *d)
{
    return (char *)d + DATA_OFFSET;
}

/* The dist at 1 and its stream (*first: the number of position 0). */
static vp_ldist *check(lua_State *L, vp_stream **s, lua_Integer *first)
{
    vp_ldist *d = luaL_checkudata(L, 1, VP_DIST_T);
    lua_Integer f;
    *s = d->src->stream(L, 1, d, first ? first : &f);
    return d;
}

static double value(const vp_ldist *d, uint64_t v)
{
    return (double)v * d->scale;
}

static int d_len(lua_State *L)
{
    vp_stream *s;
    check(L, &s, NULL);
    lua_pushinteger(L, (lua_Integer)vp_stream_n(s));
    return 1;
}

static int d_sum(lua_State *L)
{
    vp_stream *s;
    vp_ldist *d = check(L, &s, NULL);
    lua_pushnumber(L, vp_stream_sum(s, d->scale));
    return 1;
}

static int d_mean(lua_State *L)
{
    vp_stream *s;
    vp_ldist *d = check(L, &s, NULL);
    uint64_t n = vp_stream_n(s);
    lua_pushnumber(L, n ? vp_stream_sum(s, d->scale) / (double)n : NAN);
    return 1;
}

static int d_extreme(lua_State *L, int max, int arg)
{
    vp_stream *s;
    lua_Integer first;
    vp_ldist *d = check(L, &s, &first);
    if (!vp_stream_n(s)) {
        if (arg)
            lua_pushnil(L);
        else
            lua_pushnumber(L, NAN);
    } else if (arg) {
        lua_pushinteger(L, first + (lua_Integer)(max ? s->argmax : s->argmin));
    } else {
        lua_pushnumber(L, value(d, max ? s->max : s->min));
    }
    return 1;
}

static int d_min(lua_State *L) { return d_extreme(L, 0, 0); }
static int d_max(lua_State *L) { return d_extreme(L, 1, 0); }
static int d_argmin(lua_State *L) { return d_extreme(L, 0, 1); }
static int d_argmax(lua_State *L) { return d_extreme(L, 1, 1); }

static int d_percentile(lua_State *L)
{
    vp_stream *s;
    vp_ldist *d = check(L, &s, NULL);
    double p = luaL_checknumber(L, 2);
    luaL_argcheck(L, p >= 0 && p <= 100, 2, "percentile must be in 0..100");
    int ok;
    uint64_t v = vp_stream_percentile(s, p, &ok);
    lua_pushnumber(L, ok ? value(d, v) : NAN);
    return 1;
}

static int d_stddev(lua_State *L)
{
    vp_stream *s;
    vp_ldist *d = check(L, &s, NULL);
    lua_pushnumber(L, vp_stream_stddev(s, d->scale));
    return 1;
}

/* d:counts() -> {[value] = count}, n: the distinct values and how often
 * each came (what rank tests need). */
static int d_counts(lua_State *L)
{
    vp_stream *s;
    vp_ldist *d = check(L, &s, NULL);
    uint32_t k;
    const vp_hist_slot *v = vp_hist_sorted(&s->h, &k);
    if (!v && vp_stream_n(s))
        return luaL_error(L, "out of memory");
    lua_createtable(L, 0, (int)k);
    for (uint32_t i = 0; i < k; i++) {
        lua_pushnumber(L, value(d, v[i].value));
        lua_pushinteger(L, (lua_Integer)(v[i].count - (i ? v[i - 1].count : 0)));
        lua_rawset(L, -3);
    }
    lua_pushinteger(L, (lua_Integer)vp_stream_n(s));
    return 2;
}

/* d:series(), d:batches(cuts) and d:top_sum(k): what the source gives
 * (which = the vp_ldist_src member), or an error saying it has none. */
enum { SRC_SERIES, SRC_BATCHES, SRC_TOP_SUM };

static int by_source(lua_State *L, int which, const char *none)
{
    vp_stream *s;
    vp_ldist *d = check(L, &s, NULL);
    int (*fn)(lua_State *, int, vp_ldist *) = which == SRC_SERIES    ? d->src->series
                                              : which == SRC_BATCHES ? d->src->batches
                                                                     : d->src->top_sum;
    if (!fn)
        return luaL_argerror(L, 1, none);
    return fn(L, 1, d);
}

/* d:series() -> the column, from the source. */
static int d_series(lua_State *L) { return by_source(L, SRC_SERIES, "this dist has no column"); }

/* d:batches(cuts) -> vp.infer.batched: the value counts over the segments
 * of cuts ({0, ..., #d}), for vp.infer (no column is built). */
static int d_batches(lua_State *L) { return by_source(L, SRC_BATCHES, "this dist has no batches"); }

/* d:top_sum(k) -> the sum of the k largest values (the slowest k frames). */
static int d_top_sum(lua_State *L) { return by_source(L, SRC_TOP_SUM, "top_sum: of a capture's frame times"); }

static int d_totable(lua_State *L)
{
    d_series(L);
    lua_getfield(L, -1, "totable");
    lua_insert(L, -2);
    lua_call(L, 1, 1);
    return 1;
}

/* d[i]: frame i's value, from the column. */
static int d_get(lua_State *L)
{
    if (lua_type(L, 2) != LUA_TNUMBER) {
        lua_pushnil(L);
        return 1;
    }
    lua_settop(L, 2);
    d_series(L);
    lua_pushvalue(L, 2);
    lua_gettable(L, -2);
    return 1;
}

static int d_tostring(lua_State *L)
{
    vp_stream *s;
    vp_ldist *d = check(L, &s, NULL);
    uint64_t n = vp_stream_n(s);
    double mean = n ? vp_stream_sum(s, d->scale) / (double)n : 0.0;
    d->src->tostring(L, 1, d, n, mean);
    return 1;
}

static int d_gc(lua_State *L)
{
    vp_ldist *d = luaL_checkudata(L, 1, VP_DIST_T);
    vp_stream_free(&d->own);
    return 0;
}

/* ---- vp.Dist(series | list [, unit]): a dist of a column's values ----------
 * Its source is the Series itself (the parent): the column, d[i] and the
 * batches are the Series'. It holds values that are whole multiples >= 0 of
 * the unit only, so that units x unit gives back each value bit for bit. */

typedef struct {
    lua_Integer first; /* the Series' first index */
} lcol;

static vp_stream *col_stream(lua_State *L, int idx, vp_ldist *d, lua_Integer *first)
{
    (void)L;
    (void)idx;
    *first = ((lcol *)vp_l_dist_data(d))->first;
    return &d->own;
}

static int col_series(lua_State *L, int idx, vp_ldist *d)
{
    (void)d;
    vp_lchild_pushcap(L, idx);
    return 1;
}

static int col_batches(lua_State *L, int idx, vp_ldist *d)
{
    (void)d;
    size_t k, *cuts = vp_l_check_cuts(L, idx + 1, &k);
    vp_lchild_pushcap(L, idx);
    const vp_series *s = vp_l_check_series(L, -1);
    luaL_argcheck(L, cuts[k] == s->n, idx + 1, "the last cut must be #d");
    vp_l_push_batched(L, vp_batched_of_values(s->v, cuts, k));
    return 1;
}

static void col_tostring(lua_State *L, int idx, vp_ldist *d, uint64_t n, double mean)
{
    (void)idx;
    char buf[96];
    snprintf(buf, sizeof buf, "<Dist n=%llu mean=%.4g unit=%.4g>", (unsigned long long)n, mean, d->scale);
    lua_pushstring(L, buf);
}

static const vp_ldist_src col_src = {col_stream, col_series, col_batches, NULL, col_tostring};

int vp_l_dist_of(lua_State *L)
{
    lua_settop(L, 2);
    double unit = luaL_optnumber(L, 2, 1.0);
    luaL_argcheck(L, isfinite(unit) && unit > 0, 2, "the unit must be a finite number > 0");
    if (!luaL_testudata(L, 1, VP_SERIES_T)) {
        luaL_checktype(L, 1, LUA_TTABLE);
        lua_pushcfunction(L, vp_l_series_new);
        lua_pushvalue(L, 1);
        lua_call(L, 1, 1);
        lua_replace(L, 1);
    }
    const vp_series *s = vp_l_check_series(L, 1);
    lua_getfield(L, 1, "first");
    lua_Integer first = lua_tointeger(L, -1);
    lua_pop(L, 1);
    vp_ldist *d = vp_l_dist_new(L, &col_src, unit, sizeof(lcol), 1);
    ((lcol *)vp_l_dist_data(d))->first = first;
    for (size_t i = 0; i < s->n; i++) {
        double x = s->v[i], u = nearbyint(x / unit);
        if (isnan(x))
            return luaL_error(L, "vp.Dist: value %I is NaN: a dist counts numbers only", (lua_Integer)i + first);
        if (!(u >= 0 && u < 9007199254740992.0 && u * unit == x && !signbit(x)))
            return luaL_error(L, "vp.Dist: value %I (%s) is not a whole multiple >= 0 of the unit %s",
                              (lua_Integer)i + first, lua_pushfstring(L, "%f", x), lua_pushfstring(L, "%f", unit));
        if (!vp_stream_add(&d->own, (uint64_t)u, 1))
            return luaL_error(L, "out of memory");
    }
    return 1;
}

void vp_l_register_dist(lua_State *L)
{
    static const luaL_Reg meta[] = {
        {"__tostring", d_tostring}, {"__len", d_len}, {"__gc", d_gc}, {NULL, NULL}};
    static const luaL_Reg methods[] = {
        {"sum", d_sum},         {"mean", d_mean},         {"min", d_min},
        {"max", d_max},         {"argmin", d_argmin},     {"argmax", d_argmax},
        {"percentile", d_percentile}, {"stddev", d_stddev}, {"counts", d_counts},
        {"series", d_series},   {"totable", d_totable},   {"batches", d_batches},
        {"top_sum", d_top_sum}, {NULL, NULL}};
    vp_l_class(L, VP_DIST_T, meta, methods, d_get);
}
