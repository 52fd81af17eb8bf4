/* Entry points each format binding provides to vp.c. */
#ifndef VP_L_FORMATS_H
#define VP_L_FORMATS_H

#include <lua.h>

/* Open `path` as this format: push the capture and return 1, or push
 * `nil, message, code` and return 3. `opts` is the options table index
 * (may be none or nil). */
typedef int (*vp_l_open_fn)(lua_State *L, const char *path, int opts);
/* Create the format's metatables. */
typedef void (*vp_l_register_fn)(lua_State *L);

#define VP_FORMAT_DECL(f)                                        \
    int vp_l_open_##f(lua_State *L, const char *path, int opts); \
    void vp_l_register_##f(lua_State *L);

VP_FORMAT_DECL(vprof)
VP_FORMAT_DECL(devt)
VP_FORMAT_DECL(dlag)
VP_FORMAT_DECL(dm)
VP_FORMAT_DECL(dw)

/* The VProf captures of vp.open_all: paths[i] opened with vp.open's
 * options `opts`, all at once on threads of their own (opts.progress sees
 * the bytes of all of them), each one's capture set at caps[slots[i]], or
 * false there and {message, code} at failures[slots[i]]. Raises (every
 * model freed) what vp.open would raise. */
void vp_l_open_vprof_all(lua_State *L, const char *const *paths, const lua_Integer *slots, size_t n,
                         int opts, int caps, int failures);

/* vp.batches_all(requests): several VProf cap:series(nodes, field,
 * {batches = cuts [, groups]}) calls at once, each capture's passes on a
 * thread of its own (l_vprof.c). */
int vp_l_batches_all(lua_State *L);

/* The module entry point (vp.c). */
int luaopen_vp(lua_State *L);

void vp_l_register_series(lua_State *L);
int vp_l_series_new(lua_State *L);

/* The "vp.infer.core" module (preloaded by luaopen_vp): the comparison
 * statistics' C loops for stdlib/vp/infer.lua (l_infer.c). */
int vp_l_open_infer(lua_State *L);
/* Push a vp.infer.batched (a sample's batches as value counts, core/infer.h)
 * taking ownership of b; raises "out of memory" (b freed) when b is NULL. */
struct vp_batched;
void vp_l_push_batched(lua_State *L, struct vp_batched *b);
/* Cuts at idx: a list {0, c_1, ..., c_k} ascending (where each of k
 * segments of a sample starts, and its end), as an array of k + 1 sizes in
 * a userdata left on the stack; raises on anything else. */
size_t *vp_l_check_cuts(lua_State *L, int idx, size_t *k);

/* The "vp.hitches.core" module (preloaded by luaopen_vp): vp.hitches' C
 * engine over a VProf capture, detection and causes (l_vprof.c). */
int vp_l_open_hitches(lua_State *L);

/* The "vp.export.core" module (preloaded by luaopen_vp): the streaming
 * VProf exporters of host/export for stdlib/vp/export (l_export.c). */
int vp_l_open_export(lua_State *L);

/* The "vp.host" module (preloaded by luaopen_vp; also found in vp.so by a
 * stock lua5.4's require): sandbox, processes, terminals (l_host.c). */
int luaopen_vp_host(lua_State *L);
/* vp.host.sandbox: Lua source run for the data it returns (l_sandbox.c). */
int vp_l_sandbox(lua_State *L);

/* The "vp.json.core" module (preloaded by luaopen_vp): vp.json's encoder
 * walk over Lua values (l_json.c). */
int vp_l_open_json(lua_State *L);

/* The "vp.text.core" module (preloaded by luaopen_vp): core/text's visible
 * escapes and CSV fields (l_text.c). */
int vp_l_open_text(lua_State *L);

/* The "vp.output.core" module (preloaded by luaopen_vp): core/outfile's
 * checked, renamed output files for stdlib/vp/output.lua (l_output.c). */
int vp_l_open_output(lua_State *L);

#endif
