/* vpscript: the host program. Embeds Lua 5.4 with the `vp` module, runs a
 * script the way the `lua` command does (options, `arg`, message handler
 * with a traceback), finds scripts along VPSCRIPT_PATH and among the shipped
 * ones, and provides the REPL (readline, history, completion through the Lua
 * module vp.repl).
 *
 * This file and the bindings are the only C that sees lua.h; the Makefile
 * links every other host/ C file into vp.so and the fuzzers, so the Lua-facing
 * host code stays here in one file. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "../../bindings/l_formats.h"

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
#define HISTORY_MAX 1000
#define EXIT_SCRIPT 1
#define EXIT_USAGE 2
#define EXIT_INTERRUPTED 130
/* What a shell reports for a process ended by SIGPIPE: the usual status of
 * a producer whose reader went away. */
#define EXIT_PIPE (128 + SIGPIPE)

typedef struct host_paths {
    char stdlib[PATH_MAX];
    char scripts[PATH_MAX];
} host_paths;

typedef struct host_opts {
    int script;      /* argv index of the script (or first REPL file), 0: none */
    int has_e;       /* -e given: no implicit REPL or stdin script */
    int has_i, has_v, has_E, has_W, has_help, has_list;
    int stdin_script; /* the script is "-" */
} host_opts;

/* The state the signal handlers may touch; NULL once it is being closed. */
static lua_State *volatile g_L;
/* Set while Lua code runs under chunk_call: only then may a signal stop it. */
static volatile sig_atomic_t g_running;
/* SIGINT seen while waiting for a line in the REPL. */
static volatile sig_atomic_t g_sigint;
/* stdout's reader went away. */
static volatile sig_atomic_t g_pipe;
/* SIGINT was ignored when we started (a background job of a script): then
 * it stays ignored, as for any well-behaved program. */
static int g_sigint_ignored;
/* Why the stop hook fires: 1 interrupt, 2 closed pipe. */
static volatile sig_atomic_t g_stop_reason;

/* Registry keys of the two error objects the stop hook raises. */
static const char key_interrupted = 'i';
static const char key_pipe = 'p';
static int g_repl_ref = LUA_NOREF;

/* ------------------------------------------------------------------ */
/* signals                                                            */

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
    lua_rawgetp(L, LUA_REGISTRYINDEX, g_stop_reason == 2 ? &key_pipe : &key_interrupted);
    lua_error(L);
}

static void hook_arm(void)
{
    lua_State *L = g_L;
    if (L && g_running)
        lua_sethook(L, hook_stop, LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT, 1);
}

static void sigint_set(void (*handler)(int))
{
    if (!g_sigint_ignored)
        signal_set(SIGINT, handler);
}

static void on_sigint_run(int sig)
{
    /* A second Ctrl-C while the first is pending kills the process. */
    signal_set(sig, SIG_DFL);
    if (g_stop_reason == 0)
        g_stop_reason = 1;
    hook_arm();
}

static void on_sigint_read(int sig)
{
    (void)sig;
    g_sigint = 1;
}

/* Only a broken stdout ends the program: a write to some other pipe (a
 * popen'ed command that exited) just fails with EPIPE as usual. */
static void on_sigpipe(int sig)
{
    (void)sig;
    struct pollfd pfd = {.fd = STDOUT_FILENO, .events = POLLOUT, .revents = 0};
    if (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR)) {
        g_pipe = 1;
        g_stop_reason = 2;
        hook_arm();
    }
}

static void at_exit_detach(void)
{
    /* exit() flushes stdio after the atexit handlers; the state may be gone
     * by then (os.exit(n, true)). */
    g_L = NULL;
    signal(SIGPIPE, SIG_IGN);
}

/* ------------------------------------------------------------------ */
/* error objects and reporting                                        */

/* An error object {exit = integer 0..255, message = string or nil}, raised
 * by vp.cli's fail/exit: the script chose its exit status. */
static int exitobj_code(lua_State *L, int idx)
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

static const char *exitobj_message(lua_State *L, int idx)
{
    idx = lua_absindex(L, idx);
    lua_pushliteral(L, "message");
    lua_rawget(L, idx);
    const char *m = lua_tostring(L, -1);
    lua_pop(L, 1); /* the string stays alive in the table */
    return (m && *m) ? m : NULL;
}

static int is_sentinel(lua_State *L, int idx, const void *key)
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

/* Message handler for every chunk: exit objects pass through untouched (no
 * traceback: the script already said what went wrong); anything else gets a
 * traceback. */
