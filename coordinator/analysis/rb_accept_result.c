/* The evaluation half of acceptance: a finished run's figures judged against
 * the plan's [acceptance] sets (plan/rb_accept.h), one row per check and
 * phase, never letting a check pass where nothing was measured. It lives
 * apart from the description so that the plan parser links no aggregator. */
#include "rb_accept_result.h"
#include "rb_netfig.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_findings.h"
#include "rb_hist.h"
#include "rb_stats.h"
#include "rb_units.h"

#define S_REL_TOLERANCE 1e-12 /* the spread's division may round */

static int s_cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* Per-node bandwidth figures of a phase: the lowest over all its nodes (one
 * that did not complete counts as 0) and the spread over those that did. */
static int s_node_figures(const rb_phase_agg_t *ag, rb_accept_row_t *min_row,
                          rb_accept_row_t *spread_row)
{
    double *bw = malloc((ag->nnodes ? ag->nnodes : 1) * sizeof *bw);
    if (!bw)
        return -ENOMEM;
    uint32_t nok = 0;
    double lowest = INFINITY;
    for (uint32_t n = 0; n < ag->nnodes; n++) {
        bool ok = ag->nodes[n].status == RB_NODE_OK;
        double v = ok ? ag->nodes[n].bw : 0;
        if (ok)
            bw[nok++] = v;
        if (v < lowest)
            lowest = v;
    }
    min_row->measured = ag->nnodes ? lowest : NAN;
    if (!ag->nnodes)
        min_row->note = "no node took part";
    else if (nok < ag->nnodes)
        min_row->note = "a node did not complete the phase and counts as 0";

    qsort(bw, nok, sizeof *bw, s_cmp_double);
    if (nok == 0) {
        spread_row->measured = NAN;
        spread_row->note = "no node completed the phase";
    } else {
        double median = nok % 2 ? bw[nok / 2] : (bw[nok / 2 - 1] + bw[nok / 2]) / 2;
        double range = bw[nok - 1] - bw[0];
        if (range == 0) {
            spread_row->measured = 0;
        } else if (median > 0) {
            spread_row->measured = range / median * 100;
        } else {
            spread_row->measured = NAN;
            spread_row->note = "the median node bandwidth is 0";
        }
        if (nok < ag->nnodes && !spread_row->note)
            spread_row->note = "over the nodes that completed the phase";
    }
    free(bw);
    return 0;
}

/* The limit of check c in the unit of summary.json. */
static double s_limit(rb_accept_check_t c, uint64_t v)
{
    switch (c) {
    case RB_ACCEPT_MAX_NODE_SPREAD:
    case RB_ACCEPT_MAX_DEVICE_SPREAD:
    case RB_ACCEPT_MAX_LINK_SPREAD:
        return (double)v / (RB_ACCEPT_SPREAD_ONE / 100);
    case RB_ACCEPT_MAX_P99_LAT:
    case RB_ACCEPT_MAX_P999_LAT:
    case RB_ACCEPT_MAX_MEAN_LAT:
        return (double)v / 1e3;
    case RB_ACCEPT_MAX_STALL:
        return (double)v / 1e9;
    default:
        return (double)v;
    }
}

/* Judges a row whose measured value is known (or NAN: a fail). */
static rb_accept_verdict_t s_judge(rb_accept_check_t c, uint64_t limit, double measured,
                                   const rb_hist_t *h)
{
    if (isnan(measured))
        return RB_ACCEPT_FAIL;
    switch (c) {
    case RB_ACCEPT_MAX_NODE_SPREAD:
    case RB_ACCEPT_MAX_DEVICE_SPREAD:
    case RB_ACCEPT_MAX_LINK_SPREAD: {
        double lim = (double)limit / RB_ACCEPT_SPREAD_ONE * 100;
        return measured <= lim * (1 + S_REL_TOLERANCE) ? RB_ACCEPT_PASS : RB_ACCEPT_FAIL;
    }
    case RB_ACCEPT_MAX_P99_LAT:
        return rb_hist_percentile(h, 99) <= limit ? RB_ACCEPT_PASS : RB_ACCEPT_FAIL;
    case RB_ACCEPT_MAX_P999_LAT:
        return rb_hist_percentile(h, 99.9) <= limit ? RB_ACCEPT_PASS : RB_ACCEPT_FAIL;
    case RB_ACCEPT_MAX_MEAN_LAT:
        return rb_hist_mean(h) <= (double)limit ? RB_ACCEPT_PASS : RB_ACCEPT_FAIL;
    case RB_ACCEPT_MAX_STALL:
        return measured <= (double)limit / 1e9 * (1 + S_REL_TOLERANCE) ? RB_ACCEPT_PASS
                                                                       : RB_ACCEPT_FAIL;
    case RB_ACCEPT_MIN_NODES:
    case RB_ACCEPT_MAX_ERRORS:
    case RB_ACCEPT_MIN_IOPS:
    case RB_ACCEPT_MIN_AGGREGATE_BW:
    case RB_ACCEPT_MIN_NODE_BW:
    default:
        if (rb_accept_check_is_min(c))
            return measured >= (double)limit ? RB_ACCEPT_PASS : RB_ACCEPT_FAIL;
        return measured <= (double)limit ? RB_ACCEPT_PASS : RB_ACCEPT_FAIL;
    }
}

