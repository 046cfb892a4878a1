/* The run folder: made with plan.ini and the CSV files' headers at the
 * start, summary.json after each phase, the reports at the end. */
#ifndef RB_FOLDER_H
#define RB_FOLDER_H

#include "rb_run_int.h"

/* Names the run (r->run_id) from its start time; nothing is made yet. */
void rb_folder_name(rb_run_ctx_t *r);

/* Makes the run's folder, writes plan.ini, opens samples.csv and
 * telemetry.csv with their headers, and a first summary.json (running: the
 * start time, no node yet). 0, or -errno with the run failed. */
int rb_folder_make(rb_run_ctx_t *r);

/* Closes samples.csv, telemetry.csv and latency.csv (those open), their buffers freed. */
void rb_folder_close_csvs(rb_run_ctx_t *r);

/* summary.json of the phases so far, marked running, so that `rackbench
 * report` can render a run that was cut off. */
void rb_folder_write_progress(rb_run_ctx_t *r);

/* Judges the acceptance checks and the projection, writes summary.json,
 * report.txt and report.html, and prints the report. 0 or -errno. */
int rb_folder_write_reports(rb_run_ctx_t *r);

#endif
