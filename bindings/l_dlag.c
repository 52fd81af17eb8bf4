/* The .dlag (lag profiler) capture, its measurements and tail records
 * (hops). The writer is l_dlag_writer.c.
 *
 * cap: time, measurement_count (#cap), measurements_with_samples,
 *      sample_count, graph_state_count,
 *      traceroute_host (nil when the file ends before it), hop_count,
 *      trailing_bytes, truncated; cap:measurements(),
 *      cap:measurement(index | name), cap:graph_states(),
 *      cap:graph_state(i), cap:hops(), cap:hop(i), cap:summary().
 * measurement (pins the capture): index, name, page, total, count,
 *      file_offset, #m, m:samples(), m:sample(i), m:values(), m:times(),
 *      m:totable().
 * hop (pins the capture): index, address ("a.b.c.d"), address_bytes,
 *      name, unknown_u8_1, unknown_u32, unknown_floats, unknown_u8_2,
 *      count, file_offset, #hop and the same sample methods.
 * samples and graph states are plain tables. */
#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/dlag.h"
#include "l_common.h"
#include "l_formats.h"
#include "l_trace.h"

#define DLAG_T "vp.dlag"
#define MEAS_T "vp.dlag.measurement"
#define HOP_T "vp.dlag.hop"

/* Cache slots: measurements at k + 1, hops at -(i + 1). */
typedef struct lmeas {
    uint32_t k; /* 0-based */
} lmeas;

typedef struct lhop {
    uint64_t i;    /* 0-based */
    vp_dlag_hop h; /* decoded once, when the child is made */
} lhop;

static vp_dlag *dlag_check(lua_State *L, int idx)
{
    return vp_lcap_check(L, idx, DLAG_T)->model;
}

static void measurement_name_push(lua_State *L, uint32_t index)
{
    vp_l_push_name(L, vp_dlag_measurement_name(index), "measurement_%d", (int)index);
}

/* One userdata per measurement / hop, cached in the capture. */
static void meas_push(lua_State *L, int capidx, uint32_t k)
{
    capidx = lua_absindex(L, capidx);
    if (vp_lcap_cached(L, capidx, (lua_Integer)k + 1))
        return;
    lmeas *m = vp_lchild_new(L, sizeof *m, MEAS_T, capidx);
    m->k = k;
    vp_lcap_cache_set(L, capidx, (lua_Integer)k + 1);
}

static void hop_push(lua_State *L, int capidx, uint64_t i)
{
    capidx = lua_absindex(L, capidx);
    if (vp_lcap_cached(L, capidx, -(lua_Integer)i - 1))
        return;
    vp_dlag *d = vp_lcap_check(L, capidx, DLAG_T)->model;
    vp_dlag_hop h;
    vp_error err;
    if (!vp_dlag_hop_get(d, i, &h, &err))
        vp_lcap_raise(L, capidx, &err);
    lhop *lh = vp_lchild_new(L, sizeof *lh, HOP_T, capidx);
    lh->i = i;
    lh->h = h;
    vp_lcap_cache_set(L, capidx, -(lua_Integer)i - 1);
}

static void vec4_push(lua_State *L, const float *v)
{
    vp_l_push_vec(L, v, &v[3]);
}

static void sample_push(lua_State *L, const vp_dlag_sample *s, uint64_t i)
{
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, (lua_Integer)i + 1);
    lua_setfield(L, -2, "index");
    lua_pushnumber(L, s->value);
    lua_setfield(L, -2, "value");
    lua_pushinteger(L, s->time);
    lua_setfield(L, -2, "time");
    lua_pushinteger(L, s->unknown);
    lua_setfield(L, -2, "unknown");
}

/* Push the `len` bytes at `off` of the file (a string or bitfield found at
 * open), or raise naming the capture at capidx. */
static void bytes_push(lua_State *L, vp_dlag *d, int capidx, uint64_t off, size_t len)
{
    vp_error err;
    const uint8_t *p = vp_dlag_bytes(d, off, len, &err);
    if (!p)
        vp_lcap_raise(L, capidx, &err);
    lua_pushlstring(L, (const char *)p, len);
}

/* The same for a child (measurement, hop) at idx: errors name its capture. */
static void child_bytes_push(lua_State *L, vp_dlag *d, int idx, uint64_t off, size_t len)
{
    idx = lua_absindex(L, idx);
    vp_lchild_pushcap(L, idx);
    bytes_push(L, d, -1, off, len);
    lua_remove(L, -2);
}

