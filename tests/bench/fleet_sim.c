/* fleet-sim: many simulated agents in one process, speaking the real
 * protocol to a real coordinator, to measure what the coordinator costs as
 * the fleet grows (tests/bench/fleet-sim.sh drives it).
 *
 * Each simulated agent has its own DEALER socket whose routing id is its
 * name, and sends what a real agent of a storage node sends. It says HELLO
 * (its host: kernel, CPU, 2 NICs, one root, and an inventory of 12 NVMe
 * drives), answers PINGs, answers PLAN with READY (its 12 drives' health,
 * as smartctl reads NVMe drives), and on GO sends one
 * SAMPLE per interval until the phase's runtime is over (one job writing:
 * bytes and ops in all and for writes, a latency histogram delta of about
 * 50 buckets as its lat and clat too, and telemetry of 4 disks), then,
 * as long after its last SAMPLE as its GO says (done_hold_ns), DONE (one
 * worker with progress checkpoints, the job's totals with the same
 * histograms, and 4 devices with figures of their own), and answers END
 * (with its drives' health after the run). It
 * sends a HEARTBEAT after a second of silence, as an agent does. No IO is
 * done.
 *
 * An interval's samples leave at its end, together, as agents on hosts of
 * their own send them: each is encoded ahead (s_encode_ahead), as is each
 * agent's DONE, which waits until every agent's last sample has left.
 *
 * Each agent speaks ZMTP on a plain socket (sim_zmtp.c: what a libzmq
 * DEALER puts on the wire), all of them watched with one epoll, so that a
 * process of 4,000 agents spends its CPU on messages, not on ZeroMQ's
 * bookkeeping per socket: on a small machine the simulators share the
 * cores with the coordinator they measure.
 *
 * On exit it prints one line: agents, samples sent, ERRORs received, the
 * spread of the agents' start times (first − last GO received, as an agent
 * starts at max(its GO time, when GO arrived); all agents here share one
 * clock, so this is the true spread, clock-offset errors included), how late
 * samples left after their interval's end (median, p99, max: the simulator's
 * own share of the coordinator's lag), the process's CPU time, and how long
 * after an interval's end its agents heard their phase's HEARTBEATs (the
 * median: the coordinator sends its rounds halfway between samples). */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "rb_hist.h"
#include "rb_proto.h"
#include "sim_zmtp.h"

#define S_HB_NS          1000000000ull
#define S_CHECKPTS       200
#define S_HELLO_DEVS     12 /* drives in a HELLO's inventory (at most; RB_FLEET_HELLO_DEVS) */
#define S_DONE_DEVS      4  /* devices with figures of their own in a DONE */
#define S_EXIT_IDLE_S    30 /* give up this long after the last message */
#define S_AHEAD_GAP_NS   10000000ull /* encoding ahead stops this near the next samples' time */
#define S_AHEAD_SLICE_NS 2000000ull  /* DONEs encoded ahead at most this long at a time */
#define S_FLUSH_MS       5000        /* at exit, what is left to write gets this long */
#define S_SHIFT          0x10203040506ull /* how much later a message is encoded to find its times */

typedef enum { S_HELLO = 0, S_SYNC, S_READY, S_RUNNING, S_DONE, S_ENDED } s_state_t;

typedef struct s_agent {
    sim_zmtp_t z; /* its connection */
    uint32_t idx; /* its place, its epoll data */
    int out_wait; /* watched for room to write what is left */
    char name[RB_NAME_MAX];
    s_state_t state;
    uint64_t next_hb;    /* next HEARTBEAT (or HELLO while not heard) */
    uint64_t hello_wait; /* after an unanswered HELLO, as an agent waits: doubling */
    uint64_t go_ns;      /* when its GO came */
    uint64_t start_ns;   /* when its phase started */
    uint64_t end_ns;     /* when its phase ends */
    uint64_t hold_ns;    /* its DONE leaves this long after (GO's done_hold_ns) */
    uint32_t seq;        /* next sample */
    uint32_t phase;      /* phase running */
    void *ready;         /* its next SAMPLE (seq), encoded ahead of its interval's end */
    size_t ready_len;
    void *done; /* its DONE, encoded ahead of its phase's end */
    size_t done_len;
} s_agent_t;

/* A message the agents of a process send alike but for their phase's
 * times, encoded once (s_tmpl_copy). */
typedef struct s_tmpl {
    uint8_t *buf; /* with the times of the agent that started at start; NULL: none yet */
    size_t len;
    size_t *at; /* where its times lie (their 0xcf tags) */
    uint32_t nat;
    uint64_t key[2]; /* what it is of: (phase, seq) or (phase, span) */
    uint64_t start;
    int off; /* its times were not found: each is encoded whole */
} s_tmpl_t;

