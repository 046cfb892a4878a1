/* Reading a run folder back (see rb_result.h). Every field summary.json
 * holds is read into the structures the run filled, so the reports render
 * the same from a folder as they did at the end of the run. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "rb_csv.h"
#include "rb_findings.h"
#include "rb_disks.h"
#include "rb_host_json.h"
#include "rb_json.h"
#include "rb_drives.h"
#include "rb_result.h"
#include "rb_report_net.h"
#include "rb_time.h"

/* ---- summary.json ---- */

static double s_num(const rb_json_t *o, const char *key)
{
    return rb_json_num(rb_json_get(o, key), 0);
}

static rb_node_status_t s_status(const char *s)
{
    static const rb_node_status_t all[] = {RB_NODE_OK,      RB_NODE_FAILED,  RB_NODE_LOST,
                                           RB_NODE_REFUSED, RB_NODE_MISSING, RB_NODE_CUT};
    for (size_t i = 0; s && i < sizeof all / sizeof all[0]; i++)
        if (!strcmp(s, rb_aggregate_node_status_name(all[i])))
            return all[i];
    return RB_NODE_MISSING;
}

/* The histogram at key back into h; an empty, null or missing one stays empty. */
static int s_hist_key(const rb_json_t *o, const char *key, rb_hist_t *h)
{
    rb_hist_init(h);
    const rb_json_t *j = rb_json_get(o, key);
    if (!j || !rb_json_get_u64(j, "count"))
        return 0;
    const rb_json_t *b = rb_json_get(j, "buckets");
    uint64_t total = 0;
    for (size_t i = 0; i < rb_json_len(b); i++) {
        const rb_json_t *pair = rb_json_at(b, i);
        double idx = rb_json_num(rb_json_at(pair, 0), -1);
        double cnt = rb_json_num(rb_json_at(pair, 1), -1);
        if (idx < 0 || idx >= RB_HIST_NBUCKETS || cnt < 0)
            return -EINVAL;
        h->b[(unsigned)idx] = (uint64_t)cnt;
        total += (uint64_t)cnt;
    }
    h->count = rb_json_get_u64(j, "count");
    h->sum = rb_json_get_u64(j, "sum");
    h->min = rb_json_get_u64(j, "min");
    h->max = rb_json_get_u64(j, "max");
    return total == h->count ? 0 : -EINVAL;
}

/* A wall-clock time from its ISO 8601 text ("2026-12-02T05:15:29.123456789Z"),
 * exact where the "_ns" integer, read as a double, is not; 0 when missing. */
static uint64_t s_utc(const rb_json_t *o, const char *key)
{
    const char *iso = rb_json_str(rb_json_get(o, key));
    char whole[32];
    const char *dot = iso ? strchr(iso, '.') : NULL;
    if (!dot || (size_t)(dot - iso) >= sizeof whole - 1)
        return 0;
    snprintf(whole, sizeof whole, "%.*sZ", (int)(dot - iso), iso);
    uint64_t s = rb_time_iso_parse(whole), frac = 0;
    int digits = 0;
    for (const char *p = dot + 1; *p >= '0' && *p <= '9' && digits < 9; p++, digits++)
        frac = frac * 10 + (uint64_t)(*p - '0');
    for (; digits < 9; digits++)
        frac *= 10;
    return s ? s + frac : 0;
}

/* "lat_hist" back into a histogram. */
static int s_hist(const rb_json_t *o, rb_hist_t *h)
{
    return s_hist_key(o, "lat_hist", h);
}

/* One direction's counts and rates. */
static void s_dir_counts(const rb_json_t *o, rb_agg_dir_t *d)
{
    d->bytes = rb_json_get_u64(o, "bytes");
    d->ops = rb_json_get_u64(o, "ops");
    d->bw = s_num(o, "bw");
    d->iops = s_num(o, "iops");
}

/* "directions" of a phase or job, histograms included (a summary from
 * before them has none: all stays 0). */
static int s_dirs_full(const rb_json_t *o, rb_agg_dir_t dir[RB_NDIRS], rb_hist_t (*lat)[RB_NLATS])
{
    const rb_json_t *ds = rb_json_get(o, "directions");
    for (int d = 0; d < RB_NDIRS; d++) {
        const rb_json_t *dj = rb_json_get(ds, rb_dir_name((rb_dir_t)d));
        s_dir_counts(dj, &dir[d]);
        for (int k = 0; k < RB_NLATS; k++) {
            char key[16];
            snprintf(key, sizeof key, "%s_hist", rb_lat_kind_name((rb_lat_kind_t)k));
            if (s_hist_key(dj, key, &lat[d][k]) < 0)
                return -EINVAL;
        }
    }
    return 0;
}

