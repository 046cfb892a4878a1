/* Runs one phase's workers and turns their counters into samples and totals.
 *
 * The phase sets its workers up and starts one thread per worker
 * (rb_phase_worker.c), which waits at the phase's gate until GO, runs its
 * job's workload (rb_workload_for) and closes its measured window. The
 * agent reads the workers' counters with relaxed atomics (single writer
 * each) for samples, and their results after joining them for DONE. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rb_devid.h"
#include "rb_devjob.h"
#include "rb_iosched.h"
#include "rb_phase.h"
#include "rb_net.h"
#include "rb_phase_worker.h"
#include "rb_steady.h"
#include "rb_time.h"
#include "rb_verify.h"
#include "rb_workload.h"

#define S_CP_STEP0_NS (1 * RB_NS_PER_MS) /* first spacing of progress checkpoints */

/* A job's histograms, as channels: 0 all IOs' lat, then 1 + 3 × dir + kind
 * for reads', writes' and trims' lat, slat and clat (rb_lat_kind_t). */
#define S_NCH           (1 + RB_NDIRS * RB_NLATS)
#define S_CH(dir, kind) (1 + (dir)*RB_NLATS + (kind))

typedef struct s_jobacc {
    rb_job_stat_t prev;     /* totals at the previous sample (hists unused) */
    rb_hist_t hprev[S_NCH]; /* merged histograms at the previous sample */
    rb_hist_t now[S_NCH];   /* scratch: merged histograms now */
    rb_hist_t delta[S_NCH]; /* sent in the sample */
    rb_hist_t total[S_NCH]; /* final, sent in DONE */
} s_jobacc_t;

/* Points js's histograms at the channels h. */
static void s_point_hists(rb_job_stat_t *js, rb_hist_t *h)
{
    js->hist = &h[0];
    for (int d = 0; d < RB_NDIRS; d++)
        for (int k = 0; k < RB_NLATS; k++)
            js->lat[d][k] = &h[S_CH(d, k)];
}

/* Merges a worker's histograms into channels h (the all-IOs one from its
 * reads' and writes' lat); snapshots through scratch when live. */
static void s_merge_worker(rb_hist_t *h, const rb_worker_t *w, rb_hist_t *scratch, int live)
{
    for (int d = 0; d < RB_NDIRS; d++) {
        for (int k = 0; k < RB_NLATS; k++) {
            const rb_hist_t *src = k == RB_LAT_CLAT ? rb_worker_clat(w, d) : &w->lat[d][k];
            if (live) {
                rb_hist_snapshot(scratch, src);
                src = scratch;
            }
            rb_hist_merge(&h[S_CH(d, k)], src);
            if (k == RB_LAT_LAT)
                rb_hist_merge(&h[0], src);
        }
    }
}

/* A job's steady-state judgement on this agent (fio's steadystate): its
 * workers' summed figure, once a second from the job's start. */
typedef struct s_ss {
    rb_steady_t win;     /* the last ss_dur samples */
    double *ring, *tmp;  /* the window's memory and scratch, ss_dur each */
    uint64_t epoch;      /* the job's start: GO + startdelay */
    uint64_t ticks;      /* whole seconds since epoch judged so far */
    uint64_t prev_t;     /* the previous sample's time ... */
    uint64_t prev_ops;   /* ... and the workers' ops ... */
    uint64_t prev_bytes; /* ... and bytes then */
    uint32_t state;      /* rb_ss_state_t; RB_SS_ATTAINED stops the job's workers */
    uint64_t t_ns;       /* attained: from epoch to the judgement */
    double crit, mean;   /* the last judgement (crit < 0: none yet) */
} s_ss_t;

