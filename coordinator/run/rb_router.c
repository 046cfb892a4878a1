/* The run's ROUTER socket: one socket for every agent, so that one
 * coordinator serves thousands of nodes. Sending, the receive pump with its
 * timers (CSV flush, silent agents, heartbeats), binding and CURVE. */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "rb_auth.h"
#include "rb_local.h"
#include "rb_log.h"
#include "rb_router.h"
#include "rb_time.h"

#define S_DEFAULT_BIND     "tcp://*:7770"
#define S_WALK_MIN_NS      (10 * RB_NS_PER_MS)  /* the walk for silent agents, at most this often */
#define S_WALK_MAX_NS      (250 * RB_NS_PER_MS) /* and at least this often */
#define S_BEAT_AGENT_NS    (250 * RB_NS_PER_US) /* a phase's beat period, at least, an agent */
#define S_HOLD_AGENT_NS    (20 * RB_NS_PER_US) /* a phase's DONEs held after its samples, an agent */
#define S_GATHER_NS        (5 * RB_NS_PER_MS)  /* rb_router_pump_gather's wait for more messages */
#define S_FLUSH_NS         (50 * RB_NS_PER_MS) /* samples reach the file this soon (interval >= 100 ms) */
#define S_DRAIN_MAX        4096  /* messages taken in per pump before the timers run */
#define S_IO_THREAD_AGENTS 2000  /* a second ZeroMQ I/O thread from this many agents */
#define S_BACKLOG          16384 /* connections pending accept (the kernel may cap it lower) */
#define S_IO_NICE          5 /* ZeroMQ's threads' nice value above this one's, from S_IO_THREAD_AGENTS */
/* libzmq's context option (a draft in its header, in the library since 4.3) */
#define S_ZMQ_ZERO_COPY_RECV 10
#define S_CLOSE_WAIT_MS      5000 /* rb_router_close's wait for ZeroMQ to close every connection */
#define S_LATER_NS           (5 * RB_NS_PER_MS)   /* put-off DONEs handled a pump, at most */
#define S_LATER_BUSY_NS      (200 * RB_NS_PER_US) /* the same while messages keep coming */

/* A DONE taken in and put off: its agent's routing id and its frame. */
struct rb_router_later {
    char id[RB_NAME_MAX];
    zmq_msg_t body;
    uint64_t at; /* when it was taken in */
};

/* DONEs put off and not handled yet. */
static int s_later_wait(const rb_run_ctx_t *r)
{
    return r->later_at < r->nlater;
}

/* Puts off the DONE in body (taken from it, left empty), to be handled
 * after the samples taken in with it. 0, or -1 when it is to be handled now
 * (out of memory, or more waiting than the fleet has agents and then
 * some). */
static int s_later_put(rb_run_ctx_t *r, const char *id, zmq_msg_t *body)
{
    if (r->nlater - r->later_at > r->fleet.n + 1024u)
        return -1;
    if (r->nlater == r->caplater) {
        uint32_t cap = r->caplater ? 2 * r->caplater : 256;
        struct rb_router_later *l = realloc(r->later, cap * sizeof *l);
        if (!l)
            return -1;
        r->later = l;
        r->caplater = cap;
    }
    struct rb_router_later *l = &r->later[r->nlater++];
    snprintf(l->id, sizeof l->id, "%s", id);
    l->at = rb_time_mono_ns();
    zmq_msg_init(&l->body);
    zmq_msg_move(&l->body, body);
    return 0;
}

/* Handles the put-off DONEs in the order they came, for budget_ns at most
 * (0: all of them). */
static void s_later_run(rb_run_ctx_t *r, uint64_t budget_ns)
{
    uint64_t t0 = rb_time_mono_ns(), now = t0;
    while (s_later_wait(r) && (!budget_ns || now - t0 < budget_ns)) {
        struct rb_router_later *l = &r->later[r->later_at++];
        rb_run_dispatch(r, l->id, zmq_msg_data(&l->body), zmq_msg_size(&l->body), now, l->at);
        zmq_msg_close(&l->body);
        now = rb_time_mono_ns();
    }
    if (!s_later_wait(r))
        r->later_at = r->nlater = 0;
}

