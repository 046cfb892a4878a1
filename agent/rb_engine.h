/* The one interface between the job runner and an IO engine. Each engine is
 * one file exporting one const rb_engine_ops table; the runner owns the loop,
 * the engine only moves bytes. queue() answers COMPLETED (the IO is done,
 * io->result set), QUEUED (submit with commit(), reap with getevents()) or
 * BUSY (reap first), so synchronous and asynchronous engines share one loop. */
#ifndef RB_ENGINE_H
#define RB_ENGINE_H

#include <stdint.h>

/* 2: the table carries flags; 3: an optional sync(). */
#define RB_ENGINE_OPS_VERSION 3

/* What an engine is, for the runner to ask instead of comparing names. */
#define RB_ENGINE_F_NO_DATA (1u << 0) /* moves no data: the runner opens no file */
#define RB_ENGINE_F_WANT_DIRECT                                                                    \
    (1u << 1) /* asynchronous only with O_DIRECT (buffered IO                                      \
                 completes inside commit) */
/* its queue and commit reach no kernel: no submission to time (the runner
 * records no slat for its IOs, and their clat is their lat) */
#define RB_ENGINE_F_NO_SLAT (1u << 2)
/* writes cannot grow a file (mmap): the runner lays files out before them */
#define RB_ENGINE_F_NOEXTEND (1u << 3)
#define RB_ENGINE_F_ALL                                                                            \
    (RB_ENGINE_F_NO_DATA | RB_ENGINE_F_WANT_DIRECT | RB_ENGINE_F_NO_SLAT | RB_ENGINE_F_NOEXTEND)

/* The directions, numbered as rb_dir_t. A trim discards len bytes at off:
 * BLKDISCARD on a block device (fio's way), a hole punched in a file. */
typedef enum { RB_ENGINE_READ = 0, RB_ENGINE_WRITE = 1, RB_ENGINE_TRIM = 2 } rb_engine_dir_t;

enum { RB_ENGINE_Q_COMPLETED = 0, RB_ENGINE_Q_QUEUED = 1, RB_ENGINE_Q_BUSY = 2 };

/* One IO in flight; lives in the runner's preallocated ring, never malloc'ed per IO. */
typedef struct rb_engine_io {
    int fd;              /* open file */
    unsigned file_index; /* index of fd in the files given to setup() */
    unsigned buf_index;  /* index of buf's slot in the buffers given to setup() */
    rb_engine_dir_t dir; /* read, write or trim */
    int blkdev;          /* 1: fd is a block device (a trim is BLKDISCARD), 0: a file */
    void *buf;           /* aligned buffer of len bytes */
    uint64_t len;        /* bytes to move */
    uint64_t off;        /* file offset */
    uint16_t ioprio;     /* the IO's own priority (class << 13 | level), 0: none; only
                          * the engines with fio's cmdprio options (libaio, io_uring) */
    int64_t result;      /* bytes moved, or -errno; set on completion */
    uint64_t t_issue_ns; /* when the runner prepared it (fio's start_time) */
    uint64_t t_sub_ns;   /* when the engine took it, queued and committed (fio's issue_time);
                          * 0 while not submitted, and for an IO that completed in queue() */
    void *runner;        /* the runner's per-IO state; engines leave it alone */
} rb_engine_io_t;

/* What a worker will use, given once before its first IO so that engines
 * can register files and buffers with the kernel. */
typedef struct rb_engine_res {
    const int *fds; /* open files */
    unsigned nfds;
    void *bufs;     /* nbufs buffers of buf_len bytes each, contiguous, page aligned */
    unsigned nbufs; /* == iodepth */
    uint64_t buf_len;
} rb_engine_res_t;

/* A job's options for its engine, as fio's engines take their own options;
 * all zero: none. An engine reads those it has and leaves the others (the
 * plan allows each only with the engines that have it). */
