/* Movement trace (.dm) writer, built from the .dm section of
 * specs/format-notes.md alone (no parsing code shared with the reader).
 *
 * The file is one chunked array of records; records are buffered one block
 * (255 records) at a time, since a block's count byte precedes it. Overrides
 * (bitfield, counts, flags) and raw bytes let tests build broken files. */
#ifndef VP_DM_WRITE_H
#define VP_DM_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "core/vp_error.h"

typedef struct vp_dm_writer vp_dm_writer;

typedef struct vp_dm_wgroup {
    uint16_t short_time;
    float position[3], orientation[4], direction[3];
    uint16_t state;
    uint8_t have_ext; /* 1 writes the extended block */
    uint16_t unknown_1;
    float velocity[3];
    uint8_t unknown_2, unknown_3;
    uint16_t jetpack_energy;
    int16_t ground_time, time_since_last_jump;
    uint8_t have_collision; /* non-zero writes the collision block */
    int arrow_count;        /* count byte; -1: narrows */
    size_t narrows;
    const float *arrows; /* narrows x 6 floats: origin xyz, direction xyz */
    int float_count;     /* count byte; -1: nfloats */
    size_t nfloats;
    const float *floats;
    float unknown_4[3], unknown_5[3];
    uint8_t unknown_6;
} vp_dm_wgroup;

typedef struct vp_dm_wrecord {
    uint8_t have_data; /* 1: time, bitfield and groups follow */
    uint32_t time, bitfield;
    size_t ngroups; /* written in order, whatever the bitfield says */
    const vp_dm_wgroup *groups;
} vp_dm_wrecord;

/* Zeroes with the count overrides off. */
void vp_dm_wgroup_init(vp_dm_wgroup *g);

vp_dm_writer *vp_dm_writer_open(const char *path, vp_error *err);
vp_errcode vp_dm_writer_record(vp_dm_writer *w, const vp_dm_wrecord *r, vp_error *err);
/* An empty record: have_data 0. */
vp_errcode vp_dm_writer_empty(vp_dm_writer *w, vp_error *err);
/* Bytes inside the array where the next record would go, not counted. */
vp_errcode vp_dm_writer_raw(vp_dm_writer *w, const void *p, size_t n, vp_error *err);
/* Records written (array elements). */
uint64_t vp_dm_writer_records(const vp_dm_writer *w);
/* Where the next record starts once written out: the bytes of the blocks
 * already emitted, the count byte of the open block and its records. */
uint64_t vp_dm_writer_tell(const vp_dm_writer *w);
/* Cut the file to n bytes when it is closed (when it is longer). */
void vp_dm_writer_truncate(vp_dm_writer *w, uint64_t n);
/* The file as closing it now with the defaults would leave it (the array's
 * last count byte written, cut as asked), read back from the file after
 * handing it what is buffered; the writer stays open. Valid until the next
 * call on w. NULL with err on failure. */
const uint8_t *vp_dm_writer_data(vp_dm_writer *w, size_t *len, vp_error *err);
/* End the array (its last count byte: `terminate` = 0 leaves out the 00
 * that follows a full block), append `trailing` bytes, close (applying the
 * cut), free w (also on failure). */
vp_errcode vp_dm_writer_close(vp_dm_writer *w, int terminate, const void *trailing, size_t ntrail,
                              uint64_t *bytes, vp_error *err);

#endif
