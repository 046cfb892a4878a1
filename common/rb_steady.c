/* fio's steadystate criterion (rb_steady.h): the window and its judgement. */
#include "rb_steady.h"

#include <math.h>
#include <stddef.h>

const char *rb_steady_metric_name(rb_ss_metric_t m)
{
    switch (m) {
    case RB_SS_IOPS:
        return "iops";
    case RB_SS_IOPS_SLOPE:
        return "iops_slope";
    case RB_SS_BW:
        return "bw";
    case RB_SS_BW_SLOPE:
        return "bw_slope";
    default:
        return NULL;
    }
}

double rb_steady_criterion(const double *y, uint32_t n, int slope, int pct, double *mean)
{
    double sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += y[i];
    double m = n ? sum / n : 0;
    *mean = m;
    if (!n)
        return INFINITY;
    double v = 0;
    if (slope) {
        /* x = 0 .. n-1, one a second: the least-squares line through the
         * window, (Σxy - Σx·Σy/n) / (Σx² - (Σx)²/n) */
        if (n < 2)
            return INFINITY;
        double sx = (double)n * (n - 1) / 2, sxx = (double)(n - 1) * n * (2.0 * n - 1) / 6;
        double sxy = 0;
        for (uint32_t i = 0; i < n; i++)
            sxy += (double)i * y[i];
        v = fabs((sxy - sx * sum / n) / (sxx - sx * sx / n));
    } else {
        for (uint32_t i = 0; i < n; i++)
            if (fabs(y[i] - m) > v)
                v = fabs(y[i] - m);
    }
    if (!pct)
        return v;
    if (m <= 0)
        return INFINITY;
    return 100.0 * v / m;
}

void rb_steady_init(rb_steady_t *s, double *ring, uint32_t n)
{
    s->ring = ring;
    s->n = n;
    s->have = 0;
    s->next = 0;
}

int rb_steady_add(rb_steady_t *s, double y, int slope, int pct, double limit, double *tmp,
                  double *crit, double *mean)
{
    s->ring[s->next] = y;
    s->next = (s->next + 1) % s->n;
    if (s->have < s->n)
        s->have++;
    if (s->have < s->n)
        return 0;
    for (uint32_t i = 0; i < s->n; i++) /* oldest first: the slope needs the order */
        tmp[i] = s->ring[(s->next + i) % s->n];
    *crit = rb_steady_criterion(tmp, s->n, slope, pct, mean);
    return *crit < limit;
}
