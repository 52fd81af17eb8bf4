/* Source engine VProf recordings (.vprof): the model and its reader.
 *
 * The file is read through a window (core/source.h), never mapped: a file
 * truncated while open is an error (ECHANGED), not a SIGBUS.
 *
 * Opening makes one pass over the file. That pass validates the framing,
 * adds the nodes and groups, and keeps one fixed record per frame (its
 * offset, tick, node count and time: 24 bytes), since it has to decode
 * every timing record anyway to find where a frame ends. On request
 * (vp_open_opts.stats) the same pass also computes whole-capture
 * statistics: per budget group, a summary of its self time per frame (exact
 * value counts, which also give the exact sum, and the first minimum and
 * maximum; never the column itself), with hidden groups folded or not, and per-node
 * totals. What was not asked for at open is computed by one more pass, all
 * of it at once, the first time it is needed (vp_vprof_stats_need).
 * Everything else decodes frames on demand from the frame records
 * (vp_vprof_frame_read, vp_vprof_pass): memory grows with the tree and the
 * frame count, never with frames x nodes.
 *
 * Nodes are numbered in the order they were added ("index"; the root is 0),
 * which is also the order of the node arrays below; a parent's index is
 * always below its children's. A frame holds the nodes with index < frame's
 * node count: nodes are never removed. */
#ifndef VP_VPROF_H
#define VP_VPROF_H

#include <stddef.h>
#include <stdint.h>

#include "core/hist.h"
#include "core/hitch.h"
#include "core/infer.h"
#include "core/open_opts.h"
#include "core/series.h"
#include "core/source.h"
#include "core/vp_error.h"

#define VP_VPROF_NO_NODE UINT32_MAX
#define VP_VPROF_DEFAULT_GROUPS 31
/* Times are stored in the file in units of 4 microseconds. */
#define VP_VPROF_US_PER_UNIT 4

/* vp_open_opts.stats and vp_vprof_stats_need: whole-capture statistics. */
#define VP_VPROF_STATS_GROUPS 1u /* per group: self time per frame (vp_stream) */
#define VP_VPROF_STATS_FOLDED 2u /* the same with hidden groups folded */
#define VP_VPROF_STATS_NODES 4u  /* per node: totals over every frame */
#define VP_VPROF_STATS_ALL 7u

/* Node paths longer than this many bytes are shown elided (vp_vprof_node_path). */
#define VP_VPROF_PATH_MAX 256

typedef struct vp_vprof_node {
    int32_t id;           /* the file's node id */
    int32_t group_id;     /* budget group id as written */
    uint32_t parent;      /* index, VP_VPROF_NO_NODE for the root */
    uint32_t first_child; /* index of the newest child (children are prepended) */
    uint32_t next_sibling;
    uint32_t name;        /* offset in names */
    uint32_t label;       /* offset in names: the name as a path component,
                           * escaped (vprof_paths.c); the name's when it
                           * needs no escape */
    uint32_t depth;       /* root 0 */
    uint32_t first_frame; /* 0-based frame in which the node first exists */
    uint32_t group;       /* index into groups */
    uint32_t dup;         /* 0, or k >= 2 for the k-th sibling of the same name */
    uint32_t vis;         /* the group its self time counts towards with hidden
                           * groups folded (vp_vprof_visible_group) */
    uint32_t path_len;    /* bytes of its full path, saturated at UINT32_MAX */
    uint32_t head;        /* its deepest ancestor-or-self whose full path is
                           * short enough to head an elided path */
} vp_vprof_node;

typedef struct vp_vprof_group {
    int32_t id;          /* positional id */
    int32_t flags;       /* BUDGETFLAG_* */
    uint32_t name;       /* offset in names */
    uint8_t declared;    /* 1: from an AddBudgetGroup record */
    uint8_t has_nodes;   /* 1: at least one node is in this group */
} vp_vprof_group;

#define VP_BUDGETFLAG_CLIENT 0x1
#define VP_BUDGETFLAG_SERVER 0x2
#define VP_BUDGETFLAG_OTHER 0x4
#define VP_BUDGETFLAG_HIDDEN 0x8000

