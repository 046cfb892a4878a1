/* A run that did not finish, read back from what it left: the phase it
 * was cut off in from samples.csv, and what samples.csv shows of its nodes
 * and of its time (rb_result.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_csv_read.h"
#include "rb_result.h"

/* Widens b by one interval's percentiles (us; 0: the interval had none). */
static void s_bound(rb_lat_bounds_t *b, double p50, double p99, double max)
{
    if (!(p50 > 0) || !(p99 > 0))
        return;
    if (!b->intervals++) {
        b->p50_lo = b->p50_hi = p50;
        b->p99_lo = b->p99_hi = p99;
    }
    b->p50_lo = fmin(b->p50_lo, p50);
    b->p50_hi = fmax(b->p50_hi, p50);
    b->p99_lo = fmin(b->p99_lo, p99);
    b->p99_hi = fmax(b->p99_hi, p99);
    b->max = fmax(b->max, max);
}

/* What the samples of one node and job add up to. */
typedef struct s_acc {
    char node[RB_NAME_MAX], rack[RB_NAME_MAX];
    uint32_t job;
    double first, last, bytes, ops, errors;
    double rd_bytes, rd_ops, wr_bytes, wr_ops;
} s_acc_t;

static int s_cmp_acc(const void *a, const void *b)
{
    const s_acc_t *x = a, *y = b;
    int c = strcmp(x->node, y->node);
    return c ? c : (x->job > y->job) - (x->job < y->job);
}

/* The phase that was running when the run was cut off, from its samples:
 * per node and job what the samples add up to, over the time they cover,
 * and the bounds the intervals' percentiles set on its latency. Merged
 * histograms and per-worker figures are not in samples: they stay empty. */
int rb_result_phase_from_samples(const char *dir, const rb_phase_spec_t *spec, double interval_s,
                                 rb_phase_agg_t *out)
{
    rb_csv_reader_t c;
    if (rb_csv_reader_open(&c, dir, &rb_csv_samples) < 0)
        return -ENOENT;
    rb_sample_row_t r;
    uint32_t n = 0, cap = 16;
    s_acc_t *acc = calloc(cap, sizeof *acc);
    int rc = acc ? 0 : -ENOMEM;
    rb_lengths_t lengths = {0};
    rb_lat_bounds_t lat = {0}, dir_lat[2] = {{0}};
    while (rc == 0 && rb_sample_row_next(&c, spec->name, &r)) {
        rb_lengths_add(&lengths, r.interval_s);
        if (r.ops > 0)
            s_bound(&lat, r.p50_us, r.p99_us, r.max_us);
        for (int d = 0; d < 2; d++)
            if (r.dir_ops[d] > 0)
                s_bound(&dir_lat[d], r.dir_p50_us[d], r.dir_p99_us[d], 0);
        uint32_t j = 0;
        while (j < spec->njobs && strcmp(spec->jobs[j].name, r.job) != 0)
            j++;
        if (j == spec->njobs)
            continue;
        uint32_t i = 0;
        while (i < n && (strcmp(acc[i].node, r.node) != 0 || acc[i].job != j))
            i++;
        if (i == n) {
            if (n == cap) {
                s_acc_t *na = realloc(acc, 2 * cap * sizeof *acc);
                if (!na) {
                    rc = -ENOMEM;
                    break;
                }
                acc = na;
                cap *= 2;
            }
            memset(&acc[n], 0, sizeof acc[n]);
            snprintf(acc[n].node, sizeof acc[n].node, "%s", r.node);
            snprintf(acc[n].rack, sizeof acc[n].rack, "%s", r.rack);
            acc[n].job = j;
            acc[n].first = r.t_s - r.interval_s;
            n++;
        }
        if (r.t_s - r.interval_s < acc[i].first)
            acc[i].first = r.t_s - r.interval_s;
        if (r.t_s > acc[i].last)
            acc[i].last = r.t_s;
        acc[i].bytes += r.bytes;
        acc[i].ops += r.ops;
        acc[i].errors += r.errors;
        acc[i].rd_bytes += r.dir_bytes[0];
        acc[i].rd_ops += r.dir_ops[0];
        acc[i].wr_bytes += r.dir_bytes[1];
        acc[i].wr_ops += r.dir_ops[1];
    }
    rb_csv_reader_close(&c);
    if (rc < 0 || n == 0) {
        free(acc);
        return rc < 0 ? rc : -ENOENT;
    }
    /* one DONE per node, one "worker" per job: what the aggregator takes;
     * sorted by node, each node's entries are next to each other */
    qsort(acc, n, sizeof *acc, s_cmp_acc);
    rb_agg_input_t *in = calloc(n, sizeof *in);
    rb_agg_done_t *done = calloc(n, sizeof *done);
    rb_worker_stat_t *ws = calloc(n, sizeof *ws);
    uint32_t nn = 0;
    if (!in || !done || !ws)
        rc = -ENOMEM;
    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        if (nn == 0 || strcmp(in[nn - 1].name, acc[i].node) != 0) {
            in[nn] = (rb_agg_input_t){.name = acc[i].node, .rack = acc[i].rack, .done = &done[nn]};
            done[nn].workers = &ws[i];
            nn++;
        }
        rb_worker_stat_t *w = &ws[i];
        done[nn - 1].nworkers++;
        /* times in ns on a clock starting 1 s before GO: 0 means "never started" */
        *w = (rb_worker_stat_t){.job = acc[i].job,
                                .t_start_ns = (uint64_t)llround((acc[i].first + 1) * 1e9),
                                .t_end_ns = (uint64_t)llround((acc[i].last + 1) * 1e9),
                                .bytes = (uint64_t)acc[i].bytes,
                                .ops = (uint64_t)acc[i].ops,
                                .errors = (uint64_t)acc[i].errors,
                                .read_bytes = (uint64_t)acc[i].rd_bytes,
                                .read_ops = (uint64_t)acc[i].rd_ops,
                                .write_bytes = (uint64_t)acc[i].wr_bytes,
                                .write_ops = (uint64_t)acc[i].wr_ops};
    }
    if (rc == 0)
        rc = rb_aggregate_phase(spec, in, nn, out);
    if (rc == 0) {
        out->partial = 1;
        out->from_samples = 1;
        out->smp_lat = lat;
        memcpy(out->smp_dir_lat, dir_lat, sizeof dir_lat);
        /* each node was sending samples when the run was cut off: not "ok" */
        for (uint32_t i = 0; i < out->nnodes; i++)
            if (out->nodes[i].status == RB_NODE_OK)
                out->nodes[i].status = RB_NODE_CUT;
        out->nrows = 0; /* per worker figures are not in the samples */
        double *b = NULL, *o = NULL, *t = NULL;
        uint32_t m = 0;
        if (interval_s <= 0)
            interval_s = rb_lengths_mode(&lengths);
        out->sample_interval_s = interval_s;
        if (interval_s > 0 &&
            rb_result_samples_series(dir, spec->name, interval_s, &b, &o, &t, &m) == 0)
            rb_aggregate_steady(out, b, t, m, interval_s, 0);
        free(b);
        free(o);
        free(t);
    }
    free(in);
    free(done);
    free(ws);
    free(acc);
    return rc;
}

