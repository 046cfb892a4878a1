/* What the pieces of the run controller share: the state of one run (the
 * socket, the fleet, the run folder's files, the current phase and what its
 * samples and DONEs add up to), and the few helpers every piece uses. Inside
 * coordinator/run/ only: the rest of the coordinator sees rb_run.h. */
#ifndef RB_RUN_INT_H
#define RB_RUN_INT_H

#include <czmq.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "rb_aggregate.h"
#include "rb_auth.h"
#include "rb_findings.h"
#include "rb_fleet.h"
#include "rb_hist.h"
#include "rb_run.h"
#include "rb_series.h"

#define RB_RUN_POLL_MS       20  /* the run's loops wait this long for messages */
#define RB_RUN_PHASE_WAIT_MS 100 /* a phase's loop, when no timer is due sooner (live page) */
#define RB_RUN_MAX_REJECTS   8   /* turned-away peers remembered for the error message */

/* rb_run_ctx_t.lag's histograms */
enum { RB_LAG_ALL, RB_LAG_FIRST, RB_LAG_STEADY, RB_LAG_LAST, RB_LAG_N };

typedef struct rb_local_child {
    pid_t pid; /* local agent process, 0 once reaped */
    char name[RB_NAME_MAX];
    int status;         /* waitpid status once reaped */
    uint64_t exited_ns; /* when it was reaped (0: running) */
    int judged;         /* its exit was weighed against its node's state */
} rb_local_child_t;

/* One node's share of one file system, from its SPACE: the nodes on one
 * host and device add up (rb_join_space). */
typedef struct rb_run_space {
    uint32_t node;               /* index in the fleet when it came (names it) */
    char node_name[RB_NAME_MAX]; /* the node */
    char host[RB_NAME_MAX];      /* its HELLO's hostname */
    rb_space_info_t fs;          /* as the agent saw it */
} rb_run_space_t;

/* One rack's latency in the current phase, merged from its nodes' DONEs:
 * all IOs, then each direction's lat. */
typedef struct rb_run_rack_lat {
    char name[RB_NAME_MAX];
    rb_hist_t h[1 + RB_NDIRS];
} rb_run_rack_lat_t;

typedef struct rb_metrics rb_metrics_t; /* rb_metrics.h */

