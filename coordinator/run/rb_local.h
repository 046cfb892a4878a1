/* The agents `rackbench run --local N` starts on this machine: their key
 * pairs, their processes, and how their exits weigh on the run. */
#ifndef RB_LOCAL_H
#define RB_LOCAL_H

#include "rb_run_int.h"

/* Makes an ephemeral key pair for the coordinator (server, saved) and one
 * per local agent (public keys added to store) in a 0700 folder, r->keydir,
 * locked while the coordinator lives; first removes the folders of killed
 * coordinators. 0 or -errno with err set (-EINTR on SIGINT/SIGTERM). */
int rb_local_keys(rb_run_ctx_t *r, zcert_t *server, zcertstore_t *store, rb_err_t *err);

/* Removes the local agents' key folder, if any, and lets go of its lock;
 * safe twice. */
void rb_local_drop_keys(rb_run_ctx_t *r);

/* Local agent name has joined: it has read its secret key, whose file goes. */
void rb_local_joined(rb_run_ctx_t *r, const char *name);

/* Starts o->local agents against r->endpoint. 0, or -errno with the run failed. */
int rb_local_start(rb_run_ctx_t *r);

/* The local agents' roots, into r->roots: [global]'s directory, each job's
 * directories and the folders of its absolute filenames, each once and
 * none below another (as fio runs each job where it says); for a plan whose
 * every job is on raw devices, the parent of run folders. 0 (r->nroots may
 * be 0: the plan names no folder), -E2BIG past RB_MAX_ROOTS folders or
 * -ENOMEM, with why said in err. */
int rb_local_roots(rb_run_ctx_t *r, rb_err_t *err);

/* Reaps local agents that exited; marks their nodes lost (or fails the run
 * for one that exited before joining). */
void rb_local_reap(rb_run_ctx_t *r);

/* Stops the local agents still running (SIGTERM, then SIGKILL after 5 s) and
 * fails the nodes of those that exited with an error. */
void rb_local_stop(rb_run_ctx_t *r);

#endif
