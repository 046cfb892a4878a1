/* The counters behind --metrics, kept per node as samples arrive, and the
 * two documents the run loop hands to the HTTP server: the exposition text
 * (Prometheus text format 0.0.4) and the live page. The loop is the only
 * writer; the server thread sees only the finished texts. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rb_drives.h"
#include "rb_httpd.h"
#include "rb_log.h"
#include "rb_metrics.h"
#include "rb_netfig.h"
#include "rb_reporter.h"
#include "rb_result.h"
#include "rb_time.h"
#include "rb_units.h"

#define S_NLE          16                   /* latency buckets, +Inf the last */
#define S_PAGE_EVERY   (2 * RB_NS_PER_S)    /* the live page is rebuilt this often */
#define S_PAGE_REFRESH 3                    /* and reloads itself every this many seconds */
#define S_LINGER_MAX   (3600 * RB_NS_PER_S) /* --metrics-linger at most */
#define S_LINGER_TICK  (20 * RB_NS_PER_MS)  /* how often the linger looks for its end */

/* Upper bounds of the latency buckets, seconds (the last is +Inf). */
static const double s_le[S_NLE - 1] = {50e-6, 100e-6, 250e-6, 500e-6, 1e-3,   2.5e-3, 5e-3, 10e-3,
                                       25e-3, 50e-3,  100e-3, 250e-3, 500e-3, 1.0,    2.5};

/* One node's (or rack's, or the cluster's) counters since the run began. */
typedef struct s_count {
    uint64_t bytes[RB_NDIRS], ops[RB_NDIRS];
    uint64_t lat[RB_NDIRS][S_NLE]; /* completions per bucket (not cumulative) */
    uint64_t lat_n[RB_NDIRS];      /* completions timed */
    double lat_sum[RB_NDIRS];      /* their latency, seconds */
} s_count_t;

struct rb_metrics {
    rb_httpd_t *httpd;
    s_count_t *nodes; /* by fleet index */
    uint32_t nnodes;
    uint64_t next_page; /* when / is next rebuilt */
    int finished;       /* the reports are written: the texts are final */
    int exit_code;      /* the run's, once finished */
};

int rb_metrics_parse_linger(FILE *err, const char *cmd, const char *val, uint64_t *out)
{
    if (rb_units_parse_duration_ns(val, RB_NS_PER_S, out) < 0 || *out > S_LINGER_MAX) {
        fprintf(err,
                "%s: --metrics-linger %s: expected a duration from 0 (close at the end) to 1h "
                "(30, 30s, 2m)\n",
                cmd, val);
        return -1;
    }
    return 0;
}

int rb_metrics_check(const rb_run_opts_t *o)
{
    if (!o->metrics && (o->metrics_inventory || o->metrics_linger_set)) {
        fprintf(stderr, "rackbench run: %s goes with --metrics ADDR\n",
                o->metrics_inventory ? "--metrics-inventory" : "--metrics-linger");
        return 2;
    }
    if (!o->metrics)
        return 0;
    struct sockaddr_storage addr;
    int loopback;
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_httpd_parse_addr(o->metrics, &addr, &loopback, &err) < 0) {
        fprintf(stderr, "rackbench run: %s\n", err.msg);
        return 2;
    }
    if (!loopback && o->insecure) {
        fprintf(stderr,
                "rackbench run: --metrics %s: not a loopback address, and --insecure turns CURVE "
                "off: serve the metrics on 127.0.0.1 (or a lone port), or run with CURVE\n",
                o->metrics);
        return 2;
    }
    return 0;
}

