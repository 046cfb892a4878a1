/* The SVG the HTML report draws with, apart from the page and its charts:
 * text escaped for XML (the page's text too), nice linear axes, a plot
 * area and its mapping from data to px, axes, frames, the palette, and a
 * line that leaves gaps as gaps. Writes markup only; knows no run. */
#include "rb_svg.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#define S_TEXT_MAX 4096 /* one formatted text, before escaping */

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
void rb_svg_escn(FILE *f, const char *s, size_t len)
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

void rb_svg_esc(FILE *f, const char *s)
{
    rb_svg_escn(f, s, strlen(s));
}

/* printf, then escaped. */
void rb_svg_textf(FILE *f, const char *fmt, ...)
{
    char buf[S_TEXT_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    rb_svg_esc(f, buf);
}

rb_svg_axis_t rb_svg_axis(double max, int ticks)
{
    rb_svg_axis_t ax = {1, 0.2, 1};
    if (!(max > 0) || !isfinite(max))
        return ax;
    double raw = max / ticks, mag = pow(10, floor(log10(raw))), f = raw / mag;
    ax.step = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
    ax.max = ceil(max / ax.step - 1e-9) * ax.step;
    ax.dec = (int)-floor(log10(ax.step) + 1e-9);
    ax.dec = ax.dec < 0 ? 0 : ax.dec > 6 ? 6 : ax.dec;
    return ax;
}

/* A distinct stroke colour for line i (the first ten: the usual palette). */
void rb_svg_color(char *buf, size_t len, uint32_t i, int rack)
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

double rb_svg_px(const rb_svg_plot_t *pl, double x)
{
    return pl->x + x / pl->xmax * pl->w;
}

double rb_svg_py(const rb_svg_plot_t *pl, double y)
{
    return pl->y + pl->h - y / pl->ymax * pl->h;
}

/* Opens a chart: the svg element with its size and its title. */
void rb_svg_open(FILE *f, double w, double h, const char *title)
{
    fprintf(f, "<svg class=\"chart\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
            w, h, w, h);
    fputs("<title>", f);
    rb_svg_esc(f, title);
    fputs("</title>\n", f);
}

/* Ticks, grid and label of the x axis (linear, from 0). */
void rb_svg_x_axis(FILE *f, const rb_svg_plot_t *pl, rb_svg_axis_t ax, const char *label_markup)
{
    for (int i = 0; i * ax.step <= ax.max + ax.step * 1e-6; i++) {
        double x = rb_svg_px(pl, i * ax.step);
        fprintf(f,
                "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.*f</text>\n",
                x, pl->y, x, pl->y + pl->h, x, pl->y + pl->h + 16, ax.dec, i * ax.step);
    }
    fprintf(f, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
            pl->x + pl->w / 2, pl->y + pl->h + 38, label_markup);
}

/* Ticks, grid and label of the y axis (linear, from 0). */
void rb_svg_y_axis(FILE *f, const rb_svg_plot_t *pl, rb_svg_axis_t ax, const char *label_markup)
{
    for (int i = 0; i * ax.step <= ax.max + ax.step * 1e-6; i++) {
        double y = rb_svg_py(pl, i * ax.step);
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

void rb_svg_y_log_axis(FILE *f, const rb_svg_plot_t *pl, double e0, double e1, double label_dx,
                       const char *label_markup)
{
    for (double e = e0; e <= e1 + 1e-9; e++) {
        for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
            double v = log10(m) + e;
            if ((m > 1 && e1 - e0 > 2) || v > e1 + 1e-9)
                continue;
            double y = rb_svg_py(pl, v - e0);
            fprintf(f,
                    "<line class=\"grid%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                    "<text class=\"tick\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.*f</text>\n",
                    m > 1 ? " minor" : "", pl->x, y, pl->x + pl->w, y, pl->x - 6, y + 4,
                    e < 0 ? (int)-e : 0, m * pow(10, e));
        }
    }
    fprintf(f,
            "<text class=\"label\" transform=\"translate(%.1f,%.1f) rotate(-90)\" "
            "text-anchor=\"middle\">%s</text>\n",
            pl->x - label_dx, pl->y + pl->h / 2, label_markup);
}

void rb_svg_frame(FILE *f, const rb_svg_plot_t *pl)
{
    fprintf(f, "<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"/>\n",
            pl->x, pl->y, pl->w, pl->h);
}

/* One line of a time series: a polyline per run of measured points, a dot
 * for a point alone; gaps stay gaps. v and t hold n values; attr is more
 * attributes of each element ("" or starting with a space). */
void rb_svg_line(FILE *f, const rb_svg_plot_t *pl, const double *v, const double *t, uint32_t nk,
                 double div, const char *cls, const char *attr, const char *color, const char *name)
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
                    rb_svg_px(pl, t[k]), rb_svg_py(pl, v[k] / div), color, attr);
        } else {
            fprintf(f, "<polyline class=\"%s\" stroke=\"%s\"%s points=\"", cls, color, attr);
            for (uint32_t i = k; i < end; i++)
                fprintf(f, "%s%.1f,%.1f", i > k ? " " : "", rb_svg_px(pl, t[i]),
                        rb_svg_py(pl, v[i] / div));
            fputs("\">", f);
        }
        fputs("<title>", f);
        rb_svg_esc(f, name);
        fprintf(f, "</title></%s>\n", end - k == 1 ? "circle" : "polyline");
        k = end;
    }
}
