/* What the pieces of the VProf reader share. Not part of the API (that is
 * formats/vprof.h); only host/formats/vprof_*.c include this. The reader
 * is split by job:
 *
 *   vprof_model.c   the model: id -> index maps, names, budget groups,
 *                   epochs, freeing
 *   vprof_decode.c  timing records: the decoders every pass uses, and their
 *                   scratch arrays
 *   vprof_open.c    the open pass: structure records, the frame records,
 *                   the two escape-width attempts, truncation rollback
 *   vprof_paths.c   node paths: full and elided, the path order, finding
 *                   the node for one, finding nodes by glob or name
 *   vprof_frames.c  decoding frames again: one frame, or a range in order
 *   vprof_stats.c   whole-capture statistics (the accumulator the open pass
 *                   and the statistics pass share), per-node totals over
 *                   a range, the measuring pass (vp_vprof_measure)
 *   vprof_hitches.c hitch detection and each hitch's causes */
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

/* The longest timing record: calls 1 + 2, time 2 + an 8-byte escape. */
#define VPROF_REC_MAX 13

/* An elided node path (vprof_paths.c) keeps the path of the deepest
 * ancestor whose path is at most VPROF_HEAD_MAX bytes, and the node's last
 * components, at most VPROF_TAIL_MAX bytes (the node's own name always,
 * however long). */
#define VPROF_HEAD_MAX 64
#define VPROF_TAIL_MAX 128

/* ---- the model (vprof_model.c) ----------------------------------------- */

struct vp_idmap;
/* Insert or overwrite; 0 on OOM. */
int vp_vprof_idmap_put(struct vp_idmap *m, int32_t k, uint32_t v);
/* Empty the map, keeping its memory. */
void vp_vprof_idmap_clear(struct vp_idmap *m);

/* Grow *p (an array of *cap elements of elem bytes) to hold at least need;
 * 0 on OOM or when need does not fit in a uint32_t count. */
int vp_vprof_grow(void **p, uint32_t *cap, uint32_t need, size_t elem);
/* Each node's label (vp_vprof_node.label): its name escaped for paths
 * (vprof_paths.c). 0 on OOM. */
int vprof_labels(vp_vprof *m);

/* Copy a name into the model's name pool; its offset, UINT32_MAX on OOM. */
uint32_t vp_vprof_names_add(vp_vprof *m, const char *s, size_t len);

/* An empty model (escape width 4); NULL on OOM. */
vp_vprof *vp_vprof_model_new(void);
void vp_vprof_model_free(vp_vprof *m);
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
/* Node v's folded group from its own group and its parent's (parents come
 * first in index order, so one forward sweep sets every node). */
void vp_vprof_node_set_vis(vp_vprof *m, uint32_t v);
/* Forget the cached epoch (the tree it was built for changed). */
void vp_vprof_epoch_reset(vp_vprof *m);

/* ---- timing records (vprof_decode.c) ------------------------------------ */

typedef struct vprof_decode_stats {
    int escapes;   /* time values that used the escape */
    int anomalies; /* escaped values below their escape threshold */
    uint64_t any;  /* the OR of every time value: 0 means no timings at all */
} vprof_decode_stats;

/* Decode timing records i.. of n at *pp (escape width ew) while whole
 * records are left before `end`: units[k] and, when not NULL, calls[k].
 * Returns the index of the first record not decoded (n when all were).
 * Resumable: call again with that index after more bytes come. */
uint32_t vp_vprof_timings(const uint8_t **pp, const uint8_t *end, uint32_t i, uint32_t n, int ew,
                          uint64_t *units, uint32_t *calls, vprof_decode_stats *st);

/* Self times by position (inclusive time minus the children's, clamped at
 * 0) from a frame's decoded times, with tmp (n + 1 entries) as scratch;
 * returns the frame time. */
uint64_t vp_vprof_self_by_pos(const vp_vprof_epoch *ep, const uint64_t *units, uint64_t *self,
                              uint64_t *tmp);
/* The same for the inner nodes' positions only (ep->inner): a leaf's self
 * time is its time, and self[] is left alone there. */
uint64_t vp_vprof_self_inner(const vp_vprof_epoch *ep, const uint64_t *units, uint64_t *self,
                             uint64_t *tmp);
/* The sum of the root's children's times. The frame time is that, or the
 * root's own time when larger (format-notes: the root is about 0 in real
 * captures). */
uint64_t vp_vprof_root_kids(const vp_vprof_epoch *ep, const uint64_t *units);

static inline uint64_t vp_vprof_frame_units(const vp_vprof_epoch *ep, const uint64_t *units)
{
    if (!ep->n)
        return 0;
    uint64_t kids = vp_vprof_root_kids(ep, units);
    return units[0] > kids ? units[0] : kids;
}

/* Per-frame arrays, grown as the tree grows and reused frame to frame. */
typedef struct vprof_scratch {
    uint64_t *units, *self, *tmp;
    uint32_t *calls;
    uint32_t cap;
} vprof_scratch;

