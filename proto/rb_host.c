/* A host's inventory as a receiver keeps it (rb_host_t in rb_proto.h):
 * its roots and devices packed (rb_pack.h). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "rb_pack.h"
#include "rb_proto.h"

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
    size_t o_nics =
        (sizeof(rb_host_t) + _Alignof(rb_nic_info_t) - 1) & ~(_Alignof(rb_nic_info_t) - 1);
    uint8_t *b = malloc(o_nics + nnics * sizeof(rb_nic_info_t));
    if (!b)
        return NULL;
    rb_host_t *h = (rb_host_t *)b;
    *h = (rb_host_t){.cores = head->cores,
                     .ram_bytes = head->ram_bytes,
                     .nroots = nroots,
                     .nnics = nnics,
                     .nics = (rb_nic_info_t *)(b + o_nics),
                     .ndevs = ndevs,
                     .ndevs_seen = head->ndevs_seen,
                     .roots_kept = rb_pack_array(RB_PACK_ROOT, roots, nroots),
                     .devs_kept = rb_pack_array(RB_PACK_DEV, devs, ndevs)};
    memcpy(h->kernel, head->kernel, sizeof h->kernel);
    memcpy(h->cpu_model, head->cpu_model, sizeof h->cpu_model);
    h->kernel[sizeof h->kernel - 1] = h->cpu_model[sizeof h->cpu_model - 1] = '\0';
    if (nnics)
        memcpy(h->nics, nics, nnics * sizeof *nics);
    if (!h->roots_kept || !h->devs_kept)
        rb_host_free(&h);
    return h;
}

const rb_root_info_t *rb_host_root(const rb_host_t *h, uint32_t k, rb_root_info_t *tmp)
{
    return h ? rb_packed_get(h->roots_kept, k, tmp) : NULL;
}

const rb_dev_id_t *rb_host_dev(const rb_host_t *h, uint32_t k, rb_dev_id_t *tmp)
{
    return h ? rb_packed_get(h->devs_kept, k, tmp) : NULL;
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
    if (!h || !*h)
        return;
    rb_packed_free(&(*h)->roots_kept);
    rb_packed_free(&(*h)->devs_kept);
    free(*h);
    *h = NULL;
}
