/* report.txt for people, from real runs of `rackbench run --local 2`: a
 * sync job asking for iodepth > 1 is told it has no effect; two agents on
 * one host reporting one device are named once as sharing it; rack rows
 * appear only with more than one rack; --units si writes MB/s, and the
 * IEC default keeps every line within 120 columns. */
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

typedef struct s_ctx {
    char dir[4096], runs[4200], plan[4200], out[4200], err[4200], folder[4400];
} s_ctx_t;

/* Runs plan text (fmt with the data folder for %s) on 2 local agents with
 * the extra rackbench run options; the run folder into c->folder. */
static void s_run(s_ctx_t *c, const char *name, const char *extra, const char *fmt)
{
    snprintf(c->dir, sizeof c->dir, "%s", it_scratch(name));
    snprintf(c->runs, sizeof c->runs, "%s/runs", c->dir);
    snprintf(c->plan, sizeof c->plan, "%s/plan.ini", c->dir);
    snprintf(c->out, sizeof c->out, "%s/out", c->dir);
    snprintf(c->err, sizeof c->err, "%s/err", c->dir);
    char text[2048];
    snprintf(text, sizeof text, fmt, c->dir);
    it_write(c->plan, text);
    int code = it_sh(c->out, c->err, "'%s' run --local 2 --quiet %s --out '%s' '%s'",
                     it_bin("rackbench"), extra, c->runs, c->plan);
    assert_int_equal(it_show_failure(code, c->err), 0);
    rb_json_t *j = it_summary(c->runs, c->folder, sizeof c->folder);
    assert_non_null(j);
    rb_json_free(&j);
}

static char *s_report(const s_ctx_t *c)
{
    char path[4500];
    snprintf(path, sizeof path, "%s/report.txt", c->folder);
    char *rep = it_read(path);
    assert_non_null(rep);
    return rep;
}

/* No line of text is wider than 120 columns. */
static void s_expect_width(const char *text)
{
    for (const char *t = text; *t;) {
        size_t n = strcspn(t, "\n");
        if (n > 120)
            fail_msg("a line of %zu columns: %.*s", n, (int)n, t);
        t += n + (t[n] == '\n');
    }
}

static const char *s_small = "[global]\n"
                             "directory=%s/data\n"
                             "bs=64k\n"
                             "size=2M\n"
                             "direct=1\n";

/* ioengine=sync iodepth=16: the note, once per job; libaio's iodepth is left alone. */
static void test_iodepth_note(void **state)
{
    (void)state;
    s_ctx_t c;
    char fmt[1024];
    snprintf(fmt, sizeof fmt,
             "%s[deep-sync]\nrw=write\nioengine=sync\niodepth=16\n"
             "[deep-aio]\nstonewall\nrw=write\nioengine=libaio\niodepth=16\n",
             s_small);
    s_run(&c, "report-text-iodepth", "", fmt);
    char *rep = s_report(&c);
    const char *note = "sync keeps one IO in flight per worker: iodepth=16 has no effect\n";
    const char *at = strstr(rep, note);
    assert_non_null(at);
    assert_null(strstr(at + 1, note)); /* libaio's phase has none */
    assert_true(at < strstr(rep, "\nphase 2/2"));
    s_expect_width(rep);
    free(rep);
    it_rmtree(c.dir);
}

/* Two agents on this host: if telemetry saw the device holding their root,
 * the report names them once as sharing it. */
static void test_shared_device(void **state)
{
    (void)state;
    s_ctx_t c;
    char fmt[1024];
    snprintf(fmt, sizeof fmt, "%s[w]\nrw=write\n", s_small);
    s_run(&c, "report-text-shared", "", fmt);
    rb_json_t *j = it_summary(c.runs, c.folder, sizeof c.folder);
    assert_non_null(j);
    const rb_json_t *devs = rb_json_path(j, "phases.0.devices");
    size_t ndevs = rb_json_len(devs);
    char *rep = s_report(&c);
    if (ndevs == 0) {
        rb_json_free(&j);
        free(rep);
        it_rmtree(c.dir);
        rb_skip("no device telemetry for the scratch folder's file system");
    }
    const char *dev = rb_json_str(rb_json_get(rb_json_at(devs, 0), "device"));
    char want[256];
    snprintf(want, sizeof want, "\nnote: all 2 nodes (local-1, local-2) share device");
    const char *at = strstr(rep, want);
    if (!at)
        fail_msg("no note of the shared device %s in\n%s", dev, rep);
    assert_null(strstr(at + 1, want)); /* once */
    assert_non_null(strstr(at, dev));
    assert_non_null(strstr(at, "counters are the device"));
    assert_true(at < strstr(rep, "\nphase 1/1"));
    rb_json_free(&j);
    free(rep);
    it_rmtree(c.dir);
}

/* One rack: the cluster row only; two racks: a row each, then the cluster's;
 * and --units si on the same run. */
static void test_racks_and_units(void **state)
{
    (void)state;
    s_ctx_t c;
    char fmt[1024];
    snprintf(fmt, sizeof fmt, "%s[w]\nrw=write\n", s_small);
    s_run(&c, "report-text-one-rack", "", fmt);
    char *rep = s_report(&c);
    assert_non_null(strstr(rep, "\n  cluster, 2 nodes "));
    assert_null(strstr(rep, "\n  rack "));
    assert_null(strstr(rep, "MB/s"));
    assert_non_null(strstr(rep, "iB/s"));
    s_expect_width(rep);
    free(rep);
    /* the same folder in SI, and both */
    char path[4500];
    snprintf(path, sizeof path, "%s/si.txt", c.dir);
    assert_int_equal(
        it_sh(path, c.err, "'%s' report '%s' --units si", it_bin("rackbench"), c.folder), 0);
    rep = it_read(path);
    assert_non_null(strstr(rep, " MB/s"));
    assert_null(strstr(rep, "iB/s"));
    free(rep);
    assert_int_equal(
        it_sh(path, c.err, "'%s' report '%s' --units both", it_bin("rackbench"), c.folder), 0);
    rep = it_read(path);
    assert_non_null(strstr(rep, "iB/s ("));
    free(rep);
    it_rmtree(c.dir);

    snprintf(fmt, sizeof fmt,
             "%s[w]\nrw=write\n[rack r1]\nnodes=local-1\n[rack r2]\nnodes=local-2\n", s_small);
    s_run(&c, "report-text-two-racks", "--units si", fmt);
    rep = s_report(&c);
    const char *r1 = strstr(rep, "\n  rack r1, 1 node "), *r2 = strstr(rep, "\n  rack r2, 1 node ");
    const char *cl = strstr(rep, "\n  cluster, 2 nodes ");
    assert_non_null(r1);
    assert_non_null(r2);
    assert_true(r1 < r2 && r2 < cl);
    assert_non_null(strstr(rep, "\n  node    rack status ")); /* the rack column too */
    assert_non_null(strstr(rep, " MB/s"));                    /* the run's --units */
    assert_null(strstr(rep, "iB/s"));
    free(rep);
    it_rmtree(c.dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_iodepth_note),
        cmocka_unit_test(test_shared_device),
        cmocka_unit_test(test_racks_and_units),
    };
    return rb_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
