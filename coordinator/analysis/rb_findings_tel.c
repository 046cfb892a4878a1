/* Findings of a phase from host telemetry (rb_findings.h): its series,
 * kept in bounded memory, and what they show: imbalanced member disks, CPU-,
 * NIC- and device-bound nodes, devices that moved less than the engines
 * reported, and a network phase's CPU and NICs against its streams. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_engine_info.h"
#include "rb_findings.h"
#include "rb_netfig.h"
#include "rb_stats.h"
#include "rb_units.h"

/* A series keeps at most 2 × S_TEL_POINTS points, whatever the phase's
 * length: when one would hold more, every series merges its points two by
 * two (the means of twice as many consecutive intervals). Memory at the
 * phase's end is then bounded by the fleet, not by the fleet times the
 * intervals (at 16,000 nodes and an hour of 1 s intervals, 17 GB of
 * telemetry.csv rows against about 270 MB). A phase of up to 2 ×
 * S_TEL_POINTS intervals keeps every interval. */
#define S_TEL_POINTS 32
#define S_TEL_FIRST  8 /* room a series is made with when its phase's length is not known */

/* A point of a series: one interval's values, or the sums (then means) of
 * several once coarsened. Floats: a finding reads medians and ratios to a
 * percent, and a point costs 24 bytes, not 44 in six arrays (at 16,000
 * nodes of 5 series, 113 MiB against about 60). */
typedef struct s_pt {
    uint32_t k;             /* interval index >> the reader's shift */
    uint32_t cnt;           /* intervals in it */
    float util, rd, wr, aw; /* device: util %, bytes/s, await; NIC: -, rx, tx, -; host: cpu */
} s_pt_t;

/* One series of telemetry.csv over a phase: a device, a NIC, or a host. */
typedef struct s_ser {
    uint32_t node;                  /* index into a->nodes */
    char kind;                      /* 'd' device, 'n' NIC, 'h' host */
    char name[RB_TELEM_NAME_MAX];   /* device or NIC */
    char parent[RB_TELEM_NAME_MAX]; /* a device's parent */
    int member;
    uint32_t n, cap;
    uint32_t rows;    /* intervals read (the points may be means of several) */
    s_pt_t *pt;       /* its points (sums until s_tel_means), stride apart */
    uint32_t stride;  /* 1 in an allocation of its own, else the block's series */
    int own;          /* pt is its own allocation, not a place in the block */
    double util_max;  /* the most of any one interval */
    double speed_bps; /* NIC link speed in bytes/s (0 unknown) */
    uint32_t ncpu;
    uint64_t rd_bytes, wr_bytes; /* device: counted over the phase */
    uint32_t next;               /* index + 1 of the node's next series, 0 for none */
} s_ser_t;

struct rb_findings_tel_series {
    s_ser_t *s;
    uint32_t n, cap;
    unsigned shift;  /* a point holds the intervals k with the same k >> shift */
    uint32_t *head;  /* per node: index + 1 of its first series (in order), 0 for none */
    uint32_t *tail;  /* per node: index + 1 of its last series */
    uint32_t nnodes; /* nodes of the phase */
    uint32_t first;  /* points a series is made with room for */
    int means;       /* the points are means (s_tel_means done): no more rows */
    s_pt_t *block;   /* room for the first nblock series' points (rb_findings_tel_series_expect) */
    uint32_t nblock;
};

typedef struct rb_findings_tel_series s_tel_t;

/* Point q of series s. */
static inline s_pt_t *s_at(const s_ser_t *s, uint32_t q)
{
    return &s->pt[(size_t)q * s->stride];
}

static void s_tel_free(s_tel_t *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (t->s[i].own)
            free(t->s[i].pt);
    free(t->block);
    free(t->s);
    free(t->head);
    free(t->tail);
}

/* The series of a node's device, NIC or host; made when new. Looks only at
 * that node's series. */
