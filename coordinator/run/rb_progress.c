/* The progress line: what a person watching the run sees while a phase
 * runs, one line per interval (or one line redrawn on a terminal). */
#include <stdio.h>

#include "rb_progress.h"
#include "rb_units.h"

/* How far the phase is, 0..1, or -1 when it cannot be told: by time for a
 * time-bound phase (runtime, stonewall_time), by bytes (or metadata
 * operations) for a size-bound one, the further of the two when both bound it. */
static double s_progress(const rb_run_ctx_t *r, const rb_phase_spec_t *ph, double elapsed_s)
{
    double limit_s = 0, total = 0, done = 0;
    int size_bound = 1;
    for (uint32_t j = 0; j < ph->njobs; j++) {
        const rb_job_spec_t *js = &ph->jobs[j];
        double t = (double)(js->startdelay_max_ns + js->ramp_ns + js->runtime_ns) / 1e9;
        if (js->stonewall_ns && (!js->runtime_ns || js->stonewall_ns < js->runtime_ns))
            t = (double)(js->startdelay_max_ns + js->ramp_ns + js->stonewall_ns) / 1e9;
        if (js->runtime_ns || js->stonewall_ns)
            limit_s = t > limit_s ? t : limit_s;
        if (js->time_based)
            size_bound = 0;
        else if (js->rw == RB_RW_META)
            total += (double)js->numjobs * (double)js->meta_files * r->phase_nodes;
        else /* io_size, when set, is what a worker moves per loop */
            total += (double)js->numjobs * (double)(js->io_size ? js->io_size : js->size) *
                     (js->loops ? js->loops : 1) * r->phase_nodes;
    }
    done = rb_phase_spec_is_meta(ph) ? (double)r->phase_ops : (double)r->phase_bytes;
    double f = -1;
    if (size_bound && total > 0)
        f = done / total;
    if (limit_s > 0 && elapsed_s / limit_s > f)
        f = elapsed_s / limit_s;
    return f > 1 ? 1 : f;
}

/* One line per interval on stderr: elapsed, phase, this interval's
 * bandwidth and IOPS, nodes reporting of those in the phase, the slowest
 * node; on a terminal, a bar with the ETA, redrawn in place. */
void rb_progress_line(rb_run_ctx_t *r, const rb_phase_spec_t *ph, uint64_t now, double span_s)
{
    char b[64], slow[RB_NAME_MAX + 48] = "";
    uint32_t seen = 0;
    const rb_fleet_node_t *slowest = NULL;
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        rb_fleet_node_t *n = &r->fleet.nodes[i];
        if (n->live_seen) {
            seen++;
            if (!slowest || n->live_bytes < slowest->live_bytes)
                slowest = n;
        }
    }
    if (slowest && seen > 1 && span_s > 0)
        snprintf(
            slow, sizeof slow, "  slowest %s %s", slowest->hello.name,
            rb_units_fmt_bw_in(b, sizeof b, (double)slowest->live_bytes / span_s, r->o->units));
    double elapsed = (double)(now - r->t_go) / 1e9, f = s_progress(r, ph, elapsed);
    char bar[64] = "";
    if (f >= 0) {
        int w = 20, k = (int)(f * w + 0.5);
        char eta[32] = "?";
        if (f > 0.01)
            snprintf(eta, sizeof eta, "%.0fs", elapsed * (1 - f) / f);
        if (r->tty)
            snprintf(bar, sizeof bar, " [%.*s%.*s] %3.0f%% ETA %s", k, "####################",
                     w - k, "....................", f * 100, eta);
        else
            snprintf(bar, sizeof bar, "  %3.0f%% ETA %s", f * 100, eta);
    }
    double rate = span_s > 0 ? (double)r->live_bytes / span_s : 0;
    int net = ph->njobs && ph->jobs[0].network;
    if (net) /* a network phase: each byte is counted sent and received; the network moved half */
        snprintf(b, sizeof b, "%.3f Gbit/s", rate / 2 * 8 / 1e9);
    else
        rb_units_fmt_bw_in(b, sizeof b, rate, r->o->units);
    fprintf(stderr, "%srackbench: %7.1fs  %-16s %s  %8.0f %s  nodes %u/%u%s%s%s",
            r->tty ? "\r\033[K" : "", elapsed, ph->name, b,
            span_s > 0 ? (double)r->live_ops / span_s / (net ? 2 : 1) : 0, net ? "msg/s" : "IOPS",
            seen, r->phase_nodes, net ? "" : slow, bar, r->tty ? "" : "\n");
    r->live_bytes = 0;
    r->live_ops = 0;
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        r->fleet.nodes[i].live_bytes = 0;
        r->fleet.nodes[i].live_seen = 0;
    }
}

void rb_progress_start(rb_run_ctx_t *r)
{
    r->live_bytes = r->live_ops = 0;
    r->phase_bytes = r->phase_ops = 0;
    r->phase_nodes = rb_fleet_count(&r->fleet, RB_AGENT_RUNNING);
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        r->fleet.nodes[i].live_bytes = 0;
        r->fleet.nodes[i].live_seen = 0;
    }
}
