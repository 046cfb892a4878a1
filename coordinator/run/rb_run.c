/* Drives one run from the coordinator's side, on one ROUTER socket and one
 * thread: gather → clock sync → PLAN → READY → (GO → SAMPLE… → DONE) per
 * phase → END, then the run folder. The state machine; the pieces it
 * drives are beside it (router, local agents, join, ingest, clock,
 * progress line, run folder). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rb_clock.h"
#include "rb_folder.h"
#include "rb_ingest.h"
#include "rb_join.h"
#include "rb_netfig.h"
#include "rb_local.h"
#include "rb_log.h"
#include "rb_metrics.h"
#include "rb_progress.h"
#include "rb_report.h"
#include "rb_router.h"
#include "rb_run.h"
#include "rb_signal.h"
#include "rb_time.h"
#include "rb_units.h"

#define S_GO_LEAD_NS    (250 * RB_NS_PER_MS) /* GO this far ahead, plus 2 RTT */
#define S_GO_NODE_NS    (40 * RB_NS_PER_US)  /* ... plus this much a node: sending them */
#define S_END_WAIT_NS   (30 * RB_NS_PER_S)   /* a clean-up that removes nothing this long */
#define S_END_NOTE_NS   (5 * RB_NS_PER_S)    /* a long clean-up is said this often */
#define S_ABORT_WAIT_NS (10 * RB_NS_PER_S)   /* for the totals of a stopped phase */

volatile sig_atomic_t rb_run_interrupted;

static void s_on_signal(int sig)
{
    (void)sig;
    rb_run_interrupted = 1;
}

