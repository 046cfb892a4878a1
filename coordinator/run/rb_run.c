/* Drives one run from the coordinator's side, on one ROUTER socket and one
 * thread: gather → clock sync → PLAN → READY → (GO → SAMPLE… → DONE) per
 * phase → END, then the run folder. */
#include <czmq.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rb_fs.h"
#include "rb_aggregate.h"
#include "rb_auth.h"
#include "rb_fleet.h"
#include "rb_html.h"
#include "rb_log.h"
#include "rb_findings.h"
#include "rb_report.h"
#include "rb_result.h"
#include "rb_run.h"
#include "rb_signal.h"
#include "rb_time.h"
#include "rb_units.h"

#define S_DEFAULT_BIND   "tcp://*:7770"
#define S_GO_LEAD_NS     (250 * RB_NS_PER_MS) /* GO this far ahead, plus 2 RTT */
#define S_ROUND_INFLIGHT 64                   /* clock round before GO: nodes probed at once */
#define S_ROUND_NS       (2 * RB_NS_PER_S)    /* ... its time, plus 200 µs a node */
#define S_END_WAIT_NS    (30 * RB_NS_PER_S)
#define S_ABORT_WAIT_NS  (10 * RB_NS_PER_S) /* for the totals of a stopped phase */
#define S_POLL_MS        20
#define S_TICK_NS        (10 * RB_NS_PER_MS) /* the timers' loops over the fleet, at most this often */
#define S_FLUSH_NS       (50 * RB_NS_PER_MS) /* samples reach the file this soon (interval >= 100 ms) */
#define S_CSV_BUF        (1 << 20)           /* stdio buffer of samples.csv and telemetry.csv */
#define S_MAX_REJECTS    8
#define S_NAME_CHARS     "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

typedef struct s_child {
    pid_t pid; /* local agent process, 0 once reaped */
    char name[RB_NAME_MAX];
    int status;         /* waitpid status once reaped */
    uint64_t exited_ns; /* when it was reaped (0: running) */
    int judged;         /* its exit was weighed against its node's state */
} s_child_t;

typedef struct s_run {
    const rb_run_opts_t *o;
    const rb_plan_t *plan;
    zsock_t *router;
    zpoller_t *poller;
    char endpoint[256]; /* what agents connect to (local runs) */
    rb_fleet_t fleet;
    uint32_t expect; /* agents to wait for */
    char *want;      /* copy of --nodes, NUL-separated names */
    uint32_t nwant;
    char run_id[RB_NAME_MAX];
    char dir[PATH_MAX]; /* run folder */
    FILE *samples;      /* samples.csv, appended as samples arrive */
    FILE *telemetry;    /* telemetry.csv, likewise */
    s_child_t *children;
    uint32_t nchildren;
    uint64_t t_start; /* coordinator clock at start */
    uint64_t wall_start;
    uint64_t next_hb;
    uint64_t next_tick;  /* when s_pump next looks for silent agents */
    uint64_t next_flush; /* when s_pump next flushes the CSV files */
    int unflushed;       /* rows written since the last flush */
    int gathering;       /* still accepting HELLOs */
    uint32_t cur_phase;  /* phase running (valid in phases) */
    uint64_t t_go;       /* its GO time, coordinator clock */
    uint64_t live_bytes; /* bytes in samples since the last progress line */
    uint64_t live_ops;
    uint64_t next_live;
    uint64_t phase_bytes, phase_ops; /* in samples since GO */
    uint32_t phase_nodes;            /* nodes sent GO for the current phase */
    int tty;                         /* stderr is a terminal: one updating progress line */
    int failed;                      /* the run failed */
    char error[RB_REASON_MAX];       /* why (first cause) */
    char rejects[S_MAX_REJECTS][RB_REASON_MAX]; /* peers we turned away */
    uint32_t nrejects;
    rb_phase_agg_t *aggs; /* per phase that ran */
    uint32_t phases_run;
    /* wearout of the current phase, per job: STONEWALLs heard, the most ops */
    uint8_t *sw_got;    /* [node * njobs + job]: that node's STONEWALL came */
    uint32_t *sw_count; /* nodes heard, per job */
    uint64_t *sw_max;   /* most ops of any worker, per job */
    uint8_t *sw_sent;   /* WEAROUT sent, per job */
    int accept_failed;  /* a check of the plan's [acceptance] failed */
    uint32_t dropped;   /* agents' messages that did not fit the run: dropped */
    uint32_t probing;   /* nodes in the clock round with probes out */
    /* the current phase's cluster series: bytes and length of each sample interval */
    double *ser_bytes, *ser_secs;
    uint32_t nser, capser;
    rb_hist_t *lag;         /* the current phase: sample interval end to its aggregation, ns */
    rb_hist_t *job_hists;   /* the current phase: each job's latency from the DONEs so far */
    uint64_t nsamples;      /* samples aggregated in the current phase */
    rb_auth_server_t *auth; /* CURVE: the ZAP handler checking agents' keys */
    zcert_t *cert;          /* CURVE: the coordinator's keys, until applied */
    zcertstore_t *allowed;  /* CURVE: the agents' keys, until handed to auth */
    uint32_t nallowed;      /* how many */
    char keydir[PATH_MAX];  /* --local: folder of the local agents' keys, until they joined */
} s_run_t;

static volatile sig_atomic_t s_interrupted;

static void s_on_signal(int sig)
{
    (void)sig;
    s_interrupted = 1;
}

