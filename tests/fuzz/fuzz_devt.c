/* libFuzzer harness: index any bytes as a .devt export, then read back
 * every event of every group the way the binding does. Opening validated
 * the framing, so a read that fails afterwards is a bug: abort. */
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_trace.h"
#include "formats/devt.h"

static void walk(vp_devt *d, const uint8_t *data, size_t size)
{
    (void)data;
    vp_error err;
    if (d->bitfield_off + d->bitfield_len > size)
        abort();
    uint64_t events = 0, acc = 0;
    for (uint32_t g = 0; g < d->group_count; g++) {
        const vp_devt_group *gr = &d->groups[g];
        /* An array holds at least its count byte, unless the file was cut
         * before it; its events are in the file. */
        if (vp_devt_group_offset(gr) + 4 != gr->array_off ||
            (gr->array_off >= size && !d->truncated) ||
            (gr->count && gr->array_off + 1 + gr->count * VP_DEVT_EVENT_SIZE > size))
            abort();
        for (uint64_t i = 0; i < gr->count; i++) {
            vp_devt_event ev;
            if (!vp_devt_event_get(d, g, i, &ev, &err))
                abort();
            acc += ev.time1 ^ ev.time2;
            if (!vp_devt_type_name(ev.type) && ev.type < VP_DEVT_TYPE_COUNT)
                abort();
        }
        /* One past the end must be refused, not read. */
        vp_devt_event ev;
        if (vp_devt_event_get(d, g, gr->count, &ev, &err))
            abort();
        (void)vp_devt_group_name(g);
        events += gr->count;
    }
    if (events != d->event_count)
        abort();
    (void)acc;
}

/* A strict open refuses exactly the files a lenient one keeps cut, and
 * agrees with it on the others. */
static int strict_refuses(const vp_devt *d)
{
    return d->truncated;
}

static int strict_agrees(const vp_devt *s, const vp_devt *d)
{
    return s->event_count == d->event_count && s->group_count == d->group_count;
}

FUZZ_TRACE_HARNESS(devt, walk, strict_refuses, strict_agrees)
