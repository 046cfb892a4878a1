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

/* 1 if the job's engine touches files: all but those flagged
 * RB_ENGINE_F_NO_DATA (null); an unknown engine counts as touching them. */
int rb_job_uses_files(const rb_job_spec_t *job);

/* Bytes of IO region in each of the job's files (filesize, or size / nrfiles). */
uint64_t rb_job_filesize(const rb_job_spec_t *job);

/* Where this agent stands in the run: what shared files, cross-node reads
 * and verify headers need. All borrowed. */
typedef struct rb_run_ctx {
    const char *run_id;     /* names the run in verify headers and folder names */
    uint32_t rank;          /* this node's place, 0 .. nnodes-1 */
    uint32_t nnodes;        /* nodes in the run (>= 1) */
    const char *lead;       /* node 0's name: shared files are "LEAD.NAME" */
    const rb_peer_t *peers; /* node names by read_shift */
    uint32_t npeers;
    const uint64_t *caps; /* per job of the phase: bs blocks of each file there are to
                             read (what a worn-out write left), 0 = all; or NULL */
} rb_run_ctx_t;

/* Name of the node `shift` places further on, from ctx's peers ("" for 0
 * or an unknown shift: the agent's own files). */
const char *rb_run_peer(const rb_run_ctx_t *ctx, uint32_t shift);

/* Workers of a job across the run: numjobs on every node for a shared file
 * (they all share one file), else numjobs (each node has its own files). */
uint32_t rb_job_region_count(const rb_job_spec_t *job, uint32_t nnodes);

/* File offset of byte rel (0 <= rel < the job's filesize) of the IO region
 * that worker region (0 .. nregions-1) owns: offset + rel for a file of its
 * own; offset + region * filesize + rel in a segmented shared file; in a
 * strided one, transfer-sized pieces of the regions interleave. *room, when
 * not NULL, gets the bytes from there to the end of the piece. */
uint64_t rb_job_map(const rb_job_spec_t *job, uint32_t nregions, uint32_t region, uint64_t rel,
                    uint64_t *room);

/* Name of the job's shared file, "LEAD." and its first file name. 0 or -errno. */
int rb_job_shared_name(const rb_job_spec_t *job, const char *lead, char *out, size_t len);

/* How a file is laid out before GO for a phase that reads it. */
typedef struct rb_prefill {
    uint64_t start;    /* first byte of the IO region (the job's offset) */
    uint64_t end;      /* the file must reach this size */
    uint64_t bs;       /* block size, for verify headers */
    int direct;        /* write with O_DIRECT */
    int verify;        /* stamp verify headers on every bs block from start */
    uint64_t run_hash; /* rb_verify_hash(run id) */
    uint32_t node;     /* rank + 1 of this node, for verify headers */
    /* a region of a shared file (rb_job_map): shared, the job, regions, region */
    int shared;
    const rb_job_spec_t *job; /* borrowed from the plan */
    uint32_t nregions, region;
} rb_prefill_t;

/* Writes incompressible data into file name of run folder rundir up to
 * pf->end (from its current end, or all of it when verify headers are
 * needed), fsyncs it and drops it from the page cache, so that a read phase
 * measures the disk. For a shared file, writes this node's region of it in
 * the shared folder (run_id names it). Adds the bytes written to *written.
 * 0 or -errno. */
int rb_job_prefill(rb_sandbox_t *sb, int rundir, const char *run_id, const char *name,
                   const rb_prefill_t *pf, uint64_t *written, rb_err_t *err);

/* Opens every worker's files (rundirs[j] is job j's run folder), sets up its
 * engine, buffers and ring, and starts the worker threads, which wait until
 * the monotonic clock reads t_go_ns. On failure returns NULL with err set
 * and nothing left running. */
rb_phase_t *rb_phase_start(const rb_phase_spec_t *spec, uint32_t index, rb_sandbox_t *sb,
                           const int *rundirs, const rb_run_ctx_t *ctx, uint64_t t_go_ns,
                           rb_err_t *err);

/* stonewall_time with wearout: 1 when every worker of job j has stopped at
 * its stonewall or finished, with *max_ops the most ops any of them did
 * (reported once: later calls return 0). */
int rb_phase_stonewalled(rb_phase_t *ph, uint32_t j, uint64_t *max_ops);

/* Lets the workers of job j waiting at their stonewall go on until each has
 * done ops operations. */
void rb_phase_wearout(rb_phase_t *ph, uint32_t j, uint64_t ops);

/* Index of the phase in the plan, as given to rb_phase_start. */
uint32_t rb_phase_index(const rb_phase_t *ph);

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
