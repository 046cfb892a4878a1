/* Unit tests of fio's minimum rate check (common/rb_minrate.c): nothing in
 * the settling time, a first reading that only marks, a judgement once a
 * cycle has passed, bytes judged before IOs, and a rate above the floor
 * moving the mark. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "rb_minrate.h"

#define MS 1000000ull

static void test_settle_then_mark(void **state)
{
    (void)state;
    rb_minrate_t m = {.min_bps = 2 << 20, .cycle_ns = 1000 * MS};
    uint64_t got = 0;
    /* 1 MiB/s against a 2 MiB/s floor: not judged in the first 2 s */
    assert_int_equal(rb_minrate_check(&m, 0, 1999 * MS, 2 << 20, 512, &got), 0);
    assert_int_equal(m.t_mark, 0);
    /* at 2 s: the first reading marks */
    assert_int_equal(rb_minrate_check(&m, 0, 2000 * MS, 2 << 20, 512, &got), 0);
    assert_int_equal(m.t_mark, 2000 * MS);
    /* within the cycle: nothing */
    assert_int_equal(rb_minrate_check(&m, 0, 2999 * MS, 3 << 20, 768, &got), 0);
    /* a cycle on: 1 MiB in 1 s is below 2 MiB/s */
    assert_int_equal(rb_minrate_check(&m, 0, 3000 * MS, 3 << 20, 768, &got), 1);
    assert_int_equal(got, 1 << 20);
}

static void test_pass_moves_mark(void **state)
{
    (void)state;
    rb_minrate_t m = {.min_bps = 1 << 20, .cycle_ns = 500 * MS};
    uint64_t got = 0;
    uint64_t start = 10 * 1000 * MS;
    assert_int_equal(rb_minrate_check(&m, start, start + 2000 * MS, 8 << 20, 2048, &got), 0);
    assert_int_equal(rb_minrate_check(&m, start, start + 2500 * MS, 10 << 20, 2560, &got), 0);
    assert_int_equal(m.t_mark, start + 2500 * MS);
    assert_int_equal(m.bytes, 10 << 20);
    /* the next half second: 256 KiB, 512 KiB/s */
    assert_int_equal(
        rb_minrate_check(&m, start, start + 3000 * MS, (10 << 20) + (256 << 10), 2624, &got), 1);
    assert_int_equal(got, 512 << 10);
}

static void test_iops_only_without_bytes_floor(void **state)
{
    (void)state;
    uint64_t got = 0;
    /* IOs' floor alone: IOPS judged */
    rb_minrate_t m = {.min_iops = 200, .cycle_ns = 1000 * MS};
    assert_int_equal(rb_minrate_check(&m, 0, 2000 * MS, 800 << 10, 200, &got), 0);
    assert_int_equal(rb_minrate_check(&m, 0, 3000 * MS, 1200 << 10, 300, &got), 1);
    assert_int_equal(got, 100);
    /* both floors: the bytes' is judged (1 MiB/s met), the IOs' not */
    rb_minrate_t b = {.min_bps = 1 << 20, .min_iops = 1000000, .cycle_ns = 1000 * MS};
    assert_int_equal(rb_minrate_check(&b, 0, 2000 * MS, 1, 1, &got), 0);
    assert_int_equal(rb_minrate_check(&b, 0, 3000 * MS, 1 + (1 << 20), 2, &got), 0);
}

static void test_no_floor_and_zero_cycle(void **state)
{
    (void)state;
    uint64_t got = 0;
    rb_minrate_t none = {.cycle_ns = 1000 * MS};
    assert_int_equal(rb_minrate_check(&none, 0, 100000 * MS, 1, 1, &got), 0);
    assert_int_equal(none.t_mark, 0);
    /* rate_cycle=0: a reading each whole millisecond at most */
    rb_minrate_t z = {.min_iops = 1000};
    assert_int_equal(rb_minrate_check(&z, 0, 2000 * MS, 10, 10, &got), 0);
    assert_int_equal(rb_minrate_check(&z, 0, 2000 * MS + 999999, 10, 10, &got), 0);
    assert_int_equal(rb_minrate_check(&z, 0, 2001 * MS, 11, 11, &got), 0);
    assert_int_equal(rb_minrate_check(&z, 0, 2002 * MS, 11, 11, &got), 1);
    assert_int_equal(got, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_settle_then_mark),
        cmocka_unit_test(test_pass_moves_mark),
        cmocka_unit_test(test_iops_only_without_bytes_floor),
        cmocka_unit_test(test_no_floor_and_zero_cycle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
