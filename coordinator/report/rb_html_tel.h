/* report.html's host charts (CPU, devices, NICs over time) from the run
 * folder's telemetry.csv, read once for every phase. */
#ifndef RB_HTML_TEL_H
#define RB_HTML_TEL_H

#include <stdio.h>

#include "rb_report.h"

typedef struct rb_html_tel rb_html_tel_t;

/* Reads run_dir/telemetry.csv for r's phases into *out (NULL when there is
 * no such file or its columns are not known). 0 or -ENOMEM. */
int rb_html_tel_read(const rb_run_result_t *r, const char *run_dir, rb_html_tel_t **out);

/* Frees *p and nulls it; safe twice. */
void rb_html_tel_destroy(rb_html_tel_t **p);

/* Phase p's charts: CPU and device busy, NIC traffic; nothing when t holds
 * no row of it. 0 or -ENOMEM. */
int rb_html_tel_charts(FILE *f, const rb_html_tel_t *t, uint32_t p, const char *phase);

#endif
