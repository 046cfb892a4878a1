/* A run folder read back, for `rackbench report` and `rackbench compare`:
 * plan.ini, summary.json (every figure, histograms included, so that the
 * reports render exactly as the run wrote them) and, for a run that was cut
 * off, samples.csv, from which the phase in progress is rebuilt as far as
 * its samples go. */
#ifndef RB_RESULT_H
#define RB_RESULT_H

#include <limits.h>
#include <stdint.h>

#include "rb_accept_result.h"
#include "rb_err.h"
#include "rb_plan.h"
#include "rb_project_result.h"
#include "rb_report.h"
#include "rb_series.h"

typedef struct rb_loaded_run {
    rb_run_result_t res;      /* what the renderers take; points into the members below */
    char dir[PATH_MAX];       /* the run folder */
    char source[PATH_MAX];    /* the plan as the run named it */
    rb_plan_t *plan;          /* plan.ini, parsed (owned) */
    rb_report_node_t *nodes;  /* res.nnodes entries (owned) */
    rb_host_t **hws;          /* res.nnodes: each node's host as summary.json has it (owned) */
    rb_health_t *health;      /* the nodes' disk health readings (owned; they point into it) */
    rb_phase_agg_t *phases;   /* res.nphases entries (owned) */
    rb_accept_result_t acc;   /* the plan's checks judged anew (when it has any) */
    rb_project_result_t proj; /* the plan's projection worked out anew (when it has one) */
    uint32_t from_samples;    /* phases rebuilt from samples.csv (0 or 1) */
} rb_loaded_run_t;

/* Reads the run folder dir into out (the caller's, released with
 * rb_result_run_unload). A folder without summary.json (a run killed before its
 * first phase ended) or with one that says "running" is read as far as it
 * goes and flagged partial. Returns 0, or -errno with err naming the file
 * and what is wrong. */
int rb_result_run_load(const char *dir, rb_loaded_run_t *out, rb_err_t *err);

/* Frees what out holds; safe twice. */
void rb_result_run_unload(rb_loaded_run_t *out);

/* Per sample interval of phase `phase` in dir/samples.csv: the cluster's
 * bytes and ops (all nodes and jobs) and the interval's length. *n gets the
 * number of intervals; the arrays (caller frees) are NULL when there are
 * none. 0 or -errno (-ENOENT without samples.csv). */
int rb_result_samples_series(const char *dir, const char *phase, double interval_s, double **bytes,
                             double **ops, double **secs, uint32_t *n);

/* Bandwidth per sample interval of each node of a phase (series[n] for
 * nodes[n], NULL for a node without samples), from dir/samples.csv; *nint
 * points of *point_s seconds each, the phase's short tail left out. A
 * phase of more than RB_SERIES_POINTS intervals gives points that are the
 * mean rates of 2, 4, ... consecutive intervals (*point_s is that many
 * intervals), so that memory is bounded by the nodes, not by the phase's
 * length. Free with rb_result_samples_series_free(series, nnodes). 0 or -errno. */
int rb_result_samples_node_series(const char *dir, const char *phase, double interval_s,
                                  const rb_agg_node_t *nodes, uint32_t nnodes, double ***series,
                                  uint32_t *nint, double *point_s);
void rb_result_samples_series_free(double **series, uint32_t nnodes);

/* rb_findings_from_tel_series() over the rows of phase a->name in
 * dir/telemetry.csv (nodes by name in a->nodes): the phase's per node and
 * device figures and the findings they show. Nothing when there is no
 * telemetry.csv. 0 or -ENOMEM. */
int rb_result_find_from_telemetry(rb_phase_agg_t *a, const rb_phase_spec_t *spec, const char *dir,
                                  double interval_s, const char *const *hosts);

/* Every value of column `column` (a samples.csv header name, such as
 * "lat_p99_us") in the rows of phase `phase`. *vals (caller frees) is NULL
 * when there are none. 0 or -errno (-ENOENT without samples.csv or column). */
int rb_result_samples_values(const char *dir, const char *phase, const char *column, double **vals,
                             uint32_t *n);

/* A running summary of rates (count, min, max, mean and the sum of squared
 * deviations, Welford's), for fio's bw_ and iops_ figures. */
typedef struct rb_result_rates {
    uint64_t n;
    double min, max, mean, m2;
} rb_result_rates_t;

/* fio's bandwidth and IOPS samples of one entry: reads' and writes' rates
 * (samples.csv has no trims). */
