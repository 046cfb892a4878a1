/* Hardware families of nodes: nodes whose HELLO says the same CPU, cores,
 * RAM (to the GiB), NIC speeds and disks (model and size) are one family,
 * and a node far below its family's median in a phase is out of it. */
#include "rb_nodefam.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_disks.h"
#include "rb_findings.h"
#include "rb_stats.h"
#include "rb_units.h"

static int s_u32_cmp(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? 1 : a > b ? -1 : 0;
}

/* What a node's family reads of a disk. */
typedef struct s_disk {
    char model[RB_NAME_MAX];
    uint64_t size;
} s_disk_t;

/* Disks by model and size, sorted, each said once with its count. */
static int s_disk_cmp(const void *x, const void *y)
{
    const s_disk_t *a = x, *b = y;
    int c = strcmp(a->model, b->model);
    return c ? c : a->size < b->size ? -1 : a->size > b->size ? 1 : 0;
}

static size_t s_put(char *out, size_t len, size_t o, const char *fmt, const char *s, uint32_t n)
{
    if (o + 1 >= len)
        return o;
    int w = snprintf(out + o, len - o, fmt, s, n);
    return w > 0 ? o + (size_t)w : o;
}

void rb_nodefam_key(const rb_host_t *hw, char *out, size_t len)
{
    char ram[32];
    uint32_t speeds[RB_TELEM_NICS];
    s_disk_t disks[RB_MAX_DEVS];
    rb_dev_id_t tmp;
    uint32_t ns = 0, nd = 0;
    /* RAM to the GiB: the kernel's view of it moves by megabytes between boots */
    rb_units_fmt_size(ram, sizeof ram, (double)((hw->ram_bytes + (1ull << 29)) >> 30 << 30));
    int w = snprintf(out, len, "%s, %u cores, %s RAM", hw->cpu_model[0] ? hw->cpu_model : "?",
                     hw->cores, ram);
    size_t o = w > 0 && (size_t)w < len ? (size_t)w : len - 1;
    for (uint32_t k = 0; k < hw->nnics && k < RB_TELEM_NICS; k++)
        if (hw->nics[k].speed_mbps)
            speeds[ns++] = hw->nics[k].speed_mbps;
    qsort(speeds, ns, sizeof *speeds, s_u32_cmp);
    for (uint32_t k = 0; k < ns;) {
        uint32_t j = k;
        while (j < ns && speeds[j] == speeds[k])
            j++;
        char sp[16];
        snprintf(sp, sizeof sp, "%u", speeds[k]);
        o = s_put(out, len, o, k ? ", %s Mb/s x%u" : ", NICs %s Mb/s x%u", sp, j - k);
        k = j;
    }
    for (uint32_t k = 0; k < hw->ndevs && nd < RB_MAX_DEVS; k++) {
        const rb_dev_id_t *d = rb_host_dev(hw, k, &tmp);
        memcpy(disks[nd].model, d->model, sizeof disks[nd].model);
        disks[nd++].size = d->size;
    }
    qsort(disks, nd, sizeof *disks, s_disk_cmp);
    for (uint32_t k = 0; k < nd;) {
        uint32_t j = k;
        while (j < nd && !s_disk_cmp(&disks[j], &disks[k]))
            j++;
        char what[RB_NAME_MAX + 40], sz[32];
        snprintf(what, sizeof what, "%s %s", disks[k].model[0] ? disks[k].model : "disk",
                 rb_units_fmt_size(sz, sizeof sz, (double)disks[k].size));
        o = s_put(out, len, o, k ? ", %2$u x %1$s" : ", disks %2$u x %1$s", what, j - k);
        k = j;
    }
}

int rb_nodefam_findings(rb_phase_agg_t *a, const rb_host_t *const *hw)
{
    enum { K = 512 };
    uint32_t n = a->nnodes;
    char(*key)[K] = calloc(n ? n : 1, sizeof *key);
    double *v = calloc(n ? n : 1, sizeof *v);
    uint32_t *fam = calloc(n ? n : 1, sizeof *fam);
    int rc = !key || !v || !fam ? -ENOMEM : 0, kinds = 0;
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        if (hw[i])
            rb_nodefam_key(hw[i], key[i], K);
        fam[i] = i;
        for (uint32_t j = 0; j < i && fam[i] == i; j++)
            if (hw[i] && hw[j] && !strcmp(key[i], key[j]))
                fam[i] = fam[j];
        kinds += hw[i] && fam[i] == i;
    }
    /* each family's median and MAD once, at its first node */
    double *med = calloc(n ? n : 1, sizeof *med), *mad = calloc(n ? n : 1, sizeof *mad);
    uint32_t *size = calloc(n ? n : 1, sizeof *size);
    rc = rc || !med || !mad || !size ? -ENOMEM : 0;
    for (uint32_t i = 0; rc == 0 && kinds >= 2 && i < n; i++) {
        if (!hw[i] || fam[i] != i)
            continue;
        uint32_t m = 0;
        for (uint32_t j = i; j < n; j++)
            if (hw[j] && fam[j] == i && a->nodes[j].bytes > 0)
                v[m++] = a->nodes[j].bw;
        size[i] = m;
        med[i] = rb_stats_median(v, m);
        mad[i] = rb_stats_mad(v, m, med[i]);
    }
    for (uint32_t i = 0; rc == 0 && kinds >= 2 && i < n; i++) {
        uint32_t f0 = fam[i];
        if (!hw[i] || size[f0] < RB_DISK_FAMILY_MIN || !(a->nodes[i].bytes > 0) || !(med[f0] > 0) ||
            !rb_disks_below_family(a->nodes[i].bw, med[f0], mad[f0], a->nodes[i].window_s))
            continue;
        rb_finding_t f = {.kind = RB_FIND_OUT_OF_FAMILY,
                          .value = a->nodes[i].bw,
                          .reference = med[f0],
                          .first_seen_s = -1};
        char b1[64], b2[64];
        snprintf(f.node, sizeof f.node, "%s", a->nodes[i].name);
        snprintf(f.evidence, sizeof f.evidence,
                 "%s against a median of %s of its %u nodes of the same hardware (%.120s): "
                 "%.1f%% below it",
                 rb_units_fmt_bw(b1, sizeof b1, a->nodes[i].bw),
                 rb_units_fmt_bw(b2, sizeof b2, med[f0]), size[f0], key[i],
                 (1 - a->nodes[i].bw / med[f0]) * 100);
        rc = rb_findings_add(a, &f);
    }
    free(key);
    free(v);
    free(fam);
    free(med);
    free(mad);
    free(size);
    return rc;
}
