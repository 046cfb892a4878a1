/* Ingest of what agents send during a phase: each SAMPLE goes to the run
 * folder's CSV files as it arrives and into the phase's in-memory series,
 * each DONE into the phase's histograms and totals; the phase's findings
 * come from those series. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_csv.h"
#include "rb_findings.h"
#include "rb_disks.h"
#include "rb_fiolog.h"
#include "rb_ingest.h"
#include "rb_netfig.h"
#include "rb_nodefam.h"
#include "rb_log.h"
#include "rb_metrics.h"
#include "rb_series.h"
#include "rb_router.h"
#include "rb_time.h"

/* Adds a node's bytes of sample interval seq to the cluster series. */
static void s_series_add(rb_run_ctx_t *r, uint32_t seq, double bytes, double secs)
{
    if (seq >= r->capser) {
        uint32_t cap = r->capser ? r->capser : 64;
        while (cap <= seq && cap < (1u << 24))
            cap *= 2;
        if (seq >= cap)
            return; /* beyond any run: not counted */
        double *b = realloc(r->ser_bytes, cap * sizeof *b);
        if (b)
            r->ser_bytes = b;
        double *t = b ? realloc(r->ser_secs, cap * sizeof *t) : NULL;
        if (!b || !t)
            return;
        r->ser_secs = t;
        memset(b + r->capser, 0, (cap - r->capser) * sizeof *b);
        memset(t + r->capser, 0, (cap - r->capser) * sizeof *t);
        r->capser = cap;
    }
    r->ser_bytes[seq] += bytes;
    if (secs > r->ser_secs[seq])
        r->ser_secs[seq] = secs;
    if (seq + 1 > r->nser)
        r->nser = seq + 1;
}

/* A message that does not fit where the run stands (another run, another
 * phase, a phase the node is not running): dropped, counted, logged, and the
 * agent is told why. */
static void s_out_of_sequence(rb_run_ctx_t *r, rb_fleet_node_t *n, const char *what,
                              const char *run_id, uint32_t phase)
{
    char why[RB_REASON_MAX];
    r->dropped++;
    snprintf(why, sizeof why,
             "%s for run %s phase %u dropped: the coordinator runs %s phase %u, and agent %s is "
             "%s it",
             what, run_id, phase, r->run_id, r->cur_phase, n->hello.name,
             n->state == RB_AGENT_RUNNING ? "in" : "not in");
    rb_warn("%s", why);
    rb_router_send_reason(r, n, RB_MSG_ERROR, -EPROTO, why);
}

/* A sample of interval seq aggregated lag ns after its end. The latest
 * interval's are kept apart until a later one's come: at a phase's end,
 * the last interval's (the DONEs beside them). */
static void s_lag_record(rb_run_ctx_t *r, uint32_t seq, uint64_t lag)
{
    rb_hist_t *h = r->lag;
    rb_hist_record(&h[RB_LAG_ALL], lag);
    if (seq == 0) {
        rb_hist_record(&h[RB_LAG_FIRST], lag);
        return;
    }
    if (seq > r->lag_seq) {
        rb_hist_merge(&h[RB_LAG_STEADY], &h[RB_LAG_LAST]);
        rb_hist_init(&h[RB_LAG_LAST]);
        r->lag_seq = seq;
    }
    rb_hist_record(&h[seq == r->lag_seq ? RB_LAG_LAST : RB_LAG_STEADY], lag);
}

