/* smartctl run on one disk: fork and exec without a shell, its output
 * through a pipe (at most 4 MiB), under a deadline after which it is killed
 * and reaped. A disk it cannot read is explained from sysfs: a loop, virtio,
 * device-mapper or md device has no SMART of its own, and a RAID
 * controller's logical volume is reached through smartctl's -d type. */
#include "rb_health.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define S_OUT_MAX    (4u << 20) /* smartctl's output read at most */
#define S_TIMEOUT_MS 30000

static int s_timeout_ms = S_TIMEOUT_MS;

void rb_health_set_timeout_ms(int ms)
{
    s_timeout_ms = ms > 0 ? ms : S_TIMEOUT_MS;
}

static int64_t s_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A sysfs file's first line, trimmed, into out ("" when unreadable). */
static void s_sysfs(const char *sys, const char *name, const char *file, char *out, size_t len)
{
    char path[PATH_MAX];
    out[0] = '\0';
    snprintf(path, sizeof path, "%s/block/%s/%s", sys, name, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (!fgets(out, (int)len, f))
        out[0] = '\0';
    fclose(f);
    size_t n = strlen(out);
    while (n && isspace((unsigned char)out[n - 1]))
        out[--n] = '\0';
}

/* The names in /sys/block/NAME/slaves ("sda sdb"), "" when none. */
static void s_slaves(const char *sys, const char *name, char *out, size_t len)
{
    char path[PATH_MAX];
    size_t used = 0;
    out[0] = '\0';
    snprintf(path, sizeof path, "%s/block/%s/slaves", sys, name);
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) && used + 1 < len) {
        if (e->d_name[0] == '.')
            continue;
        int n = snprintf(out + used, len - used, "%s%s", used ? " " : "", e->d_name);
        if (n < 0 || (size_t)n >= len - used) {
            out[used] = '\0';
            break;
        }
        used += (size_t)n;
    }
    closedir(d);
}

static int s_has(const char *hay, const char *needle)
{
    return strcasestr(hay, needle) != NULL;
}

/* A RAID controller's logical volume by its sysfs vendor and model: the
 * smartctl -d type that reaches its drives, or NULL. */
static const char *s_raid_type(const char *vendor, const char *model)
{
    char both[256];
    snprintf(both, sizeof both, "%s %s", vendor, model);
    if (s_has(both, "PERC") || s_has(both, "MegaRAID") || s_has(both, "LSI") ||
        s_has(both, "AVAGO"))
        return "megaraid,N (N each drive's device id on the controller)";
    if (s_has(both, "LOGICAL VOLUME"))
        return "cciss,N (HP Smart Array; N 0..15 each drive's bay)";
    if (s_has(both, "Adaptec"))
        return "aacraid,H,L,ID (host, lun and id of each drive)";
    if (s_has(both, "Areca"))
        return "areca,N (N each drive's port)";
    if (s_has(both, "3ware") || s_has(both, "AMCC"))
        return "3ware,N (N each drive's port, through /dev/twa0 or /dev/twe0)";
    return NULL;
}

/* What the device is, when that is why it has no SMART, into out ("" when
 * nothing is known); name is its kernel name. 1 for a kind of device that
 * has no SMART of its own (loop, virtio, device-mapper, md), 0 for any
 * other (a RAID volume's drives have theirs, behind it). */
