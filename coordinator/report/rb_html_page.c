/* report.html's run-level sections, apart from the phases: the page's
 * head and style, the run and its status, the nodes and their hardware,
 * and the plan as the run read it (the live page: as written, and the
 * hardware only with --metrics-inventory). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_html_int.h"
#include "rb_chart.h"
#include "rb_inventory.h"
#include "rb_svg.h"
#include "rb_table.h"
#include "rb_time.h"
#include "rb_units.h"

#define S_PLAN_MAX 4194304 /* bytes of plan.ini shown at most */

static const char *const s_css =
    "body{font:14px/1.45 system-ui,sans-serif;color:#222;margin:1.5em auto;max-width:"
    "1400px;padding:0 1em}\n"
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
    "svg.chart{display:block;width:100%;max-width:1300px;height:auto;font-size:12px}\n"
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

void rb_html_head(const rb_run_result_t *r, FILE *f)
{
    char when[32];
    uint32_t ok = 0;
    for (uint32_t i = 0; i < r->nnodes; i++)
        ok += r->nodes[i].status == RB_NODE_OK;
    rb_time_iso(when, sizeof when, r->started_wall_ns);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>", f);
    rb_svg_textf(f, "rackbench run %s", r->run_id);
    fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", s_css);
    rb_svg_textf(f, "rackbench run %s", r->run_id);
    fputs("</h1>\n<table class=\"kv\">\n", f);
    rb_table_kv(f, "plan", "%s", r->plan_source ? r->plan_source : "");
    rb_table_kv(f, "started", "%s", when);
    if (r->running && r->seen_s > 0) {
        uint32_t silent = rb_report_nsilent(r);
        rb_table_kv(f, "duration", "%.1f s to its last sample", r->seen_s);
        rb_table_kv(f, "nodes", "%u seen, %u sending at its end", r->nnodes, r->nnodes - silent);
    } else {
        rb_table_kv(f, "duration", "%.1f s", r->duration_s);
        rb_table_kv(f, "nodes", "%u (%u ok)", r->nnodes, ok);
    }
    rb_table_kv(f, "rackbench", "%s", rb_report_build(r));
    fprintf(f, "<tr><th scope=\"row\">status</th><td class=\"%s\">%s</td></tr>\n",
            r->live                   ? "running"
            : r->status || r->running ? "fail"
                                      : "pass",
            r->live      ? "RUNNING (the phases so far; this page reloads itself)"
            : r->running ? "DID NOT FINISH (partial: the phases it reached)"
            : r->status  ? "FAILED"
                         : "completed");
    if (r->status)
        rb_table_kv(f, "error", "%s", r->error);
    fputs("</table>\n", f);
    if (r->nphases) {
        fputs("<p>phases:", f);
        for (uint32_t p = 0; p < r->nphases; p++) {
            fprintf(f, " <a href=\"#phase-%u\">", p + 1);
            rb_svg_esc(f, r->phases[p].name);
            fputs("</a>", f);
        }
        fputs("</p>\n", f);
    }
}

/* The run's nodes: where they ran, their status, clocks; and what each host
 * is unless r->no_inventory. */
