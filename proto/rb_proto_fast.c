/* Decoding a frame as this build's encoder writes it, straight from its
 * bytes (rb_proto_decode_fast): the map's keys in the layout's order, each
 * value in the form the encoder packs it. The full path (rb_msg_decode's
 * scan, msgpack-c's object tree, then a lookup per key) cost more than all
 * else a coordinator does with a SAMPLE. Any other frame, and every frame
 * with something wrong in it, is left to the full path, which reads any
 * msgpack form and names what is wrong: this one refuses without a word.
 * It applies the same bounds, rules and checks, so it accepts no frame the
 * full path refuses and fills the message as that path does (test_proto
 * decodes each frame both ways and compares). */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rb_proto_int.h"

typedef struct s_cur {
    const uint8_t *p, *end;
} s_cur_t;

/* n bytes, big-endian, into *v */
static bool s_be(s_cur_t *k, unsigned n, uint64_t *v)
{
    if ((size_t)(k->end - k->p) < n)
        return false;
    uint64_t x = 0;
    for (unsigned i = 0; i < n; i++)
        x = x << 8 | k->p[i];
    k->p += n;
    *v = x;
    return true;
}

static bool s_tag(s_cur_t *k, uint8_t *t)
{
    if (k->p >= k->end)
        return false;
    *t = *k->p++;
    return true;
}

/* An unsigned integer as the encoder packs one: positive fixint, uint 8 .. 64. */
static bool s_uint(s_cur_t *k, uint64_t *v)
{
    uint8_t t;
    if (!s_tag(k, &t))
        return false;
    if (t <= 0x7f) {
        *v = t;
        return true;
    }
    if (t < 0xcc || t > 0xcf)
        return false;
    return s_be(k, 1u << (t - 0xcc), v);
}

/* A signed integer: the unsigned forms for one >= 0, negative fixint and
 * int 8 .. 64 below 0. */
static bool s_int(s_cur_t *k, int64_t min, int64_t max, int64_t *v)
{
    uint8_t t = k->p < k->end ? *k->p : 0;
    uint64_t u;
    if (t <= 0x7f || (t >= 0xcc && t <= 0xcf)) {
        if (!s_uint(k, &u) || u > (uint64_t)max)
            return false;
        *v = (int64_t)u;
    } else if (t >= 0xe0) {
        k->p++;
        *v = (int8_t)t;
    } else if (t >= 0xd0 && t <= 0xd3) {
        unsigned n = 1u << (t - 0xd0);
        k->p++;
        if (!s_be(k, n, &u))
            return false;
        /* sign-extend the n-byte value */
        *v = n == 8 ? (int64_t)u : (int64_t)(u << (64 - 8 * n)) >> (64 - 8 * n);
        if (*v >= 0)
            return false; /* the encoder packs those unsigned */
    } else {
        return false;
    }
    return *v >= min && *v <= max;
}

/* A string's or binary's bytes: the str or bin forms (bin: true). */
static bool s_bytes(s_cur_t *k, bool bin, const uint8_t **s, uint32_t *n)
{
    uint8_t t;
    uint64_t len;
    if (!s_tag(k, &t))
        return false;
    if (!bin && t >= 0xa0 && t <= 0xbf)
        len = t & 0x1f;
    else if (!bin && t >= 0xd9 && t <= 0xdb) {
        if (!s_be(k, 1u << (t - 0xd9), &len))
            return false;
    } else if (bin && t >= 0xc4 && t <= 0xc6) {
        if (!s_be(k, 1u << (t - 0xc4), &len))
            return false;
    } else {
        return false;
    }
    if (len > (uint64_t)(k->end - k->p))
        return false;
    *s = k->p;
    *n = (uint32_t)len;
    k->p += len;
    return true;
}

/* A container's header: a map's pairs (map: true) or an array's elements. */
static bool s_head(s_cur_t *k, bool map, uint64_t *n)
{
    uint8_t t;
    if (!s_tag(k, &t))
        return false;
    uint8_t fix = map ? 0x80 : 0x90, wide = map ? 0xde : 0xdc;
    if (t >= fix && t <= fix + 0x0f) {
        *n = t & 0x0f;
        return true;
    }
    if (t != wide && t != wide + 1)
        return false;
    /* each element or pair takes at least a byte: nothing sized past the frame */
    return s_be(k, t == wide ? 2 : 4, n) && *n <= (uint64_t)(k->end - k->p);
}

/* The key of a layout's field: the encoder packs one under 32 bytes as a
 * fixstr, its tag and its bytes, compared here in place (a call to memcmp
 * a key, a hundred keys a SAMPLE, was a tenth of its decoding). */
