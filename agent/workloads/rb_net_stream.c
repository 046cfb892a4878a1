/* The network workload (rb_net.h): worker k of a job with network= serves
 * stream k of each of the job's links at this agent. It opens the streams
 * of the links this agent sends on (connect, then the handshake), takes
 * those the acceptor let in, and moves bs-byte messages on all of them
 * with poll, non-blocking: sent bytes count as its writes, received bytes
 * as its reads. With pingpong each round trip of bs bytes is one write
 * whose latency is the round trip, and the taking end echoes what comes. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "rb_net_int.h"
#include "rb_time.h"

/* to connect to a peer's data port (then RB_NET_IDLE_NS to prove it) */
#define S_CONNECT_NS   (5ull * 1000 * 1000 * 1000)
#define S_POLL_MS      20
#define S_SENDS_A_TURN 8 /* sends on one stream for one poll, at most */

/* One stream this worker serves. */
typedef struct s_mine {
    rb_net_stream_t *st;
    const rb_net_link_t *link;
    int waiting; /* pingpong, sending end: the message went, its echo is awaited */
} s_mine_t;

static void s_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Round trips go out as they are written, not held back for more (pingpong). */
static void s_nodelay(const rb_job_spec_t *js, int fd)
{
    int one = 1;
    if (js->pingpong)
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* 1 once a stream of a job without time_based has sent its size. */
static int s_sent_all(const rb_job_spec_t *js, const rb_net_stream_t *st)
{
    return !js->time_based && js->size && st->bytes >= js->size;
}

/* Moves len bytes of buf on fd (sending or receiving) by deadline. 0 or -errno. */
static int s_all(int fd, void *buf, size_t len, int sending, uint64_t deadline)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = sending
                        ? send(fd, (uint8_t *)buf + done, len - done, MSG_NOSIGNAL | MSG_DONTWAIT)
                        : recv(fd, (uint8_t *)buf + done, len - done, MSG_DONTWAIT);
        if (n > 0) {
            done += (size_t)n;
            continue;
        }
        if (n == 0)
            return -ECONNRESET;
        if (errno != EAGAIN && errno != EINTR)
            return -errno;
        uint64_t now = rb_time_mono_ns();
        if (now >= deadline)
            return -ETIMEDOUT;
        struct pollfd p = {.fd = fd, .events = sending ? POLLOUT : POLLIN};
        uint64_t ms = (deadline - now) / RB_NS_PER_MS + 1;
        (void)poll(&p, 1, ms > 100 ? 100 : (int)ms);
    }
    return 0;
}

/* Opens the stream of link l this worker sends on and proves it is of the
 * run; the stream is the worker's, or failed. */
