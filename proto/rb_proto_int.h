/* What the files of proto/ share to encode and decode messages: the kinds
 * of field, the layout tables that describe every body once, the context
 * that names the field at fault, and the helpers both directions use. Not
 * for use outside proto/. */
#ifndef RB_PROTO_INT_H
#define RB_PROTO_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rb_proto.h"

typedef enum {
    RB_PK_U32,      /* uint32_t, within min .. max */
    RB_PK_U64,      /* uint64_t, within min .. max */
    RB_PK_ERRNO,    /* int32_t, 0 or a negative errno */
    RB_PK_I64,      /* int64_t */
    RB_PK_BOOL,     /* uint8_t 0 or 1; a msgpack boolean on the wire */
    RB_PK_STR,      /* char[size], NUL-terminated, no NUL inside; flags add rules */
    RB_PK_ENUM,     /* an enum, as its name in en on the wire */
    RB_PK_BIN,      /* uint8_t[size] and a uint32_t length: msgpack bin of at most max bytes */
    RB_PK_HIST,     /* rb_hist_t *, a sparse map described by sub */
    RB_PK_BUCKETS,  /* rb_hist_t.b: flat [index, count, ...] of the non-empty buckets */
    RB_PK_CHECKPTS, /* rb_checkpt_t * and a count: [[t_ns, bytes], ...], t_ns not decreasing */
    RB_PK_ARRAY,    /* pointer to elements described by sub, and a count */
    RB_PK_INLINE,   /* like RB_PK_ARRAY, but the elements live inside the struct */
} rb_proto_kind_t;

/* Extra rules of an RB_PK_STR. */
enum {
    RB_PK_F_NONEMPTY = 1, /* "" is refused */
    RB_PK_F_FILE = 2,     /* one path component: no '/', not "." or ".." */
    RB_PK_F_INFO = 4,     /* any kind: it only informs, and is left out for a peer of a
                           * version without it, whatever it holds */
};

/* An enum that travels as a string. */
typedef struct rb_proto_enum {
    const char *what;         /* what it is, for messages: "access pattern" */
    const char *const *names; /* wire name by value; NULL for a value without one */
    unsigned n;               /* entries in names */
} rb_proto_enum_t;

/* The enums of the job layout, with their wire names (rb_proto_names.c). */
extern const rb_proto_enum_t rb_proto_rw_enum, rb_proto_sync_enum, rb_proto_buf_enum,
    rb_proto_verify_enum, rb_proto_meta_enum, rb_proto_layout_enum;

typedef struct rb_proto_layout rb_proto_layout_t;
typedef struct rb_proto_ctx rb_proto_ctx_t;

typedef struct rb_proto_field {
    const char *key;      /* wire key, equal to the struct field's name */
    size_t keylen;        /* strlen(key) */
    rb_proto_kind_t kind; /* C type and wire form */
    size_t off;           /* offset of the value, the inline array or the array pointer */
    size_t size; /* RB_PK_STR, RB_PK_BIN: capacity (RB_PK_STR with the NUL); arrays: element size */
    size_t count_off; /* arrays, RB_PK_BIN: offset of the uint32_t element or byte count */
    uint64_t min;     /* integers: smallest value */
    uint64_t max;     /* integers: largest value; arrays: most elements; RB_PK_BIN: most bytes */
    unsigned flags;   /* RB_PK_STR: SF_* rules */
    const rb_proto_enum_t *en;    /* RB_PK_ENUM: names */
    const rb_proto_layout_t *sub; /* RB_PK_HIST, RB_PK_ARRAY, RB_PK_INLINE: layout of one element */
    uint64_t def;    /* RB_PK_U32, U64, I64, BOOL, ENUM: the value when a peer's version has no
                      * such key (strings, binaries and arrays: empty) */
    uint32_t since;  /* the protocol version the key arrived in; 0: RB_PROTO_OLDEST */
    const char *doc; /* what it holds, for docs/protocol.md; NULL: none given */
} rb_proto_field_t;

struct rb_proto_layout {
    const rb_proto_field_t *fields;                    /* in wire order */
    size_t n;                                          /* entries in fields */
    int (*check)(rb_proto_ctx_t *c, const void *base); /* rule across fields, or NULL */
};

#define RB_PROTO_MAX_DEPTH 8

struct rb_proto_ctx {
    rb_err_t *err;    /* where failures go (may be NULL) */
    const char *type; /* wire name of the message; NULL while unknown */
    int code;         /* what a bad field returns: -EINVAL encoding, -EBADMSG decoding */
    int depth;        /* entries used in at[] */
    uint32_t version; /* the protocol version of the frame written or read */
    /* what the histogram being read or written listed in its buckets, so
     * that its check does not walk all RB_HIST_NBUCKETS of them */
    bool bsum_set;  /* the buckets were read or written: bsum holds their sum */
    bool bsum_over; /* ... which overflowed */
    uint64_t bsum;
    struct {
        const char *key;      /* array or map field entered */
        long idx;             /* element index, -1 for a map */
    } at[RB_PROTO_MAX_DEPTH]; /* path from the message map to the current map */
};

