/* Turns each agent's DONE for a phase into the phase's figures, exactly as
 * docs/metrics.md defines them, on the coordinator's clock. Pure arithmetic:
 * no sockets, no files, so every definition is unit-tested. */
#ifndef RB_AGGREGATE_H
#define RB_AGGREGATE_H

#include <stdint.h>

#include "rb_names.h"
#include "rb_pack.h"
#include "rb_hist.h"
#include "rb_lat.h"
#include "rb_proto.h"

/* How a node ended a phase or the run. */
typedef enum {
    RB_NODE_OK = 0,  /* all its workers finished without error */
    RB_NODE_FAILED,  /* it reported an IO or set-up error */
    RB_NODE_LOST,    /* it fell silent */
    RB_NODE_REFUSED, /* it refused the plan */
    RB_NODE_MISSING, /* it never reported this phase */
    RB_NODE_CUT      /* it was sending samples of this phase when the run was cut off */
} rb_node_status_t;

/* "ok", "failed", "lost", "refused", "missing". */
const char *rb_aggregate_node_status_name(rb_node_status_t s);

/* One direction's share (reads, writes or trims) of a job, node, rack or
 * phase: bytes and ops, and their rates over the window of what it is a
 * share of (the same window as the total's). */
typedef struct rb_agg_dir {
    uint64_t bytes, ops;
    double bw, iops;
} rb_agg_dir_t;

/* What the figures read of a node's DONE: rb_msg_done_t's fields of the
 * same names, but its texts by pointer; kept until the phase's figures
 * (rb_fleet_keep_done), also its workers' checkpoints packed, its devices
 * packed and their histograms summarised (for every node: about 170 bytes,
 * 7 a checkpoint and 150 a device, not 3.3 KiB, 16 and 1,544 + 60 KiB). A
 * field of DONE the figures come to read is added here and in
 * rb_agg_done_of. */
typedef struct rb_agg_done {
    int32_t status;         /* 0, or negative errno of the first failure */
    const char *error;      /* what failed (NULL or "": nothing) */
    const char *error_path; /* file of the first failure (NULL or "": none) */
    uint64_t error_offset;
    uint32_t nworkers;
    rb_worker_stat_t *workers;
    uint32_t njobs;
    rb_job_stat_t *jobs;
    uint8_t caches_dropped;
    int32_t drop_status;
    uint32_t ndevs;
    rb_dev_id_t *devs; /* NULL when kept: dev_ids */
    uint32_t ndev_stats;
    rb_job_stat_t *dev_stats;
    uint32_t nlinks;
    rb_link_stat_t *links;
    uint64_t net_refused;
    const char *net_refused_by; /* NULL or "": none */
    uint64_t net_retrans;
    /* kept: the workers' checkpoints, one rb_pack_checkpts list each in
     * their order (NULL: in the workers themselves) */
    const uint8_t *cps;
    size_t cps_len;
    rb_packed_t *dev_ids; /* kept: its devices packed (NULL: devs) */
    /* kept: its devices' latency, one per dev_stats, whose histograms are
     * dropped (NULL: from the histograms) */
    const rb_lat_summary_t *dev_lat;
} rb_agg_done_t;

/* Done m as the figures read it (borrowing all it points to). */
rb_agg_done_t rb_agg_done_of(const rb_msg_done_t *m);

/* One node's input to a phase's figures. */
typedef struct rb_agg_input {
    const char *name;  /* borrowed */
    const char *rack;  /* borrowed */
    int64_t offset_ns; /* node clock - coordinator clock */
    rb_node_status_t status;
    const rb_agg_done_t *done; /* borrowed; NULL when the node sent none */
    uint64_t ram_bytes;        /* the node's memory, from its HELLO (0: unknown) */
    uint64_t rtt_ns;           /* round trip of the probe that set offset_ns (0: unknown) */
    /* A node without a DONE (lost mid-phase): what its samples of the phase
     * add up to, for its row; the times on the coordinator clock (0: none). */
    uint64_t sampled_bytes, sampled_ops;
    uint64_t sampled_first_ns, sampled_last_ns;
    /* Its latency when its DONE's histograms were merged and freed on
     * arrival (NULL: from the DONE's histograms, or none). */
    const rb_node_lat_t *lat;
} rb_agg_input_t;

