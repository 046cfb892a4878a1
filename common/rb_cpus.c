/* CPU lists and masks as bitmaps (rb_cpus.h). */
#include "rb_cpus.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A CPU number at *p (digits only), moving *p past it; -1 if there is none
 * or it is RB_CPUS_MAX or more. */
static long s_cpu(const char **p)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    char *end;
    errno = 0;
    unsigned long v = strtoul(*p, &end, 10);
    *p = end;
    return errno || v >= RB_CPUS_MAX ? -1 : (long)v;
}

static const char *s_blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

int rb_cpus_parse_list(const char *s, uint8_t *mask, char *why, size_t len)
{
    memset(mask, 0, RB_CPUS_BYTES);
    const char *p = s_blanks(s);
    if (!*p) {
        snprintf(why, len, "an empty list of CPUs");
        return -EINVAL;
    }
    while (*p) {
        const char *at = p;
        long lo = s_cpu(&p), hi = lo;
        p = s_blanks(p);
        if (lo >= 0 && *p == '-') {
            p = s_blanks(p + 1);
            hi = s_cpu(&p);
            p = s_blanks(p);
        }
        if (lo < 0 || hi < 0 || (*p && *p != ',')) {
            snprintf(why, len, "'%.32s' is not a CPU or a range of CPUs from 0 to %d", at,
                     RB_CPUS_MAX - 1);
            return -EINVAL;
        }
        if (hi < lo) {
            snprintf(why, len, "the range %ld-%ld goes down", lo, hi);
            return -EINVAL;
        }
        for (long c = lo; c <= hi; c++)
            mask[c / 8] |= (uint8_t)(1u << (c % 8));
        if (*p == ',')
            p = s_blanks(p + 1);
    }
    return 0;
}

int rb_cpus_parse_mask(const char *s, uint8_t *mask, char *why, size_t len)
{
    memset(mask, 0, RB_CPUS_BYTES);
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (!isdigit((unsigned char)*s) || errno || *s_blanks(end) || v == 0) {
        snprintf(why, len,
                 "'%.32s' is not a mask of CPUs (a whole number other than 0, its bit N "
                 "CPU N; 0x for hexadecimal)",
                 s);
        return -EINVAL;
    }
    for (int c = 0; c < 64; c++)
        if (v >> c & 1)
            mask[c / 8] |= (uint8_t)(1u << (c % 8));
    return 0;
}

uint32_t rb_cpus_len(const uint8_t *mask, uint32_t bytes)
{
    while (bytes > 0 && !mask[bytes - 1])
        bytes--;
    return bytes;
}

uint32_t rb_cpus_count(const uint8_t *mask, uint32_t bytes)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < bytes; i++)
        n += (uint32_t)__builtin_popcount(mask[i]);
    return n;
}

int rb_cpus_nth(const uint8_t *mask, uint32_t bytes, uint32_t n)
{
    for (uint32_t c = 0; c < bytes * 8; c++)
        if (mask[c / 8] >> (c % 8) & 1 && n-- == 0)
            return (int)c;
    return -1;
}

char *rb_cpus_fmt(const uint8_t *mask, uint32_t bytes, char *buf, size_t len)
{
    size_t o = 0;
    if (len)
        buf[0] = '\0';
    for (uint32_t c = 0; c < bytes * 8 && o < len; c++) {
        if (!(mask[c / 8] >> (c % 8) & 1))
            continue;
        uint32_t e = c;
        while (e + 1 < bytes * 8 && mask[(e + 1) / 8] >> ((e + 1) % 8) & 1)
            e++;
        int w = e > c ? snprintf(buf + o, len - o, "%s%u-%u", o ? "," : "", c, e)
                      : snprintf(buf + o, len - o, "%s%u", o ? "," : "", c);
        if (w < 0)
            break;
        o += (size_t)w;
        c = e;
    }
    return buf;
}
