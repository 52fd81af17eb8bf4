/* The formats vpscript reads, listed once: id, file extensions, a one-line
 * description and the content test. Detection (vp_detect, vp_detect_file),
 * the extension lookup and the Lua side's vp.formats() all read this table;
 * the bindings add only the id -> opener/writer glue. */
#ifndef VP_REGISTRY_H
#define VP_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "core/source.h"
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

/* What a content test says. */
enum {
    VP_SNIFF_NO = 0,
    VP_SNIFF_YES = 1,
    /* The head does not decide: the witness may lie further in the file (a
     * JSON report's keys, in any order). Only when n < size. */
    VP_SNIFF_MORE = 2
};

/* The content test on `head`, the first n bytes of a file of `size` bytes:
 * a VP_SNIFF_ value. */
typedef int (*vp_sniff_fn)(const uint8_t *head, size_t n, uint64_t size);

/* The content test over the whole file, for a format whose sniffer may say
 * VP_SNIFF_MORE: reads as far as it needs (linear in the file, one pass)
 * and says yes (1) or no (0). */
typedef int (*vp_sniff_src_fn)(vp_src *src);

typedef struct vp_format {
    const char *id;
    /* Where such files are found, with the dot, lower case; NULL-terminated. */
    const char *ext[VP_FORMAT_MAX_EXT];
    const char *description;
    /* The content test, or NULL for a format without magic: then the
     * extension is the only witness and it decides, whatever the bytes. */
    vp_sniff_fn sniff;
    /* The whole-file test when `sniff` said VP_SNIFF_MORE, or NULL. */
    vp_sniff_src_fn sniff_src;
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
 * neither the content nor the extension says. With the whole file as the
 * head (n == size) this is exactly vp_detect_file's answer; with less, a
 * format whose witness lies beyond the head is not seen. */
const char *vp_detect(const uint8_t *head, size_t n, uint64_t size, const char *path);

/* Detect `path` as vp_detect does, reading past the head where a content
 * test needs it (VP_SNIFF_MORE): detection does not depend on where in the
 * file the witness is (the order of a JSON report's keys, its size). Fails
 * with ENOENT, EISDIR, EIO (a FIFO, device or socket is refused without
 * blocking), EEMPTY, or EFORMAT when the format cannot be told. */
vp_errcode vp_detect_file(const char *path, const char **format, vp_error *err);

#endif
