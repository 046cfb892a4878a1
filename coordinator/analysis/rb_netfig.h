/* Network phases on the coordinator: which node streams to which (the
 * pattern of a job with network=), and what each link and node did, from
 * both ends' counts in their DONEs: the link matrix, each node's in and
 * out, the slow and asymmetric links and the refused connections. */
#ifndef RB_NET_FIG_H
#define RB_NET_FIG_H

#include <stdint.h>

#include "rb_proto.h"

/* Node r's links in job js over n nodes (target: net_target's rank, for
 * incast): the peers it sends to (out[i] 1) and those it takes streams
 * from (out[i] 0), into peers and out, at most cap of them. Returns how
 * many there are (more than cap: only cap were written). */
uint32_t rb_net_node_links(const rb_job_spec_t *js, uint32_t n, uint32_t target, uint32_t r,
                           uint32_t *peers, uint8_t *out, uint32_t cap);

/* The most links one node has in job js over n nodes. */
uint32_t rb_net_links_most(const rb_job_spec_t *js, uint32_t n, uint32_t target);

/* One link of a phase: sender → receiver, as the receiver counted it (the
 * sender's count beside it). */
typedef struct rb_net_link_fig {
    uint32_t job;
    uint32_t from, to; /* ranks */
    uint64_t bytes;    /* received; the sender's count when the receiver's is missing */
    uint64_t sent;     /* the sender's count */
    uint64_t ops;      /* messages, or round trips (pingpong) */
    double seconds;    /* from its first stream's start to its last byte */
    double gbps;       /* bytes × 8 / seconds / 1e9 */
    uint32_t streams;  /* streams set up */
    uint32_t want;     /* streams asked for (numjobs) */
    int status;        /* 0, or -errno of a stream's failure (either end) */
    char error[RB_NET_ERROR_MAX];
    uint8_t partial;    /* an end's count is missing (that node lost) */
    uint8_t slow;       /* below its family (the phase's links of the job) */
    uint8_t asymmetric; /* its reverse link moved far less or far more */
} rb_net_link_fig_t;

/* One node's share: what it sent and received over the phase's links. */
typedef struct rb_net_node_fig {
    double out_gbps, in_gbps; /* the sum of its links' rates */
    uint64_t out_bytes, in_bytes;
    uint64_t retrans;      /* TCP segments its host retransmitted over the phase */
    double cpu_cores;      /* CPU cores busy (telemetry, median interval); -1 unknown */
    double nic_rx, nic_tx; /* bytes its NICs (but lo) received and sent; -1 unknown */
    uint64_t refused;      /* connections to its data port refused */
    char refused_by[RB_REASON_MAX];
} rb_net_node_fig_t;

typedef struct rb_net_fig {
    uint32_t nnodes;
    uint32_t njobs; /* of the phase (links name them by index) */
    uint32_t nlinks;
    rb_net_link_fig_t *links;               /* sorted by job, sender, receiver (rb_net_fig_index) */
    rb_net_node_fig_t *nodes;               /* by rank */
    double median_gbps, min_gbps, max_gbps; /* over the links that moved data */
    uint32_t nslow, nasym, nfailed;
    uint64_t refused; /* over every node */
    uint64_t retrans; /* likewise */
} rb_net_fig_t;

struct rb_agg_done; /* rb_aggregate.h */

/* Builds the figures of phase ph from each rank's DONE (done[r], NULL for a
 * node that sent none). 0 (fig empty when the phase has no network job) or
 * -ENOMEM. */
int rb_net_fig_build(const rb_phase_spec_t *ph, uint32_t nnodes,
                     const struct rb_agg_done *const *done, rb_net_fig_t *fig);

void rb_net_fig_free(rb_net_fig_t *fig);

/* Sorts fig's links by job, sender and receiver, for rb_net_cell and the
 * reverse of a link; fig's phase has njobs jobs. */
void rb_net_fig_index(rb_net_fig_t *fig, uint32_t njobs);

/* One cell of the link matrix, sender from to receiver to, over the
 * phase's jobs: whether a link is there, its rate summed, whether one of
 * them is slow or failed. */
typedef struct rb_net_cell {
    int has, slow, failed;
    double gbps;
} rb_net_cell_t;
rb_net_cell_t rb_net_cell(const rb_net_fig_t *fig, uint32_t from, uint32_t to);

struct rb_phase_agg;

/* The findings of a network phase's links (a->net): slow-link (below its
 * family, the job's other links, by the rule of out-of-family disks),
 * asymmetric-link and link-failed, each naming the sender (node) and the
 * receiver ("to NODE"). 0 or -ENOMEM. */
int rb_net_findings(struct rb_phase_agg *a);

#define RB_NET_BOUND_SHARE 0.8 /* storage at this share of the network or more: network-bound */
/* NICs under their streams' bytes by more than this share: the honesty
 * finding (their telemetry misses the phase's edges, a few %) */
#define RB_NET_NIC_MARGIN 0.2

/* Storage phase st (named by its agg) against network phase net of the same
 * run: each node whose writes moved RB_NET_BOUND_SHARE or more of what its
 * network carried out in net, or its reads of what it carried in, is a
 * network-bound finding of st naming both phases and the figures. Nothing
 * when net is no network phase or st is one. 0 or -ENOMEM. */
int rb_net_bound_findings(struct rb_phase_agg *st, const struct rb_phase_agg *net);

struct rb_findings_tel_series;

/* From a network phase's telemetry: each node's busy CPU cores and its
 * NICs' bytes (a->net's nodes), and the honesty finding of a node whose
 * NICs carried less than its streams counted out or in (by more than
 * RB_NET_NIC_MARGIN: the streams crossed no NIC telemetry sees, as
 * loopback). 0 or -ENOMEM. */
int rb_net_tel_findings(struct rb_phase_agg *a, const struct rb_findings_tel_series *t,
                        double interval_s);

/* 1 when phase ph has a job with network=. */
int rb_net_phase_is(const rb_phase_spec_t *ph);

#endif
