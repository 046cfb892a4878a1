/* report.html: a run for people, in one file that opens anywhere: inline SVG
 * charts and CSS, no script, nothing fetched. Every figure comes from the
 * run's result (rb_aggregate.c) or from samples.csv as the run wrote it; the
 * charts plot measured sample intervals only. */
#ifndef RB_HTML_H
#define RB_HTML_H

#include <stddef.h>
#include <stdio.h>

#include "rb_report.h"

/* Writes the HTML report of run r to f, with the time series of
 * run_dir/samples.csv and the text of run_dir/plan.ini (either may be missing
 * or cut short: the page says so). The markup is well-formed XML as well as
 * HTML. Returns 0, -ENOMEM or -EIO. */
int rb_html_report(const rb_run_result_t *r, const char *run_dir, FILE *f);

/* For tests and tuning: the cells (nodes x points) a phase's time series may
 * hold, 8,000,000 by default (0 restores it); a line keeps 1024 points at
 * least. A phase with more intervals gets points of 2, 4, 8... intervals
 * summed. Not thread-safe: set it before rendering. */
void rb_html_set_cell_budget(size_t cells);

#endif
