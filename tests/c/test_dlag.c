/* The .dlag reader on bytes built here from specs/format-notes.md (no
 * writer involved): the header, measurements with chunked sample arrays of
 * 0, 254, 255 and 300 elements, graph states, the traceroute host, tail
 * records, the name table, errors with their exact offsets, and
 * truncation: a lenient open keeps every complete record, a strict one
 * refuses. Built with ASan/UBSan by `make ctest`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "bytes.h"
#include "formats/dlag.h"

static const vp_open_opts strict = {.strict = 1};

/* Sample i: value base + i / 2, time base + i, unknown i % 5. */
static void sample(tb *b, unsigned i, void *ud)
{
    unsigned base = ud ? *(unsigned *)ud : 0;
    tb_f32(b, (float)base + (float)i / 2);
    tb_u32(b, base + i);
    tb_u32(b, i % 5);
}

static void measurement(tb *b, uint32_t total, unsigned n, unsigned base)
{
    tb_u32(b, total);
    tb_chunked(b, n, sample, &base);
}

/* A graph state of `count` measurements with bit 0 and bit count-1 set. */
static void graph_state(tb *b, unsigned count, int print_titles)
{
    tb_u16(b, count);
    size_t len = ((count >> 6) + 1) << 3;
    for (size_t k = 0; k < len; k++)
        tb_u8(b, (k == 0 ? 1u : 0u) | (count && k == (count - 1) / 8 ? 1u << ((count - 1) % 8) : 0u));
    for (int k = 0; k < 4; k++)
        tb_f32(b, (float)k + 0.5f); /* offset */
    for (int k = 0; k < 4; k++)
        tb_f32(b, (float)k * 2); /* scale */
    tb_u8(b, (unsigned)print_titles);
    tb_u8(b, 0xAB);
}

/* A tail record with n samples and the name given. */
static void hop(tb *b, const uint8_t addr[4], unsigned n, const char *name)
{
    tb_put(b, addr, 4);
    unsigned base = 500;
    tb_chunked(b, n, sample, &base);
    tb_put(b, name, strlen(name) + 1);
    tb_u8(b, 7);
    tb_u32(b, 0xCAFEBABEu);
    for (int k = 0; k < 4; k++)
        tb_f32(b, (float)-k);
    tb_u8(b, 9);
}

/* open_buf and open_both (bytes.h). */
TB_TRACE_OPENERS(dlag)

static void test_minimal(void)
{
    tb b = {0};
    tb_u32(&b, 4242);
    tb_u32(&b, 0);
    tb_u8(&b, 0);  /* no graph states */
    tb_u8(&b, 0);  /* traceroute off: "" */
    vp_error err;
    vp_dlag *d = open_buf(&b, &strict, &err);
    if (d) {
        CHECK_EQ(d->time, 4242);
        CHECK_EQ(d->measurement_count, 0);
        CHECK_EQ(d->header_measurement_count, 0);
        CHECK_EQ(d->graph_state_count, 0);
        CHECK(d->have_host);
        CHECK_EQ(d->host_off, 9);
        CHECK_EQ(d->host_len, 0);
        CHECK_EQ(d->hop_count, 0);
        CHECK_EQ(d->trailing_bytes, 0);
        CHECK(!d->truncated);
        CHECK_EQ(d->warnings.count, 0);
        vp_dlag_free(d);
    }
    tb_free(&b);
}

