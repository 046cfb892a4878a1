/* Guards the petabyte projection: the JR5 unit worked through exactly as it
 * was published (13 data disks a group, 78 TB after RAID, 71 TB measured,
 * 568 TB and 12 GB/s a rack, 2 racks for 1 PB), every key and unit of
 * [capacity] and every error with its line, the median node (not the best)
 * as the measured figure, and the measured/projected labels of the report. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rb_json.h"
#include "rb_plan.h"
#include "rb_project.h"
#include "rb_report.h"
#include "test_project.h"

/* Two data phases and a metadata job of three steps; [capacity] follows at line 12. */
static const char s_jobs[] = "[global]\n"        /* 1 */
                             "directory=/data\n" /* 2 */
                             "size=1M\n"         /* 3 */
                             "[seqwrite]\n"      /* 4 */
                             "rw=write\n"        /* 5 */
                             "[seqread]\n"       /* 6 */
                             "stonewall\n"       /* 7 */
                             "rw=read\n"         /* 8 */
                             "[md]\n"            /* 9 */
                             "rw=meta\n"         /* 10 */
                             "meta_files=100\n"; /* 11 */

/* The JR5 unit as its write-up describes it. */
static const char s_jr5[] = "[capacity]\n"               /* 12 */
                            "disks=48\n"                 /* 13 */
                            "disk_size=2T\n"             /* 14 */
                            "raid=raid6\n"               /* 15 */
                            "raid_group=16\n"            /* 16 */
                            "hot_spares_per_group=1\n"   /* 17 */
                            "usable_per_unit=71T\n"      /* 18 */
                            "unit_height_u=5\n"          /* 19 */
                            "rack_height_u=41\n"         /* 20 */
                            "target_capacity=1P\n"       /* 21 */
                            "derate=0.5\n"               /* 22 */
                            "phases=seqwrite,seqread\n"; /* 23 */

rb_plan_t *tp_plan(const char *text)
{
    rb_plan_t *p = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_plan_parse(text, strlen(text), "t.ini", &p, &err) != 0)
        fail_msg("parse failed: %s", err.msg);
    assert_non_null(p->project);
    return p;
}

rb_plan_t *tp_parse(const char *tail)
{
    char text[4096];
    snprintf(text, sizeof text, "%s%s", s_jobs, tail);
    return tp_plan(text);
}

/* Expects the plan s_jobs + tail to be refused at line with what in the message. */
static void s_expect_error(const char *tail, unsigned line, const char *what)
{
    char text[4096], prefix[64];
    snprintf(text, sizeof text, "%s%s", s_jobs, tail);
    rb_plan_t *p = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    int rc = rb_plan_parse(text, strlen(text), "t.ini", &p, &err);
    if (rc != -EINVAL)
        fail_msg("expected -EINVAL for\n%s\ngot %d (%s)", tail, rc, err.msg);
    assert_null(p);
    snprintf(prefix, sizeof prefix, "t.ini:%u: ", line);
    if (strncmp(err.msg, prefix, strlen(prefix)) != 0 || !strstr(err.msg, what))
        fail_msg("for\n%s\nexpected \"%s...%s\", got \"%s\"", tail, prefix, what, err.msg);
}

void tp_phase(tp_phase_t *ph, const char *name, const double *node_bw,
              const rb_node_status_t *status, uint32_t nnodes)
{
    memset(ph, 0, sizeof *ph);
    snprintf(ph->agg.name, sizeof ph->agg.name, "%s", name);
    rb_hist_init(&ph->agg.hist);
    ph->agg.nnodes = nnodes;
    ph->agg.nodes = ph->nodes;
    for (uint32_t i = 0; i < nnodes; i++) {
        snprintf(ph->nodes[i].name, sizeof ph->nodes[i].name, "n%u", i);
        ph->nodes[i].bw = node_bw[i];
        ph->nodes[i].status = status ? status[i] : RB_NODE_OK;
    }
}

/* The line of that label (and phase, NULL for a capacity line), or NULL. */
const rb_project_line_t *tp_find(const rb_project_result_t *r, const char *phase, const char *label)
{
    for (uint32_t i = 0; i < r->nlines; i++) {
        const rb_project_line_t *l = &r->lines[i];
        if (strcmp(l->label, label) != 0)
            continue;
        if ((!phase && !l->phase) || (phase && l->phase && !strcmp(phase, l->phase)))
            return l;
    }
    return NULL;
}

const rb_project_line_t *tp_line(const rb_project_result_t *r, const char *phase, const char *label)
{
    const rb_project_line_t *l = tp_find(r, phase, label);
    if (!l)
        fail_msg("no line '%s' for phase %s", label, phase ? phase : "-");
    return l;
}

/* Asserts a line's value, kind and that its source says something. */
void tp_expect(const rb_project_result_t *r, const char *phase, const char *label, double value,
               rb_project_kind_t kind, const char *source_has)
{
    const rb_project_line_t *l = tp_line(r, phase, label);
    if (fabs(l->value - value) > 1e-9 * fabs(value))
        fail_msg("%s: expected %.17g, got %.17g", label, value, l->value);
    assert_int_equal(l->kind, kind);
    if (source_has && !strstr(l->source, source_has))
        fail_msg("%s: expected \"%s\" in the source \"%s\"", label, source_has, l->source);
}

