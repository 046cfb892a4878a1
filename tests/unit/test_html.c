/* report.html from a hand-made run: two phases, three nodes in two racks, a
 * samples.csv and a plan.ini written here. Checks the escaping, the charts'
 * elements, the figures they carry, the sections, and that the page stays
 * well-formed XML with samples.csv missing or cut short (xmllint, when
 * installed). */
#include <errno.h>
#include <math.h>
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
#include "rb_html.h"

#define MB  1000000ULL
#define SEC 1000000000ULL

static char s_dir[4096];

/* The run: phase "w" writes, phase "r" reads; nodes a and b in rack r1 move
 * 100 MB/s, node c in rack r2 50 MB/s (a straggler); in phase r node c failed. */
typedef struct fixture {
    rb_job_spec_t jobs[2];
    rb_phase_spec_t specs[2];
    rb_phase_agg_t aggs[2];
    rb_report_node_t nodes[3];
    rb_hist_t hist[3];
    rb_accept_row_t rows[2];
    rb_accept_result_t acc;
    rb_run_result_t r;
} fixture_t;

static void s_build(fixture_t *fx)
{
    static const char *const names[] = {"a", "b", "c"};
    static const char *const racks[] = {"r1", "r1", "r2"};
    memset(fx, 0, sizeof *fx);
    fx->jobs[0] = (rb_job_spec_t){
        .name = "w", .rw = RB_RW_WRITE, .bs = MB, .numjobs = 1, .direct = 1, .ioengine = "sync"};
    fx->jobs[1] = (rb_job_spec_t){
        .name = "r", .rw = RB_RW_READ, .bs = MB, .numjobs = 1, .direct = 1, .ioengine = "sync"};
    for (int p = 0; p < 2; p++) {
        snprintf(fx->specs[p].name, sizeof fx->specs[p].name, "%s", fx->jobs[p].name);
        fx->specs[p].njobs = 1;
        fx->specs[p].jobs = &fx->jobs[p];
    }
    for (int n = 0; n < 3; n++) {
        rb_hist_init(&fx->hist[n]);
        for (int i = 0; i < 300; i++)
            rb_hist_record(&fx->hist[n], 1000 + 10 * (uint64_t)i * (n + 1)); /* 1..10 us */
        snprintf(fx->nodes[n].name, sizeof fx->nodes[n].name, "%s", names[n]);
        snprintf(fx->nodes[n].rack, sizeof fx->nodes[n].rack, "%s", racks[n]);
        snprintf(fx->nodes[n].hostname, sizeof fx->nodes[n].hostname, "host-%s", names[n]);
        fx->nodes[n].cores = 4;
        fx->nodes[n].ram_bytes = 1ULL << 34;
    }
    fx->nodes[2].status = RB_NODE_FAILED;
    snprintf(fx->nodes[2].error, sizeof fx->nodes[2].error, "read <x> & \"y\" failed");
    for (int p = 0; p < 2; p++) {
        rb_worker_stat_t w[3];
        rb_job_stat_t js[3];
        rb_msg_done_t d[3];
        rb_agg_input_t in[3];
        for (int n = 0; n < 3; n++) {
            uint64_t bytes = (n == 2 ? 150 : 300) * MB;
            w[n] = (rb_worker_stat_t){.t_start_ns = 10 * SEC + p * 100 * SEC,
                                      .t_end_ns = 13 * SEC + p * 100 * SEC,
                                      .bytes = bytes,
                                      .ops = bytes / MB};
            js[n] = (rb_job_stat_t){.bytes = bytes, .ops = bytes / MB, .hist = &fx->hist[n]};
            d[n] = (rb_msg_done_t){.nworkers = 1, .workers = &w[n], .njobs = 1, .jobs = &js[n]};
            in[n] = (rb_agg_input_t){names[n], racks[n], 0, RB_NODE_OK, &d[n], 1ULL << 34, 150000};
        }
        if (p == 1) {
            in[2].status = RB_NODE_FAILED;
            d[2].status = -EIO;
            snprintf(d[2].error, sizeof d[2].error, "read <x> & \"y\" failed");
        }
        assert_int_equal(rb_aggregate_phase(&fx->specs[p], in, 3, &fx->aggs[p]), 0);
        assert_int_equal(rb_find_stragglers(&fx->aggs[p], NULL, 0, 1.0), 0);
    }
    fx->rows[0] = (rb_accept_row_t){.set = "",
                                    .check = RB_ACCEPT_MIN_AGGREGATE_BW,
                                    .phase = "w",
                                    .limit = 1e9,
                                    .measured = 2e8,
                                    .verdict = RB_ACCEPT_FAIL};
    fx->rows[1] = (rb_accept_row_t){.set = "",
                                    .check = RB_ACCEPT_MAX_ERRORS,
                                    .phase = "r",
                                    .limit = 0,
                                    .measured = 0,
                                    .verdict = RB_ACCEPT_PASS};
    fx->acc = (rb_accept_result_t){.nrows = 2, .rows = fx->rows, .nfailed = 1};
    fx->r = (rb_run_result_t){.run_id = "20260101-000000-abcd",
                              .plan_source = "plan <1>.ini",
                              .duration_s = 12.5,
                              .nnodes = 3,
                              .nodes = fx->nodes,
                              .nphases = 2,
                              .specs = fx->specs,
                              .phases = fx->aggs,
                              .accept = &fx->acc};
}

