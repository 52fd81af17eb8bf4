/* vp.host.sandbox(source, name [, limits]) -> value | nil, message, kind [, where]
 *
 * Runs Lua source that nobody vouches for (a rules file) for the data it
 * returns, in this process: a fresh Lua state of its own, text only, its
 * chunk's environment a table with only what the caller may read, under
 * limits its code can neither catch nor outlast:
 *
 *   - memory: the state's allocator refuses to grow past memory_mb (a 2 GB
 *     string.rep fails with "not enough memory");
 *   - CPU time: a count hook every SANDBOX_HOOK_COUNT instructions, and
 *     every library function the code can call, first read the thread's
 *     CPU clock; past cpu_ms they raise, and from then on the hook raises
 *     at every instruction, so a loop that catches every error ends too.
 *     An instruction budget alone would not do: one instruction can be a
 *     call that copies a 200 MB string. So each call does work bounded by
 *     what the memory limit lets the state hold, and no call can run on
 *     inside C: the pattern functions (string.find, match, gmatch, gsub:
 *     a pattern can backtrack for hours) and table.move (its range is
 *     bounded by nothing the state holds) are left out, string.rep of an
 *     empty string is "" at once, and table.sort's comparisons read the
 *     clock. No library is opened in the environment's own right: strings
 *     have no methods, and the chunk sees no load, require, io, os, debug,
 *     coroutine, setmetatable or raw access.
 *
 * The environment: assert, error, ipairs, next, pairs, pcall, select,
 * tonumber, tostring, type, and math, string and table without the
 * functions above. The value the chunk returns is copied into the caller's
 * state as plain data (numbers keep their integer or float subtype), within
 * bounds on what the caller then holds: at most `values` values and keys,
 * `bytes` bytes of strings in all, `string_bytes` bytes in one string, and
 * tables nested at most SANDBOX_DEPTH deep; a table that contains itself, a
 * function or any other value is refused. kind is "syntax" (the source
 * does not compile), "error" (it raised: the message, at most
 * SANDBOX_MESSAGE bytes), "cpu", "memory", or "value" (what it returned is
 * not such data; `where` lists the keys that lead to the problem). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <lauxlib.h>
#include <lualib.h>

#include "l_formats.h"

#define SANDBOX_HOOK_COUNT 1000
#define SANDBOX_DEPTH 16
#define SANDBOX_MESSAGE 1000

typedef struct sandbox {
    size_t used, limit;    /* bytes the state holds, and may hold */
    struct timespec start; /* the thread's CPU clock when the chunk started */
    long cpu_ms;
    int over;              /* the CPU time is spent */
} sandbox;

static void *sandbox_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    sandbox *sb = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        sb->used -= old;
        return NULL;
    }
    if (nsize > old && nsize - old > sb->limit - sb->used)
        return NULL;
    void *p = realloc(ptr, nsize);
    if (p)
        sb->used = sb->used - old + nsize;
    return p;
}

static sandbox *sandbox_of(lua_State *S)
{
    void *ud;
    lua_getallocf(S, &ud);
    return ud;
}

static void sandbox_hook(lua_State *S, lua_Debug *ar);

/* Raise once the CPU time is spent, and from then on at every instruction. */
static void sandbox_check(lua_State *S)
{
    sandbox *sb = sandbox_of(S);
    if (!sb->over) {
        struct timespec t;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        long ms = (long)(t.tv_sec - sb->start.tv_sec) * 1000 + (t.tv_nsec - sb->start.tv_nsec) / 1000000;
        if (ms <= sb->cpu_ms)
            return;
        sb->over = 1;
        lua_sethook(S, sandbox_hook, LUA_MASKCOUNT, 1);
    }
    luaL_error(S, "out of CPU time");
}

static void sandbox_hook(lua_State *S, lua_Debug *ar)
{
    (void)ar;
    sandbox_check(S);
}

/* A library function, called once the clock allows it. */
static int guarded(lua_State *S)
{
    sandbox_check(S);
    lua_pushvalue(S, lua_upvalueindex(1));
    lua_insert(S, 1);
    lua_call(S, lua_gettop(S) - 1, LUA_MULTRET);
    return lua_gettop(S);
}

