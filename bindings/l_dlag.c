/* The .dlag (lag profiler) capture, its measurements and tail records
 * (hops), and vp.writer("dlag").
 *
 * cap: time, measurement_count, sample_count, graph_state_count,
 *      traceroute_host, hop_count, trailing_bytes; cap:measurements(),
 *      cap:measurement(index | name), cap:graph_states(),
 *      cap:graph_state(i), cap:hops(), cap:hop(i), cap:summary().
 * measurement (pins the capture): index, name, page, total, count,
 *      file_offset, #m, m:samples(), m:sample(i), m:values(), m:times().
 * hop (pins the capture): index, address ("a.b.c.d"), address_bytes,
 *      name, unknown_u8_1, unknown_u32, unknown_floats, unknown_u8_2,
 *      count, file_offset, #hop and the same sample methods.
 * samples and graph states are plain tables. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/dlag.h"
#include "write/dlag_write.h"
#include "l_common.h"
#include "l_formats.h"

#define DLAG_T "vp.dlag"
#define MEAS_T "vp.dlag.measurement"
#define HOP_T "vp.dlag.hop"
#define WRITER_T "vp.dlag.writer"

/* Cache slots: measurements at k + 1, hops at -(i + 1). */
typedef struct lmeas {
    uint32_t k; /* 0-based */
} lmeas;

typedef struct lhop {
    uint64_t i;    /* 0-based */
    vp_dlag_hop h; /* decoded once, when the child is made */
} lhop;

static void dlag_free_model(void *m)
{
    vp_dlag_free(m);
}

static vp_dlag *dlag_check(lua_State *L, int idx)
{
    return vp_lcap_check(L, idx, DLAG_T)->model;
}

static void measurement_name_push(lua_State *L, uint32_t index)
{
    const char *name = vp_dlag_measurement_name(index);
    if (name)
        lua_pushstring(L, name);
    else
        lua_pushfstring(L, "measurement_%d", (int)index);
}

/* One userdata per measurement / hop, cached in the capture. */
static void child_push(lua_State *L, int capidx, const char *tname, lua_Integer slot,
                       uint64_t value)
{
    capidx = lua_absindex(L, capidx);
    vp_lcap_cache(L, capidx);
    if (lua_rawgeti(L, -1, slot) == LUA_TUSERDATA) {
        lua_remove(L, -2);
        return;
    }
    lua_pop(L, 1);
    if (strcmp(tname, MEAS_T) == 0) {
        lmeas *m = vp_lchild_new(L, sizeof *m, MEAS_T, capidx);
        m->k = (uint32_t)value;
    } else {
        vp_dlag *d = vp_lcap_check(L, capidx, DLAG_T)->model;
        vp_dlag_hop h;
        vp_error err;
        if (!vp_dlag_hop_get(d, value, &h, &err))
            vp_lcap_raise(L, capidx, &err);
        lhop *lh = vp_lchild_new(L, sizeof *lh, HOP_T, capidx);
        lh->i = value;
        lh->h = h;
    }
    lua_pushvalue(L, -1);
    lua_rawseti(L, -3, slot);
    lua_remove(L, -2);
}

static void meas_push(lua_State *L, int capidx, uint32_t k)
{
    child_push(L, capidx, MEAS_T, (lua_Integer)k + 1, k);
}

static void hop_push(lua_State *L, int capidx, uint64_t i)
{
    child_push(L, capidx, HOP_T, -(lua_Integer)i - 1, i);
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

static void graph_state_push(lua_State *L, const vp_dlag *d, int capidx, uint64_t i)
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
    const uint8_t *bits = vp_dlag_bytes(d, gs.bitfield_off);
    lua_pushlstring(L, (const char *)bits, gs.bitfield_len);
    lua_setfield(L, -2, "bitfield");
    vp_l_push_bits(L, bits, gs.bitfield_len);
    lua_setfield(L, -2, "bits");
    vec4_push(L, gs.offset_v);
    lua_setfield(L, -2, "offset");
    vec4_push(L, gs.scale);
    lua_setfield(L, -2, "scale");
    lua_pushinteger(L, gs.print_titles);
    lua_setfield(L, -2, "print_titles");
    lua_pushinteger(L, gs.unknown);
    lua_setfield(L, -2, "unknown");
    lua_pushinteger(L, (lua_Integer)gs.offset);
    lua_setfield(L, -2, "file_offset");
}

/* ---- capture ------------------------------------------------------------ */