/* The JR5 arithmetic, exactly as published. */
static void test_jr5(void **state)
{
    (void)state;
    rb_plan_t *p = tp_parse(s_jr5);
    const rb_project_t *u = p->project;
    assert_int_equal(u->line, 12);
    assert_int_equal(u->disks, 48);
    assert_int_equal(u->disk_size, 2000000000000ull); /* decimal, as sold */
    assert_int_equal(u->raid, RB_RAID6);
    assert_int_equal(u->groups, 3);
    assert_int_equal(u->parity_per_group, 2);
    assert_int_equal(u->data_disks / u->groups, 13); /* 16 - 1 spare - 2 parity */
    assert_int_equal(u->data_disks, 39);
    assert_int_equal(u->unused_disks, 0);
    assert_int_equal(u->units_per_rack, 8); /* 41U / 5U, rounded down */
    assert_int_equal(u->derate_ppm, 500000);
    assert_int_equal(u->nphases, 2);

    /* 1.5 GB/s a unit: the median of three nodes */
    static const double bw[] = {1.5 * GB, 1.4 * GB, 1.6 * GB};
    tp_phase_t ph[2];
    tp_phase(&ph[0], "seqwrite", bw, NULL, 3);
    tp_phase(&ph[1], "seqread", bw, NULL, 3);
    rb_phase_agg_t aggs[2] = {ph[0].agg, ph[1].agg};
    rb_project_result_t r;
    assert_int_equal(rb_project_result_eval(u, p->phases, NULL, p->nphases, aggs, 2, NULL, 0, &r),
                     0);

    tp_expect(&r, NULL, "raw capacity per unit", 96 * TB, RB_PROJECT_PROJECTED, "48 disks x 2 TB");
    tp_expect(&r, NULL, "capacity after RAID per unit", 78 * TB, RB_PROJECT_PROJECTED,
              "raid6: 3 groups of 16 = 1 hot spare + 2 parity + 13 data disks");
    tp_expect(&r, NULL, "usable capacity per unit", 71 * TB, RB_PROJECT_GIVEN,
              "usable_per_unit in the plan, as df shows on a unit (typed in, not measured by this "
              "run); 26.0% of raw lost");
    tp_expect(&r, NULL, "usable capacity per rack", 568 * TB, RB_PROJECT_PROJECTED,
              "71 TB a unit (given) x 8 units a rack (41U / 5U)");
    tp_expect(&r, NULL, "units for target_capacity", 15, RB_PROJECT_PROJECTED,
              "1 PB / 71 TB a unit (given) = 14.08, rounded up");
    tp_expect(&r, NULL, "racks for target_capacity", 2, RB_PROJECT_PROJECTED,
              "1 PB / 568 TB a rack = 1.76, rounded up");
    tp_expect(&r, "seqwrite", "throughput per unit", 1.5 * GB, RB_PROJECT_MEASURED,
              "phase seqwrite, median of 3 nodes");
    tp_expect(&r, "seqwrite", "throughput per rack", 12 * GB, RB_PROJECT_PROJECTED,
              "1.50 GB/s a unit (measured, seqwrite) x 8 units a rack");
    tp_expect(&r, "seqwrite", "throughput per rack, derated", 6 * GB, RB_PROJECT_PROJECTED,
              "12 GB/s a rack x derate 0.5");
    tp_expect(&r, "seqread", "throughput per rack", 12 * GB, RB_PROJECT_PROJECTED, NULL);
    /* the derate is about throughput: no derated capacity line */
    assert_null(tp_find(&r, NULL, "racks for target_capacity, derated"));
    /* no target_bw, no lines for it */
    assert_null(tp_find(&r, "seqwrite", "units for target_bw"));
    /* capacity lines first, each phase's after, the measured line before its projections */
    assert_string_equal(r.lines[0].label, "raw capacity per unit");
    assert_int_equal(r.nlines, 6 + 2 * 3);
    for (uint32_t i = 0; i < r.nlines; i++) {
        const char *ph = r.lines[i].phase;
        if (ph && (!r.lines[i - 1].phase || strcmp(r.lines[i - 1].phase, ph) != 0))
            assert_int_equal(r.lines[i].kind, RB_PROJECT_MEASURED);
    }
    assert_int_equal(r.nnotes, 0);
    rb_project_result_fini(&r);
    rb_project_result_fini(&r); /* safe twice */
    rb_plan_destroy(&p);

    /* df -h's "71T" is 71 TiB, more than 78 TB after RAID: a note says so */
    p = tp_parse("[capacity]\ndisks=48\ndisk_size=2T\nraid=raid6\nraid_group=16\n"
                 "hot_spares_per_group=1\nusable_per_unit=71TiB\nunits_per_rack=8\n");
    assert_int_equal(
        rb_project_result_eval(p->project, p->phases, NULL, p->nphases, aggs, 2, NULL, 0, &r), 0);
    tp_expect(&r, NULL, "usable capacity per unit", 71.0 * (1ull << 40), RB_PROJECT_GIVEN, NULL);
    assert_int_equal(r.nnotes, 1);
    assert_string_equal(r.notes[0], "usable_per_unit (78.1 TB) is more than the RAID model leaves "
                                    "(78 TB): was it read from df -h, whose T is TiB, rounded? "
                                    "df -B1 or df -H gives bytes or powers of 1000");
    rb_project_result_fini(&r);
    rb_plan_destroy(&p);

    /* units_per_rack given instead of the heights: the same rack */
    p = tp_parse("[capacity]\ndisks=48\ndisk_size=2TB\nraid=raid6\nraid_group=16\n"
                 "hot_spares_per_group=1\nusable_per_unit=71TB\nunits_per_rack=8\n"
                 "target_capacity=1PB\n");
    assert_int_equal(
        rb_project_result_eval(p->project, p->phases, NULL, p->nphases, aggs, 2, NULL, 0, &r), 0);
    tp_expect(&r, NULL, "usable capacity per rack", 568 * TB, RB_PROJECT_PROJECTED,
              "71 TB a unit (given) x 8 units a rack");
    tp_expect(&r, NULL, "racks for target_capacity", 2, RB_PROJECT_PROJECTED, NULL);
    /* every data phase by default, metadata steps left out */
    assert_int_equal(p->project->nphases, 2);
    assert_non_null(tp_find(&r, "seqread", "throughput per unit"));
    assert_null(tp_find(&r, "md.create", "throughput per unit"));
    rb_project_result_fini(&r);
    rb_plan_destroy(&p);

    /* and 639 TB in a 48U rack: 9 units */
    p = tp_parse("[capacity]\nusable_per_unit=71T\nunit_height_u=5\nrack_height_u=48\n");
    assert_int_equal(p->project->units_per_rack, 9);
    assert_int_equal(
        rb_project_result_eval(p->project, p->phases, NULL, p->nphases, aggs, 2, NULL, 0, &r), 0);
    tp_expect(&r, NULL, "usable capacity per rack", 639 * TB, RB_PROJECT_PROJECTED, "(48U / 5U)");
    /* no model: the df figure alone */
    assert_null(tp_find(&r, NULL, "raw capacity per unit"));
    tp_expect(&r, NULL, "usable capacity per unit", 71 * TB, RB_PROJECT_GIVEN,
              "usable_per_unit in the plan, as df shows on a unit");
    rb_project_result_fini(&r);
    rb_plan_destroy(&p);
}

