/* The data workload: sequential and random passes over a worker's files
 * through the job's ioengine. The worker's ring holds iodepth IO slots with
 * one buffer each; the loop fills free slots with the next IOs (offsets from
 * a sequential cursor or a pseudo-random permutation, so that a random pass
 * touches every block once) and hands each to s_issue, the one submit path:
 * queue() answers COMPLETED, QUEUED (then commit(), whose failure fails the
 * worker) or BUSY (reap, then offer the IO again), so synchronous and
 * asynchronous engines share the loop. */
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rb_time.h"
#include "rb_verify.h"
#include "rb_data_int.h"
#include "rb_workload.h"

#define S_RENEW 2 /* s_issue_some: a pass is over, the files go before the next one */

static void s_new_pass(rb_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    rb_data_backlog_drain(w); /* verify_backlog: the rest of the last pass, as fio's verify */
    w->next_unit = 0;
    w->pass_bytes = 0;
    if (w->covered && !s->zone_size) /* zones: the map goes on with the walk */
        rb_data_map_clear(w);
    /* rw=write:4k, read:-8k: past its loops, io_size goes on stepping, as fio */
    int keep = s->seq_add && w->pass >= (s->loops ? s->loops : 1) && !w->seq_end;
    w->seq_end = 0; /* a pass that ended at the range's end starts again at the offset */
    /* zonemode=strided: a pass that ends on its bytes leaves the walk where
     * it is, as fio's loops and io_size go on in one walk */
    keep |= s->zone_size && w->pass;
    if (!w->pass)
        w->zone_restart = 1;
    for (uint32_t i = 0; i < w->nfiles && !keep; i++) {
        rb_worker_file_t *f = &w->files[i];
        f->cursor[0] = f->cursor[1] = f->cursor[2] = s->offset;
        f->start[0] = f->start[1] = f->start[2] = s->offset;
        f->last[RB_DIR_WRITE] = f->last[RB_DIR_TRIM] = UINT64_MAX;
        f->taken = 0; /* openfiles: fio opens the first ones again */
    }
    if (!keep)
        w->ntaken = 0;
    w->fs_left = 0;
    w->tw_due = 0;
    w->seq_count = 0;
    w->seq_file = 0;
    if (rb_rw_random(s->rw) && !s->norandommap)
        rb_perm_init(&w->perm, w->units, rb_rand_next(&w->rng));
    w->pass++;
}

/* The size of a read (wr 0), a write (1) or a trim (2), as fio draws it: by
 * the direction's bssplit weights, else uniformly in its bsrange in units of
 * the smallest size, else its bs. */
static uint64_t s_want(rb_worker_t *w, int wr)
{
    const rb_job_spec_t *s = w->spec;
    uint32_t n = wr == RB_DIR_TRIM ? 0 : wr ? s->nbssplit_write : s->nbssplit_read;
    if (n) {
        const rb_bs_part_t *p = wr ? s->bssplit_write : s->bssplit_read;
        uint32_t r = (uint32_t)(rb_rand_next(&w->rng) % 100);
        for (uint32_t i = 0; i < n; i++) {
            if (r < p[i].perc)
                return p[i].bs;
            r -= p[i].perc;
        }
        return p[n - 1].bs;
    }
    uint64_t lo = wr == RB_DIR_TRIM ? s->bs_trim : wr ? s->bs_write : s->bs_read;
    uint64_t hi = wr == RB_DIR_TRIM ? s->bs_trim_max : wr ? s->bs_write_max : s->bs_read_max;
    if (!lo) { /* one range for both */
        lo = s->bs;
        hi = s->bs_max > s->bs ? s->bs_max : s->bs;
    }
    if (hi > lo)
        return lo + s->bs * (rb_rand_next(&w->rng) % ((hi - lo) / s->bs + 1));
    return lo;
}

/* trimwrite: the direction of file f's next IO, as fio picks it: a trim
 * when the file's last write began where its last trim did, else a write. */
static int s_trimwrite_dir(const rb_worker_file_t *f)
{
    return f->last[RB_DIR_WRITE] == f->last[RB_DIR_TRIM] ? RB_DIR_TRIM : RB_DIR_WRITE;
}

/* Picks the next IO of the pass: file, offset, length. 0, or 1 at the end
 * of the pass. A sequential trimwrite picks the direction here, per file
 * (*wr is set); a random one issues the write of each trim next, at the
 * trim's place. */
