/* "vp.json.core": the walk of vp.json's encoder over Lua values (the rules
 * are stated in stdlib/vp/json.lua, which parses the schemas and calls
 * this; the bytes of strings and numbers are core/jsonw). In C because a
 * document of a few thousand hitches took longer to encode in Lua than the
 * capture took to read. */
#include "core/jsonw.h"
#include "core/sort.h"

#include <lauxlib.h>
#include <lua.h>
#include <string.h>

#include "l_formats.h"

#define BUF_MT "vp.json.buffer"
#define MAX_DEPTH 200      /* tables inside tables: deeper is a cycle */
#define FLUSH_BYTES 65536u /* json.write hands the text over in pieces of about this */

typedef struct jctx {
    lua_State *L;
    vp_jbuf *b;
    int null, array_mt, write; /* stack indices; write 0 for encode */
} jctx;

static int buf_gc(lua_State *L)
{
    vp_buf_free(luaL_checkudata(L, 1, BUF_MT));
    return 0;
}

/* Raise msg as it is (no position: error(msg, 0) in Lua). */
static int fail(lua_State *L, const char *msg)
{
    lua_pushstring(L, msg);
    return lua_error(L);
}

static void check_oom(jctx *c)
{
    if (c->b->oom)
        fail(c->L, "vp.json: out of memory");
}

static void flush(jctx *c)
{
    check_oom(c);
    lua_State *L = c->L;
    lua_pushvalue(L, c->write);
    lua_pushlstring(L, c->b->data ? (const char *)c->b->data : "", c->b->len);
    c->b->len = 0;
    lua_call(L, 1, 0);
}

static void put(jctx *c, const char *s)
{
    vp_buf_put(c->b, s, strlen(s));
}

static void quote(jctx *c, int idx)
{
    size_t n;
    const char *s = lua_tolstring(c->L, idx, &n);
    vp_jbuf_string(c->b, s, n);
}

static void encode(jctx *c, int v, int shape, int depth);

/* shape.<field> pushed (nil when shape is 0). */
static int shape_field(lua_State *L, int shape, const char *field)
{
    if (!shape) {
        lua_pushnil(L);
        return LUA_TNIL;
    }
    return lua_getfield(L, shape, field);
}

static void encode_list(jctx *c, int t, int item, int depth)
{
    lua_State *L = c->L;
    lua_Integer n = luaL_len(L, t);
    if (n <= 0) {
        put(c, "[]");
        return;
    }
    put(c, "[");
    for (lua_Integer i = 1; i <= n; i++) {
        if (i > 1)
            put(c, ",");
        lua_geti(L, t, i);
        encode(c, lua_gettop(L), item, depth);
        lua_pop(L, 1);
        if (c->write && c->b->len >= FLUSH_BYTES)
            flush(c);
    }
    put(c, "]");
}

/* A key of an object the schema does not declare, for sorting. */
typedef struct jkey {
    int is_num, is_int;
    lua_Integer i;
    lua_Number d;
    const char *s; /* anchored by the table being written */
    size_t len;
} jkey;

/* Numbers first, in numeric order; then strings in byte order (Lua's <
 * in the C locale). */
static int key_cmp(uint32_t a, uint32_t b, const void *ctx)
{
    const jkey *x = (const jkey *)ctx + a, *y = (const jkey *)ctx + b;
    if (x->is_num != y->is_num)
        return x->is_num ? -1 : 1;
    if (x->is_num) {
        if (x->is_int && y->is_int)
            return (x->i > y->i) - (x->i < y->i);
        lua_Number p = x->is_int ? (lua_Number)x->i : x->d, q = y->is_int ? (lua_Number)y->i : y->d;
        return (p > q) - (p < q);
    }
    size_t m = x->len < y->len ? x->len : y->len;
    int r = memcmp(x->s, y->s, m);
    if (r)
        return r;
    return (x->len > y->len) - (x->len < y->len);
}

/* Push the keys of the table at t that the table at index (0: none) does
 * not declare, as a list in the order vp.json writes them (key_cmp), or nil
 * when there are none; returns whether it pushed a list. Raises for a key
 * that is neither a string nor a number. */
