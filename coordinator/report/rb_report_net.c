/* A network phase in the reports: summary.json's "network" (written, and
 * read back for `rackbench report`) and report.txt's link matrix, each
 * node's in and out, and the refused connections. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_netfig.h"
#include "rb_report_net.h"

const char *rb_report_net_node(const rb_phase_agg_t *a, uint32_t r)
{
    return r < a->nnodes ? a->nodes[r].name : "?";
}

/* A figure that may be unknown (below 0): null then. */
static void s_num_or_null(rb_jw_t *w, const char *key, double v)
{
    if (v < 0)
        rb_jw_null(w, key);
    else
        rb_jw_num(w, key, v);
}

/* CPU cores busy per Gbit/s the node moved out and in; -1 unknown. */
static double s_cpu_per_gbps(const rb_net_node_fig_t *n)
{
    double g = n->out_gbps + n->in_gbps;
    return n->cpu_cores >= 0 && g > 0 ? n->cpu_cores / g : -1;
}

void rb_report_net_json(rb_jw_t *w, const rb_phase_agg_t *a, const rb_phase_spec_t *sp)
{
    const rb_net_fig_t *f = a->net;
    if (!f)
        return;
    rb_jw_obj_begin(w, "network");
    rb_jw_num(w, "median_link_gbps", f->median_gbps);
    rb_jw_num(w, "min_link_gbps", f->min_gbps);
    rb_jw_num(w, "max_link_gbps", f->max_gbps);
    rb_jw_u64(w, "slow_links", f->nslow);
    rb_jw_u64(w, "asymmetric_links", f->nasym);
    rb_jw_u64(w, "failed_links", f->nfailed);
    rb_jw_u64(w, "refused", f->refused);
    rb_jw_u64(w, "tcp_retransmits", f->retrans);
    rb_jw_arr_begin(w, "links");
    for (uint32_t i = 0; i < f->nlinks; i++) {
        const rb_net_link_fig_t *l = &f->links[i];
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "job", l->job < sp->njobs ? sp->jobs[l->job].name : "?");
        rb_jw_str(w, "from", rb_report_net_node(a, l->from));
        rb_jw_str(w, "to", rb_report_net_node(a, l->to));
        rb_jw_u64(w, "bytes", l->bytes);
        rb_jw_u64(w, "sent", l->sent);
        rb_jw_u64(w, "ops", l->ops);
        rb_jw_num(w, "seconds", l->seconds);
        rb_jw_num(w, "gbps", l->gbps);
        rb_jw_u64(w, "streams", l->streams);
        rb_jw_u64(w, "streams_asked", l->want);
        rb_jw_bool(w, "partial", l->partial);
        rb_jw_bool(w, "slow", l->slow);
        rb_jw_bool(w, "asymmetric", l->asymmetric);
        if (l->status)
            rb_jw_str(w, "error", l->error);
        else
            rb_jw_null(w, "error");
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
    rb_jw_arr_begin(w, "nodes");
    for (uint32_t r = 0; r < f->nnodes && r < a->nnodes; r++) {
        const rb_net_node_fig_t *n = &f->nodes[r];
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "node", rb_report_net_node(a, r));
        rb_jw_num(w, "out_gbps", n->out_gbps);
        rb_jw_num(w, "in_gbps", n->in_gbps);
        rb_jw_u64(w, "out_bytes", n->out_bytes);
        rb_jw_u64(w, "in_bytes", n->in_bytes);
        rb_jw_u64(w, "tcp_retransmits", n->retrans);
        s_num_or_null(w, "cpu_cores", n->cpu_cores);
        s_num_or_null(w, "cpu_per_gbps", s_cpu_per_gbps(n));
        s_num_or_null(w, "nic_tx_bytes", n->nic_tx);
        s_num_or_null(w, "nic_rx_bytes", n->nic_rx);
        rb_jw_u64(w, "refused", n->refused);
        rb_jw_str(w, "refused_by", n->refused_by);
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
    rb_jw_obj_end(w);
}

/* The rank of the node named name in a, or UINT32_MAX. */
static uint32_t s_rank(const rb_phase_agg_t *a, const char *name)
{
    for (uint32_t r = 0; name && r < a->nnodes; r++)
        if (!strcmp(a->nodes[r].name, name))
            return r;
    return UINT32_MAX;
}