typedef struct s_sim {
    s_agent_t *a;
    uint32_t n;
    char run_id[RB_NAME_MAX];
    uint64_t interval_ns;
    rb_msg_t plan; /* decoded PLAN (phases, for runtimes) */
    int have_plan;
    uint64_t sent, errors, ended;
    uint64_t beats;  /* HEARTBEATs heard by agents in their phase (GO to DONE) */
    uint64_t run_ns; /* the agents' time from GO to DONE, summed */
    uint64_t first_start, last_start;
    rb_hist_t hist; /* the histogram every sample carries */
    rb_telem_t telem;
    rb_hist_t late;    /* send time - interval end of every sample, ns */
    rb_hist_t beat_at; /* HEARTBEATs heard in a phase: how long after an interval's end, ns */
    rb_health_t health[S_HELLO_DEVS]; /* its drives' health, as READY and END carry it */
    uint32_t nhealth;
    s_tmpl_t sample; /* the SAMPLE of (phase, seq) encoded once */
    s_tmpl_t done;   /* the DONE of (phase, span) encoded once */
} s_sim_t;

static int s_ep_fd = -1; /* every agent's connection, watched */

static uint64_t s_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *s_encode(const rb_msg_t *m, size_t *len)
{
    void *buf = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_msg_encode(m, &buf, len, &err) < 0) {
        fprintf(stderr, "fleet-sim: cannot encode %s: %s\n", rb_msg_type_name(m->type), err.msg);
        exit(1);
    }
    return buf;
}

/* a's connection watched for room to write (on) or for reading alone */
static void s_want_out(s_agent_t *a, int on)
{
    struct epoll_event ev = {.events = EPOLLIN | (on ? EPOLLOUT : 0), .data.u32 = a->idx};
    if (a->out_wait != on && epoll_ctl(s_ep_fd, EPOLL_CTL_MOD, a->z.fd, &ev) == 0)
        a->out_wait = on;
}

/* Sends an encoded message of that type, and frees it. */
static void s_send_buf(s_agent_t *a, rb_msg_type_t type, void *buf, size_t len)
{
    if (a->state != S_HELLO)
        a->next_hb = s_now() + S_HB_NS; /* as an agent: HEARTBEAT only after silence */
    int rc = a->z.fd < 0 ? 1 : sim_zmtp_send(&a->z, buf, len); /* closed: said once */
    if (rc == 0)
        s_want_out(a, 1);
    else if (rc < 0)
        fprintf(stderr, "fleet-sim: %s: send %s: %s\n", a->name, rb_msg_type_name(type),
                strerror(-rc));
    free(buf);
}

static void s_send(s_agent_t *a, const rb_msg_t *m)
{
    size_t len;
    void *buf = s_encode(m, &len);
    s_send_buf(a, m->type, buf, len);
}

/* How many drives an agent has (RB_FLEET_HELLO_DEVS, at most S_HELLO_DEVS). */
static uint32_t s_ndevs(void)
{
    const char *env = getenv("RB_FLEET_HELLO_DEVS");
    uint32_t n = env ? (uint32_t)strtoul(env, NULL, 10) : S_HELLO_DEVS;
    return n < S_HELLO_DEVS ? n : S_HELLO_DEVS;
}

/* Its drives' health as a storage node's agent reads it: NVMe drives with
 * their health log, the first (under /) as the rest. */
static void s_health(s_sim_t *s, uint32_t pid)
{
    s->nhealth = s_ndevs();
    for (uint32_t i = 0; i < s->nhealth; i++) {
        rb_health_t *h = &s->health[i];
        memset(h, 0, sizeof *h);
        snprintf(h->dev, sizeof h->dev, "/dev/nvme%un1", i);
        snprintf(h->model, sizeof h->model, "SAMSUNG MZQL27T6HBLA-00A07");
        snprintf(h->serial, sizeof h->serial, "S6CKNE0%c%05u", 'A' + (char)(i % 26),
                 (unsigned)(pid % 100000));
        snprintf(h->protocol, sizeof h->protocol, "NVMe");
        h->verdict = RB_SMART_PASSED;
        h->reallocated = h->pending = h->offline_unc = h->crc_errors = RB_HEALTH_NA;
        h->media_errors = h->critical_warning = 0;
        h->error_log = 12;
        h->percentage_used = 3;
        h->available_spare = 100;
        h->spare_threshold = 10;
        h->temperature = h->temperature_max = 38 + i % 4;
        h->power_on_hours = 9000 + i;
    }
}

