/* --metrics: Prometheus's text format at /metrics and the live report at /,
 * served by libmicrohttpd from a thread of this file's. The run loop never
 * waits on a client: it swaps in a new text under the mutex; an answer
 * copies the current text under the same mutex, so a slow reader holds
 * nothing.
 *
 * Slow or idle clients cannot starve a scrape. The thread runs
 * libmicrohttpd's loop itself, so that between its rounds it may look after
 * the connections (a socket is only touched here, and only closed by the
 * library, on this thread). A connection that has not sent a whole request
 * S_WAIT_NS after it opened (or after its last answer) is shut down however
 * steadily it trickles, and one that takes more than S_ANSWER_NS over an
 * answer; one address holds at most S_PER_CLIENT connections (its oldest
 * one waiting for a request makes room for a new one); and S_SPARE places
 * are kept free for a scrape by shutting down the oldest connections that
 * wait for a request.
 *
 * Once the run has ended, /metrics holds the final text
 * (rb_httpd_set_final): the addresses that scraped it before are each
 * waited for until one of their scrapes of the final text has been sent
 * whole (rb_httpd_settled), so that every scraper of the run reads the
 * last counters. */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "rb_httpd.h"
#include "rb_log.h"
#include "rb_time.h"

#define S_LIMIT      64u                   /* connections at once */
#define S_SPARE      8u                    /* of them kept free for a scrape */
#define S_PER_CLIENT 16u                   /* connections one address may hold */
#define S_WAIT_NS    (3ull * RB_NS_PER_S)  /* to send a whole request */
#define S_ANSWER_NS  (30ull * RB_NS_PER_S) /* to take an answer */
#define S_IDLE_S     10u                   /* libmicrohttpd's: a client that stops reading */
#define S_TICK_MS    100                   /* the loop's longest wait, and stop's */
#define S_SCRAPERS   16u                   /* scrapers' addresses waited for at the end */

/* One open connection, as the server thread sees it. */
typedef struct s_conn {
    struct MHD_Connection *c;     /* NULL: a free place */
    int fd;                       /* its socket (libmicrohttpd's) */
    struct sockaddr_storage addr; /* the client's address */
    uint64_t since;               /* when its wait for a request, or its answer, began */
    int busy;                     /* a request is being answered */
    int cut;                      /* shut down: libmicrohttpd closes it on its next round */
} s_conn_t;

struct rb_httpd {
    struct MHD_Daemon *d; /* the server, run by thread */
    pthread_t thread;     /* the server's loop (s_serve) */
    atomic_int stop;      /* set by rb_httpd_destroy */
    pthread_mutex_t lock; /* guards text and len */
    char *text[2];        /* the documents (owned), NULL until set */
    size_t len[2];
    uint16_t port;           /* where it listens */
    s_conn_t conns[S_LIMIT]; /* the open connections: the server thread's only */
    atomic_ulong cuts;       /* connections shut down for being slow, idle or too many */
    /* the scrapers of /metrics, under lock: each address that read it (the
     * first S_SCRAPERS), and whether it has read the final text whole */
    struct sockaddr_storage scraper[S_SCRAPERS];
    int scraped_final[S_SCRAPERS];
    unsigned nscrapers;
    int final;  /* /metrics holds the final text (rb_httpd_set_final) */
    int nfinal; /* answers of the final text sent whole */
};

/* What a request answered with the final /metrics holds, for s_completed. */
static char s_final_answer;

static const char *const s_types[2] = {"text/plain; version=0.0.4; charset=utf-8",
                                       "text/html; charset=utf-8"};

static int s_port(const char *s, uint16_t *out)
{
    char *end;
    if (!*s || *s == '-' || *s == '+')
        return -1;
    unsigned long v = strtoul(s, &end, 10);
    if (*end || v > 65535)
        return -1;
    *out = (uint16_t)v;
    return 0;
}