/* Names disk d in row as the report's findings and disks table do: its
 * node and its kernel name (its path when the agent found none). */
static void s_disk_name(rb_accept_row_t *row, const rb_agg_disk_t *d)
{
    snprintf(row->what, sizeof row->what, "%s %s", d->node,
             d->id.name[0] ? d->id.name : d->id.path);
}

/* The raw disks' figures for min_device_bw, min_device_iops and
 * max_device_spread: the slowest disk's, and the spread
 * of their bandwidths. A phase without raw disks leaves them unmeasured. */
static int s_disk_figures(const rb_phase_agg_t *ag, rb_accept_row_t *bw_row,
                          rb_accept_row_t *iops_row, rb_accept_row_t *spread_row)
{
    if (!ag->ndisks) {
        bw_row->measured = iops_row->measured = spread_row->measured = NAN;
        bw_row->note = iops_row->note = spread_row->note = "the phase ran on no raw device";
        return 0;
    }
    double *bw = malloc(ag->ndisks * sizeof *bw);
    if (!bw)
        return -ENOMEM;
    uint32_t slow = 0, fewest = 0;
    double lo = INFINITY, hi = 0;
    for (uint32_t i = 0; i < ag->ndisks; i++) {
        bw[i] = ag->disks[i].bw;
        if (bw[i] < ag->disks[slow].bw)
            slow = i;
        if (ag->disks[i].iops < ag->disks[fewest].iops)
            fewest = i;
        lo = bw[i] < lo ? bw[i] : lo;
        hi = bw[i] > hi ? bw[i] : hi;
    }
    bw_row->measured = ag->disks[slow].bw;
    bw_row->note = "the slowest disk";
    s_disk_name(bw_row, &ag->disks[slow]);
    iops_row->measured = ag->disks[fewest].iops;
    iops_row->note = "the disk of fewest IOPS";
    s_disk_name(iops_row, &ag->disks[fewest]);
    double med = rb_stats_median(bw, ag->ndisks);
    if (med > 0) {
        spread_row->measured = (hi - lo) / med * 100;
    } else {
        spread_row->measured = NAN;
        spread_row->note = "the median disk bandwidth is 0";
    }
    free(bw);
    return 0;
}

/* A network phase's figures for min_link_bw, min_node_net_bw and
 * max_link_spread: the slowest link (a failed one counts as what it moved),
 * the slowest node direction, and the spread of the links' rates. */
