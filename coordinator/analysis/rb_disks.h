/* Per raw disk figures of a phase and the out-of-family finding: a disk
 * well below the median of the phase's disks of its model and size, by the
 * straggler rule (docs/metrics.md). */
#ifndef RB_DISKS_H
#define RB_DISKS_H

#include "rb_aggregate.h"

#define RB_DISK_FAMILY_MIN 3 /* disks a family needs before one is called out of it */
#define RB_DISK_FAR_BELOW                                                                          \
    (1.0 / 3) /* at or below this share of the median: out, whatever the MAD */
#define RB_DISK_MIN_LOST_S                                                                         \
    0.25 /* and never for less time lost than this: what a busy host's scheduler can take */

/* Fills a->disks from the nodes' DONEs (their devs and dev_stats), then
 * each disk's family figures. 0 or -ENOMEM. */
int rb_disks_aggregate(rb_phase_agg_t *a, const rb_agg_input_t *in, uint32_t nnodes);

/* Row i's whole identity (from a->disk_ids, else what the row says) into
 * *tmp, which it returns. */
const rb_dev_id_t *rb_disks_id(const rb_phase_agg_t *a, uint32_t i, rb_dev_id_t *tmp);

/* What a row shows of identity d, but its path (rb_disks_ids_set's). */
void rb_disks_who(rb_agg_disk_id_t *o, const rb_dev_id_t *d);

/* Makes b (a->ndisks identities, row for row) a->disk_ids, and points each
 * row's path into it. 0 or -ENOMEM. */
int rb_disks_ids_set(rb_phase_agg_t *a, rb_pack_build_t *b);

/* Each disk's family (same model and size): its size, median bandwidth and
 * the disk's deviation from it. 0 or -ENOMEM. */
int rb_disks_family(rb_phase_agg_t *a);

/* Whether figure v, measured over window_s, is out of a family of median
 * median and MAD mad: below the median by more than RB_STRAGGLER_MADS MADs
 * and RB_STRAGGLER_MARGIN of it, or at RB_DISK_FAR_BELOW of it or less; and
 * in either case losing RB_DISK_MIN_LOST_S or more against the median (its
 * window less the time the median would take to move what it moved). */
int rb_disks_below_family(double v, double median, double mad, double window_s);

/* Adds an out-of-family finding for each disk below its family's median by
 * more than RB_STRAGGLER_MADS MADs and RB_STRAGGLER_MARGIN of it, or at
 * RB_DISK_FAR_BELOW of it or less, that lost RB_DISK_MIN_LOST_S or more to
 * it (families of RB_DISK_FAMILY_MIN disks or more). 0 or -ENOMEM. */
int rb_disks_findings(rb_phase_agg_t *a);

/* The phase's disks from the farthest below its family to the farthest
 * above (then by node and path), as the reports list them: a new array of
 * a->ndisks pointers into a->disks, or NULL when out of memory. */
const rb_agg_disk_t **rb_disks_by_deviation(const rb_phase_agg_t *a);

#endif
