/* The explicit list of IO engines this build has, and the checks every
 * table passes before a worker uses it. */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <string.h>
#include <sys/ioctl.h>

#include "rb_engine.h"

extern const rb_engine_ops_t rb_engine_sync;
extern const rb_engine_ops_t rb_engine_null;
extern const rb_engine_ops_t rb_engine_pvsync;
extern const rb_engine_ops_t rb_engine_pvsync2;
extern const rb_engine_ops_t rb_engine_vsync;
extern const rb_engine_ops_t rb_engine_posixaio;
extern const rb_engine_ops_t rb_engine_mmap;
#ifdef HAVE_LIBAIO
extern const rb_engine_ops_t rb_engine_libaio;
#endif
#ifdef HAVE_LIBURING
extern const rb_engine_ops_t rb_engine_io_uring;
#endif

/* The list and its printable form are written side by side so that one
 * #ifdef covers both; test_engines checks that they agree. */
static const rb_engine_ops_t *const s_engines[] = {
    &rb_engine_sync,     &rb_engine_null,     &rb_engine_pvsync, &rb_engine_pvsync2,
    &rb_engine_vsync,    &rb_engine_posixaio, &rb_engine_mmap,
#ifdef HAVE_LIBAIO
    &rb_engine_libaio,
#endif
#ifdef HAVE_LIBURING
    &rb_engine_io_uring,
#endif
};

static const char s_names[] = "sync, null, pvsync, pvsync2, vsync, posixaio, mmap"
#ifdef HAVE_LIBAIO
                              ", libaio"
#endif
#ifdef HAVE_LIBURING
                              ", io_uring"
#endif
    ;

const rb_engine_ops_t *rb_engine_find(const char *name)
{
    if (!name)
        return NULL;
    if (strcmp(name, "psync") == 0)
        name = "sync";
    for (size_t i = 0; i < sizeof s_engines / sizeof s_engines[0]; i++)
        if (strcmp(s_engines[i]->name, name) == 0)
            return s_engines[i];
    return NULL;
}

int rb_engine_trim(const rb_engine_io_t *io)
{
    int rc;
    do {
        if (io->blkdev) {
            uint64_t range[2] = {io->off, io->len};
            rc = ioctl(io->fd, BLKDISCARD, range);
        } else {
            rc = fallocate(io->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)io->off,
                           (off_t)io->len);
        }
    } while (rc < 0 && errno == EINTR);
    return rc < 0 ? -errno : 0;
}

int rb_engine_trim_now(rb_engine_io_t *io)
{
    int rc = rb_engine_trim(io);
    io->result = rc < 0 ? rc : (int64_t)io->len;
    return RB_ENGINE_Q_COMPLETED;
}

const char *rb_engine_names(void)
{
    return s_names;
}

int rb_engine_check(const rb_engine_ops_t *ops)
{
    if (!ops || ops->version != RB_ENGINE_OPS_VERSION || !ops->name || !ops->queue)
        return -EINVAL;
    if (ops->flags & ~RB_ENGINE_F_ALL)
        return -EINVAL; /* a flag this runner does not know */
    /* An engine that can answer QUEUED must be able to submit and reap. */
    if ((ops->commit == NULL) != (ops->getevents == NULL))
        return -EINVAL;
    return 0;
}

int rb_engine_init(rb_engine_t *e, const rb_engine_ops_t *ops, unsigned iodepth,
                   const rb_engine_opts_t *opts)
{
    memset(e, 0, sizeof *e);
    if (rb_engine_check(ops) < 0 || iodepth == 0)
        return -EINVAL;
    e->ops = ops;
    e->iodepth = iodepth;
    if (opts)
        e->opts = *opts;
    int rc = ops->init ? ops->init(e) : 0;
    if (rc < 0)
        memset(e, 0, sizeof *e); /* init released what it took; fini is a no-op */
    return rc;
}

void rb_engine_fini(rb_engine_t *e)
{
    if (e->ops && e->ops->cleanup)
        e->ops->cleanup(e);
    e->ops = NULL;
    e->priv = NULL;
}
