/* floor: the least work any analysis of a .vprof file must do, as a
 * yardstick for `make bench`.
 *
 *   floor FILE [ESCAPE_WIDTH]      (escape width 4, the default, or 8)
 *
 * Reads the file front to back with read() into one reused buffer (the
 * fastest honest I/O: the page cache copied once, no page faults, nothing
 * kept), checks the header, walks the token stream (skipping AddNode and
 * AddBudgetGroup records, counting nodes so it knows how many timing
 * records follow), decodes every timing record and sums calls and time. It
 * keeps no tree, no index and no per-frame output: whatever a real reader
 * does beyond this is its overhead. Written from the spec like the other
 * tools, sharing no code with the reader. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Bytes per read(): the reader's window is the same size. */
#define CHUNK ((size_t)1 << 20)

typedef struct input {
    int fd, eof;
    uint8_t *buf;
    size_t cap, len, pos; /* buf[pos .. len) is unread */
    uint64_t base;        /* file offset of buf[0] */
} input;

static void floor_fail(uint64_t off, const char *what)
{
    fprintf(stderr, "floor: at byte %llu: %s\n", (unsigned long long)off, what);
    exit(2);
}

/* Keep the unread bytes, read until at least `want` are there (or the end). */
static void refill(input *in, size_t want)
{
    memmove(in->buf, in->buf + in->pos, in->len - in->pos);
    in->base += in->pos;
    in->len -= in->pos;
    in->pos = 0;
    if (want + CHUNK > in->cap) {
        in->cap = want + CHUNK;
        in->buf = realloc(in->buf, in->cap);
        if (!in->buf) {
            fprintf(stderr, "floor: out of memory\n");
            exit(1);
        }
    }
    while (!in->eof && (in->len < want || in->len + CHUNK <= in->cap)) {
        ssize_t r = read(in->fd, in->buf + in->len, in->cap - in->len);
        if (r < 0) {
            perror("floor: read");
            exit(2);
        }
        if (r == 0)
            in->eof = 1;
        in->len += (size_t)r;
    }
}

static uint32_t rd16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

typedef struct totals {
    uint64_t frames, nodes, calls, units;
} totals;

/* One frame at p (end: the end of the bytes read): its size, with its
 * sums added to *t; 0 when the bytes end first (read more and retry);
 * exits on bytes that break the format. */
static size_t frame(const uint8_t *p, const uint8_t *end, uint64_t off, unsigned width, totals *t)
{
    const uint8_t *start = p;
    uint64_t nodes = t->nodes, calls = 0, units = 0;
#define NEED(n) \
    if ((size_t)(end - p) < (size_t)(n)) \
        return 0
    NEED(5);
    if (*p != 0)
        floor_fail(off, "expected Token_StartFrame");
    p += 5;
    for (;;) {
        NEED(1);
        uint8_t tok = *p++;
        if (tok == 3)
            break;
        if (tok == 1) {
            NEED(4);
            p += 4;
            const uint8_t *z = memchr(p, 0, (size_t)(end - p));
            if (!z)
                return 0;
            p = z + 1;
            NEED(8);
            p += 8;
            nodes++;
        } else if (tok == 2) {
            const uint8_t *z = memchr(p, 0, (size_t)(end - p));
            if (!z)
                return 0;
            p = z + 1;
            NEED(4);
            p += 4;
        } else {
            floor_fail(off + (uint64_t)(p - 1 - start), "expected AddNode, AddBudgetGroup or Timings");
        }
    }
    for (uint64_t i = 0; i < nodes; i++) {
        /* One timing record is at most 3 + 2 + 8 bytes: check once. */
        if ((size_t)(end - p) < 13) {
            size_t k;
            NEED(1);
            k = *p == 255 ? 3 : 1;
            NEED(k + 2);
            if (rd16(p + k) == 0xFFFF)
                NEED(k + 2 + width);
        }
        /* The escapes are the rare case: said so, gcc lays the common path
         * out straight (without the hint, 2.1 x slower on the wide bench
         * capture, whose calls are escaped for 15 % of the nodes). */
        uint32_t c = *p++;
        if (__builtin_expect(c == 255, 0)) {
            c = rd16(p);
            p += 2;
        }
        uint64_t u = rd16(p);
        p += 2;
        if (__builtin_expect(u == 0xFFFF, 0)) {
            u = width == 8 ? rd64(p) : rd32(p);
            p += width;
        }
        calls += c;
        units += u;
    }
    NEED(1);
    if (*p != 4)
        floor_fail(off + (uint64_t)(p - start), "expected Token_EndOfFrame");
    p++;
#undef NEED
    t->frames++;
    t->nodes = nodes;
    t->calls += calls;
    t->units += units;
    return (size_t)(p - start);
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: floor FILE [ESCAPE_WIDTH]\n");
        return 2;
    }
    const unsigned width = argc == 3 ? (unsigned)atoi(argv[2]) : 4;
    if (width != 4 && width != 8) {
        fprintf(stderr, "floor: escape width must be 4 or 8\n");
        return 2;
    }
    input in = {0};
    in.fd = open(argv[1], O_RDONLY);
    if (in.fd < 0) {
        perror(argv[1]);
        return 2;
    }
    refill(&in, 8);
    if (in.len < 8 || rd32(in.buf) != 1)
        floor_fail(0, "expected the header of version 1");
    in.pos = 8;
    totals t = {0, 1, 0, 0};
    for (;;) {
        if (in.pos == in.len) {
            refill(&in, 1);
            if (in.len == 0)
                break;
        }
        size_t used = frame(in.buf + in.pos, in.buf + in.len, in.base + in.pos, width, &t);
        if (used) {
            in.pos += used;
            continue;
        }
        /* The frame runs past the bytes read: read more, or it is cut. */
        size_t have = in.len - in.pos;
        if (in.eof)
            floor_fail(in.base + in.len, "the file ends inside a frame");
        refill(&in, have * 2 + 64);
    }
    printf("floor: %llu frames, %llu nodes, %llu calls, %.3f s of node time\n",
           (unsigned long long)t.frames, (unsigned long long)t.nodes, (unsigned long long)t.calls,
           (double)t.units * 4 / 1e6);
    close(in.fd);
    free(in.buf);
    return 0;
}
