/* Byte building for the C reader tests: a growable buffer and little-endian
 * puts written here from the specs, so a test's input depends on neither
 * the readers nor the writers under test. */
#ifndef VP_TEST_BYTES_H
#define VP_TEST_BYTES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/open_opts.h"
#include "core/vp_error.h"

typedef struct tb {
    uint8_t *p;
    size_t len, cap;
} tb;

static inline void tb_put(tb *b, const void *src, size_t n)
{
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p)
            abort();
        b->p = p;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->len, src, n);
    b->len += n;
}

static inline void tb_u8(tb *b, unsigned v)
{
    uint8_t x = (uint8_t)v;
    tb_put(b, &x, 1);
}

static inline void tb_u16(tb *b, unsigned v)
{
    uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    tb_put(b, x, 2);
}

static inline void tb_u32(tb *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    tb_put(b, x, 4);
}

static inline void tb_f32(tb *b, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    tb_u32(b, u);
}

static inline void tb_zero(tb *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tb_u8(b, 0);
}

static inline void tb_free(tb *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* The count bytes of a chunked array of n elements, as format-notes.md
 * states the rule: blocks of 255 while the count is 255, then the rest
 * (00 for none). elem(b, i) writes element i. */
static inline void tb_chunked(tb *b, unsigned n, void (*elem)(tb *b, unsigned i, void *ud), void *ud)
{
    unsigned i = 0;
    for (;;) {
        unsigned c = n - i >= 255 ? 255 : n - i;
        tb_u8(b, c);
        for (unsigned k = 0; k < c; k++, i++)
            elem(b, i, ud);
        if (c != 255)
            return;
    }
}

/* The results of opening the same bytes strict (rc_s, es) and lenient
 * (rc_l, el; `truncated` and `w` of the model when it opened): a strict open
 * must fail with code at offset, its message holding msg; a lenient one
 * the same when `lenient_fails`, else keep a truncated model whose last
 * warning holds `warning` (NULL: msg). The CHECK macros come from check.h,
 * included before this header. */
static inline void check_cut(vp_errcode rc_s, const vp_error *es, vp_errcode rc_l,
                             const vp_error *el, int truncated, const vp_warnings *w,
                             vp_errcode code, uint64_t offset, const char *msg, int lenient_fails,
                             const char *warning)
{
    CHECK_EQ(rc_s, code);
    CHECK_EQ(es->offset, offset);
    CHECK_STR_CONTAINS(es->msg, msg);
    if (lenient_fails) {
        CHECK_EQ(rc_l, code);
        CHECK_EQ(el->offset, offset);
        CHECK_STR_CONTAINS(el->msg, msg);
        return;
    }
    CHECK_EQ(rc_l, VP_OK);
    if (rc_l != VP_OK)
        return;
    CHECK(truncated);
    CHECK(w->count >= 1);
    if (w->count)
        CHECK_STR_CONTAINS(w->items[w->count - 1], warning ? warning : msg);
}

/* The two openers of a trace reader's test, for the format whose model is
 * vp_<fmt>: TB_TRACE_OPENERS(devt) in test_devt.c defines
 *
 *   open_buf(b, o, err): the bytes of b opened with the options o: the
 *   model, or NULL with err filled (checked: a model exactly on VP_OK);
 *
 *   open_both(b, n, code, offset, msg, lenient_fails, warning): the first n
 *   bytes of b opened strict and lenient, held to check_cut (the strict
 *   open must fail); the lenient model, if any (none when lenient_fails). */
#define TB_TRACE_OPENERS(fmt)                                                                     \
    static vp_##fmt *open_buf(const tb *b, const vp_open_opts *o, vp_error *err)                  \
    {                                                                                             \
        vp_##fmt *d = NULL;                                                                       \
        vp_errcode rc = vp_##fmt##_open_mem(b->p, b->len, o, &d, err);                            \
        CHECK((rc == VP_OK) == (d != NULL));                                                      \
        return d;                                                                                 \
    }                                                                                             \
    static vp_##fmt *open_both(const tb *b, size_t n, vp_errcode code, uint64_t offset,           \
                               const char *msg, int lenient_fails, const char *warning)           \
    {                                                                                             \
        static const vp_open_opts strict_opts = {.strict = 1};                                    \
        vp_error es, el;                                                                          \
        vp_##fmt *s = NULL, *d = NULL;                                                            \
        vp_errcode rs = vp_##fmt##_open_mem(b->p, n, &strict_opts, &s, &es);                      \
        CHECK(s == NULL);                                                                         \
        vp_errcode rl = vp_##fmt##_open_mem(b->p, n, NULL, &d, &el);                              \
        check_cut(rs, &es, rl, &el, d && d->truncated, d ? &d->warnings : NULL, code, offset,     \
                  msg, lenient_fails, warning);                                                   \
        if (lenient_fails)                                                                        \
            CHECK(d == NULL);                                                                     \
        return d;                                                                                 \
    }

#endif
