/* Medians and the imbalanced-member judgement (see rb_stats.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "rb_stats.h"

static int s_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    if (isnan(x) || isnan(y))
        return isnan(y) - isnan(x);
    return (x > y) - (x < y);
}

double rb_stats_median(double *v, uint32_t n)
{
    if (!v || n == 0)
        return 0.0;
    qsort(v, n, sizeof *v, s_cmp_double);
    if (n % 2)
        return v[n / 2];
    return (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

double rb_stats_mad(double *v, uint32_t n, double median)
{
    for (uint32_t i = 0; v && i < n; i++)
        v[i] = fabs(v[i] - median);
    return rb_stats_median(v, n);
}

int rb_stats_imbalanced(const double *util, uint32_t nmembers, uint32_t nintervals, double ratio,
                        double most, uint32_t *which)
{
    if (!which || (!util && nmembers > 0 && nintervals > 0) || !isfinite(ratio) || ratio <= 0 ||
        !(most >= 0.0 && most <= 1.0))
        return -EINVAL;
    if (nmembers > RB_STATS_MAX_MEMBERS)
        return -E2BIG;
    if (nmembers < 2 || nintervals == 0)
        return 0;
    uint32_t hot[RB_STATS_MAX_MEMBERS] = {0}, busy = 0;
    double u[RB_STATS_MAX_MEMBERS], sib[RB_STATS_MAX_MEMBERS];
    for (uint32_t i = 0; i < nintervals; i++) {
        const double *row = util + (size_t)i * nmembers;
        int any = 0;
        for (uint32_t m = 0; m < nmembers; m++) {
            u[m] = isfinite(row[m]) && row[m] > 0 ? row[m] : 0.0;
            any |= u[m] >= RB_TEL_IDLE_PCT;
        }
        if (!any)
            continue;
        busy++;
        for (uint32_t m = 0; m < nmembers; m++) {
            uint32_t k = 0;
            for (uint32_t s = 0; s < nmembers; s++)
                if (s != m)
                    sib[k++] = u[s];
            double med = rb_stats_median(sib, k);
            if (u[m] > 0 && u[m] >= ratio * med)
                hot[m]++;
        }
    }
    int flagged = 0;
    for (uint32_t m = 0; m < nmembers; m++) {
        if (busy == 0 || (double)hot[m] <= most * (double)busy)
            continue;
        if (flagged == 0 || hot[m] > hot[*which])
            *which = m;
        flagged++;
    }
    return flagged;
}

void rb_stats_summarise(const double *v, uint32_t n, rb_stats_summary_t *out)
{
    double sum = 0;
    *out = (rb_stats_summary_t){.n = 0, .mean = NAN, .stddev = NAN, .min = NAN, .max = NAN};
    for (uint32_t i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        if (out->n == 0 || v[i] < out->min)
            out->min = v[i];
        if (out->n == 0 || v[i] > out->max)
            out->max = v[i];
        sum += v[i];
        out->n++;
    }
    if (out->n == 0)
        return;
    out->mean = sum / out->n;
    double ss = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!isnan(v[i]))
            ss += (v[i] - out->mean) * (v[i] - out->mean);
    out->stddev = out->n > 1 ? sqrt(ss / (out->n - 1)) : 0;
}

/* Student's t at the two-sided 95% level for df degrees of freedom (the
 * table's value at the next lower whole df, so never too small). */
static double s_t95(double df)
{
    static const double t[] = {0,     12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365,
                               2.306, 2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
                               2.120, 2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069,
                               2.064, 2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
    if (!(df >= 1))
        return t[1];
    if (df >= 120)
        return 1.980;
    if (df > 30)
        return 2.042 - (df - 30) / 90 * (2.042 - 1.980);
    return t[(int)df];
}

int rb_stats_welch(const rb_stats_summary_t *a, const rb_stats_summary_t *b, double *ci_rel)
{
    if (ci_rel)
        *ci_rel = NAN;
    if (a->n < 2 || b->n < 2)
        return -1;
    double va = a->stddev * a->stddev / a->n, vb = b->stddev * b->stddev / b->n;
    double se = sqrt(va + vb);
    if (se == 0)
        return a->mean == b->mean ? -1 : 1;
    double df = (va + vb) * (va + vb) / (va * va / (a->n - 1) + vb * vb / (b->n - 1));
    double half = s_t95(df) * se;
    if (ci_rel && a->mean != 0)
        *ci_rel = half / fabs(a->mean);
    return fabs(b->mean - a->mean) > half;
}
