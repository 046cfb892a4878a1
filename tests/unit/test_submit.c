/* The data workload's one submit path (agent/workloads/rb_data.c) against
 * the engine contract of rb_engine.h, through the real phase runner: a fake
 * engine, "fake", answers COMPLETED for some IOs and QUEUED for others,
 * BUSY every fifth call while IOs are in flight, and moves only half of
 * every third IO it takes. Every byte of the job must be moved exactly
 * once, at its own offset, with the job's totals as if nothing odd had
 * happened; and a commit() that fails, a queue() that answers nonsense or
 * BUSY with nothing in flight must fail the job with a message, not hang.
 *
 * The phase runner finds an engine by name only (rb_engine_find); this
 * program is linked with --wrap=rb_engine_find so that the name "fake"
 * finds the table below. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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

#include "rb_engine.h"
#include "rb_job.h"
#include "rb_phase.h"
#include "rb_sandbox.h"
#include "rb_time.h"

#define RUN_ID "test-run"
#define BS     4096u
#define SIZE   (1u << 20)

/* How long a phase may run before the test gives up on it. */
#define PHASE_DEADLINE_NS (60 * RB_TEST_TIME_SCALE * RB_NS_PER_S)

/* What the fake engine saw, over one phase (one worker: no locking). */
static struct {
    uint8_t moved[SIZE]; /* per byte of the file: times the engine moved it */
    uint64_t bytes;      /* bytes moved */
    unsigned queue_calls, busy, completed, queued, shorts, rests, rests_busy, commits;
    unsigned getevents;
    unsigned violations; /* calls outside the contract (on the worker's thread: no assert there) */
    int fail_commit_at;  /* > 0: that commit() fails with -EIO */
    int bad_answer_at;   /* > 0: that queue() call answers 7 */
    int busy_idle;       /* 1: answer BUSY with nothing in flight too */
    const rb_engine_io_t *last_busy_rest; /* the last rest answered BUSY */
} s_fake;

/* One IO taken, and how much of it the engine will move. */
typedef struct {
    rb_engine_io_t *io;
    uint64_t amt;
} s_taken_t;

/* The fake's state: IOs queued but not committed, and committed ones. */
typedef struct {
    s_taken_t *pending; /* npending, up to iodepth */
    s_taken_t *flight;  /* nflight, up to iodepth */
    unsigned npending, nflight;
} s_fake_t;

static int s_init(rb_engine_t *e)
{
    s_fake_t *f = calloc(1, sizeof *f);
    if (!f)
        return -ENOMEM;
    f->pending = calloc(e->iodepth, sizeof *f->pending);
    f->flight = calloc(e->iodepth, sizeof *f->flight);
    if (!f->pending || !f->flight) {
        free(f->pending);
        free(f->flight);
        free(f);
        return -ENOMEM;
    }
    e->priv = f;
    return 0;
}

static void s_cleanup(rb_engine_t *e)
{
    s_fake_t *f = e->priv;
    if (!f)
        return;
    free(f->pending);
    free(f->flight);
    free(f);
    e->priv = NULL;
}

/* Moves amt bytes of io for real and records them. */
static void s_move(rb_engine_io_t *io, uint64_t amt)
{
    ssize_t n = io->dir == RB_ENGINE_WRITE ? pwrite(io->fd, io->buf, amt, (off_t)io->off)
                                           : pread(io->fd, io->buf, amt, (off_t)io->off);
    io->result = n < 0 ? -errno : n;
    for (uint64_t b = 0; n > 0 && b < (uint64_t)n && io->off + b < SIZE; b++)
        s_fake.moved[io->off + b]++;
    if (n > 0)
        s_fake.bytes += (uint64_t)n;
}

