/* rb_auth: which endpoints count as local (loopback, ipc://) for --insecure,
 * the rules for when CURVE keys are required, key files, and what a socket
 * monitor says of a handshake. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rb_auth.h"
#include "rb_signal.h"
#include "rb_time.h"

#ifndef RB_TEST_TIME_SCALE
#define RB_TEST_TIME_SCALE 1
#endif

static void test_endpoint_kind(void **state)
{
    (void)state;
    assert_int_equal(rb_auth_ep_kind("ipc:///tmp/x.sock"), RB_EP_IPC);
    assert_int_equal(rb_auth_ep_kind("ipc://@abstract"), RB_EP_IPC);
    assert_int_equal(rb_auth_ep_kind("inproc://here"), RB_EP_INPROC);
    assert_int_equal(rb_auth_ep_kind("tcp://127.0.0.1:7770"), RB_EP_LOOPBACK);
    assert_int_equal(rb_auth_ep_kind("tcp://127.0.0.1:*"), RB_EP_LOOPBACK);
    assert_int_equal(rb_auth_ep_kind("tcp://127.200.3.4:7770"), RB_EP_LOOPBACK);
    assert_int_equal(rb_auth_ep_kind("tcp://localhost:7770"), RB_EP_LOOPBACK);
    assert_int_equal(rb_auth_ep_kind("tcp://LocalHost:7770"), RB_EP_LOOPBACK);
    assert_int_equal(rb_auth_ep_kind("tcp://[::1]:7770"), RB_EP_LOOPBACK);
    assert_int_equal(rb_auth_ep_kind("tcp://[::ffff:127.0.0.1]:7770"), RB_EP_LOOPBACK);
}

static void test_endpoint_network(void **state)
{
    (void)state;
    const char *net[] = {
        "tcp://*:7770",
        "tcp://0.0.0.0:7779",
        "tcp://10.1.2.3:7779",
        "tcp://128.0.0.1:1",
        "tcp://126.255.255.255:1",
        "tcp://head:7770",
        "tcp://[::]:7770",
        "tcp://[::2]:7770",
        "tcp://eth0:7770",
        "tcp://localhost.example.com:1",
        "tcp://127.0.0.1.evil.com:1",
        "tcp://127.0.0.1",
        "tcp://:7770",
        "tcp://[::1:7770",
        "tcp://127.0.0.1:0;10.0.0.1:7770",
        "pgm://eth0;239.1.1.1:5555",
        "ws://127.0.0.1:80",
        "udp://127.0.0.1:1",
        "",
        "TCP://127.0.0.1:1",
    };
    for (size_t i = 0; i < sizeof net / sizeof net[0]; i++) {
        if (rb_auth_ep_kind(net[i]) != RB_EP_NETWORK)
            fail_msg("%s should count as reachable from other hosts", net[i]);
        assert_false(rb_auth_ep_is_local(net[i]));
    }
    assert_true(rb_auth_ep_is_local("tcp://127.0.0.1:1"));
    assert_true(rb_auth_ep_is_local("ipc:///x"));
}

static void test_check_rules(void **state)
{
    (void)state;
    rb_err_t err;
#define CHECK(ep, key, peer, insecure)                                                             \
    (rb_err_clear(&err),                                                                           \
     rb_auth_check("--bind", ep, "--key", key, "--allow-keys", peer, insecure, &err))
    assert_int_equal(CHECK("tcp://*:7770", "k", "d", 0), 1);
    assert_int_equal(CHECK("ipc:///x", "k", "d", 0), 1);
    assert_int_equal(CHECK("ipc:///x", NULL, NULL, 0), 0);
    assert_int_equal(CHECK("tcp://127.0.0.1:1", NULL, NULL, 1), 0);
    assert_int_equal(CHECK("ipc:///x", NULL, NULL, 1), 0);

    assert_int_equal(CHECK("tcp://*:7770", NULL, NULL, 0), -EINVAL);
    assert_non_null(strstr(err.msg, "--key and --allow-keys are missing"));
    assert_int_equal(CHECK("tcp://127.0.0.1:1", NULL, NULL, 0), -EINVAL);
    assert_non_null(strstr(err.msg, "--key and --allow-keys are missing"));
    assert_int_equal(CHECK("tcp://*:7770", "k", NULL, 0), -EINVAL);
    assert_non_null(strstr(err.msg, "--allow-keys is missing"));
    assert_int_equal(CHECK("tcp://*:7770", NULL, "d", 0), -EINVAL);
    assert_non_null(strstr(err.msg, "--key is missing"));
    assert_int_equal(CHECK("tcp://0.0.0.0:7779", NULL, NULL, 1), -EINVAL);
    assert_non_null(strstr(err.msg, "only on loopback"));
    assert_non_null(strstr(err.msg, "tcp://0.0.0.0:7779"));
    assert_int_equal(CHECK("tcp://127.0.0.1:1", "k", "d", 1), -EINVAL);
    assert_non_null(strstr(err.msg, "--insecure"));
#undef CHECK
}

static void test_keygen_and_load(void **state)
{
    (void)state;
    char dir[] = "/tmp/rb-test-auth-XXXXXX", path[256], pub[41];
    rb_err_t err;
    assert_non_null(mkdtemp(dir));
    rb_err_clear(&err);
    assert_int_equal(rb_auth_keygen(dir, "n1", pub, &err), 0);
    assert_int_equal(strlen(pub), 40);
    struct stat st;
    snprintf(path, sizeof path, "%s/n1.key_secret", dir);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0600);
    zcert_t *c = rb_auth_load_secret(path, &err);
    assert_non_null(c);
    assert_string_equal(zcert_public_txt(c), pub);
    zcert_destroy(&c);
    /* the public file: given as --key, the secret file beside it is used */
    snprintf(path, sizeof path, "%s/n1.key", dir);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0644);
    c = rb_auth_load_secret(path, &err);
    assert_non_null(c);
    zcert_destroy(&c);
    /* never overwritten */
    rb_err_clear(&err);
    assert_int_equal(rb_auth_keygen(dir, "n1", NULL, &err), -EEXIST);
    assert_non_null(strstr(err.msg, "already exists"));
    rb_err_clear(&err);
    assert_int_equal(rb_auth_keygen(dir, "../x", NULL, &err), -EINVAL);
    /* a store of the public keys; secret files are not read as allowed keys */
    rb_err_clear(&err);
    assert_int_equal(rb_auth_keygen(dir, "n2", NULL, &err), 0);
    uint32_t n = 0;
    zcertstore_t *store = rb_auth_load_store(dir, &n, &err);
    assert_non_null(store);
    assert_int_equal(n, 2);
    assert_non_null(zcertstore_lookup(store, pub));
    zcertstore_destroy(&store);
    /* a secret key others can read is refused */
    snprintf(path, sizeof path, "%s/n2.key_secret", dir);
    chmod(path, 0644);
    rb_err_clear(&err);
    assert_null(rb_auth_load_secret(path, &err));
    assert_non_null(strstr(err.msg, "chmod 600"));
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Keys handed over as text (rackbench-mpi passes them between ranks so). */
static void test_cert_from_txt(void **state)
{
    (void)state;
    rb_err_t err;
    rb_err_clear(&err);
    zcert_t *orig = zcert_new();
    assert_non_null(orig);
    zcert_t *both = rb_auth_cert_from_txt(zcert_public_txt(orig), zcert_secret_txt(orig), &err);
    assert_non_null(both);
    assert_true(zcert_eq(both, orig));
    zcert_t *pub = rb_auth_cert_from_txt(zcert_public_txt(orig), NULL, &err);
    assert_non_null(pub);
    assert_string_equal(zcert_public_txt(pub), zcert_public_txt(orig));
    assert_string_equal(zcert_secret_txt(pub), "0000000000000000000000000000000000000000");
    assert_null(rb_auth_cert_from_txt("short", NULL, &err));
    assert_int_equal(err.code, -EINVAL);
    assert_non_null(strstr(err.msg, "not a CURVE key"));
    rb_err_clear(&err);
    assert_null(rb_auth_cert_from_txt(zcert_public_txt(orig), "not z85 !!", &err));
    assert_int_equal(err.code, -EINVAL);
    zcert_destroy(&both);
    zcert_destroy(&pub);
    zcert_destroy(&orig);
}

