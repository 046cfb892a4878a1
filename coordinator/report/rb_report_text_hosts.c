/* report.txt's lines about the hosts, before the phases: what hardware
 * the nodes run on, and which nodes share a device (their device rows are
 * the device's counters, not each node's). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_names.h"
#include "rb_report_text_int.h"
#include "rb_inventory.h"

#define S_INV_WIDEST 20 /* a longer cell is cut to this, so that a row stays in 120 columns */
#include "rb_text.h"
#include "rb_units.h"

/* A device one node reported in a phase, and the host the node runs on. */
typedef struct s_use {
    const char *host, *dev;
    uint32_t node; /* in r->nodes */
} s_use_t;

static int s_use_cmp(const void *x, const void *y)
{
    const s_use_t *a = x, *b = y;
    int c = strcmp(a->host, b->host);
    if (!c)
        c = strcmp(a->dev, b->dev);
    return c ? c : (a->node > b->node) - (a->node < b->node);
}

/* The nodes of us (n entries) for people: "all 4 nodes (a, b, c, d)",
 * "all 16 nodes", "nodes a, c", or "nodes a, b, c and 5 more". */
static void s_use_nodes(char *buf, size_t len, const rb_run_result_t *r, const s_use_t *us,
                        size_t n)
{
    size_t o = 0, shown = n <= 4 ? n : 3;
    int all = n == r->nnodes;
    if (all && n > 4) {
        snprintf(buf, len, "all %zu nodes", n);
        return;
    }
    int w = all ? snprintf(buf, len, "all %zu nodes (", n) : snprintf(buf, len, "nodes ");
    o = w > 0 ? (size_t)w : 0;
    for (size_t k = 0; k < shown && o < len; k++) {
        w = snprintf(buf + o, len - o, "%s%s", k ? ", " : "", r->nodes[us[k].node].name);
        o += w > 0 ? (size_t)w : 0;
    }
    if (o < len)
        snprintf(buf + o, len - o, "%s", all ? ")" : "");
    if (!all && shown < n && o < len)
        snprintf(buf + o, len - o, " and %zu more", n - shown);
}

/* Nodes on one host that report the same device (local agents on one
 * disk): each node's row shows the whole device's counters, said once for
 * the run. 0 or -ENOMEM. */
int rb_report_text_shared(FILE *f, const rb_run_result_t *r)
{
    size_t n = 0, cap = 0;
    for (uint32_t p = 0; p < r->nphases; p++)
        cap += r->phases[p].ndevs;
    if (!cap)
        return 0;
    s_use_t *us = calloc(cap, sizeof *us);
    rb_names_array_t by_name;
    if (!us || rb_names_array_build(&by_name, r->nodes, sizeof *r->nodes,
                                    offsetof(rb_report_node_t, name), r->nnodes) < 0) {
        free(us);
        return -ENOMEM;
    }
    for (uint32_t p = 0; p < r->nphases; p++)
        for (uint32_t i = 0; i < r->phases[p].ndevs; i++) {
            const rb_agg_dev_t *d = &r->phases[p].devs[i];
            uint32_t k = rb_names_array_find(&by_name, d->node);
            if (k < r->nnodes && r->nodes[k].hostname[0])
                us[n++] = (s_use_t){r->nodes[k].hostname, d->device, k};
        }
    rb_names_array_fini(&by_name);
    qsort(us, n, sizeof *us, s_use_cmp);
    size_t m = 0; /* without repeats */
    for (size_t i = 0; i < n; i++)
        if (!m || s_use_cmp(&us[m - 1], &us[i]))
            us[m++] = us[i];
    /* groups of one host and device; the devices of one host and node set said together */
    size_t ng = 0, *g0 = calloc(m + 1, sizeof *g0);
    char(*who)[160] = calloc(m + 1, sizeof *who);
    if (!g0 || !who) {
        free(us);
        free(g0);
        free(who);
        return -ENOMEM;
    }
    for (size_t i = 0; i < m; i++)
        if (!i || strcmp(us[i].host, us[i - 1].host) || strcmp(us[i].dev, us[i - 1].dev))
            g0[ng++] = i;
    g0[ng] = m;
    for (size_t g = 0; g < ng; g++)
        if (g0[g + 1] - g0[g] > 1)
            s_use_nodes(who[g], sizeof who[g], r, &us[g0[g]], g0[g + 1] - g0[g]);
    for (size_t g = 0; g < ng; g++) {
        if (!who[g][0])
            continue;
        char devs[512], line[1024];
        size_t o = (size_t)snprintf(devs, sizeof devs, "%s", us[g0[g]].dev), ndev = 1;
        for (size_t h = g + 1; h < ng; h++) {
            if (!who[h][0] || strcmp(who[h], who[g]) || strcmp(us[g0[h]].host, us[g0[g]].host))
                continue;
            if (o < sizeof devs)
                o += (size_t)snprintf(devs + o, sizeof devs - o, ", %s", us[g0[h]].dev);
            ndev++;
            who[h][0] = '\0';
        }
        snprintf(line, sizeof line,
                 "%s share device%s %s (host %s): %s counters are the device%s, not each "
                 "node's",
                 who[g], ndev > 1 ? "s" : "", devs, us[g0[g]].host, ndev > 1 ? "their" : "its",
                 ndev > 1 ? "s'" : "'s");
        fprintf(f, "note: ");
        rb_text_wrap(f, line, 6, 6, RB_TEXT_WIDTH);
    }
    free(us);
    free(g0);
    free(who);
    return 0;
}

