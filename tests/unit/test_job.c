/* The job runner on real files, without the network: what a worker does for
 * each access pattern, engine and option, checked on the files themselves.
 * Every test runs against every engine compiled in. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "rb_test.h"

#include "rb_engine.h"
#include "rb_job.h"
#include "rb_perm.h"
#include "rb_phase.h"
#include "rb_sandbox.h"
#include "rb_time.h"
#include "rb_verify.h"

#define RUN_ID "test-run"

/* The runner's fsync/fdatasync calls land here (the executable's definition
 * wins over libc's), so the tests can count them. */
static int s_fsyncs, s_fdatasyncs;

int fsync(int fd)
{
    s_fsyncs++;
    return (int)syscall(SYS_fsync, fd);
}

int fdatasync(int fd)
{
    s_fdatasyncs++;
    return (int)syscall(SYS_fdatasync, fd);
}

static const char *s_engines[] = {"sync", "libaio", "io_uring"};
static char s_root[4096];
static double s_secs; /* the last run's first worker: end - start */

/* How long one phase of these tests may run before the test gives up on it:
 * far above the slowest one (4 MiB at 8 MiB/s), scaled for the sanitizers. */
#define PHASE_DEADLINE_NS (60 * RB_TEST_TIME_SCALE * RB_NS_PER_S)

/* Waits for the phase's workers to end; fails the test at the deadline. */
static void s_wait_finished(rb_phase_t *p)
{
    uint64_t end = rb_time_mono_ns() + PHASE_DEADLINE_NS;
    while (!rb_phase_finished(p)) {
        if (rb_time_mono_ns() > end)
            fail_msg("the phase did not finish in %d s", 60 * RB_TEST_TIME_SCALE);
        usleep(1000);
    }
}

/* Waits until every worker of job 0 has reached its stonewall (rb_phase_stonewalled
 * says so once); the busiest one's ops into most. Fails at the deadline. */
static void s_wait_stonewalled(rb_phase_t *p, uint64_t *most)
{
    uint64_t end = rb_time_mono_ns() + PHASE_DEADLINE_NS;
    while (!rb_phase_stonewalled(p, 0, most)) {
        if (rb_time_mono_ns() > end)
            fail_msg("the phase did not reach its stonewall in %d s", 60 * RB_TEST_TIME_SCALE);
        usleep(1000);
    }
}

static int s_have(const char *engine)
{
    const rb_engine_ops_t *ops = rb_engine_find(engine);
    rb_engine_t e;
    if (!ops || rb_engine_init(&e, ops, 4, NULL) < 0)
        return 0;
    rb_engine_fini(&e);
    return 1;
}

static rb_job_spec_t s_job(const char *name, rb_rw_t rw, const char *engine, uint64_t bs,
                           uint64_t size)
{
    rb_job_spec_t j = {.rw = rw,
                       .bs = bs,
                       .bs_max = bs,
                       .size = size,
                       .numjobs = 1,
                       .direct = 1,
                       .iodepth = 8,
                       .rwmixread = 50,
                       .nrfiles = 1,
                       .loops = 1,
                       .randrepeat = 1,
                       .randseed = 42};
    snprintf(j.name, sizeof j.name, "%s", name);
    snprintf(j.ioengine, sizeof j.ioengine, "%s", engine);
    snprintf(j.filename_format, sizeof j.filename_format, "f.$jobnum.$filenum");
    return j;
}

/* The run as one node alone sees it. */
static const rb_job_ctx_t s_alone = {.run_id = RUN_ID, .rank = 0, .nnodes = 1, .lead = "n1"};

/* Runs one job as a phase to its end as the node ctx says; fills done (arrays copied out). */
static int s_run_as(rb_sandbox_t *sb, int rundir, rb_job_spec_t *job, const rb_job_ctx_t *ctx,
                    rb_msg_done_t *done, rb_job_stat_t *js, char *err_msg)
{
    rb_phase_spec_t ph = {.njobs = 1, .jobs = job};
    snprintf(ph.name, sizeof ph.name, "%s", job->name);
    int rundirs[1] = {rundir};
    rb_err_t err;
    rb_err_clear(&err);
    rb_phase_t *p = rb_phase_prepare(&ph, 0, sb, rundirs, ctx, &err);
    if (!p) {
        snprintf(err_msg, RB_ERR_MSG_MAX, "%s", err.msg);
        return err.code ? err.code : -EIO;
    }
    rb_phase_go(p, rb_time_mono_ns());
    s_wait_finished(p);
    int rc = rb_phase_collect(p, RUN_ID, done);
    *js = done->jobs[0];
    js->hist = NULL;
    s_secs = (double)(done->workers[0].t_end_ns - done->workers[0].t_start_ns) / 1e9;
    done->workers = NULL; /* owned by the phase, gone below */
    done->jobs = NULL;
    snprintf(err_msg, RB_ERR_MSG_MAX, "%s", done->error);
    rb_phase_destroy(&p);
    return rc;
}

static int s_run(rb_sandbox_t *sb, int rundir, rb_job_spec_t *job, rb_msg_done_t *done,
                 rb_job_stat_t *js, char *err_msg)
{
    return s_run_as(sb, rundir, job, &s_alone, done, js, err_msg);
}