int rb_metrics_start(rb_run_ctx_t *r)
{
    if (!r->o->metrics)
        return 0;
    rb_err_t err;
    rb_err_clear(&err);
    rb_metrics_t *m = calloc(1, sizeof *m);
    if (!m) {
        rb_run_fail(r, "out of memory");
        return -ENOMEM;
    }
    if (!(m->httpd = rb_httpd_new(r->o->metrics, &err))) {
        free(m);
        rb_run_fail(r, "%s", err.msg);
        return err.code;
    }
    r->metrics = m;
    rb_info("metrics on %s (port %u): /metrics and the live page /", r->o->metrics,
            (unsigned)rb_httpd_port(m->httpd));
    rb_metrics_publish(r, "gathering");
    return 0;
}

void rb_metrics_sample(rb_run_ctx_t *r, uint32_t node, const rb_job_stat_t *js)
{
    rb_metrics_t *m = r->metrics;
    if (!m)
        return;
    if (node >= m->nnodes) {
        uint32_t n = r->fleet.n > node ? r->fleet.n : node + 1;
        s_count_t *more = realloc(m->nodes, n * sizeof *more);
        if (!more)
            return; /* out of memory: this sample is not counted */
        memset(more + m->nnodes, 0, (n - m->nnodes) * sizeof *more);
        m->nodes = more;
        m->nnodes = n;
    }
    s_count_t *c = &m->nodes[node];
    const uint64_t bytes[RB_NDIRS] = {js->read_bytes, js->write_bytes, js->trim_bytes};
    const uint64_t ops[RB_NDIRS] = {js->read_ops, js->write_ops, js->trim_ops};
    for (int d = 0; d < RB_NDIRS; d++) {
        c->bytes[d] += bytes[d];
        c->ops[d] += ops[d];
        const rb_hist_t *h = js->lat[d][RB_LAT_LAT];
        if (!h || !h->count)
            continue;
        /* each bucket of the histogram by its middle (within RB_HIST_REL_ERROR),
         * only those between its smallest and largest value */
        unsigned k = 0, last = rb_hist_index(h->max);
        for (unsigned i = rb_hist_index(h->min); i <= last && i < RB_HIST_NBUCKETS; i++) {
            if (!h->b[i])
                continue;
            double mid = ((double)rb_hist_bucket_lo(i) + (double)rb_hist_bucket_hi(i)) / 2e9;
            while (k < S_NLE - 1 && mid > s_le[k])
                k++;
            c->lat[d][k] += h->b[i];
        }
        c->lat_n[d] += h->count;
        c->lat_sum[d] += (double)h->sum / 1e9;
    }
}

static void s_add(s_count_t *dst, const s_count_t *src)
{
    for (int d = 0; d < RB_NDIRS; d++) {
        dst->bytes[d] += src->bytes[d];
        dst->ops[d] += src->ops[d];
        for (int k = 0; k < S_NLE; k++)
            dst->lat[d][k] += src->lat[d][k];
        dst->lat_n[d] += src->lat_n[d];
        dst->lat_sum[d] += src->lat_sum[d];
    }
}

