/* Decoding a message (rb_msg_decode): a frame is scanned before msgpack-c
 * builds it, then every field is read through the body's layout, checked
 * against its bounds and rules, with the field at fault named. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

#include "rb_build.h"
#include "rb_proto_int.h"

/* ---- decoding ---- */

#define S_SCAN_DEPTH 16 /* nested containers; messages use 5, msgpack-c allows 32 */

/* Walks one msgpack value without building it. msgpack-c allocates a
 * container's declared size before reading its elements, so a 5-byte header
 * announcing 2^32 elements would ask for ~100 GB; here every declared element
 * must fit in the bytes left, which bounds what msgpack-c allocates by the
 * frame size. Nesting deeper than S_SCAN_DEPTH is refused too. Returns the
 * bytes used, or -1 (truncated or invalid) with the offset of the value at fault in *bad. */
static long s_scan(const uint8_t *p, size_t len, size_t *bad)
{
    uint64_t left[S_SCAN_DEPTH + 1] = {1}; /* values still to read per open container */
    uint64_t pending = 1;                  /* sum of left[] */
    int top = 0;                           /* left[0]: the frame, holding one value */
    size_t i = 0, start = 0;               /* read offset; offset of the current value */
    while (top >= 0) {
        if (left[top] == 0) {
            top--;
            continue;
        }
        if (i >= len)
            goto fail;
        start = i;
        uint8_t t = p[i++];
        uint64_t skip = 0, items = 0;
        unsigned nlen = 0; /* bytes of a length or count field */
        unsigned mult = 0; /* 0: the length counts bytes; 1: array elements; 2: map pairs */
        bool container = false;
        left[top]--;
        pending--;
        if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3)
            continue;
        if (t <= 0x8f) {
            items = 2u * (t & 0x0f);
            container = true;
        } else if (t <= 0x9f) {
            items = t & 0x0f;
            container = true;
        } else if (t <= 0xbf) {
            skip = t & 0x1f;
        } else {
            /* clang-format off */
            switch (t) {
            case 0xc4: case 0xd9: nlen = 1; break;            /* bin8, str8 */
            case 0xc5: case 0xda: nlen = 2; break;            /* bin16, str16 */
            case 0xc6: case 0xdb: nlen = 4; break;            /* bin32, str32 */
            case 0xc7: nlen = 1; skip = 1; break;             /* ext8 and its type byte */
            case 0xc8: nlen = 2; skip = 1; break;             /* ext16 */
            case 0xc9: nlen = 4; skip = 1; break;             /* ext32 */
            case 0xcc: case 0xd0: skip = 1; break;            /* 8-bit integers */
            case 0xcd: case 0xd1: skip = 2; break;            /* 16-bit integers */
            case 0xca: case 0xce: case 0xd2: skip = 4; break; /* 32-bit numbers */
            case 0xcb: case 0xcf: case 0xd3: skip = 8; break; /* 64-bit numbers */
            case 0xd4: skip = 2; break;                       /* fixext 1..16 with type */
            case 0xd5: skip = 3; break;
            case 0xd6: skip = 5; break;
            case 0xd7: skip = 9; break;
            case 0xd8: skip = 17; break;
            case 0xdc: nlen = 2; mult = 1; break;             /* array16 */
            case 0xdd: nlen = 4; mult = 1; break;             /* array32 */
            case 0xde: nlen = 2; mult = 2; break;             /* map16 */
            case 0xdf: nlen = 4; mult = 2; break;             /* map32 */
            default: goto fail;                               /* 0xc1 is never used */
            }
            /* clang-format on */
        }
        if (nlen) {
            if (len - i < nlen)
                goto fail;
            uint64_t n = 0;
            for (unsigned j = 0; j < nlen; j++)
                n = n << 8 | p[i++];
            if (mult) {
                items = n * mult;
                container = true;
            } else {
                skip += n;
            }
        }
        if (skip > len - i)
            goto fail;
        i += (size_t)skip;
        if (container) {
            if (top >= S_SCAN_DEPTH)
                goto fail;
            left[++top] = items;
            pending += items;
            if (pending > len - i) /* each value takes at least one byte */
                goto fail;
        }
    }
    return (long)i;
