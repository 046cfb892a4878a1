/* report.html: the same figures as report.txt, plus what a single number
 * hides: bandwidth interval by interval (a drive's burst, then its tuned
 * rate), per node and per rack; the spread of each node's intervals; the
 * latency curve. One file, inline SVG and CSS, no script, nothing fetched.
 * The markup is also well-formed XML: every element closed, every text from
 * the plan, the nodes or an error escaped, no named entities beyond XML's.
 * Figures come from rb_run_result_t and samples.csv; a chart only draws
 * measured sample intervals (a gap stays a gap). The charts stay small
 * whatever the run: a line has no more points than the plot is wide (the
 * means of consecutive intervals when a phase has more), a phase's series
 * hold S_CELL_BUDGET cells at most, or S_CELL_FLOOR a line (sums of 2, 4,
 * 8... intervals past it: memory follows the fleet, not the phase's
 * length), and past a few dozen nodes the charts draw the slowest, median
 * and fastest node and the stragglers instead of every node; the tables
 * keep every node. This file reads samples.csv into series and lays out
 * the page; the charts are rb_chart.c, their SVG primitives rb_svg.c, the tables
 * rb_table.c. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rb_chart.h"
#include "rb_csv.h"
#include "rb_html_tel.h"
#include "rb_findings.h"
#include "rb_html.h"
#include "rb_html_int.h"
#include "rb_names.h"
#include "rb_project_result.h"
#include "rb_svg.h"
#include "rb_table.h"
#include "rb_units.h"

#define S_TAIL        0.5     /* a node's last interval shorter than this many is not drawn */
#define S_MAX_K       1048576 /* sample intervals per phase we draw at most */
#define S_CELL_BUDGET 8000000 /* cells (nodes x points) of a phase's series, at most ... */
#define S_CELL_FLOOR  1024    /* ... unless that leaves a line fewer points than this */
#define S_LEN_MAX     65536   /* distinct interval lengths a phase's median is exact over */

/* ---------------------------------------------------------------------------
 * samples.csv */

/* samples.csv can hold a row per node, job and interval: an hour of 16,000
 * nodes at 1 sample/s is 57.6 million rows. No row is kept: a first read
 * learns the names, and per phase where its rows are and how long its
 * intervals are; each phase's series then reads its rows again (s_pass_*). */

/* A row as read; its names point into the line being read. */
typedef struct s_row {
    uint32_t phase;          /* index into the run's phases */
    const char *node;        /* its node's name */
    const char *rack;        /* its rack's name */
    double t_s;              /* end of the interval, s after the phase's GO */
    double iv_s;             /* its length on the node, s */
    double bytes;            /* moved in it by one job's workers on the node */
    double ops;              /* operations likewise */
    double dops[2];          /* of them, the reads and the writes (NAN: not in the file) */
    double dp50[2], dp99[2]; /* their latency percentiles in the interval, us (NAN: none) */
} s_row_t;

/* What a series counts of a row. */
enum { S_BYTES = 0, S_OPS = 1, S_READ_OPS = 2, S_WRITE_OPS = 3 };

static double s_row_value(const s_row_t *row, int what)
{
    if (what == S_READ_OPS || what == S_WRITE_OPS) {
        double v = row->dops[what - S_READ_OPS];
        return isnan(v) ? 0 : v;
    }
    return what == S_OPS ? row->ops : row->bytes;
}

/* An interval length as samples.csv gives it, and how many rows give it. */
typedef struct s_len {
    double len; /* s, > 0 */
    uint64_t n; /* rows */
} s_len_t;

/* What the first read learns of a phase. */
typedef struct s_smp_phase {
    uint64_t lo, hi;     /* offsets in samples.csv: its first row's start, its last row's end */
    s_len_t *len;        /* its distinct positive interval lengths, ascending (owned) */
    uint32_t nlen, ncap; /* lengths in len, room */
    uint64_t npos;       /* its rows with a positive length */
} s_smp_phase_t;

typedef struct s_samples {
    int found;                  /* samples.csv could be opened */
    FILE *in;                   /* it, open for the passes of each phase (owned) */
    uint64_t end;               /* bytes the first read took: no pass reads further */
    uint64_t pos;               /* offset of the next line a pass reads */
    char *line;                 /* the line being read (owned) */
    size_t linecap;             /* its room */
    uint32_t last;              /* phase of the last row read (a cache) */
    uint32_t nphases;           /* entries of ph */
    s_smp_phase_t *ph;          /* per phase of the run (owned) */
    uint32_t nnames, namecap;   /* names known, room */
    char (*names)[RB_NAME_MAX]; /* node and rack names (owned) */
    rb_names_t index;           /* the names, found in O(1) (owned) */
    size_t bad;                 /* lines that could not be read (a cut last line) */
    int idx[RB_CSV_SMP_NCOLS];  /* each column's field in the file (its header; -1: none) */
    int ncols;                  /* fields of a whole row */
} s_samples_t;

