/* What lies under and over a block device (see rb_devstack.h): sysfs and
 * the mount table for each device of the stack, libblkid for signatures,
 * /proc/PID/fd and fdinfo for the processes writing one. */
#include <blkid/blkid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rb_devstack.h"

int rb_devsys_line(const char *path, char *buf, size_t len)
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

/* The device number in the "dev" file of sysfs folder dir; 0 if none. */
static dev_t s_dev_of(const char *dir)
{
    char p[PATH_MAX + 8], line[64];
    unsigned ma, mi;
    snprintf(p, sizeof p, "%s/dev", dir);
    if (rb_devsys_line(p, line, sizeof line) < 0 || sscanf(line, "%u:%u", &ma, &mi) != 2)
        return 0;
    return makedev(ma, mi);
}

uint32_t rb_devsys_partitions(const char *dir, dev_t *devs, uint32_t max, char *names, size_t len)
{
    uint32_t n = 0;
    DIR *d = opendir(dir);
    names[0] = '\0';
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < max) {
        char p[PATH_MAX];
        if (de->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/%s/partition", dir, de->d_name);
        if (access(p, F_OK) != 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        dev_t dv = s_dev_of(p);
        if (!dv)
            continue;
        devs[n++] = dv;
        size_t used = strlen(names);
        snprintf(names + used, len - used, "%s%s", used ? ", " : "", de->d_name);
    }
    closedir(d);
    return n;
}

int rb_devsys_mounted(const dev_t *devs, uint32_t n, char *at, size_t len)
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

int rb_devsys_swap(const dev_t *devs, uint32_t n)
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

int rb_devsys_holders(const char *dir, const char *skip, char *out, size_t len)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/holders", dir);
    DIR *d = opendir(p);
    out[0] = '\0';
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.' || (skip && !strcmp(de->d_name, skip)))
            continue;
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", used ? ", " : "", de->d_name);
    }
    closedir(d);
    return out[0] != '\0';
}

