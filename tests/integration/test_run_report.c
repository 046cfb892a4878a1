/* `rackbench report` on real run folders: a finished run renders exactly as
 * the run wrote it (summary.json and report.txt byte for byte, with its exit
 * code), a run whose coordinator was killed mid-phase renders what it got and
 * says partial, and a folder that cannot be read is refused, named. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "it_util.h"
#include "rb_json.h"

typedef struct paths {
    char dir[4096], plan[4200], runs[4200], out[4200], err[4200], folder[4200], rep[4200];
} paths_t;

static void s_paths(paths_t *p, const char *name)
{
    snprintf(p->dir, sizeof p->dir, "%s", it_scratch(name));
    snprintf(p->plan, sizeof p->plan, "%s/plan.ini", p->dir);
    snprintf(p->runs, sizeof p->runs, "%s/runs", p->dir);
    snprintf(p->out, sizeof p->out, "%s/stdout", p->dir);
    snprintf(p->err, sizeof p->err, "%s/stderr", p->dir);
    snprintf(p->rep, sizeof p->rep, "%s/report.out", p->dir);
}

/* 1 when the two files hold the same bytes. */
static int s_same(const char *a, const char *b)
{
    char *x = it_read(a), *y = it_read(b);
    int same = x && y && !strcmp(x, y);
    if (!same)
        fprintf(stderr, "%s and %s differ\n", a, b);
    free(x);
    free(y);
    return same;
}

static void test_report_finished_run(void **state)
{
    (void)state;
    paths_t p;
    char text[4096], path[4400];
    s_paths(&p, "report-done");
    snprintf(text, sizeof text,
             "[global]\ndirectory=%s/data\nbs=64k\nsize=4m\ndirect=1\nnumjobs=2\n"
             "sample_interval=100ms\n"
             "[w]\nrw=write\n"
             "[r]\nstonewall\nrw=read\nread_from=neighbour\n"
             "[acceptance]\nmax_errors=0\nmin_nodes=2\n"
             "[acceptance impossible]\nphases=r\nmin_aggregate_bw=1000T\n"
             "[rack east]\nnodes=local-1\n[rack west]\nnodes=local-2,local-3\n"
             "[capacity]\ndisks=12\ndisk_size=2T\nraid=raid6\nraid_group=12\n"
             "units_per_rack=8\ntarget_capacity=1P\n",
             p.dir);
    it_write(p.plan, text);
    int code = it_sh(p.out, p.err, "'%s' run --local 2 --quiet --out '%s' '%s'",
                     it_bin("rackbench"), p.runs, p.plan);
    assert_int_equal(code, 1); /* the impossible check fails */
    rb_json_t *j = it_summary(p.runs, p.folder, sizeof p.folder);
    assert_non_null(j);
    /* node -> rack -> cluster: the plan's racks, sums that add up */
    for (int ph = 0; ph < 2; ph++) {
        char path2[64];
        snprintf(path2, sizeof path2, "phases.%d", ph);
        const rb_json_t *pj = rb_json_path(j, path2);
        const rb_json_t *racks = rb_json_get(pj, "racks");
        assert_int_equal(rb_json_len(racks), 2);
        assert_string_equal(rb_json_str(rb_json_get(rb_json_at(racks, 0), "name")), "east");
        double east = rb_json_num(rb_json_get(rb_json_at(racks, 0), "bytes"), 0);
        double west = rb_json_num(rb_json_get(rb_json_at(racks, 1), "bytes"), 0);
        double all = rb_json_num(rb_json_get(pj, "bytes"), 0);
        assert_true(east > 0 && west > 0);
        assert_int_equal(east + west, all);
        assert_int_equal(rb_json_num(rb_json_path(pj, "cluster.bytes"), 0), all);
        assert_int_equal(rb_json_num(rb_json_path(pj, "cluster.nodes"), 0), 2);
    }
    assert_string_equal(rb_json_str(rb_json_path(j, "nodes.1.rack")), "west");
    assert_true(rb_json_len(rb_json_path(j, "projection.lines")) > 0);
    rb_json_free(&j);
    char *warn = it_read(p.err);
    assert_non_null(strstr(warn, "[rack west] lists node local-3, which is not in this run"));
    free(warn);
    /* the same bytes as the run wrote, and the same verdict */
    assert_int_equal(
        it_sh(p.rep, p.err, "'%s' report '%s' --format json", it_bin("rackbench"), p.folder), 1);
    snprintf(path, sizeof path, "%s/summary.json", p.folder);
    assert_true(s_same(p.rep, path));
    assert_int_equal(it_sh(p.rep, p.err, "'%s' report '%s'", it_bin("rackbench"), p.folder), 1);
    snprintf(path, sizeof path, "%s/report.txt", p.folder);
    assert_true(s_same(p.rep, path));
    assert_int_equal(
        it_sh(p.rep, p.err, "'%s' report '%s' --format html", it_bin("rackbench"), p.folder), 1);
    snprintf(path, sizeof path, "%s/report.html", p.folder);
    assert_true(s_same(p.rep, path));
    /* csv: a row per node, rack and the cluster of each phase */
    assert_int_equal(
        it_sh(p.rep, p.err, "'%s' report '%s' --format csv", it_bin("rackbench"), p.folder), 1);
    char *csv = it_read(p.rep);
    assert_non_null(strstr(csv, "phase,scope,name,rack,status,nodes,bytes"));
    assert_non_null(strstr(csv, "\nr,node,local-2,west,ok,1,"));
    assert_non_null(strstr(csv, "\nr,cluster,cluster,,,2,"));
    free(csv);
    it_rmtree(p.dir);
}

