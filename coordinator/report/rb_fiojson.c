/* fio's JSON of a run (rb_fiojson.h). Every figure is one rackbench has
 * already computed (rb_aggregate.c) or read back (rb_result.c); this file
 * only puts them where fio puts its own, in fio's units: bytes, KiB, KiB/s,
 * ms for runtimes and ns for latencies. What rackbench does not measure is
 * 0, as fio leaves what it did not sample (docs/report-schema.md). */
#include "rb_fiojson.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rb_jw.h"
#include "rb_opt.h"
#include "rb_result.h"

/* fio's default percentile list, in hundredths: its "percentile" keys */
static const unsigned s_pcts[] = {100,  500,  1000, 2000, 3000, 4000, 5000, 6000, 7000,
                                  8000, 9000, 9500, 9900, 9950, 9990, 9995, 9999};
#define S_NPCTS (sizeof s_pcts / sizeof s_pcts[0])

/* fio's key of a percentile in hundredths: "99.900000" */
static const char *s_pct_key(char *buf, size_t len, unsigned hundredths)
{
    snprintf(buf, len, "%u.%02u0000", hundredths / 100, hundredths % 100);
    return buf;
}

/* What one entry of "jobs" or "client_stats" is made of: the counts per
 * direction over window_s, and either the histograms (lat, slat and clat
 * per direction, all IOs' lat) or, for a node, only its summaries. */
typedef struct s_src {
    const rb_agg_dir_t *dir;            /* RB_NDIRS entries */
    const rb_hist_t (*lat)[RB_NLATS];   /* RB_NDIRS x kinds; NULL: summaries only */
    const rb_hist_t *all;               /* all IOs' lat; NULL with lat */
    const rb_node_lat_t *sum;           /* used when lat is NULL */
    double window_s;                    /* the entry's window */
    const rb_agg_dir_t *group;          /* the phase's directions, for bw_agg */
    const rb_result_dir_rates_t *rates; /* its samples' rates (NULL: none) */
    uint32_t lat_depth;                 /* latency_target's depth found (0: iodepth) */
    double usr_cpu, sys_cpu;            /* its host's CPU, % of all cores (telemetry.csv) */
} s_src_t;

/* The value a bucket stands for, as rb_hist_percentile gives it: its lower
 * edge plus half its width, within the recorded min and max. */
static uint64_t s_bucket_value(const rb_hist_t *h, unsigned i)
{
    uint64_t lo = rb_hist_bucket_lo(i);
    uint64_t width =
        i + 1 < RB_HIST_NBUCKETS ? rb_hist_bucket_hi(i) - lo : lo - rb_hist_bucket_lo(i - 1);
    uint64_t v = lo + width / 2;
    if (v < h->min)
        v = h->min;
    if (v > h->max)
        v = h->max;
    return v;
}

/* A latency as fio writes one (slat_ns, clat_ns, lat_ns): min, max, mean,
 * stddev, N, then, when there is one IO or more, the percentiles and (json+)
 * the bins, every bucket that is not empty as "value": count. */
static void s_lat_hist(rb_jw_t *w, const char *key, const rb_hist_t *h, int plus)
{
    char k[32];
    rb_jw_obj_begin(w, key);
    rb_jw_u64(w, "min", h->count ? h->min : 0);
    rb_jw_u64(w, "max", h->count ? h->max : 0);
    rb_jw_num(w, "mean", rb_hist_mean(h));
    rb_jw_num(w, "stddev", rb_hist_stdev(h));
    rb_jw_u64(w, "N", h->count);
    if (h->count) {
        rb_jw_obj_begin(w, "percentile");
        for (size_t i = 0; i < S_NPCTS; i++)
            rb_jw_u64(w, s_pct_key(k, sizeof k, s_pcts[i]),
                      rb_hist_percentile(h, s_pcts[i] / 100.0));
        rb_jw_obj_end(w);
    }
    if (h->count && plus) {
        rb_jw_obj_begin(w, "bins");
        for (unsigned i = 0; i < RB_HIST_NBUCKETS; i++) {
            if (!h->b[i])
                continue;
            snprintf(k, sizeof k, "%" PRIu64, s_bucket_value(h, i));
            rb_jw_u64(w, k, h->b[i]);
        }
        rb_jw_obj_end(w);
    }
    rb_jw_obj_end(w);
}

