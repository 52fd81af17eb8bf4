/* Statistics over a .devt model (devt.h, "statistics"): the events grouped
 * by (group, type) with their times sorted, so that events.lua computes its
 * rates and intervals from a few arrays instead of a table per event. */
#include <stdlib.h>
#include <string.h>

#include "core/sort.h"
#include "formats/devt.h"

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

void vp_devt_scan_free(vp_devt_scan *s)
{
    free(s->buckets);
    free(s->times);
    free(s->frames);
    memset(s, 0, sizeof *s);
}

static vp_errcode oom(vp_error *err)
{
    return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory grouping the events");
}

vp_errcode vp_devt_scan_events(vp_devt *d, vp_devt_scan *s, vp_error *err)
{
    memset(s, 0, sizeof *s);
    size_t cap = 0;
    uint64_t counts[256];
    /* Pass 1: the buckets, group by group (types 0..255 within a group). */
    for (uint32_t g = 0; g < d->group_count; g++) {
        memset(counts, 0, sizeof counts);
        for (uint64_t i = 0; i < d->groups[g].count; i++) {
            vp_devt_event ev;
            if (!vp_devt_event_get(d, g, i, &ev, err))
                return err ? err->code : VP_EIO;
            counts[ev.type]++;
            if (ev.type == 0)
                s->nframes++;
            if (s->events == 0 || ev.time1 < s->first_time)
                s->first_time = ev.time1;
            if (s->events == 0 || ev.time1 > s->last_time)
                s->last_time = ev.time1;
            s->events++;
        }
        for (unsigned t = 0; t < 256; t++) {
            if (!counts[t])
                continue;
            if (s->nbuckets == cap) {
                size_t ncap = cap ? cap * 2 : 16;
                vp_devt_bucket *nb = realloc(s->buckets, ncap * sizeof *nb);
                if (!nb)
                    return oom(err);
                s->buckets = nb;
                cap = ncap;
            }
            uint64_t first = s->nbuckets ? s->buckets[s->nbuckets - 1].first +
                                               s->buckets[s->nbuckets - 1].count
                                         : 0;
            s->buckets[s->nbuckets++] = (vp_devt_bucket){g, (uint8_t)t, counts[t], first};
        }
    }
    if (s->events) {
        s->times = malloc((size_t)s->events * sizeof *s->times);
        if (!s->times)
            return oom(err);
    }
    if (s->nframes) {
        s->frames = malloc((size_t)s->nframes * sizeof *s->frames);
        if (!s->frames)
            return oom(err);
    }
    /* Pass 2: each time into its bucket (fill[t]: the next free slot of
     * type t in the current group). */
    uint64_t fill[256];
    uint64_t nf = 0;
    size_t b = 0;
    for (uint32_t g = 0; g < d->group_count; g++) {
        for (; b < s->nbuckets && s->buckets[b].group == g; b++)
            fill[s->buckets[b].type] = s->buckets[b].first;
        for (uint64_t i = 0; i < d->groups[g].count; i++) {
            vp_devt_event ev;
            if (!vp_devt_event_get(d, g, i, &ev, err))
                return err ? err->code : VP_EIO;
            s->times[fill[ev.type]++] = ev.time1;
            if (ev.type == 0 && nf < s->nframes)
                s->frames[nf++] = ev.time1;
        }
    }
    for (size_t k = 0; k < s->nbuckets; k++)
        qsort(s->times + s->buckets[k].first, (size_t)s->buckets[k].count, sizeof *s->times,
              cmp_u32);
    if (s->nframes)
        qsort(s->frames, (size_t)s->nframes, sizeof *s->frames, cmp_u32);
    return VP_OK;
}

vp_series *vp_devt_scan_intervals(const vp_devt_scan *s, size_t b)
{
    const uint32_t *t = b == SIZE_MAX ? s->frames : s->times + s->buckets[b].first;
    uint64_t n = b == SIZE_MAX ? s->nframes : s->buckets[b].count;
    vp_series *r = vp_series_new(n > 1 ? (size_t)n - 1 : 0);
    if (!r)
        return NULL;
    for (uint64_t i = 1; i < n; i++)
        if (!vp_series_push_fast(r, (double)t[i] - (double)t[i - 1])) {
            vp_series_unref(r);
            return NULL;
        }
    return r;
}

/* More events first, then the lower bucket. */
static int by_count(uint32_t a, uint32_t b, const void *ctx)
{
    const vp_devt_scan *s = ctx;
    uint64_t x = s->buckets[a].count, y = s->buckets[b].count;
    if (x != y)
        return x > y ? -1 : 1;
    return (a > b) - (a < b);
}

static int by_index(uint32_t a, uint32_t b, const void *ctx)
{
    (void)ctx;
    return (a > b) - (a < b);
}

size_t vp_devt_scan_top(const vp_devt_scan *s, size_t k, uint32_t *idx)
{
    size_t n = s->nbuckets;
    if (n > UINT32_MAX) /* the sort's indices are 32-bit: keep the first k */
        n = k;
    if (n <= k) {
        for (size_t i = 0; i < n; i++)
            idx[i] = (uint32_t)i;
        return n;
    }
    /* A heap of the k best seen so far would do with less memory; the
     * buckets are few next to the events, so sort them all. */
    uint32_t *all = malloc(n * sizeof *all);
    if (!all)
        return SIZE_MAX;
    for (size_t i = 0; i < n; i++)
        all[i] = (uint32_t)i;
    vp_sort_idx(all, n, by_count, s);
    memcpy(idx, all, k * sizeof *idx);
    free(all);
    vp_sort_idx(idx, k, by_index, NULL);
    return k;
}