static void s_open(rb_worker_t *w, s_mine_t *m)
{
    rb_net_phase_t *np = w->net;
    const rb_net_link_t *k = m->link;
    rb_net_stream_t *st = m->st;
    uint64_t deadline = rb_time_mono_ns() + S_CONNECT_NS;
    struct sockaddr_storage ss;
    socklen_t len;
    if (rb_net_parse_addr(k->addr, k->port, &ss, &len) < 0) {
        rb_net_stream_fail(st, -EINVAL, "node %u's address '%s' is not an IP address", k->peer,
                           k->addr);
        st->over = 1;
        return;
    }
    int fd = -1, rc = -ETIMEDOUT;
    while (!rb_worker_stopped(w) && rb_time_mono_ns() < deadline) {
        fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0) {
            rc = -errno;
            break;
        }
        rc = connect(fd, (struct sockaddr *)&ss, len) == 0 ? 0 : -errno;
        if (rc == -EINPROGRESS) {
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            int e = 0;
            socklen_t el = sizeof e;
            rc = poll(&p, 1, 1000) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0
                     ? -e
                     : -ETIMEDOUT;
        }
        if (rc == 0)
            break;
        close(fd);
        fd = -1;
        if (rc != -ECONNREFUSED && rc != -ETIMEDOUT)
            break;
        rb_time_sleep_until_ns(rb_time_mono_ns() + 100 * RB_NS_PER_MS);
    }
    uint8_t hi[4 + RB_NET_NONCE], hello[RB_NET_HELLO + RB_NET_MAC], mac[RB_NET_MAC];
    /* connected: the peer answers once its GO is in (it waits that long for it) */
    deadline = rb_time_mono_ns() + RB_NET_IDLE_NS;
    if (rc == 0)
        rc = s_all(fd, hi, sizeof hi, 0, deadline);
    if (rc == 0 && memcmp(hi, "RBNA", 4) != 0)
        rc = -EPROTO;
    if (rc == 0) {
        memcpy(hello, "RBNC", 4);
        s_put32(hello + 4, RB_NET_VER);
        s_put32(hello + 8, np->rank);
        s_put32(hello + 12, k->peer);
        s_put32(hello + 16, np->index);
        s_put32(hello + 20, k->job);
        s_put32(hello + 24, w->index);
        s_put32(hello + 28, w->spec->pingpong);
        if (getrandom(hello + 32, RB_NET_NONCE, 0) != RB_NET_NONCE)
            memset(hello + 32, 0x5a, RB_NET_NONCE);
        rb_net_mac(np, 'c', hi + 4, hello, hello + RB_NET_HELLO);
        rc = s_all(fd, hello, sizeof hello, 1, deadline);
    }
    if (rc == 0)
        rc = s_all(fd, mac, sizeof mac, 0, deadline);
    if (rc == 0) {
        uint8_t want[RB_NET_MAC];
        rb_net_mac(np, 'a', hi + 4, hello, want);
        if (CRYPTO_memcmp(want, mac, sizeof mac) != 0)
            rc = -EACCES;
    }
    if (rc < 0) {
        if (fd >= 0)
            close(fd);
        rb_net_stream_fail(st, rc, "stream %u to node %u at %s port %u: %s", w->index, k->peer,
                           k->addr, k->port,
                           rc == -EACCES   ? "it did not prove this run's secret"
                           : rc == -EPROTO ? "not a rackbench agent's data port"
                                           : strerror(-rc));
        st->over = 1;
        return;
    }
    s_nodelay(w->spec, fd);
    st->fd = fd;
    st->taken = 1;
    st->t_start = st->t_last = st->t_msg = rb_time_mono_ns();
}

/* Counts n bytes moved on stream st (RB_DIR_WRITE sent, RB_DIR_READ received). */
static void s_count(rb_worker_t *w, rb_net_stream_t *st, int dir, uint64_t n, uint64_t now)
{
    uint64_t bs = w->spec->bs;
    st->bytes += n;
    st->partial += n;
    st->t_end = st->t_last = now;
    uint64_t msgs = st->partial / bs; /* a 256 KiB read of 64-byte messages is 4096 */
    st->partial %= bs;
    st->ops += msgs;
    if (dir == RB_DIR_WRITE) {
        RB_WORKER_ADD(&w->wbytes, n);
        RB_WORKER_ADD(&w->wops, msgs);
    } else {
        RB_WORKER_ADD(&w->rbytes, n);
        RB_WORKER_ADD(&w->rops, msgs);
    }
    w->t_end = now;
    if (now - w->last_cp >= w->cp_step)
        rb_worker_checkpoint(w, now, rb_worker_bytes(w));
}

static void s_end(rb_net_stream_t *st, int shut)
{
    if (shut && st->fd >= 0)
        (void)shutdown(st->fd, SHUT_WR);
    st->over = 1;
}

