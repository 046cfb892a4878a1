/* zonemode=zbd as fio runs it on a file or a device that is not zoned:
 * zones emulated in memory over it, each with a write pointer. A write
 * goes to its zone's write pointer, whatever offset the job drew; a zone
 * written to its capacity is reset (its pointer back to its start) before
 * the next write to it; max_open_zones and job_max_open_zones bound the
 * zones being written, the others' writes going to one of them; reads stay
 * below write pointers (unless read_beyond_wp); a trim resets its zone.
 *
 * The zones of one file are shared by every worker of the run on the
 * agent, across phases, as fio shares them between the jobs of a run; they
 * live until the next run. A zoned block device (a write pointer the
 * device keeps) is refused: rackbench neither reports nor resets its
 * zones. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rb_log.h"
#include "rb_sandbox.h"
#include "rb_data_int.h"

#define S_MAX_ZONES (1u << 26) /* zones of one file: 1 GiB of write pointers at most */

typedef struct rb_zbd {
    struct rb_zbd *next;
    uint64_t run;           /* rb_verify_hash of the run */
    char path[RB_PATH_MAX]; /* the file, as the workers open it */
    pthread_mutex_t mu;     /* everything below */
    uint64_t zone, cap;     /* zone size, and the bytes writable in each */
    uint32_t nzones;        /* zones over the file (the last may be short) */
    uint64_t *wp;           /* each zone's write pointer, nzones + 1 (a sentinel) */
    uint8_t *isopen;        /* 1: in open[] */
    uint32_t max_open;      /* the file's max_open_zones (0: no limit, nothing tracked) */
    uint32_t nopen;         /* zones in open[] */
    uint32_t *open;         /* the zones being written, in the order opened (max_open + 1) */
    uint64_t swd;           /* bytes below the write pointers (fio's sectors_with_data) */
    uint32_t write_cnt;     /* zone_reset_frequency: writes until the next reset */
} rb_zbd_t;

static pthread_mutex_t s_mu = PTHREAD_MUTEX_INITIALIZER; /* s_all */
static rb_zbd_t *s_all;                                  /* the run's files with zones */

static void s_free(rb_zbd_t *z)
{
    pthread_mutex_destroy(&z->mu);
    free(z->wp);
    free(z->isopen);
    free(z->open);
    free(z);
}

static uint64_t s_start(const rb_zbd_t *z, uint32_t i)
{
    return (uint64_t)i * z->zone;
}

static uint64_t s_cap_end(const rb_zbd_t *z, uint32_t i)
{
    return s_start(z, i) + z->cap;
}

static uint32_t s_idx(const rb_zbd_t *z, uint64_t off)
{
    uint64_t i = off / z->zone;
    return i < z->nzones ? (uint32_t)i : z->nzones;
}

/* 1 when a device is zoned (its write pointers are its own), as its
 * queue/zoned under sys ("/sys") says. */
static int s_zoned(int fd, const char *sys)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode))
        return 0;
    char p[RB_PATH_MAX + 64], v[32] = "";
    snprintf(p, sizeof p, "%s/dev/block/%u:%u/queue/zoned", sys, major(st.st_rdev),
             minor(st.st_rdev));
    FILE *f = fopen(p, "r");
    if (!f)
        return 0;
    int got = fgets(v, sizeof v, f) != NULL;
    fclose(f);
    return got && strncmp(v, "none", 4) != 0;
}