static int s_explain(const char *sys, const char *name, char *out, size_t len)
{
    char link[PATH_MAX], target[PATH_MAX], under[160];
    out[0] = '\0';
    if (!strncmp(name, "loop", 4)) {
        snprintf(out, len, "a loop device has no SMART");
        return 1;
    }
    snprintf(link, sizeof link, "%s/block/%s/device/driver", sys, name);
    ssize_t n = readlink(link, target, sizeof target - 1);
    target[n > 0 ? n : 0] = '\0';
    const char *drv = strrchr(target, '/');
    drv = drv ? drv + 1 : target;
    if (!strcmp(drv, "virtio_blk") || !strncmp(name, "vd", 2)) {
        snprintf(out, len, "a virtio disk has no SMART: its host's disk is not visible");
        return 1;
    }
    int dm = !strncmp(name, "dm-", 3), md = !strncmp(name, "md", 2);
    if (dm || md) {
        s_slaves(sys, name, under, sizeof under);
        snprintf(out, len, "%s has no SMART; read the disks under it%s%s%s",
                 dm ? "a device-mapper device" : "an md RAID device", *under ? " (" : "", under,
                 *under ? ")" : "");
        return 1;
    }
    char vendor[64], model[64];
    s_sysfs(sys, name, "device/vendor", vendor, sizeof vendor);
    s_sysfs(sys, name, "device/model", model, sizeof model);
    const char *type = s_raid_type(vendor, model);
    if (type)
        snprintf(out, len,
                 "a RAID controller's logical volume (%s %s) has no SMART; read its drives with "
                 "smartctl -d %s",
                 vendor, model, type);
    return 0;
}

/* smartctl could not read dev: add what the device is to h->reason, when
 * sysfs tells why it has no SMART. */
static void s_why(const char *sys, const char *dev, rb_health_t *h)
{
    char real[PATH_MAX], why[RB_HEALTH_REASON], prev[RB_HEALTH_REASON];
    if (!realpath(dev, real))
        return;
    const char *name = strrchr(real, '/');
    h->no_smart = (uint8_t)s_explain(sys, name ? name + 1 : real, why, sizeof why);
    if (!why[0])
        return;
    memcpy(prev, h->reason, sizeof prev);
    snprintf(h->reason, sizeof h->reason, "%s; %s", prev, why);
}

/* The child: stdout to the pipe, stdin and stderr /dev/null, its own process
 * group (the deadline kills all of it); exec's errno goes back through st. */
static void s_child(const char *prog, const char *dev, int out, int st)
{
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 2) < 0 || dup2(out, 1) < 0) {
        int e = errno;
        (void)!write(st, &e, sizeof e);
        _exit(127);
    }
    setpgid(0, 0);
    char *argv[] = {(char *)prog, "--json=c", "-a", (char *)dev, NULL};
    execvp(prog, argv);
    int e = errno;
    (void)!write(st, &e, sizeof e);
    _exit(127);
}

/* Reads the child's output into *buf until EOF, the cap or the deadline.
 * 0, -ETIMEDOUT, -EFBIG or -errno. */
