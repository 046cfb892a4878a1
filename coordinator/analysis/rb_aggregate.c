/* The arithmetic behind every headline figure (see docs/metrics.md). */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_aggregate.h"
#include "rb_netfig.h"
#include "rb_disks.h"
#include "rb_engine_info.h"
#include "rb_stats.h"

const char *rb_aggregate_node_status_name(rb_node_status_t s)
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
    case RB_NODE_CUT:
        return "cut off";
    }
    return "?";
}

rb_agg_done_t rb_agg_done_of(const rb_msg_done_t *m)
{
    return (rb_agg_done_t){.status = m->status,
                           .error = m->error,
                           .error_path = m->error_path,
                           .error_offset = m->error_offset,
                           .nworkers = m->nworkers,
                           .workers = m->workers,
                           .njobs = m->njobs,
                           .jobs = m->jobs,
                           .caches_dropped = m->caches_dropped,
                           .drop_status = m->drop_status,
                           .ndevs = m->ndevs,
                           .devs = m->devs,
                           .ndev_stats = m->ndev_stats,
                           .dev_stats = m->dev_stats,
                           .nlinks = m->nlinks,
                           .links = m->links,
                           .net_refused = m->net_refused,
                           .net_refused_by = m->net_refused_by,
                           .net_retrans = m->net_retrans};
}

/* Node clock → coordinator clock. */
static uint64_t s_coord(uint64_t t_node, int64_t offset_ns)
{
    return (uint64_t)((int64_t)t_node - offset_ns);
}

double rb_aggregate_worker_bytes_at(const rb_worker_stat_t *w, int64_t offset_ns, uint64_t t)
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

/* A worker's bytes and ops of direction d. */
static void s_worker_dir(const rb_worker_stat_t *w, int d, uint64_t *bytes, uint64_t *ops)
{
    *bytes = d == RB_DIR_READ ? w->read_bytes : d == RB_DIR_WRITE ? w->write_bytes : w->trim_bytes;
    *ops = d == RB_DIR_READ ? w->read_ops : d == RB_DIR_WRITE ? w->write_ops : w->trim_ops;
}

/* Rates of each direction over window_s (0 without a window). */
static void s_dir_rates(rb_agg_dir_t dir[RB_NDIRS], double window_s)
{
    for (int d = 0; d < RB_NDIRS; d++) {
        dir[d].bw = window_s > 0 ? (double)dir[d].bytes / window_s : 0;
        dir[d].iops = window_s > 0 ? (double)dir[d].ops / window_s : 0;
    }
}

/* The cluster's latency row: the phase's merged histograms. */
static void s_cluster_lat(rb_phase_agg_t *a)
{
    rb_lat_summary_of(&a->cluster.lat.all, &a->hist);
    for (int d = 0; d < RB_NDIRS; d++)
        rb_lat_summary_of(&a->cluster.lat.dir[d], &a->lat[d][RB_LAT_LAT]);
}

/* Sums a group of nodes (a rack, or all when rack is NULL) into g; scratch
 * holds nnodes doubles. */
static void s_group(const rb_phase_agg_t *a, const char *rack, rb_agg_group_t *g, double *scratch)
{
    uint64_t first = UINT64_MAX, last = 0;
    uint32_t nbw = 0;
    snprintf(g->name, sizeof g->name, "%s", rack ? rack : "cluster");
    g->node_bw_min = 0;
    for (uint32_t n = 0; n < a->nnodes; n++) {
        const rb_agg_node_t *an = &a->nodes[n];
        if ((rack && strcmp(an->rack, rack) != 0) || !an->workers)
            continue;
        g->nodes++;
        g->bytes += an->bytes;
        g->ops += an->ops;
        for (int d = 0; d < RB_NDIRS; d++) {
            g->dir[d].bytes += an->dir[d].bytes;
            g->dir[d].ops += an->dir[d].ops;
        }
        if (an->t_first < first)
            first = an->t_first;
        if (an->t_last > last)
            last = an->t_last;
        scratch[nbw++] = an->bw;
        if (an->bw > g->node_bw_max)
            g->node_bw_max = an->bw;
        if (nbw == 1 || an->bw < g->node_bw_min)
            g->node_bw_min = an->bw;
    }
    g->node_bw_median = rb_stats_median(scratch, nbw);
    if (last > first) {
        g->window_s = (double)(last - first) / 1e9;
        g->aggregate_bw = (double)g->bytes / g->window_s;
        g->iops = (double)g->ops / g->window_s;
    }
    s_dir_rates(g->dir, g->window_s);
}

