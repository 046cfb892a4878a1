/* Reads the host's counters from /proc and /sys once per sample interval and
 * turns them into rates, for the devices under the agent's roots. Everything
 * is found and sized when the collector is made; a sample only opens, reads
 * and closes a few small files into buffers of its own. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "rb_telemetry.h"

#define S_LINE_MAX   4096 /* longer lines (/proc/stat's intr) are skipped whole */
#define S_DS_FIELDS  11   /* /proc/diskstats fields used, after major, minor, name */
#define S_CPU_STATES 8    /* user nice system idle iowait irq softirq steal */
#define S_SECTOR     512ULL

/* Indexes into the diskstats fields (Documentation/admin-guide/iostats.rst). */
enum {
    S_RD_IOS = 0,   /* reads completed */
    S_RD_SECT = 2,  /* sectors read */
    S_RD_MS = 3,    /* ms spent reading */
    S_WR_IOS = 4,   /* writes completed */
    S_WR_SECT = 6,  /* sectors written */
    S_WR_MS = 7,    /* ms spent writing */
    S_INFLIGHT = 8, /* IOs in flight now */
    S_TICKS = 9,    /* ms with IO in flight (io_ticks) */
    S_WEIGHTED = 10 /* ms × IOs in flight (time_in_queue) */
};

typedef struct s_dev {
    rb_telemetry_devinfo_t info;
    int have;                   /* prev holds the counters of the previous sample */
    int seen;                   /* listed in diskstats during the current sample */
    uint64_t cur[S_DS_FIELDS];  /* counters read by the current sample */
    uint64_t prev[S_DS_FIELDS]; /* counters of the previous sample */
} s_dev_t;

typedef struct s_nic {
    char name[RB_TEL_NAME_MAX]; /* "" = free slot */
    int have;                   /* prev_* hold the previous sample's counters */
    int seen;                   /* listed in /proc/net/dev during the current sample */
    uint64_t rx, tx;            /* counters read by the current sample */
    uint64_t prev_rx, prev_tx;  /* counters of the previous sample */
} s_nic_t;

struct rb_telemetry {
    char sys[PATH_MAX];              /* sys root, "/sys" in production */
    char p_stat[PATH_MAX];           /* PROC/stat */
    char p_loadavg[PATH_MAX];        /* PROC/loadavg */
    char p_diskstats[PATH_MAX];      /* PROC/diskstats */
    char p_netdev[PATH_MAX];         /* PROC/net/dev */
    char p_meminfo[PATH_MAX];        /* PROC/meminfo */
    uint32_t ndevs;                  /* devs in use */
    uint32_t dropped;                /* devices found beyond RB_TEL_MAX_DEVS */
    s_dev_t devs[RB_TEL_MAX_DEVS];   /* tracked devices, in the order found */
    s_nic_t nics[RB_TEL_MAX_NICS];   /* interfaces, by slot */
    uint32_t nics_dropped;           /* interfaces beyond the slots, this sample */
    int have;                        /* a previous sample was taken */
    uint64_t prev_ns;                /* its now_ns */
    uint64_t cpu[S_CPU_STATES];      /* CPU ticks read by the current sample */
    uint64_t prev_cpu[S_CPU_STATES]; /* ... and by the previous one */
    uint64_t ctxt, prev_ctxt;        /* context switches, current and previous */
    uint32_t ncpu;                   /* cpuN lines in the current sample */
    int cpu_line;                    /* the aggregate cpu line was found */
    double load1;                    /* 1-minute load, current sample */
    rb_telemetry_mem_t mem;          /* memory figures, current sample */
    rb_err_t err;                    /* why the last failed call failed */
    char buf[S_LINE_MAX];            /* line buffer of the file being read */
};

typedef void (*s_line_fn)(rb_telemetry_t *t, char *line);

/* Reads path line by line into t->buf, calling fn on each complete line
 * (without its '\n'). A line longer than the buffer is skipped. 0 or -errno. */
