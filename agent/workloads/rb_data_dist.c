/* random_distribution in the data workload: each direction's generator
 * (rb_dist.h) over the blocks of one file of the worker, set up from the
 * job, and the unit a random IO of a direction goes to. A job with a skewed
 * distribution has no random map (the plan sets norandommap, as fio does):
 * a pass ends once its bytes are issued, and blocks may repeat. And how
 * offsets follow one another when they do not all seek: fio's rw=randX:N,
 * rw_sequencer and percentage_sequential, rw=write:4k and rw=read:-8k,
 * and blockalign. And the random map's picks (rb_data_pick_free,
 * rb_data_cover). */
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

int rb_data_seq_turn(rb_worker_t *w, int dir, uint32_t *file, uint64_t *off)
{
    const rb_job_spec_t *s = w->spec;
    uint32_t perc = dir == RB_DIR_READ    ? s->perc_seq_read
                    : dir == RB_DIR_WRITE ? s->perc_seq_write
                                          : s->perc_seq_trim;
    if (s->seq_nr <= 1 && !perc)
        return 0;
    if (w->pass_bytes >= w->units * s->bs)
        return 2; /* as fio: the pass ends on its bytes, whatever the map holds */
    int seek = s->seq_nr <= 1 || w->seq_count++ % s->seq_nr == 0;
    if (seek && (!perc || rb_rand_next(&w->rng) % 100 >= perc))
        return 0;
    const rb_worker_file_t *f = &w->files[w->seq_file];
    *file = w->seq_file;
    if (!seek && s->seq_identical) {
        *off = f->start[dir];
        return 1;
    }
    *off = f->cursor[dir];
    return *off < s->offset + w->unit_per_file * s->bs ? 1 : 0; /* at the end: a random one */
}

int rb_data_seq_step(rb_worker_t *w, uint32_t f, int dir, uint64_t want, uint64_t *off)
{
    const rb_job_spec_t *s = w->spec;
    const rb_worker_file_t *wf = &w->files[f];
    uint64_t range = w->unit_per_file * s->bs, at = wf->cursor[dir] - s->offset;
    uint64_t step = s->seq_add;
    /* fio's file offset and real size: the worker's place, and where its
     * file ends (a device's end, else the end of the range it lays out) */
    uint64_t start = s->shared_file ? s->offset : rb_job_offset(s, w->region);
    uint64_t end = wf->real_size ? wf->real_size : start + range;
    if (at && s->seq_back) {
        at = at >= step ? at - step : (range > step ? range - step : 0);
    } else if (at) {
        at += step;
        if (at >= end) /* past the file's end: around to the offset, as an offset in the range */
            at = start;
    }
    if (at >= range || start + at + want > end) {
        w->seq_end = 1;
        return 1;
    }
    *off = s->offset + at;
    return 0;
}

uint64_t rb_data_aligned(rb_worker_t *w, int dir, uint64_t off)
{
    const rb_job_spec_t *s = w->spec;
    uint64_t ba = dir == RB_DIR_READ ? s->ba_read : dir == RB_DIR_WRITE ? s->ba_write : s->ba_trim;
    uint64_t range = w->unit_per_file * s->bs;
    if (!ba)
        return off;
    /* as fio: the last place is where the smallest IO still fits */
    uint64_t room = s->bs > ba ? range - (s->bs - ba) : range;
    uint64_t places = room / ba;
    return places ? s->offset + rb_rand_next(&w->rng) % places * ba : s->offset;
}

/* zonemode=strided: where the next IO of direction dir (want bytes) goes,
 * as fio walks the zones of its file: zone_size bytes in a zone, the next
 * zone zone_range + zone_skip further on, back to the start past the end;
 * a sequential IO goes on from the last one of its direction, back to the
 * zone's start once past its range, and every zone_range bytes all start
 * again from the zone's start (and the random map is cleared); a random IO
 * takes a block of the range, else the next free one from it, around in
 * the map of the range's blocks. 0 with *off set (in the region), or 1
 * when the IO would run past the range's end: fio's job ends there, the
 * pass here, and the next pass begins the walk again (at once when this
 * pass has issued nothing yet, where fio's next loop would). */