/* Room for n nodes; 0 on OOM. */
int vp_vprof_scratch_fit(vprof_scratch *s, uint32_t n);
void vp_vprof_scratch_free(vprof_scratch *s);

/* Free m->causes_mem (vprof_hitches.c). */
void vprof_causes_mem_free(vp_vprof *m);

/* ---- decoding frames again (vprof_frames.c) ------------------------------ */

/* What vp_vprof_frame_decode produces besides the times. */
#define VPROF_WANT_CALLS 1
#define VPROF_WANT_SELF 2

/* Decode frame fi's first `upto` timing records (its node count or fewer)
 * into s (sized for its n): units and, as `want` says, calls and self times
 * (self needs every record), by position in the epoch of n nodes (passed
 * in). A whole frame is checked to end where the next begins. */
vp_errcode vp_vprof_frame_decode(vp_vprof *m, uint32_t fi, const vp_vprof_epoch *ep,
                                 vprof_scratch *s, unsigned want, uint32_t upto, vp_error *err);

/* The step of every pass over frames: frame fi's epoch (*ep), room in s,
 * and its records decoded as vp_vprof_frame_decode does (upto: UINT32_MAX
 * for all). */
vp_errcode vp_vprof_frame_next(vp_vprof *m, uint32_t fi, vprof_scratch *s, unsigned want,
                               uint32_t upto, const vp_vprof_epoch **ep, vp_error *err);

/* ---- whole-capture statistics (vprof_stats.c) ------------------------------ */

/* Accumulates statistics frame by frame from decoded records by position:
 * the open pass and the statistics pass share it. */
typedef struct vprof_acc {
    unsigned what;           /* VP_VPROF_STATS_* being computed */
    uint32_t first;          /* first frame of the range (node totals) */
    vp_vprof_node_stat *out; /* node totals, by node index */
    uint32_t out_cap;        /* entries of out when it is the accumulator's own */
    int own_out;
    /* Node totals by position since the current epoch began: a record per
     * position, so that a frame updates one run of memory. */
    uint32_t ep_n;
    uint32_t *order;         /* that epoch's pos -> node */
    uint8_t *inner;          /* that epoch's pos -> 1 for an inner node (self
                              * totals kept), 0 for a leaf (self = time) */
    struct vprof_pos_tot {
        uint64_t time, self, calls, peak, peak_self;
        uint32_t peak_frame;
    } *tot;
    uint32_t pos_cap;
    /* Groups (and folded groups) with nodes in the epoch, and their nodes'
     * positions: group g = active[k] sums self[pos[start[k] .. start[k + 1])]. */
    struct vprof_gsets {
        uint32_t *active, *start, *pos;
        uint8_t *in; /* by group index */
        uint32_t n;
    } g, f;
    uint32_t gcap, pcap;
    /* Folded sums are the plain ones until an epoch has a node whose folded
     * group differs: only then are the streams copied and kept apart. */
    int f_live;
    /* Node totals of the nodes with these names only (vprof_acc_names):
     * want[v] by node index for the want_n nodes looked at so far, and the
     * positions of the wanted nodes in the epoch, wpos[0 .. nw). */
    const char *const *names;
    uint32_t n_names;
    uint8_t *want;
    uint32_t want_n, want_cap;
    uint32_t *wpos, nw;
} vprof_acc;

/* Start accumulating `what` into m->stats (out == NULL) or, for node totals
 * over a range starting at frame `first`, into out (node_count entries,
 * zeroed here); 0 on OOM. */
int vprof_acc_begin(vprof_acc *a, vp_vprof *m, unsigned what, vp_vprof_node_stat *out,
                    uint32_t first);
/* Node totals (into m->stats only) for the nodes named one of names[0 ..
 * n) alone: call after vprof_acc_begin; the names must outlive the
 * accumulator. */
void vprof_acc_names(vprof_acc *a, const char *const *names, uint32_t n);
/* Add frame fi (records by position in ep; calls may be NULL unless node
 * totals are computed; self as vp_vprof_self_by_pos gives it, or only at
 * the inner nodes, vp_vprof_self_inner, when no group statistics are
 * kept); 0 on OOM. */
int vprof_acc_frame(vprof_acc *a, vp_vprof *m, const vp_vprof_epoch *ep, uint32_t fi,
                    const uint64_t *units, const uint64_t *self, const uint32_t *calls);
/* Finish after frame `last` (frames: the count accumulated): fold the last
 * epoch's totals in and fill each node's frame count; 0 on OOM. */
int vprof_acc_end(vprof_acc *a, vp_vprof *m, uint32_t last);
void vprof_acc_free(vprof_acc *a);
/* Allocate m->stats' arrays for `what` (nothing computed yet); 0 on OOM. */
int vprof_stats_alloc(vp_vprof *m, unsigned what);
/* Free the statistics `what` and clear their bits. */
void vprof_stats_drop(vp_vprof *m, unsigned what);

#endif
