/* What the coordinator sees in a phase beyond its figures, said as findings
 * (summary.json `findings[]`, report.txt): stragglers among the nodes, and
 * (from host telemetry) imbalanced member disks, bottlenecks, devices that
 * moved less than the engines reported. Each finding names its kind, node,
 * device, phase, the evidence and when it was first seen. */
#ifndef RB_FINDINGS_H
#define RB_FINDINGS_H

#include <stddef.h>
#include <stdint.h>

#include "rb_aggregate.h"

#define RB_FINDINGS_HEAD_MAX (2 * RB_NAME_MAX + 32) /* rb_findings_head's text, at most */
#define RB_STRAGGLER_MADS    3.0  /* below the median by more than this many MADs ... */
#define RB_STRAGGLER_MARGIN  0.15 /* ... and by more than this fraction of it */

typedef enum {
    RB_FIND_STRAGGLER = 0, /* a node well below the others */
    RB_FIND_IMBALANCE,     /* a member disk busier than its siblings */
    RB_FIND_CPU_BOUND,     /* CPU near saturation */
    RB_FIND_NIC_BOUND,     /* a NIC near its link speed */
    RB_FIND_DEVICE_BOUND,  /* a device near 100% busy */
    RB_FIND_HONESTY,       /* the device moved other bytes than the engines reported */
    RB_FIND_STALL,         /* a node, or the cluster, nearly stopped for a while */
    RB_FIND_OUT_OF_FAMILY, /* a disk well below the disks of its model and size */
    RB_FIND_SLOW_LINK,     /* a network link well below the phase's other links */
    RB_FIND_ASYM_LINK,     /* a network link under half its reverse */
    RB_FIND_LINK_FAILED,   /* a network link's stream failed */
    RB_FIND_NET_BOUND,     /* a node's storage IO near what its network carried in the run */
} rb_finding_kind_t;

typedef struct rb_finding {
    rb_finding_kind_t kind;
    char node[RB_NAME_MAX];
    char device[RB_NAME_MAX]; /* "" when not about a device */
    char evidence[256];       /* the figures that show it, for people */
    double value;             /* the figure judged (e.g. the node's bw) */
    double reference;         /* what it was judged against (e.g. the median) */
    double first_seen_s;      /* seconds after GO it began; -1 when unknown */
    double length_s;          /* stall: how long it lasted; 0 for other kinds */
} rb_finding_t;

/* "straggler", "imbalanced-disk", "cpu-bound", "nic-bound", "device-bound", "honesty",
 * "stall", "out-of-family", "slow-link", "asymmetric-link", "link-failed", "network-bound". */
const char *rb_findings_kind_name(rb_finding_kind_t k);

/* What a finding is and where, as every report and the live warning say
 * it: "out-of-family node1 sdb", "straggler node3", "stall cluster"; into
 * buf, returned. */
char *rb_findings_head(const rb_finding_t *x, char *buf, size_t len);

/* Stragglers of a phase: nodes that did IO whose bandwidth is below the
 * median node's by more than RB_STRAGGLER_MADS median absolute deviations
 * and by more than RB_STRAGGLER_MARGIN of the median. Needs 3 nodes or more.
 * Appends to a->findings. When per-interval series are given (series[n] for
 * node n of a->nodes, nint intervals of interval_s each, NULL for none), the
 * finding says from which interval on the node stayed below that margin of
 * the interval's median. Returns 0 or -ENOMEM. */
int rb_findings_stragglers(rb_phase_agg_t *a, const double *const *series, uint32_t nint,
                           double interval_s);

#define RB_STALL_FRACTION  0.25 /* below this share of its own median ... */
#define RB_STALL_INTERVALS 2    /* ... for at least this many points in a row: a stall */
#define RB_STALL_MIN_S     1.0  /* ... and for at least this long (intervals under 1 s) */

/* Stalls of a phase, from the per-node series (as rb_findings_stragglers
 * takes them): a node whose rate stays below RB_STALL_FRACTION of its own
 * median for RB_STALL_INTERVALS points or more and then recovers, or the
 * cluster (node "", the nodes' sum) likewise; a node's stall inside a
 * cluster stall is the cluster's. Fills a->bw_points (the cluster's rate per
 * point over the points every node that completed the phase moved data)
 * and a->max_stall_s, and appends the stall findings with their start
 * (first_seen_s) and length_s. Returns 0 or -ENOMEM. */
int rb_findings_stalls(rb_phase_agg_t *a, const double *const *series, uint32_t nint,
                       double interval_s);

/* The lowest mean of the cluster's rate over window_s (as many whole points
 * as cover it, at least one) in a->bw_points; NAN when it has no point. */
