/* The generator behind random offsets and write buffers: xoshiro256** (Blackman
 * and Vigna), seeded through splitmix64 so that any 64-bit seed, 0 included,
 * gives a well-mixed state that is never all zero. */
#include "rb_rand.h"

#include <string.h>

static uint64_t s_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t s_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Four consecutive splitmix64 outputs are distinct (it is a bijection of its
 * counter), so at most one is zero and the state is never all zero. */
void rb_rand_seed(rb_rand_t *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = s_splitmix64(&seed);
}

uint64_t rb_rand_next(rb_rand_t *r)
{
    uint64_t *s = r->s;
    uint64_t result = s_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = s_rotl(s[3], 45);
    return result;
}

/* Bytes are taken least significant first from each 64-bit output, so a seed
 * yields the same buffer on every host whatever its byte order; a tail shorter
 * than 8 bytes uses the low bytes of one more output. */
void rb_rand_fill(rb_rand_t *r, void *buf, size_t len)
{
    unsigned char *p = buf;
    /* the state in locals: a byte store may alias r->s for the compiler,
     * which would reload it after each one (a third of the speed) */
    rb_rand_t st = *r;

    for (; len >= 8; len -= 8, p += 8) {
        uint64_t x = rb_rand_next(&st);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(p, &x, 8);
#else
        for (int i = 0; i < 8; i++)
            p[i] = (unsigned char)(x >> (8 * i));
#endif
    }
    if (len) {
        uint64_t x = rb_rand_next(&st);
        for (size_t i = 0; i < len; i++)
            p[i] = (unsigned char)(x >> (8 * i));
    }
    *r = st;
}

void rb_rand_skip(rb_rand_t *r, size_t len)
{
    rb_rand_t st = *r;
    for (size_t n = len / 8 + (len % 8 != 0); n > 0; n--)
        (void)rb_rand_next(&st);
    *r = st;
}