static void s_hello(s_agent_t *a, uint32_t pid)
{
    rb_msg_t m = {.type = RB_MSG_HELLO};
    rb_msg_hello_t *h = &m.u.hello;
    snprintf(h->name, sizeof h->name, "%s", a->name);
    snprintf(h->rack, sizeof h->rack, "rack%c", a->name[strlen(a->name) - 1]);
    snprintf(h->hostname, sizeof h->hostname, "%s", a->name);
    snprintf(h->agent_version, sizeof h->agent_version, "%s", RB_VERSION);
    h->fingerprint = rb_proto_fingerprint(rb_proto_speak());
    h->pid = pid;
    h->cores = 32;
    h->ram_bytes = 256ull << 30;
    h->cache_bytes = 1ull << 30;
    h->nroots = 1;
    snprintf(h->roots[0].path, sizeof h->roots[0].path, "/data");
    h->roots[0].free_bytes = 4ull << 40;
    h->roots[0].total_bytes = 8ull << 40;
    snprintf(h->roots[0].fs_type, sizeof h->roots[0].fs_type, "xfs");
    snprintf(h->roots[0].source, sizeof h->roots[0].source, "/dev/nvme0n1");
    snprintf(h->roots[0].options, sizeof h->roots[0].options, "rw,noatime,attr2,inode64");
    snprintf(h->kernel, sizeof h->kernel, "6.1.0-28-amd64");
    snprintf(h->cpu_model, sizeof h->cpu_model, "AMD EPYC 7543 32-Core Processor");
    h->nnics = 2;
    for (uint32_t i = 0; i < h->nnics; i++) {
        snprintf(h->nics[i].name, sizeof h->nics[i].name, "ens%u", 1 + i);
        h->nics[i].speed_mbps = 100000;
        snprintf(h->nics[i].mac, sizeof h->nics[i].mac, "0c:42:a1:00:%02x:%02x", i,
                 (unsigned)(pid & 0xff));
    }
    rb_dev_id_t devs[S_HELLO_DEVS];
    memset(devs, 0, sizeof devs);
    uint32_t ndevs = s_ndevs();
    for (uint32_t i = 0; i < ndevs; i++) {
        rb_dev_id_t *d = &devs[i];
        snprintf(d->path, sizeof d->path, "/dev/nvme%un1", i);
        snprintf(d->name, sizeof d->name, "nvme%un1", i);
        snprintf(d->model, sizeof d->model, "SAMSUNG MZQL27T6HBLA-00A07");
        snprintf(d->serial, sizeof d->serial, "S6CKNE0%c%05u", 'A' + (char)(i % 26),
                 (unsigned)(pid % 100000));
        snprintf(d->firmware, sizeof d->firmware, "GDC5602Q");
        snprintf(d->scheduler, sizeof d->scheduler, "none");
        d->size = 7680ull * 1000 * 1000 * 1000;
        d->lbs = d->pbs = 4096;
        d->read_ahead_kb = 128;
        d->nr_requests = 1023;
        d->access = i ? RB_DEV_WRITE : RB_DEV_NONE;
        if (!i)
            snprintf(d->use, sizeof d->use, "holds / (mounted)");
    }
    h->ndevs = ndevs;
    h->devs = devs;
    s_send(a, &m);
}

/* A latency distribution of ~50 non-empty buckets around 200 µs. */
static void s_make_hist(rb_hist_t *h)
{
    rb_hist_init(h);
    for (uint64_t v = 120000; v < 400000; v += 5600)
        for (int k = 0; k < 20; k++)
            rb_hist_record(h, v + (uint64_t)k);
}

static void s_make_telem(rb_telem_t *t)
{
    memset(t, 0, sizeof *t);
    t->user_pm = 15;
    t->system_pm = 10;
    t->iowait_pm = 300;
    t->idle_pm = 655;
    t->irq_pm = 20;
    t->ncpu = 32;
    t->load1_m = 4200;
    t->ctxt_per_s = 50000;
    t->cached = 8ull << 30;
    t->dirty = 64ull << 20;
    t->ndevs = 4;
    for (uint32_t i = 0; i < 4; i++) {
        rb_telem_dev_t *d = &t->devs[i];
        snprintf(d->name, sizeof d->name, "nvme%un1", i);
        d->wr_bps = 1500ull << 20;
        d->wr_iops = 1500;
        d->util_pm = 700;
        d->qdepth_m = 16000;
        d->await_us = 220;
        d->wr_bytes = 1500ull << 20;
    }
}

static uint64_t s_runtime(const s_sim_t *s, uint32_t phase)
{
    const rb_msg_plan_t *pl = &s->plan.u.plan;
    uint64_t rt = 0;
    if (phase >= pl->nphases)
        return 0;
    for (uint32_t j = 0; j < pl->phases[phase].njobs; j++) {
        const rb_job_spec_t *js = &pl->phases[phase].jobs[j];
        if (js->ramp_ns + js->runtime_ns > rt)
            rt = js->ramp_ns + js->runtime_ns;
    }
    return rt ? rt : 10ull * 1000000000ull;
}

/* A job's figures as a writing job's are: all of them writes, with its lat
 * and clat (an engine that submits and completes in one call has no slat). */
