/* core/text: visible escapes and CSV fields on the bytes that matter (each
 * control byte, C1 controls, invalid UTF-8, OWASP's formula characters),
 * and on every byte string of up to two bytes: the visible text never
 * holds a control byte or invalid UTF-8, and a CSV field read back by an
 * RFC 4180 reader is one field holding the bytes (after the quote OWASP
 * puts before a formula). */
#include "check.h"
#include "core/jsonw.h"
#include "core/text.h"

static int visible_is(const char *s, size_t n, const char *want)
{
    vp_buf b = {0};
    vp_text_visible(&b, s, n);
    int ok = !b.oom && b.len == strlen(want) && (!b.len || memcmp(b.data, want, b.len) == 0);
    if (!ok)
        fprintf(stderr, "visible: got \"%.*s\", want \"%s\"\n", (int)b.len, (const char *)b.data, want);
    vp_buf_free(&b);
    return ok;
}

static int csv_is(const char *s, const char *want)
{
    vp_buf b = {0};
    vp_text_csv(&b, s, strlen(s));
    int ok = !b.oom && b.len == strlen(want) && (!b.len || memcmp(b.data, want, b.len) == 0);
    if (!ok)
        fprintf(stderr, "csv: got \"%.*s\", want \"%s\"\n", (int)b.len, (const char *)b.data, want);
    vp_buf_free(&b);
    return ok;
}

/* Every byte of the text is printable ASCII or part of valid UTF-8 that is no C1 control. */
static int clean(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        if (p[i] < 0x80) {
            if (p[i] < 0x20 || p[i] == 0x7F)
                return 0;
            i++;
            continue;
        }
        size_t k = vp_utf8_seq(p + i, n - i);
        if (!k || (k == 2 && p[i] == 0xC2 && p[i + 1] < 0xA0))
            return 0;
        i += k;
    }
    return 1;
}

/* An RFC 4180 reader of one record: the fields' count, and the first field in out. */
static int csv_read(const unsigned char *p, size_t n, unsigned char *out, size_t *outn)
{
    size_t i = 0, o = 0;
    int fields = 1;
    if (n && p[0] == '"') {
        for (i = 1; i < n; i++) {
            if (p[i] == '"') {
                if (i + 1 < n && p[i + 1] == '"') {
                    out[o++] = '"';
                    i++;
                } else {
                    i++;
                    break;
                }
            } else {
                out[o++] = p[i];
            }
        }
    } else {
        while (i < n && p[i] != ',' && p[i] != '\n' && p[i] != '\r')
            out[o++] = p[i++];
    }
    for (; i < n; i++)
        if (p[i] == ',' || p[i] == '\n' || p[i] == '\r')
            fields++;
    *outn = o;
    return fields;
}

int main(void)
{
    CHECK(visible_is("plain", 5, "plain"));
    CHECK(visible_is("a\tb\nc\rd", 7, "a\\tb\\nc\\rd"));
    CHECK(visible_is("\x1b]0;title\x07", 10, "\\x1b]0;title\\x07"));
    CHECK(visible_is("\0\x7f", 2, "\\x00\\x7f"));
    CHECK(visible_is("\xc2\x9b" "31m", 5, "\\u009b31m"));
    CHECK(visible_is("caf\xc3\xa9 \xe2\x80\xa6", 9, "caf\xc3\xa9 \xe2\x80\xa6"));
    CHECK(visible_is("\xff\xc3", 2, "\\xff\\xc3"));
    CHECK(visible_is("\xed\xa0\x80", 3, "\\xed\\xa0\\x80")); /* a surrogate */
    CHECK(visible_is("back\\slash", 10, "back\\slash"));
    CHECK(vp_text_is_visible("caf\xc3\xa9", 5));
    CHECK(!vp_text_is_visible("a\nb", 3));
    CHECK(!vp_text_is_visible("\xc2\x85", 2));

    CHECK(csv_is("name", "name"));
    CHECK(csv_is("a,b", "\"a,b\""));
    CHECK(csv_is("say \"hi\"", "\"say \"\"hi\"\"\""));
    CHECK(csv_is("line\nbreak", "\"line\nbreak\""));
    CHECK(csv_is("=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\""));
    CHECK(csv_is("+1", "\"'+1\""));
    CHECK(csv_is("-2+3", "\"'-2+3\""));
    CHECK(csv_is("@SUM(A1)", "\"'@SUM(A1)\""));
    CHECK(csv_is("\tx", "\"'\tx\""));
    CHECK(csv_is("\rx", "\"'\rx\""));
    CHECK(csv_is("a=b", "a=b"));
    CHECK(csv_is("", ""));

    /* Every string of up to two bytes. */
    int bad_visible = 0, bad_csv = 0;
    unsigned char s[2], out[16];
    for (int len = 0; len <= 2; len++) {
        for (int v = 0; v < (len == 0 ? 1 : len == 1 ? 256 : 65536); v++) {
            s[0] = (unsigned char)(v & 0xFF);
            s[1] = (unsigned char)(v >> 8);
            vp_buf b = {0};
            vp_text_visible(&b, (const char *)s, (size_t)len);
            if (b.oom || (b.len && !clean(b.data, b.len)) ||
                (vp_text_is_visible((const char *)s, (size_t)len) &&
                 (b.len != (size_t)len || (len && memcmp(b.data, s, (size_t)len) != 0))))
                bad_visible++;
            vp_buf_free(&b);
            vp_text_csv(&b, (const char *)s, (size_t)len);
            size_t on;
            int fields = csv_read(b.data, b.len, out, &on);
            int neutral = len > 0 && strchr("=+-@\t\r", s[0]) && s[0];
            const unsigned char *got = neutral ? out + 1 : out;
            size_t gotn = neutral ? on - 1 : on;
            if (b.oom || fields != 1 || (neutral && out[0] != '\'') || gotn != (size_t)len || (len &&
                memcmp(got, s, (size_t)len) != 0))
                bad_csv++;
            vp_buf_free(&b);
        }
    }
    CHECK_EQ(bad_visible, 0);
    CHECK_EQ(bad_csv, 0);
    return check_done("test_text");
}
