/* Figures per direction, per node and on the wall clock (issue 18), on real
 * runs: a randrw rwmixread=70 phase of a known size splits its bytes and
 * IOPS between reads and writes as issued, each direction with its own
 * latency histograms (fio's lat, slat and clat: slat + clat = lat for the
 * async engines, no slat for sync); two nodes whose disks differ each get
 * their own latency in summary.json, report.txt and the csv export; and the
 * UTC times of summary.json, samples.csv and telemetry.csv fall between the
 * wall clock read before and after the run, in order. */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "it_util.h"
#include "rb_json.h"

#define KIB     4096.0
#define SIZE    (8.0 * 1024 * 1024) /* bytes of the mixed phase */
#define NOPS    (SIZE / KIB)
#define US_NS   1000.0
#define SLACKNS 2000.0 /* ns the _ns integers lose as JSON doubles, and then some */

typedef struct paths {
    char dir[4096], plan[4200], runs[4200], out[4200], err[4200], folder[4200], rep[4200];
} paths_t;

static void s_paths(paths_t *p, const char *name)
{
    snprintf(p->dir, sizeof p->dir, "%s", it_scratch(name));
    snprintf(p->plan, sizeof p->plan, "%s/plan.ini", p->dir);
    snprintf(p->runs, sizeof p->runs, "%s/runs", p->dir);
    snprintf(p->out, sizeof p->out, "%s/stdout", p->dir);
    snprintf(p->err, sizeof p->err, "%s/stderr", p->dir);
    snprintf(p->rep, sizeof p->rep, "%s/report.out", p->dir);
}

/* Runs p's plan on one local agent: its summary.json (p->folder the run's). */
static rb_json_t *s_run_local(paths_t *p)
{
    int code = it_sh(p->out, p->err, "'%s' run --local 1 --quiet --out '%s' '%s'",
                     it_bin("rackbench"), p->runs, p->plan);
    assert_int_equal(it_show_failure(code, p->err), 0);
    rb_json_t *j = it_summary(p->runs, p->folder, sizeof p->folder);
    assert_non_null(j);
    return j;
}

static uint64_t s_utc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The number at path (members by name, array entries by index, "."
 * between: so "p99.9" is read with rb_json_get). */
static double s_num(const rb_json_t *o, const char *path)
{
    const rb_json_t *v = rb_json_path(o, path);
    if (!v)
        fail_msg("summary.json lacks %s", path);
    return rb_json_num(v, NAN);
}

/* A latency object (lat_us, slat_us, clat_us) that is plausible: count
 * IOs, 0 < min <= p50 <= p99 <= p99.9 <= max. */
static void s_plausible(const rb_json_t *l, double count)
{
    assert_non_null(l);
    assert_float_equal(s_num(l, "count"), count, 0);
    double min = s_num(l, "min"), p50 = s_num(l, "p50"), p99 = s_num(l, "p99");
    double p999 = rb_json_num(rb_json_get(l, "p99.9"), NAN), max = s_num(l, "max");
    assert_true(min > 0 && min <= p50 && p50 <= p99 && p99 <= p999 && p999 <= max);
}

/* One direction of a phase or job: its ops are its histograms' counts; its
 * lat is plausible and so is clat; slat plausible too, or null for sync. */