/* A node's latency, of which only a summary is kept: the percentiles it
 * has (p50, p90, p99, p99.9) and no spread (stddev 0). */
static void s_lat_summary(rb_jw_t *w, const char *key, const rb_lat_summary_t *s)
{
    char k[32];
    rb_jw_obj_begin(w, key);
    rb_jw_u64(w, "min", s->count ? s->min : 0);
    rb_jw_u64(w, "max", s->count ? s->max : 0);
    rb_jw_num(w, "mean", s->count ? s->mean : 0);
    rb_jw_num(w, "stddev", 0);
    rb_jw_u64(w, "N", s->count);
    if (s->count) {
        rb_jw_obj_begin(w, "percentile");
        rb_jw_u64(w, s_pct_key(k, sizeof k, 5000), s->p50);
        rb_jw_u64(w, s_pct_key(k, sizeof k, 9000), s->p90);
        rb_jw_u64(w, s_pct_key(k, sizeof k, 9900), s->p99);
        rb_jw_u64(w, s_pct_key(k, sizeof k, 9990), s->p999);
        rb_jw_obj_end(w);
    }
    rb_jw_obj_end(w);
}

/* An empty latency: N 0, as fio writes one it did not take. */
static void s_lat_none(rb_jw_t *w, const char *key)
{
    rb_hist_t none;
    rb_hist_init(&none);
    s_lat_hist(w, key, &none, 0);
}

/* The sample standard deviation of a running summary (0 under 2 samples). */
static double s_dev(const rb_result_rates_t *r)
{
    return r->n > 1 ? sqrt(r->m2 / (double)(r->n - 1)) : 0;
}

/* fio's "read", "write" or "trim" block of one direction. */
static void s_dir(rb_jw_t *w, const s_src_t *s, int d, int plus)
{
    const rb_agg_dir_t *dd = &s->dir[d];
    uint64_t runtime_ms = dd->ops ? (uint64_t)llround(s->window_s * 1e3) : 0;
    rb_jw_obj_begin(w, rb_dir_name((rb_dir_t)d));
    rb_jw_u64(w, "io_bytes", dd->bytes);
    rb_jw_u64(w, "io_kbytes", dd->bytes / 1024);
    rb_jw_u64(w, "bw_bytes", (uint64_t)llround(dd->bw));
    rb_jw_u64(w, "bw", (uint64_t)llround(dd->bw / 1024));
    rb_jw_num(w, "iops", dd->iops);
    rb_jw_u64(w, "runtime", runtime_ms);
    rb_jw_u64(w, "total_ios", dd->ops);
    rb_jw_u64(w, "short_ios", 0);
    rb_jw_u64(w, "drop_ios", 0);
    if (s->lat) {
        s_lat_hist(w, "slat_ns", &s->lat[d][RB_LAT_SLAT], plus);
        s_lat_hist(w, "clat_ns", &s->lat[d][RB_LAT_CLAT], plus);
        s_lat_hist(w, "lat_ns", &s->lat[d][RB_LAT_LAT], plus);
    } else {
        s_lat_none(w, "slat_ns");
        s_lat_none(w, "clat_ns");
        s_lat_summary(w, "lat_ns", &s->sum->dir[d]);
    }
    /* the samples of samples.csv, as fio's of its bandwidth and IOPS logs
     * (KiB/s and IOPS); none (0) for trims, or without samples */
    rb_result_rates_t none = {0};
    const rb_result_rates_t *bw = s->rates && d < 2 ? &s->rates->bw[d] : &none;
    const rb_result_rates_t *io = s->rates && d < 2 ? &s->rates->iops[d] : &none;
    rb_jw_u64(w, "bw_min", (uint64_t)llround(bw->min / 1024));
    rb_jw_u64(w, "bw_max", (uint64_t)llround(bw->max / 1024));
    rb_jw_num(w, "bw_agg", s->group[d].bw > 0 ? dd->bw / s->group[d].bw * 100.0 : 0);
    rb_jw_num(w, "bw_mean", bw->mean / 1024);
    rb_jw_num(w, "bw_dev", s_dev(bw) / 1024);
    rb_jw_u64(w, "bw_samples", bw->n);
    rb_jw_u64(w, "iops_min", (uint64_t)llround(io->min));
    rb_jw_u64(w, "iops_max", (uint64_t)llround(io->max));
    rb_jw_num(w, "iops_mean", io->mean);
    rb_jw_num(w, "iops_stddev", s_dev(io));
    rb_jw_u64(w, "iops_samples", io->n);
    rb_jw_obj_end(w);
}

