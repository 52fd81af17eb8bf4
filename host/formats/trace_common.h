/* Pieces shared by the four debug-trace readers (.devt, .dlag, .dm, .dw):
 * the chunked array, the visibility bitfield, and reading records through
 * a source (core/source.h). The writers have their own
 * (write/wbuf.h): a writer and its reader share nothing but the spec.
 *
 * The chunked array, exactly as specs/format-notes.md states it:
 *
 *     do { count = u8; read count elements } while (count == 255)
 *
 * A count of 0 ends the array with no elements; 1..254 read that many and
 * end it; 255 reads 255 and another count byte follows. So an empty array is
 * `00`, exactly 255 elements are `FF` + 255 elements + `00`.
 *
 * The bitfield of N entries takes ((N >> 6) + 1) << 3 bytes: N/64 + 1
 * little-endian 64-bit words, entry i being bit (i % 8) of byte i / 8.
 *
 * Readers: every block count is checked against the bytes left (count x the
 * element's minimum size) before anything is read or allocated, and errors
 * name the offset of the count byte and the array. A block that runs past
 * the end of the file still holds whole elements, which a lenient open
 * keeps (vp_chunked_skip_fixed counts them). */
#ifndef VP_TRACE_COMMON_H
#define VP_TRACE_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/cursor.h"
#include "core/open_opts.h"
#include "core/source.h"
#include "core/vp_error.h"

/* ---- chunked array: reading ------------------------------------------ */

/* Element-by-element walk over one chunked array. Zero-initialise (or call
 * vp_chunked_begin), then call vp_chunked_next before each element. */
typedef struct vp_chunked {
    uint64_t index;      /* elements handed out so far */
    uint64_t count_off;  /* file offset of the last count byte read */
    unsigned left;       /* elements left in the current block */
    unsigned last_count; /* the current block's count byte */
    int started, done;
} vp_chunked;

void vp_chunked_begin(vp_chunked *it);

/* Position the cursor on the next element: reads count bytes as needed.
 * Returns 1 when an element follows at the cursor, 0 when the array has
 * ended (its last count byte consumed), -1 on error (err filled: ETRUNC for
 * a missing count byte or a block whose `count * min_elem` exceeds the bytes
 * left). `what` names the elements in messages ("dm records"). */
int vp_chunked_next(vp_chunked *it, vp_cursor *c, size_t min_elem, const char *what,
                    vp_error *err);

/* Walk a chunked array of fixed-size elements without decoding them: the
 * cursor ends after the array and *count receives the element total. The
 * total is what a caller may then allocate: every element was proven to be
 * in the file. When the file ends inside the array (ETRUNC, err naming the
 * count byte), *count still receives the whole elements that are in the
 * file, those of the block that runs past the end included, and the cursor
 * ends after the last of them: a lenient reader keeps them. */
vp_errcode vp_chunked_skip_fixed(vp_cursor *c, size_t elem_size, const char *what,
                                 uint64_t *count, vp_error *err);

/* Copy the elements of a fixed-size chunked array into `dst` (capacity
 * `max` elements, e.g. from a prior vp_chunked_skip_fixed): the count bytes
 * are dropped, elements land back to back. Fails with EFORMAT when the
 * array holds more than `max`. *count receives the number copied. */
vp_errcode vp_chunked_read_fixed(vp_cursor *c, size_t elem_size, const char *what, void *dst,
                                 uint64_t max, uint64_t *count, vp_error *err);

/* ---- reading through a source ---------------------------------------
 * The readers never map their file: every byte comes from vp_src_get, so a
 * file truncated while open is an ECHANGED error on the next read, never a
 * SIGBUS. Records are still decoded with a cursor: vp_src_parse hands the
 * decoder a window of the file and, when the record runs past the window
 * (but not past `end`), runs it again over a larger one. */

