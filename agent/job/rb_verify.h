/* verify=crc32c: every written block starts with a header saying which run,
 * node, file, offset and pass wrote it, and a CRC-32C of the whole block, so a later
 * read proves it got exactly the data that was written there. */
#ifndef RB_VERIFY_H
#define RB_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#define RB_VERIFY_MAGIC 0x31564252u /* "RBV1" little-endian */
#define RB_VERIFY_HDR   48u         /* header bytes at the start of each block */

/* 64-bit FNV-1a of a string: how runs and files are named in headers. */
uint64_t rb_verify_hash(const char *s);

/* Writes the header into the first RB_VERIFY_HDR bytes of a len-byte block
 * (len >= RB_VERIFY_HDR) and the CRC-32C over the whole block (header after
 * the crc field, then the payload, which the caller filled). */
void rb_verify_stamp(void *block, uint64_t len, uint64_t run, uint32_t node, uint64_t file,
                     uint64_t offset, uint64_t gen);

/* Checks a block read from file at offset, written by node (its rank in the
 * run + 1; 0 takes any node). Returns 0, or -EBADMSG with why filled ("bad
 * checksum", "written at offset X", "written by node rank 2, not 1"...). */
int rb_verify_check(const void *block, uint64_t len, uint64_t run, uint32_t node, uint64_t file,
                    uint64_t offset, char *why, size_t whylen);

#endif