/* fio's latency_ns, latency_us and latency_ms: the share (%) of all IOs
 * whose lat falls below each edge and at or above the one before, each
 * bucket counted at the value it stands for (s_bucket_value). */
static void s_lat_shares(rb_jw_t *w, const rb_hist_t *h)
{
    static const unsigned edges[] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000};
    static const unsigned ms_edges[] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000};
    uint64_t ns[10] = {0}, us[10] = {0}, ms[12] = {0};
    for (unsigned i = 0; h && h->count && i < RB_HIST_NBUCKETS; i++) {
        if (!h->b[i])
            continue;
        uint64_t v = s_bucket_value(h, i);
        uint64_t *row = v < 1000 ? ns : v < 1000000 ? us : ms;
        uint64_t x = v < 1000 ? v : v < 1000000 ? v / 1000 : v / 1000000;
        size_t n = row == ms ? 11 : 10, e = 0;
        while (e < n && x >= (row == ms ? ms_edges[e] : edges[e]))
            e++;
        if (row != ms && e == n)
            e = n - 1; /* the last edge is where the next unit begins */
        row[e] += h->b[i];
    }
    double total = h && h->count ? (double)h->count : 1.0;
    char k[16];
    rb_jw_obj_begin(w, "latency_ns");
    for (size_t e = 0; e < 10; e++) {
        snprintf(k, sizeof k, "%u", edges[e]);
        rb_jw_num(w, k, (double)ns[e] * 100.0 / total);
    }
    rb_jw_obj_end(w);
    rb_jw_obj_begin(w, "latency_us");
    for (size_t e = 0; e < 10; e++) {
        snprintf(k, sizeof k, "%u", edges[e]);
        rb_jw_num(w, k, (double)us[e] * 100.0 / total);
    }
    rb_jw_obj_end(w);
    rb_jw_obj_begin(w, "latency_ms");
    for (size_t e = 0; e < 12; e++) {
        if (e < 11)
            snprintf(k, sizeof k, "%u", ms_edges[e]);
        else
            snprintf(k, sizeof k, ">=2000");
        rb_jw_num(w, k, (double)ms[e] * 100.0 / total);
    }
    rb_jw_obj_end(w);
}

/* Who an entry is, in rackbench's words (a member fio does not have). */
typedef struct s_who {
    const char *jobname;  /* fio's jobname */
    const char *phase;    /* the phase */
    const char *job;      /* the job; NULL: every job of the phase */
    const char *node;     /* the node (client_stats); NULL: every node */
    const char *hostname; /* fio's hostname (client_stats); NULL: none */
    const char *host;     /* the node's host */
    uint32_t groupid;     /* the phase's index: fio's group, one per stonewall */
    int error;            /* errno of the entry's first error, 0 */
} s_who_t;

