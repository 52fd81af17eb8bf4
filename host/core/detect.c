#include "core/detect.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
    const char *ext, *format;
} ext_table[] = {
    {".vprof", VP_FMT_VPROF}, {".devt", VP_FMT_DEVT}, {".dlag", VP_FMT_DLAG},
    {".dm", VP_FMT_DM},       {".dw", VP_FMT_DW},
};

const char *vp_format_for_ext(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return NULL;
    for (size_t i = 0; i < sizeof ext_table / sizeof ext_table[0]; i++)
        if (strcasecmp(dot, ext_table[i].ext) == 0)
            return ext_table[i].format;
    return NULL;
}

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

const char *vp_detect(const uint8_t *head, size_t n, uint64_t size, const char *path)
{
    const char *by_ext = vp_format_for_ext(path);
    /* The debug traces carry no magic at all, so for them the extension is
     * the only reliable witness; their first bytes can look like anything. */
    if (by_ext && strcmp(by_ext, VP_FMT_VPROF) != 0)
        return by_ext;

    size_t i = 0;
    if (starts_with(head, n, "\xEF\xBB\xBF"))
        i = 3;
    while (i < n && (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n'))
        i++;
    if (starts_with(head + i, n - i, "laige-profile"))
        return VP_FMT_LAIGE_PROFILE;
    if (starts_with(head + i, n - i, "laige-budget-report"))
        return VP_FMT_LAIGE_BUDGET;
    if (i < n && head[i] == '{' && contains(head, n, "\"version\"") &&
        contains(head, n, "\"counters\""))
        return VP_FMT_LAIGE_PROFILE;

    /* VProf has no magic either: version 1 followed by Token_StartFrame
     * (or nothing, for a capture with no frames). */
    if (n >= 8 && head[0] == 1 && head[1] == 0 && head[2] == 0 && head[3] == 0 &&
        (size == 8 || (n > 8 && head[8] == 0)))
        return VP_FMT_VPROF;
    return by_ext;
}

vp_errcode vp_detect_file(const char *path, const char **format, vp_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return vp_fail(err, e == ENOENT ? VP_ENOENT : VP_EIO, UINT64_MAX, "%s", strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        int isdir = S_ISDIR(st.st_mode);
        close(fd);
        if (isdir)
            return vp_fail(err, VP_EISDIR, UINT64_MAX, "is a directory, expected a capture file");
        return vp_fail(err, VP_EIO, UINT64_MAX, "cannot stat the file");
    }
    uint8_t head[4096];
    ssize_t n = read(fd, head, sizeof head);
    int e = errno;
    close(fd);
    if (n < 0)
        return vp_fail(err, VP_EIO, UINT64_MAX, "%s", strerror(e));
    if (n == 0)
        return vp_fail(err, VP_EEMPTY, UINT64_MAX, "the file is empty");
    *format = vp_detect(head, (size_t)n, (uint64_t)st.st_size, path);
    if (!*format)
        return vp_fail(err, VP_EFORMAT, 0,
                       "not a format vpscript reads (expected a VProf capture, a .devt, .dlag, "
                       ".dm or .dw trace, or a laige profile or budget report; pass "
                       "{format = ...} to force one)");
    return VP_OK;
}
