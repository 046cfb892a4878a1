/* A peer that speaks the protocol by hand, against the real coordinator and
 * a real agent. Out of turn: it joins a run as one of two agents, then
 * sends a SAMPLE for a run that is not this one and a DONE before any GO.
 * Each is dropped, counted in summary.json, and the peer is told why; the
 * run itself goes on and fails only because the peer never runs its phase.
 * The clock round before GO: a peer whose clock jumps after HELLO gets its
 * new offset, and one that answers no probe of the round keeps its old one,
 * with a warning, and the run goes on. */
#include <czmq.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "it_util.h"
#include "rb_json.h"
#include "rb_proto.h"

#define S_SEC 1000000000LL

static int64_t s_pong_offset_ns; /* the peer's clock: monotonic + this */
static int s_pong_mute;          /* answer no PING */

static uint64_t s_peer_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)((int64_t)ts.tv_sec * S_SEC + ts.tv_nsec + s_pong_offset_ns);
}

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

/* Waits up to ms (scaled by RB_TEST_TIME_SCALE) for a message of type t;
 * 1 with m filled (caller finis). */
static int s_expect(zsock_t *s, rb_msg_type_t t, int ms, rb_msg_t *m)
{
    zpoller_t *p = zpoller_new(s, NULL);
    int got = 0;
    for (int64_t end = zclock_mono() + (int64_t)ms * RB_TEST_TIME_SCALE;
         !got && zclock_mono() < end;) {
        if (!zpoller_wait(p, 50))
            continue;
        zframe_t *f = zframe_recv(s);
        rb_err_t err;
        rb_err_clear(&err);
        if (f && rb_msg_decode(zframe_data(f), zframe_size(f), m, &err) == 0) {
            if (m->type == RB_MSG_PING && !s_pong_mute) { /* answer clock probes */
                rb_msg_t pong = {.type = RB_MSG_PONG};
                pong.u.pong.seq = m->u.ping.seq;
                pong.u.pong.t_coord_ns = m->u.ping.t_coord_ns;
                pong.u.pong.t_agent_ns = s_peer_clock();
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

/* Says HELLO as "odd" until the coordinator is up and probes its clock. */
static void s_join(zsock_t *s)
{
    rb_msg_t hello = {.type = RB_MSG_HELLO}, m;
    snprintf(hello.u.hello.name, sizeof hello.u.hello.name, "odd");
    snprintf(hello.u.hello.rack, sizeof hello.u.hello.rack, "r");
    snprintf(hello.u.hello.hostname, sizeof hello.u.hello.hostname, "h");
    snprintf(hello.u.hello.agent_version, sizeof hello.u.hello.agent_version, "test");
    hello.u.hello.fingerprint = rb_proto_fingerprint(RB_PROTO_VERSION);
    hello.u.hello.pid = (uint32_t)getpid();
    hello.u.hello.cores = 1;
    int joined = 0;
    for (int i = 0; i < 20 && !joined; i++) {
        s_send(s, &hello);
        joined = s_expect(s, RB_MSG_PING, 500, &m);
    }
    assert_true(joined);
    rb_msg_fini(&m);
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
    int coord =
        it_sh_bg(out, err,
                 "'%s' run --expect 2 --bind '%s' --heartbeat 200ms --lost-after %ds "
                 "--wait %ds --quiet --out '%s' '%s'",
                 it_bin("rackbench"), ep, RB_TEST_TIME_SCALE, 10 * RB_TEST_TIME_SCALE, runs, plan);
    int agent = it_sh_bg(NULL, NULL, "'%s' --coordinator '%s' --name real --root '%s' --once",
                         it_bin("rackbench-agent"), ep, data);
    zsock_t *s = zsock_new(ZMQ_DEALER);
    zsock_set_identity(s, "odd");
    assert_int_equal(zsock_connect(s, "%s", ep), 0);
    s_join(s);
    rb_msg_t m;
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
    kill(agent, SIGTERM);
    it_wait(agent);
    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);
    assert_int_equal(rb_json_num(rb_json_get(j, "dropped_messages"), -1), 2);
    rb_json_free(&j);
    it_rmtree(dir);
}

/* One run of a real agent and the peer "odd", whose clock reads 5 s ahead
 * of the coordinator's when it says HELLO. After READY the peer's clock
 * jumps to 7 s ahead (jump) or it answers no PING any more (mute); it runs
 * its phase by hand (a DONE of one worker) and ends. Returns the peer's
 * clock_offset_s from summary.json; *warned: stderr has the round's warning. */
static double s_clock_run(int mute, int *warned)
{
    const char *dir = it_scratch("clock");
    char plan[4200], runs[4200], err[4200], data[4200], ep[4300], folder[4200];
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    snprintf(data, sizeof data, "%s/data", dir);
    snprintf(ep, sizeof ep, "ipc://%s/coord.sock", dir);
    it_sh(NULL, NULL, "mkdir -p '%s'", data);
    it_write(plan, "[w]\nrw=write\nbs=64k\nsize=1m\n");
    int coord =
        it_sh_bg(NULL, err, "'%s' run --expect 2 --bind '%s' --wait 20s --quiet --out '%s' '%s'",
                 it_bin("rackbench"), ep, runs, plan);
    int agent = it_sh_bg(NULL, NULL, "'%s' --coordinator '%s' --name real --root '%s' --once",
                         it_bin("rackbench-agent"), ep, data);
    s_pong_offset_ns = 5 * S_SEC;
    s_pong_mute = 0;
    zsock_t *s = zsock_new(ZMQ_DEALER);
    zsock_set_identity(s, "odd");
    assert_int_equal(zsock_connect(s, "%s", ep), 0);
    s_join(s);
    rb_msg_t m;
    assert_true(s_expect(s, RB_MSG_PLAN, 10000, &m)); /* its 7 probes answered on the way */
    char run_id[RB_NAME_MAX];
    snprintf(run_id, sizeof run_id, "%s", m.u.plan.run_id);
    rb_msg_fini(&m);
    rb_msg_t ready = {.type = RB_MSG_READY};
    snprintf(ready.u.ready.run_id, sizeof ready.u.ready.run_id, "%s", run_id);
    s_send(s, &ready);
    if (mute)
        s_pong_mute = 1;
    else
        s_pong_offset_ns = 7 * S_SEC;
    assert_true(s_expect(s, RB_MSG_GO, 10000, &m)); /* after the clock round */
    uint64_t start = m.u.go.t_go_ns + (uint64_t)m.u.go.offset_ns;
    rb_msg_fini(&m);
    rb_worker_stat_t w = {
        .t_start_ns = start, .t_end_ns = start + S_SEC / 10, .bytes = 1 << 20, .ops = 16};
    rb_job_stat_t js = {.bytes = 1 << 20, .ops = 16};
    rb_msg_t done = {.type = RB_MSG_DONE};
    snprintf(done.u.done.run_id, sizeof done.u.done.run_id, "%s", run_id);
    done.u.done.nworkers = 1;
    done.u.done.workers = &w;
    done.u.done.njobs = 1;
    done.u.done.jobs = &js;
    s_send(s, &done);
    assert_true(s_expect(s, RB_MSG_END, 10000, &m));
    rb_msg_fini(&m);
    rb_msg_t end = {.type = RB_MSG_END};
    snprintf(end.u.end.run_id, sizeof end.u.end.run_id, "%s", run_id);
    s_send(s, &end);
    assert_int_equal(it_wait(coord), 0);
    assert_int_equal(it_wait(agent), 0);
    zsock_destroy(&s);
    char *log = it_read(err);
    assert_non_null(log);
    *warned = strstr(log, "clock round: 1 of 2 nodes did not answer in time and keep their "
                          "earlier offsets") != NULL;
    free(log);
    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);
    double off = NAN;
    const rb_json_t *nodes = rb_json_get(j, "nodes");
    for (size_t i = 0; i < rb_json_len(nodes); i++)
        if (strcmp(rb_json_str(rb_json_get(rb_json_at(nodes, i), "name")), "odd") == 0)
            off = rb_json_num(rb_json_get(rb_json_at(nodes, i), "clock_offset_s"), NAN);
    /* the peer's worker started at its GO time: no skew beyond the real agent's */
    const rb_json_t *ph = rb_json_at(rb_json_get(j, "phases"), 0);
    assert_true(rb_json_num(rb_json_get(ph, "clock_error_s"), -1) > 0);
    rb_json_free(&j);
    it_rmtree(dir);
    return off;
}

static void test_clock_round(void **state)
{
    (void)state;
    int warned = 1;
    double off = s_clock_run(0, &warned); /* its clock jumped: the round saw it */
    assert_true(fabs(off - 7.0) < 0.05);
    assert_false(warned);
    off = s_clock_run(1, &warned); /* it fell silent to probes: the HELLO's offset */
    assert_true(fabs(off - 5.0) < 0.05);
    assert_true(warned);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_out_of_sequence),
        cmocka_unit_test(test_clock_round),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
