/* fio's rate_min and rate_iops_min: a direction of a worker whose rate over
 * a cycle (rate_cycle) falls below its floor fails. As fio judges: nothing
 * in the first 2 s after the start (the end of ramp_time), then a first
 * reading that only sets the mark, then at the first IO at least a cycle
 * after the mark, the rate since the mark, bytes/s when a bytes' floor is
 * set, else IOs/s. Small and in the caller's memory: no allocation. */
#ifndef RB_MINRATE_H
#define RB_MINRATE_H

#include <stdint.h>

/* The settling time after the start before the first reading (fio's). */
#define RB_MINRATE_SETTLE_NS 2000000000ull

/* One direction's floor and its mark. Zero it, then set the floors. */
typedef struct rb_minrate {
    uint64_t min_bps;  /* bytes/s floor (0 = none) */
    uint64_t min_iops; /* IOs/s floor (0 = none); judged only without min_bps */
    uint64_t cycle_ns; /* the least time between two readings */
    uint64_t t_mark;   /* the last reading's time (0 = none yet) */
    uint64_t bytes;    /* the counters then */
    uint64_t ios;
} rb_minrate_t;

/* Judges a direction whose counters are bytes and ios (done since start)
 * at now (ns, the clock of start). 1 when its rate since the mark is below
 * the floor, *got then the rate (bytes/s or IOs/s, as the floor judged);
 * else 0, the mark moved when it was read. */
int rb_minrate_check(rb_minrate_t *m, uint64_t start, uint64_t now, uint64_t bytes, uint64_t ios,
                     uint64_t *got);

#endif