static void s_job_stat(rb_job_stat_t *js, uint64_t bytes, uint64_t ops, rb_hist_t *h)
{
    js->bytes = js->write_bytes = bytes;
    js->ops = js->write_ops = ops;
    js->hist = h;
    js->lat[RB_DIR_WRITE][RB_LAT_LAT] = h;
    js->lat[RB_DIR_WRITE][RB_LAT_CLAT] = h;
}

/* The interval of a's sample seq: [*t0, *t1), cut at its phase's end. */
static void s_interval(const s_sim_t *s, const s_agent_t *a, uint32_t seq, uint64_t *t0,
                       uint64_t *t1)
{
    *t0 = a->start_ns + (uint64_t)seq * s->interval_ns;
    *t1 = *t0 + s->interval_ns;
    if (*t1 > a->end_ns)
        *t1 = a->end_ns;
}

static void *s_sample_whole(s_sim_t *s, uint32_t phase, uint32_t seq, uint64_t t0, uint64_t t1,
                            size_t *len)
{
    rb_msg_t m = {.type = RB_MSG_SAMPLE};
    rb_msg_sample_t *b = &m.u.sample;
    rb_job_stat_t js = {0};
    s_job_stat(&js, 6000ull << 20, s->hist.count, &s->hist);
    snprintf(b->run_id, sizeof b->run_id, "%s", s->run_id);
    b->phase = phase;
    b->seq = seq;
    b->t_start_ns = t0;
    b->t_end_ns = t1;
    b->njobs = 1;
    b->jobs = &js;
    b->ntelem = 1;
    b->telem = &s->telem;
    return s_encode(&m, len);
}

/* v as the encoder packs a uint 64, at p: its tag, then big-endian */
static void s_put_be64(uint8_t *p, uint64_t v)
{
    p[0] = 0xcf;
    for (int i = 0; i < 8; i++)
        p[1 + i] = (uint8_t)(v >> (56 - 8 * i));
}

static uint64_t s_get_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 1; i <= 8; i++)
        v = v << 8 | p[i];
    return v;
}

/* a's message (sample seq, for a SAMPLE) encoded whole, every time in it
 * shift later */
typedef void *s_whole_fn(s_sim_t *s, const s_agent_t *a, uint32_t seq, uint64_t shift, size_t *len);

/* t as a's message: encoded whole, and where its times lie, found as the
 * uint 64s that an encoding with every time S_SHIFT later has S_SHIFT
 * more of; trusted only when the template shifted so is byte for byte
 * that encoding. */
static void s_tmpl_make(s_sim_t *s, s_tmpl_t *t, const s_agent_t *a, uint32_t seq,
                        s_whole_fn *whole)
{
    free(t->buf);
    free(t->at);
    memset(t, 0, sizeof *t);
    t->start = a->start_ns;
    t->buf = whole(s, a, seq, 0, &t->len);
    size_t len2;
    uint8_t *b = t->buf, *b2 = whole(s, a, seq, S_SHIFT, &len2);
    t->at = malloc(t->len / 9 * sizeof *t->at);
    t->off = len2 != t->len || !t->at;
    for (size_t i = 0; !t->off && i + 9 <= t->len; i++)
        if (b[i] == 0xcf && b2[i] == 0xcf && s_get_be64(b2 + i) - s_get_be64(b + i) == S_SHIFT) {
            t->at[t->nat++] = i;
            s_put_be64(b + i, s_get_be64(b + i) + S_SHIFT);
            i += 8;
        }
    t->off = t->off || memcmp(b, b2, t->len) != 0;
    for (uint32_t i = 0; i < t->nat; i++) /* back to a's own times */
        s_put_be64(b + t->at[i], s_get_be64(b + t->at[i]) - S_SHIFT);
    free(b2);
    if (t->off)
        fprintf(stderr, "fleet-sim: a message's times were not found in its encoding: each is "
                        "encoded whole\n");
}

/* a's message of key (k0, k1), encoded. The agents of a process send the
 * same figures and differ in their phase's times alone (their starts as
 * their GOs put them): their messages are copies of one, its times shifted
 * by how much later or earlier a's phase started (times on the monotonic
 * clock are past 2^32 ns: the encoder packs them as uint 64s). An encoding
 * per agent cost the simulators more CPU than the coordinator they
 * measure, on the same cores: 16,000 DONEs took 90 % of both through a
 * phase's first interval. */
