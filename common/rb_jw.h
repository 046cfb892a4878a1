/* A streaming JSON writer: summary.json and every other JSON rackbench
 * writes, indented one member a line, numbers in the C locale whatever
 * LC_NUMERIC says, the first error kept. */
#ifndef RB_JW_H
#define RB_JW_H

#include <locale.h>
#include <stdint.h>
#include <stdio.h>

typedef struct rb_jw {
    FILE *f;       /* borrowed output stream */
    int depth;     /* current nesting depth */
    int first[64]; /* 1 while the container at this depth has no member yet */
    int err;       /* first error (-errno), 0 if none */
} rb_jw_t;

/* Starts writing to f (borrowed). Output is indented, one member a line. */
void rb_jw_init(rb_jw_t *w, FILE *f);

/* Containers and values. key is the member name inside an object, NULL inside an array. */
void rb_jw_obj_begin(rb_jw_t *w, const char *key);
void rb_jw_obj_end(rb_jw_t *w);
void rb_jw_arr_begin(rb_jw_t *w, const char *key);
void rb_jw_arr_end(rb_jw_t *w);
void rb_jw_str(rb_jw_t *w, const char *key, const char *val); /* escaped; NULL → null */
void rb_jw_u64(rb_jw_t *w, const char *key, uint64_t val);
void rb_jw_i64(rb_jw_t *w, const char *key, int64_t val);
void rb_jw_num(rb_jw_t *w, const char *key, double val); /* non-finite → null */
void rb_jw_bool(rb_jw_t *w, const char *key, int val);
void rb_jw_null(rb_jw_t *w, const char *key);

/* Ends the document (newline, flush). Returns 0 or the first error (-errno). */
int rb_jw_finish(rb_jw_t *w);

/* The C locale, or (locale_t)0 if it could not be created (then the
 * current one is used): JSON's numbers always use '.'. */
locale_t rb_jw_c_locale(void);

#endif
