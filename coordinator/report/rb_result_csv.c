/* Run folders' CSV files read back: samples.csv into per-node series,
 * rates and values, telemetry.csv into the findings (rb_result.h). A run
 * cut off before its DONEs is read by rb_result_cut.c. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "rb_csv.h"
#include "rb_csv_read.h"
#include "rb_findings.h"
#include "rb_json.h"
#include "rb_names.h"
#include "rb_result.h"
#include "rb_time.h"

/* ---- samples.csv ---- */

/* The sample interval a row covers (its start over interval_s), or -1. */
static long s_interval_of(const rb_sample_row_t *r, double interval_s)
{
    return rb_series_interval(r->t_s, r->interval_s, interval_s);
}

int rb_result_samples_series(const char *dir, const char *phase, double interval_s, double **bytes,
                             double **ops, double **secs, uint32_t *n)
{
    *bytes = *ops = *secs = NULL;
    *n = 0;
    rb_csv_reader_t c;
    int rc = rb_csv_reader_open(&c, dir, &rb_csv_samples);
    if (rc < 0)
        return rc;
    uint32_t cap = 0;
    rb_sample_row_t r;
    while (rb_sample_row_next(&c, phase, &r)) {
        long k = s_interval_of(&r, interval_s);
        if (k < 0)
            continue;
        if ((uint32_t)k >= cap) {
            uint32_t nc = rb_series_cap_for(cap, k);
            if ((rc = rb_series_grow(bytes, cap, nc)) < 0 ||
                (rc = rb_series_grow(ops, cap, nc)) < 0 || (rc = rb_series_grow(secs, cap, nc)) < 0)
                break;
            cap = nc;
        }
        (*bytes)[k] += r.bytes;
        (*ops)[k] += r.ops;
        if (r.interval_s > (*secs)[k])
            (*secs)[k] = r.interval_s;
        if ((uint32_t)k + 1 > *n)
            *n = (uint32_t)k + 1;
    }
    rb_csv_reader_close(&c);
    if (rc < 0) {
        free(*bytes);
        free(*ops);
        free(*secs);
        *bytes = *ops = *secs = NULL;
        *n = 0;
    }
    return rc;
}

/* ---- telemetry.csv ---- */

/* The phase's rows of telemetry.csv in f into t, each row's values as
 * rb_findings_tel_row_t takes them. 0 or -ENOMEM. */
static int s_tel_read(const rb_phase_agg_t *a, rb_csv_reader_t *c, double interval_s,
                      rb_findings_tel_series_t *t)
{
    rb_aggregate_name_idx_t *by_name = rb_aggregate_nodes_by_name(a->nodes, a->nnodes);
    int rc = by_name ? 0 : -ENOMEM;
    while (rc == 0 && rb_csv_reader_next(c)) {
        const char *const *fld = c->fld;
        if (strcmp(fld[RB_CSV_TEL_PHASE], a->name) != 0)
            continue;
        uint32_t node = rb_aggregate_node_lookup(by_name, a->nnodes, fld[RB_CSV_TEL_NODE]);
        if (node == a->nnodes)
            continue;
        rb_findings_tel_row_t row = {.kind = fld[RB_CSV_TEL_KIND][0], .name = fld[RB_CSV_TEL_NAME]};
        if (row.kind == 'd') {
            row.parent = fld[RB_CSV_TEL_PARENT];
            row.member = atoi(fld[RB_CSV_TEL_MEMBER]);
            row.rd_bytes = strtoull(fld[RB_CSV_TEL_RD_BYTES], NULL, 10);
            row.wr_bytes = strtoull(fld[RB_CSV_TEL_WR_BYTES], NULL, 10);
            row.util = strtod(fld[RB_CSV_TEL_UTIL_PCT], NULL);
            row.rd = strtod(fld[RB_CSV_TEL_RD_BPS], NULL);
            row.wr = strtod(fld[RB_CSV_TEL_WR_BPS], NULL);
            row.await_ms = strtod(fld[RB_CSV_TEL_AWAIT_MS], NULL);
        } else if (row.kind == 'n') {
            row.speed_bps = strtod(fld[RB_CSV_TEL_SPEED_MBPS], NULL) * 1e6 / 8;
            row.rd = strtod(fld[RB_CSV_TEL_RX_BPS], NULL);
            row.wr = strtod(fld[RB_CSV_TEL_TX_BPS], NULL);
        } else if (row.kind == 'h') {
            row.ncpu = (uint32_t)strtoul(fld[RB_CSV_TEL_NCPU], NULL, 10);
            row.util =
                strtod(fld[RB_CSV_TEL_CPU_USER], NULL) + strtod(fld[RB_CSV_TEL_CPU_SYSTEM], NULL);
        }
        rc = rb_findings_tel_series_add(t, node, strtod(fld[RB_CSV_TEL_T_S], NULL), interval_s,
                                        &row);
    }
    rb_aggregate_name_idx_destroy(by_name);
    return rc;
}

