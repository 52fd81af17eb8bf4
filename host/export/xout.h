/* Buffered text output for the exporters: numbers written exactly and the
 * same way every time (no locale, no printf of doubles), JSON strings and
 * CSV fields quoted. The exporters never include lua.h: the caller hands
 * them a FILE * (a file, or the program's stdout). */
#ifndef VP_XOUT_H
#define VP_XOUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/vp_error.h"

typedef struct vp_xout {
    FILE *f;
    char *buf;
    size_t len, cap;
    int failed; /* a write failed (errno kept in err_no) */
    int err_no;
} vp_xout;

/* 0 on OOM. */
int vp_xout_init(vp_xout *o, FILE *f);
/* Flush what is buffered; the last write error, if any, as VP_EIO: "<what>:
 * <why>" (what: the output's name, "-o out.json"), or VP_EPIPE when the
 * reader went away. Frees the buffer. */
vp_errcode vp_xout_finish(vp_xout *o, const char *what, vp_error *err);
void vp_xout_flush(vp_xout *o);

/* Append n bytes (the slow path flushes, or writes a long run directly). */
void vp_xout_put_slow(vp_xout *o, const char *s, size_t n);
static inline void vp_xout_put(vp_xout *o, const char *s, size_t n)
{
    if (o->cap - o->len < n) {
        vp_xout_put_slow(o, s, n);
        return;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

void vp_xout_str(vp_xout *o, const char *s);
void vp_xout_u64(vp_xout *o, uint64_t v);
void vp_xout_i64(vp_xout *o, int64_t v);
/* us microseconds as milliseconds with three decimals ("12.345"): exact,
 * since VProf times are whole microseconds. */
void vp_xout_ms(vp_xout *o, uint64_t us);

/* A growing memory string: the fragments an exporter builds once (a
 * node's event text) and then copies per record. oom is set when a growth
 * failed; the string then stops growing. */
typedef struct vp_xstr {
    char *p;
    size_t len, cap;
    int oom;
} vp_xstr;
void vp_xstr_put(vp_xstr *s, const char *p, size_t n);
void vp_xstr_str(vp_xstr *s, const char *p);
/* A JSON string, quoted: control characters escaped, invalid UTF-8 bytes
 * written as U+FFFD (what vp.json does). */
void vp_xstr_json(vp_xstr *s, const char *p, size_t n);
/* A CSV field: core/text's vp_text_csv (RFC 4180 quoting, formulas
 * neutralised). */
void vp_xstr_csv(vp_xstr *s, const char *p, size_t n);
void vp_xstr_free(vp_xstr *s);

#endif