void rb_router_later_end(rb_run_ctx_t *r, int handle)
{
    if (handle)
        s_later_run(r, 0);
    for (uint32_t i = r->later_at; i < r->nlater; i++)
        zmq_msg_close(&r->later[i].body);
    free(r->later);
    r->later = NULL;
    r->nlater = r->caplater = r->later_at = 0;
}

/* Straight to ZeroMQ, its routing id frame then the body: a czmq zmsg cost
 * two allocations and copies a message more, at 16,000 agents a second. */
int rb_router_send_raw(rb_run_ctx_t *r, const void *id, size_t idlen, const void *buf, size_t len)
{
    void *sock = zsock_resolve(r->router);
    if (zmq_send(sock, id, idlen, ZMQ_SNDMORE) < 0 || zmq_send(sock, buf, len, 0) < 0)
        return -EHOSTUNREACH;
    return 0;
}

/* Takes in what the ROUTER holds without blocking, each message as it is
 * received: a receive that says there is no more ends it, with no
 * ZMQ_EVENTS query (and its command processing) per message. A DONE is put
 * off until the samples taken in with it are handled: at 16,000 agents a
 * DONE costs five samples' time, and the phase's last samples waited up to
 * 2.4 s behind the DONEs of other agents. */
static unsigned s_drain(rb_run_ctx_t *r)
{
    void *sock = zsock_resolve(r->router);
    unsigned k;
    for (k = 0; k < S_DRAIN_MAX; k++) {
        zmq_msg_t part[2];
        zmq_msg_init(&part[0]);
        if (zmq_msg_recv(&part[0], sock, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&part[0]);
            break;
        }
        size_t n = 1; /* parts received; only the first two are kept */
        int more = zmq_msg_more(&part[0]);
        while (more) {
            zmq_msg_t extra, *m = n < 2 ? &part[n] : &extra;
            zmq_msg_init(m);
            if (zmq_msg_recv(m, sock, 0) < 0) { /* the rest of a message is there at once */
                zmq_msg_close(m);
                break;
            }
            more = zmq_msg_more(m);
            if (m == &extra)
                zmq_msg_close(m);
            n++;
        }
        size_t idlen = zmq_msg_size(&part[0]);
        if (n == 2 && idlen < RB_NAME_MAX) {
            char id[RB_NAME_MAX];
            memcpy(id, zmq_msg_data(&part[0]), idlen);
            id[idlen] = '\0';
            if (strlen(id) == idlen &&
                (rb_msg_peek_type(zmq_msg_data(&part[1]), zmq_msg_size(&part[1])) != RB_MSG_DONE ||
                 s_later_put(r, id, &part[1]) < 0)) {
                uint64_t now = rb_time_mono_ns();
                rb_run_dispatch(r, id, zmq_msg_data(&part[1]), zmq_msg_size(&part[1]), now, now);
            }
        }
        for (size_t i = 0; i < n && i < 2; i++)
            zmq_msg_close(&part[i]);
    }
    return k;
}

uint32_t rb_router_version(const rb_fleet_node_t *n)
{
    uint32_t v = n->hello.version;
    return v >= RB_PROTO_OLDEST && v <= rb_proto_speak() ? v : rb_proto_speak();
}

int rb_router_send_to(rb_run_ctx_t *r, const void *id, size_t idlen, const rb_msg_t *m)
{
    return rb_router_send_to_v(r, id, idlen, rb_proto_speak(), m);
}

int rb_router_send_to_v(rb_run_ctx_t *r, const void *id, size_t idlen, uint32_t version,
                        const rb_msg_t *m)
{
    rb_err_t err;
    void *buf = NULL;
    size_t len = 0;
    rb_err_clear(&err);
    int rc = rb_msg_encode_v(m, version, &buf, &len, &err);
    if (rc < 0) {
        rb_error("cannot encode %s: %s", rb_msg_type_name(m->type), err.msg);
        return rc;
    }
    rc = rb_router_send_raw(r, id, idlen, buf, len);
    free(buf);
    return rc;
}

/* A send to n went through (rc 0) or found its connection gone. Gone is
 * not lost yet: what it sent before it went may still wait to be read (an
 * agent's END, its connection closed after it). It is judged once a drain
 * begun after the failure has read everything (the walk in
 * rb_router_pump); a send that goes through meanwhile (it connected
 * again) takes the failure back. */
