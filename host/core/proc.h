/* Processes, for vp.host.spawn and vp.host.wait: a program started with
 * posix_spawn in a process group of its own (so that one signal reaches it
 * and whatever it starts), and a wait for any of several that never waits
 * without a bound. */
#ifndef VP_PROC_H
#define VP_PROC_H

#include <stddef.h>
#include <sys/types.h>

/* Start argv[0] (looked up on PATH when it holds no '/') with argv and envp
 * (NULL: this process's environment), its standard input, output and error
 * from fds[0..2] (-1: this process's own), no signal blocked, leading a
 * process group of its own (its id is *pid). Returns 0 or an errno value
 * (ENOENT: no such program). */
int vp_proc_spawn(char *const argv[], char *const envp[], const int fds[3], pid_t *pid);

/* Wait at most timeout_ms for one of pids[0..n) to end, in steps of at
 * most 10 ms; a signal caught ends the wait at once. Returns the index of
 * one that ended, reaped, with *code its exit status, or 128 + the signal
 * that ended it (as a shell says); -1 when none did in time. */
long vp_proc_wait(const pid_t *pids, size_t n, int timeout_ms, int *code);

#endif
