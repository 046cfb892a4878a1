/* The data workload's files and ring: a worker's files opened (and sized,
 * renewed for unlink_each_loop, removed for unlink), its IO slots and
 * buffers, its engine started, do_verify's read back after the IO, and
 * which files openfiles lets the round robin go over. */
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rb_data_int.h"
#include "rb_devjob.h"
#include "rb_engine_info.h"
#include "rb_log.h"
#include "rb_time.h"
#include "rb_verify.h"

/* do_verify: read back what the worker wrote and check every block; the
 * reads are counted as fio counts them (bytes, ops, latency). A worker its stonewall stopped wrote
 * the first of its blocks only (round robin over its files); one writing at random, anywhere. */
void rb_data_verify_back(rb_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    void *buf = w->slots[0].base;
    if (w->sw_t && rb_rw_random(s->rw))
        return;
    for (uint32_t i = 0; i < w->nfiles && !rb_worker_stopped(w); i++) {
        rb_worker_file_t *f = &w->files[i];
        uint64_t blocks = w->unit_per_file;
        if (w->sw_t && w->pass <= 1) {
            uint64_t mine = w->wops / w->nfiles + (i < w->wops % w->nfiles);
            blocks = mine < blocks ? mine : blocks;
        }
        uint64_t end = s->offset + blocks * s->bs;
        for (uint64_t rel = 0; s->offset + rel + s->bs <= end; rel += s->bs) {
            uint64_t off = rb_job_map(s, w->nregions, w->region, rel, NULL);
            uint64_t t0 = rb_time_mono_ns();
            ssize_t n = pread(f->fd, buf, s->bs, (off_t)off);
            char why[240];
            if (n != (ssize_t)s->bs) {
                RB_WORKER_ADD(&w->errors, 1);
                rb_worker_fail(w, n < 0 ? -errno : -ENODATA, f->path, off, "verify read: %s",
                               n < 0 ? strerror(errno) : "short read");
                return;
            }
            uint64_t t1 = rb_time_mono_ns();
            if (w->t_start)
                rb_worker_count(w, RB_DIR_READ, s->bs, t1 - t0, RB_WORKER_NO_SLAT, t1);
            if (rb_verify_check(s, buf, s->bs, w->run_hash, w->expect, f->hash, off, why,
                                sizeof why)) {
                RB_WORKER_ADD(&w->verify_errors, 1);
                RB_WORKER_ADD(&w->errors, 1);
                rb_worker_fail(w, -EBADMSG, f->path, off, "verify: %s", why);
                if (s->verify_fatal)
                    return;
            }
        }
    }
}

/* As fio: a file to write that is smaller than the end of the worker's
 * region is given its size up front as fallocate= says (fio's default,
 * native, allocates it), so that writes land inside it rather than
 * extending it one block at a time. Nothing here fails a job, as in fio. */
static int s_size_up(const rb_worker_t *w, const rb_worker_file_t *f, rb_err_t *err)
{
    const rb_job_spec_t *s = w->spec;
    struct stat st;
    if (s->device[0] || s->fill_device || s->create_on_open)
        return 0; /* a device has the size it has; fill_device's and create_on_open's
                   * writes find theirs */
    uint64_t end = s->shared_file ? s->offset + rb_job_filesize(s) * w->nregions
                                  : rb_job_offset(s, w->index) + rb_job_filesize(s);
    int rc = 0;
    if (rb_rw_writes(s->rw) && fstat(f->fd, &st) == 0 && (uint64_t)st.st_size < end)
        rc = rb_job_fallocate(f->fd, s->fallocate, end);
    return rc < 0 ? rb_err_set(err, rc, "%s: cannot make it %" PRIu64 " bytes long: %s", f->path,
                               end, strerror(-rc))
                  : 0;
}

/* fio's advice on a file just opened, over the worker's region of it: with
 * invalidate, its cached pages dropped (POSIX_FADV_DONTNEED; a device's
 * buffers flushed, BLKFLSBUF, as fio does, or where that is refused, for it
 * needs CAP_SYS_ADMIN, which rackbench-agent.service does not grant, the
 * region's clean pages dropped as a file's); then fadvise_hint's access
 * advice. Advice is advice: a refusal is not an error, as in fio. */
