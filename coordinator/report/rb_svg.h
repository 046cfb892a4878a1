/* SVG primitives of report.html: escaping, axes, plot area, palette and
 * lines. Every function writes well-formed XML to f; callers give the
 * figures, these know no run and no chart. */
#ifndef RB_SVG_H
#define RB_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A linear axis from 0: its top and tick step, both "nice" (1, 2, 5 x 10^n). */
typedef struct rb_svg_axis {
    double max;  /* top of the axis, in display units */
    double step; /* between ticks */
    int dec;     /* decimals of a tick label */
} rb_svg_axis_t;

/* The plot area of a chart, in px. */
typedef struct rb_svg_plot {
    double x, y, w, h; /* left, top, width, height */
    double xmax, ymax; /* data values at the right and top edges */
} rb_svg_plot_t;

/* Writes len bytes of s as text or an attribute value: markup characters as
 * references, anything not valid UTF-8 or not allowed in XML as U+FFFD. */
void rb_svg_escn(FILE *f, const char *s, size_t len);

/* rb_svg_escn of the whole NUL-terminated s. */
void rb_svg_esc(FILE *f, const char *s);

/* printf into a bounded buffer (4096 bytes), then written escaped. */
void rb_svg_textf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A linear axis from 0 to at least max with about `ticks` ticks, its top
 * and step both 1, 2 or 5 x 10^n; an axis to 1 when max is not positive. */
rb_svg_axis_t rb_svg_axis(double max, int ticks);

/* A distinct stroke colour for line i into buf (the first ten: the usual
 * palette); rack picks the darker palette of rack lines. */
void rb_svg_color(char *buf, size_t len, uint32_t i, int rack);

/* The px of data value x (left to right) and y (bottom to top) in pl. */
double rb_svg_px(const rb_svg_plot_t *pl, double x);
double rb_svg_py(const rb_svg_plot_t *pl, double y);

/* Opens a chart: the svg element of w x h px and its title (escaped). The
 * caller closes it with "</svg>". */
void rb_svg_open(FILE *f, double w, double h, const char *title);

/* Ticks, grid and label (markup, not escaped) of the x axis or the y axis
 * of pl, linear from 0 as ax says. */
void rb_svg_x_axis(FILE *f, const rb_svg_plot_t *pl, rb_svg_axis_t ax, const char *label_markup);
void rb_svg_y_axis(FILE *f, const rb_svg_plot_t *pl, rb_svg_axis_t ax, const char *label_markup);

/* Ticks and grid of a logarithmic y axis of pl from 10^e0 to 10^e1 (the
 * plot's y values are log10(v) - e0): each decade, and 2 and 5 between
 * them when there are at most two; the label (markup) at distance
 * label_dx left of the plot. */
void rb_svg_y_log_axis(FILE *f, const rb_svg_plot_t *pl, double e0, double e1, double label_dx,
                       const char *label_markup);

/* The frame around pl's plot area. */
void rb_svg_frame(FILE *f, const rb_svg_plot_t *pl);

/* One line of nk points (v[k] / div at t[k]; NAN: no point): a polyline per
 * run of points, a dot for a point alone, gaps left as gaps, each with class
 * cls, stroke color, more attributes attr ("" or starting with a space) and
 * name as its tooltip. */
void rb_svg_line(FILE *f, const rb_svg_plot_t *pl, const double *v, const double *t, uint32_t nk,
                 double div, const char *cls, const char *attr, const char *color,
                 const char *name);

#endif
