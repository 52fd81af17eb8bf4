/* Making a debug-trace writer around its file (trace_write.h). */
#include "write/trace_write.h"

#include <stdlib.h>

void *vp_trace_writer_new(size_t size, size_t file_offset, vp_tw_file kind, const char *path,
                          vp_error *err)
{
    char *w = calloc(1, size);
    if (!w) {
        vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
        return NULL;
    }
    void *file = w + file_offset;
    vp_errcode rc = kind == VP_TW_STREAM ? vp_wstream_open(file, path, err)
                                         : vp_wfile_open(file, path, err);
    if (rc != VP_OK) {
        free(w);
        return NULL;
    }
    return w;
}