/* A latency summary in us back into ns. The mean was kept to whole ns
 * (rb_lat_summary_of): rounded back, as x.xxx us * 1e3 need not give the
 * same double (130.2 * 1e3 is 130199.99999999999). */
static void s_lat_summary(const rb_json_t *o, rb_lat_summary_t *s)
{
    s->count = rb_json_get_u64(o, "count");
    s->mean = round(s_num(o, "mean") * 1e3);
    s->min = (uint64_t)llround(s_num(o, "min") * 1e3);
    s->p50 = (uint64_t)llround(s_num(o, "p50") * 1e3);
    s->p90 = (uint64_t)llround(s_num(o, "p90") * 1e3);
    s->p99 = (uint64_t)llround(s_num(o, "p99") * 1e3);
    s->p999 = (uint64_t)llround(s_num(o, "p99.9") * 1e3);
    s->max = (uint64_t)llround(s_num(o, "max") * 1e3);
}

/* "lat_us" and "directions" of a node, rack or the cluster. */
static void s_dirs_summary(const rb_json_t *o, rb_agg_dir_t dir[RB_NDIRS], rb_node_lat_t *lat)
{
    const rb_json_t *ds = rb_json_get(o, "directions");
    s_lat_summary(rb_json_get(o, "lat_us"), &lat->all);
    for (int d = 0; d < RB_NDIRS; d++) {
        const rb_json_t *dj = rb_json_get(ds, rb_dir_name((rb_dir_t)d));
        s_dir_counts(dj, &dir[d]);
        s_lat_summary(rb_json_get(dj, "lat_us"), &lat->dir[d]);
    }
}

static void s_group(const rb_json_t *o, rb_agg_group_t *g)
{
    rb_json_get_str(o, "name", g->name, sizeof g->name);
    g->nodes = (uint32_t)rb_json_get_u64(o, "nodes");
    g->bytes = rb_json_get_u64(o, "bytes");
    g->ops = rb_json_get_u64(o, "ops");
    g->window_s = s_num(o, "window_s");
    g->aggregate_bw = s_num(o, "aggregate_bw");
    g->iops = s_num(o, "iops");
    const rb_json_t *bw = rb_json_get(o, "node_bw");
    g->node_bw_median = s_num(bw, "median");
    g->node_bw_min = s_num(bw, "min");
    g->node_bw_max = s_num(bw, "max");
    s_dirs_summary(o, g->dir, &g->lat);
}

static int s_index_of_job(const rb_phase_agg_t *a, const char *name)
{
    for (uint32_t i = 0; name && i < a->njobs; i++)
        if (!strcmp(a->jobs[i].name, name))
            return (int)i;
    return -1;
}

/* Reads the "nodes" of a phase object into a->nodes, which the caller sized. */
static int s_phase_nodes(const rb_json_t *nodes, rb_phase_agg_t *a)
{
    for (uint32_t i = 0; i < a->nnodes; i++) {
        const rb_json_t *n = rb_json_at(nodes, i);
        rb_agg_node_t *an = &a->nodes[i];
        rb_json_get_str(n, "name", an->name, sizeof an->name);
        rb_json_get_str(n, "rack", an->rack, sizeof an->rack);
        an->status = s_status(rb_json_str(rb_json_get(n, "status")));
        const char *why = rb_json_str(rb_json_get(n, "error"));
        if (why && why[0] && !(an->error = strdup(why)))
            return -ENOMEM;
        an->workers = (uint32_t)rb_json_get_u64(n, "workers");
        an->bytes = rb_json_get_u64(n, "bytes");
        an->ops = rb_json_get_u64(n, "ops");
        an->errors = rb_json_get_u64(n, "errors");
        an->window_s = s_num(n, "window_s");
        an->bw = s_num(n, "bw");
        an->iops = s_num(n, "iops");
        s_dirs_summary(n, an->dir, &an->lat);
        /* starts on a clock of its own: the phase's first start at 1 s */
        if (an->workers) {
            a->t_first_start = 1000000000ULL;
            an->t_first = a->t_first_start + (uint64_t)llround(s_num(n, "start_s") * 1e9);
            an->t_last = an->t_first + (uint64_t)llround(an->window_s * 1e9);
        }
    }
    return 0;
}

/* Reads the "job_stats" into a->jobs (sized by the caller), histograms
 * included. 0, -EINVAL or -ENOMEM. */
