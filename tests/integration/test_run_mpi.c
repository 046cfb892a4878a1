/* End to end under MPI: `mpirun -np 4 rackbench-mpi PLAN` runs an agent on
 * every rank and the coordinator on rank 0, with keys and the endpoint
 * exchanged over MPI; the run folder must hold the four nodes' exact bytes
 * and a start skew, as `rackbench run` would. Exits 77 without mpirun. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "it_io500.h"
#include "it_util.h"
#include "rb_json.h"

#define MIB   (1024.0 * 1024.0)
#define RANKS 4

/* Write then read, O_DIRECT, its size from the command line: ${MPI_SIZE}
 * (--var) in [global], and a job's own size that --override replaces. */
static const char *s_plan_fmt = "[global]\n"
                                "directory=%s/data\n"
                                "bs=1M\n"
                                "size=${MPI_SIZE}\n"
                                "direct=1\n"
                                "filename_format=stream.$jobnum.$filenum\n"
                                "sample_interval=200ms\n"
                                "\n"
                                "[seqwrite]\n"
                                "rw=write\n"
                                "size=64M\n"
                                "\n"
                                "[seqread]\n"
                                "stonewall\n"
                                "rw=read\n";

/* mpirun with what it needs here: root, and more ranks than cores. Under
 * AddressSanitizer, Open MPI's own memory kept until exit is not reported
 * (full stacks, so that its frames are seen). */
#define S_MPIRUN                                                                                   \
    "env LSAN_OPTIONS=suppressions=" RB_IT_SRC "/tests/integration/lsan-openmpi.supp"              \
    ":fast_unwind_on_malloc=0 '" RB_IT_MPIRUN "' --allow-run-as-root --oversubscribe -np %d '%s'"

static void test_mpi_four_ranks(void **state)
{
    (void)state;
    const char *dir = it_scratch("mpi");
    char plan[4200], text[8192], runs[4200], out[4200], err[4200], folder[4200], path[4400];
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(text, sizeof text, s_plan_fmt, dir);
    it_write(plan, text);
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);

    /* the options of rackbench run that read the plan: 8 MiB a node, not 64 */
    int code = it_sh(out, err,
                     S_MPIRUN " '%s' --out '%s' --name-format 'node-%%r' --var MPI_SIZE=8M "
                              "--override size=8M --units si",
                     RANKS, it_bin("rackbench-mpi"), plan, runs);
    assert_int_equal(it_show_failure(code, err), 0);
    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);

    /* rank 0 prints the report and the folder, once */
    char *o = it_read(out);
    assert_non_null(o);
    const char *at = strstr(o, "run folder: ");
    assert_non_null(at);
    assert_null(strstr(at + 1, "run folder: "));
    assert_non_null(strstr(o, " MB/s")); /* --units si */
    assert_null(strstr(o, " MiB/s"));
    free(o);

    assert_string_equal(rb_json_str(rb_json_get(j, "status")), "ok");
    const rb_json_t *nodes = rb_json_get(j, "nodes");
    assert_int_equal(rb_json_len(nodes), RANKS);
    for (size_t i = 0; i < RANKS; i++) {
        const rb_json_t *n = rb_json_at(nodes, i);
        char want[32];
        snprintf(want, sizeof want, "node-%zu", i);
        assert_string_equal(rb_json_str(rb_json_get(n, "name")), want);
        assert_string_equal(rb_json_str(rb_json_get(n, "status")), "ok");
        assert_int_equal(rb_json_num(rb_json_get(n, "removed_files"), -1), 1);
    }
    const rb_json_t *phases = rb_json_get(j, "phases");
    assert_int_equal(rb_json_len(phases), 2);
    for (size_t p = 0; p < 2; p++) {
        const rb_json_t *ph = rb_json_at(phases, p);
        assert_int_equal(rb_json_num(rb_json_get(ph, "bytes"), 0), RANKS * 8 * MIB);
        assert_int_equal(rb_json_num(rb_json_get(ph, "errors"), -1), 0);
        double skew = rb_json_num(rb_json_get(ph, "start_skew_s"), -1);
        fprintf(stderr, "phase %s: start skew %.3f ms under mpirun -np %d\n",
                rb_json_str(rb_json_get(ph, "name")), skew * 1e3, RANKS);
        assert_true(skew >= 0 && skew < 0.5 * RB_TEST_TIME_SCALE);
        const rb_json_t *pn = rb_json_get(ph, "nodes");
        assert_int_equal(rb_json_len(pn), RANKS);
        for (size_t i = 0; i < RANKS; i++)
            assert_int_equal(rb_json_num(rb_json_get(rb_json_at(pn, i), "bytes"), 0), 8 * MIB);
    }
    rb_json_free(&j);

    /* nothing left under the agents' root */
    snprintf(path, sizeof path, "%s/data", dir);
    assert_int_equal(it_count_files(path), 0);
    it_rmtree(dir);
}