void rb_ingest_sample(rb_run_ctx_t *r, rb_fleet_node_t *n, const rb_msg_sample_t *s)
{
    if (strcmp(s->run_id, r->run_id) != 0 || s->phase != r->cur_phase ||
        s->phase >= r->plan->nphases || n->state != RB_AGENT_RUNNING) {
        s_out_of_sequence(r, n, "SAMPLE", s->run_id, s->phase);
        return;
    }
    const rb_phase_spec_t *ph = &r->plan->phases[s->phase];
    uint64_t end = (uint64_t)((int64_t)s->t_end_ns - n->offset_ns);
    double t_s = ((double)end - (double)r->t_go) / 1e9;
    double interval_s =
        s->t_end_ns > s->t_start_ns ? (double)(s->t_end_ns - s->t_start_ns) / 1e9 : 0;
    /* the times as the CSV files give them back, for the findings' series */
    double t_csv = rb_csv_time(t_s), iv_csv = rb_csv_time(interval_s);
    uint32_t idx = (uint32_t)(n - r->fleet.nodes);
    uint64_t begin = (uint64_t)((int64_t)s->t_start_ns - n->offset_ns);
    if (!n->phase_last_ns || begin < n->phase_first_ns)
        n->phase_first_ns = begin;
    if (end > n->phase_last_ns)
        n->phase_last_ns = end;
    for (uint32_t j = 0; j < s->njobs; j++) {
        const rb_job_stat_t *js = &s->jobs[j];
        if (js->job >= ph->njobs)
            continue;
        if (r->node_series &&
            rb_series_add(r->node_series, idx, t_csv, iv_csv, (double)js->bytes) < 0)
            rb_series_destroy(&r->node_series); /* out of memory: stragglers without series */
        if (r->samples)
            rb_csv_samples_row(r->samples, t_s, rb_run_utc(r, end), ph->name, n->hello.name,
                               n->hello.rack, ph->jobs[js->job].name, interval_s, js);
        if (r->latency && rb_fiolog_wants_latency(r->plan, ph->jobs[js->job].name))
            rb_csv_latency_rows(r->latency, t_s, rb_run_utc(r, end), ph->name, n->hello.name,
                                ph->jobs[js->job].name, interval_s, js);
        r->live_bytes += js->bytes;
        r->live_ops += js->ops;
        r->phase_bytes += js->bytes;
        r->phase_ops += js->ops;
        n->live_bytes += js->bytes;
        n->phase_bytes += js->bytes;
        n->phase_ops += js->ops;
        n->live_seen = 1;
        s_series_add(r, s->seq, (double)js->bytes, interval_s);
        rb_metrics_sample(r, idx, js);
    }
    uint64_t now = rb_time_mono_ns();
    r->nsamples++;
    if (r->lag)
        s_lag_record(r, s->seq, now > end ? now - end : 0);
    if (r->telemetry && s->ntelem && s->telem)
        rb_csv_telemetry_rows(r->telemetry, t_s, rb_run_utc(r, end), ph->name, n->hello.name,
                              s->telem);
    if (r->tel && s->ntelem && s->telem &&
        rb_csv_telemetry_series(r->tel, idx, t_s, (double)r->interval_ns / 1e9, s->telem) < 0)
        r->tel_failed = 1;
    r->unflushed = 1; /* rb_router_pump flushes them, at most every S_FLUSH_NS */
}

/* A job stat's histograms as a node's and a rack's latency reads them:
 * all IOs', then each direction's lat (NULL: none), as rb_run_rack_lat_t. */
static void s_lat_hists(const rb_job_stat_t *js, const rb_hist_t *h[1 + RB_NDIRS])
{
    h[0] = js->hist;
    for (int d = 0; d < RB_NDIRS; d++)
        h[1 + d] = js->lat[d][RB_LAT_LAT];
}

/* Merges latency histograms in s_lat_hists' order (NULL: none) into dst's. */
static void s_lat_merge(rb_hist_t dst[1 + RB_NDIRS], const rb_hist_t *const h[1 + RB_NDIRS])
{
    for (int i = 0; i <= RB_NDIRS; i++)
        if (h[i])
            rb_hist_merge(&dst[i], h[i]);
}

/* Adds a node's latency (s_lat_hists' order) to its rack's. */
static void s_rack_lat_add(rb_run_ctx_t *r, const char *rack,
                           const rb_hist_t *const h[1 + RB_NDIRS])
{
    uint32_t k = 0;
    while (k < r->nrack_lats && strcmp(r->rack_lats[k].name, rack) != 0)
        k++;
    if (k == r->nrack_lats) {
        rb_run_rack_lat_t *more = realloc(r->rack_lats, (k + 1) * sizeof *more);
        if (!more)
            return; /* out of memory: the rack's row goes without latency */
        r->rack_lats = more;
        snprintf(more[k].name, sizeof more[k].name, "%s", rack);
        for (int i = 0; i <= RB_NDIRS; i++)
            rb_hist_init(&more[k].h[i]);
        r->nrack_lats++;
    }
    s_lat_merge(r->rack_lats[k].h, h);
}