static void s_fail(s_run_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void s_fail(s_run_t *r, const char *fmt, ...)
{
    if (r->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
    r->failed = 1;
    rb_error("%s", r->error);
}

static void s_reject(s_run_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void s_reject(s_run_t *r, const char *fmt, ...)
{
    char msg[RB_REASON_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (uint32_t i = 0; i < r->nrejects; i++)
        if (strcmp(r->rejects[i], msg) == 0)
            return;
    rb_warn("%s", msg);
    if (r->nrejects < S_MAX_REJECTS)
        snprintf(r->rejects[r->nrejects++], RB_REASON_MAX, "%s", msg);
}

/* Sends m to the agent whose routing id is id (len bytes). 0 or -errno. */
/* Sends an encoded message to the peer with routing id id. */
static int s_send_raw(s_run_t *r, const void *id, size_t idlen, const void *buf, size_t len)
{
    zmsg_t *z = zmsg_new();
    zmsg_addmem(z, id, idlen);
    zmsg_addmem(z, buf, len);
    int rc = zmsg_send(&z, r->router);
    zmsg_destroy(&z);
    return rc < 0 ? -EHOSTUNREACH : 0;
}

static int s_send_to(s_run_t *r, const void *id, size_t idlen, const rb_msg_t *m)
{
    rb_err_t err;
    void *buf = NULL;
    size_t len = 0;
    rb_err_clear(&err);
    int rc = rb_msg_encode(m, &buf, &len, &err);
    if (rc < 0) {
        rb_error("cannot encode %s: %s", rb_msg_type_name(m->type), err.msg);
        return rc;
    }
    rc = s_send_raw(r, id, idlen, buf, len);
    free(buf);
    return rc;
}

static void s_send(s_run_t *r, rb_node_t *n, const rb_msg_t *m)
{
    int rc = s_send_to(r, n->hello.name, strlen(n->hello.name), m);
    if (rc == -EHOSTUNREACH && n->state != RB_AGENT_GONE)
        rb_node_out(n, RB_NODE_LOST, "cannot reach agent %s (disconnected)", n->hello.name);
    else if (rc < 0)
        s_fail(r, "cannot build the %s message for agent %s (%s)", rb_msg_type_name(m->type),
               n->hello.name, strerror(-rc));
}

static void s_send_ping(s_run_t *r, rb_node_t *n)
{
    rb_msg_t m = {.type = RB_MSG_PING};
    m.u.ping.seq = n->pings;
    m.u.ping.t_coord_ns = rb_mono_ns();
    s_send(r, n, &m);
}

/* An ABORT or ERROR of this run with a code and a reason. */
static rb_msg_t s_reason_msg(const s_run_t *r, rb_msg_type_t type, int code, const char *reason)
{
    rb_msg_t m = {.type = type};
    rb_msg_reason_t *b = type == RB_MSG_ABORT ? &m.u.abort : &m.u.error;
    snprintf(b->run_id, sizeof b->run_id, "%s", r->run_id);
    b->code = code;
    snprintf(b->reason, sizeof b->reason, "%s", reason);
    return m;
}

static void s_send_reason(s_run_t *r, rb_node_t *n, rb_msg_type_t type, int code,
                          const char *reason)
{
    rb_msg_t m = s_reason_msg(r, type, code, reason);
    s_send(r, n, &m);
}

/* 1 while a node still takes part: neither out of the run nor done with it. */
static int s_node_open(const rb_node_t *n)
{
    return n->state != RB_AGENT_GONE && n->state != RB_AGENT_ENDED;
}

static int s_wanted(const s_run_t *r, const char *name)
{
    if (!r->want)
        return 1;
    const char *p = r->want;
    for (uint32_t i = 0; i < r->nwant; i++, p += strlen(p) + 1)
        if (strcmp(p, name) == 0)
            return 1;
    return 0;
}

static void s_on_hello(s_run_t *r, const char *id, rb_msg_hello_t *h, uint64_t now)
{
    rb_node_t *n = rb_fleet_find(&r->fleet, h->name);
    if (n && h->pid != n->hello.pid && !r->gathering) {
        /* A new process under a known name: the agent restarted mid-run and
         * knows nothing of it. The node is out; the agent is told so. */
        if (n->state != RB_AGENT_GONE) {
            rb_warn("agent %s restarted mid-run (pid %u, now %u): it is lost to this run", h->name,
                    n->hello.pid, h->pid);
            rb_node_out(n, RB_NODE_LOST, "restarted mid-run (pid %u, now %u)", n->hello.pid,
                        h->pid);
        }
        rb_msg_t over = s_reason_msg(r, RB_MSG_ERROR, -ECANCELED, "");
        snprintf(over.u.error.reason, sizeof over.u.error.reason,
                 "run %s is over for agent %s: it restarted while the run went on", r->run_id,
                 h->name);
        s_send_to(r, id, strlen(id), &over);
        return;
    }
    if (n) {
        n->last_seen_ns = now;
        return; /* repeated HELLO: it has not heard us yet */
    }
    rb_msg_t no = {.type = RB_MSG_ERROR};
    no.u.error.code = -EPERM;
    if (strcmp(id, h->name) != 0) {
        snprintf(no.u.error.reason, sizeof no.u.error.reason,
                 "HELLO name '%s' differs from the routing id '%s'", h->name, id);
    } else if (strspn(h->name, S_NAME_CHARS) != strlen(h->name) ||
               strspn(h->rack, S_NAME_CHARS) != strlen(h->rack) || !h->rack[0]) {
        snprintf(no.u.error.reason, sizeof no.u.error.reason,
                 "node name '%s' or rack '%s' has characters outside [A-Za-z0-9._-]", h->name,
                 h->rack);
    } else if (!r->gathering) {
        snprintf(no.u.error.reason, sizeof no.u.error.reason, "run %s has started without agent %s",
                 r->run_id, h->name);
    } else if (!s_wanted(r, h->name)) {
        snprintf(no.u.error.reason, sizeof no.u.error.reason, "agent %s is not in --nodes",
                 h->name);
    } else if (r->fleet.n >= r->expect) {
        snprintf(no.u.error.reason, sizeof no.u.error.reason,
                 "agent %s is one more than the %u expected", h->name, r->expect);
    } else {
        n = rb_fleet_add(&r->fleet, h, now);
        if (!n) {
            s_fail(r, "out of memory registering agent %s", h->name);
            return;
        }
        rb_info("agent %s (rack %s, host %s, %u cores, %s) joined", h->name, h->rack, h->hostname,
                h->cores, h->agent_version);
        s_send_ping(r, n);
        return;
    }
    s_reject(r, "turned away peer %s: %s", id, no.u.error.reason);
    s_send_to(r, id, strlen(id), &no);
}

/* Adds a node's bytes of sample interval seq to the cluster series. */
static void s_series_add(s_run_t *r, uint32_t seq, double bytes, double secs)
{
    if (seq >= r->capser) {
        uint32_t cap = r->capser ? r->capser : 64;
        while (cap <= seq && cap < (1u << 24))
            cap *= 2;
        if (seq >= cap)
            return; /* beyond any run: not counted */
        double *b = realloc(r->ser_bytes, cap * sizeof *b);
        if (b)
            r->ser_bytes = b;
        double *t = b ? realloc(r->ser_secs, cap * sizeof *t) : NULL;
        if (!b || !t)
            return;
        r->ser_secs = t;
        memset(b + r->capser, 0, (cap - r->capser) * sizeof *b);
        memset(t + r->capser, 0, (cap - r->capser) * sizeof *t);
        r->capser = cap;
    }
    r->ser_bytes[seq] += bytes;
    if (secs > r->ser_secs[seq])
        r->ser_secs[seq] = secs;
    if (seq + 1 > r->nser)
        r->nser = seq + 1;
}

/* A message that does not fit where the run stands (another run, another
 * phase, a phase the node is not running): dropped, counted, logged, and the
 * agent is told why. */
static void s_out_of_sequence(s_run_t *r, rb_node_t *n, const char *what, const char *run_id,
                              uint32_t phase)
{
    char why[RB_REASON_MAX];
    r->dropped++;
    snprintf(why, sizeof why,
             "%s for run %s phase %u dropped: the coordinator runs %s phase %u, and agent %s is "
             "%s it",
             what, run_id, phase, r->run_id, r->cur_phase, n->hello.name,
             n->state == RB_AGENT_RUNNING ? "in" : "not in");
    rb_warn("%s", why);
    s_send_reason(r, n, RB_MSG_ERROR, -EPROTO, why);
}

static void s_on_sample(s_run_t *r, rb_node_t *n, const rb_msg_sample_t *s)
{
    if (strcmp(s->run_id, r->run_id) != 0 || s->phase != r->cur_phase ||
        s->phase >= r->plan->nphases || n->state != RB_AGENT_RUNNING) {
        s_out_of_sequence(r, n, "SAMPLE", s->run_id, s->phase);
        return;
    }
    const rb_phase_spec_t *ph = &r->plan->phases[s->phase];
    uint64_t end = (uint64_t)((int64_t)s->t_end_ns - n->offset_ns);
    double t_s = ((double)end - (double)r->t_go) / 1e9;
    double interval_s =
        s->t_end_ns > s->t_start_ns ? (double)(s->t_end_ns - s->t_start_ns) / 1e9 : 0;
    for (uint32_t j = 0; j < s->njobs; j++) {
        const rb_job_stat_t *js = &s->jobs[j];
        if (js->job >= ph->njobs)
            continue;
        if (r->samples)
            rb_samples_csv_row(r->samples, t_s, ph->name, n->hello.name, n->hello.rack,
                               ph->jobs[js->job].name, interval_s, js);
        r->live_bytes += js->bytes;
        r->live_ops += js->ops;
        r->phase_bytes += js->bytes;
        r->phase_ops += js->ops;
        n->live_bytes += js->bytes;
        n->live_seen = 1;
        s_series_add(r, s->seq, (double)js->bytes, interval_s);
    }
    uint64_t now = rb_mono_ns();
    r->nsamples++;
    if (r->lag)
        rb_hist_record(r->lag, now > end ? now - end : 0);
    if (r->telemetry && s->ntelem && s->telem)
        rb_telemetry_csv_rows(r->telemetry, t_s, ph->name, n->hello.name, s->telem);
    r->unflushed = 1; /* s_pump flushes them, at most every S_FLUSH_NS */
}

static void s_on_done(s_run_t *r, rb_node_t *n, rb_msg_t *m)
{
    rb_msg_done_t *d = &m->u.done;
    if (strcmp(d->run_id, r->run_id) != 0 || d->phase != r->cur_phase ||
        n->state != RB_AGENT_RUNNING) {
        s_out_of_sequence(r, n, "DONE", d->run_id, d->phase);
        return;
    }
    const rb_phase_spec_t *ph = &r->plan->phases[d->phase];
    /* The DONE must describe the phase we sent: one entry per worker and job. */
    for (uint32_t i = 0; i < d->nworkers; i++) {
        if (d->workers[i].job >= ph->njobs ||
            d->workers[i].worker >= ph->jobs[d->workers[i].job].numjobs) {
            rb_node_out(n, RB_NODE_FAILED, "DONE for phase %s names a worker the plan lacks",
                        ph->name);
            return;
        }
    }
    for (uint32_t i = 0; i < d->njobs; i++) {
        if (d->jobs[i].job >= ph->njobs) {
            rb_node_out(n, RB_NODE_FAILED, "DONE for phase %s names job %u, the plan has %u",
                        ph->name, d->jobs[i].job, ph->njobs);
            return;
        }
    }
    /* Its histograms join the phase's now: kept per node until the phase's
     * end they would cost 20 KiB a job and node (320 MiB at 16,000 nodes). */
    if (!r->job_hists && ph->njobs) {
        r->job_hists = malloc(ph->njobs * sizeof *r->job_hists);
        if (!r->job_hists) {
            s_fail(r, "out of memory merging the DONE of agent %s", n->hello.name);
            return;
        }
        for (uint32_t j = 0; j < ph->njobs; j++)
            rb_hist_init(&r->job_hists[j]);
    }
    for (uint32_t i = 0; i < d->njobs; i++) {
        if (d->jobs[i].hist)
            rb_hist_merge(&r->job_hists[d->jobs[i].job], d->jobs[i].hist);
        free(d->jobs[i].hist);
        d->jobs[i].hist = NULL;
    }
    if (d->status != 0) {
        rb_warn("agent %s: phase %s failed: %s", n->hello.name, ph->name, d->error);
        if (n->status == RB_NODE_OK) {
            n->status = RB_NODE_FAILED;
            snprintf(n->error, sizeof n->error, "phase %s: %s", ph->name, d->error);
        }
    }
    rb_msg_done_t *keep = malloc(sizeof *keep);
    if (!keep) {
        s_fail(r, "out of memory keeping the DONE of agent %s", n->hello.name);
        return;
    }
    *keep = *d; /* take over the arrays */
    memset(d, 0, sizeof *d);
    n->done[keep->phase] = keep;
    rb_node_set_state(n, RB_AGENT_PHASE_DONE);
}

/* STONEWALL: one node's workers of a wearout job all stopped at their stonewall. */
static void s_on_stonewall(s_run_t *r, rb_node_t *n, const rb_msg_wear_t *w)
{
    if (!r->sw_got || strcmp(w->run_id, r->run_id) != 0 || w->phase != r->cur_phase ||
        w->job >= r->plan->phases[w->phase].njobs || n->state != RB_AGENT_RUNNING)
        return;
    uint32_t nj = r->plan->phases[w->phase].njobs;
    uint8_t *got = &r->sw_got[(size_t)(n - r->fleet.nodes) * nj + w->job];
    if (*got)
        return;
    *got = 1;
    r->sw_count[w->job]++;
    if (w->ops > r->sw_max[w->job])
        r->sw_max[w->job] = w->ops;
}

/* Once every node still in the phase has stopped at its stonewall, tells
 * them all how many ops each worker goes on to: the busiest one's. */
static void s_check_wearout(s_run_t *r)
{
    if (!r->sw_got)
        return;
    const rb_phase_spec_t *ph = &r->plan->phases[r->cur_phase];
    uint32_t in_phase = rb_fleet_count(&r->fleet, RB_AGENT_RUNNING) +
                        rb_fleet_count(&r->fleet, RB_AGENT_PHASE_DONE);
    for (uint32_t j = 0; j < ph->njobs; j++) {
        if (r->sw_sent[j] || !ph->jobs[j].wearout || r->sw_count[j] < in_phase)
            continue;
        r->sw_sent[j] = 1;
        rb_msg_t m = {.type = RB_MSG_WEAROUT};
        snprintf(m.u.wearout.run_id, sizeof m.u.wearout.run_id, "%s", r->run_id);
        m.u.wearout.phase = r->cur_phase;
        m.u.wearout.job = j;
        m.u.wearout.ops = r->sw_max[j];
        rb_info("phase %s: job %s stonewalled on every node; wear-out to %llu ops per worker",
                ph->name, ph->jobs[j].name, (unsigned long long)r->sw_max[j]);
        for (uint32_t i = 0; i < r->fleet.n; i++)
            if (r->fleet.nodes[i].state == RB_AGENT_RUNNING)
                s_send(r, &r->fleet.nodes[i], &m);
    }
}

static void s_dispatch(s_run_t *r, const char *id, const void *data, size_t len, uint64_t now)
{
    rb_msg_t m;
    rb_err_t err;
    rb_err_clear(&err);
    int rc = rb_msg_decode(data, len, &m, &err);
    rb_node_t *n = rb_fleet_find(&r->fleet, id);
    if (rc < 0) {
        rb_msg_t e = {.type = RB_MSG_ERROR};
        e.u.error.code = rc;
        snprintf(e.u.error.reason, sizeof e.u.error.reason,
                 "coordinator cannot read your message: %s", err.msg);
        s_send_to(r, id, strlen(id), &e);
        if (n && n->state != RB_AGENT_GONE)
            rb_node_out(n, RB_NODE_FAILED, "bad message from agent: %s", err.msg);
        else
            s_reject(r, "peer %s: %s", id, err.msg);
        return;
    }
    if (m.type == RB_MSG_HELLO) {
        s_on_hello(r, id, &m.u.hello, now);
        rb_msg_fini(&m);
        return;
    }
    if (!n && r->gathering && m.type == RB_MSG_HEARTBEAT) {
        /* An agent still attached to an earlier coordinator: ask it to introduce itself. */
        rb_msg_t e = {.type = RB_MSG_ERROR};
        e.u.error.code = -ENOTCONN;
        snprintf(e.u.error.reason, sizeof e.u.error.reason, "unknown agent %s: say HELLO", id);
        s_send_to(r, id, strlen(id), &e);
    }
    if (!n || n->state == RB_AGENT_GONE) {
        rb_debug("ignoring %s from %s", rb_msg_type_name(m.type), id);
        rb_msg_fini(&m);
        return;
    }
    n->last_seen_ns = now;
    switch (m.type) {
    case RB_MSG_PONG:
        if (n->state == RB_AGENT_SYNCING && m.u.pong.t_coord_ns <= now) {
            rb_node_clock_sample(n, m.u.pong.t_coord_ns, m.u.pong.t_agent_ns, now);
            if (n->pings < RB_FLEET_PINGS)
                s_send_ping(r, n);
            else
                rb_node_set_state(n, RB_AGENT_SYNCED);
        } else if (n->probe_left && n->state == RB_AGENT_READY && m.u.pong.t_coord_ns <= now) {
            rb_node_clock_sample(n, m.u.pong.t_coord_ns, m.u.pong.t_agent_ns, now);
            if (--n->probe_left)
                s_send_ping(r, n);
            else
                r->probing--;
        }
        break;
    case RB_MSG_READY:
        if (n->state == RB_AGENT_PLANNED && strcmp(m.u.ready.run_id, r->run_id) == 0) {
            rb_node_set_state(n, RB_AGENT_READY);
            if (m.u.ready.prefill_bytes) {
                char b[32];
                rb_info("agent %s laid out %s for read phases", n->hello.name,
                        rb_fmt_size(b, sizeof b, (double)m.u.ready.prefill_bytes));
            }
        }
        break;
    case RB_MSG_REFUSED:
        rb_node_out(n, RB_NODE_REFUSED, "%s", m.u.refused.reason);
        s_fail(r, "agent %s refused the plan: %s", n->hello.name, m.u.refused.reason);
        break;
    case RB_MSG_SAMPLE:
        s_on_sample(r, n, &m.u.sample);
        break;
    case RB_MSG_DONE:
        s_on_done(r, n, &m);
        break;
    case RB_MSG_STONEWALL:
        s_on_stonewall(r, n, &m.u.stonewall);
        break;
    case RB_MSG_HEARTBEAT:
        break;
    case RB_MSG_END:
        n->removed_files = m.u.end.removed_files;
        if (m.u.end.status < 0 && n->status == RB_NODE_OK) {
            n->status = RB_NODE_FAILED;
            snprintf(n->error, sizeof n->error, "cleanup failed (%s)", strerror(-m.u.end.status));
        }
        rb_node_set_state(n, RB_AGENT_ENDED);
        break;
    case RB_MSG_ERROR:
        rb_warn("agent %s reports: %s", n->hello.name, m.u.error.reason);
        if (n->status == RB_NODE_OK) {
            n->status = RB_NODE_FAILED;
            snprintf(n->error, sizeof n->error, "%s", m.u.error.reason);
        }
        break;
    default:
        rb_warn("agent %s sent %s, which only a coordinator sends", n->hello.name,
                rb_msg_type_name(m.type));
        break;
    }
    rb_msg_fini(&m);
}

static int s_exit_code(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#define S_EXIT_GRACE_NS (1 * RB_NS_PER_S) /* for an END sent just before a clean exit */

static void s_reap_children(s_run_t *r)
{
    uint64_t now = rb_mono_ns();
    for (uint32_t i = 0; i < r->nchildren; i++) {
        s_child_t *c = &r->children[i];
        if (c->pid && waitpid(c->pid, &c->status, WNOHANG) == c->pid) {
            c->pid = 0;
            c->exited_ns = now;
        }
        if (c->pid || c->judged)
            continue;
        rb_node_t *n = rb_fleet_find(&r->fleet, c->name);
        int code = s_exit_code(c->status);
        if (n && n->state == RB_AGENT_ENDED) {
            c->judged = 1;
            continue;
        }
        /* An agent that exits cleanly right after its END: the message may
         * still be on its way through the socket. Wait a moment for it. */
        if (code == 0 && n && n->state != RB_AGENT_GONE && now - c->exited_ns < S_EXIT_GRACE_NS)
            continue;
        c->judged = 1;
        if (n && n->state != RB_AGENT_GONE)
            rb_node_out(n, RB_NODE_LOST, "local agent process exited with code %d", code);
        else if (!n && r->gathering)
            s_fail(r, "local agent %s exited with code %d before joining (see its message above)",
                   c->name, code);
    }
}

/* Waits up to timeout_ms for messages, handles them, then the timers. */
static void s_pump(s_run_t *r, int timeout_ms)
{
    zsock_t *which = zpoller_wait(r->poller, timeout_ms);
    uint64_t now;
    while (which || (zsock_events(r->router) & ZMQ_POLLIN)) {
        which = NULL;
        zmsg_t *z = zmsg_recv(r->router);
        if (!z)
            break;
        zframe_t *idf = zmsg_first(z);
        zframe_t *body = zmsg_next(z);
        if (idf && body && zmsg_size(z) == 2 && zframe_size(idf) < RB_NAME_MAX) {
            char id[RB_NAME_MAX];
            memcpy(id, zframe_data(idf), zframe_size(idf));
            id[zframe_size(idf)] = '\0';
            if (strlen(id) == zframe_size(idf))
                s_dispatch(r, id, zframe_data(body), zframe_size(body), rb_mono_ns());
        }
        zmsg_destroy(&z);
    }
    now = rb_mono_ns();
    if (r->unflushed && now >= r->next_flush) {
        /* On disk soon after they arrive (a killed run is still reported),
         * without a write per sample. */
        if (r->samples)
            fflush(r->samples);
        if (r->telemetry)
            fflush(r->telemetry);
        r->unflushed = 0;
        r->next_flush = now + S_FLUSH_NS;
    }
    if (now < r->next_tick)
        return; /* the loops over the fleet below, at most every S_TICK_NS */
    r->next_tick = now + S_TICK_NS;
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        rb_node_t *n = &r->fleet.nodes[i];
        if (s_node_open(n) && now - n->last_seen_ns > r->o->lost_after_ns)
            rb_node_out(n, RB_NODE_LOST, "silent for %.1f s",
                        (double)(now - n->last_seen_ns) / 1e9);
    }
    if (now >= r->next_hb) { /* one HEARTBEAT, encoded once, to every node */
        rb_msg_t hb = {.type = RB_MSG_HEARTBEAT};
        hb.u.heartbeat.t_ns = now;
        void *buf = NULL;
        size_t len = 0;
        rb_err_t err;
        rb_err_clear(&err);
        if (rb_msg_encode(&hb, &buf, &len, &err) < 0)
            s_fail(r, "cannot encode HEARTBEAT: %s", err.msg);
        for (uint32_t i = 0; buf && i < r->fleet.n; i++) {
            rb_node_t *n = &r->fleet.nodes[i];
            if (s_node_open(n) &&
                s_send_raw(r, n->hello.name, strlen(n->hello.name), buf, len) < 0 &&
                n->state != RB_AGENT_GONE)
                rb_node_out(n, RB_NODE_LOST, "cannot reach agent %s (disconnected)", n->hello.name);
        }
        free(buf);
        r->next_hb = now + r->o->heartbeat_ns;
    }
    s_reap_children(r);
}

static int s_write_file(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    fputs(text, f);
    return fclose(f) == 0 ? 0 : -errno;
}

static const char *s_endpoint(const rb_run_opts_t *o)
{
    return o->bind ? o->bind : o->local ? "tcp://127.0.0.1:*" : S_DEFAULT_BIND;
}

/* Removes the local agents' key folder, if any. */
static void s_drop_local_keys(s_run_t *r)
{
    if (!r->keydir[0])
        return;
    DIR *d = opendir(r->keydir);
    struct dirent *de;
    char path[PATH_MAX + 300];
    while (d && (de = readdir(d)))
        if (de->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", r->keydir, de->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    if (rmdir(r->keydir) < 0)
        rb_warn("cannot remove the local agents' key folder %s: %s", r->keydir, strerror(errno));
    r->keydir[0] = '\0';
}

/* --local: an ephemeral key pair for the coordinator and one per agent, in a
 * 0700 folder beside the run folders: the agents' secret keys and the
 * coordinator's public key, for the agents to read when they start. */
static int s_local_keys(s_run_t *r, zcert_t *server, zcertstore_t *store, rb_err_t *err)
{
    const char *out = r->o->out_dir ? r->o->out_dir : "runs";
    char path[PATH_MAX + 100];
    snprintf(r->keydir, sizeof r->keydir, "%s/.keys-%s-XXXXXX", out, r->run_id);
    if (!mkdtemp(r->keydir)) {
        r->keydir[0] = '\0';
        return rb_err_set(err, -errno, "cannot make a key folder in %s: %s", out, strerror(errno));
    }
    snprintf(path, sizeof path, "%s/coordinator.key", r->keydir);
    if (rb_auth_save(server, path, 0, err) < 0)
        return err->code;
    for (uint32_t i = 0; i < r->o->local; i++) {
        zcert_t *cert = zcert_new();
        if (!cert)
            return rb_err_set(err, -ENOMEM, "cannot make a key pair");
        snprintf(path, sizeof path, "%s/local-%u.key_secret", r->keydir, i + 1);
        zcert_set_meta(cert, "name", "local-%u", i + 1);
        int rc = rb_auth_save(cert, path, 1, err);
        if (rc == 0)
            zcertstore_insert(store, &cert);
        zcert_destroy(&cert);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* CURVE on the ROUTER socket before it binds: the coordinator's keys and
 * the ZAP handler with the allowed keys (for --local, made here). */
static int s_secure(s_run_t *r)
{
    rb_err_t err;
    rb_err_clear(&err);
    if (r->o->insecure)
        rb_warn("--insecure: no CURVE on %s; anyone who can reach it may join", s_endpoint(r->o));
    if (!r->cert)
        return 0;
    if (r->o->local)
        s_local_keys(r, r->cert, r->allowed, &err);
    if (!err.code)
        r->auth = rb_auth_server_new(r->router, r->cert, &r->allowed, &err);
    if (!r->auth) {
        s_fail(r, "%s", err.code ? err.msg : "out of memory");
        return -EACCES;
    }
    rb_info("CURVE on: %u allowed agent key%s", r->nallowed, r->nallowed == 1 ? "" : "s");
    return 0;
}

static int s_agent_bin(const rb_run_opts_t *o, char *out, size_t len)
{
    if (o->agent_bin) {
        snprintf(out, len, "%s", o->agent_bin);
        return 0;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0)
        return -errno;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    snprintf(out, len, "%s/rackbench-agent", self);
    return access(out, X_OK) == 0 ? 0 : -errno;
}

static int s_start_local(s_run_t *r)
{
    char bin[PATH_MAX], root[PATH_MAX];
    const rb_run_opts_t *o = r->o;
    int rc = s_agent_bin(o, bin, sizeof bin);
    if (rc < 0) {
        s_fail(r, "cannot find rackbench-agent beside rackbench (%s); use --agent-bin",
               strerror(-rc));
        return rc;
    }
    snprintf(root, sizeof root, "%s", r->plan->directory);
    if ((rc = rb_mkdirs(root)) < 0) {
        s_fail(r, "directory %s: %s", root, strerror(-rc));
        return rc;
    }
    r->children = calloc(o->local, sizeof *r->children);
    if (!r->children)
        return -ENOMEM;
    char hb[32], lost[32];
    snprintf(hb, sizeof hb, "%llums", (unsigned long long)(o->heartbeat_ns / RB_NS_PER_MS));
    snprintf(lost, sizeof lost, "%llums", (unsigned long long)(o->lost_after_ns / RB_NS_PER_MS));
    fflush(NULL);
    for (uint32_t i = 0; i < o->local; i++) {
        s_child_t *c = &r->children[i];
        snprintf(c->name, sizeof c->name, "local-%u", i + 1);
        const char *argv[] = {bin,
                              "--coordinator",
                              r->endpoint,
                              "--name",
                              c->name,
                              "--rack",
                              "local",
                              "--root",
                              root,
                              "--once",
                              "--heartbeat",
                              hb,
                              "--lost-after",
                              lost,
                              o->verbose ? "--verbose" : "--quiet",
                              NULL,
                              NULL,
                              NULL,
                              NULL,
                              NULL};
        char key[PATH_MAX], ckey[PATH_MAX];
        size_t na = sizeof argv / sizeof argv[0] - 5;
        if (o->insecure) {
            argv[na] = "--insecure";
        } else {
            snprintf(key, sizeof key, "%s/%s.key_secret", r->keydir, c->name);
            snprintf(ckey, sizeof ckey, "%s/coordinator.key", r->keydir);
            argv[na] = "--key";
            argv[na + 1] = key;
            argv[na + 2] = "--coordinator-key";
            argv[na + 3] = ckey;
        }
        pid_t pid = fork();
        if (pid < 0) {
            s_fail(r, "cannot start local agent %s: %s", c->name, strerror(errno));
            return -errno;
        }
        if (pid == 0) {
            /* The agent goes when we go, even if we are killed. */
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            /* Its own process group: a Ctrl-C reaches the coordinator only,
             * which stops the run in order and collects what was done. */
            setpgid(0, 0);
            execv(bin, (char *const *)argv);
            fprintf(stderr, "rackbench: cannot run %s: %s\n", bin, strerror(errno));
            _exit(127);
        }
        c->pid = pid;
        r->nchildren++;
    }
    return 0;
}

/* A local agent that ended the run but then exited with an error (a failed
 * clean-up, a sanitizer report) spoils the run as much as an IO error. */
static void s_check_child_exits(s_run_t *r)
{
    for (uint32_t i = 0; i < r->nchildren; i++) {
        s_child_t *c = &r->children[i];
        rb_node_t *n = rb_fleet_find(&r->fleet, c->name);
        int code = s_exit_code(c->status);
        if (c->pid || !n || n->status != RB_NODE_OK || code == 0)
            continue;
        n->status = RB_NODE_FAILED;
        snprintf(n->error, sizeof n->error, "local agent process exited with code %d", code);
        rb_warn("local agent %s exited with code %d", c->name, code);
    }
}

static void s_stop_children(s_run_t *r)
{
    /* Agents that confirmed the end exit by themselves; the others are told to. */
    for (uint32_t i = 0; i < r->nchildren; i++) {
        s_child_t *c = &r->children[i];
        rb_node_t *n = rb_fleet_find(&r->fleet, c->name);
        if (c->pid && (!n || n->state != RB_AGENT_ENDED))
            kill(c->pid, SIGTERM);
    }
    uint64_t deadline = rb_mono_ns() + 5 * RB_NS_PER_S;
    for (;;) {
        uint32_t alive = 0;
        for (uint32_t i = 0; i < r->nchildren; i++) {
            s_child_t *c = &r->children[i];
            if (c->pid && waitpid(c->pid, &c->status, WNOHANG) == c->pid)
                c->pid = 0;
            alive += c->pid != 0;
        }
        if (!alive)
            break;
        if (rb_mono_ns() > deadline) {
            for (uint32_t i = 0; i < r->nchildren; i++)
                if (r->children[i].pid) {
                    rb_warn("local agent %s still running; killing it", r->children[i].name);
                    kill(r->children[i].pid, SIGKILL);
                    waitpid(r->children[i].pid, &r->children[i].status, 0);
                    r->children[i].pid = 0;
                }
            break;
        }
        usleep(10000);
    }
    s_check_child_exits(r);
}

static int s_gather(s_run_t *r)
{
    uint64_t deadline = rb_mono_ns() + r->o->wait_ns;
    while (!r->failed && !s_interrupted) {
        if (r->fleet.n == r->expect && rb_fleet_count(&r->fleet, RB_AGENT_SYNCED) == r->expect)
            break;
        if (rb_mono_ns() > deadline) {
            char missing[RB_REASON_MAX] = "";
            if (r->want) {
                const char *p = r->want;
                for (uint32_t i = 0; i < r->nwant; i++, p += strlen(p) + 1)
                    if (!rb_fleet_find(&r->fleet, p)) {
                        size_t u = strlen(missing);
                        snprintf(missing + u, sizeof missing - u, " %s", p);
                    }
            }
            char refused[RB_REASON_MAX / 2] = "", keys[RB_REASON_MAX / 2];
            uint32_t nref = rb_auth_server_refused(r->auth, keys, sizeof keys);
            if (nref)
                snprintf(refused, sizeof refused, "; refused %u peer%s with unknown keys: %s", nref,
                         nref == 1 ? "" : "s", keys);
            s_fail(r, "%u of %u agents joined (%u with clocks synced) within %.0f s%s%s%s%s",
                   r->fleet.n, r->expect, rb_fleet_count(&r->fleet, RB_AGENT_SYNCED),
                   (double)r->o->wait_ns / 1e9, missing[0] ? "; missing:" : "", missing, refused,
                   r->nrejects ? "; see the turned-away peers above" : "");
            return -ETIMEDOUT;
        }
        if (rb_fleet_active(&r->fleet) < r->fleet.n) {
            s_fail(r, "an agent was lost while joining");
            return -EIO;
        }
        s_pump(r, S_POLL_MS);
    }
    if (s_interrupted)
        s_fail(r, "interrupted");
    s_drop_local_keys(r); /* the local agents read theirs when they started */
    r->gathering = 0;
    return r->failed ? -EIO : 0;
}

/* Nodes taking part first, in the order of --nodes (their rank field holds
 * their place in it while sorting), else by name: a run's ranks (and its
 * reports' node order) do not depend on which agent said HELLO first. */
static int s_by_place(const void *a, const void *b)
{
    const rb_node_t *x = a, *y = b;
    int xin = x->state == RB_AGENT_SYNCED, yin = y->state == RB_AGENT_SYNCED;
    if (xin != yin)
        return xin ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return strcmp(x->hello.name, y->hello.name);
}

/* Puts the nodes that take part first, in rank order (rank = index), and
 * lists the read_from shifts the plan uses, once. 0, or -E2BIG with the run
 * failed. Before any phase: nothing holds a node's address yet. */
static int s_rank_nodes(s_run_t *r, uint32_t *count, uint32_t *shifts, uint32_t *nshifts)
{
    *nshifts = 0;
    for (uint32_t p = 0; p < r->plan->nphases; p++) {
        for (uint32_t j = 0; j < r->plan->phases[p].njobs; j++) {
            uint32_t k = r->plan->phases[p].jobs[j].read_shift, seen = 0;
            for (uint32_t i = 0; i < *nshifts; i++)
                seen |= shifts[i] == k;
            if (!k || seen)
                continue;
            if (*nshifts == RB_MAX_PEERS) {
                s_fail(r, "the plan uses more than %d read_from shifts", RB_MAX_PEERS);
                return -E2BIG;
            }
            shifts[(*nshifts)++] = k;
        }
    }
    for (uint32_t i = 0; i < r->fleet.n; i++)
        r->fleet.nodes[i].rank = UINT32_MAX;
    const char *p = r->want;
    for (uint32_t i = 0; p && i < r->nwant; i++, p += strlen(p) + 1) {
        rb_node_t *n = rb_fleet_find(&r->fleet, p);
        if (n)
            n->rank = i;
    }
    qsort(r->fleet.nodes, r->fleet.n, sizeof *r->fleet.nodes, s_by_place);
    rb_fleet_reindex(&r->fleet);
    *count = 0;
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        r->fleet.nodes[i].rank = i;
        *count += r->fleet.nodes[i].state == RB_AGENT_SYNCED;
    }
    return 0;
}

static int s_send_plan(s_run_t *r)
{
    rb_msg_t m = {.type = RB_MSG_PLAN};
    rb_msg_plan_t *pl = &m.u.plan;
    rb_node_t *order = r->fleet.nodes;
    uint32_t count = 0, shifts[RB_MAX_PEERS], nshifts = 0;
    if (s_rank_nodes(r, &count, shifts, &nshifts) < 0)
        return -EIO;
    /* [rack NAME] sections place nodes in racks, over the agents' --rack */
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        const char *rack = rb_plan_rack_of(r->plan, r->fleet.nodes[i].hello.name);
        if (rack)
            snprintf(r->fleet.nodes[i].hello.rack, sizeof r->fleet.nodes[i].hello.rack, "%s", rack);
    }
    for (uint32_t k = 0; k < r->plan->nracks; k++)
        for (uint32_t i = 0; i < r->plan->racks[k].nnodes; i++)
            if (!rb_fleet_find(&r->fleet, r->plan->racks[k].nodes[i]))
                rb_warn("[rack %s] lists node %s, which is not in this run", r->plan->racks[k].name,
                        r->plan->racks[k].nodes[i]);
    snprintf(pl->run_id, sizeof pl->run_id, "%s", r->run_id);
    pl->interval_ns = r->plan->interval_ns;
    pl->nphases = r->plan->nphases;
    pl->phases = r->plan->phases;
    pl->nnodes = count ? count : 1;
    if (count)
        snprintf(pl->lead, sizeof pl->lead, "%s", order[0].hello.name);
    for (uint32_t i = 0; i < count; i++) {
        rb_node_t *n = &order[i];
        pl->node_rank = i;
        pl->npeers = nshifts;
        for (uint32_t k = 0; k < nshifts; k++) {
            pl->peers[k].shift = shifts[k];
            snprintf(pl->peers[k].name, sizeof pl->peers[k].name, "%s",
                     order[(uint32_t)((i + (uint64_t)shifts[k]) % count)].hello.name);
        }
        rb_node_set_state(n, RB_AGENT_PLANNED);
        s_send(r, n, &m);
    }
    while (!r->failed && !s_interrupted) {
        if (rb_fleet_count(&r->fleet, RB_AGENT_PLANNED) == 0)
            break;
        s_pump(r, S_POLL_MS);
    }
    if (s_interrupted)
        s_fail(r, "interrupted");
    if (!r->failed && rb_fleet_count(&r->fleet, RB_AGENT_READY) != r->fleet.n)
        s_fail(r, "%u of %u agents became ready", rb_fleet_count(&r->fleet, RB_AGENT_READY),
               r->fleet.n);
    return r->failed ? -EIO : 0;
}

/* How far the phase is, 0..1, or -1 when it cannot be told: by time for a
 * time-bound phase (runtime, stonewall_time), by bytes (or metadata
 * operations) for a size-bound one, the further of the two when both bound it. */
static double s_progress(const s_run_t *r, const rb_phase_spec_t *ph, double elapsed_s)
{
    double limit_s = 0, total = 0, done = 0;
    int size_bound = 1;
    for (uint32_t j = 0; j < ph->njobs; j++) {
        const rb_job_spec_t *js = &ph->jobs[j];
        double t = (double)(js->ramp_ns + js->runtime_ns) / 1e9;
        if (js->stonewall_ns && (!js->runtime_ns || js->stonewall_ns < js->runtime_ns))
            t = (double)(js->ramp_ns + js->stonewall_ns) / 1e9;
        if (js->runtime_ns || js->stonewall_ns)
            limit_s = t > limit_s ? t : limit_s;
        if (js->time_based)
            size_bound = 0;
        else if (js->rw == RB_RW_META)
            total += (double)js->numjobs * (double)js->meta_files * r->phase_nodes;
        else
            total += (double)js->numjobs * (double)js->size * (js->loops ? js->loops : 1) *
                     r->phase_nodes;
    }
    done = rb_phase_is_meta(ph) ? (double)r->phase_ops : (double)r->phase_bytes;
    double f = -1;
    if (size_bound && total > 0)
        f = done / total;
    if (limit_s > 0 && elapsed_s / limit_s > f)
        f = elapsed_s / limit_s;
    return f > 1 ? 1 : f;
}

/* One line per interval on stderr: elapsed, phase, this interval's
 * bandwidth and IOPS, nodes reporting of those in the phase, the slowest
 * node; on a terminal, a bar with the ETA, redrawn in place. */
static void s_live_line(s_run_t *r, const rb_phase_spec_t *ph, uint64_t now, double span_s)
{
    char b[64], slow[RB_NAME_MAX + 48] = "";
    uint32_t seen = 0;
    const rb_node_t *slowest = NULL;
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        rb_node_t *n = &r->fleet.nodes[i];
        if (n->live_seen) {
            seen++;
            if (!slowest || n->live_bytes < slowest->live_bytes)
                slowest = n;
        }
    }
    if (slowest && seen > 1 && span_s > 0)
        snprintf(slow, sizeof slow, "  slowest %s %s", slowest->hello.name,
                 rb_fmt_bw(b, sizeof b, (double)slowest->live_bytes / span_s));
    double elapsed = (double)(now - r->t_go) / 1e9, f = s_progress(r, ph, elapsed);
    char bar[64] = "";
    if (f >= 0) {
        int w = 20, k = (int)(f * w + 0.5);
        char eta[32] = "?";
        if (f > 0.01)
            snprintf(eta, sizeof eta, "%.0fs", elapsed * (1 - f) / f);
        if (r->tty)
            snprintf(bar, sizeof bar, " [%.*s%.*s] %3.0f%% ETA %s", k, "####################",
                     w - k, "....................", f * 100, eta);
        else
            snprintf(bar, sizeof bar, "  %3.0f%% ETA %s", f * 100, eta);
    }
    fprintf(stderr, "%srackbench: %7.1fs  %-16s %s  %8.0f IOPS  nodes %u/%u%s%s%s",
            r->tty ? "\r\033[K" : "", elapsed, ph->name,
            rb_fmt_bw(b, sizeof b, span_s > 0 ? (double)r->live_bytes / span_s : 0),
            span_s > 0 ? (double)r->live_ops / span_s : 0, seen, r->phase_nodes, slow, bar,
            r->tty ? "" : "\n");
    r->live_bytes = 0;
    r->live_ops = 0;
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        r->fleet.nodes[i].live_bytes = 0;
        r->fleet.nodes[i].live_seen = 0;
    }
}

static void s_write_progress(s_run_t *r);

/* What the phase shows beyond its figures: stragglers, with when each began
 * to lag (from the per-node series in samples.csv). */
static void s_findings(s_run_t *r, uint32_t p)
{
    rb_phase_agg_t *a = &r->aggs[p];
    double **series = NULL, interval = (double)r->plan->interval_ns / 1e9;
    uint32_t nint = 0;
    if (r->samples)
        fflush(r->samples);
    double point_s = interval;
    if (rb_samples_node_series(r->dir, a->name, interval, a->nodes, a->nnodes, &series, &nint,
                               &point_s) < 0)
        series = NULL;
    if (rb_find_stragglers(a, (const double *const *)series, nint, point_s) < 0)
        s_fail(r, "out of memory");
    rb_samples_series_free(series, a->nnodes);
    const char **hosts = calloc(a->nnodes ? a->nnodes : 1, sizeof *hosts);
    for (uint32_t i = 0; hosts && i < a->nnodes && i < r->fleet.n; i++)
        hosts[i] = r->fleet.nodes[i].hello.hostname;
    if (r->telemetry)
        fflush(r->telemetry);
    if (!hosts || rb_find_from_telemetry(a, &r->plan->phases[p], r->dir, interval, hosts) < 0)
        s_fail(r, "out of memory");
    free(hosts);
    for (uint32_t i = 0; i < a->nfindings; i++)
        rb_warn("phase %s: %s %s: %s", a->name, rb_finding_kind_name(a->findings[i].kind),
                a->findings[i].node, a->findings[i].evidence);
}

/* Frees the wearout bookkeeping; makes it anew for a phase with wearout jobs. */
static void s_wearout_reset(s_run_t *r, const rb_phase_spec_t *ph)
{
    free(r->sw_got);
    free(r->sw_count);
    free(r->sw_max);
    free(r->sw_sent);
    r->sw_got = NULL;
    r->sw_count = NULL;
    r->sw_max = NULL;
    r->sw_sent = NULL;
    int any = 0;
    for (uint32_t j = 0; ph && j < ph->njobs; j++)
        any |= ph->jobs[j].wearout;
    if (!any)
        return;
    r->sw_got = calloc((size_t)(r->fleet.n ? r->fleet.n : 1) * ph->njobs, 1);
    r->sw_count = calloc(ph->njobs, sizeof *r->sw_count);
    r->sw_max = calloc(ph->njobs, sizeof *r->sw_max);
    r->sw_sent = calloc(ph->njobs, 1);
    if (!r->sw_got || !r->sw_count || !r->sw_max || !r->sw_sent) {
        s_fail(r, "out of memory");
        s_wearout_reset(r, NULL);
    }
}

/* A clock round before a phase's GO: every ready node's offset is measured
 * afresh (RB_FLEET_PINGS probes, the one with the smallest round trip kept),
 * at most S_ROUND_INFLIGHT nodes at a time so that the probes do not queue
 * behind each other. The offsets of the HELLO time were taken while the
 * whole fleet was saying HELLO (at 16,000 agents, round trips of tens of ms)
 * and may be hours old by a later phase: clocks drift. A node that answers
 * no probe within the round keeps its offset. */
static void s_clock_round(s_run_t *r)
{
    uint32_t nn = r->fleet.n, next = 0, ready = rb_fleet_count(&r->fleet, RB_AGENT_READY);
    if (!ready)
        return;
    int64_t *old_off = malloc(nn * sizeof *old_off);
    uint64_t *old_rtt = malloc(nn * sizeof *old_rtt);
    if (!old_off || !old_rtt) {
        free(old_off);
        free(old_rtt);
        return; /* the offsets of before */
    }
    uint64_t t0 = rb_mono_ns(), deadline = t0 + S_ROUND_NS + (uint64_t)ready * 200000;
    uint64_t recount = t0;
    r->probing = 0;
    while (!r->failed && !s_interrupted && rb_mono_ns() < deadline) {
        if (rb_mono_ns() >= recount) { /* a node lost in the round answers no more */
            r->probing = 0;
            for (uint32_t i = 0; i < next; i++) {
                rb_node_t *n = &r->fleet.nodes[i];
                if (n->probe_left && n->state != RB_AGENT_READY)
                    n->probe_left = 0;
                r->probing += n->probe_left > 0;
            }
            recount = rb_mono_ns() + 100 * RB_NS_PER_MS;
        }
        while (next < nn && r->probing < S_ROUND_INFLIGHT) {
            rb_node_t *n = &r->fleet.nodes[next];
            old_off[next] = n->offset_ns;
            old_rtt[next] = n->best_rtt_ns;
            next++;
            if (n->state != RB_AGENT_READY)
                continue;
            n->best_rtt_ns = UINT64_MAX;
            n->probe_left = RB_FLEET_PINGS;
            r->probing++;
            s_send_ping(r, n);
        }
        if (next == nn && r->probing == 0)
            break;
        s_pump(r, 1);
    }
    uint32_t kept = 0;
    uint64_t max_rtt = 0;
    for (uint32_t i = 0; i < next; i++) {
        rb_node_t *n = &r->fleet.nodes[i];
        n->probe_left = 0;
        if (n->best_rtt_ns == UINT64_MAX) { /* no answer: as it was */
            n->offset_ns = old_off[i];
            n->best_rtt_ns = old_rtt[i];
            kept += n->state == RB_AGENT_READY;
        } else if (n->best_rtt_ns > max_rtt) {
            max_rtt = n->best_rtt_ns;
        }
    }
    r->probing = 0;
    free(old_off);
    free(old_rtt);
    rb_debug("clock round: %u nodes in %.1f ms, largest round trip %.3f ms%s", ready,
             (double)(rb_mono_ns() - t0) / 1e6, (double)max_rtt / 1e6,
             kept ? " (some nodes kept their offsets: no answer)" : "");
    if (kept)
        rb_warn("clock round: %u of %u nodes did not answer in time and keep their earlier offsets",
                kept, ready);
}

static void s_run_phase(s_run_t *r, uint32_t p)
{
    const rb_phase_spec_t *ph = &r->plan->phases[p];
    s_clock_round(r);
    uint64_t max_rtt = 0;
    for (uint32_t i = 0; i < r->fleet.n; i++)
        if (r->fleet.nodes[i].state == RB_AGENT_READY && r->fleet.nodes[i].best_rtt_ns > max_rtt)
            max_rtt = r->fleet.nodes[i].best_rtt_ns;
    r->cur_phase = p;
    s_wearout_reset(r, ph);
    r->nser = 0;
    r->nsamples = 0;
    if (r->lag || (r->lag = malloc(sizeof *r->lag)))
        rb_hist_init(r->lag);
    if (r->capser) {
        memset(r->ser_bytes, 0, r->capser * sizeof *r->ser_bytes);
        memset(r->ser_secs, 0, r->capser * sizeof *r->ser_secs);
    }
    r->t_go = rb_mono_ns() + S_GO_LEAD_NS + 2 * max_rtt;
    rb_info("phase %u/%u %s: GO for %u agents", p + 1, r->plan->nphases, ph->name,
            rb_fleet_count(&r->fleet, RB_AGENT_READY));
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        rb_node_t *n = &r->fleet.nodes[i];
        if (n->state != RB_AGENT_READY)
            continue;
        rb_msg_t go = {.type = RB_MSG_GO};
        snprintf(go.u.go.run_id, sizeof go.u.go.run_id, "%s", r->run_id);
        go.u.go.phase = p;
        go.u.go.t_go_ns = r->t_go;
        go.u.go.offset_ns = n->offset_ns;
        rb_node_set_state(n, RB_AGENT_RUNNING);
        s_send(r, n, &go);
    }
    r->live_bytes = r->live_ops = 0;
    r->phase_bytes = r->phase_ops = 0;
    r->phase_nodes = rb_fleet_count(&r->fleet, RB_AGENT_RUNNING);
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        r->fleet.nodes[i].live_bytes = 0;
        r->fleet.nodes[i].live_seen = 0;
    }
    /* Agents sample at GO + k intervals; print a quarter interval later so
     * that interval's samples have arrived. */
    r->next_live = r->t_go + r->plan->interval_ns + r->plan->interval_ns / 4;
    uint64_t last_live = r->t_go + r->plan->interval_ns / 4;
    uint64_t abort_deadline = 0;
    int drawn = 0;
    while (rb_fleet_count(&r->fleet, RB_AGENT_RUNNING) > 0) {
        if (s_interrupted && !abort_deadline) {
            /* Stop the phase everywhere and keep what was done until now. */
            s_fail(r, "interrupted during phase %s", ph->name);
            for (uint32_t i = 0; i < r->fleet.n; i++)
                if (r->fleet.nodes[i].state == RB_AGENT_RUNNING)
                    s_send_reason(r, &r->fleet.nodes[i], RB_MSG_ABORT, -ECANCELED, r->error);
            abort_deadline = rb_mono_ns() + S_ABORT_WAIT_NS;
        }
        if (abort_deadline && rb_mono_ns() > abort_deadline)
            break;
        s_pump(r, S_POLL_MS);
        s_check_wearout(r);
        uint64_t now = rb_mono_ns();
        if (now >= r->next_live) {
            if (!r->o->quiet) {
                s_live_line(r, ph, now, (double)(now - last_live) / 1e9);
                drawn = 1;
            }
            last_live = now;
            while (r->next_live <= now)
                r->next_live += r->plan->interval_ns;
        }
    }
    if (drawn && r->tty)
        fputc('\n', stderr); /* keep the last progress line */
    if (r->lag && r->lag->count)
        rb_debug("phase %s: %llu samples aggregated, %.1f ms after their interval's end (median; "
                 "p99 %.1f ms, max %.1f ms)",
                 ph->name, (unsigned long long)r->nsamples,
                 (double)rb_hist_percentile(r->lag, 50) / 1e6,
                 (double)rb_hist_percentile(r->lag, 99) / 1e6, (double)r->lag->max / 1e6);
    rb_agg_input_t *in = calloc(r->fleet.n ? r->fleet.n : 1, sizeof *in);
    if (!in) {
        s_fail(r, "out of memory");
        return;
    }
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        rb_node_t *n = &r->fleet.nodes[i];
        in[i] = (rb_agg_input_t){.name = n->hello.name,
                                 .rack = n->hello.rack,
                                 .offset_ns = n->offset_ns,
                                 .status = n->state == RB_AGENT_GONE ? n->status : RB_NODE_OK,
                                 .done = n->done[p],
                                 .ram_bytes = n->hello.ram_bytes,
                                 .rtt_ns = n->best_rtt_ns == UINT64_MAX ? 0 : n->best_rtt_ns};
        if (n->state == RB_AGENT_PHASE_DONE)
            rb_node_set_state(n, RB_AGENT_READY);
    }
    if (rb_aggregate_phase(ph, in, r->fleet.n, &r->aggs[p]) < 0)
        s_fail(r, "out of memory");
    else if (r->job_hists)
        rb_aggregate_add_hists(&r->aggs[p], r->job_hists, ph->njobs);
    free(r->job_hists);
    r->job_hists = NULL;
    for (uint32_t i = 0; i < r->fleet.n; i++) /* figures made: the DONEs have served */
        rb_fleet_drop_done(&r->fleet.nodes[i], p);
    if (abort_deadline)
        r->aggs[p].partial = 1; /* stopped before its end */
    uint64_t ramp = 0;
    for (uint32_t j = 0; j < ph->njobs; j++)
        if (ph->jobs[j].ramp_ns > ramp)
            ramp = ph->jobs[j].ramp_ns;
    rb_aggregate_steady(&r->aggs[p], r->ser_bytes, r->ser_secs, r->nser,
                        (double)r->plan->interval_ns / 1e9, (double)ramp / 1e9);
    s_findings(r, p);
    r->phases_run = p + 1;
    free(in);
    if (p + 1 < r->plan->nphases)
        s_write_progress(r);
    char b[64];
    rb_info("phase %s: %s aggregate", ph->name, rb_fmt_bw(b, sizeof b, r->aggs[p].aggregate_bw));
}

