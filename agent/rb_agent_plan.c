/* A PLAN taken on the agent: checked against the sandbox, the engines, the
 * node's memory and space before anything is made, its run folders made,
 * its files to lay out worked out; and what the run remembers across its
 * phases (the data sets a worn-out write left short). Called from the run's
 * state machine (rb_agent_state.c) on the agent's main thread. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "rb_agent_int.h"
#include "rb_net.h"
#include "rb_devjob.h"
#include "rb_engine_info.h"
#include "rb_engine.h"
#include "rb_fs.h"
#include "rb_job.h"
#include "rb_job_rules.h"
#include "rb_layout.h"
#include "rb_log.h"
#include "rb_lustre.h"
#include "rb_time.h"
#include "rb_units.h"
#include "rb_worker.h"

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
void rb_agent_plan_extent(rb_agent_t *a, const rb_job_spec_t *js, uint64_t ops)
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
void rb_agent_plan_caps(const rb_agent_t *a, const rb_phase_spec_t *ph, uint64_t *caps)
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
rb_job_ctx_t rb_agent_plan_ctx(const rb_agent_t *a)
{
    const rb_msg_plan_t *pl = &a->plan.u.plan;
    return (rb_job_ctx_t){.run_id = pl->run_id,
                          .rank = pl->node_rank,
                          .nnodes = pl->nnodes ? pl->nnodes : 1,
                          .lead = pl->lead[0] ? pl->lead : a->o.name,
                          .peers = pl->peers,
                          .npeers = pl->npeers,
                          .run_start_ns = a->plan_wall_ns,
                          .net_port = (rb_net_port_t *)&a->net_port,
                          .net_secret = pl->net_secret,
                          .net_secret_len = pl->net_secret_len};
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

#define S_INODES_MANY (1ull << 40) /* more than any file system has: counting stops */

/* The files and folders job j of phase p makes in run folder rd: its
 * workers' files (a shared file once), or what a metadata step that
 * creates makes (meta_files items and the folders of the tree, per
 * worker), spread over the job's folders. */
static uint64_t s_job_inodes(const rb_agent_t *a, uint32_t p, uint32_t j, int rd)
{
    const rb_job_spec_t *js = &a->plan.u.plan.phases[p].jobs[j];
    uint32_t nd = rb_job_ndirs(js), in = 0;
    for (uint32_t k = 0; k < nd && k < RB_DIRS_MAX; k++)
        in |= RB_JOB_RUNDIR(a->rundirs[p], j, k) == rd;
    if (!in || js->device[0])
        return 0;
    uint64_t per;
    if (js->meta_op == RB_META_NONE)
        per = js->shared_file ? 0 : js->nrfiles;
    else if (rb_meta_op_creates(js->meta_op) || js->meta_op == RB_META_MKTREE) {
        uint64_t tree = js->meta_dirs, level = 1;
        for (uint32_t d = 0; d < js->meta_depth && tree < S_INODES_MANY; d++) {
            level = level * (js->meta_branch ? js->meta_branch : 1); /* branch^1 .. ^depth */
            tree += level;
        }
        per = (rb_meta_op_creates(js->meta_op) ? js->meta_files : 0) + tree + 1;
    } else
        return 0;
    uint64_t all = (uint64_t)js->numjobs * per + (js->shared_file ? 1 : 0);
    return (all + (nd ? nd : 1) - 1) / (nd ? nd : 1);
}

/* The files and folders the plan makes in run folder rd, over its phases
 * and jobs. */
static uint64_t s_rundir_inodes(const rb_agent_t *a, int rd)
{
    const rb_msg_plan_t *pl = &a->plan.u.plan;
    uint64_t need = 0;
    for (uint32_t p = 0; p < pl->nphases; p++)
        for (uint32_t j = 0; j < pl->phases[p].njobs; j++)
            need += s_job_inodes(a, p, j, rd);
    return need;
}

