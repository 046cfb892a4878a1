/* Host telemetry: the rates computed from two snapshots of a fixture /proc
 * (one second apart: sda at 90% busy, its three md0 siblings at 60%), the walk
 * of /sys slaves, the imbalance judgement, and a check on this machine's own
 * /proc and /sys that the root's disk counted the bytes a write moved. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "rb_test.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rb_telemetry.h"
#include "rb_time.h"

#define FIX RB_TEL_FIXTURES
#define MiB (1024.0 * 1024.0)

static char s_proc[1024]; /* RB_TEST_TMP/proc: a link to t0/proc or t1/proc */

static void s_mkdirs(const char *path)
{
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    }
    mkdir(p, 0755);
}

static void s_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Points the proc root at snapshot "t0" or "t1": time passes. */
static void s_use(const char *snap)
{
    char target[1024];
    snprintf(target, sizeof target, "%s/%s/proc", FIX, snap);
    unlink(s_proc);
    assert_int_equal(symlink(target, s_proc), 0);
}

static rb_telemetry_t *s_new(void)
{
    rb_err_t err;
    rb_err_clear(&err);
    rb_telemetry_t *t = rb_telemetry_new(s_proc, FIX "/sys", NULL, 0, &err);
    assert_non_null(t);
    return t;
}

static const rb_telemetry_dev_t *s_dev(const rb_telemetry_snap_t *s, const char *name)
{
    for (uint32_t i = 0; i < s->ndevs; i++)
        if (strcmp(s->devs[i].info.name, name) == 0)
            return &s->devs[i];
    fail_msg("device %s not in the sample", name);
    return NULL;
}

static const rb_telemetry_nic_t *s_nic(const rb_telemetry_snap_t *s, const char *name)
{
    for (uint32_t i = 0; i < s->nnics; i++)
        if (strcmp(s->nics[i].name, name) == 0)
            return &s->nics[i];
    return NULL;
}

static void s_near(double got, double want)
{
    if (fabs(got - want) > 1e-9 * (fabs(want) + 1.0))
        fail_msg("got %.12g, want %.12g", got, want);
}

static void s_member(const rb_telemetry_t *t, uint32_t i, const char *name, const char *parent)
{
    const rb_telemetry_devinfo_t *d = rb_telemetry_dev(t, i);
    assert_non_null(d);
    assert_string_equal(d->name, name);
    assert_string_equal(d->parent, parent);
    assert_int_equal(d->role, RB_TEL_MEMBER);
}

static void test_slaves_walk(void **state)
{
    (void)state;
    rb_telemetry_t *t = s_new();
    rb_err_t err;
    rb_err_clear(&err);
    assert_int_equal(rb_telemetry_add_device(t, "md0", &err), 0);
    assert_int_equal(rb_telemetry_ndevs(t), 5);
    const rb_telemetry_devinfo_t *d = rb_telemetry_dev(t, 0);
    assert_string_equal(d->name, "md0");
    assert_string_equal(d->parent, "");
    assert_int_equal(d->role, RB_TEL_ROOT);
    assert_int_equal(d->partition, 0);
    s_member(t, 1, "sda", "md0");
    s_member(t, 2, "sdb", "md0");
    s_member(t, 3, "sdc", "md0");
    s_member(t, 4, "sdd", "md0");
    assert_null(rb_telemetry_dev(t, 5));

    /* tracked once, however often it is found */
    assert_int_equal(rb_telemetry_add_device(t, "md0", &err), 0);
    assert_int_equal(rb_telemetry_add_device(t, "sdb", &err), 0);
    assert_int_equal(rb_telemetry_ndevs(t), 5);
    assert_int_equal(rb_telemetry_dropped(t), 0);

    assert_int_equal(rb_telemetry_add_device(t, "sdz", &err), -ENOENT);
    assert_non_null(strstr(err.msg, "sdz"));
    assert_int_equal(rb_telemetry_add_device(t, "", NULL), -EINVAL);
    assert_int_equal(rb_telemetry_add_device(t, "..", NULL), -EINVAL);
    rb_telemetry_destroy(&t);
    rb_telemetry_destroy(&t);
    assert_null(t);
}

