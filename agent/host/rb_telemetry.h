/* Host telemetry: what the box did while a phase ran. Once per sample
 * interval the agent's sampler reads /proc (CPU states, load, context
 * switches, per-device IO, per-interface traffic, page cache) and turns the
 * kernel's counters into rates over the interval, for the block devices under
 * the agent's --root folders and the member disks of their md and dm devices.
 * A benchmark figure is only believed when the disks counted the same bytes;
 * a mirror with one drive at 90% busy shows only in per-disk utilisation.
 * Where every figure comes from is written in docs/telemetry.md. */
#ifndef RB_TELEMETRY_H
#define RB_TELEMETRY_H

#include <stdint.h>

#include "rb_err.h"
#include "rb_stats.h"

#define RB_TEL_MAX_DEVS  64 /* block devices tracked (roots and their members) */
#define RB_TEL_MAX_NICS  16 /* network interfaces reported per sample */
#define RB_TEL_NAME_MAX  32 /* device and interface names (the kernel's limit is 32) */
#define RB_TEL_MAX_DEPTH 8  /* levels of slaves followed (dm on md on partitions on disks) */

/* Why a device is tracked. */
typedef enum rb_telemetry_role {
    RB_TEL_ROOT = 0,   /* holds the file system of a --root, or added by name */
    RB_TEL_MEMBER = 1, /* a slave of its parent (md/dm member) or the disk of a partition */
} rb_telemetry_role_t;

/* A tracked block device. */
typedef struct rb_telemetry_devinfo {
    char name[RB_TEL_NAME_MAX];   /* as /proc/diskstats names it ("sda", "md0", "dm-0") */
    char parent[RB_TEL_NAME_MAX]; /* the device it is a member of; "" for a root */
    rb_telemetry_role_t role;     /* root, or member of parent */
    int partition;                /* 1 when the device is a partition of a disk */
} rb_telemetry_devinfo_t;

/* CPU figures over the interval. The states are percentages of all online
 * cores' time and sum to ~100 (guest time is inside user and nice). */
typedef struct rb_telemetry_cpu {
    double user, nice, system, idle, iowait, irq, softirq, steal; /* % */
    uint32_t ncpu;     /* online cores ("cpuN" lines of /proc/stat) */
    double load1;      /* 1-minute load average, as read */
    double ctxt_per_s; /* context switches per second, all cores */
} rb_telemetry_cpu_t;

/* One block device over the interval (bytes are 512-byte sectors × 512). */
typedef struct rb_telemetry_dev_sample {
    rb_telemetry_devinfo_t info;
    int present;                 /* 0 when /proc/diskstats did not list it this time */
    double rd_bps, wr_bps;       /* bytes per second read / written */
    double rd_iops, wr_iops;     /* reads / writes completed per second */
    double util_pct;             /* time with IO in flight, % of the interval (<= 100) */
    double queue_depth;          /* average IOs in flight (weighted ms / interval ms) */
    double await_ms;             /* mean time per completed IO, reads and writes */
    double rd_await_ms;          /* mean time per completed read */
    double wr_await_ms;          /* mean time per completed write */
    uint32_t inflight;           /* IOs in flight when read */
    uint64_t rd_bytes, wr_bytes; /* cumulative since the device appeared (boot) */
} rb_telemetry_dev_t;

/* One network interface over the interval. */
typedef struct rb_telemetry_nic {
    char name[RB_TEL_NAME_MAX];
    double rx_bps, tx_bps;       /* bytes per second received / sent */
    uint64_t rx_bytes, tx_bytes; /* cumulative, as /proc/net/dev counts them */
    uint32_t speed_mbps;         /* link speed in Mb/s; 0 = unknown */
} rb_telemetry_nic_t;

