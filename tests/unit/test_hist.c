/* Unit tests for rb_hist: bucket layout, exact merging, the percentile error
 * bound against exact sorted data, interval deltas, and one writer racing a
 * reader. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rb_hist.h"
#include "rb_rand.h"

#define LAST (RB_HIST_NBUCKETS - 1)

static rb_hist_t *s_new_hist(void)
{
    rb_hist_t *h = malloc(sizeof *h);
    assert_non_null(h);
    rb_hist_init(h);
    return h;
}

static void s_assert_hist_equal(const rb_hist_t *a, const rb_hist_t *b)
{
    assert_true(a->count == b->count);
    assert_true(a->sum == b->sum);
    assert_true(a->min == b->min);
    assert_true(a->max == b->max);
    for (unsigned i = 0; i < RB_HIST_NBUCKETS; i++) {
        if (a->b[i] != b->b[i])
            print_error("bucket %u: %llu != %llu\n", i, (unsigned long long)a->b[i],
                        (unsigned long long)b->b[i]);
        assert_true(a->b[i] == b->b[i]);
    }
}

/* A uniformly random double in [0, 1). */
static double s_unit(rb_rand_t *r)
{
    return (double)(rb_rand_next(r) >> 11) * 0x1.0p-53;
}

/* A value of random magnitude: uniform in [2^k, 2^(k+1)) for k uniform in 0..63. */
static uint64_t s_any_magnitude(rb_rand_t *r)
{
    uint64_t x = rb_rand_next(r);
    unsigned k = (unsigned)(x & 63);
    uint64_t top = 1ULL << k;
    return top | (rb_rand_next(r) & (top - 1));
}

/* ---- layout ----------------------------------------------------------- */

static void s_check_value(uint64_t v)
{
    unsigned i = rb_hist_index(v);
    assert_true(i < RB_HIST_NBUCKETS);
    uint64_t lo = rb_hist_bucket_lo(i);
    uint64_t hi = rb_hist_bucket_hi(i);
    if (!(lo <= v && (v < hi || i == LAST)))
        print_error("v=%llu i=%u lo=%llu hi=%llu\n", (unsigned long long)v, i,
                    (unsigned long long)lo, (unsigned long long)hi);
    assert_true(lo <= v);
    assert_true(v < hi || i == LAST);
    if (v < (1ULL << RB_HIST_MAX_LOG2))
        assert_true(v < hi);
}

static void test_layout(void **state)
{
    (void)state;

    /* Buckets tile [0, 2^64) without gaps; each bucket maps back to itself. */
    assert_true(rb_hist_bucket_lo(0) == 0);
    for (unsigned i = 0; i < RB_HIST_NBUCKETS; i++) {
        uint64_t lo = rb_hist_bucket_lo(i);
        uint64_t hi = rb_hist_bucket_hi(i);
        assert_true(lo < hi);
        assert_int_equal(rb_hist_index(lo), i);
        if (i < LAST) {
            assert_int_equal(rb_hist_index(hi - 1), i);
            assert_true(rb_hist_bucket_lo(i + 1) == hi);
            /* exact below 2^BITS, then no wider than lo / 2^BITS */
            uint64_t w = hi - lo;
            if (lo < RB_HIST_SUB)
                assert_true(w == 1);
            else
                assert_true(w * RB_HIST_SUB <= lo);
        }
    }
    assert_true(rb_hist_bucket_hi(LAST) == UINT64_MAX);
    assert_true(rb_hist_bucket_lo(LAST) == (1ULL << 44) - (1ULL << 37));

    assert_int_equal(rb_hist_index(0), 0);
    assert_int_equal(rb_hist_index(63), 63);
    assert_int_equal(rb_hist_index(64), 64);
    assert_int_equal(rb_hist_index(127), 127);
    assert_int_equal(rb_hist_index(128), 128);
    assert_int_equal(rb_hist_index(129), 128);
    assert_int_equal(rb_hist_index(130), 129);
    assert_int_equal(rb_hist_index((1ULL << 44) - 1), LAST);
    assert_int_equal(rb_hist_index(1ULL << 44), LAST);
    assert_int_equal(rb_hist_index(UINT64_MAX), LAST);
    assert_int_equal(rb_hist_index((1ULL << 44) - (1ULL << 37) - 1), LAST - 1);

    for (uint64_t v = 0; v < (1 << 16); v++)
        s_check_value(v);
    for (unsigned k = 0; k < 64; k++) {
        uint64_t p = 1ULL << k;
        s_check_value(p);
        s_check_value(p - 1);
        s_check_value(p + 1);
        s_check_value(p | (p >> 1));
    }
    rb_rand_t r;
    rb_rand_seed(&r, 7);
    unsigned prev_i = 0;
    uint64_t prev_v = 0;
    for (int n = 0; n < 1000000; n++) {
        uint64_t v = s_any_magnitude(&r);
        s_check_value(v);
        /* index is monotone in v */
        unsigned i = rb_hist_index(v);
        if (v >= prev_v)
            assert_true(i >= prev_i);
        else
            assert_true(i <= prev_i);
        prev_v = v;
        prev_i = i;
    }
}

