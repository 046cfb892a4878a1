/* Which agents take part and in what order: HELLOs (who may join), the
 * --nodes list, the wait for the expected agents, their ranks, and the PLAN
 * each one gets until it is READY. */
#ifndef RB_JOIN_H
#define RB_JOIN_H

#include "rb_run_int.h"

/* Parses --nodes (comma-separated names) into r->want. 0, -EINVAL for a bad
 * name, -ENOMEM. */
int rb_join_parse_nodes(rb_run_ctx_t *r, const char *csv);

/* A HELLO from the peer with routing id id: registers the agent and sends
 * its first clock probe, or turns it away with an ERROR saying why. */
void rb_join_hello(rb_run_ctx_t *r, const char *id, rb_msg_hello_t *h, uint32_t version,
                   uint64_t now);

/* Waits for the expected agents to join with their clocks synced. 0, or
 * -ETIMEDOUT / -EIO with the run failed. */
int rb_join_gather(rb_run_ctx_t *r);

/* A SPACE from node n: keeps its file systems and fails the run, before
 * GO, when the nodes sharing one (same host, same device and size) need
 * together more than it has free beyond the largest of their reserves,
 * naming the file system, the nodes, the need and the free space. */
void rb_join_space(rb_run_ctx_t *r, rb_fleet_node_t *n, const rb_msg_space_t *sp);

/* Ranks the nodes, sends each its PLAN and waits for every READY. 0, or
 * -EIO with the run failed. */
int rb_join_send_plan(rb_run_ctx_t *r);

/* Network phases, at PLAN: the run's secret into pl, and each network job
 * checked against the ranked nodes (two at least, incast's target among
 * them, links and streams a node within bounds). 0, or -EINVAL with the
 * run failed naming the job. */
int rb_join_net_plan(rb_run_ctx_t *r, rb_msg_plan_t *pl);

/* Node n's links of network phase ph into go (links malloc'd: the caller
 * frees them), with each sending link's peer's address and port; links to
 * nodes that are not ready for the phase are left out. 0 or -ENOMEM. */
int rb_join_net_links(rb_run_ctx_t *r, const rb_phase_spec_t *ph, const rb_fleet_node_t *n,
                      rb_msg_go_t *go);

#endif
