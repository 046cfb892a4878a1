/* fio's mmap: each file is mapped (MAP_SHARED) and an IO is a memcpy into
 * or out of the mapping, done before queue() returns. As fio's engine: the
 * whole file is mapped at its first IO (the job's bytes of it; a window of
 * 1 GiB over the job's files, from the IO's offset, when the kernel refuses
 * that), advised sequential or random as the job is; a sync is an msync of
 * the mapping; with direct, each IO's pages are written back (msync) and
 * dropped (madvise DONTNEED) after it. The storage sees page faults and
 * write-back, not the IO sizes. Files are laid out before writes (a store
 * past the file's end would fault). */
#include <errno.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "rb_engine.h"

#define S_MAP_TOTAL (1ull << 30) /* fio's limit of a window over all the files */

typedef struct {
    char *ptr;     /* the mapping, or NULL */
    uint64_t len;  /* its length ... */
    uint64_t off;  /* ... from this offset of the file */
    uint64_t size; /* what to map of the file (0: not known yet) */
    int fd;        /* the file */
} s_map_t;

typedef struct {
    s_map_t *maps; /* one per file of setup() */
    unsigned nmaps;
} s_mm_t;

static int s_init(rb_engine_t *e)
{
    s_mm_t *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    e->priv = m;
    return 0;
}

static int s_setup(rb_engine_t *e, const rb_engine_res_t *res)
{
    s_mm_t *m = e->priv;
    m->maps = calloc(res->nfds ? res->nfds : 1, sizeof *m->maps);
    if (!m->maps)
        return -ENOMEM;
    m->nmaps = res->nfds;
    for (unsigned i = 0; i < m->nmaps; i++)
        m->maps[i].fd = res->fds[i];
    return 0;
}

static int s_prot(const rb_engine_t *e)
{
    switch (e->opts.map_prot) {
    case RB_ENGINE_MAP_READ:
        return PROT_READ;
    case RB_ENGINE_MAP_WRITE:
        return PROT_WRITE;
    default:
        return PROT_READ | PROT_WRITE;
    }
}

/* Maps len bytes of fd from off into mp, advised as the job reads. */
static int s_map(rb_engine_t *e, s_map_t *mp, int fd, uint64_t len, uint64_t off)
{
    void *p = mmap(NULL, (size_t)len, s_prot(e), MAP_SHARED, fd, (off_t)off);
    if (p == MAP_FAILED)
        return -errno;
    int advice = e->opts.map_random ? POSIX_MADV_RANDOM : POSIX_MADV_SEQUENTIAL;
    int rc = posix_madvise(p, (size_t)len, advice);
    if (rc) {
        munmap(p, (size_t)len);
        return -rc;
    }
    mp->ptr = p;
    mp->len = len;
    mp->off = off;
    return 0;
}

/* Bytes of the file to map: the job's (map_len), or the file's or the
 * device's size; 0 or -errno. */
static int s_size(const rb_engine_t *e, int fd, uint64_t *size)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    *size = (uint64_t)st.st_size;
    if (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, size) < 0)
        return -errno;
    if (e->opts.map_len && e->opts.map_len < *size)
        *size = e->opts.map_len;
    return 0;
}

/* The mapping io falls in, made (again) as fio's engine makes it: the
 * whole, else a window from the IO on. io->len is within size. */
static int s_prep(rb_engine_t *e, rb_engine_io_t *io, s_map_t *mp)
{
    s_mm_t *m = e->priv;
    if (mp->ptr && io->off >= mp->off && io->off + io->len <= mp->off + mp->len)
        return 0; /* the IO is inside the mapping */
    if (mp->ptr && munmap(mp->ptr, (size_t)mp->len) < 0)
        return -errno;
    mp->ptr = NULL;
    int rc = s_map(e, mp, io->fd, mp->size, 0);
    if (rc == -EACCES)
        return -EBADF; /* the file is not open for this use, as read(2) and write(2) say */
    if (rc == 0)
        return 0;
    uint64_t win = S_MAP_TOTAL / (m->nmaps ? m->nmaps : 1);
    if (io->len > win)
        return -EIO;
    if (win > mp->size - io->off)
        win = mp->size - io->off;
    return s_map(e, mp, io->fd, win, io->off);
}

