/* The .devt (event profiler) capture and its groups. The writer is
 * l_devt_writer.c.
 *
 * cap: time, unknown, graph_duration, prefix, bitfield (the raw bytes),
 *      bits (set entries, 0-based), group_count, event_count (#cap),
 *      trailing_bytes, truncated; cap:groups(), cap:group(i|name),
 *      cap:events(), cap:event_stats([max_types]), cap:summary().
 * group (pins the capture): index, name, total, count, file_offset, #group,
 *      group:events(), group:event(i), group:totable().
 * events are plain tables: index, group, time1, time2, type, type_name,
 *      type_uncertain. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/devt.h"
#include "l_common.h"
#include "l_formats.h"
#include "l_trace.h"

#define DEVT_T "vp.devt"
#define GROUP_T "vp.devt.group"

typedef struct lgroup {
    uint32_t g; /* 0-based */
} lgroup;

static vp_devt *devt_check(lua_State *L, int idx)
{
    return vp_lcap_check(L, idx, DEVT_T)->model;
}

/* Group and type names as the events carry them. */
static void group_name_push(lua_State *L, uint32_t g)
{
    vp_l_push_name(L, vp_devt_group_name(g), "group_%d", (int)g + 1);
}

static void type_name_push(lua_State *L, unsigned type)
{
    vp_l_push_name(L, vp_devt_type_name(type), "type_%d", (int)type);
}

/* The group userdata for 0-based g, one per group (cached). */
static void group_push(lua_State *L, int capidx, uint32_t g)
{
    capidx = lua_absindex(L, capidx);
    if (vp_lcap_cached(L, capidx, (lua_Integer)g + 1))
        return;
    lgroup *lg = vp_lchild_new(L, sizeof *lg, GROUP_T, capidx);
    lg->g = g;
    vp_lcap_cache_set(L, capidx, (lua_Integer)g + 1);
}

static void event_push(lua_State *L, const vp_devt_event *ev, uint32_t g, uint64_t i)
{
    lua_createtable(L, 0, 7);
    lua_pushinteger(L, (lua_Integer)i + 1);
    lua_setfield(L, -2, "index");
    lua_pushinteger(L, (lua_Integer)g + 1);
    lua_setfield(L, -2, "group");
    lua_pushinteger(L, ev->time1);
    lua_setfield(L, -2, "time1");
    lua_pushinteger(L, ev->time2);
    lua_setfield(L, -2, "time2");
    lua_pushinteger(L, ev->type);
    lua_setfield(L, -2, "type");
    type_name_push(L, ev->type);
    lua_setfield(L, -2, "type_name");
    lua_pushboolean(L, vp_devt_type_uncertain(ev->type));
    lua_setfield(L, -2, "type_uncertain");
}

/* Push event i of group g or raise with the file and the reason. */
static void event_get_push(lua_State *L, vp_devt *d, int capidx, uint32_t g, uint64_t i)
{
    vp_devt_event ev;
    vp_error err;
    if (!vp_devt_event_get(d, g, i, &ev, &err))
        vp_lcap_raise(L, capidx, &err);
    event_push(L, &ev, g, i);
}

/* ---- capture ------------------------------------------------------------ */

/* The capture at cap as it opens: its child cache weak, its plain fields
 * set. */
static void devt_set_fields(lua_State *L, int cap, const vp_devt *d)
{
    vp_lcap_weak_cache(L, cap); /* a hostile file has millions of groups */
    vp_lcap_set_int(L, cap, "time", d->time);
    vp_lcap_set_int(L, cap, "unknown", d->unknown);
    vp_lcap_set_int(L, cap, "graph_duration", d->graph_duration);
    vp_lcap_set_int(L, cap, "prefix", d->prefix);
    const uint8_t *bits = vp_devt_bitfield(d);
    lua_pushlstring(L, (const char *)bits, d->bitfield_len);
    vp_lcap_setfield(L, cap, "bitfield");
    vp_l_push_bits(L, bits, d->bitfield_len);
    vp_lcap_setfield(L, cap, "bits");
    vp_lcap_set_int(L, cap, "group_count", d->group_count);
    vp_lcap_set_int(L, cap, "event_count", (lua_Integer)d->event_count);
    vp_lcap_set_int(L, cap, "trailing_bytes", (lua_Integer)d->trailing_bytes);
    vp_lcap_set_bool(L, cap, "truncated", d->truncated);
}

