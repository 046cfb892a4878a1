/* Acceptance through the real binaries: `rackbench run --local 2` on a tiny
 * plan exits 0 with a PASS table when its limits hold, 1 with a FAIL row when
 * one cannot hold, and 2 (naming the line) when a check or phase is unknown. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "it_util.h"
#include "rb_json.h"

/* Two small phases on the sync engine; %s is the scratch folder, then the acceptance text. */
static const char s_plan_fmt[] = "[global]\n"
                                 "directory=%s/data\n"
                                 "bs=64k\n"
                                 "size=2M\n"
                                 "filename_format=acc.$jobnum.$filenum\n"
                                 "\n"
                                 "[stream-write]\n"
                                 "rw=write\n"
                                 "\n"
                                 "[stream-read]\n"
                                 "stonewall\n"
                                 "rw=read\n"
                                 "%s";

typedef struct {
    char dir[4096];
    char plan[4200], runs[4200], out[4200], err[4200], folder[4200];
} s_ctx_t;

/* Writes the plan with the given acceptance text and runs it on two local agents. */
static int s_run(s_ctx_t *c, const char *name, const char *accept)
{
    char text[8192];
    snprintf(c->dir, sizeof c->dir, "%s", it_scratch(name));
    snprintf(c->plan, sizeof c->plan, "%s/plan.ini", c->dir);
    snprintf(c->runs, sizeof c->runs, "%s/runs", c->dir);
    snprintf(c->out, sizeof c->out, "%s/stdout", c->dir);
    snprintf(c->err, sizeof c->err, "%s/stderr", c->dir);
    snprintf(text, sizeof text, s_plan_fmt, c->dir, accept);
    it_write(c->plan, text);
    return it_sh(c->out, c->err, "'%s' run --local 2 --quiet --out '%s' '%s'", it_bin("rackbench"),
                 c->runs, c->plan);
}

static char *s_report(const s_ctx_t *c)
{
    char path[4400];
    snprintf(path, sizeof path, "%s/report.txt", c->folder);
    char *rep = it_read(path);
    assert_non_null(rep);
    return rep;
}

/* Limits every run of this plan meets: exit 0, PASS everywhere. */
static void test_pass(void **state)
{
    (void)state;
    s_ctx_t c;
    int code = s_run(&c, "accept-pass",
                     "[acceptance]\n"
                     "min_aggregate_bw=1k\n"
                     "min_node_bw=1k\n"
                     "max_node_spread=10000%\n"
                     "max_p99_lat=60s\n"
                     "min_iops=1\n"
                     "min_nodes=2\n"
                     "max_errors=0\n"
                     "\n"
                     "[acceptance reads]\n"
                     "phases=stream-read\n"
                     "max_mean_lat=60s\n");
    assert_int_equal(it_show_failure(code, c.err), 0);
    rb_json_t *j = it_summary(c.runs, c.folder, sizeof c.folder);
    assert_non_null(j);
    assert_string_equal(rb_json_str(rb_json_get(j, "status")), "ok");
    const rb_json_t *acc = rb_json_get(j, "acceptance");
    assert_non_null(acc);
    assert_true(rb_json_bool(rb_json_get(acc, "passed"), 0));
    const rb_json_t *checks = rb_json_get(acc, "checks");
    assert_int_equal(rb_json_len(checks), 2 * 7 + 1);
    for (size_t i = 0; i < rb_json_len(checks); i++) {
        const rb_json_t *ch = rb_json_at(checks, i);
        assert_true(rb_json_bool(rb_json_get(ch, "passed"), 0));
        assert_true(rb_json_num(rb_json_get(ch, "measured"), -1) >= 0);
        assert_non_null(rb_json_str(rb_json_get(ch, "unit")));
    }
    const rb_json_t *last = rb_json_at(checks, 14);
    assert_string_equal(rb_json_str(rb_json_get(last, "set")), "reads");
    assert_string_equal(rb_json_str(rb_json_get(last, "name")), "max_mean_lat");
    assert_string_equal(rb_json_str(rb_json_get(last, "phase")), "stream-read");
    rb_json_free(&j);

    char *rep = s_report(&c);
    assert_non_null(strstr(rep, "\nacceptance\n"));
    assert_non_null(strstr(rep, "stream-write  min_nodes"));
    assert_null(strstr(rep, "FAIL"));
    assert_non_null(strstr(rep, "\nacceptance: PASS (15 checks)\n"));
    free(rep);
    /* the verdict is on stdout too */
    char *o = it_read(c.out);
    assert_non_null(strstr(o, "acceptance: PASS (15 checks)"));
    free(o);
    it_rmtree(c.dir);
}