static int s_phase_jobs(const rb_json_t *jobs, rb_phase_agg_t *a)
{
    for (uint32_t j = 0; j < a->njobs; j++) {
        const rb_json_t *jo = rb_json_at(jobs, j);
        rb_agg_job_t *aj = &a->jobs[j];
        rb_json_get_str(jo, "name", aj->name, sizeof aj->name);
        aj->rw = rb_rw_parse(rb_json_str(rb_json_get(jo, "rw")));
        rb_json_get_str(jo, "ioengine", aj->ioengine, sizeof aj->ioengine);
        aj->iodepth = (uint32_t)rb_json_get_u64(jo, "iodepth");
        aj->lat_depth = (uint32_t)rb_json_get_u64(jo, "latency_depth");
        aj->bs = rb_json_get_u64(jo, "bs");
        aj->workers = (uint32_t)rb_json_get_u64(jo, "workers");
        aj->bytes = rb_json_get_u64(jo, "bytes");
        aj->ops = rb_json_get_u64(jo, "ops");
        aj->read_bytes = rb_json_get_u64(jo, "read_bytes");
        aj->read_ops = rb_json_get_u64(jo, "read_ops");
        aj->errors = rb_json_get_u64(jo, "errors");
        aj->verify_errors = rb_json_get_u64(jo, "verify_errors");
        aj->first_errno = (uint32_t)rb_json_get_u64(jo, "first_errno");
        aj->window_s = s_num(jo, "window_s");
        aj->bw = s_num(jo, "bw");
        aj->iops = s_num(jo, "iops");
        aj->lats = malloc(sizeof *aj->lats);
        if (!aj->lats)
            return -ENOMEM;
        rb_lat_set_init(aj->lats);
        aj->hist = &aj->lats->all;
        if (s_hist(jo, aj->hist) < 0 || s_dirs_full(jo, aj->dir, aj->lats->dir) < 0)
            return -EINVAL;
    }
    return 0;
}

/* Reads the "per_worker" rows into a->rows (sized by the caller); -EINVAL
 * for a row that names no node or job of the phase. */
static int s_phase_workers(const rb_json_t *rows, rb_phase_agg_t *a)
{
    rb_aggregate_name_idx_t *by_name = rb_aggregate_nodes_by_name(a->nodes, a->nnodes);
    if (!by_name)
        return -ENOMEM;
    for (size_t i = 0; i < rb_json_len(rows); i++) {
        const rb_json_t *r = rb_json_at(rows, i);
        const char *node = rb_json_str(rb_json_get(r, "node"));
        uint32_t n = node ? rb_aggregate_node_lookup(by_name, a->nnodes, node) : a->nnodes;
        int j = s_index_of_job(a, rb_json_str(rb_json_get(r, "job")));
        if (n >= a->nnodes || j < 0) {
            rb_aggregate_name_idx_destroy(by_name);
            return -EINVAL;
        }
        rb_agg_worker_t *row = &a->rows[a->nrows++];
        row->node = n;
        row->job = (uint32_t)j;
        row->worker = (uint32_t)rb_json_get_u64(r, "worker");
        row->bytes = rb_json_get_u64(r, "bytes");
        row->ops = rb_json_get_u64(r, "ops");
        row->errors = rb_json_get_u64(r, "errors");
        row->start_s = s_num(r, "start_s");
        row->time_s = s_num(r, "time_s");
        row->bw = s_num(r, "bw");
    }
    rb_aggregate_name_idx_destroy(by_name);
    return 0;
}

/* Reads the "findings" into a; -EINVAL for an unknown kind, -ENOMEM. */
static int s_phase_findings(const rb_json_t *fs, rb_phase_agg_t *a)
{
    static const rb_finding_kind_t kinds[] = {
        RB_FIND_STRAGGLER,    RB_FIND_IMBALANCE, RB_FIND_CPU_BOUND,   RB_FIND_NIC_BOUND,
        RB_FIND_DEVICE_BOUND, RB_FIND_HONESTY,   RB_FIND_STALL,       RB_FIND_OUT_OF_FAMILY,
        RB_FIND_SLOW_LINK,    RB_FIND_ASYM_LINK, RB_FIND_LINK_FAILED, RB_FIND_NET_BOUND};
    for (size_t i = 0; i < rb_json_len(fs); i++) {
        const rb_json_t *fo = rb_json_at(fs, i);
        const char *kind = rb_json_str(rb_json_get(fo, "kind"));
        rb_finding_t fi = {.first_seen_s = rb_json_num(rb_json_get(fo, "first_seen_s"), -1)};
        size_t k = 0;
        while (k < sizeof kinds / sizeof kinds[0] &&
               (!kind || strcmp(kind, rb_findings_kind_name(kinds[k])) != 0))
            k++;
        if (k == sizeof kinds / sizeof kinds[0])
            return -EINVAL;
        fi.kind = kinds[k];
        rb_json_get_str(fo, "node", fi.node, sizeof fi.node);
        rb_json_get_str(fo, "device", fi.device, sizeof fi.device);
        rb_json_get_str(fo, "evidence", fi.evidence, sizeof fi.evidence);
        fi.value = s_num(fo, "value");
        fi.reference = s_num(fo, "reference");
        fi.length_s = s_num(fo, "length_s");
        if (fi.kind == RB_FIND_STALL && fi.length_s > a->max_stall_s)
            a->max_stall_s = fi.length_s;
        if (rb_findings_add(a, &fi) < 0)
            return -ENOMEM;
    }
    return 0;
}

