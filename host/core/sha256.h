/* SHA-256 (FIPS 180-4): the content hash that makes adding a capture to
 * the performance history idempotent (vp.sha256, vp.sha256_file). Written
 * from the standard; tests/c/test_sha256.c checks it against its vectors
 * and tests/history_spec.lua against coreutils' sha256sum. */
#ifndef VP_SHA256_H
#define VP_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "core/vp_error.h"

typedef struct vp_sha256 {
    uint32_t h[8];
    uint64_t len;      /* bytes hashed so far */
    uint8_t block[64]; /* the block being filled */
    size_t fill;
} vp_sha256;

void vp_sha256_init(vp_sha256 *c);
void vp_sha256_update(vp_sha256 *c, const void *data, size_t n);
/* The digest; c must be initialised again before it is used once more. */
void vp_sha256_final(vp_sha256 *c, uint8_t out[32]);

/* The digest of n bytes, as 64 lowercase hex digits and a NUL. */
void vp_sha256_hex(const void *data, size_t n, char hex[65]);

/* The digest of a file's bytes, read in windows (core/source: the same
 * refusals as a capture's open: a directory, a FIFO, an empty file). */
vp_errcode vp_sha256_file(const char *path, char hex[65], vp_error *err);

#endif
