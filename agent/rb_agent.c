/* The agent's connection: one DEALER socket to the coordinator (CURVE
 * unless it may be off), HELLO until a coordinator answers, heartbeats,
 * and a coordinator that falls silent; each message goes to the run's state
 * machine (rb_agent_state.c). A failed handshake (a refused key, a wrong
 * coordinator key) is explained from the socket's monitor, and the socket is
 * made anew after a short wait, as ZeroMQ does not connect again by itself.
 * All on the main thread; IO happens in worker threads. */
#include <czmq.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "rb_agent.h"
#include "rb_agent_int.h"
#include "rb_auth.h"
#include "rb_cleanup.h"
#include "rb_devid.h"
#include "rb_fs.h"
#include "rb_log.h"
#include "rb_proto.h"
#include "rb_sandbox.h"
#include "rb_signal.h"
#include "rb_telemetry.h"
#include "rb_time.h"
#include "rb_names.h"

#define S_HELLO_EVERY_NS (1 * RB_NS_PER_S)
#define S_POLL_MS        10
#define S_RETRY_MIN_NS   (250 * RB_NS_PER_MS) /* first wait before a new socket */
#define S_RETRY_MAX_NS   (4 * RB_NS_PER_S)    /* the wait doubles up to this */
#define S_NOTE_EVERY_NS  (600 * RB_NS_PER_S)  /* a failure that goes on is counted this often */

static volatile sig_atomic_t s_signalled;
static volatile sig_atomic_t s_restart; /* SIGHUP: leave between runs, to be started again */

static void s_on_signal(int sig)
{
    (void)sig;
    s_signalled = 1;
}

static void s_on_hup(int sig)
{
    (void)sig;
    s_restart = 1;
}

int rb_agent_send(rb_agent_t *a, const rb_msg_t *m)
{
    rb_err_t err;
    void *buf = NULL;
    size_t len = 0;
    rb_err_clear(&err);
    int rc = rb_msg_encode(m, &buf, &len, &err);
    a->encode_error[0] = '\0';
    if (rc < 0) {
        rb_error("cannot encode %s: %s", rb_msg_type_name(m->type), err.msg);
        snprintf(a->encode_error, sizeof a->encode_error, "cannot encode %s: %s",
                 rb_msg_type_name(m->type), err.msg);
        return rc;
    }
    if (!a->sock) { /* between two sockets after a failed handshake */
        free(buf);
        rb_debug("%s to %s not sent: not connected", rb_msg_type_name(m->type), a->o.coordinator);
        return -ENOTCONN;
    }
    /* Never blocking: a send that would block has no connection to go to
     * (ZeroMQ dropped it after a failed handshake) or a full queue. */
    zframe_t *f = zframe_new(buf, len);
    free(buf);
    if (!f || zframe_send(&f, a->sock, ZFRAME_DONTWAIT) < 0) {
        int e = f ? zmq_errno() : ENOMEM;
        zframe_destroy(&f);
        if (e == EAGAIN) {
            if (!a->failures)
                rb_warn("cannot send %s to %s: no connection to it; connecting again",
                        rb_msg_type_name(m->type), a->o.coordinator);
            a->reopen = 1;
            return -ENOTCONN;
        }
        rb_warn("cannot send %s to %s: %s", rb_msg_type_name(m->type), a->o.coordinator,
                strerror(e));
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

uint64_t rb_agent_meminfo(const char *key)
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

/* The first "model name" of /proc/cpuinfo (arm: "Hardware" or "Model"), or "". */
static void s_cpu_model(char *out, size_t len)
{
    static const char *const keys[] = {"model name", "Model", "Hardware", "cpu model"};
    FILE *f = fopen("/proc/cpuinfo", "re");
    char line[512];
    out[0] = 0;
    for (size_t k = 0; f && k < sizeof keys / sizeof *keys && !out[0]; k++) {
        rewind(f);
        size_t kl = strlen(keys[k]);
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, keys[k], kl) != 0)
                continue;
            char *colon = line + kl + strspn(line + kl, " \t");
            if (*colon != ':')
                continue; /* "model" of "model name", or another key */
            char *v = colon + 1;
            v += strspn(v, " \t");
            v[strcspn(v, "\n")] = 0;
            snprintf(out, len, "%s", v);
            break;
        }
    }
    if (f)
        fclose(f);
}

