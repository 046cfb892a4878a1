/* A pass means every case ran. cmocka counts a skipped case as passed and
 * its program exits 0; a test program here skips with rb_skip(why) instead,
 * which says why, and ends with rb_test_exit(), which turns "no failure but
 * something skipped" into 77, ctest's SKIP_RETURN_CODE: the entry shows as
 * skipped, never as a silent pass. Include after <cmocka.h>. */
#ifndef RB_TEST_H
#define RB_TEST_H

#include <stdio.h>

/* Cases of this program skipped so far (one program is one file of cases). */
static int rb_test_skipped;

/* Skips the running case, saying why on stderr. */
#define rb_skip(why)                                                                               \
    do {                                                                                           \
        fprintf(stderr, "[  SKIPPED ] %s: %s\n", __func__, (why));                                 \
        rb_test_skipped++;                                                                         \
        skip();                                                                                    \
    } while (0)

/* The exit code of a program whose groups failed `failed` cases: 1 (not
 * the count, which could read as 77 or wrap to 0), else 77 when a case was
 * skipped, else 0. */
static inline int rb_test_exit(int failed)
{
    if (failed)
        return 1;
    if (rb_test_skipped)
        fprintf(stderr, "%d case(s) skipped: the entry is skipped (77), not passed\n",
                rb_test_skipped);
    return rb_test_skipped ? 77 : 0;
}

#endif
