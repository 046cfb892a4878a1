/* A network phase in summary.json and report.txt (rb_report_net.c). */
#ifndef RB_REPORT_NET_H
#define RB_REPORT_NET_H

#include <stdio.h>

#include "rb_aggregate.h"
#include "rb_json.h"
#include "rb_jw.h"

/* The name of node of rank r in a's figures, "?" past them. */
const char *rb_report_net_node(const rb_phase_agg_t *a, uint32_t r);

/* summary.json's "network" of a phase (nothing for a phase without one). */
void rb_report_net_json(rb_jw_t *w, const rb_phase_agg_t *a, const rb_phase_spec_t *sp);

/* Reads a phase object's "network" back into a->net (nothing when absent).
 * 0 or -ENOMEM. */
int rb_report_net_read(const rb_json_t *o, rb_phase_agg_t *a, const rb_phase_spec_t *sp);

/* report.txt's lines of a network phase: the pattern, the links' spread,
 * the round trips, the link matrix (or, over 24 nodes, the links found
 * wanting), each node's out and in, failures and refused connections. 0. */
int rb_report_net_text(FILE *f, const rb_phase_agg_t *a, const rb_phase_spec_t *sp);

#endif
