/* Packed records (rb_pack.h). The bytes of a record other than its texts
 * (numbers, padding) go as they are, so a field added to a record is kept
 * without a word here, but for a text, which is listed below to be cut. */
#include "rb_pack.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rb_proto.h"

typedef struct s_text {
    size_t off, size;
} s_text_t;

/* the text fields of each record, in the order the record has them */
#define S_TEXT(type, f)                                                                            \
    {                                                                                              \
        offsetof(type, f), sizeof(((type *)0)->f)                                                  \
    }
static const s_text_t s_root_text[] = {
    S_TEXT(rb_root_info_t, path),      S_TEXT(rb_root_info_t, fs_type),
    S_TEXT(rb_root_info_t, source),    S_TEXT(rb_root_info_t, options),
    S_TEXT(rb_root_info_t, dev_model), S_TEXT(rb_root_info_t, dev_serial),
};
static const s_text_t s_dev_text[] = {
    S_TEXT(rb_dev_id_t, path),      S_TEXT(rb_dev_id_t, name),   S_TEXT(rb_dev_id_t, model),
    S_TEXT(rb_dev_id_t, vendor),    S_TEXT(rb_dev_id_t, serial), S_TEXT(rb_dev_id_t, firmware),
    S_TEXT(rb_dev_id_t, scheduler), S_TEXT(rb_dev_id_t, use),
};
static const s_text_t s_health_text[] = {
    S_TEXT(rb_health_t, dev),      S_TEXT(rb_health_t, model),  S_TEXT(rb_health_t, serial),
    S_TEXT(rb_health_t, protocol), S_TEXT(rb_health_t, reason),
};
#undef S_TEXT

static const struct {
    size_t size;
    const s_text_t *text;
    size_t ntext;
} s_kinds[RB_PACK_KINDS] = {
    [RB_PACK_ROOT] = {sizeof(rb_root_info_t), s_root_text,
                      sizeof s_root_text / sizeof s_root_text[0]},
    [RB_PACK_DEV] = {sizeof(rb_dev_id_t), s_dev_text, sizeof s_dev_text / sizeof s_dev_text[0]},
    [RB_PACK_HEALTH] = {sizeof(rb_health_t), s_health_text,
                        sizeof s_health_text / sizeof s_health_text[0]},
};

/* Packs record rec of kind k into out (NULL: only counts); the packed bytes. */
static size_t s_pack_one(rb_pack_kind_t k, const void *rec, uint8_t *out)
{
    const uint8_t *r = rec;
    const s_text_t *t = s_kinds[k].text;
    size_t nt = s_kinds[k].ntext, at = 0, n = 0;
    for (size_t i = 0; i <= nt; i++) {
        size_t end = i < nt ? t[i].off : s_kinds[k].size;
        if (out)
            memcpy(out + n, r + at, end - at);
        n += end - at;
        if (i == nt)
            break;
        size_t len = strnlen((const char *)r + t[i].off, t[i].size - 1);
        if (out) {
            memcpy(out + n, r + t[i].off, len);
            out[n + len] = '\0';
        }
        n += len + 1;
        at = t[i].off + t[i].size;
    }
    return n;
}

/* The record packed at in, whole, into rec. */
static void s_unpack_one(rb_pack_kind_t k, const uint8_t *in, void *rec)
{
    uint8_t *r = rec;
    const s_text_t *t = s_kinds[k].text;
    size_t nt = s_kinds[k].ntext, at = 0, n = 0;
    memset(rec, 0, s_kinds[k].size);
    for (size_t i = 0; i <= nt; i++) {
        size_t end = i < nt ? t[i].off : s_kinds[k].size;
        memcpy(r + at, in + n, end - at);
        n += end - at;
        if (i == nt)
            break;
        size_t len = strlen((const char *)in + n); /* under the field's room: packed so */
        memcpy(r + t[i].off, in + n, len);
        n += len + 1;
        at = t[i].off + t[i].size;
    }
}

/* Room for n records of bytes packed bytes, its header filled but for
 * where each record starts; NULL without memory. */
static rb_packed_t *s_alloc(rb_pack_kind_t k, uint32_t n, size_t bytes)
{
    size_t o_at = (sizeof(rb_packed_t) + _Alignof(uint32_t) - 1) & ~(_Alignof(uint32_t) - 1),
           o_bytes = o_at + n * sizeof(uint32_t);
    uint8_t *b = malloc(o_bytes + bytes);
    if (!b)
        return NULL;
    rb_packed_t *p = (rb_packed_t *)b;
    *p = (rb_packed_t){.kind = k, .n = n, .at = (uint32_t *)(b + o_at), .bytes = b + o_bytes};
    return p;
}

rb_packed_t *rb_pack_array(rb_pack_kind_t k, const void *recs, uint32_t n)
{
    const uint8_t *r = recs;
    size_t bytes = 0, size = s_kinds[k].size;
    for (uint32_t i = 0; i < n; i++)
        bytes += s_pack_one(k, r + i * size, NULL);
    rb_packed_t *p = s_alloc(k, n, bytes);
    if (!p)
        return NULL;
    uint32_t *at = (uint32_t *)p->at;
    uint8_t *out = (uint8_t *)p->bytes;
    size_t used = 0;
    for (uint32_t i = 0; i < n; i++) {
        at[i] = (uint32_t)used;
        used += s_pack_one(k, r + i * size, out + used);
    }
    return p;
}

