/* vp.writer("devt", path [, opts]): the Lua face of write/devt_write.h. The
 * file is built in memory, so w:data() and w:truncate() work on the bytes
 * themselves; close writes them out. Events are {time1 =, time2 =, type =}
 * or {time1, time2, type}. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "write/devt_write.h"
#include "l_common.h"
#include "l_formats.h"
#include "l_trace.h"

#define WRITER_T "vp.devt.writer"
#define WHO "devt writer"

/* devt_wclose, devt_wsize, devt_wraw, devt_wtruncate, devt_wdata (l_common.h). */
VP_LWRITER_FORWARD_CLOSE(devt)
VP_LWRITER_FORWARD(devt)

static void event_fill(lua_State *L, int e, void *elem)
{
    vp_devt_wevent *ev = elem;
    ev->time1 = vp_l_uint_field(L, e, WHO, "time1", 1, UINT32_MAX, 0);
    ev->time2 = vp_l_uint_field(L, e, WHO, "time2", 2, UINT32_MAX, 0);
    ev->type = (uint8_t)vp_l_uint_field(L, e, WHO, "type", 3, 255, 0);
}

/* w:group(events [, {total = n, chunks = {...}}]); an event is
 * {time1 =, time2 =, type =} or {time1, time2, type}. */
static int lwriter_group(lua_State *L)
{
    vp_lwriter *lw = vp_lwriter_check(L, WRITER_T);
    size_t n;
    vp_wframing f;
    vp_devt_wevent *ev = vp_ltrace_part(L, WHO, "event", sizeof *ev, event_fill, &n, &f);
    vp_devt_writer_group(lw->w, ev, n, &f);
    return 0;
}

static const luaL_Reg devt_wmethods[] = {{"group", lwriter_group}, {NULL, NULL}};

static const vp_lwriter_ops devt_wops = {.tname = WRITER_T,
                                         .name = WHO,
                                         .methods = devt_wmethods,
                                         .close = devt_wclose,
                                         VP_LWRITER_FORWARDED(devt)};

int vp_l_writer_devt(lua_State *L, const char *path, int opts)
{
    vp_devt_wopts o;
    memset(&o, 0, sizeof o);
    o.time = vp_ltrace_opt_u32(L, opts, WHO, "time", UINT32_MAX);
    o.unknown = vp_ltrace_opt_u32(L, opts, WHO, "unknown", UINT32_MAX);
    o.graph_duration = vp_ltrace_opt_u32(L, opts, WHO, "graph_duration", UINT32_MAX);
    o.prefix = (uint16_t)vp_ltrace_opt_u32(L, opts, WHO, "prefix", 0xFFFF);
    o.has_group_count = vp_ltrace_opt_count(L, opts, WHO, "group_count", &o.group_count);
    if (lua_istable(L, opts)) {
        o.bitfield = (const uint8_t *)vp_l_opt_str(L, opts, "bitfield", NULL);
        if (o.bitfield) {
            lua_getfield(L, opts, "bitfield");
            o.bitfield_len = lua_rawlen(L, -1);
            lua_pop(L, 1);
        }
    }
    vp_error err;
    vp_devt_writer *w = vp_devt_writer_open(path, &o, &err);
    return vp_lwriter_push(L, &devt_wops, path, w, &err);
}

