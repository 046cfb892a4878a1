/* Small robust statistics shared by the agent (telemetry) and the
 * coordinator (findings): medians and the imbalanced-member judgement. */
#ifndef RB_STATS_H
#define RB_STATS_H

#include <stdint.h>

#define RB_STATS_MAX_MEMBERS 64 /* members rb_stats_imbalanced judges at once */

/* Median of v[0 .. n-1] (mean of the middle two for an even n; 0 for n = 0).
 * Sorts v in place. */
double rb_stats_median(double *v, uint32_t n);

/* Below this utilisation (%) every member is idle and the interval is left
 * out of the imbalance judgement. */
#define RB_TEL_IDLE_PCT 1.0

/* Judges the member disks of one parent device: util[i * nmembers + m] is
 * member m's util % in interval i. A member is hot in an interval when its
 * util is >= ratio × the median of its siblings' (and above 0); intervals
 * where all members are under RB_TEL_IDLE_PCT are left out. Returns the
 * number of members hot in more than `most` (e.g. 0.5) of the busy
 * intervals, and sets *which to the one hot most often (the lowest index on
 * a tie); 0 when none is. -EINVAL on bad arguments, -E2BIG for more than
 * RB_STATS_MAX_MEMBERS members. Non-finite or negative utils count as 0. */
int rb_stats_imbalanced(const double *util, uint32_t nmembers, uint32_t nintervals, double ratio,
                        double most, uint32_t *which);

#endif
