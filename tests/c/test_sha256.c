/* vp_sha256 against the FIPS 180-4 example vectors (and the million-'a'
 * one), fed whole and in uneven pieces; vp_sha256_file against the same
 * bytes in memory, across the source's window. */
#include "check.h"
#include "core/sha256.h"

static int same_hex(const char *data, size_t n, const char *want)
{
    char hex[65];
    vp_sha256_hex(data, n, hex);
    return strcmp(hex, want) == 0;
}

int main(void)
{
    CHECK(same_hex("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    CHECK(same_hex("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    CHECK(same_hex(two, strlen(two), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));

    size_t n = 1000000;
    char *a = malloc(n);
    CHECK(a != NULL);
    if (!a)
        return check_done("sha256");
    memset(a, 'a', n);
    CHECK(same_hex(a, n, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));

    /* pieces of 1..97 bytes, crossing every block boundary */
    vp_sha256 c;
    uint8_t d[32];
    vp_sha256_init(&c);
    for (size_t off = 0, k = 1; off < n; off += k, k = k % 97 + 1)
        vp_sha256_update(&c, a + off, off + k <= n ? k : n - off);
    vp_sha256_final(&c, d);
    CHECK(d[0] == 0xcd && d[1] == 0xc7 && d[31] == 0xd0);

    /* the file: 3 MiB of varied bytes, more than one window */
    size_t fn = 3u << 20;
    char *b = malloc(fn);
    CHECK(b != NULL);
    if (!b)
        return check_done("sha256");
    for (size_t i = 0; i < fn; i++)
        b[i] = (char)((i * 2654435761u) >> 13);
    char path[] = "/tmp/vp_sha256_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK(write(fd, b, fn) == (ssize_t)fn);
    close(fd);
    char want[65], got[65];
    vp_sha256_hex(b, fn, want);
    vp_error err;
    CHECK_EQ(vp_sha256_file(path, got, &err), VP_OK);
    CHECK(strcmp(want, got) == 0);
    unlink(path);
    CHECK_EQ(vp_sha256_file(path, got, &err), VP_ENOENT);
    CHECK_EQ(vp_sha256_file("/tmp", got, &err), VP_EISDIR);
    free(a);
    free(b);
    return check_done("sha256");
}
