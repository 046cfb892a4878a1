/* The column tables of samples.csv and telemetry.csv (rb_csv): the header
 * lines they build are the ones the documentation lists, a header line maps
 * to the tables' columns whatever its order, and the rows the writers print
 * read back through the run folder's readers (rb_result.h). */
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

#include "rb_test.h"

#include "rb_csv.h"
#include "rb_hist.h"
#include "rb_result.h"

/* The header lines as docs/metrics.md ("Samples (samples.csv)"),
 * docs/telemetry.md (the table of telemetry.csv's columns) and
 * docs/report-schema.md ("fio's logs": latency.csv) list them, in their
 * order. */
#define DOC_SAMPLES_HEADER                                                                         \
    "t_s,t_utc_ns,phase,node,rack,job,interval_s,bytes,ops,errors,bw,iops,lat_p50_us,lat_p99_us,"  \
    "lat_max_us,read_bytes,read_ops,write_bytes,write_ops,read_lat_p50_us,read_lat_p99_us,"        \
    "write_lat_p50_us,write_lat_p99_us\n"
#define DOC_TELEMETRY_HEADER                                                                       \
    "t_s,t_utc_ns,phase,node,kind,name,parent,member,rd_bps,wr_bps,rd_iops,wr_iops,util_pct,"      \
    "queue_depth,"                                                                                 \
    "await_ms,rd_bytes,wr_bytes,rx_bps,tx_bps,speed_mbps,cpu_user,cpu_system,cpu_iowait,"          \
    "cpu_idle,cpu_irq,ncpu,load1,ctxt_per_s,cached,dirty,writeback\n"
#define DOC_LATENCY_HEADER                                                                         \
    "t_s,t_utc_ns,phase,node,job,interval_s,dir,kind,ops,sum_ns,max_ns,buckets\n"

/* schema's header line, as rb_csv_header writes it (caller frees). */
static char *s_header(const rb_csv_schema_t *schema)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(rb_csv_header(schema, f), 0);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void test_headers_match_docs(void **state)
{
    (void)state;
    char *smp = s_header(&rb_csv_samples);
    char *tel = s_header(&rb_csv_telemetry);
    assert_string_equal(smp, DOC_SAMPLES_HEADER);
    assert_string_equal(tel, DOC_TELEMETRY_HEADER);
    char *lat = s_header(&rb_csv_latency);
    assert_string_equal(lat, DOC_LATENCY_HEADER);
    assert_string_equal(rb_csv_latency.file, "latency.csv");
    for (uint32_t c = 0; c < rb_csv_latency.ncols; c++)
        assert_true(rb_csv_latency.docs[c] && rb_csv_latency.docs[c][0]);
    assert_int_equal(rb_csv_index(lat, "buckets"), RB_CSV_LAT_BUCKETS);
    free(lat);
    assert_string_equal(rb_csv_samples.file, "samples.csv");
    assert_string_equal(rb_csv_telemetry.file, "telemetry.csv");
    assert_int_equal(rb_csv_samples.ncols, RB_CSV_SMP_NCOLS);
    assert_int_equal(rb_csv_telemetry.ncols, RB_CSV_TEL_NCOLS);
    /* every column carries its meaning */
    for (uint32_t c = 0; c < rb_csv_samples.ncols; c++)
        assert_true(rb_csv_samples.docs[c] && rb_csv_samples.docs[c][0]);
    for (uint32_t c = 0; c < rb_csv_telemetry.ncols; c++)
        assert_true(rb_csv_telemetry.docs[c] && rb_csv_telemetry.docs[c][0]);
    /* the enum members are the places in the header */
    assert_int_equal(rb_csv_index(smp, "bytes"), RB_CSV_SMP_BYTES);
    assert_int_equal(rb_csv_index(smp, "lat_max_us"), RB_CSV_SMP_LAT_MAX_US);
    assert_int_equal(rb_csv_index(tel, "util_pct"), RB_CSV_TEL_UTIL_PCT);
    assert_int_equal(rb_csv_index(tel, "writeback"), RB_CSV_TEL_WRITEBACK);
    free(smp);
    free(tel);
}

