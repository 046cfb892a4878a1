/* report.txt: a run's figures for people, phase by phase, in the
 * terminal's width (rb_report_text). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_findings.h"
#include "rb_iter.h"
#include "rb_io500.h"
#include "rb_report.h"
#include "rb_time.h"
#include "rb_units.h"

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
            label, h->count ? rb_report_us(h->min) : 0, rb_report_us(rb_hist_percentile(h, 50)),
            rb_report_us(rb_hist_percentile(h, 90)), rb_report_us(rb_hist_percentile(h, 99)),
            rb_report_us(rb_hist_percentile(h, 99.9)), h->count ? rb_report_us(h->max) : 0,
            rb_hist_mean(h) / 1e3, rb_hist_stdev(h) / 1e3, RB_HIST_REL_ERROR * 100);
}

/* A latency in us for a table cell: "-" when none was recorded. */
static const char *s_cell_us(char *buf, size_t len, uint64_t count, uint64_t ns)
{
    if (!count)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.1f", rb_report_us(ns));
    return buf;
}

/* One row per node of a phase, with its latency (all its IOs). */
static void s_text_nodes(FILE *f, const rb_phase_agg_t *a)
{
    char b1[64], b2[64], l1[24], l2[24], l3[24], l4[24];
    fprintf(f, "  %-16s %-10s %-8s %12s %24s %10s %8s %8s %8s %8s\n", "node", "rack", "status",
            "bytes", "bandwidth", "IOPS", "p50 us", "p99 us", "p99.9 us", "max us");
    for (uint32_t n = 0; n < a->nnodes; n++) {
        const rb_agg_node_t *an = &a->nodes[n];
        const rb_lat_summary_t *l = &an->lat.all;
        fprintf(f, "  %-16s %-10s %-8s %12s %24s %10.0f %8s %8s %8s %8s\n", an->name, an->rack,
                rb_aggregate_node_status_name(an->status),
                rb_units_fmt_size(b1, sizeof b1, (double)an->bytes),
                rb_units_fmt_bw(b2, sizeof b2, an->bw), an->iops,
                s_cell_us(l1, sizeof l1, l->count, l->p50),
                s_cell_us(l2, sizeof l2, l->count, l->p99),
                s_cell_us(l3, sizeof l3, l->count, l->p999),
                s_cell_us(l4, sizeof l4, l->count, l->max));
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

/* Per direction: its bytes, ops and rates, and its latencies (slat and clat
 * where the engine queued the IOs). Directions apart when more than one
 * moved data; the three latencies whenever slat was taken. */
static void s_text_dirs(FILE *f, const rb_agg_dir_t dir[RB_NDIRS], const rb_hist_t (*lat)[RB_NLATS],
                        const char *indent)
{
    char b1[64], b2[64], label[48];
    int moved = 0, slat = 0;
    for (int d = 0; d < RB_NDIRS; d++) {
        moved += dir[d].ops > 0;
        slat |= lat[d][RB_LAT_SLAT].count > 0;
    }
    if (moved < 2 && !slat)
        return;
    for (int d = 0; d < RB_NDIRS; d++) {
        if (!dir[d].ops)
            continue;
        snprintf(label, sizeof label, "%s%s", indent, rb_dir_name((rb_dir_t)d));
        fprintf(f, "  %-28s %s in %" PRIu64 " ops, %s, %.0f IOPS\n", label,
                rb_units_fmt_size(b1, sizeof b1, (double)dir[d].bytes), dir[d].ops,
                rb_units_fmt_bw(b2, sizeof b2, dir[d].bw), dir[d].iops);
        for (int k = 0; k < RB_NLATS; k++) {
            if (k != RB_LAT_LAT && !slat)
                continue;
            snprintf(label, sizeof label, "%s  %s", indent, rb_lat_kind_name((rb_lat_kind_t)k));
            if (k == RB_LAT_SLAT && !lat[d][k].count)
                fprintf(f, "  %-28s none: the IOs completed as they were submitted\n", label);
            else
                s_text_lat(f, label, &lat[d][k]);
        }
    }
}

/* One line per finding. */
static void s_text_findings(FILE *f, const rb_phase_agg_t *a)
{
    for (uint32_t i = 0; i < a->nfindings; i++) {
        const rb_finding_t *x = &a->findings[i];
        char since[48] = "";
        if (x->first_seen_s >= 0 && x->kind != RB_FIND_STALL) /* a stall says when itself */
            snprintf(since, sizeof since, ", from %.1f s on", x->first_seen_s);
        fprintf(f, "  %-28s %s %s%s%s: %s%s\n", "FINDING", rb_findings_kind_name(x->kind),
                x->node[0] ? x->node : "cluster", x->device[0] ? " " : "", x->device, x->evidence,
                since);
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
    if (rb_report_covered(a) < a->nnodes)
        fprintf(f, "  %-28s %u of %u nodes completed the phase\n", "coverage", rb_report_covered(a),
                a->nnodes);
    if (rb_phase_spec_is_meta(sp)) {
        /* metadata: operations are the figure; bytes only when files have content */
        double opr[4];
        rb_report_op_rates(a, opr);
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
    s_text_dirs(f, a->dir, (const rb_hist_t(*)[RB_NLATS])a->lat, "");
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
            s_text_dirs(f, aj->dir, (const rb_hist_t(*)[RB_NLATS])aj->lats->dir, "  ");
        }
    s_text_steady(f, a);
    s_text_findings(f, a);
    s_text_nodes(f, a);
    s_text_devices(f, a);
}

/* IOR's summary of its -i repetitions: per repeated phase the max, min,
 * mean and standard deviation of its bandwidth and IOPS over the iterations,
 * its mean p99 and mean time. */
static int s_text_iterations(FILE *f, const rb_run_result_t *r)
{
    rb_iter_group_t *g = NULL;
    uint32_t n = 0;
    if (rb_iter_groups(r->iters, r->nplanned, r->phases, r->nphases, &g, &n) < 0)
        return -ENOMEM;
    if (n)
        fprintf(f,
                "\niterations: each repeated phase over its iterations (stddev: sample, n-1)\n"
                "  %-16s %5s %13s %13s %13s %13s %9s %9s %9s %10s %9s\n",
                "phase", "ran", "max bw", "min bw", "mean bw", "stddev", "max iops", "min iops",
                "mean iops", "p99 mean", "time mean");
    for (uint32_t i = 0; i < n; i++) {
        const rb_stats_summary_t *bw = &g[i].fig[RB_ITER_BW], *io = &g[i].fig[RB_ITER_IOPS];
        const rb_stats_summary_t *lat = &g[i].fig[RB_ITER_P99_US], *t = &g[i].fig[RB_ITER_TIME_S];
        char b[4][32], ran[16], p99[24];
        const double bv[4] = {bw->max, bw->min, bw->mean, bw->stddev};
        for (int k = 0; k < 4; k++) { /* one unit, IEC, to fit the columns */
            rb_units_fmt_size(b[k], sizeof b[k] - 2, bv[k]);
            strcat(b[k], "/s");
        }
        snprintf(ran, sizeof ran, "%u/%u", g[i].ran, g[i].iterations);
        if (lat->n)
            snprintf(p99, sizeof p99, "%.1f us", lat->mean);
        else
            snprintf(p99, sizeof p99, "-");
        fprintf(f, "  %-16s %5s %13s %13s %13s %13s %9.0f %9.0f %9.0f %10s %8.3fs%s\n", g[i].name,
                ran, b[0], b[1], b[2], b[3], io->max, io->min, io->mean, p99, t->mean,
                g[i].partial ? "  (partial)" : "");
    }
    free(g);
    return 0;
}

/* IO500's result lines and scores, as IO500 prints them, when the run has
 * IO500's phases. */
static void s_text_io500(const rb_run_result_t *r, FILE *f)
{
    rb_io500_t io;
    if (!rb_io500_compute(r->phases, r->specs, r->nphases, &io))
        return;
    fprintf(f, "\nIO500 phases (%s: NOT a valid IO500 submission)\n", io.why);
    for (uint32_t i = 0; i < RB_IO500_NBW; i++)
        fprintf(f, "[RESULT] %20s %15.6f GiB/s\n", rb_io500_bw_name(i, 0), io.bw[i]);
    for (uint32_t i = 0; i < RB_IO500_NMD; i++)
        fprintf(f, "[RESULT] %20s %15.6f kIOPS\n", rb_io500_md_name(i, 0), io.md[i]);
    fprintf(f, "[SCORE ] Bandwidth %.6f GiB/s : IOPS %.6f kiops : TOTAL %.6f [INVALID]\n",
            io.bw_score, io.md_score, io.score);
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
            r->live      ? "RUNNING (the phases so far)"
            : r->running ? "DID NOT FINISH (partial)"
            : r->status  ? "FAILED"
                         : "completed");
    if (r->status)
        fprintf(f, "error: %s\n", r->error);
    for (uint32_t i = 0; i < r->nnodes; i++)
        if (r->nodes[i].status != RB_NODE_OK)
            fprintf(f, "node %s: %s: %s%s\n", r->nodes[i].name,
                    rb_aggregate_node_status_name(r->nodes[i].status), r->nodes[i].error,
                    rb_report_lost_at(r->nodes[i].lost_at_s));
    for (uint32_t p = 0; p < r->nphases; p++)
        s_text_phase(f, r, p);
    s_text_meta(r, f);
    if (s_text_iterations(f, r) < 0)
        return -ENOMEM;
    s_text_io500(r, f);
    if (r->accept)
        s_text_accept(f, r->accept);
    rb_project_result_text(f, r->projection);
    fflush(f);
    return ferror(f) ? -EIO : 0;
}
