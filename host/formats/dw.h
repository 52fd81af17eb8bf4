/* Weapon trace (.dw) reader, as specs/format-notes.md lays the file out:
 *
 *   u8[4] header, u8 max_size,
 *   slots while the position is before the last 4 bytes,
 *   u32 last_trace_counter.
 *
 * A slot is `u8 used`: 0 is an empty slot (that single byte); 1 is followed
 * by u8 unknown, u32 trace_id, u32 ammo_type_id, the 136-byte movement block
 * when ammo_type_id != 0, u8 client_count + hit records, u8 server_count +
 * hit records. Any other used byte is an error.
 *
 * Opening validates the framing of every slot (so iterators rarely fail)
 * and keeps a sparse index (one checkpoint every VP_DW_CKPT_EVERY traces);
 * fields are decoded on demand, read through a source (core/source.h: a
 * file truncated while open fails the read with ECHANGED). A slot that runs past
 * the end of the file (a truncated file, or a footer that is missing) ends
 * the read: every complete slot before it is kept, `truncated` is set and a
 * warning names the offset; with opts->strict the open fails instead
 * (ETRUNC, with the warning's message). */
#ifndef VP_DW_H
#define VP_DW_H

#include <stddef.h>
#include <stdint.h>

#include "core/open_opts.h"
#include "core/source.h"
#include "core/vp_error.h"

#define VP_DW_MOVEMENT_SIZE 136
#define VP_DW_ENTITY_SIZE 38
#define VP_DW_MATRIX_SIZE 64
/* type..have_ragdoll with both optional blocks absent */
#define VP_DW_HIT_MIN 41
/* used..server_count with no movement block and no hits */
#define VP_DW_TRACE_MIN 12
#define VP_DW_CKPT_EVERY 64
#define VP_DW_HIT_TYPES 11

typedef struct vp_dw_ckpt {
    uint64_t off;   /* offset of the slot holding trace `trace` */
    uint64_t slot;  /* 0-based slot index */
    uint64_t trace; /* 0-based index among used slots */
} vp_dw_ckpt;

typedef struct vp_dw {
    vp_src src;
    uint8_t header[4];
    uint8_t max_size;
    int have_footer;             /* 0 when the file ended inside the slots */
    uint32_t last_trace_counter; /* valid when have_footer */
    int truncated;               /* some bytes at the end could not be read */
    uint64_t slots_end;          /* offset after the last complete slot */
    uint64_t slot_count, trace_count, empty_slots;
    uint64_t client_hits, server_hits, movement_blocks;
    uint64_t hits_by_type[VP_DW_HIT_TYPES + 1]; /* last: types above 10 */
    vp_dw_ckpt *ckpt;
    size_t nckpt;
    vp_warnings warnings;
} vp_dw;

/* Open `path`, or a caller-owned buffer that must outlive the model. opts
 * may be NULL. On failure *out is NULL and err says why (without the file
 * name). */
vp_errcode vp_dw_open(const char *path, const vp_open_opts *opts, vp_dw **out, vp_error *err);
vp_errcode vp_dw_open_mem(const void *buf, size_t n, const vp_open_opts *opts, vp_dw **out,
                          vp_error *err);
void vp_dw_free(vp_dw *d);

/* One slot, decoded. Offsets are file offsets. */
typedef struct vp_dw_trace {
    uint64_t off, size;
    uint64_t slot;  /* 0-based slot index */
    uint64_t index; /* 0-based trace index (used slots only); valid when used */
    uint8_t used;
    uint8_t unknown_01;
    uint32_t trace_id, ammo_type_id;
    uint64_t movement_off; /* 0 when there is no movement block */
    uint8_t client_count, server_count;
    uint64_t client_off, server_off; /* first hit of each list */
} vp_dw_trace;

/* The 136-byte movement block, by offset. */
typedef struct vp_dw_movement {
    uint8_t unknown_00[4];
    float ray_start[3];  /* 0x04 */
    float ray_end[3];    /* 0x10 */
    float weapon_range;  /* 0x1C */
    uint16_t unknown_20;
    uint8_t unknown_22[34];
    uint8_t unknown_44[4]; /* looks like a pointer: bytes, never data */
    uint8_t bullet;        /* 0x48 */
    uint8_t unknown_49[3];
    float unknown_4c[3];
    uint32_t damage_per_round; /* 0x58 */
    uint8_t unknown_5c[12];
    float unknown_68[3];
    uint32_t weapon_template_id; /* 0x74 */
    uint8_t slot_index;          /* 0x78 */
    uint8_t unknown_79[15];
} vp_dw_movement;

typedef struct vp_dw_hit {
    uint64_t off, size;
    uint8_t type;
    uint32_t trace_id, time;
    uint16_t unknown_09;
    float position[3], direction[3];
    uint32_t physics_material;
    uint8_t have_entity; /* non-zero: the entity block follows */
    struct {
        uint64_t guid;
        float position[3];
        float rotation[4]; /* x, y, z, w */
        int8_t unknown_24;
        uint8_t unknown_25;
    } entity;
    uint8_t have_ragdoll; /* non-zero: the ragdoll block follows */
    uint64_t ragdoll_guid;
    uint8_t ragdoll_count;
    uint64_t ragdoll_off; /* first Matrix4x4 */
} vp_dw_hit;

/* Name of a hit type (ERROR .. Validated), NULL above 10. */
const char *vp_dw_hit_type_name(unsigned type);

/* Walk slots in file order. Start with vp_dw_iter_begin; each
 * call decodes the next slot into *t and returns 1, 0 after the last, -1 on
 * error (err filled; cannot happen for slots validated at open unless the
 * file changed since: ECHANGED). */
typedef struct vp_dw_iter {
    uint64_t off, slot, trace;
} vp_dw_iter;

void vp_dw_iter_begin(const vp_dw *d, vp_dw_iter *it);
int vp_dw_iter_next(vp_dw *d, vp_dw_iter *it, vp_dw_trace *t, vp_error *err);
/* Position `it` so that the next used slot returned is trace `index`
 * (0-based; < trace_count). */
void vp_dw_iter_seek_trace(vp_dw *d, vp_dw_iter *it, uint64_t index);

/* Decode the slot at `off` (slot and trace indices as given). */
vp_errcode vp_dw_trace_at(vp_dw *d, uint64_t off, uint64_t slot, uint64_t trace, vp_dw_trace *t,
                          vp_error *err);
/* The movement block at `off` (a trace's movement_off); zeros and an error
 * when the read fails. */
vp_errcode vp_dw_movement_at(vp_dw *d, uint64_t off, vp_dw_movement *m, vp_error *err);
/* Decode the hit at `off`. */
vp_errcode vp_dw_hit_at(vp_dw *d, uint64_t off, vp_dw_hit *h, vp_error *err);
/* Transform i (< ragdoll_count) of a ragdoll block (row-major, 4 rows of
 * x, y, z, w); zeros and an error when the read fails. */
vp_errcode vp_dw_matrix_at(vp_dw *d, const vp_dw_hit *h, unsigned i, float m[16], vp_error *err);

#endif
