/* The run's state machine on the agent: idle → preparing (checks a PLAN
 * against the sandbox, makes run folders, lays out files, prepares the first
 * phase) → ready → running a phase (samples, stonewalls) → turning (the
 * phase's workers released, the page cache dropped and the next phase
 * prepared, then DONE) → ready ... → cleaning (after END: the run's files
 * removed, then END).
 *
 * Runs on the agent's main thread, which also keeps the connection, so
 * nothing here that may take long (laying out, setting up workers and their
 * buffers, io_destroy, closing and flushing files, removing files) runs on
 * it: that is the background thread's, one task at a time (s_bg_start),
 * while the main thread goes on sending heartbeats. A GO or an END that
 * comes during a task waits for its end (s_bg_over). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rb_agent_int.h"
#include "rb_devjob.h"
#include "rb_fs.h"
#include "rb_engine.h"
#include "rb_job.h"
#include "rb_layout.h"
#include "rb_log.h"
#include "rb_lustre.h"
#include "rb_phase.h"
#include "rb_prefill.h"
#include "rb_time.h"
#include "rb_verify.h"

/* a->state; calloc'ed 0 is idle */
enum { S_IDLE, S_PREPARING, S_READY, S_RUNNING, S_TURNING, S_CLEANING };
/* a->bg_kind: the background thread's task */
enum { S_BG_LAYOUT, S_BG_TURN, S_BG_PREPARE, S_BG_CLEANUP };

/* drop_caches: when a job of phase p reads and asks for it, writes dirty
 * data back and drops the page cache (root only), so the phase reads from
 * the disks; the outcome goes into the phase's DONE. */
static void s_drop_caches(rb_agent_t *a, uint32_t p)
{
    const rb_msg_plan_t *pl = &a->plan.u.plan;
    int want = 0;
    a->drop_done = 0;
    a->drop_status = 0;
    for (uint32_t j = 0; p < pl->nphases && j < pl->phases[p].njobs; j++)
        want |= pl->phases[p].jobs[j].drop_caches && rb_rw_reads(pl->phases[p].jobs[j].rw);
    if (!want)
        return;
    sync();
    int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "3\n", 2) != 2)
        a->drop_status = -errno;
    else
        a->drop_done = 1;
    if (fd >= 0)
        close(fd);
    if (a->drop_status)
        rb_warn("phase %s: cannot drop the page cache: %s", pl->phases[p].name,
                strerror(-a->drop_status));
}

static void s_free_rundirs(rb_agent_t *a)
{
    if (a->rundirs) {
        for (uint32_t p = 0; p < a->plan.u.plan.nphases; p++)
            free(a->rundirs[p]);
        free(a->rundirs);
        a->rundirs = NULL;
    }
}

/* Prepares phase p (next_ctx and next_caps were set for it): its workers
 * set up and waiting at their gate, or the reason it cannot be in next_rc
 * and next_err, for its GO to tell. On the background thread. */
static void s_prepare(rb_agent_t *a, uint32_t p)
{
    const rb_msg_plan_t *pl = &a->plan.u.plan;
    if (p >= pl->nphases || __atomic_load_n(&a->prep_stop, __ATOMIC_ACQUIRE))
        return;
    rb_err_clear(&a->next_err);
    a->next_index = p;
    a->next = rb_phase_prepare(&pl->phases[p], p, a->sb, a->rundirs[p], &a->next_ctx, &a->next_err);
    a->next_rc = a->next ? 0 : a->next_err.code ? a->next_err.code : -EIO;
}