static void *s_tmpl_copy(s_sim_t *s, s_tmpl_t *t, const s_agent_t *a, uint32_t seq, uint64_t k0,
                         uint64_t k1, s_whole_fn *whole, size_t *len)
{
    if (t->off || a->start_ns <= UINT32_MAX)
        return whole(s, a, seq, 0, len);
    if (!t->buf || t->key[0] != k0 || t->key[1] != k1) {
        s_tmpl_make(s, t, a, seq, whole);
        t->key[0] = k0;
        t->key[1] = k1;
        if (t->off)
            return whole(s, a, seq, 0, len);
    }
    uint8_t *buf = malloc(t->len);
    if (!buf) {
        fprintf(stderr, "fleet-sim: out of memory\n");
        exit(1);
    }
    memcpy(buf, t->buf, t->len);
    uint64_t shift = a->start_ns - t->start; /* mod 2^64: earlier is fine */
    for (uint32_t i = 0; i < t->nat; i++)
        s_put_be64(buf + t->at[i], s_get_be64(buf + t->at[i]) + shift);
    *len = t->len;
    return buf;
}

static void *s_sample_at(s_sim_t *s, const s_agent_t *a, uint32_t seq, uint64_t shift, size_t *len)
{
    uint64_t t0, t1;
    s_interval(s, a, seq, &t0, &t1);
    return s_sample_whole(s, a->phase, seq, t0 + shift, t1 + shift, len);
}

/* a's SAMPLE seq, encoded (a copy of the process's, s_tmpl_copy) */
static void *s_sample_encode(s_sim_t *s, const s_agent_t *a, uint32_t seq, size_t *len)
{
    return s_tmpl_copy(s, &s->sample, a, seq, a->phase, seq, s_sample_at, len);
}

static void *s_done_encode(s_sim_t *s, const s_agent_t *a, size_t *len);

/* Encodes each agent's next SAMPLE while its interval runs, as an agent's
 * sampler has its figures at the interval's end: sent then with no
 * encoding, an interval's samples leave together, as agents on hosts of
 * their own send them, not one encoding apart. Then, with time to spare,
 * each agent's DONE. True when there is more to encode now. */
static bool s_encode_ahead(s_sim_t *s)
{
    uint64_t due = UINT64_MAX, t0, t1;
    for (uint32_t i = 0; i < s->n; i++) { /* the earliest interval's end to come */
        s_interval(s, &s->a[i], s->a[i].seq, &t0, &t1);
        if (s->a[i].state == S_RUNNING && t1 > t0 && t1 < due)
            due = t1;
    }
    for (uint32_t i = 0; i < s->n; i++) {
        s_agent_t *a = &s->a[i];
        s_interval(s, a, a->seq, &t0, &t1);
        if (a->state != S_RUNNING || a->ready || t1 <= t0)
            continue;
        if (s_now() + S_AHEAD_GAP_NS >= due) /* not into the next samples' time */
            return false;
        a->ready = s_sample_encode(s, a, a->seq, &a->ready_len);
    }
    /* Then the DONEs (copies of one: s_tmpl_copy), which an agent of its
     * own host has at its phase's end: made there, 4,000 of them on the
     * cores the coordinator shares held its last samples back. A slice at
     * a time, so that the other agents' messages (a GO) are not held up
     * meanwhile. */
    uint64_t until = s_now() + S_AHEAD_SLICE_NS;
    for (uint32_t i = 0; i < s->n; i++) {
        s_agent_t *a = &s->a[i];
        if (a->state != S_RUNNING || a->done)
            continue;
        uint64_t now = s_now();
        if (now + S_AHEAD_GAP_NS >= due || now >= until)
            return now + S_AHEAD_GAP_NS < due; /* more to do, when there is time */
        a->done = s_done_encode(s, a, &a->done_len);
    }
    return false;
}

static void s_sample(s_sim_t *s, s_agent_t *a, uint64_t t1)
{
    size_t len = a->ready_len;
    void *buf = a->ready ? a->ready : s_sample_encode(s, a, a->seq, &len);
    a->ready = NULL;
    a->seq++;
    s_send_buf(a, RB_MSG_SAMPLE, buf, len);
    uint64_t now = s_now();
    rb_hist_record(&s->late, now > t1 ? now - t1 : 0);
    s->sent++;
}

/* The samples a phase of that span has: its intervals, the last cut at its end. */
static uint32_t s_nsamples(const s_sim_t *s, uint64_t span)
{
    return s->interval_ns ? (uint32_t)((span + s->interval_ns - 1) / s->interval_ns) : 0;
}

/* The DONE of an agent whose phase ran [start_ns, end_ns), encoded whole:
 * what it says at its phase's end, its samples all sent. */
