/* Pass/fail thresholds of a plan: an [acceptance] section and any number of
 * [acceptance NAME] sections, each a set of checks over some of the plan's
 * phases. After a run, every check of a set is judged on every phase the set
 * names, one row per check and phase (docs/plan.md, "Acceptance"). */
#ifndef RB_ACCEPT_H
#define RB_ACCEPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rb_aggregate.h"
#include "rb_err.h"
#include "rb_proto.h"

#define RB_ACCEPT_MAX_SETS 64 /* acceptance sections in one plan */

/* The checks, in the order they are printed and judged. */
typedef enum {
    RB_ACCEPT_MIN_AGGREGATE_BW, /* the phase's aggregate_bw, bytes/s */
    RB_ACCEPT_MIN_NODE_BW,      /* every node's bw, bytes/s; a node that did not complete is 0 */
    RB_ACCEPT_MAX_NODE_SPREAD,  /* (max - min) / median of the completed nodes' bw */
    RB_ACCEPT_MAX_P99_LAT,      /* latency p99 of the merged histogram, ns */
    RB_ACCEPT_MAX_P999_LAT,     /* p99.9, ns */
    RB_ACCEPT_MAX_MEAN_LAT,     /* mean, ns */
    RB_ACCEPT_MIN_IOPS,         /* the phase's iops, operations/s */
    RB_ACCEPT_MIN_NODES,        /* nodes whose status in the phase is ok */
    RB_ACCEPT_MAX_ERRORS,       /* errors + verify_errors of the phase */
    RB_ACCEPT_NCHECKS
} rb_accept_check_t;

/* One acceptance section. Limits are kept exactly as written: bytes/s, ns,
 * millionths for the spread (25% = 250000), whole numbers for the rest. */
typedef struct rb_accept_set {
    char name[RB_NAME_MAX];                 /* NAME of [acceptance NAME]; "" for [acceptance] */
    unsigned line;                          /* line of its section header */
    uint64_t limit[RB_ACCEPT_NCHECKS];      /* each check's limit ... */
    unsigned limit_line[RB_ACCEPT_NCHECKS]; /* ... and its line; 0: the check is not set */
    char *phases_text;                      /* phases= as written (owned); NULL: every phase */
    unsigned phases_line;                   /* line of phases= (0: not given) */
    uint32_t nphases;                       /* phases the set judges, once resolved ... */
    uint32_t *phases;                       /* ... their indexes in the plan, ascending (owned) */
} rb_accept_set_t;

typedef struct rb_accept {
    char *source;          /* names the plan in messages (owned) */
    uint32_t nsets;        /* sections read */
    rb_accept_set_t *sets; /* nsets entries (owned), in plan order */
} rb_accept_t;

/* A new, empty description for the plan named source; NULL when out of memory. */
rb_accept_t *rb_accept_new(const char *source);

/* Frees a description and nulls the pointer; safe on NULL and twice. */
void rb_accept_destroy(rb_accept_t **p);

/* The set name when section (a section header's text, trimmed, without the
 * brackets) is "acceptance" ("") or "acceptance NAME" (NAME); else NULL. */
const char *rb_accept_section(const char *section);

/* Starts the set of section [acceptance NAME] ("" for [acceptance]) read at
 * line. Returns 0, -EINVAL (bad or repeated name, too many sets) or -ENOMEM,
 * with err->msg "SOURCE:LINE: what is wrong". */
int rb_accept_begin(rb_accept_t *a, const char *name, unsigned line, rb_err_t *err);

/* Reads key=val (val NULL for a bare word) at line into the current set.
 * Returns 0, -EINVAL naming the key and the line, or -ENOMEM. */
int rb_accept_option(rb_accept_t *a, const char *key, const char *val, unsigned line,
                     rb_err_t *err);

/* Ends the current set: -EINVAL when it has no checks. */
int rb_accept_end(rb_accept_t *a, rb_err_t *err);

