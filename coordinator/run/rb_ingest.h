/* What agents send while a phase runs: SAMPLEs (into samples.csv,
 * telemetry.csv and the phase's in-memory series), DONEs (their histograms
 * merged, their totals kept for the aggregation), STONEWALLs of wearout
 * jobs; and the findings made from the series at the phase's end. */
#ifndef RB_INGEST_H
#define RB_INGEST_H

#include "rb_run_int.h"

/* One SAMPLE of node n: rows of the CSV files, the live and phase counts,
 * the cluster series. One that does not fit the run is dropped and counted. */
void rb_ingest_sample(rb_run_ctx_t *r, rb_fleet_node_t *n, const rb_msg_sample_t *s);

/* The DONE in m of node n, taken in at heard: checked against the plan,
 * its histograms merged, the rest taken over (m is left empty), how long
 * after the node's last sample it came counted. */
void rb_ingest_done(rb_run_ctx_t *r, rb_fleet_node_t *n, rb_msg_t *m, uint64_t heard);

/* STONEWALL: one node's workers of a wearout job all stopped at their stonewall. */
void rb_ingest_stonewall(rb_run_ctx_t *r, rb_fleet_node_t *n, const rb_msg_wear_t *w);

/* Once every node still in the phase has stopped at its stonewall, tells
 * them all how many ops each worker goes on to: the busiest one's. */
void rb_ingest_check_wearout(rb_run_ctx_t *r);

/* Makes phase p the current one: its series, counts and wearout
 * bookkeeping start empty. */
void rb_ingest_phase_start(rb_run_ctx_t *r, uint32_t p);

/* Frees the wearout bookkeeping; makes it anew for phase ph (NULL: none). */
void rb_ingest_wearout_reset(rb_run_ctx_t *r, const rb_phase_spec_t *ph);

/* The findings of phase p once it is aggregated: stragglers, with when each
 * began to lag, and what the host telemetry shows; each one logged. */
void rb_ingest_findings(rb_run_ctx_t *r, uint32_t p);

#endif