/* Node -> rack -> cluster: one group per rack, in order of first appearance. */
static int s_rollups(rb_phase_agg_t *a)
{
    double *scratch = calloc(a->nnodes ? a->nnodes : 1, sizeof *scratch);
    a->racks = calloc(a->nnodes ? a->nnodes : 1, sizeof *a->racks);
    if (!scratch || !a->racks) {
        free(scratch);
        return -ENOMEM;
    }
    for (uint32_t n = 0; n < a->nnodes; n++) {
        uint32_t k = 0;
        while (k < a->nracks && strcmp(a->racks[k].name, a->nodes[n].rack) != 0)
            k++;
        if (k == a->nracks)
            s_group(a, a->nodes[n].rack, &a->racks[a->nracks++], scratch);
    }
    s_group(a, NULL, &a->cluster, scratch);
    free(scratch);
    return 0;
}

void rb_aggregate_steady(rb_phase_agg_t *out, const double *bytes, const double *secs, uint32_t n,
                         double interval_s, double ramp_s)
{
    rb_agg_steady_t *st = &out->steady;
    memset(st, 0, sizeof *st);
    st->interval_s = interval_s;
    if (interval_s <= 0 || !bytes)
        return;
    uint32_t skip = 0;
    while (skip < n && (skip + 1) * interval_s <= ramp_s + 1e-9)
        skip++;
    if (n > skip && secs && secs[n - 1] < interval_s / 2)
        n--; /* the phase's tail: a part of an interval */
    uint32_t m = n - skip;
    double *bw = calloc(m ? m : 1, sizeof *bw);
    if (!bw)
        return;
    for (uint32_t i = 0; i < m; i++) {
        double t = secs && secs[skip + i] > 0 ? secs[skip + i] : interval_s;
        bw[i] = bytes[skip + i] / t;
        if (bw[i] > st->peak_bw)
            st->peak_bw = bw[i];
        if (i == 0 || bw[i] < st->min_bw)
            st->min_bw = bw[i];
    }
    uint32_t run = 0, best = 0;
    for (uint32_t i = 0; i < m; i++) {
        run = st->peak_bw > 0 && bw[i] >= 0.9 * st->peak_bw ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    st->intervals = m;
    st->sustained_s = best * interval_s;
    st->median_bw = rb_stats_median(bw, m);
    free(bw);
}

void rb_aggregate_phase_fini(rb_phase_agg_t *out)
{
    free(out->findings);
    out->findings = NULL;
    free(out->bw_points);
    out->bw_points = NULL;
    out->nbw_points = 0;
    out->nfindings = 0;
    free(out->devs);
    free(out->disks);
    rb_packed_free(&out->disk_ids);
    out->devs = NULL;
    out->ndevs = 0;
    free(out->racks);
    out->racks = NULL;
    out->nracks = 0;
    for (uint32_t j = 0; out->jobs && j < out->njobs; j++)
        free(out->jobs[j].lats);
    free(out->jobs);
    free(out->rows);
    for (uint32_t i = 0; out->nodes && i < out->nnodes; i++)
        free(out->nodes[i].error);
    free(out->nodes);
    free(out->ss);
    out->ss = NULL;
    out->nss = 0;
    if (out->net)
        rb_net_fig_free(out->net);
    free(out->net);
    out->net = NULL;
    out->jobs = NULL;
    out->rows = NULL;
    out->nodes = NULL;
    out->nnodes = out->njobs = out->nrows = 0;
}

uint64_t rb_aggregate_phase_buffered_set(const rb_phase_spec_t *spec, const uint64_t *settled)
{
    uint64_t set = 0;
    for (uint32_t j = 0; j < spec->njobs; j++) {
        const rb_job_spec_t *js = &spec->jobs[j];
        uint32_t nf = js->nrfiles ? js->nrfiles : 1;
        uint64_t fsz = js->filesize ? js->filesize : js->size / nf;
        if (!js->size && settled) /* the agent's to know: a device's size, a file's */
            fsz = settled[j];
        if (js->direct || js->rw == RB_RW_META || !rb_engine_info_moves_data(js->ioengine))
            continue;
        if (js->shared_file)
            set += (uint64_t)js->numjobs * fsz; /* this node's regions */
        else if (js->filename[0])
            set += fsz;         /* one file for all the node's workers */
        else if (js->device[0]) /* devices the workers share */
            set += (uint64_t)nf * fsz;
        else
            set += (uint64_t)js->numjobs * nf * fsz;
    }
    return set;
}

/* A job reads each of its blocks once: one pass, in order or a permutation. */
static int s_reads_once(const rb_job_spec_t *js)
{
    return !js->time_based && js->loops <= 1 && !(rb_rw_random(js->rw) && js->norandommap);
}

int rb_aggregate_cache_influenced(const rb_phase_spec_t *spec, uint64_t set, uint64_t ram,
                                  int dropped)
{
    if (!set || !ram || set >= 2 * ram)
        return 0;
    int reads_once = 1, writes_synced = 1;
    for (uint32_t j = 0; j < spec->njobs; j++) {
        const rb_job_spec_t *js = &spec->jobs[j];
        if (js->direct || js->rw == RB_RW_META)
            continue;
        reads_once &= !rb_rw_writes(js->rw) && s_reads_once(js);
        writes_synced &= !rb_rw_reads(js->rw) &&
                         (js->end_fsync || js->fsync_on_close || js->sync_mode != RB_SYNC_NONE);
    }
    return !(reads_once && dropped) && !writes_synced;
}

/* stonewall_time: per worker, what was done at its stop (or its end, when it
 * finished before), across nodes. */
static void s_stonewall_time(const rb_phase_spec_t *spec, const rb_agg_input_t *in, uint32_t nnodes,
                             rb_phase_agg_t *out)
{
    for (uint32_t j = 0; j < spec->njobs; j++) {
        if (spec->jobs[j].stonewall_ns > out->sw_limit_ns)
            out->sw_limit_ns = spec->jobs[j].stonewall_ns;
        out->wearout |= spec->jobs[j].wearout;
    }
    if (!out->sw_limit_ns)
        return;
    uint64_t last = 0;
    out->sw_ops_min = UINT64_MAX;
    for (uint32_t n = 0; n < nnodes; n++) {
        const rb_agg_done_t *d = in[n].done;
        for (uint32_t i = 0; d && i < d->nworkers; i++) {
            const rb_worker_stat_t *w = &d->workers[i];
            if (w->t_start_ns == 0 || w->t_end_ns < w->t_start_ns)
                continue;
            int stopped = w->sw_t_ns >= w->t_start_ns && w->sw_t_ns != 0;
            uint64_t ops = stopped ? w->sw_ops : w->ops;
            uint64_t t = s_coord(stopped ? w->sw_t_ns : w->t_end_ns, in[n].offset_ns);
            out->sw_stopped += (uint32_t)stopped;
            out->sw_bytes += stopped ? w->sw_bytes : w->bytes;
            out->sw_ops += ops;
            if (ops < out->sw_ops_min)
                out->sw_ops_min = ops;
            if (ops > out->sw_ops_max)
                out->sw_ops_max = ops;
            if (t > last)
                last = t;
        }
    }
    if (out->sw_ops_min == UINT64_MAX)
        out->sw_ops_min = 0;
    if (last > out->t_first_start && out->t_first_start) {
        out->sw_s = (double)(last - out->t_first_start) / 1e9;
        out->sw_bw = (double)out->sw_bytes / out->sw_s;
    }
}

/* The page cache: working set against each node's memory, and the drops. */
static void s_cache(const rb_phase_spec_t *spec, const rb_agg_input_t *in, uint32_t nnodes,
                    rb_phase_agg_t *out)
{
    uint32_t reported = 0;
    /* sizes the agents settled (devices', files'): the largest a node reports */
    uint64_t settled[RB_MAX_JOBS] = {0};
    for (uint32_t n = 0; n < nnodes; n++)
        for (uint32_t k = 0; in[n].done && k < in[n].done->njobs; k++) {
            const rb_job_stat_t *st = &in[n].done->jobs[k];
            if (st->job < spec->njobs && st->filesize > settled[st->job])
                settled[st->job] = st->filesize;
        }
    out->buffered_set = rb_aggregate_phase_buffered_set(spec, settled);
    for (uint32_t n = 0; n < nnodes; n++) {
        const rb_agg_done_t *d = in[n].done;
        if (in[n].ram_bytes && (!out->ram_min || in[n].ram_bytes < out->ram_min))
            out->ram_min = in[n].ram_bytes;
        if (!d)
            continue;
        reported++;
        out->caches_dropped += d->caches_dropped ? 1 : 0;
        if (d->drop_status) {
            if (!out->drop_failed)
                out->drop_status = d->drop_status;
            out->drop_failed++;
        }
    }
    int all_dropped = reported && out->caches_dropped == reported;
    out->cache_influenced =
        rb_aggregate_cache_influenced(spec, out->buffered_set, out->ram_min, all_dropped);
}

/* Per job and per worker figures (after the phase window is known). */
char *rb_aggregate_ss_criterion(const rb_job_spec_t *js, char *buf, size_t len)
{
    const char *name = rb_steady_metric_name((rb_ss_metric_t)js->ss_metric);
    if (!js->ss_pct && js->ss_limit % 1000000 == 0)
        snprintf(buf, len, "%s:%" PRIu64, name ? name : "?", js->ss_limit / 1000000);
    else
        snprintf(buf, len, "%s:%.12g%s", name ? name : "?", js->ss_limit / 1e6,
                 js->ss_pct ? "%" : "");
    return buf;
}

/* Each node's steadystate of each job that has one, job by job. */
static int s_steadystate(const rb_phase_spec_t *spec, const rb_agg_input_t *in, uint32_t nnodes,
                         rb_phase_agg_t *out)
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < nnodes; k++)
        for (uint32_t i = 0; in[k].done && i < in[k].done->njobs; i++)
            n += in[k].done->jobs[i].ss_state != RB_SS_UNJUDGED &&
                 in[k].done->jobs[i].job < spec->njobs;
    if (!n)
        return 0;
    out->ss = calloc(n, sizeof *out->ss);
    if (!out->ss)
        return -ENOMEM;
    for (uint32_t j = 0; j < spec->njobs; j++) {
        const rb_job_spec_t *js = &spec->jobs[j];
        for (uint32_t k = 0; k < nnodes; k++) {
            for (uint32_t i = 0; in[k].done && i < in[k].done->njobs; i++) {
                const rb_job_stat_t *st = &in[k].done->jobs[i];
                if (st->job != j || st->ss_state == RB_SS_UNJUDGED)
                    continue;
                rb_agg_ss_t *a = &out->ss[out->nss++];
                snprintf(a->node, sizeof a->node, "%s", in[k].name);
                snprintf(a->job, sizeof a->job, "%s", js->name);
                rb_aggregate_ss_criterion(js, a->criterion, sizeof a->criterion);
                a->dur_s = (uint32_t)(js->ss_dur_ns / 1000000000ull);
                a->ramp_s = (double)js->ss_ramp_ns / 1e9;
                a->attained = st->ss_state == RB_SS_ATTAINED;
                a->after_s = (double)st->ss_t_ns / 1e9;
                int none = (!st->ss_crit && !st->ss_mean) || st->ss_crit == UINT64_MAX;
                a->figure = none ? -1 : (double)st->ss_crit / 1e6;
                a->mean = none || st->ss_mean == UINT64_MAX ? -1 : (double)st->ss_mean / 1e6;
            }
        }
    }
    return 0;
}