static void s_fini(fixture_t *fx)
{
    rb_phase_agg_fini(&fx->aggs[0]);
    rb_phase_agg_fini(&fx->aggs[1]);
}

static void s_write(const char *name, const char *text)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", s_dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* Renders the fixture into s_dir/report.html; returns the page (caller frees). */
static char *s_render(fixture_t *fx)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/report.html", s_dir);
    FILE *f = fopen(path, "w+");
    assert_non_null(f);
    assert_int_equal(rb_report_html(&fx->r, s_dir, f), 0);
    long len = ftell(f);
    assert_true(len > 0);
    char *page = calloc(1, (size_t)len + 1);
    assert_non_null(page);
    rewind(f);
    assert_int_equal(fread(page, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    return page;
}

/* xmllint --noout on s_dir/report.html: 0 when well-formed, 1 when not, -1
 * when xmllint is not installed. */
static int s_xmllint(void)
{
    char cmd[4400];
    if (system("command -v xmllint >/dev/null 2>&1") != 0)
        return -1;
    snprintf(cmd, sizeof cmd, "xmllint --noout '%s/report.html'", s_dir);
    return system(cmd) == 0 ? 0 : 1;
}

static int s_count(const char *page, const char *what)
{
    int n = 0;
    for (const char *p = page; (p = strstr(p, what)); p++)
        n++;
    return n;
}

/* 1 s intervals; a: 100 MB each and a 0.1 s tail, b: 100 MB, c: 50 MB. */
static const char *s_csv =
    "t_s,phase,node,rack,job,interval_s,bytes,ops,errors,bw,iops,lat_p50_us,lat_p99_us,"
    "lat_max_us\n"
    "1.000,w,a,r1,w,1.000,100000000,100,0,100000000,100.0,1.0,2.0,3.0\n"
    "1.001,w,b,r1,w,1.000,100000000,100,0,100000000,100.0,1.0,2.0,3.0\n"
    "1.002,w,c,r2,w,1.000,50000000,50,0,50000000,50.0,1.0,2.0,3.0\n"
    "2.000,w,a,r1,w,1.000,100000000,100,0,100000000,100.0,1.0,2.0,3.0\n"
    "2.001,w,b,r1,w,1.000,100000000,100,0,100000000,100.0,1.0,2.0,3.0\n"
    "2.002,w,c,r2,w,1.000,50000000,50,0,50000000,50.0,1.0,2.0,3.0\n"
    "3.000,w,a,r1,w,1.000,100000000,100,0,100000000,100.0,1.0,2.0,3.0\n"
    "3.001,w,b,r1,w,1.000,100000000,100,0,100000000,100.0,1.0,2.0,3.0\n"
    "3.002,w,c,r2,w,1.000,50000000,50,0,50000000,50.0,1.0,2.0,3.0\n"
    "3.100,w,a,r1,w,0.100,1000000,1,0,10000000,10.0,1.0,2.0,3.0\n";

static void test_page(void **state)
{
    (void)state;
    fixture_t fx;
    s_build(&fx);
    /* a drive's burst, then its tuned rate: 2.7 GB/s for 3 s, then 1.3-1.5 */
    fx.aggs[0].steady = (rb_agg_steady_t){.intervals = 8,
                                          .interval_s = 1.0,
                                          .median_bw = 1.45e9,
                                          .min_bw = 1.3e9,
                                          .peak_bw = 2.7e9,
                                          .sustained_s = 3.0};
    s_write("samples.csv", s_csv);
    s_write("plan.ini", "; a <plan> & \"quotes\" 'too'\n[w]\nrw=write\nbad=\xff\xfe\n");
    char *page = s_render(&fx);

    assert_true(strncmp(page, "<!DOCTYPE html>\n<html", 21) == 0);
    assert_non_null(strstr(page, "</html>\n"));
    /* nothing fetched, nothing run */
    assert_null(strstr(page, "http:"));
    assert_null(strstr(page, "https:"));
    assert_null(strstr(page, "<script"));
    assert_null(strstr(page, "src="));
    /* every text escaped, invalid UTF-8 replaced */
    assert_non_null(strstr(page, "; a &lt;plan&gt; &amp; &quot;quotes&quot; &#39;too&#39;"));
    assert_non_null(strstr(page, "bad=&#65533;&#65533;"));
    assert_null(strstr(page, "<plan>"));
    assert_non_null(strstr(page, "plan &lt;1&gt;.ini"));
    assert_non_null(strstr(page, "read &lt;x&gt; &amp; &quot;y&quot; failed"));
    assert_null(strstr(page, "<x>"));

    /* per phase: time series, bars per node, latency curve; one <title> each */
    assert_int_equal(s_count(page, "<svg"), 3 + 1); /* r has no samples: its latency only */
    assert_int_equal(s_count(page, "<svg"), s_count(page, "</svg>"));
    assert_non_null(strstr(page, "viewBox=\"0 0 900 "));
    assert_non_null(strstr(page, "<title>w: bandwidth over time, cluster, per rack and per node "
                                 "(MB/s)</title>"));
    assert_non_null(strstr(page, "<title>w: latency percentiles"));
    assert_non_null(strstr(page, "<title>r: latency percentiles"));
    /* lines: 3 nodes, 2 racks, the cluster */
    assert_non_null(strstr(page, "<polyline class=\"node\""));
    assert_int_equal(s_count(page, "<polyline class=\"rack\""), 2);
    assert_int_equal(s_count(page, "<polyline class=\"cluster\""), 1);
    assert_non_null(strstr(page, "<title>rack r1</title>"));
    assert_non_null(strstr(page, "<title>rack r2</title>"));
    assert_int_equal(s_count(page, "<rect class=\"bar\""), 3);
    /* the bars carry the per-interval figures; a's 0.1 s tail is not drawn */
    assert_non_null(strstr(page, "a: median 100.00, min 100.00, max 100.00 MB/s over 3 intervals"));
    assert_non_null(strstr(page, "c: median 50.00, min 50.00, max 50.00 MB/s over 3 intervals"));
    assert_non_null(strstr(page, "Not drawn: 1 row of samples.csv for a node"));
    /* the cluster at 250 MB/s in every interval, at its end: y of 250 on a 0..300 axis */
    assert_non_null(strstr(page, "<polyline class=\"cluster\" stroke=\"#000\" points=\""));
    assert_non_null(strstr(page, "bandwidth (1 MB/s = 10&#8310; bytes/s)"));
    assert_non_null(strstr(page, "time after the phase&#8217;s GO (s)"));
    assert_non_null(strstr(page, "latency (&#181;s, log scale)"));
    assert_non_null(strstr(page, "no samples: samples.csv holds no interval of this phase"));

    /* figures, roll-ups, notes, acceptance, plan */
    assert_non_null(strstr(page, "Phase 1/2: w"));
    assert_non_null(strstr(page, "Phase 2/2: r"));
    assert_non_null(strstr(page, "<tr class=\"rack\"><td>rack r1</td>"));
    assert_non_null(strstr(page, "<tr class=\"cluster\"><td>cluster</td>"));
    assert_non_null(strstr(page, "Finding, straggler: c: "));
    assert_non_null(strstr(page, "more than 3 median absolute deviations and more than 15%"));
    assert_non_null(strstr(page, "c did not complete the phase: failed"));
        assert_non_null(strstr(page, "Start skew 0.000 ms"));
    assert_non_null(strstr(page, "clock offsets each within 0.075 ms: the true skew is within "
                                 "0.150 ms of it"));
    assert_non_null(strstr(page, "PARTIAL"));
    assert_non_null(strstr(page, "over 8 intervals of 1.000 s; sustained for 3.0 s at &gt;= 90% "
                                 "of peak"));
    assert_int_equal(s_count(page, "steady state"), 1); /* not on phase r */
    assert_non_null(strstr(page, "<h2>Acceptance</h2>"));
    assert_non_null(strstr(page, "min_aggregate_bw"));
    assert_non_null(strstr(page, "<td class=\"fail\">FAIL</td>"));
    assert_non_null(strstr(page, "acceptance: FAIL (1 of 2 checks failed)"));
    assert_non_null(strstr(page, "<h2>Plan</h2>\n<pre>"));
    free(page);
    int lint = s_xmllint();
    if (lint < 0)
        fprintf(stderr, "xmllint is not installed: well-formedness not checked\n");
    else
        assert_int_equal(lint, 0);

    /* without acceptance checks, no such section */
    fx.r.accept = NULL;
    page = s_render(&fx);
    assert_null(strstr(page, "Acceptance"));
    free(page);
    s_fini(&fx);
}

/* No samples.csv: every chart says so, the page is still whole. */
static void test_missing_samples(void **state)
{
    (void)state;
    fixture_t fx;
    char path[4200];
    s_build(&fx);
    snprintf(path, sizeof path, "%s/samples.csv", s_dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/plan.ini", s_dir);
    unlink(path);
    char *page = s_render(&fx);
    assert_int_equal(s_count(page, "no samples: samples.csv was not found in the run folder"), 2);
    assert_int_equal(s_count(page, "<svg"), 2); /* the latency curves */
    assert_non_null(strstr(page, "plan.ini was not found"));
    assert_non_null(strstr(page, "</html>\n"));
    free(page);
    assert_int_not_equal(s_xmllint(), 1);
    s_fini(&fx);
}

/* A run cut short leaves a half-written last line, and a file may hold lines
 * that are no samples: they are left out and counted. */
static void test_cut_samples(void **state)
{
    (void)state;
    fixture_t fx;
    s_build(&fx);
    size_t len = strlen(s_csv);
    char *cut = strdup(s_csv);
    assert_non_null(cut);
    cut[len - 20] = 0; /* inside the tail row */
    s_write("samples.csv", cut);
    free(cut);
    char *page = s_render(&fx);
    assert_non_null(strstr(page, "1 line could not be read"));
    free(page);
    /* lines that are not samples: left out and counted, never drawn */
    char bad[2048];
    snprintf(bad, sizeof bad, "%.*s%s", (int)(strstr(s_csv, "3.100,w,a") - s_csv), s_csv,
             "x,y\n"
             "1.0,w,a,r1,w,-1.0,5,5,0,0,0,0,0,0\n"
             "1.0,w,a,r1,w,nan,5,5,0,0,0,0,0,0\n"
             "1e300,w,a,r1,w,1.0,5,5,0,0,0,0,0,0\n"
             "1.0,w,a,r1,w,1.0,5,5,0,0,0,0,0,0,extra\n"
             "1.0,nosuchphase,a,r1,w,1.0,5,5,0,0,0,0,0,0\n");
    s_write("samples.csv", bad);
    page = s_render(&fx);
    assert_non_null(strstr(page, "4 lines could not be read"));
    assert_non_null(strstr(page, "a: median 100.00, min 100.00, max 100.00 MB/s over 3 intervals"));
    assert_null(strstr(page, "Not drawn"));
    free(page);
    assert_int_not_equal(s_xmllint(), 1);
    s_fini(&fx);
}

/* An empty histogram, zero bytes everywhere: no division by zero, no NaN drawn. */
static void test_empty_phase(void **state)
{
    (void)state;
    fixture_t fx;
    s_build(&fx);
    s_write("samples.csv", "t_s,phase,node,rack,job,interval_s,bytes,ops,errors,bw,iops,"
                           "lat_p50_us,lat_p99_us,lat_max_us\n"
                           "1.000,w,a,r1,w,1.000,0,0,0,0,0.0,0.0,0.0,0.0\n");
    rb_hist_init(&fx.aggs[0].hist);
    char *page = s_render(&fx);
    assert_non_null(strstr(page, "no latency was recorded"));
    assert_null(strstr(page, "nan"));
    assert_null(strstr(page, "inf"));
    free(page);
    assert_int_not_equal(s_xmllint(), 1);
    s_fini(&fx);
}

int main(void)
{
    snprintf(s_dir, sizeof s_dir, "%s", RB_TEST_TMP);
    if (mkdir(s_dir, 0755) < 0 && errno != EEXIST) {
        perror(s_dir);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page),
        cmocka_unit_test(test_missing_samples),
        cmocka_unit_test(test_cut_samples),
        cmocka_unit_test(test_empty_phase),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
