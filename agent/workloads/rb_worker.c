/* What every workload does the same way with its worker: name the first
 * failure, keep bounded progress checkpoints, and count a measured operation,
 * so that data and metadata figures mean the same thing. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rb_log.h"
#include "rb_time.h"
#include "rb_worker.h"

#define S_ALIGN 4096

void rb_worker_checkpoint(rb_worker_t *w, uint64_t t, uint64_t bytes)
{
    if (w->ncp == RB_MAX_CHECKPTS) {
        /* Keep every other point and double the spacing: bounded memory,
         * resolution of at most 2/RB_MAX_CHECKPTS of the phase. */
        for (uint32_t i = 0; i < RB_MAX_CHECKPTS / 2; i++)
            w->cp[i] = w->cp[2 * i + 1];
        w->ncp = RB_MAX_CHECKPTS / 2;
        w->cp_step *= 2;
    }
    w->cp[w->ncp].t_ns = t;
    w->cp[w->ncp].bytes = bytes;
    w->ncp++;
    w->last_cp = t;
}

void rb_worker_fail(rb_worker_t *w, int code, const char *path, uint64_t off, const char *fmt, ...)
{
    if (w->status)
        return;
    char what[RB_REASON_MAX / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    w->status = code;
    if (path)
        snprintf(w->error, sizeof w->error, "%s at offset %llu of %s", what,
                 (unsigned long long)off, path);
    else
        snprintf(w->error, sizeof w->error, "%s", what);
    snprintf(w->error_path, sizeof w->error_path, "%s", path ? path : "");
    w->error_offset = off;
}

int rb_worker_goes_on(rb_worker_t *w, unsigned cls, int err)
{
    const rb_job_spec_t *s = w->spec;
    const uint8_t *list = NULL;
    uint32_t len = rb_job_ignore_list(s,
                                      cls == RB_ERR_CLASS_READ    ? 0
                                      : cls == RB_ERR_CLASS_WRITE ? 1
                                                                  : 2,
                                      &list);
    int hit = 0;
    if (!(s->continue_on_error & cls) || err <= 0)
        return 0;
    if (!len) /* fio's default list */
        hit = err == EIO || err == EILSEQ;
    for (uint32_t i = 0; i < len && !hit; i++)
        hit = list[i] == err;
    if (!hit)
        return 0;
    RB_WORKER_ADD(&w->errors, 1);
    if (!w->first_error)
        w->first_error = -err;
    return 1;
}

void *rb_worker_aligned(size_t len)
{
    void *p = NULL;
    return posix_memalign(&p, S_ALIGN, len ? len : S_ALIGN) == 0 ? p : NULL;
}

int rb_worker_sleep_until(const rb_worker_t *w, uint64_t t_ns)
{
    for (;;) {
        if (rb_worker_stopped(w))
            return -ECANCELED;
        uint64_t now = rb_time_mono_ns();
        if (now >= t_ns)
            return 0;
        rb_time_sleep_until_ns(t_ns - now > RB_WORKER_SLICE_NS ? now + RB_WORKER_SLICE_NS : t_ns);
    }
}

int rb_worker_wait_target(rb_worker_t *w)
{
    uint64_t *t = w->target;
    __atomic_store_n(&w->sw_wait, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(t, __ATOMIC_ACQUIRE) == UINT64_MAX) {
        if (rb_worker_stopped(w))
            return 0;
        rb_time_sleep_until_ns(rb_time_mono_ns() + RB_NS_PER_MS);
    }
    w->op_limit = __atomic_load_n(t, __ATOMIC_ACQUIRE);
    return 1;
}

int rb_worker_wait_for(const rb_worker_t *w)
{
    for (uint32_t i = 0; i < w->wait_n;) {
        if (__atomic_load_n(&w->wait_first[i].finished, __ATOMIC_ACQUIRE)) {
            i++;
            continue;
        }
        if (rb_worker_stopped(w))
            return -ECANCELED;
        rb_time_sleep_until_ns(rb_time_mono_ns() + RB_NS_PER_MS);
    }
    return 0;
}

uint64_t rb_worker_lockmem_bytes(uint64_t lockmem, uint64_t ram)
{
    const uint64_t keep = 128ull << 20; /* fio leaves the host this much */
    if (!ram || lockmem + keep <= ram)
        return lockmem;
    return ram > keep ? ram - keep : 0;
}

int rb_worker_lockmem(rb_worker_t *w)
{
    uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t n = rb_worker_lockmem_bytes(w->spec->lockmem, ram);
    if (!w->spec->lockmem)
        return 0;
    if (n < w->spec->lockmem) {
        rb_log(RB_LOG_INFO, "job %s worker %" PRIu32 ": lockmem limited to %" PRIu64 " MiB",
               w->spec->name, w->index, n >> 20);
    }
    void *p = mmap(NULL, (size_t)n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        rb_worker_fail(w, -e, NULL, 0, "job %s: lockmem: mmap of %" PRIu64 " bytes: %s",
                       w->spec->name, n, strerror(e));
        return -e;
    }
    if (mlock(p, (size_t)n) < 0) {
        int e = errno;
        munmap(p, (size_t)n);
        rb_worker_fail(w, -e, NULL, 0,
                       "job %s: lockmem: mlock of %" PRIu64 " bytes: %s (RLIMIT_MEMLOCK, or "
                       "CAP_IPC_LOCK)",
                       w->spec->name, n, strerror(e));
        return -e;
    }
    w->pinned = p;
    w->npinned = n;
    return 0;
}

void rb_worker_unlockmem(rb_worker_t *w)
{
    if (!w->pinned)
        return;
    munlock(w->pinned, (size_t)w->npinned);
    munmap(w->pinned, (size_t)w->npinned);
    w->pinned = NULL;
    w->npinned = 0;
}

void rb_worker_flow_join(rb_worker_t *w)
{
    if (w->flow)
        __atomic_add_fetch(&w->flow->weight, w->spec->flow, __ATOMIC_RELAXED);
}

void rb_worker_flow_leave(rb_worker_t *w)
{
    if (!w->flow)
        return;
    __atomic_sub_fetch(&w->flow->count, w->flow_count, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&w->flow->weight, w->spec->flow, __ATOMIC_RELAXED);
    w->flow = NULL;
}

int rb_worker_flow_held(rb_worker_t *w)
{
    rb_flow_t *f = w->flow;
    if (!f)
        return 0;
    /* fio: held while the worker's share of the flow's IOs is above its
     * share of the weight; weights that add to 0 hold no one back */
    uint64_t count = __atomic_load_n(&f->count, __ATOMIC_RELAXED);
    uint32_t weight = __atomic_load_n(&f->weight, __ATOMIC_RELAXED);
    if (weight && count &&
        (double)w->flow_count / (double)count > (double)w->spec->flow / (double)weight)
        return 1;
    __atomic_add_fetch(&f->count, 1, __ATOMIC_RELAXED);
    w->flow_count++;
    return 0;
}
