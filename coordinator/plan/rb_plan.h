/* Workload plans in fio's job-file syntax: [global] plus one section per job,
 * key=value or bare flags, ';' and '#' comments, fio's units. Jobs run
 * together; a job with `stonewall` starts a new phase that begins only when
 * every earlier job has finished on every agent. An option rackbench does not
 * support is an error that names the option and its line; a fio option that
 * only tunes fio's own machinery or reports is accepted with a note. */
#ifndef RB_PLAN_H
#define RB_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rb_err.h"
#include "rb_proto.h"

#define RB_PLAN_MAX_BYTES (1u << 20) /* a plan file larger than this is refused */

/* What a plan may grow to once its includes, variables and command-line
 * lines are in place (rb_plan_source.c): past any of these, or at an
 * include that fails, the plan is read no further and is refused. */
#define RB_PLAN_MAX_EXPANDED      (64u << 20) /* bytes of the expanded text */
#define RB_PLAN_MAX_LINES         (4u << 20)  /* its lines */
#define RB_PLAN_MAX_INCLUDES      1024u       /* include lines read, in all files together */
#define RB_PLAN_MAX_INCLUDE_DEPTH 16u         /* includes within includes (a loop ends here) */

struct rb_accept;
struct rb_project;

#define RB_PLAN_MAX_RACKS      4096  /* [rack NAME] sections */
#define RB_PLAN_MAX_RACK_NODES 65536 /* nodes listed in all of them */

/* A [rack NAME] section: the nodes of one rack. */
typedef struct rb_plan_rack {
    char name[RB_NAME_MAX];
    unsigned line; /* of its section header */
    uint32_t nnodes;
    char (*nodes)[RB_NAME_MAX]; /* nnodes names (owned) */
} rb_plan_rack_t;

/* Where a phase stands among the repetitions of iterations=N: its copies
 * are phases of their own (named "NAME#1" .. "NAME#N"), run one after the
 * other (or, with iterate=plan, once per round of the whole plan). */
typedef struct rb_plan_iter {
    uint32_t group;          /* index of the phase's first iteration */
    uint32_t iteration;      /* 0 .. iterations-1 */
    uint32_t iterations;     /* N (1: not repeated) */
    char base[RB_NAME_MAX];  /* the phase's name without "#k" */
    char sweep[RB_NAME_MAX]; /* the job whose sweep_* made the phase ("": none) */
} rb_plan_iter_t;

/* sample_interval=auto: each phase's interval, chosen at its GO, lies in
 * [MIN, MAX] (about a hundred intervals over the phase's expected length). */
#define RB_PLAN_AUTO_INTERVAL_MIN_NS (100ull * 1000000ull)
#define RB_PLAN_AUTO_INTERVAL_MAX_NS 1000000000ull

/* A job's fio logs (write_bw_log, write_iops_log, write_lat_log,
 * write_hist_log and the options that shape them): the coordinator writes
 * them into the run folder from samples.csv and latency.csv, so they stay in
 * the plan and never go to an agent. */
typedef struct rb_plan_log {
    char job[RB_NAME_MAX];  /* the job's name */
    uint32_t number;        /* the job's number in the plan, 1 .. : fio's x of NAME_bw.x.log */
    char bw[RB_NAME_MAX];   /* write_bw_log's prefix; "" for no bandwidth log */
    char iops[RB_NAME_MAX]; /* write_iops_log's; "" for none */
    char lat[RB_NAME_MAX];  /* write_lat_log's (its lat, slat and clat logs); "" for none */
    char hist[RB_NAME_MAX]; /* write_hist_log's (clat histograms); "" for none */
    uint64_t avg_ms;        /* log_avg_msec: the window (0: each sample interval) */
    uint64_t hist_ms;       /* log_hist_msec: the histograms' window (0: none, as fio) */
    uint32_t coarseness;    /* log_hist_coarseness: 2^c of fio's bins summed in a column */
    uint64_t bs[3];         /* per direction, the job's one block size; 0 when it varies */
    bool max_value;         /* log_max_value: a window's largest value, not its mean */
    bool offset;            /* log_offset: fio's offset column (0 in windowed entries) */
    bool unix_epoch;        /* log_unix_epoch: times in ms since the epoch */
    bool per_job;           /* per_job_logs: ".x" in the file names */
} rb_plan_log_t;