static void s_sent(rb_fleet_node_t *n, int rc)
{
    if (rc == 0)
        n->unreachable_ns = 0;
    else if (rc == -EHOSTUNREACH && !n->unreachable_ns)
        n->unreachable_ns = rb_time_mono_ns();
}

void rb_router_send(rb_run_ctx_t *r, rb_fleet_node_t *n, const rb_msg_t *m)
{
    int rc = rb_router_send_to_v(r, n->hello.name, strlen(n->hello.name), rb_router_version(n), m);
    s_sent(n, rc);
    if (rc < 0 && rc != -EHOSTUNREACH)
        rb_run_fail(r, "cannot build the %s message for agent %s (%s)", rb_msg_type_name(m->type),
                    n->hello.name, strerror(-rc));
}

void rb_router_ping(rb_run_ctx_t *r, rb_fleet_node_t *n)
{
    rb_msg_t m = {.type = RB_MSG_PING};
    m.u.ping.seq = n->pings;
    m.u.ping.t_coord_ns = rb_time_mono_ns();
    rb_router_send(r, n, &m);
}

/* An ABORT or ERROR of this run with a code and a reason. */
rb_msg_t rb_router_reason_msg(const rb_run_ctx_t *r, rb_msg_type_t type, int code,
                              const char *reason)
{
    rb_msg_t m = {.type = type};
    rb_msg_reason_t *b = type == RB_MSG_ABORT ? &m.u.abort : &m.u.error;
    snprintf(b->run_id, sizeof b->run_id, "%s", r->run_id);
    b->code = code;
    snprintf(b->reason, sizeof b->reason, "%s", reason);
    return m;
}

void rb_router_send_reason(rb_run_ctx_t *r, rb_fleet_node_t *n, rb_msg_type_t type, int code,
                           const char *reason)
{
    rb_msg_t m = rb_router_reason_msg(r, type, code, reason);
    rb_router_send(r, n, &m);
}

/* A failed handshake: counted, and each kind explained once. A refused
 * key is the ZAP handler's to log; a peer closing mid-handshake says
 * nothing about keys. */
static void s_handshake(rb_run_ctx_t *r, const rb_auth_event_t *ev)
{
    if (ev->outcome == RB_AUTH_NONE || ev->outcome == RB_AUTH_SUCCEEDED)
        return;
    uint32_t n = ++r->handshakes_failed[ev->outcome];
    char detail[128];
    rb_auth_event_detail(ev, detail, sizeof detail);
    if (ev->outcome == RB_AUTH_REFUSED || ev->outcome == RB_AUTH_CLOSED) {
        rb_debug("a handshake on %s failed: %s (%s)", r->endpoint,
                 rb_auth_outcome_name(ev->outcome), detail);
        return;
    }
    if (n > 1)
        return;
    if (ev->outcome == RB_AUTH_KEY_MISMATCH)
        rb_warn("a CURVE handshake on %s failed (%s): a peer's HELLO did not decrypt with this "
                "coordinator's key pair, whose public key %s is not the one that agent holds: "
                "check its --coordinator-key, or this coordinator's --key; further failures are "
                "counted",
                r->endpoint, detail, r->cert ? zcert_public_txt(r->cert) : "(none)");
    else if (ev->outcome == RB_AUTH_MECHANISM && r->auth)
        rb_warn("a peer on %s does not use CURVE (an agent started with --insecure?): turned "
                "away; further ones are counted",
                r->endpoint);
    else if (ev->outcome == RB_AUTH_MECHANISM)
        rb_warn("a peer on %s uses CURVE and this coordinator runs with --insecure: turned "
                "away; further ones are counted",
                r->endpoint);
    else
        rb_warn("a handshake on %s failed (%s, %s); further failures are counted", r->endpoint,
                rb_auth_outcome_name(ev->outcome), detail);
}

