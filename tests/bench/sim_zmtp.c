/* ZMTP 3.0 (NULL mechanism), a DEALER's side: see sim_zmtp.h. */
#include "sim_zmtp.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define S_GREETING   64 /* signature, version, mechanism, as-server, filler */
#define S_FLAG_MORE  0x01
#define S_FLAG_LONG  0x02             /* an 8-byte size, not 1 */
#define S_FLAG_CMD   0x04             /* a command (READY, ...), not a message part */
#define S_MSG_MAX    (64u << 20)      /* a longer frame is not ZMTP from a coordinator */
#define S_IN_FIRST   4096             /* a read buffer's first size */
#define S_CONNECT_NS (10000000000ull) /* connect tries this long while nothing listens */
#define S_RETRY_NS   (50 * 1000000l)

/* room for more bytes after what is queued to write */
static int s_out_room(sim_zmtp_t *z, size_t more)
{
    if (z->out_off == z->out_len)
        z->out_off = z->out_len = 0;
    if (z->out_len + more <= z->out_cap)
        return 0;
    size_t cap = z->out_cap ? z->out_cap : S_IN_FIRST;
    while (cap < z->out_len + more)
        cap *= 2;
    uint8_t *p = realloc(z->out, cap);
    if (!p)
        return -ENOMEM;
    z->out = p;
    z->out_cap = cap;
    return 0;
}

static int s_queue(sim_zmtp_t *z, const void *buf, size_t len)
{
    if (s_out_room(z, len) < 0)
        return -ENOMEM;
    memcpy(z->out + z->out_len, buf, len);
    z->out_len += len;
    return 0;
}

/* A frame's header: flags and size (1 byte, or 8 big-endian). Its length. */
static size_t s_header(uint8_t *h, uint8_t flags, size_t len)
{
    if (len <= 255) {
        h[0] = flags;
        h[1] = (uint8_t)len;
        return 2;
    }
    h[0] = flags | S_FLAG_LONG;
    for (int i = 0; i < 8; i++)
        h[1 + i] = (uint8_t)((uint64_t)len >> (56 - 8 * i));
    return 9;
}

/* READY's property: a 1-byte name length, the name, a 4-byte value
 * length, the value. */
static size_t s_property(uint8_t *p, const char *name, const char *value)
{
    size_t nl = strlen(name), vl = strlen(value);
    p[0] = (uint8_t)nl;
    memcpy(p + 1, name, nl);
    for (int i = 0; i < 4; i++)
        p[1 + nl + i] = (uint8_t)(vl >> (24 - 8 * i));
    memcpy(p + 5 + nl, value, vl);
    return 5 + nl + vl;
}

static int s_handshake(sim_zmtp_t *z, const char *routing_id)
{
    uint8_t g[S_GREETING] = {0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f, 3, 0};
    memcpy(g + 12, "NULL", 4); /* the mechanism, zero-padded to 20 bytes; then as-server 0 */
    if (strlen(routing_id) > 255)
        return -ENAMETOOLONG;
    uint8_t body[512], h[9];
    size_t b = 0;
    body[b++] = 5;
    memcpy(body + b, "READY", 5);
    b += 5;
    b += s_property(body + b, "Socket-Type", "DEALER");
    b += s_property(body + b, "Identity", routing_id);
    size_t hl = s_header(h, S_FLAG_CMD, b);
    if (s_queue(z, g, sizeof g) < 0 || s_queue(z, h, hl) < 0 || s_queue(z, body, b) < 0)
        return -ENOMEM;
    z->hs_left = z->out_len;
    return 0;
}

/* ep as a socket address: "ipc://PATH" ('@': the abstract namespace) or
 * "tcp://HOST:PORT" ("[V6]:PORT"). */
static int s_address(const char *ep, struct sockaddr_storage *sa, socklen_t *sl)
{
    memset(sa, 0, sizeof *sa);
    if (strncmp(ep, "ipc://", 6) == 0) {
        struct sockaddr_un *u = (struct sockaddr_un *)sa;
        const char *p = ep + 6;
        size_t pl = strlen(p);
        if (pl == 0 || pl >= sizeof u->sun_path)
            return -ENAMETOOLONG;
        u->sun_family = AF_UNIX;
        memcpy(u->sun_path, p, pl);
        if (p[0] == '@')
            u->sun_path[0] = '\0';
        *sl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + pl + (p[0] == '@' ? 0 : 1));
        return 0;
    }
    if (strncmp(ep, "tcp://", 6) != 0)
        return -EPROTONOSUPPORT;
    const char *h = ep + 6, *colon = strrchr(h, ':');
    if (!colon)
        return -EINVAL;
    char host[256];
    size_t hl = (size_t)(colon - h);
    if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']')
        h++, hl -= 2;
    if (hl >= sizeof host)
        return -ENAMETOOLONG;
    memcpy(host, h, hl);
    host[hl] = '\0';
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
    if (getaddrinfo(host, colon + 1, &hints, &res) != 0 || !res)
        return -EHOSTUNREACH;
    memcpy(sa, res->ai_addr, res->ai_addrlen);
    *sl = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