static int msg_handler(lua_State *L)
{
    if (exitobj_code(L, 1) >= 0)
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

static void message_print(const char *msg)
{
    fflush(stdout);
    fprintf(stderr, "%s: %s\n", PROGNAME, msg);
    fflush(stderr);
}

/* Report the error object on top of the stack (popped); return the exit
 * status it calls for. `fail_code` is the status of a plain error. */
static int error_report(lua_State *L, int fail_code)
{
    int code;
    if (is_sentinel(L, -1, &key_pipe)) {
        code = EXIT_PIPE;
    } else if ((code = exitobj_code(L, -1)) >= 0) {
        const char *m = exitobj_message(L, -1);
        if (m)
            message_print(m);
    } else if (g_pipe) {
        code = EXIT_PIPE; /* e.g. assert(io.write(...)) failing on the closed pipe */
    } else {
        const char *msg = lua_tostring(L, -1);
        message_print(msg ? msg : "(error object is not a string)");
        code = fail_code;
    }
    lua_pop(L, 1);
    return code;
}

/* Call the function below `narg` arguments under the message handler, with
 * Ctrl-C armed to stop it. */
static int chunk_call(lua_State *L, int narg, int nres)
{
    int base = lua_gettop(L) - narg;
    lua_pushcfunction(L, msg_handler);
    lua_insert(L, base);
    g_stop_reason = g_pipe ? 2 : 0;
    sigint_set(on_sigint_run);
    g_running = 1;
    if (g_pipe)
        hook_arm();
    int status = lua_pcall(L, narg, nres, base);
    g_running = 0;
    sigint_set(SIG_DFL);
    /* A signal that came after the chunk's last instruction must not stop
     * the next one; a hook the script set for itself is its own business. */
    if (lua_gethook(L) == hook_stop)
        lua_sethook(L, NULL, 0, 0);
    lua_remove(L, base);
    return status;
}

/* ------------------------------------------------------------------ */
/* paths                                                              */

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

static int path_join(char *out, size_t n, const char *dir, const char *name)
{
    int k = snprintf(out, n, "%s/%s", dir, name);
    return k > 0 && (size_t)k < n;
}

/* The stdlib (the directory holding vp/) and the shipped scripts, found from
 * the binary's own directory: the build tree (./vpscript, or
 * build/asan/vpscript two levels down), an installed tree (PREFIX/bin with
 * PREFIX/share/lua/5.4 and PREFIX/share/vpscript/scripts, wherever PREFIX
 * was moved to, DESTDIR included), else where the build said. */
static void paths_find(host_paths *p)
{
    static const struct {
        const char *stdlib, *scripts;
    } rel[] = {
        {"stdlib", "scripts"},
        {"../../stdlib", "../../scripts"},
        {"../share/lua/5.4", "../share/vpscript/scripts"},
    };
    char exe[PATH_MAX], probe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
            int k = snprintf(probe, sizeof probe, "%s/%s/vp", exe, rel[i].stdlib);
            if (k <= 0 || (size_t)k >= sizeof probe || !is_dir(probe))
                continue;
            probe[k - 3] = '\0';
            if (!realpath(probe, p->stdlib))
                continue;
            k = snprintf(probe, sizeof probe, "%s/%s", exe, rel[i].scripts);
            if (k > 0 && (size_t)k < sizeof probe && realpath(probe, p->scripts))
                return;
        }
    }
    snprintf(p->stdlib, sizeof p->stdlib, "%s", VP_LUADIR);
    snprintf(p->scripts, sizeof p->scripts, "%s", VP_SCRIPTDIR);
}

/* ------------------------------------------------------------------ */
/* usage, version, --list                                             */

static void version_print(void)
{
    printf("%s %s (%s)\n", PROGNAME, VP_VERSION, LUA_RELEASE);
}

static void usage_print(FILE *f, const host_paths *p)
{
    fprintf(f,
            "usage: %s [options] [script [args]]\n"
            "       %s -i [capture...]\n"
            "\n"
            "Run a Lua analysis script over game-profiler captures (the `vp` module is\n"
            "loaded and set as a global), or explore captures in the REPL.\n"
            "\n"
            "options:\n"
            "  -e stat        execute the Lua statement 'stat'\n"
            "  -l mod         require module 'mod' into global 'mod'\n"
            "  -l g=mod       require module 'mod' into global 'g'\n"
            "  -i             start the REPL; each capture given is opened as `cap`\n"
            "                 (and cap1, cap2, ... when several)\n"
            "  -v, --version  print the version\n"
            "  -h, --help     print this help and exit\n"
            "  --list         list the shipped scripts and what each one does\n"
            "  -W             turn Lua warnings on\n"
            "  -E             ignore LUA_PATH, LUA_CPATH and VPSCRIPT_PATH\n"
            "  --             stop handling options\n"
            "  -              run standard input as the script\n"
            "\n"
            "Options -e and -l run in the order given, before the script. Without\n"
            "arguments, %s starts the REPL when standard input is a terminal and\n"
            "runs standard input as a script otherwise.\n"
            "\n"
            "The script is looked up as given, then in each directory of\n"
            "VPSCRIPT_PATH (colon-separated), then among the shipped scripts; the\n"
            "'.lua' suffix may be left out there (`%s hitches cap.vprof`).\n"
            "The script sees its arguments in `arg` (arg[0] is the script) and as `...`.\n"
            "\n"
            "exit status: 0 success, 1 script error, 2 usage error or unreadable or\n"
            "malformed input, 3 a gate failed, 130 interrupted.\n"
            "\n"
            "environment:\n"
            "  VPSCRIPT_PATH     directories searched for scripts\n"
            "  VPSCRIPT_HISTORY  REPL history file (default ~/.vpscript_history)\n"
            "  LUA_PATH, LUA_CPATH  as for lua5.4; the stdlib comes first\n"
            "\n"
            "stdlib:  %s\n"
            "scripts: %s\n",
            PROGNAME, PROGNAME, PROGNAME, PROGNAME, p->stdlib, p->scripts);
}

