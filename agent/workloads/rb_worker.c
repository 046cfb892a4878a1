/* What every workload does the same way with its worker: name the first
 * failure, keep bounded progress checkpoints, and count a measured operation,
 * so that data and metadata figures mean the same thing. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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