static void *s_done_whole(s_sim_t *s, uint32_t phase, uint64_t start_ns, uint64_t end_ns,
                          size_t *len)
{
    static rb_checkpt_t cp[S_CHECKPTS];
    uint64_t span = end_ns - start_ns;
    uint32_t nseq = s_nsamples(s, span);
    for (uint32_t i = 0; i < S_CHECKPTS; i++) {
        cp[i].t_ns = start_ns + span / S_CHECKPTS * (i + 1);
        cp[i].bytes = (6000ull << 20) / 1000 * (span / 1000000) / S_CHECKPTS * (i + 1);
    }
    rb_hist_t total;
    rb_hist_init(&total);
    for (uint32_t i = 0; i < nseq; i++)
        rb_hist_merge(&total, &s->hist);
    rb_worker_stat_t w = {.job = 0,
                          .worker = 0,
                          .t_start_ns = start_ns,
                          .t_end_ns = end_ns,
                          .bytes = (6000ull << 20) * nseq,
                          .ops = total.count,
                          .ncheckpts = S_CHECKPTS,
                          .checkpts = cp};
    rb_job_stat_t js = {0};
    s_job_stat(&js, w.bytes, w.ops, &total);
    rb_dev_id_t devs[S_DONE_DEVS];
    rb_job_stat_t dev_stats[S_DONE_DEVS];
    memset(devs, 0, sizeof devs);
    memset(dev_stats, 0, sizeof dev_stats);
    for (uint32_t i = 0; i < S_DONE_DEVS; i++) {
        snprintf(devs[i].path, sizeof devs[i].path, "/dev/nvme%un1", i + 1);
        snprintf(devs[i].name, sizeof devs[i].name, "nvme%un1", i + 1);
        snprintf(devs[i].model, sizeof devs[i].model, "SAMSUNG MZQL27T6HBLA-00A07");
        devs[i].size = 7680ull * 1000 * 1000 * 1000;
        devs[i].lbs = devs[i].pbs = 4096;
        dev_stats[i].job = i;
        s_job_stat(&dev_stats[i], w.bytes / S_DONE_DEVS, w.ops / S_DONE_DEVS, &total);
    }
    rb_msg_t m = {.type = RB_MSG_DONE};
    rb_msg_done_t *d = &m.u.done;
    d->ndevs = d->ndev_stats = S_DONE_DEVS;
    d->devs = devs;
    d->dev_stats = dev_stats;
    snprintf(d->run_id, sizeof d->run_id, "%s", s->run_id);
    d->phase = phase;
    d->nworkers = 1;
    d->workers = &w;
    d->njobs = 1;
    d->jobs = &js;
    return s_encode(&m, len);
}

static void *s_done_at(s_sim_t *s, const s_agent_t *a, uint32_t seq, uint64_t shift, size_t *len)
{
    (void)seq;
    return s_done_whole(s, a->phase, a->start_ns + shift, a->end_ns + shift, len);
}

/* a's DONE, encoded (a copy of the process's, s_tmpl_copy) */
static void *s_done_encode(s_sim_t *s, const s_agent_t *a, size_t *len)
{
    return s_tmpl_copy(s, &s->done, a, 0, a->phase, a->end_ns - a->start_ns, s_done_at, len);
}

static void s_done(s_sim_t *s, s_agent_t *a)
{
    size_t len = a->done_len;
    void *buf = a->done ? a->done : s_done_encode(s, a, &len);
    a->done = NULL;
    s_send_buf(a, RB_MSG_DONE, buf, len);
    s->run_ns += s_now() - a->go_ns;
    a->state = S_DONE;
}

static void s_on_msg(s_sim_t *s, s_agent_t *a, const void *buf, size_t len, uint64_t now)
{
    rb_msg_t m;
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_msg_decode(buf, len, &m, &err) < 0) {
        fprintf(stderr, "fleet-sim: %s: %s\n", a->name, err.msg);
        s->errors++;
        return;
    }
    if (a->state == S_HELLO)
        a->state = S_SYNC; /* heard: HEARTBEATs from now on */
    switch (m.type) {
    case RB_MSG_PING: {
        rb_msg_t p = {.type = RB_MSG_PONG};
        p.u.pong.seq = m.u.ping.seq;
        p.u.pong.t_coord_ns = m.u.ping.t_coord_ns;
        p.u.pong.t_agent_ns = s_now();
        s_send(a, &p);
        break;
    }
    case RB_MSG_PLAN: {
        if (!s->have_plan) {
            snprintf(s->run_id, sizeof s->run_id, "%s", m.u.plan.run_id);
            s->interval_ns = m.u.plan.interval_ns;
            s->plan = m;
            s->have_plan = 1;
            memset(&m, 0, sizeof m); /* kept */
        }
        rb_msg_t r = {.type = RB_MSG_READY};
        snprintf(r.u.ready.run_id, sizeof r.u.ready.run_id, "%s", s->run_id);
        r.u.ready.nhealth = s->nhealth;
        r.u.ready.health = s->health;
        s_send(a, &r);
        a->state = S_READY;
        break;
    }
    case RB_MSG_GO: {
        a->go_ns = now;
        uint64_t t = m.u.go.t_go_ns + (uint64_t)m.u.go.offset_ns;
        a->start_ns = t > now ? t : now;
        a->end_ns = a->start_ns + s_runtime(s, m.u.go.phase);
        a->hold_ns = m.u.go.done_hold_ns;
        a->phase = m.u.go.phase;
        a->seq = 0;
        free(a->ready); /* none is left from a phase before; for certain */
        a->ready = NULL;
        free(a->done);
        a->done = NULL;
        a->state = S_RUNNING;
        if (!s->first_start || a->start_ns < s->first_start)
            s->first_start = a->start_ns;
        if (a->start_ns > s->last_start)
            s->last_start = a->start_ns;
        break;
    }
    case RB_MSG_END:
    case RB_MSG_ABORT: {
        rb_msg_t e = {.type = RB_MSG_END};
        snprintf(e.u.end.run_id, sizeof e.u.end.run_id, "%s", s->run_id);
        if (a->state != S_ENDED) { /* the readings after the run, once */
            e.u.end.nhealth = s->nhealth;
            e.u.end.health = s->health;
        }
        s_send(a, &e);
        if (a->state != S_ENDED)
            s->ended++;
        a->state = S_ENDED;
        break;
    }
    case RB_MSG_HEARTBEAT:
        s->beats += a->state == S_RUNNING;
        if (a->state == S_RUNNING && s->interval_ns && now > a->start_ns)
            rb_hist_record(&s->beat_at, (now - a->start_ns) % s->interval_ns);
        break;
    case RB_MSG_ERROR:
        s->errors++;
        fprintf(stderr, "fleet-sim: %s: ERROR %d %s\n", a->name, m.u.error.code, m.u.error.reason);
        break;
    default:
        break;
    }
    rb_msg_fini(&m);
}