int vp_l_open_dlag(lua_State *L, const char *path, int opts)
{
    vp_open_opts o;
    vp_l_open_opts(L, opts, &o);
    vp_dlag *d;
    vp_error err;
    if (vp_dlag_open(path, &o, &d, &err) != VP_OK)
        return vp_l_fail(L, path, &err);
    vp_lcap_new(L, DLAG_T, d, dlag_free_model, "dlag", path, d->map.size, &d->warnings);
    int cap = lua_gettop(L);
    lua_pushinteger(L, d->time);
    vp_lcap_setfield(L, cap, "time");
    lua_pushinteger(L, d->measurement_count);
    vp_lcap_setfield(L, cap, "measurement_count");
    lua_pushinteger(L, (lua_Integer)d->sample_count);
    vp_lcap_setfield(L, cap, "sample_count");
    lua_pushinteger(L, (lua_Integer)d->graph_state_count);
    vp_lcap_setfield(L, cap, "graph_state_count");
    /* Absent (nil) when the file ends before the host's NUL. */
    if (d->have_host) {
        lua_pushlstring(L, (const char *)vp_dlag_bytes(d, d->host_off), d->host_len);
        vp_lcap_setfield(L, cap, "traceroute_host");
    }
    lua_pushinteger(L, (lua_Integer)d->hop_count);
    vp_lcap_setfield(L, cap, "hop_count");
    lua_pushinteger(L, (lua_Integer)d->trailing_bytes);
    vp_lcap_setfield(L, cap, "trailing_bytes");
    lua_pushboolean(L, d->truncated);
    vp_lcap_setfield(L, cap, "truncated");
    return 1;
}

/* Upvalues: capture, next 0-based index. `kind` 0 measurements, 1 graph
 * states, 2 hops. */
static int cap_iter(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    int cap = lua_gettop(L);
    vp_dlag *d = dlag_check(L, cap);
    int kind = (int)lua_tointeger(L, lua_upvalueindex(3));
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(2));
    uint64_t n = kind == 0 ? d->measurement_count
                           : kind == 1 ? d->graph_state_count : d->hop_count;
    if ((uint64_t)i >= n)
        return 0;
    if (kind == 0)
        meas_push(L, cap, (uint32_t)i);
    else if (kind == 1)
        graph_state_push(L, d, cap, (uint64_t)i);
    else
        hop_push(L, cap, (uint64_t)i);
    lua_pushinteger(L, i + 1);
    lua_replace(L, lua_upvalueindex(2));
    return 1;
}

static int iter_new(lua_State *L, int kind)
{
    dlag_check(L, 1);
    lua_pushvalue(L, 1);
    lua_pushinteger(L, 0);
    lua_pushinteger(L, kind);
    lua_pushcclosure(L, cap_iter, 3);
    return 1;
}

static int cap_measurements(lua_State *L)
{
    return iter_new(L, 0);
}

static int cap_graph_states(lua_State *L)
{
    return iter_new(L, 1);
}

static int cap_hops(lua_State *L)
{
    return iter_new(L, 2);
}

