/* The coordinator's view of its agents: who said HELLO, each one's clock
 * offset (from the ping-pong with the smallest round trip), when each was last
 * heard, and where each stands in the run. Finding a node by name and
 * counting the nodes in a state cost O(1), whatever the fleet's size: the
 * coordinator does both for every message. */
#ifndef RB_FLEET_H
#define RB_FLEET_H

#include <stdint.h>

#include "rb_aggregate.h"
#include "rb_names.h"
#include "rb_pack.h"
#include "rb_proto.h"

#define RB_FLEET_PINGS 7 /* clock probes per agent; the minimum-RTT one is kept */

typedef enum {
    RB_AGENT_SYNCING = 0, /* HELLO received, clock probes going */
    RB_AGENT_SYNCED,      /* offset known, waiting for the plan */
    RB_AGENT_PLANNED,     /* PLAN sent */
    RB_AGENT_READY,       /* READY received */
    RB_AGENT_RUNNING,     /* GO sent for the current phase */
    RB_AGENT_PHASE_DONE,  /* DONE received for the current phase */
    RB_AGENT_ENDED,       /* END acknowledged: its files are gone */
    RB_AGENT_GONE         /* lost, refused or failed: no more messages expected */
} rb_agent_state_t;

#define RB_AGENT_NSTATES (RB_AGENT_GONE + 1)

struct rb_fleet;

/* What the coordinator keeps of a HELLO: not its roots (up to 64 paths of
 * 1 KiB each, which it never reads), so that a node costs about 1.4 KiB and
 * not the 65 KiB of a whole rb_msg_hello_t (at 16,000 nodes 22 MiB against
 * 1 GiB), and the rank sort moves small records. */
typedef struct rb_node_hello {
    char name[RB_NAME_MAX];
    char rack[RB_NAME_MAX];
    char hostname[RB_NAME_MAX];
    char agent_version[RB_NAME_MAX];
    char build[RB_BUILD_MAX]; /* its build (HELLO's, since protocol 24), else agent_version */
    uint32_t version;         /* the protocol it speaks: every message to it is in that one */
    uint32_t pid;
    uint32_t cores;
    uint64_t ram_bytes;
    uint64_t cache_bytes;
    rb_host_t *hw; /* what the host is, as its HELLO said, for the reports (owned; NULL
                      when out of memory) */
} rb_node_hello_t;

/* Keeps DONE d until the phase's figures: takes over its arrays (d is left
 * without them), its texts copied, its workers' checkpoints and its
 * devices packed, its devices' histograms summarised (and its jobs'
 * dropped: merged on arrival). rb_fleet_drop_done frees it. NULL without
 * memory, d as it was. */
rb_agg_done_t *rb_fleet_keep_done(rb_msg_done_t *d);

typedef struct rb_node {
    rb_node_hello_t hello;     /* as the agent introduced itself */
    rb_agent_state_t state;    /* read freely; changed only by rb_fleet_node_set_state() */
    struct rb_fleet *fleet;    /* the fleet it belongs to (its state counts) */
    rb_node_status_t status;   /* how it ends up in the report */
    char error[RB_REASON_MAX]; /* why it is not ok */
    int64_t offset_ns;         /* agent clock - coordinator clock */
    uint64_t best_rtt_ns;      /* round trip of the probe that set offset_ns */
    uint32_t pings;            /* probes answered */
    uint32_t probe_left;       /* a clock round before GO: probes still to answer (0: none) */
    uint64_t last_seen_ns;     /* coordinator clock */
    uint64_t longest_gap_ns;   /* its longest silence said (over half of --lost-after) */
    uint64_t unreachable_ns;   /* a send to it failed then, none since went through (0: none) */
    uint64_t beat_due_ns;      /* its next HEARTBEAT is due then (0: at the next round) */
    uint64_t beat_said_ns;     /* the period its last HEARTBEAT said (0: none said) */
    uint64_t mem_need;         /* its SPACE's: the most one phase's buffers take on it */
    uint64_t mem_room;         /* its SPACE's: what its host has for them (0: not said) */
    uint64_t removed_files;    /* from its END; while it cleans up, its HEARTBEATs' count */
    uint64_t removed_at_ns;    /* when that count last grew (coordinator clock) */
    uint8_t cleanup;           /* rb_cleanup_t: what became of its files */
    rb_agg_done_t **done;      /* per phase: its DONE until the figures (owned), or NULL */
    rb_packed_t *health[2];    /* its disks' health before the run (READY's) and after it
                                  (END's), packed (about 170 bytes a reading, not 648),
                                  owned; NULL: none came (protocol 27) */
    uint32_t rank;             /* its place in the run (neighbours, shared-file regions) */
    uint64_t out_ns;           /* when it went out of the run (coordinator clock; 0: it did not) */
    uint64_t live_bytes;       /* bytes in its samples since the last progress line */
    uint64_t phase_bytes;      /* bytes in its samples of the current phase */
    uint64_t phase_ops;        /* ops likewise */
    uint64_t phase_first_ns;   /* its samples of the phase cover this.. (coordinator clock) */
    uint64_t phase_last_ns;    /* ..to this (0: no sample yet) */
    int live_seen;             /* it sent a sample since the last progress line */
    int phase_lat_set;         /* phase_lat holds its DONE's latency of the current phase */
    rb_node_lat_t phase_lat;   /* ... summed over its jobs when the DONE came */
    uint32_t said_pid;         /* the process of the name's last HELLO ... */
    uint32_t before_pid;       /* ... and the one it came after (0: none) */
    char said_host[RB_NAME_MAX]; /* their hosts */
    char before_host[RB_NAME_MAX];
    char net_addr[RB_NET_ADDR_MAX]; /* its READY's: where network phases' streams go ... */
    uint32_t net_port;              /* ... and its data port (0: none) */
} rb_fleet_node_t;