int rb_httpd_parse_addr(const char *text, struct sockaddr_storage *addr, int *loopback,
                        rb_err_t *err)
{
    char host[128] = "";
    const char *port = text;
    memset(addr, 0, sizeof *addr);
    if (text[0] == '[') {
        const char *close = strchr(text, ']');
        if (close && close[1] == ':' && (size_t)(close - text - 1) < sizeof host) {
            snprintf(host, sizeof host, "%.*s", (int)(close - text - 1), text + 1);
            port = close + 2;
        } else
            port = NULL;
    } else if (strchr(text, ':')) {
        const char *colon = strrchr(text, ':');
        if ((size_t)(colon - text) >= sizeof host || strchr(text, ':') != colon)
            port = NULL;
        else {
            snprintf(host, sizeof host, "%.*s", (int)(colon - text), text);
            port = colon + 1;
        }
    }
    uint16_t p = 0;
    if (!port || s_port(port, &p) < 0)
        return rb_err_set(err, -EINVAL,
                          "--metrics %s: expected PORT, :PORT, HOST:PORT or [IPV6]:PORT (a port "
                          "from 0 to 65535)",
                          text);
    struct sockaddr_in *v4 = (struct sockaddr_in *)addr;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)addr;
    if (!host[0] || !strcmp(host, "localhost"))
        snprintf(host, sizeof host, "127.0.0.1");
    if (!strcmp(host, "*"))
        snprintf(host, sizeof host, "0.0.0.0");
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(p);
        *loopback = (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(p);
        *loopback = IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
    } else {
        return rb_err_set(err, -EINVAL,
                          "--metrics %s: '%s' is not an IP address (nor localhost or *)", text,
                          host);
    }
    return 0;
}

/* ---- the connections, on the server thread only ---- */

/* Whether a and addr are one client (its IP address; the port aside). */
static int s_same_client(const struct sockaddr_storage *a, const struct sockaddr *addr)
{
    if (a->ss_family != addr->sa_family)
        return 0;
    if (addr->sa_family == AF_INET)
        return !memcmp(&((const struct sockaddr_in *)a)->sin_addr,
                       &((const struct sockaddr_in *)addr)->sin_addr, sizeof(struct in_addr));
    if (addr->sa_family == AF_INET6)
        return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                       &((const struct sockaddr_in6 *)addr)->sin6_addr, sizeof(struct in6_addr));
    return 0;
}

/* Shuts e's socket down: libmicrohttpd reads its end on its next round and
 * closes it (the descriptor stays the library's to close). */
static void s_cut(rb_httpd_t *h, s_conn_t *e)
{
    shutdown(e->fd, SHUT_RDWR);
    e->cut = 1;
    if (atomic_fetch_add(&h->cuts, 1) == 0)
        rb_debug("--metrics: shut down a connection that was slow, idle or one too many; "
                 "further ones are counted");
}

/* Connections not shut down, of the client at addr (NULL: of all); with
 * *oldest the one of them waiting longest for a request (NULL: none waits). */
static unsigned s_open(rb_httpd_t *h, const struct sockaddr *addr, s_conn_t **oldest)
{
    unsigned n = 0;
    *oldest = NULL;
    for (unsigned i = 0; i < S_LIMIT; i++) {
        s_conn_t *e = &h->conns[i];
        if (!e->c || e->cut || (addr && !s_same_client(&e->addr, addr)))
            continue;
        n++;
        if (!e->busy && (!*oldest || e->since < (*oldest)->since))
            *oldest = e;
    }
    return n;
}

/* Before a connection is taken: room for it among its client's and all.
 * MHD_NO refuses it (its client holds S_PER_CLIENT, each one answered). */
static enum MHD_Result s_admit(void *cls, const struct sockaddr *addr, socklen_t len)
{
    (void)len;
    rb_httpd_t *h = cls;
    s_conn_t *oldest;
    if (s_open(h, addr, &oldest) >= S_PER_CLIENT) {
        if (!oldest)
            return MHD_NO;
        s_cut(h, oldest);
    }
    if (s_open(h, NULL, &oldest) >= S_LIMIT - S_SPARE && oldest)
        s_cut(h, oldest);
    return MHD_YES;
}

/* A connection opened or closed: its place in h->conns taken or freed. */
static void s_notify(void *cls, struct MHD_Connection *c, void **ctx,
                     enum MHD_ConnectionNotificationCode what)
{
    rb_httpd_t *h = cls;
    s_conn_t *e = *ctx;
    if (what == MHD_CONNECTION_NOTIFY_CLOSED) {
        if (e)
            memset(e, 0, sizeof *e);
        *ctx = NULL;
        return;
    }
    const union MHD_ConnectionInfo *fd =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *at =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    e = NULL;
    for (unsigned i = 0; i < S_LIMIT && !e; i++)
        e = h->conns[i].c ? NULL : &h->conns[i];
    if (!e || !fd) {
        if (fd)
            shutdown(fd->connect_fd, SHUT_RDWR); /* not looked after: not kept */
        return;
    }
    *e = (s_conn_t){.c = c, .fd = fd->connect_fd, .since = rb_time_mono_ns()};
    if (at && at->client_addr)
        memcpy(&e->addr, at->client_addr,
               at->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                      : sizeof(struct sockaddr_in));
    *ctx = e;
}

