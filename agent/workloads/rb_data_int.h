/* What the data workload's two files share (not for use elsewhere): its
 * loop over the IOs (rb_data.c) and the worker's files and ring, set up,
 * renewed, verified and closed (rb_data_files.c), where random IOs fall
 * (rb_data_dist.c). */
#ifndef RB_DATA_INT_H
#define RB_DATA_INT_H

#include <stdint.h>
#include <string.h>

#include "rb_time.h"
#include "rb_workload.h"

#define RB_DATA_MAX_FILES 65536 /* files per worker at the most */

/* The random map of a pass with IOs of several sizes, as fio keeps one:
 * each block of each file is done once. Bits file by file; a word that is
 * all done is marked in full[] so that a search passes over it. */
static inline int rb_data_map_done(const rb_worker_t *w, uint64_t c)
{
    return (int)(w->covered[c / 64] >> (c % 64) & 1);
}

static inline void rb_data_map_mark(rb_worker_t *w, uint64_t c)
{
    w->covered[c / 64] |= 1ull << (c % 64);
    if (w->covered[c / 64] == UINT64_MAX)
        w->full[c / 4096] |= 1ull << (c / 64 % 64);
    w->ncovered++;
}

/* The first block not done in [from, to) of the map, or UINT64_MAX. */
static inline uint64_t rb_data_map_free_in(const rb_worker_t *w, uint64_t from, uint64_t to)
{
    uint64_t c = from;
    while (c < to) {
        uint64_t word = c / 64;
        if (c % 4096 == 0 && w->full[c / 4096] == UINT64_MAX) {
            c += 4096; /* 64 words all done */
            continue;
        }
        if (c % 64 == 0 && (w->full[word / 64] >> (word % 64) & 1)) {
            c += 64; /* a word all done */
            continue;
        }
        uint64_t bits = ~w->covered[word] & (UINT64_MAX << (c % 64));
        if (bits) {
            uint64_t hit = word * 64 + (uint64_t)__builtin_ctzll(bits);
            return hit < to ? hit : UINT64_MAX;
        }
        c = (word + 1) * 64;
    }
    return UINT64_MAX;
}

/* Clears the map: a new pass (or, zonemode=strided, a new zone range). */
static inline void rb_data_map_clear(rb_worker_t *w)
{
    memset(w->covered, 0, (size_t)((w->units + 63) / 64) * sizeof *w->covered);
    memset(w->full, 0, (size_t)((w->units + 4095) / 4096) * sizeof *w->full);
    w->ncovered = 0;
}

/* A random block as fio picks it, the map's next free one from a random
 * place (rb_data_dist.c): *u the unit (block * nfiles + file), 0; 1 when
 * every block is done. */
int rb_data_pick_free(rb_worker_t *w, uint64_t *u);

/* Marks the blocks of a random IO of len bytes from unit u up to the first
 * one done already, where fio's random map ends it (rb_data_dist.c). The
 * length kept. */
uint64_t rb_data_cover(rb_worker_t *w, uint64_t u, uint64_t len);

/* openfiles (rb_data_files.c): 0 when the round robin's turn at file f
 * (direction wr, its range ending at end) goes to it, -1 to pass it by. */
int rb_data_take_file(rb_worker_t *w, uint32_t f, int wr, uint64_t end);

/* file_service_type (rb_data_files.c): 1 with *file set when the next IO
 * (direction wr, ranges ending at end) stays on the file whose turn it is
 * (roundrobin:N's IOs left, or sequential's file not done); 0 for the
 * round robin to pick, a file found done let go (openfiles) as fio closes
 * it. */
int rb_data_stay_file(rb_worker_t *w, int wr, uint64_t end, uint32_t *file);

/* zonemode=strided: where the next IO of direction dir (want bytes) goes
 * in the worker's walk of fio's zones (rb_data_dist.c). 0 with *off set,
 * or 1 when the pass ends there. */
int rb_data_zone_next(rb_worker_t *w, int dir, uint64_t want, uint64_t *off);

/* zonemode=zbd (rb_data_zbd.c). Setup: the worker's file's zones (made
 * by the first worker of the run on the agent to open the file, shared by
 * the others), its range rounded to zones as fio rounds it (units set
 * anew). 0 or -errno with err set. */
int rb_data_zbd_setup(rb_worker_t *w, rb_err_t *err);

/* fio's zbd_adjust_ddir: a mix's read becomes a write while no zone of the
 * file holds data (without read_beyond_wp). */
int rb_data_zbd_dir(rb_worker_t *w, int dir);

