/* What a run leaves for people and scripts: summary.json (schema
 * rackbench.summary/1, docs/report-schema.md) and report.txt. */
#ifndef RB_REPORT_H
#define RB_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "rb_accept_result.h"
#include "rb_aggregate.h"
#include "rb_build.h"
#include "rb_project_result.h"
#include "rb_units.h"

#define RB_SUMMARY_SCHEMA "rackbench.summary/1"

/* What became of a node's files at the end of the run (summary.json's
 * nodes[].cleanup; rb_report_cleanup_name). */
typedef enum rb_cleanup {
    RB_CLEANUP_UNKNOWN = 0,    /* a summary of a build that did not say */
    RB_CLEANUP_CONFIRMED,      /* its END: its files are gone */
    RB_CLEANUP_NONE,           /* it never had a PLAN: nothing was made */
    RB_CLEANUP_BY_COORDINATOR, /* a --local agent that did not: the coordinator removed them */
    RB_CLEANUP_UNCONFIRMED,    /* lost, or a failed removal: its files may remain */
} rb_cleanup_t;

/* "confirmed", "none needed", "removed by the coordinator", "not confirmed"; NULL unknown. */
const char *rb_report_cleanup_name(rb_cleanup_t c);

typedef struct rb_report_node {
    char name[RB_NAME_MAX];
    char rack[RB_NAME_MAX];
    char hostname[RB_NAME_MAX];
    char version[RB_NAME_MAX];
    char build[RB_BUILD_MAX]; /* the agent's build (its HELLO's, or its version before 24) */
    uint32_t protocol;        /* the protocol it spoke; 0 unknown (a summary before 24) */
    rb_node_status_t status;
    char error[RB_REASON_MAX];
    uint32_t cores;
    uint64_t ram_bytes;
    int64_t clock_offset_ns;
    uint64_t clock_rtt_ns;
    uint64_t removed_files;
    rb_cleanup_t cleanup; /* what became of its files */
    double lost_at_s;     /* when it was lost, seconds after the run began; < 0: it was not */
    double last_sample_s; /* a run that did not finish: its last sample's end, seconds
                             after the run began (samples.csv); < 0: none, or finished */
    /* what the host is, as its HELLO said (kernel, CPU, NICs, its roots'
     * mounts and disks); NULL when unknown. Borrowed. */
    const rb_host_t *hw;
    /* its disks' health before the run and after it (borrowed; NULL: none came) */
    const rb_health_t *health[2];
    uint32_t nhealth[2];
} rb_report_node_t;

typedef struct rb_run_result {
    char run_id[RB_NAME_MAX];
    char build[RB_BUILD_MAX];  /* the coordinator's build that ran it ("": a run from
                                  before summary.json said it) */
    const char *plan_source;   /* borrowed */
    uint64_t started_wall_ns;  /* wall clock at start */
    double duration_s;         /* whole run, coordinator clock */
    double seen_s;             /* a run that did not finish: from its start to its last
                                  sample's end (samples.csv); 0: unknown, or finished */
    int status;                /* 0 ok, else the run failed */
    int live;                  /* running, and its coordinator still holds the folder */
    int running;               /* the run has not finished: written after a phase, or read
                              back from a folder whose run was cut off */
    uint32_t dropped_messages; /* agents' messages that did not fit the run, dropped */
    double interval_s;         /* the plan's sample interval (0: unknown) */
    char error[RB_REASON_MAX]; /* why it failed */
    uint32_t nnodes;
    rb_report_node_t *nodes;      /* borrowed */
    uint32_t nphases;             /* phases that ran (or began) */
    const rb_phase_spec_t *specs; /* borrowed, nphases entries at least */
    const rb_plan_iter_t *iters;  /* borrowed, as specs: each phase's iteration (NULL: none) */
    uint32_t nplanned;            /* phases the plan has (iters' entries) */
    rb_phase_agg_t *phases;       /* borrowed, nphases entries */
    /* the acceptance checks judged (borrowed); NULL when the plan has none */
    const rb_accept_result_t *accept;
    /* the [capacity] projection (borrowed); NULL when the plan has none */
    const rb_project_result_t *projection;
    rb_units_style_t units; /* report.txt's sizes and rates (--units; 0: IEC); not summary.json's */
    /* For the live page: the plan as written, shown instead of the run
     * folder's plan.ini (borrowed; NULL: plan.ini); and no_inventory to
     * leave out what the hosts are (kernel, CPU, NICs, mounts, the devices'
     * table, disks' serials and firmware) unless --metrics-inventory. */
    const char *plan_written;
    int no_inventory;
} rb_run_result_t;

/* Writes summary.json to f. Returns 0 or -errno. */
int rb_report_json(const rb_run_result_t *r, FILE *f);

/* Writes the human report to f. Returns 0 or -errno. */
int rb_report_text(const rb_run_result_t *r, FILE *f);

/* What summary.json, report.txt and report.html say alike (rb_report_common.c). */

/* ns as microseconds. */
double rb_report_us(uint64_t ns);

/* Per-worker operation rates (ops / own time) of a phase: sum, min, avg, max. */
void rb_report_op_rates(const rb_phase_agg_t *a, double out[4]);

/* The IO of a data phase for its header in report.txt and report.html:
 * "randrw bs=4k direct libaio qd32"; a size range as "bs=4k-64k"; the
 * queue depth an engine keeps, with iodepth beside it when they differ
 * ("sync qd1 (iodepth=192)"); a figure its jobs do not share as mixed
 * ("mixed bs mixed direct libaio qd mixed"). Into buf, returned. */
char *rb_report_phase_io(const rb_phase_agg_t *a, const rb_phase_spec_t *sp, char *buf, size_t len);

/* A phase's rw: its jobs', or "mixed" when they differ. */
const char *rb_report_phase_rw(const rb_phase_agg_t *a);

/* A job's IO sizes: "bs=4k", or its range "bs=4k-64k" (bsrange,
 * bssplit, bs=R,W). Into buf, returned. */
char *rb_report_bs(uint64_t bs, uint64_t bs_max, char *buf, size_t len);

/* The latency a phase cut off has, as its intervals bound it
 * (rb_lat_bounds_t, which has intervals): "p50 6.6 .. 518.1  p99 12.6 ..
 * 4177.9  max 4179.1" (us). Into buf, returned. */
char *rb_report_lat_bounds(const rb_lat_bounds_t *b, char *buf, size_t len);

/* Nodes that completed the phase cleanly. */
uint32_t rb_report_covered(const rb_phase_agg_t *a);

/* The nodes and time of r's head line: "nodes 4 (4 ok)  12.3 s"; for a
 * run that did not finish, what its samples show: "nodes 4 seen, 3 sending
 * at its end  41.2 s to its last sample". Into buf, returned. */
char *rb_report_run_nodes(const rb_run_result_t *r, char *buf, size_t len);

/* 1 when r did not finish and node n fell silent: its samples stopped (or
 * never came) more than two sample intervals, and a second, before the
 * run's last. */
int rb_report_silent(const rb_run_result_t *r, const rb_report_node_t *n);

/* The nodes of r that fell silent (rb_report_silent). */
uint32_t rb_report_nsilent(const rb_run_result_t *r);

/* The coordinator's build that ran r ("0.1.0+git716.g4aa5e336d9"); for a run
 * from before summary.json said it, this build's version number. */
const char *rb_report_build(const rb_run_result_t *r);

/* " (at 12.3 s)" for a node lost s seconds into the phase; "" for s < 0 (static buffer). */
const char *rb_report_lost_at(double s);

#endif
