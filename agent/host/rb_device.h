/* Raw block devices as the agent sees them: what a device is (size, logical
 * block size, discard), what holds it (a mount, partitions, md/dm/LVM
 * holders, a file system or RAID signature found by libblkid, an exclusive
 * opener), and the --allow-device patterns that say which ones a plan may
 * read or write. Nothing here writes to a device. */
#ifndef RB_DEVICE_H
#define RB_DEVICE_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "rb_err.h"

#define RB_DEVICE_MAX_PATTERNS 16

/* What a probe found out about one block device. */
typedef struct rb_device_info {
    char path[PATH_MAX]; /* the real node, /dev/loop3 */
    char name[64];       /* its kernel name, loop3 */
    unsigned major, minor;
    uint64_t size;     /* bytes (BLKGETSIZE64) */
    uint32_t lbs;      /* logical block size (BLKSSZGET) */
    uint32_t discard;  /* 1 if the device takes BLKDISCARD (queue/discard_max_bytes) */
    char in_use[256];  /* why it cannot be opened at all ("mounted at /mnt"), or "" */
    char holds[512];   /* why writing would destroy something ("ext4 signature"), or "" */
    char stack[768];   /* why writing would reach a device in use under or over it, or "" */
    char writers[256]; /* the other processes that have it open for writing, or "" */
    char unseen[160];  /* why the other writers cannot all be known, or "" */
} rb_device_info_t;

struct rb_devwriters;

#define RB_DEV_PROBE_EXCL    1u /* also whether an O_EXCL open succeeds (closed at once) */
#define RB_DEV_PROBE_NO_READ 2u /* no signatures: what sysfs and the mounts say alone */

/* Probes the block device at path (symlinks followed) without writing to
 * it; sys_root is where /sys is read ("/sys"); flags: RB_DEV_PROBE_*. Its
 * signatures are read with libblkid unless RB_DEV_PROBE_NO_READ. w: the
 * processes writing block devices (NULL: read now). 0, or -errno with err
 * naming the path (-ENOTBLK when it is not a block device). */
int rb_device_probe(const char *path, const char *sys_root, unsigned flags,
                    const struct rb_devwriters *w, rb_device_info_t *d, rb_err_t *err);

/* The same probe on the device open as fd, at path (for its name): the
 * device checked is the one held, whatever path leads to later. */
int rb_device_probe_fd(int fd, const char *path, const char *sys_root,
                       const struct rb_devwriters *w, rb_device_info_t *d, rb_err_t *err);

#define RB_DEVICE_MAX_WIPE 1024 /* devices a glob's ":wipe=N" may name, over all */

/* The --allow-device patterns: a path, a glob (/dev/loop*), a name under
 * /dev/disk/by-id/ or /dev/, each with an optional ":wipe" (an exact
 * device) or ":wipe=N" (a glob that matches exactly N devices as the agent
 * starts: those N may be written over, a device that matches later only
 * as a blank one). */
typedef struct rb_device_allow {
    uint32_t n;
    struct {
        char pattern[PATH_MAX]; /* as given, without ":wipe" */
        char real[PATH_MAX];    /* the node an exact pattern leads to; "" for a glob */
        uint64_t rdev;          /* the device that node was as the agent started */
        uint32_t matched;       /* block devices the pattern matched as the agent started */
        int wipe;               /* ":wipe": may write over what the device holds */
    } p[RB_DEVICE_MAX_PATTERNS];
    uint32_t nwiped;                         /* devices the globs' ":wipe=N" matched ... */
    char wiped[RB_DEVICE_MAX_WIPE][64];      /* ... each as its real /dev node */
    uint64_t wiped_rdev[RB_DEVICE_MAX_WIPE]; /* ... and the device it was */
    int open_writers; /* --allow-open-writers: devices other programs write may be written */
} rb_device_allow_t;

/* Adds one --allow-device argument. An exact path must exist and be a block
 * device; ":wipe" on a glob is refused, ":wipe=N" on a glob that does not
 * match N block devices now too. 0 or -errno with err naming it. */
int rb_device_allow_add(rb_device_allow_t *a, const char *arg, rb_err_t *err);

/* Whether the device whose real node is real matches a pattern: 0 no, 1
 * yes, 2 yes with ":wipe" (an exact pattern naming it). */
int rb_device_allow_match(const rb_device_allow_t *a, const char *real);

/* Why the device d may not be read (access 'r') or written ('w') under the
 * patterns a: "" when it may. A node that an exact pattern or ":wipe=N"
 * named leads to another device than as the agent started: not allowed.
 * Writing is refused for a stack in use (not even ":wipe" allows it) and
 * for other writers (unless a->open_writers). Written to why (len bytes);
 * returns 0 when it may, -EACCES (not allowed) or -EBUSY (in use or holding
 * something). */
int rb_device_refusal(const rb_device_allow_t *a, const rb_device_info_t *d, int access, char *why,
                      size_t len);

/* Block devices the agent sees (/sys/block) into out (up to max real
 * paths, "/dev/NAME"); returns the count. */
uint32_t rb_device_list(const char *sys_root, char (*out)[PATH_MAX], uint32_t max);

/* rackbench-agent --list-devices: one line per device (size, logical block
 * size, whether it may be read and written, the reason it may not). Exit code 0. */
int rb_device_list_main(const rb_device_allow_t *a, const char *sys_root, FILE *f);

#endif
