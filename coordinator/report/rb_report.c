/* Renders a run's figures for scripts (summary.json, samples.csv) and for
 * people (report.txt). Every figure printed is one computed in
 * rb_aggregate.c; nothing here derives new numbers beyond unit changes. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rb_json.h"
#include "rb_findings.h"
#include "rb_report.h"
#include "rb_time.h"
#include "rb_units.h"

static double s_us(uint64_t ns)
{
    return (double)ns / 1e3;
}

static void s_json_lat(rb_jw_t *w, const rb_hist_t *h)
{
    rb_jw_obj_begin(w, "lat_us");
    rb_jw_u64(w, "count", h->count);
    rb_jw_num(w, "min", h->count ? s_us(h->min) : 0);
    rb_jw_num(w, "mean", rb_hist_mean(h) / 1e3);
    rb_jw_num(w, "stdev", rb_hist_stdev(h) / 1e3);
    static const struct {
        const char *key;
        double p;
    } pct[] = {{"p1", 1},   {"p5", 5},   {"p50", 50},     {"p90", 90},
               {"p95", 95}, {"p99", 99}, {"p99.9", 99.9}, {"p99.99", 99.99}};
    for (size_t i = 0; i < sizeof pct / sizeof pct[0]; i++)
        rb_jw_num(w, pct[i].key, s_us(rb_hist_percentile(h, pct[i].p)));
    rb_jw_num(w, "max", h->count ? s_us(h->max) : 0);
    rb_jw_num(w, "rel_error", RB_HIST_REL_ERROR);
    rb_jw_obj_end(w);
}

/* The histogram itself, so that a run folder can be read back exactly
 * (rackbench report): count, sum, min, max (ns) and [index, count] of every
 * bucket that is not empty. */
static void s_json_hist(rb_jw_t *w, const rb_hist_t *h)
{
    rb_jw_obj_begin(w, "lat_hist");
    rb_jw_u64(w, "count", h->count);
    rb_jw_u64(w, "sum", h->sum);
    rb_jw_u64(w, "min", h->count ? h->min : 0);
    rb_jw_u64(w, "max", h->max);
    rb_jw_arr_begin(w, "buckets");
    for (unsigned i = 0; h->count && i < RB_HIST_NBUCKETS; i++) {
        if (!h->b[i])
            continue;
        rb_jw_arr_begin(w, NULL);
        rb_jw_u64(w, NULL, i);
        rb_jw_u64(w, NULL, h->b[i]);
        rb_jw_arr_end(w);
    }
    rb_jw_arr_end(w);
    rb_jw_obj_end(w);
}

static void s_json_jobs(rb_jw_t *w, const rb_phase_agg_t *a)
{
    rb_jw_arr_begin(w, "job_stats");
    for (uint32_t j = 0; j < a->njobs; j++) {
        const rb_agg_job_t *aj = &a->jobs[j];
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "name", aj->name);
        rb_jw_str(w, "rw", rb_rw_name(aj->rw));
        rb_jw_str(w, "ioengine", aj->ioengine);
        rb_jw_u64(w, "iodepth", aj->iodepth);
        rb_jw_u64(w, "bs", aj->bs);
        rb_jw_u64(w, "workers", aj->workers);
        rb_jw_u64(w, "bytes", aj->bytes);
        rb_jw_u64(w, "ops", aj->ops);
        rb_jw_u64(w, "read_bytes", aj->read_bytes);
        rb_jw_u64(w, "read_ops", aj->read_ops);
        rb_jw_u64(w, "errors", aj->errors);
        rb_jw_u64(w, "verify_errors", aj->verify_errors);
        rb_jw_num(w, "window_s", aj->window_s);
        rb_jw_num(w, "bw", aj->bw);
        rb_jw_num(w, "iops", aj->iops);
        s_json_lat(w, aj->hist);
        s_json_hist(w, aj->hist);
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
    rb_jw_arr_begin(w, "per_worker");
    for (uint32_t i = 0; i < a->nrows; i++) {
        const rb_agg_worker_t *row = &a->rows[i];
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "node", a->nodes[row->node].name);
        rb_jw_str(w, "job", a->jobs[row->job].name);
        rb_jw_u64(w, "worker", row->worker);
        rb_jw_u64(w, "bytes", row->bytes);
        rb_jw_u64(w, "ops", row->ops);
        rb_jw_u64(w, "errors", row->errors);
        rb_jw_num(w, "start_s", row->start_s);
        rb_jw_num(w, "time_s", row->time_s);
        rb_jw_num(w, "bw", row->bw);
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
}

/* Per-worker operation rates (ops / own time): sum, min, avg, max. */
static void s_op_rates(const rb_phase_agg_t *a, double out[4])
{
    uint32_t n = 0;
    out[0] = out[1] = out[2] = out[3] = 0;
    for (uint32_t i = 0; i < a->nrows; i++) {
        if (a->rows[i].time_s <= 0)
            continue;
        double r = (double)a->rows[i].ops / a->rows[i].time_s;
        out[0] += r;
        out[1] = n == 0 || r < out[1] ? r : out[1];
        out[3] = r > out[3] ? r : out[3];
        n++;
    }
    out[2] = n ? out[0] / n : 0;
}

