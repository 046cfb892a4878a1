/* fio's per-interval logs (write_bw_log, write_iops_log, write_lat_log with
 * its clat and slat logs, write_hist_log), written by the coordinator into
 * the run folder from samples.csv and latency.csv, in fio's columns, one
 * file per job and node, named as docs/report-schema.md says. */
#ifndef RB_FIOLOG_H
#define RB_FIOLOG_H

#include "rb_err.h"
#include "rb_plan.h"

/* fio's clat histogram bins (FIO_IO_U_PLAT_NR: 29 groups of 64), the
 * columns of its histogram log at log_hist_coarseness=0. */
#define RB_FIOLOG_BINS 1856

/* Writes the logs of every entry of plan->logs into run_dir from
 * run_dir/samples.csv (none without it) and run_dir/latency.csv (no latency
 * or histogram log without it). 0, or -errno with err naming the file that
 * could not be written. */
int rb_fiolog_write(const rb_plan_t *plan, const char *run_dir, rb_err_t *err);

/* The file name of a log: PREFIX_TYPE.x.NODE.log (PREFIX_TYPE.NODE.log
 * without per_job_logs), into buf. Returns buf, or NULL when it does not fit. */
char *rb_fiolog_name(const rb_plan_log_t *l, const char *prefix, const char *type, const char *node,
                     char *buf, size_t len);

/* 1 when job (any job: NULL) asks for a latency or histogram log, whose
 * intervals the run keeps in latency.csv; else 0. */
int rb_fiolog_wants_latency(const rb_plan_t *plan, const char *job);

/* fio's histogram bin of rackbench's histogram bucket (rb_hist.h): the same
 * bin below RB_FIOLOG_BINS - 1, fio's last bin for every bucket above. */
unsigned rb_fiolog_bin(unsigned bucket);

#endif
