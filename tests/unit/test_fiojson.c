/* fio's JSON of a run (report/rb_fiojson.c) on a phase made by hand: fio's
 * percentile keys, the bins of fio-json+ (a bucket's midpoint, within the
 * recorded min and max, counts adding up to N), fio's latency_ns, _us and
 * _ms shares at their edges, no percentile or bins for an empty latency,
 * the entries' names, a node's entry from its summary alone, and the
 * list --output-format takes, the CPU and disk_util from telemetry.csv,
 * and fio's logs from a samples.csv made by hand (windows, epoch, shared
 * files).
 * The tools made for fio's output read it in
 * tests/integration/test_fio_json.sh. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rb_aggregate.h"
#include "rb_csv.h"
#include "rb_fiojson.h"
#include "rb_fiolog.h"
#include "rb_hist.h"
#include "rb_json.h"
#include "rb_report.h"
#include "rb_reporter.h"

/* fio's own keys, in its order */
static const char *const s_fio_pcts[] = {
    "1.000000",  "5.000000",  "10.000000", "20.000000", "30.000000", "40.000000",
    "50.000000", "60.000000", "70.000000", "80.000000", "90.000000", "95.000000",
    "99.000000", "99.500000", "99.900000", "99.950000", "99.990000"};

typedef struct fixture {
    rb_job_spec_t job;
    rb_phase_spec_t spec;
    rb_phase_agg_t a;
    rb_agg_node_t node;
    rb_agg_job_t aj;
    rb_lat_set_t *lats;
    rb_report_node_t rn;
    rb_run_result_t r;
} fixture_t;

/* One phase "p" of one job "j" on one node "n1": reads of 999 ns, 1000 ns,
 * 1999 ns, 2.5 ms and 3 s (lat), their clat all 1001 ns, no slat, no writes. */
static void s_fixture(fixture_t *fx)
{
    memset(fx, 0, sizeof *fx);
    fx->job =
        (rb_job_spec_t){.name = "j", .rw = RB_RW_RANDREAD, .bs = 4096, .numjobs = 1, .iodepth = 8};
    fx->spec = (rb_phase_spec_t){.name = "p", .njobs = 1, .jobs = &fx->job};
    fx->lats = malloc(sizeof *fx->lats);
    assert_non_null(fx->lats);
    rb_lat_set_init(fx->lats);
    static const uint64_t lat[] = {999, 1000, 1999, 2500000, 3000000000ULL};
    for (size_t i = 0; i < 5; i++) {
        rb_hist_record(&fx->lats->all, lat[i]);
        rb_hist_record(&fx->lats->dir[RB_DIR_READ][RB_LAT_LAT], lat[i]);
        rb_hist_record(&fx->lats->dir[RB_DIR_READ][RB_LAT_CLAT], 1001);
    }
    rb_agg_dir_t rd = {.bytes = 5 * 4096, .ops = 5, .bw = 4096.0 * 5 / 3, .iops = 5 / 3.0};
    snprintf(fx->aj.name, sizeof fx->aj.name, "j");
    fx->aj.lats = fx->lats;
    fx->aj.hist = &fx->lats->all;
    fx->aj.window_s = 3;
    fx->aj.dir[RB_DIR_READ] = rd;
    snprintf(fx->node.name, sizeof fx->node.name, "n1");
    fx->node.window_s = 3;
    fx->node.dir[RB_DIR_READ] = rd;
    fx->node.lat.dir[RB_DIR_READ] = (rb_lat_summary_t){.count = 5,
                                                       .mean = 600000400,
                                                       .min = 999,
                                                       .p50 = 1992,
                                                       .p90 = 3000000000ULL,
                                                       .p99 = 3000000000ULL,
                                                       .p999 = 3000000000ULL,
                                                       .max = 3000000000ULL};
    fx->node.lat.all = fx->node.lat.dir[RB_DIR_READ];
    snprintf(fx->a.name, sizeof fx->a.name, "p");
    fx->a.njobs = 1;
    fx->a.jobs = &fx->aj;
    fx->a.nnodes = 1;
    fx->a.nodes = &fx->node;
    fx->a.window_s = 3;
    fx->a.dir[RB_DIR_READ] = rd;
    fx->a.hist = fx->lats->all;
    memcpy(fx->a.lat, fx->lats->dir, sizeof fx->a.lat);
    fx->a.last_end_utc_ns = 1796220000123456789ULL;
    snprintf(fx->rn.name, sizeof fx->rn.name, "n1");
    snprintf(fx->rn.hostname, sizeof fx->rn.hostname, "host1");
    fx->r = (rb_run_result_t){.run_id = "t",
                              .nnodes = 1,
                              .nodes = &fx->rn,
                              .nphases = 1,
                              .specs = &fx->spec,
                              .phases = &fx->a};
}