/* Once the plan's phases are known, maps each set's phases= to phase indexes
 * (a phase name, a job name, or a metadata job's name for all its steps) and
 * checks that every check applies somewhere. 0, -EINVAL or -ENOMEM. */
int rb_accept_resolve(rb_accept_t *a, const rb_phase_spec_t *phases, uint32_t nphases,
                      rb_err_t *err);

/* Marks in hit[] (nphases entries) the phases one phases= entry names: the
 * phase of that name, else the phase of the job of that name, else every
 * step of the metadata job of that name ("J" for "J.create", "J.stat", ...).
 * Returns how many; 0 when the name is none of these. */
uint32_t rb_accept_match_phases(const char *name, const rb_phase_spec_t *phases, uint32_t nphases,
                                bool *hit);

/* Writes every set as a plan section, normalised (phases by phase name, limits
 * exact); parsing it back gives the same sets. Returns 0 or -EIO. */
int rb_accept_print(const rb_accept_t *a, const rb_phase_spec_t *phases, uint32_t nphases, FILE *f);

/* The check's key in a plan ("min_aggregate_bw"), and the unit of its limit
 * and measured value in summary.json ("B/s", "%", "us", "ops/s", "nodes", "errors"). */
const char *rb_accept_check_name(rb_accept_check_t c);
const char *rb_accept_check_unit(rb_accept_check_t c);

/* 1 for the checks that pass at or above their limit (min_*), 0 for max_*. */
int rb_accept_check_is_min(rb_accept_check_t c);

typedef enum {
    RB_ACCEPT_PASS = 0,
    RB_ACCEPT_FAIL,
    RB_ACCEPT_NA /* does not apply: a bandwidth check on a metadata step */
} rb_accept_verdict_t;

/* One check judged on one phase. Names are borrowed from the description and
 * the phase specs given to rb_accept_eval, which must outlive the result. */
typedef struct rb_accept_row {
    const char *set;             /* the set's name, "" for [acceptance] */
    rb_accept_check_t check;     /* what is checked */
    const char *phase;           /* the phase's name */
    double limit;                /* in the unit of rb_accept_check_unit */
    double measured;             /* same unit; NAN when nothing could be measured */
    rb_accept_verdict_t verdict; /* pass, fail or n/a */
    const char *note;            /* why measured is missing, partial or n/a (static); or NULL */
} rb_accept_row_t;

typedef struct rb_accept_result {
    uint32_t nrows;
    rb_accept_row_t *rows; /* nrows entries (owned): set, then phase, then check order */
    uint32_t nfailed;      /* rows that failed */
    uint32_t nna;          /* rows that do not apply */
} rb_accept_result_t;

/* Judges every set on the run: specs are the plan's nphases phases, aggs the
 * figures of the first nrun of them (the phases that ran; a phase not run
 * fails every check with nothing measured). out is the caller's and released
 * with rb_accept_result_fini. Returns 0 or -ENOMEM. */
int rb_accept_eval(const rb_accept_t *a, const rb_phase_spec_t *specs, uint32_t nphases,
                   const rb_phase_agg_t *aggs, uint32_t nrun, rb_accept_result_t *out);

/* Frees what r owns; safe twice. */
void rb_accept_result_fini(rb_accept_result_t *r);

/* Writes "acceptance: PASS (N checks)" or "acceptance: FAIL (k of N checks
 * failed)" into buf, N counting the rows that apply; returns buf. */
char *rb_accept_verdict(const rb_accept_result_t *r, char *buf, size_t len);

/* A limit or measured value of check c (in its summary.json unit) for
 * people: "1.22 GiB/s (1.31 GB/s)", "457 us", "25.0%", "-" for NAN. */
void rb_accept_value_text(char *buf, size_t len, rb_accept_check_t c, double v);

/* Checks a phases= list: comma-separated names (A-Z a-z 0-9 . _ -), none
 * empty, none twice. 0, or -EINVAL with the reason in why. */
int rb_accept_phase_list_check(const char *val, char *why, size_t whylen);

#endif
