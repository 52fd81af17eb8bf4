/* What the parts of the vpscript program share. The program is split by
 * job:
 *
 *   main.c     startup: the state, -e and -l, the script or the REPL,
 *              the last flush of stdout
 *   chunk.c    running a chunk under the message handler, the stop
 *              signals' error objects, error reports and exit statuses
 *   options.c  the command line: parsing, usage, version
 *   scripts.c  the data directory, finding a script (as given,
 *              VPSCRIPT_PATH, the shipped ones), running it, --list
 *   signals.c  SIGINT, SIGTERM, SIGHUP and SIGPIPE, the hook that stops
 *              running Lua code (in any coroutine), the grace timer
 *   repl.c     the REPL: line reading (readline), history, completion
 *
 * State travels in a vp_cli_ctx passed to every part. The only
 * process-wide mutable state is what a signal handler, atexit or
 * readline's callbacks need, since those take no argument of ours
 * (signals.c, repl.c say which). */
#ifndef VP_CLI_H
#define VP_CLI_H

#include <limits.h>
#include <signal.h>
#include <stdio.h>

#include <lua.h>

#ifndef VP_VERSION
#define VP_VERSION "0.1.0"
#endif
/* Where `make install` puts the stdlib (the directory that holds vp/, where
 * a stock lua5.4 looks too) and the shipped scripts. */
#ifndef VP_LUADIR
#define VP_LUADIR "/usr/local/share/lua/5.4"
#endif
#ifndef VP_SCRIPTDIR
#define VP_SCRIPTDIR "/usr/local/share/vpscript/scripts"
#endif

#define PROGNAME "vpscript"
#define EXIT_SCRIPT 1
#define EXIT_USAGE 2
#define EXIT_INTERRUPTED 130
#define EXIT_TERMINATED (128 + SIGTERM)
#define EXIT_HANGUP (128 + SIGHUP)
/* What a shell reports for a process ended by SIGPIPE: the usual status of
 * a producer whose reader went away. */
#define EXIT_PIPE (128 + SIGPIPE)

typedef struct vp_cli_paths {
    char stdlib[PATH_MAX];
    char scripts[PATH_MAX];
} vp_cli_paths;

typedef struct vp_cli_opts {
    int script;      /* argv index of the script (or first REPL file), 0: none */
    int has_e;       /* -e given: no implicit REPL or stdin script */
    int has_i, has_v, has_E, has_W, has_help, has_list;
    int stdin_script; /* the script is "-" */
} vp_cli_opts;

typedef struct vp_cli_ctx {
    lua_State *L;
    int argc;
    char **argv;
    vp_cli_opts opts;
    vp_cli_paths paths;
    /* SIGINT was ignored when we started (a background job of a script):
     * then it stays ignored, as for any well-behaved program. */
    int sigint_ignored;
    /* The same for SIGTERM and SIGHUP (nohup ignores SIGHUP). */
    int sigterm_ignored, sighup_ignored;
    int repl_ref;     /* the vp.repl module in the registry, or LUA_NOREF */
    int continuation; /* the line being read continues an unfinished chunk */
    char hist_path[PATH_MAX];
    int hist_on;      /* hist_path is read and appended to */
} vp_cli_ctx;

/* ---- chunk.c ------------------------------------------------------------ */

/* Call the function below `narg` arguments under the message handler, with
 * Ctrl-C, SIGTERM and SIGHUP armed to stop it; returns the lua_pcall
 * status. */
int vp_cli_chunk_call(vp_cli_ctx *c, int narg, int nres);
/* Report the error object on top of the stack (popped); return the exit
 * status it calls for. `fail_code` is the status of a plain error. */
int vp_cli_error_report(lua_State *L, int fail_code);
/* The exit status an exit object {exit = 0..255, message = string or nil}
 * (vp.cli's fail/exit) asks for, or -1 when idx holds none. */
int vp_cli_exitobj_code(lua_State *L, int idx);
/* Its message, or NULL when it has none. */
const char *vp_cli_exitobj_message(lua_State *L, int idx);
/* 1 when idx holds the error object registered under key (signals.c). */
int vp_cli_is_sentinel(lua_State *L, int idx, const void *key);
/* Register the error objects the stop hook raises (exit objects with the
 * statuses 130, 141, 143 and 129). */
void vp_cli_sentinels_create(lua_State *L);
/* "vpscript: msg" on stderr, after what stdout holds. */
void vp_cli_message_print(const char *msg);

/* ---- options.c ---------------------------------------------------------- */

/* Returns 0, or EXIT_USAGE after printing what is wrong. */
int vp_cli_args_parse(int argc, char **argv, vp_cli_opts *o);
void vp_cli_usage_print(FILE *f, const vp_cli_paths *p);
void vp_cli_version_print(void);

/* ---- scripts.c ---------------------------------------------------------- */

/* Where stdlib/ and scripts/ are. */
void vp_cli_paths_find(vp_cli_paths *p);
/* package.path and package.cpath: the stdlib first, then the directories
 * of VPSCRIPT_PATH, then LUA_PATH / LUA_CPATH or the default paths, the
 * default without the entries relative to the working directory (after
 * luaL_openlibs with LUA_NOENV set). */
void vp_cli_module_paths(lua_State *L, const vp_cli_ctx *c);
/* --list: every shipped script with its description; the exit status. */
int vp_cli_scripts_list(const vp_cli_paths *p);
/* Find and run the script the options name (or standard input) with the
 * arguments after it; the exit status. */
int vp_cli_script_run(vp_cli_ctx *c);

/* ---- signals.c ---------------------------------------------------------- */

/* Registry keys of the error objects the stop hook raises. */
extern const char vp_cli_key_interrupted, vp_cli_key_pipe, vp_cli_key_terminated,
    vp_cli_key_hangup;

/* Install the SIGPIPE handler and let the handlers reach c->L. */
void vp_cli_signals_start(vp_cli_ctx *c);
/* Replace coroutine.resume and coroutine.wrap by versions that let a stop
 * signal reach the coroutine that runs (after luaL_openlibs). */
void vp_cli_signals_coroutines(lua_State *L);
/* Before the state is closed: the handlers must not touch it any more. */
void vp_cli_signals_stop(void);
/* Lua code is about to run / has run under vp_cli_chunk_call: only in
 * between may a signal stop it. */
void vp_cli_run_begin(vp_cli_ctx *c);
void vp_cli_run_end(vp_cli_ctx *c);
/* While a line is read: Ctrl-C only sets a flag (vp_cli_sigint_seen). */
void vp_cli_sigint_reading(const vp_cli_ctx *c);
/* Ctrl-C back to its default action (ends the process). */
void vp_cli_sigint_default(const vp_cli_ctx *c);
int vp_cli_sigint_seen(void);
void vp_cli_sigint_clear(void);
/* stdout's reader went away. */
int vp_cli_pipe_closed(void);

/* ---- repl.c ------------------------------------------------------------- */

/* Open the captures given (vp.repl.start), then read, evaluate and print
 * until end of input. Returns the exit status. */
int vp_cli_repl_run(vp_cli_ctx *c, int nfiles, char **files);

#endif
