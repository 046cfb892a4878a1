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
 * keep every node. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rb_csv.h"
#include "rb_findings.h"
#include "rb_html.h"
#include "rb_names.h"
#include "rb_project.h"
#include "rb_units.h"

#define S_TAIL        0.5     /* a node's last interval shorter than this many is not drawn */
#define S_MAX_K       1048576 /* sample intervals per phase we draw at most */
#define S_CELL_BUDGET 8000000 /* cells (nodes x points) of a phase's series, at most ... */
#define S_CELL_FLOOR  1024    /* ... unless that leaves a line fewer points than this */
#define S_LEN_MAX     65536   /* distinct interval lengths a phase's median is exact over */
#define S_PLAN_MAX    4194304 /* bytes of plan.ini shown at most */
#define S_TEXT_MAX    4096    /* one formatted text, before escaping */
#define S_CHART_W     900.0   /* chart width, px */
#define S_NODE_ROW_PX 22.0    /* one node's row in the bar chart */
#define S_SERIES_X    84.0    /* left edge of a time chart's plot, px */
#define S_SERIES_W    (S_CHART_W - S_SERIES_X - 20) /* its width, px: a line has no more points */
#define S_NODE_LINES  32 /* more nodes: their slowest, median and fastest, not a line each */
#define S_RACK_LINES  32 /* more racks: no line per rack */
#define S_NODE_BARS   64 /* more nodes: the bar chart shows the slowest and the fastest ... */
#define S_BARS_END    16 /* ... this many of each */
#define S_STRAG_LINES 4  /* straggler nodes with a line of their own, at most */
#define S_DEV_ROWS    64 /* more devices: the table shows the busiest and the least busy ... */
#define S_DEV_END     16 /* ... this many of each, and every device a finding names */

/* ---------------------------------------------------------------------------
 * Escaping */

/* Length of the UTF-8 sequence at s (at most avail bytes) when it is valid
 * and a character XML accepts; else 0. */
static int s_utf8_len(const unsigned char *s, size_t avail)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xbf;
    int n;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        lo = c == 0xe0 ? 0xa0 : lo;
        hi = c == 0xed ? 0x9f : hi; /* no surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        lo = c == 0xf0 ? 0x90 : lo;
        hi = c == 0xf4 ? 0x8f : hi;
    } else {
        return 0;
    }
    if ((size_t)n > avail || s[1] < lo || s[1] > hi)
        return 0;
    for (int i = 2; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    if (c == 0xef && s[1] == 0xbf && (s[2] == 0xbe || s[2] == 0xbf))
        return 0; /* U+FFFE, U+FFFF */
    return n;
}

/* Writes len bytes of s as text or an attribute value: markup characters as
 * references, anything that is not valid UTF-8 or not allowed in XML as
 * U+FFFD. */
static void s_escn(FILE *f, const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    while (p < end) {
        unsigned char c = *p;
        int n = 1;
        if (c == '&')
            fputs("&amp;", f);
        else if (c == '<')
            fputs("&lt;", f);
        else if (c == '>')
            fputs("&gt;", f);
        else if (c == '"')
            fputs("&quot;", f);
        else if (c == '\'')
            fputs("&#39;", f);
        else if (c == '\t' || c == '\n' || (c >= 0x20 && c < 0x7f))
            fputc(c, f);
        else if (c == '\r')
            ; /* CR LF in a plan reads as LF */
        else if (c >= 0x80 && (n = s_utf8_len(p, (size_t)(end - p))) > 0)
            fwrite(p, 1, (size_t)n, f);
        else
            fputs("&#65533;", f);
        p += n > 0 ? n : 1;
    }
}

static void s_esc(FILE *f, const char *s)
{
    s_escn(f, s, strlen(s));
}

/* printf, then escaped. */
static void s_textf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void s_textf(FILE *f, const char *fmt, ...)
{
    char buf[S_TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    s_esc(f, buf);
}

/* ---------------------------------------------------------------------------
 * samples.csv */

/* samples.csv can hold a row per node, job and interval: an hour of 16,000
 * nodes at 1 sample/s is 57.6 million rows. No row is kept: a first read
 * learns the names, and per phase where its rows are and how long its
 * intervals are; each phase's series then reads its rows again (s_pass_*). */

/* A row as read; its names point into the line being read. */
typedef struct s_row {
    uint32_t phase;   /* index into the run's phases */
    const char *node; /* its node's name */
    const char *rack; /* its rack's name */
    double t_s;       /* end of the interval, s after the phase's GO */
    double iv_s;      /* its length on the node, s */
    double bytes;     /* moved in it by one job's workers on the node */
    double ops;       /* operations likewise */
} s_row_t;

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
static int s_row_parse(const rb_run_result_t *r, char *line, uint32_t *last, s_row_t *row)
{
    size_t len = strlen(line);
    char *fld[RB_CSV_SMP_NCOLS];
    int n = 0;
    if (len == 0 || line[len - 1] != '\n')
        return -EBADMSG; /* the run was cut off while writing it */
    line[--len] = 0;
    for (char *p = line;;) {
        char *comma = strchr(p, ',');
        fld[n++] = p;
        if (!comma)
            break;
        if (n == RB_CSV_SMP_NCOLS)
            return -EBADMSG;
        *comma = 0;
        p = comma + 1;
    }
    if (n != RB_CSV_SMP_NCOLS)
        return -EBADMSG;
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
        if (first && strncmp(s->line, "t_s,", 4) == 0)
            continue; /* the header */
        s_row_t row;
        int rc = s_row_parse(r, s->line, &s->last, &row);
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
        if (s_row_parse(r, s->line, &s->last, row) == 1 && row->phase == p)
            return 1;
    }
    return 0;
}
/* The k-th smallest of n values (k < n), in O(n): v is reordered so that
 * v[k] holds it, nothing after it is smaller and nothing before it larger
 * (a large fleet has a median per interval and per node: no sorting). */
static double s_kth(double *v, uint32_t n, uint32_t k)
{
    int64_t lo = 0, hi = (int64_t)n - 1;
    while (lo < hi) {
        double x = v[k];
        int64_t i = lo, j = hi;
        do {
            while (v[i] < x)
                i++;
            while (x < v[j])
                j--;
            if (i <= j) {
                double tmp = v[i];
                v[i++] = v[j];
                v[j--] = tmp;
            }
        } while (i <= j);
        if (j < (int64_t)k)
            lo = i;
        if ((int64_t)k < i)
            hi = j;
    }
    return v[k];
}

/* The median of n values as rb_median() gives it (the mean of the middle two
 * when n is even; 0 when n is 0), reordering them but not sorting. */
static double s_median(double *v, uint32_t n)
{
    if (!n)
        return 0;
    double hi = s_kth(v, n, n / 2), lo = hi;
    if (n % 2)
        return hi;
    lo = v[0];
    for (uint32_t i = 1; i < n / 2; i++)
        lo = v[i] > lo ? v[i] : lo;
    return (lo + hi) / 2.0;
}

/* ---------------------------------------------------------------------------
 * One phase's time series, interval by interval */

typedef struct s_series {
    uint32_t nn;        /* lines: the phase's nodes, then any other node in its samples */
    uint32_t nkall;     /* the phase's sample intervals */
    uint32_t shift;     /* a cell holds 2^shift consecutive intervals (0: one, as measured) */
    uint32_t nk;        /* cells a line: nkall / 2^shift, rounded up */
    double iv;          /* the intervals' nominal length, s */
    const char **node;  /* nn names (borrowed) */
    uint32_t *rack;     /* nn: each node's index into rname */
    uint32_t nr;        /* racks */
    const char **rname; /* nr names (borrowed) */
    double *v;          /* nn * nk: the node's rate in cell k; NAN: no sample */
    double *t;          /* nn * nk: the cell's last interval end on the node, s after GO */
    double *cv, *ct;    /* nk: the sum over nodes, the last end; NAN: no sample */
    double *rv, *rt;    /* nr * nk: the same per rack (only with more than one rack) */
    double tmax, vmax;  /* last interval end, largest cluster rate */
    uint32_t ntail;     /* rows left out: shorter than S_TAIL intervals, or empty */
} s_series_t;

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
        out->v[c] += ops ? row.ops : row.bytes; /* all of the node's jobs */
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
    rb_name_idx_t *by_name = rb_agg_nodes_by_name(a->nodes, a->nnodes);
    out->node = calloc(most ? most : 1, sizeof *out->node);
    out->rack = calloc(most ? most : 1, sizeof *out->rack);
    out->rname = calloc(most ? most : 1, sizeof *out->rname);
    if (!line || !by_name || !out->node || !out->rack || !out->rname) {
        free(by_name);
        goto nomem;
    }
    /* lines: the phase's nodes in rank order, then any stranger */
    for (uint32_t i = 0; i < a->nnodes; i++) {
        out->node[out->nn] = a->nodes[i].name;
        out->rack[out->nn++] = s_rack_of(out, a->nodes[i].rack);
    }
    for (uint32_t j = 0; j < smp->nnames; j++) {
        uint32_t i = rb_agg_node_lookup(by_name, a->nnodes, smp->names[j]);
        line[j] = i < a->nnodes ? i : UINT32_MAX;
    }
    free(by_name);
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
/* ---------------------------------------------------------------------------
 * Charts */