static void s_advise(const rb_worker_t *w, const rb_worker_file_t *f)
{
    const rb_job_spec_t *s = w->spec;
    off_t off = (off_t)(s->shared_file ? s->offset : rb_job_offset(s, w->index));
    off_t len = (off_t)(s->shared_file ? rb_job_filesize(s) * w->nregions : rb_job_filesize(s));
    if (s->invalidate && (!f->blkdev || ioctl(f->fd, BLKFLSBUF, 0) < 0))
        (void)posix_fadvise(f->fd, off, len, POSIX_FADV_DONTNEED);
    int random = s->fadvise_hint == RB_FADVISE_RANDOM ||
                 (s->fadvise_hint == RB_FADVISE_PATTERN && rb_rw_random(s->rw));
    if (s->fadvise_hint != RB_FADVISE_NONE)
        (void)posix_fadvise(f->fd, off, len, random ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL);
}

#ifndef F_SET_RW_HINT
#define F_SET_RW_HINT (1024 + 12)
#endif
#ifndef F_SET_FILE_RW_HINT
#define F_SET_FILE_RW_HINT (1024 + 14)
#endif

/* write_hint, as fio sets it on each file it opens: on the file's inode
 * (F_SET_RW_HINT), or with direct on the open file (F_SET_FILE_RW_HINT, which
 * kernels since 5.17 refuse with EINVAL, as they refuse fio's). 0 or -errno
 * with err set. */
static int s_hint(const rb_worker_t *w, const rb_worker_file_t *f, rb_err_t *err)
{
    const rb_job_spec_t *s = w->spec;
    if (!s->write_hint || f->fd < 0)
        return 0;
    uint64_t hint = s->write_hint;
    if (fcntl(f->fd, s->direct ? F_SET_FILE_RW_HINT : F_SET_RW_HINT, &hint) < 0)
        return rb_err_set(err, -errno, "job %s: write_hint on %s: fcntl: %s", s->name, f->path,
                          strerror(errno));
    return 0;
}

/* Opens (or, for the null engine, only names) the worker's files with flags
 * into fdv[]; sizes a file to write up front. 0 or -errno with err set. */
static int s_open_files(rb_worker_t *w, rb_sandbox_t *sb, int rundir, const rb_job_ctx_t *ctx,
                        int flags, int *fdv, rb_err_t *err)
{
    const rb_job_spec_t *s = w->spec;
    int rc = 0;
    const char *peer = rb_job_peer(ctx, s->read_shift);
    for (uint32_t i = 0; i < w->nfiles && rc == 0; i++) {
        char name[RB_PATH_MAX];
        rb_worker_file_t *f = &w->files[i];
        rc = s->device[0]     ? rb_devjob_file(s, w->index, i, name, sizeof name)
             : s->shared_file ? rb_job_shared_name(s, ctx->lead, name, sizeof name)
                              : rb_job_filename(s, w->index, i, name, sizeof name);
        if (rc < 0) {
            rb_err_set(err, rc, "job %s: bad file name", s->name);
            break;
        }
        if (s->device[0])
            snprintf(f->path, sizeof f->path, "%s", name);
        else
            snprintf(f->path, sizeof f->path, "%s/%s", rb_sandbox_rundir_path(sb, rundir), name);
        f->hash = rb_verify_hash(name);
        f->blkdev = s->device[0] != '\0';
        if (!rb_job_uses_files(s)) {
            fdv[i] = -1; /* an engine that moves nothing: no file at all */
            continue;
        }
        if (s->device[0])
            f->fd = rb_sandbox_open_device(sb, name, flags & ~O_CREAT, err);
        else if (s->existing) /* a file that is there: read where it is */
            f->fd = rb_sandbox_open_existing(sb, s->directory, name, flags, f->path, sizeof f->path,
                                             err);
        else if (s->shared_file)
            f->fd = rb_sandbox_open_shared(sb, rundir, ctx->run_id, name, flags, f->path,
                                           sizeof f->path, err);
        else if (peer[0])
            f->fd = rb_sandbox_open_peer(sb, rundir, ctx->run_id, peer, name, flags, f->path,
                                         sizeof f->path, err);
        else
            f->fd = rb_sandbox_open(sb, rundir, name, flags, err);
        rc = f->fd < 0 ? f->fd : 0;
        fdv[i] = f->fd;
        struct stat st;
        if (rc == 0 && f->blkdev && ioctl(f->fd, BLKGETSIZE64, &f->real_size) < 0)
            f->real_size = 0; /* unknown: the range's end stands for it */
        else if (rc == 0 && !f->blkdev && s->dev_sized && fstat(f->fd, &st) == 0)
            f->real_size = (uint64_t)st.st_size; /* the file's, whole blocks or not */
        if (rc == 0)
            rc = s_hint(w, f, err);
        if (rc == 0)
            rc = s_size_up(w, f, err);
        if (rc == 0)
            s_advise(w, f);
    }
    return rc;
}

