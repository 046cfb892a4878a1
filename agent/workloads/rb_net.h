/* Network phases on the agent: the data port it takes streams on, the
 * phase's acceptor (which lets in only agents of the run, proven with the
 * PLAN's secret), and the workload whose workers open and serve the
 * phase's streams (rb_net_workload, for jobs with network=).
 *
 * A data connection carries a handshake and then payload, never a command:
 * the acceptor sends a nonce, the connector answers with who it is (rank,
 * phase, job, stream) and an HMAC-SHA256 of both under the secret, the
 * acceptor answers with its own; anything else is refused, counted and
 * named (rb_msg_done_t.net_refused_by). */
#ifndef RB_NET_H
#define RB_NET_H

#include <stdint.h>
#include <sys/socket.h>

#include "rb_err.h"
#include "rb_job.h"
#include "rb_proto.h"
#include "rb_workload.h"

/* The agent's data port for a run: bound from the PLAN to END, listening
 * only while a network phase is prepared or runs. */
typedef struct rb_net_port {
    int fd; /* -1: none */
    char addr[RB_NET_ADDR_MAX];
    uint32_t port;
} rb_net_port_t;

/* Binds a TCP socket to addr (an IPv4 or IPv6 literal) and a port the
 * kernel picks, not listening. 0 or -errno with err set. */
int rb_net_port_open(rb_net_port_t *p, const char *addr, rb_err_t *err);

/* Closes it (fd -1); safe on a closed one. */
void rb_net_port_close(rb_net_port_t *p);

/* The address this host sends from to reach the host of the ZeroMQ
 * endpoint ("tcp://head:7770"; 127.0.0.1 for ipc:// and inproc://), into
 * out. 0 or -errno. */
int rb_net_source_addr(const char *endpoint, char *out, size_t cap);

/* The buffer one worker of a network job takes: a message to send and
 * room to receive (a message, and 256 KiB at least). */
static inline uint64_t rb_net_buf_bytes(uint64_t bs)
{
    return bs + (bs > (256u << 10) ? bs : (256u << 10));
}

typedef struct rb_net_phase rb_net_phase_t;

/* A network phase's data side, at its preparation: the port listens and
 * the acceptor runs. NULL with err set on failure. */
rb_net_phase_t *rb_net_phase_new(const rb_phase_spec_t *spec, uint32_t index,
                                 const rb_job_ctx_t *ctx, rb_err_t *err);

/* The phase's links at this agent, from its GO (before the workers go).
 * 0, or -E2BIG / -EINVAL / -ENOMEM with why set. */
int rb_net_phase_links(rb_net_phase_t *np, const rb_net_link_t *links, uint32_t n, char *why,
                       size_t cap);

/* The phase is over: the acceptor stops and the port stops listening (it is
 * bound anew, for a later network phase of the run). */
void rb_net_phase_stop(rb_net_phase_t *np);

/* Each link's figures (summed over its streams) and the refused
 * connections, into d (arrays owned by np). */
void rb_net_phase_collect(rb_net_phase_t *np, rb_msg_done_t *d);

/* rb_net_phase_stop, then frees it; nulls *p. */
void rb_net_phase_free(rb_net_phase_t **p);

/* The workload of a job with network=: worker k serves stream k of each of
 * the job's links at this agent, sending on those it opens and receiving on
 * those it takes (or, with pingpong, timing round trips and echoing them). */
extern const rb_workload_ops_t rb_net_workload;

#endif
