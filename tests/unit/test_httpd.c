/* The HTTP server of --metrics (rb_httpd): the addresses it takes and
 * refuses, and what it answers over a real socket, also while the run loop
 * replaces the text as fast as it can (every answer one whole text), and
 * while 70 slow clients hold connections open (issue 33), and which
 * scrapes of the final text end the run's linger (issue 37). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "rb_httpd.h"
#include "rb_time.h"

#ifndef RB_TEST_TIME_SCALE
#define RB_TEST_TIME_SCALE 1
#endif

static void test_addresses(void **state)
{
    (void)state;
    struct sockaddr_storage a;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&a;
    int lo = -1;
    rb_err_t err;
    rb_err_clear(&err);
    /* a lone port is loopback */
    assert_int_equal(rb_httpd_parse_addr("9464", &a, &lo, &err), 0);
    assert_int_equal(a.ss_family, AF_INET);
    assert_int_equal(ntohs(v4->sin_port), 9464);
    assert_int_equal(ntohl(v4->sin_addr.s_addr), 0x7f000001);
    assert_int_equal(lo, 1);
    assert_int_equal(rb_httpd_parse_addr(":0", &a, &lo, &err), 0);
    assert_int_equal(lo, 1);
    assert_int_equal(rb_httpd_parse_addr("localhost:80", &a, &lo, &err), 0);
    assert_int_equal(lo, 1);
    assert_int_equal(rb_httpd_parse_addr("127.3.4.5:80", &a, &lo, &err), 0);
    assert_int_equal(lo, 1);
    assert_int_equal(rb_httpd_parse_addr("[::1]:9464", &a, &lo, &err), 0);
    assert_int_equal(a.ss_family, AF_INET6);
    assert_int_equal(lo, 1);
    /* others can reach these */
    assert_int_equal(rb_httpd_parse_addr("0.0.0.0:9464", &a, &lo, &err), 0);
    assert_int_equal(lo, 0);
    assert_int_equal(rb_httpd_parse_addr("*:9464", &a, &lo, &err), 0);
    assert_int_equal(lo, 0);
    assert_int_equal(rb_httpd_parse_addr("10.1.2.3:9464", &a, &lo, &err), 0);
    assert_int_equal(lo, 0);
    assert_int_equal(rb_httpd_parse_addr("[::]:9464", &a, &lo, &err), 0);
    assert_int_equal(lo, 0);
    /* refused, naming the option and the value */
    const char *bad[] = {"",       "x",      "70000",  "-1",        "+5",          "1:2:3",
                         "host:9", "[::1]9", "[::1]:", "10.0.0.1:", "10.0.0.300:1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        rb_err_clear(&err);
        assert_int_equal(rb_httpd_parse_addr(bad[i], &a, &lo, &err), -EINVAL);
        assert_non_null(strstr(err.msg, "--metrics"));
        assert_non_null(strstr(err.msg, bad[i]));
    }
}

/* GET path from port, from the loopback address 127.0.0.`from`; the
 * whole answer into buf (NUL-ended). Its length. */
static size_t s_get_from(unsigned from, uint16_t port, const char *method, const char *path,
                         char *buf, size_t cap)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_in me = {.sin_family = AF_INET};
    me.sin_addr.s_addr = htonl(0x7f000000 | from);
    assert_int_equal(bind(fd, (struct sockaddr *)&me, sizeof me), 0);
    /* every wait has a deadline: an answer not there within it fails the test */
    struct timeval tv = {.tv_sec = 10 * RB_TEST_TIME_SCALE};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
    sa.sin_addr.s_addr = htonl(0x7f000001);
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    char req[256];
    int n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                     method, path);
    assert_int_equal(write(fd, req, (size_t)n), n);
    size_t len = 0;
    ssize_t got;
    while (len + 1 < cap && (got = read(fd, buf + len, cap - 1 - len)) > 0)
        len += (size_t)got;
    buf[len] = 0;
    close(fd);
    return len;
}

static size_t s_get(uint16_t port, const char *method, const char *path, char *buf, size_t cap)
{
    return s_get_from(1, port, method, path, buf, cap);
}

/* A server on a port the system chooses. */
static rb_httpd_t *s_server(void)
{
    rb_err_t err;
    rb_err_clear(&err);
    rb_httpd_t *h = rb_httpd_new(":0", &err);
    assert_non_null(h);
    return h;
}