typedef struct rb_agg_node {
    char name[RB_NAME_MAX];
    char rack[RB_NAME_MAX];
    rb_node_status_t status;
    char *error; /* why it is not ok (owned; NULL: nothing said), not 1 KiB a node */
    uint32_t workers;
    uint64_t bytes, ops, errors;
    double window_s;            /* its last worker end - its first worker start */
    double bw;                  /* bytes / window_s */
    double iops;                /* ops / window_s */
    uint64_t t_first, t_last;   /* those start and end, coordinator clock (0: none) */
    rb_agg_dir_t dir[RB_NDIRS]; /* per direction, rates over window_s */
    rb_node_lat_t lat;          /* its latency, all IOs and per direction */
} rb_agg_node_t;

/* One job of a phase across all nodes. */
typedef struct rb_agg_job {
    char name[RB_NAME_MAX];
    rb_rw_t rw;
    char ioengine[RB_ENGINE_NAME_MAX];
    uint32_t iodepth;
    uint32_t lat_depth; /* latency_target: the depth found (the smallest of its workers'), or 0 */
    uint64_t bs;
    uint32_t workers;
    uint64_t bytes, ops, errors, read_bytes, read_ops, verify_errors;
    uint64_t found;             /* a find step: files matched (of ops examined) */
    uint32_t first_errno;       /* errno of an error a worker went on after first (0 none) */
    double window_s;            /* its last worker end - its first worker start */
    double bw, iops;            /* over window_s */
    rb_hist_t *hist;            /* merged over its workers on all nodes (== &lats->all) */
    rb_agg_dir_t dir[RB_NDIRS]; /* per direction, rates over window_s */
    rb_lat_set_t *lats;         /* all its histograms, merged likewise (owned) */
} rb_agg_job_t;

/* One worker's row, for iozone's per-process figures. */
typedef struct rb_agg_worker {
    uint32_t node;   /* index into the phase's nodes */
    uint32_t job;    /* index into the phase's jobs */
    uint32_t worker; /* 0 .. numjobs-1 */
    uint64_t bytes, ops, errors;
    double start_s; /* since the phase's first worker start */
    double time_s;  /* its own end - start */
    double bw;      /* bytes / time_s */
} rb_agg_worker_t;

/* A rack's (or the whole cluster's) share of a phase: sums over its nodes
 * and the spread of their bandwidths. */
typedef struct rb_agg_group {
    char name[RB_NAME_MAX]; /* rack name; "cluster" for all nodes */
    uint32_t nodes;         /* its nodes that reported the phase */
    uint64_t bytes, ops;
    double window_s;     /* its last worker end - its first worker start */
    double aggregate_bw; /* bytes / window_s */
    double iops;         /* ops / window_s */
    double node_bw_median, node_bw_min, node_bw_max; /* of its nodes' bw */
    rb_agg_dir_t dir[RB_NDIRS];                      /* per direction, rates over window_s */
    rb_node_lat_t lat; /* from its nodes' histograms merged (count 0: unknown) */
} rb_agg_group_t;

/* The cluster's bandwidth interval by interval, after ramp_time: what it
 * holds (steady state) against what it touched (peak). */
typedef struct rb_agg_steady {
    uint32_t intervals; /* sample intervals counted */
    double interval_s;  /* their length */
    double median_bw;   /* median of the per-interval cluster bandwidth */
    double min_bw;      /* slowest interval */
    double peak_bw;     /* fastest interval */
    double sustained_s; /* longest run of intervals at >= 90% of peak_bw */
} rb_agg_steady_t;

/* fio's steadystate of one job on one node, as its agent judged it. */
typedef struct rb_agg_ss {
    char node[RB_NAME_MAX];
    char job[RB_NAME_MAX];
    char criterion[48]; /* as a plan writes it: "iops:5%", "bw_slope:1048576" */
    uint32_t dur_s;     /* steadystate_duration: the window */
    double ramp_s;      /* steadystate_ramp_time */
    int attained;       /* the job was steady, and was ended then */
    double after_s;     /* from the job's start to that judgement, or to its end */
    double figure;      /* the last criterion judged (in the criterion's unit); < 0: none */
    double mean;        /* the window's mean then (IOPS or bytes/s); < 0: none */
} rb_agg_ss_t;

