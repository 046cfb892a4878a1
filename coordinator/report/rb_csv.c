/* The CSV files of a run folder in one place: their column tables, the
 * writers that print rows in the tables' order, and the helpers readers use
 * to find their columns. A column added or moved here moves in every writer
 * and reader at once. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rb_csv.h"
#include "rb_hist.h"
#include "rb_text.h"

#define S_NAME(id, name, doc) name,
#define S_DOC(id, name, doc)  doc,

static const char *const s_smp_names[] = {RB_CSV_SAMPLES_COLUMNS(S_NAME)};
static const char *const s_smp_docs[] = {RB_CSV_SAMPLES_COLUMNS(S_DOC)};
static const char *const s_tel_names[] = {RB_CSV_TELEMETRY_COLUMNS(S_NAME)};
static const char *const s_tel_docs[] = {RB_CSV_TELEMETRY_COLUMNS(S_DOC)};
static const char *const s_lat_names[] = {RB_CSV_LATENCY_COLUMNS(S_NAME)};
static const char *const s_lat_docs[] = {RB_CSV_LATENCY_COLUMNS(S_DOC)};

const rb_csv_schema_t rb_csv_samples = {"samples.csv", RB_CSV_SMP_NCOLS, s_smp_names, s_smp_docs};
const rb_csv_schema_t rb_csv_telemetry = {"telemetry.csv", RB_CSV_TEL_NCOLS, s_tel_names,
                                          s_tel_docs};
const rb_csv_schema_t rb_csv_latency = {"latency.csv", RB_CSV_LAT_NCOLS, s_lat_names, s_lat_docs};

int rb_csv_header(const rb_csv_schema_t *schema, FILE *f)
{
    for (uint32_t c = 0; c < schema->ncols; c++) {
        if (c)
            fputc(',', f);
        fputs(schema->names[c], f);
    }
    fputc('\n', f);
    return ferror(f) ? -EIO : 0;
}

int rb_csv_index(const char *header, const char *name)
{
    size_t nl = strlen(name);
    int i = 0;
    for (const char *p = header;; i++) {
        size_t len = strcspn(p, ",\r\n");
        if (len == nl && memcmp(p, name, nl) == 0)
            return i;
        if (p[len] != ',')
            return -ENOENT;
        p += len + 1;
    }
}

int rb_csv_map(const rb_csv_schema_t *schema, const char *header, int *idx)
{
    int found = 0;
    for (uint32_t c = 0; c < schema->ncols; c++) {
        int i = rb_csv_index(header, schema->names[c]);
        idx[c] = i >= 0 ? i : -1;
        found += i >= 0;
    }
    return found;
}

/* A row is built in memory and written once: at 16,000 nodes of 4 disks
 * telemetry's rows were 64,000 fprintf calls a second, each parsing its
 * format and printing the same time, phase and node again, and printing
 * the doubles of samples.csv's rows cost more than all else of a SAMPLE
 * (rb_text_fixed). */
typedef struct s_line {
    char b[1024];
    size_t n;
} s_line_t;

/* k bytes of s; what does not fit is cut */
static void s_mem(s_line_t *l, const char *s, size_t k)
{
    if (k > sizeof l->b - l->n)
        k = sizeof l->b - l->n;
    memcpy(l->b + l->n, s, k);
    l->n += k;
}

static void s_str(s_line_t *l, const char *s)
{
    s_mem(l, s, strlen(s));
}

static void s_ch(s_line_t *l, char c)
{
    if (l->n < sizeof l->b)
        l->b[l->n++] = c;
}

static void s_u64(s_line_t *l, uint64_t v)
{
    char t[24], *end = t + sizeof t - 1, *d = rb_text_u64(end, v);
    s_mem(l, d, (size_t)(end - d));
}

/* ",v" */
static void s_cu64(s_line_t *l, uint64_t v)
{
    s_ch(l, ',');
    s_u64(l, v);
}

/* ",v / 10^places" with that many decimals: what "%.<places>f" prints of
 * the double v / 10^places, an integer over a power of ten. */
static void s_cfix(s_line_t *l, uint64_t v, unsigned places)
{
    uint64_t p10 = 1;
    for (unsigned i = 0; i < places; i++)
        p10 *= 10;
    s_cu64(l, v / p10);
    s_ch(l, '.');
    for (uint64_t d = p10 / 10, f = v % p10; d && l->n < sizeof l->b; d /= 10)
        l->b[l->n++] = (char)('0' + f / d % 10);
}

/* x with that many decimals: what "%.<places>f" prints */
static void s_dbl(s_line_t *l, double x, unsigned places)
{
    char t[64];
    int k = rb_text_fixed(t, sizeof t, x, places);
    if (k > 0 && (size_t)k < sizeof t)
        s_mem(l, t, (size_t)k);
}

