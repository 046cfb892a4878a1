/* What fio's buffer_compress_percentage, buffer_compress_chunk,
 * dedupe_percentage, dedupe_mode, dedupe_working_set_percentage and
 * dedupe_global make of a write buffer: chunks of random bytes followed by
 * zeros (or the job's pattern), and a share of buffers that repeat the last
 * unique one or a page of a working set. The state lives in the caller's
 * memory and filling never allocates: it is on the per-IO path. */
#ifndef RB_FILL_H
#define RB_FILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rb_proto.h"
#include "rb_rand.h"

typedef struct rb_fill {
    rb_rand_t rng;          /* the contents of unique buffers (repeat) */
    rb_rand_t last;         /* rng as it was before the last unique buffer (repeat) */
    rb_rand_t pick;         /* draws which buffers repeat */
    rb_rand_t page;         /* working_set: draws the page a repeated buffer is */
    uint32_t pct;           /* % of each chunk that is fixed (zeros or pattern) */
    uint32_t dedupe;        /* % of buffers that are repeated */
    uint32_t mode;          /* rb_dedupe_mode_t */
    uint64_t chunk;         /* bytes of one random-then-fixed chunk (>= 1) */
    const uint8_t *pattern; /* the fixed bytes repeated, borrowed; NULL: zeros */
    uint32_t pattern_len;   /* bytes of pattern */
    /* working_set: unique buffer k of a worker is its page k, made from
     * that worker's base; the working set is pages 0 .. pages - 1 of this
     * worker, or with rb_fill_share per_peer pages of each worker in turn */
    uint64_t base;         /* this worker's base */
    uint64_t uniq;         /* unique buffers made so far: the next one's page */
    uint64_t pages;        /* pages in the working set (>= 1) */
    const uint64_t *peers; /* the workers' seeds, borrowed; NULL: not shared */
    uint32_t npeers;       /* entries of peers */
    uint32_t self;         /* this worker's entry in peers */
    uint64_t per_peer;     /* pages of each worker in a shared working set (>= 1) */
} rb_fill_t;

/* 1 when job js's write buffers are made by rb_fill_buf: it asks for a
 * compression or a dedupe share. */
bool rb_fill_wanted(const rb_job_spec_t *js);

/* Sets f up for job js (borrowed while f is used), whose smallest write is
 * min_write bytes, for the worker whose seed is seed. */
void rb_fill_init(rb_fill_t *f, const rb_job_spec_t *js, uint64_t min_write, uint64_t seed);

/* dedupe_global: the working set of f (set up by rb_fill_init with
 * seeds[self]) becomes an equal share of each of the n workers' first pages,
 * its own first, then the next worker's and so on round, as fio spreads it
 * over its jobs. seeds is
 * borrowed while f is used. No effect unless js's dedupe_mode is
 * working_set. */
void rb_fill_share(rb_fill_t *f, const uint64_t *seeds, uint32_t n, uint32_t self);

/* Fills len bytes of buf: a new unique buffer or, with dedupe_pct % odds, a
 * repeated one (its first len bytes): the last unique one, or with
 * working_set a page of the working set drawn at random. */
void rb_fill_buf(rb_fill_t *f, void *buf, size_t len);

#endif