static void usage_error(const char *fmt, const char *what)
{
    fprintf(stderr, "%s: ", PROGNAME);
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\nusage: %s [options] [script [args]]  (try '%s --help')\n", PROGNAME,
            PROGNAME);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The one-line description of a shipped script is its first line, written
 * `-- name.lua: what it does`. */
static const char *script_description(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    char *line = fgets(buf, (int)n, f);
    fclose(f);
    if (!line || strncmp(line, "--", 2) != 0)
        return NULL;
    line[strcspn(line, "\r\n")] = '\0';
    char *colon = strchr(line, ':');
    if (!colon)
        return NULL;
    char *d = colon + 1;
    while (*d == ' ' || *d == '\t')
        d++;
    return *d ? d : NULL;
}

static int scripts_list(const host_paths *p)
{
    DIR *d = opendir(p->scripts);
    if (!d) {
        fprintf(stderr, "%s: cannot list the shipped scripts in %s: %s\n", PROGNAME, p->scripts,
                strerror(errno));
        return EXIT_USAGE;
    }
    char **names = NULL;
    size_t count = 0, cap = 0, width = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || len < 5 || strcmp(e->d_name + len - 4, ".lua") != 0)
            continue;
        if (count == cap) {
            size_t ncap = cap ? cap * 2 : 32;
            char **nn = realloc(names, ncap * sizeof *nn);
            if (!nn)
                break;
            names = nn;
            cap = ncap;
        }
        if (!(names[count] = strdup(e->d_name)))
            break;
        count++;
        if (len > width)
            width = len;
    }
    closedir(d);
    if (count)
        qsort(names, count, sizeof *names, name_cmp);
    for (size_t i = 0; i < count; i++) {
        char path[PATH_MAX], buf[512];
        const char *desc = NULL;
        if (path_join(path, sizeof path, p->scripts, names[i]))
            desc = script_description(path, buf, sizeof buf);
        printf("%-*s  %s\n", (int)width, names[i],
               desc ? desc : "(no description: its first line should read '-- name.lua: ...')");
        free(names[i]);
    }
    free(names);
    return 0;
}

/* ------------------------------------------------------------------ */
/* arguments                                                          */

/* Returns 0, or EXIT_USAGE after printing what is wrong. */
static int args_parse(int argc, char **argv, host_opts *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-') {
            o->script = i;
            return 0;
        }
        if (a[1] == '\0') {
            o->script = i;
            o->stdin_script = 1;
            return 0;
        }
        if (strcmp(a, "--") == 0) {
            /* After "--", even "-" names a file. */
            o->script = i + 1 < argc ? i + 1 : 0;
            return 0;
        }
        if (strcmp(a, "--version") == 0) {
            o->has_v = 1;
        } else if (strcmp(a, "--help") == 0) {
            o->has_help = 1;
        } else if (strcmp(a, "--list") == 0) {
            o->has_list = 1;
        } else if (a[1] == 'e' || a[1] == 'l') {
            /* As for lua, -e means "nothing more to do"; -l does not. */
            o->has_e |= a[1] == 'e';
            if (a[2] == '\0' && (++i >= argc || argv[i][0] == '-')) {
                usage_error("'%s' needs an argument", a);
                return EXIT_USAGE;
            }
        } else if (a[2] != '\0' || !strchr("ivhEW", a[1])) {
            usage_error("unrecognized option '%s'", a);
            return EXIT_USAGE;
        } else if (a[1] == 'i') {
            o->has_i = 1;
        } else if (a[1] == 'v') {
            o->has_v = 1;
        } else if (a[1] == 'h') {
            o->has_help = 1;
        } else if (a[1] == 'E') {
            o->has_E = 1;
        } else {
            o->has_W = 1;
        }
    }
    return 0;
}

/* The global `arg` as lua sets it: the script at 0, its arguments at 1..n,
 * the interpreter and its options at negative indices. Without a script
 * (REPL, implicit stdin) everything is at 0..argc-1. */
