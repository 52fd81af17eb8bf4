/* The .devt reader on bytes built here from specs/format-notes.md (no
 * writer involved): every header field, chunked arrays of 0, 254, 255 and
 * 300 events, errors with their exact offsets, what is tolerated with a
 * warning, and truncation: a lenient open keeps every complete event, a
 * strict one refuses. Built with ASan/UBSan by `make ctest`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "bytes.h"
#include "formats/devt.h"

static const vp_open_opts strict = {.strict = 1};

/* Event i of a test array: times that say where they came from. */
static void event(tb *b, unsigned i, void *ud)
{
    unsigned base = ud ? *(unsigned *)ud : 0;
    tb_u32(b, base + i + 1);
    tb_u32(b, base + i + 1000);
    tb_u8(b, i % 11);
}

/* time, unknown, graph_duration, prefix, a zero bitfield sized for it. */
static void header(tb *b, unsigned prefix)
{
    tb_u32(b, 123456);
    tb_u32(b, 0xDEADBEEFu);
    tb_u32(b, 10000);
    tb_u16(b, prefix);
    tb_zero(b, ((prefix >> 6) + 1) << 3);
}

/* A group: total (as given) and a chunked array of n events. */
static void group(tb *b, uint32_t total, unsigned n, unsigned base)
{
    tb_u32(b, total);
    tb_chunked(b, n, event, &base);
}

/* open_buf and open_both (bytes.h). */
TB_TRACE_OPENERS(devt)

static void test_header(void)
{
    tb b = {0};
    tb_u32(&b, 7);
    tb_u32(&b, 0xFFFFFFFFu);
    tb_u32(&b, 5000);
    tb_u16(&b, 70); /* (70 >> 6) + 1 = 2 words: 16 bytes */
    for (int i = 0; i < 16; i++)
        tb_u8(&b, i == 0 ? 0x05 : i == 15 ? 0x80 : 0);
    tb_u32(&b, 0);
    vp_error err;
    vp_devt *d = open_buf(&b, NULL, &err);
    if (d) {
        CHECK_EQ(d->time, 7);
        CHECK_EQ(d->unknown, 0xFFFFFFFFu);
        CHECK_EQ(d->graph_duration, 5000);
        CHECK_EQ(d->prefix, 70);
        CHECK_EQ(d->bitfield_off, 14);
        CHECK_EQ(d->bitfield_len, 16);
        const uint8_t *bits = vp_devt_bitfield(d);
        CHECK_EQ(bits[0], 0x05);
        CHECK_EQ(bits[15], 0x80);
        CHECK_EQ(d->group_count, 0);
        CHECK_EQ(d->header_group_count, 0);
        CHECK_EQ(d->event_count, 0);
        CHECK_EQ(d->trailing_bytes, 0);
        CHECK(!d->truncated);
        CHECK_EQ(d->warnings.count, 0);
        vp_devt_event ev;
        CHECK(!vp_devt_event_get(d, 0, 0, &ev, &err));
        vp_devt_free(d);
    }
    tb_free(&b);
}

static void test_arrays(void)
{
    static const unsigned sizes[] = {0, 1, 254, 255, 256, 300, 510};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        unsigned n = sizes[k];
        tb b = {0};
        header(&b, 0);
        tb_u32(&b, 2);
        group(&b, n, n, 0);
        group(&b, 1, 1, 5000);
        /* 22 header, 4 group_count, per group 4 + one count byte per full
         * block and the last + 9 per event */
        CHECK_EQ(b.len, 22 + 4 + (4 + n / 255 + 1 + 9 * n) + (4 + 1 + 9));
        vp_error err;
        vp_devt *d = open_buf(&b, &strict, &err);
        if (!d) {
            tb_free(&b);
            continue;
        }
        CHECK_EQ(d->group_count, 2);
        CHECK_EQ(d->event_count, n + 1);
        CHECK_EQ(d->warnings.count, 0);
        const vp_devt_group *g = &d->groups[0];
        CHECK_EQ(vp_devt_group_offset(g), 26);
        CHECK_EQ(g->array_off, 30);
        CHECK_EQ(g->count, n);
        CHECK_EQ(g->total, n);
        /* The next group starts right after the array. */
        CHECK_EQ(vp_devt_group_offset(&d->groups[1]), 30 + n / 255 + 1 + 9 * n);
        vp_devt_event ev;
        int all = 1;
        for (unsigned i = 0; i < n; i++)
            if (!vp_devt_event_get(d, 0, i, &ev, &err) || ev.time1 != i + 1 ||
                ev.time2 != i + 1000 || ev.type != i % 11)
                all = 0;
        CHECK(all);
        CHECK(!vp_devt_event_get(d, 0, n, &ev, &err));
        CHECK_STR_CONTAINS(err.msg, "no event");
        CHECK(vp_devt_event_get(d, 1, 0, &ev, &err));
        CHECK_EQ(ev.time1, 5001);
        vp_devt_free(d);
        tb_free(&b);
    }
}