/* A limit no local run reaches, and more nodes than there are: exit 1. */
static void test_fail(void **state)
{
    (void)state;
    s_ctx_t c;
    int code = s_run(&c, "accept-fail",
                     "[acceptance]\n"
                     "phases=stream-write\n"
                     "min_aggregate_bw=1000T\n"
                     "min_nodes=3\n"
                     "max_errors=0\n");
    if (code != 1)
        it_show_failure(code, c.err);
    assert_int_equal(code, 1);
    rb_json_t *j = it_summary(c.runs, c.folder, sizeof c.folder);
    assert_non_null(j);
    /* the run itself went well; only the verdict is no */
    assert_string_equal(rb_json_str(rb_json_get(j, "status")), "ok");
    const rb_json_t *acc = rb_json_get(j, "acceptance");
    assert_false(rb_json_bool(rb_json_get(acc, "passed"), 1));
    const rb_json_t *checks = rb_json_get(acc, "checks");
    assert_int_equal(rb_json_len(checks), 3);
    const rb_json_t *bw = rb_json_at(checks, 0);
    assert_string_equal(rb_json_str(rb_json_get(bw, "name")), "min_aggregate_bw");
    assert_false(rb_json_bool(rb_json_get(bw, "passed"), 1));
    assert_float_equal(rb_json_num(rb_json_get(bw, "limit"), 0), 1000.0 * (1ull << 40), 1);
    const rb_json_t *nodes = rb_json_at(checks, 1);
    assert_float_equal(rb_json_num(rb_json_get(nodes, "measured"), 0), 2, 0);
    assert_false(rb_json_bool(rb_json_get(nodes, "passed"), 1));
    assert_true(rb_json_bool(rb_json_get(rb_json_at(checks, 2), "passed"), 0));
    rb_json_free(&j);

    char *rep = s_report(&c);
    assert_non_null(strstr(rep, ">= 1000 TiB/s  ")); /* in one unit: IEC, the default */
    assert_null(strstr(rep, "PB/s"));
    const char *row = strstr(rep, "stream-write  min_aggregate_bw");
    assert_non_null(row);
    const char *eol = strchr(row, '\n');
    const char *fail = strstr(row, "FAIL");
    assert_true(fail && eol && fail < eol);
    assert_non_null(strstr(rep, "\nacceptance: FAIL (2 of 3 checks failed)\n"));
    free(rep);
    it_rmtree(c.dir);
}

/* test_stall_finding: one of three nodes at a steady rate= is stopped
 * (SIGSTOP) for a known time mid-phase, well under --lost-after. The phase
 * gets a stall finding on that node whose start and length match the gap
 * in its samples and the stop; max_stall fails under the stop and passes
 * over it, and min_interval_bw sees the dip of the cluster. */
