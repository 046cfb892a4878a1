/* Network phases on the coordinator (rb_netfig.h): the patterns, and the
 * link matrix from both ends' counts. */
#include "rb_netfig.h"

#include "rb_aggregate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_disks.h"
#include "rb_findings.h"
#include "rb_stats.h"

/* A link of a pattern, one way: does node a send to node b? */
static int s_sends(uint32_t p, uint32_t n, uint32_t t, uint32_t a, uint32_t b)
{
    if (a == b || a >= n || b >= n)
        return 0;
    switch (p) {
    case RB_NET_PAIRS:
        return (a % 2 == 0 && b == a + 1) || (n % 2 && a == n - 1 && b == 0 && n > 1);
    case RB_NET_RING:
        return b == (a + 1) % n;
    case RB_NET_ALL2ALL:
        return 1;
    case RB_NET_INCAST:
        return b == t;
    case RB_NET_BISECTION:
        return a < n / 2 && b == a + n / 2;
    }
    return 0;
}

/* The candidates b of a's links one way (sending when out, else taking),
 * without walking every node but for all-to-all. */
static uint32_t s_cands(uint32_t p, uint32_t n, uint32_t t, uint32_t a, int out, uint32_t *c)
{
    uint32_t k = 0;
    switch (p) {
    case RB_NET_PAIRS:
        c[k++] = a % 2 ? a - 1 : a + 1;
        c[k++] = out ? 0 : n - 1;
        break;
    case RB_NET_RING:
        c[k++] = out ? (a + 1) % n : (a + n - 1) % n;
        break;
    case RB_NET_INCAST:
        c[k++] = t;
        break;
    case RB_NET_BISECTION:
        c[k++] = out ? a + n / 2 : a - n / 2;
        break;
    }
    return k;
}

/* Does node r have a link with b, sending (dir 1) or taking (dir 0)? */
static int s_has(uint32_t p, int both, uint32_t n, uint32_t t, uint32_t r, uint32_t b, int dir)
{
    uint32_t from = dir ? r : b, to = dir ? b : r;
    return s_sends(p, n, t, from, to) || (both && s_sends(p, n, t, to, from));
}

uint32_t rb_net_node_links(const rb_job_spec_t *js, uint32_t n, uint32_t target, uint32_t r,
                           uint32_t *peers, uint8_t *out, uint32_t cap)
{
    uint32_t p = js->network, k = 0;
    int both = js->rw == RB_RW_RW;
    /* every other node is a candidate for all-to-all and incast's target,
     * else the pattern's few */
    int every = p == RB_NET_ALL2ALL || (p == RB_NET_INCAST && r == target);
    for (int dir = 1; dir >= 0; dir--) {
        uint32_t c[8], nc = every ? n : s_cands(p, n, target, r, dir, c);
        if (both && !every)
            nc += s_cands(p, n, target, r, !dir, c + nc);
        for (uint32_t i = 0; i < nc; i++) {
            uint32_t b = every ? i : c[i];
            int dup = 0;
            for (uint32_t j = 0; !every && j < i; j++)
                dup |= c[j] == b;
            if (dup || !s_has(p, both, n, target, r, b, dir))
                continue;
            if (k < cap) {
                peers[k] = b;
                out[k] = (uint8_t)dir;
            }
            k++;
        }
    }
    return k;
}

uint32_t rb_net_links_most(const rb_job_spec_t *js, uint32_t n, uint32_t target)
{
    int both = js->rw == RB_RW_RW;
    switch (js->network) {
    case RB_NET_ALL2ALL:
        return n > 1 ? 2 * (n - 1) : 0;
    case RB_NET_INCAST:
        return n > 1 ? (both ? 2 : 1) * (n - 1) : 0;
    case RB_NET_NONE:
        return 0;
    default: {
        uint32_t peers[8], most = 0;
        uint8_t out[8];
        for (uint32_t r = 0; r < n && r < 3; r++) { /* nodes 0, 1, 2 have the most */
            uint32_t k = rb_net_node_links(js, n, target, r, peers, out, 8);
            most = k > most ? k : most;
        }
        (void)target;
        return most;
    }
    }
}

int rb_net_phase_is(const rb_phase_spec_t *ph)
{
    for (uint32_t j = 0; j < ph->njobs; j++)
        if (ph->jobs[j].network)
            return 1;
    return 0;
}

static int s_link_cmp(const void *x, const void *y)
{
    const rb_net_link_fig_t *a = x, *b = y;
    if (a->job != b->job)
        return a->job < b->job ? -1 : 1;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    return a->to < b->to ? -1 : a->to > b->to;
}