struct rb_phase {
    const rb_phase_spec_t *spec; /* borrowed */
    uint32_t index;              /* phase index in the plan */
    uint64_t t_go;               /* local monotonic start time */
    int *stop;                   /* per job: set to ask its workers to stop */
    uint32_t nworkers;
    rb_worker_t *w;
    s_jobacc_t *acc;   /* per job */
    rb_hist_t scratch; /* one worker's snapshot */
    uint32_t sample_seq;
    uint64_t t_last_sample;
    uint64_t *target;           /* per job: wearout ops (0 until told), atomic */
    uint8_t *sw_sent;           /* per job: STONEWALL reported */
    rb_job_stat_t *sjobs;       /* sample arrays, spec->njobs */
    rb_job_stat_t *djobs;       /* done arrays, spec->njobs */
    rb_worker_stat_t *dworkers; /* done array, nworkers */
    uint32_t ndevs;             /* devices with workers of their own, at most RB_MAX_DEVS */
    rb_dev_id_t *devs;          /* done array: what each one is */
    rb_job_stat_t *ddevs;       /* done array: each one's totals */
    rb_hist_t (*dh)[S_NCH];     /* each one's merged histograms */
    uint32_t nsched;            /* ioscheduler: devices set ... */
    rb_iosched_saved_t *sched;  /* ... and what each had, put back at the end */
    s_ss_t *ss;                 /* per job: its steady state (ss_dur_ns 0: unused) */
    rb_flow_t *flows;           /* the flow_ids of its jobs' flow, nflows of them */
    uint32_t nflows;
    int exited;          /* exitall has ended the phase's workers */
    uint64_t *seeds;     /* each worker's random seed, nworkers of them */
    rb_gate_t gate;      /* the workers wait there, set up, until GO */
    int gate_made;       /* gate's mutex and condition made */
    int released;        /* rb_phase_release done: workers joined, files closed */
    rb_net_phase_t *net; /* a network phase's data side, or NULL */
};

/* Each worker's wait_for (the workers of the earlier job of the phase it
 * names) and flow (its flow_id's counter, one per flow_id in the phase). */
static void s_links(rb_phase_t *ph)
{
    const rb_phase_spec_t *spec = ph->spec;
    for (uint32_t i = 0; i < ph->nworkers; i++) {
        rb_worker_t *w = &ph->w[i];
        const rb_job_spec_t *js = w->spec;
        for (uint32_t j = 0, first = 0; js->wait_for[0] && j < w->job; j++) {
            if (!strcmp(spec->jobs[j].name, js->wait_for)) {
                w->wait_first = &ph->w[first];
                w->wait_n = spec->jobs[j].numjobs;
            }
            first += spec->jobs[j].numjobs;
        }
        if (!js->flow)
            continue;
        uint32_t f = 0;
        while (f < ph->nflows && ph->flows[f].id != js->flow_id)
            f++;
        if (f == ph->nflows)
            ph->flows[ph->nflows++] = (rb_flow_t){.id = js->flow_id, .count = 1};
        w->flow = &ph->flows[f];
        rb_worker_flow_join(w); /* from the start, waiting or not, as fio counts its jobs */
    }
}

static void s_join_all(rb_phase_t *ph)
{
    for (uint32_t i = 0; i < ph->nworkers; i++) {
        if (ph->w[i].started) {
            pthread_join(ph->w[i].thread, NULL);
            ph->w[i].started = 0;
        }
    }
}

static void s_worker_free(rb_worker_t *w)
{
    if (w->spec && !w->fini_done) /* a worker that never ran: its thread did not */
        rb_workload_for(w->spec)->fini(w);
    free(w->bufs);
    w->bufs = NULL; /* its checkpoints stay for DONE, freed with the phase */
}

void rb_phase_release(rb_phase_t *ph)
{
    if (!ph || ph->released)
        return;
    rb_phase_stop(ph);
    s_join_all(ph);
    for (uint32_t i = 0; ph->w && i < ph->nworkers; i++)
        s_worker_free(&ph->w[i]);
    for (uint32_t i = ph->nsched; i-- > 0;) /* last set, first put back */
        rb_iosched_restore(&ph->sched[i]);
    ph->nsched = 0;
    rb_net_phase_stop(ph->net); /* the data port listens no more */
    ph->released = 1;
}

void rb_phase_destroy(rb_phase_t **p)
{
    if (!p || !*p)
        return;
    rb_phase_t *ph = *p;
    rb_phase_release(ph);
    rb_net_phase_free(&ph->net);
    if (ph->gate_made) {
        pthread_cond_destroy(&ph->gate.cv);
        pthread_mutex_destroy(&ph->gate.mu);
    }
    for (uint32_t i = 0; ph->w && i < ph->nworkers; i++)
        free(ph->w[i].cp);
    free(ph->w);
    free(ph->acc);
    free(ph->sjobs);
    free(ph->djobs);
    free(ph->dworkers);
    free(ph->devs);
    free(ph->ddevs);
    free(ph->dh);
    free(ph->target);
    free(ph->sw_sent);
    for (uint32_t j = 0; ph->ss && j < ph->spec->njobs; j++) {
        free(ph->ss[j].ring);
        free(ph->ss[j].tmp);
    }
    free(ph->ss);
    free(ph->flows);
    free(ph->stop);
    free(ph->sched);
    free(ph->seeds);
    free(ph);
    *p = NULL;
}

