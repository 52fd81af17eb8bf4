/* vpscript: the host program. Embeds Lua 5.4 with the `vp` module and runs
 * a script the way the `lua` command does (options, `arg`, a message
 * handler with a traceback), or the REPL. This file: startup (the state,
 * the -e and -l options, the script or the REPL) and the last flush of
 * stdout; the other jobs are in the files cli.h lists.
 *
 * program/ and bindings/ are the only C that sees lua.h (make lint checks
 * it); this program reaches the readers only through luaopen_vp. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "../bindings/l_formats.h"
#include "cli.h"

/* ---- what runs before the script ---------------------------------------- */

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

static int chunk_run_string(vp_cli_ctx *c, const char *code)
{
    lua_State *L = c->L;
    if (luaL_loadbuffer(L, code, strlen(code), "=(command line)") != LUA_OK)
        return vp_cli_error_report(L, EXIT_USAGE);
    return vp_cli_chunk_call(c, 0, 0) == LUA_OK ? 0 : vp_cli_error_report(L, EXIT_SCRIPT);
}

/* -l [g=]mod: require mod into global g (default: the module name up to a
 * '-', as lua does for versioned module names). */
static int lib_require(vp_cli_ctx *c, const char *spec)
{
    lua_State *L = c->L;
    const char *eq = strchr(spec, '=');
    const char *mod = eq ? eq + 1 : spec;
    size_t glen = eq ? (size_t)(eq - spec) : strcspn(spec, "-");
    lua_getglobal(L, "require");
    lua_pushstring(L, mod);
    if (vp_cli_chunk_call(c, 1, 1) != LUA_OK) {
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
            return vp_cli_error_report(L, EXIT_USAGE);
        }
        return vp_cli_error_report(L, EXIT_SCRIPT);
    }
    lua_pushglobaltable(L);
    lua_pushlstring(L, glen ? spec : mod, glen ? glen : strlen(mod));
    lua_pushvalue(L, -3);
    lua_settable(L, -3);
    lua_pop(L, 2);
    return 0;
}

/* ---- main ---------------------------------------------------------------- */

/* Everything that touches the state runs here, protected, so that even an
 * allocation failure while setting up is reported. */
static int host_pmain(lua_State *L)
{
    vp_cli_ctx *c = lua_touserdata(L, 1);
    const vp_cli_opts *o = &c->opts;
    int argc = c->argc;
    char **argv = c->argv;
    int code = 0;
    /* The library's default paths, without the environment: the module
     * paths are set from them below (vp_cli_module_paths). */
    lua_pushboolean(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "LUA_NOENV");
    /* The collector starts a cycle when the heap reaches 150 % of what was
     * live after the last one (Lua's default: 200 %): peak memory stays a
     * small multiple of the input (a report read in Lua, a large table or
     * JSON document) for a little more collector work. */
    lua_gc(L, LUA_GCINC, 150, 0, 0);
    luaL_openlibs(L);
    vp_cli_signals_coroutines(L);
    luaL_requiref(L, "vp", luaopen_vp, 1);
    lua_pop(L, 1);
    vp_cli_module_paths(L, c);
    vp_cli_sentinels_create(L);
    int repl = o->has_i || (!o->script && !o->has_e && !o->has_v && isatty(STDIN_FILENO));
    args_table(L, argc, argv, repl ? 0 : o->script);
    if (o->has_W)
        lua_warning(L, "@on", 0);
    if (o->has_v && !repl)
        vp_cli_version_print();
    int last = o->script ? o->script : argc;
    for (int i = 1; i < last && code == 0; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && (a[1] == 'e' || a[1] == 'l')) {
            const char *val = a[2] ? a + 2 : argv[++i];
            code = a[1] == 'e' ? chunk_run_string(c, val) : lib_require(c, val);
        }
    }
    if (code == 0) {
        if (repl)
            code = vp_cli_repl_run(c, o->script ? argc - o->script : 0,
                                   argv + (o->script ? o->script : argc));
        else if (o->script || (!o->has_e && !o->has_v))
            code = vp_cli_script_run(c);
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
        if (vp_cli_pipe_closed() || errno == EPIPE)
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
    return (code == 0 && vp_cli_pipe_closed()) ? EXIT_PIPE : code;
}

int main(int argc, char **argv)
{
    vp_cli_ctx ctx;
    vp_cli_ctx *c = &ctx;
    memset(c, 0, sizeof *c);
    c->argc = argc;
    c->argv = argv;
    c->repl_ref = LUA_NOREF;
    if (vp_cli_args_parse(argc, argv, &c->opts) != 0)
        return EXIT_USAGE;
    vp_cli_paths_find(&c->paths);
    if (c->opts.has_help) {
        vp_cli_usage_print(stdout, &c->paths);
        return stdout_finish(0);
    }
    if (c->opts.has_list)
        return stdout_finish(vp_cli_scripts_list(&c->paths));
    c->L = luaL_newstate();
    if (!c->L) {
        fprintf(stderr, "%s: cannot create the Lua state: not enough memory\n", PROGNAME);
        return EXIT_SCRIPT;
    }
    vp_cli_signals_start(c);
    lua_pushcfunction(c->L, host_pmain);
    lua_pushlightuserdata(c->L, c);
    int code = lua_pcall(c->L, 1, 1, 0) == LUA_OK ? (int)lua_tointeger(c->L, -1)
                                                   : vp_cli_error_report(c->L, EXIT_SCRIPT);
    vp_cli_signals_stop();
    lua_close(c->L);
    return stdout_finish(code);
}