/* need files and folders on the file system of path against its free
 * inodes: --reserve of them must stay free, as of its bytes. 0 or -ENOSPC
 * with err set. A file system without a count of inodes (f_files 0) is not
 * checked. */
static int s_inodes_check(const rb_agent_t *a, const char *path, uint64_t need, rb_err_t *err)
{
    struct statvfs v;
    if (statvfs(path, &v) < 0 || v.f_files == 0)
        return 0;
    uint64_t reserve = (uint64_t)v.f_files / 100 * (uint64_t)a->o.reserve_pct;
    if (need <= v.f_favail && v.f_favail - need >= reserve)
        return 0;
    return rb_err_set(err, -ENOSPC,
                      "%s: the plan makes up to %llu files and folders, %llu inodes are free "
                      "and %llu (%d%%) must stay free (--reserve): fewer meta_files, nrfiles "
                      "or numjobs",
                      path, (unsigned long long)need, (unsigned long long)v.f_favail,
                      (unsigned long long)reserve, a->o.reserve_pct);
}

/* What the plan writes on each file system of this agent (run folders on
 * one device add up), into a->space for the coordinator, which adds up the
 * nodes sharing one; each must leave --reserve of its bytes and of its
 * inodes free. 0 or -ENOSPC with err set for a REFUSED. */
static int s_check_space(rb_agent_t *a, rb_err_t *err)
{
    rb_msg_space_t *sp = &a->space->u.space;
    int first[RB_MAX_ROOTS];       /* the run folder that names each file system */
    uint64_t inodes[RB_MAX_ROOTS]; /* the files and folders the plan makes on each */
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
            inodes[k] = 0;
        }
        sp->fs[k].need_bytes += rb_layout_need(a->layout, i);
        inodes[k] += s_rundir_inodes(a, i);
    }
    for (uint32_t k = 0; k < sp->nfs; k++) {
        const char *path = rb_sandbox_rundir_path(a->sb, first[k]);
        int rc = rb_sandbox_space_check(path, sp->fs[k].need_bytes, sp->fs[k].free_bytes,
                                        sp->fs[k].total_bytes, (unsigned)a->o.reserve_pct, err);
        if (rc < 0 || (rc = s_inodes_check(a, path, inodes[k], err)) < 0)
            return rc;
    }
    return 0;
}

#define S_ROOM_SAYS "half its RAM or of its memory cgroup's limit, or what is available if less"

/* A number from a cgroup file ("max": none); 0 when there is none. */
static uint64_t s_cg_value(const char *dir, const char *file)
{
    char p[PATH_MAX], line[64];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    FILE *f = fopen(p, "re");
    int ok = f && fgets(line, sizeof line, f);
    if (f)
        fclose(f);
    unsigned long long v = ok ? strtoull(line, NULL, 10) : 0;
    return v >= (1ull << 62) ? 0 : (uint64_t)v; /* v1 writes "no limit" as a huge number */
}

/* The memory cgroup of this process: its limit and what it uses (0, 0
 * when it has no limit). cgroup v2 (memory.max), else v1's memory
 * controller (memory.limit_in_bytes). */
static void s_cgroup_mem(uint64_t *limit, uint64_t *used)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    char line[PATH_MAX], dir[PATH_MAX + 64];
    *limit = *used = 0;
    while (f && !*limit && fgets(line, sizeof line, f)) {
        char *path = strchr(line, ':'), *ctl = path ? path + 1 : NULL;
        path = ctl ? strchr(ctl, ':') : NULL;
        if (!path)
            continue;
        *path++ = '\0';
        path[strcspn(path, "\n")] = '\0';
        if (!strcmp(ctl, "")) {
            snprintf(dir, sizeof dir, "/sys/fs/cgroup%s", path);
            *limit = s_cg_value(dir, "memory.max");
            *used = s_cg_value(dir, "memory.current");
        } else if (strstr(ctl, "memory")) {
            snprintf(dir, sizeof dir, "/sys/fs/cgroup/memory%s", path);
            *limit = s_cg_value(dir, "memory.limit_in_bytes");
            *used = s_cg_value(dir, "memory.usage_in_bytes");
        }
    }
    if (f)
        fclose(f);
}