static void test_dm_on_md_and_partitions(void **state)
{
    (void)state;
    rb_telemetry_t *t = s_new();
    assert_int_equal(rb_telemetry_add_device(t, "dm-0", NULL), 0);
    assert_int_equal(rb_telemetry_ndevs(t), 6);
    assert_string_equal(rb_telemetry_dev(t, 0)->name, "dm-0");
    s_member(t, 1, "md0", "dm-0");
    s_member(t, 2, "sda", "md0");
    s_member(t, 5, "sdd", "md0");
    rb_telemetry_destroy(&t);

    /* a root on a partition: the partition, and its disk as its member */
    t = s_new();
    rb_err_t err;
    rb_err_clear(&err);
    assert_int_equal(rb_telemetry_add_devno(t, 8, 1, &err), 0);
    assert_int_equal(rb_telemetry_ndevs(t), 2);
    const rb_telemetry_devinfo_t *d = rb_telemetry_dev(t, 0);
    assert_string_equal(d->name, "sda1");
    assert_int_equal(d->role, RB_TEL_ROOT);
    assert_int_equal(d->partition, 1);
    s_member(t, 1, "sda", "sda1");
    assert_int_equal(rb_telemetry_dev(t, 1)->partition, 0);
    /* a second root on md0 shares sda: md0 and the other three are added */
    assert_int_equal(rb_telemetry_add_devno(t, 9, 0, &err), 0);
    assert_int_equal(rb_telemetry_ndevs(t), 6);
    assert_string_equal(rb_telemetry_dev(t, 2)->name, "md0");
    s_member(t, 1, "sda", "sda1"); /* keeps the role it was found with first */
    s_member(t, 3, "sdb", "md0");
    assert_int_equal(rb_telemetry_add_devno(t, 8, 99, &err), -ENODEV);
    assert_non_null(strstr(err.msg, "8:99"));
    rb_telemetry_destroy(&t);
}

/* Tracks md0 and its disks, and the partition sda1; samples t0 then t1. */
static rb_telemetry_t *s_two_samples(rb_telemetry_snap_t *a, rb_telemetry_snap_t *b)
{
    rb_telemetry_t *t = s_new();
    assert_int_equal(rb_telemetry_add_device(t, "md0", NULL), 0);
    assert_int_equal(rb_telemetry_add_device(t, "sda1", NULL), 0);
    s_use("t0");
    assert_int_equal(rb_telemetry_sample(t, 5 * RB_NS_PER_S, a), 0);
    s_use("t1");
    assert_int_equal(rb_telemetry_sample(t, 6 * RB_NS_PER_S, b), 1);
    return t;
}

static void test_priming_sample(void **state)
{
    (void)state;
    static rb_telemetry_snap_t a, b;
    rb_telemetry_t *t = s_two_samples(&a, &b);
    assert_int_equal(a.t_ns, 5 * RB_NS_PER_S);
    assert_true(a.interval_s == 0.0);
    assert_int_equal(a.cpu.ncpu, 4);
    s_near(a.cpu.load1, 1.0);
    assert_true(a.cpu.user == 0.0 && a.cpu.idle == 0.0 && a.cpu.ctxt_per_s == 0.0);
    assert_int_equal(a.ndevs, 6);
    const rb_telemetry_dev_t *sda = s_dev(&a, "sda");
    assert_int_equal(sda->present, 1);
    assert_int_equal(sda->wr_bytes, 20480000ULL * 512);
    assert_int_equal(sda->rd_bytes, 2560000ULL * 512);
    assert_true(sda->util_pct == 0.0 && sda->wr_bps == 0.0);
    assert_int_equal(a.mem.cached, 8000000ULL * 1024);
    assert_int_equal(a.nnics, 3);
    assert_true(s_nic(&a, "eth0")->rx_bps == 0.0);
    assert_int_equal(s_nic(&a, "eth0")->rx_bytes, 1000000000ULL);
    rb_telemetry_destroy(&t);
}

