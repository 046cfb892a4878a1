/* report.txt's matrices of sweeps: the phases one job's sweep_* lists made,
 * laid out as fio-plot's bench-fio studies are read, block size down and
 * queue depth (with the count of workers, when swept) across, each cell the
 * phase's bandwidth, IOPS and p99 latency; one matrix per rw swept. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_report.h"
#include "rb_report_text_int.h"
#include "rb_units.h"

#define S_CELL 48 /* bytes of one cell's text */

/* The index of v in list (n entries), appended when new; n grows. */
static uint32_t s_slot(uint64_t *list, uint32_t *n, uint64_t v)
{
    for (uint32_t i = 0; i < *n; i++)
        if (list[i] == v)
            return i;
    list[*n] = v;
    return (*n)++;
}

/* Phase a's cell: "BANDWIDTH IOPS P99us" into txt; returns its length. */
static int s_cell(char *txt, size_t len, const rb_phase_agg_t *a, rb_units_style_t st)
{
    char bw[32];
    return snprintf(txt, len, "%s %.0f %.0fus",
                    rb_units_fmt_bw_in(bw, sizeof bw, a->aggregate_bw, st), a->iops,
                    rb_report_us(rb_hist_percentile(&a->hist, 99)));
}

/* One matrix: the phases first .. end-1 of sweep name whose first job has
 * access pattern rw (first iterations only). */
static int s_matrix(FILE *f, const rb_run_result_t *r, uint32_t first, uint32_t end, rb_rw_t rw)
{
    uint32_t n = end - first, nrows = 0, ncols = 0;
    uint64_t *rows = calloc(n, sizeof *rows), *cols = calloc(n, sizeof *cols);
    uint32_t *cell = calloc((size_t)n * n, sizeof *cell); /* phase + 1, 0: none */
    if (!rows || !cols || !cell) {
        free(rows), free(cols), free(cell);
        return -ENOMEM;
    }
    bool jobs_vary = false;
    uint32_t jobs0 = r->specs[first].jobs[0].numjobs;
    for (uint32_t p = first; p < end; p++) {
        const rb_job_spec_t *js = &r->specs[p].jobs[0];
        if (js->rw != rw || r->iters[p].iteration)
            continue;
        jobs_vary |= js->numjobs != jobs0;
        uint32_t i = s_slot(rows, &nrows, js->bs);
        uint32_t j = s_slot(cols, &ncols, (uint64_t)js->numjobs << 32 | js->iodepth);
        cell[i * n + j] = p + 1;
    }
    char txt[S_CELL], b[32];
    int wrow = 6, wcol = 1;
    for (uint32_t k = 0; k < n * n; k++) { /* the widest cell sets every column's width */
        uint32_t p = cell[k];
        if (!p-- || p >= r->nphases)
            continue;
        int w = s_cell(txt, sizeof txt, &r->phases[p], r->units);
        wcol = w > wcol ? w : wcol;
    }
    fprintf(f, "\nsweep %s, rw=%s: bandwidth, IOPS and p99 latency per phase\n",
            r->iters[first].sweep, rb_rw_name(rw) ? rb_rw_name(rw) : "?");
    if (r->iters[first].iterations > 1)
        fprintf(f, "  (the first of %u iterations; the iterations table has them all)\n",
                r->iters[first].iterations);
    fprintf(f, "  %-*s", wrow, "bs");
    for (uint32_t j = 0; j < ncols; j++) {
        if (jobs_vary)
            snprintf(txt, sizeof txt, "jobs%" PRIu64 " qd%" PRIu64, cols[j] >> 32,
                     cols[j] & 0xffffffffu);
        else
            snprintf(txt, sizeof txt, "qd%" PRIu64, cols[j] & 0xffffffffu);
        fprintf(f, "  %*s", wcol, txt);
    }
    fputc('\n', f);
    for (uint32_t i = 0; i < nrows; i++) {
        fprintf(f, "  %-*s", wrow, rb_units_fmt_size_exact(b, sizeof b, rows[i]));
        for (uint32_t j = 0; j < ncols; j++) {
            uint32_t p = cell[i * n + j];
            if (p && p - 1 < r->nphases)
                s_cell(txt, sizeof txt, &r->phases[p - 1], r->units);
            else
                snprintf(txt, sizeof txt, "%s", p ? "not run" : "-");
            fprintf(f, "  %*s", wcol, txt);
        }
        fputc('\n', f);
    }
    free(rows), free(cols), free(cell);
    return 0;
}

int rb_report_text_sweeps(FILE *f, const rb_run_result_t *r)
{
    if (!r->iters || !r->specs)
        return 0;
    uint32_t n = r->nplanned;
    for (uint32_t p = 0; p < n;) {
        const char *name = r->iters[p].sweep;
        uint32_t end = p + 1;
        while (end < n && name[0] && !strcmp(r->iters[end].sweep, name))
            end++;
        bool first_round = r->iters[p].iteration == 0; /* iterate=plan: later rounds again */
        for (uint32_t q = p; name[0] && first_round && q < end; q++) { /* a matrix per rw */
            rb_rw_t rw = r->specs[q].jobs[0].rw;
            bool seen = false;
            for (uint32_t k = p; k < q && !seen; k++)
                seen = r->specs[k].jobs[0].rw == rw;
            if (!seen && s_matrix(f, r, p, end, rw) < 0)
                return -ENOMEM;
        }
        p = end;
    }
    return 0;
}