/* ioscheduler: each device of the jobs that name one gets it for the
 * phase (rb_phase_destroy puts the old one back). 0 or -errno with err set. */
static int s_set_schedulers(rb_phase_t *ph, rb_err_t *err)
{
    uint32_t n = 0;
    for (uint32_t j = 0; j < ph->spec->njobs; j++)
        if (ph->spec->jobs[j].ioscheduler[0])
            n += rb_devjob_count(&ph->spec->jobs[j]);
    if (!n)
        return 0;
    ph->sched = calloc(n, sizeof *ph->sched);
    if (!ph->sched)
        return rb_err_set(err, -ENOMEM, "out of memory");
    for (uint32_t j = 0; j < ph->spec->njobs; j++) {
        const rb_job_spec_t *js = &ph->spec->jobs[j];
        for (unsigned i = 0; js->ioscheduler[0] && i < rb_devjob_count(js); i++) {
            char dev[RB_PATH_MAX];
            if (rb_devjob_path(js, i, dev, sizeof dev) < 0)
                return rb_err_set(err, -EINVAL, "job %s: bad device list", js->name);
            rb_err_t why;
            rb_err_clear(&why);
            int rc = rb_iosched_set(dev, js->ioscheduler, &ph->sched[ph->nsched], &why);
            if (rc < 0)
                return rb_err_set(err, rc, "job %s: %s", js->name, why.msg);
            ph->nsched++;
        }
    }
    return 0;
}

