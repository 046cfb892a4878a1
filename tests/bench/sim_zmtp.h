/* A DEALER's side of ZMTP 3.0 with the NULL mechanism, on a plain
 * non-blocking socket, for fleet-sim's simulated agents: the bytes a
 * libzmq DEALER puts on the wire (its greeting, a READY with its socket
 * type and routing id, then one frame a message), without a ZeroMQ socket,
 * its mailbox and I/O thread per agent. A process of 4,000 agents spent
 * most of its CPU in libzmq's per-socket bookkeeping (a poll and a getpid
 * for each look at a socket's events), CPU taken from the coordinator it
 * measures when both share a small machine. The coordinator's side is
 * libzmq, as for real agents.
 *
 * Only what a simulated agent needs: connect (ipc:// or tcp://), send a
 * message, read the messages that came; commands from the peer are
 * skipped, multi-part messages are not made. */
#ifndef SIM_ZMTP_H
#define SIM_ZMTP_H

#include <stddef.h>
#include <stdint.h>

typedef struct sim_zmtp {
    int fd;         /* -1: closed */
    int greeted;    /* the peer's greeting has been read */
    int ready;      /* and its READY: messages may go (one sent before it, libzmq
                       takes for a command and drops the connection) */
    size_t hs_left; /* bytes of the greeting and READY not yet written */
    uint8_t *in;    /* read, not yet taken */
    size_t in_len, in_off, in_cap;
    uint8_t *out; /* to write: what a full socket buffer left */
    size_t out_len, out_off, out_cap;
} sim_zmtp_t;

/* Connects to ep ("ipc://PATH" or "tcp://HOST:PORT") as a DEALER with that
 * routing id, trying again for up to 10 s while there is nothing to
 * connect to; the greeting and READY are queued. 0, or -errno. */
int sim_zmtp_connect(sim_zmtp_t *z, const char *ep, const char *routing_id);

/* Queues one message and writes what the socket takes (nothing before the
 * peer's READY). 1: all written, 0: some left for sim_zmtp_flush (when the
 * socket is writable, or the READY came), -errno. */
int sim_zmtp_send(sim_zmtp_t *z, const void *buf, size_t len);

/* Writes what is left: as sim_zmtp_send. */
int sim_zmtp_flush(sim_zmtp_t *z);

/* Reads what the socket holds. 0, or -1 when the peer closed or the
 * socket failed. */
int sim_zmtp_read(sim_zmtp_t *z);

/* The next whole message read (valid until the next sim_zmtp_read). 1: a
 * message, 0: none whole yet, -1: not ZMTP 3 with NULL. The peer's READY
 * writes what waited for it. */
int sim_zmtp_next(sim_zmtp_t *z, const uint8_t **msg, size_t *len);

void sim_zmtp_close(sim_zmtp_t *z);

#endif