/* ---- empty and small ---------------------------------------------------- */

static void test_empty(void **state)
{
    (void)state;
    rb_hist_t *h = s_new_hist();
    rb_hist_t *s = malloc(sizeof *s);
    rb_hist_t *d = malloc(sizeof *d);
    assert_non_null(s);
    assert_non_null(d);

    memset(h, 0x77, sizeof *h);
    rb_hist_init(h);
    assert_true(h->count == 0 && h->sum == 0);
    assert_true(h->min == UINT64_MAX);
    assert_true(h->max == 0);
    for (unsigned i = 0; i < RB_HIST_NBUCKETS; i++)
        assert_true(h->b[i] == 0);
    assert_true(rb_hist_percentile(h, 50) == 0);
    assert_true(rb_hist_percentile(h, 100) == 0);
    assert_true(rb_hist_mean(h) == 0.0);

    memset(s, 0x77, sizeof *s);
    rb_hist_snapshot(s, h);
    s_assert_hist_equal(s, h);

    memset(d, 0x77, sizeof *d);
    rb_hist_delta(d, s, h);
    s_assert_hist_equal(d, h);

    rb_hist_merge(s, h);
    s_assert_hist_equal(s, h);
    free(h);
    free(s);
    free(d);
}

static void test_small_exact(void **state)
{
    (void)state;
    rb_hist_t *h = s_new_hist();

    for (uint64_t v = 100; v >= 1; v--)
        rb_hist_record(h, v);
    assert_true(h->count == 100);
    assert_true(h->sum == 5050);
    assert_true(h->min == 1 && h->max == 100);
    assert_true(rb_hist_mean(h) == 50.5);
    assert_true(rb_hist_percentile(h, 1) == 1);
    assert_true(rb_hist_percentile(h, 50) == 50);
    assert_true(rb_hist_percentile(h, 50.5) == 51);
    assert_true(rb_hist_percentile(h, 99) == 99);
    assert_true(rb_hist_percentile(h, 99.5) == 100);
    assert_true(rb_hist_percentile(h, 100) == 100);
    /* p outside (0, 100] is clamped to the first and the last value */
    assert_true(rb_hist_percentile(h, 0) == 1);
    assert_true(rb_hist_percentile(h, -3) == 1);
    assert_true(rb_hist_percentile(h, 250) == 100);

    /* One repeated value is reported exactly (clamped to min and max). */
    rb_hist_init(h);
    for (int n = 0; n < 10; n++)
        rb_hist_record(h, 1234567);
    assert_true(rb_hist_percentile(h, 1) == 1234567);
    assert_true(rb_hist_percentile(h, 50) == 1234567);
    assert_true(rb_hist_percentile(h, 100) == 1234567);

    /* Values past 2^44 share the last bucket and keep an exact max; there the
     * estimate is only known to be >= the bucket's lo (no error bound). */
    rb_hist_init(h);
    rb_hist_record(h, 1ULL << 50);
    rb_hist_record(h, 1ULL << 45);
    rb_hist_record(h, 10);
    assert_int_equal(h->b[LAST], 2);
    assert_true(h->max == 1ULL << 50);
    assert_true(rb_hist_percentile(h, 100) >= rb_hist_bucket_lo(LAST));
    assert_true(rb_hist_percentile(h, 100) <= 1ULL << 50);
    assert_true(rb_hist_percentile(h, 30) == 10);
    /* ...while the bound still holds in its own range [lo, 2^44). */
    rb_hist_init(h);
    rb_hist_record(h, (1ULL << 44) - 1);
    rb_hist_record(h, rb_hist_bucket_lo(LAST));
    rb_hist_record(h, rb_hist_bucket_lo(LAST) + 5);
    uint64_t p50 = rb_hist_percentile(h, 50);
    uint64_t true50 = rb_hist_bucket_lo(LAST) + 5;
    assert_true((double)(p50 > true50 ? p50 - true50 : true50 - p50) <=
                (double)true50 * RB_HIST_REL_ERROR);
    free(h);
}

