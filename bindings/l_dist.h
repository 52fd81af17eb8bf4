/* vp.Dist: a per-frame quantity summarised, beside vp.Series with the same
 * method names and meanings, from the value counts of a vp_stream
 * (core/hist.h: exact counts of integer units, the first minimum and
 * maximum and their positions) instead of the column.
 *
 * The statistics are generic (l_dist.c): #d, sum, mean, min, max, argmin,
 * argmax, percentile, stddev, counts. What needs the source of the values
 * (a capture) comes through a vp_ldist_src the format binding gives: where
 * the stream is, the column, the batches, top_sum and the tostring text.
 * The dist's user value 1 is its parent, which lives while the dist does:
 * a capture, as a child's (the source checks it is open), or the Series of
 * vp.Dist(series, unit), the one source l_dist.c has itself. */
#ifndef VP_L_DIST_H
#define VP_L_DIST_H

#include <lauxlib.h>
#include <lua.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hist.h"

#define VP_DIST_T "vp.Dist"

typedef struct vp_ldist vp_ldist;

/* What a source gives. Each function gets the dist at (absolute) index idx
 * and d, its memory; vp_l_dist_data(d) is the source's own part. */
typedef struct vp_ldist_src {
    /* The stream summarised (&d->own, or one the source keeps, found again
     * on each call) and in *first the number of its position 0 (argmin and
     * argmax answer frame numbers); raises when the parent is closed or the
     * stream is gone. Every method calls it first. Required. */
    vp_stream *(*stream)(lua_State *L, int idx, vp_ldist *d, lua_Integer *first);
    /* d:series(): push the column (a vp.Series). NULL: the dist has none. */
    int (*series)(lua_State *L, int idx, vp_ldist *d);
    /* d:batches(cuts) (cuts at 2): push a vp.infer.batched. NULL: none. */
    int (*batches)(lua_State *L, int idx, vp_ldist *d);
    /* d:top_sum(k) (k at 2): push the sum of the k largest values. NULL:
     * none. */
    int (*top_sum)(lua_State *L, int idx, vp_ldist *d);
    /* Push tostring(d), given its n and mean (0 when empty). */
    void (*tostring)(lua_State *L, int idx, vp_ldist *d, uint64_t n, double mean);
} vp_ldist_src;

struct vp_ldist {
    const vp_ldist_src *src;
    double scale;  /* the value of one unit: ms per unit, or 1 (calls) */
    vp_stream own; /* the dist's own stream (initialised empty; freed with it) */
};

/* Push a new dist of source src whose values are units x scale, pinning
 * the parent at parent_idx, with `data_size` zeroed bytes for the source
 * (vp_l_dist_data). Its own stream starts empty. */
vp_ldist *vp_l_dist_new(lua_State *L, const vp_ldist_src *src, double scale, size_t data_size,
                        int parent_idx);
/* The source's part of d. */
void *vp_l_dist_data(vp_ldist *d);

/* vp.Dist(series | list [, unit]): a dist of the values of a Series (or of
 * a list, made a Series first), each a whole multiple >= 0 of unit (1 by
 * default), which raises otherwise; the Series is its column. */
int vp_l_dist_of(lua_State *L);

/* Register the class (luaopen_vp). */
void vp_l_register_dist(lua_State *L);

#endif
