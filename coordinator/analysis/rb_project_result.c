/* The evaluation half of the projection: from a finished run, what N racks
 * of the unit a plan's [capacity] section describes (plan/rb_project.h)
 * would hold and deliver. Every figure is the median node's, not the best
 * one's; every line says whether it was measured or projected and from
 * what, so no projection is ever printed without its measured source. */
#include "rb_project_result.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rb_stats.h"
#include "rb_text.h"
#include "rb_units.h"

#define S_REL_TOLERANCE 1e-12 /* a quotient of doubles may round up */

/* Appends a line to r (sized by the caller); returns it for its source. */
__attribute__((format(printf, 6, 7))) static rb_project_line_t *
s_line(rb_project_result_t *r, const char *label, double value, const char *unit,
       rb_project_kind_t kind, const char *fmt, ...)
{
    rb_project_line_t *l = &r->lines[r->nlines++];
    snprintf(l->label, sizeof l->label, "%s", label);
    l->value = value;
    l->unit = unit;
    l->kind = kind;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->source, sizeof l->source, fmt, ap);
    va_end(ap);
    return l;
}

__attribute__((format(printf, 2, 3))) static void s_note(rb_project_result_t *r, const char *fmt,
                                                         ...)
{
    if (r->nnotes == RB_PROJECT_NOTES_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->notes[r->nnotes++], RB_PROJECT_SOURCE_MAX, fmt, ap);
    va_end(ap);
}

/* ceil(q), forgiving the last bits of a quotient of doubles. */
static double s_ceil(double q)
{
    return ceil(q * (1 - S_REL_TOLERANCE));
}

/* "8 units a rack (41U / 5U)" or "8 units a rack (units_per_rack)". */
static const char *s_rack_words(char *buf, size_t len, const rb_project_t *p)
{
    if (p->key_line[RB_CAP_UNITS_PER_RACK])
        snprintf(buf, len, "%" PRIu64 " units a rack", p->units_per_rack);
    else
        snprintf(buf, len, "%" PRIu64 " units a rack (%" PRIu64 "U / %" PRIu64 "U)",
                 p->units_per_rack, p->rack_height_u, p->unit_height_u);
    return buf;
}

