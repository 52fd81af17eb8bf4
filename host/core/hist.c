#include "core/hist.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/fsum.h"

uint64_t vp_nearest_rank(double p, uint64_t n)
{
    double r = ceil(p * (double)n / 100.0 - 1e-9);
    uint64_t rank = r < 1 ? 1 : (uint64_t)r;
    return rank > n ? n : rank;
}

void vp_hist_init(vp_hist *h)
{
    memset(h, 0, sizeof *h);
}

static void hist_drop_sorted(vp_hist *h)
{
    free(h->sorted);
    h->sorted = NULL;
    h->sorted_n = 0;
}

void vp_hist_free(vp_hist *h)
{
    hist_drop_sorted(h);
    free(h->small);
    free(h->slots);
    memset(h, 0, sizeof *h);
}

/* A value's home slot. The key (set from the histogram's address when its
 * table is first made) keeps a file from choosing values that all land in
 * one run of slots: counting stays O(1) per value on hostile input too.
 * Only where values sit in the table depends on it, never an answer. */
static inline uint32_t hist_home(uint64_t key, uint64_t v, uint32_t cap)
{
    return (uint32_t)(((v ^ key) * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

static int hist_grow(vp_hist *h)
{
    uint32_t ncap = h->cap ? h->cap * 2 : 16;
    if (ncap < h->cap)
        return 0;
    if (!h->cap) {
        uint64_t k = (uint64_t)(uintptr_t)h * 0xBF58476D1CE4E5B9ull;
        h->key = k ^ (k >> 31);
    }
    vp_hist_slot *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return 0;
    for (uint32_t i = 0; i < h->cap; i++) {
        if (!h->slots[i].count)
            continue;
        uint32_t j = hist_home(h->key, h->slots[i].value, ncap);
        while (ns[j].count)
            j = (j + 1) & (ncap - 1);
        ns[j] = h->slots[i];
    }
    free(h->slots);
    h->slots = ns;
    h->cap = ncap;
    return 1;
}

int vp_hist_add_slow(vp_hist *h, uint64_t v, uint64_t times)
{
    if (h->sorted)
        hist_drop_sorted(h);
    if (!times)
        return 1;
    if (v == 0) {
        h->zeros += times;
        h->n += times;
        return 1;
    }
    if (!h->small && h->n >= VP_HIST_SMALL)
        h->small = calloc(VP_HIST_SMALL, sizeof *h->small); /* NULL: the table counts */
    if (v < VP_HIST_SMALL && h->small && times <= UINT32_MAX - h->small[v]) {
        h->small[v] += (uint32_t)times;
        h->n += times;
        return 1;
    }
    if (((uint64_t)h->used + 1) * 2 > h->cap && !hist_grow(h))
        return 0;
    uint32_t mask = h->cap - 1;
    for (uint32_t i = hist_home(h->key, v, h->cap);; i = (i + 1) & mask) {
        vp_hist_slot *s = &h->slots[i];
        if (s->count == 0) {
            s->value = v;
            s->count = times;
            h->used++;
            break;
        }
        if (s->value == v) {
            s->count += times;
            break;
        }
    }
    h->n += times;
    return 1;
}

static int cmp_slot(const void *a, const void *b)
{
    uint64_t x = ((const vp_hist_slot *)a)->value, y = ((const vp_hist_slot *)b)->value;
    return (x > y) - (x < y);
}

const vp_hist_slot *vp_hist_sorted(vp_hist *h, uint32_t *k)
{
    *k = 0;
    if (!h->n)
        return NULL;
    if (!h->sorted) {
        size_t d = (size_t)h->used + 1 + (h->small ? VP_HIST_SMALL : 0);
        vp_hist_slot *s = malloc(d * sizeof *s);
        if (!s)
            return NULL;
        /* Zero, the small values in order, then the table's values sorted;
         * a small value counted in the table before the array existed is
         * merged with its array count. */
        uint32_t j = 0;
        if (h->zeros)
            s[j++] = (vp_hist_slot){0, h->zeros};
        for (uint32_t v = 1; h->small && v < VP_HIST_SMALL; v++)
            if (h->small[v])
                s[j++] = (vp_hist_slot){v, h->small[v]};
        uint32_t from = j;
        for (uint32_t i = 0; i < h->cap; i++)
            if (h->slots[i].count)
                s[j++] = h->slots[i];
        qsort(s + from, j - from, sizeof *s, cmp_slot);
        if (h->small && from < j && s[from].value < VP_HIST_SMALL) {
            qsort(s, j, sizeof *s, cmp_slot);
            uint32_t w = 0;
            for (uint32_t i = 0; i < j; i++) {
                if (w && s[w - 1].value == s[i].value)
                    s[w - 1].count += s[i].count;
                else
                    s[w++] = s[i];
            }
            j = w;
        }
        for (uint32_t i = 1; i < j; i++)
            s[i].count += s[i - 1].count;
        h->sorted = s;
        h->sorted_n = j;
    }
    *k = h->sorted_n;
    return h->sorted;
}

uint64_t vp_hist_distinct(vp_hist *h)
{
    uint32_t k;
    vp_hist_sorted(h, &k);
    return k;
}

uint64_t vp_hist_at_rank(vp_hist *h, uint64_t r, int *ok)
{
    uint32_t k;
    const vp_hist_slot *s = r >= 1 && r <= h->n ? vp_hist_sorted(h, &k) : NULL;
    if (ok)
        *ok = s != NULL;
    if (!s)
        return 0;
    /* The first value whose cumulative count reaches r. */
    uint32_t lo = 0, hi = k - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s[mid].count >= r)
            hi = mid;
        else
            lo = mid + 1;
    }
    return s[lo].value;
}

void vp_stream_init(vp_stream *s)
{
    memset(s, 0, sizeof *s);
}

void vp_stream_free(vp_stream *s)
{
    vp_hist_free(&s->h);
    memset(s, 0, sizeof *s);
}

int vp_stream_copy(vp_stream *dst, const vp_stream *src)
{
    *dst = *src;
    dst->h.small = NULL;
    dst->h.slots = NULL;
    dst->h.sorted = NULL;
    dst->h.sorted_n = 0;
    if (src->h.small) {
        dst->h.small = malloc(VP_HIST_SMALL * sizeof *dst->h.small);
        if (!dst->h.small)
            goto oom;
        memcpy(dst->h.small, src->h.small, VP_HIST_SMALL * sizeof *dst->h.small);
    }
    if (src->h.cap) {
        dst->h.slots = malloc((size_t)src->h.cap * sizeof *dst->h.slots);
        if (!dst->h.slots)
            goto oom;
        memcpy(dst->h.slots, src->h.slots, (size_t)src->h.cap * sizeof *dst->h.slots);
    }
    return 1;
oom:
    free(dst->h.small);
    vp_stream_init(dst);
    return 0;
}

uint64_t vp_stream_percentile(vp_stream *s, double p, int *ok)
{
    if (!s->h.n || !(p >= 0 && p <= 100)) {
        if (ok)
            *ok = 0;
        return 0;
    }
    return vp_hist_at_rank(&s->h, vp_nearest_rank(p, s->h.n), ok);
}

double vp_stream_sum(vp_stream *s, double scale)
{
    if (!s->h.n || s->h.n == s->h.zeros)
        return 0;
    uint32_t k;
    const vp_hist_slot *v = vp_hist_sorted(&s->h, &k);
    if (!v)
        return NAN;
    vp_xsum x;
    vp_xsum_init(&x);
    for (uint32_t i = 0; i < k; i++)
        if (v[i].value)
            vp_xsum_add_times(&x, (double)v[i].value * scale, (double)(v[i].count - (i ? v[i - 1].count : 0)));
    return vp_xsum_get(&x);
}

double vp_stream_stddev(vp_stream *s, double scale)
{
    uint64_t n = s->h.n;
    if (!n)
        return NAN;
    double mean = vp_stream_sum(s, scale) / (double)n, acc = 0;
    uint32_t k;
    const vp_hist_slot *v = vp_hist_sorted(&s->h, &k);
    if (!v)
        return NAN;
    for (uint32_t i = 0; i < k; i++) {
        double d = (double)v[i].value * scale - mean;
        acc += (double)(v[i].count - (i ? v[i - 1].count : 0)) * d * d;
    }
    return sqrt(acc / (double)n);
}
