/* rackbench run --metrics ADDR: the run's counters in Prometheus's text
 * format at /metrics and the report so far at /, rebuilt by the run loop
 * (docs/prometheus.md). Everything is a no-op without --metrics. */
#ifndef RB_METRICS_H
#define RB_METRICS_H

#include "rb_run_int.h"

/* Checks --metrics before anything is made: its syntax, a non-loopback
 * address only with CURVE on, and --metrics-inventory and
 * --metrics-linger only with it. 0, or 2 (bad usage) with the reason
 * printed. */
int rb_metrics_check(const rb_run_opts_t *o);

/* Starts the server of --metrics. 0, or -errno with the run failed. */
int rb_metrics_start(rb_run_ctx_t *r);

/* Adds one job's share of one sample of node `node` (fleet index) to the
 * node's counters and latency buckets. */
void rb_metrics_sample(rb_run_ctx_t *r, uint32_t node, const rb_job_stat_t *js);

/* Rebuilds /metrics from the counters and the run's state: "gathering",
 * "running" (phase r->cur_phase) or "ended". */
void rb_metrics_publish(rb_run_ctx_t *r, const char *state);

/* Rebuilds / (report.html of the run folder so far, marked running, with
 * the plan as written and, without --metrics-inventory, nothing of what
 * the hosts are) when its refresh is due or force is set. */
void rb_metrics_page(rb_run_ctx_t *r, uint64_t now, int force);

/* The run has ended with exit code `code` and its reports are written:
 * /metrics becomes final (rackbench_run_finished 1, the exit code), / the
 * report as written, and both are served on until every address that
 * scraped /metrics during the run (or, if none did, a first scraper) has
 * read the final text whole, for --metrics-linger at most (default
 * RB_METRICS_LINGER_NS); at once without it, with 0, or once SIGINT or
 * SIGTERM has come (also before: a stopped run does not linger). */
void rb_metrics_linger(rb_run_ctx_t *r, int code);

/* Stops the server and frees the counters; safe twice. */
void rb_metrics_stop(rb_run_ctx_t *r);

#endif
