/* The chunked array and bitfield rules of format-notes.md, read from bytes
 * built here from the spec (bytes.h), and reading through a source
 * (core/source.h): arrays and records larger than the window, a string
 * across windows, a file truncated while open. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "bytes.h"
#include "formats/trace_common.h"

static void elem2(tb *b, unsigned i, void *ud)
{
    (void)ud;
    tb_u16(b, i);
}

/* Framing of n 2-byte elements, element i holding i. */
static void check_counts(unsigned n, const uint8_t *expect_counts, size_t ncounts)
{
    tb b = {0};
    tb_chunked(&b, n, elem2, NULL);
    CHECK_EQ(b.len, n * 2 + ncounts);

    /* Count bytes sit at 0, 1 + 255*2, ... */
    for (size_t k = 0; k < ncounts; k++)
        CHECK_EQ(b.p[k * (1 + 255 * 2)], expect_counts[k]);

    vp_cursor c;
    vp_cursor_init(&c, b.p, b.len, 0);
    uint64_t count = 0;
    vp_error err;
    CHECK_EQ(vp_chunked_skip_fixed(&c, 2, "things", &count, &err), VP_OK);
    CHECK_EQ(count, n);
    CHECK_EQ(vp_cursor_left(&c), 0);

    uint16_t *dst = calloc(n + 1, sizeof *dst);
    vp_cursor_init(&c, b.p, b.len, 0);
    CHECK_EQ(vp_chunked_read_fixed(&c, 2, "things", dst, n, &count, &err), VP_OK);
    CHECK_EQ(count, n);
    int in_order = 1;
    for (unsigned i = 0; i < n; i++) {
        uint8_t *p = (uint8_t *)&dst[i];
        if ((uint16_t)(p[0] | p[1] << 8) != (uint16_t)i)
            in_order = 0;
    }
    CHECK(in_order);
    free(dst);
    tb_free(&b);
}

/* Element i of a 12-byte array: its index, then 8 bytes of filler. */
static void elem12(tb *b, unsigned i, void *ud)
{
    (void)ud;
    tb_u32(b, i);
    tb_zero(b, 8);
}

static const char *write_tmp(const tb *b, char *path)
{
    check_tmpfile(path, b->p, b->len);
    return path;
}

/* A record of a u32 length and that many bytes of (i & 0xff). */
typedef struct blob {
    uint32_t len;
    int ok;
} blob;

static vp_errcode blob_parse(vp_cursor *c, void *ctx, vp_error *err)
{
    blob *b = ctx;
    b->ok = 0;
    vp_errcode rc = vp_field_u32(c, &b->len, "the u32 length", err);
    if (rc)
        return rc;
    if (!vp_cursor_has(c, b->len))
        return vp_cursor_short(c, NULL, "the blob", b->len, NULL, err);
    b->ok = 1;
    for (uint32_t i = 0; i < b->len; i++)
        if (c->p[i] != (uint8_t)i)
            b->ok = 0;
    vp_skip(c, b->len);
    return VP_OK;
}