/* The file's zones for this run: found, or made over size bytes. */
static rb_zbd_t *s_attach(rb_worker_t *w, uint64_t size, rb_err_t *err)
{
    const rb_job_spec_t *s = w->spec;
    const char *path = w->files[0].path;
    uint64_t cap = s->zbd_cap ? s->zbd_cap : s->zbd_zone;
    pthread_mutex_lock(&s_mu);
    for (rb_zbd_t **pp = &s_all; *pp;) { /* an earlier run's zones go */
        rb_zbd_t *z = *pp;
        if (z->run == w->run_hash) {
            pp = &z->next;
            continue;
        }
        *pp = z->next;
        s_free(z);
    }
    rb_zbd_t *z = s_all;
    while (z && strcmp(z->path, path))
        z = z->next;
    if (z && (z->zone != s->zbd_zone || z->cap != cap)) {
        rb_err_set(err, -EINVAL,
                   "job %s: %s: zonesize %" PRIu64 " and zonecapacity %" PRIu64
                   " differ from the zones an earlier job of the run set on it (%" PRIu64
                   ", %" PRIu64 ")",
                   s->name, path, s->zbd_zone, cap, z->zone, z->cap);
        pthread_mutex_unlock(&s_mu);
        return NULL;
    }
    if (z && s->zbd_max_open && z->max_open != s->zbd_max_open) {
        rb_err_set(err, -EINVAL,
                   "job %s: %s: max_open_zones=%" PRIu32 " differs from the %" PRIu32
                   " an earlier job of the run set (fio: different "
                   "'max_open_zones' values)",
                   s->name, path, s->zbd_max_open, z->max_open);
        pthread_mutex_unlock(&s_mu);
        return NULL;
    }
    if (!z) {
        uint64_t n = (size + s->zbd_zone - 1) / s->zbd_zone;
        if (n > S_MAX_ZONES) {
            pthread_mutex_unlock(&s_mu);
            rb_err_set(err, -E2BIG,
                       "job %s: %s: %" PRIu64 " zones of %" PRIu64 " bytes: at most %u", s->name,
                       path, n, s->zbd_zone, S_MAX_ZONES);
            return NULL;
        }
        z = calloc(1, sizeof *z);
        if (z) {
            z->wp = calloc(n + 1, sizeof *z->wp);
            z->isopen = calloc(n + 1, 1);
            z->open = calloc((size_t)s->zbd_max_open + 1, sizeof *z->open);
        }
        if (!z || !z->wp || !z->isopen || !z->open) {
            if (z) {
                free(z->wp);
                free(z->isopen);
                free(z->open);
                free(z);
            }
            pthread_mutex_unlock(&s_mu);
            rb_err_set(err, -ENOMEM, "job %s: out of memory for %" PRIu64 " zones", s->name, n);
            return NULL;
        }
        pthread_mutex_init(&z->mu, NULL);
        z->run = w->run_hash;
        snprintf(z->path, sizeof z->path, "%s", path);
        z->zone = s->zbd_zone;
        z->cap = cap;
        z->nzones = (uint32_t)n;
        for (uint32_t i = 0; i <= n; i++)
            z->wp[i] = s_start(z, i); /* all empty, as fio's emulated zones begin */
        z->max_open = s->zbd_max_open;
        z->write_cnt = UINT_MAX;
        z->next = s_all;
        s_all = z;
    }
    pthread_mutex_unlock(&s_mu);
    return z;
}

/* The smallest IO of direction d: fio's min_bs. */
static uint64_t s_min_bs(const rb_job_spec_t *s, int d)
{
    uint32_t n = d == RB_DIR_TRIM ? 0 : d ? s->nbssplit_write : s->nbssplit_read;
    const rb_bs_part_t *p = d ? s->bssplit_write : s->bssplit_read;
    uint64_t m = d == RB_DIR_TRIM ? s->bs_trim : d ? s->bs_write : s->bs_read;
    if (!m)
        m = s->bs;
    for (uint32_t i = 0; i < n; i++)
        if (p[i].perc && p[i].bs < m)
            m = p[i].bs;
    return m;
}

/* fio's write_cnt, counting down to the next zone_reset_frequency reset. */
static void s_reset_cnt(const rb_worker_t *w, rb_zbd_t *z)
{
    double f = w->spec->zbd_reset_freq / 1e6;
    z->write_cnt = f > 0 ? (uint32_t)(1.0 / f < UINT_MAX ? 1.0 / f : UINT_MAX) : UINT_MAX;
}