/* A header write that fails says so. */
static void test_header_write_error(void **state)
{
    (void)state;
    FILE *f = fopen("/dev/full", "w");
    if (!f)
        rb_skip("no /dev/full to write to");
    setvbuf(f, NULL, _IONBF, 0);
    assert_int_equal(rb_csv_header(&rb_csv_samples, f), -EIO);
    fclose(f);
}

static void test_index(void **state)
{
    (void)state;
    assert_int_equal(rb_csv_index("a,b,c", "a"), 0);
    assert_int_equal(rb_csv_index("a,b,c", "c"), 2);
    assert_int_equal(rb_csv_index("a,b,c\n", "c"), 2);
    assert_int_equal(rb_csv_index("a,b,c\r\n", "c"), 2);
    assert_int_equal(rb_csv_index("a,b,c", "d"), -ENOENT);
    /* a name is a whole field, not a prefix or a part of one */
    assert_int_equal(rb_csv_index("bytes_x,bytes", "bytes"), 1);
    assert_int_equal(rb_csv_index("rd_bytes,wr_bytes", "bytes"), -ENOENT);
    assert_int_equal(rb_csv_index("t_s,phase", "t"), -ENOENT);
    assert_int_equal(rb_csv_index("", "t_s"), -ENOENT);
}

static void test_map_reordered_missing_unknown(void **state)
{
    (void)state;
    int idx[RB_CSV_SMP_NCOLS];
    /* the file's own order maps one to one */
    char *smp = s_header(&rb_csv_samples);
    assert_int_equal(rb_csv_map(&rb_csv_samples, smp, idx), RB_CSV_SMP_NCOLS);
    for (int c = 0; c < RB_CSV_SMP_NCOLS; c++)
        assert_int_equal(idx[c], c);
    free(smp);

    /* reordered, "ops" missing, an unknown "extra" column in between; no
     * t_utc_ns, as in files from before it */
    const char *hdr = "node,bytes,extra,t_s,phase,rack,job,interval_s,errors,bw,iops,lat_p50_us,"
                      "lat_p99_us,lat_max_us\n";
    assert_int_equal(rb_csv_map(&rb_csv_samples, hdr, idx), RB_CSV_SMP_NCOLS - 10);
    assert_int_equal(idx[RB_CSV_SMP_T_UTC_NS], -1);
    assert_int_equal(idx[RB_CSV_SMP_NODE], 0);
    assert_int_equal(idx[RB_CSV_SMP_BYTES], 1);
    assert_int_equal(idx[RB_CSV_SMP_T_S], 3);
    assert_int_equal(idx[RB_CSV_SMP_PHASE], 4);
    assert_int_equal(idx[RB_CSV_SMP_OPS], -1);
    assert_int_equal(idx[RB_CSV_SMP_LAT_MAX_US], 13);

    /* nothing known at all */
    int tidx[RB_CSV_TEL_NCOLS];
    assert_int_equal(rb_csv_map(&rb_csv_telemetry, "x,y,z", tidx), 0);
    for (int c = 0; c < RB_CSV_TEL_NCOLS; c++)
        assert_int_equal(tidx[c], -1);
}

/* A temporary run folder under the build tree. */
static void s_dir(char *dir, size_t len, const char *tag)
{
    mkdir(RB_TEST_TMP, 0755);
    snprintf(dir, len, "%s/%s-%d", RB_TEST_TMP, tag, (int)getpid());
    mkdir(dir, 0755);
}

static void s_rmdir(const char *dir, const char *file)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    unlink(path);
    rmdir(dir);
}

