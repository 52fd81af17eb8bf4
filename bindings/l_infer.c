/* vp.infer.core: the comparison statistics' heavy loops (host/core/infer.h)
 * for stdlib/vp/infer.lua; luaopen_vp preloads it. Glue only: a column is a vp.Series or a list of
 * numbers (copied); functions that take sorted columns check the order. A sample's batches are a
 * vp.infer.batched (value counts per batch, vp_batched): made here from a column or by joining
 * segments, or by a format binding from its summaries (vp_l_push_batched). */
#include <math.h>
#include <stdlib.h>

#include "core/hist.h"
#include "core/infer.h"
#include "l_common.h"
#include "l_formats.h"

#define BATCHED_T "vp.infer.batched"

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
    if (!vp_pair_diff_count(a.v, a.n, b.v, b.n, v, &below, &equal))
        return luaL_error(L, "out of memory");
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

/* ---- batched samples ------------------------------------------------------ */

static int batched_gc(lua_State *L)
{
    vp_batched **u = luaL_checkudata(L, 1, BATCHED_T);
    vp_batched_free(*u);
    *u = NULL;
    return 0;
}

static const vp_batched *check_batched(lua_State *L, int idx)
{
    vp_batched **u = luaL_checkudata(L, idx, BATCHED_T);
    if (!*u)
        luaL_argerror(L, idx, "a freed vp.infer.batched");
    return *u;
}

static int batched_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)check_batched(L, 1)->all.n);
    return 1;
}

/* b:counts() -> {[value] = count}, n (vp.mwu counts with it) */
static int batched_counts(lua_State *L)
{
    const vp_counts *a = &check_batched(L, 1)->all;
    lua_createtable(L, 0, a->d > 0x7fffffff ? 0 : (int)a->d);
    for (size_t i = 0; i < a->d; i++) {
        lua_pushnumber(L, a->v[i]);
        lua_pushinteger(L, (lua_Integer)a->c[i]);
        lua_rawset(L, -3);
    }
    lua_pushinteger(L, (lua_Integer)a->n);
    return 2;
}

/* b:info() -> n, k, sum (of all values: the batches' sums added in order) */
static int batched_info(lua_State *L)
{
    const vp_batched *b = check_batched(L, 1);
    lua_pushinteger(L, (lua_Integer)b->all.n);
    lua_pushinteger(L, (lua_Integer)b->k);
    lua_pushnumber(L, b->all.sum);
    return 3;
}

/* b:percentile(p) -> the nearest-rank percentile p (0..100) of all values */
static int batched_percentile(lua_State *L)
{
    const vp_batched *b = check_batched(L, 1);
    double p = luaL_checknumber(L, 2);
    luaL_argcheck(L, p >= 0 && p <= 100, 2, "percentile must be in 0..100");
    return push_num(L, b->all.n ? vp_counts_rank(&b->all, vp_nearest_rank(p, b->all.n)) : NAN);
}

void vp_l_push_batched(lua_State *L, struct vp_batched *b)
{
    vp_batched **u = lua_newuserdatauv(L, sizeof *u, 0);
    *u = NULL;
    if (luaL_newmetatable(L, BATCHED_T)) {
        static const luaL_Reg meta[] = {{"__gc", batched_gc}, {"__len", batched_len}, {NULL, NULL}};
        static const luaL_Reg methods[] = {
            {"counts", batched_counts}, {"info", batched_info}, {"percentile", batched_percentile}, {NULL, NULL}};
        luaL_setfuncs(L, meta, 0);
        luaL_newlib(L, methods);
        lua_setfield(L, -2, "__index");
    }
    lua_setmetatable(L, -2);
    if (!b)
        luaL_error(L, "out of memory");
    *u = b;
}

