/* The wire encoder: an rb_msg_t into one msgpack map, driven by the same
 * layout tables as the decoder and the checks (rb_proto.c). */
#include "rb_proto.h"

#include "rb_proto_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

/* ---- encoding ---- */

typedef struct s_enc {
    rb_proto_ctx_t c;   /* path and error */
    msgpack_sbuffer sb; /* the frame being built */
    msgpack_packer pk;  /* writes into sb */
    int packrc;         /* nonzero once a write into sb failed */
} s_enc_t;

static const rb_hist_t s_empty_hist = {.min = UINT64_MAX};

static void s_put_str(s_enc_t *e, const char *s, size_t len)
{
    e->packrc |= msgpack_pack_str_with_body(&e->pk, s, len);
}

static void s_put_u64(s_enc_t *e, uint64_t v)
{
    e->packrc |= msgpack_pack_uint64(&e->pk, v);
}

static int s_enc_fields(s_enc_t *e, const rb_proto_layout_t *l, const void *base, const char *type);

_Static_assert(RB_HIST_NBUCKETS <= UINT16_MAX + 1, "a bucket's index is kept in 16 bits");

static int s_enc_hist(s_enc_t *e, const rb_proto_field_t *f, const rb_hist_t *h)
{
    if (!h)
        h = &s_empty_hist; /* no latency recorded: travels as an empty histogram */
    rb_proto_enter(&e->c, f->key, -1);
    int rc = s_enc_fields(e, f->sub, h, NULL);
    rb_proto_leave(&e->c);
    return rc;
}

/* Writes one field as its kind says. One case per kind of field, each a
 * few lines: the switch is the encoder's table of wire forms, kept whole so
 * that it reads beside the decoder's (rb_proto_decode.c), hence its length. */
static int s_enc_field(s_enc_t *e, const rb_proto_field_t *f, const void *base)
{
    const void *p = rb_proto_ptr(base, f);
    const char *k = f->key;
    switch (f->kind) {
    case RB_PK_U32:
    case RB_PK_U64: {
        uint64_t v = f->kind == RB_PK_U32 ? *(const uint32_t *)p : *(const uint64_t *)p;
        if (v < f->min || v > f->max)
            return rb_proto_fail_range(&e->c, k, -1, v, f->min, f->max);
        s_put_u64(e, v);
        return 0;
    }
    case RB_PK_ERRNO:
        if (*(const int32_t *)p > 0)
            return rb_proto_fail(&e->c, k, -1, "%" PRId32 " is not 0 or a negative errno",
                                 *(const int32_t *)p);
        e->packrc |= msgpack_pack_int64(&e->pk, *(const int32_t *)p);
        return 0;
    case RB_PK_I64:
        e->packrc |= msgpack_pack_int64(&e->pk, *(const int64_t *)p);
        return 0;
    case RB_PK_BOOL:
        if (*(const uint8_t *)p > 1)
            return rb_proto_fail(&e->c, k, -1, "%u is not 0 or 1", *(const uint8_t *)p);
        e->packrc |= *(const uint8_t *)p ? msgpack_pack_true(&e->pk) : msgpack_pack_false(&e->pk);
        return 0;
    case RB_PK_STR: {
        size_t n = strnlen(p, f->size);
        if (n == f->size)
            return rb_proto_fail(&e->c, k, -1, "not NUL-terminated within its %zu bytes", f->size);
        const char *bad = rb_proto_str_rule(f, p);
        if (bad)
            return rb_proto_fail(&e->c, k, -1, "%s", bad);
        s_put_str(e, p, n);
        return 0;
    }
    case RB_PK_ENUM: {
        unsigned v;
        memcpy(&v, p, sizeof v);
        const char *name = v < f->en->n ? f->en->names[v] : NULL;
        if (!name)
            return rb_proto_fail(&e->c, k, -1, "unknown %s %u", f->en->what, v);
        s_put_str(e, name, strlen(name));
        return 0;
    }
    case RB_PK_BIN: {
        uint32_t n = *rb_proto_count(base, f);
        if (n > f->max)
            return rb_proto_fail(&e->c, k, -1, "%" PRIu32 " bytes, more than the bound of %" PRIu64,
                                 n, f->max);
        e->packrc |= msgpack_pack_bin_with_body(&e->pk, p, n);
        return 0;
    }
    case RB_PK_HIST:
        return s_enc_hist(e, f, *(rb_hist_t *const *)p);
    case RB_PK_BUCKETS: {
        /* one walk of the buckets: the used ones listed and summed for
         * the histogram's check, which then does not walk them again */
        const uint64_t *b = p;
        uint16_t used[RB_HIST_NBUCKETS];
        size_t n = 0;
        rb_proto_bsum_start(&e->c);
        for (unsigned i = 0; i < RB_HIST_NBUCKETS; i++)
            if (b[i]) {
                used[n++] = (uint16_t)i;
                rb_proto_bsum_add(&e->c, b[i]);
            }
        e->packrc |= msgpack_pack_array(&e->pk, 2 * n);
        for (size_t j = 0; j < n; j++) {
            s_put_u64(e, used[j]);
            s_put_u64(e, b[used[j]]);
        }
        return 0;
    }
    case RB_PK_CHECKPTS: {
        const rb_checkpt_t *cp = *(rb_checkpt_t *const *)p;
        uint32_t n = *rb_proto_count(base, f);
        if (n > f->max)
            return rb_proto_fail(&e->c, k, -1,
                                 "%" PRIu32 " entries, more than the bound of %" PRIu64, n, f->max);
        if (n && !cp)
            return rb_proto_fail(&e->c, k, -1, "%" PRIu32 " entries but no array", n);
        e->packrc |= msgpack_pack_array(&e->pk, n);
        for (uint32_t i = 0; i < n; i++) {
            if (i > 0 && cp[i].t_ns < cp[i - 1].t_ns) {
                rb_proto_enter(&e->c, k, i);
                rb_proto_fail(&e->c, "t_ns", -1,
                              "%" PRIu64 " before the previous checkpoint's %" PRIu64, cp[i].t_ns,
                              cp[i - 1].t_ns);
                rb_proto_leave(&e->c);
                return e->c.code;
            }
            e->packrc |= msgpack_pack_array(&e->pk, 2);
            s_put_u64(e, cp[i].t_ns);
            s_put_u64(e, cp[i].bytes);
        }
        return 0;
    }
    case RB_PK_ARRAY:
    case RB_PK_INLINE: {
        const char *elems = rb_proto_elems(base, f);
        uint32_t n = *rb_proto_count(base, f);
        if (n > f->max)
            return rb_proto_fail(&e->c, k, -1,
                                 "%" PRIu32 " entries, more than the bound of %" PRIu64, n, f->max);
        if (n && !elems)
            return rb_proto_fail(&e->c, k, -1, "%" PRIu32 " entries but no array", n);
        e->packrc |= msgpack_pack_array(&e->pk, n);
        for (uint32_t i = 0; i < n; i++) {
            rb_proto_enter(&e->c, k, i);
            int rc = s_enc_fields(e, f->sub, elems + (size_t)i * f->size, NULL);
            rb_proto_leave(&e->c);
            if (rc < 0)
                return rc;
        }
        return 0;
    }
    }
    return rb_proto_fail(&e->c, k, -1, "unknown field kind"); /* unreachable */
}

