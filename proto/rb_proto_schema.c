/* The versions of the wire: what this process speaks, what each field
 * arrived in and holds by default, the fingerprint of each version's schema,
 * and the job table seen field by field (the comparisons of the tests, the
 * fields a plan sets that a version lacks). */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "rb_proto_int.h"

/* ---- versions: what this process speaks, what each field arrived in, and
 * the fingerprint of each version's schema ---- */

static uint32_t s_speak = RB_PROTO_VERSION;

int rb_proto_set_speak(uint32_t version, rb_err_t *err)
{
    if (version < RB_PROTO_OLDEST || version > RB_PROTO_VERSION)
        return rb_err_set(err, -EINVAL, "protocol %" PRIu32 ": this build speaks %d .. %d", version,
                          RB_PROTO_OLDEST, RB_PROTO_VERSION);
    s_speak = version;
    return 0;
}

uint32_t rb_proto_speak(void)
{
    return s_speak;
}

uint32_t rb_proto_since(const rb_proto_field_t *f)
{
    return f->since ? f->since : RB_PROTO_OLDEST;
}

int rb_proto_is_default(const rb_proto_field_t *f, const void *base)
{
    const void *p = rb_proto_ptr(base, f);
    switch (f->kind) {
    case RB_PK_U32:
        return *(const uint32_t *)p == f->def;
    case RB_PK_U64:
        return *(const uint64_t *)p == f->def;
    case RB_PK_ERRNO:
        return *(const int32_t *)p == 0;
    case RB_PK_I64:
        return *(const int64_t *)p == (int64_t)f->def;
    case RB_PK_BOOL:
        return *(const uint8_t *)p == f->def;
    case RB_PK_STR:
        return *(const char *)p == '\0';
    case RB_PK_ENUM: {
        unsigned v;
        memcpy(&v, p, sizeof v);
        return v == f->def;
    }
    case RB_PK_HIST: {
        const rb_hist_t *h = *(rb_hist_t *const *)p;
        return !h || h->count == 0;
    }
    case RB_PK_BUCKETS:
        return 0;
    case RB_PK_BIN:
    case RB_PK_CHECKPTS:
    case RB_PK_ARRAY:
    case RB_PK_INLINE:
        return *rb_proto_count(base, f) == 0;
    }
    return 0;
}

/* 64-bit FNV-1a, over bytes and over a string with its end. */
static uint64_t s_fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t s_fnv_str(uint64_t h, const char *s)
{
    return s_fnv(h, s, strlen(s) + 1);
}

static uint64_t s_fnv_u64(uint64_t h, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    return s_fnv(h, b, sizeof b);
}

/* What a peer must agree on of each field of l in version: key, kind,
 * bounds, rules, default, enum names and what it holds, in wire order. The
 * C layout (offsets, element sizes) is not the wire's and is left out. */
static uint64_t s_fp_layout(uint64_t h, const rb_proto_layout_t *l, uint32_t version)
{
    for (size_t i = 0; i < l->n; i++) {
        const rb_proto_field_t *f = &l->fields[i];
        if (rb_proto_since(f) > version)
            continue;
        h = s_fnv_str(h, f->key);
        h = s_fnv_u64(h, (uint64_t)f->kind);
        h = s_fnv_u64(h, f->min);
        h = s_fnv_u64(h, f->max);
        h = s_fnv_u64(h, f->def);
        h = s_fnv_u64(h, f->flags);
        if (f->kind == RB_PK_STR)
            h = s_fnv_u64(h, f->size);
        for (unsigned v = 0; f->kind == RB_PK_ENUM && v < f->en->n; v++)
            h = s_fnv_str(h, f->en->names[v] ? f->en->names[v] : "");
        if (f->sub) {
            h = s_fnv_str(h, "{");
            h = s_fp_layout(h, f->sub, version);
            h = s_fnv_str(h, "}");
        }
    }
    return h;
}

static uint64_t s_fingerprint(uint32_t version)
{
    uint64_t h = 0xcbf29ce484222325ull;
    h = s_fnv_u64(h, RB_PROTO_MAX_FRAME);
    for (int t = RB_MSG_NONE + 1; t < RB_MSG_COUNT; t++) {
        h = s_fnv_str(h, rb_proto_type_names[t]);
        h = s_fp_layout(h, rb_proto_bodies[t], version);
    }
    return h;
}

/* Each version's, hashed once: a HELLO is checked against it, and at
 * 16,000 agents joining, hashing the schema anew for each took a fifth of
 * the coordinator's time. */
static uint64_t s_fp[RB_PROTO_VERSION + 1];
static pthread_once_t s_fp_once = PTHREAD_ONCE_INIT;

