/* Each measured disk's health, read before a run and after it (issue 36):
 * which disks (those under the roots, the block devices the agent may
 * open), and the readings themselves, made by the background thread so
 * that the connection is kept alive while smartctl works. */
#include <errno.h>
#include <pthread.h>
#include <time.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rb_agent_int.h"
#include "rb_fs.h"
#include "rb_health.h"
#include "rb_log.h"
#include "rb_sandbox.h"
#include "rb_time.h"

/* All of a run's readings together take at most this long: a disk not
 * reached by then is reported as not read, with this as the reason. */
#define S_HEALTH_BUDGET_NS (120ull * 1000000000ull)

/* The whole disk that holds block device name ("vda1" → "vda"), from
 * sysfs: a partition's folder sits in its disk's. into out; 0 or -1. */
static int s_whole_disk(const char *sys_root, const char *name, char *out, size_t len)
{
    char path[PATH_MAX], real[PATH_MAX];
    snprintf(path, sizeof path, "%s/class/block/%s", sys_root, name);
    if (!realpath(path, real))
        return -1;
    snprintf(path, sizeof path, "%s/partition", real);
    if (access(path, F_OK) == 0) {
        char *slash = strrchr(real, '/');
        if (!slash)
            return -1;
        *slash = '\0';
    }
    const char *base = strrchr(real, '/');
    snprintf(out, len, "%s", base ? base + 1 : real);
    return 0;
}

/* Adds /dev/NAME to the run's disks unless it is there; 0, or -1 when full. */
static int s_add(rb_agent_t *a, const char *name)
{
    char dev[sizeof a->health[0].dev];
    snprintf(dev, sizeof dev, "/dev/%s", name);
    for (uint32_t i = 0; i < a->nhealth; i++)
        if (!strcmp(a->health[i].dev, dev))
            return 0;
    if (a->nhealth == RB_HEALTH_DEVS)
        return -1;
    rb_health_t *h = &a->health[a->nhealth++];
    memset(h, 0, sizeof *h);
    snprintf(h->dev, sizeof h->dev, "%s", dev);
    return 0;
}

void rb_agent_health_plan(rb_agent_t *a)
{
    a->nhealth = 0;
    if (a->o.no_health)
        return;
    rb_agent_health_unwatch(a); /* a watch of a run gone, should one be left */
    if (!a->health && !(a->health = calloc(2 * RB_HEALTH_DEVS, sizeof *a->health))) {
        rb_warn("no memory for the disks' health: none is read");
        return;
    }
    const char *sys = a->o.sys_root ? a->o.sys_root : "/sys";
    int full = 0;
    for (uint32_t i = 0; i < rb_sandbox_nroots(a->sb); i++) {
        char type[64], source[PATH_MAX], opts[256], real[PATH_MAX], disk[64];
        if (rb_fs_mount_opts(rb_sandbox_root(a->sb, i), type, sizeof type, source, sizeof source,
                             opts, sizeof opts) < 0 ||
            strncmp(source, "/dev/", 5) != 0 || !realpath(source, real))
            continue; /* tmpfs, a network file system: no disk of this node's */
        const char *name = strrchr(real, '/') + 1;
        if (s_whole_disk(sys, name, disk, sizeof disk) == 0)
            full |= s_add(a, disk);
    }
    for (uint32_t i = 0; i < a->ninv; i++)
        if (a->inv[i].access != RB_DEV_NONE && a->inv[i].name[0])
            full |= s_add(a, a->inv[i].name);
    if (full)
        rb_warn("more than %d disks to read the health of: the first %d are read", RB_HEALTH_DEVS,
                RB_HEALTH_DEVS);
}