/* The coordinator is killed in the second phase: report renders the first
 * phase from summary.json, the second from its samples, and says partial. */
static void test_report_killed_run(void **state)
{
    (void)state;
    paths_t p;
    char text[4096];
    s_paths(&p, "report-killed");
    snprintf(text, sizeof text,
             "[global]\ndirectory=%s/data\nbs=64k\nsize=4m\ndirect=1\nnumjobs=2\n"
             "sample_interval=100ms\n"
             "[w]\nrw=write\n"
             "[long]\nstonewall\nrw=read\ntime_based\nruntime=60s\nrate=4m\n",
             p.dir);
    it_write(p.plan, text);
    int pid = it_sh_bg(p.out, p.err, "'%s' run --local 2 --quiet --out '%s' '%s'",
                       it_bin("rackbench"), p.runs, p.plan);
    /* wait for the second phase's samples */
    assert_int_equal(it_wait_for_samples(p.runs, ",long,", 10, it_deadline(30000)), 0);
    assert_int_equal(it_run_folder(p.runs, p.folder, sizeof p.folder), 0);
    /* the coordinator and its two local agents (not to wait for them), at once */
    assert_int_equal(it_kill_tree(pid, SIGKILL), 3);
    assert_int_equal(it_wait(pid), 128 + SIGKILL);

    assert_int_equal(it_sh(p.rep, p.err, "'%s' report '%s'", it_bin("rackbench"), p.folder), 3);
    char *o = it_read(p.rep), *e = it_read(p.err);
    assert_non_null(strstr(o, "DID NOT FINISH (partial)"));
    assert_non_null(strstr(o, "phase 1/2  w"));
    assert_non_null(strstr(o, "phase 2/2  long"));
    assert_non_null(strstr(o, "PARTIAL"));
    assert_non_null(strstr(o, "REBUILT FROM SAMPLES"));
    assert_non_null(strstr(e, "the run did not finish; 2 phases reported"));
    free(o);
    free(e);
    assert_int_equal(
        it_sh(p.rep, p.err, "'%s' report '%s' --format html", it_bin("rackbench"), p.folder), 3);
    o = it_read(p.rep);
    assert_non_null(strstr(o, "DID NOT FINISH"));
    assert_non_null(strstr(o, "the run was cut off in this phase"));
    free(o);
    assert_int_equal(
        it_sh(p.rep, p.err, "'%s' report '%s' --format json", it_bin("rackbench"), p.folder), 3);
    char *js = it_read(p.rep);
    rb_err_t err;
    rb_err_clear(&err);
    rb_json_t *j = rb_json_parse(js, strlen(js), &err);
    assert_non_null(j);
    assert_string_equal(rb_json_str(rb_json_get(j, "status")), "running");
    assert_true(rb_json_bool(rb_json_path(j, "phases.1.from_samples"), 0));
    assert_true(rb_json_bool(rb_json_path(j, "phases.1.partial"), 0));
    assert_false(rb_json_bool(rb_json_path(j, "phases.0.from_samples"), 1));
    /* what the samples add up to: at 4 MiB/s a worker, some of it */
    double bytes = rb_json_num(rb_json_path(j, "phases.1.bytes"), 0);
    assert_true(bytes > 0 && bytes < 60.0 * 4 * 4 * (1 << 20));
    assert_int_equal(rb_json_num(rb_json_path(j, "phases.1.cluster.nodes"), 0), 2);
    rb_json_free(&j);
    free(js);
    it_rmtree(p.dir);
}