static void *s_bg_main(void *arg)
{
    rb_agent_t *a = arg;
    int rc = 0;
    switch (a->bg_kind) {
    case S_BG_LAYOUT:
        if (a->nhealth) { /* before any IO of the run */
            rb_agent_health_read(a, 0);
            a->health_before = 1;
        }
        for (uint32_t i = 0; i < rb_layout_count(a->layout) && rc == 0; i++) {
            const rb_layout_item_t *it = rb_layout_item(a->layout, i);
            rc = rb_prefill_write(a->sb, it->rundir, a->plan.u.plan.run_id, it->name, &it->pf,
                                  &a->prep_stop, &a->prefill_bytes, &a->prep_err);
        }
        if (rc == 0)
            s_drop_caches(a, 0);
        if (rc == 0)
            s_prepare(a, 0);
        break;
    case S_BG_TURN: /* the phase done: its workers' engines and files closed, then the next */
        rb_phase_release(a->ending);
        if (a->next_index < a->plan.u.plan.nphases) {
            s_drop_caches(a, a->next_index);
            s_prepare(a, a->next_index);
        }
        break;
    case S_BG_PREPARE:
        s_prepare(a, a->next_index);
        break;
    case S_BG_CLEANUP:
        rb_phase_release(a->ending);
        rb_phase_release(a->next);
        rb_phase_release(a->phase);
        rc = rb_sandbox_cleanup(a->sb, &a->removed, &a->prep_err);
        rb_agent_health_unwatch(a);
        if (a->health_before)
            rb_agent_health_read(a, 1);
        break;
    }
    a->prep_rc = rc;
    __atomic_store_n(&a->prep_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Starts the background task kind; where no thread can be made, runs it here. */
static void s_bg_start(rb_agent_t *a, int kind)
{
    a->bg_kind = kind;
    rb_err_clear(&a->prep_err);
    a->prep_done = 0;
    a->prep_rc = 0;
    int rc = pthread_create(&a->prep, NULL, s_bg_main, a);
    if (rc == 0) {
        a->prep_started = 1;
        return;
    }
    rb_warn("cannot start a thread (%s): the agent's work goes on on its main thread",
            strerror(rc));
    s_bg_main(a);
}

/* 1 when no background task runs (the one that ran joined), 0 while one does. */
static int s_bg_over(rb_agent_t *a)
{
    if (!a->prep_started)
        return 1;
    if (!__atomic_load_n(&a->prep_done, __ATOMIC_ACQUIRE))
        return 0;
    pthread_join(a->prep, NULL);
    a->prep_started = 0;
    return 1;
}

/* Sets next_ctx and next_caps for phase p, on the main thread, before its
 * preparation: where its workers stand among the plan's, what earlier
 * worn-out writes left. */
static void s_next_ctx(rb_agent_t *a, uint32_t p)
{
    const rb_msg_plan_t *pl = &a->plan.u.plan;
    a->next_ctx = rb_agent_plan_ctx(a);
    for (uint32_t q = 0; q < p && q < pl->nphases; q++)
        for (uint32_t j = 0; j < pl->phases[q].njobs; j++)
            a->next_ctx.thread_base += pl->phases[q].jobs[j].numjobs;
    if (p < pl->nphases)
        rb_agent_plan_caps(a, &pl->phases[p], a->next_caps);
    a->next_ctx.caps = a->next_caps;
    a->next_index = p;
}

/* Forgets the run (its files gone, or left to the caller): its phases, its
 * layout and run folders, its PLAN; the agent idle. */
static void s_forget(rb_agent_t *a)
{
    rb_phase_destroy(&a->phase);
    rb_phase_destroy(&a->next);
    rb_phase_destroy(&a->ending);
    rb_layout_destroy(&a->layout);
    s_free_rundirs(a);
    rb_net_port_close(&a->net_port);
    rb_msg_fini(&a->plan);
    a->state = S_IDLE;
    free(a->go.links);
    a->go.links = NULL;
    a->go.nlinks = 0;
    a->go_waiting = a->end_pending = a->done_held = 0;
}

/* Ends the current run here and now: stops IO, waits for the background
 * task, removes files, forgets the plan. For an agent that leaves the run
 * (no coordinator to keep alive); END goes through S_BG_CLEANUP instead. */
static int s_end_run(rb_agent_t *a, uint64_t *removed, rb_err_t *err)
{
    if (a->phase)
        rb_phase_stop(a->phase);
    __atomic_store_n(&a->prep_stop, 1, __ATOMIC_RELEASE); /* no wait for a large layout */
    if (a->prep_started) {
        pthread_join(a->prep, NULL);
        a->prep_started = 0;
    }
    /* after the background task, whose clean-up (an END's) ends the watch
     * too: both joining the watch's thread at once hung the agent */
    rb_agent_health_unwatch(a);
    rb_phase_destroy(&a->phase);
    rb_phase_destroy(&a->next);
    rb_phase_destroy(&a->ending);
    int rc = rb_sandbox_cleanup(a->sb, removed, err);
    s_forget(a);
    return rc;
}

/* Leaves a run without the coordinator's say-so (lost it, or a signal). */
void rb_agent_state_abandon(rb_agent_t *a, const char *why)
{
    uint64_t removed = 0;
    rb_err_t err;
    rb_err_clear(&err);
    rb_warn("abandoning run %s: %s", a->plan.u.plan.run_id, why);
    if (s_end_run(a, &removed, &err) < 0)
        rb_error("cleanup: %s", err.msg);
    a->exit_code = 3;
    if (a->o.once)
        a->quit = 1;
}

int rb_agent_state_active(const rb_agent_t *a)
{
    return a->state != S_IDLE;
}

void rb_agent_state_plan(rb_agent_t *a, rb_msg_t *m)
{
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_agent_state_active(a)) {
        rb_msg_t busy = {.type = RB_MSG_REFUSED};
        snprintf(busy.u.refused.run_id, sizeof busy.u.refused.run_id, "%s", m->u.plan.run_id);
        busy.u.refused.code = -EBUSY;
        snprintf(busy.u.refused.reason, sizeof busy.u.refused.reason,
                 "agent %s is busy with run %s", a->o.name, a->plan.u.plan.run_id);
        rb_agent_send(a, &busy);
        rb_msg_fini(m);
        return;
    }
    a->plan = *m; /* take over the decoded arrays */
    memset(m, 0, sizeof *m);
    a->plan_wall_ns = rb_time_wall_ns();
    a->state = S_PREPARING;
    a->run_failed = 0;
    a->exit_all = 0;
    a->nextents = 0;
    a->prefill_bytes = 0;
    a->go_waiting = a->end_pending = 0;
    a->space->type = RB_MSG_NONE;
    int rc = rb_agent_plan_accept(a, &err);
    if (rc < 0) {
        uint64_t removed = 0;
        rb_warn("refusing plan %s: %s", a->plan.u.plan.run_id, err.msg);
        /* short of space: what this node needs and saw, first, so that the
         * coordinator can tell a file system that other nodes of the run
         * are filling as this one looks */
        if (rc == -ENOSPC && a->space->type == RB_MSG_SPACE)
            rb_agent_send(a, a->space);
        rb_agent_send_reason(a, RB_MSG_REFUSED, rc, err.msg);
        s_end_run(a, &removed, NULL);
        if (a->o.once) {
            a->exit_code = 3;
            a->quit = 1;
        }
        return;
    }
    rb_agent_send(a, a->space); /* before any layout: the coordinator adds nodes up */
    rb_agent_health_plan(a);
    a->health_before = 0;
    a->prep_stop = 0;
    a->removed = 0;
    s_next_ctx(a, 0);
    s_bg_start(a, S_BG_LAYOUT);
}
static void s_send_done_error(rb_agent_t *a, uint32_t phase, int code, const char *msg)
{
    rb_msg_t d = {.type = RB_MSG_DONE};
    snprintf(d.u.done.run_id, sizeof d.u.done.run_id, "%s", a->plan.u.plan.run_id);
    d.u.done.phase = phase;
    d.u.done.status = code;
    snprintf(d.u.done.error, sizeof d.u.done.error, "%s", msg);
    rb_agent_send(a, &d);
}

/* GO of the prepared phase: its workers go at the local equivalent of the
 * coordinator's time. */
static void s_go(rb_agent_t *a, const rb_msg_go_t *go)
{
    const rb_msg_plan_t *pl = &a->plan.u.plan;
    uint64_t t_local = (uint64_t)((int64_t)go->t_go_ns + go->offset_ns);
    a->go_waiting = 0;
    a->done_hold_ns = go->done_hold_ns;
    if (!a->next) {
        rb_error("phase %s: %s", pl->phases[go->phase].name, a->next_err.msg);
        s_send_done_error(a, go->phase, a->next_rc ? a->next_rc : -EIO,
                          a->next_err.msg[0] ? a->next_err.msg : "the phase was not prepared");
        a->run_failed = 1;
        return;
    }
    uint64_t now = rb_time_mono_ns();
    if (now > t_local + 100 * RB_NS_PER_MS)
        rb_warn("phase %s: workers ready %.3f s after the GO time", pl->phases[go->phase].name,
                (double)(now - t_local) / 1e9);
    char why[RB_REASON_MAX];
    int rc = rb_phase_links(a->next, go->links, go->nlinks, why, sizeof why);
    if (rc < 0) {
        rb_error("%s", why);
        s_send_done_error(a, go->phase, rc, why);
        a->run_failed = 1;
        return;
    }
    a->phase = a->next;
    a->next = NULL;
    a->interval_ns = go->interval_ns ? go->interval_ns : pl->interval_ns;
    rb_phase_go(a->phase, t_local);
    if (a->exit_all)
        rb_phase_stop(a->phase); /* exit_what=all ended this node's run: no IO */
    a->state = S_RUNNING;
    a->next_sample = t_local + a->interval_ns;
    if (a->tel) /* prime at GO: the phase's first sample then has rates */
        rb_telemetry_sample(a->tel, t_local > now ? now : t_local, a->snap);
}

static void s_done_flush(rb_agent_t *a);

void rb_agent_state_go(rb_agent_t *a, const rb_msg_go_t *go)
{
    const rb_msg_plan_t *pl = &a->plan.u.plan;
    s_done_flush(a); /* a GO comes after the DONE before it */
    if (a->state != S_READY || a->go_waiting || strcmp(go->run_id, pl->run_id) != 0 ||
        go->phase >= pl->nphases) {
        char why[RB_REASON_MAX];
        snprintf(why, sizeof why, "GO for run %s phase %u does not fit: agent %s %s run %s",
                 go->run_id, go->phase, a->o.name,
                 a->state == S_READY && !a->go_waiting ? "is ready for" : "is not ready in",
                 pl->run_id);
        rb_agent_send_reason(a, RB_MSG_ERROR, -EINVAL, why);
        return;
    }
    if (go->interval_ns && go->interval_ns < 10 * RB_NS_PER_MS) {
        char why[RB_REASON_MAX];
        snprintf(why, sizeof why, "GO for phase %s: sample interval %llu ns is below 10 ms",
                 pl->phases[go->phase].name, (unsigned long long)go->interval_ns);
        s_send_done_error(a, go->phase, -EINVAL, why);
        a->run_failed = 1;
        return;
    }
    if (a->next_index == go->phase && s_bg_over(a)) {
        s_go(a, go);
        return;
    }
    /* A GO for another phase than the one prepared: that one goes, this one
     * is prepared, and the GO waits for it (late, and said so). */
    a->go = *go;
    a->go.links = NULL; /* the message's, freed after this call: a copy of its own */
    if (go->nlinks && (a->go.links = malloc(go->nlinks * sizeof *go->links)) != NULL)
        memcpy(a->go.links, go->links, go->nlinks * sizeof *go->links);
    else
        a->go.nlinks = 0;
    a->go_waiting = 1;
    if (a->prep_started)
        return; /* its preparation is on; the tick goes on from there */
    rb_phase_destroy(&a->next);
    s_next_ctx(a, go->phase);
    s_bg_start(a, S_BG_PREPARE);
}

static uint64_t s_u64(double v)
{
    return v > 0 ? (uint64_t)(v + 0.5) : 0;
}

/* Reads the host now; 1 with a->telem filled for the interval since the
 * previous reading, 0 on a first (priming) reading or without telemetry. */
static int s_telemetry_read(rb_agent_t *a, uint64_t now)
{
    if (!a->tel)
        return 0;
    int rc = rb_telemetry_sample(a->tel, now, a->snap);
    if (rc < 0) {
        rb_warn("host telemetry stops: %s", rb_telemetry_error(a->tel));
        rb_telemetry_destroy(&a->tel);
        return 0;
    }
    if (rc == 0)
        return 0;
    const rb_telemetry_snap_t *s = a->snap;
    rb_telem_t *t = &a->telem;
    memset(t, 0, sizeof *t);
    t->user_pm = (uint32_t)s_u64((s->cpu.user + s->cpu.nice) * 10);
    t->system_pm = (uint32_t)s_u64(s->cpu.system * 10);
    t->iowait_pm = (uint32_t)s_u64(s->cpu.iowait * 10);
    t->idle_pm = (uint32_t)s_u64(s->cpu.idle * 10);
    t->irq_pm = (uint32_t)s_u64((s->cpu.irq + s->cpu.softirq) * 10);
    if (t->user_pm > 1000)
        t->user_pm = 1000;
    if (t->system_pm > 1000)
        t->system_pm = 1000;
    if (t->iowait_pm > 1000)
        t->iowait_pm = 1000;
    if (t->idle_pm > 1000)
        t->idle_pm = 1000;
    if (t->irq_pm > 1000)
        t->irq_pm = 1000;
    t->ncpu = s->cpu.ncpu;
    t->load1_m = (uint32_t)s_u64(s->cpu.load1 * 1000);
    t->ctxt_per_s = s_u64(s->cpu.ctxt_per_s);
    t->cached = s->mem.cached;
    t->dirty = s->mem.dirty;
    t->writeback = s->mem.writeback;
    for (uint32_t i = 0; i < s->ndevs && t->ndevs < RB_TELEM_DEVS; i++) {
        const rb_telemetry_dev_t *d = &s->devs[i];
        if (!d->present)
            continue;
        rb_telem_dev_t *w = &t->devs[t->ndevs++];
        snprintf(w->name, sizeof w->name, "%s", d->info.name);
        snprintf(w->parent, sizeof w->parent, "%s", d->info.parent);
        w->member = d->info.role == RB_TEL_MEMBER;
        w->rd_bps = s_u64(d->rd_bps);
        w->wr_bps = s_u64(d->wr_bps);
        w->rd_iops = s_u64(d->rd_iops);
        w->wr_iops = s_u64(d->wr_iops);
        w->util_pm = (uint32_t)s_u64(d->util_pct * 10);
        if (w->util_pm > 1000)
            w->util_pm = 1000;
        w->qdepth_m = s_u64(d->queue_depth * 1000);
        w->await_us = s_u64(d->await_ms * 1000);
        /* this interval's bytes, exactly: the device's own counters */
        w->rd_bytes = s_u64(d->rd_bps * s->interval_s);
        w->wr_bytes = s_u64(d->wr_bps * s->interval_s);
    }
    for (uint32_t i = 0; i < s->nnics && t->nnics < RB_TELEM_NICS; i++) {
        rb_telem_nic_t *w = &t->nics[t->nnics++];
        snprintf(w->name, sizeof w->name, "%s", s->nics[i].name);
        w->rx_bps = s_u64(s->nics[i].rx_bps);
        w->tx_bps = s_u64(s->nics[i].tx_bps);
        w->speed_mbps = s->nics[i].speed_mbps;
    }
    return 1;
}

static void s_send_sample(rb_agent_t *a, uint64_t now)
{
    rb_msg_t s = {.type = RB_MSG_SAMPLE};
    rb_phase_sample(a->phase, a->plan.u.plan.run_id, &s.u.sample);
    if (s_telemetry_read(a, rb_time_mono_ns())) {
        s.u.sample.ntelem = 1;
        s.u.sample.telem = &a->telem;
    }
    rb_agent_send(a, &s);
    while (a->next_sample <= now)
        a->next_sample += a->interval_ns;
}

/* DONE of the phase ended (a->done, its arrays in a->ending); a DONE whose
 * figures do not encode fails the phase rather than leave the coordinator
 * waiting for it. */
static void s_send_done(rb_agent_t *a)
{
    if (rb_agent_send(a, &a->done) < 0 && a->encode_error[0]) {
        char why[RB_REASON_MAX];
        snprintf(why, sizeof why, "agent %s: %s", a->o.name, a->encode_error);
        s_send_done_error(a, a->done.u.done.phase, -EPROTO, why);
        a->run_failed = 1;
    }
}

/* The turned phase's DONE, and its workers' phase freed, once the hold
 * its GO asked for is over (done_hold_ns after its last SAMPLE): until
 * then it is held, and the tick sends it. A fleet's last samples and
 * DONEs sent together had the coordinator read the samples behind the
 * DONEs (13 KiB a connection beside a SAMPLE's 2), and the live figures
 * of a phase's last second came late. */
static void s_done_out(rb_agent_t *a, uint64_t now)
{
    a->done_held = now < a->done_at;
    if (a->done_held)
        return;
    s_send_done(a);
    rb_phase_destroy(&a->ending);
}

/* A held DONE goes now: before an END, a GO or the run's end. */
static void s_done_flush(rb_agent_t *a)
{
    if (!a->done_held)
        return;
    a->done_at = 0;
    s_done_out(a, 0);
}

/* The phase's workers are done (or told to stop): last sample and totals.
 * When the run goes on, the workers are released (engines, files) and the
 * next phase prepared in the background, with the page cache dropped for
 * it, before DONE: the coordinator's next GO finds it ready. An aborted
 * phase's DONE goes now; the clean-up releases it. */
static void s_finish_phase(rb_agent_t *a, int go_on)
{
    uint64_t now = rb_time_mono_ns();
    s_send_sample(a, now);
    a->done_at = now + a->done_hold_ns;
    memset(&a->done, 0, sizeof a->done);
    a->done.type = RB_MSG_DONE;
    rb_msg_done_t *d = &a->done.u.done;
    if (rb_phase_collect(a->phase, a->plan.u.plan.run_id, d) < 0) {
        rb_error("phase %s: %s", a->plan.u.plan.phases[d->phase].name, d->error);
        a->run_failed = 1;
    }
    d->caches_dropped = a->drop_done;
    d->drop_status = a->drop_status;
    a->ending = a->phase;
    a->phase = NULL;
    if (!go_on) {
        s_send_done(a);
        a->state = S_READY;
        return;
    }
    a->state = S_TURNING;
    s_next_ctx(a, d->phase + 1);
    s_bg_start(a, S_BG_TURN);
}

/* stonewall_time with wearout: tells the coordinator when a job's workers
 * have all stopped at their stonewall, with the most ops any of them did. */
static void s_check_stonewalls(rb_agent_t *a)
{
    const rb_msg_plan_t *pl = &a->plan.u.plan;
    uint32_t p = rb_phase_index(a->phase);
    const rb_phase_spec_t *ph = &pl->phases[p];
    uint64_t ops;
    for (uint32_t j = 0; j < ph->njobs; j++) {
        if (!ph->jobs[j].wearout || !ph->jobs[j].stonewall_ns ||
            !rb_phase_stonewalled(a->phase, j, &ops))
            continue;
        rb_msg_t m = {.type = RB_MSG_STONEWALL};
        snprintf(m.u.stonewall.run_id, sizeof m.u.stonewall.run_id, "%s", pl->run_id);
        m.u.stonewall.phase = p;
        m.u.stonewall.job = j;
        m.u.stonewall.ops = ops;
        rb_agent_send(a, &m);
    }
}

static void s_tick_phase(rb_agent_t *a, uint64_t now)
{
    if (a->state != S_RUNNING)
        return;
    /* before DONE: a node whose workers all finished early tells it too */
    s_check_stonewalls(a);
    rb_phase_steady(a->phase, now);
    if (rb_phase_exitall(a->phase) == 2)
        a->exit_all = 1;
    if (rb_phase_finished(a->phase)) {
        s_finish_phase(a, 1);
        return;
    }
    if (now >= a->next_sample)
        s_send_sample(a, now);
}

/* END (or ABORT) from the coordinator once nothing runs in the background:
 * the files are removed in the background (S_BG_CLEANUP). */
static void s_end(rb_agent_t *a, const char *run_id, int aborted)
{
    s_done_flush(a);
    a->end_pending = 0;
    if (aborted && a->state == S_RUNNING) {
        /* Report what was done until now, as a phase that ended early. */
        rb_phase_stop(a->phase);
        s_finish_phase(a, 0);
    }
    snprintf(a->end_run_id, sizeof a->end_run_id, "%s", run_id);
    a->end_aborted = aborted;
    a->end_failed = a->run_failed;
    a->go_waiting = 0;
    __atomic_store_n(&a->prep_stop, 1, __ATOMIC_RELEASE);
    a->cleanup_t0 = rb_time_mono_ns();
    a->state = S_CLEANING;
    s_bg_start(a, S_BG_CLEANUP);
}

/* The clean-up is over: END with what it removed, and the run forgotten. */
static void s_ended(rb_agent_t *a)
{
    rb_msg_t e = {.type = RB_MSG_END};
    snprintf(e.u.end.run_id, sizeof e.u.end.run_id, "%s", a->end_run_id);
    e.u.end.status = a->prep_rc;
    e.u.end.removed_files = a->removed;
    if (a->health_before) {
        e.u.end.nhealth = a->nhealth;
        e.u.end.health = a->health + RB_HEALTH_DEVS;
    }
    a->health_before = 0;
    if (a->prep_rc < 0)
        rb_error("cleanup: %s", a->prep_err.msg);
    s_forget(a);
    rb_agent_send(a, &e);
    rb_info("run %s %s; %llu files removed in %.1f s", a->end_run_id,
            a->end_aborted ? "aborted" : "ended", (unsigned long long)a->removed,
            (double)(rb_time_mono_ns() - a->cleanup_t0) / 1e9);
    if (a->o.once) {
        a->exit_code = a->end_failed || e.u.end.status < 0 ? 3 : 0;
        a->quit = 1;
    }
}

void rb_agent_state_end(rb_agent_t *a, const char *run_id, int aborted)
{
    if (!rb_agent_state_active(a) || strcmp(run_id, a->plan.u.plan.run_id) != 0) {
        if (aborted)
            return;                      /* nothing of ours to abort */
        if (!rb_agent_state_active(a)) { /* an END again, or for a run gone: confirmed */
            rb_msg_t e = {.type = RB_MSG_END};
            snprintf(e.u.end.run_id, sizeof e.u.end.run_id, "%s", run_id);
            rb_agent_send(a, &e);
            return;
        }
    }
    if (a->state == S_CLEANING || a->end_pending)
        return;            /* on its way */
    if (a->prep_started) { /* a layout, a turn or a preparation first */
        __atomic_store_n(&a->prep_stop, 1, __ATOMIC_RELEASE);
        snprintf(a->end_run_id, sizeof a->end_run_id, "%s", run_id);
        a->end_aborted = aborted;
        a->end_pending = 1;
        return;
    }
    s_end(a, run_id, aborted);
}

void rb_agent_state_wearout(rb_agent_t *a, const rb_msg_wear_t *w)
{
    if (a->state == S_RUNNING && strcmp(w->run_id, a->plan.u.plan.run_id) == 0 &&
        rb_phase_index(a->phase) == w->phase && w->job < a->plan.u.plan.phases[w->phase].njobs) {
        rb_phase_wearout(a->phase, w->job, w->ops);
        rb_agent_plan_extent(a, &a->plan.u.plan.phases[w->phase].jobs[w->job], w->ops);
    }
}

/* The background task is over: what its state waited for. */
static void s_bg_done(rb_agent_t *a)
{
    switch (a->state) {
    case S_PREPARING:
        if (a->end_pending)
            break;
        if (a->prep_rc < 0) {
            rb_agent_send_reason(a, RB_MSG_REFUSED, a->prep_rc, a->prep_err.msg);
            rb_agent_state_abandon(a, a->prep_err.msg);
            return;
        }
        rb_msg_t r = {.type = RB_MSG_READY};
        snprintf(r.u.ready.run_id, sizeof r.u.ready.run_id, "%s", a->plan.u.plan.run_id);
        r.u.ready.prefill_bytes = a->prefill_bytes;
        if (a->net_port.fd >= 0) {
            snprintf(r.u.ready.net_addr, sizeof r.u.ready.net_addr, "%s", a->net_port.addr);
            r.u.ready.net_port = a->net_port.port;
        }
        r.u.ready.nhealth = a->health_before ? a->nhealth : 0;
        r.u.ready.health = a->health;
        rb_agent_send(a, &r);
        rb_agent_health_watch(a);
        a->state = S_READY;
        break;
    case S_TURNING:
        a->state = S_READY;
        s_done_out(a, rb_time_mono_ns());
        break;
    case S_CLEANING:
        s_ended(a);
        return;
    }
    if (a->end_pending) {
        char run_id[sizeof a->end_run_id];
        snprintf(run_id, sizeof run_id, "%s", a->end_run_id);
        s_end(a, run_id, a->end_aborted);
    } else if (a->go_waiting && a->state == S_READY) {
        rb_msg_go_t go = a->go; /* its phase is prepared now, or is prepared next */
        a->go_waiting = 0;
        a->go.links = NULL;
        rb_agent_state_go(a, &go);
        free(go.links);
    }
}

void rb_agent_state_tick(rb_agent_t *a, uint64_t now)
{
    if (a->done_held)
        s_done_out(a, now);
    if (a->prep_started && s_bg_over(a))
        s_bg_done(a);
    s_tick_phase(a, now);
}

uint64_t rb_agent_state_removed(const rb_agent_t *a)
{
    return a->state == S_CLEANING ? __atomic_load_n(&a->removed, __ATOMIC_RELAXED) : 0;
}

void rb_agent_state_close(rb_agent_t *a)
{
    if (rb_agent_state_active(a)) {
        uint64_t removed = 0;
        s_end_run(a, &removed, NULL);
    }
}
