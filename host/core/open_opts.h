/* The options every reader's open takes:
 *
 *     vp_<fmt>_open(path, opts, &out, err)
 *     vp_<fmt>_open_mem(buf, n, opts, &out, err)
 *
 * `opts` may be NULL, which means every field is 0. A reader ignores the
 * fields that do not apply to its format. */
#ifndef VP_OPEN_OPTS_H
#define VP_OPEN_OPTS_H

#include <stdint.h>

typedef struct vp_open_opts {
    /* VProf: bytes of the time escape field; 0 detects, 4 or 8 forces. */
    int escape_width;
    /* Called now and then during a long open pass (done <= total bytes). */
    void (*progress)(void *ud, uint64_t done, uint64_t total);
    void *progress_ud;
    /* Refuse what a lenient open keeps with a warning: a file that ends
     * inside a record fails with ETRUNC (and the message the warning would
     * have had) instead of keeping every complete record. */
    int strict;
} vp_open_opts;

#endif