static void test_answers(void **state)
{
    (void)state;
    rb_err_t err;
    rb_httpd_t *h = s_server();
    uint16_t port = rb_httpd_port(h);
    assert_true(port > 0);
    static char buf[1 << 16];
    s_get(port, "GET", "/metrics", buf, sizeof buf);
    assert_non_null(strstr(buf, "HTTP/1.1 503"));
    assert_int_equal(rb_httpd_set(h, RB_HTTPD_METRICS, "rackbench_x 1\n", 14), 0);
    assert_int_equal(rb_httpd_set(h, RB_HTTPD_PAGE, "<html>p</html>", 14), 0);
    s_get(port, "GET", "/metrics", buf, sizeof buf);
    assert_non_null(strstr(buf, "HTTP/1.1 200"));
    assert_non_null(strstr(buf, "text/plain; version=0.0.4"));
    assert_non_null(strstr(buf, "\r\n\r\nrackbench_x 1\n"));
    s_get(port, "GET", "/", buf, sizeof buf);
    assert_non_null(strstr(buf, "text/html"));
    assert_non_null(strstr(buf, "<html>p</html>"));
    s_get(port, "GET", "/other", buf, sizeof buf);
    assert_non_null(strstr(buf, "HTTP/1.1 404"));
    s_get(port, "DELETE", "/metrics", buf, sizeof buf);
    assert_non_null(strstr(buf, "HTTP/1.1 405"));
    /* another server on the same port: refused, naming the address */
    char addr[32];
    snprintf(addr, sizeof addr, "127.0.0.1:%u", (unsigned)port);
    rb_err_clear(&err);
    assert_null(rb_httpd_new(addr, &err));
    assert_non_null(strstr(err.msg, addr));
    rb_httpd_destroy(&h);
    assert_null(h);
    rb_httpd_destroy(&h); /* safe twice */
}

typedef struct {
    rb_httpd_t *h;
    volatile int stop;
} s_writer_t;

/* Replaces the text with ones of different lengths, each all one letter. */
static void *s_writer(void *arg)
{
    s_writer_t *w = arg;
    static char text[20000];
    for (unsigned i = 0; !w->stop; i++) {
        size_t len = 1000 + (i * 7919u) % 19000;
        memset(text, 'a' + (int)(i % 26), len);
        text[len - 1] = '\n';
        rb_httpd_set(w->h, RB_HTTPD_METRICS, text, len);
    }
    return NULL;
}

static void test_whole_texts(void **state)
{
    (void)state;
    rb_err_t err;
    rb_err_clear(&err);
    s_writer_t w = {.h = rb_httpd_new("0", &err)};
    assert_non_null(w.h);
    rb_httpd_set(w.h, RB_HTTPD_METRICS, "a\n", 2);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, s_writer, &w), 0);
    static char buf[1 << 16];
    for (int i = 0; i < 200; i++) {
        s_get(rb_httpd_port(w.h), "GET", "/metrics", buf, sizeof buf);
        char *body = strstr(buf, "\r\n\r\n");
        assert_non_null(body);
        body += 4;
        size_t n = strlen(body);
        const char *cl = strstr(buf, "Content-Length: ");
        assert_non_null(cl);
        assert_int_equal((size_t)strtoul(cl + 16, NULL, 10), n);
        for (size_t k = 0; k + 1 < n; k++)
            assert_int_equal(body[k], body[0]); /* one text, never two mixed */
        assert_int_equal(body[n - 1], '\n');
    }
    w.stop = 1;
    pthread_join(t, NULL);
    rb_httpd_destroy(&w.h);
}

#define S_SLOW 70 /* more than the server's 64 connections */

/* Issue 33: 70 clients that each send a byte of a request now and then, and
 * never a whole one, on the scraper's own address. A scrape is answered
 * while they are open, and the server shuts every one of them down however
 * steadily it trickles (a byte every 0.5 s: an idle timeout never ends it). */
