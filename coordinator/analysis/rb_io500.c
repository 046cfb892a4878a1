/* IO500's scores: geometric means of the phases' headline figures, each
 * phase found by the name deploy/plans/io500.ini gives it. */
#include <math.h>
#include <string.h>

#include "rb_io500.h"

static const char *const s_bw[RB_IO500_NBW][2] = {
    {"ior-easy-write", "ior-easy-write"},
    {"ior-hard-write", "ior-hard-write"},
    {"ior-easy-read", "ior-easy-read"},
    {"ior-hard-read", "ior-hard-read"},
};
/* find is two rackbench phases, one per folder (rb_io500_compute adds them up) */
static const char *const s_md[RB_IO500_NMD][2] = {
    {"mdtest-easy-write", "mdtest-easy.create"},   {"mdtest-hard-write", "mdtest-hard.create"},
    {"find", "mdtest-easy.find+mdtest-hard.find"}, {"mdtest-easy-stat", "mdtest-easy.stat"},
    {"mdtest-hard-stat", "mdtest-hard.stat"},      {"mdtest-easy-delete", "mdtest-easy.delete"},
    {"mdtest-hard-read", "mdtest-hard.read"},      {"mdtest-hard-delete", "mdtest-hard.delete"},
};

const char *rb_io500_bw_name(uint32_t i, int rackbench)
{
    return i < RB_IO500_NBW ? s_bw[i][rackbench ? 1 : 0] : NULL;
}

const char *rb_io500_md_name(uint32_t i, int rackbench)
{
    return i < RB_IO500_NMD ? s_md[i][rackbench ? 1 : 0] : NULL;
}

/* The phase named name, ran without error, or -1. */
static int s_find(const rb_phase_agg_t *phases, uint32_t n, const char *name)
{
    for (uint32_t p = 0; p < n; p++)
        if (!strcmp(phases[p].name, name))
            return phases[p].errors || phases[p].window_s <= 0 ? -1 : (int)p;
    return -1;
}

/* find, as IO500 scores it: the files examined in both folders over the
 * time both took, in kIOPS; found what matched. 0 when a phase is missing. */
static int s_find_both(const rb_phase_agg_t *phases, uint32_t n, rb_io500_t *out)
{
    int e = s_find(phases, n, "mdtest-easy.find"), h = s_find(phases, n, "mdtest-hard.find");
    if (e < 0 || h < 0)
        return 0;
    out->examined = phases[e].ops + phases[h].ops;
    out->found = phases[e].found + phases[h].found;
    out->find_s = phases[e].window_s + phases[h].window_s;
    out->md[RB_IO500_FIND] = (double)out->examined / out->find_s / 1000.0;
    return 1;
}

/* exp of the mean of the logs; 0 when any value is 0. */
static double s_geomean(const double *v, uint32_t n)
{
    double sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (v[i] <= 0)
            return 0;
        sum += log(v[i]);
    }
    return exp(sum / n);
}

int rb_io500_compute(const rb_phase_agg_t *phases, const rb_phase_spec_t *specs, uint32_t n,
                     rb_io500_t *out)
{
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < RB_IO500_NBW; i++) {
        int p = s_find(phases, n, s_bw[i][1]);
        if (p < 0)
            return 0;
        out->bw[i] = phases[p].aggregate_bw / (1024.0 * 1024.0 * 1024.0);
        double sw = specs[p].njobs ? specs[p].jobs[0].stonewall_ns / 1e9 : 0;
        if (i < 2 && (!out->stonewall_s || sw < out->stonewall_s))
            out->stonewall_s = sw;
    }
    if (!s_find_both(phases, n, out))
        return 0;
    for (uint32_t i = 0; i < RB_IO500_NMD; i++) {
        if (i == RB_IO500_FIND)
            continue;
        int p = s_find(phases, n, s_md[i][1]);
        if (p < 0)
            return 0;
        out->md[i] = phases[p].iops / 1000.0;
        double sw = specs[p].njobs ? specs[p].jobs[0].stonewall_ns / 1e9 : 0;
        if (i < 2 && (!out->stonewall_s || sw < out->stonewall_s))
            out->stonewall_s = sw;
    }
    out->bw_score = s_geomean(out->bw, RB_IO500_NBW);
    out->md_score = s_geomean(out->md, RB_IO500_NMD);
    double both[2] = {out->bw_score, out->md_score};
    out->score = s_geomean(both, 2);
    out->valid = out->stonewall_s >= 300 && out->found > 0;
    out->why = out->stonewall_s < 300 ? "a stonewall under 300 s"
               : !out->found          ? "find found no file"
                                      : "";
    return 1;
}