static int s_next(rb_worker_t *w, int *wrp, uint32_t *file, uint64_t *off, uint64_t *len)
{
    const rb_job_spec_t *s = w->spec;
    uint64_t end = s->offset + w->unit_per_file * s->bs;
    int tw = s->rw == RB_RW_TRIMWRITE || s->rw == RB_RW_RANDTRIMWRITE;
    if (tw && w->tw_due) { /* randtrimwrite: where the last trim went */
        *wrp = RB_DIR_WRITE;
        *file = w->tw_file;
        *off = w->tw_off;
        *len = w->tw_len;
        w->tw_due = 0;
        return 0;
    }
    int wr = s->rw == RB_RW_RANDTRIMWRITE ? RB_DIR_TRIM : *wrp;
    if (s->rw == RB_RW_TRIMWRITE)
        wr = s_trimwrite_dir(&w->files[w->next_unit % w->nfiles]);
    uint64_t want = s_want(w, wr);
    uint64_t unit = UINT64_MAX; /* a random IO's first unit */
    int turn = rb_rw_random(s->rw) ? rb_data_seq_turn(w, wr, file, off) : 0;
    if (turn == 2)
        return 1;
    if (turn == 1) { /* rw=randX:N, percentage_random: on from the last IO */
        *len = want < end - *off ? want : end - *off;
    } else if (s->zone_size) { /* zonemode=strided: one file, the pass ends on its bytes */
        if (w->pass_bytes >= w->units * s->bs || rb_data_zone_next(w, wr, want, off))
            return 1;
        *file = 0;
        *len = want;
    } else if (rb_rw_random(s->rw)) {
        uint64_t u;
        if (s->norandommap || w->dist) {
            /* as fio: IOs until the pass's bytes are issued, the last one whole */
            if (w->pass_bytes >= w->units * s->bs)
                return 1;
            u = w->dist ? rb_data_dist_unit(w, wr) : rb_rand_next(&w->rng) % w->units;
        } else if (w->covered) {
            if (rb_data_pick_free(w, &u))
                return 1;
        } else {
            /* one size: every unit once, in a random order */
            if (w->next_unit == w->units)
                return 1;
            u = rb_perm_at(&w->perm, w->next_unit++);
        }
        *file = (uint32_t)(u % w->nfiles);
        *off = s->offset + (u / w->nfiles) * s->bs;
        if (s->norandommap && !w->dist)
            *off = rb_data_aligned(w, wr, *off); /* blockalign */
        *len = want < end - *off ? want : end - *off;
        unit = u;
    } else {
        /* Round robin over the files, one IO each, as fio does by default;
         * reads, writes and trims each go on from their own last offset, as
         * in fio, and the pass ends once its bytes are issued (trimwrite's
         * twice: each block trimmed and written). */
        if (w->pass_bytes >= w->units * s->bs * (tw ? 2 : 1))
            return 1;
        if (s->fs_nr && rb_data_stay_file(w, wr, end, file)) {
            *off = w->files[*file].cursor[wr]; /* file_service_type: the same file */
            goto found;
        }
        /* openfiles: a file passed by may be let in once the done ones
         * leave, a round later */
        uint64_t most = (uint64_t)w->nfiles * (s->openfiles ? 2 : 1);
        for (uint64_t tries = 0; tries < most; tries++) {
            uint32_t f = (uint32_t)(w->next_unit++ % w->nfiles);
            if (tw && tries) {
                wr = s_trimwrite_dir(&w->files[f]);
                want = s_want(w, wr);
            }
            if (s->seq_add && rb_data_seq_step(w, f, wr, want, off) == 0) {
                *file = f;
                goto found;
            }
            if (!s->seq_add && s->openfiles && rb_data_take_file(w, f, wr, end) < 0)
                continue; /* openfiles: not among those the worker goes over now */
            if (!s->seq_add && w->files[f].cursor[wr] < end) {
                *file = f;
                *off = w->files[f].cursor[wr];
                w->fs_file = f; /* file_service_type: its turn begins */
                w->fs_left = s->fs_nr == RB_FS_SEQUENTIAL ? 1 : s->fs_nr ? s->fs_nr - 1 : 0;
                goto found;
            }
        }
        return 1;
    found:
        *len = want < end - *off ? want : end - *off;
    }
    if (tw)
        w->files[*file].last[wr] = *off;
    /* offsets so far are in the worker's own region: place it in the file */
    uint64_t room, at = *off;
    *off = rb_job_map(s, w->nregions, w->region, *off - s->offset, &room);
    if (*len > room)
        *len = room;
    if (w->zbd) { /* zonemode=zbd: where the zones let the IO go */
        uint64_t was = *off;
        int zr = rb_data_zbd_adjust(w, wr, off, len);
        if (zr < 0)
            w->halt = 1;
        if (zr)
            return 1;
        at += *off - was - w->zbd_shift; /* the walk goes on from there, as fio's */
    }
    if (w->covered && unit != UINT64_MAX)
        *len = rb_data_cover(w, unit, *len);
    if (w->zbd && wr == RB_DIR_WRITE)
        rb_data_zbd_wrote(w, *off, *len);
    w->files[*file].cursor[wr] = at + *len; /* where the next goes on from */
    w->files[*file].start[wr] = at;
    w->seq_file = *file;
    w->pass_bytes += *len;
    w->zone_bytes += *len;
    if (s->rw == RB_RW_RANDTRIMWRITE) { /* its write comes next */
        w->tw_due = 1;
        w->tw_file = *file;
        w->tw_off = *off;
        w->tw_len = *len;
    }
    *wrp = wr;
    return 0;
}