/* Splits line (its newline cut) at the commas into fld; the field count. */
static int s_split(char *line, char **fld, int max)
{
    line[strcspn(line, "\r\n")] = '\0';
    int nf = 0;
    for (char *p = line; nf < max;) {
        fld[nf++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    return nf;
}

/* Rows of two nodes over three 1 s intervals, the last one 0.8 s long,
 * read back through rb_result_samples_series and rb_result_samples_values. */
static void test_samples_round_trip(void **state)
{
    (void)state;
    char dir[4096], path[4200];
    s_dir(dir, sizeof dir, "samples");
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(rb_csv_header(&rb_csv_samples, f), 0);
    static rb_hist_t h;
    rb_hist_init(&h);
    rb_hist_record(&h, 5000); /* 5 us */
    const double t[3] = {1.0, 2.0, 2.8}, iv[3] = {1.0, 1.0, 0.8};
    for (int k = 0; k < 3; k++) {
        for (int n = 0; n < 2; n++) {
            rb_job_stat_t js = {.bytes = (uint64_t)(1000 * (k + 1) + n),
                                .ops = (uint64_t)(10 * (k + 1) + n),
                                .errors = (uint64_t)n,
                                .hist = &h};
            rb_csv_samples_row(f, t[k], 0, "write", n ? "n2" : "n1", "r1", "j1", iv[k], &js);
        }
        /* another phase's row is not counted */
        rb_job_stat_t other = {.bytes = 777777, .ops = 7};
        rb_csv_samples_row(f, t[k], 0, "read", "n1", "r1", "j1", iv[k], &other);
    }
    assert_int_equal(fclose(f), 0);

    double *bytes, *ops, *secs;
    uint32_t n;
    assert_int_equal(rb_result_samples_series(dir, "write", 1.0, &bytes, &ops, &secs, &n), 0);
    assert_int_equal(n, 3);
    for (int k = 0; k < 3; k++) {
        assert_true(bytes[k] == 2.0 * 1000 * (k + 1) + 1);
        assert_true(ops[k] == 2.0 * 10 * (k + 1) + 1);
        assert_true(secs[k] == iv[k]);
    }
    free(bytes);
    free(ops);
    free(secs);

    double *v;
    assert_int_equal(rb_result_samples_values(dir, "write", "bytes", &v, &n), 0);
    assert_int_equal(n, 6);
    assert_true(v[0] == 1000 && v[1] == 1001 && v[4] == 3000 && v[5] == 3001);
    free(v);
    assert_int_equal(rb_result_samples_values(dir, "write", "errors", &v, &n), 0);
    assert_int_equal(n, 6);
    assert_true(v[0] == 0 && v[1] == 1);
    free(v);
    /* bw is bytes over the interval, printed without decimals */
    assert_int_equal(rb_result_samples_values(dir, "write", "bw", &v, &n), 0);
    assert_int_equal(n, 6);
    assert_true(v[0] == 1000 && v[4] == 3750); /* 3000 / 0.8 */
    free(v);
    assert_int_equal(rb_result_samples_values(dir, "write", "lat_max_us", &v, &n), 0);
    assert_int_equal(n, 6);
    assert_true(v[0] == 5.0);
    free(v);
    assert_int_equal(rb_result_samples_values(dir, "read", "ops", &v, &n), 0);
    assert_int_equal(n, 3);
    assert_true(v[0] == 7);
    free(v);
    assert_int_equal(rb_result_samples_values(dir, "write", "no_such_column", &v, &n), -ENOENT);
    assert_null(v);

    /* the same rows with the columns in another order, one column this
     * build does not know first, and a torn last line: read by the header,
     * the series is the same */
    char *out = NULL;
    size_t olen = 0;
    f = fopen(path, "r");
    assert_non_null(f);
    FILE *o = open_memstream(&out, &olen);
    char line[1024];
    for (int row = 0; fgets(line, sizeof line, f); row++) {
        char *fld[64];
        int nf = s_split(line, fld, 64);
        fprintf(o, "%s", row ? "42" : "t_wall_ns");
        for (int i = nf - 1; i >= 0; i--)
            fprintf(o, ",%s", fld[i]);
        fputc('\n', o);
    }
    fprintf(o, "43,1,2"); /* torn */
    fclose(f);
    fclose(o);
    f = fopen(path, "w");
    assert_non_null(f);
    fwrite(out, 1, olen, f);
    assert_int_equal(fclose(f), 0);
    free(out);
    assert_int_equal(rb_result_samples_series(dir, "write", 1.0, &bytes, &ops, &secs, &n), 0);
    assert_int_equal(n, 3);
    for (int k = 0; k < 3; k++) {
        assert_true(bytes[k] == 2.0 * 1000 * (k + 1) + 1);
        assert_true(secs[k] == iv[k]);
    }
    free(bytes);
    free(ops);
    free(secs);
    assert_int_equal(rb_result_samples_values(dir, "write", "bw", &v, &n), 0);
    assert_int_equal(n, 6);
    assert_true(v[0] == 1000 && v[4] == 3750);
    free(v);
    s_rmdir(dir, "samples.csv");
}

/* One host, two devices and one NIC, written and read back by the header's
 * names: every row has every column, the other kinds' ones empty. */
static void test_telemetry_round_trip(void **state)
{
    (void)state;
    static rb_telem_t t;
    memset(&t, 0, sizeof t);
    t.user_pm = 125;
    t.system_pm = 50;
    t.iowait_pm = 5;
    t.idle_pm = 800;
    t.irq_pm = 20;
    t.ncpu = 16;
    t.load1_m = 2500;
    t.ctxt_per_s = 12345;
    t.cached = 1u << 30;
    t.dirty = 4096;
    t.writeback = 8192;
    t.ndevs = 2;
    snprintf(t.devs[0].name, sizeof t.devs[0].name, "md0");
    snprintf(t.devs[1].name, sizeof t.devs[1].name, "sda");
    snprintf(t.devs[1].parent, sizeof t.devs[1].parent, "md0");
    t.devs[1].member = 1;
    t.devs[1].rd_bps = 100;
    t.devs[1].wr_bps = 200;
    t.devs[1].rd_iops = 3;
    t.devs[1].wr_iops = 4;
    t.devs[1].util_pm = 875;
    t.devs[1].qdepth_m = 1500;
    t.devs[1].await_us = 2250;
    t.devs[1].rd_bytes = 5000;
    t.devs[1].wr_bytes = 6000;
    t.nnics = 1;
    snprintf(t.nics[0].name, sizeof t.nics[0].name, "eth0");
    t.nics[0].rx_bps = 111;
    t.nics[0].tx_bps = 222;
    t.nics[0].speed_mbps = 25000;

    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(rb_csv_header(&rb_csv_telemetry, f), 0);
    rb_csv_telemetry_rows(f, 4.0004, 0, "write", "n1", &t);
    assert_int_equal(fclose(f), 0);

    char *save = NULL, *line = strtok_r(buf, "\n", &save);
    assert_non_null(line);
    int idx[RB_CSV_TEL_NCOLS];
    assert_int_equal(rb_csv_map(&rb_csv_telemetry, line, idx), RB_CSV_TEL_NCOLS);
    char *fld[RB_CSV_TEL_NCOLS + 4];
    const char *kinds[4] = {"host", "dev", "dev", "nic"};
    for (int r = 0; r < 4; r++) {
        line = strtok_r(NULL, "\n", &save);
        assert_non_null(line);
        assert_int_equal(s_split(line, fld, RB_CSV_TEL_NCOLS + 4), RB_CSV_TEL_NCOLS);
        assert_string_equal(fld[idx[RB_CSV_TEL_T_S]], "4.000");
        assert_string_equal(fld[idx[RB_CSV_TEL_PHASE]], "write");
        assert_string_equal(fld[idx[RB_CSV_TEL_NODE]], "n1");
        assert_string_equal(fld[idx[RB_CSV_TEL_KIND]], kinds[r]);
        if (r == 0) {
            assert_string_equal(fld[idx[RB_CSV_TEL_CPU_USER]], "12.5");
            assert_string_equal(fld[idx[RB_CSV_TEL_CPU_SYSTEM]], "5.0");
            assert_string_equal(fld[idx[RB_CSV_TEL_CPU_IOWAIT]], "0.5");
            assert_string_equal(fld[idx[RB_CSV_TEL_CPU_IDLE]], "80.0");
            assert_string_equal(fld[idx[RB_CSV_TEL_CPU_IRQ]], "2.0");
            assert_string_equal(fld[idx[RB_CSV_TEL_NCPU]], "16");
            assert_string_equal(fld[idx[RB_CSV_TEL_LOAD1]], "2.50");
            assert_string_equal(fld[idx[RB_CSV_TEL_CTXT_PER_S]], "12345");
            assert_string_equal(fld[idx[RB_CSV_TEL_CACHED]], "1073741824");
            assert_string_equal(fld[idx[RB_CSV_TEL_DIRTY]], "4096");
            assert_string_equal(fld[idx[RB_CSV_TEL_WRITEBACK]], "8192");
            assert_string_equal(fld[idx[RB_CSV_TEL_NAME]], "");
            assert_string_equal(fld[idx[RB_CSV_TEL_UTIL_PCT]], "");
            assert_string_equal(fld[idx[RB_CSV_TEL_RX_BPS]], "");
        } else if (r == 2) {
            assert_string_equal(fld[idx[RB_CSV_TEL_NAME]], "sda");
            assert_string_equal(fld[idx[RB_CSV_TEL_PARENT]], "md0");
            assert_string_equal(fld[idx[RB_CSV_TEL_MEMBER]], "1");
            assert_string_equal(fld[idx[RB_CSV_TEL_RD_BPS]], "100");
            assert_string_equal(fld[idx[RB_CSV_TEL_WR_BPS]], "200");
            assert_string_equal(fld[idx[RB_CSV_TEL_RD_IOPS]], "3");
            assert_string_equal(fld[idx[RB_CSV_TEL_WR_IOPS]], "4");
            assert_string_equal(fld[idx[RB_CSV_TEL_UTIL_PCT]], "87.5");
            assert_string_equal(fld[idx[RB_CSV_TEL_QUEUE_DEPTH]], "1.500");
            assert_string_equal(fld[idx[RB_CSV_TEL_AWAIT_MS]], "2.250");
            assert_string_equal(fld[idx[RB_CSV_TEL_RD_BYTES]], "5000");
            assert_string_equal(fld[idx[RB_CSV_TEL_WR_BYTES]], "6000");
            assert_string_equal(fld[idx[RB_CSV_TEL_CPU_USER]], "");
            assert_string_equal(fld[idx[RB_CSV_TEL_SPEED_MBPS]], "");
        } else if (r == 1) {
            assert_string_equal(fld[idx[RB_CSV_TEL_NAME]], "md0");
            assert_string_equal(fld[idx[RB_CSV_TEL_PARENT]], "");
            assert_string_equal(fld[idx[RB_CSV_TEL_MEMBER]], "0");
        } else {
            assert_string_equal(fld[idx[RB_CSV_TEL_NAME]], "eth0");
            assert_string_equal(fld[idx[RB_CSV_TEL_RX_BPS]], "111");
            assert_string_equal(fld[idx[RB_CSV_TEL_TX_BPS]], "222");
            assert_string_equal(fld[idx[RB_CSV_TEL_SPEED_MBPS]], "25000");
            assert_string_equal(fld[idx[RB_CSV_TEL_UTIL_PCT]], "");
            assert_string_equal(fld[idx[RB_CSV_TEL_CPU_USER]], "");
        }
    }
    assert_null(strtok_r(NULL, "\n", &save));
    free(buf);
}

static void test_time(void **state)
{
    (void)state;
    assert_true(rb_csv_time(1.0004) == 1.0);
    assert_true(rb_csv_time(2.0006) == 2.001);
    assert_true(rb_csv_time(0) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headers_match_docs),
        cmocka_unit_test(test_header_write_error),
        cmocka_unit_test(test_index),
        cmocka_unit_test(test_map_reordered_missing_unknown),
        cmocka_unit_test(test_samples_round_trip),
        cmocka_unit_test(test_telemetry_round_trip),
        cmocka_unit_test(test_time),
    };
    return rb_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