/* A label value as the text format wants it: \, " and newline escaped. */
static void s_label(FILE *f, const char *key, const char *val, int comma)
{
    fprintf(f, "%s%s=\"", comma ? "," : "", key);
    for (const char *p = val; *p; p++) {
        if (*p == '\\' || *p == '"')
            fputc('\\', f);
        if (*p == '\n')
            fputs("\\n", f);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* Labels of one series: node and rack (either may be NULL), direction. */
static void s_labels(FILE *f, const char *node, const char *rack, int d)
{
    int comma = 0;
    if (node) {
        s_label(f, "node", node, comma);
        comma = 1;
    }
    if (rack) {
        s_label(f, "rack", rack, comma);
        comma = 1;
    }
    s_label(f, "direction", rb_dir_name((rb_dir_t)d), comma);
}

static void s_head(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP rackbench_%s %s\n# TYPE rackbench_%s %s\n", name, help, name, type);
}

/* The bytes (or ops) counters of c, labelled node/rack. */
static void s_counts(FILE *f, const char *name, const char *node, const char *rack,
                     const s_count_t *c, int ops)
{
    for (int d = 0; d < RB_NDIRS; d++) {
        fprintf(f, "rackbench_%s{", name);
        s_labels(f, node, rack, d);
        fprintf(f, "} %llu\n", (unsigned long long)(ops ? c->ops[d] : c->bytes[d]));
    }
}

static void s_hist(FILE *f, const char *name, const char *node, const char *rack,
                   const s_count_t *c)
{
    for (int d = 0; d < RB_NDIRS; d++) {
        uint64_t cum = 0;
        for (int k = 0; k < S_NLE; k++) {
            cum += c->lat[d][k];
            fprintf(f, "rackbench_%s_bucket{", name);
            s_labels(f, node, rack, d);
            if (k < S_NLE - 1)
                fprintf(f, ",le=\"%g\"} %llu\n", s_le[k], (unsigned long long)cum);
            else
                fprintf(f, ",le=\"+Inf\"} %llu\n", (unsigned long long)cum);
        }
        fprintf(f, "rackbench_%s_sum{", name);
        s_labels(f, node, rack, d);
        fprintf(f, "} %.9g\n", c->lat_sum[d]);
        fprintf(f, "rackbench_%s_count{", name);
        s_labels(f, node, rack, d);
        fprintf(f, "} %llu\n", (unsigned long long)c->lat_n[d]);
    }
}

/* Every family at one level: per node (racks NULL), per rack or the cluster. */
static void s_families(FILE *f, const rb_run_ctx_t *r, const rb_metrics_t *m, int level,
                       const s_count_t *racks, char (*rack_names)[RB_NAME_MAX], uint32_t nracks,
                       const s_count_t *all)
{
    static const char *const pre[3] = {"", "rack_", "cluster_"};
    static const char *const who[3] = {"a node", "a rack's nodes", "all nodes"};
    static const s_count_t zero;
    char name[64], help[160];
    for (int kind = 0; kind < 3; kind++) {
        const char *base = kind == 0 ? "bytes_total" : kind == 1 ? "ops_total" : "latency_seconds";
        snprintf(name, sizeof name, "%s%s", pre[level], base);
        snprintf(help, sizeof help, "%s by %s since the run began, per direction",
                 kind == 0   ? "Bytes moved"
                 : kind == 1 ? "IOs completed"
                             : "Latency (lat: prepared to completed) of the IOs completed",
                 who[level]);
        s_head(f, name, kind == 2 ? "histogram" : "counter", help);
        uint32_t n = level == 0 ? r->fleet.n : level == 1 ? nracks : 1;
        for (uint32_t i = 0; i < n; i++) {
            const char *node = level == 0 ? r->fleet.nodes[i].hello.name : NULL;
            const char *rack = level == 0   ? r->fleet.nodes[i].hello.rack
                               : level == 1 ? rack_names[i]
                                            : NULL;
            const s_count_t *c = level == 0   ? (i < m->nnodes ? &m->nodes[i] : &zero)
                                 : level == 1 ? &racks[i]
                                              : all;
            if (kind == 2)
                s_hist(f, name, node, rack, c);
            else
                s_counts(f, name, node, rack, c, kind == 1);
        }
    }
}

/* The network phases done so far: each link's rate as its receiver
 * counted it, and the connections each node's data port refused. */
static void s_net(FILE *f, const rb_run_ctx_t *r)
{
    s_head(f, "link_gbps", "gauge",
           "A network phase's link: Gbit/s its receiver got from its sender over the phase");
    s_head(f, "link_slow", "gauge", "1 for a link well below the phase's others (slow-link)");
    s_head(f, "net_refused", "gauge",
           "Connections a node's data port turned away in a network phase (not of the run)");
    for (uint32_t p = 0; p < r->phases_run; p++) {
        const rb_phase_agg_t *a = &r->aggs[p];
        const rb_net_fig_t *nf = a->net;
        for (uint32_t i = 0; nf && i < nf->nlinks; i++) {
            const rb_net_link_fig_t *l = &nf->links[i];
            if (l->from >= a->nnodes || l->to >= a->nnodes)
                continue;
            for (int k = 0; k < 2; k++) {
                fputs(k ? "rackbench_link_slow{" : "rackbench_link_gbps{", f);
                s_label(f, "phase", a->name, 0);
                s_label(f, "from", a->nodes[l->from].name, 1);
                s_label(f, "to", a->nodes[l->to].name, 1);
                if (k)
                    fprintf(f, "} %d\n", l->slow);
                else
                    fprintf(f, "} %.6f\n", l->gbps);
            }
        }
        for (uint32_t n = 0; nf && n < nf->nnodes && n < a->nnodes; n++) {
            fputs("rackbench_net_refused{", f);
            s_label(f, "phase", a->name, 0);
            s_label(f, "node", a->nodes[n].name, 1);
            fprintf(f, "} %llu\n", (unsigned long long)nf->nodes[n].refused);
        }
    }
}

/* One drive's series: its status, and each counter it reports before and
 * after the run. */
static void s_drive(FILE *f, const rb_drive_t *x)
{
    static const char *const readings[2] = {"before", "after"};
    const rb_health_t *h = rb_drive_last(x);
    if (!h->model[0] && !h->serial[0] && x->before && x->after) /* not read after: as before */
        h = x->before;
    fputs("rackbench_drive_health_status{", f);
    s_label(f, "node", x->node, 0);
    s_label(f, "device", h->dev, 1);
    s_label(f, "model", h->model, 1);
    s_label(f, "serial", h->serial, 1);
    fprintf(f, "} %d\n", (int)x->status);
    for (int c = 0; c < RB_HC_COUNT; c++)
        for (int k = 0; k < 2; k++) {
            const rb_health_t *rd = k ? x->after : x->before;
            uint64_t v = rd ? rb_health_counter(rd, (rb_health_counter_t)c) : RB_HEALTH_NA;
            if (v == RB_HEALTH_NA)
                continue;
            fputs("rackbench_drive_health_counter{", f);
            s_label(f, "node", x->node, 0);
            s_label(f, "device", rd->dev, 1);
            s_label(f, "serial", rd->serial, 1);
            s_label(f, "counter", rb_health_counter_name((rb_health_counter_t)c), 1);
            s_label(f, "reading", readings[k], 1);
            fprintf(f, "} %llu\n", (unsigned long long)v);
        }
}

/* A drive's node is nodes[i].name, the first field of nodes[i]: i. */
_Static_assert(offsetof(rb_report_node_t, name) == 0, "a node's name opens it");
static size_t s_node_of(const rb_report_node_t *nodes, const char *name)
{
    return (size_t)((const rb_report_node_t *)(const void *)name - nodes);
}

/* The drives' health, once the run has ended and its readings after it came
 * (finished; heads only before): per node its drives by status, and with
 * --metrics-inventory (inventory) each drive's status and counters, labelled
 * with its device, model and serial. 0, or -1 out of memory. */
static int s_drives(FILE *f, const rb_run_ctx_t *r, int finished, int inventory)
{
    s_head(f, "drives", "gauge",
           "A node's drives by health status after the run (ok, worse, failing, not read; "
           "absent before the run has ended)");
    if (inventory) {
        s_head(f, "drive_health_status", "gauge",
               "A drive's health after the run: 0 ok, 1 worse, 2 failing, 3 not read (absent "
               "before the run has ended)");
        s_head(f, "drive_health_counter", "gauge",
               "A drive's health counter read before and after the run (absent when the drive "
               "does not report it)");
    }
    if (!finished || !r->fleet.n)
        return 0;
    /* the nodes as the reports see them: their names, protocols and readings */
    rb_report_node_t *nodes = calloc(r->fleet.n, sizeof *nodes);
    uint32_t(*by)[RB_DRIVE_NOT_READ + 1] = calloc(r->fleet.n, sizeof *by);
    rb_drives_t d = {0};
    int rc = -1;
    if (!nodes || !by)
        goto out;
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        const rb_fleet_node_t *n = &r->fleet.nodes[i];
        snprintf(nodes[i].name, sizeof nodes[i].name, "%s", n->hello.name);
        nodes[i].protocol = n->hello.version;
    }
    if (rb_fleet_health(&r->fleet, nodes) < 0)
        goto out;
    rb_run_result_t res = {.nnodes = r->fleet.n, .nodes = nodes};
    if (rb_drives_build(&res, &d) < 0)
        goto out;
    for (uint32_t e = 0; e < d.n; e++) {
        size_t i = s_node_of(nodes, d.d[e].node);
        if (i < r->fleet.n && (unsigned)d.d[e].status <= RB_DRIVE_NOT_READ)
            by[i][d.d[e].status]++;
    }
    for (uint32_t i = 0; i < r->fleet.n; i++)
        for (int st = 0; st <= RB_DRIVE_NOT_READ && (by[i][0] | by[i][1] | by[i][2] | by[i][3]);
             st++) {
            fputs("rackbench_drives{", f);
            s_label(f, "node", nodes[i].name, 0);
            s_label(f, "status", rb_drive_status_name((rb_drive_status_t)st), 1);
            fprintf(f, "} %u\n", by[i][st]);
        }
    for (uint32_t e = 0; inventory && e < d.n; e++)
        s_drive(f, &d.d[e]);
    rc = 0;
out:
    rb_drives_fini(&d);
    free(by);
    rb_fleet_health_free(&r->fleet, nodes);
    free(nodes);
    return rc;
}

/* The text of /metrics (malloc'd into *buf), the run in state; 0, or -1
 * out of memory. */
static int s_text(rb_run_ctx_t *r, const char *state, char **buf, size_t *len)
{
    rb_metrics_t *m = r->metrics;
    *buf = NULL;
    *len = 0;
    FILE *f = open_memstream(buf, len);
    s_count_t *racks = calloc(r->fleet.n ? r->fleet.n : 1, sizeof *racks);
    char(*rack_names)[RB_NAME_MAX] = calloc(r->fleet.n ? r->fleet.n : 1, RB_NAME_MAX);
    s_count_t all = {0};
    if (!f || !racks || !rack_names) {
        if (f)
            fclose(f);
        free(*buf);
        free(racks);
        free(rack_names);
        return -1;
    }
    uint32_t nracks = 0;
    for (uint32_t i = 0; i < r->fleet.n && i < m->nnodes; i++) {
        const char *rack = r->fleet.nodes[i].hello.rack;
        uint32_t k = 0;
        while (k < nracks && strcmp(rack_names[k], rack) != 0)
            k++;
        if (k == nracks)
            snprintf(rack_names[nracks++], RB_NAME_MAX, "%s", rack);
        s_add(&racks[k], &m->nodes[i]);
        s_add(&all, &m->nodes[i]);
    }
    for (int level = 0; level < 3; level++)
        s_families(f, r, m, level, racks, rack_names, nracks, &all);
    /* nodes by status */
    uint32_t by[RB_NODE_MISSING + 1] = {0};
    for (uint32_t i = 0; i < r->fleet.n; i++)
        if ((unsigned)r->fleet.nodes[i].status <= RB_NODE_MISSING)
            by[r->fleet.nodes[i].status]++;
    s_head(f, "nodes", "gauge", "Nodes of the run by status (ok, failed, lost, refused, missing)");
    for (int s = 0; s <= RB_NODE_MISSING; s++) {
        fputs("rackbench_nodes{", f);
        s_label(f, "status", rb_aggregate_node_status_name((rb_node_status_t)s), 0);
        fprintf(f, "} %u\n", by[s]);
    }
    /* the builds: the coordinator's (node ""), and each agent's */
    s_head(f, "build_info", "gauge",
           "The builds of the run, the coordinator's (node \"\") and each agent's, and the "
           "protocol each speaks; always 1");
    char proto[16];
    snprintf(proto, sizeof proto, "%u", rb_proto_speak());
    fputs("rackbench_build_info{", f);
    s_label(f, "node", "", 0);
    s_label(f, "build", rb_build_id(), 1);
    s_label(f, "protocol", proto, 1);
    fputs("} 1\n", f);
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        const rb_fleet_node_t *n = &r->fleet.nodes[i];
        snprintf(proto, sizeof proto, "%u", n->hello.version);
        fputs("rackbench_build_info{", f);
        s_label(f, "node", n->hello.name, 0);
        s_label(f, "build", n->hello.build, 1);
        s_label(f, "protocol", proto, 1);
        fputs("} 1\n", f);
    }
    /* the run and its phase */
    int running = !strcmp(state, "running");
    s_head(f, "run_info", "gauge",
           "The run: its id and state (gathering, running, ended); always 1");
    fputs("rackbench_run_info{", f);
    s_label(f, "run_id", r->run_id, 0);
    s_label(f, "state", state, 1);
    fputs("} 1\n", f);
    s_head(f, "phases", "gauge", "Phases the plan runs");
    fprintf(f, "rackbench_phases %u\n", r->plan->nphases);
    s_head(f, "phase_index", "gauge", "The phase running, from 1 (0: none)");
    fprintf(f, "rackbench_phase_index %u\n", running ? r->cur_phase + 1 : 0);
    s_head(f, "phase_info", "gauge", "The phase running, by name; always 1");
    if (running) {
        char idx[16];
        snprintf(idx, sizeof idx, "%u", r->cur_phase + 1);
        fputs("rackbench_phase_info{", f);
        s_label(f, "phase", r->plan->phases[r->cur_phase].name, 0);
        s_label(f, "index", idx, 1);
        fputs("} 1\n", f);
    }
    uint32_t findings = 0;
    for (uint32_t p = 0; p < r->phases_run; p++)
        findings += r->aggs[p].nfindings;
    s_head(f, "findings", "gauge", "Findings of the phases done so far (stragglers, stalls, ...)");
    fprintf(f, "rackbench_findings %u\n", findings);
    s_head(f, "phases_done", "gauge", "Phases whose figures are made");
    fprintf(f, "rackbench_phases_done %u\n", r->phases_run);
    s_net(f, r);
    /* the end: its reports written, the exit code they make */
    s_head(f, "run_finished", "gauge",
           "1 once the run has ended and its reports are written (the values are final), 0 "
           "before");
    fprintf(f, "rackbench_run_finished %d\n", m->finished);
    s_head(f, "run_exit_code", "gauge",
           "The run's exit code once it has finished: 0 ok, 1 an acceptance check failed, 3 the "
           "run failed or was stopped (absent before)");
    if (m->finished)
        fprintf(f, "rackbench_run_exit_code %d\n", m->exit_code);
    int bad = s_drives(f, r, m->finished, r->o->metrics_inventory) < 0;
    free(racks);
    free(rack_names);
    if (fclose(f) != 0 || bad) {
        free(*buf);
        return -1;
    }
    return 0;
}

