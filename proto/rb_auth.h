/* Who may talk to whom: ZeroMQ CURVE keys in czmq's certificate format
 * (zcert), the coordinator's list of allowed agent keys (zcertstore) checked
 * by a ZAP handler of our own that remembers whom it refused, and the rules
 * for when CURVE may be off (--insecure: loopback and ipc:// only). */
#ifndef RB_AUTH_H
#define RB_AUTH_H

#include <czmq.h>
#include <stddef.h>
#include <stdint.h>

#include "rb_err.h"

/* What an endpoint can reach, for deciding whether CURVE may be off. */
typedef enum rb_auth_ep_kind {
    RB_EP_IPC,      /* ipc://: a socket file, guarded by its folder's permissions */
    RB_EP_INPROC,   /* inproc://: inside this process */
    RB_EP_LOOPBACK, /* tcp:// on 127.0.0.0/8, ::1 or localhost */
    RB_EP_NETWORK,  /* tcp:// on any other address or name, or any other transport */
} rb_auth_ep_kind_t;

/* Classifies a ZeroMQ endpoint as written on the command line. Anything not
 * recognised as local (a host name, "*", 0.0.0.0, an interface) is
 * RB_EP_NETWORK. */
rb_auth_ep_kind_t rb_auth_ep_kind(const char *endpoint);

/* 1 if the endpoint cannot be reached from another host (ipc, inproc, loopback). */
int rb_auth_ep_is_local(const char *endpoint);

/* Checks one side's security options. ep_opt/ep name the endpoint option and
 * its value ("--bind", "tcp://head:7770"); key_opt/key the own secret key option
 * and value, peer_opt/peer the peer keys' option and value (NULL = not given).
 * Returns 1 when CURVE is to be used, 0 when not (ipc:// without keys, or
 * --insecure on a local endpoint), -EINVAL with a message saying what is
 * missing or why not. */
int rb_auth_check(const char *ep_opt, const char *ep, const char *key_opt, const char *key,
                  const char *peer_opt, const char *peer, int insecure, rb_err_t *err);

/* Writes a new keypair as DIR/NAME.key (public) and DIR/NAME.key_secret
 * (mode 0600), creating DIR (0700) if needed. Never overwrites: -EEXIST with
 * a message naming the file. The public key (Z85) goes to public_txt (41
 * bytes) when not NULL. 0 or -errno with err set. */
int rb_auth_keygen(const char *dir, const char *name, char *public_txt, rb_err_t *err);

/* Writes cert to path, which must not exist: the secret certificate with
 * mode 0600 when secret, else the public one with mode 0644. 0 or -errno
 * (-EEXIST: not overwritten) with err set. */
int rb_auth_save(zcert_t *cert, const char *path, int secret, rb_err_t *err);

/* Loads the secret certificate at path (or path + "_secret" if that exists);
 * refuses a file without a secret key or readable by group or others.
 * Returns a new certificate (caller destroys) or NULL with err set. */
zcert_t *rb_auth_load_secret(const char *path, rb_err_t *err);

/* Loads a public certificate (a NAME.key file); NULL with err set. */
zcert_t *rb_auth_load_public(const char *path, rb_err_t *err);

/* A certificate from Z85 key text (40 characters each): public_txt and, if
 * not NULL, secret_txt (else the secret key is all zero: a peer's public
 * certificate). Returns a new certificate (caller destroys) or NULL with err
 * set when a key is not valid Z85 of 32 bytes. */
zcert_t *rb_auth_cert_from_txt(const char *public_txt, const char *secret_txt, rb_err_t *err);

/* Loads every certificate in dir (not *_secret files, not sub-folders) into
 * a new memory store; a key found twice is kept once. count gets how many.
 * NULL with err set if dir cannot be read or holds no key. */
zcertstore_t *rb_auth_load_store(const char *dir, uint32_t *count, rb_err_t *err);

