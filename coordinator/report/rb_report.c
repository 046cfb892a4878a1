/* Renders a run's figures for scripts (summary.json, samples.csv) and for
 * people (report.txt). Every figure printed is one computed in
 * rb_aggregate.c; nothing here derives new numbers beyond unit changes. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rb_engine_info.h"
#include "rb_json.h"
#include "rb_drives.h"
#include "rb_findings.h"
#include "rb_iter.h"
#include "rb_opt.h"
#include "rb_io500.h"
#include "rb_perm.h"
#include "rb_report.h"
#include "rb_report_net.h"
#include "rb_disks.h"
#include "rb_host_json.h"
#include "rb_time.h"
#include "rb_units.h"

static void s_json_lat_as(rb_jw_t *w, const char *key, const rb_hist_t *h)
{
    rb_jw_obj_begin(w, key);
    rb_jw_u64(w, "count", h->count);
    rb_jw_num(w, "min", h->count ? rb_report_us(h->min) : 0);
    rb_jw_num(w, "mean", rb_hist_mean(h) / 1e3);
    rb_jw_num(w, "stdev", rb_hist_stdev(h) / 1e3);
    static const struct {
        const char *key;
        double p;
    } pct[] = {{"p1", 1},   {"p5", 5},   {"p50", 50},     {"p90", 90},
               {"p95", 95}, {"p99", 99}, {"p99.9", 99.9}, {"p99.99", 99.99}};
    for (size_t i = 0; i < sizeof pct / sizeof pct[0]; i++)
        rb_jw_num(w, pct[i].key, rb_report_us(rb_hist_percentile(h, pct[i].p)));
    rb_jw_num(w, "max", h->count ? rb_report_us(h->max) : 0);
    rb_jw_num(w, "rel_error", RB_HIST_REL_ERROR);
    rb_jw_obj_end(w);
}

static void s_json_lat(rb_jw_t *w, const rb_hist_t *h)
{
    s_json_lat_as(w, "lat_us", h);
}

/* The histogram itself, so that a run folder can be read back exactly
 * (rackbench report): count, sum, min, max (ns) and [index, count] of every
 * bucket that is not empty. */