/* "acceptance": null, or the verdict and one entry per check and phase. */
static void s_json_accept(rb_jw_t *w, const rb_accept_result_t *acc)
{
    if (!acc) {
        rb_jw_null(w, "acceptance");
        return;
    }
    rb_jw_obj_begin(w, "acceptance");
    rb_jw_bool(w, "passed", acc->nfailed == 0);
    rb_jw_u64(w, "failed", acc->nfailed);
    rb_jw_u64(w, "not_applicable", acc->nna);
    rb_jw_arr_begin(w, "checks");
    for (uint32_t i = 0; i < acc->nrows; i++) {
        const rb_accept_row_t *row = &acc->rows[i];
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "set", row->set[0] ? row->set : NULL);
        rb_jw_str(w, "name", rb_accept_check_name(row->check));
        rb_jw_str(w, "phase", row->phase);
        rb_jw_num(w, "limit", row->limit);
        rb_jw_num(w, "measured", row->measured); /* NAN → null */
        if (row->verdict == RB_ACCEPT_NA)
            rb_jw_null(w, "passed");
        else
            rb_jw_bool(w, "passed", row->verdict == RB_ACCEPT_PASS);
        rb_jw_str(w, "unit", rb_accept_check_unit(row->check));
        rb_jw_str(w, "note", row->note);
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
    rb_jw_obj_end(w);
}

static void s_json_group(rb_jw_t *w, const char *key, const rb_agg_group_t *g)
{
    rb_jw_obj_begin(w, key);
    rb_jw_str(w, "name", g->name);
    rb_jw_u64(w, "nodes", g->nodes);
    rb_jw_u64(w, "bytes", g->bytes);
    rb_jw_u64(w, "ops", g->ops);
    rb_jw_num(w, "window_s", g->window_s);
    rb_jw_num(w, "aggregate_bw", g->aggregate_bw);
    rb_jw_num(w, "iops", g->iops);
    rb_jw_obj_begin(w, "node_bw");
    rb_jw_num(w, "median", g->node_bw_median);
    rb_jw_num(w, "min", g->node_bw_min);
    rb_jw_num(w, "max", g->node_bw_max);
    rb_jw_obj_end(w);
    rb_jw_obj_end(w);
}

/* findings[] of a phase. */
static void s_json_findings(rb_jw_t *w, const rb_phase_agg_t *a)
{
    rb_jw_arr_begin(w, "findings");
    for (uint32_t i = 0; i < a->nfindings; i++) {
        const rb_finding_t *f = &a->findings[i];
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "kind", rb_findings_kind_name(f->kind));
        rb_jw_str(w, "node", f->node);
        rb_jw_str(w, "device", f->device[0] ? f->device : NULL);
        rb_jw_str(w, "evidence", f->evidence);
        rb_jw_num(w, "value", f->value);
        rb_jw_num(w, "reference", f->reference);
        if (f->first_seen_s >= 0)
            rb_jw_num(w, "first_seen_s", f->first_seen_s);
        else
            rb_jw_null(w, "first_seen_s");
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
}

/* devices[] of a phase: per node and device, from its host telemetry. */
static void s_json_devices(rb_jw_t *w, const rb_phase_agg_t *a)
{
    rb_jw_arr_begin(w, "devices");
    for (uint32_t i = 0; i < a->ndevs; i++) {
        const rb_agg_dev_t *d = &a->devs[i];
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "node", d->node);
        rb_jw_str(w, "device", d->device);
        rb_jw_str(w, "parent", d->parent[0] ? d->parent : NULL);
        rb_jw_bool(w, "member", d->member);
        rb_jw_u64(w, "intervals", d->intervals);
        rb_jw_num(w, "util_median", d->util_median);
        rb_jw_num(w, "util_max", d->util_max);
        rb_jw_num(w, "rd_bps_median", d->rd_bps_median);
        rb_jw_num(w, "wr_bps_median", d->wr_bps_median);
        rb_jw_num(w, "await_ms_median", d->await_ms_median);
        rb_jw_u64(w, "rd_bytes", d->rd_bytes);
        rb_jw_u64(w, "wr_bytes", d->wr_bytes);
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
}

/* racks[], cluster and steady of a phase. */
static void s_json_rollups(rb_jw_t *w, const rb_phase_agg_t *a)
{
    rb_jw_arr_begin(w, "racks");
    for (uint32_t k = 0; k < a->nracks; k++)
        s_json_group(w, NULL, &a->racks[k]);
    rb_jw_arr_end(w);
    s_json_group(w, "cluster", &a->cluster);
    const rb_agg_steady_t *st = &a->steady;
    if (!st->intervals) {
        rb_jw_null(w, "steady");
        return;
    }
    rb_jw_obj_begin(w, "steady");
    rb_jw_u64(w, "intervals", st->intervals);
    rb_jw_num(w, "interval_s", st->interval_s);
    rb_jw_num(w, "median_bw", st->median_bw);
    rb_jw_num(w, "min_bw", st->min_bw);
    rb_jw_num(w, "peak_bw", st->peak_bw);
    rb_jw_num(w, "sustained_s", st->sustained_s);
    rb_jw_obj_end(w);
}

/* Nodes that completed the phase cleanly. */
static uint32_t s_covered(const rb_phase_agg_t *a)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->nnodes; i++)
        n += a->nodes[i].status == RB_NODE_OK;
    return n;
}

