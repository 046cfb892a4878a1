/* Reading a job option's value by the kind its row gives (sizes, durations,
 * booleans, counts, names) into its field, applying a row, and a job's
 * defaults read from the table's rows: the generic half of the option table
 * (rb_opt.c). */
#include "rb_opt.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rb_engine_info.h"
#include "rb_names.h"
#include "rb_plan_int.h"
#include "rb_units.h"

#define S_NS_PER_S 1000000000ull

/* ---- reading values ---- */

/* The kb_base of the section being read; fio's 1024 for the table's defaults. */
static unsigned s_kb_base(const rb_plan_parser_t *ps)
{
    unsigned kb = ps->in_global ? ps->global.kb_base : ps->job.kb_base;
    return kb ? kb : 1024;
}

/* A value in parentheses, as fio's arithmetic: 0, or -EALREADY with the
 * problem said. */
static int s_expr(rb_plan_parser_t *ps, unsigned line, const char *key, const char *val,
                  uint64_t *out)
{
    const char *why = NULL;
    if (rb_plan_expr_eval(val, s_kb_base(ps), out, &why) == 0)
        return 0;
    rb_plan_fail(ps, line, "%s=%.64s: %s", key, val, why);
    return -EALREADY;
}

int rb_opt_value_size(rb_plan_parser_t *ps, unsigned line, const char *key, const char *val,
                      bool zero_ok, uint64_t *out)
{
    unsigned kb = s_kb_base(ps);
    int rc =
        val[0] == '(' ? s_expr(ps, line, key, val, out) : rb_units_parse_fio_size(val, kb, out);
    if (rc == -EALREADY)
        return -EINVAL; /* said */
    if (rc == -ERANGE)
        return rb_plan_fail(ps, line, "%s=%.64s is too large", key, val);
    if (rc < 0) {
        if (strchr(val, '%'))
            return rb_plan_fail(ps, line, "%s as a percentage (%s=%.64s) is not supported yet", key,
                                key, val);
        if (strchr(val, ',') || strchr(val, ':'))
            return rb_plan_fail(ps, line, "%s with several values (%s=%.64s) is not supported yet",
                                key, key, val);
        size_t n = strlen(val);
        if (n > 1 && (val[n - 1] == 'z' || val[n - 1] == 'Z') && isdigit((unsigned char)val[0]))
            return rb_plan_fail(ps, line,
                                "%s=%.64s: a count of zones (fio's z suffix) is for size, io_size, "
                                "offset, offset_increment and zoneskip",
                                key, val);
        return rb_plan_fail(
            ps, line,
            "bad size '%.64s' for %s (a whole number, or 0x hexadecimal, with k, M, G, T or P)",
            val, key);
    }
    if (*out == 0 && !zero_ok)
        return rb_plan_fail(ps, line, "%s must be greater than 0", key);
    return 0;
}

int rb_opt_value_duration(rb_plan_parser_t *ps, unsigned line, const char *key, const char *val,
                          uint64_t *out)
{
    if (val[0] == '(') { /* fio: microseconds in an expression */
        int rc = s_expr(ps, line, key, val, out);
        if (rc < 0)
            return -EINVAL;
        if (*out > UINT64_MAX / 1000)
            return rb_plan_fail(ps, line, "%s=%.64s is too large", key, val);
        *out *= 1000;
        return 0;
    }
    int rc = rb_units_parse_duration_ns(val, S_NS_PER_S, out);
    if (rc == -ERANGE)
        return rb_plan_fail(ps, line, "%s=%.64s is too large", key, val);
    if (rc < 0)
        return rb_plan_fail(ps, line,
                            "bad duration '%.64s' for %s (a number of seconds, or with ns, us, "
                            "ms, s, m, h, d)",
                            val, key);
    return 0;
}

int rb_opt_value_bool(rb_plan_parser_t *ps, unsigned line, const char *key, const char *val,
                      bool *out)
{
    int b = 0;
    if (rb_units_parse_bool(val, &b) < 0)
        return rb_plan_fail(ps, line, "bad value '%.64s' for %s (1/0, true/false, yes/no, on/off)",
                            val, key);
    *out = b != 0;
    return 0;
}

int rb_opt_value_uint(rb_plan_parser_t *ps, unsigned line, const char *key, const char *val,
                      uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t n = 0;
    bool over = false;
    if (val[0] == '(') {
        if (s_expr(ps, line, key, val, &n) < 0)
            return -EINVAL;
        val = "";
        over = n > max;
    }
    for (const char *c = val; *c; c++) {
        if (*c < '0' || *c > '9')
            return rb_plan_fail(ps, line, "bad number '%.64s' for %s", val, key);
        if (!over) {
            n = n * 10 + (uint64_t)(*c - '0');
            over = n > max;
        }
    }
    if (over || n < min)
        return rb_plan_fail(ps, line, "%s=%.64s is out of range (%" PRIu64 "..%" PRIu64 ")", key,
                            val, min, max);
    *out = n;
    return 0;
}

/* Stores v into the row's field (1, 4 or 8 bytes). */
static void s_store(rb_job_spec_t *js, const rb_opt_t *opt, uint64_t v)
{
    char *p = (char *)js + opt->off;
    if (opt->size == 1) {
        uint8_t u = (uint8_t)v;
        memcpy(p, &u, 1);
    } else if (opt->size == 4) {
        uint32_t u = (uint32_t)v;
        memcpy(p, &u, 4);
    } else if (opt->size == 8) {
        memcpy(p, &v, 8);
    }
}