static void test_cpu_mem_rates(void **state)
{
    (void)state;
    static rb_telemetry_snap_t a, b;
    rb_telemetry_t *t = s_two_samples(&a, &b);
    s_near(b.interval_s, 1.0);
    const rb_telemetry_cpu_t *c = &b.cpu;
    /* 400 ticks over 4 cores: 20 user, 12 system, 296 idle, 68 iowait, 4 softirq */
    s_near(c->user, 5.0);
    s_near(c->nice, 0.0);
    s_near(c->system, 3.0);
    s_near(c->idle, 74.0);
    s_near(c->iowait, 17.0);
    s_near(c->irq, 0.0);
    s_near(c->softirq, 1.0);
    s_near(c->steal, 0.0);
    s_near(c->user + c->nice + c->system + c->idle + c->iowait + c->irq + c->softirq + c->steal,
           100.0);
    assert_int_equal(c->ncpu, 4);
    s_near(c->load1, 3.25);
    s_near(c->ctxt_per_s, 25000.0);
    /* Cached, not SwapCached; Writeback, not WritebackTmp */
    assert_int_equal(b.mem.total, 16ULL << 30);
    assert_int_equal(b.mem.cached, 8ULL << 30);
    assert_int_equal(b.mem.dirty, 512ULL << 20);
    assert_int_equal(b.mem.writeback, 64ULL << 20);
    rb_telemetry_destroy(&t);
}

static void test_disk_rates(void **state)
{
    (void)state;
    static rb_telemetry_snap_t a, b;
    rb_telemetry_t *t = s_two_samples(&a, &b);
    assert_int_equal(b.ndevs, 6);
    assert_int_equal(b.devs_dropped, 0);

    /* sda (20-field line): 100 reads of 128 KiB, 400 writes of 256 KiB */
    const rb_telemetry_dev_t *d = s_dev(&b, "sda");
    assert_int_equal(d->present, 1);
    assert_string_equal(d->info.parent, "md0");
    s_near(d->rd_bps, 12.5 * MiB);
    s_near(d->wr_bps, 100.0 * MiB);
    s_near(d->rd_iops, 100.0);
    s_near(d->wr_iops, 400.0);
    s_near(d->util_pct, 90.0);
    s_near(d->queue_depth, 2.5);
    s_near(d->await_ms, 5.0);
    s_near(d->rd_await_ms, 5.0);
    s_near(d->wr_await_ms, 5.0);
    assert_int_equal(d->inflight, 3);
    assert_int_equal(d->wr_bytes, 20684800ULL * 512);
    assert_int_equal(d->rd_bytes, 2585600ULL * 512);

    /* sdb (18 fields), sdc (14 fields), sdd (20 fields): the same work, 60% busy */
    const char *sibs[] = {"sdb", "sdc", "sdd"};
    for (int i = 0; i < 3; i++) {
        d = s_dev(&b, sibs[i]);
        s_near(d->rd_bps, 12.5 * MiB);
        s_near(d->wr_bps, 100.0 * MiB);
        s_near(d->util_pct, 60.0);
        s_near(d->queue_depth, 1.5);
        s_near(d->await_ms, 3.0);
        s_near(d->rd_await_ms, 3.0);
        s_near(d->wr_await_ms, 3.0);
        assert_int_equal(d->inflight, 1);
    }

    /* md0: the sum of its members' IO; md accounts no time per IO */
    d = s_dev(&b, "md0");
    assert_int_equal(d->info.role, RB_TEL_ROOT);
    s_near(d->rd_bps, 50.0 * MiB);
    s_near(d->wr_bps, 400.0 * MiB);
    s_near(d->rd_iops, 400.0);
    s_near(d->wr_iops, 1600.0);
    s_near(d->util_pct, 95.0);
    s_near(d->await_ms, 0.0);
    s_near(d->queue_depth, 0.0);

    /* the partition's own line */
    d = s_dev(&b, "sda1");
    assert_int_equal(d->info.partition, 1);
    s_near(d->util_pct, 45.0);
    s_near(d->rd_bps, 6.25 * MiB);
    s_near(d->wr_bps, 50.0 * MiB);
    s_near(d->await_ms, 5.0);
    rb_telemetry_destroy(&t);
}

