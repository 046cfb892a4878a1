/* fio's IO priorities: prio and prioclass (the job's threads' priority, set
 * with ioprio_set), and the per-IO priorities of libaio and io_uring
 * (cmdprio_percentage, cmdprio_class, cmdprio and cmdprio_bssplit), read into
 * the plan's job and settled into the entries the agent draws from
 * (rb_cmdprio_t), with their print; and the threads' CPU nice value. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rb_plan_int.h"
#include "rb_units.h"

#define S_CLASS_RT 1u
#define S_CLASS_BE 2u

/* prio (a level 0 .. 7) and prioclass (0 .. 3; 0 is best effort, as fio's
 * ioprio_set takes it): either keeps the other's half of spec.ioprio. */
int rb_opt_value_prio(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *key,
                      const char *val, unsigned line)
{
    uint64_t v = 0;
    int rc = rb_opt_value_uint(ps, line, key, val, opt->min, opt->max, &v);
    if (rc < 0)
        return rc;
    uint32_t cls = o->spec.ioprio >> RB_IOPRIO_CLASS_SHIFT, lvl = o->spec.ioprio & 7u;
    if (!strcmp(opt->key, "prioclass"))
        cls = (uint32_t)v;
    else
        lvl = (uint32_t)v;
    o->spec.ioprio = ((cls ? cls : S_CLASS_BE) << RB_IOPRIO_CLASS_SHIFT) | lvl;
    return 0;
}

/* cmdprio_percentage (0 .. 100), cmdprio_class (1 .. 3) and cmdprio (0 .. 7),
 * each per direction as "R,W" (a trim part is taken and left, as fio). */
int rb_opt_value_cmdprio(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                         const char *key, const char *val, unsigned line)
{
    char buf[256];
    const char *part[3];
    int rc = rb_opt_value_per_dir(ps, line, key, val, buf, sizeof buf, part);
    uint8_t *out = !strcmp(opt->key, "cmdprio_percentage") ? o->cmdprio_pct
                   : !strcmp(opt->key, "cmdprio_class")    ? o->cmdprio_class
                                                           : o->cmdprio_level;
    for (int d = 0; rc == 0 && d < 2; d++) {
        uint64_t v = 0; /* an empty part: the default */
        if (*part[d])
            rc = rb_opt_value_uint(ps, line, key, part[d], opt->min, opt->max, &v);
        out[d] = (uint8_t)v;
    }
    return rc;
}

/* One direction of cmdprio_bssplit: "SIZE/PERC[/CLASS/LEVEL]:..."; an entry
 * without its class and level takes cmdprio_class's and cmdprio's. */
static int s_bssplit_dir(rb_plan_parser_t *ps, unsigned line, const char *key, char *text,
                         rb_plan_cmdbs_t *out, uint32_t *nout)
{
    uint32_t n = 0;
    for (char *tok = text, *next; tok && *tok; tok = next) {
        next = strchr(tok, ':');
        if (next)
            *next++ = '\0';
        if (n == RB_CMDPRIO_MAX)
            return rb_plan_fail(ps, line, "%s: more than %d entries in one direction", key,
                                RB_CMDPRIO_MAX);
        char *f[5] = {tok, NULL, NULL, NULL, NULL};
        int nf = 1;
        for (char *c = tok; *c; c++)
            if (*c == '/') {
                *c = '\0';
                if (nf == 4)
                    return rb_plan_fail(ps, line,
                                        "%s: an entry has more than SIZE/PERC/CLASS/LEVEL", key);
                f[nf++] = c + 1;
            }
        if (nf != 2 && nf != 4)
            return rb_plan_fail(
                ps, line, "%s: bad entry (SIZE/PERCENTAGE or SIZE/PERCENTAGE/CLASS/LEVEL)", key);
        uint64_t bs, perc, cls = 0, lvl = 0;
        int rc = rb_opt_value_size(ps, line, key, rb_text_trim(f[0]), false, &bs);
        if (rc == 0)
            rc = rb_opt_value_uint(ps, line, key, rb_text_trim(f[1]), 0, 100, &perc);
        if (rc == 0 && nf == 4)
            rc = rb_opt_value_uint(ps, line, key, rb_text_trim(f[2]), 1, 3, &cls);
        if (rc == 0 && nf == 4)
            rc = rb_opt_value_uint(ps, line, key, rb_text_trim(f[3]), 0, 7, &lvl);
        if (rc < 0)
            return rc;
        uint32_t tot = (uint32_t)perc;
        for (uint32_t i = 0; i < n; i++)
            tot += out[i].bs == bs ? out[i].perc : 0;
        if (tot > 100)
            return rb_plan_fail(ps, line,
                                "%s: the percentages of size %" PRIu64 " add up to %" PRIu32
                                ", more than 100",
                                key, bs, tot);
        out[n++] = (rb_plan_cmdbs_t){
            .bs = bs, .perc = (uint32_t)perc, .cls = (uint8_t)cls, .lvl = (uint8_t)lvl};
    }
    *nout = n;
    return 0;
}

