/* Reads and writes the sizes, durations and switches of plan files the way
 * fio users write them, and prints sizes and rates for reports. */
#include "rb_units.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rb_time.h"

static int s_isdigit(char c)
{
    return c >= '0' && c <= '9';
}

/* Reads the decimal digits at *p into *out and moves *p past them. Returns the
 * number of digits, or -ERANGE when they do not fit in 64 bits. */
static int s_digits(const char **p, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    int n = 0;

    for (; s_isdigit(*s); s++, n++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -ERANGE;
        v = v * 10 + d;
    }
    *p = s;
    *out = v;
    return n;
}

int rb_units_parse_size(const char *s, uint64_t *out)
{
    static const char suffixes[] = "kmgtp";
    uint64_t v;
    unsigned shift = 0;

    if (!s)
        return -EINVAL;
    int n = s_digits(&s, &v);
    if (n < 0)
        return n;
    if (n == 0)
        return -EINVAL;
    if (*s) {
        for (unsigned i = 0; suffixes[i]; i++)
            if (tolower((unsigned char)*s) == suffixes[i])
                shift = 10 * (i + 1);
        if (shift == 0)
            return -EINVAL;
        s++;
        if (*s && strcasecmp(s, "b") != 0 && strcasecmp(s, "ib") != 0)
            return -EINVAL;
    }
    if (shift && v > (UINT64_MAX >> shift))
        return -ERANGE;
    *out = v << shift;
    return 0;
}

int rb_units_parse_fio_size(const char *s, unsigned kb_base, uint64_t *out)
{
    static const char prefixes[] = "kmgtp";
    uint64_t v = 0;
    int n;

    if (!s || (kb_base != 1000 && kb_base != 1024))
        return -EINVAL;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        for (n = 0; isxdigit((unsigned char)*s); s++, n++) {
            unsigned d =
                (unsigned)(s_isdigit(*s) ? *s - '0' : tolower((unsigned char)*s) - 'a' + 10);
            if (v > (UINT64_MAX - d) / 16)
                return -ERANGE;
            v = v * 16 + d;
        }
    } else if ((n = s_digits(&s, &v)) < 0) {
        return n;
    }
    if (n == 0)
        return -EINVAL;
    uint64_t unit = 1;
    if (*s && strcasecmp(s, "b") != 0) {
        const char *p = strchr(prefixes, tolower((unsigned char)*s));
        if (!p || !*p)
            return -EINVAL;
        const char *rest = s + 1;
        unsigned base = kb_base;
        /* fio's rule as fio 3.x reads it: "kib" takes the other base
         * (kb_base=1024: 1000), while "k", "kb" and "ki" take kb_base */
        if (!strcasecmp(rest, "ib"))
            base = kb_base == 1024 ? 1000 : 1024;
        else if (*rest && strcasecmp(rest, "b") != 0 && strcasecmp(rest, "i") != 0)
            return -EINVAL;
        for (long i = 0; i <= p - prefixes; i++)
            unit *= base;
    }
    if (v > UINT64_MAX / unit)
        return -ERANGE;
    *out = v * unit;
    return 0;
}

static const struct {
    const char *name;
    uint64_t ns;
} s_time_units[] = {
    {"ns", 1},
    {"us", RB_NS_PER_US},
    {"ms", RB_NS_PER_MS},
    {"s", RB_NS_PER_S},
    {"m", 60 * RB_NS_PER_S},
    {"h", 3600 * RB_NS_PER_S},
    {"d", 86400 * RB_NS_PER_S},
};

/* Fraction digits beyond this many are dropped: 1e-18 of a day is far
 * below a nanosecond, and 10^18 still fits in 64 bits. */
#define S_FRAC_MAX_DIGITS 18

/* The number is "DIGITS" or "DIGITS.DIGITS" (a digit on both sides of the
 * point). The fraction is computed in integers and rounded to the nearest ns.
 * With default_unit_ns == 0, a bare number (no suffix) is refused. */
int rb_units_parse_duration_ns(const char *s, uint64_t default_unit_ns, uint64_t *out)
{
    uint64_t ip;
    uint64_t fnum = 0;
    uint64_t fden = 1;
    uint64_t unit = default_unit_ns;

    if (!s)
        return -EINVAL;
    int n = s_digits(&s, &ip);
    if (n < 0)
        return n;
    if (n == 0)
        return -EINVAL;
    if (*s == '.') {
        s++;
        if (!s_isdigit(*s))
            return -EINVAL;
        for (int i = 0; s_isdigit(*s); s++, i++) {
            if (i < S_FRAC_MAX_DIGITS) {
                fnum = fnum * 10 + (uint64_t)(*s - '0');
                fden *= 10;
            }
        }
    }
    if (*s) {
        unit = 0;
        for (size_t i = 0; i < sizeof s_time_units / sizeof s_time_units[0]; i++)
            if (strcasecmp(s, s_time_units[i].name) == 0)
                unit = s_time_units[i].ns;
    }
    if (unit == 0)
        return -EINVAL;

    if (ip > UINT64_MAX / unit)
        return -ERANGE;
    uint64_t whole = ip * unit;
    unsigned __int128 frac = ((unsigned __int128)fnum * unit + fden / 2) / fden;
    if (frac > UINT64_MAX - whole)
        return -ERANGE;
    *out = whole + (uint64_t)frac;
    return 0;
}