static void test_arrays(void)
{
    static const unsigned sizes[] = {0, 1, 254, 255, 256, 300};
    static const uint8_t addr[4] = {10, 0, 0, 1};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        unsigned n = sizes[k];
        tb b = {0};
        tb_u32(&b, 1);
        tb_u32(&b, 2);
        measurement(&b, n, n, 100);
        measurement(&b, 1, 1, 9);
        tb_u8(&b, 0);
        tb_put(&b, "gss", 4);
        hop(&b, addr, n, "gw");
        vp_error err;
        vp_dlag *d = open_buf(&b, &strict, &err);
        if (!d) {
            tb_free(&b);
            continue;
        }
        CHECK_EQ(d->warnings.count, 0);
        CHECK_EQ(d->measurement_count, 2);
        CHECK_EQ(d->sample_count, n + 1);
        const vp_dlag_measurement *m = &d->measurements[0];
        CHECK_EQ(m->index, 1);
        CHECK_EQ(vp_dlag_measurement_offset(m), 8);
        CHECK_EQ(m->samples.array_off, 12);
        CHECK_EQ(m->samples.count, n);
        CHECK_EQ(vp_dlag_measurement_offset(&d->measurements[1]), 12 + n / 255 + 1 + 12 * n);
        int all = 1;
        vp_dlag_sample sm;
        for (unsigned i = 0; i < n; i++)
            if (!vp_dlag_sample_get(d, &m->samples, i, &sm, &err) ||
                sm.value != 100.0f + (float)i / 2 || sm.time != 100 + i || sm.unknown != i % 5)
                all = 0;
        CHECK(all);
        CHECK(!vp_dlag_sample_get(d, &m->samples, n, &sm, &err));
        vp_series *v = vp_dlag_series(d, &m->samples, 1, &err);
        CHECK(v && v->n == n);
        if (v && n)
            CHECK(v->v[n - 1] == 100 + n - 1);
        vp_series_unref(v);
        CHECK(vp_dlag_sample_get(d, &d->measurements[1].samples, 0, &sm, &err));
        CHECK(sm.value == 9.0f);
        CHECK_EQ(d->host_len, 3);
        CHECK(memcmp(vp_dlag_bytes(d, d->host_off, 3, &err), "gss", 3) == 0);
        CHECK_EQ(d->hop_count, 1);
        vp_dlag_hop h;
        CHECK(vp_dlag_hop_get(d, 0, &h, &err));
        CHECK_EQ(h.samples.count, n);
        if (n) {
            CHECK(vp_dlag_sample_get(d, &h.samples, n - 1, &sm, &err));
            CHECK_EQ(sm.time, 500 + n - 1);
        }
        vp_dlag_free(d);
        tb_free(&b);
    }
}

static void test_names(void)
{
    CHECK(strcmp(vp_dlag_measurement_name(1), "Client Frame") == 0);
    CHECK(strcmp(vp_dlag_measurement_name(8), "Socket RTT") == 0);
    CHECK(strcmp(vp_dlag_measurement_name(44), "Total Objects") == 0);
    CHECK(strcmp(vp_dlag_measurement_name(59), "Total Objects") == 0);
    CHECK(strcmp(vp_dlag_measurement_name(73), "RPM") == 0);
    CHECK(vp_dlag_measurement_name(0) == NULL);
    CHECK(vp_dlag_measurement_name(74) == NULL);
    CHECK_EQ(vp_dlag_measurement_page(1), 0);
    CHECK_EQ(vp_dlag_measurement_page(8), 0);
    CHECK_EQ(vp_dlag_measurement_page(9), 1);
    CHECK_EQ(vp_dlag_measurement_page(73), 9);
}