static void graph_state_push(lua_State *L, vp_dlag *d, int capidx, uint64_t i)
{
    vp_dlag_graph_state gs;
    vp_error err;
    if (!vp_dlag_graph_state_get(d, i, &gs, &err))
        vp_lcap_raise(L, capidx, &err);
    lua_createtable(L, 0, 8);
    lua_pushinteger(L, (lua_Integer)i + 1);
    lua_setfield(L, -2, "index");
    lua_pushinteger(L, gs.measurement_count);
    lua_setfield(L, -2, "measurement_count");
    bytes_push(L, d, capidx, gs.bitfield_off, gs.bitfield_len);
    vp_l_push_bits(L, (const uint8_t *)lua_tostring(L, -1), gs.bitfield_len);
    lua_setfield(L, -3, "bits");
    lua_setfield(L, -2, "bitfield");
    vec4_push(L, gs.offset_v);
    lua_setfield(L, -2, "offset");
    vec4_push(L, gs.scale);
    lua_setfield(L, -2, "scale");
    lua_pushboolean(L, gs.print_titles != 0);
    lua_setfield(L, -2, "print_titles");
    lua_pushinteger(L, gs.unknown);
    lua_setfield(L, -2, "unknown");
    lua_pushinteger(L, (lua_Integer)gs.offset);
    lua_setfield(L, -2, "file_offset");
}

/* ---- capture ------------------------------------------------------------ */

/* The capture at cap as it opens: its child cache weak, its plain fields
 * set. */
static void dlag_set_fields(lua_State *L, int cap, vp_dlag *d)
{
    vp_lcap_weak_cache(L, cap); /* a hostile file has millions of measurements */
    uint32_t with = 0;
    for (uint32_t k = 0; k < d->measurement_count; k++)
        with += d->measurements[k].samples.count > 0;
    vp_lcap_set_int(L, cap, "measurements_with_samples", with);
    vp_lcap_set_int(L, cap, "time", d->time);
    vp_lcap_set_int(L, cap, "measurement_count", d->measurement_count);
    vp_lcap_set_int(L, cap, "sample_count", (lua_Integer)d->sample_count);
    vp_lcap_set_int(L, cap, "graph_state_count", (lua_Integer)d->graph_state_count);
    /* Absent (nil) when the file ends before the host's NUL. */
    if (d->have_host) {
        bytes_push(L, d, cap, d->host_off, d->host_len);
        vp_lcap_setfield(L, cap, "traceroute_host");
    }
    vp_lcap_set_int(L, cap, "hop_count", (lua_Integer)d->hop_count);
    vp_lcap_set_int(L, cap, "trailing_bytes", (lua_Integer)d->trailing_bytes);
    vp_lcap_set_bool(L, cap, "truncated", d->truncated);
}

/* vp_l_open_dlag (l_trace.h). */
VP_LTRACE_OPEN(dlag, DLAG_T, dlag_set_fields)

/* The iterators over the capture at cap: measurement, graph state and hop
 * i (0-based). */
static int meas_step(lua_State *L, int cap, lua_Integer i)
{
    if ((uint64_t)i >= dlag_check(L, cap)->measurement_count)
        return 0;
    meas_push(L, cap, (uint32_t)i);
    return 1;
}

static int graph_state_step(lua_State *L, int cap, lua_Integer i)
{
    vp_dlag *d = dlag_check(L, cap);
    if ((uint64_t)i >= d->graph_state_count)
        return 0;
    graph_state_push(L, d, cap, (uint64_t)i);
    return 1;
}

static int hop_step(lua_State *L, int cap, lua_Integer i)
{
    if ((uint64_t)i >= dlag_check(L, cap)->hop_count)
        return 0;
    hop_push(L, cap, (uint64_t)i);
    return 1;
}

static const vp_liter meas_iter = {meas_step}, graph_state_iter = {graph_state_step},
                      hop_iter = {hop_step};

static int iter_new(lua_State *L, const vp_liter *it)
{
    dlag_check(L, 1);
    vp_liter_push(L, 1, it);
    return 1;
}

static int cap_measurements(lua_State *L)
{
    return iter_new(L, &meas_iter);
}

static int cap_graph_states(lua_State *L)
{
    return iter_new(L, &graph_state_iter);
}

static int cap_hops(lua_State *L)
{
    return iter_new(L, &hop_iter);
}

