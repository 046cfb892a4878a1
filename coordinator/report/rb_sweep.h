/* The grids of a run's sweeps: the phases one job's sweep_* lists made, per
 * rw swept, laid out as fio-plot's bench-fio studies are read (block size
 * down, queue depth with the count of workers across), for report.txt's
 * matrices and report.html's heat maps alike. */
#ifndef RB_SWEEP_H
#define RB_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "rb_report.h"

typedef struct rb_sweep_grid {
    const char *sweep;   /* the swept job's name (borrowed from the result's iters) */
    rb_rw_t rw;          /* the access pattern of its phases */
    uint32_t iterations; /* iterations of each phase (a cell is the first) */
    bool jobs_vary;      /* numjobs is swept: columns say it */
    uint32_t nrows;      /* block sizes ... */
    uint64_t *rows;      /* ... in the plan's order (owned) */
    uint32_t ncols;      /* numjobs and iodepth pairs ... */
    uint64_t *cols;      /* ... as numjobs << 32 | iodepth, in the plan's order (owned) */
    uint32_t stride;     /* entries of cell per row */
    uint32_t *cell;      /* [row * stride + col]: the phase + 1; 0: no such phase (owned) */
} rb_sweep_grid_t;

/* The grids of r's sweeps, in plan order, one per sweep and rw, into *out
 * (*n of them; caller frees with rb_sweep_grids_free). 0 or -ENOMEM. */
int rb_sweep_grids(const rb_run_result_t *r, rb_sweep_grid_t **out, uint32_t *n);

/* Frees n grids and nulls *g; safe on NULL. */
void rb_sweep_grids_free(rb_sweep_grid_t **g, uint32_t n);

/* The phase of a cell that ran (its aggregate), or NULL: none or not run. */
const rb_phase_agg_t *rb_sweep_cell(const rb_run_result_t *r, const rb_sweep_grid_t *g,
                                    uint32_t row, uint32_t col);

#endif