int rb_devsys_signature(const char *path, int fd, char *out, size_t len)
{
    blkid_probe pr = fd >= 0 ? blkid_new_probe() : blkid_new_probe_from_filename(path);
    const char *v = NULL;
    out[0] = '\0';
    if (pr && fd >= 0 && blkid_probe_set_device(pr, fd, 0, 0) != 0) {
        blkid_free_probe(pr);
        pr = NULL;
    }
    if (!pr) {
        snprintf(out, len, "no signature check possible (libblkid cannot open it: %s)",
                 strerror(errno ? errno : EIO));
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

/* 1 if the open file fdinfo describes was opened for writing. */
static int s_fd_writes(const char *fdinfo)
{
    FILE *f = fopen(fdinfo, "re");
    char line[128];
    unsigned long flags = 0;
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        found = sscanf(line, "flags: %lo", &flags) == 1;
    if (f)
        fclose(f);
    return found && (flags & O_ACCMODE) != O_RDONLY;
}

void rb_devwriters_scan(rb_devwriters_t *w)
{
    w->n = w->unseen = 0;
    DIR *proc = opendir("/proc");
    if (!proc)
        return;
    long self = (long)getpid();
    struct dirent *pe;
    while ((pe = readdir(proc)) && w->n < RB_DEVWRITERS_MAX) {
        char *end, p[96];
        long pid = strtol(pe->d_name, &end, 10);
        if (*end || pid <= 0 || pid == self)
            continue;
        snprintf(p, sizeof p, "/proc/%ld/fd", pid);
        DIR *fds = opendir(p);
        if (!fds) {
            if (errno != ENOENT && errno != ESRCH && !w->unseen++) { /* not gone: hidden */
                w->unseen_pid = (int)pid;
                w->unseen_errno = errno;
            }
            continue;
        }
        struct dirent *fe;
        while ((fe = readdir(fds)) && w->n < RB_DEVWRITERS_MAX) {
            struct stat st;
            if (fe->d_name[0] == '.')
                continue;
            snprintf(p, sizeof p, "/proc/%ld/fd/%.20s", pid, fe->d_name);
            if (stat(p, &st) < 0 || !S_ISBLK(st.st_mode))
                continue;
            snprintf(p, sizeof p, "/proc/%ld/fdinfo/%.20s", pid, fe->d_name);
            if (!s_fd_writes(p))
                continue;
            w->w[w->n].dev = st.st_rdev;
            w->w[w->n].pid = (int)pid;
            snprintf(p, sizeof p, "/proc/%ld/comm", pid);
            if (rb_devsys_line(p, w->w[w->n].comm, sizeof w->w[0].comm) < 0)
                snprintf(w->w[w->n].comm, sizeof w->w[0].comm, "?");
            w->n++;
        }
        closedir(fds);
    }
    closedir(proc);
}

int rb_devwriters_unseen(const rb_devwriters_t *w, char *out, size_t len)
{
    out[0] = '\0';
    if (!w || !w->unseen)
        return 0;
    snprintf(out, len, "the open files of %u other process%s (process %d: %s) cannot be read",
             w->unseen, w->unseen == 1 ? "" : "es", w->unseen_pid, strerror(w->unseen_errno));
    return 1;
}

int rb_devwriters_find(const rb_devwriters_t *w, dev_t dev, char *out, size_t len)
{
    out[0] = '\0';
    for (uint32_t i = 0; w && i < w->n; i++) {
        char one[64];
        size_t used = strlen(out);
        snprintf(one, sizeof one, "process %d (", w->w[i].pid);
        if (w->w[i].dev != dev || strstr(out, one)) /* a process with it open twice: once */
            continue;
        snprintf(out + used, len - used, "%s%s%s)", used ? ", " : "", one, w->w[i].comm);
    }
    return out[0] != '\0';
}

#define S_DEPTH   8  /* devices stacked on one another, at the most */
#define S_MAXSEEN 64 /* devices of one stack looked at, at the most */
#define S_LOOPS   32 /* loop devices on one device or file, at the most */

/* One walk through a device's stack. */
typedef struct s_walk {
    const char *sys;
    const rb_devwriters_t *w;
    char *stack, *holds;
    size_t slen, hlen;
    dev_t seen[S_MAXSEEN];
    unsigned nseen;
} s_walk_t;

/* 1 if dev was looked at already; else it is, from now on. */
static int s_seen(s_walk_t *k, dev_t dev)
{
    for (unsigned i = 0; i < k->nseen; i++)
        if (k->seen[i] == dev)
            return 1;
    if (k->nseen == S_MAXSEEN)
        return 1;
    k->seen[k->nseen++] = dev;
    return 0;
}

/* The sysfs folder of dev into dir (PATH_MAX), its kernel name into name;
 * -1 when sysfs does not know it. */
static int s_sysdir(const s_walk_t *k, dev_t dev, char *dir, char *name, size_t nlen)
{
    char link[PATH_MAX];
    snprintf(link, sizeof link, "%s/dev/block/%u:%u", k->sys, major(dev), minor(dev));
    if (!realpath(link, dir)) {
        if (access(link, F_OK) != 0)
            return -1;
        snprintf(dir, PATH_MAX, "%s", link);
    }
    const char *b = strrchr(dir, '/');
    snprintf(name, nlen, "%s", b ? b + 1 : dir);
    return 0;
}

static void s_say(char *out, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void s_say(char *out, size_t len, const char *fmt, ...)
{
    if (out[0])
        return; /* the first problem found is the one said */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, len, fmt, ap);
    va_end(ap);
}

/* What the loop device at sysfs folder dir lies on, into file; 1 if it is
 * a loop device with one. */
static int s_backing(const char *dir, char *file, size_t len)
{
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/loop/backing_file", dir);
    if (rb_devsys_line(p, file, len) < 0 || !file[0])
        return 0;
    size_t n = strlen(file);
    if (n > 10 && !strcmp(file + n - 10, " (deleted)"))
        file[n - 10] = '\0';
    return 1;
}

/* Why dev (sysfs folder dir) is in use by other than its holder skip:
 * mounted (with parts, a partition of it too), swap, held, open for
 * writing by another process. 1 with why set. */
static int s_busy(const s_walk_t *k, dev_t dev, const char *dir, const char *skip, int parts,
                  char *why, size_t len)
{
    dev_t devs[129];
    char names[200], at[512];
    devs[0] = dev;
    uint32_t n = 1 + (parts ? rb_devsys_partitions(dir, devs + 1, 128, names, sizeof names) : 0);
    if (rb_devsys_mounted(devs, n, at, sizeof at))
        snprintf(why, len, "mounted at %.300s", at);
    else if (rb_devsys_swap(devs, n))
        snprintf(why, len, "in use as swap");
    else if (rb_devsys_holders(dir, skip, at, sizeof at))
        snprintf(why, len, "a member of %.300s", at);
    else if (rb_devwriters_find(k->w, dev, at, sizeof at))
        snprintf(why, len, "open for writing by %.300s", at);
    else
        return 0;
    return 1;
}

/* The loop devices that lie on the block device dev (blk) or on the
 * regular file (dev, ino), but skip: their numbers and names. */
static uint32_t s_loops_on(const s_walk_t *k, int blk, dev_t dev, ino_t ino, const char *skip,
                           dev_t *out, char (*names)[64])
{
    char p[PATH_MAX], dir[PATH_MAX], file[PATH_MAX];
    uint32_t n = 0;
    snprintf(p, sizeof p, "%s/class/block", k->sys);
    DIR *d = opendir(p);
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < S_LOOPS) {
        struct stat st;
        if (strncmp(de->d_name, "loop", 4) != 0 || (skip && !strcmp(de->d_name, skip)))
            continue;
        snprintf(p, sizeof p, "%s/class/block/%.64s", k->sys, de->d_name);
        if (!realpath(p, dir) || !s_backing(dir, file, sizeof file) || stat(file, &st) < 0)
            continue;
        int on = blk ? S_ISBLK(st.st_mode) && st.st_rdev == dev
                     : S_ISREG(st.st_mode) && st.st_dev == dev && st.st_ino == ino;
        if (!on || !(out[n] = s_dev_of(dir)))
            continue;
        snprintf(names[n++], 64, "%.63s", de->d_name);
    }
    closedir(d);
    return n;
}

static void s_down(s_walk_t *k, const char *dir, const char *name, const char *chain, int depth);

/* Up from dev (reached through chain): the loop devices that lie on it but
 * skip, each in use or holding something, and theirs. */
static void s_up(s_walk_t *k, dev_t dev, const char *skip, const char *chain, int depth)
{
    dev_t loops[S_LOOPS];
    char names[S_LOOPS][64], dir[PATH_MAX], why[768], c2[512];
    if (depth > S_DEPTH || k->stack[0])
        return;
    uint32_t n = s_loops_on(k, 1, dev, 0, skip, loops, names);
    for (uint32_t i = 0; i < n && !k->stack[0]; i++) {
        char nm[64];
        if (s_seen(k, loops[i]) || s_sysdir(k, loops[i], dir, nm, sizeof nm) < 0)
            continue;
        snprintf(c2, sizeof c2, "%s -> %.200s", names[i], chain);
        if (s_busy(k, loops[i], dir, NULL, 1, why, sizeof why))
            s_say(k->stack, k->slen, "its stack is in use: %s, and %s is %s", c2, names[i], why);
        else {
            char p[PATH_MAX + 8];
            snprintf(p, sizeof p, "/dev/%s", names[i]);
            if (rb_devsys_signature(p, -1, why, sizeof why))
                s_say(k->holds, k->hlen, "%s lies on it (%s) and holds %s", names[i], c2, why);
        }
        s_up(k, loops[i], NULL, c2, depth + 1);
    }
}

/* The device a loop device lies on, or the other loop devices on its file. */
static void s_down_loop(s_walk_t *k, const char *dir, const char *name, const char *chain,
                        int depth)
{
    char file[PATH_MAX], bdir[PATH_MAX], bname[64], why[768], c2[512];
    struct stat st;
    if (!s_backing(dir, file, sizeof file) || stat(file, &st) < 0)
        return;
    if (S_ISREG(st.st_mode)) { /* another loop device on the same file sees what it writes */
        dev_t loops[S_LOOPS];
        char names[S_LOOPS][64];
        uint32_t n = s_loops_on(k, 0, st.st_dev, st.st_ino, name, loops, names);
        for (uint32_t i = 0; i < n && !k->stack[0]; i++) {
            char nm[64];
            if (s_sysdir(k, loops[i], bdir, nm, sizeof nm) == 0 &&
                s_busy(k, loops[i], bdir, NULL, 1, why, sizeof why))
                s_say(k->stack, k->slen, "its stack is in use: %s -> %.200s <- %s, and %s is %s",
                      chain, file, names[i], names[i], why);
        }
        return;
    }
    if (!S_ISBLK(st.st_mode) || s_seen(k, st.st_rdev) ||
        s_sysdir(k, st.st_rdev, bdir, bname, sizeof bname) < 0)
        return;
    snprintf(c2, sizeof c2, "%.300s -> %s", chain, bname);
    if (s_busy(k, st.st_rdev, bdir, NULL, 1, why, sizeof why)) {
        s_say(k->stack, k->slen, "its stack is in use: %s, and %s is %s", c2, bname, why);
        return;
    }
    if (rb_devsys_signature(file, -1, why, sizeof why))
        s_say(k->holds, k->hlen, "it lies on %s (%s), which holds %s", bname, c2, why);
    s_up(k, st.st_rdev, name, c2, depth + 1);
    s_down(k, bdir, bname, c2, depth + 1);
}

/* The device at sysfs path link, under name (reached through chain): in
 * use by other than its holder skip (with parts, its partitions too), and
 * what lies under it. */
static void s_under(s_walk_t *k, const char *link, const char *skip, int parts, const char *chain,
                    int depth)
{
    char dir[PATH_MAX], nm[64], why[768], c2[512];
    dev_t dv = realpath(link, dir) ? s_dev_of(dir) : 0;
    if (!dv || s_seen(k, dv) || s_sysdir(k, dv, dir, nm, sizeof nm) < 0)
        return;
    snprintf(c2, sizeof c2, "%.300s -> %s", chain, nm);
    if (s_busy(k, dv, dir, skip, parts, why, sizeof why))
        s_say(k->stack, k->slen, "its stack is in use: %s, and %s is %s", c2, nm, why);
    s_down(k, dir, nm, c2, depth + 1);
}

/* Down from the device at sysfs folder dir (kernel name name; reached through
 * chain): what it lies on (a loop device's device or file, the members of
 * a dm or md volume, the disk of a partition), each in use or holding
 * something, and theirs. */
static void s_down(s_walk_t *k, const char *dir, const char *name, const char *chain, int depth)
{
    char p[PATH_MAX + 16];
    if (depth > S_DEPTH || k->stack[0])
        return;
    s_down_loop(k, dir, name, chain, depth);
    snprintf(p, sizeof p, "%s/slaves", dir);
    DIR *d = opendir(p);
    struct dirent *de;
    while (d && (de = readdir(d)) && !k->stack[0]) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(p, sizeof p, "%s/slaves/%.64s", dir, de->d_name);
        s_under(k, p, name, 1, chain, depth);
    }
    if (d)
        closedir(d);
    snprintf(p, sizeof p, "%s/partition", dir);
    if (access(p, F_OK) == 0) { /* a partition: what holds its disk holds it */
        snprintf(p, sizeof p, "%s/..", dir);
        s_under(k, p, NULL, 0, chain, depth);
    }
}

