/* report.txt's matrices of sweeps (rb_sweep.h's grids): block size down,
 * queue depth (with the count of workers, when swept) across, each cell the
 * phase's bandwidth, IOPS and p99 latency; one matrix per rw swept. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "rb_report_text_int.h"
#include "rb_sweep.h"
#include "rb_units.h"

#define S_CELL 48 /* bytes of one cell's text */

/* Cell (i, j) of g: "BANDWIDTH IOPS P99us", "not run" or "-", into txt;
 * returns its length. */
static int s_cell(char *txt, size_t len, const rb_run_result_t *r, const rb_sweep_grid_t *g,
                  uint32_t i, uint32_t j)
{
    const rb_phase_agg_t *a = rb_sweep_cell(r, g, i, j);
    char bw[32];
    if (!a)
        return snprintf(txt, len, "%s", g->cell[i * g->stride + j] ? "not run" : "-");
    return snprintf(txt, len, "%s %.0f %.0fus",
                    rb_units_fmt_bw_in(bw, sizeof bw, a->aggregate_bw, r->units), a->iops,
                    rb_report_us(rb_hist_percentile(&a->hist, 99)));
}

static void s_matrix(FILE *f, const rb_run_result_t *r, const rb_sweep_grid_t *g)
{
    char txt[S_CELL];
    int wrow = 6, wcol = 1;
    for (uint32_t i = 0; i < g->nrows; i++) /* the widest cell sets every column's width */
        for (uint32_t j = 0; j < g->ncols; j++) {
            int w = s_cell(txt, sizeof txt, r, g, i, j);
            wcol = w > wcol ? w : wcol;
        }
    fprintf(f, "\nsweep %s, rw=%s: bandwidth, IOPS and p99 latency per phase\n", g->sweep,
            rb_rw_name(g->rw) ? rb_rw_name(g->rw) : "?");
    if (g->iterations > 1)
        fprintf(f, "  (the first of %u iterations; the iterations table has them all)\n",
                g->iterations);
    fprintf(f, "  %-*s", wrow, "bs");
    for (uint32_t j = 0; j < g->ncols; j++) {
        if (g->jobs_vary)
            snprintf(txt, sizeof txt, "jobs%" PRIu64 " qd%" PRIu64, g->cols[j] >> 32,
                     g->cols[j] & 0xffffffffu);
        else
            snprintf(txt, sizeof txt, "qd%" PRIu64, g->cols[j] & 0xffffffffu);
        fprintf(f, "  %*s", wcol, txt);
    }
    fputc('\n', f);
    for (uint32_t i = 0; i < g->nrows; i++) {
        fprintf(f, "  %-*s", wrow, rb_units_fmt_size_exact(txt, sizeof txt, g->rows[i]));
        for (uint32_t j = 0; j < g->ncols; j++) {
            s_cell(txt, sizeof txt, r, g, i, j);
            fprintf(f, "  %*s", wcol, txt);
        }
        fputc('\n', f);
    }
}

int rb_report_text_sweeps(FILE *f, const rb_run_result_t *r)
{
    rb_sweep_grid_t *g = NULL;
    uint32_t n = 0;
    if (rb_sweep_grids(r, &g, &n) < 0)
        return -ENOMEM;
    for (uint32_t i = 0; i < n; i++)
        s_matrix(f, r, &g[i]);
    rb_sweep_grids_free(&g, n);
    return 0;
}
