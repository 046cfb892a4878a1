/* The blocks a decoded message holds (rb_proto_int.h): freed blocks kept
 * for the next message, and histograms cleared where their decoding wrote. */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_proto_int.h"

/* Freed blocks kept for the next message, of any size from S_POOL_MIN: a
 * SAMPLE's telemetry (10 KiB), a DONE's devices. A few dozen cover a
 * message of each type in flight; a block beyond that is freed. Histograms
 * (20 KiB) have slots of their own: a DONE of 4 devices holds 15, and
 * with blocks of other sizes in every slot, the DONEs at a phase's end at
 * 16,000 agents each took theirs fresh from calloc. */
#define S_POOL_SLOTS 32
#define S_POOL_HISTS 64
#define S_POOL_MIN   4096
#define S_MARKS      64 /* histograms decoded and not yet put back whose buckets are known */
#define S_ALL        UINT32_MAX /* a histogram's buckets: unknown, cleared whole */

typedef struct {
    void *p;
    size_t size; /* 0: a histogram */
    uint32_t lo; /* a histogram's buckets that may be set: lo..hi, none when lo > hi, */
    uint32_t hi; /* every one when hi is S_ALL */
} s_slot_t;

/* Kept blocks of one kind: histograms, or blocks of any other size. */
typedef struct {
    uint32_t n, cap;
    s_slot_t *at;
} s_shelf_t;

static s_slot_t s_blocks[S_POOL_SLOTS], s_hists[S_POOL_HISTS];

static struct {
    pthread_mutex_t lock;
    s_shelf_t blocks, hists;
    uint32_t nmarks, next; /* marks in use; the one a new mark replaces when all are */
    struct {
        const rb_hist_t *h;
        uint32_t lo, hi;
    } mark[S_MARKS];
} s_pool = {.lock = PTHREAD_MUTEX_INITIALIZER,
            .blocks = {0, S_POOL_SLOTS, s_blocks},
            .hists = {0, S_POOL_HISTS, s_hists}};

/* The shelf of blocks of size (0: a histogram). */
static s_shelf_t *s_shelf(size_t size)
{
    return size ? &s_pool.blocks : &s_pool.hists;
}

/* A kept block of size (0: a histogram), or NULL; under the lock. */
static bool s_take(size_t size, s_slot_t *out)
{
    s_shelf_t *sh = s_shelf(size);
    for (uint32_t i = sh->n; i-- > 0;)
        if (sh->at[i].size == size) {
            *out = sh->at[i];
            sh->at[i] = sh->at[--sh->n];
            return true;
        }
    return false;
}

/* Keeps a block for the next message, or frees it when the pool is full. */
static void s_keep(s_slot_t sl)
{
    pthread_mutex_lock(&s_pool.lock);
    s_shelf_t *sh = s_shelf(sl.size);
    bool kept = sh->n < sh->cap;
    if (kept)
        sh->at[sh->n++] = sl;
    pthread_mutex_unlock(&s_pool.lock);
    if (!kept)
        free(sl.p);
}

void *rb_proto_block_get(size_t size)
{
    s_slot_t sl = {0};
    bool got = false;
    if (size >= S_POOL_MIN) {
        pthread_mutex_lock(&s_pool.lock);
        got = s_take(size, &sl);
        pthread_mutex_unlock(&s_pool.lock);
    }
    if (!got)
        return calloc(1, size);
    memset(sl.p, 0, size); /* warm memory, unlike calloc's fresh pages */
    return sl.p;
}

void rb_proto_block_put(void *p, size_t size)
{
    if (!p)
        return;
    if (size < S_POOL_MIN)
        free(p);
    else
        s_keep((s_slot_t){p, size, 0, S_ALL});
}

rb_hist_t *rb_proto_hist_get(void)
{
    s_slot_t sl;
    pthread_mutex_lock(&s_pool.lock);
    bool got = s_take(0, &sl);
    pthread_mutex_unlock(&s_pool.lock);
    if (!got)
        return calloc(1, sizeof(rb_hist_t));
    rb_hist_t *h = sl.p;
    if (sl.hi == S_ALL) {
        memset(h, 0, sizeof *h);
        return h;
    }
    memset(h, 0, offsetof(rb_hist_t, b));
    if (sl.lo <= sl.hi)
        memset(&h->b[sl.lo], 0, (sl.hi - sl.lo + 1) * sizeof h->b[0]);
#ifndef NDEBUG
    for (unsigned i = 0; i < RB_HIST_NBUCKETS; i++)
        if (h->b[i]) {
            fprintf(stderr,
                    "rb_proto_hist_get: bucket %u of a histogram kept as set in %u..%u "
                    "only is %llu\n",
                    i, sl.lo, sl.hi, (unsigned long long)h->b[i]);
            abort();
        }
#endif
    return h;
}

void rb_proto_hist_mark(const rb_hist_t *h, unsigned lo, unsigned hi)
{
    pthread_mutex_lock(&s_pool.lock);
    uint32_t i;
    for (i = 0; i < s_pool.nmarks && s_pool.mark[i].h != h; i++)
        ;
    if (i == s_pool.nmarks) {
        if (s_pool.nmarks < S_MARKS) {
            s_pool.nmarks++;
        } else { /* the oldest forgotten: that histogram will be cleared whole */
            i = s_pool.next;
            s_pool.next = (s_pool.next + 1) % S_MARKS;
        }
        s_pool.mark[i].h = h;
        s_pool.mark[i].lo = lo;
        s_pool.mark[i].hi = hi;
    } else {
        s_pool.mark[i].lo = lo < s_pool.mark[i].lo ? lo : s_pool.mark[i].lo;
        s_pool.mark[i].hi = hi > s_pool.mark[i].hi ? hi : s_pool.mark[i].hi;
    }
    pthread_mutex_unlock(&s_pool.lock);
}

void rb_proto_hist_put(rb_hist_t *h)
{
    if (!h)
        return;
    uint32_t lo = 0, hi = S_ALL;
    pthread_mutex_lock(&s_pool.lock);
    for (uint32_t i = 0; i < s_pool.nmarks; i++)
        if (s_pool.mark[i].h == h) {
            lo = s_pool.mark[i].lo;
            hi = s_pool.mark[i].hi;
            s_pool.mark[i] = s_pool.mark[--s_pool.nmarks];
            if (s_pool.next > s_pool.nmarks)
                s_pool.next = 0;
            break;
        }
    pthread_mutex_unlock(&s_pool.lock);
    /* Its buckets must still hold all of its count there: anything added
     * to it since it was decoded may have landed elsewhere. */
    if (hi != S_ALL) {
        uint64_t sum = 0;
        for (uint32_t i = lo; i <= hi; i++)
            sum += h->b[i];
        if (sum != h->count)
            lo = 0, hi = S_ALL;
    }
    s_keep((s_slot_t){h, 0, lo, hi});
}