/* Reads mon until an event of another outcome than RB_AUTH_NONE comes, for
 * 10 s (scaled); that outcome, or RB_AUTH_NONE. */
static rb_auth_outcome_t s_next_outcome(zsock_t *mon)
{
    uint64_t deadline = rb_time_mono_ns() + 10ull * RB_TEST_TIME_SCALE * RB_NS_PER_S;
    rb_auth_event_t ev;
    while (rb_time_mono_ns() < deadline) {
        if (rb_auth_monitor_read(mon, &ev) == 1) {
            if (ev.outcome != RB_AUTH_NONE)
                return ev.outcome;
        } else {
            zclock_sleep(5);
        }
    }
    return RB_AUTH_NONE;
}

/* One client of the server at ep: its keys, the server key it holds; the
 * outcome its monitor and the server's report. */
static void s_handshake(const char *ep, zsock_t *server_mon, zcert_t *client, zcert_t *server_pub,
                        rb_auth_outcome_t want_client, rb_auth_outcome_t want_server)
{
    zsock_t *c = zsock_new(ZMQ_DEALER);
    assert_non_null(c);
    rb_auth_client_apply(c, client, server_pub);
    rb_err_t err;
    rb_err_clear(&err);
    zsock_t *mon = rb_auth_monitor_start(c, &err);
    assert_non_null(mon);
    assert_int_equal(zsock_connect(c, "%s", ep), 0);
    assert_int_equal(s_next_outcome(mon), want_client);
    assert_int_equal(s_next_outcome(server_mon), want_server);
    rb_auth_monitor_stop(c, &mon);
    assert_null(mon);
    rb_auth_monitor_stop(c, &mon); /* safe twice */
    zsock_set_linger(c, 0);
    zsock_destroy(&c);
}

