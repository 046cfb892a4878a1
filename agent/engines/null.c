/* The engine that moves no data: every IO succeeds at once with all its bytes.
 * It measures rackbench's own per-IO cost (runner loop, timing, histogram)
 * and exercises the asynchronous queue/commit/getevents path without storage,
 * the way IOR's DUMMY backend tests the harness. */
#include <errno.h>
#include <stdlib.h>

#include "rb_engine.h"

typedef struct {
    rb_engine_io_t **ring; /* iodepth slots of IOs queued and not yet handed back */
    unsigned head;         /* slot of the oldest queued IO */
    unsigned count;        /* IOs queued and not yet handed back */
} s_null_t;

static int s_init(rb_engine_t *e)
{
    s_null_t *p = calloc(1, sizeof *p);
    if (!p)
        return -ENOMEM;
    p->ring = calloc(e->iodepth, sizeof *p->ring);
    if (!p->ring) {
        free(p);
        return -ENOMEM;
    }
    e->priv = p;
    return 0;
}

static int s_queue(rb_engine_t *e, rb_engine_io_t *io)
{
    s_null_t *p = e->priv;
    io->result = (int64_t)io->len;
    if (e->iodepth == 1)
        return RB_ENGINE_Q_COMPLETED;
    if (p->count == e->iodepth)
        return RB_ENGINE_Q_BUSY;
    unsigned slot = p->head + p->count;
    if (slot >= e->iodepth)
        slot -= e->iodepth;
    p->ring[slot] = io;
    p->count++;
    return RB_ENGINE_Q_QUEUED;
}

static int s_commit(rb_engine_t *e)
{
    (void)e;
    return 0;
}

/* Everything queued is already complete, so min never makes it wait. */
static int s_getevents(rb_engine_t *e, unsigned min, unsigned max, rb_engine_io_t **done)
{
    (void)min;
    s_null_t *p = e->priv;
    unsigned n = p->count < max ? p->count : max;
    for (unsigned i = 0; i < n; i++) {
        done[i] = p->ring[p->head];
        if (++p->head == e->iodepth)
            p->head = 0;
    }
    p->count -= n;
    return (int)n;
}

static void s_cleanup(rb_engine_t *e)
{
    s_null_t *p = e->priv;
    if (!p)
        return;
    free(p->ring);
    free(p);
    e->priv = NULL;
}

const rb_engine_ops_t rb_engine_null = {
    .name = "null",
    .version = RB_ENGINE_OPS_VERSION,
    .flags = RB_ENGINE_F_NO_DATA | RB_ENGINE_F_NO_SLAT,
    .init = s_init,
    .queue = s_queue,
    .commit = s_commit,
    .getevents = s_getevents,
    .cleanup = s_cleanup,
};