static int s_read_lines(rb_telemetry_t *t, const char *path, s_line_fn fn)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return rb_err_set(&t->err, -errno, "telemetry: %s: %s", path, strerror(errno));
    size_t len = 0;
    int skipping = 0; /* inside a line that did not fit */
    for (;;) {
        ssize_t n = read(fd, t->buf + len, sizeof t->buf - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int rc = -errno;
            close(fd);
            return rb_err_set(&t->err, rc, "telemetry: reading %s: %s", path, strerror(-rc));
        }
        if (n == 0)
            break;
        len += (size_t)n;
        char *start = t->buf, *nl;
        while ((nl = memchr(start, '\n', (size_t)(t->buf + len - start)))) {
            *nl = '\0';
            if (!skipping)
                fn(t, start);
            skipping = 0;
            start = nl + 1;
        }
        len -= (size_t)(start - t->buf);
        memmove(t->buf, start, len);
        if (len == sizeof t->buf - 1) {
            skipping = 1;
            len = 0;
        }
    }
    close(fd);
    if (len > 0 && !skipping) {
        t->buf[len] = '\0';
        fn(t, t->buf);
    }
    return 0;
}

/* Reads the first bytes of a small file into buf (NUL-terminated). Length or -errno. */
static ssize_t s_read_small(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n;
    do
        n = read(fd, buf, len - 1);
    while (n < 0 && errno == EINTR);
    int rc = n < 0 ? -errno : 0;
    close(fd);
    if (rc < 0)
        return rc;
    buf[n] = '\0';
    return n;
}

/* Parses up to max unsigned decimal numbers from s; returns how many. */
static uint32_t s_numbers(const char *s, uint64_t *v, uint32_t max)
{
    uint32_t n = 0;
    while (n < max) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s < '0' || *s > '9')
            break;
        char *end;
        v[n++] = strtoull(s, &end, 10);
        s = end;
    }
    return n;
}

static uint64_t s_delta(uint64_t cur, uint64_t prev)
{
    return cur >= prev ? cur - prev : 0;
}

/* ---- discovery --------------------------------------------------------- */

/* sysfs writes '/' in a device name as '!' ("cciss!c0d0"); diskstats does not. */
static void s_name_to(char *out, size_t len, const char *name, char from, char to)
{
    snprintf(out, len, "%s", name);
    for (char *p = out; *p; p++)
        if (*p == from)
            *p = to;
}

static int s_find_dev(const rb_telemetry_t *t, const char *name)
{
    for (uint32_t i = 0; i < t->ndevs; i++)
        if (strcmp(t->devs[i].info.name, name) == 0)
            return (int)i;
    return -1;
}

/* Whether sysfs name is a partition, and of which disk: SYS/block/DISK/NAME/partition. */
static int s_partition_disk(const rb_telemetry_t *t, const char *sysname, char *disk, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/block", t->sys);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    struct dirent *e;
    int found = 0;
    while (!found && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/block/%s/%s/partition", t->sys, e->d_name, sysname);
        if (access(path, F_OK) == 0) {
            snprintf(disk, len, "%s", e->d_name);
            found = 1;
        }
    }
    closedir(d);
    return found;
}

/* Tracks device name (diskstats form) with role and parent, then its
 * members: a partition's disk, or a device's slaves, recursively. */
static int s_track(rb_telemetry_t *t, const char *name, rb_telemetry_role_t role,
                   const char *parent, int depth, rb_err_t *err)
{
    char sysname[RB_TEL_NAME_MAX], disk[RB_TEL_NAME_MAX], path[PATH_MAX];
    if (depth > RB_TEL_MAX_DEPTH)
        return 0;
    if (strlen(name) >= RB_TEL_NAME_MAX) {
        if (depth == 0)
            return rb_err_set(err, -ENAMETOOLONG, "telemetry: device name %s too long", name);
        t->dropped++;
        return 0;
    }
    s_name_to(sysname, sizeof sysname, name, '/', '!');
    snprintf(path, sizeof path, "%s/block/%s", t->sys, sysname);
    int partition = 0;
    if (access(path, F_OK) < 0) {
        if (!s_partition_disk(t, sysname, disk, sizeof disk)) {
            if (depth == 0)
                return rb_err_set(err, -ENOENT, "telemetry: no block device %s under %s/block",
                                  name, t->sys);
            return 0; /* a slave sysfs lists but does not show: nothing to read */
        }
        partition = 1;
    }
    if (s_find_dev(t, name) >= 0)
        return 0; /* found before, with its members */
    if (t->ndevs >= RB_TEL_MAX_DEVS) {
        t->dropped++;
        return 0;
    }
    s_dev_t *d = &t->devs[t->ndevs++];
    memset(d, 0, sizeof *d);
    snprintf(d->info.name, sizeof d->info.name, "%s", name);
    snprintf(d->info.parent, sizeof d->info.parent, "%s", parent);
    d->info.role = role;
    d->info.partition = partition;

    if (partition) {
        char dname[RB_TEL_NAME_MAX];
        s_name_to(dname, sizeof dname, disk, '!', '/');
        return s_track(t, dname, RB_TEL_MEMBER, name, depth + 1, err);
    }
    snprintf(path, sizeof path, "%s/block/%s/slaves", t->sys, sysname);
    struct dirent **list = NULL;
    int n = scandir(path, &list, NULL, alphasort);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        if (rc == 0 && list[i]->d_name[0] != '.') {
            char sname[RB_TEL_NAME_MAX];
            s_name_to(sname, sizeof sname, list[i]->d_name, '!', '/');
            rc = s_track(t, sname, RB_TEL_MEMBER, name, depth + 1, err);
        }
        free(list[i]);
    }
    free(list);
    return rc;
}

