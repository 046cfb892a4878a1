/* Records kept past their message, packed (rb_pack.c): a record's bytes
 * with each of its text fields cut to its text and a NUL, read back into a
 * whole zeroed record. What a receiver keeps of every node (its roots,
 * devices, drives' health) costs what it says, not the room its fields
 * have: a device of 1,544 bytes is about 150 so, a drive's health reading
 * of 648 about 170. */
#ifndef RB_PACK_H
#define RB_PACK_H

#include <stddef.h>
#include <stdint.h>

struct rb_checkpt;

typedef enum {
    RB_PACK_ROOT,   /* rb_root_info_t */
    RB_PACK_DEV,    /* rb_dev_id_t */
    RB_PACK_HEALTH, /* rb_health_t */
    RB_PACK_KINDS
} rb_pack_kind_t;

/* n records of one kind, packed in one allocation. */
typedef struct rb_packed {
    rb_pack_kind_t kind;
    uint32_t n;
    const uint32_t *at;   /* where record i starts in bytes */
    const uint8_t *bytes; /* the records */
} rb_packed_t;

/* The n records at recs packed (rb_packed_free); NULL without memory. */
rb_packed_t *rb_pack_array(rb_pack_kind_t k, const void *recs, uint32_t n);

/* Record i of p, whole, into *tmp, which it returns; NULL past the last. */
const void *rb_packed_get(const rb_packed_t *p, uint32_t i, void *tmp);

/* The n records of p, whole, in a new array (free()); NULL when p has none
 * or without memory. */
void *rb_packed_unpack_all(const rb_packed_t *p);

/* Record i's text field at offset off of its record type (offsetof), in
 * place: it lives as long as p. NULL past the last record or when no text
 * field of the kind starts at off. */
const char *rb_packed_text(const rb_packed_t *p, uint32_t i, size_t off);

void rb_packed_free(rb_packed_t **p);

/* A list of progress checkpoints packed: its count, then each point's time
 * and bytes as deltas from the point before (zigzag varints: exact for any
 * values, about 6 to 8 bytes a point, not 16). Into out (NULL: only
 * counts); the packed bytes. */
size_t rb_pack_checkpts(const struct rb_checkpt *cp, uint32_t n, uint8_t *out);

/* The list packed at *in (*left bytes there) into out, room for max points:
 * its count, *in and *left moved past it; -1 when cut short or over max. */
int64_t rb_unpack_checkpts(const uint8_t **in, size_t *left, struct rb_checkpt *out, uint32_t max);

/* A packed array made record by record, where the records are not side by
 * side: start with {.kind = k}, add, then finish. */
typedef struct rb_pack_build {
    rb_pack_kind_t kind;
    uint32_t n, cap; /* records, and room in at */
    uint32_t *at;
    uint8_t *bytes;
    size_t used, room;
    int failed; /* out of memory once: finish gives NULL */
} rb_pack_build_t;

/* Adds record rec whole, or record i of packed p as it is packed. */
void rb_pack_add(rb_pack_build_t *b, const void *rec);
void rb_pack_add_packed(rb_pack_build_t *b, const rb_packed_t *p, uint32_t i);

/* The records added, in one allocation (rb_packed_free), and b emptied;
 * NULL when none were added or out of memory. */
rb_packed_t *rb_pack_finish(rb_pack_build_t *b);

#endif