void rb_router_handshakes(const rb_run_ctx_t *r, char *buf, size_t len)
{
    const uint32_t *f = r->handshakes_failed;
    size_t u = 0;
    buf[0] = '\0';
    if (f[RB_AUTH_KEY_MISMATCH])
        u += (size_t)snprintf(buf + u, len - u,
                              "; %u CURVE handshake%s failed because the keys do not match: the "
                              "agents may hold a different coordinator key (their "
                              "--coordinator-key must hold the public key %s of this "
                              "coordinator)",
                              f[RB_AUTH_KEY_MISMATCH], f[RB_AUTH_KEY_MISMATCH] == 1 ? "" : "s",
                              r->cert ? zcert_public_txt(r->cert) : "(none)");
    if (f[RB_AUTH_MECHANISM] && u < len)
        u += (size_t)snprintf(buf + u, len - u, "; turned away %u handshake%s %s",
                              f[RB_AUTH_MECHANISM], f[RB_AUTH_MECHANISM] == 1 ? "" : "s",
                              r->auth ? "without CURVE (agents with --insecure?)"
                                      : "with CURVE (this coordinator runs with --insecure)");
    uint32_t other = f[RB_AUTH_ZAP_FAILED] + f[RB_AUTH_PROTOCOL];
    if (other && u < len)
        snprintf(buf + u, len - u, "; %u handshake%s failed otherwise (see the warnings above)",
                 other, other == 1 ? "" : "s");
}

/* Every agent's silence is looked at this often: a small share of
 * --lost-after, and at 16,000 agents not a walk of the fleet per message
 * batch. */
static uint64_t s_walk_every(const rb_run_ctx_t *r)
{
    uint64_t every = r->o->lost_after_ns / 32;
    return every < S_WALK_MIN_NS ? S_WALK_MIN_NS : every > S_WALK_MAX_NS ? S_WALK_MAX_NS : every;
}

uint64_t rb_router_phase_beat(const rb_run_ctx_t *r)
{
    const rb_run_opts_t *o = r->o;
    if (o->phase_heartbeat_ns)
        return o->phase_heartbeat_ns;
    uint64_t p = 3 * o->heartbeat_ns, fleet = (uint64_t)r->fleet.n * S_BEAT_AGENT_NS;
    p = fleet > p ? fleet : p;
    p = p > RB_HEARTBEAT_MAX_NS ? RB_HEARTBEAT_MAX_NS : p;
    return p < o->heartbeat_ns ? o->heartbeat_ns : p;
}

uint64_t rb_router_done_hold(const rb_run_ctx_t *r, uint32_t n, uint64_t interval_ns)
{
    if (r->o->done_hold_set)
        return r->o->done_hold_ns;
    uint64_t hold = (uint64_t)n * S_HOLD_AGENT_NS;
    return hold > interval_ns / 2 ? interval_ns / 2 : hold;
}

uint64_t rb_router_beat_at(const rb_run_ctx_t *r, uint64_t t)
{
    uint64_t iv = r->interval_ns;
    if (!r->beat_ns || !iv || iv > r->o->heartbeat_ns || t <= r->t_go)
        return t;
    return r->t_go + (t - r->t_go) / iv * iv + iv / 2;
}

/* A round of HEARTBEATs, one a --heartbeat: to each node whose beat is
 * due, encoded once per version. An agent of RB_ROUTER_BEAT_SINCE on is told
 * the period, and in a phase hears one a phase's period (rb_router_phase_beat):
 * at 16,000 agents, one a second each cost ZeroMQ's I/O threads a fifth of a
 * core (a command and two epoll_ctl a send), the SAMPLEs they answer no more.
 * The first beat that says a longer period spreads the next ones over its
 * rounds (a share of the fleet each), beats being allowed to come early. */
static void s_heartbeats(rb_run_ctx_t *r, uint64_t now)
{
    uint64_t hb = r->o->heartbeat_ns, told = r->beat_ns > hb ? r->beat_ns : hb;
    void *buf[RB_PROTO_VERSION - RB_PROTO_OLDEST + 1] = {NULL};
    size_t len[RB_PROTO_VERSION - RB_PROTO_OLDEST + 1] = {0};
    for (uint32_t i = 0; !r->failed && i < r->fleet.n; i++) {
        rb_fleet_node_t *n = &r->fleet.nodes[i];
        uint32_t version = rb_router_version(n), v = version - RB_PROTO_OLDEST;
        uint64_t said = version >= RB_ROUTER_BEAT_SINCE ? told : 0; /* 0: it cannot be told */
        uint64_t period = said ? said : hb;
        if (!rb_run_node_open(n) || n->beat_due_ns > now + hb / 2)
            continue;
        if (!buf[v]) {
            rb_msg_t m = {.type = RB_MSG_HEARTBEAT};
            m.u.heartbeat.t_ns = now;
            m.u.heartbeat.period_ns = said;
            rb_err_t err;
            rb_err_clear(&err);
            if (rb_msg_encode_v(&m, version, &buf[v], &len[v], &err) < 0) {
                rb_run_fail(r, "cannot encode HEARTBEAT: %s", err.msg);
                break;
            }
        }
        s_sent(n, rb_router_send_raw(r, n->hello.name, strlen(n->hello.name), buf[v], len[v]));
        n->beat_due_ns = now + period;
        if (period > hb && n->beat_said_ns != period)
            n->beat_due_ns -= i % (period / hb) * hb;
        n->beat_said_ns = period;
    }
    for (size_t v = 0; v < sizeof buf / sizeof buf[0]; v++)
        free(buf[v]);
    r->next_hb = rb_router_beat_at(r, now + hb);
}