/* One entry of "jobs" or "client_stats", members in fio's order. */
static int s_entry(rb_jw_t *w, const s_who_t *who, const rb_job_spec_t *js, const s_src_t *s,
                   int plus)
{
    rb_jw_obj_begin(w, NULL);
    rb_jw_str(w, "jobname", who->jobname);
    rb_jw_u64(w, "groupid", who->groupid);
    rb_jw_i64(w, "error", who->error);
    rb_jw_u64(w, "elapsed", (uint64_t)ceil(s->window_s));
    rb_jw_obj_begin(w, "job options");
    int rc = 0;
    if (js) {
        rb_jw_str(w, "name", js->name);
        rc = rb_opt_json_job(w, js, NULL);
    }
    rb_jw_obj_end(w);
    for (int d = 0; d < RB_NDIRS; d++)
        s_dir(w, s, d, plus);
    rb_jw_obj_begin(w, "sync");
    rb_jw_u64(w, "total_ios", 0);
    s_lat_none(w, "lat_ns");
    rb_jw_obj_end(w);
    rb_jw_u64(w, "job_runtime", (uint64_t)llround(s->window_s * 1e3));
    rb_jw_num(w, "usr_cpu", s->usr_cpu);
    rb_jw_num(w, "sys_cpu", s->sys_cpu);
    rb_jw_u64(w, "ctx", 0);
    rb_jw_u64(w, "majf", 0);
    rb_jw_u64(w, "minf", 0);
    s_lat_shares(w, s->all);
    rb_jw_u64(w, "latency_depth", s->lat_depth ? s->lat_depth : js ? js->iodepth : 1);
    rb_jw_u64(w, "latency_target", js ? js->lat_target_ns : 0);
    rb_jw_num(w, "latency_percentile", js && js->lat_target_ns ? js->lat_pct / 1e6 : 100.0);
    rb_jw_u64(w, "latency_window", js ? js->lat_window_ns / 1000 : 0);
    if (who->hostname) {
        rb_jw_str(w, "hostname", who->hostname);
        rb_jw_u64(w, "port", 0);
    }
    rb_jw_obj_begin(w, "rackbench");
    rb_jw_str(w, "phase", who->phase);
    rb_jw_str(w, "job", who->job);
    rb_jw_str(w, "node", who->node);
    if (who->node)
        rb_jw_str(w, "host", who->host);
    rb_jw_obj_end(w);
    rb_jw_obj_end(w);
    return rc;
}

/* fio's errno for an entry with errors: the phase's first error when it
 * is the entry's (or any, for a job), else EIO. */
static int s_error(const rb_phase_agg_t *a, uint64_t errors, const char *node)
{
    if (!errors)
        return 0;
    if (a->error_code && (!node || strcmp(node, a->error_node) == 0))
        return -a->error_code;
    return EIO;
}

/* The run's node called name (the phase's nodes are the run's, mostly in
 * its order: at index hint first), or NULL. */
static const rb_report_node_t *s_report_node(const rb_run_result_t *r, uint32_t hint,
                                             const char *name)
{
    if (hint < r->nnodes && strcmp(r->nodes[hint].name, name) == 0)
        return &r->nodes[hint];
    for (uint32_t i = 0; i < r->nnodes; i++)
        if (strcmp(r->nodes[i].name, name) == 0)
            return &r->nodes[i];
    return NULL;
}

/* A phase's samples' rates: per job, per node and all (have 0: none). */
typedef struct s_rates {
    rb_result_dir_rates_t *jobs;  /* the phase's njobs entries (owned) */
    rb_result_dir_rates_t *nodes; /* its nnodes entries (owned) */
    rb_result_dir_rates_t all;
    int have;                /* read from samples.csv */
    double *usr, *sys;       /* per node: its host's CPU (owned; 0 without telemetry.csv) */
    double all_usr, all_sys; /* over every node */
} s_rates_t;

/* "jobs": one entry per phase and job, over every node. */
static int s_jobs(rb_jw_t *w, const rb_run_result_t *r, const s_rates_t *rt, int plus)
{
    int rc = 0;
    rb_jw_arr_begin(w, "jobs");
    for (uint32_t p = 0; p < r->nphases; p++) {
        const rb_phase_agg_t *a = &r->phases[p];
        const rb_phase_spec_t *sp = &r->specs[p];
        for (uint32_t j = 0; j < a->njobs; j++) {
            const rb_agg_job_t *aj = &a->jobs[j];
            char name[2 * RB_NAME_MAX + 2];
            /* a phase of one job named as it: the name; else "phase/job" */
            if (strcmp(aj->name, a->name) == 0)
                snprintf(name, sizeof name, "%s", a->name);
            else
                snprintf(name, sizeof name, "%s/%s", a->name, aj->name);
            s_who_t who = {.jobname = name,
                           .phase = a->name,
                           .job = aj->name,
                           .groupid = p,
                           .error = s_error(a, aj->errors, NULL)};
            s_src_t src = {.dir = aj->dir,
                           .lat = aj->lats ? (const rb_hist_t(*)[RB_NLATS])aj->lats->dir : NULL,
                           .all = aj->lats ? &aj->lats->all : NULL,
                           .window_s = aj->window_s,
                           .lat_depth = aj->lat_depth,
                           .group = a->dir,
                           .rates = rt[p].have ? &rt[p].jobs[j] : NULL,
                           .usr_cpu = rt[p].all_usr,
                           .sys_cpu = rt[p].all_sys};
            rb_node_lat_t none;
            memset(&none, 0, sizeof none);
            src.sum = &none;
            if (s_entry(w, &who, j < sp->njobs ? &sp->jobs[j] : NULL, &src, plus) < 0)
                rc = -1;
        }
    }
    rb_jw_arr_end(w);
    return rc;
}