/* A node's hardware in one line (its kernel, CPU, cores, RAM, NICs, its
 * roots' file systems and disks), the nodes of one line said together. */
static void s_hw_line(char *buf, size_t len, const rb_report_node_t *n, rb_units_style_t st)
{
    const rb_host_t *h = n->hw;
    char ram[32];
    size_t o = 0;
    int w = snprintf(buf, len, "kernel %s, %s, %u cores, %s RAM", h->kernel[0] ? h->kernel : "?",
                     h->cpu_model[0] ? h->cpu_model : "CPU unknown", n->cores,
                     rb_units_fmt_size_in(ram, sizeof ram, (double)n->ram_bytes, st));
    o = w > 0 && (size_t)w < len ? (size_t)w : len - 1;
    for (uint32_t k = 0; k < h->nnics && o + 1 < len; k++) {
        w = snprintf(buf + o, len - o, "%s%s", k ? ", " : "; NICs ", h->nics[k].name);
        o += w > 0 ? (size_t)w : 0;
        if (h->nics[k].speed_mbps && o + 1 < len) {
            w = snprintf(buf + o, len - o, " %u Mb/s", h->nics[k].speed_mbps);
            o += w > 0 ? (size_t)w : 0;
        }
    }
    rb_root_info_t tmp;
    for (uint32_t k = 0; k < h->nroots && o + 1 < len; k++) {
        const rb_root_info_t *rt = rb_host_root(h, k, &tmp);
        char sz[32];
        w = snprintf(buf + o, len - o, "; %s %s %s (%s) on %s", rt->path,
                     rt->fs_type[0] ? rt->fs_type : "?",
                     rb_units_fmt_size_in(sz, sizeof sz, (double)rt->total_bytes, st),
                     rt->options[0] ? rt->options : "?", rt->source[0] ? rt->source : "?");
        o += w > 0 ? (size_t)w : 0;
        if (rt->dev_model[0] || rt->dev_serial[0]) {
            w = snprintf(buf + o, len - o, ", disk%s%s%s, serial %s", rt->dev_model[0] ? " " : "",
                         rt->dev_model, rt->dev_rotational ? " (rotational)" : "",
                         rt->dev_serial[0] ? rt->dev_serial : "unknown");
            o += w > 0 ? (size_t)w : 0;
        }
    }
}

/* A node's build for people: "0.1.0-600-gabc (protocol 24)". */
static void s_build_of(char *buf, size_t len, const rb_report_node_t *n)
{
    const char *b = n->build[0] ? n->build : n->version[0] ? n->version : "unknown";
    if (n->protocol)
        snprintf(buf, len, "%s (protocol %u)", b, n->protocol);
    else
        snprintf(buf, len, "%s", b);
}