/* " (at 12.3 s)" for a node lost then; "" otherwise (static buffer). */
static const char *s_lost_at(double s)
{
    static char buf[48];
    if (s < 0)
        return "";
    snprintf(buf, sizeof buf, " (at %.1f s)", s);
    return buf;
}

/* How the phase's first job lays out its data across nodes, and whose it reads. */
static void s_json_access(rb_jw_t *w, const rb_phase_spec_t *sp)
{
    const rb_job_spec_t *js = sp->njobs ? &sp->jobs[0] : NULL;
    char from[32] = "self";
    if (js && js->read_shift)
        snprintf(from, sizeof from, "shift:%u", js->read_shift);
    rb_jw_bool(w, "file_per_worker", !js || !js->shared_file);
    rb_jw_str(w, "layout", js && js->shared_file ? rb_layout_mode_name(js->layout) : NULL);
    rb_jw_str(w, "read_from", from);
}

/* stonewall_time figures (null without it), and the page cache verdict. */
static void s_json_honesty(rb_jw_t *w, const rb_phase_agg_t *a)
{
    if (a->sw_limit_ns) {
        rb_jw_obj_begin(w, "stonewall_time");
        rb_jw_num(w, "limit_s", (double)a->sw_limit_ns / 1e9);
        rb_jw_bool(w, "wearout", a->wearout);
        rb_jw_u64(w, "stopped_workers", a->sw_stopped);
        rb_jw_u64(w, "bytes", a->sw_bytes);
        rb_jw_u64(w, "ops", a->sw_ops);
        rb_jw_num(w, "seconds", a->sw_s);
        rb_jw_num(w, "bw", a->sw_bw);
        rb_jw_obj_begin(w, "worker_ops");
        rb_jw_u64(w, "min", a->sw_ops_min);
        rb_jw_u64(w, "max", a->sw_ops_max);
        rb_jw_obj_end(w);
        rb_jw_obj_end(w);
    } else {
        rb_jw_null(w, "stonewall_time");
    }
    rb_jw_bool(w, "cache_influenced", a->cache_influenced);
    rb_jw_obj_begin(w, "cache");
    rb_jw_u64(w, "buffered_bytes_per_node", a->buffered_set);
    rb_jw_u64(w, "node_ram_min", a->ram_min);
    rb_jw_u64(w, "dropped_nodes", a->caches_dropped);
    rb_jw_u64(w, "drop_failed_nodes", a->drop_failed);
    rb_jw_str(w, "drop_error", a->drop_failed ? strerror(-a->drop_status) : NULL);
    rb_jw_i64(w, "drop_errno", -a->drop_status);
    rb_jw_obj_end(w);
}

/* The "nodes" of the run: every agent, how it went and its clock. */
static void s_json_run_nodes(rb_jw_t *w, const rb_run_result_t *r)
{
    rb_jw_arr_begin(w, "nodes");
    for (uint32_t i = 0; i < r->nnodes; i++) {
        const rb_report_node_t *n = &r->nodes[i];
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "name", n->name);
        rb_jw_str(w, "rack", n->rack);
        rb_jw_str(w, "hostname", n->hostname);
        rb_jw_str(w, "version", n->version);
        rb_jw_str(w, "status", rb_aggregate_node_status_name(n->status));
        rb_jw_str(w, "error", n->status != RB_NODE_OK ? n->error : NULL);
        rb_jw_u64(w, "cores", n->cores);
        rb_jw_u64(w, "ram_bytes", n->ram_bytes);
        rb_jw_num(w, "clock_offset_s", (double)n->clock_offset_ns / 1e9);
        rb_jw_num(w, "clock_rtt_s", (double)n->clock_rtt_ns / 1e9);
        rb_jw_u64(w, "removed_files", n->removed_files);
        if (n->lost_at_s >= 0)
            rb_jw_num(w, "lost_at_s", n->lost_at_s);
        else
            rb_jw_null(w, "lost_at_s");
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
}

/* The "nodes" of a phase: each node's figures in it. */
static void s_json_phase_nodes(rb_jw_t *w, const rb_phase_agg_t *a)
{
    rb_jw_arr_begin(w, "nodes");
    for (uint32_t n = 0; n < a->nnodes; n++) {
        const rb_agg_node_t *an = &a->nodes[n];
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "name", an->name);
        rb_jw_str(w, "rack", an->rack);
        rb_jw_str(w, "status", rb_aggregate_node_status_name(an->status));
        rb_jw_str(w, "error", an->error[0] ? an->error : NULL);
        rb_jw_u64(w, "workers", an->workers);
        rb_jw_u64(w, "bytes", an->bytes);
        rb_jw_u64(w, "ops", an->ops);
        rb_jw_u64(w, "errors", an->errors);
        rb_jw_num(w, "window_s", an->window_s);
        rb_jw_num(w, "bw", an->bw);
        rb_jw_num(w, "iops", an->iops);
        /* its first worker start after the phase's first (the start skew by node) */
        rb_jw_num(w, "start_s",
                  an->t_first && a->t_first_start && an->t_first >= a->t_first_start
                      ? (double)(an->t_first - a->t_first_start) / 1e9
                      : 0);
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
}

