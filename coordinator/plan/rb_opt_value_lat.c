/* The reader and print of fio's latency-target options: latency_target,
 * latency_window, latency_percentile and latency_run (what they do is in
 * agent/workloads/rb_data_lat.c and docs/plan.md); and of max_latency. */
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
    char *t = rb_text_trim(num), *end = NULL;
    size_t n = strlen(t);
    if (n && t[n - 1] == '%')
        t[n - 1] = '\0';
    errno = 0;
    double v = strtod(t, &end);
    if (!*t || end == t || *rb_text_trim(end) || errno || !isfinite(v) || v < 0 || v > 100)
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

/* max_latency: per direction "READS[,WRITES[,TRIMS]]", each a duration (a
 * bare number is microseconds, as fio's), the last given going on; 0 is no
 * limit. */
int rb_opt_value_max_latency(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                             const char *key, const char *val, unsigned line)
{
    (void)opt;
    char buf[256];
    const char *part[3];
    uint64_t v[3] = {0, 0, 0};
    int rc = rb_opt_value_per_dir(ps, line, key, val, buf, sizeof buf, part);
    for (int d = 0; rc == 0 && d < 3; d++) {
        if (!*part[d])
            continue;
        rc = rb_units_parse_duration_ns(part[d], 1000, &v[d]);
        if (rc < 0)
            rc = rb_plan_fail(ps, line,
                              "bad duration '%.64s' for %s (a number of microseconds, or with ns, "
                              "us, ms, s, m, h, d)",
                              part[d], key);
    }
    if (rc < 0)
        return rc;
    o->spec.max_lat_read_ns = v[0];
    o->spec.max_lat_write_ns = v[1];
    o->spec.max_lat_trim_ns = v[2];
    return 0;
}

void rb_opt_print_max_latency(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    char a[64], b[64], c[64];
    if (!js->max_lat_read_ns && !js->max_lat_write_ns && !js->max_lat_trim_ns)
        return;
    fprintf(f, "%s=%s,%s,%s\n", opt->key,
            rb_units_fmt_duration_exact(a, sizeof a, js->max_lat_read_ns),
            rb_units_fmt_duration_exact(b, sizeof b, js->max_lat_write_ns),
            rb_units_fmt_duration_exact(c, sizeof c, js->max_lat_trim_ns));
}
