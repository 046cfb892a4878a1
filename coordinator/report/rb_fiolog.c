/* fio's per-interval logs from samples.csv and latency.csv (rb_fiolog.h).
 * fio logs every IO, or with log_avg_msec one entry per window; rackbench's
 * agents send one sample per job and sample interval, so an entry here is
 * one sample interval, or the intervals a window covers: the interval is the
 * finest a log can be. Columns as fio writes a windowed log: time (ms),
 * value, direction (0 read, 1 write, 2 trim), block size 0, offset 0 (with
 * log_offset), priority 0. The histogram log is fio's too: time, direction,
 * block size, then fio's clat bins (rb_fiolog_bin). */
#include "rb_fiolog.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_csv.h"
#include "rb_csv_read.h"
#include "rb_hist.h"
#include "rb_result.h"

/* The kinds of log: fio's type in the name, and the value of an entry. */
typedef enum { S_BW, S_IOPS, S_LAT, S_SLAT, S_CLAT, S_HIST, S_NKINDS } s_kind_t;

static const char *const s_type[S_NKINDS] = {"bw", "iops", "lat", "slat", "clat", "clat_hist"};

/* The latency each kind of log gives (rb_lat_kind_t), for S_LAT .. S_HIST. */
static const rb_lat_kind_t s_lat_of[S_NKINDS] = {
    [S_LAT] = RB_LAT_LAT, [S_SLAT] = RB_LAT_SLAT, [S_CLAT] = RB_LAT_CLAT, [S_HIST] = RB_LAT_CLAT};

/* One sample interval of a job on a node: from samples.csv (bytes, ops) or
 * from latency.csv's rows of the interval (the latencies). */
typedef struct s_row {
    char node[RB_NAME_MAX];
    uint32_t seq;                          /* its place among the job's rows */
    double t_s, interval_s;                /* the interval's end after GO, its length */
    uint64_t utc_ns;                       /* the interval's end, UTC ns */
    double bytes[RB_NDIRS], ops[RB_NDIRS]; /* samples.csv's */
    uint64_t n[RB_NDIRS][RB_NLATS];        /* latency.csv's: IOs of each histogram ... */
    uint64_t sum[RB_NDIRS][RB_NLATS];      /* ... their latencies added up, ns ... */
    uint64_t max[RB_NDIRS][RB_NLATS];      /* ... and the largest, ns */
    char *buckets[RB_NDIRS];               /* clat's "INDEX:COUNT ..." (owned), or NULL */
    char phase[RB_NAME_MAX];               /* reading latency.csv: the row's phase */
} s_row_t;

/* A window's sums, per direction. */
typedef struct s_win {
    double bytes[RB_NDIRS], ops[RB_NDIRS];
    double top[RB_NDIRS];             /* log_max_value: the largest interval's rate */
    uint64_t n[RB_NDIRS];             /* latency: IOs, ... */
    uint64_t sum[RB_NDIRS];           /* ... their sum, ns, ... */
    uint64_t max[RB_NDIRS];           /* ... and the largest, ns */
    uint64_t (*bins)[RB_FIOLOG_BINS]; /* the histogram log: fio's bins per direction */
    double secs;                      /* the intervals' lengths */
    uint64_t end_ms;                  /* the last interval's end, in the log's time */
    int rows;
} s_win_t;

_Static_assert(RB_HIST_BITS == 6 && RB_HIST_NBUCKETS >= RB_FIOLOG_BINS,
               "rackbench's histogram buckets are no longer fio's bins");

unsigned rb_fiolog_bin(unsigned bucket)
{
    /* rackbench's buckets are fio's bins (6 bits of a power of two, values
     * below 128 ns exact); fio keeps 29 groups and clamps above them */
    return bucket < RB_FIOLOG_BINS - 1 ? bucket : RB_FIOLOG_BINS - 1;
}

