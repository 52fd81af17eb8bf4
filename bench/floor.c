/* floor: the least work any analysis of a .vprof file must do, as a
 * yardstick for `make bench`.
 *
 *   floor FILE [ESCAPE_WIDTH]      (escape width 4, the default, or 8)
 *
 * Maps the file, checks the header, walks the token stream (skipping
 * AddNode and AddBudgetGroup records, counting nodes so it knows how many
 * timing records follow), decodes every timing record and sums calls and
 * time. It keeps no tree, no index and no per-frame output: whatever a real
 * reader does beyond this is its overhead. Pages behind the cursor are
 * released so its memory stays flat, as the real reader's must. Written
 * from the spec like the other tools, sharing no code with the reader. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define RELEASE_STEP ((size_t)8 << 20)

static const uint8_t *base, *end;

static void floor_fail(const uint8_t *p, const char *what)
{
    fprintf(stderr, "floor: at byte %lld: %s\n", (long long)(p - base), what);
    exit(2);
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

static const uint8_t *need(const uint8_t *p, size_t n, const char *what)
{
    if ((size_t)(end - p) < n)
        floor_fail(p, what);
    return p;
}

static const uint8_t *skip_cstr(const uint8_t *p)
{
    const uint8_t *z = memchr(p, 0, (size_t)(end - p));
    if (!z)
        floor_fail(p, "expected a NUL-terminated name");
    return z + 1;
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
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < 8) {
        fprintf(stderr, "floor: cannot read %s (or shorter than a header)\n", argv[1]);
        return 2;
    }
    size_t size = (size_t)st.st_size;
    void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
        perror("floor: mmap");
        return 2;
    }
    close(fd);
    madvise(m, size, MADV_SEQUENTIAL);
    base = m;
    end = base + size;
    const uint8_t *p = base;
    if (rd32(p) != 1)
        floor_fail(p, "expected version 1");
    p += 8;

    uint64_t frames = 0, nodes = 1, calls = 0, units = 0;
    size_t released = 0;
    while (p < end) {
        if (*p != 0)
            floor_fail(p, "expected Token_StartFrame");
        p = need(p, 5, "expected a tick") + 5;
        for (;;) {
            uint8_t tok = *need(p, 1, "expected a token");
            p++;
            if (tok == 3)
                break;
            if (tok == 1) {
                p = skip_cstr(need(p, 4, "expected a parent id") + 4);
                p = need(p, 8, "expected a group and a node id") + 8;
                nodes++;
            } else if (tok == 2) {
                p = skip_cstr(p);
                p = need(p, 4, "expected group flags") + 4;
            } else {
                floor_fail(p - 1, "expected AddNode, AddBudgetGroup or Timings");
            }
        }
        for (uint64_t i = 0; i < nodes; i++) {
            /* One timing record is at most 3 + 2 + 8 bytes: check once. */
            if ((size_t)(end - p) < 13) {
                size_t k = *need(p, 1, "expected calls") == 255 ? 3 : 1;
                need(p, k + 2, "expected a time");
                if (rd16(p + k) == 0xFFFF)
                    need(p, k + 2 + width, "expected an escaped time");
            }
            uint32_t c = *p++;
            if (c == 255) {
                c = rd16(p);
                p += 2;
            }
            uint64_t u = rd16(p);
            p += 2;
            if (u == 0xFFFF) {
                u = width == 8 ? rd64(p) : rd32(p);
                p += width;
            }
            calls += c;
            units += u;
        }
        if (*need(p, 1, "expected Token_EndOfFrame") != 4)
            floor_fail(p, "expected Token_EndOfFrame");
        p++;
        frames++;
        size_t done = (size_t)(p - base);
        if (done - released >= RELEASE_STEP) {
            size_t upto = done & ~(RELEASE_STEP - 1);
            madvise((void *)(base + released), upto - released, MADV_DONTNEED);
            released = upto;
        }
    }
    printf("floor: %llu frames, %llu nodes, %llu calls, %.3f s of node time\n",
           (unsigned long long)frames, (unsigned long long)nodes, (unsigned long long)calls,
           (double)units * 4 / 1e6);
    munmap(m, size);
    return 0;
}
