/* Text for people at a terminal's width: report.txt keeps its lines within
 * RB_TEXT_WIDTH columns by wrapping its long fields, never by cutting a
 * figure. */
#ifndef RB_TEXT_H
#define RB_TEXT_H

#include <stddef.h>
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

#endif
