/* Each node's bandwidth series over a phase (rb_series): the points it keeps
 * from samples fed one at a time, the short tail left out, and the bound of
 * RB_SERIES_POINTS points beyond which a point is the mean rate of 2, 4, ...
 * intervals. The values are worked out by hand in the comments.
 */
#include <errno.h>
#include <math.h>
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

#include "rb_aggregate.h"
#include "rb_csv.h"
#include "rb_findings.h"
#include "rb_result.h"
#include "rb_series.h"

static void test_interval(void **state)
{
    (void)state;
    /* the interval is the sample's start over the interval length */
    assert_int_equal(rb_series_interval(1.0, 1.0, 1.0), 0);
    assert_int_equal(rb_series_interval(2.0, 1.0, 1.0), 1);
    assert_int_equal(rb_series_interval(3.2, 0.2, 1.0), 3);
    assert_int_equal(rb_series_interval(2.5, 0.5, 0.5), 4);
    /* a start a little off the grid rounds to the nearest interval */
    assert_int_equal(rb_series_interval(2.04, 0.999, 1.0), 1);
    /* a start before GO counts in the first interval */
    assert_int_equal(rb_series_interval(0.5, 1.0, 1.0), 0);
    /* no interval length, or an interval too far away: none */
    assert_int_equal(rb_series_interval(1.0, 1.0, 0), -1);
    assert_int_equal(rb_series_interval(1e9, 1.0, 1.0), -1);
}

/* Three nodes over 1 s intervals:
 *   node 0: 100, 200, 300 bytes in intervals 0..2, then 50 bytes in a 0.2 s
 *           tail (interval 3) that is less than half an interval: left out;
 *   node 1: 400 bytes in interval 1 only (two samples of 150 and 250, two
 *           jobs of the node);
 *   node 2: nothing.
 * Points: node 0 [100, 200, 300] B/s, node 1 [0, 400, 0], node 2 NULL. */
static void test_hand_worked(void **state)
{
    (void)state;
    rb_series_t *s = rb_series_new(3, 1.0);
    assert_non_null(s);
    assert_int_equal(rb_series_add(s, 0, 1.0, 1.0, 100), 0);
    assert_int_equal(rb_series_add(s, 1, 2.0, 1.0, 150), 0);
    assert_int_equal(rb_series_add(s, 0, 2.0, 1.0, 200), 0);
    assert_int_equal(rb_series_add(s, 1, 2.0, 1.0, 250), 0);
    assert_int_equal(rb_series_add(s, 0, 3.0, 1.0, 300), 0);
    assert_int_equal(rb_series_add(s, 0, 3.2, 0.2, 50), 0);
    /* a node out of range and a sample outside every interval are passed over */
    assert_int_equal(rb_series_add(s, 3, 1.0, 1.0, 1e6), 0);
    assert_int_equal(rb_series_add(s, 0, 1e9, 1.0, 1e6), 0);

    double **series, point_s;
    uint32_t nint;
    assert_int_equal(rb_series_take(s, &series, &nint, &point_s), 0);
    assert_int_equal(nint, 3);
    assert_true(point_s == 1.0);
    assert_non_null(series[0]);
    assert_non_null(series[1]);
    assert_null(series[2]);
    const double want0[3] = {100, 200, 300}, want1[3] = {0, 400, 0};
    for (int k = 0; k < 3; k++) {
        assert_true(series[0][k] == want0[k]);
        assert_true(series[1][k] == want1[k]);
    }
    rb_series_free(series, 3);

    /* taken: s is empty and can be fed again */
    assert_int_equal(rb_series_take(s, &series, &nint, &point_s), 0);
    assert_int_equal(nint, 0);
    rb_series_free(series, 3);
    assert_int_equal(rb_series_add(s, 2, 0.5, 0.5, 10), 0); /* 0.5 s: not a tail, alone */
    assert_int_equal(rb_series_take(s, &series, &nint, &point_s), 0);
    assert_int_equal(nint, 1);
    assert_null(series[0]);
    assert_true(series[2][0] == 20); /* 10 bytes over 0.5 s */
    rb_series_free(series, 3);

    rb_series_destroy(&s);
    assert_null(s);
    rb_series_destroy(&s); /* safe twice */
}

