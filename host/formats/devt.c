#include "formats/devt.h"

#include <stddef.h>
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

/* Smallest group on disk: a u32 total and the count byte of an empty array. */
#define GROUP_MIN 5

/* A cut inside the groups: keep what was read, say where and what. */
static void devt_cut(vp_devt *d, const vp_error *cut)
{
    d->truncated = 1;
    vp_warn(&d->warnings, "%s; the file is truncated: kept %llu complete event%s in %u group%s",
            cut->msg, (unsigned long long)d->event_count, d->event_count == 1 ? "" : "s",
            d->group_count, d->group_count == 1 ? "" : "s");
}

/* The fixed header before the bitfield: time, unknown, graph_duration,
 * prefix (14 bytes). */
#define HEADER_FIXED 14

static vp_errcode header_parse(vp_cursor *c, void *ctx, vp_error *err)
{
    vp_devt *d = ctx;
    vp_errcode rc;
    if ((rc = vp_field_u32(c, &d->time, "the u32 time", err)) ||
        (rc = vp_field_u32(c, &d->unknown, "the u32 unknown", err)) ||
        (rc = vp_field_u32(c, &d->graph_duration, "the u32 graph_duration", err)) ||
        (rc = vp_field_u16(c, &d->prefix, "the u16 prefix", err)))
        return rc;
    const uint8_t *bits;
    d->bitfield_off = vp_cursor_off(c);
    if ((rc = vp_bitfield_read(c, d->prefix, "visibility bitfield (prefix)", &bits,
                               &d->bitfield_len, err)))
        return rc;
    uint8_t *copy = realloc(d->bitfield, d->bitfield_len);
    if (!copy)
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory for the bitfield");
    memcpy(copy, bits, d->bitfield_len);
    d->bitfield = copy;
    return vp_field_u32(c, &d->header_group_count, "the u32 group_count", err);
}

static vp_errcode devt_index(void *model, int strict, vp_error *err)
{
    vp_devt *d = model;
    vp_src *s = &d->src;
    const uint64_t size = s->size;
    uint64_t pos;
    /* The header: without all of it there is nothing to keep. */
    vp_errcode rc = vp_src_parse(s, 0, size, header_parse, d, &pos, err);
    if (rc)
        return rc;
    uint64_t off = pos - 4;
    uint64_t left = size - pos;
    /* More groups than the bytes left can hold: a strict open refuses the
     * count; a lenient one reads the groups that are there. Either way the
     * allocation is bounded by the file (a group present has its u32). */
    uint32_t fit = d->header_group_count;
    if ((uint64_t)d->header_group_count * GROUP_MIN > left) {
        if (strict)
            return vp_fail(err, VP_ELIMIT, off,
                           "group_count %u needs at least %llu bytes (%d per group), only %llu left",
                           d->header_group_count,
                           (unsigned long long)d->header_group_count * GROUP_MIN, GROUP_MIN,
                           (unsigned long long)left);
        fit = (uint32_t)(left / 4);
    }
    if (d->header_group_count > VP_DEVT_KNOWN_GROUPS)
        vp_warn(&d->warnings,
                "at byte %llu: group_count is %u; files have been seen with at most %d groups",
                (unsigned long long)off, d->header_group_count, VP_DEVT_KNOWN_GROUPS);
    if (fit) {
        d->groups = calloc(fit, sizeof *d->groups);
        if (!d->groups)
            return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory for %u groups", fit);
    }
    uint64_t mismatches = 0;
    for (uint32_t g = 0; g < d->header_group_count; g++) {
        vp_error cut;
        char what[48];
        uint64_t at = pos;
        snprintf(what, sizeof what, "the u32 group %u total", g + 1);
        uint32_t total = 0;
        rc = vp_src_u32(s, pos, &total, what, &cut);
        if (rc == VP_OK && g >= fit) /* cannot happen: fit covers every u32 */
            rc = vp_fail(&cut, VP_ETRUNC, pos, "%s: past the groups that fit", what);
        if (rc) {
            if (strict || vp_src_failed(rc)) {
                *err = cut;
                return cut.code;
            }
            devt_cut(d, &cut);
            return VP_OK;
        }
        pos += 4;
        vp_devt_group *gr = &d->groups[g];
        gr->total = total;
        gr->array_off = pos;
        snprintf(what, sizeof what, "group %u events", g + 1);
        rc = vp_chunked_skip_src(s, &pos, size, VP_DEVT_EVENT_SIZE, what, &gr->count, &cut);
        if (vp_src_failed(rc)) {
            *err = cut;
            return rc;
        }
        d->event_count += gr->count;
        d->group_count++;
        if (rc) {
            if (strict) {
                *err = cut;
                return cut.code;
            }
            devt_cut(d, &cut);
            return VP_OK;
        }
        /* A hostile file may disagree in every group: name the first few,
         * count the rest once at the end. */
        if (gr->count != gr->total && mismatches++ < VP_DEVT_WARN_EACH)
            vp_warn(&d->warnings,
                    "at byte %llu: group %u total says %u events, the array holds %llu",
                    (unsigned long long)at, g + 1, gr->total,
                    (unsigned long long)gr->count);
    }
    if (mismatches > VP_DEVT_WARN_EACH)
        vp_warn(&d->warnings, "%llu more groups have a total that disagrees with their array",
                (unsigned long long)(mismatches - VP_DEVT_WARN_EACH));
    d->trailing_bytes = size - pos;
    if (d->trailing_bytes)
        vp_warn(&d->warnings, "at byte %llu: %llu bytes after the last group were ignored",
                (unsigned long long)pos, (unsigned long long)d->trailing_bytes);
    return VP_OK;
}

/* The groups and the bitfield copy: what the model owns besides its source and warnings. */
static void devt_free_arrays(vp_devt *d)
{
    free(d->groups);
    free(d->bitfield);
}

/* vp_devt_open, vp_devt_open_mem, vp_devt_free (trace_common.h). */
VP_TRACE_READER(devt, devt_index, devt_free_arrays)

const uint8_t *vp_devt_bitfield(const vp_devt *d)
{
    return d->bitfield;
}

int vp_devt_event_get(vp_devt *d, uint32_t g, uint64_t i, vp_devt_event *ev, vp_error *err)
{
    if (g >= d->group_count || i >= d->groups[g].count) {
        vp_fail(err, VP_EFORMAT, UINT64_MAX, "no event %llu in group %u",
                (unsigned long long)i + 1, g + 1);
        return 0;
    }
    /* One count byte before each block of 255: element i is preceded by
     * i / 255 + 1 of them. */
    uint64_t off = d->groups[g].array_off + i / 255 + 1 + i * VP_DEVT_EVENT_SIZE;
    if (off > d->src.size || d->src.size - off < VP_DEVT_EVENT_SIZE) {
        vp_fail(err, VP_ETRUNC, off, "event %llu of group %u runs past the end of the file",
                (unsigned long long)i + 1, g + 1);
        return 0;
    }
    const uint8_t *p = vp_src_get(&d->src, off, VP_DEVT_EVENT_SIZE, NULL, err);
    if (!p)
        return 0;
    ev->time1 = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    ev->time2 = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
    ev->type = p[8];
    return 1;
}
