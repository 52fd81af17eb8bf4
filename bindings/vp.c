/* luaopen_vp: the `vp` module, shared by the vpscript host (preloaded) and
 * the loadable vp.so for stock lua5.4. */
#include <string.h>

#include "core/detect.h"
#include "l_common.h"
#include "l_formats.h"

#ifndef VP_VERSION
#define VP_VERSION "0.1.0"
#endif

static const struct vp_format_entry {
    const char *name, *extensions, *description;
    vp_l_open_fn open;     /* NULL: implemented in Lua by vp.laige */
    vp_l_writer_fn writer; /* NULL: no binary writer */
} formats[] = {
    {VP_FMT_VPROF, ".vprof", "Source engine VProf frame-by-frame recording", vp_l_open_vprof,
     vp_l_writer_vprof},
    {VP_FMT_DEVT, ".devt", "client event profiler export", vp_l_open_devt, vp_l_writer_devt},
    {VP_FMT_DLAG, ".dlag", "client lag profiler export", vp_l_open_dlag, vp_l_writer_dlag},
    {VP_FMT_DM, ".dm", "client movement trace", vp_l_open_dm, vp_l_writer_dm},
    {VP_FMT_DW, ".dw", "client weapon trace: client and server hits per bullet", vp_l_open_dw,
     vp_l_writer_dw},
    {VP_FMT_LAIGE_PROFILE, ".json .txt", "laige engine --prof-out run report (JSON or text)",
     NULL, NULL},
    {VP_FMT_LAIGE_BUDGET, ".txt", "laige engine --budget-report output", NULL, NULL},
};
#define NFORMATS (sizeof formats / sizeof formats[0])

static const struct vp_format_entry *format_find(const char *name)
{
    for (size_t i = 0; i < NFORMATS; i++)
        if (strcmp(formats[i].name, name) == 0)
            return &formats[i];
    return NULL;
}

static int vp_formats(lua_State *L)
{
    lua_createtable(L, (int)NFORMATS, 0);
    for (size_t i = 0; i < NFORMATS; i++) {
        lua_createtable(L, 0, 3);
        lua_pushstring(L, formats[i].name);
        lua_setfield(L, -2, "name");
        lua_pushstring(L, formats[i].description);
        lua_setfield(L, -2, "description");
        lua_newtable(L);
        const char *e = formats[i].extensions;
        int k = 0;
        while (*e) {
            const char *sp = strchr(e, ' ');
            size_t len = sp ? (size_t)(sp - e) : strlen(e);
            lua_pushlstring(L, e, len);
            lua_rawseti(L, -2, ++k);
            e += len + (sp ? 1 : 0);
        }
        lua_setfield(L, -2, "extensions");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* vp.detect(path) -> format | nil, message, code */
static int vp_detect_l(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    const char *fmt = NULL;
    vp_error err;
    if (vp_detect_file(path, &fmt, &err) != VP_OK)
        return vp_l_fail(L, path, &err);
    lua_pushstring(L, fmt);
    return 1;
}

/* vp.open(path [, opts]) -> cap | nil, message, code */
static int vp_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    if (!lua_isnoneornil(L, 2))
        luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    const char *fmt = vp_l_opt_str(L, 2, "format", NULL);
    vp_error err;
    if (fmt) {
        if (!format_find(fmt))
            return luaL_error(L, "vp.open: unknown format '%s'", fmt);
    } else if (vp_detect_file(path, &fmt, &err) != VP_OK) {
        return vp_l_fail(L, path, &err);
    }
    const struct vp_format_entry *f = format_find(fmt);
    if (f->open)
        return f->open(L, path, 2);
    /* The laige reports are text and JSON: parsed in Lua by vp.laige. */
    lua_getglobal(L, "require");
    lua_pushliteral(L, "vp.laige");
    lua_call(L, 1, 1);
    lua_getfield(L, -1, "open");
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 2);
    lua_pushstring(L, f->name);
    lua_call(L, 3, 3);
    if (lua_isnil(L, -3))
        return 3;
    lua_pop(L, 2);
    return 1;
}

/* vp.writer(format, path [, opts]) -> writer */
static int vp_writer(lua_State *L)
{
    const char *fmt = luaL_checkstring(L, 1);
    const char *path = luaL_checkstring(L, 2);
    if (!lua_isnoneornil(L, 3))
        luaL_checktype(L, 3, LUA_TTABLE);
    lua_settop(L, 3);
    const struct vp_format_entry *f = format_find(fmt);
    if (!f || !f->writer)
        return luaL_error(L, "vp.writer: no writer for format '%s'", fmt);
    return f->writer(L, path, 3);
}

int luaopen_vp(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"open", vp_open},       {"writer", vp_writer},   {"formats", vp_formats},
        {"detect", vp_detect_l}, {"Series", vp_l_series_new}, {NULL, NULL}};
    vp_l_register_series(L);
    vp_l_register_vprof(L);
    vp_l_register_devt(L);
    vp_l_register_dlag(L);
    vp_l_register_dm(L);
    vp_l_register_dw(L);
    luaL_newlib(L, fns);
    lua_pushliteral(L, VP_VERSION);
    lua_setfield(L, -2, "version");
    return 1;
}
