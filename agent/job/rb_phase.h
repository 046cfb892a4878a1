/* The phase runner: one phase of a plan on this agent. It starts one thread
 * per worker, each running its job's workload (data or metadata) with its
 * own files, buffers, engine and histogram; the agent's main thread samples
 * the workers' live counters while they run and collects their totals when
 * they finish. Nothing on the per-IO path allocates, locks or logs. */
#ifndef RB_PHASE_H
#define RB_PHASE_H

#include <stdint.h>

#include "rb_err.h"
#include "rb_job.h"
#include "rb_proto.h"
#include "rb_sandbox.h"

typedef struct rb_phase rb_phase_t;

/* Opens every worker's files (RB_JOB_RUNDIR(rundirs, j, k) is the run folder
 * of directory k of job j), sets up its engine, buffers and ring, and starts
 * the worker threads, which wait, set up, for rb_phase_go. Slow for many
 * workers or large buffers: the agent calls it off its control thread,
 * before GO. On failure returns NULL with err set and nothing left running. */
rb_phase_t *rb_phase_prepare(const rb_phase_spec_t *spec, uint32_t index, rb_sandbox_t *sb,
                             const int *rundirs, const rb_job_ctx_t *ctx, rb_err_t *err);

/* A network phase's links at this agent, from its GO, before rb_phase_go.
 * 0, or -errno with why set (a phase without a network job takes none). */
int rb_phase_links(rb_phase_t *ph, const rb_net_link_t *links, uint32_t n, char *why, size_t cap);

/* Lets the prepared workers go: each starts when the monotonic clock reads
 * t_go_ns (plus its startdelay). Quick: no allocation, no IO. */
void rb_phase_go(rb_phase_t *ph, uint64_t t_go_ns);

/* stonewall_time with wearout: 1 when every worker of job j has stopped at
 * its stonewall or finished, with *max_ops the most ops any of them did
 * (reported once: later calls return 0). */
int rb_phase_stonewalled(rb_phase_t *ph, uint32_t j, uint64_t *max_ops);

/* Lets the workers of job j waiting at their stonewall go on until each has
 * done ops operations. */
void rb_phase_wearout(rb_phase_t *ph, uint32_t j, uint64_t ops);

/* Index of the phase in the plan, as given to rb_phase_prepare. */
uint32_t rb_phase_index(const rb_phase_t *ph);

/* 1 once every worker has finished (its thread may still be exiting). */
int rb_phase_finished(rb_phase_t *ph);

/* Asks every worker to stop after its current IO (abort). */
void rb_phase_stop(rb_phase_t *ph);

/* fio's steadystate: judges, once a second of each job's time, the jobs
 * with a window (ss_dur) whose workers still run, and stops the workers of a
 * job found steady. Call it often (every poll); it does nothing in between.
 * No allocation. */
void rb_phase_steady(rb_phase_t *ph, uint64_t now);

/* fio's exitall, on this node: once a worker of a job with exitall has
 * ended, asks every worker of the phase to stop. Returns 0 (nothing to do,
 * or done before), 1 when it stopped them, 2 when that job's exit_what=all
 * also ends the node's later phases. A worker of a job with exitall_on_error
 * that failed ends the phase and the later ones too (2). Call it often. */
int rb_phase_exitall(rb_phase_t *ph);

/* Fills out with per-job deltas since the previous call (or since GO), the
 * interval ending now. The arrays in out belong to ph and stay valid until
 * the next call or rb_phase_destroy. */
void rb_phase_sample(rb_phase_t *ph, const char *run_id, rb_msg_sample_t *out);

/* Joins the workers and fills out with their totals (per worker, with
 * progress checkpoints, and per job with full histograms). Arrays belong to
 * ph. Returns 0, or the first worker's error (also in out->status/error). */
int rb_phase_collect(rb_phase_t *ph, const char *run_id, rb_msg_done_t *out);

/* Stops and joins any workers still running, closes their files and ends
 * their engines (io_destroy, fsync_on_close: slow, off the control thread),
 * frees their buffers and puts the IO schedulers back. What
 * rb_phase_collect filled stays valid. Once; later calls do nothing. */
void rb_phase_release(rb_phase_t *ph);

/* rb_phase_release, then frees the rest; nulls *p. */
void rb_phase_destroy(rb_phase_t **p);

#endif