int rb_report_text_builds(FILE *f, const rb_run_result_t *r)
{
    /* (a run folder of a build before protocol 24 says nothing of builds) */
    enum { L = RB_BUILD_MAX + 32 };
    char(*line)[L] = calloc(r->nnodes ? r->nnodes : 1, sizeof *line);
    uint8_t *done = calloc(r->nnodes ? r->nnodes : 1, 1);
    if (!line || !done) {
        free(line);
        free(done);
        return -ENOMEM;
    }
    uint32_t kinds = 0, known = 0;
    for (uint32_t i = 0; i < r->nnodes; i++)
        known += r->nodes[i].protocol != 0;
    for (uint32_t i = 0; known && i < r->nnodes; i++) {
        s_build_of(line[i], L, &r->nodes[i]);
        int seen = 0;
        for (uint32_t k = 0; k < i && !seen; k++)
            seen = !strcmp(line[k], line[i]);
        kinds += !seen;
    }
    if (kinds == 1) {
        char text[L + 64];
        snprintf(text, sizeof text, "build of %s%s: %s", r->nnodes == 1 ? "node " : "all nodes",
                 r->nnodes == 1 ? r->nodes[0].name : "", line[0]);
        rb_text_wrap(f, text, 0, 4, RB_TEXT_WIDTH);
    } else if (kinds > 1) {
        char text[2048];
        size_t o = (size_t)snprintf(text, sizeof text,
                                    "note: the nodes ran %u builds; their figures are side by "
                                    "side here:",
                                    kinds);
        for (uint32_t i = 0; i < r->nnodes && o + 1 < sizeof text; i++) {
            if (done[i])
                continue;
            uint32_t n = 0;
            o += (size_t)snprintf(text + o, sizeof text - o, "%s", i ? ";" : "");
            for (uint32_t k = i; k < r->nnodes && o + 1 < sizeof text; k++) {
                if (done[k] || strcmp(line[k], line[i]))
                    continue;
                done[k] = 1;
                if (n < 6)
                    o += (size_t)snprintf(text + o, sizeof text - o, "%s%s", n ? ", " : " ",
                                          r->nodes[k].name);
                n++;
            }
            if (o + 1 < sizeof text)
                o += (size_t)snprintf(text + o, sizeof text - o, "%s ran %s",
                                      n > 6 ? " and more" : "", line[i]);
        }
        rb_text_wrap(f, text, 0, 4, RB_TEXT_WIDTH);
    }
    free(line);
    free(done);
    return 0;
}

/* The nodes' hardware: one line for the nodes alike, naming them. */
int rb_report_text_hw(FILE *f, const rb_run_result_t *r)
{
    enum { L = 1024 };
    char(*line)[L] = calloc(r->nnodes ? r->nnodes : 1, sizeof *line);
    uint8_t *done = calloc(r->nnodes ? r->nnodes : 1, 1);
    if (!line || !done) {
        free(line);
        free(done);
        return -ENOMEM;
    }
    int any = 0;
    for (uint32_t i = 0; i < r->nnodes; i++)
        if (r->nodes[i].hw) {
            s_hw_line(line[i], L, &r->nodes[i], r->units);
            any = 1;
        }
    for (uint32_t i = 0; any && i < r->nnodes; i++) {
        if (!r->nodes[i].hw || done[i])
            continue;
        char who[160];
        uint32_t n = 0, shown = 0;
        size_t o = 0;
        for (uint32_t k = i; k < r->nnodes; k++) {
            if (!r->nodes[k].hw || done[k] || strcmp(line[k], line[i]))
                continue;
            done[k] = 1;
            if (shown < 4 && o + 1 < sizeof who) {
                int w = snprintf(who + o, sizeof who - o, "%s%s", n ? ", " : "", r->nodes[k].name);
                o += w > 0 ? (size_t)w : 0;
                shown++;
            }
            n++;
        }
        if (n > shown && o + 1 < sizeof who)
            snprintf(who + o, sizeof who - o, " and %u more", n - shown);
        char text[L + 200];
        snprintf(text, sizeof text, "hardware of %s%s: %s", n == 1 ? "" : "nodes ", who, line[i]);
        rb_text_wrap(f, text, 0, 4, RB_TEXT_WIDTH);
    }
    free(line);
    free(done);
    return 0;
}

/* The devices' table: a column's width from its cells (a cell longer than
 * S_INV_WIDEST is cut), its head, a row and its note. */
static void s_inv_width(int w[RB_INV_NCOLS], char c[RB_INV_NCOLS][RB_INV_CELL])
{
    for (int k = 0; k < RB_INV_NCOLS; k++) {
        int n = (int)strlen(c[k]);
        w[k] = n > w[k] && n <= S_INV_WIDEST ? n : w[k];
    }
}

static void s_inv_head(FILE *f, const int w[RB_INV_NCOLS])
{
    fputc(' ', f);
    for (int k = 0; k < RB_INV_NCOLS - 1; k++)
        fprintf(f, rb_inv_numeric(k) ? " %*s" : " %-*s", w[k], rb_inv_heads[k]);
    fprintf(f, " %s\n", rb_inv_heads[RB_INV_NCOLS - 1]);
}