/* The scraper at c's address: its place in h->scraper, taken if it is new
 * and there is room; -1 otherwise. Under h->lock. */
static int s_scraper(rb_httpd_t *h, struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *at =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!at || !at->client_addr)
        return -1;
    for (unsigned k = 0; k < h->nscrapers; k++)
        if (s_same_client(&h->scraper[k], at->client_addr))
            return (int)k;
    if (h->nscrapers == S_SCRAPERS)
        return -1;
    unsigned k = h->nscrapers++;
    memset(&h->scraper[k], 0, sizeof h->scraper[k]);
    memcpy(&h->scraper[k], at->client_addr,
           at->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
                                                  : sizeof(struct sockaddr_in));
    h->scraped_final[k] = 0;
    return (int)k;
}

/* A request answered (or given up): the connection waits for the next; an
 * answer of the final /metrics sent whole counts for its scraper. */
static void s_completed(void *cls, struct MHD_Connection *c, void **req_cls,
                        enum MHD_RequestTerminationCode toe)
{
    rb_httpd_t *h = cls;
    const union MHD_ConnectionInfo *i =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    s_conn_t *e = i ? i->socket_context : NULL;
    if (e) {
        e->busy = 0;
        e->since = rb_time_mono_ns();
    }
    if (req_cls && *req_cls == &s_final_answer && toe == MHD_REQUEST_TERMINATED_COMPLETED_OK) {
        pthread_mutex_lock(&h->lock);
        int k = s_scraper(h, c);
        if (k >= 0)
            h->scraped_final[k] = 1;
        h->nfinal++;
        pthread_mutex_unlock(&h->lock);
    }
    if (req_cls)
        *req_cls = NULL;
}

/* Between rounds: connections past their time shut down, and S_SPARE
 * places kept free (the oldest ones waiting for a request go). */
static void s_tend(rb_httpd_t *h, uint64_t now)
{
    for (unsigned i = 0; i < S_LIMIT; i++) {
        s_conn_t *e = &h->conns[i];
        if (e->c && !e->cut && now - e->since > (e->busy ? S_ANSWER_NS : S_WAIT_NS))
            s_cut(h, e);
    }
    s_conn_t *oldest;
    while (s_open(h, NULL, &oldest) > S_LIMIT - S_SPARE && oldest)
        s_cut(h, oldest);
}

static void *s_serve(void *arg)
{
    rb_httpd_t *h = arg;
    while (!atomic_load(&h->stop)) {
        if (MHD_run_wait(h->d, S_TICK_MS) != MHD_YES) {
            rb_warn("--metrics: the HTTP server failed; /metrics and / are no longer served");
            break;
        }
        s_tend(h, rb_time_mono_ns());
    }
    return NULL;
}