int sim_zmtp_connect(sim_zmtp_t *z, const char *ep, const char *routing_id)
{
    memset(z, 0, sizeof *z);
    z->fd = -1;
    struct sockaddr_storage sa;
    socklen_t sl = 0;
    int rc = s_address(ep, &sa, &sl);
    if (rc < 0)
        return rc;
    /* blocking: a listener's full backlog makes a non-blocking ipc
     * connect fail at once, not wait */
    for (uint64_t waited = 0;; waited += S_RETRY_NS) {
        int fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return -errno;
        if (connect(fd, (struct sockaddr *)&sa, sl) == 0) {
            z->fd = fd;
            break;
        }
        int e = errno;
        close(fd);
        if ((e != ECONNREFUSED && e != ENOENT && e != EAGAIN) || waited >= S_CONNECT_NS)
            return -e;
        struct timespec ts = {0, S_RETRY_NS};
        nanosleep(&ts, NULL);
    }
    int one = 1;
    if (sa.ss_family != AF_UNIX)
        setsockopt(z->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (fcntl(z->fd, F_SETFL, fcntl(z->fd, F_GETFL) | O_NONBLOCK) < 0 ||
        (rc = s_handshake(z, routing_id)) < 0) {
        rc = rc < 0 ? rc : -errno;
        sim_zmtp_close(z);
        return rc;
    }
    rc = sim_zmtp_flush(z);
    return rc < 0 ? rc : 0;
}

int sim_zmtp_flush(sim_zmtp_t *z)
{
    while (z->out_off < z->out_len) {
        size_t n = z->out_len - z->out_off;
        if (!z->ready && n > z->hs_left)
            n = z->hs_left;
        if (!n)
            return 0; /* the rest waits for the peer's READY */
        ssize_t w = send(z->fd, z->out + z->out_off, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
        z->out_off += (size_t)w;
        z->hs_left -= (size_t)w < z->hs_left ? (size_t)w : z->hs_left;
    }
    z->out_off = z->out_len = 0;
    return 1;
}

int sim_zmtp_send(sim_zmtp_t *z, const void *buf, size_t len)
{
    if (z->fd < 0)
        return -EPIPE;
    uint8_t h[9];
    size_t hl = s_header(h, 0, len);
    if (z->out_off < z->out_len || !z->ready) { /* behind what waits */
        if (s_queue(z, h, hl) < 0 || s_queue(z, buf, len) < 0)
            return -ENOMEM;
        return sim_zmtp_flush(z);
    }
    /* nothing waits: header and message in one call, no copy */
    struct iovec iov[2] = {{h, hl}, {(void *)buf, len}};
    struct msghdr mh = {.msg_iov = iov, .msg_iovlen = 2};
    ssize_t w;
    do
        w = sendmsg(z->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
    while (w < 0 && errno == EINTR);
    if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
        return -errno;
    size_t done = w < 0 ? 0 : (size_t)w;
    if (done == hl + len)
        return 1;
    if ((done < hl && s_queue(z, h + done, hl - done) < 0) ||
        s_queue(z, (const uint8_t *)buf + (done > hl ? done - hl : 0),
                len - (done > hl ? done - hl : 0)) < 0)
        return -ENOMEM;
    return 0;
}

int sim_zmtp_read(sim_zmtp_t *z)
{
    if (z->fd < 0)
        return -1;
    if (z->in_off) { /* what was taken goes */
        memmove(z->in, z->in + z->in_off, z->in_len - z->in_off);
        z->in_len -= z->in_off;
        z->in_off = 0;
    }
    for (;;) {
        if (z->in_cap - z->in_len < S_IN_FIRST / 2) {
            size_t cap = z->in_cap ? z->in_cap * 2 : S_IN_FIRST;
            uint8_t *p = realloc(z->in, cap);
            if (!p)
                return -1;
            z->in = p;
            z->in_cap = cap;
        }
        ssize_t r = recv(z->fd, z->in + z->in_len, z->in_cap - z->in_len, MSG_DONTWAIT);
        if (r > 0) {
            z->in_len += (size_t)r;
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        return r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    }
}

int sim_zmtp_next(sim_zmtp_t *z, const uint8_t **msg, size_t *len)
{
    if (!z->greeted) {
        const uint8_t *g = z->in + z->in_off;
        if (z->in_len - z->in_off < S_GREETING)
            return 0;
        if (g[0] != 0xff || g[9] != 0x7f || g[10] < 3 || memcmp(g + 12, "NULL", 5) != 0)
            return -1;
        z->in_off += S_GREETING;
        z->greeted = 1;
    }
    for (;;) {
        const uint8_t *p = z->in + z->in_off;
        size_t avail = z->in_len - z->in_off, hl = 2, sz;
        if (avail < 2)
            return 0;
        if (p[0] & ~(S_FLAG_MORE | S_FLAG_LONG | S_FLAG_CMD))
            return -1;
        if (p[0] & S_FLAG_LONG) {
            if (avail < 9)
                return 0;
            uint64_t v = 0;
            for (int i = 0; i < 8; i++)
                v = v << 8 | p[1 + i];
            if (v > S_MSG_MAX)
                return -1;
            sz = (size_t)v;
            hl = 9;
        } else {
            sz = p[1];
        }
        if (avail - hl < sz)
            return 0;
        z->in_off += hl + sz;
        if ((p[0] & S_FLAG_CMD) && !z->ready && sz >= 6 && memcmp(p + hl, "\5READY", 6) == 0) {
            z->ready = 1;
            if (sim_zmtp_flush(z) < 0)
                return -1;
        }
        if (p[0] & S_FLAG_CMD)
            continue; /* its READY; a later peer's PING */
        *msg = p + hl;
        *len = sz;
        return 1;
    }
}

void sim_zmtp_close(sim_zmtp_t *z)
{
    if (z->fd >= 0)
        close(z->fd);
    free(z->in);
    free(z->out);
    memset(z, 0, sizeof *z);
    z->fd = -1;
}
