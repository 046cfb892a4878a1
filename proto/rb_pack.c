/* Packed records (rb_pack.h). The bytes of a record other than its texts
 * (numbers, padding) go as they are, so a field added to a record is kept
 * without a word here, but for a text, which is listed below to be cut. */
#include "rb_pack.h"

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

rb_packed_t *rb_pack_array(rb_pack_kind_t k, const void *recs, uint32_t n)
{
    const uint8_t *r = recs;
    size_t bytes = 0, size = s_kinds[k].size;
    for (uint32_t i = 0; i < n; i++)
        bytes += s_pack_one(k, r + i * size, NULL);
    size_t o_at = (sizeof(rb_packed_t) + _Alignof(uint32_t) - 1) & ~(_Alignof(uint32_t) - 1),
           o_bytes = o_at + n * sizeof(uint32_t);
    uint8_t *b = malloc(o_bytes + bytes);
    if (!b)
        return NULL;
    rb_packed_t *p = (rb_packed_t *)b;
    uint32_t *at = (uint32_t *)(b + o_at);
    uint8_t *out = b + o_bytes;
    size_t used = 0;
    for (uint32_t i = 0; i < n; i++) {
        at[i] = (uint32_t)used;
        used += s_pack_one(k, r + i * size, out + used);
    }
    *p = (rb_packed_t){.kind = k, .n = n, .at = at, .bytes = out};
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
