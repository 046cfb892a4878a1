/* A peer that speaks the protocol out of turn, against the real
 * coordinator: it joins a run as one of two agents, then sends a SAMPLE for
 * a run that is not this one and a DONE before any GO. Each is dropped,
 * counted in summary.json, and the peer is told why; the run itself goes on
 * and fails only because the peer never runs its phase. */
#include <czmq.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "it_util.h"
#include "rb_json.h"
#include "rb_proto.h"

static void s_send(zsock_t *s, const rb_msg_t *m)
{
    void *buf = NULL;
    size_t len = 0;
    rb_err_t err;
    rb_err_clear(&err);
    assert_int_equal(rb_msg_encode(m, &buf, &len, &err), 0);
    zframe_t *f = zframe_new(buf, len);
    free(buf);
    assert_int_equal(zframe_send(&f, s, 0), 0);
}

/* Waits up to ms for a message of type t; 1 with m filled (caller finis). */
static int s_expect(zsock_t *s, rb_msg_type_t t, int ms, rb_msg_t *m)
{
    zpoller_t *p = zpoller_new(s, NULL);
    int got = 0;
    for (int64_t end = zclock_mono() + ms; !got && zclock_mono() < end;) {
        if (!zpoller_wait(p, 50))
            continue;
        zframe_t *f = zframe_recv(s);
        rb_err_t err;
        rb_err_clear(&err);
        if (f && rb_msg_decode(zframe_data(f), zframe_size(f), m, &err) == 0) {
            if (m->type == RB_MSG_PING) { /* answer clock probes */
                rb_msg_t pong = {.type = RB_MSG_PONG};
                pong.u.pong.seq = m->u.ping.seq;
                pong.u.pong.t_coord_ns = m->u.ping.t_coord_ns;
                pong.u.pong.t_agent_ns = (uint64_t)zclock_usecs() * 1000;
                s_send(s, &pong);
            }
            got = m->type == t;
            if (!got)
                rb_msg_fini(m);
        }
        zframe_destroy(&f);
    }
    zpoller_destroy(&p);
    return got;
}

static void test_out_of_sequence(void **state)
{
    (void)state;
    const char *dir = it_scratch("protocol");
    char plan[4200], runs[4200], out[4200], err[4200], data[4200], ep[4300], folder[4200];
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    snprintf(data, sizeof data, "%s/data", dir);
    snprintf(ep, sizeof ep, "ipc://%s/coord.sock", dir);
    it_sh(NULL, NULL, "mkdir -p '%s'", data);
    it_write(plan, "[w]\nrw=write\nbs=64k\nsize=1m\n");
    int coord = it_sh_bg(out, err,
                         "'%s' run --expect 2 --bind '%s' --heartbeat 200ms --lost-after 1s "
                         "--wait 10s --quiet --out '%s' '%s'",
                         it_bin("rackbench"), ep, runs, plan);
    int agent = it_sh_bg(NULL, NULL, "'%s' --coordinator '%s' --name real --root '%s' --once",
                         it_bin("rackbench-agent"), ep, data);
    zsock_t *s = zsock_new(ZMQ_DEALER);
    zsock_set_identity(s, "odd");
    assert_int_equal(zsock_connect(s, "%s", ep), 0);
    rb_msg_t hello = {.type = RB_MSG_HELLO};
    snprintf(hello.u.hello.name, sizeof hello.u.hello.name, "odd");
    snprintf(hello.u.hello.rack, sizeof hello.u.hello.rack, "r");
    snprintf(hello.u.hello.hostname, sizeof hello.u.hello.hostname, "h");
    snprintf(hello.u.hello.agent_version, sizeof hello.u.hello.agent_version, "test");
    hello.u.hello.pid = (uint32_t)getpid();
    hello.u.hello.cores = 1;
    rb_msg_t m;
    int joined = 0;
    for (int i = 0; i < 20 && !joined; i++) { /* until the coordinator is up */
        s_send(s, &hello);
        joined = s_expect(s, RB_MSG_PING, 500, &m);
    }
    assert_true(joined);
    rb_msg_fini(&m);
    /* a SAMPLE of another run, and a DONE with no phase running */
    rb_msg_t sample = {.type = RB_MSG_SAMPLE};
    snprintf(sample.u.sample.run_id, sizeof sample.u.sample.run_id, "not-this-run");
    s_send(s, &sample);
    assert_true(s_expect(s, RB_MSG_ERROR, 3000, &m));
    assert_non_null(strstr(m.u.error.reason, "SAMPLE for run not-this-run phase 0 dropped"));
    rb_msg_fini(&m);
    rb_msg_t done = {.type = RB_MSG_DONE};
    s_send(s, &done);
    assert_true(s_expect(s, RB_MSG_ERROR, 3000, &m));
    assert_non_null(strstr(m.u.error.reason, "DONE for run  phase 0 dropped"));
    rb_msg_fini(&m);
    zsock_destroy(&s); /* and it goes silent: lost */
    assert_int_equal(it_wait(coord), 3);
    /* the real agent may not have joined before the run failed (a slow
     * start): then it waits for a coordinator for ever; stop it */
    it_kill_matching(SIGTERM, "rackbench-agent", "--name real ", data, NULL);
    it_wait(agent);
    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);
    assert_int_equal(rb_json_num(rb_json_get(j, "dropped_messages"), -1), 2);
    rb_json_free(&j);
    it_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_out_of_sequence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
