/* Findings of a phase (see rb_findings.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_findings.h"
#include "rb_stats.h"
#include "rb_units.h"

char *rb_findings_head(const rb_finding_t *x, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s%s%s", rb_findings_kind_name(x->kind),
             x->node[0] ? x->node : "cluster", x->device[0] ? " " : "", x->device);
    return buf;
}

const char *rb_findings_kind_name(rb_finding_kind_t k)
{
    static const char *const names[] = {[RB_FIND_STRAGGLER] = "straggler",
                                        [RB_FIND_IMBALANCE] = "imbalanced-disk",
                                        [RB_FIND_CPU_BOUND] = "cpu-bound",
                                        [RB_FIND_NIC_BOUND] = "nic-bound",
                                        [RB_FIND_DEVICE_BOUND] = "device-bound",
                                        [RB_FIND_HONESTY] = "honesty",
                                        [RB_FIND_STALL] = "stall",
                                        [RB_FIND_OUT_OF_FAMILY] = "out-of-family",
                                        [RB_FIND_SLOW_LINK] = "slow-link",
                                        [RB_FIND_ASYM_LINK] = "asymmetric-link",
                                        [RB_FIND_LINK_FAILED] = "link-failed",
                                        [RB_FIND_NET_BOUND] = "network-bound"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

int rb_findings_add(rb_phase_agg_t *a, const rb_finding_t *f)
{
    rb_finding_t *n = realloc(a->findings, (a->nfindings + 1) * sizeof *n);
    if (!n)
        return -ENOMEM;
    a->findings = n;
    a->findings[a->nfindings++] = *f;
    return 0;
}

/* Each interval's median node, into meds (nint entries). */
static void s_interval_medians(const double *const *series, uint32_t nnodes, uint32_t nint,
                               double *scratch, double *meds)
{
    for (uint32_t k = 0; k < nint; k++) {
        for (uint32_t i = 0; i < nnodes; i++)
            scratch[i] = series[i] ? series[i][k] : 0;
        meds[k] = rb_stats_median(scratch, nnodes);
    }
}

/* From which interval on node n stayed below (1 - margin) of each
 * interval's median node (meds); -1 when it never did for good. */
static double s_first_seen(const double *const *series, uint32_t n, uint32_t nint,
                           double interval_s, const double *meds)
{
    int64_t since = -1;
    for (uint32_t k = 0; k < nint; k++) {
        double med = meds[k];
        int behind = med > 0 && series[n][k] < (1 - RB_STRAGGLER_MARGIN) * med;
        if (behind && since < 0)
            since = k;
        else if (!behind)
            since = -1;
    }
    return since < 0 ? -1 : (double)since * interval_s;
}

int rb_findings_stragglers(rb_phase_agg_t *a, const double *const *series, uint32_t nint,
                           double interval_s)
{
    uint32_t m = 0;
    double *bw = calloc(a->nnodes ? a->nnodes : 1, sizeof *bw);
    double *dev = calloc(a->nnodes ? a->nnodes : 1, sizeof *dev);
    double *meds = NULL; /* each interval's median node, once a straggler needs them */
    if (!bw || !dev) {
        free(bw);
        free(dev);
        return -ENOMEM;
    }
    for (uint32_t n = 0; n < a->nnodes; n++)
        if (a->nodes[n].workers && a->nodes[n].window_s > 0)
            bw[m++] = a->nodes[n].bw;
    int rc = 0;
    if (m >= 3) {
        double med = rb_stats_median(bw, m);
        for (uint32_t i = 0; i < m; i++)
            dev[i] = fabs(bw[i] - med);
        double mad = rb_stats_median(dev, m);
        for (uint32_t n = 0; n < a->nnodes && rc == 0; n++) {
            const rb_agg_node_t *an = &a->nodes[n];
            if (!an->workers || an->window_s <= 0)
                continue;
            double gap = med - an->bw;
            if (gap <= RB_STRAGGLER_MADS * mad || gap <= RB_STRAGGLER_MARGIN * med)
                continue;
            if (series && series[n] && nint && !meds) {
                if (!(meds = calloc(nint, sizeof *meds))) {
                    rc = -ENOMEM;
                    break;
                }
                s_interval_medians(series, a->nnodes, nint, dev, meds);
            }
            rb_finding_t f = {.kind = RB_FIND_STRAGGLER, .value = an->bw, .reference = med};
            snprintf(f.node, sizeof f.node, "%s", an->name);
            f.first_seen_s =
                series && series[n] && nint ? s_first_seen(series, n, nint, interval_s, meds) : -1;
            char b1[64], b2[64];
            snprintf(f.evidence, sizeof f.evidence,
                     "%s against a median node of %s (%.0f%% of it; MAD %.1f%% of the median)",
                     rb_units_fmt_bw(b1, sizeof b1, an->bw), rb_units_fmt_bw(b2, sizeof b2, med),
                     med > 0 ? an->bw / med * 100 : 0, med > 0 ? mad / med * 100 : 0);
            rc = rb_findings_add(a, &f);
        }
    }
    free(bw);
    free(dev);
    free(meds);
    return rc;
}

/* ---- stalls ---- */

/* The first and last point at which series v (n points) moved data: *lo >
 * *hi when it never did. */
static void s_active(const double *v, uint32_t n, uint32_t *lo, uint32_t *hi)
{
    *lo = 1;
    *hi = 0;
    for (uint32_t k = 0; v && k < n; k++) {
        if (v[k] <= 0)
            continue;
        if (*lo > *hi)
            *lo = k;
        *hi = k;
    }
}