rb_phase_t *rb_phase_prepare(const rb_phase_spec_t *spec, uint32_t index, rb_sandbox_t *sb,
                             const int *rundirs, const rb_job_ctx_t *ctx, rb_err_t *err)
{
    rb_phase_t *ph = calloc(1, sizeof *ph);
    if (!ph) {
        rb_err_set(err, -ENOMEM, "out of memory");
        return NULL;
    }
    ph->spec = spec;
    ph->index = index;
    if (pthread_mutex_init(&ph->gate.mu, NULL) != 0) {
        free(ph);
        rb_err_set(err, -ENOMEM, "out of memory");
        return NULL;
    }
    pthread_cond_init(&ph->gate.cv, NULL);
    ph->gate_made = 1;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    ph->gate.warm_max = cpus < 1 ? 1 : cpus > 64 ? 64 : (uint32_t)cpus;
    uint32_t n = 0;
    for (uint32_t j = 0; j < spec->njobs; j++)
        n += spec->jobs[j].numjobs;
    ph->nworkers = n;
    ph->w = calloc(n ? n : 1, sizeof *ph->w);
    ph->acc = calloc(spec->njobs ? spec->njobs : 1, sizeof *ph->acc);
    ph->sjobs = calloc(spec->njobs ? spec->njobs : 1, sizeof *ph->sjobs);
    ph->djobs = calloc(spec->njobs ? spec->njobs : 1, sizeof *ph->djobs);
    ph->dworkers = calloc(n ? n : 1, sizeof *ph->dworkers);
    ph->target = calloc(spec->njobs ? spec->njobs : 1, sizeof *ph->target);
    ph->sw_sent = calloc(spec->njobs ? spec->njobs : 1, sizeof *ph->sw_sent);
    ph->stop = calloc(spec->njobs ? spec->njobs : 1, sizeof *ph->stop);
    ph->ss = calloc(spec->njobs ? spec->njobs : 1, sizeof *ph->ss);
    ph->seeds = calloc(n ? n : 1, sizeof *ph->seeds);
    ph->flows = calloc(spec->njobs ? spec->njobs : 1, sizeof *ph->flows);
    if (!ph->w || !ph->acc || !ph->sjobs || !ph->djobs || !ph->dworkers || !ph->target ||
        !ph->sw_sent || !ph->stop || !ph->ss || !ph->flows || !ph->seeds) {
        rb_err_set(err, -ENOMEM, "out of memory for %u workers", n);
        rb_phase_destroy(&ph);
        return NULL;
    }
    for (uint32_t j = 0; j < spec->njobs; j++) {
        const rb_job_spec_t *js = &spec->jobs[j];
        s_ss_t *ss = &ph->ss[j];
        ss->crit = -1;
        if (!js->ss_dur_ns)
            continue;
        uint32_t secs = (uint32_t)(js->ss_dur_ns / RB_NS_PER_S);
        ss->ring = calloc(secs, sizeof *ss->ring);
        ss->tmp = calloc(secs, sizeof *ss->tmp);
        if (!ss->ring || !ss->tmp) {
            rb_err_set(err, -ENOMEM, "job %s: out of memory for steady state's %u s", js->name,
                       secs);
            rb_phase_destroy(&ph);
            return NULL;
        }
        rb_steady_init(&ss->win, ss->ring, secs);
        ss->state = RB_SS_NOT_ATTAINED; /* its epoch at GO */
    }
    for (uint32_t j = 0; j < spec->njobs; j++) {
        for (int c = 0; c < S_NCH; c++) {
            rb_hist_init(&ph->acc[j].hprev[c]);
            rb_hist_init(&ph->acc[j].total[c]);
        }
        ph->target[j] = UINT64_MAX;
    }
    /* randrepeat: the same sequence every run; else a new one. Every seed
     * first: with dedupe_global a worker's buffers are made from others'. */
    for (uint32_t j = 0, k = 0; j < spec->njobs; j++) {
        const rb_job_spec_t *js = &spec->jobs[j];
        for (uint32_t i = 0; i < js->numjobs; i++, k++) {
            ph->seeds[k] = js->randseed ^ rb_verify_hash(js->name) ^ ((uint64_t)i * 0x9e37u);
            if (!js->randrepeat)
                ph->seeds[k] ^= rb_time_wall_ns();
        }
    }
    /* a job that takes its file's size finds it now, as the earlier phase left it */
    for (uint32_t j = 0; j < spec->njobs; j++) {
        if (rb_devjob_file_size(sb, (rb_job_spec_t *)&spec->jobs[j], RB_JOB_RUNDIR(rundirs, j, 0),
                                err) < 0) {
            rb_phase_destroy(&ph);
            return NULL;
        }
    }
    if (s_set_schedulers(ph, err) < 0) {
        rb_phase_destroy(&ph);
        return NULL;
    }
    for (uint32_t j = 0; j < spec->njobs && !ph->net; j++)
        if (spec->jobs[j].network && !(ph->net = rb_net_phase_new(spec, index, ctx, err))) {
            rb_phase_destroy(&ph);
            return NULL;
        }
    uint64_t run_hash = rb_verify_hash(ctx->run_id);
    uint32_t nnodes = ctx->nnodes ? ctx->nnodes : 1;
    uint32_t k = 0;
    for (uint32_t j = 0; j < spec->njobs; j++) {
        const rb_job_spec_t *js = &spec->jobs[j];
        for (uint32_t i = 0; i < js->numjobs; i++, k++) {
            rb_worker_t *w = &ph->w[k];
            w->spec = js;
            w->job = j;
            w->index = i;
            w->thread_no = ctx->thread_base + k;
            w->cp_step = S_CP_STEP0_NS;
            w->run_hash = run_hash;
            /* Whose data: a shared file's regions are numbered node by node;
             * a read from K nodes on gets that node's worker's data. */
            w->nregions = rb_job_region_count(js, nnodes);
            w->node_tag = ctx->rank + 1;
            uint32_t src = (uint32_t)((ctx->rank + (uint64_t)js->read_shift) % nnodes);
            if (js->shared_file)
                w->region = (uint32_t)(((uint64_t)ctx->rank * js->numjobs + i +
                                        (uint64_t)js->read_shift * js->numjobs) %
                                       w->nregions);
            else
                w->region = i;
            w->expect = src + 1;
            w->since_ns = ctx->run_start_ns;
            w->stop = &ph->stop[j];
            w->target = &ph->target[j];
            w->gate = &ph->gate;
            w->net = ph->net;
            w->delay_ns = js->startdelay_ns;
            w->minrate[0] = (rb_minrate_t){.min_bps = js->rate_min,
                                           .min_iops = js->rate_iops_min,
                                           .cycle_ns = js->rate_cycle_ms * RB_NS_PER_MS};
            w->minrate[1] = (rb_minrate_t){.min_bps = js->rate_min_write,
                                           .min_iops = js->rate_iops_min_write,
                                           .cycle_ns = js->rate_cycle_ms * RB_NS_PER_MS};
            w->minrate_on =
                js->rate_min || js->rate_min_write || js->rate_iops_min || js->rate_iops_min_write;
            for (int d = 0; d < RB_NDIRS; d++)
                for (int kind = 0; kind < RB_NLATS; kind++)
                    rb_hist_init(&w->lat[d][kind]);
            w->cp = calloc(RB_MAX_CHECKPTS, sizeof *w->cp);
            uint64_t seed = ph->seeds[k];
            w->peer_seeds = ph->seeds;
            w->npeers = n;
            w->peer = k;
            if (js->startdelay_max_ns > js->startdelay_ns) {
                /* a range: each worker draws its own, from a sequence of its own */
                rb_rand_t r;
                uint64_t span = js->startdelay_max_ns - js->startdelay_ns;
                rb_rand_seed(&r, seed ^ 0x5ad1e1a7u);
                uint64_t x = rb_rand_next(&r);
                w->delay_ns += span == UINT64_MAX ? x : x % (span + 1);
            }
            int rd = RB_JOB_RUNDIR(rundirs, j, rb_job_dir_of(js, i)); /* fio: clone i % n */
            int rc = w->cp ? rb_workload_for(js)->setup(w, sb, rd, ctx, seed, err)
                           : rb_err_set(err, -ENOMEM, "job %s: out of memory", js->name);
            if (rc < 0) {
                ph->nworkers = k + 1;
                rb_phase_destroy(&ph);
                return NULL;
            }
        }
    }
    s_links(ph);
    for (uint32_t i = 0; i < n; i++) {
        int rc = pthread_create(&ph->w[i].thread, NULL, rb_phase_worker_main, &ph->w[i]);
        if (rc != 0) {
            rb_err_set(err, -rc, "cannot start worker %u of %u: %s", i, n, strerror(rc));
            rb_phase_destroy(&ph);
            return NULL;
        }
        ph->w[i].started = 1;
    }
    /* prepared once every worker is warm: GO finds them all waiting */
    pthread_mutex_lock(&ph->gate.mu);
    while (ph->gate.warm < n)
        pthread_cond_wait(&ph->gate.cv, &ph->gate.mu);
    pthread_mutex_unlock(&ph->gate.mu);
    return ph;
}

