/* One worker of a phase, as the phase runner and the workloads share it:
 * its job, its live counters (single writer, read by the sampler with
 * relaxed atomics), its results and what each workload keeps for its loop.
 * The phase owns the workers; a workload sees only its own. */
#ifndef RB_WORKER_H
#define RB_WORKER_H

#include <pthread.h>
#include <stdint.h>

#include "rb_dist.h"
#include "rb_engine.h"
#include "rb_fill.h"
#include "rb_hist.h"
#include "rb_minrate.h"
#include "rb_perm.h"
#include "rb_proto.h"
#include "rb_rand.h"

/* Relaxed loads and stores of the counters the sampler reads while the worker runs. */
#define RB_WORKER_LOAD(p)     __atomic_load_n((p), __ATOMIC_RELAXED)
#define RB_WORKER_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define RB_WORKER_ADD(p, v)   RB_WORKER_STORE((p), RB_WORKER_LOAD(p) + (v))

/* The longest a worker sleeps without looking at its phase's stop flag (a
 * rate wait, the wait for GO): what ABORT, a lost coordinator or a signal
 * wait for at most. */
#define RB_WORKER_SLICE_NS (20ULL * 1000 * 1000)

/* One open file of the data workload. */
typedef struct rb_worker_file {
    int fd;
    uint64_t hash;          /* rb_verify_hash(name) */
    uint64_t cursor[3];     /* next sequential offset of reads [0], writes [1], trims [2] */
    uint64_t start[3];      /* where the last IO of each direction began (in the region) */
    uint64_t last[3];       /* trimwrite: where the last IO of each direction began
                             * (UINT64_MAX: none yet this pass), fio's last_start */
    int blkdev;             /* a block device (trims are BLKDISCARD), not a file */
    uint64_t real_size;     /* a device's size, or a file's the job takes its size from
                             * (fio's real_file_size); 0: the range's end */
    int dirty;              /* written since the last fsync */
    int taken;              /* openfiles: among the files the round robin goes over */
    uint64_t wfirst, wlast; /* sync_file_range: written since the last sync, from here to
                             * there, as fio's first_write, last_write (equal: none) */
    char path[RB_PATH_MAX]; /* for messages */
} rb_worker_file_t;

/* What the data workload keeps per IO slot beside the engine's rb_engine_io_t. */
typedef struct rb_worker_slot {
    void *base;    /* the slot's buffer */
    uint64_t off0; /* offset of the whole IO (for partial completions) */
    uint64_t len0; /* length of the whole IO */
} rb_worker_slot_t;

struct rb_sandbox;

/* fio's flow: the counter the workers of one flow_id share on this agent. */
typedef struct rb_flow {
    uint32_t id;     /* flow_id */
    uint32_t weight; /* the flow of its running workers added, wrapping as fio's (atomic) */
    uint64_t count;  /* 1 + the IOs its running workers let through (atomic) */
} rb_flow_t;

/* Where a phase's workers wait, set up, until its GO (or a stop): t_go is
 * written under mu before open is set and cv broadcast. */
typedef struct rb_gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int open;
    uint32_t warm;     /* workers whose warm() is done (they wait at the gate) */
    uint32_t warming;  /* workers in warm() now ... */
    uint32_t warm_max; /* ... at most this many at once (the CPUs) */
} rb_gate_t;