static void s_samples_fini(s_samples_t *s)
{
    if (s->in)
        fclose(s->in);
    for (uint32_t p = 0; s->ph && p < s->nphases; p++)
        free(s->ph[p].len);
    free(s->ph);
    free(s->line);
    free(s->names);
    rb_names_fini(&s->index);
    memset(s, 0, sizeof *s);
}

static const char *s_name_at(const void *ctx, uint32_t i)
{
    return ((const s_samples_t *)ctx)->names[i];
}

/* Index of name in the table, added when new and add is set; UINT32_MAX
 * when out of memory, or when it is new and add is not set. */
static uint32_t s_name(s_samples_t *s, const char *name, int add)
{
    char key[RB_NAME_MAX]; /* as the table keeps it */
    snprintf(key, sizeof key, "%s", name);
    uint32_t i = rb_names_find(&s->index, key, s_name_at, s);
    if (i != UINT32_MAX || !add)
        return i;
    if (rb_names_grow(&s->index, s->nnames, s_name_at, s) < 0)
        return UINT32_MAX;
    if (s->nnames == s->namecap) {
        uint32_t cap = s->namecap ? 2 * s->namecap : 16;
        void *p = realloc(s->names, cap * sizeof *s->names);
        if (!p)
            return UINT32_MAX;
        s->names = p;
        s->namecap = cap;
    }
    memcpy(s->names[s->nnames], key, sizeof key);
    rb_names_put(&s->index, s->nnames, s_name_at, s);
    return s->nnames++;
}

/* Counts one row of length len (> 0) in phase ph's table of lengths, kept
 * in order. A file rackbench wrote has a few hundred distinct lengths at
 * most (it prints ms); past S_LEN_MAX, a new one counts as its neighbour
 * below. 0 or -ENOMEM. */
static int s_len_add(s_smp_phase_t *ph, double len)
{
    uint32_t lo = 0, hi = ph->nlen;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ph->len[mid].len < len)
            lo = mid + 1;
        else
            hi = mid;
    }
    ph->npos++;
    if (lo < ph->nlen && ph->len[lo].len == len) {
        ph->len[lo].n++;
        return 0;
    }
    if (ph->nlen == S_LEN_MAX) {
        ph->len[lo ? lo - 1 : 0].n++;
        return 0;
    }
    if (ph->nlen == ph->ncap) {
        uint32_t cap = ph->ncap ? 2 * ph->ncap : 16;
        void *p = realloc(ph->len, cap * sizeof *ph->len);
        if (!p)
            return -ENOMEM;
        ph->len = p;
        ph->ncap = cap;
    }
    memmove(ph->len + lo + 1, ph->len + lo, (ph->nlen - lo) * sizeof *ph->len);
    ph->len[lo] = (s_len_t){len, 1};
    ph->nlen++;
    return 0;
}

/* A non-negative finite number filling all of text, into out. */
static int s_num(const char *text, double *out)
{
    /* digits[.digits], at most 15 of them, as samples.csv prints numbers:
     * their integer over a power of ten, both exact, is the double nearest
     * the decimal, as strtod gives it; it reads a line a few times faster */
    static const double pow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
    const char *p = text;
    uint64_t m = 0;
    int nd = 0, frac = -1;
    for (; nd <= 15; p++) {
        if (*p >= '0' && *p <= '9') {
            m = m * 10 + (uint64_t)(*p - '0');
            nd++;
        } else if (*p == '.' && frac < 0 && nd) {
            frac = nd;
        } else {
            break;
        }
    }
    if (*p == 0 && nd && nd <= 15 && (frac < 0 || frac < nd)) {
        *out = (double)m / pow10[frac < 0 ? 0 : nd - frac];
        return 0;
    }
    char *end;
    *out = strtod(text, &end);
    return end != text && *end == 0 && isfinite(*out) && *out >= 0 ? 0 : -EBADMSG;
}

/* Parses one line (with its newline) of samples.csv into row, the line
 * split in place; *last caches the phase of the last row. 1: a row; 0: a
 * row of a phase this run does not know; -EBADMSG. */