static int name_eq_nocase(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

/* cap:measurement(index | name) -> measurement. An index out of range
 * raises. A name matches exactly, then ignoring case (the first in index
 * order: "Total Objects" is 44, 59 is reached by index), then
 * "measurement_N"; a name that matches none gives nil. */
static int cap_measurement(lua_State *L)
{
    vp_dlag *d = dlag_check(L, 1);
    lua_Integer idx = 0;
    if (lua_type(L, 2) == LUA_TNUMBER) {
        meas_push(L, 1, (uint32_t)vp_l_check_index(L, 2, "measurement", d->measurement_count));
        return 1;
    } else {
        const char *name = luaL_checkstring(L, 2);
        for (int pass = 0; pass < 2 && !idx; pass++)
            for (uint32_t k = 1; k <= d->measurement_count && k <= VP_DLAG_NAME_COUNT; k++) {
                const char *mn = vp_dlag_measurement_name(k);
                if (pass == 0 ? strcmp(mn, name) == 0 : name_eq_nocase(mn, name)) {
                    idx = k;
                    break;
                }
            }
        if (!idx && strncmp(name, "measurement_", 12) == 0) {
            char *end;
            long v = strtol(name + 12, &end, 10);
            if (*end == '\0' && end != name + 12 && v > 0)
                idx = v;
        }
    }
    if (idx < 1 || idx > (lua_Integer)d->measurement_count)
        return 0;
    meas_push(L, 1, (uint32_t)(idx - 1));
    return 1;
}

/* cap:graph_state(i), cap:hop(i): 1-based; raise out of range. */
static int cap_graph_state(lua_State *L)
{
    vp_dlag *d = dlag_check(L, 1);
    graph_state_push(L, d, 1, vp_l_check_index(L, 2, "graph state", d->graph_state_count));
    return 1;
}

static int cap_hop(lua_State *L)
{
    vp_dlag *d = dlag_check(L, 1);
    hop_push(L, 1, vp_l_check_index(L, 2, "hop", d->hop_count));
    return 1;
}

/* #cap: the measurements. */
static int cap_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)dlag_check(L, 1)->measurement_count);
    return 1;
}

static int cap_summary(lua_State *L)
{
    vp_dlag *d = dlag_check(L, 1);
    lua_newtable(L);
    int list = lua_gettop(L);
    vp_l_row_int(L, list, "time", d->time);
    vp_l_row_int(L, list, "measurements", d->measurement_count);
    uint32_t with = 0;
    for (uint32_t k = 0; k < d->measurement_count; k++)
        with += d->measurements[k].samples.count > 0;
    vp_l_row_int(L, list, "measurements_with_samples", with);
    vp_l_row_int(L, list, "samples", (lua_Integer)d->sample_count);
    vp_l_row_int(L, list, "graph_states", (lua_Integer)d->graph_state_count);
    if (!d->have_host)
        lua_pushliteral(L, "(missing)");
    else if (d->host_len)
        bytes_push(L, d, 1, d->host_off, d->host_len);
    else
        lua_pushliteral(L, "(off)");
    vp_l_row_add(L, list, "traceroute_host");
    vp_l_row_int(L, list, "hops", (lua_Integer)d->hop_count);
    vp_l_row_tail(L, list, d->trailing_bytes, d->truncated, &d->warnings);
    return 1;
}

static int cap_tostring(lua_State *L)
{
    const char *base;
    vp_dlag *d = vp_lcap_tostring_model(L, DLAG_T, &base);
    if (!d)
        return 1;
    lua_pushfstring(L, "<dlag %s: %I measurements, ", base, (lua_Integer)d->measurement_count);
    vp_l_push_count(L, d->sample_count);
    lua_pushfstring(L, " samples, %I graph states, %I hops%s%s>", (lua_Integer)d->graph_state_count,
                    (lua_Integer)d->hop_count, d->truncated ? ", truncated" : "",
                    d->warnings.count ? ", with warnings" : "");
    lua_concat(L, 3);
    return 1;
}

/* ---- measurements and hops ------------------------------------------------ */

/* The sample array of a measurement or hop at idx (raises when the capture
 * is closed or idx is neither). */
static const vp_dlag_samples *owner_samples(lua_State *L, int idx, vp_dlag **d)
{
    void *m;
    if (luaL_testudata(L, idx, MEAS_T)) {
        lmeas *lm = vp_lchild_check(L, idx, MEAS_T, &m);
        *d = m;
        return &(*d)->measurements[lm->k].samples;
    }
    lhop *lh = vp_lchild_check(L, idx, HOP_T, &m);
    *d = m;
    return &lh->h.samples;
}

static void sample_get_push(lua_State *L, int owner, vp_dlag *d, const vp_dlag_samples *s,
                            uint64_t i)
{
    vp_dlag_sample sm;
    vp_error err;
    if (!vp_dlag_sample_get(d, s, i, &sm, &err))
        vp_lchild_raise(L, owner, &err);
    sample_push(L, &sm, i);
}