/* Decode one record at the cursor (which starts at the record). The
 * callback may run several times for one record, so it writes its results
 * into ctx afresh each time and touches nothing else. */
typedef vp_errcode (*vp_src_parse_fn)(vp_cursor *c, void *ctx, vp_error *err);

/* Run fn over a cursor on the bytes [off, end) of s (end <= s->size), or
 * the part of them the window holds; *next (may be NULL) receives the
 * cursor's offset after fn. The error is fn's (an ETRUNC names `end` as the
 * end of the readable range only once the window reaches it), or the
 * source's (ECHANGED, EIO, ENOMEM). */
vp_errcode vp_src_parse(vp_src *s, uint64_t off, uint64_t end, vp_src_parse_fn fn, void *ctx,
                        uint64_t *next, vp_error *err);

/* Copy bytes [off, off + n) of s into dst. */
vp_errcode vp_src_read(vp_src *s, uint64_t off, void *dst, size_t n, vp_error *err);

/* A cursor (file offsets) on the n bytes at off of s, which the caller
 * has checked are inside the records: the source's error (ECHANGED, EIO)
 * when the read fails. */
vp_errcode vp_src_cursor(vp_src *s, uint64_t off, size_t n, vp_cursor *c, vp_error *err);

/* The little-endian u32 at off, or the cut message of core/cursor.h naming
 * `field` ("expected <field> (4 bytes), only N left before the end of the
 * file") when fewer than 4 bytes are left. */
vp_errcode vp_src_u32(vp_src *s, uint64_t off, uint32_t *v, const char *field, vp_error *err);

/* The NUL-terminated string at off, looked for before `end`: *len receives
 * its length without the NUL. ETRUNC (the message of vp_field_cstr) when no
 * NUL comes before end. */
vp_errcode vp_src_cstr(vp_src *s, uint64_t off, uint64_t end, const char *field, size_t *len,
                       vp_error *err);

/* Errors of the source itself rather than of the bytes in it: a file that
 * changed, an I/O error, memory. A lenient reader keeps a cut file, never
 * one of these. */
static inline int vp_src_failed(vp_errcode rc)
{
    return rc == VP_ECHANGED || rc == VP_EIO || rc == VP_ENOMEM;
}

/* vp_chunked_next over a source: *pos is the offset of the next element
 * (or count byte) and `end` the end of the readable range. Same results
 * and messages; on a block that runs past end, *pos stays on its count
 * byte. A source error returns -1 with err filled. */
int vp_chunked_next_src(vp_chunked *it, vp_src *s, uint64_t *pos, uint64_t end, size_t min_elem,
                        const char *what, vp_error *err);

/* vp_chunked_skip_fixed over a source: reads only the count bytes. *pos
 * moves past the array (or past the last whole element of a cut one); the
 * return is VP_OK, ETRUNC (a cut, *count holding the whole elements in the
 * range) or a source error. */
vp_errcode vp_chunked_skip_src(vp_src *s, uint64_t *pos, uint64_t end, size_t elem_size,
                               const char *what, uint64_t *count, vp_error *err);

/* ---- opening a reader --------------------------------------------------
 * The four readers open alike: a zeroed model whose vp_src member reads
 * the file at `path` (or wraps a caller-owned buffer that must outlive the
 * model), then the reader's index pass with opts->strict (opts may be
 * NULL). On failure the model is freed (free_model once the source is
 * open), *out is NULL and err says why; on success the source forgets its
 * window: the open pass is over, and the next read refills from the file
 * as it is then (a file truncated since is an error, not stale bytes). */
typedef struct vp_trace_reader {
    size_t model_size; /* sizeof the model */
    size_t src_offset; /* offsetof(model, its vp_src) */
    vp_errcode (*index)(void *model, int strict, vp_error *err);
    void (*free_model)(void *model);
} vp_trace_reader;

vp_errcode vp_trace_open(const vp_trace_reader *r, const char *path, const vp_open_opts *opts,
                         void **out, vp_error *err);
