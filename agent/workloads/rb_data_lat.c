/* fio's latency_target: a worker looks for the deepest queue whose IOs
 * keep within a latency. It starts at depth 1 and judges the depth over
 * each latency_window: when enough of the window's IOs (latency_percentile)
 * kept within the target, the depth goes up (doubling while no depth has
 * failed, else halfway to the lowest that did), else it goes down halfway
 * to the last that held. With latency_percentile=100 a single IO above the
 * target lowers it at once, and one at depth 1 fails the worker. When a
 * window that held leaves the depth where it was, the search is over: the
 * figures restart for one last window at that depth, after which the
 * worker's IO ends (latency_run: the search goes on to the end instead).
 * The same steps as fio's io_u.c, written anew for the worker's loop.
 * And fio's max_latency: a counted IO slower than its direction's limit
 * fails the worker. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "rb_time.h"

#include "rb_data_int.h"

void rb_data_lat_cycle(rb_worker_t *w, uint64_t now)
{
    w->lat_ts = now;
    w->lat_ios = w->think_done;
    w->lat_failed = 0;
    w->lat_quiesce = 0;
}

void rb_data_lat_reset(rb_worker_t *w)
{
    if (!w->spec->lat_target_ns) {
        w->lat_qd = w->depth ? w->depth : 1;
        return;
    }
    if (w->lat_end_run)
        return;
    w->lat_qd = 1;
    w->lat_qd_high = w->depth ? w->depth : 1;
    w->lat_qd_low = 1;
    rb_data_lat_cycle(w, rb_time_mono_ns());
}

/* The window (or an IO, at percentile 100) missed the target at a depth
 * above 1: down halfway to the last depth that held. */
static void s_lower(rb_worker_t *w)
{
    w->lat_qd_high = w->lat_qd;
    if (w->lat_qd == w->lat_qd_low)
        w->lat_qd_low--; /* the depth is above 1 here: low stays from 1 on */
    w->lat_qd = (w->lat_qd + w->lat_qd_low) / 2;
    if (!w->lat_qd)
        w->lat_qd = 1;
}

void rb_data_lat_io(rb_worker_t *w, uint64_t lat_ns)
{
    const rb_job_spec_t *s = w->spec;
    if (lat_ns <= s->lat_target_ns)
        return;
    if (s->lat_pct < RB_LAT_PCT_MAX) {
        w->lat_failed++;
        return;
    }
    if (w->lat_qd == 1) {
        if (!w->halt)
            rb_worker_fail(w, -ETIMEDOUT, NULL, 0,
                           "latency of %" PRIu64 " nsec exceeds specified max (%" PRIu64
                           " nsec): latency_target not met at depth 1",
                           lat_ns, s->lat_target_ns);
        w->halt = 1;
        return;
    }
    s_lower(w);
    w->lat_quiesce = 1;
}

int rb_data_lat_check(rb_worker_t *w, uint64_t now)
{
    const rb_job_spec_t *s = w->spec;
    if (w->lat_quiesce)
        return RB_DATA_LAT_NEW;
    if (now - w->lat_ts < s->lat_window_ns)
        return RB_DATA_LAT_GO;
    uint64_t ios = w->think_done - w->lat_ios;
    /* fio divides by the window's IOs: none is no success (0/0 is not >= a share) */
    double ok = ios ? (double)(ios - w->lat_failed) * 100.0 / (double)ios : 0.0;
    if (!ios || ok < (double)s->lat_pct / 1e6) {
        if (w->lat_qd == 1)
            return RB_DATA_LAT_GO; /* as fio: nothing lower, the window goes on */
        s_lower(w);
        return RB_DATA_LAT_NEW;
    }
    uint32_t qd = w->lat_qd, depth = w->depth ? w->depth : 1;
    w->lat_qd_low = qd;
    if (qd + 1 == w->lat_qd_high)
        w->lat_qd_low--;
    if (w->lat_qd_high != depth)
        w->lat_qd = (qd + w->lat_qd_high) / 2;
    else
        w->lat_qd = qd * 2 > depth ? depth : qd * 2;
    if (!w->lat_qd)
        w->lat_qd = 1;
    if (!s->lat_run && w->lat_qd == qd) {
        if (w->lat_end_run)
            return RB_DATA_LAT_DONE;
        w->lat_end_run = 1;
        return RB_DATA_LAT_LAST;
    }
    rb_data_lat_cycle(w, now);
    return RB_DATA_LAT_GO;
}

/* ns as microseconds, three decimals. */
static const char *s_us(char *buf, size_t len, uint64_t ns)
{
    snprintf(buf, len, "%" PRIu64 ".%03" PRIu64 " us", ns / 1000, ns % 1000);
    return buf;
}

void rb_data_max_latency(rb_worker_t *w, const rb_engine_io_t *io, const char *path,
                         uint64_t lat_ns)
{
    const rb_job_spec_t *s = w->spec;
    int rd = io->dir == RB_ENGINE_READ, wr = io->dir == RB_ENGINE_WRITE;
    uint64_t lim = rd ? s->max_lat_read_ns : wr ? s->max_lat_write_ns : s->max_lat_trim_ns;
    if (!lim || lat_ns <= lim || w->halt)
        return;
    if (rb_worker_goes_on(w, rd ? RB_ERR_CLASS_READ : RB_ERR_CLASS_WRITE, ETIMEDOUT))
        return; /* fio: continue_on_error with ETIMEDOUT in ignore_error */
    char a[32], b[32];
    RB_WORKER_ADD(&w->errors, 1);
    rb_worker_fail(w, -ETIMEDOUT, path, io->off,
                   "max_latency=%s exceeded: a %s of %llu bytes took %s", s_us(a, sizeof a, lim),
                   rd   ? "read"
                   : wr ? "write"
                        : "trim",
                   (unsigned long long)io->len, s_us(b, sizeof b, lat_ns));
    w->halt = 1;
}
