/* The table of a run's renderings (rb_reporter): its rows and names, each
 * rendering of the fixture run folder (a run of the release before the
 * layered coordinator) byte for byte as that release rendered it, the
 * writing of a row's file into a run folder, and what the live page of
 * --metrics leaves out. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rb_findings.h"
#include "rb_plan.h"
#include "rb_html_int.h"
#include "rb_report_text_int.h"
#include "rb_reporter.h"
#include "rb_result.h"

static rb_loaded_run_t s_run; /* the fixture, loaded once for the group */

static int s_setup(void **state)
{
    (void)state;
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_result_run_load(RB_FIXTURE_RUN, &s_run, &err) < 0) {
        fprintf(stderr, "cannot load %s: %s\n", RB_FIXTURE_RUN, err.msg);
        return -1;
    }
    return 0;
}

static int s_teardown(void **state)
{
    (void)state;
    rb_result_run_unload(&s_run);
    rb_result_run_unload(&s_run); /* safe twice */
    return 0;
}

/* The whole of path (caller frees), its length into *len; NULL when absent. */
static char *s_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 65536;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    *len = n;
    return buf;
}

/* Fails unless got (glen bytes) is the fixture's expected/report.FORMAT. */
static void s_expect(const char *format, const char *got, size_t glen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/expected/report.%s", RB_FIXTURE_RUN, format);
    size_t wlen;
    char *want = s_slurp(path, &wlen);
    assert_non_null(want);
    size_t i = 0;
    while (i < wlen && i < glen && want[i] == got[i])
        i++;
    if (i < wlen || i < glen)
        fail_msg("--format %s: %zu bytes, want %zu; first difference at byte %zu", format, glen,
                 wlen, i);
    free(want);
}

static void test_table(void **state)
{
    (void)state;
    const char *names[] = {"text", "json", "csv", "html", "fio-json", "fio-json+"};
    const char *files[] = {"report.txt", "summary.json", NULL, "report.html", "fio.json", NULL};
    assert_int_equal(rb_reporter_count(), 6);
    for (size_t i = 0; i < 6; i++) {
        const rb_reporter_t *rep = rb_reporter_find(names[i]);
        assert_non_null(rep);
        assert_ptr_equal(rep, rb_reporter_at(i));
        assert_string_equal(rep->name, names[i]);
        if (files[i])
            assert_string_equal(rep->file, files[i]);
        else
            assert_null(rep->file);
        assert_non_null(rep->render);
        /* only summary.json is rewritten while readers may look */
        assert_int_equal(rep->durable, i == 1);
    }
    assert_null(rb_reporter_at(6));
    assert_null(rb_reporter_find("xml"));
    assert_null(rb_reporter_find("TEXT"));
    assert_null(rb_reporter_find(""));
    assert_null(rb_reporter_find(NULL));
}

static void test_names(void **state)
{
    (void)state;
    char buf[128];
    assert_ptr_equal(rb_reporter_names(buf, sizeof buf), buf);
    assert_string_equal(buf, "text, json, csv, html, fio-json or fio-json+");
    /* a buffer too small keeps a terminated prefix */
    char small[8];
    memset(small, 'x', sizeof small);
    rb_reporter_names(small, sizeof small);
    assert_string_equal(small, "text, j");
}

/* issue 37: a 2 x 2 x 2 sweep (bs down; numjobs and iodepth across) of a
 * synthesized result is drawn as one matrix per rw, each cell the phase's
 * bandwidth, IOPS and p99; a phase that did not run says so. */
