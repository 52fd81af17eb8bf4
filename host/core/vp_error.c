#include "core/vp_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *vp_errcode_name(vp_errcode code)
{
    switch (code) {
    case VP_OK: return "OK";
    case VP_ENOENT: return "ENOENT";
    case VP_EISDIR: return "EISDIR";
    case VP_EIO: return "EIO";
    case VP_EEMPTY: return "EEMPTY";
    case VP_EFORMAT: return "EFORMAT";
    case VP_ETRUNC: return "ETRUNC";
    case VP_EVERSION: return "EVERSION";
    case VP_ENOMEM: return "ENOMEM";
    case VP_ELIMIT: return "ELIMIT";
    case VP_ECHANGED: return "ECHANGED";
    case VP_EPIPE: return "EPIPE";
    }
    return "EUNKNOWN";
}

vp_errcode vp_fail(vp_error *err, vp_errcode code, uint64_t offset, const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    err->offset = offset;
    int n = 0;
    if (offset != UINT64_MAX)
        n = snprintf(err->msg, sizeof err->msg, "at byte %llu: ", (unsigned long long)offset);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
    va_end(ap);
    return code;
}

/* Warnings are few by construction (parsers cap repeats), but a hostile file
 * must not grow this without bound either. */
#define VP_MAX_WARNINGS 200

void vp_warn(vp_warnings *w, const char *fmt, ...)
{
    if (w->count >= VP_MAX_WARNINGS)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (w->count + 1 == VP_MAX_WARNINGS)
        snprintf(buf, sizeof buf, "more warnings were suppressed");
    if (w->count == w->cap) {
        size_t ncap = w->cap ? w->cap * 2 : 8;
        char **n = realloc(w->items, ncap * sizeof *n);
        if (!n)
            return;
        w->items = n;
        w->cap = ncap;
    }
    char *s = strdup(buf);
    if (s)
        w->items[w->count++] = s;
}

void vp_warnings_free(vp_warnings *w)
{
    for (size_t i = 0; i < w->count; i++)
        free(w->items[i]);
    free(w->items);
    w->items = NULL;
    w->count = w->cap = 0;
}
