/* SIGINT, SIGTERM, SIGHUP and SIGPIPE. A signal handler may only set
 * flags, so a stop signal (or a closed stdout) while Lua code runs
 * installs a count hook, and the hook raises a prepared error object at
 * the next instruction, where it is safe to touch the state (the technique
 * of lua.c). SIGTERM and SIGHUP stop a script as Ctrl-C does (the script's
 * cleanup runs: vp.multi stops its workers and removes its temporary
 * files), with their own exit statuses, 143 and 129.
 *
 * A hook belongs to one Lua thread. lua.c arms only the main one, so a
 * script looping inside a coroutine never saw its Ctrl-C. Here the
 * coroutine library's resume and wrap are replaced by versions that keep
 * the chain of threads being resumed (main -> A -> B) in a small array the
 * handler can read, and the handler arms every thread of it.
 *
 * No hook fires inside one long C call (a pattern match that backtracks
 * for hours). So a stop signal also starts a grace timer: when the script
 * has not ended VP_STOP_GRACE seconds later, the signal's default action
 * ends the process (in the REPL, which must survive a stopped chunk, a
 * second Ctrl-C does that instead).
 *
 * Handlers and the atexit function take no argument of ours, so what they
 * touch is process-wide, here and nowhere else: the state they may stop,
 * the chain of running threads, and volatile sig_atomic_t flags. */
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>

#include "cli.h"

const char vp_cli_key_interrupted = 'i';
const char vp_cli_key_pipe = 'p';
const char vp_cli_key_terminated = 't';
const char vp_cli_key_hangup = 'h';

/* Seconds a stopped script gets to end by itself. */
#define VP_STOP_GRACE 2
/* Resumes nest at most as deep as the C stack allows (LUAI_MAXCCALLS,
 * 200): deeper chains are not tracked, their outer threads still are. */
#define MAX_CHAIN 256

/* Why the stop hook fires. */
enum { STOP_NONE, STOP_INT, STOP_PIPE, STOP_TERM, STOP_HUP };

/* The state the handlers may stop; NULL once it is being closed. */
static lua_State *volatile sig_L;
/* The coroutines being resumed, outermost first (the main thread is
 * sig_L). Written only outside handlers, slot before count. */
static lua_State *volatile sig_chain[MAX_CHAIN];
static volatile sig_atomic_t sig_chain_n;
/* Set while Lua code runs under vp_cli_chunk_call: only then may a signal
 * stop it. */
static volatile sig_atomic_t sig_running;
/* A run in the REPL: no grace timer. */
static volatile sig_atomic_t sig_in_repl;
/* SIGINT seen while waiting for a line in the REPL. */
static volatile sig_atomic_t sig_int;
/* stdout's reader went away. */
static volatile sig_atomic_t sig_pipe;
/* Why the stop hook fires (STOP_*), and the signal that asked. */
static volatile sig_atomic_t sig_stop_reason;
static volatile sig_atomic_t sig_stop_signal;

static void signal_set(int sig, void (*handler)(int))
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    /* No SA_RESTART: a blocking read in the REPL must see EINTR. */
    sa.sa_flags = 0;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

static const void *stop_key(void)
{
    switch (sig_stop_reason) {
    case STOP_PIPE:
        return &vp_cli_key_pipe;
    case STOP_TERM:
        return &vp_cli_key_terminated;
    case STOP_HUP:
        return &vp_cli_key_hangup;
    default:
        return &vp_cli_key_interrupted;
    }
}

/* The count hook a signal handler installs: raise the prepared error object
 * at the next instruction, where it is safe to touch the state. */
static void hook_stop(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    lua_rawgetp(L, LUA_REGISTRYINDEX, stop_key());
    lua_error(L);
}

static void hook_arm(void)
{
    lua_State *L = sig_L;
    if (!L || !sig_running)
        return;
    int mask = LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT;
    lua_sethook(L, hook_stop, mask, 1);
    sig_atomic_t n = sig_chain_n;
    for (sig_atomic_t i = 0; i < n && i < MAX_CHAIN; i++) {
        lua_State *co = sig_chain[i];
        if (co)
            lua_sethook(co, hook_stop, mask, 1);
    }
}

/* The grace period is over: the signal's own default action ends the
 * process (for a closed pipe, SIGPIPE's). */
static void on_grace_over(int sig)
{
    (void)sig;
    int stop = sig_stop_signal ? (int)sig_stop_signal : SIGPIPE;
    static const char msg[] = PROGNAME ": the script did not stop: ended\n";
    if (stop != SIGPIPE) {
        ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
        (void)w;
    }
    signal_set(stop, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, stop);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(stop);
    _exit(128 + stop);
}

static void stop_request(int reason, int sig)
{
    if (sig_stop_reason == STOP_NONE) {
        sig_stop_reason = reason;
        sig_stop_signal = sig;
        if (sig_running && !sig_in_repl) {
            signal_set(SIGALRM, on_grace_over);
            alarm(VP_STOP_GRACE);
        }
    }
    hook_arm();
}

static void on_stop_signal(int sig)
{
    /* A second one while the first is pending kills the process. */
    signal_set(sig, SIG_DFL);
    stop_request(sig == SIGTERM ? STOP_TERM : sig == SIGHUP ? STOP_HUP : STOP_INT, sig);
}

static void on_sigint_read(int sig)
{
    (void)sig;
    sig_int = 1;
}