/* fio's zbd_adjust_block: moves the IO of direction dir at *off (in the
 * file) of *len bytes to where zones allow it: a write to its zone's write
 * pointer (opening, and resetting, zones as fio does; the pointer moves on
 * at once), a read below a write pointer, a random trim to a zone with
 * data. 0, 1 when no zone allows it (the pass ends, as fio's io_u_eof), or
 * -1 with the worker failed. A write placed (0) holds the file's zones
 * until rb_data_zbd_wrote, as fio holds the zone until it queues the IO. */
int rb_data_zbd_adjust(rb_worker_t *w, int dir, uint64_t *off, uint64_t *len);

/* The write adjusted to off, of len bytes once the random map has had its
 * say: its zone's write pointer moves past it (the zone closes when full),
 * and the zones are let go. */
void rb_data_zbd_wrote(rb_worker_t *w, uint64_t off, uint64_t len);

/* A trim with zonemode=zbd, in place of the engine's queue(): the zone at
 * io's offset is reset (its write pointer back to its start), as fio does
 * instead of the trim, and nothing reaches the storage. RB_ENGINE_Q_COMPLETED
 * (io->result its length), or -EALREADY with the worker failed when the
 * offset is not a zone's start (the caller releases io). */
int rb_data_zbd_trim(rb_worker_t *w, rb_engine_io_t *io);

/* Drops the worker's hold on its zones (the zones stay for the run). */
void rb_data_zbd_fini(rb_worker_t *w);

/* fsync, fdatasync or sync_file_range (kind) every file the worker wrote
 * since the last; 0, or -1 with the worker failed. */
int rb_data_sync_files(rb_worker_t *w, int kind);

/* What rb_data_sync_files calls on each file written since the last. */
enum { RB_DATA_FSYNC, RB_DATA_FDATASYNC, RB_DATA_SYNC_RANGE };

/* fsync=N, fdatasync=N and sync_file_range=FLAGS:N after the job's n-th
 * write: 1 + the kind of sync due before the next IO (fsync first, then
 * fdatasync, then sync_file_range, one of them, as fio checks them), or 0. */
static inline int rb_data_sync_due(const rb_job_spec_t *s, uint64_t n)
{
    if (s->fsync_every && n % s->fsync_every == 0)
        return 1 + RB_DATA_FSYNC;
    if (s->fdatasync_every && n % s->fdatasync_every == 0)
        return 1 + RB_DATA_FDATASYNC;
    if (s->sfr_every && n % s->sfr_every == 0)
        return 1 + RB_DATA_SYNC_RANGE;
    return 0;
}

/* sync_file_range: a write of len bytes at off completed on f; the extent
 * written since the last sync grows to hold it, as fio tracks it. */
static inline void rb_data_wrote_range(rb_worker_file_t *f, uint64_t off, uint64_t len)
{
    int none = f->wlast == f->wfirst;
    if (none || off < f->wfirst)
        f->wfirst = off;
    if (none || off + len > f->wlast)
        f->wlast = off + len;
}

/* Opens a worker's files, sets up its ring, buffers and engine. 0 or -errno. */
int rb_data_setup(rb_worker_t *w, rb_sandbox_t *sb, int rundir, const rb_job_ctx_t *ctx,
                  uint64_t seed, rb_err_t *err);

/* Fills the worker's buffers per buffer_mode (or compressible, deduped as
 * asked), in its own thread before GO: rb_data_setup readied it. */
void rb_data_warm(rb_worker_t *w);

/* unlink_each_loop: the files go and come back empty before the next loop.
 * 1 when they did, 0 when there is nothing to do, -1 with the worker failed. */
int rb_data_renew_files(rb_worker_t *w);

/* random_distribution: each direction's generator of a random job with a
 * skewed one (w->dist, freed by rb_data_fini); nothing for a uniform one.
 * 0, or -errno with err set. */
int rb_data_dist_setup(rb_worker_t *w, rb_err_t *err);

/* The unit (block * nfiles + file) of w's next random IO of direction dir,
 * drawn from its distribution (w->dist set). */
uint64_t rb_data_dist_unit(rb_worker_t *w, int dir);

/* rw=randX:N, rw_sequencer and percentage_sequential: 1 when the next IO
 * of direction dir goes on from the last one (*file, *off set, in the
 * worker's region: the next blocks, or the same with identical), 0 when it
 * is at a random offset, 2 when the pass is over (its bytes are issued). */
int rb_data_seq_turn(rb_worker_t *w, int dir, uint32_t *file, uint64_t *off);

/* rw=write:4k (holes) and rw=read:-8k (backwards): where the next IO of
 * direction dir (want bytes) in file f goes, as fio steps: the first at the
 * start, each next one the step after (before) the last one's end, around
 * the range at its ends. fio compares a step's place in the range with the
 * file's end, so with an offset the range ends before it wraps: 1 when the
 * IO would start or end past the range (fio's file is done; the pass ends),
 * else 0 with *off set (in the region, as cursor[]). */
