/* report.html's network phase (rb_html_int.h): the link matrix as a heat
 * map, sender down and receiver across, each cell shaded by its rate
 * against the phase's fastest link (blue: more; a slow link outlined red, a
 * failed one marked), then each node's out and in as bars, and the
 * connections its data port refused. */
#include <inttypes.h>
#include <stdio.h>

#include "rb_html_int.h"
#include "rb_netfig.h"
#include "rb_report_net.h"
#include "rb_svg.h"

#define S_MATRIX_MAX 64 /* nodes drawn as a matrix; past that, the links found wanting */

static void s_matrix(FILE *f, const rb_phase_agg_t *a, const rb_net_fig_t *nf)
{
    fputs("<h3>Link matrix, Gbit/s (sender down, receiver across; darker: faster, red border: a "
          "slow link, ! failed)</h3>\n<table class=\"sweep\">\n<tr><th>from \\ to</th>",
          f);
    for (uint32_t c = 0; c < a->nnodes; c++) {
        fputs("<th class=\"n\">", f);
        rb_svg_textf(f, "%s", rb_report_net_node(a, c));
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    for (uint32_t r = 0; r < a->nnodes; r++) {
        fputs("<tr><th>", f);
        rb_svg_textf(f, "%s", rb_report_net_node(a, r));
        fputs("</th>", f);
        for (uint32_t c = 0; c < a->nnodes; c++) {
            rb_net_cell_t x = rb_net_cell(nf, r, c);
            if (!x.has) {
                fputs("<td class=\"n none\">-</td>", f);
                continue;
            }
            int light = nf->max_gbps > 0 ? 95 - (int)(45.0 * x.gbps / nf->max_gbps + 0.5) : 95;
            fprintf(f, "<td class=\"n\" style=\"background:hsl(210,60%%,%d%%)%s\">%.3f%s</td>",
                    light, x.slow || x.failed ? ";outline:2px solid #c00" : "", x.gbps,
                    x.failed ? " !" : "");
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* Each node's out and in as two bars against the largest of them. */
static void s_nodes(FILE *f, const rb_phase_agg_t *a, const rb_net_fig_t *nf)
{
    double max = 0;
    for (uint32_t r = 0; r < nf->nnodes && r < a->nnodes; r++) {
        max = nf->nodes[r].out_gbps > max ? nf->nodes[r].out_gbps : max;
        max = nf->nodes[r].in_gbps > max ? nf->nodes[r].in_gbps : max;
    }
    fputs("<h3>Per node: out and in, Gbit/s</h3>\n<table>\n<tr><th>node</th><th>out</th>"
          "<th>in</th><th class=\"n\">TCP retransmits</th></tr>\n",
          f);
    for (uint32_t r = 0; r < nf->nnodes && r < a->nnodes; r++) {
        const rb_net_node_fig_t *n = &nf->nodes[r];
        fputs("<tr><th>", f);
        rb_svg_textf(f, "%s", rb_report_net_node(a, r));
        fputs("</th>", f);
        for (int in = 0; in < 2; in++) {
            double g = in ? n->in_gbps : n->out_gbps;
            int w = max > 0 ? (int)(200.0 * g / max + 0.5) : 0;
            fprintf(f,
                    "<td><svg width=\"210\" height=\"12\" role=\"img\"><rect width=\"%d\" "
                    "height=\"12\" fill=\"%s\"/></svg> %.3f</td>",
                    w, in ? "#6a9fd4" : "#2b6cb0", g);
        }
        fprintf(f, "<td class=\"n\">%" PRIu64 "</td></tr>\n", n->retrans);
    }
    fputs("</table>\n", f);
}

void rb_html_net(const rb_phase_agg_t *a, FILE *f)
{
    const rb_net_fig_t *nf = a->net;
    if (!nf)
        return;
    fprintf(f,
            "<p>%u links: median %.3f, min %.3f, max %.3f Gbit/s; %u slow, %u asymmetric, %u "
            "failed</p>\n",
            nf->nlinks, nf->median_gbps, nf->min_gbps, nf->max_gbps, nf->nslow, nf->nasym,
            nf->nfailed);
    if (a->nnodes <= S_MATRIX_MAX) {
        s_matrix(f, a, nf);
    } else {
        fputs("<h3>Links found wanting</h3>\n<ul>\n", f);
        for (uint32_t i = 0; i < nf->nlinks; i++) {
            const rb_net_link_fig_t *l = &nf->links[i];
            if (!l->slow && !l->asymmetric && !l->status)
                continue;
            fputs("<li>", f);
            rb_svg_textf(f, "%s to %s: %.3f Gbit/s%s%s%s", rb_report_net_node(a, l->from),
                         rb_report_net_node(a, l->to), l->gbps, l->slow ? ", slow" : "",
                         l->asymmetric ? ", asymmetric" : "", l->status ? ", failed" : "");
            fputs("</li>\n", f);
        }
        fputs("</ul>\n", f);
    }
    s_nodes(f, a, nf);
    for (uint32_t r = 0; r < nf->nnodes && r < a->nnodes; r++) {
        if (!nf->nodes[r].refused)
            continue;
        fputs("<p class=\"note\">", f);
        rb_svg_textf(f, "%s's data port turned away %" PRIu64 " connection%s: %s",
                     rb_report_net_node(a, r), nf->nodes[r].refused,
                     nf->nodes[r].refused == 1 ? "" : "s", nf->nodes[r].refused_by);
        fputs("</p>\n", f);
    }
}