/* p / 100 * count lands a rounding error above an integer for some p and
 * counts; the rank must still be the exact ceil(p * count / 100). */
static void test_percentile_rank_rounding(void **state)
{
    (void)state;
    rb_hist_t *h = s_new_hist();
    static const struct {
        double p;
        uint64_t n;
        uint64_t rank;
    } cases[] = {{1.1, 100000, 1100},   {0.9, 1000, 9},      {99.9, 1000, 999},
                 {99.9, 100000, 99900}, {1.3, 100000, 1300}, {50, 1000, 500}};

    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        /* rank values of 5, then 100: the rank-th value is 5, the next 100 */
        rb_hist_init(h);
        for (uint64_t i = 0; i < cases[c].n; i++)
            rb_hist_record(h, i < cases[c].rank ? 5 : 100);
        if (rb_hist_percentile(h, cases[c].p) != 5)
            print_error("p=%g n=%llu\n", cases[c].p, (unsigned long long)cases[c].n);
        assert_true(rb_hist_percentile(h, cases[c].p) == 5);
    }
    free(h);
}

/* ---- merge ------------------------------------------------------------ */

static void test_merge(void **state)
{
    (void)state;
    rb_hist_t *h1 = s_new_hist();
    rb_hist_t *h2 = s_new_hist();
    rb_hist_t *h3 = s_new_hist();
    rb_hist_t *h4 = s_new_hist();
    rb_rand_t r;
    rb_rand_seed(&r, 99);

    /* A: small values; B: wide range including the catch-all bucket. */
    for (int n = 0; n < 50000; n++) {
        uint64_t v = 100 + (rb_rand_next(&r) % 100000);
        rb_hist_record(h1, v);
        rb_hist_record(h3, v);
    }
    for (int n = 0; n < 70000; n++) {
        uint64_t v = s_any_magnitude(&r) >> 16;
        rb_hist_record(h2, v);
        rb_hist_record(h3, v);
    }
    assert_true(h1->min != h2->min && h1->max != h2->max);

    rb_hist_merge(h4, h2); /* into an empty one: a copy */
    s_assert_hist_equal(h4, h2);
    rb_hist_merge(h1, h2);
    s_assert_hist_equal(h1, h3);
    assert_true(h1->count == 120000);

    /* Order does not matter, and merging an empty histogram changes nothing. */
    rb_hist_init(h4);
    rb_hist_merge(h2, h4);
    rb_hist_merge(h4, h2);
    rb_hist_merge(h4, h1);
    rb_hist_merge(h4, h3);
    rb_hist_merge(h1, h2);
    rb_hist_merge(h1, h3);
    s_assert_hist_equal(h1, h4);
    free(h1);
    free(h2);
    free(h3);
    free(h4);
}

