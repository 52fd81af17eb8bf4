/* One group bit of a .dm followed through the records, as columns sorted by
 * time (dm.h, "one group bit through the records"). */
#include <stdlib.h>
#include <string.h>

#include "core/sort.h"
#include "formats/dm.h"

void vp_dm_track_free(vp_dm_track *t)
{
    free(t->time);
    free(t->record);
    free(t->pos);
    free(t->vel);
    free(t->ext);
    free(t->ground_time);
    free(t->since_jump);
    free(t->energy);
    memset(t, 0, sizeof *t);
}

static int alloc_columns(vp_dm_track *t, size_t cap)
{
    size_t c = cap ? cap : 1;
    t->time = malloc(c * sizeof *t->time);
    t->record = malloc(c * sizeof *t->record);
    t->pos = malloc(3 * c * sizeof *t->pos);
    t->vel = malloc(3 * c * sizeof *t->vel);
    t->ext = malloc(c * sizeof *t->ext);
    t->ground_time = malloc(c * sizeof *t->ground_time);
    t->since_jump = malloc(c * sizeof *t->since_jump);
    t->energy = malloc(c * sizeof *t->energy);
    return t->time && t->record && t->pos && t->vel && t->ext && t->ground_time &&
           t->since_jump && t->energy;
}

/* By time, then record. */
static int by_time(uint32_t a, uint32_t b, const void *ctx)
{
    const vp_dm_track *t = ctx;
    if (t->time[a] != t->time[b])
        return t->time[a] < t->time[b] ? -1 : 1;
    return (t->record[a] > t->record[b]) - (t->record[a] < t->record[b]);
}

/* Reorder column `col` (n elements of `size` bytes) by idx, through tmp. */
static void permute(void *col, size_t size, const uint32_t *idx, size_t n, void *tmp)
{
    const char *src = col;
    char *dst = tmp;
    for (size_t i = 0; i < n; i++)
        memcpy(dst + i * size, src + (size_t)idx[i] * size, size);
    memcpy(col, tmp, n * size);
}

static vp_errcode sort_track(vp_dm_track *t, vp_error *err)
{
    size_t n = t->n;
    int sorted = 1;
    for (size_t i = 1; i < n && sorted; i++)
        sorted = by_time((uint32_t)(i - 1), (uint32_t)i, t) <= 0;
    if (sorted)
        return VP_OK;
    if (n > UINT32_MAX)
        return vp_fail(err, VP_ELIMIT, UINT64_MAX, "more than 2^32 samples to sort");
    uint32_t *idx = malloc(n * sizeof *idx);
    void *tmp = malloc(n * 3 * sizeof(float) > n * sizeof(uint64_t) ? n * 3 * sizeof(float)
                                                                     : n * sizeof(uint64_t));
    if (!idx || !tmp) {
        free(idx);
        free(tmp);
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory sorting the samples");
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    vp_sort_idx(idx, n, by_time, t);
    permute(t->time, sizeof *t->time, idx, n, tmp);
    permute(t->record, sizeof *t->record, idx, n, tmp);
    permute(t->pos, 3 * sizeof *t->pos, idx, n, tmp);
    permute(t->vel, 3 * sizeof *t->vel, idx, n, tmp);
    permute(t->ext, sizeof *t->ext, idx, n, tmp);
    permute(t->ground_time, sizeof *t->ground_time, idx, n, tmp);
    permute(t->since_jump, sizeof *t->since_jump, idx, n, tmp);
    permute(t->energy, sizeof *t->energy, idx, n, tmp);
    free(idx);
    free(tmp);
    return VP_OK;
}

vp_errcode vp_dm_track_bit(vp_dm *d, unsigned bit, vp_dm_track *t, vp_error *err)
{
    memset(t, 0, sizeof *t);
    if (bit >= VP_DM_GROUP_BITS)
        return vp_fail(err, VP_EFORMAT, UINT64_MAX, "no group bit %u (0..%d)", bit,
                       VP_DM_GROUP_BITS - 1);
    /* Every group under the bit was counted at open: the columns' size. */
    size_t cap = (size_t)d->groups_by_bit[bit];
    if (!alloc_columns(t, cap))
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory for %zu samples", cap);
    vp_dm_iter it;
    vp_dm_iter_begin(d, &it);
    vp_dm_record r;
    int rc;
    while ((rc = vp_dm_iter_next(d, &it, &r, err)) > 0) {
        if (r.have_data != 1 || !((r.bitfield >> bit) & 1))
            continue;
        /* The groups before it: their sizes say where it starts. */
        uint64_t off = r.groups_off;
        vp_dm_group g;
        for (unsigned b = 0; b <= bit; b++) {
            if (!((r.bitfield >> b) & 1))
                continue;
            vp_errcode e = vp_dm_group_at(d, off, b, &g, err);
            if (e)
                return e;
            off += g.size;
        }
        if (t->n == cap) /* cannot happen: the open pass counted them */
            return vp_fail(err, VP_EFORMAT, r.off, "more groups under bit %u than at open", bit);
        size_t i = t->n++;
        t->time[i] = r.time;
        t->record[i] = r.index;
        memcpy(&t->pos[3 * i], g.position, 3 * sizeof(float));
        t->ext[i] = g.have_ext == 1;
        if (t->ext[i])
            memcpy(&t->vel[3 * i], g.velocity, 3 * sizeof(float));
        else
            memset(&t->vel[3 * i], 0, 3 * sizeof(float));
        t->ground_time[i] = t->ext[i] ? g.ground_time : 0;
        t->since_jump[i] = t->ext[i] ? g.time_since_last_jump : 0;
        t->energy[i] = t->ext[i] ? g.jetpack_energy : 0;
    }
    if (rc < 0)
        return err ? err->code : VP_EIO;
    return sort_track(t, err);
}
