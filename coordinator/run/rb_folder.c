/* The run folder runs/<run-id>/ as the run writes it: plan.ini, the CSV
 * files, summary.json after each phase (a run cut off can be rendered),
 * and the reports at the end. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rb_accept_result.h"
#include "rb_csv.h"
#include "rb_drives.h"
#include "rb_fiolog.h"
#include "rb_folder.h"
#include "rb_fs.h"
#include "rb_log.h"
#include "rb_project_result.h"
#include "rb_report.h"
#include "rb_reporter.h"
#include "rb_time.h"

#define S_CSV_BUF (1 << 20) /* stdio buffer of samples.csv, telemetry.csv and latency.csv */
static int s_write_file(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    fputs(text, f);
    return fclose(f) == 0 ? 0 : -errno;
}

/* The nodes as the reports take them (s_nodes_free): each one's drives'
 * health whole, which the fleet keeps packed. */
static rb_report_node_t *s_nodes(rb_run_ctx_t *r)
{
    rb_report_node_t *nodes = calloc(r->fleet.n ? r->fleet.n : 1, sizeof *nodes);
    if (nodes && rb_fleet_health(&r->fleet, nodes) < 0)
        rb_run_fail(r, "out of memory reading the agents' drives' health");
    return nodes;
}

static void s_nodes_free(rb_run_ctx_t *r, rb_report_node_t *nodes)
{
    rb_fleet_health_free(&r->fleet, nodes);
    free(nodes);
}

/* The run so far as the reports take it; nodes (s_nodes) has r->fleet.n
 * entries. */
static rb_run_result_t s_result(rb_run_ctx_t *r, rb_report_node_t *nodes, int *failed_nodes)
{
    *failed_nodes = 0;
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        const rb_fleet_node_t *n = &r->fleet.nodes[i];
        rb_report_node_t *o = &nodes[i];
        snprintf(o->name, sizeof o->name, "%s", n->hello.name);
        snprintf(o->rack, sizeof o->rack, "%s", n->hello.rack);
        snprintf(o->hostname, sizeof o->hostname, "%s", n->hello.hostname);
        snprintf(o->version, sizeof o->version, "%s", n->hello.agent_version);
        snprintf(o->build, sizeof o->build, "%s", n->hello.build);
        o->protocol = n->hello.version;
        o->status = n->status;
        snprintf(o->error, sizeof o->error, "%s", n->error);
        o->cores = n->hello.cores;
        o->ram_bytes = n->hello.ram_bytes;
        o->clock_offset_ns = n->offset_ns;
        o->clock_rtt_ns = n->best_rtt_ns == UINT64_MAX ? 0 : n->best_rtt_ns;
        o->removed_files = n->removed_files;
        o->cleanup = (rb_cleanup_t)n->cleanup;
        o->hw = n->hello.hw;
        o->lost_at_s = n->status == RB_NODE_LOST && n->out_ns > r->t_start
                           ? (double)(n->out_ns - r->t_start) / 1e9
                           : -1;
        *failed_nodes += n->status != RB_NODE_OK;
    }
    rb_run_result_t res = {.plan_source = r->plan->source,
                           .started_wall_ns = r->wall_start,
                           .duration_s = (double)(rb_time_mono_ns() - r->t_start) / 1e9,
                           .status = r->failed,
                           .nnodes = r->fleet.n,
                           .nodes = nodes,
                           .nphases = r->phases_run,
                           .specs = r->plan->phases,
                           .iters = r->plan->iters,
                           .nplanned = r->plan->nphases,
                           .interval_s = (double)r->plan->interval_ns / 1e9,
                           .phases = r->aggs};
    snprintf(res.run_id, sizeof res.run_id, "%s", r->run_id);
    snprintf(res.build, sizeof res.build, "%s", rb_build_id());
    snprintf(res.error, sizeof res.error, "%s", r->error);
    res.dropped_messages = r->dropped;
    res.units = r->o->units;
    return res;
}

/* summary.json through the reporter table: replaced whole (written aside,
 * synced, then renamed), so that a reader, or a coordinator killed
 * meanwhile, never leaves half of one. */