int rb_result_find_from_telemetry(rb_phase_agg_t *a, const rb_phase_spec_t *spec, const char *dir,
                                  double interval_s, const char *const *hosts)
{
    if (interval_s <= 0)
        return 0;
    rb_findings_tel_series_t *t = rb_findings_tel_series_new(a->nnodes, 0);
    if (!t)
        return -ENOMEM;
    rb_csv_reader_t c;
    int rc =
        rb_csv_reader_open(&c, dir, &rb_csv_telemetry) == 0 ? s_tel_read(a, &c, interval_s, t) : 0;
    rb_csv_reader_close(&c);
    if (rc == 0)
        rc = rb_findings_from_tel_series(a, spec, t, interval_s, hosts);
    rb_findings_tel_series_destroy(&t);
    return rc;
}

int rb_result_samples_values(const char *dir, const char *phase, const char *column, double **vals,
                             uint32_t *n)
{
    *vals = NULL;
    *n = 0;
    int col = -1;
    for (uint32_t k = 0; k < rb_csv_samples.ncols; k++)
        if (!strcmp(rb_csv_samples.names[k], column))
            col = (int)k;
    if (col < 0)
        return -ENOENT;
    rb_csv_reader_t c;
    int rc = rb_csv_reader_open(&c, dir, &rb_csv_samples);
    if (rc < 0)
        return rc == -ENODATA ? -ENOENT : rc;
    if (c.idx[col] < 0)
        col = -1; /* a folder written without that column */
    uint32_t cap = 0;
    while (col >= 0 && rb_csv_reader_next(&c)) {
        if (strcmp(c.fld[RB_CSV_SMP_PHASE], phase) != 0)
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            double *v = realloc(*vals, cap * sizeof *v);
            if (!v) {
                rc = -ENOMEM;
                break;
            }
            *vals = v;
        }
        (*vals)[(*n)++] = strtod(c.fld[col], NULL);
    }
    rb_csv_reader_close(&c);
    if (col < 0)
        rc = -ENOENT;
    if (rc < 0) {
        free(*vals);
        *vals = NULL;
        *n = 0;
    }
    return rc;
}

void rb_result_samples_series_free(double **series, uint32_t nnodes)
{
    rb_series_free(series, nnodes);
}

int rb_result_samples_node_series(const char *dir, const char *phase, double interval_s,
                                  const rb_agg_node_t *nodes, uint32_t nnodes, double ***series,
                                  uint32_t *nint, double *point_s)
{
    *series = NULL;
    *nint = 0;
    *point_s = interval_s;
    rb_csv_reader_t c;
    int rc = rb_csv_reader_open(&c, dir, &rb_csv_samples);
    if (rc < 0)
        return rc;
    rb_sample_row_t r;
    rb_series_t *ser = rb_series_new(nnodes, interval_s);
    rb_aggregate_name_idx_t *by_name = rb_aggregate_nodes_by_name(nodes, nnodes);
    rc = ser && by_name ? 0 : -ENOMEM;
    while (rc == 0 && rb_sample_row_next(&c, phase, &r))
        rc = rb_series_add(ser, rb_aggregate_node_lookup(by_name, nnodes, r.node), r.t_s,
                           r.interval_s, r.bytes);
    rb_csv_reader_close(&c);
    rb_aggregate_name_idx_destroy(by_name);
    if (rc == 0)
        rc = rb_series_take(ser, series, nint, point_s);
    rb_series_destroy(&ser);
    return rc;
}

/* Adds one rate to a running summary (Welford's update). */
static void s_rate_add(rb_result_rates_t *s, double v)
{
    if (!s->n || v < s->min)
        s->min = v;
    if (!s->n || v > s->max)
        s->max = v;
    s->n++;
    double d = v - s->mean;
    s->mean += d / (double)s->n;
    s->m2 += d * (v - s->mean);
}

/* One entry's rates in one interval: reads' and writes' bytes/s and ops/s
 * summed over its rows, and how many rows (0: no sample). */
typedef struct s_rate_iv {
    double bw[2], iops[2];
    uint32_t rows;
} s_rate_iv_t;