int rb_router_ms_until(uint64_t now, uint64_t due, int cap_ms)
{
    if (due <= now)
        return 0;
    uint64_t ms = (due - now + RB_NS_PER_MS - 1) / RB_NS_PER_MS;
    return cap_ms >= 0 && ms >= (uint64_t)cap_ms ? cap_ms : (int)ms;
}

/* Waits up to timeout_ms for messages, no later than the first of its
 * timers is due, handles them, then the timers. */
void rb_router_pump(rb_run_ctx_t *r, int timeout_ms)
{
    uint64_t due = r->next_hb < r->next_walk ? r->next_hb : r->next_walk;
    if (r->unflushed && r->next_flush < due)
        due = r->next_flush;
    /* whatever woke it, the ROUTER is read; not at all while DONEs wait */
    zpoller_wait(r->poller,
                 s_later_wait(r) ? 0 : rb_router_ms_until(rb_time_mono_ns(), due, timeout_ms));
    uint64_t now;
    rb_auth_event_t ev;
    while (r->monitor && rb_auth_monitor_read(r->monitor, &ev) == 1)
        s_handshake(r, &ev);
    uint64_t read_from = rb_time_mono_ns();
    r->drained = s_drain(r);
    /* while the drain still finds messages, the phase's last samples may
     * be among them: DONEs a few at a time, so that ZeroMQ's threads read
     * on (16,000 agents, three pairs alternating: lag p99 367 - 434 ms
     * against 346 - 617, the last second's median 246 - 292 against 234
     * - 434) */
    s_later_run(r, r->drained ? S_LATER_BUSY_NS : S_LATER_NS);
    now = rb_time_mono_ns();
    if (r->unflushed && now >= r->next_flush) {
        /* On disk soon after they arrive (a killed run is still reported),
         * without a write per sample. */
        if (r->samples)
            fflush(r->samples);
        if (r->telemetry)
            fflush(r->telemetry);
        if (r->latency)
            fflush(r->latency);
        r->unflushed = 0;
        r->next_flush = now + S_FLUSH_NS;
    }
    if (now >= r->next_hb)
        s_heartbeats(r, now);
    /* Silent is judged on what has been read: while the last drain left
     * messages waiting (it took S_DRAIN_MAX), the coordinator is behind,
     * not its agents (after a phase's figures at 16,000 agents, their
     * heartbeats of the meantime wait in several drains' worth). */
    if (now < r->next_walk || r->drained >= S_DRAIN_MAX || s_later_wait(r))
        return;
    r->next_walk = now + s_walk_every(r);
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        rb_fleet_node_t *n = &r->fleet.nodes[i];
        if (!rb_run_node_open(n))
            continue;
        if (n->unreachable_ns && n->unreachable_ns < read_from)
            rb_fleet_node_out(n, RB_NODE_LOST,
                              "cannot reach agent %s: its connection closed %.1f s ago, and "
                              "it said nothing more",
                              n->hello.name, (double)(now - n->unreachable_ns) / 1e9);
        else if (now - n->last_seen_ns > r->o->lost_after_ns)
            rb_fleet_node_out(n, RB_NODE_LOST,
                              "silent for %.1f s (--lost-after %.1f s): is its host up, its "
                              "rackbench-agent running, the network to it working? One alive "
                              "but slow to answer needs a longer --lost-after",
                              (double)(now - n->last_seen_ns) / 1e9,
                              (double)r->o->lost_after_ns / 1e9);
    }
    rb_local_reap(r);
}

