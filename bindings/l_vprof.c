/* The VProf model in Lua: captures, frames, nodes and groups. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/sort.h"
#include "formats/vprof.h"
#include "l_common.h"
#include "l_dist.h"
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

/* The VProf part of a vp.Dist (l_dist.h: the statistics are generic; this
 * says which stream, and builds the column and the batches): a group's self
 * time (the model's statistics), the frame times (the open pass's), or a
 * node's time, self time or calls (the dist's own stream holds it). */
enum { DIST_GROUP, DIST_FRAME, DIST_NODE };
typedef struct {
    int kind;
    uint32_t index; /* group or node index */
    int fold;       /* a group's: hidden groups folded */
    int field;      /* a node's: vp_vprof_field */
    int ranged;     /* frame times of some frames only: own holds them */
    uint32_t base;  /* the model's index of the first frame summarised */
} ldist;

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

/* The names of a node's per-frame fields, and the field the argument at
 * idx names ("time_ms" when absent, or none allowed: def NULL). */
static const char *const FIELD_NAMES[] = {"time_ms", "self_ms", "calls", NULL};

static vp_vprof_field check_field(lua_State *L, int idx, const char *def)
{
    static const vp_vprof_field ids[] = {VP_VPROF_TIME_MS, VP_VPROF_SELF_MS, VP_VPROF_CALLS};
    return ids[luaL_checkoption(L, idx, def, FIELD_NAMES)];
}

/* The node, or list of nodes, at idx (nodes of the capture at cap_idx) as
 * ids in a userdata pushed on top, so that an error frees it; *count of
 * them, *many when idx is a list. `who` names the call when a name of the
 * list matches no node. */
static uint32_t *check_nodes(lua_State *L, int idx, int cap_idx, vp_vprof *m, const char *who, uint32_t *count,
                             int *many)
{
    *many = lua_type(L, idx) == LUA_TTABLE;
    lua_Integer n = *many ? luaL_len(L, idx) : 1;
    luaL_argcheck(L, n >= 0 && n < (lua_Integer)1 << 24, idx, "too many nodes");
    uint32_t *ids = lua_newuserdatauv(L, (size_t)n * sizeof *ids + 1, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        if (*many) {
            lua_rawgeti(L, idx, i);
            ids[i - 1] = node_lookup(L, lua_gettop(L), cap_idx, m);
            if (ids[i - 1] == VP_VPROF_NO_NODE)
                luaL_error(L, "%s: node %d of the list: no node %s in this capture", who, (int)i,
                           luaL_tolstring(L, -1, NULL));
            lua_pop(L, 1);
        } else {
            ids[i - 1] = check_node_arg(L, idx, cap_idx, m);
        }
    }
    *count = (uint32_t)n;
    return ids;
}

/* Frame numbers as Lua sees them: the file's, 1-based (a capture
 * restricted to a range, cap:restrict, holds frames frame_base + 1 ..
 * frame_base + frame_count), and the model's 0-based index of one. */
static lua_Integer frame_no(const vp_vprof *m, uint32_t fi)
{
    return (lua_Integer)m->frame_base + (lua_Integer)fi + 1;
}

/* The number of the capture's first frame: where its columns' indices start. */
static lua_Integer first_frame_no(const vp_vprof *m)
{
    return frame_no(m, 0);
}

static lua_Integer frame_idx(const vp_vprof *m, lua_Integer no)
{
    return no - (lua_Integer)m->frame_base - 1;
}

/* The model's index of the frame numbered by argument arg; a frame the
 * capture does not hold raises as every format's index does (the range
 * named is the file's numbers of the frames held). */
static uint32_t check_frame_no(lua_State *L, int arg, const vp_vprof *m)
{
    lua_Integer no = luaL_checkinteger(L, arg), n = (lua_Integer)m->frame_count;
    lua_Integer i = frame_idx(m, no);
    if (i >= 0 && i < n)
        return (uint32_t)i;
    if (n == 0)
        luaL_error(L, "frame %I is out of range: there are none", no);
    luaL_error(L, "frame %I is out of range %I..%I", no, frame_no(m, 0), frame_no(m, 0) + n - 1);
    return 0;
}

/* A frame range [i, j] from optional 1-based frame numbers (default the
 * first and the last frame held). Out of range raises as every format's
 * index does: each end given is a frame held, i <= j, except that j = i - 1
 * is the empty range (1, 0 on a capture without frames). Returns 0 when
 * empty. */
static int frame_range(lua_State *L, int arg, const vp_vprof *m, uint32_t *first, uint32_t *last)
{
    lua_Integer n = (lua_Integer)m->frame_count, lo = frame_no(m, 0);
    lua_Integer i = luaL_optinteger(L, arg, lo), j = luaL_optinteger(L, arg + 1, lo + n - 1);
    if (j == i - 1 && i >= lo && i <= lo + n)
        return 0;
    if (!lua_isnoneornil(L, arg))
        check_frame_no(L, arg, m);
    if (!lua_isnoneornil(L, arg + 1))
        check_frame_no(L, arg + 1, m);
    if (i > j)
        luaL_error(L, "frame range %I..%I is reversed: the first frame is after the last", i, j);
    *first = (uint32_t)frame_idx(m, i);
    *last = (uint32_t)frame_idx(m, j);
    return 1;
}

/* ---- frames ------------------------------------------------------------ */

