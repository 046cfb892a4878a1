/* The rules across the options of one job, on the job as it travels
 * (rb_job_spec_t, settled: sizes in bytes, bs_max set, metadata fields only
 * on rw=meta). The plan parser checks them once a job is read, naming the
 * line of an option involved. The wire decoder re-checks, on every PLAN,
 * the rules that hold of any job (rb_job_rules_check_wire, a part of the
 * same function); the rules of patterns and layouts it does not re-check yet
 * (docs/hacking.md says why). What only an agent can know (its roots,
 * memory, kernel) it checks itself. */
#ifndef RB_JOB_RULES_H
#define RB_JOB_RULES_H

#include "rb_proto.h"

/* Why a job breaks a rule. */
typedef struct rb_job_rule {
    char why[RB_REASON_MAX]; /* "job 'NAME': ..." for people (the wire part: the value) */
    const char *field;       /* the wire field at fault */
    const char *opts[2];     /* the plan options involved (NULL: none; the job's own line) */
} rb_job_rule_t;

/* Checks js against every rule, in a fixed order. Returns 0, or -EINVAL
 * with *out saying which rule the job breaks first. */
int rb_job_rules_check(const rb_job_spec_t *js, rb_job_rule_t *out);

/* The first part of rb_job_rules_check, the rules of any job, as the wire
 * decoder checks them (why names a value of field, not the job). */
int rb_job_rules_check_wire(const rb_job_spec_t *js, rb_job_rule_t *out);

#endif