void rb_run_fail(rb_run_ctx_t *r, const char *fmt, ...)
{
    if (r->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
    r->failed = 1;
    rb_error("%s", r->error);
}

#define S_RETELL_NS (5 * RB_NS_PER_S) /* a turned-away peer is told again at most this often */

/* Logs msg the first time; the index of its record (-1: none kept). */
static int s_reject(rb_run_ctx_t *r, const char *msg, int *fresh)
{
    *fresh = 0;
    for (uint32_t i = 0; i < r->nrejects; i++)
        if (strcmp(r->rejects[i], msg) == 0) {
            r->reject_repeats[i]++;
            return (int)i;
        }
    rb_warn("%s", msg);
    *fresh = 1;
    if (r->nrejects == RB_RUN_MAX_REJECTS)
        return -1;
    snprintf(r->rejects[r->nrejects], RB_REASON_MAX, "%s", msg);
    r->reject_repeats[r->nrejects] = 0;
    r->reject_told_ns[r->nrejects] = 0;
    return (int)r->nrejects++;
}

void rb_run_reject(rb_run_ctx_t *r, const char *fmt, ...)
{
    char msg[RB_REASON_MAX];
    int fresh;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    s_reject(r, msg, &fresh);
}

int rb_run_reject_tell(rb_run_ctx_t *r, uint64_t now, const char *fmt, ...)
{
    char msg[RB_REASON_MAX];
    int fresh;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int i = s_reject(r, msg, &fresh);
    if (i < 0)
        return fresh;
    if (!fresh && now - r->reject_told_ns[i] < S_RETELL_NS)
        return 0;
    r->reject_told_ns[i] = now;
    return 1;
}

void rb_run_reject_counts(rb_run_ctx_t *r)
{
    for (uint32_t i = 0; i < r->nrejects; i++)
        if (r->reject_repeats[i])
            rb_warn("%s: %u more time%s", r->rejects[i], r->reject_repeats[i],
                    r->reject_repeats[i] == 1 ? "" : "s");
}

int rb_run_node_open(const rb_fleet_node_t *n)
{
    return n->state != RB_AGENT_GONE && n->state != RB_AGENT_ENDED;
}

/* A frame that does not decode. An ERROR is never answered (two peers
 * that cannot read each other would trade them for as long as both live);
 * a peer of a version outside the window is told once, then at most every
 * few seconds, and counted; a node of the run that sent one is out. */
static void s_bad_frame(rb_run_ctx_t *r, const char *id, rb_fleet_node_t *n, const rb_msg_t *m,
                        int rc, const char *why, uint64_t now)
{
    int tell;
    if (n && n->state != RB_AGENT_GONE) {
        rb_fleet_node_out(n, RB_NODE_FAILED, "bad message from agent: %s", why);
        tell = m->type != RB_MSG_ERROR;
    } else if (rc == -EPROTO && m->version > rb_proto_speak()) {
        tell = rb_run_reject_tell(r, now,
                                  "turned away peer %s: %s; agents of protocol %d .. %" PRIu32
                                  " are taken: upgrade the coordinator first",
                                  id, why, RB_PROTO_OLDEST, rb_proto_speak()) &&
               m->type != RB_MSG_ERROR;
    } else if (rc == -EPROTO) {
        tell = rb_run_reject_tell(r, now,
                                  "turned away peer %s: %s; agents of protocol %d .. %" PRIu32
                                  " are taken: upgrade that agent",
                                  id, why, RB_PROTO_OLDEST, rb_proto_speak()) &&
               m->type != RB_MSG_ERROR;
    } else {
        tell = rb_run_reject_tell(r, now, "peer %s: %s", id, why) && m->type != RB_MSG_ERROR;
    }
    if (!tell)
        return;
    rb_msg_t e = {.type = RB_MSG_ERROR};
    e.u.error.code = rc;
    snprintf(e.u.error.reason, sizeof e.u.error.reason, "coordinator cannot read your message: %s",
             why);
    /* in the peer's version when this build speaks it, else the nearest */
    uint32_t v = m->version < RB_PROTO_OLDEST    ? RB_PROTO_OLDEST
                 : m->version > rb_proto_speak() ? rb_proto_speak()
                                                 : m->version;
    rb_router_send_to_v(r, id, strlen(id), v, &e);
}

void rb_run_dispatch(rb_run_ctx_t *r, const char *id, const void *data, size_t len, uint64_t now,
                     uint64_t heard)
{
    rb_msg_t m;
    rb_err_t err;
    rb_err_clear(&err);
    int rc = rb_msg_decode(data, len, &m, &err);
    rb_fleet_node_t *n = rb_fleet_find(&r->fleet, id);
    if (rc < 0) {
        s_bad_frame(r, id, n, &m, rc, err.msg, now);
        return;
    }
    if (m.type == RB_MSG_HELLO) {
        rb_join_hello(r, id, &m.u.hello, m.version, now);
        rb_msg_fini(&m);
        return;
    }
    if (!n && r->gathering && m.type == RB_MSG_HEARTBEAT) {
        /* An agent still attached to an earlier coordinator: ask it to introduce itself. */
        rb_msg_t e = {.type = RB_MSG_ERROR};
        e.u.error.code = -ENOTCONN;
        snprintf(e.u.error.reason, sizeof e.u.error.reason, "unknown agent %s: say HELLO", id);
        rb_router_send_to_v(r, id, strlen(id), m.version, &e);
    }
    if (!n || n->state == RB_AGENT_GONE) {
        rb_debug("ignoring %s from %s", rb_msg_type_name(m.type), id);
        rb_msg_fini(&m);
        return;
    }
    /* Alive but slow: a silence past half the limit is said, each time
     * longer than the one said before. */
    uint64_t gap = now > n->last_seen_ns ? now - n->last_seen_ns : 0;
    if (n->last_seen_ns && gap > r->o->lost_after_ns / 2 && gap > n->longest_gap_ns) {
        n->longest_gap_ns = gap;
        rb_warn("agent %s was silent for %.1f s (lost after %.1f s): alive, but slow to answer",
                n->hello.name, (double)gap / 1e9, (double)r->o->lost_after_ns / 1e9);
    }
    n->last_seen_ns = now;
    switch (m.type) {
    case RB_MSG_PONG:
        rb_clock_pong(r, n, &m.u.pong, now);
        break;
    case RB_MSG_READY:
        if (n->state == RB_AGENT_PLANNED && strcmp(m.u.ready.run_id, r->run_id) == 0) {
            rb_fleet_node_set_state(n, RB_AGENT_READY);
            if (rb_fleet_take_health(n, 0, m.u.ready.health, m.u.ready.nhealth) < 0)
                rb_run_fail(r, "out of memory keeping agent %s's drives' health", n->hello.name);
            snprintf(n->net_addr, sizeof n->net_addr, "%s", m.u.ready.net_addr);
            n->net_port = m.u.ready.net_port;
            if (m.u.ready.prefill_bytes) {
                char b[32];
                rb_info("agent %s laid out %s for read phases", n->hello.name,
                        rb_units_fmt_size(b, sizeof b, (double)m.u.ready.prefill_bytes));
            }
        }
        break;
    case RB_MSG_SPACE:
        rb_join_space(r, n, &m.u.space);
        break;
    case RB_MSG_REFUSED:
        rb_fleet_node_out(n, RB_NODE_REFUSED, "%s", m.u.refused.reason);
        rb_run_fail(r, "agent %s refused the plan: %s", n->hello.name, m.u.refused.reason);
        break;
    case RB_MSG_SAMPLE:
        rb_ingest_sample(r, n, &m.u.sample);
        break;
    case RB_MSG_DONE:
        rb_ingest_done(r, n, &m, heard);
        break;
    case RB_MSG_STONEWALL:
        rb_ingest_stonewall(r, n, &m.u.stonewall);
        break;
    case RB_MSG_HEARTBEAT:
        if (m.u.heartbeat.removed > n->removed_files) { /* its clean-up goes on */
            n->removed_files = m.u.heartbeat.removed;
            n->removed_at_ns = now;
        }
        break;
    case RB_MSG_END:
        if (rb_fleet_take_health(n, 1, m.u.end.health, m.u.end.nhealth) < 0)
            rb_run_fail(r, "out of memory keeping agent %s's drives' health", n->hello.name);
        n->removed_files = m.u.end.removed_files;
        n->cleanup = m.u.end.status < 0 ? RB_CLEANUP_UNCONFIRMED : RB_CLEANUP_CONFIRMED;
        if (m.u.end.status < 0 && n->status == RB_NODE_OK) {
            n->status = RB_NODE_FAILED;
            snprintf(n->error, sizeof n->error, "cleanup failed (%s)", strerror(-m.u.end.status));
        }
        rb_fleet_node_set_state(n, RB_AGENT_ENDED);
        break;
    case RB_MSG_ERROR:
        rb_warn("agent %s reports: %s", n->hello.name, m.u.error.reason);
        if (n->status == RB_NODE_OK) {
            n->status = RB_NODE_FAILED;
            snprintf(n->error, sizeof n->error, "%s", m.u.error.reason);
        }
        break;
    default:
        rb_warn("agent %s sent %s, which only a coordinator sends", n->hello.name,
                rb_msg_type_name(m.type));
        break;
    }
    rb_msg_fini(&m);
}

/* The default rate a node is expected to reach before the run has measured
 * one: it only sets how finely a phase is sampled, and is never reported. */
#define S_GUESS_NODE_BW  (1024.0 * 1024 * 1024)
#define S_GUESS_NODE_OPS 5000.0
#define S_AUTO_POINTS    100 /* sample_interval=auto: about this many intervals a phase */

/* The seconds phase p is expected to last: its runtime when time-based, else
 * what a node moves (or the operations it does) over the fastest rate a
 * node has shown in the phases before, capped by the runtime. */
static double s_expected_s(const rb_run_ctx_t *r, uint32_t p)
{
    double node_bw = 0, node_ops = 0;
    for (uint32_t q = 0; q < p && q < r->phases_run; q++)
        for (uint32_t i = 0; i < r->aggs[q].nnodes; i++) {
            const rb_agg_node_t *n = &r->aggs[q].nodes[i];
            if (rb_phase_spec_is_meta(&r->plan->phases[q])) {
                if (n->iops > node_ops)
                    node_ops = n->iops;
            } else if (n->bw > node_bw)
                node_bw = n->bw;
        }
    node_bw = node_bw > 0 ? node_bw : S_GUESS_NODE_BW;
    node_ops = node_ops > 0 ? node_ops : S_GUESS_NODE_OPS;
    const rb_phase_spec_t *ph = &r->plan->phases[p];
    double bytes = 0, ops = 0, longest = 0;
    for (uint32_t j = 0; j < ph->njobs; j++) {
        const rb_job_spec_t *js = &ph->jobs[j];
        double before = (double)(js->startdelay_max_ns + js->ramp_ns) / 1e9;
        double runtime = (double)js->runtime_ns / 1e9;
        double t;
        if (js->time_based && js->runtime_ns)
            t = runtime;
        else {
            double loops = js->loops ? js->loops : 1;
            if (js->rw == RB_RW_META)
                ops += (double)js->meta_files * js->numjobs;
            else
                bytes += (double)(js->io_size ? js->io_size : js->size) * loops * js->numjobs;
            continue;
        }
        if (before + t > longest)
            longest = before + t;
    }
    double t_io = bytes / node_bw + ops / node_ops;
    for (uint32_t j = 0; j < ph->njobs; j++) /* a size-bound job's runtime caps it */
        if (!ph->jobs[j].time_based && ph->jobs[j].runtime_ns &&
            t_io > (double)ph->jobs[j].runtime_ns / 1e9)
            t_io = (double)ph->jobs[j].runtime_ns / 1e9;
    return t_io > longest ? t_io : longest;
}

/* Phase p's sample interval: the plan's, or with sample_interval=auto about
 * S_AUTO_POINTS intervals over the phase's expected length, in steps of
 * 100 ms from 100 ms to 1 s. */
static uint64_t s_phase_interval(const rb_run_ctx_t *r, uint32_t p)
{
    if (!r->plan->interval_auto)
        return r->plan->interval_ns;
    const uint64_t step = RB_PLAN_AUTO_INTERVAL_MIN_NS;
    double want = s_expected_s(r, p) / S_AUTO_POINTS * 1e9;
    uint64_t iv = want >= (double)RB_PLAN_AUTO_INTERVAL_MAX_NS ? RB_PLAN_AUTO_INTERVAL_MAX_NS
                                                               : (uint64_t)want / step * step;
    return iv < RB_PLAN_AUTO_INTERVAL_MIN_NS ? RB_PLAN_AUTO_INTERVAL_MIN_NS : iv;
}

/* Sends GO for phase p to every ready node, after a clock round, far
 * enough ahead that the farthest one hears it in time. */
static void s_go(rb_run_ctx_t *r, uint32_t p)
{
    const rb_phase_spec_t *ph = &r->plan->phases[p];
    /* what the joins' HELLOs and READYs took at their most (at 16,000 agents
     * they wait in ZeroMQ's arenas together), back before the phase */
    rb_router_trim("before GO");
    rb_clock_round(r);
    uint64_t max_rtt = 0;
    for (uint32_t i = 0; i < r->fleet.n; i++)
        if (r->fleet.nodes[i].state == RB_AGENT_READY && r->fleet.nodes[i].best_rtt_ns > max_rtt)
            max_rtt = r->fleet.nodes[i].best_rtt_ns;
    r->interval_ns = s_phase_interval(r, p);
    rb_ingest_phase_start(r, p);
    /* The last GO leaves a node's share of the sending after the first:
     * 16,000 of them took 350 - 400 ms to reach their agents, and those
     * that heard theirs after the start time started up to 140 ms late. */
    uint32_t ready = rb_fleet_count(&r->fleet, RB_AGENT_READY);
    r->done_hold_ns = rb_router_done_hold(r, ready, r->interval_ns);
    uint64_t t_send = rb_time_mono_ns();
    r->t_go = t_send + S_GO_LEAD_NS + 2 * max_rtt + (uint64_t)ready * S_GO_NODE_NS;
    rb_info("phase %u/%u %s: GO for %u agents", p + 1, r->plan->nphases, ph->name, ready);
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        rb_fleet_node_t *n = &r->fleet.nodes[i];
        if (n->state != RB_AGENT_READY)
            continue;
        rb_msg_t go = {.type = RB_MSG_GO};
        snprintf(go.u.go.run_id, sizeof go.u.go.run_id, "%s", r->run_id);
        go.u.go.phase = p;
        go.u.go.t_go_ns = r->t_go;
        go.u.go.offset_ns = n->offset_ns;
        go.u.go.interval_ns = r->interval_ns;
        go.u.go.done_hold_ns = rb_router_version(n) >= RB_ROUTER_HOLD_SINCE ? r->done_hold_ns : 0;
        if (rb_net_phase_is(ph) && rb_join_net_links(r, ph, n, &go.u.go) < 0) {
            rb_fleet_node_out(n, RB_NODE_FAILED, "out of memory for its network links");
            continue;
        }
        rb_fleet_node_set_state(n, RB_AGENT_RUNNING);
        rb_router_send(r, n, &go);
        free(go.u.go.links);
    }
    uint64_t now = rb_time_mono_ns();
    rb_debug("phase %s: GO sent to %u agents in %.1f ms, %.1f ms before its start time", ph->name,
             ready, (double)(now - t_send) / 1e6,
             now < r->t_go ? (double)(r->t_go - now) / 1e6 : -(double)(now - r->t_go) / 1e6);
    r->beat_ns = rb_router_phase_beat(r);
    r->next_hb = rb_router_beat_at(r, r->next_hb);
    rb_debug("phase %s: HEARTBEATs every %.1f s to agents of protocol %u on", ph->name,
             (double)r->beat_ns / 1e9, RB_ROUTER_BEAT_SINCE);
    rb_debug("phase %s: DONEs held %.1f ms after the last samples by agents of protocol %u on",
             ph->name, (double)r->done_hold_ns / 1e6, RB_ROUTER_HOLD_SINCE);
    rb_metrics_publish(r, "running");
    rb_progress_start(r);
}

