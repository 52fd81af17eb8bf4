/* Weapon trace (.dw) writer, built from the .dw section of
 * specs/format-notes.md alone: it shares no parsing code with the reader,
 * so round trips check one reading of the notes against another.
 *
 * Layout written: u8[4] header, u8 max_size, one slot per trace or empty
 * slot in call order, then (at close, unless told not to) the u32
 * last_trace_counter footer. Overrides for counts and flags let tests build
 * deliberately inconsistent files. */
#ifndef VP_DW_WRITE_H
#define VP_DW_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "core/vp_error.h"

typedef struct vp_dw_writer vp_dw_writer;

/* The 136-byte movement block, field by field at the offsets of the notes. */
typedef struct vp_dw_wmovement {
    uint8_t unknown_00[4];
    float ray_start[3], ray_end[3];
    float weapon_range;
    uint16_t unknown_20;
    uint8_t unknown_22[34];
    uint8_t unknown_44[4];
    uint8_t bullet;
    uint8_t unknown_49[3];
    float unknown_4c[3];
    uint32_t damage_per_round;
    uint8_t unknown_5c[12];
    float unknown_68[3];
    uint32_t weapon_template_id;
    uint8_t slot_index;
    uint8_t unknown_79[15];
} vp_dw_wmovement;

typedef struct vp_dw_whit {
    uint8_t type;
    uint32_t trace_id, time;
    uint16_t unknown_09;
    float position[3], direction[3];
    uint32_t physics_material;
    uint8_t have_entity; /* non-zero writes the entity block */
    uint64_t entity_guid;
    float entity_position[3];
    float entity_rotation[4];
    int8_t entity_unknown_24;
    uint8_t entity_unknown_25;
    uint8_t have_ragdoll; /* non-zero writes the ragdoll block */
    uint64_t ragdoll_guid;
    int ragdoll_count; /* the count byte; -1: ragdoll_n */
    size_t ragdoll_n;      /* transforms written */
    const float *ragdoll;  /* ragdoll_n x 16 floats, row-major */
} vp_dw_whit;

typedef struct vp_dw_wtrace {
    uint8_t used; /* 1 for a trace; other values write a broken slot */
    uint8_t unknown_01;
    uint32_t trace_id, ammo_type_id;
    vp_dw_wmovement movement; /* written when ammo_type_id != 0 */
    int client_count, server_count; /* count bytes; -1: nclient / nserver */
    size_t nclient, nserver;
    const vp_dw_whit *client, *server;
} vp_dw_wtrace;

/* The file's header: u8[4] header and u8 max_size. */
typedef struct vp_dw_wopts {
    uint8_t header[4];
    uint8_t max_size;
} vp_dw_wopts;

/* Zeroes with used = 1 and the count overrides off. */
void vp_dw_wtrace_init(vp_dw_wtrace *t);
/* Zeroes with ragdoll_count = -1. */
void vp_dw_whit_init(vp_dw_whit *h);

/* Create (truncate) `path`, write header and max_size (o NULL: zeros).
 * NULL + err on failure. */
vp_dw_writer *vp_dw_writer_open(const char *path, const vp_dw_wopts *o, vp_error *err);
vp_errcode vp_dw_writer_trace(vp_dw_writer *w, const vp_dw_wtrace *t, vp_error *err);
/* An empty slot: the single byte 0. */
vp_errcode vp_dw_writer_empty(vp_dw_writer *w, vp_error *err);
vp_errcode vp_dw_writer_raw(vp_dw_writer *w, const void *p, size_t n, vp_error *err);
/* Traces written so far (used slots). */
uint64_t vp_dw_writer_traces(const vp_dw_writer *w);
/* Bytes written so far: the offset the next slot starts at. */
uint64_t vp_dw_writer_tell(const vp_dw_writer *w);
/* Cut the file to n bytes when it is closed (when it is longer). */
void vp_dw_writer_truncate(vp_dw_writer *w, uint64_t n);
/* The file as closing it now with the defaults would leave it (the footer
 * counting the traces so far, cut as asked), read back from the file after
 * handing it what is buffered; the writer stays open. Valid until the next
 * call on w. NULL with err on failure. */
const uint8_t *vp_dw_writer_data(vp_dw_writer *w, size_t *len, vp_error *err);
/* Write the footer when `footer` is non-zero, flush, close (applying the
 * cut), free w (also on failure). *bytes (may be NULL) receives the file
 * size. */
vp_errcode vp_dw_writer_close(vp_dw_writer *w, int footer, uint32_t last_trace_counter,
                              uint64_t *bytes, vp_error *err);

#endif