/* The sending end of a stream, after poll said events ev. */
static void s_send(rb_worker_t *w, s_mine_t *m, short ev, int go_on, uint64_t now)
{
    rb_net_stream_t *st = m->st;
    const rb_job_spec_t *s = w->spec;
    uint64_t bs = s->bs;
    if (s->pingpong && m->waiting) {
        if (!(ev & (POLLIN | POLLHUP | POLLERR)))
            return;
        uint8_t *rbuf = (uint8_t *)w->bufs + bs;
        ssize_t n = recv(st->fd, rbuf, bs - st->partial, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            rb_net_stream_fail(st, n ? -errno : -ECONNRESET, "node %u closed the round trip",
                               m->link->peer);
            s_end(st, 0);
            return;
        }
        if (n < 0)
            return;
        st->partial += (uint64_t)n;
        st->t_last = now;
        if (st->partial < bs)
            return;
        st->partial = 0;
        st->bytes += bs;
        st->ops++;
        st->t_end = now;
        m->waiting = 0;
        rb_worker_count(w, RB_DIR_WRITE, bs, now - st->t_msg, RB_WORKER_NO_SLAT, now);
        st->t_msg = now;
        if (!go_on || s_sent_all(s, st))
            s_end(st, 1);
        return;
    }
    if (!go_on || s_sent_all(s, st)) {
        s_end(st, 1);
        return;
    }
    if (ev & (POLLERR | POLLHUP)) {
        rb_net_stream_fail(st, -ECONNRESET, "node %u closed the stream", m->link->peer);
        s_end(st, 0);
        return;
    }
    if (!(ev & POLLOUT))
        return;
    /* as many messages as the socket takes (a few at most: the others wait
     * their turn), one poll for several sends */
    for (int k = 0; k < S_SENDS_A_TURN; k++) {
        uint64_t off = st->partial, want = bs - off;
        if (s->pingpong && !off)
            st->t_msg = now; /* the round trip begins */
        if (!s->time_based && s->size && s->size - st->bytes < want)
            want = s->size - st->bytes;
        ssize_t n = send(st->fd, (uint8_t *)w->bufs + off, want, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0) {
            if (errno != EAGAIN && errno != EINTR) {
                rb_net_stream_fail(st, -errno, "stream %u to node %u: %s", w->index, m->link->peer,
                                   strerror(errno));
                s_end(st, 0);
            }
            return;
        }
        if (s->pingpong) {
            st->partial += (uint64_t)n;
            st->t_last = now;
            if (st->partial >= bs) {
                st->partial = 0;
                m->waiting = 1;
            }
            return;
        }
        s_count(w, st, RB_DIR_WRITE, (uint64_t)n, now);
        if ((uint64_t)n < want || s_sent_all(s, st))
            return; /* the socket is full, or the stream's bytes are sent */
    }
}

/* The taking end of a stream, after poll said events ev. */
static void s_recv(rb_worker_t *w, s_mine_t *m, short ev, uint64_t now)
{
    rb_net_stream_t *st = m->st;
    if (!(ev & (POLLIN | POLLHUP | POLLERR)))
        return;
    uint8_t *rbuf = (uint8_t *)w->bufs + w->spec->bs;
    size_t cap = w->bufs_len - w->spec->bs;
    for (int rounds = 0; rounds < S_SENDS_A_TURN; rounds++) {
        ssize_t n = recv(st->fd, rbuf, cap, MSG_DONTWAIT);
        if (n == 0) {
            s_end(st, 0);
            return;
        }
        if (n < 0) {
            if (errno != EAGAIN && errno != EINTR) {
                rb_net_stream_fail(st, -errno, "stream %u from node %u: %s", w->index,
                                   m->link->peer, strerror(errno));
                s_end(st, 0);
            }
            return;
        }
        s_count(w, st, RB_DIR_READ, (uint64_t)n, now);
        if (w->spec->pingpong) {
            int rc = s_all(st->fd, rbuf, (size_t)n, 1, now + RB_NET_IDLE_NS);
            if (rc < 0) {
                rb_net_stream_fail(st, rc, "stream %u from node %u: the echo: %s", w->index,
                                   m->link->peer, strerror(-rc));
                s_end(st, 0);
            }
            return;
        }
        if ((size_t)n < cap)
            return;
    }
}

