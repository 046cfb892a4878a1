/* Where a random IO falls when its offsets are not uniform: fio's
 * random_distribution (zipf, pareto, normal, zoned, zoned_abs) over a range
 * of n blocks. zipf, pareto and normal draw a rank (0 the hottest) and
 * scatter the ranks over the range with a multiplicative hash and a random
 * rotation, as fio does, so that the hot blocks are not all at the start;
 * zoned picks a zone by its share of the IOs, then a block of the zone
 * uniformly. Pure arithmetic over rb_rand_t: no allocation after init. */
#ifndef RB_DIST_H
#define RB_DIST_H

#include <stdint.h>

#include "rb_limits.h"
#include "rb_rand.h"

/* The distributions; the values are the wire's (rb_job_spec_t.rand_dist). */
typedef enum {
    RB_DIST_RANDOM = 0,    /* uniform: no rb_dist_t, the random map or permutation */
    RB_DIST_ZIPF = 1,      /* zipf:THETA */
    RB_DIST_PARETO = 2,    /* pareto:H */
    RB_DIST_NORMAL = 3,    /* normal:PCT (fio's gauss) */
    RB_DIST_ZONED = 4,     /* zoned:ACCESS/SIZE%:... */
    RB_DIST_ZONED_ABS = 5, /* zoned_abs:ACCESS/SIZE:... */
    RB_DIST_COUNT
} rb_dist_kind_t;

/* One zone as the generator keeps it: blocks [first, first + blocks) take
 * the IOs whose draw of 0 .. 99 is below upto. */
typedef struct rb_dist_zone {
    uint32_t upto;
    uint64_t first, blocks;
} rb_dist_zone_t;

typedef struct rb_dist {
    rb_dist_kind_t kind;
    uint64_t n;      /* blocks in the range (>= 1) */
    uint64_t rot;    /* the rotation after the hash */
    double theta;    /* zipf's theta */
    double zetan;    /* zipf: sum of 1 / i^theta over min(n, 10^7) ranks */
    double zeta2;    /* zipf: the same over the first two */
    double pow;      /* pareto: log(h) / log(1 - h) */
    uint64_t width;  /* normal: blocks of the uniform deviation added */
    uint32_t nzones; /* zoned: zones */
    rb_dist_zone_t zone[RB_ZONES_MAX];
} rb_dist_t;

/* Sets d to kind over n blocks (n >= 1); param is zipf's theta (> 0, not 1),
 * pareto's h (0 < h < 1) or normal's deviation in % of the range (0 .. 100).
 * The rotation is drawn from r. 0, or -EINVAL for a param out of its range. */
int rb_dist_init(rb_dist_t *d, rb_dist_kind_t kind, uint64_t n, double param, rb_rand_t *r);

/* Sets d to zoned over n blocks: zone i takes access[i] % of the IOs and
 * blocks[i] blocks, one after the other from block 0. The shares of the IOs
 * add up to 100 and the zones fit in n (the caller checks). 0, or -EINVAL. */
int rb_dist_init_zones(rb_dist_t *d, uint64_t n, const uint32_t *access, const uint64_t *blocks,
                       uint32_t nzones);

/* The next block, 0 .. n - 1. */
uint64_t rb_dist_next(const rb_dist_t *d, rb_rand_t *r);

#endif
