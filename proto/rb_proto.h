/* rackbench's wire protocol: the only code that knows the bytes on the wire.
 *
 * Every message is one ZeroMQ frame holding one msgpack map with string keys.
 * Two keys are in every message: "v" (protocol version) and "t" (message type
 * name, see RB_MSG_TYPES). The other keys depend on the type and the version,
 * and are listed in docs/protocol.md. A build speaks every version of its
 * window, RB_PROTO_OLDEST .. RB_PROTO_VERSION: it writes a frame in the
 * version of its peer, and reads a frame of any version of the window, a key
 * newer than the frame's version reading as its default. Decoding is strict:
 * a frame larger than RB_PROTO_MAX_FRAME, a version outside the window, an
 * unknown type, a missing, unknown or mistyped field, a string or array beyond
 * its bound is an error with a message (-EBADMSG, or -EPROTO for a version
 * outside the window naming both versions and builds). Any change of the
 * schema bumps RB_PROTO_VERSION: the fingerprint test pins each version's. */
#ifndef RB_PROTO_H
#define RB_PROTO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rb_build.h"
#include "rb_cpus.h"
#include "rb_err.h"
#include "rb_hist.h"
#include "rb_job_spec.h"
#include "rb_limits.h"
#include "rb_steady.h"

#define RB_PROTO_VERSION   30           /* the newest version this build speaks */
#define RB_PROTO_OLDEST    23           /* the oldest: a peer of OLDEST .. VERSION is understood */
#define RB_PROTO_MAX_FRAME (640u << 20) /* bytes; a larger frame is refused unread */

/* Bounds of strings and arrays in messages: rb_limits.h. */

/* Every message type, once: X(enum suffix, wire name). */
#define RB_MSG_TYPES(X)                                                                            \
    X(HELLO, "HELLO")         /* agent → coord: who I am, what I have */                         \
    X(PING, "PING")           /* coord → agent: clock offset probe */                            \
    X(PONG, "PONG")           /* agent → coord: answer with the agent's clock */                 \
    X(PLAN, "PLAN")           /* coord → agent: phases and jobs to prepare */                    \
    X(READY, "READY")         /* agent → coord: files laid out, ready for GO */                  \
    X(REFUSED, "REFUSED")     /* agent → coord: plan refused, with the reason */                 \
    X(GO, "GO")               /* coord → agent: start phase N at time T */                       \
    X(SAMPLE, "SAMPLE")       /* agent → coord: one interval of one phase */                     \
    X(DONE, "DONE")           /* agent → coord: phase totals, per worker */                      \
    X(HEARTBEAT, "HEARTBEAT") /* both ways: I am alive */                                          \
    X(ABORT, "ABORT")         /* coord → agent: stop IO, clean up */                             \
    X(ERROR, "ERROR")         /* both ways: a failure the peer must know about */                  \
    X(STONEWALL, "STONEWALL") /* agent → coord: a job's workers reached stonewall_time */        \
    X(WEAROUT, "WEAROUT")     /* coord → agent: ops every worker of the job goes on to */        \
    X(END, "END")             /* coord → agent: run over, clean up; agent → coord: cleaned */  \
    X(SPACE, "SPACE")         /* agent → coord: what a PLAN will write on each file system */

typedef enum {
    RB_MSG_NONE = 0,
#define RB_X_ENUM(e, s) RB_MSG_##e,
    RB_MSG_TYPES(RB_X_ENUM)
#undef RB_X_ENUM
        RB_MSG_COUNT
} rb_msg_type_t;

/* Wire name of a type ("HELLO"); "?" for an unknown value. */
const char *rb_msg_type_name(rb_msg_type_t t);

/* ---- message bodies ---- */

#define RB_TELEM_NAME_MAX 32 /* device and interface names */
#define RB_TELEM_DEVS     64
#define RB_TELEM_NICS     16

typedef struct rb_root_info {
    char path[RB_PATH_MAX];
    uint64_t free_bytes;  /* statvfs f_bavail * f_frsize */
    uint64_t total_bytes; /* statvfs f_blocks * f_frsize */
    /* version 12: the mount that holds it and, for a local block device, the disk */
    char fs_type[RB_NAME_MAX];   /* "ext4", "fuse.glusterfs"; "" unknown */
    char source[256];            /* "/dev/vda1", "gfs1:/vol0" (cut to fit) */
    char options[128];           /* the mount's options, "rw,relatime" (cut to fit) */
    char dev_model[RB_NAME_MAX]; /* the source's disk (sysfs), "" not a local device */
    char dev_serial[RB_NAME_MAX];
    uint8_t dev_rotational;
} rb_root_info_t;

