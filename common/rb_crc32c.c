/* CRC-32C for verifying data blocks at device speed. Two implementations sit
 * behind rb_crc32c(): the SSE4.2 crc32 instruction (x86-64, 8 bytes per step)
 * and a portable slicing-by-8 table walk. The choice is made once, at the
 * first call: the instruction when the CPU has it, the tables otherwise.
 *
 * Setting the environment variable RB_CRC32C_PORTABLE to a non-empty value
 * other than "0" before the first call forces the table path; the unit test
 * uses it to check that both paths agree. Both paths compute the same
 * reflected CRC (polynomial 0x82F63B78 in reflected form) with the usual
 * ~crc conditioning on entry and exit, so a previous result chains. */
#include "rb_crc32c.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

#define RB_CRC32C_POLY 0x82F63B78u /* 0x1EDC6F41 bit-reversed */

/* s_table[k][b]: the CRC contribution of byte b followed by k zero bytes. */
static uint32_t s_table[8][256];
static pthread_once_t s_once = PTHREAD_ONCE_INIT;
static bool s_use_hw; /* set once under s_once: use the crc32 instruction */

static void s_build_tables(void)
{
    for (uint32_t b = 0; b < 256; b++) {
        uint32_t c = b;
        for (int bit = 0; bit < 8; bit++)
            c = (c >> 1) ^ (RB_CRC32C_POLY & (0u - (c & 1u)));
        s_table[0][b] = c;
    }
    for (int k = 1; k < 8; k++)
        for (int b = 0; b < 256; b++) {
            uint32_t prev = s_table[k - 1][b];
            s_table[k][b] = (prev >> 8) ^ s_table[0][prev & 0xff];
        }
}

static bool s_portable_forced(void)
{
    const char *v = getenv("RB_CRC32C_PORTABLE");
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

static void s_init(void)
{
    bool forced = s_portable_forced();

    s_build_tables();
    s_use_hw = false;
#if defined(__x86_64__)
    if (!forced) {
        __builtin_cpu_init();
        s_use_hw = __builtin_cpu_supports("sse4.2") != 0;
    }
#else
    (void)forced;
#endif
}

/* Little-endian 32-bit load whatever the host byte order or alignment. */
static uint32_t s_load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Raw (unconditioned) CRC update with slicing-by-8. */
static uint32_t s_crc_sw(uint32_t crc, const unsigned char *p, size_t len)
{
    while (len >= 8) {
        uint32_t lo = crc ^ s_load_le32(p);
        uint32_t hi = s_load_le32(p + 4);
        crc = s_table[7][lo & 0xff] ^ s_table[6][(lo >> 8) & 0xff] ^ s_table[5][(lo >> 16) & 0xff] ^
              s_table[4][lo >> 24] ^ s_table[3][hi & 0xff] ^ s_table[2][(hi >> 8) & 0xff] ^
              s_table[1][(hi >> 16) & 0xff] ^ s_table[0][hi >> 24];
        p += 8;
        len -= 8;
    }
    while (len--)
        crc = (crc >> 8) ^ s_table[0][(crc ^ *p++) & 0xff];
    return crc;
}

#if defined(__x86_64__)
/* Raw CRC update with the SSE4.2 crc32 instruction: bytewise up to an 8-byte
 * boundary, then 8 bytes per instruction, then the tail bytewise. */
__attribute__((target("sse4.2"))) static uint32_t s_crc_hw(uint32_t crc, const unsigned char *p,
                                                           size_t len)
{
    while (len > 0 && ((uintptr_t)p & 7) != 0) {
        crc = _mm_crc32_u8(crc, *p++);
        len--;
    }
    uint64_t c64 = crc;
    while (len >= 8) {
        uint64_t w;
        memcpy(&w, p, sizeof w);
        c64 = _mm_crc32_u64(c64, w);
        p += 8;
        len -= 8;
    }
    crc = (uint32_t)c64;
    while (len--)
        crc = _mm_crc32_u8(crc, *p++);
    return crc;
}
#endif

uint32_t rb_crc32c(uint32_t crc, const void *buf, size_t len)
{
    if (len == 0)
        return crc;
    pthread_once(&s_once, s_init);
    const unsigned char *p = buf;
#if defined(__x86_64__)
    if (s_use_hw)
        return ~s_crc_hw(~crc, p, len);
#endif
    return ~s_crc_sw(~crc, p, len);
}
