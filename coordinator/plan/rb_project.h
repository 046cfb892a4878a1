/* The unit under test as a plan's [capacity] section describes it (disks,
 * RAID layout, height, what df shows): reading, the RAID model, resolving
 * and printing. What N racks of it would deliver after a run is
 * rb_project_result.h (docs/projection.md). */
#ifndef RB_PROJECT_H
#define RB_PROJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rb_err.h"
#include "rb_proto.h"

#define RB_PROJECT_ONE        1000000u /* fs_overhead and derate are millionths of this */
#define RB_PROJECT_SOURCE_MAX 320      /* a line's source, a model in words */

/* RAID layouts of a group; see rb_project_raid_parity for the model. */
typedef enum {
    RB_RAID0 = 0,
    RB_RAID1,
    RB_RAID10,
    RB_RAID5,
    RB_RAID6,
    RB_RAIDZ1,
    RB_RAIDZ2,
    RB_RAIDZ3,
    RB_RAID_NLEVELS
} rb_raid_t;

/* The keys of [capacity], in the order they are printed. */
typedef enum {
    RB_CAP_DISKS = 0,       /* disks in a unit */
    RB_CAP_DISK_SIZE,       /* bytes of one disk, as sold (decimal) */
    RB_CAP_RAID,            /* layout of each group */
    RB_CAP_RAID_GROUP,      /* disks in a group, its hot spares included */
    RB_CAP_HOT_SPARES,      /* hot_spares_per_group */
    RB_CAP_FS_OVERHEAD,     /* share lost to the file system, millionths */
    RB_CAP_USABLE_PER_UNIT, /* bytes df shows on a real unit */
    RB_CAP_UNIT_HEIGHT_U,   /* rack units of one unit */
    RB_CAP_RACK_HEIGHT_U,   /* rack units usable in a rack */
    RB_CAP_UNITS_PER_RACK,  /* units in a rack */
    RB_CAP_DERATE,          /* share of measured throughput to plan with, millionths */
    RB_CAP_TARGET_CAPACITY, /* bytes wanted */
    RB_CAP_TARGET_BW,       /* bytes/s wanted */
    RB_CAP_TARGET_IOPS,     /* IO operations a second wanted */
    RB_CAP_PHASES,          /* which phases give throughput figures */
    RB_CAP_NKEYS
} rb_cap_key_t;

/* One [capacity] section. Values are kept exactly as written, in bytes,
 * bytes/s or millionths; a key whose line is 0 was not given. The model's
 * figures are derived once the section ends. */
typedef struct rb_project {
    char *source;                    /* names the plan in messages (owned) */
    unsigned line;                   /* line of [capacity]; 0 before it is read */
    unsigned key_line[RB_CAP_NKEYS]; /* line of each key; 0: not given */
    uint64_t disks;                  /* disks= */
    uint64_t disk_size;              /* disk_size=, bytes */
    rb_raid_t raid;                  /* raid= */
    uint64_t raid_group;             /* raid_group=, hot spares included (default: disks) */
    uint64_t hot_spares;             /* hot_spares_per_group= (default 0) */
    uint64_t fs_overhead_ppm;        /* fs_overhead=, millionths (8% = 80000) */
    uint64_t usable_per_unit;        /* usable_per_unit=, bytes */
    uint64_t unit_height_u;          /* unit_height_u= */
    uint64_t rack_height_u;          /* rack_height_u= */
    uint64_t units_per_rack;         /* units_per_rack=, or rack / unit height; 0: unknown */
    uint64_t derate_ppm;             /* derate=, millionths (0.5 = 500000); 0 when absent */
    uint64_t target_capacity;        /* target_capacity=, bytes */
    uint64_t target_bw;              /* target_bw=, bytes/s */
    uint64_t target_iops;            /* target_iops=, operations a second */
    char *phases_text;               /* phases= as written (owned); NULL: every data phase */
    uint32_t nphases;                /* phases measured, once resolved ... */
    uint32_t *phases;                /* ... their indexes in the plan, ascending (owned) */
    /* the RAID model, when disks, disk_size and raid are given */
    int has_model;             /* 1 when the model below is filled */
    uint64_t groups;           /* disks / raid_group */
    uint64_t parity_per_group; /* disks of a group's array that hold redundancy */
    uint64_t data_disks;       /* groups x (raid_group - hot_spares - parity_per_group) */
    uint64_t unused_disks;     /* disks - groups x raid_group */
} rb_project_t;

/* A new, empty description for the plan named source; NULL when out of memory. */
rb_project_t *rb_project_new(const char *source);

/* Frees a description and nulls the pointer; safe on NULL and twice. */
void rb_project_destroy(rb_project_t **p);

/* 1 when section (a header's text, trimmed, without brackets) is "capacity". */
int rb_project_section(const char *section);

/* Starts the [capacity] section read at line: -EINVAL when the plan has had
 * one already, with err->msg "SOURCE:LINE: what is wrong". */
int rb_project_begin(rb_project_t *p, unsigned line, rb_err_t *err);

/* Reads key=val (val NULL for a bare word) at line. Returns 0, -EINVAL
 * naming the key and the line, or -ENOMEM. */
int rb_project_option(rb_project_t *p, const char *key, const char *val, unsigned line,
                      rb_err_t *err);

/* Ends the section: checks the keys against each other and derives the
 * RAID model and units per rack. 0 or -EINVAL. */
int rb_project_end(rb_project_t *p, rb_err_t *err);

/* Once the plan's phases are known, maps phases= to phase indexes (a phase
 * name or a job name; metadata steps are refused) or takes every data
 * phase. 0, -EINVAL or -ENOMEM. */
int rb_project_resolve(rb_project_t *p, const rb_phase_spec_t *phases, uint32_t nphases,
                       rb_err_t *err);

/* Writes the section normalised (sizes exact, decimal units as TB, binary
 * as TiB; phases by phase name), with the derived model in comments;
 * parsing it back gives the same section. Returns 0 or -EIO. */
int rb_project_print(const rb_project_t *p, const rb_phase_spec_t *phases, uint32_t nphases,
                     FILE *f);

/* Parity (or mirror) disks in an array of n disks of layout r: raid0 0,
 * raid1 and raid10 n/2, raid5 and raidz1 1, raid6 and raidz2 2, raidz3 3. */
uint64_t rb_project_raid_parity(rb_raid_t r, uint64_t n);

/* "raid6", ...; "?" when out of range. */
const char *rb_project_raid_name(rb_raid_t r);

/* The key's name in the plan and in summary.json ("disks", "fs_overhead");
 * "?" when out of range. */
const char *rb_project_key_name(rb_cap_key_t k);

/* Millionths as a fixed-point number without trailing zeros into buf: with
 * pct a percentage ("8%", "2.5%"), else a fraction of 1 ("0.5"); returns buf. */
const char *rb_project_fixed_text(char *buf, size_t len, uint64_t millionths, bool pct);

/* v with three significant digits and a unit of powers of 1000 (1024 when
 * binary) followed by per: "568 TB", "1.50 GB/s"; "-" for NAN. Returns buf. */
const char *rb_project_human(char *buf, size_t len, double v, bool binary, const char *per);

/* The RAID model of p in words ("raid6: 3 groups of 16 = 1 hot spare + 2
 * parity + 13 data disks; ..."), for sources and comments. Returns buf. */
const char *rb_project_model_words(char *buf, size_t len, const rb_project_t *p);

#endif
