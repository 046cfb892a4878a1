/* A repeated phase's iterations summed up, as IOR's summary block does for
 * its -i repetitions: per figure the mean, sample standard deviation, min
 * and max over the iterations that ran. Pure arithmetic over the phases'
 * figures. */
#ifndef RB_ITER_H
#define RB_ITER_H

#include <stdint.h>

#include "rb_aggregate.h"
#include "rb_plan.h"
#include "rb_stats.h"

/* The figures summed up, in the order summary.json and the reports list them. */
typedef enum {
    RB_ITER_BW = 0, /* aggregate_bw, bytes/s */
    RB_ITER_IOPS,   /* iops */
    RB_ITER_P99_US, /* latency p99 of the merged histogram, us */
    RB_ITER_TIME_S, /* window_s */
    RB_ITER_NFIGS
} rb_iter_fig_t;

/* "aggregate_bw", "iops", "lat_p99_us", "window_s". */
const char *rb_iter_fig_name(rb_iter_fig_t f);

/* One figure of phase a (NAN when it has none: a p99 without latencies). */
double rb_iter_fig_value(const rb_phase_agg_t *a, rb_iter_fig_t f);

typedef struct rb_iter_group {
    const char *name;    /* the phase's base name (borrowed from the plan) */
    uint32_t first;      /* index of its first iteration */
    uint32_t iterations; /* N asked */
    uint32_t ran;        /* iterations that ran */
    uint32_t partial;    /* of those, partial ones */
    rb_stats_summary_t fig[RB_ITER_NFIGS];
} rb_iter_group_t;

/* The repeated phases (iterations > 1) among the plan's nphases phases
 * (iters), over the first nrun of them that ran (aggs). *out (caller
 * frees; NULL when there are none) gets *n groups in plan order. 0 or -ENOMEM. */
int rb_iter_groups(const rb_plan_iter_t *iters, uint32_t nphases, const rb_phase_agg_t *aggs,
                   uint32_t nrun, rb_iter_group_t **out, uint32_t *n);

#endif
