/* IO500's scores from a run whose phases carry IO500's names (as
 * deploy/plans/io500.ini names them): the bandwidth score, the geometric
 * mean of the four ior phases in GiB/s; the metadata score, the geometric
 * mean of the mdtest phases in kIOPS; the total, the geometric mean of both.
 * Pure arithmetic over the aggregated phases. */
#ifndef RB_IO500_H
#define RB_IO500_H

#include <stdint.h>

#include "rb_aggregate.h"
#include "rb_proto.h"

#define RB_IO500_NBW 4 /* ior phases */
#define RB_IO500_NMD 7 /* mdtest phases (IO500's find is not among them) */

typedef struct rb_io500 {
    double bw[RB_IO500_NBW]; /* GiB/s of each ior phase, IO500's order */
    double md[RB_IO500_NMD]; /* kIOPS of each mdtest phase, IO500's order */
    double bw_score;         /* geometric mean of bw, GiB/s */
    double md_score;         /* geometric mean of md, kIOPS */
    double score;            /* geometric mean of the two */
    double stonewall_s;      /* the shortest stonewall of the write phases (0: none) */
    int valid;               /* 0 always: find is missing; see why */
    const char *why;         /* why the result is not a valid submission */
} rb_io500_t;

/* IO500's name of ior phase i / mdtest phase i (ior-easy-write ...), and
 * the rackbench phase name standing for it. */
const char *rb_io500_bw_name(uint32_t i, int rackbench);
const char *rb_io500_md_name(uint32_t i, int rackbench);

/* Fills out from the n phases (specs beside them) when every one of IO500's
 * phases is there, by name, and ran with no error. 1 then, else 0. */
int rb_io500_compute(const rb_phase_agg_t *phases, const rb_phase_spec_t *specs, uint32_t n,
                     rb_io500_t *out);

#endif
