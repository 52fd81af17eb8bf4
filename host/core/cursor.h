/* Bounds-checked little-endian cursor over a byte range.
 *
 * Every read checks `n <= end - p` first and, on failure, returns 0 and
 * leaves the cursor where it was, so the parser can turn the first failed
 * read into one error naming the offset (vp_cursor_off) and the field it
 * expected. Offsets are reported relative to `base_off`, the file offset of
 * `start`. */
#ifndef VP_CURSOR_H
#define VP_CURSOR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/vp_error.h"

typedef struct vp_cursor {
    const uint8_t *start, *p, *end;
    uint64_t base_off;
} vp_cursor;

static inline void vp_cursor_init(vp_cursor *c, const void *buf, size_t n, uint64_t base_off)
{
    c->start = c->p = (const uint8_t *)buf;
    c->end = c->start + n;
    c->base_off = base_off;
}

static inline uint64_t vp_cursor_off(const vp_cursor *c)
{
    return c->base_off + (uint64_t)(c->p - c->start);
}

static inline size_t vp_cursor_left(const vp_cursor *c)
{
    return (size_t)(c->end - c->p);
}

static inline int vp_cursor_has(const vp_cursor *c, size_t n)
{
    return n <= (size_t)(c->end - c->p);
}

static inline int vp_rd_bytes(vp_cursor *c, void *dst, size_t n)
{
    if (!vp_cursor_has(c, n))
        return 0;
    if (n)
        memcpy(dst, c->p, n);
    c->p += n;
    return 1;
}

static inline int vp_skip(vp_cursor *c, size_t n)
{
    if (!vp_cursor_has(c, n))
        return 0;
    c->p += n;
    return 1;
}

static inline int vp_rd_u8(vp_cursor *c, uint8_t *v)
{
    if (!vp_cursor_has(c, 1))
        return 0;
    *v = *c->p++;
    return 1;
}

static inline int vp_rd_u16(vp_cursor *c, uint16_t *v)
{
    if (!vp_cursor_has(c, 2))
        return 0;
    *v = (uint16_t)(c->p[0] | (unsigned)c->p[1] << 8);
    c->p += 2;
    return 1;
}

static inline int vp_rd_u32(vp_cursor *c, uint32_t *v)
{
    if (!vp_cursor_has(c, 4))
        return 0;
    *v = (uint32_t)c->p[0] | (uint32_t)c->p[1] << 8 | (uint32_t)c->p[2] << 16 |
         (uint32_t)c->p[3] << 24;
    c->p += 4;
    return 1;
}

static inline int vp_rd_u64(vp_cursor *c, uint64_t *v)
{
    if (!vp_cursor_has(c, 8))
        return 0;
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--)
        x = x << 8 | c->p[i];
    *v = x;
    c->p += 8;
    return 1;
}

static inline int vp_rd_i16(vp_cursor *c, int16_t *v)
{
    uint16_t u;
    if (!vp_rd_u16(c, &u))
        return 0;
    *v = (int16_t)u;
    return 1;
}

static inline int vp_rd_i32(vp_cursor *c, int32_t *v)
{
    uint32_t u;
    if (!vp_rd_u32(c, &u))
        return 0;
    *v = (int32_t)u;
    return 1;
}

static inline int vp_rd_f32(vp_cursor *c, float *v)
{
    uint32_t u;
    if (!vp_rd_u32(c, &u))
        return 0;
    memcpy(v, &u, sizeof *v);
    return 1;
}

/* A NUL-terminated string: on success *s points into the buffer and *len
 * excludes the NUL. Fails (without moving) when no NUL occurs before `end`. */
static inline int vp_rd_cstr(vp_cursor *c, const char **s, size_t *len)
{
    const uint8_t *nul = memchr(c->p, 0, (size_t)(c->end - c->p));
    if (!nul)
        return 0;
    *s = (const char *)c->p;
    *len = (size_t)(nul - c->p);
    c->p = nul + 1;
    return 1;
}

/* ---- field readers -------------------------------------------------------
 * Plain readers for the compound fields the formats share. Each is all or
 * nothing: on failure the cursor has not moved. */

