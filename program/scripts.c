/* Scripts: where the stdlib and the shipped scripts are, finding a
 * script (as given, along VPSCRIPT_PATH, among the shipped ones), running
 * it, and --list. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>

#include "cli.h"

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
void vp_cli_paths_find(vp_cli_paths *p)
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

/* ---- module paths ------------------------------------------------------------ */

/* Code comes from the stdlib, the installed modules and the places the user
 * names (VPSCRIPT_PATH, LUA_PATH, the script's own folder), never from the
 * working directory (Python's safe path, -P): a cjson.lua next to a capture
 * must not run. */

/* The entries of a default path that name an absolute place. */
static void path_absolute(lua_State *L, const char *path)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    int first = 1;
    while (*path) {
        size_t len = strcspn(path, ";");
        if (path[0] == '/') {
            if (!first)
                luaL_addchar(&b, ';');
            luaL_addlstring(&b, path, len);
            first = 0;
        }
        path += len + (path[len] == ';');
    }
    luaL_pushresult(&b);
}

/* package[field] = prefix, then the variable (var_5_4 first) with ";;"
 * standing for the default as lua5.4 reads it, or the default. */
static void path_set(lua_State *L, const char *field, const char *prefix, const char *var, int use_env)
{
    char var54[32];
    snprintf(var54, sizeof var54, "%s_5_4", var);
    const char *env = use_env ? getenv(var54) : NULL;
    if (use_env && !env)
        env = getenv(var);
    const char *mark = env ? strstr(env, ";;") : NULL;
    lua_getglobal(L, "package");
    lua_getfield(L, -1, field);
    path_absolute(L, lua_tostring(L, -1));
    const char *dft = lua_tostring(L, -1);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addstring(&b, prefix);
    if (!env) {
        luaL_addstring(&b, dft);
    } else if (!mark) {
        luaL_addstring(&b, env);
    } else {
        luaL_addlstring(&b, env, (size_t)(mark - env));
        if (mark > env)
            luaL_addchar(&b, ';');
        luaL_addstring(&b, dft);
        if (mark[2]) {
            luaL_addchar(&b, ';');
            luaL_addstring(&b, mark + 2);
        }
    }
    luaL_pushresult(&b);
    lua_setfield(L, -4, field);
    lua_pop(L, 3);
}

static void dir_entries(luaL_Buffer *b, const char *dir, size_t len)
{
    luaL_addlstring(b, dir, len);
    luaL_addstring(b, "/?.lua;");
    luaL_addlstring(b, dir, len);
    luaL_addstring(b, "/?/init.lua;");
}

void vp_cli_module_paths(lua_State *L, const vp_cli_ctx *c)
{
    int use_env = !c->opts.has_E;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    dir_entries(&b, c->paths.stdlib, strlen(c->paths.stdlib));
    const char *env = use_env ? getenv("VPSCRIPT_PATH") : NULL;
    while (env && *env) {
        size_t len = strcspn(env, ":");
        if (len > 0)
            dir_entries(&b, env, len);
        env += len + (env[len] == ':');
    }
    luaL_pushresult(&b);
    path_set(L, "path", lua_tostring(L, -1), "LUA_PATH", use_env);
    path_set(L, "cpath", "", "LUA_CPATH", use_env);
    lua_pop(L, 1);
}

/* The folder of the script that runs holds its own modules: on
 * package.path right after the stdlib. */
static void script_dir_add(lua_State *L, const vp_cli_paths *p, const char *script)
{
    char dir[PATH_MAX];
    if (!realpath(script, dir))
        return;
    *strrchr(dir, '/') = '\0';
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "path");
    const char *path = lua_tostring(L, -1);
    const char *front = lua_pushfstring(L, "%s/?.lua;%s/?/init.lua;", p->stdlib, p->stdlib);
    size_t n = strlen(front);
    if (!path)
        path = "";
    if (strncmp(path, front, n) == 0)
        path += n;
    else
        front = "";
    lua_pushfstring(L, "%s%s/?.lua;%s/?/init.lua;%s", front, dir, dir, path);
    lua_setfield(L, -4, "path");
    lua_pop(L, 3);
}

/* ---- --list -------------------------------------------------------------- */

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

int vp_cli_scripts_list(const vp_cli_paths *p)
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

/* ---- finding a script ------------------------------------------------------ */

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The candidates tried so far, for the message when none is there. */
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
static int script_find(const vp_cli_paths *p, const char *name, int use_env, char *out, size_t n,
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

/* " (did you mean 'hitches.lua'?)" for a script name that is not there: the
 * shipped scripts nearest it (vp.near, the one "did you mean"), pushed on
 * the stack; "" when none is near or the stdlib cannot say. */
static void script_hint(lua_State *L, const vp_cli_paths *p, const char *name)
{
    int top = lua_gettop(L);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "vp.near");
    if (lua_pcall(L, 1, 1, 0) != LUA_OK || lua_getfield(L, -1, "hint") != LUA_TFUNCTION) {
        lua_settop(L, top);
        lua_pushliteral(L, "");
        return;
    }
    lua_pushstring(L, name);
    lua_newtable(L);
    DIR *d = opendir(p->scripts);
    struct dirent *e;
    lua_Integer k = 0;
    while (d && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && has_suffix(e->d_name, ".lua")) {
            lua_pushstring(L, e->d_name);
            lua_rawseti(L, -2, ++k);
        }
    if (d)
        closedir(d);
    if (lua_pcall(L, 2, 1, 0) != LUA_OK || lua_type(L, -1) != LUA_TSTRING) {
        lua_settop(L, top);
        lua_pushliteral(L, "");
        return;
    }
    lua_replace(L, top + 1);
    lua_settop(L, top + 1);
}

/* ---- running it ------------------------------------------------------------ */

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

int vp_cli_script_run(vp_cli_ctx *c)
{
    lua_State *L = c->L;
    const vp_cli_opts *o = &c->opts;
    char path[PATH_MAX];
    const char *fname = NULL; /* standard input */
    if (o->script && !o->stdin_script) {
        tried_list t;
        if (!script_find(&c->paths, c->argv[o->script], !o->has_E, path, sizeof path, &t)) {
            script_hint(L, &c->paths, c->argv[o->script]);
            fprintf(stderr,
                    "%s: cannot find script '%s'%s (tried %s%s); "
                    "'vpscript --list' shows the shipped scripts\n",
                    PROGNAME, c->argv[o->script], lua_tostring(L, -1), t.text,
                    t.len >= sizeof t.text ? "..." : "");
            lua_pop(L, 1);
            return EXIT_USAGE;
        }
        fname = path;
        script_dir_add(L, &c->paths, path);
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
        return vp_cli_error_report(L, EXIT_USAGE);
    }
    int first = o->script ? o->script + 1 : c->argc;
    int nargs = c->argc - first;
    luaL_checkstack(L, nargs + 3, "too many arguments to script");
    for (int i = first; i < c->argc; i++)
        lua_pushstring(L, c->argv[i]);
    return vp_cli_chunk_call(c, nargs, 0) == LUA_OK ? 0 : vp_cli_error_report(L, EXIT_SCRIPT);
}
