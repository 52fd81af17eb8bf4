/* Independent jobs on threads (jobs.h): POSIX threads, which the
 * sanitizers and debuggers follow (glibc's C11 thrd_create bypasses
 * ThreadSanitizer's interception). */
#include "core/jobs.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    size_t n;
    atomic_size_t next; /* the next job not yet taken */
    size_t finished;    /* jobs returned, under mtx; the last one signals */
    pthread_mutex_t mtx;
    pthread_cond_t done;
    vp_job_fn fn;
    void *ctx;
} jobs;

static void *worker(void *arg)
{
    jobs *js = arg;
    for (size_t i; (i = atomic_fetch_add(&js->next, 1)) < js->n;) {
        js->fn(js->ctx, i);
        pthread_mutex_lock(&js->mtx);
        if (++js->finished == js->n)
            pthread_cond_signal(&js->done);
        pthread_mutex_unlock(&js->mtx);
    }
    return NULL;
}

/* Wait for the last job, polling about every 50 ms. */
static void wait_all(jobs *js, vp_poll_fn poll)
{
    pthread_mutex_lock(&js->mtx);
    while (js->finished < js->n) {
        if (poll) {
            pthread_mutex_unlock(&js->mtx);
            poll(js->ctx);
            pthread_mutex_lock(&js->mtx);
            if (js->finished >= js->n)
                break;
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 50L * 1000 * 1000;
        if (until.tv_nsec >= 1000L * 1000 * 1000) {
            until.tv_sec++;
            until.tv_nsec -= 1000L * 1000 * 1000;
        }
        pthread_cond_timedwait(&js->done, &js->mtx, &until);
    }
    pthread_mutex_unlock(&js->mtx);
}

void vp_run_jobs(size_t n, unsigned threads, vp_job_fn fn, vp_poll_fn poll, void *ctx)
{
    jobs js = {.n = n, .fn = fn, .ctx = ctx};
    atomic_init(&js.next, 0);
    size_t want = threads < 1 ? 1 : threads;
    if (want > n)
        want = n;
    pthread_t *t = want ? malloc(want * sizeof *t) : NULL;
    size_t started = 0;
    if (t && pthread_mutex_init(&js.mtx, NULL) == 0) {
        if (pthread_cond_init(&js.done, NULL) == 0) {
            while (started < want && pthread_create(&t[started], NULL, worker, &js) == 0)
                started++;
            if (started)
                wait_all(&js, poll);
            for (size_t i = 0; i < started; i++)
                pthread_join(t[i], NULL);
            pthread_cond_destroy(&js.done);
        }
        pthread_mutex_destroy(&js.mtx);
    }
    free(t);
    /* No thread started: every job here, in order (the counter says which
     * are left, so none runs twice). */
    for (size_t i; !started && (i = atomic_fetch_add(&js.next, 1)) < n;)
        fn(ctx, i);
    if (poll)
        poll(ctx);
}

unsigned vp_processors(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}