fail:
    *bad = start;
    return -1;
}

static const char *s_what(const msgpack_object *o)
{
    switch (o->type) {
    case MSGPACK_OBJECT_NIL:
        return "nil";
    case MSGPACK_OBJECT_BOOLEAN:
        return "boolean";
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
        return "unsigned integer";
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
        return "negative integer";
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64:
        return "float";
    case MSGPACK_OBJECT_STR:
        return "string";
    case MSGPACK_OBJECT_ARRAY:
        return "array";
    case MSGPACK_OBJECT_MAP:
        return "map";
    case MSGPACK_OBJECT_BIN:
        return "binary";
    case MSGPACK_OBJECT_EXT:
        return "extension";
    }
    return "unknown";
}

/* Whether map key k is the string key of klen bytes. */
static bool s_key_is(const msgpack_object *k, const char *key, size_t klen)
{
    return k->type == MSGPACK_OBJECT_STR && k->via.str.size == klen &&
           memcmp(k->via.str.ptr, key, klen) == 0;
}

/* Value of key in a map (the first if repeated, at index *first when first
 * is not NULL), NULL if absent; *times says how often. */
static const msgpack_object *s_lookup_at(const msgpack_object *map, const char *key,
                                         unsigned *times, uint32_t *first)
{
    const msgpack_object *val = NULL;
    size_t klen = strlen(key);
    *times = 0;
    for (uint32_t i = 0; i < map->via.map.size; i++)
        if (s_key_is(&map->via.map.ptr[i].key, key, klen) && (*times)++ == 0) {
            val = &map->via.map.ptr[i].val;
            if (first)
                *first = i;
        }
    return val;
}

static const msgpack_object *s_lookup(const msgpack_object *map, const char *key, unsigned *times)
{
    return s_lookup_at(map, key, times, NULL);
}

static int s_missing(rb_proto_ctx_t *c, const char *key);

/* Value of key in a map (at index *idx when idx is not NULL); missing or
 * given twice is an error. */
static int s_find_at(rb_proto_ctx_t *c, const msgpack_object *map, const char *key,
                     const msgpack_object **val, uint32_t *idx)
{
    unsigned times;
    *val = s_lookup_at(map, key, &times, idx);
    if (times > 1)
        return rb_proto_fail(c, key, -1, "given %u times", times);
    if (*val)
        return 0;
    return s_missing(c, key);
}

static int s_find(rb_proto_ctx_t *c, const msgpack_object *map, const char *key,
                  const msgpack_object **val)
{
    return s_find_at(c, map, key, val, NULL);
}

/* Value of key in a map whose keys are expected in the order of the
 * fields, *at the next one's place: a peer's encoder writes them so, and
 * the key found there costs one comparison instead of a walk of the map. A
 * key given twice is left over, and the count of the keys read tells. */
static int s_find_next(rb_proto_ctx_t *c, const msgpack_object *map, const rb_proto_field_t *f,
                       uint32_t *at, const msgpack_object **val)
{
    if (*at < map->via.map.size && s_key_is(&map->via.map.ptr[*at].key, f->key, f->keylen)) {
        *val = &map->via.map.ptr[(*at)++].val;
        return 0;
    }
    uint32_t i = 0;
    int rc = s_find_at(c, map, f->key, val, &i);
    if (rc == 0)
        *at = i + 1;
    return rc;
}

static int s_missing(rb_proto_ctx_t *c, const char *key)
{
    /* builds that said one version did not always have the same keys */
    return rb_proto_fail(c, key, -1, "missing%s",
                         c->version ? " (a peer of an earlier build that says the same version?)"
                                    : "");
}

static int s_get_uint(rb_proto_ctx_t *c, const msgpack_object *o, const char *key, long idx,
                      uint64_t min, uint64_t max, uint64_t *out)
{
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
        return rb_proto_fail(c, key, idx, "expected unsigned integer, got %" PRId64, o->via.i64);
    if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return rb_proto_fail(c, key, idx, "expected unsigned integer, got %s", s_what(o));
    if (o->via.u64 < min || o->via.u64 > max)
        return rb_proto_fail_range(c, key, idx, o->via.u64, min, max);
    *out = o->via.u64;
    return 0;
}

