/* The arithmetic behind every headline figure (see docs/metrics.md). */
#include <errno.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_aggregate.h"

const char *rb_node_status_name(rb_node_status_t s)
{
    switch (s) {
    case RB_NODE_OK:
        return "ok";
    case RB_NODE_FAILED:
        return "failed";
    case RB_NODE_LOST:
        return "lost";
    case RB_NODE_REFUSED:
        return "refused";
    case RB_NODE_MISSING:
        return "missing";
    }
    return "?";
}

/* Node clock → coordinator clock. */
static uint64_t s_coord(uint64_t t_node, int64_t offset_ns)
{
    return (uint64_t)((int64_t)t_node - offset_ns);
}

double rb_worker_bytes_at(const rb_worker_stat_t *w, int64_t offset_ns, uint64_t t)
{
    uint64_t start = s_coord(w->t_start_ns, offset_ns);
    uint64_t end = s_coord(w->t_end_ns, offset_ns);
    if (t <= start)
        return 0;
    if (t >= end)
        return (double)w->bytes;
    /* Points: (start, 0), the checkpoints, (end, bytes). */
    uint64_t t0 = start;
    double b0 = 0;
    for (uint32_t i = 0; i <= w->ncheckpts; i++) {
        uint64_t t1 = i < w->ncheckpts ? s_coord(w->checkpts[i].t_ns, offset_ns) : end;
        double b1 = i < w->ncheckpts ? (double)w->checkpts[i].bytes : (double)w->bytes;
        if (t1 < t0)
            continue; /* out of order: ignore the point */
        if (t <= t1) {
            if (t1 == t0)
                return b1;
            return b0 + (b1 - b0) * (double)(t - t0) / (double)(t1 - t0);
        }
        t0 = t1;
        b0 = b1;
    }
    return (double)w->bytes;
}

void rb_phase_agg_fini(rb_phase_agg_t *out)
{
    free(out->nodes);
    out->nodes = NULL;
    out->nnodes = 0;
}

int rb_aggregate_phase(const rb_phase_spec_t *spec, const rb_agg_input_t *in, uint32_t nnodes,
                       rb_phase_agg_t *out)
{
    memset(out, 0, sizeof *out);
    rb_hist_init(&out->hist);
    snprintf(out->name, sizeof out->name, "%s", spec->name);
    if (spec->njobs) {
        out->rw = spec->jobs[0].rw;
        out->bs = spec->jobs[0].bs;
        out->direct = spec->jobs[0].direct;
    }
    out->nodes = calloc(nnodes ? nnodes : 1, sizeof *out->nodes);
    if (!out->nodes)
        return -ENOMEM;
    out->nnodes = nnodes;

    uint64_t first_start = UINT64_MAX, last_start = 0, first_end = UINT64_MAX, last_end = 0;
    double rate_sum = 0, rate_min = DBL_MAX, rate_max = 0;
    uint32_t nrates = 0;

    for (uint32_t n = 0; n < nnodes; n++) {
        const rb_agg_input_t *ni = &in[n];
        rb_agg_node_t *an = &out->nodes[n];
        snprintf(an->name, sizeof an->name, "%s", ni->name);
        snprintf(an->rack, sizeof an->rack, "%s", ni->rack);
        an->status = ni->status;
        const rb_msg_done_t *d = ni->done;
        if (!d) {
            if (an->status == RB_NODE_OK)
                an->status = RB_NODE_MISSING;
            out->partial = 1;
            continue;
        }
        if (d->status != 0) {
            an->status = RB_NODE_FAILED;
            snprintf(an->error, sizeof an->error, "%s", d->error);
        }
        if (an->status != RB_NODE_OK)
            out->partial = 1;
        uint64_t nfirst = UINT64_MAX, nlast = 0;
        for (uint32_t i = 0; i < d->nworkers; i++) {
            const rb_worker_stat_t *w = &d->workers[i];
            if (w->t_end_ns < w->t_start_ns || w->t_start_ns == 0)
                continue; /* never started: no time to count */
            uint64_t s = s_coord(w->t_start_ns, ni->offset_ns);
            uint64_t e = s_coord(w->t_end_ns, ni->offset_ns);
            an->workers++;
            an->bytes += w->bytes;
            an->ops += w->ops;
            an->errors += w->errors;
            if (s < nfirst)
                nfirst = s;
            if (e > nlast)
                nlast = e;
            if (s > last_start)
                last_start = s;
            if (e < first_end)
                first_end = e;
            if (e > s) {
                double r = (double)w->bytes * 1e9 / (double)(e - s);
                rate_sum += r;
                if (r < rate_min)
                    rate_min = r;
                if (r > rate_max)
                    rate_max = r;
                nrates++;
            }
        }
        for (uint32_t j = 0; j < d->njobs; j++)
            if (d->jobs[j].hist)
                rb_hist_merge(&out->hist, d->jobs[j].hist);
        if (an->workers) {
            if (nfirst < first_start)
                first_start = nfirst;
            if (nlast > last_end)
                last_end = nlast;
            an->window_s = (double)(nlast - nfirst) / 1e9;
            if (nlast > nfirst) {
                an->bw = (double)an->bytes / an->window_s;
                an->iops = (double)an->ops / an->window_s;
            }
        }
        out->nworkers += an->workers;
        out->bytes += an->bytes;
        out->ops += an->ops;
        out->errors += an->errors;
    }
    if (out->nworkers == 0)
        return 0;

    out->t_first_start = first_start;
    out->t_last_end = last_end;
    out->window_s = (double)(last_end - first_start) / 1e9;
    out->start_skew_s = (double)(last_start - first_start) / 1e9;
    if (last_end > first_start) {
        out->aggregate_bw = (double)out->bytes / out->window_s;
        out->iops = (double)out->ops / out->window_s;
    }
    out->sum_of_rates_bw = rate_sum;
    if (nrates) {
        out->worker_bw_min = rate_min;
        out->worker_bw_max = rate_max;
        out->worker_bw_avg = rate_sum / nrates;
    }
    /* Stonewall: what everyone had moved when the first worker finished. */
    if (first_end > first_start) {
        double moved = 0;
        for (uint32_t n = 0; n < nnodes; n++) {
            const rb_msg_done_t *d = in[n].done;
            for (uint32_t i = 0; d && i < d->nworkers; i++)
                if (d->workers[i].t_start_ns && d->workers[i].t_end_ns >= d->workers[i].t_start_ns)
                    moved += rb_worker_bytes_at(&d->workers[i], in[n].offset_ns, first_end);
        }
        out->stonewall_s = (double)(first_end - first_start) / 1e9;
        out->stonewall_bw = moved / out->stonewall_s;
    }
    return 0;
}
