/* libFuzzer harness: open any bytes as a .dm movement trace, then decode
 * every record, group, collision arrow and float the way the binding does,
 * and seek to records at random. Opening validated every record, so a
 * decode that fails afterwards, or totals that disagree with the open pass,
 * are bugs: abort. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_trace.h"
#include "formats/dm.h"

static void walk(vp_dm *d, const uint8_t *data, size_t size)
{
    vp_error err;
    if (d->data_end > size || d->record_count + d->empty_records != d->slot_count)
        abort();
    vp_dm_iter it;
    vp_dm_iter_begin(d, &it);
    vp_dm_record r;
    uint64_t slots = 0, records = 0, groups = 0;
    float acc = 0;
    int n;
    while ((n = vp_dm_iter_next(d, &it, &r, &err)) > 0) {
        if (r.slot != slots++)
            abort();
        if (r.have_data != 1)
            continue;
        if (r.index != records++)
            abort();
        uint64_t off = r.groups_off;
        for (unsigned b = 0; b < VP_DM_GROUP_BITS; b++) {
            if (!((r.bitfield >> b) & 1))
                continue;
            vp_dm_group g;
            if (vp_dm_group_at(d, off, b, &g, &err) != VP_OK)
                abort();
            for (unsigned i = 0; i < g.arrow_count && g.have_collision; i++) {
                float o[3], dir[3];
                if (vp_dm_arrow_at(d, &g, i, o, dir, &err) != VP_OK)
                    abort();
                acc += o[0] + dir[2];
            }
            for (unsigned i = 0; i < g.float_count && g.have_collision; i++) {
                float v;
                if (vp_dm_float_at(d, &g, i, &v, &err) != VP_OK)
                    abort();
                acc += v;
            }
            off += g.size;
            groups++;
        }
        if (off != r.off + r.size)
            abort();
    }
    if (n < 0 || slots != d->slot_count || records != d->record_count || groups != d->group_count)
        abort();
    if (d->record_count) {
        uint64_t want = (size ? data[size - 1] : 0) % d->record_count;
        vp_dm_iter_seek_record(d, &it, want);
        if (vp_dm_iter_next(d, &it, &r, &err) <= 0 || r.have_data != 1 || r.index != want)
            abort();
    }
    (void)acc;
}

/* A strict open refuses exactly the cut files and those with bytes after
 * the array, and agrees with a lenient one on the others. */
static int strict_refuses(const vp_dm *d)
{
    return d->truncated || d->trailing_bytes;
}

static int strict_agrees(const vp_dm *s, const vp_dm *d)
{
    return s->slot_count == d->slot_count && s->group_count == d->group_count;
}

FUZZ_TRACE_HARNESS(dm, walk, strict_refuses, strict_agrees)
