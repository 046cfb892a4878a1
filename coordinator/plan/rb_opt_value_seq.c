/* The option readers of how a job's offsets follow one another: rw's
 * modifier (fio's rw=write:4k, rw=read:-8k, rw=randread:8), rw_sequencer,
 * percentage_random / percentage_sequential and blockalign (per direction);
 * zonemode is in rb_plan_zones.c. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rb_plan_int.h"
#include "rb_units.h"

/* rw=NAME:MOD: for a random pattern MOD is fio's count (a new random offset
 * every MOD IOs), for a sequential one a size skipped after each IO, or
 * with a minus gone back by (backwards). */
int rb_opt_value_rw_modifier(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                             const char *key, const char *val, unsigned line)
{
    const char *colon = strchr(val, ':');
    char name[32];
    size_t len = (size_t)(colon - val);
    if (len >= sizeof name)
        return rb_plan_fail(ps, line, "bad value '%.64s' for %s", val, key);
    memcpy(name, val, len);
    name[len] = '\0';
    size_t i = 0;
    while (i < opt->nnames && strcmp(opt->names[i].name, rb_text_trim(name)))
        i++;
    rb_job_spec_t *js = &o->spec;
    if (i == opt->nnames || opt->names[i].value == RB_RW_META)
        return rb_plan_fail(ps, line,
                            "%s=%.64s is not supported yet (a modifier after a data "
                            "pattern: write:4k, read:-8k, randread:8)",
                            key, val);
    js->rw = (rb_rw_t)opt->names[i].value;
    const char *mod = colon + 1;
    uint64_t v = 0;
    if (rb_rw_random(js->rw)) {
        if (rb_units_parse_count(mod, 1, UINT32_MAX, &v) < 0)
            return rb_plan_fail(ps, line,
                                "%s=%.64s: bad count '%.32s' (a new random offset every N IOs, "
                                "1 .. 4294967295)",
                                key, val, mod);
        js->seq_nr = (uint32_t)v;
        return 0;
    }
    bool back = *mod == '-';
    int rc = rb_opt_value_size(ps, line, key, back ? mod + 1 : mod, true, &v);
    if (rc < 0)
        return rc;
    js->seq_add = v;
    js->seq_back = back && v;
    return 0;
}

/* rw_sequencer: what the IOs between two random offsets do. */
int rb_opt_value_rw_sequencer(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                              const char *key, const char *val, unsigned line)
{
    (void)opt;
    if (strcmp(val, "sequential") && strcmp(val, "identical"))
        return rb_plan_fail(ps, line, "bad value '%.64s' for %s (sequential or identical)", val,
                            key);
    o->spec.seq_identical = !strcmp(val, "identical");
    return 0;
}

/* percentage_random=R[,W[,T]] and percentage_sequential (its complement):
 * the share of a random job's IOs, per direction, at a random offset. */
int rb_opt_value_percentage_random(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                                   const char *key, const char *val, unsigned line)
{
    char buf[256];
    const char *part[3];
    uint64_t v[3];
    bool seq = !strcmp(opt->key, "percentage_sequential");
    int rc = rb_opt_value_per_dir(ps, line, key, val, buf, sizeof buf, part);
    for (int d = 0; rc == 0 && d < 3; d++) {
        v[d] = seq ? 0 : 100;
        if (*part[d])
            rc = rb_opt_value_uint(ps, line, key, part[d], 0, 100, &v[d]);
    }
    if (rc < 0)
        return rc;
    o->spec.perc_seq_read = (uint32_t)(seq ? v[0] : 100 - v[0]);
    o->spec.perc_seq_write = (uint32_t)(seq ? v[1] : 100 - v[1]);
    o->spec.perc_seq_trim = (uint32_t)(seq ? v[2] : 100 - v[2]);
    return 0;
}

/* blockalign / ba=R[,W[,T]]: random offsets are multiples of it (an empty
 * part: bs). */
int rb_opt_value_blockalign(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                            const char *key, const char *val, unsigned line)
{
    (void)opt;
    char buf[256];
    const char *part[3];
    uint64_t v[3] = {0, 0, 0};
    int rc = rb_opt_value_per_dir(ps, line, key, val, buf, sizeof buf, part);
    for (int d = 0; rc == 0 && d < 3; d++)
        if (*part[d])
            rc = rb_opt_value_size(ps, line, key, part[d], false, &v[d]);
    if (rc < 0)
        return rc;
    o->spec.ba_read = v[0];
    o->spec.ba_write = v[1];
    o->spec.ba_trim = v[2];
    return 0;
}

/* random_generator: fio's tausworthe, lfsr or tausworthe64. rackbench draws
 * with its own generator whatever it says; lfsr's promise, no offset twice
 * in a pass, is kept (rb_plan_job.c: the random map stays). */
int rb_opt_value_random_generator(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                                  const char *key, const char *val, unsigned line)
{
    (void)opt;
    if (strcmp(val, "tausworthe") && strcmp(val, "lfsr") && strcmp(val, "tausworthe64"))
        return rb_plan_fail(ps, line, "bad value '%.64s' for %s (tausworthe, lfsr or tausworthe64)",
                            val, key);
    o->lfsr = !strcmp(val, "lfsr");
    return 0;
}