static void s_inv_row(FILE *f, const int w[RB_INV_NCOLS], char c[RB_INV_NCOLS][RB_INV_CELL],
                      const char *note)
{
    fputc(' ', f);
    for (int k = 0; k < RB_INV_NCOLS - 1; k++)
        fprintf(f, rb_inv_numeric(k) ? " %*.*s" : " %-*.*s", w[k], w[k], c[k]);
    fprintf(f, " %s\n", c[RB_INV_NCOLS - 1]);
    if (note[0]) {
        fprintf(f, "%*s", 6, "");
        rb_text_wrap(f, note, 6, 6, RB_TEXT_WIDTH);
    }
}

static void s_inv_widths_init(int w[RB_INV_NCOLS])
{
    for (int k = 0; k < RB_INV_NCOLS; k++)
        w[k] = (int)strlen(rb_inv_heads[k]);
}

int rb_report_text_devices_grouped(FILE *f, const rb_run_result_t *r)
{
    rb_inv_group_t *g;
    rb_inv_tally_t t;
    uint32_t n;
    if (rb_inv_groups(r->nodes, r->nnodes, r->units, &g, &n, &t) < 0)
        return -ENOMEM;
    int w[RB_INV_NCOLS];
    s_inv_widths_init(w);
    for (uint32_t k = 0; k < n; k++)
        if (!rb_inv_untouchable(&g[k]))
            s_inv_width(w, g[k].cells);
    uint32_t devs = t.devices, hidden = t.untouchable, kinds = t.untouchable_groups;
    if (!devs) {
        free(g);
        return 0;
    }
    if (hidden == devs) {
        char line[256];
        snprintf(line, sizeof line,
                 "devices of the nodes: %u on %u node%s, of %u kind%s, none the agents may "
                 "touch (every device, with its serial, after the results)",
                 devs, r->nnodes, r->nnodes == 1 ? "" : "s", kinds, kinds == 1 ? "" : "s");
        rb_text_wrap(f, line, 0, 4, RB_TEXT_WIDTH);
        free(g);
        return 0;
    }
    char line[256];
    snprintf(line, sizeof line,
             "devices of the nodes: %u on %u node%s, alike ones on one line (every device, with "
             "its serial, after the results):",
             devs, r->nnodes, r->nnodes == 1 ? "" : "s");
    rb_text_wrap(f, line, 0, 4, RB_TEXT_WIDTH);
    s_inv_head(f, w);
    for (uint32_t k = 0; k < n; k++)
        if (!rb_inv_untouchable(&g[k]))
            s_inv_row(f, w, g[k].cells, g[k].note);
    if (hidden)
        fprintf(f, "  and %u device%s of %u kind%s the agents may not touch\n", hidden,
                hidden == 1 ? "" : "s", kinds, kinds == 1 ? "" : "s");
    free(g);
    return 0;
}

/* Every node's block devices from its inventory: who each disk is, how the
 * kernel queues it and whether the agent may read or write it. */
void rb_report_text_devices(FILE *f, const rb_run_result_t *r)
{
    int w[RB_INV_NCOLS], any = 0;
    char c[RB_INV_NCOLS][RB_INV_CELL];
    rb_dev_id_t tmp;
    s_inv_widths_init(w);
    for (uint32_t i = 0; i < r->nnodes; i++)
        for (uint32_t d = 0; r->nodes[i].hw && d < r->nodes[i].hw->ndevs; d++) {
            rb_inv_cells(r->nodes[i].name, rb_host_dev(r->nodes[i].hw, d, &tmp), r->units, c);
            s_inv_width(w, c);
            any = 1;
        }
    if (!any)
        return;
    fprintf(f, "\ninventory: every device of the nodes\n");
    s_inv_head(f, w);
    for (uint32_t i = 0; i < r->nnodes; i++) {
        const rb_host_t *h = r->nodes[i].hw;
        for (uint32_t d = 0; h && d < h->ndevs; d++) {
            const rb_dev_id_t *dev = rb_host_dev(h, d, &tmp);
            rb_inv_cells(r->nodes[i].name, dev, r->units, c);
            s_inv_row(f, w, c, rb_inv_note(dev));
        }
        if (h && h->ndevs_seen > h->ndevs)
            fprintf(f, "  %s: %u more devices than a HELLO carries\n", r->nodes[i].name,
                    h->ndevs_seen - h->ndevs);
    }
}