static rb_sandbox_t *s_sandbox(const char *tag, int *rundir)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/%s-%d", s_root, tag, (int)getpid());
    mkdir(s_root, 0755);
    mkdir(dir, 0755);
    rb_sandbox_t *sb = rb_sandbox_new();
    rb_err_t err;
    rb_err_clear(&err);
    assert_int_equal(rb_sandbox_add_root(sb, dir, &err), 0);
    *rundir = rb_sandbox_rundir(sb, rb_sandbox_root(sb, 0), RUN_ID, "n1", &err);
    assert_true(*rundir >= 0);
    return sb;
}

static void s_drop(rb_sandbox_t **sb)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", rb_sandbox_root(*sb, 0));
    rb_sandbox_destroy(sb);
    rmdir(dir);
}

/* What the checks of verify=crc32c need of a job. */
static const rb_job_spec_t s_crc32c = {.verify = RB_VERIFY_CRC32C};

/* Checks every block of a file is valid for its offset as job vs verifies. */
static uint64_t s_valid_blocks(rb_sandbox_t *sb, int rundir, const char *name, uint64_t bs,
                               uint64_t size, const rb_job_spec_t *vs)
{
    rb_err_t err;
    rb_err_clear(&err);
    int fd = rb_sandbox_open(sb, rundir, name, O_RDONLY, &err);
    assert_true(fd >= 0);
    char *buf = malloc(bs), why[160];
    uint64_t ok = 0;
    for (uint64_t off = 0; off + bs <= size; off += bs) {
        assert_int_equal(pread(fd, buf, bs, (off_t)off), (ssize_t)bs);
        ok += rb_verify_check(vs, buf, bs, rb_verify_hash(RUN_ID), 1, rb_verify_hash(name), off,
                              why, sizeof why) == 0;
    }
    free(buf);
    close(fd);
    return ok;
}

/* Sequential and random writes touch every block exactly once per pass;
 * a verifying read of the result finds every block intact. do_verify's read
 * back counts as fio counts it: as reads. */
static void test_write_then_verify(void **state)
{
    (void)state;
    for (size_t e = 0; e < sizeof s_engines / sizeof *s_engines; e++) {
        if (!s_have(s_engines[e]))
            continue;
        for (int random = 0; random < 2; random++) {
            int rd;
            rb_sandbox_t *sb = s_sandbox("wv", &rd);
            rb_msg_done_t done;
            rb_job_stat_t js;
            char msg[RB_ERR_MSG_MAX];
            rb_job_spec_t w =
                s_job("w", random ? RB_RW_RANDWRITE : RB_RW_WRITE, s_engines[e], 4096, 4 << 20);
            w.verify = RB_VERIFY_CRC32C;
            w.do_verify = 1;
            assert_int_equal(s_run(sb, rd, &w, &done, &js, msg), 0);
            assert_int_equal(js.write_ops, 1024);
            assert_int_equal(js.write_bytes, 4 << 20);
            assert_int_equal(js.read_ops, 1024);
            assert_int_equal(js.read_bytes, 4 << 20);
            assert_int_equal(js.verify_errors, 0);
            /* every block written, each with its own offset: exactly once */
            assert_int_equal(s_valid_blocks(sb, rd, "f.0.0", 4096, 4 << 20, &s_crc32c), 1024);
            rb_job_spec_t r =
                s_job("r", random ? RB_RW_RANDREAD : RB_RW_READ, s_engines[e], 4096, 4 << 20);
            r.verify = RB_VERIFY_CRC32C;
            assert_int_equal(s_run(sb, rd, &r, &done, &js, msg), 0);
            assert_int_equal(js.read_ops, 1024);
            assert_int_equal(js.verify_errors, 0);
            s_drop(&sb);
        }
    }
}

/* A byte flipped between the write and the read is found, with file and offset. */
static void test_verify_catches_corruption(void **state)
{
    (void)state;
    for (size_t e = 0; e < sizeof s_engines / sizeof *s_engines; e++) {
        if (!s_have(s_engines[e]))
            continue;
        int rd;
        rb_sandbox_t *sb = s_sandbox("corrupt", &rd);
        rb_msg_done_t done;
        rb_job_stat_t js;
        char msg[RB_ERR_MSG_MAX];
        rb_job_spec_t w = s_job("w", RB_RW_WRITE, s_engines[e], 8192, 1 << 20);
        w.verify = RB_VERIFY_CRC32C;
        assert_int_equal(s_run(sb, rd, &w, &done, &js, msg), 0);
        rb_err_t err;
        rb_err_clear(&err);
        int fd = rb_sandbox_open(sb, rd, "f.0.0", O_RDWR, &err);
        unsigned char c;
        uint64_t at = 5 * 8192 + 1000;
        assert_int_equal(pread(fd, &c, 1, (off_t)at), 1);
        c ^= 0x40;
        assert_int_equal(pwrite(fd, &c, 1, (off_t)at), 1);
        fsync(fd);
        close(fd);
        rb_job_spec_t r = s_job("r", RB_RW_RANDREAD, s_engines[e], 8192, 1 << 20);
        r.verify = RB_VERIFY_CRC32C;
        assert_int_equal(s_run(sb, rd, &r, &done, &js, msg), -EBADMSG);
        assert_int_equal(js.verify_errors, 1);
        assert_int_equal(js.read_ops, 128); /* not fatal: the pass goes on */
        assert_non_null(strstr(msg, "offset 40960"));
        assert_non_null(strstr(msg, "f.0.0"));
        assert_non_null(strstr(msg, "checksum"));
        assert_int_equal(done.error_offset, 40960);
        s_drop(&sb);
    }
}