/* One phase object of "phases", members in the order of docs/report-schema.md. */
static void s_json_phase(rb_jw_t *w, const rb_phase_agg_t *a, const rb_phase_spec_t *sp)
{
    rb_jw_obj_begin(w, NULL);
    rb_jw_str(w, "name", a->name);
    rb_jw_str(w, "rw", rb_rw_name(a->rw));
    rb_jw_u64(w, "bs", a->bs);
    rb_jw_bool(w, "direct", a->direct);
    rb_jw_arr_begin(w, "jobs");
    for (uint32_t j = 0; j < sp->njobs; j++)
        rb_jw_str(w, NULL, sp->jobs[j].name);
    rb_jw_arr_end(w);
    rb_jw_bool(w, "partial", a->partial);
    rb_jw_bool(w, "from_samples", a->from_samples);
    rb_jw_obj_begin(w, "coverage");
    rb_jw_u64(w, "nodes", s_covered(a));
    rb_jw_u64(w, "of", a->nnodes);
    rb_jw_obj_end(w);
    s_json_access(w, sp);
    s_json_honesty(w, a);
    if (rb_phase_spec_is_meta(sp)) {
        const rb_job_spec_t *mj = &sp->jobs[0];
        rb_jw_str(w, "meta_op", rb_meta_op_name(mj->meta_op));
        rb_jw_str(w, "meta_order", mj->meta_random ? "random" : "sequential");
        rb_jw_str(w, "meta_set", mj->filename_format);
        rb_jw_u64(w, "meta_files_per_worker", mj->meta_files);
        rb_jw_bool(w, "meta_shared_dir", mj->meta_shared);
    }
    rb_jw_str(w, "ioengine", a->njobs ? a->jobs[0].ioengine : "sync");
    rb_jw_u64(w, "iodepth", a->njobs ? a->jobs[0].iodepth : 1);
    rb_jw_u64(w, "workers", a->nworkers);
    rb_jw_u64(w, "bytes", a->bytes);
    rb_jw_u64(w, "ops", a->ops);
    rb_jw_u64(w, "errors", a->errors);
    rb_jw_u64(w, "read_bytes", a->read_bytes);
    rb_jw_u64(w, "read_ops", a->read_ops);
    rb_jw_u64(w, "write_bytes", a->bytes - a->read_bytes);
    rb_jw_u64(w, "write_ops", a->ops - a->read_ops);
    rb_jw_u64(w, "verify_errors", a->verify_errors);
    if (a->error_code) {
        rb_jw_obj_begin(w, "first_error");
        rb_jw_str(w, "node", a->error_node);
        rb_jw_str(w, "path", a->error_path);
        rb_jw_u64(w, "offset", a->error_offset);
        rb_jw_i64(w, "errno", -a->error_code);
        rb_jw_str(w, "message", a->error);
        rb_jw_obj_end(w);
    } else {
        rb_jw_null(w, "first_error");
    }
    rb_jw_num(w, "window_s", a->window_s);
    rb_jw_num(w, "aggregate_bw", a->aggregate_bw);
    rb_jw_num(w, "sum_of_rates_bw", a->sum_of_rates_bw);
    rb_jw_num(w, "stonewall_bw", a->stonewall_bw);
    rb_jw_num(w, "stonewall_s", a->stonewall_s);
    rb_jw_num(w, "iops", a->iops);
    rb_jw_num(w, "start_skew_s", a->start_skew_s);
    rb_jw_num(w, "clock_error_s", a->clock_error_s);
    double opr[4];
    s_op_rates(a, opr);
    rb_jw_num(w, "sum_of_rates_iops", opr[0]);
    rb_jw_obj_begin(w, "worker_iops");
    rb_jw_num(w, "min", opr[1]);
    rb_jw_num(w, "avg", opr[2]);
    rb_jw_num(w, "max", opr[3]);
    rb_jw_obj_end(w);
    rb_jw_obj_begin(w, "worker_bw");
    rb_jw_num(w, "min", a->worker_bw_min);
    rb_jw_num(w, "avg", a->worker_bw_avg);
    rb_jw_num(w, "max", a->worker_bw_max);
    rb_jw_obj_end(w);
    s_json_lat(w, &a->hist);
    s_json_hist(w, &a->hist);
    s_json_jobs(w, a);
    s_json_phase_nodes(w, a);
    s_json_rollups(w, a);
    s_json_findings(w, a);
    s_json_devices(w, a);
    rb_jw_obj_end(w);
}

int rb_report_json(const rb_run_result_t *r, FILE *f)
{
    rb_jw_t w;
    char when[32];
    rb_time_iso(when, sizeof when, r->started_wall_ns);
    rb_jw_init(&w, f);
    rb_jw_obj_begin(&w, NULL);
    rb_jw_str(&w, "schema", RB_SUMMARY_SCHEMA);
    rb_jw_str(&w, "run_id", r->run_id);
    rb_jw_str(&w, "rackbench_version", RB_VERSION);
    rb_jw_str(&w, "plan", r->plan_source);
    rb_jw_str(&w, "started", when);
    rb_jw_num(&w, "duration_s", r->duration_s);
    rb_jw_str(&w, "status", r->running ? "running" : r->status ? "failed" : "ok");
    rb_jw_str(&w, "error", r->status ? r->error : NULL);
    rb_jw_u64(&w, "dropped_messages", r->dropped_messages);
    s_json_run_nodes(&w, r);
    rb_jw_arr_begin(&w, "phases");
    for (uint32_t p = 0; p < r->nphases; p++)
        s_json_phase(&w, &r->phases[p], &r->specs[p]);
    rb_jw_arr_end(&w);
    s_json_accept(&w, r->accept);
    rb_project_result_json(&w, r->projection);
    rb_jw_obj_end(&w);
    return rb_jw_finish(&w);
}

