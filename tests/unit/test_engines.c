/* One set of tests run against every IO engine this build has (sync, null,
 * libaio, io_uring), each driven through the job runner's loop — queue until
 * BUSY or done, commit, reap — on real files: data round trips at iodepth 1
 * and 16, random order, IOs really in flight, short reads at EOF, errors as
 * negative results, registered files and buffers. Plus the registry itself.
 *
 * Files go to $RB_TEST_TMP, else ./engine-tmp, opened O_DIRECT with 4096-byte
 * aligned buffers; where O_DIRECT is refused (tmpfs) the tests say so and run
 * buffered.
 *
 * How errors surface (what these tests hold every engine to): queue() returns
 * -errno only for an IO it cannot describe (length or offset out of range);
 * an IO the kernel refuses — bad fd, write to a read-only fd, misaligned
 * O_DIRECT buffer — is COMPLETED (sync) or QUEUED and reaped (libaio, posixaio,
 * io_uring) with io->result = -errno. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "rb_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rb_engine.h"

#define S_BS        4096u /* block size and buffer alignment */
#define S_MAX_QD    32u   /* most IOs a test keeps in flight */
#define S_MAX_FILES 4u    /* most files one test opens */
#define S_NBLOCKS   64u   /* blocks per file in the round-trip tests */

/* Every engine this file knows about; those the build lacks are skipped. */
static const char *const s_all_engines[] = {"sync",    "null",  "libaio",   "io_uring", "pvsync",
                                            "pvsync2", "vsync", "posixaio", "mmap"};

static const char *s_dir;   /* scratch directory for test files */
static int s_said_buffered; /* the O_DIRECT fallback was reported */

/* One block of one file. */
typedef struct {
    unsigned file; /* index into the test's files (and io->file_index) */
    uint64_t off;  /* byte offset, multiple of S_BS */
} s_blk_t;

/* What the runner loop saw. */
typedef struct {
    unsigned queued;     /* queue() answered QUEUED */
    unsigned completed;  /* queue() answered COMPLETED */
    unsigned busy;       /* queue() answered BUSY */
    unsigned reaps;      /* getevents() calls */
    unsigned first_reap; /* IOs queued and not reaped at the first getevents() */
} s_stats_t;

/* Per-test state: one engine, its files and buffer slots. */
typedef struct {
    const char *engine;           /* name under test, borrowed */
    const rb_engine_ops_t *ops;   /* its table */
    rb_engine_t eng;              /* set up by s_begin() */
    unsigned qd;                  /* iodepth */
    int fds[S_MAX_FILES];         /* open files, -1 when closed */
    char paths[S_MAX_FILES][512]; /* their paths, unlinked in teardown */
    unsigned nfiles;              /* files opened */
    unsigned char *bufs;          /* qd slots of S_BS bytes, contiguous, aligned */
    unsigned char *expect;        /* one block of expected data */
    rb_engine_io_t ios[S_MAX_QD]; /* one IO per buffer slot */
    int direct;                   /* files are O_DIRECT */
} s_ctx_t;

static int s_is_null(const s_ctx_t *c)
{
    return strcmp(c->engine, "null") == 0;
}

/* ---- data patterns: every 8 bytes depend on file, offset and position ---- */

static uint64_t s_mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void s_fill(unsigned char *buf, size_t len, unsigned file, uint64_t off)
{
    for (size_t i = 0; i < len; i += 8) {
        uint64_t w = s_mix(((uint64_t)(file + 1) << 56) ^ (off + i));
        memcpy(buf + i, &w, 8);
    }
}

/* Compares got[0..len) with the pattern of file at off; fails naming the first bad byte. */
static void s_check(s_ctx_t *c, const unsigned char *got, size_t len, unsigned file, uint64_t off)
{
    uint64_t cur = UINT64_MAX; /* block held in c->expect */
    for (size_t i = 0; i < len; i++) {
        uint64_t pos = off + i, blk = pos / S_BS * S_BS;
        if (blk != cur) {
            s_fill(c->expect, S_BS, file, blk);
            cur = blk;
            size_t n = len - i < S_BS - (pos - blk) ? len - i : S_BS - (pos - blk);
            if (memcmp(got + i, c->expect + (pos - blk), n) == 0) {
                i += n - 1; /* the whole run matches */
                continue;
            }
        }
        if (got[i] != c->expect[pos - blk]) {
            print_error("%s: file %u offset %llu: got 0x%02x, want 0x%02x\n", c->engine, file,
                        (unsigned long long)pos, got[i], c->expect[pos - blk]);
            fail();
        }
    }
}

/* ---- fixture ---- */

static int s_setup(void **state)
{
    s_ctx_t *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    c->engine = *state;
    c->ops = rb_engine_find(c->engine);
    for (unsigned i = 0; i < S_MAX_FILES; i++)
        c->fds[i] = -1;
    *state = c;
    return 0;
}

