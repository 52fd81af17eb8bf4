/* What the four debug-trace writers share beyond the framing of wbuf.h:
 * how a writer is made around its file, and the common operations (raw
 * bytes, truncate, tell, close) of the two that build their file in memory.
 *
 * .dm and .dw stream their file (vp_wstream); .devt and .dlag build it in
 * memory (vp_wfile) behind a header written the first time anything else
 * is, so that options set at open can still shape it. */
#ifndef VP_TRACE_WRITE_H
#define VP_TRACE_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/vp_error.h"
#include "write/wbuf.h"

/* How a writer keeps its file: streamed (vp_wstream: .dm, .dw) or built
 * in memory (vp_wfile: .devt, .dlag). */
typedef enum { VP_TW_STREAM, VP_TW_MEMORY } vp_tw_file;

/* A zeroed writer of `size` bytes whose file, the vp_wstream or vp_wfile
 * (as `kind` says) at `file_offset`, has been opened on `path` (the path is
 * created now); NULL with err (ENOMEM "out of memory", or the open's
 * error) on failure, nothing left to release. */
void *vp_trace_writer_new(size_t size, size_t file_offset, vp_tw_file kind, const char *path,
                          vp_error *err);

/* The common operations of an in-memory writer, defined once for both: in
 * <fmt>_write.c,
 *
 *     VP_WFILE_WRITER(devt, header_emit, writer_free)
 *
 * defines vp_devt_writer_raw, _truncate, _tell and _close as
 * write/devt_write.h declares them, over a struct vp_devt_writer whose
 * vp_wfile is the member `file`: raw appends the bytes (always VP_OK), tell
 * is the bytes so far, both after header_emit(w) (which writes the header
 * once); truncate cuts the finished copy; close writes what
 * vp_devt_writer_data returns (the format's own: it fills in the counts)
 * and releases w with writer_free(w), also on failure. */
#define VP_WFILE_WRITER(fmt, header_fn, free_fn)                                                  \
    vp_errcode vp_##fmt##_writer_raw(vp_##fmt##_writer *w, const void *p, size_t n,               \
                                     vp_error *err)                                               \
    {                                                                                             \
        (void)err;                                                                                \
        header_fn(w);                                                                             \
        vp_wbuf_bytes(&w->file.buf, p, n);                                                        \
        return VP_OK;                                                                             \
    }                                                                                             \
    void vp_##fmt##_writer_truncate(vp_##fmt##_writer *w, uint64_t n)                             \
    {                                                                                             \
        vp_wfile_truncate(&w->file, n);                                                           \
    }                                                                                             \
    uint64_t vp_##fmt##_writer_tell(vp_##fmt##_writer *w)                                         \
    {                                                                                             \
        header_fn(w);                                                                             \
        return w->file.buf.len;                                                                   \
    }                                                                                             \
    vp_errcode vp_##fmt##_writer_close(vp_##fmt##_writer *w, uint64_t *bytes, vp_error *err)      \
    {                                                                                             \
        size_t len = 0;                                                                           \
        const uint8_t *p = vp_##fmt##_writer_data(w, &len, err);                                  \
        vp_errcode rc = vp_wfile_close(&w->file, p, len, bytes, err);                             \
        free_fn(w);                                                                               \
        return rc;                                                                                \
    }

#endif
