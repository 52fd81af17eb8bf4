#include "formats/trace_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vp_chunked_begin(vp_chunked *it)
{
    memset(it, 0, sizeof *it);
}

/* The two ways a block's count byte fails, in one wording for the cursor
 * and the source walks. */
static void count_missing(vp_error *err, uint64_t off, const char *what, uint64_t index)
{
    vp_fail(err, VP_ETRUNC, off,
            "expected the count byte of a block of %s (element %llu), found the end of the file",
            what, (unsigned long long)index + 1);
}

static void block_too_big(vp_error *err, uint64_t off, unsigned count, const char *what,
                          size_t min_elem, uint64_t left)
{
    vp_fail(err, VP_ETRUNC, off, "block count %u of %s needs at least %llu bytes, only %llu left",
            count, what, (unsigned long long)count * min_elem, (unsigned long long)left);
}

/* Whether a count byte is the next thing to read: at the start and after
 * a full block; after any other block the array has ended (then done). */
static int chunked_wants_count(vp_chunked *it)
{
    if (it->done || it->left != 0)
        return 0;
    if (it->started && it->last_count != 255) {
        it->done = 1;
        return 0;
    }
    return 1;
}

/* The next element once the counts are read: 1, or 0 at the end. */
static int chunked_take(vp_chunked *it)
{
    if (it->done)
        return 0;
    it->left--;
    it->index++;
    return 1;
}

int vp_chunked_next(vp_chunked *it, vp_cursor *c, size_t min_elem, const char *what,
                    vp_error *err)
{
    while (chunked_wants_count(it)) {
        uint64_t off = vp_cursor_off(c);
        uint8_t count;
        if (!vp_rd_u8(c, &count)) {
            count_missing(err, off, what, it->index);
            return -1;
        }
        it->started = 1;
        it->count_off = off;
        it->last_count = count;
        /* Prove the whole block can be in the file before anyone allocates
         * or decodes for it: no element is shorter than min_elem. */
        if (min_elem && (uint64_t)count * min_elem > vp_cursor_left(c)) {
            block_too_big(err, off, count, what, min_elem, vp_cursor_left(c));
            c->p--; /* leave the cursor on the count byte it names */
            return -1;
        }
        it->left = count;
    }
    return chunked_take(it);
}

int vp_chunked_next_src(vp_chunked *it, vp_src *s, uint64_t *pos, uint64_t end, size_t min_elem,
                        const char *what, vp_error *err)
{
    while (chunked_wants_count(it)) {
        uint64_t off = *pos;
        if (off >= end) {
            count_missing(err, off, what, it->index);
            return -1;
        }
        const uint8_t *p = vp_src_get(s, off, 1, NULL, err);
        if (!p)
            return -1;
        uint8_t count = *p;
        it->started = 1;
        it->count_off = off;
        it->last_count = count;
        uint64_t left = end - off - 1;
        if (min_elem && (uint64_t)count * min_elem > left) {
            block_too_big(err, off, count, what, min_elem, left);
            return -1; /* *pos stays on the count byte */
        }
        *pos = off + 1;
        it->left = count;
    }
    return chunked_take(it);
}

vp_errcode vp_chunked_skip_src(vp_src *s, uint64_t *pos, uint64_t end, size_t elem_size,
                               const char *what, uint64_t *count, vp_error *err)
{
    uint64_t p = *pos, n = 0;
    for (;;) {
        if (p >= end) {
            count_missing(err, p, what, n);
            break;
        }
        const uint8_t *b = vp_src_get(s, p, 1, NULL, err);
        if (!b) {
            *pos = p;
            *count = n;
            return err ? err->code : VP_EIO;
        }
        unsigned k = *b;
        uint64_t left = end - p - 1;
        if ((uint64_t)k * elem_size > left) {
            block_too_big(err, p, k, what, elem_size, left);
            /* The whole elements of the block that are in the range count. */
            uint64_t whole = left / elem_size;
            n += whole;
            p += 1 + whole * elem_size;
            break;
        }
        n += k;
        p += 1 + (uint64_t)k * elem_size;
        if (k != 255) {
            *pos = p;
            *count = n;
            return VP_OK;
        }
    }
    *pos = p;
    *count = n;
    return VP_ETRUNC;
}