static rb_net_link_fig_t *s_find(const rb_net_fig_t *f, uint32_t job, uint32_t from, uint32_t to)
{
    rb_net_link_fig_t key = {.job = job, .from = from, .to = to};
    return bsearch(&key, f->links, f->nlinks, sizeof key, s_link_cmp);
}

/* Per job: the links' rates, their median and spread, and the slow ones. */
static void s_family(const rb_phase_spec_t *ph, rb_net_fig_t *f)
{
    double *v = calloc(f->nlinks ? f->nlinks : 1, sizeof *v);
    if (!v)
        return;
    for (uint32_t j = 0; j < ph->njobs; j++) {
        uint32_t k = 0;
        double window = 0;
        for (uint32_t i = 0; i < f->nlinks; i++)
            if (f->links[i].job == j && f->links[i].bytes && !f->links[i].status) {
                v[k++] = f->links[i].gbps;
                window = f->links[i].seconds > window ? f->links[i].seconds : window;
            }
        if (k < RB_DISK_FAMILY_MIN)
            continue;
        double med = rb_stats_median(v, k), mad = rb_stats_mad(v, k, med);
        for (uint32_t i = 0; i < f->nlinks; i++) {
            rb_net_link_fig_t *l = &f->links[i];
            if (l->job != j || !l->bytes || l->status)
                continue;
            l->slow = (uint8_t)rb_disks_below_family(l->gbps, med, mad, window);
            f->nslow += l->slow;
        }
    }
    free(v);
}

/* What one end of link l counted of its time and failure: its time (when
 * it has one) and its error (when l has none yet). */
static void s_take_end(rb_net_link_fig_t *l, const rb_link_stat_t *s)
{
    if (s->t_end_ns > s->t_start_ns)
        l->seconds = (double)(s->t_end_ns - s->t_start_ns) / 1e9;
    if (s->status && !l->status) {
        l->status = s->status;
        snprintf(l->error, sizeof l->error, "%s", s->error);
    }
}

int rb_net_fig_build(const rb_phase_spec_t *ph, uint32_t nnodes, const rb_agg_done_t *const *done,
                     rb_net_fig_t *f)
{
    memset(f, 0, sizeof *f);
    if (!rb_net_phase_is(ph))
        return 0;
    uint64_t cap = 0; /* a link each sending end, and each taker whose sender sent no DONE */
    for (uint32_t r = 0; r < nnodes; r++)
        cap += done[r] ? done[r]->nlinks : 0;
    f->nnodes = nnodes;
    f->links = calloc(cap ? cap : 1, sizeof *f->links);
    f->nodes = calloc(nnodes ? nnodes : 1, sizeof *f->nodes);
    if (!f->links || !f->nodes) {
        rb_net_fig_free(f);
        return -ENOMEM;
    }
    for (uint32_t r = 0; r < nnodes; r++) /* until telemetry says */
        f->nodes[r].cpu_cores = f->nodes[r].nic_rx = f->nodes[r].nic_tx = -1;
    /* the senders' view first: one entry per link */
    for (uint32_t r = 0; r < nnodes; r++) {
        for (uint32_t i = 0; done[r] && i < done[r]->nlinks; i++) {
            const rb_link_stat_t *s = &done[r]->links[i];
            if (!s->out || s->peer >= nnodes || s->job >= ph->njobs)
                continue;
            rb_net_link_fig_t *l = &f->links[f->nlinks++];
            l->job = s->job;
            l->from = r;
            l->to = s->peer;
            l->sent = s->bytes;
            l->ops = s->ops;
            l->want = ph->jobs[s->job].numjobs;
            l->streams = s->streams;
            l->partial = 1; /* until the receiver's count comes */
            l->bytes = s->bytes;
            s_take_end(l, s);
        }
    }
    qsort(f->links, f->nlinks, sizeof *f->links, s_link_cmp);
    uint32_t nsend = f->nlinks;
    /* then the receivers': their count is what crossed the link */
    for (uint32_t r = 0; r < nnodes; r++) {
        for (uint32_t i = 0; done[r] && i < done[r]->nlinks; i++) {
            const rb_link_stat_t *s = &done[r]->links[i];
            if (s->out || s->peer >= nnodes || s->job >= ph->njobs)
                continue;
            rb_net_link_fig_t *l =
                s_find(&(rb_net_fig_t){.links = f->links, .nlinks = nsend}, s->job, s->peer, r);
            if (!l) { /* its sender sent no DONE */
                l = &f->links[f->nlinks++];
                *l = (rb_net_link_fig_t){.job = s->job,
                                         .from = s->peer,
                                         .to = r,
                                         .partial = 1,
                                         .want = ph->jobs[s->job].numjobs};
            } else {
                l->partial = 0;
            }
            l->bytes = s->bytes;
            if (!ph->jobs[s->job].pingpong)
                l->ops = s->ops;
            l->streams = s->streams > l->streams ? s->streams : l->streams;
            s_take_end(l, s); /* the receiver's time over the sender's */
        }
        if (done[r]) {
            f->nodes[r].refused = done[r]->net_refused;
            snprintf(f->nodes[r].refused_by, sizeof f->nodes[r].refused_by, "%s",
                     done[r]->net_refused_by ? done[r]->net_refused_by : "");
            f->refused += done[r]->net_refused;
            f->nodes[r].retrans = done[r]->net_retrans;
            f->retrans += done[r]->net_retrans;
        }
    }
    rb_net_fig_index(f, ph->njobs);
    uint32_t moved = 0;
    for (uint32_t i = 0; i < f->nlinks; i++) {
        rb_net_link_fig_t *l = &f->links[i];
        uint64_t b = ph->jobs[l->job].pingpong ? l->sent : l->bytes;
        l->gbps = l->seconds > 0 ? (double)b * 8 / l->seconds / 1e9 : 0;
        f->nfailed += l->status != 0;
        f->nodes[l->from].out_bytes += b;
        f->nodes[l->from].out_gbps += l->gbps;
        f->nodes[l->to].in_bytes += b;
        f->nodes[l->to].in_gbps += l->gbps;
        if (!b || l->status)
            continue;
        if (!moved++ || l->gbps < f->min_gbps)
            f->min_gbps = l->gbps;
        if (l->gbps > f->max_gbps)
            f->max_gbps = l->gbps;
    }
    double *v = calloc(moved ? moved : 1, sizeof *v);
    if (!v) {
        rb_net_fig_free(f);
        return -ENOMEM;
    }
    for (uint32_t i = 0, k = 0; i < f->nlinks; i++)
        if (f->links[i].bytes && !f->links[i].status)
            v[k++] = f->links[i].gbps;
    f->median_gbps = moved ? rb_stats_median(v, moved) : 0;
    free(v);
    s_family(ph, f);
    /* asymmetric: a link and its reverse, both measured, one under half the other */
    for (uint32_t i = 0; i < f->nlinks; i++) {
        rb_net_link_fig_t *l = &f->links[i], *rev = s_find(f, l->job, l->to, l->from);
        if (!rev || !l->bytes || !rev->bytes || l->status || rev->status)
            continue;
        if (l->gbps < rev->gbps * 0.5) {
            l->asymmetric = 1;
            f->nasym++;
        }
    }
    return 0;
}