/* Every verify method through the runner: a write with do_verify reads
 * every block back intact; a byte flipped afterwards is a verify error of a
 * later read, at its block's offset (but with null, which checks nothing). */
static void test_every_method_runs(void **state)
{
    (void)state;
    for (rb_verify_t t = RB_VERIFY_CRC32C; t <= RB_VERIFY_NULL; t++) {
        int rd;
        rb_sandbox_t *sb = s_sandbox("methods", &rd);
        rb_msg_done_t done;
        rb_job_stat_t js;
        char msg[RB_ERR_MSG_MAX];
        rb_job_spec_t w = s_job("w", RB_RW_RANDWRITE, "sync", 8192, 1 << 20);
        w.verify = t;
        w.do_verify = 1;
        w.verify_interval = t == RB_VERIFY_MD5 ? 1024 : 0;
        w.verify_offset = t == RB_VERIFY_SHA256 ? 4096 : 0;
        if (t == RB_VERIFY_PATTERN || t == RB_VERIFY_META) {
            memcpy(w.pattern, "\xaa\x55\x5a\xa5", 4);
            w.pattern_len = 4;
            w.buffer_mode = RB_BUF_PATTERN;
        }
        assert_int_equal(s_run(sb, rd, &w, &done, &js, msg), 0);
        assert_int_equal(js.write_ops, 128);
        assert_int_equal(js.read_ops, 128);
        assert_int_equal(js.verify_errors, 0);
        rb_err_t err;
        rb_err_clear(&err);
        int fd = rb_sandbox_open(sb, rd, "f.0.0", O_RDWR, &err);
        unsigned char c;
        uint64_t at = 5 * 8192 + (t == RB_VERIFY_META ? 20 : 1000);
        assert_int_equal(pread(fd, &c, 1, (off_t)at), 1);
        c ^= 0x40;
        assert_int_equal(pwrite(fd, &c, 1, (off_t)at), 1);
        close(fd);
        rb_job_spec_t r = w;
        r.rw = RB_RW_READ;
        snprintf(r.name, sizeof r.name, "r");
        int rc = s_run(sb, rd, &r, &done, &js, msg);
        assert_int_equal(js.read_ops, 128);
        if (t == RB_VERIFY_NULL) {
            assert_int_equal(rc, 0);
        } else {
            assert_int_equal(rc, -EBADMSG);
            assert_int_equal(js.verify_errors, 1);
            assert_non_null(strstr(msg, "offset 40960"));
            assert_int_equal(done.error_offset, 40960);
        }
        s_drop(&sb);
    }
}

/* randrw keeps rwmixread within 2 points; the null engine makes it quick. */
static void test_mix_ratio(void **state)
{
    (void)state;
    int rd;
    rb_sandbox_t *sb = s_sandbox("mix", &rd);
    rb_msg_done_t done;
    rb_job_stat_t js;
    char msg[RB_ERR_MSG_MAX];
    for (unsigned mix = 10; mix <= 90; mix += 40) {
        rb_job_spec_t j = s_job("m", RB_RW_RANDRW, "null", 4096, 400ull << 20);
        j.rwmixread = mix;
        j.direct = 0;
        assert_int_equal(s_run(sb, rd, &j, &done, &js, msg), 0);
        assert_int_equal(js.ops, 102400);
        double got = 100.0 * (double)js.read_ops / (double)js.ops;
        assert_true(got > mix - 2.0 && got < mix + 2.0);
        assert_int_equal(js.read_bytes, js.read_ops * 4096);
    }
    s_drop(&sb);
}

/* size not a multiple of bs: whole blocks only, as fio; bsrange sizes stay in range. */
static void test_sizes(void **state)
{
    (void)state;
    int rd;
    rb_sandbox_t *sb = s_sandbox("sizes", &rd);
    rb_msg_done_t done;
    rb_job_stat_t js;
    char msg[RB_ERR_MSG_MAX];
    rb_job_spec_t j = s_job("s", RB_RW_WRITE, "sync", 4096, 10000);
    j.direct = 0;
    assert_int_equal(s_run(sb, rd, &j, &done, &js, msg), 0);
    assert_int_equal(js.ops, 2);
    assert_int_equal(js.bytes, 8192);
    j = s_job("b", RB_RW_WRITE, "sync", 4096, 1 << 20);
    j.bs_max = 16384;
    j.direct = 0;
    assert_int_equal(s_run(sb, rd, &j, &done, &js, msg), 0);
    assert_int_equal(js.bytes, 1 << 20);
    assert_true(js.ops < 256 && js.ops >= 64);
    /* nrfiles: the size is spread over the files, each written */
    j = s_job("n", RB_RW_WRITE, "sync", 4096, 1 << 20);
    snprintf(j.filename_format, sizeof j.filename_format, "n.$jobnum.$filenum");
    j.nrfiles = 4;
    j.direct = 0;
    assert_int_equal(s_run(sb, rd, &j, &done, &js, msg), 0);
    assert_int_equal(js.bytes, 1 << 20);
    for (int f = 0; f < 4; f++) {
        char name[32];
        snprintf(name, sizeof name, "n.0.%d", f);
        assert_int_equal(rb_sandbox_file_size(sb, rd, name), 256 << 10);
    }
    s_drop(&sb);
}

