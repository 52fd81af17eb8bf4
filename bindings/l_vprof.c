/* The VProf model in Lua: captures, frames, nodes and groups. */
#include <string.h>

#include "core/sort.h"
#include "formats/vprof.h"
#include "l_common.h"
#include "l_formats.h"

#define CAP_T "vp.vprof"
#define NODE_T "vp.vprof.node"
#define GROUP_T "vp.vprof.group"
#define FRAME_T "vp.vprof.frame"

typedef struct {
    uint32_t idx;
} lnode;

typedef struct {
    uint32_t gi;
} lgroup;

typedef struct {
    uint32_t fi;
    int decoded;
    vp_vprof_fdata fd; /* arrays follow the struct in the same userdata */
} lframe;

static vp_vprof *check_cap(lua_State *L, int idx)
{
    return vp_lcap_check(L, idx, CAP_T)->model;
}

static void free_model(void *m)
{
    vp_vprof_free(m);
}

/* ---- interned children ----------------------------------------------- */

/* Push the node/group userdata for idx, creating it on first use, so the
 * same node is always the same Lua value (usable as a table key).
 * cap_idx is the capture. */
static void push_interned(lua_State *L, int cap_idx, const char *kind, const char *tname,
                          uint32_t idx)
{
    cap_idx = lua_absindex(L, cap_idx);
    vp_lcap_cache(L, cap_idx);
    if (lua_getfield(L, -1, kind) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setfield(L, -3, kind);
    }
    if (lua_rawgeti(L, -1, (lua_Integer)idx) == LUA_TNIL) {
        lua_pop(L, 1);
        uint32_t *u = vp_lchild_new(L, sizeof(uint32_t), tname, cap_idx);
        *u = idx;
        lua_pushvalue(L, -1);
        lua_rawseti(L, -3, (lua_Integer)idx);
    }
    lua_replace(L, -3);
    lua_pop(L, 1);
}

static void push_node(lua_State *L, int cap_idx, uint32_t idx)
{
    push_interned(L, cap_idx, "nodes", NODE_T, idx);
}

static void push_group(lua_State *L, int cap_idx, uint32_t gi)
{
    push_interned(L, cap_idx, "groups", GROUP_T, gi);
}

/* A node value at idx: a node of this capture, a node id or a path. Returns
 * VP_VPROF_NO_NODE when there is no such node; raises on a wrong type. */
static uint32_t node_lookup(lua_State *L, int idx, int cap_idx, vp_vprof *m)
{
    lnode *n = luaL_testudata(L, idx, NODE_T);
    if (n) {
        lua_getiuservalue(L, idx, 1);
        int same = lua_rawequal(L, -1, cap_idx);
        lua_pop(L, 1);
        if (!same)
            luaL_error(L, "node %s belongs to another capture", luaL_tolstring(L, idx, NULL));
        return n->idx;
    }
    if (lua_type(L, idx) == LUA_TNUMBER) {
        int isint;
        lua_Integer id = lua_tointegerx(L, idx, &isint);
        if (isint && id >= INT32_MIN && id <= INT32_MAX)
            return vp_vprof_node_by_id(m, (int32_t)id);
        return VP_VPROF_NO_NODE;
    }
    if (lua_type(L, idx) == LUA_TSTRING) {
        size_t len;
        const char *p = lua_tolstring(L, idx, &len);
        return vp_vprof_node_by_path(m, p, len);
    }
    luaL_error(L, "expected a node, node id or path, got %s", luaL_typename(L, idx));
    return VP_VPROF_NO_NODE;
}

/* A node argument; raises when the capture has no such node. */
static uint32_t check_node_arg(lua_State *L, int arg, int cap_idx, vp_vprof *m)
{
    uint32_t idx = node_lookup(L, arg, cap_idx, m);
    if (idx == VP_VPROF_NO_NODE)
        luaL_argerror(L, arg, lua_pushfstring(L, "no node %s in this capture", luaL_tolstring(L, arg, NULL)));
    return idx;
}

/* A frame range [i, j] from optional 1-based args, clamped. Returns 0 when
 * empty. */
static int frame_range(lua_State *L, int arg, const vp_vprof *m, uint32_t *first, uint32_t *last)
{
    lua_Integer n = (lua_Integer)m->frame_count;
    lua_Integer i = luaL_optinteger(L, arg, 1), j = luaL_optinteger(L, arg + 1, n);
    if (i < 1)
        i = 1;
    if (j > n)
        j = n;
    if (i > j)
        return 0;
    *first = (uint32_t)(i - 1);
    *last = (uint32_t)(j - 1);
    return 1;
}

