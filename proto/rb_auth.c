/* CURVE keys, the allowed-keys store and the ZAP handler that checks peers
 * against it. czmq's zauth would do the checking, but it does not tell its
 * owner whom it turned away; this handler answers ZAP requests (RFC 27) the
 * same way from a zcertstore and keeps the refused keys for the run's
 * message. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rb_auth.h"
#include "rb_fs.h"
#include "rb_log.h"
#include "rb_names.h"

#define S_ZAP_ENDPOINT "inproc://zeromq.zap.01"
#define S_MAX_REFUSED  16  /* keys kept for the message; the count goes on */
#define S_PATH_MAX     240 /* zcert_load() builds path + "_secret" in 256 bytes */
#define S_NO_SECRET    "0000000000000000000000000000000000000000"

rb_auth_ep_kind_t rb_auth_ep_kind(const char *ep)
{
    if (!strncmp(ep, "ipc://", 6))
        return RB_EP_IPC;
    if (!strncmp(ep, "inproc://", 9))
        return RB_EP_INPROC;
    if (strncmp(ep, "tcp://", 6) != 0)
        return RB_EP_NETWORK;
    const char *h = ep + 6;
    char host[256];
    if (strchr(h, ';')) /* a source address: judged by where it goes, kept simple */
        return RB_EP_NETWORK;
    size_t hl;
    if (h[0] == '[') {
        const char *close = strchr(h, ']');
        if (!close || close[1] != ':')
            return RB_EP_NETWORK;
        h++;
        hl = (size_t)(close - h);
    } else {
        const char *colon = strrchr(h, ':');
        if (!colon)
            return RB_EP_NETWORK;
        hl = (size_t)(colon - h);
    }
    if (hl == 0 || hl >= sizeof host)
        return RB_EP_NETWORK;
    memcpy(host, h, hl);
    host[hl] = '\0';
    if (!strcasecmp(host, "localhost") || !strcasecmp(host, "localhost."))
        return RB_EP_LOOPBACK;
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, host, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127 ? RB_EP_LOOPBACK : RB_EP_NETWORK;
    if (inet_pton(AF_INET6, host, &a6) == 1) {
        if (IN6_IS_ADDR_LOOPBACK(&a6))
            return RB_EP_LOOPBACK;
        if (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127)
            return RB_EP_LOOPBACK;
    }
    return RB_EP_NETWORK;
}

int rb_auth_ep_is_local(const char *ep)
{
    return rb_auth_ep_kind(ep) != RB_EP_NETWORK;
}

int rb_auth_check(const char *ep_opt, const char *ep, const char *key_opt, const char *key,
                  const char *peer_opt, const char *peer, int insecure, rb_err_t *err)
{
    if (insecure) {
        if (key || peer)
            return rb_err_set(err, -EINVAL, "--insecure turns CURVE off; it cannot go with %s",
                              key ? key_opt : peer_opt);
        if (!rb_auth_ep_is_local(ep))
            return rb_err_set(err, -EINVAL,
                              "--insecure is allowed only on loopback (127.0.0.0/8, ::1, "
                              "localhost) or ipc:// endpoints, and %s %s can be reached from "
                              "other hosts, where anyone could read or forge the messages; give "
                              "it CURVE keys instead (rackbench keygen; see docs/security.md)",
                              ep_opt, ep);
        return 0;
    }
    if (key && !peer)
        return rb_err_set(err, -EINVAL, "%s is given but %s is missing", key_opt, peer_opt);
    if (peer && !key)
        return rb_err_set(err, -EINVAL, "%s is given but %s is missing", peer_opt, key_opt);
    if (key)
        return 1;
    if (rb_auth_ep_kind(ep) == RB_EP_IPC || rb_auth_ep_kind(ep) == RB_EP_INPROC)
        return 0;
    return rb_err_set(err, -EINVAL,
                      "%s %s is not ipc://, so CURVE is on (the default), and %s and %s are "
                      "missing (make keys with rackbench keygen DIR; see docs/security.md); "
                      "--insecure turns CURVE off on loopback and ipc:// endpoints only",
                      ep_opt, ep, key_opt, peer_opt);
}