static rb_json_t *s_render_dir(fixture_t *fx, const char *dir, int plus)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(rb_fiojson_render(&fx->r, dir, plus, f), 0);
    fclose(f);
    rb_json_t *doc = rb_json_parse(buf, len, NULL);
    assert_non_null(doc);
    assert_true((strstr(buf, "\"bins\"") != NULL) == plus);
    free(buf);
    return doc;
}

static rb_json_t *s_render(fixture_t *fx, int plus)
{
    return s_render_dir(fx, NULL, plus);
}

static double s_num(const rb_json_t *o, const char *key)
{
    const rb_json_t *v = rb_json_get(o, key);
    if (!v)
        fail_msg("no member %s", key);
    return rb_json_num(v, -1);
}

/* The top level, the jobs entry's names and fio's 17 percentile keys. */
static void test_shape(void **state)
{
    (void)state;
    fixture_t fx;
    s_fixture(&fx);
    rb_json_t *doc = s_render(&fx, 0);
    assert_string_equal(rb_json_str(rb_json_get(doc, "fio version")), "rackbench-" RB_VERSION);
    assert_int_equal((uint64_t)s_num(doc, "timestamp"), 1796220000);
    assert_int_equal((uint64_t)s_num(doc, "timestamp_ms"), 1796220000123ULL);
    assert_int_equal(rb_json_len(rb_json_get(doc, "global options")), 0);
    const rb_json_t *job = rb_json_at(rb_json_get(doc, "jobs"), 0);
    assert_string_equal(rb_json_str(rb_json_get(job, "jobname")), "p/j");
    const rb_json_t *opts = rb_json_get(job, "job options");
    assert_string_equal(rb_json_str(rb_json_get(opts, "name")), "j");
    assert_string_equal(rb_json_str(rb_json_get(opts, "rw")), "randread");
    assert_string_equal(rb_json_str(rb_json_get(opts, "iodepth")), "8");
    const rb_json_t *rd = rb_json_get(job, "read");
    assert_int_equal((uint64_t)s_num(rd, "io_kbytes"), 20);
    assert_int_equal((uint64_t)s_num(rd, "bw"), 7); /* 6826.7 B/s in KiB/s, rounded */
    assert_int_equal((uint64_t)s_num(rd, "runtime"), 3000);
    const rb_json_t *pct = rb_json_get(rb_json_get(rd, "lat_ns"), "percentile");
    assert_int_equal(rb_json_len(pct), 17);
    for (size_t i = 0; i < 17; i++)
        assert_string_equal(rb_json_key_at(pct, i), s_fio_pcts[i]);
    assert_int_equal((uint64_t)s_num(pct, "99.990000"), 3000000000ULL);
    /* no slat taken, no writes: N 0 and nothing more, as fio */
    const rb_json_t *slat = rb_json_get(rd, "slat_ns");
    assert_int_equal((uint64_t)s_num(slat, "N"), 0);
    assert_null(rb_json_get(slat, "percentile"));
    assert_int_equal((uint64_t)s_num(rb_json_get(job, "write"), "runtime"), 0);
    assert_null(rb_json_get(rb_json_get(rb_json_get(job, "write"), "clat_ns"), "percentile"));
    rb_json_free(&doc);
    free(fx.lats);
}

/* fio's latency shares: 999 ns under "1000" ns, 1000 and 1999 ns under
 * "2" us, 2.5 ms under "4" ms, 3 s at ">=2000" ms. */
