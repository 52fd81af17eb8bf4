/* The options every reader's open takes:
 *
 *     vp_<fmt>_open(path, opts, &out, err)
 *     vp_<fmt>_open_mem(buf, n, opts, &out, err)
 *
 * One type for all formats, so a caller (the bindings, a test, a fuzzer)
 * fills it the same way whatever it opens. `opts` may be NULL: every field
 * at its default (0). A reader ignores the fields that mean nothing to it. */
#ifndef VP_OPEN_OPTS_H
#define VP_OPEN_OPTS_H

#include <stdint.h>

typedef struct vp_open_opts {
    /* VProf: bytes of the escaped time field. 0: try 4, then 8 when the
     * stream stops making sense; 4 or 8: force. */
    int escape_width;
    /* Called now and then while a long open runs, with done <= total (bytes
     * of the file). It reports; it cannot stop the open. NULL: nothing. */
    void (*progress)(void *ud, uint64_t done, uint64_t total);
    void *progress_ud;
    /* Refuse what a lenient open keeps with a warning: a file that ends
     * inside a record fails with ETRUNC (and the message the warning would
     * have had) instead of keeping every complete record. */
    int strict;
    /* VProf: the whole-capture statistics to compute in the open pass
     * (VP_VPROF_STATS_* bits, formats/vprof.h); the others are computed by
     * one more pass when first asked for. 0: none. */
    unsigned stats;
    /* VProf, with node totals in stats: only the nodes named one of these
     * n_node_names names get their totals in the open pass (a gate that
     * reads a few nodes need not total them all); the others' come from
     * one more pass when first asked for. NULL: every node. */
    const char *const *node_names;
    uint32_t n_node_names;
} vp_open_opts;

#endif