static void s_eval_capacity(const rb_project_t *p, rb_project_result_t *r)
{
    char a[48], b[48], c[48], words[RB_PROJECT_SOURCE_MAX], rack[96];
    double raw = 0, after = 0, usable = 0;
    bool given = p->key_line[RB_CAP_USABLE_PER_UNIT] != 0; /* given: typed in */
    if (p->has_model) {
        raw = (double)((unsigned __int128)p->disks * p->disk_size);
        unsigned __int128 data = (unsigned __int128)p->data_disks * p->disk_size;
        after = (double)data;
        s_line(r, "raw capacity per unit", raw, "B", RB_PROJECT_PROJECTED,
               "%" PRIu64 " disks x %s, as sold (powers of 1000)", p->disks,
               rb_project_human(a, sizeof a, (double)p->disk_size, false, ""));
        s_line(r, "capacity after RAID per unit", after, "B", RB_PROJECT_PROJECTED, "%s",
               rb_project_model_words(words, sizeof words, p));
        if (!given) {
            /* rounded down to the byte: the file system keeps the rest */
            usable = (double)(data * (RB_PROJECT_ONE - p->fs_overhead_ppm) / RB_PROJECT_ONE);
            if (p->key_line[RB_CAP_FS_OVERHEAD])
                s_line(r, "usable capacity per unit", usable, "B", RB_PROJECT_PROJECTED,
                       "%s after RAID less fs_overhead %s; not measured",
                       rb_project_human(a, sizeof a, after, false, ""),
                       rb_project_fixed_text(b, sizeof b, p->fs_overhead_ppm, true));
            else
                s_line(r, "usable capacity per unit", usable, "B", RB_PROJECT_PROJECTED,
                       "%s after RAID, no fs_overhead given; not measured",
                       rb_project_human(a, sizeof a, after, false, ""));
            s_note(r, "usable capacity per unit is projected from the RAID model: "
                      "usable_per_unit= (what df shows on a real unit) gives it");
        }
    }
    if (given) {
        usable = (double)p->usable_per_unit;
        if (p->has_model && raw > 0)
            s_line(r, "usable capacity per unit", usable, "B", RB_PROJECT_GIVEN,
                   "usable_per_unit in the plan, as df shows on a unit (typed in, not measured "
                   "by this run); %.1f%% of raw lost to redundancy, spares and the file system",
                   (raw - usable) / raw * 100);
        else
            s_line(r, "usable capacity per unit", usable, "B", RB_PROJECT_GIVEN,
                   "usable_per_unit in the plan, as df shows on a unit (typed in, not measured "
                   "by this run)");
        if (p->has_model && usable > after)
            s_note(r,
                   "usable_per_unit (%s) is more than the RAID model leaves (%s): was it read "
                   "from df -h, whose T is TiB, rounded? df -B1 or df -H gives bytes or powers "
                   "of 1000",
                   rb_project_human(a, sizeof a, usable, false, ""),
                   rb_project_human(b, sizeof b, after, false, ""));
    }
    if (usable <= 0 && !given && !p->has_model)
        return;
    const char *from = given ? "given" : "projected";
    if (p->units_per_rack) {
        s_line(r, "usable capacity per rack", usable * (double)p->units_per_rack, "B",
               RB_PROJECT_PROJECTED, "%s a unit (%s) x %s",
               rb_project_human(a, sizeof a, usable, false, ""), from,
               s_rack_words(rack, sizeof rack, p));
    }
    if (p->key_line[RB_CAP_TARGET_CAPACITY] && usable > 0) {
        double target = (double)p->target_capacity;
        unsigned __int128 per_unit = given ? p->usable_per_unit
                                           : (unsigned __int128)p->data_disks * p->disk_size *
                                                 (RB_PROJECT_ONE - p->fs_overhead_ppm) /
                                                 RB_PROJECT_ONE;
        if (per_unit == 0)
            return;
        unsigned __int128 units = (p->target_capacity + per_unit - 1) / per_unit;
        s_line(r, "units for target_capacity", (double)units, "units", RB_PROJECT_PROJECTED,
               "%s / %s a unit (%s) = %.2f, rounded up",
               rb_project_human(a, sizeof a, target, false, ""),
               rb_project_human(b, sizeof b, usable, false, ""), from, target / usable);
        if (p->units_per_rack) {
            double per_rack = usable * (double)p->units_per_rack;
            unsigned __int128 racks = (units + p->units_per_rack - 1) / p->units_per_rack;
            s_line(r, "racks for target_capacity", (double)racks, "racks", RB_PROJECT_PROJECTED,
                   "%s / %s a rack = %.2f, rounded up",
                   rb_project_human(a, sizeof a, target, false, ""),
                   rb_project_human(c, sizeof c, per_rack, false, ""), target / per_rack);
        }
    }
}

/* What one phase, or the iterations of a repeated one, measured a unit. */
typedef struct {
    const char *name;        /* the phase's name, or a repeated phase's base name */
    bool random;             /* a job of it moves at random offsets: sized by IOPS */
    uint32_t of;             /* its iterations in the projection (1: not repeated) */
    uint32_t runs;           /* those that measured something */
    uint32_t nodes;          /* one phase: the nodes that completed it ... */
    uint32_t nnodes;         /* ... of those it ran on */
    double node_min[2];      /* one phase: the slowest and fastest node, bandwidth ... */
    double node_max[2];      /* ... and IOPS */
    rb_stats_summary_t v[2]; /* the median node's bandwidth and IOPS (over the runs) */
} s_measure_t;

enum { S_BW = 0, S_IOPS = 1 };

/* An operation rate for people: "850 IOPS", "23.5k IOPS", "1.20M IOPS". */
static const char *s_ops_text(char *buf, size_t len, double v)
{
    static const char *const unit[] = {"", "k", "M", "G"};
    int u = 0;
    while (v >= 999.95 && u < 3) {
        v /= 1000;
        u++;
    }
    if (v == floor(v) || v >= 99.95)
        snprintf(buf, len, "%.0f%s IOPS", v, unit[u]);
    else if (v >= 9.995)
        snprintf(buf, len, "%.1f%s IOPS", v, unit[u]);
    else
        snprintf(buf, len, "%.2f%s IOPS", v, unit[u]);
    return buf;
}