static void test_source_reading(void)
{
    vp_error err;
    /* A 300,000-element array (3.6 MB, over three windows), a blob larger
     * than a window, a string across a window's end. */
    tb b = {0};
    tb_chunked(&b, 300000, elem12, NULL);
    size_t blob_at = b.len;
    uint32_t big = (uint32_t)(VP_SRC_WINDOW * 2 + 77);
    tb_u32(&b, big);
    for (uint32_t i = 0; i < big; i++)
        tb_u8(&b, i & 0xff);
    size_t str_at = b.len;
    size_t str_len = VP_SRC_WINDOW + 5;
    for (size_t i = 0; i < str_len; i++)
        tb_u8(&b, 'a' + i % 26);
    tb_u8(&b, 0);
    char path[] = "/tmp/vp-test-src-XXXXXX";
    write_tmp(&b, path);

    vp_src s;
    CHECK_EQ(vp_src_open(&s, path, &err), VP_OK);
    uint64_t pos = 0, count = 0;
    CHECK_EQ(vp_chunked_skip_src(&s, &pos, s.size, 12, "things", &count, &err), VP_OK);
    CHECK_EQ(count, 300000);
    CHECK_EQ(pos, blob_at);
    /* Element by element, the same walk. */
    vp_chunked it;
    vp_chunked_begin(&it);
    uint64_t p2 = 0, n = 0;
    int r, in_order = 1;
    while ((r = vp_chunked_next_src(&it, &s, &p2, s.size, 12, "things", &err)) > 0) {
        uint8_t e[4];
        CHECK_EQ(vp_src_read(&s, p2, e, 4, &err), VP_OK);
        if ((uint32_t)(e[0] | e[1] << 8 | e[2] << 16 | (uint32_t)e[3] << 24) != n)
            in_order = 0;
        p2 += 12;
        n++;
    }
    CHECK_EQ(r, 0);
    CHECK(in_order);
    CHECK_EQ(n, 300000);
    CHECK_EQ(p2, blob_at);

    blob bl = {0};
    uint64_t next = 0;
    CHECK_EQ(vp_src_parse(&s, blob_at, s.size, blob_parse, &bl, &next, &err), VP_OK);
    CHECK(bl.ok);
    CHECK_EQ(bl.len, big);
    CHECK_EQ(next, str_at);
    size_t len = 0;
    CHECK_EQ(vp_src_cstr(&s, str_at, s.size, "name", &len, &err), VP_OK);
    CHECK_EQ(len, str_len);
    /* The bound is the range's end, not the window's: a blob cut by it. */
    CHECK_EQ(vp_src_parse(&s, blob_at, blob_at + 4 + 1000, blob_parse, &bl, NULL, &err), VP_ETRUNC);
    CHECK_STR_CONTAINS(err.msg, "only 1000 left before the end of the file");
    CHECK_EQ(vp_src_cstr(&s, str_at, str_at + 10, "name", &len, &err), VP_ETRUNC);
    CHECK_STR_CONTAINS(err.msg, "expected the NUL-terminated name, no NUL in the 10 bytes left");
    /* An array cut by the range's end: its whole elements count. */
    pos = 0;
    CHECK_EQ(vp_chunked_skip_src(&s, &pos, 1 + 100 * 12 + 5, 12, "things", &count, &err), VP_ETRUNC);
    CHECK_EQ(count, 100);
    CHECK_EQ(pos, 1 + 100 * 12);
    CHECK_STR_CONTAINS(err.msg, "at byte 0: block count 255 of things needs at least 3060 bytes, only 1205 left");

    /* Truncated while open: the next read past the window is an error
     * naming both sizes, whichever function reads. */
    uint64_t size = s.size;
    vp_src_forget(&s);
    CHECK_EQ(truncate(path, 8192), 0);
    pos = 0;
    CHECK_EQ(vp_chunked_skip_src(&s, &pos, size, 12, "things", &count, &err), VP_ECHANGED);
    CHECK_STR_CONTAINS(err.msg, "the file was truncated while open");
    CHECK_EQ(vp_src_parse(&s, blob_at, size, blob_parse, &bl, NULL, &err), VP_ECHANGED);
    CHECK_EQ(vp_src_cstr(&s, str_at, size, "name", &len, &err), VP_ECHANGED);
    CHECK(vp_src_failed(err.code));
    vp_src_close(&s);
    unlink(path);
    free(b.p);
}