static int s_write_summary(const rb_run_ctx_t *r, const rb_run_result_t *res)
{
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_reporter_write(rb_reporter_find("json"), res, r->dir, &err) < 0) {
        rb_error("%s", err.msg);
        return -EIO;
    }
    return 0;
}

/* Every file a run leaves in its folder, one reporter row each, then the
 * fio logs its jobs ask for. */
static int s_write_files(const rb_run_ctx_t *r, const rb_run_result_t *res)
{
    int rc = 0;
    rb_err_t lerr;
    rb_err_clear(&lerr);
    if (rb_fiolog_write(r->plan, r->dir, &lerr) < 0) {
        rb_error("%s", lerr.msg);
        rc = -EIO;
    }
    for (size_t i = 0; i < rb_reporter_count(); i++) {
        const rb_reporter_t *rep = rb_reporter_at(i);
        rb_err_t err;
        rb_err_clear(&err);
        if (rep->file && rb_reporter_write(rep, res, r->dir, &err) < 0) {
            rb_error("%s", err.msg);
            rc = -EIO;
        }
    }
    return rc;
}

/* After each phase: summary.json of the phases so far, marked running, so
 * that `rackbench report` can render a run that was cut off. */
void rb_folder_write_progress(rb_run_ctx_t *r)
{
    int failed_nodes;
    rb_report_node_t *nodes = s_nodes(r);
    if (!nodes)
        return;
    rb_run_result_t res = s_result(r, nodes, &failed_nodes);
    res.running = 1;
    s_write_summary(r, &res);
    s_nodes_free(r, nodes);
}

int rb_folder_write_reports(rb_run_ctx_t *r)
{
    int failed_nodes;
    rb_report_node_t *nodes = s_nodes(r);
    if (!nodes)
        return -ENOMEM;
    rb_run_result_t res = s_result(r, nodes, &failed_nodes);
    rb_accept_result_t acc;
    if (rb_accept_result_eval(r->plan->accept, r->plan->phases, r->plan->iters, r->plan->nphases,
                              r->aggs, r->phases_run, &acc) < 0 ||
        rb_drives_accept(r->plan->accept, &res, &acc) < 0) {
        rb_run_fail(r, "out of memory judging the acceptance checks");
        res.status = r->failed;
    }
    if (!r->failed && failed_nodes) {
        /* Lost nodes fail the run, unless the plan says how many it needs
         * (min_nodes) and every phase still had them. */
        uint32_t lost = 0, min_rows = 0, min_failed = 0;
        for (uint32_t i = 0; i < r->fleet.n; i++)
            lost += r->fleet.nodes[i].status == RB_NODE_LOST;
        for (uint32_t i = 0; r->plan->accept && i < acc.nrows; i++) {
            min_rows += acc.rows[i].check == RB_ACCEPT_MIN_NODES;
            min_failed +=
                acc.rows[i].check == RB_ACCEPT_MIN_NODES && acc.rows[i].verdict == RB_ACCEPT_FAIL;
        }
        if (lost == (uint32_t)failed_nodes && min_rows && !min_failed) {
            rb_warn("%u of %u nodes were lost; every phase still had the nodes min_nodes asks for",
                    lost, r->fleet.n);
        } else {
            rb_run_fail(r, "%d of %u nodes did not complete the run cleanly", failed_nodes,
                        r->fleet.n);
            res.status = r->failed;
            snprintf(res.error, sizeof res.error, "%s", r->error);
        }
    }
    res.accept = r->plan->accept ? &acc : NULL;
    r->accept_failed = acc.nfailed > 0;
    rb_project_result_t proj;
    double *fs = calloc(r->fleet.n ? r->fleet.n : 1, sizeof *fs);
    for (uint32_t i = 0; fs && i < r->fleet.n; i++)
        fs[i] = rb_project_fs_bytes(r->fleet.nodes[i].hello.hw);
    if (rb_project_result_eval(r->plan->project, r->plan->phases, r->plan->iters, r->plan->nphases,
                               r->aggs, r->phases_run, fs, fs ? r->fleet.n : 0, &proj) < 0) {
        rb_run_fail(r, "out of memory working out the projection");
        res.status = r->failed;
    }
    free(fs);
    res.projection = r->plan->project ? &proj : NULL;
    int rc = s_write_files(r, &res);
    /* --output-format: each rendering in turn; the run folder's line stays
     * with text only, so that stdout of any other is that format alone */
    int text_only = 1;
    for (uint32_t i = 0; i < r->o->noutputs; i++) {
        if (r->o->outputs[i]->render(&res, r->dir, stdout) < 0)
            rc = -EIO;
        text_only &= strcmp(r->o->outputs[i]->name, "text") == 0;
    }
    if (!r->o->noutputs)
        rb_report_text(&res, stdout);
    if (text_only)
        printf("\nrun folder: %s\n", r->dir);
    else
        fprintf(stderr, "rackbench: run folder: %s\n", r->dir);
    fflush(stdout);
    rb_accept_result_fini(&acc);
    rb_project_result_fini(&proj);
    s_nodes_free(r, nodes);
    return rc;
}