static int s_queue(rb_engine_t *e, rb_engine_io_t *io)
{
    s_mm_t *m = e->priv;
    if (io->dir == RB_ENGINE_TRIM)
        return rb_engine_trim_now(io);
    /* the IO's file is its fd: file_index finds its mapping at once */
    s_map_t *mp = io->file_index < m->nmaps && m->maps[io->file_index].fd == io->fd
                      ? &m->maps[io->file_index]
                      : NULL;
    for (unsigned i = 0; !mp && io->fd >= 0 && i < m->nmaps; i++)
        mp = m->maps[i].fd == io->fd ? &m->maps[i] : NULL;
    io->result = io->fd < 0 || !mp ? -EBADF : 0;
    if (mp && !mp->ptr && !mp->size)
        io->result = s_size(e, io->fd, &mp->size);
    if (io->result)
        return RB_ENGINE_Q_COMPLETED;
    /* past the end: a read is short (0 at the end), a write cannot grow the file */
    uint64_t len = io->off < mp->size ? mp->size - io->off : 0;
    if (len > io->len)
        len = io->len;
    if (len < io->len && io->dir == RB_ENGINE_WRITE) {
        io->result = -EFBIG;
        return RB_ENGINE_Q_COMPLETED;
    }
    if (len == 0)
        return RB_ENGINE_Q_COMPLETED; /* a read at the end: 0 bytes */
    rb_engine_io_t part = *io;
    part.len = len;
    int rc = s_prep(e, &part, mp);
    if (rc < 0) {
        io->result = rc;
        return RB_ENGINE_Q_COMPLETED;
    }
    char *at = mp->ptr + (io->off - mp->off);
    if (io->dir == RB_ENGINE_READ)
        memcpy(io->buf, at, (size_t)len);
    else
        memcpy(at, io->buf, (size_t)len);
    io->result = (int64_t)len;
    /* direct: fio's "not really direct": the pages go to the storage and
     * out of the cache after each IO */
    if (e->opts.map_direct && (msync(at, (size_t)len, MS_SYNC) < 0 ||
                               (errno = posix_madvise(at, (size_t)len, POSIX_MADV_DONTNEED)) != 0))
        io->result = -errno;
    return RB_ENGINE_Q_COMPLETED;
}

static int s_sync(rb_engine_t *e, unsigned file_index, int fd, int data_only)
{
    (void)fd;
    (void)data_only; /* fio's mmap engine makes every sync an msync */
    s_mm_t *m = e->priv;
    if (file_index >= m->nmaps || !m->maps[file_index].ptr)
        return 0; /* nothing mapped, nothing written through it */
    s_map_t *mp = &m->maps[file_index];
    return msync(mp->ptr, (size_t)mp->len, MS_SYNC) < 0 ? -errno : 0;
}

static void s_cleanup(rb_engine_t *e)
{
    s_mm_t *m = e->priv;
    if (!m)
        return;
    for (unsigned i = 0; i < m->nmaps; i++)
        if (m->maps[i].ptr)
            munmap(m->maps[i].ptr, (size_t)m->maps[i].len);
    free(m->maps);
    free(m);
    e->priv = NULL;
}

const rb_engine_ops_t rb_engine_mmap = {
    .name = "mmap",
    .version = RB_ENGINE_OPS_VERSION,
    .flags = RB_ENGINE_F_NOEXTEND,
    .init = s_init,
    .setup = s_setup,
    .queue = s_queue,
    .sync = s_sync,
    .cleanup = s_cleanup,
};
