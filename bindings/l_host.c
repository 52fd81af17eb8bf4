/* The vp.host module: what a script needs of the process it runs in, for
 * vpscript and a stock lua5.4 alike (require "vp.host": preloaded by
 * luaopen_vp, and luaopen_vp_host in vp.so):
 *
 *   local host = require "vp.host"
 *   host.sandbox(source, name [, limits])   -- l_sandbox.c
 *       -> value | nil, message, kind [, where]
 *   host.spawn(argv [, {stdin =, stdout =, stderr = (files), env = {NAME = value},
 *                       track = t}])   -- t[pid] = true before it returns
 *       -> pid | nil, message          -- a process group of its own
 *   host.wait(pids, timeout_ms) -> pid, status | nil
 *   host.sleep(ms)             -- 0 to 3600000 ms (a signal ends it early)
 *   host.kill(pid, "TERM" | "KILL" | "INT" | "HUP")   -- its process group
 *   host.tmpdir() -> path | nil, message  -- private (0700), in TMPDIR or /tmp
 *   host.isatty(stream)        -- stream: "stdin", "stdout" or "stderr"
 *   host.columns(stream)       -- the terminal's width, or nil */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <lauxlib.h>

#include "core/proc.h"
#include "l_formats.h"

extern char **environ;

/* ---- processes ------------------------------------------------------------ */

/* The descriptor of the file handle opts[name], flushed; -1 when absent. */
static int stream_opt(lua_State *L, int opts, const char *name)
{
    if (lua_isnoneornil(L, opts) || lua_getfield(L, opts, name) == LUA_TNIL) {
        if (!lua_isnoneornil(L, opts))
            lua_pop(L, 1);
        return -1;
    }
    luaL_Stream *s = luaL_checkudata(L, -1, LUA_FILEHANDLE);
    if (!s->closef)
        luaL_error(L, "spawn: %s is a closed file", name);
    fflush(s->f);
    lua_pop(L, 1);
    return fileno(s->f);
}

/* The environment: this process's, with the names of the table at idx
 * replaced or added; the strings are kept in a table left on the stack. */
static char **env_build(lua_State *L, int idx)
{
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    size_t extra = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "spawn: env must map names to strings");
        lua_pop(L, 1);
        extra++;
    }
    char **envp = lua_newuserdatauv(L, (n + extra + 1) * sizeof *envp, 0);
    lua_newtable(L); /* keeps the new strings alive */
    for (size_t i = 0; i < n; i++) {
        const char *eq = strchr(environ[i], '=');
        if (eq) {
            lua_pushlstring(L, environ[i], (size_t)(eq - environ[i]));
            int replaced = lua_rawget(L, idx) != LUA_TNIL;
            lua_pop(L, 1);
            if (replaced)
                continue;
        }
        envp[k++] = environ[i];
    }
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        const char *kv = lua_pushfstring(L, "%s=%s", lua_tostring(L, -2), lua_tostring(L, -1));
        lua_rawseti(L, -4, (lua_Integer)k + 1);
        envp[k++] = (char *)kv;
        lua_pop(L, 1);
    }
    envp[k] = NULL;
    return envp;
}

static int host_spawn(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    if (!lua_isnoneornil(L, 2))
        luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    lua_Integer n = luaL_len(L, 1);
    luaL_argcheck(L, n >= 1 && n < 65536, 1, "a list of 1 to 65535 words");
    char **argv = lua_newuserdatauv(L, (size_t)(n + 1) * sizeof *argv, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        if (lua_rawgeti(L, 1, i) != LUA_TSTRING)
            return luaL_error(L, "spawn: word %d of argv must be a string", (int)i);
        argv[i - 1] = (char *)lua_tostring(L, -1); /* kept alive by argv's table */
        lua_pop(L, 1);
    }
    argv[n] = NULL;
    int fds[3] = {stream_opt(L, 2, "stdin"), stream_opt(L, 2, "stdout"), stream_opt(L, 2, "stderr")};
    char **envp = NULL;
    if (!lua_isnil(L, 2) && lua_getfield(L, 2, "env") != LUA_TNIL) {
        luaL_checktype(L, -1, LUA_TTABLE);
        envp = env_build(L, lua_gettop(L));
    }
    int track = 0;
    if (!lua_isnil(L, 2) && lua_getfield(L, 2, "track") != LUA_TNIL) {
        luaL_checktype(L, -1, LUA_TTABLE);
        track = lua_gettop(L);
    }
    pid_t pid;
    int e = vp_proc_spawn(argv, envp, fds, &pid);
    if (e) {
        lua_pushnil(L);
        lua_pushfstring(L, "cannot start %s: %s", argv[0], strerror(e));
        return 2;
    }
    if (track) {
        lua_pushboolean(L, 1);
        lua_rawseti(L, track, pid);
    }
    lua_pushinteger(L, pid);
    return 1;
}