size_t *vp_l_check_cuts(lua_State *L, int idx, size_t *k)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_Integer m = luaL_len(L, idx);
    luaL_argcheck(L, m >= 1, idx, "cuts: at least {0}");
    size_t *c = lua_newuserdatauv(L, (size_t)m * sizeof *c, 0);
    for (lua_Integer i = 1; i <= m; i++) {
        lua_rawgeti(L, idx, i);
        lua_Integer v = lua_tointeger(L, -1);
        lua_pop(L, 1);
        luaL_argcheck(L, v >= 0 && (i == 1 ? v == 0 : (size_t)v >= c[i - 2]), idx,
                      "cuts must ascend from 0");
        c[i - 1] = (size_t)v;
    }
    *k = (size_t)m - 1;
    return c;
}

/* infer.batched(x, cuts) -> batched: column x (no NaN) cut at cuts {0, ..., #x} */
static int i_batched(lua_State *L)
{
    sample x = check_sample(L, 1);
    size_t k, *cuts = vp_l_check_cuts(L, 2, &k);
    luaL_argcheck(L, cuts[k] == x.n, 2, "the last cut must be #x");
    for (size_t i = 0; i < x.n; i++)
        luaL_argcheck(L, !isnan(x.v[i]), 1, "NaN in the values");
    vp_l_push_batched(L, vp_batched_of_values(x.v, cuts, k));
    return 1;
}

/* infer.join({b1, b2, ...}, batch_of, k) -> batched: the parts' segments in
 * order, segment i merged into batch batch_of[i] (1-based) */
static int i_join(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer k = luaL_checkinteger(L, 3);
    luaL_argcheck(L, k >= 1, 3, "at least one batch");
    lua_Integer np = luaL_len(L, 1);
    const vp_batched **parts = lua_newuserdatauv(L, (size_t)(np > 0 ? np : 1) * sizeof *parts, 0);
    size_t segs = 0;
    for (lua_Integer i = 1; i <= np; i++) {
        lua_rawgeti(L, 1, i);
        parts[i - 1] = check_batched(L, lua_gettop(L));
        segs += parts[i - 1]->k;
        lua_pop(L, 1); /* the table keeps it alive */
    }
    luaL_argcheck(L, (lua_Integer)segs == luaL_len(L, 2), 2, "one batch for each segment");
    size_t *of = lua_newuserdatauv(L, (segs ? segs : 1) * sizeof *of, 0);
    for (size_t i = 0; i < segs; i++) {
        lua_rawgeti(L, 2, (lua_Integer)i + 1);
        lua_Integer b = lua_tointeger(L, -1);
        lua_pop(L, 1);
        luaL_argcheck(L, b >= 1 && b <= k, 2, "batch out of range");
        of[i] = (size_t)b - 1;
    }
    vp_l_push_batched(L, vp_batched_join(parts, (size_t)np, of, (size_t)k));
    return 1;
}

static vp_batch_map check_map(lua_State *L, int idx)
{
    static const char *const maps[] = {"value", "at_most", "excess", NULL};
    int map = luaL_checkoption(L, idx, "value", maps);
    return map == 0 ? VP_BATCH_VALUE : map == 1 ? VP_BATCH_AT_MOST : VP_BATCH_EXCESS;
}

/* infer.means(b [, "value" | "at_most" | "excess" [, c]]) -> list of the batch means */
static int i_means(lua_State *L)
{
    const vp_batched *b = check_batched(L, 1);
    vp_batch_map map = check_map(L, 2);
    double c = luaL_optnumber(L, 3, 0);
    double *out = lua_newuserdatauv(L, (b->k ? b->k : 1) * sizeof *out, 0);
    luaL_argcheck(L, vp_batched_means(b, map, c, out), 1, "an empty batch");
    push_list(L, out, b->k);
    return 1;
}

/* infer.percentiles(b, p) -> list of each batch's nearest-rank percentile p (0..100) */
static int i_percentiles(lua_State *L)
{
    const vp_batched *b = check_batched(L, 1);
    double p = luaL_checknumber(L, 2);
    luaL_argcheck(L, p >= 0 && p <= 100, 2, "a percentile in 0..100");
    double *out = lua_newuserdatauv(L, (b->k ? b->k : 1) * sizeof *out, 0);
    luaL_argcheck(L, vp_batched_percentiles(b, p, out), 1, "an empty batch");
    push_list(L, out, b->k);
    return 1;
}

