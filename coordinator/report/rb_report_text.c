/* report.txt: a run's figures for people, phase by phase, in the
 * terminal's width (rb_report_text). */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_engine_info.h"
#include "rb_disks.h"
#include "rb_drives.h"
#include "rb_findings.h"
#include "rb_iter.h"
#include "rb_io500.h"
#include "rb_report.h"
#include "rb_report_text_int.h"
#include "rb_report_net.h"
#include "rb_text.h"
#include "rb_time.h"
#include "rb_units.h"

#define S_LABEL 28 /* the label column of a phase's lines */

/* One line of a phase: its label, then the text, wrapped within
 * RB_TEXT_WIDTH under itself. */
__attribute__((format(printf, 3, 4))) static void s_field(FILE *f, const char *label,
                                                          const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fprintf(f, "  %-*s ", S_LABEL, label);
    rb_text_wrap(f, text, 3 + S_LABEL, 3 + S_LABEL, RB_TEXT_WIDTH);
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
            s_field(f, "layout", "%sone file for all workers, strided in %s pieces", who,
                    rb_units_fmt_size_exact(b, sizeof b, js->transfer ? js->transfer : js->bs));
        else if (js->shared_file)
            s_field(f, "layout", "%sone file for all workers, a segment each", who);
        if (js->read_shift == RB_READ_RANDOM)
            s_field(f, "reads",
                    "%sthe data of the next node in a random cycle through the nodes (seed "
                    "%" PRIu64 ")%s",
                    who, rb_job_read_seed(js), js->verify ? ", verified" : "");
        else if (js->read_shift)
            s_field(f, "reads", "%sthe data of the node %u further on%s", who, js->read_shift,
                    js->verify ? ", verified" : "");
    }
}

/* Jobs whose engine keeps one IO in flight (sync, psync) but ask for more:
 * their iodepth does nothing, as in fio. */
static void s_text_iodepth(FILE *f, const rb_phase_spec_t *sp)
{
    char who[RB_NAME_MAX + 8] = "";
    for (uint32_t j = 0; j < sp->njobs; j++) {
        const rb_job_spec_t *js = &sp->jobs[j];
        const rb_engine_info_t *e = rb_engine_info_find(js->ioengine);
        if (!e || (e->flags & RB_ENGINE_INFO_F_ASYNC) || js->iodepth <= 1)
            continue;
        if (sp->njobs > 1)
            snprintf(who, sizeof who, "%s: ", js->name);
        s_field(f, "iodepth", "%s%s keeps one IO in flight per worker: iodepth=%u has no effect",
                who, js->ioengine, js->iodepth);
    }
}

/* fio's steadystate, a line per job and node: attained after how long, or
 * not, the criterion, and the last figure judged. */
static void s_text_steadystate(FILE *f, const rb_phase_agg_t *a, rb_units_style_t st)
{
    for (uint32_t i = 0; i < a->nss; i++) {
        const rb_agg_ss_t *ss = &a->ss[i];
        char metric[48], b1[64];
        snprintf(metric, sizeof metric, "%s", ss->criterion);
        char *limit = strchr(metric, ':');
        if (limit)
            *limit++ = '\0';
        int bw = strncmp(metric, "bw", 2) == 0;
        if (ss->attained)
            fprintf(f, "  steady state attained after %.1f s", ss->after_s);
        else
            fprintf(f, "  steady state not attained in %.1f s", ss->after_s);
        fprintf(f, " (%s within %s over %" PRIu32 " s)", metric, limit ? limit : "?", ss->dur_s);
        fprintf(f, ", job %s on %s", ss->job, ss->node);
        if (ss->figure >= 0 && ss->mean >= 0) {
            const char *pct = limit && strchr(limit, '%') ? "%" : "";
            fprintf(f, ": last %.4g%s of a mean of %s", ss->figure, pct,
                    bw ? rb_units_fmt_bw_in(b1, sizeof b1, ss->mean, st) : "");
            if (!bw)
                fprintf(f, "%.1f IOPS", ss->mean);
        }
        fputc('\n', f);
    }
}