uint32_t rb_phase_index(const rb_phase_t *ph)
{
    return ph->index;
}

int rb_phase_finished(rb_phase_t *ph)
{
    for (uint32_t i = 0; i < ph->nworkers; i++)
        if (!__atomic_load_n(&ph->w[i].finished, __ATOMIC_ACQUIRE))
            return 0;
    return 1;
}

int rb_phase_links(rb_phase_t *ph, const rb_net_link_t *links, uint32_t n, char *why, size_t cap)
{
    if (!ph->net) {
        if (!n)
            return 0;
        snprintf(why, cap, "phase %s: GO names %u network links, and the phase has no network job",
                 ph->spec->name, n);
        return -EINVAL;
    }
    return rb_net_phase_links(ph->net, links, n, why, cap);
}

void rb_phase_go(rb_phase_t *ph, uint64_t t_go_ns)
{
    ph->t_go = t_go_ns;
    ph->t_last_sample = t_go_ns;
    for (uint32_t j = 0; j < ph->spec->njobs; j++)
        if (ph->ss[j].ring)
            ph->ss[j].epoch = ph->ss[j].prev_t = t_go_ns + ph->spec->jobs[j].startdelay_ns;
    pthread_mutex_lock(&ph->gate.mu);
    for (uint32_t i = 0; i < ph->nworkers; i++)
        ph->w[i].t_go = t_go_ns;
    ph->gate.open = 1;
    pthread_cond_broadcast(&ph->gate.cv);
    pthread_mutex_unlock(&ph->gate.mu);
}

void rb_phase_stop(rb_phase_t *ph)
{
    for (uint32_t j = 0; ph->stop && j < ph->spec->njobs; j++)
        RB_WORKER_STORE(&ph->stop[j], 1);
    if (ph->gate_made) { /* a worker still at the gate goes too */
        pthread_mutex_lock(&ph->gate.mu);
        pthread_cond_broadcast(&ph->gate.cv);
        pthread_mutex_unlock(&ph->gate.mu);
    }
}