#define RB_HW_TEXT_MAX 128 /* a CPU model as /proc/cpuinfo names it */

/* A network interface of the host (version 12). */
typedef struct rb_nic_info {
    char name[RB_TELEM_NAME_MAX];
    uint32_t speed_mbps; /* link speed, 0 unknown or down */
    char mac[24];        /* its address, "" none */
} rb_nic_info_t;

typedef struct rb_msg_hello {
    char name[RB_NAME_MAX];
    char rack[RB_NAME_MAX];
    char hostname[RB_NAME_MAX];
    char agent_version[RB_NAME_MAX];
    uint32_t pid;
    uint32_t cores;
    uint64_t ram_bytes;
    uint64_t cache_bytes; /* page cache now (/proc/meminfo Cached) */
    uint32_t nroots;
    rb_root_info_t roots[RB_MAX_ROOTS];
    /* version 12: what the host is */
    char kernel[RB_NAME_MAX];       /* uname's release */
    char cpu_model[RB_HW_TEXT_MAX]; /* /proc/cpuinfo's model name, "" unknown */
    uint32_t nnics;
    rb_nic_info_t nics[RB_TELEM_NICS]; /* its interfaces but lo */
    /* version 14: every block device of the host but partitions and empty ones */
    uint32_t ndevs;
    struct rb_dev_id *devs; /* malloc'd (rb_host_of_hello keeps a copy) */
    uint32_t ndevs_seen;    /* how many there were, when more than RB_MAX_DEVS */
    /* version 24: which build this is, and its schema's fingerprint in the
     * version it speaks (rb_proto_fingerprint): the coordinator refuses an
     * agent whose version names another schema than its own */
    char build[RB_BUILD_MAX];
    uint64_t fingerprint;
} rb_msg_hello_t;

typedef struct rb_msg_ping {
    uint32_t seq;
    uint64_t t_coord_ns; /* coordinator clock when sent; echoed in PONG */
} rb_msg_ping_t;

typedef struct rb_msg_pong {
    uint32_t seq;
    uint64_t t_coord_ns; /* echo of PING */
    uint64_t t_agent_ns; /* agent clock when answering */
} rb_msg_pong_t;

/* A node this agent reads from (read_shift): which shift, and that node's name. */
typedef struct rb_peer {
    uint32_t shift;
    char name[RB_NAME_MAX];
} rb_peer_t;

#define RB_MAX_PEERS 64 /* distinct read_shift values in one plan */

typedef struct rb_msg_plan {
    char run_id[RB_NAME_MAX];
    uint64_t interval_ns;   /* sample interval */
    uint32_t node_rank;     /* this agent's place among the run's nodes, 0 .. nnodes-1 */
    uint32_t nnodes;        /* nodes in the run */
    char lead[RB_NAME_MAX]; /* name of node 0, whose name prefixes shared files */
    uint32_t npeers;
    rb_peer_t peers[RB_MAX_PEERS]; /* node (rank + shift) % nnodes, for each shift the plan uses */
    uint32_t nphases;
    rb_phase_spec_t *phases; /* nphases entries (owned by the message when decoded) */
    /* version 28: what an agent of this run proves to another that it is,
     * on the data connections of network phases (RB_NET_SECRET bytes; none
     * when the plan has no network phase) */
    uint8_t net_secret[RB_NET_SECRET];
    uint32_t net_secret_len;
} rb_msg_plan_t;

/* One file system a PLAN writes on, as the agent sees it when it accepts the
 * PLAN (before it lays anything out): the coordinator adds up the needs of
 * the nodes that share it (same host and device). */
typedef struct rb_space_info {
    char path[RB_PATH_MAX];    /* a directory of the plan on it, resolved */
    uint64_t dev;              /* its st_dev */
    uint64_t need_bytes;       /* what the plan writes there on this node, at most */
    uint64_t free_bytes;       /* statvfs f_bavail * f_frsize */
    uint64_t total_bytes;      /* statvfs f_blocks * f_frsize */
    uint64_t reserve_bytes;    /* what must stay free there (the agent's --reserve) */
    char fs_type[RB_NAME_MAX]; /* its mount's type ("ext4", "fuse.glusterfs"), "" unknown */
    char source[RB_PATH_MAX];  /* its mount's source ("/dev/vda1", "gfs1:/vol0") */
    uint8_t shared;            /* a type that several hosts mount: one source is one FS */
} rb_space_info_t;

