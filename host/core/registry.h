/* The formats vpscript reads, listed once: id, file extensions, a one-line
 * description and the content test. Detection (vp_detect, vp_detect_file),
 * the extension lookup and the Lua side's vp.formats() all read this table;
 * the bindings add only the id -> opener/writer glue. */
#ifndef VP_REGISTRY_H
#define VP_REGISTRY_H

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

#define VP_FORMAT_MAX_EXT 4

/* 1 when `head` (the first n bytes of a file of `size` bytes) is this
 * format's. */
typedef int (*vp_sniff_fn)(const uint8_t *head, size_t n, uint64_t size);

typedef struct vp_format {
    const char *id;
    /* Where such files are found, with the dot, lower case; NULL-terminated. */
    const char *ext[VP_FORMAT_MAX_EXT];
    const char *description;
    /* The content test, or NULL for a format without magic: then the
     * extension is the only witness and it decides, whatever the bytes. */
    vp_sniff_fn sniff;
    /* The extensions are generic (.json, .txt): they say where to look for
     * the format but never decide it. */
    int ext_generic;
} vp_format;

/* The table, in the order vp.formats() lists it. */
const vp_format *vp_formats(size_t *count);
/* The format with this id, or NULL. */
const vp_format *vp_format_find(const char *id);

/* The format a file name's extension names (compared without case), or
 * NULL. Generic extensions name no format. */
const vp_format *vp_format_for_ext(const char *path);

/* Decide from the first bytes of a file (`head`, n bytes of a file of
 * `size` bytes) and its name: an extension of a format without magic
 * decides; else the first format whose content test accepts the bytes;
 * else the format the extension names. Returns a format id, or NULL when
 * neither the content nor the extension says. */
const char *vp_detect(const uint8_t *head, size_t n, uint64_t size, const char *path);

/* Read the head of `path` and detect. Fails with ENOENT, EISDIR, EIO,
 * EEMPTY, or EFORMAT when the format cannot be told. */
vp_errcode vp_detect_file(const char *path, const char **format, vp_error *err);

#endif