static int s_engine_start(rb_worker_t *w, const rb_engine_ops_t *ops, const int *fdv, uint64_t bmax,
                          rb_err_t *err);

/* unlink_each_loop between two passes, as fio does before each loop after
 * the first: the worker's files are removed; a worker that writes makes them
 * anew, opened as before, and its engine takes the new ones. 1 to go on with
 * the next pass; 0 when there is nothing left to read (the plan refuses
 * such a job: fio fails on it), or the worker failed. */
int rb_data_renew_files(rb_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    rb_err_t err;
    rb_err_clear(&err);
    if (!rb_job_uses_files(s))
        return 1;
    const rb_engine_ops_t *ops = w->eng.ops;
    int writes = rb_rw_writes(s->rw);
    if (writes && w->eng_ready) {
        rb_engine_fini(&w->eng);
        w->eng_ready = 0;
    }
    int fds[64];
    int *fdv = w->nfiles <= 64 ? fds : calloc(w->nfiles, sizeof *fdv);
    int rc = fdv ? 0 : rb_err_set(&err, -ENOMEM, "out of memory");
    for (uint32_t i = 0; i < w->nfiles && rc == 0; i++) {
        rb_worker_file_t *f = &w->files[i];
        char name[RB_NAME_MAX * 2];
        rc = rb_job_filename(s, w->index, i, name, sizeof name);
        if (rc < 0) {
            rb_err_set(&err, rc, "job %s: bad file name", s->name);
            break;
        }
        rc = rb_sandbox_unlink(w->sb, w->rundir, name, &err);
        if (rc < 0 || !writes)
            continue;
        if (f->fd >= 0)
            close(f->fd);
        f->fd = fdv[i] = rb_sandbox_open(w->sb, w->rundir, name, w->oflags, &err);
        f->dirty = 0;
        rc = f->fd < 0 ? f->fd : 0;
        if (rc == 0)
            rc = s_hint(w, f, &err);
        if (rc == 0)
            rc = s_size_up(w, f, &err);
        if (rc == 0)
            s_advise(w, f);
    }
    if (rc == 0 && writes) {
        uint64_t bmax = s->bs_max > s->bs ? s->bs_max : s->bs;
        rc = s_engine_start(w, ops, fdv, bmax, &err);
    }
    if (fdv && fdv != fds)
        free(fdv);
    if (rc < 0) {
        rb_worker_fail(w, rc, NULL, 0, "unlink_each_loop: %s", err.msg);
        w->halt = 1;
        return 0;
    }
    return writes;
}

/* unlink: removes the worker's files once it is done (they stay open until
 * fini). 0 or -errno with the worker failed. */
int rb_data_unlink_files(rb_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    rb_err_t err;
    rb_err_clear(&err);
    for (uint32_t i = 0; rb_job_uses_files(s) && i < w->nfiles; i++) {
        char name[RB_NAME_MAX * 2];
        int rc = rb_job_filename(s, w->index, i, name, sizeof name);
        if (rc == 0)
            rc = rb_sandbox_unlink(w->sb, w->rundir, name, &err);
        if (rc < 0) {
            rb_worker_fail(w, rc, w->files[i].path, 0, "unlink: %s",
                           err.msg[0] ? err.msg : strerror(-rc));
            return rc;
        }
    }
    return 0;
}

/* Seeds the worker's generators, readies the buffers' filling (rb_data_warm,
 * in the worker's thread: the generator that fills them is taken here and
 * moved on past them, so that every draw after comes as if they were filled
 * now) and puts every slot on the free stack. */
static void s_ring_init(rb_worker_t *w, uint64_t seed, uint64_t bmax)
{
    const rb_job_spec_t *s = w->spec;
    uint32_t depth = w->depth;
    rb_rand_seed(&w->rng, seed);
    rb_rand_seed(&w->prio_rng, seed ^ 0x3c6ef372fe94f82bull);
    w->bufs_len = depth * bmax;
    if (rb_fill_wanted(s)) {
        rb_fill_init(&w->fill, s, s->bs_write ? s->bs_write : s->bs, seed);
        if (s->dedupe_global)
            rb_fill_share(&w->fill, w->peer_seeds, w->npeers, w->peer);
    } else if (s->buffer_mode == RB_BUF_RANDOM) {
        w->bufs_rng = w->rng;
        rb_rand_skip(&w->rng, (size_t)w->bufs_len);
    }
    for (uint32_t i = 0; i < depth; i++) {
        w->slots[i].base = (char *)w->bufs + i * bmax;
        w->ios[i].runner = &w->slots[i];
        w->ios[i].buf_index = i;
        w->free[w->nfree++] = &w->ios[i];
    }
}