static int owner_len(lua_State *L)
{
    vp_dlag *d;
    lua_pushinteger(L, (lua_Integer)owner_samples(L, 1, &d)->count);
    return 1;
}

/* x:samples(): sample i (0-based) of the owner at owner. */
static int samples_step(lua_State *L, int owner, lua_Integer i)
{
    vp_dlag *d;
    const vp_dlag_samples *s = owner_samples(L, owner, &d);
    if ((uint64_t)i >= s->count)
        return 0;
    sample_get_push(L, owner, d, s, (uint64_t)i);
    return 1;
}

static const vp_liter samples_iter = {samples_step};

static int owner_samples_l(lua_State *L)
{
    vp_dlag *d;
    owner_samples(L, 1, &d);
    vp_liter_push(L, 1, &samples_iter);
    return 1;
}

/* x:sample(i) -> sample (1-based); raises out of range. */
static int owner_sample(lua_State *L)
{
    vp_dlag *d;
    const vp_dlag_samples *s = owner_samples(L, 1, &d);
    sample_get_push(L, 1, d, s, vp_l_check_index(L, 2, "sample", s->count));
    return 1;
}

/* The samples of the owner at idx as a list, into the table at `into`. */
static void owner_sample_list(lua_State *L, int owner, int into)
{
    vp_dlag *d;
    const vp_dlag_samples *s = owner_samples(L, owner, &d);
    lua_createtable(L, s->count > INT32_MAX ? 0 : (int)s->count, 0);
    for (uint64_t i = 0; i < s->count; i++) {
        sample_get_push(L, owner, d, s, i);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, into, "samples");
}

static int owner_series(lua_State *L, int which)
{
    vp_dlag *d;
    const vp_dlag_samples *s = owner_samples(L, 1, &d);
    vp_error err;
    vp_series *r = vp_dlag_series(d, s, which, &err);
    if (!r)
        return vp_lchild_raise(L, 1, &err);
    vp_l_push_series(L, r);
    return 1;
}

static int owner_values(lua_State *L)
{
    return owner_series(L, 0);
}

static int owner_times(lua_State *L)
{
    return owner_series(L, 1);
}

static int meas_get(lua_State *L)
{
    void *mp;
    lmeas *lm = vp_lchild_check(L, 1, MEAS_T, &mp);
    vp_dlag *d = mp;
    const vp_dlag_measurement *m = &d->measurements[lm->k];
    const char *k = lua_tostring(L, 2);
    if (!k)
        return 0;
    if (strcmp(k, "index") == 0)
        lua_pushinteger(L, m->index);
    else if (strcmp(k, "name") == 0)
        measurement_name_push(L, m->index);
    else if (strcmp(k, "page") == 0)
        lua_pushinteger(L, vp_dlag_measurement_page(m->index));
    else if (strcmp(k, "total") == 0)
        lua_pushinteger(L, m->total);
    else if (strcmp(k, "count") == 0)
        lua_pushinteger(L, (lua_Integer)m->samples.count);
    else if (strcmp(k, "file_offset") == 0)
        lua_pushinteger(L, (lua_Integer)vp_dlag_measurement_offset(m));
    else if (strcmp(k, "capture") == 0)
        vp_lchild_pushcap(L, 1);
    else
        return 0;
    return 1;
}

/* x:totable() of a measurement or hop: the fields `keys` as its getter
 * reads them, and the samples. */
static int owner_totable(lua_State *L, lua_CFunction get, const char *const *keys)
{
    lua_settop(L, 1);
    lua_newtable(L);
    vp_l_getter_fields(L, 1, get, keys);
    owner_sample_list(L, 1, 2);
    return 1;
}

static int meas_totable(lua_State *L)
{
    static const char *const keys[] = {"index", "name",  "page", "total",
                                       "count", "file_offset", NULL};
    return owner_totable(L, meas_get, keys);
}

static int meas_eq(lua_State *L)
{
    return vp_lchild_eq(L, MEAS_T, offsetof(lmeas, k), sizeof(uint32_t));
}

static int meas_tostring(lua_State *L)
{
    void *mp;
    lmeas *lm = vp_lchild_check(L, 1, MEAS_T, &mp);
    vp_dlag *d = mp;
    const vp_dlag_measurement *m = &d->measurements[lm->k];
    measurement_name_push(L, m->index);
    lua_pushfstring(L, "<dlag measurement %I %s (page %I): %I samples>", (lua_Integer)m->index,
                    lua_tostring(L, -1), (lua_Integer)vp_dlag_measurement_page(m->index),
                    (lua_Integer)m->samples.count);
    return 1;
}

