#include "core/registry.h"

#include <string.h>
#include <strings.h>

#include "core/source.h"

static int starts_with(const uint8_t *p, size_t n, const char *s)
{
    size_t k = strlen(s);
    return n >= k && memcmp(p, s, k) == 0;
}

static int contains(const uint8_t *p, size_t n, const char *s)
{
    size_t k = strlen(s);
    for (size_t i = 0; i + k <= n; i++)
        if (memcmp(p + i, s, k) == 0)
            return 1;
    return 0;
}

/* Where the text of a laige report starts: after a UTF-8 byte order mark
 * and blank space. */
static size_t text_start(const uint8_t *head, size_t n)
{
    size_t i = starts_with(head, n, "\xEF\xBB\xBF") ? 3 : 0;
    while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n'))
        i++;
    return i;
}

/* VProf has no magic: version 1 followed by Token_StartFrame (or nothing,
 * for a capture with no frames). */
static int sniff_vprof(const uint8_t *head, size_t n, uint64_t size)
{
    return n >= 8 && head[0] == 1 && head[1] == 0 && head[2] == 0 && head[3] == 0 &&
           (size == 8 || (n > 8 && head[8] == 0));
}

/* The text report's first line, or a JSON object with the keys only the
 * JSON report has together. */
static int sniff_laige_profile(const uint8_t *head, size_t n, uint64_t size)
{
    (void)size;
    size_t i = text_start(head, n);
    if (starts_with(head + i, n - i, "laige-profile"))
        return 1;
    return i < n && head[i] == '{' && contains(head, n, "\"version\"") &&
           contains(head, n, "\"counters\"");
}

static int sniff_laige_budget(const uint8_t *head, size_t n, uint64_t size)
{
    (void)size;
    size_t i = text_start(head, n);
    return starts_with(head + i, n - i, "laige-budget-report");
}

/* The debug traces carry no magic at all, so their extension is the only
 * reliable witness: their first bytes can look like anything, even like
 * another format's. */
static const vp_format formats[] = {
    {VP_FMT_VPROF, {".vprof"}, "Source engine VProf frame-by-frame recording", sniff_vprof, 0},
    {VP_FMT_DEVT, {".devt"}, "client event profiler export", NULL, 0},
    {VP_FMT_DLAG, {".dlag"}, "client lag profiler export", NULL, 0},
    {VP_FMT_DM, {".dm"}, "client movement trace", NULL, 0},
    {VP_FMT_DW, {".dw"}, "client weapon trace: client and server hits per bullet", NULL, 0},
    {VP_FMT_LAIGE_PROFILE, {".json", ".txt"}, "laige engine --prof-out run report (JSON or text)",
     sniff_laige_profile, 1},
    {VP_FMT_LAIGE_BUDGET, {".txt"}, "laige engine --budget-report output", sniff_laige_budget, 1},
};
#define NFORMATS (sizeof formats / sizeof formats[0])

const vp_format *vp_formats(size_t *count)
{
    *count = NFORMATS;
    return formats;
}

const vp_format *vp_format_find(const char *id)
{
    for (size_t i = 0; i < NFORMATS; i++)
        if (strcmp(formats[i].id, id) == 0)
            return &formats[i];
    return NULL;
}

const vp_format *vp_format_for_ext(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return NULL;
    for (size_t i = 0; i < NFORMATS; i++)
        for (size_t k = 0; !formats[i].ext_generic && k < VP_FORMAT_MAX_EXT && formats[i].ext[k];
             k++)
            if (strcasecmp(dot, formats[i].ext[k]) == 0)
                return &formats[i];
    return NULL;
}

const char *vp_detect(const uint8_t *head, size_t n, uint64_t size, const char *path)
{
    const vp_format *by_ext = vp_format_for_ext(path);
    if (by_ext && !by_ext->sniff)
        return by_ext->id;
    for (size_t i = 0; i < NFORMATS; i++)
        if (formats[i].sniff && formats[i].sniff(head, n, size))
            return formats[i].id;
    return by_ext ? by_ext->id : NULL;
}

vp_errcode vp_detect_file(const char *path, const char **format, vp_error *err)
{
    /* The same open as the readers': a FIFO or device is refused at once. */
    vp_src src;
    vp_errcode rc = vp_src_open(&src, path, err);
    if (rc != VP_OK)
        return rc;
    size_t n = src.size < 4096 ? (size_t)src.size : 4096;
    const uint8_t *head = vp_src_get(&src, 0, n, NULL, err);
    if (!head) {
        vp_src_close(&src);
        return err->code;
    }
    *format = vp_detect(head, n, src.size, path);
    vp_src_close(&src);
    if (!*format)
        return vp_fail(err, VP_EFORMAT, 0,
                       "not a format vpscript reads (expected a VProf capture, a .devt, .dlag, "
                       ".dm or .dw trace, or a laige profile or budget report; pass "
                       "{format = ...} to force one)");
    return VP_OK;
}