/* "client_stats": per phase an entry per node (all its jobs of the phase;
 * the job options are the phase's first job's), then "All clients". */
static int s_clients(rb_jw_t *w, const rb_run_result_t *r, const s_rates_t *rt, int plus)
{
    int rc = 0;
    rb_jw_arr_begin(w, "client_stats");
    for (uint32_t p = 0; p < r->nphases; p++) {
        const rb_phase_agg_t *a = &r->phases[p];
        const rb_phase_spec_t *sp = &r->specs[p];
        const rb_job_spec_t *js = sp->njobs ? &sp->jobs[0] : NULL;
        for (uint32_t n = 0; n < a->nnodes; n++) {
            const rb_agg_node_t *an = &a->nodes[n];
            const rb_report_node_t *rn = s_report_node(r, n, an->name);
            s_who_t who = {.jobname = a->name,
                           .phase = a->name,
                           .job = sp->njobs == 1 ? js->name : NULL,
                           .node = an->name,
                           .hostname = an->name,
                           .host = rn ? rn->hostname : "",
                           .groupid = p,
                           .error =
                               an->status == RB_NODE_OK ? s_error(a, an->errors, an->name) : EIO};
            s_src_t src = {.dir = an->dir,
                           .sum = &an->lat,
                           .window_s = an->window_s,
                           .group = a->dir,
                           .rates = rt[p].have ? &rt[p].nodes[n] : NULL,
                           .usr_cpu = rt[p].usr[n],
                           .sys_cpu = rt[p].sys[n]};
            if (s_entry(w, &who, js, &src, plus) < 0)
                rc = -1;
        }
        s_who_t all = {.jobname = "All clients",
                       .phase = a->name,
                       .job = sp->njobs == 1 ? js->name : NULL,
                       .hostname = "",
                       .groupid = p,
                       .error = s_error(a, a->errors, NULL)};
        s_src_t src = {.dir = a->dir,
                       .lat = (const rb_hist_t(*)[RB_NLATS])a->lat,
                       .all = &a->hist,
                       .window_s = a->window_s,
                       .group = a->dir,
                       .rates = rt[p].have ? &rt[p].all : NULL,
                       .usr_cpu = rt[p].all_usr,
                       .sys_cpu = rt[p].all_sys};
        if (s_entry(w, &all, js, &src, plus) < 0)
            rc = -1;
    }
    rb_jw_arr_end(w);
    return rc;
}

/* Every phase's samples' rates from run_dir/samples.csv (none without
 * it); *out (caller frees with s_rates_free) has r->nphases entries. 0 or
 * -ENOMEM. */
static int s_rates_read(const rb_run_result_t *r, const char *run_dir, s_rates_t **out)
{
    s_rates_t *rt = calloc(r->nphases ? r->nphases : 1, sizeof *rt);
    *out = rt;
    if (!rt)
        return -ENOMEM;
    for (uint32_t p = 0; p < r->nphases; p++) {
        const rb_phase_agg_t *a = &r->phases[p];
        rt[p].jobs = calloc(a->njobs ? a->njobs : 1, sizeof *rt[p].jobs);
        rt[p].nodes = calloc(a->nnodes ? a->nnodes : 1, sizeof *rt[p].nodes);
        rt[p].usr = calloc(a->nnodes ? a->nnodes : 1, sizeof *rt[p].usr);
        rt[p].sys = calloc(a->nnodes ? a->nnodes : 1, sizeof *rt[p].sys);
        if (!rt[p].jobs || !rt[p].nodes || !rt[p].usr || !rt[p].sys)
            return -ENOMEM;
        if (run_dir && rb_result_tel_cpu(run_dir, a, rt[p].usr, rt[p].sys, &rt[p].all_usr,
                                         &rt[p].all_sys) == -ENOMEM)
            return -ENOMEM;
        /* each phase at its own interval (sample_interval=auto), as samples.csv has it */
        double iv = a->sample_interval_s > 0   ? a->sample_interval_s
                    : a->steady.interval_s > 0 ? a->steady.interval_s
                                               : 0;
        rt[p].have = run_dir && rb_result_samples_rates(run_dir, a, iv, rt[p].jobs, rt[p].nodes,
                                                        &rt[p].all) == 0;
    }
    return 0;
}