static void s_fp_fill(void)
{
    for (uint32_t v = RB_PROTO_OLDEST; v <= RB_PROTO_VERSION; v++)
        s_fp[v] = s_fingerprint(v);
}

uint64_t rb_proto_fingerprint(uint32_t version)
{
    if (version < RB_PROTO_OLDEST || version > RB_PROTO_VERSION)
        return s_fingerprint(version);
    pthread_once(&s_fp_once, s_fp_fill);
    return s_fp[version];
}

/* The first field of l in which a and b differ, its path into buf (NULL: none). */
static const char *s_diff(const rb_proto_layout_t *l, const void *a, const void *b, char *buf,
                          size_t cap)
{
    for (size_t i = 0; i < l->n; i++) {
        const rb_proto_field_t *f = &l->fields[i];
        const char *pa = rb_proto_ptr(a, f), *pb = rb_proto_ptr(b, f);
        int differ = 0;
        switch (f->kind) {
        case RB_PK_U32:
        case RB_PK_ERRNO:
        case RB_PK_ENUM:
            differ = memcmp(pa, pb, 4) != 0;
            break;
        case RB_PK_U64:
        case RB_PK_I64:
            differ = memcmp(pa, pb, 8) != 0;
            break;
        case RB_PK_BOOL:
            differ = *pa != *pb;
            break;
        case RB_PK_STR:
            differ = strncmp(pa, pb, f->size) != 0;
            break;
        case RB_PK_BIN:
            differ = *rb_proto_count(a, f) != *rb_proto_count(b, f) ||
                     memcmp(pa, pb,
                            *rb_proto_count(a, f) < f->max ? *rb_proto_count(a, f) : f->max) != 0;
            break;
        case RB_PK_INLINE: {
            uint32_t n = *rb_proto_count(a, f);
            differ = n != *rb_proto_count(b, f);
            for (uint32_t j = 0; !differ && j < n && j < f->max; j++) {
                char sub[64];
                if (s_diff(f->sub, pa + (size_t)j * f->size, pb + (size_t)j * f->size, sub,
                           sizeof sub)) {
                    snprintf(buf, cap, "%s[%" PRIu32 "].%s", f->key, j, sub);
                    return buf;
                }
            }
            break;
        }
        default: /* the job table has no other kinds */
            differ = memcmp(pa, pb, f->size) != 0;
            break;
        }
        if (differ) {
            snprintf(buf, cap, "%s", f->key);
            return buf;
        }
    }
    return NULL;
}

const char *rb_proto_job_diff(const rb_job_spec_t *a, const rb_job_spec_t *b, char *buf, size_t cap)
{
    return s_diff(rb_proto_job_layout, a, b, buf, cap);
}

size_t rb_proto_job_nfields(void)
{
    return rb_proto_job_layout->n;
}

const char *rb_proto_job_field(size_t i, size_t *off, uint32_t *since)
{
    if (i >= rb_proto_job_layout->n)
        return NULL;
    if (off)
        *off = rb_proto_job_layout->fields[i].off;
    if (since)
        *since = rb_proto_since(&rb_proto_job_layout->fields[i]);
    return rb_proto_job_layout->fields[i].key;
}

int rb_proto_job_field_default(size_t i, const rb_job_spec_t *js)
{
    return i < rb_proto_job_layout->n && rb_proto_is_default(&rb_proto_job_layout->fields[i], js);
}

static uint32_t s_newest(const rb_proto_layout_t *l)
{
    uint32_t v = 0;
    for (size_t i = 0; i < l->n; i++) {
        uint32_t s = rb_proto_since(&l->fields[i]);
        if (l->fields[i].sub && s_newest(l->fields[i].sub) > s)
            s = s_newest(l->fields[i].sub);
        v = s > v ? s : v;
    }
    return v;
}

uint32_t rb_proto_newest_since(void)
{
    uint32_t v = 0;
    for (int t = RB_MSG_NONE + 1; t < RB_MSG_COUNT; t++)
        if (s_newest(rb_proto_bodies[t]) > v)
            v = s_newest(rb_proto_bodies[t]);
    return v;
}

int rb_proto_job_newer(const rb_job_spec_t *js, uint32_t version, rb_proto_newer_t *out, int max)
{
    int n = 0;
    for (size_t i = 0; i < rb_proto_job_layout->n; i++) {
        const rb_proto_field_t *f = &rb_proto_job_layout->fields[i];
        if (rb_proto_since(f) <= version || (f->flags & RB_PK_F_INFO) || rb_proto_is_default(f, js))
            continue;
        if (n < max)
            out[n] = (rb_proto_newer_t){.key = f->key, .off = f->off, .since = rb_proto_since(f)};
        n++;
    }
    return n;
}
