/* vp_run_jobs: every job runs exactly once whatever the number of threads
 * (none, fewer than the jobs, more), jobs really overlap when there are
 * threads for them, and the poll runs on the calling thread, at least once
 * after the last job. */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "check.h"
#include "core/jobs.h"

typedef struct {
    atomic_int *runs;   /* per job */
    atomic_int active;  /* jobs running now */
    atomic_int most;    /* the most that ran at once */
    int sleep_ms;       /* each job's length */
    int polls;          /* calling thread only */
    pthread_t caller;
    int foreign_poll;   /* a poll seen on another thread */
    int done_at_last;   /* jobs finished when the last poll ran */
    size_t n;
} run_ctx;

static void job(void *ctx, size_t i)
{
    run_ctx *c = ctx;
    int now = atomic_fetch_add(&c->active, 1) + 1;
    for (int m = atomic_load(&c->most); now > m && !atomic_compare_exchange_weak(&c->most, &m, now);)
        ;
    if (c->sleep_ms) {
        struct timespec t = {0, (long)c->sleep_ms * 1000 * 1000};
        nanosleep(&t, NULL);
    }
    atomic_fetch_add(&c->runs[i], 1);
    atomic_fetch_sub(&c->active, 1);
}

static void poll(void *ctx)
{
    run_ctx *c = ctx;
    c->polls++;
    if (!pthread_equal(pthread_self(), c->caller))
        c->foreign_poll = 1;
    int done = 0;
    for (size_t i = 0; i < c->n; i++)
        done += atomic_load(&c->runs[i]);
    c->done_at_last = done;
}

static void run(size_t n, unsigned threads, int sleep_ms)
{
    atomic_int runs[64];
    for (size_t i = 0; i < 64; i++)
        atomic_init(&runs[i], 0);
    run_ctx c = {.runs = runs, .sleep_ms = sleep_ms, .caller = pthread_self(), .n = n};
    atomic_init(&c.active, 0);
    atomic_init(&c.most, 0);
    vp_run_jobs(n, threads, job, poll, &c);
    for (size_t i = 0; i < n; i++)
        CHECK_EQ(atomic_load(&runs[i]), 1);
    CHECK(c.polls >= 1);
    CHECK_EQ(c.foreign_poll, 0);
    CHECK_EQ(c.done_at_last, (long long)n);
    CHECK(atomic_load(&c.most) <= (int)(threads < 1 ? 1 : threads));
    if (sleep_ms && threads >= 2 && n >= 2)
        CHECK(atomic_load(&c.most) >= 2); /* 4 jobs of 60 ms on 4 threads overlap */
}

int main(void)
{
    run(0, 4, 0);
    run(1, 1, 0);
    run(5, 0, 0); /* 0 threads means 1 */
    run(64, 3, 0);
    run(3, 8, 0); /* more threads than jobs */
    run(4, 4, 60);
    run(6, 2, 5);
    /* no poll: still every job once */
    atomic_int runs[10];
    for (int i = 0; i < 10; i++)
        atomic_init(&runs[i], 0);
    run_ctx c = {.runs = runs, .caller = pthread_self(), .n = 10};
    atomic_init(&c.active, 0);
    atomic_init(&c.most, 0);
    vp_run_jobs(10, 4, job, NULL, &c);
    for (int i = 0; i < 10; i++)
        CHECK_EQ(atomic_load(&runs[i]), 1);
    CHECK(vp_processors() >= 1);
    return check_done("jobs");
}