/* a's connection is gone (or never spoke ZMTP): it is out of the run,
 * an error unless it had ended. */
static void s_closed(s_sim_t *s, s_agent_t *a, const char *why)
{
    if (a->state != S_ENDED) {
        fprintf(stderr, "fleet-sim: %s: %s\n", a->name, why);
        s->errors++;
        s->ended++;
        a->state = S_ENDED;
    }
    epoll_ctl(s_ep_fd, EPOLL_CTL_DEL, a->z.fd, NULL);
    sim_zmtp_close(&a->z);
}

/* At exit, what is left to write (the last ENDs) is written, for
 * S_FLUSH_MS at most, as a ZeroMQ socket's linger would. */
static void s_flush_all(s_sim_t *s)
{
    uint64_t until = s_now() + (uint64_t)S_FLUSH_MS * 1000000;
    for (uint32_t i = 0; i < s->n; i++) {
        sim_zmtp_t *z = &s->a[i].z;
        while (z->fd >= 0 && sim_zmtp_flush(z) == 0 && s_now() < until) {
            struct pollfd pf = {.fd = z->fd, .events = POLLOUT};
            poll(&pf, 1, 100);
        }
    }
}

/* Sends what is due: HELLO or HEARTBEAT, samples of ended intervals, DONE.
 * Returns when it has something to send next. */
