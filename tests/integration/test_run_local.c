/* End to end: `rackbench run --local 3` starts three real agents, which write
 * then read 32 MiB each with O_DIRECT; the run folder must hold exactly those
 * bytes, consistent figures, samples from every agent, and no data file may
 * be left behind. */
#include <dirent.h>
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
#include "rb_time.h"

#define MIB (1024.0 * 1024.0)

static const char *s_plan_fmt = "; write then read, shared file names so the read finds the data\n"
                                "[global]\n"
                                "directory=%s/data\n"
                                "bs=1M\n"
                                "size=32M\n"
                                "direct=1\n"
                                "filename_format=stream.$jobnum.$filenum\n"
                                "sample_interval=200ms\n"
                                "\n"
                                "[seqwrite]\n"
                                "rw=write\n"
                                "\n"
                                "[seqread]\n"
                                "stonewall\n"
                                "rw=read\n";

static void test_local_three_agents(void **state)
{
    (void)state;
    const char *dir = it_scratch("local");
    char plan[4200], text[8192], runs[4200], out[4200], err[4200], folder[4200], path[4400];
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(text, sizeof text, s_plan_fmt, dir);
    it_write(plan, text);
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);

    int code =
        it_sh(out, err, "'%s' run --local 3 --out '%s' '%s'", it_bin("rackbench"), runs, plan);
    assert_int_equal(it_show_failure(code, err), 0);
    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);

    /* stdout carries the report and the folder's path */
    char *o = it_read(out);
    assert_non_null(o);
    assert_non_null(strstr(o, "aggregate (parent sees)"));
    assert_non_null(strstr(o, folder));
    free(o);

    assert_string_equal(rb_json_str(rb_json_get(j, "schema")), "rackbench.summary/1");
    assert_string_equal(rb_json_str(rb_json_get(j, "status")), "ok");
    const rb_json_t *nodes = rb_json_get(j, "nodes");
    assert_int_equal(rb_json_len(nodes), 3);
    double max_rtt = 0;
    for (size_t i = 0; i < 3; i++) {
        double rtt = rb_json_num(rb_json_get(rb_json_at(nodes, i), "clock_rtt_s"), -1);
        assert_true(rtt > 0 && rtt < 0.5 * RB_TEST_TIME_SCALE);
        max_rtt = rtt > max_rtt ? rtt : max_rtt;
        assert_string_equal(rb_json_str(rb_json_get(rb_json_at(nodes, i), "status")), "ok");
        assert_string_equal(rb_json_str(rb_json_get(rb_json_at(nodes, i), "rack")), "local");
        /* every file the agent made was removed: one per worker */
        assert_int_equal(rb_json_num(rb_json_get(rb_json_at(nodes, i), "removed_files"), -1), 1);
    }
    const rb_json_t *phases = rb_json_get(j, "phases");
    assert_int_equal(rb_json_len(phases), 2);
    const char *rws[] = {"write", "read"};
    for (size_t p = 0; p < 2; p++) {
        const rb_json_t *ph = rb_json_at(phases, p);
        assert_string_equal(rb_json_str(rb_json_get(ph, "rw")), rws[p]);
        assert_int_equal(rb_json_num(rb_json_get(ph, "bytes"), 0), 3 * 32 * MIB);
        assert_int_equal(rb_json_num(rb_json_get(ph, "ops"), 0), 3 * 32);
        assert_int_equal(rb_json_num(rb_json_get(ph, "errors"), -1), 0);
        assert_false(rb_json_bool(rb_json_get(ph, "partial"), 1));
        double agg = rb_json_num(rb_json_get(ph, "aggregate_bw"), 0);
        double sum = rb_json_num(rb_json_get(ph, "sum_of_rates_bw"), 0);
        double sw = rb_json_num(rb_json_get(ph, "stonewall_bw"), 0);
        double win = rb_json_num(rb_json_get(ph, "window_s"), 0);
        double skew = rb_json_num(rb_json_get(ph, "start_skew_s"), -1);
        assert_true(agg > 0);
        assert_true(agg <= sum * (1 + 1e-9));
        assert_true(sw > 0);
        /* the headline is bytes over the window, exactly */
        assert_float_equal(agg, 3 * 32 * MIB / win, agg * 1e-9);
        assert_true(skew >= 0 && skew < 0.5 * RB_TEST_TIME_SCALE);
        /* each phase's offsets come from its own clock round before GO: the
         * last phase's are the nodes' offsets at the end of the run */
        double cerr = rb_json_num(rb_json_get(ph, "clock_error_s"), -1);
        assert_true(cerr > 0 && cerr < 0.25 * RB_TEST_TIME_SCALE);
        if (p == 1)
            assert_float_equal(cerr, max_rtt / 2, 1e-9);
        const rb_json_t *lat = rb_json_get(ph, "lat_us");
        double p50 = rb_json_num(rb_json_get(lat, "p50"), 0);
        double p99 = rb_json_num(rb_json_get(lat, "p99"), 0);
        double mx = rb_json_num(rb_json_get(lat, "max"), 0);
        assert_true(p50 > 0 && p50 <= p99 && p99 <= mx);
        assert_int_equal(rb_json_num(rb_json_get(lat, "count"), 0), 3 * 32);
        const rb_json_t *pn = rb_json_get(ph, "nodes");
        assert_int_equal(rb_json_len(pn), 3);
        for (size_t i = 0; i < 3; i++)
            assert_int_equal(rb_json_num(rb_json_get(rb_json_at(pn, i), "bytes"), 0), 32 * MIB);
    }
    rb_json_free(&j);

    /* samples.csv: rows from every agent, for both phases, bytes adding up */
    snprintf(path, sizeof path, "%s/samples.csv", folder);
    char *csv = it_read(path);
    assert_non_null(csv);
    assert_true(strncmp(csv, "t_s,t_utc_ns,phase,node,", 24) == 0);
    double bytes[3][2] = {{0}};
    for (char *line = strchr(csv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        char phase[64], node[64];
        double t, iv, b;
        assert_int_equal(sscanf(line + 1, "%lf,%*[^,],%63[^,],%63[^,],%*[^,],%*[^,],%lf,%lf", &t,
                                phase, node, &iv, &b),
                         5);
        int n = node[6] - '1';
        assert_true(strncmp(node, "local-", 6) == 0 && n >= 0 && n < 3);
        bytes[n][strcmp(phase, "seqread") == 0] += b;
    }
    for (int n = 0; n < 3; n++)
        for (int p = 0; p < 2; p++)
            assert_float_equal(bytes[n][p], 32 * MIB, 0.5);
    free(csv);

    snprintf(path, sizeof path, "%s/report.txt", folder);
    char *rep = it_read(path);
    assert_non_null(rep);
    assert_non_null(strstr(rep, "stonewall"));
    assert_non_null(strstr(rep, "local-3"));
    assert_non_null(strstr(rep, " ms (clock offsets within "));
    free(rep);
    snprintf(path, sizeof path, "%s/plan.ini", folder);
    char *pl = it_read(path);
    assert_string_equal(pl, text);
    free(pl);

    /* nothing left under the agents' root */
    snprintf(path, sizeof path, "%s/data", dir);
    assert_int_equal(it_count_files(path), 0);
    it_rmtree(dir);
}

