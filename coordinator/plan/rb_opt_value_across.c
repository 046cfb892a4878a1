/* The value readers of the options that look across nodes: whose data a
 * read job gets (read_from, IOR's -C, -Q and -Z), the seed of the random
 * choice (read_from_seed, IOR's -X), and how a shared file's regions lie
 * (layout). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rb_plan_int.h"
#include "rb_units.h"

/* read_from=self|neighbour|neighbor|shift:K|random → how many nodes on (0 =
 * self, RB_READ_RANDOM = the next in a random cycle). */
int rb_opt_value_read_from(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                           const char *key, const char *val, unsigned line)
{
    (void)opt;
    uint32_t *shift = &o->spec.read_shift;
    if (!strcmp(val, "self")) {
        *shift = 0;
        return 0;
    }
    if (!strcmp(val, "neighbour") || !strcmp(val, "neighbor")) {
        *shift = 1;
        return 0;
    }
    if (!strcmp(val, "random")) {
        *shift = RB_READ_RANDOM;
        return 0;
    }
    if (!strncmp(val, "shift:", 6)) {
        uint64_t k;
        const char *v = val + 6;
        if (rb_units_parse_size(v, &k) == 0 && strspn(v, "0123456789") == strlen(v) &&
            k < UINT32_MAX) {
            *shift = (uint32_t)k;
            return 0;
        }
    }
    return rb_plan_fail(ps, line,
                        "%s=%.64s: expected self, neighbour, shift:K (K nodes further on) or "
                        "random",
                        key, val);
}

/* read_from_seed=N: a whole number; negative, IOR's -X -N: the seed is N's
 * magnitude plus the iteration (read_reseed). */
int rb_opt_value_read_from_seed(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                                const char *key, const char *val, unsigned line)
{
    (void)opt;
    const char *v = val + (val[0] == '-');
    uint64_t n = 0;
    if (!*v || strspn(v, "0123456789") != strlen(v))
        return rb_plan_fail(ps, line,
                            "%s=%.64s: expected a whole number (negative: reseeded "
                            "with each iteration, as IOR's -X)",
                            key, val);
    for (; *v; v++) {
        if (n > (INT64_MAX - (uint64_t)(*v - '0')) / 10)
            return rb_plan_fail(ps, line, "%s=%.64s is too large", key, val);
        n = n * 10 + (uint64_t)(*v - '0');
    }
    o->spec.read_seed = n;
    o->spec.read_reseed = val[0] == '-' && n > 0;
    return 0;
}

/* layout: how the workers' regions of a shared file lie, segmented or
 * strided (IOR's segments). */
int rb_opt_value_layout(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                        const char *key, const char *val, unsigned line)
{
    (void)opt;
    int m = rb_layout_mode_parse(val);
    if (m < 0)
        return rb_plan_fail(ps, line, "%s=%.64s: expected segmented or strided", key, val);
    o->spec.layout = (rb_layout_mode_t)m;
    return 0;
}