static int s_teardown(void **state)
{
    s_ctx_t *c = *state;
    rb_engine_fini(&c->eng);
    for (unsigned i = 0; i < c->nfiles; i++) {
        if (c->fds[i] >= 0)
            close(c->fds[i]);
        unlink(c->paths[i]);
    }
    free(c->bufs);
    free(c->expect);
    free(c);
    return 0;
}

/* Starts the engine at iodepth qd with qd buffer slots; skips the test when
 * the kernel lacks what the engine needs. */
static void s_begin(s_ctx_t *c, unsigned qd)
{
    assert_non_null(c->ops);
    assert_true(qd >= 1 && qd <= S_MAX_QD);
    int rc = rb_engine_init(&c->eng, c->ops, qd, NULL);
    if (rc == -ENOSYS || rc == -EPERM) {
        static const char *said; /* engine already reported */
        if (said != c->engine)
            print_message("%s: engine unavailable here (%s); skipping the %s tests\n", c->engine,
                          strerror(-rc), c->engine);
        said = c->engine;
        rb_skip("the engine is unavailable here");
    }
    if (rc < 0)
        print_error("%s: init at iodepth %u: %s\n", c->engine, qd, strerror(-rc));
    assert_int_equal(rc, 0);
    c->qd = qd;
    void *b = NULL;
    assert_int_equal(posix_memalign(&b, S_BS, (size_t)qd * S_BS), 0);
    c->bufs = b;
    memset(c->bufs, 0, (size_t)qd * S_BS);
    assert_int_equal(posix_memalign(&b, S_BS, S_BS), 0);
    c->expect = b;
}

/* Opens (creates, truncates) a scratch file, O_DIRECT if direct and the file
 * system allows it; returns its index. */
static unsigned s_open(s_ctx_t *c, const char *tag, int direct)
{
    assert_true(c->nfiles < S_MAX_FILES);
    unsigned i = c->nfiles;
    snprintf(c->paths[i], sizeof c->paths[i], "%s/%s-%ld-%s-%u.dat", s_dir, c->engine,
             (long)getpid(), tag, i);
    int fd = open(c->paths[i], O_RDWR | O_CREAT | O_TRUNC | (direct ? O_DIRECT : 0), 0600);
    if (fd < 0 && direct && errno == EINVAL) {
        if (!s_said_buffered++)
            print_message("O_DIRECT refused on %s (tmpfs?); testing buffered IO\n", s_dir);
        direct = 0;
        fd = open(c->paths[i], O_RDWR | O_CREAT | O_TRUNC, 0600);
    }
    if (fd < 0)
        print_error("open %s: %s\n", c->paths[i], strerror(errno));
    assert_true(fd >= 0);
    /* an engine that cannot grow a file (mmap) gets it laid out, as the runner does */
    const rb_engine_ops_t *ops = rb_engine_find(c->engine);
    if (ops && (ops->flags & RB_ENGINE_F_NOEXTEND))
        assert_int_equal(ftruncate(fd, (off_t)S_NBLOCKS * 4 * S_BS), 0);
    c->fds[i] = fd;
    c->direct = direct;
    c->nfiles++;
    return i;
}

/* Gives the engine the test's files and buffer slots, as a worker does. */
static void s_give_res(s_ctx_t *c)
{
    if (!c->ops->setup)
        return;
    rb_engine_res_t res = {
        .fds = c->fds, .nfds = c->nfiles, .bufs = c->bufs, .nbufs = c->qd, .buf_len = S_BS};
    int rc = c->ops->setup(&c->eng, &res);
    if (rc < 0)
        print_error("%s: setup: %s\n", c->engine, strerror(-rc));
    assert_int_equal(rc, 0);
}

/* ---- the runner loop ---- */

static void s_complete(s_ctx_t *c, rb_engine_io_t *io, int64_t want)
{
    if (io->result != want)
        print_error("%s: %s of file %u at %llu: result %lld, want %lld\n", c->engine,
                    io->dir == RB_ENGINE_READ ? "read" : "write", io->file_index,
                    (unsigned long long)io->off, (long long)io->result, (long long)want);
    assert_true(io->result == want);
    if (io->dir == RB_ENGINE_READ && !s_is_null(c) && want > 0)
        s_check(c, io->buf, (size_t)want, io->file_index, io->off);
}

/* Moves blks[0..n) between the files and the engine, c->qd IOs at a time, the
 * way the job runner does: queue until BUSY or out of slots, commit, reap at
 * most reap_max. Writes carry the block's pattern; reads are checked. */