/* ---- frames ------------------------------------------------------------ */

static void push_frame(lua_State *L, int cap_idx, vp_vprof *m, uint32_t fi)
{
    uint32_t n = m->frame_nodes[fi];
    lframe *f = vp_lchild_new(L, sizeof(lframe) + vp_vprof_fdata_size(n), FRAME_T, cap_idx);
    f->fi = fi;
    vp_vprof_fdata_init(&f->fd, n, f + 1);
}

static lframe *check_frame(lua_State *L, int idx, vp_vprof **m)
{
    lframe *f = vp_lchild_check(L, idx, FRAME_T, (void **)m);
    return f;
}

static lframe *decoded_frame(lua_State *L, int idx, vp_vprof **m)
{
    lframe *f = check_frame(L, idx, m);
    if (!f->decoded) {
        vp_error err;
        if (vp_vprof_frame_read(*m, f->fi, &f->fd, &err) != VP_OK) {
            vp_lchild_pushcap(L, idx);
            lua_getiuservalue(L, -1, 1);
            lua_getfield(L, -1, "path");
            vp_l_raise(L, lua_tostring(L, -1), &err);
        }
        f->decoded = 1;
    }
    return f;
}

static uint32_t frame_node_arg(lua_State *L, lframe *f, vp_vprof *m, int *present)
{
    vp_lchild_pushcap(L, 1);
    uint32_t idx = check_node_arg(L, 2, lua_gettop(L), m);
    lua_pop(L, 1);
    *present = idx < f->fd.n;
    return idx;
}

static int frame_time_ms(lua_State *L)
{
    vp_vprof *m;
    lframe *f = decoded_frame(L, 1, &m);
    int present;
    uint32_t idx = frame_node_arg(L, f, m, &present);
    lua_pushnumber(L, present ? vp_vprof_ms(f->fd.units[idx]) : 0.0);
    return 1;
}

static int frame_self_ms(lua_State *L)
{
    vp_vprof *m;
    lframe *f = decoded_frame(L, 1, &m);
    int present;
    uint32_t idx = frame_node_arg(L, f, m, &present);
    lua_pushnumber(L, present ? vp_vprof_ms(f->fd.self[idx]) : 0.0);
    return 1;
}

static int frame_calls(lua_State *L)
{
    vp_vprof *m;
    lframe *f = decoded_frame(L, 1, &m);
    int present;
    uint32_t idx = frame_node_arg(L, f, m, &present);
    lua_pushinteger(L, present ? (lua_Integer)f->fd.calls[idx] : 0);
    return 1;
}

/* Iterator state: upvalue 1 frame, upvalue 2 capture, upvalue 3 position. */
static int frame_nodes_iter(lua_State *L)
{
    vp_vprof *m;
    lframe *f = decoded_frame(L, lua_upvalueindex(1), &m);
    lua_Integer pos = lua_tointeger(L, lua_upvalueindex(3));
    const vp_vprof_epoch *ep = vp_vprof_epoch_for(m, f->fd.n);
    if (!ep)
        return luaL_error(L, "out of memory");
    if (pos >= (lua_Integer)ep->n)
        return 0;
    lua_pushinteger(L, pos + 1);
    lua_replace(L, lua_upvalueindex(3));
    uint32_t idx = ep->order[pos];
    push_node(L, lua_upvalueindex(2), idx);
    lua_pushnumber(L, vp_vprof_ms(f->fd.units[idx]));
    lua_pushinteger(L, f->fd.calls[idx]);
    return 3;
}

static int frame_nodes(lua_State *L)
{
    vp_vprof *m;
    decoded_frame(L, 1, &m);
    lua_settop(L, 1);
    vp_lchild_pushcap(L, 1);
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, frame_nodes_iter, 3);
    return 1;
}

