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

#endif
