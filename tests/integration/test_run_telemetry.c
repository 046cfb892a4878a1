/* Host telemetry through the whole system: three local agents read the
 * device under their root every interval and send it in their SAMPLEs; the
 * run writes telemetry.csv, the per-device table, and a direct write and
 * read pass the honesty cross-check (the device moved what the engines
 * reported) on this machine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "rb_test.h"

#include "it_util.h"
#include "rb_json.h"

/* 1 when the folder's file system is on a block device /sys knows. */
static int s_has_block_device(const char *dir)
{
    struct stat st;
    char path[128];
    if (stat(dir, &st) < 0)
        return 0;
    snprintf(path, sizeof path, "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
    return access(path, F_OK) == 0;
}

static void test_device_telemetry(void **state)
{
    (void)state;
    const char *dir = it_scratch("telemetry");
    char plan[4200], text[4096], runs[4200], out[4200], err[4200], folder[4200], data[4200];
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    snprintf(data, sizeof data, "%s/data", dir);
    it_sh(NULL, NULL, "mkdir -p '%s'", data);
    if (!s_has_block_device(data)) {
        fprintf(stderr, "%s is not on a block device /sys/dev/block knows\n", data);
        it_rmtree(dir);
        rb_skip("the scratch folder is not on a block device");
    }
    snprintf(text, sizeof text,
             "[global]\ndirectory=%s\nbs=1m\nsize=32m\ndirect=1\nioengine=libaio\niodepth=4\n"
             "numjobs=2\nsample_interval=100ms\n"
             "[w]\nrw=write\n"
             "[r]\nstonewall\nrw=read\n",
             data);
    it_write(plan, text);
    int code = it_sh(out, err, "'%s' run --local 3 --quiet --out '%s' '%s'", it_bin("rackbench"),
                     runs, plan);
    assert_int_equal(it_show_failure(code, err), 0);
    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);
    for (int p = 0; p < 2; p++) {
        char path[64];
        snprintf(path, sizeof path, "phases.%d", p);
        const rb_json_t *ph = rb_json_path(j, path);
        const rb_json_t *devs = rb_json_get(ph, "devices");
        /* every node reported the device under its root, and it moved data */
        assert_true(rb_json_len(devs) >= 3);
        double most = 0;
        for (size_t i = 0; i < rb_json_len(devs); i++) {
            const rb_json_t *d = rb_json_at(devs, i);
            assert_non_null(rb_json_str(rb_json_get(d, "device")));
            double b = rb_json_num(rb_json_get(d, p ? "rd_bytes" : "wr_bytes"), 0);
            most = b > most ? b : most;
        }
        assert_true(most > 0);
        /* the cross-check passes: no honesty finding for direct IO here */
        const rb_json_t *fs = rb_json_get(ph, "findings");
        for (size_t i = 0; i < rb_json_len(fs); i++)
            assert_string_not_equal(rb_json_str(rb_json_get(rb_json_at(fs, i), "kind")), "honesty");
    }
    rb_json_free(&j);
    char path[4400];
    snprintf(path, sizeof path, "%s/telemetry.csv", folder);
    char *csv = it_read(path);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "t_s,t_utc_ns,phase,node,kind,name,parent,member,rd_bps,wr_bps"));
    assert_non_null(strstr(csv, ",w,local-1,host,"));
    assert_non_null(strstr(csv, ",w,local-3,dev,"));
    free(csv);
    char *o = it_read(out);
    assert_non_null(strstr(o, "await ms"));
    free(o);
    it_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_device_telemetry),
    };
    return rb_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