/* A line of sysfs file dir/name/leaf into out ("" when it cannot be read). */
static void s_sys_line(const char *dir, const char *name, const char *leaf, char *out, size_t len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s/%s", dir, name, leaf);
    FILE *f = fopen(path, "re");
    out[0] = 0;
    if (f && fgets(out, (int)len, f))
        out[strcspn(out, "\n")] = 0;
    else
        out[0] = 0;
    if (f)
        fclose(f);
}

/* The host's network interfaces but lo: name, link speed, address. */
static void s_nics(rb_msg_hello_t *h)
{
    const char *dir = "/sys/class/net";
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) && h->nnics < RB_TELEM_NICS) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, "lo") ||
            strlen(e->d_name) >= RB_TELEM_NAME_MAX)
            continue;
        rb_nic_info_t *n = &h->nics[h->nnics++];
        char speed[32];
        snprintf(n->name, sizeof n->name, "%s", e->d_name);
        s_sys_line(dir, e->d_name, "speed", speed, sizeof speed);
        long v = speed[0] ? strtol(speed, NULL, 10) : 0;
        n->speed_mbps = v > 0 && v < (long)UINT32_MAX ? (uint32_t)v : 0;
        s_sys_line(dir, e->d_name, "address", n->mac, sizeof n->mac);
    }
    if (d)
        closedir(d);
}

/* A root's mount (type, source, options) and, on a local block device, its disk. */
static void s_root_mount(rb_root_info_t *r)
{
    if (rb_fs_mount_opts(r->path, r->fs_type, sizeof r->fs_type, r->source, sizeof r->source,
                         r->options, sizeof r->options) < 0 ||
        strncmp(r->source, "/dev/", 5) != 0)
        return;
    rb_dev_id_t id;
    if (rb_devid_read(r->source, &id) == 0) {
        snprintf(r->dev_model, sizeof r->dev_model, "%s", id.model);
        snprintf(r->dev_serial, sizeof r->dev_serial, "%s", id.serial);
        r->dev_rotational = id.rotational;
    }
}

/* The host's block devices, read once: probing 48 disks every second until a
 * coordinator answers would be waste. */
static void s_inventory(rb_agent_t *a)
{
    if (!a->inv && (a->inv = calloc(RB_MAX_DEVS, sizeof *a->inv)))
        a->ninv = rb_devid_inventory(rb_sandbox_allowed(a->sb), a->o.sys_root, a->inv, RB_MAX_DEVS,
                                     &a->inv_seen);
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
    snprintf(h->build, sizeof h->build, "%s", rb_build_id());
    h->fingerprint = rb_proto_fingerprint(rb_proto_speak());
    h->pid = (uint32_t)getpid();
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    h->cores = cores > 0 ? (uint32_t)cores : 1;
    h->ram_bytes = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    h->cache_bytes = rb_agent_meminfo("Cached:");
    for (uint32_t i = 0; i < rb_sandbox_nroots(a->sb) && i < RB_MAX_ROOTS; i++)
        if (rb_sandbox_root_info(a->sb, i, &h->roots[h->nroots]) == 0)
            s_root_mount(&h->roots[h->nroots++]);
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(h->kernel, sizeof h->kernel, "%s", u.release);
    s_cpu_model(h->cpu_model, sizeof h->cpu_model);
    s_nics(h);
    s_inventory(a);
    h->devs = a->inv;
    h->ndevs = a->ninv;
    h->ndevs_seen = a->inv_seen > a->ninv ? a->inv_seen : 0;
    if (rb_agent_send(a, &m) == 0)
        a->said_hello = 1;
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
    if (!a->tel) {
        rb_warn("no host telemetry: %s", a->snap ? err.msg : "out of memory");
        return;
    }
    /* and the disks it may test, which no root is on */
    s_inventory(a);
    for (uint32_t i = 0; i < a->ninv; i++)
        if (a->inv[i].access != RB_DEV_NONE &&
            rb_telemetry_add_device(a->tel, a->inv[i].name, &err) < 0)
            rb_warn("no telemetry of %s: %s", a->inv[i].path, err.msg);
}