/* Reads the "devices" into a->devs; -ENOMEM. */
static int s_phase_devices(const rb_json_t *devs, rb_phase_agg_t *a)
{
    if (rb_json_len(devs)) {
        a->devs = calloc(rb_json_len(devs), sizeof *a->devs);
        if (!a->devs)
            return -ENOMEM;
    }
    for (size_t i = 0; i < rb_json_len(devs); i++) {
        const rb_json_t *d = rb_json_at(devs, i);
        rb_agg_dev_t *ad = &a->devs[a->ndevs++];
        rb_json_get_str(d, "node", ad->node, sizeof ad->node);
        rb_json_get_str(d, "device", ad->device, sizeof ad->device);
        rb_json_get_str(d, "parent", ad->parent, sizeof ad->parent);
        ad->member = rb_json_bool(rb_json_get(d, "member"), 0);
        ad->intervals = (uint32_t)rb_json_get_u64(d, "intervals");
        ad->util_median = s_num(d, "util_median");
        ad->util_max = s_num(d, "util_max");
        ad->rd_bps_median = s_num(d, "rd_bps_median");
        ad->wr_bps_median = s_num(d, "wr_bps_median");
        ad->await_ms_median = s_num(d, "await_ms_median");
        ad->rd_bytes = rb_json_get_u64(d, "rd_bytes");
        ad->wr_bytes = rb_json_get_u64(d, "wr_bytes");
    }
    return 0;
}

/* Reads the "disks" into a->disks (their families' figures as written); -ENOMEM. */
static int s_phase_disks(const rb_json_t *ds, rb_phase_agg_t *a)
{
    if (rb_json_len(ds) && !(a->disks = calloc(rb_json_len(ds), sizeof *a->disks)))
        return -ENOMEM;
    rb_pack_build_t ids = {.kind = RB_PACK_DEV};
    for (size_t i = 0; i < rb_json_len(ds); i++) {
        const rb_json_t *d = rb_json_at(ds, i);
        rb_agg_disk_t *o = &a->disks[a->ndisks++];
        rb_json_get_str(d, "node", o->node, sizeof o->node);
        rb_dev_id_t id;
        rb_host_json_dev_read(d, &id);
        rb_disks_who(&o->id, &id);
        rb_pack_add(&ids, &id);
        o->workers = (uint32_t)rb_json_get_u64(d, "workers");
        o->bytes = rb_json_get_u64(d, "bytes");
        o->ops = rb_json_get_u64(d, "ops");
        o->errors = rb_json_get_u64(d, "errors");
        o->window_s = s_num(d, "window_s");
        o->bw = s_num(d, "bw");
        o->iops = s_num(d, "iops");
        s_lat_summary(rb_json_get(d, "lat_us"), &o->lat);
        const rb_json_t *dirs = rb_json_get(d, "directions");
        for (int k = 0; k < RB_NDIRS; k++)
            s_dir_counts(rb_json_get(dirs, rb_dir_name((rb_dir_t)k)), &o->dir[k]);
        const rb_json_t *fam = rb_json_get(d, "family");
        o->family_n = (uint32_t)rb_json_get_u64(fam, "disks");
        o->family_median_bw = s_num(fam, "median_bw");
        o->deviation = s_num(fam, "deviation");
    }
    return rb_disks_ids_set(a, &ids);
}

