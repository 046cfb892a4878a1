/* random_distribution in the data workload: each direction's generator
 * (rb_dist.h) over the blocks of one file of the worker, set up from the
 * job, and the unit a random IO of a direction goes to. A job with a skewed
 * distribution has no random map (the plan sets norandommap, as fio does):
 * a pass ends once its bytes are issued, and blocks may repeat. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "rb_data_int.h"

/* The zones of direction d in blocks of the range: a share of it
 * (zoned, percent) or bytes from its start (zoned_abs). */
static int s_zones(rb_worker_t *w, int d, rb_dist_t *out, rb_err_t *err)
{
    const rb_job_spec_t *s = w->spec;
    const rb_zone_t *z = d == RB_DIR_READ    ? s->zones_read
                         : d == RB_DIR_WRITE ? s->zones_write
                                             : s->zones_trim;
    uint32_t nz = d == RB_DIR_READ    ? s->nzones_read
                  : d == RB_DIR_WRITE ? s->nzones_write
                                      : s->nzones_trim;
    uint64_t n = w->unit_per_file, blocks[RB_ZONES_MAX], end = 0, prev = 0;
    uint32_t access[RB_ZONES_MAX];
    for (uint32_t i = 0; i < nz && i < RB_ZONES_MAX; i++) {
        if (s->rand_dist == RB_DIST_ZONED) {
            end += z[i].size;
            blocks[i] = (end > 100 ? n : end * n / 100) - prev;
        } else {
            end = z[i].size > UINT64_MAX - end ? UINT64_MAX : end + z[i].size;
            blocks[i] = end / s->bs - prev;
        }
        prev += blocks[i];
        access[i] = z[i].access;
    }
    if (s->rand_dist == RB_DIST_ZONED_ABS && end / s->bs > n)
        return rb_err_set(err, -EINVAL,
                          "job %s: random_distribution=zoned_abs: the zones end at %" PRIu64
                          " bytes, past the %" PRIu64 " of each file",
                          s->name, end, n * s->bs);
    if (rb_dist_init_zones(out, n, access, blocks, nz) < 0)
        return rb_err_set(err, -EINVAL,
                          "job %s: random_distribution's zones of %s do not add up (shares of "
                          "the IOs to 100, sizes within the range)",
                          s->name,
                          d == RB_DIR_READ    ? "reads"
                          : d == RB_DIR_WRITE ? "writes"
                                              : "trims");
    return 0;
}

int rb_data_dist_setup(rb_worker_t *w, rb_err_t *err)
{
    const rb_job_spec_t *s = w->spec;
    if (!rb_rw_random(s->rw) || s->rand_dist == RB_DIST_RANDOM)
        return 0;
    w->dist = calloc(RB_NDIRS, sizeof *w->dist);
    if (!w->dist)
        return rb_err_set(err, -ENOMEM, "job %s: out of memory", s->name);
    for (int d = 0; d < RB_NDIRS; d++) {
        int rc = 0;
        if (s->rand_dist == RB_DIST_ZONED || s->rand_dist == RB_DIST_ZONED_ABS)
            rc = s_zones(w, d, &w->dist[d], err);
        else if (rb_dist_init(&w->dist[d], (rb_dist_kind_t)s->rand_dist, w->unit_per_file,
                              s->rand_dist_ppm / 1e6, &w->rng) < 0)
            rc = rb_err_set(err, -EINVAL,
                            "job %s: random_distribution's number %g is out of "
                            "its range",
                            s->name, s->rand_dist_ppm / 1e6);
        if (rc < 0)
            return rc;
    }
    return 0;
}

uint64_t rb_data_dist_unit(rb_worker_t *w, int dir)
{
    uint32_t f = w->nfiles > 1 ? (uint32_t)(rb_rand_next(&w->rng) % w->nfiles) : 0;
    return rb_dist_next(&w->dist[dir], &w->rng) * w->nfiles + f;
}
