/* The devices of the nodes' inventory (their HELLO) as table cells, the
 * same for report.txt and report.html: who each disk is (model, serial,
 * firmware, size), how the kernel queues it and what the agent may do. */
#ifndef RB_INVENTORY_H
#define RB_INVENTORY_H

#include "rb_proto.h"
#include "rb_report.h"
#include "rb_units.h"

enum {
    RB_INV_NODE,
    RB_INV_DEVICE,
    RB_INV_MODEL,
    RB_INV_SERIAL,
    RB_INV_FIRMWARE,
    RB_INV_SIZE,
    RB_INV_ROT,
    RB_INV_BLOCK,
    RB_INV_SCHED,
    RB_INV_RA,
    RB_INV_QUEUE,
    RB_INV_ACCESS,
    RB_INV_NCOLS
};

#define RB_INV_CELL 48

/* Column headings. */
extern const char *const rb_inv_heads[RB_INV_NCOLS];

/* Whether a column holds numbers (right-aligned). */
int rb_inv_numeric(int col);

/* The cells of device d of node, sizes in st; "-" where sysfs said nothing. */
void rb_inv_cells(const char *node, const rb_dev_id_t *d, rb_units_style_t st,
                  char cells[RB_INV_NCOLS][RB_INV_CELL]);

/* What a row adds below it: why the device may not be used or written, ""
 * when nothing ("not allowed" alone is the access column's "no"). */
const char *rb_inv_note(const rb_dev_id_t *d);

/* Devices alike on any nodes, one group: every cell and the note the
 * same but node, device and serial. */
typedef struct rb_inv_group {
    char cells[RB_INV_NCOLS][RB_INV_CELL]; /* node: "local-1" or "4 nodes"; device: the
                                              path, or "8 devices"; serial: "-" or "8 serials" */
    char note[RB_REASON_MAX];              /* its devices' note ("" none) */
    uint32_t count;                        /* devices */
    uint32_t nodes;                        /* nodes that have one */
    uint32_t last_node;                    /* (while grouping) the last node counted */
} rb_inv_group_t;

/* What the groups hold: devices in all, and those the agents may not
 * touch (access "no") and in how many groups. */
typedef struct rb_inv_tally {
    uint32_t devices, untouchable, untouchable_groups;
} rb_inv_tally_t;

/* The devices of nodes[0 .. nnodes-1] in groups (*out, caller frees; NULL
 * when there are none): those the agents may write first, then read, then
 * none, and within each the largest group first; their tally into t. 0 or
 * -ENOMEM. */
int rb_inv_groups(const rb_report_node_t *nodes, uint32_t nnodes, rb_units_style_t st,
                  rb_inv_group_t **out, uint32_t *n, rb_inv_tally_t *t);

/* 1 when the agents may not touch the devices of group g. */
int rb_inv_untouchable(const rb_inv_group_t *g);

#endif