static int s_get_int(rb_proto_ctx_t *c, const msgpack_object *o, const char *key, int64_t min,
                     int64_t max, int64_t *out)
{
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= (uint64_t)max)
        *out = (int64_t)o->via.u64;
    else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER && o->via.i64 >= min)
        *out = o->via.i64;
    else if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
        return rb_proto_fail(c, key, -1, "%" PRIu64 " out of range (max %" PRId64 ")", o->via.u64,
                             max);
    else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
        return rb_proto_fail(c, key, -1, "%" PRId64 " out of range (min %" PRId64 ")", o->via.i64,
                             min);
    else
        return rb_proto_fail(c, key, -1, "expected integer, got %s", s_what(o));
    return 0;
}

static int s_get_str(rb_proto_ctx_t *c, const msgpack_object *o, const char *key, char *dst,
                     size_t cap)
{
    if (o->type != MSGPACK_OBJECT_STR)
        return rb_proto_fail(c, key, -1, "expected string, got %s", s_what(o));
    uint32_t n = o->via.str.size;
    if (n >= cap)
        return rb_proto_fail(
            c, key, -1, "string of %" PRIu32 " bytes, longer than its bound of %zu", n, cap - 1);
    if (n && memchr(o->via.str.ptr, '\0', n))
        return rb_proto_fail(c, key, -1, "string contains a NUL byte");
    if (n)
        memcpy(dst, o->via.str.ptr, n);
    dst[n] = '\0';
    return 0;
}

static int s_get_array(rb_proto_ctx_t *c, const msgpack_object *o, const char *key, uint64_t max,
                       const msgpack_object_array **out)
{
    if (o->type != MSGPACK_OBJECT_ARRAY)
        return rb_proto_fail(c, key, -1, "expected array, got %s", s_what(o));
    if (o->via.array.size > max)
        return rb_proto_fail(c, key, -1, "%" PRIu32 " entries, more than the bound of %" PRIu64,
                             o->via.array.size, max);
    *out = &o->via.array;
    return 0;
}

static int s_dec_fields(rb_proto_ctx_t *c, const rb_proto_layout_t *l, const msgpack_object *map,
                        void *base);

static int s_dec_hist(rb_proto_ctx_t *c, const rb_proto_field_t *f, const msgpack_object *o,
                      rb_hist_t **hp)
{
    rb_hist_t *h = rb_proto_hist_get();
    if (!h)
        return rb_proto_nomem(c);
    *hp = h; /* owned by the message from now on, freed by rb_msg_fini() on failure too */
    c->bsum_set = false;
    rb_proto_enter(c, f->key, -1);
    int rc = s_dec_fields(c, f->sub, o, h);
    rb_proto_leave(c);
    return rc;
}

static int s_dec_buckets(rb_proto_ctx_t *c, const rb_proto_field_t *f, const msgpack_object *o,
                         uint64_t *b)
{
    const msgpack_object_array *a;
    int rc = s_get_array(c, o, f->key, 2 * RB_HIST_NBUCKETS, &a);
    if (rc < 0)
        return rc;
    if (a->size % 2)
        return rb_proto_fail(c, f->key, -1, "odd length %" PRIu32 ", expected [index, count] pairs",
                             a->size);
    uint64_t idx, n, prev = 0, first = 1;
    rb_proto_bsum_start(c);
    for (uint32_t i = 0; i < a->size; i += 2) {
        if ((rc = s_get_uint(c, &a->ptr[i], f->key, i, 0, RB_HIST_NBUCKETS - 1, &idx)) < 0 ||
            (rc = s_get_uint(c, &a->ptr[i + 1], f->key, i + 1, 0, UINT64_MAX, &n)) < 0)
            return rc;
        if (i > 0 && idx <= prev)
            return rb_proto_fail(c, f->key, i,
                                 "bucket index %" PRIu64 " not above the previous %" PRIu64, idx,
                                 prev);
        if (n == 0)
            return rb_proto_fail(c, f->key, i + 1, "empty bucket %" PRIu64 " listed", idx);
        if (i == 0)
            first = idx;
        prev = idx;
        b[idx] = n;
        rb_proto_bsum_add(c, n);
    }
    rb_proto_hist_mark(RB_PROTO_HIST_OF(b), (unsigned)first, (unsigned)prev); /* none: 1..0 */
    return 0;
}