/* `rackbench check` prints the plan normalised; a bad option is named with its line. */
static void test_check(void **state)
{
    (void)state;
    const char *dir = it_scratch("check");
    char plan[4200], text[8192], out[4200], err[4200];
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    snprintf(text, sizeof text, s_plan_fmt, dir);
    it_write(plan, text);
    assert_int_equal(it_sh(out, err, "'%s' check '%s'", it_bin("rackbench"), plan), 0);
    char *o = it_read(out);
    assert_non_null(strstr(o, "[seqread]"));
    assert_non_null(strstr(o, "size=32M"));
    free(o);

    it_write(plan, "[global]\nbs=1M\n\n[w]\nrw=write\nsize=4M\niodepht=4\n");
    assert_int_equal(it_sh(out, err, "'%s' check '%s'", it_bin("rackbench"), plan), 2);
    char *e = it_read(err);
    char want[4300];
    snprintf(want, sizeof want, "%s:7:", plan);
    assert_non_null(strstr(e, want));
    assert_non_null(strstr(e, "iodepht"));
    free(e);
    /* run refuses the same plan before starting anything */
    assert_int_equal(it_sh(out, err, "'%s' run --local 1 '%s'", it_bin("rackbench"), plan), 2);

    /* issue 33: a file that includes itself three times is refused at the
     * nesting limit, and a variable with a newline may not add an option */
    char self[4200];
    snprintf(self, sizeof self, "%s/self.fio", dir);
    it_write(self, "include self.fio\ninclude self.fio\ninclude self.fio\n");
    it_write(plan, "[global]\ninclude self.fio\n[w]\nrw=write\nsize=4M\n");
    assert_int_equal(it_sh(out, err, "'%s' check '%s'", it_bin("rackbench"), plan), 2);
    e = it_read(err);
    assert_non_null(strstr(e, "self.fio:1: include 'self.fio': more than 16 nested includes"));
    free(e);
    it_write(plan, "[w]\nrw=write\nsize=4M\ndescription=${RB_NL}\n");
    assert_int_equal(it_sh(out, err, "env RB_NL=\"$(printf 'a\\nrw=read')\" '%s' check '%s'",
                           it_bin("rackbench"), plan),
                     2);
    e = it_read(err);
    assert_non_null(strstr(e, "variable 'RB_NL' (from the environment) holds a line break"));
    free(e);
    it_rmtree(dir);
}

