/* A pseudo-random permutation of [0, n) in O(1) memory, so a random-access
 * pass touches every block exactly once (fio's random map) without a bitmap. */
#ifndef RB_PERM_H
#define RB_PERM_H

#include <stdint.h>

typedef struct rb_perm {
    uint64_t n;      /* size of the domain */
    unsigned half;   /* bits in each half of the Feistel block */
    uint64_t mask;   /* (1 << half) - 1 */
    uint64_t key[4]; /* round keys */
} rb_perm_t;

/* Sets p to a permutation of [0, n) chosen by seed (n >= 1). */
void rb_perm_init(rb_perm_t *p, uint64_t n, uint64_t seed);

/* The i-th element of the permutation (i < n): distinct i give distinct
 * results, all < n. Constant expected time (cycle walking over at most 4× n). */
uint64_t rb_perm_at(const rb_perm_t *p, uint64_t i);

/* Fills next[0 .. n) with a random cycle through [0, n) chosen by seed
 * (Sattolo's shuffle over rb_rand): next[i] is the value after i, every
 * value is the next of exactly one, and none is its own next when n > 1.
 * The same n and seed give the same cycle on every machine. */
void rb_perm_cycle(uint32_t *next, uint32_t n, uint64_t seed);

#endif
