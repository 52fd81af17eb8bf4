/* What the bindings of the four debug traces (.devt, .dlag, .dm, .dw)
 * share beyond l_common.h: opening a capture. */
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

#endif
