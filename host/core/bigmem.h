/* Memory for large arrays (a capture's frame records, the columns of a
 * Series): backed by transparent huge pages where the system offers them.
 *
 * Every 4 KiB page an array touches for the first time costs a page fault,
 * and on a virtual machine a fault costs tens of microseconds: filling the
 * 18 MB of frame records of a 700,000-frame capture took 190 ms that way,
 * more than decoding the whole file, and 6 ms in 2 MiB pages. Arrays of at
 * least VP_BIG_MIN bytes are therefore mapped 2 MiB-aligned and advised as
 * huge (Linux madvise MADV_HUGEPAGE); smaller ones, and systems without the
 * advice, use malloc. The caller passes each array's size in bytes back,
 * so the two kinds never need telling apart. */
#ifndef VP_BIGMEM_H
#define VP_BIGMEM_H

#include <stddef.h>

#define VP_BIG_MIN ((size_t)2 << 20)

/* Resize p (old_bytes, from these functions or NULL with 0) to new_bytes,
 * keeping the first min(old, new) bytes; NULL (p untouched) on failure. */
void *vp_big_realloc(void *p, size_t old_bytes, size_t new_bytes);

/* Free an array of `bytes` bytes from vp_big_realloc (NULL is fine). */
void vp_big_free(void *p, size_t bytes);

#endif