/* A linear axis from 0: its top and tick step, both "nice" (1, 2, 5 x 10^n). */
typedef struct s_axis {
    double max;  /* top of the axis, in display units */
    double step; /* between ticks */
    int dec;     /* decimals of a tick label */
} s_axis_t;

static s_axis_t s_axis(double max, int ticks)
{
    s_axis_t ax = {1, 0.2, 1};
    if (!(max > 0) || !isfinite(max))
        return ax;
    double raw = max / ticks, mag = pow(10, floor(log10(raw))), f = raw / mag;
    ax.step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
    ax.max = ceil(max / ax.step - 1e-9) * ax.step;
    ax.dec = (int)-floor(log10(ax.step) + 1e-9);
    ax.dec = ax.dec < 0 ? 0 : ax.dec > 6 ? 6 : ax.dec;
    return ax;
}

/* How a rate axis is shown: decimal units chosen by size, as dd prints. */
typedef struct s_unit {
    double div;         /* display value = rate / div */
    const char *name;   /* "GB/s" */
    const char *define; /* markup saying what the unit is */
} s_unit_t;

static s_unit_t s_rate_unit(double max, int ops)
{
    if (ops)
        return (s_unit_t){1, "operations/s", "operations per second"};
    if (max >= 1e9)
        return (s_unit_t){1e9, "GB/s", "1 GB/s = 10&#8313; bytes/s"};
    return (s_unit_t){1e6, "MB/s", "1 MB/s = 10&#8310; bytes/s"};
}

/* A distinct stroke colour for line i (the first ten: the usual palette). */
static void s_color(char *buf, size_t len, uint32_t i, int rack)
{
    static const char *const node[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                       "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    static const char *const racks[] = {"#08306b", "#7f2704", "#00441b", "#3f007d", "#67000d"};
    if (rack && i < sizeof racks / sizeof *racks)
        snprintf(buf, len, "%s", racks[i]);
    else if (!rack && i < sizeof node / sizeof *node)
        snprintf(buf, len, "%s", node[i]);
    else
        snprintf(buf, len, "hsl(%u,65%%,%u%%)", (i * 137u + (rack ? 60u : 0u)) % 360u,
                 rack ? 25u : 45u);
}

/* The plot area of a chart, in px. */
typedef struct s_plot {
    double x, y, w, h; /* left, top, width, height */
    double xmax, ymax; /* data values at the right and top edges */
} s_plot_t;

static double s_px(const s_plot_t *pl, double x)
{
    return pl->x + x / pl->xmax * pl->w;
}

static double s_py(const s_plot_t *pl, double y)
{
    return pl->y + pl->h - y / pl->ymax * pl->h;
}

/* Opens a chart: the svg element with its size and its title. */
static void s_svg_open(FILE *f, double w, double h, const char *title)
{
    fprintf(f, "<svg class=\"chart\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
            w, h, w, h);
    fputs("<title>", f);
    s_esc(f, title);
    fputs("</title>\n", f);
}

/* Ticks, grid and label of the x axis (linear, from 0). */
static void s_x_axis(FILE *f, const s_plot_t *pl, s_axis_t ax, const char *label_markup)
{
    for (int i = 0; i * ax.step <= ax.max + ax.step * 1e-6; i++) {
        double x = s_px(pl, i * ax.step);
        fprintf(f,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.*f</text>\n",
                x, pl->y, x, pl->y + pl->h, x, pl->y + pl->h + 16, ax.dec, i * ax.step);
    }
    fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
            pl->x + pl->w / 2, pl->y + pl->h + 38, label_markup);
}

/* Ticks, grid and label of the y axis (linear, from 0). */
static void s_y_axis(FILE *f, const s_plot_t *pl, s_axis_t ax, const char *label_markup)
{
    for (int i = 0; i * ax.step <= ax.max + ax.step * 1e-6; i++) {
        double y = s_py(pl, i * ax.step);
        fprintf(f,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>\n",
                pl->x, y, pl->x + pl->w, y, pl->x - 6, y + 4, ax.dec, i * ax.step);
    }
    fprintf(f,
            "<text class=\"label\" transform=\"translate(%.1f,%.1f) rotate(-90)\" "
            "text-anchor=\"middle\">%s</text>\n",
            pl->x - 52, pl->y + pl->h / 2, label_markup);
}

static void s_frame(FILE *f, const s_plot_t *pl)
{
    fprintf(f, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
            pl->x, pl->y, pl->w, pl->h);
}

/* What the time charts of a series draw. */
typedef struct s_view {
    uint32_t per;    /* sample intervals per point: 1, or more when the plot is narrower */
    uint32_t np;     /* points per line at most: nk / per, rounded up */
    int spread;      /* more than S_NODE_LINES nodes: their slowest, median and fastest */
    int racks;       /* a line per rack (more than one, at most S_RACK_LINES) */
    uint32_t nstrag; /* straggler nodes with a line of their own (spread only) */
    uint32_t strag[S_STRAG_LINES]; /* their lines in the series */
    uint32_t nstragall;            /* stragglers in the phase's findings */
} s_view_t;

/* The view of series s, phase a: how many intervals a point, which lines. */
static void s_view_make(const s_series_t *s, const rb_phase_agg_t *a, s_view_t *vw)
{
    uint32_t width = (uint32_t)S_SERIES_W;
    memset(vw, 0, sizeof *vw);
    vw->per = s->nk > width ? (s->nk + width - 1) / width : 1;
    vw->np = (s->nk + vw->per - 1) / vw->per;
    vw->spread = s->nn > S_NODE_LINES;
    vw->racks = s->rv && s->nr <= S_RACK_LINES;
    for (uint32_t i = 0; vw->spread && i < a->nfindings; i++) {
        const rb_finding_t *x = &a->findings[i];
        if (x->kind != RB_FIND_STRAGGLER)
            continue;
        vw->nstragall++;
        for (uint32_t l = 0; vw->nstrag < S_STRAG_LINES && l < s->nn; l++)
            if (strcmp(s->node[l], x->node) == 0) {
                vw->strag[vw->nstrag++] = l;
                break;
            }
    }
}

/* A line as drawn: per point, the mean rate and the mean end of `per`
 * consecutive intervals of v and t (nk values), over those measured; NAN
 * when none is (a gap). bv and bt hold nk / per values, rounded up. */
static void s_bucket(const double *v, const double *t, uint32_t nk, uint32_t per, double *bv,
                     double *bt)
{
    for (uint32_t b = 0, k = 0; k < nk; b++) {
        uint32_t end = nk - k > per ? k + per : nk, n = 0;
        double sv = 0, st = 0;
        for (; k < end; k++)
            if (!isnan(v[k])) {
                sv += v[k];
                st += t[k];
                n++;
            }
        bv[b] = n ? sv / n : NAN;
        bt[b] = n ? st / n : NAN;
    }
}

/* The slowest, median and fastest node's rate in each interval into mn, md,
 * mx (nk values; NAN where no node has a sample). 0 or -ENOMEM. */
static int s_node_spread(const s_series_t *s, double *mn, double *md, double *mx)
{
    double *col = malloc((s->nn ? s->nn : 1) * sizeof *col);
    if (!col)
        return -ENOMEM;
    for (uint32_t k = 0; k < s->nk; k++) {
        uint32_t n = 0;
        mn[k] = md[k] = mx[k] = NAN;
        for (uint32_t l = 0; l < s->nn; l++) {
            double x = s->v[(size_t)l * s->nk + k];
            if (isnan(x))
                continue;
            col[n++] = x;
            mn[k] = n == 1 || x < mn[k] ? x : mn[k];
            mx[k] = n == 1 || x > mx[k] ? x : mx[k];
        }
        if (n)
            md[k] = s_median(col, n);
    }
    free(col);
    return 0;
}

/* One line of a time series: a polyline per run of measured points, a dot
 * for a point alone; gaps stay gaps. v and t hold n values; attr is more
 * attributes of each element ("" or starting with a space). */
static void s_line(FILE *f, const s_plot_t *pl, const double *v, const double *t, uint32_t nk,
                   double div, const char *cls, const char *attr, const char *color,
                   const char *name)
{
    for (uint32_t k = 0; k < nk;) {
        if (isnan(v[k])) {
            k++;
            continue;
        }
        uint32_t end = k;
        while (end < nk && !isnan(v[end]))
            end++;
        if (end - k == 1) {
            fprintf(f, "<circle class=\"%s\" cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"%s>", cls,
                    s_px(pl, t[k]), s_py(pl, v[k] / div), color, attr);
        } else {
            fprintf(f, "<polyline class=\"%s\" stroke=\"%s\"%s points=\"", cls, color, attr);
            for (uint32_t i = k; i < end; i++)
                fprintf(f, "%s%.1f,%.1f", i > k ? " " : "", s_px(pl, t[i]), s_py(pl, v[i] / div));
            fputs("\">", f);
        }
        fputs("<title>", f);
        s_esc(f, name);
        fprintf(f, "</title></%s>\n", end - k == 1 ? "circle" : "polyline");
        k = end;
    }
}