char *rb_fiolog_name(const rb_plan_log_t *l, const char *prefix, const char *type, const char *node,
                     char *buf, size_t len)
{
    int n = l->per_job
                ? snprintf(buf, len, "%s_%s.%" PRIu32 ".%s.log", prefix, type, l->number, node)
                : snprintf(buf, len, "%s_%s.%s.log", prefix, type, node);
    if (n < 0 || (size_t)n >= len)
        return NULL;
    /* a node's name never holds '/' (rb_names.h); a file name never will */
    for (char *c = buf; *c; c++)
        if (*c == '/')
            *c = '_';
    return buf;
}

int rb_fiolog_wants_latency(const rb_plan_t *plan, const char *job)
{
    for (uint32_t i = 0; i < plan->nlogs; i++) {
        const rb_plan_log_t *l = &plan->logs[i];
        if ((l->lat[0] || l->hist[0]) && (!job || strcmp(l->job, job) == 0))
            return 1;
    }
    return 0;
}

static const char *s_prefix(const rb_plan_log_t *l, s_kind_t k)
{
    return k == S_BW ? l->bw : k == S_IOPS ? l->iops : k == S_HIST ? l->hist : l->lat;
}

static int s_by_node(const void *a, const void *b)
{
    const s_row_t *x = a, *y = b;
    int c = strcmp(x->node, y->node);
    return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* Adds a row's clat buckets of direction d ("INDEX:COUNT ...") into fio's bins. */
static void s_add_buckets(uint64_t *bins, const char *text)
{
    for (const char *p = text; p && *p;) {
        char *end;
        unsigned long i = strtoul(p, &end, 10);
        if (end == p || *end != ':')
            return; /* not a bucket: the rest of a torn field */
        p = end + 1;
        uint64_t c = strtoull(p, &end, 10);
        if (end == p)
            return;
        if (i < RB_HIST_NBUCKETS)
            bins[rb_fiolog_bin((unsigned)i)] += c;
        p = end + strspn(end, " ");
    }
}

/* The entries of a finished window, one per direction that moved IO (of
 * the kind's latency: a sync engine's slat has none). */
static void s_flush(FILE *f, s_kind_t k, const rb_plan_log_t *l, const s_win_t *w)
{
    if (!w->rows || w->secs <= 0)
        return;
    for (int d = 0; d < RB_NDIRS; d++) {
        if (k == S_HIST) {
            uint64_t total = 0;
            for (unsigned b = 0; b < RB_FIOLOG_BINS; b++)
                total += w->bins[d][b];
            if (!total)
                continue;
            fprintf(f, "%" PRIu64 ", %d, %" PRIu64, w->end_ms, d, l->bs[d]);
            unsigned stride = 1u << l->coarseness;
            for (unsigned b = 0; b < RB_FIOLOG_BINS; b += stride) {
                uint64_t c = 0;
                for (unsigned j = b; j < b + stride; j++)
                    c += w->bins[d][j];
                fprintf(f, ", %" PRIu64, c);
            }
            fputc('\n', f);
            continue;
        }
        double v;
        if (k == S_BW || k == S_IOPS) {
            if (w->ops[d] <= 0)
                continue;
            v = l->max_value ? w->top[d]
                : k == S_BW  ? w->bytes[d] / w->secs / 1024.0 /* KiB/s */
                             : w->ops[d] / w->secs;
        } else {
            if (!w->n[d])
                continue;
            v = l->max_value ? (double)w->max[d] : (double)w->sum[d] / (double)w->n[d]; /* ns */
        }
        /* a windowed entry's block size and offset are 0, as fio's */
        fprintf(f, "%" PRIu64 ", %" PRIu64 ", %d, 0, %s0\n", w->end_ms, (uint64_t)llround(v), d,
                l->offset ? "0, " : "");
    }
}

/* Empties w, keeping its bins' memory. */
static void s_win_clear(s_win_t *w)
{
    uint64_t(*bins)[RB_FIOLOG_BINS] = w->bins;
    memset(w, 0, sizeof *w);
    if (bins)
        memset(bins, 0, RB_NDIRS * sizeof *bins);
    w->bins = bins;
}

/* Adds row r to window w for a log of kind k. */
static void s_win_add(s_win_t *w, s_kind_t k, const s_row_t *r)
{
    for (int d = 0; d < RB_NDIRS; d++) {
        w->bytes[d] += r->bytes[d];
        w->ops[d] += r->ops[d];
        double rate = k == S_BW ? r->bytes[d] / r->interval_s / 1024.0 : r->ops[d] / r->interval_s;
        if (rate > w->top[d])
            w->top[d] = rate;
        if (k >= S_LAT) {
            rb_lat_kind_t lk = s_lat_of[k];
            w->n[d] += r->n[d][lk];
            w->sum[d] += r->sum[d][lk];
            if (r->max[d][lk] > w->max[d])
                w->max[d] = r->max[d][lk];
        }
        if (k == S_HIST && r->buckets[d])
            s_add_buckets(w->bins[d], r->buckets[d]);
    }
    w->secs += r->interval_s;
    w->rows++;
}

/* One node's log of kind k from its rows (in time order) into f. */
static int s_write_node(FILE *f, s_kind_t k, const rb_plan_log_t *l, const s_row_t *rows,
                        uint32_t n)
{
    /* fio writes no histogram entry without log_hist_msec */
    if (k == S_HIST && !l->hist_ms)
        return 0;
    uint64_t win_ms = k == S_HIST ? l->hist_ms : l->avg_ms;
    /* times from the GO of the job's first phase, as fio's from the job's
     * start (a later iteration goes on from there) */
    const s_row_t *first = &rows[0];
    double base_ms = first->utc_ns ? (double)first->utc_ns / 1e6 - first->t_s * 1e3 : 0;
    s_win_t w;
    memset(&w, 0, sizeof w);
    if (k == S_HIST && !(w.bins = calloc(RB_NDIRS, sizeof *w.bins)))
        return -ENOMEM;
    uint64_t key = 0;
    for (uint32_t i = 0; i < n; i++) {
        const s_row_t *r = &rows[i];
        if (r->interval_s <= 0)
            continue;
        double ms = !r->utc_ns      ? r->t_s * 1e3
                    : l->unix_epoch ? (double)r->utc_ns / 1e6
                                    : (double)r->utc_ns / 1e6 - base_ms;
        uint64_t t = ms > 0 ? (uint64_t)llround(ms) : 0;
        /* the window an interval falls in, by its end: (k-1)W < t <= kW */
        uint64_t kk = win_ms ? (t + win_ms - 1) / win_ms : i + 1;
        if (w.rows && kk != key) {
            s_flush(f, k, l, &w);
            s_win_clear(&w);
        }
        key = kk;
        s_win_add(&w, k, r);
        w.end_ms = t;
    }
    s_flush(f, k, l, &w);
    free(w.bins);
    return 0;
}

/* 1 when an entry before plan->logs[i] writes the same file of kind k for
 * node (jobs of one prefix without per_job_logs share it): append. */
static int s_shared(const rb_plan_t *plan, uint32_t i, s_kind_t k, const char *node,
                    const char *name)
{
    char other[PATH_MAX];
    for (uint32_t j = 0; j < i; j++) {
        const rb_plan_log_t *o = &plan->logs[j];
        if (s_prefix(o, k)[0] &&
            rb_fiolog_name(o, s_prefix(o, k), s_type[k], node, other, sizeof other) &&
            strcmp(other, name) == 0)
            return 1;
    }
    return 0;
}

/* The logs of kinds [k0, k1) of entry i, from its rows sorted by node. */
static int s_write_entry(const rb_plan_t *plan, uint32_t i, const char *run_dir, s_row_t *rows,
                         uint32_t n, s_kind_t k0, s_kind_t k1, rb_err_t *err)
{
    const rb_plan_log_t *l = &plan->logs[i];
    if (n > 1)
        qsort(rows, n, sizeof *rows, s_by_node);
    for (uint32_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && strcmp(rows[b].node, rows[a].node) == 0; b++)
            ;
        for (s_kind_t k = k0; k < k1; k++) {
            const char *prefix = s_prefix(l, k);
            char name[PATH_MAX], path[2 * PATH_MAX];
            if (!prefix[0])
                continue;
            if (!rb_fiolog_name(l, prefix, s_type[k], rows[a].node, name, sizeof name))
                return rb_err_set(err, -ENAMETOOLONG, "job '%s': its %s log's name is too long",
                                  l->job, s_type[k]);
            snprintf(path, sizeof path, "%s/%s", run_dir, name);
            FILE *f = fopen(path, s_shared(plan, i, k, rows[a].node, name) ? "ae" : "we");
            if (!f)
                return rb_err_set(err, -errno, "%s: %s", path, strerror(errno));
            int rc = s_write_node(f, k, l, &rows[a], b - a);
            if (fclose(f) != 0 || rc < 0)
                return rb_err_set(err, rc < 0 ? rc : -EIO, "%s: %s", path,
                                  strerror(rc < 0 ? -rc : errno));
        }
    }
    return 0;
}