static int s_jobs_and_rows(const rb_phase_spec_t *spec, const rb_agg_input_t *in, uint32_t nnodes,
                           rb_phase_agg_t *out)
{
    if (s_steadystate(spec, in, nnodes, out) < 0)
        return -ENOMEM;
    uint32_t nrows = 0;
    for (uint32_t n = 0; n < nnodes; n++)
        nrows += in[n].done ? in[n].done->nworkers : 0;
    out->jobs = calloc(spec->njobs ? spec->njobs : 1, sizeof *out->jobs);
    out->rows = calloc(nrows ? nrows : 1, sizeof *out->rows);
    uint64_t *span = calloc(spec->njobs ? spec->njobs : 1, 2 * sizeof *span);
    if (!out->jobs || !out->rows || !span) {
        free(span);
        return -ENOMEM;
    }
    out->njobs = spec->njobs;
    for (uint32_t j = 0; j < spec->njobs; j++) {
        rb_agg_job_t *aj = &out->jobs[j];
        const rb_job_spec_t *js = &spec->jobs[j];
        snprintf(aj->name, sizeof aj->name, "%s", js->name);
        snprintf(aj->ioengine, sizeof aj->ioengine, "%s", js->ioengine[0] ? js->ioengine : "sync");
        aj->rw = js->rw;
        aj->iodepth = js->iodepth ? js->iodepth : 1;
        aj->bs = js->bs;
        aj->lats = malloc(sizeof *aj->lats);
        if (!aj->lats) {
            free(span);
            return -ENOMEM;
        }
        rb_lat_set_init(aj->lats);
        aj->hist = &aj->lats->all;
        span[2 * j] = UINT64_MAX; /* first start */
        span[2 * j + 1] = 0;      /* last end */
    }
    for (uint32_t n = 0; n < nnodes; n++) {
        const rb_agg_done_t *d = in[n].done;
        for (uint32_t i = 0; d && i < d->njobs; i++)
            if (d->jobs[i].job < spec->njobs) {
                rb_agg_job_t *aj = &out->jobs[d->jobs[i].job];
                rb_lat_set_add_stat(aj->lats, &d->jobs[i]);
                uint32_t qd = d->jobs[i].lat_depth; /* latency_target: the smallest found */
                if (qd && (!aj->lat_depth || qd < aj->lat_depth))
                    aj->lat_depth = qd;
            }
        for (uint32_t i = 0; d && i < d->nworkers; i++) {
            const rb_worker_stat_t *w = &d->workers[i];
            if (w->job >= spec->njobs || w->t_start_ns == 0 || w->t_end_ns < w->t_start_ns)
                continue;
            rb_agg_job_t *aj = &out->jobs[w->job];
            uint64_t s = s_coord(w->t_start_ns, in[n].offset_ns);
            uint64_t e = s_coord(w->t_end_ns, in[n].offset_ns);
            aj->workers++;
            aj->bytes += w->bytes;
            aj->ops += w->ops;
            aj->errors += w->errors;
            aj->read_bytes += w->read_bytes;
            aj->read_ops += w->read_ops;
            aj->verify_errors += w->verify_errors;
            aj->found += w->found;
            if (!aj->first_errno)
                aj->first_errno = w->first_errno;
            for (int dd = 0; dd < RB_NDIRS; dd++) {
                uint64_t b, o;
                s_worker_dir(w, dd, &b, &o);
                aj->dir[dd].bytes += b;
                aj->dir[dd].ops += o;
            }
            if (s < span[2 * w->job])
                span[2 * w->job] = s;
            if (e > span[2 * w->job + 1])
                span[2 * w->job + 1] = e;
            rb_agg_worker_t *row = &out->rows[out->nrows++];
            row->node = n;
            row->job = w->job;
            row->worker = w->worker;
            row->bytes = w->bytes;
            row->ops = w->ops;
            row->errors = w->errors;
            row->start_s = s >= out->t_first_start ? (double)(s - out->t_first_start) / 1e9 : 0;
            row->time_s = (double)(e - s) / 1e9;
            row->bw = e > s ? (double)w->bytes / row->time_s : 0;
        }
    }
    for (uint32_t j = 0; j < spec->njobs; j++) {
        rb_agg_job_t *aj = &out->jobs[j];
        if (!aj->workers || span[2 * j + 1] <= span[2 * j])
            continue;
        aj->window_s = (double)(span[2 * j + 1] - span[2 * j]) / 1e9;
        aj->bw = (double)aj->bytes / aj->window_s;
        aj->iops = (double)aj->ops / aj->window_s;
        s_dir_rates(aj->dir, aj->window_s);
    }
    free(span);
    return 0;
}