static void s_rates_free(s_rates_t *rt, uint32_t n)
{
    for (uint32_t p = 0; rt && p < n; p++) {
        free(rt[p].jobs);
        free(rt[p].nodes);
        free(rt[p].usr);
        free(rt[p].sys);
    }
    free(rt);
}

/* "disk_util": per node and device over the run, from run_dir/telemetry.csv
 * (empty without it), in fio's keys; merges and ticks are not measured: 0.
 * 0 or -ENOMEM. */
static int s_disk_util(rb_jw_t *w, const char *run_dir)
{
    rb_result_disk_use_t *d = NULL;
    uint32_t n = 0;
    int rc = run_dir ? rb_result_tel_disks(run_dir, &d, &n) : 0;
    rb_jw_arr_begin(w, "disk_util");
    for (uint32_t i = 0; i < n; i++) {
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "name", d[i].name);
        rb_jw_u64(w, "read_ios", (uint64_t)llround(d[i].read_ios));
        rb_jw_u64(w, "write_ios", (uint64_t)llround(d[i].write_ios));
        rb_jw_u64(w, "read_merges", 0);
        rb_jw_u64(w, "write_merges", 0);
        rb_jw_u64(w, "read_ticks", 0);
        rb_jw_u64(w, "write_ticks", 0);
        rb_jw_u64(w, "in_queue", (uint64_t)llround(d[i].in_queue_ms));
        rb_jw_num(w, "util", d[i].secs > 0 ? 100.0 * d[i].busy_s / d[i].secs : 0);
        rb_jw_obj_begin(w, "rackbench");
        rb_jw_str(w, "node", d[i].node);
        rb_jw_obj_end(w);
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
    free(d);
    return rc == -ENOMEM ? -ENOMEM : 0;
}

int rb_fiojson_render(const rb_run_result_t *r, const char *run_dir, int plus, FILE *f)
{
    s_rates_t *rt = NULL;
    if (s_rates_read(r, run_dir, &rt) < 0) {
        s_rates_free(rt, r->nphases);
        return -ENOMEM;
    }
    char version[64], when[64] = "";
    /* fio's timestamp is when its jobs ended: the last phase's end, exact
     * in summary.json too (the run's start is kept there to the second) */
    uint64_t end_ns = 0;
    for (uint32_t p = 0; p < r->nphases; p++)
        if (r->phases[p].last_end_utc_ns > end_ns)
            end_ns = r->phases[p].last_end_utc_ns;
    if (!end_ns)
        end_ns = r->started_wall_ns;
    time_t t = (time_t)(end_ns / 1000000000ULL);
    struct tm tm;
    if (localtime_r(&t, &tm))
        strftime(when, sizeof when, "%a %b %e %H:%M:%S %Y", &tm);
    snprintf(version, sizeof version, "rackbench-%s", RB_VERSION);
    rb_jw_t w;
    rb_jw_init(&w, f);
    rb_jw_obj_begin(&w, NULL);
    rb_jw_str(&w, "fio version", version);
    rb_jw_u64(&w, "timestamp", (uint64_t)t);
    rb_jw_u64(&w, "timestamp_ms", end_ns / 1000000ULL);
    rb_jw_str(&w, "time", when);
    /* every option is in each job's "job options", as `rackbench check` prints it */
    rb_jw_obj_begin(&w, "global options");
    rb_jw_obj_end(&w);
    int rc = s_jobs(&w, r, rt, plus);
    rc |= s_clients(&w, r, rt, plus);
    if (s_disk_util(&w, run_dir) < 0)
        rc = -1;
    rb_jw_obj_end(&w);
    int frc = rb_jw_finish(&w);
    s_rates_free(rt, r->nphases);
    return rc < 0 ? -ENOMEM : frc;
}
