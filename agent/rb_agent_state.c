/* The run's state machine on the agent: idle → preparing (checks a PLAN
 * against the sandbox, makes run folders, lays out files in a thread) →
 * ready → running a phase (samples, stonewalls, DONE) → ready ... → END
 * removes the run's files. Runs on the agent's main thread; the connection
 * (rb_agent.c) feeds it messages and timer ticks. */
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

enum { S_IDLE, S_PREPARING, S_READY, S_RUNNING }; /* a->state; calloc'ed 0 is idle */

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

/* Ends the current run: stops IO, removes files, forgets the plan. */
static int s_end_run(rb_agent_t *a, uint64_t *removed, rb_err_t *err)
{
    if (a->phase)
        rb_phase_stop(a->phase);
    rb_phase_destroy(&a->phase);
    if (a->prep_started) {
        __atomic_store_n(&a->prep_stop, 1, __ATOMIC_RELEASE); /* no wait for a large layout */
        pthread_join(a->prep, NULL);
        a->prep_started = 0;
    }
    int rc = rb_sandbox_cleanup(a->sb, removed, err);
    rb_layout_destroy(&a->layout);
    s_free_rundirs(a);
    rb_msg_fini(&a->plan);
    a->state = S_IDLE;
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

static void *s_prep_main(void *arg)
{
    rb_agent_t *a = arg;
    int rc = 0;
    for (uint32_t i = 0; i < rb_layout_count(a->layout) && rc == 0; i++) {
        const rb_layout_item_t *it = rb_layout_item(a->layout, i);
        rc = rb_prefill_write(a->sb, it->rundir, a->plan.u.plan.run_id, it->name, &it->pf,
                              &a->prep_stop, &a->prefill_bytes, &a->prep_err);
    }
    if (rc == 0)
        s_drop_caches(a, 0);
    a->prep_rc = rc;
    __atomic_store_n(&a->prep_done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* What names a job's data set: its folder, its files and how they are laid
 * out. A read with the same key reads what the write with it wrote. */
static void s_data_key(const rb_job_spec_t *js, char *out, size_t len)
{
    if (js->rw == RB_RW_META) { /* a metadata set: its folder, its name, its kind */
        int dir = js->meta_op == RB_META_MKDIR || js->meta_op == RB_META_STATDIR ||
                  js->meta_op == RB_META_RMDIR;
        snprintf(out, len, "meta|%s|%s|%d|%d", js->directory, js->filename_format, js->meta_shared,
                 dir);
        return;
    }
    snprintf(out, len, "%s|%s|%s|%d|%d|%llu", js->directory, js->filename, js->filename_format,
             js->shared_file, (int)js->layout,
             (unsigned long long)(js->transfer ? js->transfer : js->bs));
}

/* WEAROUT for a write job of one file per worker: every worker writes
 * exactly ops blocks, the rest of its file (or region) stays unwritten, and
 * later reads of the set must stop there (as IOR reads what a stonewalled
 * write left). */
static void s_note_extent(rb_agent_t *a, const rb_job_spec_t *js, uint64_t ops)
{
    char key[sizeof a->extents[0].key];
    int meta = js->rw == RB_RW_META;
    if (!meta && (!rb_rw_writes(js->rw) || rb_rw_reads(js->rw) || js->nrfiles > 1 ||
                  js->bs_max != js->bs || rb_rw_random(js->rw)))
        return; /* a random or mixed write leaves holes anywhere: nothing to cap */
    s_data_key(js, key, sizeof key);
    uint32_t i = 0;
    while (i < a->nextents && strcmp(a->extents[i].key, key) != 0)
        i++;
    if (i == RB_AGENT_MAX_EXTENTS)
        return;
    if (i == a->nextents)
        a->nextents++;
    snprintf(a->extents[i].key, sizeof a->extents[i].key, "%s", key);
    if (meta)
        a->extents[i].bytes = ops; /* items made by every worker */
    else
        a->extents[i].bytes = ops > UINT64_MAX / js->bs ? UINT64_MAX : ops * js->bs;
}

/* Blocks of each file a read job of the phase may read (0 = all). */
static void s_read_caps(const rb_agent_t *a, const rb_phase_spec_t *ph, uint64_t *caps)
{
    char key[sizeof a->extents[0].key];
    for (uint32_t j = 0; j < ph->njobs; j++) {
        const rb_job_spec_t *js = &ph->jobs[j];
        caps[j] = 0;
        if (js->rw == RB_RW_META) {
            s_data_key(js, key, sizeof key);
            for (uint32_t i = 0; i < a->nextents; i++)
                if (!strcmp(a->extents[i].key, key))
                    caps[j] = a->extents[i].bytes ? a->extents[i].bytes : 1;
            continue;
        }
        if (!rb_rw_reads(js->rw) || rb_rw_writes(js->rw) || !js->bs)
            continue;
        s_data_key(js, key, sizeof key);
        for (uint32_t i = 0; i < a->nextents; i++)
            if (!strcmp(a->extents[i].key, key))
                caps[j] = a->extents[i].bytes / js->bs ? a->extents[i].bytes / js->bs : 1;
    }
}

/* Where this agent stands in the run, from its PLAN. */
static rb_job_ctx_t s_ctx(const rb_agent_t *a)
{
    const rb_msg_plan_t *pl = &a->plan.u.plan;
    return (rb_job_ctx_t){.run_id = pl->run_id,
                          .rank = pl->node_rank,
                          .nnodes = pl->nnodes ? pl->nnodes : 1,
                          .lead = pl->lead[0] ? pl->lead : a->o.name,
                          .peers = pl->peers,
                          .npeers = pl->npeers,
                          .run_start_ns = a->plan_wall_ns};
}

/* Checks the cross-node options of a job: a shared file's layout, whose data
 * a read gets, stonewalling. 0 or -errno with err set. */
static int s_check_across(const rb_job_spec_t *js, const rb_job_ctx_t *ctx, rb_err_t *err)
{
    uint64_t t = js->transfer ? js->transfer : js->bs;
    int meta = js->rw == RB_RW_META;
    if (js->read_shift &&
        (meta ? !rb_meta_op_looks(js->meta_op) : !rb_rw_reads(js->rw) || rb_rw_writes(js->rw)))
        return rb_err_set(err, -EINVAL, "job %s: read_from is for phases that only read", js->name);
    if (js->read_shift && !js->shared_file && !rb_job_peer(ctx, js->read_shift)[0])
        return rb_err_set(err, -EINVAL,
                          "job %s: reads from the node %u on, but the plan names no such node",
                          js->name, js->read_shift);
    if (js->shared_file && (js->filename[0] || js->nrfiles > 1 || js->rw == RB_RW_META))
        return rb_err_set(err, -EINVAL,
                          "job %s: a shared file is one file: no filename, nrfiles or rw=meta",
                          js->name);
    if (js->shared_file && js->layout == RB_LAYOUT_STRIDED &&
        (t % js->bs || (js->bs_max > js->bs) || rb_job_filesize(js) % t))
        return rb_err_set(err, -EINVAL,
                          "job %s: strided layout needs a fixed bs dividing transfer=%llu, and "
                          "a size per worker that is a multiple of it",
                          js->name, (unsigned long long)t);
    if (js->wearout && !js->stonewall_ns)
        return rb_err_set(err, -EINVAL, "job %s: wearout needs stonewall_time", js->name);
    if (js->stonewall_ns && meta && !rb_meta_op_creates(js->meta_op))
        return rb_err_set(err, -EINVAL, "job %s: meta_stonewall is for create and mkdir steps",
                          js->name);
    return 0;
}

/* Checks one job against what this agent can run. 0 or -errno with err set. */
/* cpus_allowed: every CPU the job names is one this agent may run on (its
 * own affinity, as taskset or a cgroup set it). 0 or -EINVAL with err set. */
static int s_check_cpus(const rb_job_spec_t *js, rb_err_t *err)
{
    cpu_set_t mine;
    if (!js->cpus_len || sched_getaffinity(0, sizeof mine, &mine) < 0)
        return 0;
    uint8_t have[RB_CPUS_BYTES] = {0};
    for (int c = 0; c < RB_CPUS_MAX && c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mine))
            have[c / 8] |= (uint8_t)(1u << (c % 8));
    for (uint32_t i = 0; i < js->cpus_len * 8; i++) {
        if (js->cpus[i / 8] >> (i % 8) & 1 && !(have[i / 8] >> (i % 8) & 1)) {
            char list[256];
            return rb_err_set(err, -EINVAL,
                              "job %s: cpus_allowed names CPU %u, which this agent may not run "
                              "on (it has %s)",
                              js->name, i, rb_cpus_fmt(have, RB_CPUS_BYTES, list, sizeof list));
        }
    }
    return 0;
}

static int s_check_job(const rb_job_spec_t *js, rb_err_t *err)
{
    const char *eng = js->ioengine[0] ? js->ioengine : "sync";
    const rb_engine_ops_t *ops = rb_engine_find(eng);
    uint64_t bmax = js->bs_max > js->bs ? js->bs_max : js->bs;
    if (!rb_rw_name(js->rw))
        return rb_err_set(err, -EINVAL, "job %s: unknown access pattern", js->name);
    if (s_check_cpus(js, err) < 0)
        return err->code;
    if (!ops)
        return rb_err_set(err, -ENOENT, "job %s: ioengine=%s is not in this agent (it has %s)",
                          js->name, eng, rb_engine_names());
    if (js->rw == RB_RW_META) {
        if (js->meta_op == RB_META_NONE || js->meta_files == 0 || js->numjobs == 0)
            return rb_err_set(err, -EINVAL, "job %s: a metadata step needs an operation and files",
                              js->name);
        if (js->meta_shared && (js->meta_dirs > 1 || js->meta_depth))
            return rb_err_set(err, -EINVAL,
                              "job %s: meta_shared_dir puts every file in one folder: no "
                              "meta_dirs or meta_depth",
                              js->name);
        return 0;
    }
    /* a file's size is settled at GO (rb_devjob_file_size) */
    if (js->bs == 0 || js->numjobs == 0 || (rb_job_filesize(js) < js->bs && !rb_job_file_sized(js)))
        return rb_err_set(err, -EINVAL, "job %s: bs=%llu, file size %llu, numjobs=%u", js->name,
                          (unsigned long long)js->bs, (unsigned long long)rb_job_filesize(js),
                          js->numjobs);
    if (js->direct &&
        (js->bs % 512 || bmax % 512 || js->offset % 512 || js->offset_increment % 512))
        return rb_err_set(err, -EINVAL,
                          "job %s: bs=%llu, bs_max=%llu, offset=%llu, offset_increment=%llu: "
                          "direct IO needs multiples of 512",
                          js->name, (unsigned long long)js->bs, (unsigned long long)bmax,
                          (unsigned long long)js->offset, (unsigned long long)js->offset_increment);
    if (js->time_based && !js->runtime_ns)
        return rb_err_set(err, -EINVAL, "job %s: time_based without runtime", js->name);
    if (js->verify && (bmax != js->bs || js->bs < rb_verify_hdr_len(js->verify)))
        return rb_err_set(
            err, -EINVAL,
            "job %s: verify=%s needs one block size of at least %u bytes (no bsrange)", js->name,
            rb_verify_name(js->verify), rb_verify_hdr_len(js->verify));
    /* A kernel without the engine's facility: say so now, not at GO. */
    rb_engine_t e;
    rb_engine_opts_t eo = rb_job_engine_opts(js);
    int rc = rb_engine_init(&e, ops, js->iodepth ? js->iodepth : 1, &eo);
    if (rc == -EINVAL && eo.sqpoll && eo.sqpoll_aff)
        return rb_err_set(err, rc,
                          "job %s: ioengine=%s with sqthread_poll_cpu=%u cannot start here: %s "
                          "(is CPU %u online on this node?)",
                          js->name, eng, eo.sqpoll_cpu, strerror(-rc), eo.sqpoll_cpu);
    if (rc < 0)
        return rb_err_set(err, rc, "job %s: ioengine=%s cannot start here: %s", js->name, eng,
                          rc == -ENOSYS  ? "not supported by this kernel"
                          : rc == -EPERM ? "disabled on this host"
                                         : strerror(-rc));
    rb_engine_fini(&e);
    return 0;
}

/* lustre_stripe_count / lustre_stripe_size of job js on run folder idx
 * (and, for a shared file, on the run's shared folder beside it): applied
 * with lfs when the folder is on Lustre, else noted in the log. Once per
 * folder (done[] marks it). 0 or -errno with err set for a REFUSED. */
static int s_lustre(rb_agent_t *a, const rb_job_spec_t *js, int idx, uint8_t *done, rb_err_t *err)
{
    if (!js->lustre_stripe_count && !js->lustre_stripe_size)
        return 0;
    const char *run = rb_sandbox_rundir_path(a->sb, idx);
    char dirs[2][RB_PATH_MAX];
    int n = 0;
    if (!(done[idx] & 1)) {
        snprintf(dirs[n++], sizeof dirs[0], "%s", run ? run : "");
        done[idx] |= 1;
    }
    if (js->shared_file && !(done[idx] & 2)) {
        int fd = rb_sandbox_shared_dir(a->sb, idx, a->plan.u.plan.run_id, err);
        if (fd < 0)
            return fd;
        close(fd);
        const char *slash = run ? strrchr(run, '/') : NULL;
        snprintf(dirs[n++], sizeof dirs[0], "%.*s/rackbench.%s.shared",
                 slash ? (int)(slash - run) : 0, run ? run : "", a->plan.u.plan.run_id);
        done[idx] |= 2;
    }
    for (int i = 0; i < n; i++) {
        int rc = rb_lustre_setstripe(dirs[i], js->lustre_stripe_count, js->lustre_stripe_size, err);
        if (rc < 0)
            return rc;
        if (rc == 0)
            rb_info("job %s: lustre_stripe_count/lustre_stripe_size skipped: %s is not on Lustre",
                    js->name, dirs[i]);
        else
            rb_info("job %s: lfs setstripe applied to %s", js->name, dirs[i]);
    }
    return 0;
}

/* What the plan writes on each file system of this agent (run folders on
 * one device add up), into a->space for the coordinator, which adds up the
 * nodes sharing one; each must leave --reserve free. 0 or -ENOSPC with err
 * set for a REFUSED. */
static int s_check_space(rb_agent_t *a, rb_err_t *err)
{
    rb_msg_space_t *sp = &a->space->u.space;
    int first[RB_MAX_ROOTS]; /* the run folder that names each file system */
    const rb_msg_plan_t *pl = &a->plan.u.plan;
    for (uint32_t p = 0; p < pl->nphases && a->o.reserve_pct; p++)
        for (uint32_t j = 0; j < pl->phases[p].njobs; j++)
            if (pl->phases[p].jobs[j].fill_device && !pl->phases[p].jobs[j].device[0])
                return rb_err_set(err, -ENOSPC,
                                  "job %s: fill_device fills its file system, and this agent "
                                  "keeps %d%% of each free (--reserve): run the agent with "
                                  "--reserve 0 to allow it",
                                  pl->phases[p].jobs[j].name, a->o.reserve_pct);
    a->space->type = RB_MSG_SPACE;
    snprintf(sp->run_id, sizeof sp->run_id, "%s", a->plan.u.plan.run_id);
    sp->nfs = 0;
    for (int i = 0; i < RB_SANDBOX_MAX_RUNDIRS && rb_sandbox_rundir_path(a->sb, i); i++) {
        const char *path = rb_sandbox_rundir_path(a->sb, i);
        uint64_t fr = 0, total = 0;
        struct stat st;
        if (stat(path, &st) < 0 || rb_sandbox_rundir_space(a->sb, i, &fr, &total) < 0)
            continue;
        uint32_t k = 0;
        while (k < sp->nfs && sp->fs[k].dev != (uint64_t)st.st_dev)
            k++;
        if (k == RB_MAX_ROOTS)
            continue;
        if (k == sp->nfs) {
            rb_space_info_t *f = &sp->fs[sp->nfs++];
            const char *slash = strrchr(path, '/');
            size_t len = slash && slash != path ? (size_t)(slash - path) : strlen(path);
            *f = (rb_space_info_t){.dev = (uint64_t)st.st_dev,
                                   .free_bytes = fr,
                                   .total_bytes = total,
                                   .reserve_bytes = total / 100 * (uint64_t)a->o.reserve_pct};
            snprintf(f->path, sizeof f->path, "%.*s", (int)len, path);
            if (rb_fs_mount_of(path, f->fs_type, sizeof f->fs_type, f->source, sizeof f->source) ==
                0)
                f->shared = (uint8_t)rb_fs_type_shared(f->fs_type);
            first[k] = i;
        }
        sp->fs[k].need_bytes += rb_layout_need(a->layout, i);
    }
    for (uint32_t k = 0; k < sp->nfs; k++) {
        int rc = rb_sandbox_space_check(rb_sandbox_rundir_path(a->sb, first[k]),
                                        sp->fs[k].need_bytes, sp->fs[k].free_bytes,
                                        sp->fs[k].total_bytes, (unsigned)a->o.reserve_pct, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* Checks a plan against this agent (sandbox, engines, capacity, memory),
 * makes its run folders and works out which files to lay out. Returns 0 or
 * -errno with err set for a REFUSED. */
static int s_accept_plan(rb_agent_t *a, rb_err_t *err)
{
    const rb_msg_plan_t *pl = &a->plan.u.plan;
    uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    if (pl->nphases == 0)
        return rb_err_set(err, -EINVAL, "plan has no phases");
    if (pl->interval_ns < 10 * RB_NS_PER_MS)
        return rb_err_set(err, -EINVAL, "sample interval %llu ns is below 10 ms",
                          (unsigned long long)pl->interval_ns);
    a->rundirs = calloc(pl->nphases, sizeof *a->rundirs);
    if (!a->rundirs)
        return rb_err_set(err, -ENOMEM, "out of memory");
    uint8_t striped[RB_SANDBOX_MAX_RUNDIRS] = {0};
    for (uint32_t p = 0; p < pl->nphases; p++) {
        const rb_phase_spec_t *ph = &pl->phases[p];
        uint64_t workers = 0, bufmem = 0;
        a->rundirs[p] = calloc((size_t)(ph->njobs ? ph->njobs : 1) * RB_DIRS_MAX, sizeof(int));
        if (!a->rundirs[p])
            return rb_err_set(err, -ENOMEM, "out of memory");
        for (uint32_t j = 0; j < ph->njobs; j++) {
            const rb_job_spec_t *js = &ph->jobs[j];
            char dir[RB_PATH_MAX];
            rb_job_ctx_t ctx = s_ctx(a);
            /* a job on devices is settled against them here (its size) */
            /* read_from=random: this node's source in the cycle, as a shift */
            if (rb_job_settle_random((rb_job_spec_t *)js, &ctx) < 0)
                return rb_err_set(err, -ENOMEM, "out of memory");
            int rc = js->device[0]
                         ? rb_devjob_claim(a->sb, (rb_job_spec_t *)js, err)
                         : rb_sandbox_check_device(a->sb, js->directory, js->filename, err);
            if (rc == 0 && js->existing) { /* a file that is there: it must be, now */
                char path[RB_PATH_MAX];
                rc = rb_sandbox_open_existing(a->sb, js->directory, js->filename, O_RDONLY, path,
                                              sizeof path, err);
                rc = rc < 0 ? rc : close(rc);
            }
            if (rc == 0)
                rc = s_check_job(js, err);
            if (rc == 0)
                rc = s_check_across(js, &ctx, err);
            if (rc < 0)
                return rc;
            uint64_t bmax = js->bs_max > js->bs ? js->bs_max : js->bs;
            workers += js->numjobs;
            bufmem += (uint64_t)js->numjobs * (js->iodepth ? js->iodepth : 1) * bmax;
            for (uint32_t k = 0; k < RB_DIRS_MAX; k++)
                RB_JOB_RUNDIR(a->rundirs[p], j, k) = -1;
            if (js->device[0])
                continue; /* no run folder: the job's IO goes to its devices */
            /* a run folder in each directory of its list (fio's "/a:/b") */
            for (uint32_t k = 0; k < rb_job_ndirs(js); k++) {
                char one[RB_PATH_MAX];
                if (rb_job_dir(js, k, one, sizeof one) < 0)
                    return rb_err_set(err, -EINVAL, "job %s: bad directory list '%.64s'", js->name,
                                      js->directory);
                rc = rb_sandbox_resolve(a->sb, one, dir, sizeof dir, err);
                if (rc < 0)
                    return rc;
                rc = rb_sandbox_rundir(a->sb, dir, pl->run_id, a->o.name, err);
                if (rc < 0)
                    return rc;
                RB_JOB_RUNDIR(a->rundirs[p], j, k) = rc;
                if (rc < RB_SANDBOX_MAX_RUNDIRS && (rc = s_lustre(a, js, rc, striped, err)) < 0)
                    return rc;
            }
        }
        if (workers > RB_MAX_WORKERS)
            return rb_err_set(err, -E2BIG, "phase %s: %llu workers, at most %d", ph->name,
                              (unsigned long long)workers, RB_MAX_WORKERS);
        if (bufmem > ram / 2)
            return rb_err_set(err, -ENOMEM,
                              "phase %s: IO buffers need %llu bytes, over half of this node's "
                              "RAM (%llu bytes)",
                              ph->name, (unsigned long long)bufmem, (unsigned long long)ram);
    }
    a->layout = rb_layout_new(pl, a->rundirs, pl->run_id, err);
    if (!a->layout)
        return err->code ? err->code : -ENOMEM;
    return s_check_space(a, err);
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
    int rc = s_accept_plan(a, &err);
    if (rc < 0) {
        uint64_t removed = 0;
        rb_warn("refusing plan %s: %s", a->plan.u.plan.run_id, err.msg);
        rb_agent_send_reason(a, RB_MSG_REFUSED, rc, err.msg);
        s_end_run(a, &removed, NULL);
        if (a->o.once) {
            a->exit_code = 3;
            a->quit = 1;
        }
        return;
    }
    rb_agent_send(a, a->space); /* before any layout: the coordinator adds nodes up */
    rb_err_clear(&a->prep_err);
    a->prep_done = 0;
    a->prep_stop = 0;
    a->prep_rc = 0;
    rc = pthread_create(&a->prep, NULL, s_prep_main, a);
    if (rc != 0) {
        a->prep_rc = -rc;
        rb_err_set(&a->prep_err, -rc, "cannot start preparation: %s", strerror(rc));
        a->prep_done = 1;
    } else {
        a->prep_started = 1;
    }
}

static void s_check_prep(rb_agent_t *a)
{
    if (a->state != S_PREPARING || !__atomic_load_n(&a->prep_done, __ATOMIC_ACQUIRE))
        return;
    if (a->prep_started) {
        pthread_join(a->prep, NULL);
        a->prep_started = 0;
    }
    if (a->prep_rc < 0) {
        rb_agent_send_reason(a, RB_MSG_REFUSED, a->prep_rc, a->prep_err.msg);
        rb_agent_state_abandon(a, a->prep_err.msg);
        return;
    }
    rb_msg_t r = {.type = RB_MSG_READY};
    snprintf(r.u.ready.run_id, sizeof r.u.ready.run_id, "%s", a->plan.u.plan.run_id);
    r.u.ready.prefill_bytes = a->prefill_bytes;
    rb_agent_send(a, &r);
    a->state = S_READY;
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

void rb_agent_state_go(rb_agent_t *a, const rb_msg_go_t *go)
{
    const rb_msg_plan_t *pl = &a->plan.u.plan;
    rb_err_t err;
    rb_err_clear(&err);
    if (a->state != S_READY || strcmp(go->run_id, pl->run_id) != 0 || go->phase >= pl->nphases) {
        char why[RB_REASON_MAX];
        snprintf(why, sizeof why, "GO for run %s phase %u does not fit: agent %s %s run %s",
                 go->run_id, go->phase, a->o.name,
                 a->state == S_READY ? "is ready for" : "is not ready in", pl->run_id);
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
    a->interval_ns = go->interval_ns ? go->interval_ns : pl->interval_ns;
    uint64_t t_local = (uint64_t)((int64_t)go->t_go_ns + go->offset_ns);
    rb_job_ctx_t ctx = s_ctx(a);
    for (uint32_t p = 0; p < go->phase; p++)
        for (uint32_t j = 0; j < pl->phases[p].njobs; j++)
            ctx.thread_base += pl->phases[p].jobs[j].numjobs;
    uint64_t caps[RB_MAX_JOBS];
    s_read_caps(a, &pl->phases[go->phase], caps);
    ctx.caps = caps;
    a->phase = rb_phase_start(&pl->phases[go->phase], go->phase, a->sb, a->rundirs[go->phase], &ctx,
                              t_local, &err);
    if (!a->phase) {
        rb_error("phase %s: %s", pl->phases[go->phase].name, err.msg);
        s_send_done_error(a, go->phase, err.code ? err.code : -EIO, err.msg);
        a->run_failed = 1;
        return;
    }
    if (a->exit_all)
        rb_phase_stop(a->phase); /* exit_what=all ended this node's run: no IO */
    a->state = S_RUNNING;
    a->next_sample = t_local + a->interval_ns;
    if (a->tel) /* prime at GO: the phase's first sample then has rates */
        rb_telemetry_sample(a->tel, t_local > rb_time_mono_ns() ? rb_time_mono_ns() : t_local,
                            a->snap);
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

/* The phase's workers are done (or told to stop): last sample, totals, DONE.
 * When the run goes on, the page cache is dropped for the next phase before
 * DONE, so the coordinator's next GO comes after it. */
static void s_finish_phase(rb_agent_t *a, int go_on)
{
    s_send_sample(a, rb_time_mono_ns());
    rb_msg_t d = {.type = RB_MSG_DONE};
    if (rb_phase_collect(a->phase, a->plan.u.plan.run_id, &d.u.done) < 0) {
        rb_error("phase %s: %s", a->plan.u.plan.phases[d.u.done.phase].name, d.u.done.error);
        a->run_failed = 1;
    }
    d.u.done.caches_dropped = a->drop_done;
    d.u.done.drop_status = a->drop_status;
    if (go_on)
        s_drop_caches(a, d.u.done.phase + 1);
    if (rb_agent_send(a, &d) < 0 && a->encode_error[0]) {
        /* figures that do not encode fail the phase rather than leave the
         * coordinator waiting for its DONE */
        char why[RB_REASON_MAX];
        snprintf(why, sizeof why, "agent %s: %s", a->o.name, a->encode_error);
        s_send_done_error(a, d.u.done.phase, -EPROTO, why);
        a->run_failed = 1;
    }
    rb_phase_destroy(&a->phase);
    a->state = S_READY;
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

void rb_agent_state_end(rb_agent_t *a, const char *run_id, int aborted)
{
    uint64_t removed = 0;
    rb_err_t err;
    rb_err_clear(&err);
    if (!rb_agent_state_active(a) || strcmp(run_id, a->plan.u.plan.run_id) != 0) {
        if (aborted)
            return; /* nothing of ours to abort */
    }
    if (aborted && a->state == S_RUNNING) {
        /* Report what was done until now, as a phase that ended early. */
        rb_phase_stop(a->phase);
        s_finish_phase(a, 0);
    }
    rb_msg_t e = {.type = RB_MSG_END};
    snprintf(e.u.end.run_id, sizeof e.u.end.run_id, "%s", run_id);
    int failed = a->run_failed;
    e.u.end.status = s_end_run(a, &removed, &err);
    e.u.end.removed_files = removed;
    if (e.u.end.status < 0)
        rb_error("cleanup: %s", err.msg);
    rb_agent_send(a, &e);
    rb_info("run %s %s; %llu files removed", run_id, aborted ? "aborted" : "ended",
            (unsigned long long)removed);
    if (a->o.once) {
        a->exit_code = failed || e.u.end.status < 0 ? 3 : 0;
        a->quit = 1;
    }
}

void rb_agent_state_wearout(rb_agent_t *a, const rb_msg_wear_t *w)
{
    if (a->state == S_RUNNING && strcmp(w->run_id, a->plan.u.plan.run_id) == 0 &&
        rb_phase_index(a->phase) == w->phase && w->job < a->plan.u.plan.phases[w->phase].njobs) {
        rb_phase_wearout(a->phase, w->job, w->ops);
        s_note_extent(a, &a->plan.u.plan.phases[w->phase].jobs[w->job], w->ops);
    }
}

void rb_agent_state_tick(rb_agent_t *a, uint64_t now)
{
    s_check_prep(a);
    s_tick_phase(a, now);
}

void rb_agent_state_close(rb_agent_t *a)
{
    if (rb_agent_state_active(a)) {
        uint64_t removed = 0;
        s_end_run(a, &removed, NULL);
    }
}
