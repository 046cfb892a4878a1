/* Runs one phase's workers and turns their counters into samples and totals.
 *
 * Each worker owns its files, one engine, a ring of iodepth IO slots with one
 * buffer each, a latency histogram and progress checkpoints. Its loop fills
 * free slots with the next IOs (offsets from a sequential cursor or a
 * pseudo-random permutation, so a random pass touches every block once),
 * queues them, commits, and reaps completions; the engine answers COMPLETED,
 * QUEUED or BUSY so sync and async engines share the loop. Counters are
 * single-writer and read by the sampler with relaxed atomics. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rb_engine.h"
#include "rb_job.h"
#include "rb_perm.h"
#include "rb_rand.h"
#include "rb_time.h"
#include "rb_verify.h"

#define S_ALIGN       4096
#define S_CP_STEP0_NS (1 * RB_NS_PER_MS) /* first spacing of progress checkpoints */
#define S_PREFILL_BS  (1u << 20)
#define S_MAX_FILES   65536

#define S_LOAD(p)     __atomic_load_n((p), __ATOMIC_RELAXED)
#define S_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define S_ADD(p, v)   S_STORE((p), S_LOAD(p) + (v))

typedef struct s_file {
    int fd;
    uint64_t hash;          /* rb_verify_hash(name) */
    uint64_t cursor;        /* next sequential offset */
    int dirty;              /* written since the last fsync */
    char path[RB_PATH_MAX]; /* for messages */
} s_file_t;

/* What the runner keeps per IO slot beside the engine's rb_io_t. */
typedef struct s_slot {
    void *base;    /* the slot's buffer */
    uint64_t off0; /* offset of the whole IO (for partial completions) */
    uint64_t len0; /* length of the whole IO */
} s_slot_t;

typedef struct s_worker {
    rb_phase_t *ph;            /* owning phase (stop flag, go time) */
    const rb_job_spec_t *spec; /* borrowed from the phase spec */
    uint32_t job;              /* index of spec in the phase */
    uint32_t index;            /* 0 .. numjobs-1 */
    uint32_t nfiles;
    s_file_t *files;
    rb_engine_t eng;
    int eng_ready;  /* rb_engine_init succeeded */
    uint32_t depth; /* == spec->iodepth */
    rb_io_t *ios;   /* depth slots */
    s_slot_t *slots;
    rb_io_t **free; /* stack of free slots */
    uint32_t nfree;
    rb_io_t **done; /* scratch for getevents */
    void *bufs;     /* depth × bs_max, aligned */
    uint64_t run_hash;
    rb_rand_t rng;          /* offsets, sizes, read/write choice, buffer refills */
    rb_perm_t perm;         /* random pass order */
    uint64_t units;         /* bs-sized units per pass, all files */
    uint64_t unit_per_file; /* bs-sized units in each file */
    uint64_t next_unit;     /* position in the pass */
    uint64_t pass;          /* passes begun */
    uint64_t count_from;    /* IOs completing before this are ramp-up */
    uint64_t deadline;      /* stop issuing at this time */
    uint64_t rate_start;    /* rate limiting: origin and bytes issued since */
    uint64_t rate_bytes;
    uint64_t writes_since_sync;
    /* across nodes */
    uint32_t nregions;               /* workers sharing the IO layout (rb_job_map) */
    uint32_t region;                 /* whose region this worker's IOs go to */
    uint32_t node_tag;               /* rank + 1 of this node: stamped in verify headers */
    uint32_t expect;                 /* rank + 1 of the node whose data reads must find */
    uint64_t sw_at;                  /* stonewall_time: stop issuing at this time */
    uint64_t op_limit;               /* wearout: stop issuing once this many ops are done */
    uint64_t sw_t, sw_bytes, sw_ops; /* at the stonewall (sw_t 0: never reached) */
    int sw_wait;                     /* release-stored 1 while waiting for the wearout target */
    pthread_t thread;
    int started; /* thread was created */
    /* live, written by the worker, read by the sampler (relaxed atomics) */
    /* Reads and writes count apart, so any snapshot is consistent: the
     * totals are sums, never a total and a part read at different times. */
    uint64_t rbytes, wbytes, rops, wops, errors, verify_errors;
    int finished;   /* release-stored 1 at the end */
    rb_hist_t hist; /* per-IO latency, ns */
    /* results, read after join */
    uint64_t t_start, t_end;
    int status; /* 0 or -errno of the first failure */
    int halt;   /* stop issuing: an IO error, or verify_fatal */
    char error[RB_REASON_MAX];
    char error_path[RB_PATH_MAX];
    uint64_t error_offset;
    rb_checkpt_t *cp; /* RB_MAX_CHECKPTS entries */
    uint32_t ncp;
    uint64_t cp_step; /* current checkpoint spacing, ns */
    uint64_t last_cp;
    /* rw=meta */
    int *mdirs; /* leaf directories the files spread over */
    uint32_t nmdirs;
    char mpath[RB_PATH_MAX];       /* the file set's folder, for messages */
    char mprefix[RB_NAME_MAX * 2]; /* file names start with this */
} s_worker_t;

typedef struct s_jobacc {
    rb_job_stat_t prev; /* totals at the previous sample (hist unused) */
    rb_hist_t hprev;    /* merged histogram at the previous sample */
    rb_hist_t now;      /* scratch: merged histogram now */
    rb_hist_t delta;    /* sent in the sample */
    rb_hist_t total;    /* final, sent in DONE */
} s_jobacc_t;

struct rb_phase {
    const rb_phase_spec_t *spec; /* borrowed */
    uint32_t index;              /* phase index in the plan */
    uint64_t t_go;               /* local monotonic start time */
    int stop;                    /* set to ask workers to stop */
    uint32_t nworkers;
    s_worker_t *w;
    s_jobacc_t *acc;   /* per job */
    rb_hist_t scratch; /* one worker's snapshot */
    uint32_t sample_seq;
    uint64_t t_last_sample;
    uint64_t *target;           /* per job: wearout ops (0 until told), atomic */
    uint8_t *sw_sent;           /* per job: STONEWALL reported */
    rb_job_stat_t *sjobs;       /* sample arrays, spec->njobs */
    rb_job_stat_t *djobs;       /* done arrays, spec->njobs */
    rb_worker_stat_t *dworkers; /* done array, nworkers */
};

/* ---- names and sizes ---- */

int rb_job_filename(const rb_job_spec_t *job, uint32_t worker, uint32_t filenum, char *out,
                    size_t len)
{
    const char *f = job->filename_format[0] ? job->filename_format : "$jobname.$jobnum.$filenum";
    size_t o = 0;
    if (job->filename[0]) {
        if (strlen(job->filename) + 1 > len)
            return -ENAMETOOLONG;
        snprintf(out, len, "%s", job->filename);
        return strchr(out, '/') || !strcmp(out, ".") || !strcmp(out, "..") ? -EINVAL : 0;
    }
    while (*f) {
        char piece[RB_NAME_MAX + 16];
        size_t adv;
        if (strncmp(f, "$jobname", 8) == 0) {
            snprintf(piece, sizeof piece, "%s", job->name);
            adv = 8;
        } else if (strncmp(f, "$jobnum", 7) == 0) {
            snprintf(piece, sizeof piece, "%u", worker);
            adv = 7;
        } else if (strncmp(f, "$filenum", 8) == 0) {
            snprintf(piece, sizeof piece, "%u", filenum);
            adv = 8;
        } else if (*f == '/' || *f == '$') {
            return -EINVAL;
        } else {
            piece[0] = *f;
            piece[1] = '\0';
            adv = 1;
        }
        size_t n = strlen(piece);
        if (o + n + 1 > len)
            return -ENAMETOOLONG;
        memcpy(out + o, piece, n);
        o += n;
        f += adv;
    }
    out[o] = '\0';
    if (o == 0 || strcmp(out, ".") == 0 || strcmp(out, "..") == 0)
        return -EINVAL;
    return 0;
}