/* Messages of a phase come together, each node's sample at its interval's
 * end: taken as they trickle in, a few at a time, each few cost the
 * coordinator and ZeroMQ's thread a wake-up. When the last pump took
 * messages and left none, this one first lets more gather for
 * S_GATHER_NS, so a second's samples are taken in a few batches. Not for
 * the clock round, whose round trips are timed on arrival. */
void rb_router_pump_gather(rb_run_ctx_t *r, int timeout_ms)
{
    if (r->drained && r->drained < S_DRAIN_MAX && !s_later_wait(r)) {
        struct timespec ts = {0, S_GATHER_NS};
        nanosleep(&ts, NULL);
    }
    rb_router_pump(r, timeout_ms);
}

const char *rb_router_endpoint(const rb_run_opts_t *o)
{
    return o->bind ? o->bind : o->local ? "tcp://127.0.0.1:*" : S_DEFAULT_BIND;
}

/* CURVE on the ROUTER socket before it binds: the coordinator's keys and
 * the ZAP handler with the allowed keys (for --local, made here). */
static int s_secure(rb_run_ctx_t *r)
{
    rb_err_t err;
    rb_err_clear(&err);
    if (r->o->insecure)
        rb_warn("--insecure: no CURVE on %s; anyone who can reach it may join",
                rb_router_endpoint(r->o));
    if (!r->cert)
        return 0;
    if (r->o->local)
        rb_local_keys(r, r->cert, r->allowed, &err);
    if (!err.code)
        r->auth = rb_auth_server_new(r->router, r->cert, &r->allowed, &err);
    if (!r->auth) {
        rb_run_fail(r, "%s", err.code ? err.msg : "out of memory");
        return -EACCES;
    }
    rb_info("CURVE on: %u allowed agent key%s", r->nallowed, r->nallowed == 1 ? "" : "s");
    return 0;
}

/* What "cannot bind" means, for the usual reasons. */
static const char *s_bind_hint(int e)
{
    switch (e) {
    case EADDRINUSE:
        return " (another coordinator or program listens there)";
    case EADDRNOTAVAIL:
    case ENODEV:
        return " (no interface of this machine has that address)";
    case EACCES:
        return " (a port below 1024 needs privileges)";
    default:
        return "";
    }
}

/* The endpoint as ZeroMQ binds it into out: tcp://localhost:P (which
 * ZeroMQ would take for an interface name) as tcp://127.0.0.1:P. *ipv6 is
 * set for a bracketed IPv6 address (tcp://[::1]:P), which needs ZMQ_IPV6. */
static void s_bind_endpoint(const char *ep, char *out, size_t len, int *ipv6)
{
    *ipv6 = 0;
    if (strncmp(ep, "tcp://", 6) != 0) {
        snprintf(out, len, "%s", ep);
        return;
    }
    const char *h = ep + 6;
    *ipv6 = h[0] == '[';
    const char *colon = strrchr(h, ':');
    size_t hl = colon ? (size_t)(colon - h) : 0;
    if ((hl == 9 && strncasecmp(h, "localhost", 9) == 0) ||
        (hl == 10 && strncasecmp(h, "localhost.", 10) == 0))
        snprintf(out, len, "tcp://127.0.0.1%s", colon);
    else
        snprintf(out, len, "%s", ep);
}

/* The thread that starts ZeroMQ's context (its first socket) at a nice
 * value of its own, which the context's threads it starts inherit. */
static void *s_start_ctx(void *arg)
{
    int *rc = arg;
    id_t self = (id_t)gettid();
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, self); /* its creator's */
    if (nice == -1 && errno)
        *rc = -errno;
    else
        *rc = setpriority(PRIO_PROCESS, self, nice + S_IO_NICE > 19 ? 19 : nice + S_IO_NICE) < 0
                  ? -errno
                  : 0;
    zsock_t *first = zsock_new(ZMQ_PAIR);
    if (!first && *rc == 0)
        *rc = -ENOMEM;
    zsock_destroy(&first);
    return NULL;
}

int rb_router_io_nice(void)
{
    pthread_t t;
    int rc = -EAGAIN;
    if (pthread_create(&t, NULL, s_start_ctx, &rc) != 0)
        return -EAGAIN;
    pthread_join(t, NULL);
    return rc;
}