/* --help on every subcommand: exit 0, its usage and an example on stdout;
 * a run with no way to get agents: one line naming the three ways, exit 2. */
static void test_cli_help(void **state)
{
    (void)state;
    const char *dir = it_scratch("cli-help");
    char plan[4200], out[4200], err[4200], want[64];
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    const char *cmds[] = {"run", "check", "report", "compare", "keygen"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        for (int h = 0; h < 2; h++) {
            assert_int_equal(it_sh(out, err, "'%s' %s %s", it_bin("rackbench"), cmds[i],
                                   h ? "x.ini -h" : "--help"),
                             0);
            char *o = it_read(out);
            snprintf(want, sizeof want, "usage: rackbench %s", cmds[i]);
            assert_non_null(strstr(o, want));
            assert_non_null(strstr(o, "example"));
            free(o);
        }
    }
    it_write(plan, "[w]\nrw=write\nsize=1m\n");
    assert_int_equal(it_sh(out, err, "'%s' run '%s'", it_bin("rackbench"), plan), 2);
    char *e = it_read(err);
    assert_non_null(strstr(e, "rackbench run: no agents: give --local N"));
    assert_non_null(strstr(e, "--expect N"));
    assert_non_null(strstr(e, "--nodes a,b,c"));
    assert_null(strstr(e, "CURVE"));
    assert_ptr_equal(strchr(e, '\n'), e + strlen(e) - 1); /* one line */
    free(e);
    it_rmtree(dir);
}

/* Every plan shipped in deploy/plans stays valid. */
static void test_shipped_plans(void **state)
{
    (void)state;
    const char *dir = it_scratch("plans");
    char out[4200], err[4200];
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    const char *plans[] = {"quickstart.ini",           "dd-stream.ini",    "iozone-throughput.ini",
                           "velocibunny-randread.ini", "bonnie-files.ini", "virtual-rack.ini",
                           "jbod-burnin.ini",          "raid-volumes.ini", "network.ini"};
    for (size_t i = 0; i < sizeof plans / sizeof *plans; i++) {
        int code = it_sh(out, err, "'%s' check '%s/deploy/plans/%s'", it_bin("rackbench"),
                         RB_IT_SRC, plans[i]);
        if (code != 0) {
            char *e = it_read(err);
            fprintf(stderr, "%s: %s\n", plans[i], e ? e : "");
            free(e);
        }
        assert_int_equal(code, 0);
    }
    it_rmtree(dir);
}

/* ---- --local's start (issue 19, item 6) ---- */

/* Entries of dir whose names start with prefix (0 if dir does not exist). */
static int s_entries(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int n = 0;
    while (d && (de = readdir(d)))
        n += strncmp(de->d_name, prefix, strlen(prefix)) == 0;
    if (d)
        closedir(d);
    return n;
}

/* A key folder in runs holding at least one file: the keys are written. */
static int s_keys_written(void *arg)
{
    char path[4400];
    const char *runs = arg;
    DIR *d = opendir(runs);
    struct dirent *de;
    int n = 0;
    while (d && (de = readdir(d)))
        if (strncmp(de->d_name, ".keys-", 6) == 0) {
            snprintf(path, sizeof path, "%s/%s", runs, de->d_name);
            n += it_count_files(path);
        }
    if (d)
        closedir(d);
    return n > 0;
}

/* --local 100000 passed the range check of counts and then started agents
 * for minutes: a count above the limit is refused at once, naming it. */
static void test_local_over_limit(void **state)
{
    (void)state;
    const char *dir = it_scratch("localmax");
    char plan[4200], text[8192], out[4200], err[4200], runs[4200];
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(text, sizeof text, s_plan_fmt, dir);
    it_write(plan, text);
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    int code =
        it_sh(out, err, "'%s' run --local 100000 --out '%s' '%s'", it_bin("rackbench"), runs, plan);
    assert_int_equal(code, 2);
    char *e = it_read(err);
    assert_non_null(e);
    assert_non_null(strstr(e, "--local 100000: at most 256 agents on one machine"));
    free(e);
    assert_int_equal(s_entries(runs, ""), 0); /* nothing made */
    char data[4300];
    snprintf(data, sizeof data, "%s/data", dir);
    assert_int_equal(it_count_files(data), 0);
    it_rmtree(dir);
}