int rb_auth_save(zcert_t *cert, const char *path, int secret, rb_err_t *err)
{
    mode_t mode = secret ? 0600 : 0644;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0)
        return rb_err_set(err, -errno, "%s: %s%s", path, strerror(errno),
                          errno == EEXIST ? "; not overwriting it" : "");
    close(fd);
    if (fchmodat(AT_FDCWD, path, mode, 0) < 0 ||
        (secret ? zcert_save_secret(cert, path) : zcert_save_public(cert, path)) < 0) {
        int e = errno ? -errno : -EIO;
        unlink(path);
        return rb_err_set(err, e, "%s: cannot write: %s", path, strerror(-e));
    }
    struct stat st;
    if (stat(path, &st) < 0 || (st.st_mode & 07777) != mode) {
        unlink(path);
        return rb_err_set(err, -EPERM, "%s: could not give it mode %04o", path, (unsigned)mode);
    }
    return 0;
}

int rb_auth_keygen(const char *dir, const char *name, char *public_txt, rb_err_t *err)
{
    char pub[PATH_MAX], sec[PATH_MAX];
    size_t nl = strlen(name);
    if (nl == 0 || nl > 63 || name[0] == '.' || rb_names_span(name) != nl)
        return rb_err_set(err, -EINVAL,
                          "key name '%s': use 1-63 of [A-Za-z0-9._-], not starting with '.' "
                          "(--name NAME)",
                          name);
    snprintf(pub, sizeof pub, "%s/%s.key", dir, name);
    snprintf(sec, sizeof sec, "%s/%s.key_secret", dir, name);
    if (strlen(sec) > S_PATH_MAX)
        return rb_err_set(err, -ENAMETOOLONG, "%s: path too long (at most %d bytes)", sec,
                          S_PATH_MAX);
    /* The folders above DIR as mkdir -p makes them; DIR itself 0700. */
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", dir);
    size_t pl = strlen(parent);
    while (pl > 1 && parent[pl - 1] == '/')
        parent[--pl] = '\0';
    char *slash = strrchr(parent, '/');
    int rc = 0;
    if (slash && slash != parent) {
        *slash = '\0';
        rc = rb_fs_mkdirs(parent);
    }
    if (rc < 0)
        return rb_err_set(err, rc, "%s: %s", parent, strerror(-rc));
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return rb_err_set(err, -errno, "%s: %s", dir, strerror(errno));
    struct stat st;
    const char *exists = lstat(pub, &st) == 0 ? pub : lstat(sec, &st) == 0 ? sec : NULL;
    if (exists)
        return rb_err_set(err, -EEXIST,
                          "%s already exists; not overwriting a key (remove it, or "
                          "choose another --name)",
                          exists);
    zcert_t *cert = zcert_new();
    if (!cert)
        return rb_err_set(err, -ENOMEM, "cannot make a key pair");
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    zcert_set_meta(cert, "name", "%s", name);
    zcert_set_meta(cert, "host", "%s", host);
    zcert_set_meta(cert, "created-by", "rackbench %s", RB_VERSION);
    rc = rb_auth_save(cert, sec, 1, err);
    if (rc == 0 && (rc = rb_auth_save(cert, pub, 0, err)) < 0)
        unlink(sec);
    if (rc == 0 && public_txt)
        snprintf(public_txt, 41, "%s", zcert_public_txt(cert));
    zcert_destroy(&cert);
    return rc;
}

