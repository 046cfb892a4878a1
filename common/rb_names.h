/* An index of names kept elsewhere: name -> position in the caller's own
 * array, found in O(1). The caller stores the names; the index stores
 * positions and asks the caller for the name at one (name_at). Open
 * addressing over FNV-1a, at most half full. Used for the coordinator's
 * fleet (every message names its agent) and report.html's samples.csv
 * reader (thousands of names on every interval). */
#ifndef RB_NAMES_H
#define RB_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* The characters of every name rackbench shares (node, rack, job, key,
 * acceptance set): one rule, here. */
#define RB_NAMES_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

/* 1 when c is one of RB_NAMES_CHARS (A-Z a-z 0-9 . _ -), else 0. */
int rb_names_char(char c);

/* 1 when name is one of the comma-separated names of list ("a,b,c"; NULL
 * is an empty list), else 0. */
int rb_names_in_list(const char *list, const char *name);

/* Length of the run of RB_NAMES_CHARS at the start of s. */
size_t rb_names_span(const char *s);

typedef const char *(*rb_name_at_fn)(const void *ctx, uint32_t i);

typedef struct rb_names {
    uint32_t *slots; /* position + 1, 0 for a free slot */
    uint32_t nslots; /* a power of two, 0 before the first rb_names_fit */
} rb_names_t;

/* Position of name, or UINT32_MAX when it is not in the index. */
uint32_t rb_names_find(const rb_names_t *x, const char *name, rb_name_at_fn at, const void *ctx);

/* Makes room for one name more than the have already in (positions 0 ..
 * have-1, placed again when the table grows). 0 or -ENOMEM. */
int rb_names_grow(rb_names_t *x, uint32_t have, rb_name_at_fn at, const void *ctx);

/* Puts position i (whose name is not in the index) in, after rb_names_grow. */
void rb_names_put(rb_names_t *x, uint32_t i, rb_name_at_fn at, const void *ctx);

/* Empties the index and puts positions 0 .. n-1 in again (after the caller
 * reordered its array). */
void rb_names_rebuild(rb_names_t *x, uint32_t n, rb_name_at_fn at, const void *ctx);

void rb_names_fini(rb_names_t *x);

/* An index over an array of n records of stride bytes, each with its name
 * (a char array) at offset off, which it borrows: for lookups by name of a
 * report's nodes, per row of a file, where a walk over them per row made
 * reports of 16,000 nodes take minutes. The first of a name wins. */
typedef struct rb_names_array {
    rb_names_t names;
    const char *base;
    size_t stride, off;
    uint32_t n;
} rb_names_array_t;

/* 0 or -ENOMEM (x then finds nothing, and may be finished). */
int rb_names_array_build(rb_names_array_t *x, const void *base, size_t stride, size_t off,
                         uint32_t n);

/* The position of the record called name, or x->n when none is. */
uint32_t rb_names_array_find(const rb_names_array_t *x, const char *name);

void rb_names_array_fini(rb_names_array_t *x);

#endif