static void s_run(s_ctx_t *c, rb_engine_dir_t dir, const s_blk_t *blks, unsigned n,
                  unsigned reap_max, s_stats_t *st)
{
    unsigned slots[S_MAX_QD], nfree = 0, next = 0, out = 0;
    int taken[S_MAX_QD] = {0};
    rb_engine_io_t *done[S_MAX_QD];
    memset(st, 0, sizeof *st);
    for (unsigned k = c->qd; k-- > 0;)
        slots[nfree++] = k;
    while (next < n || out > 0) {
        while (next < n && nfree > 0) {
            unsigned k = slots[nfree - 1];
            rb_engine_io_t *io = &c->ios[k];
            unsigned char *buf = c->bufs + (size_t)k * S_BS;
            *io = (rb_engine_io_t){.fd = c->fds[blks[next].file],
                                   .file_index = blks[next].file,
                                   .buf_index = k,
                                   .dir = dir,
                                   .buf = buf,
                                   .len = S_BS,
                                   .off = blks[next].off,
                                   .result = INT64_MIN};
            if (dir == RB_ENGINE_WRITE)
                s_fill(buf, S_BS, io->file_index, io->off);
            else
                memset(buf, 0xa5, S_BS); /* a read that moves nothing cannot pass */
            int rc = c->ops->queue(&c->eng, io);
            if (rc < 0)
                print_error("%s: queue: %s\n", c->engine, strerror(-rc));
            assert_true(rc == RB_ENGINE_Q_COMPLETED || rc == RB_ENGINE_Q_QUEUED ||
                        rc == RB_ENGINE_Q_BUSY);
            if (rc == RB_ENGINE_Q_BUSY) {
                st->busy++;
                break;
            }
            nfree--;
            next++;
            if (rc == RB_ENGINE_Q_COMPLETED) {
                st->completed++;
                s_complete(c, io, S_BS);
                slots[nfree++] = k;
            } else {
                st->queued++;
                taken[k] = 1;
                out++;
            }
        }
        if (out == 0) {
            assert_true(next == n); /* BUSY with nothing outstanding: engine bug */
            continue;
        }
        assert_int_equal(c->ops->commit(&c->eng), 0);
        if (st->reaps++ == 0)
            st->first_reap = out;
        int got = c->ops->getevents(&c->eng, 1, reap_max, done);
        if (got < 0)
            print_error("%s: getevents: %s\n", c->engine, strerror(-got));
        assert_true(got >= 1 && (unsigned)got <= reap_max && (unsigned)got <= out);
        for (int i = 0; i < got; i++) {
            assert_true(done[i] >= c->ios && done[i] < c->ios + c->qd);
            unsigned k = (unsigned)(done[i] - c->ios);
            assert_true(taken[k]); /* each IO comes back once */
            taken[k] = 0;
            s_complete(c, done[i], S_BS);
            slots[nfree++] = k;
            out--;
        }
    }
}

/* Runs one IO to completion; returns what queue() answered (>= 0). */
static int s_one(s_ctx_t *c, rb_engine_io_t *io)
{
    int rc = c->ops->queue(&c->eng, io);
    assert_true(rc == RB_ENGINE_Q_COMPLETED || rc == RB_ENGINE_Q_QUEUED);
    if (rc == RB_ENGINE_Q_QUEUED) {
        rb_engine_io_t *done[1];
        assert_int_equal(c->ops->commit(&c->eng), 0);
        assert_int_equal(c->ops->getevents(&c->eng, 1, 1, done), 1);
        assert_ptr_equal(done[0], io);
    }
    return rc;
}

/* Reads file back outside the engine and checks nblocks blocks of pattern. */
static void s_verify_file(s_ctx_t *c, unsigned file, unsigned nblocks)
{
    int fd = open(c->paths[file], O_RDONLY);
    assert_true(fd >= 0);
    unsigned char *b = c->bufs; /* slot 0; no IO is in flight here */
    for (unsigned i = 0; i < nblocks; i++) {
        assert_int_equal(pread(fd, b, S_BS, (off_t)i * S_BS), S_BS);
        s_check(c, b, S_BS, file, (uint64_t)i * S_BS);
    }
    close(fd);
}

static void s_shuffle(s_blk_t *b, unsigned n, uint64_t seed)
{
    for (unsigned i = n - 1; i > 0; i--) {
        seed = s_mix(seed);
        unsigned j = (unsigned)(seed % (i + 1));
        s_blk_t t = b[i];
        b[i] = b[j];
        b[j] = t;
    }
}

/* ---- tests run against every engine ---- */

static void s_seq(s_ctx_t *c, unsigned qd)
{
    s_blk_t blks[S_NBLOCKS];
    s_stats_t st;
    s_begin(c, qd);
    unsigned f = s_open(c, "seq", 1);
    s_give_res(c);
    for (unsigned i = 0; i < S_NBLOCKS; i++)
        blks[i] = (s_blk_t){f, (uint64_t)i * S_BS};
    s_run(c, RB_ENGINE_WRITE, blks, S_NBLOCKS, qd, &st);
    assert_int_equal(st.queued + st.completed, S_NBLOCKS);
    if (s_is_null(c) && qd == 1)
        assert_int_equal(st.completed, S_NBLOCKS); /* null at iodepth 1 completes at once */
    s_run(c, RB_ENGINE_READ, blks, S_NBLOCKS, qd, &st);
    assert_int_equal(st.queued + st.completed, S_NBLOCKS);
    if (!s_is_null(c))
        s_verify_file(c, f, S_NBLOCKS);
}

