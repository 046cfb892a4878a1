/* Network phases: the agent's data port, the phase's acceptor and its
 * handshake, and the figures of the phase's links (rb_net.h). The streams
 * themselves are rb_net_stream.c's. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "rb_log.h"
#include "rb_net_int.h"
#include "rb_time.h"

#define S_PENDING     64                          /* handshakes under way at once */
#define S_PROOF_NS    (2ull * 1000 * 1000 * 1000) /* a connection proves itself within this */
#define S_POLL_MS     50
#define S_NAMED_MAX   8 /* refused connections named one by one; the rest counted */
#define S_HELLO_TOTAL (RB_NET_HELLO + RB_NET_MAC)

int rb_net_parse_addr(const char *addr, uint32_t port, struct sockaddr_storage *ss, socklen_t *len)
{
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, addr, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        *len = sizeof *v4;
        return 0;
    }
    if (inet_pton(AF_INET6, addr, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        *len = sizeof *v6;
        return 0;
    }
    return -EINVAL;
}

/* An IPv4 or IPv6 address as text into out ("?" for another family); its port. */
static unsigned s_addr_text(const struct sockaddr_storage *ss, char *out, size_t cap)
{
    const struct sockaddr_in *v4 = (const struct sockaddr_in *)ss;
    const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)ss;
    snprintf(out, cap, "?");
    if (ss->ss_family == AF_INET) {
        inet_ntop(AF_INET, &v4->sin_addr, out, (socklen_t)cap);
        return ntohs(v4->sin_port);
    }
    if (ss->ss_family == AF_INET6) {
        inet_ntop(AF_INET6, &v6->sin6_addr, out, (socklen_t)cap);
        return ntohs(v6->sin6_port);
    }
    return 0;
}

static int s_bind(rb_net_port_t *p, uint32_t port, rb_err_t *err)
{
    struct sockaddr_storage ss;
    socklen_t len;
    if (rb_net_parse_addr(p->addr, port, &ss, &len) < 0)
        return rb_err_set(err, -EINVAL,
                          "network phases: '%s' is not an IP address to take data connections on",
                          p->addr);
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    if (fd < 0)
        return rb_err_set(err, -errno, "network phases: socket: %s", strerror(errno));
    (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&ss, len) < 0) {
        int e = errno;
        close(fd);
        return rb_err_set(err, -e, "network phases: cannot bind %s port %u: %s", p->addr, port,
                          strerror(e));
    }
    char a[RB_NET_ADDR_MAX];
    len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0)
        p->port = s_addr_text(&ss, a, sizeof a);
    p->fd = fd;
    return 0;
}

int rb_net_port_open(rb_net_port_t *p, const char *addr, rb_err_t *err)
{
    rb_net_port_close(p);
    snprintf(p->addr, sizeof p->addr, "%s", addr);
    return s_bind(p, 0, err);
}

void rb_net_port_close(rb_net_port_t *p)
{
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
}

int rb_net_source_addr(const char *endpoint, char *out, size_t cap)
{
    char host[256];
    const char *h = strncmp(endpoint, "tcp://", 6) == 0 ? endpoint + 6 : NULL;
    snprintf(out, cap, "127.0.0.1");
    if (!h)
        return 0;    /* ipc:// and inproc://: this host */
    if (*h == '[') { /* [v6]:port */
        size_t n = strcspn(h + 1, "]");
        snprintf(host, sizeof host, "%.*s", (int)n, h + 1);
    } else {
        size_t n = strcspn(h, ":");
        snprintf(host, sizeof host, "%.*s", (int)n, h);
    }
    struct addrinfo hints = {.ai_socktype = SOCK_DGRAM}, *ai = NULL;
    if (getaddrinfo(host, "9", &hints, &ai) != 0 || !ai)
        return -EHOSTUNREACH;
    int rc = -EHOSTUNREACH;
    int fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    /* a datagram socket's connect only routes: nothing is sent */
    if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 &&
        getsockname(fd, (struct sockaddr *)&ss, &len) == 0) {
        s_addr_text(&ss, out, cap);
        rc = strcmp(out, "?") ? 0 : -EHOSTUNREACH;
    }
    if (fd >= 0)
        close(fd);
    freeaddrinfo(ai);
    return rc;
}