void rb_html_nodes(const rb_run_result_t *r, FILE *f)
{
    char b1[64];
    fputs("<h2 "
          "id=\"nodes\">Nodes</h2>\n<table>\n<tr><th>node</th><th>rack</th><th>host</"
          "th><th>status</th>"
          "<th class=\"n\">cores</th><th class=\"n\">RAM</th><th class=\"n\">clock offset "
          "(ms)</th><th class=\"n\">clock round trip (ms)</th>",
          f);
    fputs(r->no_inventory ? "</tr>\n"
                          : "<th>kernel</th><th>CPU</th><th>NICs</th><th>file systems</th></tr>\n",
          f);
    for (uint32_t i = 0; i < r->nnodes; i++) {
        const rb_report_node_t *n = &r->nodes[i];
        fputs("<tr><td>", f);
        rb_svg_esc(f, n->name);
        fputs("</td><td>", f);
        rb_svg_esc(f, n->rack);
        fputs("</td><td>", f);
        rb_svg_esc(f, n->hostname);
        fprintf(f, "</td><td%s>", n->status != RB_NODE_OK ? " class=\"bad\"" : "");
        rb_svg_esc(f, rb_aggregate_node_status_name(n->status));
        if (n->status != RB_NODE_OK && n->error[0]) {
            fputs(": ", f);
            rb_svg_esc(f, n->error);
        }
        if (rb_report_silent(r, n))
            fprintf(f, "; silent: its last sample ended at %.1f s", n->last_sample_s);
        fprintf(f, "</td><td class=\"n\">%u</td><td class=\"n\">", n->cores);
        rb_svg_esc(f, rb_units_fmt_size(b1, sizeof b1, (double)n->ram_bytes));
        fprintf(f, "</td><td class=\"n\">%.3f</td><td class=\"n\">%.3f</td>",
                (double)n->clock_offset_ns / 1e6, (double)n->clock_rtt_ns / 1e6);
        const rb_host_t *h = n->hw;
        if (r->no_inventory) {
            fputs("</tr>\n", f);
            continue;
        }
        if (!h) {
            fputs("<td>-</td><td>-</td><td>-</td><td>-</td></tr>\n", f);
            continue;
        }
        fputs("<td>", f);
        rb_svg_esc(f, h->kernel[0] ? h->kernel : "-");
        fputs("</td><td>", f);
        rb_svg_esc(f, h->cpu_model[0] ? h->cpu_model : "-");
        fputs("</td><td>", f);
        for (uint32_t k = 0; k < h->nnics && k < RB_TELEM_NICS; k++) {
            rb_svg_textf(f, "%s%s", k ? ", " : "", h->nics[k].name);
            if (h->nics[k].speed_mbps)
                rb_svg_textf(f, " %u Mb/s", h->nics[k].speed_mbps);
        }
        fputs("</td><td>", f);
        rb_root_info_t tmp;
        for (uint32_t k = 0; k < h->nroots; k++) {
            const rb_root_info_t *rt = rb_host_root(h, k, &tmp);
            rb_svg_textf(f, "%s%s %s %s (%s) on %s", k ? "; " : "", rt->path, rt->fs_type,
                         rb_units_fmt_size(b1, sizeof b1, (double)rt->total_bytes), rt->options,
                         rt->source);
            if (rt->dev_model[0] || rt->dev_serial[0])
                rb_svg_textf(f, ", disk%s%s%s, serial %s", rt->dev_model[0] ? " " : "",
                             rt->dev_model, rt->dev_rotational ? " (rotational)" : "",
                             rt->dev_serial[0] ? rt->dev_serial : "unknown");
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
}

/* A row of the devices' tables: its cells and its note. */
static void s_dev_row(FILE *f, char c[RB_INV_NCOLS][RB_INV_CELL], const char *note)
{
    fputs("<tr>", f);
    for (int k = 0; k < RB_INV_NCOLS; k++) {
        fputs(rb_inv_numeric(k) ? "<td class=\"n\">" : "<td>", f);
        rb_svg_esc(f, c[k]);
        fputs("</td>", f);
    }
    fputs("<td>", f);
    rb_svg_esc(f, note);
    fputs("</td></tr>\n", f);
}

static void s_dev_head(FILE *f)
{
    fputs("<table>\n<tr>", f);
    for (int k = 0; k < RB_INV_NCOLS; k++)
        fprintf(f, "<th%s>%s</th>", rb_inv_numeric(k) ? " class=\"n\"" : "", rb_inv_heads[k]);
    fputs("<th>note</th></tr>\n", f);
}

/* 1 when the page shows the nodes' devices: some node said any, and not r->no_inventory. */
static int s_any_devices(const rb_run_result_t *r)
{
    int any = 0;
    for (uint32_t i = 0; i < r->nnodes && !any && !r->no_inventory; i++)
        any = r->nodes[i].hw && r->nodes[i].hw->ndevs;
    return any;
}

int rb_html_devices_grouped(const rb_run_result_t *r, FILE *f)
{
    if (!s_any_devices(r))
        return 0;
    rb_inv_group_t *g;
    rb_inv_tally_t t;
    uint32_t n;
    if (rb_inv_groups(r->nodes, r->nnodes, rb_chart_si() ? RB_UNITS_SI : RB_UNITS_IEC, &g, &n, &t) <
        0)
        return -ENOMEM;
    uint32_t devs = t.devices, hidden = t.untouchable, kinds = t.untouchable_groups;
    fprintf(f,
            "<h3 id=\"devices-grouped\">Devices of the nodes</h3>\n<p class=\"note\">%u "
            "devices on %u nodes; those alike (all but node, device and serial) on one row. "
            "<a href=\"#devices\">Every device</a>, with its serial, follows the results.</p>\n",
            devs, r->nnodes);
    if (hidden < devs) {
        s_dev_head(f);
        for (uint32_t k = 0; k < n; k++)
            if (!rb_inv_untouchable(&g[k]))
                s_dev_row(f, g[k].cells, g[k].note);
        fputs("</table>\n", f);
    }
    if (hidden)
        fprintf(f, "<p class=\"note\">%u device%s of %u kind%s the agents may not touch.</p>\n",
                hidden, hidden == 1 ? "" : "s", kinds, kinds == 1 ? "" : "s");
    free(g);
    return 0;
}

/* Every node's block devices from its inventory (nothing when none said
 * any, or with r->no_inventory). */
void rb_html_devices(const rb_run_result_t *r, FILE *f)
{
    char c[RB_INV_NCOLS][RB_INV_CELL];
    if (!s_any_devices(r))
        return;
    fputs("<h3 id=\"devices\">Devices of the nodes</h3>\n", f);
    s_dev_head(f);
    for (uint32_t i = 0; i < r->nnodes; i++) {
        const rb_host_t *h = r->nodes[i].hw;
        for (uint32_t d = 0; h && d < h->ndevs; d++) {
            rb_dev_id_t tmp;
            const rb_dev_id_t *dev = rb_host_dev(h, d, &tmp);
            rb_inv_cells(r->nodes[i].name, dev, rb_chart_si() ? RB_UNITS_SI : RB_UNITS_IEC, c);
            s_dev_row(f, c, rb_inv_note(dev));
        }
        if (h && h->ndevs_seen > h->ndevs)
            fprintf(f, "<tr><td colspan=\"%d\">%u more devices than a HELLO carries</td></tr>\n",
                    RB_INV_NCOLS + 1, h->ndevs_seen - h->ndevs);
    }
    fputs("</table>\n", f);
}

/* The plan, escaped: as the run read it (run_dir/plan.ini), or as written. */
int rb_html_plan(const rb_run_result_t *r, const char *run_dir, FILE *f)
{
    fputs("<section id=\"plan\">\n<h2>Plan</h2>\n", f);
    if (r->plan_written) {
        size_t n = strlen(r->plan_written);
        fputs("<p class=\"note\">The plan file as written: its includes, ${VARIABLES} and "
              "$keywords are not expanded, nor --set, --override and --var applied; the run "
              "folder&#8217;s plan.ini holds the plan as the run read it.</p>\n<pre>",
              f);
        rb_svg_escn(f, r->plan_written, n < S_PLAN_MAX ? n : S_PLAN_MAX);
        fputs("</pre>\n", f);
        if (n > S_PLAN_MAX)
            fprintf(f, "<p class=\"note\">(only the first %d bytes are shown)</p>\n", S_PLAN_MAX);
        fputs("</section>\n", f);
        return 0;
    }
    char path[RB_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/plan.ini", run_dir);
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
    rb_svg_escn(f, buf, n);
    fputs("</pre>\n", f);
    if (more)
        fprintf(f, "<p class=\"note\">(only the first %d bytes are shown)</p>\n", S_PLAN_MAX);
    fputs("</section>\n", f);
    free(buf);
    return 0;
}
