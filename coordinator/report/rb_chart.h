/* The charts of report.html: what one phase's time series holds, how the
 * time charts show it, and the SVG charts and their notes. The page
 * (rb_html.c) builds the series from samples.csv and places the charts. */
#ifndef RB_CHART_H
#define RB_CHART_H

#include <stdint.h>
#include <stdio.h>

#include "rb_aggregate.h"
#include "rb_hist.h"

#define RB_CHART_NODE_LINES  32 /* more nodes: the slowest, median and fastest, no line each */
#define RB_CHART_RACK_LINES  32 /* more racks: no line per rack */
#define RB_CHART_STRAG_LINES 4  /* straggler nodes with a line of their own, at most */

/* One phase's time series, interval by interval, per node, rack and for
 * the cluster (built by rb_html.c from samples.csv). */
typedef struct rb_chart_series {
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
    uint32_t ntail;     /* rows left out: shorter than half an interval, or empty */
} rb_chart_series_t;

/* What the time charts of a series draw. */
typedef struct rb_chart_view {
    uint32_t per;    /* sample intervals per point: 1, or more when the plot is narrower */
    uint32_t np;     /* points per line at most: nk / per, rounded up */
    int spread;      /* more than RB_CHART_NODE_LINES nodes: their slowest, median and fastest */
    int racks;       /* a line per rack (more than one, at most RB_CHART_RACK_LINES) */
    uint32_t nstrag; /* straggler nodes with a line of their own (spread only) */
    uint32_t strag[RB_CHART_STRAG_LINES]; /* their lines in the series */
    uint32_t nstragall;                   /* stragglers in the phase's findings */
} rb_chart_view_t;

/* Fills vw, the view of series s of phase a: how many intervals a point
 * (the plot is S_SERIES_W px wide), which lines, which stragglers. */
void rb_chart_view_make(const rb_chart_series_t *s, const rb_phase_agg_t *a, rb_chart_view_t *vw);

/* The cluster's rate over time, a dashed line per rack (up to
 * RB_CHART_RACK_LINES), a thin line per node (up to RB_CHART_NODE_LINES);
 * operations per second when ops, else bandwidth. 0 or -ENOMEM. */
int rb_chart_series(FILE *f, const rb_chart_series_t *s, const rb_chart_view_t *vw,
                    const char *phase, int ops);

/* With many nodes: the slowest, median and fastest node of each interval,
 * and the straggler nodes' own lines. 0 or -ENOMEM. */
int rb_chart_spread(FILE *f, const rb_chart_series_t *s, const rb_chart_view_t *vw,
                    const char *phase, int ops);

/* Per node: a bar to the median of its interval rates, a whisker min..max;
 * past 64 nodes only the 16 slowest and fastest by median. 0 or -ENOMEM. */
int rb_chart_nodes(FILE *f, const rb_chart_series_t *s, const char *phase, int ops);

/* Latency against percentile of histogram h, x on a "nines" scale, y
 * logarithmic in us; a line of text when h recorded nothing. */
void rb_chart_latency(FILE *f, const rb_hist_t *h, const char *phase);

/* The page's one unit system: binary (MiB/s, the default) or, with si 1,
 * decimal (MB/s), for the charts and the tables alike. Not thread-safe: set
 * it before rendering. rb_chart_si() tells which. */
void rb_chart_set_si(int si);
int rb_chart_si(void);

/* A line of rb_chart_lines(): nk values v (NAN: none) at times t. */
typedef struct rb_chart_line {
    const double *v, *t;
    const char *name;  /* legend and tooltip */
    const char *color; /* its stroke */
    int dashed;        /* drawn dashed (a second figure of one direction) */
} rb_chart_line_t;

/* A time chart of n lines of nk points each, from 0 to tmax s after GO and
 * 0 to the highest point (log_y: on a logarithmic axis over the decades of
 * the positive points, a point of 0 left out); y values are divided by div
 * and the axis named by ylabel (markup); title says what is drawn (text).
 * Points are the means of consecutive values when nk is wider than the
 * plot. 0 or -ENOMEM. */
int rb_chart_lines(FILE *f, const char *title, const char *ylabel, double div, int log_y,
                   const rb_chart_line_t *l, uint32_t n, uint32_t nk, double tmax);

/* The notes under the time chart and under the spread chart: what a point
 * is, how the series was downsampled, what is left out. */
void rb_chart_series_note(FILE *f, const rb_chart_series_t *s, const rb_chart_view_t *vw, int meta);
void rb_chart_spread_note(FILE *f, const rb_chart_series_t *s, const rb_chart_view_t *vw);

#endif
