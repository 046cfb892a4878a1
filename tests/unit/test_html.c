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

#include "rb_chart.h"
#include "rb_csv.h"
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
        rb_agg_done_t d[3];
        rb_agg_input_t in[3];
        for (int n = 0; n < 3; n++) {
            uint64_t bytes = (n == 2 ? 150 : 300) * MB;
            w[n] = (rb_worker_stat_t){.t_start_ns = 10 * SEC + p * 100 * SEC,
                                      .t_end_ns = 13 * SEC + p * 100 * SEC,
                                      .bytes = bytes,
                                      .ops = bytes / MB};
            js[n] = (rb_job_stat_t){.bytes = bytes, .ops = bytes / MB, .hist = &fx->hist[n]};
            d[n] = (rb_agg_done_t){.nworkers = 1, .workers = &w[n], .njobs = 1, .jobs = &js[n]};
            in[n] = (rb_agg_input_t){.name = names[n],
                                     .rack = racks[n],
                                     .status = RB_NODE_OK,
                                     .done = &d[n],
                                     .ram_bytes = 1ULL << 34,
                                     .rtt_ns = 150000};
        }
        if (p == 1) {
            in[2].status = RB_NODE_FAILED;
            d[2].status = -EIO;
            d[2].error = "read <x> & \"y\" failed";
        }
        assert_int_equal(rb_aggregate_phase(&fx->specs[p], in, 3, &fx->aggs[p]), 0);
        assert_int_equal(rb_findings_stragglers(&fx->aggs[p], NULL, 0, 1.0), 0);
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
    rb_aggregate_phase_fini(&fx->aggs[0]);
    rb_aggregate_phase_fini(&fx->aggs[1]);
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
    assert_int_equal(rb_html_report(&fx->r, s_dir, f), 0);
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

/* samples.csv's header line as files before t_utc_ns had it, built from
 * its column table: the rows these tests write leave that column out, and
 * the reader maps columns by the header. */
static void s_header_without_utc(FILE *f)
{
    char *buf = NULL, *at;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    assert_int_equal(rb_csv_header(&rb_csv_samples, m), 0);
    fclose(m);
    if ((at = strstr(buf, ",t_utc_ns")))
        memmove(at, at + strlen(",t_utc_ns"), strlen(at + strlen(",t_utc_ns")) + 1);
    if ((at = strstr(buf, "lat_max_us,"))) /* nor the direction columns after it */
        strcpy(at, "lat_max_us\n");
    fputs(buf, f);
    free(buf);
}

/* samples.csv's header line, then rows (caller frees). */
static char *s_samples(const char *rows)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    s_header_without_utc(f);
    fputs(rows, f);
    assert_int_equal(fclose(f), 0);
    return buf;
}

/* 1 s intervals; a: 100 MB each and a 0.1 s tail, b: 100 MB, c: 50 MB
 * (the rows of samples.csv after its header line). */