static void test_records(void)
{
    static const uint8_t addr[4] = {192, 168, 0, 7};
    tb b = {0};
    tb_u32(&b, 0);
    tb_u32(&b, 0);
    tb_u8(&b, 2);
    graph_state(&b, 72, 1); /* 16-byte bitfield: 2 + 16 + 32 + 2 = 52 bytes */
    graph_state(&b, 3, 0);  /* 44 bytes */
    tb_put(&b, "x", 2);
    hop(&b, addr, 2, "router");
    hop(&b, addr, 0, "");
    vp_error err;
    vp_dlag *d = open_buf(&b, &strict, &err);
    if (d) {
        CHECK_EQ(d->graph_states_off, 8);
        CHECK_EQ(d->graph_state_count, 2);
        vp_dlag_graph_state gs;
        CHECK(vp_dlag_graph_state_get(d, 0, &gs, &err));
        CHECK_EQ(gs.offset, 9);
        CHECK_EQ(gs.measurement_count, 72);
        CHECK_EQ(gs.bitfield_off, 11);
        CHECK_EQ(gs.bitfield_len, 16);
        const uint8_t *bits = vp_dlag_bytes(d, gs.bitfield_off, gs.bitfield_len, &err);
        CHECK_EQ(bits[0], 1);
        CHECK_EQ(bits[8], 0x80); /* entry 71 */
        CHECK(gs.offset_v[0] == 0.5f && gs.offset_v[3] == 3.5f);
        CHECK(gs.scale[1] == 2.0f && gs.scale[3] == 6.0f);
        CHECK_EQ(gs.print_titles, 1);
        CHECK_EQ(gs.unknown, 0xAB);
        CHECK(vp_dlag_graph_state_get(d, 1, &gs, &err));
        CHECK_EQ(gs.offset, 9 + 52);
        CHECK_EQ(gs.bitfield_len, 8);
        CHECK(!vp_dlag_graph_state_get(d, 2, &gs, &err));
        CHECK_EQ(d->host_off, 9 + 52 + 44);
        CHECK_EQ(d->hops_off, d->host_off + 2);
        CHECK_EQ(d->hop_count, 2);
        vp_dlag_hop h;
        CHECK(vp_dlag_hop_get(d, 0, &h, &err));
        CHECK_EQ(h.offset, d->hops_off);
        CHECK(memcmp(h.address, addr, 4) == 0);
        CHECK_EQ(h.samples.count, 2);
        CHECK_EQ(h.name_len, 6);
        CHECK(memcmp(vp_dlag_bytes(d, h.name_off, 6, &err), "router", 6) == 0);
        CHECK_EQ(h.unknown_u8_1, 7);
        CHECK_EQ(h.unknown_u32, 0xCAFEBABEu);
        CHECK(h.unknown_floats[3] == -3.0f);
        CHECK_EQ(h.unknown_u8_2, 9);
        CHECK(vp_dlag_hop_get(d, 1, &h, &err));
        CHECK_EQ(h.name_len, 0);
        CHECK(!vp_dlag_hop_get(d, 2, &h, &err));
        vp_dlag_free(d);
    }
    tb_free(&b);
}