/* vp_l_open_devt (l_trace.h). */
VP_LTRACE_OPEN(devt, DEVT_T, devt_set_fields)

/* cap:groups(): group g (0-based) of the capture at cap. */
static int groups_step(lua_State *L, int cap, lua_Integer g)
{
    if (g >= (lua_Integer)devt_check(L, cap)->group_count)
        return 0;
    group_push(L, cap, (uint32_t)g);
    return 1;
}

static const vp_liter groups_iter = {groups_step};

static int cap_groups(lua_State *L)
{
    devt_check(L, 1);
    vp_liter_push(L, 1, &groups_iter);
    return 1;
}

/* cap:group(i | name) -> group; an index out of range raises, a name that
 * is no group's gives nil. */
static int cap_group(lua_State *L)
{
    vp_devt *d = devt_check(L, 1);
    if (lua_type(L, 2) == LUA_TNUMBER) {
        group_push(L, 1, (uint32_t)vp_l_check_index(L, 2, "group", d->group_count));
        return 1;
    }
    const char *name = luaL_checkstring(L, 2);
    for (uint32_t g = 0; g < d->group_count; g++) {
        const char *gn = vp_devt_group_name(g);
        if (gn && strcmp(gn, name) == 0) {
            group_push(L, 1, g);
            return 1;
        }
    }
    return 0;
}

/* Upvalues: capture, group (0-based), event (0-based). Yields event, group. */
static int events_iter(lua_State *L)
{
    lua_pushvalue(L, lua_upvalueindex(1));
    int cap = lua_gettop(L);
    vp_devt *d = devt_check(L, cap);
    lua_Integer g = lua_tointeger(L, lua_upvalueindex(2));
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(3));
    while (g < (lua_Integer)d->group_count && (uint64_t)i >= d->groups[g].count) {
        g++;
        i = 0;
    }
    if (g >= (lua_Integer)d->group_count)
        return 0;
    event_get_push(L, d, cap, (uint32_t)g, (uint64_t)i);
    group_push(L, cap, (uint32_t)g);
    lua_pushinteger(L, g);
    lua_replace(L, lua_upvalueindex(2));
    lua_pushinteger(L, i + 1);
    lua_replace(L, lua_upvalueindex(3));
    return 2;
}

static int cap_events(lua_State *L)
{
    devt_check(L, 1);
    lua_pushvalue(L, 1);
    lua_pushinteger(L, 0);
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, events_iter, 3);
    return 1;
}

/* The scan's memory lives in a userdata with a __gc, so an error raised
 * while the result is built cannot leak it. */
#define SCAN_T "vp.devt.scan"

static int scan_gc(lua_State *L)
{
    vp_devt_scan_free(luaL_checkudata(L, 1, SCAN_T));
    return 0;
}

static void series_or_raise(lua_State *L, vp_series *r)
{
    if (!r)
        luaL_error(L, "out of memory");
    vp_l_push_series(L, r);
}

/* cap:event_stats([max_types]) -> {events, first_time, last_time,
 * frame_intervals = Series, by_type = [{group, group_name, type, type_name,
 * type_uncertain, count, intervals = Series}], more_types = {buckets,
 * events}}: the events grouped by (group, type) in C (devt_stats.c).
 * by_type lists the max_types (default all) buckets with the most events,
 * by group then type; more_types counts the others. Intervals are the
 * differences of the sorted time1 values. */
