#include "core/text.h"

#include <stdio.h>
#include <string.h>

#include "core/jsonw.h"

/* The length of what starts at u[0] if it is written as it is, else 0. */
static size_t plain_at(const unsigned char *u, size_t n)
{
    if (u[0] >= 0x20 && u[0] < 0x7F)
        return 1;
    if (u[0] < 0x80)
        return 0;
    size_t len = vp_utf8_seq(u, n);
    if (len == 2 && u[0] == 0xC2 && u[1] < 0xA0)
        return 0; /* U+0080..U+009F */
    return len;
}

int vp_text_is_visible(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        size_t k = plain_at(u + i, n - i);
        if (!k)
            return 0;
        i += k;
    }
    return 1;
}

void vp_text_visible(vp_buf *b, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t run = 0; /* s[run..i) is still to be copied as it is */
    for (size_t i = 0; i < n;) {
        size_t k = plain_at(u + i, n - i);
        if (k) {
            i += k;
            continue;
        }
        vp_buf_put(b, s + run, i - run);
        char e[8];
        int len;
        if (u[i] == '\t' || u[i] == '\n' || u[i] == '\r') {
            e[0] = '\\';
            e[1] = u[i] == '\t' ? 't' : u[i] == '\n' ? 'n' : 'r';
            len = 2;
        } else if (u[i] == 0xC2 && vp_utf8_seq(u + i, n - i) == 2) {
            len = snprintf(e, sizeof e, "\\u%04x", u[i + 1]);
            i++;
        } else {
            len = snprintf(e, sizeof e, "\\x%02x", u[i]);
        }
        vp_buf_put(b, e, (size_t)len);
        run = ++i;
    }
    vp_buf_put(b, s + run, n - run);
}

/* A field that a spreadsheet would take for a formula (OWASP's list). */
static int formula(const char *s, size_t n)
{
    return n > 0 && strchr("=+-@\t\r", s[0]) != NULL && s[0] != 0;
}

int vp_text_csv_plain(const char *s, size_t n)
{
    if (formula(s, n))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n')
            return 0;
    return 1;
}

void vp_text_csv(vp_buf *b, const char *s, size_t n)
{
    if (vp_text_csv_plain(s, n)) {
        vp_buf_put(b, s, n);
        return;
    }
    vp_buf_put(b, formula(s, n) ? "\"'" : "\"", formula(s, n) ? 2 : 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') {
            vp_buf_put(b, s + run, i + 1 - run); /* the quote, then its double */
            run = i;
        }
    }
    vp_buf_put(b, s + run, n - run);
    vp_buf_put(b, "\"", 1);
}