/* How long after their interval's end the phase's samples were
 * aggregated, and at p99 those of its first, steady and last intervals
 * apart (a fleet's first and last seconds cost the coordinator more). */
static void s_lag_said(const rb_run_ctx_t *r, const rb_phase_spec_t *ph)
{
    const rb_hist_t *h = r->lag;
    if (!h || !h[RB_LAG_ALL].count)
        return;
    static const char *const which[RB_LAG_N] = {
        [RB_LAG_FIRST] = "first", [RB_LAG_STEADY] = "steady", [RB_LAG_LAST] = "last"};
    char by[128] = "";
    size_t len = 0;
    for (int i = RB_LAG_FIRST; i < RB_LAG_N; i++)
        if (h[i].count && len < sizeof by)
            len += (size_t)snprintf(by + len, sizeof by - len, "%s%s %.1f", len ? ", " : "",
                                    which[i], (double)rb_hist_percentile(&h[i], 99) / 1e6);
    rb_debug("phase %s: %llu samples aggregated, %.1f ms after their interval's end (median; "
             "p99 %.1f ms, max %.1f ms); p99 by interval (ms): %s",
             ph->name, (unsigned long long)r->nsamples,
             (double)rb_hist_percentile(&h[RB_LAG_ALL], 50) / 1e6,
             (double)rb_hist_percentile(&h[RB_LAG_ALL], 99) / 1e6, (double)h[RB_LAG_ALL].max / 1e6,
             by);
    if (r->done_n)
        rb_debug("phase %s: %u DONEs taken in %.1f - %.1f ms after their nodes' last samples "
                 "(held %.1f ms)",
                 ph->name, r->done_n, (double)r->done_after_min / 1e6,
                 (double)r->done_after_max / 1e6, (double)r->done_hold_ns / 1e6);
}