/* A read past the end of a short file is an error naming file and offset. */
static void test_short_file(void **state)
{
    (void)state;
    for (size_t e = 0; e < sizeof s_engines / sizeof *s_engines; e++) {
        if (!s_have(s_engines[e]))
            continue;
        int rd;
        rb_sandbox_t *sb = s_sandbox("short", &rd);
        rb_msg_done_t done;
        rb_job_stat_t js;
        char msg[RB_ERR_MSG_MAX];
        rb_err_t err;
        rb_err_clear(&err);
        int fd = rb_sandbox_open(sb, rd, "f.0.0", O_WRONLY | O_CREAT, &err);
        assert_int_equal(ftruncate(fd, 6144), 0); /* 1.5 blocks */
        close(fd);
        rb_job_spec_t r = s_job("r", RB_RW_READ, s_engines[e], 4096, 16384);
        r.direct = 0;
        r.iodepth = 1;
        assert_int_equal(s_run(sb, rd, &r, &done, &js, msg), -ENODATA);
        assert_int_equal(js.bytes, 4096); /* the whole block; the cut one failed */
        assert_int_equal(done.error_offset, 6144);
        assert_non_null(strstr(msg, "end of file"));
        assert_non_null(strstr(msg, "f.0.0"));
        s_drop(&sb);
    }
}

/* fsync=N, end_fsync, O_SYNC and rate run and still count right; rate caps. */
static void test_sync_and_rate(void **state)
{
    (void)state;
    int rd;
    rb_sandbox_t *sb = s_sandbox("sync", &rd);
    rb_msg_done_t done;
    rb_job_stat_t js;
    char msg[RB_ERR_MSG_MAX];
    for (size_t e = 0; e < sizeof s_engines / sizeof *s_engines; e++) {
        if (!s_have(s_engines[e]))
            continue;
        rb_job_spec_t j = s_job("f", RB_RW_WRITE, s_engines[e], 4096, 256 << 10);
        j.direct = 0;
        j.fsync_every = 8;
        j.end_fsync = 1;
        j.sync_mode = RB_SYNC_DSYNC;
        s_fsyncs = s_fdatasyncs = 0;
        assert_int_equal(s_run(sb, rd, &j, &done, &js, msg), 0);
        assert_int_equal(js.ops, 64);
        /* one before the write after every 8th (7), then end_fsync's */
        assert_int_equal(s_fsyncs, 8);
        j.fsync_every = 0;
        j.fdatasync_every = 16;
        j.end_fsync = 0;
        s_fsyncs = s_fdatasyncs = 0;
        assert_int_equal(s_run(sb, rd, &j, &done, &js, msg), 0);
        assert_int_equal(s_fdatasyncs, 3); /* none after the last write, as fio */
        assert_int_equal(s_fsyncs, 0);
    }
    rb_job_spec_t j;
    j = s_job("r", RB_RW_WRITE, "sync", 65536, 4 << 20);
    j.direct = 0;
    j.rate = j.rate_write = 8 << 20; /* 4 MiB at 8 MiB/s: at least half a second */
    assert_int_equal(s_run(sb, rd, &j, &done, &js, msg), 0);
    assert_true(s_secs > 0.45);
    s_drop(&sb);
}

static rb_job_spec_t s_meta(const char *set, rb_meta_op_t op, uint64_t files, int random)
{
    rb_job_spec_t j = s_job(set, RB_RW_META, "sync", 4096, 0);
    snprintf(j.name, sizeof j.name, "%s.%s", set, rb_meta_op_name(op));
    snprintf(j.filename_format, sizeof j.filename_format, "%s", set);
    j.meta_op = op;
    j.meta_files = files;
    j.meta_random = (uint8_t)random;
    j.meta_dirs = 1;
    j.numjobs = 2;
    return j;
}

/* Counts regular files below a path. */
static int s_files_below(const char *path)
{
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "find '%s' -type f | wc -l", path);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p && fscanf(p, "%d", &n) != 1)
        n = -1;
    if (p)
        pclose(p);
    return n;
}

/* create, stat, write, read, rename, delete: every file once per step, in order
 * and in a random permutation; files really appear and really go. */
