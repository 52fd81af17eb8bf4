#include "core/mapfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

vp_errcode vp_map_open(vp_map *m, const char *path, vp_error *err)
{
    memset(m, 0, sizeof *m);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return vp_fail(err, e == ENOENT ? VP_ENOENT : VP_EIO, UINT64_MAX, "%s", strerror(e));
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
        return vp_fail(err, VP_EIO, UINT64_MAX, "not a regular file");
    }
    if (st.st_size == 0) {
        close(fd);
        return vp_fail(err, VP_EEMPTY, UINT64_MAX, "the file is empty");
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (p == MAP_FAILED)
        return vp_fail(err, VP_EIO, UINT64_MAX, "cannot map the file: %s", strerror(e));
    /* Whole-file passes read front to back: ask for read-ahead. */
    madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
    m->data = p;
    m->size = (uint64_t)st.st_size;
    m->mapped = 1;
    return VP_OK;
}

void vp_map_wrap(vp_map *m, const void *buf, size_t n)
{
    memset(m, 0, sizeof *m);
    m->data = buf;
    m->size = n;
}

void vp_map_close(vp_map *m)
{
    if (m->mapped && m->data)
        munmap((void *)m->data, (size_t)m->size);
    memset(m, 0, sizeof *m);
}

void vp_map_release(vp_map *m, uint64_t upto)
{
    if (!m->mapped)
        return;
    long pg = sysconf(_SC_PAGESIZE);
    uint64_t len = upto - upto % (uint64_t)(pg > 0 ? pg : 4096);
    if (len > m->size)
        len = m->size;
    /* A private read-only file mapping is never dirty, so dropping its pages
     * loses nothing: a later read faults them back in from the page cache. */
    if (len)
        madvise((void *)m->data, (size_t)len, MADV_DONTNEED);
}

void vp_map_note_random(vp_map *m, uint64_t n)
{
    m->touched += n;
    if (m->touched >= VP_MAP_RELEASE_STEP * 2u) {
        vp_map_release(m, m->size);
        m->touched = 0;
    }
}