static void test_latency_shares(void **state)
{
    (void)state;
    fixture_t fx;
    s_fixture(&fx);
    rb_json_t *doc = s_render(&fx, 0);
    const rb_json_t *job = rb_json_at(rb_json_get(doc, "jobs"), 0);
    const rb_json_t *ns = rb_json_get(job, "latency_ns"), *us = rb_json_get(job, "latency_us");
    const rb_json_t *ms = rb_json_get(job, "latency_ms");
    assert_int_equal(rb_json_len(ns), 10);
    assert_int_equal(rb_json_len(us), 10);
    assert_int_equal(rb_json_len(ms), 12);
    assert_float_equal(s_num(ns, "1000"), 20, 1e-9);
    assert_float_equal(s_num(ns, "750"), 0, 1e-9);
    assert_float_equal(s_num(us, "2"), 40, 1e-9);
    assert_float_equal(s_num(ms, "4"), 20, 1e-9);
    assert_float_equal(s_num(ms, ">=2000"), 20, 1e-9);
    assert_string_equal(rb_json_key_at(ms, 11), ">=2000");
    rb_json_free(&doc);
    free(fx.lats);
}

/* fio-json+: the bins of every latency with IOs, each bucket's midpoint
 * within min and max, adding up to N; a key of fio's own layout. */
static void test_bins(void **state)
{
    (void)state;
    fixture_t fx;
    s_fixture(&fx);
    rb_json_t *doc = s_render(&fx, 1);
    const rb_json_t *rd = rb_json_get(rb_json_at(rb_json_get(doc, "jobs"), 0), "read");
    /* every clat is 1001 ns: bucket [1000, 1008), midpoint 1004, brought to 1001 */
    const rb_json_t *cb = rb_json_get(rb_json_get(rd, "clat_ns"), "bins");
    assert_int_equal(rb_json_len(cb), 1);
    assert_int_equal((uint64_t)s_num(cb, "1001"), 5);
    const rb_json_t *lb = rb_json_get(rb_json_get(rd, "lat_ns"), "bins");
    double sum = 0;
    for (size_t i = 0; i < rb_json_len(lb); i++) {
        unsigned long long v = strtoull(rb_json_key_at(lb, i), NULL, 10);
        assert_true(v >= 999 && v <= 3000000000ULL);
        sum += rb_json_num(rb_json_at(lb, i), 0);
    }
    assert_float_equal(sum, 5, 0);
    /* 1999 ns: [1984, 2000), midpoint 1992, as fio's plat_idx_to_val gives it */
    assert_int_equal((uint64_t)s_num(lb, "1992"), 1);
    assert_null(rb_json_get(rb_json_get(rd, "slat_ns"), "bins"));
    rb_json_free(&doc);
    free(fx.lats);
}

/* client_stats: the node's entry from its summary (fio's keys of the
 * percentiles it has, its hostname), then All clients from the phase. */
static void test_clients(void **state)
{
    (void)state;
    fixture_t fx;
    s_fixture(&fx);
    rb_json_t *doc = s_render(&fx, 0);
    const rb_json_t *cs = rb_json_get(doc, "client_stats");
    assert_int_equal(rb_json_len(cs), 2);
    const rb_json_t *n = rb_json_at(cs, 0), *all = rb_json_at(cs, 1);
    assert_string_equal(rb_json_str(rb_json_get(n, "jobname")), "p");
    assert_string_equal(rb_json_str(rb_json_get(n, "hostname")), "n1");
    assert_string_equal(rb_json_str(rb_json_get(rb_json_get(n, "rackbench"), "host")), "host1");
    const rb_json_t *lat = rb_json_get(rb_json_get(n, "read"), "lat_ns");
    assert_int_equal((uint64_t)s_num(lat, "N"), 5);
    assert_int_equal((uint64_t)s_num(rb_json_get(lat, "percentile"), "50.000000"), 1992);
    assert_int_equal(rb_json_len(rb_json_get(lat, "percentile")), 4);
    assert_int_equal((uint64_t)s_num(rb_json_get(rb_json_get(n, "read"), "clat_ns"), "N"), 0);
    assert_string_equal(rb_json_str(rb_json_get(all, "jobname")), "All clients");
    assert_int_equal((uint64_t)s_num(rb_json_get(rb_json_get(all, "read"), "clat_ns"), "N"), 5);
    assert_float_equal(s_num(rb_json_get(all, "read"), "bw_agg"), 100, 1e-9);
    rb_json_free(&doc);
    free(fx.lats);
}

