/* fio's per-interval logs (write_bw_log, write_iops_log, write_lat_log),
 * written by the coordinator into the run folder from samples.csv, in fio's
 * columns, one file per job and node, named as docs/report-schema.md says. */
#ifndef RB_FIOLOG_H
#define RB_FIOLOG_H

#include "rb_err.h"
#include "rb_plan.h"

/* Writes the logs of every entry of plan->logs into run_dir from
 * run_dir/samples.csv (none without it). 0, or -errno with err naming the
 * file that could not be written. */
int rb_fiolog_write(const rb_plan_t *plan, const char *run_dir, rb_err_t *err);

/* The file name of a log: PREFIX_TYPE.x.NODE.log (PREFIX_TYPE.NODE.log
 * without per_job_logs), into buf. Returns buf, or NULL when it does not fit. */
char *rb_fiolog_name(const rb_plan_log_t *l, const char *prefix, const char *type, const char *node,
                     char *buf, size_t len);

#endif