static void test_seq_qd1(void **state)
{
    s_seq(*state, 1);
}

static void test_seq_qd16(void **state)
{
    s_seq(*state, 16);
}

static void test_random_qd16(void **state)
{
    s_ctx_t *c = *state;
    s_blk_t blks[S_NBLOCKS];
    s_stats_t st;
    s_begin(c, 16);
    unsigned f = s_open(c, "rand", 1);
    s_give_res(c);
    for (unsigned i = 0; i < S_NBLOCKS; i++)
        blks[i] = (s_blk_t){f, (uint64_t)i * S_BS};
    s_shuffle(blks, S_NBLOCKS, 42);
    s_run(c, RB_ENGINE_WRITE, blks, S_NBLOCKS, 16, &st);
    s_shuffle(blks, S_NBLOCKS, 7);
    s_run(c, RB_ENGINE_READ, blks, S_NBLOCKS, 3, &st); /* reap in small batches too */
    assert_int_equal(st.queued + st.completed, S_NBLOCKS);
    if (!s_is_null(c))
        s_verify_file(c, f, S_NBLOCKS);
}

/* Async engines hold iodepth IOs at once: 16 QUEUED, the 17th BUSY, one
 * commit, getevents(16, 16) returns all 16; the runner loop sees > 1
 * outstanding at its first reap. Sync completes everything in queue(). */
static void test_inflight_qd16(void **state)
{
    s_ctx_t *c = *state;
    s_blk_t blks[S_NBLOCKS];
    s_stats_t st;
    rb_engine_io_t *done[S_MAX_QD];
    s_begin(c, 16);
    unsigned f = s_open(c, "inflight", 1);
    s_give_res(c);

    unsigned queued = 0, completed = 0;
    for (unsigned k = 0; k < 16; k++) {
        rb_engine_io_t *io = &c->ios[k];
        *io = (rb_engine_io_t){.fd = c->fds[f],
                               .file_index = f,
                               .buf_index = k,
                               .dir = RB_ENGINE_WRITE,
                               .buf = c->bufs + (size_t)k * S_BS,
                               .len = S_BS,
                               .off = (uint64_t)k * S_BS,
                               .result = INT64_MIN};
        s_fill(io->buf, S_BS, f, io->off);
        int rc = c->ops->queue(&c->eng, io);
        assert_true(rc == RB_ENGINE_Q_COMPLETED || rc == RB_ENGINE_Q_QUEUED);
        queued += rc == RB_ENGINE_Q_QUEUED;
        completed += rc == RB_ENGINE_Q_COMPLETED;
    }
    if (!c->ops->commit) {
        assert_int_equal(completed, 16);
        print_message("%s: synchronous, every IO completes inside queue()\n", c->engine);
    } else {
        assert_int_equal(queued, 16);
        rb_engine_io_t extra = c->ios[0];
        assert_int_equal(c->ops->queue(&c->eng, &extra), RB_ENGINE_Q_BUSY);
        assert_int_equal(c->ops->commit(&c->eng), 0);
        assert_int_equal(c->ops->getevents(&c->eng, 16, 16, done), 16);
        int seen[16] = {0};
        for (unsigned i = 0; i < 16; i++) {
            unsigned k = (unsigned)(done[i] - c->ios);
            assert_true(k < 16 && !seen[k]);
            seen[k] = 1;
            assert_true(done[i]->result == S_BS);
        }
        /* Nothing outstanding: getevents must answer 0, not wait forever. */
        assert_int_equal(c->ops->getevents(&c->eng, 1, 16, done), 0);
    }

    for (unsigned i = 0; i < S_NBLOCKS; i++)
        blks[i] = (s_blk_t){f, (uint64_t)i * S_BS};
    s_run(c, RB_ENGINE_WRITE, blks, S_NBLOCKS, 16, &st);
    if (c->ops->commit) {
        print_message("%s: %u IOs outstanding at the first reap (iodepth 16)\n", c->engine,
                      st.first_reap);
        assert_true(st.first_reap > 1);
    } else {
        assert_int_equal(st.completed, S_NBLOCKS);
    }
}

