/* The tables of report.html: key/value rows, a phase's figures, notes,
 * roll-up and devices, the acceptance checks and the projection. Each
 * writes well-formed XHTML to f, run text escaped. */
#ifndef RB_TABLE_H
#define RB_TABLE_H

#include <stdio.h>

#include "rb_report.h"

/* A row of a two-column table: label is markup (not escaped), the value
 * printf-formatted, then escaped. */
void rb_table_kv(FILE *f, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A rate for a cell: "1.2 GiB/s", in one unit. Into buf, returned. */
char *rb_table_bw(char *buf, size_t len, double bytes_per_s);

/* The jobs of phase a, when it has more than one: each one's IO, rates
 * over its own time and latency, and why they differ from the phase's
 * (rb_table_jobs.c). */
void rb_table_jobs(const rb_phase_agg_t *a, const rb_phase_spec_t *sp, FILE *f);

/* The headline figures of phase a (meta: a metadata step, in operations). */
void rb_table_figures(const rb_phase_agg_t *a, int meta, FILE *f);

/* The notes of phase a: start skew, stragglers, findings (no disk's serial
 * with no_inventory). 0 or -ENOMEM. */
int rb_table_notes(const rb_phase_agg_t *a, int meta, int no_inventory, FILE *f);

/* The roll-up table of phase a: node -> rack -> cluster. */
void rb_table_rollups(const rb_phase_agg_t *a, int meta, FILE *f);

/* Per node and device of phase a, from host telemetry: a cell shaded by how
 * busy; past 64 devices the least and the most busy, and those a finding names. */
void rb_table_devices(const rb_phase_agg_t *a, FILE *f);

/* A phase's raw disks: who each is (serial and firmware unless
 * no_inventory), its figures and its family's, the farthest below its
 * family first. 0 or -ENOMEM. */
int rb_table_disks(const rb_phase_agg_t *a, int no_inventory, FILE *f);

/* The summary at the top of the page: the verdict, nodes ok, and per phase
 * and direction its bandwidth, IOPS, latency percentiles and findings. */
void rb_table_summary(const rb_run_result_t *r, FILE *f);

/* The acceptance section: every check judged, and the verdict. */
void rb_table_accept(const rb_accept_result_t *acc, FILE *f);

/* The iterations table: each repeated phase's figures over its iterations
 * (nothing when no phase repeats). 0 or -ENOMEM. */
int rb_table_iterations(const rb_run_result_t *r, FILE *f);

/* The projection table of run r (nothing without one): every line labelled
 * measured or projected, with its source beside it. */
void rb_table_projection(const rb_run_result_t *r, FILE *f);

#endif