static s_ser_t *s_tel_get(s_tel_t *t, uint32_t node, char kind, const char *name)
{
    for (uint32_t i = t->head[node]; i; i = t->s[i - 1].next)
        if (t->s[i - 1].kind == kind && !strcmp(t->s[i - 1].name, name))
            return &t->s[i - 1];
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? 2 * t->cap : 16;
        s_ser_t *s = realloc(t->s, cap * sizeof *s);
        if (!s)
            return NULL;
        t->s = s;
        t->cap = cap;
    }
    s_ser_t *s = &t->s[t->n++];
    memset(s, 0, sizeof *s);
    s->stride = 1;
    if (t->n <= t->nblock) {
        s->pt = t->block + (t->n - 1);
        s->stride = t->nblock;
        s->cap = t->first;
    }
    s->node = node;
    s->kind = kind;
    snprintf(s->name, sizeof s->name, "%s", name);
    if (t->tail[node])
        t->s[t->tail[node] - 1].next = t->n;
    else
        t->head[node] = t->n;
    t->tail[node] = t->n;
    return s;
}

static void s_pt_add(s_pt_t *p, uint32_t cnt, double util, double rd, double wr, double aw)
{
    p->cnt += cnt;
    p->util = (float)(p->util + util);
    p->rd = (float)(p->rd + rd);
    p->wr = (float)(p->wr + wr);
    p->aw = (float)(p->aw + aw);
}

/* Merges every series' points two by two: shift + 1. */
static void s_tel_coarsen(s_tel_t *t)
{
    for (uint32_t i = 0; i < t->n; i++) {
        s_ser_t *s = &t->s[i];
        uint32_t m = 0;
        for (uint32_t q = 0; q < s->n; q++) {
            s_pt_t p = *s_at(s, q);
            p.k >>= 1;
            if (m && s_at(s, m - 1)->k == p.k)
                s_pt_add(s_at(s, m - 1), p.cnt, p.util, p.rd, p.wr, p.aw);
            else
                *s_at(s, m++) = p;
        }
        s->n = m;
    }
    t->shift++;
}

/* Sums to means, once every row is in. */
static void s_tel_means(s_tel_t *t)
{
    for (uint32_t i = 0; i < t->n; i++) {
        s_ser_t *s = &t->s[i];
        for (uint32_t q = 0; q < s->n; q++) {
            s_pt_t *p = s_at(s, q);
            p->util /= (float)p->cnt;
            p->rd /= (float)p->cnt;
            p->wr /= (float)p->cnt;
            p->aw /= (float)p->cnt;
        }
    }
}

/* Adds interval k's values to series s: to its last point when k falls in
 * it, else as a new point; past 2 × S_TEL_POINTS points every series is
 * coarsened. */
static int s_ser_push(s_tel_t *t, s_ser_t *s, long k0, double util, double rd, double wr, double aw)
{
    s->rows++;
    s->util_max = util > s->util_max ? util : s->util_max;
    uint32_t k0u = k0 <= 0 ? 0 : k0 >= UINT32_MAX ? UINT32_MAX : (uint32_t)k0;
    uint32_t k = k0u >> t->shift;
    if (s->n == 2 * S_TEL_POINTS && s_at(s, s->n - 1)->k != k) {
        s_tel_coarsen(t);
        k = k0u >> t->shift;
    }
    if (s->n && s_at(s, s->n - 1)->k == k) {
        s_pt_add(s_at(s, s->n - 1), 1, util, rd, wr, aw);
        return 0;
    }
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : t->first;
        cap = cap > 2 * S_TEL_POINTS ? 2 * S_TEL_POINTS : cap;
        s_pt_t *pt = realloc(s->own ? s->pt : NULL, cap * sizeof *pt);
        if (!pt)
            return -ENOMEM;
        for (uint32_t q = 0; !s->own && q < s->n; q++)
            pt[q] = *s_at(s, q); /* out of the block */
        s->pt = pt;
        s->stride = 1;
        s->cap = cap;
        s->own = 1;
    }
    *s_at(s, s->n++) = (s_pt_t){k, 1, (float)util, (float)rd, (float)wr, (float)aw};
    return 0;
}