/* A tail of at least half an interval is a point of its own, its rate over
 * its own length: 0.5 s and 60 bytes give 120 B/s. */
static void test_long_tail_kept(void **state)
{
    (void)state;
    rb_series_t *s = rb_series_new(1, 1.0);
    assert_non_null(s);
    assert_int_equal(rb_series_add(s, 0, 1.0, 1.0, 100), 0);
    assert_int_equal(rb_series_add(s, 0, 1.5, 0.5, 60), 0);
    double **series, point_s;
    uint32_t nint;
    assert_int_equal(rb_series_take(s, &series, &nint, &point_s), 0);
    assert_int_equal(nint, 2);
    assert_true(series[0][0] == 100);
    assert_true(series[0][1] == 120);
    rb_series_free(series, 1);
    rb_series_destroy(&s);
}

/* Feeds node 0 n intervals of 1 s, interval k carrying k bytes (rate k). */
static rb_series_t *s_ramp(uint32_t n)
{
    rb_series_t *s = rb_series_new(1, 1.0);
    assert_non_null(s);
    for (uint32_t k = 0; k < n; k++)
        assert_int_equal(rb_series_add(s, 0, k + 1.0, 1.0, (double)k), 0);
    return s;
}

/* Exactly RB_SERIES_POINTS intervals: one point each. */
static void test_bound_not_reached(void **state)
{
    (void)state;
    rb_series_t *s = s_ramp(RB_SERIES_POINTS);
    double **series, point_s;
    uint32_t nint;
    assert_int_equal(rb_series_take(s, &series, &nint, &point_s), 0);
    assert_int_equal(nint, RB_SERIES_POINTS);
    assert_true(point_s == 1.0);
    for (uint32_t k = 0; k < nint; k++)
        assert_true(series[0][k] == (double)k);
    rb_series_free(series, 1);
    rb_series_destroy(&s);
}

/* 1024 intervals: 512 points of 2 intervals, point q the mean of rates 2q
 * and 2q + 1, i.e. 2q + 0.5. */
static void test_points_of_two(void **state)
{
    (void)state;
    rb_series_t *s = s_ramp(2 * RB_SERIES_POINTS);
    double **series, point_s;
    uint32_t nint;
    assert_int_equal(rb_series_take(s, &series, &nint, &point_s), 0);
    assert_int_equal(nint, RB_SERIES_POINTS);
    assert_true(point_s == 2.0);
    for (uint32_t q = 0; q < nint; q++)
        assert_true(series[0][q] == 2.0 * q + 0.5);
    rb_series_free(series, 1);
    rb_series_destroy(&s);
}

/* 1025 intervals: interval 1024 needs a 513th point of 2, so points hold 4
 * intervals: 257 points, point q the mean of 4q .. 4q + 3 (4q + 1.5), and
 * the last one holds interval 1024 alone: its rate over its own second,
 * 1024, not over the 4 s of a full point. */
static void test_points_of_four_partial_last(void **state)
{
    (void)state;
    rb_series_t *s = s_ramp(2 * RB_SERIES_POINTS + 1);
    double **series, point_s;
    uint32_t nint;
    assert_int_equal(rb_series_take(s, &series, &nint, &point_s), 0);
    assert_int_equal(nint, RB_SERIES_POINTS / 2 + 1);
    assert_true(point_s == 4.0);
    for (uint32_t q = 0; q + 1 < nint; q++)
        assert_true(series[0][q] == 4.0 * q + 1.5);
    assert_true(series[0][nint - 1] == 2.0 * RB_SERIES_POINTS);
    rb_series_free(series, 1);
    rb_series_destroy(&s);
}

/* A day at one sample a second on two nodes: never more than
 * RB_SERIES_POINTS points, each of a power of two intervals, and the bytes
 * over the points' seconds are the bytes fed. */