/* One frame: what the open pass keeps of it. */
typedef struct vp_vprof_frame {
    uint64_t off;   /* byte offset of its Token_StartFrame */
    uint64_t units; /* frame time, 4 us units */
    int32_t tick;
    uint32_t n;     /* node count */
} vp_vprof_frame;

/* The pre-order of the tree as it stood at a given node count: the order
 * timing records are written in. */
typedef struct vp_vprof_epoch {
    uint32_t n;          /* node count */
    uint32_t *order;     /* pos -> node index */
    uint32_t *parent_pos;/* pos -> parent's pos; n for the root */
    uint32_t *group;     /* pos -> group index */
    uint32_t *vis;       /* pos -> group index with hidden groups folded */
    /* The children of each node that has some, by position: the inner
     * nodes inner[0..n_inner) (pre-order), the children of inner[k] at
     * kids[kid_start[k] .. kid_start[k + 1]). Self times gather their child
     * sums through these: no scatter, no chain of stores. */
    uint32_t n_inner;
    uint32_t *inner, *kid_start, *kids;
} vp_vprof_epoch;

/* One node's totals over a range of frames, in 4 us units. */
typedef struct vp_vprof_node_stat {
    uint64_t time, self;      /* inclusive and exclusive, summed */
    uint64_t peak, peak_self; /* the largest of one frame */
    uint64_t calls;
    uint32_t frames;     /* frames of the range in which the node exists */
    uint32_t peak_frame; /* 0-based frame of `peak` (the first such), when frames > 0 */
} vp_vprof_node_stat;

/* Whole-capture statistics (see the top of this file). */
typedef struct vp_vprof_stats {
    unsigned have;              /* VP_VPROF_STATS_* computed so far */
    vp_stream **group;          /* by group index: self time per frame (units),
                                 * NULL for a group no node counts towards */
    vp_stream **folded;         /* the same with hidden groups folded */
    uint32_t gcap;              /* entries of group and folded */
    vp_vprof_node_stat *node;   /* node_count: totals over every frame */
    uint8_t *node_some;         /* node totals of some nodes only (the open's
                                 * node_names; VP_VPROF_STATS_NODES unset):
                                 * 1 for each node whose totals are in node */
} vp_vprof_stats;

typedef struct vp_vprof {
    vp_src src;
    int32_t version;
    int32_t root_id;
    int escape_width;      /* 4 or 8 */
    int escapes_seen;      /* 1 when a time value needed the escape */
    int truncated;
    int corrupt;           /* bytes broke the format after the frames kept */
    int zero_timings;
    int group_base;        /* 0 or 31: id of the first AddBudgetGroup record */
    int hidden_groups;     /* some group that has nodes is hidden */
    int fold_differs;      /* some node counts towards another group folded */
    size_t causes_batch;   /* bytes of window values vp_vprof_causes holds at once;
                            * 0: 32 MiB (tests make it small) */
    int fold_changed;      /* a group's hidden flag changed after nodes named it */

    vp_vprof_node *nodes;
    uint32_t node_count, node_cap;
    vp_vprof_group *groups;
    uint32_t group_count, group_cap;
    char *names;
    size_t names_len, names_cap;

    /* Frame records; frames_end is the offset after the last one. After
     * vp_vprof_restrict they are a range of the file's frames, the first
     * being the file's frame frame_base (0-based). */
    vp_vprof_frame *frames;
    uint32_t frame_count, frame_cap;
    uint64_t frames_end;
    uint32_t frame_base;

    vp_stream frame_stream; /* the frame times (units), summarised */
    vp_vprof_stats stats;
    vp_warnings warnings;

    /* Private: id -> index maps, the cached epoch, the frame times as a
     * Series (built when first asked for), the path order (likewise), the
     * memory vp_vprof_causes reuses from one hitch to the next. */
    struct vp_idmap *node_ids, *group_ids;
    vp_vprof_epoch epoch;
    vp_series *frame_ms;
    uint32_t *path_rank;
    struct vprof_causes_mem *causes_mem;
} vp_vprof;

/* Open a file or a caller-owned buffer (opts may be NULL; the reader uses
 * escape_width, strict and stats, and reports progress through the open
 * pass). On failure *out is NULL and err says where and why (the message
 * does not name the file). */