int rb_phase_exitall(rb_phase_t *ph)
{
    if (ph->exited)
        return 0;
    for (uint32_t i = 0; i < ph->nworkers; i++) {
        const rb_worker_t *w = &ph->w[i];
        if (!__atomic_load_n(&w->finished, __ATOMIC_ACQUIRE))
            continue;
        if (w->spec->exitall_on_error && w->status) {
            /* fio's exitall_on_error: a failed worker ends the whole run */
            ph->exited = 1;
            rb_phase_stop(ph);
            return 2;
        }
        if (!w->spec->exitall)
            continue;
        /* a phase is a stonewall group: group and stonewall end the same workers */
        ph->exited = 1;
        rb_phase_stop(ph);
        return w->spec->exit_what == RB_EXIT_ALL ? 2 : 1;
    }
    return 0;
}

/* Adds a worker's live counters into a job stat. */
static void s_add_live(rb_job_stat_t *js, rb_worker_t *w)
{
    uint64_t rb = RB_WORKER_LOAD(&w->rbytes), ro = RB_WORKER_LOAD(&w->rops);
    uint64_t wb = RB_WORKER_LOAD(&w->wbytes), wo = RB_WORKER_LOAD(&w->wops);
    uint64_t tb = RB_WORKER_LOAD(&w->tbytes), to = RB_WORKER_LOAD(&w->tops);
    js->bytes += rb + wb + tb;
    js->ops += ro + wo + to;
    js->read_bytes += rb;
    js->read_ops += ro;
    js->write_bytes += wb;
    js->write_ops += wo;
    js->trim_bytes += tb;
    js->trim_ops += to;
    js->errors += RB_WORKER_LOAD(&w->errors);
    js->verify_errors += RB_WORKER_LOAD(&w->verify_errors);
}

/* One second of job j's steady state: its workers' rate since the last
 * sample joins the window once the ramp is over (fio: from the first whole
 * second after ss_ramp); steady ends the job's workers. */
static void s_steady_tick(rb_phase_t *ph, uint32_t j, uint64_t now)
{
    const rb_job_spec_t *js = &ph->spec->jobs[j];
    s_ss_t *ss = &ph->ss[j];
    if (now < ss->epoch || (now - ss->epoch) / RB_NS_PER_S <= ss->ticks)
        return;
    ss->ticks = (now - ss->epoch) / RB_NS_PER_S; /* a late tick covers the seconds it missed */
    rb_job_stat_t cur = {.job = j};
    for (uint32_t i = 0; i < ph->nworkers; i++)
        if (ph->w[i].job == j)
            s_add_live(&cur, &ph->w[i]);
    double dt = (double)(now - ss->prev_t) / RB_NS_PER_S;
    int iops = js->ss_metric == RB_SS_IOPS || js->ss_metric == RB_SS_IOPS_SLOPE;
    double y = (double)(iops ? cur.ops - ss->prev_ops : cur.bytes - ss->prev_bytes) / dt;
    ss->prev_t = now;
    ss->prev_ops = cur.ops;
    ss->prev_bytes = cur.bytes;
    if (js->ss_ramp_ns && ss->ticks * RB_NS_PER_S < js->ss_ramp_ns + RB_NS_PER_S)
        return;
    int slope = js->ss_metric == RB_SS_IOPS_SLOPE || js->ss_metric == RB_SS_BW_SLOPE;
    if (rb_steady_add(&ss->win, y, slope, js->ss_pct, js->ss_limit / 1e6, ss->tmp, &ss->crit,
                      &ss->mean)) {
        ss->state = RB_SS_ATTAINED;
        ss->t_ns = now - ss->epoch;
        RB_WORKER_STORE(&ph->stop[j], 1);
    }
}

void rb_phase_steady(rb_phase_t *ph, uint64_t now)
{
    for (uint32_t j = 0; j < ph->spec->njobs; j++) {
        if (!ph->ss[j].ring || ph->ss[j].state == RB_SS_ATTAINED)
            continue;
        int running = 0;
        for (uint32_t i = 0; i < ph->nworkers && !running; i++)
            running = ph->w[i].job == j && !__atomic_load_n(&ph->w[i].finished, __ATOMIC_ACQUIRE);
        if (running)
            s_steady_tick(ph, j, now);
    }
}

/* A judgement's figure in millionths, UINT64_MAX when it has none. */
static uint64_t s_millionths(double v)
{
    return v >= 0 && v * 1e6 < 1.8e19 ? (uint64_t)(v * 1e6 + 0.5) : UINT64_MAX;
}

