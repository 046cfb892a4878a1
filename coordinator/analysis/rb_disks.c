/* Each raw disk's figures in a phase, from the DONEs: what its own workers
 * moved over their own window and its own merged latency histogram; then
 * its family (the phase's disks of the same model and size, over every
 * node), the family's median, and the disks well below it. */
#include "rb_disks.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_findings.h"
#include "rb_stats.h"
#include "rb_units.h"

/* Node in's DONE with its devices (as records, or packed on arrival), or NULL. */
static const rb_agg_done_t *s_done_with_devs(const rb_agg_input_t *in)
{
    const rb_agg_done_t *d = in->done;
    return d && (d->devs || d->dev_ids) && d->dev_stats ? d : NULL;
}

void rb_disks_who(rb_agg_disk_id_t *o, const rb_dev_id_t *d)
{
    memcpy(o->name, d->name, sizeof o->name);
    memcpy(o->model, d->model, sizeof o->model);
    memcpy(o->serial, d->serial, sizeof o->serial);
    memcpy(o->firmware, d->firmware, sizeof o->firmware);
    o->size = d->size;
}

const rb_dev_id_t *rb_disks_id(const rb_phase_agg_t *a, uint32_t i, rb_dev_id_t *tmp)
{
    if (rb_packed_get(a->disk_ids, i, tmp))
        return tmp;
    const rb_agg_disk_id_t *o = &a->disks[i].id;
    memset(tmp, 0, sizeof *tmp);
    snprintf(tmp->path, sizeof tmp->path, "%s", o->path ? o->path : "");
    memcpy(tmp->name, o->name, sizeof tmp->name);
    memcpy(tmp->model, o->model, sizeof tmp->model);
    memcpy(tmp->serial, o->serial, sizeof tmp->serial);
    memcpy(tmp->firmware, o->firmware, sizeof tmp->firmware);
    tmp->size = o->size;
    return tmp;
}

int rb_disks_ids_set(rb_phase_agg_t *a, rb_pack_build_t *b)
{
    rb_packed_free(&a->disk_ids);
    a->disk_ids = rb_pack_finish(b);
    if (!a->disk_ids || a->disk_ids->n != a->ndisks) {
        rb_packed_free(&a->disk_ids);
        for (uint32_t i = 0; i < a->ndisks; i++)
            a->disks[i].id.path = NULL;
        return a->ndisks ? -ENOMEM : 0;
    }
    for (uint32_t i = 0; i < a->ndisks; i++)
        a->disks[i].id.path = rb_packed_text(a->disk_ids, i, offsetof(rb_dev_id_t, path));
    return 0;
}

/* One disk k of DONE d of node in; its whole identity added to ids. */
static void s_disk(const rb_agg_input_t *in, const rb_agg_done_t *d, const rb_job_stat_t *st,
                   rb_agg_disk_t *o, rb_pack_build_t *ids)
{
    memset(o, 0, sizeof *o);
    snprintf(o->node, sizeof o->node, "%s", in->name);
    rb_dev_id_t id;
    if (d->devs) {
        id = d->devs[st->job];
        rb_pack_add(ids, &id);
    } else {
        rb_packed_get(d->dev_ids, st->job, &id);
        rb_pack_add_packed(ids, d->dev_ids, st->job);
    }
    rb_disks_who(&o->id, &id); /* its path: once the phase's disk_ids are made */
    o->bytes = st->bytes;
    o->ops = st->ops;
    o->errors = st->errors;
    o->dir[RB_DIR_READ].bytes = st->read_bytes;
    o->dir[RB_DIR_READ].ops = st->read_ops;
    o->dir[RB_DIR_WRITE].bytes = st->write_bytes;
    o->dir[RB_DIR_WRITE].ops = st->write_ops;
    o->dir[RB_DIR_TRIM].bytes = st->trim_bytes;
    o->dir[RB_DIR_TRIM].ops = st->trim_ops;
    uint64_t first = UINT64_MAX, last = 0;
    for (uint32_t i = 0; i < d->nworkers; i++) {
        const rb_worker_stat_t *w = &d->workers[i];
        if (w->dev != st->job + 1)
            continue;
        o->workers++;
        if (!w->t_start_ns || w->t_end_ns < w->t_start_ns)
            continue;
        first = w->t_start_ns < first ? w->t_start_ns : first;
        last = w->t_end_ns > last ? w->t_end_ns : last;
    }
    o->window_s = last > first ? (double)(last - first) / 1e9 : 0;
    if (o->window_s > 0) {
        o->bw = (double)o->bytes / o->window_s;
        o->iops = (double)o->ops / o->window_s;
        for (int k = 0; k < RB_NDIRS; k++) {
            o->dir[k].bw = (double)o->dir[k].bytes / o->window_s;
            o->dir[k].iops = (double)o->dir[k].ops / o->window_s;
        }
    }
    if (d->dev_lat)
        o->lat = d->dev_lat[st - d->dev_stats];
    else if (st->hist)
        rb_lat_summary_of(&o->lat, st->hist);
}

/* The disks in family order: model and size, then where they are. */
static int s_family_cmp(const void *x, const void *y)
{
    const rb_agg_disk_t *a = *(const rb_agg_disk_t *const *)x,
                        *b = *(const rb_agg_disk_t *const *)y;
    if (a->id.size != b->id.size)
        return a->id.size < b->id.size ? -1 : 1;
    return strcmp(a->id.model, b->id.model);
}

