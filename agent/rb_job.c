/* Runs one phase's workers and turns their counters into samples and totals. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rb_engine.h"
#include "rb_job.h"
#include "rb_rand.h"
#include "rb_time.h"

#define S_ALIGN       4096
#define S_CP_STEP0_NS (1 * RB_NS_PER_MS) /* first spacing of progress checkpoints */
#define S_PREFILL_BS  (1u << 20)

#define S_LOAD(p)     __atomic_load_n((p), __ATOMIC_RELAXED)
#define S_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

typedef struct s_worker {
    rb_phase_t *ph;            /* owning phase (stop flag, go time) */
    const rb_job_spec_t *spec; /* borrowed from the phase spec */
    uint32_t job;              /* index of spec in the phase */
    uint32_t index;            /* 0 .. numjobs-1 */
    int fd;                    /* the worker's file */
    char path[RB_PATH_MAX];    /* for messages */
    void *buf;                 /* S_ALIGN-aligned, bs bytes */
    uint64_t seed;             /* for buffer contents */
    pthread_t thread;
    int started; /* thread was created */
    /* live, written by the worker, read by the sampler (relaxed atomics) */
    uint64_t bytes, ops, errors;
    int finished;   /* release-stored 1 at the end */
    rb_hist_t hist; /* per-IO latency, ns */
    /* results, read after join */
    uint64_t t_start, t_end;
    int status; /* 0 or -errno */
    char error[RB_REASON_MAX];
    rb_checkpt_t *cp; /* RB_MAX_CHECKPTS entries */
    uint32_t ncp;
    uint64_t cp_step; /* current checkpoint spacing, ns */
} s_worker_t;

typedef struct s_jobacc {
    uint64_t bytes, ops, errors; /* totals at the previous sample */
    rb_hist_t prev;              /* merged histogram at the previous sample */
    rb_hist_t now;               /* scratch: merged histogram now */
    rb_hist_t delta;             /* sent in the sample */
    rb_hist_t total;             /* final, sent in DONE */
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
    rb_job_stat_t *sjobs;       /* sample arrays, spec->njobs */
    rb_job_stat_t *djobs;       /* done arrays, spec->njobs */
    rb_worker_stat_t *dworkers; /* done array, nworkers */
};

int rb_job_filename(const rb_job_spec_t *job, uint32_t worker, char *out, size_t len)
{
    const char *f = job->filename_format[0] ? job->filename_format : "$jobname.$jobnum.$filenum";
    size_t o = 0;
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
            snprintf(piece, sizeof piece, "0");
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

static void *s_aligned(size_t len)
{
    void *p = NULL;
    return posix_memalign(&p, S_ALIGN, len ? len : S_ALIGN) == 0 ? p : NULL;
}

int rb_job_prefill(rb_sandbox_t *sb, int rundir, const char *name, uint64_t size, int direct,
                   uint64_t *written, rb_err_t *err)
{
    int64_t have = rb_sandbox_file_size(sb, rundir, name);
    if (have >= 0 && (uint64_t)have >= size)
        return 0;
    uint64_t from = have > 0 ? (uint64_t)have & ~(uint64_t)(S_ALIGN - 1) : 0;
    int fd = rb_sandbox_open(sb, rundir, name, O_WRONLY | O_CREAT | (direct ? O_DIRECT : 0), err);
    if (fd < 0)
        return fd;
    void *buf = s_aligned(S_PREFILL_BS);
    if (!buf) {
        close(fd);
        return rb_err_set(err, -ENOMEM, "prefill %s: out of memory", name);
    }
    rb_rand_t r;
    rb_rand_seed(&r, rb_mono_ns() ^ (uint64_t)(uintptr_t)name);
    int rc = 0;
    for (uint64_t off = from; off < size;) {
        uint64_t n = size - off < S_PREFILL_BS ? size - off : S_PREFILL_BS;
        rb_rand_fill(&r, buf, n);
        ssize_t got = pwrite(fd, buf, n, (off_t)off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            rc = rb_err_set(err, got < 0 ? -errno : -EIO, "prefill %s/%s at offset %llu: %s",
                            rb_sandbox_rundir_path(sb, rundir), name, (unsigned long long)off,
                            got < 0 ? strerror(errno) : "no progress");
            break;
        }
        off += (uint64_t)got;
        *written += (uint64_t)got;
    }
    if (rc == 0 && fsync(fd) < 0)
        rc = rb_err_set(err, -errno, "prefill %s: fsync: %s", name, strerror(errno));
    /* The read phase must find the data on disk, not in this node's page cache. */
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    free(buf);
    close(fd);
    return rc;
}

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
}