static int sorted_keys(lua_State *L, int t, int index)
{
    size_t n = 0, cap = 0;
    jkey *keys = NULL;
    int keys_ud = 0; /* the userdata holding keys[] (freed if anything raises) */
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        int kt = lua_type(L, -1);
        if (kt != LUA_TSTRING && kt != LUA_TNUMBER) {
            lua_pushfstring(L, "vp.json: a table key of type %s cannot be written as JSON", lua_typename(L, kt));
            lua_error(L);
        }
        if (index) {
            lua_pushvalue(L, -1);
            int declared = lua_rawget(L, index) != LUA_TNIL && lua_toboolean(L, -1);
            lua_pop(L, 1);
            if (declared)
                continue;
        }
        if (n == cap) { /* the new userdata goes below the iteration's key */
            cap = cap ? cap * 2 : 16;
            jkey *grown = lua_newuserdatauv(L, cap * (sizeof *keys + sizeof(uint32_t)), 0);
            if (n)
                memcpy(grown, keys, n * sizeof *keys);
            keys = grown;
            lua_insert(L, -2);
            if (keys_ud)
                lua_remove(L, keys_ud);
            keys_ud = lua_gettop(L) - 1;
        }
        jkey *k = &keys[n++];
        memset(k, 0, sizeof *k);
        if (kt == LUA_TNUMBER) {
            k->is_num = 1;
            k->is_int = lua_isinteger(L, -1);
            if (k->is_int)
                k->i = lua_tointeger(L, -1);
            else
                k->d = lua_tonumber(L, -1);
        } else {
            k->s = lua_tolstring(L, -1, &k->len);
        }
    }
    if (!n) {
        lua_pushnil(L);
        return 0;
    }
    uint32_t *order = (uint32_t *)(keys + cap);
    for (size_t i = 0; i < n; i++)
        order[i] = (uint32_t)i;
    vp_sort_idx(order, n, key_cmp, keys);
    lua_createtable(L, (int)(n < INT32_MAX ? n : 0), 0);
    for (size_t i = 0; i < n; i++) {
        const jkey *k = &keys[order[i]];
        if (!k->is_num)
            lua_pushlstring(L, k->s, k->len);
        else if (k->is_int)
            lua_pushinteger(L, k->i);
        else
            lua_pushnumber(L, k->d);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_remove(L, keys_ud);
    return 1;
}

static void member(jctx *c, int *first, int key, int v, int shape, int depth)
{
    if (!*first)
        put(c, ",");
    *first = 0;
    if (lua_type(c->L, key) == LUA_TSTRING) {
        quote(c, key);
    } else {
        luaL_tolstring(c->L, key, NULL); /* tostring(k) */
        quote(c, -1);
        lua_pop(c->L, 1);
    }
    put(c, ":");
    encode(c, v, shape, depth);
}

static void encode_object(jctx *c, int t, int shape, int depth)
{
    lua_State *L = c->L;
    int first = 1;
    put(c, "{");
    /* The declared keys, in order; a nil value is null unless optional. */
    int index = 0, rest = 0;
    if (shape) {
        lua_getfield(L, shape, "keys");
        int keys = lua_gettop(L);
        lua_Integer nk = luaL_len(L, keys);
        for (lua_Integer k = 1; k <= nk; k++) {
            lua_geti(L, keys, k);
            int e = lua_gettop(L);
            lua_getfield(L, e, "name");
            lua_pushvalue(L, -1);
            lua_gettable(L, t);
            lua_getfield(L, e, "optional");
            int optional = lua_toboolean(L, -1);
            lua_pop(L, 1);
            if (!lua_isnil(L, -1) || !optional) {
                int sub = lua_getfield(L, e, "shape") == LUA_TTABLE ? lua_gettop(L) : 0;
                member(c, &first, e + 1, e + 2, sub, depth);
                lua_pop(L, 1);
            }
            lua_pop(L, 3); /* e, name, value */
        }
        lua_pop(L, 1); /* keys */
        index = lua_getfield(L, shape, "index") == LUA_TTABLE ? lua_gettop(L) : 0;
        rest = lua_getfield(L, shape, "rest") == LUA_TTABLE ? lua_gettop(L) : 0;
    }
    /* The other keys, sorted. */
    if (sorted_keys(L, t, index)) {
        int keys = lua_gettop(L);
        lua_Integer n = (lua_Integer)lua_rawlen(L, keys);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, keys, i);
            lua_pushvalue(L, -1);
            lua_gettable(L, t);
            int top = lua_gettop(L);
            member(c, &first, top - 1, top, rest, depth);
            lua_pop(L, 2);
        }
    }
    lua_pop(L, 1); /* the keys, or nil */
    if (shape)
        lua_pop(L, 2); /* index, rest */
    put(c, "}");
}

/* The length of t when its keys are exactly 1..n (n >= 1), else 0. */
static lua_Integer sequence_length(lua_State *L, int t)
{
    lua_Integer n = luaL_len(L, t), count = 0;
    if (n <= 0)
        return 0;
    lua_pushnil(L);
    while (lua_next(L, t)) {
        lua_pop(L, 1);
        if (++count > n) {
            lua_pop(L, 1);
            return 0;
        }
    }
    return count == n ? n : 0;
}

static int call_totable(lua_State *L)
{
    lua_getfield(L, 1, "totable");
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    return 1;
}