/* Adds a set into the phase's histograms (and a job's set, when given). */
static void s_add_set(rb_phase_agg_t *out, rb_lat_set_t *job, const rb_lat_set_t *src)
{
    rb_hist_merge(&out->hist, &src->all);
    if (job)
        rb_hist_merge(&job->all, &src->all);
    for (int d = 0; d < RB_NDIRS; d++) {
        for (int k = 0; k < RB_NLATS; k++) {
            rb_hist_merge(&out->lat[d][k], &src->dir[d][k]);
            if (job)
                rb_hist_merge(&job->dir[d][k], &src->dir[d][k]);
        }
    }
}

void rb_aggregate_add_hists(rb_phase_agg_t *out, const rb_lat_set_t *hists, uint32_t njobs)
{
    for (uint32_t j = 0; j < njobs; j++)
        s_add_set(out, j < out->njobs ? out->jobs[j].lats : NULL, &hists[j]);
    s_cluster_lat(out);
}

void rb_aggregate_add_rack_hists(rb_phase_agg_t *out, const char *rack, const rb_hist_t *all,
                                 const rb_hist_t dir[RB_NDIRS])
{
    for (uint32_t k = 0; k < out->nracks; k++) {
        if (strcmp(out->racks[k].name, rack) != 0)
            continue;
        rb_lat_summary_of(&out->racks[k].lat.all, all);
        for (int d = 0; d < RB_NDIRS; d++)
            rb_lat_summary_of(&out->racks[k].lat.dir[d], &dir[d]);
    }
}

