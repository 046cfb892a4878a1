/* The charts of report.html, apart from the page around them: a phase's
 * rate over time (cluster, racks, nodes, or the slowest, median and fastest
 * node of a large fleet), each node's spread of its intervals, the latency
 * curve, and the notes saying what each chart shows. They draw with
 * rb_svg.h; the series come from samples.csv as rb_html.c reads it. */
#include "rb_chart.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rb_findings.h"
#include "rb_stats.h"
#include "rb_svg.h"

#define S_TEXT_MAX    4096                          /* one formatted text, before escaping */
#define S_CHART_W     900.0                         /* chart width, px */
#define S_NODE_ROW_PX 22.0                          /* one node's row in the bar chart */
#define S_SERIES_X    84.0                          /* left edge of a time chart's plot, px */
#define S_SERIES_W    (S_CHART_W - S_SERIES_X - 20) /* its width, px: a line has no more points */
#define S_NODE_BARS   64 /* more nodes: the bar chart shows the slowest and the fastest ... */
#define S_BARS_END    16 /* ... this many of each */

/* The k-th smallest of n values (k < n), in O(n): v is reordered so that
 * v[k] holds it, nothing after it is smaller and nothing before it larger
 * (a large fleet has a median per interval and per node: no sorting). */
static double s_kth(double *v, uint32_t n, uint32_t k)
{
    int64_t lo = 0, hi = (int64_t)n - 1;
    while (lo < hi) {
        double x = v[k];
        int64_t i = lo, j = hi;
        do {
            while (v[i] < x)
                i++;
            while (x < v[j])
                j--;
            if (i <= j) {
                double tmp = v[i];
                v[i++] = v[j];
                v[j--] = tmp;
            }
        } while (i <= j);
        if (j < (int64_t)k)
            lo = i;
        if ((int64_t)k < i)
            hi = j;
    }
    return v[k];
}

/* The median of n values as rb_stats_median() gives it (the mean of the middle two
 * when n is even; 0 when n is 0), reordering them but not sorting. */
static double s_median(double *v, uint32_t n)
{
    if (!n)
        return 0;
    double hi = s_kth(v, n, n / 2), lo = hi;
    if (n % 2)
        return hi;
    lo = v[0];
    for (uint32_t i = 1; i < n / 2; i++)
        lo = v[i] > lo ? v[i] : lo;
    return (lo + hi) / 2.0;
}

/* How a rate axis is shown: binary units chosen by size, as the page's
 * tables and fio print them (decimal ones after rb_chart_set_si(1)). */
typedef struct s_unit {
    double div;         /* display value = rate / div */
    const char *name;   /* "GB/s" */
    const char *define; /* markup saying what the unit is */
} s_unit_t;

static int s_si; /* rb_chart_set_si() */

void rb_chart_set_si(int si)
{
    s_si = si;
}

int rb_chart_si(void)
{
    return s_si;
}

static s_unit_t s_rate_unit(double max, int ops)
{
    if (ops)
        return (s_unit_t){1, "operations/s", "operations per second"};
    if (s_si && max >= 1e9)
        return (s_unit_t){1e9, "GB/s", "1 GB/s = 10&#8313; bytes/s"};
    if (s_si)
        return (s_unit_t){1e6, "MB/s", "1 MB/s = 10&#8310; bytes/s"};
    if (max >= 1073741824.0)
        return (s_unit_t){1073741824.0, "GiB/s", "1 GiB/s = 2&#179;&#8304; bytes/s"};
    return (s_unit_t){1048576.0, "MiB/s", "1 MiB/s = 2&#178;&#8304; bytes/s"};
}

/* The view of series s, phase a: how many intervals a point, which lines. */
void rb_chart_view_make(const rb_chart_series_t *s, const rb_phase_agg_t *a, rb_chart_view_t *vw)
{
    uint32_t width = (uint32_t)S_SERIES_W;
    memset(vw, 0, sizeof *vw);
    vw->per = s->nk > width ? (s->nk + width - 1) / width : 1;
    vw->np = (s->nk + vw->per - 1) / vw->per;
    vw->spread = s->nn > RB_CHART_NODE_LINES;
    vw->racks = s->rv && s->nr <= RB_CHART_RACK_LINES;
    for (uint32_t i = 0; vw->spread && i < a->nfindings; i++) {
        const rb_finding_t *x = &a->findings[i];
        if (x->kind != RB_FIND_STRAGGLER)
            continue;
        vw->nstragall++;
        for (uint32_t l = 0; vw->nstrag < RB_CHART_STRAG_LINES && l < s->nn; l++)
            if (strcmp(s->node[l], x->node) == 0) {
                vw->strag[vw->nstrag++] = l;
                break;
            }
    }
}

