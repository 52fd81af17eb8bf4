/* Helpers shared by every binding: the capture userdata, child objects that
 * pin their capture, error triples, class registration, Series values and
 * the slot iterator of the slotted formats.
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

#include "core/hitch.h"
#include "core/open_opts.h"
#include "core/series.h"
#include "core/vp_error.h"

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

/* Set field `key` of the capture at `idx` to an integer or a boolean. */
void vp_lcap_set_int(lua_State *L, int idx, const char *key, lua_Integer v);
void vp_lcap_set_bool(lua_State *L, int idx, const char *key, int v);

/* Push the capture's cache table (user value 2). */
void vp_lcap_cache(lua_State *L, int idx);
/* Children cached by number in that table, so that one record is always
 * the same Lua value: vp_lcap_cached pushes the child cached at `slot` of
 * the capture at capidx and returns 1, or pushes nothing and returns 0;
 * vp_lcap_cache_set caches the value on top of the stack (left there) at
 * `slot`. */
int vp_lcap_cached(lua_State *L, int capidx, lua_Integer slot);
void vp_lcap_cache_set(lua_State *L, int capidx, lua_Integer slot);
/* Make that table weak-valued: a child stays the same Lua value while
 * anything holds it, and a walk over millions of children does not keep
 * them all (for captures whose children are as many as their records). */
void vp_lcap_weak_cache(lua_State *L, int idx);

/* New child userdata of `size` bytes and class tname, pinning the capture
 * at `cap_idx`. Leaves the child on the stack. */
void *vp_lchild_new(lua_State *L, size_t size, const char *tname, int cap_idx);

/* Check arg `idx` is a child of class tname whose capture is open; returns
 * the child's memory and stores the capture's model in *model. Raises
 * "capture is closed" when it is not. */
void *vp_lchild_check(lua_State *L, int idx, const char *tname, void **model);

/* Push the capture a child pins. */
void vp_lchild_pushcap(lua_State *L, int idx);
/* Raise err (vp_lcap_raise) naming the capture of the child at idx. */
int vp_lchild_raise(lua_State *L, int idx, const vp_error *err);

/* __eq of a child class tname: arguments 1 and 2 are both of the class,
 * pin the same capture and have the same key, the `size` bytes at
 * `offset` in the child (its index or file offset): the same record of the
 * same capture. */
int vp_lchild_eq(lua_State *L, const char *tname, size_t offset, size_t size);

/* Argument idx as a 1-based index in 1..n, returned 0-based; an index out
 * of range raises "<what> <i> is out of range 1..<n>" ("... out of range:
 * there are none" when n is 0). A lookup by name that finds nothing
 * returns nil instead; an index is the caller's mistake. */
uint64_t vp_l_check_index(lua_State *L, int idx, const char *what, uint64_t n);

/* ---- slotted captures (.dm, .dw) ------------------------------------------
 * One set of methods for the files that are a sequence of slots, each used
 * (a record) or empty:
 *
 *   for i, rec in cap:slots() do ... end   -- rec is false for an empty slot
 *   for rec in cap:records([i]) do ... end -- the used slots, from the i-th
 *   cap:record(i)                          -- the i-th used slot
 *
 * The binding gives the reader's iterator: `begin` and `seek` position
 * `state` (seek: the next used slot returned is the 0-based `index`; past
 * the last, none is), and `next` decodes the next slot from it and returns
 * -1 (err filled), 0 after the last slot, or 1 with *slot (0-based) set
 * and, for a used slot, *used = 1 and its child pushed (the capture is at
 * `cap`). Errors raise naming the capture's file. */
typedef struct vp_lslots {
    const char *cap_tname; /* the capture class */
    const char *what;      /* a used slot in messages: "record" */
    size_t state_size;     /* the reader's iterator state */
    void (*begin)(void *model, void *state);
    void (*seek)(void *model, void *state, uint64_t index);
    int (*next)(lua_State *L, int cap, void *model, void *state, uint64_t *slot, int *used,
                vp_error *err);
} vp_lslots;

