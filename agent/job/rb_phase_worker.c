/* What each worker's thread of a phase does (rb_phase.c starts them): its
 * CPUs, IO priority and nice; its buffers filled, side by side with the
 * others; the gate until GO; its workload; then its end: not counted work,
 * its files closed and its engine ended, in its own thread. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rb_cpus.h"
#include "rb_phase_worker.h"
#include "rb_time.h"
#include "rb_workload.h"

/* cpus_allowed: the worker's thread on the job's CPUs, or with split on the
 * one of them its place among the plan's workers gives, round robin, as
 * fio places its threads. 0 or -errno with the worker failed. */
static int s_affinity(rb_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    if (!s->cpus_len)
        return 0;
    cpu_set_t set;
    CPU_ZERO(&set);
    uint32_t n = rb_cpus_count(s->cpus, s->cpus_len);
    for (uint32_t i = 0; i < n; i++) {
        int c = rb_cpus_nth(s->cpus, s->cpus_len, i);
        if (!s->cpus_split || i == w->thread_no % n)
            CPU_SET(c, &set);
    }
    int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    if (rc != 0) {
        char list[64];
        rb_worker_fail(w, -rc, NULL, 0, "job %s: cannot run on CPUs %s: %s", s->name,
                       rb_cpus_fmt(s->cpus, s->cpus_len, list, sizeof list), strerror(rc));
        return -rc;
    }
    return 0;
}

/* prio and prioclass: the worker's thread's IO priority, as fio sets its
 * job's (ioprio_set of the calling thread, who 0). 0 or -errno with the
 * worker failed. */
static int s_ioprio(rb_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    if (!s->ioprio)
        return 0;
    if (syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0, (int)s->ioprio) < 0) {
        int e = errno;
        rb_worker_fail(w, -e, NULL, 0, "job %s: prioclass=%u prio=%u: ioprio_set: %s", s->name,
                       s->ioprio >> RB_IOPRIO_CLASS_SHIFT, s->ioprio & 7u, strerror(e));
        return -e;
    }
    return 0;
}

/* fio's nice: nice(2) from the worker's thread, which on Linux moves that
 * thread alone. 0 or -errno with the worker failed. */
static int s_nice(rb_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    errno = 0;
    if (!s->nice || nice((int)s->nice) != -1 || !errno)
        return 0;
    int e = errno;
    rb_worker_fail(w, -e, NULL, 0, "job %s: nice=%" PRId64 ": %s", s->name, s->nice, strerror(e));
    return -e;
}

/* Says the worker warm, then waits at the phase's gate until GO or a stop:
 * 0 at GO, -ECANCELED. */
static int s_wait_go(rb_worker_t *w)
{
    pthread_mutex_lock(&w->gate->mu);
    w->gate->warm++;
    pthread_cond_broadcast(&w->gate->cv);
    while (!w->gate->open && !rb_worker_stopped(w))
        pthread_cond_wait(&w->gate->cv, &w->gate->mu);
    int open = w->gate->open;
    pthread_mutex_unlock(&w->gate->mu);
    return open ? 0 : -ECANCELED;
}

void *rb_phase_worker_main(void *arg)
{
    rb_worker_t *w = arg;
    const rb_job_spec_t *s = w->spec;
    const rb_workload_ops_t *wl = rb_workload_for(s);
    if (wl->warm) {
        /* side by side with the others, as many at once as there are CPUs:
         * more only fight over the process's memory map, and the thread
         * that keeps the connection waits behind them */
        pthread_mutex_lock(&w->gate->mu);
        while (w->gate->warming >= w->gate->warm_max)
            pthread_cond_wait(&w->gate->cv, &w->gate->mu);
        w->gate->warming++;
        pthread_mutex_unlock(&w->gate->mu);
        wl->warm(w);
        pthread_mutex_lock(&w->gate->mu);
        w->gate->warming--;
        pthread_cond_broadcast(&w->gate->cv);
        pthread_mutex_unlock(&w->gate->mu);
    }
    if (s_wait_go(w) < 0)
        w->t_go = rb_time_mono_ns(); /* stopped before GO: it does nothing */
    /* GO, then startdelay: the worker's time (ramp, runtime) begins after both;
     * a worker stopped before it began does nothing */
    uint64_t start = w->t_go + w->delay_ns < w->t_go ? UINT64_MAX : w->t_go + w->delay_ns;
    if (s_affinity(w) == 0 && s_ioprio(w) == 0 && s_nice(w) == 0 && rb_worker_lockmem(w) == 0 &&
        rb_worker_sleep_until(w, start) == 0 && rb_worker_wait_for(w) == 0) {
        uint64_t begin = rb_time_mono_ns();
        w->count_from = begin + s->ramp_ns;
        w->deadline = s->runtime_ns ? w->count_from + s->runtime_ns : UINT64_MAX;
        w->sw_at = s->stonewall_ns ? w->count_from + s->stonewall_ns : UINT64_MAX;
        w->op_limit = UINT64_MAX;
        w->rate_start = begin;
        if (!s->ramp_ns) {
            w->t_start = w->t_end = begin;
            rb_worker_checkpoint(w, begin, 0);
        }
        wl->run(w);
        /* stopped from outside (an abort, exitall, steady state) while it
         * slept between IOs (rate, thinktime): its time runs to the stop,
         * as fio's runtime does, not to its last IO */
        uint64_t now = rb_time_mono_ns(), end = now < w->deadline ? now : w->deadline;
        if (w->t_start && rb_worker_stopped(w) && end > w->t_end)
            w->t_end = end;
    }
    rb_worker_flow_leave(w);
    rb_worker_unlockmem(w);
    if (!w->t_start)
        w->t_start = w->t_end = rb_time_mono_ns(); /* ended during ramp-up: nothing counted */
    uint64_t bytes = rb_worker_bytes(w);
    if (!w->ncp || w->cp[w->ncp - 1].t_ns != w->t_end || w->cp[w->ncp - 1].bytes != bytes)
        rb_worker_checkpoint(w, w->t_end, bytes);
    if (wl->finish)
        wl->finish(w);
    /* its files closed and its engine ended here, each worker in its own
     * thread as fio's: io_destroy waits for the kernel (tens of ms), and
     * 256 of them one after another held a phase's end for seconds */
    wl->fini(w);
    w->fini_done = 1;
    __atomic_store_n(&w->finished, 1, __ATOMIC_RELEASE);
    return NULL;
}