/* Where the data is and whose it is, when not each worker's own file. */
static void s_text_access(FILE *f, const rb_phase_spec_t *sp)
{
    char b[64], who[RB_NAME_MAX + 8] = "";
    for (uint32_t j = 0; j < sp->njobs; j++) {
        const rb_job_spec_t *js = &sp->jobs[j];
        if (sp->njobs > 1)
            snprintf(who, sizeof who, "%s: ", js->name);
        if (js->shared_file && js->layout == RB_LAYOUT_STRIDED)
            fprintf(f, "  %-28s %sone file for all workers, strided in %s pieces\n", "layout", who,
                    rb_units_fmt_size_exact(b, sizeof b, js->transfer ? js->transfer : js->bs));
        else if (js->shared_file)
            fprintf(f, "  %-28s %sone file for all workers, a segment each\n", "layout", who);
        if (js->read_shift)
            fprintf(f, "  %-28s %sthe data of the node %u further on%s\n", "reads", who,
                    js->read_shift, js->verify ? ", verified" : "");
    }
}

/* stonewall_time figures and the page cache verdict. */
static void s_text_honesty(FILE *f, const rb_phase_agg_t *a)
{
    char b1[64], b2[64], b3[64];
    if (a->sw_limit_ns)
        fprintf(f,
                "  %-28s %s in %.3f s = %s; %u workers stopped at %.3f s, ops per worker "
                "%" PRIu64 "..%" PRIu64 "%s\n",
                "stonewall_time", rb_units_fmt_size(b1, sizeof b1, (double)a->sw_bytes), a->sw_s,
                rb_units_fmt_bw(b2, sizeof b2, a->sw_bw), a->sw_stopped,
                (double)a->sw_limit_ns / 1e9, a->sw_ops_min, a->sw_ops_max,
                a->wearout ? "; the figures above include the wear-out" : "");
    if (a->cache_influenced)
        fprintf(f,
                "  %-28s buffered data of %s per node is under 2 x RAM (%s on the smallest "
                "node): these figures measure the page cache, not the disks\n",
                "CACHE-INFLUENCED", rb_units_fmt_size(b1, sizeof b1, (double)a->buffered_set),
                rb_units_fmt_size(b3, sizeof b3, (double)a->ram_min));
    if (a->caches_dropped || a->drop_failed)
        fprintf(f, "  %-28s dropped on %u of %u nodes before the phase%s%s\n", "page cache",
                a->caches_dropped, a->nnodes, a->drop_failed ? "; could not drop: " : "",
                a->drop_failed ? strerror(-a->drop_status) : "");
}

/* The start skew, with how well the clock offsets behind it are known. */
static void s_text_skew(FILE *f, const rb_phase_agg_t *a)
{
    fprintf(f, "  %-28s %.3f ms", "start skew", a->start_skew_s * 1e3);
    if (a->clock_error_s > 0)
        fprintf(f, " (clock offsets within %.3f ms)", a->clock_error_s * 1e3);
    fputc('\n', f);
}

static void s_text_lat(FILE *f, const char *label, const rb_hist_t *h)
{
    if (!h->count) {
        fprintf(f, "  %-28s none recorded\n", label);
        return;
    }
    fprintf(f,
            "  %-28s min %.1f  p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  mean %.1f  "
            "stdev %.1f  (us, +-%.1f%%)\n",
            label, h->count ? s_us(h->min) : 0, s_us(rb_hist_percentile(h, 50)),
            s_us(rb_hist_percentile(h, 90)), s_us(rb_hist_percentile(h, 99)),
            s_us(rb_hist_percentile(h, 99.9)), h->count ? s_us(h->max) : 0, rb_hist_mean(h) / 1e3,
            rb_hist_stdev(h) / 1e3, RB_HIST_REL_ERROR * 100);
}

/* One row per node of a phase. */
static void s_text_nodes(FILE *f, const rb_phase_agg_t *a)
{
    char b1[64], b2[64];
    fprintf(f, "  %-16s %-10s %-8s %12s %24s %10s\n", "node", "rack", "status", "bytes",
            "bandwidth", "IOPS");
    for (uint32_t n = 0; n < a->nnodes; n++) {
        const rb_agg_node_t *an = &a->nodes[n];
        fprintf(f, "  %-16s %-10s %-8s %12s %24s %10.0f\n", an->name, an->rack,
                rb_aggregate_node_status_name(an->status),
                rb_units_fmt_size(b1, sizeof b1, (double)an->bytes),
                rb_units_fmt_bw(b2, sizeof b2, an->bw), an->iops);
        if (an->error[0])
            fprintf(f, "    error: %s\n", an->error);
    }
    /* node -> rack -> cluster */
    char b3[64], b4[64], b5[64];
    for (uint32_t k = 0; k <= a->nracks; k++) {
        const rb_agg_group_t *g = k < a->nracks ? &a->racks[k] : &a->cluster;
        fprintf(f, "  %-5s %-21s %3u nodes %12s %24s  node median %s (%s .. %s)\n",
                k < a->nracks ? "rack" : "", g->name, g->nodes,
                rb_units_fmt_size(b1, sizeof b1, (double)g->bytes),
                rb_units_fmt_bw(b2, sizeof b2, g->aggregate_bw),
                rb_units_fmt_bw(b3, sizeof b3, g->node_bw_median),
                rb_units_fmt_bw(b4, sizeof b4, g->node_bw_min),
                rb_units_fmt_bw(b5, sizeof b5, g->node_bw_max));
    }
}