/* The coordinator is killed in the first (and only) phase: the report has
 * the run's real start time and its nodes, not 1970-01-01T00:00:00Z and
 * "nodes 0 (0 ok)" (issue 19, item 7); and it states what is known (issue
 * 37): the nodes seen and which fell silent (local-1 is stopped 1.5 s
 * before the end), the time to the last sample, latency as the intervals'
 * percentiles bound it. */
static void test_report_killed_first_phase(void **state)
{
    (void)state;
    paths_t p;
    char text[4096];
    s_paths(&p, "report-killed1");
    snprintf(text, sizeof text,
             "[global]\ndirectory=%s/data\nbs=64k\nsize=4m\nsample_interval=100ms\n"
             "[w]\nrw=write\ntime_based\nruntime=60s\nrate=1m\n",
             p.dir);
    it_write(p.plan, text);
    int pid = it_sh_bg(p.out, p.err, "'%s' run --local 2 --quiet --out '%s' '%s'",
                       it_bin("rackbench"), p.runs, p.plan);
    assert_int_equal(it_wait_for_samples(p.runs, ",w,local-1,", 2, it_deadline(30000)), 0);
    assert_int_equal(it_wait_for_samples(p.runs, ",w,local-2,", 2, it_deadline(30000)), 0);
    assert_int_equal(it_run_folder(p.runs, p.folder, sizeof p.folder), 0);
    /* local-1 falls silent (stopped, not gone: its coordinator still counts
     * it), local-2 goes on for 15 more samples (1.5 s) */
    int a1 = it_child_matching(pid, "rackbench-agent", "local-1", NULL);
    assert_true(a1 > 0);
    assert_int_equal(kill(a1, SIGSTOP), 0);
    long n2 = it_sh_number(p.dir, "grep -c ',w,local-2,' '%s/samples.csv'", p.folder);
    assert_true(n2 >= 2);
    assert_int_equal(it_wait_for_samples(p.runs, ",w,local-2,", (int)n2 + 15, it_deadline(30000)),
                     0);
    /* the coordinator and its two local agents (not to wait for them), at once */
    assert_int_equal(it_kill_tree(pid, SIGKILL), 3);
    assert_int_equal(it_wait(pid), 128 + SIGKILL);
    assert_int_equal(it_sh(p.rep, p.err, "'%s' report '%s'", it_bin("rackbench"), p.folder), 3);
    char *o = it_read(p.rep);
    assert_non_null(o);
    assert_null(strstr(o, "1970-01-01"));
    assert_non_null(strstr(o, "nodes 2 seen, 1 sending at its end"));
    assert_non_null(strstr(o, "s to its last sample"));
    assert_non_null(strstr(o, "node local-1: silent: its last sample ended at"));
    assert_non_null(strstr(o, "DID NOT FINISH (partial)"));
    assert_non_null(strstr(o, "(from samples: between its"));
    assert_null(strstr(o, "none recorded"));
    assert_non_null(strstr(o, "local-2 cut off"));
    free(o);
    assert_int_equal(
        it_sh(p.rep, p.err, "'%s' report '%s' --format json", it_bin("rackbench"), p.folder), 3);
    char *js = it_read(p.rep);
    rb_err_t err;
    rb_err_clear(&err);
    rb_json_t *j = rb_json_parse(js, strlen(js), &err);
    assert_non_null(j);
    const char *started = rb_json_str(rb_json_get(j, "started"));
    assert_non_null(started);
    assert_true(strncmp(started, "1970", 4) != 0);
    /* the folder's name is the start time (local time): the same day, give or take one */
    assert_true(strncmp(started, strrchr(p.folder, '/') + 1, 4) == 0);
    assert_int_equal(rb_json_len(rb_json_get(j, "nodes")), 2);
    /* the time to the last sample: local-2's, 1.5 s after local-1's last */
    double seen = rb_json_num(rb_json_get(j, "seen_s"), 0);
    double last1 = rb_json_num(rb_json_path(j, "nodes.0.last_sample_s"), 0);
    double last2 = rb_json_num(rb_json_path(j, "nodes.1.last_sample_s"), 0);
    assert_true(last1 > 0 && last2 >= last1 + 1.4 && fabs(seen - last2) < 0.01);
    assert_true(rb_json_bool(rb_json_path(j, "nodes.0.silent"), 0));
    assert_false(rb_json_bool(rb_json_path(j, "nodes.1.silent"), 1));
    /* latency from samples: the intervals' percentiles, p50 <= p99 <= max */
    const rb_json_t *lat = rb_json_path(j, "phases.0.latency_from_samples");
    assert_true(rb_json_get_u64(lat, "intervals") >= 17);
    double p50lo = rb_json_num(rb_json_get(lat, "p50_us_min"), 0);
    double p50hi = rb_json_num(rb_json_get(lat, "p50_us_max"), 0);
    double p99hi = rb_json_num(rb_json_get(lat, "p99_us_max"), 0);
    double max = rb_json_num(rb_json_get(lat, "max_us"), 0);
    assert_true(p50lo > 0 && p50lo <= p50hi && p50hi <= p99hi && p99hi <= max * 1.01);
    assert_true(rb_json_get_u64(rb_json_get(lat, "write"), "intervals") >= 17);
    rb_json_free(&j);
    free(js);
    it_rmtree(p.dir);
}

