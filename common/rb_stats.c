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