void rb_phase_sample(rb_phase_t *ph, const char *run_id, rb_msg_sample_t *out)
{
    const rb_phase_spec_t *spec = ph->spec;
    uint64_t now = rb_time_mono_ns();
    memset(out, 0, sizeof *out);
    snprintf(out->run_id, sizeof out->run_id, "%s", run_id);
    out->phase = ph->index;
    out->seq = ph->sample_seq++;
    out->t_start_ns = ph->t_last_sample;
    out->t_end_ns = now;
    ph->t_last_sample = now;
    out->njobs = spec->njobs;
    out->jobs = ph->sjobs;
    for (uint32_t j = 0; j < spec->njobs; j++) {
        s_jobacc_t *a = &ph->acc[j];
        rb_job_stat_t cur = {.job = j};
        for (int c = 0; c < S_NCH; c++)
            rb_hist_init(&a->now[c]);
        for (uint32_t i = 0; i < ph->nworkers; i++) {
            rb_worker_t *w = &ph->w[i];
            if (w->job != j)
                continue;
            /* Counters first, histograms after: they may run a few IOs
             * ahead, never behind; both catch up exactly in the next sample. */
            s_add_live(&cur, w);
            s_merge_worker(a->now, w, &ph->scratch, 1);
        }
        for (int c = 0; c < S_NCH; c++) {
            rb_hist_delta(&a->delta[c], &a->now[c], &a->hprev[c]);
            a->hprev[c] = a->now[c];
        }
        rb_job_stat_t *js = &ph->sjobs[j];
        *js = (rb_job_stat_t){.job = j,
                              .bytes = cur.bytes - a->prev.bytes,
                              .ops = cur.ops - a->prev.ops,
                              .errors = cur.errors - a->prev.errors,
                              .read_bytes = cur.read_bytes - a->prev.read_bytes,
                              .read_ops = cur.read_ops - a->prev.read_ops,
                              .write_bytes = cur.write_bytes - a->prev.write_bytes,
                              .write_ops = cur.write_ops - a->prev.write_ops,
                              .trim_bytes = cur.trim_bytes - a->prev.trim_bytes,
                              .trim_ops = cur.trim_ops - a->prev.trim_ops,
                              .verify_errors = cur.verify_errors - a->prev.verify_errors};
        s_point_hists(js, a->delta);
        a->prev = cur;
    }
}

int rb_phase_stonewalled(rb_phase_t *ph, uint32_t j, uint64_t *max_ops)
{
    if (j >= ph->spec->njobs || ph->sw_sent[j])
        return 0;
    uint64_t most = 0;
    for (uint32_t i = 0; i < ph->nworkers; i++) {
        rb_worker_t *w = &ph->w[i];
        if (w->job != j)
            continue;
        uint64_t ops;
        if (__atomic_load_n(&w->finished, __ATOMIC_ACQUIRE))
            ops = rb_worker_ops(w);
        else if (__atomic_load_n(&w->sw_wait, __ATOMIC_ACQUIRE))
            ops = w->sw_ops;
        else
            return 0;
        if (ops > most)
            most = ops;
    }
    ph->sw_sent[j] = 1;
    *max_ops = most;
    return 1;
}

void rb_phase_wearout(rb_phase_t *ph, uint32_t j, uint64_t ops)
{
    if (j < ph->spec->njobs)
        __atomic_store_n(&ph->target[j], ops == UINT64_MAX ? ops - 1 : ops, __ATOMIC_RELEASE);
}

/* The device worker w runs on alone: 1 + its index in ph->devs (added
 * when new), or 0 when it has none, spans several or there are too many. */
static uint32_t s_worker_dev(rb_phase_t *ph, const rb_worker_t *w)
{
    char path[RB_PATH_MAX];
    if (!w->spec->device[0] || rb_devjob_worker_device(w->spec, w->index, path, sizeof path) < 0)
        return 0;
    for (uint32_t i = 0; i < ph->ndevs; i++)
        if (strcmp(ph->devs[i].path, path) == 0)
            return i + 1;
    if (ph->ndevs == RB_MAX_DEVS)
        return 0;
    if (!ph->devs) {
        ph->devs = calloc(RB_MAX_DEVS, sizeof *ph->devs);
        ph->ddevs = calloc(RB_MAX_DEVS, sizeof *ph->ddevs);
        ph->dh = calloc(RB_MAX_DEVS, sizeof *ph->dh);
        if (!ph->devs || !ph->ddevs || !ph->dh)
            return 0; /* out of memory: no figures per device */
    }
    uint32_t k = ph->ndevs++;
    rb_devid_read(path, &ph->devs[k]); /* what sysfs does not tell stays empty */
    for (int c = 0; c < S_NCH; c++)
        rb_hist_init(&ph->dh[k][c]);
    ph->ddevs[k] = (rb_job_stat_t){.job = k};
    s_point_hists(&ph->ddevs[k], ph->dh[k]);
    return k + 1;
}

