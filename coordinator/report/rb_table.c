/* The tables of report.html, apart from the page that places them: a
 * phase's headline figures and notes, its node, rack and cluster roll-up,
 * its devices, the acceptance checks and the projection. Every text from a
 * run goes out escaped (rb_svg.h); every figure comes from the result. */
#include "rb_table.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rb_chart.h"
#include "rb_disks.h"
#include "rb_findings.h"
#include "rb_iter.h"
#include "rb_svg.h"
#include "rb_units.h"

#define S_TEXT_MAX 4096 /* one formatted text, before escaping */
#define S_DEV_ROWS 64   /* more devices: the table shows the busiest and the least busy ... */
#define S_DEV_END  16   /* ... this many of each, and every device a finding names */

/* A rate in the page's one unit system: "273 MiB/s", or "286 MB/s" when
 * it is decimal (rb_chart_set_si). */
/* A text with rates as rb_units_fmt_bw() writes them, each in two units
 * ("273 MiB/s (286 MB/s)"), left with the page's one, in place: the first,
 * or with rb_chart_set_si(1) the one in parentheses. */
static char *s_one_unit(char *buf, size_t len)
{
    char out[512];
    size_t o = 0;
    const char *p = buf;
    while (*p && o + 1 < sizeof out) {
        const char *par = strstr(p, "/s (");
        const char *close = par ? strchr(par + 4, ')') : NULL;
        if (!par || !close || close - par < 6 || strncmp(close - 2, "/s", 2) != 0) {
            o += (size_t)snprintf(out + o, sizeof out - o, "%s", p);
            break;
        }
        /* the first rate: back over its unit and its number */
        const char *start = par;
        for (int words = 0; start > p && words < 2; start--)
            if (start[-1] == ' ' && ++words == 2)
                break;
        if (rb_chart_si())
            o += (size_t)snprintf(out + o, sizeof out - o, "%.*s%.*s", (int)(start - p), p,
                                  (int)(close - (par + 4)), par + 4);
        else
            o += (size_t)snprintf(out + o, sizeof out - o, "%.*s", (int)(par + 2 - p), p);
        o = o < sizeof out ? o : sizeof out - 1;
        p = close + 1;
    }
    snprintf(buf, len, "%s", out);
    return buf;
}

char *rb_table_bw(char *buf, size_t len, double bytes_per_s)
{
    rb_units_fmt_bw(buf, len, bytes_per_s);
    return s_one_unit(buf, len);
}