static void test_cuts(void)
{
    /* measurement 1: 3 samples, total at 8; measurement 2: 2 samples,
     * total at 49, count byte at 53; graph states 00 at 78; "abc" at 79 */
    tb b = {0};
    tb_u32(&b, 3);
    tb_u32(&b, 2);
    measurement(&b, 3, 3, 0);
    measurement(&b, 2, 2, 0);
    tb_u8(&b, 0);
    tb_put(&b, "abc", 4);
    CHECK_EQ(b.len, 83);

    open_both(&b, 3, VP_ETRUNC, 0,
              "at byte 0: expected the u32 time (4 bytes), only 3 left before the end of the file", 1,
              NULL);
    open_both(&b, 6, VP_ETRUNC, 4,
              "at byte 4: expected the u32 measurement count (4 bytes), only 2 left", 1, NULL);

    vp_dlag *d = open_both(&b, 10, VP_ELIMIT, 4,
                           "at byte 4: measurement count 2 needs at least 10 bytes (5 per "
                           "measurement), only 2 left",
                           0,
                           "at byte 8: expected the u32 total of measurement 1 (4 bytes), only 2 "
                           "left before the end of the file; the file is truncated: kept 0 "
                           "measurements (0 complete samples) and 0 graph states");
    if (d) {
        CHECK_EQ(d->measurement_count, 0);
        CHECK_EQ(d->header_measurement_count, 2);
        CHECK(!d->have_host);
        vp_dlag_free(d);
    }

    d = open_both(&b, 60, VP_ETRUNC, 53,
                  "at byte 53: block count 2 of measurement 2 (Server Frame) samples needs at least "
                  "24 bytes, only 6 left",
                  0, "; the file is truncated: kept 2 measurements (3 complete samples) and 0 graph states");
    if (d) {
        CHECK_EQ(d->measurement_count, 2);
        CHECK_EQ(d->sample_count, 3);
        CHECK_EQ(d->measurements[1].samples.count, 0);
        CHECK_EQ(d->measurements[1].total, 2);
        CHECK_EQ(d->warnings.count, 1); /* no "total says" for the cut one */
        vp_dlag_free(d);
    }

    d = open_both(&b, 66, VP_ETRUNC, 53, "block count 2 of measurement 2", 0,
                  "kept 2 measurements (4 complete samples)");
    if (d) {
        CHECK_EQ(d->measurements[1].samples.count, 1);
        vp_dlag_sample sm;
        vp_error err;
        CHECK(vp_dlag_sample_get(d, &d->measurements[1].samples, 0, &sm, &err));
        CHECK_EQ(sm.time, 0);
        vp_dlag_free(d);
    }

    d = open_both(&b, 78, VP_ETRUNC, 78,
                  "at byte 78: expected the count byte of a block of graph states (element 1), "
                  "found the end of the file",
                  0, NULL);
    if (d) {
        CHECK_EQ(d->sample_count, 5);
        CHECK(!d->have_host);
        vp_dlag_free(d);
    }

    d = open_both(&b, 81, VP_ETRUNC, 79,
                  "at byte 79: expected the NUL-terminated traceroute host, no NUL in the 2 bytes "
                  "left",
                  0, NULL);
    if (d) {
        CHECK(!d->have_host);
        CHECK_EQ(d->hop_count, 0);
        vp_dlag_free(d);
    }

    vp_error err;
    d = open_buf(&b, &strict, &err);
    CHECK(d && !d->truncated && d->have_host && d->warnings.count == 0);
    vp_dlag_free(d);

    /* Graph states: a strict open proves the block fits first; a lenient
     * one keeps the complete states of a cut block. */
    tb g = {0};
    tb_u32(&g, 0);
    tb_u32(&g, 0);
    tb_u8(&g, 3);
    graph_state(&g, 5, 1);
    tb_u8(&g, 0);
    d = open_both(&g, g.len, VP_ETRUNC, 8,
                  "at byte 8: block count 3 of graph states needs at least 132 bytes, only 45 left",
                  0,
                  "at byte 53: expected the u16 measurement_count of graph state 2 (2 bytes), only "
                  "1 left before the end of the file; the file is truncated: kept 0 measurements "
                  "(0 complete samples) and 1 graph state");
    if (d) {
        CHECK_EQ(d->graph_state_count, 1);
        vp_dlag_free(d);
    }
    tb_free(&g);

    /* A torn tail record: the complete ones are kept, its bytes trail. */
    static const uint8_t addr[4] = {1, 1, 1, 1};
    size_t at = b.len;
    hop(&b, addr, 0, "a");
    size_t torn = b.len;
    tb_put(&b, "\x09\x09\x09\x09\x09", 5);
    d = open_both(&b, b.len, VP_ETRUNC, torn + 4,
                  "block count 9 of tail record 2 samples needs at least 108 bytes, only 0 left", 0,
                  "; the last 5 bytes (from byte 112) were ignored");
    if (d) {
        CHECK_EQ(d->hops_off, at);
        CHECK_EQ(d->hop_count, 1);
        CHECK_EQ(d->trailing_bytes, 5);
        CHECK(d->have_host);
        vp_dlag_free(d);
    }
    CHECK_EQ(torn, 112);
    tb_free(&b);
}

int main(void)
{
    test_minimal();
    test_arrays();
    test_names();
    test_records();
    test_cuts();
    return check_done("test_dlag");
}
