/* Which block devices the agent may read or write, and why not: a device is
 * probed read-only (sysfs, the mount table, libblkid for signatures, an
 * O_EXCL open that is closed at once), and --allow-device patterns say which
 * ones a plan may name at all. */
#include <blkid/blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rb_device.h"
#include "rb_units.h"

/* First line of a small sysfs file into buf (newline cut); 0 or -errno. */
static int s_read_line(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -errno;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return -EIO;
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* Device numbers of the partitions of the device at sysfs folder dir
 * (sub-folders holding a "partition" file) into devs, their names into
 * names (", "-separated); returns the count. */
static uint32_t s_partitions(const char *dir, dev_t *devs, uint32_t max, char *names, size_t len)
{
    uint32_t n = 0;
    DIR *d = opendir(dir);
    names[0] = '\0';
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < max) {
        char p[PATH_MAX], line[64];
        unsigned ma, mi;
        if (de->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s/partition", dir, de->d_name);
        if (access(p, F_OK) != 0)
            continue;
        snprintf(p, sizeof p, "%s/%s/dev", dir, de->d_name);
        if (s_read_line(p, line, sizeof line) < 0 || sscanf(line, "%u:%u", &ma, &mi) != 2)
            continue;
        devs[n++] = makedev(ma, mi);
        size_t used = strlen(names);
        snprintf(names + used, len - used, "%s%s", used ? ", " : "", de->d_name);
    }
    closedir(d);
    return n;
}

/* Where one of devs[0..n) is mounted (/proc/self/mountinfo), into at; 1 if it is. */
static int s_mounted(const dev_t *devs, uint32_t n, char *at, size_t len)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    char line[4096];
    if (!f)
        return 0;
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        unsigned ma, mi;
        char mnt[PATH_MAX];
        if (sscanf(line, "%*u %*u %u:%u %*s %4095s", &ma, &mi, mnt) != 3)
            continue;
        for (uint32_t i = 0; i < n && !found; i++)
            if (major(devs[i]) == ma && minor(devs[i]) == mi) {
                snprintf(at, len, "%s", mnt);
                found = 1;
            }
    }
    fclose(f);
    return found;
}

/* 1 if one of devs[0..n) is in use as swap (/proc/swaps). */
static int s_swap(const dev_t *devs, uint32_t n)
{
    FILE *f = fopen("/proc/swaps", "re");
    char line[4096];
    int found = 0;
    if (!f)
        return 0;
    while (!found && fgets(line, sizeof line, f)) {
        char p[PATH_MAX];
        struct stat st;
        if (sscanf(line, "%4095s", p) != 1 || stat(p, &st) != 0 || !S_ISBLK(st.st_mode))
            continue;
        for (uint32_t i = 0; i < n; i++)
            found |= st.st_rdev == devs[i];
    }
    fclose(f);
    return found;
}

/* Names in the holders folder of sysfs folder dir (md, dm, LVM on top of
 * it) into out; 1 if there are any. */
static int s_holders(const char *dir, char *out, size_t len)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/holders", dir);
    DIR *d = opendir(p);
    out[0] = '\0';
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", used ? ", " : "", de->d_name);
    }
    closedir(d);
    return out[0] != '\0';
}

/* A file system, RAID member or partition table signature found by
 * libblkid, into out ("a file system or RAID signature (TYPE=ext4)", "a
 * partition table (PTTYPE=dos)", "ambiguous signatures"); 1 if one is there. Reads only. */
static int s_signature(const char *path, char *out, size_t len)
{
    blkid_probe pr = blkid_new_probe_from_filename(path);
    const char *v = NULL;
    out[0] = '\0';
    if (!pr) {
        snprintf(out, len, "no signature check possible (libblkid cannot open it: %s)",
                 strerror(errno));
        return 1;
    }
    blkid_probe_enable_superblocks(pr, 1);
    blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
    blkid_probe_enable_partitions(pr, 1);
    int rc = blkid_do_safeprobe(pr);
    if (rc == 0 && blkid_probe_lookup_value(pr, "TYPE", &v, NULL) == 0 && v)
        snprintf(out, len, "a file system or RAID signature (TYPE=%s)", v);
    else if (rc == 0 && blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL) == 0 && v)
        snprintf(out, len, "a partition table (PTTYPE=%s)", v);
    else if (rc == -2)
        snprintf(out, len, "ambiguous signatures");
    else if (rc < 0)
        snprintf(out, len, "no signature check possible (libblkid failed)");
    blkid_free_probe(pr);
    return out[0] != '\0';
}

