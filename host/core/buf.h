/* A growable byte buffer whose allocation failure is sticky (`oom`): code
 * that appends checks once, at the end. The writers' output buffers
 * (write/wbuf) and JSON text (core/jsonw) are this. */
#ifndef VP_BUF_H
#define VP_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct vp_buf {
    uint8_t *data;
    size_t len, cap;
    int oom;
} vp_buf;

/* Release the bytes (the buffer is empty and usable again). */
void vp_buf_free(vp_buf *b);

/* Room for n more bytes: 1, or 0 with b->oom set (also once it was set). */
int vp_buf_reserve(vp_buf *b, size_t n);

/* Append n bytes (nothing on OOM). */
void vp_buf_put(vp_buf *b, const void *p, size_t n);

#endif