static void test_issue37_sweep_matrix(void **state)
{
    (void)state;
    static const char plan[] = "[j]\nsize=1m\nioengine=libaio\nsweep_rw=read,write\n"
                               "sweep_bs=4k,1m\nsweep_iodepth=1,8\n[after]\nrw=read\nsize=1m\n";
    rb_plan_t *pl = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    assert_int_equal(rb_plan_parse(plan, strlen(plan), "t.ini", &pl, &err), 0);
    assert_int_equal(pl->nphases, 9);
    rb_phase_agg_t *aggs = calloc(pl->nphases, sizeof *aggs);
    assert_non_null(aggs);
    for (uint32_t p = 0; p < pl->nphases; p++) {
        rb_hist_init(&aggs[p].hist);
        for (int k = 0; k < 100; k++) /* p99 (and all): 1000 us x (phase + 1) */
            rb_hist_record(&aggs[p].hist, 1000000ull * (p + 1));
        aggs[p].aggregate_bw = 1048576.0 * (p + 1);
        aggs[p].iops = 100.0 * (p + 1);
    }
    rb_run_result_t r = {.specs = pl->phases,
                         .iters = pl->iters,
                         .nplanned = pl->nphases,
                         .nphases = 7,
                         .phases = aggs}; /* the last write phase did not run */
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    assert_int_equal(rb_report_text_sweeps(f, &r), 0);
    fclose(f);
    const char *want = "\nsweep j, rw=read: bandwidth, IOPS and p99 latency per phase\n"
                       "  bs                        qd1                    qd8\n"
                       "  4k      1.00 MiB/s 100 1000us  2.00 MiB/s 200 2000us\n"
                       "  1M      3.00 MiB/s 300 3000us  4.00 MiB/s 400 4000us\n"
                       "\nsweep j, rw=write: bandwidth, IOPS and p99 latency per phase\n"
                       "  bs                        qd1                    qd8\n"
                       "  4k      5.00 MiB/s 500 5000us  6.00 MiB/s 600 6000us\n"
                       "  1M      7.00 MiB/s 700 7000us                not run\n";
    if (strcmp(out, want))
        fail_msg("got\n%s\nwant\n%s", out, want);
    free(out);

    /* report.html: the same cells as heat maps, shaded against the largest */
    f = open_memstream(&out, &len);
    assert_non_null(f);
    assert_int_equal(rb_html_sweeps(&r, f), 0);
    fclose(f);
    const char *html[] = {
        "<h2>Sweep j, rw=read</h2>",
        "<td class=\"n\" style=\"background:hsl(130,60%,55%)\">400 IOPS<br>4.00 MiB/s</td>",
        "<td class=\"n\" style=\"background:hsl(130,60%,85%)\">100 IOPS<br>1.00 MiB/s</td>",
        "<td class=\"n\" style=\"background:hsl(0,60%,55%)\">4000 us</td>",
        "<h2>Sweep j, rw=write</h2>",
        "<td class=\"n\" style=\"background:hsl(0,60%,55%)\">7000 us</td>",
        "<td class=\"n none\">not run</td>"};
    for (size_t i = 0; i < sizeof html / sizeof html[0]; i++)
        if (!strstr(out, html[i]))
            fail_msg("no \"%s\" in\n%s", html[i], out);
    free(out);
    free(aggs);
    rb_plan_destroy(&pl);
}

/* Each rendering of the fixture is the release's, byte for byte. */
static void test_render_fixture(void **state)
{
    (void)state;
    const char *formats[] = {"text", "json", "csv", "html"};
    for (size_t i = 0; i < 4; i++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        const rb_reporter_t *rep = rb_reporter_find(formats[i]);
        assert_non_null(rep);
        assert_int_equal(rep->render(&s_run.res, s_run.dir, f), 0);
        assert_int_equal(fclose(f), 0);
        s_expect(formats[i], buf, len);
        free(buf);
    }
}

/* A temporary run folder under the build tree. */
static void s_dir(char *dir, size_t len, const char *tag)
{
    mkdir(RB_TEST_TMP, 0755);
    snprintf(dir, len, "%s/%s-%d", RB_TEST_TMP, tag, (int)getpid());
    mkdir(dir, 0755);
}

static int s_exists(const char *dir, const char *file)
{
    char path[4200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return stat(path, &st) == 0;
}

static void s_remove(const char *dir, const char *file)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    unlink(path);
}

/* Writes rep's file into dir and checks it against the fixture's rendering. */
static void s_write_and_check(const char *dir, const char *format)
{
    const rb_reporter_t *rep = rb_reporter_find(format);
    rb_err_t err;
    rb_err_clear(&err);
    assert_int_equal(rb_reporter_write(rep, &s_run.res, dir, &err), 0);
    assert_int_equal(err.code, 0);
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/%s", dir, rep->file);
    snprintf(tmp, sizeof tmp, "%s.new", rep->file);
    size_t len;
    char *got = s_slurp(path, &len);
    assert_non_null(got);
    s_expect(format, got, len);
    free(got);
    assert_false(s_exists(dir, tmp)); /* nothing left aside */
}

static void test_write(void **state)
{
    (void)state;
    char dir[4096];
    s_dir(dir, sizeof dir, "write");
    s_write_and_check(dir, "text");
    s_write_and_check(dir, "json");
    /* a durable row written again replaces the file whole */
    char path[4200];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("stale, and longer than nothing at all\n", f);
    fclose(f);
    s_write_and_check(dir, "json");
    s_remove(dir, "report.txt");
    s_remove(dir, "summary.json");
    assert_int_equal(rmdir(dir), 0); /* nothing else was left in it */
}

static void test_write_errors(void **state)
{
    (void)state;
    rb_err_t err;
    /* a row without a file */
    rb_err_clear(&err);
    assert_int_equal(rb_reporter_write(rb_reporter_find("csv"), &s_run.res, RB_TEST_TMP, &err),
                     -EINVAL);
    assert_int_equal(err.code, -EINVAL);
    assert_non_null(strstr(err.msg, "csv"));
    rb_err_clear(&err);
    assert_int_equal(rb_reporter_write(NULL, &s_run.res, RB_TEST_TMP, &err), -EINVAL);

    /* a folder that does not exist, for a plain and a durable row */
    char dir[4096], want[4200];
    snprintf(dir, sizeof dir, "%s/no-such-folder-%d", RB_TEST_TMP, (int)getpid());
    const char *formats[] = {"text", "json", "html"};
    for (size_t i = 0; i < 3; i++) {
        const rb_reporter_t *rep = rb_reporter_find(formats[i]);
        rb_err_clear(&err);
        assert_int_equal(rb_reporter_write(rep, &s_run.res, dir, &err), -EIO);
        assert_int_equal(err.code, -EIO);
        snprintf(want, sizeof want, "cannot write %s/%s: ", dir, rep->file);
        if (strncmp(err.msg, want, strlen(want)) != 0)
            fail_msg("message \"%s\", want it to start with \"%s\"", err.msg, want);
        assert_non_null(strstr(err.msg, strerror(ENOENT)));
    }
}