static void s_check_dir(const rb_json_t *d, int async)
{
    double ops = s_num(d, "ops");
    assert_float_equal(s_num(d, "bytes"), ops * KIB, 0);
    s_plausible(rb_json_get(d, "lat_us"), ops);
    s_plausible(rb_json_get(d, "clat_us"), ops);
    assert_float_equal(s_num(d, "lat_hist.count"), ops, 0);
    double lat_mean = s_num(d, "lat_us.mean"), clat_mean = s_num(d, "clat_us.mean");
    assert_true(s_num(d, "clat_us.max") <= s_num(d, "lat_us.max"));
    if (!async) {
        /* fio's sync: submitted and completed in one call, clat is lat */
        assert_int_equal(rb_json_type(rb_json_get(d, "slat_us")), RB_JSON_NULL);
        assert_int_equal(rb_json_type(rb_json_get(d, "slat_hist")), RB_JSON_NULL);
        assert_float_equal(clat_mean, lat_mean, lat_mean * 1e-9);
        return;
    }
    const rb_json_t *slat = rb_json_get(d, "slat_us");
    s_plausible(slat, ops);
    assert_true(s_num(d, "slat_us.max") <= s_num(d, "lat_us.max"));
    assert_true(s_num(d, "slat_us.p50") <= s_num(d, "lat_us.p50"));
    assert_true(s_num(d, "clat_us.p50") <= s_num(d, "lat_us.p50") * 1.01);
    /* each IO's slat + clat is its lat: so are the means (the sums are exact) */
    assert_float_equal(s_num(d, "slat_us.mean") + clat_mean, lat_mean, lat_mean * 1e-6);
    assert_float_equal(s_num(d, "slat_hist.sum") + s_num(d, "clat_hist.sum"),
                       s_num(d, "lat_hist.sum"), s_num(d, "lat_hist.sum") * 1e-12);
}

/* The t_utc_ns column of a CSV file: every row's value within [lo, hi] and
 * its t_s from GO (go ns, 1 ms printing step) on the same clock. Rows seen. */
static int s_csv_utc(const char *path, uint64_t lo, uint64_t hi, double go)
{
    char *text = it_read(path);
    assert_non_null(text);
    assert_int_equal(strncmp(text, "t_s,t_utc_ns,", 13), 0);
    int rows = 0;
    for (char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        char *end;
        double t_s = strtod(line + 1, &end);
        assert_int_equal(*end, ',');
        uint64_t utc = strtoull(end + 1, &end, 10);
        assert_int_equal(*end, ',');
        assert_true(utc >= lo && utc <= hi);
        assert_true(fabs((double)utc - (go + t_s * 1e9)) < 1e6 + SLACKNS);
        rows++;
    }
    free(text);
    return rows;
}

/* The sum of the column called name over the rows of a CSV file. */
static double s_csv_sum(const char *path, const char *name)
{
    char *text = it_read(path);
    assert_non_null(text);
    int col = -1, c = 0;
    for (const char *p = text; *p && *p != '\n'; c++) {
        size_t n = strcspn(p, ",\n");
        if (n == strlen(name) && !strncmp(p, name, n))
            col = c;
        p += n + (p[n] == ',');
    }
    assert_true(col >= 0);
    double sum = 0;
    for (char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        const char *f = line + 1;
        for (int k = 0; k < col; k++)
            f = strchr(f, ',') + 1;
        sum += atof(f);
    }
    free(text);
    return sum;
}

/* A randrw rwmixread=70 phase of 8 MiB in 4 KiB IOs through engine at
 * iodepth qd; async: the engine queues IOs (slat taken). */
