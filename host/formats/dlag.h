/* Lag profiler exports (.dlag): the model and its reader.
 *
 * Layout (specs/format-notes.md, which wins over debug-traces.md):
 *
 *     u32 time
 *     u32 count, count x measurement { u32 total, chunked array of
 *         sample {f32 value, u32 time, u32 unknown} }     (index 1, 2, ...)
 *     chunked array of graph state { u16 measurement_count,
 *         bitfield[((measurement_count >> 6) + 1) << 3], f32[4] offset,
 *         f32[4] scale, u8 print_titles, u8 unknown }     (00 when empty)
 *     traceroute host, NUL-terminated ("" when traceroute is off)
 *     until the end: tail record { u8[4] address, chunked samples as above,
 *         NUL-terminated string, u8, u32, f32 x 4, u8 }   (probably hops)
 *
 * Opening validates every part once and keeps offsets: samples are decoded
 * on demand, read through a source (core/source.h, so a file truncated
 * while open fails the read with ECHANGED) (sample i of an array is at a computable offset, because every
 * block but the last holds exactly 255), graph states and tail records by
 * an offset table built at open (each is at least 44 and 28 bytes on disk,
 * which bounds the tables by the file size).
 *
 * A file that ends inside a part keeps every complete record before the
 * cut (measurements and their whole samples, graph states, tail records),
 * sets `truncated` and warns with the offset and the field; the parts after
 * the cut are empty (and the traceroute host absent when the cut comes
 * before its NUL). The tail records run to the end of the file and their
 * meaning is not known, so a tail record that does not parse is such a cut
 * too (its bytes are trailing_bytes). A file too short for the two header
 * u32 fails the open, and so does any cut with opts->strict. */
#ifndef VP_DLAG_H
#define VP_DLAG_H

#include <stddef.h>
#include <stdint.h>

#include "core/open_opts.h"
#include "core/source.h"
#include "core/series.h"
#include "core/vp_error.h"

#define VP_DLAG_SAMPLE_SIZE 12
/* Entries of the measurement name table (1 "Client Frame" .. 73 "RPM"). */
#define VP_DLAG_NAME_COUNT 73
/* Measurement totals that disagree with their array are warned about one
 * by one this many times, then counted in one warning. */
#define VP_DLAG_WARN_EACH 8
/* Measurements per overlay page. */
#define VP_DLAG_PAGE_SIZE 8

typedef struct vp_dlag_sample {
    float value;
    uint32_t time, unknown;
} vp_dlag_sample;

/* A chunked sample array as found in the file. */
typedef struct vp_dlag_samples {
    uint64_t array_off; /* first count byte */
    uint64_t count;
} vp_dlag_samples;

/* 24 bytes: a hostile file may hold one measurement per 5 bytes. */
typedef struct vp_dlag_measurement {
    uint32_t index;  /* 1-based, the position in the file */
    uint32_t total;  /* as written; may disagree with samples.count */
    vp_dlag_samples samples;
} vp_dlag_measurement;

/* File offset of a measurement's u32 total. */
static inline uint64_t vp_dlag_measurement_offset(const vp_dlag_measurement *m)
{
    return m->samples.array_off - 4;
}

typedef struct vp_dlag_graph_state {
    uint64_t offset;
    uint16_t measurement_count;
    uint64_t bitfield_off;
    size_t bitfield_len;
    float offset_v[4]; /* x, y, z, w */
    float scale[4];
    uint8_t print_titles, unknown;
} vp_dlag_graph_state;

typedef struct vp_dlag_hop {
    uint64_t offset;
    uint8_t address[4];
    vp_dlag_samples samples;
    uint64_t name_off;
    size_t name_len;
    uint8_t unknown_u8_1;
    uint32_t unknown_u32;
    float unknown_floats[4];
    uint8_t unknown_u8_2;
} vp_dlag_hop;

typedef struct vp_dlag {
    vp_src src;
    uint32_t time;
    uint32_t measurement_count;        /* in the file (fewer when truncated) */
    uint32_t header_measurement_count; /* the count as the header writes it */
    uint64_t count_off;      /* file offset of the measurement count */
    vp_dlag_measurement *measurements;
    uint64_t sample_count;   /* over all measurements */
    uint64_t graph_states_off;
    uint64_t graph_state_count;
    uint64_t *graph_state_offs; /* file offset of each graph state */
    int have_host;           /* 0 when the file ends before the host's NUL */
    uint64_t host_off;
    size_t host_len;
    uint64_t hops_off;       /* where the tail records begin */
    uint64_t hop_count;
    uint64_t *hop_offs;      /* file offset of each tail record */
    uint64_t trailing_bytes; /* bytes that did not make a complete tail record */
    int truncated;           /* the file ends inside a part */
    vp_warnings warnings;
} vp_dlag;

/* Index `path`, or a caller-owned buffer that must outlive the
 * model. opts may be NULL. On failure returns the code, fills err and *out
 * is NULL; the message does not name the file. */
vp_errcode vp_dlag_open(const char *path, const vp_open_opts *opts, vp_dlag **out, vp_error *err);
vp_errcode vp_dlag_open_mem(const void *buf, size_t n, const vp_open_opts *opts, vp_dlag **out,
                            vp_error *err);
void vp_dlag_free(vp_dlag *d);

/* Sample i (0-based) of an array indexed at open; 0 with err filled when
 * i is out of range or the file changed since (ECHANGED, EIO). */
int vp_dlag_sample_get(vp_dlag *d, const vp_dlag_samples *s, uint64_t i, vp_dlag_sample *out,
                       vp_error *err);
/* The values (which = 0) or times (which = 1) of an array as a new Series
 * (refs = 1); NULL with err filled on OOM or a read that failed. */
vp_series *vp_dlag_series(vp_dlag *d, const vp_dlag_samples *s, int which, vp_error *err);

/* Decode graph state i / tail record i (0-based, < the counts); 0 with err
 * filled when the read fails. */
int vp_dlag_graph_state_get(vp_dlag *d, uint64_t i, vp_dlag_graph_state *out, vp_error *err);
int vp_dlag_hop_get(vp_dlag *d, uint64_t i, vp_dlag_hop *out, vp_error *err);

/* The `len` bytes at `off` (a string or bitfield found at open), valid
 * until the next read of the model; NULL with err filled when the read
 * fails. */
const uint8_t *vp_dlag_bytes(vp_dlag *d, uint64_t off, size_t len, vp_error *err);

/* The name of measurement `index` (1-based) from the 73-entry table, NULL
 * beyond it. The names are positional: a build with fewer measurements
 * shifts them, and which one build 1946 lacks is not known. */
const char *vp_dlag_measurement_name(uint32_t index);
/* The overlay page of a measurement: (index - 1) / 8. */
uint32_t vp_dlag_measurement_page(uint32_t index);

#endif