static void test_names(void)
{
    CHECK(strcmp(vp_devt_type_name(0), "Frame") == 0);
    CHECK(strcmp(vp_devt_type_name(10), "Weapon_FireWeaponProjectile") == 0);
    CHECK(vp_devt_type_name(11) == NULL);
    CHECK(!vp_devt_type_uncertain(4));
    CHECK(vp_devt_type_uncertain(5) && vp_devt_type_uncertain(6) && vp_devt_type_uncertain(7));
    CHECK(!vp_devt_type_uncertain(8));
    CHECK(strcmp(vp_devt_group_name(0), "frames") == 0);
    CHECK(strcmp(vp_devt_group_name(3), "weapons") == 0);
    CHECK(vp_devt_group_name(4) == NULL);
}

static void test_tolerated(void)
{
    /* A total that disagrees, six groups, bytes after the last group. */
    tb b = {0};
    header(&b, 0);
    tb_u32(&b, 6);
    for (unsigned g = 0; g < 6; g++)
        group(&b, g == 1 ? 7 : 1, 1, g * 10);
    tb_u8(&b, 1);
    tb_u8(&b, 2);
    vp_error err;
    vp_devt *d = open_buf(&b, &strict, &err);
    if (d) {
        CHECK_EQ(d->group_count, 6);
        CHECK_EQ(d->trailing_bytes, 2);
        CHECK(!d->truncated);
        CHECK_EQ(d->warnings.count, 3);
        CHECK_STR_CONTAINS(d->warnings.items[0],
                           "at byte 22: group_count is 6; files have been seen with at most 4 groups");
        CHECK_STR_CONTAINS(d->warnings.items[1],
                           "at byte 40: group 2 total says 7 events, the array holds 1");
        CHECK_STR_CONTAINS(d->warnings.items[2],
                           "at byte 110: 2 bytes after the last group were ignored");
        vp_devt_free(d);
    }
    tb_free(&b);
}