/* Node name's entry in out, added (with rack) when out has none. NULL: out of memory. */
static rb_report_node_t *s_seen_node(rb_loaded_run_t *out, const char *name, const char *rack)
{
    rb_run_result_t *res = &out->res;
    for (uint32_t i = 0; i < res->nnodes; i++)
        if (!strcmp(out->nodes[i].name, name))
            return &out->nodes[i];
    rb_report_node_t *n = realloc(out->nodes, (res->nnodes + 1) * sizeof *n);
    if (!n)
        return NULL;
    out->nodes = res->nodes = n;
    rb_host_t **h = realloc(out->hws, (res->nnodes + 1) * sizeof *h);
    if (!h)
        return NULL;
    out->hws = h;
    h[res->nnodes] = NULL;
    n = &out->nodes[res->nnodes++];
    memset(n, 0, sizeof *n);
    snprintf(n->name, sizeof n->name, "%s", name);
    snprintf(n->rack, sizeof n->rack, "%s", rack);
    n->status = RB_NODE_CUT;
    n->lost_at_s = -1;
    n->last_sample_s = -1;
    return n;
}

int rb_result_cut_seen(const char *dir, rb_loaded_run_t *out)
{
    rb_run_result_t *res = &out->res;
    for (uint32_t i = 0; i < res->nnodes; i++)
        out->nodes[i].last_sample_s = -1;
    rb_csv_reader_t c;
    int rc = rb_csv_reader_open(&c, dir, &rb_csv_samples);
    if (rc < 0)
        return rc == -ENOENT || rc == -ENODATA ? 0 : rc;
    uint64_t first = 0, last = 0;
    rb_sample_row_t r;
    rc = 0;
    /* ends as UTC ns in last_sample_s for now: seconds after the start below */
    while (rc == 0 && rb_sample_row_next(&c, NULL, &r)) {
        if (!r.t_utc_ns)
            continue;
        uint64_t start = r.t_utc_ns - (uint64_t)llround(r.interval_s * 1e9);
        first = !first || start < first ? start : first;
        last = r.t_utc_ns > last ? r.t_utc_ns : last;
        rb_report_node_t *n = s_seen_node(out, r.node, r.rack);
        if (!n)
            rc = -ENOMEM;
        else if ((double)r.t_utc_ns > n->last_sample_s)
            n->last_sample_s = (double)r.t_utc_ns;
    }
    rb_csv_reader_close(&c);
    if (rc < 0 || !last)
        return rc;
    /* times from the run's start; a folder without one: from the first sample */
    if (!res->started_wall_ns)
        res->started_wall_ns = first;
    res->seen_s = (double)(last - res->started_wall_ns) / 1e9;
    for (uint32_t i = 0; i < res->nnodes; i++)
        if (out->nodes[i].last_sample_s >= 0)
            out->nodes[i].last_sample_s =
                (out->nodes[i].last_sample_s - (double)res->started_wall_ns) / 1e9;
    return 0;
}