/* Without a df figure the usable capacity is projected from the model, with
 * the file system's share taken off, and a note says how to measure it. */
static void test_model_only(void **state)
{
    (void)state;
    rb_plan_t *p = tp_parse("[capacity]\ndisks=48\ndisk_size=2T\nraid=raid6\nraid_group=16\n"
                            "hot_spares_per_group=1\nfs_overhead=9%\nunits_per_rack=8\n"
                            "target_capacity=1P\n");
    rb_project_result_t r;
    assert_int_equal(
        rb_project_result_eval(p->project, p->phases, NULL, p->nphases, NULL, 0, NULL, 0, &r), 0);
    tp_expect(&r, NULL, "capacity after RAID per unit", 78 * TB, RB_PROJECT_PROJECTED, NULL);
    tp_expect(&r, NULL, "usable capacity per unit", 70.98 * TB, RB_PROJECT_PROJECTED,
              "78 TB after RAID less fs_overhead 9%; not measured");
    tp_expect(&r, NULL, "usable capacity per rack", 8 * 70.98 * TB, RB_PROJECT_PROJECTED,
              "71.0 TB a unit (projected) x 8 units a rack");
    /* 1 PB / 70.98 TB = 14.09 units; / 8 = 1.76 racks */
    tp_expect(&r, NULL, "units for target_capacity", 15, RB_PROJECT_PROJECTED, "(projected)");
    tp_expect(&r, NULL, "racks for target_capacity", 2, RB_PROJECT_PROJECTED, NULL);
    assert_true(r.nnotes >= 1);
    assert_non_null(strstr(r.notes[0], "usable_per_unit= (what df shows on a real unit)"));
    /* the phases did not run: said, and nothing projected from them */
    const rb_project_line_t *l = tp_line(&r, "seqwrite", "throughput per unit");
    assert_true(isnan(l->value));
    assert_int_equal(l->kind, RB_PROJECT_MEASURED);
    assert_non_null(strstr(l->source, "phase seqwrite did not run"));
    assert_null(tp_find(&r, "seqwrite", "throughput per rack"));
    rb_project_result_fini(&r);
    rb_plan_destroy(&p);

    /* no fs_overhead: what the RAID model leaves, said so */
    p = tp_parse("[capacity]\ndisks=12\ndisk_size=4T\nraid=raidz2\n");
    assert_int_equal(p->project->raid_group, 12); /* one group of every disk */
    assert_int_equal(
        rb_project_result_eval(p->project, p->phases, NULL, p->nphases, NULL, 0, NULL, 0, &r), 0);
    tp_expect(&r, NULL, "capacity after RAID per unit", 40 * TB, RB_PROJECT_PROJECTED,
              "raidz2: 1 group of 12 = 2 parity + 10 data disks; 10 data disks x 4 TB");
    tp_expect(&r, NULL, "usable capacity per unit", 40 * TB, RB_PROJECT_PROJECTED,
              "no fs_overhead given; not measured");
    /* no rack size: per-rack lines are left out, with a note */
    assert_null(tp_find(&r, NULL, "usable capacity per rack"));
    int said = 0;
    for (uint32_t i = 0; i < r.nnotes; i++)
        said += strstr(r.notes[i], "per-rack lines are left out") != NULL;
    assert_int_equal(said, 1);
    rb_project_result_fini(&r);
    rb_plan_destroy(&p);

    /* disks left over are said */
    p = tp_parse("[capacity]\ndisks=50\ndisk_size=1T\nraid=raid10\nraid_group=16\n"
                 "hot_spares_per_group=2\n");
    assert_int_equal(p->project->groups, 3);
    assert_int_equal(p->project->data_disks, 3 * 7);
    assert_int_equal(p->project->unused_disks, 2);
    assert_int_equal(
        rb_project_result_eval(p->project, p->phases, NULL, p->nphases, NULL, 0, NULL, 0, &r), 0);
    tp_expect(&r, NULL, "capacity after RAID per unit", 21 * TB, RB_PROJECT_PROJECTED,
              "raid10: 3 groups of 16 = 2 hot spares + 7 mirror + 7 data disks; 21 data disks x "
              "1 TB; 2 disks left over");
    rb_project_result_fini(&r);
    rb_plan_destroy(&p);
}

