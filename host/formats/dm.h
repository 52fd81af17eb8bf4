/* Movement trace (.dm) reader, as specs/format-notes.md lays the file out:
 * the whole file is one chunked array (trace_common.h) of records.
 *
 *   record: u8 have_data; only when it is 1: u32 time, u32 bitfield, then
 *           one group per set bit of bits 0..19, low bit first.
 *   group:  u16 short_time, Vec3f position, Vec4f orientation, Vec3f
 *           direction, u16 state, u8 have_ext (45 bytes); when have_ext == 1:
 *           u16 unknown, Vec3f velocity, u8, u8, u16 jetpack_energy,
 *           i16 ground_time, i16 time_since_last_jump, u8 have_collision;
 *           when have_collision != 0: u8 arrow_count, {Vec3f origin, Vec3f
 *           direction}[arrow_count], u8 float_count, f32[float_count];
 *           then Vec3f, Vec3f, u8 (unknown).
 *
 * Opening validates every record and keeps a sparse index (one checkpoint
 * every VP_DM_CKPT_EVERY data records); records are decoded on demand,
 * read through a source (core/source.h: a file truncated while open fails
 * the read with ECHANGED). A record cut short by the end of
 * the file ends the read with every complete record kept, `truncated` set
 * and a warning naming the offset; bytes after the array's last count byte
 * are reported, not read. With opts->strict both fail the open instead
 * (ETRUNC, EFORMAT), with the warning's message. Values the notes do not
 * cover (have_data or have_ext other than 0/1, bits 20..31 of the
 * bitfield) are tolerated with a warning. */
#ifndef VP_DM_H
#define VP_DM_H

#include <stddef.h>
#include <stdint.h>

#include "core/open_opts.h"
#include "core/source.h"
#include "core/vp_error.h"
#include "formats/trace_common.h"

#define VP_DM_GROUP_MIN 45
#define VP_DM_EXT_HEAD 23 /* unknown .. have_collision */
#define VP_DM_EXT_TAIL 25 /* Vec3f, Vec3f, u8 */
#define VP_DM_GROUP_BITS 20
#define VP_DM_CKPT_EVERY 64

typedef struct vp_dm_iter {
    vp_chunked ch;   /* the array's framing state before the next element */
    uint64_t off;    /* cursor before the next element (or its count byte) */
    uint64_t slot;   /* 0-based element index of the next element */
    uint64_t record; /* data records before it */
} vp_dm_iter;

typedef struct vp_dm {
    vp_src src;
    uint64_t slot_count;    /* complete elements of the array */
    uint64_t record_count;  /* of which have_data == 1 */
    uint64_t empty_records; /* the others */
    uint64_t group_count, ext_groups, collision_groups;
    uint64_t groups_by_bit[VP_DM_GROUP_BITS];
    uint32_t bits_seen;  /* OR of every record's bitfield */
    int terminated;      /* the array's final count byte was read */
    int truncated;       /* the file ends inside the array */
    uint64_t data_end;   /* offset after the last complete element */
    uint64_t array_end;  /* offset after the final count byte (terminated) */
    uint64_t trailing_bytes;
    uint32_t time_min, time_max; /* over data records (valid when any) */
    vp_dm_iter *ckpt;
    size_t nckpt;
    vp_warnings warnings;
} vp_dm;

/* Open `path`, or a caller-owned buffer that must outlive the model. opts
 * may be NULL. On failure *out is NULL and err says why (without the file
 * name). */
vp_errcode vp_dm_open(const char *path, const vp_open_opts *opts, vp_dm **out, vp_error *err);
vp_errcode vp_dm_open_mem(const void *buf, size_t n, const vp_open_opts *opts, vp_dm **out,
                          vp_error *err);
void vp_dm_free(vp_dm *d);

typedef struct vp_dm_record {
    uint64_t off, size;
    uint64_t slot;  /* 0-based element index */
    uint64_t index; /* 0-based data-record index (valid when have_data == 1) */
    uint8_t have_data;
    uint32_t time, bitfield;
    unsigned group_count; /* set bits among 0..19 */
    uint64_t groups_off;
} vp_dm_record;

typedef struct vp_dm_group {
    uint64_t off, size;
    unsigned bit;
    uint16_t short_time;
    float position[3], orientation[4], direction[3];
    uint16_t state;
    uint8_t have_ext;
    /* extended block (have_ext == 1) */
    uint16_t unknown_1;
    float velocity[3];
    uint8_t unknown_2, unknown_3;
    uint16_t jetpack_energy;
    int16_t ground_time, time_since_last_jump;
    uint8_t have_collision;
    uint8_t arrow_count, float_count;
    uint64_t arrows_off, floats_off; /* valid when have_collision != 0 */
    float unknown_4[3], unknown_5[3];
    uint8_t unknown_6;
} vp_dm_group;

void vp_dm_iter_begin(const vp_dm *d, vp_dm_iter *it);
/* Next element (empty ones included): 1 and *r filled, 0 after the last,
 * -1 on error (err filled: a file that changed since it was opened). */
int vp_dm_iter_next(vp_dm *d, vp_dm_iter *it, vp_dm_record *r, vp_error *err);
/* Position `it` so that the next data record returned is record `index`
 * (0-based; index >= record_count exhausts the iterator). */
void vp_dm_iter_seek_record(vp_dm *d, vp_dm_iter *it, uint64_t index);

/* Decode the group at `off` (a record's groups_off, then each previous
 * group's off + size), recorded under `bit`. */
vp_errcode vp_dm_group_at(vp_dm *d, uint64_t off, unsigned bit, vp_dm_group *g, vp_error *err);
/* Arrow i (< arrow_count) of a group with collision data: origin and
 * direction; float i (< float_count). Zeros and an error when the read
 * fails. */
vp_errcode vp_dm_arrow_at(vp_dm *d, const vp_dm_group *g, unsigned i, float origin[3],
                          float direction[3], vp_error *err);
vp_errcode vp_dm_float_at(vp_dm *d, const vp_dm_group *g, unsigned i, float *v, vp_error *err);

/* ---- one group bit through the records (dm_track.c) ----------------------
 * What movement.lua follows: for every data record that has a group under
 * `bit`, the record's time and index and that group's position, velocity
 * and state, sorted by (time, record). Columns, so an analysis walks a few
 * arrays instead of building a table per record; memory is linear in the
 * groups under the bit. Fields of the extended block are 0 when a sample
 * has none (ext[i] == 0). */
typedef struct vp_dm_track {
    size_t n;
    uint32_t *time;
    uint64_t *record;  /* 0-based data-record index */
    float *pos, *vel;  /* x, y, z per sample */
    uint8_t *ext;      /* 1: the extended block is there */
    int16_t *ground_time, *since_jump;
    uint16_t *energy;
} vp_dm_track;

/* Fill *t (zeroed first; free it with vp_dm_track_free whatever the
 * result). Fails when a read fails (ECHANGED, EIO) or on ENOMEM. */
vp_errcode vp_dm_track_bit(vp_dm *d, unsigned bit, vp_dm_track *t, vp_error *err);
void vp_dm_track_free(vp_dm_track *t);

#endif