static void s_net_figures(const rb_phase_agg_t *ag, rb_accept_row_t *link_row,
                          rb_accept_row_t *node_row, rb_accept_row_t *spread_row)
{
    const rb_net_fig_t *f = ag->net;
    if (!f || !f->nlinks) {
        link_row->measured = node_row->measured = spread_row->measured = NAN;
        link_row->note = node_row->note = spread_row->note = "not a network phase";
        return;
    }
    uint32_t slow = 0;
    for (uint32_t i = 1; i < f->nlinks; i++)
        if (f->links[i].gbps < f->links[slow].gbps)
            slow = i;
    const rb_net_link_fig_t *l = &f->links[slow];
    link_row->measured = l->gbps * 1e9 / 8;
    link_row->note = l->status ? "the slowest link, which failed" : "the slowest link";
    if (l->from < ag->nnodes && l->to < ag->nnodes)
        snprintf(link_row->what, sizeof link_row->what, "%s to %s", ag->nodes[l->from].name,
                 ag->nodes[l->to].name);
    double lo = INFINITY;
    for (uint32_t r = 0; r < f->nnodes && r < ag->nnodes; r++) {
        const rb_net_node_fig_t *n = &f->nodes[r];
        for (int in = 0; in < 2; in++) {
            double g = in ? n->in_gbps : n->out_gbps;
            if (!(in ? n->in_bytes : n->out_bytes) && g == 0) {
                int any = 0; /* a node with no link that way is not judged that way */
                for (uint32_t i = 0; i < f->nlinks && !any; i++)
                    any = (in ? f->links[i].to : f->links[i].from) == r;
                if (!any)
                    continue;
            }
            if (g < lo) {
                lo = g;
                snprintf(node_row->what, sizeof node_row->what, "%s %s", ag->nodes[r].name,
                         in ? "in" : "out");
            }
        }
    }
    node_row->measured = isinf(lo) ? NAN : lo * 1e9 / 8;
    node_row->note = "the slowest node, in or out";
    if (f->median_gbps > 0)
        spread_row->measured = (f->max_gbps - f->min_gbps) / f->median_gbps * 100;
    else
        spread_row->measured = NAN;
    spread_row->note = "over the links that moved data";
}

