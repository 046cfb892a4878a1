/* IO500's scores from a run whose phases carry IO500's names (as
 * deploy/plans/io500.ini names them): the bandwidth score, the geometric
 * mean of the four ior phases in GiB/s; the metadata score, the geometric
 * mean of the mdtest phases and find in kIOPS (find: the steps
 * mdtest-easy.find and mdtest-hard.find, files examined over their time
 * together); the total, the geometric mean of both.
 * Pure arithmetic over the aggregated phases. */
#ifndef RB_IO500_H
#define RB_IO500_H

#include <stdint.h>

#include "rb_aggregate.h"
#include "rb_proto.h"

#define RB_IO500_NBW  4 /* ior phases */
#define RB_IO500_NMD  8 /* mdtest phases and find */
#define RB_IO500_FIND 2 /* find's place among them, IO500's order */

typedef struct rb_io500 {
    double bw[RB_IO500_NBW]; /* GiB/s of each ior phase, IO500's order */
    double md[RB_IO500_NMD]; /* kIOPS of each mdtest phase and find, IO500's order */
    uint64_t examined;       /* find: files examined in both folders (its ops) */
    uint64_t found;          /* find: of them, those that matched */
    double find_s;           /* find: the time of both its phases */
    double bw_score;         /* geometric mean of bw, GiB/s */
    double md_score;         /* geometric mean of md, kIOPS */
    double score;            /* geometric mean of the two */
    double stonewall_s;      /* the shortest stonewall of the write phases (0: none) */
    int valid;               /* a 300 s stonewall and find found files; see why */
    const char *why;         /* why the result is not a valid submission ("" valid) */
} rb_io500_t;

/* IO500's name of ior phase i / mdtest phase i (ior-easy-write ...), and
 * the rackbench phase name standing for it (find: both, joined by '+'). */
const char *rb_io500_bw_name(uint32_t i, int rackbench);
const char *rb_io500_md_name(uint32_t i, int rackbench);

/* Fills out from the n phases (specs beside them) when every one of IO500's
 * phases is there, by name, and ran with no error. 1 then, else 0. */
int rb_io500_compute(const rb_phase_agg_t *phases, const rb_phase_spec_t *specs, uint32_t n,
                     rb_io500_t *out);

#endif