vp_errcode vp_src_parse(vp_src *s, uint64_t off, uint64_t end, vp_src_parse_fn fn, void *ctx,
                        uint64_t *next, vp_error *err)
{
    if (off > end)
        return vp_fail(err, VP_EFORMAT, off, "no record starts here (the range ends at byte %llu)",
                       (unsigned long long)end);
    size_t want = 0;
    for (;;) {
        size_t avail = 0;
        static const uint8_t none[1];
        /* An empty range has no bytes to get (and no window to point at). */
        const uint8_t *p = off == end ? none : vp_src_get(s, off, want, &avail, err);
        if (!p)
            return err ? err->code : VP_EIO;
        if (avail > end - off)
            avail = (size_t)(end - off);
        vp_cursor c;
        vp_cursor_init(&c, p, avail, off);
        vp_error e;
        vp_errcode rc = fn(&c, ctx, &e);
        if (rc == VP_OK || rc != VP_ETRUNC || off + avail >= end) {
            if (rc != VP_OK && err)
                *err = e;
            if (rc == VP_OK && next)
                *next = vp_cursor_off(&c);
            return rc;
        }
        /* The record runs past the window: a larger one, from the record. */
        uint64_t grow = avail < VP_SRC_WINDOW / 2 ? VP_SRC_WINDOW : (uint64_t)avail * 2;
        if (grow > end - off)
            grow = end - off;
        want = (size_t)grow;
    }
}

vp_errcode vp_src_read(vp_src *s, uint64_t off, void *dst, size_t n, vp_error *err)
{
    const uint8_t *p = vp_src_get(s, off, n, NULL, err);
    if (!p)
        return err ? err->code : VP_EIO;
    if (n)
        memcpy(dst, p, n);
    return VP_OK;
}

vp_errcode vp_src_cursor(vp_src *s, uint64_t off, size_t n, vp_cursor *c, vp_error *err)
{
    const uint8_t *p = vp_src_get(s, off, n, NULL, err);
    if (!p)
        return err ? err->code : VP_EIO;
    vp_cursor_init(c, p, n, off);
    return VP_OK;
}

vp_errcode vp_src_u32(vp_src *s, uint64_t off, uint32_t *v, const char *field, vp_error *err)
{
    if (off > s->size || s->size - off < 4) {
        /* The message needs the offset and the bytes left, not the bytes. */
        static const uint8_t none[4];
        vp_cursor c;
        vp_cursor_init(&c, none, off > s->size ? 0 : (size_t)(s->size - off), off);
        return vp_cursor_short(&c, NULL, field, 4, NULL, err);
    }
    uint8_t b[4];
    vp_errcode rc = vp_src_read(s, off, b, 4, err);
    if (rc)
        return rc;
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return VP_OK;
}

vp_errcode vp_src_cstr(vp_src *s, uint64_t off, uint64_t end, const char *field, size_t *len,
                       vp_error *err)
{
    uint64_t p = off;
    while (p < end) {
        size_t avail = 0;
        const uint8_t *b = vp_src_get(s, p, 0, &avail, err);
        if (!b)
            return err ? err->code : VP_EIO;
        if (avail == 0) { /* at the window's end: read on from here */
            b = vp_src_get(s, p, 1, &avail, err);
            if (!b)
                return err ? err->code : VP_EIO;
        }
        if (avail > end - p)
            avail = (size_t)(end - p);
        const uint8_t *nul = memchr(b, 0, avail);
        if (nul) {
            *len = (size_t)(p - off) + (size_t)(nul - b);
            return VP_OK;
        }
        p += avail;
    }
    return vp_fail(err, VP_ETRUNC, off,
                   "expected the NUL-terminated %s, no NUL in the %llu bytes left", field,
                   (unsigned long long)(end - off));
}

