/* --metrics: Prometheus's text format at /metrics and the live report at /,
 * served by libmicrohttpd's own thread. The run loop never waits on a
 * client: it swaps in a new text under the mutex; an answer copies the
 * current text under the same mutex, so a slow reader holds nothing. */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_httpd.h"

struct rb_httpd {
    struct MHD_Daemon *d; /* the server and its thread */
    pthread_mutex_t lock; /* guards text and len */
    char *text[2];        /* the documents (owned), NULL until set */
    size_t len[2];
    uint16_t port; /* where it listens */
};

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

/* One request: GET or HEAD of /metrics or /, answered at once. */
static enum MHD_Result s_answer(void *cls, struct MHD_Connection *c, const char *url,
                                const char *method, const char *version, const char *upload,
                                size_t *upload_size, void **req_cls)
{
    (void)version;
    (void)upload;
    (void)req_cls;
    rb_httpd_t *h = cls;
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
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL;
    if (addr.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    uint16_t port = ntohs(addr.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&addr)->sin6_port
                                                     : ((struct sockaddr_in *)&addr)->sin_port);
    h->d = MHD_start_daemon(flags, port, NULL, NULL, s_answer, h, MHD_OPTION_SOCK_ADDR,
                            (struct sockaddr *)&addr, MHD_OPTION_CONNECTION_LIMIT, 64u,
                            MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
    if (!h->d) {
        int e = errno ? errno : EADDRINUSE;
        rb_err_set(err, -e, "--metrics %s: cannot listen there: %s", text, strerror(e));
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

void rb_httpd_destroy(rb_httpd_t **hp)
{
    rb_httpd_t *h = *hp;
    if (!h)
        return;
    MHD_stop_daemon(h->d);
    pthread_mutex_destroy(&h->lock);
    free(h->text[0]);
    free(h->text[1]);
    free(h);
    *hp = NULL;
}