/* Packs a map of l's fields that the frame's version has; a message map
 * (type given) starts with "v" and "t". A field newer than the version is
 * left out: when it holds anything but its default (and does more than
 * inform), the message cannot be said in that version. */
static int s_enc_fields(s_enc_t *e, const rb_proto_layout_t *l, const void *base, const char *type)
{
    int rc;
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++) {
        const rb_proto_field_t *f = &l->fields[i];
        if (rb_proto_since(f) <= e->c.version)
            n++;
        else if (!(f->flags & RB_PK_F_INFO) && !rb_proto_is_default(f, base)) {
            e->c.code = -EPROTONOSUPPORT;
            rb_proto_fail(&e->c, f->key, -1,
                          "set, and protocol %" PRIu32 " has no such key (it arrived in %" PRIu32
                          ")",
                          e->c.version, rb_proto_since(f));
            return -EPROTONOSUPPORT;
        }
    }
    e->packrc |= msgpack_pack_map(&e->pk, n + (type ? 2 : 0));
    if (type) {
        s_put_str(e, "v", 1);
        s_put_u64(e, e->c.version);
        s_put_str(e, "t", 1);
        s_put_str(e, type, strlen(type));
    }
    for (size_t i = 0; i < l->n; i++) {
        if (rb_proto_since(&l->fields[i]) > e->c.version)
            continue;
        s_put_str(e, l->fields[i].key, strlen(l->fields[i].key));
        if ((rc = s_enc_field(e, &l->fields[i], base)) < 0)
            return rc;
    }
    return l->check ? l->check(&e->c, base) : 0;
}

int rb_msg_encode(const rb_msg_t *m, void **buf, size_t *len, rb_err_t *err)
{
    return rb_msg_encode_v(m, rb_proto_speak(), buf, len, err);
}

int rb_msg_encode_v(const rb_msg_t *m, uint32_t version, void **buf, size_t *len, rb_err_t *err)
{
    *buf = NULL;
    *len = 0;
    if (!m || m->type <= RB_MSG_NONE || m->type >= RB_MSG_COUNT)
        return rb_err_set(err, -EINVAL, "cannot encode a message of unknown type %d",
                          m ? (int)m->type : -1);
    if (version < RB_PROTO_OLDEST || version > RB_PROTO_VERSION)
        return rb_err_set(err, -EINVAL,
                          "%s: cannot encode protocol %" PRIu32 ": this build speaks %d .. %d",
                          rb_proto_type_names[m->type], version, RB_PROTO_OLDEST, RB_PROTO_VERSION);

    s_enc_t e = {
        .c = {
            .err = err, .type = rb_proto_type_names[m->type], .code = -EINVAL, .version = version}};
    const rb_proto_layout_t *l = rb_proto_bodies[m->type];
    msgpack_sbuffer_init(&e.sb);
    msgpack_packer_init(&e.pk, &e.sb, msgpack_sbuffer_write);

    int rc = s_enc_fields(&e, l, &m->u, e.c.type);
    if (rc == 0 && e.packrc)
        rc = rb_proto_nomem(&e.c);
    if (rc == 0 && e.sb.size > RB_PROTO_MAX_FRAME)
        rc = rb_err_set(err, -EMSGSIZE, "%s: frame of %zu bytes exceeds the limit of %u bytes",
                        e.c.type, e.sb.size, RB_PROTO_MAX_FRAME);
    if (rc < 0) {
        msgpack_sbuffer_destroy(&e.sb);
        return rc;
    }
    *len = e.sb.size;
    *buf = msgpack_sbuffer_release(&e.sb);
    return 0;
}