/* A line as drawn: per point, the mean rate and the mean end of `per`
 * consecutive intervals of v and t (nk values), over those measured; NAN
 * when none is (a gap). bv and bt hold nk / per values, rounded up. */
static void s_bucket(const double *v, const double *t, uint32_t nk, uint32_t per, double *bv,
                     double *bt)
{
    for (uint32_t b = 0, k = 0; k < nk; b++) {
        uint32_t end = nk - k > per ? k + per : nk, n = 0;
        double sv = 0, st = 0;
        for (; k < end; k++)
            if (!isnan(v[k])) {
                sv += v[k];
                st += t[k];
                n++;
            }
        bv[b] = n ? sv / n : NAN;
        bt[b] = n ? st / n : NAN;
    }
}

/* The slowest, median and fastest node's rate in each interval into mn, md,
 * mx (nk values; NAN where no node has a sample). 0 or -ENOMEM. */
static int s_node_spread(const rb_chart_series_t *s, double *mn, double *md, double *mx)
{
    double *col = malloc((s->nn ? s->nn : 1) * sizeof *col);
    if (!col)
        return -ENOMEM;
    for (uint32_t k = 0; k < s->nk; k++) {
        uint32_t n = 0;
        mn[k] = md[k] = mx[k] = NAN;
        for (uint32_t l = 0; l < s->nn; l++) {
            double x = s->v[(size_t)l * s->nk + k];
            if (isnan(x))
                continue;
            col[n++] = x;
            mn[k] = n == 1 || x < mn[k] ? x : mn[k];
            mx[k] = n == 1 || x > mx[k] ? x : mx[k];
        }
        if (n)
            md[k] = s_median(col, n);
    }
    free(col);
    return 0;
}

/* A swatch and a name in a legend; style is more of the swatch's style ("" or
 * starting with ';'). */
static void s_legend_item(FILE *f, const char *color, const char *cls, const char *style,
                          const char *name)
{
    fprintf(f, "<span class=\"item\"><span class=\"sw %s\" style=\"border-color:%s%s\"></span>",
            cls, color, style);
    rb_svg_esc(f, name);
    fputs("</span>\n", f);
}

/* A line of a time chart. */
typedef struct s_draw {
    const double *v, *t;         /* nk values: the rate in each interval, its end */
    const char *cls;             /* class of its elements: node, rack, cluster, spread, straggler */
    const char *attr;            /* more attributes of them, as rb_svg_line() takes them */
    const char *style;           /* more style of its legend swatch, as s_legend_item() */
    int group;                   /* the legend lists group 0 first, then 1, ... */
    char color[32];              /* its stroke */
    char name[RB_NAME_MAX + 16]; /* its tooltip */
    const char *label;           /* its legend entry; NULL: the name */
} s_draw_t;

/* A time chart of n lines, drawn in order, each point as vw says, on axes
 * from 0 to the last interval's end and the highest point; then its legend.
 * The title says "PHASE: bandwidth over time, WHAT (unit)". 0 or -ENOMEM. */
