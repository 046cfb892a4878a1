/* The value readers of the data and verification rows: fio's byte
 * patterns (buffer_pattern, verify_pattern with its %o), zero_buffers, and
 * fio's verify methods by name. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rb_plan_int.h"

/* fio's verify methods by name; sha3-* and pattern_hdr are refused by name. */
static const struct {
    const char *name;
    rb_verify_t v;
} s_verify[] = {
    {"0", RB_VERIFY_NONE},          {"none", RB_VERIFY_NONE},
    {"crc32c", RB_VERIFY_CRC32C},   {"crc32c-intel", RB_VERIFY_CRC32C},
    {"md5", RB_VERIFY_MD5},         {"crc32", RB_VERIFY_CRC32},
    {"crc64", RB_VERIFY_CRC64},     {"sha1", RB_VERIFY_SHA1},
    {"sha256", RB_VERIFY_SHA256},   {"sha512", RB_VERIFY_SHA512},
    {"xxhash", RB_VERIFY_XXHASH},   {"crc16", RB_VERIFY_CRC16},
    {"crc7", RB_VERIFY_CRC7},       {"meta", RB_VERIFY_META},
    {"pattern", RB_VERIFY_PATTERN}, {"null", RB_VERIFY_NULL},
};
static const char *const s_fio_verify_other[] = {"sha3-224", "sha3-256", "sha3-384", "sha3-512",
                                                 "pattern_hdr"};

#define S_VERIFY_LIST                                                                              \
    "crc32c, md5, crc32, crc64, sha1, sha256, sha512, xxhash, crc16, crc7, meta, pattern, null, "  \
    "or 0 for none"

/* fio's pattern syntax, without files: any sequence of 0x hex bytes,
 * "quoted text" and decimal numbers (INT_MIN..INT_MAX, written little-endian
 * in as few bytes as hold them, 0 as one byte), so 0xdeadbeef"abc"-12 is
 * 4 + 3 + 4 bytes; and, where ofs is given (verify_pattern), %o: 8 bytes
 * that hold the block's offset, their places as bits of *ofs. */
static int s_pattern_value(rb_plan_parser_t *ps, unsigned line, const char *key, const char *val,
                           uint8_t *out, uint32_t *out_len, uint64_t *ofs)
{
    uint8_t buf[RB_PATTERN_MAX];
    uint64_t at = 0;
    size_t n = 0;
    const char *c = val;
    while (*c) {
        size_t need = 0;
        if (c[0] == '%' && c[1] == 'o') {
            if (!ofs)
                return rb_plan_fail(ps, line,
                                    "%s=%.64s: the %%o format is verify_pattern's, not %s's", key,
                                    val, key);
            if (n + 8 > sizeof buf)
                goto too_long;
            memset(buf + n, 0, 8);
            at |= 1ull << n;
            n += 8;
            c += 2;
        } else if (*c == '"') {
            const char *end = strchr(c + 1, '"');
            if (!end)
                return rb_plan_fail(ps, line, "%s=%.64s: a string without its closing '\"'", key,
                                    val);
            need = (size_t)(end - c - 1);
            if (need == 0)
                return rb_plan_fail(ps, line, "%s=%.64s: an empty string \"\"", key, val);
            if (n + need > sizeof buf)
                goto too_long;
            memcpy(buf + n, c + 1, need);
            n += need;
            c = end + 1;
        } else if (*c == '\'') {
            return rb_plan_fail(
                ps, line,
                "%s=%.64s: a pattern read from a file ('NAME') is not supported yet "
                "(give the bytes as 0x..., \"text\" or a number)",
                key, val);
        } else if (c[0] == '0' && (c[1] == 'x' || c[1] == 'X')) {
            const char *h = c + 2;
            size_t nd = 0;
            while (rb_opt_hexval(h[nd]) >= 0)
                nd++;
            if (nd > 0 && (h[nd] == 'x' || h[nd] == 'X') && h[nd - 1] == '0')
                nd--; /* "0xff0x14": the last 0 starts the next number */
            if (nd == 0)
                return rb_plan_fail(ps, line, "%s=%.64s: '0x' without hex digits", key, val);
            need = (nd + 1) / 2;
            if (n + need > sizeof buf)
                goto too_long;
            size_t i = 0;
            if (nd % 2) /* an odd digit count: the first digit is a byte of its own */
                buf[n++] = (uint8_t)rb_opt_hexval(h[i++]);
            for (; i < nd; i += 2)
                buf[n++] = (uint8_t)(rb_opt_hexval(h[i]) << 4 | rb_opt_hexval(h[i + 1]));
            c = h + nd;
        } else if (*c == '-' || *c == '+' || (*c >= '0' && *c <= '9')) {
            bool neg = *c == '-';
            const char *d = (*c == '-' || *c == '+') ? c + 1 : c;
            uint64_t v = 0;
            size_t nd = 0;
            /* digits up to a "0x" that starts the next number, as fio reads "-100xab" */
            while (d[nd] >= '0' && d[nd] <= '9' &&
                   !(d[nd] == '0' && (d[nd + 1] == 'x' || d[nd + 1] == 'X'))) {
                if (v <= (uint64_t)INT_MAX + 1)
                    v = v * 10 + (uint64_t)(d[nd] - '0');
                nd++;
            }
            if (nd == 0)
                return rb_plan_fail(ps, line, "%s=%.64s: a sign without a number", key, val);
            if (v > (neg ? (uint64_t)INT_MAX + 1 : (uint64_t)INT_MAX))
                return rb_plan_fail(ps, line, "%s=%.64s: a decimal number out of range (%d..%d)",
                                    key, val, INT_MIN, INT_MAX);
            uint32_t u = neg ? (uint32_t)(0u - (uint32_t)v) : (uint32_t)v;
            uint8_t le[4];
            size_t nb = 0;
            do {
                le[nb++] = (uint8_t)(u & 0xff);
                u >>= 8;
            } while (u);
            if (n + nb > sizeof buf)
                goto too_long;
            memcpy(buf + n, le, nb);
            n += nb;
            c = d + nd;
        } else {
            return rb_plan_fail(
                ps, line,
                "bad value '%.64s' for %s (0x hex bytes, \"text\", a decimal number%s, "
                "such as 0xdeadbeef)",
                val, key, ofs ? " or %o" : "");
        }
    }
    memset(out, 0, RB_PATTERN_MAX);
    memcpy(out, buf, n);
    *out_len = (uint32_t)n;
    if (ofs)
        *ofs = at;
    return 0;
too_long:
    return rb_plan_fail(ps, line, "%s=%.64s is longer than %d bytes", key, val, RB_PATTERN_MAX);
}

