/* Sweeps: a job whose sweep_rw, sweep_bs, sweep_numjobs or sweep_iodepth
 * lists values is expanded into one stonewalled phase per combination, as
 * fio studies of block size against queue depth are written out by hand.
 * The expansion happens while the plan is read: each phase is an ordinary
 * job on the wire, read with the option's own reader at the sweep key's
 * line, so every value is checked as if written in its place. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_engine_info.h"
#include "rb_plan_int.h"

/* The swept options, outermost first: rw changes slowest, iodepth fastest. */
static const struct {
    const char *key;   /* the sweep key */
    const char *opt;   /* the option each value is read as */
    const char *label; /* its part of a phase's name, before the value */
} s_dims[RB_PLAN_SWEEP_DIMS] = {
    {"sweep_rw", "rw", ""},
    {"sweep_bs", "bs", "bs"},
    {"sweep_numjobs", "numjobs", "j"},
    {"sweep_iodepth", "iodepth", "qd"},
};

/* The dimension of a sweep key, or -1. */
static int s_dim(const char *key)
{
    for (int d = 0; d < RB_PLAN_SWEEP_DIMS; d++)
        if (!strcmp(s_dims[d].key, key))
            return d;
    return -1;
}

int rb_opt_value_sweep(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *key,
                       const char *val, unsigned line)
{
    int d = s_dim(opt->key);
    if (d < 0)
        return rb_plan_fail(ps, line, "option '%s' is no sweep", key);
    rb_plan_sweep_t list = {0};
    rb_plan_job_t *scratch = malloc(sizeof *scratch);
    if (!scratch)
        return rb_plan_nomem(ps);
    const rb_opt_t *row = rb_opt_find(s_dims[d].opt);
    int rc = 0;
    for (const char *p = val; rc == 0;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char item[RB_PLAN_SWEEP_VAL];
        if (n >= sizeof item) {
            rc = rb_plan_fail(ps, line, "%s: value '%.*s...' is longer than %d characters", key,
                              (int)(sizeof item - 1), p, (int)sizeof item - 1);
            break;
        }
        memcpy(item, p, n);
        item[n] = '\0';
        char *v = rb_text_trim(item);
        if (!*v) {
            rc = rb_plan_fail(ps, line,
                              "%s=%.64s: value %u is empty (a list is VALUE,VALUE,... such as "
                              "%s)",
                              key, val, list.n + 1,
                              d == 0   ? "read,randread"
                              : d == 1 ? "4k,64k,1m"
                                       : "1,8,32");
            break;
        }
        if (list.n == RB_PLAN_SWEEP_MAX) {
            rc = rb_plan_fail(ps, line, "%s lists more than %d values", key, RB_PLAN_SWEEP_MAX);
            break;
        }
        for (uint32_t i = 0; i < list.n && rc == 0; i++)
            if (!strcmp(list.val[i], v))
                rc = rb_plan_fail(ps, line, "%s lists '%s' twice", key, v);
        if (rc == 0 && d == 0 && !strncmp(v, "meta", 4))
            rc = rb_plan_fail(ps, line,
                              "%s=%.64s: a metadata job makes phases of its own (meta_ops); "
                              "a sweep is of data jobs",
                              key, val);
        if (rc == 0) { /* read as the option itself would be, naming the sweep key */
            *scratch = *o;
            rc = rb_opt_apply(ps, scratch, row, key, v, line);
        }
        if (rc < 0)
            break;
        memcpy(list.val[list.n++], v, strlen(v) + 1);
        if (!end)
            break;
        p = end + 1;
    }
    free(scratch);
    if (rc == 0)
        o->sweep[d] = list;
    return rc;
}

uint32_t rb_plan_sweep_count(const rb_plan_job_t *o)
{
    uint32_t n = 1;
    bool any = false;
    for (int d = 0; d < RB_PLAN_SWEEP_DIMS; d++)
        if (o->sweep[d].n) {
            n *= o->sweep[d].n; /* at most 32^4: no overflow */
            any = true;
        }
    return any ? n : 0;
}

int rb_plan_sweep_check(rb_plan_parser_t *ps, const rb_plan_job_t *o, const char *name)
{
    uint32_t n = rb_plan_sweep_count(o);
    if (n <= RB_MAX_PHASES)
        return 0;
    char what[256];
    size_t len = 0;
    unsigned at = 0;
    for (int d = 0; d < RB_PLAN_SWEEP_DIMS; d++) {
        if (!o->sweep[d].n)
            continue;
        unsigned l = rb_plan_job_line(o, s_dims[d].key);
        at = at ? at : l;
        len += (size_t)snprintf(what + len, sizeof what - len, "%s%s (%u values, line %u)",
                                len ? " x " : "", s_dims[d].key, o->sweep[d].n, l);
    }
    return rb_plan_fail(ps, at,
                        "job '%s': %s make %u phases, more than the %u a plan may have (shorten "
                        "a list, or split the sweep into jobs of their own)",
                        name, what, n, RB_MAX_PHASES);
}