typedef struct rb_msg_space {
    char run_id[RB_NAME_MAX];
    uint32_t nfs;
    rb_space_info_t fs[RB_MAX_ROOTS];
    uint64_t mem_need; /* from 26: the most one phase's IO buffers and lockmem take */
    uint64_t mem_room; /* from 26: what the agent's host has for them (0: not said) */
} rb_msg_space_t;

/* A disk's health as its own counters tell it (smartctl --json), at one
 * moment (version 27): READY carries each measured disk's reading before the
 * run's first phase, END the one after its last. A counter the drive does
 * not report is RB_HEALTH_NA; a disk that could not be read has reason set
 * and every counter RB_HEALTH_NA. */
#define RB_HEALTH_NA     UINT64_MAX
#define RB_HEALTH_DEVS   64  /* disks read per agent and run */
#define RB_HEALTH_REASON 256 /* why a disk could not be read */

enum { RB_SMART_UNKNOWN = 0, RB_SMART_PASSED = 1, RB_SMART_FAILED = 2 };

typedef struct rb_health {
    char dev[128];           /* what was read: /dev/sda, /dev/nvme0 */
    char model[RB_NAME_MAX]; /* as the drive names itself, "" unknown */
    char serial[RB_NAME_MAX];
    char protocol[16];             /* "ATA", "SCSI", "NVMe"; "" not read */
    char reason[RB_HEALTH_REASON]; /* why it was not read ("" when it was) */
    uint32_t verdict;              /* RB_SMART_*: the drive's overall assessment */
    uint32_t exit_status;          /* smartctl's exit status (a bit mask) */
    uint8_t no_smart;              /* not read, and a kind of device that has no SMART of its own
                                      (loop, virtio, device-mapper, md): drive checks do not apply */
    uint64_t reallocated;          /* ATA 5 raw; SCSI the grown defect list */
    uint64_t pending;              /* ATA 197 raw: sectors waiting to be remapped */
    uint64_t offline_unc;          /* ATA 198 raw: offline uncorrectable sectors */
    uint64_t crc_errors;           /* ATA 199 raw: interface CRC errors */
    uint64_t media_errors;         /* NVMe media and data integrity errors; SCSI
                                      uncorrected read and write errors */
    uint64_t error_log;            /* ATA error log's count; NVMe error log entries */
    uint64_t critical_warning;     /* NVMe critical warning bits */
    uint64_t percentage_used;      /* NVMe: endurance used, % (may pass 100) */
    uint64_t available_spare;      /* NVMe: spare left, % */
    uint64_t spare_threshold;      /* NVMe: the spare below which it warns, % */
    uint64_t temperature;          /* degrees C when read */
    uint64_t temperature_max;      /* degrees C, the most seen over the run's readings */
    uint64_t power_on_hours;
} rb_health_t;

typedef struct rb_msg_ready {
    char run_id[RB_NAME_MAX];
    uint64_t prefill_bytes; /* bytes written to lay out files for read phases */
    /* version 28: where it takes the data connections of the plan's network
     * phases (its port is bound, and listens only during such a phase); ""
     * and 0 when the plan has none */
    char net_addr[RB_NET_ADDR_MAX];
    uint32_t net_port;
    /* version 27: each measured disk's health before the first phase */
    uint32_t nhealth;
    rb_health_t *health; /* borrowed when sent; decoded: rb_msg_fini frees it */
} rb_msg_ready_t;

/* REFUSED, ABORT and ERROR share one body. */
typedef struct rb_msg_reason {
    char run_id[RB_NAME_MAX]; /* may be empty */
    int32_t code;             /* negative errno, 0 if none */
    char reason[RB_REASON_MAX];
} rb_msg_reason_t;

/* One link of a network phase as the agent at one end takes it (GO): the
 * job, the node at the other end, and whether this agent opens the streams
 * (sends, or in ping-pong asks) to the address and port that node's READY
 * gave, or takes them. */
typedef struct rb_net_link {
    uint32_t job;               /* index into the phase's jobs */
    uint32_t peer;              /* the other node's rank */
    uint8_t out;                /* 1: this agent connects and sends; 0: it accepts and receives */
    char addr[RB_NET_ADDR_MAX]; /* out: where the peer listens */
    uint32_t port;
} rb_net_link_t;