/* Fills the rows of one set on one phase that ran. */
static int s_eval_phase(const rb_accept_set_t *s, const rb_phase_spec_t *spec,
                        const rb_phase_agg_t *ag, rb_accept_row_t *rows)
{
    rb_accept_row_t *by[RB_ACCEPT_NCHECKS] = {0};
    for (int c = 0, k = 0; c < RB_ACCEPT_NCHECKS; c++)
        if (s->limit_line[c] && !rb_accept_check_is_run(c))
            by[c] = &rows[k++];
    if (by[RB_ACCEPT_MIN_NODE_BW] || by[RB_ACCEPT_MAX_NODE_SPREAD]) {
        rb_accept_row_t scratch_min = {0}, scratch_spread = {0};
        rb_accept_row_t *mr = by[RB_ACCEPT_MIN_NODE_BW] ? by[RB_ACCEPT_MIN_NODE_BW] : &scratch_min;
        rb_accept_row_t *sr =
            by[RB_ACCEPT_MAX_NODE_SPREAD] ? by[RB_ACCEPT_MAX_NODE_SPREAD] : &scratch_spread;
        if (s_node_figures(ag, mr, sr) < 0)
            return -ENOMEM;
    }
    if (by[RB_ACCEPT_MIN_DEVICE_BW] || by[RB_ACCEPT_MIN_DEVICE_IOPS] ||
        by[RB_ACCEPT_MAX_DEVICE_SPREAD]) {
        rb_accept_row_t sb = {0}, si = {0}, ss = {0};
        if (s_disk_figures(ag, by[RB_ACCEPT_MIN_DEVICE_BW] ? by[RB_ACCEPT_MIN_DEVICE_BW] : &sb,
                           by[RB_ACCEPT_MIN_DEVICE_IOPS] ? by[RB_ACCEPT_MIN_DEVICE_IOPS] : &si,
                           by[RB_ACCEPT_MAX_DEVICE_SPREAD] ? by[RB_ACCEPT_MAX_DEVICE_SPREAD]
                                                           : &ss) < 0)
            return -ENOMEM;
    }
    if (by[RB_ACCEPT_MIN_LINK_BW] || by[RB_ACCEPT_MIN_NODE_NET_BW] ||
        by[RB_ACCEPT_MAX_LINK_SPREAD]) {
        rb_accept_row_t sl = {0}, sn = {0}, ss = {0};
        s_net_figures(ag, by[RB_ACCEPT_MIN_LINK_BW] ? by[RB_ACCEPT_MIN_LINK_BW] : &sl,
                      by[RB_ACCEPT_MIN_NODE_NET_BW] ? by[RB_ACCEPT_MIN_NODE_NET_BW] : &sn,
                      by[RB_ACCEPT_MAX_LINK_SPREAD] ? by[RB_ACCEPT_MAX_LINK_SPREAD] : &ss);
    }
    const rb_hist_t *h = &ag->hist;
    uint32_t nok = 0;
    for (uint32_t n = 0; n < ag->nnodes; n++)
        nok += ag->nodes[n].status == RB_NODE_OK;
    for (int c = 0; c < RB_ACCEPT_NCHECKS; c++) {
        rb_accept_row_t *r = by[c];
        if (!r)
            continue;
        if (rb_accept_check_is_bw(c) && rb_phase_spec_is_meta(spec)) {
            r->measured = NAN;
            r->verdict = RB_ACCEPT_NA;
            r->note = "bandwidth does not apply to a metadata step";
            continue;
        }
        int netc = c >= RB_ACCEPT_MIN_LINK_BW && c <= RB_ACCEPT_MAX_LINK_SPREAD;
        if ((netc || rb_accept_check_is_bw(c)) && netc != (ag->net != NULL)) {
            r->measured = NAN;
            r->verdict = RB_ACCEPT_NA;
            r->note = netc ? "a network check, and not a network phase"
                           : "a storage check, and a network phase";
            continue;
        }
        switch ((rb_accept_check_t)c) {
        case RB_ACCEPT_MIN_AGGREGATE_BW:
            r->measured = ag->aggregate_bw;
            break;
        case RB_ACCEPT_MAX_P99_LAT:
            r->measured = h->count ? (double)rb_hist_percentile(h, 99) / 1e3 : NAN;
            break;
        case RB_ACCEPT_MAX_P999_LAT:
            r->measured = h->count ? (double)rb_hist_percentile(h, 99.9) / 1e3 : NAN;
            break;
        case RB_ACCEPT_MAX_MEAN_LAT:
            r->measured = h->count ? rb_hist_mean(h) / 1e3 : NAN;
            break;
        case RB_ACCEPT_MIN_IOPS:
            r->measured = ag->iops;
            break;
        case RB_ACCEPT_MIN_NODES:
            r->measured = nok;
            break;
        case RB_ACCEPT_MAX_ERRORS:
            r->measured = (double)(ag->errors + ag->verify_errors);
            break;
        case RB_ACCEPT_MIN_INTERVAL_BW:
            r->measured = rb_findings_min_window_bw(ag, 0);
            break;
        case RB_ACCEPT_MIN_SUSTAINED_BW:
            r->measured = rb_findings_min_window_bw(ag, (double)s->sustained_window_ns / 1e9);
            if (!isnan(r->measured) &&
                ag->nbw_points * ag->bw_point_s < (double)s->sustained_window_ns / 1e9 - 1e-9)
                r->note = "the phase is shorter than the window: over the whole phase";
            break;
        case RB_ACCEPT_MAX_STALL:
            r->measured = ag->nbw_points ? ag->max_stall_s : NAN;
            break;
        default: /* per-node figures, filled above */
            break;
        }
        if (c >= RB_ACCEPT_MAX_P99_LAT && c <= RB_ACCEPT_MAX_MEAN_LAT && !h->count)
            r->note = "no latency was recorded";
        if (c >= RB_ACCEPT_MIN_INTERVAL_BW && c <= RB_ACCEPT_MAX_STALL && !ag->nbw_points)
            r->note = "no samples of every node's IO";
        r->verdict = s_judge((rb_accept_check_t)c, s->limit[c], r->measured, h);
        if (ag->partial && !r->note)
            r->note = "the phase is partial";
    }
    return 0;
}

/* A row judged on the mean of its iterations: the measured value against
 * the limit, latencies in us against a limit in ns. */
static rb_accept_verdict_t s_judge_mean(rb_accept_check_t c, uint64_t limit, double measured)
{
    if (isnan(measured))
        return RB_ACCEPT_FAIL;
    switch (c) {
    case RB_ACCEPT_MAX_P99_LAT:
    case RB_ACCEPT_MAX_P999_LAT:
    case RB_ACCEPT_MAX_MEAN_LAT:
        return measured * 1e3 <= (double)limit * (1 + S_REL_TOLERANCE) ? RB_ACCEPT_PASS
                                                                       : RB_ACCEPT_FAIL;
    default:
        return s_judge(c, limit, measured, NULL);
    }
}

/* iterations=mean: the rows of set s (n per phase, nrows in all, in the
 * order of s->phases) of each repeated phase become one row per check, on
 * the mean of its iterations. Returns the rows kept, moved to the front. */
