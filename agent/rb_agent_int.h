/* What the agent's parts share: the connection (rb_agent.c: socket, HELLO,
 * heartbeats, a lost coordinator), the run's state machine (rb_agent_state.c:
 * PLAN, READY, GO, SAMPLE, DONE, END) and a PLAN taken (rb_agent_plan.c).
 * Private to the agent class: nothing outside these files includes it. */
#ifndef RB_AGENT_INT_H
#define RB_AGENT_INT_H

#include <czmq.h>
#include <pthread.h>
#include <stdint.h>

#include "rb_agent.h"
#include "rb_auth.h"
#include "rb_layout.h"
#include "rb_net.h"
#include "rb_phase.h"
#include "rb_proto.h"
#include "rb_sandbox.h"
#include "rb_telemetry.h"

#define RB_AGENT_MAX_EXTENTS 64 /* stonewalled data sets remembered in a run */

struct rb_agent {
    rb_agent_opts_t o; /* options (strings borrowed from argv) */
    zsock_t *sock;     /* DEALER to the coordinator; NULL while waiting to connect again */
    zsock_t *monitor;  /* sock's handshake events (rb_auth_monitor_start), or NULL */
    zpoller_t *poller; /* sock and monitor */
    zcert_t *cert;     /* CURVE: this agent's key pair, NULL without CURVE */
    zcert_t *server;   /* CURVE: the coordinator's public key */
    /* after a failed handshake ZeroMQ does not connect again: the socket is made anew */
    int reopen;         /* close sock at the next turn of the loop */
    uint64_t reopen_at; /* while sock is NULL: when to make it again */
    uint64_t retry_ns;  /* the wait before that (doubles up to a few seconds) */
    uint32_t failures;  /* kinds of failure logged since a success (bits) */
    uint32_t failure_repeats[RB_AUTH_OUTCOMES]; /* each one again since it was logged or counted */
    uint64_t failure_note_at;                   /* when the counts are said next while they go on */
    /* frames from the coordinator that did not decode, and its refusals:
     * each reason logged once, then counted; an ERROR never answered */
    char bad_last[RB_REASON_MAX]; /* the reason logged last */
    uint32_t bad_repeats;         /* frames with that reason since */
    uint64_t bad_note_at;         /* when the count is said next while it goes on */
    uint64_t hello_retry_ns;      /* refused for its version: HELLO waits this (doubling) */
    uint64_t hello_wait_ns;       /* unanswered: the next HELLO waits this (rb_hello_wait_ns) */
    /* why the last message rb_agent_send was given did not encode; "" when it did */
    char encode_error[RB_REASON_MAX];
    rb_sandbox_t *sb;
    int state;           /* where the run stands (rb_agent_state.c) */
    int attached;        /* a coordinator answered our HELLO */
    int said_hello;      /* a HELLO went out on this socket (what came before is not ours) */
    uint64_t last_heard; /* last message from the coordinator */
    uint64_t coord_beat; /* its HEARTBEATs' period as its last one said it (0: not said) */
    uint64_t next_hello, next_heartbeat;
    int exit_code;    /* what rb_agent_run returns */
    int quit;         /* leave the loop */
    int restart_said; /* a SIGHUP during a run was logged */
    int stop;         /* rb_agent_stop was called (atomic: from another thread) */
    /* the current run */
    rb_msg_t plan;         /* decoded PLAN (owns phases) */
    uint64_t plan_wall_ns; /* CLOCK_REALTIME when it was taken: the run's start here */
    int **rundirs; /* [phase][job × RB_DIRS_MAX + dir] → sandbox run folder (RB_JOB_RUNDIR) */
    /* the background thread, never the connection's: one task at a time
     * (rb_agent_state.c: lay out, prepare a phase, release one, clean up) */
    pthread_t prep;
    int bg_kind;      /* its task */
    int prep_started; /* running, or done and not joined */
    int prep_done;    /* release-stored by the thread at its end */
    int prep_stop;    /* set (atomically) to stop a layout or a preparation: the run ends */
    int prep_rc;      /* the task's outcome (prep_err) */
    rb_err_t prep_err;
    uint64_t prefill_bytes;
    rb_phase_t *next;    /* the phase prepared for the coming GO, or NULL ... */
    uint32_t next_index; /* ... its index ... */
    int next_rc;         /* ... or why it could not be (next_err), for its GO */
    rb_err_t next_err;
    rb_job_ctx_t next_ctx; /* its context, set on the main thread */
    uint64_t next_caps[RB_MAX_JOBS];
    rb_phase_t *ending;          /* the phase done: released before its DONE goes */
    rb_msg_t done;               /* its DONE (arrays in ending) */
    uint64_t done_hold_ns;       /* GO's: a phase's DONE leaves this long after its last SAMPLE */
    uint64_t done_at;            /* the phase's DONE leaves then at the soonest ... */
    int done_held;               /* ... and waits for it when set */
    rb_msg_go_t go;              /* a GO that waits for its phase's preparation ... */
    int go_waiting;              /* ... when set */
    int end_pending;             /* END came during a background task: after it */
    int end_aborted, end_failed; /* the END's kind; a phase had failed */
    char end_run_id[RB_NAME_MAX];
    uint64_t removed;    /* files the clean-up removed so far (atomic) */
    uint64_t cleanup_t0; /* when it began */
    rb_msg_t *space;     /* SPACE of the current PLAN (allocated with the agent) */
    rb_layout_t *layout; /* the plan\'s files on this agent */
    rb_phase_t *phase;   /* phase running, or NULL */
    uint64_t next_sample;
    uint64_t interval_ns;      /* the running phase's sample interval (GO's, else the plan's) */
    int run_failed;            /* some phase reported an error */
    int exit_all;              /* exitall with exit_what=all ended this node's run */
    rb_telemetry_t *tel;       /* host telemetry, NULL when not read */
    rb_telemetry_snap_t *snap; /* its last reading */
    rb_telem_t telem;          /* the same, for the wire */
    rb_dev_id_t *inv;          /* the host's block devices for HELLO, read once (RB_MAX_DEVS) */
    uint32_t ninv, inv_seen;
    /* the run's disks' health (rb_agent_health.c): RB_HEALTH_DEVS readings
     * before the run (for READY; their dev names the disks), then as many
     * after it (for END) */
    rb_health_t *health;
    uint32_t nhealth;
    int health_before; /* the readings before were made: END carries those after */
    /* the watch of the run: every --health-every, each disk's temperature */
    pthread_t health_thread;
    int health_watching; /* the thread runs */
    int health_stop;     /* tells it to stop (atomic, under health_mu) */
    pthread_mutex_t health_mu;
    pthread_cond_t health_cv;
    uint32_t health_watches;              /* readings it made of the run */
    uint64_t health_tmax[RB_HEALTH_DEVS]; /* each disk's highest temperature of them */
    /* data sets a worn-out write left short: a later read reads only that much */
    struct {
        char key[RB_PATH_MAX + RB_NAME_MAX * 2]; /* s_data_key of the writing job */
        uint64_t bytes;                          /* bytes of each worker's file or region */
    } extents[RB_AGENT_MAX_EXTENTS];
    uint32_t nextents;
    rb_net_port_t net_port; /* network phases' data port, bound from PLAN to END (fd -1) */
    uint8_t drop_done;      /* the page cache was dropped before the coming phase */
    int32_t drop_status;    /* 0, or -errno of a failed drop */
};

