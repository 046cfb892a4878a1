/* The run controller: binds the coordinator's socket, gathers the agents
 * (starting local ones itself with --local), syncs clocks, sends the plan,
 * starts each phase at one time on every node, collects samples and totals,
 * and writes the run folder. */
#ifndef RB_RUN_H
#define RB_RUN_H

#include <stdint.h>
#include <stdio.h>

#include "rb_plan.h"
#include "rb_units.h"

/* The most agents --local starts on one machine: each is a process with its
 * own sockets and threads, and more than this only measures the machine's
 * scheduler; a larger fleet runs agents on more machines (--expect). */
#define RB_RUN_LOCAL_MAX      256
#define RB_RUN_AGENT_ARGS_MAX 32 /* --agent-arg at most */
#define RB_RUN_OUTPUTS_MAX    8  /* --output-format: renderings at most */

struct rb_reporter;

typedef struct rb_run_opts {
    const rb_plan_t *plan; /* borrowed, validated */
    const char *bind;      /* ROUTER endpoint; NULL → default */
    const char *out_dir;   /* parent of run folders (default "runs") */
    uint32_t local;        /* start this many agents here (0 = none) */
    uint32_t expect;       /* wait for this many agents */
    const char *nodes;     /* or for exactly these, comma-separated */
    uint64_t wait_ns;      /* how long to wait for agents */
    uint64_t heartbeat_ns; /* heartbeat period */
    uint64_t
        phase_heartbeat_ns; /* during a phase, to agents of 29 on (0: rb_router_phase_beat's) */
    uint64_t done_hold_ns;  /* --done-hold: agents of 30 on hold a phase's DONE this long */
    int done_hold_set;      /* 0: rb_router_done_hold's */
    uint64_t lost_after_ns; /* agent silent this long → lost */
    const char *agent_bin;  /* rackbench-agent for --local; NULL → beside this binary */
    const char *agent_args[RB_RUN_AGENT_ARGS_MAX]; /* --agent-arg: more for each local agent */
    uint32_t nagent_args;
    int quiet;                  /* no live progress lines */
    int verbose;                /* more logging, also from local agents */
    const char *key_file;       /* --key: the coordinator's secret certificate */
    const char *allow_dir;      /* --allow-keys: folder of allowed agents' public keys */
    int insecure;               /* --insecure: no CURVE (loopback and ipc:// only) */
    const char *metrics;        /* --metrics ADDR: serve /metrics and the live page (NULL: no) */
    int metrics_inventory;      /* --metrics-inventory: the live page shows what the hosts are */
    uint64_t metrics_linger_ns; /* --metrics-linger: the final /metrics served this long at most */
    int metrics_linger_set;     /* given (else RB_METRICS_LINGER_NS) */
    rb_units_style_t units;     /* --units: report.txt's units (0: IEC) */
    /* --output-format: the renderings printed to stdout at the end, in turn
     * (borrowed rows of the reporter table; none: text, with the run folder) */
    const struct rb_reporter *const *outputs;
    uint32_t noutputs;
    /* Keys handed over in memory instead of --key/--allow-keys files (rackbench-mpi):
     * the coordinator's key pair and the allowed agents' public keys, Z85 text. */
    const char *key_public;          /* NULL: none given */
    const char *key_secret;          /* given with key_public */
    const char *const *allow_public; /* nallow_public keys, borrowed */
    uint32_t nallow_public;
    /* Called once the socket is bound, before waiting for agents, with the
     * endpoint agents connect to (a wildcard port resolved); NULL: none. */
    void (*on_bound)(const char *endpoint, void *arg);
    void *on_bound_arg;
} rb_run_opts_t;

/* How long the final /metrics is served at most without --metrics-linger:
 * two of Prometheus's default scrape intervals (15 s). */
#define RB_METRICS_LINGER_NS (30ull * 1000000000ull)

/* Reads --metrics-linger's value (a duration, seconds by default, 0 to
 * 1h) into *out. 0, or -1 with the reason printed to err, cmd leading
 * (rb_metrics.c). */
int rb_metrics_parse_linger(FILE *err, const char *cmd, const char *val, uint64_t *out);

/* Runs the plan. Prints the report to stdout and the run folder's path.
 * Returns the process exit code: 0 done (every acceptance check passed, or
 * none set), 1 an acceptance check failed, 2 bad usage, 3 run failed. */
int rb_run(const rb_run_opts_t *o);

#endif