enum { S_UTIL, S_RD, S_WR, S_AW };

/* Point q's value c. */
static double s_val(const s_ser_t *s, uint32_t q, int c)
{
    const s_pt_t *p = s_at(s, q);
    return c == S_UTIL ? p->util : c == S_RD ? p->rd : c == S_WR ? p->wr : p->aw;
}

/* Median of a series' values c, in scratch (room for s->n). */
static double s_med(const s_ser_t *s, int c, double *scratch)
{
    for (uint32_t q = 0; q < s->n; q++)
        scratch[q] = s_val(s, q, c);
    return rb_stats_median(scratch, s->n);
}

rb_findings_tel_series_t *rb_findings_tel_series_new(uint32_t nnodes, uint32_t points)
{
    s_tel_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->nnodes = nnodes;
    /* A phase's length known, its series are made at their size: grown by
     * doubling, those of 16,000 nodes of 5 series took 80 MiB for 20 points. */
    t->first = !points ? S_TEL_FIRST : points > 2 * S_TEL_POINTS ? 2 * S_TEL_POINTS : points;
    t->head = calloc(nnodes ? nnodes : 1, sizeof *t->head);
    t->tail = calloc(nnodes ? nnodes : 1, sizeof *t->tail);
    if (!t->head || !t->tail) {
        s_tel_free(t);
        free(t);
        return NULL;
    }
    return t;
}

void rb_findings_tel_series_expect(rb_findings_tel_series_t *t, uint32_t per_node)
{
    if (t->cap || !per_node || per_node > 1 + RB_TELEM_DEVS + RB_TELEM_NICS)
        return;
    /* Made at the first sample, the room of the whole fleet's series and
     * their points in two allocations: one by one, doubling, the series of
     * 16,000 nodes cost the coordinator half a second of the phase's first
     * interval (80,000 mallocs, the array copied 13 times), and every sample
     * of that interval waited behind it. The points lie interval by
     * interval, a series' points the fleet's series apart: an interval's
     * points fill 1.9 MB of the block at 16,000 nodes of 5 series, not
     * the first interval all 38 MB (its samples waited behind the page
     * faults, 40 % of the coordinator's work in that second). */
    size_t n = (size_t)t->nnodes * per_node;
    s_ser_t *s = malloc(n * sizeof *s);
    if (!s)
        return; /* grown as they come */
    t->s = s;
    t->cap = (uint32_t)n;
    t->block = malloc(n * t->first * sizeof *t->block);
    t->nblock = t->block ? (uint32_t)n : 0;
}

void rb_findings_tel_series_destroy(rb_findings_tel_series_t **p)
{
    if (!*p)
        return;
    s_tel_free(*p);
    free(*p);
    *p = NULL;
}

int rb_findings_tel_series_add(rb_findings_tel_series_t *t, uint32_t node, double t_s,
                               double interval_s, const rb_findings_tel_row_t *row)
{
    if (node >= t->nnodes || interval_s <= 0 || t->means)
        return 0;
    long k = lround(t_s / interval_s);
    char kind = row->kind;
    s_ser_t *s = s_tel_get(t, node, kind, kind == 'h' ? "host" : row->name);
    if (!s)
        return -ENOMEM;
    if (kind == 'd') {
        snprintf(s->parent, sizeof s->parent, "%s", row->parent);
        s->member = row->member;
        s->rd_bytes += row->rd_bytes;
        s->wr_bytes += row->wr_bytes;
        return s_ser_push(t, s, k, row->util, row->rd, row->wr, row->await_ms);
    }
    if (kind == 'n') {
        s->speed_bps = row->speed_bps;
        return s_ser_push(t, s, k, 0, row->rd, row->wr, 0);
    }
    if (kind == 'h') {
        s->ncpu = row->ncpu;
        return s_ser_push(t, s, k, row->util, 0, 0, 0);
    }
    return 0;
}

