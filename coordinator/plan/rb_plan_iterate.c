/* iterations=N: the phases read, repeated as phases of their own, each
 * phase N times in a row or (iterate=plan) the whole plan round by round. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_plan_int.h"

/* A deep copy of phase src as iteration k of n: its jobs copied, its name
 * "NAME#k" when n > 1. */
static int s_copy_phase(rb_plan_parser_t *ps, rb_phase_spec_t *dst, const rb_phase_spec_t *src,
                        uint32_t k, uint32_t n, unsigned line)
{
    *dst = *src;
    dst->jobs = malloc((src->njobs ? src->njobs : 1) * sizeof *dst->jobs);
    if (!dst->jobs)
        return rb_plan_nomem(ps);
    memcpy(dst->jobs, src->jobs, src->njobs * sizeof *dst->jobs);
    for (uint32_t j = 0; j < dst->njobs; j++) /* IOR's -X -N: seed N + the iteration */
        dst->jobs[j].read_iteration = k;
    if (n > 1 && (size_t)snprintf(dst->name, sizeof dst->name, "%s#%u", src->name, k + 1) >=
                     sizeof dst->name) {
        free(dst->jobs);
        dst->jobs = NULL;
        dst->njobs = 0;
        return rb_plan_fail(ps, line,
                            "phase '%s' with iterations: '%s#%u' is longer than %d "
                            "characters",
                            src->name, src->name, n, RB_NAME_MAX - 1);
    }
    return 0;
}

int rb_plan_iterate(rb_plan_parser_t *ps, rb_plan_iter_t **out)
{
    uint32_t n = ps->nphases, total = 0, rounds = 1;
    for (uint32_t p = 0; p < n; p++) {
        uint32_t k = ps->ph_iter[p].n;
        unsigned line = ps->ph_iter[p].line;
        if (k > 1 && rb_phase_spec_is_meta(&ps->phases[p]) && !ps->iterate_plan)
            return rb_plan_fail(ps, line,
                                "metadata step '%s' with iterations=%u: its files must be made "
                                "again before it can repeat, so repeat the whole plan "
                                "(iterate=plan in [global])",
                                ps->phases[p].name, k);
        if (ps->iterate_plan && k != ps->ph_iter[0].n)
            return rb_plan_fail(ps, line ? line : ps->iterate_line,
                                "iterate=plan (line %u) repeats the whole plan, so every phase "
                                "needs the same iterations: '%s' has %u, '%s' has %u (set "
                                "iterations in [global])",
                                ps->iterate_line, ps->phases[0].name, ps->ph_iter[0].n,
                                ps->phases[p].name, k);
        total += k;
        if (total > RB_MAX_PHASES)
            return rb_plan_fail(ps, line ? line : ps->iterate_line,
                                "with iterations the plan has more than %u phases (phase '%s' "
                                "runs %u times)",
                                RB_MAX_PHASES, ps->phases[p].name, k);
    }
    if (ps->iterate_plan && n)
        rounds = ps->ph_iter[0].n;
    rb_plan_iter_t *iters = calloc(total ? total : 1, sizeof *iters);
    if (!iters)
        return rb_plan_nomem(ps);
    if (total == n) { /* nothing repeats */
        for (uint32_t p = 0; p < n; p++) {
            iters[p] = (rb_plan_iter_t){.group = p, .iteration = 0, .iterations = 1};
            memcpy(iters[p].base, ps->phases[p].name, sizeof iters[p].base);
            memcpy(iters[p].sweep, ps->ph_iter[p].sweep, sizeof iters[p].sweep);
        }
        *out = iters;
        return 0;
    }
    rb_phase_spec_t *phases = calloc(total, sizeof *phases);
    uint32_t *first = calloc(n, sizeof *first);
    if (!phases || !first) {
        free(phases);
        free(first);
        free(iters);
        return rb_plan_nomem(ps);
    }
    uint32_t m = 0;
    int rc = 0;
    for (uint32_t r = 0; r < rounds && rc == 0; r++) {
        for (uint32_t p = 0; p < n && rc == 0; p++) {
            uint32_t k = ps->ph_iter[p].n;
            uint32_t from = ps->iterate_plan ? r : 0, to = ps->iterate_plan ? r + 1 : k;
            for (uint32_t i = from; i < to && rc == 0; i++) {
                rc = s_copy_phase(ps, &phases[m], &ps->phases[p], i, k, ps->ph_iter[p].line);
                if (rc < 0)
                    break;
                if (i == 0)
                    first[p] = m;
                iters[m] = (rb_plan_iter_t){.group = first[p], .iteration = i, .iterations = k};
                memcpy(iters[m].base, ps->phases[p].name, sizeof iters[m].base);
                memcpy(iters[m].sweep, ps->ph_iter[p].sweep, sizeof iters[m].sweep);
                m++;
            }
        }
    }
    free(first);
    if (rc < 0) {
        rb_phase_specs_free(&phases, m);
        free(iters);
        return rc;
    }
    rb_phase_specs_free(&ps->phases, ps->nphases);
    ps->phases = phases;
    ps->nphases = total;
    ps->cap_phases = total;
    *out = iters;
    return 0;
}
