/* The REPL: lines read with readline (history, Tab completion through the
 * Lua module vp.repl) or plainly when stdin is not a terminal, gathered
 * into chunks as lua does, evaluated, and their values shown by vp.repl. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include <lauxlib.h>

#include "cli.h"

#define HISTORY_MAX 1000

/* readline's callbacks (the line handler, key bindings) take no argument
 * of ours: what they need is here, set while the REPL runs. */
static struct {
    vp_cli_ctx *ctx; /* for complete_key */
    char *line;      /* what on_rl_line received */
    int done;
} rl;

/* ---- history and line input ---------------------------------------------- */

/* History lives in VPSCRIPT_HISTORY or ~/.vpscript_history; each line is
 * appended as it is entered (a killed session keeps its history) and the
 * file is cut back to HISTORY_MAX lines when the REPL ends. */
static void history_start(vp_cli_ctx *c)
{
    const char *env = getenv("VPSCRIPT_HISTORY"), *home = getenv("HOME");
    int k = 0;
    using_history();
    stifle_history(HISTORY_MAX);
    if (env && *env)
        k = snprintf(c->hist_path, sizeof c->hist_path, "%s", env);
    else if (home && *home)
        k = snprintf(c->hist_path, sizeof c->hist_path, "%s/.vpscript_history", home);
    if (k <= 0 || (size_t)k >= sizeof c->hist_path)
        return;
    int err = read_history(c->hist_path);
    if (err == ENOENT)
        err = write_history(c->hist_path);
    if (err) {
        fprintf(stderr, "%s: history not kept: %s: %s\n", PROGNAME, c->hist_path, strerror(err));
        return;
    }
    c->hist_on = 1;
}

static void history_add_line(const vp_cli_ctx *c, const char *line)
{
    if (line[strspn(line, " \t")] == '\0')
        return;
    HIST_ENTRY *last = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
    if (last && strcmp(last->line, line) == 0)
        return;
    add_history(line);
    if (c->hist_on)
        append_history(1, c->hist_path);
}

static void history_finish(const vp_cli_ctx *c)
{
    if (c->hist_on)
        history_truncate_file(c->hist_path, HISTORY_MAX);
}

static void on_rl_line(char *line)
{
    rl.line = line;
    rl.done = 1;
    rl_callback_handler_remove();
}

/* readline in callback mode, so that Ctrl-C (which only sets a flag) can
 * abandon the line: SIGINT is blocked except inside pselect, so it cannot
 * slip in between the flag test and the wait. Returns a malloc'd line, or
 * NULL at end of input (*intr == 0) or on Ctrl-C (*intr == 1). */
static char *line_read_tty(const vp_cli_ctx *c, const char *prompt, int *intr)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigprocmask(SIG_BLOCK, &block, &old);
    vp_cli_sigint_reading(c);
    vp_cli_sigint_clear();
    rl.line = NULL;
    rl.done = 0;
    *intr = 0;
    rl_callback_handler_install(prompt, on_rl_line);
    int fd = fileno(rl_instream ? rl_instream : stdin);
    while (!rl.done) {
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(fd, &fds);
        int r = pselect(fd + 1, &fds, NULL, NULL, NULL, &old);
        if (r < 0 && errno == EINTR && !vp_cli_sigint_seen())
            continue;
        if (r < 0) {
            rl_free_line_state();
            rl_callback_sigcleanup();
            rl_cleanup_after_signal();
            rl_callback_handler_remove();
            fputc('\n', stdout);
            *intr = vp_cli_sigint_seen();
            vp_cli_sigint_clear();
            break;
        }
        rl_callback_read_char();
    }
    vp_cli_sigint_default(c);
    sigprocmask(SIG_SETMASK, &old, NULL);
    return rl.line;
}

static char *line_read_plain(const vp_cli_ctx *c, const char *prompt, int *intr)
{
    fputs(prompt, stdout);
    fflush(stdout);
    vp_cli_sigint_reading(c);
    vp_cli_sigint_clear();
    *intr = 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, stdin);
    vp_cli_sigint_default(c);
    if (n < 0) {
        free(line);
        if (vp_cli_sigint_seen()) {
            clearerr(stdin);
            fputc('\n', stdout);
            *intr = 1;
        }
        return NULL;
    }
    line[strcspn(line, "\r\n")] = '\0';
    return line;
}

static char *line_read(vp_cli_ctx *c, int tty, int first, int *intr)
{
    lua_State *L = c->L;
    lua_getglobal(L, first ? "_PROMPT" : "_PROMPT2");
    const char *prompt = lua_tostring(L, -1);
    if (!prompt)
        prompt = first ? "vp> " : "... ";
    fflush(stdout);
    c->continuation = !first;
    char *line = tty ? line_read_tty(c, prompt, intr) : line_read_plain(c, prompt, intr);
    lua_pop(L, 1);
    if (line && tty)
        history_add_line(c, line);
    return line;
}

/* ---- chunks -------------------------------------------------------------- */

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
static void repl_set_source(const vp_cli_ctx *c, int idx);