void rb_devstack_check(const char *sys_root, const char *name, dev_t dev, const rb_devwriters_t *w,
                       char *stack, size_t slen, char *holds, size_t hlen)
{
    char dir[PATH_MAX], nm[64];
    rb_devwriters_t *own = NULL;
    stack[0] = holds[0] = '\0';
    if (!w && (own = malloc(sizeof *own)))
        rb_devwriters_scan(own);
    s_walk_t k = {.sys = sys_root ? sys_root : "/sys",
                  .w = w ? w : own,
                  .stack = stack,
                  .slen = slen,
                  .holds = holds,
                  .hlen = hlen};
    if (s_sysdir(&k, dev, dir, nm, sizeof nm) == 0) {
        s_seen(&k, dev);
        s_down(&k, dir, name, name, 0);
        s_up(&k, dev, NULL, name, 0);
        /* a partition of it written by another program (a database on it) */
        dev_t parts[128];
        char names[200], who[512];
        uint32_t n = rb_devsys_partitions(dir, parts, 128, names, sizeof names);
        for (uint32_t i = 0; i < n && !stack[0]; i++)
            if (rb_devwriters_find(k.w, parts[i], who, sizeof who))
                s_say(stack, slen, "its partition %u:%u is open for writing by %s", major(parts[i]),
                      minor(parts[i]), who);
    }
    free(own);
}