#define WEIGHTS_T "vp.infer.weights"

/* Weightings of batches, packed once for many infer.boot calls. */
typedef struct {
    size_t m;
    double w[];
} weights;

/* The list of weights at idx packed as infer.weights packs it, pushed; an
 * argument error names idx. */
static const weights *pack_weights(lua_State *L, int idx)
{
    luaL_checktype(L, idx, LUA_TTABLE);
    lua_Integer m = luaL_len(L, idx);
    luaL_argcheck(L, m > 0 && (lua_Unsigned)m < ((size_t)1 << 40) / sizeof(double), idx, "no weights");
    weights *ws = lua_newuserdatauv(L, sizeof *ws + (size_t)m * sizeof(double), 0);
    ws->m = (size_t)m;
    for (lua_Integer i = 1; i <= m; i++) {
        lua_rawgeti(L, idx, i);
        ws->w[i - 1] = lua_tonumber(L, -1);
        lua_pop(L, 1);
        luaL_argcheck(L, ws->w[i - 1] >= 0 && ws->w[i - 1] == floor(ws->w[i - 1]), idx,
                      "weights are whole numbers >= 0");
    }
    luaL_newmetatable(L, WEIGHTS_T); /* made on first use, as the batches' */
    lua_setmetatable(L, -2);
    return ws;
}

/* infer.weights(list) -> the list packed for infer.boot (whole numbers >= 0). */
static int i_weights(lua_State *L)
{
    pack_weights(L, 1);
    return 1;
}

/* infer.boot(b, weights, "quantile" | "tail_mean" | "sum" [, param]) ->
 * list: the statistic of each weighting of b's batches (vp_batched_boot);
 * weights a list of reps x #batches whole numbers, weighting after
 * weighting, or that list packed by infer.weights. */
static int i_boot(lua_State *L)
{
    static const char *const stats[] = {"quantile", "tail_mean", "sum", NULL};
    static const vp_boot_stat as[] = {VP_BOOT_QUANTILE, VP_BOOT_TAIL_MEAN, VP_BOOT_SUM};
    const vp_batched *b = check_batched(L, 1);
    int stat = luaL_checkoption(L, 3, NULL, stats);
    double param = luaL_optnumber(L, 4, 0);
    luaL_argcheck(L, param >= 0 && param <= 100, 4, "a percentage in 0..100");
    lua_settop(L, 4);
    const weights *ws = luaL_testudata(L, 2, WEIGHTS_T);
    if (!ws)
        ws = pack_weights(L, 2);
    luaL_argcheck(L, b->k > 0 && ws->m % b->k == 0, 2, "a whole number of weightings of the batches");
    size_t reps = ws->m / b->k;
    double *out = lua_newuserdatauv(L, reps * sizeof *out, 0);
    if (!vp_batched_boot(b, ws->w, reps, as[stat], param, out))
        return luaL_error(L, "out of memory");
    push_list(L, out, reps);
    return 1;
}

/* infer.dominance(b, other) -> list of each batch's mean dominance over other */
static int i_dominance(lua_State *L)
{
    const vp_batched *b = check_batched(L, 1), *o = check_batched(L, 2);
    double *out = lua_newuserdatauv(L, (b->k ? b->k : 1) * sizeof *out, 0);
    luaL_argcheck(L, vp_batched_dominance(b, &o->all, out), 2, "an empty sample or batch");
    push_list(L, out, b->k);
    return 1;
}

/* infer.nearest_rank(p, n) -> the 1-based rank of the nearest-rank
 * percentile p (0..100) of n values, 0 for none (vp_nearest_rank: the one
 * definition) */