static void test_slow_clients(void **state)
{
    (void)state;
    rb_httpd_t *h = s_server();
    assert_int_equal(rb_httpd_set(h, RB_HTTPD_METRICS, "rackbench_x 1\n", 14), 0);
    static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ";
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(rb_httpd_port(h))};
    sa.sin_addr.s_addr = htonl(0x7f000001);
    struct pollfd pf[S_SLOW];
    size_t sent[S_SLOW];
    for (int i = 0; i < S_SLOW; i++) {
        pf[i] = (struct pollfd){.fd = socket(AF_INET, SOCK_STREAM, 0), .events = POLLIN};
        assert_true(pf[i].fd >= 0);
        assert_int_equal(connect(pf[i].fd, (struct sockaddr *)&sa, sizeof sa), 0);
        assert_int_equal(send(pf[i].fd, req, 1, MSG_NOSIGNAL), 1);
        sent[i] = 1;
    }
    /* a scrape meanwhile: answered, and well within its deadline */
    static char buf[1 << 16];
    uint64_t t0 = rb_time_mono_ns();
    s_get(rb_httpd_port(h), "GET", "/metrics", buf, sizeof buf);
    double took = (double)(rb_time_mono_ns() - t0) / 1e9;
    assert_non_null(strstr(buf, "HTTP/1.1 200"));
    assert_non_null(strstr(buf, "rackbench_x 1\n"));
    printf("a scrape beside %d slow clients: %.3f s\n", S_SLOW, took);
    assert_true(took < 5.0 * RB_TEST_TIME_SCALE);
    /* each slow client goes on trickling until the server has shut it down */
    uint64_t deadline = rb_time_mono_ns() + 30ull * RB_TEST_TIME_SCALE * RB_NS_PER_S;
    uint64_t next = rb_time_mono_ns() + RB_NS_PER_S / 2;
    int open = S_SLOW;
    while (open > 0 && rb_time_mono_ns() < deadline) {
        uint64_t now = rb_time_mono_ns();
        int wait_ms = next > now ? (int)((next - now) / 1000000) : 0;
        assert_true(poll(pf, S_SLOW, wait_ms) >= 0);
        for (int i = 0; i < S_SLOW; i++) {
            if (pf[i].fd < 0 || !pf[i].revents)
                continue;
            char c;
            if (recv(pf[i].fd, &c, 1, MSG_DONTWAIT) <= 0) { /* its end, or a reset */
                close(pf[i].fd);
                pf[i].fd = -1;
                open--;
            }
        }
        if (rb_time_mono_ns() < next)
            continue;
        next += RB_NS_PER_S / 2;
        for (int i = 0; i < S_SLOW; i++) {
            const char *b = sent[i] < sizeof req - 1 ? &req[sent[i]] : "a";
            if (pf[i].fd >= 0 && send(pf[i].fd, b, 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1)
                sent[i]++;
        }
    }
    assert_int_equal(open, 0);
    /* and the server still answers */
    s_get(rb_httpd_port(h), "GET", "/metrics", buf, sizeof buf);
    assert_non_null(strstr(buf, "HTTP/1.1 200"));
    rb_httpd_destroy(&h);
}

/* Whether h settles (rb_httpd_settled) within a deadline. */
static int s_settles(rb_httpd_t *h)
{
    uint64_t deadline = rb_time_mono_ns() + 5ull * RB_TEST_TIME_SCALE * RB_NS_PER_S;
    while (!rb_httpd_settled(h) && rb_time_mono_ns() < deadline)
        poll(NULL, 0, 5);
    return rb_httpd_settled(h);
}

/* The end of a run (issue 37): the final /metrics is waited for by each
 * address that scraped /metrics before (GET; not HEAD, not /), or by a first
 * scraper when none did. */
static void test_final_scrapes(void **state)
{
    (void)state;
    static char buf[1 << 16];
    rb_httpd_t *h = s_server();
    uint16_t port = rb_httpd_port(h);
    assert_int_equal(rb_httpd_set(h, RB_HTTPD_METRICS, "rackbench_x 1\n", 14), 0);
    assert_int_equal(rb_httpd_set(h, RB_HTTPD_PAGE, "<html>p</html>", 14), 0);
    s_get_from(1, port, "GET", "/metrics", buf, sizeof buf);
    s_get_from(2, port, "GET", "/metrics", buf, sizeof buf);
    s_get_from(2, port, "GET", "/metrics", buf, sizeof buf);
    s_get_from(3, port, "GET", "/", buf, sizeof buf);
    s_get_from(4, port, "HEAD", "/metrics", buf, sizeof buf);
    assert_int_equal(rb_httpd_settled(h), 0);
    unsigned scrapers = 0;
    assert_int_equal(rb_httpd_set_final(h, "rackbench_x 2\n", 14, &scrapers), 0);
    assert_int_equal(scrapers, 2);
    s_get_from(3, port, "GET", "/", buf, sizeof buf);
    s_get_from(1, port, "GET", "/metrics", buf, sizeof buf);
    assert_non_null(strstr(buf, "\r\n\r\nrackbench_x 2\n"));
    /* the answer is sent whole before the connection closes: counted by now */
    assert_int_equal(rb_httpd_settled(h), 0); /* 127.0.0.2 has not read it */
    s_get_from(2, port, "GET", "/metrics", buf, sizeof buf);
    assert_non_null(strstr(buf, "\r\n\r\nrackbench_x 2\n"));
    assert_int_equal(s_settles(h), 1);
    rb_httpd_destroy(&h);
    /* nobody scraped before the end: the first scrape of the final text */
    h = s_server();
    port = rb_httpd_port(h);
    assert_int_equal(rb_httpd_set_final(h, "rackbench_x 3\n", 14, &scrapers), 0);
    assert_int_equal(scrapers, 0);
    assert_int_equal(rb_httpd_settled(h), 0);
    s_get_from(5, port, "HEAD", "/metrics", buf, sizeof buf);
    assert_int_equal(rb_httpd_settled(h), 0);
    s_get_from(5, port, "GET", "/metrics", buf, sizeof buf);
    assert_int_equal(s_settles(h), 1);
    rb_httpd_destroy(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_addresses),     cmocka_unit_test(test_answers),
        cmocka_unit_test(test_whole_texts),   cmocka_unit_test(test_slow_clients),
        cmocka_unit_test(test_final_scrapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
