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

#endif