/* One device of one node over a phase, from its host telemetry. */
typedef struct rb_agg_dev {
    char node[RB_NAME_MAX];
    char device[RB_TELEM_NAME_MAX];
    char parent[RB_TELEM_NAME_MAX]; /* "" for a device that holds a root */
    int member;                     /* a member of parent */
    uint32_t intervals;             /* samples it was in */
    double util_median, util_max;   /* % of the time busy */
    double rd_bps_median, wr_bps_median;
    double await_ms_median;
    uint64_t rd_bytes, wr_bytes; /* what the device counted over the phase */
} rb_agg_dev_t;

/* Who a disk of a phase's figures is: what the reports show of it. The
 * whole of what its agent found (vendor, block sizes, queue) is packed in
 * the phase's disk_ids, row for row (rb_disks_id): a row costs 552 bytes
 * and about 150 packed, not 1,850 (at 16,000 nodes of 4 disks, 119 MiB
 * against 35 + 10). */
typedef struct rb_agg_disk_id {
    const char *path;             /* as the job named it (in the phase's disk_ids, or a
                                     caller's text when there are none) */
    char name[RB_TELEM_NAME_MAX]; /* its kernel name, loop3 */
    char model[RB_NAME_MAX];
    char serial[RB_NAME_MAX];
    char firmware[RB_NAME_MAX];
    uint64_t size; /* bytes */
} rb_agg_disk_id_t;

/* One disk's figures in a phase: a raw block device whose workers ran on
 * it alone (filename=/dev/X, @devices), from the node's DONE. */
typedef struct rb_agg_disk {
    char node[RB_NAME_MAX];
    rb_agg_disk_id_t id; /* who it is, as the agent found it */
    uint32_t workers;
    uint64_t bytes, ops, errors;
    double window_s;            /* its workers' last end - first start */
    double bw, iops;            /* over window_s */
    rb_agg_dir_t dir[RB_NDIRS]; /* per direction, rates over window_s */
    rb_lat_summary_t lat;       /* from its own merged histogram (count 0: none) */
    /* its family: the phase's disks of the same model and size */
    uint32_t family_n;
    double family_median_bw; /* 0 when the family has no disk that moved data */
    double family_mad_bw;    /* the family's median absolute deviation from it */
    double deviation;        /* bw / family_median_bw - 1 (0 without a median) */
} rb_agg_disk_t;

/* A phase rebuilt from samples.csv has no merged histogram, only each
 * sample interval's percentiles: what they say of the phase. Its p50 (p99)
 * lies between the smallest and the largest of its intervals' p50s (p99s),
 * each within the histograms' error; its max is the largest interval max. */
typedef struct rb_lat_bounds {
    uint64_t intervals;    /* sample rows with IO of the kind and a latency; 0: none */
    double p50_lo, p50_hi; /* us */
    double p99_lo, p99_hi; /* us */
    double max;            /* us; 0: samples.csv does not keep it (a direction's) */
} rb_lat_bounds_t;