static void s_run(rb_worker_t *w)
{
    rb_net_phase_t *np = w->net;
    uint32_t nl = np ? __atomic_load_n(&np->nlinks, __ATOMIC_ACQUIRE) : 0, nm = 0;
    s_mine_t *mine = calloc(nl ? nl : 1, sizeof *mine);
    struct pollfd *pfd = calloc(nl ? nl : 1, sizeof *pfd);
    uint32_t *at = calloc(nl ? nl : 1, sizeof *at);
    if (!mine || !pfd || !at) {
        rb_worker_fail(w, -ENOMEM, NULL, 0, "job %s: out of memory for %u links", w->spec->name,
                       nl);
        goto out;
    }
    for (uint32_t l = 0; l < nl; l++)
        if (np->links[l].job == w->job)
            mine[nm++] = (s_mine_t){&np->streams[np->first[l] + w->index], &np->links[l], 0};
    for (uint32_t i = 0; i < nm; i++)
        if (mine[i].link->out)
            s_open(w, &mine[i]);
    /* the streams this worker takes: waited for until RB_NET_IDLE_NS past its time */
    uint64_t wait_in = (w->deadline != UINT64_MAX ? w->deadline : w->t_go) + RB_NET_IDLE_NS;
    for (;;) {
        uint64_t now = rb_time_mono_ns();
        int go_on = now < w->deadline && !rb_worker_stopped(w);
        uint32_t np_ = 0, open = 0;
        for (uint32_t i = 0; i < nm; i++) {
            s_mine_t *m = &mine[i];
            rb_net_stream_t *st = m->st;
            if (st->over)
                continue;
            if (!st->taken) { /* a stream the acceptor hands over */
                int fd = __atomic_load_n(&st->fd, __ATOMIC_ACQUIRE);
                if (fd >= 0) {
                    st->taken = 1;
                    s_nodelay(w->spec, fd);
                } else if (rb_worker_stopped(w) || now > wait_in) {
                    /* a sender that starts late still streams into its
                     * window: its stream is waited for past this worker's
                     * own end, and read to its end */
                    if (!rb_worker_stopped(w))
                        rb_net_stream_fail(st, -ETIMEDOUT,
                                           "stream %u from node %u never came (%llu s after the "
                                           "phase's time)",
                                           w->index, m->link->peer,
                                           (unsigned long long)(RB_NET_IDLE_NS / RB_NS_PER_S));
                    st->over = 1;
                    continue;
                } else {
                    open++;
                    continue;
                }
            }
            if (now - st->t_last > RB_NET_IDLE_NS) {
                rb_net_stream_fail(st, -ETIMEDOUT, "stream %u %s node %u: nothing moved for %llu s",
                                   w->index, m->link->out ? "to" : "from", m->link->peer,
                                   (unsigned long long)(RB_NET_IDLE_NS / RB_NS_PER_S));
                s_end(st, 0);
                continue;
            }
            open++;
            short ev = POLLIN;
            if (m->link->out && !(w->spec->pingpong && m->waiting))
                ev = go_on ? POLLOUT : 0;
            if (m->link->out && ev == 0) { /* time is up: the stream ends */
                s_end(st, 1);
                continue;
            }
            pfd[np_] = (struct pollfd){.fd = st->fd, .events = ev};
            at[np_++] = i;
        }
        if (!open)
            break;
        if (poll(pfd, np_, S_POLL_MS) < 0 && errno != EINTR)
            break;
        now = rb_time_mono_ns();
        go_on = now < w->deadline && !rb_worker_stopped(w);
        for (uint32_t k = 0; k < np_; k++) {
            s_mine_t *m = &mine[at[k]];
            if (m->link->out)
                s_send(w, m, pfd[k].revents, go_on, now);
            else
                s_recv(w, m, pfd[k].revents, now);
        }
    }
out:
    free(mine);
    free(pfd);
    free(at);
}

static int s_setup(rb_worker_t *w, rb_sandbox_t *sb, int rundir, const rb_job_ctx_t *ctx,
                   uint64_t seed, rb_err_t *err)
{
    (void)sb, (void)rundir, (void)ctx;
    uint64_t bs = w->spec->bs;
    if (!bs || bs > RB_NET_MSG_MAX)
        return rb_err_set(err, -EINVAL, "job %s: bs=%llu: a message of 1 byte .. 16 MiB",
                          w->spec->name, (unsigned long long)bs);
    w->bufs_len = rb_net_buf_bytes(bs);
    w->bufs = rb_worker_aligned(w->bufs_len);
    if (!w->bufs)
        return rb_err_set(err, -ENOMEM, "job %s: out of memory for %llu-byte messages",
                          w->spec->name, (unsigned long long)bs);
    rb_rand_seed(&w->bufs_rng, seed);
    return 0;
}

static void s_warm(rb_worker_t *w)
{
    uint64_t *p = w->bufs;
    for (uint64_t i = 0; i < w->spec->bs / 8; i++)
        p[i] = rb_rand_next(&w->bufs_rng);
}

static void s_fini(rb_worker_t *w)
{
    rb_net_phase_t *np = w->net;
    uint32_t nl = np ? __atomic_load_n(&np->nlinks, __ATOMIC_ACQUIRE) : 0;
    for (uint32_t l = 0; l < nl; l++) {
        if (np->links[l].job != w->job)
            continue;
        rb_net_stream_t *st = &np->streams[np->first[l] + w->index];
        if (st->taken && st->fd >= 0) {
            close(st->fd);
            st->fd = -1;
        }
    }
}

const rb_workload_ops_t rb_net_workload = {
    .name = "network",
    .setup = s_setup,
    .warm = s_warm,
    .run = s_run,
    .fini = s_fini,
};