static void test_bound_long_phase(void **state)
{
    (void)state;
    const uint32_t n = 86400;
    rb_series_t *s = rb_series_new(2, 1.0);
    assert_non_null(s);
    for (uint32_t k = 0; k < n; k++) {
        assert_int_equal(rb_series_add(s, 0, k + 1.0, 1.0, 1000), 0);
        assert_int_equal(rb_series_add(s, 1, k + 1.0, 1.0, (double)(k % 7)), 0);
    }
    double **series, point_s;
    uint32_t nint;
    assert_int_equal(rb_series_take(s, &series, &nint, &point_s), 0);
    assert_true(nint <= RB_SERIES_POINTS);
    assert_true(nint > RB_SERIES_POINTS / 2);
    /* 86400 / 512 = 168.75: points of 256 intervals, 338 of them */
    assert_true(point_s == 256.0);
    assert_int_equal(nint, (n + 255) / 256);
    double total = 0;
    for (uint32_t q = 0; q < nint; q++) {
        assert_true(series[0][q] == 1000); /* a steady rate stays that rate */
        double secs = q + 1 < nint ? point_s : n - q * point_s;
        total += series[1][q] * secs;
    }
    double fed = 0;
    for (uint32_t k = 0; k < n; k++)
        fed += k % 7;
    assert_true(total > fed - 1e-6 * fed && total < fed + 1e-6 * fed);
    rb_series_free(series, 2);
    rb_series_destroy(&s);
}

/* Every interval's length is the longest a node gave it: node 0 reports a
 * 1 s interval 0, node 1 a 0.8 s one; the point is over 1 s for both. */
static void test_interval_length_per_phase(void **state)
{
    (void)state;
    rb_series_t *s = rb_series_new(2, 1.0);
    assert_non_null(s);
    assert_int_equal(rb_series_add(s, 0, 1.0, 1.0, 500), 0);
    assert_int_equal(rb_series_add(s, 1, 1.0, 0.8, 400), 0);
    double **series, point_s;
    uint32_t nint;
    assert_int_equal(rb_series_take(s, &series, &nint, &point_s), 0);
    assert_int_equal(nint, 1);
    assert_true(series[0][0] == 500);
    assert_true(series[1][0] == 400);
    rb_series_free(series, 2);
    rb_series_destroy(&s);
}

/* The same samples fed one at a time and written to samples.csv and read
 * back (rb_result_samples_node_series) give the same series: 1100 intervals of
 * 1 s (points of 4), n1 on a ramp, n2 steady, n3 silent, a node the phase
 * does not know, another phase's rows and a short tail. */
static void test_same_as_samples_csv(void **state)
{
    (void)state;
    char dir[4096], path[4200];
    mkdir(RB_TEST_TMP, 0755);
    snprintf(dir, sizeof dir, "%s/csv-%d", RB_TEST_TMP, (int)getpid());
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/samples.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(rb_csv_header(&rb_csv_samples, f), 0);
    rb_agg_node_t nodes[3];
    memset(nodes, 0, sizeof nodes);
    for (int n = 0; n < 3; n++)
        snprintf(nodes[n].name, sizeof nodes[n].name, "n%d", n + 1);
    rb_series_t *s = rb_series_new(3, 1.0);
    assert_non_null(s);
    for (uint32_t k = 0; k <= 1100; k++) {
        double iv = k == 1100 ? 0.3 : 1.0, t = k + iv;
        rb_job_stat_t a = {.bytes = 1000u * (k + 1)}, b = {.bytes = 5000}, x = {.bytes = 1};
        rb_csv_samples_row(f, t, 0, "w", "n1", "r", "j", iv, &a);
        rb_csv_samples_row(f, t, 0, "w", "n2", "r", "j", iv, &b);
        rb_csv_samples_row(f, t, 0, "w", "nX", "r", "j", iv, &x);
        rb_csv_samples_row(f, t, 0, "other", "n3", "r", "j", iv, &x);
        assert_int_equal(rb_series_add(s, 0, rb_csv_time(t), iv, (double)a.bytes), 0);
        assert_int_equal(rb_series_add(s, 1, rb_csv_time(t), iv, (double)b.bytes), 0);
    }
    assert_int_equal(fclose(f), 0);

    double **mem, **file, mem_s, file_s;
    uint32_t mem_n, file_n;
    assert_int_equal(rb_series_take(s, &mem, &mem_n, &mem_s), 0);
    assert_int_equal(
        rb_result_samples_node_series(dir, "w", 1.0, nodes, 3, &file, &file_n, &file_s), 0);
    assert_int_equal(file_n, mem_n);
    assert_int_equal(mem_n, (1100 + 3) / 4);
    assert_true(file_s == mem_s && mem_s == 4.0);
    assert_null(mem[2]);
    assert_null(file[2]);
    for (uint32_t n = 0; n < 2; n++)
        for (uint32_t q = 0; q < mem_n; q++)
            if (file[n][q] != mem[n][q])
                fail_msg("node %u point %u: %.17g from the file, %.17g in memory", n, q, file[n][q],
                         mem[n][q]);
    assert_true(mem[1][0] == 5000);
    assert_true(mem[0][0] == 2500); /* (1000 + 2000 + 3000 + 4000) / 4 */
    rb_series_free(mem, 3);
    rb_result_samples_series_free(file, 3);
    rb_series_destroy(&s);
    unlink(path);
    rmdir(dir);
}

