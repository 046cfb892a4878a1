/* fio's ioscheduler (rb_iosched.h): a device's queue/scheduler in sysfs,
 * reached from its device number, offers its schedulers with the one in use
 * in brackets ("[none] mq-deadline kyber"). */
#include "rb_iosched.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rb_log.h"

/* The scheduler file's text into buf. 0 or -errno. */
static int s_read(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, buf, len - 1);
    int e = errno;
    close(fd);
    if (n < 0)
        return -e;
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

static int s_write(const char *path, const char *name)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = write(fd, name, strlen(name));
    int e = errno;
    close(fd);
    return n < 0 ? -e : 0;
}

/* The name in brackets of text into out ("" when none). */
static void s_current(const char *text, char *out, size_t len)
{
    const char *a = strchr(text, '[');
    const char *b = a ? strchr(a, ']') : NULL;
    out[0] = '\0';
    if (a && b && (size_t)(b - a - 1) < len)
        snprintf(out, len, "%.*s", (int)(b - a - 1), a + 1);
}

/* 1 when name is one of the words of text (brackets aside). */
static int s_offered(const char *text, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = text; (p = strstr(p, name)) != NULL; p += n) {
        int start = p == text || p[-1] == ' ' || p[-1] == '[';
        int end = p[n] == '\0' || p[n] == ' ' || p[n] == ']';
        if (start && end)
            return 1;
    }
    return 0;
}

int rb_iosched_set(const char *dev, const char *name, rb_iosched_saved_t *saved, rb_err_t *err)
{
    struct stat st;
    char text[512], now[RB_SCHED_MAX];
    saved->path[0] = saved->old[0] = '\0';
    if (stat(dev, &st) < 0 || !S_ISBLK(st.st_mode))
        return rb_err_set(err, -ENOTBLK, "ioscheduler=%s: %s is not a block device", name, dev);
    unsigned ma = major(st.st_rdev), mi = minor(st.st_rdev);
    snprintf(saved->path, sizeof saved->path, "/sys/dev/block/%u:%u/queue/scheduler", ma, mi);
    if (access(saved->path, F_OK) < 0) /* a partition: its disk's queue */
        snprintf(saved->path, sizeof saved->path, "/sys/dev/block/%u:%u/../queue/scheduler", ma,
                 mi);
    int rc = s_read(saved->path, text, sizeof text);
    if (rc < 0) {
        saved->path[0] = '\0';
        return rb_err_set(err, rc, "ioscheduler=%s: %s has no IO scheduler to set (%s)", name, dev,
                          strerror(-rc));
    }
    if (!s_offered(text, name)) {
        saved->path[0] = '\0';
        return rb_err_set(err, -EINVAL, "ioscheduler=%s: %s offers only: %s", name, dev, text);
    }
    s_current(text, saved->old, sizeof saved->old);
    rc = s_write(saved->path, name);
    if (rc == 0)
        rc = s_read(saved->path, text, sizeof text);
    s_current(rc == 0 ? text : "", now, sizeof now);
    if (rc < 0 || strcmp(now, name) != 0) {
        rb_iosched_restore(saved);
        saved->path[0] = '\0';
        return rb_err_set(err, rc < 0 ? rc : -EIO, "ioscheduler=%s: setting it on %s failed: %s",
                          name, dev, rc < 0 ? strerror(-rc) : "it did not take");
    }
    return 0;
}

void rb_iosched_restore(const rb_iosched_saved_t *saved)
{
    if (!saved->path[0] || !saved->old[0])
        return;
    int rc = s_write(saved->path, saved->old);
    if (rc < 0)
        rb_warn("ioscheduler: cannot put %s back to %s: %s", saved->path, saved->old,
                strerror(-rc));
}