/* Collects phase ph until no node runs it (or an interrupted phase's wait
 * for its totals runs out), printing the progress line. 1 when the phase was
 * stopped before its end, else 0. */
static int s_collect(rb_run_ctx_t *r, const rb_phase_spec_t *ph)
{
    /* Agents sample at GO + k intervals; print a quarter interval later so
     * that interval's samples have arrived. */
    uint64_t every = r->interval_ns;
    while (every < RB_PLAN_AUTO_INTERVAL_MAX_NS) /* a line a second at most */
        every += r->interval_ns;
    r->next_live = r->t_go + every + r->interval_ns / 4;
    uint64_t last_live = r->t_go + r->interval_ns / 4;
    uint64_t abort_deadline = 0;
    int drawn = 0;
    while (rb_fleet_count(&r->fleet, RB_AGENT_RUNNING) > 0) {
        if (rb_run_interrupted && !abort_deadline) {
            /* Stop the phase everywhere and keep what was done until now. */
            rb_run_fail(r, "interrupted during phase %s", ph->name);
            for (uint32_t i = 0; i < r->fleet.n; i++)
                if (r->fleet.nodes[i].state == RB_AGENT_RUNNING)
                    rb_router_send_reason(r, &r->fleet.nodes[i], RB_MSG_ABORT, -ECANCELED,
                                          r->error);
            abort_deadline = rb_time_mono_ns() + S_ABORT_WAIT_NS;
        }
        if (abort_deadline && rb_time_mono_ns() > abort_deadline)
            break;
        /* a phase's loop wakes for messages and timers, not every few ms
         * (a wake-up costs ZeroMQ's poll twice) */
        uint64_t due =
            abort_deadline && abort_deadline < r->next_live ? abort_deadline : r->next_live;
        rb_router_pump_gather(r, rb_router_ms_until(rb_time_mono_ns(), due, RB_RUN_PHASE_WAIT_MS));
        rb_ingest_check_wearout(r);
        uint64_t now = rb_time_mono_ns();
        rb_metrics_page(r, now, 0);
        if (now >= r->next_live) {
            rb_metrics_publish(r, "running");
            if (!r->o->quiet) {
                rb_progress_line(r, ph, now, (double)(now - last_live) / 1e9);
                drawn = 1;
            }
            last_live = now;
            while (r->next_live <= now)
                r->next_live += every;
        }
    }
    if (drawn && r->tty)
        fputc('\n', stderr); /* keep the last progress line */
    s_lag_said(r, ph);
    return abort_deadline != 0;
}