static int cap_event_stats(lua_State *L)
{
    vp_devt *d = devt_check(L, 1);
    lua_Integer max = luaL_optinteger(L, 2, 0);
    luaL_argcheck(L, max >= 0, 2, "max_types must be at least 0 (0: all)");
    vp_devt_scan *s = vp_l_scratch(L, sizeof *s, SCAN_T, scan_gc);
    vp_error err;
    if (vp_devt_scan_events(d, s, &err) != VP_OK)
        return vp_lcap_raise(L, 1, &err);
    size_t k = max == 0 || (uint64_t)max > s->nbuckets ? s->nbuckets : (size_t)max;
    uint32_t *idx = lua_newuserdatauv(L, (k ? k : 1) * sizeof *idx, 0);
    size_t got = vp_devt_scan_top(s, k, idx);
    if (got == SIZE_MAX)
        return luaL_error(L, "out of memory");
    lua_createtable(L, 0, 6);
    lua_pushinteger(L, (lua_Integer)s->events);
    lua_setfield(L, -2, "events");
    if (s->events) {
        lua_pushinteger(L, s->first_time);
        lua_setfield(L, -2, "first_time");
        lua_pushinteger(L, s->last_time);
        lua_setfield(L, -2, "last_time");
    }
    series_or_raise(L, vp_devt_scan_intervals(s, SIZE_MAX));
    lua_setfield(L, -2, "frame_intervals");
    lua_createtable(L, got > INT32_MAX ? 0 : (int)got, 0);
    uint64_t listed = 0;
    for (size_t i = 0; i < got; i++) {
        const vp_devt_bucket *b = &s->buckets[idx[i]];
        lua_createtable(L, 0, 7);
        vp_l_set_int(L, "group", (lua_Integer)b->group + 1);
        group_name_push(L, b->group);
        lua_setfield(L, -2, "group_name");
        vp_l_set_int(L, "type", b->type);
        type_name_push(L, b->type);
        lua_setfield(L, -2, "type_name");
        lua_pushboolean(L, vp_devt_type_uncertain(b->type));
        lua_setfield(L, -2, "type_uncertain");
        vp_l_set_int(L, "count", (lua_Integer)b->count);
        series_or_raise(L, vp_devt_scan_intervals(s, idx[i]));
        lua_setfield(L, -2, "intervals");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
        listed += b->count;
    }
    lua_setfield(L, -2, "by_type");
    lua_createtable(L, 0, 2);
    vp_l_set_int(L, "buckets", (lua_Integer)(s->nbuckets - got));
    vp_l_set_int(L, "events", (lua_Integer)(s->events - listed));
    lua_setfield(L, -2, "more_types");
    vp_devt_scan_free(s);
    return 1;
}

/* Groups the summary names one by one: every group when there are at most
 * SUMMARY_GROUPS; else the four known ones and the largest of the others. */
#define SUMMARY_GROUPS 8

static size_t summary_groups(const vp_devt *d, uint32_t *show)
{
    size_t n = 0;
    if (d->group_count <= SUMMARY_GROUPS) {
        for (uint32_t g = 0; g < d->group_count; g++)
            show[n++] = g;
        return n;
    }
    for (uint32_t g = 0; g < VP_DEVT_KNOWN_GROUPS; g++)
        show[n++] = g;
    /* The largest others: a running selection of SUMMARY_GROUPS - 4 (ties
     * to the lower index), kept in index order for the rows. */
    const size_t want = SUMMARY_GROUPS - VP_DEVT_KNOWN_GROUPS;
    uint32_t best[SUMMARY_GROUPS];
    size_t nb = 0;
    for (uint32_t g = VP_DEVT_KNOWN_GROUPS; g < d->group_count; g++) {
        uint64_t c = d->groups[g].count;
        if (nb == want) {
            size_t min = 0;
            for (size_t j = 1; j < nb; j++)
                if (d->groups[best[j]].count < d->groups[best[min]].count ||
                    (d->groups[best[j]].count == d->groups[best[min]].count && best[j] > best[min]))
                    min = j;
            if (c <= d->groups[best[min]].count)
                continue;
            memmove(&best[min], &best[min + 1], (nb - min - 1) * sizeof *best);
            nb--;
        }
        best[nb++] = g;
    }
    for (size_t j = 0; j < nb; j++)
        show[n++] = best[j];
    return n;
}

