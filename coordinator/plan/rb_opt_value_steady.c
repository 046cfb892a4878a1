/* The readers and prints of fio's steady-state options: steadystate (ss),
 * steadystate_duration (ss_dur) and steadystate_ramp_time (ss_ramp). What
 * they mean is in common/rb_steady.h and docs/plan.md. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rb_plan_int.h"
#include "rb_steady.h"
#include "rb_units.h"

#define S_NS_PER_S 1000000000ull

static const char *const s_metrics = "iops, iops_slope, bw or bw_slope";

/* A limit as a number in millionths: 0 or -EINVAL said. */
static int s_millionths(rb_plan_parser_t *ps, unsigned line, const char *key, const char *val,
                        double v, uint64_t *out)
{
    if (!isfinite(v) || v < 0 || v * 1e6 >= 1.8e19)
        return rb_plan_fail(ps, line, "bad limit in %s=%.64s (a number from 0 on)", key, val);
    *out = (uint64_t)llround(v * 1e6);
    return 0;
}

/* METRIC:LIMIT, LIMIT a number, "N%" of the mean, or for bw bytes/s with
 * fio's units; fio's default is iops_slope:0.01%. */
int rb_opt_value_steadystate(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                             const char *key, const char *val, unsigned line)
{
    (void)opt;
    rb_job_spec_t *js = &o->spec;
    const char *colon = strchr(val, ':');
    size_t n = colon ? (size_t)(colon - val) : strlen(val);
    rb_ss_metric_t m = RB_SS_NONE;
    for (int k = RB_SS_IOPS; k <= RB_SS_BW_SLOPE; k++)
        if (strlen(rb_steady_metric_name(k)) == n && strncmp(val, rb_steady_metric_name(k), n) == 0)
            m = k;
    if (m == RB_SS_NONE)
        return rb_plan_fail(ps, line, "bad criterion '%.*s' for %s (%s, then :limit)",
                            (int)(n > 64 ? 64 : n), val, key, s_metrics);
    if (!colon || !colon[1])
        return rb_plan_fail(ps, line,
                            "%s=%.64s has no limit (%s:N, %s:N%%: the largest deviation or slope "
                            "that is steady)",
                            key, val, rb_steady_metric_name(m), rb_steady_metric_name(m));
    char num[64];
    snprintf(num, sizeof num, "%s", colon + 1);
    char *t = rb_text_trim(num);
    size_t tl = strlen(t);
    bool pct = tl && t[tl - 1] == '%';
    bool bw = m == RB_SS_BW || m == RB_SS_BW_SLOPE;
    uint64_t limit = 0;
    if (pct || !bw) {
        if (pct)
            t[tl - 1] = '\0';
        t = rb_text_trim(t);
        char *end = NULL;
        double v = strtod(t, &end);
        if (!*t || !end || *end)
            return rb_plan_fail(ps, line, "bad limit in %s=%.64s (%s)", key, val,
                                pct ? "a number before %" : "a number of IOPS, or N%");
        if (s_millionths(ps, line, key, val, v, &limit) < 0)
            return -EINVAL;
    } else {
        uint64_t bytes = 0;
        if (t[0] == '-')
            return rb_plan_fail(ps, line, "bad limit in %s=%.64s (a number from 0 on)", key, val);
        if (rb_opt_value_size(ps, line, key, t, true, &bytes) < 0)
            return -EINVAL;
        if (s_millionths(ps, line, key, val, (double)bytes, &limit) < 0)
            return -EINVAL;
    }
    js->ss_metric = (uint32_t)m;
    js->ss_pct = pct;
    js->ss_limit = limit;
    return 0;
}

/* A duration in whole seconds (fio counts the window in seconds), 0 .. RB_SS_DUR_MAX_S. */
int rb_opt_value_ss_dur(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                        const char *key, const char *val, unsigned line)
{
    (void)opt;
    uint64_t ns = 0;
    if (rb_opt_value_duration(ps, line, key, val, &ns) < 0)
        return -EINVAL;
    if (ns % S_NS_PER_S)
        return rb_plan_fail(ps, line,
                            "%s=%.64s is not a whole number of seconds (the window holds one "
                            "sample a second)",
                            key, val);
    if (ns / S_NS_PER_S > RB_SS_DUR_MAX_S)
        return rb_plan_fail(ps, line, "%s=%.64s is more than %us", key, val, RB_SS_DUR_MAX_S);
    o->spec.ss_dur_ns = ns;
    return 0;
}

int rb_opt_value_ss_ramp(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                         const char *key, const char *val, unsigned line)
{
    (void)opt;
    return rb_opt_value_duration(ps, line, key, val, &o->spec.ss_ramp_ns);
}

/* The three print only when the judgement is on (ss_dur set). */
void rb_opt_print_steadystate(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    if (!js->ss_dur_ns)
        return;
    if (opt->off == offsetof(rb_job_spec_t, ss_metric)) {
        const char *name = rb_steady_metric_name((rb_ss_metric_t)js->ss_metric);
        if ((js->ss_metric == RB_SS_BW || js->ss_metric == RB_SS_BW_SLOPE) && !js->ss_pct &&
            js->ss_limit % 1000000 == 0)
            fprintf(f, "%s=%s:%" PRIu64 "\n", opt->key, name ? name : "?", js->ss_limit / 1000000);
        else
            fprintf(f, "%s=%s:%.12g%s\n", opt->key, name ? name : "?", js->ss_limit / 1e6,
                    js->ss_pct ? "%" : "");
        return;
    }
    char a[64];
    uint64_t ns = opt->off == offsetof(rb_job_spec_t, ss_dur_ns) ? js->ss_dur_ns : js->ss_ramp_ns;
    fprintf(f, "%s=%s\n", opt->key, rb_units_fmt_duration_exact(a, sizeof a, ns));
}