static int chunk_read(vp_cli_ctx *c, int tty)
{
    lua_State *L = c->L;
    int intr;
    char *line = line_read(c, tty, 1, &intr);
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
            repl_set_source(c, -3);
            lua_replace(L, -3);
            lua_pop(L, 1);
            return LUA_OK;
        }
        int more = chunk_incomplete(L, status);
        lua_pop(L, 2);
        status = luaL_loadbuffer(L, buf, len, "=repl");
        if (status == LUA_OK || !(more || chunk_incomplete(L, status))) {
            if (status == LUA_OK)
                repl_set_source(c, -2);
            lua_remove(L, -2);
            return status;
        }
        line = line_read(c, tty, 0, &intr);
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

/* vp.repl's `source`: the chunk about to run, so that a nil it shows or an
 * error it reports can name the lookup that found nothing. */
static void repl_set_source(const vp_cli_ctx *c, int idx)
{
    lua_State *L = c->L;
    if (c->repl_ref == LUA_NOREF)
        return;
    idx = lua_absindex(L, idx);
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->repl_ref);
    if (lua_type(L, -1) == LUA_TTABLE) {
        lua_pushvalue(L, idx);
        lua_setfield(L, -2, "source");
    }
    lua_pop(L, 1);
}

/* Push field `name` of the vp.repl module when it is a function. */
static int repl_fn(const vp_cli_ctx *c, const char *name)
{
    lua_State *L = c->L;
    if (c->repl_ref == LUA_NOREF)
        return 0;
    lua_rawgeti(L, LUA_REGISTRYINDEX, c->repl_ref);
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
static int repl_error(const vp_cli_ctx *c)
{
    lua_State *L = c->L;
    if (vp_cli_pipe_closed() || vp_cli_is_sentinel(L, -1, &vp_cli_key_pipe)) {
        lua_pop(L, 1);
        return EXIT_PIPE;
    }
    fflush(stdout);
    if (vp_cli_is_sentinel(L, -1, &vp_cli_key_interrupted)) {
        fputs("interrupted\n", stderr);
    } else if (vp_cli_exitobj_code(L, -1) >= 0) {
        const char *m = vp_cli_exitobj_message(L, -1);
        if (m)
            vp_cli_message_print(m);
    } else {
        if (repl_fn(c, "error_text")) {
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
static int repl_eval(vp_cli_ctx *c)
{
    lua_State *L = c->L;
    int base = lua_gettop(L);
    if (vp_cli_chunk_call(c, 0, LUA_MULTRET) != LUA_OK)
        return repl_error(c);
    int n = lua_gettop(L) - base + 1;
    if (n <= 0)
        return -1;
    if (repl_fn(c, "show")) {
        lua_insert(L, -(n + 1));
        return vp_cli_chunk_call(c, n, 0) == LUA_OK ? -1 : repl_error(c);
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

/* ---- completion ------------------------------------------------------------ */

/* Tab: vp.repl.complete(text before the cursor) -> start (1-based byte
 * where the word being completed begins), candidates. One candidate
 * replaces the word; several extend it to their common prefix, or are
 * listed when that does not get any further. */
static int complete_key(int count, int key)
{
    (void)count;
    (void)key;
    vp_cli_ctx *c = rl.ctx;
    if (!c)
        return 0;
    lua_State *L = c->L;
    /* Tab in the blanks that start a continuation line indents it. */
    if (c->continuation && (size_t)rl_point == strspn(rl_line_buffer, " \t")) {
        rl_insert_text("  ");
        return 0;
    }
    int top = lua_gettop(L);
    if (!repl_fn(c, "complete")) {
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

/* ---- the loop -------------------------------------------------------------- */

int vp_cli_repl_run(vp_cli_ctx *c, int nfiles, char **files)
{
    lua_State *L = c->L;
    int tty = isatty(STDIN_FILENO);
    int code = -1;
    printf("%s %s (%s)  help() for help, Ctrl-D to exit\n", PROGNAME, VP_VERSION, LUA_RELEASE);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "vp.repl");
    if (vp_cli_chunk_call(c, 1, 1) == LUA_OK)
        c->repl_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    else if ((code = repl_error(c)) >= 0)
        return code;
    if (repl_fn(c, "start")) {
        lua_pushglobaltable(L);
        lua_createtable(L, nfiles, 0);
        for (int i = 0; i < nfiles; i++) {
            lua_pushstring(L, files[i]);
            lua_rawseti(L, -2, i + 1);
        }
        if (vp_cli_chunk_call(c, 2, 0) != LUA_OK && (code = repl_error(c)) >= 0)
            return code;
    }
    if (tty) {
        rl.ctx = c;
        rl_readline_name = PROGNAME;
        rl_catch_signals = 0;
        rl_initialize();
        rl_bind_key('\t', complete_key);
        history_start(c);
    }
    while (code < 0) {
        int top = lua_gettop(L);
        int status = chunk_read(c, tty);
        if (status == CHUNK_EOF)
            break;
        if (status == LUA_OK) {
            code = repl_eval(c);
        } else if (status != CHUNK_INTR) {
            fflush(stdout);
            fprintf(stderr, "%s\n", lua_tostring(L, -1));
        }
        lua_settop(L, top);
    }
    if (tty) {
        history_finish(c);
        rl.ctx = NULL;
    }
    if (code < 0) {
        fputc('\n', stdout);
        code = 0;
    }
    return code;
}
