/* report.html: a run for people, in one file that opens anywhere: inline SVG
 * charts and CSS, no script, nothing fetched. Every figure comes from the
 * run's result (rb_aggregate.c) or from samples.csv as the run wrote it; the
 * charts plot measured sample intervals only. */
#ifndef RB_HTML_H
#define RB_HTML_H

#include <stdio.h>

#include "rb_report.h"

/* Writes the HTML report of run r to f, with the time series of
 * run_dir/samples.csv and the text of run_dir/plan.ini (either may be missing
 * or cut short: the page says so). The markup is well-formed XML as well as
 * HTML. Returns 0, -ENOMEM or -EIO. */
int rb_report_html(const rb_run_result_t *r, const char *run_dir, FILE *f);

#endif