static void test_meta_steps(void **state)
{
    (void)state;
    for (int random = 0; random < 2; random++) {
        int rd;
        rb_sandbox_t *sb = s_sandbox("meta", &rd);
        rb_msg_done_t done;
        rb_job_stat_t js;
        char msg[RB_ERR_MSG_MAX];
        rb_meta_op_t ops[] = {RB_META_CREATE, RB_META_STAT,   RB_META_WRITE,
                              RB_META_READ,   RB_META_RENAME, RB_META_DELETE};
        int renamed = 0;
        for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
            rb_job_spec_t j = s_meta("set", ops[o], 1000, random);
            j.meta_dirs = 7;
            j.meta_filesize = ops[o] == RB_META_CREATE ? 0 : 512;
            j.meta_readsize = j.meta_filesize; /* what the plan settles when not given */
            j.meta_renamed = (uint8_t)renamed;
            renamed |= ops[o] == RB_META_RENAME;
            assert_int_equal(s_run(sb, rd, &j, &done, &js, msg), 0);
            assert_int_equal(js.ops, 2000); /* 2 workers × 1000 files, each once */
            assert_int_equal(js.errors, 0);
            if (ops[o] == RB_META_CREATE)
                assert_int_equal(s_files_below(rb_sandbox_rundir_path(sb, rd)), 2000);
            if (ops[o] == RB_META_READ)
                assert_int_equal(js.read_bytes, 2000 * 512);
        }
        assert_int_equal(s_files_below(rb_sandbox_rundir_path(sb, rd)), 0);
        s_drop(&sb);
    }
}

/* A tree like mdtest -z 2 -b 3: nine leaf folders hold the files. */
static void test_meta_tree(void **state)
{
    (void)state;
    int rd;
    rb_sandbox_t *sb = s_sandbox("tree", &rd);
    rb_msg_done_t done;
    rb_job_stat_t js;
    char msg[RB_ERR_MSG_MAX], leaf[4400];
    rb_job_spec_t j = s_meta("t", RB_META_CREATE, 90, 0);
    j.meta_depth = 2;
    j.meta_branch = 3;
    j.numjobs = 1;
    assert_int_equal(s_run(sb, rd, &j, &done, &js, msg), 0);
    snprintf(leaf, sizeof leaf, "%s/t.0/d2/d1", rb_sandbox_rundir_path(sb, rd));
    assert_int_equal(s_files_below(leaf), 10);
    assert_int_equal(s_files_below(rb_sandbox_rundir_path(sb, rd)), 90);
    s_drop(&sb);
}

/* Failures are counted and named, not fatal: creating files that exist,
 * deleting files that do not. */
static void test_meta_errors(void **state)
{
    (void)state;
    int rd;
    rb_sandbox_t *sb = s_sandbox("merr", &rd);
    rb_msg_done_t done;
    rb_job_stat_t js;
    char msg[RB_ERR_MSG_MAX];
    rb_job_spec_t j = s_meta("e", RB_META_CREATE, 50, 0);
    assert_int_equal(s_run(sb, rd, &j, &done, &js, msg), 0);
    assert_int_equal(s_run(sb, rd, &j, &done, &js, msg), -EEXIST);
    assert_int_equal(js.errors, 100);
    assert_int_equal(js.ops, 0);
    assert_non_null(strstr(msg, "create: File exists"));
    assert_non_null(strstr(msg, "e.0"));
    j = s_meta("e", RB_META_DELETE, 60, 1);
    assert_int_equal(s_run(sb, rd, &j, &done, &js, msg), -ENOENT);
    assert_int_equal(js.ops, 100);
    assert_int_equal(js.errors, 20);
    s_drop(&sb);
}

/* A read-only folder (immutable, which binds root too): every create fails,
 * each counted, the first named with its path; nothing crashes. meta_sync
 * syncs each file and its folder. */
static void test_meta_readonly_and_sync(void **state)
{
    (void)state;
    int rd;
    rb_sandbox_t *sb = s_sandbox("mro", &rd);
    rb_msg_done_t done;
    rb_job_stat_t js;
    char msg[RB_ERR_MSG_MAX], path[4400];
    rb_job_spec_t j = s_meta("s", RB_META_CREATE, 20, 0);
    j.numjobs = 1;
    j.meta_sync = 1;
    s_fsyncs = 0;
    assert_int_equal(s_run(sb, rd, &j, &done, &js, msg), 0);
    assert_int_equal(s_fsyncs, 40); /* the file and its folder, for each of 20 */
    snprintf(path, sizeof path, "%s/ro.0", rb_sandbox_rundir_path(sb, rd));
    assert_int_equal(mkdir(path, 0755), 0);
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    int flags = 0;
    if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0 ||
        (flags |= FS_IMMUTABLE_FL, ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0)) {
        close(fd);
        s_drop(&sb);
        rb_skip("no immutable flag here (a file system without it, or not root)");
    }
    j = s_meta("ro", RB_META_CREATE, 30, 1);
    j.numjobs = 1;
    int rc = s_run(sb, rd, &j, &done, &js, msg);
    flags &= ~FS_IMMUTABLE_FL;
    ioctl(fd, FS_IOC_SETFLAGS, &flags);
    close(fd);
    assert_int_equal(rc, -EPERM);
    assert_int_equal(js.errors, 30);
    assert_int_equal(js.ops, 0);
    assert_non_null(strstr(msg, "create: Operation not permitted"));
    assert_non_null(strstr(msg, "ro.0"));
    s_drop(&sb);
}