/* "N intervals", or "N means of M intervals" once the series were coarsened. */
static const char *s_points_said(const s_tel_t *t, uint32_t n, char *buf, size_t len)
{
    if (t->shift)
        snprintf(buf, len, "%u means of %u intervals", n, 1u << t->shift);
    else
        snprintf(buf, len, "%u intervals", n);
    return buf;
}

/* Imbalanced members of one parent on one node: util aligned by interval. */
static int s_imbalance(rb_phase_agg_t *a, s_tel_t *t, uint32_t first, double interval_s)
{
    const s_ser_t *p = &t->s[first];
    uint32_t idx[RB_STATS_MAX_MEMBERS], m = 0;
    for (uint32_t i = first; m < RB_STATS_MAX_MEMBERS; i = t->s[i].next - 1) {
        if (t->s[i].kind == 'd' && t->s[i].member && !strcmp(t->s[i].parent, p->parent))
            idx[m++] = i;
        if (!t->s[i].next)
            break;
    }
    if (m < 2)
        return 0;
    /* the intervals every member reported, in the first member's order */
    uint32_t nint = t->s[idx[0]].n;
    double *util = calloc((size_t)nint * m + 1, sizeof *util);
    if (!util)
        return -ENOMEM;
    uint32_t rows = 0;
    for (uint32_t i = 0; i < nint; i++) {
        uint32_t k = s_at(&t->s[idx[0]], i)->k;
        int all = 1;
        for (uint32_t j = 0; j < m && all; j++) {
            const s_ser_t *s = &t->s[idx[j]];
            uint32_t q = 0;
            while (q < s->n && s_at(s, q)->k != k)
                q++;
            if (q == s->n)
                all = 0;
            else
                util[(size_t)rows * m + j] = s_at(s, q)->util;
        }
        rows += all;
    }
    uint32_t which = 0;
    int hot = rows < RB_FIND_MIN_INTERVALS ? 0
                                           : rb_stats_imbalanced(util, m, rows, RB_IMBALANCE_RATIO,
                                                                 RB_IMBALANCE_MOST, &which);
    int rc = 0;
    if (hot > 0) {
        const s_ser_t *w = &t->s[idx[which]];
        double *mine = calloc(rows + 1, sizeof *mine),
               *sib = calloc((size_t)rows * m + 1, sizeof *sib);
        uint32_t ns = 0;
        long first_k = -1;
        char said[64];
        for (uint32_t i = 0; mine && sib && i < rows; i++) {
            mine[i] = util[(size_t)i * m + which];
            for (uint32_t j = 0; j < m; j++)
                if (j != which)
                    sib[ns++] = util[(size_t)i * m + j];
        }
        if (mine && sib) {
            double mu = rb_stats_median(mine, rows), su = rb_stats_median(sib, ns);
            for (uint32_t i = 0; i < w->n && first_k < 0; i++)
                first_k = s_at(w, i)->util >= RB_IMBALANCE_RATIO * su && su > 0
                              ? (long)s_at(w, i)->k << t->shift
                              : -1;
            rb_finding_t f = {.kind = RB_FIND_IMBALANCE,
                              .value = mu,
                              .reference = su,
                              .first_seen_s = first_k >= 0 ? (double)first_k * interval_s : -1};
            snprintf(f.node, sizeof f.node, "%s", a->nodes[w->node].name);
            snprintf(f.device, sizeof f.device, "%s", w->name);
            snprintf(f.evidence, sizeof f.evidence,
                     "member of %s busy %.0f%% of the time against its %u siblings' %.0f%% (median "
                     "of %s): a failing or slower drive?",
                     w->parent, mu, m - 1, su, s_points_said(t, rows, said, sizeof said));
            rc = rb_findings_add(a, &f);
        } else {
            rc = -ENOMEM;
        }
        free(mine);
        free(sib);
    }
    free(util);
    return rc < 0 ? rc : 0;
}

typedef struct s_host_node {
    const char *host;
    uint32_t node;
} s_host_node_t;

static int s_by_host(const void *x, const void *y)
{
    const s_host_node_t *a = x, *b = y;
    int c = strcmp(a->host, b->host);
    return c ? c : (a->node > b->node) - (a->node < b->node);
}

