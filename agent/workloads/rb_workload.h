/* The one small table the phase runner drives a worker through, whatever
 * it does: moving data through an engine (rb_data_workload) or metadata
 * operations over a file set (rb_metadata_workload, rw=meta). */
#ifndef RB_WORKLOAD_H
#define RB_WORKLOAD_H

#include <stdint.h>

#include "rb_err.h"
#include "rb_job.h"
#include "rb_sandbox.h"
#include "rb_worker.h"

typedef struct rb_workload_ops {
    const char *name; /* for messages */
    /* Before GO, not measured: opens w's files or folders (in run folder
     * rundir), sets up its buffers, engine and ring, seeds w->rng with seed.
     * 0 or -errno with err set; fini() releases what it took either way. */
    int (*setup)(rb_worker_t *w, rb_sandbox_t *sb, int rundir, const rb_job_ctx_t *ctx,
                 uint64_t seed, rb_err_t *err);
    /* Before GO, not measured, on the worker's thread (the workers' side by
     * side): what setup() left for it, as filling the buffers. Optional. */
    void (*warm)(rb_worker_t *w);
    /* The measured loop, on the worker's thread from GO on. */
    void (*run)(rb_worker_t *w);
    /* After the measured window is closed: work that is not counted
     * (do_verify). Optional. */
    void (*finish)(rb_worker_t *w);
    /* Releases what setup() took (not w->bufs or w->cp); safe after a failed setup. */
    void (*fini)(rb_worker_t *w);
} rb_workload_ops_t;

/* Moves data through the job's ioengine: sequential and random passes. */
extern const rb_workload_ops_t rb_data_workload;

/* rw=meta: one metadata operation over every file of a worker's file set. */
extern const rb_workload_ops_t rb_metadata_workload;

/* network=: streams between the run's agents (rb_net.h). */
extern const rb_workload_ops_t rb_net_workload;

/* The workload that runs job; never NULL. */
const rb_workload_ops_t *rb_workload_for(const rb_job_spec_t *job);

#endif