/* Logs what is wrong with the coordinator's frames once per reason, then
 * counts it (said every S_NOTE_EVERY_NS while it goes on); 1 when it was
 * logged now. */
static int s_bad_note(rb_agent_t *a, uint64_t now, const char *what, const char *why)
{
    if (strcmp(a->bad_last, why) == 0) {
        a->bad_repeats++;
        if (now >= a->bad_note_at) {
            rb_warn("the same from coordinator %s %u more time%s: %s", a->o.coordinator,
                    a->bad_repeats, a->bad_repeats == 1 ? "" : "s", why);
            a->bad_repeats = 0;
            a->bad_note_at = now + S_NOTE_EVERY_NS;
        }
        return 0;
    }
    if (a->bad_repeats)
        rb_warn("the same from coordinator %s %u more time%s: %s", a->o.coordinator, a->bad_repeats,
                a->bad_repeats == 1 ? "" : "s", a->bad_last);
    rb_error("%s %s: %s", what, a->o.coordinator, why);
    snprintf(a->bad_last, sizeof a->bad_last, "%s", why);
    a->bad_repeats = 0;
    a->bad_note_at = now + S_NOTE_EVERY_NS;
    return 1;
}

/* Refused for its version (or its schema): no HELLO for a while, the wait
 * doubling up to S_RETRY_MAX_NS, as after a refused key. */
static void s_hello_later(rb_agent_t *a, uint64_t now)
{
    a->hello_retry_ns = !a->hello_retry_ns                       ? S_RETRY_MIN_NS
                        : a->hello_retry_ns * 2 > S_RETRY_MAX_NS ? S_RETRY_MAX_NS
                                                                 : a->hello_retry_ns * 2;
    a->attached = 0;
    a->next_hello = now + a->hello_retry_ns;
    if (a->o.once && !rb_agent_state_active(a)) {
        a->exit_code = 3;
        a->quit = 1;
    }
}

/* A frame that does not decode: an ERROR is never answered (two peers that
 * cannot read each other would trade them for as long as both live); any
 * other is answered once per reason. One of a protocol this agent does not
 * speak holds its HELLO back. */
static void s_bad_frame(rb_agent_t *a, const rb_msg_t *m, int rc, const char *why)
{
    uint64_t now = rb_time_mono_ns();
    const char *what = "bad message from coordinator";
    if (rc == -EPROTO)
        what = m->version > rb_proto_speak()
                   ? "this agent is older than the protocols coordinator speaks (upgrade the agent)"
                   : "coordinator is older than this agent's protocols (upgrade the coordinator)";
    if (s_bad_note(a, now, what, why) && m->type != RB_MSG_ERROR)
        rb_agent_send_reason(a, RB_MSG_ERROR, rc, why);
    if (rc == -EPROTO && !rb_agent_state_active(a))
        s_hello_later(a, now);
}

/* How long the coordinator may be silent: --lost-after, or 3 of its
 * HEARTBEAT periods when it said it beats less often (a coordinator of a
 * large fleet does during a phase). */
static uint64_t s_lost_after(const rb_agent_t *a)
{
    uint64_t beats = 3 * a->coord_beat;
    return beats > a->o.lost_after_ns ? beats : a->o.lost_after_ns;
}

