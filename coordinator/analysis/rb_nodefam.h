/* Nodes of the same hardware (CPU model, cores, RAM, NIC speeds, disks by
 * model and size, from their HELLO) as families, and the out-of-family
 * finding for a node well below the median of its family in a phase. */
#ifndef RB_NODEFAM_H
#define RB_NODEFAM_H

#include <stddef.h>

#include "rb_aggregate.h"
#include "rb_proto.h"

/* Node hw's hardware in one line, the same for nodes alike: "AMD EPYC, 2
 * cores, 24 GiB RAM, NICs 25000 Mb/s x2, disks 3 x ST8000NM0055 7.3 TiB". */
void rb_nodefam_key(const rb_host_t *hw, char *out, size_t len);

/* Adds an out-of-family finding for each node of a (hw[i]: the HELLO of
 * a->nodes[i], NULL unknown) below the median bandwidth of its family's
 * nodes by the disks' rule (rb_disks_below_family), in families of
 * RB_DISK_FAMILY_MIN nodes or more. Only when the run has nodes of two
 * kinds of hardware or more: among nodes all alike the straggler finding
 * says the same. 0 or -ENOMEM. */
int rb_nodefam_findings(rb_phase_agg_t *a, const rb_host_t *const *hw);

#endif
