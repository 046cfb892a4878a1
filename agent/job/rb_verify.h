/* fio's verify methods. Every interval of a written block (verify_interval,
 * the block by default) starts with a header saying which run, node, file,
 * offset and pass wrote it, and a checksum of the interval by the job's
 * method (crc32c, md5, crc32, crc64, sha1, sha256, sha512, xxhash, crc16,
 * crc7; meta: the header alone), so a later read proves it got exactly the
 * data that was written there. verify=pattern writes verify_pattern alone
 * and checks every byte of it; verify=null checks nothing. */
#ifndef RB_VERIFY_H
#define RB_VERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "rb_proto.h"

#define RB_VERIFY_MAGIC                                                                            \
    0x31564252u /* "RBV1" little-endian: crc32c's; "RBV" + a letter for others */

/* 64-bit FNV-1a of a string: how runs and files are named in headers. */
uint64_t rb_verify_hash(const char *s);

/* 1 if what js writes carries what its reads check (a header or its
 * pattern): every method but null. */
int rb_verify_writes(const rb_job_spec_t *js);

/* Fills a len-byte block at offset with js's pattern, the offset pasted
 * where the pattern says %o (pattern_ofs). */
void rb_verify_fill(const rb_job_spec_t *js, void *block, uint64_t len, uint64_t offset);

/* Makes a len-byte block to be written at offset checkable: for the header
 * methods, a header and checksum at the start of each interval (swapped to
 * verify_offset when set) over the payload the caller filled; for pattern,
 * the pattern. len is bs, a multiple of the interval (rb_job_rules). */
void rb_verify_stamp(const rb_job_spec_t *js, void *block, uint64_t len, uint64_t run,
                     uint32_t node, uint64_t file, uint64_t offset, uint64_t gen);

/* Checks a block read from file at offset, written by node (its rank in the
 * run + 1; 0 takes any node); swaps headers back in place first. Returns 0,
 * or -EBADMSG with why filled ("bad md5 checksum", "written at offset X",
 * "written by node rank 2, not 1", "pattern differs at offset X"...). */
int rb_verify_check(const rb_job_spec_t *js, void *block, uint64_t len, uint64_t run, uint32_t node,
                    uint64_t file, uint64_t offset, char *why, size_t whylen);

#endif
