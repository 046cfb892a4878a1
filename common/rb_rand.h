/* Fast deterministic PRNG (xoshiro256**) for IO offsets and incompressible
 * write buffers; not for anything secret. */
#ifndef RB_RAND_H
#define RB_RAND_H

#include <stddef.h>
#include <stdint.h>

typedef struct rb_rand {
    uint64_t s[4]; /* generator state; never all zero */
} rb_rand_t;

/* Seeds r from one 64-bit seed (expanded with splitmix64). */
void rb_rand_seed(rb_rand_t *r, uint64_t seed);

/* Next 64 random bits. */
uint64_t rb_rand_next(rb_rand_t *r);

/* Fills len bytes of buf with random bytes. */
void rb_rand_fill(rb_rand_t *r, void *buf, size_t len);

/* Moves r on as rb_rand_fill of len bytes would, writing nothing: a copy of
 * r taken before fills the same bytes later, elsewhere. */
void rb_rand_skip(rb_rand_t *r, size_t len);

#endif