static int s_collect(int fd, char **buf, size_t *len)
{
    size_t cap = 0;
    int64_t end = s_now_ms() + s_timeout_ms;
    *buf = NULL;
    *len = 0;
    for (;;) {
        int64_t left = end - s_now_ms();
        if (left <= 0)
            return -ETIMEDOUT;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -errno;
        if (r == 0)
            return -ETIMEDOUT;
        if (*len == cap) {
            if (cap >= S_OUT_MAX)
                return -EFBIG;
            size_t ncap = cap ? cap * 2 : 65536;
            char *nb = realloc(*buf, ncap + 1);
            if (!nb)
                return -ENOMEM;
            *buf = nb;
            cap = ncap;
        }
        ssize_t got = read(fd, *buf + *len, cap - *len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -errno;
        if (got == 0)
            return 0;
        *len += (size_t)got;
    }
}

/* Runs smartctl; its output into *buf (caller frees), its wait status into
 * *status. 0, or -errno with h->reason set. */
static int s_run(const char *prog, const char *dev, rb_health_t *h, char **buf, size_t *len,
                 int *status)
{
    int out[2], st[2];
    *buf = NULL;
    *len = 0;
    int made = pipe2(out, O_CLOEXEC) == 0;
    if (!made || pipe2(st, O_CLOEXEC) < 0) {
        int e = errno;
        if (made)
            close(out[0]), close(out[1]);
        snprintf(h->reason, sizeof h->reason, "cannot make a pipe for smartctl: %s", strerror(e));
        return -e;
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(out[0]), close(out[1]), close(st[0]), close(st[1]);
        snprintf(h->reason, sizeof h->reason, "cannot start %s: %s", prog, strerror(e));
        return -e;
    }
    if (pid == 0)
        s_child(prog, dev, out[1], st[1]);
    close(out[1]);
    close(st[1]);
    setpgid(pid, pid); /* also here: no race with the kill below */
    int rc = s_collect(out[0], buf, len);
    close(out[0]);
    if (rc < 0)
        kill(-pid, SIGKILL);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    int e = 0;
    ssize_t n = read(st[0], &e, sizeof e);
    close(st[0]);
    if (n == (ssize_t)sizeof e) {
        if (e == ENOENT && strchr(prog, '/'))
            snprintf(h->reason, sizeof h->reason, "no smartctl (Debian's smartmontools) at %s",
                     prog);
        else if (e == ENOENT)
            snprintf(h->reason, sizeof h->reason, "no smartctl (Debian's smartmontools) in PATH");
        else
            snprintf(h->reason, sizeof h->reason, "cannot run %s: %s", prog, strerror(e));
        return -e;
    }
    if (rc == -ETIMEDOUT)
        snprintf(h->reason, sizeof h->reason, "smartctl took more than %d %s, killed",
                 s_timeout_ms % 1000 ? s_timeout_ms : s_timeout_ms / 1000,
                 s_timeout_ms % 1000 ? "ms" : "s");
    else if (rc == -EFBIG)
        snprintf(h->reason, sizeof h->reason, "smartctl wrote more than %u MiB, killed",
                 S_OUT_MAX >> 20);
    else if (rc < 0)
        snprintf(h->reason, sizeof h->reason, "reading smartctl's output: %s", strerror(-rc));
    return rc;
}

/* A device of a kind that has no SMART (loop, virtio, device-mapper, md),
 * said in h without asking smartctl, which could only say it cannot tell
 * the device's type (tens of milliseconds, twice a run for every agent of
 * a virtual rack). 1 when it is one, else 0. Not for a program named by
 * --smartctl, which is asked of every disk (a wrapper may know better). */
static int s_no_smart(const char *sys, const char *dev, rb_health_t *h)
{
    char real[PATH_MAX], why[RB_HEALTH_REASON];
    if (!realpath(dev, real))
        return 0;
    const char *name = strrchr(real, '/');
    if (!s_explain(sys, name ? name + 1 : real, why, sizeof why))
        return 0;
    h->no_smart = 1;
    snprintf(h->reason, sizeof h->reason, "%.120s: %s", dev, why);
    return 1;
}

void rb_health_read(const char *smartctl, const char *dev, const char *sys_root, rb_health_t *h)
{
    const char *prog = smartctl && *smartctl ? smartctl : "smartctl";
    const char *sys = sys_root && *sys_root ? sys_root : "/sys";
    char *buf = NULL;
    size_t len = 0;
    int status = 0, rc;
    rb_health_clear(h); /* every counter RB_HEALTH_NA; reason set below */
    if (!dev || !*dev) {
        snprintf(h->reason, sizeof h->reason, "no device named");
    } else if (!(smartctl && *smartctl) && s_no_smart(sys, dev, h)) {
        /* not asked */
    } else if (s_run(prog, dev, h, &buf, &len, &status) >= 0) {
        if (WIFSIGNALED(status)) {
            rb_health_clear(h);
            snprintf(h->reason, sizeof h->reason, "smartctl died of signal %d", WTERMSIG(status));
        } else if ((rc = rb_health_parse(buf ? buf : "", len, h)) == 0) {
            h->exit_status = (uint32_t)WEXITSTATUS(status);
            if (h->reason[0])
                s_why(sys, dev, h);
        }
    }
    free(buf);
    snprintf(h->dev, sizeof h->dev, "%s", dev ? dev : "");
}