static bool s_key(s_cur_t *k, const char *key, size_t klen)
{
    const uint8_t *p = k->p;
    if (klen < 32) {
        if ((size_t)(k->end - p) <= klen || p[0] != (0xa0 | klen))
            return false;
        for (size_t i = 0; i < klen; i++)
            if (p[1 + i] != (uint8_t)key[i])
                return false;
        k->p = p + 1 + klen;
        return true;
    }
    const uint8_t *s;
    uint32_t n;
    return s_bytes(k, false, &s, &n) && n == klen && memcmp(s, key, klen) == 0;
}

static bool s_fields(rb_proto_ctx_t *c, s_cur_t *k, const rb_proto_layout_t *l, void *base,
                     bool top, uint64_t pairs);

static bool s_buckets(rb_proto_ctx_t *c, s_cur_t *k, uint64_t *b)
{
    uint64_t n, idx, cnt, prev = 0, first = 1;
    if (!s_head(k, false, &n) || n % 2 || n > 2 * RB_HIST_NBUCKETS)
        return false;
    rb_proto_bsum_start(c);
    for (uint64_t i = 0; i < n; i += 2) {
        if (!s_uint(k, &idx) || idx >= RB_HIST_NBUCKETS || (i > 0 && idx <= prev) ||
            !s_uint(k, &cnt) || cnt == 0)
            return false;
        if (i == 0)
            first = idx;
        prev = idx;
        b[idx] = cnt;
        rb_proto_bsum_add(c, cnt);
    }
    rb_proto_hist_mark(RB_PROTO_HIST_OF(b), (unsigned)first, (unsigned)prev); /* none: 1..0 */
    return true;
}

static bool s_checkpts(s_cur_t *k, const rb_proto_field_t *f, void *base)
{
    uint64_t n, two;
    if (!s_head(k, false, &n) || n > f->max)
        return false;
    if (n == 0)
        return true;
    rb_checkpt_t *cp = rb_proto_block_get((size_t)n * sizeof *cp);
    if (!cp)
        return false;
    *(rb_checkpt_t **)rb_proto_ptr(base, f) = cp;
    *rb_proto_count(base, f) = (uint32_t)n;
    for (uint64_t i = 0; i < n; i++)
        if (!s_head(k, false, &two) || two != 2 || !s_uint(k, &cp[i].t_ns) ||
            !s_uint(k, &cp[i].bytes) || (i > 0 && cp[i].t_ns < cp[i - 1].t_ns))
            return false;
    return true;
}

static bool s_elems(rb_proto_ctx_t *c, s_cur_t *k, const rb_proto_field_t *f, void *base)
{
    uint64_t n;
    if (!s_head(k, false, &n) || n > f->max)
        return false;
    char *elems = rb_proto_ptr(base, f);
    if (f->kind == RB_PK_ARRAY) {
        elems = n ? rb_proto_block_get((size_t)n * f->size) : NULL;
        if (n && !elems)
            return false;
        memcpy(rb_proto_ptr(base, f), &elems, sizeof elems);
    }
    *rb_proto_count(base, f) = (uint32_t)n; /* before filling: a failure frees what was filled */
    for (uint64_t i = 0; i < n; i++)
        if (!s_fields(c, k, f->sub, elems + (size_t)i * f->size, false, 0))
            return false;
    return true;
}

static bool s_enum(s_cur_t *k, const rb_proto_field_t *f, void *p)
{
    const uint8_t *s;
    uint32_t n;
    if (!s_bytes(k, false, &s, &n))
        return false;
    for (unsigned v = 0; v < f->en->n; v++) {
        const char *name = f->en->names[v];
        if (name && strlen(name) == n && memcmp(name, s, n) == 0) {
            memcpy(p, &v, sizeof v);
            return true;
        }
    }
    return false;
}

