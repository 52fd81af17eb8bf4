/* A capture file mapped read-only, with its pages released behind a
 * streaming cursor so a whole-file pass over 1 GiB keeps a small resident
 * set. Memory buffers (fuzzers, tests) use the same type without a file. */
#ifndef VP_MAPFILE_H
#define VP_MAPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "core/vp_error.h"

typedef struct vp_map {
    const uint8_t *data;
    uint64_t size;
    int mapped;          /* 1 when data is an mmap we own */
    uint64_t touched;    /* bytes read since the last release */
} vp_map;

/* Map `path`. Fails with ENOENT, EISDIR, EIO or EEMPTY; the message names
 * the problem but not the file (the caller adds the path). */
vp_errcode vp_map_open(vp_map *m, const char *path, vp_error *err);

/* Wrap a caller-owned buffer; vp_map_close leaves it alone. */
void vp_map_wrap(vp_map *m, const void *buf, size_t n);

void vp_map_close(vp_map *m);

/* Give back resident pages in [0, upto): called by streaming passes every
 * few MiB, so what stays resident is bounded by the release interval. */
void vp_map_release(vp_map *m, uint64_t upto);

/* Account `n` bytes read at random; past a threshold the whole mapping is
 * released, which bounds the resident set of random access too. */
void vp_map_note_random(vp_map *m, uint64_t n);

/* Bytes between releases in streaming passes. */
#define VP_MAP_RELEASE_STEP (32u << 20)

#endif