/* Chooses the run's disks to read the health of (main thread, at PLAN): the
 * disks under the roots and the block devices the agent may open. */
void rb_agent_health_plan(rb_agent_t *a);

/* Reads the chosen disks' health (the background thread): before the run,
 * or after it (each disk's highest temperature of the two kept). */
void rb_agent_health_read(rb_agent_t *a, int after);

/* Starts the watch of the run (main thread, at READY): every
 * --health-every, each disk read before the run is read again for its
 * temperature, on a thread of its own. */
void rb_agent_health_watch(rb_agent_t *a);

/* Stops the watch and waits for it (at the longest one smartctl's deadline). */
void rb_agent_health_unwatch(rb_agent_t *a);

/* Encodes and sends m to the coordinator; 0 or -errno (logged). */
int rb_agent_send(rb_agent_t *a, const rb_msg_t *m);

/* A /proc/meminfo figure in bytes ("MemAvailable:"), 0 when unknown. */
uint64_t rb_agent_meminfo(const char *key);

/* Sends a REFUSED or ERROR for the current run with code and reason. */
void rb_agent_send_reason(rb_agent_t *a, rb_msg_type_t type, int code, const char *reason);

/* 1 while a run is on (from PLAN to END). */
int rb_agent_state_active(const rb_agent_t *a);

/* PLAN: checks the plan, lays out its files in the background, then READY
 * (from rb_agent_state_tick); REFUSED with the reason. Takes over m's arrays. */
void rb_agent_state_plan(rb_agent_t *a, rb_msg_t *m);

/* GO: starts the phase at the local equivalent of the coordinator's time. */
void rb_agent_state_go(rb_agent_t *a, const rb_msg_go_t *go);

/* WEAROUT: lets a stonewalled job go on to the coordinator's op count. */
void rb_agent_state_wearout(rb_agent_t *a, const rb_msg_wear_t *w);

/* END or ABORT (aborted) of run run_id: stops, removes the run's files, answers END. */
void rb_agent_state_end(rb_agent_t *a, const char *run_id, int aborted);

/* Timers on the main thread: READY once the layout is done; samples, stonewalls
 * and DONE of the running phase. */
void rb_agent_state_tick(rb_agent_t *a, uint64_t now);

/* Checks a plan against this agent (sandbox, engines, capacity, memory),
 * makes its run folders and works out which files to lay out. Returns 0 or
 * -errno with err set for a REFUSED. */
int rb_agent_plan_accept(rb_agent_t *a, rb_err_t *err);

/* Where this agent stands in the run, from its PLAN. */
rb_job_ctx_t rb_agent_plan_ctx(const rb_agent_t *a);

/* Blocks of each file a read job of the phase may read (0 = all), from
 * what worn-out writes left (caps: ph->njobs of them). */
void rb_agent_plan_caps(const rb_agent_t *a, const rb_phase_spec_t *ph, uint64_t *caps);

/* WEAROUT of a write job: remembers how much of its data set it wrote. */
void rb_agent_plan_extent(rb_agent_t *a, const rb_job_spec_t *js, uint64_t ops);

/* Leaves a run without the coordinator's say-so (lost it, or a signal). */
void rb_agent_state_abandon(rb_agent_t *a, const char *why);

/* Files removed so far by a clean-up going on, else 0 (for HEARTBEAT). */
uint64_t rb_agent_state_removed(const rb_agent_t *a);

/* Ends whatever run is on, removing its files, without a word to the coordinator. */
void rb_agent_state_close(rb_agent_t *a);

#endif