/* string.rep: n copies of nothing would loop n times without allocating. */
static int sandbox_rep(lua_State *S)
{
    size_t l, lsep;
    luaL_checklstring(S, 1, &l);
    lua_Integer n = luaL_checkinteger(S, 2);
    luaL_optlstring(S, 3, "", &lsep);
    if (n > 0 && l + lsep == 0) {
        lua_pushliteral(S, "");
        return 1;
    }
    return guarded(S);
}

/* table.sort's comparison: the clock first, then the chunk's own function
 * (upvalue 2) or `<`. */
static int sort_compare(lua_State *S)
{
    sandbox_check(S);
    if (lua_isnil(S, lua_upvalueindex(1))) {
        lua_pushboolean(S, lua_compare(S, 1, 2, LUA_OPLT));
        return 1;
    }
    lua_pushvalue(S, lua_upvalueindex(1));
    lua_insert(S, 1);
    lua_call(S, 2, 1);
    return 1;
}

static int sandbox_sort(lua_State *S)
{
    luaL_checktype(S, 1, LUA_TTABLE);
    lua_settop(S, 2);
    lua_pushcclosure(S, sort_compare, 1);
    return guarded(S);
}

/* pairs without __pairs (the chunk cannot set a metatable), with the
 * guarded next (upvalue 1): one next can scan a whole table. */
static int sandbox_pairs(lua_State *S)
{
    luaL_checktype(S, 1, LUA_TTABLE);
    lua_pushvalue(S, lua_upvalueindex(1));
    lua_pushvalue(S, 1);
    lua_pushnil(S);
    return 3;
}

static int listed(const char *const *names, const char *name)
{
    for (; *names; names++)
        if (strcmp(*names, name) == 0)
            return 1;
    return 0;
}

/* env[name] = a copy of the library table on top (popped): its functions
 * guarded (or wrapped by `special`, when listed there), its constants as
 * they are, the names in `left_out` left out. */
static void library_copy(lua_State *S, int env, const char *name, const char *const *left_out,
                         const char *special, lua_CFunction wrap)
{
    lua_newtable(S);
    lua_pushnil(S);
    while (lua_next(S, -3)) {
        const char *k = lua_tostring(S, -2);
        if (listed(left_out, k)) {
            lua_pop(S, 1);
            continue;
        }
        lua_pushvalue(S, -2);
        lua_insert(S, -2);
        if (lua_iscfunction(S, -1))
            lua_pushcclosure(S, special && strcmp(k, special) == 0 ? wrap : guarded, 1);
        lua_rawset(S, -4);
    }
    lua_setfield(S, env, name);
    lua_pop(S, 1);
}

/* The chunk's environment, built in the sandbox's own state. */
static int sandbox_env(lua_State *S)
{
    static const char *const base[] = {"assert", "error",  "ipairs",   "next",     "pcall",
                                       "select", "tonumber", "tostring", "type", NULL};
    /* Their messages name the caller's line (luaL_where(L, 1)), which a
     * wrapper would hide; each does a bounded amount of work. */
    static const char *const unguarded[] = {"assert", "error", NULL};
    static const char *const no_string[] = {"dump", "find", "gmatch", "gsub", "match", NULL};
    static const char *const no_table[] = {"move", NULL};
    static const char *const none[] = {NULL};
    lua_newtable(S);
    int env = lua_gettop(S);
    luaL_requiref(S, "_G", luaopen_base, 0);
    for (const char *const *n = base; *n; n++) {
        lua_getfield(S, -1, *n);
        if (!listed(unguarded, *n))
            lua_pushcclosure(S, guarded, 1);
        lua_setfield(S, env, *n);
    }
    lua_getfield(S, env, "next");
    lua_pushcclosure(S, sandbox_pairs, 1);
    lua_setfield(S, env, "pairs");
    lua_pop(S, 1);
    luaL_requiref(S, "string", luaopen_string, 0);
    lua_pushliteral(S, "");
    lua_pushnil(S);
    lua_setmetatable(S, -2); /* no methods on strings */
    lua_pop(S, 1);
    library_copy(S, env, "string", no_string, "rep", sandbox_rep);
    luaL_requiref(S, "math", luaopen_math, 0);
    library_copy(S, env, "math", none, NULL, NULL);
    luaL_requiref(S, "table", luaopen_table, 0);
    library_copy(S, env, "table", no_table, "sort", sandbox_sort);
    return 1;
}

