/* The writer side of the debug-trace framing (.devt, .dlag, .dm, .dw):
 * growable little-endian buffers, the chunked array and the bitfield as
 * specs/format-notes.md states them, and files built in memory or streamed.
 * Writers share nothing with the readers but the spec. */
#ifndef VP_WBUF_H
#define VP_WBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/buf.h"
#include "core/vp_error.h"

/* Bytes of a bitfield of n entries: ((n >> 6) + 1) << 3 (format-notes). */
static inline size_t vp_wbitfield_size(uint64_t n)
{
    return (size_t)(((n >> 6) + 1) << 3);
}

/* ---- writing ----------------------------------------------------------- */

/* Growable little-endian output buffer (core/buf). Allocation failure is
 * sticky (`oom`): writers check it once when flushing. */
typedef vp_buf vp_wbuf;

void vp_wbuf_free(vp_wbuf *b);
void vp_wbuf_bytes(vp_wbuf *b, const void *p, size_t n);
void vp_wbuf_zero(vp_wbuf *b, size_t n);
void vp_wbuf_u8(vp_wbuf *b, uint8_t v);
void vp_wbuf_u16(vp_wbuf *b, uint16_t v);
void vp_wbuf_u32(vp_wbuf *b, uint32_t v);
void vp_wbuf_u64(vp_wbuf *b, uint64_t v);
void vp_wbuf_f32(vp_wbuf *b, float v);
/* The string and its NUL. */
void vp_wbuf_cstr(vp_wbuf *b, const char *s);

/* Streaming chunked-array writer for when the total is not known up front:
 * each element is written into `elem` (vp_chunkw_elem returns it), then
 * committed with vp_chunkw_commit; every 255 committed elements the block is
 * emitted to `out` as FF + elements; vp_chunkw_finish emits the last block
 * with its count (00 when it is empty, which is also what ends an array
 * whose length is a multiple of 255). */
typedef struct vp_chunkw {
    vp_wbuf pending; /* committed elements of the open block */
    vp_wbuf elem;    /* the element being written */
    unsigned in_block;
    uint64_t total;
} vp_chunkw;

void vp_chunkw_init(vp_chunkw *w);
/* The buffer to write the next element into (emptied). */
vp_wbuf *vp_chunkw_elem(vp_chunkw *w);
/* Count the element written into vp_chunkw_elem's buffer. */
void vp_chunkw_commit(vp_chunkw *w, vp_wbuf *out);
/* Bytes that belong inside the array but are no element (deliberately
 * broken files): appended to the open block uncounted. */
void vp_chunkw_raw(vp_chunkw *w, const void *p, size_t n);
/* Emit the final block; the writer can be reused for another array. */
void vp_chunkw_finish(vp_chunkw *w, vp_wbuf *out);
void vp_chunkw_free(vp_chunkw *w);

/* Count bytes of an array of n elements when the total is known: calls
 * `elem(ud, out, i)` for each element after writing the count byte its
 * block needs. elem returns 0 to abort (returned as 0). */
int vp_chunked_write(vp_wbuf *out, uint64_t n, int (*elem)(void *ud, vp_wbuf *out, uint64_t i),
                     void *ud);

/* A bitfield of n entries with the entries for which get(ud, i) is true
 * set; NULL get writes all zeros. */
void vp_bitfield_write(vp_wbuf *out, uint64_t n, int (*get)(void *ud, uint64_t i), void *ud);

/* How to frame one chunked array when writing. Default (all zero): the
 * exact rule, total = the element count. `chunks` lists the count bytes to
 * write instead; elements fill the blocks in order, a block whose count
 * exceeds the elements left gets only those, and elements left after the
 * last listed block follow it uncounted. `total` is for the formats whose
 * arrays follow a u32 total. */
typedef struct vp_wframing {
    int has_total;
    uint32_t total;
    const uint8_t *chunks;
    size_t nchunks;
} vp_wframing;

/* vp_chunked_write, framed by f (NULL: the exact rule). */
int vp_chunked_write_framed(vp_wbuf *out, uint64_t n, const vp_wframing *f,
                            int (*elem)(void *ud, vp_wbuf *out, uint64_t i), void *ud);