static void s_rows_free(s_row_t *rows, uint32_t n)
{
    for (uint32_t i = 0; rows && i < n; i++)
        for (int d = 0; d < RB_NDIRS; d++)
            free(rows[i].buckets[d]);
    free(rows);
}

/* Job's rows of samples.csv as s_row_t. 0 or -errno (-ENOENT without it). */
static int s_samples_rows(const char *run_dir, const char *job, s_row_t **out, uint32_t *nout)
{
    rb_result_job_row_t *rows = NULL;
    uint32_t n = 0;
    *out = NULL;
    *nout = 0;
    int rc = rb_result_samples_job_rows(run_dir, job, &rows, &n);
    if (rc < 0 || !n)
        return rc;
    s_row_t *o = calloc(n, sizeof *o);
    if (!o) {
        free(rows);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        memcpy(o[i].node, rows[i].node, sizeof o[i].node);
        o[i].seq = rows[i].seq;
        o[i].t_s = rows[i].t_s;
        o[i].interval_s = rows[i].interval_s;
        o[i].utc_ns = rows[i].utc_ns;
        memcpy(o[i].bytes, rows[i].bytes, sizeof o[i].bytes);
        memcpy(o[i].ops, rows[i].ops, sizeof o[i].ops);
    }
    free(rows);
    *out = o;
    *nout = n;
    return 0;
}