static int frame_get(lua_State *L)
{
    vp_vprof *m;
    lframe *f = check_frame(L, 1, &m);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "index") == 0)
        lua_pushinteger(L, (lua_Integer)f->fi + 1);
    else if (strcmp(k, "tick") == 0)
        lua_pushinteger(L, m->frame_tick[f->fi]);
    else if (strcmp(k, "frame_ms") == 0)
        lua_pushnumber(L, m->frame_ms->v[f->fi]);
    else if (strcmp(k, "offset") == 0)
        lua_pushinteger(L, (lua_Integer)m->frame_off[f->fi]);
    else if (strcmp(k, "node_count") == 0)
        lua_pushinteger(L, f->fd.n);
    else
        lua_pushnil(L);
    return 1;
}

static int frame_tostring(lua_State *L)
{
    vp_vprof *m;
    lframe *f = check_frame(L, 1, &m);
    lua_pushfstring(L, "<frame %d tick %d: %f ms, %d nodes>", (int)f->fi + 1,
                    (int)m->frame_tick[f->fi], m->frame_ms->v[f->fi], (int)f->fd.n);
    return 1;
}

/* ---- nodes and groups ---------------------------------------------------- */

static int node_children_iter(lua_State *L)
{
    vp_vprof *m;
    vp_lchild_check(L, lua_upvalueindex(1), NODE_T, (void **)&m);
    lua_Integer next = lua_tointeger(L, lua_upvalueindex(2));
    if (next < 0)
        return 0;
    uint32_t c = (uint32_t)next;
    uint32_t after = m->nodes[c].next_sibling;
    lua_pushinteger(L, after == VP_VPROF_NO_NODE ? -1 : (lua_Integer)after);
    lua_replace(L, lua_upvalueindex(2));
    vp_lchild_pushcap(L, lua_upvalueindex(1));
    push_node(L, -1, c);
    return 1;
}

static int node_children(lua_State *L)
{
    vp_vprof *m;
    lnode *n = vp_lchild_check(L, 1, NODE_T, (void **)&m);
    uint32_t c = m->nodes[n->idx].first_child;
    lua_settop(L, 1);
    lua_pushinteger(L, c == VP_VPROF_NO_NODE ? -1 : (lua_Integer)c);
    lua_pushcclosure(L, node_children_iter, 2);
    return 1;
}

static void push_path(lua_State *L, const vp_vprof *m, uint32_t idx)
{
    char small[256];
    size_t need = vp_vprof_node_path(m, idx, small, sizeof small);
    if (need < sizeof small) {
        lua_pushlstring(L, small, need);
        return;
    }
    luaL_Buffer b;
    char *p = luaL_buffinitsize(L, &b, need + 1);
    vp_vprof_node_path(m, idx, p, need + 1);
    luaL_pushresultsize(&b, need);
}

static int node_get(lua_State *L)
{
    vp_vprof *m;
    lnode *n = vp_lchild_check(L, 1, NODE_T, (void **)&m);
    const vp_vprof_node *nd = &m->nodes[n->idx];
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "id") == 0)
        lua_pushinteger(L, nd->id);
    else if (strcmp(k, "name") == 0)
        lua_pushstring(L, vp_vprof_name(m, nd->name));
    else if (strcmp(k, "path") == 0)
        push_path(L, m, n->idx);
    else if (strcmp(k, "depth") == 0)
        lua_pushinteger(L, nd->depth);
    else if (strcmp(k, "index") == 0)
        lua_pushinteger(L, n->idx);
    else if (strcmp(k, "first_frame") == 0)
        lua_pushinteger(L, (lua_Integer)nd->first_frame + 1);
    else if (strcmp(k, "group_id") == 0)
        lua_pushinteger(L, nd->group_id);
    else if (strcmp(k, "parent") == 0 || strcmp(k, "group") == 0) {
        vp_lchild_pushcap(L, 1);
        if (k[0] == 'p') {
            if (nd->parent == VP_VPROF_NO_NODE)
                lua_pushnil(L);
            else
                push_node(L, -1, nd->parent);
        } else {
            push_group(L, -1, nd->group);
        }
    } else
        lua_pushnil(L);
    return 1;
}

static int node_tostring(lua_State *L)
{
    vp_vprof *m;
    lnode *n = vp_lchild_check(L, 1, NODE_T, (void **)&m);
    lua_pushliteral(L, "<node ");
    push_path(L, m, n->idx);
    lua_pushfstring(L, " (id %d)>", (int)m->nodes[n->idx].id);
    lua_concat(L, 3);
    return 1;
}