/* One row of a CSV file of schema: the columns named in sets ("t_s=1",
 * ...), the others empty. */
static void s_csv_row(FILE *f, const rb_csv_schema_t *schema, const char *const *sets, size_t nsets)
{
    for (uint32_t c = 0; c < schema->ncols; c++) {
        const char *v = "";
        size_t len = strlen(schema->names[c]);
        for (size_t i = 0; i < nsets; i++)
            if (strncmp(sets[i], schema->names[c], len) == 0 && sets[i][len] == '=')
                v = sets[i] + len + 1;
        fprintf(f, "%s%s", c ? "," : "", v);
    }
    fputc('\n', f);
}

/* A new folder dir (a mkdtemp template) with schema's file, its header
 * written, open at path for the rows. */
static FILE *s_csv_new(char *dir, const rb_csv_schema_t *schema, char *path, size_t len)
{
    assert_non_null(mkdtemp(dir));
    snprintf(path, len, "%s/%s", dir, schema->file);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(rb_csv_header(schema, f), 0);
    return f;
}

/* usr_cpu and sys_cpu: the means of the host rows of the entry's phase
 * (another phase's left out); disk_util: per node and device, IOs as rate
 * x time, in_queue as depth x time in ms, util the busy share of the time. */
static void test_telemetry(void **state)
{
    (void)state;
    char dir[] = "/tmp/rb-test-fiojson.XXXXXX", path[64];
    FILE *f = s_csv_new(dir, &rb_csv_telemetry, path, sizeof path);
    const char *h1[] = {"t_s=1", "phase=p", "node=n1", "kind=host", "cpu_user=10", "cpu_system=4"};
    const char *h2[] = {"t_s=2", "phase=p", "node=n1", "kind=host", "cpu_user=20", "cpu_system=6"};
    const char *hx[] = {"t_s=1", "phase=q", "node=n1", "kind=host", "cpu_user=90", "cpu_system=9"};
    const char *d1[] = {"t_s=1",       "phase=p",    "node=n1",     "kind=dev",     "name=sda",
                        "rd_iops=100", "wr_iops=10", "util_pct=50", "queue_depth=2"};
    const char *d2[] = {"t_s=2",       "phase=p",    "node=n1",      "kind=dev",     "name=sda",
                        "rd_iops=300", "wr_iops=30", "util_pct=100", "queue_depth=4"};
    s_csv_row(f, &rb_csv_telemetry, h1, 6);
    s_csv_row(f, &rb_csv_telemetry, d1, 9);
    s_csv_row(f, &rb_csv_telemetry, hx, 6);
    s_csv_row(f, &rb_csv_telemetry, h2, 6);
    s_csv_row(f, &rb_csv_telemetry, d2, 9);
    assert_int_equal(fclose(f), 0);
    fixture_t fx;
    s_fixture(&fx);
    rb_json_t *doc = s_render_dir(&fx, dir, 0);
    const rb_json_t *job = rb_json_at(rb_json_get(doc, "jobs"), 0);
    assert_float_equal(s_num(job, "usr_cpu"), 15, 1e-9);
    assert_float_equal(s_num(job, "sys_cpu"), 5, 1e-9);
    const rb_json_t *node = rb_json_at(rb_json_get(doc, "client_stats"), 0);
    assert_float_equal(s_num(node, "usr_cpu"), 15, 1e-9);
    assert_float_equal(s_num(node, "sys_cpu"), 5, 1e-9);
    const rb_json_t *du = rb_json_get(doc, "disk_util");
    assert_int_equal(rb_json_len(du), 1);
    const rb_json_t *sda = rb_json_at(du, 0);
    assert_string_equal(rb_json_str(rb_json_get(sda, "name")), "sda");
    assert_string_equal(rb_json_str(rb_json_get(rb_json_get(sda, "rackbench"), "node")), "n1");
    assert_int_equal((uint64_t)s_num(sda, "read_ios"), 400);
    assert_int_equal((uint64_t)s_num(sda, "write_ios"), 40);
    assert_int_equal((uint64_t)s_num(sda, "in_queue"), 6000);
    assert_float_equal(s_num(sda, "util"), 75, 1e-9);
    rb_json_free(&doc);
    free(fx.lats);
    unlink(path);
    rmdir(dir);
}

