/* Two runs side by side (see rb_compare.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rb_compare.h"
#include "rb_json.h"
#include "rb_units.h"

static int s_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Value at fraction q (0..1) of sorted v, interpolated. */
static double s_quantile(const double *v, uint32_t n, double q)
{
    double pos = q * (n - 1);
    uint32_t i = (uint32_t)pos;
    return i + 1 < n ? v[i] + (v[i + 1] - v[i]) * (pos - i) : v[n - 1];
}

double rb_compare_spread(double *v, uint32_t n)
{
    if (n < RB_COMPARE_MIN_INTERVALS)
        return -1;
    qsort(v, n, sizeof *v, s_cmp);
    double med = s_quantile(v, n, 0.5);
    if (med <= 0)
        return -1;
    return (s_quantile(v, n, 0.75) - s_quantile(v, n, 0.25)) / med;
}

/* The per-interval series one figure moves with, and its spread. */
typedef enum { S_BW, S_IOPS, S_LAT } s_series_t;

static double s_run_spread(const rb_loaded_run_t *r, const char *phase, s_series_t kind)
{
    double *v = NULL, spread = -1;
    uint32_t n = 0;
    if (kind == S_LAT) {
        if (rb_result_samples_values(r->dir, phase, "lat_p99_us", &v, &n) == 0) {
            uint32_t m = 0;
            for (uint32_t i = 0; i < n; i++)
                if (v[i] > 0)
                    v[m++] = v[i]; /* an interval without IO has no latency */
            spread = rb_compare_spread(v, m);
        }
        free(v);
        return spread;
    }
    double *bytes = NULL, *ops = NULL, *secs = NULL, interval = (double)r->plan->interval_ns / 1e9;
    if (rb_result_samples_series(r->dir, phase, interval, &bytes, &ops, &secs, &n) == 0 && n) {
        v = calloc(n, sizeof *v);
        uint32_t m = 0;
        for (uint32_t i = 0; v && i < n; i++)
            if (secs[i] >= interval / 2) /* not a phase's short tail */
                v[m++] = (kind == S_BW ? bytes[i] : ops[i]) / secs[i];
        if (v)
            spread = rb_compare_spread(v, m);
    }
    free(v);
    free(bytes);
    free(ops);
    free(secs);
    return spread;
}

typedef struct s_fig {
    const char *name;  /* figure, as in summary.json */
    const char *label; /* for people */
    s_series_t series; /* what its spread is judged on */
    int lower_better;  /* latency */
} s_fig_t;

static const s_fig_t s_figs[] = {
    {"aggregate_bw", "aggregate bandwidth", S_BW, 0},
    {"cluster.node_bw.median", "median node bandwidth", S_BW, 0},
    {"steady.median_bw", "steady state (median interval)", S_BW, 0},
    {"iops", "IOPS", S_IOPS, 0},
    {"lat_us.p99", "latency p99", S_LAT, 1},
};

static double s_value(const rb_phase_agg_t *a, size_t fig)
{
    switch (fig) {
    case 0:
        return a->aggregate_bw;
    case 1:
        return a->cluster.node_bw_median;
    case 2:
        return a->steady.intervals ? a->steady.median_bw : NAN;
    case 3:
        return a->iops;
    default:
        return a->hist.count ? (double)rb_hist_percentile(&a->hist, 99) / 1e3 : NAN;
    }
}

static void s_fmt(char *buf, size_t len, size_t fig, double v)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (s_figs[fig].series == S_BW)
        rb_units_fmt_bw(buf, len, v);
    else if (s_figs[fig].series == S_IOPS)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.1f us", v);
}

static const rb_phase_agg_t *s_find(const rb_loaded_run_t *r, const char *name)
{
    for (uint32_t p = 0; p < r->res.nphases; p++)
        if (!strcmp(r->phases[p].name, name))
            return &r->phases[p];
    return NULL;
}

