/* Unit tests of fio's steady-state criterion (common/rb_steady.c): the
 * deviation and the slope of fixed series, as values and as % of the mean,
 * and the window that judges once it is full, oldest sample first. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "rb_steady.h"

static void test_deviation(void **state)
{
    (void)state;
    const double y[] = {100, 102, 98, 100};
    double mean = 0;
    assert_float_equal(rb_steady_criterion(y, 4, 0, 0, &mean), 2.0, 1e-9);
    assert_float_equal(mean, 100.0, 1e-9);
    assert_float_equal(rb_steady_criterion(y, 4, 0, 1, &mean), 2.0, 1e-9);
    /* the largest distance, on either side of the mean */
    const double z[] = {10, 10, 10, 30};
    assert_float_equal(rb_steady_criterion(z, 4, 0, 0, &mean), 15.0, 1e-9);
    assert_float_equal(mean, 15.0, 1e-9);
    assert_float_equal(rb_steady_criterion(z, 4, 0, 1, &mean), 100.0, 1e-9);
}

static void test_slope(void **state)
{
    (void)state;
    double mean = 0;
    const double up[] = {10, 20, 30, 40};
    assert_float_equal(rb_steady_criterion(up, 4, 1, 0, &mean), 10.0, 1e-9);
    assert_float_equal(mean, 25.0, 1e-9);
    assert_float_equal(rb_steady_criterion(up, 4, 1, 1, &mean), 40.0, 1e-9);
    /* falling: the slope's size counts */
    const double down[] = {40, 30, 20, 10};
    assert_float_equal(rb_steady_criterion(down, 4, 1, 0, &mean), 10.0, 1e-9);
    /* flat but noisy: least squares through 5 points */
    const double noisy[] = {100, 104, 96, 104, 96};
    /* Σxy = 0+104+192+312+384 = 992; Σx = 10, Σy = 500; Σx² = 30 */
    assert_float_equal(rb_steady_criterion(noisy, 5, 1, 0, &mean), 0.8, 1e-9); /* |-8 / 10| */
    const double flat[] = {7, 7, 7};
    assert_float_equal(rb_steady_criterion(flat, 3, 1, 1, &mean), 0.0, 1e-12);
    assert_float_equal(rb_steady_criterion(flat, 3, 0, 1, &mean), 0.0, 1e-12);
}

static void test_cannot_judge(void **state)
{
    (void)state;
    double mean = 0;
    const double zero[] = {0, 0, 0};
    assert_true(isinf(rb_steady_criterion(zero, 3, 0, 1, &mean))); /* % of nothing */
    assert_float_equal(rb_steady_criterion(zero, 3, 0, 0, &mean), 0.0, 1e-12);
    const double one[] = {5};
    assert_true(isinf(rb_steady_criterion(one, 1, 1, 0, &mean))); /* no line through one point */
    assert_float_equal(rb_steady_criterion(one, 1, 0, 1, &mean), 0.0, 1e-12);
}

static void test_window(void **state)
{
    (void)state;
    double ring[3], tmp[3], crit = -1, mean = -1;
    rb_steady_t s;
    rb_steady_init(&s, ring, 3);
    /* not judged until full */
    assert_int_equal(rb_steady_add(&s, 100, 0, 1, 5, tmp, &crit, &mean), 0);
    assert_int_equal(rb_steady_add(&s, 50, 0, 1, 5, tmp, &crit, &mean), 0);
    assert_float_equal(crit, -1, 0);
    /* {100, 50, 100}: 33.3 from a mean of 83.3 is 40% */
    assert_int_equal(rb_steady_add(&s, 100, 0, 1, 5, tmp, &crit, &mean), 0);
    assert_float_equal(crit, 40.0, 1e-9);
    assert_int_equal(rb_steady_add(&s, 101, 0, 1, 5, tmp, &crit, &mean), 0);
    /* {100, 101, 100}: the 50 has left the window */
    assert_int_equal(rb_steady_add(&s, 100, 0, 1, 5, tmp, &crit, &mean), 1);
    assert_float_equal(mean, 301.0 / 3, 1e-9);
    assert_float_equal(crit, 100.0 * (101 - 301.0 / 3) / (301.0 / 3), 1e-9);
    /* the limit is strict, as fio's */
    rb_steady_init(&s, ring, 3);
    for (int i = 0; i < 2; i++)
        rb_steady_add(&s, 10, 0, 0, 0, tmp, &crit, &mean);
    assert_int_equal(rb_steady_add(&s, 10, 0, 0, 0, tmp, &crit, &mean), 0);
    assert_float_equal(crit, 0.0, 0);
}

static void test_window_order(void **state)
{
    (void)state;
    /* the ring wraps: the slope still sees the oldest sample first */
    double ring[3], tmp[3], crit = 0, mean = 0;
    rb_steady_t s;
    rb_steady_init(&s, ring, 3);
    rb_steady_add(&s, 40, 1, 0, 1, tmp, &crit, &mean);
    rb_steady_add(&s, 10, 1, 0, 1, tmp, &crit, &mean);
    rb_steady_add(&s, 20, 1, 0, 1, tmp, &crit, &mean);
    assert_int_equal(rb_steady_add(&s, 30, 1, 0, 11, tmp, &crit, &mean), 1);
    assert_float_equal(crit, 10.0, 1e-9);
    assert_int_equal(rb_steady_add(&s, 30, 1, 0, 4.9, tmp, &crit, &mean), 0); /* {20,30,30} */
    assert_float_equal(crit, 5.0, 1e-9);
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(rb_steady_metric_name(RB_SS_IOPS), "iops");
    assert_string_equal(rb_steady_metric_name(RB_SS_IOPS_SLOPE), "iops_slope");
    assert_string_equal(rb_steady_metric_name(RB_SS_BW), "bw");
    assert_string_equal(rb_steady_metric_name(RB_SS_BW_SLOPE), "bw_slope");
    assert_null(rb_steady_metric_name(RB_SS_NONE));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_deviation),    cmocka_unit_test(test_slope),
        cmocka_unit_test(test_cannot_judge), cmocka_unit_test(test_window),
        cmocka_unit_test(test_window_order), cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests_name("steady", tests, NULL, NULL);
}
