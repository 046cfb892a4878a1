/* `rackbench-agent --cleanup`: removes what crashed runs left under the
 * agent's roots, the run folders and shared folders agents make, and
 * nothing else. */
#ifndef RB_CLEANUP_H
#define RB_CLEANUP_H

#include <stdint.h>
#include <stdio.h>

#include "rb_err.h"

/* 1 if name is that of a folder an agent makes: "rackbench.RUN.NODE" or
 * "rackbench.RUN.shared", RUN in the coordinator's run id format
 * (YYYYMMDD-HHMMSS-xxxx) and NODE a node name; 0 otherwise. */
int rb_cleanup_name_ok(const char *name);

/* What a cleanup did. */
typedef struct rb_cleanup_stats {
    uint64_t folders; /* leftover folders removed */
    uint64_t files;   /* files removed in them */
    uint64_t skipped; /* leftovers left alone: in use by a running agent */
} rb_cleanup_stats_t;

/* Which leftovers a cleanup takes (NULL fields: any). */
typedef struct rb_cleanup_only {
    const char *node; /* the run folders of this node only (no shared folder) */
    const char *run;  /* the folders of this run id only */
} rb_cleanup_only_t;

/* Looks below each root (subfolders too, symlinks never followed) for
 * folders rb_cleanup_name_ok accepts (and only, when given, accepts), owned
 * by this user and not held by a running agent, and removes them with what
 * they hold. Writes one line per folder removed or skipped to out (NULL:
 * silent). Goes on after an error; returns 0 or the first -errno with err
 * set. */
int rb_cleanup_roots(const char *const *roots, int nroots, const rb_cleanup_only_t *only, FILE *out,
                     rb_cleanup_stats_t *st, rb_err_t *err);

/* The --cleanup command: rb_cleanup_roots with its report on stdout and an
 * error on stderr. Returns the exit code: 0, 2 without a root or with a bad
 * filter, 3 on an error. */
int rb_cleanup_main(const char *const *roots, int nroots, const rb_cleanup_only_t *only);

#endif
