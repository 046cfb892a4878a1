/* rb_auth: which endpoints count as local (loopback, ipc://) for --insecure,
 * the rules for when CURVE keys are required, and key files. */
#include <errno.h>
#include <setjmp.h>
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_endpoint_kind), cmocka_unit_test(test_endpoint_network),
        cmocka_unit_test(test_check_rules),   cmocka_unit_test(test_keygen_and_load),
        cmocka_unit_test(test_cert_from_txt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