/* Appends the stalls of series v over points lo..hi (its median med): runs
 * of at least RB_STALL_INTERVALS points (and RB_STALL_MIN_S) below RB_STALL_FRACTION of med that
 * end before hi (the series recovered). Runs inside one of the cluster's
 * stalls (the ncl findings from index cl0) are left to it. 0 or -ENOMEM. */
static int s_stall_runs(rb_phase_agg_t *a, const char *node, const double *v, uint32_t lo,
                        uint32_t hi, double med, double point_s, double t0, uint32_t cl0,
                        uint32_t ncl)
{
    double low = RB_STALL_FRACTION * med;
    uint32_t k = lo;
    while (med > 0 && k <= hi) {
        if (v[k] >= low) {
            k++;
            continue;
        }
        uint32_t start = k;
        double sum = 0;
        while (k <= hi && v[k] < low)
            sum += v[k++];
        uint32_t len = k - start;
        if (len < RB_STALL_INTERVALS || len * point_s < RB_STALL_MIN_S - 1e-9 || k > hi)
            continue; /* too short, or the end of the node's IO */
        double at = t0 + start * point_s, length = len * point_s;
        int inside = 0;
        for (uint32_t i = cl0; i < cl0 + ncl && node[0]; i++) {
            const rb_finding_t *c = &a->findings[i];
            inside |=
                at >= c->first_seen_s - 1e-9 && at + length <= c->first_seen_s + c->length_s + 1e-9;
        }
        if (inside)
            continue;
        rb_finding_t f = {.kind = RB_FIND_STALL,
                          .value = sum / len,
                          .reference = med,
                          .first_seen_s = at,
                          .length_s = length};
        snprintf(f.node, sizeof f.node, "%s", node);
        char b1[64], b2[64];
        snprintf(f.evidence, sizeof f.evidence,
                 "%s for %.1f s from %.1f s after GO: %s against a median of %s (under %.0f%% "
                 "of it)",
                 node[0] ? "the node slowed down" : "every node slowed down", length, at,
                 rb_units_fmt_bw(b1, sizeof b1, f.value), rb_units_fmt_bw(b2, sizeof b2, med),
                 RB_STALL_FRACTION * 100);
        if (rb_findings_add(a, &f) < 0)
            return -ENOMEM;
        if (length > a->max_stall_s)
            a->max_stall_s = length;
    }
    return 0;
}

int rb_findings_stalls(rb_phase_agg_t *a, const double *const *series, uint32_t nint,
                       double interval_s)
{
    free(a->bw_points);
    a->bw_points = NULL;
    a->nbw_points = 0;
    a->bw_point_s = interval_s;
    a->bw_point_t0 = 0;
    a->max_stall_s = 0;
    if (!series || !nint || interval_s <= 0)
        return 0;
    /* the points every node that completed the phase moved data in */
    uint32_t lo = 0, hi = nint - 1, nok = 0;
    for (uint32_t n = 0; n < a->nnodes; n++) {
        uint32_t l, h;
        if (a->nodes[n].status != RB_NODE_OK || !series[n])
            continue;
        s_active(series[n], nint, &l, &h);
        if (l > h)
            continue;
        lo = l > lo ? l : lo;
        hi = h < hi ? h : hi;
        nok++;
    }
    if (!nok || lo > hi)
        return 0;
    uint32_t m = hi - lo + 1;
    double *bw = calloc(m, sizeof *bw), *scratch = calloc(nint, sizeof *scratch);
    if (!bw || !scratch) {
        free(bw);
        free(scratch);
        return -ENOMEM;
    }
    for (uint32_t k = 0; k < m; k++)
        for (uint32_t n = 0; n < a->nnodes; n++)
            bw[k] += series[n] ? series[n][lo + k] : 0;
    a->bw_points = bw;
    a->nbw_points = m;
    a->bw_point_t0 = lo * interval_s;
    memcpy(scratch, bw, m * sizeof *bw);
    uint32_t before = a->nfindings;
    int rc = s_stall_runs(a, "", bw, 0, m - 1, rb_stats_median(scratch, m), interval_s,
                          a->bw_point_t0, 0, 0);
    uint32_t ncl = a->nfindings - before;
    for (uint32_t n = 0; n < a->nnodes && rc == 0; n++) {
        uint32_t l, h;
        if (a->nodes[n].status != RB_NODE_OK || !series[n])
            continue;
        s_active(series[n], nint, &l, &h);
        if (l > h)
            continue;
        memcpy(scratch, series[n] + l, (h - l + 1) * sizeof *scratch);
        double med = rb_stats_median(scratch, h - l + 1);
        rc = s_stall_runs(a, a->nodes[n].name, series[n], l, h, med, interval_s, 0, before, ncl);
    }
    free(scratch);
    return rc;
}

double rb_findings_min_window_bw(const rb_phase_agg_t *a, double window_s)
{
    if (!a->nbw_points || !a->bw_points || a->bw_point_s <= 0)
        return NAN;
    uint32_t w = (uint32_t)ceil(window_s / a->bw_point_s - 1e-9);
    if (w < 1)
        w = 1;
    if (w > a->nbw_points)
        w = a->nbw_points; /* a phase shorter than the window: its whole length */
    double sum = 0, best = INFINITY;
    for (uint32_t k = 0; k < a->nbw_points; k++) {
        sum += a->bw_points[k];
        if (k >= w)
            sum -= a->bw_points[k - w];
        if (k + 1 >= w && sum / w < best)
            best = sum / w;
    }
    return best > 0 ? best : 0; /* the running sum's rounding: never -0 */
}