/* Reads "steadystate" (absent: none) into a->ss; -ENOMEM. */
static int s_phase_steadystate(const rb_json_t *arr, rb_phase_agg_t *a)
{
    if (rb_json_len(arr) && !(a->ss = calloc(rb_json_len(arr), sizeof *a->ss)))
        return -ENOMEM;
    for (size_t i = 0; i < rb_json_len(arr); i++) {
        const rb_json_t *e = rb_json_at(arr, i);
        rb_agg_ss_t *ss = &a->ss[a->nss++];
        rb_json_get_str(e, "job", ss->job, sizeof ss->job);
        rb_json_get_str(e, "node", ss->node, sizeof ss->node);
        rb_json_get_str(e, "criterion", ss->criterion, sizeof ss->criterion);
        ss->dur_s = (uint32_t)rb_json_get_u64(e, "duration_s");
        ss->ramp_s = s_num(e, "ramp_s");
        ss->attained = rb_json_bool(rb_json_get(e, "attained"), 0);
        ss->after_s = s_num(e, "after_s");
        ss->figure = rb_json_num(rb_json_get(e, "figure"), -1);
        ss->mean = rb_json_num(rb_json_get(e, "mean"), -1);
    }
    return 0;
}

/* One phase object of summary.json into a. -EINVAL/-ENOMEM. */
static int s_phase(const rb_json_t *o, rb_phase_agg_t *a)
{
    int rc;
    memset(a, 0, sizeof *a);
    rb_json_get_str(o, "name", a->name, sizeof a->name);
    a->rw = rb_rw_parse(rb_json_str(rb_json_get(o, "rw")));
    a->bs = rb_json_get_u64(o, "bs");
    a->direct = rb_json_bool(rb_json_get(o, "direct"), 0);
    a->partial = rb_json_bool(rb_json_get(o, "partial"), 0);
    a->from_samples = rb_json_bool(rb_json_get(o, "from_samples"), 0);
    a->nworkers = (uint32_t)rb_json_get_u64(o, "workers");
    a->bytes = rb_json_get_u64(o, "bytes");
    a->ops = rb_json_get_u64(o, "ops");
    a->errors = rb_json_get_u64(o, "errors");
    a->read_bytes = rb_json_get_u64(o, "read_bytes");
    a->read_ops = rb_json_get_u64(o, "read_ops");
    a->verify_errors = rb_json_get_u64(o, "verify_errors");
    a->found = rb_json_get_u64(o, "found"); /* find steps only */
    const rb_json_t *fe = rb_json_get(o, "first_error");
    if (rb_json_type(fe) == RB_JSON_OBJ) {
        rb_json_get_str(fe, "node", a->error_node, sizeof a->error_node);
        rb_json_get_str(fe, "path", a->error_path, sizeof a->error_path);
        rb_json_get_str(fe, "message", a->error, sizeof a->error);
        a->error_offset = rb_json_get_u64(fe, "offset");
        a->error_code = -(int32_t)rb_json_get_u64(fe, "errno");
        if (!a->error_code)
            a->error_code = -EIO;
    }
    a->window_s = s_num(o, "window_s");
    a->sample_interval_s = s_num(o, "sample_interval_s");
    a->aggregate_bw = s_num(o, "aggregate_bw");
    a->sum_of_rates_bw = s_num(o, "sum_of_rates_bw");
    a->stonewall_bw = s_num(o, "stonewall_bw");
    a->stonewall_s = s_num(o, "stonewall_s");
    a->iops = s_num(o, "iops");
    a->start_skew_s = s_num(o, "start_skew_s");
    a->clock_error_s = s_num(o, "clock_error_s"); /* 0 in summaries from before it */
    const rb_json_t *wb = rb_json_get(o, "worker_bw");
    a->worker_bw_min = s_num(wb, "min");
    a->worker_bw_avg = s_num(wb, "avg");
    a->worker_bw_max = s_num(wb, "max");
    const rb_json_t *sw = rb_json_get(o, "stonewall_time");
    if (rb_json_type(sw) == RB_JSON_OBJ) {
        a->sw_limit_ns = (uint64_t)llround(s_num(sw, "limit_s") * 1e9);
        a->wearout = rb_json_bool(rb_json_get(sw, "wearout"), 0);
        a->sw_stopped = (uint32_t)rb_json_get_u64(sw, "stopped_workers");
        a->sw_bytes = rb_json_get_u64(sw, "bytes");
        a->sw_ops = rb_json_get_u64(sw, "ops");
        a->sw_s = s_num(sw, "seconds");
        a->sw_bw = s_num(sw, "bw");
        a->sw_ops_min = rb_json_get_u64(rb_json_get(sw, "worker_ops"), "min");
        a->sw_ops_max = rb_json_get_u64(rb_json_get(sw, "worker_ops"), "max");
    }
    a->cache_influenced = rb_json_bool(rb_json_get(o, "cache_influenced"), 0);
    const rb_json_t *c = rb_json_get(o, "cache");
    a->buffered_set = rb_json_get_u64(c, "buffered_bytes_per_node");
    a->ram_min = rb_json_get_u64(c, "node_ram_min");
    a->caches_dropped = (uint32_t)rb_json_get_u64(c, "dropped_nodes");
    a->drop_failed = (uint32_t)rb_json_get_u64(c, "drop_failed_nodes");
    a->drop_status = -(int32_t)rb_json_get_u64(c, "drop_errno");
    if (s_hist(o, &a->hist) < 0 || s_dirs_full(o, a->dir, a->lat) < 0)
        return -EINVAL;
    a->go_utc_ns = s_utc(o, "go_utc");
    a->first_start_utc_ns = s_utc(o, "first_start_utc");
    a->last_end_utc_ns = s_utc(o, "last_end_utc");

    const rb_json_t *nodes = rb_json_get(o, "nodes"), *jobs = rb_json_get(o, "job_stats");
    const rb_json_t *rows = rb_json_get(o, "per_worker"), *racks = rb_json_get(o, "racks");
    a->nnodes = (uint32_t)rb_json_len(nodes);
    a->njobs = (uint32_t)rb_json_len(jobs);
    a->nracks = (uint32_t)rb_json_len(racks);
    a->nodes = calloc(a->nnodes ? a->nnodes : 1, sizeof *a->nodes);
    a->jobs = calloc(a->njobs ? a->njobs : 1, sizeof *a->jobs);
    a->racks = calloc(a->nracks ? a->nracks : 1, sizeof *a->racks);
    a->rows = calloc(rb_json_len(rows) ? rb_json_len(rows) : 1, sizeof *a->rows);
    if (!a->nodes || !a->jobs || !a->racks || !a->rows)
        return -ENOMEM;
    if ((rc = s_phase_nodes(nodes, a)) < 0)
        return rc;
    if ((rc = s_phase_jobs(jobs, a)) < 0)
        return rc;
    if ((rc = s_phase_workers(rows, a)) < 0)
        return rc;
    for (uint32_t k = 0; k < a->nracks; k++)
        s_group(rb_json_at(racks, k), &a->racks[k]);
    s_group(rb_json_get(o, "cluster"), &a->cluster);
    if ((rc = s_phase_steadystate(rb_json_get(o, "steadystate"), a)) < 0)
        return rc;
    const rb_json_t *fs = rb_json_get(o, "findings");
    if ((rc = s_phase_findings(fs, a)) < 0)
        return rc;
    const rb_json_t *devs = rb_json_get(o, "devices");
    if ((rc = s_phase_devices(devs, a)) < 0 || (rc = s_phase_disks(rb_json_get(o, "disks"), a)) < 0)
        return rc;
    const rb_json_t *ib = rb_json_get(o, "interval_bw");
    const rb_json_t *pts = rb_json_get(ib, "bw");
    if (rb_json_type(ib) == RB_JSON_OBJ && rb_json_len(pts)) {
        a->bw_points = calloc(rb_json_len(pts), sizeof *a->bw_points);
        if (!a->bw_points)
            return -ENOMEM;
        a->nbw_points = (uint32_t)rb_json_len(pts);
        for (uint32_t k = 0; k < a->nbw_points; k++)
            a->bw_points[k] = rb_json_num(rb_json_at(pts, k), 0);
        a->bw_point_t0 = s_num(ib, "t0_s");
        a->bw_point_s = s_num(ib, "point_s");
    }
    const rb_json_t *st = rb_json_get(o, "steady");
    if (rb_json_type(st) == RB_JSON_OBJ) {
        a->steady.intervals = (uint32_t)rb_json_get_u64(st, "intervals");
        a->steady.interval_s = s_num(st, "interval_s");
        a->steady.median_bw = s_num(st, "median_bw");
        a->steady.min_bw = s_num(st, "min_bw");
        a->steady.peak_bw = s_num(st, "peak_bw");
        a->steady.sustained_s = s_num(st, "sustained_s");
    }
    return 0;
}

