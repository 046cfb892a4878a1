/* `rackbench compare BEFORE... [--vs AFTER...]`: the headline figures of
 * each phase the two sides share, side by side, with the change in
 * percent. Each side's measurements of a phase are every iteration
 * (iterations=N) of every run given for it; a change is called significant
 * only when Welch's t-test over those says so at 95% (and it is at least
 * 1%). With one measurement a side, run-to-run noise is unknown and no
 * verdict is given: the spread between one run's intervals says nothing
 * about the next run. It warns when the runs differ in what they measure
 * (rw, bs, iodepth, engine, workers, nodes ...), judges each node's
 * bandwidth the same way, lists acceptance results that changed, and the
 * drives whose health counters grew from one side's last run to the
 * other's. */
#ifndef RB_COMPARE_H
#define RB_COMPARE_H

#include <stdint.h>
#include <stdio.h>

#include "rb_jw.h"
#include "rb_result.h"

#define RB_COMPARE_MIN_INTERVALS 3    /* fewer per-interval samples: no verdict */
#define RB_COMPARE_MIN_CHANGE    0.01 /* a change below 1% is never called significant */
#define RB_COMPARE_MAX_MEAS      4096 /* measurements of one phase on one side, at most */
#define RB_COMPARE_NODES_ALL     16   /* up to this many nodes, every node's row is shown */

/* Relative spread of n per-interval values: (p75 - p25) / median, the
 * interquartile range over the median (robust to a burst or a stall).
 * Sorts v in place. Negative when it cannot be told (n below
 * RB_COMPARE_MIN_INTERVALS, or a median of 0). */
double rb_compare_spread(double *v, uint32_t n);

/* Writes the comparison of the runs before[0 .. nbefore-1] with
 * after[0 .. nafter-1] to f, as text or (json != 0) as JSON. Returns 0 or
 * -errno. */
int rb_compare_runs(const rb_loaded_run_t *before, uint32_t nbefore, const rb_loaded_run_t *after,
                    uint32_t nafter, int json, FILE *f);

/* The drive health part of a comparison (rb_compare_drives.c): each drive
 * (node, device, serial) as it was after run before and after run after,
 * the drives whose counters grew between them, those not read on a side,
 * and those in one run only; as text to f, or as summary.json-like JSON
 * "drive_health" into w (null when neither run read its drives). 0, or
 * -ENOMEM. */
int rb_compare_drives(rb_jw_t *w, FILE *f, int json, const rb_loaded_run_t *before,
                      const rb_loaded_run_t *after);

/* rb_compare_runs of one run a side. */
int rb_compare(const rb_loaded_run_t *a, const rb_loaded_run_t *b, int json, FILE *f);

#endif
