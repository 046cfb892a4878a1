/* Unit tests for rb_crc32c and rb_perm.
 *
 * rb_crc32c is checked against the RFC 3720 vectors and, on random buffers of
 * random lengths and alignments, against a bit-at-a-time reference; chaining
 * must equal the one-shot result. Its table path is reached by running the
 * CRC group again in a child process started with RB_CRC32C_PORTABLE=1 (the
 * path is chosen once per process), so both the SSE4.2 path and the portable
 * path are held to the same reference.
 *
 * rb_perm is checked for being a bijection of [0, n), for depending on the
 * seed and for not being nearly sorted. How fast either one runs is not a
 * test: tests/bench/bench_crc_perm.c prints that. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rb_crc32c.h"
#include "rb_perm.h"
#include "rb_rand.h"

#define CHILD_FLAG "--crc-portable-child"

static const char *s_argv0; /* this program, for re-running it */
static bool s_is_child;     /* running the CRC group with RB_CRC32C_PORTABLE=1 */

/* ---- crc32c --------------------------------------------------------------- */

/* Bit-at-a-time CRC-32C, conditioned like rb_crc32c: the reference. */
static uint32_t s_crc_ref(uint32_t crc, const void *buf, size_t len)
{
    const unsigned char *p = buf;

    crc = ~crc;
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static void test_crc_vectors(void **state)
{
    (void)state;
    unsigned char b[32];

    assert_int_equal(rb_crc32c(0, "123456789", 9), 0xE3069283u);
    assert_int_equal(rb_crc32c(0, "", 0), 0);
    assert_int_equal(rb_crc32c(0x12345678u, NULL, 0), 0x12345678u);

    /* RFC 3720 appendix B.4. */
    memset(b, 0, 32);
    assert_int_equal(rb_crc32c(0, b, 32), 0x8A9136AAu);
    memset(b, 0xff, 32);
    assert_int_equal(rb_crc32c(0, b, 32), 0x62A8AB43u);
    for (int i = 0; i < 32; i++)
        b[i] = (unsigned char)i;
    assert_int_equal(rb_crc32c(0, b, 32), 0x46DD794Eu);
    for (int i = 0; i < 32; i++)
        b[i] = (unsigned char)(31 - i);
    assert_int_equal(rb_crc32c(0, b, 32), 0x113FDB5Cu);
    static const unsigned char scsi_read[48] = {
        0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
        0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    };
    assert_int_equal(rb_crc32c(0, scsi_read, sizeof scsi_read), 0xD9963A56u);

    /* The reference itself agrees with the check value. */
    assert_int_equal(s_crc_ref(0, "123456789", 9), 0xE3069283u);
}

#define RND_MAX (1u << 16)

/* Random lengths (mostly short, to cover every head/tail combination around
 * the 8-byte steps) at random alignments, against the reference. */
static void test_crc_random_vs_reference(void **state)
{
    (void)state;
    rb_rand_t r;
    unsigned char *buf = malloc(RND_MAX + 64);

    assert_non_null(buf);
    rb_rand_seed(&r, 3720);
    rb_rand_fill(&r, buf, RND_MAX + 64);
    for (int it = 0; it < 3000; it++) {
        uint64_t x = rb_rand_next(&r);
        size_t off = (size_t)(x & 63);
        size_t len = it % 50 == 0 ? (size_t)((x >> 8) % RND_MAX) : (size_t)((x >> 8) % 300);
        uint32_t got = rb_crc32c(0, buf + off, len);
        uint32_t want = s_crc_ref(0, buf + off, len);
        if (got != want)
            print_error("off %zu len %zu: 0x%08x != 0x%08x\n", off, len, got, want);
        assert_int_equal(got, want);
        /* Continuing from an arbitrary previous value agrees too. */
        uint32_t seed = (uint32_t)rb_rand_next(&r);
        assert_int_equal(rb_crc32c(seed, buf + off, len), s_crc_ref(seed, buf + off, len));
    }
    free(buf);
}

/* Chaining over random splits (empty pieces included) equals one shot. */
static void test_crc_chaining(void **state)
{
    (void)state;
    rb_rand_t r;
    enum { LEN = 8192 };
    unsigned char *buf = malloc(LEN + 8);

    assert_non_null(buf);
    rb_rand_seed(&r, 41);
    rb_rand_fill(&r, buf, LEN + 8);
    for (int it = 0; it < 500; it++) {
        size_t off = (size_t)(rb_rand_next(&r) % 8);
        size_t len = (size_t)(rb_rand_next(&r) % (LEN + 1));
        uint32_t whole = rb_crc32c(0, buf + off, len);
        uint32_t crc = 0;
        size_t pos = 0;
        int pieces = 1 + (int)(rb_rand_next(&r) % 6);
        for (int k = 0; k < pieces - 1; k++) {
            size_t n = (size_t)(rb_rand_next(&r) % (len - pos + 1));
            crc = rb_crc32c(crc, buf + off + pos, n);
            pos += n;
        }
        crc = rb_crc32c(crc, buf + off + pos, len - pos);
        assert_int_equal(crc, whole);
    }
    free(buf);
}

/* Runs the CRC group again in a fresh process with the table path forced. */
static void test_crc_portable_path(void **state)
{
    (void)state;
    int status;
    pid_t pid;

    fflush(stdout);
    fflush(stderr);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char *argv[] = {(char *)s_argv0, CHILD_FLAG, NULL};
        setenv("RB_CRC32C_PORTABLE", "1", 1);
        execv("/proc/self/exe", argv);
        execv(s_argv0, argv);
        _exit(127);
    }
    while (waitpid(pid, &status, 0) < 0)
        assert_int_equal(errno, EINTR);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* ---- perm ----------------------------------------------------------------- */

static const uint64_t s_sizes[] = {1, 2, 3, 7, 64, 1000, 4097, 100003};
static const uint64_t s_seeds[] = {0, 1, 42, 0xdeadbeefcafef00dULL};
#define NSIZES (sizeof s_sizes / sizeof s_sizes[0])
#define NSEEDS (sizeof s_seeds / sizeof s_seeds[0])

static uint64_t *s_order(uint64_t n, uint64_t seed)
{
    rb_perm_t p;
    uint64_t *out = malloc(n * sizeof *out);

    assert_non_null(out);
    rb_perm_init(&p, n, seed);
    for (uint64_t i = 0; i < n; i++)
        out[i] = rb_perm_at(&p, i);
    return out;
}

static void test_perm_bijection(void **state)
{
    (void)state;
    for (size_t a = 0; a < NSIZES; a++) {
        uint64_t n = s_sizes[a];
        unsigned char *seen = malloc(n);
        assert_non_null(seen);
        for (size_t b = 0; b < NSEEDS; b++) {
            uint64_t *out = s_order(n, s_seeds[b]);
            memset(seen, 0, n);
            for (uint64_t i = 0; i < n; i++) {
                assert_true(out[i] < n);
                assert_int_equal(seen[out[i]], 0);
                seen[out[i]] = 1;
            }
            free(out);
        }
        free(seen);
    }
}

static int s_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Domains up to 2^64 (half = 32): sampled results are in range and distinct. */
static void test_perm_huge(void **state)
{
    (void)state;
    static const uint64_t sizes[] = {(1ULL << 32) - 1, 1ULL << 32, (1ULL << 32) + 1,
                                     (1ULL << 63) + 1, UINT64_MAX};
    enum { SAMPLE = 4096 };
    uint64_t *out = malloc(SAMPLE * sizeof *out);

    assert_non_null(out);
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++) {
        rb_perm_t p;
        uint64_t n = sizes[a];
        rb_perm_init(&p, n, 99);
        for (uint64_t k = 0; k < SAMPLE; k++) {
            /* The first and last indices, then a stride through the rest. */
            uint64_t i = k < SAMPLE / 2 ? k : n - 1 - (k - SAMPLE / 2) * (n / SAMPLE);
            out[k] = rb_perm_at(&p, i);
            assert_true(out[k] < n);
        }
        qsort(out, SAMPLE, sizeof *out, s_cmp_u64);
        for (size_t k = 1; k < SAMPLE; k++)
            assert_true(out[k - 1] != out[k]);
    }
    free(out);
}

