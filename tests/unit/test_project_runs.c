/* The projection of whole runs, beside test_project.c's arithmetic: the
 * shipped JackRabbit-M plan's capacity in the units disks are sold in. */
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
    assert_int_equal(
        rb_project_result_eval(p->project, p->phases, p->nphases, aggs, nrun, NULL, 0, &r), 0);
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