static void test_nic_rates(void **state)
{
    (void)state;
    static rb_telemetry_snap_t a, b;
    rb_telemetry_t *t = s_two_samples(&a, &b);
    assert_int_equal(b.nnics, 3);
    assert_int_equal(b.nics_dropped, 0);
    assert_null(s_nic(&b, "lo"));
    const rb_telemetry_nic_t *n = s_nic(&b, "eth0");
    assert_non_null(n);
    s_near(n->rx_bps, 500e6);
    s_near(n->tx_bps, 12.5e6);
    assert_int_equal(n->rx_bytes, 1500000000ULL);
    assert_int_equal(n->speed_mbps, 10000);
    n = s_nic(&b, "eth1"); /* speed -1: unknown */
    assert_non_null(n);
    assert_int_equal(n->speed_mbps, 0);
    s_near(n->rx_bps, 0.0);
    n = s_nic(&b, "eth2"); /* no speed file: unknown */
    assert_non_null(n);
    assert_int_equal(n->speed_mbps, 0);
    s_near(n->rx_bps, 1000.0);
    s_near(n->tx_bps, 500.0);
    rb_telemetry_destroy(&t);
}

static void s_all_zero(const rb_telemetry_snap_t *s)
{
    const rb_telemetry_cpu_t *c = &s->cpu;
    assert_true(c->user == 0 && c->system == 0 && c->idle == 0 && c->iowait == 0 &&
                c->softirq == 0 && c->ctxt_per_s == 0);
    for (uint32_t i = 0; i < s->ndevs; i++) {
        const rb_telemetry_dev_t *d = &s->devs[i];
        assert_int_equal(d->present, 1);
        assert_true(d->rd_bps == 0 && d->wr_bps == 0 && d->rd_iops == 0 && d->wr_iops == 0 &&
                    d->util_pct == 0 && d->queue_depth == 0 && d->await_ms == 0);
    }
    for (uint32_t i = 0; i < s->nnics; i++)
        assert_true(s->nics[i].rx_bps == 0 && s->nics[i].tx_bps == 0);
}

static void test_counters_backwards(void **state)
{
    (void)state;
    static rb_telemetry_snap_t s;
    rb_telemetry_t *t = s_new();
    assert_int_equal(rb_telemetry_add_device(t, "md0", NULL), 0);
    s_use("t1");
    assert_int_equal(rb_telemetry_sample(t, RB_NS_PER_S, &s), 0);
    s_use("t0"); /* every counter went back: a reset, or a 32-bit wrap */
    assert_int_equal(rb_telemetry_sample(t, 2 * RB_NS_PER_S, &s), 1);
    s_all_zero(&s);
    assert_int_equal(s_dev(&s, "sda")->wr_bytes, 20480000ULL * 512);
    /* and forward again from there: full rates */
    s_use("t1");
    assert_int_equal(rb_telemetry_sample(t, 3 * RB_NS_PER_S, &s), 1);
    s_near(s_dev(&s, "sda")->util_pct, 90.0);
    /* a clock that did not move primes again instead of dividing by zero */
    assert_int_equal(rb_telemetry_sample(t, 3 * RB_NS_PER_S, &s), 0);
    s_all_zero(&s);
    rb_telemetry_destroy(&t);
}

static void test_missing_proc_file(void **state)
{
    (void)state;
    static rb_telemetry_snap_t s;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/empty-proc", RB_TEST_TMP);
    s_mkdirs(dir);
    rb_err_t err;
    rb_err_clear(&err);
    rb_telemetry_t *t = rb_telemetry_new(dir, FIX "/sys", NULL, 0, &err);
    assert_non_null(t);
    assert_string_equal(rb_telemetry_error(t), "");
    assert_int_equal(rb_telemetry_sample(t, RB_NS_PER_S, &s), -ENOENT);
    assert_non_null(strstr(rb_telemetry_error(t), dir));
    assert_non_null(strstr(rb_telemetry_error(t), "/stat"));
    rb_telemetry_destroy(&t);

    const char *roots[] = {"/nonexistent/rackbench-root"};
    t = rb_telemetry_new(dir, FIX "/sys", roots, 1, &err);
    assert_null(t);
    assert_int_equal(err.code, -ENOENT);
    assert_non_null(strstr(err.msg, roots[0]));
}