/* Latency of each node and rack from the DONEs' histograms, where they kept
 * them (else from in->lat, summed on arrival). */
static int s_node_lats(const rb_agg_input_t *in, uint32_t nnodes, rb_phase_agg_t *out)
{
    rb_lat_set_t *set = malloc(sizeof *set);
    rb_hist_t *rack = malloc((1 + RB_NDIRS) * sizeof *rack);
    if (!set || !rack) {
        free(set);
        free(rack);
        return -ENOMEM;
    }
    for (uint32_t k = 0; k < out->nracks; k++) {
        for (int i = 0; i <= RB_NDIRS; i++)
            rb_hist_init(&rack[i]);
        for (uint32_t n = 0; n < nnodes; n++) {
            const rb_agg_done_t *d = in[n].done;
            if (strcmp(out->nodes[n].rack, out->racks[k].name) != 0)
                continue;
            rb_lat_set_init(set);
            for (uint32_t j = 0; d && j < d->njobs; j++)
                rb_lat_set_add_stat(set, &d->jobs[j]);
            if (set->all.count)
                rb_lat_node_of(&out->nodes[n].lat, set);
            else if (in[n].lat)
                out->nodes[n].lat = *in[n].lat;
            rb_hist_merge(&rack[0], &set->all);
            for (int dd = 0; dd < RB_NDIRS; dd++)
                rb_hist_merge(&rack[1 + dd], &set->dir[dd][RB_LAT_LAT]);
        }
        if (rack[0].count)
            rb_aggregate_add_rack_hists(out, out->racks[k].name, &rack[0], &rack[1]);
    }
    free(set);
    free(rack);
    return 0;
}

