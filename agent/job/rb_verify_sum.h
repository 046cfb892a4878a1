/* The checksums of fio's verify methods: md5, sha1, sha256 and sha512 from
 * OpenSSL's libcrypto, crc32 from zlib, xxhash (XXH32, seed 1, as fio) from
 * libxxhash, crc32c from common/, and fio's crc64, crc16 and crc7 here. */
#ifndef RB_VERIFY_SUM_H
#define RB_VERIFY_SUM_H

#include <stddef.h>
#include <stdint.h>

#include "rb_proto.h"

#define RB_VERIFY_SUM_MAX 64 /* bytes of the longest checksum (sha512) */

/* The checksum of method t over a (alen bytes) then b (blen bytes) into out
 * (rb_verify_sum_len(t) bytes; integers little-endian). 0, or -1 when
 * libcrypto fails or t has no checksum. Allocates nothing after a thread's
 * first call. */
int rb_verify_sum(rb_verify_t t, const void *a, size_t alen, const void *b, size_t blen,
                  uint8_t *out);

/* fio's crc64 (reflected, polynomial 0x95AC9329AC4BC9B5, from 0, no final
 * xor), crc16 (reflected 0x8005 from 0: CRC-16/ARC) and crc7 (x^7 + x^3 + 1,
 * MSB first, from 0), each continuing from crc (0 to start). */
uint64_t rb_verify_crc64(uint64_t crc, const void *p, size_t len);
uint16_t rb_verify_crc16(uint16_t crc, const void *p, size_t len);
uint8_t rb_verify_crc7(uint8_t crc, const void *p, size_t len);

#endif