typedef struct rb_plan {
    char *source;                /* file path or label used in messages */
    char *text;                  /* the plan as read (NUL-terminated) */
    uint64_t interval_ns;        /* sample_interval; with interval_auto, the longest (1 s) */
    uint8_t interval_auto;       /* sample_interval=auto (the default): chosen per phase */
    char directory[RB_PATH_MAX]; /* [global] directory, "" if unset (used by --local) */
    uint32_t nphases;
    rb_phase_spec_t *phases; /* nphases entries, each with its jobs */
    rb_plan_iter_t *iters;   /* nphases entries: each phase's iteration (owned) */
    bool iterate_plan;       /* iterate=plan: the whole plan repeats, not each phase */
    bool host_keywords;      /* a value used $ncpus, $mb_memory or $pagesize: this machine's */
    char *notes; /* "SOURCE:LINE: option 'x' is ignored: why" lines, each ending in '\n',
                  * for fio options accepted without effect; NULL if none */
    uint32_t nracks;
    rb_plan_rack_t *racks;      /* [rack NAME] sections, in plan order (owned) */
    struct rb_accept *accept;   /* [acceptance] sections (rb_accept.h), owned; NULL if none */
    struct rb_project *project; /* the [capacity] section (rb_project.h), owned; NULL if none */
    uint32_t nlogs;
    rb_plan_log_t *logs; /* the jobs that write fio's logs, in plan order (owned) */
    /* the file as written, before includes, ${VAR}, $keywords and --set
     * (what the live page shows; NUL-terminated), beside text as read */
    char *written;
} rb_plan_t;

/* What a plan is read with besides its text, as fio's command line gives
 * it: --set options and --section names; and where every problem of the
 * plan goes. Caller memory; rb_plan_input_fini frees what the parser put in. */
typedef struct rb_plan_input {
    const char *const *sets;      /* "key=value" lines put at the end of each [global] */
    uint32_t nsets;               /* ... (or in a [global] of their own before the first job) */
    const char *const *overrides; /* "key=value" lines put at the end of each job section, */
    uint32_t noverrides;          /* after the job's own (--override: they win over them) */
    const char *const *vars;      /* "NAME=value": what ${NAME} is in the plan, before */
    uint32_t nvars;               /* the environment (--var) */
    const char *const *sections;  /* only these job sections run (--section); */
    uint32_t nsections;           /* 0: all of them */
    uint32_t max_expanded;        /* bytes the expanded text may reach: a caller may */
                                  /* lower RB_PLAN_MAX_EXPANDED (0), never raise it */
    char *problems;               /* out: every problem, one "FILE:LINE: what" line each */
    uint32_t nproblems;           /* out: how many (the first is also in err) */
} rb_plan_input_t;

/* Frees what a parse put in in (its problems); safe on NULL and twice. */
void rb_plan_input_fini(rb_plan_input_t *in);

/* As rb_plan_parse, with in's --set options and --section names; path (or
 * NULL) is where includes are found from. Every problem of the plan is read
 * in one pass: in->problems lists them all, err holds the first. */
int rb_plan_parse_input(const char *text, size_t len, const char *source, const char *path,
                        rb_plan_input_t *in, rb_plan_t **out, rb_err_t *err);

/* As rb_plan_load, with in as for rb_plan_parse_input. */
int rb_plan_load_input(const char *path, rb_plan_input_t *in, rb_plan_t **out, rb_err_t *err);

/* Parses len bytes of plan text; source names it in messages. On success
 * *out is a new plan the caller destroys. On failure returns -EINVAL (or
 * -ENOMEM) with err->msg "SOURCE:LINE: what is wrong" and *out untouched. */
int rb_plan_parse(const char *text, size_t len, const char *source, rb_plan_t **out, rb_err_t *err);

/* Reads the file at path and parses it. -ENOENT etc. with the path named, or as rb_plan_parse. */
int rb_plan_load(const char *path, rb_plan_t **out, rb_err_t *err);

/* Frees a plan (notes included) and nulls the pointer; safe on NULL and twice. */
void rb_plan_destroy(rb_plan_t **p);

/* Writes the plan normalised: every job with every option explicit, phases
 * marked by stonewall, sizes in exact units, then the acceptance sections
 * and the [capacity] section.
 * Re-parsing the output gives the same plan. Returns 0 or -errno. */
int rb_plan_print(const rb_plan_t *p, FILE *f);

/* The rack a [rack NAME] section puts node in, or NULL. */
const char *rb_plan_rack_of(const rb_plan_t *p, const char *node);

/* Makes the plan's relative directories absolute against the current
 * folder, as fio reads them, for agents started here (which would resolve a
 * relative path against their root). 0, or -errno with err saying why. */
int rb_plan_absolute_dirs(rb_plan_t *p, rb_err_t *err);

/* Total workers of a phase on one agent (sum of numjobs). */
uint32_t rb_plan_phase_workers(const rb_phase_spec_t *ph);

#endif
