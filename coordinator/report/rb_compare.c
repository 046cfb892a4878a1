/* Runs side by side (see rb_compare.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rb_compare.h"
#include "rb_json.h"
#include "rb_stats.h"
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

typedef enum { S_BW, S_IOPS, S_LAT } s_unit_t;

typedef struct s_fig {
    const char *name;  /* figure, as in summary.json */
    const char *label; /* for people */
    s_unit_t unit;
    int lower_better; /* latency */
} s_fig_t;

static const s_fig_t s_figs[] = {
    {"aggregate_bw", "aggregate bandwidth", S_BW, 0},
    {"cluster.node_bw.median", "median node bandwidth", S_BW, 0},
    {"steady.median_bw", "steady state (median interval)", S_BW, 0},
    {"iops", "IOPS", S_IOPS, 0},
    {"lat_us.p99", "latency p99", S_LAT, 1},
};
#define S_NFIGS (sizeof s_figs / sizeof s_figs[0])

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

static void s_fmt(char *buf, size_t len, s_unit_t unit, double v)
{
    if (isnan(v))
        snprintf(buf, len, "-");
    else if (unit == S_BW)
        rb_units_fmt_bw(buf, len, v);
    else if (unit == S_IOPS)
        snprintf(buf, len, "%.0f", v);
    else
        snprintf(buf, len, "%.1f us", v);
}

/* The name phase p of run r is compared by: its base name when it is an
 * iteration of a repeated phase, else its own. */
static const char *s_base(const rb_loaded_run_t *r, uint32_t p)
{
    if (r->plan && r->plan->iters && p < r->plan->nphases)
        return r->plan->iters[p].base;
    return r->phases[p].name;
}

/* One side of the comparison: its runs, and per phase group the phases
 * (every iteration of every run) that measured it. */
typedef struct s_side {
    const rb_loaded_run_t *runs;
    uint32_t nruns;
    const char *label; /* "before", "after" */
} s_side_t;

typedef struct s_meas {
    const rb_phase_agg_t *agg;
    const rb_phase_spec_t *spec;
    const rb_loaded_run_t *run;
} s_meas_t;

/* The phases of side s whose base name is name, into m (cap entries). */
static uint32_t s_collect(const s_side_t *s, const char *name, s_meas_t *m, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t r = 0; r < s->nruns; r++) {
        const rb_loaded_run_t *run = &s->runs[r];
        for (uint32_t p = 0; p < run->res.nphases && n < cap; p++)
            if (!strcmp(s_base(run, p), name))
                m[n++] = (s_meas_t){&run->phases[p], &run->res.specs[p], run};
    }
    return n;
}

static bool s_has(const s_side_t *s, const char *name)
{
    for (uint32_t r = 0; r < s->nruns; r++)
        for (uint32_t p = 0; p < s->runs[r].res.nphases; p++)
            if (!strcmp(s_base(&s->runs[r], p), name))
                return true;
    return false;
}

/* ---- what the plans measure ---- */

/* One line of what a phase measures, for people ("bs 64k"). */
static void s_what(char *buf, size_t len, int k, const s_meas_t *m)
{
    const rb_job_spec_t *js = m->spec->njobs ? &m->spec->jobs[0] : NULL;
    char a[32], b[32];
    if (!js) {
        snprintf(buf, len, "-");
        return;
    }
    switch (k) {
    case 0:
        snprintf(buf, len, "%s", rb_rw_name(js->rw));
        break;
    case 1:
        rb_units_fmt_size_exact(a, sizeof a, js->bs_read ? js->bs_read : js->bs);
        rb_units_fmt_size_exact(b, sizeof b, js->bs_write ? js->bs_write : js->bs);
        if (strcmp(a, b))
            snprintf(buf, len, "%s,%s", a, b);
        else
            snprintf(buf, len, "%s", a);
        break;
    case 2:
        snprintf(buf, len, "%u", js->iodepth);
        break;
    case 3:
        snprintf(buf, len, "%s", js->ioengine);
        break;
    case 4:
        snprintf(buf, len, "%u", js->numjobs);
        break;
    case 5:
        snprintf(buf, len, "%u", js->direct);
        break;
    case 6:
        snprintf(buf, len, "%u", js->rwmixread);
        break;
    case 7:
        snprintf(buf, len, "%u", m->spec->njobs);
        break;
    default:
        snprintf(buf, len, "%u", m->agg->nnodes);
        break;
    }
}

