/* Checksums of fio's verify methods (rb_verify_sum.h). The hashes are
 * Debian's well-kept libraries rather than code of our own; the three small
 * CRCs fio defines are table-driven here, their tables built once. */
#include "rb_verify_sum.h"

#include <pthread.h>
#include <string.h>

#include <openssl/evp.h>
#include <zlib.h>
#define XXH_STATIC_LINKING_ONLY /* XXH32_state_t on the stack */
#include <xxhash.h>

#include "rb_crc32c.h"

static uint64_t s_crc64_tab[256];
static uint16_t s_crc16_tab[256];
static uint8_t s_crc7_tab[256];
static EVP_MD *s_md[RB_VERIFY_NULL + 1]; /* the process's, never freed */
static pthread_once_t s_once = PTHREAD_ONCE_INIT;
static pthread_key_t s_ctx_key; /* each thread's EVP_MD_CTX, freed at its exit */

static void s_ctx_free(void *ctx)
{
    EVP_MD_CTX_free(ctx);
}

static void s_init(void)
{
    for (unsigned i = 0; i < 256; i++) {
        uint64_t c64 = i;
        uint16_t c16 = (uint16_t)i;
        unsigned c7 = i;
        for (int k = 0; k < 8; k++) {
            c64 = (c64 >> 1) ^ (c64 & 1 ? 0x95AC9329AC4BC9B5ULL : 0);
            c16 = (uint16_t)((c16 >> 1) ^ (c16 & 1 ? 0xA001u : 0));
            c7 = (c7 << 1) ^ (c7 & 0x80 ? 0x09u << 1 : 0);
        }
        s_crc64_tab[i] = c64;
        s_crc16_tab[i] = c16;
        s_crc7_tab[i] = (uint8_t)((c7 >> 1) & 0x7f);
    }
    /* fetched once: the legacy EVP_md5() would be looked up in the
     * provider again at every EVP_DigestInit_ex */
    s_md[RB_VERIFY_MD5] = EVP_MD_fetch(NULL, "MD5", NULL);
    s_md[RB_VERIFY_SHA1] = EVP_MD_fetch(NULL, "SHA1", NULL);
    s_md[RB_VERIFY_SHA256] = EVP_MD_fetch(NULL, "SHA256", NULL);
    s_md[RB_VERIFY_SHA512] = EVP_MD_fetch(NULL, "SHA512", NULL);
    (void)pthread_key_create(&s_ctx_key, s_ctx_free);
}

uint64_t rb_verify_crc64(uint64_t crc, const void *p, size_t len)
{
    const uint8_t *b = p;
    pthread_once(&s_once, s_init);
    while (len--)
        crc = s_crc64_tab[(crc ^ *b++) & 0xff] ^ (crc >> 8);
    return crc;
}

uint16_t rb_verify_crc16(uint16_t crc, const void *p, size_t len)
{
    const uint8_t *b = p;
    pthread_once(&s_once, s_init);
    while (len--)
        crc = (uint16_t)(s_crc16_tab[(crc ^ *b++) & 0xff] ^ (crc >> 8));
    return crc;
}

uint8_t rb_verify_crc7(uint8_t crc, const void *p, size_t len)
{
    const uint8_t *b = p;
    pthread_once(&s_once, s_init);
    while (len--)
        crc = s_crc7_tab[((unsigned)crc << 1 ^ *b++) & 0xff];
    return crc;
}

/* One of libcrypto's digests, in the calling thread's context. */
static int s_evp(rb_verify_t t, const void *a, size_t alen, const void *b, size_t blen,
                 uint8_t *out)
{
    EVP_MD_CTX *ctx = pthread_getspecific(s_ctx_key);
    if (!ctx) {
        ctx = EVP_MD_CTX_new();
        if (!ctx || pthread_setspecific(s_ctx_key, ctx) != 0) {
            EVP_MD_CTX_free(ctx);
            return -1;
        }
    }
    unsigned n = 0;
    if (!s_md[t] || !EVP_DigestInit_ex2(ctx, s_md[t], NULL) || !EVP_DigestUpdate(ctx, a, alen) ||
        !EVP_DigestUpdate(ctx, b, blen) || !EVP_DigestFinal_ex(ctx, out, &n))
        return -1;
    return (int)n == (int)rb_verify_sum_len(t) ? 0 : -1;
}

int rb_verify_sum(rb_verify_t t, const void *a, size_t alen, const void *b, size_t blen,
                  uint8_t *out)
{
    pthread_once(&s_once, s_init);
    switch (t) {
    case RB_VERIFY_CRC32C: {
        uint32_t c = rb_crc32c(rb_crc32c(0, a, alen), b, blen);
        memcpy(out, &c, sizeof c);
        return 0;
    }
    case RB_VERIFY_CRC32: {
        uLong c = crc32(crc32(0L, a, (uInt)alen), b, (uInt)blen);
        uint32_t c32 = (uint32_t)c;
        memcpy(out, &c32, sizeof c32);
        return 0;
    }
    case RB_VERIFY_CRC64: {
        uint64_t c = rb_verify_crc64(rb_verify_crc64(0, a, alen), b, blen);
        memcpy(out, &c, sizeof c);
        return 0;
    }
    case RB_VERIFY_CRC16: {
        uint16_t c = rb_verify_crc16(rb_verify_crc16(0, a, alen), b, blen);
        memcpy(out, &c, sizeof c);
        return 0;
    }
    case RB_VERIFY_CRC7:
        out[0] = rb_verify_crc7(rb_verify_crc7(0, a, alen), b, blen);
        return 0;
    case RB_VERIFY_XXHASH: {
        XXH32_state_t st;
        XXH32_reset(&st, 1);
        XXH32_update(&st, a, alen);
        XXH32_update(&st, b, blen);
        uint32_t h = XXH32_digest(&st);
        memcpy(out, &h, sizeof h);
        return 0;
    }
    case RB_VERIFY_MD5:
    case RB_VERIFY_SHA1:
    case RB_VERIFY_SHA256:
    case RB_VERIFY_SHA512:
        return s_evp(t, a, alen, b, blen, out);
    default:
        return -1;
    }
}