/* ",x" */
static void s_cdbl(s_line_t *l, double x, unsigned places)
{
    s_ch(l, ',');
    s_dbl(l, x, places);
}

/* A row's first columns: the interval's end after GO and on the wall
 * clock, then names, comma-separated. */
static void s_lead(s_line_t *l, double t_s, uint64_t utc_ns, const char *const *names, int n)
{
    l->n = 0;
    s_dbl(l, t_s, 3);
    s_cu64(l, utc_ns);
    for (int i = 0; i < n; i++) {
        s_ch(l, ',');
        s_str(l, names[i]);
    }
}

static double s_us(uint64_t ns)
{
    return (double)ns / 1e3;
}

void rb_csv_samples_row(FILE *f, double t_s, uint64_t utc_ns, const char *phase, const char *node,
                        const char *rack, const char *job, double interval_s,
                        const rb_job_stat_t *js)
{
    static const double p[] = {50, 99};
    const rb_hist_t *h[] = {js->hist, js->lat[RB_DIR_READ][RB_LAT_LAT],
                            js->lat[RB_DIR_WRITE][RB_LAT_LAT]};
    uint64_t pct[3][2] = {{0}};
    for (int i = 0; i < 3; i++)
        if (h[i])
            rb_hist_percentiles(h[i], 2, p, pct[i]);
    s_line_t l;
    /* the columns of RB_CSV_SAMPLES_COLUMNS, in its order */
    const char *const names[] = {phase, node, rack, job};
    s_lead(&l, t_s, utc_ns, names, 4);
    s_cdbl(&l, interval_s, 3);
    s_cu64(&l, js->bytes);
    s_cu64(&l, js->ops);
    s_cu64(&l, js->errors);
    s_cdbl(&l, interval_s > 0 ? (double)js->bytes / interval_s : 0, 0);
    s_cdbl(&l, interval_s > 0 ? (double)js->ops / interval_s : 0, 1);
    s_cdbl(&l, s_us(pct[0][0]), 1);
    s_cdbl(&l, s_us(pct[0][1]), 1);
    s_cdbl(&l, h[0] && h[0]->count ? s_us(h[0]->max) : 0, 1);
    s_cu64(&l, js->read_bytes);
    s_cu64(&l, js->read_ops);
    s_cu64(&l, js->write_bytes);
    s_cu64(&l, js->write_ops);
    for (int i = 1; i < 3; i++) {
        s_cdbl(&l, s_us(pct[i][0]), 1);
        s_cdbl(&l, s_us(pct[i][1]), 1);
    }
    s_ch(&l, '\n');
    fwrite(l.b, 1, l.n, f);
}

void rb_csv_latency_rows(FILE *f, double t_s, uint64_t utc_ns, const char *phase, const char *node,
                         const char *job, double interval_s, const rb_job_stat_t *js)
{
    for (int d = 0; d < RB_NDIRS; d++)
        for (int k = 0; k < RB_NLATS; k++) {
            const rb_hist_t *h = js->lat[d][k];
            if (!h || !h->count)
                continue;
            /* the columns of RB_CSV_LATENCY_COLUMNS, in its order */
            fprintf(f, "%.3f,%" PRIu64 ",%s,%s,%s,%.3f,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
                    t_s, utc_ns, phase, node, job, interval_s, rb_dir_name((rb_dir_t)d),
                    rb_lat_kind_name((rb_lat_kind_t)k), h->count, h->sum, h->max);
            const char *sep = "";
            for (unsigned i = 0; i < RB_HIST_NBUCKETS; i++)
                if (h->b[i]) {
                    fprintf(f, "%s%u:%" PRIu64, sep, i, h->b[i]);
                    sep = " ";
                }
            fputc('\n', f);
        }
}

/* A row's start: the time, phase and node (head), its kind and its name. */
static void s_row(s_line_t *l, const s_line_t *head, const char *kind, const char *name)
{
    memcpy(l->b, head->b, head->n);
    l->n = head->n;
    s_str(l, kind);
    s_ch(l, ',');
    s_str(l, name);
}

