#include "core/source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

vp_errcode vp_src_open(vp_src *s, const char *path, vp_error *err)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
     * writer, forever if none comes. It changes nothing for regular files. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        struct stat st;
        /* Sockets cannot be opened at all (ENXIO): say what the name is. */
        if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
            return vp_fail(err, VP_EIO, UINT64_MAX, "is %s, not a capture file",
                           kind_of(st.st_mode));
        return vp_fail(err, e == ENOENT || e == ENOTDIR ? VP_ENOENT : VP_EIO, UINT64_MAX, "%s",
                       strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return vp_fail(err, VP_EIO, UINT64_MAX, "%s", strerror(e));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return vp_fail(err, VP_EISDIR, UINT64_MAX, "is a directory, expected a capture file");
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return vp_fail(err, VP_EIO, UINT64_MAX, "is %s, not a capture file", kind_of(st.st_mode));
    }
    if (st.st_size == 0) {
        close(fd);
        return vp_fail(err, VP_EEMPTY, UINT64_MAX, "the file is empty");
    }
    s->fd = fd;
    s->size = (uint64_t)st.st_size;
    return VP_OK;
}

void vp_src_wrap(vp_src *s, const void *buf, size_t n)
{
    memset(s, 0, sizeof *s);
    s->fd = -1;
    s->mem = buf;
    s->size = n;
}

void vp_src_close(vp_src *s)
{
    if (s->fd >= 0)
        close(s->fd);
    free(s->buf);
    memset(s, 0, sizeof *s);
    s->fd = -1;
}

void vp_src_forget(vp_src *s)
{
    free(s->buf);
    s->buf = NULL;
    s->cap = s->len = 0;
    s->off = 0;
}

/* A read ended before the size the file had when it was opened: it shrank. */
static const uint8_t *truncated(vp_src *s, uint64_t off, vp_error *err)
{
    struct stat st;
    if (fstat(s->fd, &st) == 0 && (uint64_t)st.st_size < s->size)
        vp_fail(err, VP_ECHANGED, off,
                "the file was truncated while open: it had %llu bytes, now %llu",
                (unsigned long long)s->size, (unsigned long long)st.st_size);
    else
        vp_fail(err, VP_ECHANGED, off, "the file ended early: it changed while open");
    return NULL;
}

const uint8_t *vp_src_get(vp_src *s, uint64_t off, size_t need, size_t *avail, vp_error *err)
{
    if (off > s->size || need > s->size - off) {
        vp_fail(err, VP_ETRUNC, off, "expected %zu bytes, the file has %llu", need,
                (unsigned long long)(s->size > off ? s->size - off : 0));
        return NULL;
    }
    if (s->fd < 0) {
        if (avail)
            *avail = (size_t)(s->size - off);
        return s->mem + off;
    }
    if (s->buf && off >= s->off && off - s->off <= s->len && need <= s->len - (off - s->off)) {
        if (avail)
            *avail = s->len - (size_t)(off - s->off);
        return s->buf + (off - s->off);
    }
    /* A read that continues the window (a pass walking forward) refills a
     * whole window; one elsewhere (random access: a frame here, a frame
     * there) takes a block, not a window it would mostly throw away. */
    int onward = s->buf && off >= s->off && off <= s->off + s->len;
    size_t chunk = onward ? VP_SRC_WINDOW : VP_SRC_BLOCK;
    size_t want = need > chunk ? need : chunk;
    if (want > s->size - off)
        want = (size_t)(s->size - off);
    if (want > s->cap) {
        uint8_t *nb = realloc(s->buf, want);
        if (!nb) {
            vp_fail(err, VP_ENOMEM, off, "out of memory reading %zu bytes", want);
            return NULL;
        }
        s->buf = nb;
        s->cap = want;
    }
    size_t got = 0;
    while (got < want) {
        ssize_t r = pread(s->fd, s->buf + got, want - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            s->len = 0;
            vp_fail(err, VP_EIO, off + got, "cannot read the file: %s", strerror(errno));
            return NULL;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    s->off = off;
    s->len = got;
    if (got < want || got < need) {
        s->len = 0;
        return truncated(s, off + got, err);
    }
    if (avail)
        *avail = got;
    return s->buf;
}
