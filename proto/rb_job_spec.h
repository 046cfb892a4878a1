/* The workload a plan describes, as the plan parser makes it and the agent
 * runs it: the enums of its options, one job (rb_job_spec_t) and one phase
 * (rb_phase_spec_t). Part of the wire protocol: rb_proto.h includes it, and
 * its layout on the wire is in rb_proto.c. */
#ifndef RB_JOB_SPEC_H
#define RB_JOB_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "rb_cpus.h"
#include "rb_limits.h"
#include "rb_steady.h"
/* ---- workload description, shared by the plan parser and the agent ---- */

/* Access patterns, fio's names plus iozone's rewrite and reread. */
#define RB_FS_SEQUENTIAL UINT32_MAX /* fs_nr: each file until it is done */

typedef enum {
    RB_RW_NONE = 0,
    RB_RW_READ = 1,      /* "read": sequential read */
    RB_RW_WRITE = 2,     /* "write": sequential write */
    RB_RW_RANDREAD = 3,  /* "randread" */
    RB_RW_RANDWRITE = 4, /* "randwrite" */
    RB_RW_RW = 5,        /* "rw" (fio also accepts "readwrite"): sequential mixed */
    RB_RW_RANDRW = 6,    /* "randrw": random mixed */
    RB_RW_REWRITE = 7,   /* "rewrite": sequential write over files that exist */
    RB_RW_REREAD = 8,    /* "reread": sequential read again, reported on its own */
    RB_RW_META = 9,      /* "meta": one metadata operation on many small files */
    /* version 13: fio's trims (BLKDISCARD on a device, a punched hole in a file) */
    RB_RW_TRIM = 10,          /* "trim": sequential trims */
    RB_RW_RANDTRIM = 11,      /* "randtrim": random trims */
    RB_RW_TRIMWRITE = 12,     /* "trimwrite": each block trimmed, then written */
    RB_RW_RANDTRIMWRITE = 13, /* "randtrimwrite": the same at random offsets */
} rb_rw_t;

/* The operation of a metadata step (rw=meta); one per phase. */
typedef enum {
    RB_META_NONE = 0,
    RB_META_CREATE = 1, /* "create": create (and write meta_filesize bytes) */
    RB_META_STAT = 2,   /* "stat" */
    RB_META_READ = 3,   /* "read": open, read meta_filesize bytes, close */
    RB_META_WRITE = 4,  /* "write": open, write meta_filesize bytes, close */
    RB_META_RENAME = 5, /* "rename": to the same name with ".r" appended */
    RB_META_DELETE = 6, /* "delete" */
    /* version 9: mdtest's directory and tree phases */
    RB_META_MKDIR = 7,   /* "mkdir": make meta_files directories (items, as mdtest -D) */
    RB_META_STATDIR = 8, /* "statdir": stat() each of those directories */
    RB_META_RMDIR = 9,   /* "rmdir": remove them */
    RB_META_MKTREE = 10, /* "mktree": make the worker's folder and its tree (or flat dirs) */
    RB_META_RMTREE = 11, /* "rmtree": remove them, leaves first */
    /* version 19: IO500's find */
    RB_META_FIND = 12, /* "find": stat() each file, count those matching meta_find_* */
} rb_meta_op_t;

/* Name of an access pattern ("read"); NULL if unknown. And back: RB_RW_NONE if unknown. */
const char *rb_rw_name(rb_rw_t rw);
rb_rw_t rb_rw_parse(const char *s);

/* Name of a metadata operation ("create"); NULL if unknown. And back. */
const char *rb_meta_op_name(rb_meta_op_t op);
rb_meta_op_t rb_meta_op_parse(const char *s);

/* 1 for the steps that only look at a file set (stat, read, statdir: they
 * may work on another node's, read_from); 1 for those that make its items
 * (create, mkdir: meta_stonewall stops them); 1 for the tree steps. */
int rb_meta_op_looks(rb_meta_op_t op);
int rb_meta_op_creates(rb_meta_op_t op);
int rb_meta_op_tree(rb_meta_op_t op);

/* 1 if the pattern reads / writes / trims / picks offsets at random. */
int rb_rw_reads(rb_rw_t rw);
int rb_rw_writes(rb_rw_t rw);
int rb_rw_trims(rb_rw_t rw);
int rb_rw_random(rb_rw_t rw);

