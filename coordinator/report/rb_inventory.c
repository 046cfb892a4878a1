/* Inventory cells: one place that says how a device of a node's HELLO is
 * shown, so that report.txt and report.html agree. */
#include "rb_inventory.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const rb_inv_heads[RB_INV_NCOLS] = {
    [RB_INV_NODE] = "node",     [RB_INV_DEVICE] = "device", [RB_INV_MODEL] = "model",
    [RB_INV_SERIAL] = "serial", [RB_INV_FIRMWARE] = "fw",   [RB_INV_SIZE] = "size",
    [RB_INV_ROT] = "rot",       [RB_INV_BLOCK] = "lbs/pbs", [RB_INV_SCHED] = "scheduler",
    [RB_INV_RA] = "ra KiB",     [RB_INV_QUEUE] = "nr/qd",   [RB_INV_ACCESS] = "may",
};

int rb_inv_numeric(int col)
{
    return col == RB_INV_SIZE || col == RB_INV_BLOCK || col == RB_INV_RA || col == RB_INV_QUEUE;
}

static void s_cell(char *c, const char *v)
{
    snprintf(c, RB_INV_CELL, "%s", v && v[0] ? v : "-");
}

void rb_inv_cells(const char *node, const rb_dev_id_t *d, rb_units_style_t st,
                  char cells[RB_INV_NCOLS][RB_INV_CELL])
{
    char model[2 * RB_NAME_MAX + 2];
    snprintf(model, sizeof model, "%s%s%s", d->vendor[0] && d->vendor[0] != '0' ? d->vendor : "",
             d->vendor[0] && d->vendor[0] != '0' && d->model[0] ? " " : "", d->model);
    s_cell(cells[RB_INV_NODE], node);
    s_cell(cells[RB_INV_DEVICE], d->path);
    s_cell(cells[RB_INV_MODEL], model);
    s_cell(cells[RB_INV_SERIAL], d->serial);
    s_cell(cells[RB_INV_FIRMWARE], d->firmware);
    rb_units_fmt_size_in(cells[RB_INV_SIZE], RB_INV_CELL, (double)d->size, st);
    s_cell(cells[RB_INV_ROT], d->rotational ? "yes" : "no");
    snprintf(cells[RB_INV_BLOCK], RB_INV_CELL, "%u/%u", d->lbs, d->pbs);
    s_cell(cells[RB_INV_SCHED], d->scheduler);
    snprintf(cells[RB_INV_RA], RB_INV_CELL, "%u", d->read_ahead_kb);
    if (d->queue_depth)
        snprintf(cells[RB_INV_QUEUE], RB_INV_CELL, "%u/%u", d->nr_requests, d->queue_depth);
    else
        snprintf(cells[RB_INV_QUEUE], RB_INV_CELL, "%u/-", d->nr_requests);
    s_cell(cells[RB_INV_ACCESS], d->access == RB_DEV_WRITE  ? "write"
                                 : d->access == RB_DEV_READ ? "read"
                                                            : "no");
}

const char *rb_inv_note(const rb_dev_id_t *d)
{
    return strcmp(d->use, "not allowed") ? d->use : "";
}

/* 1 when devices of cells a and b are alike (all but node, device, serial). */
static int s_alike(char a[RB_INV_NCOLS][RB_INV_CELL], char b[RB_INV_NCOLS][RB_INV_CELL])
{
    for (int k = 0; k < RB_INV_NCOLS; k++)
        if (k != RB_INV_NODE && k != RB_INV_DEVICE && k != RB_INV_SERIAL && strcmp(a[k], b[k]))
            return 0;
    return 1;
}

static int s_access_rank(const char *may)
{
    return !strcmp(may, "write") ? 0 : !strcmp(may, "read") ? 1 : 2;
}

static int s_group_cmp(const void *x, const void *y)
{
    const rb_inv_group_t *a = x, *b = y;
    int ra = s_access_rank(a->cells[RB_INV_ACCESS]), rb = s_access_rank(b->cells[RB_INV_ACCESS]);
    if (ra != rb)
        return ra - rb;
    return (a->count < b->count) - (a->count > b->count);
}

int rb_inv_untouchable(const rb_inv_group_t *g)
{
    return strcmp(g->cells[RB_INV_ACCESS], "no") == 0;
}

int rb_inv_groups(const rb_report_node_t *nodes, uint32_t nnodes, rb_units_style_t st,
                  rb_inv_group_t **out, uint32_t *n, rb_inv_tally_t *t)
{
    memset(t, 0, sizeof *t);
    char c[RB_INV_NCOLS][RB_INV_CELL];
    rb_inv_group_t *g = NULL;
    uint32_t ng = 0, cap = 0;
    *out = NULL;
    *n = 0;
    for (uint32_t i = 0; i < nnodes; i++) {
        const rb_host_t *h = nodes[i].hw;
        for (uint32_t d = 0; h && d < h->ndevs; d++) {
            rb_dev_id_t tmp;
            const rb_dev_id_t *dev = rb_host_dev(h, d, &tmp);
            rb_inv_cells(nodes[i].name, dev, st, c);
            uint32_t k = 0;
            const char *note = rb_inv_note(dev);
            while (k < ng && (!s_alike(g[k].cells, c) || strcmp(g[k].note, note)))
                k++;
            if (k == ng) {
                if (ng == cap) {
                    cap = cap ? 2 * cap : 16;
                    rb_inv_group_t *m = realloc(g, cap * sizeof *g);
                    if (!m) {
                        free(g);
                        return -ENOMEM;
                    }
                    g = m;
                }
                memset(&g[ng], 0, sizeof g[ng]);
                memcpy(g[ng].cells, c, sizeof c);
                snprintf(g[ng].note, sizeof g[ng].note, "%s", note);
                g[ng].last_node = i;
                ng++;
            }
            rb_inv_group_t *x = &g[k];
            x->nodes += !x->count || x->last_node != i;
            x->last_node = i;
            x->count++;
        }
    }
    for (uint32_t k = 0; k < ng; k++) {
        t->devices += g[k].count;
        if (rb_inv_untouchable(&g[k])) {
            t->untouchable += g[k].count;
            t->untouchable_groups++;
        }
        if (g[k].nodes > 1)
            snprintf(g[k].cells[RB_INV_NODE], RB_INV_CELL, "%u nodes", g[k].nodes);
        if (g[k].count > 1) {
            snprintf(g[k].cells[RB_INV_DEVICE], RB_INV_CELL, "%u devices", g[k].count);
            if (strcmp(g[k].cells[RB_INV_SERIAL], "-"))
                snprintf(g[k].cells[RB_INV_SERIAL], RB_INV_CELL, "%u serials", g[k].count);
        }
    }
    if (ng > 1)
        qsort(g, ng, sizeof *g, s_group_cmp);
    *out = g;
    *n = ng;
    return 0;
}
