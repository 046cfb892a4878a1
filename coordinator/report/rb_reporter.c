/* The table of a run's renderings (rb_reporter.h), so that a new format is
 * one row, seen alike by `--output-format` and by the run that writes its
 * folder; and the csv rendering, which is nowhere else. */
#include "rb_reporter.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rb_fiojson.h"
#include "rb_html.h"

static int s_text(const rb_run_result_t *r, const char *run_dir, FILE *f)
{
    (void)run_dir;
    return rb_report_text(r, f);
}

static int s_json(const rb_run_result_t *r, const char *run_dir, FILE *f)
{
    (void)run_dir;
    return rb_report_json(r, f);
}

/* The latency and per-direction columns of a csv row: all IOs' p50, p99,
 * p99.9 and max, then per direction bytes, ops, bw, iops and lat p99 (us;
 * empty where no latency was recorded). */
static void s_csv_lat_dirs(FILE *f, const rb_agg_dir_t dir[RB_NDIRS], const rb_node_lat_t *lat)
{
    const rb_lat_summary_t *l = &lat->all;
    if (l->count)
        fprintf(f, ",%.3f,%.3f,%.3f,%.3f", l->p50 / 1e3, l->p99 / 1e3, l->p999 / 1e3, l->max / 1e3);
    else
        fputs(",,,,", f);
    for (int d = 0; d < RB_NDIRS; d++) {
        fprintf(f, ",%llu,%llu,%.9g,%.9g", (unsigned long long)dir[d].bytes,
                (unsigned long long)dir[d].ops, dir[d].bw, dir[d].iops);
        if (lat->dir[d].count)
            fprintf(f, ",%.3f", lat->dir[d].p99 / 1e3);
        else
            fputc(',', f);
    }
    fputc('\n', f);
}

/* One row per phase and node, rack and the cluster, for spreadsheets. */
static int s_csv(const rb_run_result_t *r, const char *run_dir, FILE *f)
{
    (void)run_dir;
    fprintf(f, "phase,scope,name,rack,status,nodes,bytes,ops,window_s,bw,iops,partial,"
               "lat_p50_us,lat_p99_us,lat_p99.9_us,lat_max_us");
    for (int d = 0; d < RB_NDIRS; d++) {
        const char *dn = rb_dir_name((rb_dir_t)d);
        fprintf(f, ",%s_bytes,%s_ops,%s_bw,%s_iops,%s_lat_p99_us", dn, dn, dn, dn, dn);
    }
    fputc('\n', f);
    for (uint32_t p = 0; p < r->nphases; p++) {
        const rb_phase_agg_t *a = &r->phases[p];
        for (uint32_t n = 0; n < a->nnodes; n++) {
            const rb_agg_node_t *an = &a->nodes[n];
            fprintf(f, "%s,node,%s,%s,%s,1,%llu,%llu,%.9g,%.9g,%.9g,%d", a->name, an->name,
                    an->rack, rb_aggregate_node_status_name(an->status),
                    (unsigned long long)an->bytes, (unsigned long long)an->ops, an->window_s,
                    an->bw, an->iops, a->partial);
            s_csv_lat_dirs(f, an->dir, &an->lat);
        }
        for (uint32_t k = 0; k <= a->nracks; k++) {
            const rb_agg_group_t *g = k < a->nracks ? &a->racks[k] : &a->cluster;
            fprintf(f, "%s,%s,%s,%s,,%u,%llu,%llu,%.9g,%.9g,%.9g,%d", a->name,
                    k < a->nracks ? "rack" : "cluster", g->name, k < a->nracks ? g->name : "",
                    g->nodes, (unsigned long long)g->bytes, (unsigned long long)g->ops, g->window_s,
                    g->aggregate_bw, g->iops, a->partial);
            s_csv_lat_dirs(f, g->dir, &g->lat);
        }
    }
    return 0;
}

static int s_html(const rb_run_result_t *r, const char *run_dir, FILE *f)
{
    return rb_html_report(r, run_dir, f);
}

static int s_fio_json(const rb_run_result_t *r, const char *run_dir, FILE *f)
{
    return rb_fiojson_render(r, run_dir, 0, f);
}

static int s_fio_json_plus(const rb_run_result_t *r, const char *run_dir, FILE *f)
{
    return rb_fiojson_render(r, run_dir, 1, f);
}

static const rb_reporter_t s_reporters[] = {
    {"text", "report.txt", 0, s_text},
    {"json", "summary.json", 1, s_json},
    {"csv", NULL, 0, s_csv},
    {"html", "report.html", 0, s_html},
    {"fio-json", "fio.json", 0, s_fio_json},
    {"fio-json+", NULL, 0, s_fio_json_plus},
};

#define S_NREPORTERS (sizeof s_reporters / sizeof *s_reporters)

size_t rb_reporter_count(void)
{
    return S_NREPORTERS;
}

const rb_reporter_t *rb_reporter_at(size_t i)
{
    return i < S_NREPORTERS ? &s_reporters[i] : NULL;
}

const rb_reporter_t *rb_reporter_find(const char *name)
{
    for (size_t i = 0; name && i < S_NREPORTERS; i++)
        if (strcmp(s_reporters[i].name, name) == 0)
            return &s_reporters[i];
    return NULL;
}

const char *rb_reporter_names(char *buf, size_t len)
{
    size_t n = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < S_NREPORTERS && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s",
                              i == 0                 ? ""
                              : i + 1 < S_NREPORTERS ? ", "
                                                     : " or ",
                              s_reporters[i].name);
    return buf;
}

int rb_reporter_list(const char *list, const rb_reporter_t **out, uint32_t max, uint32_t *n,
                     rb_err_t *err)
{
    char names[160];
    *n = 0;
    for (const char *p = list;;) {
        size_t len = strcspn(p, ",");
        char name[32] = "";
        if (len < sizeof name) {
            memcpy(name, p, len);
            name[len] = '\0';
        }
        const rb_reporter_t *rep = len < sizeof name ? rb_reporter_find(name) : NULL;
        if (!rep)
            return rb_err_set(
                err, -EINVAL, "unknown format '%.*s'; expected %s, or a comma list of them",
                (int)(len < 64 ? len : 64), p, rb_reporter_names(names, sizeof names));
        if (*n == max)
            return rb_err_set(err, -EINVAL, "at most %u formats", max);
        out[(*n)++] = rep;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

int rb_reporter_write(const rb_reporter_t *rep, const rb_run_result_t *r, const char *run_dir,
                      rb_err_t *err)
{
    char path[PATH_MAX], tmp[PATH_MAX + 8];
    if (!rep || !rep->file)
        return rb_err_set(err, -EINVAL, "%s: no file to write", rep ? rep->name : "?");
    snprintf(path, sizeof path, "%s/%s", run_dir, rep->file);
    /* a durable file is written aside, then renamed: a reader, or a
     * coordinator killed meanwhile, never sees half of one */
    snprintf(tmp, sizeof tmp, "%s.new", path);
    FILE *f = fopen(rep->durable ? tmp : path, "w");
    if (!f)
        return rb_err_set(err, -EIO, "cannot write %s: %s", path, strerror(errno));
    int ok = rep->render(r, run_dir, f) >= 0;
    if (rep->durable)
        ok = ok && fflush(f) == 0 && fsync(fileno(f)) == 0;
    ok = fclose(f) == 0 && ok;
    if (ok && rep->durable)
        ok = rename(tmp, path) == 0;
    if (!ok)
        return rb_err_set(err, -EIO, "cannot write %s: %s", path, strerror(errno));
    return 0;
}