static int group_get(lua_State *L)
{
    vp_vprof *m;
    lgroup *g = vp_lchild_check(L, 1, GROUP_T, (void **)&m);
    const vp_vprof_group *gr = &m->groups[g->gi];
    const char *k = luaL_checkstring(L, 2);
    static const struct {
        const char *name;
        int32_t bit;
    } flags[] = {{"client", VP_BUDGETFLAG_CLIENT},
                 {"server", VP_BUDGETFLAG_SERVER},
                 {"other", VP_BUDGETFLAG_OTHER},
                 {"hidden", VP_BUDGETFLAG_HIDDEN}};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (strcmp(k, flags[i].name) == 0) {
            lua_pushboolean(L, (gr->flags & flags[i].bit) != 0);
            return 1;
        }
    if (strcmp(k, "id") == 0)
        lua_pushinteger(L, gr->id);
    else if (strcmp(k, "name") == 0)
        lua_pushstring(L, vp_vprof_name(m, gr->name));
    else if (strcmp(k, "flags") == 0)
        lua_pushinteger(L, gr->flags);
    else if (strcmp(k, "declared") == 0)
        lua_pushboolean(L, gr->declared);
    else if (strcmp(k, "has_nodes") == 0)
        lua_pushboolean(L, gr->has_nodes);
    else
        lua_pushnil(L);
    return 1;
}

static int group_tostring(lua_State *L)
{
    vp_vprof *m;
    lgroup *g = vp_lchild_check(L, 1, GROUP_T, (void **)&m);
    const vp_vprof_group *gr = &m->groups[g->gi];
    lua_pushfstring(L, "<group %d %s (flags %d)>", (int)gr->id, vp_vprof_name(m, gr->name),
                    (int)gr->flags);
    return 1;
}

/* ---- capture methods ------------------------------------------------------ */

static int cap_frame(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    if (i < 1 || i > (lua_Integer)m->frame_count)
        lua_pushnil(L);
    else
        push_frame(L, 1, m, (uint32_t)(i - 1));
    return 1;
}

/* upvalues: capture, next frame (0-based), last frame */
static int frames_iter(lua_State *L)
{
    vp_vprof *m = check_cap(L, lua_upvalueindex(1));
    lua_Integer i = lua_tointeger(L, lua_upvalueindex(2));
    lua_Integer last = lua_tointeger(L, lua_upvalueindex(3));
    if (i > last || i >= (lua_Integer)m->frame_count)
        return 0;
    lua_pushinteger(L, i + 1);
    lua_replace(L, lua_upvalueindex(2));
    push_frame(L, lua_upvalueindex(1), m, (uint32_t)i);
    return 1;
}

static int cap_frames(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    uint32_t first = 1, last = 0;
    int any = frame_range(L, 2, m, &first, &last);
    lua_settop(L, 1);
    lua_pushinteger(L, any ? first : 1);
    lua_pushinteger(L, any ? (lua_Integer)last : -1);
    lua_pushcclosure(L, frames_iter, 3);
    return 1;
}

/* Pre-order over the final tree; upvalues: capture, next node (-1 done). */
static int nodes_iter(lua_State *L)
{
    vp_vprof *m = check_cap(L, lua_upvalueindex(1));
    lua_Integer cur = lua_tointeger(L, lua_upvalueindex(2));
    if (cur < 0)
        return 0;
    uint32_t v = (uint32_t)cur, next = m->nodes[v].first_child;
    if (next == VP_VPROF_NO_NODE) {
        for (uint32_t u = v; u != VP_VPROF_NO_NODE && u != 0; u = m->nodes[u].parent) {
            if (m->nodes[u].next_sibling != VP_VPROF_NO_NODE) {
                next = m->nodes[u].next_sibling;
                break;
            }
        }
    }
    lua_pushinteger(L, next == VP_VPROF_NO_NODE ? -1 : (lua_Integer)next);
    lua_replace(L, lua_upvalueindex(2));
    push_node(L, lua_upvalueindex(1), v);
    return 1;
}

static int cap_nodes(lua_State *L)
{
    check_cap(L, 1);
    lua_settop(L, 1);
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, nodes_iter, 2);
    return 1;
}