vp_errcode vp_vprof_open(const char *path, const vp_open_opts *opts, vp_vprof **out,
                         vp_error *err);
vp_errcode vp_vprof_open_mem(const void *buf, size_t n, const vp_open_opts *opts,
                             vp_vprof **out, vp_error *err);
void vp_vprof_free(vp_vprof *m);

static inline const char *vp_vprof_name(const vp_vprof *m, uint32_t off)
{
    return m->names + off;
}

/* Milliseconds from 4 us units. */
static inline double vp_vprof_ms(uint64_t units)
{
    return (double)units * (VP_VPROF_US_PER_UNIT / 1000.0);
}

static inline double vp_vprof_frame_ms(const vp_vprof *m, uint32_t fi)
{
    return vp_vprof_ms(m->frames[fi].units);
}

/* The frame times in ms, one per frame, as a Series the model keeps (a
 * reference: unref it); NULL on OOM. */
vp_series *vp_vprof_frame_series(vp_vprof *m);

/* The exact sum in ms of the frame times of frames first..last (0-based,
 * inclusive), rounded once: the sum of vp_vprof_frame_series' values over
 * that range, without the column. NAN on OOM. */
double vp_vprof_time_sum(vp_vprof *m, uint32_t first, uint32_t last);

/* The sum in ms of the k slowest frame times (1 <= k <= frames): the times
 * above the k-th largest added in frame order, then that one for the rest;
 * what the low-FPS figures divide by k (vp.stats.low_fps sums a Series the
 * same way). *ok = 0 when k is out of range or on OOM. */
double vp_vprof_slowest_sum(vp_vprof *m, uint32_t k, int *ok);

/* Keep frames first..last (0-based, inclusive, of those the model holds)
 * and forget the others: from then on every figure, pass and statistic is
 * over that range, as if the file held those frames only (a hitch
 * baseline's window does not reach before it); frame_base says where the
 * range starts in the file. Statistics computed before are dropped; each
 * node's first_frame becomes relative to the range (0 for a node that
 * existed before it). Restricting again narrows the range. EUSAGE when the
 * range is empty or outside the frames (vprof_range.c). */
vp_errcode vp_vprof_restrict(vp_vprof *m, uint32_t first, uint32_t last, vp_error *err);

/* ---- nodes and paths (vprof_paths.c) -------------------------------------- */

/* Node index for a node id, or VP_VPROF_NO_NODE. */
uint32_t vp_vprof_node_by_id(const vp_vprof *m, int32_t id);
/* Node index for a path ("Root/A/B", "A/B" relative to the root, "#k"
 * suffixes for same-named siblings, or an elided path as
 * vp_vprof_node_path writes it), or VP_VPROF_NO_NODE. Work linear in the
 * path and the children looked at, whatever the depth. */
uint32_t vp_vprof_node_by_path(const vp_vprof *m, const char *path, size_t len);
/* Write the node's full path into buf (always NUL-terminated); returns the
 * full length it needs, like snprintf. O(depth). */
size_t vp_vprof_node_full_path(const vp_vprof *m, uint32_t node, char *buf, size_t cap);
/* The node's path as listings show it: the full path when it is at most
 * VP_VPROF_PATH_MAX bytes, else its first components, the marker
 * "/…[id=N]/" naming the node's id (so paths stay unique) and its last
 * components, at least the node's own name. Bounded work per node, so
 * listing every node's path is linear in the file. Returns the length it
 * needs, like snprintf. */
size_t vp_vprof_node_path(const vp_vprof *m, uint32_t node, char *buf, size_t cap);
/* Each node's position in the byte order of the full paths (0 for the
 * root), computed once without building a path: ties between rows "by
 * path" are settled in O(1). NULL on OOM. */
const uint32_t *vp_vprof_path_order(vp_vprof *m);
/* The node after v in pre-order (the engine's sibling order: a node's
 * newest child first), VP_VPROF_NO_NODE after the last. */
uint32_t vp_vprof_preorder_next(const vp_vprof *m, uint32_t v);
/* The node's path component: its name, with "#k" on the k-th of same-named
 * siblings. Returns the length it needs, like snprintf. */