int rb_data_seq_step(rb_worker_t *w, uint32_t f, int dir, uint64_t want, uint64_t *off);

/* blockalign: a random offset of direction dir, a multiple of its
 * alignment from the start of the range, where an IO of the smallest size
 * fits; off (of a block of bs) when the direction has none. */
uint64_t rb_data_aligned(rb_worker_t *w, int dir, uint64_t off);

/* verify_backlog: its history and buffer for w (none when the job has no
 * backlog). 0 or -ENOMEM with err set. */
int rb_data_backlog_setup(rb_worker_t *w, rb_err_t *err);

/* verify_backlog: the write of len bytes at off of file f completed; the
 * reads back that fio's backlog and batch make due now are done (one IO in
 * flight, as the rules ask). */
void rb_data_backlog_wrote(rb_worker_t *w, uint32_t f, uint64_t off, uint64_t len);

/* verify_backlog: the blocks written and not yet read back, read back and
 * checked, as fio's verify does at the end of each loop. */
void rb_data_backlog_drain(rb_worker_t *w);

/* Frees what rb_data_backlog_setup took; safe twice. */
void rb_data_backlog_fini(rb_worker_t *w);

/* rate and rate_iops (rb_data_rate.c): waits until the rate allows an IO
 * of direction *wr (in a mix the other direction may go first: *wr says
 * which); 0, or -ECANCELED when the worker's phase, deadline or stonewall
 * ends the wait. */
int rb_data_rate_pick(rb_worker_t *w, int *wr);

/* rate_min and rate_iops_min, judged after each IO (rb_data_rate.c): 1,
 * with the worker failed, when reads' or writes' rate over the last cycle
 * fell below its floor. rb_data_min_rate_failed counts from the end of the
 * ramp, as the counters do, and costs nothing without a floor. */
int rb_data_min_rate_judge(rb_worker_t *w, uint64_t now);
static inline int rb_data_min_rate_failed(rb_worker_t *w, uint64_t now)
{
    return w->minrate_on && !w->status && now >= w->count_from && rb_data_min_rate_judge(w, now);
}

/* latency_target (rb_data_lat.c): the search starts at depth 1; without a
 * target, lat_qd is the job's iodepth. */
void rb_data_lat_reset(rb_worker_t *w);

/* latency_target: a new window starts now (after the IOs in flight drained). */
void rb_data_lat_cycle(rb_worker_t *w, uint64_t now);

/* latency_target: one IO completed in lat_ns. A latency above the target
 * counts against the window, or with latency_percentile=100 lowers the
 * depth at once (lat_quiesce set) or, at depth 1, fails the worker. */
void rb_data_lat_io(rb_worker_t *w, uint64_t lat_ns);

/* max_latency (rb_data_lat.c): a counted IO of file path that took lat_ns
 * above its direction's limit fails the worker with ETIMEDOUT, unless
 * continue_on_error lets it go on, as in fio. */
void rb_data_max_latency(rb_worker_t *w, const rb_engine_io_t *io, const char *path,
                         uint64_t lat_ns);

/* What rb_data_lat_check asks of the IO loop. */
enum {
    RB_DATA_LAT_GO = 0,   /* go on */
    RB_DATA_LAT_NEW = 1,  /* drain the IOs in flight, then a new window */
    RB_DATA_LAT_LAST = 2, /* the depth is found: drain, reset the figures, a last window */
    RB_DATA_LAT_DONE = 3, /* the last window is over: the worker's IO ends */
};

/* latency_target: 1 when rb_data_lat_check has something to do (a
 * failure to act on, or the window is over). */
static inline int rb_data_lat_due(const rb_worker_t *w)
{
    return w->lat_quiesce || rb_time_mono_ns() - w->lat_ts >= w->spec->lat_window_ns;
}

/* latency_target, at each turn of the IO loop: once the window has lasted
 * latency_window, judges it and moves the depth as fio does. */
int rb_data_lat_check(rb_worker_t *w, uint64_t now);

/* After the IO: do_verify's read back, unlink's removal. */
void rb_data_finish(rb_worker_t *w);

/* fio's cmdprio: the priority an IO of direction dir (0 reads, 1 writes) and
 * len bytes carries, drawn as the job's entries say; 0: none. */
uint16_t rb_data_cmdprio(rb_worker_t *w, int dir, uint64_t len);

/* Closes the worker's files and engine and frees its ring. */
void rb_data_fini(rb_worker_t *w);

/* Fills a write's buffer (rb_data_buf.c): contents per buffer_mode,
 * compressible or deduped as asked, scrambled when used again, and a verify
 * header when asked. */
void rb_data_prepare_write(rb_worker_t *w, rb_engine_io_t *io, const rb_worker_file_t *f);

#endif
