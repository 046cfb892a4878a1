/* Text for people at a terminal's width: report.txt keeps its lines within
 * RB_TEXT_WIDTH columns by wrapping its long fields, never by cutting a
 * figure. */
#ifndef RB_TEXT_H
#define RB_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define RB_TEXT_WIDTH 120 /* report.txt's columns */

/* Writes text to f and a newline, the line having col columns already:
 * breaks it at spaces (at a gap of two, between fields, or after a comma
 * or semicolon, where one is near the end of the line) so that no line passes width unless one word
 * does; each further line starts with indent spaces. */
void rb_text_wrap(FILE *f, const char *text, size_t col, size_t indent, size_t width);

/* s without its leading and trailing blanks (space, tab, CR, VT, FF): the
 * end cut in place, the start returned. */
char *rb_text_trim(char *s);

/* Edit distance of two short strings ignoring case, a swap of neighbours
 * counting as one edit (for "did you mean"); cap+1 when larger than cap or
 * when either string is longer than 32 characters. */
size_t rb_text_distance(const char *a, const char *b, size_t cap);

/* The decimal digits of v, ending at end (a NUL written there): returns
 * where they start, at most 20 characters before end. */
char *rb_text_u64(char *end, uint64_t v);

/* x rounded to places decimals (at most 6) as printf's "%.*f" rounds it, in
 * units of 10^-places, into *units: 0 when that is certain without printing
 * (0 <= x, below 10^11 units, not within 10^-4 units of a tie, where
 * printf's rounding of x's binary value decides), -1 otherwise. */
int rb_text_fixed_units(double x, unsigned places, uint64_t *units);

/* What snprintf(buf, cap, "%.*f", places, x) writes, and its length, at
 * the cost of integer arithmetic where rb_text_fixed_units() is certain:
 * printing a double's digits cost more than all else of a sample's row. */
int rb_text_fixed(char *buf, size_t cap, double x, unsigned places);

#endif