double rb_findings_min_window_bw(const rb_phase_agg_t *a, double window_s);

#define RB_IMBALANCE_RATIO    1.3  /* a member this busy against its siblings' median ... */
#define RB_IMBALANCE_MOST     0.5  /* ... in more than this share of the busy intervals */
#define RB_BOUND_DEVICE       95.0 /* % busy: device-bound */
#define RB_BOUND_SHARE        0.9  /* of the cores the workers can use, of a NIC's link speed */
#define RB_NIC_PAST_SPEED     1.5  /* a NIC past this share of its speed says a speed not its own */
#define RB_HONESTY_MARGIN     0.05 /* device bytes under the engines' by more than this */
#define RB_HONESTY_MIN        (16ull << 20) /* bytes below which the cross-check says nothing */
#define RB_FIND_MIN_INTERVALS 3             /* samples a bound or imbalance needs to be called */

/* One node's host telemetry of one interval, one device, NIC or the host
 * itself, as the findings take it (the values of a telemetry.csv row). */
typedef struct rb_findings_tel_row {
    char kind;                   /* 'h' host, 'd' device, 'n' NIC */
    const char *name;            /* device or NIC name (borrowed) */
    const char *parent;          /* device: the device it is a member of, "" for none */
    int member;                  /* device: 1 for a member of parent */
    double util;                 /* device: % busy; host: user + system CPU % */
    double rd, wr;               /* device: bytes/s read and written; NIC: rx and tx bytes/s */
    double await_ms;             /* device: mean time a request took */
    uint64_t rd_bytes, wr_bytes; /* device: bytes in the interval */
    double speed_bps;            /* NIC: link speed in bytes/s (0 unknown) */
    uint32_t ncpu;               /* host: CPUs online */
} rb_findings_tel_row_t;

/* A phase's telemetry series, per node and device, NIC or host, in bounded
 * memory whatever the phase's length (means of 2, 4, ... intervals once a
 * series would hold too many points). */
typedef struct rb_findings_tel_series rb_findings_tel_series_t;

/* Empty series for a phase of nnodes nodes (node n is a->nodes[n] of the
 * phase's figures) of about points intervals (0: not known), each series'
 * points then taken in one block of that many. NULL on -ENOMEM. */
rb_findings_tel_series_t *rb_findings_tel_series_new(uint32_t nnodes, uint32_t points);

/* Says each node will have about per_node series (a device, NIC or host
 * each), before the first row: their room is then made at once. */
void rb_findings_tel_series_expect(rb_findings_tel_series_t *t, uint32_t per_node);

/* Frees the series and nulls *p; safe twice. */
void rb_findings_tel_series_destroy(rb_findings_tel_series_t **p);

/* Adds one row of node node for the interval ending t_s seconds after GO
 * (intervals of interval_s). Rows come in the order they arrived. A node out
 * of range, or a row after rb_findings_from_tel_series, is passed over.
 * 0 or -ENOMEM. */
int rb_findings_tel_series_add(rb_findings_tel_series_t *t, uint32_t node, double t_s,
                               double interval_s, const rb_findings_tel_row_t *row);

/* From the phase's telemetry series t, the per node and device figures
 * (a->devs) and what they show (a->findings): imbalanced member disks,
 * CPU-, NIC- and device-bound nodes, and for a phase of direct IO that only
 * reads or only writes, devices that moved fewer bytes than the engines
 * reported (per host: hosts[n] is the host of a->nodes[n], nodes of one host
 * share its devices). Nothing when there is no telemetry. t takes no more
 * rows afterwards. 0 or -ENOMEM. */
int rb_findings_from_tel_series(rb_phase_agg_t *a, const rb_phase_spec_t *spec,
                                rb_findings_tel_series_t *t, double interval_s,
                                const char *const *hosts);

/* What one node's telemetry of a phase adds up to: the CPU cores busy
 * (user + system, the median interval; -1 unknown) and the bytes its NICs
 * (but lo) received and sent over the phase. */
typedef struct rb_findings_tel_node {
    double cpu_cores;
    double nic_rx, nic_tx;
    uint32_t nics; /* NIC points seen: 0, no NIC figures */
} rb_findings_tel_node_t;

/* Node node's sums of t (before or after rb_findings_from_tel_series made
 * its points means); 1 when it has any, else 0. */
int rb_findings_tel_node(const rb_findings_tel_series_t *t, uint32_t node, double interval_s,
                         rb_findings_tel_node_t *out);

/* Adds one finding to a phase (copied). 0 or -ENOMEM. */
int rb_findings_add(rb_phase_agg_t *a, const rb_finding_t *f);

#endif