typedef struct rb_worker {
    /* given by the phase */
    const rb_job_spec_t *spec;  /* borrowed from the phase spec */
    uint32_t job;               /* index of spec in the phase */
    uint32_t index;             /* 0 .. numjobs-1 */
    uint32_t thread_no;         /* its place among the plan's workers on this agent, from 0 */
    const uint64_t *peer_seeds; /* every worker's seed in the phase, borrowed (dedupe_global) */
    uint32_t npeers;            /* workers in the phase */
    uint32_t peer;              /* this worker's place among them, from 0 */
    const int *stop;            /* the phase's stop flag (relaxed atomic) */
    uint64_t *target;           /* wearout ops for the job: UINT64_MAX until told (atomic) */
    uint64_t t_go;              /* local monotonic start time, once the gate is open */
    rb_gate_t *gate;            /* the phase's: the worker waits there until GO */
    const struct rb_worker *wait_first; /* wait_for: the first worker of the job it waits for */
    uint32_t wait_n;                    /* ... and that job's workers (0: it waits for none) */
    rb_flow_t *flow;                    /* flow: its flow_id's counter (NULL: none) */
    uint64_t flow_count;                /* flow: the IOs it let through */
    int flow_held;                      /* flow: the last IO was held back */
    uint64_t delay_ns;    /* startdelay drawn for this worker: it starts at t_go + this */
    uint64_t run_hash;    /* rb_verify_hash(run id) */
    uint32_t nregions;    /* workers sharing the IO layout (rb_job_map) */
    uint32_t region;      /* whose region this worker's IOs go to */
    uint32_t node_tag;    /* rank + 1 of this node: stamped in verify headers */
    uint32_t expect;      /* rank + 1 of the node whose data reads must find */
    rb_rand_t rng;        /* offsets, sizes, read/write choice, buffer refills */
    rb_fill_t fill;       /* buffers that compress or dedupe as asked (rb_fill_wanted) */
    rb_rand_t prio_rng;   /* cmdprio: which IOs carry a priority */
    uint64_t prio_ios[2]; /* cmdprio: reads and writes issued with a priority ... */
    uint64_t prio_of[2];  /* ... of the reads and writes drawn for */
    void *bufs;           /* the workload's buffers, aligned */
    uint64_t bufs_len;    /* ... their bytes, filled by the workload's warm() */
    rb_rand_t bufs_rng;   /* ... with these random bytes (buffer_mode=random) */
    pthread_t thread;
    int started;      /* thread was created */
    int fini_done;    /* its workload's fini ran, in its own thread */
    void *pinned;     /* lockmem: the memory it pinned ... */
    uint64_t npinned; /* ... and how much */
    /* verify_backlog, or a mix with verify: blocks written and not yet read
     * back, in fio's order (rb_data_backlog.c) */
    struct rb_worker_vb {
        uint32_t file;
        uint32_t len;
        uint64_t off;
    } * vb_hist;
    uint32_t vb_len, vb_cap; /* entries held, room */
    uint32_t vb_most;        /* room it may grow to */
    uint32_t vb_batch;       /* reads still due of the current batch */
    uint64_t vb_bytes;       /* read back so far (fio counts them toward io_size) */
    void *vb_buf;            /* the read back's buffer, aligned */
    /* data workload: files, engine and IO ring */
    uint32_t nfiles;
    rb_worker_file_t *files;
    rb_engine_t eng;
    int eng_ready;       /* rb_engine_init succeeded */
    uint32_t depth;      /* == spec->iodepth */
    rb_engine_io_t *ios; /* depth slots */
    rb_worker_slot_t *slots;
    rb_engine_io_t **free; /* stack of free slots */
    uint32_t nfree;
    rb_engine_io_t **retry; /* stack of short IOs' rests the engine answered BUSY for */
    uint32_t nretry;
    rb_engine_io_t **done;   /* scratch for getevents */
    rb_engine_io_t **unsent; /* queued, not yet submitted (iodepth_batch_submit) */
    uint32_t nunsent;
    uint32_t batch_submit;  /* submit once this many are queued (1 .. depth) */
    rb_perm_t perm;         /* random pass order */
    uint64_t units;         /* bs-sized units per pass, all files */
    uint64_t unit_per_file; /* bs-sized units in each file */
    uint64_t next_unit;     /* position in the pass */
    uint64_t *covered;      /* random pass with IOs of several sizes: blocks done, a bit
                             * each, file by file (file * unit_per_file + block) */
    uint64_t *full;         /* ... a bit per word of covered that is all done */
    uint64_t ncovered;      /* blocks done in this pass */
    rb_dist_t *dist;        /* random_distribution: a generator per direction, or NULL */
    uint64_t seq_count;     /* rw=randX:N: IOs of the pass so far (every N-th seeks) */
    int seq_end;            /* holes: the pass ended at its range's end, not on its bytes */
    uint32_t seq_file;      /* the file of the last IO (rw=randX:N goes on in it) */
    uint64_t pass_bytes;    /* bytes issued in this pass (norandommap ends on them) */
    uint32_t ntaken;        /* openfiles: files the round robin goes over now */
    uint32_t fs_file;       /* file_service_type: the file whose turn it is ... */
    uint32_t fs_left;       /* ... and the IOs it has left (sequential: 1 until done) */
    /* zonemode=strided: the walk over the zones of the worker's range */
    uint64_t zone_start; /* where the zone begins (in the region, as cursor[]) */
    uint64_t zone_bytes; /* bytes issued in the zone, fio's zone_bytes */
    int zone_restart;    /* 1: the next IO begins the walk again at the range's start */
    /* zonemode=zbd: the zones of its file, shared on the agent (rb_data_zbd.c) */
    struct rb_zbd *zbd;        /* NULL: no zbd */
    uint64_t zbd_shift;        /* its offset, rounded up to a zone as fio rounds it */
    uint64_t zbd_lo, zbd_len;  /* its range in the file: fio's file_offset and io_size */
    uint32_t zbd_min, zbd_max; /* its zones: the first, and the first past the range */
    int32_t zbd_nopen;         /* zones it opened less those it closed (job_max_open_zones) */
    uint64_t zbd_minbs[3];     /* the smallest read, write and trim (fio's min_bs) */
    uint64_t zbd_resets;       /* zones it reset */
    uint64_t pass;             /* passes begun */
    uint64_t rate_start;       /* rate limiting: origin and bytes issued since */
    uint64_t rate_bytes[3];    /* ... per direction (reads, writes, trims), as fio caps each */
    uint64_t rate_ios[3];
    rb_minrate_t minrate[2]; /* rate_min / rate_iops_min: reads' and writes' floors */
    int minrate_on;          /* 1: some floor is set */
    /* randtrimwrite: the write that goes where the last trim went */
    int tw_due;       /* 1 while it is not issued */
    uint32_t tw_file; /* its file, offset (in the file) and length */
    uint64_t tw_off, tw_len;
    uint64_t writes_issued; /* fsync=N and the like count writes issued ... */
    int sync_due;           /* ... and 1 + the kind of sync due (rb_data_sync_due), or 0 */
    uint64_t think_done;    /* thinktime: IOs completed (ramp-up too, as fio counts) ... */
    uint64_t think_last;    /* ... and the count (completed or issued) at the last think */
    uint64_t think_t;       /* thinktime_iotime: when the worker began, or its last think ended */
    /* latency_target (rb_data_lat.c): the depth searched for, as fio's */
    uint32_t lat_qd;       /* IOs allowed in flight (iodepth without a target) */
    uint32_t lat_qd_high;  /* the search's bounds: a depth that failed ... */
    uint32_t lat_qd_low;   /* ... and one that held */
    uint64_t lat_ts;       /* the window's start */
    uint64_t lat_ios;      /* IOs completed before the window */
    uint64_t lat_failed;   /* of the window's IOs, those above the target */
    int lat_end_run;       /* 1: the depth is found, its last window runs */
    int lat_quiesce;       /* 1: a failure lowered the depth: drain, new window */
    uint64_t issued_bytes; /* bytes issued since the start (io_size counts them) */
    uint64_t byte_limit;   /* io_size × loops: stop issuing there (UINT64_MAX: none) */
    uint64_t ios_limit;    /* number_ios × loops: counted and in-flight IOs to stop at */
    struct rb_sandbox *sb; /* where its files are, to remove them (unlink) ... */
    int rundir;            /* ... in this run folder ... */
    int oflags;            /* ... and open them anew (unlink_each_loop) */
    /* network workload (network=): the phase's links and streams (rb_net.h) */
    struct rb_net_phase *net;
    /* metadata workload (rw=meta) */
    int *mdirs; /* leaf directories the files spread over */
    uint32_t nmdirs;
    char mpath[RB_PATH_MAX];       /* the file set's folder, for messages */
    char mprefix[RB_NAME_MAX * 2]; /* file names start with this */
    uint64_t mcount;               /* items of this step: meta_files, or what a stonewalled
                                    * create step left */
    int mtop;                      /* the worker's own folder (tree steps), or -1 */
    uint64_t since_ns;             /* find -newer: the run's start, CLOCK_REALTIME */
    uint64_t found;                /* find: files that matched (the worker's own) */
    /* the measured window, set at GO */
    uint64_t count_from;             /* IOs completing before this are ramp-up */
    uint64_t deadline;               /* stop issuing at this time */
    uint64_t sw_at;                  /* stonewall_time: stop issuing at this time */
    uint64_t op_limit;               /* wearout: stop issuing once this many ops are done */
    uint64_t sw_t, sw_bytes, sw_ops; /* at the stonewall (sw_t 0: never reached) */
    int sw_wait;                     /* release-stored 1 while waiting for the wearout target */
    /* live, written by the worker, read by the sampler (relaxed atomics) */
    /* Reads and writes count apart, so any snapshot is consistent: the
     * totals are sums, never a total and a part read at different times. */
    uint64_t rbytes, wbytes, tbytes, rops, wops, tops, errors, verify_errors;
    int finished; /* release-stored 1 at the end */
    /* per-IO latency, ns, of reads, writes and trims (rb_dir_t): fio's lat,
     * slat and clat (rb_lat_kind_t); slat only for IOs the engine queued */
    rb_hist_t lat[RB_NDIRS][RB_NLATS];
    /* results, read after join */
    uint64_t t_start, t_end;
    int status;      /* 0 or -errno of the first failure */
    int halt;        /* stop issuing: an IO error, or verify_fatal */
    int first_error; /* -errno of the first error the job went on after (0: none) */
    char error[RB_REASON_MAX];
    char error_path[RB_PATH_MAX];
    uint64_t error_offset;
    rb_checkpt_t *cp; /* RB_MAX_CHECKPTS entries */
    uint32_t ncp;
    uint64_t cp_step; /* current checkpoint spacing, ns */
    uint64_t last_cp;
} rb_worker_t;

