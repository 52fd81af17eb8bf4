/* vp_proc_spawn and vp_proc_wait: exit statuses and signals as a shell says
 * them, standard streams from the descriptors given, the child leading a
 * process group of its own, a wait that returns after its bound, and a
 * program that does not exist. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#include "check.h"
#include "core/proc.h"

static pid_t run(const char *script, const int fds[3])
{
    char *argv[] = {"sh", "-c", (char *)script, NULL};
    pid_t pid = 0;
    CHECK_EQ(vp_proc_spawn(argv, NULL, fds, &pid), 0);
    return pid;
}

static int wait_one(pid_t pid)
{
    int code = -2;
    long i;
    for (int tries = 0; (i = vp_proc_wait(&pid, 1, 100, &code)) < 0 && tries < 100; tries++)
        ;
    CHECK_EQ(i, 0);
    return code;
}

int main(void)
{
    const int inherit[3] = {-1, -1, -1};
    CHECK_EQ(wait_one(run("exit 7", inherit)), 7);
    CHECK_EQ(wait_one(run("kill -TERM $$", inherit)), 128 + SIGTERM);

    /* its own process group; stdout from the descriptor given */
    char path[] = "/tmp/vpscript-test-proc.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    const int fds[3] = {-1, fd, -1};
    pid_t pid = run("read -r _ _ _ _ pgrp _ </proc/$$/stat; echo $pgrp", fds);
    CHECK_EQ(wait_one(pid), 0);
    char buf[64] = {0};
    CHECK(pread(fd, buf, sizeof buf - 1, 0) > 0);
    CHECK_EQ(atol(buf), pid);
    close(fd);
    unlink(path);

    /* two at once: the one that ends is the one returned; a bound is kept */
    pid_t two[2] = {run("sleep 5", inherit), run("exit 3", inherit)};
    int code = -2;
    long i = -1;
    for (int tries = 0; i < 0 && tries < 100; tries++)
        i = vp_proc_wait(two, 2, 100, &code);
    CHECK_EQ(i, 1);
    CHECK_EQ(code, 3);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    CHECK_EQ(vp_proc_wait(two, 1, 50, &code), -1);
    clock_gettime(CLOCK_MONOTONIC, &b);
    long ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
    CHECK(ms >= 50 && ms < 5000);
    CHECK_EQ(killpg(two[0], SIGKILL), 0);
    CHECK_EQ(wait_one(two[0]), 128 + SIGKILL);

    char *none[] = {"/nonexistent/program", NULL};
    pid_t p;
    CHECK_EQ(vp_proc_spawn(none, NULL, inherit, &p), ENOENT);
    return check_done("proc");
}