static const char *s_csv_rows = "1.000,w,a,r1,w,1.000,100000000,100,0,100000000,100.0,1.0,2.0,3.0\n"
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
    char *csv = s_samples(s_csv_rows);
    s_write("samples.csv", csv);
    free(csv);
    s_write("plan.ini", "; a <plan> & \"quotes\" 'too'\n[w]\nrw=write\nbad=\xff\xfe\n");
    /* drive health (protocol 27): a's disk gained 8 reallocated sectors, b's
     * is as it was, c's has no SMART */
    rb_health_t hl[2][3];
    for (int k = 0; k < 2; k++)
        for (int n = 0; n < 3; n++) {
            hl[k][n] = (rb_health_t){.dev = "/dev/sda",
                                     .model = "ST <4000>",
                                     .protocol = "ATA",
                                     .verdict = RB_SMART_PASSED,
                                     .reallocated = k && n == 0 ? 8 : 0,
                                     .pending = 0,
                                     .offline_unc = 0,
                                     .crc_errors = 3,
                                     .media_errors = RB_HEALTH_NA,
                                     .error_log = 0,
                                     .critical_warning = RB_HEALTH_NA,
                                     .percentage_used = RB_HEALTH_NA,
                                     .available_spare = RB_HEALTH_NA,
                                     .spare_threshold = RB_HEALTH_NA,
                                     .temperature = 30,
                                     .temperature_max = 41,
                                     .power_on_hours = 1234};
            snprintf(hl[k][n].serial, sizeof hl[k][n].serial, "SN-%d", n);
            if (n == 2)
                snprintf(hl[k][n].reason, sizeof hl[k][n].reason, "a <virtio> disk has no SMART");
            fx.nodes[n].protocol = 27;
            fx.nodes[n].health[k] = &hl[k][n];
            fx.nodes[n].nhealth[k] = 1;
        }
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
    /* lines: 3 nodes, 2 racks, the cluster, each point an interval; a
     * legend entry each */
    assert_int_equal(s_count(page, "<polyline class=\"node\""), 3);
    assert_int_equal(s_count(page, "<polyline"), 3 + 2 + 1 + 2); /* and the latency curves */
    assert_int_equal(s_count(page, "<span class=\"item\">"), 3 + 2 + 1);
    assert_null(strstr(page, "class=\"spread\""));
    assert_null(strstr(page, "class=\"straggler\""));
    assert_null(strstr(page, "Downsampled"));
    assert_non_null(
        strstr(page, "Each point is one sample interval (about 1 s), drawn at its end"));
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
    /* drive health after acceptance, before the devices; the worse first */
    const char *dh = strstr(page, "<h2>Drive health</h2>");
    assert_non_null(dh);
    assert_true(dh > strstr(page, "<h2>Acceptance</h2>"));
    assert_true(dh < strstr(page, "<h3 id=\"devices-grouped\">") ||
                !strstr(page, "id=\"devices-grouped\""));
    assert_non_null(strstr(dh, "2 drives read, <span class=\"fail\">1 worse</span>, 1 not read"));
    assert_non_null(strstr(dh, "<tr><td>a</td><td>/dev/sda</td><td>ST &lt;4000&gt;</td>"
                               "<td>SN-0</td><td class=\"fail\">worse</td>"
                               "<td class=\"n bad\">0&#8594;8</td><td class=\"n\">0</td>"
                               "<td class=\"n\">3</td><td class=\"n\">-</td>"
                               "<td class=\"n\">0</td><td class=\"n\">41</td>"
                               "<td class=\"n\">1234</td></tr>\n<tr><td>b</td>"));
    assert_non_null(strstr(dh, "<td>SN-1</td><td class=\"pass\">ok</td><td class=\"n\">0</td>"));
    assert_non_null(strstr(dh, "<li class=\"bad\">Finding, drive-health: a /dev/sda "
                               "(ST &lt;4000&gt;, serial SN-0): reallocated 0 -&gt; 8</li>"));
    assert_non_null(strstr(dh, "<li class=\"note\">not read (1): a &lt;virtio&gt; disk has no "
                               "SMART: c /dev/sda</li>"));
    free(page);
    int lint = s_xmllint();
    if (lint < 0)
        fprintf(stderr, "xmllint is not installed: well-formedness not checked\n");
    else
        assert_int_equal(lint, 0);

    /* without acceptance checks, no such section; without readings from
     * agents before protocol 27, no drive health; the live page without
     * the inventory shows no serial */
    fx.r.accept = NULL;
    fx.r.no_inventory = 1;
    page = s_render(&fx);
    assert_null(strstr(page, "Acceptance"));
    assert_non_null(strstr(page, "<h2>Drive health</h2>"));
    assert_null(strstr(page, "SN-0"));
    assert_non_null(strstr(page, "(ST &lt;4000&gt;): reallocated 0 -&gt; 8</li>"));
    free(page);
    fx.r.no_inventory = 0;
    /* the live page while the run goes: the readings before it, no verdict yet */
    fx.r.live = 1;
    page = s_render(&fx);
    assert_non_null(strstr(page, "smartctl before the run: 2 drives read, 1 not read; each is "
                                 "read again after the run and compared then."));
    assert_null(strstr(page, "worse"));
    free(page);
    fx.r.live = 0;
    for (int n = 0; n < 3; n++) {
        fx.nodes[n].protocol = 26;
        fx.nodes[n].nhealth[0] = fx.nodes[n].nhealth[1] = 0;
    }
    page = s_render(&fx);
    assert_null(strstr(page, "Drive health"));
    free(page);
    s_fini(&fx);
}

/* A fleet: one write phase "w" on n nodes "n000".., node i in rack
 * "r<i % nracks>", moving (100 + i) MB/s for 10 s, but node slow (when
 * < n) only 10 MB/s: a straggler. */
typedef struct fleet {
    rb_job_spec_t job;
    rb_phase_spec_t spec;
    rb_phase_agg_t agg;
    rb_report_node_t *nodes;
    char (*names)[16], (*racks)[16];
    rb_hist_t hist;
    rb_run_result_t r;
} fleet_t;

static double s_fleet_rate(uint32_t i, uint32_t slow)
{
    return (i == slow ? 10.0 : 100.0 + i) * MB;
}

