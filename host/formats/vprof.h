/* Source engine VProf recordings (.vprof): the model and its reader.
 *
 * Opening makes one pass over the file. That pass validates the framing,
 * builds the frame offset index and, since it has to decode every timing
 * record anyway to find where a frame ends, also computes each frame's time
 * and each budget group's self time per frame. Everything else decodes
 * frames on demand from the index (vp_vprof_frame_read, vp_vprof_pass).
 *
 * Nodes are numbered in the order they were added ("index"; the root is 0),
 * which is also the order of the node arrays below. A frame holds the nodes
 * with index < frame's node count: nodes are never removed. */
#ifndef VP_VPROF_H
#define VP_VPROF_H

#include <stddef.h>
#include <stdint.h>

#include "core/mapfile.h"
#include "core/open_opts.h"
#include "core/series.h"
#include "core/vp_error.h"

#define VP_VPROF_NO_NODE UINT32_MAX
#define VP_VPROF_DEFAULT_GROUPS 31
/* Times are stored in the file in units of 4 microseconds. */
#define VP_VPROF_US_PER_UNIT 4

typedef struct vp_vprof_node {
    int32_t id;           /* the file's node id */
    int32_t group_id;     /* budget group id as written */
    uint32_t parent;      /* index, VP_VPROF_NO_NODE for the root */
    uint32_t first_child; /* index of the newest child (children are prepended) */
    uint32_t next_sibling;
    uint32_t name;        /* offset in names */
    uint32_t depth;       /* root 0 */
    uint32_t first_frame; /* 0-based frame in which the node first exists */
    uint32_t group;       /* index into groups */
    uint32_t dup;         /* 0, or k >= 2 for the k-th sibling of the same name */
} vp_vprof_node;

typedef struct vp_vprof_group {
    int32_t id;          /* positional id */
    int32_t flags;       /* BUDGETFLAG_* */
    uint32_t name;       /* offset in names */
    uint8_t declared;    /* 1: from an AddBudgetGroup record */
    uint8_t has_nodes;   /* 1: at least one node is in this group */
    vp_series *self_ms;  /* self time per frame (ms), NULL when no nodes */
} vp_vprof_group;

#define VP_BUDGETFLAG_CLIENT 0x1
#define VP_BUDGETFLAG_SERVER 0x2
#define VP_BUDGETFLAG_OTHER 0x4
#define VP_BUDGETFLAG_HIDDEN 0x8000

/* The pre-order of the tree as it stood at a given node count: the order
 * timing records are written in. */
typedef struct vp_vprof_epoch {
    uint32_t n;          /* node count */
    uint32_t *order;     /* pos -> node index */
    uint32_t *parent_pos;/* pos -> parent's pos; n for the root, so sums into
                          * slot n (callers size such arrays n + 1) */
    uint32_t *group;     /* pos -> group index */
} vp_vprof_epoch;

typedef struct vp_vprof {
    vp_map map;
    int32_t version;
    int32_t root_id;
    int escape_width;      /* 4 or 8 */
    int escapes_seen;      /* 1 when a time value needed the escape */
    int truncated;
    int zero_timings;
    int group_base;        /* 0 or 31: id of the first AddBudgetGroup record */

    vp_vprof_node *nodes;
    uint32_t node_count, node_cap;
    vp_vprof_group *groups;
    uint32_t group_count, group_cap;
    char *names;
    size_t names_len, names_cap;

    /* Frame index. */
    uint32_t frame_count, frame_cap;
    uint64_t *frame_off;   /* byte offset of Token_StartFrame */
    int32_t *frame_tick;
    uint32_t *frame_nodes; /* node count of the frame */
    vp_series *frame_ms;

    vp_warnings warnings;

    /* Private: id -> index maps and the cached epoch. */
    struct vp_idmap *node_ids, *group_ids;
    vp_vprof_epoch epoch;
} vp_vprof;

/* Open a file or a caller-owned buffer (opts may be NULL; the reader uses
 * escape_width and reports progress through the open pass). On failure
 * *out is NULL and err says where and why (the message does not name the
 * file). */
vp_errcode vp_vprof_open(const char *path, const vp_open_opts *opts, vp_vprof **out,
                         vp_error *err);
vp_errcode vp_vprof_open_mem(const void *buf, size_t n, const vp_open_opts *opts,
                             vp_vprof **out, vp_error *err);
void vp_vprof_free(vp_vprof *m);

static inline const char *vp_vprof_name(const vp_vprof *m, uint32_t off)
{
    return m->names + off;
}

/* Node index for a node id, or VP_VPROF_NO_NODE. */
uint32_t vp_vprof_node_by_id(const vp_vprof *m, int32_t id);
/* Node index for a path ("Root/A/B", "A/B" relative to the root, "#k"
 * suffixes for same-named siblings), or VP_VPROF_NO_NODE. */
uint32_t vp_vprof_node_by_path(const vp_vprof *m, const char *path, size_t len);
/* Write the node's path into buf (always NUL-terminated); returns the full
 * length it needs, like snprintf. */