/* A histogram's buckets start to be listed: the sum its check compares
 * with its count is added up from here (rb_proto_bsum_add). */
static inline void rb_proto_bsum_start(rb_proto_ctx_t *c)
{
    c->bsum = 0;
    c->bsum_over = false;
    c->bsum_set = true;
}

static inline void rb_proto_bsum_add(rb_proto_ctx_t *c, uint64_t n)
{
    c->bsum_over |= n > UINT64_MAX - c->bsum;
    c->bsum += n;
}

/* Wire names of the message types, and the layout of each type's body. */
extern const char *const rb_proto_type_names[RB_MSG_COUNT];
extern const rb_proto_layout_t *const rb_proto_bodies[RB_MSG_COUNT];

/* The layout of a job (RB_JOB_FIELDS), inside a PLAN's phases. */
extern const rb_proto_layout_t *const rb_proto_job_layout;

/* Bytes of rb_msg_t a message of type t uses (its header and its body). */
size_t rb_proto_msg_used(rb_msg_type_t t);

/* Enters (and leaves) field key, element idx (-1: a map), for messages. */
void rb_proto_enter(rb_proto_ctx_t *c, const char *key, long idx);
void rb_proto_leave(rb_proto_ctx_t *c);

/* Records "TYPE: field 'PATH.key[idx]': what" as c's error; returns c->code. */
__attribute__((format(printf, 4, 5))) int rb_proto_fail(rb_proto_ctx_t *c, const char *key,
                                                        long idx, const char *fmt, ...);

/* An integer outside its field's range: "0 out of range (min 1, max 65536)"; returns c->code. */
int rb_proto_fail_range(rb_proto_ctx_t *c, const char *key, long idx, uint64_t v, uint64_t min,
                        uint64_t max);

/* Zeroed memory for what a decoded message holds (histograms, arrays), and
 * its return. Blocks of a few KiB and more are kept for the next message
 * rather than freed: a message path that allocated, cleared and freed 30 KiB
 * a sample made glibc grow and trim its heap on every message (page faults
 * and TLB shootdowns). NULL without memory. */
void *rb_proto_block_get(size_t size);
void rb_proto_block_put(void *p, size_t size);

/* The same for a histogram (20 KiB, of which a message's buckets are a few
 * hundred bytes): one put back after rb_proto_hist_mark said which buckets
 * its decoding wrote is cleared there only when taken again, if its counts
 * show nothing else was added since; any other is cleared whole. */
rb_hist_t *rb_proto_hist_get(void);
void rb_proto_hist_put(rb_hist_t *h);

/* Buckets lo..hi of h (from rb_proto_hist_get) were written by a decoder
 * (none: lo > hi). */
void rb_proto_hist_mark(const rb_hist_t *h, unsigned lo, unsigned hi);

/* The histogram whose buckets an RB_PK_BUCKETS field is (only a histogram's
 * layout has one). */
#define RB_PROTO_HIST_OF(b) ((const rb_hist_t *)((const char *)(b)-offsetof(rb_hist_t, b)))

/* Sets field f of base to what a peer of a version without it means. */
void rb_proto_default(const rb_proto_field_t *f, void *base);

/* Decodes a frame as this build's encoder writes it (rb_proto_fast.c): 0,
 * or -1 for any other frame (m then holds what was filled, for
 * rb_msg_fini), which rb_msg_decode_full reads or refuses. */
int rb_proto_decode_fast(const void *buf, size_t len, rb_msg_t *m);

/* Records that memory ran out; returns -ENOMEM. */
int rb_proto_nomem(rb_proto_ctx_t *c);

/* src[0..len) with anything unprintable as '?', cut to cap; returns dst. */
const char *rb_proto_printable(char *dst, size_t cap, const char *src, size_t len);

/* Where field f of base is, and its element or byte count. */
void *rb_proto_ptr(const void *base, const rb_proto_field_t *f);
uint32_t *rb_proto_count(const void *base, const rb_proto_field_t *f);

/* Element array of an RB_PK_ARRAY or RB_PK_INLINE field of base. */
char *rb_proto_elems(const void *base, const rb_proto_field_t *f);

/* The version field f arrived in (its since, RB_PROTO_OLDEST for 0). */
uint32_t rb_proto_since(const rb_proto_field_t *f);

/* 1 when field f of base holds its default (absent from a frame of a
 * version without it, it would read the same), else 0. */
int rb_proto_is_default(const rb_proto_field_t *f, const void *base);

/* Why string s breaks f's rules (RB_PK_F_*), or NULL. */
const char *rb_proto_str_rule(const rb_proto_field_t *f, const char *s);

#endif