static void test_short_read_eof(void **state)
{
    s_ctx_t *c = *state;
    if (s_is_null(c)) {
        print_message("null: moves no data, has no EOF: not a case of null\n");
        return;
    }
    s_begin(c, 4);
    unsigned f = s_open(c, "eof", 0);             /* buffered: a short tail is allowed */
    assert_int_equal(ftruncate(c->fds[f], 0), 0); /* the end where the test puts it */
    s_give_res(c);
    unsigned char *b = c->bufs;
    for (unsigned i = 0; i < 2; i++) {
        s_fill(b, S_BS, f, (uint64_t)i * S_BS);
        assert_int_equal(pwrite(c->fds[f], b, S_BS, (off_t)i * S_BS), S_BS);
    }
    const uint64_t eof = 2 * S_BS;
    rb_engine_io_t io = {.fd = c->fds[f],
                         .file_index = f,
                         .buf_index = 1,
                         .dir = RB_ENGINE_READ,
                         .buf = c->bufs + S_BS,
                         .len = S_BS,
                         .off = eof - 2048,
                         .result = INT64_MIN};
    memset(io.buf, 0xa5, S_BS);
    s_one(c, &io);
    s_complete(c, &io, 2048);
    io.off = eof;
    io.result = INT64_MIN;
    s_one(c, &io);
    s_complete(c, &io, 0);
    io.off = eof + 10 * S_BS;
    io.result = INT64_MIN;
    s_one(c, &io);
    s_complete(c, &io, 0);
}

/* A trim of a file punches a hole: done in queue() (COMPLETED, as fio's
 * engines do trims at once), its length in result, the blocks gone from the
 * file (st_blocks shrinks, they read back as zeros), its size kept; a trim
 * on a file opened read-only fails in result. */
static void test_trim_file(void **state)
{
    s_ctx_t *c = *state;
    if (s_is_null(c)) {
        print_message("null: moves no data, trims nothing: not a case of null\n");
        return;
    }
    s_begin(c, 4);
    unsigned f = s_open(c, "trim", 0);
    s_give_res(c);
    const unsigned n = 16;
    for (unsigned i = 0; i < n; i++) {
        s_fill(c->bufs, S_BS, f, (uint64_t)i * S_BS);
        assert_int_equal(pwrite(c->fds[f], c->bufs, S_BS, (off_t)i * S_BS), S_BS);
    }
    assert_int_equal(fsync(c->fds[f]), 0);
    struct stat before, after;
    assert_int_equal(fstat(c->fds[f], &before), 0);
    rb_engine_io_t io = {.fd = c->fds[f],
                         .file_index = f,
                         .dir = RB_ENGINE_TRIM,
                         .buf = c->bufs,
                         .len = 8 * S_BS,
                         .off = 4 * S_BS,
                         .result = INT64_MIN};
    assert_int_equal(c->ops->queue(&c->eng, &io), RB_ENGINE_Q_COMPLETED);
    if (io.result == -EOPNOTSUPP) {
        print_message("%s: %s does not punch holes\n", c->engine, s_dir);
        rb_skip("the test folder's file system does not punch holes");
    }
    assert_int_equal(io.result, 8 * S_BS);
    assert_int_equal(fstat(c->fds[f], &after), 0);
    assert_int_equal(after.st_size, before.st_size);
    assert_true(after.st_blocks < before.st_blocks);
    print_message("%s: trim of 32 KiB: st_blocks %lld -> %lld\n", c->engine,
                  (long long)before.st_blocks, (long long)after.st_blocks);
    unsigned char *b = c->bufs + S_BS;
    for (unsigned i = 0; i < n; i++) {
        assert_int_equal(pread(c->fds[f], b, S_BS, (off_t)i * S_BS), S_BS);
        if (i >= 4 && i < 12) {
            for (unsigned k = 0; k < S_BS; k++)
                assert_int_equal(b[k], 0);
        } else {
            s_check(c, b, S_BS, f, (uint64_t)i * S_BS);
        }
    }
    int ro = open(c->paths[f], O_RDONLY);
    assert_true(ro >= 0);
    io.fd = ro;
    io.result = INT64_MIN;
    assert_int_equal(c->ops->queue(&c->eng, &io), RB_ENGINE_Q_COMPLETED);
    assert_int_equal(io.result, -EBADF);
    close(ro);
}

/* IO errors come back in io->result (queue() still answers COMPLETED or
 * QUEUED), one bad IO in a batch does not spoil the others, nothing crashes. */