/* A root device of a host, and the most bytes any of its nodes saw it move. */
typedef struct s_host_dev {
    const char *name;
    uint64_t most;
} s_host_dev_t;

/* The honesty check, host by host: the bytes the host's root devices counted
 * (each device once: every node on the host reports it, over its own window
 * from GO to its own end, so the node that ended last saw all of it: the
 * most any node counted) against the bytes its nodes' engines reported.
 * Nodes are grouped by host through a sort, so a fleet of one host a node
 * costs O(nodes log nodes), not O(nodes²); findings come in the order of
 * each host's first node. */
static int s_honesty(rb_phase_agg_t *a, const s_tel_t *t, const char *const *hosts, int reads)
{
    uint32_t nn = a->nnodes;
    s_host_node_t *hn = malloc((nn ? nn : 1) * sizeof *hn);
    uint32_t *first = malloc((nn ? nn : 1) * sizeof *first); /* per node: its host's first node */
    uint64_t *eng = calloc(nn ? nn : 1, sizeof *eng), *dev = calloc(nn ? nn : 1, sizeof *dev);
    s_host_dev_t *hd = NULL;
    uint32_t nhd = 0, caphd = 0;
    int rc = hn && first && eng && dev ? 0 : -ENOMEM;
    for (uint32_t n = 0; rc == 0 && n < nn; n++)
        hn[n] = (s_host_node_t){hosts[n], n};
    if (rc == 0)
        qsort(hn, nn, sizeof *hn, s_by_host);
    for (uint32_t g = 0, e; rc == 0 && g < nn; g = e) {
        uint32_t f = hn[g].node; /* the lowest index: the sort is by host, then node */
        nhd = 0;
        for (e = g; e < nn && !strcmp(hn[e].host, hn[g].host); e++) {
            uint32_t n = hn[e].node;
            first[n] = f;
            eng[f] += a->nodes[n].bytes;
            for (uint32_t i = t->head ? t->head[n] : 0; i; i = t->s[i - 1].next) {
                const s_ser_t *s = &t->s[i - 1];
                if (s->kind != 'd' || s->member)
                    continue;
                uint64_t b = reads ? s->rd_bytes : s->wr_bytes;
                uint32_t k = 0;
                while (k < nhd && strcmp(hd[k].name, s->name) != 0)
                    k++;
                if (k == nhd) {
                    if (nhd == caphd) {
                        uint32_t cap = caphd ? 2 * caphd : 8;
                        s_host_dev_t *p = realloc(hd, cap * sizeof *p);
                        if (!p) {
                            rc = -ENOMEM;
                            break;
                        }
                        hd = p;
                        caphd = cap;
                    }
                    hd[nhd++] = (s_host_dev_t){s->name, 0};
                }
                hd[k].most = b > hd[k].most ? b : hd[k].most;
            }
        }
        for (uint32_t k = 0; k < nhd; k++)
            dev[f] += hd[k].most;
    }
    for (uint32_t n = 0; rc == 0 && n < nn; n++) {
        if (first[n] != n || eng[n] < RB_HONESTY_MIN || !dev[n])
            continue;
        /* Only less is a finding: more is what any other IO on the device
         * (the system, another tenant) adds, and says nothing of the path. */
        double ratio = (double)dev[n] / (double)eng[n];
        if (ratio >= 1 - RB_HONESTY_MARGIN)
            continue;
        rb_finding_t f = {.kind = RB_FIND_HONESTY,
                          .value = (double)dev[n],
                          .reference = (double)eng[n],
                          .first_seen_s = -1};
        snprintf(f.node, sizeof f.node, "%s", hosts[n]);
        char b1[64], b2[64];
        snprintf(f.evidence, sizeof f.evidence,
                 "its devices %s %s, the engines reported %s (%.0f%%): the device moved less than "
                 "reported: cache or compression in the path",
                 reads ? "read" : "wrote", rb_units_fmt_size(b1, sizeof b1, (double)dev[n]),
                 rb_units_fmt_size(b2, sizeof b2, (double)eng[n]), ratio * 100);
        rc = rb_findings_add(a, &f);
    }
    free(hn);
    free(first);
    free(eng);
    free(dev);
    free(hd);
    return rc;
}