static int cap_node(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    uint32_t idx = VP_VPROF_NO_NODE;
    if (lua_type(L, 2) == LUA_TNUMBER) {
        lua_Integer id = luaL_checkinteger(L, 2);
        if (id >= INT32_MIN && id <= INT32_MAX)
            idx = vp_vprof_node_by_id(m, (int32_t)id);
    } else {
        size_t len;
        const char *p = luaL_checklstring(L, 2, &len);
        idx = vp_vprof_node_by_path(m, p, len);
    }
    if (idx == VP_VPROF_NO_NODE)
        lua_pushnil(L);
    else
        push_node(L, 1, idx);
    return 1;
}

/* Groups in id order; upvalues: capture, sorted index table, position. */
static int groups_iter(lua_State *L)
{
    check_cap(L, lua_upvalueindex(1));
    lua_Integer pos = lua_tointeger(L, lua_upvalueindex(3)) + 1;
    if (lua_rawgeti(L, lua_upvalueindex(2), pos) == LUA_TNIL)
        return 0;
    lua_Integer gi = lua_tointeger(L, -1);
    lua_pushinteger(L, pos);
    lua_replace(L, lua_upvalueindex(3));
    push_group(L, lua_upvalueindex(1), (uint32_t)gi);
    return 1;
}

static int cmp_group_id(uint32_t a, uint32_t b, const void *ctx)
{
    const vp_vprof *m = ctx;
    int32_t x = m->groups[a].id, y = m->groups[b].id;
    return (x > y) - (x < y);
}