static void test_perm_seeds_differ(void **state)
{
    (void)state;
    for (size_t a = 0; a < NSIZES; a++) {
        uint64_t n = s_sizes[a];
        uint64_t *orders[NSEEDS];
        if (n < 64)
            continue; /* few possible orders: a coincidence is allowed */
        for (size_t b = 0; b < NSEEDS; b++)
            orders[b] = s_order(n, s_seeds[b]);
        for (size_t b = 0; b < NSEEDS; b++)
            for (size_t c = b + 1; c < NSEEDS; c++) {
                uint64_t same = 0;
                for (uint64_t i = 0; i < n; i++)
                    same += orders[b][i] == orders[c][i];
                /* Independent orders agree in about one position. */
                assert_true(same < n / 2);
            }
        for (size_t b = 0; b < NSEEDS; b++)
            free(orders[b]);
    }
}

static void test_perm_not_sorted(void **state)
{
    (void)state;
    for (size_t a = 0; a < NSIZES; a++) {
        uint64_t n = s_sizes[a];
        if (n < 1000)
            continue;
        for (size_t b = 0; b < NSEEDS; b++) {
            uint64_t *out = s_order(n, s_seeds[b]);
            uint64_t runs = 0, fixed = 0, low = 0;
            for (uint64_t i = 0; i < n; i++) {
                fixed += out[i] == i;
                if (i + 1 < n)
                    runs += out[i + 1] == out[i] + 1 || out[i] == out[i + 1] + 1;
                if (i < n / 2)
                    low += out[i] < n / 2;
            }
            assert_true(fixed < n / 20);
            assert_true(runs < (n - 1) / 20);
            /* The first half of the order takes about half its values from the
             * lower half of the range (6 standard deviations from n = 4097). */
            if (n >= 4096) {
                double frac = (double)low / (double)(n / 2);
                assert_true(frac > 0.45 && frac < 0.55);
            }
            free(out);
        }
    }
}