/* A figure of metric m in powers of 1000: "1.50 GB/s" or "23.5k IOPS". */
static const char *s_fig(char *buf, size_t len, double v, int m)
{
    return m == S_IOPS ? s_ops_text(buf, len, v) : rb_project_human(buf, len, v, false, "/s");
}

/* The median of the completed nodes' bandwidth and IOPS of ag into *bw and
 * *iops, their count and range into *out; 0 when no node completed it. */
static int s_median_node(const rb_phase_agg_t *ag, double *scratch, s_measure_t *out, double *bw,
                         double *iops)
{
    for (int m = S_BW; m <= S_IOPS; m++) {
        uint32_t nok = 0;
        for (uint32_t n = 0; n < ag->nnodes; n++)
            if (ag->nodes[n].status == RB_NODE_OK)
                scratch[nok++] = m == S_IOPS ? ag->nodes[n].iops : ag->nodes[n].bw;
        if (nok == 0)
            return 0;
        *(m == S_IOPS ? iops : bw) = rb_stats_median(scratch, nok); /* sorts */
        out->nodes = nok;
        out->nnodes = ag->nnodes;
        out->node_min[m] = scratch[0];
        out->node_max[m] = scratch[nok - 1];
    }
    return 1;
}

/* Appends the measured line of metric m: one phase's median node, or the
 * mean of the iterations' median nodes with their spread. */
static rb_project_line_t *s_measured(rb_project_result_t *r, const s_measure_t *ms, int m)
{
    char a[48], b[48], c[48], range[120] = "";
    const char *label = m == S_IOPS ? "IOPS per unit" : "throughput per unit";
    const char *unit = m == S_IOPS ? "ops/s" : "B/s";
    const rb_stats_summary_t *v = &ms->v[m];
    rb_project_line_t *l;
    if (ms->of > 1) {
        char some[64] = "";
        if (ms->runs < ms->of)
            snprintf(some, sizeof some, " (the %u of %u that measured something)", ms->runs,
                     ms->of);
        l = s_line(r, label, v->mean, unit, RB_PROJECT_MEASURED,
                   "phase %s, mean of %u iteration%s%s, each the median node: from %s to %s, "
                   "stdev %s; one node is one unit",
                   ms->name, ms->runs, ms->runs == 1 ? "" : "s", some,
                   s_fig(a, sizeof a, v->min, m), s_fig(b, sizeof b, v->max, m),
                   s_fig(c, sizeof c, v->stddev, m));
        l->iterations = ms->runs;
        l->min = v->min;
        l->max = v->max;
        l->stdev = v->stddev;
    } else {
        if (ms->nodes > 1)
            snprintf(range, sizeof range, "; nodes from %s to %s",
                     s_fig(a, sizeof a, ms->node_min[m], m),
                     s_fig(b, sizeof b, ms->node_max[m], m));
        if (ms->nodes < ms->nnodes)
            l = s_line(r, label, v->mean, unit, RB_PROJECT_MEASURED,
                       "phase %s, median of the %u of %u nodes that completed it%s; one node is "
                       "one unit",
                       ms->name, ms->nodes, ms->nnodes, range);
        else
            l = s_line(r, label, v->mean, unit, RB_PROJECT_MEASURED,
                       "phase %s, median of %u node%s%s; one node is one unit", ms->name, ms->nodes,
                       ms->nodes == 1 ? "" : "s", range);
    }
    l->phase = ms->name;
    return l;
}

/* The lines of metric m of a phase that measured something: per unit, per
 * rack (derated), and the units and racks its target needs (with_target). */
