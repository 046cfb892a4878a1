/* rb_fill: write buffers compress and dedupe as the job asks (fio's
 * buffer_compress_percentage, buffer_compress_chunk, dedupe_percentage,
 * dedupe_mode, dedupe_working_set_percentage, dedupe_global). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <zlib.h>

#include "rb_fill.h"

#define S_BLOCK 4096u
#define S_N     2048u /* blocks of a test: 8 MiB */

/* Bytes of zlib's level 1 output for len bytes of buf, as % of len. */
static double s_zpct(const void *buf, size_t len)
{
    uLongf out = compressBound((uLong)len);
    Bytef *z = malloc(out);
    assert_non_null(z);
    assert_int_equal(compress2(z, &out, buf, (uLong)len, 1), Z_OK);
    free(z);
    return 100.0 * (double)out / (double)len;
}

/* n blocks of S_BLOCK bytes, one buffer each, filled for js. */
static uint8_t *s_fill_blocks(const rb_job_spec_t *js, uint64_t seed, size_t n)
{
    rb_fill_t f;
    rb_fill_init(&f, js, S_BLOCK, seed);
    uint8_t *b = malloc(n * S_BLOCK);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++)
        rb_fill_buf(&f, b + i * S_BLOCK, S_BLOCK);
    return b;
}

/* Blocks equal to an earlier one, as % of n (blocks compared by a hash,
 * then byte for byte). */
static double s_dup_pct(const uint8_t *b, size_t n)
{
    size_t dup = 0;
    uint64_t *h = calloc(n, sizeof *h);
    assert_non_null(h);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = 1469598103934665603ull;
        for (size_t k = 0; k < S_BLOCK; k++)
            x = (x ^ b[i * S_BLOCK + k]) * 1099511628211ull;
        h[i] = x;
        for (size_t j = 0; j < i; j++)
            if (h[j] == x && !memcmp(b + i * S_BLOCK, b + j * S_BLOCK, S_BLOCK)) {
                dup++;
                break;
            }
    }
    free(h);
    return 100.0 * (double)dup / (double)n;
}

static void test_compress_levels(void **state)
{
    (void)state;
    static const uint32_t pct[] = {10, 25, 50, 75, 90};
    static const uint64_t chunk[] = {512, 4096, 0, 1u << 20};
    for (size_t c = 0; c < sizeof chunk / sizeof chunk[0]; c++)
        for (size_t i = 0; i < sizeof pct / sizeof pct[0]; i++) {
            rb_job_spec_t js = {.compress_pct = pct[i], .compress_chunk = chunk[c]};
            uint8_t *b = s_fill_blocks(&js, 7 + i, 256);
            double z = s_zpct(b, 256 * S_BLOCK);
            /* random bytes do not compress, zeros vanish: about 100 - pct */
            if (z < 100.0 - pct[i] - 1 || z > 100.0 - pct[i] + 4)
                fail_msg("compress %u chunk %llu: %.1f%%", pct[i], (unsigned long long)chunk[c], z);
            assert_true(s_dup_pct(b, 256) == 0);
            free(b);
        }
}

/* Each chunk: random bytes first, then zeros (or the pattern) to its end. */
static void test_chunk_shape(void **state)
{
    (void)state;
    rb_job_spec_t js = {.compress_pct = 25, .compress_chunk = 1024};
    rb_fill_t f;
    rb_fill_init(&f, &js, S_BLOCK, 1);
    uint8_t b[S_BLOCK];
    rb_fill_buf(&f, b, sizeof b);
    for (size_t c = 0; c < S_BLOCK; c += 1024) {
        for (size_t k = 768; k < 1024; k++)
            assert_int_equal(b[c + k], 0);
        size_t zeros = 0;
        for (size_t k = 0; k < 768; k++)
            zeros += b[c + k] == 0;
        assert_true(zeros < 16); /* random */
    }
    js.buffer_mode = RB_BUF_PATTERN;
    js.pattern_len = 3;
    memcpy(js.pattern, "abc", 3);
    rb_fill_init(&f, &js, S_BLOCK, 1);
    rb_fill_buf(&f, b, sizeof b);
    assert_memory_equal(b + 768, "abcabc", 6);
    assert_memory_equal(b + 1024 + 768, "abcabc", 6);
    js.compress_pct = 100;
    rb_fill_init(&f, &js, S_BLOCK, 1);
    rb_fill_buf(&f, b, sizeof b);
    for (size_t k = 0; k < S_BLOCK; k++)
        assert_int_equal(b[k], "abc"[k % 1024 % 3]);
}

