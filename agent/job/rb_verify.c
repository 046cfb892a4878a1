/* Block headers and checks for verify=crc32c (see rb_verify.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rb_crc32c.h"
#include "rb_verify.h"

typedef struct s_hdr {
    uint32_t magic;  /* RB_VERIFY_MAGIC */
    uint32_t crc;    /* CRC-32C of the block from the byte after this field */
    uint64_t run;    /* rb_verify_hash(run id) */
    uint64_t file;   /* rb_verify_hash(file name) */
    uint64_t offset; /* where in the file the block was written */
    uint64_t gen;    /* pass that wrote it */
    uint32_t len;    /* block length */
    uint32_t node;   /* rank + 1 of the node that wrote it (0: unknown) */
} s_hdr_t;

_Static_assert(sizeof(s_hdr_t) == RB_VERIFY_HDR, "verify header size");

uint64_t rb_verify_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}

static uint32_t s_crc(const void *block, uint64_t len)
{
    return rb_crc32c(0, (const char *)block + 8, (size_t)len - 8);
}

void rb_verify_stamp(void *block, uint64_t len, uint64_t run, uint32_t node, uint64_t file,
                     uint64_t offset, uint64_t gen)
{
    s_hdr_t h = {.magic = RB_VERIFY_MAGIC,
                 .run = run,
                 .file = file,
                 .offset = offset,
                 .gen = gen,
                 .len = (uint32_t)len,
                 .node = node};
    memcpy(block, &h, sizeof h);
    h.crc = s_crc(block, len);
    memcpy((char *)block + 4, &h.crc, sizeof h.crc);
}

int rb_verify_check(const void *block, uint64_t len, uint64_t run, uint32_t node, uint64_t file,
                    uint64_t offset, char *why, size_t whylen)
{
    s_hdr_t h;
    memcpy(&h, block, sizeof h);
    if (h.magic != RB_VERIFY_MAGIC)
        snprintf(why, whylen, "no verify header (magic %08x)", h.magic);
    else if (h.len != len)
        snprintf(why, whylen, "block length %u, read %llu", h.len, (unsigned long long)len);
    else if (h.crc != s_crc(block, len))
        snprintf(why, whylen, "bad checksum (stored %08x, computed %08x)", h.crc,
                 s_crc(block, len));
    else if (h.offset != offset)
        snprintf(why, whylen, "block written at offset %llu", (unsigned long long)h.offset);
    else if (h.file != file)
        snprintf(why, whylen, "block written to another file");
    else if (h.run != run)
        snprintf(why, whylen, "block written by another run");
    else if (node && h.node != node)
        snprintf(why, whylen, "block written by node rank %d, not rank %u", (int)h.node - 1,
                 node - 1);
    else
        return 0;
    return -EBADMSG;
}