static void s_rate_iv_add(s_rate_iv_t *iv, const rb_sample_row_t *row)
{
    for (int d = 0; d < 2; d++) {
        iv->bw[d] += row->dir_bytes[d] / row->interval_s;
        iv->iops[d] += row->dir_ops[d] / row->interval_s;
    }
    iv->rows++;
}

/* An interval with rows is one sample of the entry's rates. */
static void s_rate_iv_take(rb_result_dir_rates_t *r, s_rate_iv_t *iv)
{
    if (iv->rows)
        for (int d = 0; d < 2; d++) {
            s_rate_add(&r->bw[d], iv->bw[d]);
            s_rate_add(&r->iops[d], iv->iops[d]);
        }
    memset(iv, 0, sizeof *iv);
}

/* Phase's own sample interval in dir's samples.csv (sample_interval=auto
 * gives each phase its own): the length most of its rows have; 0 without
 * rows. */
static double s_phase_interval(const char *dir, const char *phase)
{
    rb_csv_reader_t c;
    if (rb_csv_reader_open(&c, dir, &rb_csv_samples) < 0)
        return 0;
    rb_lengths_t l = {0};
    rb_sample_row_t r;
    while (rb_sample_row_next(&c, phase, &r))
        rb_lengths_add(&l, r.interval_s);
    rb_csv_reader_close(&c);
    return rb_lengths_mode(&l);
}

int rb_result_samples_rates(const char *dir, const rb_phase_agg_t *a, double interval_s,
                            rb_result_dir_rates_t *jobs, rb_result_dir_rates_t *nodes,
                            rb_result_dir_rates_t *all)
{
    memset(jobs, 0, a->njobs * sizeof *jobs);
    memset(nodes, 0, a->nnodes * sizeof *nodes);
    memset(all, 0, sizeof *all);
    if (!(interval_s > 0))
        interval_s = s_phase_interval(dir, a->name);
    if (!(interval_s > 0))
        return -EINVAL;
    rb_csv_reader_t c;
    int rc = rb_csv_reader_open(&c, dir, &rb_csv_samples);
    if (rc < 0)
        return rc;
    /* a node's rows of one interval (one per job) are one SAMPLE's, written
     * together: its intervals are summed as they come. The jobs' and the
     * phase's sum over nodes, an interval per sample interval of the phase
     * (k-major: [k][job 0 .. njobs - 1, then all]). */
    uint32_t per_k = a->njobs + 1, cap = 0;
    s_rate_iv_t *cur = calloc(a->nnodes ? a->nnodes : 1, sizeof *cur), *ivs = NULL;
    long *cur_k = calloc(a->nnodes ? a->nnodes : 1, sizeof *cur_k);
    rb_aggregate_name_idx_t *by_name = rb_aggregate_nodes_by_name(a->nodes, a->nnodes);
    rc = cur && cur_k && by_name ? 0 : -ENOMEM;
    uint32_t nk = 0;
    rb_sample_row_t r;
    while (rc == 0 && rb_sample_row_next(&c, a->name, &r)) {
        long k = s_interval_of(&r, interval_s);
        if (k < 0 || !(r.interval_s >= interval_s / 2))
            continue; /* a node's last, short interval: no rate of a whole one */
        if ((uint32_t)k >= cap) {
            uint32_t nc = rb_series_cap_for(cap, k);
            s_rate_iv_t *g = realloc(ivs, (size_t)nc * per_k * sizeof *g);
            if (!g) {
                rc = -ENOMEM;
                break;
            }
            memset(g + (size_t)cap * per_k, 0, (size_t)(nc - cap) * per_k * sizeof *g);
            ivs = g;
            cap = nc;
        }
        if ((uint32_t)k + 1 > nk)
            nk = (uint32_t)k + 1;
        uint32_t n = rb_aggregate_node_lookup(by_name, a->nnodes, r.node);
        if (n < a->nnodes) {
            if (cur[n].rows && cur_k[n] != k)
                s_rate_iv_take(&nodes[n], &cur[n]);
            cur_k[n] = k;
            s_rate_iv_add(&cur[n], &r);
        }
        for (uint32_t j = 0; j < a->njobs; j++) {
            if (strcmp(a->jobs[j].name, r.job) == 0) {
                s_rate_iv_add(&ivs[(size_t)k * per_k + j], &r);
                break;
            }
        }
        s_rate_iv_add(&ivs[(size_t)k * per_k + a->njobs], &r);
    }
    rb_csv_reader_close(&c);
    for (uint32_t n = 0; rc == 0 && n < a->nnodes; n++)
        s_rate_iv_take(&nodes[n], &cur[n]);
    for (uint32_t k = 0; rc == 0 && k < nk; k++) {
        for (uint32_t j = 0; j < a->njobs; j++)
            s_rate_iv_take(&jobs[j], &ivs[(size_t)k * per_k + j]);
        s_rate_iv_take(all, &ivs[(size_t)k * per_k + a->njobs]);
    }
    rb_aggregate_name_idx_destroy(by_name);
    free(cur);
    free(cur_k);
    free(ivs);
    return rc;
}