/* ---- the value, copied into the caller's state ---------------------------- */

typedef struct copy {
    lua_State *S, *L;
    lua_Integer values, max_values, bytes, max_bytes, max_string;
    const void *open[SANDBOX_DEPTH + 1]; /* the tables being copied, outermost first */
    int keys[SANDBOX_DEPTH + 1];         /* S's stack index of the key at each depth */
    int depth;                           /* keys[0 .. depth - 1] lead to what is copied */
} copy;

/* The problem, pushed on L. */
static int copy_refuse(copy *c, const char *fmt, const char *what, lua_Integer n)
{
    if (what)
        lua_pushfstring(c->L, fmt, what);
    else
        lua_pushfstring(c->L, fmt, n);
    return 0;
}

static int copy_value(copy *c, int idx, int is_key);

/* Keys in one order whatever the hash order of a state: numbers, strings
 * (bytes), booleans, then any other type by its name. */
static int key_rank(lua_State *S, int i)
{
    switch (lua_type(S, i)) {
    case LUA_TNUMBER:
        return 0;
    case LUA_TSTRING:
        return 1;
    case LUA_TBOOLEAN:
        return 2;
    default:
        return 3;
    }
}

static int key_less(lua_State *S)
{
    int a = key_rank(S, 1), b = key_rank(S, 2), less;
    if (a != b) {
        less = a < b;
    } else if (a == 0) {
        less = lua_compare(S, 1, 2, LUA_OPLT);
    } else if (a == 1) {
        size_t la, lb;
        const char *x = lua_tolstring(S, 1, &la), *y = lua_tolstring(S, 2, &lb);
        int d = memcmp(x, y, la < lb ? la : lb);
        less = d < 0 || (d == 0 && la < lb);
    } else if (a == 2) {
        less = !lua_toboolean(S, 1) && lua_toboolean(S, 2);
    } else {
        less = strcmp(luaL_typename(S, 1), luaL_typename(S, 2)) < 0;
    }
    lua_pushboolean(S, less);
    return 1;
}

/* The keys of table 1 other than 1 .. n (2), sorted (run protected: it
 * allocates in the sandbox's state). */
static int keys_sorted(lua_State *S)
{
    lua_Integer n = lua_tointeger(S, 2);
    lua_settop(S, 1);
    lua_newtable(S);
    lua_Integer k = 0;
    lua_pushnil(S);
    while (lua_next(S, 1)) {
        lua_pop(S, 1);
        if (lua_isinteger(S, -1) && lua_tointeger(S, -1) >= 1 && lua_tointeger(S, -1) <= n)
            continue;
        lua_pushvalue(S, -1);
        lua_rawseti(S, 2, ++k);
    }
    luaL_getsubtable(S, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_getfield(S, -1, "table");
    lua_getfield(S, -1, "sort");
    lua_pushvalue(S, 2);
    lua_pushcfunction(S, key_less);
    lua_call(S, 2, 0);
    lua_settop(S, 2);
    return 1;
}

/* Copy the entry whose key and value are on top of S into the table on top
 * of L. */
static int copy_entry(copy *c)
{
    lua_State *S = c->S;
    c->keys[c->depth] = lua_gettop(S) - 1;
    if (!copy_value(c, lua_gettop(S) - 1, 1))
        return 0;
    c->depth++;
    if (!copy_value(c, lua_gettop(S), 0))
        return 0;
    c->depth--;
    lua_rawset(c->L, -3);
    lua_pop(S, 2);
    return 1;
}

/* A table, its entries in an order that does not depend on the state (its
 * sequence, then its other keys sorted), so that the same file gives the
 * same refusal whatever the hash seeds. */
static int copy_table(copy *c, int idx)
{
    lua_State *S = c->S, *L = c->L;
    const void *t = lua_topointer(S, idx);
    for (int i = 0; i < c->depth; i++)
        if (c->open[i] == t)
            return copy_refuse(c, "a table that contains itself", NULL, 0);
    if (c->depth >= SANDBOX_DEPTH)
        return copy_refuse(c, "tables nested more than %I deep", NULL, SANDBOX_DEPTH);
    lua_Integer m = 0;
    lua_pushnil(S);
    while (lua_next(S, idx)) {
        lua_pop(S, 1);
        m++;
    }
    if (c->values + 2 * m > c->max_values)
        return copy_refuse(c, "more than %I values and keys", NULL, c->max_values);
    if (!lua_checkstack(S, 6))
        return copy_refuse(c, "no room on the stack", NULL, 0);
    luaL_checkstack(L, 4, "copying the sandbox's value");
    c->open[c->depth] = t;
    /* The sequence: 1 .. n without a hole (not #t, a border that a few
     * keys can put at 2^40). */
    lua_Integer n = 0;
    while (lua_rawgeti(S, idx, n + 1) != LUA_TNIL) {
        lua_pop(S, 1);
        n++;
    }
    lua_pop(S, 1);
    lua_pushcfunction(S, keys_sorted);
    lua_pushvalue(S, idx);
    lua_pushinteger(S, n);
    if (lua_pcall(S, 2, 1, 0) != LUA_OK)
        return copy_refuse(c, "not enough memory to copy it", NULL, 0);
    int keys = lua_gettop(S);
    lua_newtable(L);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_pushinteger(S, i);
        lua_rawgeti(S, idx, i);
        if (!copy_entry(c))
            return 0;
    }
    lua_Integer nk = (lua_Integer)lua_rawlen(S, keys);
    for (lua_Integer i = 1; i <= nk; i++) {
        lua_rawgeti(S, keys, i);
        lua_pushvalue(S, -1);
        lua_rawget(S, idx);
        if (!copy_entry(c))
            return 0;
    }
    lua_pop(S, 1);
    return 1;
}