/* cap:slots(): every slot as `i, rec|false`. The capture is argument 1. */
int vp_lslots_all(lua_State *L, const vp_lslots *s);
/* cap:records([i]): the used slots as `rec`, from the i-th (1-based,
 * default 1; past the last: none). */
int vp_lslots_used(lua_State *L, const vp_lslots *s);
/* cap:record(i): the i-th (1-based) of the `count` used slots; an index out
 * of range raises. */
int vp_lslots_at(lua_State *L, const vp_lslots *s, uint64_t count);

/* ---- counting iterators ----------------------------------------------------
 * `for x in obj:things() do ... end` over the positions 0, 1, 2, ... of an
 * object (a capture or a child): the iterator holds the object and the next
 * position, and `step` pushes the values of position i of the object at
 * the (absolute) index obj and returns how many, or returns 0 after the
 * last position, pushing nothing. */
typedef struct vp_liter {
    int (*step)(lua_State *L, int obj, lua_Integer i);
} vp_liter;

/* Push the iterator over the object at obj, from position 0. */
void vp_liter_push(lua_State *L, int obj, const vp_liter *it);

/* Register class tname: metatable with __name, the given metamethods,
 * and an __index that looks in `methods`, then the user value 1 table when
 * that is a table (captures), then calls `getter(L)` with (obj, key) when
 * given. Leaves nothing on the stack. */
void vp_l_class(lua_State *L, const char *tname, const luaL_Reg *meta, const luaL_Reg *methods,
                lua_CFunction getter);

/* Register capture class tname as vp_l_class does (no getter: a capture's
 * properties are its fields table), with the members every capture has:
 * close, also as __close and __gc (vp_lcap_close), __tostring and __len.
 * `methods` are the others. */
void vp_lcap_class(lua_State *L, const char *tname, lua_CFunction tostring, lua_CFunction len,
                   const luaL_Reg *methods);

/* Push `nil, "<path>: <message>", code` and return 3. */
int vp_l_fail(lua_State *L, const char *path, const vp_error *err);
/* The `nil, message, code` of a failure on top of the stack become one
 * table {message, code} (vp.open_all's failures). */
void vp_l_fail_table(lua_State *L);

/* Raise a Lua error for err (used by iterators on corrupt data). */
int vp_l_raise(lua_State *L, const char *path, const vp_error *err);

/* Raise vp.error.new(code, msg) (code a vp.error code name: "EUSAGE",
 * "ECHANGED", ...) so that a script ends with that code's exit status and
 * no traceback; when the stdlib cannot be required (a stock lua5.4 without
 * it on its path), msg as a plain error. */
int vp_l_raise_code(lua_State *L, const char *code, const char *msg);

/* Push a Series userdata; takes over one reference of s. */
void vp_l_push_series(lua_State *L, vp_series *s);
/* vp.open's frames = {first, last} at index idx (or {first =, last =};
 * either may be nil: from the first, to the last; a negative number counts
 * from the end, -1 the last) for a capture of n frames: out[0] .. out[1],
 * clamped to 1..n; 0 when that holds no frame. Raises for numbers that are
 * not frame numbers. The one rule for every format's --frames. */
int vp_l_resolve_frames(lua_State *L, int idx, lua_Integer n, lua_Integer out[2]);
int vp_l_frames_of(lua_State *L);

/* A Series whose first value has index `first` (a capture's first frame number). */
void vp_l_push_series_at(lua_State *L, vp_series *s, lua_Integer first);
/* Check arg idx is a Series. */
vp_series *vp_l_check_series(lua_State *L, int idx);

/* Push a zeroed userdata of `size` bytes whose metatable (tname, made on
 * first use) has `gc` as __gc: scratch memory of a C result being turned
 * into Lua values, freed even when an error is raised half-way. */
void *vp_l_scratch(lua_State *L, size_t size, const char *tname, lua_CFunction gc);

