/* A host's inventory as a receiver keeps it (rb_host_t in rb_proto.h):
 * one allocation, its roots and devices packed. A record is packed as its
 * bytes with each text field cut to its text and one NUL, and unpacked
 * into a whole zeroed record again: the other bytes (numbers, padding) go
 * as they are, so any field added to the record is kept without a word
 * here but for a text, which is listed below to be cut. */
#include <errno.h>
#include <stddef.h>
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
#undef S_TEXT
#define S_N(a) (sizeof(a) / sizeof((a)[0]))

/* Packs the record rec (size bytes, texts t) into out (NULL: only counts).
 * Returns the packed bytes. */
static size_t s_pack(const void *rec, size_t size, const s_text_t *t, size_t nt, uint8_t *out)
{
    const uint8_t *r = rec;
    size_t at = 0, n = 0;
    for (size_t i = 0; i <= nt; i++) {
        size_t end = i < nt ? t[i].off : size;
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

static void s_unpack(const uint8_t *in, void *rec, size_t size, const s_text_t *t, size_t nt)
{
    uint8_t *r = rec;
    size_t at = 0, n = 0;
    memset(rec, 0, size);
    for (size_t i = 0; i <= nt; i++) {
        size_t end = i < nt ? t[i].off : size;
        memcpy(r + at, in + n, end - at);
        n += end - at;
        if (i == nt)
            break;
        size_t len = strlen((const char *)in + n); /* under t[i].size: packed so */
        memcpy(r + t[i].off, in + n, len);
        n += len + 1;
        at = t[i].off + t[i].size;
    }
}

/* How many of n records at arr are kept: none without the array, at most most. */
static uint32_t s_kept(const void *arr, uint32_t n, uint32_t most)
{
    return !arr ? 0 : n < most ? n : most;
}

rb_host_t *rb_host_make(const rb_host_t *head, const rb_root_info_t *roots, uint32_t nroots,
                        const rb_nic_info_t *nics, uint32_t nnics, const rb_dev_id_t *devs,
                        uint32_t ndevs)
{
    nroots = s_kept(roots, nroots, RB_MAX_ROOTS);
    nnics = s_kept(nics, nnics, RB_TELEM_NICS);
    ndevs = s_kept(devs, ndevs, RB_MAX_DEVS);
    size_t bytes = 0;
    for (uint32_t k = 0; k < nroots; k++)
        bytes += s_pack(&roots[k], sizeof *roots, s_root_text, S_N(s_root_text), NULL);
    for (uint32_t k = 0; k < ndevs; k++)
        bytes += s_pack(&devs[k], sizeof *devs, s_dev_text, S_N(s_dev_text), NULL);
#define S_ALIGN(x) (((x) + _Alignof(max_align_t) - 1) & ~(_Alignof(max_align_t) - 1))
    size_t o_nics = S_ALIGN(sizeof(rb_host_t)),
           o_at = S_ALIGN(o_nics + nnics * sizeof(rb_nic_info_t)),
           o_packed = o_at + (nroots + ndevs) * sizeof(uint32_t), end = o_packed + bytes;
#undef S_ALIGN
    uint8_t *b = malloc(end ? end : 1);
    if (!b)
        return NULL;
    rb_host_t *h = (rb_host_t *)b;
    *h = (rb_host_t){.cores = head->cores,
                     .ram_bytes = head->ram_bytes,
                     .nroots = nroots,
                     .nnics = nnics,
                     .nics = (rb_nic_info_t *)(b + o_nics),
                     .ndevs = ndevs,
                     .ndevs_seen = head->ndevs_seen};
    memcpy(h->kernel, head->kernel, sizeof h->kernel);
    memcpy(h->cpu_model, head->cpu_model, sizeof h->cpu_model);
    h->kernel[sizeof h->kernel - 1] = h->cpu_model[sizeof h->cpu_model - 1] = '\0';
    if (nnics)
        memcpy(h->nics, nics, nnics * sizeof *nics);
    uint32_t *at = (uint32_t *)(b + o_at);
    uint8_t *p = b + o_packed;
    size_t n = 0;
    for (uint32_t k = 0; k < nroots; k++) {
        at[k] = (uint32_t)n;
        n += s_pack(&roots[k], sizeof *roots, s_root_text, S_N(s_root_text), p + n);
    }
    for (uint32_t k = 0; k < ndevs; k++) {
        at[nroots + k] = (uint32_t)n;
        n += s_pack(&devs[k], sizeof *devs, s_dev_text, S_N(s_dev_text), p + n);
    }
    h->at = at;
    h->packed = p;
    return h;
}

const rb_root_info_t *rb_host_root(const rb_host_t *h, uint32_t k, rb_root_info_t *tmp)
{
    if (!h || k >= h->nroots)
        return NULL;
    s_unpack(h->packed + h->at[k], tmp, sizeof *tmp, s_root_text, S_N(s_root_text));
    return tmp;
}

const rb_dev_id_t *rb_host_dev(const rb_host_t *h, uint32_t k, rb_dev_id_t *tmp)
{
    if (!h || k >= h->ndevs)
        return NULL;
    s_unpack(h->packed + h->at[h->nroots + k], tmp, sizeof *tmp, s_dev_text, S_N(s_dev_text));
    return tmp;
}

int rb_host_of_hello(const rb_msg_hello_t *h, rb_host_t **out)
{
    rb_host_t head = {.cores = h->cores, .ram_bytes = h->ram_bytes, .ndevs_seen = h->ndevs_seen};
    memcpy(head.kernel, h->kernel, sizeof head.kernel);
    memcpy(head.cpu_model, h->cpu_model, sizeof head.cpu_model);
    rb_host_t *c = rb_host_make(&head, h->roots, h->nroots, h->nics, h->nnics, h->devs,
                                h->devs ? h->ndevs : 0);
    if (!c)
        return -ENOMEM;
    rb_host_free(out);
    *out = c;
    return 0;
}

void rb_host_free(rb_host_t **h)
{
    if (!h)
        return;
    free(*h);
    *h = NULL;
}