int rb_job_uses_files(const rb_job_spec_t *job)
{
    const rb_engine_ops_t *ops = rb_engine_find(job->ioengine[0] ? job->ioengine : "sync");
    return !ops || !(ops->flags & RB_ENGINE_F_NO_DATA);
}

uint64_t rb_job_filesize(const rb_job_spec_t *job)
{
    uint32_t n = job->nrfiles ? job->nrfiles : 1;
    return job->filesize ? job->filesize : job->size / n;
}

const char *rb_run_peer(const rb_run_ctx_t *ctx, uint32_t shift)
{
    for (uint32_t i = 0; shift && i < ctx->npeers; i++)
        if (ctx->peers[i].shift == shift)
            return ctx->peers[i].name;
    return "";
}

uint32_t rb_job_region_count(const rb_job_spec_t *job, uint32_t nnodes)
{
    return job->shared_file ? job->numjobs * (nnodes ? nnodes : 1) : job->numjobs;
}

uint64_t rb_job_map(const rb_job_spec_t *job, uint32_t nregions, uint32_t region, uint64_t rel,
                    uint64_t *room)
{
    if (room)
        *room = UINT64_MAX;
    if (!job->shared_file)
        return job->offset + rel;
    if (job->layout == RB_LAYOUT_SEGMENTED)
        return job->offset + (uint64_t)region * rb_job_filesize(job) + rel;
    uint64_t t = job->transfer ? job->transfer : job->bs;
    if (room)
        *room = t - rel % t;
    return job->offset + ((rel / t) * nregions + region) * t + rel % t;
}