/* One line per finding. */
static void s_text_findings(FILE *f, const rb_phase_agg_t *a)
{
    for (uint32_t i = 0; i < a->nfindings; i++) {
        const rb_finding_t *x = &a->findings[i];
        char since[48] = "";
        if (x->first_seen_s >= 0)
            snprintf(since, sizeof since, ", from %.1f s on", x->first_seen_s);
        fprintf(f, "  %-28s %s%s%s: %s%s\n", "FINDING", rb_findings_kind_name(x->kind), " ",
                x->device[0] ? x->device : x->node, x->evidence, since);
    }
}

/* Per node and device: how busy, how fast, what it counted. */
static void s_text_devices(FILE *f, const rb_phase_agg_t *a)
{
    char b1[64], b2[64], b3[64], b4[64];
    if (!a->ndevs)
        return;
    fprintf(f, "  %-16s %-14s %-12s %7s %7s %14s %14s %9s %10s %10s\n", "node", "device", "of",
            "util%", "max%", "read/s", "write/s", "await ms", "read", "written");
    for (uint32_t i = 0; i < a->ndevs; i++) {
        const rb_agg_dev_t *d = &a->devs[i];
        fprintf(f, "  %-16s %-14s %-12s %7.1f %7.1f %14s %14s %9.2f %10s %10s\n", d->node,
                d->device, d->member ? d->parent : "(root)", d->util_median, d->util_max,
                rb_units_fmt_size(b1, sizeof b1, d->rd_bps_median),
                rb_units_fmt_size(b2, sizeof b2, d->wr_bps_median), d->await_ms_median,
                rb_units_fmt_size(b3, sizeof b3, (double)d->rd_bytes),
                rb_units_fmt_size(b4, sizeof b4, (double)d->wr_bytes));
    }
}

/* Steady state against peak, from the cluster's per-interval bandwidth. */
static void s_text_steady(FILE *f, const rb_phase_agg_t *a)
{
    char b1[64], b2[64], b3[64];
    const rb_agg_steady_t *st = &a->steady;
    if (!st->intervals)
        return;
    fprintf(f,
            "  %-28s median %s, min %s, peak %s over %u intervals of %.3g s; %.3g s at >= 90%% "
            "of peak\n",
            "steady state", rb_units_fmt_bw(b1, sizeof b1, st->median_bw),
            rb_units_fmt_bw(b2, sizeof b2, st->min_bw), rb_units_fmt_bw(b3, sizeof b3, st->peak_bw),
            st->intervals, st->interval_s, st->sustained_s);
}

/* bonnie++'s table: per file set and order, the rate of each metadata step. */
static void s_text_meta(const rb_run_result_t *r, FILE *f)
{
    static const rb_meta_op_t cols[] = {RB_META_CREATE, RB_META_STAT,   RB_META_READ,
                                        RB_META_WRITE,  RB_META_RENAME, RB_META_DELETE};
    int header = 0;
    for (uint32_t p = 0; p < r->nphases; p++) {
        const rb_job_spec_t *mj = r->specs[p].njobs ? &r->specs[p].jobs[0] : NULL;
        int first = 1;
        if (!mj || mj->rw != RB_RW_META)
            continue;
        /* one row per (file set, order), at its first step */
        for (uint32_t q = 0; q < p && first; q++) {
            const rb_job_spec_t *o = r->specs[q].njobs ? &r->specs[q].jobs[0] : NULL;
            if (o && o->rw == RB_RW_META && o->meta_random == mj->meta_random &&
                strcmp(o->filename_format, mj->filename_format) == 0)
                first = 0;
        }
        if (!first)
            continue;
        if (!header) {
            fprintf(f, "\nmetadata, operations/s over all nodes (bonnie++ style; each step is a "
                       "phase above)\n");
            fprintf(f, "  %-16s %-10s %9s", "file set", "order", "files");
            for (size_t c = 0; c < sizeof cols / sizeof *cols; c++)
                fprintf(f, " %9s", rb_meta_op_name(cols[c]));
            fputc('\n', f);
            header = 1;
        }
        fprintf(f, "  %-16s %-10s %9" PRIu64, mj->filename_format,
                mj->meta_random ? "random" : "sequential", r->phases[p].ops + r->phases[p].errors);
        for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) {
            double rate = -1;
            for (uint32_t q = p; q < r->nphases; q++) {
                const rb_job_spec_t *o = r->specs[q].njobs ? &r->specs[q].jobs[0] : NULL;
                if (o && o->rw == RB_RW_META && o->meta_op == cols[c] &&
                    o->meta_random == mj->meta_random &&
                    strcmp(o->filename_format, mj->filename_format) == 0) {
                    rate = r->phases[q].iops;
                    break;
                }
            }
            if (rate < 0)
                fprintf(f, " %9s", "-");
            else
                fprintf(f, " %9.0f", rate);
        }
        fputc('\n', f);
    }
}