/* stonewall_time figures and the page cache verdict. */
static void s_text_honesty(FILE *f, const rb_phase_agg_t *a, rb_units_style_t st)
{
    char b1[64], b2[64], b3[64];
    if (a->sw_limit_ns)
        s_field(f, "stonewall_time",
                "%s in %.3f s = %s; %u workers stopped at %.3f s, ops per worker "
                "%" PRIu64 "..%" PRIu64 "%s",
                rb_units_fmt_size_in(b1, sizeof b1, (double)a->sw_bytes, st), a->sw_s,
                rb_units_fmt_bw_in(b2, sizeof b2, a->sw_bw, st), a->sw_stopped,
                (double)a->sw_limit_ns / 1e9, a->sw_ops_min, a->sw_ops_max,
                a->wearout ? "; the figures above include the wear-out" : "");
    if (a->cache_influenced)
        s_field(f, "CACHE-INFLUENCED",
                "buffered data of %s per node is under 2 x RAM (%s on the smallest "
                "node): these figures measure the page cache, not the disks",
                rb_units_fmt_size_in(b1, sizeof b1, (double)a->buffered_set, st),
                rb_units_fmt_size_in(b3, sizeof b3, (double)a->ram_min, st));
    if (a->caches_dropped || a->drop_failed)
        s_field(f, "page cache", "dropped on %u of %u nodes before the phase%s%s",
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

/* A latency line, in us (the report's head says so, and how exact): the
 * percentiles, then mean and stdev, on a line of their own when the line
 * would pass the report's width. */
static void s_text_lat(FILE *f, const char *label, const rb_hist_t *h)
{
    char pct[160], mean[64];
    if (!h->count) {
        s_field(f, label, "none recorded");
        return;
    }
    snprintf(pct, sizeof pct, "min %.1f  p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  max %.1f",
             rb_report_us(h->min), rb_report_us(rb_hist_percentile(h, 50)),
             rb_report_us(rb_hist_percentile(h, 90)), rb_report_us(rb_hist_percentile(h, 99)),
             rb_report_us(rb_hist_percentile(h, 99.9)), rb_report_us(h->max));
    snprintf(mean, sizeof mean, "mean %.1f  stdev %.1f", rb_hist_mean(h) / 1e3,
             rb_hist_stdev(h) / 1e3);
    if (3 + S_LABEL + strlen(pct) + 2 + strlen(mean) <= RB_TEXT_WIDTH) {
        s_field(f, label, "%s  %s", pct, mean);
        return;
    }
    s_field(f, label, "%s", pct);
    s_field(f, "", "%s", mean);
}

/* A latency of a phase rebuilt from samples: the bounds its intervals'
 * percentiles set (rb_lat_bounds_t), labelled as such; "none recorded"
 * when no interval had one. */
static void s_text_lat_bounds(FILE *f, const char *label, const rb_lat_bounds_t *b)
{
    char text[160];
    if (!b->intervals)
        s_field(f, label, "none recorded");
    else
        s_field(f, label, "%s  (from samples: between its %" PRIu64 " intervals' own)",
                rb_report_lat_bounds(b, text, sizeof text), b->intervals);
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

/* The widest of at least min and each node's name (rack: its rack). */
static int s_width(const rb_phase_agg_t *a, int rack, int min)
{
    int w = min;
    for (uint32_t n = 0; n < a->nnodes; n++) {
        int k = (int)strlen(rack ? a->nodes[n].rack : a->nodes[n].name);
        w = k > w ? k : w;
    }
    return w;
}

/* One row per node of a phase, with its latency (all its IOs), then one per
 * rack when there is more than one, and the cluster's. A metadata step's
 * figure is its operations: ops and ops/s, and bytes only when its files
 * have content. */
static void s_text_nodes(FILE *f, const rb_phase_agg_t *a, int meta, rb_units_style_t st)
{
    char b1[64], b2[64], l1[24], l2[24], l3[24], l4[24];
    const int wname = s_width(a, 0, 4), racks = a->nracks > 1;
    const int wrack = racks ? s_width(a, 1, 4) : 0, wbw = st == RB_UNITS_BOTH ? 24 : 12;
    const int bytes = !meta || a->bytes > 0;
    fprintf(f, "  %-*s", wname, "node");
    if (racks)
        fprintf(f, " %-*s", wrack, "rack");
    fprintf(f, " %-8s", "status");
    if (bytes)
        fprintf(f, " %10s", "bytes");
    if (meta)
        fprintf(f, " %12s %10s", "ops", "ops/s");
    else
        fprintf(f, " %*s %10s", wbw, "bandwidth", "IOPS");
    fprintf(f, " %8s %8s %8s %8s\n", "p50 us", "p99 us", "p99.9 us", "max us");
    for (uint32_t n = 0; n < a->nnodes; n++) {
        const rb_agg_node_t *an = &a->nodes[n];
        const rb_lat_summary_t *l = &an->lat.all;
        fprintf(f, "  %-*s", wname, an->name);
        if (racks)
            fprintf(f, " %-*s", wrack, an->rack);
        fprintf(f, " %-8s", rb_aggregate_node_status_name(an->status));
        if (bytes)
            fprintf(f, " %10s", rb_units_fmt_size_in(b1, sizeof b1, (double)an->bytes, st));
        if (meta)
            fprintf(f, " %12" PRIu64 " %10.0f", an->ops, an->iops);
        else
            fprintf(f, " %*s %10.0f", wbw, rb_units_fmt_bw_in(b2, sizeof b2, an->bw, st), an->iops);
        fprintf(f, " %8s %8s %8s %8s\n", s_cell_us(l1, sizeof l1, l->count, l->p50),
                s_cell_us(l2, sizeof l2, l->count, l->p99),
                s_cell_us(l3, sizeof l3, l->count, l->p999),
                s_cell_us(l4, sizeof l4, l->count, l->max));
        if (an->error) {
            fprintf(f, "    error: ");
            rb_text_wrap(f, an->error, 11, 11, RB_TEXT_WIDTH);
        }
    }
    /* node -> rack -> cluster, the group's name and size under node, rack and status */
    char b3[64], b4[64], b5[64], who[RB_NAME_MAX + 32], tail[256];
    const int wwho = wname + (racks ? 1 + wrack : 0) + 1 + 8;
    for (uint32_t k = racks ? 0 : a->nracks; k <= a->nracks; k++) {
        const rb_agg_group_t *g = k < a->nracks ? &a->racks[k] : &a->cluster;
        snprintf(who, sizeof who, "%s%s, %u node%s", k < a->nracks ? "rack " : "", g->name,
                 g->nodes, g->nodes == 1 ? "" : "s");
        int col = fprintf(f, "  %-*s", wwho, who);
        if (bytes)
            col += fprintf(f, " %10s", rb_units_fmt_size_in(b1, sizeof b1, (double)g->bytes, st));
        if (meta) {
            fprintf(f, " %12" PRIu64 " %10.0f\n", g->ops, g->iops);
            continue;
        }
        col += fprintf(f, " %*s  ", wbw, rb_units_fmt_bw_in(b2, sizeof b2, g->aggregate_bw, st));
        snprintf(tail, sizeof tail, "node median %s, min %s, max %s",
                 rb_units_fmt_bw_in(b3, sizeof b3, g->node_bw_median, st),
                 rb_units_fmt_bw_in(b4, sizeof b4, g->node_bw_min, st),
                 rb_units_fmt_bw_in(b5, sizeof b5, g->node_bw_max, st));
        rb_text_wrap(f, tail, (size_t)col, (size_t)col, RB_TEXT_WIDTH);
    }
}

/* Per direction: its bytes, ops and rates, and its latencies (slat and clat
 * where the engine queued the IOs). Directions apart when more than one
 * moved data; the three latencies whenever slat was taken. window ("" or
 * "  (over ...)") says what the rates are over. */
static void s_text_dirs(FILE *f, const rb_agg_dir_t dir[RB_NDIRS], const rb_hist_t (*lat)[RB_NLATS],
                        const rb_lat_bounds_t *bounds, const char *indent, const char *window,
                        rb_units_style_t st)
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
        s_field(f, label, "%s in %" PRIu64 " ops, %s, %.0f IOPS%s",
                rb_units_fmt_size_in(b1, sizeof b1, (double)dir[d].bytes, st), dir[d].ops,
                rb_units_fmt_bw_in(b2, sizeof b2, dir[d].bw, st), dir[d].iops, window);
        for (int k = 0; k < RB_NLATS; k++) {
            if (k != RB_LAT_LAT && !slat)
                continue;
            snprintf(label, sizeof label, "%s  %s", indent, rb_lat_kind_name((rb_lat_kind_t)k));
            if (k == RB_LAT_SLAT && !lat[d][k].count)
                s_field(f, label, "none: the IOs completed as they were submitted");
            else if (bounds && !lat[d][k].count && d < 2)
                s_text_lat_bounds(f, label, &bounds[d]);
            else
                s_text_lat(f, label, &lat[d][k]);
        }
    }
}

/* One finding a line (wrapped), naming its node ("cluster" for all of
 * them); its evidence's rates in the report's units. */
static void s_text_findings(FILE *f, const rb_phase_agg_t *a, rb_units_style_t st)
{
    for (uint32_t i = 0; i < a->nfindings; i++) {
        const rb_finding_t *x = &a->findings[i];
        char since[48] = "", ev[sizeof x->evidence], head[RB_FINDINGS_HEAD_MAX];
        if (x->first_seen_s >= 0 && x->kind != RB_FIND_STALL) /* a stall says when itself */
            snprintf(since, sizeof since, ", from %.1f s on", x->first_seen_s);
        s_field(f, "FINDING", "%s: %s%s", rb_findings_head(x, head, sizeof head),
                rb_units_restyle(ev, sizeof ev, x->evidence, st), since);
    }
}

/* A device row's place: its node's among the node rows, then its own. */
typedef struct s_dev_order {
    uint32_t node, dev;
} s_dev_order_t;

static int s_dev_order_cmp(const void *x, const void *y)
{
    const s_dev_order_t *a = x, *b = y;
    if (a->node != b->node)
        return a->node < b->node ? -1 : 1;
    return (a->dev > b->dev) - (a->dev < b->dev);
}

/* Per node and device: how busy, how fast, what it counted. 0 or -ENOMEM. */
static int s_text_devices(FILE *f, const rb_phase_agg_t *a, rb_units_style_t st)
{
    char b1[64], b2[64], b3[64], b4[64];
    if (!a->ndevs)
        return 0;
    int wname = 4, wdev = 6, wof = 6;
    for (uint32_t i = 0; i < a->ndevs; i++) {
        const rb_agg_dev_t *d = &a->devs[i];
        int n = (int)strlen(d->node);
        wname = n > wname ? n : wname;
        n = (int)strlen(d->device);
        wdev = n > wdev ? n : wdev;
        n = d->member ? (int)strlen(d->parent) : 6;
        wof = n > wof ? n : wof;
    }
    fprintf(f, "  %-*s %-*s %-*s %6s %6s %10s %10s %8s %10s %10s\n", wname, "node", wdev, "device",
            wof, "of", "util%", "max%", "read/s", "write/s", "await ms", "read", "written");
    /* in the order of the node rows (a node not among them last), as reported within one */
    s_dev_order_t *order = calloc(a->ndevs, sizeof *order);
    if (!order)
        return -ENOMEM;
    rb_aggregate_name_idx_t *by_name = rb_aggregate_nodes_by_name(a->nodes, a->nnodes);
    if (!by_name) {
        free(order);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < a->ndevs; i++)
        order[i] =
            (s_dev_order_t){rb_aggregate_node_lookup(by_name, a->nnodes, a->devs[i].node), i};
    rb_aggregate_name_idx_destroy(by_name);
    qsort(order, a->ndevs, sizeof *order, s_dev_order_cmp);
    for (uint32_t k = 0; k < a->ndevs; k++) {
        const rb_agg_dev_t *d = &a->devs[order[k].dev];
        fprintf(f, "  %-*s %-*s %-*s %6.1f %6.1f %10s %10s %8.2f %10s %10s\n", wname, d->node, wdev,
                d->device, wof, d->member ? d->parent : "(root)", d->util_median, d->util_max,
                rb_units_fmt_size_in(b1, sizeof b1, d->rd_bps_median, st),
                rb_units_fmt_size_in(b2, sizeof b2, d->wr_bps_median, st), d->await_ms_median,
                rb_units_fmt_size_in(b3, sizeof b3, (double)d->rd_bytes, st),
                rb_units_fmt_size_in(b4, sizeof b4, (double)d->wr_bytes, st));
    }
    free(order);
    return 0;
}

/* Per raw disk: who it is (node, device, serial, model, size), what its own
 * workers did, and how far from its family's median; the slowest first. */
static int s_text_disks(FILE *f, const rb_phase_agg_t *a, rb_units_style_t st)
{
    if (!a->ndisks)
        return 0;
    const rb_agg_disk_t **v = rb_disks_by_deviation(a);
    if (!v)
        return -ENOMEM;
    int wn = 4, wd = 6, ws = 6, wm = 5;
    for (uint32_t i = 0; i < a->ndisks; i++) {
        const rb_agg_disk_t *d = v[i];
        int n = (int)strlen(d->node);
        wn = n > wn ? n : wn;
        n = (int)strlen(d->id.name[0] ? d->id.name : d->id.path);
        wd = n > wd && n < 24 ? n : wd;
        n = (int)strlen(d->id.serial);
        ws = n > ws && n < 24 ? n : ws;
        n = (int)strlen(d->id.model);
        wm = n > wm && n < 20 ? n : wm;
    }
    fprintf(f, "  %-*s %-*.*s %-*.*s %-*.*s %9s %11s %8s %9s %9s\n", wn, "node", wd, wd, "device",
            ws, ws, "serial", wm, wm, "model", "size", "bandwidth", "IOPS", "p99 us", "vs family");
    for (uint32_t i = 0; i < a->ndisks; i++) {
        const rb_agg_disk_t *d = v[i];
        char sz[32], bw[32], p99[32], dev[16];
        rb_units_fmt_size_in(sz, sizeof sz, (double)d->id.size, st);
        rb_units_fmt_bw_in(bw, sizeof bw, d->bw, st);
        if (d->lat.count)
            snprintf(p99, sizeof p99, "%.1f", (double)d->lat.p99 / 1e3);
        else
            snprintf(p99, sizeof p99, "-");
        if (d->family_n >= 2 && d->family_median_bw > 0)
            snprintf(dev, sizeof dev, "%+.1f%%", d->deviation * 100);
        else
            snprintf(dev, sizeof dev, "alone");
        fprintf(f, "  %-*s %-*.*s %-*.*s %-*.*s %9s %11s %8.0f %9s %9s\n", wn, d->node, wd, wd,
                d->id.name[0] ? d->id.name : d->id.path, ws, ws,
                d->id.serial[0] ? d->id.serial : "-", wm, wm, d->id.model[0] ? d->id.model : "-",
                sz, bw, d->iops, p99, dev);
    }
    free(v);
    return 0;
}

/* Steady state against peak, from the cluster's per-interval bandwidth. */
static void s_text_steady(FILE *f, const rb_phase_agg_t *a, rb_units_style_t st)
{
    char b1[64], b2[64], b3[64];
    const rb_agg_steady_t *sd = &a->steady;
    if (!sd->intervals)
        return;
    s_field(f, "steady state",
            "median %s, min %s, peak %s over %u intervals of %.3g s; %.3g s at >= 90%% of peak",
            rb_units_fmt_bw_in(b1, sizeof b1, sd->median_bw, st),
            rb_units_fmt_bw_in(b2, sizeof b2, sd->min_bw, st),
            rb_units_fmt_bw_in(b3, sizeof b3, sd->peak_bw, st), sd->intervals, sd->interval_s,
            sd->sustained_s);
}

/* bonnie++'s table: per file set and order, the rate of each metadata step. */
static void s_text_meta(const rb_run_result_t *r, FILE *f)
{
    static const rb_meta_op_t cols[] = {RB_META_CREATE, RB_META_STAT,   RB_META_READ,
                                        RB_META_WRITE,  RB_META_RENAME, RB_META_DELETE};
    int header = 0, wset = 8;
    for (uint32_t p = 0; p < r->nphases; p++) {
        const rb_job_spec_t *mj = r->specs[p].njobs ? &r->specs[p].jobs[0] : NULL;
        int n = mj && mj->rw == RB_RW_META ? (int)strlen(mj->filename_format) : 0;
        wset = n > wset ? n : wset;
    }
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
            fprintf(f, "  %-*s %-10s %9s", wset, "file set", "order", "files");
            for (size_t c = 0; c < sizeof cols / sizeof *cols; c++)
                fprintf(f, " %9s", rb_meta_op_name(cols[c]));
            fputc('\n', f);
            header = 1;
        }
        fprintf(f, "  %-*s %-10s %9" PRIu64, wset, mj->filename_format,
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
static void s_text_accept(FILE *f, const rb_accept_result_t *acc, rb_units_style_t st)
{
    static const char *const verdicts[] = {
        [RB_ACCEPT_PASS] = "PASS", [RB_ACCEPT_FAIL] = "FAIL", [RB_ACCEPT_NA] = "n/a"};
    char lim[80], meas[80], one[80], line[RB_REASON_MAX];
    int wset = 0, wphase = 5, wcheck = 5, wlim = 5, wmeas = 8;
    for (uint32_t i = 0; i < acc->nrows; i++) {
        const rb_accept_row_t *row = &acc->rows[i];
        int n = (int)strlen(row->set);
        wset = n > wset ? n : wset;
        n = (int)strlen(row->phase);
        wphase = n > wphase ? n : wphase;
        n = (int)strlen(rb_accept_check_name(row->check));
        wcheck = n > wcheck ? n : wcheck;
        rb_accept_result_value_text(one, sizeof one, row->check, row->limit);
        n = (int)strlen(rb_units_restyle(meas, sizeof meas, one, st)) + 3;
        wlim = n > wlim ? n : wlim;
        rb_accept_result_value_text(one, sizeof one, row->check, row->measured);
        n = (int)strlen(rb_units_restyle(meas, sizeof meas, one, st));
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
        rb_accept_result_value_text(one, sizeof one, row->check, row->limit);
        snprintf(lim, sizeof lim, "%s %s", rb_accept_check_is_min(row->check) ? ">=" : "<=",
                 rb_units_restyle(meas, sizeof meas, one, st));
        rb_accept_result_value_text(one, sizeof one, row->check, row->measured);
        rb_units_restyle(meas, sizeof meas, one, st);
        if (wset)
            fprintf(f, "  %-*s", wset, row->set[0] ? row->set : "-");
        fprintf(f, "  %-*s  %-*s  %-*s  %-*s  %s", wphase, row->phase, wcheck,
                rb_accept_check_name(row->check), wlim, lim, wmeas, meas,
                (unsigned)row->verdict <= RB_ACCEPT_NA ? verdicts[row->verdict] : "?");
        char note[sizeof row->what + 128];
        if (rb_accept_row_note(row, note, sizeof note))
            fprintf(f, "%*s(%s)", row->verdict == RB_ACCEPT_NA ? 3 : 2, "", note);
        fputc('\n', f);
    }
    fprintf(f, "%s\n", rb_accept_result_verdict(acc, line, sizeof line));
}

/* Phase p of run r in report.txt: its line, its figures, then its jobs,
 * steady state, findings, nodes and devices. 0 or -ENOMEM. */
static int s_text_phase(FILE *f, const rb_run_result_t *r, uint32_t p)
{
    char b1[64], b2[64], b3[64], io[256];
    const rb_phase_agg_t *a = &r->phases[p];
    const rb_phase_spec_t *sp = &r->specs[p];
    const rb_units_style_t st = r->units;
    if (rb_phase_spec_is_meta(sp))
        fprintf(f,
                "\nphase %u/%u  %s  meta %s %s, %" PRIu64
                " files a worker%s, %u workers on %u nodes%s\n",
                p + 1, r->nphases, a->name, rb_meta_op_name(sp->jobs[0].meta_op),
                sp->jobs[0].meta_random ? "random" : "sequential", sp->jobs[0].meta_files,
                sp->jobs[0].meta_shared ? " in one shared folder" : "", a->nworkers, a->nnodes,
                a->partial ? "  PARTIAL" : "");
    else
        fprintf(f, "\nphase %u/%u  %s  %s  %u job%s, %u workers on %u nodes%s\n", p + 1, r->nphases,
                a->name, rb_report_phase_io(a, sp, io, sizeof io), sp->njobs,
                sp->njobs == 1 ? "" : "s", a->nworkers, a->nnodes, a->partial ? "  PARTIAL" : "");
    if (rb_report_covered(a) < a->nnodes)
        s_field(f, "coverage", "%u of %u nodes completed the phase", rb_report_covered(a),
                a->nnodes);
    if (a->net) { /* a network phase: its links are the figures, each byte counted once */
        s_field(f, "moved", "%s sent, %s received in %.3f s",
                rb_units_fmt_size_in(b1, sizeof b1, (double)a->dir[RB_DIR_WRITE].bytes, st),
                rb_units_fmt_size_in(b2, sizeof b2, (double)a->dir[RB_DIR_READ].bytes, st),
                a->window_s);
        s_text_skew(f, a);
        if (a->error_code)
            s_field(f, "first error", "%s: %s", a->error_node, a->error);
        rb_report_net_text(f, a, sp);
        s_text_findings(f, a, st);
        return 0;
    }
    if (rb_phase_spec_is_meta(sp)) {
        /* metadata: operations are the figure; bytes only when files have content */
        double opr[4];
        rb_report_op_rates(a, opr);
        s_field(f, "aggregate (parent sees)", "%.0f ops/s", a->iops);
        s_field(f, "sum of rates (children see)", "%.0f ops/s", opr[0]);
        s_field(f, "per worker", "min %.0f  avg %.0f  max %.0f ops/s", opr[1], opr[2], opr[3]);
        if (a->bytes)
            s_field(f, "done", "%" PRIu64 " ops, %s in %.3f s, %" PRIu64 " errors", a->ops,
                    rb_units_fmt_size_in(b1, sizeof b1, (double)a->bytes, st), a->window_s,
                    a->errors);
        else
            s_field(f, "done", "%" PRIu64 " ops in %.3f s, %" PRIu64 " errors", a->ops, a->window_s,
                    a->errors);
        if (sp->jobs[0].meta_op == RB_META_FIND)
            s_field(f, "found", "%" PRIu64 " of %" PRIu64 " files examined", a->found, a->ops);
        s_text_skew(f, a);
        s_text_lat(f, "latency", &a->hist);
        if (a->error_code)
            s_field(f, "first error", "%s: %s", a->error_node, a->error);
        s_text_nodes(f, a, 1, st);
        return 0;
    }
    s_field(f, "aggregate (parent sees)", "%s",
            rb_units_fmt_bw_in(b1, sizeof b1, a->aggregate_bw, st));
    s_field(f, "sum of rates (children see)", "%s",
            rb_units_fmt_bw_in(b1, sizeof b1, a->sum_of_rates_bw, st));
    if (a->from_samples) {
        s_field(f, "REBUILT FROM SAMPLES",
                "the run was cut off in this phase: its figures add up its "
                "samples, its latency is bounded by its intervals' percentiles; "
                "no per-worker figures");
    } else {
        s_field(f, "stonewall", "%s  (until the first worker ended, %.3f s)",
                rb_units_fmt_bw_in(b1, sizeof b1, a->stonewall_bw, st), a->stonewall_s);
        s_field(f, "per worker", "min %s  avg %s  max %s",
                rb_units_fmt_bw_in(b1, sizeof b1, a->worker_bw_min, st),
                rb_units_fmt_bw_in(b2, sizeof b2, a->worker_bw_avg, st),
                rb_units_fmt_bw_in(b3, sizeof b3, a->worker_bw_max, st));
    }
    s_field(f, "IOPS", "%.0f  (%" PRIu64 " ops)", a->iops, a->ops);
    s_field(f, "moved", "%s in %.3f s, %" PRIu64 " errors",
            rb_units_fmt_size_in(b1, sizeof b1, (double)a->bytes, st), a->window_s, a->errors);
    s_text_skew(f, a);
    if (a->from_samples)
        s_text_lat_bounds(f, "latency", &a->smp_lat);
    else
        s_text_lat(f, "latency", &a->hist);
    s_text_iodepth(f, sp);
    s_text_access(f, sp);
    s_text_honesty(f, a, st);
    s_text_steadystate(f, a, st);
    if (a->read_ops && a->read_ops != a->ops)
        s_field(f, "mix", "read %s in %" PRIu64 " ops, write %s in %" PRIu64 " ops",
                rb_units_fmt_size_in(b1, sizeof b1, (double)a->read_bytes, st), a->read_ops,
                rb_units_fmt_size_in(b2, sizeof b2, (double)(a->bytes - a->read_bytes), st),
                a->ops - a->read_ops);
    /* with several jobs, each job's own rates are over its own time: the
     * phase's over its window, and each line says which */
    s_text_dirs(f, a->dir, (const rb_hist_t(*)[RB_NLATS])a->lat,
                a->from_samples ? a->smp_dir_lat : NULL, "",
                a->njobs > 1 ? "  (over the phase's window)" : "", st);
    if (a->verify_errors)
        s_field(f, "VERIFY", "%" PRIu64 " blocks failed verification", a->verify_errors);
    if (a->error_code)
        s_field(f, "first error", "%s: %s", a->error_node, a->error);
    if (a->njobs > 1)
        for (uint32_t j = 0; j < a->njobs; j++) {
            const rb_agg_job_t *aj = &a->jobs[j];
            fprintf(f, "  job %-16s %s %s %s qd%u  %s  %.0f IOPS  (over the job's own %.3f s)\n",
                    aj->name, rb_rw_name(aj->rw),
                    rb_report_bs(aj->bs, j < sp->njobs ? sp->jobs[j].bs_max : 0, b2, sizeof b2),
                    aj->ioengine, rb_engine_info_depth(aj->ioengine, aj->iodepth),
                    rb_units_fmt_bw_in(b1, sizeof b1, aj->bw, st), aj->iops, aj->window_s);
            s_text_lat(f, "    latency", aj->hist);
            s_text_dirs(f, aj->dir, (const rb_hist_t(*)[RB_NLATS])aj->lats->dir, NULL, "  ",
                        "  (over the job's own time)", st);
        }
    for (uint32_t j = 0; j < a->njobs; j++)
        if (a->jobs[j].lat_depth)
            s_field(f, "latency target", "job %s: depth %u found (of iodepth=%u)", a->jobs[j].name,
                    a->jobs[j].lat_depth, a->jobs[j].iodepth);
    s_text_steady(f, a, st);
    s_text_findings(f, a, st);
    s_text_nodes(f, a, 0, st);
    if (s_text_disks(f, a, st) < 0)
        return -ENOMEM;
    return s_text_devices(f, a, st);
}

/* IOR's summary of its -i repetitions: per repeated phase the max, min,
 * mean and standard deviation of its bandwidth and IOPS over the iterations,
 * its mean p99 and mean time; rates in one unit (IEC for both), to fit. */
static int s_text_iterations(FILE *f, const rb_run_result_t *r)
{
    rb_iter_group_t *g = NULL;
    uint32_t n = 0;
    if (rb_iter_groups(r->iters, r->nplanned, r->phases, r->nphases, &g, &n) < 0)
        return -ENOMEM;
    const rb_units_style_t st = r->units == RB_UNITS_SI ? RB_UNITS_SI : RB_UNITS_IEC;
    int wname = 5;
    for (uint32_t i = 0; i < n; i++) {
        int k = (int)strlen(g[i].name);
        wname = k > wname ? k : wname;
    }
    if (n)
        fprintf(f,
                "\niterations: each repeated phase over its iterations (stddev: sample, n-1)\n"
                "  %-*s %5s %10s %10s %10s %10s %8s %8s %9s %10s %9s\n",
                wname, "phase", "ran", "max bw", "min bw", "mean bw", "stddev", "max iops",
                "min iops", "mean iops", "p99 mean", "time mean");
    for (uint32_t i = 0; i < n; i++) {
        const rb_stats_summary_t *bw = &g[i].fig[RB_ITER_BW], *io = &g[i].fig[RB_ITER_IOPS];
        const rb_stats_summary_t *lat = &g[i].fig[RB_ITER_P99_US], *t = &g[i].fig[RB_ITER_TIME_S];
        char b[4][32], ran[16], p99[24];
        const double bv[4] = {bw->max, bw->min, bw->mean, bw->stddev};
        for (int k = 0; k < 4; k++)
            rb_units_fmt_bw_in(b[k], sizeof b[k], bv[k], st);
        snprintf(ran, sizeof ran, "%u/%u", g[i].ran, g[i].iterations);
        if (lat->n)
            snprintf(p99, sizeof p99, "%.1f us", lat->mean);
        else
            snprintf(p99, sizeof p99, "-");
        fprintf(f, "  %-*s %5s %10s %10s %10s %10s %8.0f %8.0f %9.0f %10s %8.3fs%s\n", wname,
                g[i].name, ran, b[0], b[1], b[2], b[3], io->max, io->min, io->mean, p99, t->mean,
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
    if (io.valid)
        fprintf(f, "\nIO500 phases\n");
    else
        fprintf(f, "\nIO500 phases (%s: NOT a valid IO500 submission)\n", io.why);
    for (uint32_t i = 0; i < RB_IO500_NBW; i++)
        fprintf(f, "[RESULT] %20s %15.6f GiB/s\n", rb_io500_bw_name(i, 0), io.bw[i]);
    for (uint32_t i = 0; i < RB_IO500_NMD; i++) {
        fprintf(f, "[RESULT] %20s %15.6f kIOPS\n", rb_io500_md_name(i, 0), io.md[i]);
        if (i == RB_IO500_FIND)
            fprintf(f, "[FIND  ] %20s %" PRIu64 " of %" PRIu64 " files in %.3f s\n", "found",
                    io.found, io.examined, io.find_s);
    }
    fprintf(f, "[SCORE ] Bandwidth %.6f GiB/s : IOPS %.6f kiops : TOTAL %.6f%s\n", io.bw_score,
            io.md_score, io.score, io.valid ? "" : " [INVALID]");
}

/* Which units the report's figures are in. */
static void s_text_units(FILE *f, rb_units_style_t st)
{
    static const char *const what[] = {
        [RB_UNITS_IEC] = "sizes and rates in powers of 1024 (KiB, MiB, MiB/s)",
        [RB_UNITS_SI] = "sizes and rates in powers of 1000 (kB, MB, MB/s)",
        [RB_UNITS_BOTH] = "rates in powers of 1024 and of 1000 (MiB/s (MB/s)), sizes of 1024"};
    fprintf(f, "units: %s; latencies in us, percentiles within +-%.1f%%\n",
            what[st <= RB_UNITS_BOTH ? st : RB_UNITS_IEC], RB_HIST_REL_ERROR * 100);
}

/* What became of a failed node's files: removed by the coordinator (a
 * --local agent), or perhaps still there, with the command that removes
 * them on that node. */
static void s_text_cleanup(FILE *f, const rb_run_result_t *r, const rb_report_node_t *n)
{
    char line[1024];
    size_t o = 0;
    if (n->cleanup == RB_CLEANUP_BY_COORDINATOR) {
        snprintf(line, sizeof line, "its files: removed by the coordinator (a local agent)");
    } else if (n->cleanup == RB_CLEANUP_UNCONFIRMED) {
        o = (size_t)snprintf(line, sizeof line,
                             "its files: the clean-up is not confirmed; to remove what the run "
                             "left, on %s run: rackbench-agent --cleanup --run %s",
                             n->hostname[0] ? n->hostname : n->name, r->run_id);
        rb_root_info_t tmp;
        for (uint32_t k = 0; n->hw && k < n->hw->nroots && o < sizeof line; k++) {
            int w = snprintf(line + o, sizeof line - o, " --root %s",
                             rb_host_root(n->hw, k, &tmp)->path);
            o += w > 0 ? (size_t)w : 0;
        }
        if (!n->hw || !n->hw->nroots)
            snprintf(line + o, o < sizeof line ? sizeof line - o : 0, " --root ROOT");
    } else {
        return;
    }
    fputs("    ", f);
    rb_text_wrap(f, line, 4, 6, RB_TEXT_WIDTH);
}

int rb_report_text(const rb_run_result_t *r, FILE *f)
{
    char when[32];
    rb_time_iso(when, sizeof when, r->started_wall_ns);
    fprintf(f, "rackbench %s  run %s  %s\n", rb_report_build(r), r->run_id, when);
    char head[PATH_MAX + 128], nodes[96];
    rb_report_run_nodes(r, nodes, sizeof nodes);
    snprintf(head, sizeof head, "plan %s  %s  %s", r->plan_source, nodes,
             r->live      ? "RUNNING (the phases so far)"
             : r->running ? "DID NOT FINISH (partial)"
             : r->status  ? "FAILED"
                          : "completed");
    rb_text_wrap(f, head, 0, 0, RB_TEXT_WIDTH); /* a long plan path: the rest below it */
    if (r->status) {
        fprintf(f, "error: ");
        rb_text_wrap(f, r->error, 7, 7, RB_TEXT_WIDTH);
    }
    for (uint32_t i = 0; i < r->nnodes; i++)
        if (r->nodes[i].status != RB_NODE_OK && r->nodes[i].status != RB_NODE_CUT) {
            snprintf(head, sizeof head, "node %s: %s: %s%s", r->nodes[i].name,
                     rb_aggregate_node_status_name(r->nodes[i].status), r->nodes[i].error,
                     rb_report_lost_at(r->nodes[i].lost_at_s));
            rb_text_wrap(f, head, 0, 4, RB_TEXT_WIDTH);
            s_text_cleanup(f, r, &r->nodes[i]);
        } else if (rb_report_silent(r, &r->nodes[i])) {
            snprintf(head, sizeof head,
                     "node %s: silent: its last sample ended at %.1f s, the run's last at %.1f s",
                     r->nodes[i].name, r->nodes[i].last_sample_s, r->seen_s);
            rb_text_wrap(f, head, 0, 4, RB_TEXT_WIDTH);
        }
    s_text_units(f, r->units);
    if (rb_report_text_builds(f, r) < 0 || rb_report_text_hw(f, r) < 0)
        return -ENOMEM;
    if (rb_report_text_devices_grouped(f, r) < 0 || rb_report_text_shared(f, r) < 0)
        return -ENOMEM;
    for (uint32_t p = 0; p < r->nphases; p++)
        if (s_text_phase(f, r, p) < 0)
            return -ENOMEM;
    if (rb_report_text_sweeps(f, r) < 0)
        return -ENOMEM;
    s_text_meta(r, f);
    if (s_text_iterations(f, r) < 0)
        return -ENOMEM;
    s_text_io500(r, f);
    if (r->accept)
        s_text_accept(f, r->accept, r->units);
    if (rb_drives_text(f, r) < 0)
        return -ENOMEM;
    rb_project_result_text(f, r->projection, r->units);
    rb_report_text_devices(f, r);
    fflush(f);
    return ferror(f) ? -EIO : 0;
}
