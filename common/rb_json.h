/* JSON for rackbench's run folders: a small DOM reader (re-rendering
 * reports, tests, comparisons). The writer is rb_jw.h, included here for
 * the files that do both. */
#ifndef RB_JSON_H
#define RB_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rb_err.h"
#include "rb_jw.h"

typedef enum {
    RB_JSON_NULL,
    RB_JSON_BOOL,
    RB_JSON_NUM,
    RB_JSON_STR,
    RB_JSON_ARR,
    RB_JSON_OBJ
} rb_json_type_t;

typedef struct rb_json rb_json_t;

/* Parses text (len bytes, need not be NUL-terminated). Returns a tree the
 * caller frees with rb_json_free(), or NULL with err set ("line L column C: why"). */
rb_json_t *rb_json_parse(const char *text, size_t len, rb_err_t *err);

/* Reads and parses a whole file; NULL with err naming the path on failure. */
rb_json_t *rb_json_load(const char *path, rb_err_t *err);

/* Frees a tree from rb_json_parse/rb_json_load and nulls the pointer; safe on NULL. */
void rb_json_free(rb_json_t **j);

/* Accessors; all tolerate NULL and return NULL / 0 / defaults on a type mismatch. */
rb_json_type_t rb_json_type(const rb_json_t *j);
const rb_json_t *rb_json_get(const rb_json_t *obj, const char *key); /* member or NULL */
size_t rb_json_len(const rb_json_t *j);                              /* array/object size */
const rb_json_t *rb_json_at(const rb_json_t *arr, size_t i);         /* element or NULL */
const char *rb_json_key_at(const rb_json_t *obj, size_t i);          /* i-th member name */
double rb_json_num(const rb_json_t *j, double dflt);
const char *rb_json_str(const rb_json_t *j); /* NULL if not a string */
int rb_json_bool(const rb_json_t *j, int dflt);

/* Member key of object o as a whole count (rounded; 0 when missing, not a
 * number or not above 0), and as a string copied into out ("" when missing). */
uint64_t rb_json_get_u64(const rb_json_t *o, const char *key);
void rb_json_get_str(const rb_json_t *o, const char *key, char *out, size_t len);

/* Path lookup "phases.0.lat_us.p99" (dot-separated, numbers index arrays). */
const rb_json_t *rb_json_path(const rb_json_t *root, const char *path);

#endif