static void test_dedupe_share(void **state)
{
    (void)state;
    static const uint32_t pct[] = {0, 30, 60, 100};
    for (size_t i = 0; i < sizeof pct / sizeof pct[0]; i++) {
        rb_job_spec_t js = {.dedupe_pct = pct[i], .compress_chunk = 512};
        uint8_t *b = s_fill_blocks(&js, 11 + i, S_N);
        double d = s_dup_pct(b, S_N);
        double want = pct[i] == 100 ? 100.0 * (S_N - 1) / S_N : pct[i];
        if (d < want - 4 || d > want + 4)
            fail_msg("dedupe %u: %.1f%% duplicate blocks", pct[i], d);
        if (pct[i] < 100) /* the unique ones do not compress */
            assert_true(s_zpct(b, S_N * S_BLOCK) > 95.0 - pct[i]);
        free(b);
    }
    /* both: a repeated buffer is compressible as the one it repeats */
    rb_job_spec_t js = {.dedupe_pct = 30, .compress_pct = 50, .compress_chunk = 4096};
    uint8_t *b = s_fill_blocks(&js, 5, S_N);
    double d = s_dup_pct(b, S_N);
    assert_true(d > 26 && d < 34);
    double z = 0;
    for (size_t i = 0; i < S_N; i++)
        z += s_zpct(b + i * S_BLOCK, S_BLOCK) / S_N;
    assert_true(z > 49 && z < 55);
    free(b);
}

/* A repeated buffer shorter or longer than the one it repeats starts alike. */
static void test_dedupe_sizes(void **state)
{
    (void)state;
    rb_job_spec_t js = {.dedupe_pct = 100};
    rb_fill_t f;
    rb_fill_init(&f, &js, 512, 3);
    uint8_t a[8192], b[2048];
    rb_fill_buf(&f, a, sizeof a);
    rb_fill_buf(&f, b, sizeof b);
    assert_memory_equal(a, b, sizeof b);
}

/* FNV-1a of each of the n blocks of b. */
static uint64_t *s_hashes(const uint8_t *b, size_t n)
{
    uint64_t *h = calloc(n, sizeof *h);
    assert_non_null(h);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = 1469598103934665603ull;
        for (size_t k = 0; k < S_BLOCK; k++)
            x = (x ^ b[i * S_BLOCK + k]) * 1099511628211ull;
        h[i] = x;
    }
    return h;
}

/* Of the n hashes of h: how many equal an earlier one (*dup) and how many
 * different ones those are (*distinct). */
static void s_dup_stats(const uint64_t *h, size_t n, size_t *dup, size_t *distinct)
{
    *dup = *distinct = 0;
    for (size_t i = 0; i < n; i++) {
        size_t first = i;
        for (size_t j = 0; j < i && first == i; j++)
            if (h[j] == h[i])
                first = j;
        if (first == i)
            continue;
        (*dup)++;
        size_t seen = 0; /* an earlier duplicate of the same block */
        for (size_t j = first + 1; j < i && !seen; j++)
            seen = h[j] == h[i];
        *distinct += !seen;
    }
}

/* n blocks for job js, worker self of n_peers sharing seeds (NULL: none). */
static uint8_t *s_fill_peer(const rb_job_spec_t *js, const uint64_t *seeds, uint32_t npeers,
                            uint32_t self, size_t n)
{
    rb_fill_t f;
    rb_fill_init(&f, js, S_BLOCK, seeds[self]);
    if (npeers)
        rb_fill_share(&f, seeds, npeers, self);
    uint8_t *b = malloc(n * S_BLOCK);
    assert_non_null(b);
    for (size_t i = 0; i < n; i++)
        rb_fill_buf(&f, b + i * S_BLOCK, S_BLOCK);
    return b;
}

/* working_set: the repeated blocks are drawn from a few pages (10 % of the
 * size: 204), where repeat mode repeats each unique block in turn; the
 * share of repeated blocks is the same. */
