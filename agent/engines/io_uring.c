/* Linux io_uring through liburing: the engine with the least per-IO kernel
 * cost. queue() fills a submission entry, commit() submits the batch with one
 * io_uring_enter(), getevents() reaps the completion ring. setup() registers
 * the worker's files and buffers so the kernel skips the fd lookup and the page
 * pinning on every IO; if registration is refused (RLIMIT_MEMLOCK, an older
 * kernel) the engine carries on unregistered.
 * fio's engine options: hipri sets the ring up for polled completions
 * (IORING_SETUP_IOPOLL: only O_DIRECT IO on a file or device that can poll,
 * anything else completes with -EOPNOTSUPP, as in fio); sqthread_poll has
 * a kernel thread take the submissions (IORING_SETUP_SQPOLL, bound to
 * sqthread_poll_cpu with IORING_SETUP_SQ_AFF), so that commit() enters the
 * kernel only to wake that thread when it sleeps. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include <liburing.h>

#include "rb_engine.h"
#include "rb_log.h"
#include "rb_time.h"

/* How long a submission waits out -EAGAIN/-EBUSY when nothing is in flight. */
#define S_EAGAIN_TRIES    2000
#define S_EAGAIN_SLEEP_NS 50000
/* With SQPOLL, how long a reap watches the completion ring before it waits
 * in the kernel (fio only watches it). */
#define S_SQPOLL_SPIN_NS 10000000ull

typedef struct {
    struct io_uring ring;       /* SQ of iodepth entries, CQ twice that */
    unsigned inflight;          /* queued and not yet reaped (submitted or not) */
    unsigned unsent;            /* SQPOLL: queued and not yet handed to the kernel thread */
    struct io_uring_cqe **cqes; /* iodepth completions for one peek */
    int *files;                 /* registered fds, index = rb_io.file_index; NULL if none */
    unsigned nfiles;            /* entries in files */
    char *bufs;                 /* registered buffers, contiguous; NULL if none */
    unsigned nbufs;             /* registered buffer slots */
    uint64_t buf_len;           /* bytes per slot */
} s_uring_t;

static int s_init(rb_engine_t *e)
{
    s_uring_t *p = calloc(1, sizeof *p);
    if (!p)
        return -ENOMEM;
    p->cqes = calloc(e->iodepth, sizeof *p->cqes);
    if (!p->cqes) {
        free(p);
        return -ENOMEM;
    }
    struct io_uring_params prm;
    memset(&prm, 0, sizeof prm);
    if (e->opts.hipri)
        prm.flags |= IORING_SETUP_IOPOLL;
    if (e->opts.sqpoll) {
        prm.flags |= IORING_SETUP_SQPOLL;
        if (e->opts.sqpoll_aff) { /* as fio: the CPU counts only with the thread */
            prm.flags |= IORING_SETUP_SQ_AFF;
            prm.sq_thread_cpu = e->opts.sqpoll_cpu;
        }
    }
    /* -ENOSYS: no io_uring in this kernel; -EPERM: disabled by sysctl or
     * seccomp (or SQPOLL unprivileged before 5.11); -EINVAL: a flag this
     * kernel lacks, or sqthread_poll_cpu not a CPU here. */
    int rc = io_uring_queue_init_params(e->iodepth, &p->ring, &prm);
    if (rc < 0) {
        free(p->cqes);
        free(p);
        return rc;
    }
    e->priv = p;
    return 0;
}