static int host_wait(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer ms = luaL_checkinteger(L, 2);
    luaL_argcheck(L, ms >= 0 && ms <= 3600000, 2, "0 to 3600000 ms");
    lua_Integer n = luaL_len(L, 1);
    luaL_argcheck(L, n >= 0 && n < 65536, 1, "a list of at most 65535 processes");
    pid_t *pids = lua_newuserdatauv(L, (size_t)n * sizeof *pids + 1, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_rawgeti(L, 1, i);
        int ok;
        lua_Integer p = lua_tointegerx(L, -1, &ok);
        if (!ok || p <= 0)
            return luaL_error(L, "wait: process %d is not a process id", (int)i);
        pids[i - 1] = (pid_t)p;
        lua_pop(L, 1);
    }
    int code;
    long i = vp_proc_wait(pids, (size_t)n, (int)ms, &code);
    if (i < 0)
        return 0;
    lua_pushinteger(L, pids[i]);
    lua_pushinteger(L, code);
    return 2;
}

static int host_sleep(lua_State *L)
{
    lua_Integer ms = luaL_checkinteger(L, 1);
    luaL_argcheck(L, ms >= 0 && ms <= 3600000, 1, "0 to 3600000 ms");
    int code;
    vp_proc_wait(NULL, 0, (int)ms, &code); /* no process: the wait is the sleep */
    return 0;
}

static int host_kill(lua_State *L)
{
    static const char *const names[] = {"TERM", "KILL", "INT", "HUP", NULL};
    static const int sigs[] = {SIGTERM, SIGKILL, SIGINT, SIGHUP};
    lua_Integer pid = luaL_checkinteger(L, 1);
    luaL_argcheck(L, pid > 1, 1, "a process id");
    int sig = sigs[luaL_checkoption(L, 2, NULL, names)];
    if (killpg((pid_t)pid, sig) != 0 && errno != ESRCH) {
        lua_pushnil(L);
        lua_pushfstring(L, "cannot signal process group %d: %s", (int)pid, strerror(errno));
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int host_tmpdir(lua_State *L)
{
    const char *base = getenv("TMPDIR");
    char *path = (char *)lua_pushfstring(L, "%s/vpscript.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(path)) {
        lua_pushnil(L);
        lua_pushfstring(L, "cannot create a temporary directory in %s: %s", base && *base ? base : "/tmp",
                        strerror(errno));
        return 2;
    }
    return 1;
}

/* ---- terminals -------------------------------------------------------------- */

static int stream_fd(lua_State *L, int idx)
{
    static const char *const names[] = {"stdin", "stdout", "stderr", NULL};
    return luaL_checkoption(L, idx, NULL, names);
}

static int host_isatty(lua_State *L)
{
    lua_pushboolean(L, isatty(stream_fd(L, 1)));
    return 1;
}

static int host_columns(lua_State *L)
{
    struct winsize ws;
    int fd = stream_fd(L, 1);
    if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        lua_pushinteger(L, ws.ws_col);
    else
        lua_pushnil(L);
    return 1;
}

int luaopen_vp_host(lua_State *L)
{
    static const luaL_Reg fns[] = {{"sandbox", vp_l_sandbox},
                                   {"spawn", host_spawn},
                                   {"wait", host_wait},
                                   {"sleep", host_sleep},
                                   {"kill", host_kill},
                                   {"tmpdir", host_tmpdir},
                                   {"isatty", host_isatty},
                                   {"columns", host_columns},
                                   {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