/* Appends ".LABELVALUE" to name (len bytes used), the value's characters
 * outside A-Z a-z 0-9 . _ - made '_'. false when it does not fit. */
static bool s_name_put(char *name, size_t *len, const char *label, const char *val)
{
    int n = snprintf(name + *len, RB_NAME_MAX - *len, ".%s%s", label, val);
    if (n < 0 || (size_t)n >= RB_NAME_MAX - *len)
        return false;
    for (size_t i = *len + 1 + strlen(label); i < *len + (size_t)n; i++)
        if (!rb_names_char(name[i]))
            name[i] = '_';
    *len += (size_t)n;
    return true;
}

int rb_plan_sweep_pick(rb_plan_parser_t *ps, const rb_plan_job_t *o, uint32_t k, rb_plan_job_t *c)
{
    *c = *o;
    c->stonewall = true;
    char name[RB_NAME_MAX];
    size_t len = strlen(o->spec.name);
    memcpy(name, o->spec.name, len + 1);
    uint32_t idx[RB_PLAN_SWEEP_DIMS];
    for (int d = RB_PLAN_SWEEP_DIMS - 1; d >= 0; d--) { /* the last dimension changes fastest */
        uint32_t n = o->sweep[d].n ? o->sweep[d].n : 1;
        idx[d] = k % n;
        k /= n;
    }
    for (int d = 0; d < RB_PLAN_SWEEP_DIMS; d++) {
        if (!o->sweep[d].n)
            continue;
        const char *v = o->sweep[d].val[idx[d]];
        unsigned line = rb_plan_job_line(o, s_dims[d].key);
        int rc = rb_opt_apply(ps, c, rb_opt_find(s_dims[d].opt), s_dims[d].key, v, line);
        if (rc < 0)
            return rc;
        if (!s_name_put(name, &len, s_dims[d].label, v))
            return rb_plan_fail(ps, line,
                                "job '%s': the name of its phase with %s=%s is longer than %d "
                                "characters (shorten the job's name)",
                                o->spec.name, s_dims[d].opt, v, RB_NAME_MAX - 1);
    }
    memcpy(c->spec.name, name, len + 1);
    const char *engine = c->spec.ioengine[0] ? c->spec.ioengine : "sync";
    if (o->sweep[RB_PLAN_SWEEP_DIMS - 1].n > 1 && rb_engine_info_depth(engine, 2) == 1)
        return rb_plan_fail(ps, rb_plan_job_line(o, "sweep_iodepth"),
                            "job '%s': sweep_iodepth with ioengine=%s, which does one IO at a "
                            "time: every phase would run at depth 1 (sweep the depth of an "
                            "engine that queues, such as libaio or io_uring)",
                            o->spec.name, engine);
    return 0;
}

/* Writes ns as "1 h 2 min 3 s" (the parts that are not 0) into buf. */
static void s_fmt_time(char *buf, size_t cap, uint64_t ns)
{
    uint64_t s = (ns + 500000000u) / 1000000000u;
    uint64_t h = s / 3600, m = s / 60 % 60;
    size_t len = 0;
    if (h)
        len += (size_t)snprintf(buf + len, cap - len, "%" PRIu64 " h ", h);
    if (m)
        len += (size_t)snprintf(buf + len, cap - len, "%" PRIu64 " min ", m);
    if (s % 60 || len == 0)
        len += (size_t)snprintf(buf + len, cap - len, "%" PRIu64 " s ", s % 60);
    buf[len - 1] = '\0';
}

int rb_plan_sweep_note(rb_plan_parser_t *ps, const rb_plan_job_t *o, const char *base,
                       const rb_job_spec_t *spec, unsigned line)
{
    char what[256], first[RB_NAME_MAX], each[64], total[64];
    size_t len = 0;
    for (int d = 0; d < RB_PLAN_SWEEP_DIMS; d++)
        if (o->sweep[d].n)
            len += (size_t)snprintf(what + len, sizeof what - len, "%s%s (%u)", len ? " x " : "",
                                    s_dims[d].opt, o->sweep[d].n);
    uint32_t n = rb_plan_sweep_count(o);
    snprintf(first, sizeof first, "%s", spec->name);
    if (!spec->time_based || !spec->runtime_ns)
        return rb_plan_note(ps, line,
                            "job '%s' sweeps %s: %u phases, one after the other, from '%s' (how "
                            "long depends on the storage: it is not time-based)",
                            base, what, n, first);
    uint64_t one = spec->runtime_ns + spec->ramp_ns;
    s_fmt_time(each, sizeof each, one);
    s_fmt_time(total, sizeof total, one * n);
    return rb_plan_note(ps, line,
                        "job '%s' sweeps %s: %u phases, one after the other, from '%s'; %u x %s "
                        "(runtime and ramp_time) = %s",
                        base, what, n, first, n, each, total);
}