static void s_eval_metric(const rb_project_t *p, const s_measure_t *ms, int m, bool with_target,
                          rb_project_result_t *r)
{
    char a[48], b[48], c[48], rack[96];
    const char *name = ms->name, *what = m == S_IOPS ? "IOPS" : "throughput";
    const char *unit = m == S_IOPS ? "ops/s" : "B/s";
    const char *tkey = m == S_IOPS ? "target_iops" : "target_bw";
    const double median = ms->v[m].mean;
    rb_project_line_t *l = s_measured(r, ms, m);
    char label[RB_PROJECT_LABEL_MAX];

    const bool derate = p->key_line[RB_CAP_DERATE] != 0;
    const double d = (double)p->derate_ppm / RB_PROJECT_ONE;
    char dbuf[32];
    rb_project_fixed_text(dbuf, sizeof dbuf, p->derate_ppm, false);
    s_fig(c, sizeof c, median, m);
    if (p->units_per_rack) {
        double per_rack = median * (double)p->units_per_rack;
        snprintf(label, sizeof label, "%s per rack", what);
        l = s_line(r, label, per_rack, unit, RB_PROJECT_PROJECTED, "%s a unit (measured, %s) x %s",
                   c, name, s_rack_words(rack, sizeof rack, p));
        l->phase = name;
        if (derate) {
            snprintf(label, sizeof label, "%s per rack, derated", what);
            l = s_line(r, label, per_rack * d, unit, RB_PROJECT_PROJECTED, "%s a rack x derate %s",
                       s_fig(a, sizeof a, per_rack, m), dbuf);
            l->phase = name;
        }
    }
    if (!with_target)
        return;
    if (median <= 0) {
        s_note(r, "phase %s: the median node moved nothing, so no count of units meets %s", name,
               tkey);
        return;
    }
    const double target = m == S_IOPS ? (double)p->target_iops : (double)p->target_bw;
    s_fig(a, sizeof a, target, m);
    for (int pass = 0; pass < 1 + derate; pass++) {
        double per_unit = pass ? median * d : median;
        double units = s_ceil(target / per_unit);
        const char *suffix = pass ? ", derated" : "";
        char per[112];
        if (pass)
            snprintf(per, sizeof per, "%s a unit (measured, %s) x derate %s", c, name, dbuf);
        else
            snprintf(per, sizeof per, "%s a unit (measured, %s)", c, name);
        snprintf(label, sizeof label, "units for %s%s", tkey, suffix);
        l = s_line(r, label, units, "units", RB_PROJECT_PROJECTED, "%s / %s = %.2f, rounded up", a,
                   per, target / per_unit);
        l->phase = name;
        if (p->units_per_rack) {
            double per_rack = per_unit * (double)p->units_per_rack;
            snprintf(label, sizeof label, "racks for %s%s", tkey, suffix);
            l = s_line(r, label, ceil(units / (double)p->units_per_rack), "racks",
                       RB_PROJECT_PROJECTED, "%s / %s a%s rack = %.2f, rounded up", a,
                       s_fig(b, sizeof b, per_rack, m), pass ? " derated" : "", target / per_rack);
            l->phase = name;
        }
    }
}

/* 1 when a job of the phase moves at random offsets. */
static bool s_random(const rb_phase_spec_t *spec)
{
    for (uint32_t j = 0; j < spec->njobs; j++)
        if (rb_rw_random(spec->jobs[j].rw))
            return true;
    return false;
}

/* The lines of one phase, or of the iterations of a repeated one: idx[n]
 * are their indexes in the plan (aggs holds the first nrun). Bandwidth for
 * every phase, sized by target_bw when sequential; IOPS for a random phase
 * and wherever target_iops is given, sized by it. */
