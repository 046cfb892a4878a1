/* Findings of a phase (see rb_findings.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_findings.h"
#include "rb_units.h"

const char *rb_finding_kind_name(rb_finding_kind_t k)
{
    static const char *const names[] = {
        [RB_FIND_STRAGGLER] = "straggler",       [RB_FIND_IMBALANCE] = "imbalanced-disk",
        [RB_FIND_CPU_BOUND] = "cpu-bound",       [RB_FIND_NIC_BOUND] = "nic-bound",
        [RB_FIND_DEVICE_BOUND] = "device-bound", [RB_FIND_HONESTY] = "honesty"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

int rb_finding_add(rb_phase_agg_t *a, const rb_finding_t *f)
{
    rb_finding_t *n = realloc(a->findings, (a->nfindings + 1) * sizeof *n);
    if (!n)
        return -ENOMEM;
    a->findings = n;
    a->findings[a->nfindings++] = *f;
    return 0;
}

/* From which interval on node n stayed below (1 - margin) of each
 * interval's median node; -1 when it never did for good. */
static double s_first_seen(const double *const *series, uint32_t nnodes, uint32_t n, uint32_t nint,
                           double interval_s, double *scratch)
{
    int64_t since = -1;
    for (uint32_t k = 0; k < nint; k++) {
        for (uint32_t i = 0; i < nnodes; i++)
            scratch[i] = series[i] ? series[i][k] : 0;
        double med = rb_median(scratch, nnodes);
        int behind = med > 0 && series[n][k] < (1 - RB_STRAGGLER_MARGIN) * med;
        if (behind && since < 0)
            since = k;
        else if (!behind)
            since = -1;
    }
    return since < 0 ? -1 : (double)since * interval_s;
}

int rb_find_stragglers(rb_phase_agg_t *a, const double *const *series, uint32_t nint,
                       double interval_s)
{
    uint32_t m = 0;
    double *bw = calloc(a->nnodes ? a->nnodes : 1, sizeof *bw);
    double *dev = calloc(a->nnodes ? a->nnodes : 1, sizeof *dev);
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
        double med = rb_median(bw, m);
        for (uint32_t i = 0; i < m; i++)
            dev[i] = fabs(bw[i] - med);
        double mad = rb_median(dev, m);
        for (uint32_t n = 0; n < a->nnodes && rc == 0; n++) {
            const rb_agg_node_t *an = &a->nodes[n];
            if (!an->workers || an->window_s <= 0)
                continue;
            double gap = med - an->bw;
            if (gap <= RB_STRAGGLER_MADS * mad || gap <= RB_STRAGGLER_MARGIN * med)
                continue;
            rb_finding_t f = {.kind = RB_FIND_STRAGGLER, .value = an->bw, .reference = med};
            snprintf(f.node, sizeof f.node, "%s", an->name);
            f.first_seen_s = series && series[n] && nint
                                 ? s_first_seen(series, a->nnodes, n, nint, interval_s, dev)
                                 : -1;
            char b1[64], b2[64];
            snprintf(f.evidence, sizeof f.evidence,
                     "%s against a median node of %s (%.0f%% of it; MAD %.1f%% of the median)",
                     rb_fmt_bw(b1, sizeof b1, an->bw), rb_fmt_bw(b2, sizeof b2, med),
                     med > 0 ? an->bw / med * 100 : 0, med > 0 ? mad / med * 100 : 0);
            rc = rb_finding_add(a, &f);
        }
    }
    free(bw);
    free(dev);
    return rc;
}