typedef struct rb_phase_agg {
    char name[RB_NAME_MAX];
    rb_rw_t rw;        /* of the phase's first job */
    uint64_t bs;       /* of the phase's first job */
    int direct;        /* of the phase's first job */
    uint32_t nworkers; /* workers that reported, all nodes */
    uint64_t bytes, ops, errors;
    double window_s;          /* last worker end - first worker start */
    double sample_interval_s; /* the phase's sample interval (0: unknown, an older run) */
    double aggregate_bw;      /* bytes / window_s ("parent sees") */
    double sum_of_rates_bw;   /* sum of each worker's bytes / own time ("children see") */
    double stonewall_s;       /* first worker end - first worker start */
    double stonewall_bw;      /* bytes moved by all workers until then / stonewall_s */
    double iops;              /* ops / window_s */
    double start_skew_s;      /* last worker start - first worker start */
    double clock_error_s;     /* largest half round trip of a started node's offset: each offset
                                 is within this of the truth, start_skew_s within twice it */
    double worker_bw_min, worker_bw_avg, worker_bw_max; /* per-worker rates */
    uint64_t t_first_start;                             /* coordinator clock, ns */
    uint64_t t_last_end;                                /* coordinator clock, ns */
    rb_hist_t hist;                    /* latency of all ops of all nodes, merged */
    rb_hist_t lat[RB_NDIRS][RB_NLATS]; /* per direction: lat, slat, clat, merged likewise */
    rb_agg_dir_t dir[RB_NDIRS];        /* per direction, rates over window_s */
    /* the coordinator's wall clock (UTC ns since the epoch; 0: unknown) at
     * the phase's GO, its first worker start and its last worker end */
    uint64_t go_utc_ns, first_start_utc_ns, last_end_utc_ns;
    int partial; /* some node did not finish this phase cleanly */
    uint64_t read_bytes, read_ops, verify_errors;
    uint64_t found; /* a find step: files matched (of ops examined) */
    /* the first failure reported, by node order */
    char error_node[RB_NAME_MAX];
    char error_path[RB_PATH_MAX];
    uint64_t error_offset;
    int32_t error_code; /* negative errno, 0 if none */
    char error[RB_REASON_MAX];
    uint32_t nnodes;
    rb_agg_node_t *nodes; /* nnodes entries, owned */
    uint32_t njobs;
    rb_agg_job_t *jobs; /* njobs entries, owned */
    uint32_t nrows;
    rb_agg_worker_t *rows; /* one per worker that reported, owned */
    /* stonewall_time (IOR's -D): what was done when the workers were stopped */
    uint64_t sw_limit_ns; /* the phase's stonewall_time (0: none) */
    int wearout;          /* workers went on to the busiest one's op count */
    uint32_t sw_stopped;  /* workers stopped by it (the others finished before) */
    uint64_t sw_bytes;    /* bytes done by every worker at its stop (or end) */
    uint64_t sw_ops;      /* ops likewise */
    double sw_s;          /* last stop (or end) - first start */
    double sw_bw;         /* sw_bytes / sw_s */
    uint64_t sw_ops_min;  /* fewest ops of a worker at the stonewall */
    uint64_t sw_ops_max;  /* most */
    /* honest numbers: the page cache */
    uint64_t buffered_set;   /* bytes of buffered file data per node (its working set) */
    uint64_t ram_min;        /* the smallest node memory (0: unknown) */
    int cache_influenced;    /* buffered_set < 2 × a node's memory, not exempt */
    uint32_t caches_dropped; /* nodes that dropped their page cache before the phase */
    uint32_t drop_failed;    /* nodes that were asked to and could not */
    int32_t drop_status;     /* the first such failure, -errno */
    /* roll-ups: node -> rack -> cluster */
    uint32_t nracks;
    rb_agg_group_t *racks;          /* nracks entries (owned), in order of first appearance */
    rb_agg_group_t cluster;         /* all nodes */
    rb_agg_steady_t steady;         /* from the per-interval samples (rb_aggregate_steady) */
    int from_samples;               /* rebuilt from samples.csv: no latency, no per-worker rows */
    rb_lat_bounds_t smp_lat;        /* from_samples: all IOs' latency as its intervals bound it */
    rb_lat_bounds_t smp_dir_lat[2]; /* likewise reads' and writes' (samples.csv has no trims) */
    uint32_t nfindings;
    struct rb_finding *findings; /* what was seen beyond the figures (rb_findings.h), owned */
    /* The cluster's bandwidth point by point (rb_findings_stalls), over the
     * points every node that completed the phase was moving data: the worst
     * interval, the worst window and the stalls are read from it. */
    uint32_t nbw_points;
    double *bw_points;  /* nbw_points entries (owned), bytes/s */
    double bw_point_s;  /* each point's length (an interval, or 2, 4, ... of them) */
    double bw_point_t0; /* the first point's start, seconds after GO */
    double max_stall_s; /* the longest stall finding of the phase, 0 for none */
    uint32_t ndevs;
    rb_agg_dev_t *devs; /* per node and device, from telemetry.csv (owned) */
    uint32_t ndisks;
    rb_agg_disk_t *disks;  /* per node and raw device run on (owned), node order */
    rb_packed_t *disk_ids; /* each one's whole identity, row for row (owned; NULL: none but
                              what the rows say) */
    uint32_t nss;
    rb_agg_ss_t *ss;        /* steadystate per job and node (owned), job by job; none without it */
    struct rb_net_fig *net; /* a network phase's links and nodes (rb_netfig.h, owned), or NULL */
} rb_phase_agg_t;