static void s_eval_phase(const rb_project_t *p, const char *name, const rb_phase_spec_t *spec,
                         const uint32_t *idx, uint32_t n, const rb_phase_agg_t *aggs, uint32_t nrun,
                         double *scratch, double *vals, rb_project_result_t *r)
{
    s_measure_t ms = {.name = name, .random = s_random(spec), .of = n};
    rb_project_line_t *l;
    for (uint32_t k = 0; k < n; k++) {
        double bw = 0, iops = 0;
        if (idx[k] < nrun && s_median_node(&aggs[idx[k]], scratch, &ms, &bw, &iops)) {
            vals[ms.runs] = bw;
            vals[n + ms.runs++] = iops;
        }
    }
    if (ms.runs == 0) {
        bool ran = false;
        for (uint32_t k = 0; k < n; k++)
            ran = ran || idx[k] < nrun;
        if (n > 1)
            l = s_line(r, "throughput per unit", NAN, "B/s", RB_PROJECT_MEASURED,
                       "phase %s: none of its %u iterations %s: nothing measured, nothing "
                       "projected",
                       name, n, ran ? "was completed by a node" : "ran");
        else if (!ran)
            l = s_line(r, "throughput per unit", NAN, "B/s", RB_PROJECT_MEASURED,
                       "phase %s did not run: nothing measured, nothing projected", name);
        else
            l = s_line(r, "throughput per unit", NAN, "B/s", RB_PROJECT_MEASURED,
                       "phase %s: no node completed it: nothing measured, nothing projected", name);
        l->phase = name;
        return;
    }
    rb_stats_summarise(vals, ms.runs, &ms.v[S_BW]);
    rb_stats_summarise(vals + n, ms.runs, &ms.v[S_IOPS]);
    const bool bw_target = p->key_line[RB_CAP_TARGET_BW] != 0;
    const bool iops_target = p->key_line[RB_CAP_TARGET_IOPS] != 0;
    s_eval_metric(p, &ms, S_BW, bw_target && !ms.random, r);
    if (ms.random || iops_target)
        s_eval_metric(p, &ms, S_IOPS, iops_target, r);
    if (ms.random && !iops_target)
        s_note(r,
               "phase %s is random: %starget_iops= in [capacity] gives the units and racks that "
               "reach an IOPS target",
               name, bw_target ? "it is sized by its IOPS, not by target_bw; " : "");
    else if (ms.random && bw_target)
        s_note(r, "phase %s is random: it is sized by its IOPS (target_iops), not by target_bw",
               name);
}

double rb_project_fs_bytes(const rb_host_t *h)
{
    double sum = 0;
    rb_root_info_t tmp;
    for (uint32_t k = 0; h && k < h->nroots; k++)
        sum += (double)rb_host_root(h, k, &tmp)->total_bytes;
    return sum;
}

/* What the agents measured beside what [capacity] gives: the raw disks'
 * size (the most common of the phases' disks) against disk_size, and each
 * node's file systems (their median) against usable capacity per unit;
 * a note flags each that differs by more than S_MISMATCH. */
#define S_MISMATCH 0.05
static void s_eval_measured(const rb_project_t *p, const rb_phase_agg_t *aggs, uint32_t nrun,
                            const double *fs_bytes, uint32_t nfs, double *scratch, uint32_t room,
                            rb_project_result_t *r)
{
    char a[48], b[48];
    uint64_t best = 0;
    uint32_t best_n = 0, all = 0;
    for (uint32_t i = 0; i < nrun; i++)
        for (uint32_t k = 0; k < aggs[i].ndisks; k++) {
            uint64_t sz = aggs[i].disks[k].id.size;
            uint32_t n = 0;
            for (uint32_t j = 0; j < nrun; j++)
                for (uint32_t m = 0; m < aggs[j].ndisks; m++)
                    n += aggs[j].disks[m].id.size == sz;
            all++;
            if (n > best_n) {
                best_n = n;
                best = sz;
            }
        }
    if (best) {
        s_line(r, "disk size", (double)best, "B", RB_PROJECT_MEASURED,
               "the most common size of the raw disks the run used (%u of %u, from sysfs)", best_n,
               all);
        if (p->key_line[RB_CAP_DISK_SIZE] && p->disk_size &&
            fabs((double)best - (double)p->disk_size) > S_MISMATCH * (double)p->disk_size)
            s_note(r, "mismatch: [capacity] gives disk_size %s, the disks the run used measure %s",
                   rb_project_human(a, sizeof a, (double)p->disk_size, false, ""),
                   rb_project_human(b, sizeof b, (double)best, false, ""));
    }
    uint32_t n = 0;
    for (uint32_t i = 0; fs_bytes && i < nfs && n < room; i++)
        if (fs_bytes[i] > 0)
            scratch[n++] = fs_bytes[i];
    if (!n)
        return;
    double med = rb_stats_median(scratch, n);
    s_line(r, "file systems per unit", med, "B", RB_PROJECT_MEASURED,
           "the size of the file systems of each node's roots, as statvfs gives it (df): the "
           "median of %u node%s",
           n, n == 1 ? "" : "s");
    double want = p->key_line[RB_CAP_USABLE_PER_UNIT] ? (double)p->usable_per_unit : 0;
    if (want > 0 && fabs(med - want) > S_MISMATCH * want)
        s_note(r,
               "mismatch: [capacity] gives usable_per_unit %s, the nodes' file systems measure "
               "%s (a node's roots may be a part of a unit, or share one file system)",
               rb_project_human(a, sizeof a, want, false, ""),
               rb_project_human(b, sizeof b, med, false, ""));
}