void rb_net_fig_free(rb_net_fig_t *f)
{
    free(f->links);
    free(f->nodes);
    memset(f, 0, sizeof *f);
}

rb_net_cell_t rb_net_cell(const rb_net_fig_t *f, uint32_t from, uint32_t to)
{
    rb_net_cell_t c = {0};
    for (uint32_t j = 0; j < f->njobs; j++) {
        const rb_net_link_fig_t *l = s_find(f, j, from, to);
        if (!l)
            continue;
        c.has = 1;
        c.gbps += l->gbps;
        c.slow |= l->slow;
        c.failed |= l->status != 0;
    }
    return c;
}

void rb_net_fig_index(rb_net_fig_t *f, uint32_t njobs)
{
    f->njobs = njobs;
    qsort(f->links, f->nlinks, sizeof *f->links, s_link_cmp);
}

int rb_net_findings(rb_phase_agg_t *a)
{
    const rb_net_fig_t *f = a->net;
    for (uint32_t i = 0; f && i < f->nlinks; i++) {
        const rb_net_link_fig_t *l = &f->links[i];
        if (!l->slow && !l->asymmetric && !l->status)
            continue;
        if (l->from >= a->nnodes || l->to >= a->nnodes)
            continue;
        const rb_net_link_fig_t *rev = s_find(f, l->job, l->to, l->from);
        rb_finding_t x = {.first_seen_s = -1, .value = l->gbps};
        snprintf(x.node, sizeof x.node, "%s", a->nodes[l->from].name);
        snprintf(x.device, sizeof x.device, "to %s", a->nodes[l->to].name);
        if (l->status) {
            x.kind = RB_FIND_LINK_FAILED;
            /* the sender's retransmissions tell loss on the way from a peer gone */
            uint64_t rt = f->nodes[l->from].retrans;
            char why[RB_NAME_MAX + 64] = "";
            if (rt)
                snprintf(why, sizeof why, " (%s retransmitted %llu TCP segments in the phase)",
                         x.node, (unsigned long long)rt);
            snprintf(x.evidence, sizeof x.evidence, "%.3f Gbit/s moved, then: %s%s", l->gbps,
                     l->error, why);
            if (rb_findings_add(a, &x) < 0)
                return -ENOMEM;
        }
        if (l->slow) {
            x.kind = RB_FIND_SLOW_LINK;
            x.reference = f->median_gbps;
            snprintf(x.evidence, sizeof x.evidence,
                     "%.3f Gbit/s against a median of %.3f Gbit/s of the phase's %u links", l->gbps,
                     f->median_gbps, f->nlinks);
            if (rb_findings_add(a, &x) < 0)
                return -ENOMEM;
        }
        if (l->asymmetric && rev) {
            x.kind = RB_FIND_ASYM_LINK;
            x.reference = rev->gbps;
            snprintf(x.evidence, sizeof x.evidence,
                     "%.3f Gbit/s this way, %.3f Gbit/s back (%s to %s)", l->gbps, rev->gbps,
                     a->nodes[l->to].name, a->nodes[l->from].name);
            if (rb_findings_add(a, &x) < 0)
                return -ENOMEM;
        }
    }
    return 0;
}