static char *s_slurp(const char *dir, const char *name)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("no %s", name);
    static char buf[512];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    unlink(path);
    return buf;
}

/* fio's logs: log_avg_msec's window sums the intervals ending in it (the
 * entry at the last one's end), a line per direction; log_unix_epoch's
 * times; per_job_logs=0 gives one file that the jobs of a prefix share,
 * one after the other; a bare write_lat_log is named after its job and
 * holds the ops-weighted mean of the intervals' medians, in ns. */
static void test_logs(void **state)
{
    (void)state;
    char dir[] = "/tmp/rb-test-fiolog.XXXXXX", path[64];
    FILE *f = s_csv_new(dir, &rb_csv_samples, path, sizeof path);
    const char *a1[] = {"t_s=1.000",
                        "t_utc_ns=1700000001000000000",
                        "phase=p",
                        "node=n1",
                        "job=a",
                        "interval_s=1",
                        "read_bytes=102400",
                        "read_ops=25",
                        "bytes=102400",
                        "ops=25"};
    const char *a2[] = {"t_s=2.000",
                        "t_utc_ns=1700000002000000000",
                        "phase=p",
                        "node=n1",
                        "job=a",
                        "interval_s=1",
                        "read_bytes=307200",
                        "read_ops=75",
                        "bytes=307200",
                        "ops=75"};
    const char *a3[] = {"t_s=3.000",
                        "t_utc_ns=1700000003000000000",
                        "phase=p",
                        "node=n1",
                        "job=a",
                        "interval_s=1",
                        "read_bytes=51200",
                        "read_ops=10",
                        "write_bytes=10240",
                        "write_ops=2",
                        "bytes=61440",
                        "ops=12"};
    const char *b1[] = {"t_s=1.000",
                        "t_utc_ns=1700000001000000000",
                        "phase=p",
                        "node=n1",
                        "job=b",
                        "interval_s=1",
                        "write_bytes=2097152",
                        "write_ops=512",
                        "write_lat_p50_us=100",
                        "bytes=2097152",
                        "ops=512"};
    const char *b2[] = {"t_s=2.000",
                        "t_utc_ns=1700000002000000000",
                        "phase=p",
                        "node=n1",
                        "job=b",
                        "interval_s=1",
                        "write_bytes=1048576",
                        "write_ops=256",
                        "write_lat_p50_us=400",
                        "bytes=1048576",
                        "ops=256"};
    s_csv_row(f, &rb_csv_samples, a1, 10);
    s_csv_row(f, &rb_csv_samples, b1, 11);
    s_csv_row(f, &rb_csv_samples, a2, 10);
    s_csv_row(f, &rb_csv_samples, b2, 11);
    s_csv_row(f, &rb_csv_samples, a3, 12);
    assert_int_equal(fclose(f), 0);
    /* b's latency, as the coordinator writes it at ingest: a sync engine's
     * lat and clat of its writes, no slat */
    snprintf(path, sizeof path, "%s/%s", dir, rb_csv_latency.file);
    assert_non_null(f = fopen(path, "w"));
    assert_int_equal(rb_csv_header(&rb_csv_latency, f), 0);
    static rb_hist_t lat[2], clat[2];
    for (int i = 0; i < 2; i++) {
        rb_hist_init(&lat[i]);
        rb_hist_init(&clat[i]);
    }
    for (int k = 0; k < 3; k++) {
        rb_hist_record(&lat[0], 100000);
        rb_hist_record(&clat[0], 90000);
    }
    rb_hist_record(&lat[0], 130);
    rb_hist_record(&clat[0], 100);
    for (int k = 0; k < 2; k++) {
        rb_hist_record(&lat[1], 400000);
        rb_hist_record(&clat[1], 390000);
    }
    for (int i = 0; i < 2; i++) {
        rb_job_stat_t js = {0};
        js.lat[RB_DIR_WRITE][RB_LAT_LAT] = &lat[i];
        js.lat[RB_DIR_WRITE][RB_LAT_CLAT] = &clat[i];
        rb_csv_latency_rows(f, i + 1.0, 1700000001000000000ull + i * 1000000000ull, "p", "n1", "b",
                            1.0, &js);
    }
    assert_int_equal(fclose(f), 0);
    const char *text = "[global]\nsize=1M\nper_job_logs=0\nlog_avg_msec=2000\nwrite_bw_log=x\n"
                       "[a]\n[b]\nwrite_lat_log\nlog_unix_epoch=1\nwrite_hist_log=h\n"
                       "log_hist_msec=1000\nlog_hist_coarseness=6\n";
    rb_plan_t *plan = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    assert_int_equal(rb_plan_parse(text, strlen(text), "t.ini", &plan, &err), 0);
    assert_int_equal(rb_fiolog_write(plan, dir, &err), 0);
    assert_string_equal(s_slurp(dir, "x_bw.n1.log"), "2000, 200, 0, 0, 0\n"
                                                     "3000, 50, 0, 0, 0\n"
                                                     "3000, 10, 1, 0, 0\n"
                                                     "1700000002000, 1536, 1, 0, 0\n");
    /* the window's mean: its IOs' latencies added up over their count */
    assert_string_equal(s_slurp(dir, "b_lat.n1.log"), "1700000002000, 183355, 1, 0, 0\n");
    assert_string_equal(s_slurp(dir, "b_clat.n1.log"), "1700000002000, 175017, 1, 0, 0\n");
    assert_string_equal(s_slurp(dir, "b_slat.n1.log"), ""); /* as fio's of a sync engine */
    /* the histograms: an entry per interval (log_hist_msec=1000), 1856 / 64
     * columns after time, direction and block size; 100 ns in fio's bin 100,
     * 90 us in 704 + 23 (2^16 + 23 x 2^10), 390 us in 832 + 31 */
    char want[2][512];
    for (int i = 0; i < 2; i++) {
        int n = snprintf(want[i], sizeof want[i], "170000000%d000, 1, 4096", i + 1);
        for (unsigned c = 0; c < RB_FIOLOG_BINS / 64; c++) {
            unsigned v =
                i == 0 ? (c == 100 / 64) + 3 * (c == 727 / 64) : 2 * (c == (832 + 31) / 64);
            n += snprintf(want[i] + n, sizeof want[i] - (size_t)n, ", %u", v);
        }
    }
    char lines[1024];
    snprintf(lines, sizeof lines, "%s\n%s\n", want[0], want[1]);
    assert_string_equal(s_slurp(dir, "h_clat_hist.n1.log"), lines);
    /* log_max_value: the window's largest IO; log_offset: fio's column, 0 */
    plan->logs[1].max_value = plan->logs[1].offset = true;
    assert_int_equal(rb_fiolog_write(plan, dir, &err), 0);
    assert_string_equal(s_slurp(dir, "b_lat.n1.log"), "1700000002000, 400000, 1, 0, 0, 0\n");
    assert_string_equal(s_slurp(dir, "b_clat.n1.log"), "1700000002000, 390000, 1, 0, 0, 0\n");
    s_slurp(dir, "b_slat.n1.log");
    s_slurp(dir, "h_clat_hist.n1.log");
    s_slurp(dir, "x_bw.n1.log");
    plan->logs[1].max_value = plan->logs[1].offset = false;
    /* with per_job_logs, each job's number is in its name */
    plan->logs[0].per_job = plan->logs[1].per_job = true;
    plan->logs[0].avg_ms = 0;
    assert_int_equal(rb_fiolog_write(plan, dir, &err), 0);
    assert_string_equal(s_slurp(dir, "x_bw.1.n1.log"), "1000, 100, 0, 0, 0\n"
                                                       "2000, 300, 0, 0, 0\n"
                                                       "3000, 50, 0, 0, 0\n"
                                                       "3000, 10, 1, 0, 0\n");
    s_slurp(dir, "x_bw.2.n1.log");
    s_slurp(dir, "b_lat.2.n1.log");
    s_slurp(dir, "b_clat.2.n1.log");
    s_slurp(dir, "b_slat.2.n1.log");
    s_slurp(dir, "h_clat_hist.2.n1.log");
    rb_plan_destroy(&plan);
    unlink(path);
    snprintf(path, sizeof path, "%s/%s", dir, rb_csv_samples.file);
    unlink(path);
    assert_int_equal(rmdir(dir), 0);
}