static void push_frame(lua_State *L, int cap_idx, vp_vprof *m, uint32_t fi)
{
    uint32_t n = m->frames[fi].n;
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
            vp_lchild_raise(L, idx, &err);
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

/* f:time_ms(node), f:self_ms(node), f:calls(node): 0 for a node the frame
 * does not hold yet. */
static int frame_field(lua_State *L, vp_vprof_field field)
{
    vp_vprof *m;
    lframe *f = decoded_frame(L, 1, &m);
    int present;
    uint32_t idx = frame_node_arg(L, f, m, &present);
    if (field == VP_VPROF_CALLS)
        lua_pushinteger(L, present ? (lua_Integer)f->fd.calls[idx] : 0);
    else
        lua_pushnumber(L, present ? vp_vprof_ms(field == VP_VPROF_SELF_MS ? f->fd.self[idx] : f->fd.units[idx])
                                  : 0.0);
    return 1;
}

static int frame_time_ms(lua_State *L)
{
    return frame_field(L, VP_VPROF_TIME_MS);
}

static int frame_self_ms(lua_State *L)
{
    return frame_field(L, VP_VPROF_SELF_MS);
}

static int frame_calls(lua_State *L)
{
    return frame_field(L, VP_VPROF_CALLS);
}

/* f:nodes(): the frame's nodes in position order, each with its time and calls. */
static int frame_nodes_step(lua_State *L, int frame, lua_Integer pos)
{
    vp_vprof *m;
    lframe *f = decoded_frame(L, frame, &m);
    const vp_vprof_epoch *ep = vp_vprof_epoch_for(m, f->fd.n);
    if (!ep)
        return luaL_error(L, "out of memory");
    if (pos >= (lua_Integer)ep->n)
        return 0;
    uint32_t idx = ep->order[pos];
    vp_lchild_pushcap(L, frame);
    push_node(L, lua_gettop(L), idx);
    lua_remove(L, -2);
    lua_pushnumber(L, vp_vprof_ms(f->fd.units[idx]));
    lua_pushinteger(L, f->fd.calls[idx]);
    return 3;
}

static const vp_liter frame_nodes_iter = {frame_nodes_step};

static int frame_nodes(lua_State *L)
{
    vp_vprof *m;
    decoded_frame(L, 1, &m);
    vp_liter_push(L, 1, &frame_nodes_iter);
    return 1;
}

static int frame_get(lua_State *L)
{
    vp_vprof *m;
    lframe *f = check_frame(L, 1, &m);
    const char *k = luaL_checkstring(L, 2);
    if (strcmp(k, "index") == 0)
        lua_pushinteger(L, frame_no(m, f->fi));
    else if (strcmp(k, "tick") == 0)
        lua_pushinteger(L, m->frames[f->fi].tick);
    else if (strcmp(k, "frame_ms") == 0)
        lua_pushnumber(L, vp_vprof_frame_ms(m, f->fi));
    else if (strcmp(k, "offset") == 0)
        lua_pushinteger(L, (lua_Integer)m->frames[f->fi].off);
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
    lua_pushfstring(L, "<frame %I tick %d: %f ms, %d nodes>", frame_no(m, f->fi),
                    (int)m->frames[f->fi].tick, vp_vprof_frame_ms(m, f->fi), (int)f->fd.n);
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

typedef size_t (*path_fn)(const vp_vprof *m, uint32_t node, char *buf, size_t cap);

/* Push a node's path as `fn` writes it (elided or full). */
static void push_path_with(lua_State *L, const vp_vprof *m, uint32_t idx, path_fn fn)
{
    char small[300];
    size_t need = fn(m, idx, small, sizeof small);
    if (need < sizeof small) {
        lua_pushlstring(L, small, need);
        return;
    }
    luaL_Buffer b;
    char *p = luaL_buffinitsize(L, &b, need + 1);
    fn(m, idx, p, need + 1);
    luaL_pushresultsize(&b, need);
}

static void push_path(lua_State *L, const vp_vprof *m, uint32_t idx)
{
    push_path_with(L, m, idx, vp_vprof_node_path);
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
    else if (strcmp(k, "full_path") == 0)
        push_path_with(L, m, n->idx, vp_vprof_node_full_path);
    else if (strcmp(k, "path_order") == 0) {
        const uint32_t *rank = vp_vprof_path_order(m);
        if (!rank)
            return luaL_error(L, "out of memory");
        lua_pushinteger(L, (lua_Integer)rank[n->idx] + 1);
    }
    else if (strcmp(k, "depth") == 0)
        lua_pushinteger(L, nd->depth);
    else if (strcmp(k, "index") == 0)
        lua_pushinteger(L, n->idx);
    else if (strcmp(k, "first_frame") == 0) {
        if (nd->first_frame < m->frame_count)
            lua_pushinteger(L, frame_no(m, nd->first_frame));
        else
            lua_pushnil(L); /* added after the last frame: in none */
    }
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
    push_frame(L, 1, m, check_frame_no(L, 2, m));
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
    uint32_t v = (uint32_t)cur, next = vp_vprof_preorder_next(m, v);
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

/* cap:node(id | path), cap:group(id | name): the node or group with that id
 * (a number) or that path or name, or nil. */
static int cap_lookup(lua_State *L, int group)
{
    vp_vprof *m = check_cap(L, 1);
    uint32_t i = VP_VPROF_NO_NODE;
    if (lua_type(L, 2) == LUA_TNUMBER) {
        lua_Integer id = luaL_checkinteger(L, 2);
        if (id >= INT32_MIN && id <= INT32_MAX)
            i = group ? vp_vprof_group_by_id(m, (int32_t)id) : vp_vprof_node_by_id(m, (int32_t)id);
    } else {
        size_t len;
        const char *p = luaL_checklstring(L, 2, &len);
        i = group ? vp_vprof_group_by_name(m, p) : vp_vprof_node_by_path(m, p, len);
    }
    if (i == VP_VPROF_NO_NODE)
        lua_pushnil(L);
    else if (group)
        push_group(L, 1, i);
    else
        push_node(L, 1, i);
    return 1;
}

static int cap_node(lua_State *L)
{
    return cap_lookup(L, 0);
}

/* Raise a vp.error EUSAGE with the formatted message (a bad argument to a
 * lookup: the scripts end with exit 2, as for a bad option). */
static int raise_usage(lua_State *L, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *msg = lua_pushvfstring(L, fmt, ap);
    va_end(ap);
    return vp_l_raise_code(L, "EUSAGE", msg);
}

/* Push the nodes list[0..count) (malloc'd, freed here) as a Lua list. The
 * list is moved into a userdata first, so that Lua owns it before anything
 * that can raise. */
static void push_node_list(lua_State *L, uint32_t *list, uint32_t count)
{
    uint32_t *own = lua_newuserdatauv(L, (size_t)count * sizeof *own + 1, 0);
    if (count)
        memcpy(own, list, (size_t)count * sizeof *own);
    free(list);
    lua_createtable(L, (int)(count < INT32_MAX ? count : 0), 0);
    for (uint32_t k = 0; k < count; k++) {
        push_node(L, 1, own[k]);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
}

/* Whether string.find (at stack index fn) finds pat in the string s. */
static int lua_finds(lua_State *L, int fn, int pat, const char *s, size_t len)
{
    lua_pushvalue(L, fn);
    lua_pushlstring(L, s, len);
    lua_pushvalue(L, pat);
    lua_call(L, 2, 1);
    int hit = !lua_isnil(L, -1);
    lua_pop(L, 1);
    return hit;
}

/* cap:find with {lua = true}: the Lua pattern searched for in each node's
 * name (or its path component with "#k"), or its path (as listed, or below
 * the root), through string.find. Leaves the list on the stack. */
static void find_lua(lua_State *L, vp_vprof *m, int pat, int on_path)
{
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(L, -1, "string");
    lua_getfield(L, -1, "find");
    int fn = lua_gettop(L);
    lua_pushvalue(L, fn);
    lua_pushliteral(L, "");
    lua_pushvalue(L, pat);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
        const char *why = lua_tostring(L, -1);
        const char *colon = why ? strstr(why, ": ") : NULL;
        raise_usage(L, "cap:find: '%s' is not a valid Lua pattern: %s", lua_tostring(L, pat),
                    colon ? colon + 2 : why ? why : "?");
    }
    lua_newtable(L);
    int list = lua_gettop(L);
    lua_Integer k = 0;
    luaL_Buffer b;
    size_t root = vp_vprof_node_label(m, 0, NULL, 0) + 1;
    for (uint32_t v = 0; v != VP_VPROF_NO_NODE; v = vp_vprof_preorder_next(m, v)) {
        int hit;
        if (on_path) {
            push_path(L, m, v);
            size_t len;
            const char *p = lua_tolstring(L, -1, &len);
            hit = lua_finds(L, fn, pat, p, len) || (v != 0 && lua_finds(L, fn, pat, p + root, len - root));
            lua_pop(L, 1);
        } else {
            const char *name = vp_vprof_name(m, m->nodes[v].name);
            hit = lua_finds(L, fn, pat, name, strlen(name));
            if (!hit && m->nodes[v].dup) {
                size_t need = vp_vprof_node_label(m, v, NULL, 0);
                char *p = luaL_buffinitsize(L, &b, need + 1);
                vp_vprof_node_label(m, v, p, need + 1);
                luaL_pushresultsize(&b, need);
                size_t len;
                const char *lab = lua_tolstring(L, -1, &len);
                hit = lua_finds(L, fn, pat, lab, len);
                lua_pop(L, 1);
            }
        }
        if (hit) {
            push_node(L, 1, v);
            lua_rawseti(L, list, ++k);
        }
    }
}

/* cap:find(pattern [, {lua = true, on = "name"|"path"}]) -> {node, ...}:
 * every node a glob (or a Lua pattern) matches, in pre-order. */
static int cap_find(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    if (lua_type(L, 2) != LUA_TSTRING || lua_rawlen(L, 2) == 0)
        return raise_usage(L, "cap:find: the pattern must be a non-empty string, not %s",
                           lua_type(L, 2) == LUA_TSTRING ? "an empty string" : luaL_typename(L, 2));
    if (!lua_isnoneornil(L, 3))
        luaL_checktype(L, 3, LUA_TTABLE);
    lua_settop(L, 3);
    size_t len;
    const char *pat = lua_tolstring(L, 2, &len);
    int lua = vp_l_opt_bool(L, 3, "lua", 0);
    if (vp_l_opt_bool(L, 3, "exact", 0)) {
        uint32_t *named, nnamed;
        vp_error nerr;
        if (vp_vprof_nodes_named(m, pat, len, &named, &nnamed, &nerr) != VP_OK)
            return luaL_error(L, "%s", nerr.msg);
        push_node_list(L, named, nnamed);
        return 1;
    }
    const char *on = vp_l_opt_str(L, 3, "on", NULL);
    int on_path = memchr(pat, '/', len) != NULL;
    if (on) {
        if (strcmp(on, "name") != 0 && strcmp(on, "path") != 0)
            return raise_usage(L, "cap:find: opts.on must be \"name\" or \"path\", not %s", on);
        on_path = on[0] == 'p';
    }
    if (lua) {
        find_lua(L, m, 2, on_path);
        return 1;
    }
    uint32_t *list, count;
    vp_error err;
    vp_errcode rc = vp_vprof_find(m, pat, len, on_path, &list, &count, &err);
    if (rc == VP_EFORMAT)
        return raise_usage(L, "cap:find: '%s': %s", pat, err.msg);
    if (rc != VP_OK)
        return luaL_error(L, "%s", err.msg);
    push_node_list(L, list, count);
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
    return cap_lookup(L, 1);
}

static int cap_frame_times(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    vp_series *s = vp_vprof_frame_series(m);
    if (!s)
        return luaL_error(L, "out of memory");
    vp_l_push_series_at(L, s, first_frame_no(m));
    return 1;
}

/* The capture's cache pushed, then its group_batches entry: 1 when that is
 * a table made for the key at key_idx. */
static int group_batches_lookup(lua_State *L, int cap_idx, int key_idx)
{
    vp_lcap_cache(L, cap_idx);
    int hit = lua_getfield(L, -1, "group_batches") == LUA_TTABLE;
    if (hit) {
        lua_getfield(L, -1, "key");
        hit = lua_rawequal(L, -1, key_idx);
        lua_pop(L, 1);
    }
    return hit;
}

/* Clear want[g] (ng entries) for each group the cached table at idx holds:
 * what is left is what a pass has to measure. */
static void without_cached(lua_State *L, int idx, uint8_t *want, uint32_t ng)
{
    for (uint32_t g = 0; g < ng; g++) {
        if (!want[g])
            continue;
        want[g] = lua_rawgeti(L, idx, (lua_Integer)g) == LUA_TNIL;
        lua_pop(L, 1);
    }
}

/* The cache key of groups' batches for fold and the cuts, pushed, then the
 * capture's cached table of them when it has that key (returns 1), else
 * nil (returns 0). */
static int group_batches_cached(lua_State *L, int cap_idx, int fold, const size_t *cuts, size_t k)
{
    luaL_Buffer buf; /* a string per cut on the stack would overflow it */
    luaL_buffinit(L, &buf);
    lua_pushfstring(L, "%d", fold);
    luaL_addvalue(&buf);
    for (size_t b = 1; b <= k; b++) {
        lua_pushfstring(L, ",%I", (lua_Integer)cuts[b]);
        luaL_addvalue(&buf);
    }
    luaL_pushresult(&buf);
    int key = lua_gettop(L);
    int hit = group_batches_lookup(L, cap_idx, key);
    if (!hit)
        lua_pushnil(L);
    lua_replace(L, key + 1);
    lua_settop(L, key + 1);
    return hit;
}

/* out[g] (group_count of them; NULL for a group without nodes or not asked
 * for) handed to Lua into the capture's cached table when its key is the
 * one at key_idx (the groups it holds already kept), else into a new table
 * kept under that key in place of the old one; the table pushed. */
static void group_batches_keep(lua_State *L, int cap_idx, vp_vprof *m, vp_batched **out, int key_idx)
{
    key_idx = lua_absindex(L, key_idx);
    if (!group_batches_lookup(L, cap_idx, key_idx)) {
        lua_pop(L, 1);
        lua_createtable(L, 0, 16);
        lua_pushvalue(L, key_idx);
        lua_setfield(L, -2, "key");
        lua_pushvalue(L, -1);
        lua_setfield(L, -3, "group_batches");
    }
    lua_remove(L, -2);
    for (uint32_t g = 0; g < m->group_count; g++) {
        if (!out[g])
            continue;
        vp_l_push_batched(L, out[g]); /* Lua owns each at once */
        out[g] = NULL;
        lua_rawseti(L, -2, (lua_Integer)g);
    }
}

/* One cap:series(nodes, field, {batches = cuts [, groups = true]}) of
 * vp.batches_all: its arguments are read into the host's request (what it
 * allocates stays on the Lua stack), vp_vprof_batches_all runs the passes,
 * and the results go to Lua. The Lua side of a request: */
typedef struct {
    int cap;  /* stack index of the capture */
    int many; /* a list of nodes (else one node, one result) */
    int key;  /* stack index of gout's cache key */
} batch_lua;

/* Read a request: the capture at cap, the node or list at nodes, the
 * options at opts ({batches = cuts [, groups]}). Raises what cap:series
 * raises. */
static void batch_prepare(lua_State *L, vp_vprof_batch_req *r, batch_lua *lr, int cap, int nodes,
                          vp_vprof_field field, int opts)
{
    memset(r, 0, sizeof *r);
    memset(lr, 0, sizeof *lr);
    r->m = check_cap(L, cap);
    lr->cap = cap;
    r->field = field;
    lua_getfield(L, opts, "batches");
    size_t *cuts = vp_l_check_cuts(L, lua_gettop(L), &r->k);
    r->cuts = cuts;
    luaL_argcheck(L, cuts[r->k] == r->m->frame_count, opts, "batches: the last cut must be the frame count");
    r->nodes = check_nodes(L, nodes, cap, r->m, "cap:series", &r->count, &lr->many);
    r->out = lua_newuserdatauv(L, (size_t)r->count * sizeof *r->out + 1, 0);
    memset(r->out, 0, (size_t)r->count * sizeof *r->out);
    /* groups = true (every group) or a list of this capture's groups, read
     * (and a foreign group refused) whatever the cache holds */
    int gt = lua_getfield(L, opts, "groups");
    int groups = lua_gettop(L);
    if (gt != LUA_TTABLE && !lua_toboolean(L, groups))
        return;
    uint32_t ng = r->m->group_count;
    uint8_t *w = lua_newuserdatauv(L, (size_t)ng + 1, 0);
    memset(w, gt != LUA_TTABLE, (size_t)ng + 1);
    if (gt == LUA_TTABLE) {
        lua_Integer n = luaL_len(L, groups);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, groups, i);
            vp_vprof *gm;
            lgroup *g = vp_lchild_check(L, -1, GROUP_T, (void **)&gm);
            luaL_argcheck(L, gm == r->m, opts, "groups: a group of another capture");
            w[g->gi] = 1;
            lua_pop(L, 1);
        }
    }
    /* only the wanted groups that have nodes and that the cache for these
     * cuts lacks; none of them: no groups measured */
    int cached = group_batches_cached(L, cap, 0, r->cuts, r->k);
    lr->key = lua_gettop(L) - 1;
    if (cached)
        without_cached(L, lr->key + 1, w, ng);
    int any = 0;
    for (uint32_t g = 0; g < ng; g++) {
        w[g] = w[g] && r->m->groups[g].has_nodes;
        any |= w[g];
    }
    if (!any)
        return;
    r->gout = lua_newuserdatauv(L, (size_t)ng * sizeof *r->gout + 1, 0);
    r->gwant = w;
}

/* A finished request's results to Lua: push what cap:series returns (the
 * list, or the one node's), the groups' kept in the capture's cache. */
static void batch_finish(lua_State *L, vp_vprof_batch_req *r, const batch_lua *lr)
{
    if (r->gout) {
        group_batches_keep(L, lr->cap, r->m, r->gout, lr->key);
        lua_pop(L, 1);
    }
    /* each handed to Lua at once: vp_l_push_batched owns it */
    lua_createtable(L, (int)r->count, 0);
    for (uint32_t i = 0; i < r->count; i++) {
        vp_l_push_batched(L, r->out[i]);
        r->out[i] = NULL;
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    if (!lr->many) {
        lua_rawgeti(L, -1, 1);
        lua_remove(L, -2);
    }
}

/* vp.batches_all({{cap, nodes, field, {batches = cuts [, groups]}}, ...})
 * -> {result, ...}: what each cap:series call would return, the captures'
 * passes at once on threads of their own (vp_vprof_batches_all). */
int vp_l_batches_all(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer n = luaL_len(L, 1);
    luaL_argcheck(L, n >= 0 && n < (lua_Integer)1 << 20, 1, "too many requests");
    vp_vprof_batch_req *req = lua_newuserdatauv(L, (size_t)n * sizeof *req + 1, 0);
    batch_lua *lreq = lua_newuserdatauv(L, (size_t)n * sizeof *lreq + 1, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        luaL_checkstack(L, 24, "vp.batches_all: too many requests");
        if (lua_rawgeti(L, 1, i) != LUA_TTABLE)
            return luaL_error(L, "vp.batches_all: request %d must be {cap, nodes, field, opts}", (int)i);
        int t = lua_gettop(L);
        lua_rawgeti(L, t, 1);
        lua_rawgeti(L, t, 2);
        lua_rawgeti(L, t, 3);
        lua_rawgeti(L, t, 4);
        luaL_checktype(L, t + 4, LUA_TTABLE);
        vp_vprof_field field = check_field(L, t + 3, NULL);
        batch_prepare(L, &req[i - 1], &lreq[i - 1], t + 1, t + 2, field, t + 4);
    }
    size_t bad = vp_vprof_batches_all(req, (size_t)n);
    if (bad < (size_t)n)
        return vp_lcap_raise(L, lreq[bad].cap, &req[bad].err);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < (size_t)n; i++) {
        batch_finish(L, &req[i], &lreq[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* cap:series(node | {node, ...} [, field]) -> Series | {Series, ...}: a
 * node's column of "time_ms" (default), "self_ms" or "calls", indexed by
 * the capture's frame numbers; one pass for all the nodes of a list.
 * (Their summaries without the columns: cap:dist.) */
static int cap_series(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    vp_vprof_field field = check_field(L, 3, "time_ms");
    luaL_argcheck(L, lua_isnoneornil(L, 4), 4, "no options: a summary is cap:dist, batches vp.batches_all");
    lua_settop(L, 3);
    /* The node list and the results live in Lua values, so an error frees
     * them. */
    uint32_t count;
    int many;
    uint32_t *nodes = check_nodes(L, 2, 1, m, "cap:series", &count, &many);
    vp_vprof_quantity *q = lua_newuserdatauv(L, (size_t)count * sizeof *q + 1, 0);
    lua_createtable(L, (int)count, 0);
    int results = lua_gettop(L);
    for (uint32_t k = 0; k < count; k++) {
        q[k] = (vp_vprof_quantity){.kind = VP_VPROF_Q_NODE, .index = nodes[k], .field = field,
                                   .column = vp_series_new(m->frame_count)};
        if (!q[k].column)
            return luaL_error(L, "out of memory");
        vp_l_push_series_at(L, q[k].column, first_frame_no(m));
        lua_rawseti(L, results, (lua_Integer)k + 1);
    }
    vp_error err;
    if (vp_vprof_measure(m, q, (size_t)count, NULL, 0, &err) != VP_OK)
        vp_lcap_raise(L, 1, &err);
    if (!many)
        lua_rawgeti(L, results, 1);
    return 1;
}

/* ---- group self time: summaries and columns --------------------------------- */

/* Make sure the statistics `what` exist, raising naming the file. */
static void need_stats(lua_State *L, vp_vprof *m, unsigned what)
{
    vp_error err;
    if (vp_vprof_stats_need(m, what, &err) != VP_OK)
        vp_lcap_raise(L, 1, &err);
}

/* The per-frame columns of every group (fold: hidden groups folded), made
 * by one pass and kept in the capture's cache: {[group index] = Series}. */
static void push_group_columns(lua_State *L, int cap_idx, vp_vprof *m, int fold)
{
    const char *key = fold ? "group_columns_folded" : "group_columns";
    vp_lcap_cache(L, cap_idx);
    if (lua_getfield(L, -1, key) == LUA_TTABLE) {
        lua_remove(L, -2);
        return;
    }
    lua_pop(L, 1);
    need_stats(L, m, fold ? VP_VPROF_STATS_FOLDED : VP_VPROF_STATS_GROUPS);
    lua_createtable(L, 0, 16);
    int t = lua_gettop(L);
    vp_vprof_quantity *q = lua_newuserdatauv(L, (size_t)m->group_count * sizeof *q + 1, 0);
    for (uint32_t g = 0; g < m->group_count; g++) {
        q[g] = (vp_vprof_quantity){.kind = VP_VPROF_Q_GROUP, .index = g, .fold = fold};
        if (!vp_vprof_group_stream(m, g, fold))
            continue;
        q[g].column = vp_series_new(m->frame_count);
        if (!q[g].column)
            luaL_error(L, "out of memory");
        /* Handed to Lua at once so an error cannot leak it. */
        vp_l_push_series_at(L, q[g].column, first_frame_no(m));
        lua_rawseti(L, t, (lua_Integer)g);
    }
    vp_error err;
    if (vp_vprof_measure(m, q, m->group_count, NULL, 0, &err) != VP_OK)
        vp_lcap_raise(L, cap_idx, &err);
    lua_settop(L, t);
    lua_pushvalue(L, -1);
    lua_setfield(L, -3, key);
    lua_remove(L, -2);
}

/* __index of a table keyed by group: a group's name answers as the group
 * (t.Physics is t[cap:group("Physics")]). Upvalue 1: the capture. */
static int by_group_name(lua_State *L)
{
    if (lua_type(L, 2) != LUA_TSTRING) {
        lua_pushnil(L);
        return 1;
    }
    vp_vprof *m = check_cap(L, lua_upvalueindex(1));
    uint32_t gi = vp_vprof_group_by_name(m, lua_tostring(L, 2));
    if (gi == VP_VPROF_NO_NODE) {
        lua_pushnil(L);
        return 1;
    }
    push_group(L, lua_upvalueindex(1), gi);
    lua_rawget(L, 1);
    return 1;
}

/* Let the table on top (keyed by the groups of the capture at cap_idx)
 * answer by group name too. */
static void answer_by_group_name(lua_State *L, int cap_idx)
{
    cap_idx = lua_absindex(L, cap_idx);
    lua_createtable(L, 0, 1);
    lua_pushvalue(L, cap_idx);
    lua_pushcclosure(L, by_group_name, 1);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
}

/* cap:group_self_ms([{fold_hidden = true}]) -> {[group] = Series}: the
 * columns themselves (frames x groups of memory; vp.budget reads the
 * summaries of cap:dist("groups") instead). */
static int cap_group_self_ms(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    int fold = vp_l_opt_bool(L, 2, "fold_hidden", 0) && m->fold_differs;
    lua_settop(L, 1);
    push_group_columns(L, 1, m, fold);
    int cols = lua_gettop(L);
    lua_newtable(L);
    for (uint32_t g = 0; g < m->group_count; g++) {
        if (lua_rawgeti(L, cols, (lua_Integer)g) == LUA_TNIL) {
            lua_pop(L, 1);
            continue;
        }
        vp_series *s = vp_l_check_series(L, -1);
        lua_pop(L, 1);
        push_group(L, 1, g);
        vp_l_push_series_at(L, vp_series_ref(s), first_frame_no(m));
        lua_rawset(L, -3);
    }
    answer_by_group_name(L, 1);
    return 1;
}

/* ---- dists: the VProf source of vp.Dist ------------------------------------ */

/* The source's part of a dist (l_dist.h): which quantity of the capture. */
static const vp_ldist_src vprof_dist_src;

static ldist *dist_part(vp_ldist *d)
{
    return vp_l_dist_data(d);
}

/* The capture of the dist at idx (raises when closed) and its source part. */
static ldist *check_dist(lua_State *L, int idx, vp_vprof **m)
{
    vp_ldist *d = vp_lchild_check(L, idx, VP_DIST_T, (void **)m);
    return dist_part(d);
}

/* The stream: a group's, re-found in the model (which owns it) on each
 * call; the frame times' of the open pass; else the dist's own. */
static vp_stream *dist_stream(lua_State *L, int idx, vp_ldist *dd, lua_Integer *first)
{
    vp_vprof *m;
    ldist *d = check_dist(L, idx, &m);
    vp_stream *s;
    switch (d->kind) {
    case DIST_FRAME: s = d->ranged ? &dd->own : &m->frame_stream; break;
    case DIST_NODE: s = &dd->own; break;
    default: s = vp_vprof_group_stream(m, d->index, d->fold); break;
    }
    if (!s)
        luaL_error(L, "the statistics of this group are gone");
    *first = frame_no(m, d->base);
    return s;
}

/* d:series() -> the column (one pass for every group, kept). */
static int dist_series(lua_State *L, int idx, vp_ldist *dd)
{
    vp_vprof *m;
    ldist *d = check_dist(L, idx, &m);
    (void)dd;
    luaL_argcheck(L, !d->ranged, idx, "the frame times of a range: use cap:frame_times():slice(i, j)");
    if (d->kind == DIST_FRAME) {
        vp_series *ft = vp_vprof_frame_series(m);
        if (!ft)
            return luaL_error(L, "out of memory");
        vp_l_push_series_at(L, ft, first_frame_no(m));
        return 1;
    }
    vp_lchild_pushcap(L, idx);
    int cap = lua_gettop(L);
    if (d->kind == DIST_NODE) {
        vp_series *col = vp_series_new(m->frame_count);
        if (!col)
            return luaL_error(L, "out of memory");
        vp_l_push_series_at(L, col, first_frame_no(m));
        vp_error err;
        vp_vprof_quantity q = {.kind = VP_VPROF_Q_NODE, .index = d->index, .field = (vp_vprof_field)d->field,
                               .column = col};
        if (vp_vprof_measure(m, &q, 1, NULL, 0, &err) != VP_OK)
            vp_lcap_raise(L, cap, &err);
        return 1;
    }
    push_group_columns(L, cap, m, d->fold && m->fold_differs);
    lua_rawgeti(L, -1, (lua_Integer)d->index);
    return 1;
}

/* Every group's batches for fold and the cuts, kept in the capture's cache
 * while the same cuts are asked for: {[group index] = vp.infer.batched}
 * (the groups with a summary), pushed, holding group `need`. When the
 * cached table lacks it (a vp.batches_all request for some groups leaves
 * the others out), the groups it lacks are measured, in one pass, and
 * kept with the others; when it holds it, nothing is measured, so that
 * the groups a comparison tests never cost a pass for the rest. */
static void push_group_batches(lua_State *L, int cap_idx, vp_vprof *m, int fold, const size_t *cuts, size_t k,
                               uint32_t need)
{
    int cached = group_batches_cached(L, cap_idx, fold, cuts, k);
    int key = lua_gettop(L) - 1;
    if (cached) {
        int have = lua_rawgeti(L, key + 1, (lua_Integer)need) != LUA_TNIL;
        lua_pop(L, 1);
        if (have) {
            lua_remove(L, key);
            return;
        }
    }
    /* the groups the cached table lacks (all, without one); a pass with
     * none of them to measure reads nothing */
    uint8_t *want = NULL;
    if (cached) {
        want = lua_newuserdatauv(L, (size_t)m->group_count + 1, 0);
        memset(want, 1, (size_t)m->group_count + 1);
        without_cached(L, key + 1, want, m->group_count);
    }
    vp_batched **out = lua_newuserdatauv(L, (size_t)m->group_count * sizeof *out + 1, 0);
    vp_error err;
    if (vp_vprof_group_batches(m, fold, want, cuts, k, out, NULL, 0, &err) != VP_OK)
        vp_lcap_raise(L, cap_idx, &err);
    group_batches_keep(L, cap_idx, m, out, key);
    lua_replace(L, key);
    lua_settop(L, key);
}

/* d:batches(cuts): from one pass over the frame records or the frames. */
static int dist_batches(lua_State *L, int idx, vp_ldist *dd)
{
    vp_vprof *m;
    ldist *d = check_dist(L, idx, &m);
    (void)dd;
    luaL_argcheck(L, !d->ranged, idx, "the frame times of a range have no batches: open the capture with those frames");
    size_t k, *cuts = vp_l_check_cuts(L, idx + 1, &k);
    luaL_argcheck(L, cuts[k] == m->frame_count, idx + 1, "the last cut must be the frame count");
    vp_error err;
    if (d->kind == DIST_FRAME) {
        vp_batched *b;
        vp_vprof_quantity q = {.kind = VP_VPROF_Q_FRAME, .batches = &b};
        if (vp_vprof_measure(m, &q, 1, cuts, k, &err) != VP_OK)
            vp_lcap_raise(L, idx, &err);
        vp_l_push_batched(L, b);
        return 1;
    }
    vp_lchild_pushcap(L, idx);
    int cap = lua_gettop(L);
    if (d->kind == DIST_NODE) {
        vp_batched *b;
        vp_vprof_quantity q = {.kind = VP_VPROF_Q_NODE, .index = d->index, .field = (vp_vprof_field)d->field,
                               .batches = &b};
        if (vp_vprof_measure(m, &q, 1, cuts, k, &err) != VP_OK)
            vp_lcap_raise(L, cap, &err);
        vp_l_push_batched(L, b);
        return 1;
    }
    push_group_batches(L, cap, m, d->fold && m->fold_differs, cuts, k, d->index);
    lua_rawgeti(L, -1, (lua_Integer)d->index);
    return 1;
}

/* d:top_sum(k) -> the sum (ms) of the k largest values of the frame times'
 * summary (the slowest k frames). */
static int dist_top_sum(lua_State *L, int idx, vp_ldist *dd)
{
    vp_vprof *m;
    ldist *d = check_dist(L, idx, &m);
    (void)dd;
    luaL_argcheck(L, d->kind == DIST_FRAME && !d->ranged, idx, "top_sum: of a capture's frame times");
    lua_Integer k = luaL_checkinteger(L, idx + 1);
    luaL_argcheck(L, k >= 1 && k <= (lua_Integer)m->frame_count, idx + 1, "k must be in 1..frames");
    int ok;
    double sum = vp_vprof_slowest_sum(m, (uint32_t)k, &ok);
    if (!ok)
        return luaL_error(L, "out of memory");
    lua_pushnumber(L, sum);
    return 1;
}

static void dist_tostring(lua_State *L, int idx, vp_ldist *dd, uint64_t n, double mean)
{
    vp_vprof *m;
    ldist *d = check_dist(L, idx, &m);
    (void)dd;
    if (d->kind == DIST_FRAME)
        lua_pushfstring(L, "<vprof dist: frame time, %d frames, mean %f ms>", (int)n, mean);
    else if (d->kind == DIST_NODE)
        lua_pushfstring(L, "<vprof dist: node %s %s, %d frames, mean %f>",
                        vp_vprof_name(m, m->nodes[d->index].name), FIELD_NAMES[d->field], (int)n, mean);
    else
        lua_pushfstring(L, "<vprof dist: %s self time%s, %d frames, mean %f ms>",
                        vp_vprof_name(m, m->groups[d->index].name),
                        d->fold ? " (hidden folded)" : "", (int)n, mean);
}

static const vp_ldist_src vprof_dist_src = {dist_stream, dist_series, dist_batches, dist_top_sum,
                                            dist_tostring};

/* A new dist of the capture at index 1: ms per unit, or calls as they are. */
static ldist *dist_new(lua_State *L, int kind, uint32_t index, int field, vp_stream **own)
{
    double scale = kind == DIST_NODE && field == VP_VPROF_CALLS ? 1.0 : VP_VPROF_US_PER_UNIT / 1000.0;
    vp_ldist *dd = vp_l_dist_new(L, &vprof_dist_src, scale, sizeof(ldist), 1);
    ldist *d = dist_part(dd);
    d->kind = kind;
    d->index = index;
    d->field = field;
    if (own)
        *own = &dd->own;
    return d;
}

/* Every group some node counts towards, its self time per frame
 * summarised: {[group] = dist} (a group's name answers too), on top. */
static void push_group_dists(lua_State *L, vp_vprof *m, int fold_arg)
{
    int fold = vp_l_opt_bool(L, fold_arg, "fold_hidden", 0) && m->fold_differs;
    need_stats(L, m, fold ? VP_VPROF_STATS_FOLDED : VP_VPROF_STATS_GROUPS);
    lua_newtable(L);
    for (uint32_t g = 0; g < m->group_count; g++) {
        if (!vp_vprof_group_stream(m, g, fold))
            continue;
        push_group(L, 1, g);
        dist_new(L, DIST_GROUP, g, 0, NULL)->fold = fold;
        lua_rawset(L, -3);
    }
    answer_by_group_name(L, 1);
}

/* The frame times of frames first..last (0-based) summarised: the open
 * pass's summary for every frame, else a summary of the range's own. */
static void push_frame_dist(lua_State *L, vp_vprof *m, uint32_t first, uint32_t last, int any)
{
    vp_stream *own;
    ldist *d = dist_new(L, DIST_FRAME, 0, 0, &own);
    if (any && (first != 0 || last + 1 != m->frame_count)) {
        d->ranged = 1;
        d->base = first;
        for (uint32_t fi = first; fi <= last; fi++)
            if (!vp_stream_add(own, m->frames[fi].units, 1))
                luaL_error(L, "out of memory");
    } else if (!any && m->frame_count) {
        d->ranged = 1; /* the empty range */
    }
}

/* Nodes' values of one field summarised, one pass for all of them: the
 * node (or list of nodes) at index 2, the field at 3; a dist, or a list. */
static int push_node_dists(lua_State *L, vp_vprof *m)
{
    vp_vprof_field field = check_field(L, 3, "time_ms");
    lua_settop(L, 3);
    uint32_t count;
    int many;
    uint32_t *nodes = check_nodes(L, 2, 1, m, "cap:dist", &count, &many);
    vp_vprof_quantity *q = lua_newuserdatauv(L, (size_t)count * sizeof *q + 1, 0);
    lua_createtable(L, (int)count, 0);
    int results = lua_gettop(L);
    for (uint32_t k = 0; k < count; k++) {
        vp_stream *own;
        dist_new(L, DIST_NODE, nodes[k], (int)field, &own);
        q[k] = (vp_vprof_quantity){.kind = VP_VPROF_Q_NODE, .index = nodes[k], .field = field, .summary = own};
        lua_rawseti(L, results, (lua_Integer)k + 1);
    }
    vp_error err;
    if (vp_vprof_measure(m, q, (size_t)count, NULL, 0, &err) != VP_OK)
        vp_lcap_raise(L, 1, &err);
    if (!many)
        lua_rawgeti(L, results, 1);
    return 1;
}

/* cap:dist(q [, field | opts]) -> vp.Dist (or a list, or a table):
 * a per-frame quantity summarised, the statistics a Series of it gives
 * without keeping the column:
 *   "frame_ms" [, {first =, last =}]  the frame times (of frames first..last)
 *   node | {node, ...} [, field]      a node's "time_ms" (default),
 *                                     "self_ms" or "calls": one pass for
 *                                     every node of a list, a list back
 *   "groups" [, {fold_hidden = true}] every group's self time:
 *                                     {[group] = dist}, by name too. */
static int cap_dist(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    const char *q = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
    if (q && strcmp(q, "frame_ms") == 0) {
        uint32_t first = 0, last = 0;
        int any = 1;
        if (lua_istable(L, 3)) {
            lua_Integer lo = frame_no(m, 0), hi = lo + (lua_Integer)m->frame_count - 1;
            lua_Integer i = vp_l_opt_int(L, 3, "first", lo), j = vp_l_opt_int(L, 3, "last", hi);
            if (i < lo || j > hi || (i > j + 1))
                return luaL_error(L, "cap:dist: frames %I..%I are not within the capture's %I..%I", i, j, lo, hi);
            any = i <= j;
            if (any) {
                first = (uint32_t)frame_idx(m, i);
                last = (uint32_t)frame_idx(m, j);
            }
        } else if (m->frame_count) {
            last = m->frame_count - 1;
        }
        push_frame_dist(L, m, first, last, any && m->frame_count);
        return 1;
    }
    if (q && strcmp(q, "groups") == 0) {
        lua_settop(L, 3);
        push_group_dists(L, m, 3);
        return 1;
    }
    return push_node_dists(L, m);
}

/* ---- node totals ------------------------------------------------------------ */

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

/* Push {node, frames, calls, time_ms, self_ms, peak_ms, peak_self_ms,
 * peak_frame} for node v. */
static void push_stat_row(lua_State *L, int cap_idx, const vp_vprof *m, uint32_t v,
                          const vp_vprof_node_stat *a)
{
    lua_createtable(L, 0, 9);
    push_node(L, cap_idx, v);
    lua_setfield(L, -2, "node");
    setint(L, "frames", a->frames);
    setint(L, "calls", (lua_Integer)a->calls);
    setnum(L, "time_ms", vp_vprof_ms(a->time));
    setnum(L, "self_ms", vp_vprof_ms(a->self));
    setnum(L, "peak_ms", vp_vprof_ms(a->peak));
    setnum(L, "peak_self_ms", vp_vprof_ms(a->peak_self));
    if (a->frames)
        setint(L, "peak_frame", frame_no(m, a->peak_frame));
}

/* The totals of every node over frames i..j (args at `arg`), in a userdata
 * left on the stack. */
static vp_vprof_node_stat *range_stats(lua_State *L, int arg, vp_vprof *m, uint32_t *nframes)
{
    uint32_t first = 0, last = 0;
    int any = frame_range(L, arg, m, &first, &last);
    vp_vprof_node_stat *acc = lua_newuserdatauv(L, (size_t)m->node_count * sizeof *acc + 1, 0);
    if (!any) { /* an empty range: every node gets zeros */
        first = 1;
        last = 0;
    }
    *nframes = any ? last - first + 1 : 0;
    vp_error err;
    if (vp_vprof_node_stats(m, first, last, acc, &err) != VP_OK)
        vp_lcap_raise(L, 1, &err);
    return acc;
}

/* The totals of every node over frames i..j (cap:totals). */
static int node_totals(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    static const char *const keys[] = {"time", "self", "per_call", "peak", "peak_over_avg", NULL};
    static const vp_vprof_node_key key_ids[] = {VP_VPROF_BY_TIME, VP_VPROF_BY_SELF,
                                                VP_VPROF_BY_PER_CALL, VP_VPROF_BY_PEAK,
                                                VP_VPROF_BY_PEAK_OVER_AVG};
    int top = lua_gettop(L), key = -1;
    lua_Integer limit = 0;
    if (top >= 2 && lua_istable(L, top)) {
        lua_getfield(L, top, "sort");
        const char *k = lua_tostring(L, -1);
        for (int i = 0; k && keys[i]; i++)
            if (strcmp(k, keys[i]) == 0)
                key = i;
        if (key < 0)
            return luaL_error(L, "cap:totals: sort must be one of time, self, per_call, "
                                 "peak, peak_over_avg");
        lua_pop(L, 1);
        limit = vp_l_opt_int(L, top, "limit", 0);
        luaL_argcheck(L, limit >= 0, top, "limit must be at least 0");
        lua_remove(L, top);
    }
    lua_settop(L, 3);
    uint32_t nframes;
    vp_vprof_node_stat *acc = range_stats(L, 2, m, &nframes);
    if (key >= 0) {
        uint32_t *order = lua_newuserdatauv(L, (size_t)m->node_count * sizeof *order + 1, 0);
        uint32_t count;
        if (!vp_vprof_node_order(m, acc, nframes, key_ids[key], order, &count))
            return luaL_error(L, "out of memory");
        uint32_t shown = limit > 0 && (lua_Integer)count > limit ? (uint32_t)limit : count;
        lua_createtable(L, (int)shown, 0);
        for (uint32_t k = 0; k < shown; k++) {
            push_stat_row(L, 1, m, order[k], &acc[order[k]]);
            lua_rawseti(L, -2, (lua_Integer)k + 1);
        }
        lua_pushinteger(L, count);
        return 2;
    }
    const vp_vprof_epoch *ep = vp_vprof_epoch_for(m, m->node_count);
    if (!ep)
        return luaL_error(L, "out of memory");
    lua_createtable(L, (int)m->node_count, 0);
    for (uint32_t pos = 0; pos < ep->n; pos++) {
        push_stat_row(L, 1, m, ep->order[pos], &acc[ep->order[pos]]);
        lua_rawseti(L, -2, (lua_Integer)pos + 1);
    }
    return 1;
}

/* The totals of one node over frames i..j (cap:totals; the whole capture:
 * read off the statistics, no pass once they exist). */
static int node_total(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    uint32_t v = check_node_arg(L, 2, 1, m);
    uint32_t first = 0, last = 0;
    if (frame_range(L, 3, m, &first, &last) && first == 0 && last + 1 == m->frame_count) {
        const vp_vprof_node_stat *st = vp_vprof_node_total(m, v);
        if (!st) {
            need_stats(L, m, VP_VPROF_STATS_NODES);
            st = &m->stats.node[v];
        }
        push_stat_row(L, 1, m, v, st);
        return 1;
    }
    lua_settop(L, 4);
    lua_remove(L, 2); /* the range args move to 2, 3 */
    uint32_t nframes;
    vp_vprof_node_stat *acc = range_stats(L, 2, m, &nframes);
    push_stat_row(L, 1, m, v, &acc[v]);
    return 1;
}

/* cap:totals([node] [, i [, j]] [, {sort =, limit =}]) -> rows: node totals
 * over frames i..j (the capture's frame numbers; every frame by default),
 * each {node, calls, time_ms, self_ms, peak_ms, peak_frame, ...} summed
 * over the range. With a node (a node, or its path): that node's row.
 * Without: every node's in pre-order; with a sort, the nodes other than
 * the root that exist in the range, largest first by "time", "self",
 * "per_call", "peak" or "peak_over_avg" (ties by path), the first `limit`
 * of them (0: all), and how many there are. */
static int cap_totals(lua_State *L)
{
    if (lua_type(L, 2) == LUA_TSTRING || luaL_testudata(L, 2, NODE_T))
        return node_total(L);
    return node_totals(L);
}

/* ---- hitches ------------------------------------------------------------------ */

/* ---- vp.hitches.core: the hitch engine vp.hitches calls --------------------- */

/* core.detect(cap [, {factor =, window =, min_excess_ms =, threshold_ms =}])
 * -> list of {frame, tick, frame_ms, baseline_ms}: hitches.lua's rule (the
 * analysis, vp.hitches, checks the parameters; every one has a default). */
static int hitch_detect(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    if (lua_isnoneornil(L, 2)) {
        lua_settop(L, 1);
        lua_newtable(L);
    }
    vp_hitch_rule r;
    vp_l_hitch_rule(L, 2, &r);
    vp_hitch *h;
    uint32_t count;
    vp_error err;
    if (vp_vprof_hitches(m, &r, &h, &count, &err) != VP_OK)
        vp_lcap_raise(L, 1, &err);
    vp_hitch *list = vp_l_hitch_list(L, h, count);
    lua_createtable(L, (int)count, 0);
    for (uint32_t k = 0; k < count; k++) {
        lua_createtable(L, 0, 4);
        setint(L, "frame", frame_no(m, list[k].frame));
        setint(L, "tick", m->frames[list[k].frame].tick);
        setnum(L, "frame_ms", list[k].frame_ms);
        if (list[k].has_baseline)
            setnum(L, "baseline_ms", list[k].baseline_ms);
        lua_rawseti(L, -2, (lua_Integer)k + 1);
    }
    return 1;
}

/* core.causes(cap, frame [, {window =, limit =}]) -> nodes, groups: the
 * `limit` largest node and group self-time excesses over their own
 * baselines in `frame`, {{node, self_ms, excess_ms}}, {{group, self_ms,
 * excess_ms}}. */
static int hitch_causes(lua_State *L)
{
    vp_vprof *m = check_cap(L, 1);
    lua_Integer no = luaL_checkinteger(L, 2), fi = frame_idx(m, no);
    if (fi < 0 || fi >= (lua_Integer)m->frame_count)
        return luaL_error(L, "frame %I is out of range %I..%I", no, frame_no(m, 0),
                          frame_no(m, 0) + (lua_Integer)m->frame_count - 1);
    lua_Integer w = vp_l_opt_int(L, 3, "window", 30), limit = vp_l_opt_int(L, 3, "limit", 5);
    luaL_argcheck(L, w >= 1 && w <= UINT32_MAX, 3, "window must be at least 1");
    luaL_argcheck(L, limit >= 0 && limit <= 1 << 20, 3, "limit must be in 0..1048576");
    vp_vprof_cause *c = lua_newuserdatauv(L, 2 * (size_t)limit * sizeof *c + 1, 0);
    uint32_t nc, ng;
    vp_error err;
    if (vp_vprof_causes(m, (uint32_t)fi, (uint32_t)w, (uint32_t)limit, c, &nc, c + limit, &ng, &err) !=
        VP_OK)
        vp_lcap_raise(L, 1, &err);
    for (int kind = 0; kind < 2; kind++) {
        const vp_vprof_cause *list = kind ? c + limit : c;
        uint32_t n = kind ? ng : nc;
        lua_createtable(L, (int)n, 0);
        for (uint32_t k = 0; k < n; k++) {
            lua_createtable(L, 0, 3);
            if (kind)
                push_group(L, 1, list[k].index);
            else
                push_node(L, 1, list[k].index);
            lua_setfield(L, -2, kind ? "group" : "node");
            setnum(L, "self_ms", list[k].self_ms);
            setnum(L, "excess_ms", list[k].excess_ms);
            lua_rawseti(L, -2, (lua_Integer)k + 1);
        }
    }
    return 2;
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
        lua_pushinteger(L, lo);
        summary_row(L, &k, "first_tick");
        lua_pushinteger(L, hi);
        summary_row(L, &k, "last_tick");
        vp_series *ft = vp_vprof_frame_series(m);
        if (!ft)
            return luaL_error(L, "out of memory");
        double sum = vp_series_sum(ft), mean = vp_series_mean(ft);
        vp_series_unref(ft);
        lua_pushnumber(L, sum);
        summary_row(L, &k, "duration_ms");
        lua_pushnumber(L, mean);
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
    lua_pushinteger(L, m->escape_width);
    summary_row(L, &k, "escape_width");
    lua_pushboolean(L, m->escapes_seen);
    summary_row(L, &k, "escapes_seen");
    lua_pushboolean(L, m->truncated);
    summary_row(L, &k, "truncated");
    lua_pushboolean(L, m->corrupt);
    summary_row(L, &k, "corrupt");
    lua_pushboolean(L, m->zero_timings);
    summary_row(L, &k, "zero_timings");
    return 1;
}

static int cap_len(lua_State *L)
{
    lua_pushinteger(L, check_cap(L, 1)->frame_count);
    return 1;
}

static int cap_tostring(lua_State *L)
{
    const char *base;
    vp_vprof *m = vp_lcap_tostring_model(L, CAP_T, &base);
    if (!m)
        return 1;
    lua_pushfstring(L, "<vprof %s: ", base);
    vp_l_push_count(L, m->frame_count);
    lua_pushliteral(L, " frames, ");
    vp_l_push_count(L, m->node_count);
    lua_pushliteral(L, " nodes, ");
    vp_l_push_count(L, vp_vprof_groups_with_nodes(m));
    lua_pushstring(L, m->truncated ? " groups, truncated>" : m->corrupt ? " groups, corrupt>" : " groups>");
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

/* opts.stats: the whole-capture statistics to compute in the open pass:
 * true for all, or {groups =, fold_hidden =, nodes = boolean or a list of
 * node names (only those nodes' totals)}. A list leaves the array of its
 * names on the stack (its strings are the list's), for the open's time. */
static void open_stats(lua_State *L, int opts, vp_open_opts *o)
{
    if (!lua_istable(L, opts))
        return;
    unsigned what = 0;
    int t = lua_getfield(L, opts, "stats");
    int st = lua_gettop(L);
    if (t == LUA_TBOOLEAN) {
        what = lua_toboolean(L, -1) ? VP_VPROF_STATS_ALL : 0;
    } else if (t == LUA_TTABLE) {
        what |= vp_l_opt_bool(L, st, "groups", 0) ? VP_VPROF_STATS_GROUPS : 0;
        what |= vp_l_opt_bool(L, st, "fold_hidden", 0) ? VP_VPROF_STATS_FOLDED : 0;
        if (lua_getfield(L, st, "nodes") == LUA_TTABLE) {
            lua_Unsigned n = lua_rawlen(L, -1);
            if (n >= UINT32_MAX / sizeof(char *))
                luaL_error(L, "vp.open: stats.nodes: too many names");
            const char **names = lua_newuserdatauv(L, (size_t)n * sizeof *names + 1, 0);
            for (lua_Unsigned k = 0; k < n; k++) {
                if (lua_rawgeti(L, st + 1, (lua_Integer)k + 1) != LUA_TSTRING)
                    luaL_error(L, "vp.open: stats.nodes must be true or a list of node names");
                names[k] = lua_tostring(L, -1); /* kept alive by the list */
                lua_pop(L, 1);
            }
            what |= VP_VPROF_STATS_NODES;
            o->node_names = names;
            o->n_node_names = (uint32_t)n;
            lua_replace(L, st); /* the names' array stays; the stats table is opts' */
            lua_pop(L, 1);      /* the list */
            o->stats = what;
            return;
        }
        if (!lua_isnil(L, -1) && !lua_isboolean(L, -1))
            luaL_error(L, "vp.open: stats.nodes must be true or a list of node names");
        what |= lua_toboolean(L, -1) ? VP_VPROF_STATS_NODES : 0;
        lua_pop(L, 1);
    } else if (t != LUA_TNIL) {
        luaL_error(L, "vp.open: stats must be true or a table {groups =, fold_hidden =, nodes =}");
    }
    lua_pop(L, 1);
    o->stats = what;
}

/* vp.open's options for a VProf reader, but the progress function (see
 * open_stats for what it may leave on the stack). */
static void open_opts(lua_State *L, int opts, vp_open_opts *o)
{
    memset(o, 0, sizeof *o);
    o->escape_width = (int)vp_l_opt_int(L, opts, "escape_width", 0);
    o->strict = vp_l_opt_bool(L, opts, "strict", 0);
    open_stats(L, opts, o);
    /* statistics over every frame would be dropped with the frames a range leaves out */
    if (lua_istable(L, opts)) {
        if (lua_getfield(L, opts, "frames") != LUA_TNIL)
            o->stats = 0;
        lua_pop(L, 1);
    }
    if (o->escape_width != 0 && o->escape_width != 4 && o->escape_width != 8)
        luaL_error(L, "vp.open: escape_width must be 4 or 8");
}

/* opts.progress: its stack index, 0 when there is none. */
static int progress_fn(lua_State *L, int opts)
{
    if (!lua_istable(L, opts))
        return 0;
    int t = lua_getfield(L, opts, "progress");
    if (t == LUA_TFUNCTION)
        return lua_gettop(L);
    if (t != LUA_TNIL && t != LUA_TBOOLEAN)
        luaL_error(L, "vp.open: progress must be a function");
    lua_pop(L, 1);
    return 0;
}

/* The capture's frame fields: frame_count, and the file's numbers of the
 * first and the last frame it holds (nil when it holds none). */
static void set_frame_fields(lua_State *L, int cap, const vp_vprof *m)
{
    vp_lcap_set_int(L, cap, "frame_count", m->frame_count);
    if (m->frame_count)
        lua_pushinteger(L, frame_no(m, 0));
    else
        lua_pushnil(L);
    vp_lcap_setfield(L, cap, "first_frame");
    if (m->frame_count)
        lua_pushinteger(L, frame_no(m, m->frame_count - 1));
    else
        lua_pushnil(L);
    vp_lcap_setfield(L, cap, "last_frame");
}

/* vp.open's frames = {first, last} (or {first =, last =}, the form
 * vp.cli's ranges take; either may be nil: from the first, to the last; a
 * negative number counts from the end, -1 the last frame): keep those
 * frames and forget the rest, so that every figure is over them; frame
 * numbers stay the file's. Returns 0, or pushes nil, message, "ERANGE" and
 * returns 3 for a range that holds none of the capture's frames. */
static int restrict_to(lua_State *L, int cap, int opts, vp_vprof *m, const char *path)
{
    if (!lua_istable(L, opts) || lua_getfield(L, opts, "frames") == LUA_TNIL) {
        if (lua_istable(L, opts))
            lua_pop(L, 1);
        return 0;
    }
    int fr = lua_gettop(L);
    lua_Integer n = (lua_Integer)m->frame_count, v[2];
    int ok = vp_l_resolve_frames(L, fr, n, v);
    lua_pop(L, 1);
    if (!ok) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: frames out of range: the capture has %I frames", path, n);
        lua_pushliteral(L, "ERANGE");
        return 3;
    }
    if (v[0] == 1 && v[1] == n)
        return 0;
    vp_error err;
    if (vp_vprof_restrict(m, (uint32_t)(v[0] - 1), (uint32_t)(v[1] - 1), &err) != VP_OK)
        vp_lcap_raise(L, cap, &err);
    set_frame_fields(L, cap, m);
    return 0;
}

/* Push the capture of an opened model, which it then owns. */
static void push_capture(lua_State *L, const char *path, vp_vprof *m)
{
    /* Warnings name the file, as every message does. */
    vp_warnings named = {0};
    for (size_t i = 0; i < m->warnings.count; i++)
        vp_warn(&named, "%s: %s", path, m->warnings.items[i]);
    vp_lcap_new(L, CAP_T, m, free_model, "vprof", path, m->src.size, &named);
    vp_warnings_free(&named);
    int cap = lua_gettop(L);
    set_frame_fields(L, cap, m);
    vp_lcap_set_int(L, cap, "node_count", m->node_count);
    vp_lcap_set_int(L, cap, "group_count", m->group_count);
    vp_lcap_set_bool(L, cap, "truncated", m->truncated);
    vp_lcap_set_bool(L, cap, "corrupt", m->corrupt);
    vp_lcap_set_bool(L, cap, "zero_timings", m->zero_timings);
    vp_lcap_set_int(L, cap, "escape_width", m->escape_width);
    vp_lcap_set_bool(L, cap, "escapes_seen", m->escapes_seen);
    vp_lcap_set_int(L, cap, "version", m->version);
    vp_lcap_set_int(L, cap, "root_node_id", m->root_id);
    vp_lcap_set_int(L, cap, "first_group_id", m->group_base);
    push_node(L, cap, 0);
    vp_lcap_setfield(L, cap, "root");
}

int vp_l_open_vprof(lua_State *L, const char *path, int opts)
{
    vp_open_opts o;
    open_opts(L, opts, &o);
    lprogress lp = {L, progress_fn(L, opts), 0};
    if (lp.fn) {
        o.progress = progress_call;
        o.progress_ud = &lp;
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
    push_capture(L, path, m);
    int bad = restrict_to(L, lua_gettop(L), opts, m, path);
    return bad ? bad : 1;
}

/* ---- several at once (vp.open_all) --------------------------------------- */

/* The opens run at once on threads of their own (vp_vprof_open_all, no Lua
 * there); opts.progress is called here, on the calling thread, with the
 * files' bytes summed. */
void vp_l_open_vprof_all(lua_State *L, const char *const *paths, const lua_Integer *slots, size_t n,
                         int opts, int caps, int failures)
{
    vp_vprof_opened *res = lua_newuserdatauv(L, n * sizeof *res + 1, 0);
    vp_open_opts o;
    open_opts(L, opts, &o);
    lprogress lp = {L, progress_fn(L, opts), 0};
    if (lp.fn) {
        o.progress = progress_call;
        o.progress_ud = &lp;
    }
    vp_vprof_open_all(paths, n, &o, res);
    /* Every model goes to Lua (or is freed) before anything can raise. */
    for (size_t i = 0; i < n; i++) {
        vp_vprof_opened *j = &res[i];
        if (lp.failed) {
            vp_vprof_free(j->m);
        } else if (j->rc == VP_OK) {
            push_capture(L, paths[i], j->m);
            int bad = restrict_to(L, lua_gettop(L), opts, j->m, paths[i]);
            if (bad) {
                lua_pushboolean(L, 0);
                lua_rawseti(L, caps, slots[i]);
                lua_createtable(L, 0, 2);
                lua_pushvalue(L, -3);
                lua_setfield(L, -2, "message");
                lua_pushvalue(L, -2);
                lua_setfield(L, -2, "code");
                lua_rawseti(L, failures, slots[i]);
                lua_pop(L, bad + 1);
            } else {
                lua_rawseti(L, caps, slots[i]);
            }
        } else {
            lua_pushboolean(L, 0);
            lua_rawseti(L, caps, slots[i]);
            vp_l_fail(L, paths[i], &j->err);
            vp_l_fail_table(L);
            lua_rawseti(L, failures, slots[i]);
        }
    }
    if (lp.failed)
        lua_error(L);
}

void vp_l_register_vprof(lua_State *L)
{
    static const luaL_Reg cap_methods[] = {{"frame", cap_frame},
                                           {"frames", cap_frames},
                                           {"nodes", cap_nodes},
                                           {"node", cap_node},
                                           {"find", cap_find},
                                           {"groups", cap_groups},
                                           {"group", cap_group},
                                           {"frame_times", cap_frame_times},
                                           {"series", cap_series},
                                           {"group_self_ms", cap_group_self_ms},
                                           {"dist", cap_dist},
                                           {"totals", cap_totals},
                                           {"summary", cap_summary},
                                           {NULL, NULL}};
    vp_lcap_class(L, CAP_T, cap_tostring, cap_len, cap_methods);

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

int vp_l_open_hitches(lua_State *L)
{
    static const luaL_Reg fns[] = {{"detect", hitch_detect}, {"causes", hitch_causes}, {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