static void test_io_error(void **state)
{
    s_ctx_t *c = *state;
    if (s_is_null(c)) {
        print_message("null: moves no data, cannot fail: not a case of null\n");
        return;
    }
    s_begin(c, 8);
    unsigned rw = s_open(c, "err", 1);
    int ro = open(c->paths[rw], O_RDONLY);
    assert_true(ro >= 0);
    c->fds[c->nfiles] = ro;
    memcpy(c->paths[c->nfiles], c->paths[rw], sizeof c->paths[0]);
    unsigned rof = c->nfiles++;
    s_give_res(c);

    /* a write through a read-only fd */
    rb_engine_io_t io = {.fd = ro,
                         .file_index = rof,
                         .buf_index = 0,
                         .dir = RB_ENGINE_WRITE,
                         .buf = c->bufs,
                         .len = S_BS,
                         .off = 0,
                         .result = INT64_MIN};
    int rc = s_one(c, &io);
    print_message("%s: write to O_RDONLY fd: queue() answered %s, io->result %lld\n", c->engine,
                  rc == RB_ENGINE_Q_COMPLETED ? "COMPLETED" : "QUEUED", (long long)io.result);
    assert_true(io.result == -EBADF);

    /* a read from no file at all */
    io = (rb_engine_io_t){.fd = -1,
                          .file_index = UINT_MAX,
                          .buf_index = 0,
                          .dir = RB_ENGINE_READ,
                          .buf = c->bufs,
                          .len = S_BS,
                          .off = 0,
                          .result = INT64_MIN};
    s_one(c, &io);
    assert_true(io.result == -EBADF);

    /* a misaligned O_DIRECT buffer: -EINVAL, or moved anyway where the file
     * system falls back to buffered IO (ext4 does) */
    if (c->direct) {
        io = (rb_engine_io_t){.fd = c->fds[rw],
                              .file_index = rw,
                              .buf_index = 0,
                              .dir = RB_ENGINE_WRITE,
                              .buf = c->bufs + 1,
                              .len = S_BS - 512,
                              .off = 0,
                              .result = INT64_MIN};
        s_one(c, &io);
        assert_true(io.result == -EINVAL || io.result == (int64_t)io.len);
    }

    /* one bad IO in the middle of a batch (libaio: a partial io_submit) */
    rb_engine_io_t *done[S_MAX_QD];
    unsigned n = 0;
    for (unsigned k = 0; k < 8; k++) {
        rb_engine_io_t *x = &c->ios[k];
        unsigned fi = k == 3 ? rof : rw;
        *x = (rb_engine_io_t){.fd = c->fds[fi],
                              .file_index = fi,
                              .buf_index = k,
                              .dir = RB_ENGINE_WRITE,
                              .buf = c->bufs + (size_t)k * S_BS,
                              .len = S_BS,
                              .off = (uint64_t)k * S_BS,
                              .result = INT64_MIN};
        s_fill(x->buf, S_BS, rw, x->off);
        rc = c->ops->queue(&c->eng, x);
        assert_true(rc == RB_ENGINE_Q_COMPLETED || rc == RB_ENGINE_Q_QUEUED);
        n += rc == RB_ENGINE_Q_QUEUED;
    }
    if (n > 0) {
        assert_int_equal(c->ops->commit(&c->eng), 0);
        unsigned got = 0;
        while (got < n) {
            int r = c->ops->getevents(&c->eng, 1, S_MAX_QD, done);
            assert_true(r >= 1);
            got += (unsigned)r;
        }
        assert_int_equal(got, n);
    }
    for (unsigned k = 0; k < 8; k++)
        assert_true(c->ios[k].result == (k == 3 ? -EBADF : (int64_t)S_BS));
}

/* Finds the io_uring instance's fd (the only ring this process has) and reads
 * how many files and buffers are registered with it; 0 if not found. */