/* fio's clat bin of a value (stat.c's plat_val_to_idx, as its HOWTO and
 * source describe it): below 128 ns the value itself; above, 64 bins per
 * power of two, the group after the value's highest bit; the last bin
 * holds every value beyond fio's 29 groups. */
static unsigned s_fio_bin(uint64_t v)
{
    unsigned msb = v ? 63u - (unsigned)__builtin_clzll(v) : 0;
    if (msb <= 6)
        return (unsigned)v;
    unsigned error_bits = msb - 6;
    unsigned idx = ((error_bits + 1) << 6) + (unsigned)((v >> error_bits) & 63);
    return idx < RB_FIOLOG_BINS - 1 ? idx : RB_FIOLOG_BINS - 1;
}

/* rackbench's histogram bucket of a value is fio's bin of it, over every
 * group's edges and far beyond fio's last bin. */
static void test_fiolog_bins(void **state)
{
    (void)state;
    for (uint64_t v = 0; v < 4096; v++)
        assert_int_equal(rb_fiolog_bin(rb_hist_index(v)), s_fio_bin(v));
    for (unsigned b = 7; b < 60; b++)
        for (int64_t d = -3; d <= 3; d++) {
            uint64_t v = (1ull << b) + (uint64_t)d;
            assert_int_equal(rb_fiolog_bin(rb_hist_index(v)), s_fio_bin(v));
            v = (1ull << b) + (1ull << b) / 3;
            assert_int_equal(rb_fiolog_bin(rb_hist_index(v)), s_fio_bin(v));
        }
    assert_int_equal(rb_fiolog_bin(RB_HIST_NBUCKETS - 1), RB_FIOLOG_BINS - 1);
    assert_int_equal(s_fio_bin(UINT64_MAX), RB_FIOLOG_BINS - 1);
}