/* Push a {x=, y=, z=} table (and w when `w` is not NULL). */
void vp_l_push_vec(lua_State *L, const float *xyz, const float *w);

/* The reader options of vp.open's table at idx (may be none or nil):
 * strict. */
void vp_l_open_opts(lua_State *L, int idx, vp_open_opts *o);

/* Optional field of an options table at `idx` (may be none/nil). */
int vp_l_opt_bool(lua_State *L, int idx, const char *key, int def);
lua_Integer vp_l_opt_int(lua_State *L, int idx, const char *key, lua_Integer def);
const char *vp_l_opt_str(lua_State *L, int idx, const char *key, const char *def);

/* ---- captures: helpers for tostring, summary and errors ------------------ */

/* A capture's __tostring starts here: the model of the capture at 1 (class
 * tname) and the file name of its path in *base; or NULL when the capture
 * is closed, "<format base: closed>" then being pushed (the whole result). */
void *vp_lcap_tostring_model(lua_State *L, const char *tname, const char **base);

/* The path of the capture at capidx ("?" when it has none); the fields
 * table keeps the string alive. */
const char *vp_lcap_path(lua_State *L, int capidx);
/* The file name of that path, without its directories. */
const char *vp_lcap_basename(lua_State *L, int capidx);
/* Raise err prefixed with the path of the capture at capidx: a vp.error
 * object (code = the error's code name, message, exit) when vp.error can be
 * required, else the message as a string. For data a read found broken or
 * changed (ECHANGED: truncated while open), never for a caller's mistake. */
int vp_lcap_raise(lua_State *L, int capidx, const vp_error *err);

/* Push a format's name for a numbered thing (a group, a type), or, when
 * the format has none (name NULL), `unnamed` formatted with n as
 * lua_pushfstring does ("group_%d"). */
void vp_l_push_name(lua_State *L, const char *name, const char *unnamed, int n);
/* Push "1,234": counts in summaries and tostring are read by people. */
void vp_l_push_count(lua_State *L, uint64_t n);
/* Append {name = name, value = <top of the stack, popped>} to the list at
 * `list` (a summary row). */
void vp_l_row_add(lua_State *L, int list, const char *name);
/* A row of an integer or a boolean. */
void vp_l_row_int(lua_State *L, int list, const char *name, lua_Integer v);
void vp_l_row_bool(lua_State *L, int list, const char *name, int v);
/* The last rows of a .devt and a .dlag summary: trailing_bytes when there
 * are any, truncated only when it is so (the rows of a whole file stay as
 * they were), then the count of warnings. */
void vp_l_row_tail(lua_State *L, int list, uint64_t trailing_bytes, int truncated,
                   const vp_warnings *w);
/* Set field k of the table at the top of the stack. */
void vp_l_set_int(lua_State *L, const char *k, lua_Integer v);
void vp_l_set_vec3(lua_State *L, const char *k, const float v[3]);
/* Push the list of the entries set in a bitfield of `len` bytes (0-based). */
void vp_l_push_bits(lua_State *L, const uint8_t *bits, size_t len);
/* Copy the properties `keys` of the object at obj, as its getter reads
 * them, into the table at the top of the stack (totable()). */
void vp_l_getter_fields(lua_State *L, int obj, lua_CFunction getter, const char *const *keys);

/* ---- hitches ------------------------------------------------------------------ */

/* The rule of cap:hitches and s:hitches from the table at idx (an argument):
 * {factor = (2.5), window = (30), min_excess_ms = (5), threshold_ms = (the
 * absolute rule when given)}; vp.hitches checks the values first. */
void vp_l_hitch_rule(lua_State *L, int idx, vp_hitch_rule *r);
/* The hitch list h (count entries, malloc'd: freed here) copied into a
 * userdata left on the stack, so that nothing raised later can leak it. */
vp_hitch *vp_l_hitch_list(lua_State *L, vp_hitch *h, uint32_t count);

#define VP_SERIES_T "vp.Series"

#endif
