/* The projection through the real binaries: `rackbench run --local 2` with
 * a [capacity] section writes projection.lines into summary.json (measured
 * per-unit figures, projected per-rack ones) and a projection table into
 * report.txt; `rackbench check` prints the section normalised; a bad key
 * exits 2 naming its line. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "it_util.h"
#include "rb_json.h"

/* Two small phases on the sync engine; %s is the scratch folder, then the capacity text. */
static const char s_plan_fmt[] = "[global]\n"
                                 "directory=%s/data\n"
                                 "bs=64k\n"
                                 "size=2M\n"
                                 "filename_format=proj.$jobnum.$filenum\n"
                                 "\n"
                                 "[stream-write]\n"
                                 "rw=write\n"
                                 "\n"
                                 "[stream-read]\n"
                                 "stonewall\n"
                                 "rw=read\n"
                                 "%s";

/* The JR5 unit. */
static const char s_jr5[] = "[capacity]\n"             /* 13 */
                            "disks=48\n"               /* 14 */
                            "disk_size=2T\n"           /* 15 */
                            "raid=raid6\n"             /* 16 */
                            "raid_group=16\n"          /* 17 */
                            "hot_spares_per_group=1\n" /* 18 */
                            "usable_per_unit=71T\n"    /* 19 */
                            "unit_height_u=5\n"        /* 20 */
                            "rack_height_u=41\n"       /* 21 */
                            "derate=0.5\n"             /* 22 */
                            "target_capacity=1P\n"     /* 23 */
                            "target_bw=1GB/s\n";       /* 24 */

typedef struct {
    char dir[4096];
    char plan[4200], runs[4200], out[4200], err[4200], folder[4200];
} s_ctx_t;

/* Writes the plan with the given capacity text; runs it on two local agents
 * (check: only checks it). */
static int s_run(s_ctx_t *c, const char *name, const char *capacity, int check)
{
    char text[8192];
    snprintf(c->dir, sizeof c->dir, "%s", it_scratch(name));
    snprintf(c->plan, sizeof c->plan, "%s/plan.ini", c->dir);
    snprintf(c->runs, sizeof c->runs, "%s/runs", c->dir);
    snprintf(c->out, sizeof c->out, "%s/stdout", c->dir);
    snprintf(c->err, sizeof c->err, "%s/stderr", c->dir);
    snprintf(text, sizeof text, s_plan_fmt, c->dir, capacity);
    it_write(c->plan, text);
    if (check)
        return it_sh(c->out, c->err, "'%s' check '%s'", it_bin("rackbench"), c->plan);
    return it_sh(c->out, c->err, "'%s' run --local 2 --quiet --out '%s' '%s'", it_bin("rackbench"),
                 c->runs, c->plan);
}

/* The line of that label and phase (NULL: a capacity line). */
static const rb_json_t *s_line(const rb_json_t *lines, const char *label, const char *phase)
{
    for (size_t i = 0; i < rb_json_len(lines); i++) {
        const rb_json_t *l = rb_json_at(lines, i);
        const char *ph = rb_json_str(rb_json_get(l, "phase"));
        if (strcmp(rb_json_str(rb_json_get(l, "label")), label) != 0)
            continue;
        if ((!phase && !ph) || (phase && ph && !strcmp(phase, ph)))
            return l;
    }
    fail_msg("no line '%s' for %s", label, phase ? phase : "-");
    return NULL;
}

/* Expects a row of report.txt that starts with start and has both words after it. */
static void s_expect_row(const char *rep, const char *start, const char *word1, const char *word2)
{
    const char *row = strstr(rep, start);
    if (!row)
        fail_msg("no row \"%s\" in\n%s", start, rep);
    const char *eol = strchr(row, '\n');
    const char *a = strstr(row, word1), *b = strstr(row, word2);
    if (!eol || !a || !b || a > eol || b > eol)
        fail_msg("row \"%.*s\" lacks \"%s\" or \"%s\"", (int)(eol ? eol - row : 80), row, word1,
                 word2);
}