static void s_fail(s_worker_t *w, int code, uint64_t off, int64_t got)
{
    w->status = code;
    const char *op = w->spec->rw == RB_RW_READ ? "read" : "write";
    if (got < 0)
        snprintf(w->error, sizeof w->error, "%s %s at offset %llu: %s", op, w->path,
                 (unsigned long long)off, strerror((int)-got));
    else
        snprintf(w->error, sizeof w->error, "short %s on %s at offset %llu: %lld of %llu bytes", op,
                 w->path, (unsigned long long)off, (long long)got, (unsigned long long)w->spec->bs);
}

static void *s_worker_main(void *arg)
{
    s_worker_t *w = arg;
    rb_phase_t *ph = w->ph;
    const rb_job_spec_t *s = w->spec;
    rb_engine_t eng;
    int rc = rb_engine_init(&eng, rb_engine_find("sync"), 1);
    if (rc < 0) {
        w->status = rc;
        snprintf(w->error, sizeof w->error, "engine sync: %s", strerror(-rc));
        __atomic_store_n(&w->finished, 1, __ATOMIC_RELEASE);
        return NULL;
    }
    const uint64_t nblocks = s->size / s->bs;
    const rb_io_dir_t dir = s->rw == RB_RW_READ ? RB_IO_READ : RB_IO_WRITE;
    uint64_t *tag = w->buf; /* first 16 bytes of each written block differ */
    uint64_t bytes = 0, ops = 0, deadline = UINT64_MAX, last_cp = 0, pass = 0, blk = 0;
    rb_io_t io = {.fd = w->fd, .dir = dir, .buf = w->buf, .len = s->bs};

    rb_sleep_until_ns(ph->t_go);
    w->t_start = w->t_end = rb_mono_ns();
    if (s->runtime_ns)
        deadline = w->t_start + s->runtime_ns;
    s_checkpoint(w, w->t_start, 0);
    last_cp = w->t_start;

    while (!S_LOAD(&ph->stop)) {
        if (blk == nblocks) {
            if (!s->time_based)
                break;
            blk = 0;
            pass++;
        }
        io.off = blk * s->bs;
        if (dir == RB_IO_WRITE) {
            tag[0] = io.off;
            tag[1] = w->seed ^ pass;
        }
        uint64_t t0 = rb_mono_ns();
        io.t_issue_ns = t0;
        rc = eng.ops->queue(&eng, &io);
        if (rc == RB_Q_QUEUED || rc == RB_Q_BUSY) {
            rb_io_t *done[1];
            rc = eng.ops->commit(&eng);
            if (rc >= 0)
                rc = eng.ops->getevents(&eng, 1, 1, done);
        }
        uint64_t t1 = rb_mono_ns();
        if (rc < 0 || io.result != (int64_t)s->bs) {
            int64_t got = rc < 0 ? rc : io.result;
            S_STORE(&w->errors, S_LOAD(&w->errors) + 1);
            s_fail(w, got < 0 ? (int)got : -EIO, io.off, got);
            break;
        }
        rb_hist_record(&w->hist, t1 - t0);
        bytes += s->bs;
        ops++;
        S_STORE(&w->bytes, bytes);
        S_STORE(&w->ops, ops);
        w->t_end = t1;
        if (t1 - last_cp >= w->cp_step) {
            s_checkpoint(w, t1, bytes);
            last_cp = t1;
        }
        blk++;
        if (t1 >= deadline)
            break;
    }
    if (w->cp[w->ncp - 1].t_ns != w->t_end || w->cp[w->ncp - 1].bytes != bytes)
        s_checkpoint(w, w->t_end, bytes);
    rb_engine_fini(&eng);
    __atomic_store_n(&w->finished, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void s_join_all(rb_phase_t *ph)
{
    for (uint32_t i = 0; i < ph->nworkers; i++) {
        if (ph->w[i].started) {
            pthread_join(ph->w[i].thread, NULL);
            ph->w[i].started = 0;
        }
    }
}

void rb_phase_destroy(rb_phase_t **p)
{
    if (!p || !*p)
        return;
    rb_phase_t *ph = *p;
    rb_phase_stop(ph);
    s_join_all(ph);
    for (uint32_t i = 0; i < ph->nworkers; i++) {
        if (ph->w[i].fd >= 0)
            close(ph->w[i].fd);
        free(ph->w[i].buf);
        free(ph->w[i].cp);
    }
    free(ph->w);
    free(ph->acc);
    free(ph->sjobs);
    free(ph->djobs);
    free(ph->dworkers);
    free(ph);
    *p = NULL;
}

rb_phase_t *rb_phase_start(const rb_phase_spec_t *spec, uint32_t index, rb_sandbox_t *sb,
                           const int *rundirs, uint64_t t_go_ns, rb_err_t *err)
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
    if (!ph->w || !ph->acc || !ph->sjobs || !ph->djobs || !ph->dworkers) {
        rb_err_set(err, -ENOMEM, "out of memory for %u workers", n);
        rb_phase_destroy(&ph);
        return NULL;
    }
    for (uint32_t j = 0; j < spec->njobs; j++) {
        rb_hist_init(&ph->acc[j].prev);
        rb_hist_init(&ph->acc[j].total);
    }
    uint32_t k = 0;
    for (uint32_t j = 0; j < spec->njobs; j++) {
        const rb_job_spec_t *js = &spec->jobs[j];
        for (uint32_t i = 0; i < js->numjobs; i++, k++) {
            s_worker_t *w = &ph->w[k];
            char name[RB_NAME_MAX * 2];
            w->ph = ph;
            w->spec = js;
            w->job = j;
            w->index = i;
            w->fd = -1;
            w->cp_step = S_CP_STEP0_NS;
            rb_hist_init(&w->hist);
            if (rb_job_filename(js, i, name, sizeof name) < 0) {
                rb_err_set(err, -EINVAL, "job %s: bad file name format '%s'", js->name,
                           js->filename_format);
                rb_phase_destroy(&ph);
                return NULL;
            }
            snprintf(w->path, sizeof w->path, "%s/%s", rb_sandbox_rundir_path(sb, rundirs[j]),
                     name);
            int flags = (js->rw == RB_RW_READ ? O_RDONLY : O_WRONLY | O_CREAT) |
                        (js->direct ? O_DIRECT : 0);
            w->fd = rb_sandbox_open(sb, rundirs[j], name, flags, err);
            w->buf = s_aligned(js->bs);
            w->cp = calloc(RB_MAX_CHECKPTS, sizeof *w->cp);
            if (w->fd < 0 || !w->buf || !w->cp) {
                if (w->fd >= 0)
                    rb_err_set(err, -ENOMEM, "out of memory for job %s", js->name);
                rb_phase_destroy(&ph);
                return NULL;
            }
            w->seed = rb_mono_ns() ^ ((uint64_t)k << 32);
            if (js->rw == RB_RW_WRITE) {
                rb_rand_t r;
                rb_rand_seed(&r, w->seed);
                rb_rand_fill(&r, w->buf, js->bs);
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
        uint64_t bytes = 0, ops = 0, errors = 0;
        rb_hist_init(&a->now);
        for (uint32_t i = 0; i < ph->nworkers; i++) {
            s_worker_t *w = &ph->w[i];
            if (w->job != j)
                continue;
            /* Counters first, histogram after: the histogram may run a few IOs
             * ahead, never behind; both catch up exactly in the next sample. */
            bytes += S_LOAD(&w->bytes);
            ops += S_LOAD(&w->ops);
            errors += S_LOAD(&w->errors);
            rb_hist_snapshot(&ph->scratch, &w->hist);
            rb_hist_merge(&a->now, &ph->scratch);
        }
        rb_hist_delta(&a->delta, &a->now, &a->prev);
        a->prev = a->now;
        rb_job_stat_t *js = &ph->sjobs[j];
        js->job = j;
        js->bytes = bytes - a->bytes;
        js->ops = ops - a->ops;
        js->errors = errors - a->errors;
        js->hist = &a->delta;
        a->bytes = bytes;
        a->ops = ops;
        a->errors = errors;
    }
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
                                 .bytes = w->bytes,
                                 .ops = w->ops,
                                 .errors = w->errors,
                                 .ncheckpts = w->ncp,
                                 .checkpts = w->cp};
        rb_job_stat_t *js = &ph->djobs[w->job];
        js->bytes += w->bytes;
        js->ops += w->ops;
        js->errors += w->errors;
        rb_hist_merge(js->hist, &w->hist);
        if (w->status && !out->status) {
            out->status = w->status;
            snprintf(out->error, sizeof out->error, "%s", w->error);
        }
    }
    return out->status;
}
