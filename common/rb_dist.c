/* fio's non-uniform random distributions, from their published definitions:
 * zipf by Gray et al.'s method ("Quickly generating billion-record synthetic
 * databases", 1994) with zeta summed over at most 10^7 ranks as fio does;
 * pareto as a power of a uniform draw; normal as the mean of 12 uniform
 * draws (Irwin-Hall) widened by a uniform deviation of PCT % of the range;
 * zoned as a table of cumulative shares. The ranks are scattered by a
 * multiplicative hash, so the hottest ones land anywhere in the range. */
#include "rb_dist.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define S_ZIPF_MAX_RANKS 10000000ull           /* ranks zeta is summed over at the most, as fio */
#define S_NORMAL_DRAWS   12                    /* uniform draws a normal one is the mean of */
#define S_HASH           0x61c8864680b583ebull /* 2^64 / the golden ratio, made odd */

/* A uniform double in [0, 1). */
static double s_unit(rb_rand_t *r)
{
    return (double)(rb_rand_next(r) >> 11) * 0x1.0p-53;
}

/* Rank k (0 the hottest) placed in the range. */
static uint64_t s_place(const rb_dist_t *d, uint64_t k)
{
    return (k * S_HASH + d->rot) % d->n;
}

int rb_dist_init(rb_dist_t *d, rb_dist_kind_t kind, uint64_t n, double param, rb_rand_t *r)
{
    memset(d, 0, sizeof *d);
    if (n == 0)
        return -EINVAL;
    d->kind = kind;
    d->n = n;
    switch (kind) {
    case RB_DIST_ZIPF: {
        if (!(param > 0) || param == 1.0)
            return -EINVAL;
        d->theta = param;
        uint64_t ranks = n < S_ZIPF_MAX_RANKS ? n : S_ZIPF_MAX_RANKS;
        for (uint64_t i = 1; i <= ranks; i++)
            d->zetan += pow((double)i, -param);
        d->zeta2 = 1.0 + pow(0.5, param);
        d->rot = rb_rand_next(r) >> 32;
        return 0;
    }
    case RB_DIST_PARETO:
        if (!(param > 0 && param < 1))
            return -EINVAL;
        d->pow = log(param) / log(1.0 - param);
        d->rot = rb_rand_next(r) >> 32;
        return 0;
    case RB_DIST_NORMAL:
        if (!(param >= 0 && param <= 100))
            return -EINVAL;
        if (param > 0) {
            d->width = (uint64_t)ceil((double)n * param / 100.0);
            if (d->width > n / 2)
                d->width = n / 2;
        }
        return 0;
    default:
        return -EINVAL;
    }
}

int rb_dist_init_zones(rb_dist_t *d, uint64_t n, const uint32_t *access, const uint64_t *blocks,
                       uint32_t nzones)
{
    memset(d, 0, sizeof *d);
    if (n == 0 || nzones == 0 || nzones > RB_ZONES_MAX)
        return -EINVAL;
    d->kind = RB_DIST_ZONED;
    d->n = n;
    uint64_t first = 0;
    uint32_t upto = 0;
    for (uint32_t i = 0; i < nzones; i++) {
        if (access[i] > 100 - upto || blocks[i] > n - first)
            return -EINVAL;
        upto += access[i];
        d->zone[i] = (rb_dist_zone_t){.upto = upto, .first = first, .blocks = blocks[i]};
        first += blocks[i];
    }
    if (upto != 100)
        return -EINVAL;
    d->nzones = nzones;
    return 0;
}

/* zipf's rank, 0 .. n - 1. */
static uint64_t s_zipf(const rb_dist_t *d, rb_rand_t *r)
{
    double u = s_unit(r), n = (double)d->n, t = d->theta;
    double uz = u * d->zetan;
    if (uz < 1.0)
        return 0;
    if (uz < d->zeta2)
        return 1;
    double alpha = 1.0 / (1.0 - t);
    double eta = (1.0 - pow(2.0 / n, 1.0 - t)) / (1.0 - d->zeta2 / d->zetan);
    double k = n * pow(eta * u - eta + 1.0, alpha);
    return k >= n ? d->n - 1 : (uint64_t)k;
}

/* normal's rank: the mean of the draws, moved by the deviation while that
 * stays in the range (halved until it does). */
static uint64_t s_normal(const rb_dist_t *d, rb_rand_t *r)
{
    uint64_t sum = 0;
    for (int i = 0; i < S_NORMAL_DRAWS; i++)
        sum += rb_rand_next(r) % (d->n + 1);
    sum = (sum + S_NORMAL_DRAWS - 1) / S_NORMAL_DRAWS;
    if (d->width) {
        int64_t dev = (int64_t)(s_unit(r) * (double)d->width) - (int64_t)(d->width / 2);
        while (dev && ((int64_t)sum + dev < 0 || (uint64_t)((int64_t)sum + dev) >= d->n))
            dev /= 2;
        sum = (uint64_t)((int64_t)sum + dev);
    }
    return sum;
}

uint64_t rb_dist_next(const rb_dist_t *d, rb_rand_t *r)
{
    switch (d->kind) {
    case RB_DIST_ZIPF:
        return s_place(d, s_zipf(d, r));
    case RB_DIST_PARETO:
        return s_place(d, (uint64_t)((double)(d->n - 1) * pow(s_unit(r), d->pow)));
    case RB_DIST_NORMAL:
        return s_place(d, s_normal(d, r));
    case RB_DIST_ZONED:
    case RB_DIST_ZONED_ABS: {
        uint32_t v = (uint32_t)(rb_rand_next(r) % 100), i = 0;
        while (i + 1 < d->nzones && v >= d->zone[i].upto)
            i++;
        const rb_dist_zone_t *z = &d->zone[i];
        uint64_t b = z->first + (z->blocks ? rb_rand_next(r) % z->blocks : 0);
        return b < d->n ? b : d->n - 1;
    }
    default:
        return rb_rand_next(r) % d->n;
    }
}