/* What write buffers hold. */
typedef enum {
    RB_BUF_RANDOM = 0,  /* incompressible random bytes (default) */
    RB_BUF_ZERO = 1,    /* zero_buffers */
    RB_BUF_PATTERN = 2, /* buffer_pattern repeated */
} rb_buf_mode_t;

/* How writes reach stable storage. */
typedef enum {
    RB_SYNC_NONE = 0,
    RB_SYNC_SYNC = 1,  /* O_SYNC (fio sync=1) */
    RB_SYNC_DSYNC = 2, /* O_DSYNC (fio dsync=1) */
} rb_sync_mode_t;

/* fio's verify methods (version 17: all but crc32c). */
typedef enum {
    RB_VERIFY_NONE = 0,
    RB_VERIFY_CRC32C = 1,
    RB_VERIFY_MD5 = 2,
    RB_VERIFY_CRC32 = 3,
    RB_VERIFY_CRC64 = 4,
    RB_VERIFY_SHA1 = 5,
    RB_VERIFY_SHA256 = 6,
    RB_VERIFY_SHA512 = 7,
    RB_VERIFY_XXHASH = 8,
    RB_VERIFY_CRC16 = 9,
    RB_VERIFY_CRC7 = 10,
    RB_VERIFY_META = 11,    /* the header alone: where, which run, which pass */
    RB_VERIFY_PATTERN = 12, /* verify_pattern and nothing else */
    RB_VERIFY_NULL = 13,    /* reads back, checks nothing */
} rb_verify_t;

/* Name of a verify method ("md5"); NULL if unknown. */
const char *rb_verify_name(rb_verify_t t);

#define RB_VERIFY_HDR 48u /* bytes of a verify header (agent/job/rb_verify.c) */

/* Bytes of method t's checksum (0: it has none). */
uint32_t rb_verify_sum_len(rb_verify_t t);

/* Bytes at the start of each verify interval that t writes there: the header
 * and, but for crc32c (its checksum is in the header), the checksum after
 * it; 0 for pattern, null and none. */
uint32_t rb_verify_hdr_len(rb_verify_t t);

/* The classes of IO errors of fio's continue_on_error and ignore_error. */
typedef enum rb_err_class {
    RB_ERR_CLASS_READ = 1,   /* a read's error */
    RB_ERR_CLASS_WRITE = 2,  /* a write's or a trim's */
    RB_ERR_CLASS_VERIFY = 4, /* a block whose verify failed (fio's EILSEQ) */
    RB_ERR_CLASS_ALL = 7,
} rb_err_class_t;

/* fio's exit_what: whom a job with exitall ends when one of its workers
 * ends, on that node. A phase is a stonewall group, so group and stonewall
 * end the same workers here. */
typedef enum {
    RB_EXIT_GROUP = 0,     /* "group": the phase's other workers */
    RB_EXIT_STONEWALL = 1, /* "stonewall": every running worker, the phase's */
    RB_EXIT_ALL = 2,       /* "all": those, and the node's later phases do no IO */
} rb_exit_what_t;

/* fio's dedupe_mode: what a write buffer chosen to repeat (dedupe_pct)
 * holds. */
typedef enum {
    RB_DEDUPE_REPEAT = 0,      /* "repeat": the worker's last unique buffer */
    RB_DEDUPE_WORKING_SET = 1, /* "working_set": a page drawn from a working set */
} rb_dedupe_mode_t;

/* fio's default dedupe_working_set_percentage. */
#define RB_DEDUPE_WS_PCT_DEF 5

/* How the workers of all nodes share one file (shared_file=1), IOR's N-1. */
typedef enum {
    RB_LAYOUT_SEGMENTED = 0, /* "segmented": each worker owns one contiguous segment */
    RB_LAYOUT_STRIDED = 1,   /* "strided": transfer-sized pieces interleave across workers */
} rb_layout_mode_t;

/* Name of a shared-file layout ("strided"); NULL if unknown. And back (-1 if unknown). */
const char *rb_layout_mode_name(rb_layout_mode_t m);
int rb_layout_mode_parse(const char *s);

/* One entry of bssplit: perc percent of a direction's IOs are bs bytes. */
typedef struct rb_bs_part {
    uint64_t bs;
    uint32_t perc; /* 1..100 */
} rb_bs_part_t;

/* One entry of fio's per-IO priorities (cmdprio_percentage, cmdprio_bssplit):
 * perc percent of a direction's IOs of bs bytes (0: of any size) go with the
 * priority prio (class << 13 | level), the entries of one size taking their
 * shares one after another. */
