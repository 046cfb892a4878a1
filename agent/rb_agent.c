/* The agent's connection: one DEALER socket to the coordinator (CURVE
 * unless it may be off), HELLO until a coordinator answers, heartbeats,
 * and a coordinator that falls silent; each message goes to the run's state
 * machine (rb_agent_state.c). All on the main thread; IO happens in worker
 * threads. */
#include <czmq.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rb_agent.h"
#include "rb_agent_int.h"
#include "rb_auth.h"
#include "rb_log.h"
#include "rb_proto.h"
#include "rb_sandbox.h"
#include "rb_signal.h"
#include "rb_telemetry.h"
#include "rb_time.h"
#include "rb_names.h"

#define S_HELLO_EVERY_NS (1 * RB_NS_PER_S)
#define S_POLL_MS        10

static volatile sig_atomic_t s_signalled;

static void s_on_signal(int sig)
{
    (void)sig;
    s_signalled = 1;
}

int rb_agent_send(rb_agent_t *a, const rb_msg_t *m)
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
    zframe_t *f = zframe_new(buf, len);
    free(buf);
    if (!f || zframe_send(&f, a->sock, 0) < 0) {
        zframe_destroy(&f);
        rb_warn("cannot send %s to %s", rb_msg_type_name(m->type), a->o.coordinator);
        return -EIO;
    }
    /* Any message shows the coordinator we are alive: a HEARTBEAT only after
     * a heartbeat interval of silence (during a phase the SAMPLEs stand in for
     * them, which halves what a coordinator of a large fleet receives). */
    a->next_heartbeat = rb_time_mono_ns() + a->o.heartbeat_ns;
    return 0;
}

void rb_agent_send_reason(rb_agent_t *a, rb_msg_type_t type, int code, const char *reason)
{
    rb_msg_t m = {.type = type};
    rb_msg_reason_t *r = type == RB_MSG_REFUSED ? &m.u.refused : &m.u.error;
    snprintf(r->run_id, sizeof r->run_id, "%s", a->plan.u.plan.run_id);
    r->code = code;
    snprintf(r->reason, sizeof r->reason, "%s", reason);
    rb_agent_send(a, &m);
}

/* A /proc/meminfo figure in bytes ("Cached:"), 0 when unknown. */
static uint64_t s_meminfo(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "re");
    char line[256];
    unsigned long long kb = 0;
    size_t kl = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, kl) == 0 && sscanf(line + kl, "%llu", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return (uint64_t)kb * 1024;
}

static void s_send_hello(rb_agent_t *a)
{
    rb_msg_t m = {.type = RB_MSG_HELLO};
    rb_msg_hello_t *h = &m.u.hello;
    snprintf(h->name, sizeof h->name, "%s", a->o.name);
    snprintf(h->rack, sizeof h->rack, "%s", a->o.rack);
    if (gethostname(h->hostname, sizeof h->hostname - 1) < 0)
        snprintf(h->hostname, sizeof h->hostname, "unknown");
    snprintf(h->agent_version, sizeof h->agent_version, "%s", RB_VERSION);
    h->pid = (uint32_t)getpid();
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    h->cores = cores > 0 ? (uint32_t)cores : 1;
    h->ram_bytes = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    h->cache_bytes = s_meminfo("Cached:");
    for (uint32_t i = 0; i < rb_sandbox_nroots(a->sb) && i < RB_MAX_ROOTS; i++)
        if (rb_sandbox_root_info(a->sb, i, &h->roots[h->nroots]) == 0)
            h->nroots++;
    rb_agent_send(a, &m);
}

/* Host telemetry: the devices under the roots (and their members), read
 * once per sample interval on this thread, never on the IO path. Without
 * it (no /proc, no device found) the agent runs as before. */
static void s_telemetry_open(rb_agent_t *a)
{
    rb_err_t err;
    const char *roots[RB_MAX_ROOTS];
    uint32_t n = 0;
    for (uint32_t i = 0; i < rb_sandbox_nroots(a->sb) && n < RB_MAX_ROOTS; i++)
        roots[n++] = rb_sandbox_root(a->sb, i);
    rb_err_clear(&err);
    a->snap = calloc(1, sizeof *a->snap);
    a->tel = a->snap ? rb_telemetry_new(a->o.proc_root ? a->o.proc_root : "/proc",
                                        a->o.sys_root ? a->o.sys_root : "/sys", roots, n, &err)
                     : NULL;
    if (!a->tel)
        rb_warn("no host telemetry: %s", a->snap ? err.msg : "out of memory");
}