/* The workers of all nodes of a phase, as they add up. */
typedef struct s_span {
    uint64_t first_start, last_start;    /* earliest and latest worker start, coordinator ns */
    uint64_t first_end, last_end;        /* earliest and latest worker end, likewise */
    double rate_sum, rate_min, rate_max; /* over the workers' rates, bytes/s */
    uint32_t nrates;                     /* workers with a rate */
} s_span_t;

/* Adds node ni's DONE (or its absence) to an, to out's totals and to sp. */
static int s_add_node(const rb_agg_input_t *ni, rb_agg_node_t *an, rb_phase_agg_t *out,
                      s_span_t *sp)
{
    snprintf(an->name, sizeof an->name, "%s", ni->name);
    snprintf(an->rack, sizeof an->rack, "%s", ni->rack);
    an->status = ni->status;
    const rb_agg_done_t *d = ni->done;
    if (!d) {
        if (an->status == RB_NODE_OK)
            an->status = RB_NODE_MISSING;
        out->partial = 1;
        /* Its row shows what its samples add up to; the phase's figures
         * and roll-ups count the nodes that reported it (workers stays 0). */
        an->bytes = ni->sampled_bytes;
        an->ops = ni->sampled_ops;
        if (ni->sampled_last_ns > ni->sampled_first_ns) {
            an->window_s = (double)(ni->sampled_last_ns - ni->sampled_first_ns) / 1e9;
            an->bw = (double)an->bytes / an->window_s;
            an->iops = (double)an->ops / an->window_s;
        }
        return 0;
    }
    if (d->status != 0) {
        an->status = RB_NODE_FAILED;
        if (d->error && d->error[0] && !(an->error = strdup(d->error)))
            return -ENOMEM;
        if (!out->error_code) {
            out->error_code = d->status;
            snprintf(out->error_node, sizeof out->error_node, "%s", ni->name);
            snprintf(out->error_path, sizeof out->error_path, "%s",
                     d->error_path ? d->error_path : "");
            snprintf(out->error, sizeof out->error, "%s", an->error ? an->error : "");
            out->error_offset = d->error_offset;
        }
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
        for (int dd = 0; dd < RB_NDIRS; dd++) {
            uint64_t b, o;
            s_worker_dir(w, dd, &b, &o);
            an->dir[dd].bytes += b;
            an->dir[dd].ops += o;
        }
        out->read_bytes += w->read_bytes;
        out->read_ops += w->read_ops;
        out->verify_errors += w->verify_errors;
        out->found += w->found;
        if (s < nfirst)
            nfirst = s;
        if (e > nlast)
            nlast = e;
        if (s > sp->last_start)
            sp->last_start = s;
        if (e < sp->first_end)
            sp->first_end = e;
        if (e > s) {
            double r = (double)w->bytes * 1e9 / (double)(e - s);
            sp->rate_sum += r;
            if (r < sp->rate_min)
                sp->rate_min = r;
            if (r > sp->rate_max)
                sp->rate_max = r;
            sp->nrates++;
        }
    }
    for (uint32_t j = 0; j < d->njobs; j++)
        rb_lat_merge_stat(&out->hist, out->lat, &d->jobs[j]);
    if (an->workers) {
        if ((double)ni->rtt_ns / 2e9 > out->clock_error_s)
            out->clock_error_s = (double)ni->rtt_ns / 2e9;
        if (nfirst < sp->first_start)
            sp->first_start = nfirst;
        if (nlast > sp->last_end)
            sp->last_end = nlast;
        an->window_s = (double)(nlast - nfirst) / 1e9;
        an->t_first = nfirst;
        an->t_last = nlast;
        if (nlast > nfirst) {
            an->bw = (double)an->bytes / an->window_s;
            an->iops = (double)an->ops / an->window_s;
        }
        s_dir_rates(an->dir, an->window_s);
    }
    out->nworkers += an->workers;
    out->bytes += an->bytes;
    out->ops += an->ops;
    out->errors += an->errors;
    return 0;
}

