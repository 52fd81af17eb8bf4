/* Hitch frames in a column of frame times: the frames whose time jumps above
 * their baseline, the median of the frames just before (hitches.lua's rule,
 * stdlib/vp/hitches.lua, hitches.DEFINITIONS, computed with the same
 * floating-point operations). VProf captures (vp_vprof_hitches) and any
 * vp.Series of frame times (s:hitches, a laige budget report's) are read
 * with it. NaN is a missing value: a NaN frame is never a hitch and never
 * enters a baseline (the median of the window's numbers; a window without
 * any has none). */
#ifndef VP_HITCH_H
#define VP_HITCH_H

#include <stddef.h>
#include <stdint.h>

#include "core/vp_error.h"

typedef struct vp_hitch_rule {
    double factor;        /* relative rule: frame >= factor x baseline ... */
    double min_excess_ms; /* ... and frame - baseline >= min_excess_ms */
    double threshold_ms;  /* absolute rule (when `absolute`): frame > threshold */
    int absolute;
    uint32_t window;      /* baseline: median of this many preceding frames */
} vp_hitch_rule;

typedef struct vp_hitch {
    uint32_t frame;   /* 0-based */
    int has_baseline; /* 0 for frame 0, or a window of NaN alone */
    double frame_ms, baseline_ms;
} vp_hitch;

/* The hitch frames of the n frame times ms[] by `rule`, in frame order, in
 * a malloc'd array (*out, *count; free it). ENOMEM on failure. */
vp_errcode vp_hitches(const double *ms, uint32_t n, const vp_hitch_rule *rule, vp_hitch **out,
                      uint32_t *count, vp_error *err);

/* The median of n > 0 numbers, reordered in place: the middle one, or the
 * mean of the two middle ones for an even n (stats.median). A selection,
 * not a sort: O(n). */
double vp_median(double *v, size_t n);

#endif
