/* Error values shared by every parser. The parser layer reports failures as
 * data (code, byte offset, message) and never touches Lua; the bindings turn
 * them into `nil, message, code`. */
#ifndef VP_ERROR_H
#define VP_ERROR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

typedef enum vp_errcode {
    VP_OK = 0,
    VP_ENOENT,   /* no such file */
    VP_EISDIR,   /* a directory where a file was expected */
    VP_EIO,      /* could not read (permissions, I/O) */
    VP_EEMPTY,   /* the file is empty */
    VP_EFORMAT,  /* bytes that break the format's rules */
    VP_ETRUNC,   /* the file ends before a required part */
    VP_EVERSION, /* a version this reader does not know */
    VP_ENOMEM,   /* an allocation failed */
    VP_ELIMIT,   /* a count larger than the file can justify */
    VP_ECHANGED, /* the file changed (shrank) while it was open */
    VP_EPIPE     /* the output's reader went away (a closed pipe) */
} vp_errcode;

typedef struct vp_error {
    vp_errcode code;
    uint64_t offset;  /* byte offset the message refers to */
    char msg[320];    /* "at byte N: what was expected" (no file name) */
} vp_error;

/* Short stable names for codes ("ETRUNC"), as Lua sees them. */
const char *vp_errcode_name(vp_errcode code);

/* Fill err with code, offset and a printf-style message; returns code so a
 * parser can `return vp_fail(...)`. The message is prefixed with
 * "at byte N: " unless offset is UINT64_MAX. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
vp_errcode vp_fail(vp_error *err, vp_errcode code, uint64_t offset, const char *fmt, ...);

/* Growable list of warning strings owned by a model. */
typedef struct vp_warnings {
    char **items;
    size_t count, cap;
} vp_warnings;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void vp_warn(vp_warnings *w, const char *fmt, ...);
void vp_warnings_free(vp_warnings *w);

#endif