static int s_queue(rb_engine_t *e, rb_engine_io_t *io)
{
    s_fake_t *f = e->priv;
    unsigned call = ++s_fake.queue_calls;
    int rest = io->len < BS; /* the rest of a short IO offered again */
    if (s_fake.bad_answer_at && (int)call == s_fake.bad_answer_at)
        return 7;
    /* busy every fifth call, and at the first offer of a rest (while
     * something is in flight: BUSY must clear by reaping) */
    int inflight = f->npending + f->nflight > 0 || s_fake.busy_idle;
    int busy_rest = rest && io != s_fake.last_busy_rest;
    if (inflight && (call % 5 == 0 || busy_rest)) {
        if (rest)
            s_fake.last_busy_rest = io;
        s_fake.busy++;
        s_fake.rests_busy += rest;
        return RB_ENGINE_Q_BUSY;
    }
    unsigned taken = s_fake.completed + s_fake.queued;
    uint64_t amt = io->len;
    if (taken % 3 == 1 && io->len > 1) {
        amt = io->len / 2;
        s_fake.shorts++;
    }
    s_fake.rests += rest;
    if (taken % 2 == 0) {
        s_fake.completed++;
        s_move(io, amt);
        return RB_ENGINE_Q_COMPLETED;
    }
    if (f->npending + f->nflight >= e->iodepth) { /* more than iodepth in flight */
        s_fake.violations++;
        return -EINVAL;
    }
    f->pending[f->npending++] = (s_taken_t){io, amt};
    s_fake.queued++;
    return RB_ENGINE_Q_QUEUED;
}

static int s_commit(rb_engine_t *e)
{
    s_fake_t *f = e->priv;
    s_fake.commits++;
    if (s_fake.fail_commit_at && (int)s_fake.commits == s_fake.fail_commit_at) {
        f->npending = 0; /* not submitted: the runner takes them back */
        return -EIO;
    }
    for (unsigned i = 0; i < f->npending; i++)
        f->flight[f->nflight++] = f->pending[i];
    f->npending = 0;
    return 0;
}

static int s_getevents(rb_engine_t *e, unsigned min, unsigned max, rb_engine_io_t **done)
{
    s_fake_t *f = e->priv;
    s_fake.getevents++;
    if (min > f->nflight) /* asked to wait for more than it holds */
        s_fake.violations++;
    /* as few as asked for: the others stay in flight */
    unsigned n = min ? min : 1;
    n = n < f->nflight ? n : f->nflight;
    n = n < max ? n : max;
    for (unsigned i = 0; i < n; i++) {
        s_move(f->flight[i].io, f->flight[i].amt);
        done[i] = f->flight[i].io;
    }
    memmove(f->flight, f->flight + n, (f->nflight - n) * sizeof *f->flight);
    f->nflight -= n;
    return (int)n;
}

static const rb_engine_ops_t s_fake_ops = {
    .name = "fake",
    .version = RB_ENGINE_OPS_VERSION,
    .flags = 0,
    .init = s_init,
    .queue = s_queue,
    .commit = s_commit,
    .getevents = s_getevents,
    .cleanup = s_cleanup,
};

const rb_engine_ops_t *__real_rb_engine_find(const char *name);
const rb_engine_ops_t *__wrap_rb_engine_find(const char *name);

const rb_engine_ops_t *__wrap_rb_engine_find(const char *name)
{
    if (name && strcmp(name, "fake") == 0)
        return &s_fake_ops;
    return __real_rb_engine_find(name);
}

static char s_dir[4096];

static rb_sandbox_t *s_sandbox(const char *tag, int *rundir)
{
    mkdir(RB_TEST_TMP, 0755);
    snprintf(s_dir, sizeof s_dir, "%s/%s-%d", RB_TEST_TMP, tag, (int)getpid());
    mkdir(s_dir, 0755);
    rb_sandbox_t *sb = rb_sandbox_new();
    assert_non_null(sb);
    rb_err_t err;
    rb_err_clear(&err);
    assert_int_equal(rb_sandbox_add_root(sb, s_dir, &err), 0);
    *rundir = rb_sandbox_rundir(sb, rb_sandbox_root(sb, 0), RUN_ID, "n1", &err);
    assert_true(*rundir >= 0);
    return sb;
}

static int s_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) < 0 ? -1 : 0;
}

