/* Linux native AIO through libaio: the asynchronous engine that works on every
 * kernel rackbench supports, and the baseline io_uring is compared against.
 * queue() only prepares an iocb; commit() hands the batch to io_submit() and
 * getevents() reaps with io_getevents(). Truly asynchronous only with O_DIRECT;
 * buffered IO completes inside io_submit(). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libaio.h>

#include "rb_engine.h"

/* How long a submission waits out -EAGAIN when nothing is in flight to reap. */
#define S_EAGAIN_TRIES    2000
#define S_EAGAIN_SLEEP_NS 50000

/* The kernel's IOCB_FLAG_IOPRIO (linux/aio_abi.h): aio_reqprio holds a priority. */
#define S_IOCB_FLAG_IOPRIO (1u << 1)

typedef struct {
    io_context_t ctx;        /* kernel AIO context sized to iodepth */
    struct iocb *iocbs;      /* iodepth control blocks, one per IO slot */
    struct iocb **free;      /* stack of unused control blocks */
    unsigned nfree;          /* entries in free; 0 means iodepth IOs are taken */
    struct iocb **pend;      /* prepared, not yet accepted by io_submit(), in order */
    unsigned npend;          /* entries in pend */
    struct iocb **failed;    /* refused by io_submit(); handed back by getevents() */
    unsigned nfailed;        /* entries in failed */
    unsigned ninflight;      /* accepted by the kernel, not yet reaped */
    struct io_event *events; /* iodepth events for io_getevents() */
} s_aio_t;

static void s_free(s_aio_t *p)
{
    free(p->iocbs);
    free(p->free);
    free(p->pend);
    free(p->failed);
    free(p->events);
    free(p);
}

static int s_init(rb_engine_t *e)
{
    if (e->iodepth > INT_MAX)
        return -EINVAL;
    s_aio_t *p = calloc(1, sizeof *p);
    if (!p)
        return -ENOMEM;
    unsigned n = e->iodepth;
    p->iocbs = calloc(n, sizeof *p->iocbs);
    p->free = calloc(n, sizeof *p->free);
    p->pend = calloc(n, sizeof *p->pend);
    p->failed = calloc(n, sizeof *p->failed);
    p->events = calloc(n, sizeof *p->events);
    if (!p->iocbs || !p->free || !p->pend || !p->failed || !p->events) {
        s_free(p);
        return -ENOMEM;
    }
    int rc = io_setup((int)n, &p->ctx); /* libaio returns -errno */
    if (rc < 0) {
        s_free(p);
        return rc;
    }
    for (unsigned i = 0; i < n; i++)
        p->free[i] = &p->iocbs[n - 1 - i];
    p->nfree = n;
    e->priv = p;
    return 0;
}

static int s_queue(rb_engine_t *e, rb_engine_io_t *io)
{
    s_aio_t *p = e->priv;
    if (io->off > (uint64_t)LLONG_MAX || io->len > (uint64_t)LONG_MAX ||
        (io->dir != RB_ENGINE_READ && io->dir != RB_ENGINE_WRITE && io->dir != RB_ENGINE_TRIM))
        return -EINVAL;
    if (io->dir == RB_ENGINE_TRIM) /* no aio opcode: at once, as fio's libaio does */
        return rb_engine_trim_now(io);
    if (p->nfree == 0)
        return RB_ENGINE_Q_BUSY;
    struct iocb *cb = p->free[--p->nfree];
    if (io->dir == RB_ENGINE_READ)
        io_prep_pread(cb, io->fd, io->buf, (size_t)io->len, (long long)io->off);
    else
        io_prep_pwrite(cb, io->fd, io->buf, (size_t)io->len, (long long)io->off);
    if (io->ioprio) { /* as fio's cmdprio: the priority in the iocb, flagged */
        cb->aio_reqprio = (short)io->ioprio;
        cb->u.c.flags |= S_IOCB_FLAG_IOPRIO;
    }
    cb->data = io;
    p->pend[p->npend++] = cb;
    return RB_ENGINE_Q_QUEUED;
}

