/* Log-linear latency histogram that merges exactly across workers and nodes.
 *
 * Values are nanoseconds. Values below 2^RB_HIST_BITS land in exact buckets;
 * above, each power of two [2^k, 2^(k+1)) is split into 2^RB_HIST_BITS equal
 * buckets, so a bucket is 1/64 of its lower bound wide. Percentiles report the
 * bucket midpoint, clamped to the recorded min and max: the error bound is
 * |estimate - true| <= true / 2^(RB_HIST_BITS+1), i.e. 0.79% relative.
 * Values >= 2^RB_HIST_MAX_LOG2 ns (about 4.9 hours) share the last bucket
 * (max stays exact). Raw buckets travel on the wire; percentiles are computed
 * only after merging, never averaged. */
#ifndef RB_HIST_H
#define RB_HIST_H

#include <stdint.h>

#define RB_HIST_BITS     6
#define RB_HIST_SUB      (1u << RB_HIST_BITS)
#define RB_HIST_MAX_LOG2 44
#define RB_HIST_NBUCKETS ((RB_HIST_MAX_LOG2 - RB_HIST_BITS + 1) * RB_HIST_SUB)
/* Relative error bound of rb_hist_percentile(), for documentation and tests. */
#define RB_HIST_REL_ERROR (1.0 / (2.0 * RB_HIST_SUB))

typedef struct rb_hist {
    uint64_t count;               /* values recorded */
    uint64_t sum;                 /* sum of values, ns (for the mean) */
    uint64_t min;                 /* smallest value; UINT64_MAX when empty */
    uint64_t max;                 /* largest value; 0 when empty */
    uint64_t b[RB_HIST_NBUCKETS]; /* counts per bucket */
} rb_hist_t;

/* Empties h (lives in caller memory; no fini needed). */
void rb_hist_init(rb_hist_t *h);

/* Bucket index of value v (ns). */
unsigned rb_hist_index(uint64_t v);

/* Lowest value of bucket i, and one past its highest (exclusive upper bound). */
uint64_t rb_hist_bucket_lo(unsigned i);
uint64_t rb_hist_bucket_hi(unsigned i);

/* Records one value. One writer per histogram; another thread may read it
 * concurrently through rb_hist_snapshot() (atomic stores, no locks: the
 * bucket, the sum, the count last). */
void rb_hist_record(rb_hist_t *h, uint64_t v);

/* Copies src into dst with atomic loads, for a reader thread: its count
 * (the sum of its buckets) and sum are of the same values recorded. 1 when
 * so; 0 when a writer recording without pause tore every read (the last
 * is kept: its sum may hold a value or two its count does not). */
int rb_hist_snapshot(rb_hist_t *dst, const rb_hist_t *src);

/* Adds src into dst: the result is the histogram of the union of both inputs. */
void rb_hist_merge(rb_hist_t *dst, const rb_hist_t *src);

/* dst = now - before (an interval's delta of two snapshots of one histogram).
 * min/max of the delta are taken from its lowest and highest non-empty buckets. */
void rb_hist_delta(rb_hist_t *dst, const rb_hist_t *now, const rb_hist_t *before);

/* Value at percentile p (0 < p <= 100), within RB_HIST_REL_ERROR; 0 when empty. */
uint64_t rb_hist_percentile(const rb_hist_t *h, double p);

/* out[i] = rb_hist_percentile(h, p[i]) for n percentiles in ascending order,
 * in one pass over the buckets. */
void rb_hist_percentiles(const rb_hist_t *h, unsigned n, const double *p, uint64_t *out);

/* Mean value in ns; 0 when empty. */
double rb_hist_mean(const rb_hist_t *h);

/* Standard deviation in ns, from the bucket midpoints around the exact mean
 * (each value off by at most RB_HIST_REL_ERROR of itself); 0 when empty. */
double rb_hist_stdev(const rb_hist_t *h);

#endif