/* ---- percentile error ------------------------------------------------- */

static int s_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a;
    uint64_t y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Many percentiles in one pass, over histograms whose values bunch in a few
 * buckets (several ranks in one run of eight buckets, long runs of empty
 * ones skipped): each lands in the bucket of the value of its rank. */
static void test_percentiles_many(void **state)
{
    (void)state;
    static const double p[] = {0.1, 1, 5, 10, 25, 50, 50.1, 50.2, 75, 90, 99, 99.9, 100};
    enum { NP = sizeof p / sizeof p[0], NV = 1000 };
    rb_hist_t *h = s_new_hist();
    uint64_t v[NV], out[NP];
    rb_rand_t r;
    rb_rand_seed(&r, 5);
    for (int round = 0; round < 200; round++) {
        rb_hist_init(h);
        uint64_t centre = s_any_magnitude(&r) >> (rb_rand_next(&r) % 40);
        for (int i = 0; i < NV; i++) {
            /* mostly near a centre, some far above it */
            v[i] = rb_rand_next(&r) % 10 ? centre + rb_rand_next(&r) % (centre / 8 + 1)
                                         : s_any_magnitude(&r) >> 20;
            rb_hist_record(h, v[i]);
        }
        qsort(v, NV, sizeof v[0], s_cmp_u64);
        rb_hist_percentiles(h, NP, p, out);
        for (int j = 0; j < NP; j++) {
            uint64_t rank = (uint64_t)llround(p[j] * NV / 100);
            assert_int_equal(rb_hist_index(out[j]), rb_hist_index(v[rank - 1]));
        }
    }
    free(h);
}

/* Checks rb_hist_percentile(h) against the exact percentiles of v[0..n),
 * at p = p10 / 10 for every p10 in the list and for a sweep of 0.1 .. 100. */
static void s_check_percentiles(const rb_hist_t *h, uint64_t *v, size_t n, const char *what)
{
    static const unsigned fixed[] = {1 * 10, 50 * 10, 90 * 10, 99 * 10, 999, 100 * 10};
    double worst = 0;

    qsort(v, n, sizeof *v, s_cmp_u64);
    for (unsigned p10 = 1; p10 <= 1000 + 6; p10 += 7) {
        unsigned p = p10 <= 1000 ? p10 : fixed[p10 - 1001];
        uint64_t rank = ((uint64_t)p * n + 999) / 1000;
        if (rank < 1)
            rank = 1;
        uint64_t exact = v[rank - 1];
        uint64_t est = rb_hist_percentile(h, p / 10.0);
        double two[] = {p / 10.0, 99.9};
        uint64_t both[2];
        rb_hist_percentiles(h, 2, two, both); /* one pass gives what each call gives */
        assert_int_equal(both[0], est);
        assert_int_equal(both[1], rb_hist_percentile(h, 99.9));
        double err = fabs((double)est - (double)exact);
        double rel = exact ? err / (double)exact : err;
        if (rel > worst)
            worst = rel;
        if (!(err <= (double)exact * RB_HIST_REL_ERROR))
            print_error("%s p=%.1f: exact %llu, estimate %llu (rel %.5f)\n", what, p / 10.0,
                        (unsigned long long)exact, (unsigned long long)est, rel);
        assert_true(err <= (double)exact * RB_HIST_REL_ERROR);
    }
    assert_true(worst <= RB_HIST_REL_ERROR);
}

enum { DIST_UNIFORM, DIST_LOG_UNIFORM, DIST_BIMODAL, DIST_SMALL, DIST_HUGE, DIST_COUNT };

