/* The readers and prints of fio's flow (a weight) and wait_for (a job
 * named earlier), and wait_for settled against the jobs read so far. What
 * they mean is in docs/plan.md; the agent keeps the flows' counters and
 * holds a waiting job's workers (agent/job/rb_phase.c). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rb_names.h"
#include "rb_plan_int.h"

/* flow=N: fio reads an int no larger than 1000 into an unsigned weight, so a
 * negative value is a weight that wraps (butterfly.fio's 2 and -2 add to 0). */
int rb_opt_value_flow(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *key,
                      const char *val, unsigned line)
{
    (void)opt;
    long long v;
    if (rb_opt_whole(val, INT32_MIN, 1000, &v) < 0)
        return rb_plan_fail(ps, line, "bad %s=%.64s: a whole number up to 1000 (a weight; 0: none)",
                            key, val);
    o->spec.flow = (uint32_t)(int32_t)v;
    return 0;
}

void rb_opt_print_flow(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    if (js->flow)
        fprintf(f, "%s=%" PRId32 "\n", opt->key, (int32_t)js->flow);
}

/* wait_for=NAME: kept as written; rb_opt_value_wait_for_settle looks it up. */
int rb_opt_value_wait_for(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                          const char *key, const char *val, unsigned line)
{
    (void)opt;
    size_t len = strlen(val);
    if (len >= sizeof o->spec.wait_for)
        return rb_plan_fail(ps, line, "%s=%.40s...: a job name is at most %zu characters", key, val,
                            sizeof o->spec.wait_for - 1);
    for (size_t i = 0; i < len; i++) /* as the job's own name is kept */
        o->spec.wait_for[i] = rb_names_char(val[i]) ? val[i] : '_';
    o->spec.wait_for[len] = '\0';
    return 0;
}

/* net_target=NODE: a node's name, as an agent's --name takes it; the run
 * finds it among its nodes. */
int rb_opt_value_net_target(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                            const char *key, const char *val, unsigned line)
{
    (void)opt;
    size_t len = strlen(val);
    if (!len || len >= sizeof o->spec.net_target)
        return rb_plan_fail(ps, line, "%s=%.40s: a node name of 1 to %zu characters", key, val,
                            sizeof o->spec.net_target - 1);
    for (size_t i = 0; i < len; i++)
        if (!rb_names_char(val[i]))
            return rb_plan_fail(ps, line, "%s=%.64s: '%c' is not in a node name", key, val, val[i]);
    memcpy(o->spec.net_target, val, len + 1);
    return 0;
}

int rb_opt_value_wait_for_settle(rb_plan_parser_t *ps, const rb_plan_job_t *o)
{
    const char *w = o->spec.wait_for;
    if (!w[0])
        return 0;
    unsigned line = rb_plan_job_line(o, "wait_for");
    if (!strcmp(w, o->spec.name))
        return rb_plan_fail(ps, line, "wait_for=%s: job '%s' cannot wait for itself", w, w);
    for (uint32_t p = ps->nphases; p-- > 0;) {
        const rb_phase_spec_t *ph = &ps->phases[p];
        for (uint32_t j = 0; j < ph->njobs; j++)
            if (!strcmp(ph->jobs[j].name, w))
                return 0; /* in this job's phase it waits; in an earlier one it has ended */
    }
    return rb_plan_fail(ps, line,
                        "wait_for=%s: no job '%s' before this one (as in fio, the job waited "
                        "for comes earlier in the file)",
                        w, w);
}
