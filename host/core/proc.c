/* Processes: posix_spawn, and waitpid polled in short sleeps. A wait that
 * returns at least every timeout_ms, and at once when a signal is caught,
 * lets the caller's stop (a Ctrl-C, a SIGTERM) take effect while workers
 * run; no process-wide state is needed for it (a SIGCHLD handler, a
 * self-pipe). */
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <time.h>
#include <sys/wait.h>

#include "core/proc.h"

extern char **environ;

int vp_proc_spawn(char *const argv[], char *const envp[], const int fds[3], pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    int e = posix_spawn_file_actions_init(&fa);
    if (e)
        return e;
    if ((e = posix_spawnattr_init(&attr))) {
        posix_spawn_file_actions_destroy(&fa);
        return e;
    }
    for (int i = 0; i < 3 && !e; i++)
        if (fds[i] >= 0)
            e = posix_spawn_file_actions_adddup2(&fa, fds[i], i);
    sigset_t none;
    sigemptyset(&none);
    if (!e)
        e = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
    if (!e)
        e = posix_spawnattr_setpgroup(&attr, 0);
    if (!e)
        e = posix_spawnattr_setsigmask(&attr, &none);
    if (!e)
        e = posix_spawnp(pid, argv[0], &fa, &attr, argv, envp ? envp : environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    return e;
}

static int status_code(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return -1;
}

long vp_proc_wait(const pid_t *pids, size_t n, int timeout_ms, int *code)
{
    long left = timeout_ms;
    for (;;) {
        for (size_t i = 0; i < n; i++) {
            int status;
            pid_t r = waitpid(pids[i], &status, WNOHANG);
            if (r == pids[i] && (WIFEXITED(status) || WIFSIGNALED(status))) {
                *code = status_code(status);
                return (long)i;
            }
        }
        if (left <= 0)
            return -1;
        long step = left < 10 ? left : 10;
        struct timespec ts = {0, step * 1000000L};
        if (nanosleep(&ts, NULL) != 0 && errno == EINTR)
            return -1;
        left -= step;
    }
}