const char *rb_packed_text(const rb_packed_t *p, uint32_t i, size_t off)
{
    if (!p || i >= p->n)
        return NULL;
    const s_text_t *t = s_kinds[p->kind].text;
    const char *in = (const char *)p->bytes + p->at[i];
    size_t at = 0;
    for (size_t k = 0; k < s_kinds[p->kind].ntext; k++) {
        in += t[k].off - at;
        if (t[k].off == off)
            return in;
        in += strlen(in) + 1;
        at = t[k].off + t[k].size;
    }
    return NULL;
}

/* Room in b for one more record of len packed bytes; 0 or -1. */
static int s_room(rb_pack_build_t *b, size_t len)
{
    if (b->failed)
        return -1;
    if (b->n == b->cap) {
        uint32_t cap = b->cap ? 2 * b->cap : 16;
        uint32_t *at = realloc(b->at, cap * sizeof *at);
        if (!at)
            return b->failed = -1;
        b->at = at;
        b->cap = cap;
    }
    if (b->used + len > b->room) {
        size_t room = b->room ? 2 * b->room : 4096;
        while (room < b->used + len)
            room *= 2;
        uint8_t *bytes = realloc(b->bytes, room);
        if (!bytes)
            return b->failed = -1;
        b->bytes = bytes;
        b->room = room;
    }
    b->at[b->n++] = (uint32_t)b->used;
    return 0;
}

void rb_pack_add(rb_pack_build_t *b, const void *rec)
{
    size_t len = s_pack_one(b->kind, rec, NULL);
    if (s_room(b, len) == 0)
        b->used += s_pack_one(b->kind, rec, b->bytes + b->used);
}

void rb_pack_add_packed(rb_pack_build_t *b, const rb_packed_t *p, uint32_t i)
{
    if (!p || i >= p->n || p->kind != b->kind) {
        b->failed = -1; /* not a record of the kind: a caller's mistake, never data */
        return;
    }
    const uint8_t *in = p->bytes + p->at[i];
    size_t len = 0, at = 0;
    const s_text_t *t = s_kinds[p->kind].text;
    for (size_t k = 0; k < s_kinds[p->kind].ntext; k++) {
        len += t[k].off - at;
        len += strlen((const char *)in + len) + 1;
        at = t[k].off + t[k].size;
    }
    len += s_kinds[p->kind].size - at;
    if (s_room(b, len) == 0) {
        memcpy(b->bytes + b->used, in, len);
        b->used += len;
    }
}

rb_packed_t *rb_pack_finish(rb_pack_build_t *b)
{
    rb_packed_t *p = b->failed || !b->n ? NULL : s_alloc(b->kind, b->n, b->used);
    if (p) {
        memcpy((uint32_t *)p->at, b->at, b->n * sizeof *b->at);
        memcpy((uint8_t *)p->bytes, b->bytes, b->used);
    }
    free(b->at);
    free(b->bytes);
    *b = (rb_pack_build_t){.kind = b->kind};
    return p;
}

const void *rb_packed_get(const rb_packed_t *p, uint32_t i, void *tmp)
{
    if (!p || i >= p->n)
        return NULL;
    s_unpack_one(p->kind, p->bytes + p->at[i], tmp);
    return tmp;
}

void *rb_packed_unpack_all(const rb_packed_t *p)
{
    if (!p || !p->n)
        return NULL;
    size_t size = s_kinds[p->kind].size;
    uint8_t *all = malloc(p->n * size);
    for (uint32_t i = 0; all && i < p->n; i++)
        rb_packed_get(p, i, all + i * size);
    return all;
}

void rb_packed_free(rb_packed_t **p)
{
    if (!p)
        return;
    free(*p);
    *p = NULL;
}

/* v as a varint into out (NULL: only counted); its bytes. */
static size_t s_varint(uint64_t v, uint8_t *out)
{
    size_t n = 0;
    do {
        uint8_t b = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (out)
            out[n] = (uint8_t)(b | (v ? 0x80 : 0));
        n++;
    } while (v);
    return n;
}

/* The varint at *in into *v; false when cut short or over 64 bits. */
static bool s_unvarint(const uint8_t **in, size_t *left, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (!*left)
            return false;
        uint8_t b = *(*in)++;
        (*left)--;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return shift < 63 || b <= 1;
    }
    return false;
}

/* The difference b - a, as a wrapped difference zigzagged (small either way). */
static uint64_t s_zig(uint64_t a, uint64_t b)
{
    int64_t d = (int64_t)(b - a);
    return ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
}

static uint64_t s_unzig(uint64_t a, uint64_t z)
{
    return a + ((z >> 1) ^ (0 - (z & 1)));
}

size_t rb_pack_checkpts(const rb_checkpt_t *cp, uint32_t n, uint8_t *out)
{
    size_t len = s_varint(n, out);
    uint64_t t = 0, b = 0;
    for (uint32_t i = 0; i < n; i++) {
        len += s_varint(s_zig(t, cp[i].t_ns), out ? out + len : NULL);
        len += s_varint(s_zig(b, cp[i].bytes), out ? out + len : NULL);
        t = cp[i].t_ns;
        b = cp[i].bytes;
    }
    return len;
}

int64_t rb_unpack_checkpts(const uint8_t **in, size_t *left, rb_checkpt_t *out, uint32_t max)
{
    uint64_t n, t = 0, b = 0, z;
    if (!s_unvarint(in, left, &n) || n > max)
        return -1;
    for (uint64_t i = 0; i < n; i++) {
        if (!s_unvarint(in, left, &z))
            return -1;
        t = out[i].t_ns = s_unzig(t, z);
        if (!s_unvarint(in, left, &z))
            return -1;
        b = out[i].bytes = s_unzig(b, z);
    }
    return (int64_t)n;
}