static uint64_t s_timers(s_sim_t *s, s_agent_t *a, uint64_t now, uint32_t pid)
{
    if (now >= a->next_hb && a->state != S_ENDED) {
        if (a->state == S_HELLO) {
            s_hello(a, pid);
            a->hello_wait = rb_hello_wait_ns(a->hello_wait);
            a->next_hb = now + a->hello_wait;
        } else {
            rb_msg_t hb = {.type = RB_MSG_HEARTBEAT};
            hb.u.heartbeat.t_ns = now;
            s_send(a, &hb);
            a->next_hb = now + S_HB_NS;
        }
    }
    if (a->state != S_RUNNING)
        return a->next_hb;
    uint64_t next = a->next_hb;
    for (;;) {
        uint64_t t0, t1;
        s_interval(s, a, a->seq, &t0, &t1);
        if (t1 > now || t1 <= t0) {
            if (t1 > now && t1 < next)
                next = t1;
            break;
        }
        s_sample(s, a, t1);
    }
    if (now < a->end_ns + a->hold_ns && a->end_ns + a->hold_ns < next)
        next = a->end_ns + a->hold_ns;
    return next; /* its DONE once every agent's last sample has left, and its hold is over */
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: fleet-sim ENDPOINT PREFIX COUNT [FIRST]\n");
        return 2;
    }
    const char *ep = argv[1], *prefix = argv[2];
    uint32_t n = (uint32_t)strtoul(argv[3], NULL, 10);
    uint32_t first = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 0;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if ((uint64_t)n + 64 > rl.rlim_cur) {
        fprintf(stderr, "fleet-sim: %u agents need about %u file descriptors, the limit is %llu\n",
                n, n + 64, (unsigned long long)rl.rlim_cur);
        return 2;
    }
    s_sim_t sim = {.n = n};
    s_sim_t *s = &sim;
    s->a = calloc(n, sizeof *s->a);
    s_ep_fd = epoll_create1(EPOLL_CLOEXEC);
    if (!s->a || s_ep_fd < 0) {
        perror("fleet-sim");
        return 1;
    }
    s_make_hist(&s->hist);
    s_make_telem(&s->telem);
    rb_hist_init(&s->late);
    rb_hist_init(&s->beat_at);
    uint32_t pid = (uint32_t)getpid();
    s_health(s, pid);
    uint64_t now = s_now();
    for (uint32_t i = 0; i < n; i++) {
        s_agent_t *a = &s->a[i];
        snprintf(a->name, sizeof a->name, "%s%05u", prefix, first + i);
        a->idx = i;
        int rc = sim_zmtp_connect(&a->z, ep, a->name);
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = i};
        if (rc < 0 || epoll_ctl(s_ep_fd, EPOLL_CTL_ADD, a->z.fd, &ev) < 0) {
            fprintf(stderr, "fleet-sim: connect %s as %s: %s\n", ep, a->name,
                    strerror(rc < 0 ? -rc : errno));
            return 1;
        }
        if (a->z.out_len)
            s_want_out(a, 1);
        a->next_hb = now + (uint64_t)i * 1000 % S_HB_NS; /* spread the HELLOs a little */
    }
    uint64_t last_msg = s_now();
    struct epoll_event evs[256];
    int wait_ms = 0;
    while (s->ended < n) {
        int rc = epoll_wait(s_ep_fd, evs, (int)(sizeof evs / sizeof evs[0]), wait_ms);
        now = s_now();
        for (int k = 0; k < rc; k++) {
            s_agent_t *a = &s->a[evs[k].data.u32];
            if (a->z.fd < 0)
                continue;
            int w = evs[k].events & EPOLLOUT ? sim_zmtp_flush(&a->z) : 0;
            if (w > 0)
                s_want_out(a, 0);
            int r = evs[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR) ? sim_zmtp_read(&a->z) : 0;
            const uint8_t *m;
            size_t len;
            int x;
            while ((x = sim_zmtp_next(&a->z, &m, &len)) > 0) {
                s_on_msg(s, a, m, len, now);
                last_msg = now;
            }
            if (a->z.out_off < a->z.out_len)
                s_want_out(a, 1); /* what waited for its READY, not all written */
            if (w < 0 || r < 0 || x < 0)
                s_closed(s, a,
                         x < 0 ? "the coordinator does not speak ZMTP 3 with NULL"
                               : "the connection closed");
        }
        uint64_t next = now + 10000000ull; /* wake at least every 10 ms */
        for (uint32_t i = 0; i < n; i++) {
            uint64_t t = s_timers(s, &s->a[i], now, pid);
            if (t < next)
                next = t;
        }
        for (uint32_t i = 0; i < n; i++)
            if (s->a[i].state == S_RUNNING && now >= s->a[i].end_ns + s->a[i].hold_ns)
                s_done(s, &s->a[i]);
        bool more = s_encode_ahead(s); /* after all that was due has left */
        now = s_now();
        wait_ms = more || next <= now ? 0 : (int)((next - now + 999999) / 1000000);
        if (now - last_msg > (uint64_t)S_EXIT_IDLE_S * 1000000000ull) {
            fprintf(stderr, "fleet-sim: nothing heard for %d s; giving up\n", S_EXIT_IDLE_S);
            break;
        }
    }
    s_flush_all(s);
    close(s_ep_fd);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                   (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    printf("agents %u sent %" PRIu64 " errors %" PRIu64 " ended %" PRIu64
           " start_spread_ms %.3f late_ms %.1f %.1f %.1f cpu_s %.1f first_start_ns %" PRIu64
           " last_start_ns %" PRIu64 " beats %" PRIu64 " run_s %.3f beat_after_ms %.1f\n",
           n, s->sent, s->errors, s->ended,
           s->last_start ? (double)(s->last_start - s->first_start) / 1e6 : -1.0,
           (double)rb_hist_percentile(&s->late, 50) / 1e6,
           (double)rb_hist_percentile(&s->late, 99) / 1e6, (double)s->late.max / 1e6, cpu_s,
           s->first_start, s->last_start, s->beats, (double)s->run_ns / 1e9,
           s->beat_at.count ? (double)rb_hist_percentile(&s->beat_at, 50) / 1e6 : -1.0);
    for (uint32_t i = 0; i < n; i++) {
        free(s->a[i].ready);
        free(s->a[i].done);
        sim_zmtp_close(&s->a[i].z);
    }
    if (s->have_plan)
        rb_msg_fini(&s->plan);

    free(s->a);
    free(s->sample.buf);
    free(s->sample.at);
    free(s->done.buf);
    free(s->done.at);
    return s->ended == n ? 0 : 1;
}
