/* What the files of report.html share: its run-level sections
 * (rb_html_page.c), placed by the page (rb_html.c). */
#ifndef RB_HTML_INT_H
#define RB_HTML_INT_H

#include <stdio.h>

#include "rb_report.h"

/* The document's head and style, the run (plan, start, status) and the
 * links to its phases. */
void rb_html_head(const rb_run_result_t *r, FILE *f);

/* The nodes: rack, host, status, cores, RAM, clock, and what each host is
 * (kernel, CPU, NICs, file systems) unless r->no_inventory. */
void rb_html_nodes(const rb_run_result_t *r, FILE *f);

/* Every node's block devices from its inventory; nothing if r->no_inventory. */
void rb_html_devices(const rb_run_result_t *r, FILE *f);

/* The devices at the head of the page: those alike on one row with their
 * count, those the agents may not touch summed up. 0 or -ENOMEM. */
int rb_html_devices_grouped(const rb_run_result_t *r, FILE *f);

/* The plan, escaped: r->plan_written if set, else as the run read it
 * (run_dir/plan.ini). 0 or -ENOMEM. */
int rb_html_plan(const rb_run_result_t *r, const char *run_dir, FILE *f);

/* Per sweep of the plan and rw, heat maps of IOPS and bandwidth and of p99
 * (rb_html_sweep.c); nothing for a plan without sweeps. 0 or -ENOMEM. */
int rb_html_sweeps(const rb_run_result_t *r, FILE *f);

/* A network phase's link matrix as a heat map, each node's out and in, and
 * the refused connections (rb_html_net.c); nothing for another phase. */
void rb_html_net(const rb_phase_agg_t *a, FILE *f);

/* The drives' health before and after the run (rb_html_drives.c): the
 * drives read, the worse first, their findings, the disks not read; nothing
 * for a run whose agents predate protocol 27. 0 or -ENOMEM. */
int rb_html_drives(const rb_run_result_t *r, FILE *f);

#endif