/* read_from=random's cycle: for every node count, every value is some
 * node's source exactly once, none its own (two or more nodes), one cycle
 * through all of them; the same seed gives the same cycle, others differ. */
static void test_perm_cycle(void **state)
{
    (void)state;
    uint32_t a[300], b[300], seen[300];
    for (uint32_t n = 1; n <= 300; n += n < 20 ? 1 : 37) {
        uint32_t differ = 0;
        for (uint64_t seed = 0; seed < 20; seed++) {
            rb_perm_cycle(a, n, seed);
            rb_perm_cycle(b, n, seed);
            assert_memory_equal(a, b, n * sizeof a[0]);
            memset(seen, 0, sizeof seen);
            for (uint32_t i = 0; i < n; i++) {
                assert_true(a[i] < n);
                assert_true(n == 1 || a[i] != i);
                seen[a[i]]++;
            }
            for (uint32_t i = 0; i < n; i++)
                assert_int_equal(seen[i], 1);
            uint32_t len = 0, x = 0;
            do
                x = a[x], len++;
            while (x != 0);
            assert_int_equal(len, n);
            rb_perm_cycle(b, n, seed + 1);
            differ += memcmp(a, b, n * sizeof a[0]) != 0;
        }
        /* from 4 nodes on there are (n-1)! >= 6 cycles: most seeds differ */
        if (n >= 4)
            assert_true(differ >= 14);
    }
    rb_perm_cycle(a, 1, 7);
    assert_int_equal(a[0], 0); /* one node reads its own */
}

int main(int argc, char **argv)
{
    s_argv0 = argv[0];
    s_is_child = argc > 1 && strcmp(argv[1], CHILD_FLAG) == 0;

    const struct CMUnitTest crc_tests[] = {
        cmocka_unit_test(test_crc_vectors),
        cmocka_unit_test(test_crc_random_vs_reference),
        cmocka_unit_test(test_crc_chaining),
    };
    if (s_is_child)
        return cmocka_run_group_tests_name("crc32c, portable path", crc_tests, NULL, NULL);

    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc_vectors),       cmocka_unit_test(test_crc_random_vs_reference),
        cmocka_unit_test(test_crc_chaining),      cmocka_unit_test(test_crc_portable_path),
        cmocka_unit_test(test_perm_bijection),    cmocka_unit_test(test_perm_huge),
        cmocka_unit_test(test_perm_seeds_differ), cmocka_unit_test(test_perm_not_sorted),
        cmocka_unit_test(test_perm_cycle),
    };
    return cmocka_run_group_tests_name("crc32c and perm", tests, NULL, NULL);
}
