/* Block headers, checksums and patterns of fio's verify methods (see
 * rb_verify.h; the checksums themselves are rb_verify_sum.c's). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rb_crc32c.h"
#include "rb_verify.h"
#include "rb_verify_sum.h"

typedef struct s_hdr {
    uint32_t magic;  /* "RBV" and the method's letter (s_letter) */
    uint32_t crc;    /* crc32c: CRC-32C of the interval from the byte after this field;
                      * other methods: CRC-32C of the header after this field and the
                      * checksum that follows it (meta: the header alone) */
    uint64_t run;    /* rb_verify_hash(run id) */
    uint64_t file;   /* rb_verify_hash(file name) */
    uint64_t offset; /* where in the file the interval was written */
    uint64_t gen;    /* pass that wrote it: the sequence */
    uint32_t len;    /* interval length */
    uint32_t node;   /* rank + 1 of the node that wrote it (0: unknown) */
} s_hdr_t;

_Static_assert(sizeof(s_hdr_t) == RB_VERIFY_HDR, "verify header size");

/* The fourth byte of each method's magic; crc32c keeps the first format's '1'. */
static const char s_letter[] = {
    [RB_VERIFY_CRC32C] = '1', [RB_VERIFY_MD5] = 'M',    [RB_VERIFY_CRC32] = 'C',
    [RB_VERIFY_CRC64] = '6',  [RB_VERIFY_SHA1] = 'S',   [RB_VERIFY_SHA256] = '2',
    [RB_VERIFY_SHA512] = '5', [RB_VERIFY_XXHASH] = 'X', [RB_VERIFY_CRC16] = 'W',
    [RB_VERIFY_CRC7] = '7',   [RB_VERIFY_META] = 'H'};

uint64_t rb_verify_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}

int rb_verify_writes(const rb_job_spec_t *js)
{
    return js->verify != RB_VERIFY_NONE && js->verify != RB_VERIFY_NULL;
}

static uint32_t s_magic(rb_verify_t t)
{
    return 0x00564252u | (uint32_t)(unsigned char)s_letter[t] << 24;
}

/* Bytes each header covers. */
static uint64_t s_unit(const rb_job_spec_t *js, uint64_t len)
{
    return js->verify_interval && js->verify_interval < len ? js->verify_interval : len;
}

/* One repetition of the pattern with offset pasted at its %o; its length. */
static uint32_t s_pattern_rep(const rb_job_spec_t *js, uint64_t offset, uint8_t *rep)
{
    uint32_t n = js->pattern_len <= RB_PATTERN_MAX ? js->pattern_len : RB_PATTERN_MAX;
    memcpy(rep, js->pattern, n);
    for (uint32_t k = 0; k + sizeof offset <= n; k++)
        if (js->pattern_ofs >> k & 1)
            memcpy(rep + k, &offset, sizeof offset);
    return n;
}

void rb_verify_fill(const rb_job_spec_t *js, void *block, uint64_t len, uint64_t offset)
{
    uint8_t rep[RB_PATTERN_MAX], *b = block;
    uint32_t n = s_pattern_rep(js, offset, rep);
    for (uint64_t i = 0; n && i < len; i += n)
        memcpy(b + i, rep, len - i < n ? len - i : n);
}

/* Exchanges the header's bytes with those at verify_offset of the interval. */
static void s_swap(const rb_job_spec_t *js, uint8_t *iv)
{
    uint8_t tmp[RB_VERIFY_HDR + RB_VERIFY_SUM_MAX];
    uint32_t h = rb_verify_hdr_len(js->verify);
    uint64_t at = js->verify_offset;
    memcpy(tmp, iv, h);
    memcpy(iv, iv + at, h);
    memcpy(iv + at, tmp, h);
}

/* The interval's checksum by method t: crc32c over everything after its
 * crc field, the others over the header after it and the payload after the
 * stored checksum. */
static void s_sum(rb_verify_t t, const uint8_t *iv, uint64_t len, uint8_t *out)
{
    uint32_t h = rb_verify_hdr_len(t);
    if (rb_verify_sum(t, iv + 8, RB_VERIFY_HDR - 8, iv + h, (size_t)(len - h), out) < 0)
        memset(out, 0, rb_verify_sum_len(t)); /* checks then fail, saying so */
}

static void s_stamp_one(const rb_job_spec_t *js, uint8_t *iv, uint64_t len, s_hdr_t *h)
{
    rb_verify_t t = js->verify;
    uint32_t hl = rb_verify_hdr_len(t);
    memcpy(iv, h, sizeof *h);
    if (t == RB_VERIFY_CRC32C) {
        s_sum(t, iv, len, iv + 4);
    } else {
        if (t != RB_VERIFY_META)
            s_sum(t, iv, len, iv + RB_VERIFY_HDR);
        uint32_t c = rb_crc32c(0, iv + 8, hl - 8);
        memcpy(iv + 4, &c, sizeof c);
    }
    if (js->verify_offset)
        s_swap(js, iv);
}

