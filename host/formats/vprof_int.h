/* What the pieces of the VProf reader share. Not part of the API (that is
 * formats/vprof.h); only host/formats/vprof_*.c include this. The reader
 * is split by job:
 *
 *   vprof_model.c   the model: id -> index maps, names, budget groups,
 *                   epochs, freeing
 *   vprof_decode.c  timing records: the decoders both passes use, and
 *                   their scratch arrays
 *   vprof_open.c    the open pass: structure records, the frame index, the
 *                   two escape-width attempts, truncation rollback
 *   vprof_paths.c   node paths: building one, finding the node for one
 *   vprof_frames.c  decoding frames again: one frame, or a range in order
 *   vprof_stats.c   statistics over a range of frames (per-node totals,
 *                   group self times with hidden groups folded) */
#ifndef VP_VPROF_INT_H
#define VP_VPROF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "formats/vprof.h"

/* Record tokens (vprof-format.md). */
enum {
    TOK_START_FRAME = 0,
    TOK_ADD_NODE = 1,
    TOK_ADD_GROUP = 2,
    TOK_TIMINGS = 3,
    TOK_END_FRAME = 4,
};

/* ---- the model (vprof_model.c) ----------------------------------------- */

struct vp_idmap;
/* Insert or overwrite; 0 on OOM. */
int vp_vprof_idmap_put(struct vp_idmap *m, int32_t k, uint32_t v);
/* Empty the map, keeping its memory. */
void vp_vprof_idmap_clear(struct vp_idmap *m);

/* Grow *p (an array of *cap elements of elem bytes) to hold at least need;
 * 0 on OOM or when need does not fit in a uint32_t count. */
int vp_vprof_grow(void **p, uint32_t *cap, uint32_t need, size_t elem);
/* Copy a name into the model's name pool; its offset, UINT32_MAX on OOM. */
uint32_t vp_vprof_names_add(vp_vprof *m, const char *s, size_t len);

/* An empty model (escape width 4); NULL on OOM. */
vp_vprof *vp_vprof_model_new(void);
/* Add a group; its index, VP_VPROF_NO_NODE on OOM. */
uint32_t vp_vprof_group_add(vp_vprof *m, int32_t id, const char *name, size_t len, int32_t flags,
                            int declared);
/* The group a node names, created from the default table (or as group#N)
 * when the file never declared it, with a warning at `off` when `warn`.
 * VP_VPROF_NO_NODE on OOM. */
uint32_t vp_vprof_group_resolve(vp_vprof *m, int32_t id, int warn, uint64_t off);
/* Add each of the 31 default groups the model does not have yet (a file
 * whose declarations start after them relies on them); 0 on OOM. */
int vp_vprof_groups_add_defaults(vp_vprof *m);

/* ---- timing records (vprof_decode.c) ------------------------------------ */

typedef struct vprof_decode_stats {
    int escapes;   /* time values that used the escape */
    int anomalies; /* escaped values below their escape threshold */
} vprof_decode_stats;

/* Decode n timing records (calls, time) at *pp, escape width ew. Returns
 * the number of records decoded; fewer than n means the buffer ended
 * first. */
uint32_t vp_vprof_timings_decode(const uint8_t **pp, const uint8_t *end, uint32_t n, int ew,
                                 uint64_t *units, uint32_t *calls, vprof_decode_stats *st);
/* The open pass's decoder: calls are only checked, and each time is also
 * added to its parent's slot of csum (see vprof_decode.c). */
uint32_t vp_vprof_timings_index(const uint8_t **pp, const uint8_t *end, uint32_t n, int ew,
                                const uint32_t *parent_pos, uint64_t *units, uint64_t *csum,
                                vprof_decode_stats *st);
/* Self times by position from inclusive ones; returns the frame time. */
uint64_t vp_vprof_self_by_pos(const vp_vprof_epoch *ep, const uint64_t *units, uint64_t *self);

/* Per-frame arrays, grown as the tree grows and reused frame to frame. */
typedef struct vprof_scratch {
    uint64_t *units, *self;
    uint32_t *calls;
    uint32_t cap;
    uint64_t *gacc;
    uint32_t gcap;
} vprof_scratch;

/* Room for n nodes (self gets n + 1 slots) and `groups` group sums; 0 on
 * OOM. */
int vp_vprof_scratch_fit(vprof_scratch *s, uint32_t n, uint32_t groups);
void vp_vprof_scratch_free(vprof_scratch *s);

#endif
