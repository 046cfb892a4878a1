/* What a block device is, from sysfs: model, vendor, serial, firmware,
 * size, block sizes, rotational, scheduler, read-ahead and queue depths,
 * so that a burn-in report names each disk by its serial; and the host's
 * inventory of them for HELLO. */
#include "rb_devid.h"

#include "rb_device.h"
#include "rb_devstack.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The first line of dir/rel into out, spaces around it trimmed; 0 or -errno. */
static int s_read(const char *dir, const char *rel, char *out, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    FILE *f = fopen(path, "r");
    if (!f)
        return -errno;
    char buf[512];
    char *got = fgets(buf, sizeof buf, f);
    fclose(f);
    if (!got)
        return -ENODATA;
    char *s = buf, *e = buf + strlen(buf);
    while (*s && isspace((unsigned char)*s))
        s++;
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = 0;
    for (char *p = s; *p; p++)
        if (!isprint((unsigned char)*p))
            *p = '?';
    snprintf(out, len, "%s", s);
    return 0;
}

static uint64_t s_num(const char *dir, const char *rel)
{
    char b[64];
    return s_read(dir, rel, b, sizeof b) == 0 ? strtoull(b, NULL, 10) : 0;
}

int rb_devid_read(const char *path, rb_dev_id_t *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", path);
    struct stat st;
    if (stat(path, &st) < 0)
        return -errno;
    if (!S_ISBLK(st.st_mode))
        return -ENOTBLK;
    char sys[PATH_MAX], real[PATH_MAX];
    snprintf(sys, sizeof sys, "/sys/dev/block/%u:%u", major(st.st_rdev), minor(st.st_rdev));
    if (!realpath(sys, real))
        return -errno;
    const char *name = strrchr(real, '/');
    snprintf(out->name, sizeof out->name, "%s", name ? name + 1 : real);
    out->size = s_num(real, "size") * 512;
    /* a partition: its disk, the folder above, says what the hardware is */
    char part[PATH_MAX + 16], disk[PATH_MAX];
    snprintf(part, sizeof part, "%s/partition", real);
    snprintf(disk, sizeof disk, "%s", real);
    if (access(part, F_OK) == 0 && strrchr(disk, '/'))
        *strrchr(disk, '/') = 0;
    char *dev = disk;
    out->lbs = (uint32_t)s_num(dev, "queue/logical_block_size");
    out->pbs = (uint32_t)s_num(dev, "queue/physical_block_size");
    out->rotational = s_num(dev, "queue/rotational") != 0;
    out->read_ahead_kb = (uint32_t)s_num(dev, "queue/read_ahead_kb");
    out->nr_requests = (uint32_t)s_num(dev, "queue/nr_requests");
    out->queue_depth = (uint32_t)s_num(dev, "device/queue_depth");
    s_read(dev, "device/model", out->model, sizeof out->model);
    s_read(dev, "device/vendor", out->vendor, sizeof out->vendor);
    if (s_read(dev, "device/serial", out->serial, sizeof out->serial) < 0 &&
        s_read(dev, "serial", out->serial, sizeof out->serial) < 0 &&
        s_read(dev, "device/wwid", out->serial, sizeof out->serial) < 0)
        s_read(dev, "wwid", out->serial, sizeof out->serial);
    if (s_read(dev, "device/firmware_rev", out->firmware, sizeof out->firmware) < 0)
        s_read(dev, "device/rev", out->firmware, sizeof out->firmware);
    char sched[256];
    if (s_read(dev, "queue/scheduler", sched, sizeof sched) == 0) {
        char *a = strchr(sched, '['), *b = a ? strchr(a, ']') : NULL;
        if (a && b) {
            *b = 0;
            snprintf(out->scheduler, sizeof out->scheduler, "%s", a + 1);
        } else if (!strchr(sched, ' ')) {
            snprintf(out->scheduler, sizeof out->scheduler, "%s", sched);
        }
    }
    return 0;
}

uint32_t rb_devid_inventory(const rb_device_allow_t *a, const char *sys_root, rb_dev_id_t *out,
                            uint32_t max, uint32_t *seen)
{
    static char paths[1024][PATH_MAX];
    uint32_t n = rb_device_list(sys_root, paths, 1024), k = 0;
    rb_devwriters_t *w = malloc(sizeof *w); /* read once for every device (NULL: each reads) */
    if (w)
        rb_devwriters_scan(w);
    const char *sys = sys_root ? sys_root : "/sys";
    *seen = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *name = paths[i] + strlen("/dev/");
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/class/block/%s", sys, name);
        /* a partition is its disk's; an unbound loop or an empty drive is nothing */
        if (s_num(dir, "partition") || s_num(dir, "size") == 0)
            continue;
        (*seen)++;
        if (k == max)
            continue;
        rb_dev_id_t *d = &out[k];
        if (rb_devid_read(paths[i], d) < 0)
            continue;
        rb_device_info_t info;
        rb_err_t err;
        char why[1024];
        rb_err_clear(&err);
        /* no exclusive open: HELLO may come again while a run holds the
         * device; and a device it may not touch is not read either (what
         * sysfs and the mounts say of it is all): an agent coming up does
         * not read 1 MiB of every disk of its host for their signatures,
         * under a benchmark another may be running on them */
        char real[PATH_MAX]; /* the path the probe names it by (info.path) */
        int barred = realpath(paths[i], real) && !rb_device_allow_match(a, real);
        if (rb_device_probe(paths[i], sys_root, barred ? RB_DEV_PROBE_NO_READ : 0, w, &info, &err) <
            0) {
            snprintf(d->use, sizeof d->use, "%s", err.msg);
        } else if (barred) {
            const char *also = info.in_use[0] ? info.in_use : info.holds;
            snprintf(d->use, sizeof d->use, "not allowed%s%s", also[0] ? "; " : "", also);
        } else if (rb_device_refusal(a, &info, 'r', why, sizeof why) < 0) {
            snprintf(d->use, sizeof d->use, "%s", why);
        } else if (rb_device_refusal(a, &info, 'w', why, sizeof why) < 0) {
            d->access = RB_DEV_READ;
            if (info.stack[0] || info.writers[0])
                snprintf(d->use, sizeof d->use, "%s", why);
            else
                snprintf(d->use, sizeof d->use, "%s (writing needs :wipe)", info.holds);
        } else {
            d->access = RB_DEV_WRITE;
        }
        k++;
    }
    free(w);
    return k;
}