/* Per node and device figures (a->devs, room for every device series
 * made), and the device-bound findings. 0 or -ENOMEM. */
static int s_tel_devices(rb_phase_agg_t *a, const s_tel_t *t, double *scratch)
{
    char said[64];
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < t->n; i++) {
        const s_ser_t *s = &t->s[i];
        if (s->kind != 'd' || !s->n)
            continue;
        rb_agg_dev_t *d = &a->devs[a->ndevs++];
        snprintf(d->node, sizeof d->node, "%s", a->nodes[s->node].name);
        snprintf(d->device, sizeof d->device, "%s", s->name);
        snprintf(d->parent, sizeof d->parent, "%s", s->parent);
        d->member = s->member;
        d->intervals = s->rows;
        d->util_median = s_med(s, S_UTIL, scratch);
        d->util_max = s->util_max;
        d->rd_bps_median = s_med(s, S_RD, scratch);
        d->wr_bps_median = s_med(s, S_WR, scratch);
        d->await_ms_median = s_med(s, S_AW, scratch);
        d->rd_bytes = s->rd_bytes;
        d->wr_bytes = s->wr_bytes;
        if (d->util_median >= RB_BOUND_DEVICE && d->intervals >= RB_FIND_MIN_INTERVALS) {
            rb_finding_t f = {.kind = RB_FIND_DEVICE_BOUND,
                              .value = d->util_median,
                              .reference = RB_BOUND_DEVICE,
                              .first_seen_s = -1};
            snprintf(f.node, sizeof f.node, "%s", d->node);
            snprintf(f.device, sizeof f.device, "%s", d->device);
            snprintf(f.evidence, sizeof f.evidence,
                     "busy %.0f%% of the time (median of %s): the device is the limit",
                     d->util_median, s_points_said(t, s->n, said, sizeof said));
            rc = rb_findings_add(a, &f);
        }
    }
    return rc;
}

/* CPU- and NIC-bound findings. 0 or -ENOMEM. */
static int s_tel_bounds(rb_phase_agg_t *a, const s_tel_t *t, double *scratch)
{
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < t->n; i++) {
        const s_ser_t *s = &t->s[i];
        const rb_agg_node_t *an = &a->nodes[s->node];
        rb_finding_t f = {.first_seen_s = -1};
        snprintf(f.node, sizeof f.node, "%s", an->name);
        if (s->kind == 'h' && s->rows >= RB_FIND_MIN_INTERVALS && s->ncpu && an->workers) {
            double busy = s_med(s, S_UTIL, scratch) / 100.0 * s->ncpu;
            double can = an->workers < s->ncpu ? an->workers : s->ncpu;
            if (busy < RB_BOUND_SHARE * can)
                continue;
            f.kind = RB_FIND_CPU_BOUND;
            f.value = busy;
            f.reference = can;
            snprintf(f.evidence, sizeof f.evidence,
                     "user+system %.1f of %u cores busy (median) with %u workers: the CPU is the "
                     "limit",
                     busy, s->ncpu, an->workers);
            rc = rb_findings_add(a, &f);
        } else if (s->kind == 'n' && s->rows >= RB_FIND_MIN_INTERVALS && s->speed_bps > 0) {
            /* full duplex: each way has the link's speed; the busier way's median */
            double share = 0, way[2];
            for (int w = 0; w < 2; w++) {
                for (uint32_t q = 0; q < s->n; q++)
                    scratch[q] = s_val(s, q, w ? S_WR : S_RD) / s->speed_bps;
                way[w] = rb_stats_median(scratch, s->n);
                share = way[w] > share ? way[w] : share;
            }
            /* well past its speed, the speed is not the NIC's (a veth says 10 Gb/s) */
            if (share < RB_BOUND_SHARE || share > RB_NIC_PAST_SPEED)
                continue;
            f.kind = RB_FIND_NIC_BOUND;
            f.value = share * 100;
            f.reference = RB_BOUND_SHARE * 100;
            snprintf(f.device, sizeof f.device, "%s", s->name);
            snprintf(f.evidence, sizeof f.evidence,
                     "%s at %.0f%% of its %.0f Mb/s link (median): the network is the limit",
                     way[0] >= way[1] ? "rx" : "tx", share * 100, s->speed_bps * 8 / 1e6);
            rc = rb_findings_add(a, &f);
        }
    }
    return rc;
}

