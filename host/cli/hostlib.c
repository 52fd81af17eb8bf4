/* The vp.host module: what only the vpscript program can offer its scripts,
 * preloaded as package.preload["vp.host"] (a stock lua5.4 with vp.so has no
 * such module; the stdlib falls back without it):
 *
 *   local host = require "vp.host"
 *   host.isolate(driver, input [, {cpu_ms =, memory_mb =}])
 *       -> true, output | nil, message, kind
 *   host.isatty(stream)        -- stream: "stdin", "stdout" or "stderr"
 *   host.columns(stream)       -- the terminal's width, or nil
 *
 * isolate runs untrusted Lua code where it can do no harm: in a child
 * process (fork), in a fresh Lua state with every standard library, under
 * limits the code cannot catch or escape:
 *   - CPU time: a profiling timer (SIGPROF) at cpu_ms of CPU time, with
 *     RLIMIT_CPU behind it, kills the child whatever it runs, a loop that
 *     catches every error as much as a pattern match backtracking inside C,
 *     where no hook fires; the parent also kills it after a wall-clock
 *     margin;
 *   - memory: the child's allocator refuses to grow the state past
 *     memory_mb (a 2 GB string.rep fails with "not enough memory"; a loop
 *     that catches that runs into the CPU limit). RLIMIT_AS would be
 *     simpler but refuses the address space an ASan build reserves.
 * `driver` is Lua source, loaded in the child and called with `input`; it
 * returns a string, sent back over a pipe. The driver is the caller's own
 * trusted code (vp.gate's rules loader): it decides what the untrusted
 * code may see. kind is "error" (the driver raised: message), "memory",
 * "cpu", "output" (more than 64 MB back), "crash" (another signal) or
 * "interrupted" (a stop signal reached the parent while it waited; the
 * stop is raised at the next instruction). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lualib.h>

#include "cli/cli.h"

#define ISOLATE_MAX_OUTPUT ((size_t)64 << 20)

/* ---- the child ----------------------------------------------------------- */

typedef struct capped {
    size_t used, limit;
} capped;

static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    capped *c = ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        c->used -= old;
        return NULL;
    }
    if (nsize > old && nsize - old > c->limit - c->used)
        return NULL;
    void *p = realloc(ptr, nsize);
    if (p)
        c->used = c->used - old + nsize;
    return p;
}

static void write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            _exit(4);
        p += w;
        n -= (size_t)w;
    }
}

typedef struct child_args {
    const char *driver, *input;
    size_t dlen, ilen;
} child_args;

static int child_pmain(lua_State *L)
{
    const child_args *a = lua_touserdata(L, 1);
    luaL_openlibs(L);
    if (luaL_loadbuffer(L, a->driver, a->dlen, "=isolate") != LUA_OK)
        return lua_error(L);
    lua_pushlstring(L, a->input, a->ilen);
    lua_call(L, 1, 1);
    if (!lua_isstring(L, -1))
        return luaL_error(L, "the isolated driver returned %s, not a string", luaL_typename(L, -1));
    return 1;
}

static void child_run(int fd, const child_args *a, long cpu_ms, size_t mem)
{
    /* Default dispositions: a stop signal or the timers end the child. */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGALRM, SIGPROF, SIGXCPU};
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        signal(sigs[i], SIG_DFL);
    alarm(0);
    struct itimerval it;
    memset(&it, 0, sizeof it);
    it.it_value.tv_sec = cpu_ms / 1000;
    it.it_value.tv_usec = (cpu_ms % 1000) * 1000;
    setitimer(ITIMER_PROF, &it, NULL);
    struct rlimit rl;
    rl.rlim_cur = (rlim_t)(cpu_ms / 1000 + 2);
    rl.rlim_max = rl.rlim_cur + 1;
    setrlimit(RLIMIT_CPU, &rl);

    capped cap = {0, mem};
    lua_State *L = lua_newstate(capped_alloc, &cap);
    if (!L)
        _exit(3);
    lua_pushcfunction(L, child_pmain);
    lua_pushlightuserdata(L, (void *)a);
    int st = lua_pcall(L, 1, 1, 0);
    size_t n;
    const char *s = lua_tolstring(L, -1, &n);
    char tag = st == LUA_OK ? 'R' : st == LUA_ERRMEM ? 'M' : 'E';
    if (!s) {
        s = "(error object is not a string)";
        n = strlen(s);
    }
    write_all(fd, &tag, 1);
    write_all(fd, s, n);
    _exit(0);
}

