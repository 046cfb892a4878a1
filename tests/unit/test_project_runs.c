/* The projection of whole runs, beside test_project.c's arithmetic: the
 * shipped JackRabbit-M plan's capacity in the units disks are sold in, a
 * repeated phase projected once from its iterations, and random phases
 * sized by their IOPS. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
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

/* report.txt (summary.json with json) of a run of plan p whose first nrun
 * phases measured aggs, its projection worked out, in style st; the caller
 * frees. */
static char *s_report(const rb_plan_t *p, rb_phase_agg_t *aggs, uint32_t nrun, rb_units_style_t st,
                      bool json)
{
    rb_project_result_t r;
    assert_int_equal(rb_project_result_eval(p->project, p->phases, p->iters, p->nphases, aggs, nrun,
                                            NULL, 0, &r),
                     0);
    rb_run_result_t res = {.run_id = "r1",
                           .plan_source = p->source,
                           .nphases = nrun,
                           .specs = p->phases,
                           .phases = aggs,
                           .projection = &r,
                           .units = st};
    char *text = tp_render(&res, json);
    rb_project_result_fini(&r);
    return text;
}

/* The JackRabbit-M unit as deploy/plans ships it: 24 x 1 TB in RAID6 with
 * 2 hot spares is 20 data disks, 20 TB a unit; 10 units of 4U in 41U, 200 TB
 * a rack, as its burn-in report counts (not "182 TiB"). */
void test_jackrabbit_m(void **state)
{
    (void)state;
    rb_plan_t *p = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_plan_load(RB_TEST_PLANS "/iozone-throughput.ini", &p, &err) != 0)
        fail_msg("iozone-throughput.ini: %s", err.msg);
    const rb_project_t *u = p->project;
    assert_non_null(u);
    assert_int_equal(u->disk_size, 1000000000000ull); /* 1T as sold */
    assert_int_equal(u->data_disks, 20);              /* 24 - 2 spares - 2 parity */
    assert_int_equal(u->units_per_rack, 10);          /* 41U / 4U */
    static const double bw[] = {628e6};
    tp_phase_t ph;
    tp_phase(&ph, "writers", bw, NULL, 1);
    char *text = s_report(p, &ph.agg, 1, RB_UNITS_IEC, false); /* the default */
    tp_expect_row(text, "-", "usable capacity per unit", "20 TB", "projected",
                  "20 TB after RAID, no fs_overhead given; not measured\n");
    tp_expect_row(text, "-", "usable capacity per rack", "200 TB", "projected",
                  "20 TB a unit (projected) x 10 units a rack (41U / 4U)\n");
    assert_null(strstr(text, "TiB"));
    free(text);
    /* --units both: binary beside it */
    text = s_report(p, &ph.agg, 1, RB_UNITS_BOTH, false);
    tp_expect_row(text, "-", "usable capacity per rack", "200 TB (182 TiB)", "projected",
                  "20 TB a unit");
    free(text);
    rb_plan_destroy(&p);
}

/* Phase name on three nodes around a median bandwidth and IOPS. */
static void s_phase3(tp_phase_t *ph, const char *name, double bw, double iops)
{
    const double node_bw[] = {bw * 0.9, bw, bw * 1.1};
    tp_phase(ph, name, node_bw, NULL, 3);
    for (int i = 0; i < 3; i++)
        ph->nodes[i].iops = iops * (0.9 + 0.1 * i);
}

/* Lines of r whose phase is name. */
static uint32_t s_count(const rb_project_result_t *r, const char *name)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->nlines; i++)
        n += r->lines[i].phase && !strcmp(r->lines[i].phase, name);
    return n;
}

/* Two phases of iterations=3: one projection each, from the mean of the
 * iterations' median nodes, with their spread beside it; the random one
 * sized by IOPS. */
static const char s_iter_plan[] = "[global]\ndirectory=/data\nsize=1M\niterations=3\n"
                                  "[seqwrite]\nrw=write\n"
                                  "[randread]\nstonewall\nrw=randread\nbs=4k\n"
                                  "[capacity]\nusable_per_unit=20T\nunits_per_rack=10\n"
                                  "target_bw=10G\ntarget_iops=1M\n";