static int s_dec_checkpts(rb_proto_ctx_t *c, const rb_proto_field_t *f, const msgpack_object *o,
                          void *base)
{
    const msgpack_object_array *a;
    int rc = s_get_array(c, o, f->key, f->max, &a);
    if (rc < 0 || a->size == 0)
        return rc;
    rb_checkpt_t *cp = rb_proto_block_get((size_t)a->size * sizeof *cp);
    if (!cp)
        return rb_proto_nomem(c);
    *(rb_checkpt_t **)rb_proto_ptr(base, f) = cp;
    *rb_proto_count(base, f) = a->size;
    for (uint32_t i = 0; i < a->size && rc == 0; i++) {
        const msgpack_object *e = &a->ptr[i];
        rb_proto_enter(c, f->key, i);
        if (e->type != MSGPACK_OBJECT_ARRAY || e->via.array.size != 2)
            rc = rb_proto_fail(c, NULL, -1, "expected [t_ns, bytes], got %s", s_what(e));
        else if ((rc = s_get_uint(c, &e->via.array.ptr[0], "t_ns", -1, 0, UINT64_MAX,
                                  &cp[i].t_ns)) == 0 &&
                 (rc = s_get_uint(c, &e->via.array.ptr[1], "bytes", -1, 0, UINT64_MAX,
                                  &cp[i].bytes)) == 0 &&
                 i > 0 && cp[i].t_ns < cp[i - 1].t_ns)
            rc = rb_proto_fail(c, "t_ns", -1,
                               "%" PRIu64 " before the previous checkpoint's %" PRIu64, cp[i].t_ns,
                               cp[i - 1].t_ns);
        rb_proto_leave(c);
    }
    return rc;
}

static int s_dec_elems(rb_proto_ctx_t *c, const rb_proto_field_t *f, const msgpack_object *o,
                       void *base)
{
    const msgpack_object_array *a;
    int rc = s_get_array(c, o, f->key, f->max, &a);
    if (rc < 0)
        return rc;
    char *elems = rb_proto_ptr(base, f);
    if (f->kind == RB_PK_ARRAY) {
        elems = a->size ? rb_proto_block_get((size_t)a->size * f->size) : NULL;
        if (a->size && !elems)
            return rb_proto_nomem(c);
        memcpy(rb_proto_ptr(base, f), &elems, sizeof elems);
    }
    *rb_proto_count(base, f) =
        a->size; /* before filling, so that a failure frees what was filled */
    for (uint32_t i = 0; i < a->size && rc == 0; i++) {
        rb_proto_enter(c, f->key, i);
        rc = s_dec_fields(c, f->sub, &a->ptr[i], elems + (size_t)i * f->size);
        rb_proto_leave(c);
    }
    return rc;
}

/* One of the enum's wire names, exactly; anything else is refused with the names allowed. */
static int s_dec_enum(rb_proto_ctx_t *c, const rb_proto_field_t *f, const msgpack_object *o,
                      void *p)
{
    if (o->type != MSGPACK_OBJECT_STR)
        return rb_proto_fail(c, f->key, -1, "expected string, got %s", s_what(o));
    char allowed[160] = "", shown[40];
    size_t used = 0;
    for (unsigned v = 0; v < f->en->n; v++) {
        const char *name = f->en->names[v];
        if (!name)
            continue;
        if (strlen(name) == o->via.str.size && memcmp(name, o->via.str.ptr, o->via.str.size) == 0) {
            memcpy(p, &v, sizeof v);
            return 0;
        }
        if (used < sizeof allowed)
            used += (size_t)snprintf(allowed + used, sizeof allowed - used, "%s\"%s\"",
                                     used ? ", " : "", name);
    }
    return rb_proto_fail(c, f->key, -1, "unknown %s '%s%s' (one of %s)", f->en->what,
                         rb_proto_printable(shown, sizeof shown, o->via.str.ptr, o->via.str.size),
                         o->via.str.size >= sizeof shown ? "..." : "", allowed);
}

