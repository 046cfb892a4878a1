/* `rackbench compare RUN_A RUN_B`: the headline figures of each phase the
 * two runs share, side by side, with the change in percent; a change is
 * called significant only when it is larger than the spread of the
 * per-interval samples of both runs (burn-in before and after tuning). */
#ifndef RB_COMPARE_H
#define RB_COMPARE_H

#include <stdint.h>
#include <stdio.h>

#include "rb_result.h"

#define RB_COMPARE_MIN_INTERVALS 3    /* fewer per-interval samples: no verdict */
#define RB_COMPARE_MIN_CHANGE    0.01 /* a change below 1% is never called significant */

/* Relative spread of n per-interval values: (p75 - p25) / median, the
 * interquartile range over the median (robust to a burst or a stall).
 * Sorts v in place. Negative when it cannot be told (n below
 * RB_COMPARE_MIN_INTERVALS, or a median of 0). */
double rb_compare_spread(double *v, uint32_t n);

/* Writes the comparison of run a (before) and b (after) to f, as text or
 * (json != 0) as JSON. Returns 0 or -errno. */
int rb_compare(const rb_loaded_run_t *a, const rb_loaded_run_t *b, int json, FILE *f);

#endif