static void args_table(lua_State *L, int argc, char **argv, int script)
{
    lua_createtable(L, argc - script, script + 1);
    for (int i = 0; i < argc; i++) {
        lua_pushstring(L, argv[i]);
        lua_rawseti(L, -2, (lua_Integer)i - script);
    }
    lua_setglobal(L, "arg");
}

static void path_prepend(lua_State *L, const host_paths *p)
{
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "path");
    lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;%s", p->stdlib, p->stdlib, lua_tostring(L, -1));
    lua_setfield(L, -3, "path");
    lua_pop(L, 2);
}

/* ------------------------------------------------------------------ */
/* running code                                                       */

static int chunk_run_string(lua_State *L, const char *code)
{
    if (luaL_loadbuffer(L, code, strlen(code), "=(command line)") != LUA_OK)
        return error_report(L, EXIT_USAGE);
    return chunk_call(L, 0, 0) == LUA_OK ? 0 : error_report(L, EXIT_SCRIPT);
}

/* -l [g=]mod: require mod into global g (default: the module name up to a
 * '-', as lua does for versioned module names). */
static int lib_require(lua_State *L, const char *spec)
{
    const char *eq = strchr(spec, '=');
    const char *mod = eq ? eq + 1 : spec;
    size_t glen = eq ? (size_t)(eq - spec) : strcspn(spec, "-");
    lua_getglobal(L, "require");
    lua_pushstring(L, mod);
    if (chunk_call(L, 1, 1) != LUA_OK) {
        /* A module that is not there is a usage error; one that fails while
         * loading is a script error. */
        const char *msg = lua_tostring(L, -1);
        int missing = msg && strncmp(msg, "module '", 8) == 0 && strstr(msg, "' not found:");
        if (missing) {
            /* The search list says it all; a traceback of require does not. */
            const char *tb = strstr(msg, "\nstack traceback:");
            if (tb) {
                lua_pushlstring(L, msg, (size_t)(tb - msg));
                lua_replace(L, -2);
            }
            return error_report(L, EXIT_USAGE);
        }
        return error_report(L, EXIT_SCRIPT);
    }
    lua_pushglobaltable(L);
    lua_pushlstring(L, glen ? spec : mod, glen ? glen : strlen(mod));
    lua_pushvalue(L, -3);
    lua_settable(L, -3);
    lua_pop(L, 2);
    return 0;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

typedef struct tried_list {
    char text[4096];
    size_t len;
} tried_list;

static int script_try(char *out, size_t n, const char *dir, const char *name, const char *suffix,
                      tried_list *t)
{
    int k = dir ? snprintf(out, n, "%s/%s%s", dir, name, suffix)
                : snprintf(out, n, "%s%s", name, suffix);
    if (k <= 0 || (size_t)k >= n)
        return 0;
    if (t->len < sizeof t->text) {
        int w = snprintf(t->text + t->len, sizeof t->text - t->len, "%s%s",
                         t->len ? ", " : "", out);
        t->len = w > 0 ? t->len + (size_t)w : t->len;
        if (t->len >= sizeof t->text)
            t->len = sizeof t->text;
    }
    return is_file(out);
}

static int script_try_dir(char *out, size_t n, const char *dir, const char *name, tried_list *t)
{
    return script_try(out, n, dir, name, "", t) ||
           (!has_suffix(name, ".lua") && script_try(out, n, dir, name, ".lua", t));
}

/* Find a script: as given, then in each VPSCRIPT_PATH directory, then among
 * the shipped scripts; ".lua" may be left out in the directories. */
static int script_find(const host_paths *p, const char *name, int use_env, char *out, size_t n,
                       tried_list *t)
{
    t->len = 0;
    t->text[0] = '\0';
    if (script_try(out, n, NULL, name, "", t))
        return 1;
    if (name[0] == '/')
        return 0;
    const char *env = use_env ? getenv("VPSCRIPT_PATH") : NULL;
    while (env && *env) {
        size_t len = strcspn(env, ":");
        char dir[PATH_MAX];
        if (len > 0 && len < sizeof dir) {
            memcpy(dir, env, len);
            dir[len] = '\0';
            if (script_try_dir(out, n, dir, name, t))
                return 1;
        }
        env += len + (env[len] == ':');
    }
    return script_try_dir(out, n, p->scripts, name, t);
}

/* A capture passed where a script belongs deserves a better message than a
 * Lua syntax error. */
static void load_error_hint(lua_State *L, const char *path)
{
    if (has_suffix(path, ".lua"))
        return;
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    if (lua_getfield(L, -1, "vp") != LUA_TTABLE) {
        lua_pop(L, 2);
        return;
    }
    lua_getfield(L, -1, "detect");
    lua_pushstring(L, path);
    if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING) {
        lua_pushfstring(L,
                        "%s is a %s capture, not a script: run a script on it (vpscript --list) "
                        "or explore it with 'vpscript -i %s'",
                        path, lua_tostring(L, -1), path);
        lua_replace(L, -5); /* over the syntax error */
    }
    lua_pop(L, 3);
}