int rb_data_zbd_setup(rb_worker_t *w, rb_err_t *err)
{
    const rb_job_spec_t *s = w->spec;
    rb_worker_file_t *f = &w->files[0];
    if (!s->zbd_zone)
        return 0;
    if (w->nfiles != 1)
        return rb_err_set(err, -EINVAL, "job %s: zonemode=zbd with %u files is not supported yet",
                          s->name, w->nfiles);
    uint64_t size = f->real_size;
    struct stat st;
    if (f->fd >= 0 && s_zoned(f->fd, w->sb ? rb_sandbox_sys_root(w->sb) : "/sys"))
        return rb_err_set(err, -EOPNOTSUPP,
                          "job %s: %s is a zoned block device: rackbench emulates zones over a "
                          "file or a device that is not zoned, and neither reports nor resets a "
                          "device's own",
                          s->name, f->path);
    if (!f->blkdev && f->fd >= 0 && fstat(f->fd, &st) == 0)
        size = (uint64_t)st.st_size;
    uint64_t lo = rb_job_offset(s, w->region), len = w->unit_per_file * s->bs;
    if (!size)
        size = lo + len; /* the file grows as written: its range */
    if (size < s->zbd_zone)
        return rb_err_set(err, -EINVAL,
                          "job %s: %s: file/device size %" PRIu64
                          " is smaller than zonesize %" PRIu64,
                          s->name, f->path, size, s->zbd_zone);
    rb_zbd_t *z = s_attach(w, size, err);
    if (!z)
        return -EINVAL;
    w->zbd = z;
    for (int d = 0; d < 3; d++)
        w->zbd_minbs[d] = s_min_bs(s, d);
    /* fio's zbd_verify_sizes: a job that is not a sequential read begins and
     * ends on zones */
    if (s->rw != RB_RW_READ && lo < size) {
        uint32_t i = s_idx(z, lo);
        if (lo != s_start(z, i)) {
            uint64_t to = s_start(z, i + 1);
            if (to >= lo + len)
                return rb_err_set(err, -EINVAL, "job %s: %s: io_size must be at least one zone",
                                  s->name, f->path);
            rb_log(RB_LOG_INFO, "job %s: %s: rounded up offset from %" PRIu64 " to %" PRIu64,
                   s->name, f->path, lo, to);
            len -= to - lo;
            w->zbd_shift = to - lo;
            lo = to;
        }
        uint64_t end = s_start(z, s_idx(z, lo + len));
        if (lo + len != end) {
            if (end <= lo)
                return rb_err_set(err, -EINVAL, "job %s: %s: io_size must be at least one zone",
                                  s->name, f->path);
            rb_log(RB_LOG_INFO, "job %s: %s: rounded down io_size from %" PRIu64 " to %" PRIu64,
                   s->name, f->path, len, end - lo);
            len = end - lo;
        }
        w->unit_per_file = len / s->bs;
        w->units = w->unit_per_file;
    }
    w->zbd_lo = lo;
    w->zbd_len = len;
    w->zbd_min = s_idx(z, lo);
    w->zbd_max = s_idx(z, lo + len);
    if (w->zbd_min >= w->zbd_max)
        return rb_err_set(err, -EINVAL, "job %s: %s: the range holds no zone", s->name, f->path);
    if (rb_rw_writes(s->rw)) { /* fio's zbd_file_reset: the data of its zones, counted anew */
        pthread_mutex_lock(&z->mu);
        uint64_t swd = 0;
        for (uint32_t i = w->zbd_min; i < w->zbd_max; i++)
            swd += z->wp[i] - s_start(z, i);
        z->swd = swd;
        s_reset_cnt(w, z);
        pthread_mutex_unlock(&z->mu);
    }
    return 0;
}