static int cap_summary(lua_State *L)
{
    vp_devt *d = devt_check(L, 1);
    lua_newtable(L);
    int list = lua_gettop(L);
    vp_l_row_int(L, list, "time", d->time);
    vp_l_row_int(L, list, "graph_duration", d->graph_duration);
    vp_l_row_int(L, list, "prefix", d->prefix);
    vp_l_row_int(L, list, "groups", d->group_count);
    vp_l_row_int(L, list, "events", (lua_Integer)d->event_count);
    /* Per group (the known four, then the largest others: one screen
     * whatever the file claims), and the span of time1 over the capture. */
    uint32_t show[SUMMARY_GROUPS];
    size_t nshow = summary_groups(d, show);
    uint64_t shown_events = 0;
    for (size_t j = 0; j < nshow; j++) {
        uint32_t g = show[j];
        const char *gn = vp_devt_group_name(g);
        char name[48];
        if (gn)
            snprintf(name, sizeof name, "events_%s", gn);
        else
            snprintf(name, sizeof name, "events_group_%u", g + 1);
        vp_l_row_int(L, list, name, (lua_Integer)d->groups[g].count);
        shown_events += d->groups[g].count;
    }
    if (nshow < d->group_count) {
        vp_l_row_int(L, list, "more_groups", (lua_Integer)(d->group_count - nshow));
        vp_l_row_int(L, list, "events_in_more_groups",
                     (lua_Integer)(d->event_count - shown_events));
    }
    uint32_t lo = UINT32_MAX, hi = 0;
    for (uint32_t g = 0; g < d->group_count; g++) {
        for (uint64_t i = 0; i < d->groups[g].count; i++) {
            vp_devt_event ev;
            vp_error err;
            if (!vp_devt_event_get(d, g, i, &ev, &err))
                return vp_lcap_raise(L, 1, &err);
            if (ev.time1 < lo)
                lo = ev.time1;
            if (ev.time1 > hi)
                hi = ev.time1;
        }
    }
    if (d->event_count) {
        vp_l_row_int(L, list, "first_time1", lo);
        vp_l_row_int(L, list, "last_time1", hi);
    }
    vp_l_row_tail(L, list, d->trailing_bytes, d->truncated, &d->warnings);
    return 1;
}

/* #cap: the events, over all groups. */
static int cap_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)devt_check(L, 1)->event_count);
    return 1;
}

static int cap_tostring(lua_State *L)
{
    const char *base;
    vp_devt *d = vp_lcap_tostring_model(L, DEVT_T, &base);
    if (!d)
        return 1;
    lua_pushfstring(L, "<devt %s: %I groups, ", base, (lua_Integer)d->group_count);
    vp_l_push_count(L, d->event_count);
    lua_pushfstring(L, " events, graph_duration %I%s%s>", (lua_Integer)d->graph_duration,
                    d->truncated ? ", truncated" : "", d->warnings.count ? ", with warnings" : "");
    lua_concat(L, 3);
    return 1;
}

/* ---- group -------------------------------------------------------------- */

static lgroup *group_check(lua_State *L, int idx, vp_devt **d)
{
    void *m;
    lgroup *lg = vp_lchild_check(L, idx, GROUP_T, &m);
    *d = m;
    return lg;
}

static int group_get(lua_State *L)
{
    vp_devt *d;
    lgroup *lg = group_check(L, 1, &d);
    const char *k = lua_tostring(L, 2);
    if (!k)
        return 0;
    const vp_devt_group *gr = &d->groups[lg->g];
    if (strcmp(k, "index") == 0)
        lua_pushinteger(L, (lua_Integer)lg->g + 1);
    else if (strcmp(k, "name") == 0)
        group_name_push(L, lg->g);
    else if (strcmp(k, "total") == 0)
        lua_pushinteger(L, gr->total);
    else if (strcmp(k, "count") == 0)
        lua_pushinteger(L, (lua_Integer)gr->count);
    else if (strcmp(k, "file_offset") == 0)
        lua_pushinteger(L, (lua_Integer)vp_devt_group_offset(gr));
    else if (strcmp(k, "capture") == 0)
        vp_lchild_pushcap(L, 1);
    else
        return 0;
    return 1;
}

