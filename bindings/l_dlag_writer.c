/* vp.writer("dlag", path [, opts]): the Lua face of write/dlag_write.h. The
 * file is built in memory, so w:data() and w:truncate() work on the bytes
 * themselves; close writes them out. Parts go in file order: measurements,
 * graph states, the traceroute host, tail records (hops). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "write/dlag_write.h"
#include "l_common.h"
#include "l_formats.h"
#include "l_trace.h"

#define WRITER_T "vp.dlag.writer"
#define WHO "dlag writer"

/* dlag_wclose, dlag_wsize, dlag_wraw, dlag_wtruncate, dlag_wdata (l_common.h). */
VP_LWRITER_FORWARD_CLOSE(dlag)
VP_LWRITER_FORWARD(dlag)

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

/* A sample: {value =, time =, unknown =} or {value, time, unknown}. */
static void sample_fill(lua_State *L, int e, void *elem)
{
    vp_dlag_wsample *s = elem;
    s->value = tfloat(L, e, "value", 1);
    s->time = vp_l_uint_field(L, e, WHO, "time", 2, UINT32_MAX, 0);
    s->unknown = vp_l_uint_field(L, e, WHO, "unknown", 3, UINT32_MAX, 0);
}

/* w:measurement(samples [, {total =, chunks =}]) */
static int lwriter_measurement(lua_State *L)
{
    vp_lwriter *lw = vp_lwriter_check(L, WRITER_T);
    size_t n;
    vp_wframing f;
    vp_dlag_wsample *s = vp_ltrace_part(L, WHO, "sample", sizeof *s, sample_fill, &n, &f);
    vp_error err;
    if (vp_dlag_writer_measurement(lw->w, s, n, &f, &err) != VP_OK)
        return vp_lwriter_raise(L, lw, &err);
    return 0;
}

/* A graph state: {measurement_count =, bitfield = bytes, offset = vec4,
 * scale = vec4, print_titles =, unknown =}. */
static void graph_state_fill(lua_State *L, int e, void *elem)
{
    vp_dlag_wgraph_state *gs = elem;
    gs->measurement_count =
        (uint16_t)vp_l_uint_field(L, e, WHO, "measurement_count", 0, 0xFFFF, 0);
    if (lua_getfield(L, e, "bitfield") != LUA_TNIL) {
        /* The string stays referenced by the states table during the call. */
        gs->bitfield = (const uint8_t *)luaL_checklstring(L, -1, &gs->bitfield_len);
    }
    lua_pop(L, 1);
    tvec4(L, e, "offset", gs->offset);
    tvec4(L, e, "scale", gs->scale);
    gs->print_titles = vp_l_flag_field(L, e, "print_titles", 0, WHO);
    gs->unknown = (uint8_t)vp_l_uint_field(L, e, WHO, "unknown", 0, 255, 0);
}

/* w:graph_states(states [, {chunks =}]) */
static int lwriter_graph_states(lua_State *L)
{
    vp_lwriter *lw = vp_lwriter_check(L, WRITER_T);
    size_t n;
    vp_wframing f;
    vp_dlag_wgraph_state *gs =
        vp_ltrace_part(L, WHO, "graph state", sizeof *gs, graph_state_fill, &n, &f);
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
    h.samples = vp_ltrace_list(L, -1, WHO, "sample", sizeof *h.samples, sample_fill, &h.nsamples);
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

static const luaL_Reg dlag_wmethods[] = {{"measurement", lwriter_measurement},
                                         {"graph_states", lwriter_graph_states},
                                         {"traceroute_host", lwriter_host},
                                         {"hop", lwriter_hop},
                                         {NULL, NULL}};

static const vp_lwriter_ops dlag_wops = {.tname = WRITER_T,
                                         .name = WHO,
                                         .methods = dlag_wmethods,
                                         .close = dlag_wclose,
                                         VP_LWRITER_FORWARDED(dlag)};

int vp_l_writer_dlag(lua_State *L, const char *path, int opts)
{
    vp_dlag_wopts o;
    memset(&o, 0, sizeof o);
    o.time = vp_ltrace_opt_u32(L, opts, WHO, "time", UINT32_MAX);
    o.has_measurement_count =
        vp_ltrace_opt_count(L, opts, WHO, "measurement_count", &o.measurement_count);
    if (lua_istable(L, opts))
        o.no_complete = !vp_l_opt_bool(L, opts, "complete", 1);
    vp_error err;
    vp_dlag_writer *w = vp_dlag_writer_open(path, &o, &err);
    return vp_lwriter_push(L, &dlag_wops, path, w, &err);
}