static void test_stall_finding(void **state)
{
    (void)state;
    s_ctx_t c;
    char text[8192], data[4200];
    double stop_s = 2.0 * RB_TEST_TIME_SCALE;
    int runtime = 6 + 2 * (int)stop_s;
    snprintf(c.dir, sizeof c.dir, "%s", it_scratch("accept-stall"));
    snprintf(c.plan, sizeof c.plan, "%s/plan.ini", c.dir);
    snprintf(c.runs, sizeof c.runs, "%s/runs", c.dir);
    snprintf(c.out, sizeof c.out, "%s/stdout", c.dir);
    snprintf(c.err, sizeof c.err, "%s/stderr", c.dir);
    snprintf(data, sizeof data, "%s/data", c.dir);
    snprintf(text, sizeof text,
             "[global]\ndirectory=%s\nbs=64k\nsize=256M\nsample_interval=250ms\n\n"
             "[w]\nrw=write\nrate=4M\ntime_based\nruntime=%ds\n\n"
             "[acceptance]\nmax_stall=%.0fs\nmin_sustained_bw=1M/2s\n\n"
             "[acceptance strict]\nmax_stall=%.0fms\nmin_interval_bw=10M\n",
             data, runtime, 3 * stop_s, stop_s * 1000 / 2);
    it_write(c.plan, text);
    int pid = it_sh_bg(c.out, c.err,
                       "'%s' run --local 3 --heartbeat 200ms --lost-after %ds --out '%s' '%s'",
                       it_bin("rackbench"), 10 * (int)stop_s, c.runs, c.plan);
    /* local-2 has run for 1.5 s (6 samples at a steady 4 MiB/s): stop it */
    assert_int_equal(it_wait_for_samples(c.runs, ",w,local-2,", 6, it_deadline(30000)), 0);
    int agent = it_child_matching(pid, "rackbench-agent", "--name local-2 ", NULL);
    assert_true(agent > 0);
    assert_int_equal(kill(agent, SIGSTOP), 0);
    usleep((useconds_t)(stop_s * 1e6)); /* the stall being injected */
    assert_int_equal(kill(agent, SIGCONT), 0);
    int code = it_wait_exit(pid, it_deadline(60000 + runtime * 1000));
    if (code != 1)
        it_show_failure(code, c.err);
    assert_int_equal(code, 1); /* the strict set fails */
    rb_json_t *j = it_summary(c.runs, c.folder, sizeof c.folder);
    assert_non_null(j);
    assert_string_equal(rb_json_str(rb_json_get(j, "status")), "ok");
    /* the gap in local-2's samples: its one long sample after the stop */
    long gap_ms = it_sh_number(c.dir,
                               "awk -F, '$4==\"local-2\" && $7>0.4 {print int($7*1000); exit}' "
                               "'%s/samples.csv'",
                               c.folder);
    long gap_end_ms = it_sh_number(c.dir,
                                   "awk -F, '$4==\"local-2\" && $7>0.4 {print int($1*1000); "
                                   "exit}' '%s/samples.csv'",
                                   c.folder);
    assert_true(gap_ms > 0 && gap_end_ms > gap_ms);
    double gap_start = (double)(gap_end_ms - gap_ms) / 1e3;
    const rb_json_t *ph = rb_json_at(rb_json_get(j, "phases"), 0);
    const rb_json_t *fs = rb_json_get(ph, "findings");
    int stalls = 0;
    for (size_t i = 0; i < rb_json_len(fs); i++) {
        const rb_json_t *f = rb_json_at(fs, i);
        if (strcmp(rb_json_str(rb_json_get(f, "kind")), "stall") != 0)
            continue;
        if (strcmp(rb_json_str(rb_json_get(f, "node")), "local-2") != 0) {
            /* a busy machine may starve another node for a moment: said, not judged */
            printf("also: %s\n", rb_json_str(rb_json_get(f, "evidence")));
            continue;
        }
        stalls++;
        double at = rb_json_num(rb_json_get(f, "first_seen_s"), -1);
        double len = rb_json_num(rb_json_get(f, "length_s"), -1);
        printf("stall: injected %.2f s; found at %.2f s for %.2f s; samples' gap from %.2f s "
               "for %.2f s\n",
               stop_s, at, len, gap_start, (double)gap_ms / 1e3);
        /* within two sample intervals of the gap, and of the stop */
        assert_true(fabs(at - gap_start) <= 0.5);
        assert_true(fabs(len - (double)gap_ms / 1e3) <= 0.5);
        assert_true(len >= stop_s - 0.5 && len <= stop_s + 0.5 + 0.25 * RB_TEST_TIME_SCALE);
    }
    assert_int_equal(stalls, 1);
    const rb_json_t *checks = rb_json_path(j, "acceptance.checks");
    assert_int_equal(rb_json_len(checks), 4);
    for (size_t i = 0; i < rb_json_len(checks); i++) {
        const rb_json_t *ch = rb_json_at(checks, i);
        const char *name = rb_json_str(rb_json_get(ch, "name"));
        const char *set = rb_json_str(rb_json_get(ch, "set"));
        int strict = set && strcmp(set, "strict") == 0;
        double m = rb_json_num(rb_json_get(ch, "measured"), -1);
        if (strcmp(name, "max_stall") == 0)
            assert_true(m >= stop_s - 0.5 && m <= stop_s + 1.0);
        if (strcmp(name, "min_interval_bw") == 0) /* two nodes' 8 MiB/s, give or take */
            assert_true(m > 0 && m < 10.0 * 1024 * 1024);
        assert_int_equal(rb_json_bool(rb_json_get(ch, "passed"), !strict), !strict);
    }
    rb_json_free(&j);
    char *rep = s_report(&c);
    assert_non_null(strstr(rep, "stall local-2"));
    assert_non_null(strstr(rep, "acceptance: FAIL (2 of 4 checks failed)"));
    free(rep);
    it_rmtree(c.dir);
}

/* A check or phase the plan does not have: exit 2 before anything starts. */
static void test_plan_errors(void **state)
{
    (void)state;
    static const struct {
        const char *accept;
        const char *what;
    } bad[] = {
        {"[acceptance]\nmin_bandwidth=1G\n", ":14: unknown option 'min_bandwidth' in [acceptance]"},
        {"[acceptance]\nmax_stall=2\n", ":14: bad duration '2' for max_stall"},
        {"[acceptance]\nmin_sustained_bw=1G/10\n", ":14: bad window '10' for min_sustained_bw"},
        {"[acceptance]\nmin_iops=1\nphases=stream-rewrite\n",
         ":15: phases: 'stream-rewrite' in [acceptance] is neither a phase nor a job of the plan "
         "(phases: stream-write, stream-read)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        s_ctx_t c;
        int code = s_run(&c, "accept-bad", bad[i].accept);
        assert_int_equal(code, 2);
        char *e = it_read(c.err);
        char want[4400];
        snprintf(want, sizeof want, "%s%s", c.plan, bad[i].what);
        if (!strstr(e, want))
            fail_msg("expected \"%s\" in stderr, got \"%s\"", want, e);
        free(e);
        /* nothing was run: no run folder */
        char folder[4200];
        assert_int_equal(it_run_folder(c.runs, folder, sizeof folder), -1);
        assert_int_equal(it_sh(c.out, c.err, "'%s' check '%s'", it_bin("rackbench"), c.plan), 2);
        it_rmtree(c.dir);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pass),
        cmocka_unit_test(test_fail),
        cmocka_unit_test(test_plan_errors),
        cmocka_unit_test(test_stall_finding),
    };
    return cmocka_run_group_tests_name("run_accept", tests, NULL, NULL);
}
