/* Per-node bandwidth series of a phase, bounded in memory: bytes per node
 * and point (each point 2^shift sample intervals, at most RB_SERIES_POINTS
 * of them), the length of each interval (one a phase, not one a node: kept
 * whole). The run feeds it its SAMPLEs; a reader of samples.csv its rows;
 * both get the same series from the same samples. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rb_series.h"

struct rb_series {
    uint32_t nnodes;
    double interval_s; /* the plan's sample interval */
    double **bytes;    /* per node: bytes per point (cap points), NULL until its first sample */
    double *secs;      /* per interval: its length (ncap entries) */
    uint32_t cap;      /* points each node's array holds */
    uint32_t ncap;     /* intervals secs holds */
    uint32_t n;        /* intervals seen: the last one's index + 1 */
    unsigned shift;    /* a point holds the intervals k with the same k >> shift */
    int rc;            /* the first error */
};

int rb_series_grow(double **v, uint32_t cap, uint32_t ncap)
{
    double *n = realloc(*v, ncap * sizeof *n);
    if (!n)
        return -ENOMEM;
    memset(n + cap, 0, (ncap - cap) * sizeof *n);
    *v = n;
    return 0;
}

uint32_t rb_series_cap_for(uint32_t cap, long k)
{
    uint32_t nc = cap ? cap : 64;
    while (nc <= (uint32_t)k)
        nc *= 2;
    return nc;
}

/* Merges the points of every node's series two by two (cap points each). */
static void s_halve(double **bytes, uint32_t nnodes, uint32_t cap)
{
    for (uint32_t m = 0; m < nnodes; m++) {
        if (!bytes[m])
            continue;
        for (uint32_t j = 0; j < cap / 2; j++)
            bytes[m][j] = bytes[m][2 * j] + bytes[m][2 * j + 1];
        memset(bytes[m] + cap / 2, 0, (cap - cap / 2) * sizeof *bytes[m]);
    }
}

rb_series_t *rb_series_new(uint32_t nnodes, double interval_s)
{
    rb_series_t *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->nnodes = nnodes;
    s->interval_s = interval_s;
    s->bytes = calloc(nnodes ? nnodes : 1, sizeof *s->bytes);
    if (!s->bytes) {
        free(s);
        return NULL;
    }
    return s;
}

void rb_series_free(double **series, uint32_t nnodes)
{
    for (uint32_t i = 0; series && i < nnodes; i++)
        free(series[i]);
    free(series);
}

void rb_series_destroy(rb_series_t **p)
{
    rb_series_t *s = *p;
    if (!s)
        return;
    rb_series_free(s->bytes, s->nnodes);
    free(s->secs);
    free(s);
    *p = NULL;
}

long rb_series_interval(double t_s, double iv_s, double interval_s)
{
    double start = t_s - iv_s;
    long k = interval_s > 0 ? lround((start > 0 ? start : 0) / interval_s) : -1;
    return k < (1L << 24) ? k : -1;
}

int rb_series_add(rb_series_t *s, uint32_t node, double t_s, double iv_s, double bytes)
{
    long k = rb_series_interval(t_s, iv_s, s->interval_s);
    if (s->rc < 0 || node >= s->nnodes || k < 0)
        return s->rc;
    /* A sample over several intervals: the node could not report (it was
     * stopped, or starved of CPU). What it moved is counted in the last of
     * them, the earlier ones are intervals in which it moved nothing that
     * it could show; each keeps its own length, so that the node's long
     * sample does not stretch the other nodes' intervals. */
    if (s->interval_s > 0 && iv_s > 1.5 * s->interval_s) {
        long last = rb_series_interval(t_s, s->interval_s, s->interval_s);
        if (last > k) {
            for (long j = k; j < last && s->rc == 0; j++)
                s->rc = rb_series_add(s, node, (double)(j + 1) * s->interval_s, s->interval_s, 0);
            if (s->rc < 0)
                return s->rc;
            k = last;
            iv_s = s->interval_s;
        }
    }
    if ((uint32_t)k >= s->ncap) {
        uint32_t nc = rb_series_cap_for(s->ncap, k);
        if ((s->rc = rb_series_grow(&s->secs, s->ncap, nc)) < 0)
            return s->rc;
        s->ncap = nc;
    }
    if (iv_s > s->secs[k])
        s->secs[k] = iv_s;
    if ((uint32_t)k + 1 > s->n)
        s->n = (uint32_t)k + 1;
    while ((k >> s->shift) >= RB_SERIES_POINTS) { /* a long phase: coarser points */
        s_halve(s->bytes, s->nnodes, s->cap);
        s->shift++;
    }
    long p = k >> s->shift;
    if ((uint32_t)p >= s->cap) {
        uint32_t nc = rb_series_cap_for(s->cap, p);
        for (uint32_t m = 0; m < s->nnodes && s->rc == 0; m++)
            if (s->bytes[m])
                s->rc = rb_series_grow(&s->bytes[m], s->cap, nc);
        s->cap = nc;
    }
    if (s->rc == 0 && !s->bytes[node] && !(s->bytes[node] = calloc(s->cap, sizeof **s->bytes)))
        s->rc = -ENOMEM;
    if (s->rc < 0)
        return s->rc;
    s->bytes[node][p] += bytes;
    return 0;
}

int rb_series_take(rb_series_t *s, double ***series, uint32_t *nint, double *point_s)
{
    *series = NULL;
    *nint = 0;
    *point_s = s->interval_s;
    if (s->rc < 0)
        return s->rc;
    uint32_t n = s->n;
    if (n && s->secs && s->secs[n - 1] < s->interval_s / 2)
        n--; /* the phase's tail */
    uint32_t np = n ? ((n - 1) >> s->shift) + 1 : 0;
    for (uint32_t q = 0; q < np; q++) {
        /* the point's intervals; a short tail that shares the point with
         * full intervals counts with its own seconds, as its bytes do */
        double len = 0;
        for (uint32_t k = q << s->shift; k < s->n && k < (q + 1) << s->shift; k++)
            len += s->secs[k];
        for (uint32_t i = 0; i < s->nnodes; i++)
            if (s->bytes[i])
                s->bytes[i][q] = len > 0 ? s->bytes[i][q] / len : 0;
    }
    double **fresh = calloc(s->nnodes ? s->nnodes : 1, sizeof *fresh);
    if (!fresh)
        return s->rc = -ENOMEM;
    *series = s->bytes;
    *nint = np;
    *point_s = s->interval_s * (double)(1u << s->shift);
    s->bytes = fresh;
    free(s->secs);
    s->secs = NULL;
    s->cap = s->ncap = s->n = 0;
    s->shift = 0;
    return 0;
}