static int s_chart_time(FILE *f, const rb_chart_series_t *s, const rb_chart_view_t *vw,
                        const s_draw_t *d, uint32_t n, const char *phase, const char *what, int ops)
{
    double *bv = malloc(vw->np * sizeof *bv), *bt = malloc(vw->np * sizeof *bt), vmax = 0;
    if (!bv || !bt) {
        free(bv);
        free(bt);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        s_bucket(d[i].v, d[i].t, s->nk, vw->per, bv, bt);
        for (uint32_t b = 0; b < vw->np; b++)
            vmax = !isnan(bv[b]) && bv[b] > vmax ? bv[b] : vmax;
    }
    s_unit_t u = s_rate_unit(vmax, ops);
    rb_svg_axis_t ax = rb_svg_axis(s->tmax, 10),
                  ay = rb_svg_axis(vmax / u.div * 1.04, 6); /* headroom */
    rb_svg_plot_t pl = {S_SERIES_X, 16, S_SERIES_W, 300, ax.max, ay.max};
    char title[S_TEXT_MAX], label[256];
    snprintf(title, sizeof title, "%s: %s over time, %s (%s)", phase,
             ops ? "operations per second" : "bandwidth", what, u.name);
    rb_svg_open(f, S_CHART_W, pl.y + pl.h + 48, title);
    rb_svg_frame(f, &pl);
    rb_svg_x_axis(f, &pl, ax, "time after the phase&#8217;s GO (s)");
    snprintf(label, sizeof label, "%s%s%s", ops ? "" : "bandwidth (", u.define, ops ? "" : ")");
    rb_svg_y_axis(f, &pl, ay, label);
    for (uint32_t i = 0; i < n; i++) {
        s_bucket(d[i].v, d[i].t, s->nk, vw->per, bv, bt);
        rb_svg_line(f, &pl, bv, bt, vw->np, u.div, d[i].cls, d[i].attr, d[i].color, d[i].name);
    }
    fputs("</svg>\n<p class=\"legend\">", f);
    for (int g = 0, more = 1; more; g++) {
        more = 0;
        for (uint32_t i = 0; i < n; i++) {
            more |= d[i].group > g;
            if (d[i].group == g)
                s_legend_item(f, d[i].color, d[i].cls, d[i].style,
                              d[i].label ? d[i].label : d[i].name);
        }
    }
    fputs("</p>\n", f);
    free(bv);
    free(bt);
    return 0;
}

/* The decades e0 .. e1 of a log axis over the positive points of n lines
 * (bucketed as drawn, divided by div); false when there is none. */
static bool s_log_range(const rb_chart_line_t *l, uint32_t n, uint32_t nk, uint32_t per, double div,
                        double *bv, double *bt, double *e0, double *e1)
{
    double lo = INFINITY, hi = 0;
    for (uint32_t i = 0; i < n; i++) {
        s_bucket(l[i].v, l[i].t, nk, per, bv, bt);
        for (uint32_t b = 0; nk && b < (nk + per - 1) / per; b++)
            if (bv[b] / div > 0) {
                lo = bv[b] / div < lo ? bv[b] / div : lo;
                hi = bv[b] / div > hi ? bv[b] / div : hi;
            }
    }
    if (!(hi > 0))
        return false;
    *e0 = floor(log10(lo));
    *e1 = ceil(log10(hi));
    if (*e1 <= *e0)
        *e1 = *e0 + 1;
    return true;
}

int rb_chart_lines(FILE *f, const char *title, const char *ylabel, double div, int log_y,
                   const rb_chart_line_t *l, uint32_t n, uint32_t nk, double tmax)
{
    uint32_t width = (uint32_t)S_SERIES_W, per = nk > width ? (nk + width - 1) / width : 1;
    uint32_t np = nk ? (nk + per - 1) / per : 1;
    double *bv = malloc(np * sizeof *bv), *bt = malloc(np * sizeof *bt), vmax = 0;
    if (!bv || !bt) {
        free(bv);
        free(bt);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        s_bucket(l[i].v, l[i].t, nk, per, bv, bt);
        for (uint32_t b = 0; b < np; b++)
            vmax = !isnan(bv[b]) && bv[b] > vmax ? bv[b] : vmax;
    }
    double e0 = 0, e1 = 1;
    log_y = log_y && s_log_range(l, n, nk, per, div, bv, bt, &e0, &e1);
    rb_svg_axis_t ax = rb_svg_axis(tmax, 10), ay = rb_svg_axis(vmax / div * 1.04, 6);
    rb_svg_plot_t pl = {S_SERIES_X, 16, S_SERIES_W, 260, ax.max, log_y ? e1 - e0 : ay.max};
    rb_svg_open(f, S_CHART_W, pl.y + pl.h + 48, title);
    rb_svg_frame(f, &pl);
    rb_svg_x_axis(f, &pl, ax, "time after the phase&#8217;s GO (s)");
    if (log_y)
        rb_svg_y_log_axis(f, &pl, e0, e1, 52, ylabel);
    else
        rb_svg_y_axis(f, &pl, ay, ylabel);
    for (uint32_t i = 0; i < n; i++) {
        s_bucket(l[i].v, l[i].t, nk, per, bv, bt);
        for (uint32_t b = 0; log_y && b < np; b++) /* a point of 0 has no place: a gap */
            bv[b] = bv[b] / div > 0 ? log10(bv[b] / div) - e0 : NAN;
        rb_svg_line(f, &pl, bv, bt, np, log_y ? 1 : div, l[i].dashed ? "rack" : "cluster", "",
                    l[i].color, l[i].name);
    }
    fputs("</svg>\n<p class=\"legend\">", f);
    for (uint32_t i = 0; i < n; i++)
        s_legend_item(f, l[i].color, l[i].dashed ? "rack" : "cluster", "", l[i].name);
    fputs("</p>\n", f);
    if (per > 1)
        fprintf(f, "<p class=\"note\">Each point is the mean of %u consecutive values.</p>\n", per);
    free(bv);
    free(bt);
    return 0;
}

