/* Did any drive get worse? Each node's disk health readings before the run
 * and after it (READY's and END's, protocol 27), paired by device, their
 * counters compared: a counter that grew, a spare that fell below the
 * drive's threshold, a drive whose own verdict is failing makes the drive
 * worse, and a `drive-health` finding (issue 36). */
#ifndef RB_DRIVES_H
#define RB_DRIVES_H

#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include "rb_accept_result.h"
#include "rb_json.h"
#include "rb_jw.h"
#include "rb_report.h"

/* The counters whose growth makes a drive worse, in the order reports list them. */
typedef enum {
    RB_HC_REALLOCATED = 0,  /* reallocated sectors (ATA 5), grown defects (SCSI) */
    RB_HC_PENDING,          /* pending sectors (ATA 197) */
    RB_HC_OFFLINE_UNC,      /* offline uncorrectable (ATA 198) */
    RB_HC_CRC_ERRORS,       /* interface CRC errors (ATA 199) */
    RB_HC_MEDIA_ERRORS,     /* NVMe media and integrity errors; SCSI uncorrected errors */
    RB_HC_ERROR_LOG,        /* error log entries (ATA, NVMe) */
    RB_HC_CRITICAL_WARNING, /* NVMe critical warning bits */
    RB_HC_PERCENTAGE_USED,  /* NVMe endurance used, % */
    RB_HC_COUNT
} rb_health_counter_t;

/* "reallocated", "pending", "offline_uncorrectable", "crc_errors", "media_errors",
 * "error_log", "critical_warning", "percentage_used": summary.json's keys. */
const char *rb_health_counter_name(rb_health_counter_t c);

/* Counter c of h; RB_HEALTH_NA when the drive does not report it. */
uint64_t rb_health_counter(const rb_health_t *h, rb_health_counter_t c);

typedef enum {
    RB_DRIVE_OK = 0,   /* read before and after, nothing worse */
    RB_DRIVE_WORSE,    /* a counter grew, or the spare fell below its threshold */
    RB_DRIVE_FAILING,  /* the drive's own verdict is failing (whether or not it got worse) */
    RB_DRIVE_NOT_READ, /* no counters came: reason says why */
} rb_drive_status_t;

/* "ok", "worse", "failing", "not read". */
const char *rb_drive_status_name(rb_drive_status_t s);

typedef struct rb_drive {
    const char *node;                  /* its node's name (borrowed from the run's nodes) */
    const rb_health_t *before, *after; /* borrowed; NULL: that reading did not come */
    rb_drive_status_t status;
    uint32_t grew;      /* bit (1 << rb_health_counter_t) for each counter that grew */
    int spare_low;      /* the spare after the run is at or below its threshold */
    const char *reason; /* not read: why ("" else; its reading's, a constant or owned by d's
                           list: a fleet's drives cost 48 bytes each, not 360) */
    char *owned;        /* the reason when it was made for this drive (freed with the list) */
} rb_drive_t;

typedef struct rb_drives {
    uint32_t n;       /* drives, the failing and worse first, then ok, then not read */
    rb_drive_t *d;    /* owned */
    uint32_t nread;   /* drives with counters before and after */
    uint32_t nworse;  /* worse or failing */
    uint32_t nunread; /* not read, though of a kind that has SMART (not loop, virtio, dm, md) */
    uint32_t nbefore; /* read before the run */
    uint32_t nafter;  /* with a reading after it (counters or a reason) */
    uint32_t nsilent; /* nodes that sent no reading (an agent before 27, --no-health,
                         or no disk under its roots) */
} rb_drives_t;

/* The drives of r's nodes, compared. Borrowing r's readings, which must
 * outlive out. 0, or -ENOMEM. */
int rb_drives_build(const rb_run_result_t *r, rb_drives_t *out);

/* Frees what d owns; safe twice. */
void rb_drives_fini(rb_drives_t *d);

/* What got worse, for people: "reallocated 0 -> 8, pending 0 -> 2", "verdict
 * FAILED", "spare 9% (threshold 10%)"; into buf, returned ("" when nothing). */
char *rb_drive_evidence(const rb_drive_t *d, char *buf, size_t len);

/* Whether r's reports have a drive health part: a node of protocol 27 or
 * later (its agent reads health, or says why not), or readings. */
int rb_drives_shown(const rb_run_result_t *r);

/* A reading with counters: the disk was read (h may be NULL). */
int rb_health_has_counters(const rb_health_t *h);

#define RB_DRIVE_NAME_MAX (RB_NAME_MAX + 128 + 2 * RB_NAME_MAX + 32)

/* "node1 /dev/sda (MODEL, serial S)" ("model unknown", "unknown"), without
 * the serial when serial is 0; into buf, returned. */
char *rb_drive_name(const char *node, const rb_health_t *h, int serial, char *buf, size_t len);

/* Counter c of d as reports show it: "0" + arrow + "8" where it grew, its
 * value after the run (else before), "-" when the drive does not report it;
 * into buf, returned. */
char *rb_drive_cell(const rb_drive_t *d, rb_health_counter_t c, const char *arrow, char *buf,
                    size_t len);

/* The reading reports show for d: after, else before. */
const rb_health_t *rb_drive_last(const rb_drive_t *d);

/* Why d was not read, without the device smartctl names first
 * ("/dev/loop3: Unable to ..." -> "Unable to ..."): the same for every disk
 * of a kind, which reports say once for all of them. */
const char *rb_drive_kind(const rb_drive_t *d);

/* The end of the group of drives from d->d[i] on: drives not read for the
 * same reason (rb_drive_kind), which rb_drives_build sorts together; i + 1
 * for any other. */
uint32_t rb_drives_group_end(const rb_drives_t *d, uint32_t i);

/* summary.json's "drive_health" for r (nothing for a run whose agents
 * predate protocol 27 and sent no reading). 0, or -ENOMEM. */
int rb_drives_json(rb_jw_t *w, const rb_run_result_t *r);

/* report.txt's "Drive health" part for r: the drives read, the worse
 * first and then at most 8 ok ones (the rest counted), each counter as it
 * was after the run (before->after where it
 * grew), a FINDING line for each worse drive, and why the others were not
 * read. 0, or -ENOMEM. */
int rb_drives_text(FILE *f, const rb_run_result_t *r);

/* The acceptance checks of the run's drives (max_reallocated_growth,
 * max_pending_growth, max_media_errors_growth, max_drive_temperature,
 * require_smart_pass) of every set of a, judged on r's drives and appended
 * to acc as rows of the phase "drives": the worst drive measured and, when
 * it fails, named (node, device, model, serial). A drive that has SMART
 * but was not read fails the check (not judged is not passed); a run whose
 * disks all have none (loop, virtio: the virtual rack) makes it not
 * applicable, as does a counter no drive read reports. 0, or -ENOMEM. */
int rb_drives_accept(const rb_accept_t *a, const rb_run_result_t *r, rb_accept_result_t *acc);

/* summary.json's "drive_health" (dh, NULL: none) read back into the nodes'
 * readings, which then point into *owned (the caller frees it). 0, or
 * -ENOMEM. */
int rb_drives_read(const rb_json_t *dh, rb_report_node_t *nodes, uint32_t nnodes,
                   rb_health_t **owned);

#endif
