/* fio's pvsync2: one preadv2/pwritev2 of a single vector per IO, done
 * before queue() returns. Its one per-call flag so far is fio's hipri:
 * RWF_HIPRI on every call (the kernel polls for the completion where the
 * device has poll queues, and ignores it elsewhere); fio's nowait and
 * uncached are not run yet. A kernel without the calls (before 4.6)
 * answers -ENOSYS at init. */
#include <errno.h>
#include <stddef.h>
#include <sys/uio.h>

#include "rb_engine.h"

/* preadv2 of nothing tells whether the kernel has the call. */
static int s_init(rb_engine_t *e)
{
    (void)e;
    struct iovec v = {.iov_base = NULL, .iov_len = 0};
    if (preadv2(-1, &v, 1, 0, 0) < 0 && errno == ENOSYS)
        return -ENOSYS;
    return 0;
}

static int s_queue(rb_engine_t *e, rb_engine_io_t *io)
{
    if (io->dir == RB_ENGINE_TRIM)
        return rb_engine_trim_now(io);
    struct iovec v = {.iov_base = io->buf, .iov_len = io->len};
    int flags = e->opts.hipri ? RWF_HIPRI : 0;
    ssize_t n;
    do {
        n = io->dir == RB_ENGINE_READ ? preadv2(io->fd, &v, 1, (off_t)io->off, flags)
                                      : pwritev2(io->fd, &v, 1, (off_t)io->off, flags);
    } while (n < 0 && errno == EINTR);
    io->result = n < 0 ? -errno : n;
    return RB_ENGINE_Q_COMPLETED;
}

const rb_engine_ops_t rb_engine_pvsync2 = {
    .name = "pvsync2",
    .version = RB_ENGINE_OPS_VERSION,
    .init = s_init,
    .queue = s_queue,
};