int rb_device_probe(const char *path, const char *sys_root, int excl, rb_device_info_t *d,
                    rb_err_t *err)
{
    struct stat st;
    char sys[PATH_MAX], link[PATH_MAX], what[512];
    memset(d, 0, sizeof *d);
    if (!realpath(path, d->path))
        return rb_err_set(err, -errno, "device %s: %s", path, strerror(errno));
    if (stat(d->path, &st) < 0)
        return rb_err_set(err, -errno, "device %s: %s", path, strerror(errno));
    if (!S_ISBLK(st.st_mode))
        return rb_err_set(err, -ENOTBLK, "device %s (%s): not a block device", path, d->path);
    d->major = major(st.st_rdev);
    d->minor = minor(st.st_rdev);
    snprintf(link, sizeof link, "%s/dev/block/%u:%u", sys_root ? sys_root : "/sys", d->major,
             d->minor);
    if (!realpath(link, sys))
        snprintf(sys, sizeof sys, "%s", link);
    const char *base = strrchr(sys, '/');
    snprintf(d->name, sizeof d->name, "%s", base ? base + 1 : sys);

    int fd = open(d->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        snprintf(d->in_use, sizeof d->in_use, "cannot be opened: %s", strerror(errno));
        return 0;
    }
    int sz = 0;
    if (ioctl(fd, BLKGETSIZE64, &d->size) < 0 || ioctl(fd, BLKSSZGET, &sz) < 0) {
        snprintf(d->in_use, sizeof d->in_use, "its size cannot be read: %s", strerror(errno));
        close(fd);
        return 0;
    }
    close(fd);
    d->lbs = sz > 0 ? (uint32_t)sz : 512;
    char line[64], p[PATH_MAX];
    snprintf(p, sizeof p, "%s/queue/discard_max_bytes", sys);
    if (s_read_line(p, line, sizeof line) < 0) { /* a partition: its disk's queue */
        snprintf(p, sizeof p, "%s/../queue/discard_max_bytes", sys);
        if (s_read_line(p, line, sizeof line) < 0)
            line[0] = '\0';
    }
    d->discard = strtoull(line, NULL, 10) > 0;
    if (d->size == 0) {
        snprintf(d->in_use, sizeof d->in_use, "it is empty (size 0: no medium, no backing file)");
        return 0;
    }

    dev_t devs[129];
    char parts[200];
    devs[0] = st.st_rdev;
    uint32_t nparts = s_partitions(sys, devs + 1, 128, parts, sizeof parts);
    if (s_mounted(devs, nparts + 1, what, sizeof what))
        snprintf(d->in_use, sizeof d->in_use, "it is mounted (at %.200s)", what);
    else if (s_swap(devs, nparts + 1))
        snprintf(d->in_use, sizeof d->in_use, "it is in use as swap");
    else if (s_holders(sys, what, sizeof what))
        snprintf(d->in_use, sizeof d->in_use,
                 "it is a member of %.200s (md, dm or LVM: /sys/block/%s/holders)", what, d->name);
    if (!d->in_use[0] && excl) {
        int x = open(d->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_EXCL);
        if (x < 0 && errno == EBUSY)
            snprintf(d->in_use, sizeof d->in_use,
                     "it is open exclusively elsewhere (O_EXCL: device busy)");
        else if (x < 0)
            snprintf(d->in_use, sizeof d->in_use, "cannot be opened exclusively: %s",
                     strerror(errno));
        else
            close(x);
    }
    if (nparts)
        snprintf(d->holds, sizeof d->holds, "it has partitions (%.200s)", parts);
    else if (s_signature(d->path, what, sizeof what))
        snprintf(d->holds, sizeof d->holds, "it holds %.200s (libblkid)", what);
    return 0;
}

static int s_is_glob(const char *s)
{
    return strpbrk(s, "*?[") != NULL;
}

/* ":wipe=N" on glob pat: the block devices it matches now, which must be
 * exactly N (count; 0 when the argument gave none), join a->wiped. Said
 * with what it matches when the count is wrong. */