int rb_units_parse_bool(const char *s, int *out)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};

    if (!s)
        return -EINVAL;
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
        if (strcasecmp(s, yes[i]) == 0) {
            *out = 1;
            return 0;
        }
        if (strcasecmp(s, no[i]) == 0) {
            *out = 0;
            return 0;
        }
    }
    return -EINVAL;
}

/* Prints v scaled by base with 3 significant digits ("4.00", "12.5", "256")
 * and the unit; plain bytes print as a whole number. The next unit starts at
 * base - 0.5 so rounding never shows "1024 KiB"; with base 1024, 1000 to 1023
 * of a unit keep their 4 digits ("1000 KiB"). */
static char *s_fmt_scaled(char *buf, size_t len, double v, double base, const char *const *units,
                          size_t nunits, const char *tail)
{
    const char *sign = "";
    size_t u = 0;

    if (v < 0) {
        sign = "-";
        v = -v;
    }
    while (v >= base - 0.5 && u + 1 < nunits) {
        v /= base;
        u++;
    }
    if (u == 0 || v >= 99.95)
        snprintf(buf, len, "%s%.0f %s%s", sign, v, units[u], tail);
    else if (v >= 9.995)
        snprintf(buf, len, "%s%.1f %s%s", sign, v, units[u], tail);
    else
        snprintf(buf, len, "%s%.2f %s%s", sign, v, units[u], tail);
    return buf;
}

static const char *const s_bin_units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
static const char *const s_dec_units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
#define S_NUNITS (sizeof s_bin_units / sizeof s_bin_units[0])

char *rb_units_fmt_size(char *buf, size_t len, double bytes)
{
    if (len == 0)
        return buf;
    return s_fmt_scaled(buf, len, bytes, 1024.0, s_bin_units, S_NUNITS, "");
}

char *rb_units_fmt_bw(char *buf, size_t len, double bytes_per_s)
{
    char bin[32];
    char dec[32];

    if (len == 0)
        return buf;
    s_fmt_scaled(bin, sizeof bin, bytes_per_s, 1024.0, s_bin_units, S_NUNITS, "/s");
    s_fmt_scaled(dec, sizeof dec, bytes_per_s, 1000.0, s_dec_units, S_NUNITS, "/s");
    snprintf(buf, len, "%s (%s)", bin, dec);
    return buf;
}

int rb_units_parse_style(const char *s, rb_units_style_t *out)
{
    static const rb_units_style_t all[] = {RB_UNITS_IEC, RB_UNITS_SI, RB_UNITS_BOTH};
    for (size_t i = 0; s && i < sizeof all / sizeof all[0]; i++)
        if (!strcmp(s, rb_units_style_name(all[i]))) {
            *out = all[i];
            return 0;
        }
    return -EINVAL;
}

const char *rb_units_style_name(rb_units_style_t st)
{
    return st == RB_UNITS_SI ? "si" : st == RB_UNITS_BOTH ? "both" : "iec";
}

char *rb_units_fmt_size_in(char *buf, size_t len, double bytes, rb_units_style_t st)
{
    if (len == 0)
        return buf;
    if (st == RB_UNITS_SI)
        return s_fmt_scaled(buf, len, bytes, 1000.0, s_dec_units, S_NUNITS, "");
    return s_fmt_scaled(buf, len, bytes, 1024.0, s_bin_units, S_NUNITS, "");
}

char *rb_units_fmt_bw_in(char *buf, size_t len, double bytes_per_s, rb_units_style_t st)
{
    if (len == 0)
        return buf;
    if (st == RB_UNITS_SI)
        return s_fmt_scaled(buf, len, bytes_per_s, 1000.0, s_dec_units, S_NUNITS, "/s");
    if (st == RB_UNITS_IEC)
        return s_fmt_scaled(buf, len, bytes_per_s, 1024.0, s_bin_units, S_NUNITS, "/s");
    return rb_units_fmt_bw(buf, len, bytes_per_s);
}

/* The length of a rate as s_fmt_scaled writes it at the start of s
 * ("-1.19 GiB/s": an optional sign, digits and a point, a space, one of
 * units, "/s"), or 0 when s does not start with one. */
static size_t s_rate_len(const char *s, const char *const *units, size_t nunits)
{
    size_t n = s[0] == '-';
    size_t digits = strspn(s + n, "0123456789.");
    if (!digits || s[n + digits] != ' ')
        return 0;
    n += digits + 1;
    for (size_t u = 0; u < nunits; u++) {
        size_t ul = strlen(units[u]);
        if (!strncmp(s + n, units[u], ul) && !strncmp(s + n + ul, "/s", 2))
            return n + ul + 2;
    }
    return 0;
}

