#define _GNU_SOURCE /* fopencookie */
#include "core/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

/* A new file beside dest: "<dir>/.<base>.vpscript-XXXXXX" with random
 * letters, created with O_EXCL (a name someone else made is never used). */
static int create_beside(const char *dest, mode_t mode, char **tmp_out)
{
    const char *slash = strrchr(dest, '/');
    size_t dlen = slash ? (size_t)(slash - dest) + 1 : 0;
    const char *base = slash ? slash + 1 : dest;
    size_t need = dlen + 1 + strlen(base) + sizeof ".vpscript-XXXXXX";
    char *tmp = malloc(need);
    if (!tmp) {
        errno = ENOMEM;
        return -1;
    }
    static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned char r[6];
        if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) /* then a name of the pid */
            for (size_t i = 0; i < sizeof r; i++)
                r[i] = (unsigned char)((unsigned)getpid() >> (i * 5) ^ (unsigned)attempt * 131u);
        char suffix[7];
        for (size_t i = 0; i < sizeof r; i++)
            suffix[i] = letters[r[i] % (sizeof letters - 1)];
        suffix[6] = 0;
        snprintf(tmp, need, "%.*s.%s.vpscript-%s", (int)dlen, dest, base, suffix);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd >= 0) {
            *tmp_out = tmp;
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    free(tmp);
    errno = e;
    return -1;
}

/* The FILE's writes: each byte to the file descriptor, the first failure's
 * errno kept for the message (stdio keeps only that one happened). */
static ssize_t cookie_write(void *c, const char *buf, size_t n)
{
    vp_outfile *o = c;
    size_t done = 0;
    while (done < n) {
        ssize_t k = write(o->fd, buf + done, n - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (!o->err_no)
                o->err_no = k < 0 ? errno : EIO;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)k;
    }
    return (ssize_t)n;
}

static int cookie_seek(void *c, off64_t *pos, int whence)
{
    off_t r = lseek(((vp_outfile *)c)->fd, (off_t)*pos, whence);
    if (r < 0)
        return -1;
    *pos = r;
    return 0;
}

static int cookie_close(void *c)
{
    vp_outfile *o = c;
    int r = close(o->fd);
    o->fd = -1;
    return r;
}

/* A FILE writing to fd through the cookie functions; 0 (fd closed) on failure. */
static int attach(vp_outfile *o, int fd)
{
    o->fd = fd;
    cookie_io_functions_t io = {NULL, cookie_write, cookie_seek, cookie_close};
    o->f = fopencookie(o, "wb", io);
    if (!o->f) {
        close(fd);
        o->fd = -1;
        return 0;
    }
    return 1;
}

vp_errcode vp_outfile_open(const char *path, vp_outfile *o, vp_error *err)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (exists && S_ISDIR(st.st_mode))
        return vp_fail(err, VP_EISDIR, UINT64_MAX, "is a directory");
    if (exists && !S_ISREG(st.st_mode)) {
        /* a device, a FIFO, a terminal: written in place */
        o->dest = dup_str(path);
        int fd = o->dest ? open(path, O_WRONLY | O_CLOEXEC) : -1;
        int e = o->dest ? errno : ENOMEM;
        if (fd < 0 || !attach(o, fd)) {
            if (fd >= 0)
                e = errno;
            vp_outfile_free(o);
            return vp_fail(err, VP_EIO, UINT64_MAX, "cannot be written: %s", strerror(e));
        }
        return VP_OK;
    }
    /* A symbolic link is kept: the new file replaces its target. */
    struct stat lst;
    char *real = NULL;
    if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
        real = realpath(path, NULL);
    o->dest = real ? real : dup_str(path);
    if (!o->dest)
        return vp_fail(err, VP_ENOMEM, UINT64_MAX, "out of memory");
    int fd = create_beside(o->dest, exists ? (st.st_mode & 07777) : 0666, &o->tmp);
    if (fd < 0) {
        int e = errno;
        vp_outfile_free(o);
        return vp_fail(err, VP_EIO, UINT64_MAX, "cannot be written: %s", strerror(e));
    }
    if (exists)
        (void)fchmod(fd, st.st_mode & 07777); /* open() applied the umask */
    if (!attach(o, fd)) {
        int e = errno;
        vp_outfile_abort(o);
        vp_outfile_free(o);
        return vp_fail(err, VP_EIO, UINT64_MAX, "cannot be written: %s", strerror(e));
    }
    return VP_OK;
}

vp_errcode vp_outfile_commit(vp_outfile *o, vp_error *err)
{
    int e = 0;
    if (fflush(o->f) != 0 || ferror(o->f))
        e = o->err_no ? o->err_no : EIO;
    if (fclose(o->f) != 0 && !e)
        e = errno;
    o->f = NULL;
    if (!e && o->tmp && rename(o->tmp, o->dest) != 0)
        e = errno;
    if (e) {
        if (o->tmp)
            unlink(o->tmp);
        return vp_fail(err, VP_EIO, UINT64_MAX, "%s", strerror(e));
    }
    return VP_OK;
}

void vp_outfile_abort(vp_outfile *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp)
        unlink(o->tmp);
}

void vp_outfile_free(vp_outfile *o)
{
    free(o->dest);
    free(o->tmp);
    o->dest = o->tmp = NULL;
}

int vp_file_identity(const char *path, uint64_t *dev, uint64_t *ino)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0;
    *dev = (uint64_t)st.st_dev;
    *ino = (uint64_t)st.st_ino;
    return S_ISREG(st.st_mode) ? VP_FILE_REGULAR : S_ISDIR(st.st_mode) ? VP_FILE_DIRECTORY : VP_FILE_OTHER;
}
