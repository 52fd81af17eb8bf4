/* A capture's bytes, read through a window instead of a mapping.
 *
 * Files change under us: CI machines rotate and clean their captures, and a
 * capture being written is read while it grows. A mapped file that shrinks
 * kills the process with SIGBUS on the next touch of a page past its new
 * end; a source never maps, so the same event is an error the caller can
 * report ("the file was truncated while open"). The window also bounds
 * what a whole-file pass keeps resident, without madvise.
 *
 * Readers ask for a range with vp_src_get and decode from the pointer it
 * returns, which stays valid until the next call on the same source. A
 * memory source (tests, fuzzers, vp_<fmt>_open_mem) hands out pointers into
 * its buffer and never fails a range inside it. */
#ifndef VP_SOURCE_H
#define VP_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "core/vp_error.h"

/* Bytes read per refill when the caller needs fewer: a window when the
 * read continues the current one, a block when it is elsewhere. */
#define VP_SRC_WINDOW ((size_t)1 << 20)
#define VP_SRC_BLOCK ((size_t)16 << 10)

typedef struct vp_src {
    int fd;             /* -1: a memory source */
    const uint8_t *mem; /* the memory source's bytes */
    uint64_t size;      /* bytes when opened: every range is checked against it */
    /* The window: buf[0 .. len) holds the file's bytes from off. */
    uint8_t *buf;
    size_t cap, len;
    uint64_t off;
} vp_src;

/* Open a regular file. Fails at once, without blocking, for what is not one
 * (ENOENT, EISDIR, EIO naming a FIFO, device or socket) and for an empty
 * file (EEMPTY). Messages do not name the file (the caller adds the path). */
vp_errcode vp_src_open(vp_src *s, const char *path, vp_error *err);

/* A source over a caller-owned buffer; vp_src_close leaves the buffer alone. */
void vp_src_wrap(vp_src *s, const void *buf, size_t n);

/* Release the file and the window (idempotent; the struct is zeroed). */
void vp_src_close(vp_src *s);

/* Bytes [off, off + need) of the source: a pointer to byte `off` and, in
 * *avail (may be NULL), how many bytes from there are readable without
 * another call (>= need; up to the end of the window or of the buffer).
 * `need` may be 0 to ask for whatever follows off. Fails with ETRUNC when
 * the range runs past the size the source had when opened (a caller's
 * bounds bug or a hostile count: callers check first), and with ECHANGED
 * when the file no longer holds those bytes: it was truncated since it was
 * opened. (A file that grows is fine: a capture being written is read as
 * far as it was when opened. One rewritten in place with other bytes shows
 * as whatever those bytes break, which the decoders report as errors.) */
const uint8_t *vp_src_get(vp_src *s, uint64_t off, size_t need, size_t *avail, vp_error *err);

/* Drop the window's buffer (the next get refills): for callers that finish
 * a pass and keep the source open. */
void vp_src_forget(vp_src *s);

#endif