/* An array that follows its u32 total (a .devt group, a .dlag
 * measurement): the total (f->total when f sets one, else n), then the
 * array as vp_chunked_write_framed writes it. */
int vp_totaled_write_framed(vp_wbuf *out, uint64_t n, const vp_wframing *f,
                            int (*elem)(void *ud, vp_wbuf *out, uint64_t i), void *ud);

/* A file built in memory, for writers that fill in a count once the parts
 * are written and that cut the result short on request (broken files). */
typedef struct vp_wfile {
    char *path;  /* written at vp_wfile_close */
    vp_wbuf buf; /* the file as written so far */
    vp_wbuf out; /* the finished copy handed out */
    int has_cut;
    uint64_t cut;
} vp_wfile;

/* Create (truncate) path now, so that a path that cannot be written fails
 * when the writer is opened, as a streamed writer's does; the bytes are
 * written by vp_wfile_close. Errors as vp_wstream_open's. */
vp_errcode vp_wfile_open(vp_wfile *f, const char *path, vp_error *err);
void vp_wfile_free(vp_wfile *f);
/* Cut the finished copy to n bytes (applied last). */
void vp_wfile_truncate(vp_wfile *f, uint64_t n);
/* Start the finished copy: `out` holds buf again; the writer may complete
 * it (parts a real export would have) before vp_wfile_done. */
vp_wbuf *vp_wfile_copy(vp_wfile *f);
/* End the finished copy: the u32 at count_at set to count, the cut
 * applied. Valid until the next vp_wfile_copy. NULL with ENOMEM ("out of
 * memory building <what>") when memory ran out on the way. */
const uint8_t *vp_wfile_done(vp_wfile *f, size_t count_at, uint32_t count, const char *what,
                             size_t *len, vp_error *err);
/* A file written as it goes (the .dm, .dw and .vprof writers): the writer
 * buffers and hands the bytes over now and then. The file is opened for
 * reading too, so the bytes so far can be read back (w:data()), and a cut
 * asked for (w:truncate) is applied when it is closed. Messages name the
 * path. */
typedef struct vp_wstream {
    FILE *f;
    char *path;
    uint64_t flushed; /* bytes handed to the file */
    int failed;       /* a write failed: the file is incomplete */
    int has_cut;
    uint64_t cut;     /* the size to cut the file to when it is closed */
} vp_wstream;

/* Create (truncate) path: ENOMEM "out of memory"; ENOENT, EISDIR or EIO
 * "cannot create <path>: <why>"; nothing is left to release on failure. */
vp_errcode vp_wstream_open(vp_wstream *s, const char *path, vp_error *err);
/* Hand n bytes to the file: EIO "cannot write <path>: <why>" (and every
 * write after a failed one fails too). */
vp_errcode vp_wstream_write(vp_wstream *s, const void *p, size_t n, vp_error *err);
/* Hand b's bytes to the file and empty b: ENOMEM when b ran out of memory
 * on the way, else as vp_wstream_write. */
vp_errcode vp_wstream_flush(vp_wstream *s, vp_wbuf *b, vp_error *err);
/* Cut the file to n bytes when it is closed (when it is longer). */
void vp_wstream_truncate(vp_wstream *s, uint64_t n);
/* The file as closing it now would leave it: the bytes handed over so far,
 * then `tail` (what the writer would still write), cut as asked; into
 * `out`, which is emptied first. NULL with err (EIO, ENOMEM) on failure. */
const uint8_t *vp_wstream_contents(vp_wstream *s, const void *tail, size_t ntail, vp_wbuf *out,
                                   size_t *len, vp_error *err);
/* Close the file after the last flush, which returned rc, applying the
 * cut; a failing close is reported when nothing failed before. *bytes (may
 * be NULL) receives the file size. Releases s. */
vp_errcode vp_wstream_close(vp_wstream *s, vp_errcode rc, uint64_t *bytes, vp_error *err);

/* Write p[0..len), what vp_wfile_done returned, to the file (EIO naming
 * the path) and release f; *bytes (may be NULL) receives len. p NULL:
 * building the bytes failed, err says why, ENOMEM is returned. */
vp_errcode vp_wfile_close(vp_wfile *f, const uint8_t *p, size_t len, uint64_t *bytes,
                          vp_error *err);

#endif
