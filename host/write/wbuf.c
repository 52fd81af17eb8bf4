/* Output buffers shared by the writers: growable byte buffers, the chunked
 * array and bitfield writers, in-memory and streamed files. */
#include "write/wbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* ---- writing ----------------------------------------------------------- */

void vp_wbuf_free(vp_wbuf *b)
{
    vp_buf_free(b);
}

void vp_wbuf_bytes(vp_wbuf *b, const void *p, size_t n)
{
    vp_buf_put(b, p, n);
}

void vp_wbuf_zero(vp_wbuf *b, size_t n)
{
    if (n && vp_buf_reserve(b, n)) {
        memset(b->data + b->len, 0, n);
        b->len += n;
    }
}

void vp_wbuf_u8(vp_wbuf *b, uint8_t v)
{
    vp_wbuf_bytes(b, &v, 1);
}

void vp_wbuf_u16(vp_wbuf *b, uint16_t v)
{
    uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    vp_wbuf_bytes(b, x, 2);
}

void vp_wbuf_u32(vp_wbuf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    vp_wbuf_bytes(b, x, 4);
}

void vp_wbuf_u64(vp_wbuf *b, uint64_t v)
{
    vp_wbuf_u32(b, (uint32_t)v);
    vp_wbuf_u32(b, (uint32_t)(v >> 32));
}

void vp_wbuf_f32(vp_wbuf *b, float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    vp_wbuf_u32(b, u);
}

void vp_wbuf_cstr(vp_wbuf *b, const char *s)
{
    vp_wbuf_bytes(b, s, strlen(s) + 1);
}

void vp_chunkw_init(vp_chunkw *w)
{
    memset(w, 0, sizeof *w);
}

vp_wbuf *vp_chunkw_elem(vp_chunkw *w)
{
    w->elem.len = 0;
    return &w->elem;
}

void vp_chunkw_commit(vp_chunkw *w, vp_wbuf *out)
{
    vp_wbuf_bytes(&w->pending, w->elem.data, w->elem.len);
    if (w->elem.oom)
        w->pending.oom = 1;
    w->elem.len = 0;
    w->total++;
    if (++w->in_block == 255) {
        vp_wbuf_u8(out, 255);
        vp_wbuf_bytes(out, w->pending.data, w->pending.len);
        if (w->pending.oom)
            out->oom = 1;
        w->pending.len = 0;
        w->in_block = 0;
    }
}

void vp_chunkw_raw(vp_chunkw *w, const void *p, size_t n)
{
    vp_wbuf_bytes(&w->pending, p, n);
}

void vp_chunkw_finish(vp_chunkw *w, vp_wbuf *out)
{
    vp_wbuf_u8(out, (uint8_t)w->in_block);
    vp_wbuf_bytes(out, w->pending.data, w->pending.len);
    if (w->pending.oom || w->elem.oom)
        out->oom = 1;
    w->pending.len = 0;
    w->pending.oom = 0;
    w->in_block = 0;
    w->total = 0;
}

void vp_chunkw_free(vp_chunkw *w)
{
    vp_wbuf_free(&w->pending);
    vp_wbuf_free(&w->elem);
    w->in_block = 0;
    w->total = 0;
}

int vp_chunked_write(vp_wbuf *out, uint64_t n, int (*elem)(void *ud, vp_wbuf *out, uint64_t i),
                     void *ud)
{
    uint64_t i = 0;
    for (;;) {
        uint64_t left = n - i;
        unsigned count = left >= 255 ? 255 : (unsigned)left;
        vp_wbuf_u8(out, (uint8_t)count);
        for (unsigned k = 0; k < count; k++, i++)
            if (elem && !elem(ud, out, i))
                return 0;
        if (count != 255)
            return 1;
    }
}

void vp_bitfield_write(vp_wbuf *out, uint64_t n, int (*get)(void *ud, uint64_t i), void *ud)
{
    size_t len = vp_wbitfield_size(n);
    size_t at = out->len;
    vp_wbuf_zero(out, len);
    if (!get || out->oom)
        return;
    for (uint64_t i = 0; i < n && (i >> 3) < len; i++)
        if (get(ud, i))
            out->data[at + (i >> 3)] |= (uint8_t)(1u << (i & 7));
}