/* report.html of the fixture with a host's inventory and a raw disk; the
 * live page's way (the plan as written, no inventory) when live is set. */
static char *s_html_with_hosts(int live)
{
    static rb_host_t *hw;
    rb_dev_id_t dev = {.path = "/dev/sdq", .serial = "dev-serial-S2", .firmware = "fw-F2"};
    rb_nic_info_t nic = {.name = "nic-N1"};
    rb_root_info_t root = {.path = "/data",
                           .fs_type = "ext4",
                           .source = "/dev/sdq1",
                           .dev_model = "model-M1",
                           .dev_serial = "root-serial-S1"};
    rb_host_t head = {.kernel = "kernel-K1", .cpu_model = "cpu-C1"};
    rb_host_free(&hw);
    hw = rb_host_make(&head, &root, 1, &nic, 1, &dev, 1);
    assert_non_null(hw);
    rb_run_result_t r = s_run.res;
    rb_report_node_t *nodes = calloc(r.nnodes, sizeof *nodes);
    rb_phase_agg_t *phases = calloc(r.nphases, sizeof *phases);
    assert_non_null(nodes);
    assert_non_null(phases);
    memcpy(nodes, r.nodes, r.nnodes * sizeof *nodes);
    memcpy(phases, r.phases, r.nphases * sizeof *phases);
    nodes[0].hw = hw;
    rb_agg_disk_t disk = {.id = {.name = "sdq",
                                 .model = "model-M1",
                                 .serial = "disk-serial-S3",
                                 .firmware = "fw-F3",
                                 .size = 1 << 30}};
    snprintf(disk.node, sizeof disk.node, "%s", nodes[0].name);
    rb_finding_t oof = {.kind = RB_FIND_OUT_OF_FAMILY,
                        .device = "sdq",
                        .first_seen_s = -1,
                        .evidence = "serial disk-serial-S3: 1 MB/s against a median of 9 MB/s"};
    snprintf(oof.node, sizeof oof.node, "%s", nodes[0].name);
    phases[0].ndisks = 1;
    phases[0].disks = &disk;
    phases[0].nfindings = 1;
    phases[0].findings = &oof;
    r.nodes = nodes;
    r.phases = phases;
    if (live) {
        r.live = 1;
        r.no_inventory = 1;
        r.plan_written = "[global]\nsize=${SECRET_SIZE}\n";
    }
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(rb_reporter_find("html")->render(&r, s_run.dir, f), 0);
    assert_int_equal(fclose(f), 0);
    free(nodes);
    free(phases);
    return buf;
}

/* Issue 33: the live page shows the plan as written (a variable's value
 * never appears) and what the hosts are only with --metrics-inventory:
 * neither kernel, CPU, NICs, mounts, devices, nor serials and firmware. */
static void test_live_page(void **state)
{
    (void)state;
    static const char *const inventory[] = {
        "kernel-K1",     "cpu-C1",         "nic-N1",         "/dev/sdq1", "root-serial-S1",
        "dev-serial-S2", "disk-serial-S3", "fw-F2",          "fw-F3",     "<th>file systems</th>",
        "<th>NICs</th>", "id=\"devices\"", "<th>serial</th>"};
    size_t n = sizeof inventory / sizeof *inventory;
    char *page = s_html_with_hosts(0); /* report.html: all of it, and plan.ini */
    for (size_t i = 0; i < n; i++)
        if (!strstr(page, inventory[i]))
            fail_msg("report.html lacks %s", inventory[i]);
    assert_non_null(strstr(page, "filename_format=fx.$jobnum.$filenum"));
    free(page);
    page = s_html_with_hosts(1);
    for (size_t i = 0; i < n; i++)
        if (strstr(page, inventory[i]))
            fail_msg("the live page shows %s", inventory[i]);
    assert_non_null(strstr(page, "size=${SECRET_SIZE}"));
    assert_null(strstr(page, "filename_format="));                           /* plan.ini's text */
    assert_non_null(strstr(page, "sdq: 1 MB/s against a median of 9 MB/s")); /* the finding */
    assert_non_null(strstr(page, "<td>model-M1</td>"));                      /* its family */
    free(page);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_render_fixture),
        cmocka_unit_test(test_write),
        cmocka_unit_test(test_write_errors),
        cmocka_unit_test(test_live_page),
        cmocka_unit_test(test_issue37_sweep_matrix),
    };
    return cmocka_run_group_tests(tests, s_setup, s_teardown);
}