/* Run the script argv[o->script] (or standard input) with the arguments
 * that follow it. */
static int script_run(lua_State *L, const host_paths *p, const host_opts *o, int argc, char **argv)
{
    char path[PATH_MAX];
    const char *fname = NULL; /* standard input */
    if (o->script && !o->stdin_script) {
        tried_list t;
        if (!script_find(p, argv[o->script], !o->has_E, path, sizeof path, &t)) {
            fprintf(stderr,
                    "%s: cannot find script '%s' (tried %s%s); "
                    "'vpscript --list' shows the shipped scripts\n",
                    PROGNAME, argv[o->script], t.text, t.len >= sizeof t.text ? "..." : "");
            return EXIT_USAGE;
        }
        fname = path;
        /* arg[0] names the file that runs, wherever it was found. */
        lua_getglobal(L, "arg");
        lua_pushstring(L, path);
        lua_rawseti(L, -2, 0);
        lua_pop(L, 1);
    }
    int status = luaL_loadfile(L, fname);
    if (status != LUA_OK) {
        if (status == LUA_ERRSYNTAX && fname)
            load_error_hint(L, fname);
        return error_report(L, EXIT_USAGE);
    }
    int first = o->script ? o->script + 1 : argc;
    int nargs = argc - first;
    luaL_checkstack(L, nargs + 3, "too many arguments to script");
    for (int i = first; i < argc; i++)
        lua_pushstring(L, argv[i]);
    return chunk_call(L, nargs, 0) == LUA_OK ? 0 : error_report(L, EXIT_SCRIPT);
}

/* ------------------------------------------------------------------ */
/* REPL: history and line input                                      */

static char g_hist_path[PATH_MAX];
static int g_hist_on;

/* History lives in VPSCRIPT_HISTORY or ~/.vpscript_history; each line is
 * appended as it is entered (a killed session keeps its history) and the
 * file is cut back to HISTORY_MAX lines when the REPL ends. */
static void history_start(void)
{
    const char *env = getenv("VPSCRIPT_HISTORY"), *home = getenv("HOME");
    int k = 0;
    using_history();
    stifle_history(HISTORY_MAX);
    if (env && *env)
        k = snprintf(g_hist_path, sizeof g_hist_path, "%s", env);
    else if (home && *home)
        k = snprintf(g_hist_path, sizeof g_hist_path, "%s/.vpscript_history", home);
    if (k <= 0 || (size_t)k >= sizeof g_hist_path)
        return;
    int err = read_history(g_hist_path);
    if (err == ENOENT)
        err = write_history(g_hist_path);
    if (err) {
        fprintf(stderr, "%s: history not kept: %s: %s\n", PROGNAME, g_hist_path, strerror(err));
        return;
    }
    g_hist_on = 1;
}

static void history_add_line(const char *line)
{
    if (line[strspn(line, " \t")] == '\0')
        return;
    HIST_ENTRY *last = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
    if (last && strcmp(last->line, line) == 0)
        return;
    add_history(line);
    if (g_hist_on)
        append_history(1, g_hist_path);
}

static void history_finish(void)
{
    if (g_hist_on)
        history_truncate_file(g_hist_path, HISTORY_MAX);
}

static char *g_rl_line;
static int g_rl_done;
/* The line being read continues an unfinished chunk. */
static int g_continuation;

static void on_rl_line(char *line)
{
    g_rl_line = line;
    g_rl_done = 1;
    rl_callback_handler_remove();
}

/* readline in callback mode, so that Ctrl-C (which only sets a flag) can
 * abandon the line: SIGINT is blocked except inside pselect, so it cannot
 * slip in between the flag test and the wait. Returns a malloc'd line, or
 * NULL at end of input (*intr == 0) or on Ctrl-C (*intr == 1). */
static char *line_read_tty(const char *prompt, int *intr)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigprocmask(SIG_BLOCK, &block, &old);
    sigint_set(on_sigint_read);
    g_sigint = 0;
    g_rl_line = NULL;
    g_rl_done = 0;
    *intr = 0;
    rl_callback_handler_install(prompt, on_rl_line);
    int fd = fileno(rl_instream ? rl_instream : stdin);
    while (!g_rl_done) {
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(fd, &fds);
        int r = pselect(fd + 1, &fds, NULL, NULL, NULL, &old);
        if (r < 0 && errno == EINTR && !g_sigint)
            continue;
        if (r < 0) {
            rl_free_line_state();
            rl_callback_sigcleanup();
            rl_cleanup_after_signal();
            rl_callback_handler_remove();
            fputc('\n', stdout);
            *intr = g_sigint != 0;
            g_sigint = 0;
            break;
        }
        rl_callback_read_char();
    }
    sigint_set(SIG_DFL);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return g_rl_line;
}