uint64_t rb_run_utc(const rb_run_ctx_t *r, uint64_t t)
{
    if (!t || !r->wall_start)
        return 0;
    return (uint64_t)((int64_t)r->wall_start + ((int64_t)t - (int64_t)r->t_start));
}

/* The phase's GO, first start and last end on the wall clock. */
static void s_wall_times(const rb_run_ctx_t *r, rb_phase_agg_t *a)
{
    a->go_utc_ns = rb_run_utc(r, r->t_go);
    a->first_start_utc_ns = rb_run_utc(r, a->t_first_start);
    a->last_end_utc_ns = rb_run_utc(r, a->t_last_end);
}

/* Storage phases against the run's network phases: phase p, a storage
 * phase, against the last network phase before it; p, a network phase,
 * against the storage phases since the network phase before it. */
static void s_net_bound(rb_run_ctx_t *r, uint32_t p)
{
    const rb_phase_agg_t *net = NULL;
    int rc = 0;
    if (r->aggs[p].net) {
        for (uint32_t q = p; q-- > 0 && !r->aggs[q].net && rc == 0;)
            rc = rb_net_bound_findings(&r->aggs[q], &r->aggs[p]);
    } else {
        for (uint32_t q = p; q-- > 0 && !net;)
            net = r->aggs[q].net ? &r->aggs[q] : NULL;
        if (net)
            rc = rb_net_bound_findings(&r->aggs[p], net);
    }
    if (rc < 0)
        rb_run_fail(r, "out of memory");
    /* a link that failed fails the run, as an IO error does (its figures are kept) */
    const rb_net_fig_t *f = r->aggs[p].net;
    for (uint32_t i = 0; f && i < f->nlinks && !r->failed; i++) {
        const rb_net_link_fig_t *l = &f->links[i];
        if (l->status && l->from < r->aggs[p].nnodes && l->to < r->aggs[p].nnodes)
            rb_run_fail(r, "phase %s: the link %s to %s failed: %s", r->aggs[p].name,
                        r->aggs[p].nodes[l->from].name, r->aggs[p].nodes[l->to].name, l->error);
    }
}