void rb_folder_name(rb_run_ctx_t *r)
{
    char stamp[32];
    time_t t = (time_t)(r->wall_start / RB_NS_PER_S);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(r->run_id, sizeof r->run_id, "%s-%04x", stamp,
             (unsigned)((r->wall_start / 1000 ^ (uint64_t)getpid() * 2654435761u) & 0xffff));
}

/* Opens the run folder's file of schema into *f, its header written, with a
 * buffer of its own. 0, or -errno with the run failed naming the file. */
static int s_open_csv(rb_run_ctx_t *r, const rb_csv_schema_t *schema, FILE **f, char **buf)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", r->dir, schema->file);
    if (!(*f = fopen(path, "w"))) {
        int rc = -errno;
        rb_run_fail(r, "%s: %s", path, strerror(-rc));
        return rc;
    }
    /* a write a flush, not one per 4 KiB: at 1,000 agents 200 a second */
    if ((*buf = malloc(S_CSV_BUF)))
        setvbuf(*f, *buf, _IOFBF, S_CSV_BUF);
    rb_csv_header(schema, *f);
    return 0;
}

void rb_folder_close_csvs(rb_run_ctx_t *r)
{
    FILE **f[] = {&r->samples, &r->telemetry, &r->latency};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        if (*f[i])
            fclose(*f[i]);
        *f[i] = NULL;
        free(r->csv_buf[i]); /* after its file's last flush */
        r->csv_buf[i] = NULL;
    }
}

int rb_folder_make(rb_run_ctx_t *r)
{
    const char *out = r->o->out_dir ? r->o->out_dir : "runs";
    int rc = rb_fs_mkdirs(out);
    if (rc < 0) {
        rb_run_fail(r, "--out %s: %s", out, strerror(-rc));
        return rc;
    }
    snprintf(r->dir, sizeof r->dir, "%s/%s", out, r->run_id);
    if (mkdir(r->dir, 0755) < 0) {
        rb_run_fail(r, "run folder %s: %s", r->dir, strerror(errno));
        return -errno;
    }
    if ((rc = s_write_file(r->dir, "plan.ini", r->plan->text)) < 0) {
        rb_run_fail(r, "%s/plan.ini: %s", r->dir, strerror(-rc));
        return rc;
    }
    char path[PATH_MAX];
    /* plan.ini stays locked while the run goes: `rackbench report` tells a
     * run still going from one cut off by whether it can lock it too */
    snprintf(path, sizeof path, "%s/plan.ini", r->dir);
    r->dirlock = open(path, O_RDONLY | O_CLOEXEC);
    if (r->dirlock >= 0 && flock(r->dirlock, LOCK_EX | LOCK_NB) < 0)
        rb_warn("%s: cannot lock it (%s): rackbench report will call the run cut off", path,
                strerror(errno));
    rc = s_open_csv(r, &rb_csv_samples, &r->samples, &r->csv_buf[0]);
    if (rc == 0)
        rc = s_open_csv(r, &rb_csv_telemetry, &r->telemetry, &r->csv_buf[1]);
    if (rc == 0 && rb_fiolog_wants_latency(r->plan, NULL))
        rc = s_open_csv(r, &rb_csv_latency, &r->latency, &r->csv_buf[2]);
    if (rc < 0)
        return rc;
    /* A run killed from here on still renders with its start time. */
    rb_folder_write_progress(r);
    return 0;
}