static int s_wipe_set(rb_device_allow_t *a, const char *arg, const char *pat, long count,
                      rb_err_t *err)
{
    glob_t g;
    char found[512] = "";
    uint32_t first = a->nwiped, n = 0;
    size_t o = 0;
    int rc = glob(pat, 0, NULL, &g) == 0 ? 0 : -ENOENT;
    for (size_t k = 0; rc == 0 && k < g.gl_pathc; k++) {
        char r[PATH_MAX];
        struct stat st;
        if (!realpath(g.gl_pathv[k], r) || stat(r, &st) < 0 || !S_ISBLK(st.st_mode))
            continue; /* not a block device: the pattern does not name it */
        int seen = 0;
        for (uint32_t i = first; i < a->nwiped && !seen; i++)
            seen = !strcmp(a->wiped[i], r);
        if (seen)
            continue; /* two names of one disk (by-id and by-path) count once */
        n++;
        int w = snprintf(found + o, sizeof found - o, "%s%s", o ? ", " : "", r);
        o = w > 0 && o + (size_t)w < sizeof found ? o + (size_t)w : o;
        if (a->nwiped == RB_DEVICE_MAX_WIPE || strlen(r) >= sizeof a->wiped[0])
            rc = rb_err_set(err, -E2BIG, "--allow-device %s: more than %d devices to wipe", arg,
                            RB_DEVICE_MAX_WIPE);
        else
            snprintf(a->wiped[a->nwiped++], sizeof a->wiped[0], "%s", r);
    }
    globfree(&g);
    if (rc == -E2BIG || (count && n == (uint32_t)count))
        return rc;
    a->nwiped = first;
    if (!count)
        return rb_err_set(err, -EINVAL,
                          "--allow-device %s: ':wipe' on a pattern takes the number of devices "
                          "it must match (%s:wipe=N); it matches %u block device%s now%s%s%s",
                          arg, pat, n, n == 1 ? "" : "s", n ? " (" : "", found, n ? ")" : "");
    return rb_err_set(err, -EINVAL,
                      "--allow-device %s: the pattern matches %u block device%s, not %ld%s%s%s: "
                      "none of them may be wiped until the count is right (a bay empty, a disk "
                      "too many or a wrong pattern)",
                      arg, n, n == 1 ? "" : "s", count, n ? " (" : "", found, n ? ")" : "");
}

int rb_device_allow_add(rb_device_allow_t *a, const char *arg, rb_err_t *err)
{
    char pat[PATH_MAX];
    size_t len = strlen(arg);
    int wipe = 0;
    long count = 0; /* ":wipe=N" */
    if (a->n >= RB_DEVICE_MAX_PATTERNS)
        return rb_err_set(err, -E2BIG, "--allow-device %s: at most %d patterns", arg,
                          RB_DEVICE_MAX_PATTERNS);
    const char *w = strstr(arg, ":wipe");
    if (w && (w[5] == '\0' || w[5] == '=')) {
        char *end = NULL;
        wipe = 1;
        len = (size_t)(w - arg);
        if (w[5] == '=') {
            errno = 0;
            count = strtol(w + 6, &end, 10);
            if (errno || end == w + 6 || *end || count < 1 || count > RB_DEVICE_MAX_WIPE)
                return rb_err_set(err, -EINVAL,
                                  "--allow-device %s: ':wipe=N' takes the number of devices "
                                  "the pattern must match, 1 to %d",
                                  arg, RB_DEVICE_MAX_WIPE);
        }
    }
    if (len == 0 || len >= sizeof pat - 32)
        return rb_err_set(err, -EINVAL, "--allow-device '%s': expected a device path or pattern",
                          arg);
    if (memchr(arg, '/', len)) {
        snprintf(pat, sizeof pat, "%.*s", (int)len, arg);
    } else { /* a bare name: /dev/disk/by-id/NAME, else /dev/NAME */
        snprintf(pat, sizeof pat, "/dev/disk/by-id/%.*s", (int)len, arg);
        if (!s_is_glob(pat) && access(pat, F_OK) != 0)
            snprintf(pat, sizeof pat, "/dev/%.*s", (int)len, arg);
        else if (s_is_glob(pat)) {
            glob_t g;
            int none = glob(pat, 0, NULL, &g) != 0;
            globfree(&g);
            if (none)
                snprintf(pat, sizeof pat, "/dev/%.*s", (int)len, arg);
        }
    }
    if (wipe && s_is_glob(pat)) {
        int rc = s_wipe_set(a, arg, pat, count, err);
        if (rc < 0)
            return rc;
    } else if (count > 1) {
        return rb_err_set(err, -EINVAL, "--allow-device %s: one device, not %ld", arg, count);
    }
    typeof(a->p[0]) *p = &a->p[a->n];
    memset(p, 0, sizeof *p);
    snprintf(p->pattern, sizeof p->pattern, "%s", pat);
    p->wipe = wipe;
    if (!s_is_glob(pat)) {
        struct stat st;
        if (!realpath(pat, p->real))
            return rb_err_set(err, -errno, "--allow-device %s: %s", arg, strerror(errno));
        if (stat(p->real, &st) < 0)
            return rb_err_set(err, -errno, "--allow-device %s: %s", arg, strerror(errno));
        if (!S_ISBLK(st.st_mode))
            return rb_err_set(err, -ENOTBLK, "--allow-device %s (%s): not a block device", arg,
                              p->real);
    }
    a->n++;
    return 0;
}