/* IOR's layouts: a segment per worker, or transfer-sized pieces interleaved. */
static void test_layout_map(void **state)
{
    (void)state;
    rb_job_spec_t j = s_job("m", RB_RW_WRITE, "sync", 4096, 64 << 10);
    uint64_t room;
    j.offset = 512;
    assert_int_equal(rb_job_map(&j, 4, 3, 8192, &room), 512 + 8192); /* own file */
    assert_true(room == UINT64_MAX);
    j.shared_file = 1;
    assert_int_equal(rb_job_region_count(&j, 3), 3);
    j.layout = RB_LAYOUT_SEGMENTED;
    assert_int_equal(rb_job_map(&j, 4, 3, 8192, &room), 512 + 3 * (64 << 10) + 8192);
    j.layout = RB_LAYOUT_STRIDED;
    j.transfer = 16384;
    /* byte 20000 of region 2 of 4: piece 1, 3616 into it */
    assert_int_equal(rb_job_map(&j, 4, 2, 20000, &room), 512 + (1 * 4 + 2) * 16384 + 3616);
    assert_int_equal(room, 16384 - 3616);
    char name[128];
    assert_int_equal(rb_job_shared_name(&j, "lead", name, sizeof name), 0);
    assert_string_equal(name, "lead.f.0.0");
}

/* Reads every bs block of a shared file; counts blocks whose header names
 * node tag want at the offset it was read from. */
static uint64_t s_blocks_by(int fd, uint64_t bs, uint64_t size, const char *name, uint32_t want)
{
    char *buf = malloc(bs), why[160];
    uint64_t ok = 0;
    for (uint64_t off = 0; off + bs <= size; off += bs) {
        assert_int_equal(pread(fd, buf, bs, (off_t)off), (ssize_t)bs);
        ok += rb_verify_check(&s_crc32c, buf, bs, rb_verify_hash(RUN_ID), want,
                              rb_verify_hash(name), off, why, sizeof why) == 0;
    }
    free(buf);
    return ok;
}

/* Two nodes of two workers write one shared file, segmented and strided:
 * it ends at exactly 4 regions, each node's blocks where its layout puts
 * them; a read from the next node gets (and verifies) that node's data. */
static void test_shared_file(void **state)
{
    (void)state;
    for (int strided = 0; strided < 2; strided++) {
        int rd;
        rb_sandbox_t *sb = s_sandbox(strided ? "n1strided" : "n1segmented", &rd);
        rb_msg_done_t done;
        rb_job_stat_t js;
        char msg[RB_ERR_MSG_MAX];
        rb_job_spec_t w = s_job("w", RB_RW_WRITE, "sync", 4096, 256 << 10);
        w.shared_file = 1;
        w.numjobs = 2;
        w.layout = strided ? RB_LAYOUT_STRIDED : RB_LAYOUT_SEGMENTED;
        w.transfer = 8192;
        w.verify = RB_VERIFY_CRC32C;
        rb_job_ctx_t ctx = {.run_id = RUN_ID, .rank = 0, .nnodes = 2, .lead = "n1"};
        for (uint32_t rank = 0; rank < 2; rank++) {
            ctx.rank = rank;
            assert_int_equal(s_run_as(sb, rd, &w, &ctx, &done, &js, msg), 0);
            assert_int_equal(js.bytes, 2 * (256 << 10));
        }
        rb_err_t err;
        rb_err_clear(&err);
        char path[4200];
        int fd =
            rb_sandbox_open_shared(sb, rd, RUN_ID, "n1.f.0.0", O_RDONLY, path, sizeof path, &err);
        assert_true(fd >= 0);
        assert_non_null(strstr(path, "rackbench." RUN_ID ".shared/n1.f.0.0"));
        struct stat st;
        assert_int_equal(fstat(fd, &st), 0);
        assert_int_equal(st.st_size, 4 * (256 << 10));
        /* each node wrote half of the blocks, each where its layout says */
        assert_int_equal(s_blocks_by(fd, 4096, 4 << 18, "n1.f.0.0", 1), 128);
        assert_int_equal(s_blocks_by(fd, 4096, 4 << 18, "n1.f.0.0", 2), 128);
        uint64_t first_of_2 = strided ? 2 * 8192 : 2 * (256 << 10);
        char *b = malloc(4096), why[160];
        assert_int_equal(pread(fd, b, 4096, (off_t)first_of_2), 4096);
        assert_int_equal(rb_verify_check(&s_crc32c, b, 4096, rb_verify_hash(RUN_ID), 2,
                                         rb_verify_hash("n1.f.0.0"), first_of_2, why, sizeof why),
                         0);
        free(b);
        close(fd);
        /* node 0 reads node 1's regions, node 1 node 0's: both verify */
        rb_job_spec_t r = w;
        r.rw = RB_RW_RANDREAD;
        r.read_shift = 1;
        for (uint32_t rank = 0; rank < 2; rank++) {
            ctx.rank = rank;
            assert_int_equal(s_run_as(sb, rd, &r, &ctx, &done, &js, msg), 0);
            assert_int_equal(js.read_ops, 128);
            assert_int_equal(js.verify_errors, 0);
        }
        /* read as a third node that never wrote: every block is someone else's */
        ctx.rank = 1;
        r.read_shift = 0;
        ctx.nnodes = 2;
        r.numjobs = 1; /* regions now 2 of 256k: node 1 expects its own in region 1 */
        assert_int_equal(s_run_as(sb, rd, &r, &ctx, &done, &js, msg), -EBADMSG);
        assert_true(js.verify_errors > 0);
        s_drop(&sb);
    }
}