/* mdtest's phases under MPI: a tree made and removed in timed steps, the
 * 3901-byte files of mdtest-hard created with a stonewall and wear-out
 * (every rank the same count), then stat and read from the next rank's
 * files (mdtest -N 1), each file's stamp checked. */
static void test_mpi_mdtest(void **state)
{
    (void)state;
    const char *dir = it_scratch("mpi-mdtest");
    char plan[4200], text[8192], runs[4200], out[4200], err[4200], folder[4200], path[4400];
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(text, sizeof text,
             "[global]\ndirectory=%s/data\n\n"
             "[md]\nrw=meta\nmeta_ops=mktree,create,stat,read,delete,rmtree\n"
             "meta_files=200000\nmeta_filesize=3901\nmeta_depth=1\nmeta_branch=4\n"
             "meta_stonewall=1s\nread_from=neighbour\n",
             dir);
    it_write(plan, text);
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    int code =
        it_sh(out, err, S_MPIRUN " '%s' --out '%s'", RANKS, it_bin("rackbench-mpi"), plan, runs);
    assert_int_equal(it_show_failure(code, err), 0);
    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);
    const rb_json_t *phases = rb_json_get(j, "phases");
    assert_int_equal(rb_json_len(phases), 6);
    assert_int_equal(rb_json_num(rb_json_get(rb_json_at(phases, 0), "ops"), 0), RANKS * 5);
    assert_int_equal(rb_json_num(rb_json_get(rb_json_at(phases, 5), "ops"), 0), RANKS * 5);
    const rb_json_t *pw = rb_json_get(rb_json_at(phases, 1), "per_worker");
    assert_int_equal(rb_json_len(pw), RANKS);
    double each = rb_json_num(rb_json_get(rb_json_at(pw, 0), "ops"), 0);
    assert_true(each > 0 && each < 200000);
    for (size_t i = 0; i < RANKS; i++)
        assert_int_equal(rb_json_num(rb_json_get(rb_json_at(pw, i), "ops"), 0), each);
    for (size_t p = 1; p < 5; p++) {
        const rb_json_t *ph = rb_json_at(phases, p);
        assert_int_equal(rb_json_num(rb_json_get(ph, "ops"), 0), each * RANKS);
        assert_int_equal(rb_json_num(rb_json_get(ph, "errors"), -1), 0);
        assert_int_equal(rb_json_num(rb_json_get(ph, "verify_errors"), -1), 0);
    }
    assert_string_equal(rb_json_str(rb_json_get(rb_json_at(phases, 3), "read_from")), "shift:1");
    assert_int_equal(rb_json_num(rb_json_get(rb_json_at(phases, 3), "read_bytes"), 0),
                     each * RANKS * 3901);
    rb_json_free(&j);
    snprintf(path, sizeof path, "%s/data", dir);
    assert_int_equal(it_count_files(path), 0);
    it_rmtree(dir);
}

/* deploy/plans/io500.ini at lab scale under mpirun -np 4: the three scores
 * match geometric means worked out here from the phases' figures (find:
 * the files both find steps examined over their time together). */
static void test_mpi_io500(void **state)
{
    (void)state;
    const char *dir = it_scratch("mpi-io500");
    char runs[4200], out[4200], err[4200], folder[4200];
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    int code =
        it_sh(out, err,
              "env DIR='%s/data' STONEWALL=1s EASY_SIZE=16m HARD_SEGS=400 MD_FILES=200000 " S_MPIRUN
              " '%s/deploy/plans/io500.ini' --out '%s'",
              dir, RANKS, it_bin("rackbench-mpi"), RB_IT_SRC, runs);
    assert_int_equal(it_show_failure(code, err), 0);
    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);
    assert_int_equal(rb_json_len(rb_json_get(j, "phases")), 13);
    it_check_io500(j, "under MPI");
    rb_json_free(&j);
    it_rmtree(dir);
}

/* A bad option: every rank stops with 2, rank 0 says why, no run folder. */
static void test_mpi_bad_usage(void **state)
{
    (void)state;
    const char *dir = it_scratch("mpi-usage");
    char plan[4200], text[8192], runs[4200], out[4200], err[4200];
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(text, sizeof text, s_plan_fmt, dir);
    it_write(plan, text);
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    int code = it_sh(out, err, S_MPIRUN " '%s' --out '%s' --name-format 'n%%q'", 2,
                     it_bin("rackbench-mpi"), plan, runs);
    assert_int_equal(code, 2);
    char *e = it_read(err);
    assert_non_null(e);
    assert_non_null(strstr(e, "--name-format n%q"));
    free(e);
    assert_int_equal(access(runs, F_OK), -1);
    it_rmtree(dir);
}

int main(void)
{
    if (access(RB_IT_MPIRUN, X_OK) != 0) {
        fprintf(stderr, "no mpirun at %s: skipped\n", RB_IT_MPIRUN);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mpi_four_ranks),
        cmocka_unit_test(test_mpi_bad_usage),
        cmocka_unit_test(test_mpi_mdtest),
        cmocka_unit_test(test_mpi_io500),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