typedef struct rb_msg_go {
    char run_id[RB_NAME_MAX];
    uint32_t phase;       /* index into the plan's phases */
    uint64_t t_go_ns;     /* start time on the coordinator's clock */
    int64_t offset_ns;    /* agent clock - coordinator clock, as estimated */
    uint64_t interval_ns; /* this phase's sample interval (version 11); 0 = the plan's */
    /* version 28: a network phase's links that end at this agent */
    uint32_t nlinks;
    rb_net_link_t *links; /* borrowed when sent; decoded: rb_msg_fini frees it */
    /* version 30: the phase's DONE leaves this long after its last SAMPLE */
    uint64_t done_hold_ns;
} rb_msg_go_t;

/* The directions of IO, counted apart as fio does (its read, write and trim
 * blocks; trims since version 13). */
typedef enum { RB_DIR_READ = 0, RB_DIR_WRITE = 1, RB_DIR_TRIM = 2 } rb_dir_t;
#define RB_NDIRS 3

/* fio's three latencies of an IO (docs/metrics.md): lat from the IO's
 * preparation to its completion, slat from preparation to submission (only
 * for an IO the engine queued), clat from submission to completion. */
typedef enum { RB_LAT_LAT = 0, RB_LAT_SLAT = 1, RB_LAT_CLAT = 2 } rb_lat_kind_t;
#define RB_NLATS 3

/* "read", "write", "trim"; "?" for another value. */
const char *rb_dir_name(rb_dir_t d);
/* "lat", "slat", "clat"; "?" for another value. */
const char *rb_lat_kind_name(rb_lat_kind_t k);

/* One job's share of a sample or of a phase's totals on one agent. */
typedef struct rb_job_stat {
    uint32_t job;           /* index into the phase's jobs */
    uint64_t bytes;         /* read and written */
    uint64_t ops;           /* reads and writes */
    uint64_t errors;        /* failed IOs (verify mismatches included) */
    uint64_t read_bytes;    /* of bytes, those read */
    uint64_t read_ops;      /* of ops, the reads */
    uint64_t verify_errors; /* blocks whose check failed */
    rb_hist_t *hist;        /* latency of completed ops, ns (owned by the message when decoded) */
    /* version 6: per direction (read_* above are the reads') */
    uint64_t write_bytes, write_ops; /* of bytes and ops, the writes */
    uint64_t trim_bytes, trim_ops;   /* of bytes and ops, the trims */
    /* per direction and latency, ns; NULL travels as empty ("read_lat",
     * "read_slat", "read_clat", "write_lat", ...; owned when decoded) */
    rb_hist_t *lat[RB_NDIRS][RB_NLATS];
    /* version 20, in DONE: the job's steady state on this agent (0 in SAMPLE) */
    uint32_t ss_state; /* rb_ss_state_t: not judged, not attained, attained */
    uint64_t ss_t_ns;  /* from the job's start to the judgement that it was steady, or
                        * to its end when it was not */
    uint64_t ss_crit;  /* the last criterion judged, millionths (of %, IOPS, bytes/s) ... */
    uint64_t ss_mean;  /* ... and the window's mean then, millionths; both 0: none judged */
    /* version 21, in DONE: latency_target's depth found on this agent (the
     * smallest of the job's workers); 0 in SAMPLE and without latency_target */
    uint32_t lat_depth;
    /* version 22, in DONE: bytes of each of the job's files (or of its
     * region of a shared one) as this agent settled them; 0 in SAMPLE */
    uint64_t filesize;
} rb_job_stat_t;

/* Host telemetry of one sample interval (docs/telemetry.md), in integers:
 * per mille (‰) for shares, milli-units for averages. */
/* (RB_TELEM_NAME_MAX, RB_TELEM_DEVS and RB_TELEM_NICS are above, with HELLO's NICs) */

typedef struct rb_telem_dev {
    char name[RB_TELEM_NAME_MAX];   /* as /proc/diskstats names it */
    char parent[RB_TELEM_NAME_MAX]; /* the device it is a member of; "" for a root's */
    uint8_t member;                 /* 1: a member of parent; 0: holds a --root */
    uint64_t rd_bps, wr_bps;        /* bytes per second */
    uint64_t rd_iops, wr_iops;      /* completed per second */
    uint32_t util_pm;               /* time busy, ‰ of the interval (0 .. 1000) */
    uint64_t qdepth_m;              /* average IOs in flight × 1000 */
    uint64_t await_us;              /* mean time per completed IO */
    uint64_t rd_bytes, wr_bytes;    /* moved in this interval (the device's own count) */
} rb_telem_dev_t;