/* A network phase: its links from the nodes' DONEs (in[] in rank order). */
static int s_net(const rb_phase_spec_t *spec, const rb_agg_input_t *in, uint32_t nnodes,
                 rb_phase_agg_t *out)
{
    const rb_agg_done_t **d = calloc(nnodes ? nnodes : 1, sizeof *d);
    out->net = calloc(1, sizeof *out->net);
    if (!d || !out->net) {
        free(d);
        return -ENOMEM;
    }
    for (uint32_t n = 0; n < nnodes; n++)
        d[n] = in[n].done;
    int rc = rb_net_fig_build(spec, nnodes, d, out->net);
    free((void *)d);
    return rc;
}

int rb_aggregate_phase(const rb_phase_spec_t *spec, const rb_agg_input_t *in, uint32_t nnodes,
                       rb_phase_agg_t *out)
{
    memset(out, 0, sizeof *out);
    rb_hist_init(&out->hist);
    for (int d = 0; d < RB_NDIRS; d++)
        for (int k = 0; k < RB_NLATS; k++)
            rb_hist_init(&out->lat[d][k]);
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

    s_span_t sp = {.first_start = UINT64_MAX, .first_end = UINT64_MAX, .rate_min = DBL_MAX};

    for (uint32_t n = 0; n < nnodes; n++)
        if (s_add_node(&in[n], &out->nodes[n], out, &sp) < 0)
            return -ENOMEM;
    if (rb_net_phase_is(spec) && s_net(spec, in, nnodes, out) < 0)
        return -ENOMEM;
    s_cache(spec, in, nnodes, out);
    if (s_rollups(out) < 0 || s_node_lats(in, nnodes, out) < 0)
        return -ENOMEM;
    s_cluster_lat(out);
    if (rb_disks_aggregate(out, in, nnodes) < 0)
        return -ENOMEM;
    if (out->nworkers == 0)
        return s_jobs_and_rows(spec, in, nnodes, out);

    out->t_first_start = sp.first_start;
    out->t_last_end = sp.last_end;
    out->window_s = (double)(sp.last_end - sp.first_start) / 1e9;
    out->start_skew_s = (double)(sp.last_start - sp.first_start) / 1e9;
    if (sp.last_end > sp.first_start) {
        out->aggregate_bw = (double)out->bytes / out->window_s;
        out->iops = (double)out->ops / out->window_s;
    }
    for (uint32_t n = 0; n < nnodes; n++) {
        for (int d = 0; d < RB_NDIRS; d++) {
            out->dir[d].bytes += out->nodes[n].workers ? out->nodes[n].dir[d].bytes : 0;
            out->dir[d].ops += out->nodes[n].workers ? out->nodes[n].dir[d].ops : 0;
        }
    }
    s_dir_rates(out->dir, out->window_s);
    out->sum_of_rates_bw = sp.rate_sum;
    if (sp.nrates) {
        out->worker_bw_min = sp.rate_min;
        out->worker_bw_max = sp.rate_max;
        out->worker_bw_avg = sp.rate_sum / sp.nrates;
    }
    /* Stonewall: what everyone had moved when the first worker finished. */
    if (sp.first_end > sp.first_start) {
        double moved = 0;
        rb_checkpt_t *cp = NULL;
        for (uint32_t n = 0; n < nnodes; n++) {
            const rb_agg_done_t *d = in[n].done;
            const uint8_t *at = d ? d->cps : NULL;
            size_t left = d ? d->cps_len : 0;
            if (at && !cp && !(cp = malloc(RB_MAX_CHECKPTS * sizeof *cp)))
                return -ENOMEM;
            for (uint32_t i = 0; d && i < d->nworkers; i++) {
                rb_worker_stat_t w = d->workers[i];
                if (at) { /* packed on arrival: read back, exactly */
                    int64_t ncp = rb_unpack_checkpts(&at, &left, cp, RB_MAX_CHECKPTS);
                    w.ncheckpts = ncp > 0 ? (uint32_t)ncp : 0;
                    w.checkpts = cp;
                }
                if (w.t_start_ns && w.t_end_ns >= w.t_start_ns)
                    moved += rb_aggregate_worker_bytes_at(&w, in[n].offset_ns, sp.first_end);
            }
        }
        free(cp);
        out->stonewall_s = (double)(sp.first_end - sp.first_start) / 1e9;
        out->stonewall_bw = moved / out->stonewall_s;
    }
    s_stonewall_time(spec, in, nnodes, out);
    return s_jobs_and_rows(spec, in, nnodes, out);
}

rb_aggregate_name_idx_t *rb_aggregate_nodes_by_name(const rb_agg_node_t *nodes, uint32_t nnodes)
{
    rb_aggregate_name_idx_t *x = calloc(1, sizeof *x);
    if (x && rb_names_array_build(&x->idx, nodes, sizeof *nodes, offsetof(rb_agg_node_t, name),
                                  nnodes) < 0) {
        free(x);
        return NULL;
    }
    return x;
}

uint32_t rb_aggregate_node_lookup(const rb_aggregate_name_idx_t *by_name, uint32_t nnodes,
                                  const char *name)
{
    uint32_t i = rb_names_array_find(&by_name->idx, name); /* idx.n when none is */
    return i < nnodes ? i : nnodes;
}

void rb_aggregate_name_idx_destroy(rb_aggregate_name_idx_t *by_name)
{
    if (!by_name)
        return;
    rb_names_array_fini(&by_name->idx);
    free(by_name);
}
