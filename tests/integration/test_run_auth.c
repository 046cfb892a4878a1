/* CURVE on the control plane, with the real binaries: rackbench keygen, a
 * run over tcp:// with an allowed agent key, an agent whose key is not
 * allowed (refused and named, and joining a later run once it is allowed),
 * what both sides say when the keys do not match, the usage errors of
 * --insecure and of a tcp endpoint without keys, and --local runs, which
 * make keys of their own. */
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rb_test.h"

#include "it_util.h"

typedef struct paths {
    char dir[4096], plan[4200], runs[4200], out[4200], err[4200], keys[4200], allow[4200],
        data[4200], aout[4200], aerr[4200];
} paths_t;

static void s_paths(paths_t *p, const char *name)
{
    snprintf(p->dir, sizeof p->dir, "%s", it_scratch(name));
    snprintf(p->plan, sizeof p->plan, "%s/plan.ini", p->dir);
    snprintf(p->runs, sizeof p->runs, "%s/runs", p->dir);
    snprintf(p->out, sizeof p->out, "%s/stdout", p->dir);
    snprintf(p->err, sizeof p->err, "%s/stderr", p->dir);
    snprintf(p->keys, sizeof p->keys, "%s/keys", p->dir);
    snprintf(p->allow, sizeof p->allow, "%s/allow", p->dir);
    snprintf(p->data, sizeof p->data, "%s/data", p->dir);
    snprintf(p->aout, sizeof p->aout, "%s/agent.out", p->dir);
    snprintf(p->aerr, sizeof p->aerr, "%s/agent.err", p->dir);
    it_sh(NULL, NULL, "mkdir -p '%s' '%s'", p->data, p->allow);
    it_write(p->plan, "[w]\nrw=write\nbs=64k\nsize=1M\n");
}

static int s_contains(const char *path, const char *needle)
{
    char *t = it_read(path);
    int found = t && strstr(t, needle);
    if (!found)
        fprintf(stderr, "'%s' not in %s:\n%s\n", needle, path, t ? t : "(unreadable)");
    free(t);
    return found;
}

/* A TCP port on loopback that was free a moment ago. */
static int s_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd);
    return ntohs(a.sin_port);
}

