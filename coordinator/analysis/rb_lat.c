/* The latency sets and summaries of rb_lat.h. */
#include <math.h>

#include "rb_lat.h"

void rb_lat_summary_of(rb_lat_summary_t *s, const rb_hist_t *h)
{
    *s = (rb_lat_summary_t){.count = h->count};
    if (!h->count)
        return;
    s->mean = round(rb_hist_mean(h)); /* whole ns: summary.json reads back exactly */
    s->min = h->min;
    static const double p[] = {50, 90, 99, 99.9};
    uint64_t v[4];
    rb_hist_percentiles(h, 4, p, v); /* one walk of the buckets, not four */
    s->p50 = v[0];
    s->p90 = v[1];
    s->p99 = v[2];
    s->p999 = v[3];
    s->max = h->max;
}

void rb_lat_set_init(rb_lat_set_t *s)
{
    rb_hist_init(&s->all);
    for (int d = 0; d < RB_NDIRS; d++)
        for (int k = 0; k < RB_NLATS; k++)
            rb_hist_init(&s->dir[d][k]);
}

void rb_lat_merge_stat(rb_hist_t *all, rb_hist_t dir[RB_NDIRS][RB_NLATS], const rb_job_stat_t *js)
{
    if (js->hist)
        rb_hist_merge(all, js->hist);
    for (int d = 0; d < RB_NDIRS; d++)
        for (int k = 0; k < RB_NLATS; k++)
            if (js->lat[d][k])
                rb_hist_merge(&dir[d][k], js->lat[d][k]);
}

void rb_lat_set_add_stat(rb_lat_set_t *s, const rb_job_stat_t *js)
{
    rb_lat_merge_stat(&s->all, s->dir, js);
}

void rb_lat_node_of_hists(rb_node_lat_t *nl, const rb_hist_t *all,
                          const rb_hist_t *const lat[RB_NDIRS])
{
    static const rb_hist_t empty = {.min = UINT64_MAX};
    rb_lat_summary_of(&nl->all, all ? all : &empty);
    for (int d = 0; d < RB_NDIRS; d++)
        rb_lat_summary_of(&nl->dir[d], lat[d] ? lat[d] : &empty);
}

void rb_lat_node_of(rb_node_lat_t *nl, const rb_lat_set_t *s)
{
    const rb_hist_t *lat[RB_NDIRS];
    for (int d = 0; d < RB_NDIRS; d++)
        lat[d] = &s->dir[d][RB_LAT_LAT];
    rb_lat_node_of_hists(nl, &s->all, lat);
}