static void s_fleet(fleet_t *fx, uint32_t n, uint32_t nracks, uint32_t slow)
{
    memset(fx, 0, sizeof *fx);
    fx->job = (rb_job_spec_t){
        .name = "w", .rw = RB_RW_WRITE, .bs = MB, .numjobs = 1, .direct = 1, .ioengine = "sync"};
    snprintf(fx->spec.name, sizeof fx->spec.name, "w");
    fx->spec.njobs = 1;
    fx->spec.jobs = &fx->job;
    rb_hist_init(&fx->hist);
    for (int i = 0; i < 100; i++)
        rb_hist_record(&fx->hist, 1000 + 10 * (uint64_t)i);
    fx->nodes = calloc(n, sizeof *fx->nodes);
    fx->names = calloc(n, sizeof *fx->names);
    fx->racks = calloc(n, sizeof *fx->racks);
    rb_worker_stat_t *w = calloc(n, sizeof *w);
    rb_job_stat_t *js = calloc(n, sizeof *js);
    rb_agg_done_t *d = calloc(n, sizeof *d);
    rb_agg_input_t *in = calloc(n, sizeof *in);
    assert_true(fx->nodes && fx->names && fx->racks && w && js && d && in);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t bytes = (uint64_t)(s_fleet_rate(i, slow) * 10);
        snprintf(fx->names[i], sizeof fx->names[i], "n%03u", i);
        snprintf(fx->racks[i], sizeof fx->racks[i], "r%u", i % nracks);
        snprintf(fx->nodes[i].name, sizeof fx->nodes[i].name, "%s", fx->names[i]);
        snprintf(fx->nodes[i].rack, sizeof fx->nodes[i].rack, "%s", fx->racks[i]);
        w[i] = (rb_worker_stat_t){
            .t_start_ns = 10 * SEC, .t_end_ns = 20 * SEC, .bytes = bytes, .ops = bytes / MB};
        js[i] = (rb_job_stat_t){.bytes = bytes, .ops = bytes / MB, .hist = &fx->hist};
        d[i] = (rb_agg_done_t){.nworkers = 1, .workers = &w[i], .njobs = 1, .jobs = &js[i]};
        in[i] = (rb_agg_input_t){.name = fx->names[i],
                                 .rack = fx->racks[i],
                                 .status = RB_NODE_OK,
                                 .done = &d[i],
                                 .ram_bytes = 1ULL << 34};
    }
    assert_int_equal(rb_aggregate_phase(&fx->spec, in, n, &fx->agg), 0);
    assert_int_equal(rb_findings_stragglers(&fx->agg, NULL, 0, 1.0), 0);
    free(w);
    free(js);
    free(d);
    free(in);
    fx->r = (rb_run_result_t){.run_id = "20260101-000000-flee",
                              .plan_source = "fleet.ini",
                              .duration_s = 10,
                              .nnodes = n,
                              .nodes = fx->nodes,
                              .nphases = 1,
                              .specs = &fx->spec,
                              .phases = &fx->agg};
}

static void s_fleet_fini(fleet_t *fx)
{
    rb_aggregate_phase_fini(&fx->agg);
    free(fx->nodes);
    free(fx->names);
    free(fx->racks);
}

/* samples.csv of a fleet: nint intervals of 1 s, each node at its rate. */
static void s_fleet_samples(const fleet_t *fx, uint32_t nint, uint32_t slow)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/samples.csv", s_dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    s_header_without_utc(f);
    for (uint32_t k = 1; k <= nint; k++)
        for (uint32_t i = 0; i < fx->r.nnodes; i++) {
            double b = s_fleet_rate(i, slow);
            fprintf(f, "%u.000,w,%s,%s,w,1.000,%.0f,%.0f,0,%.0f,%.1f,1.0,2.0,3.0\n", k,
                    fx->names[i], fx->racks[i], b, b / MB, b, b / MB);
        }
    assert_int_equal(fclose(f), 0);
}