/* Phase p's figures from the nodes' DONEs and the phase's series, then its
 * findings; the nodes that finished it are ready for the next. */
static void s_figures(rb_run_ctx_t *r, uint32_t p, int stopped)
{
    const rb_phase_spec_t *ph = &r->plan->phases[p];
    rb_agg_input_t *in = calloc(r->fleet.n ? r->fleet.n : 1, sizeof *in);
    if (!in) {
        rb_run_fail(r, "out of memory");
        return;
    }
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        rb_fleet_node_t *n = &r->fleet.nodes[i];
        in[i] = (rb_agg_input_t){.name = n->hello.name,
                                 .rack = n->hello.rack,
                                 .offset_ns = n->offset_ns,
                                 .status = n->state == RB_AGENT_GONE ? n->status : RB_NODE_OK,
                                 .done = n->done[p],
                                 .ram_bytes = n->hello.ram_bytes,
                                 .rtt_ns = n->best_rtt_ns == UINT64_MAX ? 0 : n->best_rtt_ns,
                                 .sampled_bytes = n->phase_bytes,
                                 .sampled_ops = n->phase_ops,
                                 .sampled_first_ns = n->phase_first_ns,
                                 .sampled_last_ns = n->phase_last_ns,
                                 .lat = n->phase_lat_set ? &n->phase_lat : NULL};
        if (n->state == RB_AGENT_PHASE_DONE)
            rb_fleet_node_set_state(n, RB_AGENT_READY);
    }
    if (rb_aggregate_phase(ph, in, r->fleet.n, &r->aggs[p]) < 0)
        rb_run_fail(r, "out of memory");
    else {
        if (r->job_hists)
            rb_aggregate_add_hists(&r->aggs[p], r->job_hists, ph->njobs);
        for (uint32_t k = 0; k < r->nrack_lats; k++)
            rb_aggregate_add_rack_hists(&r->aggs[p], r->rack_lats[k].name, &r->rack_lats[k].h[0],
                                        &r->rack_lats[k].h[1]);
        s_wall_times(r, &r->aggs[p]);
        r->aggs[p].sample_interval_s = (double)r->interval_ns / 1e9;
    }
    free(r->job_hists);
    r->job_hists = NULL;
    for (uint32_t i = 0; i < r->fleet.n; i++) /* figures made: the DONEs have served */
        rb_fleet_drop_done(&r->fleet.nodes[i], p);
    if (stopped)
        r->aggs[p].partial = 1; /* stopped before its end */
    uint64_t ramp = 0;
    for (uint32_t j = 0; j < ph->njobs; j++)
        if (ph->jobs[j].startdelay_max_ns + ph->jobs[j].ramp_ns > ramp)
            ramp = ph->jobs[j].startdelay_max_ns + ph->jobs[j].ramp_ns; /* before it: idle */
    rb_aggregate_steady(&r->aggs[p], r->ser_bytes, r->ser_secs, r->nser,
                        (double)r->interval_ns / 1e9, (double)ramp / 1e9);
    rb_ingest_findings(r, p);
    s_net_bound(r, p);
    r->phases_run = p + 1;
    free(in);
    if (p + 1 < r->plan->nphases)
        rb_folder_write_progress(r);
    rb_metrics_publish(r, "running");
    rb_metrics_page(r, rb_time_mono_ns(), 1);
    char b[64];
    if (rb_phase_spec_is_meta(ph))
        rb_info("phase %s: %.0f operations/s aggregate", ph->name, r->aggs[p].iops);
    else if (r->aggs[p].net)
        rb_info("phase %s: %u links, median %.3f Gbit/s (min %.3f, max %.3f), %u slow", ph->name,
                r->aggs[p].net->nlinks, r->aggs[p].net->median_gbps, r->aggs[p].net->min_gbps,
                r->aggs[p].net->max_gbps, r->aggs[p].net->nslow);
    else
        rb_info("phase %s: %s aggregate", ph->name,
                rb_units_fmt_bw_in(b, sizeof b, r->aggs[p].aggregate_bw, r->o->units));
}

