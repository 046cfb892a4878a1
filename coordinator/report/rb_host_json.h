/* A node's "host" in summary.json, both ways: its kernel, CPU, NICs, roots'
 * mounts and every block device it has (the inventory of its HELLO). */
#ifndef RB_HOST_JSON_H
#define RB_HOST_JSON_H

#include "rb_json.h"
#include "rb_jw.h"
#include "rb_proto.h"

/* Writes "host": {...} of h into the object w is in. */
void rb_host_json_write(rb_jw_t *w, const rb_host_t *h);

/* Reads a "host" object into a new *out (rb_host_free); 0 or -ENOMEM. */
int rb_host_json_read(const rb_json_t *host, rb_host_t **out);

/* Who device d is (path, name, model, vendor, serial, firmware, size,
 * rotational, block sizes, scheduler, read-ahead, queue depths), as keys of
 * the object w is in; and read back from object x. */
void rb_host_json_dev(rb_jw_t *w, const rb_dev_id_t *d);
void rb_host_json_dev_read(const rb_json_t *x, rb_dev_id_t *d);

/* "none", "read" or "write" for a device's access (RB_DEV_*). */
const char *rb_host_access_name(uint32_t access);

#endif