/* Render a page in the fleet's run folder; returns the page (caller frees). */
static char *s_render_run(const rb_run_result_t *r)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/report.html", s_dir);
    FILE *f = fopen(path, "w+");
    assert_non_null(f);
    assert_int_equal(rb_html_report(r, s_dir, f), 0);
    long len = ftell(f);
    assert_true(len > 0);
    char *page = calloc(1, (size_t)len + 1);
    assert_non_null(page);
    rewind(f);
    assert_int_equal(fread(page, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    return page;
}

/* The points of the polyline (or circle) whose tooltip is title, the
 * nth such (from 0), into x and y (room for max); returns how many, -1 when
 * there is no such element. */
static int s_points(const char *page, const char *title, int nth, double *x, double *y, int max)
{
    char key[256];
    snprintf(key, sizeof key, "<title>%s</title>", title);
    const char *t = page;
    for (int i = 0; i <= nth; i++, t++)
        if (!(t = strstr(t, key)))
            return -1;
    t--;
    const char *el = NULL;
    for (const char *p = page; (p = strstr(p, "<polyline ")) && p < t; p++)
        el = p;
    const char *pts = el ? strstr(el, "points=\"") : NULL;
    if (!pts || pts > t)
        return -1;
    int n = 0;
    for (char *end, *p = (char *)pts + 8; *p != '"';) {
        assert_true(n < max);
        x[n] = strtod(p, &end);
        assert_true(end > p && *end == ',');
        y[n++] = strtod(end + 1, &p);
        assert_true(*p == ' ' || *p == '"');
        p += *p == ' ';
    }
    return n;
}

/* 200 nodes in 4 racks: no line per node, the slowest, median and fastest
 * node of each interval instead, the straggler's own line, a short legend;
 * 32 bars, the slowest node among them. */
static void test_many_nodes(void **state)
{
    (void)state;
    fleet_t fx;
    s_fleet(&fx, 200, 4, 7);
    s_fleet_samples(&fx, 10, 7);
    char *page = s_render_run(&fx.r);
    assert_non_null(strstr(page, "Finding, straggler: n007: "));
    /* no line per node */
    assert_int_equal(s_count(page, "<polyline class=\"node\""), 0);
    assert_int_equal(s_count(page, "<circle class=\"node\""), 0);
    /* exactly: min, median, max, 4 racks, the cluster, the straggler, the latency */
    assert_int_equal(s_count(page, "<polyline"), 3 + 4 + 1 + 1 + 1);
    assert_int_equal(s_count(page, "<polyline class=\"spread\""), 3);
    assert_int_equal(s_count(page, "<polyline class=\"rack\""), 4);
    assert_int_equal(s_count(page, "<polyline class=\"cluster\""), 1);
    assert_int_equal(s_count(page, "<polyline class=\"straggler\""), 1);
    assert_int_equal(s_count(page, "<title>node min</title>"), 1);
    assert_int_equal(s_count(page, "<title>node median</title>"), 1);
    assert_int_equal(s_count(page, "<title>node max</title>"), 1);
    assert_int_equal(s_count(page, "<title>n007 (straggler)</title>"), 1);
    assert_int_equal(s_count(page, "<title>rack r3</title>"), 1);
    /* the legend lists those lines, not the nodes */
    assert_int_equal(s_count(page, "<span class=\"item\">"), 1 + 4 + 3 + 1);
    assert_null(strstr(page, "</span>n100</span>"));
    assert_non_null(strstr(page, "200 nodes are too many for a line each"));
    assert_non_null(strstr(page, "Stragglers have a line of their own: n007."));
    assert_non_null(strstr(page, "<title>w: bandwidth over time, cluster and per rack (GB/s)"));
    /* the per-node chart on its own axis: 0..400 MB/s (node max 299 MB/s +
     * headroom), plot 16..316 px high; slowest n007 at 10 MB/s, fastest n199
     * at 299, median of 10, 100..106, 108..299: 199.5 */
    static const struct {
        const char *title;
        double mbs;
    } lines[] = {{"node min", 10}, {"node median", 199.5}, {"node max", 299}};
    double x[64], y[64];
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        int n = s_points(page, lines[i].title, 0, x, y, 64);
        assert_int_equal(n, 10);
        for (int k = 0; k < n; k++) {
            assert_true(fabs(y[k] - (316 - lines[i].mbs / 400 * 300)) < 0.06);
            assert_true(fabs(x[k] - (84 + (k + 1) / 10.0 * 796)) < 0.06);
        }
    }
    assert_int_equal(s_points(page, "n007 (straggler)", 0, x, y, 64), 10);
    assert_true(fabs(y[0] - (316 - 10.0 / 400 * 300)) < 0.06);
    /* bars: the 16 slowest and the 16 fastest by median, a separator */
    assert_int_equal(s_count(page, "<rect class=\"bar\""), 32);
    assert_non_null(strstr(page, ">n007: median 10.00, min 10.00, max 10.00 MB/s"));
    assert_non_null(strstr(page, ">n015: median 115.00"));
    assert_null(strstr(page, ">n016: median"));
    assert_null(strstr(page, ">n183: median"));
    assert_non_null(strstr(page, ">n184: median 284.00"));
    assert_non_null(strstr(page, ">n199: median 299.00"));
    assert_non_null(strstr(page, "168 nodes between these by median, not shown"));
    assert_non_null(strstr(page, "200 nodes; the 16 slowest and 16 fastest by median are shown; "
                                 "every node is in the table below and in samples.csv."));
    assert_true(strstr(page, ">n007: median") < strstr(page, ">n000: median"));
    /* every node in the tables */
    assert_non_null(strstr(page, "<tr><td>n100</td><td>r0</td>"));
    assert_non_null(strstr(page, "<tr><td>n100</td><td>ok</td>"));
    /* issue 37: the nodes' table has IOPS beside bandwidth: n100 moves 200
     * 1 MB IOs a second; the cluster 39803 (100..299 but n007 at 10) */
    assert_non_null(strstr(page, "<th class=\"n\">bandwidth</th><th class=\"n\">IOPS</th>"
                                 "<th class=\"n\">node median</th>"));
    const char *row = strstr(page, "<tr><td>n100</td><td>ok</td>");
    const char *iops = strstr(row, "<td class=\"n\">200</td><td></td><td></td><td></td>");
    assert_true(iops && iops < strstr(row, "</tr>"));
    row = strstr(page, "<tr class=\"cluster\"><td>cluster</td>");
    assert_non_null(row);
    iops = strstr(row, "<td class=\"n\">39803</td>");
    assert_true(iops && iops < strstr(row, "</tr>"));
    free(page);
    assert_int_not_equal(s_xmllint(), 1);
    s_fleet_fini(&fx);
}