/* Closes the sandbox and removes its folder with what the jobs left in it. */
static void s_drop(rb_sandbox_t **sb)
{
    rb_sandbox_destroy(sb);
    nftw(s_dir, s_rm, 16, FTW_DEPTH | FTW_PHYS);
}

static rb_job_spec_t s_job(const char *name, rb_rw_t rw)
{
    rb_job_spec_t j = {.rw = rw,
                       .bs = BS,
                       .bs_max = BS,
                       .size = SIZE,
                       .numjobs = 1,
                       .iodepth = 4,
                       .rwmixread = 50,
                       .nrfiles = 1,
                       .loops = 1,
                       .randrepeat = 1,
                       .randseed = 7,
                       .verify = RB_VERIFY_CRC32C};
    snprintf(j.name, sizeof j.name, "%s", name);
    snprintf(j.ioengine, sizeof j.ioengine, "fake");
    snprintf(j.filename_format, sizeof j.filename_format, "f.$jobnum.$filenum");
    return j;
}

static const rb_job_ctx_t s_alone = {.run_id = RUN_ID, .rank = 0, .nnodes = 1, .lead = "n1"};

/* Runs job as a one-job phase to its end: its totals into js, the phase's
 * error into msg; the phase's return. */
static int s_run(rb_sandbox_t *sb, int rundir, rb_job_spec_t *job, rb_job_stat_t *js, char *msg,
                 size_t msglen)
{
    rb_phase_spec_t ph = {.njobs = 1, .jobs = job};
    snprintf(ph.name, sizeof ph.name, "%s", job->name);
    int rundirs[1] = {rundir};
    rb_err_t err;
    rb_err_clear(&err);
    rb_phase_t *p = rb_phase_prepare(&ph, 0, sb, rundirs, &s_alone, &err);
    if (!p)
        fail_msg("the phase did not start: %s", err.msg);
    rb_phase_go(p, rb_time_mono_ns());
    uint64_t end = rb_time_mono_ns() + PHASE_DEADLINE_NS;
    while (!rb_phase_finished(p)) {
        if (rb_time_mono_ns() > end) {
            rb_phase_stop(p);
            rb_phase_destroy(&p);
            fail_msg("the phase did not finish in %d s", 60 * RB_TEST_TIME_SCALE);
        }
        usleep(1000);
    }
    rb_msg_done_t done;
    memset(&done, 0, sizeof done);
    int rc = rb_phase_collect(p, RUN_ID, &done);
    *js = done.jobs[0];
    js->hist = NULL;
    snprintf(msg, msglen, "%s", done.error);
    rb_phase_destroy(&p);
    return rc;
}

static void s_reset(void)
{
    memset(&s_fake, 0, sizeof s_fake);
}

/* Every byte once: the fake moved each byte of the file exactly once. */
static void s_each_byte_once(void)
{
    for (uint32_t b = 0; b < SIZE; b++)
        if (s_fake.moved[b] != 1)
            fail_msg("byte %u moved %u times", b, s_fake.moved[b]);
    assert_int_equal(s_fake.bytes, SIZE);
}

/* The engine's answers, each accounted: every queue() call was taken or
 * refused busy, every taken IO is a whole one or a rest of a short one,
 * every QUEUED answer committed at once. */
static void s_answers_add_up(void)
{
    assert_int_equal(s_fake.violations, 0);
    assert_int_equal(s_fake.queue_calls, s_fake.completed + s_fake.queued + s_fake.busy);
    assert_int_equal(s_fake.completed + s_fake.queued, SIZE / BS + s_fake.shorts);
    assert_int_equal(s_fake.rests, s_fake.shorts);
    assert_int_equal(s_fake.commits, s_fake.queued);
    /* each behaviour the test means to exercise did happen */
    assert_true(s_fake.completed > 0);
    assert_true(s_fake.queued > 0);
    assert_true(s_fake.busy > 0);
    assert_true(s_fake.shorts > 0);
    assert_true(s_fake.rests_busy > 0);
}