void rb_ingest_done(rb_run_ctx_t *r, rb_fleet_node_t *n, rb_msg_t *m, uint64_t heard)
{
    rb_msg_done_t *d = &m->u.done;
    if (strcmp(d->run_id, r->run_id) != 0 || d->phase != r->cur_phase ||
        n->state != RB_AGENT_RUNNING) {
        s_out_of_sequence(r, n, "DONE", d->run_id, d->phase);
        return;
    }
    if (n->phase_last_ns) {
        uint64_t after = heard > n->phase_last_ns ? heard - n->phase_last_ns : 0;
        if (!r->done_n++ || after < r->done_after_min)
            r->done_after_min = after;
        if (after > r->done_after_max)
            r->done_after_max = after;
    }
    const rb_phase_spec_t *ph = &r->plan->phases[d->phase];
    /* The DONE must describe the phase we sent: one entry per worker and job
     * (filename=@devices: numjobs on each of the agent's devices). */
    for (uint32_t i = 0; i < d->nworkers; i++) {
        const rb_job_spec_t *js =
            d->workers[i].job < ph->njobs ? &ph->jobs[d->workers[i].job] : NULL;
        if (!js || d->workers[i].worker >=
                       (strcmp(js->device, RB_DEVICES_ALL) == 0 ? RB_MAX_WORKERS : js->numjobs)) {
            rb_fleet_node_out(n, RB_NODE_FAILED, "DONE for phase %s names a worker the plan lacks",
                              ph->name);
            return;
        }
    }
    for (uint32_t i = 0; i < d->njobs; i++) {
        if (d->jobs[i].job >= ph->njobs) {
            rb_fleet_node_out(n, RB_NODE_FAILED, "DONE for phase %s names job %u, the plan has %u",
                              ph->name, d->jobs[i].job, ph->njobs);
            return;
        }
    }
    /* Its histograms join the phase's now: kept per node until the phase's
     * end they would cost 20 KiB a job and node (320 MiB at 16,000 nodes). */
    if (!r->job_hists && ph->njobs) {
        r->job_hists = malloc(ph->njobs * sizeof *r->job_hists);
        if (!r->job_hists) {
            rb_run_fail(r, "out of memory merging the DONE of agent %s", n->hello.name);
            return;
        }
        for (uint32_t j = 0; j < ph->njobs; j++)
            rb_lat_set_init(&r->job_hists[j]);
    }
    /* The node's latency over its jobs: one job's are its own histograms;
     * several are summed in r->node_lat (the four read, cleared for each
     * DONE, not a whole rb_lat_set_t of ten). */
    const rb_hist_t *h[1 + RB_NDIRS] = {NULL};
    if (d->njobs == 1) {
        s_lat_hists(&d->jobs[0], h);
    } else if (d->njobs > 1) {
        if (!r->node_lat && !(r->node_lat = malloc((1 + RB_NDIRS) * sizeof *r->node_lat))) {
            rb_run_fail(r, "out of memory merging the DONE of agent %s", n->hello.name);
            return;
        }
        for (int i = 0; i <= RB_NDIRS; i++) {
            rb_hist_init(&r->node_lat[i]);
            h[i] = &r->node_lat[i];
        }
        for (uint32_t j = 0; j < d->njobs; j++) {
            const rb_hist_t *add[1 + RB_NDIRS];
            s_lat_hists(&d->jobs[j], add);
            s_lat_merge(r->node_lat, add);
        }
    }
    for (uint32_t i = 0; i < d->njobs; i++)
        rb_lat_set_add_stat(&r->job_hists[d->jobs[i].job], &d->jobs[i]);
    rb_lat_node_of_hists(&n->phase_lat, h[0], h + 1);
    n->phase_lat_set = 1;
    s_rack_lat_add(r, n->hello.rack, h);
    if (d->status != 0) {
        rb_warn("agent %s: phase %s failed: %s", n->hello.name, ph->name, d->error);
        if (n->status == RB_NODE_OK) {
            n->status = RB_NODE_FAILED;
            snprintf(n->error, sizeof n->error, "phase %s: %s", ph->name, d->error);
        }
    }
    /* Kept until the phase's figures at the size it says: a device's
     * histograms (60 KiB a device and node, 4 GiB at 16,000 nodes of 4)
     * as their summary, its identity packed (rb_fleet_keep_done). */
    rb_agg_done_t *keep = rb_fleet_keep_done(d);
    if (!keep) {
        rb_run_fail(r, "out of memory keeping the DONE of agent %s", n->hello.name);
        return;
    }
    n->done[d->phase] = keep;
    rb_fleet_node_set_state(n, RB_AGENT_PHASE_DONE);
}