/* The row's field (1, 4 or 8 bytes) as a number. */
uint64_t rb_opt_load(const rb_job_spec_t *js, const rb_opt_t *opt)
{
    const char *p = (const char *)js + opt->off;
    if (opt->size == 1)
        return *(const uint8_t *)p;
    if (opt->size == 4) {
        uint32_t u;
        memcpy(&u, p, 4);
        return u;
    }
    uint64_t u = 0;
    if (opt->size == 8)
        memcpy(&u, p, 8);
    return u;
}

/* Reads val by the row's kind into its field. */
int rb_opt_read_kind(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *key,
                     const char *val, unsigned line)
{
    uint64_t n = 0;
    bool b = false;
    int rc = 0;
    switch (opt->kind) {
    case RB_OPT_SIZE:
        rc = rb_plan_zone_count(ps, o, opt, val, line);
        if (rc != 0)
            return rc < 0 ? rc : 0; /* zones: bytes once zonesize is known */
        rc = rb_opt_value_size(ps, line, key, val, (opt->flags & RB_OPT_F_ZERO) != 0, &n);
        break;
    case RB_OPT_DURATION:
        rc = rb_opt_value_duration(ps, line, key, val, &n);
        break;
    case RB_OPT_COUNT:
        rc = rb_opt_value_uint(ps, line, key, val, opt->min, opt->max, &n);
        break;
    case RB_OPT_BOOL:
    case RB_OPT_INVBOOL:
        rc = rb_opt_value_bool(ps, line, key, val, &b);
        n = (opt->kind == RB_OPT_BOOL) == b;
        break;
    case RB_OPT_ENUM: {
        size_t i = 0;
        while (i < opt->nnames && strcmp(opt->names[i].name, val) != 0)
            i++;
        if (i == opt->nnames) {
            char list[128] = "";
            for (size_t k = 0; k < opt->nnames; k++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                         k == 0                 ? ""
                         : k + 1 == opt->nnames ? " or "
                                                : ", ",
                         opt->names[k].name);
            return rb_plan_fail(ps, line, "bad value '%.64s' for %s (%s)", val, key, list);
        }
        n = opt->names[i].value;
        break;
    }
    case RB_OPT_CUSTOM:
        return opt->parse(ps, o, opt, key, val, line);
    case RB_OPT_IGNORED:
    case RB_OPT_NOT_YET:
        return 0;
    }
    if (rc == 0)
        s_store(&o->spec, opt, n);
    return rc;
}

int rb_opt_apply(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *key,
                 const char *val, unsigned line)
{
    if (opt->kind == RB_OPT_NOT_YET)
        return rb_plan_fail(ps, line, "option '%.64s' is not supported yet", key);
    if (opt->kind == RB_OPT_IGNORED) {
        int rc = opt->parse ? opt->parse(ps, o, opt, key, val, line) : 0;
        if (rc < 0)
            return rc;
        o->line[rb_opt_index(opt)] = line; /* an engine's own is checked against the engine */
        return rb_plan_note(ps, line, "option '%s' is ignored: %s", key,
                            rb_opt_why_text((rb_opt_why_t)opt->group));
    }
    if (!val) {
        if (!(opt->flags & RB_OPT_F_BARE))
            return rb_plan_fail(ps, line, "option '%s' needs a value (%s=...)", key, key);
        val = opt->flags & RB_OPT_F_BARE_EMPTY ? "" : "1";
    }
    if (!*val && !(opt->flags & RB_OPT_F_EMPTY))
        return rb_plan_fail(ps, line, "option '%s' has an empty value", key);
    /* a job's own meta_* option needs rw=meta, checked once the job is read */
    if ((opt->flags & RB_OPT_F_META) && !ps->in_global && !o->meta_line) {
        o->meta_key = opt->key;
        o->meta_line = line;
    }
    if ((opt->flags & RB_OPT_F_JOB) && ps->in_global)
        return rb_plan_fail(ps, line, "option '%s' belongs in a job section, not in [global]",
                            opt->key);
    if ((opt->flags & RB_OPT_F_GLOBAL) && !ps->in_global)
        return rb_plan_fail(ps, line, "option '%s' belongs in [global]", opt->key);
    int rc = rb_opt_read_kind(ps, o, opt, key, val, line);
    if (rc == 0)
        o->line[rb_opt_index(opt)] = line;
    return rc;
}

unsigned rb_plan_job_line(const rb_plan_job_t *o, const char *key)
{
    const rb_opt_t *opt = rb_opt_find(key);
    return opt ? o->line[rb_opt_index(opt)] : 0;
}

/* ---- defaults ---- */

/* The job settings with every default read from the table once. */
static void s_job_defaults(rb_plan_job_t *o)
{
    rb_plan_parser_t ps;
    rb_err_t err;
    memset(&ps, 0, sizeof ps);
    ps.source = "<defaults>";
    ps.err = &err;
    memset(o, 0, sizeof *o);
    for (size_t i = 0; i < rb_opt_count(); i++) {
        const rb_opt_t *row = rb_opt_at(i);
        if (row->def)
            (void)rb_opt_read_kind(&ps, o, row, row->key, row->def, 0);
    }
    o->spec.bs_max = o->spec.bs;
    o->kb_base = 1024;
    o->name = "";
    free(ps.notes);
}

void rb_plan_spec_defaults(rb_job_spec_t *js)
{
    static rb_plan_job_t defaults;
    static bool made;
    if (!made) { /* the plan parser runs on one thread: no race */
        s_job_defaults(&defaults);
        made = true;
    }
    *js = defaults.spec;
}

void rb_plan_job_defaults(rb_plan_job_t *o)
{
    s_job_defaults(o);
}