/* ---- telemetry.csv for fio's JSON ---- */

int rb_result_tel_cpu(const char *dir, const rb_phase_agg_t *a, double *usr, double *sys,
                      double *all_usr, double *all_sys)
{
    *all_usr = *all_sys = 0;
    for (uint32_t n = 0; n < a->nnodes; n++)
        usr[n] = sys[n] = 0;
    rb_csv_reader_t c;
    int rc = rb_csv_reader_open(&c, dir, &rb_csv_telemetry);
    if (rc < 0)
        return rc == -ENODATA ? -ENOENT : rc;
    uint32_t *rows = calloc(a->nnodes ? a->nnodes : 1, sizeof *rows);
    rb_aggregate_name_idx_t *by_name = rb_aggregate_nodes_by_name(a->nodes, a->nnodes);
    rc = rows && by_name ? 0 : -ENOMEM;
    uint32_t all = 0;
    while (rc == 0 && rb_csv_reader_next(&c)) {
        const char *const *fld = c.fld;
        if (fld[RB_CSV_TEL_KIND][0] != 'h' || strcmp(fld[RB_CSV_TEL_PHASE], a->name) != 0)
            continue;
        uint32_t n = rb_aggregate_node_lookup(by_name, a->nnodes, fld[RB_CSV_TEL_NODE]);
        if (n == a->nnodes)
            continue;
        double u = strtod(fld[RB_CSV_TEL_CPU_USER], NULL);
        double s = strtod(fld[RB_CSV_TEL_CPU_SYSTEM], NULL);
        usr[n] += u;
        sys[n] += s;
        rows[n]++;
        *all_usr += u;
        *all_sys += s;
        all++;
    }
    for (uint32_t n = 0; rc == 0 && n < a->nnodes; n++)
        if (rows[n]) {
            usr[n] /= rows[n];
            sys[n] /= rows[n];
        }
    if (all) {
        *all_usr /= all;
        *all_sys /= all;
    }
    rb_aggregate_name_idx_destroy(by_name);
    free(rows);
    rb_csv_reader_close(&c);
    return rc;
}

/* The devices met so far, indexed by "node\nname": at 16,000 nodes of 4
 * disks a walk over them per row (the rows of an interval come in the
 * order the SAMPLEs arrived) took minutes. */
typedef struct s_disks {
    rb_result_disk_use_t *d;
    uint32_t n, cap;
    char (*key)[2 * RB_NAME_MAX + 2];
    rb_names_t idx;
} s_disks_t;

static const char *s_disk_key(const void *ctx, uint32_t i)
{
    return ((const s_disks_t *)ctx)->key[i];
}

/* The entry of node's device name, added when it has none; NULL on -ENOMEM. */
static rb_result_disk_use_t *s_disk_entry(s_disks_t *x, const char *node, const char *name)
{
    char key[sizeof x->key[0]];
    snprintf(key, sizeof key, "%.*s\n%.*s", RB_NAME_MAX - 1, node, RB_NAME_MAX - 1, name);
    uint32_t i = rb_names_find(&x->idx, key, s_disk_key, x);
    if (i != UINT32_MAX)
        return &x->d[i];
    if (x->n == x->cap) {
        uint32_t want = x->cap ? 2 * x->cap : 16;
        rb_result_disk_use_t *grown = realloc(x->d, want * sizeof *grown);
        if (grown)
            x->d = grown;
        char(*keys)[sizeof x->key[0]] = grown ? realloc(x->key, want * sizeof *keys) : NULL;
        if (!keys)
            return NULL;
        x->key = keys;
        x->cap = want;
    }
    if (rb_names_grow(&x->idx, x->n, s_disk_key, x) < 0)
        return NULL;
    rb_result_disk_use_t *d = &x->d[x->n];
    memset(d, 0, sizeof *d);
    snprintf(d->node, sizeof d->node, "%s", node);
    snprintf(d->name, sizeof d->name, "%s", name);
    memcpy(x->key[x->n], key, sizeof key);
    rb_names_put(&x->idx, x->n++, s_disk_key, x);
    return d;
}

