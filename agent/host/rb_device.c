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
#include "rb_devstack.h"
#include "rb_units.h"

/* rb_device_probe_fd, reading the device for its signatures unless
 * RB_DEV_PROBE_NO_READ is in flags. */
static int s_probe_fd(int fd, const char *path, const char *sys_root, unsigned flags,
                      const struct rb_devwriters *w, rb_device_info_t *d, rb_err_t *err)
{
    struct stat st;
    char sys[PATH_MAX], link[PATH_MAX], what[512];
    memset(d, 0, sizeof *d);
    snprintf(d->path, sizeof d->path, "%s", path);
    if (fstat(fd, &st) < 0)
        return rb_err_set(err, -errno, "device %s: %s", path, strerror(errno));
    if (!S_ISBLK(st.st_mode))
        return rb_err_set(err, -ENOTBLK, "device %s: not a block device", path);
    d->major = major(st.st_rdev);
    d->minor = minor(st.st_rdev);
    snprintf(link, sizeof link, "%s/dev/block/%u:%u", sys_root ? sys_root : "/sys", d->major,
             d->minor);
    if (!realpath(link, sys))
        snprintf(sys, sizeof sys, "%s", link);
    const char *base = strrchr(sys, '/');
    snprintf(d->name, sizeof d->name, "%s", base ? base + 1 : sys);

    int sz = 0;
    if (ioctl(fd, BLKGETSIZE64, &d->size) < 0 || ioctl(fd, BLKSSZGET, &sz) < 0) {
        snprintf(d->in_use, sizeof d->in_use, "its size cannot be read: %s", strerror(errno));
        return 0;
    }
    d->lbs = sz > 0 ? (uint32_t)sz : 512;
    char line[64], p[PATH_MAX];
    snprintf(p, sizeof p, "%s/queue/discard_max_bytes", sys);
    if (rb_devsys_line(p, line, sizeof line) < 0) { /* a partition: its disk's queue */
        snprintf(p, sizeof p, "%s/../queue/discard_max_bytes", sys);
        if (rb_devsys_line(p, line, sizeof line) < 0)
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
    uint32_t nparts = rb_devsys_partitions(sys, devs + 1, 128, parts, sizeof parts);
    if (rb_devsys_mounted(devs, nparts + 1, what, sizeof what))
        snprintf(d->in_use, sizeof d->in_use, "it is mounted (at %.200s)", what);
    else if (rb_devsys_swap(devs, nparts + 1))
        snprintf(d->in_use, sizeof d->in_use, "it is in use as swap");
    else if (rb_devsys_holders(sys, NULL, what, sizeof what))
        snprintf(d->in_use, sizeof d->in_use,
                 "it is a member of %.200s (md, dm or LVM: /sys/block/%s/holders)", what, d->name);
    if (d->in_use[0])
        return 0;
    rb_devwriters_t *own = NULL;
    if (!w && (own = malloc(sizeof *own)))
        rb_devwriters_scan(own);
    rb_devwriters_find(w ? w : own, st.st_rdev, d->writers, sizeof d->writers);
    rb_devwriters_unseen(w ? w : own, d->unseen, sizeof d->unseen);
    rb_devstack_check(sys_root, d->name, st.st_rdev, w ? w : own, d->stack, sizeof d->stack,
                      d->holds, sizeof d->holds);
    free(own);
    if (nparts)
        snprintf(d->holds, sizeof d->holds, "it has partitions (%.200s)", parts);
    else if (!(flags & RB_DEV_PROBE_NO_READ) && rb_devsys_signature(path, fd, what, sizeof what))
        snprintf(d->holds, sizeof d->holds, "it holds %.200s (libblkid)", what);
    return 0;
}

int rb_device_probe_fd(int fd, const char *path, const char *sys_root,
                       const struct rb_devwriters *w, rb_device_info_t *d, rb_err_t *err)
{
    return s_probe_fd(fd, path, sys_root, 0, w, d, err);
}

int rb_device_probe(const char *path, const char *sys_root, unsigned flags,
                    const struct rb_devwriters *w, rb_device_info_t *d, rb_err_t *err)
{
    int excl = (flags & RB_DEV_PROBE_EXCL) != 0;
    char real[PATH_MAX];
    struct stat st;
    memset(d, 0, sizeof *d);
    if (!realpath(path, real))
        return rb_err_set(err, -errno, "device %s: %s", path, strerror(errno));
    if (stat(real, &st) < 0)
        return rb_err_set(err, -errno, "device %s: %s", path, strerror(errno));
    if (!S_ISBLK(st.st_mode))
        return rb_err_set(err, -ENOTBLK, "device %s (%s): not a block device", path, real);
    int busy = 0, fd = open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (excl ? O_EXCL : 0));
    if (fd < 0 && excl && errno == EBUSY) { /* why, if something says so */
        busy = 1;
        fd = open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    }
    if (fd < 0) {
        int e = errno;
        snprintf(d->path, sizeof d->path, "%s", real);
        d->major = major(st.st_rdev);
        d->minor = minor(st.st_rdev);
        const char *base = strrchr(real, '/');
        snprintf(d->name, sizeof d->name, "%s", base ? base + 1 : real);
        snprintf(d->in_use, sizeof d->in_use, "cannot be opened%s: %s",
                 excl && !busy ? " exclusively" : "", strerror(e));
        return 0;
    }
    int rc = s_probe_fd(fd, real, sys_root, flags, w, d, err);
    close(fd);
    if (rc == 0 && busy && !d->in_use[0])
        snprintf(d->in_use, sizeof d->in_use,
                 "it is open exclusively elsewhere (O_EXCL: device busy)");
    return rc;
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
        else {
            a->wiped_rdev[a->nwiped] = (uint64_t)st.st_rdev;
            snprintf(a->wiped[a->nwiped++], sizeof a->wiped[0], "%s", r);
        }
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

/* The block devices glob pat matches now (two names of one device once). */
static uint32_t s_glob_count(const char *pat)
{
    glob_t g;
    dev_t seen[RB_DEVICE_MAX_WIPE];
    uint32_t n = 0;
    if (glob(pat, 0, NULL, &g) == 0)
        for (size_t k = 0; k < g.gl_pathc && n < RB_DEVICE_MAX_WIPE; k++) {
            struct stat st;
            uint32_t i = 0;
            if (stat(g.gl_pathv[k], &st) < 0 || !S_ISBLK(st.st_mode))
                continue;
            while (i < n && seen[i] != st.st_rdev)
                i++;
            if (i == n)
                seen[n++] = st.st_rdev;
        }
    globfree(&g);
    return n;
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
        p->rdev = (uint64_t)st.st_rdev;
        p->matched = 1;
    } else {
        p->matched = s_glob_count(pat);
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

/* The device an exact pattern or a ":wipe=N" glob named real as when the
 * agent started; 0 when none did. */
static uint64_t s_named_as(const rb_device_allow_t *a, const char *real)
{
    for (uint32_t i = 0; a && i < a->n; i++)
        if (a->p[i].real[0] && !strcmp(a->p[i].real, real))
            return a->p[i].rdev;
    for (uint32_t k = 0; a && k < a->nwiped; k++)
        if (!strcmp(a->wiped[k], real))
            return a->wiped_rdev[k];
    return 0;
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
    uint64_t was = s_named_as(a, d->path), is = (uint64_t)makedev(d->major, d->minor);
    if (was && was != is) {
        snprintf(why, len,
                 "%s is device %u:%u now, not %u:%u as when the agent started (--allow-device): "
                 "a device swapped or renamed since is not touched; restart the agent to allow it",
                 d->path, d->major, d->minor, major((dev_t)was), minor((dev_t)was));
        return -EACCES;
    }
    if (d->in_use[0]) {
        snprintf(why, len, "%s", d->in_use);
        return -EBUSY;
    }
    if (access == 'w' && d->stack[0]) {
        snprintf(why, len, "%s", d->stack);
        return -EBUSY;
    }
    if (access == 'w' && d->writers[0] && !(a && a->open_writers)) {
        snprintf(why, len,
                 "it is open for writing by %s (the agent's --allow-open-writers allows it)",
                 d->writers);
        return -EBUSY;
    }
    if (access == 'w' && !d->writers[0] && d->unseen[0] && !(a && a->open_writers)) {
        snprintf(why, len,
                 "whether another program writes it is unknown: %s (the agent needs "
                 "CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH, docs/security.md; its "
                 "--allow-open-writers allows it)",
                 d->unseen);
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
    rb_devwriters_t *wr = malloc(sizeof *wr); /* read once for every device (NULL: each reads) */
    if (wr)
        rb_devwriters_scan(wr);
    fprintf(f, "%-24s %10s %6s %7s %5s %5s  %s\n", "DEVICE", "SIZE", "LBS", "DISCARD", "READ",
            "WRITE", "REASON");
    for (uint32_t i = 0; i < n; i++) {
        rb_device_info_t d;
        rb_err_t err;
        char size[32], why_r[1024], why_w[1024], also[1024] = "";
        rb_err_clear(&err);
        /* a device not allowed is not opened exclusively, even for a moment */
        int allowed = rb_device_allow_match(a, paths[i]) > 0;
        char real[PATH_MAX];
        if (realpath(paths[i], real))
            allowed = rb_device_allow_match(a, real) > 0;
        if (rb_device_probe(paths[i], sys_root, allowed ? RB_DEV_PROBE_EXCL : 0, wr, &d, &err) <
            0) {
            fprintf(f, "%-24s %10s %6s %7s %5s %5s  %s\n", paths[i], "-", "-", "-", "no", "no",
                    err.msg);
            continue;
        }
        int r = rb_device_refusal(a, &d, 'r', why_r, sizeof why_r);
        int w = rb_device_refusal(a, &d, 'w', why_w, sizeof why_w);
        rb_units_fmt_size(size, sizeof size, (double)d.size);
        /* a device not allowed says what else would stop it */
        if (r == -EACCES && d.writers[0] && !d.in_use[0] && !d.stack[0])
            snprintf(also, sizeof also, "it is open for writing by %s", d.writers);
        else if (r == -EACCES)
            snprintf(also, sizeof also, "%s",
                     d.in_use[0]  ? d.in_use
                     : d.stack[0] ? d.stack
                                  : d.holds);
        fprintf(f, "%-24s %10s %6u %7s %5s %5s  %s%s%s\n", d.path, d.size ? size : "0", d.lbs,
                d.discard ? "yes" : "no", r == 0 ? "yes" : "no", w == 0 ? "yes" : "no",
                r < 0   ? why_r
                : w < 0 ? why_w
                        : "",
                also[0] ? "; and " : "", also);
    }
    free(wr);
    for (uint32_t i = 0; a && i < a->n; i++) /* what each pattern lets a plan name */
        fprintf(f, "--allow-device %s%s matches %u block device%s\n", a->p[i].pattern,
                a->p[i].wipe ? ":wipe" : "", a->p[i].matched, a->p[i].matched == 1 ? "" : "s");
    return 0;
}