int rb_compare(const rb_loaded_run_t *a, const rb_loaded_run_t *b, int json, FILE *f)
{
    rb_jw_t w;
    if (json) {
        rb_jw_init(&w, f);
        rb_jw_obj_begin(&w, NULL);
        rb_jw_str(&w, "schema", "rackbench.compare/1");
        rb_jw_str(&w, "before", a->res.run_id);
        rb_jw_str(&w, "after", b->res.run_id);
        rb_jw_arr_begin(&w, "phases");
    } else {
        fprintf(f, "rackbench compare  before %s (%s)  after %s (%s)\n", a->res.run_id, a->dir,
                b->res.run_id, b->dir);
        fprintf(f, "a change is significant when it is larger than the interquartile spread of "
                   "both runs' per-interval samples (and 1%%)\n");
    }
    for (uint32_t p = 0; p < a->res.nphases; p++) {
        const rb_phase_agg_t *pa = &a->phases[p], *pb = s_find(b, pa->name);
        if (!pb) {
            if (!json)
                fprintf(f, "\nphase %s: only in %s\n", pa->name, a->res.run_id);
            continue;
        }
        if (json) {
            rb_jw_obj_begin(&w, NULL);
            rb_jw_str(&w, "name", pa->name);
            rb_jw_bool(&w, "partial", pa->partial || pb->partial);
            rb_jw_arr_begin(&w, "figures");
        } else {
            fprintf(f, "\nphase %s%s\n", pa->name,
                    pa->partial || pb->partial ? "  (PARTIAL in one of the runs)" : "");
            fprintf(f, "  %-32s %24s %24s %9s  %s\n", "figure", "before", "after", "change",
                    "verdict");
        }
        double sa[3], sb[3];
        for (int k = 0; k < 3; k++) {
            sa[k] = s_run_spread(a, pa->name, (s_series_t)k);
            sb[k] = s_run_spread(b, pb->name, (s_series_t)k);
        }
        for (size_t i = 0; i < sizeof s_figs / sizeof s_figs[0]; i++) {
            double va = s_value(pa, i), vb = s_value(pb, i);
            double change = va > 0 && !isnan(vb) ? (vb - va) / va : NAN;
            double xa = sa[s_figs[i].series], xb = sb[s_figs[i].series];
            double noise = xa > xb ? xa : xb;
            if (noise < RB_COMPARE_MIN_CHANGE)
                noise = RB_COMPARE_MIN_CHANGE;
            const char *verdict;
            if (isnan(change))
                verdict = "n/a";
            else if (xa < 0 || xb < 0)
                verdict = "too few intervals to tell";
            else if (fabs(change) > noise)
                verdict = (change > 0) != s_figs[i].lower_better ? "significant: better"
                                                                 : "significant: worse";
            else
                verdict = "within noise";
            if (json) {
                rb_jw_obj_begin(&w, NULL);
                rb_jw_str(&w, "name", s_figs[i].name);
                rb_jw_num(&w, "before", va);
                rb_jw_num(&w, "after", vb);
                rb_jw_num(&w, "change", change);
                rb_jw_num(&w, "spread_before", xa >= 0 ? xa : NAN);
                rb_jw_num(&w, "spread_after", xb >= 0 ? xb : NAN);
                rb_jw_str(&w, "verdict", verdict);
                rb_jw_obj_end(&w);
                continue;
            }
            char b1[64], b2[64], c[32], n[64] = "";
            s_fmt(b1, sizeof b1, i, va);
            s_fmt(b2, sizeof b2, i, vb);
            if (isnan(change))
                snprintf(c, sizeof c, "-");
            else
                snprintf(c, sizeof c, "%+.1f%%", change * 100);
            if (xa >= 0 && xb >= 0)
                snprintf(n, sizeof n, " (spread %.1f%% / %.1f%%)", xa * 100, xb * 100);
            fprintf(f, "  %-32s %24s %24s %9s  %s%s\n", s_figs[i].label, b1, b2, c, verdict, n);
        }
        if (json) {
            rb_jw_arr_end(&w);
            rb_jw_obj_end(&w);
        }
    }
    for (uint32_t p = 0; !json && p < b->res.nphases; p++)
        if (!s_find(a, b->phases[p].name))
            fprintf(f, "\nphase %s: only in %s\n", b->phases[p].name, b->res.run_id);
    if (json) {
        rb_jw_arr_end(&w);
        rb_jw_obj_end(&w);
        return rb_jw_finish(&w);
    }
    fflush(f);
    return ferror(f) ? -EIO : 0;
}
