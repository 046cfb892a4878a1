/* A run judged against the plan's acceptance sets (rb_accept.h): one row per
 * check and phase, and the verdict. Kept apart from the description so that
 * the plan layer never needs the aggregator's figures. */
#ifndef RB_ACCEPT_RESULT_H
#define RB_ACCEPT_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "rb_accept.h"
#include "rb_aggregate.h"
#include "rb_plan.h"

typedef enum {
    RB_ACCEPT_PASS = 0,
    RB_ACCEPT_FAIL,
    RB_ACCEPT_NA /* does not apply: a bandwidth check on a metadata step */
} rb_accept_verdict_t;

/* One check judged on one phase. Names are borrowed from the description and
 * the phase specs given to rb_accept_result_eval, which must outlive the result. */
typedef struct rb_accept_row {
    const char *set;             /* the set's name, "" for [acceptance] */
    rb_accept_check_t check;     /* what is checked */
    const char *phase;           /* the phase's name */
    double limit;                /* in the unit of rb_accept_check_unit */
    double measured;             /* same unit; NAN when nothing could be measured */
    rb_accept_verdict_t verdict; /* pass, fail or n/a */
    const char *note;            /* why measured is missing, partial or n/a (static); or NULL */
    char what[RB_NAME_MAX + RB_PATH_MAX]; /* the disk measured, "NODE DEVICE"; "" none */
} rb_accept_row_t;

typedef struct rb_accept_result {
    uint32_t nrows;
    rb_accept_row_t *rows; /* nrows entries (owned): set, then phase, then check order */
    uint32_t nfailed;      /* rows that failed */
    uint32_t nna;          /* rows that do not apply */
} rb_accept_result_t;

/* Judges every set on the run: specs are the plan's nphases phases (iters
 * their iterations, or NULL), aggs the figures of the first nrun of them
 * (the phases that ran; a phase not run fails every check with nothing
 * measured). A set with iterations=mean judges a repeated phase once, on
 * the mean of its iterations' figures (the row named by its base name). out is the caller's and
 * released with rb_accept_result_fini. Returns 0 or -ENOMEM. */
int rb_accept_result_eval(const rb_accept_t *a, const rb_phase_spec_t *specs,
                          const rb_plan_iter_t *iters, uint32_t nphases, const rb_phase_agg_t *aggs,
                          uint32_t nrun, rb_accept_result_t *out);

/* Frees what r owns; safe twice. */
void rb_accept_result_fini(rb_accept_result_t *r);

/* Writes "acceptance: PASS (N checks)" or "acceptance: FAIL (k of N checks
 * failed)" into buf, N counting the rows that apply; returns buf. */
char *rb_accept_result_verdict(const rb_accept_result_t *r, char *buf, size_t len);

/* The row's note as people read it: the note, and the disk it names
 * ("the slowest disk: node1 sdb"), into buf; NULL when the row has no note. */
const char *rb_accept_row_note(const rb_accept_row_t *row, char *buf, size_t len);

/* A limit or measured value of check c (in its summary.json unit) for
 * people: "1.22 GiB/s (1.31 GB/s)", "457 us", "25.0%", "-" for NAN. */
void rb_accept_result_value_text(char *buf, size_t len, rb_accept_check_t c, double v);

#endif
