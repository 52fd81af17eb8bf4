/* SIGINT and SIGPIPE. A signal handler may only set flags, so a Ctrl-C (or
 * a closed stdout) while Lua code runs installs a count hook, and the hook
 * raises a prepared error object at the next instruction, where it is safe
 * to touch the state (the technique of lua.c).
 *
 * Handlers and the atexit function take no argument of ours, so what they
 * touch is process-wide, here and nowhere else: the state they may stop,
 * and volatile sig_atomic_t flags. */
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"

const char vp_cli_key_interrupted = 'i';
const char vp_cli_key_pipe = 'p';

/* The state the handlers may stop; NULL once it is being closed. */
static lua_State *volatile sig_L;
/* Set while Lua code runs under vp_cli_chunk_call: only then may a signal
 * stop it. */
static volatile sig_atomic_t sig_running;
/* SIGINT seen while waiting for a line in the REPL. */
static volatile sig_atomic_t sig_int;
/* stdout's reader went away. */
static volatile sig_atomic_t sig_pipe;
/* Why the stop hook fires: 1 interrupt, 2 closed pipe. */
static volatile sig_atomic_t sig_stop_reason;

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

/* The count hook a signal handler installs: raise the prepared error object
 * at the next instruction, where it is safe to touch the state. */
static void hook_stop(lua_State *L, lua_Debug *ar)
{
    (void)ar;
    lua_sethook(L, NULL, 0, 0);
    lua_rawgetp(L, LUA_REGISTRYINDEX,
                sig_stop_reason == 2 ? &vp_cli_key_pipe : &vp_cli_key_interrupted);
    lua_error(L);
}

static void hook_arm(void)
{
    lua_State *L = sig_L;
    if (L && sig_running)
        lua_sethook(L, hook_stop, LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT, 1);
}

static void sigint_set(const vp_cli_ctx *c, void (*handler)(int))
{
    if (!c->sigint_ignored)
        signal_set(SIGINT, handler);
}

static void on_sigint_run(int sig)
{
    /* A second Ctrl-C while the first is pending kills the process. */
    signal_set(sig, SIG_DFL);
    if (sig_stop_reason == 0)
        sig_stop_reason = 1;
    hook_arm();
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
        sig_stop_reason = 2;
        hook_arm();
    }
}

static void at_exit_detach(void)
{
    /* exit() flushes stdio after the atexit handlers; the state may be gone
     * by then (os.exit(n, true)). */
    sig_L = NULL;
    signal(SIGPIPE, SIG_IGN);
}

void vp_cli_signals_start(vp_cli_ctx *c)
{
    struct sigaction old;
    c->sigint_ignored = sigaction(SIGINT, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
    sig_L = c->L;
    atexit(at_exit_detach);
    signal_set(SIGPIPE, on_sigpipe);
}

void vp_cli_signals_stop(void)
{
    sig_L = NULL;
    signal(SIGPIPE, SIG_IGN);
}

void vp_cli_run_begin(vp_cli_ctx *c)
{
    sig_stop_reason = sig_pipe ? 2 : 0;
    sigint_set(c, on_sigint_run);
    sig_running = 1;
    if (sig_pipe)
        hook_arm();
}

void vp_cli_run_end(vp_cli_ctx *c)
{
    sig_running = 0;
    sigint_set(c, SIG_DFL);
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