/* Devices of a fleet into its phase: two a node (sda, sdb), device i busy
 * (i * 37 % 100) % (a permutation: each figure once among 100). */
static void s_fleet_devs(fleet_t *fx, uint32_t n)
{
    rb_phase_agg_t *a = &fx->agg;
    a->ndevs = 2 * n;
    a->devs = calloc(a->ndevs, sizeof *a->devs);
    assert_non_null(a->devs);
    for (uint32_t i = 0; i < a->ndevs; i++) {
        rb_agg_dev_t *d = &a->devs[i];
        snprintf(d->node, sizeof d->node, "%s", fx->names[i / 2]);
        snprintf(d->device, sizeof d->device, "sd%c", 'a' + (int)(i % 2));
        d->intervals = 10;
        d->util_median = (double)(i * 37 % 100);
        d->util_max = d->util_median;
    }
}

/* 100 devices: the 16 least busy and the 16 busiest, and the one a finding
 * names, with the rows left out counted; 40 devices: every one. */
static void test_many_devices(void **state)
{
    (void)state;
    fleet_t fx;
    s_fleet(&fx, 50, 2, UINT32_MAX);
    s_fleet_devs(&fx, 50);
    rb_phase_agg_t *a = &fx.agg;
    /* device 1 (n000 sdb) is 37% busy, in the middle: a finding names it */
    a->findings = realloc(a->findings, (a->nfindings + 1) * sizeof *a->findings);
    assert_non_null(a->findings);
    a->findings[a->nfindings++] = (rb_finding_t){.kind = RB_FIND_DEVICE_BOUND,
                                                 .node = "n000",
                                                 .device = "sdb",
                                                 .evidence = "busy",
                                                 .first_seen_s = -1};
    s_fleet_samples(&fx, 5, UINT32_MAX);
    char *page = s_render_run(&fx.r);
    assert_non_null(strstr(page, "100 devices; shown: the 16 least busy and the 16 busiest by "
                                 "median utilisation, and every device a finding names (33 rows)"));
    int rows = 0, gaps = 0, left = 0;
    for (uint32_t i = 0; i < 100; i++) {
        char row[128];
        snprintf(row, sizeof row, "<tr><td>%s</td><td>%s</td><td>(root)</td>", a->devs[i].node,
                 a->devs[i].device);
        int u = (int)a->devs[i].util_median;
        int want = u < 16 || u >= 84 || i == 1;
        assert_int_equal(strstr(page, row) != NULL, want);
        rows += want;
    }
    assert_int_equal(rows, 33);
    for (const char *p = page; (p = strstr(p, " devices not shown</td>")); p++) {
        const char *q = p;
        while (q > page && q[-1] >= '0' && q[-1] <= '9')
            q--;
        left += atoi(q);
        gaps++;
    }
    assert_int_equal(left, 100 - 33);
    assert_true(gaps > 1);
    free(page);
    assert_int_not_equal(s_xmllint(), 1);
    s_fleet_fini(&fx);

    s_fleet(&fx, 20, 2, UINT32_MAX);
    s_fleet_devs(&fx, 20);
    s_fleet_samples(&fx, 5, UINT32_MAX);
    page = s_render_run(&fx.r);
    assert_null(strstr(page, "devices not shown"));
    assert_null(strstr(page, "40 devices; shown"));
    assert_non_null(strstr(page, "<tr><td>n019</td><td>sdb</td>"));
    free(page);
    s_fleet_fini(&fx);
}

/* 40 nodes in 40 racks: no line per node nor per rack, every bar. */
static void test_many_racks(void **state)
{
    (void)state;
    fleet_t fx;
    s_fleet(&fx, 40, 40, UINT32_MAX);
    s_fleet_samples(&fx, 5, UINT32_MAX);
    char *page = s_render_run(&fx.r);
    assert_int_equal(s_count(page, "<polyline class=\"node\""), 0);
    assert_int_equal(s_count(page, "<polyline class=\"rack\""), 0);
    assert_int_equal(s_count(page, "<polyline class=\"spread\""), 3);
    assert_int_equal(s_count(page, "<polyline class=\"cluster\""), 1);
    assert_int_equal(s_count(page, "<polyline class=\"straggler\""), 0);
    assert_int_equal(s_count(page, "<span class=\"item\">"), 1 + 3);
    assert_non_null(strstr(page, "The 40 racks have no line each (more than 32)"));
    assert_non_null(strstr(page, "<title>w: bandwidth over time, cluster (GB/s)"));
    assert_int_equal(s_count(page, "<rect class=\"bar\""), 40);
    assert_null(strstr(page, "by median are shown"));
    free(page);
    assert_int_not_equal(s_xmllint(), 1);
    s_fleet_fini(&fx);
}

