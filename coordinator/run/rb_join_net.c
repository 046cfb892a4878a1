/* Network phases at PLAN and GO (rb_join.h): the run's secret, the checks
 * of each network job against the nodes, and each node's links. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "rb_join.h"
#include "rb_log.h"
#include "rb_netfig.h"

/* The rank of job js's incast target, or UINT32_MAX when it is not a
 * ranked node of the run (0 for the other patterns). */
static uint32_t s_target(const rb_run_ctx_t *r, const rb_job_spec_t *js)
{
    if (js->network != RB_NET_INCAST)
        return 0;
    const rb_fleet_node_t *t = rb_fleet_find((rb_fleet_t *)&r->fleet, js->net_target);
    return t && t->rank < r->nranked ? t->rank : UINT32_MAX;
}

int rb_join_net_plan(rb_run_ctx_t *r, rb_msg_plan_t *pl)
{
    uint32_t bad = 0, any = 0;
    for (uint32_t p = 0; p < r->plan->nphases; p++) {
        const rb_phase_spec_t *ph = &r->plan->phases[p];
        uint64_t streams = 0;
        for (uint32_t j = 0; j < ph->njobs; j++) {
            const rb_job_spec_t *js = &ph->jobs[j];
            if (!js->network)
                continue;
            any = 1;
            uint32_t t = s_target(r, js);
            uint32_t most = rb_net_links_most(js, r->nranked, t);
            if (r->nranked < 2) {
                rb_error("phase %s, job %s: network=%s needs two nodes at least; the run has %u",
                         ph->name, js->name, rb_net_pattern_name(js->network), r->nranked);
                bad++;
            } else if (t == UINT32_MAX) {
                rb_error("phase %s, job %s: net_target=%s is not a node of this run", ph->name,
                         js->name, js->net_target);
                bad++;
            } else if (most > RB_NET_LINKS_MAX) {
                rb_error("phase %s, job %s: network=%s over %u nodes gives a node %u links, at "
                         "most %u",
                         ph->name, js->name, rb_net_pattern_name(js->network), r->nranked, most,
                         RB_NET_LINKS_MAX);
                bad++;
            }
            streams += (uint64_t)most * js->numjobs;
        }
        if (streams > RB_MAX_WORKERS) {
            rb_error("phase %s: %" PRIu64 " streams at one node (links × numjobs), at most %d",
                     ph->name, streams, RB_MAX_WORKERS);
            bad++;
        }
    }
    if (bad) {
        rb_run_fail(r, "%u network job%s cannot run on these %u nodes (above)", bad,
                    bad == 1 ? "" : "s", r->nranked);
        return -EINVAL;
    }
    pl->net_secret_len = 0;
    if (!any)
        return 0;
    if (getrandom(r->net_secret, sizeof r->net_secret, 0) != (ssize_t)sizeof r->net_secret) {
        rb_run_fail(r, "no random bytes for the network phases' secret");
        return -EIO;
    }
    memcpy(pl->net_secret, r->net_secret, sizeof r->net_secret);
    pl->net_secret_len = sizeof r->net_secret;
    return 0;
}

int rb_join_net_links(rb_run_ctx_t *r, const rb_phase_spec_t *ph, const rb_fleet_node_t *n,
                      rb_msg_go_t *go)
{
    uint32_t total = 0;
    go->links = NULL;
    go->nlinks = 0;
    for (uint32_t j = 0; j < ph->njobs; j++)
        if (ph->jobs[j].network)
            total += rb_net_links_most(&ph->jobs[j], r->nranked, s_target(r, &ph->jobs[j]));
    if (!total)
        return 0;
    uint32_t *peers = calloc(total, sizeof *peers);
    uint8_t *out = calloc(total, sizeof *out);
    go->links = calloc(total, sizeof *go->links);
    if (!peers || !out || !go->links) {
        free(peers);
        free(out);
        free(go->links);
        go->links = NULL;
        return -ENOMEM;
    }
    for (uint32_t j = 0; j < ph->njobs; j++) {
        const rb_job_spec_t *js = &ph->jobs[j];
        if (!js->network)
            continue;
        uint32_t k = rb_net_node_links(js, r->nranked, s_target(r, js), n->rank, peers, out,
                                       total - go->nlinks);
        for (uint32_t i = 0; i < k && go->nlinks < total; i++) {
            const rb_fleet_node_t *peer = &r->fleet.nodes[peers[i]];
            if (peer->state != RB_AGENT_READY && peer->state != RB_AGENT_RUNNING)
                continue; /* gone before the phase: no stream to wait for */
            rb_net_link_t *l = &go->links[go->nlinks++];
            l->job = j;
            l->peer = peers[i];
            l->out = out[i];
            if (out[i]) {
                snprintf(l->addr, sizeof l->addr, "%s", peer->net_addr);
                l->port = peer->net_port;
            }
        }
    }
    free(peers);
    free(out);
    return 0;
}