static void test_cuts(void)
{
    /* group 1: 4 events at 26; group 2: 3 events, total at 67, count at 71 */
    tb b = {0};
    header(&b, 0);
    tb_u32(&b, 2);
    group(&b, 4, 4, 0);
    group(&b, 3, 3, 100);
    CHECK_EQ(b.len, 99);

    /* Inside the header: nothing to keep, either way. */
    open_both(&b, 3, VP_ETRUNC, 0,
              "at byte 0: expected the u32 time (4 bytes), only 3 left before the end of the file", 1,
              NULL);
    open_both(&b, 9, VP_ETRUNC, 8,
              "at byte 8: expected the u32 graph_duration (4 bytes), only 1 left before the end of "
              "the file",
              1, NULL);
    open_both(&b, 13, VP_ETRUNC, 12, "expected the u16 prefix (2 bytes), only 1 left", 1, NULL);
    open_both(&b, 20, VP_ETRUNC, 14,
              "at byte 14: visibility bitfield (prefix): a bitfield of 0 entries needs 8 bytes, only "
              "6 left",
              1, NULL);
    open_both(&b, 24, VP_ETRUNC, 22, "expected the u32 group_count (4 bytes), only 2 left", 1,
              NULL);

    /* Every group announced but none there: strict refuses the count. */
    vp_devt *d = open_both(&b, 26, VP_ELIMIT, 22,
                           "at byte 22: group_count 2 needs at least 10 bytes (5 per group), only 0 "
                           "left",
                           0, "the file is truncated");
    if (d) {
        CHECK_EQ(d->group_count, 0);
        CHECK_EQ(d->header_group_count, 2);
        CHECK_STR_CONTAINS(d->warnings.items[0],
                           "at byte 26: expected the u32 group 1 total (4 bytes), only 0 left before "
                           "the end of the file; the file is truncated: kept 0 complete events in 0 "
                           "groups");
        vp_devt_free(d);
    }

    /* Inside group 2's total: group 1 kept whole. */
    d = open_both(&b, 69, VP_ETRUNC, 67,
                  "at byte 67: expected the u32 group 2 total (4 bytes), only 2 left", 0, NULL);
    if (d) {
        CHECK_EQ(d->group_count, 1);
        CHECK_EQ(d->event_count, 4);
        CHECK_EQ(d->groups[0].count, 4);
        CHECK_STR_CONTAINS(d->warnings.items[0], "; the file is truncated: kept 4 complete events in 1 group");
        vp_devt_free(d);
    }

    /* Inside group 2's events: the whole ones of the cut block are kept. */
    d = open_both(&b, 97, VP_ETRUNC, 71,
                  "at byte 71: block count 3 of group 2 events needs at least 27 bytes, only 25 left",
                  0, NULL);
    if (d) {
        CHECK_EQ(d->group_count, 2);
        CHECK_EQ(d->event_count, 6);
        CHECK_EQ(d->groups[1].count, 2);
        CHECK_EQ(d->groups[1].total, 3);
        CHECK_EQ(d->groups[1].array_off, 71);
        vp_devt_event ev;
        vp_error err;
        CHECK(vp_devt_event_get(d, 1, 1, &ev, &err));
        CHECK_EQ(ev.time1, 102);
        CHECK(!vp_devt_event_get(d, 1, 2, &ev, &err));
        /* no "total says" warning for the group the cut explains */
        CHECK_EQ(d->warnings.count, 1);
        vp_devt_free(d);
    }

    /* The whole file: both agree, nothing to warn about. */
    vp_error err;
    d = open_buf(&b, &strict, &err);
    CHECK(d && !d->truncated && d->warnings.count == 0);
    vp_devt_free(d);
    tb_free(&b);

    /* A full block of 255 and no count byte after it. */
    tb f = {0};
    header(&f, 0);
    tb_u32(&f, 1);
    tb_u32(&f, 255);
    tb_u8(&f, 255);
    for (unsigned i = 0; i < 255; i++)
        event(&f, i, NULL);
    d = open_both(&f, f.len, VP_ETRUNC, f.len,
                  "expected the count byte of a block of group 1 events (element 256), found the "
                  "end of the file",
                  0, NULL);
    if (d) {
        CHECK_EQ(d->event_count, 255);
        vp_devt_free(d);
    }
    tb_free(&f);
}

static void test_file(void)
{
    char path[] = "/tmp/vpscript-test-devt-XXXXXX";
    tb b = {0};
    header(&b, 0);
    tb_u32(&b, 1);
    group(&b, 2, 2, 0);
    if (!check_tmpfile(path, b.p, b.len)) {
        tb_free(&b);
        return;
    }
    vp_devt *d = NULL;
    vp_error err;
    CHECK_EQ(vp_devt_open(path, NULL, &d, &err), VP_OK);
    if (d) {
        CHECK_EQ(d->event_count, 2);
        CHECK_EQ(d->src.size, b.len);
        vp_devt_free(d);
    }
    unlink(path);
    CHECK_EQ(vp_devt_open(path, NULL, &d, &err), VP_ENOENT);
    CHECK(d == NULL);
    tb_free(&b);
}

/* Event i of the stats test: times that run backwards within each type,
 * types 0, 1 and 2. */
