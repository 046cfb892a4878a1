/* The coordinator's router: when its rounds of HEARTBEATs go out in a
 * phase (rb_router_beat_at). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_beat_at),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