/* Push the copy of S's value at idx onto L; 0, the problem on top, when refused. */
static int copy_value(copy *c, int idx, int is_key)
{
    lua_State *S = c->S, *L = c->L;
    if (++c->values > c->max_values)
        return copy_refuse(c, "more than %I values and keys", NULL, c->max_values);
    int t = lua_type(S, idx);
    if (is_key && t != LUA_TNUMBER && t != LUA_TSTRING && t != LUA_TBOOLEAN)
        return copy_refuse(c, "a key that is a %s (keys are numbers, strings and booleans)",
                           lua_typename(S, t), 0);
    switch (t) {
    case LUA_TNUMBER:
        if (lua_isinteger(S, idx))
            lua_pushinteger(L, lua_tointeger(S, idx));
        else
            lua_pushnumber(L, lua_tonumber(S, idx));
        return 1;
    case LUA_TBOOLEAN:
        lua_pushboolean(L, lua_toboolean(S, idx));
        return 1;
    case LUA_TSTRING: {
        size_t n;
        const char *s = lua_tolstring(S, idx, &n);
        if ((lua_Integer)n > c->max_string)
            return copy_refuse(c, "a string of more than %I bytes", NULL, c->max_string);
        c->bytes += (lua_Integer)n;
        if (c->bytes > c->max_bytes)
            return copy_refuse(c, "more than %I bytes of strings", NULL, c->max_bytes);
        lua_pushlstring(L, s, n);
        return 1;
    }
    case LUA_TTABLE:
        return copy_table(c, idx);
    default:
        return copy_refuse(c, "a %s (data is numbers, strings, booleans and tables)", lua_typename(S, t), 0);
    }
}

/* The keys that lead to the refused value, as a list on L. */
static void where_push(const copy *c)
{
    lua_State *S = c->S, *L = c->L;
    lua_createtable(L, c->depth, 0);
    for (int i = 0; i < c->depth; i++) {
        int k = c->keys[i];
        if (lua_type(S, k) == LUA_TSTRING)
            lua_pushstring(L, lua_tostring(S, k));
        else if (lua_isinteger(S, k))
            lua_pushinteger(L, lua_tointeger(S, k));
        else if (lua_type(S, k) == LUA_TNUMBER)
            lua_pushnumber(L, lua_tonumber(S, k));
        else
            lua_pushboolean(L, lua_toboolean(S, k));
        lua_rawseti(L, -2, i + 1);
    }
}

/* ---- vp.host.sandbox ------------------------------------------------------- */

typedef struct run {
    sandbox sb;
    copy c;
    const char *src, *name;
    size_t len;
} run;

