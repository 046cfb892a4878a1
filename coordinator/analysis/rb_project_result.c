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

static void s_eval_phase(const rb_project_t *p, const rb_phase_spec_t *spec,
                         const rb_phase_agg_t *ag, double *scratch, rb_project_result_t *r)
{
    char a[48], b[48], c[48], rack[96];
    const char *name = spec->name;
    rb_project_line_t *l;
    if (!ag) {
        l = s_line(r, "throughput per unit", NAN, "B/s", RB_PROJECT_MEASURED,
                   "phase %s did not run: nothing measured, nothing projected", name);
        l->phase = name;
        return;
    }
    uint32_t nok = 0;
    for (uint32_t n = 0; n < ag->nnodes; n++)
        if (ag->nodes[n].status == RB_NODE_OK)
            scratch[nok++] = ag->nodes[n].bw;
    if (nok == 0) {
        l = s_line(r, "throughput per unit", NAN, "B/s", RB_PROJECT_MEASURED,
                   "phase %s: no node completed it: nothing measured, nothing projected", name);
        l->phase = name;
        return;
    }
    double median = rb_stats_median(scratch, nok); /* sorts */
    char range[120] = "";
    if (nok > 1)
        snprintf(range, sizeof range, "; nodes from %s to %s",
                 rb_project_human(a, sizeof a, scratch[0], false, "/s"),
                 rb_project_human(b, sizeof b, scratch[nok - 1], false, "/s"));
    if (nok < ag->nnodes)
        l = s_line(r, "throughput per unit", median, "B/s", RB_PROJECT_MEASURED,
                   "phase %s, median of the %u of %u nodes that completed it%s; one node is one "
                   "unit",
                   name, nok, ag->nnodes, range);
    else
        l = s_line(r, "throughput per unit", median, "B/s", RB_PROJECT_MEASURED,
                   "phase %s, median of %u node%s%s; one node is one unit", name, nok,
                   nok == 1 ? "" : "s", range);
    l->phase = name;

    const bool derate = p->key_line[RB_CAP_DERATE] != 0;
    const double d = (double)p->derate_ppm / RB_PROJECT_ONE;
    char dbuf[32];
    rb_project_fixed_text(dbuf, sizeof dbuf, p->derate_ppm, false);
    rb_project_human(c, sizeof c, median, false, "/s");
    if (p->units_per_rack) {
        double per_rack = median * (double)p->units_per_rack;
        l = s_line(r, "throughput per rack", per_rack, "B/s", RB_PROJECT_PROJECTED,
                   "%s a unit (measured, %s) x %s", c, name, s_rack_words(rack, sizeof rack, p));
        l->phase = name;
        if (derate) {
            l = s_line(r, "throughput per rack, derated", per_rack * d, "B/s", RB_PROJECT_PROJECTED,
                       "%s a rack x derate %s",
                       rb_project_human(a, sizeof a, per_rack, false, "/s"), dbuf);
            l->phase = name;
        }
    }
    if (!p->key_line[RB_CAP_TARGET_BW])
        return;
    if (median <= 0) {
        s_note(r, "phase %s: the median node moved nothing, so no count of units meets target_bw",
               name);
        return;
    }
    const double target = (double)p->target_bw;
    rb_project_human(a, sizeof a, target, false, "/s");
    for (int pass = 0; pass < 1 + derate; pass++) {
        double per_unit = pass ? median * d : median;
        double units = s_ceil(target / per_unit);
        const char *suffix = pass ? ", derated" : "";
        char label[RB_PROJECT_LABEL_MAX], per[96];
        if (pass)
            snprintf(per, sizeof per, "%s a unit (measured, %s) x derate %s", c, name, dbuf);
        else
            snprintf(per, sizeof per, "%s a unit (measured, %s)", c, name);
        snprintf(label, sizeof label, "units for target_bw%s", suffix);
        l = s_line(r, label, units, "units", RB_PROJECT_PROJECTED, "%s / %s = %.2f, rounded up", a,
                   per, target / per_unit);
        l->phase = name;
        if (p->units_per_rack) {
            double per_rack = per_unit * (double)p->units_per_rack;
            snprintf(label, sizeof label, "racks for target_bw%s", suffix);
            l = s_line(r, label, ceil(units / (double)p->units_per_rack), "racks",
                       RB_PROJECT_PROJECTED, "%s / %s a%s rack = %.2f, rounded up", a,
                       rb_project_human(b, sizeof b, per_rack, false, "/s"), pass ? " derated" : "",
                       target / per_rack);
            l->phase = name;
        }
    }
}

double rb_project_fs_bytes(const rb_msg_hello_t *h)
{
    double sum = 0;
    for (uint32_t k = 0; h && k < h->nroots && k < RB_MAX_ROOTS; k++)
        sum += (double)h->roots[k].total_bytes;
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

int rb_project_result_eval(const rb_project_t *p, const rb_phase_spec_t *specs, uint32_t nphases,
                           const rb_phase_agg_t *aggs, uint32_t nrun, const double *fs_bytes,
                           uint32_t nfs, rb_project_result_t *out)
{
    memset(out, 0, sizeof *out);
    if (!p || !p->line)
        return 0;
    /* at most 6 capacity lines, 2 measured and 7 a phase */
    size_t cap = 8 + (size_t)7 * p->nphases;
    uint32_t most = fs_bytes && nfs > 1 ? nfs : 1;
    for (uint32_t i = 0; i < nrun && i < nphases; i++)
        most = aggs[i].nnodes > most ? aggs[i].nnodes : most;
    double *scratch = malloc(most * sizeof *scratch);
    out->lines = calloc(cap, sizeof *out->lines);
    if (!scratch || !out->lines) {
        free(scratch);
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
    for (uint32_t k = 0; k < p->nphases; k++) {
        uint32_t i = p->phases[k];
        if (i >= nphases)
            continue;
        s_eval_phase(p, &specs[i], i < nrun ? &aggs[i] : NULL, scratch, out);
    }
    if (p->nphases == 0)
        s_note(out, "no throughput lines: the plan has no data phase");
    free(scratch);
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