/* Racks and units for the targets, plain and derated. */
static void test_targets(void **state)
{
    (void)state;
    rb_plan_t *p = tp_parse("[capacity]\nusable_per_unit=71T\nunits_per_rack=8\n"
                            "target_capacity=1P\ntarget_bw=24GB/s\nderate=0.5\nphases=seqwrite\n");
    static const double bw[] = {1.5 * GB};
    tp_phase_t ph;
    tp_phase(&ph, "seqwrite", bw, NULL, 1);
    rb_project_result_t r;
    assert_int_equal(
        rb_project_result_eval(p->project, p->phases, NULL, p->nphases, &ph.agg, 1, NULL, 0, &r),
        0);
    tp_expect(&r, "seqwrite", "throughput per unit", 1.5 * GB, RB_PROJECT_MEASURED,
              "phase seqwrite, median of 1 node; one node is one unit");
    tp_expect(&r, "seqwrite", "units for target_bw", 16, RB_PROJECT_PROJECTED,
              "24 GB/s / 1.50 GB/s a unit (measured, seqwrite) = 16.00, rounded up");
    tp_expect(&r, "seqwrite", "racks for target_bw", 2, RB_PROJECT_PROJECTED,
              "24 GB/s / 12 GB/s a rack = 2.00, rounded up");
    tp_expect(&r, "seqwrite", "units for target_bw, derated", 32, RB_PROJECT_PROJECTED,
              "x derate 0.5 = 32.00, rounded up");
    tp_expect(&r, "seqwrite", "racks for target_bw, derated", 4, RB_PROJECT_PROJECTED,
              "24 GB/s / 6 GB/s a derated rack = 4.00, rounded up");
    /* the capacity target is not derated */
    tp_expect(&r, NULL, "racks for target_capacity", 2, RB_PROJECT_PROJECTED, NULL);
    assert_null(tp_find(&r, "seqread", "throughput per unit")); /* not in phases= */
    rb_project_result_fini(&r);

    /* a median of 0: no count of units meets the target, and that is said */
    static const double zero[] = {0};
    tp_phase(&ph, "seqwrite", zero, NULL, 1);
    assert_int_equal(
        rb_project_result_eval(p->project, p->phases, NULL, p->nphases, &ph.agg, 1, NULL, 0, &r),
        0);
    assert_null(tp_find(&r, "seqwrite", "units for target_bw"));
    assert_non_null(strstr(r.notes[r.nnotes - 1], "the median node moved nothing"));
    rb_project_result_fini(&r);
    rb_plan_destroy(&p);
}

/* What the agents measured beside what the plan gives: the disks' size
 * (the most common of the raw disks) against disk_size, the median node's
 * file systems against usable_per_unit, each mismatch flagged; figures that
 * agree are shown without a note. */
static void test_measured_beside_given(void **state)
{
    (void)state;
    rb_plan_t *p = tp_parse("[capacity]\ndisks=4\ndisk_size=8T\nraid=raid0\n"
                            "usable_per_unit=30T\nphases=seqwrite\n");
    static const double bw[] = {1.0 * GB, 1.0 * GB, 1.0 * GB};
    tp_phase_t ph;
    tp_phase(&ph, "seqwrite", bw, NULL, 3);
    rb_agg_disk_t disks[3] = {{.id.size = 4000787030016ull},
                              {.id.size = 4000787030016ull},
                              {.id.size = 8001563222016ull}};
    ph.agg.disks = disks;
    ph.agg.ndisks = 3;
    double fs[3] = {12e12, 12.5e12, 0}; /* the third node's is unknown */
    rb_project_result_t r;
    assert_int_equal(
        rb_project_result_eval(p->project, p->phases, NULL, p->nphases, &ph.agg, 1, fs, 3, &r), 0);
    tp_expect(&r, NULL, "disk size", 4000787030016.0, RB_PROJECT_MEASURED,
              "the most common size of the raw disks the run used (2 of 3, from sysfs)");
    tp_expect(&r, NULL, "file systems per unit", 12.25e12, RB_PROJECT_MEASURED,
              "the median of 2 nodes");
    tp_expect(&r, NULL, "usable capacity per unit", 30e12, RB_PROJECT_GIVEN, NULL);
    int disk_note = 0, fs_note = 0;
    for (uint32_t i = 0; i < r.nnotes; i++) {
        disk_note |= strstr(r.notes[i], "mismatch: [capacity] gives disk_size 8 TB, the disks "
                                        "the run used measure 4.00 TB") != NULL;
        fs_note |= strstr(r.notes[i], "mismatch: [capacity] gives usable_per_unit 30 TB") != NULL;
    }
    assert_true(disk_note);
    assert_true(fs_note);
    rb_project_result_fini(&r);
    /* figures that agree: no note */
    rb_plan_t *q = tp_parse("[capacity]\ndisks=4\ndisk_size=4000787030016\nraid=raid0\n"
                            "usable_per_unit=12T\nphases=seqwrite\n");
    assert_int_equal(
        rb_project_result_eval(q->project, q->phases, NULL, q->nphases, &ph.agg, 1, fs, 3, &r), 0);
    for (uint32_t i = 0; i < r.nnotes; i++)
        assert_null(strstr(r.notes[i], "mismatch"));
    rb_project_result_fini(&r);
    /* nothing measured: no such lines */
    assert_int_equal(
        rb_project_result_eval(q->project, q->phases, NULL, q->nphases, NULL, 0, NULL, 0, &r), 0);
    assert_null(tp_find(&r, NULL, "disk size"));
    assert_null(tp_find(&r, NULL, "file systems per unit"));
    rb_project_result_fini(&r);
    rb_plan_destroy(&q);
    rb_plan_destroy(&p);
}