static int cap_groups(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    lua_settop(L, 1);
    uint32_t *idx = lua_newuserdatauv(L, (size_t)m->group_count * sizeof *idx + 1, 0);
    for (uint32_t i = 0; i < m->group_count; i++)
        idx[i] = i;
    vp_sort_idx(idx, m->group_count, cmp_group_id, m);
    lua_createtable(L, (int)m->group_count, 0);
    for (uint32_t i = 0; i < m->group_count; i++) {
        lua_pushinteger(L, idx[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_remove(L, 2);
    lua_pushinteger(L, 0);
    lua_pushcclosure(L, groups_iter, 3);
    return 1;
}

static int cap_group(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    uint32_t gi = VP_VPROF_NO_NODE;
    if (lua_type(L, 2) == LUA_TNUMBER) {
        lua_Integer id = luaL_checkinteger(L, 2);
        if (id >= INT32_MIN && id <= INT32_MAX)
            gi = vp_vprof_group_by_id(m, (int32_t)id);
    } else {
        gi = vp_vprof_group_by_name(m, luaL_checkstring(L, 2));
    }
    if (gi == VP_VPROF_NO_NODE)
        lua_pushnil(L);
    else
        push_group(L, 1, gi);
    return 1;
}

static int cap_frame_times(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    vp_l_push_series(L, vp_series_ref(m->frame_ms));
    return 1;
}

/* Raise err, naming the file of the capture at index 1. */
static void raise_for_cap(lua_State *L, const vp_error *err)
{
    lua_getiuservalue(L, 1, 1);
    lua_getfield(L, -1, "path");
    vp_l_raise(L, lua_tostring(L, -1), err);
}

/* cap:series(node | {node, ...}, field) -> Series | {Series, ...} */
static int cap_series(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    static const char *const fields[] = {"time_ms", "self_ms", "calls", NULL};
    static const vp_vprof_field field_ids[] = {VP_VPROF_TIME_MS, VP_VPROF_SELF_MS, VP_VPROF_CALLS};
    vp_vprof_field field = field_ids[luaL_checkoption(L, 3, "time_ms", fields)];
    int many = lua_type(L, 2) == LUA_TTABLE;
    lua_Integer count = many ? luaL_len(L, 2) : 1;
    luaL_argcheck(L, count >= 0 && count < (lua_Integer)1 << 24, 2, "too many nodes");
    lua_settop(L, 3);
    /* The node list and the results live in Lua values, so an error frees
     * them. */
    uint32_t *nodes = lua_newuserdatauv(L, (size_t)count * sizeof(uint32_t) + 1, 0);
    vp_series **out = lua_newuserdatauv(L, (size_t)count * sizeof *out + 1, 0);
    lua_createtable(L, (int)count, 0);
    int results = lua_gettop(L);
    for (lua_Integer k = 1; k <= count; k++) {
        if (many) {
            lua_rawgeti(L, 2, k);
            nodes[k - 1] = node_lookup(L, lua_gettop(L), 1, m);
            if (nodes[k - 1] == VP_VPROF_NO_NODE)
                return luaL_error(L, "cap:series: node %d of the list: no node %s in this capture",
                                  (int)k, luaL_tolstring(L, -1, NULL));
            lua_pop(L, 1);
        } else {
            nodes[k - 1] = check_node_arg(L, 2, 1, m);
        }
        out[k - 1] = vp_series_new(m->frame_count);
        if (!out[k - 1])
            return luaL_error(L, "out of memory");
        vp_l_push_series(L, out[k - 1]);
        lua_rawseti(L, results, k);
    }
    vp_error err;
    if (vp_vprof_node_series(m, nodes, (uint32_t)count, field, out, &err) != VP_OK)
        raise_for_cap(L, &err);
    if (!many)
        lua_rawgeti(L, results, 1);
    return 1;
}

/* cap:group_self_ms([{fold_hidden = true}]) -> {[group] = Series} */
static int cap_group_self_ms(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    int fold = vp_l_opt_bool(L, 2, "fold_hidden", 0);
    lua_newtable(L);
    int result = lua_gettop(L);
    if (!fold || !vp_vprof_has_hidden_groups(m)) {
        for (uint32_t g = 0; g < m->group_count; g++) {
            if (!m->groups[g].self_ms)
                continue;
            push_group(L, 1, g);
            vp_l_push_series(L, vp_series_ref(m->groups[g].self_ms));
            lua_rawset(L, result);
        }
        return 1;
    }
    /* Folding needs each node's nearest visible ancestor: a second pass. */
    size_t gbytes = (size_t)m->group_count * sizeof(vp_series *);
    char *mem = lua_newuserdatauv(L, gbytes + (size_t)m->node_count * sizeof(uint32_t) + 1, 0);
    vp_series **out = (vp_series **)mem;
    uint32_t *vis = (uint32_t *)(mem + gbytes);
    memset(out, 0, gbytes);
    vp_vprof_fold_map(m, vis);
    for (uint32_t v = 0; v < m->node_count; v++) {
        uint32_t g = vis[v];
        if (out[g])
            continue;
        out[g] = vp_series_new(m->frame_count);
        if (!out[g])
            return luaL_error(L, "out of memory");
        /* Hand each series to Lua now so an error cannot leak it. */
        push_group(L, 1, g);
        vp_l_push_series(L, out[g]);
        lua_rawset(L, result);
    }
    vp_error err;
    if (vp_vprof_group_self_fold(m, vis, out, &err) != VP_OK)
        raise_for_cap(L, &err);
    lua_settop(L, result);
    return 1;
}

static void setnum(lua_State *L, const char *k, double v)
{
    lua_pushnumber(L, v);
    lua_setfield(L, -2, k);
}

static void setint(lua_State *L, const char *k, lua_Integer v)
{
    lua_pushinteger(L, v);
    lua_setfield(L, -2, k);
}

/* cap:node_stats([i [, j]]) -> list of per-node totals over frames i..j */
static int cap_node_stats(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    uint32_t first = 0, last = 0;
    int any = frame_range(L, 2, m, &first, &last);
    lua_settop(L, 1);
    vp_vprof_node_stat *acc = lua_newuserdatauv(L, (size_t)m->node_count * sizeof *acc + 1, 0);
    vp_error err;
    if (!any) { /* an empty range: every node gets zeros */
        first = 1;
        last = 0;
    }
    if (vp_vprof_node_stats(m, first, last, acc, &err) != VP_OK)
        raise_for_cap(L, &err);
    lua_createtable(L, (int)m->node_count, 0);
    const vp_vprof_epoch *ep = vp_vprof_epoch_for(m, m->node_count);
    if (!ep)
        return luaL_error(L, "out of memory");
    lua_Integer k = 0;
    for (uint32_t pos = 0; pos < ep->n; pos++) {
        uint32_t v = ep->order[pos];
        const vp_vprof_node_stat *a = &acc[v];
        lua_createtable(L, 0, 9);
        push_node(L, 1, v);
        lua_setfield(L, -2, "node");
        setint(L, "frames", a->frames);
        setint(L, "calls", (lua_Integer)a->calls);
        setnum(L, "time_ms", vp_vprof_ms(a->time));
        setnum(L, "self_ms", vp_vprof_ms(a->self));
        setnum(L, "peak_ms", vp_vprof_ms(a->peak));
        setnum(L, "peak_self_ms", vp_vprof_ms(a->peak_self));
        if (a->frames)
            setint(L, "peak_frame", (lua_Integer)a->peak_frame + 1);
        lua_rawseti(L, -2, ++k);
    }
    return 1;
}

static void summary_row(lua_State *L, lua_Integer *k, const char *name)
{
    /* value is on top of the stack */
    lua_createtable(L, 0, 2);
    lua_insert(L, -2);
    lua_setfield(L, -2, "value");
    lua_pushstring(L, name);
    lua_setfield(L, -2, "name");
    lua_rawseti(L, -2, ++*k);
}

static int cap_summary(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    lua_Integer k = 0;
    lua_newtable(L);
    lua_pushinteger(L, m->version);
    summary_row(L, &k, "version");
    lua_pushinteger(L, m->frame_count);
    summary_row(L, &k, "frames");
    int32_t lo, hi;
    if (vp_vprof_tick_range(m, &lo, &hi)) {
        lua_pushfstring(L, "%d .. %d", (int)lo, (int)hi);
        summary_row(L, &k, "ticks");
        lua_pushnumber(L, vp_series_sum(m->frame_ms));
        summary_row(L, &k, "duration_ms");
        lua_pushnumber(L, vp_series_mean(m->frame_ms));
        summary_row(L, &k, "mean_frame_ms");
    }
    lua_pushinteger(L, m->node_count);
    summary_row(L, &k, "nodes");
    lua_pushinteger(L, m->group_count);
    summary_row(L, &k, "groups");
    lua_pushinteger(L, vp_vprof_groups_with_nodes(m));
    summary_row(L, &k, "groups_with_nodes");
    lua_pushinteger(L, m->group_base);
    summary_row(L, &k, "first_group_id");
    if (m->escapes_seen)
        lua_pushinteger(L, m->escape_width);
    else
        lua_pushfstring(L, "%d (no escaped values to tell)", m->escape_width);
    summary_row(L, &k, "escape_width");
    lua_pushboolean(L, m->truncated);
    summary_row(L, &k, "truncated");
    lua_pushboolean(L, m->zero_timings);
    summary_row(L, &k, "zero_timings");
    return 1;
}

static int cap_close(lua_State *L)
{
    vp_lcap_close(luaL_checkudata(L, 1, CAP_T));
    return 0;
}

static int cap_len(lua_State *L)
{
    lua_pushinteger(L, check_cap(L, 1)->frame_count);
    return 1;
}

static int cap_tostring(lua_State *L)
{
    vp_lcap *c = luaL_checkudata(L, 1, CAP_T);
    const char *base = vp_lcap_basename(L, 1);
    if (!c->model) {
        lua_pushfstring(L, "<vprof %s: closed>", base);
        return 1;
    }
    vp_vprof *m = c->model;
    lua_pushfstring(L, "<vprof %s: ", base);
    vp_l_push_count(L, m->frame_count);
    lua_pushliteral(L, " frames, ");
    vp_l_push_count(L, m->node_count);
    lua_pushliteral(L, " nodes, ");
    vp_l_push_count(L, vp_vprof_groups_with_nodes(m));
    lua_pushstring(L, m->truncated ? " groups, truncated>" : " groups>");
    lua_concat(L, 7);
    return 1;
}

/* ---- open -------------------------------------------------------------- */

/* opts.progress, a Lua function called as progress(done, total) while the
 * open pass runs. It runs protected: the reader holds memory and a mapping
 * that a Lua error unwinding through it would leak. Its first error (an
 * interrupt included) stops further calls and is raised once the reader
 * has returned. */
typedef struct {
    lua_State *L;
    int fn;     /* stack index of the function */
    int failed; /* the error object is on top of the stack */
} lprogress;

static void progress_call(void *ud, uint64_t done, uint64_t total)
{
    lprogress *p = ud;
    if (p->failed || !lua_checkstack(p->L, 3))
        return;
    lua_pushvalue(p->L, p->fn);
    lua_pushinteger(p->L, (lua_Integer)done);
    lua_pushinteger(p->L, (lua_Integer)total);
    p->failed = lua_pcall(p->L, 2, 0, 0) != LUA_OK;
}

int vp_l_open_vprof(lua_State *L, const char *path, int opts)
{
    vp_open_opts o = {0};
    o.escape_width = (int)vp_l_opt_int(L, opts, "escape_width", 0);
    if (o.escape_width != 0 && o.escape_width != 4 && o.escape_width != 8)
        return luaL_error(L, "vp.open: escape_width must be 4 or 8");
    lprogress lp = {L, 0, 0};
    if (lua_istable(L, opts)) {
        int t = lua_getfield(L, opts, "progress");
        if (t == LUA_TFUNCTION) {
            lp.fn = lua_gettop(L);
            o.progress = progress_call;
            o.progress_ud = &lp;
        } else if (t != LUA_TNIL && t != LUA_TBOOLEAN) {
            return luaL_error(L, "vp.open: progress must be a function");
        }
    }
    vp_vprof *m;
    vp_error err;
    vp_errcode rc = vp_vprof_open(path, &o, &m, &err);
    if (lp.failed) {
        vp_vprof_free(m); /* NULL when the open failed */
        return lua_error(L);
    }
    if (rc != VP_OK)
        return vp_l_fail(L, path, &err);
    /* Warnings name the file, as every message does. */
    vp_warnings named = {0};
    for (size_t i = 0; i < m->warnings.count; i++)
        vp_warn(&named, "%s: %s", path, m->warnings.items[i]);
    vp_lcap_new(L, CAP_T, m, free_model, "vprof", path, m->map.size, &named);
    vp_warnings_free(&named);
    int cap = lua_gettop(L);
    lua_pushinteger(L, m->frame_count);
    vp_lcap_setfield(L, cap, "frame_count");
    lua_pushinteger(L, m->node_count);
    vp_lcap_setfield(L, cap, "node_count");
    lua_pushinteger(L, m->group_count);
    vp_lcap_setfield(L, cap, "group_count");
    lua_pushboolean(L, m->truncated);
    vp_lcap_setfield(L, cap, "truncated");
    lua_pushboolean(L, m->zero_timings);
    vp_lcap_setfield(L, cap, "zero_timings");
    lua_pushinteger(L, m->escape_width);
    vp_lcap_setfield(L, cap, "escape_width");
    lua_pushboolean(L, m->escapes_seen);
    vp_lcap_setfield(L, cap, "escapes_seen");
    lua_pushinteger(L, m->version);
    vp_lcap_setfield(L, cap, "version");
    lua_pushinteger(L, m->root_id);
    vp_lcap_setfield(L, cap, "root_node_id");
    lua_pushinteger(L, m->group_base);
    vp_lcap_setfield(L, cap, "first_group_id");
    push_node(L, cap, 0);
    vp_lcap_setfield(L, cap, "root");
    return 1;
}

void vp_l_register_vprof(lua_State *L)
{
    static const luaL_Reg cap_meta[] = {{"__gc", cap_close},
                                        {"__close", cap_close},
                                        {"__len", cap_len},
                                        {"__tostring", cap_tostring},
                                        {NULL, NULL}};
    static const luaL_Reg cap_methods[] = {{"frame", cap_frame},
                                           {"frames", cap_frames},
                                           {"nodes", cap_nodes},
                                           {"node", cap_node},
                                           {"groups", cap_groups},
                                           {"group", cap_group},
                                           {"frame_times", cap_frame_times},
                                           {"series", cap_series},
                                           {"group_self_ms", cap_group_self_ms},
                                           {"node_stats", cap_node_stats},
                                           {"summary", cap_summary},
                                           {"close", cap_close},
                                           {NULL, NULL}};
    vp_l_class(L, CAP_T, cap_meta, cap_methods, NULL);

    static const luaL_Reg frame_meta[] = {{"__tostring", frame_tostring}, {NULL, NULL}};
    static const luaL_Reg frame_methods[] = {{"time_ms", frame_time_ms},
                                             {"self_ms", frame_self_ms},
                                             {"calls", frame_calls},
                                             {"nodes", frame_nodes},
                                             {NULL, NULL}};
    vp_l_class(L, FRAME_T, frame_meta, frame_methods, frame_get);

    static const luaL_Reg node_meta[] = {{"__tostring", node_tostring}, {NULL, NULL}};
    static const luaL_Reg node_methods[] = {{"children", node_children}, {NULL, NULL}};
    vp_l_class(L, NODE_T, node_meta, node_methods, node_get);

    static const luaL_Reg group_meta[] = {{"__tostring", group_tostring}, {NULL, NULL}};
    vp_l_class(L, GROUP_T, group_meta, NULL, group_get);
}