void rb_data_zbd_fini(rb_worker_t *w)
{
    if (w->zbd && !rb_rw_writes(w->spec->rw) && !w->spec->zbd_beyond_wp && !rb_worker_bytes(w) &&
        !w->status)
        rb_log(RB_LOG_WARN,
               "job %s worker %" PRIu32 ": zonemode=zbd: nothing to read in %s: no zone of its "
               "range holds data below its write pointer (the zones start empty each run; "
               "an earlier job of the run writes them, or read_beyond_wp=1 reads them all)",
               w->spec->name, w->index, w->files[0].path);
    if (w->zbd && w->zbd_resets)
        rb_log(RB_LOG_INFO, "job %s worker %" PRIu32 ": %" PRIu64 " zone resets", w->spec->name,
               w->index, w->zbd_resets);
    w->zbd = NULL;
}

/* ---- fio's zone model, z->mu held ---- */

static int s_valid(const rb_worker_t *w, uint64_t off)
{
    return off - w->zbd_lo < w->zbd_len;
}

static int s_full(const rb_zbd_t *z, uint32_t i, uint64_t need)
{
    return z->wp[i] + need > s_cap_end(z, i);
}

static void s_reset(rb_worker_t *w, rb_zbd_t *z, uint32_t i)
{
    uint64_t data = z->wp[i] - s_start(z, i);
    if (!data)
        return;
    z->swd -= data;
    z->wp[i] = s_start(z, i);
    w->zbd_resets++;
}

static void s_close(rb_worker_t *w, rb_zbd_t *z, uint32_t i)
{
    uint32_t k = 0;
    while (k < z->nopen && z->open[k] != i)
        k++;
    if (k == z->nopen)
        return;
    /* as fio: the entries after it move up, the last slot keeps its value */
    memmove(z->open + k, z->open + k + 1, (z->max_open - k) * sizeof *z->open);
    z->nopen--;
    w->zbd_nopen--;
    z->isopen[i] = 0;
}

/* fio's zbd_open_zone: 1 when zone i is open or may be opened (it is then). */
static int s_open(rb_worker_t *w, rb_zbd_t *z, uint32_t i)
{
    if (!z->max_open)
        return 1; /* no limit: nothing tracked */
    if (z->isopen[i])
        return z->wp[i] < s_cap_end(z, i); /* full by writes in flight: as if full */
    uint32_t jm = w->spec->zbd_job_max_open;
    if ((jm && w->zbd_nopen >= (int32_t)jm) || z->nopen >= z->max_open)
        return 0;
    z->open[z->nopen++] = i;
    w->zbd_nopen++;
    z->isopen[i] = 1;
    return 1;
}

/* fio's pick_random_zone_idx: an index into open[] from the IO's offset. */
static uint32_t s_pick(const rb_worker_t *w, const rb_zbd_t *z, uint64_t off)
{
    return (uint32_t)((unsigned __int128)(off - w->zbd_lo) * z->nopen / w->zbd_len);
}

/* fio's zbd_convert_to_open_zone: a zone the write at off may go to, or
 * UINT32_MAX when none. */