/* The verdict compare prints on the line of figure label in text o. */
static int s_verdict_is(const char *o, const char *label, const char *verdict)
{
    const char *line = strstr(o, label);
    if (!line)
        return 0;
    const char *end = strchr(line, '\n');
    const char *v = strstr(line, verdict);
    return v && (!end || v < end);
}

/* Before and after, each run repeating its phase (iterations=3): twice the
 * rate is a significant change for the better; two runs of one plan are
 * within noise; one measurement a side gives no verdict; a run against
 * itself changes nothing; runs that measure different things are warned of.
 *
 * The rate caps hold per worker, but the aggregate bandwidth is bytes over
 * the window from the first start to the last end, and the start skew of
 * each iteration lengthens that window by its own amount: on a loaded machine
 * or under the sanitizers "twice the rate" reads anywhere near +100% (+110.5%
 * was seen). So the change is judged by its sign, its verdict and a range
 * no noise can reach from a doubling's neighbourhood (+50% .. +200%), not
 * by its digits. */
static void test_compare(void **state)
{
    (void)state;
    paths_t p;
    char text[4096], runs[4][4300], a[4][4200];
    s_paths(&p, "compare");
    /* A and A2: one plan twice; B: twice the rate; C: one iteration, bs differs */
    const char *rates[] = {"8m", "8m", "16m", "8m"};
    for (int i = 0; i < 4; i++) {
        snprintf(runs[i], sizeof runs[i], "%s/runs%d", p.dir, i);
        snprintf(text, sizeof text,
                 "[global]\ndirectory=%s/data\nbs=%s\nsize=1g\ndirect=1\n"
                 "sample_interval=200ms\n%s"
                 "[w]\nrw=write\ntime_based\nruntime=%s\nrate=%s\n",
                 p.dir, i == 3 ? "128k" : "64k", i == 3 ? "" : "iterations=3\n",
                 i == 3 ? "1s" : "2s", rates[i]);
        it_write(p.plan, text);
        assert_int_equal(it_sh(p.out, p.err, "'%s' run --local 2 %s --out '%s' '%s'",
                               it_bin("rackbench"), i ? "--quiet" : "", runs[i], p.plan),
                         0);
        if (i == 0) {
            /* not a terminal: a progress line per interval, kept in the log */
            char *e = it_read(p.err);
            const char *l = strstr(e, "rackbench:     ");
            assert_non_null(l);
            assert_non_null(strstr(l, "  w#1  "));
            assert_non_null(strstr(l, "nodes 2/2  slowest local-"));
            assert_non_null(strstr(l, "% ETA "));
            assert_null(strstr(e, "\r"));
            free(e);
        }
        assert_int_equal(it_run_folder(runs[i], a[i], sizeof a[i]), 0);
    }
    assert_int_equal(it_sh(p.rep, p.err, "'%s' compare '%s' '%s'", it_bin("rackbench"), a[0], a[2]),
                     0);
    char *o = it_read(p.rep);
    assert_non_null(strstr(o, "phase w  (3 measurements before, 3 after)"));
    assert_null(strstr(o, "WARNING"));
    const char *line = strstr(o, "aggregate bandwidth");
    assert_non_null(line);
    const char *verdict = strstr(line, "significant: better");
    assert_true(s_verdict_is(o, "aggregate bandwidth", "significant: better"));
    /* the change column: the signed percentage just before the verdict */
    const char *c = verdict;
    while (c > line && c[-1] == ' ')
        c--;
    assert_true(c > line && c[-1] == '%');
    while (c > line && c[-1] != ' ')
        c--;
    double pct = 0;
    assert_int_equal(sscanf(c, "%lf%%", &pct), 1);
    if (*c != '+' || pct < 50 || pct > 200)
        fprintf(stderr, "compare: twice the rate read as %.1f%%:\n%s\n", pct, o);
    assert_true(*c == '+');
    assert_true(pct >= 50 && pct <= 200);
    free(o);
    /* and in JSON: the same figure, a positive change in that range (by
     * --output-format as run and report take it; --format below, its alias) */
    assert_int_equal(it_sh(p.rep, p.err, "'%s' compare '%s' '%s' --output-format json",
                           it_bin("rackbench"), a[0], a[2]),
                     0);
    o = it_read(p.rep);
    rb_err_t jerr;
    rb_err_clear(&jerr);
    rb_json_t *jab = rb_json_parse(o, strlen(o), &jerr);
    assert_non_null(jab);
    assert_string_equal(rb_json_str(rb_json_path(jab, "phases.0.figures.0.name")), "aggregate_bw");
    double change = rb_json_num(rb_json_path(jab, "phases.0.figures.0.change"), -1);
    assert_true(change >= 0.5 && change <= 2.0);
    assert_float_equal(change * 100, pct, 0.051);
    assert_int_equal(rb_json_num(rb_json_path(jab, "phases.0.figures.0.n_before"), 0), 3);
    assert_int_equal(rb_json_num(rb_json_path(jab, "phases.0.figures.0.n_after"), 0), 3);
    assert_string_equal(rb_json_str(rb_json_path(jab, "phases.0.figures.0.verdict")),
                        "significant: better");
    assert_string_equal(rb_json_str(rb_json_path(jab, "phases.0.nodes.0.verdict")),
                        "significant: better");
    rb_json_free(&jab);
    free(o);
    /* one plan run twice: within noise, by its iterations */
    assert_int_equal(it_sh(p.rep, p.err, "'%s' compare '%s' '%s'", it_bin("rackbench"), a[0], a[1]),
                     0);
    o = it_read(p.rep);
    if (!s_verdict_is(o, "aggregate bandwidth", "within noise"))
        fprintf(stderr, "compare of one plan twice:\n%s\n", o);
    assert_true(s_verdict_is(o, "aggregate bandwidth", "within noise"));
    assert_true(s_verdict_is(o, "IOPS", "within noise"));
    free(o);
    /* a run against itself */
    assert_int_equal(it_sh(p.rep, p.err, "'%s' compare '%s' '%s' --output-format=xml",
                           it_bin("rackbench"), a[0], a[0]),
                     2);
    o = it_read(p.err);
    assert_non_null(strstr(o, "compare: --output-format xml: not a format compare prints"));
    free(o);
    assert_int_equal(it_sh(p.rep, p.err, "'%s' compare '%s' '%s' --format json",
                           it_bin("rackbench"), a[0], a[0]),
                     0);
    o = it_read(p.rep);
    rb_err_t err;
    rb_err_clear(&err);
    rb_json_t *j = rb_json_parse(o, strlen(o), &err);
    assert_non_null(j);
    assert_string_equal(rb_json_str(rb_json_path(j, "phases.0.figures.0.name")), "aggregate_bw");
    assert_int_equal(rb_json_num(rb_json_path(j, "phases.0.figures.0.change"), -1), 0);
    assert_string_equal(rb_json_str(rb_json_path(j, "phases.0.figures.0.verdict")), "within noise");
    rb_json_free(&j);
    free(o);
    /* one measurement a side: no verdict, and the bs that differs is warned of */
    assert_int_equal(it_sh(p.rep, p.err, "'%s' compare '%s' '%s' --vs '%s'", it_bin("rackbench"),
                           a[3], a[3], a[3]),
                     0);
    o = it_read(p.rep);
    assert_true(s_verdict_is(o, "aggregate bandwidth", "within noise") == 0);
    free(o);
    assert_int_equal(it_sh(p.rep, p.err, "'%s' compare '%s' '%s'", it_bin("rackbench"), a[3], a[3]),
                     0);
    o = it_read(p.rep);
    assert_true(s_verdict_is(o, "aggregate bandwidth", "noise unknown: one measurement a side"));
    free(o);
    assert_int_equal(it_sh(p.rep, p.err, "'%s' compare '%s' '%s' --vs '%s'", it_bin("rackbench"),
                           a[0], a[1], a[3]),
                     0);
    o = it_read(p.rep);
    assert_non_null(strstr(o, "phase w  (6 measurements before, 1 after)"));
    assert_non_null(strstr(o, "WARNING: the runs differ in what they measure: bs 64k vs 128k"));
    free(o);
    assert_int_equal(it_sh(p.rep, p.err, "'%s' compare '%s'", it_bin("rackbench"), a[0]), 2);
    it_rmtree(p.dir);
}