static mode_t s_mode(const char *dir, const char *name)
{
    char path[4400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(stat(path, &st), 0);
    return st.st_mode & 07777;
}

/* The public key that keygen printed for a name. */
static void s_keygen(const paths_t *p, const char *name, char *pub, size_t len)
{
    char out[4300];
    snprintf(out, sizeof out, "%s/keygen-%s.out", p->dir, name);
    assert_int_equal(it_show_failure(it_sh(out, p->err, "'%s' keygen '%s' --name %s",
                                           it_bin("rackbench"), p->keys, name),
                                     p->err),
                     0);
    char *t = it_read(out);
    assert_non_null(t);
    char *k = strstr(t, "public key ");
    assert_non_null(k);
    snprintf(pub, len, "%.40s", k + 11);
    free(t);
}

/* keygen writes NAME.key (0644) and NAME.key_secret (0600) in a 0700 folder
 * it makes, and never overwrites a key. */
static void test_keygen(void **state)
{
    (void)state;
    paths_t p;
    char pub[64];
    s_paths(&p, "keygen");
    s_keygen(&p, "node01", pub, sizeof pub);
    assert_int_equal(strlen(pub), 40);
    assert_int_equal(s_mode(p.keys, "."), 0700);
    assert_int_equal(s_mode(p.keys, "node01.key"), 0644);
    assert_int_equal(s_mode(p.keys, "node01.key_secret"), 0600);
    char path[4400];
    snprintf(path, sizeof path, "%s/node01.key", p.keys);
    assert_true(s_contains(path, pub));
    char *before = it_read(path);
    int code = it_sh(p.out, p.err, "'%s' keygen '%s' --name node01", it_bin("rackbench"), p.keys);
    assert_int_equal(code, 2);
    assert_true(s_contains(p.err, "already exists"));
    char *after = it_read(path);
    assert_string_equal(before, after);
    free(before);
    free(after);
    /* a secret file alone still blocks the name */
    snprintf(path, sizeof path, "%s/node01.key", p.keys);
    unlink(path);
    code = it_sh(p.out, p.err, "'%s' keygen '%s' --name node01", it_bin("rackbench"), p.keys);
    assert_int_equal(code, 2);
    assert_true(s_contains(p.err, "node01.key_secret already exists"));
    /* the host name by default */
    code = it_sh(p.out, p.err, "'%s' keygen '%s'", it_bin("rackbench"), p.keys);
    assert_int_equal(it_show_failure(code, p.err), 0);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    char name[300];
    snprintf(name, sizeof name, "%s.key_secret", host);
    assert_int_equal(s_mode(p.keys, name), 0600);
    it_rmtree(p.dir);
}

/* keygen DIR with DIR's parents missing makes them, as the docs say
 * (issue 19, item 9): the parents 0755 as mkdir -p, DIR itself 0700. */
static void test_keygen_makes_parents(void **state)
{
    (void)state;
    paths_t p;
    char dir[4400], parent[4400];
    s_paths(&p, "keygenparents");
    snprintf(parent, sizeof parent, "%s/a/b", p.keys);
    snprintf(dir, sizeof dir, "%s/x", parent);
    int code = it_sh(p.out, p.err, "'%s' keygen '%s' --name n1", it_bin("rackbench"), dir);
    assert_int_equal(it_show_failure(code, p.err), 0);
    assert_int_equal(s_mode(dir, "."), 0700);
    assert_int_equal(s_mode(parent, "."), 0755);
    assert_int_equal(s_mode(dir, "n1.key_secret"), 0600);
    assert_int_equal(s_mode(dir, "n1.key"), 0644);
    /* a trailing slash names the same folder */
    code = it_sh(p.out, p.err, "'%s' keygen '%s/y/' --name n2", it_bin("rackbench"), parent);
    assert_int_equal(it_show_failure(code, p.err), 0);
    snprintf(dir, sizeof dir, "%s/y", parent);
    assert_int_equal(s_mode(dir, "n2.key_secret"), 0600);
    /* a parent that is a file: exit 2 naming it */
    snprintf(dir, sizeof dir, "%s/file", p.dir);
    it_write(dir, "not a folder\n");
    code = it_sh(p.out, p.err, "'%s' keygen '%s/keys' --name n3", it_bin("rackbench"), dir);
    assert_int_equal(code, 2);
    assert_true(s_contains(p.err, dir));
    it_rmtree(p.dir);
}

/* A run over tcp:// on loopback with an agent whose key is allowed. */
static void test_tcp_allowed(void **state)
{
    (void)state;
    paths_t p;
    char pub[64], ep[64];
    s_paths(&p, "tcpok");
    s_keygen(&p, "coord", pub, sizeof pub);
    s_keygen(&p, "a1", pub, sizeof pub);
    it_sh(NULL, NULL, "cp '%s/a1.key' '%s/'", p.keys, p.allow);
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", s_free_port());
    int agent = it_sh_bg(p.aout, p.aerr,
                         "'%s' --coordinator %s --name a1 --root '%s' --once --key "
                         "'%s/a1.key_secret' --coordinator-key '%s/coord.key'",
                         it_bin("rackbench-agent"), ep, p.data, p.keys, p.keys);
    int code = it_sh(p.out, p.err,
                     "'%s' run --expect 1 --wait 20s --bind %s --key '%s/coord.key_secret' "
                     "--allow-keys '%s' --out '%s' '%s'",
                     it_bin("rackbench"), ep, p.keys, p.allow, p.runs, p.plan);
    assert_int_equal(it_show_failure(code, p.err), 0);
    assert_true(s_contains(p.err, "CURVE on: 1 allowed agent key"));
    assert_int_equal(it_show_failure(it_wait(agent), p.aerr), 0);
    assert_true(s_contains(p.aerr, pub));
    it_rmtree(p.dir);
}

/* An agent whose key is not in --allow-keys never joins; the run fails
 * after --wait and names the refused key and where it came from. */
static void test_tcp_refused(void **state)
{
    (void)state;
    paths_t p;
    char pub[64], stranger[64], ep[64];
    s_paths(&p, "tcprefused");
    s_keygen(&p, "coord", pub, sizeof pub);
    s_keygen(&p, "a1", pub, sizeof pub);
    s_keygen(&p, "stranger", stranger, sizeof stranger);
    it_sh(NULL, NULL, "cp '%s/a1.key' '%s/'", p.keys, p.allow);
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", s_free_port());
    int agent = it_sh_bg(p.aout, p.aerr,
                         "'%s' --coordinator %s --name stranger --root '%s' --once --key "
                         "'%s/stranger.key_secret' --coordinator-key '%s/coord.key'",
                         it_bin("rackbench-agent"), ep, p.data, p.keys, p.keys);
    int code = it_sh(p.out, p.err,
                     "'%s' run --expect 1 --wait 3s --bind %s --key '%s/coord.key_secret' "
                     "--allow-keys '%s' --out '%s' '%s'",
                     it_bin("rackbench"), ep, p.keys, p.allow, p.runs, p.plan);
    assert_int_equal(code, 3);
    assert_true(s_contains(p.err, "0 of 1 agents joined"));
    assert_true(s_contains(p.err, "refused 1 peer with unknown keys"));
    assert_true(s_contains(p.err, stranger));
    assert_true(s_contains(p.err, "from 127.0.0.1"));
    assert_int_equal(kill(agent, SIGTERM), 0);
    it_wait(agent);
    assert_int_equal(it_count_files(p.data), 0);
    it_rmtree(p.dir);
}

/* How many times needle is in the file at path. */
static int s_count_text(const char *path, const char *needle)
{
    char *t = it_read(path);
    int n = 0;
    for (const char *q = t ? strstr(t, needle) : NULL; q; q = strstr(q + 1, needle))
        n++;
    free(t);
    return n;
}

static int s_daemon_pid; /* the daemon agent a test started, 0 when none */

/* After a test that starts a daemon agent: a failed assertion must not leave
 * it running. */
static int s_kill_daemon(void **state)
{
    (void)state;
    if (s_daemon_pid > 0) {
        kill(s_daemon_pid, SIGKILL);
        it_wait(s_daemon_pid);
    }
    s_daemon_pid = 0;
    return 0;
}

/* Stops the daemon agent the test started (by it_sh_bg, as pid) and waits
 * for it: exit 0. */
static void s_stop_agent(const paths_t *p, int pid)
{
    assert_int_equal(kill(pid, SIGTERM), 0);
    assert_int_equal(it_show_failure(it_wait_exit(pid, it_deadline(20000)), p->aerr), 0);
    s_daemon_pid = 0;
}

/* Issue 19, 1: a daemon agent refused by one run (its key not yet allowed)
 * joins the next run, started after its key was added to --allow-keys,
 * without being restarted: it makes its socket anew after a failed
 * handshake, as ZeroMQ does not connect again by itself. */
static void test_refused_agent_rejoins(void **state)
{
    (void)state;
    paths_t p;
    char pub[64], coord[64], ep[64], text[512];
    s_paths(&p, "rejoins");
    s_keygen(&p, "coord", coord, sizeof coord);
    s_keygen(&p, "node01", pub, sizeof pub);
    s_keygen(&p, "node02", text, sizeof text);
    it_sh(NULL, NULL, "cp '%s/node02.key' '%s/'", p.keys, p.allow);
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", s_free_port());
    int agent = it_sh_bg(p.aout, p.aerr,
                         "'%s' --coordinator %s --name node01 --root '%s' --key "
                         "'%s/node01.key_secret' --coordinator-key '%s/coord.key'",
                         it_bin("rackbench-agent"), ep, p.data, p.keys, p.keys);
    s_daemon_pid = agent;
    int code = it_sh(p.out, p.err,
                     "'%s' run --nodes node01 --wait 3s --bind %s --key "
                     "'%s/coord.key_secret' --allow-keys '%s' --out '%s' '%s'",
                     it_bin("rackbench"), ep, p.keys, p.allow, p.runs, p.plan);
    assert_int_equal(code, 3);
    assert_true(s_contains(p.err, "0 of 1 agents joined"));
    assert_true(s_contains(p.err, "missing: node01"));
    assert_true(s_contains(p.err, pub));
    snprintf(text, sizeof text, "refused this agent: its public key %s is not in", pub);
    assert_int_equal(it_wait_for_text(p.aerr, text, it_deadline(10000)), 0);

    it_sh(NULL, NULL, "cp '%s/node01.key' '%s/'", p.keys, p.allow);
    it_rmtree(p.runs);
    code = it_sh(p.out, p.err,
                 "'%s' run --nodes node01 --wait %ds --bind %s --key "
                 "'%s/coord.key_secret' --allow-keys '%s' --out '%s' '%s'",
                 it_bin("rackbench"), 30 * RB_TEST_TIME_SCALE, ep, p.keys, p.allow, p.runs, p.plan);
    assert_int_equal(it_show_failure(code, p.err), 0);
    assert_true(s_contains(p.err, "CURVE on: 2 allowed agent keys"));
    snprintf(text, sizeof text, "handshake with %s succeeded", ep);
    assert_true(s_contains(p.aerr, text));
    s_stop_agent(&p, agent);
    assert_int_equal(it_count_files(p.data), 0);
    it_rmtree(p.dir);
}

/* Issue 19, 8: a refused agent says which key was refused and where to add
 * it, once, then how often it happened again; the coordinator names the
 * refused key. */
static void test_curve_failure_explained_refused(void **state)
{
    (void)state;
    paths_t p;
    char pub[64], stranger[64], ep[64], text[512];
    s_paths(&p, "explrefused");
    s_keygen(&p, "coord", pub, sizeof pub);
    s_keygen(&p, "a1", pub, sizeof pub);
    s_keygen(&p, "stranger", stranger, sizeof stranger);
    it_sh(NULL, NULL, "cp '%s/a1.key' '%s/'", p.keys, p.allow);
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", s_free_port());
    int agent = it_sh_bg(p.aout, p.aerr,
                         "'%s' --coordinator %s --name stranger --root '%s' --key "
                         "'%s/stranger.key_secret' --coordinator-key '%s/coord.key'",
                         it_bin("rackbench-agent"), ep, p.data, p.keys, p.keys);
    s_daemon_pid = agent;
    /* long enough for several attempts: 0.25, 0.5, 1, 2 s apart */
    int code = it_sh(p.out, p.err,
                     "'%s' run --expect 1 --wait 6s --bind %s --key '%s/coord.key_secret' "
                     "--allow-keys '%s' --out '%s' '%s'",
                     it_bin("rackbench"), ep, p.keys, p.allow, p.runs, p.plan);
    assert_int_equal(code, 3);
    snprintf(text, sizeof text, "refused 1 peer with unknown keys: %s from 127.0.0.1", stranger);
    assert_true(s_contains(p.err, text));
    snprintf(text, sizeof text,
             "coordinator %s refused this agent: its public key %s is not in the "
             "coordinator's --allow-keys; add this agent's NAME.key file",
             ep, stranger);
    assert_int_equal(it_wait_for_text(p.aerr, text, it_deadline(10000)), 0);
    s_stop_agent(&p, agent);
    /* one line, then a count; once refused, no "cannot send" (before the
     * coordinator is up, a HELLO may find no connection yet: that is said) */
    assert_int_equal(s_count_text(p.aerr, "refused this agent"), 1);
    assert_true(s_contains(p.aerr, "the same way (key refused)"));
    char *log = it_read(p.aerr);
    assert_non_null(log);
    assert_null(strstr(strstr(log, "refused this agent"), "cannot send"));
    free(log);
    it_rmtree(p.dir);
}

/* An agent and a coordinator whose keys do not match: the agent holds
 * agent_ckey as the coordinator's key, the coordinator runs with coord_key;
 * both say the keys do not match and what to check. */
static void s_key_mismatch(const char *name, const char *agent_ckey, const char *coord_key)
{
    paths_t p;
    char pub[64], coord_pub[64], other_pub[64], ep[64], text[4800];
    s_paths(&p, name);
    s_keygen(&p, "coord", coord_pub, sizeof coord_pub);
    s_keygen(&p, "other", other_pub, sizeof other_pub);
    s_keygen(&p, "a1", pub, sizeof pub);
    it_sh(NULL, NULL, "cp '%s/a1.key' '%s/'", p.keys, p.allow);
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", s_free_port());
    int agent = it_sh_bg(p.aout, p.aerr,
                         "'%s' --coordinator %s --name a1 --root '%s' --key "
                         "'%s/a1.key_secret' --coordinator-key '%s/%s.key'",
                         it_bin("rackbench-agent"), ep, p.data, p.keys, p.keys, agent_ckey);
    s_daemon_pid = agent;
    int code = it_sh(p.out, p.err,
                     "'%s' run --expect 1 --wait 3s --bind %s --key '%s/%s.key_secret' "
                     "--allow-keys '%s' --out '%s' '%s'",
                     it_bin("rackbench"), ep, p.keys, coord_key, p.allow, p.runs, p.plan);
    assert_int_equal(code, 3);
    const char *used = strcmp(coord_key, "coord") == 0 ? coord_pub : other_pub;
    snprintf(text, sizeof text,
             "a peer's HELLO did not decrypt with this coordinator's key pair, whose public key "
             "%s is not the one that agent holds",
             used);
    assert_true(s_contains(p.err, text));
    assert_int_equal(s_count_text(p.err, "did not decrypt"), 1);
    snprintf(text, sizeof text,
             "failed because the keys do not match: the agents may hold a different coordinator "
             "key (their --coordinator-key must hold the public key %s of this coordinator)",
             used);
    assert_true(s_contains(p.err, text));
    snprintf(text, sizeof text,
             "the coordinator's public key does not match --coordinator-key %s/%s.key, or the "
             "coordinator runs with another --key or without CURVE",
             p.keys, agent_ckey);
    assert_int_equal(it_wait_for_text(p.aerr, text, it_deadline(10000)), 0);
    snprintf(text, sizeof text, "handshake with %s failed (the coordinator closed the connection",
             ep);
    assert_true(s_contains(p.aerr, text));
    s_stop_agent(&p, agent);
    assert_int_equal(s_count_text(p.aerr, "does not match"), 1);
    it_rmtree(p.dir);
}

/* Issue 19, 8: the agent holds another key than the coordinator's. */
static void test_curve_failure_explained_wrong_coordinator_key(void **state)
{
    (void)state;
    s_key_mismatch("explwrongckey", "other", "coord");
}

/* Issue 19, 8: the coordinator runs with another key pair than the one
 * whose public key the agents hold. */
static void test_curve_failure_explained_wrong_key_pair(void **state)
{
    (void)state;
    s_key_mismatch("explwrongpair", "coord", "other");
}

/* Issue 19, 8: an agent without CURVE (--insecure) and a coordinator with
 * it: the agent says to give it keys, the coordinator counts peers without
 * CURVE. */
static void test_curve_failure_explained_insecure_agent(void **state)
{
    (void)state;
    paths_t p;
    char pub[64], ep[64], text[512];
    s_paths(&p, "explinsecure");
    s_keygen(&p, "coord", pub, sizeof pub);
    s_keygen(&p, "a1", pub, sizeof pub);
    it_sh(NULL, NULL, "cp '%s/a1.key' '%s/'", p.keys, p.allow);
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", s_free_port());
    int agent = it_sh_bg(p.aout, p.aerr, "'%s' --coordinator %s --name a1 --root '%s' --insecure",
                         it_bin("rackbench-agent"), ep, p.data);
    s_daemon_pid = agent;
    int code = it_sh(p.out, p.err,
                     "'%s' run --expect 1 --wait 3s --bind %s --key '%s/coord.key_secret' "
                     "--allow-keys '%s' --out '%s' '%s'",
                     it_bin("rackbench"), ep, p.keys, p.allow, p.runs, p.plan);
    assert_int_equal(code, 3);
    assert_true(s_contains(p.err, "does not use CURVE (an agent started with --insecure?)"));
    assert_true(s_contains(p.err, "without CURVE (agents with --insecure?)"));
    snprintf(text, sizeof text,
             "handshake with %s failed: the coordinator uses CURVE and this agent does not "
             "(--insecure): give it --key and --coordinator-key",
             ep);
    assert_int_equal(it_wait_for_text(p.aerr, text, it_deadline(10000)), 0);
    s_stop_agent(&p, agent);
    assert_int_equal(s_count_text(p.aerr, "the coordinator uses CURVE"), 1);
    it_rmtree(p.dir);
}

/* --insecure on an address other hosts can reach is a usage error saying
 * why, for the coordinator and the agent. */
static void test_insecure_network(void **state)
{
    (void)state;
    paths_t p;
    s_paths(&p, "insecurenet");
    const char *eps[] = {"tcp://0.0.0.0:7779", "tcp://10.1.2.3:7779", "tcp://*:7779"};
    for (size_t i = 0; i < sizeof eps / sizeof eps[0]; i++) {
        int code = it_sh(p.out, p.err, "'%s' run --expect 1 --insecure --bind '%s' --out '%s' '%s'",
                         it_bin("rackbench"), eps[i], p.runs, p.plan);
        assert_int_equal(code, 2);
        assert_true(s_contains(p.err, "--insecure is allowed only on loopback"));
        assert_true(s_contains(p.err, eps[i]));
        code = it_sh(p.out, p.err, "'%s' --coordinator '%s' --insecure --name n1 --root '%s'",
                     it_bin("rackbench-agent"), eps[i], p.data);
        assert_int_equal(code, 2);
        assert_true(s_contains(p.err, "--insecure is allowed only on loopback"));
    }
    /* nothing was started: no run folder */
    assert_int_equal(it_count_files(p.runs), 0);
    it_rmtree(p.dir);
}

/* tcp:// without keys and without --insecure: exit 2 naming what is missing. */
static void test_tcp_without_keys(void **state)
{
    (void)state;
    paths_t p;
    char ep[64];
    s_paths(&p, "nokeys");
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", s_free_port());
    int code = it_sh(p.out, p.err, "'%s' run --expect 1 --bind %s --out '%s' '%s'",
                     it_bin("rackbench"), ep, p.runs, p.plan);
    assert_int_equal(code, 2);
    assert_true(s_contains(p.err, "--key and --allow-keys are missing"));
    code = it_sh(p.out, p.err, "'%s' run --expect 1 --out '%s' '%s'", it_bin("rackbench"), p.runs,
                 p.plan);
    assert_int_equal(code, 2);
    assert_true(s_contains(p.err, "tcp://*:7770"));
    assert_true(s_contains(p.err, "--key and --allow-keys are missing"));
    code = it_sh(p.out, p.err, "'%s' --coordinator %s --name n1 --root '%s'",
                 it_bin("rackbench-agent"), ep, p.data);
    assert_int_equal(code, 2);
    assert_true(s_contains(p.err, "--key and --coordinator-key are missing"));
    it_rmtree(p.dir);
}

/* --insecure on loopback: no keys, both sides agree, the run completes. */
static void test_insecure_loopback(void **state)
{
    (void)state;
    paths_t p;
    char ep[64];
    s_paths(&p, "insecurelo");
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", s_free_port());
    int agent =
        it_sh_bg(p.aout, p.aerr, "'%s' --coordinator %s --insecure --name a1 --root '%s' --once",
                 it_bin("rackbench-agent"), ep, p.data);
    int code = it_sh(p.out, p.err,
                     "'%s' run --expect 1 --wait 20s --insecure --bind %s --out "
                     "'%s' '%s'",
                     it_bin("rackbench"), ep, p.runs, p.plan);
    assert_int_equal(it_show_failure(code, p.err), 0);
    assert_true(s_contains(p.err, "--insecure: no CURVE"));
    assert_int_equal(it_wait(agent), 0);
    it_rmtree(p.dir);
}

/* --local makes keys of its own: the agents join over CURVE, and the key
 * folder is gone afterwards. --key with --local is a usage error. */
static void test_local_keys(void **state)
{
    (void)state;
    paths_t p;
    char text[4400];
    s_paths(&p, "localkeys");
    snprintf(text, sizeof text, "[global]\ndirectory=%s\nbs=64k\nsize=1M\n\n[w]\nrw=write\n",
             p.data);
    it_write(p.plan, text);
    int code = it_sh(p.out, p.err, "'%s' run --local 2 --verbose --out '%s' '%s'",
                     it_bin("rackbench"), p.runs, p.plan);
    assert_int_equal(it_show_failure(code, p.err), 0);
    assert_true(s_contains(p.err, "CURVE on: 2 allowed agent keys"));
    assert_true(s_contains(p.err, "(local-1) from 127.0.0.1"));
    assert_true(s_contains(p.err, "(local-2) from 127.0.0.1"));
    DIR *d = opendir(p.runs);
    struct dirent *de;
    int keydirs = 0;
    while (d && (de = readdir(d)))
        keydirs += strncmp(de->d_name, ".keys-", 6) == 0;
    if (d)
        closedir(d);
    assert_int_equal(keydirs, 0);
    code = it_sh(p.out, p.err, "'%s' run --local 1 --key '%s/x.key_secret' --out '%s' '%s'",
                 it_bin("rackbench"), p.keys, p.runs, p.plan);
    assert_int_equal(code, 2);
    assert_true(s_contains(p.err, "--local makes keys of its own"));
    /* and --insecure still works for --local on loopback */
    code = it_sh(p.out, p.err, "'%s' run --local 1 --insecure --quiet --out '%s' '%s'",
                 it_bin("rackbench"), p.runs, p.plan);
    assert_int_equal(it_show_failure(code, p.err), 0);
    it_rmtree(p.dir);
}

/* ---- binding (issue 19, item 7) ---- */

/* The port of the endpoint the coordinator said it is on ("coordinator on
 * tcp://HOST:PORT"), once it said so; -1 after the deadline. */
static int s_bound_port(const char *err_path, const char *host)
{
    char text[300];
    snprintf(text, sizeof text, "coordinator on tcp://%s:", host);
    if (it_wait_for_text(err_path, text, it_deadline(30000)) < 0)
        return -1;
    char *t = it_read(err_path);
    assert_non_null(t);
    int port = atoi(strstr(t, text) + strlen(text));
    free(t);
    return port;
}

/* A run on a bind endpoint documented for --insecure (bind) with a daemon
 * agent connecting to connect_fmt (%d: the port the coordinator chose). */
static void s_bind_run(const char *name, const char *bind, const char *said,
                       const char *connect_fmt)
{
    paths_t p;
    char ep[128];
    s_paths(&p, name);
    int coord = it_sh_bg(p.out, p.err,
                         "'%s' run --expect 1 --wait 30s --insecure --bind '%s' "
                         "--out '%s' '%s'",
                         it_bin("rackbench"), bind, p.runs, p.plan);
    int port = s_bound_port(p.err, said);
    assert_true(port > 0);
    snprintf(ep, sizeof ep, connect_fmt, port);
    int agent =
        it_sh_bg(p.aout, p.aerr, "'%s' --coordinator '%s' --insecure --name a1 --root '%s' --once",
                 it_bin("rackbench-agent"), ep, p.data);
    assert_int_equal(it_show_failure(it_wait_exit(coord, it_deadline(60000)), p.err), 0);
    assert_int_equal(it_show_failure(it_wait_exit(agent, it_deadline(10000)), p.aerr), 0);
    it_rmtree(p.dir);
}

/* tcp://localhost:PORT, which ZeroMQ took for an interface name: binds (as
 * 127.0.0.1) and serves an agent connecting to localhost. */
static void test_bind_localhost(void **state)
{
    (void)state;
    s_bind_run("bindlocalhost", "tcp://localhost:*", "127.0.0.1", "tcp://localhost:%d");
}

/* tcp://[::1]:PORT, which needs ZMQ_IPV6 on both sides. */
static void test_bind_ipv6_loopback(void **state)
{
    (void)state;
    int fd = socket(AF_INET6, SOCK_STREAM, 0);
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    int ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
    if (fd >= 0)
        close(fd);
    if (!ok)
        rb_skip("no IPv6 loopback on this machine");
    s_bind_run("bindipv6", "tcp://[::1]:*", "[::1]", "tcp://[::1]:%d");
}

/* A bind that fails (the port taken): exit 2 naming the endpoint and the
 * reason, and no run folder left behind. */
static void test_bind_failure(void **state)
{
    (void)state;
    paths_t p;
    char ep[64], text[200];
    s_paths(&p, "bindfail");
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, 1), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", ntohs(a.sin_port));
    int code = it_sh(p.out, p.err, "'%s' run --expect 1 --insecure --bind %s --out '%s' '%s'",
                     it_bin("rackbench"), ep, p.runs, p.plan);
    close(fd);
    assert_int_equal(code, 2);
    snprintf(text, sizeof text, "cannot bind --bind %s: Address already in use", ep);
    assert_true(s_contains(p.err, text));
    DIR *d = opendir(p.runs);
    struct dirent *de;
    int entries = 0;
    while (d && (de = readdir(d)))
        entries += de->d_name[0] != '.' || strncmp(de->d_name, ".keys-", 6) == 0;
    if (d)
        closedir(d);
    assert_int_equal(entries, 0);
    /* --local's keys are made before the bind, and go with the failure too */
    char text2[4400];
    snprintf(text2, sizeof text2, "[global]\ndirectory=%s\nbs=64k\nsize=1M\n\n[w]\nrw=write\n",
             p.data);
    it_write(p.plan, text2);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    a.sin_port = 0;
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(fd, 1), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    snprintf(ep, sizeof ep, "tcp://127.0.0.1:%d", ntohs(a.sin_port));
    code = it_sh(p.out, p.err, "'%s' run --local 2 --bind %s --out '%s' '%s'", it_bin("rackbench"),
                 ep, p.runs, p.plan);
    close(fd);
    assert_int_equal(code, 2);
    snprintf(text, sizeof text, "cannot bind --bind %s", ep);
    assert_true(s_contains(p.err, text));
    d = opendir(p.runs);
    entries = 0;
    while (d && (de = readdir(d)))
        entries += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
    if (d)
        closedir(d);
    assert_int_equal(entries, 0);
    it_rmtree(p.dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keygen),
        cmocka_unit_test(test_keygen_makes_parents),
        cmocka_unit_test(test_tcp_allowed),
        cmocka_unit_test(test_tcp_refused),
        cmocka_unit_test(test_insecure_network),
        cmocka_unit_test(test_tcp_without_keys),
        cmocka_unit_test(test_insecure_loopback),
        cmocka_unit_test(test_local_keys),
        cmocka_unit_test_teardown(test_refused_agent_rejoins, s_kill_daemon),
        cmocka_unit_test_teardown(test_curve_failure_explained_refused, s_kill_daemon),
        cmocka_unit_test_teardown(test_curve_failure_explained_wrong_coordinator_key,
                                  s_kill_daemon),
        cmocka_unit_test_teardown(test_curve_failure_explained_wrong_key_pair, s_kill_daemon),
        cmocka_unit_test_teardown(test_curve_failure_explained_insecure_agent, s_kill_daemon),
        cmocka_unit_test(test_bind_localhost),
        cmocka_unit_test(test_bind_ipv6_loopback),
        cmocka_unit_test(test_bind_failure),
    };
    return rb_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