static char *line_read_plain(const char *prompt, int *intr)
{
    fputs(prompt, stdout);
    fflush(stdout);
    sigint_set(on_sigint_read);
    g_sigint = 0;
    *intr = 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, stdin);
    sigint_set(SIG_DFL);
    if (n < 0) {
        free(line);
        if (g_sigint) {
            clearerr(stdin);
            fputc('\n', stdout);
            *intr = 1;
        }
        return NULL;
    }
    line[strcspn(line, "\r\n")] = '\0';
    return line;
}

static char *line_read(lua_State *L, int tty, int first, int *intr)
{
    lua_getglobal(L, first ? "_PROMPT" : "_PROMPT2");
    const char *prompt = lua_tostring(L, -1);
    if (!prompt)
        prompt = first ? "vp> " : "... ";
    fflush(stdout);
    g_continuation = !first;
    char *line = tty ? line_read_tty(prompt, intr) : line_read_plain(prompt, intr);
    lua_pop(L, 1);
    if (line && tty)
        history_add_line(line);
    return line;
}

/* ------------------------------------------------------------------ */
/* REPL: chunks                                                       */

enum { CHUNK_EOF = -1, CHUNK_INTR = -2 };

/* lua's rule: a syntax error at <eof> means the chunk is not finished. */
static int chunk_incomplete(lua_State *L, int status)
{
    size_t len;
    const char *msg;
    if (status != LUA_ERRSYNTAX)
        return 0;
    msg = lua_tolstring(L, -1, &len);
    return msg && len >= 5 && strcmp(msg + len - 5, "<eof>") == 0;
}

/* Read lines until they form a chunk. Leaves the compiled function (status
 * LUA_OK) or the syntax error on the stack, or nothing (CHUNK_EOF,
 * CHUNK_INTR). The buffer is tried first as an expression (`return ...`,
 * so its values print), then as statements; it is unfinished while either
 * form ends in <eof>. A leading '=' is the old `=expr` shorthand. */
static int chunk_read(lua_State *L, int tty)
{
    int intr;
    char *line = line_read(L, tty, 1, &intr);
    if (!line)
        return intr ? CHUNK_INTR : CHUNK_EOF;
    lua_pushstring(L, line[0] == '=' ? line + 1 : line);
    free(line);
    for (;;) {
        size_t len;
        const char *buf = lua_tolstring(L, -1, &len);
        const char *ret = lua_pushfstring(L, "return %s", buf);
        int status = luaL_loadbuffer(L, ret, strlen(ret), "=repl");
        if (status == LUA_OK) {
            lua_replace(L, -3);
            lua_pop(L, 1);
            return LUA_OK;
        }
        int more = chunk_incomplete(L, status);
        lua_pop(L, 2);
        status = luaL_loadbuffer(L, buf, len, "=repl");
        if (status == LUA_OK || !(more || chunk_incomplete(L, status))) {
            lua_remove(L, -2);
            return status;
        }
        line = line_read(L, tty, 0, &intr);
        if (!line) {
            if (!intr) { /* end of input inside a chunk: report why it is unfinished */
                lua_remove(L, -2);
                return status;
            }
            lua_pop(L, 2);
            return CHUNK_INTR;
        }
        lua_pop(L, 1);
        lua_pushliteral(L, "\n");
        lua_pushstring(L, line);
        free(line);
        lua_concat(L, 3);
    }
}

/* Push field `name` of the vp.repl module when it is a function. */
static int repl_fn(lua_State *L, const char *name)
{
    if (g_repl_ref == LUA_NOREF)
        return 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, g_repl_ref);
    int t = lua_getfield(L, -1, name);
    lua_remove(L, -2);
    if (t != LUA_TFUNCTION) {
        lua_pop(L, 1);
        return 0;
    }
    return 1;
}

/* Report the error on top of the stack (popped). Returns -1 to go on, or
 * the exit status when the REPL must end (stdout went away). */
static int repl_error(lua_State *L)
{
    if (g_pipe || is_sentinel(L, -1, &key_pipe)) {
        lua_pop(L, 1);
        return EXIT_PIPE;
    }
    fflush(stdout);
    if (is_sentinel(L, -1, &key_interrupted)) {
        fputs("interrupted\n", stderr);
    } else if (exitobj_code(L, -1) >= 0) {
        const char *m = exitobj_message(L, -1);
        if (m)
            message_print(m);
    } else {
        if (repl_fn(L, "error_text")) {
            lua_pushvalue(L, -2);
            if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_type(L, -1) == LUA_TSTRING)
                lua_replace(L, -2);
            else
                lua_pop(L, 1);
        }
        const char *msg = lua_tostring(L, -1);
        fprintf(stderr, "%s\n", msg ? msg : "(error object is not a string)");
    }
    fflush(stderr);
    lua_pop(L, 1);
    return -1;
}

