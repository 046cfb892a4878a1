/* The job runner: one phase of a plan on this agent. It starts one thread per
 * worker, each with its own file, buffer, engine and histogram; the agent's
 * main thread samples the workers' live counters while they run and collects
 * their totals when they finish. Nothing on the per-IO path allocates, locks
 * or logs. */
#ifndef RB_JOB_H
#define RB_JOB_H

#include <stdint.h>

#include "rb_err.h"
#include "rb_proto.h"
#include "rb_sandbox.h"

typedef struct rb_phase rb_phase_t;

/* File name of worker w of job (fio's filename_format: $jobname, $jobnum,
 * $filenum). Returns 0, or -ENAMETOOLONG / -EINVAL. */
int rb_job_filename(const rb_job_spec_t *job, uint32_t worker, char *out, size_t len);

/* Writes incompressible data into file name of run folder rundir up to size
 * bytes (from its current end), fsyncs it and drops it from the page cache,
 * so that a read phase measures the disk. Adds the bytes written to *written.
 * 0 or -errno with err set. */
int rb_job_prefill(rb_sandbox_t *sb, int rundir, const char *name, uint64_t size, int direct,
                   uint64_t *written, rb_err_t *err);

/* Opens every worker's file (rundirs[j] is job j's run folder), starts the
 * worker threads, which wait until the monotonic clock reads t_go_ns.
 * On failure returns NULL with err set and nothing left running. */
rb_phase_t *rb_phase_start(const rb_phase_spec_t *spec, uint32_t index, rb_sandbox_t *sb,
                           const int *rundirs, uint64_t t_go_ns, rb_err_t *err);

/* 1 once every worker has finished (its thread may still be exiting). */
int rb_phase_finished(rb_phase_t *ph);

/* Asks every worker to stop after its current IO (abort). */
void rb_phase_stop(rb_phase_t *ph);

/* Fills out with per-job deltas since the previous call (or since GO), the
 * interval ending now. The arrays in out belong to ph and stay valid until
 * the next call or rb_phase_destroy. */
void rb_phase_sample(rb_phase_t *ph, const char *run_id, rb_msg_sample_t *out);

/* Joins the workers and fills out with their totals (per worker, with
 * progress checkpoints, and per job with full histograms). Arrays belong to
 * ph. Returns 0, or the first worker's error (also in out->status/error). */
int rb_phase_collect(rb_phase_t *ph, const char *run_id, rb_msg_done_t *out);

/* Stops and joins any workers still running, closes files, frees; nulls *p. */
void rb_phase_destroy(rb_phase_t **p);

#endif