typedef struct rb_telem_nic {
    char name[RB_TELEM_NAME_MAX];
    uint64_t rx_bps, tx_bps; /* bytes per second */
    uint32_t speed_mbps;     /* link speed, Mb/s; 0 unknown */
} rb_telem_nic_t;

typedef struct rb_telem {
    uint32_t user_pm, system_pm, iowait_pm, idle_pm,
        irq_pm;                        /* CPU ‰ of all cores (irq + softirq) */
    uint32_t ncpu;                     /* online cores */
    uint32_t load1_m;                  /* 1-minute load × 1000 */
    uint64_t ctxt_per_s;               /* context switches per second */
    uint64_t cached, dirty, writeback; /* page cache bytes */
    uint32_t ndevs;
    rb_telem_dev_t devs[RB_TELEM_DEVS];
    uint32_t nnics;
    rb_telem_nic_t nics[RB_TELEM_NICS];
} rb_telem_t;

typedef struct rb_msg_sample {
    char run_id[RB_NAME_MAX];
    uint32_t phase;
    uint32_t seq;        /* 0, 1, 2, ... within the phase */
    uint64_t t_start_ns; /* interval start, agent clock */
    uint64_t t_end_ns;   /* interval end, agent clock */
    uint32_t njobs;
    rb_job_stat_t *jobs; /* per job: deltas over the interval */
    uint32_t ntelem;     /* 0, or 1 when the agent reads its host's telemetry */
    rb_telem_t *telem;   /* the host over the interval (owned by the message when decoded) */
} rb_msg_sample_t;

typedef struct rb_checkpt {
    uint64_t t_ns;  /* agent clock */
    uint64_t bytes; /* bytes done by the worker at t_ns */
} rb_checkpt_t;

typedef struct rb_worker_stat {
    uint32_t job;        /* index into the phase's jobs */
    uint32_t worker;     /* 0 .. numjobs-1 */
    uint64_t t_start_ns; /* first IO issued, agent clock */
    uint64_t t_end_ns;   /* last IO completed, agent clock */
    uint64_t bytes;
    uint64_t ops;
    uint64_t errors;
    uint64_t read_bytes;
    uint64_t read_ops;
    uint64_t verify_errors;
    uint64_t write_bytes, write_ops; /* version 6: the writes' share */
    uint64_t trim_bytes, trim_ops;   /* ... and the trims' */
    uint32_t ncheckpts;
    rb_checkpt_t *checkpts; /* progress over time, increasing t_ns (for stonewall figures) */
    uint64_t sw_t_ns;       /* stonewall_time: when it stopped issuing (0 = finished before) */
    uint64_t sw_bytes;      /* bytes done by then */
    uint64_t sw_ops;        /* ops done by then */
    uint32_t dev;           /* version 12: 1 + its device's index in DONE's devs; 0 none */
    uint64_t found;         /* version 19: files a find step matched (of ops examined) */
    uint32_t first_errno;   /* version 21: errno of the first error it went on after (0 none) */
} rb_worker_stat_t;

#define RB_MAX_DEVS 128 /* devices of one agent's phase with figures of their own */

/* A block device a phase's workers ran on, as the agent found it (sysfs). */
typedef struct rb_dev_id {
    char path[RB_PATH_MAX];       /* as the job names it: /dev/loop3, a by-id name */
    char name[RB_TELEM_NAME_MAX]; /* its kernel name, loop3 */
    char model[RB_NAME_MAX];      /* device/model, "" unknown */
    char vendor[RB_NAME_MAX];     /* device/vendor */
    char serial[RB_NAME_MAX];     /* serial, device/serial or the wwid, "" unknown */
    char firmware[RB_NAME_MAX];   /* device/rev or device/firmware_rev */
    uint64_t size;                /* bytes */
    uint32_t lbs, pbs;            /* logical and physical block size */
    uint8_t rotational;           /* queue/rotational */
    char scheduler[RB_NAME_MAX];  /* queue/scheduler's choice, "" none */
    /* version 14: the queue as the kernel sets it, and, in HELLO, what the agent may do */
    uint32_t read_ahead_kb; /* queue/read_ahead_kb */
    uint32_t nr_requests;   /* queue/nr_requests: the block layer's queue depth */
    uint32_t queue_depth;   /* device/queue_depth: the disk's own (SCSI, SATA), 0 unknown */
    uint32_t access;        /* HELLO: RB_DEV_NONE, RB_DEV_READ or RB_DEV_WRITE */
    char use[128];          /* HELLO: why it may not be read or written, "" when it may */
} rb_dev_id_t;

