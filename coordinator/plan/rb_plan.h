/* Workload plans in fio's job-file syntax: [global] plus one section per job,
 * key=value or bare flags, ';' and '#' comments, fio's units. Jobs run
 * together; a job with `stonewall` starts a new phase that begins only when
 * every earlier job has finished on every agent. An option rackbench does not
 * support is an error that names the option and its line; a fio option that
 * only tunes fio's own machinery or reports is accepted with a note. */
#ifndef RB_PLAN_H
#define RB_PLAN_H

#include <stdint.h>
#include <stdio.h>

#include "rb_err.h"
#include "rb_proto.h"

#define RB_PLAN_MAX_BYTES (1u << 20) /* a plan file larger than this is refused */

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

typedef struct rb_plan {
    char *source;                /* file path or label used in messages */
    char *text;                  /* the plan as read (NUL-terminated) */
    uint64_t interval_ns;        /* sample_interval (default 1 s) */
    char directory[RB_PATH_MAX]; /* [global] directory, "" if unset (used by --local) */
    uint32_t nphases;
    rb_phase_spec_t *phases; /* nphases entries, each with its jobs */
    char *notes; /* "SOURCE:LINE: option 'x' is ignored: why" lines, each ending in '\n',
                  * for fio options accepted without effect; NULL if none */
    uint32_t nracks;
    rb_plan_rack_t *racks;      /* [rack NAME] sections, in plan order (owned) */
    struct rb_accept *accept;   /* [acceptance] sections (rb_accept.h), owned; NULL if none */
    struct rb_project *project; /* the [capacity] section (rb_project.h), owned; NULL if none */
} rb_plan_t;

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
