/* The live progress line on stderr while a phase runs. */
#ifndef RB_PROGRESS_H
#define RB_PROGRESS_H

#include "rb_run_int.h"

/* The counts of a phase just sent GO start at 0; the nodes running it are
 * the nodes it reports on. */
void rb_progress_start(rb_run_ctx_t *r);

/* One line for the span_s seconds until now: elapsed, phase, bandwidth and
 * IOPS, nodes reporting, the slowest node, and how far the phase is (a bar
 * redrawn in place on a terminal). Resets the live counts. */
void rb_progress_line(rb_run_ctx_t *r, const rb_phase_spec_t *ph, uint64_t now, double span_s);

#endif