/* STONEWALL: one node's workers of a wearout job all stopped at their stonewall. */
void rb_ingest_stonewall(rb_run_ctx_t *r, rb_fleet_node_t *n, const rb_msg_wear_t *w)
{
    if (!r->sw_got || strcmp(w->run_id, r->run_id) != 0 || w->phase != r->cur_phase ||
        w->job >= r->plan->phases[w->phase].njobs || n->state != RB_AGENT_RUNNING)
        return;
    uint32_t nj = r->plan->phases[w->phase].njobs;
    uint8_t *got = &r->sw_got[(size_t)(n - r->fleet.nodes) * nj + w->job];
    if (*got)
        return;
    *got = 1;
    r->sw_count[w->job]++;
    if (w->ops > r->sw_max[w->job])
        r->sw_max[w->job] = w->ops;
}

/* Once every node still in the phase has stopped at its stonewall, tells
 * them all how many ops each worker goes on to: the busiest one's. */
void rb_ingest_check_wearout(rb_run_ctx_t *r)
{
    if (!r->sw_got)
        return;
    const rb_phase_spec_t *ph = &r->plan->phases[r->cur_phase];
    uint32_t in_phase = rb_fleet_count(&r->fleet, RB_AGENT_RUNNING) +
                        rb_fleet_count(&r->fleet, RB_AGENT_PHASE_DONE);
    for (uint32_t j = 0; j < ph->njobs; j++) {
        if (r->sw_sent[j] || !ph->jobs[j].wearout || r->sw_count[j] < in_phase)
            continue;
        r->sw_sent[j] = 1;
        rb_msg_t m = {.type = RB_MSG_WEAROUT};
        snprintf(m.u.wearout.run_id, sizeof m.u.wearout.run_id, "%s", r->run_id);
        m.u.wearout.phase = r->cur_phase;
        m.u.wearout.job = j;
        m.u.wearout.ops = r->sw_max[j];
        rb_info("phase %s: job %s stonewalled on every node; wear-out to %llu ops per worker",
                ph->name, ph->jobs[j].name, (unsigned long long)r->sw_max[j]);
        for (uint32_t i = 0; i < r->fleet.n; i++)
            if (r->fleet.nodes[i].state == RB_AGENT_RUNNING)
                rb_router_send(r, &r->fleet.nodes[i], &m);
    }
}

/* Frees the wearout bookkeeping; makes it anew for a phase with wearout jobs. */
void rb_ingest_wearout_reset(rb_run_ctx_t *r, const rb_phase_spec_t *ph)
{
    free(r->sw_got);
    free(r->sw_count);
    free(r->sw_max);
    free(r->sw_sent);
    r->sw_got = NULL;
    r->sw_count = NULL;
    r->sw_max = NULL;
    r->sw_sent = NULL;
    int any = 0;
    for (uint32_t j = 0; ph && j < ph->njobs; j++)
        any |= ph->jobs[j].wearout;
    if (!any)
        return;
    r->sw_got = calloc((size_t)(r->fleet.n ? r->fleet.n : 1) * ph->njobs, 1);
    r->sw_count = calloc(ph->njobs, sizeof *r->sw_count);
    r->sw_max = calloc(ph->njobs, sizeof *r->sw_max);
    r->sw_sent = calloc(ph->njobs, 1);
    if (!r->sw_got || !r->sw_count || !r->sw_max || !r->sw_sent) {
        rb_run_fail(r, "out of memory");
        rb_ingest_wearout_reset(r, NULL);
    }
}

/* What the phase shows beyond its figures: stragglers, with when each began
 * to lag, and stalls, with when and how long, from the per-node series of
 * its samples; bounds, imbalanced disks
 * and the honesty check from its telemetry series. Both were built as the
 * samples came, from the values the CSV files hold: the files are not read
 * again. */
