/* Clock offsets of the agents, kept fresh: GO carries one start time in the
 * coordinator's clock, and each agent turns it into its own with the offset
 * measured here. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_clock.h"
#include "rb_log.h"
#include "rb_router.h"
#include "rb_time.h"

#define S_ROUND_INFLIGHT 64                /* clock round before GO: nodes probed at once */
#define S_ROUND_NS       (2 * RB_NS_PER_S) /* ... its time, plus 200 µs a node */
/* A clock round before a phase's GO: every ready node's offset is measured
 * afresh (RB_FLEET_PINGS probes, the one with the smallest round trip kept),
 * at most S_ROUND_INFLIGHT nodes at a time so that the probes do not queue
 * behind each other. The offsets of the HELLO time were taken while the
 * whole fleet was saying HELLO (at 16,000 agents, round trips of tens of ms)
 * and may be hours old by a later phase: clocks drift. A node that answers
 * no probe within the round keeps its offset. */
void rb_clock_round(rb_run_ctx_t *r)
{
    uint32_t nn = r->fleet.n, next = 0, ready = rb_fleet_count(&r->fleet, RB_AGENT_READY);
    if (!ready)
        return;
    int64_t *old_off = malloc(nn * sizeof *old_off);
    uint64_t *old_rtt = malloc(nn * sizeof *old_rtt);
    if (!old_off || !old_rtt) {
        free(old_off);
        free(old_rtt);
        return; /* the offsets of before */
    }
    uint64_t t0 = rb_time_mono_ns(), deadline = t0 + S_ROUND_NS + (uint64_t)ready * 200000;
    uint64_t recount = t0;
    r->probing = 0;
    while (!r->failed && !rb_run_interrupted && rb_time_mono_ns() < deadline) {
        if (rb_time_mono_ns() >= recount) { /* a node lost in the round answers no more */
            r->probing = 0;
            for (uint32_t i = 0; i < next; i++) {
                rb_fleet_node_t *n = &r->fleet.nodes[i];
                if (n->probe_left && n->state != RB_AGENT_READY)
                    n->probe_left = 0;
                r->probing += n->probe_left > 0;
            }
            recount = rb_time_mono_ns() + 100 * RB_NS_PER_MS;
        }
        while (next < nn && r->probing < S_ROUND_INFLIGHT) {
            rb_fleet_node_t *n = &r->fleet.nodes[next];
            old_off[next] = n->offset_ns;
            old_rtt[next] = n->best_rtt_ns;
            next++;
            if (n->state != RB_AGENT_READY)
                continue;
            n->best_rtt_ns = UINT64_MAX;
            n->probe_left = RB_FLEET_PINGS;
            r->probing++;
            rb_router_ping(r, n);
        }
        if (next == nn && r->probing == 0)
            break;
        rb_router_pump(r, 1);
    }
    uint32_t kept = 0;
    uint64_t max_rtt = 0;
    for (uint32_t i = 0; i < next; i++) {
        rb_fleet_node_t *n = &r->fleet.nodes[i];
        n->probe_left = 0;
        if (n->best_rtt_ns == UINT64_MAX) { /* no answer: as it was */
            n->offset_ns = old_off[i];
            n->best_rtt_ns = old_rtt[i];
            kept += n->state == RB_AGENT_READY;
        } else if (n->best_rtt_ns > max_rtt) {
            max_rtt = n->best_rtt_ns;
        }
    }
    r->probing = 0;
    free(old_off);
    free(old_rtt);
    rb_debug("clock round: %u nodes in %.1f ms, largest round trip %.3f ms%s", ready,
             (double)(rb_time_mono_ns() - t0) / 1e6, (double)max_rtt / 1e6,
             kept ? " (some nodes kept their offsets: no answer)" : "");
    if (kept)
        rb_warn("clock round: %u of %u nodes did not answer in time and keep their earlier offsets",
                kept, ready);
}

void rb_clock_pong(rb_run_ctx_t *r, rb_fleet_node_t *n, const rb_msg_pong_t *p, uint64_t now)
{
    if (p->t_coord_ns > now)
        return; /* from the future: not one of our probes */
    if (n->state == RB_AGENT_SYNCING) {
        rb_fleet_node_clock_sample(n, p->t_coord_ns, p->t_agent_ns, now);
        if (n->pings < RB_FLEET_PINGS)
            rb_router_ping(r, n);
        else
            rb_fleet_node_set_state(n, RB_AGENT_SYNCED);
    } else if (n->probe_left && n->state == RB_AGENT_READY) {
        rb_fleet_node_clock_sample(n, p->t_coord_ns, p->t_agent_ns, now);
        if (--n->probe_left)
            rb_router_ping(r, n);
        else
            r->probing--;
    }
}
