/* A job's geometry: the names and sizes of its files, where each worker's
 * IO region lies in them, and where this agent stands in the run (rank,
 * lead, peers), which shared files and cross-node reads depend on. Pure
 * functions of the plan: the layout, the prefill and the workloads share them. */
#ifndef RB_JOB_H
#define RB_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "rb_engine.h"
#include "rb_proto.h"

/* Name of file filenum of worker w: the job's filename when set (one file
 * shared by all its workers), else its filename_format expanded ($jobname,
 * $jobnum = w, $filenum). Returns 0, or -ENAMETOOLONG / -EINVAL. */
int rb_job_filename(const rb_job_spec_t *job, uint32_t worker, uint32_t filenum, char *out,
                    size_t len);

/* The job's options for its engine, as rb_engine_init takes them. */
rb_engine_opts_t rb_job_engine_opts(const rb_job_spec_t *job);

/* 1 if the job's engine touches files: all but those flagged
 * RB_ENGINE_F_NO_DATA (null); an unknown engine counts as touching them. */
int rb_job_uses_files(const rb_job_spec_t *job);

/* Gives the file open on fd, which is smaller than end bytes, its size as
 * fio's fallocate=mode (RB_FALLOC_*) does before a job's IO: fallocate(2)
 * of [0, end) (mode 0, or FALLOC_FL_KEEP_SIZE for keep), ftruncate(2) to end
 * (truncate), or nothing (none: writes extend it). A file system that
 * refuses fallocate leaves the file as it is, as in fio; a failed
 * ftruncate is an error, as in fio. 0 or -errno. */
int rb_job_fallocate(int fd, uint32_t mode, uint64_t end);

/* Bytes of IO region in each of the job's files (filesize, or size / nrfiles). */
uint64_t rb_job_filesize(const rb_job_spec_t *job);

/* Where worker w (0 .. numjobs-1 on this agent) starts in a file of its
 * own or the job's filename=: offset + w × offset_increment (fio's). */
uint64_t rb_job_offset(const rb_job_spec_t *job, uint32_t worker);

/* Workers of a job across the run: numjobs on every node for a shared file
 * (they all share one file), else numjobs (each node has its own files). */
uint32_t rb_job_region_count(const rb_job_spec_t *job, uint32_t nnodes);

/* File offset of byte rel (0 <= rel < the job's filesize) of the IO region
 * that worker region (0 .. nregions-1) owns: rb_job_offset(region) + rel
 * for a file of its own (region is then the worker); offset + region * filesize + rel in a
 * segmented shared file; in a strided one, transfer-sized pieces of the regions interleave. *room,
 * when not NULL, gets the bytes from there to the end of the piece. */
uint64_t rb_job_map(const rb_job_spec_t *job, uint32_t nregions, uint32_t region, uint64_t rel,
                    uint64_t *room);

/* Name of the job's shared file, "LEAD." and its first file name. 0 or -errno. */
int rb_job_shared_name(const rb_job_spec_t *job, const char *lead, char *out, size_t len);

/* The directories of the job's directory= list ("/a:/b:/c", fio's ':'
 * list; "" is one, the agent's first root): their count (1 .. RB_DIRS_MAX),
 * the i-th into out (0, or -ENAMETOOLONG / -EINVAL), and which one worker w
 * uses: as in fio, clone w gets w % count, and with filename= (a file its
 * workers share) the first. */
uint32_t rb_job_ndirs(const rb_job_spec_t *job);
int rb_job_dir(const rb_job_spec_t *job, uint32_t i, char *out, size_t len);
uint32_t rb_job_dir_of(const rb_job_spec_t *job, uint32_t worker);

/* The run folder (sandbox index) of worker w of job j, in the per-phase
 * array the agent keeps: RB_DIRS_MAX slots a job, one for each of its
 * directories. */
#define RB_JOB_RUNDIR(rundirs, j, dir) ((rundirs)[(size_t)(j)*RB_DIRS_MAX + (dir)])

/* Where this agent stands in the run: what shared files, cross-node reads
 * and verify headers need. All borrowed. */
typedef struct rb_job_ctx {
    const char *run_id;     /* names the run in verify headers and folder names */
    uint32_t rank;          /* this node's place, 0 .. nnodes-1 */
    uint32_t nnodes;        /* nodes in the run (>= 1) */
    const char *lead;       /* node 0's name: shared files are "LEAD.NAME" */
    const rb_peer_t *peers; /* node names by read_shift */
    uint32_t npeers;
    const uint64_t *caps;  /* per job of the phase: bs blocks of each file there are to
                              read (what a worn-out write left), 0 = all; or NULL */
    uint64_t run_start_ns; /* CLOCK_REALTIME when the agent took the run's PLAN (find -newer) */
    uint32_t thread_base;  /* workers of the plan's phases before this one: fio numbers its
                            * threads across the job file (cpus_allowed_policy=split) */
    struct rb_net_port *net_port; /* network phases: the agent's data port (rb_net.h) ... */
    const uint8_t *net_secret;    /* ... and the run's secret, net_secret_len bytes */
    uint32_t net_secret_len;
} rb_job_ctx_t;

/* Name of the node `shift` places further on, from ctx's peers ("" for 0
 * or an unknown shift: the agent's own files). */
const char *rb_job_peer(const rb_job_ctx_t *ctx, uint32_t shift);

/* read_from=random: sets js's read_shift to how many nodes on this node's
 * source lies in the cycle through ctx's nodes (rb_perm_cycle over nnodes
 * and read_seed; 0 on one node); other jobs are left alone. 0 or -ENOMEM. */
int rb_job_settle_random(rb_job_spec_t *js, const rb_job_ctx_t *ctx);

#endif