int rb_router_bind(rb_run_ctx_t *r)
{
    const char *given = rb_router_endpoint(r->o);
    char ep[sizeof r->endpoint];
    int ipv6;
    s_bind_endpoint(given, ep, sizeof ep, &ipv6);
    /* One ZeroMQ I/O thread did every connection's handshake and reads:
     * with 16,000 agents connecting at once it fell over 30 s behind, the
     * agents gave up their handshakes and came again, and most did not
     * join in minutes. A second one shares them out (before any socket). */
    if (r->expect >= S_IO_THREAD_AGENTS) {
        zsys_set_io_threads(2);
        /* ZeroMQ's threads allocate every message read and this thread
         * frees it; in arenas of their own, what a phase's samples freed
         * there was not what this thread's kept DONEs and series could
         * use, nor the reverse. One arena for all (before any of those
         * threads starts): at 16,000 agents a peak of 970 - 983 MiB in
         * four runs against 990 - 1,034, for about a point more CPU. */
        if (mallopt(M_ARENA_MAX, 1) != 1)
            rb_debug("malloc keeps an arena a thread (M_ARENA_MAX not taken)");
        /* This thread takes in what ZeroMQ's threads read: when they share
         * the cores, ZeroMQ's at nice 0 read on while this one waits its
         * turn, and a burst of a fleet's samples (or its DONEs) waited in
         * their queues. Niced, they yield to it: 16,000 agents, three pairs
         * alternating, lag median 120 - 132 ms against 137 - 181, a steady
         * interval's p99 190 - 227 against 223 - 283. */
        int rc = rb_router_io_nice();
        if (rc < 0)
            rb_debug("ZeroMQ's threads at this thread's nice value: %s", strerror(-rc));
        else
            rb_debug("ZeroMQ's threads at nice %d above this one's", S_IO_NICE);
    }
    /* A message ZeroMQ reads is by default a window on its connection's
     * 8 KiB read buffer, which it keeps until that message is taken in,
     * reading on into a new one: a fleet's samples (or its DONEs) waiting
     * at once held a 13 KiB buffer each, 200 MiB at 16,000 agents. Copied
     * out, a waiting message holds its own bytes. */
    if (zmq_ctx_set(zsys_init(), S_ZMQ_ZERO_COPY_RECV, 0) < 0)
        rb_debug("ZeroMQ keeps messages in its read buffers (no ZMQ_ZERO_COPY_RECV): %s",
                 zmq_strerror(zmq_errno()));
    r->router = zsock_new(ZMQ_ROUTER);
    if (!r->router) {
        rb_run_fail(r, "cannot create a ZeroMQ socket");
        return -ENOMEM;
    }
    if (s_secure(r) < 0)
        return -EACCES;
    zsock_set_router_mandatory(r->router, 1);
    /* A name's newest connection is the name's: an agent restarted under
     * it connects before ZeroMQ has seen the old connection close, and was
     * ignored, its HELLO taken for a routing id, never to be answered. */
    zsock_set_router_handover(r->router, 1);
    zsock_set_linger(r->router, 1000);
    zsock_set_sndhwm(r->router, 100000);
    zsock_set_rcvhwm(r->router, 100000);
    zsock_set_maxmsgsize(r->router, RB_PROTO_MAX_FRAME);
    /* A rack of racks connects at once: with ZeroMQ's 100 pending
     * connections, the others were refused and came back every 100 ms, a
     * storm of reconnections in which 16,000 agents took minutes to join
     * (the kernel caps this at net.core.somaxconn) */
    zsock_set_backlog(r->router, S_BACKLOG);
    if (ipv6)
        zsock_set_ipv6(r->router, 1);
    int port = zsock_bind(r->router, "%s", ep);
    if (port < 0) {
        int e = zmq_errno();
        rb_run_fail(r, "cannot bind --bind %s: %s%s", given, zmq_strerror(e), s_bind_hint(e));
        return -e;
    }
    if (port > 0 && strstr(ep, "tcp://") == ep) {
        /* Wildcard port: agents connect to what the system chose. */
        char host[200];
        const char *h = ep + 6;
        size_t hl = h[0] == '[' ? strcspn(h, "]") + 1 : strcspn(h, ":");
        snprintf(host, sizeof host, "%.*s", (int)hl, h);
        if (strcmp(host, "*") == 0 || strcmp(host, "0.0.0.0") == 0)
            snprintf(host, sizeof host, "127.0.0.1");
        snprintf(r->endpoint, sizeof r->endpoint, "tcp://%s:%d", host, port);
    } else {
        snprintf(r->endpoint, sizeof r->endpoint, "%s", ep);
    }
    rb_err_t err;
    rb_err_clear(&err);
    r->monitor = rb_auth_monitor_start(r->router, &err);
    if (!r->monitor)
        rb_warn("handshake failures will not be explained: %s", err.msg);
    r->poller = zpoller_new(r->router, r->monitor, NULL);
    rb_info("run %s: coordinator on %s, waiting for %u agents", r->run_id, r->endpoint, r->expect);
    if (r->o->on_bound)
        r->o->on_bound(r->endpoint, r->o->on_bound_arg);
    return 0;
}