static int s_dec_field(rb_proto_ctx_t *c, const rb_proto_field_t *f, const msgpack_object *o,
                       void *base)
{
    void *p = rb_proto_ptr(base, f);
    uint64_t u;
    int64_t i;
    int rc;
    switch (f->kind) {
    case RB_PK_U32:
        if ((rc = s_get_uint(c, o, f->key, -1, f->min, f->max, &u)) == 0)
            *(uint32_t *)p = (uint32_t)u;
        return rc;
    case RB_PK_U64:
        return s_get_uint(c, o, f->key, -1, f->min, f->max, (uint64_t *)p);
    case RB_PK_ERRNO:
        if ((rc = s_get_int(c, o, f->key, INT32_MIN, 0, &i)) == 0)
            *(int32_t *)p = (int32_t)i;
        return rc;
    case RB_PK_I64:
        return s_get_int(c, o, f->key, INT64_MIN, INT64_MAX, (int64_t *)p);
    case RB_PK_BOOL:
        if (o->type != MSGPACK_OBJECT_BOOLEAN)
            return rb_proto_fail(c, f->key, -1, "expected boolean, got %s", s_what(o));
        *(uint8_t *)p = o->via.boolean ? 1 : 0;
        return 0;
    case RB_PK_STR: {
        const char *bad;
        if ((rc = s_get_str(c, o, f->key, p, f->size)) == 0 && (bad = rb_proto_str_rule(f, p)))
            rc = rb_proto_fail(c, f->key, -1, "%s", bad);
        return rc;
    }
    case RB_PK_ENUM:
        return s_dec_enum(c, f, o, p);
    case RB_PK_BIN:
        if (o->type != MSGPACK_OBJECT_BIN)
            return rb_proto_fail(c, f->key, -1, "expected binary, got %s", s_what(o));
        if (o->via.bin.size > f->max)
            return rb_proto_fail(c, f->key, -1,
                                 "%" PRIu32 " bytes, more than the bound of %" PRIu64,
                                 o->via.bin.size, f->max);
        if (o->via.bin.size)
            memcpy(p, o->via.bin.ptr, o->via.bin.size);
        *rb_proto_count(base, f) = o->via.bin.size;
        return 0;
    case RB_PK_HIST:
        return s_dec_hist(c, f, o, (rb_hist_t **)p);
    case RB_PK_BUCKETS:
        return s_dec_buckets(c, f, o, p);
    case RB_PK_CHECKPTS:
        return s_dec_checkpts(c, f, o, base);
    case RB_PK_ARRAY:
    case RB_PK_INLINE:
        return s_dec_elems(c, f, o, base);
    }
    return rb_proto_fail(c, f->key, -1, "unknown field kind"); /* unreachable */
}

void rb_proto_default(const rb_proto_field_t *f, void *base)
{
    void *p = rb_proto_ptr(base, f);
    if (f->def && f->kind == RB_PK_U32)
        *(uint32_t *)p = (uint32_t)f->def;
    else if (f->def && (f->kind == RB_PK_U64 || f->kind == RB_PK_I64))
        memcpy(p, &f->def, sizeof f->def);
    else if (f->def && f->kind == RB_PK_BOOL)
        *(uint8_t *)p = 1;
    else if (f->def && f->kind == RB_PK_ENUM)
        *(unsigned *)p = (unsigned)f->def;
}

/* The index of the first key of map that is neither a field of l in the
 * frame's version nor, in a message map (top), "v" or "t"; -1 when none. */
static long s_unknown_key(const rb_proto_ctx_t *c, const rb_proto_layout_t *l,
                          const msgpack_object *map, bool top)
{
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object *k = &map->via.map.ptr[i].key;
        if (k->type != MSGPACK_OBJECT_STR)
            return i;
        const msgpack_object_str *ks = &k->via.str;
        bool known = top && ks->size == 1 && (ks->ptr[0] == 'v' || ks->ptr[0] == 't');
        for (size_t j = 0; !known && j < l->n; j++)
            known = rb_proto_since(&l->fields[j]) <= c->version &&
                    s_key_is(k, l->fields[j].key, l->fields[j].keylen);
        if (!known)
            return i;
    }
    return -1;
}

