/* core/source: windowed reads, memory sources, files that are not regular,
 * and a file truncated while open (an error, never a SIGBUS). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "check.h"
#include "core/source.h"

static char dir[] = "/tmp/vp_test_source.XXXXXX";

static const char *tmp_path(const char *name)
{
    static char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

/* A file of n bytes whose byte i is (i * 7 + i / 251) & 0xff. */
static void write_pattern(const char *path, size_t n)
{
    FILE *f = fopen(path, "wb");
    for (size_t i = 0; i < n; i++)
        fputc((int)((i * 7 + i / 251) & 0xff), f);
    fclose(f);
}

static int pattern_ok(const uint8_t *p, uint64_t off, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (uint8_t)(((off + i) * 7 + (off + i) / 251) & 0xff))
            return 0;
    return 1;
}

static void test_memory(void)
{
    static const uint8_t buf[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    vp_src s;
    vp_error err;
    size_t avail = 0;
    vp_src_wrap(&s, buf, sizeof buf);
    const uint8_t *p = vp_src_get(&s, 3, 4, &avail, &err);
    CHECK(p == buf + 3);
    CHECK_EQ(avail, 7);
    CHECK(vp_src_get(&s, 10, 0, &avail, &err) != NULL);
    CHECK_EQ(avail, 0);
    CHECK(vp_src_get(&s, 8, 3, &avail, &err) == NULL);
    CHECK_EQ(err.code, VP_ETRUNC);
    CHECK_EQ(err.offset, 8);
    CHECK(vp_src_get(&s, 11, 0, &avail, &err) == NULL);
    vp_src_close(&s);
}

static void test_window(void)
{
    const char *path = tmp_path("big");
    size_t n = 3 * VP_SRC_WINDOW + 123;
    write_pattern(path, n);
    vp_src s;
    vp_error err;
    CHECK_EQ(vp_src_open(&s, path, &err), VP_OK);
    CHECK_EQ(s.size, n);
    size_t avail;
    /* Front to back in steps that straddle the window's end. */
    uint64_t off = 0;
    int ok = 1;
    while (off + 1000 <= n) {
        const uint8_t *p = vp_src_get(&s, off, 1000, &avail, &err);
        if (!p || avail < 1000 || !pattern_ok(p, off, 1000))
            ok = 0;
        off += 999;
    }
    CHECK(ok);
    /* Random access, and a range larger than the window. */
    const uint8_t *p = vp_src_get(&s, 17, 2 * VP_SRC_WINDOW, &avail, &err);
    CHECK(p && pattern_ok(p, 17, 2 * VP_SRC_WINDOW));
    p = vp_src_get(&s, n - 5, 5, &avail, &err);
    CHECK(p && avail == 5 && pattern_ok(p, n - 5, 5));
    CHECK(vp_src_get(&s, n - 5, 6, &avail, &err) == NULL);
    CHECK_EQ(err.code, VP_ETRUNC);
    /* The window stays bounded by what was asked. */
    CHECK(s.cap <= 2 * VP_SRC_WINDOW);
    vp_src_forget(&s);
    p = vp_src_get(&s, 0, 10, &avail, &err);
    CHECK(p && pattern_ok(p, 0, 10));
    vp_src_close(&s);
    vp_src_close(&s); /* idempotent */
}

static void test_truncated_while_open(void)
{
    const char *path = tmp_path("shrinks");
    size_t n = 4 * VP_SRC_WINDOW;
    write_pattern(path, n);
    vp_src s;
    vp_error err;
    CHECK_EQ(vp_src_open(&s, path, &err), VP_OK);
    size_t avail;
    CHECK(vp_src_get(&s, 0, 100, &avail, &err) != NULL);
    CHECK_EQ(truncate(path, 8192), 0);
    /* Inside the window already read: the bytes are still ours. */
    CHECK(vp_src_get(&s, 50, 10, &avail, &err) != NULL);
    /* Past it: an error naming what happened, with both sizes. */
    CHECK(vp_src_get(&s, 2 * VP_SRC_WINDOW, 10, &avail, &err) == NULL);
    CHECK_EQ(err.code, VP_ECHANGED);
    CHECK_STR_CONTAINS(err.msg, "truncated while open");
    CHECK_STR_CONTAINS(err.msg, "now 8192");
    /* A range that straddles the new end fails too. */
    vp_src_forget(&s);
    CHECK(vp_src_get(&s, 8000, 1000, &avail, &err) == NULL);
    CHECK_EQ(err.code, VP_ECHANGED);
    vp_src_close(&s);

    /* A file that grows is read as far as it was when opened. */
    write_pattern(path, 1000);
    CHECK_EQ(vp_src_open(&s, path, &err), VP_OK);
    FILE *f = fopen(path, "ab");
    fputs("more bytes", f);
    fclose(f);
    CHECK(vp_src_get(&s, 0, 1000, &avail, &err) != NULL);
    CHECK_EQ(avail, 1000);
    CHECK(vp_src_get(&s, 0, 1001, &avail, &err) == NULL);
    vp_src_close(&s);
}

static void test_not_regular(void)
{
    vp_src s;
    vp_error err;
    CHECK_EQ(vp_src_open(&s, tmp_path("missing"), &err), VP_ENOENT);
    CHECK_EQ(vp_src_open(&s, dir, &err), VP_EISDIR);
    /* A FIFO with no writer: refused at once instead of waiting forever. */
    const char *fifo = tmp_path("fifo");
    CHECK_EQ(mkfifo(fifo, 0600), 0);
    CHECK_EQ(vp_src_open(&s, fifo, &err), VP_EIO);
    CHECK_STR_CONTAINS(err.msg, "FIFO");
    CHECK_EQ(vp_src_open(&s, "/dev/null", &err), VP_EIO);
    CHECK_STR_CONTAINS(err.msg, "character device");
    int sock = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    snprintf(addr.sun_path, sizeof addr.sun_path, "%s", tmp_path("sock"));
    if (sock >= 0 && bind(sock, (struct sockaddr *)&addr, sizeof addr) == 0) {
        CHECK_EQ(vp_src_open(&s, tmp_path("sock"), &err), VP_EIO);
        CHECK_STR_CONTAINS(err.msg, "socket");
    }
    if (sock >= 0)
        close(sock);
    FILE *f = fopen(tmp_path("empty"), "wb");
    fclose(f);
    CHECK_EQ(vp_src_open(&s, tmp_path("empty"), &err), VP_EEMPTY);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_memory();
    test_window();
    test_truncated_while_open();
    test_not_regular();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "test_source: could not remove %s\n", dir);
    return check_done("test_source");
}