/* One request: GET or HEAD of /metrics or /, answered at once. */
static enum MHD_Result s_answer(void *cls, struct MHD_Connection *c, const char *url,
                                const char *method, const char *version, const char *upload,
                                size_t *upload_size, void **req_cls)
{
    (void)version;
    (void)upload;
    rb_httpd_t *h = cls;
    const union MHD_ConnectionInfo *i =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    s_conn_t *e = i ? i->socket_context : NULL;
    if (e && !e->busy) {
        e->busy = 1; /* its time to take the answer begins */
        e->since = rb_time_mono_ns();
    }
    unsigned status = MHD_HTTP_OK;
    struct MHD_Response *resp = NULL;
    const char *type = "text/plain; charset=utf-8";
    if (*upload_size || (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)) {
        static const char msg[] = "only GET and HEAD\n";
        status = MHD_HTTP_METHOD_NOT_ALLOWED;
        *upload_size = 0;
        resp = MHD_create_response_from_buffer(sizeof msg - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
    } else if (!strcmp(url, "/metrics") || !strcmp(url, "/")) {
        int doc = !strcmp(url, "/") ? RB_HTTPD_PAGE : RB_HTTPD_METRICS;
        pthread_mutex_lock(&h->lock);
        if (h->text[doc]) {
            resp =
                MHD_create_response_from_buffer(h->len[doc], h->text[doc], MHD_RESPMEM_MUST_COPY);
            type = s_types[doc];
            /* a scrape: its scraper is waited for at the end, or this is its final read */
            if (resp && doc == RB_HTTPD_METRICS && !strcmp(method, "GET")) {
                if (h->final)
                    *req_cls = &s_final_answer;
                else
                    s_scraper(h, c);
            }
        }
        pthread_mutex_unlock(&h->lock);
        if (!resp) {
            static const char msg[] = "not ready yet\n";
            status = MHD_HTTP_SERVICE_UNAVAILABLE;
            resp = MHD_create_response_from_buffer(sizeof msg - 1, (void *)msg,
                                                   MHD_RESPMEM_PERSISTENT);
        }
    } else {
        static const char msg[] = "rackbench serves /metrics and /\n";
        status = MHD_HTTP_NOT_FOUND;
        resp = MHD_create_response_from_buffer(sizeof msg - 1, (void *)msg, MHD_RESPMEM_PERSISTENT);
    }
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result ret = MHD_queue_response(c, status, resp);
    MHD_destroy_response(resp);
    return ret;
}

rb_httpd_t *rb_httpd_new(const char *text, rb_err_t *err)
{
    struct sockaddr_storage addr;
    int loopback;
    if (rb_httpd_parse_addr(text, &addr, &loopback, err) < 0)
        return NULL;
    rb_httpd_t *h = calloc(1, sizeof *h);
    if (!h) {
        rb_err_set(err, -ENOMEM, "--metrics %s: out of memory", text);
        return NULL;
    }
    pthread_mutex_init(&h->lock, NULL);
    unsigned flags = MHD_USE_EPOLL; /* run by s_serve, not a thread of the library's */
    if (addr.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    uint16_t port = ntohs(addr.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&addr)->sin6_port
                                                     : ((struct sockaddr_in *)&addr)->sin_port);
    h->d =
        MHD_start_daemon(flags, port, s_admit, h, s_answer, h, MHD_OPTION_SOCK_ADDR,
                         (struct sockaddr *)&addr, MHD_OPTION_CONNECTION_LIMIT, S_LIMIT,
                         MHD_OPTION_CONNECTION_TIMEOUT, S_IDLE_S, MHD_OPTION_NOTIFY_CONNECTION,
                         s_notify, h, MHD_OPTION_NOTIFY_COMPLETED, s_completed, h, MHD_OPTION_END);
    if (!h->d) {
        int e = errno ? errno : EADDRINUSE;
        rb_err_set(err, -e, "--metrics %s: cannot listen there: %s", text, strerror(e));
        pthread_mutex_destroy(&h->lock);
        free(h);
        return NULL;
    }
    /* SIGINT and SIGTERM stay the run loop's: the thread starts with them blocked */
    sigset_t hold, old;
    sigemptyset(&hold);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &hold, &old);
    int e = pthread_create(&h->thread, NULL, s_serve, h);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (e) {
        rb_err_set(err, -e, "--metrics %s: cannot start the server's thread: %s", text,
                   strerror(e));
        MHD_stop_daemon(h->d);
        pthread_mutex_destroy(&h->lock);
        free(h);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : port;
    return h;
}

uint16_t rb_httpd_port(const rb_httpd_t *h)
{
    return h->port;
}

int rb_httpd_set(rb_httpd_t *h, rb_httpd_doc_t doc, const char *text, size_t len)
{
    char *copy = malloc(len ? len : 1);
    if (!copy)
        return -ENOMEM;
    memcpy(copy, text, len);
    pthread_mutex_lock(&h->lock);
    char *old = h->text[doc];
    h->text[doc] = copy;
    h->len[doc] = len;
    pthread_mutex_unlock(&h->lock);
    free(old);
    return 0;
}

int rb_httpd_set_final(rb_httpd_t *h, const char *text, size_t len, unsigned *scrapers)
{
    if (rb_httpd_set(h, RB_HTTPD_METRICS, text, len) < 0)
        return -ENOMEM;
    pthread_mutex_lock(&h->lock);
    h->final = 1;
    *scrapers = h->nscrapers;
    pthread_mutex_unlock(&h->lock);
    return 0;
}

int rb_httpd_settled(rb_httpd_t *h)
{
    pthread_mutex_lock(&h->lock);
    int settled = h->final && h->nfinal > 0;
    for (unsigned k = 0; k < h->nscrapers && settled; k++)
        settled = h->scraped_final[k];
    pthread_mutex_unlock(&h->lock);
    return settled;
}

void rb_httpd_destroy(rb_httpd_t **hp)
{
    rb_httpd_t *h = *hp;
    if (!h)
        return;
    atomic_store(&h->stop, 1);
    pthread_join(h->thread, NULL); /* within S_TICK_MS */
    MHD_stop_daemon(h->d);
    if (atomic_load(&h->cuts))
        rb_debug("--metrics: %lu connections were shut down (slow, idle or too many)",
                 (unsigned long)atomic_load(&h->cuts));
    pthread_mutex_destroy(&h->lock);
    free(h->text[0]);
    free(h->text[1]);
    free(h);
    *hp = NULL;
}