static uint64_t s_draw(rb_rand_t *r, int dist)
{
    switch (dist) {
    case DIST_UNIFORM: /* 0 .. 10 ms */
        return rb_rand_next(r) % 10000001;
    case DIST_LOG_UNIFORM: /* 100 ns .. 1 s */
        return (uint64_t)(100.0 * pow(1e7, s_unit(r)));
    case DIST_BIMODAL: /* 90% near 80 us (cache hits), 10% near 8 ms (disk) */
        if (s_unit(r) < 0.9)
            return 60000 + rb_rand_next(r) % 40000;
        return 5000000 + rb_rand_next(r) % 6000000;
    case DIST_SMALL: /* around the switch from exact to log buckets */
        return rb_rand_next(r) % 600;
    default: /* up to 2^44 - 1 (about 4.9 hours), the top of the bounded buckets */
        return rb_rand_next(r) >> 20;
    }
}

static void test_percentile_error(void **state)
{
    (void)state;
    static const char *const names[] = {"uniform", "log-uniform", "bimodal", "small", "huge"};
    enum { N = 200000 };
    uint64_t *v = malloc(N * sizeof *v);
    rb_hist_t *h = s_new_hist();
    assert_non_null(v);

    for (int dist = 0; dist < DIST_COUNT; dist++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            rb_rand_t r;
            rb_rand_seed(&r, seed * 1000 + (uint64_t)dist);
            rb_hist_init(h);
            uint64_t sum = 0;
            for (size_t i = 0; i < N; i++) {
                v[i] = s_draw(&r, dist);
                sum += v[i];
                rb_hist_record(h, v[i]);
            }
            assert_true(h->count == N);
            assert_true(h->sum == sum);
            assert_true(rb_hist_mean(h) == (double)sum / N);
            s_check_percentiles(h, v, N, names[dist]);
            /* small samples: every rank matters */
            rb_hist_init(h);
            for (size_t i = 0; i < 37; i++)
                rb_hist_record(h, v[i * 5000]);
            uint64_t few[37];
            for (size_t i = 0; i < 37; i++)
                few[i] = v[i * 5000];
            s_check_percentiles(h, few, 37, names[dist]);
        }
    }
    free(v);
    free(h);
}

/* ---- delta ------------------------------------------------------------ */

static void test_delta(void **state)
{
    (void)state;
    rb_hist_t *h = s_new_hist();
    rb_hist_t *only_b = s_new_hist();
    rb_hist_t *s1 = s_new_hist();
    rb_hist_t *s2 = s_new_hist();
    rb_hist_t *d = s_new_hist();
    enum { NB = 30000 };
    uint64_t *bv = malloc(NB * sizeof *bv);
    assert_non_null(bv);
    rb_rand_t r;
    rb_rand_seed(&r, 5);

    /* interval 1: wide values; interval 2: a narrower band inside them */
    for (int n = 0; n < 40000; n++)
        rb_hist_record(h, s_draw(&r, DIST_LOG_UNIFORM));
    rb_hist_snapshot(s1, h);
    for (int n = 0; n < NB; n++) {
        bv[n] = 20000 + rb_rand_next(&r) % 3000000;
        rb_hist_record(h, bv[n]);
        rb_hist_record(only_b, bv[n]);
    }
    rb_hist_snapshot(s2, h);
    s_assert_hist_equal(s2, h);

    memset(d, 0x77, sizeof *d);
    rb_hist_delta(d, s2, s1);
    assert_true(d->count == only_b->count);
    assert_true(d->sum == only_b->sum);
    for (unsigned i = 0; i < RB_HIST_NBUCKETS; i++)
        assert_true(d->b[i] == only_b->b[i]);
    /* min and max come from the bucket bounds: same buckets as the truth,
     * on the outer side of it, inside what the whole histogram saw */
    assert_int_equal(rb_hist_index(d->min), rb_hist_index(only_b->min));
    assert_int_equal(rb_hist_index(d->max), rb_hist_index(only_b->max));
    assert_true(d->min <= only_b->min && d->min >= s2->min);
    assert_true(d->max >= only_b->max && d->max <= s2->max);
    assert_true(d->min == rb_hist_bucket_lo(rb_hist_index(only_b->min)));
    assert_true(d->max == rb_hist_bucket_hi(rb_hist_index(only_b->max)) - 1);
    s_check_percentiles(d, bv, NB, "delta");

    /* clamped to now's min/max when a bucket bound lies beyond them */
    rb_hist_init(h);
    rb_hist_snapshot(s1, h);
    rb_hist_record(h, 1000001);
    rb_hist_record(h, 1000002);
    rb_hist_snapshot(s2, h);
    rb_hist_delta(d, s2, s1);
    assert_true(d->count == 2 && d->sum == 2000003);
    assert_true(d->min == 1000001 && d->max == 1000002);
    assert_true(rb_hist_percentile(d, 50) == 1000001 || rb_hist_percentile(d, 50) == 1000002);

    /* nothing happened: an empty delta */
    rb_hist_delta(d, s2, s2);
    assert_true(d->count == 0 && d->sum == 0);
    assert_true(d->min == UINT64_MAX && d->max == 0);
    assert_true(rb_hist_percentile(d, 99) == 0);

    /* dst may be the newer snapshot itself */
    rb_hist_init(h);
    rb_hist_record(h, 7);
    rb_hist_snapshot(s1, h);
    rb_hist_record(h, 900);
    rb_hist_snapshot(s2, h);
    rb_hist_delta(s2, s2, s1);
    assert_true(s2->count == 1 && s2->sum == 900);
    assert_int_equal(rb_hist_index(s2->min), rb_hist_index(900));
    assert_true(s2->max == 900);

    free(bv);
    free(h);
    free(only_b);
    free(s1);
    free(s2);
    free(d);
}