static void scrambled(tb *b, unsigned i, void *ud)
{
    (void)ud;
    tb_u32(b, 100000 - i * 7);
    tb_u32(b, i);
    tb_u8(b, i % 3);
}

/* The events grouped by (group, type) with sorted times (devt_stats.c),
 * the busiest few, intervals; a file truncated while open. */
static void test_stats_and_truncation(void)
{
    tb b = {0};
    header(&b, 0);
    tb_u32(&b, 6);
    tb_u32(&b, 3000);          /* group 1: types 0, 1, 2, 1,000 each */
    tb_chunked(&b, 3000, scrambled, NULL);
    tb_u32(&b, 0);             /* group 2: empty */
    tb_u8(&b, 0);
    group(&b, 2, 2, 500);      /* group 3: events 0 and 1 */
    for (int g = 3; g < 6; g++)
        group(&b, 1, 1, 0);    /* groups 4..6: one Frame each */
    vp_error err;
    vp_devt *d = open_buf(&b, NULL, &err);
    CHECK(d != NULL);
    if (!d)
        return;
    vp_devt_scan s;
    CHECK_EQ(vp_devt_scan_events(d, &s, &err), VP_OK);
    CHECK_EQ(s.events, 3000 + 2 + 3);
    CHECK_EQ(s.nbuckets, 3 + 2 + 3);
    CHECK_EQ(s.buckets[0].group, 0);
    CHECK_EQ(s.buckets[0].type, 0);
    CHECK_EQ(s.buckets[0].count, 1000);
    CHECK_EQ(s.buckets[3].group, 2);
    int sorted = 1;
    for (size_t k = 0; k < s.nbuckets; k++)
        for (uint64_t i = 1; i < s.buckets[k].count; i++)
            if (s.times[s.buckets[k].first + i - 1] > s.times[s.buckets[k].first + i])
                sorted = 0;
    CHECK(sorted);
    CHECK_EQ(s.nframes, 1000 + 1 + 3);
    /* Type 0 of group 1: times 100000 - 21k, so intervals of 21. */
    vp_series *iv = vp_devt_scan_intervals(&s, 0);
    CHECK(iv && iv->n == 999 && iv->v[0] == 21 && iv->v[998] == 21);
    vp_series_unref(iv);
    iv = vp_devt_scan_intervals(&s, SIZE_MAX);
    CHECK(iv && iv->n == 1003);
    vp_series_unref(iv);
    CHECK_EQ(s.first_time, 1); /* groups 4..6: event 1 of base 0 */
    CHECK_EQ(s.last_time, 100000);
    /* The 4 busiest: group 1's three types, then the lowest of the ties. */
    uint32_t top[4];
    CHECK_EQ(vp_devt_scan_top(&s, 4, top), 4);
    CHECK_EQ(top[0], 0);
    CHECK_EQ(top[1], 1);
    CHECK_EQ(top[2], 2);
    CHECK_EQ(top[3], 3);
    vp_devt_scan_free(&s);
    vp_devt_free(d);

    /* 300,000 events in a file, truncated while open. */
    tb_free(&b);
    header(&b, 0);
    tb_u32(&b, 1);
    group(&b, 300000, 300000, 0);
    char path[] = "/tmp/vpscript-test-devt-big-XXXXXX";
    check_tmpfile(path, b.p, b.len);
    CHECK_EQ(vp_devt_open(path, NULL, &d, &err), VP_OK);
    if (d) {
        CHECK_EQ(truncate(path, 8192), 0);
        vp_devt_event ev;
        CHECK(!vp_devt_event_get(d, 0, 299999, &ev, &err));
        CHECK_EQ(err.code, VP_ECHANGED);
        CHECK_STR_CONTAINS(err.msg, "now 8192");
        CHECK_EQ(vp_devt_scan_events(d, &s, &err), VP_ECHANGED);
        vp_devt_scan_free(&s);
        vp_devt_free(d);
    }
    unlink(path);
    tb_free(&b);
}

int main(void)
{
    test_stats_and_truncation();
    test_header();
    test_arrays();
    test_names();
    test_tolerated();
    test_cuts();
    test_file();
    return check_done("test_devt");
}
