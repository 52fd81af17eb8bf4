/* The format registry: detection from content and extension (the rules
 * vp.detect and vp.open follow), the extension lookup, the failures of
 * vp_detect_file, and the table's own invariants. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "core/registry.h"

static const char *detect_str(const char *head, size_t n, const char *path)
{
    return vp_detect((const uint8_t *)head, n, n, path);
}

static int same(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) == 0 : a == b;
}

static void check_table(void)
{
    size_t n;
    const vp_format *f = vp_formats(&n);
    CHECK_EQ(n, 7);
    CHECK(same(f[0].id, VP_FMT_VPROF)); /* the order vp.formats() lists */
    CHECK(same(f[n - 1].id, VP_FMT_LAIGE_BUDGET));
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        bad += !f[i].description || !*f[i].description || !f[i].ext[0];
        bad += vp_format_find(f[i].id) != &f[i];
        for (size_t k = 0; k < VP_FORMAT_MAX_EXT && f[i].ext[k]; k++) {
            const char *e = f[i].ext[k];
            bad += e[0] != '.';
            for (const char *c = e; *c; c++)
                bad += *c >= 'A' && *c <= 'Z';
            /* An extension that decides must name one format only. */
            char path[64];
            snprintf(path, sizeof path, "x%s", e);
            if (!f[i].ext_generic)
                bad += vp_format_for_ext(path) != &f[i];
        }
        /* A format without magic is known by its extension alone. */
        bad += !f[i].sniff && f[i].ext_generic;
    }
    CHECK_EQ(bad, 0);
    CHECK(vp_format_find("nope") == NULL);
}

static void check_ext(void)
{
    CHECK(same(vp_format_for_ext("a/b.vprof")->id, VP_FMT_VPROF));
    CHECK(same(vp_format_for_ext("B.DW")->id, VP_FMT_DW));
    CHECK(vp_format_for_ext("report.json") == NULL); /* generic */
    CHECK(vp_format_for_ext("notes.txt") == NULL);
    CHECK(vp_format_for_ext("dir.dm/file") == NULL); /* the dot is the folder's */
    CHECK(vp_format_for_ext("noext") == NULL);
}

static void check_detect(void)
{
    static const char vprof[] = "\1\0\0\0\0\0\0\0\0\7\0\0\0";
    static const char vprof_empty[] = "\1\0\0\0\5\0\0\0";
    /* Content says VProf, whatever the name. */
    CHECK(same(vp_detect((const uint8_t *)vprof, 13, 13, "cap.bin"), VP_FMT_VPROF));
    CHECK(same(vp_detect((const uint8_t *)vprof_empty, 8, 8, "cap"), VP_FMT_VPROF));
    /* Eight bytes of a longer file, with no StartFrame after them: not VProf. */
    CHECK(vp_detect((const uint8_t *)vprof_empty, 8, 100, "cap") == NULL);
    CHECK(vp_detect((const uint8_t *)"\2\0\0\0\0\0\0\0\0", 9, 9, "cap") == NULL);
    /* The traces have no magic: their extension decides, even over bytes
     * that look like VProf or laige. */
    CHECK(same(vp_detect((const uint8_t *)vprof, 13, 13, "x.devt"), VP_FMT_DEVT));
    CHECK(same(detect_str("laige-profile v1\n", 17, "x.DLAG"), VP_FMT_DLAG));
    CHECK(same(detect_str("\0\0\0", 3, "x.dm"), VP_FMT_DM));
    CHECK(same(detect_str("{}", 2, "x.dw"), VP_FMT_DW));
    /* .vprof is only a fallback: laige content wins, anything else is VProf. */
    CHECK(same(detect_str("laige-budget-report\n", 20, "x.vprof"), VP_FMT_LAIGE_BUDGET));
    CHECK(same(detect_str("garbage", 7, "x.vprof"), VP_FMT_VPROF));
    /* laige: text headers after a byte order mark and blanks, or JSON. */
    CHECK(same(detect_str("\xEF\xBB\xBF \r\n\tlaige-profile 1\n", 24, "r.txt"),
               VP_FMT_LAIGE_PROFILE));
    CHECK(same(detect_str("  laige-budget-report\n", 22, "r"), VP_FMT_LAIGE_BUDGET));
    const char *json = "{\n \"version\": 2, \"counters\": {}}";
    CHECK(same(detect_str(json, strlen(json), "r.json"), VP_FMT_LAIGE_PROFILE));
    const char *other = "{\"version\": 2}";
    CHECK(detect_str(other, strlen(other), "r.json") == NULL);
    CHECK(detect_str("hello", 5, "notes.txt") == NULL);
    CHECK(detect_str("hello", 5, "noext") == NULL);
    /* JSON by structure: top-level keys in any order, not words anywhere. */
    const char *sorted = "{\"counters\": {\"a\": [1, {\"version\": 1}]}, \"s\": \"\\\"}\", \"version\": 1}";
    CHECK(same(detect_str(sorted, strlen(sorted), "r.json"), VP_FMT_LAIGE_PROFILE));
    const char *nested = "{\"counters\": {\"version\": 1}, \"x\": \"version\"}";
    CHECK(detect_str(nested, strlen(nested), "r.json") == NULL);
    const char *after = "{\"counters\": 1} {\"version\": 1}";
    CHECK(detect_str(after, strlen(after), "r.json") == NULL);
    const char *escaped = "{\"counters\": 1, \"vers\\u0069on\": 1}";
    CHECK(detect_str(escaped, strlen(escaped), "r.json") == NULL);
    /* A head that stops before the keys decides nothing by itself. */
    CHECK(vp_detect((const uint8_t *)sorted, 20, strlen(sorted), "r.json") == NULL);
}