void rb_csv_telemetry_rows(FILE *f, double t_s, uint64_t utc_ns, const char *phase,
                           const char *node, const rb_telem_t *t)
{
    /* the columns of RB_CSV_TELEMETRY_COLUMNS, in its order; a row of one
     * kind leaves the others' columns empty */
    s_line_t head;
    const char *const names[] = {phase, node, ""};
    s_lead(&head, t_s, utc_ns, names, 3);
    s_line_t host;
    s_row(&host, &head, "host", "");
    s_str(&host, ",,,,,,,,,,,,,,");
    s_cfix(&host, t->user_pm, 1);
    s_cfix(&host, t->system_pm, 1);
    s_cfix(&host, t->iowait_pm, 1);
    s_cfix(&host, t->idle_pm, 1);
    s_cfix(&host, t->irq_pm, 1);
    s_cu64(&host, t->ncpu);
    s_cdbl(&host, t->load1_m / 1000.0, 2);
    s_cu64(&host, t->ctxt_per_s);
    s_cu64(&host, t->cached);
    s_cu64(&host, t->dirty);
    s_cu64(&host, t->writeback);
    s_ch(&host, '\n');
    fwrite(host.b, 1, host.n, f);
    for (uint32_t i = 0; i < t->ndevs && i < RB_TELEM_DEVS; i++) {
        const rb_telem_dev_t *d = &t->devs[i];
        s_line_t l;
        s_row(&l, &head, "dev", d->name);
        s_ch(&l, ',');
        s_str(&l, d->parent);
        s_cu64(&l, d->member);
        s_cu64(&l, d->rd_bps);
        s_cu64(&l, d->wr_bps);
        s_cu64(&l, d->rd_iops);
        s_cu64(&l, d->wr_iops);
        s_cfix(&l, d->util_pm, 1);
        s_cfix(&l, d->qdepth_m, 3);
        s_cfix(&l, d->await_us, 3);
        s_cu64(&l, d->rd_bytes);
        s_cu64(&l, d->wr_bytes);
        s_str(&l, ",,,,,,,,,,,,,,\n");
        fwrite(l.b, 1, l.n, f);
    }
    for (uint32_t i = 0; i < t->nnics && i < RB_TELEM_NICS; i++) {
        const rb_telem_nic_t *n = &t->nics[i];
        s_line_t l;
        s_row(&l, &head, "nic", n->name);
        s_str(&l, ",,,,,,,,,,,");
        s_cu64(&l, n->rx_bps);
        s_cu64(&l, n->tx_bps);
        s_cu64(&l, n->speed_mbps);
        s_str(&l, ",,,,,,,,,,,\n");
        fwrite(l.b, 1, l.n, f);
    }
}

int rb_csv_telemetry_series(rb_findings_tel_series_t *ts, uint32_t node, double t_s,
                            double interval_s, const rb_telem_t *t)
{
    /* the values of the rows above as text read back: a decimal printed
     * with as many places as the integer it is over a power of ten has, or
     * an integer, is read back as the double it was computed as */
    double at = rb_csv_time(t_s);
    uint32_t ndevs = t->ndevs < RB_TELEM_DEVS ? t->ndevs : RB_TELEM_DEVS;
    uint32_t nnics = t->nnics < RB_TELEM_NICS ? t->nnics : RB_TELEM_NICS;
    rb_findings_tel_series_expect(ts, 1 + ndevs + nnics); /* the first node's, for every node */
    rb_findings_tel_row_t host = {
        .kind = 'h', .name = "", .util = t->user_pm / 10.0 + t->system_pm / 10.0, .ncpu = t->ncpu};
    int rc = rb_findings_tel_series_add(ts, node, at, interval_s, &host);
    for (uint32_t i = 0; rc == 0 && i < ndevs; i++) {
        const rb_telem_dev_t *d = &t->devs[i];
        rb_findings_tel_row_t row = {.kind = 'd',
                                     .name = d->name,
                                     .parent = d->parent,
                                     .member = d->member,
                                     .util = d->util_pm / 10.0,
                                     .rd = (double)d->rd_bps,
                                     .wr = (double)d->wr_bps,
                                     .await_ms = d->await_us / 1000.0,
                                     .rd_bytes = d->rd_bytes,
                                     .wr_bytes = d->wr_bytes};
        rc = rb_findings_tel_series_add(ts, node, at, interval_s, &row);
    }
    for (uint32_t i = 0; rc == 0 && i < nnics; i++) {
        const rb_telem_nic_t *n = &t->nics[i];
        rb_findings_tel_row_t row = {.kind = 'n',
                                     .name = n->name,
                                     .rd = (double)n->rx_bps,
                                     .wr = (double)n->tx_bps,
                                     .speed_bps = (double)n->speed_mbps * 1e6 / 8};
        rc = rb_findings_tel_series_add(ts, node, at, interval_s, &row);
    }
    return rc;
}

double rb_csv_time(double t_s)
{
    uint64_t ms;
    if (rb_text_fixed_units(t_s, 3, &ms) == 0)
        return (double)ms / 1e3; /* as strtod reads it: both round ms / 1000 once */
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f", t_s);
    return strtod(buf, NULL);
}
