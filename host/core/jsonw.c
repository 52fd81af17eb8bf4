#include "core/jsonw.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

size_t vp_utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    size_t len;
    uint32_t cp, min;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2, cp = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, cp = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return 0; /* a continuation byte, an overlong 2-byte lead, or above U+10FFFF */
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

static const char REPLACEMENT[] = "\xEF\xBF\xBD"; /* U+FFFD */

/* Append s[0..n), each invalid byte replaced; `escape` also escapes what a
 * JSON string may not hold as it is. */
static void text(vp_jbuf *b, const char *s, size_t n, int escape)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t run = 0; /* s[run..i) is still to be copied as it is */
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        if (c >= 0x80) {
            size_t len = vp_utf8_seq(u + i, n - i);
            if (len) {
                i += len;
                continue;
            }
            vp_buf_put(b, s + run, i - run);
            vp_buf_put(b, REPLACEMENT, 3);
            run = ++i;
            continue;
        }
        if (!escape || (c >= 0x20 && c != 0x7F && c != '"' && c != '\\')) {
            i++;
            continue;
        }
        vp_buf_put(b, s + run, i - run);
        char e[8];
        const char *short_form = NULL;
        switch (c) {
        case '"': short_form = "\\\""; break;
        case '\\': short_form = "\\\\"; break;
        case '\b': short_form = "\\b"; break;
        case '\f': short_form = "\\f"; break;
        case '\n': short_form = "\\n"; break;
        case '\r': short_form = "\\r"; break;
        case '\t': short_form = "\\t"; break;
        default: break;
        }
        if (short_form) {
            vp_buf_put(b, short_form, 2);
        } else {
            snprintf(e, sizeof e, "\\u%04x", c);
            vp_buf_put(b, e, 6);
        }
        run = ++i;
    }
    vp_buf_put(b, s + run, n - run);
}

void vp_jbuf_string(vp_jbuf *b, const char *s, size_t n)
{
    vp_buf_put(b, "\"", 1);
    text(b, s, n, 1);
    vp_buf_put(b, "\"", 1);
}

void vp_jbuf_utf8(vp_jbuf *b, const char *s, size_t n)
{
    text(b, s, n, 0);
}

void vp_jbuf_int(vp_jbuf *b, long long v)
{
    char t[32];
    int k = snprintf(t, sizeof t, "%lld", v);
    vp_buf_put(b, t, (size_t)k);
}

void vp_jbuf_double(vp_jbuf *b, double v)
{
    if (!isfinite(v)) {
        vp_buf_put(b, "null", 4);
        return;
    }
    char t[40];
    int k = snprintf(t, sizeof t, "%.14g", v);
    vp_buf_put(b, t, (size_t)k);
}