static int s_uring_registered(unsigned *files, unsigned *bufs)
{
    DIR *d = opendir("/proc/self/fd");
    int found = 0;
    if (!d)
        return 0;
    struct dirent *de;
    while (!found && (de = readdir(d)) != NULL) {
        char link[300], target[64], line[256];
        snprintf(link, sizeof link, "/proc/self/fd/%s", de->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = 0;
        if (strcmp(target, "anon_inode:[io_uring]") != 0)
            continue;
        snprintf(link, sizeof link, "/proc/self/fdinfo/%s", de->d_name);
        FILE *f = fopen(link, "r");
        if (!f)
            continue;
        int have = 0;
        while (fgets(line, sizeof line, f)) {
            have |= sscanf(line, "UserFiles: %u", files) == 1;
            have |= (sscanf(line, "UserBufs: %u", bufs) == 1) << 1;
        }
        fclose(f);
        found = have == 3;
    }
    closedir(d);
    return found;
}

/* Several files and buffer slots given to setup(); IOs name them by
 * file_index / buf_index and land in the right file from the right memory.
 * An index that does not match the IO's fd or buf is not trusted. */
static void test_setup_files_bufs(void **state)
{
    s_ctx_t *c = *state;
    enum { NF = 3, PER = 16 };
    s_blk_t blks[NF * PER];
    s_stats_t st;
    s_begin(c, 8);
    for (unsigned i = 0; i < NF; i++)
        s_open(c, "multi", 1);
    s_give_res(c);

    if (strcmp(c->engine, "io_uring") == 0) {
        unsigned files = 0, bufs = 0;
        if (s_uring_registered(&files, &bufs)) {
            struct rlimit rl;
            getrlimit(RLIMIT_MEMLOCK, &rl);
            print_message("io_uring: registered %u files, %u buffers (RLIMIT_MEMLOCK %llu)\n",
                          files, bufs, (unsigned long long)rl.rlim_cur);
            assert_int_equal(files, NF);
            /* buffers may be refused under a small RLIMIT_MEMLOCK; then unregistered */
            assert_true(bufs == c->qd || bufs == 0);
        } else {
            print_message("io_uring: fdinfo shows no registration counts; not checked\n");
        }
    }

    for (unsigned i = 0; i < NF * PER; i++)
        blks[i] = (s_blk_t){i % NF, (uint64_t)(i / NF) * S_BS};
    s_shuffle(blks, NF * PER, 99);
    s_run(c, RB_ENGINE_WRITE, blks, NF * PER, c->qd, &st);
    s_run(c, RB_ENGINE_READ, blks, NF * PER, c->qd, &st);
    if (s_is_null(c))
        return;
    for (unsigned i = 0; i < NF; i++)
        s_verify_file(c, i, PER);

    /* file_index 0 but fd of file 2, buf_index 0 but slot 5's memory: the
     * bytes must come from slot 5 and land in file 2. */
    unsigned char *slot5 = c->bufs + 5 * (size_t)S_BS;
    s_fill(slot5, S_BS, 2, PER * S_BS);
    rb_engine_io_t io = {.fd = c->fds[2],
                         .file_index = 0,
                         .buf_index = 0,
                         .dir = RB_ENGINE_WRITE,
                         .buf = slot5,
                         .len = S_BS,
                         .off = PER * S_BS,
                         .result = INT64_MIN};
    s_one(c, &io);
    s_complete(c, &io, S_BS);
    s_verify_file(c, 2, PER + 1);
    const rb_engine_ops_t *ops = rb_engine_find(c->engine); /* mmap's files are laid out */
    off_t end = ops && (ops->flags & RB_ENGINE_F_NOEXTEND) ? S_NBLOCKS * 4 * S_BS : PER * S_BS;
    assert_int_equal(lseek(c->fds[0], 0, SEEK_END), end); /* file 0 untouched */
}

/* ---- the registry ---- */

static void test_names_match_find(void **state)
{
    (void)state;
    const char *names = rb_engine_names();
    assert_non_null(names);
    unsigned listed = 0, found = 0;
    char copy[256];
    snprintf(copy, sizeof copy, "%s", names);
    for (char *save = NULL, *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
        const rb_engine_ops_t *ops = rb_engine_find(t);
        assert_non_null(ops);
        assert_string_equal(ops->name, t);
        listed++;
    }
    for (size_t i = 0; i < sizeof s_all_engines / sizeof s_all_engines[0]; i++) {
        if (rb_engine_find(s_all_engines[i])) {
            found++;
            assert_non_null(strstr(names, s_all_engines[i]));
        }
    }
    assert_int_equal(listed, found);
    assert_non_null(rb_engine_find("sync"));
    assert_non_null(rb_engine_find("null"));
#ifdef HAVE_LIBAIO
    assert_non_null(rb_engine_find("libaio"));
#endif
#ifdef HAVE_LIBURING
    assert_non_null(rb_engine_find("io_uring"));
#endif
    assert_ptr_equal(rb_engine_find("psync"), rb_engine_find("sync"));
    assert_null(rb_engine_find("nope"));
    assert_null(rb_engine_find(""));
    assert_null(rb_engine_find(NULL));
    print_message("engines: %s\n", names);
}

static int s_q(rb_engine_t *e, rb_engine_io_t *io)
{
    (void)e;
    (void)io;
    return RB_ENGINE_Q_COMPLETED;
}

static int s_commit0(rb_engine_t *e)
{
    (void)e;
    return 0;
}

static int s_getev0(rb_engine_t *e, unsigned min, unsigned max, rb_engine_io_t **done)
{
    (void)e, (void)min, (void)max, (void)done;
    return 0;
}

static int s_init_fails(rb_engine_t *e)
{
    (void)e;
    return -ENOSYS;
}

static void test_check(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof s_all_engines / sizeof s_all_engines[0]; i++) {
        const rb_engine_ops_t *ops = rb_engine_find(s_all_engines[i]);
        if (ops)
            assert_int_equal(rb_engine_check(ops), 0);
    }
    const rb_engine_ops_t ok = {.name = "t", .version = RB_ENGINE_OPS_VERSION, .queue = s_q};
    assert_int_equal(rb_engine_check(&ok), 0);
    rb_engine_ops_t bad = ok;
    bad.version = RB_ENGINE_OPS_VERSION + 1;
    assert_int_equal(rb_engine_check(&bad), -EINVAL);
    bad = ok;
    bad.queue = NULL;
    assert_int_equal(rb_engine_check(&bad), -EINVAL);
    bad = ok;
    bad.name = NULL;
    assert_int_equal(rb_engine_check(&bad), -EINVAL);
    bad = ok;
    bad.commit = s_commit0; /* could answer QUEUED but never reap */
    assert_int_equal(rb_engine_check(&bad), -EINVAL);
    bad = ok;
    bad.getevents = s_getev0;
    assert_int_equal(rb_engine_check(&bad), -EINVAL);
    bad.commit = s_commit0;
    assert_int_equal(rb_engine_check(&bad), 0);
    assert_int_equal(rb_engine_check(NULL), -EINVAL);
}

