/* Inventory cells: one place that says how a device of a node's HELLO is
 * shown, so that report.txt and report.html agree. */
#include "rb_inventory.h"

#include <stdio.h>
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