/* read_from: node n1 reads the files node n2 wrote in its own run folder;
 * a block n2 did not write (a header naming another node) is caught. */
static void test_read_from_peer(void **state)
{
    (void)state;
    int rd1, rd2;
    rb_sandbox_t *sb1 = s_sandbox("peer", &rd1);
    rb_sandbox_t *sb2 = rb_sandbox_new();
    rb_err_t err;
    rb_err_clear(&err);
    assert_int_equal(rb_sandbox_add_root(sb2, rb_sandbox_root(sb1, 0), &err), 0);
    rd2 = rb_sandbox_rundir(sb2, rb_sandbox_root(sb2, 0), RUN_ID, "n2", &err);
    assert_true(rd2 >= 0);
    rb_msg_done_t done;
    rb_job_stat_t js;
    char msg[RB_ERR_MSG_MAX];
    rb_peer_t peers[1] = {{.shift = 1, .name = "n2"}};
    rb_job_ctx_t c1 = {
        .run_id = RUN_ID, .rank = 0, .nnodes = 2, .lead = "n1", .peers = peers, .npeers = 1};
    rb_job_ctx_t c2 = {.run_id = RUN_ID, .rank = 1, .nnodes = 2, .lead = "n1"};
    rb_job_spec_t w = s_job("w", RB_RW_WRITE, "sync", 4096, 1 << 20);
    w.verify = RB_VERIFY_CRC32C;
    assert_int_equal(s_run_as(sb2, rd2, &w, &c2, &done, &js, msg), 0);
    rb_job_spec_t r = w;
    r.rw = RB_RW_READ;
    r.read_shift = 1;
    assert_int_equal(s_run_as(sb1, rd1, &r, &c1, &done, &js, msg), 0);
    assert_int_equal(js.read_bytes, 1 << 20);
    assert_int_equal(js.verify_errors, 0);
    /* the same file, written as if by node rank 0: the reader knows */
    assert_int_equal(s_run_as(sb2, rd2, &w, &c1, &done, &js, msg), 0);
    assert_int_equal(s_run_as(sb1, rd1, &r, &c1, &done, &js, msg), -EBADMSG);
    assert_int_equal(js.verify_errors, 256);
    assert_non_null(strstr(msg, "written by node rank 0, not rank 1"));
    assert_non_null(strstr(msg, "rackbench." RUN_ID ".n2/f.0.0"));
    /* another node's files are never opened to write */
    int fd =
        rb_sandbox_open_peer(sb1, rd1, RUN_ID, "n2", "f.0.0", O_RDWR, msg, RB_ERR_MSG_MAX, &err);
    assert_int_equal(fd, -EPERM);
    rb_sandbox_destroy(&sb2);
    s_drop(&sb1);
}

/* Starts a one-job phase and waits for it. */
static rb_phase_t *s_start(rb_sandbox_t *sb, int rundir, rb_phase_spec_t *ph)
{
    int rundirs[1] = {rundir};
    rb_err_t err;
    rb_err_clear(&err);
    rb_phase_t *p = rb_phase_prepare(ph, 0, sb, rundirs, &s_alone, &err);
    assert_non_null(p);
    rb_phase_go(p, rb_time_mono_ns());
    return p;
}

/* stonewall_time stops every worker at T; wearout then takes each on to the
 * op count it is given, exactly. */
