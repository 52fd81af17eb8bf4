/* Helpers shared by every binding: the capture userdata, child objects that
 * pin their capture, error triples, class registration and Series values.
 *
 * A capture is a full userdata holding a vp_lcap with two user values:
 *   1: fields table (format, path, size, warnings, and format fields that
 *      are plain Lua values), read by __index after the methods;
 *   2: cache table, for the binding's own use (e.g. node userdata by index,
 *      so the same node is always the same Lua value).
 * A child (frame, node, record) is a userdata whose user value 1 is its
 * capture: the capture cannot be collected while a child lives, and every
 * child access checks that the capture is still open. */
#ifndef VP_L_COMMON_H
#define VP_L_COMMON_H

#include <lauxlib.h>
#include <lua.h>
#include <stdint.h>

#include "../host/series.h"
#include "../host/vp_error.h"

typedef struct vp_lcap {
    void *model;                    /* NULL once closed */
    void (*free_model)(void *model);
} vp_lcap;

/* Push a new capture userdata of class `tname`; takes ownership of model.
 * The fields table gets format, path, size and warnings (a list, copied). */
vp_lcap *vp_lcap_new(lua_State *L, const char *tname, void *model, void (*free_model)(void *),
                     const char *format, const char *path, uint64_t size, const vp_warnings *w);

/* Check arg `idx` is an open capture of class tname; raises otherwise. */
vp_lcap *vp_lcap_check(lua_State *L, int idx, const char *tname);

/* Idempotent close, for `close`, `__close` and `__gc` of any capture. */
void vp_lcap_close(vp_lcap *c);

/* Set field `key` of the capture's fields table to the value on top of the
 * stack (popped). `idx` is the capture. */
void vp_lcap_setfield(lua_State *L, int idx, const char *key);

/* Push the capture's cache table (user value 2). */
void vp_lcap_cache(lua_State *L, int idx);

/* New child userdata of `size` bytes and class tname, pinning the capture
 * at `cap_idx`. Leaves the child on the stack. */
void *vp_lchild_new(lua_State *L, size_t size, const char *tname, int cap_idx);

/* Check arg `idx` is a child of class tname whose capture is open; returns
 * the child's memory and stores the capture's model in *model. Raises
 * "capture is closed" when it is not. */
void *vp_lchild_check(lua_State *L, int idx, const char *tname, void **model);

/* Push the capture a child pins. */
void vp_lchild_pushcap(lua_State *L, int idx);

/* Register class tname: metatable with __name, the given metamethods,
 * and an __index that looks in `methods`, then the user value 1 table when
 * that is a table (captures), then calls `getter(L)` with (obj, key) when
 * given. Leaves nothing on the stack. */
void vp_l_class(lua_State *L, const char *tname, const luaL_Reg *meta, const luaL_Reg *methods,
                lua_CFunction getter);

/* Push `nil, "<path>: <message>", code` and return 3. */
int vp_l_fail(lua_State *L, const char *path, const vp_error *err);

/* Raise a Lua error for err (used by iterators on corrupt data). */
int vp_l_raise(lua_State *L, const char *path, const vp_error *err);

/* Push a Series userdata; takes over one reference of s. */
void vp_l_push_series(lua_State *L, vp_series *s);
/* Check arg idx is a Series. */
vp_series *vp_l_check_series(lua_State *L, int idx);

/* Push a {x=, y=, z=} table (and w when `w` is not NULL). */
void vp_l_push_vec(lua_State *L, const float *xyz, const float *w);

/* Optional field of an options table at `idx` (may be none/nil). */
int vp_l_opt_bool(lua_State *L, int idx, const char *key, int def);
lua_Integer vp_l_opt_int(lua_State *L, int idx, const char *key, lua_Integer def);
const char *vp_l_opt_str(lua_State *L, int idx, const char *key, const char *def);

#define VP_SERIES_T "vp.Series"

#endif