/* The measured figure is the median node, never the best one. */
static void test_median_not_best(void **state)
{
    (void)state;
    rb_plan_t *p = tp_parse("[capacity]\nunits_per_rack=8\n");
    static const double bw[] = {1.0 * GB, 2.7 * GB, 1.5 * GB};
    tp_phase_t ph[2];
    tp_phase(&ph[0], "seqwrite", bw, NULL, 3);
    /* a node that did not complete the phase is left out: median of 1.0 and 2.7 */
    static const rb_node_status_t st[] = {RB_NODE_OK, RB_NODE_OK, RB_NODE_FAILED};
    tp_phase(&ph[1], "seqread", bw, st, 3);
    rb_phase_agg_t aggs[2] = {ph[0].agg, ph[1].agg};
    rb_project_result_t r;
    assert_int_equal(
        rb_project_result_eval(p->project, p->phases, NULL, p->nphases, aggs, 2, NULL, 0, &r), 0);
    tp_expect(&r, "seqwrite", "throughput per unit", 1.5 * GB, RB_PROJECT_MEASURED,
              "phase seqwrite, median of 3 nodes; nodes from 1 GB/s to 2.70 GB/s");
    tp_expect(&r, "seqwrite", "throughput per rack", 12 * GB, RB_PROJECT_PROJECTED, NULL);
    tp_expect(&r, "seqread", "throughput per unit", 1.85 * GB, RB_PROJECT_MEASURED,
              "median of the 2 of 3 nodes that completed it");
    rb_project_result_fini(&r);

    /* no node completed: nothing measured, nothing projected */
    static const rb_node_status_t lost[] = {RB_NODE_LOST, RB_NODE_FAILED, RB_NODE_MISSING};
    tp_phase(&ph[1], "seqread", bw, lost, 3);
    aggs[1] = ph[1].agg;
    assert_int_equal(
        rb_project_result_eval(p->project, p->phases, NULL, p->nphases, aggs, 2, NULL, 0, &r), 0);
    const rb_project_line_t *l = tp_line(&r, "seqread", "throughput per unit");
    assert_true(isnan(l->value));
    assert_non_null(strstr(l->source, "no node completed it"));
    assert_null(tp_find(&r, "seqread", "throughput per rack"));
    /* no capacity described: no capacity line */
    assert_null(tp_find(&r, NULL, "usable capacity per unit"));
    rb_project_result_fini(&r);
    rb_plan_destroy(&p);
}

/* Every spelling of the units, and the RAID levels' parity. */
static void test_units(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        uint64_t bytes;
    } sizes[] = {
        {"2T", 2000000000000ull},
        {"2TB", 2000000000000ull},
        {"2tb", 2000000000000ull},
        {"2000G", 2000000000000ull},
        {"2000gb", 2000000000000ull},
        {"1.5P", 1500000000000000ull},
        {"1PB", 1000000000000000ull},
        {"71T", 71000000000000ull},
        {"2TiB", 2ull << 40},
        {"2ti", 2ull << 40},
        {"1PiB", 1ull << 50},
        {"64.5TiB", 129ull << 39},
        {"500k", 500000},
        {"4KiB", 4096},
        {"123", 123},
        {"123B", 123},
        {"1.0000000000000000001T", 1000000000000ull},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char tail[256];
        snprintf(tail, sizeof tail, "[capacity]\nusable_per_unit=%s\n", sizes[i].text);
        rb_plan_t *p = tp_parse(tail);
        if (p->project->usable_per_unit != sizes[i].bytes)
            fail_msg("%s: expected %llu, got %llu", sizes[i].text,
                     (unsigned long long)sizes[i].bytes,
                     (unsigned long long)p->project->usable_per_unit);
        rb_plan_destroy(&p);
    }
    static const struct {
        const char *text;
        uint64_t bytes_per_s;
    } rates[] = {
        {"12G", 12000000000ull}, {"12GB/s", 12000000000ull}, {"1.5g/S", 1500000000ull},
        {"1GiB/s", 1ull << 30},  {"800MB", 800000000ull},    {"1000000", 1000000},
    };
    for (size_t i = 0; i < sizeof rates / sizeof rates[0]; i++) {
        char tail[256];
        snprintf(tail, sizeof tail, "[capacity]\ntarget_bw=%s\n", rates[i].text);
        rb_plan_t *p = tp_parse(tail);
        assert_int_equal(p->project->target_bw, rates[i].bytes_per_s);
        rb_plan_destroy(&p);
    }
    rb_plan_t *p = tp_parse("[capacity]\nunits_per_rack=1\nderate=75%\n");
    assert_int_equal(p->project->derate_ppm, 750000);
    rb_plan_destroy(&p);
    p = tp_parse("[capacity]\nunits_per_rack=1\nderate=1\n");
    assert_int_equal(p->project->derate_ppm, 1000000);
    rb_plan_destroy(&p);
    p = tp_parse("[capacity]\ndisks=4\ndisk_size=1T\nraid=RAIDZ1\nfs_overhead=0.0125%\n");
    assert_int_equal(p->project->fs_overhead_ppm, 125);
    assert_int_equal(p->project->raid, RB_RAIDZ1);
    rb_plan_destroy(&p);

    static const struct {
        rb_raid_t raid;
        uint64_t n, parity;
    } raids[] = {
        {RB_RAID0, 8, 0},  {RB_RAID1, 2, 1},  {RB_RAID10, 8, 4},  {RB_RAID5, 8, 1},
        {RB_RAID6, 15, 2}, {RB_RAIDZ1, 5, 1}, {RB_RAIDZ2, 10, 2}, {RB_RAIDZ3, 11, 3},
    };
    for (size_t i = 0; i < sizeof raids / sizeof raids[0]; i++)
        assert_int_equal(rb_project_raid_parity(raids[i].raid, raids[i].n), raids[i].parity);
    assert_string_equal(rb_project_raid_name(RB_RAIDZ3), "raidz3");
    assert_string_equal(rb_project_raid_name(RB_RAID_NLEVELS), "?");
}

