/* Several captures at once (vprof.h, "several captures at once"): the
 * threads of vp.batches_all and vp.open_all, run here below the bindings
 * (core/jobs.h), so that the bindings only read Lua's arguments, call in and
 * push the results. A job touches its own model and file only; nothing but
 * the progress callback runs on the calling thread. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/jobs.h"
#include "formats/vprof.h"

/* ---- batches ------------------------------------------------------------- */

static void batch_run(vp_vprof_batch_req *r)
{
    for (uint32_t i = 0; i < r->count; i++)
        r->out[i] = NULL;
    for (uint32_t g = 0; r->gout && g < r->m->group_count; g++)
        r->gout[g] = NULL;
    vp_vprof_quantity *q = calloc((size_t)r->count + 1, sizeof *q);
    if (!q) {
        r->rc = vp_fail(&r->err, VP_ENOMEM, UINT64_MAX, "out of memory");
        return;
    }
    for (uint32_t i = 0; i < r->count; i++)
        q[i] = (vp_vprof_quantity){.kind = VP_VPROF_Q_NODE, .index = r->nodes[i], .field = r->field,
                                   .batches = &r->out[i]};
    /* the nodes and the groups in one pass; nothing asked reads nothing */
    r->rc = r->gout ? vp_vprof_group_batches(r->m, 0, r->gwant, r->cuts, r->k, r->gout, q, r->count, &r->err)
                    : vp_vprof_measure(r->m, q, r->count, r->cuts, r->k, &r->err);
    free(q);
}

/* The requests grouped by model: job j runs every request of models[j],
 * in order, on one thread (a model's file window is its own). */
typedef struct {
    vp_vprof_batch_req *req;
    size_t n;
    vp_vprof **models; /* distinct, in order of first request */
} batch_jobs;

static void batch_job(void *ctx, size_t j)
{
    batch_jobs *bj = ctx;
    for (size_t i = 0; i < bj->n; i++)
        if (bj->req[i].m == bj->models[j])
            batch_run(&bj->req[i]);
}

/* What a request's pass made, freed (a failed pass leaves nothing). */
static void batch_drop(vp_vprof_batch_req *r)
{
    if (r->rc != VP_OK)
        return;
    for (uint32_t i = 0; i < r->count; i++) {
        vp_batched_free(r->out[i]);
        r->out[i] = NULL;
    }
    for (uint32_t g = 0; r->gout && g < r->m->group_count; g++) {
        vp_batched_free(r->gout[g]);
        r->gout[g] = NULL;
    }
}

size_t vp_vprof_batches_all(vp_vprof_batch_req *req, size_t n)
{
    batch_jobs bj = {req, n, malloc((n + 1) * sizeof *bj.models)};
    if (bj.models) {
        size_t nm = 0;
        for (size_t i = 0; i < n; i++) {
            size_t j = 0;
            while (j < nm && bj.models[j] != req[i].m)
                j++;
            if (j == nm)
                bj.models[nm++] = req[i].m;
        }
        vp_run_jobs(nm, vp_processors(), batch_job, NULL, &bj);
        free(bj.models);
    } else { /* no room to group them: each in turn, here */
        for (size_t i = 0; i < n; i++)
            batch_run(&req[i]);
    }
    for (size_t i = 0; i < n; i++) {
        if (req[i].rc != VP_OK) {
            for (size_t o = 0; o < n; o++)
                batch_drop(&req[o]);
            return i;
        }
    }
    return n;
}

/* ---- opens --------------------------------------------------------------- */

/* One open: it runs on a thread of its own, reporting its bytes done
 * through an atomic that the calling thread sums for opts->progress. */
typedef struct {
    const char *path;
    vp_open_opts o;
    vp_vprof_opened *out;
    uint64_t size; /* the file's, when the opens began */
    _Atomic uint64_t done;
} open_job;

typedef struct {
    open_job *job;
    size_t n;
    uint64_t total; /* the files' sizes when the opens began */
    const vp_open_opts *opts;
} open_jobs;

static void job_progress(void *ud, uint64_t done, uint64_t total)
{
    (void)total;
    atomic_store_explicit(&((open_job *)ud)->done, done, memory_order_relaxed);
}

static void job_open(void *ctx, size_t i)
{
    open_job *j = &((open_jobs *)ctx)->job[i];
    j->out->rc = vp_vprof_open(j->path, &j->o, &j->out->m, &j->out->err);
    atomic_store_explicit(&j->done, j->size, memory_order_relaxed); /* read, or given up */
}

static void jobs_progress(void *ctx)
{
    open_jobs *js = ctx;
    uint64_t done = 0;
    for (size_t i = 0; i < js->n; i++)
        done += atomic_load_explicit(&js->job[i].done, memory_order_relaxed);
    js->opts->progress(js->opts->progress_ud, done < js->total ? done : js->total, js->total);
}

void vp_vprof_open_all(const char *const *paths, size_t n, const vp_open_opts *opts, vp_vprof_opened *out)
{
    static const vp_open_opts defaults = {0};
    if (!opts)
        opts = &defaults;
    open_jobs js = {calloc(n + 1, sizeof *js.job), n, 0, opts};
    if (!js.job) {
        for (size_t i = 0; i < n; i++) {
            out[i].m = NULL;
            out[i].rc = vp_fail(&out[i].err, VP_ENOMEM, UINT64_MAX, "out of memory");
        }
        return;
    }
    for (size_t i = 0; i < n; i++) {
        open_job *j = &js.job[i];
        j->path = paths[i];
        j->o = *opts;
        j->o.progress = job_progress;
        j->o.progress_ud = j;
        j->out = &out[i];
        atomic_init(&j->done, 0);
        struct stat st;
        if (stat(paths[i], &st) == 0 && st.st_size > 0)
            j->size = (uint64_t)st.st_size;
        js.total += j->size;
    }
    vp_run_jobs(n, vp_processors(), job_open, opts->progress ? jobs_progress : NULL, &js);
    free(js.job);
}