void rb_data_warm(rb_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    uint64_t bmax = w->depth ? w->bufs_len / w->depth : 0;
    if (rb_fill_wanted(s)) /* compressible, deduped as asked */
        for (uint32_t i = 0; i < w->depth; i++)
            rb_fill_buf(&w->fill, (char *)w->bufs + i * bmax, (size_t)bmax);
    else if (s->buffer_mode == RB_BUF_RANDOM)
        rb_rand_fill(&w->bufs_rng, w->bufs, (size_t)w->bufs_len);
    else if (s->buffer_mode == RB_BUF_PATTERN && s->pattern_len)
        for (uint64_t i = 0; i < w->bufs_len; i++)
            ((uint8_t *)w->bufs)[i] = s->pattern[i % s->pattern_len];
    else
        memset(w->bufs, 0, (size_t)w->bufs_len);
}

/* Sets up the engine for the worker's files fdv[] and buffers. 0 or -errno with err set. */
static int s_engine_start(rb_worker_t *w, const rb_engine_ops_t *ops, const int *fdv, uint64_t bmax,
                          rb_err_t *err)
{
    const rb_job_spec_t *s = w->spec;
    rb_engine_opts_t eo = rb_job_engine_opts(s);
    int rc = rb_engine_init(&w->eng, ops, w->depth, &eo);
    if (rc < 0)
        return rb_err_set(err, rc, "job %s: ioengine=%s: %s", s->name, ops->name,
                          rc == -ENOSYS  ? "not supported by this kernel"
                          : rc == -EPERM ? "disabled on this host"
                                         : strerror(-rc));
    w->eng_ready = 1;
    if (!ops->setup)
        return 0;
    rb_engine_res_t res = {
        .fds = fdv, .nfds = w->nfiles, .bufs = w->bufs, .nbufs = w->depth, .buf_len = bmax};
    rc = ops->setup(&w->eng, &res);
    if (rc < 0)
        rb_err_set(err, rc, "job %s: ioengine=%s setup: %s", s->name, ops->name, strerror(-rc));
    return rc;
}