/* The PASS/FAIL table, one row per check and phase, and the verdict line. */
static void s_text_accept(FILE *f, const rb_accept_result_t *acc)
{
    static const char *const verdicts[] = {
        [RB_ACCEPT_PASS] = "PASS", [RB_ACCEPT_FAIL] = "FAIL", [RB_ACCEPT_NA] = "n/a"};
    char lim[80], meas[80], line[RB_REASON_MAX];
    int wset = 0, wphase = 5, wcheck = 5, wlim = 5, wmeas = 8;
    for (uint32_t i = 0; i < acc->nrows; i++) {
        const rb_accept_row_t *row = &acc->rows[i];
        int n = (int)strlen(row->set);
        wset = n > wset ? n : wset;
        n = (int)strlen(row->phase);
        wphase = n > wphase ? n : wphase;
        n = (int)strlen(rb_accept_check_name(row->check));
        wcheck = n > wcheck ? n : wcheck;
        rb_accept_result_value_text(meas, sizeof meas, row->check, row->limit);
        n = (int)strlen(meas) + 3;
        wlim = n > wlim ? n : wlim;
        rb_accept_result_value_text(meas, sizeof meas, row->check, row->measured);
        n = (int)strlen(meas);
        wmeas = n > wmeas ? n : wmeas;
    }
    if (wset > 0 && wset < 3)
        wset = 3;
    fprintf(f, "\nacceptance\n");
    if (wset)
        fprintf(f, "  %-*s", wset, "set");
    fprintf(f, "  %-*s  %-*s  %-*s  %-*s  %s\n", wphase, "phase", wcheck, "check", wlim, "limit",
            wmeas, "measured", "result");
    for (uint32_t i = 0; i < acc->nrows; i++) {
        const rb_accept_row_t *row = &acc->rows[i];
        rb_accept_result_value_text(meas, sizeof meas, row->check, row->limit);
        snprintf(lim, sizeof lim, "%s %s", rb_accept_check_is_min(row->check) ? ">=" : "<=", meas);
        rb_accept_result_value_text(meas, sizeof meas, row->check, row->measured);
        if (wset)
            fprintf(f, "  %-*s", wset, row->set[0] ? row->set : "-");
        fprintf(f, "  %-*s  %-*s  %-*s  %-*s  %s", wphase, row->phase, wcheck,
                rb_accept_check_name(row->check), wlim, lim, wmeas, meas,
                (unsigned)row->verdict <= RB_ACCEPT_NA ? verdicts[row->verdict] : "?");
        if (row->note)
            fprintf(f, "%*s(%s)", row->verdict == RB_ACCEPT_NA ? 3 : 2, "", row->note);
        fputc('\n', f);
    }
    fprintf(f, "%s\n", rb_accept_result_verdict(acc, line, sizeof line));
}

/* Phase p of run r in report.txt: its line, its figures, then its jobs,
 * steady state, findings, nodes and devices. */