int rb_project_result_eval(const rb_project_t *p, const rb_phase_spec_t *specs,
                           const rb_plan_iter_t *iters, uint32_t nphases,
                           const rb_phase_agg_t *aggs, uint32_t nrun, const double *fs_bytes,
                           uint32_t nfs, rb_project_result_t *out)
{
    memset(out, 0, sizeof *out);
    if (!p || !p->line)
        return 0;
    /* at most 6 capacity lines, 2 measured and 14 a phase */
    size_t cap = 8 + (size_t)14 * p->nphases;
    uint32_t most = fs_bytes && nfs > 1 ? nfs : 1;
    for (uint32_t i = 0; i < nrun && i < nphases; i++)
        most = aggs[i].nnodes > most ? aggs[i].nnodes : most;
    double *scratch = malloc(most * sizeof *scratch);
    double *vals = malloc((2 * (size_t)p->nphases + 2) * sizeof *vals);
    uint32_t *idx = malloc(((size_t)p->nphases + 1) * sizeof *idx);
    out->lines = calloc(cap, sizeof *out->lines);
    if (!scratch || !vals || !idx || !out->lines) {
        free(scratch);
        free(vals);
        free(idx);
        rb_project_result_fini(out);
        return -ENOMEM;
    }
    out->unit = p;
    out->specs = specs;
    s_eval_capacity(p, out);
    s_eval_measured(p, aggs, nrun < nphases ? nrun : nphases, fs_bytes, nfs, scratch, most, out);
    if (!p->units_per_rack)
        s_note(out, "per-rack lines are left out: [capacity] gives neither units_per_rack= nor "
                    "unit_height_u= and rack_height_u=");
    /* a repeated phase once, where its first iteration is, from the
     * iterations of it the projection takes */
    for (uint32_t k = 0; k < p->nphases; k++) {
        uint32_t i = p->phases[k], n = 0;
        if (i >= nphases)
            continue;
        const rb_plan_iter_t *it = iters && iters[i].iterations > 1 ? &iters[i] : NULL;
        bool seen = false;
        for (uint32_t j = 0; it && j < k; j++)
            seen = seen || (p->phases[j] < nphases && iters[p->phases[j]].group == it->group);
        if (seen)
            continue;
        for (uint32_t j = k; j < p->nphases; j++) {
            uint32_t q = p->phases[j];
            if (q == i ||
                (it && q < nphases && iters[q].iterations > 1 && iters[q].group == it->group))
                idx[n++] = q;
        }
        const char *name = n > 1 ? it->base : specs[i].name;
        s_eval_phase(p, name, &specs[i], idx, n, aggs, nrun < nphases ? nrun : nphases, scratch,
                     vals, out);
    }
    if (p->nphases == 0)
        s_note(out, "no throughput lines: the plan has no data phase");
    free(scratch);
    free(vals);
    free(idx);
    return 0;
}

void rb_project_result_fini(rb_project_result_t *r)
{
    if (!r)
        return;
    free(r->lines);
    memset(r, 0, sizeof *r);
}

/* ---- rendering ---- */

static const char *s_kind(rb_project_kind_t k)
{
    return k == RB_PROJECT_MEASURED ? "measured" : k == RB_PROJECT_GIVEN ? "given" : "projected";
}

