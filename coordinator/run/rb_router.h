/* The run's one ROUTER socket: binding it (with CURVE when asked), sending
 * to agents by routing id, and the pump that receives messages, flushes the
 * CSV files, marks silent agents lost and sends the heartbeats. */
#ifndef RB_ROUTER_H
#define RB_ROUTER_H

#include "rb_run_int.h"

/* The security options, before anything is created: checks them and loads
 * the keys (for --local, makes the coordinator's). 0 or the exit code 2. */
int rb_router_check_security(rb_run_ctx_t *r);

/* Starts ZeroMQ's context (before any socket of it) from a thread at a nice
 * value 5 above this one's, so that its I/O threads run at it and yield the
 * cores to the thread that takes in what they read; this one's is left as
 * it is.
 * 0, or -errno (its threads at this thread's value then). */
int rb_router_io_nice(void);

/* Creates the ROUTER socket, secures it and binds it; fills r->endpoint and
 * calls o->on_bound. 0, or -errno with the run failed. */
int rb_router_bind(rb_run_ctx_t *r);

/* Closes the router once the run has nothing more to say to its agents,
 * waits (up to 5 s) until ZeroMQ has let go of every connection, and gives
 * what they held back to the system: the reports are written after it, and
 * at 16,000 agents ZeroMQ's 680 MiB would otherwise lie under them. Safe
 * twice. */
void rb_router_close(rb_run_ctx_t *r);

/* Handles (handle != 0) or drops every DONE the pump put off (it handles
 * them after the samples taken in with them), and frees their room. */
void rb_router_later_end(rb_run_ctx_t *r, int handle);

/* Hands the memory freed in every malloc arena back to the system (ZeroMQ's
 * I/O threads' too, which keep what their messages took at their most),
 * saying how long it took, for when. */
void rb_router_trim(const char *when);

/* The endpoint to bind: --bind, else loopback for --local, else the default. */
const char *rb_router_endpoint(const rb_run_opts_t *o);

/* Sends an encoded message (borrowed) to the peer with routing id id.
 * 0 or -EHOSTUNREACH. */
int rb_router_send_raw(rb_run_ctx_t *r, const void *id, size_t idlen, const void *buf, size_t len);

/* Encodes m in protocol version (rb_router_send_to: the one this process
 * speaks) and sends it to the peer with routing id id. 0 or -errno. */
int rb_router_send_to(rb_run_ctx_t *r, const void *id, size_t idlen, const rb_msg_t *m);
int rb_router_send_to_v(rb_run_ctx_t *r, const void *id, size_t idlen, uint32_t version,
                        const rb_msg_t *m);

/* The protocol node n is spoken to in: its HELLO's (of the window). */
uint32_t rb_router_version(const rb_fleet_node_t *n);

/* Sends m to node n; an unreachable node is marked lost, a message that
 * cannot be built fails the run. */
void rb_router_send(rb_run_ctx_t *r, rb_fleet_node_t *n, const rb_msg_t *m);

/* Sends node n a clock probe (PING) stamped now. */
void rb_router_ping(rb_run_ctx_t *r, rb_fleet_node_t *n);

/* An ABORT or ERROR of this run with a code and a reason. */
rb_msg_t rb_router_reason_msg(const rb_run_ctx_t *r, rb_msg_type_t type, int code,
                              const char *reason);

/* Sends node n an ABORT or ERROR of this run with a code and a reason. */
void rb_router_send_reason(rb_run_ctx_t *r, rb_fleet_node_t *n, rb_msg_type_t type, int code,
                           const char *reason);

/* What the failed handshakes say, for the message of a failed join: ";
 * 5 CURVE handshakes failed because the keys do not match: …" into buf, or
 * "" when none failed. Refused keys are the ZAP handler's (rb_auth.h). */
void rb_router_handshakes(const rb_run_ctx_t *r, char *buf, size_t len);

/* The protocol from which agents are told the HEARTBEATs' period (and may
 * hear them less often than once a --heartbeat). */
#define RB_ROUTER_BEAT_SINCE 29

/* The protocol from which agents are told to hold a phase's DONE (GO's
 * done_hold_ns). */
#define RB_ROUTER_HOLD_SINCE 30

/* How long the agents of a phase of interval_ns samples hold its DONE
 * after their last SAMPLE: --done-hold, else 20 µs an agent of the n it
 * starts, at most half an interval. A fleet sends its last samples and
 * DONEs together: read behind the DONEs (13 KiB a connection beside a
 * SAMPLE's 2), the last interval's samples at 16,000 agents came 375 -
 * 447 ms after its end at p99, against 213 - 228 for the steady ones. */
uint64_t rb_router_done_hold(const rb_run_ctx_t *r, uint32_t n, uint64_t interval_ns);

/* The period of the HEARTBEATs of a phase to agents that are told it:
 * --phase-heartbeat, else 3 heartbeats or 250 µs an agent, the longer. */
uint64_t rb_router_phase_beat(const rb_run_ctx_t *r);

/* When a round of HEARTBEATs due at t goes out: in a phase whose sample
 * interval is no longer than --heartbeat, in the middle of the interval t
 * falls in (at most half an interval off t), between two of the fleet's
 * bursts of samples, not at a time that drifts through them. At 16,000
 * agents a round is 4,000 sends (16,000 the phase's first), a command and
 * two epoll_ctl each for ZeroMQ's threads, which the samples' burst fills. */
uint64_t rb_router_beat_at(const rb_run_ctx_t *r, uint64_t t);

/* Waits up to timeout_ms (< 0: no limit) for messages, no later than its
 * timers are due, handles them, then the timers: CSV flush, silent agents,
 * heartbeats, local agents' exits. */
void rb_router_pump(rb_run_ctx_t *r, int timeout_ms);

/* The ms from now until due, rounded up, at most cap_ms (< 0: no cap);
 * 0 when due. */
int rb_router_ms_until(uint64_t now, uint64_t due, int cap_ms);

/* rb_router_pump for a phase's messages: when the last pump took some and
 * left none, first lets more gather a few ms, so they are taken in batches
 * (fewer wake-ups). */
void rb_router_pump_gather(rb_run_ctx_t *r, int timeout_ms);

#endif