static void encode(jctx *c, int v, int shape, int depth)
{
    lua_State *L = c->L;
    luaL_checkstack(L, 16, "vp.json: value nested too deeply");
    int t = lua_type(L, v);
    if (t == LUA_TNIL || lua_rawequal(L, v, c->null)) {
        put(c, "null");
    } else if (t == LUA_TBOOLEAN) {
        put(c, lua_toboolean(L, v) ? "true" : "false");
    } else if (t == LUA_TNUMBER) {
        if (lua_isinteger(L, v))
            vp_jbuf_int(c->b, (long long)lua_tointeger(L, v));
        else
            vp_jbuf_double(c->b, (double)lua_tonumber(L, v));
    } else if (t == LUA_TSTRING) {
        quote(c, v);
    } else if (t == LUA_TTABLE) {
        if (depth > MAX_DEPTH)
            fail(L, "vp.json: value nested too deeply (a cycle?)");
        shape_field(L, shape, "kind");
        const char *kind = lua_tostring(L, -1);
        int is_object = kind && !strcmp(kind, "object"), is_list = kind && !strcmp(kind, "list");
        lua_pop(L, 1);
        if (!is_list && !is_object && lua_getmetatable(L, v)) {
            is_list = lua_rawequal(L, -1, c->array_mt);
            lua_pop(L, 1);
        }
        if (is_object) {
            encode_object(c, v, shape, depth + 1);
        } else if (is_list) {
            int item = shape_field(L, shape, "item") == LUA_TTABLE ? lua_gettop(L) : 0;
            encode_list(c, v, item, depth + 1);
            lua_pop(L, 1);
        } else if (sequence_length(L, v)) {
            encode_list(c, v, 0, depth + 1);
        } else {
            encode_object(c, v, 0, depth + 1);
        }
    } else if (t == LUA_TUSERDATA || t == LUA_TLIGHTUSERDATA) {
        /* A userdata with a totable method (a vp.Series) is the list it
         * returns; any other is its tostring(). */
        int listed = 0;
        if (lua_getmetatable(L, v)) {
            lua_pop(L, 1);
            lua_pushcfunction(L, call_totable);
            lua_pushvalue(L, v);
            if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TTABLE) {
                encode_list(c, lua_gettop(L), 0, depth + 1);
                listed = 1;
            }
            lua_pop(L, 1);
        }
        if (!listed) {
            luaL_tolstring(L, v, NULL);
            quote(c, -1);
            lua_pop(L, 1);
        }
    } else {
        lua_pushfstring(L, "vp.json: a %s value cannot be written as JSON", lua_typename(L, t));
        lua_error(L);
    }
}

/* core.encode(value, shape, null, array_mt [, write]) -> the JSON text, or
 * nothing when write is given: write(piece) receives the text in pieces. */
static int l_encode(lua_State *L)
{
    lua_settop(L, 5);
    if (!lua_isnil(L, 2))
        luaL_checktype(L, 2, LUA_TTABLE);
    int write = lua_isnil(L, 5) ? 0 : 5;
    if (write)
        luaL_checktype(L, 5, LUA_TFUNCTION);
    vp_jbuf *b = lua_newuserdatauv(L, sizeof *b, 0);
    memset(b, 0, sizeof *b);
    luaL_setmetatable(L, BUF_MT);
    jctx c = {L, b, 3, 4, write};
    encode(&c, 1, lua_isnil(L, 2) ? 0 : 2, 0);
    if (write) {
        flush(&c);
        return 0;
    }
    check_oom(&c);
    lua_pushlstring(L, b->data ? (const char *)b->data : "", b->len);
    vp_buf_free(b);
    return 1;
}

/* core.keys(t [, declared]) -> the keys of t that the table `declared` does
 * not hold, in the order vp.json writes undeclared keys. */
static int l_keys(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int index = lua_istable(L, 2) ? 2 : 0;
    lua_settop(L, 2);
    if (!sorted_keys(L, 1, index)) {
        lua_pop(L, 1);
        lua_newtable(L);
    }
    return 1;
}

/* core.utf8(s) -> s with each byte that is not part of a valid UTF-8
 * sequence replaced by U+FFFD (s itself when it is valid). */
static int l_utf8(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    size_t i = 0, len;
    while (i < n && (len = vp_utf8_seq((const unsigned char *)s + i, n - i)) != 0)
        i += len;
    if (i == n) {
        lua_settop(L, 1);
        return 1;
    }
    vp_jbuf *b = lua_newuserdatauv(L, sizeof *b, 0);
    memset(b, 0, sizeof *b);
    luaL_setmetatable(L, BUF_MT);
    vp_jbuf_utf8(b, s, n);
    if (b->oom)
        return fail(L, "vp.json: out of memory");
    lua_pushlstring(L, (const char *)b->data, b->len);
    vp_buf_free(b);
    return 1;
}

int vp_l_open_json(lua_State *L)
{
    static const luaL_Reg fns[] = {{"encode", l_encode}, {"keys", l_keys}, {"utf8", l_utf8}, {NULL, NULL}};
    if (luaL_newmetatable(L, BUF_MT)) {
        lua_pushcfunction(L, buf_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_pop(L, 1);
    luaL_newlib(L, fns);
    /* JSON null: a light userdata NULL, the value lua-cjson's null is too,
     * so documents built with either compare equal. */
    lua_pushlightuserdata(L, NULL);
    lua_setfield(L, -2, "null");
    return 1;
}