void rb_net_mac(const rb_net_phase_t *np, char tag, const uint8_t nonce[RB_NET_NONCE],
                const uint8_t hello[RB_NET_HELLO], uint8_t out[RB_NET_MAC])
{
    uint8_t msg[1 + RB_NET_NONCE + RB_NET_HELLO];
    unsigned len = 0;
    msg[0] = (uint8_t)tag;
    memcpy(msg + 1, nonce, RB_NET_NONCE);
    memcpy(msg + 1 + RB_NET_NONCE, hello, RB_NET_HELLO);
    if (!HMAC(EVP_sha256(), np->secret, (int)np->secret_len, msg, sizeof msg, out, &len))
        memset(out, 0, RB_NET_MAC);
}

void rb_net_stream_fail(rb_net_stream_t *st, int code, const char *fmt, ...)
{
    if (st->status)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->error, sizeof st->error, fmt, ap);
    va_end(ap);
    st->status = code ? code : -EIO;
    rb_warn("network phase: %s", st->error); /* once a stream, and only when it fails */
}

/* The host's (its network namespace's) TCP RetransSegs, /proc/net/snmp's
 * "Tcp:" line; 0 when it cannot be read. */
static uint64_t s_retrans(void)
{
    FILE *f = fopen("/proc/net/snmp", "re");
    char head[1024], vals[1024];
    uint64_t v = 0;
    while (f && fgets(head, sizeof head, f) && fgets(vals, sizeof vals, f)) {
        if (strncmp(head, "Tcp:", 4) != 0)
            continue;
        char *hs = NULL, *vs = NULL;
        char *h = strtok_r(head, " \n", &hs), *x = strtok_r(vals, " \n", &vs);
        while (h && x) {
            if (!strcmp(h, "RetransSegs")) {
                v = strtoull(x, NULL, 10);
                break;
            }
            h = strtok_r(NULL, " \n", &hs);
            x = strtok_r(NULL, " \n", &vs);
        }
        break;
    }
    if (f)
        fclose(f);
    return v;
}

/* ---- the acceptor ---- */

typedef struct s_pending {
    int fd;
    uint64_t deadline;
    uint32_t have;
    int proven; /* its proof held; it waits for the phase's links */
    uint8_t nonce[RB_NET_NONCE];
    uint8_t buf[S_HELLO_TOTAL];
    char peer[RB_NET_ADDR_MAX + 8];
} s_pending_t;

static void s_peer_name(int fd, char *out, size_t cap)
{
    struct sockaddr_storage ss = {0}; /* unknown when getpeername fails: "?" */
    socklen_t len = sizeof ss;
    char a[RB_NET_ADDR_MAX];
    (void)getpeername(fd, (struct sockaddr *)&ss, &len);
    unsigned port = s_addr_text(&ss, a, sizeof a);
    snprintf(out, cap, "%s:%u", a, port);
}

/* A connection that is not of this run: closed, counted and named. */
static void s_refuse(rb_net_phase_t *np, int fd, const char *peer, const char *why)
{
    close(fd);
    pthread_mutex_lock(&np->mu);
    uint64_t k = np->refused++;
    size_t used = strlen(np->refused_by);
    if (k < S_NAMED_MAX)
        snprintf(np->refused_by + used, sizeof np->refused_by - used, "%s%s (%s)", used ? ", " : "",
                 peer, why);
    else if (k == S_NAMED_MAX)
        snprintf(np->refused_by + used, sizeof np->refused_by - used, ", and more");
    pthread_mutex_unlock(&np->mu);
    if (k < S_NAMED_MAX)
        rb_warn("phase %s: data connection from %s refused: %s", np->spec->name, peer, why);
}

static uint32_t s_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A whole hello and proof came: 1 done (accepted or refused), 0 wait (the
 * links of the phase are not known yet). */
