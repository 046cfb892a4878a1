/* The agents' clock offsets: the probes of a node that just said HELLO, and
 * the clock round before each phase's GO. */
#ifndef RB_CLOCK_H
#define RB_CLOCK_H

#include "rb_run_int.h"

/* A PONG of node n received at now: one clock sample, then the next probe
 * or the end of that node's probes. */
void rb_clock_pong(rb_run_ctx_t *r, rb_fleet_node_t *n, const rb_msg_pong_t *p, uint64_t now);

/* Measures every ready node's offset afresh before a GO; a node that does
 * not answer keeps the offset it had. */
void rb_clock_round(rb_run_ctx_t *r);

#endif
