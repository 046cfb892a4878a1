/* The helpers test_project.c and test_project_runs.c share: a plan of two
 * data phases and a metadata job with a [capacity] section after them,
 * hand-made figures of a phase, and finding a projection's lines. */
#ifndef TEST_PROJECT_H
#define TEST_PROJECT_H

#include <stdbool.h>
#include <stdint.h>

#include "rb_aggregate.h"
#include "rb_plan.h"
#include "rb_project_result.h"
#include "rb_report.h"

#define TB 1e12
#define GB 1e9

/* Hand-made figures of one phase: per-node bandwidths and statuses. */
typedef struct {
    rb_phase_agg_t agg;
    rb_agg_node_t nodes[8];
} tp_phase_t;

/* The plan text (with a [capacity] section) as "t.ini"; fails the test
 * when it is refused. The caller destroys it. */
rb_plan_t *tp_plan(const char *text);

/* The plan of the two data phases seqwrite and seqread and the metadata
 * job md, then tail (its first line is line 12); fails the test when it is
 * refused. The caller destroys it. */
rb_plan_t *tp_parse(const char *tail);

/* Fills ph as phase name on nnodes nodes of the given bandwidths (status
 * NULL: every node ok). */
void tp_phase(tp_phase_t *ph, const char *name, const double *node_bw,
              const rb_node_status_t *status, uint32_t nnodes);

/* The line of that label (and phase, NULL for a capacity line): NULL when
 * there is none (tp_find), a failed test (tp_line). */
const rb_project_line_t *tp_find(const rb_project_result_t *r, const char *phase,
                                 const char *label);
const rb_project_line_t *tp_line(const rb_project_result_t *r, const char *phase,
                                 const char *label);

/* Asserts a line's value, kind and that its source has source_has (NULL:
 * anything). */
void tp_expect(const rb_project_result_t *r, const char *phase, const char *label, double value,
               rb_project_kind_t kind, const char *source_has);

/* text with its wrapped lines joined and runs of spaces squeezed; the
 * caller frees. */
char *tp_squeeze(const char *text);

/* report.txt (summary.json with json) of res; the caller frees. */
char *tp_render(const rb_run_result_t *res, bool json);

/* Expects a row of report.txt's projection table: its cells in order, the
 * source whole. */
void tp_expect_row(const char *text, const char *phase, const char *label, const char *value,
                   const char *kind, const char *source);

/* The cases of test_project_runs.c. */
void test_jackrabbit_m(void **state);
void test_iterations(void **state);
void test_random_iops(void **state);

#endif