/* Run the chunk on top of the stack and print what it returns. */
static int repl_eval(lua_State *L)
{
    int base = lua_gettop(L);
    if (chunk_call(L, 0, LUA_MULTRET) != LUA_OK)
        return repl_error(L);
    int n = lua_gettop(L) - base + 1;
    if (n <= 0)
        return -1;
    if (repl_fn(L, "show")) {
        lua_insert(L, -(n + 1));
        return chunk_call(L, n, 0) == LUA_OK ? -1 : repl_error(L);
    }
    /* Without vp.repl (a broken install): print as lua does. */
    for (int i = 0; i < n; i++) {
        size_t len;
        const char *s = luaL_tolstring(L, base + i, &len);
        if (i)
            fputc('\t', stdout);
        fwrite(s, 1, len, stdout);
        lua_pop(L, 1);
    }
    fputc('\n', stdout);
    lua_settop(L, base - 1);
    return -1;
}

/* Tab: vp.repl.complete(text before the cursor) -> start (1-based byte
 * where the word being completed begins), candidates. One candidate
 * replaces the word; several extend it to their common prefix, or are
 * listed when that does not get any further. */
static int complete_key(int count, int key)
{
    (void)count;
    (void)key;
    lua_State *L = g_L;
    if (!L)
        return 0;
    /* Tab in the blanks that start a continuation line indents it. */
    if (g_continuation && (size_t)rl_point == strspn(rl_line_buffer, " \t")) {
        rl_insert_text("  ");
        return 0;
    }
    int top = lua_gettop(L);
    if (!repl_fn(L, "complete")) {
        rl_ding();
        return 0;
    }
    lua_pushlstring(L, rl_line_buffer, (size_t)rl_point);
    if (lua_pcall(L, 1, 2, 0) != LUA_OK || !lua_isinteger(L, -2) || !lua_istable(L, -1)) {
        lua_settop(L, top);
        rl_ding();
        return 0;
    }
    lua_Integer start = lua_tointeger(L, -2) - 1;
    size_t n = lua_rawlen(L, -1);
    if (start < 0 || start > rl_point || n == 0) {
        lua_settop(L, top);
        rl_ding();
        return 0;
    }
    char **m = calloc(n + 2, sizeof *m);
    size_t lcp = 0, maxlen = 0, got = 0;
    for (size_t i = 1; m && i <= n; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i);
        const char *s = lua_tostring(L, -1);
        if (s && (m[got + 1] = strdup(s)) != NULL) {
            size_t len = strlen(s);
            if (got == 0) {
                lcp = len;
            } else {
                size_t k = 0;
                while (k < lcp && m[1][k] == s[k])
                    k++;
                lcp = k;
            }
            if (len > maxlen)
                maxlen = len;
            got++;
        }
        lua_pop(L, 1);
    }
    lua_settop(L, top);
    size_t wlen = (size_t)(rl_point - start);
    char *ins = NULL;
    if (got > 0 && (got == 1 || lcp > wlen) &&
        (ins = strndup(m[1], got == 1 ? strlen(m[1]) : lcp)) != NULL) {
        rl_begin_undo_group();
        rl_delete_text((int)start, rl_point);
        rl_point = (int)start;
        rl_insert_text(ins);
        rl_end_undo_group();
        free(ins);
    } else if (got > 1 && (m[0] = strndup(m[1], lcp)) != NULL) {
        rl_display_match_list(m, (int)got, (int)maxlen);
        rl_forced_update_display();
    } else {
        rl_ding();
    }
    for (size_t i = 0; m && i <= got; i++)
        free(m[i]);
    free(m);
    return 0;
}

/* The REPL: open the captures given (vp.repl.start), then read, evaluate
 * and print until end of input. Returns the exit status. */
static int repl_run(lua_State *L, int nfiles, char **files)
{
    int tty = isatty(STDIN_FILENO);
    int code = -1;
    printf("%s %s (%s)  help() for help, Ctrl-D to exit\n", PROGNAME, VP_VERSION, LUA_RELEASE);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "vp.repl");
    if (chunk_call(L, 1, 1) == LUA_OK)
        g_repl_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    else if ((code = repl_error(L)) >= 0)
        return code;
    if (repl_fn(L, "start")) {
        lua_pushglobaltable(L);
        lua_createtable(L, nfiles, 0);
        for (int i = 0; i < nfiles; i++) {
            lua_pushstring(L, files[i]);
            lua_rawseti(L, -2, i + 1);
        }
        if (chunk_call(L, 2, 0) != LUA_OK && (code = repl_error(L)) >= 0)
            return code;
    }
    if (tty) {
        rl_readline_name = PROGNAME;
        rl_catch_signals = 0;
        rl_initialize();
        rl_bind_key('\t', complete_key);
        history_start();
    }
    while (code < 0) {
        int top = lua_gettop(L);
        int status = chunk_read(L, tty);
        if (status == CHUNK_EOF)
            break;
        if (status == LUA_OK) {
            code = repl_eval(L);
        } else if (status != CHUNK_INTR) {
            fflush(stdout);
            fprintf(stderr, "%s\n", lua_tostring(L, -1));
        }
        lua_settop(L, top);
    }
    if (tty)
        history_finish();
    if (code < 0) {
        fputc('\n', stdout);
        code = 0;
    }
    return code;
}

