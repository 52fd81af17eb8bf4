/* Output files written whole or not at all: the bytes go to a new file
 * beside the destination (same directory, so the rename cannot cross a
 * file system), every write and the close are checked, and only then is
 * the file renamed over the destination. A failure (a full disk, an I/O
 * error) leaves the destination as it was and says what happened. A
 * destination that exists and is not a regular file (/dev/null, /dev/full,
 * a FIFO, a terminal) is written in place, still checked. Lua reaches this
 * as vp.output.core (bindings/l_output.c); stdlib/vp/output.lua is the one
 * helper every script's output file goes through. */
#ifndef VP_OUTFILE_H
#define VP_OUTFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/vp_error.h"

typedef struct vp_outfile {
    FILE *f;
    char *dest; /* where the bytes end up (a symbolic link's target) */
    char *tmp;  /* the new file beside it; NULL when written in place */
    int fd;
    int err_no; /* the first write's failure (f writes through fd, which
                 * keeps it: stdio forgets it) */
} vp_outfile;

/* Open an output for `path` (o must stay where it is until it is freed:
 * its FILE writes through it): a new file (O_EXCL, a random name
 * ".<name>.vpscript-XXXXXX" beside the destination, its mode the
 * destination's when that exists, else 0666 less the umask), or the
 * destination itself when it exists and is not a regular file. */
vp_errcode vp_outfile_open(const char *path, vp_outfile *o, vp_error *err);

/* Flush, check that no write failed, close, and rename the new file over
 * the destination; on any failure the new file is removed. o->f is closed
 * either way. */
vp_errcode vp_outfile_commit(vp_outfile *o, vp_error *err);

/* Close and remove the new file (nothing is renamed). */
void vp_outfile_abort(vp_outfile *o);

/* Free what vp_outfile_open allocated (after commit or abort). */
void vp_outfile_free(vp_outfile *o);

/* What an existing path is (symbolic links followed) and its device and
 * inode: VP_FILE_REGULAR, VP_FILE_DIRECTORY or VP_FILE_OTHER, or 0 when it
 * cannot be stat'ed. Two paths name the same file when both numbers match. */
enum { VP_FILE_REGULAR = 1, VP_FILE_DIRECTORY, VP_FILE_OTHER };
int vp_file_identity(const char *path, uint64_t *dev, uint64_t *ino);

#endif
