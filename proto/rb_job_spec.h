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

/* Which node of a network phase streams to which (rb_net_links): the
 * job's option network=. Every node of the run takes part. */
typedef enum {
    RB_NET_NONE = 0,
    RB_NET_PAIRS = 1,     /* "pairs": rank 2k to 2k+1 (an odd last one to rank 0) */
    RB_NET_RING = 2,      /* "ring": each to the next, the last to the first */
    RB_NET_ALL2ALL = 3,   /* "all-to-all": each to every other */
    RB_NET_INCAST = 4,    /* "incast": every other node to net_target */
    RB_NET_BISECTION = 5, /* "bisection": the first half to the second, i to i + n/2 */
} rb_net_pattern_t;

/* Name of a network pattern ("all-to-all"); NULL if unknown. And back: RB_NET_NONE if unknown. */
const char *rb_net_pattern_name(uint32_t p);
uint32_t rb_net_pattern_parse(const char *s);

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
 * Sizes in bytes, times in ns; field meanings follow fio's options of the
 * same name (docs/plan.md names the option that fills each field).
 *
 * Every field on the wire is here once, in wire order. The struct below,
 * the wire layout with its bounds (rb_proto.c), the fingerprint that names
 * each protocol version's schema, the field-by-field comparisons of the
 * tests and the job table of docs/protocol.md all come from this list
 * (docs/hacking.md: "Adding a plan option"). A row is
 *
 *   X(KIND, name, since, (ARGS), "what it holds")
 *
 * since: the protocol version the field arrived in (23: in every version the
 * table describes). A peer of an older version has no such key: the field
 * reads as its default there, which must mean "off", and the coordinator
 * refuses a plan that sets it for such a peer. KIND and its ARGS:
 *
 *   U32, U64  (min, max, default)        uint32_t, uint64_t
 *   I64       (default)                  int64_t
 *   BOOL      (default)                  uint8_t, 0 or 1
 *   STR       (capacity, RB_PK_F_ rules) char[capacity], "" by default
 *   ENUM      (C type, wire names, default)
 *   BIN       (capacity)                 uint8_t name[capacity], uint32_t name_len
 *   INLINE    (C type, most, layout)     uint32_t nname, TYPE name[most]; empty by default
 */
