/* Lag profiler (.dlag) writer, built from the .dlag layout in
 * specs/format-notes.md alone: it shares nothing with the reader.
 *
 * Parts are written in file order: measurements, graph states, traceroute
 * host, tail records. A later part completes the ones skipped before it
 * (an empty graph-state array `00`, an empty host), and so does taking the
 * bytes unless `no_complete` is set. The header's measurement count is
 * filled in at the end. Broken files: explicit counts, totals and block
 * counts, a host without its NUL, raw bytes anywhere, and a final cut. */
#ifndef VP_DLAG_WRITE_H
#define VP_DLAG_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "write/wbuf.h"
#include "core/vp_error.h"

typedef struct vp_dlag_writer vp_dlag_writer;

typedef struct vp_dlag_wopts {
    uint32_t time;
    int has_measurement_count; /* 0: the number of measurements written */
    uint32_t measurement_count;
    int no_complete;           /* do not add missing parts when finishing */
} vp_dlag_wopts;

typedef struct vp_dlag_wsample {
    float value;
    uint32_t time, unknown;
} vp_dlag_wsample;

typedef struct vp_dlag_wgraph_state {
    uint16_t measurement_count;
    const uint8_t *bitfield; /* NULL: zeros of the right size */
    size_t bitfield_len;
    float offset[4], scale[4];
    uint8_t print_titles, unknown;
} vp_dlag_wgraph_state;

typedef struct vp_dlag_whop {
    uint8_t address[4];
    const vp_dlag_wsample *samples;
    size_t nsamples;
    vp_wframing framing;
    const char *name;
    uint8_t unknown_u8_1;
    uint32_t unknown_u32;
    float unknown_floats[4];
    uint8_t unknown_u8_2;
} vp_dlag_whop;

/* Create (truncate) `path` (the bytes are written at close) with options o
 * (NULL: all zero). NULL + err (ENOMEM, or the path's error) on failure. */
vp_dlag_writer *vp_dlag_writer_open(const char *path, const vp_dlag_wopts *o, vp_error *err);

/* Each returns VP_OK, or EFORMAT when the part comes after a later one
 * (the message says which). */
vp_errcode vp_dlag_writer_measurement(vp_dlag_writer *w, const vp_dlag_wsample *s, size_t n,
                                      const vp_wframing *f, vp_error *err);
/* The whole graph-state array (only the count bytes of f are used). */
vp_errcode vp_dlag_writer_graph_states(vp_dlag_writer *w, const vp_dlag_wgraph_state *gs,
                                       size_t n, const vp_wframing *f, vp_error *err);
/* The traceroute host; nul = 0 leaves out its terminator. */
vp_errcode vp_dlag_writer_host(vp_dlag_writer *w, const char *host, int nul, vp_error *err);
vp_errcode vp_dlag_writer_hop(vp_dlag_writer *w, const vp_dlag_whop *h, vp_error *err);

/* Append bytes as they are. Always VP_OK (the bytes are kept in memory):
 * the result and err are there for the signature every writer has. */
vp_errcode vp_dlag_writer_raw(vp_dlag_writer *w, const void *p, size_t n, vp_error *err);
/* Cut the final output to n bytes (applied after everything else). */
void vp_dlag_writer_truncate(vp_dlag_writer *w, uint64_t n);
/* Bytes written so far: the offset the next write lands at. */
uint64_t vp_dlag_writer_tell(vp_dlag_writer *w);

/* Finished bytes (parts completed, count filled in, cut applied), valid
 * until the next call on w. */
const uint8_t *vp_dlag_writer_data(vp_dlag_writer *w, size_t *len, vp_error *err);
/* Write them to the file and free w (also on failure); *bytes (may be
 * NULL) receives their count. */
vp_errcode vp_dlag_writer_close(vp_dlag_writer *w, uint64_t *bytes, vp_error *err);

#endif