vp_errcode vp_trace_open_mem(const vp_trace_reader *r, const void *buf, size_t n,
                             const vp_open_opts *opts, void **out, vp_error *err);

/* A reader's three entry points, defined once for all four: in <fmt>.c,
 *
 *     VP_TRACE_READER(dm, dm_parse, dm_free_arrays)
 *
 * defines vp_dm_open, vp_dm_open_mem and vp_dm_free as formats/dm.h
 * declares them: the model is vp_dm (its source in the member `src`, its
 * warnings in `warnings`), opened by vp_trace_open and vp_trace_open_mem
 * with the index pass dm_parse; the free closes the source, calls
 * dm_free_arrays(d) for what else the model owns, and frees the warnings
 * and the model. */
#define VP_TRACE_READER(fmt, index_fn, free_arrays_fn)                                            \
    void vp_##fmt##_free(vp_##fmt *m)                                                             \
    {                                                                                             \
        if (!m)                                                                                   \
            return;                                                                               \
        vp_src_close(&m->src);                                                                    \
        free_arrays_fn(m);                                                                        \
        vp_warnings_free(&m->warnings);                                                           \
        free(m);                                                                                  \
    }                                                                                             \
    static void fmt##_free_model(void *m)                                                         \
    {                                                                                             \
        vp_##fmt##_free(m);                                                                       \
    }                                                                                             \
    static const vp_trace_reader fmt##_reader = {                                                 \
        .model_size = sizeof(vp_##fmt),                                                           \
        .src_offset = offsetof(vp_##fmt, src),                                                    \
        .index = index_fn,                                                                        \
        .free_model = fmt##_free_model,                                                           \
    };                                                                                            \
    vp_errcode vp_##fmt##_open(const char *path, const vp_open_opts *opts, vp_##fmt **out,        \
                               vp_error *err)                                                     \
    {                                                                                             \
        void *m;                                                                                  \
        vp_errcode rc = vp_trace_open(&fmt##_reader, path, opts, &m, err);                        \
        *out = m;                                                                                 \
        return rc;                                                                                \
    }                                                                                             \
    vp_errcode vp_##fmt##_open_mem(const void *buf, size_t n, const vp_open_opts *opts,           \
                                   vp_##fmt **out, vp_error *err)                                 \
    {                                                                                             \
        void *m;                                                                                  \
        vp_errcode rc = vp_trace_open_mem(&fmt##_reader, buf, n, opts, &m, err);                  \
        *out = m;                                                                                 \
        return rc;                                                                                \
    }

/* ---- the open pass's checkpoints ------------------------------------------
 * The slotted readers (.dm, .dw) keep a position every so many records so
 * that a seek decodes only from the one before. */

/* Room for element n of the array arr of `size`-byte elements that has
 * room for *cap (which doubles, from 16, when it is full): the array,
 * moved when it grew, or NULL when memory ran out (arr then unchanged). */
void *vp_trace_grow(void *arr, size_t n, size_t *cap, size_t size);

/* ---- bitfield: reading ------------------------------------------------ */

/* Bytes of a bitfield of n entries: ((n >> 6) + 1) << 3. */
static inline size_t vp_bitfield_size(uint64_t n)
{
    return (size_t)(((n >> 6) + 1) << 3);
}

/* Read (point at) a bitfield of n entries; ETRUNC naming `what` and the
 * offset when the file ends inside it. */
vp_errcode vp_bitfield_read(vp_cursor *c, uint64_t n, const char *what, const uint8_t **bits,
                            size_t *len, vp_error *err);

/* Entry i of a bitfield of `len` bytes (0 when i is past it). */
static inline int vp_bitfield_get(const uint8_t *bits, size_t len, uint64_t i)
{
    return (i >> 3) < len ? (bits[i >> 3] >> (i & 7)) & 1 : 0;
}

#endif
