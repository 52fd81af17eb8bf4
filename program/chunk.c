/* Running a chunk: under the message handler (a traceback for an error,
 * none for an exit object), with the stop signals armed; the error objects
 * the stop hook raises; reporting an error and the exit status it calls
 * for. What main.c, scripts.c and repl.c share. */
#include <stdio.h>

#include <lauxlib.h>

#include "cli.h"

int vp_cli_exitobj_code(lua_State *L, int idx)
{
    if (lua_type(L, idx) != LUA_TTABLE)
        return -1;
    lua_pushliteral(L, "exit");
    lua_rawget(L, idx < 0 ? idx - 1 : idx);
    int isnum;
    lua_Integer code = lua_tointegerx(L, -1, &isnum);
    lua_pop(L, 1);
    if (!isnum || code < 0 || code > 255)
        return -1;
    lua_pushliteral(L, "message");
    lua_rawget(L, idx < 0 ? idx - 1 : idx);
    int t = lua_type(L, -1);
    lua_pop(L, 1);
    return (t == LUA_TNIL || t == LUA_TSTRING) ? (int)code : -1;
}

const char *vp_cli_exitobj_message(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    lua_pushliteral(L, "message");
    lua_rawget(L, idx);
    const char *m = lua_tostring(L, -1);
    lua_pop(L, 1); /* the string stays alive in the table */
    return (m && *m) ? m : NULL;
}

int vp_cli_is_sentinel(lua_State *L, int idx, const void *key)
{
    idx = lua_absindex(L, idx);
    lua_rawgetp(L, LUA_REGISTRYINDEX, key);
    int same = lua_rawequal(L, idx, -1);
    lua_pop(L, 1);
    return same;
}

static int sentinel_tostring(lua_State *L)
{
    lua_pushliteral(L, "message");
    lua_rawget(L, 1);
    return 1;
}

static void sentinel_create(lua_State *L, const void *key, int code, const char *message)
{
    lua_createtable(L, 0, 2);
    lua_pushinteger(L, code);
    lua_setfield(L, -2, "exit");
    lua_pushstring(L, message);
    lua_setfield(L, -2, "message");
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, sentinel_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_setmetatable(L, -2);
    lua_rawsetp(L, LUA_REGISTRYINDEX, key);
}

void vp_cli_sentinels_create(lua_State *L)
{
    sentinel_create(L, &vp_cli_key_interrupted, EXIT_INTERRUPTED, "interrupted");
    sentinel_create(L, &vp_cli_key_pipe, EXIT_PIPE, "broken pipe");
    sentinel_create(L, &vp_cli_key_terminated, EXIT_TERMINATED, "terminated (SIGTERM)");
    sentinel_create(L, &vp_cli_key_hangup, EXIT_HANGUP, "hangup (SIGHUP)");
}

/* Message handler for every chunk: exit objects pass through untouched (no
 * traceback: the script already said what went wrong); anything else gets a
 * traceback. */
static int msg_handler(lua_State *L)
{
    if (vp_cli_exitobj_code(L, 1) >= 0)
        return 1;
    const char *msg = lua_tostring(L, 1);
    if (!msg) {
        if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
            return 1;
        msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

void vp_cli_message_print(const char *msg)
{
    fflush(stdout);
    fprintf(stderr, "%s: %s\n", PROGNAME, msg);
    fflush(stderr);
}

int vp_cli_error_report(lua_State *L, int fail_code)
{
    int code;
    if (vp_cli_is_sentinel(L, -1, &vp_cli_key_pipe)) {
        code = EXIT_PIPE;
    } else if ((code = vp_cli_exitobj_code(L, -1)) >= 0) {
        const char *m = vp_cli_exitobj_message(L, -1);
        if (m)
            vp_cli_message_print(m);
    } else if (vp_cli_pipe_closed()) {
        code = EXIT_PIPE; /* e.g. assert(io.write(...)) failing on the closed pipe */
    } else {
        const char *msg = lua_tostring(L, -1);
        vp_cli_message_print(msg ? msg : "(error object is not a string)");
        code = fail_code;
    }
    lua_pop(L, 1);
    return code;
}

int vp_cli_chunk_call(vp_cli_ctx *c, int narg, int nres)
{
    lua_State *L = c->L;
    int base = lua_gettop(L) - narg;
    lua_pushcfunction(L, msg_handler);
    lua_insert(L, base);
    vp_cli_run_begin(c);
    int status = lua_pcall(L, narg, nres, base);
    vp_cli_run_end(c);
    lua_remove(L, base);
    return status;
}