void rb_metrics_publish(rb_run_ctx_t *r, const char *state)
{
    char *buf;
    size_t len;
    if (!r->metrics || s_text(r, state, &buf, &len) < 0)
        return; /* out of memory: the last text stays */
    rb_httpd_set(r->metrics->httpd, RB_HTTPD_METRICS, buf, len);
    free(buf);
}

void rb_metrics_page(rb_run_ctx_t *r, uint64_t now, int force)
{
    rb_metrics_t *m = r->metrics;
    if (!m || !r->dir[0] || (!force && now < m->next_page))
        return;
    m->next_page = now + S_PAGE_EVERY;
    if (r->samples)
        fflush(r->samples); /* the current phase's rows, for its curve */
    rb_loaded_run_t run;
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_result_run_load(r->dir, &run, &err) < 0) {
        rb_debug("live page: %s", err.msg);
        return;
    }
    run.res.live = !m->finished;
    /* what the page may say: the plan as written, the hosts' inventory when asked */
    run.res.plan_written = r->plan->written;
    run.res.no_inventory = !r->o->metrics_inventory;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        rb_result_run_unload(&run);
        return;
    }
    int rc = rb_reporter_find("html")->render(&run.res, run.dir, f);
    rb_result_run_unload(&run);
    /* the page reads the whole samples.csv: on a long run of many nodes it
     * is rebuilt less often, never taking more than a tenth of the loop */
    uint64_t took = rb_time_mono_ns() - now;
    if (now + 10 * took > m->next_page)
        m->next_page = now + 10 * took;
    if (fclose(f) != 0 || rc < 0) {
        free(buf);
        return;
    }
    /* reloads itself while the run goes */
    char meta[96] = "";
    int ml = m->finished
                 ? 0
                 : snprintf(meta, sizeof meta, "<meta http-equiv=\"refresh\" content=\"%d\"/>\n",
                            S_PAGE_REFRESH);
    const char *head = strstr(buf, "<head>\n");
    size_t at = head ? (size_t)(head - buf) + 7 : 0;
    char *page = malloc(len + (size_t)ml + 1);
    if (page) {
        memcpy(page, buf, at);
        memcpy(page + at, meta, (size_t)ml);
        memcpy(page + at + ml, buf + at, len - at);
        rb_httpd_set(m->httpd, RB_HTTPD_PAGE, page, len + (size_t)ml);
    }
    free(page);
    free(buf);
}