static const char *const s_what_names[] = {"rw",     "bs",        "iodepth", "ioengine", "numjobs",
                                           "direct", "rwmixread", "jobs",    "nodes"};
#define S_NWHAT (sizeof s_what_names / sizeof s_what_names[0])

/* Writes what differs between the first measurement m[0] and the others
 * ("bs 64k vs 1M; nodes 2 vs 4"); empty when nothing does. */
static void s_differs(char *buf, size_t len, const s_meas_t *m, uint32_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < S_NWHAT; k++) {
        char first[64], other[64];
        s_what(first, sizeof first, (int)k, &m[0]);
        for (uint32_t i = 1; i < n; i++) {
            s_what(other, sizeof other, (int)k, &m[i]);
            if (strcmp(first, other)) {
                int w = snprintf(buf + used, len - used, "%s%s %s vs %s", used ? "; " : "",
                                 s_what_names[k], first, other);
                if (w > 0 && (size_t)w < len - used)
                    used += (size_t)w;
                break;
            }
        }
    }
}

/* ---- a figure judged ---- */

typedef struct s_judged {
    rb_stats_summary_t a, b;
    double change; /* (b - a) / a of the means */
    double ci;     /* half width of the difference's 95% interval, relative */
    const char *verdict;
} s_judged_t;

static void s_judge(s_judged_t *j, const double *va, uint32_t na, const double *vb, uint32_t nb,
                    int lower_better)
{
    rb_stats_summarise(va, na, &j->a);
    rb_stats_summarise(vb, nb, &j->b);
    j->ci = NAN;
    j->change = j->a.n && j->b.n && j->a.mean > 0 ? (j->b.mean - j->a.mean) / j->a.mean : NAN;
    if (isnan(j->change)) {
        j->verdict = "n/a";
        return;
    }
    if (j->a.n < 2 || j->b.n < 2) {
        j->verdict = "noise unknown: one measurement a side";
        return;
    }
    int t = rb_stats_welch(&j->a, &j->b, &j->ci);
    if (t == 1 && fabs(j->change) >= RB_COMPARE_MIN_CHANGE)
        j->verdict = (j->change > 0) != lower_better ? "significant: better" : "significant: worse";
    else
        j->verdict = "within noise";
}

static void s_json_judged(rb_jw_t *w, const s_judged_t *j)
{
    rb_jw_num(w, "before", j->a.mean);
    rb_jw_num(w, "after", j->b.mean);
    rb_jw_num(w, "change", j->change);
    rb_jw_u64(w, "n_before", j->a.n);
    rb_jw_u64(w, "n_after", j->b.n);
    rb_jw_num(w, "stddev_before", j->a.n > 1 ? j->a.stddev : NAN);
    rb_jw_num(w, "stddev_after", j->b.n > 1 ? j->b.stddev : NAN);
    rb_jw_num(w, "ci95_rel", j->ci);
    rb_jw_str(w, "verdict", j->verdict);
}

/* " (n 3/3, stddev 0.4%/0.6%)" for people. */
static void s_noise_text(char *buf, size_t len, const s_judged_t *j)
{
    if (j->a.n > 1 && j->b.n > 1 && j->a.mean > 0 && j->b.mean > 0)
        snprintf(buf, len, "  (n %u/%u, stddev %.1f%%/%.1f%%)", j->a.n, j->b.n,
                 j->a.stddev / j->a.mean * 100, j->b.stddev / j->b.mean * 100);
    else
        snprintf(buf, len, "  (n %u/%u)", j->a.n, j->b.n);
}

/* One judged figure for people: label, both means, the change, the
 * verdict and the noise it was judged on. */
static void s_text_row(FILE *f, int width, const char *label, s_unit_t unit, const s_judged_t *j)
{
    char b1[48], b2[48], c[24], noise[64];
    s_fmt(b1, sizeof b1, unit, j->a.mean);
    s_fmt(b2, sizeof b2, unit, j->b.mean);
    if (isnan(j->change))
        snprintf(c, sizeof c, "-");
    else
        snprintf(c, sizeof c, "%+.1f%%", j->change * 100);
    s_noise_text(noise, sizeof noise, j);
    fprintf(f, "  %-*s %24s %24s %9s  %s%s\n", width, label, b1, b2, c, j->verdict, noise);
}