typedef struct rb_result_dir_rates {
    rb_result_rates_t bw[2];   /* bytes/s, RB_DIR_READ and RB_DIR_WRITE */
    rb_result_rates_t iops[2]; /* ops/s */
} rb_result_dir_rates_t;

/* fio's bandwidth and IOPS samples of phase a from dir/samples.csv: each
 * sample interval (interval_s long) in which an entry has rows is one
 * sample of its rates, the sum of its rows' (its nodes', or its jobs'):
 * jobs[j] for a->jobs[j] over every node (a->njobs entries), nodes[n] for
 * a->nodes[n] (a->nnodes) and all for the phase. Rows shorter than half an
 * interval (a node's last) are left out; interval_s 0: the phase's own,
 * the length most of its rows have. The caller's arrays are zeroed first. 0 or -errno (-ENOENT
 * without samples.csv). */
int rb_result_samples_rates(const char *dir, const rb_phase_agg_t *a, double interval_s,
                            rb_result_dir_rates_t *jobs, rb_result_dir_rates_t *nodes,
                            rb_result_dir_rates_t *all);

/* The phase that was running when the run was cut off, from its samples in
 * dir: per node and job what the samples add up to, over the time they
 * cover (rb_result_csv.c). out is the caller's. 0 or -errno. */
/* interval_s 0: the phase's own, the length most of its rows have. Each
 * node's status is RB_NODE_CUT; out->smp_lat and smp_dir_lat hold what the
 * intervals' percentiles bound (rb_result_cut.c). */
int rb_result_phase_from_samples(const char *dir, const rb_phase_spec_t *spec, double interval_s,
                                 rb_phase_agg_t *out);

/* A run that did not finish: from dir/samples.csv, each node's last
 * sample (nodes[].last_sample_s, < 0 for none; a node of the samples that
 * out lacks is added, RB_NODE_CUT) and the time from the run's start to
 * its last sample (res.seen_s; the start is the first sample's when out
 * has none). 0 or -errno; no samples.csv: 0, nothing set. */
int rb_result_cut_seen(const char *dir, rb_loaded_run_t *out);

/* The host's CPU over phase a from dir/telemetry.csv: usr[n] and sys[n]
 * (a->nnodes entries, the caller's) the means of user and system CPU (% of
 * all the host's cores) over node a->nodes[n]'s host rows of the phase, 0
 * for a node without any; *all_usr and *all_sys the means over every node's
 * rows. 0 or -errno (-ENOENT without telemetry.csv). */
int rb_result_tel_cpu(const char *dir, const rb_phase_agg_t *a, double *usr, double *sys,
                      double *all_usr, double *all_sys);

/* One device of one node over the run, from its telemetry.csv rows, each
 * row covering the time since the device's last row of its phase (the
 * first from GO). */
typedef struct rb_result_disk_use {
    char node[RB_NAME_MAX];
    char name[RB_TELEM_NAME_MAX];
    double read_ios, write_ios;   /* the sum of rd_iops (wr_iops) x the row's time */
    double in_queue_ms;           /* the sum of queue_depth x the row's time, ms */
    double busy_s, secs;          /* the sum of util_pct x the row's time; of the times */
    char last_phase[RB_NAME_MAX]; /* reading: the phase of its last row ... */
    double last_t;                /* ... and its t_s */
} rb_result_disk_use_t;

/* Every node's devices over the run from dir/telemetry.csv, in order of
 * first appearance; *out (caller frees) is NULL when there are none. 0 or
 * -errno (-ENOENT without telemetry.csv). */
int rb_result_tel_disks(const char *dir, rb_result_disk_use_t **out, uint32_t *n);

/* One samples.csv row of a job, as fio's logs take it. */
typedef struct rb_result_job_row {
    char node[RB_NAME_MAX];
    uint32_t seq;            /* its place among the job's rows */
    double t_s, interval_s;  /* the interval's end after GO, and its length */
    uint64_t utc_ns;         /* the interval's end, UTC ns since the epoch */
    double bytes[RB_NDIRS];  /* per direction (trims: what is neither read nor written) */
    double ops[RB_NDIRS];    /* ... and operations */
    double p50_us[RB_NDIRS]; /* reads' and writes' median latency (trims: none, 0) */
} rb_result_job_row_t;

/* Every row of job `job` in dir/samples.csv, of all its phases, in file
 * order; *rows (caller frees) is NULL when there are none. 0 or -errno
 * (-ENOENT without samples.csv). */
int rb_result_samples_job_rows(const char *dir, const char *job, rb_result_job_row_t **rows,
                               uint32_t *n);

#endif