/* Records the first failure of the worker (code, "what at offset off of
 * path", or just "what" with path NULL: a failure at no place in a file);
 * later ones only count. */
void rb_worker_fail(rb_worker_t *w, int code, const char *path, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* fio's continue_on_error and ignore_error: 1, with the error counted, when
 * the job goes on after errno err of class cls (an RB_ERR_CLASS_*); 0 when
 * it is the worker's failure. */
int rb_worker_goes_on(rb_worker_t *w, unsigned cls, int err);

/* Adds a progress checkpoint (t, bytes so far), thinning the list when full. */
void rb_worker_checkpoint(rb_worker_t *w, uint64_t t, uint64_t bytes);

/* slat_ns of an IO that completed in its submission (a synchronous engine). */
#define RB_WORKER_NO_SLAT UINT64_MAX

/* The worker's operations and bytes so far, all directions (worker's own view). */
static inline uint64_t rb_worker_ops(const rb_worker_t *w)
{
    return w->rops + w->wops + w->tops;
}

static inline uint64_t rb_worker_bytes(const rb_worker_t *w)
{
    return w->rbytes + w->wbytes + w->tbytes;
}

/* Counts one measured operation (direction dir, rb_dir_t) of bytes that took lat_ns (prepared to
 * completed) and ended at now, of which slat_ns from its preparation to its
 * submission (RB_WORKER_NO_SLAT: done in the submission, clat is lat):
 * histograms, counters, end time, checkpoint when due. Inline: it runs once
 * an IO, and a call into another file cost the null engine 4% at depth 1. */
static inline void rb_worker_count(rb_worker_t *w, int dir, uint64_t bytes, uint64_t lat_ns,
                                   uint64_t slat_ns, uint64_t now)
{
    rb_hist_t *h = w->lat[dir];
    /* An IO without slat has clat = lat: while a direction has no slat at
     * all, clat is not recorded apart and the sampler takes lat for it
     * (rb_worker_clat), one histogram less on the path of synchronous
     * engines. An engine answers the same way every time, but should one
     * mix, clat becomes lat so far at its first slat and is recorded since. */
    if (slat_ns != RB_WORKER_NO_SLAT) {
        if (slat_ns > lat_ns)
            slat_ns = lat_ns;
        if (!h[RB_LAT_SLAT].count && h[RB_LAT_LAT].count)
            rb_hist_snapshot(&h[RB_LAT_CLAT], &h[RB_LAT_LAT]);
        rb_hist_record(&h[RB_LAT_SLAT], slat_ns);
        rb_hist_record(&h[RB_LAT_CLAT], lat_ns - slat_ns);
    } else if (h[RB_LAT_SLAT].count) {
        rb_hist_record(&h[RB_LAT_CLAT], lat_ns);
    }
    rb_hist_record(&h[RB_LAT_LAT], lat_ns);
    if (dir == RB_DIR_READ) {
        RB_WORKER_ADD(&w->rbytes, bytes);
        RB_WORKER_ADD(&w->rops, 1);
    } else if (dir == RB_DIR_WRITE) {
        RB_WORKER_ADD(&w->wbytes, bytes);
        RB_WORKER_ADD(&w->wops, 1);
    } else {
        RB_WORKER_ADD(&w->tbytes, bytes);
        RB_WORKER_ADD(&w->tops, 1);
    }
    w->t_end = now;
    if (now - w->last_cp >= w->cp_step)
        rb_worker_checkpoint(w, now, rb_worker_bytes(w));
}

/* The histogram that holds the clat of direction d (rb_dir_t) of
 * w: its lat while the direction has no slat (rb_worker_count). */
static inline const rb_hist_t *rb_worker_clat(const rb_worker_t *w, int d)
{
    return RB_WORKER_LOAD(&w->lat[d][RB_LAT_SLAT].count) ? &w->lat[d][RB_LAT_CLAT]
                                                         : &w->lat[d][RB_LAT_LAT];
}

/* len bytes (at least one page) aligned for O_DIRECT, or NULL; free() them. */
void *rb_worker_aligned(size_t len);

/* 1 once the phase asked its workers to stop. */
static inline int rb_worker_stopped(const rb_worker_t *w)
{
    return RB_WORKER_LOAD(w->stop);
}

/* At the stonewall with wearout: publishes that the worker waits, then waits
 * for the op count its job goes on to. 1 with w->op_limit set, 0 when the
 * phase was stopped meanwhile. */
int rb_worker_wait_target(rb_worker_t *w);

/* Sleeps until the monotonic clock reads t_ns, in slices of at most
 * RB_WORKER_SLICE_NS so that a stop of the phase ends the sleep within one
 * slice. 0 once t_ns is reached, -ECANCELED when the phase stopped first. */
int rb_worker_sleep_until(const rb_worker_t *w, uint64_t t_ns);

/* wait_for: waits until every worker of the job w waits for has ended. 0
 * then, -ECANCELED when the phase stopped first. */
int rb_worker_wait_for(const rb_worker_t *w);

/* The bytes a worker of a job with that lockmem pins on a host of ram
 * bytes: at most the host's memory less 128 MiB, as fio. */
uint64_t rb_worker_lockmem_bytes(uint64_t lockmem, uint64_t ram);

/* fio's lockmem: pins the job's lockmem bytes (mmap, mlock) for w, as
 * rb_worker_lockmem_bytes says. 0, or -errno with w failed. */
int rb_worker_lockmem(rb_worker_t *w);

/* Lets go of what rb_worker_lockmem pinned; nothing when nothing is. */
void rb_worker_unlockmem(rb_worker_t *w);

/* flow: w joins (its weight counts) or leaves (its weight and its IOs no
 * longer count) its flow's counter; nothing without a flow. */
void rb_worker_flow_join(rb_worker_t *w);
void rb_worker_flow_leave(rb_worker_t *w);

/* flow, before each new IO: 1 when w is ahead of its share of the flow's
 * IOs (the IO waits); else 0, the IO counted in w's and the flow's counts. */
int rb_worker_flow_held(rb_worker_t *w);

#endif
