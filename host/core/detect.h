/* Which format a file holds: from its content where the content says, else
 * from its extension. */
#ifndef VP_DETECT_H
#define VP_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "core/vp_error.h"

/* Format ids, as Lua sees them in cap.format. */
#define VP_FMT_VPROF "vprof"
#define VP_FMT_DEVT "devt"
#define VP_FMT_DLAG "dlag"
#define VP_FMT_DM "dm"
#define VP_FMT_DW "dw"
#define VP_FMT_LAIGE_PROFILE "laige-profile"
#define VP_FMT_LAIGE_BUDGET "laige-budget"

/* Decide from the first bytes of a file (`head`, n bytes of a file of
 * `size` bytes) and its name. Returns a format id, or NULL when neither
 * the content nor the extension says. */
const char *vp_detect(const uint8_t *head, size_t n, uint64_t size, const char *path);

/* Read the head of `path` and detect. Fails with ENOENT, EISDIR, EIO,
 * EEMPTY, or EFORMAT when the format cannot be told. */
vp_errcode vp_detect_file(const char *path, const char **format, vp_error *err);

/* The format id for a file name's extension, or NULL. */
const char *vp_format_for_ext(const char *path);

#endif