/* The cluster's rate over time, a dashed line per rack (up to RB_CHART_RACK_LINES),
 * a thin line per node (up to RB_CHART_NODE_LINES). 0 or -ENOMEM. */
int rb_chart_series(FILE *f, const rb_chart_series_t *s, const rb_chart_view_t *vw,
                    const char *phase, int ops)
{
    uint32_t nnode = vw->spread ? 0 : s->nn, nrack = vw->racks ? s->nr : 0, n = 0;
    s_draw_t *d = calloc((size_t)nnode + nrack + 1, sizeof *d);
    if (!d)
        return -ENOMEM;
    for (uint32_t l = 0; l < nnode; l++, n++) {
        d[n] = (s_draw_t){.v = s->v + (size_t)l * s->nk,
                          .t = s->t + (size_t)l * s->nk,
                          .cls = "node",
                          .attr = "",
                          .style = "",
                          .group = 2};
        rb_svg_color(d[n].color, sizeof d[n].color, l, 0);
        snprintf(d[n].name, sizeof d[n].name, "%s", s->node[l]);
    }
    for (uint32_t g = 0; g < nrack; g++, n++) {
        d[n] = (s_draw_t){.v = s->rv + (size_t)g * s->nk,
                          .t = s->rt + (size_t)g * s->nk,
                          .cls = "rack",
                          .attr = "",
                          .style = "",
                          .group = 1};
        rb_svg_color(d[n].color, sizeof d[n].color, g, 1);
        snprintf(d[n].name, sizeof d[n].name, "rack %s", s->rname[g]);
    }
    d[n] = (s_draw_t){.v = s->cv,
                      .t = s->ct,
                      .cls = "cluster",
                      .attr = "",
                      .style = "",
                      .color = "#000",
                      .name = "cluster (sum of nodes)",
                      .label = "cluster (sum of the nodes)"};
    int rc = s_chart_time(f, s, vw, d, n + 1, phase,
                          !vw->spread ? "cluster, per rack and per node"
                          : nrack     ? "cluster and per rack"
                                      : "cluster",
                          ops);
    free(d);
    return rc;
}

/* With many nodes: the slowest, median and fastest node of each interval,
 * and the straggler nodes' own lines. 0 or -ENOMEM. */