enum { RB_DEV_NONE = 0, RB_DEV_READ = 1, RB_DEV_WRITE = 2 };

/* What one end of a link of a network phase counted (DONE, version 28):
 * the sender its bytes sent, the receiver its bytes received, over all the
 * link's streams, from the first stream's start (authenticated) to the last
 * byte, agent clock. */
typedef struct rb_link_stat {
    uint32_t job;
    uint32_t peer;    /* the other node's rank */
    uint8_t out;      /* 1: this end sent; 0: it received */
    uint32_t streams; /* streams that were set up (of the job's numjobs) */
    uint64_t bytes;   /* payload bytes sent or received */
    uint64_t ops;     /* messages; in ping-pong, round trips (the sender's) */
    uint64_t t_start_ns, t_end_ns;
    int32_t status;               /* 0, or -errno of the first failure of a stream */
    char error[RB_NET_ERROR_MAX]; /* what failed ("" if none) */
} rb_link_stat_t;

typedef struct rb_msg_done {
    char run_id[RB_NAME_MAX];
    uint32_t phase;
    int32_t status;               /* 0, or negative errno of the first failure */
    char error[RB_REASON_MAX];    /* what failed, on which path, why ("" if ok) */
    char error_path[RB_PATH_MAX]; /* file of the first failure ("" if none) */
    uint64_t error_offset;        /* its offset in that file */
    uint32_t nworkers;
    rb_worker_stat_t *workers;
    uint32_t njobs;
    rb_job_stat_t *jobs;    /* per job totals with full histograms */
    uint8_t caches_dropped; /* the page cache was dropped before the phase (drop_caches) */
    int32_t drop_status;    /* 0, or -errno when asked to drop it and that failed */
    /* version 12: the devices whose workers ran on one device each, and each
     * one's totals (dev_stats[i].job: its index in devs) */
    uint32_t ndevs;
    rb_dev_id_t *devs;
    uint32_t ndev_stats;
    rb_job_stat_t *dev_stats;
    /* version 28: a network phase's links at this agent, and the connections
     * to its data port that were refused (not of this run) */
    uint32_t nlinks;
    rb_link_stat_t *links;
    uint64_t net_refused;
    char net_refused_by[RB_REASON_MAX]; /* who, and why: "10.0.0.9:41234 (no proof), ..." */
    uint64_t net_retrans; /* TCP segments the host retransmitted over the phase (/proc/net/snmp) */
} rb_msg_done_t;

/* STONEWALL (agent → coord): every worker of job `job` stopped at its
 * stonewall or finished; ops is the most any of them did. WEAROUT (coord →
 * agent): every worker of the job goes on until it has done ops. */
typedef struct rb_msg_wear {
    char run_id[RB_NAME_MAX];
    uint32_t phase;
    uint32_t job;
    uint64_t ops;
} rb_msg_wear_t;

typedef struct rb_msg_heartbeat {
    uint64_t t_ns;    /* sender's clock */
    uint64_t removed; /* agent → coord, from 25: files its clean-up removed so far (0: none on) */
    uint64_t period_ns; /* coord → agent, from 29: its HEARTBEATs come this often from now on
                           (0: not said, the agent's own --heartbeat) */
} rb_msg_heartbeat_t;

typedef struct rb_msg_end {
    char run_id[RB_NAME_MAX];
    uint64_t removed_files; /* agent → coord: files removed; 0 from the coordinator */
    int32_t status;         /* agent → coord: 0 or -errno of a failed removal */
    /* version 27, agent → coord: each measured disk's health after the run */
    uint32_t nhealth;
    rb_health_t *health; /* as READY's */
} rb_msg_end_t;