/* More devices and interfaces than fit are counted, not crashed on. */
static void test_bounds(void **state)
{
    (void)state;
    char base[1024], path[1200], text[8192];
    snprintf(base, sizeof base, "%s/big", RB_TEST_TMP);
    snprintf(path, sizeof path, "%s/sys/block/big/slaves", base);
    s_mkdirs(path);
    for (int i = 0; i < 80; i++) {
        snprintf(path, sizeof path, "%s/sys/block/big/slaves/d%02d", base, i);
        s_write(path, "");
        snprintf(path, sizeof path, "%s/sys/block/d%02d", base, i);
        s_mkdirs(path);
    }
    snprintf(path, sizeof path, "%s/proc/net", base);
    s_mkdirs(path);
    const char *files[] = {"stat", "loadavg", "meminfo", "diskstats"};
    for (int i = 0; i < 4; i++) {
        char target[1024];
        snprintf(target, sizeof target, "%s/t0/proc/%s", FIX, files[i]);
        snprintf(path, sizeof path, "%s/proc/%s", base, files[i]);
        unlink(path);
        assert_int_equal(symlink(target, path), 0);
    }
    size_t len = (size_t)snprintf(text, sizeof text, "Inter-|\n face |\n");
    for (int i = 0; i < 20; i++)
        len += (size_t)snprintf(text + len, sizeof text - len,
                                "  veth%02d: %d 1 0 0 0 0 0 0 %d 1 0 0 0 0 0 0\n", i, i, i);
    snprintf(path, sizeof path, "%s/proc/net/dev", base);
    s_write(path, text);

    char proc[1100], sys[1100];
    snprintf(proc, sizeof proc, "%s/proc", base);
    snprintf(sys, sizeof sys, "%s/sys", base);
    rb_err_t err;
    rb_err_clear(&err);
    rb_telemetry_t *t = rb_telemetry_new(proc, sys, NULL, 0, &err);
    assert_non_null(t);
    assert_int_equal(rb_telemetry_add_device(t, "big", &err), 0);
    assert_int_equal(rb_telemetry_ndevs(t), RB_TEL_MAX_DEVS);
    assert_int_equal(rb_telemetry_dropped(t), 81 - RB_TEL_MAX_DEVS);
    static rb_telemetry_snap_t s;
    assert_int_equal(rb_telemetry_sample(t, RB_NS_PER_S, &s), 0);
    assert_int_equal(s.ndevs, RB_TEL_MAX_DEVS);
    assert_int_equal(s.devs_dropped, 81 - RB_TEL_MAX_DEVS);
    assert_int_equal(s.devs[5].present, 0); /* not in diskstats */
    assert_int_equal(s.nnics, RB_TEL_MAX_NICS);
    assert_int_equal(s.nics_dropped, 20 - RB_TEL_MAX_NICS);
    assert_string_equal(s.nics[0].name, "veth00");
    rb_telemetry_destroy(&t);
}

static void test_median(void **state)
{
    (void)state;
    double a[] = {5, 1, 3};
    s_near(rb_stats_median(a, 3), 3.0);
    double b[] = {60, 90, 61, 59};
    s_near(rb_stats_median(b, 4), 60.5);
    s_near(rb_stats_median(NULL, 0), 0.0);
    double c[] = {7};
    s_near(rb_stats_median(c, 1), 7.0);
    double d[] = {NAN, 2, 1, NAN, 3}; /* NaNs sort first, deterministically */
    s_near(rb_stats_median(d, 5), 1.0);
}

#define S_NM 4
#define S_NI 10