int rb_opt_value_cmdprio_bssplit(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                                 const char *key, const char *val, unsigned line)
{
    (void)opt;
    char buf[4096], one[2048];
    const char *part[3];
    o->cmdprio_bssplit = val[strspn(val, " \t")] != '\0'; /* fio: set unless empty */
    int rc = rb_opt_value_per_dir(ps, line, key, val, buf, sizeof buf, part);
    for (int d = 0; rc == 0 && d < 2; d++) {
        snprintf(one, sizeof one, "%s", part[d]);
        o->ncmdbs[d] = 0;
        rc = s_bssplit_dir(ps, line, key, one, o->cmdbs[d], &o->ncmdbs[d]);
    }
    return rc;
}

int rb_opt_prio_settle(rb_plan_parser_t *ps, rb_plan_job_t *o, const char *name)
{
    rb_job_spec_t *js = &o->spec;
    unsigned pl = rb_plan_job_line(o, "cmdprio_percentage");
    if (o->cmdprio_bssplit && (o->cmdprio_pct[0] || o->cmdprio_pct[1]))
        return rb_plan_fail(ps, rb_plan_job_line(o, "cmdprio_bssplit"),
                            "job '%s': cmdprio_percentage (line %u) and cmdprio_bssplit are "
                            "mutually exclusive, as in fio",
                            name, pl);
    for (int d = 0; d < 2; d++) {
        uint32_t cls = o->cmdprio_class[d] ? o->cmdprio_class[d] : S_CLASS_RT; /* fio's default */
        uint32_t implicit = (cls << RB_IOPRIO_CLASS_SHIFT) | o->cmdprio_level[d];
        rb_cmdprio_t *e = d ? js->cmdprio_write : js->cmdprio_read;
        uint32_t n = 0;
        if (o->cmdprio_bssplit) {
            for (uint32_t i = 0; i < o->ncmdbs[d]; i++) {
                const rb_plan_cmdbs_t *b = &o->cmdbs[d][i];
                if (!b->perc) /* a size at 0% keeps the default */
                    continue;
                e[n++] = (rb_cmdprio_t){
                    .bs = b->bs,
                    .perc = b->perc,
                    .prio =
                        b->cls ? ((uint32_t)b->cls << RB_IOPRIO_CLASS_SHIFT) | b->lvl : implicit};
            }
        } else if (o->cmdprio_pct[d]) {
            e[n++] = (rb_cmdprio_t){.bs = 0, .perc = o->cmdprio_pct[d], .prio = implicit};
        }
        *(d ? &js->ncmdprio_write : &js->ncmdprio_read) = n;
    }
    return 0;
}

void rb_opt_print_prio(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)opt;
    (void)gd;
    if (js->ioprio)
        fprintf(f, "prioclass=%" PRIu32 "\nprio=%" PRIu32 "\n", js->ioprio >> RB_IOPRIO_CLASS_SHIFT,
                js->ioprio & 7u);
}

/* The entries of one direction: "SIZE/PERC/CLASS/LEVEL:..." (bssplit's) or,
 * of a size-free entry, its three parts. */
static void s_print_dir(const rb_cmdprio_t *e, uint32_t n, FILE *f)
{
    for (uint32_t i = 0; i < n; i++)
        fprintf(f, "%s%" PRIu64 "/%" PRIu32 "/%" PRIu32 "/%" PRIu32, i ? ":" : "", e[i].bs,
                e[i].perc, e[i].prio >> RB_IOPRIO_CLASS_SHIFT, e[i].prio & 7u);
}

/* Size-free entries print as cmdprio_percentage, cmdprio_class and cmdprio;
 * entries by size as cmdprio_bssplit with every class and level. */
void rb_opt_print_cmdprio(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)opt;
    (void)gd;
    const rb_cmdprio_t *r = js->ncmdprio_read ? js->cmdprio_read : NULL;
    const rb_cmdprio_t *w = js->ncmdprio_write ? js->cmdprio_write : NULL;
    if (!r && !w)
        return;
    if ((r && r->bs) || (w && w->bs)) {
        fprintf(f, "cmdprio_bssplit=");
        s_print_dir(js->cmdprio_read, js->ncmdprio_read, f);
        fputc(',', f);
        s_print_dir(js->cmdprio_write, js->ncmdprio_write, f);
        fprintf(f, ",\n");
        return;
    }
    fprintf(f,
            "cmdprio_percentage=%" PRIu32 ",%" PRIu32 "\ncmdprio_class=%" PRIu32 ",%" PRIu32
            "\ncmdprio=%" PRIu32 ",%" PRIu32 "\n",
            r ? r->perc : 0, w ? w->perc : 0, r ? r->prio >> RB_IOPRIO_CLASS_SHIFT : S_CLASS_RT,
            w ? w->prio >> RB_IOPRIO_CLASS_SHIFT : S_CLASS_RT, r ? r->prio & 7u : 0,
            w ? w->prio & 7u : 0);
}

/* nice=N: fio's -20 .. 19, as nice(2) takes it. */
int rb_opt_value_nice(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *key,
                      const char *val, unsigned line)
{
    (void)opt;
    long long v;
    if (rb_opt_whole(val, -20, 19, &v) < 0)
        return rb_plan_fail(ps, line, "bad %s=%.64s: a whole number from -20 to 19", key, val);
    o->spec.nice = v;
    return 0;
}

void rb_opt_print_nice(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    if (js->nice)
        fprintf(f, "%s=%" PRId64 "\n", opt->key, js->nice);
}