static void s_run_phase(rb_run_ctx_t *r, uint32_t p)
{
    s_go(r, p);
    int stopped = s_collect(r, &r->plan->phases[p]);
    rb_router_later_end(r, 1); /* a phase stopped short: the DONEs taken in */
    r->beat_ns = 0;            /* --heartbeat's again */
    /* At 16,000 agents the DONEs wait in ZeroMQ's arenas together (150 MiB),
     * freed but kept there under the figures' memory. */
    rb_router_trim("the phase's DONEs read");
    s_figures(r, p, stopped);
}

/* Tells every agent still with us to end (or abort) and waits for them to
 * clean up. An agent that never got a PLAN (the run failed while it
 * gathered its nodes) has nothing to clean up and knows no run to confirm:
 * it is told the run did not start, with why, and not waited for. */
static void s_finish_agents(rb_run_ctx_t *r)
{
    rb_msg_t m = {.type = RB_MSG_END};
    snprintf(m.u.end.run_id, sizeof m.u.end.run_id, "%s", r->run_id);
    if (r->failed)
        m = rb_router_reason_msg(r, RB_MSG_ABORT, -ECANCELED, r->error);
    rb_msg_t unplanned = rb_router_reason_msg(r, RB_MSG_ERROR, -ECANCELED, "");
    snprintf(unplanned.u.error.reason, sizeof unplanned.u.error.reason, "run %s did not start: %s",
             r->run_id, r->failed ? r->error : "it ended");
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        rb_fleet_node_t *n = &r->fleet.nodes[i];
        if (!rb_run_node_open(n))
            continue;
        /* No verdict on a failed send: an agent may have ended and gone
         * already; one that never confirms is marked lost below. */
        if (n->state == RB_AGENT_SYNCING || n->state == RB_AGENT_SYNCED) {
            rb_router_send_to_v(r, n->hello.name, strlen(n->hello.name), rb_router_version(n),
                                &unplanned);
            rb_fleet_node_set_state(n, RB_AGENT_ENDED);
            continue;
        }
        rb_router_send_to_v(r, n->hello.name, strlen(n->hello.name), rb_router_version(n), &m);
    }
    /* Each node has S_END_WAIT_NS, and as long again from each time its
     * clean-up's count grows (an agent of 25 on says it in its heartbeats);
     * one silent for --lost-after is lost on the way. */
    uint64_t t0 = rb_time_mono_ns(), next_note = t0 + S_END_NOTE_NS;
    for (uint32_t i = 0; i < r->fleet.n; i++)
        r->fleet.nodes[i].removed_at_ns = t0;
    for (;;) {
        uint32_t waiting = 0;
        uint64_t now = rb_time_mono_ns(), most = 0;
        const rb_fleet_node_t *slow = NULL;
        for (uint32_t i = 0; i < r->fleet.n; i++) {
            rb_fleet_node_t *n = &r->fleet.nodes[i];
            if (!rb_run_node_open(n))
                continue;
            if (now - n->removed_at_ns > S_END_WAIT_NS) {
                rb_fleet_node_out(n, RB_NODE_LOST,
                                  "did not confirm the end of the run: no sign of its clean-up "
                                  "for %.0f s (%llu files removed so far)",
                                  (double)S_END_WAIT_NS / 1e9,
                                  (unsigned long long)n->removed_files);
                continue;
            }
            waiting++;
            if (!slow || n->removed_files > most)
                slow = n, most = n->removed_files;
        }
        if (!waiting)
            break;
        if (now >= next_note && slow) {
            rb_info("waiting for %u node%s to clean up (%s: %llu files removed so far)", waiting,
                    waiting == 1 ? "" : "s", slow->hello.name, (unsigned long long)most);
            next_note = now + S_END_NOTE_NS;
        }
        rb_router_pump(r, RB_RUN_POLL_MS);
    }
}

/* The options, before anything is made: --nodes, the security options,
 * which agents take part, --local's directory. 0, or 2 (the exit code of
 * bad usage) with the reason printed. */