static int name_eq_nocase(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

/* cap:measurement(index | name) -> measurement or nil. A name matches
 * exactly, then ignoring case (the first in index order: "Total Objects"
 * is 44, 59 is reached by index), then "measurement_N". */
static int cap_measurement(lua_State *L)
{
    vp_dlag *d = dlag_check(L, 1);
    lua_Integer idx = 0;
    if (lua_type(L, 2) == LUA_TNUMBER) {
        idx = luaL_checkinteger(L, 2);
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

static int cap_graph_state(lua_State *L)
{
    vp_dlag *d = dlag_check(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    if (i < 1 || (uint64_t)i > d->graph_state_count)
        return 0;
    graph_state_push(L, d, 1, (uint64_t)i - 1);
    return 1;
}

static int cap_hop(lua_State *L)
{
    vp_dlag *d = dlag_check(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    if (i < 1 || (uint64_t)i > d->hop_count)
        return 0;
    hop_push(L, 1, (uint64_t)i - 1);
    return 1;
}

static int cap_summary(lua_State *L)
{
    vp_dlag *d = dlag_check(L, 1);
    lua_newtable(L);
    int list = lua_gettop(L);
    lua_pushinteger(L, d->time);
    vp_l_row_add(L, list, "time");
    lua_pushinteger(L, d->measurement_count);
    vp_l_row_add(L, list, "measurements");
    uint32_t with = 0;
    for (uint32_t k = 0; k < d->measurement_count; k++)
        with += d->measurements[k].samples.count > 0;
    lua_pushinteger(L, with);
    vp_l_row_add(L, list, "measurements_with_samples");
    lua_pushinteger(L, (lua_Integer)d->sample_count);
    vp_l_row_add(L, list, "samples");
    lua_pushinteger(L, (lua_Integer)d->graph_state_count);
    vp_l_row_add(L, list, "graph_states");
    if (!d->have_host)
        lua_pushliteral(L, "(missing)");
    else if (d->host_len)
        lua_pushlstring(L, (const char *)vp_dlag_bytes(d, d->host_off), d->host_len);
    else
        lua_pushliteral(L, "(off)");
    vp_l_row_add(L, list, "traceroute_host");
    lua_pushinteger(L, (lua_Integer)d->hop_count);
    vp_l_row_add(L, list, "hops");
    if (d->trailing_bytes) {
        lua_pushinteger(L, (lua_Integer)d->trailing_bytes);
        vp_l_row_add(L, list, "trailing_bytes");
    }
    /* Only when it is so: the rows of a whole file stay as they were. */
    if (d->truncated) {
        lua_pushboolean(L, 1);
        vp_l_row_add(L, list, "truncated");
    }
    lua_pushinteger(L, (lua_Integer)d->warnings.count);
    vp_l_row_add(L, list, "warnings");
    return 1;
}

static int cap_close(lua_State *L)
{
    vp_lcap_close(luaL_checkudata(L, 1, DLAG_T));
    return 0;
}

static int cap_tostring(lua_State *L)
{
    vp_lcap *c = luaL_checkudata(L, 1, DLAG_T);
    const char *base = vp_lcap_basename(L, 1);
    if (!c->model) {
        lua_pushfstring(L, "<dlag %s: closed>", base);
        return 1;
    }
    vp_dlag *d = c->model;
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

static void sample_get_push(lua_State *L, int owner, const vp_dlag *d, const vp_dlag_samples *s,
                            uint64_t i)
{
    vp_dlag_sample sm;
    vp_error err;
    if (!vp_dlag_sample_get(d, s, i, &sm, &err)) {
        vp_lchild_pushcap(L, owner);
        vp_lcap_raise(L, lua_gettop(L), &err);
    }
    sample_push(L, &sm, i);
}

static int owner_len(lua_State *L)
{
    vp_dlag *d;
    lua_pushinteger(L, (lua_Integer)owner_samples(L, 1, &d)->count);
    return 1;
}

/* Upvalues: owner, next 0-based sample. */
static int samples_iter(lua_State *L)
{
    vp_dlag *d;
    lua_pushvalue(L, lua_upvalueindex(1));
    int owner = lua_gettop(L);
    const vp_dlag_samples *s = owner_samples(L, owner, &d);
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(2));
    if ((uint64_t)i >= s->count)
        return 0;
    sample_get_push(L, owner, d, s, (uint64_t)i);
    lua_pushinteger(L, i + 1);
    lua_replace(L, lua_upvalueindex(2));
    return 1;
}

static int owner_samples_l(lua_State *L)
{
    vp_dlag *d;
    owner_samples(L, 1, &d);
    lua_pushvalue(L, 1);
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, samples_iter, 2);
    return 1;
}

/* x:sample(i) -> sample or nil (1-based) */
static int owner_sample(lua_State *L)
{
    vp_dlag *d;
    const vp_dlag_samples *s = owner_samples(L, 1, &d);
    lua_Integer i = luaL_checkinteger(L, 2);
    if (i < 1 || (uint64_t)i > s->count)
        return 0;
    sample_get_push(L, 1, d, s, (uint64_t)i - 1);
    return 1;
}

static int owner_series(lua_State *L, int which)
{
    vp_dlag *d;
    const vp_dlag_samples *s = owner_samples(L, 1, &d);
    vp_series *r = vp_dlag_series(d, s, which);
    if (!r)
        return luaL_error(L, "out of memory");
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
        lua_pushinteger(L, (lua_Integer)m->offset);
    else if (strcmp(k, "capture") == 0)
        vp_lchild_pushcap(L, 1);
    else
        return 0;
    return 1;
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
        lua_pushlstring(L, (const char *)vp_dlag_bytes(d, h->name_off), h->name_len);
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

static int hop_tostring(lua_State *L)
{
    void *mp;
    lhop *lh = vp_lchild_check(L, 1, HOP_T, &mp);
    vp_dlag *d = mp;
    address_push(L, lh->h.address);
    lua_pushlstring(L, (const char *)vp_dlag_bytes(d, lh->h.name_off), lh->h.name_len);
    lua_pushfstring(L, "<dlag hop %I %s \"%s\": %I samples>", (lua_Integer)lh->i + 1,
                    lua_tostring(L, -2), lua_tostring(L, -1), (lua_Integer)lh->h.samples.count);
    return 1;
}

/* ---- writer ------------------------------------------------------------- */

#define WHO "dlag writer"

static vp_errcode dlag_wclose(void *w, const char *path, uint64_t *bytes, vp_error *err)
{
    return vp_dlag_writer_save(w, path, bytes, err);
}

static void dlag_wfree(void *w)
{
    vp_dlag_writer_free(w);
}

static uint64_t dlag_wsize(void *w)
{
    return vp_dlag_writer_size(w);
}

static vp_errcode dlag_wraw(void *w, const void *p, size_t n, vp_error *err)
{
    (void)err;
    vp_dlag_writer_raw(w, p, n);
    return VP_OK;
}

static void dlag_wtruncate(void *w, size_t n)
{
    vp_dlag_writer_truncate(w, n);
}

static const uint8_t *dlag_wbytes(void *w, size_t *len, vp_error *err)
{
    return vp_dlag_writer_bytes(w, len, err);
}

static const vp_lwriter_ops dlag_wops = {.tname = WRITER_T,
                                         .name = WHO,
                                         .close = dlag_wclose,
                                         .free = dlag_wfree,
                                         .size = dlag_wsize,
                                         .raw = dlag_wraw,
                                         .truncate = dlag_wtruncate,
                                         .bytes = dlag_wbytes};

static float tfloat(lua_State *L, int idx, const char *key, int pos)
{
    vp_l_field_or_index(L, idx, key, pos);
    int ok = 1;
    lua_Number v = lua_isnil(L, -1) ? 0 : lua_tonumberx(L, -1, &ok);
    if (!ok)
        luaL_error(L, WHO ": %s must be a number", key);
    lua_pop(L, 1);
    return (float)v;
}

/* A vector field: {x =, y =, z =, w =} or {a, b, c, d}. */
static void tvec4(lua_State *L, int idx, const char *key, float *out)
{
    static const char *const names[4] = {"x", "y", "z", "w"};
    memset(out, 0, 4 * sizeof *out);
    if (lua_getfield(L, idx, key) == LUA_TTABLE) {
        int v = lua_gettop(L);
        for (int j = 0; j < 4; j++)
            out[j] = tfloat(L, v, names[j], j + 1);
    } else if (!lua_isnil(L, -1)) {
        luaL_error(L, WHO ": %s must be a table of 4 numbers", key);
    }
    lua_pop(L, 1);
}

/* The list at idx of {value =, time =, unknown =} or {value, time, unknown}
 * into a userdata buffer left on the stack. */
static vp_dlag_wsample *samples_opt(lua_State *L, int idx, size_t *n)
{
    idx = lua_absindex(L, idx);
    *n = lua_istable(L, idx) ? (size_t)lua_rawlen(L, idx) : 0;
    vp_dlag_wsample *s = lua_newuserdatauv(L, (*n ? *n : 1) * sizeof *s, 0);
    for (size_t i = 0; i < *n; i++) {
        if (lua_rawgeti(L, idx, (lua_Integer)i + 1) != LUA_TTABLE)
            luaL_error(L, WHO ": sample %d must be a table", (int)i + 1);
        int e = lua_gettop(L);
        s[i].value = tfloat(L, e, "value", 1);
        s[i].time = vp_l_uint_field(L, e, WHO, "time", 2, UINT32_MAX, 0);
        s[i].unknown = vp_l_uint_field(L, e, WHO, "unknown", 3, UINT32_MAX, 0);
        lua_pop(L, 1);
    }
    return s;
}

/* w:measurement(samples [, {total =, chunks =}]) */
static int lwriter_measurement(lua_State *L)
{
    vp_lwriter *lw = vp_lwriter_check(L, WRITER_T);
    luaL_checktype(L, 2, LUA_TTABLE);
    if (!lua_isnoneornil(L, 3))
        luaL_checktype(L, 3, LUA_TTABLE);
    size_t n;
    vp_dlag_wsample *s = samples_opt(L, 2, &n);
    vp_wframing f;
    vp_l_framing_opt(L, 3, WHO, &f);
    vp_error err;
    if (vp_dlag_writer_measurement(lw->w, s, n, &f, &err) != VP_OK)
        return vp_lwriter_raise(L, lw, &err);
    return 0;
}

/* w:graph_states(states [, {chunks =}]); a state is {measurement_count =,
 * bitfield = bytes, offset = vec4, scale = vec4, print_titles =, unknown =} */
static int lwriter_graph_states(lua_State *L)
{
    vp_lwriter *lw = vp_lwriter_check(L, WRITER_T);
    luaL_checktype(L, 2, LUA_TTABLE);
    if (!lua_isnoneornil(L, 3))
        luaL_checktype(L, 3, LUA_TTABLE);
    size_t n = (size_t)lua_rawlen(L, 2);
    vp_dlag_wgraph_state *gs = lua_newuserdatauv(L, (n ? n : 1) * sizeof *gs, 0);
    for (size_t i = 0; i < n; i++) {
        if (lua_rawgeti(L, 2, (lua_Integer)i + 1) != LUA_TTABLE)
            return luaL_error(L, WHO ": graph state %d must be a table", (int)i + 1);
        int e = lua_gettop(L);
        memset(&gs[i], 0, sizeof gs[i]);
        gs[i].measurement_count =
            (uint16_t)vp_l_uint_field(L, e, WHO, "measurement_count", 0, 0xFFFF, 0);
        if (lua_getfield(L, e, "bitfield") != LUA_TNIL) {
            /* The string stays referenced by the states table during the call. */
            gs[i].bitfield = (const uint8_t *)luaL_checklstring(L, -1, &gs[i].bitfield_len);
        }
        lua_pop(L, 1);
        tvec4(L, e, "offset", gs[i].offset);
        tvec4(L, e, "scale", gs[i].scale);
        gs[i].print_titles = (uint8_t)vp_l_uint_field(L, e, WHO, "print_titles", 0, 255, 0);
        gs[i].unknown = (uint8_t)vp_l_uint_field(L, e, WHO, "unknown", 0, 255, 0);
        lua_pop(L, 1);
    }
    vp_wframing f;
    vp_l_framing_opt(L, 3, WHO, &f);
    vp_error err;
    if (vp_dlag_writer_graph_states(lw->w, gs, n, &f, &err) != VP_OK)
        return vp_lwriter_raise(L, lw, &err);
    return 0;
}

/* w:traceroute_host(host [, {nul = false}]) */
static int lwriter_host(lua_State *L)
{
    vp_lwriter *lw = vp_lwriter_check(L, WRITER_T);
    const char *host = luaL_checkstring(L, 2);
    int nul = vp_l_opt_bool(L, 3, "nul", 1);
    vp_error err;
    if (vp_dlag_writer_host(lw->w, host, nul, &err) != VP_OK)
        return vp_lwriter_raise(L, lw, &err);
    return 0;
}

/* Parse "a.b.c.d" into 4 bytes; 0 when it is not one. */
static int address_parse(const char *s, uint8_t *out)
{
    for (int j = 0; j < 4; j++) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > 255 || (j < 3 ? *end != '.' : *end != '\0'))
            return 0;
        out[j] = (uint8_t)v;
        s = end + 1;
    }
    return 1;
}

/* w:hop{address = "a.b.c.d" | {a, b, c, d}, samples = {...}, chunks =,
 *       name =, unknown_u8_1 =, unknown_u32 =, unknown_floats = {4},
 *       unknown_u8_2 =} */
static int lwriter_hop(lua_State *L)
{
    vp_lwriter *lw = vp_lwriter_check(L, WRITER_T);
    luaL_checktype(L, 2, LUA_TTABLE);
    vp_dlag_whop h;
    memset(&h, 0, sizeof h);
    int t = lua_getfield(L, 2, "address");
    if (t == LUA_TSTRING) {
        if (!address_parse(lua_tostring(L, -1), h.address))
            return luaL_error(L, WHO ": address '%s' is not a.b.c.d", lua_tostring(L, -1));
    } else if (t == LUA_TTABLE) {
        int a = lua_gettop(L);
        for (int j = 0; j < 4; j++) {
            lua_rawgeti(L, a, j + 1);
            h.address[j] =
                (uint8_t)(lua_isnil(L, -1) ? 0 : vp_l_uint_range(L, -1, WHO, "address byte", 255));
            lua_pop(L, 1);
        }
    } else if (t != LUA_TNIL) {
        return luaL_error(L, WHO ": address must be a string or a table of 4 bytes");
    }
    lua_pop(L, 1);
    lua_getfield(L, 2, "samples");
    h.samples = samples_opt(L, -1, &h.nsamples);
    vp_l_framing_opt(L, 2, WHO, &h.framing);
    if (lua_getfield(L, 2, "name") != LUA_TNIL)
        h.name = luaL_checkstring(L, -1); /* kept alive by the argument table */
    lua_pop(L, 1);
    h.unknown_u8_1 = (uint8_t)vp_l_uint_field(L, 2, WHO, "unknown_u8_1", 0, 255, 0);
    h.unknown_u32 = vp_l_uint_field(L, 2, WHO, "unknown_u32", 0, UINT32_MAX, 0);
    if (lua_getfield(L, 2, "unknown_floats") == LUA_TTABLE) {
        int v = lua_gettop(L);
        for (int j = 0; j < 4; j++) {
            lua_rawgeti(L, v, j + 1);
            h.unknown_floats[j] = (float)lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
    }
    lua_pop(L, 1);
    h.unknown_u8_2 = (uint8_t)vp_l_uint_field(L, 2, WHO, "unknown_u8_2", 0, 255, 0);
    vp_error err;
    if (vp_dlag_writer_hop(lw->w, &h, &err) != VP_OK)
        return vp_lwriter_raise(L, lw, &err);
    return 0;
}

int vp_l_writer_dlag(lua_State *L, const char *path, int opts)
{
    vp_dlag_wopts o;
    memset(&o, 0, sizeof o);
    if (lua_istable(L, opts)) {
        lua_getfield(L, opts, "time");
        o.time = lua_isnil(L, -1) ? 0 : vp_l_uint_range(L, -1, WHO, "time", UINT32_MAX);
        lua_pop(L, 1);
        lua_getfield(L, opts, "measurement_count");
        if (!lua_isnil(L, -1)) {
            o.has_measurement_count = 1;
            o.measurement_count = vp_l_uint_range(L, -1, WHO, "measurement_count", UINT32_MAX);
        }
        lua_pop(L, 1);
        o.no_complete = !vp_l_opt_bool(L, opts, "complete", 1);
    }
    vp_lwriter *lw = vp_lwriter_new(L, &dlag_wops, sizeof *lw, path);
    lw->w = vp_dlag_writer_new(&o);
    if (!lw->w)
        return luaL_error(L, "vp.writer: out of memory");
    return 1;
}

void vp_l_register_dlag(lua_State *L)
{
    static const luaL_Reg cap_meta[] = {{"__gc", cap_close},
                                        {"__close", cap_close},
                                        {"__tostring", cap_tostring},
                                        {NULL, NULL}};
    static const luaL_Reg cap_methods[] = {
        {"measurements", cap_measurements}, {"measurement", cap_measurement},
        {"graph_states", cap_graph_states}, {"graph_state", cap_graph_state},
        {"hops", cap_hops},                 {"hop", cap_hop},
        {"summary", cap_summary},           {"close", cap_close},
        {NULL, NULL}};
    vp_l_class(L, DLAG_T, cap_meta, cap_methods, NULL);

    static const luaL_Reg meas_meta[] = {
        {"__len", owner_len}, {"__tostring", meas_tostring}, {NULL, NULL}};
    static const luaL_Reg sample_methods[] = {{"samples", owner_samples_l},
                                              {"sample", owner_sample},
                                              {"values", owner_values},
                                              {"times", owner_times},
                                              {NULL, NULL}};
    vp_l_class(L, MEAS_T, meas_meta, sample_methods, meas_get);
    static const luaL_Reg hop_meta[] = {
        {"__len", owner_len}, {"__tostring", hop_tostring}, {NULL, NULL}};
    vp_l_class(L, HOP_T, hop_meta, sample_methods, hop_get);

    static const luaL_Reg w_meta[] = {{"__gc", vp_lwriter_gc},
                                      {"__close", vp_lwriter_gc},
                                      {"__tostring", vp_lwriter_tostring},
                                      {NULL, NULL}};
    static const luaL_Reg w_methods[] = {{"measurement", lwriter_measurement},
                                         {"graph_states", lwriter_graph_states},
                                         {"traceroute_host", lwriter_host},
                                         {"hop", lwriter_hop},
                                         {"raw", vp_lwriter_raw},
                                         {"truncate", vp_lwriter_truncate},
                                         {"offset", vp_lwriter_tell},
                                         {"data", vp_lwriter_data},
                                         {"close", vp_lwriter_close},
                                         {NULL, NULL}};
    vp_lwriter_class(L, &dlag_wops, w_meta, w_methods, vp_lwriter_get);
}