/* A swatch and a name in a legend; style is more of the swatch's style ("" or
 * starting with ';'). */
static void s_legend_item(FILE *f, const char *color, const char *cls, const char *style,
                          const char *name)
{
    fprintf(f, "<span class=\"item\"><span class=\"sw %s\" style=\"border-color:%s%s\"></span>",
            cls, color, style);
    s_esc(f, name);
    fputs("</span>\n", f);
}

/* A line of a time chart. */
typedef struct s_draw {
    const double *v, *t;         /* nk values: the rate in each interval, its end */
    const char *cls;             /* class of its elements: node, rack, cluster, spread, straggler */
    const char *attr;            /* more attributes of them, as s_line() takes them */
    const char *style;           /* more style of its legend swatch, as s_legend_item() */
    int group;                   /* the legend lists group 0 first, then 1, ... */
    char color[32];              /* its stroke */
    char name[RB_NAME_MAX + 16]; /* its tooltip */
    const char *label;           /* its legend entry; NULL: the name */
} s_draw_t;

/* A time chart of n lines, drawn in order, each point as vw says, on axes
 * from 0 to the last interval's end and the highest point; then its legend.
 * The title says "PHASE: bandwidth over time, WHAT (unit)". 0 or -ENOMEM. */
static int s_chart_time(FILE *f, const s_series_t *s, const s_view_t *vw, const s_draw_t *d,
                        uint32_t n, const char *phase, const char *what, int ops)
{
    double *bv = malloc(vw->np * sizeof *bv), *bt = malloc(vw->np * sizeof *bt), vmax = 0;
    if (!bv || !bt) {
        free(bv);
        free(bt);
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < n; i++) {
        s_bucket(d[i].v, d[i].t, s->nk, vw->per, bv, bt);
        for (uint32_t b = 0; b < vw->np; b++)
            vmax = !isnan(bv[b]) && bv[b] > vmax ? bv[b] : vmax;
    }
    s_unit_t u = s_rate_unit(vmax, ops);
    s_axis_t ax = s_axis(s->tmax, 10), ay = s_axis(vmax / u.div * 1.04, 6); /* headroom */
    s_plot_t pl = {S_SERIES_X, 16, S_SERIES_W, 300, ax.max, ay.max};
    char title[S_TEXT_MAX], label[256];
    snprintf(title, sizeof title, "%s: %s over time, %s (%s)", phase,
             ops ? "operations per second" : "bandwidth", what, u.name);
    s_svg_open(f, S_CHART_W, pl.y + pl.h + 48, title);
    s_frame(f, &pl);
    s_x_axis(f, &pl, ax, "time after the phase&#8217;s GO (s)");
    snprintf(label, sizeof label, "%s%s%s", ops ? "" : "bandwidth (", u.define, ops ? "" : ")");
    s_y_axis(f, &pl, ay, label);
    for (uint32_t i = 0; i < n; i++) {
        s_bucket(d[i].v, d[i].t, s->nk, vw->per, bv, bt);
        s_line(f, &pl, bv, bt, vw->np, u.div, d[i].cls, d[i].attr, d[i].color, d[i].name);
    }
    fputs("</svg>\n<p class=\"legend\">", f);
    for (int g = 0, more = 1; more; g++) {
        more = 0;
        for (uint32_t i = 0; i < n; i++) {
            more |= d[i].group > g;
            if (d[i].group == g)
                s_legend_item(f, d[i].color, d[i].cls, d[i].style,
                              d[i].label ? d[i].label : d[i].name);
        }
    }
    fputs("</p>\n", f);
    free(bv);
    free(bt);
    return 0;
}

/* The cluster's rate over time, a dashed line per rack (up to S_RACK_LINES),
 * a thin line per node (up to S_NODE_LINES). 0 or -ENOMEM. */
static int s_chart_series(FILE *f, const s_series_t *s, const s_view_t *vw, const char *phase,
                          int ops)
{
    uint32_t nnode = vw->spread ? 0 : s->nn, nrack = vw->racks ? s->nr : 0, n = 0;
    s_draw_t *d = calloc((size_t)nnode + nrack + 1, sizeof *d);
    if (!d)
        return -ENOMEM;
    for (uint32_t l = 0; l < nnode; l++, n++) {
        d[n] = (s_draw_t){.v = s->v + (size_t)l * s->nk,
                          .t = s->t + (size_t)l * s->nk,
                          .cls = "node",
                          .attr = "",
                          .style = "",
                          .group = 2};
        s_color(d[n].color, sizeof d[n].color, l, 0);
        snprintf(d[n].name, sizeof d[n].name, "%s", s->node[l]);
    }
    for (uint32_t g = 0; g < nrack; g++, n++) {
        d[n] = (s_draw_t){.v = s->rv + (size_t)g * s->nk,
                          .t = s->rt + (size_t)g * s->nk,
                          .cls = "rack",
                          .attr = "",
                          .style = "",
                          .group = 1};
        s_color(d[n].color, sizeof d[n].color, g, 1);
        snprintf(d[n].name, sizeof d[n].name, "rack %s", s->rname[g]);
    }
    d[n] = (s_draw_t){.v = s->cv,
                      .t = s->ct,
                      .cls = "cluster",
                      .attr = "",
                      .style = "",
                      .color = "#000",
                      .name = "cluster (sum of nodes)",
                      .label = "cluster (sum of the nodes)"};
    int rc = s_chart_time(f, s, vw, d, n + 1, phase,
                          !vw->spread ? "cluster, per rack and per node"
                          : nrack     ? "cluster and per rack"
                                      : "cluster",
                          ops);
    free(d);
    return rc;
}

/* With many nodes: the slowest, median and fastest node of each interval,
 * and the straggler nodes' own lines. 0 or -ENOMEM. */
static int s_chart_spread(FILE *f, const s_series_t *s, const s_view_t *vw, const char *phase,
                          int ops)
{
    static const char *const strag_color[S_STRAG_LINES] = {"#9467bd", "#8c564b", "#e377c2",
                                                           "#17becf"};
    double *mm = malloc(3 * (size_t)s->nk * sizeof *mm);
    s_draw_t d[3 + S_STRAG_LINES];
    uint32_t n = 0;
    if (!mm || s_node_spread(s, mm, mm + s->nk, mm + 2 * (size_t)s->nk) < 0) {
        free(mm);
        return -ENOMEM;
    }
    d[n++] = (s_draw_t){.v = mm,
                        .t = s->ct,
                        .cls = "spread",
                        .attr = " stroke-width=\"1.5\" stroke-dasharray=\"5 3\"",
                        .style = ";border-top-style:dashed",
                        .group = 2,
                        .color = "#d62728",
                        .name = "node min"};
    d[n++] = (s_draw_t){.v = mm + s->nk,
                        .t = s->ct,
                        .cls = "spread",
                        .attr = " stroke-width=\"2\"",
                        .style = "",
                        .group = 1,
                        .color = "#2ca02c",
                        .name = "node median"};
    d[n++] = (s_draw_t){.v = mm + 2 * (size_t)s->nk,
                        .t = s->ct,
                        .cls = "spread",
                        .attr = " stroke-width=\"1.5\" stroke-dasharray=\"5 3\"",
                        .style = ";border-top-style:dashed",
                        .group = 0,
                        .color = "#1f77b4",
                        .name = "node max"};
    for (uint32_t i = 0; i < vw->nstrag; i++, n++) {
        uint32_t l = vw->strag[i];
        d[n] = (s_draw_t){.v = s->v + (size_t)l * s->nk,
                          .t = s->t + (size_t)l * s->nk,
                          .cls = "straggler",
                          .attr = " stroke-width=\"1.5\"",
                          .style = "",
                          .group = 3};
        snprintf(d[n].color, sizeof d[n].color, "%s", strag_color[i]);
        snprintf(d[n].name, sizeof d[n].name, "%s (straggler)", s->node[l]);
    }
    char what[128];
    if (s->shift)
        snprintf(what, sizeof what,
                 "the slowest, the median and the fastest node of each %u intervals",
                 1u << s->shift);
    else
        snprintf(what, sizeof what,
                 "the slowest, the median and the fastest node of each interval");
    int rc = s_chart_time(f, s, vw, d, n, phase, what, ops);
    free(mm);
    return rc;
}

/* Min, median and max of a line's measured intervals; 0 when it has none. */
static uint32_t s_spread(const s_series_t *s, uint32_t l, double *scratch, double out[3])
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < s->nk; k++)
        if (!isnan(s->v[(size_t)l * s->nk + k]))
            scratch[n++] = s->v[(size_t)l * s->nk + k];
    out[0] = out[2] = n ? scratch[0] : 0;
    for (uint32_t i = 1; i < n; i++) {
        out[0] = scratch[i] < out[0] ? scratch[i] : out[0];
        out[2] = scratch[i] > out[2] ? scratch[i] : out[2];
    }
    out[1] = s_median(scratch, n);
    return n;
}

