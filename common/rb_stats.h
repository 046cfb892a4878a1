/* Small robust statistics shared by the agent (telemetry) and the
 * coordinator (findings): medians and the imbalanced-member judgement. */
#ifndef RB_STATS_H
#define RB_STATS_H

#include <stdint.h>

#define RB_STATS_MAX_MEMBERS 64 /* members rb_stats_imbalanced judges at once */

/* Median of v[0 .. n-1] (mean of the middle two for an even n; 0 for n = 0).
 * Sorts v in place. */
double rb_stats_median(double *v, uint32_t n);

/* Median absolute deviation of v[0 .. n-1] from median (their median):
 * v[i] becomes |v[i] - median|, reordered. */
double rb_stats_mad(double *v, uint32_t n, double median);

/* Mean, sample standard deviation (n - 1; 0 for one value), min and max of
 * n values, NANs left out (n counts those kept). */
typedef struct rb_stats_summary {
    uint32_t n;
    double mean, stddev, min, max;
} rb_stats_summary_t;

void rb_stats_summarise(const double *v, uint32_t n, rb_stats_summary_t *out);

/* Welch's t-test of two samples given by their summaries: 1 when their
 * means differ at the two-sided 95% level, 0 when they do not, -1 when it
 * cannot be told (a side with fewer than 2 values, or both without spread
 * and equal). *ci_rel gets the half width of the 95% interval of the
 * difference of means relative to a's mean (NAN when it cannot be told). */
int rb_stats_welch(const rb_stats_summary_t *a, const rb_stats_summary_t *b, double *ci_rel);

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