/* A short tail that shares a coarse point with full intervals counts with
 * its own seconds, as its bytes do. 1026 intervals of 1000 B/s and a 0.2 s
 * tail of 200 bytes (1000 B/s too): points of 4 intervals; the last point
 * holds intervals 1024 and 1025 and the tail 1026: 2200 bytes over 2.2 s,
 * 1000 B/s (it read 2200 / 2 = 1100 when the tail's seconds were left out
 * but not its bytes). */
static void test_tail_in_coarse_point(void **state)
{
    (void)state;
    rb_series_t *s = rb_series_new(1, 1.0);
    assert_non_null(s);
    for (uint32_t k = 0; k < 1026; k++)
        assert_int_equal(rb_series_add(s, 0, k + 1.0, 1.0, 1000), 0);
    assert_int_equal(rb_series_add(s, 0, 1026.2, 0.2, 200), 0);
    double **series, point_s;
    uint32_t nint;
    assert_int_equal(rb_series_take(s, &series, &nint, &point_s), 0);
    assert_true(point_s == 4.0);
    assert_int_equal(nint, 257);
    double last = series[0][nint - 1];
    rb_series_free(series, 1);
    rb_series_destroy(&s);
    if (fabs(last - 1000) > 1e-9)
        fail_msg("last point %.6f B/s, want 1000 (the tail's bytes and seconds both counted)",
                 last);
}

/* A node silent for several intervals (stopped) sends one long sample: its
 * bytes count in the last interval it covers, the ones before moved
 * nothing, and the other nodes' intervals keep their own length. */