/* A node ranked by the median of its intervals. */
typedef struct s_rank {
    double median;
    uint32_t line; /* in the series */
} s_rank_t;

static int s_by_median(const void *a, const void *b)
{
    const s_rank_t *x = a, *y = b;
    if (x->median != y->median)
        return x->median < y->median ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

/* Per node: a bar to the median of its interval rates, a whisker min..max.
 * Over S_NODE_BARS nodes, only the S_BARS_END slowest and fastest by median,
 * a separator between them. 0 or -ENOMEM. */
static int s_chart_nodes(FILE *f, const s_series_t *s, const char *phase, int ops)
{
    uint32_t nn = s->nn, nshow = 0, gap = UINT32_MAX, nrank = 0;
    double *scratch = calloc(s->nk ? s->nk : 1, sizeof *scratch), max = 0;
    double *st = calloc(3 * (size_t)(nn ? nn : 1), sizeof *st);
    uint32_t *cnt = calloc(nn ? nn : 1, sizeof *cnt), *show = calloc(nn ? nn : 1, sizeof *show);
    s_rank_t *rank = calloc(nn ? nn : 1, sizeof *rank);
    int rc = -ENOMEM;
    if (!scratch || !st || !cnt || !show || !rank)
        goto out;
    for (uint32_t l = 0; l < nn; l++)
        cnt[l] = s_spread(s, l, scratch, st + 3 * (size_t)l);
    if (nn <= S_NODE_BARS) {
        for (uint32_t l = 0; l < nn; l++)
            show[nshow++] = l;
    } else {
        for (uint32_t l = 0; l < nn; l++)
            if (cnt[l])
                rank[nrank++] = (s_rank_t){st[3 * (size_t)l + 1], l};
        qsort(rank, nrank, sizeof *rank, s_by_median);
        for (uint32_t i = 0; i < nrank; i++)
            if (nrank <= 2 * S_BARS_END || i < S_BARS_END || i >= nrank - S_BARS_END)
                show[nshow++] = rank[i].line;
        gap = nrank > 2 * S_BARS_END ? S_BARS_END : UINT32_MAX;
    }
    for (uint32_t i = 0; i < nshow; i++)
        if (cnt[show[i]] && st[3 * (size_t)show[i] + 2] > max)
            max = st[3 * (size_t)show[i] + 2];
    uint32_t rows = nshow + (gap != UINT32_MAX);
    s_unit_t u = s_rate_unit(max, ops);
    s_axis_t ax = s_axis(max / u.div, 8);
    s_plot_t pl = {170, 10, S_CHART_W - 170 - 24, rows * S_NODE_ROW_PX, ax.max, 1};
    char title[S_TEXT_MAX], label[256], color[32], b[3][64], per[48], in[48];
    const char *rate = ops ? "operations per second" : "bandwidth";
    if (s->shift) {
        snprintf(per, sizeof per, "per %u sample intervals", 1u << s->shift);
        snprintf(in, sizeof in, "in %u consecutive sample intervals", 1u << s->shift);
    } else {
        snprintf(per, sizeof per, "per sample interval");
        snprintf(in, sizeof in, "in one sample interval");
    }
    if (nn <= S_NODE_BARS)
        snprintf(title, sizeof title, "%s: each node's %s %s, min, median and max (%s)", phase,
                 rate, per, u.name);
    else
        snprintf(title, sizeof title,
                 "%s: the %d slowest and %d fastest of %u nodes by median, their %s %s, min, "
                 "median and max (%s)",
                 phase, S_BARS_END, S_BARS_END, nn, rate, per, u.name);
    s_svg_open(f, S_CHART_W, pl.y + pl.h + 48, title);
    s_frame(f, &pl);
    snprintf(label, sizeof label, "%s of one node %s%s%s%s", rate, in, ops ? "" : " (",
             ops ? "" : u.define, ops ? "" : ")");
    s_x_axis(f, &pl, ax, label);
    for (uint32_t row = 0, i = 0; row < rows; row++) {
        double y = pl.y + row * S_NODE_ROW_PX + S_NODE_ROW_PX / 2;
        if (row == gap) {
            fprintf(f,
                    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#666\" "
                    "stroke-dasharray=\"4 4\"/><text class=\"tick\" x=\"%.1f\" y=\"%.1f\" "
                    "text-anchor=\"middle\">&#8942; %u nodes between these by median, not shown "
                    "&#8942;</text>\n",
                    pl.x - 160, y, pl.x + pl.w, y, pl.x + pl.w / 2, y - 3, nrank - 2 * S_BARS_END);
            continue;
        }
        uint32_t l = show[i++], n = cnt[l];
        const double *sl = st + 3 * (size_t)l;
        fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", pl.x - 8,
                y + 4);
        s_esc(f, s->node[l]);
        fputs("</text>\n", f);
        if (!n) {
            fprintf(f, "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\">no samples</text>\n", pl.x + 6,
                    y + 4);
            continue;
        }
        for (int j = 0; j < 3; j++)
            snprintf(b[j], sizeof b[j], "%.*f", ax.dec + 2, sl[j] / u.div);
        s_color(color, sizeof color, l, 0);
        fprintf(f,
                "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                "fill=\"%s\"><title>",
                pl.x, y - 6, s_px(&pl, sl[1] / u.div) - pl.x, 12.0, color);
        s_esc(f, s->node[l]);
        if (s->shift)
            fprintf(f,
                    ": median %s, min %s, max %s %s over %u spans of %u intervals</title></rect>\n",
                    b[1], b[0], b[2], u.name, n, 1u << s->shift);
        else
            fprintf(f, ": median %s, min %s, max %s %s over %u intervals</title></rect>\n", b[1],
                    b[0], b[2], u.name, n);
        fprintf(f,
                "<path class=\"whisker\" d=\"M%.1f %.1fH%.1fM%.1f %.1fV%.1fM%.1f %.1fV%.1f\"/>\n",
                s_px(&pl, sl[0] / u.div), y, s_px(&pl, sl[2] / u.div), s_px(&pl, sl[0] / u.div),
                y - 5, y + 5, s_px(&pl, sl[2] / u.div), y - 5, y + 5);
    }
    fputs("</svg>\n", f);
    if (nn > S_NODE_BARS) {
        fprintf(f, "<p class=\"note\">%u nodes; ", nn);
        if (gap != UINT32_MAX)
            fprintf(f, "the %d slowest and %d fastest by median are shown", S_BARS_END, S_BARS_END);
        else
            fprintf(f, "the %u with samples are shown", nrank);
        if (nrank < nn)
            fprintf(f, " (%u without a sample drawn are not)", nn - nrank);
        fputs("; every node is in the table below and in samples.csv.</p>\n", f);
    }
    rc = 0;
out:
    free(scratch);
    free(st);
    free(cnt);
    free(show);
    free(rank);
    return rc;
}

/* Latency against percentile: x on a "nines" scale, -log10(1 - p), so p90,
 * p99, p99.9 and p99.99 are evenly spaced; y logarithmic in us. */
static void s_chart_latency(FILE *f, const rb_hist_t *h, const char *phase)
{
    static const double pct[] = {1,  5,  10, 20, 30,   40,   50,   60,    70,    75,   80,
                                 90, 95, 98, 99, 99.5, 99.8, 99.9, 99.95, 99.98, 99.99};
    static const struct {
        double p;
        const char *label;
    } xt[] = {{0, "p0"}, {50, "p50"}, {90, "p90"}, {99, "p99"}, {99.9, "p99.9"}, {99.99, "p99.99"}};
    enum { NP = sizeof pct / sizeof *pct };
    double us[NP], lo = INFINITY, hi = 0;
    for (int i = 0; i < NP; i++) {
        us[i] = (double)rb_hist_percentile(h, pct[i]) / 1e3;
        lo = us[i] > 0 && us[i] < lo ? us[i] : lo;
        hi = us[i] > hi ? us[i] : hi;
    }
    if (!(hi > 0)) {
        fputs("<p class=\"none\">no latency was recorded</p>\n", f);
        return;
    }
    double e0 = floor(log10(lo)), e1 = ceil(log10(hi));
    if (e1 <= e0)
        e1 = e0 + 1;
    s_plot_t pl = {100, 16, S_CHART_W - 100 - 30, 280, 4, e1 - e0};
    char title[S_TEXT_MAX];
    snprintf(title, sizeof title, "%s: latency percentiles (microseconds, log scale)", phase);
    s_svg_open(f, S_CHART_W, pl.y + pl.h + 48, title);
    s_frame(f, &pl);
    for (size_t i = 0; i < sizeof xt / sizeof *xt; i++) {
        double x = s_px(&pl, -log10(1 - xt[i].p / 100));
        fprintf(f,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
                x, pl.y, x, pl.y + pl.h, x, pl.y + pl.h + 16, xt[i].label);
    }
    fprintf(f,
            "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">percentile of all "
            "operations (scale: each step right is ten times rarer)</text>\n",
            pl.x + pl.w / 2, pl.y + pl.h + 38);
    for (double e = e0; e <= e1 + 1e-9; e++) {
        /* decades, and 2 and 5 between them when there are few decades */
        for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
            double v = log10(m) + e;
            if ((m > 1 && e1 - e0 > 2) || v > e1 + 1e-9)
                continue;
            double y = s_py(&pl, v - e0);
            fprintf(f,
                    "<line class=\"grid%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                    "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>\n",
                    m > 1 ? " minor" : "", pl.x, y, pl.x + pl.w, y, pl.x - 6, y + 4,
                    e < 0 ? (int)-e : 0, m * pow(10, e));
        }
    }
    fprintf(f,
            "<text class=\"label\" transform=\"translate(%.1f,%.1f) rotate(-90)\" "
            "text-anchor=\"middle\">latency (&#181;s, log scale)</text>\n",
            pl.x - 72, pl.y + pl.h / 2);
    fputs("<polyline class=\"lat\" points=\"", f);
    for (int i = 0; i < NP; i++)
        if (us[i] > 0)
            fprintf(f, "%s%.1f,%.1f", i ? " " : "", s_px(&pl, -log10(1 - pct[i] / 100)),
                    s_py(&pl, log10(us[i]) - e0));
    fputs("\"><title>latency percentiles</title></polyline>\n", f);
    for (int i = 0; i < NP; i++)
        if (us[i] > 0)
            fprintf(f,
                    "<circle class=\"lat\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\"><title>p%g: %.1f "
                    "&#181;s</title></circle>\n",
                    s_px(&pl, -log10(1 - pct[i] / 100)), s_py(&pl, log10(us[i]) - e0), pct[i],
                    us[i]);
    fputs("</svg>\n", f);
}