size_t vp_vprof_node_label(const vp_vprof *m, uint32_t node, char *buf, size_t cap);
/* Globs (cap:find): `*` any run of bytes except '/', `**` any run, `?` one
 * byte except '/', `[abc]`, `[a-z]`, `[!abc]` a class (its first byte may
 * be ']'; '-' first or last is itself), `\x` the byte x; matched against
 * the whole string. vp_vprof_glob_error: the byte offset of a '[' that is
 * not closed, or -1 when the glob is well formed. vp_vprof_glob_match: 1
 * or 0, -1 for a malformed glob, -2 on OOM. */
long vp_vprof_glob_error(const char *glob, size_t len);
int vp_vprof_glob_match(const char *glob, size_t glen, const char *s, size_t slen);
/* The nodes a glob matches, as node indices in pre-order (*out malloc'ed,
 * NULL when none): on names (on_path 0: the name, or the node's own path
 * component with its "#k") or on paths (as vp_vprof_node_path lists them,
 * or relative to the root as vp_vprof_node_by_path takes them). EFORMAT
 * for a malformed glob, ENOMEM. Work: the nodes x their name or listed
 * path x the glob, whatever its stars. */
vp_errcode vp_vprof_find(const vp_vprof *m, const char *glob, size_t glen, int on_path,
                         uint32_t **out, uint32_t *count, vp_error *err);
/* Every node whose name is exactly name, in pre-order (*out malloc'ed). */
vp_errcode vp_vprof_nodes_named(const vp_vprof *m, const char *name, size_t len,
                                uint32_t **out, uint32_t *count, vp_error *err);
/* Group index for a group id, or VP_VPROF_NO_NODE. */
uint32_t vp_vprof_group_by_id(const vp_vprof *m, int32_t id);
/* The group that a node's self time counts towards when hidden groups are
 * folded into their nearest visible ancestor's group: its own group when
 * that is visible, else its parent's answer (its own group when no
 * ancestor's group is visible). O(1): kept per node. */
static inline uint32_t vp_vprof_visible_group(const vp_vprof *m, uint32_t node)
{
    return m->nodes[node].vis;
}

/* The epoch (pre-order) of a node count; valid until the next call. */
const vp_vprof_epoch *vp_vprof_epoch_for(vp_vprof *m, uint32_t n);

/* ---- frames (vprof_frames.c) ----------------------------------------------- */

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
 * epoch's pre-order. fn returns non-zero to stop early. */
typedef int (*vp_vprof_pass_fn)(void *ud, uint32_t fi, const vp_vprof_epoch *ep,
                                const uint64_t *units, const uint64_t *self,
                                const uint32_t *calls);
vp_errcode vp_vprof_pass(vp_vprof *m, uint32_t first, uint32_t last, vp_vprof_pass_fn fn,
                         void *ud, vp_error *err);

/* ---- statistics (vprof_stats.c) --------------------------------------------- */

/* Make sure the whole-capture statistics `what` (VP_VPROF_STATS_* bits)
 * are in m->stats: what the open pass did not compute, one pass computes
 * (everything missing at once). */
vp_errcode vp_vprof_stats_need(vp_vprof *m, unsigned what, vp_error *err);

/* Node v's totals over every frame when they are computed already (all
 * nodes', or those the open pass was asked for by name), else NULL: then
 * vp_vprof_stats_need(VP_VPROF_STATS_NODES) makes them. */
const vp_vprof_node_stat *vp_vprof_node_total(const vp_vprof *m, uint32_t v);

/* The self-time summary of group g (fold: with hidden groups folded), or
 * NULL when no node counts towards it. Call vp_vprof_stats_need first. */
vp_stream *vp_vprof_group_stream(vp_vprof *m, uint32_t g, int fold);

/* Per-node totals over frames first..last (0-based, inclusive; an empty or
 * out-of-range range gives zeros): out has node_count entries, by node
 * index. The whole capture comes from m->stats, a range from a pass over
 * its frames. */
vp_errcode vp_vprof_node_stats(vp_vprof *m, uint32_t first, uint32_t last,
                               vp_vprof_node_stat *out, vp_error *err);

