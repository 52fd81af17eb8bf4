/* vp.text.core: core/text's rules for Lua (vp.fmt's visible text, vp.report's
 * CSV fields); luaopen_vp preloads it. Glue only. */
#include <lauxlib.h>
#include <lua.h>

#include "core/text.h"
#include "l_formats.h"

/* Push b's bytes (raise on OOM) and free it. */
static int push_buf(lua_State *L, vp_buf *b)
{
    if (b->oom) {
        vp_buf_free(b);
        return luaL_error(L, "out of memory");
    }
    lua_pushlstring(L, b->data ? (const char *)b->data : "", b->len);
    vp_buf_free(b);
    return 1;
}

/* visible(s) -> s with visible escapes (the same string when it has none). */
static int l_visible(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    if (vp_text_is_visible(s, n)) {
        lua_settop(L, 1);
        return 1;
    }
    vp_buf b = {0};
    vp_text_visible(&b, s, n);
    return push_buf(L, &b);
}

/* csv_field(s) -> s as one CSV field. */
static int l_csv_field(lua_State *L)
{
    size_t n;
    const char *s = luaL_checklstring(L, 1, &n);
    if (vp_text_csv_plain(s, n)) {
        lua_settop(L, 1);
        return 1;
    }
    vp_buf b = {0};
    vp_text_csv(&b, s, n);
    return push_buf(L, &b);
}

int vp_l_open_text(lua_State *L)
{
    static const luaL_Reg fns[] = {{"visible", l_visible}, {"csv_field", l_csv_field}, {NULL, NULL}};
    luaL_newlib(L, fns);
    return 1;
}