static uint32_t s_to_open(rb_worker_t *w, rb_zbd_t *z, uint64_t off)
{
    uint64_t min_bs = w->zbd_minbs[RB_DIR_WRITE];
    uint32_t jm = w->spec->zbd_job_max_open;
    uint32_t i = z->max_open || jm ? z->open[s_pick(w, z, off)] : s_idx(z, off);
    if (i < w->zbd_min)
        i = w->zbd_min;
    else if (i >= w->zbd_max)
        i = w->zbd_max - 1;
    if (z->max_open || jm) {
        if (!z->nopen)
            goto other;
        uint32_t k = s_pick(w, z, off), n;
        for (n = 0; n < z->nopen; n++, k++) {
            if (k >= z->nopen)
                k = 0;
            if (z->open[k] >= w->zbd_min && z->open[k] < w->zbd_max)
                break;
        }
        if (n == z->nopen)
            return UINT32_MAX; /* no open zone in the range */
        i = z->open[k];
    }
    if (z->wp[i] + min_bs <= s_cap_end(z, i))
        return i;
other:
    for (uint64_t n = w->zbd_len / z->zone; n > 0; n--) { /* the zones after it, around */
        i++;
        if (!s_valid(w, s_start(z, i)))
            i = w->zbd_min;
        if (z->isopen[i])
            continue;
        if (s_open(w, z, i))
            return i;
    }
    for (uint32_t k = 0; k < z->nopen; k++) { /* an open zone the write fits in */
        i = z->open[k];
        if (i >= w->zbd_min && i < w->zbd_max && z->wp[i] + min_bs <= s_cap_end(z, i))
            return i;
    }
    return UINT32_MAX;
}

/* fio's zbd_find_zone: the next zone after b with at least need bytes of
 * data, or for a random job the nearest either way; UINT32_MAX if none. */
static uint32_t s_find(const rb_worker_t *w, const rb_zbd_t *z, uint32_t b, uint64_t need)
{
    int rnd = rb_rw_random(w->spec->rw);
    int64_t lo = w->zbd_min;
    for (int64_t z1 = (int64_t)b + 1, z2 = (int64_t)b - 1; z1 < w->zbd_max || z2 >= lo;
         z1++, z2--) {
        if (z1 < w->zbd_max) {
            if (s_start(z, (uint32_t)z1) + need <= z->wp[z1])
                return (uint32_t)z1;
        } else if (!rnd) {
            break;
        }
        if (rnd && z2 >= lo && s_start(z, (uint32_t)z2) + need <= z->wp[z2])
            return (uint32_t)z2;
    }
    return UINT32_MAX;
}

static int s_read(rb_worker_t *w, rb_zbd_t *z, uint64_t *off, uint64_t *len)
{
    uint64_t min_bs = w->zbd_minbs[RB_DIR_READ], orig = *off;
    uint32_t b = s_idx(z, *off), ob = b;
    int rnd = rb_rw_random(w->spec->rw);
    uint64_t range = z->wp[b] - s_start(z, b);
    if (range < min_bs || (!rnd && *off + min_bs > z->wp[b])) {
        b = s_find(w, z, b, min_bs);
        if (b == UINT32_MAX)
            return 1;
        range = z->wp[b] - s_start(z, b);
        if (!rnd)
            *off = s_start(z, b);
    }
    if (range <= *len)
        *off = s_start(z, b);
    else if (rnd)
        *off = s_start(z, b) + ((orig - s_start(z, ob)) % (range - *len)) / min_bs * min_bs;
    uint64_t n = z->wp[b] - *off < *len ? z->wp[b] - *off : *len;
    n = n / min_bs * min_bs;
    if (n < *len)
        *len = n;
    return 0;
}

static int s_write(rb_worker_t *w, rb_zbd_t *z, uint64_t *off, uint64_t *len)
{
    const rb_job_spec_t *s = w->spec;
    uint64_t min_bs = w->zbd_minbs[RB_DIR_WRITE];
    uint32_t b = s_idx(z, *off);
    if (!s_open(w, z, b)) {
        b = s_to_open(w, z, *off);
        if (b == UINT32_MAX)
            return 1;
    }
    int reset = 0;
    if (s->zbd_reset_freq && z->swd >= (uint64_t)((double)w->zbd_len * s->zbd_reset_thr / 1e6)) {
        if (--z->write_cnt == 0) { /* fio's zbd_dec_and_reset_write_cnt */
            s_reset_cnt(w, z);
            reset = 1;
        }
    }
    if (reset || s_full(z, b, min_bs))
        s_reset(w, z, b);
    *off = z->wp[b];
    if (!s_valid(w, *off)) {
        rb_worker_fail(w, -EINVAL, w->files[0].path, *off,
                       "zonemode=zbd: write pointer %" PRIu64 " outside the job's range", *off);
        return -1;
    }
    uint64_t room = s_cap_end(z, b) - *off;
    uint64_t n = (*len < room ? *len : room) / min_bs * min_bs;
    if (n < min_bs) {
        rb_worker_fail(w, -EIO, w->files[0].path, *off,
                       "zonemode=zbd: zone remainder %" PRIu64
                       " smaller than min block size %" PRIu64,
                       room, min_bs);
        return -1;
    }
    *len = n;
    return 0;
}