static void test_init_fini(void **state)
{
    (void)state;
    rb_engine_t e;
    assert_int_equal(rb_engine_init(&e, rb_engine_find("sync"), 0, NULL), -EINVAL);
    rb_engine_fini(&e);
    rb_engine_ops_t t = {
        .name = "t", .version = RB_ENGINE_OPS_VERSION, .queue = s_q, .init = s_init_fails};
    assert_int_equal(rb_engine_init(&e, &t, 4, NULL), -ENOSYS);
    assert_null(e.ops); /* nothing for fini to release */
    rb_engine_fini(&e);
    for (size_t i = 0; i < sizeof s_all_engines / sizeof s_all_engines[0]; i++) {
        const rb_engine_ops_t *ops = rb_engine_find(s_all_engines[i]);
        if (!ops)
            continue;
        int rc = rb_engine_init(&e, ops, 4, NULL);
        assert_true(rc == 0 || rc == -ENOSYS || rc == -EPERM);
        rb_engine_fini(&e);
        rb_engine_fini(&e); /* safe twice */
        assert_null(e.ops);
    }
}

/* ---- main: one group per engine, then the registry ---- */

/* With an engine name as argument only that engine's tests run, and the
 * program exits 77 (ctest: skipped) when this build or kernel lacks it. */
int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    if (only) {
        const rb_engine_ops_t *ops = rb_engine_find(only);
        rb_engine_t e;
        int rc = ops ? rb_engine_init(&e, ops, 4, NULL) : -ENOENT;
        if (rc < 0) {
            printf("[ SKIPPED  ] engine %s: %s\n", only, ops ? strerror(-rc) : "not in this build");
            return 77;
        }
        rb_engine_fini(&e);
    }
    s_dir = getenv("RB_TEST_TMP");
    if (!s_dir || !*s_dir)
        s_dir = "./engine-tmp";
    int made = mkdir(s_dir, 0700) == 0;
    if (!made && errno != EEXIST) {
        fprintf(stderr, "test_engines: mkdir %s: %s\n", s_dir, strerror(errno));
        return 1;
    }

    int failed = 0;
    for (size_t i = 0; i < sizeof s_all_engines / sizeof s_all_engines[0]; i++) {
        const char *name = s_all_engines[i];
        if (only && strcmp(only, name) != 0)
            continue;
        if (!rb_engine_find(name)) {
            printf("[ SKIPPED  ] engine %s: not in this build\n", name);
            continue;
        }
        struct CMUnitTest tests[] = {
            cmocka_unit_test_setup_teardown(test_seq_qd1, s_setup, s_teardown),
            cmocka_unit_test_setup_teardown(test_seq_qd16, s_setup, s_teardown),
            cmocka_unit_test_setup_teardown(test_random_qd16, s_setup, s_teardown),
            cmocka_unit_test_setup_teardown(test_inflight_qd16, s_setup, s_teardown),
            cmocka_unit_test_setup_teardown(test_short_read_eof, s_setup, s_teardown),
            cmocka_unit_test_setup_teardown(test_io_error, s_setup, s_teardown),
            cmocka_unit_test_setup_teardown(test_trim_file, s_setup, s_teardown),
            cmocka_unit_test_setup_teardown(test_setup_files_bufs, s_setup, s_teardown),
        };
        static char names[sizeof s_all_engines / sizeof s_all_engines[0]][16][64];
        for (size_t t = 0; t < sizeof tests / sizeof tests[0]; t++) {
            snprintf(names[i][t], sizeof names[i][t], "%s/%s", name, tests[t].name + 5);
            tests[t].name = names[i][t]; /* "io_uring/seq_qd16" */
            tests[t].initial_state = (void *)name;
        }
        failed += cmocka_run_group_tests_name(name, tests, NULL, NULL);
    }

    const struct CMUnitTest registry[] = {
        cmocka_unit_test(test_names_match_find),
        cmocka_unit_test(test_check),
        cmocka_unit_test(test_init_fini),
    };
    failed += cmocka_run_group_tests_name("rb_engine", registry, NULL, NULL);

    if (made)
        rmdir(s_dir);
    return rb_test_exit(failed ? 1 : 0);
}