static int s_row_parse(const rb_run_result_t *r, const s_samples_t *s, char *line, uint32_t *last,
                       s_row_t *row)
{
    size_t len = strlen(line);
    char *raw[RB_CSV_SMP_NCOLS * 2], *fld[RB_CSV_SMP_NCOLS], none[] = "";
    int n = 0;
    if (len == 0 || line[len - 1] != '\n')
        return -EBADMSG; /* the run was cut off while writing it */
    line[--len] = 0;
    for (char *p = line;;) {
        char *comma = strchr(p, ',');
        raw[n++] = p;
        if (!comma)
            break;
        if (n == s->ncols)
            return -EBADMSG;
        *comma = 0;
        p = comma + 1;
    }
    if (n != s->ncols)
        return -EBADMSG;
    for (int c = 0; c < RB_CSV_SMP_NCOLS; c++)
        fld[c] = s->idx[c] >= 0 ? raw[s->idx[c]] : none;
    if (s_num(fld[RB_CSV_SMP_T_S], &row->t_s) < 0 ||
        s_num(fld[RB_CSV_SMP_INTERVAL_S], &row->iv_s) < 0 ||
        s_num(fld[RB_CSV_SMP_BYTES], &row->bytes) < 0 || s_num(fld[RB_CSV_SMP_OPS], &row->ops) < 0)
        return -EBADMSG;
    if (*last >= r->nphases || strcmp(r->phases[*last].name, fld[RB_CSV_SMP_PHASE]) != 0) {
        uint32_t p = 0;
        while (p < r->nphases && strcmp(r->phases[p].name, fld[RB_CSV_SMP_PHASE]) != 0)
            p++;
        if (p == r->nphases)
            return 0;
        *last = p;
    }
    static const int cols[2][3] = {
        {RB_CSV_SMP_READ_OPS, RB_CSV_SMP_READ_LAT_P50_US, RB_CSV_SMP_READ_LAT_P99_US},
        {RB_CSV_SMP_WRITE_OPS, RB_CSV_SMP_WRITE_LAT_P50_US, RB_CSV_SMP_WRITE_LAT_P99_US}};
    for (int d = 0; d < 2; d++) {
        double *out[3] = {&row->dops[d], &row->dp50[d], &row->dp99[d]};
        for (int c = 0; c < 3; c++)
            if (!fld[cols[d][c]][0] || s_num(fld[cols[d][c]], out[c]) < 0)
                *out[c] = NAN;
    }
    row->phase = *last;
    row->node = fld[RB_CSV_SMP_NODE];
    row->rack = fld[RB_CSV_SMP_RACK];
    return 1;
}

/* The first read of run_dir/samples.csv (left open for the passes): the
 * names, each phase's rows' place and interval lengths, the lines that could
 * not be read. 0 (found or not) or -ENOMEM. */
static int s_samples_read(s_samples_t *s, const rb_run_result_t *r, const char *run_dir)
{
    char path[RB_PATH_MAX + 32];
    memset(s, 0, sizeof *s);
    s->last = UINT32_MAX;
    s->ncols = RB_CSV_SMP_NCOLS; /* without a header: this build's columns */
    for (int c = 0; c < RB_CSV_SMP_NCOLS; c++)
        s->idx[c] = c;
    s->ph = calloc(r->nphases ? r->nphases : 1, sizeof *s->ph);
    if (!s->ph)
        return -ENOMEM;
    s->nphases = r->nphases;
    snprintf(path, sizeof path, "%s/%s", run_dir, rb_csv_samples.file);
    s->in = fopen(path, "r");
    if (!s->in)
        return 0;
    s->found = 1;
    ssize_t n;
    for (int first = 1; (n = getline(&s->line, &s->linecap, s->in)) > 0; first = 0) {
        uint64_t at = s->end;
        s->end += (uint64_t)n;
        if (first && strncmp(s->line, "t_s,", 4) == 0) { /* the header: columns by name */
            s->ncols = 1;
            for (const char *c = s->line; *c; c++)
                s->ncols += *c == ',';
            if (s->ncols > 2 * RB_CSV_SMP_NCOLS ||
                rb_csv_map(&rb_csv_samples, s->line, s->idx) <= 0)
                s->ncols = 0; /* no row can be read */
            continue;
        }
        s_row_t row;
        int rc = s_row_parse(r, s, s->line, &s->last, &row);
        s->bad += rc < 0;
        if (rc <= 0)
            continue;
        s_smp_phase_t *ph = &s->ph[row.phase];
        if (!ph->hi)
            ph->lo = at;
        ph->hi = s->end;
        if (s_name(s, row.node, 1) == UINT32_MAX || s_name(s, row.rack, 1) == UINT32_MAX ||
            (row.iv_s > 0 && s_len_add(ph, row.iv_s) < 0))
            return -ENOMEM;
    }
    return 0;
}