/* The next row of out (grown as needed), zeroed; NULL on -ENOMEM. */
static s_row_t *s_row_new(s_row_t **out, uint32_t *n, uint32_t *cap)
{
    if (*n == *cap) {
        uint32_t want = *cap ? 2 * *cap : 256;
        s_row_t *grown = realloc(*out, want * sizeof *grown);
        if (!grown)
            return NULL;
        *out = grown;
        *cap = want;
    }
    s_row_t *r = &(*out)[(*n)++];
    memset(r, 0, sizeof *r);
    r->seq = *n - 1;
    return r;
}

/* Index of name among names (count of them), or -1. */
static int s_lookup(const char *name, const char *(*namer)(int), int count)
{
    for (int i = 0; i < count; i++)
        if (strcmp(namer(i), name) == 0)
            return i;
    return -1;
}

static const char *s_dir_name(int d)
{
    return rb_dir_name((rb_dir_t)d);
}

static const char *s_kind_name(int k)
{
    return rb_lat_kind_name((rb_lat_kind_t)k);
}

/* Job's intervals from latency.csv: its lines of one node, phase and
 * interval end make one row. 0 or -errno (-ENOENT without the file). */
static int s_latency_rows(const char *run_dir, const char *job, s_row_t **out, uint32_t *nout)
{
    *out = NULL;
    *nout = 0;
    rb_csv_reader_t c;
    int rc = rb_csv_reader_open(&c, run_dir, &rb_csv_latency);
    if (rc == -ENODATA)
        return 0; /* empty, or not this build's columns: no latency */
    if (rc < 0)
        return rc;
    for (int k = 0; k < RB_CSV_LAT_NCOLS; k++)
        if (c.idx[k] < 0) {
            rb_csv_reader_close(&c);
            return 0; /* a column missing: not this build's file */
        }
    uint32_t cap = 0;
    while (rb_csv_reader_next(&c)) {
        const char *const *fld = c.fld;
        int d = s_lookup(fld[RB_CSV_LAT_DIR], s_dir_name, RB_NDIRS);
        int k = s_lookup(fld[RB_CSV_LAT_KIND], s_kind_name, RB_NLATS);
        if (d < 0 || k < 0 || strcmp(fld[RB_CSV_LAT_JOB], job) != 0)
            continue;
        uint64_t utc = strtoull(fld[RB_CSV_LAT_T_UTC_NS], NULL, 10);
        s_row_t *r = *nout ? &(*out)[*nout - 1] : NULL;
        if (!r || r->utc_ns != utc || strcmp(r->node, fld[RB_CSV_LAT_NODE]) != 0 ||
            strcmp(r->phase, fld[RB_CSV_LAT_PHASE]) != 0) {
            if (!(r = s_row_new(out, nout, &cap))) {
                rc = -ENOMEM;
                break;
            }
            snprintf(r->node, sizeof r->node, "%s", fld[RB_CSV_LAT_NODE]);
            snprintf(r->phase, sizeof r->phase, "%s", fld[RB_CSV_LAT_PHASE]);
            r->utc_ns = utc;
            r->t_s = strtod(fld[RB_CSV_LAT_T_S], NULL);
            r->interval_s = strtod(fld[RB_CSV_LAT_INTERVAL_S], NULL);
        }
        r->n[d][k] = strtoull(fld[RB_CSV_LAT_OPS], NULL, 10);
        r->sum[d][k] = strtoull(fld[RB_CSV_LAT_SUM_NS], NULL, 10);
        r->max[d][k] = strtoull(fld[RB_CSV_LAT_MAX_NS], NULL, 10);
        if (k == RB_LAT_CLAT && !r->buckets[d] &&
            !(r->buckets[d] = strdup(fld[RB_CSV_LAT_BUCKETS]))) {
            rc = -ENOMEM;
            break;
        }
    }
    rb_csv_reader_close(&c);
    if (rc < 0) {
        s_rows_free(*out, *nout);
        *out = NULL;
        *nout = 0;
    }
    return rc;
}