void rb_agent_health_read(rb_agent_t *a, int after)
{
    rb_health_t *out = a->health + (after ? RB_HEALTH_DEVS : 0);
    uint64_t t0 = rb_time_mono_ns();
    for (uint32_t i = 0; i < a->nhealth; i++) {
        char dev[sizeof out[i].dev];
        snprintf(dev, sizeof dev, "%s", a->health[i].dev);
        if (rb_time_mono_ns() - t0 > S_HEALTH_BUDGET_NS) {
            rb_health_clear(&out[i]);
            snprintf(out[i].dev, sizeof out[i].dev, "%s", dev);
            snprintf(out[i].reason, sizeof out[i].reason,
                     "not read: the readings of this run's disks took more than %llu s",
                     (unsigned long long)(S_HEALTH_BUDGET_NS / 1000000000ull));
            continue;
        }
        rb_health_read(a->o.smartctl, dev, a->o.sys_root, &out[i]);
        if (after) { /* the most seen over the run's readings: before, during, after */
            uint64_t seen[2] = {a->health[i].temperature_max,
                                a->health_watches ? a->health_tmax[i] : RB_HEALTH_NA};
            for (int k = 0; k < 2; k++)
                if (seen[k] != RB_HEALTH_NA &&
                    (out[i].temperature_max == RB_HEALTH_NA || seen[k] > out[i].temperature_max))
                    out[i].temperature_max = seen[k];
        }
        if (out[i].reason[0])
            rb_debug("health of %s: %s", dev, out[i].reason);
    }
}

/* The watch of a run: every health_every_ns until told to stop, each
 * readable disk read again, its highest temperature kept. */
static void *s_watch(void *arg)
{
    rb_agent_t *a = arg;
    rb_health_t h;
    pthread_mutex_lock(&a->health_mu);
    for (;;) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t at =
            (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + a->o.health_every_ns;
        ts.tv_sec = (time_t)(at / 1000000000ull);
        ts.tv_nsec = (long)(at % 1000000000ull);
        while (!a->health_stop &&
               pthread_cond_timedwait(&a->health_cv, &a->health_mu, &ts) != ETIMEDOUT)
            ;
        if (a->health_stop)
            break;
        pthread_mutex_unlock(&a->health_mu);
        for (uint32_t i = 0; i < a->nhealth && !__atomic_load_n(&a->health_stop, __ATOMIC_ACQUIRE);
             i++) {
            if (a->health[i].reason[0]) /* not read before the run: not now either */
                continue;
            rb_health_read(a->o.smartctl, a->health[i].dev, a->o.sys_root, &h);
            uint64_t *t = &a->health_tmax[i];
            if (h.temperature_max != RB_HEALTH_NA && (*t == RB_HEALTH_NA || h.temperature_max > *t))
                *t = h.temperature_max;
        }
        pthread_mutex_lock(&a->health_mu);
        a->health_watches++;
    }
    pthread_mutex_unlock(&a->health_mu);
    return NULL;
}

void rb_agent_health_watch(rb_agent_t *a)
{
    if (!a->health_before || !a->nhealth || !a->o.health_every_ns || a->health_watching)
        return;
    for (uint32_t i = 0; i < RB_HEALTH_DEVS; i++)
        a->health_tmax[i] = RB_HEALTH_NA;
    a->health_stop = 0;
    a->health_watches = 0;
    int rc = pthread_create(&a->health_thread, NULL, s_watch, a);
    if (rc)
        rb_warn("cannot start the thread that reads the disks' temperatures during the run (%s): "
                "only the readings before and after it count",
                strerror(rc));
    else
        a->health_watching = 1;
}

void rb_agent_health_unwatch(rb_agent_t *a)
{
    if (!a->health_watching)
        return;
    pthread_mutex_lock(&a->health_mu);
    __atomic_store_n(&a->health_stop, 1, __ATOMIC_RELEASE);
    pthread_cond_signal(&a->health_cv);
    pthread_mutex_unlock(&a->health_mu);
    pthread_join(a->health_thread, NULL);
    a->health_watching = 0;
    rb_debug("the disks' health was read %u times during the run", a->health_watches);
}