int rb_job_shared_name(const rb_job_spec_t *job, const char *lead, char *out, size_t len)
{
    char name[RB_NAME_MAX * 2];
    int rc = rb_job_filename(job, 0, 0, name, sizeof name);
    if (rc < 0)
        return rc;
    int n = snprintf(out, len, "%s.%s", lead, name);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static void *s_aligned(size_t len)
{
    void *p = NULL;
    return posix_memalign(&p, S_ALIGN, len ? len : S_ALIGN) == 0 ? p : NULL;
}

/* ---- laying out files ---- */

/* Writes n bytes of buf at off: a stamped block when stamp, else a block
 * marked with its offset (blocks differ: no dedup). Returns the bytes
 * written (a short write is the caller's to go on from) or -errno. */
static ssize_t s_prefill_put(int fd, const char *path, void *buf, uint64_t n, uint64_t off,
                             int stamp, const rb_prefill_t *pf, uint64_t file, rb_err_t *err)
{
    if (stamp)
        rb_verify_stamp(buf, n, pf->run_hash, pf->node, file, off, 0);
    else
        ((uint64_t *)buf)[0] = off;
    ssize_t got;
    do
        got = pwrite(fd, buf, n, (off_t)off);
    while (got < 0 && errno == EINTR);
    if (got <= 0)
        return rb_err_set(err, got < 0 ? -errno : -EIO, "prefill %s at offset %llu: %s", path,
                          (unsigned long long)off, got < 0 ? strerror(errno) : "no progress");
    return got;
}

/* Writes this node's region of a shared file (pf->region of pf->nregions). */
static int s_prefill_region(int fd, const char *path, const char *name, void *buf,
                            const rb_prefill_t *pf, uint64_t *written, rb_err_t *err)
{
    const rb_job_spec_t *js = pf->job;
    uint64_t size = rb_job_filesize(js), file = rb_verify_hash(name);
    for (uint64_t rel = 0; rel < size;) {
        uint64_t room, off = rb_job_map(js, pf->nregions, pf->region, rel, &room);
        uint64_t n = size - rel < S_PREFILL_BS ? size - rel : S_PREFILL_BS;
        if (pf->verify)
            n = pf->bs < size - rel ? pf->bs : size - rel;
        if (n > room)
            n = room;
        ssize_t got = s_prefill_put(fd, path, buf, n, off,
                                    pf->verify && n == pf->bs && n >= RB_VERIFY_HDR, pf, file, err);
        if (got < 0)
            return (int)got;
        rel += (uint64_t)got;
        *written += (uint64_t)got;
    }
    return 0;
}

/* Writes a file of the agent's own from offset from to pf->end, chunk bytes
 * at a time (one stamped block each when verifying). */
static int s_prefill_file(int fd, const char *path, const char *name, void *buf, uint64_t chunk,
                          uint64_t from, const rb_prefill_t *pf, uint64_t *written, rb_err_t *err)
{
    uint64_t file = rb_verify_hash(name);
    for (uint64_t off = from; off < pf->end;) {
        uint64_t n = pf->end - off < chunk ? pf->end - off : chunk;
        if (pf->verify && off < pf->start)
            n = pf->start - off < chunk ? pf->start - off : chunk;
        ssize_t got = s_prefill_put(
            fd, path, buf, n, off,
            pf->verify && off >= pf->start && n == chunk && n >= RB_VERIFY_HDR, pf, file, err);
        if (got < 0)
            return (int)got;
        off += (uint64_t)got;
        *written += (uint64_t)got;
    }
    return 0;
}

int rb_job_prefill(rb_sandbox_t *sb, int rundir, const char *run_id, const char *name,
                   const rb_prefill_t *pf, uint64_t *written, rb_err_t *err)
{
    char path[RB_PATH_MAX];
    uint64_t from = 0;
    int fd, flags = O_WRONLY | O_CREAT | (pf->direct ? O_DIRECT : 0);
    if (pf->shared) {
        fd = rb_sandbox_open_shared(sb, rundir, run_id, name, flags, path, sizeof path, err);
    } else {
        int64_t have = rb_sandbox_file_size(sb, rundir, name);
        if (have >= 0 && (uint64_t)have >= pf->end && !pf->verify)
            return 0;
        /* Verify headers must cover the whole region; plain data only what is missing. */
        if (!pf->verify && have > 0)
            from = (uint64_t)have & ~(uint64_t)(S_ALIGN - 1);
        snprintf(path, sizeof path, "%s/%s", rb_sandbox_rundir_path(sb, rundir), name);
        fd = rb_sandbox_open(sb, rundir, name, flags, err);
    }
    if (fd < 0)
        return fd;
    uint64_t chunk = pf->verify ? pf->bs : S_PREFILL_BS; /* one stamped block per write */
    void *buf = s_aligned(chunk);
    int rc = buf ? 0 : rb_err_set(err, -ENOMEM, "prefill %s: out of memory", path);
    if (buf) {
        rb_rand_t r;
        rb_rand_seed(&r, rb_mono_ns() ^ rb_verify_hash(name) ^ pf->region);
        rb_rand_fill(&r, buf, chunk);
        rc = pf->shared ? s_prefill_region(fd, path, name, buf, pf, written, err)
                        : s_prefill_file(fd, path, name, buf, chunk, from, pf, written, err);
    }
    if (rc == 0 && fsync(fd) < 0)
        rc = rb_err_set(err, -errno, "prefill %s: fsync: %s", path, strerror(errno));
    /* The read phase must find the data on disk, not in this node's page cache. */
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    free(buf);
    close(fd);
    return rc;
}

/* ---- the worker ---- */

static void s_checkpoint(s_worker_t *w, uint64_t t, uint64_t bytes)
{
    if (w->ncp == RB_MAX_CHECKPTS) {
        /* Keep every other point and double the spacing: bounded memory,
         * resolution of at most 2/RB_MAX_CHECKPTS of the phase. */
        for (uint32_t i = 0; i < RB_MAX_CHECKPTS / 2; i++)
            w->cp[i] = w->cp[2 * i + 1];
        w->ncp = RB_MAX_CHECKPTS / 2;
        w->cp_step *= 2;
    }
    w->cp[w->ncp].t_ns = t;
    w->cp[w->ncp].bytes = bytes;
    w->ncp++;
    w->last_cp = t;
}

/* Records the first failure of the worker; later ones only count. */
static void s_fail(s_worker_t *w, int code, const s_file_t *f, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void s_fail(s_worker_t *w, int code, const s_file_t *f, uint64_t off, const char *fmt, ...)
{
    if (w->status)
        return;
    char what[RB_REASON_MAX / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    w->status = code;
    snprintf(w->error, sizeof w->error, "%s at offset %llu of %s", what, (unsigned long long)off,
             f ? f->path : "?");
    snprintf(w->error_path, sizeof w->error_path, "%s", f ? f->path : "");
    w->error_offset = off;
}

static void s_new_pass(s_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    w->next_unit = 0;
    for (uint32_t i = 0; i < w->nfiles; i++)
        w->files[i].cursor = s->offset;
    if (rb_rw_random(s->rw) && !s->norandommap)
        rb_perm_init(&w->perm, w->units, rb_rand_next(&w->rng));
    w->pass++;
}

/* Picks the next IO of the pass: file, offset, length. 0, or 1 at the end of the pass. */
static int s_next(s_worker_t *w, uint32_t *file, uint64_t *off, uint64_t *len)
{
    const rb_job_spec_t *s = w->spec;
    uint64_t end = s->offset + w->unit_per_file * s->bs;
    uint64_t want = s->bs;
    if (s->bs_max > s->bs)
        want = s->bs * (1 + rb_rand_next(&w->rng) % (s->bs_max / s->bs));
    if (rb_rw_random(s->rw)) {
        if (w->next_unit == w->units)
            return 1;
        uint64_t u =
            s->norandommap ? rb_rand_next(&w->rng) % w->units : rb_perm_at(&w->perm, w->next_unit);
        w->next_unit++;
        *file = (uint32_t)(u % w->nfiles);
        *off = s->offset + (u / w->nfiles) * s->bs;
        *len = want < end - *off ? want : end - *off;
    } else {
        /* Round robin over the files, one IO each, as fio does by default. */
        for (uint32_t tries = 0; tries < w->nfiles; tries++) {
            uint32_t f = (uint32_t)(w->next_unit++ % w->nfiles);
            if (w->files[f].cursor < end) {
                *file = f;
                *off = w->files[f].cursor;
                goto found;
            }
        }
        return 1;
    found:
        *len = want < end - *off ? want : end - *off;
    }
    /* offsets so far are in the worker's own region: place it in the file */
    uint64_t room;
    *off = rb_job_map(s, w->nregions, w->region, *off - s->offset, &room);
    if (*len > room)
        *len = room;
    if (!rb_rw_random(s->rw))
        w->files[*file].cursor += *len;
    return 0;
}

static int s_is_write(s_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    if (s->rw == RB_RW_RW || s->rw == RB_RW_RANDRW)
        return rb_rand_next(&w->rng) % 100 >= s->rwmixread;
    return rb_rw_writes(s->rw);
}

/* Fills a write buffer: contents per buffer_mode, a tag so no two blocks are
 * alike, and a verify header when asked. */
static void s_prepare_write(s_worker_t *w, rb_io_t *io, const s_file_t *f)
{
    const rb_job_spec_t *s = w->spec;
    if (s->refill_buffers && s->buffer_mode == RB_BUF_RANDOM)
        rb_rand_fill(&w->rng, io->buf, io->len);
    if (s->verify == RB_VERIFY_CRC32C) {
        rb_verify_stamp(io->buf, io->len, w->run_hash, w->node_tag, f->hash, io->off, w->pass);
    } else if (s->buffer_mode == RB_BUF_RANDOM && io->len >= 16) {
        uint64_t *tag = io->buf;
        tag[0] = io->off;
        tag[1] = w->run_hash ^ w->pass ^ ((uint64_t)w->index << 32);
    }
}

static void s_release(s_worker_t *w, rb_io_t *io)
{
    w->free[w->nfree++] = io;
}

static int s_sync_files(s_worker_t *w, int data_only)
{
    for (uint32_t i = 0; i < w->nfiles; i++) {
        s_file_t *f = &w->files[i];
        if (!f->dirty || f->fd < 0)
            continue;
        if ((data_only ? fdatasync(f->fd) : fsync(f->fd)) < 0) {
            S_ADD(&w->errors, 1);
            s_fail(w, -errno, f, 0, "%s: %s", data_only ? "fdatasync" : "fsync", strerror(errno));
            w->halt = 1;
            return -1;
        }
        f->dirty = 0;
    }
    return 0;
}

/* Accounts one completed IO; requeues the rest of a short one. 1 if requeued. */
static int s_complete(s_worker_t *w, rb_io_t *io, uint64_t now)
{
    const rb_job_spec_t *s = w->spec;
    s_slot_t *sl = io->runner;
    s_file_t *f = &w->files[io->file_index];
    if (io->result > 0 && (uint64_t)io->result < io->len) {
        /* Short transfer: move on within the same IO, as fio does. */
        io->buf = (char *)io->buf + io->result;
        io->off += (uint64_t)io->result;
        io->len -= (uint64_t)io->result;
        io->result = 0;
        return 1;
    }
    if (io->result < 0 || (io->result == 0 && io->len > 0)) {
        S_ADD(&w->errors, 1);
        if (io->result == 0)
            s_fail(w, -ENODATA, f, io->off, "read at end of file (the file ends before %llu)",
                   (unsigned long long)(sl->off0 + sl->len0));
        else
            s_fail(w, (int)io->result, f, io->off, "%s: %s",
                   io->dir == RB_IO_READ ? "read" : "write", strerror((int)-io->result));
        w->halt = 1;
        io->buf = sl->base;
        s_release(w, io);
        return 0;
    }
    io->buf = sl->base;
    io->off = sl->off0;
    io->len = sl->len0;
    if (io->dir == RB_IO_READ && s->verify == RB_VERIFY_CRC32C) {
        char why[160];
        if (rb_verify_check(io->buf, io->len, w->run_hash, w->expect, f->hash, io->off, why,
                            sizeof why)) {
            S_ADD(&w->verify_errors, 1);
            S_ADD(&w->errors, 1);
            s_fail(w, -EBADMSG, f, io->off, "verify: %s", why);
            if (s->verify_fatal)
                w->halt = 1;
        }
    }
    if (now >= w->count_from) {
        if (w->t_start < w->count_from || !w->t_start) {
            /* First counted IO after ramp-up: the measured window opens here. */
            w->t_start = w->count_from;
            s_checkpoint(w, w->t_start, 0);
        }
        rb_hist_record(&w->hist, now - io->t_issue_ns);
        if (io->dir == RB_IO_READ) {
            S_ADD(&w->rbytes, io->len);
            S_ADD(&w->rops, 1);
        } else {
            S_ADD(&w->wbytes, io->len);
            S_ADD(&w->wops, 1);
        }
        w->t_end = now;
        if (now - w->last_cp >= w->cp_step)
            s_checkpoint(w, now, w->rbytes + w->wbytes);
    }
    s_release(w, io);
    return 0;
}

/* Reaps at least min completions (all in flight when min == inflight). */
static int s_reap(s_worker_t *w, uint32_t *inflight, unsigned min)
{
    int n = w->eng.ops->getevents(&w->eng, min, *inflight, w->done);
    if (n < 0) {
        s_fail(w, n, NULL, 0, "%s getevents: %s", w->eng.ops->name, strerror(-n));
        w->halt = 1;
        return n;
    }
    uint64_t now = rb_mono_ns();
    for (int i = 0; i < n; i++) {
        (*inflight)--;
        if (s_complete(w, w->done[i], now)) {
            /* the rest of a short IO goes back in */
            int rc = w->eng.ops->queue(&w->eng, w->done[i]);
            if (rc == RB_Q_COMPLETED) {
                s_complete(w, w->done[i], rb_mono_ns());
            } else if (rc >= 0) {
                (*inflight)++;
                w->eng.ops->commit(&w->eng);
            } else {
                s_fail(w, rc, &w->files[w->done[i]->file_index], w->done[i]->off, "requeue: %s",
                       strerror(-rc));
                w->halt = 1;
                s_release(w, w->done[i]);
            }
        }
    }
    return n;
}

static void s_rate_wait(s_worker_t *w, uint64_t len)
{
    const rb_job_spec_t *s = w->spec;
    if (!s->rate)
        return;
    w->rate_bytes += len;
    uint64_t due = w->rate_start + (uint64_t)((double)w->rate_bytes * 1e9 / (double)s->rate);
    if (due > rb_mono_ns())
        rb_sleep_until_ns(due);
}

/* Submits a queued IO at once, as fio does by default (iodepth_batch_submit=1):
 * holding the IOs of a reaped burst back to submit them together measured ~10%
 * fewer IOPS at QD32 here, the device seeing bursts instead of a steady queue.
 * 0, or -1 with the worker failed. */
static int s_submit(s_worker_t *w, rb_io_t *io, uint32_t *inflight)
{
    int rc = w->eng.ops->commit(&w->eng);
    if (rc < 0) {
        s_fail(w, rc, &w->files[io->file_index], io->off, "%s submit: %s", w->eng.ops->name,
               strerror(-rc));
        w->halt = 1; /* never submitted: nothing to reap */
        return -1;
    }
    (*inflight)++;
    return 0;
}

/* 1 when the worker must stop issuing: asked to, failed, out of time, at
 * its stonewall, or (wearout) with enough ops done or in flight. */
static int s_stop_issuing(s_worker_t *w, uint64_t now, uint32_t inflight)
{
    return S_LOAD(&w->ph->stop) || w->halt || now >= w->deadline || now >= w->sw_at ||
           w->rops + w->wops + inflight >= w->op_limit;
}

/* At the stonewall with wearout: waits for the op count to go on to. 1 with
 * w->op_limit set, 0 when the phase was stopped meanwhile. */
static int s_wait_wearout(s_worker_t *w)
{
    uint64_t *t = &w->ph->target[w->job];
    __atomic_store_n(&w->sw_wait, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(t, __ATOMIC_ACQUIRE) == UINT64_MAX) {
        if (S_LOAD(&w->ph->stop))
            return 0;
        rb_sleep_until_ns(rb_mono_ns() + RB_NS_PER_MS);
    }
    w->op_limit = __atomic_load_n(t, __ATOMIC_ACQUIRE);
    return 1;
}

/* The IO loop of one worker over its passes. */
static void s_run(s_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    rb_phase_t *ph = w->ph;
    uint32_t inflight = 0;
    uint64_t passes = s->time_based ? UINT64_MAX : (s->loops ? s->loops : 1);
    rb_io_t *pending = NULL; /* answered BUSY: queue again after reaping */
    int pass_over = 0;
    const uint32_t every = s->fsync_every ? s->fsync_every : s->fdatasync_every;

    s_new_pass(w);
again:
    for (;;) {
        int stop = s_stop_issuing(w, rb_mono_ns(), inflight);
        /* Issue while there are free slots. */
        while (!stop && (pending || (w->nfree && !pass_over))) {
            rb_io_t *io = pending;
            if (!io) {
                uint32_t fi;
                uint64_t off, len;
                if (s_next(w, &fi, &off, &len)) {
                    if (w->pass >= passes) {
                        pass_over = 1;
                        break;
                    }
                    s_new_pass(w);
                    continue;
                }
                io = w->free[--w->nfree];
                s_slot_t *sl = io->runner;
                io->file_index = fi;
                io->fd = w->files[fi].fd;
                io->off = sl->off0 = off;
                io->len = sl->len0 = len;
                io->buf = sl->base;
                io->result = 0;
                io->dir = s_is_write(w) ? RB_IO_WRITE : RB_IO_READ;
                if (io->dir == RB_IO_WRITE) {
                    s_prepare_write(w, io, &w->files[fi]);
                    w->files[fi].dirty = 1;
                    w->writes_since_sync++; /* fsync=N counts writes issued */
                }
                s_rate_wait(w, len);
                io->t_issue_ns = rb_mono_ns();
            }
            pending = NULL;
            int rc = w->eng.ops->queue(&w->eng, io);
            if (rc == RB_Q_COMPLETED) {
                uint64_t now = rb_mono_ns();
                while (s_complete(w, io, now)) { /* short IO on a sync engine: go on */
                    rc = w->eng.ops->queue(&w->eng, io);
                    now = rb_mono_ns();
                    if (rc != RB_Q_COMPLETED)
                        break;
                }
                if (rc == RB_Q_COMPLETED) {
                    /* a sync engine never leaves this loop otherwise */
                    stop = s_stop_issuing(w, now, inflight);
                    if (every && w->writes_since_sync >= every)
                        break; /* time for fsync=N */
                    continue;
                }
            }
            if (rc == RB_Q_QUEUED) {
                if (s_submit(w, io, &inflight) < 0 || w->rops + w->wops + inflight >= w->op_limit)
                    stop = 1;
                if (every && w->writes_since_sync >= every)
                    break; /* the N-th write since the last sync: drain, then sync */
                continue;
            }
            if (rc == RB_Q_BUSY) {
                pending = io;
                break;
            }
            if (rc < 0) {
                S_ADD(&w->errors, 1);
                s_fail(w, rc, &w->files[io->file_index], io->off, "%s queue: %s", w->eng.ops->name,
                       strerror(-rc));
                w->halt = 1;
                s_release(w, io);
                stop = 1;
            }
        }
        /* fsync=N / fdatasync=N: drain, then sync the files written. */
        if (every && w->writes_since_sync >= every) {
            while (inflight && s_reap(w, &inflight, inflight) >= 0)
                ;
            s_sync_files(w, !s->fsync_every);
            w->writes_since_sync = 0;
        }
        if (inflight) {
            if (s_reap(w, &inflight, 1) < 0)
                break;
            continue;
        }
        if (pending) {
            /* BUSY with nothing in flight would never clear: an engine bug */
            s_fail(w, -EIO, &w->files[pending->file_index], pending->off,
                   "%s is busy with no IO in flight", w->eng.ops->name);
            w->halt = 1;
            break;
        }
        if (stop || pass_over)
            break;
    }
    if (pending)
        s_release(w, pending);
    pending = NULL;
    while (inflight && s_reap(w, &inflight, inflight) >= 0)
        ;
    if (w->sw_at != UINT64_MAX && !pass_over && !w->halt && !S_LOAD(&ph->stop) &&
        rb_mono_ns() >= w->sw_at) {
        /* stonewall_time: what is done by now is the stonewall figure */
        w->sw_t = w->t_end ? w->t_end : rb_mono_ns();
        w->sw_bytes = w->rbytes + w->wbytes;
        w->sw_ops = w->rops + w->wops;
        w->sw_at = UINT64_MAX;
        if (s->wearout && rb_mono_ns() < w->deadline && s_wait_wearout(w))
            goto again;
    }
    if ((s->end_fsync || s->fsync_on_close) && !S_LOAD(&ph->stop)) {
        s_sync_files(w, 0);
        uint64_t now = rb_mono_ns();
        if (w->t_start && now > w->t_end)
            w->t_end = now; /* the flush is part of the job's time */
    }
}

/* do_verify: read back what the worker wrote and check every block; not
 * counted. A worker its stonewall stopped wrote the first of its blocks
 * only (round robin over its files); one writing at random, anywhere. */
static void s_verify_back(s_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    void *buf = w->slots[0].base;
    if (w->sw_t && rb_rw_random(s->rw))
        return;
    for (uint32_t i = 0; i < w->nfiles && !S_LOAD(&w->ph->stop); i++) {
        s_file_t *f = &w->files[i];
        uint64_t blocks = w->unit_per_file;
        if (w->sw_t && w->pass <= 1) {
            uint64_t mine = w->wops / w->nfiles + (i < w->wops % w->nfiles);
            blocks = mine < blocks ? mine : blocks;
        }
        uint64_t end = s->offset + blocks * s->bs;
        for (uint64_t rel = 0; s->offset + rel + s->bs <= end; rel += s->bs) {
            uint64_t off = rb_job_map(s, w->nregions, w->region, rel, NULL);
            ssize_t n = pread(f->fd, buf, s->bs, (off_t)off);
            char why[160];
            if (n != (ssize_t)s->bs) {
                S_ADD(&w->errors, 1);
                s_fail(w, n < 0 ? -errno : -ENODATA, f, off, "verify read: %s",
                       n < 0 ? strerror(errno) : "short read");
                return;
            }
            if (rb_verify_check(buf, s->bs, w->run_hash, w->expect, f->hash, off, why,
                                sizeof why)) {
                S_ADD(&w->verify_errors, 1);
                S_ADD(&w->errors, 1);
                s_fail(w, -EBADMSG, f, off, "verify: %s", why);
                if (s->verify_fatal)
                    return;
            }
        }
    }
}

/* ---- rw=meta: one metadata operation over a worker's file set ---- */

/* Makes (or finds) directory name inside parent fd and opens it. fd or -errno. */
static int s_mkdir_open(int parent, const char *name)
{
    if (mkdirat(parent, name, 0755) < 0 && errno != EEXIST)
        return -errno;
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

/* Opens the leaf directories of a worker's file set: one shared folder, or
 * "SET.W" in the run folder with meta_dirs flat folders or a meta_depth ×
 * meta_branch tree below it. Made here, before GO: not measured. */
static int s_meta_setup(s_worker_t *w, rb_sandbox_t *sb, int rundir, const char *run_id,
                        rb_err_t *err)
{
    const rb_job_spec_t *s = w->spec;
    const char *set = s->filename_format[0] ? s->filename_format : s->name;
    char base[RB_PATH_MAX];
    uint64_t leaves = 1;
    if (s->meta_shared) {
        int fd = rb_sandbox_shared_dir(sb, rundir, run_id, err);
        if (fd < 0)
            return fd;
        w->mdirs = calloc(1, sizeof *w->mdirs);
        if (!w->mdirs) {
            close(fd);
            return rb_err_set(err, -ENOMEM, "out of memory");
        }
        w->mdirs[0] = fd;
        w->nmdirs = 1;
        snprintf(w->mpath, sizeof w->mpath, "%s/../rackbench.%s.shared",
                 rb_sandbox_rundir_path(sb, rundir), run_id);
        snprintf(w->mprefix, sizeof w->mprefix, "%s.%s.%u.", rb_sandbox_node(sb), set, w->index);
        return 0;
    }
    if (s->meta_depth)
        for (uint32_t d = 0; d < s->meta_depth; d++)
            leaves *= s->meta_branch ? s->meta_branch : 1;
    else
        leaves = s->meta_dirs ? s->meta_dirs : 1;
    if (leaves > (1u << 20))
        return rb_err_set(err, -E2BIG, "job %s: %llu directories per worker", s->name,
                          (unsigned long long)leaves);
    w->mdirs = calloc(leaves, sizeof *w->mdirs);
    if (!w->mdirs)
        return rb_err_set(err, -ENOMEM, "out of memory for %llu directories",
                          (unsigned long long)leaves);
    for (uint64_t i = 0; i < leaves; i++)
        w->mdirs[i] = -1;
    w->nmdirs = (uint32_t)leaves;
    snprintf(base, sizeof base, "%s.%u", set, w->index);
    snprintf(w->mpath, sizeof w->mpath, "%s/%s", rb_sandbox_rundir_path(sb, rundir), base);
    int rfd = open(rb_sandbox_rundir_path(sb, rundir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int top = rfd >= 0 ? s_mkdir_open(rfd, base) : -errno;
    if (rfd >= 0)
        close(rfd);
    if (top < 0)
        return rb_err_set(err, top, "folder %s: %s", w->mpath, strerror(-top));
    if (leaves == 1 && !s->meta_depth) {
        w->mdirs[0] = top; /* one folder: the files live in the worker's own */
        snprintf(w->mprefix, sizeof w->mprefix, "f");
        return 0;
    }
    for (uint64_t leaf = 0; leaf < leaves; leaf++) {
        /* leaf number in base meta_branch gives its path down the tree */
        int fd = dup(top);
        uint64_t rest = leaf, div = leaves;
        uint32_t levels = s->meta_depth ? s->meta_depth : 1;
        for (uint32_t d = 0; d < levels && fd >= 0; d++) {
            uint64_t width = s->meta_depth ? (s->meta_branch ? s->meta_branch : 1) : leaves;
            div /= width;
            char name[32];
            snprintf(name, sizeof name, "d%llu", (unsigned long long)(rest / div));
            rest %= div;
            int child = s_mkdir_open(fd, name);
            close(fd);
            fd = child;
        }
        if (fd < 0) {
            close(top);
            return rb_err_set(err, fd, "folders under %s: %s", w->mpath, strerror(-fd));
        }
        w->mdirs[leaf] = fd;
    }
    close(top);
    snprintf(w->mprefix, sizeof w->mprefix, "f");
    return 0;
}

/* Name of file i, in the state an earlier rename left it. */
static void s_meta_name(const s_worker_t *w, uint64_t i, int renamed, char *out, size_t len)
{
    snprintf(out, len, "%s%llu%s", w->mprefix, (unsigned long long)i, renamed ? ".r" : "");
}

/* Moves len bytes to or from an open file. 0 or -errno. */
static int s_meta_data(s_worker_t *w, int fd, int write)
{
    uint64_t left = w->spec->meta_filesize;
    while (left) {
        size_t n = left < S_PREFILL_BS ? (size_t)left : S_PREFILL_BS;
        ssize_t got = write ? pwrite(fd, w->bufs, n, 0) : read(fd, w->bufs, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -errno;
        if (got == 0)
            break; /* a shorter file reads as what it holds */
        left -= (uint64_t)got;
    }
    return 0;
}

/* One operation on file i; returns bytes moved or -errno. */
static int64_t s_meta_op(s_worker_t *w, uint64_t i, int *is_read)
{
    const rb_job_spec_t *s = w->spec;
    int dfd = w->mdirs[i % w->nmdirs];
    char name[RB_NAME_MAX * 2], to[RB_NAME_MAX * 2];
    struct stat st;
    int fd, rc = 0;
    *is_read = s->meta_op == RB_META_STAT || s->meta_op == RB_META_READ;
    s_meta_name(w, i, s->meta_renamed, name, sizeof name);
    switch (s->meta_op) {
    case RB_META_CREATE:
    case RB_META_WRITE:
        fd = openat(dfd, name,
                    O_WRONLY | O_NOFOLLOW | O_CLOEXEC |
                        (s->meta_op == RB_META_CREATE ? O_CREAT | O_EXCL : 0),
                    0600);
        if (fd < 0)
            return -errno;
        rc = s_meta_data(w, fd, 1);
        if (rc == 0 && s->meta_sync && fsync(fd) < 0)
            rc = -errno;
        close(fd);
        if (rc == 0 && s->meta_sync && s->meta_op == RB_META_CREATE && fsync(dfd) < 0)
            rc = -errno;
        return rc < 0 ? rc : (int64_t)s->meta_filesize;
    case RB_META_STAT:
        return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
    case RB_META_READ:
        fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return -errno;
        rc = s_meta_data(w, fd, 0);
        close(fd);
        return rc < 0 ? rc : (int64_t)s->meta_filesize;
    case RB_META_RENAME:
        s_meta_name(w, i, 1, to, sizeof to);
        if (renameat(dfd, name, dfd, to) < 0)
            return -errno;
        return s->meta_sync && fsync(dfd) < 0 ? -errno : 0;
    case RB_META_DELETE:
        if (unlinkat(dfd, name, 0) < 0)
            return -errno;
        return s->meta_sync && fsync(dfd) < 0 ? -errno : 0;
    default:
        return -EINVAL;
    }
}

/* The metadata loop: every file of the set once, in order or in a random
 * permutation; a failed operation is counted and named, and the step goes on. */
static void s_meta_run(s_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    rb_perm_t perm;
    if (s->meta_random)
        rb_perm_init(&perm, s->meta_files, rb_rand_next(&w->rng) ^ s->meta_op);
    for (uint64_t k = 0; k < s->meta_files && !S_LOAD(&w->ph->stop); k++) {
        uint64_t i = s->meta_random ? rb_perm_at(&perm, k) : k;
        int is_read;
        uint64_t t0 = rb_mono_ns();
        int64_t got = s_meta_op(w, i, &is_read);
        uint64_t t1 = rb_mono_ns();
        if (got < 0) {
            char name[RB_NAME_MAX * 2];
            s_file_t f = {.fd = -1};
            s_meta_name(w, i, s->meta_renamed, name, sizeof name);
            snprintf(f.path, sizeof f.path, "%s/.../%s", w->mpath, name);
            S_ADD(&w->errors, 1);
            s_fail(w, (int)got, &f, 0, "%s: %s", rb_meta_op_name(s->meta_op), strerror((int)-got));
            continue;
        }
        rb_hist_record(&w->hist, t1 - t0);
        if (is_read) {
            S_ADD(&w->rbytes, (uint64_t)got);
            S_ADD(&w->rops, 1);
        } else {
            S_ADD(&w->wbytes, (uint64_t)got);
            S_ADD(&w->wops, 1);
        }
        w->t_end = t1;
        if (t1 - w->last_cp >= w->cp_step)
            s_checkpoint(w, t1, w->rbytes + w->wbytes);
    }
}

static void *s_worker_main(void *arg)
{
    s_worker_t *w = arg;
    const rb_job_spec_t *s = w->spec;
    rb_sleep_until_ns(w->ph->t_go);
    uint64_t begin = rb_mono_ns();
    w->count_from = begin + s->ramp_ns;
    w->deadline = s->runtime_ns ? w->count_from + s->runtime_ns : UINT64_MAX;
    w->sw_at = s->stonewall_ns ? w->count_from + s->stonewall_ns : UINT64_MAX;
    w->op_limit = UINT64_MAX;
    w->rate_start = begin;
    if (!s->ramp_ns) {
        w->t_start = w->t_end = begin;
        s_checkpoint(w, begin, 0);
    }
    if (s->rw == RB_RW_META)
        s_meta_run(w);
    else
        s_run(w);
    if (!w->t_start)
        w->t_start = w->t_end = rb_mono_ns(); /* ended during ramp-up: nothing counted */
    uint64_t bytes = w->rbytes + w->wbytes;
    if (!w->ncp || w->cp[w->ncp - 1].t_ns != w->t_end || w->cp[w->ncp - 1].bytes != bytes)
        s_checkpoint(w, w->t_end, bytes);
    if (s->verify == RB_VERIFY_CRC32C && s->do_verify && rb_rw_writes(s->rw) &&
        rb_job_uses_files(s) && !rb_rw_reads(s->rw) && !w->status)
        s_verify_back(w);
    __atomic_store_n(&w->finished, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* ---- the phase ---- */

static void s_join_all(rb_phase_t *ph)
{
    for (uint32_t i = 0; i < ph->nworkers; i++) {
        if (ph->w[i].started) {
            pthread_join(ph->w[i].thread, NULL);
            ph->w[i].started = 0;
        }
    }
}

static void s_worker_free(s_worker_t *w)
{
    if (w->eng_ready)
        rb_engine_fini(&w->eng);
    for (uint32_t i = 0; w->files && i < w->nfiles; i++) {
        if (w->files[i].fd < 0)
            continue;
        if (w->spec->fsync_on_close && w->files[i].dirty)
            fsync(w->files[i].fd);
        close(w->files[i].fd);
    }
    for (uint32_t i = 0; w->mdirs && i < w->nmdirs; i++)
        if (w->mdirs[i] >= 0)
            close(w->mdirs[i]);
    free(w->mdirs);
    free(w->files);
    free(w->ios);
    free(w->slots);
    free(w->free);
    free(w->done);
    free(w->bufs);
    free(w->cp);
}

void rb_phase_destroy(rb_phase_t **p)
{
    if (!p || !*p)
        return;
    rb_phase_t *ph = *p;
    rb_phase_stop(ph);
    s_join_all(ph);
    for (uint32_t i = 0; i < ph->nworkers; i++)
        s_worker_free(&ph->w[i]);
    free(ph->w);
    free(ph->acc);
    free(ph->sjobs);
    free(ph->djobs);
    free(ph->dworkers);
    free(ph->target);
    free(ph->sw_sent);
    free(ph);
    *p = NULL;
}

/* Opens a worker's files, sets up its ring, buffers and engine. 0 or -errno. */
static int s_worker_setup(s_worker_t *w, rb_sandbox_t *sb, int rundir, const rb_run_ctx_t *ctx,
                          uint64_t seed, rb_err_t *err)
{
    const rb_job_spec_t *s = w->spec;
    const char *run_id = ctx->run_id;
    if (s->rw == RB_RW_META) {
        /* no engine, no IO ring: one buffer for file contents */
        w->bufs = s_aligned(S_PREFILL_BS);
        w->cp = calloc(RB_MAX_CHECKPTS, sizeof *w->cp);
        if (!w->bufs || !w->cp)
            return rb_err_set(err, -ENOMEM, "job %s: out of memory", s->name);
        rb_rand_seed(&w->rng, seed);
        rb_rand_fill(&w->rng, w->bufs, S_PREFILL_BS);
        return s_meta_setup(w, sb, rundir, run_id, err);
    }
    const rb_engine_ops_t *ops = rb_engine_find(s->ioengine[0] ? s->ioengine : "sync");
    uint32_t depth = s->iodepth ? s->iodepth : 1;
    uint64_t bmax = s->bs_max > s->bs ? s->bs_max : s->bs;
    if (!ops)
        return rb_err_set(err, -ENOENT, "job %s: ioengine=%s is not in this agent (it has %s)",
                          s->name, s->ioengine, rb_engine_names());
    w->nfiles = s->filename[0] ? 1 : (s->nrfiles ? s->nrfiles : 1);
    if (w->nfiles > S_MAX_FILES)
        return rb_err_set(err, -E2BIG, "job %s: %u files per worker", s->name, w->nfiles);
    w->depth = depth;
    w->files = calloc(w->nfiles, sizeof *w->files);
    w->ios = calloc(depth, sizeof *w->ios);
    w->slots = calloc(depth, sizeof *w->slots);
    w->free = calloc(depth, sizeof *w->free);
    w->done = calloc(depth, sizeof *w->done);
    w->bufs = s_aligned((size_t)(depth * bmax));
    w->cp = calloc(RB_MAX_CHECKPTS, sizeof *w->cp);
    if (!w->files || !w->ios || !w->slots || !w->free || !w->done || !w->bufs || !w->cp)
        return rb_err_set(err, -ENOMEM, "job %s: out of memory for %u IOs of %llu bytes", s->name,
                          depth, (unsigned long long)bmax);
    for (uint32_t i = 0; i < w->nfiles; i++)
        w->files[i].fd = -1;
    int fds[64]; /* most workers have a few files: no allocation for them */
    int *fdv = w->nfiles <= 64 ? fds : calloc(w->nfiles, sizeof *fdv);
    if (!fdv)
        return rb_err_set(err, -ENOMEM, "out of memory");
    int reads = rb_rw_reads(s->rw) || (s->verify && s->do_verify);
    int flags = (rb_rw_writes(s->rw) ? (reads ? O_RDWR : O_WRONLY) | O_CREAT : O_RDONLY) |
                (s->direct ? O_DIRECT : 0) |
                (s->sync_mode == RB_SYNC_SYNC    ? O_SYNC
                 : s->sync_mode == RB_SYNC_DSYNC ? O_DSYNC
                                                 : 0);
    int rc = 0;
    const char *peer = rb_run_peer(ctx, s->read_shift);
    for (uint32_t i = 0; i < w->nfiles && rc == 0; i++) {
        char name[RB_NAME_MAX * 2];
        s_file_t *f = &w->files[i];
        rc = s->shared_file ? rb_job_shared_name(s, ctx->lead, name, sizeof name)
                            : rb_job_filename(s, w->index, i, name, sizeof name);
        if (rc < 0) {
            rb_err_set(err, rc, "job %s: bad file name", s->name);
            break;
        }
        snprintf(f->path, sizeof f->path, "%s/%s", rb_sandbox_rundir_path(sb, rundir), name);
        f->hash = rb_verify_hash(name);
        if (!rb_job_uses_files(s)) {
            fdv[i] = -1; /* the null engine moves nothing: no file at all */
            continue;
        }
        if (s->shared_file)
            f->fd = rb_sandbox_open_shared(sb, rundir, ctx->run_id, name, flags, f->path,
                                           sizeof f->path, err);
        else if (peer[0])
            f->fd = rb_sandbox_open_peer(sb, rundir, ctx->run_id, peer, name, flags, f->path,
                                         sizeof f->path, err);
        else
            f->fd = rb_sandbox_open(sb, rundir, name, flags, err);
        rc = f->fd < 0 ? f->fd : 0;
        fdv[i] = f->fd;
        /* As fio: a file to write is sized up front (sparse, nothing
         * allocated), so writes land inside it rather than extending it one
         * block at a time, which serialises direct writes on ext4 and XFS. */
        struct stat st;
        uint64_t end = s->offset + rb_job_filesize(s) * (s->shared_file ? w->nregions : 1);
        if (rc == 0 && rb_rw_writes(s->rw) && fstat(f->fd, &st) == 0 &&
            (uint64_t)st.st_size < end && ftruncate(f->fd, (off_t)end) < 0)
            rc = rb_err_set(err, -errno, "size %s to %llu bytes: %s", f->path,
                            (unsigned long long)end, strerror(errno));
    }
    if (rc == 0) {
        rb_rand_seed(&w->rng, seed);
        if (s->buffer_mode == RB_BUF_RANDOM)
            rb_rand_fill(&w->rng, w->bufs, (size_t)(depth * bmax));
        else if (s->buffer_mode == RB_BUF_PATTERN && s->pattern_len)
            for (uint64_t i = 0; i < depth * bmax; i++)
                ((uint8_t *)w->bufs)[i] = s->pattern[i % s->pattern_len];
        else
            memset(w->bufs, 0, (size_t)(depth * bmax));
        for (uint32_t i = 0; i < depth; i++) {
            w->slots[i].base = (char *)w->bufs + i * bmax;
            w->ios[i].runner = &w->slots[i];
            w->ios[i].buf_index = i;
            w->free[w->nfree++] = &w->ios[i];
        }
        rc = rb_engine_init(&w->eng, ops, depth);
        if (rc < 0)
            rb_err_set(err, rc, "job %s: ioengine=%s: %s", s->name, ops->name,
                       rc == -ENOSYS  ? "not supported by this kernel"
                       : rc == -EPERM ? "disabled on this host"
                                      : strerror(-rc));
        else
            w->eng_ready = 1;
    }
    if (rc == 0 && ops->setup) {
        rb_engine_res_t res = {
            .fds = fdv, .nfds = w->nfiles, .bufs = w->bufs, .nbufs = depth, .buf_len = bmax};
        rc = ops->setup(&w->eng, &res);
        if (rc < 0)
            rb_err_set(err, rc, "job %s: ioengine=%s setup: %s", s->name, ops->name, strerror(-rc));
    }
    if (fdv != fds)
        free(fdv);
    if (rc < 0)
        return rc;
    w->unit_per_file = rb_job_filesize(s) / s->bs;
    if (ctx->caps && ctx->caps[w->job] && ctx->caps[w->job] < w->unit_per_file)
        w->unit_per_file = ctx->caps[w->job]; /* only what a stonewalled write left */
    w->units = w->unit_per_file * w->nfiles;
    if (w->units == 0)
        return rb_err_set(err, -EINVAL, "job %s: files smaller than one block", s->name);
    return 0;
}

rb_phase_t *rb_phase_start(const rb_phase_spec_t *spec, uint32_t index, rb_sandbox_t *sb,
                           const int *rundirs, const rb_run_ctx_t *ctx, uint64_t t_go_ns,
                           rb_err_t *err)
{
    rb_phase_t *ph = calloc(1, sizeof *ph);
    if (!ph) {
        rb_err_set(err, -ENOMEM, "out of memory");
        return NULL;
    }
    ph->spec = spec;
    ph->index = index;
    ph->t_go = t_go_ns;
    ph->t_last_sample = t_go_ns;
    uint32_t n = 0;
    for (uint32_t j = 0; j < spec->njobs; j++)
        n += spec->jobs[j].numjobs;
    ph->nworkers = n;
    ph->w = calloc(n ? n : 1, sizeof *ph->w);
    ph->acc = calloc(spec->njobs ? spec->njobs : 1, sizeof *ph->acc);
    ph->sjobs = calloc(spec->njobs ? spec->njobs : 1, sizeof *ph->sjobs);
    ph->djobs = calloc(spec->njobs ? spec->njobs : 1, sizeof *ph->djobs);
    ph->dworkers = calloc(n ? n : 1, sizeof *ph->dworkers);
    ph->target = calloc(spec->njobs ? spec->njobs : 1, sizeof *ph->target);
    ph->sw_sent = calloc(spec->njobs ? spec->njobs : 1, sizeof *ph->sw_sent);
    if (!ph->w || !ph->acc || !ph->sjobs || !ph->djobs || !ph->dworkers || !ph->target ||
        !ph->sw_sent) {
        rb_err_set(err, -ENOMEM, "out of memory for %u workers", n);
        rb_phase_destroy(&ph);
        return NULL;
    }
    for (uint32_t j = 0; j < spec->njobs; j++) {
        rb_hist_init(&ph->acc[j].hprev);
        rb_hist_init(&ph->acc[j].total);
        ph->target[j] = UINT64_MAX;
    }
    uint64_t run_hash = rb_verify_hash(ctx->run_id);
    uint32_t nnodes = ctx->nnodes ? ctx->nnodes : 1;
    uint32_t k = 0;
    for (uint32_t j = 0; j < spec->njobs; j++) {
        const rb_job_spec_t *js = &spec->jobs[j];
        for (uint32_t i = 0; i < js->numjobs; i++, k++) {
            s_worker_t *w = &ph->w[k];
            w->ph = ph;
            w->spec = js;
            w->job = j;
            w->index = i;
            w->cp_step = S_CP_STEP0_NS;
            w->run_hash = run_hash;
            /* Whose data: a shared file's regions are numbered node by node;
             * a read from K nodes on gets that node's worker's data. */
            w->nregions = rb_job_region_count(js, nnodes);
            w->node_tag = ctx->rank + 1;
            uint32_t src = (uint32_t)((ctx->rank + (uint64_t)js->read_shift) % nnodes);
            if (js->shared_file)
                w->region = (uint32_t)(((uint64_t)ctx->rank * js->numjobs + i +
                                        (uint64_t)js->read_shift * js->numjobs) %
                                       w->nregions);
            else
                w->region = i;
            w->expect = src + 1;
            rb_hist_init(&w->hist);
            /* randrepeat: the same sequence every run; else a new one. */
            uint64_t seed = js->randseed ^ rb_verify_hash(js->name) ^ ((uint64_t)i * 0x9e37u);
            if (!js->randrepeat)
                seed ^= rb_wall_ns();
            if (s_worker_setup(w, sb, rundirs[j], ctx, seed, err) < 0) {
                ph->nworkers = k + 1;
                rb_phase_destroy(&ph);
                return NULL;
            }
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        int rc = pthread_create(&ph->w[i].thread, NULL, s_worker_main, &ph->w[i]);
        if (rc != 0) {
            rb_err_set(err, -rc, "cannot start worker %u of %u: %s", i, n, strerror(rc));
            rb_phase_destroy(&ph);
            return NULL;
        }
        ph->w[i].started = 1;
    }
    return ph;
}

uint32_t rb_phase_index(const rb_phase_t *ph)
{
    return ph->index;
}

int rb_phase_finished(rb_phase_t *ph)
{
    for (uint32_t i = 0; i < ph->nworkers; i++)
        if (!__atomic_load_n(&ph->w[i].finished, __ATOMIC_ACQUIRE))
            return 0;
    return 1;
}

void rb_phase_stop(rb_phase_t *ph)
{
    S_STORE(&ph->stop, 1);
}

/* Adds a worker's live counters into a job stat. */
static void s_add_live(rb_job_stat_t *js, s_worker_t *w)
{
    uint64_t rb = S_LOAD(&w->rbytes), ro = S_LOAD(&w->rops);
    js->bytes += rb + S_LOAD(&w->wbytes);
    js->ops += ro + S_LOAD(&w->wops);
    js->read_bytes += rb;
    js->read_ops += ro;
    js->errors += S_LOAD(&w->errors);
    js->verify_errors += S_LOAD(&w->verify_errors);
}

void rb_phase_sample(rb_phase_t *ph, const char *run_id, rb_msg_sample_t *out)
{
    const rb_phase_spec_t *spec = ph->spec;
    uint64_t now = rb_mono_ns();
    memset(out, 0, sizeof *out);
    snprintf(out->run_id, sizeof out->run_id, "%s", run_id);
    out->phase = ph->index;
    out->seq = ph->sample_seq++;
    out->t_start_ns = ph->t_last_sample;
    out->t_end_ns = now;
    ph->t_last_sample = now;
    out->njobs = spec->njobs;
    out->jobs = ph->sjobs;
    for (uint32_t j = 0; j < spec->njobs; j++) {
        s_jobacc_t *a = &ph->acc[j];
        rb_job_stat_t cur = {.job = j};
        rb_hist_init(&a->now);
        for (uint32_t i = 0; i < ph->nworkers; i++) {
            s_worker_t *w = &ph->w[i];
            if (w->job != j)
                continue;
            /* Counters first, histogram after: the histogram may run a few IOs
             * ahead, never behind; both catch up exactly in the next sample. */
            s_add_live(&cur, w);
            rb_hist_snapshot(&ph->scratch, &w->hist);
            rb_hist_merge(&a->now, &ph->scratch);
        }
        rb_hist_delta(&a->delta, &a->now, &a->hprev);
        a->hprev = a->now;
        rb_job_stat_t *js = &ph->sjobs[j];
        *js = (rb_job_stat_t){.job = j,
                              .bytes = cur.bytes - a->prev.bytes,
                              .ops = cur.ops - a->prev.ops,
                              .errors = cur.errors - a->prev.errors,
                              .read_bytes = cur.read_bytes - a->prev.read_bytes,
                              .read_ops = cur.read_ops - a->prev.read_ops,
                              .verify_errors = cur.verify_errors - a->prev.verify_errors,
                              .hist = &a->delta};
        a->prev = cur;
    }
}

int rb_phase_stonewalled(rb_phase_t *ph, uint32_t j, uint64_t *max_ops)
{
    if (j >= ph->spec->njobs || ph->sw_sent[j])
        return 0;
    uint64_t most = 0;
    for (uint32_t i = 0; i < ph->nworkers; i++) {
        s_worker_t *w = &ph->w[i];
        if (w->job != j)
            continue;
        uint64_t ops;
        if (__atomic_load_n(&w->finished, __ATOMIC_ACQUIRE))
            ops = w->rops + w->wops;
        else if (__atomic_load_n(&w->sw_wait, __ATOMIC_ACQUIRE))
            ops = w->sw_ops;
        else
            return 0;
        if (ops > most)
            most = ops;
    }
    ph->sw_sent[j] = 1;
    *max_ops = most;
    return 1;
}

void rb_phase_wearout(rb_phase_t *ph, uint32_t j, uint64_t ops)
{
    if (j < ph->spec->njobs)
        __atomic_store_n(&ph->target[j], ops == UINT64_MAX ? ops - 1 : ops, __ATOMIC_RELEASE);
}

int rb_phase_collect(rb_phase_t *ph, const char *run_id, rb_msg_done_t *out)
{
    const rb_phase_spec_t *spec = ph->spec;
    s_join_all(ph);
    memset(out, 0, sizeof *out);
    snprintf(out->run_id, sizeof out->run_id, "%s", run_id);
    out->phase = ph->index;
    out->nworkers = ph->nworkers;
    out->workers = ph->dworkers;
    out->njobs = spec->njobs;
    out->jobs = ph->djobs;
    for (uint32_t j = 0; j < spec->njobs; j++) {
        rb_hist_init(&ph->acc[j].total);
        ph->djobs[j] = (rb_job_stat_t){.job = j, .hist = &ph->acc[j].total};
    }
    for (uint32_t i = 0; i < ph->nworkers; i++) {
        s_worker_t *w = &ph->w[i];
        rb_worker_stat_t *ws = &ph->dworkers[i];
        *ws = (rb_worker_stat_t){.job = w->job,
                                 .worker = w->index,
                                 .t_start_ns = w->t_start,
                                 .t_end_ns = w->t_end,
                                 .bytes = w->rbytes + w->wbytes,
                                 .ops = w->rops + w->wops,
                                 .errors = w->errors,
                                 .read_bytes = w->rbytes,
                                 .read_ops = w->rops,
                                 .verify_errors = w->verify_errors,
                                 .ncheckpts = w->ncp,
                                 .checkpts = w->cp,
                                 .sw_t_ns = w->sw_t,
                                 .sw_bytes = w->sw_bytes,
                                 .sw_ops = w->sw_ops};
        rb_job_stat_t *js = &ph->djobs[w->job];
        s_add_live(js, w);
        rb_hist_merge(js->hist, &w->hist);
        if (w->status && !out->status) {
            out->status = w->status;
            snprintf(out->error, sizeof out->error, "%s", w->error);
            snprintf(out->error_path, sizeof out->error_path, "%s", w->error_path);
            out->error_offset = w->error_offset;
        }
    }
    return out->status;
}