/* Makes sock a CURVE client of the server whose public certificate is
 * server (borrowed), with the keys of cert (borrowed). */
void rb_auth_client_apply(zsock_t *sock, zcert_t *cert, zcert_t *server);

typedef struct rb_auth_server rb_auth_server_t;

/* Starts the ZAP handler of this process (one at a time) allowing the
 * certificates of *store_p (taken over), and makes sock, not yet bound, a
 * CURVE server with the keys of cert (borrowed). Refused peers are logged
 * once per key. NULL with err set on failure. */
rb_auth_server_t *rb_auth_server_new(zsock_t *sock, zcert_t *cert, zcertstore_t **store_p,
                                     rb_err_t *err);

/* How many distinct keys were refused so far; desc (if not NULL) gets
 * "KEY from ADDRESS, …" for the first few. Thread-safe. */
uint32_t rb_auth_server_refused(rb_auth_server_t *s, char *desc, size_t len);

/* Stops the ZAP handler and frees; nulls *p; safe twice. */
void rb_auth_server_destroy(rb_auth_server_t **p);

/* How a ZMTP handshake ended, from a socket monitor's event. */
typedef enum rb_auth_outcome {
    RB_AUTH_NONE = 0,     /* not a handshake event */
    RB_AUTH_SUCCEEDED,    /* the handshake (and the key check, if any) passed */
    RB_AUTH_REFUSED,      /* the server's key check said no (ZAP status 400) */
    RB_AUTH_ZAP_FAILED,   /* the key check could not be made (ZAP status 300 or 500) */
    RB_AUTH_KEY_MISMATCH, /* a CURVE box did not open: a side holds the wrong key */
    RB_AUTH_MECHANISM,    /* one side uses CURVE and the other does not */
    RB_AUTH_PROTOCOL,     /* another ZMTP or ZAP protocol error */
    RB_AUTH_CLOSED,       /* the peer closed the connection during the handshake */
    RB_AUTH_OUTCOMES
} rb_auth_outcome_t;

/* One handshake event of a watched socket. */
typedef struct rb_auth_event {
    rb_auth_outcome_t outcome;
    uint32_t value;     /* as the monitor gave it: ZAP status, ZMQ_PROTOCOL_ERROR_*, errno */
    char endpoint[256]; /* the endpoint of the socket it happened on */
} rb_auth_event_t;

/* A few words for an outcome ("key refused"); static storage. */
const char *rb_auth_outcome_name(rb_auth_outcome_t o);

/* The monitor's detail of ev into buf ("ZAP status 400", "ZMTP error
 * 0x11000001", "Broken pipe"); returns buf. */
const char *rb_auth_event_detail(const rb_auth_event_t *ev, char *buf, size_t len);

/* Watches the handshakes of sock (borrowed) with a ZeroMQ socket monitor.
 * Returns the monitor's socket, to poll beside sock and read with
 * rb_auth_monitor_read (stop it with rb_auth_monitor_stop), or NULL with
 * err set. */
zsock_t *rb_auth_monitor_start(zsock_t *sock, rb_err_t *err);

/* Reads one waiting event of mon without blocking: 1 with ev filled, 0 when
 * none waits. Events other than handshakes come as RB_AUTH_NONE. */
int rb_auth_monitor_read(zsock_t *mon, rb_auth_event_t *ev);

/* Stops watching sock and destroys *mon; nulls *mon; safe twice. */
void rb_auth_monitor_stop(zsock_t *sock, zsock_t **mon);

/* Destroys *sock (NULL after) and waits up to wait_ms until ZeroMQ has let
 * go of its connections, which it closes in its own threads: its monitor
 * hears MONITOR_STOPPED once the socket itself is gone, the last of them
 * before it. 1 when it did, 0 on the deadline or when the socket could not
 * be watched (destroyed all the same). A socket has one monitor: stop one
 * of rb_auth_monitor_start's first. */
int rb_auth_close_wait(zsock_t **sock, int wait_ms);

#endif
