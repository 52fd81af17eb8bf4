/* libFuzzer driver for the harnesses written in Lua (tests/fuzz/lua_*.lua):
 * the real bindings and stdlib, one persistent Lua state.
 *
 * Built once per harness with -DVP_FUZZ_HARNESS='"<name>"' and
 * -DVP_FUZZ_ROOT='"<repo root>"' (the Makefile's fuzz_bindings, fuzz_writers,
 * fuzz_laige). At start the driver opens a Lua state with the standard
 * libraries, preloads `vp` (luaopen_vp), puts ROOT/stdlib and ROOT/tests/fuzz
 * on package.path and requires "lua_<name>", which returns a function.
 * An input is a selector byte (the harness says what it picks: a format, a
 * mode) and the file: the file is written to a memfd and the function is
 * called with (path, selector, file bytes): path is /proc/self/fd/N, so
 * vp.open reads it through the same source, detection and readers as a
 * file on disk. The function
 * raises only on a bug; the driver then prints the error with a traceback
 * and aborts, which libFuzzer reports as a crash with the input kept.
 *
 * Coverage of the Lua code: the Lua library is not instrumented, so the
 * fuzzer would see only the C it calls. A line hook counts (chunk, line)
 * pairs into libFuzzer's extra counters, so a new line reached in the laige
 * parser or an analysis is new coverage too. */
#define _GNU_SOURCE
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "l_formats.h"

#ifndef VP_FUZZ_HARNESS
#error "build with -DVP_FUZZ_HARNESS='\"name\"'"
#endif
#ifndef VP_FUZZ_ROOT
#define VP_FUZZ_ROOT "."
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The state lives as long as the process: libFuzzer calls in with no
 * context of ours, so these are the harness's own globals (test code, not
 * the program). */
static lua_State *L;
static int fd = -1;
static char path[64];
static unsigned long runs;

#define LUA_LINE_SLOTS (1u << 16)
__attribute__((used, section("__libfuzzer_extra_counters"))) static uint8_t lua_lines[LUA_LINE_SLOTS];

static void line_hook(lua_State *S, lua_Debug *ar)
{
    if (!lua_getinfo(S, "S", ar))
        return;
    uintptr_t h = (uintptr_t)ar->source * 0x9E3779B97F4A7C15u ^ (uintptr_t)ar->currentline * 2654435761u;
    uint8_t *c = &lua_lines[(h ^ (h >> 29)) & (LUA_LINE_SLOTS - 1)];
    if (*c < 255)
        (*c)++;
}

static int traceback(lua_State *S)
{
    const char *msg = lua_tostring(S, 1);
    if (!msg) {
        if (luaL_callmeta(S, 1, "__tostring") && lua_type(S, -1) == LUA_TSTRING)
            msg = lua_tostring(S, -1);
        else
            msg = lua_pushfstring(S, "(error object is a %s value)", luaL_typename(S, 1));
    }
    luaL_traceback(S, S, msg, 1);
    return 1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    L = luaL_newstate();
    luaL_openlibs(L);
    luaL_requiref(L, "vp", luaopen_vp, 0);
    lua_pop(L, 1);
    /* package.loaded.vp is set: require "vp" finds it. */
    lua_getglobal(L, "package");
    lua_pushstring(L, VP_FUZZ_ROOT "/stdlib/?.lua;" VP_FUZZ_ROOT "/stdlib/?/init.lua;" VP_FUZZ_ROOT
                      "/tests/fuzz/?.lua");
    lua_setfield(L, -2, "path");
    lua_pop(L, 1);
    lua_pushcfunction(L, traceback);
    lua_getglobal(L, "require");
    lua_pushliteral(L, "lua_" VP_FUZZ_HARNESS);
    if (lua_pcall(L, 1, 1, -3) != LUA_OK || !lua_isfunction(L, -1)) {
        fprintf(stderr, "fuzz %s: cannot load the harness: %s\n", VP_FUZZ_HARNESS,
                lua_tostring(L, -1));
        abort();
    }
    lua_setfield(L, LUA_REGISTRYINDEX, "vp_fuzz_harness");
    lua_pop(L, 1);
    lua_sethook(L, line_hook, LUA_MASKLINE, 0);
    fd = memfd_create("vp_fuzz", 0);
    if (fd < 0) {
        perror("memfd_create");
        abort();
    }
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int selector = data[0];
    data++;
    size--;
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
        perror("memfd write");
        abort();
    }
    int top = lua_gettop(L);
    lua_pushcfunction(L, traceback);
    lua_getfield(L, LUA_REGISTRYINDEX, "vp_fuzz_harness");
    lua_pushstring(L, path);
    lua_pushinteger(L, selector);
    lua_pushlstring(L, (const char *)data, size);
    if (lua_pcall(L, 3, 0, top + 1) != LUA_OK) {
        fprintf(stderr, "fuzz %s: the harness raised: %s\n", VP_FUZZ_HARNESS,
                lua_tostring(L, -1));
        abort();
    }
    lua_settop(L, top);
    /* Captures closed by the harness are freed now; the rest of the garbage
     * at the next step. A full collection now and then keeps the heap (and
     * the leak checker's view of it) small. */
    if (++runs % 64 == 0)
        lua_gc(L, LUA_GCCOLLECT);
    return 0;
}