rb_telemetry_t *rb_telemetry_new(const char *proc_root, const char *sys_root,
                                 const char *const *roots, uint32_t nroots, rb_err_t *err)
{
    if (!proc_root || !sys_root || (nroots > 0 && !roots)) {
        rb_err_set(err, -EINVAL, "telemetry: no /proc or /sys root given");
        return NULL;
    }
    if (strlen(proc_root) >= PATH_MAX - 32 || strlen(sys_root) >= PATH_MAX - 128) {
        rb_err_set(err, -ENAMETOOLONG, "telemetry: %s or %s: path too long", proc_root, sys_root);
        return NULL;
    }
    rb_telemetry_t *t = calloc(1, sizeof *t);
    if (!t) {
        rb_err_set(err, -ENOMEM, "telemetry: out of memory");
        return NULL;
    }
    snprintf(t->sys, sizeof t->sys, "%s", sys_root);
    snprintf(t->p_stat, sizeof t->p_stat, "%s/stat", proc_root);
    snprintf(t->p_loadavg, sizeof t->p_loadavg, "%s/loadavg", proc_root);
    snprintf(t->p_diskstats, sizeof t->p_diskstats, "%s/diskstats", proc_root);
    snprintf(t->p_netdev, sizeof t->p_netdev, "%s/net/dev", proc_root);
    snprintf(t->p_meminfo, sizeof t->p_meminfo, "%s/meminfo", proc_root);
    for (uint32_t i = 0; i < nroots; i++) {
        struct stat st;
        if (stat(roots[i], &st) < 0) {
            rb_err_set(err, -errno, "telemetry: root %s: %s", roots[i], strerror(errno));
            rb_telemetry_destroy(&t);
            return NULL;
        }
        rb_err_t e;
        rb_err_clear(&e);
        int rc = rb_telemetry_add_devno(t, major(st.st_dev), minor(st.st_dev), &e);
        if (rc < 0 && rc != -ENODEV) {
            rb_err_set(err, rc, "%s (root %s)", e.msg, roots[i]);
            rb_telemetry_destroy(&t);
            return NULL;
        }
    }
    return t;
}

void rb_telemetry_destroy(rb_telemetry_t **p)
{
    if (!p || !*p)
        return;
    free(*p);
    *p = NULL;
}

int rb_telemetry_add_device(rb_telemetry_t *t, const char *name, rb_err_t *err)
{
    if (!name || !name[0] || strchr(name, '.') == name)
        return rb_err_set(err, -EINVAL, "telemetry: bad device name \"%s\"", name ? name : "");
    return s_track(t, name, RB_TEL_ROOT, "", 0, err);
}