static int s_verify(rb_net_phase_t *np, s_pending_t *pd)
{
    const uint8_t *h = pd->buf;
    uint8_t mac[RB_NET_MAC];
    uint32_t from = s_u32(h + 8), to = s_u32(h + 12), phase = s_u32(h + 16), job = s_u32(h + 20),
             stream = s_u32(h + 24);
    if (memcmp(h, "RBNC", 4) != 0 || s_u32(h + 4) != RB_NET_VER) {
        s_refuse(np, pd->fd, pd->peer, "not a rackbench agent");
        return 1;
    }
    rb_net_mac(np, 'c', pd->nonce, h, mac);
    if (CRYPTO_memcmp(mac, h + RB_NET_HELLO, RB_NET_MAC) != 0) {
        s_refuse(np, pd->fd, pd->peer, "no proof of this run's secret");
        return 1;
    }
    if (to != np->rank || phase != np->index) {
        s_refuse(np, pd->fd, pd->peer, "an agent of this run, for another phase or node");
        return 1;
    }
    if (!__atomic_load_n(&np->links_set, __ATOMIC_ACQUIRE)) {
        /* our GO is on its way (or waits for a task here): the peer's came first */
        if (!pd->proven)
            pd->deadline = rb_time_mono_ns() + RB_NET_IDLE_NS; /* proven: it may wait */
        pd->proven = 1;
        return 0;
    }
    uint32_t n = __atomic_load_n(&np->nlinks, __ATOMIC_ACQUIRE);
    for (uint32_t l = 0; l < n; l++) {
        const rb_net_link_t *k = &np->links[l];
        if (k->out || k->job != job || k->peer != from)
            continue;
        if (stream >= np->spec->jobs[job].numjobs) {
            s_refuse(np, pd->fd, pd->peer, "a stream the job does not have");
            return 1;
        }
        rb_net_stream_t *st = &np->streams[np->first[l] + stream];
        if (__atomic_load_n(&st->fd, __ATOMIC_ACQUIRE) >= 0) {
            s_refuse(np, pd->fd, pd->peer, "a stream already taken");
            return 1;
        }
        rb_net_mac(np, 'a', pd->nonce, h, mac);
        if (send(pd->fd, mac, sizeof mac, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof mac) {
            s_refuse(np, pd->fd, pd->peer, "gone during the handshake");
            return 1;
        }
        st->t_start = st->t_last = rb_time_mono_ns();
        __atomic_store_n(&st->fd, pd->fd, __ATOMIC_RELEASE);
        return 1;
    }
    s_refuse(np, pd->fd, pd->peer, "an agent of this run with no link to this node");
    return 1;
}

static void s_accept(rb_net_phase_t *np, s_pending_t *pend, uint32_t *npend)
{
    for (;;) {
        int fd = accept4(np->port->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        char peer[RB_NET_ADDR_MAX + 8];
        s_peer_name(fd, peer, sizeof peer);
        if (*npend == S_PENDING) {
            s_refuse(np, fd, peer, "too many connections proving themselves at once");
            continue;
        }
        s_pending_t *pd = &pend[(*npend)++];
        memset(pd, 0, sizeof *pd);
        pd->fd = fd;
        pd->deadline = rb_time_mono_ns() + S_PROOF_NS;
        snprintf(pd->peer, sizeof pd->peer, "%s", peer);
        uint8_t hi[4 + RB_NET_NONCE] = {'R', 'B', 'N', 'A'};
        if (getrandom(pd->nonce, sizeof pd->nonce, 0) != (ssize_t)sizeof pd->nonce)
            for (size_t i = 0; i < sizeof pd->nonce; i++) /* cannot happen for 16 bytes */
                pd->nonce[i] = (uint8_t)(rb_time_mono_ns() >> (i % 8));
        memcpy(hi + 4, pd->nonce, RB_NET_NONCE);
        if (send(fd, hi, sizeof hi, MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof hi)
            pd->deadline = 0; /* refused below */
    }
}

static void *s_acceptor(void *arg)
{
    rb_net_phase_t *np = arg;
    s_pending_t *pend = calloc(S_PENDING, sizeof *pend);
    struct pollfd pfd[1 + S_PENDING];
    uint32_t npend = 0;
    while (pend && !__atomic_load_n(&np->stop, __ATOMIC_ACQUIRE)) {
        pfd[0] = (struct pollfd){.fd = np->port->fd, .events = POLLIN};
        for (uint32_t i = 0; i < npend; i++)
            pfd[1 + i] = (struct pollfd){.fd = pend[i].fd, .events = POLLIN};
        if (poll(pfd, 1 + npend, S_POLL_MS) < 0 && errno != EINTR)
            break;
        uint64_t now = rb_time_mono_ns();
        for (uint32_t i = 0; i < npend;) {
            s_pending_t *pd = &pend[i];
            int done = 0;
            if (pd->have < S_HELLO_TOTAL && (pfd[1 + i].revents & (POLLIN | POLLHUP | POLLERR))) {
                ssize_t n =
                    recv(pd->fd, pd->buf + pd->have, S_HELLO_TOTAL - pd->have, MSG_DONTWAIT);
                if (n > 0)
                    pd->have += (uint32_t)n;
                else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                    s_refuse(np, pd->fd, pd->peer, "closed without proving itself");
                    done = 1;
                }
            }
            if (!done && pd->have == S_HELLO_TOTAL)
                done = s_verify(np, pd);
            if (!done && now >= pd->deadline) {
                s_refuse(np, pd->fd, pd->peer,
                         pd->proven ? "an agent of this run, and this node's GO did not come"
                                    : "no proof within 2 s");
                done = 1;
            }
            if (done) {
                pend[i] = pend[--npend];
                pfd[1 + i] = pfd[1 + npend];
            } else {
                i++;
            }
        }
        if (pfd[0].revents & POLLIN)
            s_accept(np, pend, &npend);
    }
    for (uint32_t i = 0; pend && i < npend; i++)
        close(pend[i].fd);
    free(pend);
    return NULL;
}

rb_net_phase_t *rb_net_phase_new(const rb_phase_spec_t *spec, uint32_t index,
                                 const rb_job_ctx_t *ctx, rb_err_t *err)
{
    rb_net_port_t *port = ctx->net_port;
    if (!port || port->fd < 0 || ctx->net_secret_len == 0) {
        rb_err_set(err, -EPROTO,
                   "phase %s: a network phase, and the agent has no data port or "
                   "the plan no secret",
                   spec->name);
        return NULL;
    }
    rb_net_phase_t *np = calloc(1, sizeof *np);
    if (!np) {
        rb_err_set(err, -ENOMEM, "out of memory");
        return NULL;
    }
    np->spec = spec;
    np->index = index;
    np->rank = ctx->rank;
    np->port = port;
    np->secret = ctx->net_secret;
    np->secret_len = ctx->net_secret_len;
    np->retrans0 = s_retrans();
    pthread_mutex_init(&np->mu, NULL);
    int fl = fcntl(port->fd, F_GETFL);
    if (listen(port->fd, 256) < 0 || fl < 0 || fcntl(port->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
        rb_err_set(err, -errno, "phase %s: cannot listen on %s port %u: %s", spec->name, port->addr,
                   port->port, strerror(errno));
        rb_net_phase_free(&np);
        return NULL;
    }
    int rc = pthread_create(&np->thread, NULL, s_acceptor, np);
    if (rc != 0) {
        rb_err_set(err, -rc, "phase %s: cannot start the acceptor: %s", spec->name, strerror(rc));
        rb_net_phase_free(&np);
        return NULL;
    }
    np->started = 1;
    return np;
}

int rb_net_phase_links(rb_net_phase_t *np, const rb_net_link_t *links, uint32_t n, char *why,
                       size_t cap)
{
    uint64_t total = 0;
    if (n > RB_NET_LINKS_MAX) { /* none: its peers were lost before the phase; it moves nothing */
        snprintf(why, cap, "phase %s: %u links at this node, at most %u", np->spec->name, n,
                 RB_NET_LINKS_MAX);
        return -E2BIG;
    }
    for (uint32_t l = 0; l < n; l++) {
        if (links[l].job >= np->spec->njobs || !np->spec->jobs[links[l].job].network ||
            (links[l].out && (!links[l].port || !links[l].addr[0]))) {
            snprintf(why, cap, "phase %s: link %u names job %u, not a network job, or no port",
                     np->spec->name, l, links[l].job);
            return -EINVAL;
        }
        total += np->spec->jobs[links[l].job].numjobs;
    }
    if (total > RB_MAX_WORKERS) {
        snprintf(why, cap, "phase %s: %llu streams at this node, at most %d", np->spec->name,
                 (unsigned long long)total, RB_MAX_WORKERS);
        return -E2BIG;
    }
    np->links = calloc(n ? n : 1, sizeof *np->links);
    np->first = calloc(n ? n : 1, sizeof *np->first);
    np->streams = calloc(total ? total : 1, sizeof *np->streams);
    np->out = calloc(n ? n : 1, sizeof *np->out);
    if (!np->links || !np->first || !np->streams || !np->out) {
        snprintf(why, cap, "phase %s: out of memory for %u links", np->spec->name, n);
        return -ENOMEM;
    }
    if (n)
        memcpy(np->links, links, n * sizeof *links);
    for (uint32_t l = 0, k = 0; l < n; l++) {
        np->first[l] = k;
        k += np->spec->jobs[links[l].job].numjobs;
    }
    for (uint64_t i = 0; i < total; i++)
        np->streams[i].fd = -1;
    np->nstreams = (uint32_t)total;
    __atomic_store_n(&np->nlinks, n, __ATOMIC_RELEASE);
    __atomic_store_n(&np->links_set, 1, __ATOMIC_RELEASE);
    return 0;
}

void rb_net_phase_stop(rb_net_phase_t *np)
{
    if (!np || !np->started)
        return;
    __atomic_store_n(&np->stop, 1, __ATOMIC_RELEASE);
    pthread_join(np->thread, NULL);
    np->started = 0;
    /* streams handed over and never taken by a worker (it had ended) */
    for (uint32_t i = 0; i < np->nstreams; i++) {
        rb_net_stream_t *st = &np->streams[i];
        if (!st->taken && st->fd >= 0) {
            close(st->fd);
            st->fd = -1;
        }
    }
    /* no longer listening: bound anew on the same port for a later phase */
    rb_err_t err;
    uint32_t port = np->port->port;
    rb_net_port_close(np->port);
    if (s_bind(np->port, port, &err) < 0)
        rb_warn("%s", err.msg);
}

void rb_net_phase_collect(rb_net_phase_t *np, rb_msg_done_t *d)
{
    uint32_t n = __atomic_load_n(&np->nlinks, __ATOMIC_ACQUIRE);
    for (uint32_t l = 0; l < n; l++) {
        const rb_net_link_t *k = &np->links[l];
        rb_link_stat_t *o = &np->out[l];
        memset(o, 0, sizeof *o);
        o->job = k->job;
        o->peer = k->peer;
        o->out = k->out;
        uint32_t ns = np->spec->jobs[k->job].numjobs;
        for (uint32_t s = 0; s < ns; s++) {
            const rb_net_stream_t *st = &np->streams[np->first[l] + s];
            if (st->t_start) {
                o->streams++;
                if (!o->t_start_ns || st->t_start < o->t_start_ns)
                    o->t_start_ns = st->t_start;
            }
            if (st->t_end > o->t_end_ns)
                o->t_end_ns = st->t_end;
            o->bytes += st->bytes;
            o->ops += st->ops;
            if (st->status && !o->status) {
                o->status = st->status;
                snprintf(o->error, sizeof o->error, "%s", st->error);
            }
        }
    }
    d->nlinks = n;
    d->links = n ? np->out : NULL;
    uint64_t rt = s_retrans();
    d->net_retrans = rt > np->retrans0 ? rt - np->retrans0 : 0;
    pthread_mutex_lock(&np->mu);
    d->net_refused = np->refused;
    snprintf(d->net_refused_by, sizeof d->net_refused_by, "%s", np->refused_by);
    pthread_mutex_unlock(&np->mu);
}

void rb_net_phase_free(rb_net_phase_t **p)
{
    rb_net_phase_t *np = *p;
    if (!np)
        return;
    rb_net_phase_stop(np); /* closes the streams no worker took */
    pthread_mutex_destroy(&np->mu);
    free(np->links);
    free(np->first);
    free(np->streams);
    free(np->out);
    free(np);
    *p = NULL;
}
