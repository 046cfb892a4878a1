/* CRC-32C (Castagnoli polynomial 0x1EDC6F41), the checksum of iSCSI, ext4
 * metadata and fio's verify=crc32c; used to verify data blocks. */
#ifndef RB_CRC32C_H
#define RB_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32C of len bytes at buf, continuing from crc (0 to start):
 * rb_crc32c(rb_crc32c(0, a, la), b, lb) == rb_crc32c(0, a||b, la + lb), and
 * rb_crc32c(0, "123456789", 9) == 0xE3069283. Uses the CPU's crc32
 * instruction where there is one. */
uint32_t rb_crc32c(uint32_t crc, const void *buf, size_t len);

#endif