static void address_push(lua_State *L, const uint8_t *a)
{
    lua_pushfstring(L, "%d.%d.%d.%d", (int)a[0], (int)a[1], (int)a[2], (int)a[3]);
}

static int hop_get(lua_State *L)
{
    void *mp;
    lhop *lh = vp_lchild_check(L, 1, HOP_T, &mp);
    vp_dlag *d = mp;
    const vp_dlag_hop *h = &lh->h;
    const char *k = lua_tostring(L, 2);
    if (!k)
        return 0;
    if (strcmp(k, "index") == 0)
        lua_pushinteger(L, (lua_Integer)lh->i + 1);
    else if (strcmp(k, "address") == 0)
        address_push(L, h->address);
    else if (strcmp(k, "address_bytes") == 0) {
        lua_createtable(L, 4, 0);
        for (int j = 0; j < 4; j++) {
            lua_pushinteger(L, h->address[j]);
            lua_rawseti(L, -2, j + 1);
        }
    } else if (strcmp(k, "name") == 0)
        child_bytes_push(L, d, 1, h->name_off, h->name_len);
    else if (strcmp(k, "unknown_u8_1") == 0)
        lua_pushinteger(L, h->unknown_u8_1);
    else if (strcmp(k, "unknown_u32") == 0)
        lua_pushinteger(L, h->unknown_u32);
    else if (strcmp(k, "unknown_floats") == 0) {
        lua_createtable(L, 4, 0);
        for (int j = 0; j < 4; j++) {
            lua_pushnumber(L, h->unknown_floats[j]);
            lua_rawseti(L, -2, j + 1);
        }
    } else if (strcmp(k, "unknown_u8_2") == 0)
        lua_pushinteger(L, h->unknown_u8_2);
    else if (strcmp(k, "count") == 0)
        lua_pushinteger(L, (lua_Integer)h->samples.count);
    else if (strcmp(k, "file_offset") == 0)
        lua_pushinteger(L, (lua_Integer)h->offset);
    else if (strcmp(k, "capture") == 0)
        vp_lchild_pushcap(L, 1);
    else
        return 0;
    return 1;
}

static int hop_totable(lua_State *L)
{
    static const char *const keys[] = {
        "index",        "address",     "address_bytes", "name",  "unknown_u8_1",
        "unknown_u32",  "unknown_floats", "unknown_u8_2", "count", "file_offset", NULL};
    return owner_totable(L, hop_get, keys);
}

static int hop_eq(lua_State *L)
{
    return vp_lchild_eq(L, HOP_T, offsetof(lhop, i), sizeof(uint64_t));
}

static int hop_tostring(lua_State *L)
{
    void *mp;
    lhop *lh = vp_lchild_check(L, 1, HOP_T, &mp);
    vp_dlag *d = mp;
    address_push(L, lh->h.address);
    child_bytes_push(L, d, 1, lh->h.name_off, lh->h.name_len);
    lua_pushfstring(L, "<dlag hop %I %s \"%s\": %I samples>", (lua_Integer)lh->i + 1,
                    lua_tostring(L, -2), lua_tostring(L, -1), (lua_Integer)lh->h.samples.count);
    return 1;
}

void vp_l_register_dlag(lua_State *L)
{
    static const luaL_Reg cap_methods[] = {
        {"measurements", cap_measurements}, {"measurement", cap_measurement},
        {"graph_states", cap_graph_states}, {"graph_state", cap_graph_state},
        {"hops", cap_hops},                 {"hop", cap_hop},
        {"summary", cap_summary},           {NULL, NULL}};
    vp_lcap_class(L, DLAG_T, cap_tostring, cap_len, cap_methods);

    static const luaL_Reg meas_meta[] = {
        {"__len", owner_len}, {"__tostring", meas_tostring}, {"__eq", meas_eq}, {NULL, NULL}};
    static const luaL_Reg meas_methods[] = {{"samples", owner_samples_l}, {"sample", owner_sample},
                                            {"values", owner_values},     {"times", owner_times},
                                            {"totable", meas_totable},    {NULL, NULL}};
    vp_l_class(L, MEAS_T, meas_meta, meas_methods, meas_get);
    static const luaL_Reg hop_meta[] = {
        {"__len", owner_len}, {"__tostring", hop_tostring}, {"__eq", hop_eq}, {NULL, NULL}};
    static const luaL_Reg hop_methods[] = {{"samples", owner_samples_l}, {"sample", owner_sample},
                                           {"values", owner_values},     {"times", owner_times},
                                           {"totable", hop_totable},     {NULL, NULL}};
    vp_l_class(L, HOP_T, hop_meta, hop_methods, hop_get);
}