int rb_telemetry_add_devno(rb_telemetry_t *t, uint32_t major, uint32_t minor, rb_err_t *err)
{
    char path[PATH_MAX], buf[512], name[RB_TEL_NAME_MAX] = "";
    snprintf(path, sizeof path, "%s/dev/block/%u:%u", t->sys, major, minor);
    if (access(path, F_OK) < 0)
        return rb_err_set(err, -ENODEV, "telemetry: %u:%u is not a block device (no %s)", major,
                          minor, path);
    /* uevent says DEVNAME= in diskstats form; the link's last part is the sysfs form */
    snprintf(path, sizeof path, "%s/dev/block/%u:%u/uevent", t->sys, major, minor);
    if (s_read_small(path, buf, sizeof buf) > 0) {
        char *p = strstr(buf, "DEVNAME=");
        if (p && (p == buf || p[-1] == '\n')) {
            p += strlen("DEVNAME=");
            size_t n = strcspn(p, "\n");
            if (n > 0 && n < sizeof name)
                snprintf(name, sizeof name, "%.*s", (int)n, p);
        }
    }
    if (!name[0]) {
        char link[PATH_MAX];
        snprintf(path, sizeof path, "%s/dev/block/%u:%u", t->sys, major, minor);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n <= 0)
            return rb_err_set(err, -ENODEV, "telemetry: %s: no DEVNAME in uevent and no link",
                              path);
        link[n] = '\0';
        const char *base = strrchr(link, '/');
        s_name_to(name, sizeof name, base ? base + 1 : link, '!', '/');
    }
    return s_track(t, name, RB_TEL_ROOT, "", 0, err);
}

uint32_t rb_telemetry_ndevs(const rb_telemetry_t *t)
{
    return t->ndevs;
}

const rb_telemetry_devinfo_t *rb_telemetry_dev(const rb_telemetry_t *t, uint32_t i)
{
    return i < t->ndevs ? &t->devs[i].info : NULL;
}

uint32_t rb_telemetry_dropped(const rb_telemetry_t *t)
{
    return t->dropped;
}

const char *rb_telemetry_error(const rb_telemetry_t *t)
{
    return t->err.msg;
}

/* ---- sampling ---------------------------------------------------------- */

static void s_stat_line(rb_telemetry_t *t, char *line)
{
    if (strncmp(line, "cpu", 3) == 0) {
        if (line[3] == ' ') {
            memset(t->cpu, 0, sizeof t->cpu); /* old kernels list fewer states */
            s_numbers(line + 3, t->cpu, S_CPU_STATES);
            t->cpu_line = 1;
        } else if (line[3] >= '0' && line[3] <= '9') {
            t->ncpu++;
        }
    } else if (strncmp(line, "ctxt ", 5) == 0) {
        s_numbers(line + 5, &t->ctxt, 1);
    }
}

static void s_loadavg_line(rb_telemetry_t *t, char *line)
{
    t->load1 = strtod(line, NULL);
}

static void s_meminfo_line(rb_telemetry_t *t, char *line)
{
    char *colon = strchr(line, ':');
    if (!colon)
        return;
    *colon = '\0';
    uint64_t kb = 0;
    if (s_numbers(colon + 1, &kb, 1) != 1)
        return;
    uint64_t bytes = kb * 1024; /* meminfo's "kB" are KiB */
    if (strcmp(line, "MemTotal") == 0)
        t->mem.total = bytes;
    else if (strcmp(line, "Cached") == 0)
        t->mem.cached = bytes;
    else if (strcmp(line, "Dirty") == 0)
        t->mem.dirty = bytes;
    else if (strcmp(line, "Writeback") == 0)
        t->mem.writeback = bytes;
}

/* "   8       0 sda 1 2 3 ...": 11 (kernels < 4.18), 15 (+discards) or 17
 * (+flushes) fields after the name; older 4-field partition lines are skipped. */
static void s_diskstats_line(rb_telemetry_t *t, char *line)
{
    uint64_t mm[2]; /* major, minor: the name is what identifies a device */
    char *p = line;
    for (int i = 0; i < 2; i++) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (s_numbers(p, &mm[i], 1) != 1)
            return;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    while (*p == ' ' || *p == '\t')
        p++;
    char *name = p;
    while (*p && *p != ' ' && *p != '\t')
        p++;
    if (!*p || p == name)
        return;
    *p++ = '\0';
    int i = s_find_dev(t, name);
    if (i < 0)
        return;
    uint64_t v[S_DS_FIELDS];
    if (s_numbers(p, v, S_DS_FIELDS) < S_DS_FIELDS)
        return;
    memcpy(t->devs[i].cur, v, sizeof v);
    t->devs[i].seen = 1;
}