/* Starts a pass over phase p's rows. */
static void s_pass_start(s_samples_t *s, uint32_t p)
{
    s->pos = s->ph[p].lo;
    if (s->in && s->ph[p].hi && fseeko(s->in, (off_t)s->pos, SEEK_SET) < 0)
        s->pos = s->ph[p].hi; /* nothing to read */
}

/* The next row of phase p in this pass, in the order of the file, into
 * row: 1, or 0 when there is none (lines that cannot be read are passed
 * over: the first read counted them). */
static int s_pass_next(s_samples_t *s, const rb_run_result_t *r, uint32_t p, s_row_t *row)
{
    ssize_t n;
    while (s->in && s->pos < s->ph[p].hi && s->pos < s->end &&
           (n = getline(&s->line, &s->linecap, s->in)) > 0) {
        s->pos += (uint64_t)n;
        if (s_row_parse(r, s, s->line, &s->last, row) == 1 && row->phase == p)
            return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------
 * One phase's time series, interval by interval */

typedef rb_chart_series_t s_series_t; /* rb_chart.h */

static void s_series_fini(s_series_t *s)
{
    free(s->node);
    free(s->rack);
    free(s->rname);
    free(s->v);
    free(s->t);
    free(s->cv);
    free(s->ct);
    free(s->rv);
    free(s->rt);
    memset(s, 0, sizeof *s);
}

static uint32_t s_rack_of(s_series_t *s, const char *rack)
{
    uint32_t i = 0;
    while (i < s->nr && strcmp(s->rname[i], rack) != 0)
        i++;
    if (i == s->nr)
        s->rname[s->nr++] = rack;
    return i;
}

/* Interval index of a row: agents sample at GO + k intervals, so an
 * interval's start (its end - its length) is close to a multiple of iv. */
static int64_t s_interval(const s_row_t *row, double iv)
{
    double k = floor((row->t_s - row->iv_s) / iv + 0.5);
    return k < 0 ? 0 : k >= S_MAX_K ? -1 : (int64_t)k;
}

/* Phase p's nominal sample interval (0: no samples): the upper median of
 * its rows' lengths (all but each node's last interval are full), then
 * fitted to the interval starts, which fall on multiples of it (a pass). */
static double s_nominal_interval(s_samples_t *smp, const rb_run_result_t *r, uint32_t p)
{
    const s_smp_phase_t *ph = &smp->ph[p];
    double iv = 0, sxk = 0, skk = 0;
    uint64_t below = 0;
    for (uint32_t i = 0; i < ph->nlen && !(iv > 0); i++) {
        below += ph->len[i].n;
        if (below > ph->npos / 2)
            iv = ph->len[i].len;
    }
    if (!(iv > 0))
        return 0;
    s_row_t row;
    s_pass_start(smp, p);
    while (s_pass_next(smp, r, p, &row)) {
        int64_t k = s_interval(&row, iv);
        if (row.iv_s > 0 && k > 0) {
            sxk += (row.t_s - row.iv_s) * (double)k;
            skk += (double)k * (double)k;
        }
    }
    return skk > 0 && sxk > 0 ? sxk / skk : iv;
}

/* Sums (line, k) cells into out (v, t) and the per-group sums (gv, gt, ng
 * groups, group of line l = grp[l]; grp NULL: one group). */
static void s_group_sum(const s_series_t *s, const uint32_t *grp, uint32_t ng, double *gv,
                        double *gt)
{
    for (size_t i = 0; i < (size_t)ng * s->nk; i++)
        gv[i] = gt[i] = NAN;
    for (uint32_t l = 0; l < s->nn; l++)
        for (uint32_t k = 0; k < s->nk; k++) {
            double v = s->v[(size_t)l * s->nk + k], t = s->t[(size_t)l * s->nk + k];
            size_t g = (size_t)(grp ? grp[l] : 0) * s->nk + k;
            if (isnan(v))
                continue;
            gv[g] = isnan(gv[g]) ? v : gv[g] + v;
            gt[g] = isnan(gt[g]) || t > gt[g] ? t : gt[g];
        }
}

static size_t s_cell_budget = S_CELL_BUDGET;

void rb_html_set_cell_budget(size_t cells)
{
    s_cell_budget = cells ? cells : S_CELL_BUDGET;
}

/* The cells of phase p's series, a pass: in each, the bytes (operations when
 * ops) of the node's rows over the sum of its intervals' lengths (an
 * interval's length counted once, however many jobs have a row in it: they
 * are consecutive), and the last end. line maps a name to its line. 0 or
 * -ENOMEM. */
static int s_cells(s_samples_t *smp, const rb_run_result_t *r, uint32_t p, int ops,
                   const uint32_t *line, s_series_t *out)
{
    size_t cells = (size_t)out->nn * out->nk;
    uint32_t sh = out->shift;
    double *len = calloc(cells, sizeof *len), *cur = calloc(out->nn, sizeof *cur);
    int64_t *curk = malloc(out->nn * sizeof *curk);
    out->v = calloc(cells, sizeof *out->v);
    out->t = calloc(cells, sizeof *out->t);
    int rc = -ENOMEM;
    if (!len || !cur || !curk || !out->v || !out->t)
        goto out;
    for (uint32_t l = 0; l < out->nn; l++)
        curk[l] = -1;
    s_row_t row;
    s_pass_start(smp, p);
    while (s_pass_next(smp, r, p, &row)) {
        int64_t k = s_interval(&row, out->iv);
        uint32_t name = s_name(smp, row.node, 0), l = name < smp->nnames ? line[name] : UINT32_MAX;
        if (row.iv_s < S_TAIL * out->iv || k < 0 || k >= out->nkall || l >= out->nn)
            continue; /* left out, or not there on the first read */
        size_t c = (size_t)l * out->nk + (size_t)(k >> sh);
        out->v[c] += s_row_value(&row, ops); /* all of the node's jobs */
        out->t[c] = row.t_s > out->t[c] ? row.t_s : out->t[c];
        if (!sh) {
            len[c] = row.iv_s > len[c] ? row.iv_s : len[c];
        } else if (curk[l] == k) {
            cur[l] = row.iv_s > cur[l] ? row.iv_s : cur[l];
        } else {
            if (curk[l] >= 0)
                len[(size_t)l * out->nk + (size_t)(curk[l] >> sh)] += cur[l];
            curk[l] = k;
            cur[l] = row.iv_s;
        }
    }
    for (uint32_t l = 0; sh && l < out->nn; l++)
        if (curk[l] >= 0)
            len[(size_t)l * out->nk + (size_t)(curk[l] >> sh)] += cur[l];
    for (size_t c = 0; c < cells; c++) {
        out->v[c] = len[c] > 0 ? out->v[c] / len[c] : NAN;
        out->t[c] = len[c] > 0 ? out->t[c] : NAN;
    }
    rc = 0;
out:
    free(len);
    free(cur);
    free(curk);
    return rc;
}

/* Builds phase p's series of bytes/s (ops/s when ops) from the samples, in
 * three passes over its rows: the nominal interval, the lines and the
 * intervals, the cells. At most the cell budget of cells (or 1024 a line):
 * a longer phase gets cells of 2, 4, 8... intervals. Leaves out->nk 0 when
 * there are none. Returns 0 or -ENOMEM. */
static int s_series_build(s_samples_t *smp, const rb_run_result_t *r, uint32_t p, int ops,
                          s_series_t *out)
{
    const rb_phase_agg_t *a = &r->phases[p];
    memset(out, 0, sizeof *out);
    double iv = s_nominal_interval(smp, r, p);
    if (!(iv > 0))
        return 0;
    uint32_t most = a->nnodes + smp->nnames;
    uint32_t *line = malloc((smp->nnames ? smp->nnames : 1) * sizeof *line);
    rb_aggregate_name_idx_t *by_name = rb_aggregate_nodes_by_name(a->nodes, a->nnodes);
    out->node = calloc(most ? most : 1, sizeof *out->node);
    out->rack = calloc(most ? most : 1, sizeof *out->rack);
    out->rname = calloc(most ? most : 1, sizeof *out->rname);
    if (!line || !by_name || !out->node || !out->rack || !out->rname) {
        rb_aggregate_name_idx_destroy(by_name);
        goto nomem;
    }
    /* lines: the phase's nodes in rank order, then any stranger */
    for (uint32_t i = 0; i < a->nnodes; i++) {
        out->node[out->nn] = a->nodes[i].name;
        out->rack[out->nn++] = s_rack_of(out, a->nodes[i].rack);
    }
    for (uint32_t j = 0; j < smp->nnames; j++) {
        uint32_t i = rb_aggregate_node_lookup(by_name, a->nnodes, smp->names[j]);
        line[j] = i < a->nnodes ? i : UINT32_MAX;
    }
    rb_aggregate_name_idx_destroy(by_name);
    int64_t kmax = -1;
    s_row_t row;
    s_pass_start(smp, p);
    while (s_pass_next(smp, r, p, &row)) {
        int64_t k = s_interval(&row, iv);
        uint32_t node = s_name(smp, row.node, 0), rack = s_name(smp, row.rack, 0);
        if (k < 0 || node == UINT32_MAX || rack == UINT32_MAX)
            continue; /* names not there on the first read: the file grew */
        if (row.iv_s < S_TAIL * iv) {
            out->ntail++;
            continue;
        }
        kmax = k > kmax ? k : kmax;
        if (line[node] == UINT32_MAX) {
            line[node] = out->nn;
            out->node[out->nn] = smp->names[node];
            out->rack[out->nn++] = s_rack_of(out, smp->names[rack]);
        }
    }
    if (kmax < 0)
        goto done;
    size_t room = s_cell_budget / out->nn; /* cells a line */
    room = room > S_CELL_FLOOR ? room : S_CELL_FLOOR;
    out->nkall = (uint32_t)kmax + 1;
    while ((((size_t)out->nkall - 1) >> out->shift) + 1 > room)
        out->shift++;
    out->nk = (uint32_t)((((size_t)out->nkall - 1) >> out->shift) + 1);
    out->iv = iv;
    out->cv = calloc(out->nk, sizeof *out->cv);
    out->ct = calloc(out->nk, sizeof *out->ct);
    if (out->nr > 1) {
        out->rv = calloc((size_t)out->nr * out->nk, sizeof *out->rv);
        out->rt = calloc((size_t)out->nr * out->nk, sizeof *out->rt);
    }
    if (!out->cv || !out->ct || (out->nr > 1 && (!out->rv || !out->rt)) ||
        s_cells(smp, r, p, ops, line, out) < 0)
        goto nomem;
    s_group_sum(out, NULL, 1, out->cv, out->ct);
    if (out->nr > 1)
        s_group_sum(out, out->rack, out->nr, out->rv, out->rt);
    for (uint32_t k = 0; k < out->nk; k++) {
        if (!isnan(out->ct[k]) && out->ct[k] > out->tmax)
            out->tmax = out->ct[k];
        if (!isnan(out->cv[k]) && out->cv[k] > out->vmax)
            out->vmax = out->cv[k];
    }
done:
    free(line);
    return 0;
nomem:
    free(line);
    s_series_fini(out);
    return -ENOMEM;
}
/* The slowest node's p50 and p99 of each direction in each cell of g's
 * geometry (its interval, cells of 2^shift intervals), a pass: d50 and d99
 * hold 2 * g->nk values, NAN where no row has one. */
static void s_lat_cells(s_samples_t *smp, const rb_run_result_t *r, uint32_t p, const s_series_t *g,
                        double *d50, double *d99)
{
    for (size_t i = 0; i < 2 * (size_t)g->nk; i++)
        d50[i] = d99[i] = NAN;
    s_row_t row;
    s_pass_start(smp, p);
    while (s_pass_next(smp, r, p, &row)) {
        int64_t k = s_interval(&row, g->iv);
        if (row.iv_s < S_TAIL * g->iv || k < 0 || k >= g->nkall)
            continue;
        size_t c = (size_t)(k >> g->shift);
        for (int d = 0; d < 2; d++) {
            double *a = &d50[(size_t)d * g->nk + c], *b = &d99[(size_t)d * g->nk + c];
            if (!(row.dops[d] > 0))
                continue;
            if (!isnan(row.dp50[d]) && (isnan(*a) || row.dp50[d] > *a))
                *a = row.dp50[d];
            if (!isnan(row.dp99[d]) && (isnan(*b) || row.dp99[d] > *b))
                *b = row.dp99[d];
        }
    }
}

/* IOPS and latency over time, read and write apart: the cluster's reads
 * and writes per second, and the slowest node's p50 and p99 of each. */
static int s_dir_charts(const rb_run_result_t *r, uint32_t p, s_samples_t *smp, FILE *f)
{
    static const char *const color[2] = {"#1f77b4", "#d62728"};
    static const char *const name[2] = {"read", "write"};
    const rb_phase_agg_t *a = &r->phases[p];
    s_series_t s[2];
    memset(s, 0, sizeof s);
    rb_chart_line_t l[4];
    uint32_t n = 0, nk = 0;
    double tmax = 0, *d50 = NULL, *d99 = NULL;
    int rc = 0, geo = -1;
    char title[RB_NAME_MAX + 96], lname[4][48];
    for (int d = 0; d < 2 && rc == 0; d++) {
        if (!a->dir[d].ops)
            continue;
        if ((rc = s_series_build(smp, r, p, S_READ_OPS + d, &s[d])) < 0 || !s[d].nk)
            continue;
        if (geo < 0 || s[d].nk > nk) {
            geo = d;
            nk = s[d].nk;
        }
        tmax = s[d].tmax > tmax ? s[d].tmax : tmax;
        snprintf(lname[n], sizeof lname[n], "%s IOPS (cluster)", name[d]);
        l[n] = (rb_chart_line_t){.v = s[d].cv, .t = s[d].ct, .name = lname[n], .color = color[d]};
        n++;
    }
    if (rc < 0 || !n)
        goto out;
    fputs("<h3>IOPS over time, per direction</h3>\n", f);
    snprintf(title, sizeof title, "%s: reads and writes per second over time", a->name);
    if ((rc = rb_chart_lines(f, title, "operations per second", 1, 0, l, n, nk, tmax)) < 0)
        goto out;
    d50 = malloc(2 * (size_t)nk * sizeof *d50);
    d99 = malloc(2 * (size_t)nk * sizeof *d99);
    if (!d50 || !d99) {
        rc = -ENOMEM;
        goto out;
    }
    s_lat_cells(smp, r, p, &s[geo], d50, d99);
    uint32_t m = 0;
    for (int d = 0; d < 2; d++) {
        if (!a->dir[d].ops || !s[d].nk)
            continue;
        int any = 0;
        for (uint32_t k = 0; k < nk; k++)
            any |= !isnan(d99[(size_t)d * nk + k]);
        if (!any)
            continue;
        snprintf(lname[m], sizeof lname[m], "%s p99", name[d]);
        l[m] = (rb_chart_line_t){
            .v = d99 + (size_t)d * nk, .t = s[geo].ct, .name = lname[m], .color = color[d]};
        m++;
        snprintf(lname[m], sizeof lname[m], "%s p50", name[d]);
        l[m] = (rb_chart_line_t){.v = d50 + (size_t)d * nk,
                                 .t = s[geo].ct,
                                 .name = lname[m],
                                 .color = color[d],
                                 .dashed = 1};
        m++;
    }
    if (!m)
        goto out;
    fputs("<h3>Latency over time, per direction</h3>\n", f);
    snprintf(title, sizeof title,
             "%s: latency over time, the slowest node's p50 and p99 (microseconds, log scale)",
             a->name);
    if ((rc = rb_chart_lines(f, title, "latency (&#181;s, log scale)", 1, 1, l, m, nk, tmax)) < 0)
        goto out;
    fputs("<p class=\"note\">In each sample interval, the highest p50 and p99 of any node "
          "(each node&#8217;s from its own IOs of the interval, as samples.csv holds them): the "
          "slowest node, not a percentile of the cluster. The phase&#8217;s percentiles over all "
          "nodes are in the table above.</p>\n",
          f);
out:
    free(d50);
    free(d99);
    s_series_fini(&s[0]);
    s_series_fini(&s[1]);
    return rc;
}

static int s_phase(const rb_run_result_t *r, uint32_t p, s_samples_t *smp, const rb_html_tel_t *tel,
                   FILE *f)
{
    const rb_phase_agg_t *a = &r->phases[p];
    const rb_phase_spec_t *sp = &r->specs[p];
    int meta = rb_phase_spec_is_meta(sp);
    char io[256];
    fprintf(f, "<section id=\"phase-%u\">\n<h2>", p + 1);
    rb_svg_textf(f, "Phase %u/%u: %s", p + 1, r->nphases, a->name);
    fputs("</h2>\n<p>", f);
    if (meta)
        rb_svg_textf(f, "metadata %s, %s, %" PRIu64 " files a worker, %u workers on %u nodes",
                     rb_meta_op_name(sp->jobs[0].meta_op),
                     sp->jobs[0].meta_random ? "random" : "sequential", sp->jobs[0].meta_files,
                     a->nworkers, a->nnodes);
    else
        rb_svg_textf(f, "%s, %u job%s, %u workers on %u nodes",
                     rb_report_phase_io(a, sp, io, sizeof io), sp->njobs, sp->njobs == 1 ? "" : "s",
                     a->nworkers, a->nnodes);
    fputs("</p>\n", f);
    rb_table_figures(a, meta, f);
    if (!meta)
        rb_table_jobs(a, sp, f);
    rb_html_net(a, f);

    s_series_t s;
    if (s_series_build(smp, r, p, meta, &s) < 0)
        return -ENOMEM;
    fprintf(f, "<h3>%s over time</h3>\n", meta ? "Operations per second" : "Bandwidth");
    if (!s.nk) {
        fprintf(f, "<p class=\"none\">no samples: %s</p>\n",
                smp->found ? "samples.csv holds no interval of this phase"
                           : "samples.csv was not found in the run folder");
    } else {
        rb_chart_view_t vw;
        rb_chart_view_make(&s, a, &vw);
        if (rb_chart_series(f, &s, &vw, a->name, meta) < 0) {
            s_series_fini(&s);
            return -ENOMEM;
        }
        rb_chart_series_note(f, &s, &vw, meta);
        if (vw.spread) {
            fprintf(f, "<h3>Per node over time: the slowest, median and fastest of %u nodes</h3>\n",
                    s.nn);
            if (rb_chart_spread(f, &s, &vw, a->name, meta) < 0) {
                s_series_fini(&s);
                return -ENOMEM;
            }
            rb_chart_spread_note(f, &s, &vw);
        }
        fprintf(f, "<h3>Per node: spread of its sample intervals</h3>\n");
        if (rb_chart_nodes(f, &s, a->name, meta) < 0) {
            s_series_fini(&s);
            return -ENOMEM;
        }
        fputs("<p class=\"note\">Bar: the median of the node&#8217;s per-interval rates; "
              "whisker: their minimum to maximum, over the intervals drawn above",
              f);
        if (s.shift)
            fprintf(f,
                    " (the phase being long, a rate here is the node&#8217;s over %u consecutive "
                    "intervals, as in the chart above%s)",
                    1u << s.shift, vw.per > 1 ? " before the means of its points" : "");
        else if (vw.per > 1)
            fprintf(f, " (each interval on its own here, not the means of %u)", vw.per);
        fputs(".</p>\n", f);
    }
    s_series_fini(&s);
    if (!meta && s_dir_charts(r, p, smp, f) < 0)
        return -ENOMEM;
    if (rb_html_tel_charts(f, tel, p, a->name) < 0)
        return -ENOMEM;
    fputs("<h3>Latency percentiles</h3>\n", f);
    rb_chart_latency(f, &a->hist, a->name);
    if (a->hist.count)
        fprintf(f,
                "<p class=\"note\">From the latency histogram merged over all %" PRIu64
                " operations of all nodes; each percentile within %.2f%%. Exact min %.1f "
                "&#181;s, max %.1f &#181;s.</p>\n",
                a->hist.count, RB_HIST_REL_ERROR * 100, (double)a->hist.min / 1e3,
                (double)a->hist.max / 1e3);
    rb_table_rollups(a, meta, f);
    if (rb_table_disks(a, r->no_inventory, f) < 0)
        return -ENOMEM;
    rb_table_devices(a, f);
    if (rb_table_notes(a, meta, r->no_inventory, f) < 0)
        return -ENOMEM;
    fputs("</section>\n", f);
    return 0;
}

int rb_html_report(const rb_run_result_t *r, const char *run_dir, FILE *f)
{
    s_samples_t smp;
    rb_html_tel_t *tel = NULL;
    int rc = s_samples_read(&smp, r, run_dir);
    if (rc < 0 || (rc = rb_html_tel_read(r, run_dir, &tel)) < 0)
        goto out;
    rb_html_head(r, f);
    rb_table_summary(r, f);
    if (r->accept)
        rb_table_accept(r->accept, f);
    rb_table_projection(r, f);
    if ((rc = rb_html_drives(r, f)) < 0 || (rc = rb_html_devices_grouped(r, f)) < 0)
        goto out;
    if (smp.bad)
        fprintf(f,
                "<p class=\"note\">samples.csv: %zu line%s could not be read (a run cut short "
                "leaves its last line incomplete) and %s left out.</p>\n",
                smp.bad, smp.bad == 1 ? "" : "s", smp.bad == 1 ? "is" : "are");
    for (uint32_t p = 0; p < r->nphases && rc == 0; p++)
        rc = s_phase(r, p, &smp, tel, f);
    if (rc < 0 || (rc = rb_html_sweeps(r, f)) < 0)
        goto out;
    if ((rc = rb_table_iterations(r, f)) < 0)
        goto out;
    rb_html_nodes(r, f);
    rb_html_devices(r, f);
    if ((rc = rb_html_plan(r, run_dir, f)) < 0)
        goto out;
    fprintf(f,
            "<p class=\"note\">rackbench %s. Figures are defined in docs/metrics.md; rates are "
            "in %s units throughout.</p>\n</body>\n</html>\n",
            RB_VERSION,
            rb_chart_si() ? "decimal (1 MB/s = 10&#8310; bytes/s)"
                          : "binary (1 MiB/s = 2&#178;&#8304; bytes/s)");
out:
    rb_html_tel_destroy(&tel);
    s_samples_fini(&smp);
    if (rc < 0)
        return rc;
    fflush(f);
    return ferror(f) ? -EIO : 0;
}