/* The memory a phase's IO buffers and pinned memory may take: half of the
 * RAM or of the memory cgroup's limit, and no more than is available
 * (MemAvailable, what the cgroup has left). */
static uint64_t s_room(uint64_t ram)
{
    uint64_t room = ram / 2, avail = rb_agent_meminfo("MemAvailable:"), limit, used;
    s_cgroup_mem(&limit, &used);
    if (avail && avail < room)
        room = avail;
    if (limit && limit / 2 < room)
        room = limit / 2;
    if (limit && (limit > used ? limit - used : 0) < room)
        room = limit > used ? limit - used : 0;
    return room;
}

/* Checks a plan against this agent (sandbox, engines, capacity, memory),
 * makes its run folders and works out which files to lay out. Returns 0 or
 * -errno with err set for a REFUSED. */
/* A network job: this agent may take part (not --no-net), and the job is
 * one it can run. 0 or -errno with err set. */
static int s_check_net(const rb_agent_t *a, const rb_phase_spec_t *ph, const rb_job_spec_t *js,
                       rb_err_t *err)
{
    const rb_msg_plan_t *pl = &a->plan.u.plan;
    if (a->o.no_net)
        return rb_err_set(err, -EPERM,
                          "phase %s, job %s: a network phase (network=%s), and agent %s was "
                          "started with --no-net: it opens no data port",
                          ph->name, js->name, rb_net_pattern_name(js->network), a->o.name);
    if (pl->net_secret_len < 16)
        return rb_err_set(err, -EPROTO,
                          "phase %s, job %s: a network phase, and the PLAN carries no secret "
                          "for its data connections",
                          ph->name, js->name);
    rb_job_rule_t rule; /* the plan checked them; a PLAN from elsewhere is checked here */
    if (rb_job_rules_check(js, &rule) < 0)
        return rb_err_set(err, -EINVAL, "%s", rule.why);
    return 0;
}

/* The run's data port, bound (not listening) on --net-address or the
 * address this host reaches the coordinator from. 0 or -errno with err set. */
static int s_open_port(rb_agent_t *a, rb_err_t *err)
{
    char addr[RB_NET_ADDR_MAX];
    if (a->o.net_addr)
        snprintf(addr, sizeof addr, "%s", a->o.net_addr);
    else if (rb_net_source_addr(a->o.coordinator, addr, sizeof addr) < 0)
        return rb_err_set(err, -EHOSTUNREACH,
                          "network phases: no address of this host reaches %s (give "
                          "--net-address)",
                          a->o.coordinator);
    return rb_net_port_open(&a->net_port, addr, err);
}