int rb_findings_tel_node(const rb_findings_tel_series_t *t, uint32_t node, double interval_s,
                         rb_findings_tel_node_t *out)
{
    *out = (rb_findings_tel_node_t){.cpu_cores = -1};
    double *v = NULL;
    for (uint32_t j = node < t->nnodes ? t->head[node] : 0; j; j = t->s[j - 1].next) {
        const s_ser_t *s = &t->s[j - 1];
        if (s->kind == 'h' && s->n && s->ncpu && (v = calloc(s->n, sizeof *v))) {
            out->cpu_cores = s_med(s, S_UTIL, v) / 100.0 * s->ncpu;
            free(v);
        }
        for (uint32_t q = 0; s->kind == 'n' && q < s->n; q++) {
            const s_pt_t *p = s_at(s, q);
            double secs = (t->means ? p->cnt : 1) * interval_s;
            out->nic_rx += p->rd * secs;
            out->nic_tx += p->wr * secs;
            out->nics++;
        }
    }
    return out->cpu_cores >= 0 || out->nics;
}

int rb_findings_from_tel_series(rb_phase_agg_t *a, const rb_phase_spec_t *spec,
                                rb_findings_tel_series_t *t, double interval_s,
                                const char *const *hosts)
{
    if (interval_s <= 0)
        return 0;
    if (!t->means)
        s_tel_means(t);
    t->means = 1;
    int rc = 0;
    uint32_t ndev = 0, most = 1;
    for (uint32_t i = 0; i < t->n; i++) {
        ndev += t->s[i].kind == 'd';
        most = t->s[i].n > most ? t->s[i].n : most;
    }
    double *scratch = calloc(most, sizeof *scratch);
    if (rc == 0 && (!scratch || (ndev && !(a->devs = calloc(ndev, sizeof *a->devs)))))
        rc = -ENOMEM;
    /* per node and device, and device-bound ones */
    if (rc == 0)
        rc = s_tel_devices(a, t, scratch);
    /* imbalanced members: each parent of each node once */
    for (uint32_t i = 0; rc == 0 && i < t->n; i++) {
        const s_ser_t *s = &t->s[i];
        int seen = 0;
        if (s->kind != 'd' || !s->member)
            continue;
        for (uint32_t j = t->head[s->node]; j - 1 < i && !seen; j = t->s[j - 1].next)
            seen = t->s[j - 1].kind == 'd' && t->s[j - 1].member &&
                   !strcmp(t->s[j - 1].parent, s->parent);
        if (!seen)
            rc = s_imbalance(a, t, i, interval_s);
    }
    /* CPU and NIC bound */
    if (rc == 0)
        rc = s_tel_bounds(a, t, scratch);
    /* a network phase: each node's CPU and NICs against its streams */
    if (rc == 0 && a->net)
        rc = rb_net_tel_findings(a, t, interval_s);
    /* honesty: direct IO that only reads or only writes, host by host */
    int direct = spec->njobs > 0, reads = 0, writes = 0;
    for (uint32_t j = 0; j < spec->njobs; j++) {
        const rb_job_spec_t *js = &spec->jobs[j];
        direct &= js->direct && js->rw != RB_RW_META && rb_engine_info_moves_data(js->ioengine);
        reads |= rb_rw_reads(js->rw);
        writes |= rb_rw_writes(js->rw);
    }
    if (rc == 0 && direct && reads != writes && hosts)
        rc = s_honesty(a, t, hosts, reads);
    free(scratch);
    return rc;
}
