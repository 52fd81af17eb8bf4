/* The frame of the debug-trace fuzz harnesses (tests/fuzz/fuzz_<fmt>.c;
 * beside them). In fuzz_dm.c,
 *
 *     FUZZ_TRACE_HARNESS(dm, walk, strict_refuses, strict_agrees)
 *
 * defines LLVMFuzzerTestOneInput: any bytes are opened leniently as a .dm
 * (a file the reader refuses ends the run); walk(d, data, size) reads back
 * everything the model indexed, aborting on whatever the open pass should
 * have ruled out; then a strict open of the same bytes must fail exactly
 * when strict_refuses(d) (the files a lenient open keeps cut) and, when it
 * succeeds, give a model of which strict_agrees(s, d). */
#ifndef VP_FUZZ_TRACE_H
#define VP_FUZZ_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/open_opts.h"
#include "core/vp_error.h"

#define FUZZ_TRACE_HARNESS(fmt, walk, strict_refuses, strict_agrees)                              \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);                                 \
    int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)                                  \
    {                                                                                             \
        static const vp_open_opts strict = {.strict = 1};                                         \
        vp_##fmt *d, *s;                                                                          \
        vp_error err;                                                                             \
        if (vp_##fmt##_open_mem(data, size, NULL, &d, &err) != VP_OK)                             \
            return 0;                                                                             \
        walk(d, data, size);                                                                      \
        vp_errcode rc = vp_##fmt##_open_mem(data, size, &strict, &s, &err);                       \
        if ((rc == VP_OK) == (strict_refuses(d) != 0))                                            \
            abort();                                                                              \
        if (s && !strict_agrees(s, d))                                                            \
            abort();                                                                              \
        vp_##fmt##_free(s);                                                                       \
        vp_##fmt##_free(d);                                                                       \
        return 0;                                                                                 \
    }

#endif