/* Memory, as read at the sample (not rates). */
typedef struct rb_telemetry_mem {
    uint64_t total;     /* MemTotal, bytes */
    uint64_t cached;    /* Cached: page cache, bytes */
    uint64_t dirty;     /* Dirty: waiting to be written, bytes */
    uint64_t writeback; /* Writeback: being written now, bytes */
} rb_telemetry_mem_t;

/* One sample. Lives in the caller's memory (about 12 KiB). */
typedef struct rb_telemetry_snap {
    uint64_t t_ns;     /* the now_ns given to rb_telemetry_sample */
    double interval_s; /* since the previous sample; 0 on a priming sample */
    rb_telemetry_cpu_t cpu;
    rb_telemetry_mem_t mem;
    uint32_t ndevs;        /* devs[0 .. ndevs-1]: every tracked device, in the order found */
    uint32_t devs_dropped; /* devices found but not tracked: more than RB_TEL_MAX_DEVS */
    rb_telemetry_dev_t devs[RB_TEL_MAX_DEVS];
    uint32_t nnics;        /* nics[0 .. nnics-1]: interfaces listed this time, lo left out */
    uint32_t nics_dropped; /* interfaces listed this time beyond RB_TEL_MAX_NICS */
    rb_telemetry_nic_t nics[RB_TEL_MAX_NICS];
} rb_telemetry_snap_t;

typedef struct rb_telemetry rb_telemetry_t;

/* New collector reading proc_root ("/proc") and sys_root ("/sys"), both
 * copied. Tracks the block device of each of the nroots root folders (from
 * its st_dev, through sys_root/dev/block/MAJ:MIN) with its members. A root
 * whose file system has no block device (tmpfs, NFS, overlayfs, btrfs) adds
 * none. NULL with err set on a root that cannot be stat()ed or no memory. */
rb_telemetry_t *rb_telemetry_new(const char *proc_root, const char *sys_root,
                                 const char *const *roots, uint32_t nroots, rb_err_t *err);

/* Frees t and nulls *p. Safe on NULL and twice. */
void rb_telemetry_destroy(rb_telemetry_t **p);

/* Tracks block device name ("md0", "sda1", as sys_root/block names it) as a
 * root, with its members: the slaves under sys_root/block/NAME/slaves,
 * recursively, and for a partition its disk. A device already tracked is not
 * added again. Returns 0, or -ENOENT (no such device) / -errno, err set. */
int rb_telemetry_add_device(rb_telemetry_t *t, const char *name, rb_err_t *err);

/* As rb_telemetry_add_device for the block device major:minor (what
 * rb_telemetry_new does for each root's st_dev). -ENODEV when sys_root does
 * not list it (not a block device). */
int rb_telemetry_add_devno(rb_telemetry_t *t, uint32_t major, uint32_t minor, rb_err_t *err);

/* Tracked devices (at most RB_TEL_MAX_DEVS), device i (borrowed; NULL past
 * the end), and the devices found that did not fit. */
uint32_t rb_telemetry_ndevs(const rb_telemetry_t *t);
const rb_telemetry_devinfo_t *rb_telemetry_dev(const rb_telemetry_t *t, uint32_t i);
uint32_t rb_telemetry_dropped(const rb_telemetry_t *t);

/* Reads the counters at now_ns (CLOCK_MONOTONIC) and fills out. The first
 * call primes: out holds names, memory, load and cumulative bytes with every
 * rate 0, and 0 is returned. Each later call returns 1 with the rates over
 * the interval since the previous call (a now_ns not after it primes again).
 * A counter that went backwards (reset, 32-bit wrap) gives 0 for that
 * interval. Does not allocate. -errno when a /proc file cannot be read, with
 * the path in rb_telemetry_error(t). Not thread-safe: one sampler per t. */
int rb_telemetry_sample(rb_telemetry_t *t, uint64_t now_ns, rb_telemetry_snap_t *out);

/* Why the last failed call on t failed ("" if none did). Borrowed. */
const char *rb_telemetry_error(const rb_telemetry_t *t);

#endif