/* "  eth0: rx_bytes rx_packets ... (8 rx fields) tx_bytes ..." */
static void s_netdev_line(rb_telemetry_t *t, char *line)
{
    char *colon = strchr(line, ':');
    if (!colon)
        return; /* the two header lines */
    *colon = '\0';
    char *name = line;
    while (*name == ' ' || *name == '\t')
        name++;
    if (!*name || strcmp(name, "lo") == 0)
        return;
    uint64_t v[9];
    if (s_numbers(colon + 1, v, 9) < 9)
        return;
    s_nic_t *slot = NULL, *free_slot = NULL;
    for (uint32_t i = 0; i < RB_TEL_MAX_NICS && !slot; i++) {
        if (t->nics[i].name[0] == '\0') {
            if (!free_slot)
                free_slot = &t->nics[i];
        } else if (strcmp(t->nics[i].name, name) == 0) {
            slot = &t->nics[i];
        }
    }
    if (!slot && (!free_slot || strlen(name) >= RB_TEL_NAME_MAX)) {
        t->nics_dropped++;
        return;
    }
    if (!slot) {
        slot = free_slot;
        memset(slot, 0, sizeof *slot);
        snprintf(slot->name, sizeof slot->name, "%s", name);
    }
    slot->rx = v[0];
    slot->tx = v[8];
    slot->seen = 1;
}

/* Link speed in Mb/s from SYS/class/net/NAME/speed; 0 when unknown. */
static uint32_t s_speed(const rb_telemetry_t *t, const char *name)
{
    char path[PATH_MAX], buf[32];
    snprintf(path, sizeof path, "%s/class/net/%s/speed", t->sys, name);
    if (s_read_small(path, buf, sizeof buf) <= 0)
        return 0; /* absent, or EINVAL for a link that is down or virtual */
    char *end;
    long v = strtol(buf, &end, 10);
    if (end == buf || v <= 0 || v > UINT32_MAX)
        return 0;
    return (uint32_t)v;
}

/* Rates of device d over dt_s seconds from its cur and prev counters. */
static void s_dev_rates(const s_dev_t *d, double dt_s, rb_telemetry_dev_t *o)
{
    uint64_t dv[S_DS_FIELDS];
    for (int i = 0; i < S_DS_FIELDS; i++)
        dv[i] = s_delta(d->cur[i], d->prev[i]);
    double dt_ms = dt_s * 1000.0;
    o->rd_bps = (double)(dv[S_RD_SECT] * S_SECTOR) / dt_s;
    o->wr_bps = (double)(dv[S_WR_SECT] * S_SECTOR) / dt_s;
    o->rd_iops = (double)dv[S_RD_IOS] / dt_s;
    o->wr_iops = (double)dv[S_WR_IOS] / dt_s;
    o->util_pct = 100.0 * (double)dv[S_TICKS] / dt_ms;
    if (o->util_pct > 100.0)
        o->util_pct = 100.0; /* the caller's clock and the kernel's differ slightly */
    o->queue_depth = (double)dv[S_WEIGHTED] / dt_ms;
    uint64_t ios = dv[S_RD_IOS] + dv[S_WR_IOS];
    if (ios > 0)
        o->await_ms = (double)(dv[S_RD_MS] + dv[S_WR_MS]) / (double)ios;
    if (dv[S_RD_IOS] > 0)
        o->rd_await_ms = (double)dv[S_RD_MS] / (double)dv[S_RD_IOS];
    if (dv[S_WR_IOS] > 0)
        o->wr_await_ms = (double)dv[S_WR_MS] / (double)dv[S_WR_IOS];
}

/* Reads every source into t's current figures; a failure leaves the
 * previous sample in place. 0 or -errno with t->err set. */
static int s_read_all(rb_telemetry_t *t)
{
    rb_err_clear(&t->err);
    t->ncpu = 0;
    t->cpu_line = 0;
    t->ctxt = 0;
    t->load1 = 0;
    memset(&t->mem, 0, sizeof t->mem);
    t->nics_dropped = 0;
    for (uint32_t i = 0; i < t->ndevs; i++)
        t->devs[i].seen = 0;
    for (uint32_t i = 0; i < RB_TEL_MAX_NICS; i++)
        t->nics[i].seen = 0;

    int rc = s_read_lines(t, t->p_stat, s_stat_line);
    if (rc == 0 && !t->cpu_line)
        rc = rb_err_set(&t->err, -EBADMSG, "telemetry: %s: no aggregate cpu line", t->p_stat);
    if (rc == 0)
        rc = s_read_lines(t, t->p_loadavg, s_loadavg_line);
    if (rc == 0)
        rc = s_read_lines(t, t->p_meminfo, s_meminfo_line);
    if (rc == 0)
        rc = s_read_lines(t, t->p_diskstats, s_diskstats_line);
    if (rc == 0)
        rc = s_read_lines(t, t->p_netdev, s_netdev_line);
    return rc;
}

