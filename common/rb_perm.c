/* A keyed permutation of [0, n) for visiting every block once in random order
 * without a bitmap. A balanced 4-round Feistel network permutes the smallest
 * even-width power-of-two domain 2^(2*half) that holds n values; elements that
 * land outside [0, n) are sent through the network again (cycle walking) until
 * they land inside. Because the network permutes the whole domain, the walk
 * from any i < n ends, and the result is a bijection of [0, n).
 *
 * With b = bits(n - 1), n > 2^(b-1) and the domain is 2^b or 2^(b+1), so it
 * is smaller than 4n and a walk takes fewer than 4 network passes on average. */
#include "rb_perm.h"

#include <assert.h>

#include "rb_rand.h"

static uint64_t s_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Round function: a multiply-xorshift mix of the half block and round key,
 * of which only the low half bits are used. Multiplying x by its own
 * halves-swapped copy makes the mix quadratic in r (a multiply by a constant
 * is linear, and its fixed differences show through four rounds); the
 * xorshift folds the high word, where every input bit lands, onto the low
 * bits. One multiply keeps a round short: a cycle walk is a chain of rounds. */
static uint64_t s_round(uint64_t r, uint64_t key)
{
    uint64_t x = r ^ key;
    uint64_t z = x * (((x << 32) | (x >> 32)) | 1);

    return z ^ (z >> 32);
}

/* One pass of the network over the 2*half-bit block x. */
static uint64_t s_feistel(const rb_perm_t *p, uint64_t x)
{
    uint64_t l = x >> p->half;
    uint64_t r = x & p->mask;

    for (int i = 0; i < 4; i++) {
        uint64_t t = l ^ (s_round(r, p->key[i]) & p->mask);
        l = r;
        r = t;
    }
    return (l << p->half) | r;
}

void rb_perm_init(rb_perm_t *p, uint64_t n, uint64_t seed)
{
    assert(n >= 1);
    unsigned bits = n > 1 ? 64u - (unsigned)__builtin_clzll(n - 1) : 0;

    p->n = n;
    p->half = bits > 1 ? (bits + 1) / 2 : 1;
    p->mask = (1ULL << p->half) - 1;
    for (int i = 0; i < 4; i++)
        p->key[i] = s_splitmix64(&seed);
}

uint64_t rb_perm_at(const rb_perm_t *p, uint64_t i)
{
    assert(i < p->n);
    if (p->n <= 1)
        return 0;
    /* Out-of-contract i would walk a cycle that may never enter [0, n). */
    if (i >= p->n)
        i %= p->n;
    uint64_t x = i;
    do
        x = s_feistel(p, x);
    while (x >= p->n);
    return x;
}

void rb_perm_cycle(uint32_t *next, uint32_t n, uint64_t seed)
{
    rb_rand_t r;
    rb_rand_seed(&r, seed);
    for (uint32_t i = 0; i < n; i++)
        next[i] = i;
    /* Sattolo: swapping with a j strictly below i leaves one cycle */
    for (uint32_t i = n; i-- > 1;) {
        uint32_t j = (uint32_t)(rb_rand_next(&r) % i), t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
}