static void s_json_hist_as(rb_jw_t *w, const char *key, const rb_hist_t *h)
{
    rb_jw_obj_begin(w, key);
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

static void s_json_hist(rb_jw_t *w, const rb_hist_t *h)
{
    s_json_hist_as(w, "lat_hist", h);
}

/* A row's latency without its histogram: count, mean, p50, p90, p99,
 * p99.9, min and max in us. */
static void s_json_lat_summary(rb_jw_t *w, const char *key, const rb_lat_summary_t *s)
{
    rb_jw_obj_begin(w, key);
    rb_jw_u64(w, "count", s->count);
    rb_jw_num(w, "min", rb_report_us(s->min));
    rb_jw_num(w, "mean", s->mean / 1e3);
    rb_jw_num(w, "p50", rb_report_us(s->p50));
    rb_jw_num(w, "p90", rb_report_us(s->p90));
    rb_jw_num(w, "p99", rb_report_us(s->p99));
    rb_jw_num(w, "p99.9", rb_report_us(s->p999));
    rb_jw_num(w, "max", rb_report_us(s->max));
    rb_jw_obj_end(w);
}

/* One direction's counts and rates, the members every "directions" entry has. */
static void s_json_dir_counts(rb_jw_t *w, const rb_agg_dir_t *d)
{
    rb_jw_u64(w, "bytes", d->bytes);
    rb_jw_u64(w, "ops", d->ops);
    rb_jw_num(w, "bw", d->bw);
    rb_jw_num(w, "iops", d->iops);
}

/* "directions" of a phase or job: per direction its counts, rates and its
 * three latencies with their histograms (slat null where none was taken:
 * the IOs completed as they were submitted). */
static void s_json_dirs_full(rb_jw_t *w, const rb_agg_dir_t dir[RB_NDIRS],
                             const rb_hist_t (*lat)[RB_NLATS])
{
    rb_jw_obj_begin(w, "directions");
    for (int d = 0; d < RB_NDIRS; d++) {
        rb_jw_obj_begin(w, rb_dir_name((rb_dir_t)d));
        s_json_dir_counts(w, &dir[d]);
        for (int k = 0; k < RB_NLATS; k++) {
            char us[16], hk[16];
            snprintf(us, sizeof us, "%s_us", rb_lat_kind_name((rb_lat_kind_t)k));
            snprintf(hk, sizeof hk, "%s_hist", rb_lat_kind_name((rb_lat_kind_t)k));
            if (k == RB_LAT_SLAT && !lat[d][k].count) {
                rb_jw_null(w, us);
                rb_jw_null(w, hk);
                continue;
            }
            s_json_lat_as(w, us, &lat[d][k]);
            s_json_hist_as(w, hk, &lat[d][k]);
        }
        rb_jw_obj_end(w);
    }
    rb_jw_obj_end(w);
}

/* "lat_us" and "directions" of a node, rack or the cluster: summaries only. */
static void s_json_dirs_summary(rb_jw_t *w, const rb_agg_dir_t dir[RB_NDIRS],
                                const rb_node_lat_t *lat)
{
    s_json_lat_summary(w, "lat_us", &lat->all);
    rb_jw_obj_begin(w, "directions");
    for (int d = 0; d < RB_NDIRS; d++) {
        rb_jw_obj_begin(w, rb_dir_name((rb_dir_t)d));
        s_json_dir_counts(w, &dir[d]);
        s_json_lat_summary(w, "lat_us", &lat->dir[d]);
        rb_jw_obj_end(w);
    }
    rb_jw_obj_end(w);
}

/* A wall-clock time as "<key>" (ISO 8601 UTC with ns) and "<key>_ns"; null
 * for an unknown one. */
static void s_json_utc(rb_jw_t *w, const char *key, uint64_t ns)
{
    char k[48], iso[64], day[32];
    snprintf(k, sizeof k, "%s_ns", key);
    if (!ns) {
        rb_jw_null(w, key);
        rb_jw_null(w, k);
        return;
    }
    time_t t = (time_t)(ns / 1000000000ULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(iso, sizeof iso, "%s.%09" PRIu64 "Z", day, (uint64_t)(ns % 1000000000ULL));
    rb_jw_str(w, key, iso);
    rb_jw_u64(w, k, ns);
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
        if (aj->lat_depth)
            rb_jw_u64(w, "latency_depth", aj->lat_depth);
        rb_jw_u64(w, "bs", aj->bs);
        rb_jw_u64(w, "workers", aj->workers);
        rb_jw_u64(w, "bytes", aj->bytes);
        rb_jw_u64(w, "ops", aj->ops);
        rb_jw_u64(w, "read_bytes", aj->read_bytes);
        rb_jw_u64(w, "read_ops", aj->read_ops);
        rb_jw_u64(w, "errors", aj->errors);
        rb_jw_u64(w, "verify_errors", aj->verify_errors);
        if (aj->first_errno) { /* continue_on_error: which error the job went on after */
            const char *name = strerrorname_np((int)aj->first_errno);
            rb_jw_u64(w, "first_errno", aj->first_errno);
            rb_jw_str(w, "first_errno_name", name ? name : "");
        }
        rb_jw_num(w, "window_s", aj->window_s);
        rb_jw_num(w, "bw", aj->bw);
        rb_jw_num(w, "iops", aj->iops);
        s_json_lat(w, aj->hist);
        s_json_hist(w, aj->hist);
        s_json_dirs_full(w, aj->dir, (const rb_hist_t(*)[RB_NLATS])aj->lats->dir);
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
        char note[sizeof row->what + 128];
        rb_jw_str(w, "note", rb_accept_row_note(row, note, sizeof note));
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
    s_json_dirs_summary(w, g->dir, &g->lat);
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
        if (f->kind == RB_FIND_STALL)
            rb_jw_num(w, "length_s", f->length_s);
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
}

/* interval_bw of a phase: the cluster's rate point by point (the worst
 * interval and window are judged on it); left out without samples. */
static void s_json_interval_bw(rb_jw_t *w, const rb_phase_agg_t *a)
{
    if (!a->nbw_points)
        return;
    rb_jw_obj_begin(w, "interval_bw");
    rb_jw_num(w, "t0_s", a->bw_point_t0);
    rb_jw_num(w, "point_s", a->bw_point_s);
    rb_jw_num(w, "min_bw", rb_findings_min_window_bw(a, 0));
    rb_jw_num(w, "max_stall_s", a->max_stall_s);
    rb_jw_arr_begin(w, "bw");
    for (uint32_t k = 0; k < a->nbw_points; k++)
        rb_jw_num(w, NULL, a->bw_points[k]);
    rb_jw_arr_end(w);
    rb_jw_obj_end(w);
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

/* disks[] of a phase (only when it ran on raw devices): per node and disk
 * what it is, what its own workers did, and its family. */
static void s_json_disks(rb_jw_t *w, const rb_phase_agg_t *a)
{
    if (!a->ndisks)
        return;
    rb_jw_arr_begin(w, "disks");
    for (uint32_t i = 0; i < a->ndisks; i++) {
        const rb_agg_disk_t *d = &a->disks[i];
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "node", d->node);
        rb_dev_id_t id;
        rb_host_json_dev(w, rb_disks_id(a, i, &id));
        rb_jw_u64(w, "workers", d->workers);
        rb_jw_u64(w, "bytes", d->bytes);
        rb_jw_u64(w, "ops", d->ops);
        rb_jw_u64(w, "errors", d->errors);
        rb_jw_num(w, "window_s", d->window_s);
        rb_jw_num(w, "bw", d->bw);
        rb_jw_num(w, "iops", d->iops);
        s_json_lat_summary(w, "lat_us", &d->lat);
        rb_jw_obj_begin(w, "directions");
        for (int k = 0; k < RB_NDIRS; k++) {
            rb_jw_obj_begin(w, rb_dir_name((rb_dir_t)k));
            s_json_dir_counts(w, &d->dir[k]);
            rb_jw_obj_end(w);
        }
        rb_jw_obj_end(w);
        rb_jw_obj_begin(w, "family");
        rb_jw_u64(w, "disks", d->family_n);
        rb_jw_num(w, "median_bw", d->family_median_bw);
        rb_jw_num(w, "deviation", d->deviation);
        rb_jw_obj_end(w);
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

/* read_from=random: the seed, and whose data each node read, in the
 * phase's node order (rank order): the cycle every agent computed alike. */
static void s_json_read_map(rb_jw_t *w, const rb_job_spec_t *js, const rb_phase_agg_t *a)
{
    uint32_t *next = a->nnodes ? malloc((size_t)a->nnodes * sizeof *next) : NULL;
    rb_jw_u64(w, "read_seed", rb_job_read_seed(js));
    if (!next) {
        rb_jw_null(w, "read_map");
        return;
    }
    rb_perm_cycle(next, a->nnodes, rb_job_read_seed(js));
    rb_jw_obj_begin(w, "read_map");
    for (uint32_t i = 0; i < a->nnodes; i++)
        rb_jw_str(w, a->nodes[i].name, a->nodes[next[i]].name);
    rb_jw_obj_end(w);
    free(next);
}

/* How the phase's first job lays out its data across nodes, and whose it reads. */
static void s_json_access(rb_jw_t *w, const rb_phase_spec_t *sp, const rb_phase_agg_t *a)
{
    const rb_job_spec_t *js = sp->njobs ? &sp->jobs[0] : NULL;
    char from[32] = "self";
    if (js && js->read_shift == RB_READ_RANDOM)
        snprintf(from, sizeof from, "random");
    else if (js && js->read_shift)
        snprintf(from, sizeof from, "shift:%u", js->read_shift);
    rb_jw_bool(w, "file_per_worker", !js || !js->shared_file);
    rb_jw_str(w, "layout", js && js->shared_file ? rb_layout_mode_name(js->layout) : NULL);
    rb_jw_str(w, "read_from", from);
    if (js && js->read_shift == RB_READ_RANDOM)
        s_json_read_map(w, js, a);
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
        if (n->build[0])
            rb_jw_str(w, "build", n->build);
        if (n->protocol)
            rb_jw_u64(w, "protocol", n->protocol);
        rb_jw_str(w, "status", rb_aggregate_node_status_name(n->status));
        rb_jw_str(w, "error", n->status != RB_NODE_OK ? n->error : NULL);
        if (n->cleanup)
            rb_jw_str(w, "cleanup", rb_report_cleanup_name(n->cleanup));
        rb_jw_u64(w, "cores", n->cores);
        rb_jw_u64(w, "ram_bytes", n->ram_bytes);
        rb_jw_num(w, "clock_offset_s", (double)n->clock_offset_ns / 1e9);
        rb_jw_num(w, "clock_rtt_s", (double)n->clock_rtt_ns / 1e9);
        rb_jw_u64(w, "removed_files", n->removed_files);
        if (n->lost_at_s >= 0)
            rb_jw_num(w, "lost_at_s", n->lost_at_s);
        else
            rb_jw_null(w, "lost_at_s");
        if (r->running && r->seen_s > 0) {
            if (n->last_sample_s >= 0)
                rb_jw_num(w, "last_sample_s", n->last_sample_s);
            else
                rb_jw_null(w, "last_sample_s");
            rb_jw_bool(w, "silent", rb_report_silent(r, n));
        }
        if (n->hw)
            rb_host_json_write(w, n->hw);
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
        rb_jw_str(w, "error", an->error);
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
        s_json_dirs_summary(w, an->dir, &an->lat);
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
}

/* "steadystate": fio's judgement of each job that has one, on each node;
 * absent when no job of the phase has a window. */
static void s_json_steadystate(rb_jw_t *w, const rb_phase_agg_t *a)
{
    if (!a->nss)
        return;
    rb_jw_arr_begin(w, "steadystate");
    for (uint32_t i = 0; i < a->nss; i++) {
        const rb_agg_ss_t *ss = &a->ss[i];
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "job", ss->job);
        rb_jw_str(w, "node", ss->node);
        rb_jw_str(w, "criterion", ss->criterion);
        rb_jw_u64(w, "duration_s", ss->dur_s);
        rb_jw_num(w, "ramp_s", ss->ramp_s);
        rb_jw_bool(w, "attained", ss->attained);
        rb_jw_num(w, "after_s", ss->after_s);
        if (ss->figure >= 0)
            rb_jw_num(w, "figure", ss->figure);
        else
            rb_jw_null(w, "figure");
        if (ss->mean >= 0)
            rb_jw_num(w, "mean", ss->mean);
        else
            rb_jw_null(w, "mean");
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
}

/* The bounds a phase rebuilt from samples has on its latency
 * (rb_lat_bounds_t): its members, or under key an object of them. */
static void s_json_lat_bounds(rb_jw_t *w, const char *key, const rb_lat_bounds_t *b)
{
    if (key)
        rb_jw_obj_begin(w, key);
    rb_jw_u64(w, "intervals", b->intervals);
    const double v[4] = {b->p50_lo, b->p50_hi, b->p99_lo, b->p99_hi};
    const char *const k[4] = {"p50_us_min", "p50_us_max", "p99_us_min", "p99_us_max"};
    for (int i = 0; i < 4; i++)
        if (b->intervals)
            rb_jw_num(w, k[i], v[i]);
        else
            rb_jw_null(w, k[i]);
    if (b->max > 0)
        rb_jw_num(w, "max_us", b->max);
    else
        rb_jw_null(w, "max_us");
    if (key)
        rb_jw_obj_end(w);
}

/* One phase object of "phases", members in the order of docs/report-schema.md. */
static void s_json_phase(rb_jw_t *w, const rb_phase_agg_t *a, const rb_phase_spec_t *sp,
                         const rb_plan_iter_t *it)
{
    rb_jw_obj_begin(w, NULL);
    rb_jw_str(w, "name", a->name);
    rb_jw_str(w, "group", it ? it->base : a->name);
    rb_jw_u64(w, "iteration", it ? it->iteration + 1 : 1);
    rb_jw_u64(w, "iterations", it ? it->iterations : 1);
    rb_jw_str(w, "rw", rb_rw_name(a->rw));
    rb_jw_u64(w, "bs", a->bs);
    rb_jw_bool(w, "direct", a->direct);
    rb_jw_arr_begin(w, "jobs");
    for (uint32_t j = 0; j < sp->njobs; j++)
        rb_jw_str(w, NULL, sp->jobs[j].name);
    rb_jw_arr_end(w);
    /* each job's options, from the option table as `rackbench check` prints them */
    rb_jw_arr_begin(w, "job_options");
    for (uint32_t j = 0; j < sp->njobs; j++) {
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "name", sp->jobs[j].name);
        (void)rb_opt_json_job(w, &sp->jobs[j], NULL);
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
    rb_jw_bool(w, "partial", a->partial);
    rb_jw_bool(w, "from_samples", a->from_samples);
    if (a->from_samples) {
        rb_jw_obj_begin(w, "latency_from_samples");
        s_json_lat_bounds(w, NULL, &a->smp_lat);
        s_json_lat_bounds(w, "read", &a->smp_dir_lat[0]);
        s_json_lat_bounds(w, "write", &a->smp_dir_lat[1]);
        rb_jw_obj_end(w);
    }
    rb_jw_obj_begin(w, "coverage");
    rb_jw_u64(w, "nodes", rb_report_covered(a));
    rb_jw_u64(w, "of", a->nnodes);
    rb_jw_obj_end(w);
    s_json_access(w, sp, a);
    s_json_honesty(w, a);
    if (rb_phase_spec_is_meta(sp)) {
        const rb_job_spec_t *mj = &sp->jobs[0];
        rb_jw_str(w, "meta_op", rb_meta_op_name(mj->meta_op));
        rb_jw_str(w, "meta_order", mj->meta_random ? "random" : "sequential");
        rb_jw_str(w, "meta_set", mj->filename_format);
        rb_jw_u64(w, "meta_files_per_worker", mj->meta_files);
        rb_jw_bool(w, "meta_shared_dir", mj->meta_shared);
        if (mj->meta_op == RB_META_FIND)
            rb_jw_u64(w, "found", a->found); /* of ops, the files examined */
    }
    rb_jw_str(w, "ioengine", a->njobs ? a->jobs[0].ioengine : "sync");
    rb_jw_u64(w, "iodepth", a->njobs ? a->jobs[0].iodepth : 1);
    rb_jw_u64(w, "workers", a->nworkers);
    rb_jw_u64(w, "bytes", a->bytes);
    rb_jw_u64(w, "ops", a->ops);
    rb_jw_u64(w, "errors", a->errors);
    rb_jw_u64(w, "read_bytes", a->read_bytes);
    rb_jw_u64(w, "read_ops", a->read_ops);
    /* what is neither read nor trimmed (directions has each on its own) */
    rb_jw_u64(w, "write_bytes", a->bytes - a->read_bytes - a->dir[RB_DIR_TRIM].bytes);
    rb_jw_u64(w, "write_ops", a->ops - a->read_ops - a->dir[RB_DIR_TRIM].ops);
    s_json_utc(w, "go_utc", a->go_utc_ns);
    s_json_utc(w, "first_start_utc", a->first_start_utc_ns);
    s_json_utc(w, "last_end_utc", a->last_end_utc_ns);
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
    if (a->sample_interval_s > 0)
        rb_jw_num(w, "sample_interval_s", a->sample_interval_s);
    rb_jw_num(w, "aggregate_bw", a->aggregate_bw);
    rb_jw_num(w, "sum_of_rates_bw", a->sum_of_rates_bw);
    rb_jw_num(w, "stonewall_bw", a->stonewall_bw);
    rb_jw_num(w, "stonewall_s", a->stonewall_s);
    rb_jw_num(w, "iops", a->iops);
    rb_jw_num(w, "start_skew_s", a->start_skew_s);
    rb_jw_num(w, "clock_error_s", a->clock_error_s);
    double opr[4];
    rb_report_op_rates(a, opr);
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
    s_json_dirs_full(w, a->dir, (const rb_hist_t(*)[RB_NLATS])a->lat);
    s_json_jobs(w, a);
    s_json_phase_nodes(w, a);
    s_json_rollups(w, a);
    s_json_steadystate(w, a);
    s_json_findings(w, a);
    s_json_interval_bw(w, a);
    s_json_devices(w, a);
    s_json_disks(w, a);
    rb_report_net_json(w, a, sp);
    rb_jw_obj_end(w);
}

/* "iterations": each repeated phase's figures over its iterations (IOR's
 * summary of -i repetitions). */
static int s_json_iterations(rb_jw_t *w, const rb_run_result_t *r)
{
    rb_iter_group_t *g = NULL;
    uint32_t n = 0;
    if (rb_iter_groups(r->iters, r->nplanned, r->phases, r->nphases, &g, &n) < 0)
        return -ENOMEM;
    rb_jw_arr_begin(w, "iterations");
    for (uint32_t i = 0; i < n; i++) {
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "phase", g[i].name);
        rb_jw_u64(w, "iterations", g[i].iterations);
        rb_jw_u64(w, "ran", g[i].ran);
        rb_jw_u64(w, "partial", g[i].partial);
        rb_jw_arr_begin(w, "phases");
        for (uint32_t p = g[i].first; p < r->nphases; p++)
            if (r->iters[p].group == g[i].first)
                rb_jw_str(w, NULL, r->phases[p].name);
        rb_jw_arr_end(w);
        for (int f = 0; f < RB_ITER_NFIGS; f++) {
            const rb_stats_summary_t *s = &g[i].fig[f];
            rb_jw_obj_begin(w, rb_iter_fig_name((rb_iter_fig_t)f));
            rb_jw_u64(w, "n", s->n);
            rb_jw_num(w, "mean", s->mean);
            rb_jw_num(w, "stddev", s->stddev);
            rb_jw_num(w, "min", s->min);
            rb_jw_num(w, "max", s->max);
            rb_jw_obj_end(w);
        }
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
    free(g);
    return 0;
}

/* IO500's scores, when the run has IO500's phases (rb_io500.h); else nothing. */
static void s_json_io500(rb_jw_t *w, const rb_run_result_t *r)
{
    rb_io500_t io;
    if (!rb_io500_compute(r->phases, r->specs, r->nphases, &io))
        return;
    rb_jw_obj_begin(w, "io500");
    rb_jw_bool(w, "valid", io.valid);
    if (!io.valid)
        rb_jw_str(w, "not_valid_because", io.why);
    rb_jw_num(w, "stonewall_s", io.stonewall_s);
    rb_jw_num(w, "bw_score_gib_s", io.bw_score);
    rb_jw_num(w, "md_score_kiops", io.md_score);
    rb_jw_num(w, "score", io.score);
    rb_jw_u64(w, "find_examined", io.examined);
    rb_jw_u64(w, "found", io.found);
    rb_jw_num(w, "find_s", io.find_s);
    rb_jw_obj_begin(w, "phases");
    for (uint32_t i = 0; i < RB_IO500_NBW; i++)
        rb_jw_num(w, rb_io500_bw_name(i, 0), io.bw[i]);
    for (uint32_t i = 0; i < RB_IO500_NMD; i++)
        rb_jw_num(w, rb_io500_md_name(i, 0), io.md[i]);
    rb_jw_obj_end(w);
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
    if (r->build[0]) /* unknown in a run from before it was written */
        rb_jw_str(&w, "rackbench_build", r->build);
    rb_jw_str(&w, "plan", r->plan_source);
    rb_jw_str(&w, "started", when);
    rb_jw_num(&w, "duration_s", r->duration_s);
    if (r->running && r->seen_s > 0)
        rb_jw_num(&w, "seen_s", r->seen_s);
    rb_jw_str(&w, "status", r->running ? "running" : r->status ? "failed" : "ok");
    rb_jw_str(&w, "error", r->status ? r->error : NULL);
    rb_jw_u64(&w, "dropped_messages", r->dropped_messages);
    s_json_run_nodes(&w, r);
    rb_jw_arr_begin(&w, "phases");
    for (uint32_t p = 0; p < r->nphases; p++)
        s_json_phase(&w, &r->phases[p], &r->specs[p], r->iters ? &r->iters[p] : NULL);
    rb_jw_arr_end(&w);
    if (s_json_iterations(&w, r) < 0)
        return -ENOMEM;
    s_json_io500(&w, r);
    s_json_accept(&w, r->accept);
    if (rb_drives_json(&w, r) < 0)
        return -ENOMEM;
    rb_project_result_json(&w, r->projection);
    rb_jw_obj_end(&w);
    return rb_jw_finish(&w);
}