static void test_imbalanced(void **state)
{
    (void)state;
    double u[S_NI][S_NM];
    uint32_t which = 99;
    /* sda near 90%, the others near 60%, in every interval */
    for (int i = 0; i < S_NI; i++) {
        u[i][0] = 88.0 + (i % 3);
        u[i][1] = 59.0 + (i % 2);
        u[i][2] = 61.0 - (i % 2);
        u[i][3] = 60.0 + (i % 4) * 0.5;
    }
    assert_int_equal(rb_stats_imbalanced(&u[0][0], S_NM, S_NI, 1.3, 0.5, &which), 1);
    assert_int_equal(which, 0);

    /* the hot one is sdc, and only in 6 of 10 intervals: still most of them */
    for (int i = 0; i < S_NI; i++) {
        u[i][0] = 60.0;
        u[i][2] = i < 6 ? 85.0 : 62.0;
    }
    which = 99;
    assert_int_equal(rb_stats_imbalanced(&u[0][0], S_NM, S_NI, 1.3, 0.5, &which), 1);
    assert_int_equal(which, 2);
    /* in 5 of 10: not more than half */
    u[5][2] = 62.0;
    assert_int_equal(rb_stats_imbalanced(&u[0][0], S_NM, S_NI, 1.3, 0.5, &which), 0);

    /* all within 5% of each other: none */
    for (int i = 0; i < S_NI; i++)
        for (int m = 0; m < S_NM; m++)
            u[i][m] = 60.0 + ((i + m) % 4);
    assert_int_equal(rb_stats_imbalanced(&u[0][0], S_NM, S_NI, 1.3, 0.5, &which), 0);

    /* idle intervals are left out: sda hot in 3 of the 4 busy ones */
    for (int i = 0; i < S_NI; i++)
        for (int m = 0; m < S_NM; m++)
            u[i][m] = i < 4 ? (m == 0 && i != 3 ? 90.0 : 60.0) : (m == 0 ? 0.5 : 0.0);
    which = 99;
    assert_int_equal(rb_stats_imbalanced(&u[0][0], S_NM, S_NI, 1.3, 0.5, &which), 1);
    assert_int_equal(which, 0);

    /* garbage utils (NaN, negative) count as 0, and bad arguments are refused */
    u[0][1] = NAN;
    u[1][2] = -5.0;
    assert_true(rb_stats_imbalanced(&u[0][0], S_NM, S_NI, 1.3, 0.5, &which) >= 0);
    assert_int_equal(rb_stats_imbalanced(&u[0][0], 1, S_NI, 1.3, 0.5, &which), 0);
    assert_int_equal(rb_stats_imbalanced(&u[0][0], S_NM, 0, 1.3, 0.5, &which), 0);
    assert_int_equal(rb_stats_imbalanced(NULL, S_NM, S_NI, 1.3, 0.5, &which), -EINVAL);
    assert_int_equal(rb_stats_imbalanced(&u[0][0], S_NM, S_NI, 1.3, 0.5, NULL), -EINVAL);
    assert_int_equal(rb_stats_imbalanced(&u[0][0], S_NM, S_NI, NAN, 0.5, &which), -EINVAL);
    assert_int_equal(rb_stats_imbalanced(&u[0][0], S_NM, S_NI, 1.3, 1.5, &which), -EINVAL);
    assert_int_equal(rb_stats_imbalanced(&u[0][0], RB_TEL_MAX_DEVS + 1, 1, 1.3, 0.5, &which),
                     -E2BIG);
}