int rb_data_zbd_dir(rb_worker_t *w, int dir)
{
    const rb_job_spec_t *s = w->spec;
    if (!w->zbd || dir != RB_DIR_READ || (s->rw != RB_RW_RW && s->rw != RB_RW_RANDRW) ||
        s->zbd_beyond_wp)
        return dir;
    pthread_mutex_lock(&w->zbd->mu);
    int empty = !w->zbd->swd;
    pthread_mutex_unlock(&w->zbd->mu);
    return empty ? RB_DIR_WRITE : dir;
}

int rb_data_zbd_adjust(rb_worker_t *w, int dir, uint64_t *off, uint64_t *len)
{
    rb_zbd_t *z = w->zbd;
    *off += w->zbd_shift;
    if (!s_valid(w, *off))
        return 1; /* past the range fio rounded down to */
    if (*off + *len > w->zbd_lo + w->zbd_len)
        *len = w->zbd_lo + w->zbd_len - *off;
    if (dir == RB_DIR_READ && w->spec->zbd_beyond_wp)
        return 0;
    pthread_mutex_lock(&z->mu);
    int rc = 0;
    uint32_t b = s_idx(z, *off);
    if (dir == RB_DIR_READ)
        rc = s_read(w, z, off, len);
    else if (dir == RB_DIR_WRITE && (rc = s_write(w, z, off, len)) == 0)
        return 0; /* held until rb_data_zbd_wrote */
    else if (dir == RB_DIR_WRITE)
        ;
    else if (rb_rw_random(w->spec->rw) && z->wp[b] == s_start(z, b)) {
        b = s_find(w, z, b, 1); /* a random trim: a zone with data */
        if (b == UINT32_MAX)
            rc = 1;
        else
            *off = s_start(z, b);
    }
    pthread_mutex_unlock(&z->mu);
    return rc;
}

void rb_data_zbd_wrote(rb_worker_t *w, uint64_t off, uint64_t len)
{
    rb_zbd_t *z = w->zbd;
    uint32_t b = s_idx(z, off);
    /* fio moves the write pointer as the write is queued, and closes the
     * zone the write fills */
    uint64_t end = off + len < s_cap_end(z, b) ? off + len : s_cap_end(z, b);
    if (z->wp[b] <= end)
        z->swd += end - z->wp[b];
    z->wp[b] = end;
    if (off + len >= s_cap_end(z, b))
        s_close(w, z, b);
    pthread_mutex_unlock(&z->mu);
}

int rb_data_zbd_trim(rb_worker_t *w, rb_engine_io_t *io)
{
    rb_zbd_t *z = w->zbd;
    pthread_mutex_lock(&z->mu);
    uint32_t b = s_idx(z, io->off);
    int ok = b < z->nzones && io->off == s_start(z, b);
    if (ok)
        s_reset(w, z, b);
    pthread_mutex_unlock(&z->mu);
    if (!ok) {
        RB_WORKER_ADD(&w->errors, 1);
        rb_worker_fail(w, -EINVAL, w->files[io->file_index].path, io->off,
                       "zonemode=zbd: a trim not at a zone's start");
        w->halt = 1;
        return -EALREADY;
    }
    io->result = (int64_t)io->len;
    return RB_ENGINE_Q_COMPLETED;
}
