/* The VProf (.vprof) writer of bench/gen_vprof.c, which writes captures
 * of a gigabyte and more for `make bench`: vpscript's own writers are Lua
 * (stdlib/vp/write/vprof.lua), this one is C for speed. Built from
 * specs/vprof-format.md and the VProf section of specs/format-notes.md
 * only; tests/c/test_vprof_write.c holds its bytes to the spec.
 *
 * The writer keeps its own copy of the tree, the way the engine's recorder
 * does: a new node is prepended to its parent's child list, and every frame
 * writes the timings of the whole tree in pre-order over that list. Group and
 * node declarations are queued and written inside the next frame (groups
 * first), as Record_Snapshot does.
 *
 * Nodes are addressed two ways: by their file ID (any int32, chosen by the
 * caller) and by a dense slot (0 = root, k = the k-th node added) so the
 * hot path, vp_vprof_writer_frame, indexes a plain array. */
#ifndef VP_VPROF_WRITE_H
#define VP_VPROF_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "core/vp_error.h"

typedef struct vp_vprof_writer vp_vprof_writer;

typedef struct vp_vprof_wopts {
    int32_t version;  /* header version; 1 is the only real one */
    int32_t root_id;  /* header root_node_id */
    int escape_width; /* bytes of the time escape field: 4 or 8 */
    /* ID of the first group record: 0 when the file declares every group
     * from "Unaccounted" on (public engines), 31 when it declares only the
     * groups after the 31 defaults. */
    int32_t group_base;
} vp_vprof_wopts;

/* One node's values for one frame. Time is in microseconds; it is written
 * in 4 us units, truncated. Calls above 65535 are written as 65535. */
typedef struct vp_vprof_wtiming {
    uint64_t time_us;
    uint32_t calls;
} vp_vprof_wtiming;

/* version 1, root_id 0, escape_width 4, group_base 0. */
void vp_vprof_wopts_init(vp_vprof_wopts *o);

/* Create (truncate) `path` and write the header. NULL + err on failure. */
vp_vprof_writer *vp_vprof_writer_open(const char *path, const vp_vprof_wopts *o, vp_error *err);

/* Queue an AddBudgetGroup record; *id receives its positional ID
 * (group_base + number of groups declared before it). */
vp_errcode vp_vprof_writer_group(vp_vprof_writer *w, const char *name, int32_t flags,
                                 int32_t *id, vp_error *err);

/* Queue an AddNode record and add the node to the writer's tree (prepended
 * to the parent's children). Fails on an unknown parent or a duplicate ID.
 * The group ID is written as given (undeclared IDs are legal in a file).
 * *slot (may be NULL) receives the node's slot. */
vp_errcode vp_vprof_writer_node(vp_vprof_writer *w, int32_t parent_id, const char *name,
                                int32_t group_id, int32_t node_id, size_t *slot, vp_error *err);

/* Slot of node `id`, or -1 when there is no such node. */
long vp_vprof_writer_slot(const vp_vprof_writer *w, int32_t id);

/* Write one frame: StartFrame, tick, the queued group and node records,
 * Timings, one timing per node in pre-order, EndOfFrame. `times` is indexed
 * by slot and holds an entry per node (the root included); NULL writes zeros everywhere. Fails
 * (writing nothing) when a time does not fit the escape field. */
vp_errcode vp_vprof_writer_frame(vp_vprof_writer *w, int32_t tick, const vp_vprof_wtiming *times,
                                 vp_error *err);

/* Flush and close the file; queued records not followed by a frame are
 * dropped (they cannot stand outside a frame). Frees w, also on failure.
 * *bytes (may be NULL) receives the file size. */
vp_errcode vp_vprof_writer_close(vp_vprof_writer *w, uint64_t *bytes, vp_error *err);

/* The 31 default budget groups of the spec's table, in ID order. */
#define VP_VPROF_WRITER_DEFAULTS 31
typedef struct vp_vprof_wgroup_def {
    const char *name;
    int32_t flags;
} vp_vprof_wgroup_def;
extern const vp_vprof_wgroup_def vp_vprof_writer_defaults[VP_VPROF_WRITER_DEFAULTS];

#endif