static void s_handle(rb_agent_t *a, zframe_t *f)
{
    rb_msg_t m;
    rb_err_t err;
    rb_err_clear(&err);
    int rc = rb_msg_decode(zframe_data(f), zframe_size(f), &m, &err);
    if (rc < 0) {
        rb_error("bad message from coordinator %s: %s", a->o.coordinator, err.msg);
        rb_agent_send_reason(a, RB_MSG_ERROR, rc, err.msg);
        if (rc == -EPROTO && a->o.once && !rb_agent_state_active(a)) {
            a->exit_code = 3;
            a->quit = 1;
        }
        return;
    }
    a->last_heard = rb_time_mono_ns();
    a->attached = 1;
    switch (m.type) {
    case RB_MSG_PING: {
        rb_msg_t p = {.type = RB_MSG_PONG};
        p.u.pong.seq = m.u.ping.seq;
        p.u.pong.t_coord_ns = m.u.ping.t_coord_ns;
        p.u.pong.t_agent_ns = rb_time_mono_ns();
        rb_agent_send(a, &p);
        break;
    }
    case RB_MSG_PLAN:
        rb_agent_state_plan(a, &m);
        break;
    case RB_MSG_GO:
        rb_agent_state_go(a, &m.u.go);
        break;
    case RB_MSG_HEARTBEAT:
        break;
    case RB_MSG_WEAROUT:
        rb_agent_state_wearout(a, &m.u.wearout);
        break;
    case RB_MSG_END:
        rb_agent_state_end(a, m.u.end.run_id, 0);
        break;
    case RB_MSG_ABORT:
        rb_warn("coordinator aborts run %s: %s", m.u.abort.run_id, m.u.abort.reason);
        rb_agent_state_end(a, m.u.abort.run_id, 1);
        break;
    case RB_MSG_ERROR:
        if (m.u.error.code == -ENOTCONN && !rb_agent_state_active(a)) {
            /* A new coordinator that has not met us: introduce ourselves now. */
            a->attached = 0;
            a->next_hello = 0;
            break;
        }
        rb_error("coordinator reports: %s", m.u.error.reason);
        if (a->o.once && !rb_agent_state_active(a)) {
            a->exit_code = 3;
            a->quit = 1;
        } else if (m.u.error.code == -ECANCELED && !rb_agent_state_active(a)) {
            /* The run it joined is over before it began (or over for
             * it): wait for the next coordinator, as after a lost one. */
            a->attached = 0;
            a->next_hello = rb_time_mono_ns() + S_HELLO_EVERY_NS;
        }
        break;
    default:
        rb_warn("unexpected %s from coordinator ignored", rb_msg_type_name(m.type));
        break;
    }
    rb_msg_fini(&m);
}

/* CURVE on the DEALER socket before it connects, unless it may be off
 * (ipc://, or --insecure on loopback). 0 or -errno with err set. */
static int s_secure(rb_agent_t *a, rb_err_t *err)
{
    const rb_agent_opts_t *o = &a->o;
    int given = o->key_public != NULL; /* keys in memory */
    if (given && (o->key_file || o->coordinator_key))
        return rb_err_set(err, -EINVAL,
                          "keys are given in memory: --key and --coordinator-key do not apply");
    int curve = rb_auth_check("--coordinator", o->coordinator, "--key",
                              given ? "(given)" : o->key_file, "--coordinator-key",
                              given ? "(given)" : o->coordinator_key, o->insecure, err);
    if (curve <= 0)
        return curve;
    if (!zsys_has_curve())
        return rb_err_set(err, -ENOTSUP, "this libzmq was built without CURVE security");
    zcert_t *cert = given ? rb_auth_cert_from_txt(o->key_public, o->key_secret, err)
                          : rb_auth_load_secret(o->key_file, err);
    zcert_t *server = !cert   ? NULL
                      : given ? rb_auth_cert_from_txt(o->coordinator_public, NULL, err)
                              : rb_auth_load_public(o->coordinator_key, err);
    if (server) {
        rb_auth_client_apply(a->sock, cert, server);
        rb_info("CURVE on: this agent's key %s, the coordinator's %s", zcert_public_txt(cert),
                zcert_public_txt(server));
    }
    zcert_destroy(&cert);
    zcert_destroy(&server);
    return err->code;
}