/* Reads the fields of l that the frame's version has (every one must be
 * there); the newer ones keep their default. A key that is none of them
 * is refused by name: a receiver never ignores what it was asked to do. */
static int s_dec_fields_at(rb_proto_ctx_t *c, const rb_proto_layout_t *l, const msgpack_object *map,
                           void *base, bool top)
{
    if (map->type != MSGPACK_OBJECT_MAP)
        return rb_proto_fail(c, NULL, -1, "expected map, got %s", s_what(map));
    uint32_t found = top ? 2 : 0; /* "v" and "t", which the header read */
    uint32_t at = 0;
    for (size_t i = 0; i < l->n; i++) {
        const rb_proto_field_t *f = &l->fields[i];
        if (rb_proto_since(f) > c->version) {
            rb_proto_default(f, base);
            continue;
        }
        const msgpack_object *v;
        int rc = s_find_next(c, map, f, &at, &v);
        if (rc == 0)
            rc = s_dec_field(c, f, v, base);
        if (rc < 0)
            return rc;
        found++;
    }
    if (found != map->via.map.size) {
        for (size_t i = 0; i < l->n; i++) { /* a key given twice, by name */
            const msgpack_object *v;
            if (rb_proto_since(&l->fields[i]) <= c->version &&
                s_find(c, map, l->fields[i].key, &v) < 0)
                return c->code;
        }
        long at = s_unknown_key(c, l, map, top);
        const msgpack_object *k = at >= 0 ? &map->via.map.ptr[at].key : NULL;
        char name[48];
        if (k && k->type == MSGPACK_OBJECT_STR)
            return rb_proto_fail(
                c, rb_proto_printable(name, sizeof name, k->via.str.ptr, k->via.str.size), -1,
                "unknown key in protocol %" PRIu32
                ": this build has no such field (a peer of another build that "
                "says the same version?)",
                c->version);
        return rb_proto_fail(c, NULL, -1, "a key that is %s, not a string",
                             k ? s_what(k) : "repeated");
    }
    return l->check ? l->check(c, base) : 0;
}

static int s_dec_fields(rb_proto_ctx_t *c, const rb_proto_layout_t *l, const msgpack_object *map,
                        void *base)
{
    return s_dec_fields_at(c, l, map, base, false);
}

/* The peer's build, when its frame says it ("build", as a HELLO of version
 * 24 on has it), for a message about a version this build does not speak. */
static const char *s_peer_build(const msgpack_object *root, char *buf, size_t cap)
{
    unsigned times;
    const msgpack_object *b = s_lookup(root, "build", &times);
    if (!b || b->type != MSGPACK_OBJECT_STR || b->via.str.size == 0)
        return "";
    char text[RB_NAME_MAX];
    snprintf(buf, cap, " (build %s)",
             rb_proto_printable(text, sizeof text, b->via.str.ptr, b->via.str.size));
    return buf;
}

/* Checks "v" and "t" of the message map and sets m->version and m->type. The
 * version comes first: a peer of another version may send types or keys this
 * build does not know, and the user must hear about the version. */
