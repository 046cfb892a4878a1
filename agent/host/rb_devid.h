/* A block device's identity from sysfs (model, vendor, serial, firmware,
 * size, block sizes, rotational, scheduler): what DONE reports of each
 * device a phase ran on. */
#ifndef RB_DEVID_H
#define RB_DEVID_H

#include "rb_proto.h"

/* Fills out for the block device at path (a /dev node or a link to one);
 * what sysfs does not tell stays "" or 0. 0, or -errno (-ENOTBLK: not a
 * block device) with out->path set. */
int rb_devid_read(const char *path, rb_dev_id_t *out);

struct rb_device_allow;

/* Every block device of the host under sys_root ("/sys") but partitions and
 * empty ones, up to max into out, each with what the patterns a let the
 * agent do with it (access) and, where that is not all, why (use: "not
 * allowed", "mounted at /boot", "ext4 signature"). Nothing is opened for
 * writing. Returns the count; *seen is how many there were. */
uint32_t rb_devid_inventory(const struct rb_device_allow *a, const char *sys_root, rb_dev_id_t *out,
                            uint32_t max, uint32_t *seen);

#endif
