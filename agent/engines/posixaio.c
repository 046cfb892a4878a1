/* fio's posixaio: POSIX asynchronous IO (aio_read, aio_write), up to iodepth
 * IOs in flight. The IO starts inside queue() (there is no batch to hand
 * over: commit() has nothing to do); getevents() looks at each IO in flight
 * with aio_error(), takes the finished ones' results with aio_return() and
 * sleeps in aio_suspend() on the rest until enough are done. glibc carries
 * each IO out with pread/pwrite on a helper thread of its own, one thread
 * per file at a time. A trim waits until nothing is in flight (BUSY) and is
 * then done at once, as fio's posixaio does. */
#include <aio.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rb_engine.h"

typedef struct {
    struct aiocb *cbs;         /* iodepth control blocks, one per IO slot */
    rb_engine_io_t **owner;    /* the IO each control block carries */
    unsigned *free;            /* stack of unused control blocks, by index */
    unsigned nfree;            /* entries in free; 0 means iodepth IOs are taken */
    unsigned *busy;            /* control blocks given to glibc, in the order issued */
    unsigned nbusy;            /* entries in busy */
    const struct aiocb **wait; /* those still in progress, for aio_suspend() */
} s_paio_t;

static void s_free(s_paio_t *p)
{
    free(p->cbs);
    free(p->owner);
    free(p->free);
    free(p->busy);
    free(p->wait);
    free(p);
}

static int s_init(rb_engine_t *e)
{
    if (e->iodepth > INT_MAX) /* aio_suspend() counts in an int */
        return -EINVAL;
    s_paio_t *p = calloc(1, sizeof *p);
    if (!p)
        return -ENOMEM;
    unsigned n = e->iodepth;
    p->cbs = calloc(n, sizeof *p->cbs);
    p->owner = calloc(n, sizeof *p->owner);
    p->free = calloc(n, sizeof *p->free);
    p->busy = calloc(n, sizeof *p->busy);
    p->wait = calloc(n, sizeof *p->wait);
    if (!p->cbs || !p->owner || !p->free || !p->busy || !p->wait) {
        s_free(p);
        return -ENOMEM;
    }
    for (unsigned i = 0; i < n; i++)
        p->free[i] = n - 1 - i;
    p->nfree = n;
    e->priv = p;
    return 0;
}

static int s_queue(rb_engine_t *e, rb_engine_io_t *io)
{
    s_paio_t *p = e->priv;
    if (io->off > (uint64_t)LLONG_MAX || io->len > (uint64_t)SSIZE_MAX ||
        (io->dir != RB_ENGINE_READ && io->dir != RB_ENGINE_WRITE && io->dir != RB_ENGINE_TRIM))
        return -EINVAL;
    if (io->dir == RB_ENGINE_TRIM) { /* no aio call: once the queue is empty, at once */
        if (p->nbusy > 0)
            return RB_ENGINE_Q_BUSY;
        return rb_engine_trim_now(io);
    }
    if (p->nfree == 0)
        return RB_ENGINE_Q_BUSY;
    unsigned k = p->free[p->nfree - 1];
    struct aiocb *cb = &p->cbs[k];
    memset(cb, 0, sizeof *cb);
    cb->aio_fildes = io->fd;
    cb->aio_buf = io->buf;
    cb->aio_nbytes = (size_t)io->len;
    cb->aio_offset = (off_t)io->off;
    cb->aio_sigevent.sigev_notify = SIGEV_NONE;
    int rc = io->dir == RB_ENGINE_READ ? aio_read(cb) : aio_write(cb);
    if (rc < 0) {
        /* glibc is out of requests or threads: reap first while anything is
         * in flight; otherwise the IO fails, as any refused one */
        if (errno == EAGAIN && p->nbusy > 0)
            return RB_ENGINE_Q_BUSY;
        io->result = -errno;
        return RB_ENGINE_Q_COMPLETED;
    }
    p->nfree--;
    p->owner[k] = io;
    p->busy[p->nbusy++] = k;
    return RB_ENGINE_Q_QUEUED;
}

/* Every IO already started in queue(). */
static int s_commit(rb_engine_t *e)
{
    (void)e;
    return 0;
}

/* The result of a finished control block (err: what aio_error() said). */
static int64_t s_result(struct aiocb *cb, int err)
{
    ssize_t r = aio_return(cb);
    if (err < 0)
        return -EIO; /* aio_error() did not know the block: never expected */
    if (err > 0)
        return -err; /* ECANCELED included */
    return r < 0 ? -EIO : (int64_t)r;
}

/* Hands back the finished IOs in the order they were issued; sleeps in
 * aio_suspend() on those in progress until min are handed back, max are, or
 * none is left in flight. */
static int s_getevents(rb_engine_t *e, unsigned min, unsigned max, rb_engine_io_t **done)
{
    s_paio_t *p = e->priv;
    unsigned n = 0;
    for (;;) {
        unsigned keep = 0, nwait = 0;
        for (unsigned i = 0; i < p->nbusy; i++) {
            unsigned k = p->busy[i];
            struct aiocb *cb = &p->cbs[k];
            int err = n < max ? aio_error(cb) : EINPROGRESS;
            if (err == EINPROGRESS) {
                p->busy[keep++] = k;
                p->wait[nwait++] = cb;
                continue;
            }
            rb_engine_io_t *io = p->owner[k];
            io->result = s_result(cb, err);
            done[n++] = io;
            p->owner[k] = NULL;
            p->free[p->nfree++] = k;
        }
        p->nbusy = keep;
        if (n >= min || n >= max || p->nbusy == 0)
            break;
        if (aio_suspend(p->wait, (int)nwait, NULL) < 0 && errno != EINTR && errno != EAGAIN)
            return n > 0 ? (int)n : -errno;
    }
    return (int)n;
}

/* Lets every IO in flight land before the runner frees its buffer (and this
 * engine its control block): those not started yet are cancelled. */
static void s_cleanup(rb_engine_t *e)
{
    s_paio_t *p = e->priv;
    if (!p)
        return;
    for (unsigned i = 0; i < p->nbusy; i++)
        aio_cancel(p->cbs[p->busy[i]].aio_fildes, &p->cbs[p->busy[i]]);
    while (p->nbusy > 0) {
        unsigned keep = 0;
        for (unsigned i = 0; i < p->nbusy; i++) {
            struct aiocb *cb = &p->cbs[p->busy[i]];
            if (aio_error(cb) == EINPROGRESS) {
                p->wait[keep] = cb;
                p->busy[keep++] = p->busy[i];
            } else {
                aio_return(cb);
            }
        }
        p->nbusy = keep;
        if (keep > 0)
            aio_suspend(p->wait, (int)keep, NULL);
    }
    s_free(p);
    e->priv = NULL;
}

const rb_engine_ops_t rb_engine_posixaio = {
    .name = "posixaio",
    .version = RB_ENGINE_OPS_VERSION,
    .init = s_init,
    .queue = s_queue,
    .commit = s_commit,
    .getevents = s_getevents,
    .cleanup = s_cleanup,
};