int rb_chart_spread(FILE *f, const rb_chart_series_t *s, const rb_chart_view_t *vw,
                    const char *phase, int ops)
{
    static const char *const strag_color[RB_CHART_STRAG_LINES] = {"#9467bd", "#8c564b", "#e377c2",
                                                                  "#17becf"};
    double *mm = malloc(3 * (size_t)s->nk * sizeof *mm);
    s_draw_t d[3 + RB_CHART_STRAG_LINES];
    uint32_t n = 0;
    if (!mm || s_node_spread(s, mm, mm + s->nk, mm + 2 * (size_t)s->nk) < 0) {
        free(mm);
        return -ENOMEM;
    }
    d[n++] = (s_draw_t){.v = mm,
                        .t = s->ct,
                        .cls = "spread",
                        .attr = " stroke-width=\"1.5\" stroke-dasharray=\"5 3\"",
                        .style = ";border-top-style:dashed",
                        .group = 2,
                        .color = "#d62728",
                        .name = "node min"};
    d[n++] = (s_draw_t){.v = mm + s->nk,
                        .t = s->ct,
                        .cls = "spread",
                        .attr = " stroke-width=\"2\"",
                        .style = "",
                        .group = 1,
                        .color = "#2ca02c",
                        .name = "node median"};
    d[n++] = (s_draw_t){.v = mm + 2 * (size_t)s->nk,
                        .t = s->ct,
                        .cls = "spread",
                        .attr = " stroke-width=\"1.5\" stroke-dasharray=\"5 3\"",
                        .style = ";border-top-style:dashed",
                        .group = 0,
                        .color = "#1f77b4",
                        .name = "node max"};
    for (uint32_t i = 0; i < vw->nstrag; i++, n++) {
        uint32_t l = vw->strag[i];
        d[n] = (s_draw_t){.v = s->v + (size_t)l * s->nk,
                          .t = s->t + (size_t)l * s->nk,
                          .cls = "straggler",
                          .attr = " stroke-width=\"1.5\"",
                          .style = "",
                          .group = 3};
        snprintf(d[n].color, sizeof d[n].color, "%s", strag_color[i]);
        snprintf(d[n].name, sizeof d[n].name, "%s (straggler)", s->node[l]);
    }
    char what[128];
    if (s->shift)
        snprintf(what, sizeof what,
                 "the slowest, the median and the fastest node of each %u intervals",
                 1u << s->shift);
    else
        snprintf(what, sizeof what,
                 "the slowest, the median and the fastest node of each interval");
    int rc = s_chart_time(f, s, vw, d, n, phase, what, ops);
    free(mm);
    return rc;
}

/* Min, median and max of a line's measured intervals; 0 when it has none. */
static uint32_t s_spread(const rb_chart_series_t *s, uint32_t l, double *scratch, double out[3])
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < s->nk; k++)
        if (!isnan(s->v[(size_t)l * s->nk + k]))
            scratch[n++] = s->v[(size_t)l * s->nk + k];
    out[0] = out[2] = n ? scratch[0] : 0;
    for (uint32_t i = 1; i < n; i++) {
        out[0] = scratch[i] < out[0] ? scratch[i] : out[0];
        out[2] = scratch[i] > out[2] ? scratch[i] : out[2];
    }
    out[1] = s_median(scratch, n);
    return n;
}

/* A node ranked by the median of its intervals. */
typedef struct s_rank {
    double median;
    uint32_t line; /* in the series */
} s_rank_t;

static int s_by_median(const void *a, const void *b)
{
    const s_rank_t *x = a, *y = b;
    if (x->median != y->median)
        return x->median < y->median ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* One node's row of the bar chart at height y: its name, then a bar to its
 * median sl[1] and a whisker from sl[0] to sl[2] over its n intervals, or
 * "no samples" when n is 0. */
static void s_node_row(FILE *f, const rb_svg_plot_t *pl, const rb_chart_series_t *s, uint32_t l,
                       uint32_t n, const double *sl, rb_svg_axis_t ax, s_unit_t u, double y)
{
    char color[32], b[3][64];
    fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", pl->x - 8, y + 4);
    rb_svg_esc(f, s->node[l]);
    fputs("</text>\n", f);
    if (!n) {
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">no samples</text>\n", pl->x + 6,
                y + 4);
        return;
    }
    for (int j = 0; j < 3; j++)
        snprintf(b[j], sizeof b[j], "%.*f", ax.dec + 2, sl[j] / u.div);
    rb_svg_color(color, sizeof color, l, 0);
    fprintf(f,
            "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
            "fill=\"%s\"><title>",
            pl->x, y - 6, rb_svg_px(pl, sl[1] / u.div) - pl->x, 12.0, color);
    rb_svg_esc(f, s->node[l]);
    if (s->shift)
        fprintf(f, ": median %s, min %s, max %s %s over %u spans of %u intervals</title></rect>\n",
                b[1], b[0], b[2], u.name, n, 1u << s->shift);
    else
        fprintf(f, ": median %s, min %s, max %s %s over %u intervals</title></rect>\n", b[1], b[0],
                b[2], u.name, n);
    fprintf(f, "<path class=\"whisker\" d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f\"/>\n",
            rb_svg_px(pl, sl[0] / u.div), y, rb_svg_px(pl, sl[2] / u.div),
            rb_svg_px(pl, sl[0] / u.div), y - 5, y + 5, rb_svg_px(pl, sl[2] / u.div), y - 5, y + 5);
}

