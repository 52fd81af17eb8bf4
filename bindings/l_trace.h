/* What the bindings of the four debug traces (.devt, .dlag, .dm, .dw)
 * share beyond l_common.h: opening a capture, and the lists of tables the
 * .devt and .dlag writers take. */
#ifndef VP_L_TRACE_H
#define VP_L_TRACE_H

#include <lauxlib.h>
#include <lua.h>
#include <stddef.h>

#include "l_common.h"

/* vp_l_open_<fmt> (l_formats.h), defined once for the four: in l_<fmt>.c,
 *
 *     VP_LTRACE_OPEN(dm, DM_T, dm_set_fields)
 *
 * opens `path` with vp_dm_open and vp.open's options (a failure pushes
 * `nil, "<path>: <message>", code`), pushes the capture of class DM_T
 * owning the model (its size and warnings from the model's `src` and
 * `warnings`), and calls dm_set_fields(L, cap, model) to set the format's
 * fields on the capture at index cap. */
#define VP_LTRACE_OPEN(fmt, tname, set_fields)                                                    \
    static void fmt##_free_model(void *m)                                                         \
    {                                                                                             \
        vp_##fmt##_free(m);                                                                       \
    }                                                                                             \
    int vp_l_open_##fmt(lua_State *L, const char *path, int opts)                                 \
    {                                                                                             \
        vp_open_opts o;                                                                           \
        vp_l_open_opts(L, opts, &o);                                                              \
        vp_##fmt *m;                                                                              \
        vp_error err;                                                                             \
        if (vp_##fmt##_open(path, &o, &m, &err) != VP_OK)                                         \
            return vp_l_fail(L, path, &err);                                                      \
        vp_lcap_new(L, tname, m, fmt##_free_model, #fmt, path, m->src.size, &m->warnings);        \
        set_fields(L, lua_gettop(L), m);                                                          \
        return 1;                                                                                 \
    }

/* Reads the table at index e (absolute) into one element of a list. */
typedef void (*vp_ltrace_fill)(lua_State *L, int e, void *elem);

/* The list at idx, when it is a table (anything else: an empty list), as
 * a C array of elem_size-byte elements, zeroed and then filled by
 * fill(L, e, elem) from each entry, in a userdata left on the stack (so an
 * error cannot leak it; room for one element when the list is empty). An
 * entry that is no table raises "<who>: <what> <i> must be a table". *n
 * receives the length. */
void *vp_ltrace_list(lua_State *L, int idx, const char *who, const char *what, size_t elem_size,
                     vp_ltrace_fill fill, size_t *n);

/* The arguments of a part written as a list, w:part(list [, opts]) (the
 * writer, argument 1, checked by the caller): argument 2 must be a table, 3
 * a table when given. Returns the list as vp_ltrace_list reads it, and
 * opts.total and opts.chunks into f (vp_l_framing_opt). */
void *vp_ltrace_part(lua_State *L, const char *who, const char *what, size_t elem_size,
                     vp_ltrace_fill fill, size_t *n, vp_wframing *f);

/* Options of vp.writer("devt" | "dlag", path, opts) (opts: the index of a
 * table, or of anything else for none): field `key` as an integer in
 * 0..max (vp_l_uint_range, messages starting with `who`), 0 when absent. */
uint32_t vp_ltrace_opt_u32(lua_State *L, int opts, const char *who, const char *key,
                           lua_Integer max);
/* A count the header states, given to write a file whose count is wrong:
 * 1 and the u32 field `key` into *count when opts sets it, else 0 (the
 * writer counts what is written). */
int vp_ltrace_opt_count(lua_State *L, int opts, const char *who, const char *key,
                        uint32_t *count);

#endif