/* A member with the key's value, or null when the key was not given. */
static void s_json_u64(rb_jw_t *w, const rb_project_t *p, rb_cap_key_t k, uint64_t v)
{
    if (p->key_line[k])
        rb_jw_u64(w, rb_project_key_name(k), v);
    else
        rb_jw_null(w, rb_project_key_name(k));
}

void rb_project_result_json(rb_jw_t *w, const rb_project_result_t *r)
{
    if (!r || !r->unit) {
        rb_jw_null(w, "projection");
        return;
    }
    const rb_project_t *p = r->unit;
    rb_jw_obj_begin(w, "projection");
    rb_jw_obj_begin(w, "unit");
    s_json_u64(w, p, RB_CAP_DISKS, p->disks);
    s_json_u64(w, p, RB_CAP_DISK_SIZE, p->disk_size);
    rb_jw_str(w, "raid", p->key_line[RB_CAP_RAID] ? rb_project_raid_name(p->raid) : NULL);
    if (p->has_model)
        rb_jw_u64(w, "raid_group", p->raid_group);
    else
        rb_jw_null(w, "raid_group");
    if (p->has_model)
        rb_jw_u64(w, "hot_spares_per_group", p->hot_spares);
    else
        rb_jw_null(w, "hot_spares_per_group");
    if (p->has_model) {
        rb_jw_u64(w, "groups", p->groups);
        rb_jw_u64(w, "parity_disks_per_group", p->parity_per_group);
        rb_jw_u64(w, "data_disks", p->data_disks);
        rb_jw_u64(w, "hot_spares", p->groups * p->hot_spares);
        rb_jw_u64(w, "unused_disks", p->unused_disks);
    } else {
        rb_jw_null(w, "groups");
        rb_jw_null(w, "parity_disks_per_group");
        rb_jw_null(w, "data_disks");
        rb_jw_null(w, "hot_spares");
        rb_jw_null(w, "unused_disks");
    }
    if (p->key_line[RB_CAP_FS_OVERHEAD])
        rb_jw_num(w, "fs_overhead_pct", (double)p->fs_overhead_ppm / (RB_PROJECT_ONE / 100));
    else
        rb_jw_null(w, "fs_overhead_pct");
    s_json_u64(w, p, RB_CAP_USABLE_PER_UNIT, p->usable_per_unit);
    s_json_u64(w, p, RB_CAP_UNIT_HEIGHT_U, p->unit_height_u);
    s_json_u64(w, p, RB_CAP_RACK_HEIGHT_U, p->rack_height_u);
    if (p->units_per_rack)
        rb_jw_u64(w, "units_per_rack", p->units_per_rack);
    else
        rb_jw_null(w, "units_per_rack");
    if (p->key_line[RB_CAP_DERATE])
        rb_jw_num(w, "derate", (double)p->derate_ppm / RB_PROJECT_ONE);
    else
        rb_jw_null(w, "derate");
    s_json_u64(w, p, RB_CAP_TARGET_CAPACITY, p->target_capacity);
    s_json_u64(w, p, RB_CAP_TARGET_BW, p->target_bw);
    s_json_u64(w, p, RB_CAP_TARGET_IOPS, p->target_iops);
    rb_jw_arr_begin(w, "phases");
    for (uint32_t i = 0; i < p->nphases; i++)
        if (r->specs)
            rb_jw_str(w, NULL, r->specs[p->phases[i]].name);
    rb_jw_arr_end(w);
    rb_jw_obj_end(w);
    rb_jw_arr_begin(w, "lines");
    for (uint32_t i = 0; i < r->nlines; i++) {
        const rb_project_line_t *l = &r->lines[i];
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "label", l->label);
        rb_jw_num(w, "value", l->value); /* NAN → null */
        rb_jw_str(w, "unit", l->unit);
        rb_jw_str(w, "kind", s_kind(l->kind));
        rb_jw_str(w, "source", l->source);
        rb_jw_str(w, "phase", l->phase);
        if (l->iterations) {
            rb_jw_obj_begin(w, "spread");
            rb_jw_u64(w, "iterations", l->iterations);
            rb_jw_num(w, "min", l->min);
            rb_jw_num(w, "max", l->max);
            rb_jw_num(w, "stdev", l->stdev);
            rb_jw_obj_end(w);
        } else {
            rb_jw_null(w, "spread");
        }
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
    rb_jw_arr_begin(w, "notes");
    for (uint32_t i = 0; i < r->nnotes; i++)
        rb_jw_str(w, NULL, r->notes[i]);
    rb_jw_arr_end(w);
    rb_jw_obj_end(w);
}

