#include "formats/trace_common.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vp_chunked_begin(vp_chunked *it)
{
    memset(it, 0, sizeof *it);
}

int vp_chunked_next(vp_chunked *it, vp_cursor *c, size_t min_elem, const char *what,
                    vp_error *err)
{
    while (!it->done && it->left == 0) {
        /* A new count byte follows only at the start and after a full block. */
        if (it->started && it->last_count != 255) {
            it->done = 1;
            break;
        }
        uint64_t off = vp_cursor_off(c);
        uint8_t count;
        if (!vp_rd_u8(c, &count)) {
            vp_fail(err, VP_ETRUNC, off,
                    "expected the count byte of a block of %s (element %llu), found the end of "
                    "the file",
                    what, (unsigned long long)it->index + 1);
            return -1;
        }
        it->started = 1;
        it->count_off = off;
        it->last_count = count;
        /* Prove the whole block can be in the file before anyone allocates
         * or decodes for it: no element is shorter than min_elem. */
        if (min_elem && (uint64_t)count * min_elem > vp_cursor_left(c)) {
            vp_fail(err, VP_ETRUNC, off,
                    "block count %u of %s needs at least %llu bytes, only %zu left", count, what,
                    (unsigned long long)count * min_elem, vp_cursor_left(c));
            c->p--; /* leave the cursor on the count byte it names */
            return -1;
        }
        it->left = count;
    }
    if (it->done)
        return 0;
    it->left--;
    it->index++;
    return 1;
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