static int s_setup(rb_engine_t *e, const rb_engine_res_t *res)
{
    s_uring_t *p = e->priv;
    if (p->files) {
        io_uring_unregister_files(&p->ring);
        free(p->files);
        p->files = NULL;
        p->nfiles = 0;
    }
    if (p->bufs) {
        io_uring_unregister_buffers(&p->ring);
        p->bufs = NULL;
        p->nbufs = 0;
    }
    if (res->nfds > 0 && res->fds) {
        int *files = malloc(res->nfds * sizeof *files);
        if (!files)
            return -ENOMEM;
        memcpy(files, res->fds, res->nfds * sizeof *files);
        int rc = io_uring_register_files(&p->ring, files, res->nfds);
        if (rc == 0) {
            p->files = files;
            p->nfiles = res->nfds;
        } else {
            free(files);
            rb_info("io_uring: registering %u files refused (%s); using plain fds", res->nfds,
                    strerror(-rc));
        }
    }
    if (res->nbufs > 0 && res->bufs && res->buf_len > 0) {
        struct iovec *iov = malloc(res->nbufs * sizeof *iov);
        if (!iov)
            return -ENOMEM;
        for (unsigned i = 0; i < res->nbufs; i++) {
            iov[i].iov_base = (char *)res->bufs + i * res->buf_len;
            iov[i].iov_len = (size_t)res->buf_len;
        }
        int rc = io_uring_register_buffers(&p->ring, iov, res->nbufs);
        if (rc == 0) {
            p->bufs = res->bufs;
            p->nbufs = res->nbufs;
            p->buf_len = res->buf_len;
        } else {
            rb_info("io_uring: registering %u buffers of %llu bytes refused (%s%s); using "
                    "unregistered buffers",
                    res->nbufs, (unsigned long long)res->buf_len, strerror(-rc),
                    rc == -ENOMEM ? ", RLIMIT_MEMLOCK?" : "");
        }
        free(iov);
    }
    return 0;
}

/* The registered slot is used only when it is the same file / memory the IO
 * names, so a stale index can never send bytes to the wrong place. */
static int s_fixed_buf(const s_uring_t *p, const rb_engine_io_t *io)
{
    if (io->buf_index >= p->nbufs)
        return 0;
    uintptr_t slot = (uintptr_t)p->bufs + io->buf_index * p->buf_len, b = (uintptr_t)io->buf;
    return b >= slot && io->len <= p->buf_len && b - slot <= p->buf_len - io->len;
}

static int s_queue(rb_engine_t *e, rb_engine_io_t *io)
{
    s_uring_t *p = e->priv;
    if (io->len > UINT_MAX ||
        (io->dir != RB_ENGINE_READ && io->dir != RB_ENGINE_WRITE && io->dir != RB_ENGINE_TRIM))
        return -EINVAL;
    if (io->dir == RB_ENGINE_TRIM) /* at once, as fio's io_uring does (do_io_u_trim) */
        return rb_engine_trim_now(io);
    if (p->inflight >= e->iodepth)
        return RB_ENGINE_Q_BUSY;
    struct io_uring_sqe *sqe = io_uring_get_sqe(&p->ring);
    if (!sqe)
        return RB_ENGINE_Q_BUSY;
    int fd = io->fd;
    unsigned flags = 0;
    if (io->file_index < p->nfiles && p->files[io->file_index] == io->fd) {
        fd = (int)io->file_index;
        flags = IOSQE_FIXED_FILE;
    }
    unsigned len = (unsigned)io->len;
    if (s_fixed_buf(p, io)) {
        if (io->dir == RB_ENGINE_READ)
            io_uring_prep_read_fixed(sqe, fd, io->buf, len, io->off, (int)io->buf_index);
        else
            io_uring_prep_write_fixed(sqe, fd, io->buf, len, io->off, (int)io->buf_index);
    } else {
        if (io->dir == RB_ENGINE_READ)
            io_uring_prep_read(sqe, fd, io->buf, len, io->off);
        else
            io_uring_prep_write(sqe, fd, io->buf, len, io->off);
    }
    sqe->ioprio = io->ioprio; /* as fio's cmdprio: 0 leaves the thread's own */
    io_uring_sqe_set_flags(sqe, flags);
    io_uring_sqe_set_data(sqe, io);
    p->inflight++;
    if (p->ring.flags & IORING_SETUP_SQPOLL)
        p->unsent++;
    return RB_ENGINE_Q_QUEUED;
}

/* Entries queued that the kernel has not been given: those still in the SQ,
 * or with SQPOLL those not yet published to the kernel thread (which takes
 * what is published in its own time: they are submitted). */
static unsigned s_unsent(const s_uring_t *p)
{
    return (p->ring.flags & IORING_SETUP_SQPOLL) ? p->unsent : io_uring_sq_ready(&p->ring);
}

/* Submits what is in the SQ. A refused submission (-EAGAIN/-EBUSY: the kernel
 * is short of memory or completions) leaves the entries in the SQ; with IOs in
 * flight the next reap makes room, otherwise wait a little and retry. With
 * SQPOLL one io_uring_submit publishes them all and wakes the thread if it
 * sleeps (IORING_SQ_NEED_WAKEUP), entering the kernel only then. */