int main(void)
{
    test_source_reading();
    static const uint8_t c0[] = {0}, c254[] = {254}, c255[] = {255, 0}, c300[] = {255, 45},
                         c510[] = {255, 255, 0};
    check_counts(0, c0, 1);
    check_counts(1, (const uint8_t[]){1}, 1);
    check_counts(254, c254, 1);
    check_counts(255, c255, 2);
    check_counts(300, c300, 2);
    check_counts(510, c510, 3);

    vp_error err;
    uint64_t count;
    vp_cursor c;

    /* A count claiming more than the bytes left fails at the count byte. */
    {
        uint8_t buf[] = {0xAA, 3, 1, 2, 3, 4};
        vp_cursor_init(&c, buf, sizeof buf, 100);
        vp_skip(&c, 1);
        CHECK_EQ(vp_chunked_skip_fixed(&c, 2, "samples", &count, &err), VP_ETRUNC);
        CHECK_EQ(err.offset, 101);
        CHECK_STR_CONTAINS(err.msg, "at byte 101: block count 3 of samples needs at least 6 bytes, only 4 left");
    }
    /* After a full block the next count byte is required. */
    {
        uint8_t buf[1 + 255];
        memset(buf, 0, sizeof buf);
        buf[0] = 255;
        vp_cursor_init(&c, buf, sizeof buf, 0);
        CHECK_EQ(vp_chunked_skip_fixed(&c, 1, "bytes", &count, &err), VP_ETRUNC);
        CHECK_EQ(err.offset, 256);
        CHECK_STR_CONTAINS(err.msg, "expected the count byte of a block of bytes (element 256)");
    }
    /* The empty input has no count byte at all. */
    {
        vp_cursor_init(&c, "", 0, 7);
        CHECK_EQ(vp_chunked_skip_fixed(&c, 1, "bytes", &count, &err), VP_ETRUNC);
        CHECK_EQ(err.offset, 7);
    }
    /* read_fixed refuses more than the caller's capacity. */
    {
        uint8_t buf[] = {3, 1, 2, 3};
        uint8_t dst[2];
        vp_cursor_init(&c, buf, sizeof buf, 0);
        CHECK_EQ(vp_chunked_read_fixed(&c, 1, "bytes", dst, 2, &count, &err), VP_EFORMAT);
    }
    /* Element-by-element iteration with variable elements. */
    {
        uint8_t buf[] = {2, 1, 'a', 2, 'b', 'c', 0xEE};
        vp_cursor_init(&c, buf, sizeof buf, 0);
        vp_chunked it;
        vp_chunked_begin(&it);
        int n = 0;
        while (vp_chunked_next(&it, &c, 1, "strings", &err) > 0) {
            uint8_t len;
            vp_rd_u8(&c, &len);
            vp_skip(&c, len);
            n++;
        }
        CHECK_EQ(n, 2);
        CHECK_EQ(vp_cursor_off(&c), 6);
    }

    /* Bitfield sizes and bit order. */
    CHECK_EQ(vp_bitfield_size(0), 8);
    CHECK_EQ(vp_bitfield_size(63), 8);
    CHECK_EQ(vp_bitfield_size(64), 16);
    CHECK_EQ(vp_bitfield_size(65535), 8192);
    {
        uint8_t buf[16] = {0x01, 0, 0, 0, 0, 0, 0, 0x80, 0x02};
        const uint8_t *bits;
        size_t len;
        vp_cursor_init(&c, buf, sizeof buf, 0);
        CHECK_EQ(vp_bitfield_read(&c, 70, "graph", &bits, &len, &err), VP_OK);
        CHECK_EQ(len, 16);
        CHECK(vp_bitfield_get(bits, len, 0));
        CHECK(!vp_bitfield_get(bits, len, 1));
        CHECK(vp_bitfield_get(bits, len, 63));
        CHECK(vp_bitfield_get(bits, len, 65));
        CHECK(!vp_bitfield_get(bits, len, 1000));
        vp_cursor_init(&c, buf, 15, 40);
        CHECK_EQ(vp_bitfield_read(&c, 70, "graph", &bits, &len, &err), VP_ETRUNC);
        CHECK_STR_CONTAINS(err.msg, "at byte 40: graph: a bitfield of 70 entries needs 16 bytes, only 15 left");
    }
    return check_done("test_trace_common");
}
