/* What the acceptor (rb_net.c) and the workers' streams (rb_net_stream.c)
 * of a network phase share. Private to those two files. */
#ifndef RB_NET_INT_H
#define RB_NET_INT_H

#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>

#include "rb_net.h"

/* The handshake (rb_net.h): the acceptor's nonce, the connector's hello
 * and proof, the acceptor's proof. */
#define RB_NET_NONCE 16
#define RB_NET_MAC   32
#define RB_NET_HELLO 48 /* "RBNC", version, from, to, phase, job, stream, flags, nonce */
#define RB_NET_VER   1

/* A connection that goes silent this long (no byte in or out while it
 * should move) fails its stream; a stream the agent takes that has not come
 * this long after GO fails as never connected. */
#define RB_NET_IDLE_NS (10ull * 1000 * 1000 * 1000)

/* One stream of one link at this agent: written by the worker that serves
 * it (and, for a stream taken, its fd by the acceptor), read after join. */
typedef struct rb_net_stream {
    int fd;    /* the connection (atomic: the acceptor hands it over); -1 none */
    int taken; /* the worker has it */
    int over;  /* done: sent its bytes and shut, or saw the end, or failed */
    uint64_t bytes, ops;
    uint64_t partial;                /* bytes of the message under way (counts ops per bs) */
    uint64_t t_start, t_end, t_last; /* authenticated; last byte; last progress */
    uint64_t t_msg;                  /* pingpong: when the round trip began */
    int status;
    char error[RB_NET_ERROR_MAX];
} rb_net_stream_t;

struct rb_net_phase {
    const rb_phase_spec_t *spec;
    uint32_t index; /* the phase's */
    uint32_t rank;
    rb_net_port_t *port;
    const uint8_t *secret;
    uint32_t secret_len;
    /* from GO: the links and, per link, numjobs streams (first[l] is link l's first) */
    rb_net_link_t *links;
    uint32_t *first;
    rb_net_stream_t *streams;
    uint32_t nstreams;
    uint32_t nlinks; /* release-stored once links, first and streams are set ... */
    int links_set;   /* ... and then this, 1 (a node may have none: its peers were lost) */
    /* the acceptor */
    pthread_t thread;
    int started;
    int stop;           /* atomic */
    pthread_mutex_t mu; /* refused and refused_by */
    uint64_t refused;
    char refused_by[RB_REASON_MAX];
    rb_link_stat_t *out; /* collect's array, nlinks */
    uint64_t retrans0;   /* the host's TCP RetransSegs when the phase was prepared */
};

/* An IPv4 or IPv6 literal and a port into *ss and *len; -EINVAL for
 * anything else. */
int rb_net_parse_addr(const char *addr, uint32_t port, struct sockaddr_storage *ss, socklen_t *len);

/* HMAC-SHA256 under the run's secret of tag (one byte), the acceptor's
 * nonce and the connector's hello. */
void rb_net_mac(const rb_net_phase_t *np, char tag, const uint8_t nonce[RB_NET_NONCE],
                const uint8_t hello[RB_NET_HELLO], uint8_t out[RB_NET_MAC]);

/* Fails stream st (the first failure stays): -code, "fmt ...". */
void rb_net_stream_fail(rb_net_stream_t *st, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
