/* A disk's health as its own counters tell it: Debian's smartmontools
 * (smartctl --json) run on one device and its output read into rb_health_t,
 * or, when the disk cannot be read, why in an operator's words (a loop or
 * virtio disk, a RAID controller's volume and the -d type to reach its
 * drives, no smartctl). */
#ifndef RB_HEALTH_H
#define RB_HEALTH_H

#include <stddef.h>

#include "rb_proto.h"

/* h read of nothing yet: every counter RB_HEALTH_NA, the rest zero. */
void rb_health_clear(rb_health_t *h);

/* Fills h from smartctl's JSON (len bytes): every counter RB_HEALTH_NA until
 * the output gives it; a disk smartctl could not read gets reason from its
 * first message. 0, or -EBADMSG with reason set when json is not JSON. */
int rb_health_parse(const char *json, size_t len, rb_health_t *h);

/* Runs `SMARTCTL --json=c -a DEV` (smartctl NULL: "smartctl" from PATH; no
 * shell) within a deadline and fills h (h->dev = dev); a disk not read has
 * reason set, with what the device is from sysfs under sys_root (NULL: "/sys").
 * With smartctl NULL a device of a kind that has no SMART (loop, virtio,
 * device-mapper, md) is said so without running it (no_smart set); a
 * program named is asked of every device. */
void rb_health_read(const char *smartctl, const char *dev, const char *sys_root, rb_health_t *h);

/* Tests only: the deadline for one smartctl run (ms; 0 restores 30 s). */
void rb_health_set_timeout_ms(int ms);

#endif
