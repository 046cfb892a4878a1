/* Pass/fail thresholds of a plan: an [acceptance] section and any number of
 * [acceptance NAME] sections, each a set of checks over some of the plan's
 * phases (docs/plan.md, "Acceptance"). This is the plan's side: reading,
 * resolving and printing; rb_accept_result.h judges a run against it. */
#ifndef RB_ACCEPT_H
#define RB_ACCEPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rb_err.h"
#include "rb_proto.h"

#define RB_ACCEPT_MAX_SETS            64       /* acceptance sections in one plan */
#define RB_ACCEPT_SPREAD_ONE          1000000u /* max_node_spread limits are millionths: 25% = 250000 */
#define RB_ACCEPT_SUSTAINED_WINDOW_NS (10ull * 1000000000ull) /* min_sustained_bw's default */

/* The checks, in the order they are printed and judged. */
typedef enum {
    RB_ACCEPT_MIN_AGGREGATE_BW,  /* the phase's aggregate_bw, bytes/s */
    RB_ACCEPT_MIN_NODE_BW,       /* every node's bw, bytes/s; a node that did not complete is 0 */
    RB_ACCEPT_MAX_NODE_SPREAD,   /* (max - min) / median of the completed nodes' bw */
    RB_ACCEPT_MAX_P99_LAT,       /* latency p99 of the merged histogram, ns */
    RB_ACCEPT_MAX_P999_LAT,      /* p99.9, ns */
    RB_ACCEPT_MAX_MEAN_LAT,      /* mean, ns */
    RB_ACCEPT_MIN_IOPS,          /* the phase's iops, operations/s */
    RB_ACCEPT_MIN_NODES,         /* nodes whose status in the phase is ok */
    RB_ACCEPT_MAX_ERRORS,        /* errors + verify_errors of the phase */
    RB_ACCEPT_MIN_INTERVAL_BW,   /* the cluster's slowest sample interval, bytes/s */
    RB_ACCEPT_MIN_SUSTAINED_BW,  /* the cluster's slowest window of sustained_window_ns, bytes/s */
    RB_ACCEPT_MAX_STALL,         /* the longest stall finding, ns (0 when none) */
    RB_ACCEPT_MIN_DEVICE_BW,     /* every raw disk's bw, bytes/s (phases on raw devices) */
    RB_ACCEPT_MIN_DEVICE_IOPS,   /* every raw disk's iops */
    RB_ACCEPT_MAX_DEVICE_SPREAD, /* (max - min) / median of the raw disks' bw */
    RB_ACCEPT_MIN_LINK_BW,       /* every link's rate of a network phase, bytes/s */
    RB_ACCEPT_MIN_NODE_NET_BW,   /* every node's out and in of a network phase, bytes/s */
    RB_ACCEPT_MAX_LINK_SPREAD,   /* (max - min) / median of its links' rates */
    /* the run's drives, their health before and after it (not a phase's) */
    RB_ACCEPT_MAX_REALLOCATED_GROWTH,  /* reallocated sectors (grown defects) gained by a drive */
    RB_ACCEPT_MAX_PENDING_GROWTH,      /* pending sectors gained by a drive */
    RB_ACCEPT_MAX_MEDIA_ERRORS_GROWTH, /* media (uncorrected) errors gained by a drive */
    RB_ACCEPT_MAX_DRIVE_TEMPERATURE,   /* a drive's highest temperature read, degrees C */
    RB_ACCEPT_REQUIRE_SMART_PASS,      /* 1: no drive's own verdict may be failing */
    RB_ACCEPT_NCHECKS
} rb_accept_check_t;

/* One acceptance section. Limits are kept exactly as written: bytes/s, ns,
 * millionths for the spread (25% = 250000), whole numbers for the rest. */
typedef struct rb_accept_set {
    char name[RB_NAME_MAX];                 /* NAME of [acceptance NAME]; "" for [acceptance] */
    unsigned line;                          /* line of its section header */
    uint64_t limit[RB_ACCEPT_NCHECKS];      /* each check's limit ... */
    unsigned limit_line[RB_ACCEPT_NCHECKS]; /* ... and its line; 0: the check is not set */
    uint64_t sustained_window_ns;           /* min_sustained_bw's window (BW/WINDOW) */
    char *phases_text;                      /* phases= as written (owned); NULL: every phase */
    unsigned phases_line;                   /* line of phases= (0: not given) */
    bool iter_mean;                         /* iterations=mean: a repeated phase by its mean */
    unsigned iter_line;                     /* line of iterations= (0: worst, the default) */
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

/* 1 for the bandwidth checks, which do not apply to metadata steps; else 0. */
int rb_accept_check_is_bw(rb_accept_check_t c);

/* The checks of the run's drives (max_reallocated_growth ... require_smart_pass),
 * judged once for the run, not for each phase. */
bool rb_accept_check_is_run(rb_accept_check_t c);

/* Checks a phases= list: comma-separated names (A-Z a-z 0-9 . _ -), none
 * empty, none twice. 0, or -EINVAL with the reason in why. */
int rb_accept_phase_list_check(const char *val, char *why, size_t whylen);

#endif