vp_errcode vp_chunked_skip_fixed(vp_cursor *c, size_t elem_size, const char *what,
                                 uint64_t *count, vp_error *err)
{
    vp_chunked it;
    vp_chunked_begin(&it);
    int r;
    while ((r = vp_chunked_next(&it, c, elem_size, what, err)) > 0)
        vp_skip(c, elem_size); /* cannot fail: the block was checked */
    *count = it.index;
    if (r == 0)
        return VP_OK;
    /* vp_chunked_next leaves the cursor on a count byte whose block runs
     * past the end (or at the end when the count byte itself is missing):
     * the whole elements of that block that are in the file still count. */
    if (vp_cursor_left(c) > 0) {
        uint8_t n;
        vp_rd_u8(c, &n);
        uint64_t whole = vp_cursor_left(c) / elem_size;
        if (whole > n)
            whole = n;
        vp_skip(c, (size_t)(whole * elem_size));
        *count += whole;
    }
    return err ? err->code : VP_ETRUNC;
}

vp_errcode vp_chunked_read_fixed(vp_cursor *c, size_t elem_size, const char *what, void *dst,
                                 uint64_t max, uint64_t *count, vp_error *err)
{
    vp_chunked it;
    vp_chunked_begin(&it);
    uint8_t *out = dst;
    int r;
    while ((r = vp_chunked_next(&it, c, elem_size, what, err)) > 0) {
        if (it.index > max)
            return vp_fail(err, VP_EFORMAT, vp_cursor_off(c),
                           "%s: more than the %llu elements expected", what,
                           (unsigned long long)max);
        vp_rd_bytes(c, out, elem_size);
        out += elem_size;
    }
    if (r < 0)
        return err ? err->code : VP_ETRUNC;
    *count = it.index;
    return VP_OK;
}

vp_errcode vp_bitfield_read(vp_cursor *c, uint64_t n, const char *what, const uint8_t **bits,
                            size_t *len, vp_error *err)
{
    size_t need = vp_bitfield_size(n);
    uint64_t off = vp_cursor_off(c);
    if (need > vp_cursor_left(c))
        return vp_fail(err, VP_ETRUNC, off,
                       "%s: a bitfield of %llu entries needs %zu bytes, only %zu left", what,
                       (unsigned long long)n, need, vp_cursor_left(c));
    *bits = c->p;
    *len = need;
    c->p += need;
    return VP_OK;
}

/* ---- opening a reader ------------------------------------------------- */

static vp_src *model_src(const vp_trace_reader *r, void *m)
{
    return (vp_src *)((char *)m + r->src_offset);
}

/* The index pass over a model whose source is open: the model is the
 * caller's on success, freed otherwise. */
static vp_errcode trace_index(const vp_trace_reader *r, void *m, const vp_open_opts *opts,
                              void **out, vp_error *err)
{
    vp_errcode rc = r->index(m, opts && opts->strict, err);
    if (rc != VP_OK) {
        r->free_model(m);
        return rc;
    }
    vp_src_forget(model_src(r, m));
    *out = m;
    return VP_OK;
}

void *vp_trace_grow(void *arr, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return arr;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(arr, ncap * size);
    if (p)
        *cap = ncap;
    return p;
}

vp_errcode vp_trace_open(const vp_trace_reader *r, const char *path, const vp_open_opts *opts,
                         void **out, vp_error *err)
{
    *out = NULL;
    void *m = calloc(1, r->model_size);
    if (!m)
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    vp_errcode rc = vp_src_open(model_src(r, m), path, err);
    if (rc != VP_OK) {
        free(m);
        return rc;
    }
    return trace_index(r, m, opts, out, err);
}

vp_errcode vp_trace_open_mem(const vp_trace_reader *r, const void *buf, size_t n,
                             const vp_open_opts *opts, void **out, vp_error *err)
{
    *out = NULL;
    void *m = calloc(1, r->model_size);
    if (!m)
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    vp_src_wrap(model_src(r, m), buf, n);
    return trace_index(r, m, opts, out, err);
}