static void test_long_sample_split(void **state)
{
    (void)state;
    rb_series_t *s = rb_series_new(2, 1.0);
    assert_non_null(s);
    for (int k = 0; k < 8; k++) {
        assert_int_equal(rb_series_add(s, 0, k + 1.0, 1.0, 100), 0);
        if (k < 2 || k > 4)
            assert_int_equal(rb_series_add(s, 1, k + 1.0, 1.0, 100), 0);
    }
    assert_int_equal(rb_series_add(s, 1, 5.0, 3.0, 150), 0); /* intervals 2, 3, 4 */
    double **ser = NULL, point_s = 0;
    uint32_t nint = 0;
    assert_int_equal(rb_series_take(s, &ser, &nint, &point_s), 0);
    assert_int_equal(nint, 8);
    for (uint32_t k = 0; k < 8; k++)
        assert_float_equal(ser[0][k], 100, 1e-9);
    static const double want[8] = {100, 100, 0, 0, 150, 100, 100, 100};
    for (uint32_t k = 0; k < 8; k++)
        assert_float_equal(ser[1][k], want[k], 1e-9);

    /* the stall: node 1, from 2 s for 2 s; the cluster dipped to 100 B/s */
    rb_phase_agg_t a = {.nnodes = 2};
    rb_agg_node_t nodes[2] = {{.name = "n1"}, {.name = "n2"}};
    a.nodes = nodes;
    assert_int_equal(rb_findings_stalls(&a, (const double *const *)ser, nint, point_s), 0);
    assert_int_equal(a.nfindings, 1);
    assert_int_equal(a.findings[0].kind, RB_FIND_STALL);
    assert_string_equal(a.findings[0].node, "n2");
    assert_float_equal(a.findings[0].first_seen_s, 2.0, 1e-9);
    assert_float_equal(a.findings[0].length_s, 2.0, 1e-9);
    assert_float_equal(a.max_stall_s, 2.0, 1e-9);
    assert_int_equal(a.nbw_points, 8);
    assert_float_equal(rb_findings_min_window_bw(&a, 0), 100, 1e-9);
    assert_float_equal(rb_findings_min_window_bw(&a, 2), 100, 1e-9);
    assert_float_equal(rb_findings_min_window_bw(&a, 3), (200 + 100 + 100) / 3.0, 1e-9);
    assert_float_equal(rb_findings_min_window_bw(&a, 100), 1450 / 8.0, 1e-9);
    free(a.findings);
    free(a.bw_points);
    rb_series_free(ser, 2);
    rb_series_destroy(&s);
}

/* Every node stops together: one stall of the cluster, none of its nodes;
 * a node that finishes early, or a dip of one interval, is no stall. */
static void test_cluster_stall(void **state)
{
    (void)state;
    double n1[10] = {10, 10, 10, 1, 0, 0, 10, 10, 10, 10};
    double n2[10] = {10, 10, 10, 0, 0, 1, 10, 2, 10, 0};
    double n3[10] = {10, 10, 10, 0, 0, 0, 10, 10, 0, 0};
    const double *ser[3] = {n1, n2, n3};
    rb_phase_agg_t a = {.nnodes = 3};
    rb_agg_node_t nodes[3] = {{.name = "n1"}, {.name = "n2"}, {.name = "n3"}};
    a.nodes = nodes;
    assert_int_equal(rb_findings_stalls(&a, ser, 10, 1.0), 0);
    /* active points: 0..7 (n3 stops after 7); cluster 30,30,30,1,0,1,30,22 */
    assert_int_equal(a.nbw_points, 8);
    assert_int_equal(a.nfindings, 1);
    assert_string_equal(a.findings[0].node, "");
    assert_float_equal(a.findings[0].first_seen_s, 3.0, 1e-9);
    assert_float_equal(a.findings[0].length_s, 3.0, 1e-9);
    assert_float_equal(rb_findings_min_window_bw(&a, 0), 0, 1e-9);
    free(a.findings);
    free(a.bw_points);
    /* the same dip over points of 0.25 s lasts 0.75 s: under RB_STALL_MIN_S, no stall */
    memset(&a, 0, sizeof a);
    a.nnodes = 3;
    a.nodes = nodes;
    assert_int_equal(rb_findings_stalls(&a, ser, 10, 0.25), 0);
    assert_int_equal(a.nfindings, 0);
    assert_float_equal(a.max_stall_s, 0, 1e-9);
    free(a.findings);
    free(a.bw_points);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_interval),
        cmocka_unit_test(test_hand_worked),
        cmocka_unit_test(test_long_tail_kept),
        cmocka_unit_test(test_bound_not_reached),
        cmocka_unit_test(test_points_of_two),
        cmocka_unit_test(test_points_of_four_partial_last),
        cmocka_unit_test(test_bound_long_phase),
        cmocka_unit_test(test_interval_length_per_phase),
        cmocka_unit_test(test_same_as_samples_csv),
        cmocka_unit_test(test_tail_in_coarse_point),
        cmocka_unit_test(test_long_sample_split),
        cmocka_unit_test(test_cluster_stall),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