/* ------------------------------------------------------------------ */
/* main                                                               */

/* Everything that touches the state runs here, protected, so that even an
 * allocation failure while setting up is reported. */
static int host_pmain(lua_State *L)
{
    int argc = (int)lua_tointeger(L, 1);
    char **argv = lua_touserdata(L, 2);
    const host_opts *o = lua_touserdata(L, 3);
    const host_paths *p = lua_touserdata(L, 4);
    int code = 0;
    if (o->has_E) {
        lua_pushboolean(L, 1);
        lua_setfield(L, LUA_REGISTRYINDEX, "LUA_NOENV");
    }
    luaL_openlibs(L);
    luaL_requiref(L, "vp", luaopen_vp, 1);
    lua_pop(L, 1);
    path_prepend(L, p);
    sentinel_create(L, &key_interrupted, EXIT_INTERRUPTED, "interrupted");
    sentinel_create(L, &key_pipe, EXIT_PIPE, "broken pipe");
    int repl = o->has_i || (!o->script && !o->has_e && !o->has_v && isatty(STDIN_FILENO));
    args_table(L, argc, argv, repl ? 0 : o->script);
    if (o->has_W)
        lua_warning(L, "@on", 0);
    if (o->has_v && !repl)
        version_print();
    int last = o->script ? o->script : argc;
    for (int i = 1; i < last && code == 0; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && (a[1] == 'e' || a[1] == 'l')) {
            const char *val = a[2] ? a + 2 : argv[++i];
            code = a[1] == 'e' ? chunk_run_string(L, val) : lib_require(L, val);
        }
    }
    if (code == 0) {
        if (repl)
            code = repl_run(L, o->script ? argc - o->script : 0,
                            argv + (o->script ? o->script : argc));
        else if (o->script || (!o->has_e && !o->has_v))
            code = script_run(L, p, o, argc, argv);
    }
    lua_pushinteger(L, code);
    return 1;
}

/* Flush stdout and turn a failed write into a status: quiet for a closed
 * pipe, a message for anything else (a full disk must not pass silently). */
static int stdout_finish(int code)
{
    signal(SIGPIPE, SIG_IGN);
    errno = 0;
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (g_pipe || errno == EPIPE)
            return code ? code : EXIT_PIPE;
        /* print() flushes each line itself, so the failing write (and its
         * errno) may be long gone: ferror still remembers it. */
        if (errno)
            fprintf(stderr, "%s: error writing to standard output: %s\n", PROGNAME,
                    strerror(errno));
        else
            fprintf(stderr, "%s: error writing to standard output\n", PROGNAME);
        return code ? code : EXIT_SCRIPT;
    }
    return (code == 0 && g_pipe) ? EXIT_PIPE : code;
}

int main(int argc, char **argv)
{
    host_opts o;
    host_paths p;
    if (args_parse(argc, argv, &o) != 0)
        return EXIT_USAGE;
    paths_find(&p);
    if (o.has_help) {
        usage_print(stdout, &p);
        return stdout_finish(0);
    }
    if (o.has_list)
        return stdout_finish(scripts_list(&p));
    lua_State *L = luaL_newstate();
    if (!L) {
        fprintf(stderr, "%s: cannot create the Lua state: not enough memory\n", PROGNAME);
        return EXIT_SCRIPT;
    }
    struct sigaction old;
    g_sigint_ignored = sigaction(SIGINT, NULL, &old) == 0 && old.sa_handler == SIG_IGN;
    g_L = L;
    atexit(at_exit_detach);
    signal_set(SIGPIPE, on_sigpipe);
    lua_pushcfunction(L, host_pmain);
    lua_pushinteger(L, argc);
    lua_pushlightuserdata(L, argv);
    lua_pushlightuserdata(L, &o);
    lua_pushlightuserdata(L, &p);
    int code = lua_pcall(L, 4, 1, 0) == LUA_OK ? (int)lua_tointeger(L, -1)
                                                : error_report(L, EXIT_SCRIPT);
    g_L = NULL;
    signal(SIGPIPE, SIG_IGN);
    lua_close(L);
    return stdout_finish(code);
}