/* A line's value for people in style st. A capacity is in powers of 1000
 * whatever the style, as disks are sold ("568 TB"), with binary beside it
 * under both ("568 TB (517 TiB)"); a rate follows the style: "1.40 GiB/s"
 * (IEC), "1.50 GB/s" (SI), "1.50 GB/s (1.40 GiB/s)" (both). Counts as
 * "2 racks". */
static const char *s_value_text(char *buf, size_t len, const rb_project_line_t *l,
                                rb_units_style_t st)
{
    char d[48], b[48];
    if (isnan(l->value)) {
        snprintf(buf, len, "-");
    } else if (!strcmp(l->unit, "B") || !strcmp(l->unit, "B/s")) {
        const char *per = l->unit[1] ? "/s" : "";
        if (st == RB_UNITS_BOTH)
            snprintf(buf, len, "%s (%s)", rb_project_human(d, sizeof d, l->value, false, per),
                     rb_project_human(b, sizeof b, l->value, true, per));
        else
            rb_project_human(buf, len, l->value, st == RB_UNITS_IEC && l->unit[1], per);
    } else if (!strcmp(l->unit, "ops/s")) {
        s_ops_text(buf, len, l->value);
    } else {
        snprintf(buf, len, "%.0f %s", l->value, l->unit);
    }
    return buf;
}

const char *rb_project_result_line_value(char *buf, size_t len, const rb_project_line_t *l)
{
    return s_value_text(buf, len, l, RB_UNITS_BOTH);
}

const char *rb_project_result_kind_name(rb_project_kind_t k)
{
    return s_kind(k);
}

void rb_project_result_text(FILE *f, const rb_project_result_t *r, rb_units_style_t st)
{
    if (!r || !r->unit)
        return;
    char v[112];
    int wphase = 5, wlabel = 4, wvalue = 5;
    for (uint32_t i = 0; i < r->nlines; i++) {
        const rb_project_line_t *l = &r->lines[i];
        int n = l->phase ? (int)strlen(l->phase) : 1;
        wphase = n > wphase ? n : wphase;
        n = (int)strlen(l->label);
        wlabel = n > wlabel ? n : wlabel;
        n = (int)strlen(s_value_text(v, sizeof v, l, st));
        wvalue = n > wvalue ? n : wvalue;
    }
    fprintf(f, "\nprojection (one node is one unit; measured: this run; given: typed into the "
               "plan; projected: arithmetic on those)\n");
    if (st != RB_UNITS_BOTH)
        fprintf(f, "  (capacities and sources in powers of 1000, as disks are sold and targets "
                   "typed)\n");
    fprintf(f, "  %-*s  %-*s  %-*s  %-9s  %s\n", wphase, "phase", wlabel, "line", wvalue, "value",
            "kind", "source");
    /* the source column wraps within the report's width, under itself */
    const size_t scol = (size_t)(2 + wphase + 2 + wlabel + 2 + wvalue + 2 + 9 + 2);
    for (uint32_t i = 0; i < r->nlines; i++) {
        const rb_project_line_t *l = &r->lines[i];
        fprintf(f, "  %-*s  %-*s  %-*s  %-9s  ", wphase, l->phase ? l->phase : "-", wlabel,
                l->label, wvalue, s_value_text(v, sizeof v, l, st), s_kind(l->kind));
        rb_text_wrap(f, l->source, scol, scol, RB_TEXT_WIDTH);
    }
    for (uint32_t i = 0; i < r->nnotes; i++) {
        fprintf(f, "  note: ");
        rb_text_wrap(f, r->notes[i], 8, 8, RB_TEXT_WIDTH);
    }
}