/* nil, S's error message (at most SANDBOX_MESSAGE bytes), kind. */
static int run_fail(lua_State *L, lua_State *S, const char *kind)
{
    size_t n = 0;
    const char *msg = lua_type(S, -1) == LUA_TSTRING ? lua_tolstring(S, -1, &n) : NULL;
    lua_pushnil(L);
    if (!msg) {
        lua_pushfstring(L, "(error object is a %s value)", luaL_typename(S, -1));
    } else if (n > SANDBOX_MESSAGE) {
        lua_pushfstring(L, "%s...", lua_pushlstring(L, msg, SANDBOX_MESSAGE));
        lua_remove(L, -2);
    } else {
        lua_pushlstring(L, msg, n);
    }
    lua_pushstring(L, kind);
    return 3;
}

/* Everything that touches the caller's state once the sandbox's exists,
 * protected: an error there must not leak the sandbox. */
static int run_main(lua_State *L)
{
    run *r = lua_touserdata(L, 1);
    lua_State *S = r->c.S;
    lua_pushcfunction(S, sandbox_env);
    if (lua_pcall(S, 0, 1, 0) != LUA_OK)
        return run_fail(L, S, "memory");
    int st = luaL_loadbufferx(S, r->src, r->len, r->name, "t");
    if (st != LUA_OK)
        return run_fail(L, S, st == LUA_ERRMEM ? "memory" : "syntax");
    lua_insert(S, -2);
    lua_setupvalue(S, -2, 1); /* the environment is the chunk's _ENV */
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &r->sb.start);
    lua_sethook(S, sandbox_hook, LUA_MASKCOUNT, SANDBOX_HOOK_COUNT);
    st = lua_pcall(S, 0, 1, 0);
    lua_sethook(S, NULL, 0, 0);
    if (r->sb.over)
        return run_fail(L, S, "cpu");
    if (st != LUA_OK)
        return run_fail(L, S, st == LUA_ERRMEM ? "memory" : "error");
    /* The copy sorts each table's keys in the state: at most `values` of
     * them in all, whatever the chunk left of its memory. */
    r->sb.limit = (size_t)-1;
    if (lua_isnil(S, -1)) {
        lua_pushnil(L); /* nothing returned: for the caller to refuse */
        return 1;
    }
    if (copy_value(&r->c, lua_gettop(S), 0))
        return 1;
    lua_pushnil(L);
    lua_insert(L, -2); /* below the problem copy_refuse pushed */
    lua_pushliteral(L, "value");
    where_push(&r->c);
    return 4;
}

static lua_Integer limit_opt(lua_State *L, const char *k, lua_Integer def, lua_Integer lo, lua_Integer hi)
{
    if (lua_isnoneornil(L, 3))
        return def;
    lua_getfield(L, 3, k);
    int ok;
    lua_Integer v = lua_tointegerx(L, -1, &ok);
    int absent = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (absent)
        return def;
    if (!ok || v < lo || v > hi)
        luaL_error(L, "sandbox: %s must be an integer in %I..%I", k, lo, hi);
    return v;
}

int vp_l_sandbox(lua_State *L)
{
    run r;
    memset(&r, 0, sizeof r);
    r.src = luaL_checklstring(L, 1, &r.len);
    r.name = luaL_checkstring(L, 2);
    if (!lua_isnoneornil(L, 3))
        luaL_checktype(L, 3, LUA_TTABLE);
    r.sb.cpu_ms = (long)limit_opt(L, "cpu_ms", 1000, 1, 3600000);
    r.sb.limit = (size_t)limit_opt(L, "memory_mb", 256, 1, 1 << 20) << 20;
    r.c.max_values = limit_opt(L, "values", 100000, 1, (lua_Integer)1 << 40);
    r.c.max_bytes = limit_opt(L, "bytes", (lua_Integer)1 << 20, 0, (lua_Integer)1 << 40);
    r.c.max_string = limit_opt(L, "string_bytes", 4096, 0, (lua_Integer)1 << 40);
    r.c.L = L;
    lua_settop(L, 2); /* the source and the name stay alive */
    r.c.S = lua_newstate(sandbox_alloc, &r.sb);
    if (!r.c.S)
        return luaL_error(L, "sandbox: not enough memory for a Lua state");
    lua_pushcfunction(L, run_main);
    lua_pushlightuserdata(L, &r);
    int st = lua_pcall(L, 1, LUA_MULTRET, 0);
    lua_close(r.c.S);
    if (st != LUA_OK)
        return lua_error(L);
    return lua_gettop(L) - 2;
}