typedef struct rb_run_ctx {
    const rb_run_opts_t *o;
    const rb_plan_t *plan;
    zsock_t *router;
    zsock_t *monitor; /* the router's handshake events (rb_auth_monitor_start), or NULL */
    zpoller_t *poller;
    uint32_t handshakes_failed[RB_AUTH_OUTCOMES]; /* failed handshakes by outcome */
    char endpoint[256];                           /* what agents connect to (local runs) */
    rb_fleet_t fleet;
    uint32_t expect; /* agents to wait for */
    char *want;      /* copy of --nodes, NUL-separated names */
    uint32_t nwant;
    char run_id[RB_NAME_MAX];
    char dir[PATH_MAX]; /* run folder */
    FILE *samples;      /* samples.csv, appended as samples arrive */
    FILE *telemetry;    /* telemetry.csv, likewise */
    FILE *latency;      /* latency.csv, likewise; NULL when no job asks for fio's latency logs */
    char *csv_buf[3];   /* their stdio buffers (glibc takes no size without a buffer) */
    rb_local_child_t *children;
    uint32_t nchildren;
    char (*roots)[PATH_MAX]; /* --local: the agents' roots (rb_local_roots), nroots of them */
    uint32_t nroots;
    uint64_t t_start; /* coordinator clock at start */
    uint64_t wall_start;
    /* DONEs taken in, handled after the samples that came with them
     * (rb_router.c): those from later_at to nlater wait */
    struct rb_router_later *later;
    uint32_t nlater, caplater, later_at;
    uint64_t next_hb;     /* the next round of HEARTBEATs (one a --heartbeat) */
    uint64_t beat_ns;     /* in a phase, the period its HEARTBEATs say (0: --heartbeat) */
    uint64_t next_walk;   /* when rb_router_pump next looks for silent agents */
    unsigned drained;     /* messages the last pump took in */
    uint64_t next_flush;  /* when rb_router_pump next flushes the CSV files */
    int unflushed;        /* rows written since the last flush */
    int gathering;        /* still accepting HELLOs */
    uint32_t cur_phase;   /* phase running (valid in phases) */
    uint64_t t_go;        /* its GO time, coordinator clock */
    uint64_t interval_ns; /* its sample interval (the plan's, or chosen at GO) */
    uint64_t live_bytes;  /* bytes in samples since the last progress line */
    uint64_t live_ops;
    uint64_t next_live;
    uint64_t phase_bytes, phase_ops;   /* in samples since GO */
    uint32_t phase_nodes;              /* nodes sent GO for the current phase */
    uint32_t nranked;                  /* nodes given a rank at PLAN (ranks 0 .. nranked-1) */
    uint8_t net_secret[RB_NET_SECRET]; /* network phases: what agents prove to each other */
    int tty;                           /* stderr is a terminal: one updating progress line */
    int failed;                        /* the run failed */
    char error[RB_REASON_MAX];         /* why (first cause) */
    char rejects[RB_RUN_MAX_REJECTS][RB_REASON_MAX]; /* peers we turned away */
    uint32_t reject_repeats[RB_RUN_MAX_REJECTS];     /* ... each again, counted */
    uint64_t reject_told_ns[RB_RUN_MAX_REJECTS];     /* ... when the peer was last told */
    uint32_t nrejects;
    rb_run_space_t *space; /* every SPACE entry of the run's nodes (owned) */
    uint32_t nspace, space_cap;
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
    /* the current phase: sample interval end to its aggregation, ns, of
     * [RB_LAG_ALL] every sample, [RB_LAG_FIRST] those of its first interval,
     * [RB_LAG_LAST] of the latest (lag_seq) and [RB_LAG_STEADY] the others */
    rb_hist_t *lag;
    uint32_t lag_seq;
    /* the current phase: the hold its GOs asked of agents of
     * RB_ROUTER_HOLD_SINCE on, and how long after a node's last sample its
     * DONE was taken in, the least and the most (done_n DONEs) */
    uint64_t done_hold_ns, done_after_min, done_after_max;
    uint32_t done_n;
    rb_lat_set_t *job_hists; /* the current phase: each job's latency from the DONEs so far */
    rb_hist_t *node_lat; /* scratch: one DONE's latency over its jobs, 1 + RB_NDIRS as a rack's */
    rb_run_rack_lat_t *rack_lats; /* the current phase: each rack's latency from the DONEs */
    uint32_t nrack_lats;
    rb_series_t *node_series; /* the current phase: each node's bandwidth, for the stragglers */
    rb_findings_tel_series_t *tel; /* the current phase: host telemetry series, for the findings */
    int tel_failed;                /* out of memory adding to tel: no telemetry findings */
    uint64_t nsamples;             /* samples aggregated in the current phase */
    rb_auth_server_t *auth;        /* CURVE: the ZAP handler checking agents' keys */
    zcert_t *cert;                 /* CURVE: the coordinator's keys, until applied */
    zcertstore_t *allowed;         /* CURVE: the agents' keys, until handed to auth */
    uint32_t nallowed;             /* how many */
    char keydir[PATH_MAX]; /* --local: folder of the local agents' keys, until they joined */
    int keylock;           /* open on keydir, flock()ed while it is ours (-1: none) */
    int dirlock;           /* open on the run folder's plan.ini, flock()ed while the run goes */
    rb_metrics_t *metrics; /* --metrics: its server and counters, or NULL */
} rb_run_ctx_t;

/* Set by SIGINT/SIGTERM during a run; the loops stop in order. */
extern volatile sig_atomic_t rb_run_interrupted;

/* Coordinator clock t → UTC ns since the epoch, from the pair of clocks read
 * at the run's start (docs/metrics.md); 0 stays 0 (unknown). */
uint64_t rb_run_utc(const rb_run_ctx_t *r, uint64_t t);

/* Fails the run with a message (the first cause is kept and logged). */
void rb_run_fail(rb_run_ctx_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Logs a peer turned away, once per message; the first few are kept, and
 * how often each came again is counted (said when the run ends). */
void rb_run_reject(rb_run_ctx_t *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Like rb_run_reject; returns 1 when the peer should be told (the first
 * time, then at most every few seconds), 0 when it was told lately. */
int rb_run_reject_tell(rb_run_ctx_t *r, uint64_t now, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Says how often each turned-away peer came again, if it did. */
void rb_run_reject_counts(rb_run_ctx_t *r);

/* 1 while a node still takes part: neither out of the run nor done with it. */
int rb_run_node_open(const rb_fleet_node_t *n);

/* Decodes one message from the peer with routing id id, taken in at heard
 * (put off: before now), and acts on it. */
void rb_run_dispatch(rb_run_ctx_t *r, const char *id, const void *data, size_t len, uint64_t now,
                     uint64_t heard);

#endif