static int group_len(lua_State *L)
{
    vp_devt *d;
    lgroup *lg = group_check(L, 1, &d);
    lua_pushinteger(L, (lua_Integer)d->groups[lg->g].count);
    return 1;
}

/* group:events(): event i (0-based) of the group at grp. */
static int group_events_step(lua_State *L, int grp, lua_Integer i)
{
    vp_devt *d;
    lgroup *lg = group_check(L, grp, &d);
    if ((uint64_t)i >= d->groups[lg->g].count)
        return 0;
    vp_lchild_pushcap(L, grp);
    event_get_push(L, d, lua_gettop(L), lg->g, (uint64_t)i);
    return 1;
}

static const vp_liter group_events_iter = {group_events_step};

static int group_events(lua_State *L)
{
    vp_devt *d;
    group_check(L, 1, &d);
    vp_liter_push(L, 1, &group_events_iter);
    return 1;
}

/* group:event(i) -> event (1-based); raises out of range. */
static int group_event(lua_State *L)
{
    vp_devt *d;
    lgroup *lg = group_check(L, 1, &d);
    uint64_t i = vp_l_check_index(L, 2, "event", d->groups[lg->g].count);
    vp_lchild_pushcap(L, 1);
    event_get_push(L, d, lua_gettop(L), lg->g, i);
    return 1;
}

/* Every field as a plain table, the events included. */
static int group_totable(lua_State *L)
{
    static const char *const keys[] = {"index", "name", "total", "count", "file_offset", NULL};
    vp_devt *d;
    lgroup *lg = group_check(L, 1, &d);
    lua_settop(L, 1);
    lua_createtable(L, 0, 6);
    vp_l_getter_fields(L, 1, group_get, keys);
    uint64_t n = d->groups[lg->g].count;
    lua_createtable(L, n > INT32_MAX ? 0 : (int)n, 0);
    vp_lchild_pushcap(L, 1);
    int cap = lua_gettop(L);
    for (uint64_t i = 0; i < n; i++) {
        event_get_push(L, d, cap, lg->g, i);
        lua_rawseti(L, cap - 1, (lua_Integer)i + 1);
    }
    lua_pop(L, 1);
    lua_setfield(L, 2, "events");
    return 1;
}

static int group_eq(lua_State *L)
{
    return vp_lchild_eq(L, GROUP_T, offsetof(lgroup, g), sizeof(uint32_t));
}

static int group_tostring(lua_State *L)
{
    vp_devt *d;
    lgroup *lg = group_check(L, 1, &d);
    const vp_devt_group *gr = &d->groups[lg->g];
    const char *gn = vp_devt_group_name(lg->g);
    lua_pushfstring(L, "<devt group %I %s: %I events, total %I>", (lua_Integer)lg->g + 1,
                    gn ? gn : "(unnamed)", (lua_Integer)gr->count, (lua_Integer)gr->total);
    return 1;
}

void vp_l_register_devt(lua_State *L)
{
    static const luaL_Reg cap_methods[] = {{"groups", cap_groups},   {"group", cap_group},
                                           {"events", cap_events},   {"summary", cap_summary},
                                           {"event_stats", cap_event_stats},
                                           {NULL, NULL}};
    vp_lcap_class(L, DEVT_T, cap_tostring, cap_len, cap_methods);

    static const luaL_Reg group_meta[] = {
        {"__len", group_len}, {"__tostring", group_tostring}, {"__eq", group_eq}, {NULL, NULL}};
    static const luaL_Reg group_methods[] = {{"events", group_events},
                                            {"event", group_event},
                                            {"totable", group_totable},
                                            {NULL, NULL}};
    vp_l_class(L, GROUP_T, group_meta, group_methods, group_get);
}