/* Hands pend[] to the kernel. io_submit() may accept fewer than asked (the
 * rest is resubmitted) or refuse the first one (bad fd, misaligned O_DIRECT
 * buffer: that IO completes with the error and the rest goes on). On -EAGAIN
 * with IOs in flight the remainder stays pending until after the next reap. */
static int s_submit(s_aio_t *p)
{
    unsigned i = 0, tries = 0;
    int rc = 0;
    while (i < p->npend) {
        int r = io_submit(p->ctx, (long)(p->npend - i), p->pend + i);
        if (r > 0) {
            i += (unsigned)r;
            p->ninflight += (unsigned)r;
            tries = 0;
        } else if (r == -EINTR) {
            continue;
        } else if (r == -EAGAIN || r == 0) {
            if (p->ninflight > 0)
                break;
            if (++tries > S_EAGAIN_TRIES) {
                rc = -EAGAIN;
                break;
            }
            struct timespec ts = {0, S_EAGAIN_SLEEP_NS};
            nanosleep(&ts, NULL);
        } else {
            struct iocb *cb = p->pend[i++];
            ((rb_engine_io_t *)cb->data)->result = r;
            p->failed[p->nfailed++] = cb;
        }
    }
    if (i > 0 && i < p->npend)
        memmove(p->pend, p->pend + i, (p->npend - i) * sizeof *p->pend);
    p->npend -= i;
    return rc;
}

static int s_commit(rb_engine_t *e)
{
    s_aio_t *p = e->priv;
    return p->npend ? s_submit(p) : 0;
}

static int64_t s_result(const struct io_event *ev)
{
    long res = (long)ev->res, res2 = (long)ev->res2;
    if (res < 0)
        return res;
    if (res2 != 0) /* some drivers report the error here */
        return res2 < 0 ? res2 : -EIO;
    return res;
}

/* Reaps until min IOs are handed back or none is left outstanding; IOs
 * still pending after an -EAGAIN are submitted as reaping makes room. */
static int s_getevents(rb_engine_t *e, unsigned min, unsigned max, rb_engine_io_t **done)
{
    s_aio_t *p = e->priv;
    unsigned n = 0;
    for (;;) {
        if (p->npend) {
            int rc = s_submit(p);
            if (rc < 0 && p->nfailed == 0 && p->ninflight == 0)
                return n > 0 ? (int)n : rc;
        }
        while (n < max && p->nfailed > 0) {
            struct iocb *cb = p->failed[--p->nfailed];
            done[n++] = cb->data;
            p->free[p->nfree++] = cb;
        }
        if (n == max || p->ninflight == 0)
            break;
        unsigned want = max - n < p->ninflight ? max - n : p->ninflight;
        unsigned need = min > n ? min - n : 0;
        if (need > want)
            need = want;
        int r;
        do
            r = io_getevents(p->ctx, (long)need, (long)want, p->events, NULL);
        while (r == -EINTR);
        if (r < 0)
            return n > 0 ? (int)n : r;
        for (int i = 0; i < r; i++) {
            struct io_event *ev = &p->events[i];
            rb_engine_io_t *io = ev->data;
            io->result = s_result(ev);
            done[n++] = io;
            p->free[p->nfree++] = ev->obj;
        }
        p->ninflight -= (unsigned)r;
        if (n >= min || p->npend == 0)
            break;
    }
    return (int)n;
}

static void s_cleanup(rb_engine_t *e)
{
    s_aio_t *p = e->priv;
    if (!p)
        return;
    io_destroy(p->ctx); /* cancels or waits for what is still in flight */
    s_free(p);
    e->priv = NULL;
}

const rb_engine_ops_t rb_engine_libaio = {
    .name = "libaio",
    .version = RB_ENGINE_OPS_VERSION,
    .flags = RB_ENGINE_F_WANT_DIRECT,
    .init = s_init,
    .queue = s_queue,
    .commit = s_commit,
    .getevents = s_getevents,
    .cleanup = s_cleanup,
};