static void test_working_set(void **state)
{
    (void)state;
    const uint64_t seed[] = {21};
    rb_job_spec_t js = {.dedupe_pct = 40,
                        .dedupe_mode = RB_DEDUPE_WORKING_SET,
                        .dedupe_ws_pct = 10,
                        .size = (uint64_t)S_N * S_BLOCK};
    uint8_t *b = s_fill_peer(&js, seed, 0, 0, S_N);
    uint64_t *h = s_hashes(b, S_N);
    size_t dup, distinct;
    s_dup_stats(h, S_N, &dup, &distinct);
    if (dup < S_N * 36 / 100 || dup > S_N * 44 / 100 || distinct > S_N / 10 || distinct < S_N / 20)
        fail_msg("working_set: %zu repeated blocks, %zu different", dup, distinct);
    free(h);
    free(b);
    js.dedupe_mode = RB_DEDUPE_REPEAT;
    b = s_fill_peer(&js, seed, 0, 0, S_N);
    h = s_hashes(b, S_N);
    s_dup_stats(h, S_N, &dup, &distinct);
    assert_true(dup > S_N * 36 / 100 && dup < S_N * 44 / 100);
    assert_true(distinct > 300);
    free(h);
    free(b);
    /* a working set of no page is one page; at 100 % every block is alike */
    js.dedupe_mode = RB_DEDUPE_WORKING_SET;
    js.dedupe_ws_pct = 0;
    b = s_fill_peer(&js, seed, 0, 0, S_N);
    h = s_hashes(b, S_N);
    s_dup_stats(h, S_N, &dup, &distinct);
    assert_int_equal(distinct, 1);
    free(h);
    free(b);
    js.dedupe_ws_pct = 10;
    js.dedupe_pct = 100;
    b = s_fill_peer(&js, seed, 0, 0, 64);
    h = s_hashes(b, 64);
    s_dup_stats(h, 64, &dup, &distinct);
    assert_int_equal(dup, 63);
    free(h);
    free(b);
}

/* Blocks of b (n) equal to some block of c (n), as % of n. */
static double s_cross_pct(const uint64_t *hb, const uint64_t *hc, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (hb[i] == hc[j]) {
                k++;
                break;
            }
    return 100.0 * (double)k / (double)n;
}

/* dedupe_global: two workers draw from one working set, half the pages of
 * each; without it their blocks never meet. */
static void test_working_set_global(void **state)
{
    (void)state;
    const uint64_t seeds[] = {7, 8};
    rb_job_spec_t js = {.dedupe_pct = 50,
                        .dedupe_mode = RB_DEDUPE_WORKING_SET,
                        .dedupe_ws_pct = 20,
                        .dedupe_global = 1,
                        .size = (uint64_t)S_N * S_BLOCK};
    for (int global = 0; global < 2; global++) {
        uint8_t *b = malloc(2 * S_N * S_BLOCK);
        assert_non_null(b);
        for (uint32_t w = 0; w < 2; w++) {
            uint8_t *one = s_fill_peer(&js, seeds, global ? 2 : 0, w, S_N);
            memcpy(b + w * S_N * S_BLOCK, one, S_N * S_BLOCK);
            free(one);
        }
        uint64_t *h = s_hashes(b, 2 * S_N);
        double cross = s_cross_pct(h, h + S_N, S_N);
        size_t dup, distinct;
        s_dup_stats(h, 2 * S_N, &dup, &distinct);
        /* global: every repeated block of a worker (half its blocks) is a
         * page the other writes too, its own first ones or the other's;
         * all of them 2 x 204 pages */
        if (global && (cross < 50 || cross > 70 || distinct > 2 * (S_N / 10)))
            fail_msg("global: %.1f%% of the blocks met, %zu different repeated", cross, distinct);
        if (!global && cross != 0)
            fail_msg("not global: %.1f%% of the blocks met", cross);
        if (dup < 2 * S_N * 46 / 100 || dup > 2 * S_N * 54 / 100)
            fail_msg("global %d: %zu repeated blocks of %u", global, dup, 2 * S_N);
        free(h);
        free(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compress_levels), cmocka_unit_test(test_chunk_shape),
        cmocka_unit_test(test_dedupe_share),    cmocka_unit_test(test_dedupe_sizes),
        cmocka_unit_test(test_working_set),     cmocka_unit_test(test_working_set_global),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