void rb_ingest_findings(rb_run_ctx_t *r, uint32_t p)
{
    rb_phase_agg_t *a = &r->aggs[p];
    double **series = NULL, interval = (double)r->interval_ns / 1e9;
    uint32_t nint = 0;
    double point_s = interval;
    if (!r->node_series || rb_series_take(r->node_series, &series, &nint, &point_s) < 0)
        series = NULL;
    if (rb_findings_stragglers(a, (const double *const *)series, nint, point_s) < 0 ||
        rb_findings_stalls(a, (const double *const *)series, nint, point_s) < 0 ||
        rb_disks_findings(a) < 0 || rb_net_findings(a) < 0)
        rb_run_fail(r, "out of memory");
    rb_series_free(series, a->nnodes);
    rb_series_destroy(&r->node_series);
    const char **hosts = calloc(a->nnodes ? a->nnodes : 1, sizeof *hosts);
    const rb_host_t **hw = calloc(a->nnodes ? a->nnodes : 1, sizeof *hw);
    for (uint32_t i = 0; hosts && hw && i < a->nnodes && i < r->fleet.n; i++) {
        hosts[i] = r->fleet.nodes[i].hello.hostname;
        hw[i] = r->fleet.nodes[i].hello.hw;
    }
    if (!hw || rb_nodefam_findings(a, hw) < 0)
        rb_run_fail(r, "out of memory");
    free(hw);
    if (!hosts || !r->tel || r->tel_failed ||
        rb_findings_from_tel_series(a, &r->plan->phases[p], r->tel, interval, hosts) < 0)
        rb_run_fail(r, "out of memory");
    rb_findings_tel_series_destroy(&r->tel);
    free(hosts);
    char head[RB_FINDINGS_HEAD_MAX];
    for (uint32_t i = 0; i < a->nfindings; i++)
        rb_warn("phase %s: %s: %s", a->name, rb_findings_head(&a->findings[i], head, sizeof head),
                a->findings[i].evidence);
}

/* The sample intervals phase ph will have, at most: its longest job's delay,
 * ramp and runtime with one at each end; 0 when a job has no runtime. */
static uint32_t s_phase_points(const rb_phase_spec_t *ph, uint64_t interval_ns)
{
    uint64_t most = 0;
    for (uint32_t j = 0; j < ph->njobs; j++) {
        const rb_job_spec_t *jb = &ph->jobs[j];
        if (!jb->runtime_ns || !interval_ns)
            return 0;
        uint64_t t = jb->startdelay_max_ns + jb->ramp_ns + jb->runtime_ns;
        most = t > most ? t : most;
    }
    uint64_t n = most / interval_ns + 2;
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

void rb_ingest_phase_start(rb_run_ctx_t *r, uint32_t p)
{
    double interval = (double)r->interval_ns / 1e9;
    rb_series_destroy(&r->node_series);
    rb_findings_tel_series_destroy(&r->tel);
    r->node_series = rb_series_new(r->fleet.n, interval);
    r->tel =
        rb_findings_tel_series_new(r->fleet.n, s_phase_points(&r->plan->phases[p], r->interval_ns));
    r->tel_failed = 0;
    r->cur_phase = p;
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        rb_fleet_node_t *n = &r->fleet.nodes[i];
        n->phase_bytes = n->phase_ops = n->phase_first_ns = n->phase_last_ns = 0;
        n->phase_lat_set = 0;
    }
    rb_ingest_wearout_reset(r, &r->plan->phases[p]);
    r->nser = 0;
    r->nsamples = 0;
    free(r->rack_lats);
    r->rack_lats = NULL;
    r->nrack_lats = 0;
    if (r->lag || (r->lag = malloc(RB_LAG_N * sizeof *r->lag)))
        for (int i = 0; i < RB_LAG_N; i++)
            rb_hist_init(&r->lag[i]);
    r->lag_seq = 0;
    r->done_n = 0;
    r->done_after_min = r->done_after_max = 0;
    if (r->capser) {
        memset(r->ser_bytes, 0, r->capser * sizeof *r->ser_bytes);
        memset(r->ser_secs, 0, r->capser * sizeof *r->ser_secs);
    }
}