static void s_mixed(const char *engine, int qd, int async)
{
    paths_t p;
    char text[8192], name[64], path[4400];
    snprintf(name, sizeof name, "dirs-%s", engine);
    s_paths(&p, name);
    snprintf(text, sizeof text,
             "[global]\ndirectory=%s/data\nsample_interval=100ms\n"
             "[mix]\nrw=randrw\nrwmixread=70\nbs=4k\nsize=8m\ndirect=1\nioengine=%s\n"
             "iodepth=%d\n",
             p.dir, engine, qd);
    it_write(p.plan, text);
    uint64_t before = s_utc_now();
    rb_json_t *j = s_run_local(&p);
    uint64_t after = s_utc_now();
    const rb_json_t *ph = rb_json_path(j, "phases.0");

    /* the split: all bytes are reads or writes, about 70% reads, as issued */
    double rd = s_num(ph, "directions.read.bytes"), wr = s_num(ph, "directions.write.bytes");
    assert_float_equal(s_num(ph, "bytes"), SIZE, 0);
    assert_float_equal(rd + wr, SIZE, 0);
    assert_float_equal(s_num(ph, "directions.trim.ops"), 0, 0);
    assert_float_equal(rd, s_num(ph, "read_bytes"), 0);
    assert_float_equal(wr, s_num(ph, "write_bytes"), 0);
    double rops = s_num(ph, "directions.read.ops"), wops = s_num(ph, "directions.write.ops");
    assert_float_equal(rops + wops, NOPS, 0);
    assert_true(fabs(rops / NOPS - 0.70) < 0.05);
    /* IOPS and bandwidth apart, over the phase's window: they add up */
    double iops = s_num(ph, "iops"), window = s_num(ph, "window_s");
    assert_float_equal(s_num(ph, "directions.read.iops"), rops / window, iops * 1e-9);
    assert_float_equal(s_num(ph, "directions.read.iops") + s_num(ph, "directions.write.iops"), iops,
                       iops * 1e-9);
    assert_float_equal(s_num(ph, "directions.write.bw"), wr / window, wr / window * 1e-9);
    s_check_dir(rb_json_path(ph, "directions.read"), async);
    s_check_dir(rb_json_path(ph, "directions.write"), async);
    s_check_dir(rb_json_path(ph, "job_stats.0.directions.read"), async);
    /* the node's and the cluster's: the same split, latency from the same IOs */
    assert_float_equal(s_num(ph, "nodes.0.directions.read.ops"), rops, 0);
    assert_float_equal(s_num(ph, "nodes.0.directions.write.lat_us.count"), wops, 0);
    assert_float_equal(s_num(ph, "nodes.0.lat_us.count"), NOPS, 0);
    assert_float_equal(s_num(ph, "nodes.0.lat_us.p99"), s_num(ph, "lat_us.p99"), 0);
    assert_float_equal(s_num(ph, "cluster.directions.read.lat_us.p99"),
                       s_num(ph, "directions.read.lat_us.p99"), 0);
    assert_float_equal(s_num(ph, "racks.0.directions.write.ops"), wops, 0);

    /* wall clock: before <= GO <= first start <= last end <= after */
    double go = s_num(ph, "go_utc_ns"), first = s_num(ph, "first_start_utc_ns");
    double last = s_num(ph, "last_end_utc_ns");
    assert_true(go >= (double)before - SLACKNS && go <= first + SLACKNS);
    assert_true(first <= last && last <= (double)after + SLACKNS);
    assert_float_equal((last - first) / 1e9, window, 1e-5);
    const char *iso = rb_json_str(rb_json_get(ph, "go_utc"));
    assert_non_null(iso);
    assert_int_equal(strlen(iso), strlen("2026-12-02T05:15:29.123456789Z"));
    assert_int_equal(iso[strlen(iso) - 1], 'Z');
    snprintf(path, sizeof path, "%s/samples.csv", p.folder);
    assert_true(s_csv_utc(path, before, after, go) >= 1);
    /* its rows per direction add up to the phase's */
    assert_float_equal(s_csv_sum(path, "read_ops"), rops, 0);
    assert_float_equal(s_csv_sum(path, "write_bytes"), wr, 0);
    snprintf(path, sizeof path, "%s/telemetry.csv", p.folder);
    assert_true(s_csv_utc(path, before, after, go) >= 1);
    rb_json_free(&j);

    /* report.txt says it per direction, with slat and clat for async engines
     * (for sync, clat is lat: one line) */
    snprintf(path, sizeof path, "%s/report.txt", p.folder);
    char *txt = it_read(path);
    assert_non_null(txt);
    assert_non_null(strstr(txt, "\n  read                         "));
    assert_non_null(strstr(txt, "\n  write                        "));
    assert_true(!strstr(txt, "\n    slat ") == !async);
    assert_true(!strstr(txt, "\n    clat ") == !async);
    assert_non_null(strstr(txt, "\n    lat "));
    free(txt);
    it_rmtree(p.dir);
}

static void test_mixed_libaio(void **state)
{
    (void)state;
    s_mixed("libaio", 8, 1);
}

static void test_mixed_io_uring(void **state)
{
    (void)state;
    s_mixed("io_uring", 8, 1);
}

static void test_mixed_sync(void **state)
{
    (void)state;
    s_mixed("sync", 1, 0);
}

