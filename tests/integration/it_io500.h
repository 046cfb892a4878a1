/* What the integration tests check of an IO500 run's summary.json, on a
 * local rack, under MPI and on the GlusterFS lab alike. */
#ifndef IT_IO500_H
#define IT_IO500_H

#include "rb_json.h"

/* The phase of summary.json j named name; fails the test when there is none. */
const rb_json_t *it_phase(const rb_json_t *j, const char *name);

/* IO500's block of j checked against its phases, by hand: each phase's
 * figure (the ior phases' aggregate_bw in GiB/s, the mdtest phases' iops
 * and find's files examined over the time of both find steps, in kIOPS),
 * find's counts, the three scores as geometric means and the flag that a
 * lab run is not a valid submission. where names the run in what it prints. */
void it_check_io500(const rb_json_t *j, const char *where);

#endif