/* A laige JSON profile written with sorted keys and 60 systems: "version"
 * comes long after the first 4 KiB. */
static char *sorted_profile(size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    n += (size_t)snprintf(buf + n, cap - n, "\xEF\xBB\xBF {\"counters\": {\"frames\": 1, \"ticks\": 1}, "
                                           "\"systems\": [");
    for (int i = 1; i <= 60; i++)
        n += (size_t)snprintf(buf + n, cap - n,
                              "%s{\"id\": %d, \"name\": \"Sys\\\"%d}\", \"window_ms\": {\"n\": 1, "
                              "\"p99\": 0.5, \"tags\": [\"version\", [[]]]}}",
                              i > 1 ? ", " : "", i, i);
    n += (size_t)snprintf(buf + n, cap - n, "], \"version\": 1}\n");
    *len = n;
    return buf;
}

static void write_file(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, n, f);
        fclose(f);
    }
}

static void check_detect_file(void)
{
    char dir[] = "/tmp/vp_test_registry_XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(!"mkdtemp");
        return;
    }
    char path[256];
    const char *fmt = NULL;
    vp_error err;

    snprintf(path, sizeof path, "%s/missing.vprof", dir);
    CHECK_EQ(vp_detect_file(path, &fmt, &err), VP_ENOENT);
    CHECK_EQ(vp_detect_file(dir, &fmt, &err), VP_EISDIR);
    CHECK_STR_CONTAINS(err.msg, "is a directory");

    snprintf(path, sizeof path, "%s/empty.dm", dir);
    write_file(path, "", 0);
    CHECK_EQ(vp_detect_file(path, &fmt, &err), VP_EEMPTY);
    remove(path);

    snprintf(path, sizeof path, "%s/notes.txt", dir);
    write_file(path, "hello\n", 6);
    CHECK_EQ(vp_detect_file(path, &fmt, &err), VP_EFORMAT);
    CHECK_STR_CONTAINS(err.msg, "not a format vpscript reads");
    remove(path);

    size_t plen;
    char *profile = sorted_profile(&plen);
    CHECK(profile && plen > 4096 + 1024);
    if (profile) {
        CHECK(vp_detect((const uint8_t *)profile, 4096, plen, "run.json") == NULL);
        CHECK(same(vp_detect((const uint8_t *)profile, plen, plen, "run.json"),
                   VP_FMT_LAIGE_PROFILE));
        snprintf(path, sizeof path, "%s/sorted.json", dir);
        write_file(path, profile, plen);
        fmt = NULL;
        CHECK_EQ(vp_detect_file(path, &fmt, &err), VP_OK);
        CHECK(same(fmt, VP_FMT_LAIGE_PROFILE));
        /* the same without its last key: read to the end, then no */
        write_file(path, profile, plen - 16);
        CHECK_EQ(vp_detect_file(path, &fmt, &err), VP_EFORMAT);
        remove(path);
        free(profile);
    }

    snprintf(path, sizeof path, "%s/fifo.json", dir);
    if (mkfifo(path, 0600) == 0) {
        CHECK_EQ(vp_detect_file(path, &fmt, &err), VP_EIO);
        CHECK_STR_CONTAINS(err.msg, "FIFO");
        remove(path);
    }

    snprintf(path, sizeof path, "%s/cap", dir);
    write_file(path, "\1\0\0\0\0\0\0\0", 8);
    fmt = NULL;
    CHECK_EQ(vp_detect_file(path, &fmt, &err), VP_OK);
    CHECK(same(fmt, VP_FMT_VPROF));
    remove(path);
    rmdir(dir);
}

int main(void)
{
    check_table();
    check_ext();
    check_detect();
    check_detect_file();
    return check_done("test_registry");
}