/* Tells every agent still with us to end (or abort) and waits for them to clean up. */
static void s_finish_agents(s_run_t *r)
{
    rb_msg_t m = {.type = RB_MSG_END};
    snprintf(m.u.end.run_id, sizeof m.u.end.run_id, "%s", r->run_id);
    if (r->failed)
        m = s_reason_msg(r, RB_MSG_ABORT, -ECANCELED, r->error);
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        rb_node_t *n = &r->fleet.nodes[i];
        /* No verdict on a failed send: an agent may have ended and gone
         * already; one that never confirms is marked lost below. */
        if (s_node_open(n))
            s_send_to(r, n->hello.name, strlen(n->hello.name), &m);
    }
    uint64_t deadline = rb_mono_ns() + S_END_WAIT_NS;
    while (rb_mono_ns() < deadline) {
        uint32_t waiting = 0;
        for (uint32_t i = 0; i < r->fleet.n; i++)
            waiting += s_node_open(&r->fleet.nodes[i]);
        if (!waiting)
            break;
        s_pump(r, S_POLL_MS);
    }
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        rb_node_t *n = &r->fleet.nodes[i];
        if (s_node_open(n))
            rb_node_out(n, RB_NODE_LOST, "did not confirm the end of the run");
    }
}

/* The run so far as the reports take it; nodes has r->fleet.n entries. */
static rb_run_result_t s_result(s_run_t *r, rb_report_node_t *nodes, int *failed_nodes)
{
    *failed_nodes = 0;
    for (uint32_t i = 0; i < r->fleet.n; i++) {
        const rb_node_t *n = &r->fleet.nodes[i];
        rb_report_node_t *o = &nodes[i];
        snprintf(o->name, sizeof o->name, "%s", n->hello.name);
        snprintf(o->rack, sizeof o->rack, "%s", n->hello.rack);
        snprintf(o->hostname, sizeof o->hostname, "%s", n->hello.hostname);
        snprintf(o->version, sizeof o->version, "%s", n->hello.agent_version);
        o->status = n->status;
        snprintf(o->error, sizeof o->error, "%s", n->error);
        o->cores = n->hello.cores;
        o->ram_bytes = n->hello.ram_bytes;
        o->clock_offset_ns = n->offset_ns;
        o->clock_rtt_ns = n->best_rtt_ns == UINT64_MAX ? 0 : n->best_rtt_ns;
        o->removed_files = n->removed_files;
        o->lost_at_s = n->status == RB_NODE_LOST && n->out_ns > r->t_start
                           ? (double)(n->out_ns - r->t_start) / 1e9
                           : -1;
        *failed_nodes += n->status != RB_NODE_OK;
    }
    rb_run_result_t res = {.plan_source = r->plan->source,
                           .started_wall_ns = r->wall_start,
                           .duration_s = (double)(rb_mono_ns() - r->t_start) / 1e9,
                           .status = r->failed,
                           .nnodes = r->fleet.n,
                           .nodes = nodes,
                           .nphases = r->phases_run,
                           .specs = r->plan->phases,
                           .phases = r->aggs};
    snprintf(res.run_id, sizeof res.run_id, "%s", r->run_id);
    snprintf(res.error, sizeof res.error, "%s", r->error);
    res.dropped_messages = r->dropped;
    return res;
}