static int s_check_opts(rb_run_ctx_t *r)
{
    const rb_run_opts_t *o = r->o;
    if (o->nodes && rb_join_parse_nodes(r, o->nodes) < 0) {
        fprintf(stderr,
                "rackbench: --nodes %s: expected names of [A-Za-z0-9._-] separated by ','\n",
                o->nodes);
        return 2;
    }
    if (rb_metrics_check(o) || rb_router_check_security(r))
        return 2;
    r->expect = o->local ? o->local : r->want ? r->nwant : o->expect;
    if (r->expect == 0) {
        fprintf(stderr, "rackbench run: say which agents take part: --local N, --expect N or "
                        "--nodes a,b,c\n");
        return 2;
    }
    rb_err_t err;
    rb_err_clear(&err);
    if (o->local && rb_local_roots(r, &err) < 0) {
        fprintf(stderr, "rackbench run: --local: %s (%s)\n", err.msg, r->plan->source);
        return 2;
    }
    if (o->local && !r->nroots) {
        fprintf(stderr,
                "rackbench run: --local needs a folder for the local agents' files: set "
                "directory= in [global] of %s or in its jobs, or give the jobs absolute "
                "filenames (a plan only on raw devices or networks needs none)\n",
                r->plan->source);
        return 2;
    }
    return 0;
}

int rb_run(const rb_run_opts_t *o)
{
    rb_run_ctx_t run = {.o = o,
                        .plan = o->plan,
                        .gathering = 1,
                        .tty = isatty(STDERR_FILENO),
                        .keylock = -1,
                        .dirlock = -1};
    rb_run_ctx_t *r = &run;
    int code = 3;

    if (s_check_opts(r)) {
        free(r->want);
        return 2;
    }
    rb_signals_catch(s_on_signal);

    r->t_start = rb_time_mono_ns();
    r->wall_start = rb_time_wall_ns();
    r->next_hb = r->t_start;
    rb_fleet_init(&r->fleet, r->plan->nphases);
    r->aggs = calloc(r->plan->nphases, sizeof *r->aggs);
    rb_folder_name(r);
    /* The socket before the run folder: an endpoint that cannot be bound
     * is an error of the call (exit 2), and leaves no folder behind. */
    if (!r->aggs || rb_router_bind(r) < 0 || rb_metrics_start(r) < 0 || rb_folder_make(r) < 0) {
        if (!r->failed)
            rb_run_fail(r, "out of memory");
        code = r->dir[0] || !r->aggs || rb_run_interrupted ? 3 : 2;
        goto out;
    }
    if (o->local && rb_local_start(r) < 0)
        goto report;
    if (rb_join_gather(r) < 0 || rb_join_send_plan(r) < 0)
        goto finish;
    rb_folder_write_progress(r); /* the nodes, for a run killed in its first phase */
    rb_metrics_publish(r, "gathering");
    rb_metrics_page(r, rb_time_mono_ns(), 1); /* the nodes, before the first GO */
    for (uint32_t p = 0; p < r->plan->nphases && !r->failed; p++) {
        if (rb_fleet_active(&r->fleet) == 0) {
            rb_run_fail(r, "no agent left to run phase %s", r->plan->phases[p].name);
            break;
        }
        s_run_phase(r, p);
    }
finish:
    rb_metrics_publish(r, "ended");
    s_finish_agents(r);
report:
    rb_router_close(r); /* the agents have ended: the reports need the memory */
    rb_run_reject_counts(r);
    rb_folder_close_csvs(r);
    rb_local_stop(r);
    if (rb_folder_write_reports(r) < 0 && !r->failed)
        r->failed = 1;
    code = r->failed ? 3 : r->accept_failed ? 1 : 0;
    rb_metrics_linger(r, code);
out:
    rb_folder_close_csvs(r);
    rb_local_stop(r);
    rb_metrics_stop(r);
    if (r->dirlock >= 0)
        close(r->dirlock);
    for (uint32_t p = 0; r->aggs && p < r->plan->nphases; p++)
        rb_aggregate_phase_fini(&r->aggs[p]);
    free(r->aggs);
    free(r->children);
    free(r->roots);
    free(r->want);
    free(r->space);
    rb_ingest_wearout_reset(r, NULL);
    free(r->ser_bytes);
    free(r->ser_secs);
    free(r->lag);
    free(r->job_hists);
    free(r->node_lat);
    free(r->rack_lats);
    rb_series_destroy(&r->node_series);
    rb_findings_tel_series_destroy(&r->tel);
    rb_router_later_end(r, 0);
    rb_fleet_fini(&r->fleet);
    zpoller_destroy(&r->poller);
    rb_auth_monitor_stop(r->router, &r->monitor);
    zsock_destroy(&r->router);
    rb_auth_server_destroy(&r->auth);
    zcert_destroy(&r->cert);
    zcertstore_destroy(&r->allowed);
    rb_local_drop_keys(r);
    return code;
}