/* Per node: a bar to the median of its interval rates, a whisker min..max.
 * Over S_NODE_BARS nodes, only the S_BARS_END slowest and fastest by median,
 * a separator between them. 0 or -ENOMEM. */
int rb_chart_nodes(FILE *f, const rb_chart_series_t *s, const char *phase, int ops)
{
    uint32_t nn = s->nn, nshow = 0, gap = UINT32_MAX, nrank = 0;
    double *scratch = calloc(s->nk ? s->nk : 1, sizeof *scratch), max = 0;
    double *st = calloc(3 * (size_t)(nn ? nn : 1), sizeof *st);
    uint32_t *cnt = calloc(nn ? nn : 1, sizeof *cnt), *show = calloc(nn ? nn : 1, sizeof *show);
    s_rank_t *rank = calloc(nn ? nn : 1, sizeof *rank);
    int rc = -ENOMEM;
    if (!scratch || !st || !cnt || !show || !rank)
        goto out;
    for (uint32_t l = 0; l < nn; l++)
        cnt[l] = s_spread(s, l, scratch, st + 3 * (size_t)l);
    if (nn <= S_NODE_BARS) {
        for (uint32_t l = 0; l < nn; l++)
            show[nshow++] = l;
    } else {
        for (uint32_t l = 0; l < nn; l++)
            if (cnt[l])
                rank[nrank++] = (s_rank_t){st[3 * (size_t)l + 1], l};
        qsort(rank, nrank, sizeof *rank, s_by_median);
        for (uint32_t i = 0; i < nrank; i++)
            if (nrank <= 2 * S_BARS_END || i < S_BARS_END || i >= nrank - S_BARS_END)
                show[nshow++] = rank[i].line;
        gap = nrank > 2 * S_BARS_END ? S_BARS_END : UINT32_MAX;
    }
    for (uint32_t i = 0; i < nshow; i++)
        if (cnt[show[i]] && st[3 * (size_t)show[i] + 2] > max)
            max = st[3 * (size_t)show[i] + 2];
    uint32_t rows = nshow + (gap != UINT32_MAX);
    s_unit_t u = s_rate_unit(max, ops);
    rb_svg_axis_t ax = rb_svg_axis(max / u.div, 8);
    rb_svg_plot_t pl = {170, 10, S_CHART_W - 170 - 24, rows * S_NODE_ROW_PX, ax.max, 1};
    char title[S_TEXT_MAX], label[256], per[48], in[48];
    const char *rate = ops ? "operations per second" : "bandwidth";
    if (s->shift) {
        snprintf(per, sizeof per, "per %u sample intervals", 1u << s->shift);
        snprintf(in, sizeof in, "in %u consecutive sample intervals", 1u << s->shift);
    } else {
        snprintf(per, sizeof per, "per sample interval");
        snprintf(in, sizeof in, "in one sample interval");
    }
    if (nn <= S_NODE_BARS)
        snprintf(title, sizeof title, "%s: each node's %s %s, min, median and max (%s)", phase,
                 rate, per, u.name);
    else
        snprintf(title, sizeof title,
                 "%s: the %d slowest and %d fastest of %u nodes by median, their %s %s, min, "
                 "median and max (%s)",
                 phase, S_BARS_END, S_BARS_END, nn, rate, per, u.name);
    rb_svg_open(f, S_CHART_W, pl.y + pl.h + 48, title);
    rb_svg_frame(f, &pl);
    snprintf(label, sizeof label, "%s of one node %s%s%s%s", rate, in, ops ? "" : " (",
             ops ? "" : u.define, ops ? "" : ")");
    rb_svg_x_axis(f, &pl, ax, label);
    for (uint32_t row = 0, i = 0; row < rows; row++) {
        double y = pl.y + row * S_NODE_ROW_PX + S_NODE_ROW_PX / 2;
        if (row == gap) {
            fprintf(f,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#666\" "
                    "stroke-dasharray=\"4 4\"/><text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
                    "text-anchor=\"middle\">&#8942; %u nodes between these by median, not shown "
                    "&#8942;</text>\n",
                    pl.x - 160, y, pl.x + pl.w, y, pl.x + pl.w / 2, y - 3, nrank - 2 * S_BARS_END);
            continue;
        }
        uint32_t l = show[i++];
        s_node_row(f, &pl, s, l, cnt[l], st + 3 * (size_t)l, ax, u, y);
    }
    fputs("</svg>\n", f);
    if (nn > S_NODE_BARS) {
        fprintf(f, "<p class=\"note\">%u nodes; ", nn);
        if (gap != UINT32_MAX)
            fprintf(f, "the %d slowest and %d fastest by median are shown", S_BARS_END, S_BARS_END);
        else
            fprintf(f, "the %u with samples are shown", nrank);
        if (nrank < nn)
            fprintf(f, " (%u without a sample drawn are not)", nn - nrank);
        fputs("; every node is in the table below and in samples.csv.</p>\n", f);
    }
    rc = 0;
out:
    free(scratch);
    free(st);
    free(cnt);
    free(show);
    free(rank);
    return rc;
}

