/* Byte building for the C reader tests: a growable buffer and little-endian
 * puts written here from the specs, so a test's input depends on neither
 * the readers nor the writers under test. */
#ifndef VP_TEST_BYTES_H
#define VP_TEST_BYTES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

#endif
