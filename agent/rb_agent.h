/* rackbench-agent: connects out to a coordinator, says who it is, and runs
 * the plans it is sent inside its sandbox, streaming samples back. */
#ifndef RB_AGENT_H
#define RB_AGENT_H

#include <stdint.h>

#include "rb_err.h"

#define RB_AGENT_MAX_ROOTS   64
#define RB_AGENT_MAX_DEVICES 16
#define RB_AGENT_RESERVE_PCT 5  /* default --reserve */
#define RB_AGENT_RESERVE_MAX 90 /* highest --reserve */
/* rb_agent_run's exit code after SIGHUP: leave to be started again (a new
 * build), at once when no run is active, else when the run ends; the
 * packaged unit restarts the agent on it */
#define RB_AGENT_EXIT_RESTART 75
/* --health-every's default: each disk's health read again this often in a run */
#define RB_AGENT_HEALTH_EVERY_NS (600ull * 1000000000ull)

typedef struct rb_agent_opts {
    const char *coordinator;               /* ZeroMQ endpoint to connect to */
    const char *key_file;                  /* --key: this agent's secret certificate */
    const char *coordinator_key;           /* --coordinator-key: the coordinator's public one */
    int insecure;                          /* --insecure: no CURVE (loopback, ipc:// only) */
    const char *name;                      /* node name, also the routing id */
    const char *rack;                      /* rack name ("default" if unset) */
    const char *roots[RB_AGENT_MAX_ROOTS]; /* --root folders */
    int nroots;
    int once;                 /* exit after one run (or a lost coordinator) */
    uint64_t heartbeat_ns;    /* heartbeat period during a run */
    uint64_t lost_after_ns;   /* coordinator silent this long → lost */
    const char *proc_root;    /* where /proc is read from ("/proc"; tests: a fixture) */
    const char *sys_root;     /* where /sys is read from ("/sys") */
    const char *cleanup_run;  /* --cleanup --run: that run's leftovers only */
    int no_telemetry;         /* do not read host telemetry */
    const char *smartctl;     /* --smartctl: the program that reads disk health (NULL: smartctl) */
    int no_health;            /* --no-health: read no disk's health */
    uint64_t health_every_ns; /* --health-every: read it during a run this often (0: never) */
    int no_net;               /* --no-net: no data port; plans with network phases refused */
    const char *net_addr;     /* --net-address: where network phases' streams come (NULL: the
                                 address this host reaches the coordinator from) */
    const char *devices[RB_AGENT_MAX_DEVICES]; /* --allow-device block devices */
    int open_writers; /* --allow-open-writers: devices others write may be written */
    int ndevices;
    int reserve_pct; /* % of each file system a plan must leave free (0-90) */
    /* Keys handed over in memory instead of --key/--coordinator-key files
     * (rackbench-mpi), Z85 text, borrowed: this agent's pair, the coordinator's public key. */
    const char *key_public; /* NULL: none given */
    const char *key_secret;
    const char *coordinator_public;
} rb_agent_opts_t;

typedef struct rb_agent rb_agent_t;

/* Creates an agent: checks the options, resolves the roots, connects.
 * NULL with err set ("--root /x: No such file or directory") on failure. */
rb_agent_t *rb_agent_new(const rb_agent_opts_t *opts, rb_err_t *err);

/* Runs until interrupted (SIGINT/SIGTERM) or, with once, until one run ends.
 * Returns the process exit code: 0 done, 3 a run failed or was abandoned. */
int rb_agent_run(rb_agent_t *a);

/* Asks a running agent, from any thread, to leave: as on SIGTERM, it
 * abandons a run (removing its files) and rb_agent_run returns. */
void rb_agent_stop(rb_agent_t *a);

/* Installs the agent's SIGINT/SIGTERM handlers (stop every agent of this
 * process as rb_agent_stop does) and ignores SIGPIPE. */
void rb_agent_catch_signals(void);

/* Stops what runs, removes the run's files, closes, frees; nulls *p. */
void rb_agent_destroy(rb_agent_t **p);

#endif