/* SIGTERM while 64 local agents start and join: the coordinator stops
 * within a few seconds, with no key file and no agent process left. */
static void test_local_start_sigterm(void **state)
{
    (void)state;
    const char *dir = it_scratch("localterm");
    char plan[4200], text[8192], out[4200], err[4200], runs[4200], data[4300];
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(text, sizeof text, s_plan_fmt, dir);
    it_write(plan, text);
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    snprintf(data, sizeof data, "%s/data", dir);
    int pid =
        it_sh_bg(out, err, "'%s' run --local 64 --out '%s' '%s'", it_bin("rackbench"), runs, plan);
    assert_int_equal(it_wait_until(s_keys_written, runs, it_deadline(30000)), 0);
    /* to the coordinator itself (it_sh_bg execs it): a match by command
     * line could also hit a child between fork and exec */
    assert_int_equal(kill(pid, SIGTERM), 0);
    assert_int_equal(it_wait_exit(pid, it_deadline(8000)), 3);
    char *e = it_read(err);
    assert_non_null(e);
    assert_non_null(strstr(e, "interrupted"));
    assert_null(strstr(e, "still running; killing it"));
    free(e);
    assert_int_equal(s_entries(runs, ".keys-"), 0);
    assert_int_equal(s_entries(runs, ".new-keys-"), 0);
    assert_int_equal(it_count_matching("rackbench-agent", data, NULL), 0);
    it_rmtree(dir);
}

/* A coordinator SIGKILLed before its local agents read their keys leaves
 * its key folder; the next run with the same --out removes it (it is no
 * longer held by a live coordinator), and no agent outlives the killed one. */
static void test_local_sigkill_keys_removed(void **state)
{
    (void)state;
    const char *dir = it_scratch("localkill");
    char plan[4200], text[8192], out[4200], err[4200], runs[4200], data[4300], slow[4300];
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(text, sizeof text, s_plan_fmt, dir);
    it_write(plan, text);
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    snprintf(data, sizeof data, "%s/data", dir);
    /* agents that never join: their keys stay unread on disk; each one
     * leaves started/PID (its pid, which exec keeps) */
    char started[4300], script[9000];
    snprintf(slow, sizeof slow, "%s/never-joins", dir);
    snprintf(started, sizeof started, "%s/started", dir);
    snprintf(script, sizeof script, "#!/bin/sh\ntouch '%s'/$$\nexec sleep 600\n", started);
    it_sh(NULL, NULL, "mkdir -p '%s'", started);
    it_write(slow, script);
    it_sh(NULL, NULL, "chmod +x '%s'", slow);
    int pid = it_sh_bg(out, err, "'%s' run --local 8 --agent-bin '%s' --out '%s' '%s'",
                       it_bin("rackbench"), slow, runs, plan);
    /* every agent started (no child of the coordinator is between fork
     * and exec, with the coordinator's command line, any more) */
    assert_int_equal(it_wait_for_files(started, 8, it_deadline(30000)), 8);
    assert_true(s_keys_written(runs));
    assert_int_equal(kill(pid, SIGKILL), 0);
    assert_int_equal(it_wait(pid), 128 + SIGKILL);
    assert_int_equal(s_entries(runs, ".keys-"), 1);
    int code =
        it_sh(out, err, "'%s' run --local 1 --out '%s' '%s'", it_bin("rackbench"), runs, plan);
    assert_int_equal(it_show_failure(code, err), 0);
    char *e = it_read(err);
    assert_non_null(e);
    assert_non_null(strstr(e, "the local agents' keys of a coordinator that was killed"));
    free(e);
    assert_int_equal(s_entries(runs, ".keys-"), 0);
    /* the killed coordinator's agents went with it (SIGTERM from the kernel) */
    DIR *d = opendir(started);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        int apid = atoi(de->d_name);
        if (apid <= 0)
            continue;
        uint64_t until = it_deadline(10000);
        while (kill(apid, 0) == 0 && rb_time_mono_ns() < until)
            usleep(10000);
        assert_int_not_equal(kill(apid, 0), 0);
    }
    if (d)
        closedir(d);
    it_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_local_three_agents),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_cli_help),
        cmocka_unit_test(test_shipped_plans),
        cmocka_unit_test(test_local_over_limit),
        cmocka_unit_test(test_local_start_sigterm),
        cmocka_unit_test(test_local_sigkill_keys_removed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