int vp_chunked_write_framed(vp_wbuf *out, uint64_t n, const vp_wframing *f,
                            int (*elem)(void *ud, vp_wbuf *out, uint64_t i), void *ud)
{
    if (!f || !f->chunks)
        return vp_chunked_write(out, n, elem, ud);
    uint64_t i = 0;
    for (size_t k = 0; k < f->nchunks; k++) {
        vp_wbuf_u8(out, f->chunks[k]);
        for (unsigned j = 0; j < f->chunks[k] && i < n; j++, i++)
            if (elem && !elem(ud, out, i))
                return 0;
    }
    for (; i < n; i++)
        if (elem && !elem(ud, out, i))
            return 0;
    return 1;
}

int vp_totaled_write_framed(vp_wbuf *out, uint64_t n, const vp_wframing *f,
                            int (*elem)(void *ud, vp_wbuf *out, uint64_t i), void *ud)
{
    vp_wbuf_u32(out, f && f->has_total ? f->total : (uint32_t)n);
    return vp_chunked_write_framed(out, n, f, elem, ud);
}

/* The error for a file that cannot be created. */
static vp_errcode create_failed(const char *path, vp_error *err)
{
    int e = errno;
    vp_errcode code = e == ENOENT ? VP_ENOENT : e == EISDIR ? VP_EISDIR : VP_EIO;
    return vp_fail(err, code, UINT64_MAX, "cannot create %s: %s", path, strerror(e));
}

vp_errcode vp_wfile_open(vp_wfile *f, const char *path, vp_error *err)
{
    memset(f, 0, sizeof *f);
    FILE *fp = fopen(path, "wb");
    if (!fp)
        return create_failed(path, err);
    fclose(fp);
    if (!(f->path = strdup(path)))
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    return VP_OK;
}

void vp_wfile_free(vp_wfile *f)
{
    free(f->path);
    vp_wbuf_free(&f->buf);
    vp_wbuf_free(&f->out);
    memset(f, 0, sizeof *f);
}

void vp_wfile_truncate(vp_wfile *f, uint64_t n)
{
    f->has_cut = 1;
    f->cut = n;
}

vp_wbuf *vp_wfile_copy(vp_wfile *f)
{
    f->out.len = 0;
    vp_wbuf_bytes(&f->out, f->buf.data, f->buf.len);
    return &f->out;
}

const uint8_t *vp_wfile_done(vp_wfile *f, size_t count_at, uint32_t count, const char *what,
                             size_t *len, vp_error *err)
{
    if (f->buf.oom || f->out.oom) {
        vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory building %s", what);
        return NULL;
    }
    uint8_t *p = f->out.data + count_at;
    p[0] = (uint8_t)count;
    p[1] = (uint8_t)(count >> 8);
    p[2] = (uint8_t)(count >> 16);
    p[3] = (uint8_t)(count >> 24);
    *len = f->has_cut && f->cut < f->out.len ? (size_t)f->cut : f->out.len;
    return f->out.data;
}

vp_errcode vp_wfile_close(vp_wfile *f, const uint8_t *p, size_t len, uint64_t *bytes,
                          vp_error *err)
{
    vp_errcode rc = VP_ENOMEM;
    if (p) {
        FILE *fp = fopen(f->path, "wb");
        if (!fp) {
            rc = create_failed(f->path, err);
        } else {
            size_t put = len ? fwrite(p, 1, len, fp) : 0;
            int e = errno;
            if (fclose(fp) != 0 && put == len) {
                e = errno;
                put = len + 1;
            }
            rc = put == len ? VP_OK
                            : vp_fail(err, VP_EIO, UINT64_MAX, "cannot write %s: %s", f->path,
                                      strerror(e));
        }
    }
    if (rc == VP_OK && bytes)
        *bytes = len;
    vp_wfile_free(f);
    return rc;
}

