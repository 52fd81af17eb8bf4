/* The bytes of text for people (terminals, logs) and of CSV fields: the
 * rules every text table, message and CSV writer follows, here once. A
 * name, a path or a file name is data: written under these rules it never
 * adds a line, moves the cursor, sets a terminal title or starts a
 * spreadsheet formula. Lua reaches them as vp.text.core (bindings/l_text.c);
 * host/export's CSV writes through vp_text_csv too. */
#ifndef VP_TEXT_H
#define VP_TEXT_H

#include <stddef.h>

#include "core/buf.h"

/* Whether s[0..n) is written by vp_text_visible as it is (printable ASCII
 * and valid UTF-8 that is not a C1 control): the fast path. */
int vp_text_is_visible(const char *s, size_t n);

/* s[0..n) with visible escapes: tab, LF and CR as \t \n \r; the other C0
 * controls and DEL as \xNN (ESC is \x1b); C1 controls (U+0080..U+009F,
 * which some terminals obey as ESC sequences) as \u0080..\u009f; each
 * byte that is not part of a valid UTF-8 sequence (core/jsonw's
 * vp_utf8_seq) as \xNN. Everything else, a backslash too, as it is. */
void vp_text_visible(vp_buf *b, const char *s, size_t n);

/* Whether a CSV field needs quoting or neutralising (vp_text_csv changes it). */
int vp_text_csv_plain(const char *s, size_t n);

/* s[0..n) as one CSV field: RFC 4180 (quoted when it holds a comma, a
 * double quote, CR or LF; quotes doubled), and, as OWASP recommends
 * against formula injection, a field that starts with '=', '+', '-', '@',
 * a tab or CR is quoted with a single quote put first ("'=1+2"), so a
 * spreadsheet shows it as text. Numbers are never strings here: the
 * writers write them as numbers, so -1.5 stays a number. */
void vp_text_csv(vp_buf *b, const char *s, size_t n);

#endif