/* iterations=3 of a rate-limited, size-bound write: every iteration moves
 * the same bytes at the rate asked, summary.json sums them up as IOR's -i,
 * and acceptance judges the mean (one row) or every iteration (three). */
static void test_iterations(void **state)
{
    (void)state;
    paths_t p;
    char text[4096];
    s_paths(&p, "iterations");
    snprintf(text, sizeof text,
             "[global]\ndirectory=%s/data\nbs=64k\nsize=2m\nrate=4m\n"
             "[w]\nrw=write\niterations=3\n"
             "[acceptance]\niterations=mean\nmin_aggregate_bw=1m\n"
             "[acceptance each]\nphases=w\nmin_iops=1\n",
             p.dir);
    it_write(p.plan, text);
    assert_int_equal(it_sh(p.out, p.err, "'%s' run --local 2 --quiet --out '%s' '%s'",
                           it_bin("rackbench"), p.runs, p.plan),
                     0);
    assert_int_equal(it_run_folder(p.runs, p.folder, sizeof p.folder), 0);
    char path[4400];
    snprintf(path, sizeof path, "%s/summary.json", p.folder);
    char *js = it_read(path);
    rb_err_t err;
    rb_err_clear(&err);
    rb_json_t *j = rb_json_parse(js, strlen(js), &err);
    assert_non_null(j);
    assert_int_equal(rb_json_len(rb_json_get(j, "phases")), 3);
    for (int i = 0; i < 3; i++) {
        char key[64], want[16];
        snprintf(key, sizeof key, "phases.%d.name", i);
        snprintf(want, sizeof want, "w#%d", i + 1);
        assert_string_equal(rb_json_str(rb_json_path(j, key)), want);
        snprintf(key, sizeof key, "phases.%d.group", i);
        assert_string_equal(rb_json_str(rb_json_path(j, key)), "w");
        snprintf(key, sizeof key, "phases.%d.iteration", i);
        assert_int_equal(rb_json_num(rb_json_path(j, key), 0), i + 1);
        snprintf(key, sizeof key, "phases.%d.bytes", i);
        assert_int_equal(rb_json_num(rb_json_path(j, key), 0), 2 * 2 * 1048576); /* 2 nodes */
    }
    assert_int_equal(rb_json_len(rb_json_get(j, "iterations")), 1);
    assert_string_equal(rb_json_str(rb_json_path(j, "iterations.0.phase")), "w");
    assert_int_equal(rb_json_num(rb_json_path(j, "iterations.0.ran"), 0), 3);
    assert_int_equal(rb_json_num(rb_json_path(j, "iterations.0.aggregate_bw.n"), 0), 3);
    double mean = rb_json_num(rb_json_path(j, "iterations.0.aggregate_bw.mean"), 0);
    double sd = rb_json_num(rb_json_path(j, "iterations.0.aggregate_bw.stddev"), -1);
    double mn = rb_json_num(rb_json_path(j, "iterations.0.aggregate_bw.min"), 0);
    double mx = rb_json_num(rb_json_path(j, "iterations.0.aggregate_bw.max"), 0);
    /* 2 workers at 4 MiB/s each: 8 MiB/s, a little over for the IO at t=0,
     * and less on a busy machine (a worker late to its next IO is not
     * paid back): a rate's order, with its cap */
    if (mean < 4.0 * 1048576 || mean > 9.5 * 1048576)
        fprintf(stderr, "iterations: mean aggregate_bw %.0f\n", mean);
    assert_true(mean >= 4.0 * 1048576 && mean <= 9.5 * 1048576);
    assert_true(mn <= mean && mean <= mx);
    /* the sample deviation of 3 figures is at most sqrt(3/8) of their range,
     * whatever the machine did to them */
    if (sd < 0 || sd > 0.62 * (mx - mn) + 1)
        fail_msg("stddev %.0f of 3 figures from %.0f to %.0f", sd, mn, mx);
    /* the mean set judges w once, the other every iteration */
    assert_int_equal(rb_json_len(rb_json_path(j, "acceptance.checks")), 4);
    assert_string_equal(rb_json_str(rb_json_path(j, "acceptance.checks.0.phase")), "w");
    assert_string_equal(rb_json_str(rb_json_path(j, "acceptance.checks.1.phase")), "w#1");
    assert_string_equal(rb_json_str(rb_json_path(j, "acceptance.checks.3.phase")), "w#3");
    assert_true(rb_json_bool(rb_json_path(j, "acceptance.passed"), 0));
    rb_json_free(&j);
    free(js);
    snprintf(path, sizeof path, "%s/report.txt", p.folder);
    char *txt = it_read(path);
    assert_non_null(strstr(txt, "\niterations: each repeated phase over its iterations"));
    assert_non_null(strstr(txt, "the mean of its iterations"));
    free(txt);
    snprintf(path, sizeof path, "%s/report.html", p.folder);
    char *html = it_read(path);
    assert_non_null(strstr(html, "<section id=\"iterations\">"));
    free(html);
    it_rmtree(p.dir);
}

