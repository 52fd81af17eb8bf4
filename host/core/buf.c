#include "core/buf.h"

#include <stdlib.h>
#include <string.h>

void vp_buf_free(vp_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

int vp_buf_reserve(vp_buf *b, size_t n)
{
    if (b->oom)
        return 0;
    if (n <= b->cap - b->len)
        return 1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len < n) {
        if (cap > SIZE_MAX / 2) {
            b->oom = 1;
            return 0;
        }
        cap *= 2;
    }
    uint8_t *p = realloc(b->data, cap);
    if (!p) {
        b->oom = 1;
        return 0;
    }
    b->data = p;
    b->cap = cap;
    return 1;
}

void vp_buf_put(vp_buf *b, const void *p, size_t n)
{
    if (n && vp_buf_reserve(b, n)) {
        memcpy(b->data + b->len, p, n);
        b->len += n;
    }
}