int rb_net_bound_findings(rb_phase_agg_t *st, const rb_phase_agg_t *net)
{
    const rb_net_fig_t *f = net->net;
    if (!f || st->net || !st->bytes)
        return 0;
    for (uint32_t i = 0; i < st->nnodes; i++) {
        const rb_agg_node_t *n = &st->nodes[i];
        uint32_t r = i < net->nnodes && !strcmp(net->nodes[i].name, n->name) ? i : UINT32_MAX;
        for (uint32_t k = 0; r == UINT32_MAX && k < net->nnodes && k < f->nnodes; k++)
            if (!strcmp(net->nodes[k].name, n->name))
                r = k;
        if (r == UINT32_MAX || r >= f->nnodes)
            continue;
        double out = f->nodes[r].out_gbps * 1e9 / 8, in = f->nodes[r].in_gbps * 1e9 / 8;
        double w = n->dir[RB_DIR_WRITE].bw, rd = n->dir[RB_DIR_READ].bw;
        double ws = out > 0 ? w / out : 0, rs = in > 0 ? rd / in : 0;
        if (ws < RB_NET_BOUND_SHARE && rs < RB_NET_BOUND_SHARE)
            continue;
        int writes = ws >= rs;
        rb_finding_t x = {.kind = RB_FIND_NET_BOUND,
                          .first_seen_s = -1,
                          .value = writes ? w : rd,
                          .reference = writes ? out : in};
        snprintf(x.node, sizeof x.node, "%s", n->name);
        snprintf(x.evidence, sizeof x.evidence,
                 "%s at %.1f MB/s, %.0f%% of the %.1f MB/s (%.3f Gbit/s) its network carried %s in "
                 "phase %s: the network is the limit",
                 writes ? "writes" : "reads", x.value / 1e6, (writes ? ws : rs) * 100,
                 x.reference / 1e6, x.reference * 8 / 1e9, writes ? "out" : "in", net->name);
        if (rb_findings_add(st, &x) < 0)
            return -ENOMEM;
    }
    return 0;
}

int rb_net_tel_findings(rb_phase_agg_t *a, const rb_findings_tel_series_t *t, double interval_s)
{
    rb_net_fig_t *f = a->net;
    for (uint32_t r = 0; f && r < f->nnodes && r < a->nnodes; r++) {
        rb_net_node_fig_t *n = &f->nodes[r];
        rb_findings_tel_node_t tn;
        if (!rb_findings_tel_node(t, r, interval_s, &tn))
            continue;
        n->cpu_cores = tn.cpu_cores;
        if (!tn.nics)
            continue;
        n->nic_rx = tn.nic_rx;
        n->nic_tx = tn.nic_tx;
        double out = (double)n->out_bytes, in = (double)n->in_bytes;
        int low_out = out >= (double)RB_HONESTY_MIN && tn.nic_tx < out * (1 - RB_NET_NIC_MARGIN),
            low_in = in >= (double)RB_HONESTY_MIN && tn.nic_rx < in * (1 - RB_NET_NIC_MARGIN);
        if (!low_out && !low_in)
            continue;
        rb_finding_t x = {.kind = RB_FIND_HONESTY,
                          .first_seen_s = -1,
                          .value = low_out ? tn.nic_tx : tn.nic_rx,
                          .reference = low_out ? out : in};
        snprintf(x.node, sizeof x.node, "%s", a->nodes[r].name);
        snprintf(x.device, sizeof x.device, "NICs");
        snprintf(x.evidence, sizeof x.evidence,
                 "its NICs sent %.1f MB and received %.1f MB, its streams %.1f MB and %.1f MB: the "
                 "streams crossed no NIC telemetry sees (loopback, another namespace)",
                 tn.nic_tx / 1e6, tn.nic_rx / 1e6, out / 1e6, in / 1e6);
        if (rb_findings_add(a, &x) < 0)
            return -ENOMEM;
    }
    return 0;
}
