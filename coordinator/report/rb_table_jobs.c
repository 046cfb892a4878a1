/* report.html's table of a phase's jobs (rb_table.h). */
#include <inttypes.h>

#include "rb_engine_info.h"
#include "rb_svg.h"
#include "rb_table.h"
#include "rb_units.h"

void rb_table_jobs(const rb_phase_agg_t *a, const rb_phase_spec_t *sp, FILE *f)
{
    if (a->njobs < 2)
        return;
    fputs("<h3>Jobs</h3>\n<p class=\"note\">A job&#8217;s rates are over its own time, from "
          "its first worker&#8217;s start to its last worker&#8217;s end on any node; the "
          "phase&#8217;s, above, are over the phase&#8217;s window (every worker of every "
          "job). Jobs that ran for different times add up to more than the phase&#8217;s "
          "rate.</p>\n<table>\n<tr><th>job</th><th>IO</th><th class=\"n\">workers</th>"
          "<th class=\"n\">moved</th><th class=\"n\">bandwidth</th><th class=\"n\">IOPS</th>"
          "<th class=\"n\">its own time (s)</th><th class=\"n\">p50 &#181;s</th>"
          "<th class=\"n\">p99 &#181;s</th><th class=\"n\">max &#181;s</th></tr>\n",
          f);
    for (uint32_t j = 0; j < a->njobs; j++) {
        const rb_agg_job_t *aj = &a->jobs[j];
        char b1[64], b2[64];
        fputs("<tr><td>", f);
        rb_svg_esc(f, aj->name);
        fputs("</td><td>", f);
        rb_svg_textf(f, "%s %s %s qd%u", rb_rw_name(aj->rw),
                     rb_report_bs(aj->bs, j < sp->njobs ? sp->jobs[j].bs_max : 0, b1, sizeof b1),
                     aj->ioengine, rb_engine_info_depth(aj->ioengine, aj->iodepth));
        fprintf(f, "</td><td class=\"n\">%u</td><td class=\"n\">", aj->workers);
        rb_svg_esc(f, rb_units_fmt_size(b1, sizeof b1, (double)aj->bytes));
        fputs("</td><td class=\"n\">", f);
        rb_svg_esc(f, rb_table_bw(b2, sizeof b2, aj->bw));
        fprintf(f, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.3f</td>", aj->iops,
                aj->window_s);
        const rb_hist_t *h = aj->hist;
        if (h && h->count)
            fprintf(f,
                    "<td class=\"n\">%.1f</td><td class=\"n\">%.1f</td><td class=\"n\">%.1f</td>",
                    (double)rb_hist_percentile(h, 50) / 1e3,
                    (double)rb_hist_percentile(h, 99) / 1e3, (double)h->max / 1e3);
        else
            fputs("<td></td><td></td><td></td>", f);
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}