/* A row of a two-column table: the label is markup, the value text. */
void rb_table_kv(FILE *f, const char *label, const char *fmt, ...)
{
    char buf[S_TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(f, "<tr><th scope=\"row\">%s</th><td>", label);
    rb_svg_esc(f, buf);
    fputs("</td></tr>\n", f);
}

/* The phase's headline figures. */
/* One latency histogram's figures in us, for a cell. */
static void s_lat_text(char *buf, size_t len, const rb_hist_t *h)
{
    snprintf(buf, len, "p50 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  mean %.1f",
             (double)rb_hist_percentile(h, 50) / 1e3, (double)rb_hist_percentile(h, 99) / 1e3,
             (double)rb_hist_percentile(h, 99.9) / 1e3, h->count ? (double)h->max / 1e3 : 0,
             rb_hist_mean(h) / 1e3);
}

/* The latency rows of a phase rebuilt from samples: the bounds its
 * intervals' percentiles set, all IOs', then reads' and writes'. */
static void s_lat_bounds(FILE *f, const rb_phase_agg_t *a)
{
    const rb_lat_bounds_t *b[3] = {&a->smp_lat, &a->smp_dir_lat[0], &a->smp_dir_lat[1]};
    const char *const label[3] = {"latency (&#181;s)", "read latency (&#181;s)",
                                  "write latency (&#181;s)"};
    char text[160];
    for (int i = 0; i < 3; i++) {
        if (!b[i]->intervals) {
            if (!i)
                rb_table_kv(f, label[i], "none recorded");
            continue;
        }
        rb_table_kv(f, label[i],
                    "%s (from samples: between its %" PRIu64 " intervals' own percentiles)",
                    rb_report_lat_bounds(b[i], text, sizeof text), b[i]->intervals);
    }
}

/* Per direction rows: when more than one direction moved data, or the
 * engine queued IOs (slat and clat apart). */
static void s_dirs(const rb_phase_agg_t *a, FILE *f)
{
    char b1[64], b2[64], l[3][160];
    int moved = 0, slat = 0;
    for (int d = 0; d < RB_NDIRS; d++) {
        moved += a->dir[d].ops > 0;
        slat |= a->lat[d][RB_LAT_SLAT].count > 0;
    }
    if (moved < 2 && !slat)
        return;
    for (int d = 0; d < RB_NDIRS; d++) {
        const rb_agg_dir_t *ad = &a->dir[d];
        if (!ad->ops)
            continue;
        for (int k = 0; k < RB_NLATS; k++)
            s_lat_text(l[k], sizeof l[k], &a->lat[d][k]);
        rb_table_kv(f, rb_dir_name((rb_dir_t)d), "%s in %" PRIu64 " operations, %s, %.0f IOPS%s",
                    rb_units_fmt_size(b1, sizeof b1, (double)ad->bytes), ad->ops,
                    rb_table_bw(b2, sizeof b2, ad->bw), ad->iops,
                    a->njobs > 1 ? " (over the phase's window)" : "");
        for (int k = 0; k < RB_NLATS; k++) {
            char label[48];
            if (k != RB_LAT_LAT && !slat)
                continue;
            snprintf(label, sizeof label, "%s %s (&#181;s)", rb_dir_name((rb_dir_t)d),
                     rb_lat_kind_name((rb_lat_kind_t)k));
            rb_table_kv(f, label, "%s",
                        k == RB_LAT_SLAT && !a->lat[d][k].count
                            ? "none: the IOs completed as they were submitted"
                            : l[k]);
        }
    }
}

void rb_table_figures(const rb_phase_agg_t *a, int meta, FILE *f)
{
    char b1[64], b2[64], b3[64];
    const rb_hist_t *h = &a->hist;
    fputs("<table class=\"kv\">\n", f);
    if (meta) {
        rb_table_kv(f, "aggregate (parent sees)", "%.0f operations/s", a->iops);
    } else {
        rb_table_kv(f, "aggregate bandwidth (parent sees)", "%s",
                    rb_table_bw(b1, sizeof b1, a->aggregate_bw));
        rb_table_kv(f, "sum of rates (children see)", "%s",
                    rb_table_bw(b1, sizeof b1, a->sum_of_rates_bw));
        rb_table_kv(f, "IOPS", "%.0f", a->iops);
    }
    rb_table_kv(f, "moved", "%s (%" PRIu64 " bytes) in %" PRIu64 " operations",
                rb_units_fmt_size(b1, sizeof b1, (double)a->bytes), a->bytes, a->ops);
    rb_table_kv(f, "window", "%.3f s (last worker end - first worker start)", a->window_s);
    rb_table_kv(f, "start skew", "%.3f ms", a->start_skew_s * 1e3);
    rb_table_kv(f, "errors", "%" PRIu64, a->errors);
    if (a->verify_errors)
        rb_table_kv(f, "verify errors", "%" PRIu64 " blocks failed verification", a->verify_errors);
    if (a->from_samples)
        s_lat_bounds(f, a);
    else
        rb_table_kv(
            f, "latency (&#181;s)",
            "p50 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  mean %.1f (percentiles within %.2f%%)",
            (double)rb_hist_percentile(h, 50) / 1e3, (double)rb_hist_percentile(h, 99) / 1e3,
            (double)rb_hist_percentile(h, 99.9) / 1e3, h->count ? (double)h->max / 1e3 : 0,
            rb_hist_mean(h) / 1e3, RB_HIST_REL_ERROR * 100);
    s_dirs(a, f);
    if (a->from_samples)
        fputs("<tr><th scope=\"row\">rebuilt</th><td class=\"bad\">the run was cut off in this "
              "phase: its figures add up its samples, its latency is bounded by its intervals' "
              "percentiles; no per-worker figures</td></tr>\n",
              f);
    if (a->partial)
        fputs("<tr><th scope=\"row\">partial</th><td class=\"bad\">PARTIAL: some node did not "
              "finish this phase cleanly</td></tr>\n",
              f);
    if (a->cache_influenced) {
        fputs("<tr><th scope=\"row\">page cache</th><td class=\"bad\">", f);
        rb_svg_textf(f,
                     "CACHE-INFLUENCED: buffered data of %s per node is under 2 x RAM (%s on the "
                     "smallest node): these figures measure the page cache, not the disks",
                     rb_units_fmt_size(b1, sizeof b1, (double)a->buffered_set),
                     rb_units_fmt_size(b2, sizeof b2, (double)a->ram_min));
        fputs("</td></tr>\n", f);
    }
    if (a->sw_limit_ns)
        rb_table_kv(f, "stonewall_time",
                    "%s in %.3f s = %s; %u workers stopped at %.3f s, ops per worker %" PRIu64
                    "..%" PRIu64 "%s",
                    rb_units_fmt_size(b1, sizeof b1, (double)a->sw_bytes), a->sw_s,
                    rb_table_bw(b2, sizeof b2, a->sw_bw), a->sw_stopped,
                    (double)a->sw_limit_ns / 1e9, a->sw_ops_min, a->sw_ops_max,
                    a->wearout ? "; the figures above include the wear-out" : "");
    if (a->error_code)
        rb_table_kv(f, "first error", "%s: %s", a->error_node, a->error);
    if (!meta && a->steady.intervals > 0)
        rb_table_kv(
            f, "steady state",
            "median %s, min %s, peak %s over %u intervals of %.3f s; sustained for %.1f s at "
            ">= 90%% of peak",
            rb_table_bw(b1, sizeof b1, a->steady.median_bw),
            rb_table_bw(b2, sizeof b2, a->steady.min_bw),
            rb_table_bw(b3, sizeof b3, a->steady.peak_bw), a->steady.intervals,
            a->steady.interval_s, a->steady.sustained_s);
    fputs("</table>\n", f);
}

/* A finding's evidence; without the hosts' inventory, an out-of-family
 * disk's past its serial ("serial S: ", which rb_disks.c writes first). */
static const char *s_evidence(const rb_finding_t *x, int no_inventory)
{
    const char *after = strstr(x->evidence, ": ");
    if (no_inventory && x->kind == RB_FIND_OUT_OF_FAMILY && !strncmp(x->evidence, "serial ", 7) &&
        after)
        return after + 2;
    return x->evidence;
}

/* Start skew and nodes well below the median node. */
int rb_table_notes(const rb_phase_agg_t *a, int meta, int no_inventory, FILE *f)
{
    uint32_t n = 0, late = UINT32_MAX;
    for (uint32_t i = 0; i < a->nnodes; i++) {
        const rb_agg_node_t *an = &a->nodes[i];
        n += an->workers > 0;
        if (an->t_first && (late == UINT32_MAX || an->t_first > a->nodes[late].t_first))
            late = i;
    }
    fputs("<h3>Notes</h3>\n<ul class=\"notes\">\n<li>", f);
    rb_svg_textf(f, "Start skew %.3f ms: the last worker started that long after the first",
                 a->start_skew_s * 1e3);
    if (a->clock_error_s > 0)
        rb_svg_textf(f,
                     " (on the coordinator's clock, through clock offsets each within %.3f ms: "
                     "the true skew is within %.3f ms of it)",
                     a->clock_error_s * 1e3, 2 * a->clock_error_s * 1e3);
    if (late != UINT32_MAX && a->nnodes > 1 && a->t_first_start &&
        a->nodes[late].t_first > a->t_first_start)
        rb_svg_textf(f, "; the last node to start was %s, %.3f ms after the first worker",
                     a->nodes[late].name,
                     (double)(a->nodes[late].t_first - a->t_first_start) / 1e6);
    fputs(".</li>\n", f);
    for (uint32_t i = 0; i < a->nnodes; i++) {
        const rb_agg_node_t *an = &a->nodes[i];
        if (an->status != RB_NODE_OK) {
            fputs("<li class=\"bad\">", f);
            rb_svg_textf(f, "%s did not complete the phase: %s%s%s", an->name,
                         rb_aggregate_node_status_name(an->status), an->error ? ": " : "",
                         an->error ? an->error : "");
            fputs("</li>\n", f);
        }
    }
    /* the findings of report.txt and summary.json, the same words */
    for (uint32_t i = 0; i < a->nfindings; i++) {
        const rb_finding_t *x = &a->findings[i];
        char ev[sizeof x->evidence + 64];
        snprintf(ev, sizeof ev, "%s", s_evidence(x, no_inventory));
        fputs("<li class=\"bad\">", f);
        rb_svg_textf(f, "Finding, %s: %s%s%s: %s", rb_findings_kind_name(x->kind),
                     x->node[0] ? x->node : "cluster", x->device[0] ? " " : "", x->device,
                     s_one_unit(ev, sizeof ev));
        if (x->first_seen_s >= 0 && x->kind != RB_FIND_STALL)
            rb_svg_textf(f, ", from %.1f s on", x->first_seen_s);
        fputs(".</li>\n", f);
    }
    if (n > 2 && !meta)
        fprintf(f,
                "<li class=\"note\">Stragglers: %s. A node is one when its bandwidth is below the "
                "median node's by more than %.0f median absolute deviations and more than %.0f%% "
                "(docs/metrics.md).</li>\n",
                a->nfindings ? "see the findings" : "none", RB_STRAGGLER_MADS,
                RB_STRAGGLER_MARGIN * 100);
    fputs("</ul>\n", f);
    return 0;
}

/* One bandwidth (or rate) cell. */
static void s_td_rate(FILE *f, double v, int meta)
{
    char b[64];
    fputs("<td class=\"n\">", f);
    if (meta) {
        fprintf(f, "%.0f ops/s", v);
    } else {
        rb_svg_esc(f, rb_table_bw(b, sizeof b, v));
    }
    fputs("</td>", f);
}

/* p50, p99, p99.9 and max cells of a latency summary (empty when none). */
static void s_td_lat(FILE *f, const rb_lat_summary_t *l)
{
    const uint64_t v[4] = {l->p50, l->p99, l->p999, l->max};
    for (int i = 0; i < 4; i++) {
        if (l->count)
            fprintf(f, "<td class=\"n\">%.1f</td>", (double)v[i] / 1e3);
        else
            fputs("<td></td>", f);
    }
}

static void s_group_row(FILE *f, const rb_agg_group_t *g, const char *cls, int meta)
{
    char b[64];
    fprintf(f, "<tr class=\"%s\"><td>", cls);
    if (strcmp(cls, "rack") == 0)
        fputs("rack ", f);
    rb_svg_esc(f, g->name);
    fprintf(f, "</td><td></td><td class=\"n\">%u</td><td class=\"n\">", g->nodes);
    rb_svg_esc(f, rb_units_fmt_size(b, sizeof b, (double)g->bytes));
    fputs("</td>", f);
    s_td_rate(f, meta ? g->iops : g->aggregate_bw, meta);
    if (meta) {
        fputs("<td></td><td></td><td></td>", f);
        s_td_lat(f, &g->lat.all);
        fputs("</tr>\n", f);
        return;
    }
    fprintf(f, "<td class=\"n\">%.0f</td>", g->iops);
    s_td_rate(f, g->node_bw_median, 0);
    s_td_rate(f, g->node_bw_min, 0);
    s_td_rate(f, g->node_bw_max, 0);
    s_td_lat(f, &g->lat.all);
    fputs("</tr>\n", f);
}

/* A device ranked by its median utilisation. */
typedef struct s_dev_rank {
    double util;
    uint32_t i;
} s_dev_rank_t;

static int s_by_util(const void *x, const void *y)
{
    const s_dev_rank_t *a = x, *b = y;
    if (a->util != b->util)
        return a->util < b->util ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* Which of the phase's devices the table shows: all of them up to S_DEV_ROWS;
 * above, the S_DEV_END least busy and the S_DEV_END busiest by median
 * utilisation, and every device a finding names. show[] gets 1 for those;
 * returns how many, or 0 when out of memory (then all are shown). */
static uint32_t s_devices_shown(const rb_phase_agg_t *a, uint8_t *show)
{
    uint32_t n = a->ndevs, shown = 0;
    s_dev_rank_t *rk = malloc(n * sizeof *rk);
    if (!rk)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        rk[i] = (s_dev_rank_t){a->devs[i].util_median, i};
    qsort(rk, n, sizeof *rk, s_by_util);
    for (uint32_t k = 0; k < n; k++)
        show[rk[k].i] = k < S_DEV_END || k >= n - S_DEV_END;
    free(rk);
    for (uint32_t j = 0; j < a->nfindings; j++) {
        const rb_finding_t *x = &a->findings[j];
        for (uint32_t i = 0; x->device[0] && i < n; i++)
            if (strcmp(a->devs[i].node, x->node) == 0 && strcmp(a->devs[i].device, x->device) == 0)
                show[i] = 1;
    }
    for (uint32_t i = 0; i < n; i++)
        shown += show[i];
    return shown;
}

/* A row saying how many devices the table left out here, if any. */
static void s_devices_gap(FILE *f, uint32_t *skipped)
{
    if (*skipped)
        fprintf(f, "<tr><td class=\"none\" colspan=\"10\">%u devices not shown</td></tr>\n",
                *skipped);
    *skipped = 0;
}

/* Per node and device, from host telemetry: a cell shaded by how busy. */
void rb_table_devices(const rb_phase_agg_t *a, FILE *f)
{
    char b1[64], b2[64], b3[64], b4[64];
    if (!a->ndevs)
        return;
    uint8_t *show = a->ndevs > S_DEV_ROWS ? calloc(a->ndevs, 1) : NULL;
    uint32_t shown = show ? s_devices_shown(a, show) : 0;
    if (!shown) {
        free(show);
        show = NULL;
    }
    fputs("<h3>Devices (host telemetry, medians over the sample intervals)</h3>\n", f);
    if (show)
        rb_svg_textf(f,
                     "<p class=\"note\">%u devices; shown: the %u least busy and the %u busiest by "
                     "median utilisation, and every device a finding names (%u rows). Every device "
                     "is in summary.json (devices) and telemetry.csv.</p>\n",
                     a->ndevs, S_DEV_END, S_DEV_END, shown);
    fputs("<table>\n"
          "<tr><th>node</th><th>device</th><th>member of</th><th>busy %</th><th>max %</th>"
          "<th>read/s</th><th>write/s</th><th>await ms</th><th>read</th><th>written</th></tr>\n",
          f);
    uint32_t skipped = 0;
    for (uint32_t i = 0; i < a->ndevs; i++) {
        if (show && !show[i]) {
            skipped++;
            continue;
        }
        s_devices_gap(f, &skipped);
        const rb_agg_dev_t *d = &a->devs[i];
        int shade = (int)(d->util_median * 2.55);
        fputs("<tr><td>", f);
        rb_svg_esc(f, d->node);
        fputs("</td><td>", f);
        rb_svg_esc(f, d->device);
        fputs("</td><td>", f);
        rb_svg_esc(f, d->member ? d->parent : "(root)");
        fprintf(f,
                "</td><td class=\"n\" style=\"background:rgb(255,%d,%d)\">%.1f</td>"
                "<td class=\"n\">%.1f</td>",
                255 - shade / 2, 255 - shade, d->util_median, d->util_max);
        fputs("<td class=\"n\">", f);
        rb_svg_esc(f, rb_units_fmt_size(b1, sizeof b1, d->rd_bps_median));
        fputs("</td><td class=\"n\">", f);
        rb_svg_esc(f, rb_units_fmt_size(b2, sizeof b2, d->wr_bps_median));
        fprintf(f, "</td><td class=\"n\">%.2f</td><td class=\"n\">", d->await_ms_median);
        rb_svg_esc(f, rb_units_fmt_size(b3, sizeof b3, (double)d->rd_bytes));
        fputs("</td><td class=\"n\">", f);
        rb_svg_esc(f, rb_units_fmt_size(b4, sizeof b4, (double)d->wr_bytes));
        fputs("</td></tr>\n", f);
    }
    s_devices_gap(f, &skipped);
    fputs("</table>\n", f);
    free(show);
}

/* node -> rack -> cluster. */
void rb_table_rollups(const rb_phase_agg_t *a, int meta, FILE *f)
{
    char b[64];
    fprintf(f,
            "<h3>Nodes, racks, cluster</h3>\n<table>\n<tr><th>node / rack</th><th>status</th>"
            "<th class=\"n\">nodes</th><th class=\"n\">moved</th><th class=\"n\">%s</th>%s"
            "<th class=\"n\">node median</th><th class=\"n\">node min</th>"
            "<th class=\"n\">node max</th><th class=\"n\">p50 &#181;s</th>"
            "<th class=\"n\">p99 &#181;s</th><th class=\"n\">p99.9 &#181;s</th>"
            "<th class=\"n\">max &#181;s</th></tr>\n",
            meta ? "operations/s" : "bandwidth", meta ? "" : "<th class=\"n\">IOPS</th>");
    for (uint32_t g = 0; g < a->nracks; g++) {
        for (uint32_t i = 0; i < a->nnodes; i++) {
            const rb_agg_node_t *an = &a->nodes[i];
            if (strcmp(an->rack, a->racks[g].name) != 0)
                continue;
            fputs("<tr><td>", f);
            rb_svg_esc(f, an->name);
            fprintf(f, "</td><td%s>", an->status != RB_NODE_OK ? " class=\"bad\"" : "");
            rb_svg_esc(f, rb_aggregate_node_status_name(an->status));
            fputs("</td><td></td><td class=\"n\">", f);
            rb_svg_esc(f, rb_units_fmt_size(b, sizeof b, (double)an->bytes));
            fputs("</td>", f);
            s_td_rate(f, meta ? an->iops : an->bw, meta);
            if (!meta)
                fprintf(f, "<td class=\"n\">%.0f</td>", an->iops);
            fputs("<td></td><td></td><td></td>", f);
            s_td_lat(f, &an->lat.all);
            fputs("</tr>\n", f);
        }
        s_group_row(f, &a->racks[g], "rack", meta);
    }
    s_group_row(f, &a->cluster, "cluster", meta);
    fputs("</table>\n", f);
    if (!meta)
        fputs("<p class=\"note\">A node&#8217;s bandwidth is its bytes over its own window; a "
              "rack&#8217;s and the cluster&#8217;s are their bytes over their window (first "
              "worker start to last worker end), and so are their IOPS; median, min and max "
              "are of their nodes&#8217; bandwidths.</p>\n",
              f);
}

void rb_table_accept(const rb_accept_result_t *acc, FILE *f)
{
    static const char *const verdicts[] = {
        [RB_ACCEPT_PASS] = "PASS", [RB_ACCEPT_FAIL] = "FAIL", [RB_ACCEPT_NA] = "n/a"};
    static const char *const cls[] = {
        [RB_ACCEPT_PASS] = "pass", [RB_ACCEPT_FAIL] = "fail", [RB_ACCEPT_NA] = "note"};
    char buf[80], line[RB_REASON_MAX];
    int sets = 0;
    for (uint32_t i = 0; i < acc->nrows; i++)
        sets |= acc->rows[i].set[0] != 0;
    fputs("<section id=\"acceptance\">\n<h2>Acceptance</h2>\n<table>\n<tr>", f);
    if (sets)
        fputs("<th>set</th>", f);
    fputs("<th>phase</th><th>check</th><th class=\"n\">limit</th><th class=\"n\">measured</th>"
          "<th>result</th><th>note</th></tr>\n",
          f);
    for (uint32_t i = 0; i < acc->nrows; i++) {
        const rb_accept_row_t *row = &acc->rows[i];
        int v = (unsigned)row->verdict <= RB_ACCEPT_NA ? (int)row->verdict : -1;
        fputs("<tr>", f);
        if (sets) {
            fputs("<td>", f);
            rb_svg_esc(f, row->set[0] ? row->set : "-");
            fputs("</td>", f);
        }
        fputs("<td>", f);
        rb_svg_esc(f, row->phase);
        fputs("</td><td>", f);
        rb_svg_esc(f, rb_accept_check_name(row->check));
        fprintf(f, "</td><td class=\"n\">%s ",
                rb_accept_check_is_min(row->check) ? "&#8805;" : "&#8804;");
        rb_accept_result_value_text(buf, sizeof buf, row->check, row->limit);
        s_one_unit(buf, sizeof buf);
        rb_svg_esc(f, buf);
        fputs("</td><td class=\"n\">", f);
        rb_accept_result_value_text(buf, sizeof buf, row->check, row->measured);
        s_one_unit(buf, sizeof buf);
        rb_svg_esc(f, buf);
        fprintf(f, "</td><td class=\"%s\">%s</td><td>", v < 0 ? "fail" : cls[v],
                v < 0 ? "?" : verdicts[v]);
        char note[sizeof row->what + 128];
        rb_svg_esc(f, rb_accept_row_note(row, note, sizeof note) ? note : "");
        fputs("</td></tr>\n", f);
    }
    fprintf(f, "</table>\n<p class=\"%s\">", acc->nfailed ? "fail" : "pass");
    rb_svg_esc(f, rb_accept_result_verdict(acc, line, sizeof line));
    fputs("</p>\n</section>\n", f);
}

int rb_table_iterations(const rb_run_result_t *r, FILE *f)
{
    rb_iter_group_t *g = NULL;
    uint32_t n = 0;
    if (rb_iter_groups(r->iters, r->nplanned, r->phases, r->nphases, &g, &n) < 0)
        return -ENOMEM;
    if (!n) {
        free(g);
        return 0;
    }
    fputs("<section id=\"iterations\">\n<h2>Iterations</h2>\n<p class=\"note\">Each repeated "
          "phase over its iterations; stddev is the sample standard deviation (n-1).</p>\n"
          "<table>\n<tr><th>phase</th><th class=\"n\">ran</th><th>figure</th>"
          "<th class=\"n\">mean</th><th class=\"n\">stddev</th><th class=\"n\">min</th>"
          "<th class=\"n\">max</th></tr>\n",
          f);
    static const char *const label[RB_ITER_NFIGS] = {"aggregate bandwidth", "IOPS", "latency p99",
                                                     "time"};
    for (uint32_t i = 0; i < n; i++) {
        for (int k = 0; k < RB_ITER_NFIGS; k++) {
            const rb_stats_summary_t *st = &g[i].fig[k];
            const double v[4] = {st->mean, st->stddev, st->min, st->max};
            fputs("<tr><td>", f);
            if (k == 0)
                rb_svg_esc(f, g[i].name);
            fputs("</td><td class=\"n\">", f);
            if (k == 0)
                fprintf(f, "%u/%u%s", g[i].ran, g[i].iterations, g[i].partial ? " (partial)" : "");
            fprintf(f, "</td><td>%s</td>", label[k]);
            for (int c = 0; c < 4; c++) {
                char buf[64];
                if (!st->n)
                    snprintf(buf, sizeof buf, "-");
                else if (k == RB_ITER_BW)
                    rb_table_bw(buf, sizeof buf, v[c]);
                else if (k == RB_ITER_IOPS)
                    snprintf(buf, sizeof buf, "%.0f", v[c]);
                else if (k == RB_ITER_P99_US)
                    snprintf(buf, sizeof buf, "%.1f us", v[c]);
                else
                    snprintf(buf, sizeof buf, "%.3f s", v[c]);
                fputs("<td class=\"n\">", f);
                rb_svg_esc(f, buf);
                fputs("</td>", f);
            }
            fputs("</tr>\n", f);
        }
    }
    fputs("</table>\n</section>\n", f);
    free(g);
    return 0;
}

/* The projection table: every line labelled measured or projected, with
 * its source beside it. */
void rb_table_projection(const rb_run_result_t *r, FILE *f)
{
    const rb_project_result_t *p = r->projection;
    if (!p || !p->unit)
        return;
    char v[112];
    fputs("<section id=\"projection\">\n<h2>Projection</h2>\n<p class=\"note\">One node is one "
          "unit. <b>measured</b>: this run; <b>given</b>: typed into the plan (what df shows "
          "on a real unit); <b>projected</b>: arithmetic on those. See docs/projection.md.</p>\n"
          "<table>\n<tr><th>phase</th><th>line</th><th>value</th><th>kind</th>"
          "<th>source</th></tr>\n",
          f);
    for (uint32_t i = 0; i < p->nlines; i++) {
        const rb_project_line_t *l = &p->lines[i];
        fputs("<tr><td>", f);
        rb_svg_esc(f, l->phase ? l->phase : "-");
        fputs("</td><td>", f);
        rb_svg_esc(f, l->label);
        fputs("</td><td class=\"num\">", f);
        rb_svg_esc(f, rb_project_result_line_value(v, sizeof v, l));
        fprintf(f, "</td><td class=\"%s\">", rb_project_result_kind_name(l->kind));
        rb_svg_esc(f, rb_project_result_kind_name(l->kind));
        fputs("</td><td>", f);
        rb_svg_esc(f, l->source);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    for (uint32_t i = 0; i < p->nnotes; i++) {
        fputs("<p class=\"note\">note: ", f);
        rb_svg_esc(f, p->notes[i]);
        fputs("</p>\n", f);
    }
    fputs("</section>\n", f);
}

/* ---- the summary at the top of the page ---- */

/* One row of the summary: a phase's figures in one direction (d), or all
 * of them (d < 0, a metadata step or a phase of one direction). */
static void s_summary_row(FILE *f, const rb_phase_agg_t *a, uint32_t p, int meta, int d, int first,
                          uint32_t span)
{
    char b[64];
    const rb_hist_t *h = d < 0 ? &a->hist : &a->lat[d][RB_LAT_LAT];
    double bw = d < 0 ? a->aggregate_bw : a->dir[d].bw, iops = d < 0 ? a->iops : a->dir[d].iops;
    fputs("<tr>", f);
    if (first) {
        uint32_t ok = 0;
        for (uint32_t i = 0; i < a->nnodes; i++)
            ok += a->nodes[i].status == RB_NODE_OK;
        fprintf(f, "<td rowspan=\"%u\"><a href=\"#phase-%u\">", span, p + 1);
        rb_svg_esc(f, a->name);
        fprintf(f, "</a>%s</td><td rowspan=\"%u\">", a->partial ? " (partial)" : "", span);
        rb_svg_esc(f, meta ? "metadata" : rb_report_phase_rw(a));
        fprintf(f, "</td><td rowspan=\"%u\" class=\"n%s\">%u/%u</td>", span,
                ok < a->nnodes ? " bad" : "", ok, a->nnodes);
    }
    fputs("<td>", f);
    rb_svg_esc(f, d < 0 ? "all" : rb_dir_name((rb_dir_t)d));
    fputs("</td><td class=\"n\">", f);
    if (meta)
        fputs("-", f);
    else
        rb_svg_esc(f, rb_table_bw(b, sizeof b, bw));
    fprintf(f, "</td><td class=\"n\">%.0f</td>", iops);
    if (h->count)
        fprintf(f, "<td class=\"n\">%.1f</td><td class=\"n\">%.1f</td><td class=\"n\">%.1f</td>",
                (double)rb_hist_percentile(h, 50) / 1e3, (double)rb_hist_percentile(h, 99) / 1e3,
                (double)rb_hist_percentile(h, 99.9) / 1e3);
    else
        fputs("<td class=\"n\">-</td><td class=\"n\">-</td><td class=\"n\">-</td>", f);
    if (first) {
        fprintf(f, "<td rowspan=\"%u\"%s>", span, a->nfindings ? " class=\"bad\"" : "");
        if (!a->nfindings)
            fputs("none", f);
        for (uint32_t i = 0; i < a->nfindings; i++) {
            const rb_finding_t *x = &a->findings[i];
            int again = 0;
            for (uint32_t j = 0; j < i; j++)
                again |= a->findings[j].kind == x->kind;
            if (again)
                continue;
            uint32_t n = 0;
            for (uint32_t j = i; j < a->nfindings; j++)
                n += a->findings[j].kind == x->kind;
            fprintf(f, "%s%s", i ? ", " : "", rb_findings_kind_name(x->kind));
            if (n > 1)
                fprintf(f, " &#215;%u", n);
        }
        fputs("</td>", f);
    }
    fputs("</tr>\n", f);
}

void rb_table_summary(const rb_run_result_t *r, FILE *f)
{
    char b[160];
    uint32_t ok = 0, lost = 0;
    for (uint32_t i = 0; i < r->nnodes; i++) {
        ok += r->nodes[i].status == RB_NODE_OK;
        lost += r->nodes[i].status == RB_NODE_LOST;
    }
    fputs("<section id=\"summary\">\n<h2>Summary</h2>\n<table class=\"kv\">\n", f);
    if (r->accept) {
        int fail = r->accept->nfailed > 0;
        fprintf(f, "<tr><th scope=\"row\">verdict</th><td class=\"%s\">", fail ? "fail" : "pass");
        rb_svg_esc(f, rb_accept_result_verdict(r->accept, b, sizeof b));
        fputs(" &#8212; <a href=\"#acceptance\">the checks</a></td></tr>\n", f);
    } else {
        rb_table_kv(f, "verdict", "none: the plan has no [acceptance]");
    }
    rb_table_kv(f, "nodes", "%u ok of %u%s", ok, r->nnodes,
                lost             ? " (some lost: see Nodes)"
                : ok < r->nnodes ? " (some failed: see Nodes)"
                                 : "");
    fputs("</table>\n", f);
    if (!r->nphases) {
        fputs("<p class=\"none\">no phase has finished yet</p>\n</section>\n", f);
        return;
    }
    fputs("<table class=\"summary\">\n<tr><th>phase</th><th>rw</th><th class=\"n\">nodes ok</th>"
          "<th>direction</th><th class=\"n\">bandwidth</th><th class=\"n\">IOPS</th>"
          "<th class=\"n\">p50 &#181;s</th><th class=\"n\">p99 &#181;s</th>"
          "<th class=\"n\">p99.9 &#181;s</th><th>findings</th></tr>\n",
          f);
    for (uint32_t p = 0; p < r->nphases; p++) {
        const rb_phase_agg_t *a = &r->phases[p];
        int meta = p < r->nphases && r->specs && rb_phase_spec_is_meta(&r->specs[p]);
        uint32_t nd = 0;
        for (int d = 0; d < RB_NDIRS && !meta; d++)
            nd += a->dir[d].ops > 0;
        if (nd < 2) {
            int only = -1;
            for (int d = 0; d < RB_NDIRS && !meta; d++)
                only = a->dir[d].ops > 0 ? d : only;
            s_summary_row(f, a, p, meta, meta ? -1 : only, 1, 1);
            continue;
        }
        s_summary_row(f, a, p, meta, -1, 1, nd + 1);
        for (int d = 0; d < RB_NDIRS; d++)
            if (a->dir[d].ops > 0)
                s_summary_row(f, a, p, meta, d, 0, 0);
    }
    fputs("</table>\n<p class=\"note\">Bandwidth and IOPS as the parent sees them (a phase's "
          "bytes over its window); latency from the histograms merged over every node, per "
          "direction. Each phase is shown in full below.</p>\n</section>\n",
          f);
}

/* ---- raw disks ---- */

int rb_table_disks(const rb_phase_agg_t *a, int no_inventory, FILE *f)
{
    if (!a->ndisks)
        return 0;
    const rb_agg_disk_t **v = rb_disks_by_deviation(a);
    if (!v)
        return -ENOMEM;
    fprintf(f,
            "<h3>Disks, the farthest below their family first</h3>\n<table>\n<tr><th>node</th>"
            "<th>device</th>%s<th>model</th>%s<th class=\"n\">size</th>",
            no_inventory ? "" : "<th>serial</th>", no_inventory ? "" : "<th>firmware</th>");
    fputs("<th class=\"n\">bandwidth</th><th class=\"n\">IOPS</th><th class=\"n\">p50 &#181;s</th>"
          "<th class=\"n\">p99 &#181;s</th><th class=\"n\">max &#181;s</th>"
          "<th class=\"n\">family median</th><th class=\"n\">vs family</th></tr>\n",
          f);
    for (uint32_t i = 0; i < a->ndisks; i++) {
        const rb_agg_disk_t *d = v[i];
        char b[64];
        int out = 0;
        for (uint32_t k = 0; k < a->nfindings; k++)
            out |= a->findings[k].kind == RB_FIND_OUT_OF_FAMILY &&
                   !strcmp(a->findings[k].node, d->node) &&
                   !strcmp(a->findings[k].device, d->id.name[0] ? d->id.name : d->id.path);
        fprintf(f, "<tr%s><td>", out ? " class=\"bad\"" : "");
        rb_svg_esc(f, d->node);
        fputs("</td><td>", f);
        rb_svg_esc(f, d->id.name[0] ? d->id.name : d->id.path);
        if (!no_inventory) {
            fputs("</td><td>", f);
            rb_svg_esc(f, d->id.serial[0] ? d->id.serial : "-");
        }
        fputs("</td><td>", f);
        rb_svg_esc(f, d->id.model[0] ? d->id.model : "-");
        if (!no_inventory) {
            fputs("</td><td>", f);
            rb_svg_esc(f, d->id.firmware[0] ? d->id.firmware : "-");
        }
        fputs("</td><td class=\"n\">", f);
        rb_svg_esc(f, rb_units_fmt_size(b, sizeof b, (double)d->id.size));
        fputs("</td><td class=\"n\">", f);
        rb_svg_esc(f, rb_table_bw(b, sizeof b, d->bw));
        fprintf(f, "</td><td class=\"n\">%.0f</td>", d->iops);
        if (d->lat.count)
            fprintf(f,
                    "<td class=\"n\">%.1f</td><td class=\"n\">%.1f</td><td class=\"n\">%.1f</td>",
                    (double)d->lat.p50 / 1e3, (double)d->lat.p99 / 1e3, (double)d->lat.max / 1e3);
        else
            fputs("<td class=\"n\">-</td><td class=\"n\">-</td><td class=\"n\">-</td>", f);
        fputs("<td class=\"n\">", f);
        if (d->family_n >= 2 && d->family_median_bw > 0) {
            rb_svg_textf(f, "%s of %u", rb_table_bw(b, sizeof b, d->family_median_bw), d->family_n);
            fprintf(f, "</td><td class=\"n\">%+.1f%%</td></tr>\n", d->deviation * 100);
        } else {
            fputs("-</td><td class=\"n\">alone</td></tr>\n", f);
        }
    }
    fputs("</table>\n<p class=\"note\">A disk&#8217;s family: the phase&#8217;s disks of the "
          "same model and size, on every node. A disk more than 3 median absolute deviations "
          "and 15% below its family&#8217;s median (of 3 disks or more), or at a third of it "
          "or less, having lost 0.25 s or more to it, is an out-of-family finding, in red. Each "
          "disk&#8217;s figures are its own workers&#8217;, over their window, and its latency "
          "from its own merged histogram.</p>\n",
          f);
    free(v);
    return 0;
}