/* Latency against percentile: x on a "nines" scale, -log10(1 - p), so p90,
 * p99, p99.9 and p99.99 are evenly spaced; y logarithmic in us. */
void rb_chart_latency(FILE *f, const rb_hist_t *h, const char *phase)
{
    static const double pct[] = {1,  5,  10, 20, 30,   40,   50,   60,    70,    75,   80,
                                 90, 95, 98, 99, 99.5, 99.8, 99.9, 99.95, 99.98, 99.99};
    static const struct {
        double p;
        const char *label;
    } xt[] = {{0, "p0"}, {50, "p50"}, {90, "p90"}, {99, "p99"}, {99.9, "p99.9"}, {99.99, "p99.99"}};
    enum { NP = sizeof pct / sizeof *pct };
    double us[NP], lo = INFINITY, hi = 0;
    for (int i = 0; i < NP; i++) {
        us[i] = (double)rb_hist_percentile(h, pct[i]) / 1e3;
        lo = us[i] > 0 && us[i] < lo ? us[i] : lo;
        hi = us[i] > hi ? us[i] : hi;
    }
    if (!(hi > 0)) {
        fputs("<p class=\"none\">no latency was recorded</p>\n", f);
        return;
    }
    double e0 = floor(log10(lo)), e1 = ceil(log10(hi));
    if (e1 <= e0)
        e1 = e0 + 1;
    rb_svg_plot_t pl = {100, 16, S_CHART_W - 100 - 30, 280, 4, e1 - e0};
    char title[S_TEXT_MAX];
    snprintf(title, sizeof title, "%s: latency percentiles (microseconds, log scale)", phase);
    rb_svg_open(f, S_CHART_W, pl.y + pl.h + 48, title);
    rb_svg_frame(f, &pl);
    for (size_t i = 0; i < sizeof xt / sizeof *xt; i++) {
        double x = rb_svg_px(&pl, -log10(1 - xt[i].p / 100));
        fprintf(f,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                x, pl.y, x, pl.y + pl.h, x, pl.y + pl.h + 16, xt[i].label);
    }
    fprintf(f,
            "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">percentile of all "
            "operations (scale: each step right is ten times rarer)</text>\n",
            pl.x + pl.w / 2, pl.y + pl.h + 38);
    rb_svg_y_log_axis(f, &pl, e0, e1, 72, "latency (&#181;s, log scale)");
    fputs("<polyline class=\"lat\" points=\"", f);
    for (int i = 0; i < NP; i++)
        if (us[i] > 0)
            fprintf(f, "%s%.1f,%.1f", i ? " " : "", rb_svg_px(&pl, -log10(1 - pct[i] / 100)),
                    rb_svg_py(&pl, log10(us[i]) - e0));
    fputs("\"><title>latency percentiles</title></polyline>\n", f);
    for (int i = 0; i < NP; i++)
        if (us[i] > 0)
            fprintf(f,
                    "<circle class=\"lat\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>p%g: %.1f "
                    "&#181;s</title></circle>\n",
                    rb_svg_px(&pl, -log10(1 - pct[i] / 100)), rb_svg_py(&pl, log10(us[i]) - e0),
                    pct[i], us[i]);
    fputs("</svg>\n", f);
}