/* summary.json, replaced whole (written aside, then renamed): a reader, or
 * a coordinator killed meanwhile, never leaves half of one. */
static int s_write_summary(const s_run_t *r, const rb_run_result_t *res)
{
    char path[PATH_MAX], tmp[PATH_MAX + 8];
    FILE *f;
    snprintf(path, sizeof path, "%s/summary.json", r->dir);
    snprintf(tmp, sizeof tmp, "%s.new", path);
    if (!(f = fopen(tmp, "w")) || rb_report_json(res, f) < 0 || fflush(f) != 0 ||
        fsync(fileno(f)) < 0 || fclose(f) != 0 || rename(tmp, path) < 0) {
        rb_error("cannot write %s: %s", path, strerror(errno));
        return -EIO;
    }
    return 0;
}

/* After each phase: summary.json of the phases so far, marked running, so
 * that `rackbench report` can render a run that was cut off. */
static void s_write_progress(s_run_t *r)
{
    int failed_nodes;
    rb_report_node_t *nodes = calloc(r->fleet.n ? r->fleet.n : 1, sizeof *nodes);
    if (!nodes)
        return;
    rb_run_result_t res = s_result(r, nodes, &failed_nodes);
    res.running = 1;
    s_write_summary(r, &res);
    free(nodes);
}