static void test_contract_totals(void **state)
{
    (void)state;
    for (int random = 0; random < 2; random++) {
        int rd;
        rb_sandbox_t *sb = s_sandbox(random ? "rand" : "seq", &rd);
        rb_job_stat_t js;
        char msg[RB_REASON_MAX];

        s_reset();
        rb_job_spec_t w = s_job("w", random ? RB_RW_RANDWRITE : RB_RW_WRITE);
        int rc = s_run(sb, rd, &w, &js, msg, sizeof msg);
        if (rc != 0)
            fail_msg("write: %d (%s)", rc, msg);
        assert_string_equal(msg, "");
        assert_int_equal(js.bytes, SIZE);
        assert_int_equal(js.ops, SIZE / BS);
        assert_int_equal(js.read_ops, 0);
        assert_int_equal(js.errors, 0);
        s_each_byte_once();
        s_answers_add_up();

        /* read back with verify: a rest moved at the wrong offset or into
         * the wrong part of the buffer would fail the blocks' checks */
        s_reset();
        rb_job_spec_t r = s_job("r", random ? RB_RW_RANDREAD : RB_RW_READ);
        rc = s_run(sb, rd, &r, &js, msg, sizeof msg);
        if (rc != 0)
            fail_msg("read: %d (%s)", rc, msg);
        assert_int_equal(js.bytes, SIZE);
        assert_int_equal(js.ops, SIZE / BS);
        assert_int_equal(js.read_ops, SIZE / BS);
        assert_int_equal(js.read_bytes, SIZE);
        assert_int_equal(js.errors, 0);
        assert_int_equal(js.verify_errors, 0);
        s_each_byte_once();
        s_answers_add_up();
        s_drop(&sb);
    }
}

/* A commit() that fails fails the job with the engine's name and why, and
 * the phase still ends. */
static void test_commit_failure(void **state)
{
    (void)state;
    int rd;
    rb_sandbox_t *sb = s_sandbox("commit", &rd);
    rb_job_stat_t js;
    char msg[RB_REASON_MAX];
    s_reset();
    s_fake.fail_commit_at = 5;
    rb_job_spec_t w = s_job("w", RB_RW_WRITE);
    assert_int_equal(s_run(sb, rd, &w, &js, msg, sizeof msg), -EIO);
    assert_non_null(strstr(msg, "fake submit"));
    assert_non_null(strstr(msg, strerror(EIO)));
    assert_true(js.bytes < SIZE);
    s_drop(&sb);
}

/* An answer outside the contract is an error of the job, counted. */
static void test_unknown_answer(void **state)
{
    (void)state;
    int rd;
    rb_sandbox_t *sb = s_sandbox("answer", &rd);
    rb_job_stat_t js;
    char msg[RB_REASON_MAX];
    s_reset();
    s_fake.bad_answer_at = 10;
    rb_job_spec_t w = s_job("w", RB_RW_WRITE);
    assert_int_equal(s_run(sb, rd, &w, &js, msg, sizeof msg), -EIO);
    assert_non_null(strstr(msg, "unknown answer from queue()"));
    assert_int_equal(js.errors, 1);
    s_drop(&sb);
}

/* BUSY with nothing in flight would never clear: the job fails, it does not
 * spin. */
static void test_busy_idle(void **state)
{
    (void)state;
    int rd;
    rb_sandbox_t *sb = s_sandbox("busy", &rd);
    rb_job_stat_t js;
    char msg[RB_REASON_MAX];
    s_reset();
    s_fake.busy_idle = 1;
    rb_job_spec_t w = s_job("w", RB_RW_WRITE);
    w.iodepth = 1; /* in flight is 0 whenever it asks */
    assert_int_equal(s_run(sb, rd, &w, &js, msg, sizeof msg), -EIO);
    assert_non_null(strstr(msg, "busy with no IO in flight"));
    s_drop(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contract_totals),
        cmocka_unit_test(test_commit_failure),
        cmocka_unit_test(test_unknown_answer),
        cmocka_unit_test(test_busy_idle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