int rb_agent_plan_accept(rb_agent_t *a, rb_err_t *err)
{
    const rb_msg_plan_t *pl = &a->plan.u.plan;
    uint64_t ram = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    uint64_t room = s_room(ram); /* for a phase's IO buffers and pinned memory */
    if (pl->nphases == 0)
        return rb_err_set(err, -EINVAL, "plan has no phases");
    if (pl->interval_ns < 10 * RB_NS_PER_MS)
        return rb_err_set(err, -EINVAL, "sample interval %llu ns is below 10 ms",
                          (unsigned long long)pl->interval_ns);
    a->rundirs = calloc(pl->nphases, sizeof *a->rundirs);
    if (!a->rundirs)
        return rb_err_set(err, -ENOMEM, "out of memory");
    uint8_t striped[RB_SANDBOX_MAX_RUNDIRS] = {0};
    uint32_t nets = 0;              /* network jobs */
    a->space->u.space.mem_need = 0; /* for the coordinator, which adds up a host's agents */
    a->space->u.space.mem_room = room;
    for (uint32_t p = 0; p < pl->nphases; p++) {
        const rb_phase_spec_t *ph = &pl->phases[p];
        uint64_t workers = 0, bufmem = 0, most = 0, pinned = 0, pinmost = 0;
        const rb_job_spec_t *big = NULL, *pin = NULL; /* the jobs with the most of each */
        a->rundirs[p] = calloc((size_t)(ph->njobs ? ph->njobs : 1) * RB_DIRS_MAX, sizeof(int));
        if (!a->rundirs[p])
            return rb_err_set(err, -ENOMEM, "out of memory");
        for (uint32_t j = 0; j < ph->njobs; j++) {
            const rb_job_spec_t *js = &ph->jobs[j];
            char dir[RB_PATH_MAX];
            rb_job_ctx_t ctx = rb_agent_plan_ctx(a);
            for (uint32_t k = 0; k < RB_DIRS_MAX; k++)
                RB_JOB_RUNDIR(a->rundirs[p], j, k) = -1;
            if (js->network) { /* no files: streams to and from the other agents */
                int rc = s_check_net(a, ph, js, err);
                if (rc < 0)
                    return rc;
                nets++;
                workers += js->numjobs;
                bufmem += (uint64_t)js->numjobs * rb_net_buf_bytes(js->bs);
                continue;
            }
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
            uint64_t jmem = (uint64_t)js->numjobs *
                            rb_engine_info_depth(js->ioengine, js->iodepth) *
                            bmax; /* what its workers' rings hold */
            /* lockmem: what each worker pins, as rb_worker_lockmem caps it */
            uint64_t jpin = (uint64_t)js->numjobs * rb_worker_lockmem_bytes(js->lockmem, ram);
            pinned += jpin;
            if (jpin > pinmost) {
                pinmost = jpin;
                pin = js;
            }
            workers += js->numjobs;
            bufmem += jmem;
            if (jmem > most) {
                most = jmem;
                big = js;
            }
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
        if (bufmem + pinned > a->space->u.space.mem_need)
            a->space->u.space.mem_need = bufmem + pinned;
        if (bufmem + pinned > room && pin && pinned >= bufmem) {
            char need[32], has[32], one[32], bufs[32];
            rb_units_fmt_size(need, sizeof need, (double)pinned);
            rb_units_fmt_size(has, sizeof has, (double)room);
            rb_units_fmt_size(one, sizeof one, (double)(pinmost / pin->numjobs));
            rb_units_fmt_size(bufs, sizeof bufs, (double)bufmem);
            return rb_err_set(err, -ENOMEM,
                              "phase %s: lockmem pins %s on node %s and IO buffers need %s, "
                              "which has %s for them (%s); job %s pins %s in each of its %u "
                              "workers: a smaller lockmem or fewer numjobs",
                              ph->name, need, a->o.name, bufs, has, S_ROOM_SAYS, pin->name, one,
                              pin->numjobs);
        }
        if (bufmem + pinned > room && big) {
            char need[32], has[32], one[32];
            rb_units_fmt_size(need, sizeof need, (double)bufmem);
            rb_units_fmt_size(has, sizeof has, (double)room);
            rb_units_fmt_size(one, sizeof one, (double)most);
            return rb_err_set(err, -ENOMEM,
                              "phase %s: IO buffers need %s on node %s, which has %s for them "
                              "(" S_ROOM_SAYS "); job %s alone needs "
                              "%s (%u workers x %u IOs in flight x %llu bytes): fewer numjobs, a "
                              "smaller iodepth or bs",
                              ph->name, need, a->o.name, has, big->name, one, big->numjobs,
                              rb_engine_info_depth(big->ioengine, big->iodepth),
                              (unsigned long long)(big->bs_max > big->bs ? big->bs_max : big->bs));
        }
    }
    if (nets && s_open_port(a, err) < 0)
        return err->code;
    a->layout = rb_layout_new(pl, a->rundirs, pl->run_id, err);
    if (!a->layout)
        return err->code ? err->code : -ENOMEM;
    return s_check_space(a, err);
}
