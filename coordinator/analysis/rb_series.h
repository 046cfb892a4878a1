/* Each node's bandwidth over a phase, point by point, as the stragglers'
 * finding reads it: built one sample at a time, from the SAMPLEs as they
 * arrive or from the rows of samples.csv, in bounded memory whatever the
 * phase's length. */
#ifndef RB_SERIES_H
#define RB_SERIES_H

#include <stdint.h>

#define RB_SERIES_POINTS 512 /* points a series keeps at most */

typedef struct rb_series rb_series_t;

/* Empty series for nnodes nodes (node n: index n of the phase's nodes) and
 * sample intervals of interval_s. NULL on -ENOMEM. */
rb_series_t *rb_series_new(uint32_t nnodes, double interval_s);

/* Frees s and nulls *p; safe twice. */
void rb_series_destroy(rb_series_t **p);

/* The sample interval a sample ending at t_s and lasting iv_s covers (its
 * start over interval_s), or -1 when there is none to count it in. */
long rb_series_interval(double t_s, double iv_s, double interval_s);

/* Adds a sample of node node: bytes over the iv_s seconds up to t_s (after
 * GO). A sample over more than 1.5 intervals (the node could not report
 * meanwhile) counts its bytes in its last interval and nothing in the ones
 * before. A node out of range or a sample outside any interval is passed over.
 * 0, or -ENOMEM (kept: later calls and rb_series_take return it). */
int rb_series_add(rb_series_t *s, uint32_t node, double t_s, double iv_s, double bytes);

/* Hands over the series: (*series)[n] the rates of node n per point (NULL
 * for a node without samples), *nint points of *point_s seconds each, the
 * phase's short tail (under half an interval) left out when it would be a
 * point of its own, and counted with its own seconds when it shares a point
 * with full intervals. A phase of more than RB_SERIES_POINTS
 * intervals gives points that are the mean rates of 2, 4, ... consecutive
 * intervals. Free with rb_series_free(*series, nnodes); s is left empty.
 * 0 or -ENOMEM. */
int rb_series_take(rb_series_t *s, double ***series, uint32_t *nint, double *point_s);

/* Frees series handed over for nnodes nodes; NULL is fine. */
void rb_series_free(double **series, uint32_t nnodes);

/* Grows *v from cap to ncap entries (doubles), the new ones 0. 0 or -ENOMEM. */
int rb_series_grow(double **v, uint32_t cap, uint32_t ncap);

/* The capacity that holds index k: cap (64 if 0) doubled as often as needed. */
uint32_t rb_series_cap_for(uint32_t cap, long k);

#endif