rb_agent_t *rb_agent_new(const rb_agent_opts_t *opts, rb_err_t *err)
{
    if (!opts->coordinator || !opts->name || opts->nroots == 0) {
        rb_err_set(err, -EINVAL, "--coordinator, --name and at least one --root are required");
        return NULL;
    }
    size_t nl = strlen(opts->name);
    if (nl == 0 || nl >= RB_NAME_MAX || rb_names_span(opts->name) != nl) {
        rb_err_set(err, -EINVAL, "--name '%s': use 1-%d of [A-Za-z0-9._-]", opts->name,
                   RB_NAME_MAX - 1);
        return NULL;
    }
    if (opts->reserve_pct < 0 || opts->reserve_pct > RB_AGENT_RESERVE_MAX) {
        rb_err_set(err, -EINVAL, "--reserve %d: expected 0 to %d (%%)", opts->reserve_pct,
                   RB_AGENT_RESERVE_MAX);
        return NULL;
    }
    if (opts->rack && (strlen(opts->rack) == 0 || strlen(opts->rack) >= RB_NAME_MAX)) {
        rb_err_set(err, -EINVAL, "--rack '%s': 1-%d characters", opts->rack, RB_NAME_MAX - 1);
        return NULL;
    }
    rb_agent_t *a = calloc(1, sizeof *a);
    if (!a) {
        rb_err_set(err, -ENOMEM, "out of memory");
        return NULL;
    }
    a->o = *opts;
    if (!a->o.rack)
        a->o.rack = "default";
    if (!a->o.heartbeat_ns)
        a->o.heartbeat_ns = RB_NS_PER_S;
    if (!a->o.lost_after_ns)
        a->o.lost_after_ns = 3 * a->o.heartbeat_ns;
    a->sb = rb_sandbox_new();
    if (!a->sb) {
        rb_err_set(err, -ENOMEM, "out of memory");
        rb_agent_destroy(&a);
        return NULL;
    }
    for (int i = 0; i < opts->nroots; i++) {
        if (rb_sandbox_add_root(a->sb, opts->roots[i], err) < 0) {
            rb_agent_destroy(&a);
            return NULL;
        }
    }
    for (int i = 0; i < opts->ndevices; i++) {
        if (rb_sandbox_allow_device(a->sb, opts->devices[i], err) < 0) {
            rb_agent_destroy(&a);
            return NULL;
        }
    }
    if (!opts->no_telemetry)
        s_telemetry_open(a);
    a->sock = zsock_new(ZMQ_DEALER);
    if (!a->sock) {
        rb_err_set(err, -ENOMEM, "cannot create a ZeroMQ socket");
        rb_agent_destroy(&a);
        return NULL;
    }
    zsock_set_identity(a->sock, opts->name);
    if (s_secure(a, err) < 0) {
        rb_agent_destroy(&a);
        return NULL;
    }
    zsock_set_linger(a->sock, 2000);
    zsock_set_sndhwm(a->sock, 100000);
    zsock_set_maxmsgsize(a->sock, RB_PROTO_MAX_FRAME);
    if (strncmp(opts->coordinator, "tcp://[", 7) == 0)
        zsock_set_ipv6(a->sock, 1); /* an IPv6 address, tcp://[::1]:7770 */
    if (zsock_connect(a->sock, "%s", opts->coordinator) < 0) {
        rb_err_set(err, -EINVAL, "--coordinator %s: %s", opts->coordinator, zmq_strerror(errno));
        rb_agent_destroy(&a);
        return NULL;
    }
    a->poller = zpoller_new(a->sock, NULL);
    return a;
}

int rb_agent_run(rb_agent_t *a)
{
    while (!a->quit) {
        zsock_t *which = zpoller_wait(a->poller, S_POLL_MS);
        if (which) {
            zframe_t *f = zframe_recv(a->sock);
            if (f) {
                s_handle(a, f);
                zframe_destroy(&f);
            }
            /* Drain what else is waiting before the timers. */
            while (!a->quit && (zsock_events(a->sock) & ZMQ_POLLIN)) {
                f = zframe_recv(a->sock);
                if (!f)
                    break;
                s_handle(a, f);
                zframe_destroy(&f);
            }
        }
        uint64_t now = rb_time_mono_ns();
        int stopped = __atomic_load_n(&a->stop, __ATOMIC_ACQUIRE);
        if (s_signalled || stopped) {
            if (rb_agent_state_active(a))
                rb_agent_state_abandon(a, stopped ? "stopped" : "interrupted by a signal");
            else
                a->exit_code = 0;
            break;
        }
        rb_agent_state_tick(a, now);
        if (a->attached && now - a->last_heard > a->o.lost_after_ns) {
            a->attached = 0;
            if (rb_agent_state_active(a)) {
                char why[256];
                snprintf(why, sizeof why, "coordinator %s silent for %.1f s", a->o.coordinator,
                         (double)(now - a->last_heard) / 1e9);
                rb_agent_state_abandon(a, why);
            } else if (a->o.once) {
                a->exit_code = 3;
                a->quit = 1;
            }
        }
        if (!a->attached && now >= a->next_hello) {
            s_send_hello(a);
            a->next_hello = now + S_HELLO_EVERY_NS;
        }
        if (a->attached && now >= a->next_heartbeat) {
            rb_msg_t hb = {.type = RB_MSG_HEARTBEAT};
            hb.u.heartbeat.t_ns = now;
            rb_agent_send(a, &hb);
            a->next_heartbeat = now + a->o.heartbeat_ns;
        }
    }
    return a->exit_code;
}

void rb_agent_stop(rb_agent_t *a)
{
    __atomic_store_n(&a->stop, 1, __ATOMIC_RELEASE);
}

void rb_agent_catch_signals(void)
{
    rb_signals_catch(s_on_signal);
}

void rb_agent_destroy(rb_agent_t **p)
{
    if (!p || !*p)
        return;
    rb_agent_t *a = *p;
    rb_agent_state_close(a);
    zpoller_destroy(&a->poller);
    zsock_destroy(&a->sock);
    rb_sandbox_destroy(&a->sb);
    rb_telemetry_destroy(&a->tel);
    free(a->snap);
    free(a);
    *p = NULL;
}