static const struct {
    const char *tail;
    unsigned line;
    const char *what;
} s_bad[] = {
    {"[capacity]\ndisk=48\n", 13,
     "unknown option 'disk' in [capacity] (disks, disk_size, raid, raid_group"},
    {"[capacity]\nunits_per_rack=8\n[capacity]\nderate=0.5\n", 14,
     "section [capacity] appears twice (first at line 12): a plan describes one unit"},
    {"[capacity]\n", 12, "[capacity] is empty"},
    {"[capacity]\n[x]\nsize=1M\n", 12, "[capacity] is empty"},
    {"[capacity]\nunits_per_rack=8\nunits_per_rack=9\n", 14,
     "option 'units_per_rack' is given twice in [capacity] (first at line 13)"},
    {"[capacity]\nderate\n", 13, "option 'derate' needs a value (derate=...)"},
    {"[capacity]\nusable_per_unit=\n", 13, "option 'usable_per_unit' needs a value"},
    /* values */
    {"[capacity]\ndisks=48\ndisk_size=2Q\nraid=raid6\n", 14,
     "bad size '2Q' for disk_size (bytes: a number with k, M, G, T or P (powers of 1000"},
    {"[capacity]\nusable_per_unit=71 T\n", 13, "bad size '71 T' for usable_per_unit"},
    {"[capacity]\nusable_per_unit=.5T\n", 13, "bad size '.5T'"},
    {"[capacity]\nusable_per_unit=-1T\n", 13, "bad size '-1T'"},
    {"[capacity]\nusable_per_unit=1T/s\n", 13, "bad size '1T/s'"},
    {"[capacity]\nusable_per_unit=0\n", 13, "usable_per_unit must be greater than 0"},
    {"[capacity]\ntarget_capacity=1001P\n", 13,
     "target_capacity=1001P is too large (at most 1000P)"},
    {"[capacity]\ntarget_bw=fast\n", 13, "bad bandwidth 'fast' for target_bw (bytes/s:"},
    {"[capacity]\ntarget_bw=1G/h\n", 13, "bad bandwidth '1G/h'"},
    {"[capacity]\ndisks=0\n", 13, "disks=0 is out of range (1..100000)"},
    {"[capacity]\ndisks=4.5\n", 13, "bad number '4.5' for disks"},
    {"[capacity]\ndisks=48\ndisk_size=2T\nraid=raid7\n", 15,
     "raid=raid7 is not supported (raid0, raid1, raid10, raid5, raid6, raidz1, raidz2, raidz3)"},
    {"[capacity]\nunits_per_rack=8\nfs_overhead=8\n", 14,
     "bad value '8' for fs_overhead (a percentage with '%', e.g. 8% or 2.5%)"},
    {"[capacity]\nunits_per_rack=8\nfs_overhead=100%\n", 14,
     "fs_overhead=100% is out of range (0% to below 100%"},
    {"[capacity]\nunits_per_rack=8\nderate=0\n", 14,
     "derate=0 is out of range (greater than 0, at most 1 or 100%"},
    {"[capacity]\nunits_per_rack=8\nderate=1.5\n", 14, "derate=1.5 is out of range"},
    {"[capacity]\nunits_per_rack=8\nderate=150%\n", 14, "derate=150% is out of range"},
    {"[capacity]\nunits_per_rack=8\nderate=half\n", 14,
     "bad value 'half' for derate (a share of the measured throughput: 0.5, or 50%)"},
    {"[capacity]\nunit_height_u=0\n", 13, "unit_height_u=0 is out of range (1..1000)"},
    {"[capacity]\ntarget_iops=5KiB\n", 13,
     "bad rate '5KiB' for target_iops (IO operations a second: a number with k, M or G"},
    {"[capacity]\ntarget_iops=0k\n", 13, "target_iops must be greater than 0"},
    {"[capacity]\nrack_height_u=42U\n", 13, "bad number '42U' for rack_height_u"},
    /* the RAID model */
    {"[capacity]\nusable_per_unit=71T\nraid_group=16\n", 14,
     "raid_group= in [capacity] belongs to the RAID model, which also needs disks=, disk_size=, "
     "raid="},
    {"[capacity]\ndisks=48\nraid=raid6\n", 13, "which also needs disk_size="},
    {"[capacity]\nusable_per_unit=71T\nfs_overhead=8%\n", 14,
     "fs_overhead= in [capacity] belongs to the RAID model"},
    {"[capacity]\ndisks=10\ndisk_size=2T\nraid=raid6\nraid_group=16\n", 16,
     "10 disks do not hold one group of raid_group=16 (a group counts its hot spares, parity and "
     "data disks)"},
    {"[capacity]\ndisks=48\ndisk_size=2T\nraid=raid6\nraid_group=16\nhot_spares_per_group=16\n", 17,
     "hot_spares_per_group=16 leaves no disk of a group of 16 for the array"},
    {"[capacity]\ndisks=48\ndisk_size=2T\nraid=raid6\nraid_group=3\nhot_spares_per_group=1\n", 16,
     "a group of 3 disks with 1 hot spare leaves no data disk in raid6 (2 parity disks a group)"},
    {"[capacity]\ndisks=2\ndisk_size=2T\nraid=raidz3\n", 13,
     "a group of 2 disks with 0 hot spares leaves no data disk in raidz3 (3 parity disks"},
    {"[capacity]\ndisks=48\ndisk_size=2T\nraid=raid10\nraid_group=16\nhot_spares_per_group=1\n", 16,
     "raid10 mirrors disks in pairs, but a group has 15 disks in its array"},
    {"[capacity]\ndisks=3\ndisk_size=2T\nraid=raid1\n", 13, "raid1 mirrors disks in pairs"},
    /* the rack */
    {"[capacity]\nunit_height_u=5\n", 13,
     "unit_height_u= needs rack_height_u= too to count the units in a rack (or give "
     "units_per_rack=)"},
    {"[capacity]\nrack_height_u=42\n", 13, "rack_height_u= needs unit_height_u= too"},
    {"[capacity]\nunit_height_u=50\nrack_height_u=42\n", 13,
     "unit_height_u=50 is taller than rack_height_u=42"},
    {"[capacity]\nunit_height_u=5\nrack_height_u=41\nunits_per_rack=9\n", 15,
     "units_per_rack=9 of unit_height_u=5 need 45U, more than rack_height_u=41"},
    /* targets and phases */
    {"[capacity]\nunits_per_rack=8\ntarget_capacity=1P\n", 14,
     "target_capacity needs the unit's capacity: usable_per_unit= (what df shows on a unit), or "
     "disks=, disk_size= and raid="},
    {"[capacity]\nunits_per_rack=8\nphases=seqwrite,nope\n", 14,
     "phases: 'nope' in [capacity] is neither a phase nor a job of the plan (phases: seqwrite, "
     "seqread, md.create, md.stat, md.delete)"},
    {"[capacity]\nunits_per_rack=8\nphases=seqwrite,md\n", 14,
     "phases: 'md.create' is a metadata step: it is measured in operations, not bytes"},
    {"[capacity]\nunits_per_rack=8\nphases=seqwrite,,seqread\n", 14, "has an empty entry"},
    {"[capacity]\nunits_per_rack=8\nphases=seqread, seqread\n", 14,
     "phases: 'seqread' is listed twice"},
    {"[capacity]\nunits_per_rack=8\nphases=a/b\n", 14, "phases: 'a/b' is not a phase name"},
};

