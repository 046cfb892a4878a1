/* report.html's host charts: CPU, device and NIC over time, per phase, from
 * telemetry.csv. Two reads of the file (each phase's last time, then its
 * cells), and per phase a fixed number of cells whatever the run's length
 * or number of nodes: in each, the nodes' mean and highest CPU busy, the
 * devices' mean and highest busy, and the cluster's NIC traffic. */
#include "rb_html_tel.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rb_chart.h"
#include "rb_csv.h"

#define S_CELLS 600 /* cells a phase's chart has at most */
#define S_LINE  4096

typedef struct s_cells {
    double tmax;               /* the phase's last row, s after GO */
    double cell_s;             /* each cell's length */
    uint32_t n;                /* cells */
    double *cpu_sum, *cpu_max; /* host rows: 100 - idle */
    double *dev_sum, *dev_max; /* devices (not md/dm members): util_pct */
    double *rx, *tx;           /* NICs: bytes/s, summed over the rows */
    uint32_t *hosts, *devs;    /* rows of each kind in the cell */
    double *t;                 /* the cell's end */
} s_cells_t;

struct rb_html_tel {
    uint32_t nphases;
    s_cells_t *ph;
    uint32_t *nodes; /* per phase: its nodes */
};

void rb_html_tel_destroy(rb_html_tel_t **p)
{
    rb_html_tel_t *t = *p;
    if (!t)
        return;
    for (uint32_t i = 0; i < t->nphases; i++) {
        s_cells_t *c = &t->ph[i];
        free(c->cpu_sum);
        free(c->cpu_max);
        free(c->dev_sum);
        free(c->dev_max);
        free(c->rx);
        free(c->tx);
        free(c->hosts);
        free(c->devs);
        free(c->t);
    }
    free(t->ph);
    free(t->nodes);
    free(t);
    *p = NULL;
}

