/* libFuzzer harness: format detection (core/registry) on any bytes under
 * any of a set of file names, checked against the rule the registry
 * documents:
 *
 *   an extension of a format without magic decides; else the first format
 *   whose content test accepts the bytes; else the format the extension
 *   names (generic extensions never decide); else nothing.
 *
 * The first input byte picks the name (and whether the head is cut short,
 * as a short read would); the rest is the file's head. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
    "capture.vprof", "CAPTURE.VPROF", "x.devt",       "x.dlag",  "x.dm",          "x.DW",
    "report.json",   "report.txt",    "budget.TXT",   "noext",   "dir.devt/file", ".dm",
    "a.b.c.dlag",    "x.vprof.bak",   "x.",           "",        "/proc/self/fd/3", "x.json.dm",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    unsigned pick = data[0];
    const char *path = names[pick % (sizeof names / sizeof names[0])];
    const uint8_t *head = data + 1;
    size_t n = size - 1;
    /* A file larger than its head (a head read of a big file). */
    uint64_t file_size = (pick & 0x80) ? (uint64_t)n + 1000000 : n;

    const char *got = vp_detect(head, n, file_size, path);

    size_t count;
    const vp_format *f = vp_formats(&count);
    const vp_format *by_ext = vp_format_for_ext(path);
    if (by_ext && by_ext->ext_generic)
        abort(); /* generic extensions name no format */
    const char *want = NULL;
    if (by_ext && !by_ext->sniff) {
        want = by_ext->id;
    } else {
        for (size_t i = 0; i < count && !want; i++)
            if (f[i].sniff && f[i].sniff(head, n, file_size))
                want = f[i].id;
        if (!want && by_ext)
            want = by_ext->id;
    }
    if ((got == NULL) != (want == NULL) || (got && strcmp(got, want) != 0))
        abort();
    if (got && vp_format_find(got) == NULL)
        abort();
    /* A sniffer must not depend on bytes past the head it was given: the
     * same head with a different tail after it decides the same. */
    if (n > 0) {
        uint8_t *copy = malloc(n);
        memcpy(copy, head, n);
        const char *again = vp_detect(copy, n, file_size, path);
        free(copy);
        if ((again == NULL) != (got == NULL) || (again && strcmp(again, got) != 0))
            abort();
    }
    return 0;
}
