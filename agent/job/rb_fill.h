/* What fio's buffer_compress_percentage, buffer_compress_chunk and
 * dedupe_percentage make of a write buffer: chunks of random bytes followed
 * by zeros (or the job's pattern), and a share of buffers that repeat the
 * last unique one. The state lives in the caller's memory and filling never
 * allocates: it is on the per-IO path. */
#ifndef RB_FILL_H
#define RB_FILL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rb_proto.h"
#include "rb_rand.h"

typedef struct rb_fill {
    rb_rand_t rng;          /* the contents of unique buffers */
    rb_rand_t last;         /* rng as it was before the last unique buffer */
    rb_rand_t pick;         /* draws which buffers repeat */
    uint32_t pct;           /* % of each chunk that is fixed (zeros or pattern) */
    uint32_t dedupe;        /* % of buffers that repeat the last unique one */
    uint64_t chunk;         /* bytes of one random-then-fixed chunk (>= 1) */
    const uint8_t *pattern; /* the fixed bytes repeated, borrowed; NULL: zeros */
    uint32_t pattern_len;   /* bytes of pattern */
} rb_fill_t;

/* 1 when job js's write buffers are made by rb_fill_buf: it asks for a
 * compression or a dedupe share. */
bool rb_fill_wanted(const rb_job_spec_t *js);

/* Sets f up for job js (borrowed while f is used), whose smallest write is
 * min_write bytes, its random bytes drawn from seed. */
void rb_fill_init(rb_fill_t *f, const rb_job_spec_t *js, uint64_t min_write, uint64_t seed);

/* Fills len bytes of buf: a new unique buffer or, with dedupe_pct % odds,
 * the last unique one again (its first len bytes). */
void rb_fill_buf(rb_fill_t *f, void *buf, size_t len);

#endif