/* ---- per node ---- */

/* Node name's bandwidth in each measurement of m (NAN where it is missing). */
static uint32_t s_node_values(const s_meas_t *m, uint32_t n, const char *name, double *v)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t x = 0; x < m[i].agg->nnodes; x++)
            if (!strcmp(m[i].agg->nodes[x].name, name))
                v[k++] = m[i].agg->nodes[x].status == RB_NODE_OK ? m[i].agg->nodes[x].bw : NAN;
    return k;
}

/* The nodes of a phase on both sides, each node's bandwidth judged; text
 * lists the nodes whose change is significant, or every node when there
 * are few, and counts the rest. */
static int s_nodes(rb_jw_t *w, FILE *f, int json, const s_meas_t *ma, uint32_t na,
                   const s_meas_t *mb, uint32_t nb)
{
    uint32_t cap = na > nb ? na : nb;
    double *va = malloc((cap ? cap : 1) * sizeof *va), *vb = malloc((cap ? cap : 1) * sizeof *vb);
    if (!va || !vb) {
        free(va);
        free(vb);
        return -ENOMEM;
    }
    uint32_t nnodes = na ? ma[0].agg->nnodes : 0, quiet = 0, shown = 0;
    bool all = nnodes <= RB_COMPARE_NODES_ALL;
    if (json)
        rb_jw_arr_begin(w, "nodes");
    for (uint32_t x = 0; x < nnodes; x++) {
        const char *name = ma[0].agg->nodes[x].name;
        uint32_t ka = s_node_values(ma, na, name, va), kb = s_node_values(mb, nb, name, vb);
        s_judged_t j;
        s_judge(&j, va, ka, vb, kb, 0);
        if (kb == 0)
            j.verdict = "only before";
        if (json) {
            rb_jw_obj_begin(w, NULL);
            rb_jw_str(w, "name", name);
            rb_jw_str(w, "figure", "bw");
            s_json_judged(w, &j);
            rb_jw_obj_end(w);
            continue;
        }
        if (!all && !strncmp(j.verdict, "within", 6)) {
            quiet++;
            continue;
        }
        if (!shown++)
            fprintf(f, "  %-24s %24s %24s %9s  %s\n", "node bandwidth", "before", "after", "change",
                    "verdict");
        s_text_row(f, 24, name, S_BW, &j);
    }
    /* nodes only after */
    for (uint32_t x = 0; nb && x < mb[0].agg->nnodes; x++) {
        const char *name = mb[0].agg->nodes[x].name;
        if (s_node_values(ma, na, name, va))
            continue;
        if (json) {
            rb_jw_obj_begin(w, NULL);
            rb_jw_str(w, "name", name);
            rb_jw_str(w, "figure", "bw");
            rb_jw_str(w, "verdict", "only after");
            rb_jw_obj_end(w);
        } else {
            fprintf(f, "  %-24s only after\n", name);
        }
    }
    if (json)
        rb_jw_arr_end(w);
    else if (quiet)
        fprintf(f, "  %u node%s within noise\n", quiet, quiet == 1 ? "" : "s");
    free(va);
    free(vb);
    return 0;
}

/* ---- acceptance ---- */