/* 1 if glob i has ":wipe=N" and real is one of the devices it matched then. */
static int s_wiped(const rb_device_allow_t *a, uint32_t i, const char *real)
{
    for (uint32_t k = 0; a->p[i].wipe && k < a->nwiped; k++)
        if (!strcmp(a->wiped[k], real))
            return 1;
    return 0;
}

int rb_device_allow_match(const rb_device_allow_t *a, const char *real)
{
    int best = 0;
    for (uint32_t i = 0; a && i < a->n; i++) {
        int m = 0;
        if (a->p[i].real[0]) {
            m = strcmp(a->p[i].real, real) == 0 ? 1 + a->p[i].wipe : 0;
        } else if (fnmatch(a->p[i].pattern, real, FNM_PATHNAME) == 0) {
            m = 1 + s_wiped(a, i, real);
        } else {
            glob_t g;
            if (glob(a->p[i].pattern, 0, NULL, &g) == 0) {
                for (size_t k = 0; k < g.gl_pathc && !m; k++) {
                    char r[PATH_MAX];
                    m = realpath(g.gl_pathv[k], r) && strcmp(r, real) == 0;
                    if (m)
                        m += s_wiped(a, i, real);
                }
            }
            globfree(&g);
        }
        if (m > best)
            best = m;
    }
    return best;
}

int rb_device_refusal(const rb_device_allow_t *a, const rb_device_info_t *d, int access, char *why,
                      size_t len)
{
    int m = rb_device_allow_match(a, d->path);
    why[0] = '\0';
    if (!m) {
        snprintf(why, len, "not allowed on this agent (start it with --allow-device %s)", d->path);
        return -EACCES;
    }
    if (d->in_use[0]) {
        snprintf(why, len, "%s", d->in_use);
        return -EBUSY;
    }
    if (access == 'w' && d->holds[0] && m < 2) {
        snprintf(why, len, "%s, which writing would destroy (--allow-device %s:wipe allows it)",
                 d->holds, d->path);
        return -EBUSY;
    }
    return 0;
}

static int s_cmp(const void *x, const void *y)
{
    return strverscmp((const char *)x, (const char *)y); /* loop2 before loop10 */
}

uint32_t rb_device_list(const char *sys_root, char (*out)[PATH_MAX], uint32_t max)
{
    char dir[PATH_MAX];
    uint32_t n = 0;
    snprintf(dir, sizeof dir, "%s/class/block", sys_root ? sys_root : "/sys");
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < max) {
        struct stat st;
        if (de->d_name[0] == '.')
            continue;
        snprintf(out[n], PATH_MAX, "/dev/%s", de->d_name);
        if (stat(out[n], &st) == 0 && S_ISBLK(st.st_mode))
            n++;
    }
    closedir(d);
    qsort(out, n, PATH_MAX, s_cmp);
    return n;
}

int rb_device_list_main(const rb_device_allow_t *a, const char *sys_root, FILE *f)
{
    static char paths[1024][PATH_MAX];
    uint32_t n = rb_device_list(sys_root, paths, 1024);
    fprintf(f, "%-24s %10s %6s %7s %5s %5s  %s\n", "DEVICE", "SIZE", "LBS", "DISCARD", "READ",
            "WRITE", "REASON");
    for (uint32_t i = 0; i < n; i++) {
        rb_device_info_t d;
        rb_err_t err;
        char size[32], why_r[512], why_w[512];
        rb_err_clear(&err);
        /* a device not allowed is not opened exclusively, even for a moment */
        int allowed = rb_device_allow_match(a, paths[i]) > 0;
        char real[PATH_MAX];
        if (realpath(paths[i], real))
            allowed = rb_device_allow_match(a, real) > 0;
        if (rb_device_probe(paths[i], sys_root, allowed, &d, &err) < 0) {
            fprintf(f, "%-24s %10s %6s %7s %5s %5s  %s\n", paths[i], "-", "-", "-", "no", "no",
                    err.msg);
            continue;
        }
        int r = rb_device_refusal(a, &d, 'r', why_r, sizeof why_r);
        int w = rb_device_refusal(a, &d, 'w', why_w, sizeof why_w);
        rb_units_fmt_size(size, sizeof size, (double)d.size);
        /* a device not allowed says what else would stop it */
        const char *also = r == -EACCES ? (d.in_use[0] ? d.in_use : d.holds) : "";
        fprintf(f, "%-24s %10s %6u %7s %5s %5s  %s%s%s\n", d.path, d.size ? size : "0", d.lbs,
                d.discard ? "yes" : "no", r == 0 ? "yes" : "no", w == 0 ? "yes" : "no",
                r < 0   ? why_r
                : w < 0 ? why_w
                        : "",
                also[0] ? "; and " : "", also);
    }
    return 0;
}
