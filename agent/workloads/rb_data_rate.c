/* rate, rate_iops, rate_min and rate_iops_min of the data workload, as fio
 * reckons them: when a direction's next IO is due, and whether the rate
 * over the last cycle fell below its floor. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>

#include "rb_data_int.h"
#include "rb_time.h"

/* When a direction's next IO is due under rate and rate_iops, as fio
 * reckons it: once the bytes and IOs it issued so far fit the caps. */
static uint64_t s_due(const rb_worker_t *w, int wr)
{
    const rb_job_spec_t *s = w->spec;
    uint64_t bps = wr ? s->rate_write : s->rate, iops = wr ? s->rate_iops_write : s->rate_iops;
    uint64_t due = w->rate_start;
    if (bps) {
        uint64_t t = w->rate_start + (uint64_t)((double)w->rate_bytes[wr] * 1e9 / (double)bps);
        due = t > due ? t : due;
    }
    if (iops) {
        uint64_t t = w->rate_start + (uint64_t)((double)w->rate_ios[wr] * 1e9 / (double)iops);
        due = t > due ? t : due;
    }
    return due;
}

/* Waits until the rate allows an IO of direction *wr: 0, then issue it.
 * In a mix, as fio does, a direction that must wait gives way to the other
 * when that one is due, so that each keeps its own cap. -ECANCELED when the
 * phase stops the worker meanwhile, or its deadline or stonewall comes
 * first (the wait ends there; a stop ends it within one RB_WORKER_SLICE_NS,
 * however far the IO was due). */
int rb_data_rate_pick(rb_worker_t *w, int *wr)
{
    const rb_job_spec_t *s = w->spec;
    if (!s->rate && !s->rate_write && !s->rate_iops && !s->rate_iops_write)
        return 0;
    bool mixed =
        (s->rw == RB_RW_RW || s->rw == RB_RW_RANDRW) && s->rwmixread > 0 && s->rwmixread < 100;
    uint64_t due = s_due(w, *wr), other = mixed ? s_due(w, !*wr) : UINT64_MAX;
    uint64_t now = rb_time_mono_ns();
    if (due > now && other < due) {
        *wr = !*wr; /* the other direction is due first */
        due = other;
    }
    uint64_t end = w->deadline < w->sw_at ? w->deadline : w->sw_at;
    if (due > end) {
        rb_worker_sleep_until(w, end);
        return -ECANCELED;
    }
    return due > now && rb_worker_sleep_until(w, due) < 0 ? -ECANCELED : 0;
}

int rb_data_min_rate_judge(rb_worker_t *w, uint64_t now)
{
    const uint64_t bytes[2] = {w->rbytes, w->wbytes}, ios[2] = {w->rops, w->wops};
    for (int d = 0; d < 2; d++) {
        uint64_t got = 0;
        rb_minrate_t *m = &w->minrate[d];
        if (!bytes[d] || !rb_minrate_check(m, w->count_from, now, bytes[d], ios[d], &got))
            continue;
        const char *dir = d ? "writes" : "reads";
        uint64_t ms = (now - m->t_mark) / RB_NS_PER_MS;
        w->halt = 1;
        if (m->min_bps)
            rb_worker_fail(w, -EIO, NULL, 0,
                           "job %s, worker %u: rate_min=%" PRIu64 "B/s of %s not met, got %" PRIu64
                           "B/s over %" PRIu64 " ms",
                           w->spec->name, w->index, m->min_bps, dir, got, ms);
        else
            rb_worker_fail(w, -EIO, NULL, 0,
                           "job %s, worker %u: rate_iops_min=%" PRIu64
                           " of %s not met, got %" PRIu64 " IOPS over %" PRIu64 " ms",
                           w->spec->name, w->index, m->min_iops, dir, got, ms);
        return 1;
    }
    return 0;
}