static int s_write_reports(s_run_t *r)
{
    int failed_nodes;
    rb_report_node_t *nodes = calloc(r->fleet.n ? r->fleet.n : 1, sizeof *nodes);
    if (!nodes)
        return -ENOMEM;
    rb_run_result_t res = s_result(r, nodes, &failed_nodes);
    rb_accept_result_t acc;
    if (rb_accept_eval(r->plan->accept, r->plan->phases, r->plan->nphases, r->aggs, r->phases_run,
                       &acc) < 0) {
        s_fail(r, "out of memory judging the acceptance checks");
        res.status = r->failed;
    }
    if (!r->failed && failed_nodes) {
        /* Lost nodes fail the run, unless the plan says how many it needs
         * (min_nodes) and every phase still had them. */
        uint32_t lost = 0, min_rows = 0, min_failed = 0;
        for (uint32_t i = 0; i < r->fleet.n; i++)
            lost += r->fleet.nodes[i].status == RB_NODE_LOST;
        for (uint32_t i = 0; r->plan->accept && i < acc.nrows; i++) {
            min_rows += acc.rows[i].check == RB_ACCEPT_MIN_NODES;
            min_failed +=
                acc.rows[i].check == RB_ACCEPT_MIN_NODES && acc.rows[i].verdict == RB_ACCEPT_FAIL;
        }
        if (lost == (uint32_t)failed_nodes && min_rows && !min_failed) {
            rb_warn("%u of %u nodes were lost; every phase still had the nodes min_nodes asks for",
                    lost, r->fleet.n);
        } else {
            s_fail(r, "%d of %u nodes did not complete the run cleanly", failed_nodes, r->fleet.n);
            res.status = r->failed;
            snprintf(res.error, sizeof res.error, "%s", r->error);
        }
    }
    res.accept = r->plan->accept ? &acc : NULL;
    r->accept_failed = acc.nfailed > 0;
    rb_project_result_t proj;
    if (rb_project_eval(r->plan->project, r->plan->phases, r->plan->nphases, r->aggs, r->phases_run,
                        &proj) < 0) {
        s_fail(r, "out of memory working out the projection");
        res.status = r->failed;
    }
    res.projection = r->plan->project ? &proj : NULL;
    int rc = s_write_summary(r, &res);
    char path[PATH_MAX];
    FILE *f;
    snprintf(path, sizeof path, "%s/report.txt", r->dir);
    if (!(f = fopen(path, "w")) || rb_report_text(&res, f) < 0 || fclose(f) != 0) {
        rc = -EIO;
        rb_error("cannot write %s: %s", path, strerror(errno));
    }
    snprintf(path, sizeof path, "%s/report.html", r->dir);
    if (!(f = fopen(path, "w")) || rb_report_html(&res, r->dir, f) < 0 || fclose(f) != 0) {
        rc = -EIO;
        rb_error("cannot write %s: %s", path, strerror(errno));
    }
    rb_report_text(&res, stdout);
    printf("\nrun folder: %s\n", r->dir);
    fflush(stdout);
    rb_accept_result_fini(&acc);
    rb_project_result_fini(&proj);
    free(nodes);
    return rc;
}