/* ---- the parent ------------------------------------------------------------ */

static long opt_integer(lua_State *L, int idx, const char *k, long def, long lo, long hi)
{
    if (lua_isnoneornil(L, idx))
        return def;
    lua_getfield(L, idx, k);
    int ok;
    lua_Integer v = lua_tointegerx(L, -1, &ok);
    int absent = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (absent)
        return def;
    if (!ok || v < lo || v > hi)
        luaL_error(L, "isolate: %s must be an integer in %d..%d", k, (int)lo, (int)hi);
    return (long)v;
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int isolate_fail(lua_State *L, const char *kind, const char *fmt, long v)
{
    lua_pushnil(L);
    lua_pushfstring(L, fmt, (int)v);
    lua_pushstring(L, kind);
    return 3;
}

static int host_isolate(lua_State *L)
{
    child_args a;
    a.driver = luaL_checklstring(L, 1, &a.dlen);
    a.input = luaL_checklstring(L, 2, &a.ilen);
    if (!lua_isnoneornil(L, 3))
        luaL_checktype(L, 3, LUA_TTABLE);
    long cpu_ms = opt_integer(L, 3, "cpu_ms", 1000, 10, 3600000);
    long mem_mb = opt_integer(L, 3, "memory_mb", 256, 1, 1 << 20);

    int fds[2];
    if (pipe(fds) != 0)
        return luaL_error(L, "isolate: cannot create a pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        return luaL_error(L, "isolate: cannot start a process: %s", strerror(e));
    }
    if (pid == 0) {
        close(fds[0]);
        child_run(fds[1], &a, cpu_ms, (size_t)mem_mb << 20);
    }
    close(fds[1]);

    /* Read everything the child says, under a wall-clock limit: CPU time
     * is the limit that counts, the margin covers a loaded machine. */
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    size_t got = 0;
    long deadline = now_ms() + 4 * cpu_ms + 2000;
    const char *why = NULL;
    for (;;) {
        long left = deadline - now_ms();
        if (left <= 0) {
            why = "cpu";
            break;
        }
        struct pollfd pfd = {.fd = fds[0], .events = POLLIN, .revents = 0};
        int r = poll(&pfd, 1, (int)(left > 1000 ? 1000 : left));
        if (r < 0 && errno == EINTR) {
            if (vp_cli_stop_pending()) {
                why = "interrupted";
                break;
            }
            continue;
        }
        if (r <= 0)
            continue;
        char buf[8192];
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
        if (got > ISOLATE_MAX_OUTPUT) {
            why = "output";
            break;
        }
        luaL_addlstring(&b, buf, (size_t)n);
    }
    close(fds[0]);
    if (why)
        kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    luaL_pushresult(&b);
    if (why && strcmp(why, "output") == 0)
        return isolate_fail(L, why, "it returned more than %d MB", (long)(ISOLATE_MAX_OUTPUT >> 20));
    if (why && strcmp(why, "interrupted") == 0)
        return isolate_fail(L, why, "interrupted", 0);
    if (why || (WIFSIGNALED(status) && (WTERMSIG(status) == SIGPROF ||
                                        WTERMSIG(status) == SIGXCPU)))
        return isolate_fail(L, "cpu", "it ran for more than %d ms of CPU time", cpu_ms);
    if (WIFSIGNALED(status))
        return isolate_fail(L, "crash", "its process died of signal %d", WTERMSIG(status));
    size_t n;
    const char *out = lua_tolstring(L, -1, &n);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || n == 0)
        return isolate_fail(L, "crash", "its process ended with status %d",
                            WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    if (out[0] == 'M')
        return isolate_fail(L, "memory", "it needed more than %d MB of memory", mem_mb);
    if (out[0] == 'E') {
        lua_pushnil(L);
        lua_pushlstring(L, out + 1, n - 1);
        lua_pushliteral(L, "error");
        return 3;
    }
    lua_pushboolean(L, 1);
    lua_pushlstring(L, out + 1, n - 1);
    return 2;
}

/* ---- terminals ----------------------------------------------------------------- */

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

static int luaopen_vp_host(lua_State *L)
{
    static const luaL_Reg fns[] = {{"isolate", host_isolate},
                                   {"isatty", host_isatty},
                                   {"columns", host_columns},
                                   {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}

void vp_cli_hostlib_preload(lua_State *L)
{
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
    lua_pushcfunction(L, luaopen_vp_host);
    lua_setfield(L, -2, "vp.host");
    lua_pop(L, 1);
}
