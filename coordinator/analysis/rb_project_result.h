/* A run's projection to N racks of the unit a plan's [capacity] section
 * describes (rb_project.h): lines labelled measured or projected, each with
 * its source, and their renderings in summary.json and report.txt. Apart
 * from the description so that the plan layer needs no aggregator. */
#ifndef RB_PROJECT_RESULT_H
#define RB_PROJECT_RESULT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rb_aggregate.h"
#include "rb_json.h"
#include "rb_plan.h"
#include "rb_project.h"
#include "rb_units.h"

typedef enum {
    RB_PROJECT_MEASURED = 0, /* a figure this run measured */
    RB_PROJECT_PROJECTED, /* arithmetic on measured or given figures and the unit's description */
    RB_PROJECT_GIVEN      /* a figure typed into the plan (usable_per_unit: what df showed) */
} rb_project_kind_t;

#define RB_PROJECT_LABEL_MAX 48
#define RB_PROJECT_NOTES_MAX 8

/* One line of the projection. */
typedef struct rb_project_line {
    char label[RB_PROJECT_LABEL_MAX];   /* "usable capacity per rack" */
    double value;                       /* in unit; NAN when nothing could be measured */
    const char *unit;                   /* "B", "B/s", "ops/s", "units" or "racks" (static) */
    rb_project_kind_t kind;             /* measured or projected */
    char source[RB_PROJECT_SOURCE_MAX]; /* where the value comes from, in words */
    const char *phase;                  /* the phase measured (borrowed), NULL for capacity */
    uint32_t iterations; /* a measured line of a repeated phase: the iterations averaged; else 0 */
    double min, max, stdev; /* ... their spread: the least, the most, the sample stdev */
} rb_project_line_t;

typedef struct rb_project_result {
    const rb_project_t *unit;     /* the description (borrowed) */
    const rb_phase_spec_t *specs; /* the plan's phases (borrowed), for names */
    uint32_t nlines;
    rb_project_line_t *lines; /* nlines entries (owned): capacity, then phase by phase */
    uint32_t nnotes;
    char notes[RB_PROJECT_NOTES_MAX][RB_PROJECT_SOURCE_MAX]; /* what was left out, and why */
} rb_project_result_t;

/* Works out the projection of description p from a run: specs are the plan's
 * nphases phases (iters their iterations, or NULL), aggs the figures of the
 * first nrun of them. A phase's measured throughput (and IOPS) per unit is
 * the median of the nodes that completed it (one node is one unit); a
 * repeated phase is projected once, from the mean of its iterations' median
 * nodes, with their spread. out is the caller's, released with
 * rb_project_result_fini; all zero when p is NULL. fs_bytes (nfs entries,
 * NULL: none known) is each node's file systems' size as its agent measured
 * them (statvfs of its roots): the median is shown beside usable capacity,
 * and the raw disks of the phases beside disk_size, each flagged when it is
 * not what the plan gives. Returns 0 or -ENOMEM. */
int rb_project_result_eval(const rb_project_t *p, const rb_phase_spec_t *specs,
                           const rb_plan_iter_t *iters, uint32_t nphases,
                           const rb_phase_agg_t *aggs, uint32_t nrun, const double *fs_bytes,
                           uint32_t nfs, rb_project_result_t *out);

/* A node's file systems' size as its HELLO gives it: the sum over its
 * roots of statvfs's total (0 for NULL), an entry of fs_bytes above. */
double rb_project_fs_bytes(const rb_host_t *h);

/* Frees what r owns; safe twice. */
void rb_project_result_fini(rb_project_result_t *r);

/* Writes the member "projection" of summary.json: null when r is NULL or has
 * no description, else {"unit": {...}, "lines": [...], "notes": [...]}. */
void rb_project_result_json(rb_jw_t *w, const rb_project_result_t *r);

/* A line's value for people ("568 TB", "12.0 GB/s", "2 racks", "-"), and
 * "measured" / "projected". */
const char *rb_project_result_line_value(char *buf, size_t len, const rb_project_line_t *l);
const char *rb_project_result_kind_name(rb_project_kind_t k);

/* Writes the "projection" section of report.txt (nothing when r is NULL or
 * has no description), its values in style st, its sources wrapped within
 * RB_TEXT_WIDTH columns. */
void rb_project_result_text(FILE *f, const rb_project_result_t *r, rb_units_style_t st);

#endif
