/* Lays out a file before GO for a phase that reads it: incompressible data
 * (stamped with verify headers when the phase verifies), fsynced and dropped
 * from the page cache so that the read phase measures the disk. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rb_job.h"
#include "rb_prefill.h"
#include "rb_rand.h"
#include "rb_time.h"
#include "rb_verify.h"

#define S_ALIGN      4096
#define S_PREFILL_BS (1u << 20)

static int s_stopped(const int *stop)
{
    return stop && __atomic_load_n(stop, __ATOMIC_ACQUIRE);
}

static void *s_aligned(size_t len)
{
    void *p = NULL;
    return posix_memalign(&p, S_ALIGN, len ? len : S_ALIGN) == 0 ? p : NULL;
}

/* Writes n bytes of buf at off: a stamped block when stamp, else a block
 * marked with its offset (blocks differ: no dedup). Returns the bytes
 * written (a short write is the caller's to go on from) or -errno. */
static ssize_t s_prefill_put(int fd, const char *path, void *buf, uint64_t n, uint64_t off,
                             int stamp, const rb_prefill_t *pf, uint64_t file, rb_err_t *err)
{
    if (stamp)
        rb_verify_stamp(pf->job, buf, n, pf->run_hash, pf->node, file, off, 0);
    else
        ((uint64_t *)buf)[0] = off;
    ssize_t got;
    do
        got = pwrite(fd, buf, n, (off_t)off);
    while (got < 0 && errno == EINTR);
    if (got <= 0)
        return rb_err_set(err, got < 0 ? -errno : -EIO, "prefill %s at offset %llu: %s", path,
                          (unsigned long long)off, got < 0 ? strerror(errno) : "no progress");
    return got;
}

/* Writes this node's region of a shared file (pf->region of pf->nregions). */
static int s_prefill_region(int fd, const char *path, const char *name, void *buf,
                            const rb_prefill_t *pf, const int *stop, uint64_t *written,
                            rb_err_t *err)
{
    const rb_job_spec_t *js = pf->job;
    uint64_t size = rb_job_filesize(js), file = rb_verify_hash(name);
    for (uint64_t rel = 0; rel < size;) {
        if (s_stopped(stop))
            return rb_err_set(err, -ECANCELED, "prefill %s: stopped", path);
        uint64_t room, off = rb_job_map(js, pf->nregions, pf->region, rel, &room);
        uint64_t n = size - rel < S_PREFILL_BS ? size - rel : S_PREFILL_BS;
        if (pf->verify)
            n = pf->bs < size - rel ? pf->bs : size - rel;
        if (n > room)
            n = room;
        ssize_t got =
            s_prefill_put(fd, path, buf, n, off, pf->verify && n == pf->bs, pf, file, err);
        if (got < 0)
            return (int)got;
        rel += (uint64_t)got;
        *written += (uint64_t)got;
    }
    return 0;
}

/* Writes a file of the agent's own from offset from to pf->end, chunk bytes
 * at a time (one stamped block each when verifying). */
static int s_prefill_file(int fd, const char *path, const char *name, void *buf, uint64_t chunk,
                          uint64_t from, const rb_prefill_t *pf, const int *stop, uint64_t *written,
                          rb_err_t *err)
{
    uint64_t file = rb_verify_hash(name);
    for (uint64_t off = from; off < pf->end;) {
        if (s_stopped(stop))
            return rb_err_set(err, -ECANCELED, "prefill %s: stopped", path);
        uint64_t n = pf->end - off < chunk ? pf->end - off : chunk;
        if (pf->verify && off < pf->start)
            n = pf->start - off < chunk ? pf->start - off : chunk;
        ssize_t got = s_prefill_put(fd, path, buf, n, off,
                                    pf->verify && off >= pf->start && n == chunk, pf, file, err);
        if (got < 0)
            return (int)got;
        off += (uint64_t)got;
        *written += (uint64_t)got;
    }
    return 0;
}

int rb_prefill_write(rb_sandbox_t *sb, int rundir, const char *run_id, const char *name,
                     const rb_prefill_t *pf, const int *stop, uint64_t *written, rb_err_t *err)
{
    char path[RB_PATH_MAX];
    uint64_t from = 0;
    int fd, flags = O_WRONLY | O_CREAT | (pf->direct ? O_DIRECT : 0);
    if (pf->shared) {
        fd = rb_sandbox_open_shared(sb, rundir, run_id, name, flags, path, sizeof path, err);
    } else {
        int64_t have = rb_sandbox_file_size(sb, rundir, name);
        if (have >= 0 && (uint64_t)have >= pf->end && !pf->verify)
            return 0;
        /* Verify headers must cover the whole region; plain data only what is missing. */
        if (!pf->verify && have > 0)
            from = (uint64_t)have & ~(uint64_t)(S_ALIGN - 1);
        snprintf(path, sizeof path, "%s/%s", rb_sandbox_rundir_path(sb, rundir), name);
        fd = rb_sandbox_open(sb, rundir, name, flags, err);
        /* as fio lays out a file: its size first, as fallocate= says, then the data */
        if (fd >= 0 && pf->job && (have < 0 || (uint64_t)have < pf->end)) {
            int rc = rb_job_fallocate(fd, pf->job->fallocate, pf->end);
            if (rc == 0 && ftruncate(fd, (off_t)pf->end) < 0)
                rc = -errno;
            if (rc < 0) {
                close(fd);
                return rb_err_set(err, rc, "%s: cannot make it %" PRIu64 " bytes long: %s", path,
                                  pf->end, strerror(-rc));
            }
        }
    }
    if (fd < 0)
        return fd;
    uint64_t chunk = pf->verify ? pf->bs : S_PREFILL_BS; /* one stamped block per write */
    void *buf = s_aligned(chunk);
    int rc = buf ? 0 : rb_err_set(err, -ENOMEM, "prefill %s: out of memory", path);
    if (buf) {
        rb_rand_t r;
        rb_rand_seed(&r, rb_time_mono_ns() ^ rb_verify_hash(name) ^ pf->region);
        rb_rand_fill(&r, buf, chunk);
        rc = pf->shared ? s_prefill_region(fd, path, name, buf, pf, stop, written, err)
                        : s_prefill_file(fd, path, name, buf, chunk, from, pf, stop, written, err);
    }
    if (rc == 0 && !(pf->job && pf->job->create_nofsync) && fsync(fd) < 0)
        rc = rb_err_set(err, -errno, "prefill %s: fsync: %s", path, strerror(errno));
    /* The read phase must find the data on disk, not in this node's page cache. */
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    free(buf);
    close(fd);
    return rc;
}