/* ---------------------------------------------------------------------------
 * Sections */

static const char *const s_css =
    "body{font:14px/1.45 system-ui,sans-serif;color:#222;margin:1.5em auto;max-width:"
    "1000px;padding:0 1em}\n"
    "h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #ccc;margin-top:2em}\n"
    "h3{font-size:1.05em;margin:1.4em 0 .3em}\n"
    "table{border-collapse:collapse;margin:.4em 0}\n"
    "td,th{padding:2px 10px 2px 0;text-align:left;vertical-align:top}\n"
    "th{border-bottom:1px solid #999}td.n,th.n{text-align:right;white-space:nowrap}\n"
    "table.kv th{border:0;white-space:nowrap;font-weight:600}\n"
    "tr.rack td{font-weight:600;border-top:1px solid #ddd}\n"
    "tr.cluster td{font-weight:700;border-top:2px solid #999}\n"
    ".fail,.bad{color:#b00;font-weight:700}.pass{color:#070}\n"
    ".note{color:#555}.none{color:#777;font-style:italic}.dec{color:#666;font-size:.9em}\n"
    "pre{background:#f6f6f6;padding:.6em;overflow:auto}\n"
    "svg.chart{display:block;max-width:100%;height:auto;font-size:12px}\n"
    "svg .frame{fill:none;stroke:#444}svg .grid{stroke:#e2e2e2}svg .minor{stroke:#f0f0f0}\n"
    "svg .tick{fill:#333}svg .label{fill:#111;font-size:13px}\n"
    "svg polyline{fill:none}svg .node{stroke-width:1;opacity:.75}\n"
    "svg .rack{stroke-width:2;stroke-dasharray:6 3}svg .cluster{stroke-width:2.5}\n"
    "svg .lat{stroke:#1f4e8c;stroke-width:2;fill:#1f4e8c}svg polyline.lat{fill:none}\n"
    "svg .bar{opacity:.8}svg .whisker{stroke:#000;stroke-width:1.5;fill:none}\n"
    ".legend .item{margin-right:1.2em;white-space:nowrap}\n"
    ".legend .sw{display:inline-block;width:22px;height:0;vertical-align:middle;"
    "margin-right:4px;border-top:2px solid}\n"
    ".legend .sw.cluster{border-top-width:3px}.legend .sw.rack{border-top-style:dashed}\n";