/* Opens a worker's files, sets up its ring, buffers and engine. 0 or -errno. */
int rb_data_setup(rb_worker_t *w, rb_sandbox_t *sb, int rundir, const rb_job_ctx_t *ctx,
                  uint64_t seed, rb_err_t *err)
{
    const rb_job_spec_t *s = w->spec;
    const rb_engine_ops_t *ops = rb_engine_find(s->ioengine[0] ? s->ioengine : "sync");
    /* one IO at a time: one slot and one buffer, whatever iodepth says (fio caps it) */
    uint32_t depth = rb_engine_info_depth(s->ioengine, s->iodepth);
    uint64_t bmax = s->bs_max > s->bs ? s->bs_max : s->bs;
    if (!ops)
        return rb_err_set(err, -ENOENT, "job %s: ioengine=%s is not in this agent (it has %s)",
                          s->name, s->ioengine, rb_engine_names());
    w->nfiles = s->filename[0] ? 1 : (s->nrfiles ? s->nrfiles : 1);
    if (w->nfiles > RB_DATA_MAX_FILES)
        return rb_err_set(err, -E2BIG, "job %s: %u files per worker", s->name, w->nfiles);
    w->depth = depth;
    w->files = calloc(w->nfiles, sizeof *w->files);
    w->ios = calloc(depth, sizeof *w->ios);
    w->slots = calloc(depth, sizeof *w->slots);
    w->free = calloc(depth, sizeof *w->free);
    w->retry = calloc(depth, sizeof *w->retry);
    w->done = calloc(depth, sizeof *w->done);
    w->unsent = calloc(depth, sizeof *w->unsent);
    w->nunsent = 0;
    /* fio's iodepth_batch_submit (the plan settles fio's 0 as iodepth); 0: 1 */
    w->batch_submit = !s->batch_submit ? 1 : s->batch_submit < depth ? s->batch_submit : depth;
    w->bufs = rb_worker_aligned((size_t)(depth * bmax));
    if (!w->files || !w->ios || !w->slots || !w->free || !w->retry || !w->done || !w->unsent ||
        !w->bufs)
        return rb_err_set(err, -ENOMEM, "job %s: out of memory for %u IOs of %llu bytes", s->name,
                          depth, (unsigned long long)bmax);
    for (uint32_t i = 0; i < w->nfiles; i++)
        w->files[i].fd = -1;
    int fds[64]; /* most workers have a few files: no allocation for them */
    int *fdv = w->nfiles <= 64 ? fds : calloc(w->nfiles, sizeof *fdv);
    if (!fdv)
        return rb_err_set(err, -ENOMEM, "out of memory");
    int reads = rb_rw_reads(s->rw) || (s->verify && s->do_verify);
    /* mmap: a shared writable mapping needs the file open for reading too */
    const rb_engine_ops_t *eops = rb_engine_find(s->ioengine[0] ? s->ioengine : "sync");
    reads |= eops && (eops->flags & RB_ENGINE_F_NOEXTEND);
    int flags =
        (rb_rw_writes(s->rw)  ? (reads ? O_RDWR : O_WRONLY) | O_CREAT
         : rb_rw_trims(s->rw) ? O_WRONLY | (s->create_on_open ? O_CREAT : 0) /* else laid out */
                              : O_RDONLY) |
        (s->direct ? O_DIRECT : 0) |
        (s->sync_mode == RB_SYNC_SYNC    ? O_SYNC
         : s->sync_mode == RB_SYNC_DSYNC ? O_DSYNC
                                         : 0);
    w->sb = sb;
    w->rundir = rundir;
    w->oflags = flags;
    int rc = s_open_files(w, sb, rundir, ctx, flags, fdv, err);
    if (rc == 0) {
        s_ring_init(w, seed, bmax);
        rc = s_engine_start(w, ops, fdv, bmax, err);
    }
    if (fdv != fds)
        free(fdv);
    if (rc < 0)
        return rc;
    w->unit_per_file = rb_job_filesize(s) / s->bs;
    /* a device's size: each worker from its own offset on, as fio's clones */
    uint64_t first = rb_job_offset(s, w->region);
    if (s->dev_sized && w->nfiles && w->files[0].real_size > first)
        w->unit_per_file = (w->files[0].real_size - first) / s->bs;
    if (ctx->caps && ctx->caps[w->job] && ctx->caps[w->job] < w->unit_per_file)
        w->unit_per_file = ctx->caps[w->job]; /* only what a stonewalled write left */
    w->units = w->unit_per_file * w->nfiles;
    if (w->units == 0)
        return rb_err_set(err, -EINVAL, "job %s: files smaller than one block", s->name);
    rc = rb_data_zbd_setup(w, err); /* zonemode=zbd: the file's zones, the range on them */
    if (rc < 0)
        return rc;
    if (s->zone_size && (s->zone_range ? s->zone_range : s->zone_size) < s->bs)
        return rb_err_set(err, -EINVAL, "job %s: zonemode=strided: a zone smaller than bs",
                          s->name);
    /* zonemode=strided keeps fio's map of the blocks from the zone's start */
    if (rb_rw_random(s->rw) && !s->norandommap && (bmax > s->bs || s->zone_size)) {
        w->covered = calloc((size_t)((w->units + 63) / 64), sizeof *w->covered);
        w->full = calloc((size_t)((w->units + 4095) / 4096), sizeof *w->full);
        if (!w->covered || !w->full)
            return rb_err_set(err, -ENOMEM,
                              "job %s: out of memory for the random map of %llu blocks (%llu MiB; "
                              "norandommap needs none)",
                              s->name, (unsigned long long)w->units,
                              (unsigned long long)(w->units / 8 >> 20) + 1);
    }
    rc = rb_data_backlog_setup(w, err);
    return rc < 0 ? rc : rb_data_dist_setup(w, err);
}

/* do_verify after a write-only pass, when verify headers were stamped;
 * then unlink, as fio removes a job's files when it is done. */
void rb_data_finish(rb_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    if (w->vb_hist)
        rb_data_backlog_drain(w); /* verify_backlog: what is left of the last pass */
    else if (s->verify != RB_VERIFY_NONE && s->do_verify && rb_rw_writes(s->rw) &&
             rb_job_uses_files(s) && !rb_rw_reads(s->rw) && !w->status)
        rb_data_verify_back(w);
    if (s->unlink)
        rb_data_unlink_files(w);
    if (s->ncmdprio_read || s->ncmdprio_write)
        rb_log(RB_LOG_INFO,
               "job %s worker %" PRIu32 ": cmdprio: %" PRIu64 " of %" PRIu64 " reads and %" PRIu64
               " of %" PRIu64 " writes issued with a priority",
               s->name, w->index, w->prio_ios[0], w->prio_of[0], w->prio_ios[1], w->prio_of[1]);
}