int rb_data_zone_next(rb_worker_t *w, int dir, uint64_t want, uint64_t *off)
{
    const rb_job_spec_t *s = w->spec;
    rb_worker_file_t *f = &w->files[0];
    uint64_t range = s->zone_range ? s->zone_range : s->zone_size;
    uint64_t room = w->unit_per_file * s->bs, end = s->offset + room;
    for (int tries = 0; tries < 2; tries++) {
        if (w->zone_restart) {
            w->zone_restart = 0;
            w->zone_start = s->offset;
            w->zone_bytes = 0;
        } else if (w->zone_bytes >= s->zone_size) {
            uint64_t rel = w->zone_start - s->offset;
            w->zone_bytes = 0;
            if (range >= room - rel || s->zone_skip >= room - rel - range)
                w->zone_start = s->offset; /* past the end: around to the start */
            else
                w->zone_start += range + s->zone_skip;
            f->cursor[dir] = w->zone_start;
        }
        if (f->cursor[dir] - w->zone_start >= range)
            f->cursor[dir] = w->zone_start; /* zone_size > zone_range: the range again */
        if (w->zone_bytes % range == 0) {
            for (int d = 0; d < RB_NDIRS; d++)
                f->cursor[d] = w->zone_start;
            if (w->covered)
                rb_data_map_clear(w);
        }
        uint64_t at = f->cursor[dir];
        if (rb_rw_random(s->rw)) {
            /* fio's map holds the blocks of zone_range, the search goes around in it */
            uint64_t nb = range / s->bs, b = nb ? rb_rand_next(&w->rng) % nb : UINT64_MAX;
            uint64_t mb = nb < w->units ? nb : w->units;
            if (b != UINT64_MAX && w->covered && b < mb && rb_data_map_done(w, b)) {
                uint64_t c = rb_data_map_free_in(w, b, mb);
                b = c != UINT64_MAX ? c : rb_data_map_free_in(w, 0, b);
            }
            at = b != UINT64_MAX && b < room / s->bs ? w->zone_start + b * s->bs : end;
        }
        if (at < end && want <= end - at) {
            if (rb_rw_random(s->rw) && w->covered)
                rb_data_map_mark(w, (at - w->zone_start) / s->bs);
            *off = at;
            return 0;
        }
        w->zone_restart = 1;
        if (w->pass_bytes)
            return 1;
    }
    return 1;
}

uint16_t rb_data_cmdprio(rb_worker_t *w, int dir, uint64_t len)
{
    const rb_job_spec_t *s = w->spec;
    uint32_t n = dir == 0 ? s->ncmdprio_read : dir == 1 ? s->ncmdprio_write : 0;
    if (!n)
        return 0;
    const rb_cmdprio_t *e = dir == 0 ? s->cmdprio_read : s->cmdprio_write;
    uint32_t r = (uint32_t)(rb_rand_next(&w->prio_rng) % 100), sum = 0;
    w->prio_of[dir]++;
    for (uint32_t i = 0; i < n; i++) {
        if (e[i].bs && e[i].bs != len)
            continue;
        sum += e[i].perc;
        if (r < sum) {
            w->prio_ios[dir]++;
            return (uint16_t)e[i].prio;
        }
    }
    return 0;
}

/* A random block as fio picks it: a random place, then the next block not
 * done from there in its file (around to the file's start), else in the
 * next files. *u is the unit (block * nfiles + file); 1 when all are done. */
int rb_data_pick_free(rb_worker_t *w, uint64_t *u)
{
    if (w->ncovered >= w->units)
        return 1;
    uint64_t r = rb_rand_next(&w->rng) % w->units, upf = w->unit_per_file;
    uint32_t f0 = (uint32_t)(r % w->nfiles);
    uint64_t b = r / w->nfiles;
    for (uint32_t k = 0; k < w->nfiles; k++) {
        uint32_t f = (uint32_t)((f0 + k) % w->nfiles);
        uint64_t base = (uint64_t)f * upf, start = k ? 0 : b;
        uint64_t c = rb_data_map_free_in(w, base + start, base + upf);
        if (c == UINT64_MAX && start)
            c = rb_data_map_free_in(w, base, base + start);
        if (c != UINT64_MAX) {
            *u = (c - base) * w->nfiles + f;
            return 0;
        }
    }
    return 1;
}

/* Marks the blocks of a random IO of len bytes from unit u, up to the first
 * one done already, where fio's random map ends it too. The length kept. */
uint64_t rb_data_cover(rb_worker_t *w, uint64_t u, uint64_t len)
{
    uint64_t bs = w->spec->bs, upf = w->unit_per_file, k = 0;
    uint64_t f = u % w->nfiles, b = u / w->nfiles, c = f * upf + b;
    for (; k * bs < len && b + k < upf; k++) {
        if (k && rb_data_map_done(w, c + k))
            break;
        rb_data_map_mark(w, c + k);
    }
    return k * bs < len ? k * bs : len;
}