static zcert_t *s_load(const char *path, rb_err_t *err)
{
    if (strlen(path) > S_PATH_MAX) {
        rb_err_set(err, -ENAMETOOLONG, "%s: path too long (at most %d bytes)", path, S_PATH_MAX);
        return NULL;
    }
    struct stat st;
    if (stat(path, &st) < 0) {
        rb_err_set(err, -errno, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        rb_err_set(err, -EINVAL, "%s: not a key file", path);
        return NULL;
    }
    zcert_t *cert = zcert_load(path);
    if (!cert)
        rb_err_set(err, -EINVAL,
                   "%s: not a key file (expected czmq's certificate format, as "
                   "rackbench keygen writes)",
                   path);
    return cert;
}

zcert_t *rb_auth_load_secret(const char *path, rb_err_t *err)
{
    char sec[PATH_MAX];
    struct stat st;
    size_t pl = strlen(path);
    snprintf(sec, sizeof sec, "%s_secret", path);
    if (pl >= 7 && !strcmp(path + pl - 7, "_secret"))
        snprintf(sec, sizeof sec, "%s", path);
    else if (stat(sec, &st) < 0)
        snprintf(sec, sizeof sec, "%s", path);
    zcert_t *cert = s_load(sec, err);
    if (!cert)
        return NULL;
    if (!strcmp(zcert_secret_txt(cert), S_NO_SECRET)) {
        rb_err_set(err, -EINVAL, "%s holds no secret key (give the NAME.key_secret file)", sec);
        zcert_destroy(&cert);
        return NULL;
    }
    if (stat(sec, &st) == 0 && (st.st_mode & 077)) {
        rb_err_set(err, -EPERM, "%s can be read by others (mode %04o): chmod 600 %s", sec,
                   (unsigned)(st.st_mode & 07777), sec);
        zcert_destroy(&cert);
        return NULL;
    }
    return cert;
}

zcert_t *rb_auth_load_public(const char *path, rb_err_t *err)
{
    return s_load(path, err);
}

/* Decodes one Z85 key of 32 bytes; 0 or -EINVAL. */
static int s_z85_key(const char *txt, uint8_t key[32])
{
    if (!txt || strlen(txt) != 40 || !zmq_z85_decode(key, txt))
        return -EINVAL;
    return 0;
}

zcert_t *rb_auth_cert_from_txt(const char *public_txt, const char *secret_txt, rb_err_t *err)
{
    uint8_t pub[32], sec[32] = {0};
    if (s_z85_key(public_txt, pub) < 0) {
        rb_err_set(err, -EINVAL, "public key '%.48s' is not a CURVE key (40 characters of Z85)",
                   public_txt ? public_txt : "");
        return NULL;
    }
    if (secret_txt && s_z85_key(secret_txt, sec) < 0) {
        rb_err_set(err, -EINVAL, "the secret key of %s is not a CURVE key (40 characters of Z85)",
                   public_txt);
        return NULL;
    }
    zcert_t *cert = zcert_new_from(pub, sec);
    if (!cert)
        rb_err_set(err, -ENOMEM, "out of memory");
    return cert;
}

zcertstore_t *rb_auth_load_store(const char *dir, uint32_t *count, rb_err_t *err)
{
    *count = 0;
    DIR *d = opendir(dir);
    if (!d) {
        rb_err_set(err, -errno, "%s: %s", dir, strerror(errno));
        return NULL;
    }
    zcertstore_t *store = zcertstore_new(NULL);
    struct dirent *de;
    char path[PATH_MAX];
    while (store && (de = readdir(d))) {
        size_t nl = strlen(de->d_name);
        struct stat st;
        if (de->d_name[0] == '.' || (nl >= 7 && !strcmp(de->d_name + nl - 7, "_secret")))
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (strlen(path) > S_PATH_MAX || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
            continue;
        zcert_t *cert = zcert_load(path);
        if (!cert) {
            rb_warn("%s: not a key file; ignored", path);
            continue;
        }
        if (zcertstore_lookup(store, zcert_public_txt(cert))) {
            zcert_destroy(&cert);
            continue;
        }
        zcertstore_insert(store, &cert);
        (*count)++;
    }
    closedir(d);
    if (!store) {
        rb_err_set(err, -ENOMEM, "out of memory");
        return NULL;
    }
    if (*count == 0) {
        rb_err_set(err, -ENOENT, "%s holds no public key (NAME.key files of the agents)", dir);
        zcertstore_destroy(&store);
    }
    return store;
}

void rb_auth_client_apply(zsock_t *sock, zcert_t *cert, zcert_t *server)
{
    zcert_apply(cert, sock);
    zsock_set_curve_serverkey(sock, zcert_public_txt(server));
}

typedef struct s_refused {
    char key[41];     /* Z85 public key */
    char address[64]; /* where it came from, first time */
} s_refused_t;

struct rb_auth_server {
    zactor_t *actor;      /* the ZAP handler */
    zcertstore_t *store;  /* allowed keys; used by the actor only */
    int bound;            /* the actor bound the ZAP endpoint */
    pthread_mutex_t lock; /* guards what follows */
    s_refused_t refused[S_MAX_REFUSED];
    uint32_t nrefused; /* distinct keys refused (may exceed S_MAX_REFUSED) */
};

/* Remembers a refused key; 1 if it is new. */
static int s_note_refused(rb_auth_server_t *s, const char *key, const char *address)
{
    int fresh = 1;
    pthread_mutex_lock(&s->lock);
    uint32_t kept = s->nrefused < S_MAX_REFUSED ? s->nrefused : S_MAX_REFUSED;
    for (uint32_t i = 0; i < kept && fresh; i++)
        fresh = strcmp(s->refused[i].key, key) != 0;
    if (fresh) {
        if (s->nrefused < S_MAX_REFUSED) {
            snprintf(s->refused[s->nrefused].key, sizeof s->refused[0].key, "%s", key);
            snprintf(s->refused[s->nrefused].address, sizeof s->refused[0].address, "%s", address);
        }
        s->nrefused++;
    }
    pthread_mutex_unlock(&s->lock);
    return fresh;
}

/* Answers one ZAP request: 200 for a CURVE key in the store, 400 otherwise. */
static void s_zap_answer(rb_auth_server_t *s, zsock_t *handler)
{
    zmsg_t *req = zmsg_recv(handler);
    if (!req)
        return;
    zframe_t *version = zmsg_pop(req), *request_id = zmsg_pop(req);
    zframe_t *domain = zmsg_pop(req), *address = zmsg_pop(req), *identity = zmsg_pop(req);
    zframe_t *mechanism = zmsg_pop(req), *key = zmsg_pop(req);
    char addr[64] = "?", txt[41] = "";
    const char *status = "400", *text = "unknown key", *user = "";
    if (address && zframe_size(address) < sizeof addr) {
        memcpy(addr, zframe_data(address), zframe_size(address));
        addr[zframe_size(address)] = '\0';
    }
    if (!version || !zframe_streq(version, "1.0")) {
        status = "500";
        text = "bad ZAP request";
    } else if (!mechanism || !zframe_streq(mechanism, "CURVE") || !key || zframe_size(key) != 32) {
        text = "CURVE required";
        rb_warn("refused a peer at %s: it does not use CURVE", addr);
    } else {
        zmq_z85_encode(txt, zframe_data(key), 32);
        zcert_t *cert = zcertstore_lookup(s->store, txt);
        if (cert) {
            status = "200";
            text = "OK";
            user = zcert_meta(cert, "name") ? zcert_meta(cert, "name") : "";
            rb_debug("accepted key %s (%s) from %s", txt, user, addr);
        } else if (s_note_refused(s, txt, addr)) {
            rb_warn("refused a peer at %s: its public key %s is not an allowed key", addr, txt);
        }
    }
    zmsg_t *rep = zmsg_new();
    zmsg_addstr(rep, "1.0");
    if (request_id)
        zmsg_append(rep, &request_id);
    else
        zmsg_addstr(rep, "");
    zmsg_addstr(rep, status);
    zmsg_addstr(rep, text);
    zmsg_addstr(rep, user);
    zmsg_addmem(rep, NULL, 0);
    zmsg_send(&rep, handler);
    zframe_destroy(&version);
    zframe_destroy(&request_id);
    zframe_destroy(&domain);
    zframe_destroy(&address);
    zframe_destroy(&identity);
    zframe_destroy(&mechanism);
    zframe_destroy(&key);
    zmsg_destroy(&req);
}

static void s_zap_actor(zsock_t *pipe, void *args)
{
    rb_auth_server_t *s = args;
    zsock_t *handler = zsock_new(ZMQ_REP);
    s->bound = handler && zsock_bind(handler, S_ZAP_ENDPOINT) == 0;
    zsock_signal(pipe, 0);
    zpoller_t *poller = s->bound ? zpoller_new(pipe, handler, NULL) : NULL;
    if (poller) /* it ends when told ($TERM), not when czmq saw a signal */
        zpoller_set_nonstop(poller, true);
    while (poller) {
        zsock_t *which = zpoller_wait(poller, -1);
        if (which == handler) {
            s_zap_answer(s, handler);
        } else if (which == pipe) {
            zmsg_t *m = zmsg_recv(pipe);
            char *cmd = m ? zmsg_popstr(m) : NULL;
            int term = !m || (cmd && !strcmp(cmd, "$TERM"));
            free(cmd);
            zmsg_destroy(&m);
            if (term)
                break;
        } else if (zmq_errno() == ETERM) {
            break;
        }
    }
    zpoller_destroy(&poller);
    /* the endpoint let go now: closing a socket frees its endpoints later,
     * in ZeroMQ's reaper, and a server started right after found it taken */
    if (s->bound)
        zsock_unbind(handler, "%s", S_ZAP_ENDPOINT);
    zsock_destroy(&handler);
}

/* Holds SIGINT and SIGTERM pending in this thread (the old mask into *old)
 * while the ZAP actor starts or stops: zactor_new and zactor_destroy each
 * wait for the actor's signal, and a SIGINT or SIGTERM would cut that wait
 * short (EINTR). Then s->bound was read before the actor set it ("cannot
 * start the key check" for a run stopped as it started), or the actor was
 * taken for gone while it still held the ZAP endpoint. The program's
 * handler runs once the mask is put back. */
static void s_hold_signals(sigset_t *old)
{
    sigset_t hold;
    sigemptyset(&hold);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &hold, old);
}

rb_auth_server_t *rb_auth_server_new(zsock_t *sock, zcert_t *cert, zcertstore_t **store_p,
                                     rb_err_t *err)
{
    if (!zsys_has_curve()) {
        rb_err_set(err, -ENOTSUP, "this libzmq was built without CURVE security");
        zcertstore_destroy(store_p);
        return NULL;
    }
    rb_auth_server_t *s = calloc(1, sizeof *s);
    if (!s) {
        rb_err_set(err, -ENOMEM, "out of memory");
        zcertstore_destroy(store_p);
        return NULL;
    }
    pthread_mutex_init(&s->lock, NULL);
    s->store = *store_p;
    *store_p = NULL;
    sigset_t old;
    s_hold_signals(&old);
    s->actor = zactor_new(s_zap_actor, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!s->actor || !s->bound) {
        rb_err_set(err, -EADDRINUSE, "cannot start the key check (ZAP handler at %s)",
                   S_ZAP_ENDPOINT);
        rb_auth_server_destroy(&s);
        return NULL;
    }
    zcert_apply(cert, sock);
    zsock_set_curve_server(sock, 1);
    zsock_set_zap_domain(sock, "rackbench");
    return s;
}

uint32_t rb_auth_server_refused(rb_auth_server_t *s, char *desc, size_t len)
{
    if (!s) {
        if (desc && len)
            desc[0] = '\0';
        return 0;
    }
    pthread_mutex_lock(&s->lock);
    uint32_t n = s->nrefused;
    if (desc && len) {
        desc[0] = '\0';
        for (uint32_t i = 0; i < n && i < S_MAX_REFUSED; i++) {
            size_t u = strlen(desc);
            snprintf(desc + u, len - u, "%s%s from %s", i ? ", " : "", s->refused[i].key,
                     s->refused[i].address);
        }
    }
    pthread_mutex_unlock(&s->lock);
    return n;
}

void rb_auth_server_destroy(rb_auth_server_t **p)
{
    if (!p || !*p)
        return;
    rb_auth_server_t *s = *p;
    sigset_t old;
    s_hold_signals(&old);
    zactor_destroy(&s->actor);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    zcertstore_destroy(&s->store);
    pthread_mutex_destroy(&s->lock);
    free(s);
    *p = NULL;
}

/* Handshake events: ZeroMQ reports a CURVE failure only to a socket
 * monitor, and does not reconnect after one (a refused key, a mechanism
 * mismatch); the agent and the coordinator read these events to say what
 * failed and, on the agent, to connect again. */
#define S_MONITOR_EVENTS                                                                           \
    (ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |                        \
     ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL | ZMQ_EVENT_HANDSHAKE_FAILED_AUTH)

const char *rb_auth_outcome_name(rb_auth_outcome_t o)
{
    switch (o) {
    case RB_AUTH_SUCCEEDED:
        return "handshake succeeded";
    case RB_AUTH_REFUSED:
        return "key refused";
    case RB_AUTH_ZAP_FAILED:
        return "key check failed";
    case RB_AUTH_KEY_MISMATCH:
        return "keys do not match";
    case RB_AUTH_MECHANISM:
        return "CURVE on one side only";
    case RB_AUTH_PROTOCOL:
        return "protocol error";
    case RB_AUTH_CLOSED:
        return "closed during the handshake";
    default:
        return "no handshake";
    }
}

const char *rb_auth_event_detail(const rb_auth_event_t *ev, char *buf, size_t len)
{
    switch (ev->outcome) {
    case RB_AUTH_REFUSED:
    case RB_AUTH_ZAP_FAILED:
        snprintf(buf, len, "ZAP status %u", ev->value);
        break;
    case RB_AUTH_KEY_MISMATCH:
    case RB_AUTH_MECHANISM:
    case RB_AUTH_PROTOCOL:
        snprintf(buf, len, "ZMTP error 0x%08x", ev->value);
        break;
    case RB_AUTH_CLOSED:
        snprintf(buf, len, "%s", ev->value ? strerror((int)ev->value) : "no detail");
        break;
    default:
        snprintf(buf, len, "event value %u", ev->value);
        break;
    }
    return buf;
}

/* A monitor of sock's events (ZMQ_EVENT_* bits), or NULL with err set. */
static zsock_t *s_monitor(zsock_t *sock, int events, rb_err_t *err)
{
    static unsigned s_count; /* monitors made by this process: their endpoints differ */
    char ep[96];
    snprintf(ep, sizeof ep, "inproc://rb-auth-monitor-%d-%u", (int)getpid(),
             __atomic_add_fetch(&s_count, 1, __ATOMIC_RELAXED));
    if (zmq_socket_monitor(zsock_resolve(sock), ep, events) < 0) {
        rb_err_set(err, -zmq_errno(), "cannot watch the socket: %s", zmq_strerror(zmq_errno()));
        return NULL;
    }
    zsock_t *mon = zsock_new(ZMQ_PAIR);
    if (!mon || zsock_connect(mon, "%s", ep) < 0) {
        rb_err_set(err, -ENOMEM, "cannot watch the socket (%s)", ep);
        zsock_destroy(&mon);
        zmq_socket_monitor(zsock_resolve(sock), NULL, 0);
        return NULL;
    }
    return mon;
}

zsock_t *rb_auth_monitor_start(zsock_t *sock, rb_err_t *err)
{
    return s_monitor(sock, S_MONITOR_EVENTS, err);
}

int rb_auth_close_wait(zsock_t **sock, int wait_ms)
{
    if (!*sock)
        return 1;
    rb_err_t err;
    rb_err_clear(&err);
    zsock_t *mon = s_monitor(*sock, ZMQ_EVENT_MONITOR_STOPPED, &err);
    zsock_destroy(sock);
    if (!mon)
        return 0;
    zsock_set_rcvtimeo(mon, wait_ms);
    int gone = 0;
    while (!gone) {
        zframe_t *ev = zframe_recv(mon); /* the event, then the endpoint */
        if (!ev)
            break; /* the deadline */
        uint16_t id = 0;
        if (zframe_size(ev) >= sizeof id)
            memcpy(&id, zframe_data(ev), sizeof id);
        gone = id == ZMQ_EVENT_MONITOR_STOPPED;
        zframe_destroy(&ev);
    }
    zsock_destroy(&mon);
    return gone;
}

static rb_auth_outcome_t s_outcome(uint16_t event, uint32_t value)
{
    switch (event) {
    case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
        return RB_AUTH_SUCCEEDED;
    case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
        return value == 400 ? RB_AUTH_REFUSED : RB_AUTH_ZAP_FAILED;
    case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
        if (value == ZMQ_PROTOCOL_ERROR_ZMTP_CRYPTOGRAPHIC)
            return RB_AUTH_KEY_MISMATCH;
        if (value == ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH)
            return RB_AUTH_MECHANISM;
        return RB_AUTH_PROTOCOL;
    case ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL:
        return RB_AUTH_CLOSED;
    default:
        return RB_AUTH_NONE;
    }
}

int rb_auth_monitor_read(zsock_t *mon, rb_auth_event_t *ev)
{
    memset(ev, 0, sizeof *ev);
    if (!mon || !(zsock_events(mon) & ZMQ_POLLIN))
        return 0;
    zmsg_t *m = zmsg_recv(mon);
    if (!m)
        return 0;
    /* Two frames: 2 bytes of event and 4 of value (host order), the endpoint. */
    zframe_t *head = zmsg_first(m), *ep = zmsg_next(m);
    if (head && zframe_size(head) == 6) {
        uint16_t event;
        uint32_t value;
        memcpy(&event, zframe_data(head), sizeof event);
        memcpy(&value, zframe_data(head) + 2, sizeof value);
        ev->outcome = s_outcome(event, value);
        ev->value = value;
    }
    if (ep) {
        size_t n =
            zframe_size(ep) < sizeof ev->endpoint ? zframe_size(ep) : sizeof ev->endpoint - 1;
        memcpy(ev->endpoint, zframe_data(ep), n);
        ev->endpoint[n] = '\0';
    }
    zmsg_destroy(&m);
    return 1;
}

void rb_auth_monitor_stop(zsock_t *sock, zsock_t **mon)
{
    if (!mon || !*mon)
        return;
    if (sock)
        zmq_socket_monitor(zsock_resolve(sock), NULL, 0);
    zsock_destroy(mon);
}