static void test_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof s_bad / sizeof s_bad[0]; i++)
        s_expect_error(s_bad[i].tail, s_bad[i].line, s_bad[i].what);
    /* "capacity" is reserved as a job name; "[capacity x]" is no section of ours */
    s_expect_error("[x]\nname=capacity\n", 13, "job name 'capacity' is reserved");
    s_expect_error("[capacity x]\nsize=1M\n", 12, "section [capacity x]: [capacity] takes no name");
    /* a plan of metadata steps only has no throughput to derate or to target */
    static const char meta[] = "[m]\nrw=meta\nmeta_files=1\n[capacity]\nunits_per_rack=4\n"
                               "target_bw=1G\n";
    rb_plan_t *q = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    assert_int_equal(rb_plan_parse(meta, strlen(meta), "m.ini", &q, &err), -EINVAL);
    assert_string_equal(err.msg, "m.ini:6: target_bw in [capacity] applies to no phase: every "
                                 "phase of the plan is a metadata step, which moves no bytes to "
                                 "project");
    /* without targets it is fine, and says why nothing is measured */
    static const char meta_ok[] = "[m]\nrw=meta\nmeta_files=1\n[capacity]\nusable_per_unit=1T\n";
    rb_err_clear(&err);
    assert_int_equal(rb_plan_parse(meta_ok, strlen(meta_ok), "m.ini", &q, &err), 0);
    rb_project_result_t r;
    assert_int_equal(
        rb_project_result_eval(q->project, q->phases, NULL, q->nphases, NULL, 0, NULL, 0, &r), 0);
    assert_non_null(
        strstr(r.notes[r.nnotes - 1], "no throughput lines: the plan has no data phase"));
    rb_project_result_fini(&r);
    rb_plan_destroy(&q);
}

/* text with its wrapped lines joined (a line of 10 spaces or more goes on
 * the one before) and every run of spaces one space; the caller frees. */
char *tp_squeeze(const char *text)
{
    char *out = malloc(strlen(text) + 1), *o = out;
    assert_non_null(out);
    for (const char *t = text; *t;) {
        if (*t == '\n' && strspn(t + 1, " ") >= 10) {
            t += 1 + strspn(t + 1, " ");
            *o++ = ' ';
        } else if (*t == ' ') {
            t += strspn(t, " ");
            *o++ = ' ';
        } else {
            *o++ = *t++;
        }
    }
    *o = '\0';
    return out;
}

/* report.txt (summary.json with json) of res; the caller frees. */
char *tp_render(const rb_run_result_t *res, bool json)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(json ? rb_report_json(res, f) : rb_report_text(res, f), 0);
    fclose(f);
    return text;
}

/* Expects a row of the projection table: its cells in order, the source
 * whole (its wrapped lines joined). */
void tp_expect_row(const char *text, const char *phase, const char *label, const char *value,
                   const char *kind, const char *source)
{
    char row[512];
    snprintf(row, sizeof row, "\n %s %s %s %s %s", phase, label, value, kind, source);
    char *sq = tp_squeeze(text);
    if (!strstr(sq, row))
        fail_msg("no row \"%s\" in\n%s", row + 1, text);
    free(sq);
}