/* ---- measuring per-frame quantities (vprof_stats.c) -------------------------
 * One pass over every frame computes the quantities asked for and feeds
 * each frame's value of each into that quantity's sinks. */

/* What a node quantity reads of the node. */
typedef enum { VP_VPROF_TIME_MS, VP_VPROF_SELF_MS, VP_VPROF_CALLS } vp_vprof_field;

typedef enum {
    VP_VPROF_Q_FRAME, /* the frame time */
    VP_VPROF_Q_NODE,  /* node `index`'s field: 0 in the frames before it exists */
    VP_VPROF_Q_GROUP  /* group `index`'s self time, hidden groups folded when
                       * `fold` (a capture without them: the same figures) */
} vp_vprof_qkind;

/* A quantity and its sinks. A sink left NULL is not fed; a quantity with
 * none costs nothing. Values are in ms for times and counts for calls in
 * the column and the batches, in 4 us units (counts for calls) in the
 * summary. */
typedef struct vp_vprof_quantity {
    vp_vprof_qkind kind;
    uint32_t index;       /* node or group index; unused for the frame time */
    vp_vprof_field field; /* VP_VPROF_Q_NODE only */
    int fold;             /* VP_VPROF_Q_GROUP only */
    vp_series *column;    /* each frame's value appended */
    vp_stream *summary;   /* (initialised) each frame's value added */
    vp_batched **batches; /* not NULL: *batches receives a new sample (the
                           * caller frees it) of the value counts over the
                           * segments [cuts[b], cuts[b + 1]) (b < k; cuts
                           * ascending from 0 to frame_count), each segment's
                           * sum added in frame order as a column's batch
                           * sum is (core/infer.h); NULL when the call fails */
} vp_vprof_quantity;

/* One pass over every frame for the nq quantities (cuts and k are read
 * only when some quantity asks for batches). ELIMIT for a node or group
 * index out of range or cuts that do not fit, ENOMEM, or the reading's
 * errors; on failure no batches are left, and columns and summaries hold
 * what was added before it. Frames are decoded only as far as the
 * quantities need: not at all for the frame time, up to the last node
 * asked for for times and calls, whole for self times; not read at all
 * when no quantity has a sink. */
vp_errcode vp_vprof_measure(vp_vprof *m, vp_vprof_quantity *q, size_t nq, const size_t *cuts,
                            size_t k, vp_error *err);

/* The batches of groups' self time (fold: hidden groups folded) over the
 * cuts, as vp_vprof_measure's: into out[g] (group_count entries) for every
 * group g with a summary (vp_vprof_group_stream; the statistics are made
 * first when missing) that want asks for (want[g] set; want NULL: all),
 * NULL for the others. The nextra quantities of extra are measured in the
 * same pass (copied; their sinks fed). On failure every out[g] and extra
 * batches are NULL. */
vp_errcode vp_vprof_group_batches(vp_vprof *m, int fold, const uint8_t *want, const size_t *cuts, size_t k,
                                  vp_batched **out, const vp_vprof_quantity *extra, size_t nextra,
                                  vp_error *err);

/* What vp_vprof_node_order sorts by (top.lua's orders): inclusive time,
 * self time, ms per call (none when never called), peak, peak over the
 * mean per frame (none when that mean is 0). */
typedef enum {
    VP_VPROF_BY_TIME,
    VP_VPROF_BY_SELF,
    VP_VPROF_BY_PER_CALL,
    VP_VPROF_BY_PEAK,
    VP_VPROF_BY_PEAK_OVER_AVG
} vp_vprof_node_key;

/* The nodes other than the root that exist in a range of nframes frames
 * (st: their totals over it, vp_vprof_node_stats), largest `key` first,
 * those without a value last, ties in path order: node indices into out
 * (node_count entries), *count how many. 0 on OOM. */
int vp_vprof_node_order(vp_vprof *m, const vp_vprof_node_stat *st, uint32_t nframes,
                        vp_vprof_node_key key, uint32_t *out, uint32_t *count);

/* 1 when some group that has nodes is hidden (BUDGETFLAG_HIDDEN), so that
 * folding changes anything. */
