/* The grids of a run's sweeps (rb_sweep.h): read off the plan's phases,
 * each of which knows the sweep that made it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rb_sweep.h"

/* The index of v in list (n entries), appended when new; n grows. */
static uint32_t s_slot(uint64_t *list, uint32_t *n, uint64_t v)
{
    for (uint32_t i = 0; i < *n; i++)
        if (list[i] == v)
            return i;
    list[*n] = v;
    return (*n)++;
}

/* Fills g from the phases first .. end-1 whose first job has access pattern
 * rw (first iterations only). 0 or -ENOMEM. */
static int s_grid(const rb_run_result_t *r, uint32_t first, uint32_t end, rb_rw_t rw,
                  rb_sweep_grid_t *g)
{
    uint32_t n = end - first;
    *g = (rb_sweep_grid_t){.sweep = r->iters[first].sweep,
                           .rw = rw,
                           .iterations = r->iters[first].iterations,
                           .stride = n};
    g->rows = calloc(n, sizeof *g->rows);
    g->cols = calloc(n, sizeof *g->cols);
    g->cell = calloc((size_t)n * n, sizeof *g->cell);
    if (!g->rows || !g->cols || !g->cell)
        return -ENOMEM;
    uint32_t jobs0 = r->specs[first].jobs[0].numjobs;
    for (uint32_t p = first; p < end; p++) {
        const rb_job_spec_t *js = &r->specs[p].jobs[0];
        if (js->rw != rw || r->iters[p].iteration)
            continue;
        g->jobs_vary |= js->numjobs != jobs0;
        uint32_t i = s_slot(g->rows, &g->nrows, js->bs);
        uint32_t j = s_slot(g->cols, &g->ncols, (uint64_t)js->numjobs << 32 | js->iodepth);
        g->cell[i * n + j] = p + 1;
    }
    return 0;
}

int rb_sweep_grids(const rb_run_result_t *r, rb_sweep_grid_t **out, uint32_t *nout)
{
    *out = NULL;
    *nout = 0;
    if (!r->iters || !r->specs)
        return 0;
    rb_sweep_grid_t *g = NULL;
    uint32_t n = 0;
    for (uint32_t p = 0; p < r->nplanned;) {
        const char *name = r->iters[p].sweep;
        uint32_t end = p + 1;
        while (end < r->nplanned && name[0] && !strcmp(r->iters[end].sweep, name))
            end++;
        bool first_round = r->iters[p].iteration == 0; /* iterate=plan: later rounds again */
        for (uint32_t q = p; name[0] && first_round && q < end; q++) { /* a grid per rw */
            rb_rw_t rw = r->specs[q].jobs[0].rw;
            bool seen = false;
            for (uint32_t k = p; k < q && !seen; k++)
                seen = r->specs[k].jobs[0].rw == rw;
            if (seen)
                continue;
            rb_sweep_grid_t *more = realloc(g, (n + 1) * sizeof *g);
            if (!more || s_grid(r, p, end, rw, &(more ? more : g)[n]) < 0) {
                if (more) {
                    g = more;
                    n++; /* its parts, allocated or not, are freed with it */
                }
                rb_sweep_grids_free(&g, n);
                return -ENOMEM;
            }
            g = more;
            n++;
        }
        p = end;
    }
    *out = g;
    *nout = n;
    return 0;
}

void rb_sweep_grids_free(rb_sweep_grid_t **g, uint32_t n)
{
    if (!g || !*g)
        return;
    for (uint32_t i = 0; i < n; i++) {
        free((*g)[i].rows);
        free((*g)[i].cols);
        free((*g)[i].cell);
    }
    free(*g);
    *g = NULL;
}

const rb_phase_agg_t *rb_sweep_cell(const rb_run_result_t *r, const rb_sweep_grid_t *g,
                                    uint32_t row, uint32_t col)
{
    uint32_t p = g->cell[row * g->stride + col];
    return p && p - 1 < r->nphases ? &r->phases[p - 1] : NULL;
}