typedef struct rb_engine_opts {
    uint8_t hipri;       /* polled completions: io_uring's IOPOLL, pvsync2's RWF_HIPRI */
    uint8_t sqpoll;      /* io_uring: a kernel thread polls the submission queue ... */
    uint8_t sqpoll_aff;  /* ... bound to one CPU ... */
    uint32_t sqpoll_cpu; /* ... this one */
    /* mmap: how files are mapped, as the job uses them */
    uint8_t map_prot;   /* RB_ENGINE_MAP_*: 0 read and write */
    uint8_t map_random; /* advised random (else sequential) */
    uint8_t map_direct; /* direct: each IO's pages written back and dropped */
    uint64_t map_len;   /* bytes of each file to map from its start; 0: its size */
} rb_engine_opts_t;

enum { RB_ENGINE_MAP_RW = 0, RB_ENGINE_MAP_READ = 1, RB_ENGINE_MAP_WRITE = 2 };

/* Per-worker engine state, opaque to the runner beyond this header. */
typedef struct rb_engine {
    const struct rb_engine_ops *ops; /* borrowed table */
    unsigned iodepth;                /* most IOs in flight */
    rb_engine_opts_t opts;           /* the job's engine options */
    void *priv;                      /* engine-private state from init() */
} rb_engine_t;

typedef struct rb_engine_ops {
    const char *name; /* as written in plans: ioengine=NAME */
    unsigned version; /* RB_ENGINE_OPS_VERSION */
    unsigned flags;   /* RB_ENGINE_F_* */
    /* Sets up e->priv for iodepth IOs; 0 or -errno (-ENOSYS: the kernel
     * lacks what the engine needs). Optional. */
    int (*init)(rb_engine_t *e);
    /* Learns the worker's files and buffers before the first IO (may register
     * them); 0 or -errno. Optional. */
    int (*setup)(rb_engine_t *e, const rb_engine_res_t *res);
    /* Starts io; returns RB_ENGINE_Q_* or -errno (the IO was not started). Required. */
    int (*queue)(rb_engine_t *e, rb_engine_io_t *io);
    /* Submits what queue() answered QUEUED for; 0 or -errno. Optional for sync engines. */
    int (*commit)(rb_engine_t *e);
    /* Waits for at least min completions, stores up to max pointers in done[];
     * returns the count or -errno. Optional for sync engines. */
    int (*getevents)(rb_engine_t *e, unsigned min, unsigned max, rb_engine_io_t **done);
    /* Releases e->priv. Optional. */
    void (*cleanup)(rb_engine_t *e);
    /* Makes what was written to file file_index (open as fd) durable, in
     * place of the runner's fsync (data_only: fdatasync); 0 or -errno.
     * Optional. */
    int (*sync)(rb_engine_t *e, unsigned file_index, int fd, int data_only);
} rb_engine_ops_t;

/* Does the trim io describes, at once (engines do trims synchronously, as
 * fio's do): BLKDISCARD on a block device, fallocate(PUNCH_HOLE |
 * KEEP_SIZE) on a file. 0 or -errno. */
int rb_engine_trim(const rb_engine_io_t *io);

/* A queue()'s trim: rb_engine_trim, io->result set (len, or -errno);
 * returns RB_ENGINE_Q_COMPLETED. */
int rb_engine_trim_now(rb_engine_io_t *io);

/* Finds an engine by name ("psync" is an alias of "sync"); NULL if this
 * build has none of that name. */
const rb_engine_ops_t *rb_engine_find(const char *name);

/* Names of the engines this build has, for messages ("sync, libaio, ..."); static storage. */
const char *rb_engine_names(void);

/* Checks a table before use: version, known flags and the ops an engine
 * must have. Returns 0 or -EINVAL. */
int rb_engine_check(const rb_engine_ops_t *ops);

/* Sets up e for ops with iodepth (checked first) and the job's engine
 * options opts (copied; NULL: none). 0 or -errno. */
int rb_engine_init(rb_engine_t *e, const rb_engine_ops_t *ops, unsigned iodepth,
                   const rb_engine_opts_t *opts);

/* Releases what rb_engine_init set up; safe twice. */
void rb_engine_fini(rb_engine_t *e);

#endif