/* A folder that is not a run folder, and a summary.json that is damaged. */
static void test_report_bad_folder(void **state)
{
    (void)state;
    paths_t p;
    char path[4400];
    s_paths(&p, "report-bad");
    assert_int_equal(it_sh(p.rep, p.err, "'%s' report '%s'", it_bin("rackbench"), p.dir), 2);
    char *e = it_read(p.err);
    assert_non_null(strstr(e, "plan.ini"));
    free(e);
    snprintf(path, sizeof path, "%s/plan.ini", p.dir);
    it_write(path, "[w]\nrw=write\nsize=1m\n");
    snprintf(path, sizeof path, "%s/summary.json", p.dir);
    it_write(path, "{\"schema\": \"rackbench.summary/1\", \"phases\": [{\"name\": \"x\"}]}");
    assert_int_equal(it_sh(p.rep, p.err, "'%s' report '%s'", it_bin("rackbench"), p.dir), 2);
    e = it_read(p.err);
    assert_non_null(strstr(e, "summary.json: phase 1 ('x') does not fit plan.ini"));
    free(e);
    it_write(path, "{\"schema\": \"rackbench.summary/9\"}");
    assert_int_equal(it_sh(p.rep, p.err, "'%s' report '%s'", it_bin("rackbench"), p.dir), 2);
    e = it_read(p.err);
    assert_non_null(strstr(e, "schema rackbench.summary/9, this rackbench reads"));
    free(e);
    assert_int_equal(
        it_sh(p.rep, p.err, "'%s' report '%s' --format pdf", it_bin("rackbench"), p.dir), 2);
    it_rmtree(p.dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_finished_run),
        cmocka_unit_test(test_report_killed_run),
        cmocka_unit_test(test_report_killed_first_phase),
        cmocka_unit_test(test_report_bad_folder),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_iterations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