static uint32_t s_collapse_mean(const rb_accept_set_t *s, const rb_plan_iter_t *iters,
                                uint32_t nphases, rb_accept_row_t *rows, uint32_t n)
{
    uint32_t kept = 0;
    for (uint32_t k = 0; k < s->nphases; k++) {
        uint32_t p = s->phases[k];
        const rb_plan_iter_t *it = p < nphases ? &iters[p] : NULL;
        if (!it || it->iterations < 2) {
            memmove(&rows[kept], &rows[k * n], n * sizeof *rows);
            kept += n;
            continue;
        }
        bool first = true; /* the first of its group in this set */
        for (uint32_t q = 0; q < k && first; q++)
            first = !(s->phases[q] < nphases && iters[s->phases[q]].group == it->group);
        if (!first)
            continue;
        for (uint32_t r = 0; r < n; r++) {
            rb_accept_row_t row = rows[k * n + r];
            double sum = 0;
            uint32_t got = 0, seen = 0;
            bool na = row.verdict == RB_ACCEPT_NA;
            for (uint32_t q = k; q < s->nphases; q++) {
                uint32_t pq = s->phases[q];
                if (pq >= nphases || iters[pq].group != it->group)
                    continue;
                seen++;
                double v = rows[q * n + r].measured;
                if (!isnan(v)) {
                    sum += v;
                    got++;
                }
            }
            row.phase = it->base;
            if (!na) {
                row.measured = got == seen && got ? sum / got : NAN;
                row.verdict = s_judge_mean(row.check, s->limit[row.check], row.measured);
                row.note =
                    got == seen ? "the mean of its iterations" : "an iteration was not measured";
                row.what[0] = '\0'; /* each iteration's disk may differ */
            }
            rows[kept++] = row;
        }
    }
    return kept;
}

int rb_accept_result_eval(const rb_accept_t *a, const rb_phase_spec_t *specs,
                          const rb_plan_iter_t *iters, uint32_t nphases, const rb_phase_agg_t *aggs,
                          uint32_t nrun, rb_accept_result_t *out)
{
    memset(out, 0, sizeof *out);
    if (!a)
        return 0;
    size_t total = 0;
    for (uint32_t i = 0; i < a->nsets; i++) {
        uint32_t nchecks = 0;
        for (int c = 0; c < RB_ACCEPT_NCHECKS; c++)
            nchecks += a->sets[i].limit_line[c] != 0 && !rb_accept_check_is_run(c);
        total += (size_t)nchecks * a->sets[i].nphases;
    }
    out->rows = calloc(total ? total : 1, sizeof *out->rows);
    if (!out->rows)
        return -ENOMEM;
    for (uint32_t i = 0; i < a->nsets; i++) {
        const rb_accept_set_t *s = &a->sets[i];
        uint32_t set_first = out->nrows, nchecks = 0;
        for (int c = 0; c < RB_ACCEPT_NCHECKS; c++)
            nchecks += s->limit_line[c] != 0 && !rb_accept_check_is_run(c);
        for (uint32_t k = 0; k < s->nphases; k++) {
            uint32_t p = s->phases[k];
            rb_accept_row_t *rows = &out->rows[out->nrows];
            if (p >= nphases) { /* cannot be: resolved against these phases */
                for (uint32_t r = 0; r < nchecks; r++)
                    rows[r] = (rb_accept_row_t){.set = s->name, .phase = "?", .measured = NAN};
                out->nrows += nchecks;
                continue;
            }
            uint32_t n = 0;
            for (int c = 0; c < RB_ACCEPT_NCHECKS; c++) {
                if (!s->limit_line[c] || rb_accept_check_is_run(c))
                    continue;
                rows[n] = (rb_accept_row_t){.set = s->name,
                                            .check = (rb_accept_check_t)c,
                                            .phase = specs[p].name,
                                            .limit = s_limit((rb_accept_check_t)c, s->limit[c]),
                                            .measured = NAN,
                                            .verdict = RB_ACCEPT_FAIL,
                                            .note = "the phase did not run"};
                n++;
            }
            if (p < nrun) {
                for (uint32_t r = 0; r < n; r++)
                    rows[r].note = NULL;
                if (s_eval_phase(s, &specs[p], &aggs[p], rows) < 0) {
                    rb_accept_result_fini(out);
                    return -ENOMEM;
                }
            } else if (rb_phase_spec_is_meta(&specs[p])) {
                for (uint32_t r = 0; r < n; r++) {
                    if (rb_accept_check_is_bw(rows[r].check)) {
                        rows[r].verdict = RB_ACCEPT_NA;
                        rows[r].note = "bandwidth does not apply to a metadata step";
                    }
                }
            }
            out->nrows += n;
        }
        if (s->iter_mean && iters && nchecks)
            out->nrows =
                set_first + s_collapse_mean(s, iters, nphases, &out->rows[set_first], nchecks);
    }
    for (uint32_t r = 0; r < out->nrows; r++) {
        out->nfailed += out->rows[r].verdict == RB_ACCEPT_FAIL;
        out->nna += out->rows[r].verdict == RB_ACCEPT_NA;
    }
    return 0;
}

