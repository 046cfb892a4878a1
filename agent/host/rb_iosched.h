/* fio's ioscheduler: the IO scheduler of a block device a job uses, set
 * for a phase and put back as it was after it. */
#ifndef RB_IOSCHED_H
#define RB_IOSCHED_H

#include "rb_err.h"
#include "rb_limits.h"

/* What a device's scheduler was before a phase set it. */
typedef struct rb_iosched_saved {
    char path[RB_PATH_MAX]; /* its queue/scheduler in sysfs ("" when nothing was set) */
    char old[RB_SCHED_MAX]; /* the scheduler it had */
} rb_iosched_saved_t;

/* Sets the scheduler of block device dev (a partition's: its disk's) to
 * name, keeping the one it had in *saved. 0 or -errno with err set naming
 * the device and why (not a block device, no scheduler, not offered). */
int rb_iosched_set(const char *dev, const char *name, rb_iosched_saved_t *saved, rb_err_t *err);

/* Puts back what rb_iosched_set kept; a failure is warned about. */
void rb_iosched_restore(const rb_iosched_saved_t *saved);

#endif