static int s_submit(s_uring_t *p)
{
    if (p->ring.flags & IORING_SETUP_SQPOLL) {
        int r;
        do
            r = io_uring_submit(&p->ring);
        while (r == -EINTR);
        if (r < 0)
            return r;
        p->unsent = 0;
        return 0;
    }
    unsigned tries = 0;
    while (io_uring_sq_ready(&p->ring) > 0) {
        int r = io_uring_submit(&p->ring);
        if (r > 0 || r == -EINTR) {
            tries = 0;
            continue;
        }
        if (r == 0 || r == -EAGAIN || r == -EBUSY) {
            if (p->inflight > s_unsent(p))
                return 0;
            if (++tries > S_EAGAIN_TRIES)
                return r ? r : -EAGAIN;
            struct timespec ts = {0, S_EAGAIN_SLEEP_NS};
            nanosleep(&ts, NULL);
            continue;
        }
        return r;
    }
    return 0;
}

static int s_commit(rb_engine_t *e)
{
    return s_submit(e->priv);
}

/* Reaps until min IOs are handed back or none is left outstanding; entries
 * a refused submission left in the SQ go in as reaping makes room. */
static int s_getevents(rb_engine_t *e, unsigned min, unsigned max, rb_engine_io_t **done)
{
    s_uring_t *p = e->priv;
    unsigned n = 0;
    if (max > e->iodepth)
        max = e->iodepth;
    for (;;) {
        if (s_unsent(p) > 0) {
            int rc = s_submit(p);
            if (rc < 0)
                return n > 0 ? (int)n : rc;
        }
        /* Never wait for more than the kernel has been given. */
        unsigned submitted = p->inflight - s_unsent(p);
        unsigned need = min > n ? min - n : 0;
        if (need > submitted)
            need = submitted;
        if (need > max - n)
            need = max - n;
        if (need > 0 && (p->ring.flags & IORING_SETUP_SQPOLL)) {
            /* as fio: the kernel thread posts completions, no need to
             * enter the kernel while they come */
            uint64_t until = 0;
            for (unsigned k = 0; io_uring_cq_ready(&p->ring) < need; k++) {
                if ((k & 1023) == 0) {
                    uint64_t now = rb_time_mono_ns();
                    if (!until)
                        until = now + S_SQPOLL_SPIN_NS;
                    else if (now > until)
                        break;
                }
            }
        }
        if (need > 0 && io_uring_cq_ready(&p->ring) < need) {
            struct io_uring_cqe *cqe;
            int r;
            do
                r = io_uring_wait_cqe_nr(&p->ring, &cqe, need);
            while (r == -EINTR);
            if (r < 0)
                return n > 0 ? (int)n : r;
        }
        unsigned got = io_uring_peek_batch_cqe(&p->ring, p->cqes, max - n);
        for (unsigned i = 0; i < got; i++) {
            rb_engine_io_t *io = io_uring_cqe_get_data(p->cqes[i]);
            if (!io)
                continue; /* not ours; nothing else submits here */
            io->result = p->cqes[i]->res;
            done[n++] = io;
            p->inflight--;
        }
        io_uring_cq_advance(&p->ring, got);
        if (n >= min || n == max || p->inflight == 0 || s_unsent(p) == 0)
            break;
    }
    return (int)n;
}

static void s_cleanup(rb_engine_t *e)
{
    s_uring_t *p = e->priv;
    if (!p)
        return;
    /* Let in-flight IOs land before the runner frees their buffers. */
    if (s_unsent(p) > 0)
        s_submit(p);
    while (p->inflight > s_unsent(p)) {
        struct io_uring_cqe *cqe;
        int r = io_uring_wait_cqe(&p->ring, &cqe);
        if (r == -EINTR)
            continue;
        if (r < 0)
            break;
        io_uring_cqe_seen(&p->ring, cqe);
        p->inflight--;
    }
    io_uring_queue_exit(&p->ring);
    free(p->files);
    free(p->cqes);
    free(p);
    e->priv = NULL;
}

const rb_engine_ops_t rb_engine_io_uring = {
    .name = "io_uring",
    .version = RB_ENGINE_OPS_VERSION,
    .init = s_init,
    .setup = s_setup,
    .queue = s_queue,
    .commit = s_commit,
    .getevents = s_getevents,
    .cleanup = s_cleanup,
};