void rb_router_trim(const char *when)
{
#ifdef __GLIBC__
    uint64_t t0 = rb_time_mono_ns();
    malloc_trim(0);
    rb_debug("%s: freed memory handed back in %.1f ms", when,
             (double)(rb_time_mono_ns() - t0) / 1e6);
#else
    (void)when;
#endif
}

void rb_router_close(rb_run_ctx_t *r)
{
    if (!r->router)
        return;
    uint64_t t0 = rb_time_mono_ns();
    zpoller_destroy(&r->poller);
    rb_auth_monitor_stop(r->router, &r->monitor);
    int gone = rb_auth_close_wait(&r->router, S_CLOSE_WAIT_MS);
    double took = (double)(rb_time_mono_ns() - t0) / 1e9;
    if (gone)
        rb_debug("the agents' connections closed in %.3f s", took);
    else
        rb_debug("the agents' connections still closing after %.3f s: the reports go on", took);
    rb_router_trim("the router closed"); /* what its connections held, back to the system */
}

/* The security options, before anything is created: checks them and loads
 * the keys (for --local, makes the coordinator's). 0 or the exit code 2. */
int rb_router_check_security(rb_run_ctx_t *r)
{
    const rb_run_opts_t *o = r->o;
    rb_err_t err;
    rb_err_clear(&err);
    int curve = 1;
    int given = o->key_public != NULL; /* keys in memory */
    if (o->local && !o->insecure && (o->key_file || o->allow_dir || given))
        rb_err_set(&err, -EINVAL,
                   "--local makes keys of its own for its agents; --key and --allow-keys are for "
                   "agents started elsewhere (--expect, --nodes)");
    else if (given && (o->key_file || o->allow_dir))
        rb_err_set(&err, -EINVAL, "keys are given in memory: --key and --allow-keys do not apply");
    else if (!o->local || o->insecure)
        curve =
            rb_auth_check("--bind", rb_router_endpoint(o), "--key", given ? "(given)" : o->key_file,
                          "--allow-keys", given ? "(given)" : o->allow_dir, o->insecure, &err);
    if (curve > 0 && given) {
        r->cert = rb_auth_cert_from_txt(o->key_public, o->key_secret, &err);
        r->allowed = r->cert ? zcertstore_new(NULL) : NULL;
        for (uint32_t i = 0; r->allowed && !err.code && i < o->nallow_public; i++) {
            zcert_t *c = rb_auth_cert_from_txt(o->allow_public[i], NULL, &err);
            if (c && !zcertstore_lookup(r->allowed, zcert_public_txt(c))) {
                zcertstore_insert(r->allowed, &c);
                r->nallowed++;
            }
            zcert_destroy(&c);
        }
    } else if (curve > 0 && o->local) {
        r->cert = zcert_new();
        r->allowed = zcertstore_new(NULL);
        r->nallowed = o->local;
    } else if (curve > 0) {
        r->cert = rb_auth_load_secret(o->key_file, &err);
        if (r->cert)
            r->allowed = rb_auth_load_store(o->allow_dir, &r->nallowed, &err);
    }
    if (curve > 0 && !err.code && (!r->cert || !r->allowed))
        rb_err_set(&err, -ENOMEM, "out of memory");
    if (!err.code)
        return 0;
    fprintf(stderr, "rackbench run: %s\n", err.msg);
    zcert_destroy(&r->cert);
    zcertstore_destroy(&r->allowed);
    return 2;
}