/* One pass over the disks sorted by family, each family's median and MAD
 * taken once: at 16,000 nodes of 4 disks, comparing every disk with every
 * other was 4 billion comparisons at the phase's end. */
int rb_disks_family(rb_phase_agg_t *a)
{
    uint32_t n = a->ndisks;
    rb_agg_disk_t **by = malloc((n ? n : 1) * sizeof *by);
    double *v = malloc((n ? n : 1) * sizeof *v);
    if (!by || !v) {
        free(by);
        free(v);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++)
        by[i] = &a->disks[i];
    qsort(by, n, sizeof *by, s_family_cmp);
    for (uint32_t i = 0, end; i < n; i = end) {
        for (end = i + 1; end < n && s_family_cmp(&by[i], &by[end]) == 0; end++)
            ;
        uint32_t k = end - i;
        for (uint32_t j = 0; j < k; j++)
            v[j] = by[i + j]->bw;
        double median = rb_stats_median(v, k);
        double mad = rb_stats_mad(v, k, median);
        for (uint32_t j = i; j < end; j++) {
            rb_agg_disk_t *d = by[j];
            d->family_n = k;
            d->family_median_bw = median;
            d->family_mad_bw = mad;
            d->deviation = median > 0 ? d->bw / median - 1 : 0;
        }
    }
    free(by);
    free(v);
    return 0;
}

int rb_disks_aggregate(rb_phase_agg_t *a, const rb_agg_input_t *in, uint32_t nnodes)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < nnodes; i++)
        if (s_done_with_devs(&in[i]))
            n += in[i].done->ndev_stats;
    if (!n)
        return 0;
    a->disks = calloc(n, sizeof *a->disks);
    if (!a->disks)
        return -ENOMEM;
    rb_pack_build_t ids = {.kind = RB_PACK_DEV};
    for (uint32_t i = 0; i < nnodes; i++) {
        const rb_agg_done_t *d = s_done_with_devs(&in[i]);
        for (uint32_t k = 0; d && k < d->ndev_stats; k++)
            if (d->dev_stats[k].job < d->ndevs)
                s_disk(&in[i], d, &d->dev_stats[k], &a->disks[a->ndisks++], &ids);
    }
    int rc = rb_disks_ids_set(a, &ids);
    return rc < 0 ? rc : rb_disks_family(a);
}

int rb_disks_below_family(double v, double median, double mad, double window_s)
{
    /* the straggler rule, or a third of the median or less whatever the spread: a
     * family of a few members with one fast and one slow has a MAD as wide as the gap */
    int below =
        (median - v > RB_STRAGGLER_MADS * mad && median - v > RB_STRAGGLER_MARGIN * median) ||
        v <= median * RB_DISK_FAR_BELOW;
    /* a disk read in 15 ms on a busy host is at a third of its family after one late
     * wake-up of its worker: a gap of less than a scheduler's doing is no finding */
    return below && median > 0 && window_s * (1 - v / median) >= RB_DISK_MIN_LOST_S;
}

int rb_disks_findings(rb_phase_agg_t *a)
{
    int rc = 0;
    for (uint32_t i = 0; i < a->ndisks && rc == 0; i++) {
        const rb_agg_disk_t *d = &a->disks[i];
        double m = d->family_median_bw;
        if (d->family_n < RB_DISK_FAMILY_MIN || !(m > 0) ||
            !rb_disks_below_family(d->bw, m, d->family_mad_bw, d->window_s))
            continue;
        rb_finding_t f = {
            .kind = RB_FIND_OUT_OF_FAMILY, .value = d->bw, .reference = m, .first_seen_s = -1};
        snprintf(f.node, sizeof f.node, "%s", d->node);
        snprintf(f.device, sizeof f.device, "%s", d->id.name[0] ? d->id.name : d->id.path);
        char b1[64], b2[64], sz[32];
        snprintf(f.evidence, sizeof f.evidence,
                 "serial %s: %s against a median of %s of its family (%u disks of model %s, "
                 "%s): %.1f%% below it",
                 d->id.serial[0] ? d->id.serial : "unknown", rb_units_fmt_bw(b1, sizeof b1, d->bw),
                 rb_units_fmt_bw(b2, sizeof b2, m), d->family_n,
                 d->id.model[0] ? d->id.model : "unknown",
                 rb_units_fmt_size_exact(sz, sizeof sz, d->id.size), (1 - d->bw / m) * 100);
        rc = rb_findings_add(a, &f);
    }
    return rc;
}

static int s_deviation_cmp(const void *x, const void *y)
{
    const rb_agg_disk_t *a = *(const rb_agg_disk_t *const *)x,
                        *b = *(const rb_agg_disk_t *const *)y;
    if (a->deviation != b->deviation)
        return a->deviation < b->deviation ? -1 : 1;
    int c = strcmp(a->node, b->node);
    return c ? c : strcmp(a->id.path, b->id.path);
}

const rb_agg_disk_t **rb_disks_by_deviation(const rb_phase_agg_t *a)
{
    const rb_agg_disk_t **v = calloc(a->ndisks ? a->ndisks : 1, sizeof *v);
    if (!v)
        return NULL;
    for (uint32_t i = 0; i < a->ndisks; i++)
        v[i] = &a->disks[i];
    qsort(v, a->ndisks, sizeof *v, s_deviation_cmp);
    return v;
}