/* The acceptance verdicts of each side and the checks that changed. */
static void s_accept(rb_jw_t *w, FILE *f, int json, const s_side_t *a, const s_side_t *b)
{
    const s_side_t *sides[2] = {a, b};
    if (json)
        rb_jw_obj_begin(w, "acceptance");
    else
        fprintf(f, "\nacceptance\n");
    for (int s = 0; s < 2; s++) {
        if (json)
            rb_jw_arr_begin(w, sides[s]->label);
        for (uint32_t r = 0; r < sides[s]->nruns; r++) {
            const rb_loaded_run_t *run = &sides[s]->runs[r];
            const char *v = !run->res.accept ? "none" : run->res.accept->nfailed ? "FAIL" : "PASS";
            if (json)
                rb_jw_str(w, NULL, v);
            else
                fprintf(f, "  %-7s %s: %s\n", sides[s]->label, run->res.run_id, v);
        }
        if (json)
            rb_jw_arr_end(w);
    }
    /* a check whose result differs between the first run of each side */
    const rb_accept_result_t *ra = a->runs[0].res.accept, *rb = b->runs[0].res.accept;
    if (json)
        rb_jw_arr_begin(w, "changed");
    for (uint32_t i = 0; ra && rb && i < ra->nrows; i++) {
        const rb_accept_row_t *x = &ra->rows[i];
        for (uint32_t k = 0; k < rb->nrows; k++) {
            const rb_accept_row_t *y = &rb->rows[k];
            if (strcmp(x->set, y->set) || strcmp(x->phase, y->phase) || x->check != y->check ||
                x->verdict == y->verdict)
                continue;
            static const char *const names[] = {"PASS", "FAIL", "n/a"};
            const char *vx = (unsigned)x->verdict <= 2 ? names[x->verdict] : "?";
            const char *vy = (unsigned)y->verdict <= 2 ? names[y->verdict] : "?";
            if (json) {
                rb_jw_obj_begin(w, NULL);
                rb_jw_str(w, "set", x->set);
                rb_jw_str(w, "phase", x->phase);
                rb_jw_str(w, "check", rb_accept_check_name(x->check));
                rb_jw_str(w, "before", vx);
                rb_jw_str(w, "after", vy);
                rb_jw_obj_end(w);
            } else {
                char m1[64], m2[64];
                rb_accept_result_value_text(m1, sizeof m1, x->check, x->measured);
                rb_accept_result_value_text(m2, sizeof m2, y->check, y->measured);
                fprintf(f, "  CHANGED %s%s%s %s: %s (%s) -> %s (%s)\n", x->set,
                        x->set[0] ? " " : "", x->phase, rb_accept_check_name(x->check), vx, m1, vy,
                        m2);
            }
        }
    }
    if (json) {
        rb_jw_arr_end(w);
        rb_jw_obj_end(w);
    }
}

/* ---- the phases ---- */

static int s_phase(rb_jw_t *w, FILE *f, int json, const char *name, const s_side_t *a,
                   const s_side_t *b)
{
    s_meas_t *ma = calloc(RB_COMPARE_MAX_MEAS, sizeof *ma);
    s_meas_t *mb = calloc(RB_COMPARE_MAX_MEAS, sizeof *mb);
    s_meas_t *all = calloc(2 * RB_COMPARE_MAX_MEAS, sizeof *all);
    double *va = calloc(RB_COMPARE_MAX_MEAS, sizeof *va);
    double *vb = calloc(RB_COMPARE_MAX_MEAS, sizeof *vb);
    int rc = 0;
    if (!ma || !mb || !all || !va || !vb) {
        rc = -ENOMEM;
        goto out;
    }
    uint32_t na = s_collect(a, name, ma, RB_COMPARE_MAX_MEAS);
    uint32_t nb = s_collect(b, name, mb, RB_COMPARE_MAX_MEAS);
    bool partial = false;
    for (uint32_t i = 0; i < na; i++)
        partial = partial || ma[i].agg->partial;
    for (uint32_t i = 0; i < nb; i++)
        partial = partial || mb[i].agg->partial;
    memcpy(all, ma, na * sizeof *all);
    memcpy(all + na, mb, nb * sizeof *all);
    char differs[512];
    s_differs(differs, sizeof differs, all, na + nb);
    if (json) {
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "name", name);
        rb_jw_bool(w, "partial", partial);
        rb_jw_str(w, "differs", differs[0] ? differs : NULL);
        rb_jw_arr_begin(w, "figures");
    } else {
        fprintf(f, "\nphase %s%s  (%u measurement%s before, %u after)\n", name,
                partial ? "  (PARTIAL in a run)" : "", na, na == 1 ? "" : "s", nb);
        if (differs[0])
            fprintf(f, "  WARNING: the runs differ in what they measure: %s\n", differs);
        fprintf(f, "  %-32s %24s %24s %9s  %s\n", "figure", "before", "after", "change", "verdict");
    }
    for (size_t i = 0; i < S_NFIGS; i++) {
        for (uint32_t k = 0; k < na; k++)
            va[k] = s_value(ma[k].agg, i);
        for (uint32_t k = 0; k < nb; k++)
            vb[k] = s_value(mb[k].agg, i);
        s_judged_t j;
        s_judge(&j, va, na, vb, nb, s_figs[i].lower_better);
        if (json) {
            rb_jw_obj_begin(w, NULL);
            rb_jw_str(w, "name", s_figs[i].name);
            s_json_judged(w, &j);
            rb_jw_obj_end(w);
            continue;
        }
        s_text_row(f, 32, s_figs[i].label, s_figs[i].unit, &j);
    }
    if (json)
        rb_jw_arr_end(w);
    rc = s_nodes(w, f, json, ma, na, mb, nb);
    if (json)
        rb_jw_obj_end(w);