typedef struct rb_cmdprio {
    uint64_t bs;   /* the IO size it applies to; 0: every size */
    uint32_t perc; /* 1..100, the entries of one size together at most 100 */
    uint32_t prio; /* RB_IOPRIO_MAX at most */
} rb_cmdprio_t;

/* One zone of random_distribution=zoned (size in % of the range, 0 .. 100)
 * or zoned_abs (size in bytes): access percent of a direction's IOs fall
 * in it, the zones following one another from the start of the range. */
typedef struct rb_zone {
    uint64_t size;
    uint32_t access; /* 0 .. 100 */
} rb_zone_t;

/* One job of a phase: what each of its numjobs workers does on every agent.
 * Sizes in bytes, times in ns; field meanings follow fio's options of the same name. */
typedef struct rb_job_spec {
    char name[RB_NAME_MAX]; /* section name in the plan */
    rb_rw_t rw;             /* access pattern */
    uint64_t bs;            /* bytes per IO (smallest, with bsrange) */
    uint64_t bs_max;        /* largest IO with bsrange; == bs without */
    /* per direction (fio's bs=R,W, bsrange=R,W, bssplit=R,W); bs and bs_max
     * are the smallest and largest of them all (offsets are in units of bs) */
    uint64_t bs_read, bs_read_max;              /* reads: smallest and largest IO */
    uint64_t bs_write, bs_write_max;            /* writes: smallest and largest IO */
    uint32_t nbssplit_read, nbssplit_write;     /* 0: no bssplit for it */
    rb_bs_part_t bssplit_read[RB_BSSPLIT_MAX];  /* weights of reads' sizes */
    rb_bs_part_t bssplit_write[RB_BSSPLIT_MAX]; /* weights of writes' sizes */
    uint64_t bs_trim, bs_trim_max;              /* version 13: trims' smallest and largest */
    uint64_t size;                              /* bytes of IO per worker per pass, all files */
    uint32_t numjobs;                           /* workers per agent */
    uint8_t direct;                             /* 1 = O_DIRECT */
    uint8_t time_based;                         /* 1 = loop over size until runtime */
    uint64_t runtime_ns;                        /* 0 = no time limit */
    char directory[RB_PATH_MAX];                /* "" = the agent's first root */
    char filename_format[RB_NAME_MAX];          /* "$jobname.$jobnum.$filenum" style */
    char filename[RB_NAME_MAX]; /* fio filename=: one file shared by all workers ("" = none) */
    /* fio filename= naming raw block devices (version 6): "/dev/X", "/dev/X:/dev/Y"
     * (each worker's files, round robin) or "@devices" (the agent's allowed idle ones);
     * "" = none. size 0 then means each device's size. */
    char device[RB_PATH_MAX];
    char ioengine[RB_ENGINE_NAME_MAX]; /* "sync", "libaio", "io_uring", "null" */
    uint32_t iodepth;                  /* IOs in flight per worker, >= 1 */
    uint32_t rwmixread;                /* % reads of a mixed pattern (0..100) */
    uint32_t nrfiles;                  /* files per worker, >= 1 */
    uint64_t filesize;                 /* bytes per file; 0 = size / nrfiles */
    uint64_t offset;                   /* start of IO in each file */
    rb_sync_mode_t sync_mode;          /* O_SYNC / O_DSYNC */
    uint32_t fsync_every;              /* fsync after this many writes (0 = never) */
    uint32_t fdatasync_every;          /* fdatasync after this many writes (0 = never) */
    uint8_t end_fsync;                 /* fsync every file when the job's IO is done */
    uint8_t fsync_on_close;            /* fsync a file before closing it */
    uint64_t ramp_ns;                  /* run this long before counting anything */
    uint32_t loops;                    /* passes over the files (>= 1; ignored when time_based) */
    uint8_t randrepeat;                /* 1 = the same random sequence every run */
    uint64_t randseed;                 /* seed of the random sequence */
    uint8_t norandommap;               /* 1 = random offsets may repeat within a pass */
    uint8_t overwrite;                 /* lay files out before GO so writes overwrite */
    rb_buf_mode_t buffer_mode;         /* what write buffers hold */
    uint8_t refill_buffers;            /* new random contents for every write */
    uint32_t pattern_len;              /* bytes of pattern used */
    uint8_t pattern[RB_PATTERN_MAX];   /* buffer_pattern bytes */
    rb_verify_t verify;                /* block header + checksum on writes, checked on reads */
    uint8_t do_verify;                 /* read back and check after a write job (fio do_verify) */
    uint8_t verify_fatal;              /* stop the worker at the first mismatch */
    uint64_t verify_interval;          /* bytes each verify header covers (0: the block) */
    uint64_t verify_offset;            /* the header swapped with the data at this offset */
    uint64_t pattern_ofs;              /* bit i: pattern[i..i+8) holds the block's offset (%o) */
    uint64_t rate;                     /* reads' bytes/s cap per worker (0 = none) */
    /* fio's limits of a worker's IO, its start and its files (version 5) */
    uint64_t number_ios;        /* stop after number_ios × loops IOs (0 = no limit) */
    uint64_t io_size;           /* do io_size × loops bytes, looping over size (0 = size) */
    uint8_t unlink;             /* remove the job's files when each worker is done */
    uint8_t unlink_each_loop;   /* remove and make them anew before each pass but the first */
    uint64_t startdelay_ns;     /* each worker starts this long after GO, or, a range ... */
    uint64_t startdelay_max_ns; /* ... at a random point up to this (>= startdelay_ns) */
    uint64_t offset_increment; /* worker k (0 .. numjobs-1, per agent) starts at offset + k × it */
    /* fio's rate=R,W and rate_iops=R,W: each direction on its own (rate is reads') */
    uint64_t rate_write;      /* writes' bytes/s cap per worker (0 = none) */
    uint64_t rate_iops;       /* reads' IOs/s cap per worker (0 = none) */
    uint64_t rate_iops_write; /* writes' IOs/s cap per worker (0 = none) */
    /* fio's thinktime (version 10): after thinktime_blocks IOs (completed, or
     * issued), wait for every IO in flight, spin thinktime_spin_ns, then
     * sleep the rest of thinktime_ns */
    uint64_t thinktime_ns;      /* 0: no thinking */
    uint64_t thinktime_spin_ns; /* of it, busy (CPU) */
    uint32_t thinktime_blocks;  /* IOs between thinks (0 is read as 1) */
    uint8_t thinktime_issued;   /* 1: count IOs issued, 0: completed (fio's default) */
    /* fio's size=N% and offset=N% of a device (version 16), settled by the
     * agent that holds it: 0, or 1 .. 100 with size (offset) 0 */
    uint32_t size_pct;   /* each device's IO region: N% of it, from the offset on */
    uint32_t offset_pct; /* IO starts at N% of the device, rounded up to bs */
    /* fio's page cache advice when a worker opens a file (version 16) */
    uint8_t invalidate;    /* 1: drop the file's cached pages of the job's region first */
    uint32_t fadvise_hint; /* RB_FADVISE_*: the access advice given then */
    /* fio's fallocate (version 20): how a file is given its size before IO */
    uint32_t fallocate; /* RB_FALLOC_* */
    /* fio's cpus_allowed (cpumask) and cpus_allowed_policy (version 20) */
    uint8_t cpus[RB_CPUS_BYTES]; /* the CPUs its workers may run on (rb_cpus.h) ... */
    uint32_t cpus_len;           /* ... in this many bytes; 0: none set, no affinity */
    uint8_t cpus_split;          /* 1: each worker on one of them, round robin (fio's split) */
    /* fio's random_distribution (version 18): where random IOs fall */
    uint32_t rand_dist;                 /* rb_dist_kind_t; RB_DIST_RANDOM: uniform */
    uint32_t rand_dist_ppm;             /* zipf's theta, pareto's h, normal's %: millionths */
    uint32_t nzones_read, nzones_write; /* zoned, zoned_abs: zones of reads, writes ... */
    uint32_t nzones_trim;               /* ... and trims */
    rb_zone_t zones_read[RB_ZONES_MAX]; /* the zones of each direction */
    rb_zone_t zones_write[RB_ZONES_MAX];
    rb_zone_t zones_trim[RB_ZONES_MAX];
    /* fio's rw=X:N, rw_sequencer and percentage_sequential (version 18) */
    uint64_t seq_add;      /* sequential: bytes skipped after each IO (rw=write:4k) ... */
    uint8_t seq_back;      /* ... 1: moved back by instead (rw=read:-8k, backwards) */
    uint32_t seq_nr;       /* random: a new random offset every seq_nr IOs (0, 1: each) */
    uint8_t seq_identical; /* rw_sequencer=identical: the IOs between repeat the last offset */
    uint32_t perc_seq_read, perc_seq_write; /* percentage_sequential of a random job's ... */
    uint32_t perc_seq_trim;                 /* ... reads, writes and trims, 0 .. 100 */
    uint64_t ba_read, ba_write, ba_trim;    /* blockalign: random offsets' multiple (0: bs) */
    /* rw=meta: filename_format names the file set shared by a job's steps */
    rb_meta_op_t meta_op;   /* this step's operation */
    uint64_t meta_files;    /* files per worker */
    uint64_t meta_filesize; /* bytes written at create/write (mdtest -w) */
    uint64_t meta_readsize; /* bytes read at read (mdtest -e; version 9) */
    uint32_t meta_dirs;     /* flat directories per worker the files spread over */
    uint32_t meta_depth;    /* directory tree depth (0 = flat) */
    uint32_t meta_branch;   /* directories per tree level */
    uint8_t meta_random;    /* files in a random permutation, else in order */
    uint8_t meta_shared;    /* one directory for all workers of all nodes */
    uint8_t meta_sync;      /* fsync each file and its directory */
    uint8_t meta_renamed;   /* an earlier step renamed the files */
    /* version 19: what a find step matches (IO500's find -name -size -newer) */
    char meta_find_name[RB_NAME_MAX]; /* fnmatch pattern of the file's name ("" = any) */
    uint64_t meta_find_size;          /* exact bytes (0 = any size) */
    uint8_t meta_find_newer;          /* modified after the run's start */
    /* version 20: fio's zonemode=strided (zone_size 0: none) */
    uint64_t zone_size;  /* bytes of IO in a zone before the next one */
    uint64_t zone_range; /* the zone's span, its IOs within it (0: zone_size) */
    uint64_t zone_skip;  /* bytes skipped between one zone's range and the next */
    /* fio's steadystate (version 20): each agent ends the job once its
     * workers' summed figure, sampled once a second, held steady over
     * ss_dur_ns (rb_steady.h); ss_dur_ns 0: no judgement */
    uint32_t ss_metric;  /* rb_ss_metric_t: iops, iops_slope, bw or bw_slope */
    uint8_t ss_pct;      /* 1: ss_limit is a % of the window's mean */
    uint64_t ss_limit;   /* the limit in millionths (of %, IOPS or bytes/s) */
    uint64_t ss_dur_ns;  /* the window: whole seconds, at most RB_SS_DUR_MAX_S */
    uint64_t ss_ramp_ns; /* from the job's start, before the first second counted */
    /* fio's buffer_compress_percentage, buffer_compress_chunk, dedupe_percentage
     * and scramble_buffers (version 20): what write buffers hold */
    uint32_t compress_pct;   /* % of each chunk that is zeros (or the pattern), 0: none */
    uint64_t compress_chunk; /* bytes of one random-then-fixed chunk; 0: the smallest write */
    uint32_t dedupe_pct;     /* % of write buffers that repeat the last unique one */
    uint8_t scramble;        /* stamp each 512 bytes of a reused buffer with its offset */
    /* fio's dedupe_mode, dedupe_working_set_percentage and dedupe_global
     * (version 21): where a repeated write buffer comes from */
    uint32_t dedupe_mode;   /* rb_dedupe_mode_t */
    uint32_t dedupe_ws_pct; /* working_set: its pages, % of the worker's size in smallest writes */
    uint8_t dedupe_global;  /* working_set drawn from every worker of the phase on the node */
    /* fio's rate_min, rate_iops_min and rate_cycle (version 20): a worker
     * whose rate of a direction over a cycle falls below its floor fails
     * (rb_minrate.h); the bytes' floor, when set, is judged, else the IOs' */
    uint64_t rate_min;            /* reads' bytes/s floor per worker (0 = none) */
    uint64_t rate_min_write;      /* writes' bytes/s floor per worker (0 = none) */
    uint64_t rate_iops_min;       /* reads' IOs/s floor per worker (0 = none) */
    uint64_t rate_iops_min_write; /* writes' IOs/s floor per worker (0 = none) */
    uint32_t rate_cycle_ms;       /* the window each judgement averages over */
    /* fio's exitall and exit_what (version 20): on each node, the first of
     * this job's workers to end ends the other workers there */
    uint8_t exitall;    /* 1: a worker of this job ending ends the others */
    uint32_t exit_what; /* rb_exit_what_t: which others */
    /* fio's hipri, sqthread_poll and sqthread_poll_cpu (version 20): the
     * engine's own options, given to it at init */
    uint8_t hipri;       /* polled completions (io_uring IOPOLL, pvsync2 RWF_HIPRI) */
    uint8_t sqpoll;      /* io_uring: a kernel thread polls the submission queue ... */
    uint8_t sqpoll_aff;  /* ... bound to one CPU ... */
    uint32_t sqpoll_cpu; /* ... this one (< RB_CPUS_MAX) */
    /* fio's verify_backlog and verify_backlog_batch (version 21): a write
     * job with verify reads back what it wrote while it writes */
    uint32_t verify_backlog;       /* after every this many writes (0: at the end only) */
    uint32_t verify_backlog_batch; /* blocks read back each time (0: verify_backlog) */
    /* fio's flow, flow_id and flow_sleep (version 21): the workers of one
     * agent with the same flow_id keep their IO counts in the ratio of
     * their weights */
    uint32_t flow;          /* weight, fio's unsigned int (a negative value wraps); 0: none */
    uint32_t flow_id;       /* the shared counter's id */
    uint32_t flow_sleep_us; /* held back: wait for the IOs in flight, then sleep this long */
    /* fio's wait_for (version 21): the job starts once every worker of this
     * earlier job of the phase has ended ("": none; a job of an earlier
     * phase has ended already) */
    char wait_for[RB_NAME_MAX];
    /* fio's prio and prioclass (version 21): the worker's thread's IO
     * priority (ioprio_set), class << 13 | level; 0: left as it is */
    uint32_t ioprio;
    /* fio's cmdprio_* options of libaio and io_uring (version 21): the
     * priority each IO carries, drawn per IO (rb_cmdprio_t); 0 entries: none */
    uint32_t ncmdprio_read, ncmdprio_write;
    rb_cmdprio_t cmdprio_read[RB_CMDPRIO_MAX];
    rb_cmdprio_t cmdprio_write[RB_CMDPRIO_MAX];
    /* fio's continue_on_error, ignore_error and exitall_on_error (version
     * 21): an IO error of a class the job continues on and whose errno is
     * in that class's list is counted and the worker goes on */
    uint32_t continue_on_error;                      /* RB_ERR_CLASS_* bits the job continues on */
    uint8_t ignore_error[3 + 3 * RB_IGNORE_ERR_MAX]; /* the errnos each class goes on after:
                                                      * their counts (reads, writes and trims,
                                                      * verify), then the lists in that order;
                                                      * read through rb_job_ignore_list */
    uint32_t ignore_error_len;                       /* bytes used; 0: fio's EIO, EILSEQ each */
    uint8_t exitall_on_error; /* 1: a worker of this job failing ends the node's run */
    /* fio's write_hint (version 21): the lifetime hint set on each file the
     * job opens, F_SET_RW_HINT (F_SET_FILE_RW_HINT with direct) */
    uint32_t write_hint; /* 0: none set; else RB_WRITE_HINT_* (the kernel's RWH_*) */
    /* fio's fill_device (version 21): writes that find the file system full
     * (ENOSPC, EDQUOT) end the worker's IO without an error */
    uint8_t fill_device;
    /* version 22: the job reads the file directory/filename as it is, outside
     * the run folder (fio's existing file), never writing it; its size (0)
     * is the file's from the offset on, settled by the agent */
    uint8_t existing;
    /* fio's nice (version 22): each worker thread calls nice(2) with it as
     * it starts; -20 .. 19, 0 none */
    int64_t nice;
    /* fio's create_on_open (version 22): the job's files are not laid out or
     * given their size before the IO; each is made when the worker opens it
     * (O_CREAT), and grows as the job writes it */
    uint8_t create_on_open;
    /* fio's iodepth_batch_submit, iodepth_batch_complete_min and _max,
     * iodepth_low (version 22), as the agent settles them: a queued IO
     * waits until batch_submit are queued (0: 1) or the worker reaps;
     * a full queue is reaped batch_cmin (0: 1) .. batch_cmax at a time (max 0 or
     * below min: min) until no more than depth_low (0 or above iodepth:
     * iodepth) are in flight */
    uint32_t batch_submit, batch_cmin, batch_cmax, depth_low;
    /* fio's zonemode=zbd (version 23) on zones the agent emulates over the
     * file or device, as fio does on one that is not zoned: each zone has a
     * write pointer, writes go to it, reads stay below it; the zones of one
     * file are shared by every job of the run on the agent (rb_data_zbd.c).
     * zbd_zone 0: no zbd */
    uint64_t zbd_zone;         /* zonesize: bytes of a zone */
    uint64_t zbd_cap;          /* zonecapacity: bytes writable in a zone (0: zbd_zone) */
    uint32_t zbd_max_open;     /* max_open_zones: zones written at once, per file (0: any) */
    uint32_t zbd_job_max_open; /* job_max_open_zones: ... by one worker (0: any) */
    uint8_t zbd_beyond_wp;     /* read_beyond_wp: reads go where they fall */
    uint32_t zbd_reset_thr;    /* zone_reset_threshold, in millionths of the range */
    uint32_t zbd_reset_freq;   /* zone_reset_frequency, in millionths (0: no resets) */
    /* fio's openfiles (version 23): a worker's sequential round robin goes
     * over at most this many of its files at once, the next one taken in
     * once one is done (0: all) */
    uint32_t openfiles;
    /* fio's lockmem (version 23): each worker pins this many bytes of
     * memory (mlock) from its start to its end, leaving the page cache less
     * (0: none) */
    uint64_t lockmem;
    /* fio's file_service_type (version 23): how many IOs a worker's
     * sequential round robin does on a file before it moves on (0 or 1:
     * one, fio's roundrobin; N: roundrobin:N; RB_FS_SEQUENTIAL: until the
     * file is done, fio's sequential) */
    uint32_t fs_nr;
    /* fio's max_latency (version 23): a counted read, write or trim whose
     * latency (issue to completion) is above its direction's limit fails
     * the worker with ETIMEDOUT, as in fio (0: no limit) */
    uint64_t max_lat_read_ns, max_lat_write_ns, max_lat_trim_ns;
    /* fio's sync_file_range (version 23): before the IO after every
     * sfr_every writes, sync_file_range(2) with sfr_flags
     * (SYNC_FILE_RANGE_*) over the bytes of each file written since the
     * last (0: never) */
    uint32_t sfr_every, sfr_flags;
    /* fio's thinktime_iotime (version 23): with thinktime, the worker also
     * thinks once it has issued IO this long since its start or its last
     * think; thinktime_blocks is then 0 unless the plan set it (no think
     * by count) */
    uint64_t thinktime_iotime_ns;
    /* fio's ioscheduler (version 21): the job's block devices use this IO
     * scheduler for the phase, then get theirs back */
    char ioscheduler[RB_SCHED_MAX]; /* "" leaves them as they are */
    /* fio's latency_target, latency_window, latency_percentile and latency_run
     * (version 21): each worker looks for the deepest queue whose IOs keep
     * within lat_target_ns (rb_data_lat.c); lat_target_ns 0: no search */
    uint64_t lat_target_ns; /* an IO's latency (issue to completion) at most this */
    uint64_t lat_window_ns; /* each depth is judged over this long */
    uint32_t lat_pct;       /* of a window's IOs, this share within the target, in
                             * millionths of a percent (100000000: all) */
    uint8_t lat_run;        /* 1: keep adjusting the depth to the end */
    /* across nodes (IOR's access patterns) */
    uint8_t shared_file;     /* 1 = one file for every worker of every node (file_per_worker=0) */
    rb_layout_mode_t layout; /* with shared_file: segmented or strided */
    uint64_t transfer;       /* strided: bytes per interleaved piece (a multiple of bs) */
    uint32_t read_shift;     /* reads get the data of the worker this many nodes further on,
                              * or RB_READ_RANDOM (version 15) */
    uint64_t stonewall_ns;   /* stop every worker this long after its start (0 = never) */
    uint8_t wearout;         /* after the stonewall, go on to the busiest worker's op count */
    uint8_t drop_caches;     /* drop the page cache before this job's phase (reads) */
    /* Lustre: `lfs setstripe` on the run folder, when it is on Lustre */
    uint32_t lustre_stripe_count; /* -c: 0 = leave it, RB_LUSTRE_STRIPE_ALL = -1 (all OSTs) */
    uint64_t lustre_stripe_size;  /* -S in bytes, a multiple of 64 KiB; 0 = leave it */
    /* read_from=random (version 15): the seed of the cycle through the nodes
     * (read_from_seed's magnitude); read_reseed when it was negative, IOR's
     * -X -N: the seed is then read_seed + read_iteration (rb_job_read_seed) */
    uint64_t read_seed;
    uint8_t read_reseed;
    uint32_t read_iteration; /* the phase's iteration, 0 .. iterations-1 */
    /* Set by the agent, never sent: the job took its size from its devices
     * or its file, so each worker goes from its own offset to the end, as
     * each fio clone does (filesize holds the smallest of these), and knows
     * where the device or file really ends. */
    uint8_t dev_sized;
} rb_job_spec_t;