/* What summary.json and report.txt make of it. */
static void test_render(void **state)
{
    (void)state;
    rb_plan_t *p = tp_parse(s_jr5);
    static const double bw[] = {1.0 * GB, 1.5 * GB, 2.7 * GB};
    tp_phase_t ph[2];
    tp_phase(&ph[0], "seqwrite", bw, NULL, 3);
    tp_phase(&ph[1], "seqread", bw, NULL, 3);
    rb_phase_agg_t aggs[2] = {ph[0].agg, ph[1].agg};
    rb_project_result_t r;
    assert_int_equal(
        rb_project_result_eval(p->project, p->phases, NULL, p->nphases, aggs, 1, NULL, 0, &r), 0);
    rb_run_result_t res = {.run_id = "r1",
                           .plan_source = "t.ini",
                           .nphases = 1,
                           .specs = p->phases,
                           .phases = aggs,
                           .projection = &r,
                           .units = RB_UNITS_BOTH};
    char *text = tp_render(&res, false);
    assert_non_null(strstr(text, "\nprojection (one node is one unit; measured: this run; given: "
                                 "typed into the plan; projected: arithmetic on those)\n"));
    /* no line of the table passes the report's width: the sources wrap */
    for (const char *t = strstr(text, "\nprojection"); t && *t; t = strchr(t + 1, '\n'))
        assert_true(strcspn(t + 1, "\n") <= 120);
    tp_expect_row(text, "phase", "line", "value", "kind", "source\n");
    tp_expect_row(text, "-", "usable capacity per unit", "71 TB (64.6 TiB)", "given",
                  "usable_per_unit in the plan, as df shows on a unit");
    tp_expect_row(text, "-", "usable capacity per rack", "568 TB (517 TiB)", "projected",
                  "71 TB a unit (given) x 8 units a rack (41U / 5U)\n");
    tp_expect_row(text, "-", "racks for target_capacity", "2 racks", "projected",
                  "1 PB / 568 TB a rack = 1.76, rounded up\n");
    /* the median node, not the best */
    tp_expect_row(text, "seqwrite", "throughput per unit", "1.50 GB/s (1.40 GiB/s)", "measured",
                  "phase seqwrite, median of 3 nodes; nodes from 1 GB/s to 2.70 GB/s; one node is "
                  "one unit\n");
    tp_expect_row(text, "seqwrite", "throughput per rack", "12 GB/s (11.2 GiB/s)", "projected",
                  "1.50 GB/s a unit (measured, seqwrite) x 8 units a rack (41U / 5U)\n");
    tp_expect_row(text, "seqwrite", "throughput per rack, derated", "6 GB/s (5.59 GiB/s)",
                  "projected", "12 GB/s a rack x derate 0.5\n");
    tp_expect_row(text, "seqread", "throughput per unit", "-", "measured",
                  "phase seqread did not run: nothing measured, nothing projected\n");
    free(text);

    /* IEC (the default) and SI: the rates in one unit, the sources as they are */
    res.units = RB_UNITS_IEC;
    text = tp_render(&res, false);
    /* a capacity in powers of 1000 in every style, as disks are sold */
    tp_expect_row(text, "-", "usable capacity per rack", "568 TB", "projected", "71 TB a unit");
    tp_expect_row(text, "seqwrite", "throughput per unit", "1.40 GiB/s", "measured", "phase");
    free(text);
    res.units = RB_UNITS_SI;
    text = tp_render(&res, false);
    tp_expect_row(text, "-", "usable capacity per rack", "568 TB", "projected", "71 TB a unit");
    tp_expect_row(text, "seqwrite", "throughput per unit", "1.50 GB/s", "measured", "phase");
    assert_null(strstr(text, "iB"));
    free(text);

    text = tp_render(&res, true);
    rb_err_t err;
    rb_err_clear(&err);
    rb_json_t *j = rb_json_parse(text, strlen(text), &err);
    if (!j)
        fail_msg("summary.json: %s", err.msg);
    const rb_json_t *pj = rb_json_get(j, "projection");
    assert_int_equal(rb_json_type(pj), RB_JSON_OBJ);
    const rb_json_t *unit = rb_json_get(pj, "unit");
    assert_float_equal(rb_json_num(rb_json_get(unit, "disks"), 0), 48, 0);
    assert_float_equal(rb_json_num(rb_json_get(unit, "disk_size"), 0), 2e12, 0);
    assert_string_equal(rb_json_str(rb_json_get(unit, "raid")), "raid6");
    assert_float_equal(rb_json_num(rb_json_get(unit, "groups"), 0), 3, 0);
    assert_float_equal(rb_json_num(rb_json_get(unit, "data_disks"), 0), 39, 0);
    assert_float_equal(rb_json_num(rb_json_get(unit, "units_per_rack"), 0), 8, 0);
    assert_float_equal(rb_json_num(rb_json_get(unit, "derate"), 0), 0.5, 0);
    assert_int_equal(rb_json_type(rb_json_get(unit, "fs_overhead_pct")), RB_JSON_NULL);
    assert_int_equal(rb_json_type(rb_json_get(unit, "target_bw")), RB_JSON_NULL);
    assert_string_equal(rb_json_str(rb_json_path(unit, "phases.1")), "seqread");
    const rb_json_t *lines = rb_json_get(pj, "lines");
    assert_int_equal(rb_json_len(lines), r.nlines);
    const rb_json_t *l = rb_json_at(lines, 2);
    assert_string_equal(rb_json_str(rb_json_get(l, "label")), "usable capacity per unit");
    assert_float_equal(rb_json_num(rb_json_get(l, "value"), 0), 71e12, 0);
    assert_string_equal(rb_json_str(rb_json_get(l, "unit")), "B");
    assert_string_equal(rb_json_str(rb_json_get(l, "kind")), "given");
    assert_int_equal(rb_json_type(rb_json_get(l, "phase")), RB_JSON_NULL);
    l = rb_json_at(lines, 3);
    assert_string_equal(rb_json_str(rb_json_get(l, "kind")), "projected");
    assert_float_equal(rb_json_num(rb_json_get(l, "value"), 0), 568e12, 0);
    l = rb_json_at(lines, 7);
    assert_string_equal(rb_json_str(rb_json_get(l, "label")), "throughput per rack");
    assert_string_equal(rb_json_str(rb_json_get(l, "phase")), "seqwrite");
    assert_string_equal(rb_json_str(rb_json_get(l, "unit")), "B/s");
    assert_float_equal(rb_json_num(rb_json_get(l, "value"), 0), 12e9, 1e-3);
    l = rb_json_at(lines, 9);
    assert_string_equal(rb_json_str(rb_json_get(l, "phase")), "seqread");
    assert_int_equal(rb_json_type(rb_json_get(l, "value")), RB_JSON_NULL);
    assert_int_equal(rb_json_type(rb_json_get(pj, "notes")), RB_JSON_ARR);
    rb_json_free(&j);
    free(text);

    /* no [capacity]: "projection": null and no section in the report */
    res.projection = NULL;
    text = tp_render(&res, true);
    j = rb_json_parse(text, strlen(text), &err);
    assert_non_null(j);
    assert_int_equal(rb_json_type(rb_json_get(j, "projection")), RB_JSON_NULL);
    rb_json_free(&j);
    free(text);
    text = tp_render(&res, false);
    assert_null(strstr(text, "projection"));
    free(text);
    rb_project_result_fini(&r);
    rb_plan_destroy(&p);

    /* a plan without [capacity] evaluates to nothing */
    assert_int_equal(rb_project_result_eval(NULL, NULL, NULL, 0, NULL, 0, NULL, 0, &r), 0);
    assert_int_equal(r.nlines, 0);
    assert_null(r.unit);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_jr5),          cmocka_unit_test(test_model_only),
        cmocka_unit_test(test_targets),      cmocka_unit_test(test_median_not_best),
        cmocka_unit_test(test_units),        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_render),       cmocka_unit_test(test_measured_beside_given),
        cmocka_unit_test(test_jackrabbit_m), cmocka_unit_test(test_iterations),
        cmocka_unit_test(test_random_iops),
    };
    return cmocka_run_group_tests_name("project", tests, NULL, NULL);
}