/* clang-format off */
#define RB_JOB_FIELDS(X)                                                                           \
    X(STR, name, 23, (RB_NAME_MAX, 0), "section name in the plan")                                 \
    X(ENUM, rw, 23, (rb_rw_t, rb_proto_rw_enum, 0), "access pattern")                              \
    X(U64, bs, 23, (0, UINT64_MAX, 0), "bytes per IO (smallest, with bsrange)")                    \
    X(U64, bs_max, 23, (0, UINT64_MAX, 0), "largest IO with bsrange; == bs without")               \
    /* per direction (fio's bs=R,W, bsrange=R,W, bssplit=R,W); bs and bs_max are the smallest      \
     * and largest of them all (offsets are in units of bs) */                                     \
    X(U64, bs_read, 23, (0, UINT64_MAX, 0), "reads: smallest and largest IO")                      \
    X(U64, bs_read_max, 23, (0, UINT64_MAX, 0), "reads: smallest and largest IO")                  \
    X(U64, bs_write, 23, (0, UINT64_MAX, 0), "writes: smallest and largest IO")                    \
    X(U64, bs_write_max, 23, (0, UINT64_MAX, 0), "writes: smallest and largest IO")                \
    X(INLINE, bssplit_read, 23, (rb_bs_part_t, RB_BSSPLIT_MAX, s_bs_part_layout),                  \
      "weights of reads' sizes")                                                                   \
    X(INLINE, bssplit_write, 23, (rb_bs_part_t, RB_BSSPLIT_MAX, s_bs_part_layout),                 \
      "weights of writes' sizes")                                                                  \
    X(U64, bs_trim, 23, (0, UINT64_MAX, 0), "trims' smallest and largest")                         \
    X(U64, bs_trim_max, 23, (0, UINT64_MAX, 0), "trims' smallest and largest")                     \
    X(U64, size, 23, (0, UINT64_MAX, 0), "bytes of IO per worker per pass, all files")             \
    X(U32, numjobs, 23, (0, RB_MAX_WORKERS, 0), "workers per agent")                               \
    X(BOOL, direct, 23, (0), "1 = O_DIRECT")                                                       \
    X(BOOL, time_based, 23, (0), "1 = loop over size until runtime")                               \
    X(U64, runtime_ns, 23, (0, UINT64_MAX, 0), "0 = no time limit")                                \
    X(STR, directory, 23, (RB_PATH_MAX, 0), "\"\" = the agent's first root")                       \
    X(STR, filename_format, 23, (RB_NAME_MAX, 0), "\"$jobname.$jobnum.$filenum\" style")           \
    X(STR, filename, 23, (RB_NAME_MAX, RB_PK_F_FILE),                                              \
      "fio filename=: one file shared by all workers (\"\" = none)")                               \
    X(STR, device, 23, (RB_PATH_MAX, 0),                                                           \
      "fio filename= naming raw block devices: \"/dev/X\", \"/dev/X:/dev/Y\" (each worker's "     \
      "files, round robin) or \"@devices\" (the agent's allowed idle ones); \"\" = none. size"     \
      " 0 then means each device's size.")                                                         \
    X(STR, ioengine, 23, (RB_ENGINE_NAME_MAX, RB_PK_F_FILE | RB_PK_F_NONEMPTY),                    \
      "\"sync\", \"libaio\", \"io_uring\", \"null\"")                                              \
    X(U32, iodepth, 23, (1, RB_IODEPTH_MAX, 1), "IOs in flight per worker, >= 1")                  \
    X(U32, rwmixread, 23, (0, 100, 0), "% reads of a mixed pattern (0..100)")                      \
    X(U32, nrfiles, 23, (1, RB_NRFILES_MAX, 1), "files per worker, >= 1")                          \
    X(U64, filesize, 23, (0, UINT64_MAX, 0), "bytes per file; 0 = size / nrfiles")                 \
    X(U64, offset, 23, (0, UINT64_MAX, 0), "start of IO in each file")                             \
    X(ENUM, sync_mode, 23, (rb_sync_mode_t, rb_proto_sync_enum, 0), "O_SYNC / O_DSYNC")            \
    X(U32, fsync_every, 23, (0, UINT32_MAX, 0), "fsync after this many writes (0 = never)")        \
    X(U32, fdatasync_every, 23, (0, UINT32_MAX, 0),                                                \
      "fdatasync after this many writes (0 = never)")                                              \
    X(BOOL, end_fsync, 23, (0), "fsync every file when the job's IO is done")                      \
    X(BOOL, fsync_on_close, 23, (0), "fsync a file before closing it")                             \
    X(U64, ramp_ns, 23, (0, UINT64_MAX, 0), "run this long before counting anything")              \
    X(U32, loops, 23, (1, UINT32_MAX, 1),                                                          \
      "passes over the files (>= 1; ignored when time_based)")                                     \
    X(BOOL, randrepeat, 23, (0), "1 = the same random sequence every run")                         \
    X(U64, randseed, 23, (0, UINT64_MAX, 0), "seed of the random sequence")                        \
    X(BOOL, norandommap, 23, (0), "1 = random offsets may repeat within a pass")                   \
    X(BOOL, overwrite, 23, (0), "lay files out before GO so writes overwrite")                     \
    X(ENUM, buffer_mode, 23, (rb_buf_mode_t, rb_proto_buf_enum, 0), "what write buffers hold")     \
    X(BOOL, refill_buffers, 23, (0), "new random contents for every write")                        \
    X(BIN, pattern, 23, (RB_PATTERN_MAX), "buffer_pattern bytes")                                  \
    X(ENUM, verify, 23, (rb_verify_t, rb_proto_verify_enum, 0),                                    \
      "block header + checksum on writes, checked on reads")                                       \
    X(BOOL, do_verify, 23, (0), "read back and check after a write job (fio do_verify)")           \
    X(BOOL, verify_fatal, 23, (0), "stop the worker at the first mismatch")                        \
    X(U64, verify_interval, 23, (0, UINT64_MAX, 0),                                                \
      "bytes each verify header covers (0: the block)")                                            \
    X(U64, verify_offset, 23, (0, UINT64_MAX, 0),                                                  \
      "the header swapped with the data at this offset")                                           \
    X(U64, pattern_ofs, 23, (0, UINT64_MAX, 0),                                                    \
      "bit i: pattern[i..i+8) holds the block's offset (%o)")                                      \
    X(U64, rate, 23, (0, UINT64_MAX, 0), "reads' bytes/s cap per worker (0 = none)")               \
    /* rw=meta: filename_format names the file set shared by a job's steps */                      \
    X(ENUM, meta_op, 23, (rb_meta_op_t, rb_proto_meta_enum, 0), "this step's operation")           \
    X(U64, meta_files, 23, (0, UINT64_MAX, 0), "files per worker")                                 \
    X(U64, meta_filesize, 23, (0, UINT64_MAX, 0), "bytes written at create/write (mdtest -w)")     \
    X(U32, meta_dirs, 23, (0, RB_META_DIRS_MAX, 0),                                                \
      "flat directories per worker the files spread over")                                         \
    X(U32, meta_depth, 23, (0, RB_META_DEPTH_MAX, 0), "directory tree depth (0 = flat)")           \
    X(U32, meta_branch, 23, (0, RB_META_DIRS_MAX, 0), "directories per tree level")                \
    X(BOOL, meta_random, 23, (0), "files in a random permutation, else in order")                  \
    X(BOOL, meta_shared, 23, (0), "one directory for all workers of all nodes")                    \
    X(BOOL, meta_sync, 23, (0), "fsync each file and its directory")                               \
    X(BOOL, meta_renamed, 23, (0), "an earlier step renamed the files")                            \
    /* across nodes (IOR's access patterns) */                                                     \
    X(BOOL, shared_file, 23, (0),                                                                  \
      "1 = one file for every worker of every node (file_per_worker=0)")                           \
    X(ENUM, layout, 23, (rb_layout_mode_t, rb_proto_layout_enum, 0),                               \
      "with shared_file: segmented or strided")                                                    \
    X(U64, transfer, 23, (0, UINT64_MAX, 0),                                                       \
      "strided: bytes per interleaved piece (a multiple of bs)")                                   \
    X(U32, read_shift, 23, (0, UINT32_MAX, 0),                                                     \
      "reads get the data of the worker this many nodes further on, or RB_READ_RANDOM")            \
    X(U64, stonewall_ns, 23, (0, UINT64_MAX, 0),                                                   \
      "stop every worker this long after its start (0 = never)")                                   \
    X(BOOL, wearout, 23, (0), "after the stonewall, go on to the busiest worker's op count")       \
    X(BOOL, drop_caches, 23, (0), "drop the page cache before this job's phase (reads)")           \
    /* Lustre: `lfs setstripe` on the run folder, when it is on Lustre */                          \
    X(U32, lustre_stripe_count, 23, (0, UINT32_MAX, 0),                                            \
      "-c: 0 = leave it, RB_LUSTRE_STRIPE_ALL = -1 (all OSTs)")                                    \
    X(U64, lustre_stripe_size, 23, (0, UINT64_MAX, 0),                                             \
      "-S in bytes, a multiple of 64 KiB; 0 = leave it")                                           \
    /* fio's limits of a worker's IO, its start and its files */                                   \
    X(U64, number_ios, 23, (0, UINT64_MAX, 0),                                                     \
      "stop after number_ios × loops IOs (0 = no limit)")                                          \
    X(U64, io_size, 23, (0, UINT64_MAX, 0),                                                        \
      "do io_size × loops bytes, looping over size (0 = size)")                                    \
    X(BOOL, unlink, 23, (0), "remove the job's files when each worker is done")                    \
    X(BOOL, unlink_each_loop, 23, (0),                                                             \
      "remove and make them anew before each pass but the first")                                  \
    X(U64, startdelay_ns, 23, (0, UINT64_MAX, 0),                                                  \
      "each worker starts this long after GO, or, a range ...")                                    \
    X(U64, startdelay_max_ns, 23, (0, UINT64_MAX, 0),                                              \
      "... at a random point up to this (>= startdelay_ns)")                                       \
    X(U64, offset_increment, 23, (0, UINT64_MAX, 0),                                               \
      "worker k (0 .. numjobs-1, per agent) starts at offset + k × it")                            \
    /* fio's rate=R,W and rate_iops=R,W: each direction on its own (rate is reads') */             \
    X(U64, rate_write, 23, (0, UINT64_MAX, 0), "writes' bytes/s cap per worker (0 = none)")        \
    X(U64, rate_iops, 23, (0, UINT64_MAX, 0), "reads' IOs/s cap per worker (0 = none)")            \
    X(U64, rate_iops_write, 23, (0, UINT64_MAX, 0), "writes' IOs/s cap per worker (0 = none)")     \
    /* rw=meta: filename_format names the file set shared by a job's steps */                      \
    X(U64, meta_readsize, 23, (0, UINT64_MAX, 0), "bytes read at read (mdtest -e)")                \
    /* fio's thinktime: after thinktime_blocks IOs (completed, or issued), wait for every IO      \
     * in flight, spin thinktime_spin_ns, then sleep the rest of thinktime_ns */                   \
    X(U64, thinktime_ns, 23, (0, UINT64_MAX, 0), "0: no thinking")                                 \
    X(U64, thinktime_spin_ns, 23, (0, UINT64_MAX, 0), "of it, busy (CPU)")                         \
    X(U32, thinktime_blocks, 23, (0, UINT32_MAX, 0), "IOs between thinks (0 is read as 1)")        \
    X(BOOL, thinktime_issued, 23, (0), "1: count IOs issued, 0: completed (fio's default)")        \
    X(U64, read_seed, 23, (0, UINT64_MAX, 0),                                                      \
      "read_from=random: the seed of the cycle through the nodes (read_from_seed's "              \
      "magnitude); read_reseed when it was negative, IOR's -X -N: the seed is then read_seed "     \
      "+ read_iteration (rb_job_read_seed)")                                                       \
    X(BOOL, read_reseed, 23, (0),                                                                  \
      "read_from=random: the seed of the cycle through the nodes (read_from_seed's "              \
      "magnitude); read_reseed when it was negative, IOR's -X -N: the seed is then read_seed "     \
      "+ read_iteration (rb_job_read_seed)")                                                       \
    X(U32, read_iteration, 23, (0, UINT32_MAX, 0), "the phase's iteration, 0 .. iterations-1")     \
    /* fio's size=N% and offset=N% of a device , settled by the agent that holds it: 0, or 1 ..    \
     * 100 with size (offset) 0 */                                                                 \
    X(U32, size_pct, 23, (0, 100, 0), "each device's IO region: N% of it, from the offset on")     \
    X(U32, offset_pct, 23, (0, 100, 0), "IO starts at N% of the device, rounded up to bs")         \
    /* fio's page cache advice when a worker opens a file */                                       \
    X(BOOL, invalidate, 23, (0), "1: drop the file's cached pages of the job's region first")      \
    X(U32, fadvise_hint, 23, (0, RB_FADVISE_RANDOM, 0),                                            \
      "RB_FADVISE_*: the access advice given then")                                                \
    /* fio's fallocate: how a file is given its size before IO */                                 \
    X(U32, fallocate, 23, (0, RB_FALLOC_TRUNCATE, 0), "RB_FALLOC_*")                               \
    /* fio's cpus_allowed (cpumask) and cpus_allowed_policy */                                     \
    X(BIN, cpus, 23, (RB_CPUS_BYTES), "the CPUs its workers may run on (rb_cpus.h) ...")           \
    X(BOOL, cpus_split, 23, (0), "1: each worker on one of them, round robin (fio's split)")       \
    /* fio's random_distribution: where random IOs fall */                                        \
    X(U32, rand_dist, 23, (0, RB_DIST_COUNT - 1, 0), "rb_dist_kind_t; RB_DIST_RANDOM: uniform")    \
    X(U32, rand_dist_ppm, 23, (0, RB_DIST_PPM_MAX, 0),                                             \
      "zipf's theta, pareto's h, normal's %: millionths")                                          \
    X(INLINE, zones_read, 23, (rb_zone_t, RB_ZONES_MAX, s_zone_layout),                            \
      "the zones of each direction")                                                               \
    X(INLINE, zones_write, 23, (rb_zone_t, RB_ZONES_MAX, s_zone_layout),                           \
      "fio's random_distribution: where random IOs fall")                                         \
    X(INLINE, zones_trim, 23, (rb_zone_t, RB_ZONES_MAX, s_zone_layout),                            \
      "fio's random_distribution: where random IOs fall")                                         \
    /* fio's rw=X:N, rw_sequencer and percentage_sequential */                                     \
    X(U64, seq_add, 23, (0, UINT64_MAX, 0),                                                        \
      "sequential: bytes skipped after each IO (rw=write:4k) ...")                                 \
    X(BOOL, seq_back, 23, (0), "... 1: moved back by instead (rw=read:-8k, backwards)")            \
    X(U32, seq_nr, 23, (0, UINT32_MAX, 0),                                                         \
      "random: a new random offset every seq_nr IOs (0, 1: each)")                                 \
    X(BOOL, seq_identical, 23, (0),                                                                \
      "rw_sequencer=identical: the IOs between repeat the last offset")                            \
    X(U32, perc_seq_read, 23, (0, 100, 0), "percentage_sequential of a random job's ...")          \
    X(U32, perc_seq_write, 23, (0, 100, 0), "percentage_sequential of a random job's ...")         \
    X(U32, perc_seq_trim, 23, (0, 100, 0), "... reads, writes and trims, 0 .. 100")                \
    X(U64, ba_read, 23, (0, UINT64_MAX, 0), "blockalign: random offsets' multiple (0: bs)")        \
    X(U64, ba_write, 23, (0, UINT64_MAX, 0), "blockalign: random offsets' multiple (0: bs)")       \
    X(U64, ba_trim, 23, (0, UINT64_MAX, 0), "blockalign: random offsets' multiple (0: bs)")        \
    /* what a find step matches (IO500's find -name -size -newer) */                               \
    X(STR, meta_find_name, 23, (RB_NAME_MAX, 0),                                                   \
      "fnmatch pattern of the file's name (\"\" = any)")                                           \
    X(U64, meta_find_size, 23, (0, UINT64_MAX, 0), "exact bytes (0 = any size)")                   \
    X(BOOL, meta_find_newer, 23, (0), "modified after the run's start")                            \
    /* fio's zonemode=strided (zone_size 0: none) */                                               \
    X(U64, zone_size, 23, (0, UINT64_MAX, 0), "bytes of IO in a zone before the next one")         \
    X(U64, zone_range, 23, (0, UINT64_MAX, 0),                                                     \
      "the zone's span, its IOs within it (0: zone_size)")                                         \
    X(U64, zone_skip, 23, (0, UINT64_MAX, 0),                                                      \
      "bytes skipped between one zone's range and the next")                                       \
    /* fio's steadystate: each agent ends the job once its workers' summed figure, sampled        \
     * once a second, held steady over ss_dur_ns (rb_steady.h); ss_dur_ns 0: no judgement */       \
    X(U32, ss_metric, 23, (0, RB_SS_BW_SLOPE, 0),                                                  \
      "rb_ss_metric_t: iops, iops_slope, bw or bw_slope")                                          \
    X(BOOL, ss_pct, 23, (0), "1: ss_limit is a % of the window's mean")                            \
    X(U64, ss_limit, 23, (0, UINT64_MAX, 0), "the limit in millionths (of %, IOPS or bytes/s)")    \
    X(U64, ss_dur_ns, 23, (0, UINT64_MAX, 0),                                                      \
      "the window: whole seconds, at most RB_SS_DUR_MAX_S")                                        \
    X(U64, ss_ramp_ns, 23, (0, UINT64_MAX, 0),                                                     \
      "from the job's start, before the first second counted")                                     \
    /* fio's buffer_compress_percentage, buffer_compress_chunk, dedupe_percentage and              \
     * scramble_buffers: what write buffers hold */                                               \
    X(U32, compress_pct, 23, (0, 100, 0),                                                          \
      "% of each chunk that is zeros (or the pattern), 0: none")                                   \
    X(U64, compress_chunk, 23, (0, UINT64_MAX, 0),                                                 \
      "bytes of one random-then-fixed chunk; 0: the smallest write")                               \
    X(U32, dedupe_pct, 23, (0, 100, 0), "% of write buffers that repeat the last unique one")      \
    X(BOOL, scramble, 23, (0), "stamp each 512 bytes of a reused buffer with its offset")          \
    /* fio's rate_min, rate_iops_min and rate_cycle: a worker whose rate of a direction over a    \
     * cycle falls below its floor fails (rb_minrate.h); the bytes' floor, when set, is judged,    \
     * else the IOs' */                                                                            \
    X(U64, rate_min, 23, (0, UINT64_MAX, 0), "reads' bytes/s floor per worker (0 = none)")         \
    X(U64, rate_min_write, 23, (0, UINT64_MAX, 0), "writes' bytes/s floor per worker (0 = none)")  \
    X(U64, rate_iops_min, 23, (0, UINT64_MAX, 0), "reads' IOs/s floor per worker (0 = none)")      \
    X(U64, rate_iops_min_write, 23, (0, UINT64_MAX, 0),                                            \
      "writes' IOs/s floor per worker (0 = none)")                                                 \
    X(U32, rate_cycle_ms, 23, (0, UINT32_MAX, 0), "the window each judgement averages over")       \
    /* fio's exitall and exit_what: on each node, the first of this job's workers to end ends     \
     * the other workers there */                                                                  \
    X(BOOL, exitall, 23, (0), "1: a worker of this job ending ends the others")                    \
    X(U32, exit_what, 23, (0, RB_EXIT_ALL, 0), "rb_exit_what_t: which others")                     \
    /* fio's hipri, sqthread_poll and sqthread_poll_cpu: the engine's own options, given to it    \
     * at init */                                                                                  \
    X(BOOL, hipri, 23, (0), "polled completions (io_uring IOPOLL, pvsync2 RWF_HIPRI)")             \
    X(BOOL, sqpoll, 23, (0), "io_uring: a kernel thread polls the submission queue ...")           \
    X(BOOL, sqpoll_aff, 23, (0), "... bound to one CPU ...")                                       \
    X(U32, sqpoll_cpu, 23, (0, RB_CPUS_MAX - 1, 0), "... this one (< RB_CPUS_MAX)")                \
    /* fio's verify_backlog and verify_backlog_batch: a write job with verify reads back what     \
     * it wrote while it writes */                                                                 \
    X(U32, verify_backlog, 23, (0, UINT32_MAX, 0),                                                 \
      "after every this many writes (0: at the end only)")                                         \
    X(U32, verify_backlog_batch, 23, (0, UINT32_MAX, 0),                                           \
      "blocks read back each time (0: verify_backlog)")                                            \
    /* fio's flow, flow_id and flow_sleep: the workers of one agent with the same flow_id keep    \
     * their IO counts in the ratio of their weights */                                            \
    X(U32, flow, 23, (0, UINT32_MAX, 0),                                                           \
      "weight, fio's unsigned int (a negative value wraps); 0: none")                              \
    X(U32, flow_id, 23, (0, INT32_MAX, 0), "the shared counter's id")                              \
    X(U32, flow_sleep_us, 23, (0, UINT32_MAX, 0),                                                  \
      "held back: wait for the IOs in flight, then sleep this long")                               \
    X(STR, wait_for, 23, (RB_NAME_MAX, 0),                                                         \
      "fio's wait_for: the job starts once every worker of this earlier job of the phase has"     \
      " ended (\"\": none; a job of an earlier phase has ended already)")                          \
    /* fio's dedupe_mode, dedupe_working_set_percentage and dedupe_global: where a repeated       \
     * write buffer comes from */                                                                  \
    X(U32, dedupe_mode, 23, (0, RB_DEDUPE_WORKING_SET, 0), "rb_dedupe_mode_t")                     \
    X(U32, dedupe_ws_pct, 23, (0, 100, 0),                                                         \
      "working_set: its pages, % of the worker's size in smallest writes")                         \
    X(BOOL, dedupe_global, 23, (0),                                                                \
      "working_set drawn from every worker of the phase on the node")                              \
    X(U32, ioprio, 23, (0, RB_IOPRIO_MAX, 0),                                                      \
      "fio's prio and prioclass: the worker's thread's IO priority (ioprio_set), class << 13"     \
      " | level; 0: left as it is")                                                                \
    X(INLINE, cmdprio_read, 23, (rb_cmdprio_t, RB_CMDPRIO_MAX, s_cmdprio_layout),                  \
      "fio's cmdprio_* options of libaio and io_uring: the priority each IO carries, drawn "      \
      "per IO (rb_cmdprio_t); 0 entries: none")                                                    \
    X(INLINE, cmdprio_write, 23, (rb_cmdprio_t, RB_CMDPRIO_MAX, s_cmdprio_layout),                 \
      "fio's cmdprio_* options of libaio and io_uring: the priority each IO carries, drawn "      \
      "per IO (rb_cmdprio_t); 0 entries: none")                                                    \
    /* fio's continue_on_error, ignore_error and exitall_on_error: an IO error of a class the     \
     * job continues on and whose errno is in that class's list is counted and the worker goes     \
     * on */                                                                                       \
    X(U32, continue_on_error, 23, (0, RB_ERR_CLASS_ALL, 0),                                        \
      "RB_ERR_CLASS_* bits the job continues on")                                                  \
    X(BIN, ignore_error, 23, (3 + 3 * RB_IGNORE_ERR_MAX),                                          \
      "the errnos each class goes on after: their counts (reads, writes and trims, verify), "      \
      "then the lists in that order; read through rb_job_ignore_list")                             \
    X(BOOL, exitall_on_error, 23, (0), "1: a worker of this job failing ends the node's run")      \
    /* fio's write_hint: the lifetime hint set on each file the job opens, F_SET_RW_HINT          \
     * (F_SET_FILE_RW_HINT with direct) */                                                         \
    X(U32, write_hint, 23, (0, RB_WRITE_HINT_EXTREME, 0),                                          \
      "0: none set; else RB_WRITE_HINT_* (the kernel's RWH_*)")                                    \
    X(BOOL, fill_device, 23, (0),                                                                  \
      "fio's fill_device: writes that find the file system full (ENOSPC, EDQUOT) end the "        \
      "worker's IO without an error")                                                              \
    /* fio's ioscheduler: the job's block devices use this IO scheduler for the phase, then       \
     * get theirs back */                                                                          \
    X(STR, ioscheduler, 23, (RB_SCHED_MAX, 0), "\"\" leaves them as they are")                     \
    /* fio's latency_target, latency_window, latency_percentile and latency_run: each worker      \
     * looks for the deepest queue whose IOs keep within lat_target_ns (rb_data_lat.c);            \
     * lat_target_ns 0: no search */                                                               \
    X(U64, lat_target_ns, 23, (0, UINT64_MAX, 0),                                                  \
      "an IO's latency (issue to completion) at most this")                                        \
    X(U64, lat_window_ns, 23, (0, UINT64_MAX, 0), "each depth is judged over this long")           \
    X(U32, lat_pct, 23, (0, RB_LAT_PCT_MAX, 0),                                                    \
      "of a window's IOs, this share within the target, in millionths of a percent "               \
      "(100000000: all)")                                                                          \
    X(BOOL, lat_run, 23, (0), "1: keep adjusting the depth to the end")                            \
    X(BOOL, existing, 23, (0),                                                                     \
      "the job reads the file directory/filename as it is, outside the run folder (fio's "         \
      "existing file), never writing it; its size (0) is the file's from the offset on, "          \
      "settled by the agent")                                                                      \
    X(I64, nice, 23, (0),                                                                          \
      "fio's nice: each worker thread calls nice(2) with it as it starts; -20 .. 19, 0 none")     \
    X(BOOL, create_on_open, 23, (0),                                                               \
      "fio's create_on_open: the job's files are not laid out or given their size before the"     \
      " IO; each is made when the worker opens it (O_CREAT), and grows as the job writes it")      \
    X(U32, batch_submit, 23, (0, RB_IODEPTH_MAX, 0),                                               \
      "fio's iodepth_batch_submit, iodepth_batch_complete_min and _max, iodepth_low , as the "     \
      "agent settles them: a queued IO waits until batch_submit are queued (0: 1) or the "         \
      "worker reaps; a full queue is reaped batch_cmin (0: 1) .. batch_cmax at a time (max 0 "     \
      "or below min: min) until no more than depth_low (0 or above iodepth: iodepth) are in "      \
      "flight")                                                                                    \
    X(U32, batch_cmin, 23, (0, RB_IODEPTH_MAX, 0),                                                 \
      "fio's iodepth_batch_submit, iodepth_batch_complete_min and _max, iodepth_low , as the "     \
      "agent settles them: a queued IO waits until batch_submit are queued (0: 1) or the "         \
      "worker reaps; a full queue is reaped batch_cmin (0: 1) .. batch_cmax at a time (max 0 "     \
      "or below min: min) until no more than depth_low (0 or above iodepth: iodepth) are in "      \
      "flight")                                                                                    \
    X(U32, batch_cmax, 23, (0, RB_IODEPTH_MAX, 0),                                                 \
      "fio's iodepth_batch_submit, iodepth_batch_complete_min and _max, iodepth_low , as the "     \
      "agent settles them: a queued IO waits until batch_submit are queued (0: 1) or the "         \
      "worker reaps; a full queue is reaped batch_cmin (0: 1) .. batch_cmax at a time (max 0 "     \
      "or below min: min) until no more than depth_low (0 or above iodepth: iodepth) are in "      \
      "flight")                                                                                    \
    X(U32, depth_low, 23, (0, RB_IODEPTH_MAX, 0),                                                  \
      "fio's iodepth_batch_submit, iodepth_batch_complete_min and _max, iodepth_low , as the "     \
      "agent settles them: a queued IO waits until batch_submit are queued (0: 1) or the "         \
      "worker reaps; a full queue is reaped batch_cmin (0: 1) .. batch_cmax at a time (max 0 "     \
      "or below min: min) until no more than depth_low (0 or above iodepth: iodepth) are in "      \
      "flight")                                                                                    \
    /* fio's zonemode=zbd on zones the agent emulates over the file or device, as fio does on      \
     * one that is not zoned: each zone has a write pointer, writes go to it, reads stay below     \
     * it; the zones of one file are shared by every job of the run on the agent                   \
     * (rb_data_zbd.c). zbd_zone 0: no zbd */                                                      \
    X(U64, zbd_zone, 23, (0, UINT64_MAX, 0), "zonesize: bytes of a zone")                          \
    X(U64, zbd_cap, 23, (0, UINT64_MAX, 0),                                                        \
      "zonecapacity: bytes writable in a zone (0: zbd_zone)")                                      \
    X(U32, zbd_max_open, 23, (0, RB_ZBD_MAX_OPEN, 0),                                              \
      "max_open_zones: zones written at once, per file (0: any)")                                  \
    X(U32, zbd_job_max_open, 23, (0, RB_ZBD_MAX_OPEN, 0),                                          \
      "job_max_open_zones: ... by one worker (0: any)")                                            \
    X(BOOL, zbd_beyond_wp, 23, (0), "read_beyond_wp: reads go where they fall")                    \
    X(U32, zbd_reset_thr, 23, (0, 1000000, 0),                                                     \
      "zone_reset_threshold, in millionths of the range")                                          \
    X(U32, zbd_reset_freq, 23, (0, 1000000, 0),                                                    \
      "zone_reset_frequency, in millionths (0: no resets)")                                        \
    X(U32, openfiles, 23, (0, RB_NRFILES_MAX, 0),                                                  \
      "fio's openfiles: a worker's sequential round robin goes over at most this many of its"     \
      " files at once, the next one taken in once one is done (0: all)")                           \
    X(U64, lockmem, 23, (0, UINT64_MAX, 0),                                                        \
      "fio's lockmem: each worker pins this many bytes of memory (mlock) from its start to "      \
      "its end, leaving the page cache less (0: none)")                                            \
    X(U32, fs_nr, 23, (0, RB_FS_SEQUENTIAL, 0),                                                    \
      "fio's file_service_type: how many IOs a worker's sequential round robin does on a "        \
      "file before it moves on (0 or 1: one, fio's roundrobin; N: roundrobin:N; "                  \
      "RB_FS_SEQUENTIAL: until the file is done, fio's sequential)")                               \
    X(U64, max_lat_read_ns, 23, (0, UINT64_MAX, 0),                                                \
      "fio's max_latency: a counted read, write or trim whose latency (issue to completion) "     \
      "is above its direction's limit fails the worker with ETIMEDOUT, as in fio (0: no "          \
      "limit)")                                                                                    \
    X(U64, max_lat_write_ns, 23, (0, UINT64_MAX, 0),                                               \
      "fio's max_latency: a counted read, write or trim whose latency (issue to completion) "     \
      "is above its direction's limit fails the worker with ETIMEDOUT, as in fio (0: no "          \
      "limit)")                                                                                    \
    X(U64, max_lat_trim_ns, 23, (0, UINT64_MAX, 0),                                                \
      "fio's max_latency: a counted read, write or trim whose latency (issue to completion) "     \
      "is above its direction's limit fails the worker with ETIMEDOUT, as in fio (0: no "          \
      "limit)")                                                                                    \
    X(U32, sfr_every, 23, (0, UINT32_MAX, 0),                                                      \
      "fio's sync_file_range: before the IO after every sfr_every writes, sync_file_range(2)"     \
      " with sfr_flags (SYNC_FILE_RANGE_*) over the bytes of each file written since the last"     \
      " (0: never)")                                                                               \
    X(U32, sfr_flags, 23, (0, 7, 0),                                                               \
      "fio's sync_file_range: before the IO after every sfr_every writes, sync_file_range(2)"     \
      " with sfr_flags (SYNC_FILE_RANGE_*) over the bytes of each file written since the last"     \
      " (0: never)")                                                                               \
    X(U64, thinktime_iotime_ns, 23, (0, UINT64_MAX, 0),                                            \
      "fio's thinktime_iotime: with thinktime, the worker also thinks once it has issued IO "     \
      "this long since its start or its last think; thinktime_blocks is then 0 unless the "        \
      "plan set it (no think by count)") \
    X(BOOL, create_nofsync, 24, (0), "fio's create_fsync=0: a file laid out before GO is not fsynced") \
    /* a network phase's job: streams between the run's agents instead of IO (rb_net_pattern_t) */ \
    X(U32, network, 28, (0, RB_NET_BISECTION, 0),                                                  \
      "rb_net_pattern_t: which node streams to which (0: not a network job); numjobs streams a "   \
      "link, bs bytes a message, size bytes a stream or runtime; rw=rw both ways")                 \
    X(STR, net_target, 28, (RB_NAME_MAX, 0), "incast: the node every other one streams to")       \
    X(BOOL, pingpong, 28, (0),                                                                     \
      "round trips instead of streams: the sender sends bs bytes and waits for the same back")

#define RB_JF_A1(a, ...)       a
#define RB_JF_A2(a, b, ...)    b
#define RB_JF_A3(a, b, c, ...) c
#define RB_JF_DECL(kind, f, since, args, doc) RB_JF_DECL_##kind(f, args)
#define RB_JF_DECL_U32(f, a)    uint32_t f;
#define RB_JF_DECL_U64(f, a)    uint64_t f;
#define RB_JF_DECL_I64(f, a)    int64_t f;
#define RB_JF_DECL_BOOL(f, a)   uint8_t f;
#define RB_JF_DECL_STR(f, a)    char f[RB_JF_A1 a];
#define RB_JF_DECL_ENUM(f, a)   RB_JF_A1 a f;
#define RB_JF_DECL_BIN(f, a)    uint8_t f[RB_JF_A1 a]; uint32_t f##_len;
#define RB_JF_DECL_INLINE(f, a) uint32_t n##f; RB_JF_A1 a f[RB_JF_A2 a];
/* clang-format on */

typedef struct rb_job_spec {
    RB_JOB_FIELDS(RB_JF_DECL)
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