int rb_result_tel_disks(const char *dir, rb_result_disk_use_t **out, uint32_t *n)
{
    *out = NULL;
    *n = 0;
    rb_csv_reader_t c;
    int rc = rb_csv_reader_open(&c, dir, &rb_csv_telemetry);
    if (rc < 0)
        return rc == -ENODATA ? -ENOENT : rc;
    s_disks_t x = {0};
    while (rc == 0 && rb_csv_reader_next(&c)) {
        const char *const *fld = c.fld;
        if (fld[RB_CSV_TEL_KIND][0] != 'd')
            continue;
        rb_result_disk_use_t *d = s_disk_entry(&x, fld[RB_CSV_TEL_NODE], fld[RB_CSV_TEL_NAME]);
        if (!d) {
            rc = -ENOMEM;
            break;
        }
        /* a row covers the time since the device's last row of its phase,
         * the first from GO */
        double t = strtod(fld[RB_CSV_TEL_T_S], NULL);
        int same = strcmp(d->last_phase, fld[RB_CSV_TEL_PHASE]) == 0;
        double dt = same && t > d->last_t ? t - d->last_t : same ? 0 : t;
        snprintf(d->last_phase, sizeof d->last_phase, "%s", fld[RB_CSV_TEL_PHASE]);
        d->last_t = t;
        if (!(dt > 0))
            continue;
        d->read_ios += strtod(fld[RB_CSV_TEL_RD_IOPS], NULL) * dt;
        d->write_ios += strtod(fld[RB_CSV_TEL_WR_IOPS], NULL) * dt;
        d->in_queue_ms += strtod(fld[RB_CSV_TEL_QUEUE_DEPTH], NULL) * dt * 1e3;
        d->busy_s += strtod(fld[RB_CSV_TEL_UTIL_PCT], NULL) / 100.0 * dt;
        d->secs += dt;
    }
    rb_csv_reader_close(&c);
    rb_names_fini(&x.idx);
    free(x.key);
    if (rc < 0) {
        free(x.d);
        return rc;
    }
    *out = x.d;
    *n = x.n;
    return 0;
}

/* ---- samples.csv for fio's logs ---- */

int rb_result_samples_job_rows(const char *dir, const char *job, rb_result_job_row_t **rows,
                               uint32_t *n)
{
    *rows = NULL;
    *n = 0;
    rb_csv_reader_t c;
    int rc = rb_csv_reader_open(&c, dir, &rb_csv_samples);
    if (rc < 0)
        return rc == -ENODATA ? -ENOENT : rc;
    uint32_t cap = 0;
    rb_sample_row_t r;
    while (rc == 0 && rb_csv_reader_next(&c)) {
        if (!rb_sample_row_parse(c.fld, &r) || strcmp(r.job, job) != 0)
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            rb_result_job_row_t *grown = realloc(*rows, cap * sizeof *grown);
            if (!grown) {
                rc = -ENOMEM;
                break;
            }
            *rows = grown;
        }
        rb_result_job_row_t *o = &(*rows)[*n];
        memset(o, 0, sizeof *o);
        memcpy(o->node, r.node, sizeof o->node);
        o->seq = (*n)++;
        o->t_s = r.t_s;
        o->utc_ns = strtoull(c.fld[RB_CSV_SMP_T_UTC_NS], NULL, 10);
        o->interval_s = r.interval_s;
        for (int d = 0; d < 2; d++) {
            o->bytes[d] = r.dir_bytes[d];
            o->ops[d] = r.dir_ops[d];
        }
        /* what is neither read nor written is trimmed */
        o->bytes[RB_DIR_TRIM] = fmax(0, r.bytes - r.dir_bytes[0] - r.dir_bytes[1]);
        o->ops[RB_DIR_TRIM] = fmax(0, r.ops - r.dir_ops[0] - r.dir_ops[1]);
        o->p50_us[RB_DIR_READ] = strtod(c.fld[RB_CSV_SMP_READ_LAT_P50_US], NULL);
        o->p50_us[RB_DIR_WRITE] = strtod(c.fld[RB_CSV_SMP_WRITE_LAT_P50_US], NULL);
    }
    rb_csv_reader_close(&c);
    if (rc < 0) {
        free(*rows);
        *rows = NULL;
        *n = 0;
    }
    return rc;
}