/* ---- the folder ---- */

void rb_result_run_unload(rb_loaded_run_t *out)
{
    for (uint32_t p = 0; out->phases && p < out->res.nphases; p++)
        rb_aggregate_phase_fini(&out->phases[p]);
    free(out->phases);
    for (uint32_t i = 0; out->hws && i < out->res.nnodes; i++)
        rb_host_free(&out->hws[i]);
    free(out->hws);
    free(out->nodes);
    free(out->health);
    rb_accept_result_fini(&out->acc);
    rb_project_result_fini(&out->proj);
    rb_plan_destroy(&out->plan);
    memset(out, 0, sizeof *out);
}

static int s_fail(rb_loaded_run_t *out, rb_err_t *err, int code, const char *fmt, const char *a,
                  const char *b)
{
    rb_err_set(err, code, fmt, a, b);
    rb_result_run_unload(out);
    return code;
}

/* The "nodes" of summary.json into out->nodes (allocated here). 0 or -ENOMEM. */
static int s_run_nodes(const rb_json_t *nodes, rb_loaded_run_t *out)
{
    rb_run_result_t *res = &out->res;
    res->nnodes = (uint32_t)rb_json_len(nodes);
    out->nodes = calloc(res->nnodes ? res->nnodes : 1, sizeof *out->nodes);
    out->hws = calloc(res->nnodes ? res->nnodes : 1, sizeof *out->hws);
    if (!out->nodes || !out->hws)
        return -ENOMEM;
    res->nodes = out->nodes;
    for (uint32_t i = 0; i < res->nnodes; i++) {
        const rb_json_t *n = rb_json_at(nodes, i);
        rb_report_node_t *o = &out->nodes[i];
        rb_json_get_str(n, "name", o->name, sizeof o->name);
        rb_json_get_str(n, "rack", o->rack, sizeof o->rack);
        rb_json_get_str(n, "hostname", o->hostname, sizeof o->hostname);
        rb_json_get_str(n, "version", o->version, sizeof o->version);
        rb_json_get_str(n, "build", o->build, sizeof o->build);
        o->protocol = (uint32_t)rb_json_get_u64(n, "protocol");
        o->status = s_status(rb_json_str(rb_json_get(n, "status")));
        rb_json_get_str(n, "error", o->error, sizeof o->error);
        o->cores = (uint32_t)rb_json_get_u64(n, "cores");
        o->ram_bytes = rb_json_get_u64(n, "ram_bytes");
        o->clock_offset_ns = (int64_t)llround(s_num(n, "clock_offset_s") * 1e9);
        o->clock_rtt_ns = (uint64_t)llround(s_num(n, "clock_rtt_s") * 1e9);
        o->removed_files = rb_json_get_u64(n, "removed_files");
        const char *cl = rb_json_str(rb_json_get(n, "cleanup"));
        for (int c = RB_CLEANUP_CONFIRMED; cl && rb_report_cleanup_name((rb_cleanup_t)c); c++)
            if (!strcmp(cl, rb_report_cleanup_name((rb_cleanup_t)c)))
                o->cleanup = (rb_cleanup_t)c;
        o->lost_at_s = rb_json_num(rb_json_get(n, "lost_at_s"), -1);
        const rb_json_t *host = rb_json_get(n, "host");
        if (rb_json_type(host) != RB_JSON_OBJ)
            continue;
        if (rb_host_json_read(host, &out->hws[i]) < 0)
            return -ENOMEM;
        o->hw = out->hws[i];
    }
    return 0;
}