static int s_dec_header(rb_proto_ctx_t *c, const msgpack_object *root, rb_msg_t *m)
{
    const msgpack_object *v, *t;
    unsigned times;
    int rc = s_find(c, root, "v", &v);
    if (rc < 0)
        return rc;
    if (v->type != MSGPACK_OBJECT_POSITIVE_INTEGER || v->via.u64 == 0)
        return rb_proto_fail(c, "v", -1, "expected a positive integer, got %s", s_what(v));
    t = s_lookup(root, "t", &times);
    for (int i = RB_MSG_NONE + 1; t && t->type == MSGPACK_OBJECT_STR && i < RB_MSG_COUNT; i++) {
        if (strlen(rb_proto_type_names[i]) == t->via.str.size &&
            memcmp(rb_proto_type_names[i], t->via.str.ptr, t->via.str.size) == 0) {
            m->type = (rb_msg_type_t)i;
            c->type = rb_proto_type_names[i];
        }
    }
    m->version = v->via.u64 <= UINT32_MAX ? (uint32_t)v->via.u64 : UINT32_MAX;
    if (v->via.u64 < RB_PROTO_OLDEST || v->via.u64 > rb_proto_speak()) {
        char peer[RB_NAME_MAX + 16], speaks[32];
        if (rb_proto_speak() == RB_PROTO_OLDEST)
            snprintf(speaks, sizeof speaks, "%" PRIu32, rb_proto_speak());
        else
            snprintf(speaks, sizeof speaks, "%d .. %" PRIu32, RB_PROTO_OLDEST, rb_proto_speak());
        return rb_err_set(c->err, -EPROTO,
                          "%s%sprotocol version %" PRIu64 " from peer%s, this build (%s) speaks %s",
                          c->type ? c->type : "", c->type ? ": " : "", v->via.u64,
                          s_peer_build(root, peer, sizeof peer), rb_build_id(), speaks);
    }
    if ((rc = s_find(c, root, "t", &t)) < 0)
        return rc;
    if (t->type != MSGPACK_OBJECT_STR)
        return rb_proto_fail(c, "t", -1, "expected string, got %s", s_what(t));
    if (!c->type) {
        char name[40];
        return rb_err_set(c->err, -EBADMSG, "message: unknown type '%s'",
                          rb_proto_printable(name, sizeof name, t->via.str.ptr, t->via.str.size));
    }
    c->version = m->version;
    return 0;
}

int rb_msg_decode(const void *buf, size_t len, rb_msg_t *m, rb_err_t *err)
{
    if (buf && len <= RB_PROTO_MAX_FRAME) {
        if (rb_proto_decode_fast(buf, len, m) == 0)
            return 0;
        rb_msg_fini(m); /* what it filled; the full path says what is wrong */
    }
    return rb_msg_decode_full(buf, len, m, err);
}

int rb_msg_decode_full(const void *buf, size_t len, rb_msg_t *m, rb_err_t *err)
{
    memset(m, 0, offsetof(rb_msg_t, u)); /* the body once its type is known */
    if (len > RB_PROTO_MAX_FRAME)
        return rb_err_set(err, -EMSGSIZE, "message: frame of %zu bytes exceeds the limit of %u",
                          len, RB_PROTO_MAX_FRAME);
    if (!buf || len == 0)
        return rb_err_set(err, -EBADMSG, "message: empty frame");
    size_t bad = 0;
    long used = s_scan(buf, len, &bad);
    if (used < 0)
        return rb_err_set(
            err, -EBADMSG,
            "message: malformed, truncated or too deeply nested msgpack at byte %zu of %zu", bad,
            len);
    if ((size_t)used != len)
        return rb_err_set(err, -EBADMSG, "message: %zu trailing bytes after the message",
                          len - (size_t)used);

    msgpack_unpacked u;
    size_t off = 0;
    msgpack_unpacked_init(&u);
    msgpack_unpack_return ur = msgpack_unpack_next(&u, buf, len, &off);
    rb_proto_ctx_t c = {.err = err, .code = -EBADMSG};
    int rc;
    if (ur == MSGPACK_UNPACK_NOMEM_ERROR)
        rc = rb_proto_nomem(&c);
    else if (ur != MSGPACK_UNPACK_SUCCESS || off != len)
        rc = rb_err_set(err, -EBADMSG, "message: malformed msgpack");
    else if (u.data.type != MSGPACK_OBJECT_MAP)
        rc = rb_err_set(err, -EBADMSG, "message: expected a map, got %s", s_what(&u.data));
    else {
        rc = s_dec_header(&c, &u.data, m);
        if (m->type != RB_MSG_NONE) /* rb_msg_fini frees from it, on failure too */
            memset(&m->u, 0, rb_proto_msg_used(m->type) - offsetof(rb_msg_t, u));
        if (rc == 0)
            rc = s_dec_fields_at(&c, rb_proto_bodies[m->type], &u.data, &m->u, true);
    }
    msgpack_unpacked_destroy(&u);
    if (rc < 0) { /* nothing kept, but what the frame claimed to be */
        rb_msg_type_t type = m->type;
        uint32_t version = m->version;
        rb_msg_fini(m);
        m->type = type;
        m->version = version;
    }
    return rc < 0 ? rc : 0;
}