vp_errcode vp_wstream_open(vp_wstream *s, const char *path, vp_error *err)
{
    memset(s, 0, sizeof *s);
    if (!(s->path = strdup(path)))
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    /* w+b: written as it goes, read back by vp_wstream_contents. */
    s->f = fopen(path, "w+b");
    if (!s->f) {
        vp_errcode code = create_failed(path, err);
        free(s->path);
        s->path = NULL;
        return code;
    }
    return VP_OK;
}

vp_errcode vp_wstream_write(vp_wstream *s, const void *p, size_t n, vp_error *err)
{
    if (s->failed)
        return vp_fail(err, VP_EIO, UINT64_MAX, "cannot write %s: an earlier write failed",
                       s->path);
    if (n && fwrite(p, 1, n, s->f) != n) {
        s->failed = 1;
        return vp_fail(err, VP_EIO, UINT64_MAX, "cannot write %s: %s", s->path, strerror(errno));
    }
    s->flushed += n;
    return VP_OK;
}

vp_errcode vp_wstream_flush(vp_wstream *s, vp_wbuf *b, vp_error *err)
{
    if (b->oom)
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "%s: out of memory", s->path);
    vp_errcode rc = vp_wstream_write(s, b->data, b->len, err);
    if (rc == VP_OK)
        b->len = 0;
    return rc;
}

void vp_wstream_truncate(vp_wstream *s, uint64_t n)
{
    s->has_cut = 1;
    s->cut = n;
}

const uint8_t *vp_wstream_contents(vp_wstream *s, const void *tail, size_t ntail, vp_wbuf *out,
                                   size_t *len, vp_error *err)
{
    out->len = 0;
    out->oom = 0;
    if (s->flushed > SIZE_MAX - ntail) {
        vp_fail(err, VP_ENOMEM, UINT64_MAX, "%s: too large to read back", s->path);
        return NULL;
    }
    vp_wbuf_zero(out, (size_t)s->flushed);
    vp_wbuf_bytes(out, tail, ntail);
    if (!out->data) { /* an empty file: still a buffer to point at */
        vp_wbuf_u8(out, 0);
        out->len = 0;
    }
    if (out->oom) {
        vp_fail(err, VP_ENOMEM, UINT64_MAX, "%s: out of memory", s->path);
        return NULL;
    }
    /* Reading after writing needs a flush or a seek in between, writing
     * after reading a seek: leave the stream at its end again. */
    int ok = fflush(s->f) == 0 && fseek(s->f, 0, SEEK_SET) == 0 &&
             (s->flushed == 0 || fread(out->data, 1, (size_t)s->flushed, s->f) == s->flushed);
    int e = errno;
    if (fseek(s->f, 0, SEEK_END) != 0 || !ok) {
        vp_fail(err, VP_EIO, UINT64_MAX, "cannot read back %s: %s", s->path,
                strerror(ok ? errno : e));
        return NULL;
    }
    *len = s->has_cut && s->cut < out->len ? (size_t)s->cut : out->len;
    return out->data;
}

vp_errcode vp_wstream_close(vp_wstream *s, vp_errcode rc, uint64_t *bytes, vp_error *err)
{
    uint64_t size = s->flushed;
    if (s->has_cut && s->cut < size) {
        if (fflush(s->f) == 0 && ftruncate(fileno(s->f), (off_t)s->cut) == 0)
            size = s->cut;
        else if (rc == VP_OK)
            rc = vp_fail(err, VP_EIO, UINT64_MAX, "cannot cut %s to %llu bytes: %s", s->path,
                         (unsigned long long)s->cut, strerror(errno));
    }
    if (fclose(s->f) != 0 && rc == VP_OK)
        rc = vp_fail(err, VP_EIO, UINT64_MAX, "cannot write %s: %s", s->path, strerror(errno));
    if (bytes)
        *bytes = size;
    free(s->path);
    memset(s, 0, sizeof *s);
    return rc;
}
