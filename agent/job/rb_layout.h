/* Which files a plan touches on this agent, how large each gets, and which
 * must be laid out before GO because a phase reads (or rewrites) them before
 * any earlier phase has written them. */
#ifndef RB_LAYOUT_H
#define RB_LAYOUT_H

#include <stdint.h>

#include "rb_err.h"
#include "rb_job.h"
#include "rb_prefill.h"
#include "rb_proto.h"

#define RB_LAYOUT_MAX_FILES (1u << 22) /* file uses per plan and agent */

typedef struct rb_layout rb_layout_t;

/* One file to lay out before GO. */
typedef struct rb_layout_item {
    int rundir;                 /* sandbox run folder */
    char name[RB_NAME_MAX * 2]; /* file name inside it */
    rb_prefill_t pf;            /* how */
} rb_layout_item_t;

/* Walks the plan (RB_JOB_RUNDIR(rundirs[p], j, k) is the run folder of
 * directory k of job j of phase p). NULL with
 * err set on -ENOMEM / -E2BIG / a bad file name. */
rb_layout_t *rb_layout_new(const rb_msg_plan_t *pl, int *const *rundirs, const char *run_id,
                           rb_err_t *err);

/* Frees; nulls *p; safe on NULL. */
void rb_layout_destroy(rb_layout_t **p);

/* Bytes the plan's files need in run folder rundir (each file at its largest). */
uint64_t rb_layout_need(const rb_layout_t *l, int rundir);

/* Files to lay out before GO, in plan order. */
uint32_t rb_layout_count(const rb_layout_t *l);
const rb_layout_item_t *rb_layout_item(const rb_layout_t *l, uint32_t i);

#endif