void rb_data_fini(rb_worker_t *w)
{
    rb_data_zbd_fini(w); /* first: it names the file */
    if (w->eng_ready)
        rb_engine_fini(&w->eng);
    w->eng_ready = 0;
    for (uint32_t i = 0; w->files && i < w->nfiles; i++) {
        if (w->files[i].fd < 0)
            continue;
        if (w->spec->fsync_on_close && w->files[i].dirty)
            fsync(w->files[i].fd);
        close(w->files[i].fd);
    }
    free(w->files);
    free(w->ios);
    free(w->slots);
    free(w->free);
    free(w->retry);
    free(w->done);
    free(w->unsent);
    free(w->covered);
    free(w->full);
    rb_data_backlog_fini(w);
    free(w->dist);
    w->dist = NULL;
    w->covered = w->full = NULL;
    w->files = NULL;
    w->ios = NULL;
    w->slots = NULL;
    w->free = w->retry = w->done = w->unsent = NULL;
}

/* openfiles: a file done leaves the files the round robin goes over. */
static void s_let_go(rb_worker_t *w, rb_worker_file_t *wf)
{
    if (wf->taken)
        w->ntaken--;
    wf->taken = 0;
}

/* file_service_type: the IO stays on the file whose turn it is while it
 * has IOs left (sequential: until done); a file found done is let go, as
 * fio closes it. */
int rb_data_stay_file(rb_worker_t *w, int wr, uint64_t end, uint32_t *file)
{
    rb_worker_file_t *wf = &w->files[w->fs_file];
    if (!w->fs_left)
        return 0;
    if (wf->cursor[wr] >= end) { /* done: fio closes it, the round robin goes on */
        s_let_go(w, wf);
        w->fs_left = 0;
        return 0;
    }
    if (w->spec->fs_nr != RB_FS_SEQUENTIAL)
        w->fs_left--;
    *file = w->fs_file;
    return 1;
}

/* openfiles: whether the round robin's turn at file f (direction wr, its
 * range ending at end) goes to it, as fio's turn goes to an open file: a
 * file done lets another in (fio closes it; time_based too, the next pass
 * takes the first ones again); one not taken in is, while fewer than
 * openfiles are. 0, or -1 to pass it by. */
int rb_data_take_file(rb_worker_t *w, uint32_t f, int wr, uint64_t end)
{
    rb_worker_file_t *wf = &w->files[f];
    if (wf->cursor[wr] >= end) {
        s_let_go(w, wf); /* done: fio closes it */
        return -1;
    }
    if (wf->taken)
        return 0;
    if (w->ntaken >= w->spec->openfiles)
        return -1; /* fio: busy, the next file's turn */
    wf->taken = 1;
    w->ntaken++;
    return 0;
}

int rb_data_sync_files(rb_worker_t *w, int kind)
{
    static const char *const name[] = {"fsync", "fdatasync", "sync_file_range"};
    for (uint32_t i = 0; i < w->nfiles; i++) {
        rb_worker_file_t *f = &w->files[i];
        if (!f->dirty || f->fd < 0)
            continue;
        int rc = 0;
        if (kind == RB_DATA_SYNC_RANGE) { /* fio: the bytes written since the last, if any */
            if (f->wlast > f->wfirst &&
                sync_file_range(f->fd, (off64_t)f->wfirst, (off64_t)(f->wlast - f->wfirst),
                                w->spec->sfr_flags) < 0)
                rc = -errno;
        } else if (w->eng.ops->sync) {
            rc = w->eng.ops->sync(&w->eng, i, f->fd, kind == RB_DATA_FDATASYNC);
        } else if ((kind == RB_DATA_FDATASYNC ? fdatasync(f->fd) : fsync(f->fd)) < 0) {
            rc = -errno;
        }
        if (rc < 0) {
            RB_WORKER_ADD(&w->errors, 1);
            rb_worker_fail(w, rc, f->path, 0, "%s: %s", name[kind], strerror(-rc));
            w->halt = 1;
            return -1;
        }
        f->dirty = 0;
        f->wfirst = f->wlast = 0;
    }
    return 0;
}