static void s_text_phase(FILE *f, const rb_run_result_t *r, uint32_t p)
{
    char b1[64], b2[64], b3[64];
    const rb_phase_agg_t *a = &r->phases[p];
    const rb_phase_spec_t *sp = &r->specs[p];
    if (rb_phase_spec_is_meta(sp))
        fprintf(f,
                "\nphase %u/%u  %s  meta %s %s, %" PRIu64
                " files a worker%s, %u workers on %u nodes%s\n",
                p + 1, r->nphases, a->name, rb_meta_op_name(sp->jobs[0].meta_op),
                sp->jobs[0].meta_random ? "random" : "sequential", sp->jobs[0].meta_files,
                sp->jobs[0].meta_shared ? " in one shared folder" : "", a->nworkers, a->nnodes,
                a->partial ? "  PARTIAL" : "");
    else
        fprintf(f, "\nphase %u/%u  %s  %s bs=%s %s %s qd%u  %u job%s, %u workers on %u nodes%s\n",
                p + 1, r->nphases, a->name, rb_rw_name(a->rw) ? rb_rw_name(a->rw) : "?",
                rb_units_fmt_size_exact(b1, sizeof b1, a->bs), a->direct ? "direct" : "buffered",
                a->njobs ? a->jobs[0].ioengine : "sync", a->njobs ? a->jobs[0].iodepth : 1,
                sp->njobs, sp->njobs == 1 ? "" : "s", a->nworkers, a->nnodes,
                a->partial ? "  PARTIAL" : "");
    if (s_covered(a) < a->nnodes)
        fprintf(f, "  %-28s %u of %u nodes completed the phase\n", "coverage", s_covered(a),
                a->nnodes);
    if (rb_phase_spec_is_meta(sp)) {
        /* metadata: operations are the figure; bytes only when files have content */
        double opr[4];
        s_op_rates(a, opr);
        fprintf(f, "  %-28s %.0f ops/s\n", "aggregate (parent sees)", a->iops);
        fprintf(f, "  %-28s %.0f ops/s\n", "sum of rates (children see)", opr[0]);
        fprintf(f, "  %-28s min %.0f  avg %.0f  max %.0f ops/s\n", "per worker", opr[1], opr[2],
                opr[3]);
        fprintf(f, "  %-28s %" PRIu64 " ops, %s in %.3f s, %" PRIu64 " errors\n", "done", a->ops,
                rb_units_fmt_size(b1, sizeof b1, (double)a->bytes), a->window_s, a->errors);
        s_text_skew(f, a);
        s_text_lat(f, "latency", &a->hist);
        if (a->error_code)
            fprintf(f, "  %-28s %s: %s\n", "first error", a->error_node, a->error);
        s_text_nodes(f, a);
        return;
    }
    fprintf(f, "  %-28s %s\n", "aggregate (parent sees)",
            rb_units_fmt_bw(b1, sizeof b1, a->aggregate_bw));
    fprintf(f, "  %-28s %s\n", "sum of rates (children see)",
            rb_units_fmt_bw(b1, sizeof b1, a->sum_of_rates_bw));
    if (a->from_samples) {
        fprintf(f,
                "  %-28s the run was cut off in this phase: its figures add up its "
                "samples; no latency, no per-worker figures\n",
                "REBUILT FROM SAMPLES");
    } else {
        fprintf(f, "  %-28s %s  (until the first worker ended, %.3f s)\n", "stonewall",
                rb_units_fmt_bw(b1, sizeof b1, a->stonewall_bw), a->stonewall_s);
        fprintf(f, "  %-28s min %s  avg %s  max %s\n", "per worker",
                rb_units_fmt_bw(b1, sizeof b1, a->worker_bw_min),
                rb_units_fmt_bw(b2, sizeof b2, a->worker_bw_avg),
                rb_units_fmt_bw(b3, sizeof b3, a->worker_bw_max));
    }
    fprintf(f, "  %-28s %.0f  (%" PRIu64 " ops)\n", "IOPS", a->iops, a->ops);
    fprintf(f, "  %-28s %s in %.3f s, %" PRIu64 " errors\n", "moved",
            rb_units_fmt_size(b1, sizeof b1, (double)a->bytes), a->window_s, a->errors);
    s_text_skew(f, a);
    s_text_lat(f, "latency", &a->hist);
    s_text_access(f, sp);
    s_text_honesty(f, a);
    if (a->read_ops && a->read_ops != a->ops)
        fprintf(f, "  %-28s read %s in %" PRIu64 " ops, write %s in %" PRIu64 " ops\n", "mix",
                rb_units_fmt_size(b1, sizeof b1, (double)a->read_bytes), a->read_ops,
                rb_units_fmt_size(b2, sizeof b2, (double)(a->bytes - a->read_bytes)),
                a->ops - a->read_ops);
    if (a->verify_errors)
        fprintf(f, "  %-28s %" PRIu64 " blocks failed verification\n", "VERIFY", a->verify_errors);
    if (a->error_code)
        fprintf(f, "  %-28s %s: %s\n", "first error", a->error_node, a->error);
    if (a->njobs > 1)
        for (uint32_t j = 0; j < a->njobs; j++) {
            const rb_agg_job_t *aj = &a->jobs[j];
            fprintf(f, "  job %-16s %s %s qd%u  %s  %.0f IOPS\n", aj->name, rb_rw_name(aj->rw),
                    aj->ioengine, aj->iodepth, rb_units_fmt_bw(b1, sizeof b1, aj->bw), aj->iops);
            s_text_lat(f, "    latency", aj->hist);
        }
    s_text_steady(f, a);
    s_text_findings(f, a);
    s_text_nodes(f, a);
    s_text_devices(f, a);
}

int rb_report_text(const rb_run_result_t *r, FILE *f)
{
    char when[32];
    uint32_t ok = 0;
    for (uint32_t i = 0; i < r->nnodes; i++)
        ok += r->nodes[i].status == RB_NODE_OK;
    rb_time_iso(when, sizeof when, r->started_wall_ns);
    fprintf(f, "rackbench %s  run %s  %s\n", RB_VERSION, r->run_id, when);
    fprintf(f, "plan %s  nodes %u (%u ok)  %.1f s  %s\n", r->plan_source, r->nnodes, ok,
            r->duration_s,
            r->running  ? "DID NOT FINISH (partial)"
            : r->status ? "FAILED"
                        : "completed");
    if (r->status)
        fprintf(f, "error: %s\n", r->error);
    for (uint32_t i = 0; i < r->nnodes; i++)
        if (r->nodes[i].status != RB_NODE_OK)
            fprintf(f, "node %s: %s: %s%s\n", r->nodes[i].name,
                    rb_aggregate_node_status_name(r->nodes[i].status), r->nodes[i].error,
                    s_lost_at(r->nodes[i].lost_at_s));
    for (uint32_t p = 0; p < r->nphases; p++)
        s_text_phase(f, r, p);
    s_text_meta(r, f);
    if (r->accept)
        s_text_accept(f, r->accept);
    rb_project_result_text(f, r->projection);
    fflush(f);
    return ferror(f) ? -EIO : 0;
}