int rb_fiolog_write(const rb_plan_t *plan, const char *run_dir, rb_err_t *err)
{
    for (uint32_t i = 0; i < plan->nlogs; i++) {
        const rb_plan_log_t *l = &plan->logs[i];
        s_row_t *rows = NULL;
        uint32_t n = 0;
        int rc = 0;
        if (l->bw[0] || l->iops[0]) {
            rc = s_samples_rows(run_dir, l->job, &rows, &n);
            if (rc == -ENOENT)
                return 0; /* no samples.csv: nothing to log */
            if (rc < 0)
                return rb_err_set(err, rc, "%s/samples.csv: %s", run_dir, strerror(-rc));
            rc = s_write_entry(plan, i, run_dir, rows, n, S_BW, S_LAT, err);
            s_rows_free(rows, n);
            if (rc < 0)
                return rc;
        }
        if (l->lat[0] || l->hist[0]) {
            rc = s_latency_rows(run_dir, l->job, &rows, &n);
            if (rc == -ENOENT)
                continue; /* no latency.csv: no IO measured */
            if (rc < 0)
                return rb_err_set(err, rc, "%s/%s: %s", run_dir, rb_csv_latency.file,
                                  strerror(-rc));
            rc = s_write_entry(plan, i, run_dir, rows, n, S_LAT, S_NKINDS, err);
            s_rows_free(rows, n);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}