/* buffer_pattern: write buffers repeating the bytes. */
int rb_opt_value_pattern(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                         const char *key, const char *val, unsigned line)
{
    (void)opt;
    int rc = s_pattern_value(ps, line, key, val, o->spec.pattern, &o->spec.pattern_len, NULL);
    if (rc == 0) {
        o->spec.buffer_mode = RB_BUF_PATTERN;
        o->spec.pattern_ofs = 0;
    }
    return rc;
}

/* verify_pattern: as fio, the write buffers' pattern, and verify=pattern
 * unless another method is set. */
int rb_opt_value_verify_pattern(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                                const char *key, const char *val, unsigned line)
{
    (void)opt;
    rb_job_spec_t *js = &o->spec;
    int rc = s_pattern_value(ps, line, key, val, js->pattern, &js->pattern_len, &js->pattern_ofs);
    if (rc == 0) {
        js->buffer_mode = RB_BUF_PATTERN;
        if (js->verify == RB_VERIFY_NONE)
            js->verify = RB_VERIFY_PATTERN;
    }
    return rc;
}

/* The later of zero_buffers and buffer_pattern decides. */
int rb_opt_value_zero_buffers(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                              const char *key, const char *val, unsigned line)
{
    (void)opt;
    rb_job_spec_t *js = &o->spec;
    bool b = false;
    int rc = rb_opt_value_bool(ps, line, key, val, &b);
    if (rc == 0 && b) {
        js->buffer_mode = RB_BUF_ZERO;
        js->pattern_len = 0;
        js->pattern_ofs = 0;
        memset(js->pattern, 0, sizeof js->pattern);
    } else if (rc == 0 && js->buffer_mode == RB_BUF_ZERO) {
        js->buffer_mode = RB_BUF_RANDOM;
    }
    return rc;
}

/* buffer_compress_percentage and dedupe_percentage: 0 .. 100. As fio,
 * dedupe_percentage also sets refill_buffers (a later line may clear it);
 * either one, even at 0, ends scramble_buffers when the job is settled. */
int rb_opt_value_buffer_pct(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                            const char *key, const char *val, unsigned line)
{
    uint64_t n = 0;
    int rc = rb_opt_value_uint(ps, line, key, val, opt->min, opt->max, &n);
    if (rc < 0)
        return rc;
    if (opt->off == offsetof(rb_job_spec_t, dedupe_pct)) {
        o->spec.dedupe_pct = (uint32_t)n;
        o->spec.refill_buffers = 1;
    } else {
        o->spec.compress_pct = (uint32_t)n;
    }
    return 0;
}

int rb_opt_value_verify(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                        const char *key, const char *val, unsigned line)
{
    (void)opt;
    for (size_t i = 0; i < sizeof s_verify / sizeof s_verify[0]; i++)
        if (!strcmp(val, s_verify[i].name)) {
            o->spec.verify = s_verify[i].v;
            return 0;
        }
    for (size_t i = 0; i < sizeof s_fio_verify_other / sizeof s_fio_verify_other[0]; i++)
        if (!strcmp(val, s_fio_verify_other[i]))
            return rb_plan_fail(
                ps, line, "%s=%.64s is not supported (rackbench has " S_VERIFY_LIST ")", key, val);
    return rb_plan_fail(ps, line, "bad value '%.64s' for %s (" S_VERIFY_LIST ")", val, key);
}