typedef struct rb_msg {
    rb_msg_type_t type;
    uint32_t version; /* as received; RB_PROTO_VERSION when encoding */
    union {
        rb_msg_hello_t hello;
        rb_msg_ping_t ping;
        rb_msg_pong_t pong;
        rb_msg_plan_t plan;
        rb_msg_ready_t ready;
        rb_msg_space_t space;
        rb_msg_reason_t refused;
        rb_msg_go_t go;
        rb_msg_sample_t sample;
        rb_msg_done_t done;
        rb_msg_heartbeat_t heartbeat;
        rb_msg_reason_t abort;
        rb_msg_reason_t error;
        rb_msg_wear_t stonewall;
        rb_msg_wear_t wearout;
        rb_msg_end_t end;
    } u;
} rb_msg_t;

/* The version this process speaks: RB_PROTO_VERSION, unless lowered to an
 * older one of the window (an agent or coordinator started with --protocol,
 * to stand for a build of that version). Frames it reads may be of
 * RB_PROTO_OLDEST .. that version. 0, or -EINVAL outside the window. */
int rb_proto_set_speak(uint32_t version, rb_err_t *err);
uint32_t rb_proto_speak(void);

/* Encodes m in protocol `version` (of the window; m->version is ignored)
 * into a new buffer the caller frees with free(). A key newer than version
 * is left out; when it holds anything but its default the message cannot
 * be said in that version, and the return is -EPROTONOSUPPORT naming the
 * key. Else 0 or -errno with err set (-EINVAL for a message that breaks its
 * own bounds). rb_msg_encode writes the version this process speaks. */
int rb_msg_encode_v(const rb_msg_t *m, uint32_t version, void **buf, size_t *len, rb_err_t *err);
int rb_msg_encode(const rb_msg_t *m, void **buf, size_t *len, rb_err_t *err);

/* Decodes one frame into m (its type and the union member of that type
 * zeroed first; the rest of the union is not touched), m->version being the
 * frame's. On success the caller releases the arrays it holds with
 * rb_msg_fini(). On failure m holds nothing to release, m->type and
 * m->version say what the frame claimed to be when it said (RB_MSG_NONE and
 * 0 otherwise), and the return is -EBADMSG (malformed, or a key this build
 * does not know in that version), -EPROTO (a version outside what this
 * process speaks: both versions and builds named in err), or -EMSGSIZE
 * (frame over RB_PROTO_MAX_FRAME). */
int rb_msg_decode(const void *buf, size_t len, rb_msg_t *m, rb_err_t *err);

/* rb_msg_decode without its fast path for frames as this build writes them
 * (straight from the bytes, keys in order): through msgpack-c's object
 * tree, reading any msgpack form, naming what is wrong. rb_msg_decode
 * falls back to it; tests compare the two. */
int rb_msg_decode_full(const void *buf, size_t len, rb_msg_t *m, rb_err_t *err);

/* The type of a frame as this build writes them (its map's head: a version
 * of the window and a known type), without decoding the rest; RB_MSG_NONE
 * for any other frame, which rb_msg_decode reads or refuses in full. */
rb_msg_type_t rb_msg_peek_type(const void *buf, size_t len);

/* The fingerprint of protocol version's schema (of the window): a hash of
 * every message type and every key it has in that version, with its kind,
 * bounds, rules and default. Two builds that say the same version and
 * differ here would read each other wrongly; tests/unit/test_proto pins it
 * per version. */
uint64_t rb_proto_fingerprint(uint32_t version);

/* The newest version any key of any message arrived in (at most
 * RB_PROTO_VERSION, or that key would travel in no version). */
uint32_t rb_proto_newest_since(void);

/* The first field of the job table (RB_JOB_FIELDS) in which a and b differ,
 * as "key" or "key[i].sub", into buf; NULL when every field is equal.
 * Tests compare jobs with it, so that a field added to the table is
 * compared everywhere. */
const char *rb_proto_job_diff(const rb_job_spec_t *a, const rb_job_spec_t *b, char *buf,
                              size_t cap);

/* The fields of the job table: how many, and the wire key, the offset in
 * rb_job_spec_t and the version of field i; 1 when field i of js holds its
 * default. */
size_t rb_proto_job_nfields(void);
const char *rb_proto_job_field(size_t i, size_t *off, uint32_t *since);
int rb_proto_job_field_default(size_t i, const rb_job_spec_t *js);

/* Writes one generated part of docs/protocol.md, what it holds between
 * "<!-- generated: PART -->" and "<!-- end: PART -->": "wire-job" (a job's
 * keys, their types, versions and what each holds) or "wire-keys" (every key
 * of every message). 0, or -EINVAL for another part. */