/* 1 when dir's plan.ini is locked: its coordinator is still running it. */
static int s_locked(const char *dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/plan.ini", dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int locked = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
    close(fd);
    return locked;
}

int rb_result_run_load(const char *dir, rb_loaded_run_t *out, rb_err_t *err)
{
    char path[PATH_MAX + 32];
    memset(out, 0, sizeof *out);
    snprintf(out->dir, sizeof out->dir, "%s", dir);
    snprintf(path, sizeof path, "%s/plan.ini", dir);
    int rc = rb_plan_load(path, &out->plan, err);
    if (rc < 0) {
        rb_result_run_unload(out);
        return rc;
    }
    const rb_plan_t *pl = out->plan;
    rb_run_result_t *res = &out->res;
    res->plan_source = pl->source;
    res->specs = pl->phases;
    res->iters = pl->iters;
    res->nplanned = pl->nphases;
    res->interval_s = (double)pl->interval_ns / 1e9;
    out->phases = calloc(pl->nphases ? pl->nphases : 1, sizeof *out->phases);
    if (!out->phases)
        return s_fail(out, err, -ENOMEM, "%s: out of memory%s", dir, "");
    res->phases = out->phases;

    snprintf(path, sizeof path, "%s/summary.json", dir);
    rb_err_t jerr;
    rb_err_clear(&jerr);
    rb_json_t *j = rb_json_load(path, &jerr);
    if (!j && jerr.code != -ENOENT)
        return s_fail(out, err, jerr.code ? jerr.code : -EINVAL, "%s: %s", path, jerr.msg);
    char schema[RB_NAME_MAX] = "(none)";
    if (j && rb_json_str(rb_json_get(j, "schema")))
        rb_json_get_str(j, "schema", schema, sizeof schema);
    if (j && strcmp(schema, RB_SUMMARY_SCHEMA) != 0) {
        rb_json_free(&j);
        return s_fail(out, err, -EPROTO, "%s: schema %s, this rackbench reads " RB_SUMMARY_SCHEMA,
                      path, schema);
    }
    if (j) {
        rb_json_get_str(j, "run_id", res->run_id, sizeof res->run_id);
        rb_json_get_str(j, "rackbench_build", res->build, sizeof res->build);
        rb_json_get_str(j, "plan", out->source, sizeof out->source);
        if (out->source[0])
            res->plan_source = out->source;
        res->started_wall_ns = rb_time_iso_parse(rb_json_str(rb_json_get(j, "started")));
        res->duration_s = s_num(j, "duration_s");
        const char *st = rb_json_str(rb_json_get(j, "status"));
        res->running = st && !strcmp(st, "running");
        res->status = st && !strcmp(st, "failed");
        rb_json_get_str(j, "error", res->error, sizeof res->error);
        res->dropped_messages = (uint32_t)rb_json_get_u64(j, "dropped_messages");
        if (s_run_nodes(rb_json_get(j, "nodes"), out) < 0 ||
            rb_drives_read(rb_json_get(j, "drive_health"), out->nodes, res->nnodes, &out->health) <
                0) {
            rb_json_free(&j);
            return s_fail(out, err, -ENOMEM, "%s: out of memory%s", dir, "");
        }
        const rb_json_t *phases = rb_json_get(j, "phases");
        if (rb_json_len(phases) > pl->nphases) {
            rb_json_free(&j);
            return s_fail(out, err, -EINVAL, "%s: more phases than %s has", path, "plan.ini");
        }
        for (uint32_t p = 0; p < rb_json_len(phases); p++) {
            res->nphases = p + 1;
            rc = s_phase(rb_json_at(phases, p), &out->phases[p]);
            if (rc == 0 && strcmp(out->phases[p].name, pl->phases[p].name) != 0)
                rc = -EINVAL;
            if (rc == 0)
                rc = rb_report_net_read(rb_json_at(phases, p), &out->phases[p], &pl->phases[p]);
            if (rc < 0) {
                char what[64];
                snprintf(what, sizeof what, "phase %u ('%.32s')", p + 1, out->phases[p].name);
                rb_json_free(&j);
                return s_fail(out, err, rc, "%s: %s does not fit plan.ini, or is damaged", path,
                              what);
            }
        }
        rb_json_free(&j);
    } else {
        /* cut off before the first phase ended: nothing but the samples */
        res->running = 1;
        const char *slash = strrchr(dir, '/');
        snprintf(res->run_id, sizeof res->run_id, "%s", slash ? slash + 1 : dir);
    }
    if (res->running) {
        res->live = s_locked(dir);
        if (rb_result_cut_seen(dir, out) < 0)
            return s_fail(out, err, -ENOMEM, "%s: samples.csv cannot be read%s", dir, "");
    }
    /* the phase in progress when the run was cut off, from its samples */
    if (res->running && res->nphases < pl->nphases &&
        rb_result_phase_from_samples(dir, &pl->phases[res->nphases],
                                     pl->interval_auto ? 0 : (double)pl->interval_ns / 1e9,
                                     &out->phases[res->nphases]) == 0) {
        res->nphases++;
        out->from_samples = 1;
    }
    if (pl->accept) {
        if (rb_accept_result_eval(pl->accept, pl->phases, pl->iters, pl->nphases, out->phases,
                                  res->nphases, &out->acc) < 0 ||
            rb_drives_accept(pl->accept, res, &out->acc) < 0)
            return s_fail(out, err, -ENOMEM, "%s: out of memory%s", dir, "");
        res->accept = &out->acc;
    }
    if (pl->project) {
        double *fs = calloc(res->nnodes ? res->nnodes : 1, sizeof *fs);
        for (uint32_t i = 0; fs && i < res->nnodes; i++)
            fs[i] = rb_project_fs_bytes(out->nodes[i].hw);
        int rc = fs ? rb_project_result_eval(pl->project, pl->phases, pl->iters, pl->nphases,
                                             out->phases, res->nphases, fs, res->nnodes, &out->proj)
                    : -ENOMEM;
        free(fs);
        if (rc < 0)
            return s_fail(out, err, -ENOMEM, "%s: out of memory%s", dir, "");
        res->projection = &out->proj;
    }
    return 0;
}
