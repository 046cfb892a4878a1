/* The async engines through the whole system: three local agents run a
 * random-read phase on libaio and one on io_uring (when the kernel has it),
 * then a mixed phase; summary.json must be consistent to the byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rb_test.h"

#include "it_util.h"
#include "rb_json.h"

#define MIB (1024.0 * 1024.0)

static double s_num(const rb_json_t *j, const char *path)
{
    const rb_json_t *v = rb_json_path(j, path);
    if (!v)
        fprintf(stderr, "summary.json has no %s\n", path);
    assert_non_null(v);
    return rb_json_num(v, -1);
}

static void test_engines_three_agents(void **state)
{
    (void)state;
    const char *dir = it_scratch("engines");
    char plan[4200], text[8192], runs[4200], out[4200], err[4200], folder[4200], path[4400];
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(text, sizeof text,
             "[global]\n"
             "directory=%s/data\n"
             "bs=8k\n"
             "size=16M\n"
             "direct=1\n"
             "iodepth=16\n"
             "filename_format=f.$jobnum.$filenum\n"
             "\n"
             "[aio]\n"
             "rw=randread\n"
             "ioengine=libaio\n"
             "\n"
             "[uring]\n"
             "stonewall\n"
             "rw=randread\n"
             "ioengine=io_uring\n"
             "numjobs=2\n"
             "filename_format=u.$jobnum.$filenum\n"
             "\n"
             "[mixed]\n"
             "stonewall\n"
             "rw=randrw\n"
             "rwmixread=70\n"
             "ioengine=libaio\n"
             "verify=crc32c\n",
             dir);
    it_write(plan, text);
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    int code = it_sh(out, err, "'%s' run --local 3 --quiet --out '%s' '%s'", it_bin("rackbench"),
                     runs, plan);
    char *e = it_read(err);
    if (code == 3 && e && strstr(e, "io_uring") && strstr(e, "not supported by this kernel")) {
        free(e);
        it_rmtree(dir);
        rb_skip("a kernel without io_uring: the agents refused, naming it");
    }
    free(e);
    assert_int_equal(it_show_failure(code, err), 0);
    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);
    const char *engines[] = {"libaio", "io_uring", "libaio"};
    const double workers[] = {3, 6, 3};
    for (int p = 0; p < 3; p++) {
        char k[64];
        snprintf(k, sizeof k, "phases.%d", p);
        const rb_json_t *ph = rb_json_path(j, k);
        assert_non_null(ph);
        assert_string_equal(rb_json_str(rb_json_get(ph, "ioengine")), engines[p]);
        assert_int_equal(rb_json_num(rb_json_get(ph, "iodepth"), 0), 16);
        double bytes = rb_json_num(rb_json_get(ph, "bytes"), 0);
        double ops = rb_json_num(rb_json_get(ph, "ops"), 0);
        /* every block once per pass, on every worker of every node; the
         * mix then reads back what it wrote, as fio's verify: its reads
         * are every block once, its writes come on top */
        double wrote = p == 2 ? rb_json_num(rb_json_path(ph, "directions.write.bytes"), -1) : 0;
        if (p == 2) {
            assert_true(wrote > 0);
            assert_float_equal(rb_json_num(rb_json_path(ph, "directions.read.bytes"), -1),
                               workers[p] * 16 * MIB, 0);
        }
        assert_float_equal(bytes, workers[p] * 16 * MIB + wrote, 0);
        assert_float_equal(ops * 8192, bytes, 0);
        assert_int_equal(rb_json_num(rb_json_get(ph, "errors"), -1), 0);
        assert_int_equal(rb_json_num(rb_json_get(ph, "verify_errors"), -1), 0);
        assert_int_equal(rb_json_len(rb_json_get(ph, "per_worker")), (size_t)workers[p]);
        double iops = rb_json_num(rb_json_get(ph, "iops"), 0);
        double win = rb_json_num(rb_json_get(ph, "window_s"), 0);
        assert_float_equal(iops, ops / win, iops * 1e-9);
        const rb_json_t *lat = rb_json_get(ph, "lat_us");
        double prev = 0;
        const char *pct[] = {"min", "p1",  "p5",    "p50",    "p90",
                             "p95", "p99", "p99.9", "p99.99", "max"};
        for (size_t i = 0; i < sizeof pct / sizeof *pct; i++) {
            double v = rb_json_num(rb_json_get(lat, pct[i]), -1);
            assert_true(v >= prev * (1 - 1e-9));
            prev = v;
        }
        assert_true(rb_json_num(rb_json_get(lat, "stdev"), -1) > 0);
        const rb_json_t *js = rb_json_at(rb_json_get(ph, "job_stats"), 0);
        assert_float_equal(rb_json_num(rb_json_get(js, "bytes"), 0), bytes, 0);
        assert_int_equal(rb_json_num(rb_json_path(js, "lat_us.count"), 0), ops);
    }
    /* the mixed phase: reads + writes = all; of the mix (its reads are
     * every block once: the mix's own and the written ones read back),
     * near 70% reads */
    double ops = s_num(j, "phases.2.ops");
    double rops = s_num(j, "phases.2.read_ops");
    double wops = s_num(j, "phases.2.write_ops");
    assert_float_equal(rops + wops, ops, 0);
    assert_true((rops - wops) / rops > 0.65 && (rops - wops) / rops < 0.75);
    assert_float_equal(s_num(j, "phases.2.read_bytes"), rops * 8192, 0);
    rb_json_free(&j);
    snprintf(path, sizeof path, "%s/data", dir);
    assert_int_equal(it_count_files(path), 0);
    it_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engines_three_agents),
    };
    return rb_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
