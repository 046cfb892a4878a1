/* The latency histogram behind every percentile rackbench reports: cheap
 * enough to record on the per-IO path, exact to merge across workers and nodes.
 *
 * Layout: buckets 0..63 hold the values 0..63 exactly. From 64 on, bucket
 * i = (k - 5) * 64 + sub holds [(64 + sub) << (k - 6), (65 + sub) << (k - 6))
 * for a value whose highest set bit is k, so its width w is lo / (64 + sub)
 * <= lo / 64. The last bucket (k = 43, sub = 63) also catches every value
 * >= 2^44; its hi is reported as UINT64_MAX and the error bound does not hold
 * there (only the exact max does). */
#include "rb_hist.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#define S_LAST (RB_HIST_NBUCKETS - 1)

static inline uint64_t s_load(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void s_store(uint64_t *p, uint64_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/* sum and count are stored with release and loaded with acquire: a
 * reader that sees them sees what was stored before them (on x86 the
 * same instructions, the compiler kept from reordering) */
static inline uint64_t s_load_acq(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void s_store_rel(uint64_t *p, uint64_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

#define S_SNAPSHOT_TRIES 16 /* rb_hist_snapshot's reads before it takes a torn one */

/* Branch-free: OR-ing in 64 makes every v < 128 land on shift 0, where the
 * index is v itself; above, v >> shift is 64 + sub and each shift adds 64. */
static inline unsigned s_index(uint64_t v)
{
    unsigned msb = 63u - (unsigned)__builtin_clzll(v | RB_HIST_SUB);
    unsigned shift = msb - RB_HIST_BITS;
    uint64_t i = ((uint64_t)shift << RB_HIST_BITS) + (v >> shift);
    return i < S_LAST ? (unsigned)i : S_LAST;
}

/* log2 of the width of bucket i (0 for the exact buckets and the first group). */
static inline unsigned s_width_log2(unsigned i)
{
    return i < 2 * RB_HIST_SUB ? 0 : (i >> RB_HIST_BITS) - 1;
}

void rb_hist_init(rb_hist_t *h)
{
    memset(h, 0, sizeof *h);
    h->min = UINT64_MAX;
}

unsigned rb_hist_index(uint64_t v)
{
    return s_index(v);
}

uint64_t rb_hist_bucket_lo(unsigned i)
{
    assert(i < RB_HIST_NBUCKETS);
    if (i < 2 * RB_HIST_SUB)
        return i;
    return (uint64_t)(RB_HIST_SUB + (i & (RB_HIST_SUB - 1))) << s_width_log2(i);
}

uint64_t rb_hist_bucket_hi(unsigned i)
{
    assert(i < RB_HIST_NBUCKETS);
    if (i == S_LAST)
        return UINT64_MAX;
    return rb_hist_bucket_lo(i) + (1ULL << s_width_log2(i));
}

void rb_hist_record(rb_hist_t *h, uint64_t v)
{
    unsigned i = s_index(v);
    uint64_t min = s_load(&h->min);
    uint64_t max = s_load(&h->max);

    /* the bucket, then the sum, the count last (rb_hist_snapshot) */
    s_store(&h->b[i], s_load(&h->b[i]) + 1);
    s_store_rel(&h->sum, s_load(&h->sum) + v);
    s_store(&h->min, v < min ? v : min);
    s_store(&h->max, v > max ? v : max);
    s_store_rel(&h->count, s_load(&h->count) + 1);
}

/* count is rebuilt from the copied buckets (count == sum of buckets); min
 * and max may be a value or two apart from them. */
int rb_hist_snapshot(rb_hist_t *dst, const rb_hist_t *src)
{
    /* The count, then the sum, then the buckets: a value recorded meanwhile
     * is in the sum only if its bucket is seen too, and in the buckets
     * without being in the count read first; so buckets that add up to
     * that count go with the sum read. A read torn by a value recorded
     * during it (its count in one window, its time in the next: a
     * window's mean latency off by one IO) is read again. */
    for (unsigned tries = 1;; tries++) {
        uint64_t count = s_load_acq(&src->count), n = 0;
        dst->sum = s_load_acq(&src->sum);
        dst->min = s_load(&src->min);
        dst->max = s_load(&src->max);
        for (unsigned i = 0; i < RB_HIST_NBUCKETS; i++) {
            dst->b[i] = s_load(&src->b[i]);
            n += dst->b[i];
        }
        dst->count = n;
        if (n == count)
            return 1;
        if (tries == S_SNAPSHOT_TRIES)
            return 0;
    }
}

void rb_hist_merge(rb_hist_t *dst, const rb_hist_t *src)
{
    if (!src->count)
        return; /* its buckets add up to its count: nothing to add */
    dst->count += src->count;
    dst->sum += src->sum;
    if (src->min < dst->min)
        dst->min = src->min;
    if (src->max > dst->max)
        dst->max = src->max;
    for (unsigned i = 0; i < RB_HIST_NBUCKETS; i++)
        dst->b[i] += src->b[i];
}

static inline uint64_t s_sub_sat(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

/* dst may be now or before. Differences saturate at 0, so snapshots given in
 * the wrong order give an empty delta rather than huge counts. */
void rb_hist_delta(rb_hist_t *dst, const rb_hist_t *now, const rb_hist_t *before)
{
    uint64_t now_min = now->min;
    uint64_t now_max = now->max;
    int lowest = -1;
    int highest = -1;

    dst->count = s_sub_sat(now->count, before->count);
    dst->sum = s_sub_sat(now->sum, before->sum);
    for (unsigned i = 0; i < RB_HIST_NBUCKETS; i++) {
        dst->b[i] = s_sub_sat(now->b[i], before->b[i]);
        if (dst->b[i]) {
            if (lowest < 0)
                lowest = (int)i;
            highest = (int)i;
        }
    }
    if (lowest < 0) {
        dst->min = UINT64_MAX;
        dst->max = 0;
        return;
    }
    uint64_t lo = rb_hist_bucket_lo((unsigned)lowest);
    uint64_t hi = rb_hist_bucket_hi((unsigned)highest) - 1;
    dst->min = lo > now_min ? lo : now_min;
    dst->max = hi < now_max ? hi : now_max;
}

/* The rank of p in count values, ceil(p / 100 * count) within [1, count].
 * p * count / 100 can land a rounding error above an integer (99.9% of 1000);
 * such noise is snapped back so that the rank is not one too high. */
static uint64_t s_rank(double p, uint64_t count)
{
    if (!(p > 0.0))
        return 1;
    if (p >= 100.0)
        return count;
    double x = p * (double)count / 100.0;
    double r = nearbyint(x);
    if (fabs(x - r) <= x * 1e-12)
        x = r;
    double c = ceil(x);
    if (c < 1.0)
        return 1;
    if (c >= (double)count)
        return count;
    return (uint64_t)c;
}

#define S_BLOCK 64 /* buckets a percentile's walk passes at once */
#define S_RUN   8  /* and then, within the block that holds the rank */

/* The sum of w buckets from b (w a multiple of 4): four sums apart, so
 * that the adds do not each wait for the one before. */
static inline uint64_t s_block_sum(const uint64_t *b, unsigned w)
{
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (unsigned j = 0; j < w; j += 4) {
        s0 += b[j];
        s1 += b[j + 1];
        s2 += b[j + 2];
        s3 += b[j + 3];
    }
    return s0 + s1 + s2 + s3;
}

/* At bucket *i, the first of a block of w: when its buckets hold fewer than
 * short_of values, adds them to *seen and moves *i to the block's last. */
static int s_pass(const rb_hist_t *h, unsigned *i, unsigned w, uint64_t short_of, uint64_t *seen)
{
    if (*i % w != 0 || *i + w > RB_HIST_NBUCKETS)
        return 0;
    uint64_t run = s_block_sum(h->b + *i, w);
    if (run >= short_of)
        return 0;
    *seen += run;
    *i += w - 1;
    return 1;
}

/* The estimate is lo + w/2: every value of the bucket lies in [lo, lo + w - 1],
 * so the error is at most w/2 <= lo/128 <= true/128 = RB_HIST_REL_ERROR * true;
 * clamping to [min, max] can only bring it closer. A p outside (0, 100] is
 * clamped to the first or the last value. */
void rb_hist_percentiles(const rb_hist_t *h, unsigned n, const double *p, uint64_t *out)
{
    unsigned k = 0;
    uint64_t seen = 0, rank = n && h->count ? s_rank(p[0], h->count) : 0;
    /* A latency's buckets lie hundreds past the first (200 us: bucket 806):
     * blocks of S_BLOCK, then of S_RUN buckets short of the rank are passed
     * at once, the buckets walked one by one only within the block that
     * holds it. */
    for (unsigned i = 0; k < n && h->count && i < RB_HIST_NBUCKETS; i++) {
        if (s_pass(h, &i, S_BLOCK, rank - seen, &seen) || s_pass(h, &i, S_RUN, rank - seen, &seen))
            continue;
        seen += h->b[i];
        while (k < n && seen >= rank) {
            unsigned wl = s_width_log2(i);
            out[k++] = rb_hist_bucket_lo(i) + (wl ? 1ULL << (wl - 1) : 0);
            rank = k < n ? s_rank(p[k], h->count) : 0;
        }
    }
    for (unsigned j = 0; j < n; j++) {
        if (!h->count) {
            out[j] = 0;
            continue;
        }
        if (j >= k)
            out[j] = h->max;
        if (h->min <= h->max) {
            if (out[j] < h->min)
                out[j] = h->min;
            if (out[j] > h->max)
                out[j] = h->max;
        }
    }
}

uint64_t rb_hist_percentile(const rb_hist_t *h, double p)
{
    uint64_t v;
    rb_hist_percentiles(h, 1, &p, &v);
    return v;
}

double rb_hist_mean(const rb_hist_t *h)
{
    if (h->count == 0)
        return 0.0;
    return (double)h->sum / (double)h->count;
}

double rb_hist_stdev(const rb_hist_t *h)
{
    if (h->count < 2)
        return 0.0;
    double mean = rb_hist_mean(h), acc = 0.0;
    for (unsigned i = 0; i < RB_HIST_NBUCKETS; i++) {
        if (!h->b[i])
            continue;
        unsigned wl = s_width_log2(i);
        double mid = (double)(rb_hist_bucket_lo(i) + (wl ? 1ULL << (wl - 1) : 0));
        if (i == S_LAST || mid > (double)h->max)
            mid = (double)h->max;
        if (mid < (double)h->min)
            mid = (double)h->min;
        acc += (double)h->b[i] * (mid - mean) * (mid - mean);
    }
    return sqrt(acc / (double)(h->count - 1));
}