/* n little-endian f32 in a row. */
static inline int vp_rd_f32s(vp_cursor *c, float *v, size_t n)
{
    if (!vp_cursor_has(c, n * 4))
        return 0;
    for (size_t i = 0; i < n; i++)
        vp_rd_f32(c, &v[i]);
    return 1;
}

/* Vec3f: x, y, z (12 bytes). */
static inline int vp_rd_vec3(vp_cursor *c, float v[3])
{
    return vp_rd_f32s(c, v, 3);
}

/* Vec4f: x, y, z, w (16 bytes; quaternions, matrix rows). */
static inline int vp_rd_vec4(vp_cursor *c, float v[4])
{
    return vp_rd_f32s(c, v, 4);
}

/* ---- checked field readers -------------------------------------------------
 * The same reads, failing with the one message every reader gives for data
 * that ends inside a field:
 *
 *     at byte N: [<where>: ]expected <field> (<n> bytes), only <m> left
 *     before <bound>
 *
 * `where` (may be NULL) names the record ("slot 3"), `field` what was
 * expected ("the u32 time"), `bound` what ends the readable range (NULL:
 * "the end of the file"). The offset is the cursor's. */

static inline vp_errcode vp_cursor_short(const vp_cursor *c, const char *where, const char *field,
                                         uint64_t need, const char *bound, vp_error *err)
{
    return vp_fail(err, VP_ETRUNC, vp_cursor_off(c),
                   "%s%sexpected %s (%llu byte%s), only %zu left before %s", where ? where : "",
                   where ? ": " : "", field, (unsigned long long)need, need == 1 ? "" : "s",
                   vp_cursor_left(c), bound ? bound : "the end of the file");
}

/* Check that n bytes follow, for a run of unchecked reads. */
static inline vp_errcode vp_need(vp_cursor *c, size_t n, const char *field, vp_error *err)
{
    return vp_cursor_has(c, n) ? VP_OK : vp_cursor_short(c, NULL, field, n, NULL, err);
}

static inline vp_errcode vp_field_u8(vp_cursor *c, uint8_t *v, const char *field, vp_error *err)
{
    return vp_rd_u8(c, v) ? VP_OK : vp_cursor_short(c, NULL, field, 1, NULL, err);
}

static inline vp_errcode vp_field_u16(vp_cursor *c, uint16_t *v, const char *field, vp_error *err)
{
    return vp_rd_u16(c, v) ? VP_OK : vp_cursor_short(c, NULL, field, 2, NULL, err);
}

static inline vp_errcode vp_field_u32(vp_cursor *c, uint32_t *v, const char *field, vp_error *err)
{
    return vp_rd_u32(c, v) ? VP_OK : vp_cursor_short(c, NULL, field, 4, NULL, err);
}

static inline vp_errcode vp_field_bytes(vp_cursor *c, void *dst, size_t n, const char *field,
                                        vp_error *err)
{
    return vp_rd_bytes(c, dst, n) ? VP_OK : vp_cursor_short(c, NULL, field, n, NULL, err);
}

static inline vp_errcode vp_field_f32s(vp_cursor *c, float *v, size_t n, const char *field,
                                       vp_error *err)
{
    return vp_rd_f32s(c, v, n) ? VP_OK : vp_cursor_short(c, NULL, field, n * 4, NULL, err);
}

/* A NUL-terminated string: *off receives the cursor offset it starts at.
 * A string has no size to announce, so its message says what is missing:
 * "expected the NUL-terminated <field>, no NUL in the <m> bytes left". */
static inline vp_errcode vp_field_cstr(vp_cursor *c, uint64_t *off, size_t *len,
                                       const char *field, vp_error *err)
{
    uint64_t at = vp_cursor_off(c);
    const char *s;
    if (vp_rd_cstr(c, &s, len)) {
        *off = at;
        return VP_OK;
    }
    return vp_fail(err, VP_ETRUNC, at, "expected the NUL-terminated %s, no NUL in the %zu bytes left",
                   field, vp_cursor_left(c));
}

#endif