int vp_vprof_has_hidden_groups(const vp_vprof *m);
/* The groups with at least one node. */
uint32_t vp_vprof_groups_with_nodes(const vp_vprof *m);
/* The lowest and highest tick of the frames; 0 when there are no frames. */
int vp_vprof_tick_range(const vp_vprof *m, int32_t *lo, int32_t *hi);
/* Group index for a group name (the first, in index order), or
 * VP_VPROF_NO_NODE. */
uint32_t vp_vprof_group_by_name(const vp_vprof *m, const char *name);

/* ---- several captures at once (vprof_jobs.c) -------------------------------
 * The readers and passes of several models on threads of their own
 * (core/jobs.h, up to the processors online): a model's passes touch that
 * model and its file only, so different models' run at once. The bindings
 * call these from the Lua thread and never run threads themselves. */

/* One request of vp_vprof_batches_all: one vp_vprof_measure pass giving
 * the batches of the count nodes' field (node indices) into out[i] (count
 * entries) and, when gout is not NULL, of the groups' self time (hidden
 * groups not folded) into gout (group_count entries): every group's, or,
 * when gwant is not NULL, those with gwant[g] set (group_count entries);
 * NULL for a group not asked for or that no node counts towards. A request
 * with no nodes and no gout reads nothing (VP_OK). rc and err receive the
 * pass's outcome. */
typedef struct vp_vprof_batch_req {
    vp_vprof *m;
    const uint32_t *nodes;
    uint32_t count;
    vp_vprof_field field;
    const size_t *cuts; /* k + 1 of them: cuts[k] = m->frame_count */
    size_t k;
    vp_batched **out, **gout;
    const uint8_t *gwant;
    vp_errcode rc;
    vp_error err;
} vp_vprof_batch_req;

/* Run the n requests: each model's (in order of their first request) in
 * turn on one thread (a model's file window is its own), the models at
 * once. Returns n when every request succeeded; else the index of the
 * first that failed (its rc and err say why), with every request's
 * results freed and their out and gout entries NULL, so that the caller
 * reports one error and holds nothing. */
size_t vp_vprof_batches_all(vp_vprof_batch_req *req, size_t n);

/* One capture of vp_vprof_open_all: what vp_vprof_open gives. */
typedef struct vp_vprof_opened {
    vp_vprof *m; /* NULL when the open failed */
    vp_errcode rc;
    vp_error err;
} vp_vprof_opened;

/* vp_vprof_open(paths[i], opts, ...) into out[i] for every i < n, each open
 * on a thread of its own. opts (NULL: the defaults) is every open's, but
 * for its progress: opts->progress, unless NULL, is called on the calling
 * thread only, about every 50 ms and once when every open has returned,
 * with the bytes read of all the files and the sum of their sizes when the
 * opens began (done <= total). When this run's own memory cannot be had,
 * every open fails with VP_ENOMEM. */
void vp_vprof_open_all(const char *const *paths, size_t n, const vp_open_opts *opts,
                       vp_vprof_opened *out);

/* ---- hitches (vprof_hitches.c) ------------------------------------------------ */

/* The hitch frames by `rule` (core/hitch.h: hitches.lua's definitions) over
 * the capture's frame times, in frame order, in a malloc'd array (*out,
 * *count; free it). */
vp_errcode vp_vprof_hitches(const vp_vprof *m, const vp_hitch_rule *rule, vp_hitch **out,
                            uint32_t *count, vp_error *err);

/* A cause: a node (index) or a group (index) whose self time in a frame
 * exceeds its own baseline, the median of its self time over the window
 * frames before it (0 in frames without the node; 0 with no window). */
typedef struct vp_vprof_cause {
    uint32_t index;
    double self_ms, excess_ms;
} vp_vprof_cause;

/* The `limit` largest node causes and group causes of frame fi over the
 * `window` frames before it, by excess (ties: by path, by group name);
 * the arrays have room for `limit` entries each; *nc and *ng receive how
 * many were found. Reads only those frames: work in window x nodes. */
vp_errcode vp_vprof_causes(vp_vprof *m, uint32_t fi, uint32_t window, uint32_t limit,
                           vp_vprof_cause *nodes, uint32_t *nc, vp_vprof_cause *groups,
                           uint32_t *ng, vp_error *err);

#endif