/* null queues at depth 8, but its submission reaches no kernel: no slat. */
static void test_mixed_null(void **state)
{
    (void)state;
    s_mixed("null", 8, 0);
}

/* The value of column col of the line of text that starts with prefix. */
static char *s_csv_field(const char *text, const char *prefix, int col, char *out, size_t len)
{
    const char *line = strstr(text, prefix);
    assert_non_null(line);
    for (int c = 0; c < col; c++) {
        line = strchr(line, ',');
        assert_non_null(line);
        line++;
    }
    size_t n = strcspn(line, ",\n");
    snprintf(out, len, "%.*s", (int)(n < len ? n : len - 1), line);
    return out;
}

/* Two nodes writing with O_SYNC, one on a disk file system, one on tmpfs:
 * each node's own latency (the disk's p50 far above the memory's), in
 * summary.json, report.txt and the csv export. */
static void test_node_latency(void **state)
{
    (void)state;
    paths_t p;
    char disk[4200], mem[4200], ep[4300], a1[9000], a2[9000];
    s_paths(&p, "dirs-nodes");
    snprintf(disk, sizeof disk, "%s/disk", p.dir);
    snprintf(mem, sizeof mem, "/dev/shm/rb-it-dirs-%d", (int)getpid());
    snprintf(ep, sizeof ep, "ipc://%s/coord.sock", p.dir);
    it_sh(NULL, NULL, "mkdir -p '%s' '%s'", disk, mem);
    it_write(p.plan, "[w]\nrw=write\nbs=4k\nsize=1m\nsync=1\n");
    int coord = it_sh_bg(p.out, p.err, "'%s' run --expect 2 --bind '%s' --wait %ds --out '%s' '%s'",
                         it_bin("rackbench"), ep, 60 * RB_TEST_TIME_SCALE, p.runs, p.plan);
    snprintf(a1, sizeof a1, "'%s' --coordinator '%s' --name disk --root '%s' --once --quiet",
             it_bin("rackbench-agent"), ep, disk);
    snprintf(a2, sizeof a2, "'%s' --coordinator '%s' --name mem --root '%s' --once --quiet",
             it_bin("rackbench-agent"), ep, mem);
    int pa = it_sh_bg(NULL, NULL, "%s", a1), pb = it_sh_bg(NULL, NULL, "%s", a2);
    int code = it_wait(coord);
    it_wait(pa);
    it_wait(pb);
    it_rmtree(mem);
    assert_int_equal(it_show_failure(code, p.err), 0);
    rb_json_t *j = it_summary(p.runs, p.folder, sizeof p.folder);
    assert_non_null(j);
    const rb_json_t *ph = rb_json_path(j, "phases.0"), *nd = NULL, *nm = NULL;
    for (size_t i = 0; i < rb_json_len(rb_json_get(ph, "nodes")); i++) {
        const rb_json_t *n = rb_json_at(rb_json_get(ph, "nodes"), i);
        const char *name = rb_json_str(rb_json_get(n, "name"));
        if (name && !strcmp(name, "disk"))
            nd = n;
        else if (name && !strcmp(name, "mem"))
            nm = n;
    }
    assert_non_null(nd);
    assert_non_null(nm);
    s_plausible(rb_json_get(nd, "lat_us"), 256);
    s_plausible(rb_json_get(nm, "lat_us"), 256);
    s_plausible(rb_json_path(nd, "directions.write.lat_us"), 256);
    assert_float_equal(s_num(nd, "directions.read.lat_us.count"), 0, 0);
    double pd = s_num(nd, "lat_us.p50"), pm = s_num(nm, "lat_us.p50");
    fprintf(stderr, "p50: disk %.1f us, tmpfs %.1f us; p99 %.1f / %.1f us\n", pd, pm,
            s_num(nd, "lat_us.p99"), s_num(nm, "lat_us.p99"));
    assert_true(pd > 3 * pm);
    /* the cluster's merged histogram lies between the nodes' own */
    double cmax = s_num(ph, "cluster.lat_us.max");
    assert_float_equal(cmax, fmax(s_num(nd, "lat_us.max"), s_num(nm, "lat_us.max")), 0);
    assert_float_equal(s_num(ph, "cluster.lat_us.count"), 512, 0);

    /* report.txt: the node's row ends with its p50, p99, p99.9 and max */
    char want[256], path[4400], cell[64];
    snprintf(want, sizeof want, "%8.1f %8.1f %8.1f %8.1f\n", s_num(nd, "lat_us.p50"),
             s_num(nd, "lat_us.p99"),
             rb_json_num(rb_json_get(rb_json_get(nd, "lat_us"), "p99.9"), NAN),
             s_num(nd, "lat_us.max"));
    snprintf(path, sizeof path, "%s/report.txt", p.folder);
    char *txt = it_read(path);
    assert_non_null(txt);
    const char *row = strstr(txt, "\nphase 1/"); /* the phase's rows, not the inventory's */
    assert_non_null(row);
    row = strstr(row, "\n  disk ");
    assert_non_null(row);
    assert_non_null(strstr(row, want));
    assert_true(strstr(row, want) < strchr(row + 1, '\n') + 1);
    free(txt);
    /* the csv export: lat_p50_us, lat_p99_us, lat_p99.9_us, lat_max_us */
    assert_int_equal(
        it_sh(p.rep, p.err, "'%s' report '%s' --format csv", it_bin("rackbench"), p.folder), 0);
    char *csv = it_read(p.rep);
    assert_non_null(csv);
    assert_non_null(strstr(csv, ",partial,lat_p50_us,lat_p99_us,lat_p99.9_us,lat_max_us,"));
    assert_float_equal(atof(s_csv_field(csv, "\nw,node,disk,", 13, cell, sizeof cell)),
                       s_num(nd, "lat_us.p99"), 1e-3);
    assert_float_equal(atof(s_csv_field(csv, "\nw,node,mem,", 12, cell, sizeof cell)),
                       s_num(nm, "lat_us.p50"), 1e-3);
    free(csv);
    rb_json_free(&j);
    it_rmtree(p.dir);
}

