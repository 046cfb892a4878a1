/* fio's steady state: a figure (IOPS or bandwidth) sampled once a second is
 * steady when, over a window of the last N samples, its largest distance
 * from the window's mean (iops, bw) or its least-squares slope (iops_slope,
 * bw_slope) is below a limit, given as a value or as a % of the mean. This
 * holds the window and the judgement; the agent feeds it (docs/plan.md,
 * "steadystate"). */
#ifndef RB_STEADY_H
#define RB_STEADY_H

#include <stdint.h>

/* The figure and the test of fio's steadystate=METRIC:LIMIT (wire values). */
typedef enum {
    RB_SS_NONE = 0,       /* no judgement */
    RB_SS_IOPS = 1,       /* largest deviation of IOPS from the mean */
    RB_SS_IOPS_SLOPE = 2, /* slope of IOPS over the window */
    RB_SS_BW = 3,         /* largest deviation of bytes/s from the mean */
    RB_SS_BW_SLOPE = 4,   /* slope of bytes/s */
} rb_ss_metric_t;

/* What a job's judgement came to (wire values). */
typedef enum {
    RB_SS_UNJUDGED = 0,     /* the job had no steadystate */
    RB_SS_NOT_ATTAINED = 1, /* it ended (runtime, size) before it was steady */
    RB_SS_ATTAINED = 2,     /* it was steady, and was ended then */
} rb_ss_state_t;

/* "iops", "iops_slope", "bw", "bw_slope"; NULL for another value. */
const char *rb_steady_metric_name(rb_ss_metric_t m);

/* The criterion of a full window y[0 .. n-1], oldest first: the largest
 * |y[i] - mean| (deviation) or the least-squares slope per sample (slope),
 * as its absolute value, and as a % of the mean when pct. *mean gets the
 * mean. +inf when it cannot be judged (a % of a zero mean, a slope of one
 * sample), which no limit accepts. */
double rb_steady_criterion(const double *y, uint32_t n, int slope, int pct, double *mean);

/* A window of n samples kept in caller's memory (ring: n doubles). */
typedef struct rb_steady {
    double *ring;  /* n samples, borrowed; the oldest at `next` once full */
    uint32_t n;    /* the window's length */
    uint32_t have; /* samples in it, up to n */
    uint32_t next; /* where the next sample goes */
} rb_steady_t;

/* Starts an empty window over ring[0 .. n-1] (n >= 1). */
void rb_steady_init(rb_steady_t *s, double *ring, uint32_t n);

/* Adds a sample; once the window is full, judges it. Returns 1 when the
 * criterion is below limit, else 0; *crit and *mean get the criterion and
 * the mean once judged (untouched before). No allocation: runs once a second
 * beside the IO, in scratch of n doubles (the caller's ring order is undone
 * in place into `tmp`). */
int rb_steady_add(rb_steady_t *s, double y, int slope, int pct, double limit, double *tmp,
                  double *crit, double *mean);

#endif