static void s_iso_time(char *buf, size_t len, uint64_t wall_ns)
{
    time_t t = (time_t)(wall_ns / 1000000000ULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* A row of a two-column table: the label is markup, the value text. */
static void s_kv(FILE *f, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void s_kv(FILE *f, const char *label, const char *fmt, ...)
{
    char buf[S_TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(f, "<tr><th scope=\"row\">%s</th><td>", label);
    s_esc(f, buf);
    fputs("</td></tr>\n", f);
}

static void s_head(const rb_run_result_t *r, FILE *f)
{
    char when[32], b1[64];
    uint32_t ok = 0;
    for (uint32_t i = 0; i < r->nnodes; i++)
        ok += r->nodes[i].status == RB_NODE_OK;
    s_iso_time(when, sizeof when, r->started_wall_ns);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>", f);
    s_textf(f, "rackbench run %s", r->run_id);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", s_css);
    s_textf(f, "rackbench run %s", r->run_id);
    fputs("</h1>\n<table class=\"kv\">\n", f);
    s_kv(f, "plan", "%s", r->plan_source ? r->plan_source : "");
    s_kv(f, "started", "%s", when);
    s_kv(f, "duration", "%.1f s", r->duration_s);
    s_kv(f, "nodes", "%u (%u ok)", r->nnodes, ok);
    s_kv(f, "rackbench", "%s", RB_VERSION);
    fprintf(f, "<tr><th scope=\"row\">status</th><td class=\"%s\">%s</td></tr>\n",
            r->status || r->running ? "fail" : "pass",
            r->running  ? "DID NOT FINISH (partial: the phases it reached)"
            : r->status ? "FAILED"
                        : "completed");
    if (r->status)
        s_kv(f, "error", "%s", r->error);
    fputs("</table>\n", f);
    if (r->nphases) {
        fputs("<p>phases:", f);
        for (uint32_t p = 0; p < r->nphases; p++) {
            fprintf(f, " <a href=\"#phase-%u\">", p + 1);
            s_esc(f, r->phases[p].name);
            fputs("</a>", f);
        }
        fputs("</p>\n", f);
    }
    fputs("<h2>Nodes</h2>\n<table>\n<tr><th>node</th><th>rack</th><th>host</th><th>status</th>"
          "<th class=\"n\">cores</th><th class=\"n\">RAM</th><th class=\"n\">clock offset "
          "(ms)</th><th class=\"n\">clock round trip (ms)</th></tr>\n",
          f);
    for (uint32_t i = 0; i < r->nnodes; i++) {
        const rb_report_node_t *n = &r->nodes[i];
        fputs("<tr><td>", f);
        s_esc(f, n->name);
        fputs("</td><td>", f);
        s_esc(f, n->rack);
        fputs("</td><td>", f);
        s_esc(f, n->hostname);
        fprintf(f, "</td><td%s>", n->status != RB_NODE_OK ? " class=\"bad\"" : "");
        s_esc(f, rb_node_status_name(n->status));
        if (n->status != RB_NODE_OK && n->error[0]) {
            fputs(": ", f);
            s_esc(f, n->error);
        }
        fprintf(f, "</td><td class=\"n\">%u</td><td class=\"n\">", n->cores);
        s_esc(f, rb_fmt_size(b1, sizeof b1, (double)n->ram_bytes));
        fprintf(f, "</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td></tr>\n",
                (double)n->clock_offset_ns / 1e6, (double)n->clock_rtt_ns / 1e6);
    }
    fputs("</table>\n", f);
}

/* The phase's headline figures. */
static void s_phase_figures(const rb_phase_agg_t *a, int meta, FILE *f)
{
    char b1[64], b2[64], b3[64];
    const rb_hist_t *h = &a->hist;
    fputs("<table class=\"kv\">\n", f);
    if (meta) {
        s_kv(f, "aggregate (parent sees)", "%.0f operations/s", a->iops);
    } else {
        s_kv(f, "aggregate bandwidth (parent sees)", "%s",
             rb_fmt_bw(b1, sizeof b1, a->aggregate_bw));
        s_kv(f, "sum of rates (children see)", "%s", rb_fmt_bw(b1, sizeof b1, a->sum_of_rates_bw));
        s_kv(f, "IOPS", "%.0f", a->iops);
    }
    s_kv(f, "moved", "%s (%" PRIu64 " bytes) in %" PRIu64 " operations",
         rb_fmt_size(b1, sizeof b1, (double)a->bytes), a->bytes, a->ops);
    s_kv(f, "window", "%.3f s (last worker end - first worker start)", a->window_s);
    s_kv(f, "start skew", "%.3f ms", a->start_skew_s * 1e3);
    s_kv(f, "errors", "%" PRIu64, a->errors);
    if (a->verify_errors)
        s_kv(f, "verify errors", "%" PRIu64 " blocks failed verification", a->verify_errors);
    s_kv(f, "latency (&#181;s)",
         "p50 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  mean %.1f (percentiles within %.2f%%)",
         (double)rb_hist_percentile(h, 50) / 1e3, (double)rb_hist_percentile(h, 99) / 1e3,
         (double)rb_hist_percentile(h, 99.9) / 1e3, h->count ? (double)h->max / 1e3 : 0,
         rb_hist_mean(h) / 1e3, RB_HIST_REL_ERROR * 100);
    if (a->from_samples)
        fputs(
            "<tr><th scope=\"row\">rebuilt</th><td class=\"bad\">the run was cut off in this "
            "phase: its figures add up its samples; no latency, no per-worker figures</td></tr>\n",
            f);
    if (a->partial)
        fputs("<tr><th scope=\"row\">partial</th><td class=\"bad\">PARTIAL: some node did not "
              "finish this phase cleanly</td></tr>\n",
              f);
    if (a->cache_influenced) {
        fputs("<tr><th scope=\"row\">page cache</th><td class=\"bad\">", f);
        s_textf(f,
                "CACHE-INFLUENCED: buffered data of %s per node is under 2 x RAM (%s on the "
                "smallest node): these figures measure the page cache, not the disks",
                rb_fmt_size(b1, sizeof b1, (double)a->buffered_set),
                rb_fmt_size(b2, sizeof b2, (double)a->ram_min));
        fputs("</td></tr>\n", f);
    }
    if (a->sw_limit_ns)
        s_kv(f, "stonewall_time",
             "%s in %.3f s = %s; %u workers stopped at %.3f s, ops per worker %" PRIu64 "..%" PRIu64
             "%s",
             rb_fmt_size(b1, sizeof b1, (double)a->sw_bytes), a->sw_s,
             rb_fmt_bw(b2, sizeof b2, a->sw_bw), a->sw_stopped, (double)a->sw_limit_ns / 1e9,
             a->sw_ops_min, a->sw_ops_max,
             a->wearout ? "; the figures above include the wear-out" : "");
    if (a->error_code)
        s_kv(f, "first error", "%s: %s", a->error_node, a->error);
    if (!meta && a->steady.intervals > 0)
        s_kv(f, "steady state",
             "median %s, min %s, peak %s over %u intervals of %.3f s; sustained for %.1f s at "
             ">= 90%% of peak",
             rb_fmt_bw(b1, sizeof b1, a->steady.median_bw),
             rb_fmt_bw(b2, sizeof b2, a->steady.min_bw),
             rb_fmt_bw(b3, sizeof b3, a->steady.peak_bw), a->steady.intervals, a->steady.interval_s,
             a->steady.sustained_s);
    fputs("</table>\n", f);
}

/* Start skew and nodes well below the median node. */
static int s_phase_notes(const rb_phase_agg_t *a, int meta, FILE *f)
{
    uint32_t n = 0, late = UINT32_MAX;
    for (uint32_t i = 0; i < a->nnodes; i++) {
        const rb_agg_node_t *an = &a->nodes[i];
        n += an->workers > 0;
        if (an->t_first && (late == UINT32_MAX || an->t_first > a->nodes[late].t_first))
            late = i;
    }
    fputs("<h3>Notes</h3>\n<ul class=\"notes\">\n<li>", f);
    s_textf(f, "Start skew %.3f ms: the last worker started that long after the first",
            a->start_skew_s * 1e3);
    if (a->clock_error_s > 0)
        s_textf(f,
                " (on the coordinator's clock, through clock offsets each within %.3f ms: "
                "the true skew is within %.3f ms of it)",
                a->clock_error_s * 1e3, 2 * a->clock_error_s * 1e3);
    if (late != UINT32_MAX && a->nnodes > 1 && a->t_first_start &&
        a->nodes[late].t_first > a->t_first_start)
        s_textf(f, "; the last node to start was %s, %.3f ms after the first worker",
                a->nodes[late].name, (double)(a->nodes[late].t_first - a->t_first_start) / 1e6);
    fputs(".</li>\n", f);
    for (uint32_t i = 0; i < a->nnodes; i++) {
        const rb_agg_node_t *an = &a->nodes[i];
        if (an->status != RB_NODE_OK) {
            fputs("<li class=\"bad\">", f);
            s_textf(f, "%s did not complete the phase: %s%s%s", an->name,
                    rb_node_status_name(an->status), an->error[0] ? ": " : "", an->error);
            fputs("</li>\n", f);
        }
    }
    /* the findings of report.txt and summary.json, the same words */
    for (uint32_t i = 0; i < a->nfindings; i++) {
        const rb_finding_t *x = &a->findings[i];
        fputs("<li class=\"bad\">", f);
        s_textf(f, "Finding, %s: %s: %s", rb_finding_kind_name(x->kind),
                x->device[0] ? x->device : x->node, x->evidence);
        if (x->first_seen_s >= 0)
            s_textf(f, ", from %.1f s on", x->first_seen_s);
        fputs(".</li>\n", f);
    }
    if (n > 2 && !meta)
        fprintf(f,
                "<li class=\"note\">Stragglers: %s. A node is one when its bandwidth is below the "
                "median node's by more than %.0f median absolute deviations and more than %.0f%% "
                "(docs/metrics.md).</li>\n",
                a->nfindings ? "see the findings" : "none", RB_STRAGGLER_MADS,
                RB_STRAGGLER_MARGIN * 100);
    fputs("</ul>\n", f);
    return 0;
}

/* One bandwidth (or rate) cell. */
static void s_td_rate(FILE *f, double v, int meta)
{
    char b[64];
    fputs("<td class=\"n\">", f);
    if (meta) {
        fprintf(f, "%.0f ops/s", v);
    } else {
        /* binary units, and the decimal ones in parentheses on a line of their own */
        char *dec = strstr(rb_fmt_bw(b, sizeof b, v), " (");
        if (dec)
            *dec++ = 0;
        s_esc(f, b);
        if (dec) {
            fputs("<br/><span class=\"dec\">", f);
            s_esc(f, dec);
            fputs("</span>", f);
        }
    }
    fputs("</td>", f);
}

static void s_group_row(FILE *f, const rb_agg_group_t *g, const char *cls, int meta)
{
    char b[64];
    fprintf(f, "<tr class=\"%s\"><td>", cls);
    if (strcmp(cls, "rack") == 0)
        fputs("rack ", f);
    s_esc(f, g->name);
    fprintf(f, "</td><td></td><td class=\"n\">%u</td><td class=\"n\">", g->nodes);
    s_esc(f, rb_fmt_size(b, sizeof b, (double)g->bytes));
    fputs("</td>", f);
    s_td_rate(f, meta ? g->iops : g->aggregate_bw, meta);
    if (meta) {
        fputs("<td></td><td></td><td></td></tr>\n", f);
        return;
    }
    s_td_rate(f, g->node_bw_median, 0);
    s_td_rate(f, g->node_bw_min, 0);
    s_td_rate(f, g->node_bw_max, 0);
    fputs("</tr>\n", f);
}

/* node -> rack -> cluster. */
/* Per node and device, from host telemetry: a cell shaded by how busy. */
typedef struct s_dev_rank {
    double util;
    uint32_t i;
} s_dev_rank_t;

static int s_by_util(const void *x, const void *y)
{
    const s_dev_rank_t *a = x, *b = y;
    if (a->util != b->util)
        return a->util < b->util ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* Which of the phase's devices the table shows: all of them up to S_DEV_ROWS;
 * above, the S_DEV_END least busy and the S_DEV_END busiest by median
 * utilisation, and every device a finding names. show[] gets 1 for those;
 * returns how many, or 0 when out of memory (then all are shown). */
static uint32_t s_devices_shown(const rb_phase_agg_t *a, uint8_t *show)
{
    uint32_t n = a->ndevs, shown = 0;
    s_dev_rank_t *rk = malloc(n * sizeof *rk);
    if (!rk)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        rk[i] = (s_dev_rank_t){a->devs[i].util_median, i};
    qsort(rk, n, sizeof *rk, s_by_util);
    for (uint32_t k = 0; k < n; k++)
        show[rk[k].i] = k < S_DEV_END || k >= n - S_DEV_END;
    free(rk);
    for (uint32_t j = 0; j < a->nfindings; j++) {
        const rb_finding_t *x = &a->findings[j];
        for (uint32_t i = 0; x->device[0] && i < n; i++)
            if (strcmp(a->devs[i].node, x->node) == 0 && strcmp(a->devs[i].device, x->device) == 0)
                show[i] = 1;
    }
    for (uint32_t i = 0; i < n; i++)
        shown += show[i];
    return shown;
}

/* A row saying how many devices the table left out here, if any. */
static void s_devices_gap(FILE *f, uint32_t *skipped)
{
    if (*skipped)
        fprintf(f, "<tr><td class=\"none\" colspan=\"10\">%u devices not shown</td></tr>\n",
                *skipped);
    *skipped = 0;
}

static void s_devices(const rb_phase_agg_t *a, FILE *f)
{
    char b1[64], b2[64], b3[64], b4[64];
    if (!a->ndevs)
        return;
    uint8_t *show = a->ndevs > S_DEV_ROWS ? calloc(a->ndevs, 1) : NULL;
    uint32_t shown = show ? s_devices_shown(a, show) : 0;
    if (!shown) {
        free(show);
        show = NULL;
    }
    fputs("<h3>Devices (host telemetry, medians over the sample intervals)</h3>\n", f);
    if (show)
        s_textf(f,
                "<p class=\"note\">%u devices; shown: the %u least busy and the %u busiest by "
                "median utilisation, and every device a finding names (%u rows). Every device "
                "is in summary.json (devices) and telemetry.csv.</p>\n",
                a->ndevs, S_DEV_END, S_DEV_END, shown);
    fputs("<table>\n"
          "<tr><th>node</th><th>device</th><th>member of</th><th>busy %</th><th>max %</th>"
          "<th>read/s</th><th>write/s</th><th>await ms</th><th>read</th><th>written</th></tr>\n",
          f);
    uint32_t skipped = 0;
    for (uint32_t i = 0; i < a->ndevs; i++) {
        if (show && !show[i]) {
            skipped++;
            continue;
        }
        s_devices_gap(f, &skipped);
        const rb_agg_dev_t *d = &a->devs[i];
        int shade = (int)(d->util_median * 2.55);
        fputs("<tr><td>", f);
        s_esc(f, d->node);
        fputs("</td><td>", f);
        s_esc(f, d->device);
        fputs("</td><td>", f);
        s_esc(f, d->member ? d->parent : "(root)");
        fprintf(f,
                "</td><td class=\"n\" style=\"background:rgb(255,%d,%d)\">%.1f</td>"
                "<td class=\"n\">%.1f</td>",
                255 - shade / 2, 255 - shade, d->util_median, d->util_max);
        fputs("<td class=\"n\">", f);
        s_esc(f, rb_fmt_size(b1, sizeof b1, d->rd_bps_median));
        fputs("</td><td class=\"n\">", f);
        s_esc(f, rb_fmt_size(b2, sizeof b2, d->wr_bps_median));
        fprintf(f, "</td><td class=\"n\">%.2f</td><td class=\"n\">", d->await_ms_median);
        s_esc(f, rb_fmt_size(b3, sizeof b3, (double)d->rd_bytes));
        fputs("</td><td class=\"n\">", f);
        s_esc(f, rb_fmt_size(b4, sizeof b4, (double)d->wr_bytes));
        fputs("</td></tr>\n", f);
    }
    s_devices_gap(f, &skipped);
    fputs("</table>\n", f);
    free(show);
}

static void s_rollups(const rb_phase_agg_t *a, int meta, FILE *f)
{
    char b[64];
    fprintf(f,
            "<h3>Nodes, racks, cluster</h3>\n<table>\n<tr><th>node / rack</th><th>status</th>"
            "<th class=\"n\">nodes</th><th class=\"n\">moved</th><th class=\"n\">%s</th>"
            "<th class=\"n\">node median</th><th class=\"n\">node min</th>"
            "<th class=\"n\">node max</th></tr>\n",
            meta ? "operations/s" : "bandwidth");
    for (uint32_t g = 0; g < a->nracks; g++) {
        for (uint32_t i = 0; i < a->nnodes; i++) {
            const rb_agg_node_t *an = &a->nodes[i];
            if (strcmp(an->rack, a->racks[g].name) != 0)
                continue;
            fputs("<tr><td>", f);
            s_esc(f, an->name);
            fprintf(f, "</td><td%s>", an->status != RB_NODE_OK ? " class=\"bad\"" : "");
            s_esc(f, rb_node_status_name(an->status));
            fputs("</td><td></td><td class=\"n\">", f);
            s_esc(f, rb_fmt_size(b, sizeof b, (double)an->bytes));
            fputs("</td>", f);
            s_td_rate(f, meta ? an->iops : an->bw, meta);
            fputs("<td></td><td></td><td></td></tr>\n", f);
        }
        s_group_row(f, &a->racks[g], "rack", meta);
    }
    s_group_row(f, &a->cluster, "cluster", meta);
    fputs("</table>\n", f);
    if (!meta)
        fputs("<p class=\"note\">A node&#8217;s bandwidth is its bytes over its own window; a "
              "rack&#8217;s and the cluster&#8217;s are their bytes over their window (first "
              "worker start to last worker end); median, min and max are of their nodes&#8217; "
              "bandwidths.</p>\n",
              f);
}

/* What the time chart shows, under it. */
static void s_series_note(FILE *f, const s_series_t *s, const s_view_t *vw, int meta)
{
    const char *what = meta ? "the operations a node completed" : "the bytes a node moved";
    uint32_t held = s->shift ? 1u << s->shift : 1;
    if (vw->per == 1 && held == 1)
        fprintf(f,
                "<p class=\"note\">Each point is one sample interval (about %.2g s), drawn at its "
                "end: %s in it over its length, as in samples.csv.",
                s->iv, what);
    else if (held == 1)
        fprintf(f,
                "<p class=\"note\">Downsampled: the phase has %u sample intervals (about %.2g s "
                "each), more than the chart is wide, so each point is the mean of %u consecutive "
                "intervals, drawn at the mean of their ends; an interval&#8217;s rate is %s in it "
                "over its length. samples.csv keeps every interval.",
                s->nkall, s->iv, vw->per, what);
    else if (vw->per == 1)
        fprintf(
            f,
            "<p class=\"note\">Downsampled: the phase has %u sample intervals (about %.2g s "
            "each), too many to keep one by one, so each point holds %u consecutive "
            "intervals: %s in them over the sum of their lengths, drawn at the last one&#8217;s "
            "end. samples.csv keeps every interval.",
            s->nkall, s->iv, held, what);
    else
        fprintf(f,
                "<p class=\"note\">Downsampled: the phase has %u sample intervals (about %.2g s "
                "each), too many to keep one by one, so each point holds %u consecutive "
                "intervals: the mean of %u rates, each %s in %u consecutive intervals over the sum "
                "of their lengths, drawn at the mean of their last ends. samples.csv keeps every "
                "interval.",
                s->nkall, s->iv, vw->per * held, vw->per, what, held);
    fprintf(f, " The cluster line is the sum over the nodes of the same interval%s.",
            vw->racks ? ", each dashed rack line the sum over its nodes" : "");
    fputs(vw->per == 1 && held == 1 ? " A missing interval is left as a gap."
                                    : " A point with no measured interval is left as a gap.",
          f);
    if (s->rv && !vw->racks)
        fprintf(f, " The %u racks have no line each (more than %d): the table below has each.",
                s->nr, S_RACK_LINES);
    if (vw->spread)
        fprintf(f,
                " %u nodes are too many for a line each: the chart below draws the slowest, the "
                "median and the fastest node of each interval.",
                s->nn);
    if (s->ntail)
        fprintf(f,
                " Not drawn: %u row%s of samples.csv for a node&#8217;s last interval "
                "shorter than half an interval (a rate over a few ms says little); what "
                "%s counts in every table.",
                s->ntail, s->ntail == 1 ? "" : "s", s->ntail == 1 ? "it holds" : "they hold");
    fputs("</p>\n", f);
}

/* What the chart of the slowest, median and fastest node shows, under it. */
static void s_spread_note(FILE *f, const s_series_t *s, const s_view_t *vw)
{
    fputs("<p class=\"note\">In each interval, node min is the rate of the slowest node with "
          "a sample in it, node median the median node&#8217;s, node max the fastest&#8217;s "
          "(not always the same node from one interval to the next)",
          f);
    if (s->shift)
        fprintf(f,
                "; the phase being long, nodes are compared over %u consecutive intervals at "
                "a time",
                1u << s->shift);
    if (vw->per > 1)
        fprintf(f, "; each point the mean of %u %s", vw->per, s->shift ? "of those" : "intervals");
    fputs(".", f);
    if (vw->nstrag) {
        fputs(" Stragglers have a line of their own: ", f);
        for (uint32_t i = 0; i < vw->nstrag; i++) {
            fputs(i ? ", " : "", f);
            s_esc(f, s->node[vw->strag[i]]);
        }
        if (vw->nstragall > vw->nstrag)
            fprintf(f, " (%u of the %u the notes name)", vw->nstrag, vw->nstragall);
        fputs(".", f);
    }
    fputs("</p>\n", f);
}

static int s_phase(const rb_run_result_t *r, uint32_t p, s_samples_t *smp, FILE *f)
{
    const rb_phase_agg_t *a = &r->phases[p];
    const rb_phase_spec_t *sp = &r->specs[p];
    int meta = rb_phase_is_meta(sp);
    char b1[64];
    fprintf(f, "<section id=\"phase-%u\">\n<h2>", p + 1);
    s_textf(f, "Phase %u/%u: %s", p + 1, r->nphases, a->name);
    fputs("</h2>\n<p>", f);
    if (meta)
        s_textf(f, "metadata %s, %s, %" PRIu64 " files a worker, %u workers on %u nodes",
                rb_meta_op_name(sp->jobs[0].meta_op),
                sp->jobs[0].meta_random ? "random" : "sequential", sp->jobs[0].meta_files,
                a->nworkers, a->nnodes);
    else
        s_textf(f, "%s bs=%s %s, %s qd%u, %u job%s, %u workers on %u nodes",
                rb_rw_name(a->rw) ? rb_rw_name(a->rw) : "?",
                rb_fmt_size_exact(b1, sizeof b1, a->bs), a->direct ? "direct" : "buffered",
                a->njobs ? a->jobs[0].ioengine : "sync", a->njobs ? a->jobs[0].iodepth : 1,
                sp->njobs, sp->njobs == 1 ? "" : "s", a->nworkers, a->nnodes);
    fputs("</p>\n", f);
    s_phase_figures(a, meta, f);

    s_series_t s;
    if (s_series_build(smp, r, p, meta, &s) < 0)
        return -ENOMEM;
    fprintf(f, "<h3>%s over time</h3>\n", meta ? "Operations per second" : "Bandwidth");
    if (!s.nk) {
        fprintf(f, "<p class=\"none\">no samples: %s</p>\n",
                smp->found ? "samples.csv holds no interval of this phase"
                           : "samples.csv was not found in the run folder");
    } else {
        s_view_t vw;
        s_view_make(&s, a, &vw);
        if (s_chart_series(f, &s, &vw, a->name, meta) < 0) {
            s_series_fini(&s);
            return -ENOMEM;
        }
        s_series_note(f, &s, &vw, meta);
        if (vw.spread) {
            fprintf(f, "<h3>Per node over time: the slowest, median and fastest of %u nodes</h3>\n",
                    s.nn);
            if (s_chart_spread(f, &s, &vw, a->name, meta) < 0) {
                s_series_fini(&s);
                return -ENOMEM;
            }
            s_spread_note(f, &s, &vw);
        }
        fprintf(f, "<h3>Per node: spread of its sample intervals</h3>\n");
        if (s_chart_nodes(f, &s, a->name, meta) < 0) {
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
    fputs("<h3>Latency percentiles</h3>\n", f);
    s_chart_latency(f, &a->hist, a->name);
    if (a->hist.count)
        fprintf(f,
                "<p class=\"note\">From the latency histogram merged over all %" PRIu64
                " operations of all nodes; each percentile within %.2f%%. Exact min %.1f "
                "&#181;s, max %.1f &#181;s.</p>\n",
                a->hist.count, RB_HIST_REL_ERROR * 100, (double)a->hist.min / 1e3,
                (double)a->hist.max / 1e3);
    s_rollups(a, meta, f);
    s_devices(a, f);
    if (s_phase_notes(a, meta, f) < 0)
        return -ENOMEM;
    fputs("</section>\n", f);
    return 0;
}

static void s_accept(const rb_accept_result_t *acc, FILE *f)
{
    static const char *const verdicts[] = {
        [RB_ACCEPT_PASS] = "PASS", [RB_ACCEPT_FAIL] = "FAIL", [RB_ACCEPT_NA] = "n/a"};
    static const char *const cls[] = {
        [RB_ACCEPT_PASS] = "pass", [RB_ACCEPT_FAIL] = "fail", [RB_ACCEPT_NA] = "note"};
    char buf[80], line[RB_REASON_MAX];
    int sets = 0;
    for (uint32_t i = 0; i < acc->nrows; i++)
        sets |= acc->rows[i].set[0] != 0;
    fputs("<section id=\"acceptance\">\n<h2>Acceptance</h2>\n<table>\n<tr>", f);
    if (sets)
        fputs("<th>set</th>", f);
    fputs("<th>phase</th><th>check</th><th class=\"n\">limit</th><th class=\"n\">measured</th>"
          "<th>result</th><th>note</th></tr>\n",
          f);
    for (uint32_t i = 0; i < acc->nrows; i++) {
        const rb_accept_row_t *row = &acc->rows[i];
        int v = (unsigned)row->verdict <= RB_ACCEPT_NA ? (int)row->verdict : -1;
        fputs("<tr>", f);
        if (sets) {
            fputs("<td>", f);
            s_esc(f, row->set[0] ? row->set : "-");
            fputs("</td>", f);
        }
        fputs("<td>", f);
        s_esc(f, row->phase);
        fputs("</td><td>", f);
        s_esc(f, rb_accept_check_name(row->check));
        fprintf(f, "</td><td class=\"n\">%s ",
                rb_accept_check_is_min(row->check) ? "&#8805;" : "&#8804;");
        rb_accept_value_text(buf, sizeof buf, row->check, row->limit);
        s_esc(f, buf);
        fputs("</td><td class=\"n\">", f);
        rb_accept_value_text(buf, sizeof buf, row->check, row->measured);
        s_esc(f, buf);
        fprintf(f, "</td><td class=\"%s\">%s</td><td>", v < 0 ? "fail" : cls[v],
                v < 0 ? "?" : verdicts[v]);
        s_esc(f, row->note ? row->note : "");
        fputs("</td></tr>\n", f);
    }
    fprintf(f, "</table>\n<p class=\"%s\">", acc->nfailed ? "fail" : "pass");
    s_esc(f, rb_accept_verdict(acc, line, sizeof line));
    fputs("</p>\n</section>\n", f);
}

/* Projection: what the measured figures say about more nodes and racks.
 * PLACEHOLDER: the projection feature fills this section in; until it does,
 * it prints nothing. */
/* The projection table: every line labelled measured or projected, with
 * its source beside it. */
static void s_html_projection(const rb_run_result_t *r, FILE *f)
{
    const rb_project_result_t *p = r->projection;
    if (!p || !p->unit)
        return;
    char v[112];
    fputs("<section id=\"projection\">\n<h2>Projection</h2>\n<p class=\"note\">One node is one "
          "unit. <b>measured</b>: this run, or what df shows on a real unit; "
          "<b>projected</b>: arithmetic on those. See docs/projection.md.</p>\n"
          "<table>\n<tr><th>phase</th><th>line</th><th>value</th><th>kind</th>"
          "<th>source</th></tr>\n",
          f);
    for (uint32_t i = 0; i < p->nlines; i++) {
        const rb_project_line_t *l = &p->lines[i];
        fputs("<tr><td>", f);
        s_esc(f, l->phase ? l->phase : "-");
        fputs("</td><td>", f);
        s_esc(f, l->label);
        fputs("</td><td class=\"num\">", f);
        s_esc(f, rb_project_line_value(v, sizeof v, l));
        fprintf(f, "</td><td class=\"%s\">", rb_project_kind_name(l->kind));
        s_esc(f, rb_project_kind_name(l->kind));
        fputs("</td><td>", f);
        s_esc(f, l->source);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    for (uint32_t i = 0; i < p->nnotes; i++) {
        fputs("<p class=\"note\">note: ", f);
        s_esc(f, p->notes[i]);
        fputs("</p>\n", f);
    }
    fputs("</section>\n", f);
}

/* The plan as the run read it (run_dir/plan.ini), escaped. */
static int s_plan(const char *run_dir, FILE *f)
{
    char path[RB_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/plan.ini", run_dir);
    fputs("<section id=\"plan\">\n<h2>Plan</h2>\n", f);
    FILE *in = fopen(path, "rb");
    if (!in) {
        fputs("<p class=\"none\">plan.ini was not found in the run folder</p>\n</section>\n", f);
        return 0;
    }
    char *buf = malloc(S_PLAN_MAX);
    if (!buf) {
        fclose(in);
        return -ENOMEM;
    }
    size_t n = fread(buf, 1, S_PLAN_MAX, in);
    int more = fgetc(in) != EOF;
    fclose(in);
    fputs("<pre>", f);
    s_escn(f, buf, n);
    fputs("</pre>\n", f);
    if (more)
        fprintf(f, "<p class=\"note\">(only the first %d bytes are shown)</p>\n", S_PLAN_MAX);
    fputs("</section>\n", f);
    free(buf);
    return 0;
}

int rb_report_html(const rb_run_result_t *r, const char *run_dir, FILE *f)
{
    s_samples_t smp;
    int rc = s_samples_read(&smp, r, run_dir);
    if (rc < 0)
        goto out;
    s_head(r, f);
    if (smp.bad)
        fprintf(f,
                "<p class=\"note\">samples.csv: %zu line%s could not be read (a run cut short "
                "leaves its last line incomplete) and %s left out.</p>\n",
                smp.bad, smp.bad == 1 ? "" : "s", smp.bad == 1 ? "is" : "are");
    for (uint32_t p = 0; p < r->nphases && rc == 0; p++)
        rc = s_phase(r, p, &smp, f);
    if (rc < 0)
        goto out;
    if (r->accept)
        s_accept(r->accept, f);
    s_html_projection(r, f);
    if ((rc = s_plan(run_dir, f)) < 0)
        goto out;
    fprintf(f,
            "<p class=\"note\">rackbench %s. Figures are defined in docs/metrics.md; bandwidths "
            "in tables are in binary units with decimal ones in parentheses, charts in decimal "
            "units.</p>\n</body>\n</html>\n",
            RB_VERSION);
out:
    s_samples_fini(&smp);
    if (rc < 0)
        return rc;
    fflush(f);
    return ferror(f) ? -EIO : 0;
}