static int s_make_run_dir(s_run_t *r)
{
    char stamp[32];
    time_t t = (time_t)(r->wall_start / RB_NS_PER_S);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(r->run_id, sizeof r->run_id, "%s-%04x", stamp,
             (unsigned)((r->wall_start / 1000 ^ (uint64_t)getpid() * 2654435761u) & 0xffff));
    const char *out = r->o->out_dir ? r->o->out_dir : "runs";
    int rc = rb_mkdirs(out);
    if (rc < 0) {
        s_fail(r, "--out %s: %s", out, strerror(-rc));
        return rc;
    }
    snprintf(r->dir, sizeof r->dir, "%s/%s", out, r->run_id);
    if (mkdir(r->dir, 0755) < 0) {
        s_fail(r, "run folder %s: %s", r->dir, strerror(errno));
        return -errno;
    }
    if ((rc = s_write_file(r->dir, "plan.ini", r->plan->text)) < 0) {
        s_fail(r, "%s/plan.ini: %s", r->dir, strerror(-rc));
        return rc;
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/samples.csv", r->dir);
    if (!(r->samples = fopen(path, "w"))) {
        s_fail(r, "%s: %s", path, strerror(errno));
        return -errno;
    }
    setvbuf(r->samples, NULL, _IOFBF, S_CSV_BUF);
    rb_samples_csv_header(r->samples);
    snprintf(path, sizeof path, "%s/telemetry.csv", r->dir);
    if (!(r->telemetry = fopen(path, "w"))) {
        s_fail(r, "%s: %s", path, strerror(errno));
        return -errno;
    }
    setvbuf(r->telemetry, NULL, _IOFBF, S_CSV_BUF);
    rb_telemetry_csv_header(r->telemetry);
    return 0;
}

static int s_bind(s_run_t *r)
{
    const char *ep = s_endpoint(r->o);
    r->router = zsock_new(ZMQ_ROUTER);
    if (!r->router) {
        s_fail(r, "cannot create a ZeroMQ socket");
        return -ENOMEM;
    }
    if (s_secure(r) < 0)
        return -EACCES;
    zsock_set_router_mandatory(r->router, 1);
    zsock_set_linger(r->router, 1000);
    zsock_set_sndhwm(r->router, 100000);
    zsock_set_rcvhwm(r->router, 100000);
    zsock_set_maxmsgsize(r->router, RB_PROTO_MAX_FRAME);
    int port = zsock_bind(r->router, "%s", ep);
    if (port < 0) {
        s_fail(r, "--bind %s: %s", ep, zmq_strerror(zmq_errno()));
        return -EADDRINUSE;
    }
    if (port > 0 && strstr(ep, "tcp://") == ep) {
        /* Wildcard port: agents connect to what the system chose. */
        char host[200];
        const char *h = ep + 6;
        size_t hl = strcspn(h, ":");
        snprintf(host, sizeof host, "%.*s", (int)hl, h);
        if (strcmp(host, "*") == 0 || strcmp(host, "0.0.0.0") == 0)
            snprintf(host, sizeof host, "127.0.0.1");
        snprintf(r->endpoint, sizeof r->endpoint, "tcp://%s:%d", host, port);
    } else {
        snprintf(r->endpoint, sizeof r->endpoint, "%s", ep);
    }
    r->poller = zpoller_new(r->router, NULL);
    rb_info("run %s: coordinator on %s, waiting for %u agents", r->run_id, r->endpoint, r->expect);
    if (r->o->on_bound)
        r->o->on_bound(r->endpoint, r->o->on_bound_arg);
    return 0;
}

static int s_parse_nodes(s_run_t *r, const char *csv)
{
    r->want = strdup(csv);
    if (!r->want)
        return -ENOMEM;
    size_t len = strlen(r->want);
    r->nwant = 0;
    const char *start = r->want;
    for (size_t i = 0; i <= len; i++) {
        if (r->want[i] != ',' && r->want[i] != '\0')
            continue;
        r->want[i] = '\0';
        size_t nl = strlen(start);
        if (nl == 0 || nl >= RB_NAME_MAX || strspn(start, S_NAME_CHARS) != nl)
            return -EINVAL;
        r->nwant++;
        start = r->want + i + 1;
    }
    return 0;
}

/* The security options, before anything is created: checks them and loads
 * the keys (for --local, makes the coordinator's). 0 or the exit code 2. */
static int s_check_security(s_run_t *r)
{
    const rb_run_opts_t *o = r->o;
    rb_err_t err;
    rb_err_clear(&err);
    int curve = 1;
    int given = o->key_public != NULL; /* keys in memory */
    if (o->local && !o->insecure && (o->key_file || o->allow_dir || given))
        rb_err_set(&err, -EINVAL,
                   "--local makes keys of its own for its agents; --key and --allow-keys are for "
                   "agents started elsewhere (--expect, --nodes)");
    else if (given && (o->key_file || o->allow_dir))
        rb_err_set(&err, -EINVAL, "keys are given in memory: --key and --allow-keys do not apply");
    else if (!o->local || o->insecure)
        curve = rb_auth_check("--bind", s_endpoint(o), "--key", given ? "(given)" : o->key_file,
                              "--allow-keys", given ? "(given)" : o->allow_dir, o->insecure, &err);
    if (curve > 0 && given) {
        r->cert = rb_auth_cert_from_txt(o->key_public, o->key_secret, &err);
        r->allowed = r->cert ? zcertstore_new(NULL) : NULL;
        for (uint32_t i = 0; r->allowed && !err.code && i < o->nallow_public; i++) {
            zcert_t *c = rb_auth_cert_from_txt(o->allow_public[i], NULL, &err);
            if (c && !zcertstore_lookup(r->allowed, zcert_public_txt(c))) {
                zcertstore_insert(r->allowed, &c);
                r->nallowed++;
            }
            zcert_destroy(&c);
        }
    } else if (curve > 0 && o->local) {
        r->cert = zcert_new();
        r->allowed = zcertstore_new(NULL);
        r->nallowed = o->local;
    } else if (curve > 0) {
        r->cert = rb_auth_load_secret(o->key_file, &err);
        if (r->cert)
            r->allowed = rb_auth_load_store(o->allow_dir, &r->nallowed, &err);
    }
    if (curve > 0 && !err.code && (!r->cert || !r->allowed))
        rb_err_set(&err, -ENOMEM, "out of memory");
    if (!err.code)
        return 0;
    fprintf(stderr, "rackbench run: %s\n", err.msg);
    zcert_destroy(&r->cert);
    zcertstore_destroy(&r->allowed);
    return 2;
}

int rb_run(const rb_run_opts_t *o)
{
    s_run_t run = {.o = o, .plan = o->plan, .gathering = 1, .tty = isatty(STDERR_FILENO)};
    s_run_t *r = &run;
    int code = 3;

    if (o->nodes && s_parse_nodes(r, o->nodes) < 0) {
        fprintf(stderr,
                "rackbench: --nodes %s: expected names of [A-Za-z0-9._-] separated by ','\n",
                o->nodes);
        free(r->want);
        return 2;
    }
    if (s_check_security(r)) {
        free(r->want);
        return 2;
    }
    r->expect = o->local ? o->local : r->want ? r->nwant : o->expect;
    if (r->expect == 0) {
        fprintf(stderr, "rackbench run: say which agents take part: --local N, --expect N or "
                        "--nodes a,b,c\n");
        free(r->want);
        return 2;
    }
    if (o->local && !r->plan->directory[0]) {
        fprintf(stderr,
                "rackbench run: --local needs a directory for the local agents' files: "
                "set directory= in [global] of %s\n",
                r->plan->source);
        free(r->want);
        return 2;
    }
    rb_signals_catch(s_on_signal);

    r->t_start = rb_mono_ns();
    r->wall_start = rb_wall_ns();
    r->next_hb = r->t_start;
    rb_fleet_init(&r->fleet, r->plan->nphases);
    r->aggs = calloc(r->plan->nphases, sizeof *r->aggs);
    if (!r->aggs || s_make_run_dir(r) < 0 || s_bind(r) < 0) {
        if (!r->failed)
            s_fail(r, "out of memory");
        code = r->dir[0] ? 3 : 2;
        goto out;
    }
    if (o->local && s_start_local(r) < 0)
        goto report;
    if (s_gather(r) < 0 || s_send_plan(r) < 0)
        goto finish;
    for (uint32_t p = 0; p < r->plan->nphases && !r->failed; p++) {
        if (rb_fleet_active(&r->fleet) == 0) {
            s_fail(r, "no agent left to run phase %s", r->plan->phases[p].name);
            break;
        }
        s_run_phase(r, p);
    }
finish:
    s_finish_agents(r);
report:
    if (r->samples) {
        fclose(r->samples);
        r->samples = NULL;
    }
    if (r->telemetry) {
        fclose(r->telemetry);
        r->telemetry = NULL;
    }
    s_stop_children(r);
    if (s_write_reports(r) < 0 && !r->failed)
        r->failed = 1;
    code = r->failed ? 3 : r->accept_failed ? 1 : 0;
out:
    if (r->samples)
        fclose(r->samples);
    if (r->telemetry)
        fclose(r->telemetry);
    s_stop_children(r);
    for (uint32_t p = 0; r->aggs && p < r->plan->nphases; p++)
        rb_phase_agg_fini(&r->aggs[p]);
    free(r->aggs);
    free(r->children);
    free(r->want);
    s_wearout_reset(r, NULL);
    free(r->ser_bytes);
    free(r->ser_secs);
    free(r->lag);
    free(r->job_hists);
    rb_fleet_fini(&r->fleet);
    zpoller_destroy(&r->poller);
    zsock_destroy(&r->router);
    rb_auth_server_destroy(&r->auth);
    zcert_destroy(&r->cert);
    zcertstore_destroy(&r->allowed);
    s_drop_local_keys(r);
    return code;
}