static void test_stonewall_wearout(void **state)
{
    (void)state;
    int rd;
    rb_sandbox_t *sb = s_sandbox("stonewall", &rd);
    rb_job_spec_t j = s_job("sw", RB_RW_WRITE, "sync", 4096, 1ull << 30);
    j.numjobs = 2;
    j.direct = 0;
    j.rate = j.rate_write = 4 << 20; /* 1 GiB would take minutes: the stonewall must end it */
    j.stonewall_ns = 300 * RB_NS_PER_MS;
    rb_phase_spec_t ph = {.njobs = 1, .jobs = &j};
    rb_msg_done_t done;
    rb_phase_t *p = s_start(sb, rd, &ph);
    s_wait_finished(p);
    rb_phase_collect(p, RUN_ID, &done);
    for (uint32_t i = 0; i < 2; i++) {
        const rb_worker_stat_t *w = &done.workers[i];
        double t = (double)(w->t_end_ns - w->t_start_ns) / 1e9;
        /* stopped at 300 ms, minutes before its 1 GiB at 4 MiB/s */
        assert_true(t >= 0.28 && t < 1.0 * RB_TEST_TIME_SCALE);
        assert_true(w->sw_t_ns > 0);
        assert_int_equal(w->sw_bytes, w->bytes);
        assert_true(w->bytes > 0 && w->bytes < (8 << 20));
    }
    rb_phase_destroy(&p);

    j.wearout = 1;
    p = s_start(sb, rd, &ph);
    uint64_t most = 0;
    s_wait_stonewalled(p, &most);
    assert_false(rb_phase_finished(p)); /* waiting for the target */
    uint64_t again;
    assert_false(rb_phase_stonewalled(p, 0, &again)); /* said once */
    rb_phase_wearout(p, 0, most + 40);
    s_wait_finished(p);
    rb_phase_collect(p, RUN_ID, &done);
    for (uint32_t i = 0; i < 2; i++) {
        const rb_worker_stat_t *w = &done.workers[i];
        assert_int_equal(w->ops, most + 40);
        assert_true(w->sw_ops <= most && w->sw_ops > 0);
        assert_true(w->sw_t_ns > w->t_start_ns && w->sw_t_ns < w->t_end_ns);
    }
    rb_phase_destroy(&p);
    s_drop(&sb);
}

/* read_from=random settled on each node: the shifts it gives the ranks make
 * the cycle the coordinator draws (rb_perm_cycle), each rank another's
 * source once; one node reads its own; other jobs keep their shift. */
static void test_settle_random(void **state)
{
    (void)state;
    for (uint32_t n = 1; n <= 9; n++) {
        uint32_t next[9], hits[9] = {0};
        rb_perm_cycle(next, n, 42);
        for (uint32_t rank = 0; rank < n; rank++) {
            rb_job_ctx_t ctx = {.run_id = RUN_ID, .rank = rank, .nnodes = n, .lead = "n1"};
            rb_job_spec_t r = s_job("r", RB_RW_READ, "sync", 4096, 1 << 20);
            r.read_shift = RB_READ_RANDOM;
            r.read_seed = 42;
            assert_int_equal(rb_job_settle_random(&r, &ctx), 0);
            uint32_t src = (rank + r.read_shift) % n;
            assert_int_equal(src, next[rank]);
            assert_true(n == 1 ? r.read_shift == 0 : r.read_shift != 0);
            hits[src]++;
            assert_int_equal(rb_job_settle_random(&r, &ctx), 0); /* settled: left alone */
            assert_int_equal((rank + r.read_shift) % n, src);
        }
        for (uint32_t i = 0; i < n; i++)
            assert_int_equal(hits[i], 1);
    }
    /* reseeded: iteration 2 of read_from_seed=-42 draws with seed 44 */
    uint32_t next[5];
    rb_perm_cycle(next, 5, 44);
    rb_job_ctx_t ctx = {.run_id = RUN_ID, .rank = 3, .nnodes = 5, .lead = "n1"};
    rb_job_spec_t r = s_job("r", RB_RW_READ, "sync", 4096, 1 << 20);
    r.read_shift = RB_READ_RANDOM;
    r.read_seed = 42;
    r.read_reseed = 1;
    r.read_iteration = 2;
    assert_int_equal(rb_job_settle_random(&r, &ctx), 0);
    assert_int_equal((3 + r.read_shift) % 5, next[3]);
    r.read_shift = 2;
    assert_int_equal(rb_job_settle_random(&r, &ctx), 0);
    assert_int_equal(r.read_shift, 2);
}

/* fallocate=truncate: a file that cannot be sized is an error, as in fio;
 * fallocate itself refused (a file system without it) is not. */
static void test_fallocate_errors(void **state)
{
    (void)state;
    int fd = open("/dev/null", O_WRONLY);
    assert_true(fd >= 0);
    assert_int_equal(rb_job_fallocate(fd, RB_FALLOC_TRUNCATE, 1 << 20), -EINVAL);
    assert_int_equal(rb_job_fallocate(fd, RB_FALLOC_NATIVE, 1 << 20), 0);
    assert_int_equal(rb_job_fallocate(fd, RB_FALLOC_NONE, 1 << 20), 0);
    close(fd);
}

int main(void)
{
    snprintf(s_root, sizeof s_root, "%s", RB_TEST_TMP);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_then_verify),
        cmocka_unit_test(test_verify_catches_corruption),
        cmocka_unit_test(test_every_method_runs),
        cmocka_unit_test(test_mix_ratio),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_short_file),
        cmocka_unit_test(test_sync_and_rate),
        cmocka_unit_test(test_meta_steps),
        cmocka_unit_test(test_meta_tree),
        cmocka_unit_test(test_layout_map),
        cmocka_unit_test(test_shared_file),
        cmocka_unit_test(test_read_from_peer),
        cmocka_unit_test(test_stonewall_wearout),
        cmocka_unit_test(test_meta_errors),
        cmocka_unit_test(test_meta_readonly_and_sync),
        cmocka_unit_test(test_settle_random),
        cmocka_unit_test(test_fallocate_errors),
    };
    return rb_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
