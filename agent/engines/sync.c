/* The plain engine: one pread/pwrite per IO, completed before queue() returns
 * (dd's way of moving data); a trim is done there too (rb_engine_trim). */
#include <errno.h>
#include <unistd.h>

#include "rb_engine.h"

static int s_queue(rb_engine_t *e, rb_engine_io_t *io)
{
    (void)e;
    ssize_t n;
    if (io->dir == RB_ENGINE_TRIM)
        return rb_engine_trim_now(io);
    do {
        n = io->dir == RB_ENGINE_READ ? pread(io->fd, io->buf, io->len, (off_t)io->off)
                                      : pwrite(io->fd, io->buf, io->len, (off_t)io->off);
    } while (n < 0 && errno == EINTR);
    io->result = n < 0 ? -errno : n;
    return RB_ENGINE_Q_COMPLETED;
}

const rb_engine_ops_t rb_engine_sync = {
    .name = "sync",
    .version = RB_ENGINE_OPS_VERSION,
    .queue = s_queue,
};