out:
    free(ma);
    free(mb);
    free(all);
    free(va);
    free(vb);
    return rc;
}

/* Writes each base name of side s not yet in names (n so far, cap). */
static uint32_t s_names(const s_side_t *s, const char **names, uint32_t n, uint32_t cap)
{
    for (uint32_t r = 0; r < s->nruns; r++) {
        for (uint32_t p = 0; p < s->runs[r].res.nphases && n < cap; p++) {
            const char *b = s_base(&s->runs[r], p);
            bool seen = false;
            for (uint32_t k = 0; k < n && !seen; k++)
                seen = !strcmp(names[k], b);
            if (!seen)
                names[n++] = b;
        }
    }
    return n;
}

static void s_ids(rb_jw_t *w, FILE *f, int json, const s_side_t *s)
{
    if (json) {
        rb_jw_arr_begin(w, s->label);
        for (uint32_t r = 0; r < s->nruns; r++)
            rb_jw_str(w, NULL, s->runs[r].res.run_id);
        rb_jw_arr_end(w);
        return;
    }
    fprintf(f, "  %s:", s->label);
    for (uint32_t r = 0; r < s->nruns; r++)
        fprintf(f, " %s (%s)", s->runs[r].res.run_id, s->runs[r].dir);
    fputc('\n', f);
}

int rb_compare_runs(const rb_loaded_run_t *before, uint32_t nbefore, const rb_loaded_run_t *after,
                    uint32_t nafter, int json, FILE *f)
{
    if (!before || !after || !nbefore || !nafter)
        return -EINVAL;
    s_side_t a = {before, nbefore, "before"}, b = {after, nafter, "after"};
    rb_jw_t w;
    if (json) {
        rb_jw_init(&w, f);
        rb_jw_obj_begin(&w, NULL);
        rb_jw_str(&w, "schema", "rackbench.compare/2");
        s_ids(&w, f, json, &a);
        s_ids(&w, f, json, &b);
        rb_jw_arr_begin(&w, "phases");
    } else {
        fprintf(f, "rackbench compare\n");
        s_ids(&w, f, json, &a);
        s_ids(&w, f, json, &b);
        fprintf(f, "a change is significant when Welch's t-test over the measurements of each "
                   "side (every iteration of every run) puts it outside noise at 95%%, and it is "
                   "at least 1%%; with one measurement a side the noise is unknown (repeat with "
                   "iterations=N, or compare several runs a side)\n");
    }
    const char **names = calloc(2 * RB_MAX_PHASES, sizeof *names);
    if (!names)
        return -ENOMEM;
    uint32_t n = s_names(&a, names, 0, 2 * RB_MAX_PHASES);
    uint32_t nboth = n;
    n = s_names(&b, names, n, 2 * RB_MAX_PHASES);
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        bool in_a = i < nboth, in_b = s_has(&b, names[i]);
        if (in_a && in_b) {
            rc = s_phase(&w, f, json, names[i], &a, &b);
        } else if (!json) {
            fprintf(f, "\nphase %s: only %s\n", names[i], in_a ? "before" : "after");
        }
    }
    free(names);
    if (rc < 0)
        return rc;
    if (json)
        rb_jw_arr_end(&w);
    s_accept(&w, f, json, &a, &b);
    /* the drives after the last run of each side */
    if ((rc = rb_compare_drives(&w, f, json, &before[nbefore - 1], &after[nafter - 1])) < 0)
        return rc;
    if (json) {
        rb_jw_obj_end(&w);
        return rb_jw_finish(&w);
    }
    fflush(f);
    return ferror(f) ? -EIO : 0;
}

int rb_compare(const rb_loaded_run_t *a, const rb_loaded_run_t *b, int json, FILE *f)
{
    return rb_compare_runs(a, 1, b, 1, json, f);
}
