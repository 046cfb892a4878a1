/* report.html's heat maps of sweeps (rb_sweep.h's grids): per sweep and rw,
 * one table of IOPS and bandwidth and one of p99 latency, block size down
 * and queue depth across, each cell shaded by its value against the grid's
 * largest (green: more IOPS; red: a longer p99), as the matrices of
 * report.txt give the same figures in text. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "rb_chart.h"
#include "rb_html_int.h"
#include "rb_sweep.h"
#include "rb_units.h"

/* The lightness of a cell, 95% (nothing) to 55% (the largest). */
static int s_light(double v, double max)
{
    return max > 0 ? 95 - (int)(40.0 * v / max + 0.5) : 95;
}

/* The header row: "bs" and a column per numjobs and iodepth pair. */
static void s_head(FILE *f, const rb_sweep_grid_t *g)
{
    fprintf(f, "<tr><th>bs</th>");
    for (uint32_t j = 0; j < g->ncols; j++) {
        if (g->jobs_vary)
            fprintf(f, "<th class=\"n\">jobs%" PRIu64 " qd%" PRIu64 "</th>", g->cols[j] >> 32,
                    g->cols[j] & 0xffffffffu);
        else
            fprintf(f, "<th class=\"n\">qd%" PRIu64 "</th>", g->cols[j] & 0xffffffffu);
    }
    fprintf(f, "</tr>\n");
}

/* One heat map of g: lat 0 for IOPS and bandwidth, 1 for p99. */
static void s_map(FILE *f, const rb_run_result_t *r, const rb_sweep_grid_t *g, int lat)
{
    const rb_units_style_t st = rb_chart_si() ? RB_UNITS_SI : RB_UNITS_IEC;
    double max = 0;
    for (uint32_t i = 0; i < g->nrows; i++)
        for (uint32_t j = 0; j < g->ncols; j++) {
            const rb_phase_agg_t *a = rb_sweep_cell(r, g, i, j);
            double v = !a ? 0 : lat ? rb_report_us(rb_hist_percentile(&a->hist, 99)) : a->iops;
            max = v > max ? v : max;
        }
    fprintf(f, "<h3>%s</h3>\n<table class=\"sweep\">\n",
            lat ? "p99 latency (red: longer)" : "IOPS and bandwidth (green: more IOPS)");
    s_head(f, g);
    for (uint32_t i = 0; i < g->nrows; i++) {
        char b[32];
        fprintf(f, "<tr><th>%s</th>", rb_units_fmt_size_exact(b, sizeof b, g->rows[i]));
        for (uint32_t j = 0; j < g->ncols; j++) {
            const rb_phase_agg_t *a = rb_sweep_cell(r, g, i, j);
            if (!a) {
                fprintf(f, "<td class=\"n none\">%s</td>",
                        g->cell[i * g->stride + j] ? "not run" : "-");
                continue;
            }
            double p99 = rb_report_us(rb_hist_percentile(&a->hist, 99));
            double v = lat ? p99 : a->iops;
            fprintf(f, "<td class=\"n\" style=\"background:hsl(%d,60%%,%d%%)\">", lat ? 0 : 130,
                    s_light(v, max));
            if (lat)
                fprintf(f, "%.0f us</td>", p99);
            else
                fprintf(f, "%.0f IOPS<br>%s</td>", a->iops,
                        rb_units_fmt_bw_in(b, sizeof b, a->aggregate_bw, st));
        }
        fprintf(f, "</tr>\n");
    }
    fprintf(f, "</table>\n");
}

int rb_html_sweeps(const rb_run_result_t *r, FILE *f)
{
    rb_sweep_grid_t *g = NULL;
    uint32_t n = 0;
    if (rb_sweep_grids(r, &g, &n) < 0)
        return -ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        /* names are A-Z a-z 0-9 . _ - only: nothing to escape */
        fprintf(f, "<section class=\"sweep\">\n<h2>Sweep %s, rw=%s</h2>\n", g[i].sweep,
                rb_rw_name(g[i].rw) ? rb_rw_name(g[i].rw) : "?");
        if (g[i].iterations > 1)
            fprintf(f, "<p class=\"note\">The first of %u iterations of each phase.</p>\n",
                    g[i].iterations);
        s_map(f, r, &g[i], 0);
        s_map(f, r, &g[i], 1);
        fprintf(f, "</section>\n");
    }
    rb_sweep_grids_free(&g, n);
    return 0;
}