const char *rb_accept_row_note(const rb_accept_row_t *row, char *buf, size_t len)
{
    if (!row->note)
        return NULL;
    snprintf(buf, len, "%s%s%s", row->note, row->what[0] ? ": " : "", row->what);
    return buf;
}

void rb_accept_result_fini(rb_accept_result_t *r)
{
    if (!r)
        return;
    free(r->rows);
    r->rows = NULL;
    r->nrows = r->nfailed = r->nna = 0;
}

char *rb_accept_result_verdict(const rb_accept_result_t *r, char *buf, size_t len)
{
    uint32_t n = r->nrows - r->nna;
    char na[48] = "";
    if (r->nna)
        snprintf(na, sizeof na, "; %u not applicable", r->nna);
    if (r->nfailed)
        snprintf(buf, len, "acceptance: FAIL (%u of %u check%s failed%s)", r->nfailed, n,
                 n == 1 ? "" : "s", na);
    else
        snprintf(buf, len, "acceptance: PASS (%u check%s%s)", n, n == 1 ? "" : "s", na);
    return buf;
}

/* v with three significant digits and a unit ("5.00 ms", "12.5 us", "250 ns"). */
static void s_sig3(char *buf, size_t len, double v, const char *unit)
{
    if (v >= 99.95)
        snprintf(buf, len, "%.0f%s", v, unit);
    else if (v >= 9.995)
        snprintf(buf, len, "%.1f%s", v, unit);
    else
        snprintf(buf, len, "%.2f%s", v, unit);
}

/* A limit or measured value of check c (in its summary.json unit) for people. */
void rb_accept_result_value_text(char *buf, size_t len, rb_accept_check_t c, double v)
{
    if (isnan(v)) {
        snprintf(buf, len, "-");
        return;
    }
    switch (c) {
    case RB_ACCEPT_MIN_AGGREGATE_BW:
    case RB_ACCEPT_MIN_NODE_BW:
    case RB_ACCEPT_MIN_INTERVAL_BW:
    case RB_ACCEPT_MIN_SUSTAINED_BW:
    case RB_ACCEPT_MIN_DEVICE_BW:
        rb_units_fmt_bw(buf, len, v);
        break;
    case RB_ACCEPT_MAX_STALL:
        s_sig3(buf, len, v, " s");
        break;
    case RB_ACCEPT_MAX_NODE_SPREAD:
    case RB_ACCEPT_MAX_DEVICE_SPREAD:
        s_sig3(buf, len, v, "%");
        break;
    case RB_ACCEPT_MAX_P99_LAT:
    case RB_ACCEPT_MAX_P999_LAT:
    case RB_ACCEPT_MAX_MEAN_LAT:
        if (v >= 1e6 - 0.5)
            s_sig3(buf, len, v / 1e6, " s");
        else if (v >= 1e3 - 0.5)
            s_sig3(buf, len, v / 1e3, " ms");
        else if (v >= 1 - 0.0005)
            s_sig3(buf, len, v, " us");
        else
            snprintf(buf, len, "%.0f ns", v * 1e3);
        break;
    case RB_ACCEPT_MIN_IOPS:
    case RB_ACCEPT_MIN_DEVICE_IOPS:
        snprintf(buf, len, "%.0f IOPS", v);
        break;
    default:
        snprintf(buf, len, "%.0f", v);
        break;
    }
}