void test_iterations(void **state)
{
    (void)state;
    rb_plan_t *p = tp_plan(s_iter_plan);
    assert_int_equal(p->nphases, 6);
    tp_phase_t ph[6];
    static const double bw[] = {1.0 * GB, 1.2 * GB, 1.4 * GB}, iops[] = {20e3, 25e3, 30e3};
    for (int i = 0; i < 3; i++) {
        s_phase3(&ph[i], p->phases[i].name, bw[i], 1000);
        s_phase3(&ph[3 + i], p->phases[3 + i].name, 100e6, iops[i]);
    }
    rb_phase_agg_t aggs[6];
    for (int i = 0; i < 6; i++)
        aggs[i] = ph[i].agg;
    rb_project_result_t r;
    assert_int_equal(
        rb_project_result_eval(p->project, p->phases, p->iters, p->nphases, aggs, 6, NULL, 0, &r),
        0);
    /* once per phase, under its name: 2 capacity lines, then seqwrite's
     * throughput and IOPS (target_iops asks for it) with their targets (4 + 4),
     * and randread's throughput (no target_bw: it is random) and IOPS (2 + 4) */
    assert_int_equal(r.nlines, 2 + 8 + 6);
    assert_int_equal(s_count(&r, "seqwrite"), 8);
    assert_int_equal(s_count(&r, "randread"), 6);
    for (uint32_t i = 0; i < r.nlines; i++)
        assert_null(r.lines[i].phase ? strchr(r.lines[i].phase, '#') : NULL);
    tp_expect(&r, "seqwrite", "throughput per unit", 1.2 * GB, RB_PROJECT_MEASURED,
              "phase seqwrite, mean of 3 iterations, each the median node: from 1 GB/s to 1.40 "
              "GB/s, stdev 200 MB/s; one node is one unit");
    const rb_project_line_t *l = tp_line(&r, "seqwrite", "throughput per unit");
    assert_int_equal(l->iterations, 3);
    assert_float_equal(l->min, 1.0 * GB, 1);
    assert_float_equal(l->max, 1.4 * GB, 1);
    assert_float_equal(l->stdev, 0.2 * GB, 1);
    tp_expect(&r, "seqwrite", "throughput per rack", 12 * GB, RB_PROJECT_PROJECTED,
              "1.20 GB/s a unit (measured, seqwrite) x 10 units a rack");
    assert_int_equal(tp_line(&r, "seqwrite", "throughput per rack")->iterations, 0);
    tp_expect(&r, "seqwrite", "racks for target_bw", 1, RB_PROJECT_PROJECTED, NULL);
    tp_expect(&r, "randread", "IOPS per unit", 25e3, RB_PROJECT_MEASURED,
              "phase randread, mean of 3 iterations, each the median node: from 20k IOPS to 30k "
              "IOPS, stdev 5k IOPS");
    tp_expect(&r, "randread", "IOPS per rack", 250e3, RB_PROJECT_PROJECTED,
              "25k IOPS a unit (measured, randread) x 10 units a rack");
    tp_expect(&r, "randread", "units for target_iops", 40, RB_PROJECT_PROJECTED,
              "1M IOPS / 25k IOPS a unit (measured, randread) = 40.00, rounded up");
    tp_expect(&r, "randread", "racks for target_iops", 4, RB_PROJECT_PROJECTED, NULL);
    assert_null(tp_find(&r, "randread", "racks for target_bw"));
    assert_string_equal(r.notes[r.nnotes - 1], "phase randread is random: it is sized by its IOPS "
                                               "(target_iops), not by target_bw");
    rb_project_result_fini(&r);

    /* cut off in randread#2: its one iteration that ran, and says so */
    assert_int_equal(
        rb_project_result_eval(p->project, p->phases, p->iters, p->nphases, aggs, 4, NULL, 0, &r),
        0);
    tp_expect(&r, "randread", "IOPS per unit", 20e3, RB_PROJECT_MEASURED,
              "phase randread, mean of 1 iteration (the 1 of 3 that measured something)");
    rb_project_result_fini(&r);

    /* report.txt: one row a line, in the default units */
    char *text = s_report(p, aggs, 6, RB_UNITS_IEC, false);
    tp_expect_row(text, "randread", "IOPS per unit", "25k IOPS", "measured",
                  "phase randread, mean of 3 iterations");
    const char *t = text;
    int rows = 0;
    while ((t = strstr(t + 1, "throughput per unit")))
        rows++;
    assert_int_equal(rows, 2);
    free(text);

    /* summary.json: the spread beside the mean, on the measured lines only */
    text = s_report(p, aggs, 6, RB_UNITS_IEC, true);
    rb_err_t err;
    rb_err_clear(&err);
    rb_json_t *j = rb_json_parse(text, strlen(text), &err);
    if (!j)
        fail_msg("summary.json: %s", err.msg);
    const rb_json_t *lines = rb_json_path(j, "projection.lines");
    assert_int_equal(rb_json_len(lines), 16);
    const rb_json_t *sp = rb_json_get(rb_json_at(lines, 2), "spread");
    assert_string_equal(rb_json_str(rb_json_get(rb_json_at(lines, 2), "phase")), "seqwrite");
    assert_float_equal(rb_json_num(rb_json_get(sp, "iterations"), 0), 3, 0);
    assert_float_equal(rb_json_num(rb_json_get(sp, "min"), 0), 1.0 * GB, 1);
    assert_float_equal(rb_json_num(rb_json_get(sp, "max"), 0), 1.4 * GB, 1);
    assert_float_equal(rb_json_num(rb_json_get(sp, "stdev"), 0), 0.2 * GB, 1);
    assert_int_equal(rb_json_type(rb_json_get(rb_json_at(lines, 3), "spread")), RB_JSON_NULL);
    assert_float_equal(rb_json_num(rb_json_path(j, "projection.unit.target_iops"), 0), 1e6, 0);
    rb_json_free(&j);
    free(text);
    rb_plan_destroy(&p);
}

