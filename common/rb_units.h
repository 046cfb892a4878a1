/* Sizes, durations and rates as storage engineers write them, with fio's
 * conventions: k/M/G/T/P are powers of 1024 for sizes ("4k" = 4096). */
#ifndef RB_UNITS_H
#define RB_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Parses a size: a decimal integer with an optional suffix k, m, g, t, p
 * (any case, optionally followed by "b" or "ib"; all mean powers of 1024).
 * Returns 0, -EINVAL on anything else (empty, junk, negative), -ERANGE on overflow. */
int rb_units_parse_size(const char *s, uint64_t *out);

/* Parses a size of a plan's job option exactly as fio reads it: a decimal
 * or 0x-hexadecimal integer with an optional suffix k, m, g, t, p (any
 * case) in powers of kb_base (1024 or 1000), optionally followed by "b" or
 * "i"; "kib", "mib" ... take the other base (with kb_base=1024, "4KiB" is
 * 4000 bytes and "4Ki" 4096, as fio reads them). Anything after the number
 * that fio would silently drop ("1.5k", "2m5") is -EINVAL here. Returns 0,
 * -EINVAL or -ERANGE. */
int rb_units_parse_fio_size(const char *s, unsigned kb_base, uint64_t *out);

/* Parses a duration into ns: a decimal number (fractions allowed) with an
 * optional suffix ns, us, ms, s, m, h, d; a bare number is in units of
 * default_unit_ns (fio: seconds for runtime). Returns 0, -EINVAL, -ERANGE. */
int rb_units_parse_duration_ns(const char *s, uint64_t default_unit_ns, uint64_t *out);

/* Parses a boolean option value: 1/0, true/false, yes/no, on/off. Returns 0 or -EINVAL. */
int rb_units_parse_bool(const char *s, int *out);

/* Formats bytes with a binary unit ("256 MiB", "1.50 GiB") into buf; returns buf. */
char *rb_units_fmt_size(char *buf, size_t len, double bytes);

/* Formats a bandwidth in bytes/s as "1.19 GiB/s (1.28 GB/s)" into buf; returns buf. */
char *rb_units_fmt_bw(char *buf, size_t len, double bytes_per_s);

/* The units report.txt prints sizes and rates in (--units): IEC's powers of
 * 1024 (MiB, MiB/s: fio's default reporting), SI's powers of 1000 (MB,
 * MB/s), or both (a rate as "1.19 GiB/s (1.28 GB/s)", a size in IEC). */
typedef enum rb_units_style {
    RB_UNITS_IEC = 0,
    RB_UNITS_SI,
    RB_UNITS_BOTH,
} rb_units_style_t;

/* Reads "iec", "si" or "both" into *out. Returns 0 or -EINVAL. */
int rb_units_parse_style(const char *s, rb_units_style_t *out);

/* "iec", "si" or "both". */
const char *rb_units_style_name(rb_units_style_t st);

/* Formats bytes in style st: "256 MiB" (IEC, and BOTH), "268 MB" (SI); returns buf. */
char *rb_units_fmt_size_in(char *buf, size_t len, double bytes, rb_units_style_t st);

/* Formats bytes/s in style st: "1.19 GiB/s", "1.28 GB/s", or for BOTH as
 * rb_units_fmt_bw does; returns buf. */
char *rb_units_fmt_bw_in(char *buf, size_t len, double bytes_per_s, rb_units_style_t st);

/* Copies text into buf (len bytes, always terminated) with every rate pair
 * that rb_units_fmt_bw wrote in it ("1.19 GiB/s (1.28 GB/s)") put in style
 * st: the IEC half, the SI half, or the pair unchanged; the rest of the text
 * is copied as it is. For texts made before the style was known (findings'
 * evidence, kept whole in summary.json). Returns buf. */
char *rb_units_restyle(char *buf, size_t len, const char *text, rb_units_style_t st);

/* Formats a size the way a plan writes it, exactly ("1M", "4k", "1000"); returns buf. */
char *rb_units_fmt_size_exact(char *buf, size_t len, uint64_t bytes);

/* Formats a duration the way a plan writes it, exactly, in the largest unit
 * that keeps it whole ("30s", "1500ms", "250us", "7ns"; "0" for 0), which
 * rb_units_parse_duration_ns reads back; returns buf. */
char *rb_units_fmt_duration_exact(char *buf, size_t len, uint64_t ns);

/* A whole decimal number from min to max (digits only). 0, -EINVAL or -ERANGE. */
int rb_units_parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* A fixed-point number, DIGITS[.DIGITS] then exactly suffix ("" or "%"),
 * into units of 10^-decimals ("12.5%" with 4 decimals and "%": 125000).
 * -EINVAL on junk or a missing suffix, -ERANGE when the whole part passes
 * max_whole or there are more than decimals decimals. max_whole times
 * 10^decimals must fit in 64 bits. */
int rb_units_parse_fixed(const char *s, int decimals, const char *suffix, uint64_t max_whole,
                         uint64_t *out);

/* A decimal number with a fraction, to be multiplied by a unit: whole +
 * frac / den (the first 18 decimals: beyond any unit's precision). */
typedef struct rb_decimal {
    unsigned __int128 whole, frac, den;
} rb_decimal_t;

/* Parses DIGITS[.DIGITS] at the start of s (at most len characters) into d
 * and says in *used how many it took: -EINVAL when s does not start with a
 * digit or a '.' has no digit after it, -ERANGE when the whole part passes
 * max_whole. */
int rb_units_parse_decimal(const char *s, size_t len, uint64_t max_whole, rb_decimal_t *d,
                           size_t *used);

/* d times scale, rounded to the nearest: -ERANGE above max. */
int rb_units_decimal_scale(const rb_decimal_t *d, uint64_t scale, uint64_t max, uint64_t *out);

#endif
