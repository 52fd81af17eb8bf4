/* The bytes of JSON text: a growable buffer and the writing of its atoms
 * (strings, numbers) by vp.json's rules, which stdlib/vp/json.lua states
 * in full. The walk over Lua values is bindings/l_json.c; this file knows
 * nothing of Lua, so the rules for the bytes hold in one place. */
#ifndef VP_JSONW_H
#define VP_JSONW_H

#include <stddef.h>

#include "core/buf.h"

/* The text goes into a vp_buf (core/buf: appends after a failed allocation
 * do nothing and b->oom says the text is incomplete). */
typedef vp_buf vp_jbuf;

/* s[0..n) as a JSON string: quoted; each byte that is not part of a valid
 * UTF-8 sequence (Lua's utf8.len rules: no overlong forms, no surrogates,
 * nothing above U+10FFFF) written as U+FFFD; '"', '\', the control
 * characters 0-31 and 127 escaped (\b \f \n \r \t where JSON has a short
 * form, \u00XX otherwise). */
void vp_jbuf_string(vp_jbuf *b, const char *s, size_t n);

/* s[0..n) with every invalid byte replaced as above, unquoted (json.utf8). */
void vp_jbuf_utf8(vp_jbuf *b, const char *s, size_t n);

/* The length of the valid UTF-8 sequence starting at s[0] (1 to 4), or 0
 * when the byte there does not start one. */
size_t vp_utf8_seq(const unsigned char *s, size_t n);

/* An integer, as %lld. */
void vp_jbuf_int(vp_jbuf *b, long long v);

/* A number: 14 significant digits (%.14g); NaN and infinities as null. */
void vp_jbuf_double(vp_jbuf *b, double v);

#endif
