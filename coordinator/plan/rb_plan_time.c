/* How long a plan would run where its options say so without a runtime: a
 * job bound by its bytes (size or io_size, times loops) runs at least as
 * long as its rate caps allow, and at least as long as a very fast worker
 * would take. A plan that would run longer than a day that way gets a note
 * (rackbench check and run print the plan's notes), so that `rate=1` or
 * `loops=4294967295` is not found out after days. A runtime, time_based or
 * not, says how long a job runs: such a job is not counted. A plan with a
 * sweep, whose jobs are all time-based, is told the time it takes. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rb_engine_info.h"
#include "rb_plan_int.h"
#include "rb_units.h"

#define S_DAY_S   86400.0
#define S_FAST_BW (16.0 * 1024 * 1024 * 1024) /* bytes/s: no worker moves data faster */

/* The seconds a job's worker takes at least, by its bytes, its rate caps and
 * S_FAST_BW; 0 when its runtime bounds it or its bytes are not known before
 * it runs. *why says what sets it (at least why_len bytes). */
static double s_job_s(const rb_job_spec_t *js, char *why, size_t why_len)
{
    if (js->time_based || js->runtime_ns || js->rw == RB_RW_META || !js->size || js->fill_device ||
        !rb_engine_info_moves_data(js->ioengine))
        return 0;
    double loops = js->loops ? js->loops : 1;
    double bytes = (double)(js->io_size ? js->io_size : js->size) * loops;
    if (js->number_ios && (double)js->number_ios * loops * (double)js->bs < bytes)
        bytes = (double)js->number_ios * loops * (double)js->bs;
    char a[32], b[32];
    rb_units_fmt_size(a, sizeof a, bytes);
    double t = bytes / S_FAST_BW;
    snprintf(why, why_len, "%s per worker, even at %s", a,
             rb_units_fmt_bw_in(b, sizeof b, S_FAST_BW, RB_UNITS_IEC));
    if (rb_rw_trims(js->rw))
        return t; /* trims have no rate cap of their own */
    /* the share of each direction, and its caps in bytes/s and IOs/s */
    bool r = rb_rw_reads(js->rw), w = rb_rw_writes(js->rw);
    double share[2] = {r ? (w ? js->rwmixread / 100.0 : 1) : 0,
                       w ? (r ? 1 - js->rwmixread / 100.0 : 1) : 0};
    uint64_t bw[2] = {js->rate, js->rate_write}, iops[2] = {js->rate_iops, js->rate_iops_write};
    for (int d = 0; d < 2; d++) {
        if (!share[d])
            continue;
        double by_bw = bw[d] ? bytes * share[d] / (double)bw[d] : 0;
        double by_iops = iops[d] ? bytes * share[d] / (double)js->bs_max / (double)iops[d] : 0;
        if (by_bw > t || by_iops > t) {
            t = by_bw > by_iops ? by_bw : by_iops;
            if (by_bw >= by_iops)
                snprintf(why, why_len, "%s per worker, its %s at rate=%s (bytes/s)", a,
                         d ? "writes" : "reads", rb_units_fmt_size_exact(b, sizeof b, bw[d]));
            else
                snprintf(why, why_len, "%s per worker, its %s at rate_iops=%llu", a,
                         d ? "writes" : "reads", (unsigned long long)iops[d]);
        }
    }
    return t;
}

/* "3.5 days", "12 years": a long duration as one rounded figure. */
static char *s_fmt_long(char *buf, size_t len, double s)
{
    if (s >= 365.25 * S_DAY_S)
        snprintf(buf, len, "%.3g years", s / (365.25 * S_DAY_S));
    else
        snprintf(buf, len, "%.3g days", s / S_DAY_S);
    return buf;
}

/* The note of a plan with a sweep whose every job is time-based: how long
 * its phases take, each as long as its longest job's startdelay, ramp_time
 * and runtime. 0 or -ENOMEM. */
static int s_sweep_total(rb_plan_parser_t *ps)
{
    bool swept = false;
    uint64_t total = 0;
    for (uint32_t p = 0; p < ps->nphases; p++) {
        swept |= ps->iters && ps->iters[p].sweep[0];
        uint64_t longest = 0;
        for (uint32_t j = 0; j < ps->phases[p].njobs; j++) {
            const rb_job_spec_t *js = &ps->phases[p].jobs[j];
            if (!js->time_based || !js->runtime_ns)
                return 0; /* its storage says how long */
            uint64_t t = js->startdelay_max_ns > js->startdelay_ns ? js->startdelay_max_ns
                                                                   : js->startdelay_ns;
            t += js->ramp_ns + js->runtime_ns;
            longest = t > longest ? t : longest;
        }
        total += longest;
    }
    if (!swept)
        return 0;
    uint64_t s = (total + 500000000u) / 1000000000u;
    return rb_plan_note(ps, 0,
                        "the plan's %u phases take %llu h %02llu min %02llu s (each phase its "
                        "longest job's startdelay, ramp_time and runtime; setting up files aside)",
                        ps->nphases, (unsigned long long)(s / 3600),
                        (unsigned long long)(s / 60 % 60), (unsigned long long)(s % 60));
}

int rb_plan_time_note(rb_plan_parser_t *ps)
{
    if (s_sweep_total(ps) < 0)
        return -ENOMEM;
    double total = 0, worst = 0;
    char why[160] = "", job[RB_NAME_MAX] = "";
    for (uint32_t p = 0; p < ps->nphases; p++) {
        double longest = 0; /* a phase lasts as long as its longest job */
        for (uint32_t j = 0; j < ps->phases[p].njobs; j++) {
            const rb_job_spec_t *js = &ps->phases[p].jobs[j];
            char w[sizeof why];
            double t = s_job_s(js, w, sizeof w);
            if (t > longest)
                longest = t;
            if (t > worst) {
                worst = t;
                snprintf(why, sizeof why, "%s", w);
                snprintf(job, sizeof job, "%s", js->name);
            }
        }
        total += longest;
    }
    if (total <= S_DAY_S)
        return 0;
    char d[32], dj[32];
    return rb_plan_note(ps, 0,
                        "the plan would run for %s at least, without a runtime that says so "
                        "(job '%s': %s for %s); give runtime= to bound a job, or runtime= with "
                        "time_based if that long is meant",
                        s_fmt_long(d, sizeof d, total), job, s_fmt_long(dj, sizeof dj, worst), why);
}