/* ---- one writer, one reader --------------------------------------------- */

enum { CONC_N = 1000000 };

struct conc {
    rb_hist_t *h;         /* written by the writer, snapshotted by the reader */
    pthread_barrier_t go; /* starts both threads together */
    int done;             /* set by the writer when it has recorded all */
    uint64_t seed;        /* of the writer's values */
};

static void *s_writer(void *arg)
{
    struct conc *c = arg;
    rb_rand_t r;
    rb_rand_seed(&r, c->seed);
    pthread_barrier_wait(&c->go);
    for (int n = 0; n < CONC_N; n++)
        rb_hist_record(c->h, s_draw(&r, DIST_LOG_UNIFORM));
    __atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void test_concurrent(void **state)
{
    (void)state;
    struct conc c = {.h = s_new_hist(), .seed = 2024};
    rb_hist_t *prev = s_new_hist();
    rb_hist_t *cur = s_new_hist();
    rb_hist_t *want = s_new_hist();
    pthread_t t;
    unsigned snapshots = 0;
    unsigned partial = 0;

    assert_int_equal(pthread_barrier_init(&c.go, NULL, 2), 0);
    assert_int_equal(pthread_create(&t, NULL, s_writer, &c), 0);
    pthread_barrier_wait(&c.go);
    for (;;) {
        int done = __atomic_load_n(&c.done, __ATOMIC_ACQUIRE);
        rb_hist_snapshot(cur, c.h);
        snapshots++;
        uint64_t n = 0;
        for (unsigned i = 0; i < RB_HIST_NBUCKETS; i++) {
            assert_true(cur->b[i] >= prev->b[i]);
            n += cur->b[i];
        }
        assert_true(cur->count >= prev->count);
        assert_true(cur->count == n);
        assert_true(cur->count <= CONC_N);
        assert_true(cur->sum >= prev->sum);
        assert_true(cur->min <= prev->min);
        assert_true(cur->max >= prev->max);
        if (cur->count > 0 && cur->count < CONC_N)
            partial++;
        (void)rb_hist_percentile(cur, 99);
        rb_hist_t *tmp = prev;
        prev = cur;
        cur = tmp;
        if (done)
            break;
    }
    assert_int_equal(pthread_join(t, NULL), 0);
    pthread_barrier_destroy(&c.go);

    /* The last snapshot, taken after the writer finished, is the whole run. */
    rb_rand_t r;
    rb_rand_seed(&r, c.seed);
    for (int n = 0; n < CONC_N; n++)
        rb_hist_record(want, s_draw(&r, DIST_LOG_UNIFORM));
    assert_true(prev->count == CONC_N);
    s_assert_hist_equal(prev, want);
    s_assert_hist_equal(c.h, want);
    print_message("concurrent: %u snapshots, %u while recording\n", snapshots, partial);
    if (partial == 0)
        print_message("warning: no snapshot overlapped the writer (one CPU?)\n");

    free(c.h);
    free(prev);
    free(cur);
    free(want);
}

/* A writer that records 1 ms about every 20 µs, as a paced worker does:
 * every snapshot said whole has a sum of exactly 1 ms times its count
 * (read torn, an IO's time and its count fall in different windows). */
struct paced {
    rb_hist_t *h;
    int stop;
};

static void *s_paced_writer(void *arg)
{
    struct paced *p = arg;
    struct timespec pause = {0, 20000};
    while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
        rb_hist_record(p->h, 1000000);
        nanosleep(&pause, NULL);
    }
    return NULL;
}

