/* Independent jobs on threads of their own: opening several captures at
 * once (vp.open_all) on a machine with processors to spare. The jobs share
 * nothing but what their context gives them; the readers keep no
 * process-wide state, so any of them may run on any thread. */
#ifndef VP_JOBS_H
#define VP_JOBS_H

#include <stddef.h>

/* Job i of a run: must not touch the Lua state (it is not the caller's
 * thread). */
typedef void (*vp_job_fn)(void *ctx, size_t i);
/* Called on the calling thread while jobs run (progress, say). */
typedef void (*vp_poll_fn)(void *ctx);

/* Run fn(ctx, i) for every i < n on up to `threads` threads of its own (1
 * at least, n at most), each taking the next job not yet taken; the calling
 * thread calls poll(ctx) (unless NULL) about every 50 ms until every job has
 * returned, and once more after. A thread that cannot be started leaves its
 * jobs to the others; when none starts, the calling thread runs them all. */
void vp_run_jobs(size_t n, unsigned threads, vp_job_fn fn, vp_poll_fn poll, void *ctx);

/* The processors online (1 when the system does not say). */
unsigned vp_processors(void);

#endif
