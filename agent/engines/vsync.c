/* fio's vsync: lseek to the IO's offset, then readv/writev of one vector,
 * done before queue() returns. fio's vsync also merges up to iodepth
 * adjacent IOs into one call; the plan runs this engine at iodepth=1 only
 * (proto/rb_job_rules.c), where fio issues one IO a call as here. */
#include <errno.h>
#include <sys/uio.h>
#include <unistd.h>

#include "rb_engine.h"

static int s_queue(rb_engine_t *e, rb_engine_io_t *io)
{
    (void)e;
    if (io->dir == RB_ENGINE_TRIM)
        return rb_engine_trim_now(io);
    struct iovec v = {.iov_base = io->buf, .iov_len = io->len};
    ssize_t n;
    if (lseek(io->fd, (off_t)io->off, SEEK_SET) < 0) {
        io->result = -errno;
        return RB_ENGINE_Q_COMPLETED;
    }
    do {
        n = io->dir == RB_ENGINE_READ ? readv(io->fd, &v, 1) : writev(io->fd, &v, 1);
    } while (n < 0 && errno == EINTR);
    io->result = n < 0 ? -errno : n;
    return RB_ENGINE_Q_COMPLETED;
}

const rb_engine_ops_t rb_engine_vsync = {
    .name = "vsync",
    .version = RB_ENGINE_OPS_VERSION,
    .queue = s_queue,
};