static void s_handle(rb_agent_t *a, zframe_t *f)
{
    rb_msg_t m;
    rb_err_t err;
    rb_err_clear(&err);
    int rc = rb_msg_decode(zframe_data(f), zframe_size(f), &m, &err);
    if (rc < 0) {
        s_bad_frame(a, &m, rc, err.msg);
        return;
    }
    if (!a->said_hello) {
        /* The coordinator's words to an earlier process of this name (its
         * HEARTBEATs, before it has this one's HELLO): taking them for an
         * answer, this process never said HELLO and passed for that one. */
        rb_debug("%s from %s before this agent's HELLO: not for it", rb_msg_type_name(m.type),
                 a->o.coordinator);
        rb_msg_fini(&m);
        return;
    }
    a->last_heard = rb_time_mono_ns();
    if (!a->attached)
        a->coord_beat = 0; /* a coordinator anew says its period anew */
    a->attached = 1;
    a->hello_wait_ns = 0;
    if (m.type != RB_MSG_ERROR)
        a->hello_retry_ns = 0;
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
        a->coord_beat = m.u.heartbeat.period_ns;
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
        if (m.u.error.code == -EPROTO && !rb_agent_state_active(a)) {
            /* its version, or its schema, refused: said once, then counted */
            s_bad_note(a, rb_time_mono_ns(), "refused by coordinator", m.u.error.reason);
            s_hello_later(a, rb_time_mono_ns());
            break;
        }
        /* a run that did not start (another node, the join) ends a healthy
         * agent's part cleanly: nothing of its own failed */
        int unstarted = m.u.error.code == -ECANCELED && !rb_agent_state_active(a) &&
                        strstr(m.u.error.reason, " did not start: ");
        if (unstarted)
            rb_info("coordinator reports: %s", m.u.error.reason);
        else
            rb_error("coordinator reports: %s", m.u.error.reason);
        if (a->o.once && !rb_agent_state_active(a)) {
            a->exit_code = unstarted ? 0 : 3;
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

/* The keys for CURVE, unless it may be off (ipc://, or --insecure on
 * loopback): into a->cert and a->server. 0 or -errno with err set. */
static int s_load_keys(rb_agent_t *a, rb_err_t *err)
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
    a->cert = given ? rb_auth_cert_from_txt(o->key_public, o->key_secret, err)
                    : rb_auth_load_secret(o->key_file, err);
    a->server = !a->cert ? NULL
                : given  ? rb_auth_cert_from_txt(o->coordinator_public, NULL, err)
                         : rb_auth_load_public(o->coordinator_key, err);
    if (a->server)
        rb_info("CURVE on: this agent's key %s, the coordinator's %s", zcert_public_txt(a->cert),
                zcert_public_txt(a->server));
    return err->code;
}

/* Closes the socket (and its monitor): at once, dropping what it queued
 * (drop), or leaving ZeroMQ its linger to send it. */
static void s_close(rb_agent_t *a, int drop)
{
    zpoller_destroy(&a->poller);
    rb_auth_monitor_stop(a->sock, &a->monitor);
    if (a->sock && drop)
        zsock_set_linger(a->sock, 0);
    zsock_destroy(&a->sock);
}

/* Makes the DEALER socket, with CURVE if keys were loaded, and connects it.
 * 0 or -errno with err set. */
static int s_open(rb_agent_t *a, rb_err_t *err)
{
    a->said_hello = 0;
    a->sock = zsock_new(ZMQ_DEALER);
    if (!a->sock)
        return rb_err_set(err, -ENOMEM, "cannot create a ZeroMQ socket");
    zsock_set_identity(a->sock, a->o.name);
    if (a->cert)
        rb_auth_client_apply(a->sock, a->cert, a->server);
    zsock_set_linger(a->sock, 2000);
    zsock_set_sndhwm(a->sock, 100000);
    zsock_set_maxmsgsize(a->sock, RB_PROTO_MAX_FRAME);
    if (strncmp(a->o.coordinator, "tcp://[", 7) == 0)
        zsock_set_ipv6(a->sock, 1); /* an IPv6 address, tcp://[::1]:7770 */
    rb_err_t merr;
    rb_err_clear(&merr);
    a->monitor = rb_auth_monitor_start(a->sock, &merr);
    if (!a->monitor)
        rb_warn("handshake failures will not be explained: %s", merr.msg);
    if (zsock_connect(a->sock, "%s", a->o.coordinator) < 0) {
        rb_err_set(err, -EINVAL, "--coordinator %s: %s", a->o.coordinator, zmq_strerror(errno));
        s_close(a, 1);
        return err->code;
    }
    a->poller = zpoller_new(a->sock, a->monitor, NULL);
    if (!a->poller) {
        s_close(a, 1);
        return rb_err_set(err, -ENOMEM, "out of memory");
    }
    a->next_hello = 0;
    return 0;
}

/* Says how often each failure logged came again since, if it did. */
static void s_failure_count(rb_agent_t *a, uint64_t now)
{
    for (int o = 0; o < RB_AUTH_OUTCOMES; o++) {
        uint32_t n = a->failure_repeats[o];
        if (n)
            rb_warn("handshake with %s failed %u more time%s the same way (%s)", a->o.coordinator,
                    n, n == 1 ? "" : "s", rb_auth_outcome_name((rb_auth_outcome_t)o));
        a->failure_repeats[o] = 0;
    }
    a->failure_note_at = now + S_NOTE_EVERY_NS;
}

/* One line on what a failed handshake means and what to check. */
static void s_failure_explain(const rb_agent_t *a, const rb_auth_event_t *ev)
{
    const char *ep = a->o.coordinator;
    char detail[128], ckey[RB_PATH_MAX + 32];
    rb_auth_event_detail(ev, detail, sizeof detail);
    if (a->o.coordinator_key)
        snprintf(ckey, sizeof ckey, "--coordinator-key %s", a->o.coordinator_key);
    else
        snprintf(ckey, sizeof ckey, "the coordinator key given to this agent");
    switch (ev->outcome) {
    case RB_AUTH_REFUSED:
        rb_warn("coordinator %s refused this agent: its public key %s is not in the "
                "coordinator's --allow-keys; add this agent's NAME.key file (beside its --key) "
                "to that folder; trying again every few seconds",
                ep, a->cert ? zcert_public_txt(a->cert) : "(none)");
        break;
    case RB_AUTH_ZAP_FAILED:
        rb_warn("coordinator %s could not check this agent's key (%s); trying again", ep, detail);
        break;
    case RB_AUTH_CLOSED:
        rb_warn("handshake with %s failed (the coordinator closed the connection: %s): the "
                "coordinator's public key does not match %s, or the coordinator runs with "
                "another --key or without CURVE; compare their public-key lines; trying again",
                ep, detail, ckey);
        break;
    case RB_AUTH_KEY_MISMATCH:
        rb_warn("handshake with %s failed (%s: a CURVE message did not decrypt): the "
                "coordinator's public key does not match %s; trying again",
                ep, detail, ckey);
        break;
    case RB_AUTH_MECHANISM:
        if (a->cert)
            rb_warn("handshake with %s failed: this agent uses CURVE and the coordinator does "
                    "not (is it started with --insecure?); trying again",
                    ep);
        else
            rb_warn("handshake with %s failed: the coordinator uses CURVE and this agent does "
                    "not (--insecure): give it --key and --coordinator-key (docs/security.md); "
                    "trying again",
                    ep);
        break;
    default:
        rb_warn("handshake with %s failed (%s): is a rackbench coordinator of this version "
                "listening there? trying again",
                ep, detail);
        break;
    }
}

/* Reads the socket's handshake events: each kind of failure is explained
 * once, then counted, and the socket is made anew; a success ends it. */
static void s_watch(rb_agent_t *a, uint64_t now)
{
    rb_auth_event_t ev;
    while (a->monitor && rb_auth_monitor_read(a->monitor, &ev) == 1) {
        if (ev.outcome == RB_AUTH_NONE)
            continue;
        /* Without CURVE only a coordinator that wants it closes mid-handshake. */
        if (ev.outcome == RB_AUTH_CLOSED && !a->cert)
            ev.outcome = RB_AUTH_MECHANISM;
        if (ev.outcome == RB_AUTH_SUCCEEDED) {
            if (!a->attached && !a->hello_retry_ns) { /* a new connection: HELLO on it now */
                a->hello_wait_ns = 0;
                a->next_hello = now;
            }
            if (a->failures) {
                s_failure_count(a, now);
                rb_info("handshake with %s succeeded", a->o.coordinator);
            }
            a->failures = 0;
            a->retry_ns = 0;
            continue;
        }
        if (!(a->failures & (1u << ev.outcome))) {
            s_failure_explain(a, &ev);
            if (!a->failures) /* the first since a success: counted from now */
                a->failure_note_at = now + S_NOTE_EVERY_NS;
            a->failures |= 1u << ev.outcome;
        } else {
            a->failure_repeats[ev.outcome]++;
            if (now >= a->failure_note_at)
                s_failure_count(a, now);
        }
        a->reopen = 1;
    }
}

/* Closes a socket ZeroMQ gave up on, to make it anew after a wait that
 * doubles with each failure in a row, up to S_RETRY_MAX_NS. */
static void s_reopen_later(rb_agent_t *a, uint64_t now)
{
    s_close(a, 1);
    a->reopen = 0;
    a->retry_ns = !a->retry_ns                       ? S_RETRY_MIN_NS
                  : a->retry_ns * 2 > S_RETRY_MAX_NS ? S_RETRY_MAX_NS
                                                     : a->retry_ns * 2;
    a->reopen_at = now + a->retry_ns;
}

/* What an earlier agent of this name left under the roots (killed before
 * it could clean up): removed before this one joins, unless one of that name
 * still runs (it holds its run folders). */
static void s_leftovers(rb_agent_t *a)
{
    rb_cleanup_only_t mine = {.node = a->o.name};
    rb_cleanup_stats_t st;
    rb_err_t err;
    rb_err_clear(&err);
    if (!a->o.name || !a->o.nroots)
        return;
    int rc = rb_cleanup_roots(a->o.roots, a->o.nroots, &mine, NULL, &st, &err);
    if (st.folders)
        rb_info("removed what an earlier agent %s left: %llu run folders, %llu files", a->o.name,
                (unsigned long long)st.folders, (unsigned long long)st.files);
    if (rc < 0)
        rb_warn("cannot remove what an earlier agent %s left: %s", a->o.name, err.msg);
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
    a->net_port.fd = -1;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* the watch's waits */
    pthread_cond_init(&a->health_cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&a->health_mu, NULL);
    if (!a->o.rack)
        a->o.rack = "default";
    if (!a->o.heartbeat_ns)
        a->o.heartbeat_ns = RB_NS_PER_S;
    if (!a->o.lost_after_ns)
        a->o.lost_after_ns = 3 * a->o.heartbeat_ns;
    a->sb = rb_sandbox_new();
    a->space = calloc(1, sizeof *a->space);
    if (!a->sb || !a->space) {
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
    s_leftovers(a);
    rb_sandbox_set_sys_root(a->sb, opts->sys_root);
    for (int i = 0; i < opts->ndevices; i++) {
        if (rb_sandbox_allow_device(a->sb, opts->devices[i], err) < 0) {
            rb_agent_destroy(&a);
            return NULL;
        }
    }
    rb_sandbox_allow_open_writers(a->sb, opts->open_writers);
    const rb_device_allow_t *al = rb_sandbox_allowed(a->sb);
    for (uint32_t i = 0; i < al->n; i++) /* what each pattern lets a plan name, said */
        rb_info("--allow-device %s%s matches %u block device%s now", al->p[i].pattern,
                al->p[i].wipe ? ":wipe" : "", al->p[i].matched, al->p[i].matched == 1 ? "" : "s");
    if (!opts->no_telemetry)
        s_telemetry_open(a);
    if (s_load_keys(a, err) < 0 || s_open(a, err) < 0) {
        rb_agent_destroy(&a);
        return NULL;
    }
    return a;
}

int rb_agent_run(rb_agent_t *a)
{
    while (!a->quit) {
        if (a->poller)
            zpoller_wait(a->poller, S_POLL_MS);
        else
            zclock_sleep(S_POLL_MS);
        /* What is waiting, before the timers. */
        while (!a->quit && a->sock && (zsock_events(a->sock) & ZMQ_POLLIN)) {
            zframe_t *f = zframe_recv(a->sock);
            if (!f)
                break;
            s_handle(a, f);
            zframe_destroy(&f);
        }
        uint64_t now = rb_time_mono_ns();
        s_watch(a, now);
        if (a->reopen)
            s_reopen_later(a, now);
        if (!a->sock && now >= a->reopen_at) {
            rb_err_t err;
            rb_err_clear(&err);
            if (s_open(a, &err) < 0) {
                rb_error("%s", err.msg);
                s_reopen_later(a, now);
            }
        }
        int stopped = __atomic_load_n(&a->stop, __ATOMIC_ACQUIRE);
        if (s_signalled || stopped) {
            rb_info("stopping: %s", stopped ? "asked to" : "SIGTERM or SIGINT");
            if (rb_agent_state_active(a))
                rb_agent_state_abandon(a, stopped ? "stopped" : "interrupted by a signal");
            else
                a->exit_code = 0;
            break;
        }
        if (s_restart && !rb_agent_state_active(a)) {
            rb_info("leaving to be started again (SIGHUP), between runs: exit %d",
                    RB_AGENT_EXIT_RESTART);
            a->exit_code = RB_AGENT_EXIT_RESTART;
            break;
        }
        if (s_restart && !a->restart_said) {
            rb_info("SIGHUP: leaving to be started again when run %s ends", a->plan.u.plan.run_id);
            a->restart_said = 1;
        }
        rb_agent_state_tick(a, now);
        if (a->attached && now - a->last_heard > s_lost_after(a)) {
            a->attached = 0;
            if (rb_agent_state_active(a)) {
                char why[256];
                snprintf(why, sizeof why, "coordinator %s silent for %.1f s (lost after %.1f s)",
                         a->o.coordinator, (double)(now - a->last_heard) / 1e9,
                         (double)s_lost_after(a) / 1e9);
                rb_agent_state_abandon(a, why);
            } else if (a->o.once) {
                a->exit_code = 3;
                a->quit = 1;
            }
            /* A connection anew for the next HELLO: the silent one may be
             * one the coordinator no longer reads (half open, or the name
             * taken by another connection of it). */
            if (!a->quit) {
                rb_debug("coordinator %s silent for %.1f s: connecting anew", a->o.coordinator,
                         (double)(now - a->last_heard) / 1e9);
                s_close(a, 0);
                a->retry_ns = 0;
                a->reopen_at = now;
            }
        }
        if (a->sock && a->attached && !a->said_hello && !s_signalled)
            s_send_hello(a); /* a socket anew mid-run: it hears nothing before its HELLO */
        if (a->sock && !a->attached && now >= a->next_hello && !s_signalled) {
            s_send_hello(a);
            a->hello_wait_ns = rb_hello_wait_ns(a->hello_wait_ns);
            a->next_hello =
                now + (a->hello_retry_ns > a->hello_wait_ns ? a->hello_retry_ns : a->hello_wait_ns);
        }
        if (a->attached && now >= a->next_heartbeat) {
            rb_msg_t hb = {.type = RB_MSG_HEARTBEAT};
            hb.u.heartbeat.t_ns = now;
            hb.u.heartbeat.removed = rb_agent_state_removed(a); /* a clean-up's progress */
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
    struct sigaction sa = {.sa_handler = s_on_hup};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGHUP, &sa, NULL);
}

void rb_agent_destroy(rb_agent_t **p)
{
    if (!p || !*p)
        return;
    rb_agent_t *a = *p;
    rb_agent_state_close(a);
    if (a->sock)
        s_watch(a, rb_time_mono_ns());
    s_failure_count(a, rb_time_mono_ns());
    zpoller_destroy(&a->poller);
    rb_auth_monitor_stop(a->sock, &a->monitor);
    zsock_destroy(&a->sock);
    zcert_destroy(&a->cert);
    zcert_destroy(&a->server);
    rb_sandbox_destroy(&a->sb);
    rb_telemetry_destroy(&a->tel);
    free(a->inv);
    rb_agent_health_unwatch(a);
    free(a->health);
    pthread_cond_destroy(&a->health_cv);
    pthread_mutex_destroy(&a->health_mu);
    free(a->snap);
    free(a->space);
    free(a);
    *p = NULL;
}