/* The direction of the next IO (rb_dir_t): a mix draws it; trimwrite's is
 * settled by s_next. */
static int s_direction(rb_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    if (s->rw == RB_RW_RW || s->rw == RB_RW_RANDRW)
        return rb_rand_next(&w->rng) % 100 >= s->rwmixread;
    if (s->rw == RB_RW_TRIM || s->rw == RB_RW_RANDTRIM)
        return RB_DIR_TRIM;
    return rb_rw_writes(s->rw) ? RB_DIR_WRITE : RB_DIR_READ;
}

static void s_release(rb_worker_t *w, rb_engine_io_t *io)
{
    w->free[w->nfree++] = io;
}

/* Accounts one completed IO (evented: reaped, not completed by queue()).
 * 1 when it was short: io then holds the rest, for the caller to offer to
 * the engine again. */
static int s_complete(rb_worker_t *w, rb_engine_io_t *io, uint64_t now, int evented)
{
    const rb_job_spec_t *s = w->spec;
    rb_worker_slot_t *sl = io->runner;
    rb_worker_file_t *f = &w->files[io->file_index];
    uint64_t unread = 0;
    if (evented && s->create_on_open && io->dir == RB_ENGINE_READ && io->result >= 0 &&
        (uint64_t)io->result < io->len) {
        /* create_on_open: a read past the end the file has so far; fio
         * counts what an asynchronous engine's event brought, no more */
        unread = io->len - (uint64_t)io->result;
        io->result = (int64_t)io->len;
    }
    if (io->result > 0 && (uint64_t)io->result < io->len) {
        /* Short transfer: move on within the same IO, as fio does. */
        io->buf = (char *)io->buf + io->result;
        io->off += (uint64_t)io->result;
        io->len -= (uint64_t)io->result;
        io->result = 0;
        return 1;
    }
    if (s->fill_device && io->dir == RB_ENGINE_WRITE &&
        (io->result == -ENOSPC || io->result == -EDQUOT)) {
        w->halt = 1; /* fio's fill_device: the file system is full, the IO is over */
        io->buf = sl->base;
        s_release(w, io);
        return 0;
    }
    if (io->result < 0 &&
        rb_worker_goes_on(w, io->dir == RB_ENGINE_READ ? RB_ERR_CLASS_READ : RB_ERR_CLASS_WRITE,
                          (int)-io->result)) {
        io->buf = sl->base; /* counted; the IO's bytes are not */
        s_release(w, io);
        return 0;
    }
    if (io->result < 0 || (io->result == 0 && io->len > 0)) {
        RB_WORKER_ADD(&w->errors, 1);
        if (io->result == 0)
            rb_worker_fail(w, -ENODATA, f->path, io->off,
                           "read at end of file (the file ends before %llu)",
                           (unsigned long long)(sl->off0 + sl->len0));
        else
            rb_worker_fail(w, (int)io->result, f->path, io->off, "%s: %s",
                           io->dir == RB_ENGINE_READ    ? "read"
                           : io->dir == RB_ENGINE_WRITE ? "write"
                           : f->blkdev                  ? "trim (BLKDISCARD)"
                                                        : "trim (punching a hole)",
                           strerror((int)-io->result));
        w->halt = 1;
        io->buf = sl->base;
        s_release(w, io);
        return 0;
    }
    io->buf = sl->base;
    io->off = sl->off0;
    io->len = sl->len0 - unread;
    /* a mix's reads find what is there; its writes are read back (fio) */
    if (io->dir == RB_ENGINE_READ && rb_verify_writes(s) && !rb_rw_writes(s->rw)) {
        char why[240];
        if (rb_verify_check(s, io->buf, io->len, w->run_hash, w->expect, f->hash, io->off, why,
                            sizeof why)) {
            RB_WORKER_ADD(&w->verify_errors, 1);
            if (!rb_worker_goes_on(w, RB_ERR_CLASS_VERIFY, EILSEQ)) {
                RB_WORKER_ADD(&w->errors, 1);
                rb_worker_fail(w, -EBADMSG, f->path, io->off, "verify: %s", why);
            }
            if (s->verify_fatal)
                w->halt = 1;
        }
    }
    w->think_done++;
    if (now >= w->count_from) {
        if (w->t_start < w->count_from || !w->t_start) {
            /* First counted IO after ramp-up: the measured window opens here. */
            w->t_start = w->count_from;
            rb_worker_checkpoint(w, w->t_start, 0);
        }
        rb_worker_count(w, (int)io->dir, io->len, now - io->t_issue_ns,
                        io->t_sub_ns ? io->t_sub_ns - io->t_issue_ns : RB_WORKER_NO_SLAT, now);
        if (s->max_lat_read_ns | s->max_lat_write_ns | s->max_lat_trim_ns)
            rb_data_max_latency(w, io, f->path, now - io->t_issue_ns);
    }
    if (s->lat_target_ns)
        rb_data_lat_io(w, now - io->t_issue_ns);
    uint32_t fi = io->file_index;
    uint64_t off = io->off, len = io->len;
    int wrote = io->dir == RB_ENGINE_WRITE;
    s_release(w, io);
    if (wrote && w->vb_hist)
        rb_data_backlog_wrote(w, fi, off, len); /* verify_backlog's reads back, when due */
    if (wrote && s->sfr_every)
        rb_data_wrote_range(&w->files[fi], off, len); /* sync_file_range's extent */
    return 0;
}

