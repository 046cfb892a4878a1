/* fio's per-interval logs from samples.csv (rb_fiolog.h). fio logs every IO,
 * or with log_avg_msec one entry per window; rackbench's agents send one
 * sample per job and sample interval, so an entry here is one sample
 * interval, or the intervals a log_avg_msec window covers: the interval is
 * the finest a log can be. Columns as fio writes a windowed log: time (ms),
 * value, direction (0 read, 1 write, 2 trim), block size 0, priority 0. */
#include "rb_fiolog.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_result.h"

/* The kinds of log: fio's type in the name, and the value of an entry. */
typedef enum { S_BW, S_IOPS, S_LAT, S_NKINDS } s_kind_t;

static const char *const s_type[S_NKINDS] = {"bw", "iops", "lat"};

/* A window's sums, per direction. */
typedef struct s_win {
    double bytes[RB_NDIRS], ops[RB_NDIRS];
    double lat_us_ops[RB_NDIRS]; /* median x ops: the ops-weighted mean of the medians */
    double lat_ops[RB_NDIRS];    /* ops of the intervals that have a median */
    double secs;                 /* the intervals' lengths */
    uint64_t end_ms;             /* the last interval's end, in the log's time */
    int rows;
} s_win_t;

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

static const char *s_prefix(const rb_plan_log_t *l, s_kind_t k)
{
    return k == S_BW ? l->bw : k == S_IOPS ? l->iops : l->lat;
}

static int s_by_node(const void *a, const void *b)
{
    const rb_result_job_row_t *x = a, *y = b;
    int c = strcmp(x->node, y->node);
    return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* The entries of a finished window, one per direction that moved IO. */
static void s_flush(FILE *f, s_kind_t k, const s_win_t *w)
{
    if (!w->rows || w->secs <= 0)
        return;
    for (int d = 0; d < RB_NDIRS; d++) {
        if (w->ops[d] <= 0)
            continue;
        double v;
        if (k == S_BW)
            v = w->bytes[d] / w->secs / 1024.0; /* KiB/s */
        else if (k == S_IOPS)
            v = w->ops[d] / w->secs;
        else if (w->lat_ops[d] > 0)
            v = w->lat_us_ops[d] / w->lat_ops[d] * 1000.0; /* ns */
        else
            continue;
        fprintf(f, "%" PRIu64 ", %" PRIu64 ", %d, 0, 0\n", w->end_ms, (uint64_t)llround(v), d);
    }
}

/* One node's log of kind k from its rows (in time order) into f. */
static void s_write_node(FILE *f, s_kind_t k, const rb_plan_log_t *l,
                         const rb_result_job_row_t *rows, uint32_t n)
{
    /* times from the GO of the job's first phase, as fio's from the job's
     * start (a later iteration goes on from there) */
    const rb_result_job_row_t *first = &rows[0];
    double base_ms = first->utc_ns ? (double)first->utc_ns / 1e6 - first->t_s * 1e3 : 0;
    s_win_t w;
    memset(&w, 0, sizeof w);
    uint64_t key = 0;
    for (uint32_t i = 0; i < n; i++) {
        const rb_result_job_row_t *r = &rows[i];
        if (r->interval_s <= 0)
            continue;
        double ms = !r->utc_ns      ? r->t_s * 1e3
                    : l->unix_epoch ? (double)r->utc_ns / 1e6
                                    : (double)r->utc_ns / 1e6 - base_ms;
        uint64_t t = ms > 0 ? (uint64_t)llround(ms) : 0;
        /* the window an interval falls in, by its end: (k-1)W < t <= kW */
        uint64_t kk = l->avg_ms ? (t + l->avg_ms - 1) / l->avg_ms : i + 1;
        if (w.rows && kk != key) {
            s_flush(f, k, &w);
            memset(&w, 0, sizeof w);
        }
        key = kk;
        for (int d = 0; d < RB_NDIRS; d++) {
            w.bytes[d] += r->bytes[d];
            w.ops[d] += r->ops[d];
            if (r->p50_us[d] > 0) {
                w.lat_us_ops[d] += r->p50_us[d] * r->ops[d];
                w.lat_ops[d] += r->ops[d];
            }
        }
        w.secs += r->interval_s;
        w.end_ms = t;
        w.rows++;
    }
    s_flush(f, k, &w);
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

/* The logs of entry i, from its rows sorted by node. */
static int s_write_entry(const rb_plan_t *plan, uint32_t i, const char *run_dir,
                         rb_result_job_row_t *rows, uint32_t n, rb_err_t *err)
{
    const rb_plan_log_t *l = &plan->logs[i];
    qsort(rows, n, sizeof *rows, s_by_node);
    for (uint32_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && strcmp(rows[b].node, rows[a].node) == 0; b++)
            ;
        for (s_kind_t k = 0; k < S_NKINDS; k++) {
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
            s_write_node(f, k, l, &rows[a], b - a);
            if (fclose(f) != 0)
                return rb_err_set(err, -EIO, "%s: %s", path, strerror(errno));
        }
    }
    return 0;
}

int rb_fiolog_write(const rb_plan_t *plan, const char *run_dir, rb_err_t *err)
{
    for (uint32_t i = 0; i < plan->nlogs; i++) {
        rb_result_job_row_t *rows = NULL;
        uint32_t n = 0;
        int rc = rb_result_samples_job_rows(run_dir, plan->logs[i].job, &rows, &n);
        if (rc == -ENOENT)
            return 0; /* no samples.csv: nothing to log */
        if (rc < 0)
            return rb_err_set(err, rc, "%s/samples.csv: %s", run_dir, strerror(-rc));
        rc = s_write_entry(plan, i, run_dir, rows, n, err);
        free(rows);
        if (rc < 0)
            return rc;
    }
    return 0;
}