/* This machine: the build folder's disk must count a 4 MiB O_DIRECT write. */
static void test_real_machine(void **state)
{
    (void)state;
    struct stat st;
    if (stat("/sys/dev/block", &st) < 0) {
        rb_skip("no /sys/dev/block here: the real-machine test cannot run");
    }
    const char *root = RB_TEST_TMP;
    assert_int_equal(stat(root, &st), 0);
    char devpath[128];
    snprintf(devpath, sizeof devpath, "/sys/dev/block/%u:%u", major(st.st_dev), minor(st.st_dev));
    if (access(devpath, F_OK) < 0) {
        print_message("%s is on device %u:%u, not a block device (tmpfs, overlayfs, btrfs, "
                      "NFS?); skipping the real-machine test\n",
                      root, major(st.st_dev), minor(st.st_dev));
        rb_skip("the test folder is not on a block device");
    }
    rb_err_t err;
    rb_err_clear(&err);
    const char *roots[] = {root};
    rb_telemetry_t *t = rb_telemetry_new("/proc", "/sys", roots, 1, &err);
    if (!t)
        fail_msg("%s", err.msg);
    assert_true(rb_telemetry_ndevs(t) >= 1);
    for (uint32_t i = 0; i < rb_telemetry_ndevs(t); i++) {
        const rb_telemetry_devinfo_t *d = rb_telemetry_dev(t, i);
        print_message("device %s: %s%s%s\n", d->name, d->role == RB_TEL_ROOT ? "root" : "member",
                      d->role == RB_TEL_ROOT ? "" : " of ", d->parent);
    }

    static rb_telemetry_snap_t a, b;
    uint64_t t0 = rb_time_mono_ns();
    if (rb_telemetry_sample(t, t0, &a) != 0)
        fail_msg("%s", rb_telemetry_error(t));
    assert_true(a.devs[0].present);

    char path[1200];
    snprintf(path, sizeof path, "%s/telemetry-direct.bin", root);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644);
    if (fd < 0 && errno == EINVAL) {
        print_message("%s: no O_DIRECT on this file system; skipping\n", path);
        rb_telemetry_destroy(&t);
        rb_skip("no O_DIRECT on the test folder's file system");
    }
    assert_true(fd >= 0);
    const size_t len = 4u << 20;
    void *buf = NULL;
    assert_int_equal(posix_memalign(&buf, 4096, len), 0);
    memset(buf, 0x5a, len);
    assert_int_equal(write(fd, buf, len), (ssize_t)len);
    assert_int_equal(fsync(fd), 0);
    close(fd);
    free(buf);
    unlink(path);

    rb_time_sleep_until_ns(t0 + 100 * RB_NS_PER_MS);
    int rc = rb_telemetry_sample(t, rb_time_mono_ns(), &b);
    if (rc != 1)
        fail_msg("sample: %d %s", rc, rb_telemetry_error(t));
    assert_true(b.interval_s >= 0.1);
    for (uint32_t i = 0; i < b.ndevs; i++) {
        const rb_telemetry_dev_t *d = &b.devs[i];
        assert_true(d->rd_bps >= 0 && d->wr_bps >= 0 && d->util_pct >= 0 && d->util_pct <= 100 &&
                    d->queue_depth >= 0 && d->await_ms >= 0);
        print_message("%s over %.3f s: wrote %llu bytes (%.1f MiB/s), util %.1f%%, await %.2f "
                      "ms, queue %.2f; %llu bytes written since boot\n",
                      d->info.name, b.interval_s,
                      (unsigned long long)(d->wr_bytes - a.devs[i].wr_bytes), d->wr_bps / MiB,
                      d->util_pct, d->await_ms, d->queue_depth, (unsigned long long)d->wr_bytes);
    }
    const rb_telemetry_dev_t *d = &b.devs[0];
    assert_true(d->wr_bytes >= a.devs[0].wr_bytes + len);
    s_near(d->wr_bps * b.interval_s, (double)(d->wr_bytes - a.devs[0].wr_bytes));
    assert_true(b.cpu.ncpu >= 1);
    double sum = b.cpu.user + b.cpu.nice + b.cpu.system + b.cpu.idle + b.cpu.iowait + b.cpu.irq +
                 b.cpu.softirq + b.cpu.steal;
    assert_true(sum > 99.0 && sum < 101.0);
    assert_true(b.mem.total > 0);
    print_message("cpu: user %.1f%% system %.1f%% iowait %.1f%% idle %.1f%% of %u cores; "
                  "load %.2f; %.0f ctxt/s; cached %llu MiB, dirty %llu KiB\n",
                  b.cpu.user, b.cpu.system, b.cpu.iowait, b.cpu.idle, b.cpu.ncpu, b.cpu.load1,
                  b.cpu.ctxt_per_s, (unsigned long long)(b.mem.cached >> 20),
                  (unsigned long long)(b.mem.dirty >> 10));
    for (uint32_t i = 0; i < b.nnics; i++)
        print_message("nic %s: rx %.0f B/s, tx %.0f B/s, speed %u Mb/s\n", b.nics[i].name,
                      b.nics[i].rx_bps, b.nics[i].tx_bps, b.nics[i].speed_mbps);
    rb_telemetry_destroy(&t);
}

int main(void)
{
    s_mkdirs(RB_TEST_TMP);
    snprintf(s_proc, sizeof s_proc, "%s/proc", RB_TEST_TMP);
    s_use("t0");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slaves_walk),
        cmocka_unit_test(test_dm_on_md_and_partitions),
        cmocka_unit_test(test_priming_sample),
        cmocka_unit_test(test_cpu_mem_rates),
        cmocka_unit_test(test_disk_rates),
        cmocka_unit_test(test_nic_rates),
        cmocka_unit_test(test_counters_backwards),
        cmocka_unit_test(test_missing_proc_file),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_median),
        cmocka_unit_test(test_imbalanced),
        cmocka_unit_test(test_real_machine),
    };
    return rb_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