/* --output-format's list: fio's comma list, each name a row of the
 * reporter table; an unknown or empty name is named with the valid ones. */
static void test_format_list(void **state)
{
    (void)state;
    const rb_reporter_t *out[4];
    uint32_t n = 0;
    rb_err_t err;
    rb_err_clear(&err);
    assert_int_equal(rb_reporter_list("fio-json+,text", out, 4, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_string_equal(out[0]->name, "fio-json+");
    assert_null(out[0]->file); /* printed only */
    assert_string_equal(out[1]->name, "text");
    assert_string_equal(rb_reporter_find("fio-json")->file, "fio.json");
    assert_int_equal(rb_reporter_list("json,xml", out, 4, &n, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "unknown format 'xml'"));
    assert_non_null(strstr(err.msg, "text, json, csv, html, fio-json or fio-json+"));
    rb_err_clear(&err);
    assert_int_equal(rb_reporter_list("text,", out, 4, &n, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "unknown format ''"));
    rb_err_clear(&err);
    assert_int_equal(rb_reporter_list("text,text,text", out, 2, &n, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "at most 2"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape),       cmocka_unit_test(test_latency_shares),
        cmocka_unit_test(test_bins),        cmocka_unit_test(test_clients),
        cmocka_unit_test(test_format_list), cmocka_unit_test(test_telemetry),
        cmocka_unit_test(test_logs),        cmocka_unit_test(test_fiolog_bins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