void rb_verify_stamp(const rb_job_spec_t *js, void *block, uint64_t len, uint64_t run,
                     uint32_t node, uint64_t file, uint64_t offset, uint64_t gen)
{
    if (js->verify == RB_VERIFY_PATTERN || js->pattern_ofs)
        rb_verify_fill(js, block, len, offset);
    if (!rb_verify_hdr_len(js->verify))
        return;
    uint64_t unit = s_unit(js, len);
    for (uint64_t at = 0; at + unit <= len; at += unit) {
        s_hdr_t h = {.magic = s_magic(js->verify),
                     .run = run,
                     .file = file,
                     .offset = offset + at,
                     .gen = gen,
                     .len = (uint32_t)unit,
                     .node = node};
        s_stamp_one(js, (uint8_t *)block + at, unit, &h);
    }
}

/* Hex of the first bytes of a checksum, for messages. */
static const char *s_hex(const uint8_t *p, uint32_t n, char *out)
{
    n = n < 8 ? n : 8;
    for (uint32_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", p[i]);
    return out;
}

/* Checks the checksums of one interval: the method's and, for the methods
 * with one, the header's own. */
static int s_check_sums(rb_verify_t t, const uint8_t *iv, uint64_t len, const s_hdr_t *h, char *why,
                        size_t whylen)
{
    uint8_t sum[RB_VERIFY_SUM_MAX];
    char a[20], b[20];
    uint32_t hl = rb_verify_hdr_len(t), sl = rb_verify_sum_len(t);
    if (t == RB_VERIFY_CRC32C) {
        s_sum(t, iv, len, sum);
        if (memcmp(sum, &h->crc, 4)) {
            uint32_t c;
            memcpy(&c, sum, sizeof c);
            snprintf(why, whylen, "bad checksum (stored %08x, computed %08x)", h->crc, c);
            return -EBADMSG;
        }
        return 0;
    }
    uint32_t c = rb_crc32c(0, iv + 8, hl - 8);
    if (c != h->crc) {
        snprintf(why, whylen, "bad header checksum (stored %08x, computed %08x)", h->crc, c);
        return -EBADMSG;
    }
    if (t == RB_VERIFY_META)
        return 0;
    s_sum(t, iv, len, sum);
    if (memcmp(sum, iv + RB_VERIFY_HDR, sl)) {
        snprintf(why, whylen, "bad %s checksum (stored %s, computed %s)", rb_verify_name(t),
                 s_hex(iv + RB_VERIFY_HDR, sl, a), s_hex(sum, sl, b));
        return -EBADMSG;
    }
    return 0;
}

/* Checks one interval's header (swapped back already) against where it was read. */
static int s_check_one(const rb_job_spec_t *js, const uint8_t *iv, uint64_t len, uint64_t run,
                       uint32_t node, uint64_t file, uint64_t offset, char *why, size_t whylen)
{
    s_hdr_t h;
    memcpy(&h, iv, sizeof h);
    if ((h.magic & 0x00ffffffu) != 0x00564252u)
        snprintf(why, whylen, "no verify header (magic %08x)", h.magic);
    else if (h.magic != s_magic(js->verify))
        snprintf(why, whylen, "a header of another verify method (magic %08x), not %s", h.magic,
                 rb_verify_name(js->verify));
    else if (h.len != len)
        snprintf(why, whylen, "block length %u, read %llu", h.len, (unsigned long long)len);
    else if (s_check_sums(js->verify, iv, len, &h, why, whylen))
        return -EBADMSG;
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

/* verify=pattern: every byte as the pattern says; the first that is not named. */
static int s_check_pattern(const rb_job_spec_t *js, const uint8_t *b, uint64_t len, uint64_t offset,
                           char *why, size_t whylen)
{
    uint8_t rep[RB_PATTERN_MAX];
    uint32_t n = s_pattern_rep(js, offset, rep);
    for (uint64_t i = 0; n && i < len; i += n) {
        uint64_t k = len - i < n ? len - i : n;
        if (!memcmp(b + i, rep, k))
            continue;
        uint64_t j = 0;
        while (b[i + j] == rep[j])
            j++;
        snprintf(why, whylen, "pattern differs at offset %llu (read %02x, expected %02x)",
                 (unsigned long long)(offset + i + j), b[i + j], rep[j]);
        return -EBADMSG;
    }
    return 0;
}

int rb_verify_check(const rb_job_spec_t *js, void *block, uint64_t len, uint64_t run, uint32_t node,
                    uint64_t file, uint64_t offset, char *why, size_t whylen)
{
    if (js->verify == RB_VERIFY_PATTERN)
        return s_check_pattern(js, block, len, offset, why, whylen);
    if (!rb_verify_hdr_len(js->verify))
        return 0; /* null: read, not checked */
    uint64_t unit = s_unit(js, len);
    for (uint64_t at = 0; at + unit <= len; at += unit) {
        uint8_t *iv = (uint8_t *)block + at;
        if (js->verify_offset)
            s_swap(js, iv);
        char one[200];
        if (s_check_one(js, iv, unit, run, node, file, offset + at, one, sizeof one) == 0)
            continue;
        if (unit < len)
            snprintf(why, whylen, "interval at offset %llu: %s", (unsigned long long)(offset + at),
                     one);
        else
            snprintf(why, whylen, "%s", one);
        return -EBADMSG;
    }
    return 0;
}