static int i_nearest_rank(lua_State *L)
{
    double p = luaL_checknumber(L, 1);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_argcheck(L, p >= 0 && p <= 100, 1, "percentile must be in 0..100");
    luaL_argcheck(L, n >= 0, 2, "a count of values must not be negative");
    lua_pushinteger(L, (lua_Integer)vp_nearest_rank(p, (uint64_t)n));
    return 1;
}

/* infer.rank(b, r) -> the value of rank r of all values (nil out of range) */
static int i_rank(lua_State *L)
{
    const vp_batched *b = check_batched(L, 1);
    lua_Integer r = luaL_checkinteger(L, 2);
    return push_num(L, r >= 1 ? vp_counts_rank(&b->all, (uint64_t)r) : NAN);
}

/* infer.at_most(b, x) -> how many values are at most x */
static int i_at_most(lua_State *L)
{
    const vp_batched *b = check_batched(L, 1);
    lua_pushinteger(L, (lua_Integer)vp_counts_at_most(&b->all, luaL_checknumber(L, 2)));
    return 1;
}

/* infer.top_excess(b, k, q) -> sum of (x - q) over the k largest values */
static int i_top_excess(lua_State *L)
{
    const vp_batched *b = check_batched(L, 1);
    lua_Integer k = luaL_checkinteger(L, 2);
    luaL_argcheck(L, k >= 0, 2, "k must be >= 0");
    lua_pushnumber(L, vp_counts_top_excess(&b->all, (uint64_t)k, luaL_checknumber(L, 3)));
    return 1;
}

/* f(a, b, r) of two samples (1, 2) and a rank r (3): NaN (nil) for r < 1. */
static int two_at_rank(lua_State *L,
                       double (*f)(const vp_counts *a, const vp_counts *b, uint64_t r))
{
    const vp_batched *a = check_batched(L, 1), *b = check_batched(L, 2);
    lua_Integer r = luaL_checkinteger(L, 3);
    return push_num(L, r >= 1 ? f(&a->all, &b->all, (uint64_t)r) : NAN);
}

/* infer.pooled_rank(a, b, r) -> the value of rank r among both samples' values */
static int i_pooled_rank(lua_State *L)
{
    return two_at_rank(L, vp_counts_pooled_rank);
}

/* infer.pair_count(a, b, v) -> below, equal: differences b - a below and equal to v */
static int i_pair_count(lua_State *L)
{
    const vp_batched *a = check_batched(L, 1), *b = check_batched(L, 2);
    uint64_t below, equal;
    vp_counts_pair_count(&a->all, &b->all, luaL_checknumber(L, 3), &below, &equal);
    lua_pushinteger(L, (lua_Integer)below);
    lua_pushinteger(L, (lua_Integer)equal);
    return 2;
}

/* infer.pair_kth(a, b, k) -> the k-th smallest difference b - a */
static int i_pair_kth(lua_State *L)
{
    return two_at_rank(L, vp_counts_pair_kth);
}

/* infer.counts_ks(a, b) -> d, at;  infer.counts_ad(a, b) -> A^2 */
static int i_counts_ks(lua_State *L)
{
    const vp_batched *a = check_batched(L, 1), *b = check_batched(L, 2);
    double at;
    lua_pushnumber(L, vp_counts_ks(&a->all, &b->all, &at));
    push_num(L, at);
    return 2;
}

static int i_counts_ad(lua_State *L)
{
    const vp_batched *a = check_batched(L, 1), *b = check_batched(L, 2);
    lua_pushnumber(L, vp_counts_ad(&a->all, &b->all));
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
        {"batched", i_batched},
        {"join", i_join},
        {"means", i_means},
        {"boot", i_boot},
        {"weights", i_weights},
        {"percentiles", i_percentiles},
        {"dominance", i_dominance},
        {"rank", i_rank},
        {"nearest_rank", i_nearest_rank},
        {"at_most", i_at_most},
        {"top_excess", i_top_excess},
        {"pooled_rank", i_pooled_rank},
        {"pair_count", i_pair_count},
        {"pair_kth", i_pair_kth},
        {"counts_ks", i_counts_ks},
        {"counts_ad", i_counts_ad},
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
