/* Event profiler exports (.devt): the model and its reader.
 *
 * Layout (specs/format-notes.md, which wins over debug-traces.md):
 *
 *     u32 time, u32 unknown, u32 graph_duration, u16 prefix,
 *     bitfield[((prefix >> 6) + 1) << 3], u32 group_count,
 *     group_count x { u32 total, chunked array of {u32 time1, u32 time2, u8 type} }
 *
 * Opening validates the framing of every group once and keeps only where
 * each group's array starts and how many events it holds: events are
 * decoded on demand, read from the file through a source (core/source.h),
 * so a file truncated while open fails the read with ECHANGED. Because every block of a chunked array but the last
 * holds exactly 255 elements, event i of a group sits at a computable
 * offset, so groups give random access without an offset table.
 *
 * What is tolerated with a warning (the file's records are all kept):
 * more than the 4 groups ever seen, a group's `total` that disagrees with
 * the events actually present, bytes after the last group. A file that
 * ends inside a group (a cut export) keeps every complete event before the
 * cut, sets `truncated` and warns with the offset; the groups read so far
 * are the model's groups. A file too short for the header fails the open,
 * and so does a cut with opts->strict. */
#ifndef VP_DEVT_H
#define VP_DEVT_H

#include <stddef.h>
#include <stdint.h>

#include "core/open_opts.h"
#include "core/source.h"
#include "core/vp_error.h"

#define VP_DEVT_EVENT_SIZE 9
/* Groups ever seen in real files: frames, updates, weapon inputs, weapons. */
#define VP_DEVT_KNOWN_GROUPS 4
/* Group totals that disagree with their array are warned about one by one
 * this many times, then counted in one warning. */
#define VP_DEVT_WARN_EACH 8
/* Event types with a name; later ones are shown as "type_N". */
#define VP_DEVT_TYPE_COUNT 11

typedef struct vp_devt_event {
    uint32_t time1, time2;
    uint8_t type;
} vp_devt_event;

typedef struct vp_devt_group {
    uint32_t total;      /* as written; may disagree with count */
    uint64_t offset;     /* file offset of `total` */
    uint64_t array_off;  /* file offset of the first count byte */
    uint64_t end_off;    /* file offset just after the array */
    uint64_t count;      /* events present */
} vp_devt_group;

typedef struct vp_devt {
    vp_src src;
    uint32_t time, unknown, graph_duration;
    uint16_t prefix;
    uint64_t bitfield_off;
    size_t bitfield_len;
    uint8_t *bitfield;             /* a copy, read at open */
    uint32_t group_count;          /* groups in the file (fewer when truncated) */
    uint32_t header_group_count;   /* group_count as the header writes it */
    vp_devt_group *groups;
    uint64_t event_count;    /* over all groups */
    uint64_t trailing_bytes; /* ignored bytes after the last group */
    int truncated;           /* the file ends inside a group */
    vp_warnings warnings;
} vp_devt;

/* Index `path`, or a caller-owned buffer that must outlive the
 * model. opts may be NULL. On failure returns the code, fills err and *out
 * is NULL; the message does not name the file. */
vp_errcode vp_devt_open(const char *path, const vp_open_opts *opts, vp_devt **out, vp_error *err);
vp_errcode vp_devt_open_mem(const void *buf, size_t n, const vp_open_opts *opts, vp_devt **out,
                            vp_error *err);

void vp_devt_free(vp_devt *d);

/* Event i (0-based) of group g (0-based). The framing was validated at
 * open, so this only fails (returning 0 with err filled) on an index out
 * of range or a file that changed since (ECHANGED, EIO). */
int vp_devt_event_get(vp_devt *d, uint32_t g, uint64_t i, vp_devt_event *ev, vp_error *err);

/* The bitfield bytes (bitfield_len of them). */
const uint8_t *vp_devt_bitfield(const vp_devt *d);

/* "Frame", "WeaponInput_FireBurst", ...; NULL for types past the table. */
const char *vp_devt_type_name(unsigned type);
/* 1 for the types whose names are not settled (5, 6 and 7: later protocol
 * definitions call 5 ReloadEnd and swap 6 and 7). */
int vp_devt_type_uncertain(unsigned type);
/* "frames", "updates", "weapon_inputs", "weapons"; NULL past the fourth. */
const char *vp_devt_group_name(uint32_t g);

#endif
