#include "formats/devt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cursor.h"
#include "formats/trace_common.h"

static const char *const type_names[VP_DEVT_TYPE_COUNT] = {
    "Frame",
    "Update",
    "WeaponInput_FireBurst",
    "WeaponInput_FireEnd",
    "WeaponInput_Reload",
    "WeaponInput_Unk5",
    "WeaponInput_UseScope",
    "WeaponInput_SelectFireMode",
    "WeaponInput_SelectWeapon",
    "Weapon_Burst",
    "Weapon_FireWeaponProjectile",
};

static const char *const group_names[VP_DEVT_KNOWN_GROUPS] = {
    "frames", "updates", "weapon_inputs", "weapons"};

const char *vp_devt_type_name(unsigned type)
{
    return type < VP_DEVT_TYPE_COUNT ? type_names[type] : NULL;
}

int vp_devt_type_uncertain(unsigned type)
{
    return type >= 5 && type <= 7;
}

const char *vp_devt_group_name(uint32_t g)
{
    return g < VP_DEVT_KNOWN_GROUPS ? group_names[g] : NULL;
}

static vp_errcode rd_u32(vp_cursor *c, uint32_t *v, const char *field, vp_error *err)
{
    uint64_t off = vp_cursor_off(c);
    if (vp_rd_u32(c, v))
        return VP_OK;
    return vp_fail(err, VP_ETRUNC, off, "expected the u32 %s, found the end of the file (%zu bytes left)",
                   field, vp_cursor_left(c));
}

/* Smallest group on disk: a u32 total and the count byte of an empty array. */
#define GROUP_MIN 5

static vp_errcode devt_index(vp_devt *d, vp_error *err)
{
    vp_cursor c;
    vp_cursor_init(&c, d->map.data, (size_t)d->map.size, 0);
    vp_errcode rc;
    if ((rc = rd_u32(&c, &d->time, "time", err)) || (rc = rd_u32(&c, &d->unknown, "unknown", err)) ||
        (rc = rd_u32(&c, &d->graph_duration, "graph_duration", err)))
        return rc;
    uint64_t off = vp_cursor_off(&c);
    if (!vp_rd_u16(&c, &d->prefix))
        return vp_fail(err, VP_ETRUNC, off,
                       "expected the u16 prefix, found the end of the file (%zu bytes left)",
                       vp_cursor_left(&c));
    const uint8_t *bits;
    d->bitfield_off = vp_cursor_off(&c);
    if ((rc = vp_bitfield_read(&c, d->prefix, "visibility bitfield (prefix)", &bits,
                               &d->bitfield_len, err)))
        return rc;
    off = vp_cursor_off(&c);
    if ((rc = rd_u32(&c, &d->group_count, "group_count", err)))
        return rc;
    /* Bound the allocation by what the file can hold before making it. */
    if ((uint64_t)d->group_count * GROUP_MIN > vp_cursor_left(&c))
        return vp_fail(err, VP_ELIMIT, off,
                       "group_count %u needs at least %llu bytes (%d per group), only %zu left",
                       d->group_count, (unsigned long long)d->group_count * GROUP_MIN, GROUP_MIN,
                       vp_cursor_left(&c));
    if (d->group_count > VP_DEVT_KNOWN_GROUPS)
        vp_warn(&d->warnings,
                "at byte %llu: group_count is %u; files have been seen with at most %d groups",
                (unsigned long long)off, d->group_count, VP_DEVT_KNOWN_GROUPS);
    if (d->group_count) {
        d->groups = calloc(d->group_count, sizeof *d->groups);
        if (!d->groups)
            return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory for %u groups",
                           d->group_count);
    }
    for (uint32_t g = 0; g < d->group_count; g++) {
        vp_devt_group *gr = &d->groups[g];
        char what[48];
        gr->offset = vp_cursor_off(&c);
        snprintf(what, sizeof what, "group %u total", g + 1);
        if ((rc = rd_u32(&c, &gr->total, what, err)))
            return rc;
        gr->array_off = vp_cursor_off(&c);
        snprintf(what, sizeof what, "group %u events", g + 1);
        if ((rc = vp_chunked_skip_fixed(&c, VP_DEVT_EVENT_SIZE, what, &gr->count, err)))
            return rc;
        gr->end_off = vp_cursor_off(&c);
        d->event_count += gr->count;
        if (gr->count != gr->total)
            vp_warn(&d->warnings,
                    "at byte %llu: group %u total says %u events, the array holds %llu",
                    (unsigned long long)gr->offset, g + 1, gr->total,
                    (unsigned long long)gr->count);
    }
    d->trailing_bytes = vp_cursor_left(&c);
    if (d->trailing_bytes)
        vp_warn(&d->warnings, "at byte %llu: %llu bytes after the last group were ignored",
                (unsigned long long)vp_cursor_off(&c), (unsigned long long)d->trailing_bytes);
    return VP_OK;
}

static vp_errcode devt_finish(vp_devt *d, vp_devt **out, vp_error *err)
{
    vp_errcode rc = devt_index(d, err);
    if (rc) {
        vp_devt_free(d);
        return rc;
    }
    *out = d;
    return VP_OK;
}

vp_errcode vp_devt_open(vp_devt **out, const char *path, vp_error *err)
{
    *out = NULL;
    vp_devt *d = calloc(1, sizeof *d);
    if (!d)
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    vp_errcode rc = vp_map_open(&d->map, path, err);
    if (rc) {
        free(d);
        return rc;
    }
    return devt_finish(d, out, err);
}

vp_errcode vp_devt_parse(vp_devt **out, const void *buf, size_t n, vp_error *err)
{
    *out = NULL;
    vp_devt *d = calloc(1, sizeof *d);
    if (!d)
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    vp_map_wrap(&d->map, buf, n);
    return devt_finish(d, out, err);
}

void vp_devt_free(vp_devt *d)
{
    if (!d)
        return;
    vp_map_close(&d->map);
    free(d->groups);
    vp_warnings_free(&d->warnings);
    free(d);
}

const uint8_t *vp_devt_bitfield(const vp_devt *d)
{
    return d->map.data + d->bitfield_off;
}

int vp_devt_event_get(const vp_devt *d, uint32_t g, uint64_t i, vp_devt_event *ev, vp_error *err)
{
    if (g >= d->group_count || i >= d->groups[g].count) {
        vp_fail(err, VP_EFORMAT, UINT64_MAX, "no event %llu in group %u",
                (unsigned long long)i + 1, g + 1);
        return 0;
    }
    /* One count byte before each block of 255: element i is preceded by
     * i / 255 + 1 of them. */
    uint64_t off = d->groups[g].array_off + i / 255 + 1 + i * VP_DEVT_EVENT_SIZE;
    if (off > d->map.size) {
        vp_fail(err, VP_ETRUNC, off, "event %llu of group %u is past the end of the file",
                (unsigned long long)i + 1, g + 1);
        return 0;
    }
    vp_cursor c;
    vp_cursor_init(&c, d->map.data + off, (size_t)(d->map.size - off), off);
    if (!vp_rd_u32(&c, &ev->time1) || !vp_rd_u32(&c, &ev->time2) || !vp_rd_u8(&c, &ev->type)) {
        vp_fail(err, VP_ETRUNC, off, "event %llu of group %u runs past the end of the file",
                (unsigned long long)i + 1, g + 1);
        return 0;
    }
    return 1;
}
