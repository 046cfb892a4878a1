/* Latency by direction and kind (fio's lat, slat and clat), merged from
 * what agents send: the sets of histograms a job or node adds up, and the
 * few figures a row keeps of a histogram once it is freed. */
#ifndef RB_LAT_H
#define RB_LAT_H

#include <stdint.h>

#include "rb_hist.h"
#include "rb_proto.h"

/* What a histogram says, for rows that keep no histogram (a node's, a
 * rack's): count, and mean (rounded to whole ns), percentiles and extremes
 * in ns (0 when empty). */
typedef struct rb_lat_summary {
    uint64_t count;
    double mean;
    uint64_t min, p50, p90, p99, p999, max;
} rb_lat_summary_t;

/* Fills s from h. */
void rb_lat_summary_of(rb_lat_summary_t *s, const rb_hist_t *h);

/* A job's (or a node's) latency histograms: all its IOs' lat, and each
 * direction's lat, slat and clat (rb_lat_kind_t), ns. 200 KiB: on the heap. */
typedef struct rb_lat_set {
    rb_hist_t all;
    rb_hist_t dir[RB_NDIRS][RB_NLATS];
} rb_lat_set_t;

/* Empties s. */
void rb_lat_set_init(rb_lat_set_t *s);
/* Adds the histograms a job stat carries (NULL ones are empty) into s. */
void rb_lat_set_add_stat(rb_lat_set_t *s, const rb_job_stat_t *js);

/* Merges a job stat's histograms (all IOs' into all, each direction's and
 * kind's into dir) wherever they are kept. */
void rb_lat_merge_stat(rb_hist_t *all, rb_hist_t dir[RB_NDIRS][RB_NLATS], const rb_job_stat_t *js);

/* One node's latency in a phase, summed over its jobs: all IOs, then reads',
 * writes' and trims' lat. */
typedef struct rb_node_lat {
    rb_lat_summary_t all;
    rb_lat_summary_t dir[RB_NDIRS];
} rb_node_lat_t;

/* A node's (or rack's) summaries from its set: all IOs, each direction's lat. */
void rb_lat_node_of(rb_node_lat_t *nl, const rb_lat_set_t *s);

/* The same from those histograms themselves (NULL: empty). */
void rb_lat_node_of_hists(rb_node_lat_t *nl, const rb_hist_t *all,
                          const rb_hist_t *const lat[RB_NDIRS]);

#endif
