/* The reader and print of fio's latency-target options: latency_target,
 * latency_window, latency_percentile and latency_run. What they do is in
 * agent/workloads/rb_data_lat.c and docs/plan.md. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rb_plan_int.h"
#include "rb_units.h"

/* latency_percentile: a number from 0 to 100 (fio's float), kept in
 * millionths of a percent. */
int rb_opt_value_lat_pct(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                         const char *key, const char *val, unsigned line)
{
    (void)opt;
    char num[64];
    snprintf(num, sizeof num, "%s", val);
    char *t = rb_plan_trim(num), *end = NULL;
    size_t n = strlen(t);
    if (n && t[n - 1] == '%')
        t[n - 1] = '\0';
    errno = 0;
    double v = strtod(t, &end);
    if (!*t || end == t || *rb_plan_trim(end) || errno || !isfinite(v) || v < 0 || v > 100)
        return rb_plan_fail(ps, line, "bad value '%.64s' for %s (a percentage from 0 to 100)", val,
                            key);
    o->spec.lat_pct = (uint32_t)llround(v * 1e6);
    return 0;
}

/* The target and its window print when a target is set, the percentile and
 * latency_run away from fio's defaults (100, 0), so that a print reads back
 * the same. */
void rb_opt_print_lat(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    char a[64];
    int timing = opt->off == offsetof(rb_job_spec_t, lat_target_ns) ||
                 opt->off == offsetof(rb_job_spec_t, lat_window_ns);
    if (timing && !js->lat_target_ns)
        return;
    if (opt->off == offsetof(rb_job_spec_t, lat_target_ns))
        fprintf(f, "%s=%s\n", opt->key,
                rb_units_fmt_duration_exact(a, sizeof a, js->lat_target_ns));
    else if (opt->off == offsetof(rb_job_spec_t, lat_window_ns))
        fprintf(f, "%s=%s\n", opt->key,
                rb_units_fmt_duration_exact(a, sizeof a, js->lat_window_ns));
    else if (opt->off == offsetof(rb_job_spec_t, lat_pct) && js->lat_pct != RB_LAT_PCT_MAX)
        fprintf(f, "%s=%.12g\n", opt->key, js->lat_pct / 1e6);
    else if (opt->off == offsetof(rb_job_spec_t, lat_run) && js->lat_run)
        fprintf(f, "%s=1\n", opt->key);
}