/* The errnos of ignore_error's class c (0 reads, 1 writes and trims, 2
 * verify) of js into *list: their count, 0 when none are given (fio's EIO
 * and EILSEQ then), and never past what js holds, whatever the wire said. */
static inline uint32_t rb_job_ignore_list(const rb_job_spec_t *js, unsigned c, const uint8_t **list)
{
    uint32_t len = js->ignore_error_len < sizeof js->ignore_error
                       ? js->ignore_error_len
                       : (uint32_t)sizeof js->ignore_error;
    uint32_t at = 3;
    *list = js->ignore_error;
    if (c > 2 || len < 3)
        return 0;
    for (unsigned k = 0; k < c; k++)
        at += js->ignore_error[k];
    if (at >= len)
        return 0;
    *list = js->ignore_error + at;
    return js->ignore_error[c] < len - at ? js->ignore_error[c] : len - at;
}

/* read_shift of read_from=random: node rank r reads the data of the node
 * after it in a random cycle through every node (rb_perm_cycle over nnodes
 * and read_seed), the same on every node: each node's data is read once, and
 * never by its own node when there are two or more. The agent settles it to
 * the shift of its own rank when the PLAN arrives. */
#define RB_READ_RANDOM UINT32_MAX

/* fallocate, as fio on a file it makes or extends: none (writes extend it),
 * fallocate(2) mode 0 (native, posix: fio's default), FALLOC_FL_KEEP_SIZE
 * (keep), or ftruncate(2) only (truncate). */