char *rb_units_restyle(char *buf, size_t len, const char *text, rb_units_style_t st)
{
    size_t o = 0;
    if (len == 0)
        return buf;
    for (size_t i = 0; text[i] && o + 1 < len;) {
        size_t a = 0, b = 0;
        int start = i == 0 || !(isalnum((unsigned char)text[i - 1]) || text[i - 1] == '.');
        if (start && st != RB_UNITS_BOTH && (a = s_rate_len(text + i, s_bin_units, S_NUNITS)) &&
            !strncmp(text + i + a, " (", 2) &&
            (b = s_rate_len(text + i + a + 2, s_dec_units, S_NUNITS)) &&
            text[i + a + 2 + b] == ')') {
            const char *keep = st == RB_UNITS_IEC ? text + i : text + i + a + 2;
            size_t klen = st == RB_UNITS_IEC ? a : b;
            if (klen > len - 1 - o)
                klen = len - 1 - o;
            memcpy(buf + o, keep, klen);
            o += klen;
            i += a + 2 + b + 1;
            continue;
        }
        buf[o++] = text[i++];
    }
    buf[o] = '\0';
    return buf;
}

char *rb_units_fmt_size_exact(char *buf, size_t len, uint64_t bytes)
{
    static const char suffixes[] = "kMGTP";
    int u = -1;

    if (len == 0)
        return buf;
    while (u + 1 < (int)(sizeof suffixes - 1) && bytes != 0 && (bytes & 1023) == 0) {
        bytes >>= 10;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%" PRIu64, bytes);
    else
        snprintf(buf, len, "%" PRIu64 "%c", bytes, suffixes[u]);
    return buf;
}

int rb_units_parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (!*s)
        return -EINVAL;
    for (const char *c = s; *c; c++) {
        if (*c < '0' || *c > '9')
            return -EINVAL;
        unsigned d = (unsigned)(*c - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -ERANGE;
        v = v * 10 + d;
    }
    if (v < min || v > max)
        return -ERANGE;
    *out = v;
    return 0;
}

int rb_units_parse_fixed(const char *s, int decimals, const char *suffix, uint64_t max_whole,
                         uint64_t *out)
{
    uint64_t whole = 0, frac = 0, one = 1;
    int n = 0;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return -EINVAL;
    for (; *p >= '0' && *p <= '9'; p++) {
        whole = whole * 10 + (uint64_t)(*p - '0');
        if (whole > max_whole)
            return -ERANGE;
    }
    if (*p == '.') {
        p++;
        if (*p < '0' || *p > '9')
            return -EINVAL;
        for (; *p >= '0' && *p <= '9'; p++, n++) {
            if (n == decimals)
                return -ERANGE;
            frac = frac * 10 + (uint64_t)(*p - '0');
        }
    }
    if (strcmp(p, suffix) != 0)
        return -EINVAL;
    for (int i = 0; i < decimals; i++)
        one *= 10;
    for (; n < decimals; n++)
        frac *= 10;
    *out = whole * one + frac;
    return 0;
}

int rb_units_parse_decimal(const char *s, size_t len, uint64_t max_whole, rb_decimal_t *d,
                           size_t *used)
{
    const char *p = s, *end = s + len;
    d->whole = d->frac = 0;
    d->den = 1;
    if (p == end || *p < '0' || *p > '9')
        return -EINVAL;
    for (; p < end && *p >= '0' && *p <= '9'; p++) {
        d->whole = d->whole * 10 + (unsigned)(*p - '0');
        if (d->whole > max_whole)
            return -ERANGE;
    }
    if (p < end && *p == '.') {
        p++;
        if (p == end || *p < '0' || *p > '9')
            return -EINVAL;
        for (int i = 0; p < end && *p >= '0' && *p <= '9'; p++, i++) {
            if (i < 18) { /* beyond, digits past any unit's precision */
                d->frac = d->frac * 10 + (unsigned)(*p - '0');
                d->den *= 10;
            }
        }
    }
    *used = (size_t)(p - s);
    return 0;
}

int rb_units_decimal_scale(const rb_decimal_t *d, uint64_t scale, uint64_t max, uint64_t *out)
{
    unsigned __int128 v = d->whole * scale + (d->frac * scale + d->den / 2) / d->den;
    if (v > max)
        return -ERANGE;
    *out = (uint64_t)v;
    return 0;
}

char *rb_units_fmt_duration_exact(char *buf, size_t len, uint64_t ns)
{
    static const struct {
        uint64_t ns;
        const char *suffix;
    } units[] = {{1000000000ull, "s"}, {1000000ull, "ms"}, {1000ull, "us"}, {1, "ns"}};
    if (ns == 0) {
        snprintf(buf, len, "0");
        return buf;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (ns % units[i].ns == 0) {
            snprintf(buf, len, "%" PRIu64 "%s", ns / units[i].ns, units[i].suffix);
            break;
        }
    }
    return buf;
}