/* Only a broken stdout ends the program: a write to some other pipe (a
 * popen'ed command that exited) just fails with EPIPE as usual. */
static void on_sigpipe(int sig)
{
    (void)sig;
    struct pollfd pfd = {.fd = STDOUT_FILENO, .events = POLLOUT, .revents = 0};
    if (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR)) {
        sig_pipe = 1;
        stop_request(STOP_PIPE, 0);
    }
}

static void at_exit_detach(void)
{
    /* exit() flushes stdio after the atexit handlers; the state may be gone
     * by then (os.exit(n, true)). */
    sig_L = NULL;
    signal(SIGPIPE, SIG_IGN);
}

/* ---- the coroutine library, with the chain kept --------------------------- */

static int chain_push(lua_State *co)
{
    sig_atomic_t n = sig_chain_n;
    if (n >= MAX_CHAIN)
        return 0;
    sig_chain[n] = co;
    sig_chain_n = n + 1;
    /* A stop that came before this thread was on the chain reaches it too. */
    if (sig_stop_reason != STOP_NONE && sig_running)
        hook_arm();
    return 1;
}

static void chain_pop(void)
{
    sig_atomic_t n = sig_chain_n;
    if (n > 0) {
        sig_chain_n = n - 1;
        sig_chain[n - 1] = NULL;
    }
}

/* The library's resume (upvalue 1), with the coroutine on the chain while
 * it runs. It raises nothing once its argument is a thread: errors inside
 * come back as false, message. */
static int co_resume(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTHREAD); /* the message Lua's resume gives */
    int pushed = chain_push(lua_tothread(L, 1));
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    if (pushed)
        chain_pop();
    return lua_gettop(L);
}

/* A function the library's wrap made (upvalue 1), its coroutine (upvalue
 * 2) on the chain while it runs. An error inside is raised again here, the
 * position of this function's caller in front of a message, as the
 * library's own does for its caller (which here is this function). */
static int co_wrapped(lua_State *L)
{
    int pushed = chain_push(lua_tothread(L, lua_upvalueindex(2)));
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    int status = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
    if (pushed)
        chain_pop();
    if (status == LUA_OK)
        return lua_gettop(L);
    if (status != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

static int co_wrap(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_settop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 1, 1);
    lua_getupvalue(L, 1, 1); /* the coroutine the library's function resumes */
    lua_pushcclosure(L, co_wrapped, 2);
    return 1;
}

void vp_cli_signals_coroutines(lua_State *L)
{
    static const luaL_Reg fns[] = {{"resume", co_resume}, {"wrap", co_wrap}, {NULL, NULL}};
    if (lua_getglobal(L, "coroutine") == LUA_TTABLE) {
        for (const luaL_Reg *f = fns; f->name; f++) {
            lua_getfield(L, -1, f->name);
            lua_pushcclosure(L, f->func, 1);
            lua_setfield(L, -2, f->name);
        }
    }
    lua_pop(L, 1);
}

/* ---- the program's side ------------------------------------------------------ */

static int ignored_at_start(int sig)
{
    struct sigaction old;
    return sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
}

void vp_cli_signals_start(vp_cli_ctx *c)
{
    c->sigint_ignored = ignored_at_start(SIGINT);
    c->sigterm_ignored = ignored_at_start(SIGTERM);
    c->sighup_ignored = ignored_at_start(SIGHUP);
    sig_L = c->L;
    atexit(at_exit_detach);
    signal_set(SIGPIPE, on_sigpipe);
}

void vp_cli_signals_stop(void)
{
    sig_L = NULL;
    signal(SIGPIPE, SIG_IGN);
}

static void sigint_set(const vp_cli_ctx *c, void (*handler)(int))
{
    if (!c->sigint_ignored)
        signal_set(SIGINT, handler);
}

static void stop_signals_set(const vp_cli_ctx *c, void (*handler)(int))
{
    sigint_set(c, handler);
    if (!c->sigterm_ignored)
        signal_set(SIGTERM, handler);
    if (!c->sighup_ignored)
        signal_set(SIGHUP, handler);
}

void vp_cli_run_begin(vp_cli_ctx *c)
{
    sig_stop_reason = sig_pipe ? STOP_PIPE : STOP_NONE;
    sig_stop_signal = 0;
    sig_in_repl = c->repl_ref != LUA_NOREF;
    sig_chain_n = 0;
    stop_signals_set(c, on_stop_signal);
    sig_running = 1;
    if (sig_pipe)
        hook_arm();
}

void vp_cli_run_end(vp_cli_ctx *c)
{
    sig_running = 0;
    alarm(0);
    stop_signals_set(c, SIG_DFL);
    /* A signal that came after the chunk's last instruction must not stop
     * the next one; a hook the script set for itself is its own business. */
    if (lua_gethook(c->L) == hook_stop)
        lua_sethook(c->L, NULL, 0, 0);
}

void vp_cli_sigint_reading(const vp_cli_ctx *c)
{
    sigint_set(c, on_sigint_read);
}

void vp_cli_sigint_default(const vp_cli_ctx *c)
{
    sigint_set(c, SIG_DFL);
}

int vp_cli_sigint_seen(void)
{
    return sig_int != 0;
}

void vp_cli_sigint_clear(void)
{
    sig_int = 0;
}

int vp_cli_pipe_closed(void)
{
    return sig_pipe != 0;
}