/* The interfaces into out (rates over dt_s when rates); frees the slots of
 * those that are gone. */
static void s_nics_out(rb_telemetry_t *t, int rates, double dt_s, rb_telemetry_snap_t *out)
{
    out->nics_dropped = t->nics_dropped;
    for (uint32_t i = 0; i < RB_TEL_MAX_NICS; i++) {
        s_nic_t *n = &t->nics[i];
        if (!n->name[0])
            continue;
        if (!n->seen) {
            n->name[0] = '\0'; /* gone: its slot is free again */
            n->have = 0;
            continue;
        }
        rb_telemetry_nic_t *o = &out->nics[out->nnics++];
        snprintf(o->name, sizeof o->name, "%s", n->name);
        o->rx_bytes = n->rx;
        o->tx_bytes = n->tx;
        o->speed_mbps = s_speed(t, n->name);
        if (rates && n->have) {
            o->rx_bps = (double)s_delta(n->rx, n->prev_rx) / dt_s;
            o->tx_bps = (double)s_delta(n->tx, n->prev_tx) / dt_s;
        }
        n->prev_rx = n->rx;
        n->prev_tx = n->tx;
        n->have = 1;
    }
}

int rb_telemetry_sample(rb_telemetry_t *t, uint64_t now_ns, rb_telemetry_snap_t *out)
{
    int rc = s_read_all(t);
    if (rc < 0)
        return rc;

    int rates = t->have && now_ns > t->prev_ns;
    double dt_s = rates ? (double)(now_ns - t->prev_ns) / 1e9 : 0.0;
    memset(out, 0, sizeof *out);
    out->t_ns = now_ns;
    out->interval_s = dt_s;

    rb_telemetry_cpu_t *c = &out->cpu;
    c->ncpu = t->ncpu;
    c->load1 = t->load1;
    if (rates) {
        uint64_t d[S_CPU_STATES], total = 0;
        for (int i = 0; i < S_CPU_STATES; i++) {
            d[i] = s_delta(t->cpu[i], t->prev_cpu[i]);
            total += d[i];
        }
        if (total > 0) {
            double *pct[S_CPU_STATES] = {&c->user,   &c->nice, &c->system,  &c->idle,
                                         &c->iowait, &c->irq,  &c->softirq, &c->steal};
            for (int i = 0; i < S_CPU_STATES; i++)
                *pct[i] = 100.0 * (double)d[i] / (double)total;
        }
        c->ctxt_per_s = (double)s_delta(t->ctxt, t->prev_ctxt) / dt_s;
    }
    memcpy(t->prev_cpu, t->cpu, sizeof t->cpu);
    t->prev_ctxt = t->ctxt;
    out->mem = t->mem;

    out->ndevs = t->ndevs;
    out->devs_dropped = t->dropped;
    for (uint32_t i = 0; i < t->ndevs; i++) {
        s_dev_t *d = &t->devs[i];
        rb_telemetry_dev_t *o = &out->devs[i];
        o->info = d->info;
        o->present = d->seen;
        if (!d->seen) {
            d->have = 0;
            continue;
        }
        o->rd_bytes = d->cur[S_RD_SECT] * S_SECTOR;
        o->wr_bytes = d->cur[S_WR_SECT] * S_SECTOR;
        o->inflight = (uint32_t)d->cur[S_INFLIGHT];
        if (rates && d->have)
            s_dev_rates(d, dt_s, o);
        memcpy(d->prev, d->cur, sizeof d->cur);
        d->have = 1;
    }

    s_nics_out(t, rates, dt_s, out);
    t->have = 1;
    t->prev_ns = now_ns;
    return rates ? 1 : 0;
}

/* ---- judging ----------------------------------------------------------- */

/* Orders doubles, NaN first, so that sorting is well defined. */