/* A 4k random read without target_iops still gets its IOPS a unit and a
 * rack, and no count of racks for target_bw; target_iops prints back. */
void test_random_iops(void **state)
{
    (void)state;
    static const char plan[] = "[randread]\ndirectory=/data\nsize=1M\nrw=randread\nbs=4k\n"
                               "[capacity]\nunits_per_rack=10\ntarget_bw=10G\n";
    rb_plan_t *p = tp_plan(plan);
    tp_phase_t ph;
    s_phase3(&ph, "randread", 100e6, 24e3);
    rb_project_result_t r;
    assert_int_equal(rb_project_result_eval(p->project, p->phases, p->iters, p->nphases, &ph.agg, 1,
                                            NULL, 0, &r),
                     0);
    tp_expect(&r, "randread", "IOPS per unit", 24e3, RB_PROJECT_MEASURED,
              "phase randread, median of 3 nodes; nodes from 21.6k IOPS to 26.4k IOPS");
    tp_expect(&r, "randread", "IOPS per rack", 240e3, RB_PROJECT_PROJECTED, NULL);
    assert_null(tp_find(&r, "randread", "units for target_bw"));
    assert_null(tp_find(&r, "randread", "units for target_iops"));
    assert_non_null(strstr(r.notes[r.nnotes - 1], "target_iops= in [capacity] gives the units"));
    rb_project_result_fini(&r);
    rb_plan_destroy(&p);

    /* target_iops reads in powers of 1000 and prints back the same */
    p = tp_plan("[w]\ndirectory=/data\nsize=1M\nrw=write\n[capacity]\ntarget_iops=1.5M\n");
    assert_int_equal(p->project->target_iops, 1500000);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    assert_int_equal(rb_project_print(p->project, p->phases, p->nphases, f), 0);
    fclose(f);
    assert_non_null(strstr(out, "\ntarget_iops=1500k\n"));
    free(out);
    rb_plan_destroy(&p);
}