/* 3 nodes, 5,000 intervals of 1 s: each line has at most a point per px
 * (796), each point the mean of 7 intervals. Node a is a square wave,
 * 100 MB/s in even intervals, 20 in odd ones: a bucket starting on an even
 * interval holds 4 high and 3 low (65.71 MB/s), the next 3 and 4 (54.29),
 * the last one 2 intervals (60). Node c has no sample in intervals 700 to
 * 713 (two whole buckets: a gap) nor 720 to 722 (part of one: no gap). */
static void test_long_run(void **state)
{
    (void)state;
    enum { NK = 5000, PER = 7, NP = (NK + PER - 1) / PER };
    fleet_t fx;
    s_fleet(&fx, 3, 2, UINT32_MAX);
    char path[4200];
    snprintf(path, sizeof path, "%s/samples.csv", s_dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    s_header_without_utc(f);
    for (int k = 0; k < NK; k++) {
        double a = k % 2 ? 20e6 : 100e6;
        fprintf(f, "%d.000,w,n000,r0,w,1.000,%.0f,1,0,%.0f,1.0,1.0,2.0,3.0\n", k + 1, a, a);
        fprintf(f, "%d.000,w,n001,r1,w,1.000,80000000,1,0,80000000,1.0,1.0,2.0,3.0\n", k + 1);
        if ((k < 700 || k > 713) && (k < 720 || k > 722))
            fprintf(f, "%d.000,w,n002,r0,w,1.000,50000000,1,0,50000000,1.0,1.0,2.0,3.0\n", k + 1);
    }
    assert_int_equal(fclose(f), 0);
    char *page = s_render_run(&fx.r);
    double *x = calloc(NK, sizeof *x), *y = calloc(NK, sizeof *y);
    assert_true(x && y);
    /* every line: one polyline of NP points, c's two around its gap */
    for (const char *p = page; (p = strstr(p, "<polyline class=\"")); p++)
        if (strncmp(p, "<polyline class=\"lat\"", 21) != 0) {
            int n = 1;
            for (const char *q = strstr(p, "points=\""); *q != '>'; q++)
                n += *q == ' ';
            assert_true(n <= 796);
        }
    assert_int_equal(s_count(page, "<polyline class=\"node\""), 4);
    assert_int_equal(s_count(page, "<polyline class=\"rack\""), 2);
    assert_int_equal(s_points(page, "n001", 0, x, y, NK), NP);
    assert_int_equal(s_points(page, "n002", 0, x, y, NK), 100);
    assert_int_equal(s_points(page, "n002", 1, x, y, NK), NP - 102);
    /* its first point after the gap: intervals 714 to 719 (of 714 to 720), ending 715..720 */
    assert_true(fabs(x[0] - (84 + 717.5 / 5000 * 796)) < 0.06);
    /* a, on axes 0..5000 s (84..880 px) and 0..250 MB/s (316..16 px) */
    assert_int_equal(s_points(page, "n000", 0, x, y, NK), NP);
    for (int j = 0; j < NP; j++) {
        double mbs = j == NP - 1 ? 60 : j % 2 ? 380.0 / 7 : 460.0 / 7;
        double t = j == NP - 1 ? 4999.5 : 7.0 * j + 4;
        assert_true(fabs(y[j] - (316 - mbs / 250 * 300)) < 0.06);
        assert_true(fabs(x[j] - (84 + t / 5000 * 796)) < 0.06);
    }
    /* said under the chart; the bars and the table still count every interval */
    assert_non_null(strstr(page, "Downsampled: the phase has 5000 sample intervals"));
    assert_non_null(strstr(page, "each point is the mean of 7 consecutive intervals"));
    assert_non_null(strstr(page, "samples.csv keeps every interval"));
    assert_non_null(strstr(page, "n000: median 60.00, min 20.00, max 100.00 MB/s over 5000 "
                                 "intervals"));
    assert_non_null(strstr(page, "n002: median 50.00, min 50.00, max 50.00 MB/s over 4983 "
                                 "intervals"));
    free(x);
    free(y);
    free(page);
    assert_int_not_equal(s_xmllint(), 1);
    s_fleet_fini(&fx);
}

/* A phase too long for the cell budget: 40 nodes x 3,000 intervals of 1 s,
 * with room for 40,000 cells, keeps 750 cells a node of 4 intervals each
 * (1024 a line at least: 3,000 halved twice). Node i moves (i + 1) x f(k)
 * MB in interval k, f = 130, 90, 90, 90 in intervals 0-3 mod 8, 50, 10,
 * 10, 10 in 4-7: a cell aligned on 4 intervals means 100 or 20 (any other
 * grouping mixes them); each row split in two jobs, whose interval counts
 * once. n000 (slow in the summary: a straggler, with a line of its own) has no sample
 * in intervals 1000-1003 (cell 250: a gap) nor 1010 (cell 252: the rate of
 * the other 3, 310 / 3 MB/s). */
static void test_cell_budget(void **state)
{
    (void)state;
    enum { NN = 40, NK = 3000, NC = NK / 4 };
    fleet_t fx;
    s_fleet(&fx, NN, 2, 0);
    char path[4200];
    snprintf(path, sizeof path, "%s/samples.csv", s_dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    s_header_without_utc(f);
    for (int k = 0; k < NK; k++)
        for (int i = 0; i < NN; i++) {
            double b = (i + 1) * ((k % 8 < 4 ? 100 : 20) + (k % 4 ? -10 : 30)) * 1e6 / 2;
            if (i == 0 && ((k >= 1000 && k <= 1003) || k == 1010))
                continue;
            for (int j = 0; j < 2; j++)
                fprintf(f, "%d.000,w,%s,%s,w%d,1.000,%.0f,1,0,%.0f,1.0,1.0,2.0,3.0\n", k + 1,
                        fx.names[i], fx.racks[i], j, b, b);
        }
    assert_int_equal(fclose(f), 0);

    rb_html_set_cell_budget(40000);
    char *page = s_render_run(&fx.r);
    assert_int_not_equal(s_xmllint(), 1);
    rb_html_set_cell_budget(0);
    /* the cluster, on axes 0..3000 s (84..880 px) and 0..100 GB/s (316..16 px):
     * 820 x 100 MB/s or 820 x 20, but 100 MB/s less in cell 250, 310 / 3 - 100
     * more in cell 252; each drawn at its last end */
    double *x = calloc(NK, sizeof *x), *y = calloc(NK, sizeof *y);
    assert_true(x && y);
    assert_int_equal(s_points(page, "cluster (sum of nodes)", 0, x, y, NK), NC);
    for (int c = 0; c < NC; c++) {
        double gbs = c % 2 ? 16.4 : c == 250 ? 81.9 : c == 252 ? 81.9 + 0.31 / 3 : 82;
        assert_true(fabs(y[c] - (316 - gbs / 100 * 300)) < 0.06);
        assert_true(fabs(x[c] - (84 + (4.0 * c + 4) / 3000 * 796)) < 0.06);
    }
    assert_int_equal(s_points(page, "n000 (straggler)", 0, x, y, NK), 250);
    assert_int_equal(s_points(page, "n000 (straggler)", 1, x, y, NK), NC - 251);
    /* the bars: rates over 4 intervals, not over one; n000 has 375 cells of
     * 20 MB/s and 374 higher: its median is 20 */
    assert_non_null(strstr(page, ">n000: median 0.020, min 0.020, max 0.103 GB/s over 749 spans "
                                 "of 4 intervals</title>"));
    assert_non_null(strstr(page, ">n001: median 0.120, min 0.040, max 0.200 GB/s over 750 spans "
                                 "of 4 intervals</title>"));
    assert_non_null(strstr(page, "Downsampled: the phase has 3000 sample intervals (about 1 s "
                                 "each), too many to keep one by one, so each point holds 4 "
                                 "consecutive intervals: the bytes a node moved in them over the "
                                 "sum of their lengths"));
    assert_non_null(strstr(page, "nodes are compared over 4 consecutive intervals at a time"));
    assert_non_null(strstr(page, "a rate here is the node&#8217;s over 4 consecutive intervals"));
    assert_non_null(strstr(page, "fastest node of each 4 intervals (GB/s)</title>"));
    free(page);

    /* a budget that holds every interval: as without one, each point the
     * mean of 4 intervals; one cell less: 1,500 cells of 2, a point the mean
     * of 2 of them */
    char *plain = s_render_run(&fx.r);
    rb_html_set_cell_budget(NN * NK);
    page = s_render_run(&fx.r);
    assert_string_equal(page, plain);
    assert_non_null(strstr(page, "each point is the mean of 4 consecutive intervals"));
    assert_null(strstr(page, "spans of"));
    free(page);
    rb_html_set_cell_budget(NN * NK - 1);
    page = s_render_run(&fx.r);
    rb_html_set_cell_budget(0);
    assert_non_null(strstr(page, "each point holds 4 consecutive intervals: the mean of 2 rates, "
                                 "each the bytes a node moved in 2 consecutive intervals"));
    assert_non_null(strstr(page, "over 1498 spans of 2 intervals</title>"));
    assert_int_equal(s_points(page, "cluster (sum of nodes)", 0, x, y, NK), NC);
    free(page);
    free(plain);
    free(x);
    free(y);
    s_fleet_fini(&fx);
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
    char *csv = s_samples(s_csv_rows);
    size_t len = strlen(csv);
    char *cut = strdup(csv);
    assert_non_null(cut);
    cut[len - 20] = 0; /* inside the tail row */
    s_write("samples.csv", cut);
    free(cut);
    char *page = s_render(&fx);
    assert_non_null(strstr(page, "1 line could not be read"));
    free(page);
    /* lines that are not samples: left out and counted, never drawn */
    char bad[2048];
    snprintf(bad, sizeof bad, "%.*s%s", (int)(strstr(csv, "3.100,w,a") - csv), csv,
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
    free(csv);
    s_fini(&fx);
}

/* An empty histogram, zero bytes everywhere: no division by zero, no NaN drawn. */
static void test_empty_phase(void **state)
{
    (void)state;
    fixture_t fx;
    s_build(&fx);
    char *csv = s_samples("1.000,w,a,r1,w,1.000,0,0,0,0,0.0,0.0,0.0,0.0\n");
    s_write("samples.csv", csv);
    free(csv);
    rb_hist_init(&fx.aggs[0].hist);
    char *page = s_render(&fx);
    assert_non_null(strstr(page, "no latency was recorded"));
    assert_null(strstr(page, "nan"));
    assert_null(strstr(page, "inf"));
    free(page);
    assert_int_not_equal(s_xmllint(), 1);
    s_fini(&fx);
}

/* The page's default unit system is binary: every rate of its tables and
 * charts in MiB/s or GiB/s, none in decimal units; with SI, the reverse.
 * The summary sits at the top, before the nodes and the first phase. */
static void test_units_and_summary(void **state)
{
    (void)state;
    fixture_t fx;
    s_build(&fx);
    char *csv = s_samples(s_csv_rows);
    s_write("samples.csv", csv);
    free(csv);
    s_write("plan.ini", "[w]\nrw=write\n");
    rb_chart_set_si(0);
    char *page = s_render(&fx);
    rb_chart_set_si(1);
    assert_non_null(strstr(page, "(MiB/s)</title>"));
    assert_non_null(strstr(page, "bandwidth (1 MiB/s = 2&#178;&#8304; bytes/s)"));
    assert_non_null(strstr(page, " MiB/s</td>"));
    assert_null(strstr(page, " MB/s"));
    assert_null(strstr(page, " GB/s"));
    assert_non_null(strstr(page, "rates are in binary (1 MiB/s"));
    const char *sum = strstr(page, "<section id=\"summary\">");
    const char *nodes = strstr(page, "<h2 id=\"nodes\">");
    const char *ph1 = strstr(page, "<section id=\"phase-1\">");
    assert_non_null(sum);
    assert_non_null(nodes);
    assert_non_null(ph1);
    /* the results first: the nodes' table after the phases (issue 36) */
    assert_true(sum < ph1 && ph1 < nodes);
    assert_non_null(strstr(sum, "<td rowspan=\"1\"><a href=\"#phase-1\">w</a>"));
    assert_non_null(strstr(sum, "straggler"));
    free(page);
    page = s_render(&fx);
    assert_non_null(strstr(page, "(MB/s)</title>"));
    assert_null(strstr(page, "MiB/s"));
    free(page);
    s_fini(&fx);
}

/* issue 37: latency over time on a log axis, so a p50 of 200 us stands
 * clear of the bottom beside a p99 of 800,000 us: the decades 10^2..10^6
 * over the 260 px plot (top at 16), a 0 left out as a gap. */
static void test_latency_log_axis(void **state)
{
    (void)state;
    static const double t[5] = {1, 2, 3, 4, 5}, p50[5] = {200, 200, 0, 200, 200},
                        p99[5] = {800000, 800000, 800000, 800000, 800000};
    rb_chart_line_t l[2] = {
        {.v = p99, .t = t, .name = "read p99", .color = "#1f77b4"},
        {.v = p50, .t = t, .name = "read p50", .color = "#1f77b4", .dashed = 1}};
    char *page = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&page, &len);
    assert_non_null(f);
    assert_int_equal(rb_chart_lines(f, "lat", "latency (&#181;s, log scale)", 1, 1, l, 2, 5, 5), 0);
    fclose(f);
    for (int e = 2; e <= 6; e++) {
        char tick[64];
        snprintf(tick, sizeof tick, "text-anchor=\"end\">%.0f</text>", pow(10, e));
        assert_non_null(strstr(page, tick));
    }
    assert_null(strstr(page, "text-anchor=\"end\">0</text>"));
    double x[8], y[8];
    assert_int_equal(s_points(page, "read p50", 0, x, y, 8), 2);
    assert_true(fabs(y[0] - (276 - log10(2) / 4 * 260)) < 0.06);
    assert_int_equal(s_points(page, "read p50", 1, x, y, 8), 2); /* after the gap */
    assert_int_equal(s_points(page, "read p99", 0, x, y, 8), 5);
    assert_true(fabs(y[0] - (276 - (log10(8e5) - 2) / 4 * 260)) < 0.06);
    /* on a linear axis p50 would be within a pixel of the bottom */
    free(page);
}

int main(void)
{
    /* the pixel checks below work in decimal rates */
    rb_chart_set_si(1);
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
        cmocka_unit_test(test_many_nodes),
        cmocka_unit_test(test_many_devices),
        cmocka_unit_test(test_many_racks),
        cmocka_unit_test(test_long_run),
        cmocka_unit_test(test_cell_budget),
        cmocka_unit_test(test_units_and_summary),
        cmocka_unit_test(test_latency_log_axis),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