int rb_phase_collect(rb_phase_t *ph, const char *run_id, rb_msg_done_t *out)
{
    const rb_phase_spec_t *spec = ph->spec;
    s_join_all(ph);
    memset(out, 0, sizeof *out);
    snprintf(out->run_id, sizeof out->run_id, "%s", run_id);
    out->phase = ph->index;
    out->nworkers = ph->nworkers;
    out->workers = ph->dworkers;
    out->njobs = spec->njobs;
    out->jobs = ph->djobs;
    for (uint32_t j = 0; j < spec->njobs; j++) {
        for (int c = 0; c < S_NCH; c++)
            rb_hist_init(&ph->acc[j].total[c]);
        ph->djobs[j] = (rb_job_stat_t){.job = j};
        s_point_hists(&ph->djobs[j], ph->acc[j].total);
    }
    for (uint32_t i = 0; i < ph->nworkers; i++) {
        rb_worker_t *w = &ph->w[i];
        rb_worker_stat_t *ws = &ph->dworkers[i];
        *ws = (rb_worker_stat_t){.job = w->job,
                                 .worker = w->index,
                                 .t_start_ns = w->t_start,
                                 .t_end_ns = w->t_end,
                                 .bytes = rb_worker_bytes(w),
                                 .ops = rb_worker_ops(w),
                                 .errors = w->errors,
                                 .read_bytes = w->rbytes,
                                 .read_ops = w->rops,
                                 .write_bytes = w->wbytes,
                                 .write_ops = w->wops,
                                 .trim_bytes = w->tbytes,
                                 .trim_ops = w->tops,
                                 .verify_errors = w->verify_errors,
                                 .first_errno = (uint32_t)-w->first_error,
                                 .ncheckpts = w->ncp,
                                 .checkpts = w->cp,
                                 .sw_t_ns = w->sw_t,
                                 .sw_bytes = w->sw_bytes,
                                 .sw_ops = w->sw_ops,
                                 .found = w->found};
        rb_job_stat_t *js = &ph->djobs[w->job];
        s_add_live(js, w);
        js->filesize = rb_job_filesize(w->spec); /* as settled here: a device's, a file's */
        if (w->spec->lat_target_ns && (!js->lat_depth || w->lat_qd < js->lat_depth))
            js->lat_depth = w->lat_qd; /* latency_target: the smallest depth found */
        s_merge_worker(ph->acc[w->job].total, w, NULL, 0);
        if ((ws->dev = s_worker_dev(ph, w)) != 0) {
            s_add_live(&ph->ddevs[ws->dev - 1], w);
            s_merge_worker(ph->dh[ws->dev - 1], w, NULL, 0);
        }
        s_ss_t *ss = &ph->ss[w->job];
        if (ss->state == RB_SS_NOT_ATTAINED && w->t_end > ss->epoch &&
            w->t_end - ss->epoch > ss->t_ns)
            ss->t_ns = w->t_end - ss->epoch; /* not steady: how long it ran */
        if (w->status && !out->status) {
            out->status = w->status;
            snprintf(out->error, sizeof out->error, "%s", w->error);
            snprintf(out->error_path, sizeof out->error_path, "%s", w->error_path);
            out->error_offset = w->error_offset;
        }
    }
    for (uint32_t j = 0; j < spec->njobs; j++) {
        const s_ss_t *ss = &ph->ss[j];
        rb_job_stat_t *js = &ph->djobs[j];
        js->ss_state = ss->state;
        js->ss_t_ns = ss->t_ns;
        if (ss->crit >= 0) {
            js->ss_crit = s_millionths(ss->crit);
            js->ss_mean = s_millionths(ss->mean);
        }
    }
    out->ndevs = out->ndev_stats = ph->ndevs;
    out->devs = ph->devs;
    out->dev_stats = ph->ddevs;
    if (ph->net)
        rb_net_phase_collect(ph->net, out);
    return out->status;
}
