/* A repeated phase's iterations summed up (see rb_iter.h). */
#include "rb_iter.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

static const char *const s_names[RB_ITER_NFIGS] = {"aggregate_bw", "iops", "lat_p99_us",
                                                   "window_s"};

const char *rb_iter_fig_name(rb_iter_fig_t f)
{
    return (unsigned)f < RB_ITER_NFIGS ? s_names[f] : "?";
}

double rb_iter_fig_value(const rb_phase_agg_t *a, rb_iter_fig_t f)
{
    switch (f) {
    case RB_ITER_BW:
        return a->aggregate_bw;
    case RB_ITER_IOPS:
        return a->iops;
    case RB_ITER_P99_US:
        return a->hist.count ? (double)rb_hist_percentile(&a->hist, 99) / 1e3 : NAN;
    case RB_ITER_TIME_S:
        return a->window_s;
    default:
        return NAN;
    }
}

int rb_iter_groups(const rb_plan_iter_t *iters, uint32_t nphases, const rb_phase_agg_t *aggs,
                   uint32_t nrun, rb_iter_group_t **out, uint32_t *n)
{
    *out = NULL;
    *n = 0;
    if (!iters)
        return 0;
    uint32_t ngroups = 0;
    for (uint32_t p = 0; p < nphases; p++)
        ngroups += iters[p].iterations > 1 && iters[p].iteration == 0;
    if (!ngroups)
        return 0;
    rb_iter_group_t *g = calloc(ngroups, sizeof *g);
    double *v = malloc(RB_MAX_PHASES * sizeof *v);
    if (!g || !v) {
        free(g);
        free(v);
        return -ENOMEM;
    }
    uint32_t k = 0;
    for (uint32_t p = 0; p < nphases; p++) {
        if (iters[p].iterations < 2 || iters[p].iteration != 0)
            continue;
        rb_iter_group_t *gr = &g[k++];
        gr->name = iters[p].base;
        gr->first = p;
        gr->iterations = iters[p].iterations;
        for (uint32_t q = p; q < nrun && q < nphases; q++) {
            if (iters[q].group != p)
                continue;
            gr->ran++;
            gr->partial += aggs[q].partial != 0;
        }
        for (int f = 0; f < RB_ITER_NFIGS; f++) {
            uint32_t m = 0;
            for (uint32_t q = p; q < nrun && q < nphases && m < RB_MAX_PHASES; q++)
                if (iters[q].group == p)
                    v[m++] = rb_iter_fig_value(&aggs[q], (rb_iter_fig_t)f);
            rb_stats_summarise(v, m, &gr->fig[f]);
        }
    }
    free(v);
    *out = g;
    *n = k;
    return 0;
}
