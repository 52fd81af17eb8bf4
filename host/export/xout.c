/* Buffered, exact text output for the exporters (xout.h). */
#include "xout.h"

#include "core/text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define XOUT_CAP ((size_t)1 << 16)

int vp_xout_init(vp_xout *o, FILE *f)
{
    memset(o, 0, sizeof *o);
    o->f = f;
    o->buf = malloc(XOUT_CAP);
    if (!o->buf)
        return 0;
    o->cap = XOUT_CAP;
    return 1;
}

void vp_xout_flush(vp_xout *o)
{
    if (o->len && !o->failed) {
        errno = 0;
        if (fwrite(o->buf, 1, o->len, o->f) != o->len) {
            o->failed = 1;
            o->err_no = errno;
        }
    }
    o->len = 0;
}

void vp_xout_put_slow(vp_xout *o, const char *s, size_t n)
{
    vp_xout_flush(o);
    if (n <= o->cap) {
        memcpy(o->buf, s, n);
        o->len = n;
        return;
    }
    errno = 0;
    if (!o->failed && fwrite(s, 1, n, o->f) != n) {
        o->failed = 1;
        o->err_no = errno;
    }
}

vp_errcode vp_xout_finish(vp_xout *o, const char *what, vp_error *err)
{
    vp_xout_flush(o);
    free(o->buf);
    o->buf = NULL;
    o->cap = 0;
    errno = 0;
    if (!o->failed && fflush(o->f) != 0) {
        o->failed = 1;
        o->err_no = errno;
    }
    if (o->failed && o->err_no == EPIPE)
        return vp_fail(err, VP_EPIPE, UINT64_MAX, "%s: %s", what, strerror(EPIPE));
    if (o->failed || ferror(o->f))
        return vp_fail(err, VP_EIO, UINT64_MAX, "%s: %s", what,
                       o->err_no ? strerror(o->err_no) : "write error");
    return VP_OK;
}

void vp_xout_str(vp_xout *o, const char *s)
{
    vp_xout_put(o, s, strlen(s));
}

void vp_xout_u64(vp_xout *o, uint64_t v)
{
    char tmp[24];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    vp_xout_put(o, tmp + i, sizeof tmp - i);
}

void vp_xout_i64(vp_xout *o, int64_t v)
{
    if (v < 0) {
        vp_xout_put(o, "-", 1);
        vp_xout_u64(o, (uint64_t)0 - (uint64_t)v);
    } else {
        vp_xout_u64(o, (uint64_t)v);
    }
}

void vp_xout_ms(vp_xout *o, uint64_t us)
{
    vp_xout_u64(o, us / 1000);
    char frac[4] = {'.', (char)('0' + us / 100 % 10), (char)('0' + us / 10 % 10),
                    (char)('0' + us % 10)};
    vp_xout_put(o, frac, 4);
}

/* ---- memory strings ----------------------------------------------------------- */

void vp_xstr_put(vp_xstr *s, const char *p, size_t n)
{
    if (s->oom)
        return;
    if (s->cap - s->len < n + 1) {
        size_t ncap = s->cap ? s->cap * 2 : 256;
        while (ncap - s->len < n + 1)
            ncap *= 2;
        char *q = realloc(s->p, ncap);
        if (!q) {
            s->oom = 1;
            return;
        }
        s->p = q;
        s->cap = ncap;
    }
    memcpy(s->p + s->len, p, n);
    s->len += n;
    s->p[s->len] = '\0';
}

void vp_xstr_str(vp_xstr *s, const char *p)
{
    vp_xstr_put(s, p, strlen(p));
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if none. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    unsigned c = p[0];
    size_t k;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        k = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        k = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        k = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < k)
        return 0;
    unsigned cp = c & (0x7Fu >> k);
    for (size_t i = 1; i < k; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return k;
}

void vp_xstr_json(vp_xstr *s, const char *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)p;
    vp_xstr_put(s, "\"", 1);
    size_t i = 0;
    while (i < n) {
        unsigned c = u[i];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            vp_xstr_put(s, e, 2);
            i++;
        } else if (c < 0x20 || c == 0x7F) {
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            vp_xstr_put(s, e, 6);
            i++;
        } else {
            size_t k = utf8_len(u + i, n - i);
            if (k == 0) {
                vp_xstr_put(s, "\xEF\xBF\xBD", 3);
                i++;
            } else {
                vp_xstr_put(s, p + i, k);
                i += k;
            }
        }
    }
    vp_xstr_put(s, "\"", 1);
}

void vp_xstr_csv(vp_xstr *s, const char *p, size_t n)
{
    if (vp_text_csv_plain(p, n)) {
        vp_xstr_put(s, p, n);
        return;
    }
    vp_buf b = {0};
    vp_text_csv(&b, p, n);
    if (b.oom)
        s->oom = 1;
    else
        vp_xstr_put(s, (const char *)b.data, b.len);
    vp_buf_free(&b);
}

void vp_xstr_free(vp_xstr *s)
{
    free(s->p);
    memset(s, 0, sizeof *s);
}