/* An allowed key succeeds on both sides; a key not allowed is refused with
 * ZAP status 400; a client holding another server key makes the server
 * fail to decrypt (a key mismatch) and sees the connection closed. */
static void test_monitor_handshake_outcomes(void **state)
{
    (void)state;
    zcert_t *server = zcert_new(), *allowed = zcert_new(), *stranger = zcert_new();
    zcert_t *other = zcert_new();
    zcertstore_t *store = zcertstore_new(NULL);
    zcert_t *copy = zcert_dup(allowed);
    zcertstore_insert(store, &copy);
    zsock_t *router = zsock_new(ZMQ_ROUTER);
    rb_err_t err;
    rb_err_clear(&err);
    rb_auth_server_t *auth = rb_auth_server_new(router, server, &store, &err);
    assert_non_null(auth);
    zsock_t *smon = rb_auth_monitor_start(router, &err);
    assert_non_null(smon);
    int port = zsock_bind(router, "tcp://127.0.0.1:*");
    assert_true(port > 0);
    char ep[64];
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", port);

    s_handshake(ep, smon, allowed, server, RB_AUTH_SUCCEEDED, RB_AUTH_SUCCEEDED);
    s_handshake(ep, smon, stranger, server, RB_AUTH_REFUSED, RB_AUTH_REFUSED);
    assert_int_equal(rb_auth_server_refused(auth, NULL, 0), 1);
    s_handshake(ep, smon, allowed, other, RB_AUTH_CLOSED, RB_AUTH_KEY_MISMATCH);

    rb_auth_event_t ev = {.outcome = RB_AUTH_REFUSED, .value = 400};
    char detail[64];
    assert_string_equal(rb_auth_event_detail(&ev, detail, sizeof detail), "ZAP status 400");
    assert_string_equal(rb_auth_outcome_name(RB_AUTH_REFUSED), "key refused");
    rb_auth_monitor_stop(router, &smon);
    zsock_destroy(&router);
    rb_auth_server_destroy(&auth);
    zcert_destroy(&server);
    zcert_destroy(&allowed);
    zcert_destroy(&stranger);
    zcert_destroy(&other);
}

static volatile sig_atomic_t s_signals;

static void s_on_signal(int sig)
{
    (void)sig;
    s_signals++;
}

static volatile int s_storm_on;

/* Sends SIGTERM to the process again and again while s_storm_on. */
static void *s_storm(void *arg)
{
    (void)arg;
    while (s_storm_on) {
        kill(getpid(), SIGTERM);
        usleep(50);
    }
    return NULL;
}

/* A SIGTERM while the key check starts (the run's "interrupted") never
 * makes it fail to start, nor its stop return before the actor has let the
 * ZAP endpoint go: a coordinator stopped as it started said "cannot start
 * the key check" instead of "interrupted". The handlers are the programs'
 * own (rb_signals_catch: no SA_RESTART), the signals come from another
 * thread, as a kill from outside would. */
static void test_server_start_signalled(void **state)
{
    (void)state;
    struct sigaction old_int, old_term;
    sigaction(SIGINT, NULL, &old_int);
    sigaction(SIGTERM, NULL, &old_term);
    rb_signals_catch(s_on_signal);
    zcert_t *server = zcert_new();
    s_storm_on = 1;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, s_storm, NULL), 0);
    int started = 0;
    for (int i = 0; i < 300; i++) {
        zsock_t *router = zsock_new(ZMQ_ROUTER);
        zcertstore_t *store = zcertstore_new(NULL);
        rb_err_t err;
        rb_err_clear(&err);
        rb_auth_server_t *auth = rb_auth_server_new(router, server, &store, &err);
        if (!auth)
            print_error("start %d: %s\n", i, err.msg);
        started += auth != NULL;
        rb_auth_server_destroy(&auth);
        zsock_destroy(&router);
    }
    s_storm_on = 0;
    pthread_join(t, NULL);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    zcert_destroy(&server);
    print_message("%d starts, %d signals\n", started, (int)s_signals);
    assert_true(s_signals > 0);
    assert_int_equal(started, 300);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_server_start_signalled),
        cmocka_unit_test(test_endpoint_kind),
        cmocka_unit_test(test_endpoint_network),
        cmocka_unit_test(test_check_rules),
        cmocka_unit_test(test_keygen_and_load),
        cmocka_unit_test(test_cert_from_txt),
        cmocka_unit_test(test_monitor_handshake_outcomes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