static void test_run(void **state)
{
    (void)state;
    s_ctx_t c;
    int code = s_run(&c, "project-run", s_jr5, 0);
    assert_int_equal(it_show_failure(code, c.err), 0);
    rb_json_t *j = it_summary(c.runs, c.folder, sizeof c.folder);
    assert_non_null(j);
    assert_string_equal(rb_json_str(rb_json_get(j, "status")), "ok");
    const rb_json_t *pj = rb_json_get(j, "projection");
    assert_int_equal(rb_json_type(pj), RB_JSON_OBJ);
    assert_float_equal(rb_json_num(rb_json_path(pj, "unit.units_per_rack"), 0), 8, 0);
    assert_float_equal(rb_json_num(rb_json_path(pj, "unit.data_disks"), 0), 39, 0);
    const rb_json_t *lines = rb_json_get(pj, "lines");

    const rb_json_t *l = s_line(lines, "usable capacity per unit", NULL);
    assert_string_equal(rb_json_str(rb_json_get(l, "kind")), "given"); /* typed in */
    assert_float_equal(rb_json_num(rb_json_get(l, "value"), 0), 71e12, 0);
    l = s_line(lines, "usable capacity per rack", NULL);
    assert_string_equal(rb_json_str(rb_json_get(l, "kind")), "projected");
    assert_float_equal(rb_json_num(rb_json_get(l, "value"), 0), 568e12, 0);
    l = s_line(lines, "racks for target_capacity", NULL);
    assert_float_equal(rb_json_num(rb_json_get(l, "value"), 0), 2, 0);
    assert_string_equal(rb_json_str(rb_json_get(l, "unit")), "racks");

    static const char *const phases[] = {"stream-write", "stream-read"};
    for (size_t p = 0; p < 2; p++) {
        /* the median of the two nodes' bandwidths, as the phase reports them */
        char path[64];
        double bw[2];
        for (int n = 0; n < 2; n++) {
            snprintf(path, sizeof path, "phases.%zu.nodes.%d.bw", p, n);
            bw[n] = rb_json_num(rb_json_path(j, path), -1);
            assert_true(bw[n] > 0);
        }
        const rb_json_t *unit = s_line(lines, "throughput per unit", phases[p]);
        assert_string_equal(rb_json_str(rb_json_get(unit, "kind")), "measured");
        assert_string_equal(rb_json_str(rb_json_get(unit, "unit")), "B/s");
        double per_unit = rb_json_num(rb_json_get(unit, "value"), 0);
        assert_float_equal(per_unit, (bw[0] + bw[1]) / 2, per_unit * 1e-9);
        assert_non_null(strstr(rb_json_str(rb_json_get(unit, "source")), "median of 2 nodes"));
        const rb_json_t *rack = s_line(lines, "throughput per rack", phases[p]);
        assert_string_equal(rb_json_str(rb_json_get(rack, "kind")), "projected");
        assert_float_equal(rb_json_num(rb_json_get(rack, "value"), 0), 8 * per_unit,
                           per_unit * 1e-6);
        const rb_json_t *d = s_line(lines, "throughput per rack, derated", phases[p]);
        assert_float_equal(rb_json_num(rb_json_get(d, "value"), 0), 4 * per_unit, per_unit * 1e-6);
        const rb_json_t *u = s_line(lines, "units for target_bw", phases[p]);
        assert_float_equal(rb_json_num(rb_json_get(u, "value"), 0), ceil(1e9 / per_unit), 0);
    }
    rb_json_free(&j);

    char path[4400];
    snprintf(path, sizeof path, "%s/report.txt", c.folder);
    char *rep = it_read(path);
    assert_non_null(rep);
    assert_non_null(strstr(rep, "\nprojection (one node is one unit;"));
    /* capacities as sold (powers of 1000) whatever the units, rates in the
     * run's units (IEC by default) */
    s_expect_row(rep, "  -             usable capacity per rack ", "568 TB", "projected");
    s_expect_row(rep, "  stream-write  throughput per unit ", "iB/s", "measured");
    s_expect_row(rep, "  stream-read   throughput per rack ", "iB/s", "projected");
    free(rep);
    /* and on stdout */
    char *o = it_read(c.out);
    assert_non_null(strstr(o, "racks for target_capacity"));
    free(o);
    it_rmtree(c.dir);
}

/* rackbench check prints the section as rackbench read it. */
static void test_check(void **state)
{
    (void)state;
    s_ctx_t c;
    int code = s_run(&c, "project-check", s_jr5, 1);
    assert_int_equal(it_show_failure(code, c.err), 0);
    char *o = it_read(c.out);
    assert_non_null(strstr(o, "\n[capacity]\ndisks=48\ndisk_size=2TB\nraid=raid6\nraid_group=16\n"
                              "hot_spares_per_group=1\nusable_per_unit=71TB\nunit_height_u=5\n"
                              "rack_height_u=41\nderate=0.5\ntarget_capacity=1PB\n"
                              "target_bw=1GB/s\n"
                              "; raid6: 3 groups of 16 = 1 hot spare + 2 parity + 13 data disks; "
                              "39 data disks x 2 TB\n"
                              "; 8 units a rack (41U / 5U)\n"
                              "; throughput from the data phases: stream-write, stream-read\n"));
    free(o);
    it_rmtree(c.dir);
}

/* A bad [capacity]: exit 2 before anything starts, at run and at check. */
static void test_plan_errors(void **state)
{
    (void)state;
    static const struct {
        const char *capacity;
        const char *what;
    } bad[] = {
        {"[capacity]\ndisks=48\ndisk_size=2T\nraid=raid6\nraid_group=17\nhot_spares=1\n",
         ":18: unknown option 'hot_spares' in [capacity] (disks, disk_size, raid"},
        {"[capacity]\ndisks=32\ndisk_size=2T\nraid=raid6\nraid_group=40\n",
         ":17: 32 disks do not hold one group of raid_group=40"},
        {"[capacity]\nusable_per_unit=71Q\n", ":14: bad size '71Q' for usable_per_unit"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        for (int check = 0; check < 2; check++) {
            s_ctx_t c;
            int code = s_run(&c, "project-bad", bad[i].capacity, check);
            assert_int_equal(code, 2);
            char *e = it_read(c.err);
            char want[4400];
            snprintf(want, sizeof want, "%s%s", c.plan, bad[i].what);
            if (!strstr(e, want))
                fail_msg("expected \"%s\" in stderr, got \"%s\"", want, e);
            free(e);
            char folder[4200];
            assert_int_equal(it_run_folder(c.runs, folder, sizeof folder), -1);
            it_rmtree(c.dir);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_plan_errors),
    };
    return cmocka_run_group_tests_name("run_project", tests, NULL, NULL);
}