int rb_report_net_read(const rb_json_t *o, rb_phase_agg_t *a, const rb_phase_spec_t *sp)
{
    const rb_json_t *n = rb_json_get(o, "network");
    if (rb_json_type(n) != RB_JSON_OBJ)
        return 0;
    rb_net_fig_t *f = calloc(1, sizeof *f);
    const rb_json_t *links = rb_json_get(n, "links"), *nodes = rb_json_get(n, "nodes");
    if (!f)
        return -ENOMEM;
    a->net = f;
    f->nnodes = a->nnodes;
    f->links = calloc(rb_json_len(links) ? rb_json_len(links) : 1, sizeof *f->links);
    f->nodes = calloc(a->nnodes ? a->nnodes : 1, sizeof *f->nodes);
    if (!f->links || !f->nodes)
        return -ENOMEM;
    f->median_gbps = rb_json_num(rb_json_get(n, "median_link_gbps"), 0);
    f->min_gbps = rb_json_num(rb_json_get(n, "min_link_gbps"), 0);
    f->max_gbps = rb_json_num(rb_json_get(n, "max_link_gbps"), 0);
    f->nslow = (uint32_t)rb_json_get_u64(n, "slow_links");
    f->nasym = (uint32_t)rb_json_get_u64(n, "asymmetric_links");
    f->nfailed = (uint32_t)rb_json_get_u64(n, "failed_links");
    f->refused = rb_json_get_u64(n, "refused");
    f->retrans = rb_json_get_u64(n, "tcp_retransmits");
    for (size_t i = 0; i < rb_json_len(links); i++) {
        const rb_json_t *x = rb_json_at(links, i);
        rb_net_link_fig_t *l = &f->links[f->nlinks];
        uint32_t from = s_rank(a, rb_json_str(rb_json_get(x, "from")));
        uint32_t to = s_rank(a, rb_json_str(rb_json_get(x, "to")));
        const char *job = rb_json_str(rb_json_get(x, "job"));
        if (from == UINT32_MAX || to == UINT32_MAX)
            continue;
        l->job = 0;
        for (uint32_t j = 0; job && j < sp->njobs; j++)
            if (!strcmp(sp->jobs[j].name, job))
                l->job = j;
        l->from = from;
        l->to = to;
        l->bytes = rb_json_get_u64(x, "bytes");
        l->sent = rb_json_get_u64(x, "sent");
        l->ops = rb_json_get_u64(x, "ops");
        l->seconds = rb_json_num(rb_json_get(x, "seconds"), 0);
        l->gbps = rb_json_num(rb_json_get(x, "gbps"), 0);
        l->streams = (uint32_t)rb_json_get_u64(x, "streams");
        l->want = (uint32_t)rb_json_get_u64(x, "streams_asked");
        l->partial = (uint8_t)rb_json_bool(rb_json_get(x, "partial"), 0);
        l->slow = (uint8_t)rb_json_bool(rb_json_get(x, "slow"), 0);
        l->asymmetric = (uint8_t)rb_json_bool(rb_json_get(x, "asymmetric"), 0);
        const char *err = rb_json_str(rb_json_get(x, "error"));
        if (err) {
            l->status = -EIO;
            snprintf(l->error, sizeof l->error, "%s", err);
        }
        f->nlinks++;
    }
    for (size_t i = 0; i < rb_json_len(nodes); i++) {
        const rb_json_t *x = rb_json_at(nodes, i);
        uint32_t r = s_rank(a, rb_json_str(rb_json_get(x, "node")));
        if (r == UINT32_MAX)
            continue;
        rb_net_node_fig_t *nf = &f->nodes[r];
        nf->out_gbps = rb_json_num(rb_json_get(x, "out_gbps"), 0);
        nf->in_gbps = rb_json_num(rb_json_get(x, "in_gbps"), 0);
        nf->out_bytes = rb_json_get_u64(x, "out_bytes");
        nf->in_bytes = rb_json_get_u64(x, "in_bytes");
        nf->retrans = rb_json_get_u64(x, "tcp_retransmits");
        nf->cpu_cores = rb_json_num(rb_json_get(x, "cpu_cores"), -1);
        nf->nic_tx = rb_json_num(rb_json_get(x, "nic_tx_bytes"), -1);
        nf->nic_rx = rb_json_num(rb_json_get(x, "nic_rx_bytes"), -1);
        nf->refused = rb_json_get_u64(x, "refused");
        rb_json_get_str(x, "refused_by", nf->refused_by, sizeof nf->refused_by);
    }
    rb_net_fig_index(f, sp->njobs);
    return 0;
}

/* The matrix's widest name, for its columns. */
static int s_width(const rb_phase_agg_t *a)
{
    int w = 6;
    for (uint32_t r = 0; r < a->nnodes; r++)
        if ((int)strlen(a->nodes[r].name) > w)
            w = (int)strlen(a->nodes[r].name);
    return w > 24 ? 24 : w;
}

#define S_MATRIX_MAX 24 /* nodes: a larger phase lists its links instead */

