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

/* Name of file filenum of worker w: the job's filename when set (one file
 * shared by all its workers), else its filename_format expanded ($jobname,
 * $jobnum = w, $filenum). Returns 0, or -ENAMETOOLONG / -EINVAL. */
int rb_job_filename(const rb_job_spec_t *job, uint32_t worker, uint32_t filenum, char *out,
                    size_t len);

/* 1 if the job's engine touches files (every engine but null). */
int rb_job_uses_files(const rb_job_spec_t *job);

/* Bytes of IO region in each of the job's files (filesize, or size / nrfiles). */
uint64_t rb_job_filesize(const rb_job_spec_t *job);

/* How a file is laid out before GO for a phase that reads it. */
typedef struct rb_prefill {
    uint64_t start;    /* first byte of the IO region (the job's offset) */
    uint64_t end;      /* the file must reach this size */
    uint64_t bs;       /* block size, for verify headers */
    int direct;        /* write with O_DIRECT */
    int verify;        /* stamp verify headers on every bs block from start */
    uint64_t run_hash; /* rb_verify_hash(run id) */
} rb_prefill_t;

/* Writes incompressible data into file name of run folder rundir up to
 * pf->end (from its current end, or all of it when verify headers are
 * needed), fsyncs it and drops it from the page cache, so that a read phase
 * measures the disk. Adds the bytes written to *written. 0 or -errno. */
int rb_job_prefill(rb_sandbox_t *sb, int rundir, const char *name, const rb_prefill_t *pf,
                   uint64_t *written, rb_err_t *err);

/* Opens every worker's files (rundirs[j] is job j's run folder), sets up its
 * engine, buffers and ring, and starts the worker threads, which wait until
 * the monotonic clock reads t_go_ns. run_id names the run in verify headers.
 * On failure returns NULL with err set and nothing left running. */
rb_phase_t *rb_phase_start(const rb_phase_spec_t *spec, uint32_t index, rb_sandbox_t *sb,
                           const int *rundirs, const char *run_id, uint64_t t_go_ns, rb_err_t *err);

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
