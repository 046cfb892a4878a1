/* The coordinator's router: when its rounds of HEARTBEATs go out in a
 * phase (rb_router_beat_at), how long the agents hold their DONEs
 * (rb_router_done_hold), ZeroMQ's threads niced (rb_router_io_nice). */
#include <czmq.h>
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "rb_router.h"
#include "rb_run_int.h"
#include "rb_time.h"

/* In a phase of 1 s intervals and a --heartbeat of 1 s, a round due at
 * any time goes out halfway between two intervals' samples, at most half
 * an interval off; outside a phase, before the agents start, or with
 * intervals longer than --heartbeat, when it is due. */
static void test_beat_at(void **state)
{
    (void)state;
    const uint64_t s = 1000 * RB_NS_PER_MS, go = 50 * s;
    rb_run_opts_t o = {.heartbeat_ns = s};
    static rb_run_ctx_t r;
    r.o = &o;
    r.t_go = go;
    r.interval_ns = s;
    assert_int_equal(rb_router_beat_at(&r, go + 3 * s), go + 3 * s); /* no phase */
    r.beat_ns = 4 * s;
    const uint64_t at[][2] = {{go + 3 * s, go + 3 * s + s / 2},
                              {go + 3 * s + 1, go + 3 * s + s / 2},
                              {go + 3 * s + s / 2, go + 3 * s + s / 2},
                              {go + 4 * s - 1, go + 3 * s + s / 2},
                              {go + s / 10, go + s / 2},
                              {go, go}, /* the agents start then */
                              {go - s, go - s}};
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++)
        assert_int_equal(rb_router_beat_at(&r, at[i][0]), at[i][1]);
    r.interval_ns = 2 * s; /* longer than --heartbeat: a round a --heartbeat */
    assert_int_equal(rb_router_beat_at(&r, go + 3 * s + 7), go + 3 * s + 7);
    r.interval_ns = s / 10; /* 100 ms intervals: within 50 ms */
    assert_int_equal(rb_router_beat_at(&r, go + 3 * s + 1), go + 3 * s + s / 20);
    assert_int_equal(rb_router_beat_at(&r, go + 3 * s + s / 10 - 1), go + 3 * s + s / 20);
}

/* A phase's DONEs are held 20 us an agent, at most half a sample
 * interval, unless --done-hold says (0 too). */
static void test_done_hold(void **state)
{
    (void)state;
    const uint64_t s = 1000 * RB_NS_PER_MS;
    rb_run_opts_t o = {0};
    static rb_run_ctx_t r;
    r.o = &o;
    assert_int_equal(rb_router_done_hold(&r, 16000, s), 320 * RB_NS_PER_MS);
    assert_int_equal(rb_router_done_hold(&r, 4, s), 80 * RB_NS_PER_US);
    assert_int_equal(rb_router_done_hold(&r, 100000, s), s / 2);
    assert_int_equal(rb_router_done_hold(&r, 16000, s / 5), s / 10);
    o.done_hold_set = 1; /* --done-hold 0 */
    assert_int_equal(rb_router_done_hold(&r, 16000, s), 0);
    o.done_hold_ns = 3 * s; /* longer than the interval: as said */
    assert_int_equal(rb_router_done_hold(&r, 16000, s), 3 * s);
}

/* The nice value of this process's thread named name (its first), or 100
 * when there is none: /proc/self/task/TID/stat's 19th field. */
static int s_thread_nice(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    int nice = 100;
    for (struct dirent *e; nice == 100 && (e = readdir(d));) {
        char path[300], stat[1024];
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(stat, 1, sizeof stat - 1, f);
        fclose(f);
        stat[n] = '\0';
        char *open = strchr(stat, '('), *close = strrchr(stat, ')');
        if (!open || !close || (size_t)(close - open - 1) != strlen(name) ||
            strncmp(open + 1, name, strlen(name)) != 0)
            continue;
        /* after the name: state (3), then fields 4 .. 19 */
        char *p = close + 2;
        for (int field = 3; field < 19 && p; field++)
            p = strchr(p + 1, ' ');
        assert_non_null(p);
        nice = atoi(p + 1);
    }
    closedir(d);
    return nice;
}

/* ZeroMQ's context started from a niced thread: its I/O threads run at
 * nice 5 (they inherit it), and this thread's stays as it was. */
static void test_io_nice(void **state)
{
    (void)state;
    int before = getpriority(PRIO_PROCESS, (id_t)gettid());
    zsys_set_io_threads(2);
    assert_int_equal(rb_router_io_nice(), 0);
    zsock_t *s = zsock_new(ZMQ_ROUTER); /* the run's socket, made after */
    assert_non_null(s);
    /* the threads name themselves as they start: wait for it */
    int io0 = 100, io1 = 100;
    for (int i = 0; i < 500 && (io0 == 100 || io1 == 100); i++, usleep(2000)) {
        io0 = s_thread_nice("ZMQbg/IO/0");
        io1 = s_thread_nice("ZMQbg/IO/1");
    }
    assert_int_equal(io0, before + 5 > 19 ? 19 : before + 5);
    assert_int_equal(io1, io0);
    assert_int_equal(getpriority(PRIO_PROCESS, (id_t)gettid()), before);
    zsock_destroy(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_beat_at),
        cmocka_unit_test(test_done_hold),
        cmocka_unit_test(test_io_nice),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
