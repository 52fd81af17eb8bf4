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
#include "core/series.h"
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

/* 24 bytes: a hostile file may hold one group per 5 bytes. */
typedef struct vp_devt_group {
    uint64_t array_off;  /* file offset of the first count byte (`total` is before it) */
    uint64_t count;      /* events present */
    uint32_t total;      /* as written; may disagree with count */
} vp_devt_group;

/* File offset of a group's u32 total. */
static inline uint64_t vp_devt_group_offset(const vp_devt_group *g)
{
    return g->array_off - 4;
}

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

/* ---- statistics (devt_stats.c) ------------------------------------------
 * The events grouped the way events.lua reports them, in two passes over
 * the file and memory linear in the events (4 bytes each): per (group,
 * type) bucket the count and the time1 values in ascending order, and the
 * time1 of every Frame event (type 0, any group) in ascending order. */

typedef struct vp_devt_bucket {
    uint32_t group;  /* 0-based */
    uint8_t type;
    uint64_t count;
    uint64_t first;  /* its first time in vp_devt_scan.times */
} vp_devt_bucket;

typedef struct vp_devt_scan {
    uint64_t events;
    uint32_t first_time, last_time; /* min and max time1 (valid when events) */
    vp_devt_bucket *buckets;        /* by group, then type */
    size_t nbuckets;
    uint32_t *times;                /* each bucket's time1 ascending, bucket after bucket */
    uint32_t *frames;               /* the Frame events' time1, ascending */
    uint64_t nframes;
} vp_devt_scan;

/* Fill *s (zeroed first; free it with vp_devt_scan_free whatever the
 * result). Fails only when a read fails (ECHANGED, EIO) or on ENOMEM. */
vp_errcode vp_devt_scan_events(vp_devt *d, vp_devt_scan *s, vp_error *err);
void vp_devt_scan_free(vp_devt_scan *s);

/* The differences between successive sorted times (ms) of bucket b, or of
 * the Frame events when b is SIZE_MAX: a new Series (refs = 1), NULL on
 * OOM. */
vp_series *vp_devt_scan_intervals(const vp_devt_scan *s, size_t b);

/* The indices of the (at most) k buckets with the most events, ties to the
 * lower index, in bucket order: idx receives them (room for k), the return
 * is how many (SIZE_MAX when memory ran out). */
size_t vp_devt_scan_top(const vp_devt_scan *s, size_t k, uint32_t *idx);

/* "Frame", "WeaponInput_FireBurst", ...; NULL for types past the table. */
const char *vp_devt_type_name(unsigned type);
/* 1 for the types whose names are not settled (5, 6 and 7: later protocol
 * definitions call 5 ReloadEnd and swap 6 and 7). */
int vp_devt_type_uncertain(unsigned type);
/* "frames", "updates", "weapon_inputs", "weapons"; NULL past the fourth. */
const char *vp_devt_group_name(uint32_t g);

#endif
