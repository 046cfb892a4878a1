/* Which files a plan lays out before GO, and how much space it needs: the
 * decisions that keep read phases off files nobody wrote and off the cache. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rb_layout.h"

static rb_job_spec_t s_job(const char *name, rb_rw_t rw, uint64_t size)
{
    rb_job_spec_t j = {.rw = rw,
                       .bs = 4096,
                       .bs_max = 4096,
                       .size = size,
                       .numjobs = 1,
                       .iodepth = 1,
                       .nrfiles = 1,
                       .loops = 1};
    snprintf(j.name, sizeof j.name, "%s", name);
    snprintf(j.ioengine, sizeof j.ioengine, "sync");
    snprintf(j.filename_format, sizeof j.filename_format, "f.$jobnum.$filenum");
    return j;
}

/* Builds a plan of one job per phase, all in run folder 0, and lays it out. */
static rb_layout_t *s_layout(rb_job_spec_t *jobs, uint32_t n)
{
    static rb_phase_spec_t ph[8];
    static int rd[8][1];
    static int *rundirs[8];
    for (uint32_t i = 0; i < n; i++) {
        ph[i] = (rb_phase_spec_t){.njobs = 1, .jobs = &jobs[i]};
        rd[i][0] = 0;
        rundirs[i] = rd[i];
    }
    rb_msg_plan_t pl = {.nphases = n, .phases = ph};
    rb_err_t err;
    rb_err_clear(&err);
    rb_layout_t *l = rb_layout_new(&pl, rundirs, "run", &err);
    assert_non_null(l);
    return l;
}

static void test_write_then_read_needs_nothing(void **state)
{
    (void)state;
    rb_job_spec_t j[] = {s_job("w", RB_RW_WRITE, 1 << 20), s_job("r", RB_RW_READ, 1 << 20)};
    rb_layout_t *l = s_layout(j, 2);
    assert_int_equal(rb_layout_count(l), 0);
    assert_int_equal(rb_layout_need(l, 0), 1 << 20);
    rb_layout_destroy(&l);
    rb_layout_destroy(&l);
}

static void test_read_first_is_laid_out(void **state)
{
    (void)state;
    rb_job_spec_t j[] = {s_job("r", RB_RW_RANDREAD, 1 << 20), s_job("w", RB_RW_WRITE, 2 << 20)};
    j[0].numjobs = 3;
    j[0].nrfiles = 2;
    rb_layout_t *l = s_layout(j, 2);
    assert_int_equal(rb_layout_count(l), 6); /* 3 workers × 2 files */
    const rb_layout_item_t *it = rb_layout_item(l, 5);
    assert_string_equal(it->name, "f.2.1");
    assert_int_equal(it->pf.end, 512 << 10); /* size spread over the files */
    assert_int_equal(it->pf.verify, 0);
    /* f.0.0 grows to 2 MiB in phase 2: the space counts its largest size */
    assert_int_equal(rb_layout_need(l, 0), (2 << 20) + 5 * (512 << 10));
    rb_layout_destroy(&l);
}

static void test_verify_restamps(void **state)
{
    (void)state;
    rb_job_spec_t j[] = {s_job("w", RB_RW_WRITE, 1 << 20), s_job("r", RB_RW_READ, 1 << 20),
                         s_job("w2", RB_RW_WRITE, 1 << 20), s_job("r2", RB_RW_READ, 1 << 20)};
    j[1].verify = RB_VERIFY_CRC32C; /* reads what a non-verifying write wrote */
    j[2].verify = RB_VERIFY_CRC32C;
    j[3].verify = RB_VERIFY_CRC32C; /* reads what a verifying write wrote */
    rb_layout_t *l = s_layout(j, 4);
    assert_int_equal(rb_layout_count(l), 1);
    assert_int_equal(rb_layout_item(l, 0)->pf.verify, 1);
    rb_layout_destroy(&l);
}

static void test_shared_and_null(void **state)
{
    (void)state;
    rb_job_spec_t j[] = {s_job("r", RB_RW_READ, 1 << 20), s_job("n", RB_RW_RANDREAD, 1ull << 40)};
    j[0].numjobs = 4;
    snprintf(j[0].filename, sizeof j[0].filename, "shared.dat");
    snprintf(j[1].ioengine, sizeof j[1].ioengine, "null");
    rb_layout_t *l = s_layout(j, 2);
    assert_int_equal(rb_layout_count(l), 1); /* one file for all four workers */
    assert_string_equal(rb_layout_item(l, 0)->name, "shared.dat");
    assert_int_equal(rb_layout_need(l, 0), 1 << 20); /* the null job needs no space */
    rb_layout_destroy(&l);
}

static void test_rewrite_and_overwrite(void **state)
{
    (void)state;
    rb_job_spec_t j[] = {s_job("rw", RB_RW_REWRITE, 1 << 20), s_job("o", RB_RW_RANDWRITE, 1 << 20),
                         s_job("w", RB_RW_WRITE, 1 << 20)};
    snprintf(j[1].filename_format, sizeof j[1].filename_format, "o.$jobnum");
    snprintf(j[2].filename_format, sizeof j[2].filename_format, "w.$jobnum");
    j[1].overwrite = 1;
    rb_layout_t *l = s_layout(j, 3);
    assert_int_equal(rb_layout_count(l), 2); /* rewrite and overwrite; not the plain write */
    assert_string_equal(rb_layout_item(l, 1)->name, "o.0");
    rb_layout_destroy(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_then_read_needs_nothing),
        cmocka_unit_test(test_read_first_is_laid_out),
        cmocka_unit_test(test_verify_restamps),
        cmocka_unit_test(test_shared_and_null),
        cmocka_unit_test(test_rewrite_and_overwrite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
