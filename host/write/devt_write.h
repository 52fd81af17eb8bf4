/* Event profiler (.devt) writer, built from the .devt layout in
 * specs/format-notes.md alone: it shares nothing with the reader, so a
 * round trip checks one reading of the spec against another.
 *
 * The file is built in memory (a .devt is small) so the header's
 * group_count and each group's total can be filled in after the fact, and
 * so deliberately broken files are easy: explicit totals, explicit block
 * counts, raw bytes anywhere, and a final cut. */
#ifndef VP_DEVT_WRITE_H
#define VP_DEVT_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "write/wbuf.h"
#include "core/vp_error.h"

typedef struct vp_devt_writer vp_devt_writer;

typedef struct vp_devt_wopts {
    uint32_t time, unknown, graph_duration;
    uint16_t prefix;
    /* NULL: the right number of zero bytes for `prefix`; otherwise these
     * bytes exactly, whatever their length (broken files). */
    const uint8_t *bitfield;
    size_t bitfield_len;
    /* 0: group_count is the number of groups written. */
    int has_group_count;
    uint32_t group_count;
} vp_devt_wopts;

typedef struct vp_devt_wevent {
    uint32_t time1, time2;
    uint8_t type;
} vp_devt_wevent;

/* Create (truncate) `path` (the bytes are written at close) with options o
 * (NULL: all zero). NULL + err (ENOMEM, or the path's error) on failure. */
vp_devt_writer *vp_devt_writer_open(const char *path, const vp_devt_wopts *o, vp_error *err);

/* Append a group: u32 total, then the events as a chunked array framed by
 * f (see vp_wframing; NULL: the defaults). */
void vp_devt_writer_group(vp_devt_writer *w, const vp_devt_wevent *ev, size_t n,
                          const vp_wframing *f);

/* Append bytes as they are. Always VP_OK (the bytes are kept in memory):
 * the result and err are there for the signature every writer has. */
vp_errcode vp_devt_writer_raw(vp_devt_writer *w, const void *p, size_t n, vp_error *err);

/* Cut the final output to n bytes (applied after everything else). */
void vp_devt_writer_truncate(vp_devt_writer *w, uint64_t n);

/* Bytes written so far, header included: the offset the next write lands at. */
uint64_t vp_devt_writer_tell(vp_devt_writer *w);

/* The finished bytes (group_count filled in, cut applied), valid until the
 * next call on w. NULL with err on OOM. */
const uint8_t *vp_devt_writer_data(vp_devt_writer *w, size_t *len, vp_error *err);

/* Write the finished bytes to the file and free w (also on failure);
 * *bytes (may be NULL) receives their count. */
vp_errcode vp_devt_writer_close(vp_devt_writer *w, uint64_t *bytes, vp_error *err);

#endif