typedef struct rb_fleet {
    uint32_t n; /* nodes registered */
    uint32_t cap;
    rb_fleet_node_t *nodes;
    uint32_t nphases;                  /* length of each node's done[] */
    rb_names_t index;                  /* nodes by name */
    uint32_t nstate[RB_AGENT_NSTATES]; /* nodes in each state */
} rb_fleet_t;

/* Sets up an empty fleet for a plan of nphases phases (caller memory, which
 * must not move while the fleet has nodes: they point back to it). */
void rb_fleet_init(rb_fleet_t *f, uint32_t nphases);

/* Notes a HELLO under n's name: 1 when it comes from the process whose
 * place another one took before (pid and host), that is two live agents of
 * one name taking the name from each other, else 0. */
int rb_fleet_node_said_hello(rb_fleet_node_t *n, const rb_msg_hello_t *hello);

/* Frees node n's DONE for a phase, once the phase's figures are made. */
void rb_fleet_drop_done(rb_fleet_node_t *n, uint32_t phase);

/* Keeps a READY's (after 0) or an END's (after 1) nh disk health readings
 * h in n, packed. A second one of a kind replaces the first. 0, or -ENOMEM
 * (n keeps what it had). */
int rb_fleet_take_health(rb_fleet_node_t *n, int after, const rb_health_t *h, uint32_t nh);

/* Each node's readings before and after the run whole, as the reports
 * take them: into nodes[i].health and nhealth for f's nodes i
 * (rb_fleet_health_free). 0, or -ENOMEM (a node without memory has none). */
struct rb_report_node;
int rb_fleet_health(const rb_fleet_t *f, struct rb_report_node *nodes);
void rb_fleet_health_free(const rb_fleet_t *f, struct rb_report_node *nodes);

/* Frees every node and its DONE messages; safe twice. */
void rb_fleet_fini(rb_fleet_t *f);

/* Node by name, or NULL. */
rb_fleet_node_t *rb_fleet_find(rb_fleet_t *f, const char *name);

/* Registers a node from its HELLO (copied). Returns it, or NULL on -ENOMEM.
 * The nodes array may move: earlier node pointers are stale after a call. */
rb_fleet_node_t *rb_fleet_add(rb_fleet_t *f, const rb_msg_hello_t *hello, uint64_t now);

/* Finds the nodes again after the caller reordered f->nodes (qsort). */
void rb_fleet_reindex(rb_fleet_t *f);

/* Moves a node to state st, keeping the fleet's counts. */
void rb_fleet_node_set_state(rb_fleet_node_t *node, rb_agent_state_t st);

/* The node's agent restarted before the run began: its new process
 * (hello) takes the node's place, and its clock is probed again from
 * scratch. */
void rb_fleet_node_rejoin(rb_fleet_node_t *node, const rb_msg_hello_t *hello, uint64_t now);

/* Takes one clock probe: sent at t_sent and answered at t_recv (coordinator
 * clock) with the agent's clock reading t_agent. Keeps the estimate of the
 * probe with the smallest round trip: offset = t_agent - (t_sent + t_recv) / 2. */
void rb_fleet_node_clock_sample(rb_fleet_node_t *node, uint64_t t_sent, uint64_t t_agent,
                                uint64_t t_recv);

/* Marks a node out of the run with a status and a reason. */
void rb_fleet_node_out(rb_fleet_node_t *node, rb_node_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Nodes in state st, and nodes still taking part (not GONE); O(1). */
uint32_t rb_fleet_count(const rb_fleet_t *f, rb_agent_state_t st);
uint32_t rb_fleet_active(const rb_fleet_t *f);

#endif