/* What the time chart shows, under it. */
void rb_chart_series_note(FILE *f, const rb_chart_series_t *s, const rb_chart_view_t *vw, int meta)
{
    const char *what = meta ? "the operations a node completed" : "the bytes a node moved";
    uint32_t held = s->shift ? 1u << s->shift : 1;
    if (vw->per == 1 && held == 1)
        fprintf(f,
                "<p class=\"note\">Each point is one sample interval (about %.2g s), drawn at its "
                "end: %s in it over its length, as in samples.csv.",
                s->iv, what);
    else if (held == 1)
        fprintf(f,
                "<p class=\"note\">Downsampled: the phase has %u sample intervals (about %.2g s "
                "each), more than the chart is wide, so each point is the mean of %u consecutive "
                "intervals, drawn at the mean of their ends; an interval&#8217;s rate is %s in it "
                "over its length. samples.csv keeps every interval.",
                s->nkall, s->iv, vw->per, what);
    else if (vw->per == 1)
        fprintf(
            f,
            "<p class=\"note\">Downsampled: the phase has %u sample intervals (about %.2g s "
            "each), too many to keep one by one, so each point holds %u consecutive "
            "intervals: %s in them over the sum of their lengths, drawn at the last one&#8217;s "
            "end. samples.csv keeps every interval.",
            s->nkall, s->iv, held, what);
    else
        fprintf(f,
                "<p class=\"note\">Downsampled: the phase has %u sample intervals (about %.2g s "
                "each), too many to keep one by one, so each point holds %u consecutive "
                "intervals: the mean of %u rates, each %s in %u consecutive intervals over the sum "
                "of their lengths, drawn at the mean of their last ends. samples.csv keeps every "
                "interval.",
                s->nkall, s->iv, vw->per * held, vw->per, what, held);
    fprintf(f, " The cluster line is the sum over the nodes of the same interval%s.",
            vw->racks ? ", each dashed rack line the sum over its nodes" : "");
    fputs(vw->per == 1 && held == 1 ? " A missing interval is left as a gap."
                                    : " A point with no measured interval is left as a gap.",
          f);
    if (s->rv && !vw->racks)
        fprintf(f, " The %u racks have no line each (more than %d): the table below has each.",
                s->nr, RB_CHART_RACK_LINES);
    if (vw->spread)
        fprintf(f,
                " %u nodes are too many for a line each: the chart below draws the slowest, the "
                "median and the fastest node of each interval.",
                s->nn);
    if (s->ntail)
        fprintf(f,
                " Not drawn: %u row%s of samples.csv for a node&#8217;s last interval "
                "shorter than half an interval (a rate over a few ms says little); what "
                "%s counts in every table.",
                s->ntail, s->ntail == 1 ? "" : "s", s->ntail == 1 ? "it holds" : "they hold");
    fputs("</p>\n", f);
}

/* What the chart of the slowest, median and fastest node shows, under it. */
void rb_chart_spread_note(FILE *f, const rb_chart_series_t *s, const rb_chart_view_t *vw)
{
    fputs("<p class=\"note\">In each interval, node min is the rate of the slowest node with "
          "a sample in it, node median the median node&#8217;s, node max the fastest&#8217;s "
          "(not always the same node from one interval to the next)",
          f);
    if (s->shift)
        fprintf(f,
                "; the phase being long, nodes are compared over %u consecutive intervals at "
                "a time",
                1u << s->shift);
    if (vw->per > 1)
        fprintf(f, "; each point the mean of %u %s", vw->per, s->shift ? "of those" : "intervals");
    fputs(".", f);
    if (vw->nstrag) {
        fputs(" Stragglers have a line of their own: ", f);
        for (uint32_t i = 0; i < vw->nstrag; i++) {
            fputs(i ? ", " : "", f);
            rb_svg_esc(f, s->node[vw->strag[i]]);
        }
        if (vw->nstragall > vw->nstrag)
            fprintf(f, " (%u of the %u the notes name)", vw->nstrag, vw->nstragall);
        fputs(".", f);
    }
    fputs("</p>\n", f);
}