void rb_metrics_linger(rb_run_ctx_t *r, int code)
{
    rb_metrics_t *m = r->metrics;
    if (!m)
        return;
    m->finished = 1;
    m->exit_code = code;
    char *buf;
    size_t len;
    unsigned scrapers = 0;
    if (s_text(r, "ended", &buf, &len) < 0)
        return; /* out of memory: nothing final to serve */
    int bad = rb_httpd_set_final(m->httpd, buf, len, &scrapers) < 0;
    free(buf);
    uint64_t linger = r->o->metrics_linger_set ? r->o->metrics_linger_ns : RB_METRICS_LINGER_NS;
    /* a signal asked the command to end: it ends */
    if (bad || !linger || rb_run_interrupted)
        return;
    uint64_t now = rb_time_mono_ns(), deadline = now + linger;
    rb_metrics_page(r, now, 1); /* the report as written, no longer running */
    fflush(stdout);             /* the report, read before the wait */
    char wait[96];
    if (scrapers > 1)
        snprintf(wait, sizeof wait, "until each of the %u addresses that scraped it has read it",
                 scrapers);
    else
        snprintf(wait, sizeof wait, "until one scrape");
    rb_info("the run is over: serving its final /metrics on port %u for up to %g s, %s "
            "(Ctrl-C stops now)",
            (unsigned)rb_httpd_port(m->httpd), (double)linger / 1e9, wait);
    while (!rb_httpd_settled(m->httpd) && !rb_run_interrupted &&
           (now = rb_time_mono_ns()) < deadline) {
        struct timespec ts = {0, S_LINGER_TICK};
        nanosleep(&ts, NULL);
    }
    rb_info("the final /metrics %s: closing port %u",
            rb_httpd_settled(m->httpd) ? "scraped"
            : rb_run_interrupted       ? "no longer served (stopped)"
                                       : "not scraped in time",
            (unsigned)rb_httpd_port(m->httpd));
}

void rb_metrics_stop(rb_run_ctx_t *r)
{
    rb_metrics_t *m = r->metrics;
    if (!m)
        return;
    rb_httpd_destroy(&m->httpd);
    free(m->nodes);
    free(m);
    r->metrics = NULL;
}
