/* VProf captures in other tools' formats, streamed: one pass over the
 * frames the model holds (a --frames range: vp_vprof_restrict), memory
 * bounded by the tree, never by the frames. Reads the model through the
 * format's C API (formats/vprof.h); never includes lua.h.
 *
 * The time layout. VProf records no timestamps inside a frame, only each
 * node's inclusive time per frame, so the exporters lay a frame out: frame
 * k starts at the sum of the earlier frames' times (the first frame held
 * at 0), and each node's children start one after another from their
 * parent's start, in recorded order (the order of the frame's timing
 * records: the engine's pre-order). A child that would end after its
 * parent is cut at the parent's end (VProf's clock lets children add up to
 * a little more than their parent); the root's event, when the root has
 * time of its own, spans the frame. So events nest strictly and the
 * top-level events of a frame add up to the frame time. Times are whole
 * microseconds (the file's unit is 4 us): every number is exact. */
#ifndef VP_VPROF_EXPORT_H
#define VP_VPROF_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "core/vp_error.h"
#include "formats/vprof.h"

typedef struct vp_export_opts {
    const char *name;  /* the capture's name: the process and profile name */
    const char *what;  /* the output's name, for error messages */
    int per_frame;     /* speedscope: one profile per frame */
    uint32_t node;     /* csv: a node (index) whose ms, self ms and calls are
                        * added; VP_VPROF_NO_NODE for none */
} vp_export_opts;

/* Chrome Trace Event JSON ({"traceEvents": [...]}): metadata events naming
 * the process and thread; per frame an instant event "frame N", a counter
 * "frame_ms" and a counter "group self ms" (an argument per budget group
 * with nodes, in id order), then one complete event ("X") per node
 * instance with time, in pre-order: name (with "#k" for the k-th
 * same-named sibling, as in its path), cat = group, ts, dur (us), args
 * {path, group, calls, self_ms}. */
vp_errcode vp_export_vprof_chrome(vp_vprof *m, FILE *f, const vp_export_opts *o, vp_error *err);

/* speedscope's file format: shared.frames = one per node (name, "#k" as
 * above; file = its path), one evented profile (open/close events in us) of every frame, or
 * with per_frame one profile per frame. */
vp_errcode vp_export_vprof_speedscope(vp_vprof *m, FILE *f, const vp_export_opts *o,
                                      vp_error *err);

/* CSV, a row per frame: frame, tick, start_ms, frame_ms, then each budget
 * group's self ms (groups with nodes, in id order, named by the header),
 * then with o->node node_ms, node_self_ms, node_calls. */
vp_errcode vp_export_vprof_csv(vp_vprof *m, FILE *f, const vp_export_opts *o, vp_error *err);

/* Collapsed stacks ("Root;A;B 1234\n", flamegraph.pl's input): each
 * node's self time over the frames the capture holds, in whole
 * microseconds, keyed by its stack, the labels from the root joined by
 * ';' (a label is the node's name and its "#k" suffix, ';' written ',' and
 * a line break ' '); nodes whose stacks read the same add up; stacks
 * without time are left out; lines in byte order of the stack, written as
 * they are found (memory is the tree and one stack, never the text). With
 * base, the differential form "stack base_us new_us" over the stacks of
 * either. *lines: how many; *total_us: m's microseconds. */
vp_errcode vp_export_vprof_folded(vp_vprof *m, vp_vprof *base, FILE *f, const vp_export_opts *opt,
                                  uint64_t *lines, uint64_t *total_us, vp_error *err);

/* For charts: the frames split into `cols` columns (frame fi, 0-based,
 * in column ceil((fi + 1) * cols / frame_count) - 1: vp.charts' split) and,
 * per column, the self time of the `ngroups` groups given (group indices
 * in `groups`; the group's self time in a frame is the sum of its nodes'
 * self times, 0 in a frame where it has none) summed over the column's
 * frames, and its smallest and largest frame: sum[col * ngroups + k] (ms;
 * the k-th group given), min and max likewise; other[col], the self time
 * of every other group summed over the column's frames; frames[col] the
 * column's frame count. Per frame (each of frame_count entries): top, the
 * index of the group with the most self time of all groups (the lowest
 * index of a tie; VP_VPROF_NO_NODE when no group has any), and tick, the
 * frame's tick. min/max (both or neither), other, top and tick may be
 * NULL: not computed. One pass; memory: the arrays given and a few
 * counters per group, so a file declaring many groups costs only the
 * columns asked for. */
typedef struct vp_export_columns {
    uint32_t cols, ngroups;
    const uint32_t *groups;
    double *sum, *min, *max, *other;
    uint32_t *frames;
    uint32_t *top;
    int32_t *tick;
} vp_export_columns;

vp_errcode vp_export_vprof_columns(vp_vprof *m, vp_export_columns *c, vp_error *err);

#endif