static bool s_field(rb_proto_ctx_t *c, s_cur_t *k, const rb_proto_field_t *f, void *base)
{
    void *p = rb_proto_ptr(base, f);
    const uint8_t *s;
    uint32_t n;
    uint64_t u;
    int64_t i;
    switch (f->kind) {
    case RB_PK_U32:
    case RB_PK_U64:
        if (!s_uint(k, &u) || u < f->min || u > f->max)
            return false;
        if (f->kind == RB_PK_U32)
            *(uint32_t *)p = (uint32_t)u;
        else
            *(uint64_t *)p = u;
        return true;
    case RB_PK_ERRNO:
        if (!s_int(k, INT32_MIN, 0, &i))
            return false;
        *(int32_t *)p = (int32_t)i;
        return true;
    case RB_PK_I64:
        return s_int(k, INT64_MIN, INT64_MAX, (int64_t *)p);
    case RB_PK_BOOL:
        if (k->p >= k->end || (*k->p != 0xc2 && *k->p != 0xc3))
            return false;
        *(uint8_t *)p = *k->p++ == 0xc3;
        return true;
    case RB_PK_STR:
        if (!s_bytes(k, false, &s, &n) || n >= f->size || (n && memchr(s, '\0', n)))
            return false;
        memcpy(p, s, n);
        ((char *)p)[n] = '\0';
        return rb_proto_str_rule(f, p) == NULL;
    case RB_PK_ENUM:
        return s_enum(k, f, p);
    case RB_PK_BIN:
        if (!s_bytes(k, true, &s, &n) || n > f->max)
            return false;
        memcpy(p, s, n);
        *rb_proto_count(base, f) = n;
        return true;
    case RB_PK_HIST: {
        rb_hist_t *h = rb_proto_hist_get();
        if (!h)
            return false;
        *(rb_hist_t **)p = h; /* the message's from now on: rb_msg_fini frees it */
        c->bsum_set = false;
        return s_fields(c, k, f->sub, h, false, 0);
    }
    case RB_PK_BUCKETS:
        return s_buckets(c, k, p);
    case RB_PK_CHECKPTS:
        return s_checkpts(k, f, base);
    case RB_PK_ARRAY:
    case RB_PK_INLINE:
        return s_elems(c, k, f, base);
    }
    return false;
}

/* A map of l's fields of c's version, in l's order, the newer fields taking
 * their defaults; pairs: those of a message map left after "v" and "t"
 * (top), else read from the map's header here. */
static bool s_fields(rb_proto_ctx_t *c, s_cur_t *k, const rb_proto_layout_t *l, void *base,
                     bool top, uint64_t pairs)
{
    if (!top && !s_head(k, true, &pairs))
        return false;
    uint64_t read = 0;
    for (size_t i = 0; i < l->n; i++) {
        const rb_proto_field_t *f = &l->fields[i];
        if (rb_proto_since(f) > c->version)
            rb_proto_default(f, base);
        else if (read++ == pairs || !s_key(k, f->key, f->keylen) || !s_field(c, k, f, base))
            return false;
    }
    return read == pairs && (!l->check || l->check(c, base) == 0);
}

/* A message map's head as the encoder writes it: its pairs, "v" of the
 * window, "t" a known type; RB_MSG_NONE for anything else. */
static rb_msg_type_t s_msg_head(s_cur_t *k, uint64_t *pairs, uint64_t *version)
{
    const uint8_t *s;
    uint32_t tl;
    if (!s_head(k, true, pairs) || !s_key(k, "v", 1) || !s_uint(k, version) ||
        *version < RB_PROTO_OLDEST || *version > rb_proto_speak() || !s_key(k, "t", 1) ||
        !s_bytes(k, false, &s, &tl))
        return RB_MSG_NONE;
    for (int i = RB_MSG_NONE + 1; i < RB_MSG_COUNT; i++)
        if (strlen(rb_proto_type_names[i]) == tl && memcmp(rb_proto_type_names[i], s, tl) == 0)
            return (rb_msg_type_t)i;
    return RB_MSG_NONE;
}

rb_msg_type_t rb_msg_peek_type(const void *buf, size_t len)
{
    s_cur_t k = {buf, (const uint8_t *)buf + len};
    uint64_t n, v;
    return s_msg_head(&k, &n, &v);
}

int rb_proto_decode_fast(const void *buf, size_t len, rb_msg_t *m)
{
    s_cur_t k = {buf, (const uint8_t *)buf + len};
    uint64_t n, v;
    memset(m, 0, offsetof(rb_msg_t, u));
    rb_msg_type_t type = s_msg_head(&k, &n, &v);
    if (type == RB_MSG_NONE)
        return -1;
    rb_proto_ctx_t c = {
        .type = rb_proto_type_names[type], .code = -EBADMSG, .version = (uint32_t)v};
    const rb_proto_layout_t *l = rb_proto_bodies[type];
    m->type = type;
    m->version = (uint32_t)v;
    memset(&m->u, 0, rb_proto_msg_used(type) - offsetof(rb_msg_t, u));
    if (n < 2 || !s_fields(&c, &k, l, &m->u, true, n - 2) || k.p != k.end)
        return -1;
    return 0;
}