/* "iops:5%" for a job's steadystate, into buf; returns buf. */
char *rb_aggregate_ss_criterion(const rb_job_spec_t *js, char *buf, size_t len);

/* Bytes of file data one node's workers of the phase reach through the page
 * cache (jobs without direct=1): its working set. A job whose size its
 * agents settle (size 0: a device's, a file's) counts settled[j] bytes a
 * file (DONE's filesize), or nothing when settled is NULL (before a run). */
uint64_t rb_aggregate_phase_buffered_set(const rb_phase_spec_t *spec, const uint64_t *settled);

/* 1 when the phase's figures measure the page cache more than the disks on
 * a node with ram bytes of memory: buffered data under 2 × ram. Exempt: a
 * phase that only reads, each block once, after the cache was dropped
 * (dropped = 1); and one that only writes and syncs what it wrote
 * (end_fsync, fsync_on_close, sync or dsync on every job). */
int rb_aggregate_cache_influenced(const rb_phase_spec_t *spec, uint64_t set, uint64_t ram,
                                  int dropped);

/* Computes a phase's figures from nnodes inputs into out (which the caller
 * releases with rb_aggregate_phase_fini). Returns 0 or -ENOMEM. */
int rb_aggregate_phase(const rb_phase_spec_t *spec, const rb_agg_input_t *in, uint32_t nnodes,
                       rb_phase_agg_t *out);

/* Adds latency histograms merged elsewhere: hists[j] (of njobs, the phase's
 * jobs) into job j's and into the phase's. The coordinator merges each DONE's
 * histograms as it arrives and frees them, so that a DONE kept until the
 * phase's end costs a few KiB, not 20 KiB a job; it hands rb_aggregate_phase
 * DONEs without histograms, then their sum through this. The figures come
 * out the same as from DONEs that kept them. */
void rb_aggregate_add_hists(rb_phase_agg_t *out, const rb_lat_set_t *hists, uint32_t njobs);

/* Adds the latency of rack's nodes merged elsewhere (all IOs, and each
 * direction's lat) to that rack's row, as rb_aggregate_add_hists does for jobs. */
void rb_aggregate_add_rack_hists(rb_phase_agg_t *out, const char *rack, const rb_hist_t *all,
                                 const rb_hist_t dir[RB_NDIRS]);

/* Frees what out owns; safe twice. */
void rb_aggregate_phase_fini(rb_phase_agg_t *out);

/* Fills out->steady from the cluster's bytes in each sample interval:
 * bytes[i] moved in interval i after GO, in secs[i] seconds (NULL: each
 * interval_s long). Intervals ending within the first ramp_s are left out,
 * and so is a last one shorter than half an interval (a phase's tail). */
void rb_aggregate_steady(rb_phase_agg_t *out, const double *bytes, const double *secs, uint32_t n,
                         double interval_s, double ramp_s);

/* Bytes a worker had moved at coordinator time t, interpolated linearly
 * between its progress checkpoints (0 before its start, all after its end). */
double rb_aggregate_worker_bytes_at(const rb_worker_stat_t *w, int64_t offset_ns, uint64_t t);

/* The nodes by name: the one name index of the tree (rb_names, as the
 * coordinator's fleet keeps its nodes), over an array it borrows. */
typedef struct rb_aggregate_name_idx {
    rb_names_array_t idx; /* over the nodes, borrowed */
} rb_aggregate_name_idx_t;

/* An index of the nodes' names, to look up with rb_aggregate_node_lookup();
 * free it with rb_aggregate_name_idx_destroy. NULL when out of memory. */
rb_aggregate_name_idx_t *rb_aggregate_nodes_by_name(const rb_agg_node_t *nodes, uint32_t nnodes);

/* Index of the node called name, or nnodes when there is none. */
uint32_t rb_aggregate_node_lookup(const rb_aggregate_name_idx_t *by_name, uint32_t nnodes,
                                  const char *name);

/* Frees an index of rb_aggregate_nodes_by_name; safe on NULL. */
void rb_aggregate_name_idx_destroy(rb_aggregate_name_idx_t *by_name);

#endif
