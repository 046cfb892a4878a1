/* fio's pvsync: one preadv/pwritev of a single vector per IO, completed
 * before queue() returns. The IO that reaches the storage is sync's; the
 * engine exists so that a job file naming pvsync makes the calls it names. */
#include <errno.h>
#include <sys/uio.h>

#include "rb_engine.h"

static int s_queue(rb_engine_t *e, rb_engine_io_t *io)
{
    (void)e;
    if (io->dir == RB_ENGINE_TRIM)
        return rb_engine_trim_now(io);
    struct iovec v = {.iov_base = io->buf, .iov_len = io->len};
    ssize_t n;
    do {
        n = io->dir == RB_ENGINE_READ ? preadv(io->fd, &v, 1, (off_t)io->off)
                                      : pwritev(io->fd, &v, 1, (off_t)io->off);
    } while (n < 0 && errno == EINTR);
    io->result = n < 0 ? -errno : n;
    return RB_ENGINE_Q_COMPLETED;
}

const rb_engine_ops_t rb_engine_pvsync = {
    .name = "pvsync",
    .version = RB_ENGINE_OPS_VERSION,
    .queue = s_queue,
};