static void test_snapshot_whole(void **state)
{
    (void)state;
    struct paced p = {.h = s_new_hist()};
    rb_hist_t *cur = s_new_hist();
    pthread_t t;
    unsigned whole = 0, torn = 0;
    assert_int_equal(pthread_create(&t, NULL, s_paced_writer, &p), 0);
    for (unsigned i = 0;
         i < 20000 && !(whole >= 2000 && __atomic_load_n(&p.h->count, __ATOMIC_RELAXED) >= 1000);
         i++) {
        if (rb_hist_snapshot(cur, p.h)) {
            assert_true(cur->sum == cur->count * 1000000);
            whole++;
        } else {
            torn++;
        }
    }
    __atomic_store_n(&p.stop, 1, __ATOMIC_RELEASE);
    assert_int_equal(pthread_join(t, NULL), 0);
    print_message("snapshots: %u whole, %u torn after every try, %llu values\n", whole, torn,
                  (unsigned long long)p.h->count);
    assert_true(whole > 0);
    free(p.h);
    free(cur);
}

/* stdev from buckets against the exact sample standard deviation. */
static void test_stdev(void **state)
{
    (void)state;
    rb_hist_t *h = calloc(1, sizeof *h);
    assert_non_null(h);
    rb_hist_init(h);
    assert_true(rb_hist_stdev(h) == 0.0);
    rb_rand_t r;
    rb_rand_seed(&r, 7);
    double sum = 0, sumsq = 0;
    const int n = 100000;
    uint64_t *v = malloc(n * sizeof *v);
    for (int i = 0; i < n; i++) {
        v[i] = 50000 + rb_rand_next(&r) % 200000; /* uniform 50..250 us */
        rb_hist_record(h, v[i]);
        sum += (double)v[i];
    }
    double mean = sum / n;
    for (int i = 0; i < n; i++)
        sumsq += ((double)v[i] - mean) * ((double)v[i] - mean);
    double exact = sqrt(sumsq / (n - 1));
    double est = rb_hist_stdev(h);
    /* every value is moved by at most 1/128 of itself (<= 2 us here) */
    assert_true(fabs(est - exact) <= 250000.0 * RB_HIST_REL_ERROR);
    rb_hist_init(h);
    rb_hist_record(h, 1000);
    rb_hist_record(h, 1000);
    assert_true(rb_hist_stdev(h) == 0.0);
    free(v);
    free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_small_exact),
        cmocka_unit_test(test_percentile_rank_rounding),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_percentile_error),
        cmocka_unit_test(test_delta),
        cmocka_unit_test(test_concurrent),
        cmocka_unit_test(test_snapshot_whole),
        cmocka_unit_test(test_stdev),
        cmocka_unit_test(test_percentiles_many),
    };
    return cmocka_run_group_tests_name("rb_hist", tests, NULL, NULL);
}