int rb_proto_doc_markdown(const char *part, FILE *f);
extern const char *const rb_proto_doc_parts[]; /* NULL-terminated */

/* A field of a job that a plan sets and a protocol version lacks. */
typedef struct rb_proto_newer {
    const char *key; /* its wire key */
    size_t off;      /* its offset in rb_job_spec_t (to find the plan option) */
    uint32_t since;  /* the version it arrived in */
} rb_proto_newer_t;

/* The fields of js, newest version last, that hold anything but their
 * default and that protocol `version` has not (up to max into out). Returns
 * how many there are in all. */
int rb_proto_job_newer(const rb_job_spec_t *js, uint32_t version, rb_proto_newer_t *out, int max);

/* Frees what a decoded message owns (plan phases/jobs, stats arrays,
 * histograms, checkpoints) and zeroes its type and the union member of that
 * type. Safe to call twice. */
void rb_msg_fini(rb_msg_t *m);

/* Frees the histograms of a decoded job stat (its hist and every lat[][]),
 * leaving them NULL: for a receiver that has taken what it needs of them
 * and keeps the rest of the message. */
void rb_job_stat_drop_hists(rb_job_stat_t *js);

/* Frees d's devices' records (d->devs NULL), keeping their count: for a
 * receiver that keeps them otherwise (packed). */
void rb_msg_done_drop_devs(rb_msg_done_t *d);

/* Frees a decoded worker stat's checkpoints (NULL, none): for a receiver
 * that keeps them otherwise (packed). */
void rb_worker_stat_drop_checkpts(rb_worker_stat_t *w);

/* How long an agent waits for an answer to a HELLO before it says it again:
 * 1 s, doubling with each one unanswered up to 4 s (prev: the last wait, 0
 * for the first). A fleet that says HELLO at once to a coordinator still
 * taking in the first ones would otherwise say it again every second, each
 * round adding to what the coordinator is behind on: at 16,000 agents it
 * never caught up. A new connection's handshake starts it afresh. */
uint64_t rb_hello_wait_ns(uint64_t prev);

/* What a HELLO says of its host, as a receiver keeps it past the message
 * (rb_host.c). A whole rb_msg_hello_t is 103 KiB, nearly
 * all of it room for 64 roots: kept for each of 16,000 nodes, 1.6 GiB. Its
 * roots and devices are packed (rb_pack.h), each text as long as it is and
 * not the room its field has (a device's 1,544 bytes are about 150 so):
 * read one with rb_host_root or rb_host_dev. */
typedef struct rb_host {
    uint32_t cores;
    uint64_t ram_bytes;
    char kernel[RB_NAME_MAX];
    char cpu_model[RB_HW_TEXT_MAX];
    uint32_t nroots;
    uint32_t nnics;
    rb_nic_info_t *nics;
    uint32_t ndevs;
    uint32_t ndevs_seen;          /* devices the host has, when more than RB_MAX_DEVS */
    struct rb_packed *roots_kept; /* nroots roots, packed (owned) */
    struct rb_packed *devs_kept;  /* ndevs devices, packed (owned) */
} rb_host_t;

/* A host as head says (its cores, RAM, kernel, CPU model and devices seen)
 * with these roots, NICs and devices (at most RB_MAX_ROOTS, RB_TELEM_NICS
 * and RB_MAX_DEVS of each kept), freed with rb_host_free; NULL without
 * memory. */
rb_host_t *rb_host_make(const rb_host_t *head, const rb_root_info_t *roots, uint32_t nroots,
                        const rb_nic_info_t *nics, uint32_t nnics, const struct rb_dev_id *devs,
                        uint32_t ndevs);
/* h's root (device) k, unpacked into *tmp, which it returns; NULL past the last. */
const rb_root_info_t *rb_host_root(const rb_host_t *h, uint32_t k, rb_root_info_t *tmp);
const struct rb_dev_id *rb_host_dev(const rb_host_t *h, uint32_t k, struct rb_dev_id *tmp);
/* h's host as a new *out (any earlier one freed). 0 or -ENOMEM. */
int rb_host_of_hello(const rb_msg_hello_t *h, rb_host_t **out);
void rb_host_free(rb_host_t **h);

/* Frees an array of phases with their jobs (as built by the plan parser or
 * the decoder) and nulls the pointer. */
void rb_phase_specs_free(rb_phase_spec_t **phases, uint32_t nphases);

#endif