int rb_report_net_text(FILE *f, const rb_phase_agg_t *a, const rb_phase_spec_t *sp)
{
    const rb_net_fig_t *nf = a->net;
    if (!nf)
        return 0;
    int w = s_width(a);
    const rb_job_spec_t *js = NULL;
    for (uint32_t j = 0; j < sp->njobs && !js; j++)
        js = sp->jobs[j].network ? &sp->jobs[j] : NULL;
    fprintf(f, "  %-28s %u stream%s a link, %u links: median %.3f, min %.3f, max %.3f Gbit/s\n",
            "links", js ? js->numjobs : 0, js && js->numjobs == 1 ? "" : "s", nf->nlinks,
            nf->median_gbps, nf->min_gbps, nf->max_gbps);
    const rb_hist_t *h = &a->lat[RB_DIR_WRITE][RB_LAT_LAT]; /* pingpong's round trips */
    if (js && js->pingpong && h->count)
        fprintf(f,
                "  %-28s p50 %.1f  p99 %.1f  p99.9 %.1f  max %.1f us (%" PRIu64 " round trips)\n",
                "round trip", rb_hist_percentile(h, 50) / 1e3, rb_hist_percentile(h, 99) / 1e3,
                rb_hist_percentile(h, 99.9) / 1e3, (double)h->max / 1e3, h->count);
    if (nf->nnodes <= S_MATRIX_MAX && a->nnodes <= S_MATRIX_MAX) {
        fprintf(f, "  link matrix, Gbit/s (sender down, receiver across; * slow, ! failed)\n");
        fprintf(f, "  %-*s", w, "from\\to");
        for (uint32_t c = 0; c < a->nnodes; c++)
            fprintf(f, " %*s", w > 9 ? w : 9, rb_report_net_node(a, c));
        fprintf(f, "\n");
        for (uint32_t r = 0; r < a->nnodes; r++) {
            int any = 0;
            for (uint32_t c = 0; c < a->nnodes && !any; c++)
                any = rb_net_cell(nf, r, c).has;
            if (!any)
                continue;
            fprintf(f, "  %-*s", w, rb_report_net_node(a, r));
            for (uint32_t c = 0; c < a->nnodes; c++) {
                rb_net_cell_t x = rb_net_cell(nf, r, c);
                char cell[32];
                if (x.has)
                    snprintf(cell, sizeof cell, "%.3f%s", x.gbps,
                             x.failed ? "!"
                             : x.slow ? "*"
                                      : "");
                else
                    snprintf(cell, sizeof cell, "-");
                fprintf(f, " %*s", w > 9 ? w : 9, cell);
            }
            fprintf(f, "\n");
        }
    } else {
        for (uint32_t i = 0; i < nf->nlinks; i++) {
            const rb_net_link_fig_t *l = &nf->links[i];
            if (l->slow || l->status || l->asymmetric)
                fprintf(f, "  link %s -> %s  %.3f Gbit/s%s%s%s\n", rb_report_net_node(a, l->from),
                        rb_report_net_node(a, l->to), l->gbps, l->slow ? "  slow" : "",
                        l->asymmetric ? "  asymmetric" : "", l->status ? "  FAILED" : "");
        }
    }
    fprintf(f, "  %-*s %12s %12s %10s %13s %16s\n", w, "node", "out Gbit/s", "in Gbit/s",
            "CPU cores", "cores/Gbit/s", "TCP retransmits");
    for (uint32_t r = 0; r < a->nnodes && r < nf->nnodes; r++) {
        const rb_net_node_fig_t *n = &nf->nodes[r];
        char cpu[32] = "-", per[32] = "-";
        if (n->cpu_cores >= 0)
            snprintf(cpu, sizeof cpu, "%.2f", n->cpu_cores);
        if (s_cpu_per_gbps(n) >= 0)
            snprintf(per, sizeof per, "%.3f", s_cpu_per_gbps(n));
        fprintf(f, "  %-*s %12.3f %12.3f %10s %13s %16" PRIu64 "\n", w, rb_report_net_node(a, r),
                n->out_gbps, n->in_gbps, cpu, per, n->retrans);
    }
    for (uint32_t i = 0; i < nf->nlinks; i++)
        if (nf->links[i].status)
            fprintf(f, "  link %s -> %s FAILED: %s\n", rb_report_net_node(a, nf->links[i].from),
                    rb_report_net_node(a, nf->links[i].to), nf->links[i].error);
    for (uint32_t r = 0; r < a->nnodes && r < nf->nnodes; r++)
        if (nf->nodes[r].refused)
            fprintf(f, "  REFUSED  %s's data port turned away %" PRIu64 " connection%s: %s\n",
                    rb_report_net_node(a, r), nf->nodes[r].refused,
                    nf->nodes[r].refused == 1 ? "" : "s", nf->nodes[r].refused_by);
    return 0;
}