size_t vp_vprof_node_path(const vp_vprof *m, uint32_t node, char *buf, size_t cap);
/* Group index for a group id, or VP_VPROF_NO_NODE. */
uint32_t vp_vprof_group_by_id(const vp_vprof *m, int32_t id);
/* The group that a node's self time counts towards when hidden groups are
 * folded into their nearest visible ancestor's group. */
uint32_t vp_vprof_visible_group(const vp_vprof *m, uint32_t node);

/* The epoch (pre-order) of a node count; valid until the next call. */
const vp_vprof_epoch *vp_vprof_epoch_for(vp_vprof *m, uint32_t n);

/* One decoded frame, indexed by node index (< n). Times in 4 us units. */
typedef struct vp_vprof_fdata {
    uint32_t n;
    uint64_t *units; /* inclusive */
    uint64_t *self;  /* exclusive, clamped at 0 */
    uint32_t *calls;
} vp_vprof_fdata;

/* Bytes needed for fdata arrays of n nodes (for callers that allocate the
 * arrays themselves, e.g. inside a Lua userdata). */
size_t vp_vprof_fdata_size(uint32_t n);
/* Point fd's arrays into mem (vp_vprof_fdata_size(n) bytes, 8-aligned). */
void vp_vprof_fdata_init(vp_vprof_fdata *fd, uint32_t n, void *mem);
/* Decode frame fi (0-based) into fd (initialised for the frame's n). */
vp_errcode vp_vprof_frame_read(vp_vprof *m, uint32_t fi, vp_vprof_fdata *fd, vp_error *err);

/* Whole-range pass: decode frames first..last (0-based, inclusive) in
 * order and call fn for each with arrays indexed by position in the
 * epoch's pre-order. fn returns non-zero to stop early. Pages are released
 * behind the cursor. */
typedef int (*vp_vprof_pass_fn)(void *ud, uint32_t fi, const vp_vprof_epoch *ep,
                                const uint64_t *units, const uint64_t *self,
                                const uint32_t *calls);
vp_errcode vp_vprof_pass(vp_vprof *m, uint32_t first, uint32_t last, vp_vprof_pass_fn fn,
                         void *ud, vp_error *err);

/* ---- statistics over a range of frames (vprof_stats.c) ------------------ */

/* One node's totals over a range of frames, in 4 us units. */
typedef struct vp_vprof_node_stat {
    uint64_t time, self;      /* inclusive and exclusive, summed */
    uint64_t peak, peak_self; /* the largest of one frame */
    uint64_t calls;
    uint32_t frames;     /* frames of the range in which the node exists */
    uint32_t peak_frame; /* 0-based frame of `peak` (the first such), when frames > 0 */
} vp_vprof_node_stat;

/* Per-node totals over frames first..last (0-based, inclusive; an empty or
 * out-of-range range gives zeros): out has node_count entries, by node
 * index. */
vp_errcode vp_vprof_node_stats(vp_vprof *m, uint32_t first, uint32_t last,
                               vp_vprof_node_stat *out, vp_error *err);

/* What vp_vprof_node_series reads of each node. */
typedef enum { VP_VPROF_TIME_MS, VP_VPROF_SELF_MS, VP_VPROF_CALLS } vp_vprof_field;

/* One pass over every frame appending, for each of the count nodes (node
 * indices), the field's value in that frame to out[k]: ms for times, 0 in
 * the frames before the node exists. */
vp_errcode vp_vprof_node_series(vp_vprof *m, const uint32_t *nodes, uint32_t count,
                                vp_vprof_field field, vp_series *const *out, vp_error *err);

/* 1 when some group that has nodes is hidden (BUDGETFLAG_HIDDEN), so that
 * folding changes anything. */
int vp_vprof_has_hidden_groups(const vp_vprof *m);
/* Fill vis (node_count entries): for each node, the group its self time
 * counts towards when hidden groups are folded (vp_vprof_visible_group). */
void vp_vprof_fold_map(const vp_vprof *m, uint32_t *vis);
/* One pass over every frame appending to out[g] (group_count entries; NULL
 * for a group to skip) the self time in ms of the nodes vis maps to g. */
vp_errcode vp_vprof_group_self_fold(vp_vprof *m, const uint32_t *vis, vp_series *const *out,
                                    vp_error *err);

/* The groups with at least one node. */
uint32_t vp_vprof_groups_with_nodes(const vp_vprof *m);
/* The lowest and highest tick of the frames; 0 when there are no frames. */
int vp_vprof_tick_range(const vp_vprof *m, int32_t *lo, int32_t *hi);
/* Group index for a group name (the first, in index order), or
 * VP_VPROF_NO_NODE. */
uint32_t vp_vprof_group_by_name(const vp_vprof *m, const char *name);

/* Milliseconds from 4 us units. */
static inline double vp_vprof_ms(uint64_t units)
{
    return (double)units * (VP_VPROF_US_PER_UNIT / 1000.0);
}

#endif