/* One node running two jobs in a phase: its latency is both jobs' IOs
 * together, as the phase's and its rack's are (a DONE of several jobs is
 * summed apart from the phase's histograms). */
static void test_node_latency_jobs(void **state)
{
    (void)state;
    paths_t p;
    char text[8192];
    s_paths(&p, "dirs-jobs");
    snprintf(text, sizeof text,
             "[global]\ndirectory=%s/data\nbs=4k\nioengine=sync\n"
             "[a]\nrw=write\nsize=256k\n[b]\nrw=write\nsize=128k\n",
             p.dir);
    it_write(p.plan, text);
    rb_json_t *j = s_run_local(&p);
    const rb_json_t *ph = rb_json_path(j, "phases.0");
    assert_float_equal(s_num(ph, "lat_us.count"), 96, 0);
    assert_float_equal(s_num(ph, "nodes.0.lat_us.count"), 96, 0);
    assert_float_equal(s_num(ph, "nodes.0.directions.write.lat_us.count"), 96, 0);
    const char *keys[] = {"p50", "p99", "max"};
    for (int i = 0; i < 3; i++) {
        char k[64], d[64];
        snprintf(k, sizeof k, "lat_us.%s", keys[i]);
        snprintf(d, sizeof d, "directions.write.lat_us.%s", keys[i]);
        double want = s_num(ph, k);
        assert_float_equal(s_num(rb_json_path(ph, "nodes.0"), k), want, 0);
        assert_float_equal(s_num(rb_json_path(ph, "racks.0"), k), want, 0);
        assert_float_equal(s_num(rb_json_path(ph, "nodes.0"), d), s_num(ph, d), 0);
    }
    rb_json_free(&j);
    it_rmtree(p.dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mixed_libaio), cmocka_unit_test(test_mixed_io_uring),
        cmocka_unit_test(test_mixed_sync),   cmocka_unit_test(test_mixed_null),
        cmocka_unit_test(test_node_latency), cmocka_unit_test(test_node_latency_jobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