/* fio's io_size and number_ios: 1 once the worker has issued io_size ×
 * loops bytes, or its counted and in-flight IOs reach number_ios × loops. */
static inline int s_at_limit(const rb_worker_t *w, uint32_t inflight)
{
    return w->issued_bytes >= w->byte_limit || rb_worker_ops(w) + inflight >= w->ios_limit;
}

/* 1 when the worker must stop issuing: asked to, failed (below its
 * rate_min fails it), out of time, at its stonewall, at its io_size or
 * number_ios, or (wearout) with enough ops done or in flight. */
static int s_stop_issuing(rb_worker_t *w, uint64_t now, uint32_t inflight)
{
    return rb_worker_stopped(w) || w->halt || rb_data_min_rate_failed(w, now) ||
           now >= w->deadline || now >= w->sw_at || rb_worker_ops(w) + inflight >= w->op_limit ||
           s_at_limit(w, inflight);
}

/* a × b, or UINT64_MAX when that does not fit. */
static uint64_t s_mul_sat(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* 1 for trimwrite and randtrimwrite: each block trimmed and written, so
 * that io_size and number_ios count twice, as in fio. */
static int s_trimwrites(const rb_job_spec_t *s)
{
    return s->rw == RB_RW_TRIMWRITE || s->rw == RB_RW_RANDTRIMWRITE;
}

/* After its loops, a worker with io_size begins another pass while at least
 * its largest block of io_size is left and number_ios is not reached, as
 * fio goes on looping over size. */
static int s_more_passes(const rb_worker_t *w, uint32_t inflight)
{
    const rb_job_spec_t *s = w->spec;
    uint64_t bmax = s->bs_max > s->bs ? s->bs_max : s->bs;
    uint64_t io = s_mul_sat(s->io_size, s_trimwrites(s) ? 2 : 1);
    /* fio counts every byte moved, verify_backlog's reads too */
    uint64_t done = w->issued_bytes + w->vb_bytes;
    if (!s->io_size || s->time_based || s_at_limit(w, inflight))
        return 0;
    return done < io && io - done >= bmax;
}

/* Submits the IOs queued and not yet submitted (iodepth_batch_submit holds
 * them until there are enough, or the worker reaps): fio's issue_time is
 * now for each. 0, or -1 with the worker failed and those IOs released. */
static int s_commit(rb_worker_t *w, uint32_t *inflight)
{
    const rb_engine_ops_t *ops = w->eng.ops;
    if (!w->nunsent)
        return 0;
    int c = ops->commit ? ops->commit(&w->eng) : 0;
    if (c < 0) {
        rb_engine_io_t *io = w->unsent[0];
        rb_worker_fail(w, c, w->files[io->file_index].path, io->off, "%s submit: %s", ops->name,
                       strerror(-c));
        w->halt = 1; /* never submitted: nothing to reap */
        while (w->nunsent) {
            s_release(w, w->unsent[--w->nunsent]);
            (*inflight)--;
        }
        return -1;
    }
    uint64_t now = (ops->flags & RB_ENGINE_F_NO_SLAT) ? 0 : rb_time_mono_ns();
    for (uint32_t i = 0; i < w->nunsent; i++)
        if (!w->unsent[i]->t_sub_ns) /* a short IO's rest keeps its first submission */
            w->unsent[i]->t_sub_ns = now;
    w->nunsent = 0;
    return 0;
}

/* The one submit path: hands io to the engine and answers what became of it.
 * RB_ENGINE_Q_COMPLETED: done and accounted (a short IO on a synchronous
 * engine goes on at once), *now the completion time. RB_ENGINE_Q_QUEUED:
 * queued (submitted with its batch), *inflight counts it. RB_ENGINE_Q_BUSY: not taken,
 * still the caller's to offer again after reaping. -1: the worker failed,
 * the slot is released.
 * A queued IO is submitted (s_commit) once iodepth_batch_submit are queued:
 * by default at once, as fio does (holding a reaped burst back to submit it
 * together measured ~10% fewer IOPS at QD32 here, the device seeing bursts
 * instead of a steady queue). */
static inline int s_issue(rb_worker_t *w, rb_engine_io_t *io, uint32_t *inflight, uint64_t *now)
{
    const rb_engine_ops_t *ops = w->eng.ops;
    for (;;) {
        int rc =
            w->zbd && io->dir == RB_ENGINE_TRIM ? rb_data_zbd_trim(w, io) : ops->queue(&w->eng, io);
        if (rc == RB_ENGINE_Q_COMPLETED) {
            *now = rb_time_mono_ns();
            if (s_complete(w, io, *now, 0))
                continue; /* the rest of a short IO */
            return RB_ENGINE_Q_COMPLETED;
        }
        if (rc == RB_ENGINE_Q_QUEUED) {
            (*inflight)++;
            w->unsent[w->nunsent++] = io;
            if (w->nunsent >= w->batch_submit && s_commit(w, inflight) < 0)
                return -1;
            return RB_ENGINE_Q_QUEUED;
        }
        if (rc == RB_ENGINE_Q_BUSY)
            return RB_ENGINE_Q_BUSY;
        if (rc == -EALREADY && w->zbd && io->dir == RB_ENGINE_TRIM) { /* said */
            s_release(w, io);
            return -1;
        }
        RB_WORKER_ADD(&w->errors, 1);
        rb_worker_fail(w, rc < 0 ? rc : -EIO, w->files[io->file_index].path, io->off,
                       "%s queue: %s", ops->name,
                       rc < 0 ? strerror(-rc) : "unknown answer from queue()");
        w->halt = 1;
        s_release(w, io);
        return -1;
    }
}

/* Reaps at least min and at most max completions (all in flight when min
 * == inflight), what is queued submitted first; the rest of a short IO goes
 * back through s_issue, or onto the retry stack when the engine is busy.
 * The count reaped, or -errno with the worker failed. */
static int s_reap(rb_worker_t *w, uint32_t *inflight, unsigned min, unsigned max)
{
    if (s_commit(w, inflight) < 0)
        return -1;
    if (min > *inflight)
        min = *inflight;
    if (max > *inflight)
        max = *inflight;
    if (!*inflight)
        return 0;
    int n = w->eng.ops->getevents(&w->eng, min, max < min ? min : max, w->done);
    if (n < 0) {
        rb_worker_fail(w, n, NULL, 0, "%s getevents: %s", w->eng.ops->name, strerror(-n));
        w->halt = 1;
        return n;
    }
    uint64_t now = rb_time_mono_ns(), t;
    for (int i = 0; i < n; i++) {
        (*inflight)--;
        if (i && w->vb_hist)
            now = rb_time_mono_ns(); /* after the reads back the one before made */
        if (s_complete(w, w->done[i], now, 1) &&
            s_issue(w, w->done[i], inflight, &t) == RB_ENGINE_Q_BUSY)
            w->retry[w->nretry++] = w->done[i];
    }
    return n;
}

/* Offers the retry stack to the engine again until it is empty or the engine
 * is busy. */
static void s_retry(rb_worker_t *w, uint32_t *inflight)
{
    uint64_t t;
    while (w->nretry) {
        rb_engine_io_t *io = w->retry[--w->nretry];
        if (s_issue(w, io, inflight, &t) == RB_ENGINE_Q_BUSY) {
            w->retry[w->nretry++] = io;
            return;
        }
    }
}

/* BUSY with nothing in flight would never clear: an engine bug. Fails the
 * worker on io. */
static void s_busy_idle(rb_worker_t *w, const rb_engine_io_t *io)
{
    rb_worker_fail(w, -EIO, w->files[io->file_index].path, io->off,
                   "%s is busy with no IO in flight", w->eng.ops->name);
    w->halt = 1;
}

/* fio's thinktime: the count it goes by (IOs completed, or issued). */
static uint64_t s_think_count(const rb_worker_t *w)
{
    return w->spec->thinktime_issued ? w->rate_ios[0] + w->rate_ios[1] + w->rate_ios[2]
                                     : w->think_done;
}

/* 1 when the worker is due to think: thinktime_blocks IOs since the last
 * think, or (thinktime_iotime) that long issuing since then. */
static int s_think_due(const rb_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    if (!s->thinktime_ns) /* the per-IO cost without thinktime: this test */
        return 0;
    if (s->thinktime_iotime_ns && rb_time_mono_ns() - w->think_t >= s->thinktime_iotime_ns)
        return 1;
    if (s->thinktime_iotime_ns && !s->thinktime_blocks)
        return 0; /* fio: by time alone when thinktime_blocks is not set */
    return s_think_count(w) >= w->think_last + (s->thinktime_blocks ? s->thinktime_blocks : 1);
}

/* Thinks (the IOs in flight are done): spins thinktime_spin, sleeps the rest
 * of thinktime, neither past the deadline; count is what s_think_count said
 * when it fell due. -ECANCELED when the worker is stopped meanwhile. */
static int s_think(rb_worker_t *w, uint64_t count)
{
    const rb_job_spec_t *s = w->spec;
    uint64_t t0 = rb_time_mono_ns(), spin = s->thinktime_spin_ns;
    uint64_t end = t0 + (s->thinktime_ns > spin ? s->thinktime_ns : spin);
    uint64_t spin_end = t0 + spin;
    if (end > w->deadline)
        end = w->deadline;
    if (spin_end > end)
        spin_end = end;
    w->think_last = count;
    for (uint64_t now = t0; now < spin_end; now = rb_time_mono_ns())
        if (rb_worker_stopped(w))
            return -ECANCELED;
    int rc = rb_worker_sleep_until(w, end);
    w->think_t = rb_time_mono_ns(); /* thinktime_iotime counts from here, as fio's */
    return rc;
}

/* Waits for every IO in flight and every rest on the retry stack. 0, or -1
 * with the worker failed. */
static int s_drain(rb_worker_t *w, uint32_t *inflight)
{
    for (;;) {
        s_retry(w, inflight);
        if (!*inflight) {
            if (!w->nretry)
                return 0;
            s_busy_idle(w, w->retry[w->nretry - 1]);
            return -1;
        }
        if (s_reap(w, inflight, *inflight, *inflight) < 0)
            return -1;
    }
}

/* Reaps after the issuing stopped: a full queue as fio reaps it
 * (iodepth_batch_complete_min .. _max at a time, until no more than
 * iodepth_low are in flight); at the end (all) everything in flight at
 * once, as fio's last reap; else at least one. 0, or -1 with the worker
 * failed. */
static int s_wait(rb_worker_t *w, uint32_t *inflight, int all)
{
    const rb_job_spec_t *s = w->spec;
    if (w->nfree && *inflight < w->lat_qd)
        return s_reap(w, inflight, all ? *inflight : 1, *inflight) < 0 ? -1 : 0;
    unsigned min = s->batch_cmin ? s->batch_cmin : 1;
    unsigned max = s->batch_cmax > min ? s->batch_cmax : min;
    uint32_t low = s->depth_low && s->depth_low < w->depth ? s->depth_low : w->depth;
    do
        if (s_reap(w, inflight, min, max) < 0)
            return -1;
    while (*inflight > low);
    return 0;
}

/* Takes a free slot and fills it with the worker's next IO, once the rate
 * allows it. NULL at the end of the pass, or with *stop set when the worker
 * must stop issuing before the IO was due. */
static rb_engine_io_t *s_fill(rb_worker_t *w, int *stop)
{
    uint32_t fi;
    uint64_t off, len;
    int wr = s_direction(w); /* first: the direction picks the size */
    if (w->zbd)
        wr = rb_data_zbd_dir(w, wr); /* zonemode=zbd: a mix writes until there is data */
    if (rb_data_rate_pick(w, &wr) < 0) {
        *stop = 1;
        return NULL;
    }
    if (s_next(w, &wr, &fi, &off, &len))
        return NULL;
    w->rate_bytes[wr] += len;
    w->rate_ios[wr]++;
    rb_engine_io_t *io = w->free[--w->nfree];
    rb_worker_slot_t *sl = io->runner;
    io->file_index = fi;
    io->fd = w->files[fi].fd;
    io->off = sl->off0 = off;
    io->len = sl->len0 = len;
    io->buf = sl->base;
    io->result = 0;
    io->dir = (rb_engine_dir_t)wr;
    io->ioprio = rb_data_cmdprio(w, wr, len);
    io->blkdev = w->files[fi].blkdev;
    w->issued_bytes += len;
    if (io->dir == RB_ENGINE_WRITE) {
        rb_data_prepare_write(w, io, &w->files[fi]);
        w->files[fi].dirty = 1;
    }
    io->t_sub_ns = 0;
    io->t_issue_ns = rb_time_mono_ns();
    return io;
}

/* Issues IOs while there are free slots and nothing says stop: the rests on
 * the retry stack first, then the IO the engine was busy for (*pending), then
 * new ones. Returns 1 once every pass is issued, S_RENEW at the end of a pass
 * when unlink_each_loop removes the files before the next, else 0; *stop is
 * set when the worker must stop issuing. */
static int s_issue_some(rb_worker_t *w, uint32_t *inflight, rb_engine_io_t **pending,
                        uint64_t passes, int *stop)
{
    s_retry(w, inflight);
    if (w->nretry)
        return 0; /* busy: reap first */
    while (!*stop && (*pending || w->nfree) && *inflight < w->lat_qd) {
        rb_engine_io_t *io = *pending;
        if (!io && w->flow && (w->flow_held = rb_worker_flow_held(w)))
            return 0; /* flow: ahead of its share, the caller waits */
        if (!io && !(io = s_fill(w, stop))) {
            if (*stop)
                break;
            if (w->zbd && !w->pass_bytes)
                return 1; /* zonemode=zbd: a pass with nothing to do ends the job, as fio's */
            if (w->pass >= passes && !s_more_passes(w, *inflight))
                return 1;
            if (w->spec->unlink_each_loop && !w->spec->time_based)
                return S_RENEW;
            /* the pass's read back follows its last write, as fio's verify */
            if (w->vb_hist && *inflight && s_drain(w, inflight) < 0) {
                *stop = 1;
                break;
            }
            s_new_pass(w);
            continue;
        }
        if (w->sync_due) {
            *pending = io; /* fsync=N: the sync comes first, as in fio */
            return 0;
        }
        *pending = NULL;
        uint64_t now = 0;
        int rc = s_issue(w, io, inflight, &now);
        if (rc == RB_ENGINE_Q_BUSY) {
            *pending = io;
            return 0;
        }
        if (io->dir == RB_ENGINE_WRITE)
            w->sync_due = rb_data_sync_due(w->spec, ++w->writes_issued); /* counts writes issued */
        if (rc < 0)
            *stop = 1;
        else if (rc == RB_ENGINE_Q_COMPLETED)
            *stop = s_stop_issuing(w, now, *inflight); /* a sync engine never leaves otherwise */
        else if (rb_worker_ops(w) + *inflight >= w->op_limit || s_at_limit(w, *inflight))
            *stop = 1;
        if (s_think_due(w) || (w->spec->lat_target_ns && rb_data_lat_due(w)))
            return 0; /* thinktime: drain, then think; latency_target: judge */
    }
    return 0;
}

/* flow held the next IO back: as fio, with flow_sleep the IOs in flight
 * end, then the worker sleeps flow_sleep (not past its deadline); without,
 * it only yields and looks again. -1 when it failed or was stopped. */
static int s_flow_wait(rb_worker_t *w, uint32_t *inflight)
{
    w->flow_held = 0;
    uint64_t us = w->spec->flow_sleep_us;
    if (!us) {
        sched_yield();
        return 0;
    }
    if (s_drain(w, inflight) < 0)
        return -1;
    uint64_t end = rb_time_mono_ns() + us * 1000;
    return rb_worker_sleep_until(w, end < w->deadline ? end : w->deadline) < 0 ? -1 : 0;
}

/* At the end of the issuing: the stonewall figures, when stonewall_time
 * stopped it. 1 when a wearout target says to go on. */
static int s_at_stonewall(rb_worker_t *w, int pass_over)
{
    if (w->sw_at == UINT64_MAX || pass_over || w->halt || rb_worker_stopped(w) ||
        rb_time_mono_ns() < w->sw_at)
        return 0;
    /* stonewall_time: what is done by now is the stonewall figure */
    w->sw_t = w->t_end ? w->t_end : rb_time_mono_ns();
    w->sw_bytes = rb_worker_bytes(w);
    w->sw_ops = rb_worker_ops(w);
    w->sw_at = UINT64_MAX;
    return w->spec->wearout && rb_time_mono_ns() < w->deadline && rb_worker_wait_target(w);
}

/* The IO loop of one worker over its passes. */
static void s_run(rb_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    uint32_t inflight = 0;
    uint64_t loops = s->loops ? s->loops : 1;
    uint64_t passes = s->time_based ? UINT64_MAX : loops;
    rb_engine_io_t *pending = NULL; /* answered BUSY: queue again after reaping */
    int pass_over = 0, again;

    /* fio's io_size and number_ios hold for loops together; time_based runs
     * to its runtime whatever they say, as in fio */
    uint64_t twice = s_trimwrites(s) ? 2 : 1;
    w->byte_limit =
        s->io_size && !s->time_based ? s_mul_sat(s->io_size, loops * twice) : UINT64_MAX;
    w->ios_limit =
        s->number_ios && !s->time_based ? s_mul_sat(s->number_ios, loops * twice) : UINT64_MAX;
    rb_data_lat_reset(w);
    w->think_t = rb_time_mono_ns();
    s_new_pass(w);
    do {
        again = 0;
        for (;;) {
            int lat = s->lat_target_ns ? rb_data_lat_check(w, rb_time_mono_ns()) : 0;
            if (lat == RB_DATA_LAT_DONE)
                break; /* latency_target: the depth's last window is over */
            if (lat && s_drain(w, &inflight) == 0) /* the figures go on (docs/plan.md) */
                rb_data_lat_cycle(w, rb_time_mono_ns());
            if (!pass_over && s_think_due(w)) {
                uint64_t count = s_think_count(w);
                if (s_drain(w, &inflight) < 0 || s_think(w, count) < 0)
                    break;
            }
            int stop = s_stop_issuing(w, rb_time_mono_ns(), inflight);
            if (!pass_over)
                pass_over = s_issue_some(w, &inflight, &pending, passes, &stop);
            else
                s_retry(w, &inflight);
            if (w->flow_held && !stop && s_flow_wait(w, &inflight) < 0)
                break;
            /* fsync=N / fdatasync=N: before the IO after the N-th write
             * (none after the job's last, as in fio), drain, then sync the
             * files written; that IO's latency starts after the sync */
            if (w->sync_due && pending && stop) {
                s_release(w, pending); /* stopped: neither the IO nor its sync */
                pending = NULL;
            } else if (w->sync_due && pending) {
                s_drain(w, &inflight);
                rb_data_sync_files(w, w->sync_due - 1);
                w->sync_due = 0;
                pending->t_issue_ns = rb_time_mono_ns();
                continue;
            }
            if (inflight) {
                if (s_wait(w, &inflight, stop || pass_over) < 0)
                    break;
                continue;
            }
            /* An IO held back for fsync=N when the issuing stopped right
             * after the sync is not busy: it is not issued (released below) */
            if (w->nretry || (pending && !stop)) {
                s_busy_idle(w, pending ? pending : w->retry[w->nretry - 1]);
                break;
            }
            if (stop || pass_over)
                break;
        }
        if (pending)
            s_release(w, pending);
        pending = NULL;
        s_drain(w, &inflight);
        while (w->nretry)
            s_release(w, w->retry[--w->nretry]);
        if (pass_over == S_RENEW) {
            /* unlink_each_loop: the files go, and come anew for a writer */
            pass_over = 1;
            if (!s_stop_issuing(w, rb_time_mono_ns(), 0) && rb_data_renew_files(w) == 1) {
                pass_over = 0;
                again = 1;
                s_new_pass(w);
            }
        }
    } while (again || s_at_stonewall(w, pass_over));
    if ((s->end_fsync || s->fsync_on_close) && !rb_worker_stopped(w)) {
        rb_data_sync_files(w, RB_DATA_FSYNC);
        uint64_t now = rb_time_mono_ns();
        if (w->t_start && now > w->t_end)
            w->t_end = now; /* the flush is part of the job's time */
    }
}
const rb_workload_ops_t rb_data_workload = {
    .name = "data",
    .setup = rb_data_setup,
    .warm = rb_data_warm,
    .run = s_run,
    .finish = rb_data_finish,
    .fini = rb_data_fini,
};
