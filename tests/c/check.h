/* A tiny test harness for the C tests: each CHECK counts, failures print
 * file:line and the expression, and check_done() prints the closing line
 * "N passed, N failed" and returns the exit code. */
#ifndef VP_CHECK_H
#define VP_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (cond) {                                                            \
            check_passed++;                                                    \
        } else {                                                               \
            check_failed++;                                                    \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                      \
    } while (0)

#define CHECK_EQ(a, b)                                                         \
    do {                                                                       \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);        \
        if (check_a_ == check_b_) {                                            \
            check_passed++;                                                    \
        } else {                                                               \
            check_failed++;                                                    \
            fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, expected %lld\n", __FILE__, \
                    __LINE__, #a, check_a_, check_b_);                         \
        }                                                                      \
    } while (0)

#define CHECK_STR_CONTAINS(hay, needle)                                        \
    do {                                                                       \
        const char *check_h_ = (hay);                                          \
        if (check_h_ && strstr(check_h_, (needle))) {                          \
            check_passed++;                                                    \
        } else {                                                               \
            check_failed++;                                                    \
            fprintf(stderr, "%s:%d: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, \
                    check_h_ ? check_h_ : "(null)", (needle));                 \
        }                                                                      \
    } while (0)

/* A new temporary file named in path (a mkstemp template: its XXXXXX are
 * replaced) holding the n bytes at p (none: an empty file for a writer to
 * fill). Counts as a check; 0 when the file could not be made. */
static inline int check_tmpfile(char *path, const void *p, size_t n)
{
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return 0;
    if (n)
        CHECK_EQ(write(fd, p, n), (long long)n);
    close(fd);
    return 1;
}

static inline int check_done(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif
