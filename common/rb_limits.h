/* Limits shared by the plan, the wire and the agent: one place for each
 * bound, so that a plan the coordinator accepts is one the decoder and the
 * agent accept too. Lengths of strings include the NUL. */
#ifndef RB_LIMITS_H
#define RB_LIMITS_H

#define RB_NAME_MAX     64   /* node, rack, job, phase, run id */
#define RB_PATH_MAX     1024 /* directory, root paths */
#define RB_REASON_MAX   1024 /* refusal/error messages */
#define RB_MAX_ROOTS    64
#define RB_MAX_PHASES   256
#define RB_MAX_JOBS     256  /* jobs per phase */
#define RB_MAX_WORKERS  4096 /* workers per agent per phase */
#define RB_MAX_CHECKPTS 1024 /* progress checkpoints per worker */

#define RB_ENGINE_NAME_MAX 16    /* ioengine names */
#define RB_PATTERN_MAX     64    /* buffer_pattern bytes */
#define RB_IGNORE_ERR_MAX  8     /* errnos per class of ignore_error */
#define RB_BSSPLIT_MAX     64    /* bssplit entries per direction, as in fio */
#define RB_DIRS_MAX        16    /* directories in one job's directory= list ("/a:/b") */
#define RB_IODEPTH_MAX     65536 /* IOs in flight per worker */
#define RB_ZBD_MAX_OPEN    4096  /* max_open_zones, job_max_open_zones: fio's own bound */
#define RB_NRFILES_MAX     65536 /* files per worker (the agent opens them all) */
#define RB_META_DIRS_MAX   65536 /* meta_dirs and meta_branch: directories per level */
#define RB_META_DEPTH_MAX  16    /* meta_depth: directory tree levels */
#define RB_ZONES_MAX       16    /* random_distribution=zoned: zones per direction */
#define RB_CPUS_MAX        1024  /* cpus_allowed, cpumask: CPUs 0 .. 1023 (a cpu_set_t) */
/* An IO priority as the kernel takes it: class (1 RT, 2 BE, 3 IDLE) << 13 | level (0 .. 7) */
#define RB_IOPRIO_CLASS_SHIFT 13
#define RB_CMDPRIO_MAX        8 /* cmdprio_bssplit entries per direction (fio: 64) */
#define RB_IOPRIO_MAX         ((3u << RB_IOPRIO_CLASS_SHIFT) | 7u)

/* size= of a fill_device job that gives none: fio's "until the file system is
 * full" (1 EiB, far beyond any file system, with room for offsets beside it). */
#define RB_FILL_SIZE (1ull << 60)
/* An IO scheduler's name (ioscheduler=), with its NUL. */
#define RB_SCHED_MAX 32

/* random_distribution's number (zipf's theta, pareto's h, normal's %) in
 * millionths, at the most: 100 */
#define RB_DIST_PPM_MAX 100000000u

/* steadystate_duration: seconds in the window of steady state, at the most */
#define RB_SS_DUR_MAX_S 86400u

/* Network phases: the run's secret (bytes), an address as READY and GO
 * carry it ("10.0.0.12", an IPv6 literal), a link's error text, the links
 * one agent takes part in per phase, the streams of one link (numjobs) and
 * the largest message (bs). */
#define RB_NET_SECRET      32
#define RB_NET_ADDR_MAX    64
#define RB_NET_ERROR_MAX   160
#define RB_NET_LINKS_MAX   1024
#define RB_NET_STREAMS_MAX 64
#define RB_NET_MSG_MAX     (16u << 20)

/* The longest a coordinator may go between HEARTBEATs (rackbench run
 * --phase-heartbeat, HEARTBEAT's period_ns), in ns: 10 minutes. */
#define RB_HEARTBEAT_MAX_NS (600ull * 1000000000ull)
/* How long an agent holds a phase's DONE after its last SAMPLE, at most
 * (--done-hold, GO's done_hold_ns), in ns: 10 s. */
#define RB_DONE_HOLD_MAX_NS (10ull * 1000000000ull)

/* latency_percentile: millionths of a percent, at the most: 100 */
#define RB_LAT_PCT_MAX 100000000u

#endif