/* Splits line (its newline cut) at commas into at most max fields; the count. */
static int s_split(char *line, char **fld, int max)
{
    size_t len = strlen(line);
    if (len && line[len - 1] == '\n')
        line[--len] = 0;
    int n = 0;
    for (char *p = line; n < max;) {
        fld[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = 0;
        p = c + 1;
    }
    return n;
}

static double s_val(const char *s)
{
    char *end;
    double v = s && *s ? strtod(s, &end) : NAN;
    return s && *s && *end == 0 && isfinite(v) ? v : NAN;
}

/* The phase of a row by name: its index, or nphases. */
static uint32_t s_phase_of(const rb_run_result_t *r, const char *name, uint32_t *last)
{
    if (*last < r->nphases && strcmp(r->phases[*last].name, name) == 0)
        return *last;
    for (uint32_t p = 0; p < r->nphases; p++)
        if (strcmp(r->phases[p].name, name) == 0)
            return *last = p;
    return r->nphases;
}

static int s_alloc(s_cells_t *c)
{
    c->n = (uint32_t)ceil(c->tmax / c->cell_s);
    c->n = c->n ? c->n : 1;
    double **d[] = {&c->cpu_sum, &c->cpu_max, &c->dev_sum, &c->dev_max, &c->rx, &c->tx, &c->t};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        if (!(*d[i] = calloc(c->n, sizeof **d[i])))
            return -ENOMEM;
    if (!(c->hosts = calloc(c->n, sizeof *c->hosts)) || !(c->devs = calloc(c->n, sizeof *c->devs)))
        return -ENOMEM;
    return 0;
}

int rb_html_tel_read(const rb_run_result_t *r, const char *run_dir, rb_html_tel_t **out)
{
    *out = NULL;
    char path[RB_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/%s", run_dir, rb_csv_telemetry.file);
    FILE *in = fopen(path, "r");
    if (!in)
        return 0;
    rb_html_tel_t *t = calloc(1, sizeof *t);
    int rc = -ENOMEM;
    char *line = NULL, *fld[2 * RB_CSV_TEL_NCOLS];
    size_t cap = 0;
    int idx[RB_CSV_TEL_NCOLS];
    if (!t || !(t->ph = calloc(r->nphases ? r->nphases : 1, sizeof *t->ph)))
        goto out;
    t->nphases = r->nphases;
    for (int c = 0; c < RB_CSV_TEL_NCOLS; c++)
        idx[c] = c;
    for (int pass = 0; pass < 2; pass++) {
        uint32_t last = 0;
        rewind(in);
        for (int first = 1; getline(&line, &cap, in) > 0; first = 0) {
            if (first && strncmp(line, "t_s,", 4) == 0) {
                if (rb_csv_map(&rb_csv_telemetry, line, idx) <= 0) {
                    rc = 0; /* columns this build does not know: no charts */
                    goto out;
                }
                continue;
            }
            int n = s_split(line, fld, 2 * RB_CSV_TEL_NCOLS);
            const char *v[RB_CSV_TEL_NCOLS];
            for (int c = 0; c < RB_CSV_TEL_NCOLS; c++)
                v[c] = idx[c] >= 0 && idx[c] < n ? fld[idx[c]] : "";
            uint32_t p = s_phase_of(r, v[RB_CSV_TEL_PHASE], &last);
            double ts = s_val(v[RB_CSV_TEL_T_S]);
            if (p >= r->nphases || !(ts >= 0))
                continue;
            s_cells_t *c = &t->ph[p];
            if (pass == 0) {
                c->tmax = ts > c->tmax ? ts : c->tmax;
                continue;
            }
            if (!c->n)
                continue; /* a phase whose rows all end at 0 s: nothing to draw */
            uint32_t k = (uint32_t)(ts / c->cell_s);
            k = k < c->n ? k : c->n - 1;
            c->t[k] = ts > c->t[k] ? ts : c->t[k];
            const char *kind = v[RB_CSV_TEL_KIND];
            if (strcmp(kind, "host") == 0) {
                double idle = s_val(v[RB_CSV_TEL_CPU_IDLE]);
                if (isnan(idle))
                    continue;
                c->cpu_sum[k] += 100 - idle;
                c->cpu_max[k] = 100 - idle > c->cpu_max[k] ? 100 - idle : c->cpu_max[k];
                c->hosts[k]++;
            } else if (strcmp(kind, "dev") == 0 && strcmp(v[RB_CSV_TEL_MEMBER], "1") != 0) {
                double u = s_val(v[RB_CSV_TEL_UTIL_PCT]);
                if (isnan(u))
                    continue;
                c->dev_sum[k] += u;
                c->dev_max[k] = u > c->dev_max[k] ? u : c->dev_max[k];
                c->devs[k]++;
            } else if (strcmp(kind, "nic") == 0) {
                double rx = s_val(v[RB_CSV_TEL_RX_BPS]), tx = s_val(v[RB_CSV_TEL_TX_BPS]);
                c->rx[k] += isnan(rx) ? 0 : rx;
                c->tx[k] += isnan(tx) ? 0 : tx;
            }
        }
        if (pass == 0)
            for (uint32_t p = 0; p < t->nphases; p++) {
                s_cells_t *c = &t->ph[p];
                double iv =
                    r->phases[p].steady.interval_s > 0 ? r->phases[p].steady.interval_s : 0.1;
                c->cell_s = c->tmax / S_CELLS > iv ? c->tmax / S_CELLS : iv;
                if (c->tmax > 0 && s_alloc(c) < 0)
                    goto out;
            }
    }
    t->nodes = calloc(t->nphases ? t->nphases : 1, sizeof *t->nodes);
    if (!t->nodes)
        goto out;
    for (uint32_t p = 0; p < t->nphases; p++)
        t->nodes[p] = r->phases[p].nnodes;
    *out = t;
    t = NULL;
    rc = 0;
out:
    free(line);
    fclose(in);
    rb_html_tel_destroy(&t);
    return rc;
}

int rb_html_tel_charts(FILE *f, const rb_html_tel_t *t, uint32_t p, const char *phase)
{
    if (!t || p >= t->nphases || !t->ph[p].n || !t->ph[p].hosts)
        return 0;
    const s_cells_t *c = &t->ph[p];
    uint32_t n = c->n, nodes = t->nodes[p] ? t->nodes[p] : 1;
    double *v = malloc(6 * (size_t)n * sizeof *v), *tt = malloc((size_t)n * sizeof *tt);
    if (!v || !tt) {
        free(v);
        free(tt);
        return -ENOMEM;
    }
    double *cpu_mean = v, *cpu_max = v + n, *dev_mean = v + 2 * n, *dev_max = v + 3 * n,
           *rx = v + 4 * n, *tx = v + 5 * n;
    int any_dev = 0, any_nic = 0;
    for (uint32_t k = 0; k < n; k++) {
        int h = c->hosts[k] > 0;
        /* intervals in the cell: host rows over nodes (one a node an interval) */
        double per = h ? (double)c->hosts[k] / nodes : 0;
        tt[k] = h ? c->t[k] : NAN;
        cpu_mean[k] = h ? c->cpu_sum[k] / c->hosts[k] : NAN;
        cpu_max[k] = h ? c->cpu_max[k] : NAN;
        dev_mean[k] = c->devs[k] ? c->dev_sum[k] / c->devs[k] : NAN;
        dev_max[k] = c->devs[k] ? c->dev_max[k] : NAN;
        rx[k] = per > 0 ? c->rx[k] / per : NAN;
        tx[k] = per > 0 ? c->tx[k] / per : NAN;
        any_dev |= c->devs[k] > 0;
        any_nic |= per > 0 && (c->rx[k] > 0 || c->tx[k] > 0);
    }
    char title[RB_NAME_MAX + 96];
    rb_chart_line_t l[4] = {
        {.v = cpu_mean, .t = tt, .name = "CPU busy, mean of the nodes", .color = "#2ca02c"},
        {.v = cpu_max, .t = tt, .name = "CPU busy, busiest node", .color = "#2ca02c", .dashed = 1},
        {.v = dev_mean, .t = tt, .name = "device busy, mean of the devices", .color = "#9467bd"},
        {.v = dev_max,
         .t = tt,
         .name = "device busy, busiest device",
         .color = "#9467bd",
         .dashed = 1}};
    fputs("<h3>Hosts over time: CPU and devices</h3>\n", f);
    snprintf(title, sizeof title, "%s: CPU and device busy over time (%%)", phase);
    int rc = rb_chart_lines(f, title, "busy (% of the time)", 1, 0, l, any_dev ? 4 : 2, n, c->tmax);
    if (rc == 0 && any_nic) {
        rb_chart_line_t m[2] = {
            {.v = rx, .t = tt, .name = "received, sum of the nodes", .color = "#ff7f0e"},
            {.v = tx, .t = tt, .name = "sent, sum of the nodes", .color = "#8c564b", .dashed = 1}};
        fputs("<h3>Network over time</h3>\n", f);
        int si = rb_chart_si();
        snprintf(title, sizeof title, "%s: NIC traffic over time (%s)", phase,
                 si ? "MB/s" : "MiB/s");
        rc = rb_chart_lines(
            f, title, si ? "MB/s (1 MB = 10&#8310; bytes)" : "MiB/s (1 MiB = 2&#178;&#8304; bytes)",
            si ? 1e6 : 1048576.0, 0, m, 2, n, c->tmax);
    }
    if (rc == 0)
        fprintf(f,
                "<p class=\"note\">From telemetry.csv: each host&#8217;s CPU busy (100%% "
                "less idle), each device&#8217;s busy time (md and dm members left out), "
                "every NIC&#8217;s bytes per second, in cells of %.2g s.</p>\n",
                c->cell_s);
    free(v);
    free(tt);
    return rc;
}
