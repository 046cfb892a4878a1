/* What the files of report.txt share: its lines about the hosts
 * (rb_report_text_hosts.c), placed by the report (rb_report_text.c). */
#ifndef RB_REPORT_TEXT_INT_H
#define RB_REPORT_TEXT_INT_H

#include <stdio.h>

#include "rb_report.h"

/* The nodes' hardware: one line for the nodes alike, naming them. 0 or -ENOMEM. */
int rb_report_text_hw(FILE *f, const rb_run_result_t *r);

/* Which build each node ran: one line when they all ran one, else a note
 * naming who ran what. 0, or -ENOMEM. */
int rb_report_text_builds(FILE *f, const rb_run_result_t *r);

/* Nodes on one host that report the same device, said once for the run.
 * 0 or -ENOMEM. */
int rb_report_text_shared(FILE *f, const rb_run_result_t *r);

/* Every node's block devices from its inventory, one row each: the
 * inventory at the end of report.txt. */
void rb_report_text_devices(FILE *f, const rb_run_result_t *r);

/* The devices at the head of report.txt: those alike on one line with
 * their count (rb_inv_groups), those the agents may not touch summed up in
 * one. 0 or -ENOMEM. */
int rb_report_text_devices_grouped(FILE *f, const rb_run_result_t *r);

/* Per sweep of the plan (the phases one job's sweep_* made), a matrix per
 * rw of bandwidth, IOPS and p99: bs down, iodepth (and numjobs) across.
 * Nothing for a plan without sweeps. 0 or -ENOMEM. */
int rb_report_text_sweeps(FILE *f, const rb_run_result_t *r);

#endif