enum {
    RB_FALLOC_NONE = 0,
    RB_FALLOC_NATIVE = 1,
    RB_FALLOC_POSIX = 2,
    RB_FALLOC_KEEP = 3,
    RB_FALLOC_TRUNCATE = 4
};

/* write_hint: the kernel's RWH_WRITE_LIFE_* values, which fio passes. */
enum {
    RB_WRITE_HINT_UNSET = 0,
    RB_WRITE_HINT_NONE = 1,
    RB_WRITE_HINT_SHORT = 2,
    RB_WRITE_HINT_MEDIUM = 3,
    RB_WRITE_HINT_LONG = 4,
    RB_WRITE_HINT_EXTREME = 5
};

/* fadvise_hint: none, as the pattern is (fio's 1), or one for any pattern. */
enum {
    RB_FADVISE_NONE = 0,
    RB_FADVISE_PATTERN = 1,
    RB_FADVISE_SEQUENTIAL = 2,
    RB_FADVISE_RANDOM = 3
};

/* filename= naming every block device an agent may use and nothing else holds. */
#define RB_DEVICES_ALL "@devices"

/* lustre_stripe_count meaning lfs's -1: stripe over every OST. */
#define RB_LUSTRE_STRIPE_ALL UINT32_MAX
/* Largest lustre_stripe_count besides -1 (Lustre's own limit is 2000). */
#define RB_LUSTRE_STRIPE_MAX 65535

typedef struct rb_phase_spec {
    char name[RB_NAME_MAX]; /* name of its first job */
    uint32_t njobs;
    rb_job_spec_t *jobs; /* njobs entries */
} rb_phase_spec_t;

/* 1 for a job whose size is its file's, settled by its agent as its phase
 * starts (version 22): size 0 with a filename, not on devices, not rw=meta. */
int rb_job_file_sized(const rb_job_spec_t *js);

/* The seed of read_from=random's cycle for this job: read_seed, plus the
 * iteration with read_reseed. */
uint64_t rb_job_read_seed(const rb_job_spec_t *js);

/* 1 for a metadata step (its jobs are rw=meta: figures in operations, not bytes). */
int rb_phase_spec_is_meta(const rb_phase_spec_t *ph);

/* The range the decoder accepts for the integer field of rb_job_spec_t at
 * offset off (so that the plan's option table can be checked against it).
 * 0, or -ENOENT when no integer field is there. */
int rb_proto_job_limits(size_t off, uint64_t *min, uint64_t *max);

#endif
