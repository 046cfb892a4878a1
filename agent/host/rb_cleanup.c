/* Removes the leftovers of crashed runs: a killed agent cannot remove its
 * run folders, so `rackbench-agent --cleanup` does it later. It recognises
 * them by name, owner and lock, and touches nothing else. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rb_cleanup.h"
#include "rb_proto.h"
#include "rb_sandbox.h"
#include "rb_names.h"

#define S_MAX_DEPTH  16 /* folders below a root searched for leftovers */
#define S_RUN_ID_LEN 20 /* YYYYMMDD-HHMMSS-xxxx */

/* 1 if s starts with a run id as the coordinator makes them. */
static int s_run_id(const char *s)
{
    for (int i = 0; i < S_RUN_ID_LEN; i++) {
        int ok = i == 8 || i == 15 ? s[i] == '-'
                 : i < 15          ? isdigit((unsigned char)s[i])
                                   : isxdigit((unsigned char)s[i]) && !isupper((unsigned char)s[i]);
        if (!ok)
            return 0;
    }
    return 1;
}

int rb_cleanup_name_ok(const char *name)
{
    static const char prefix[] = "rackbench.";
    size_t pl = sizeof prefix - 1;
    if (strncmp(name, prefix, pl) != 0 || !s_run_id(name + pl) || name[pl + S_RUN_ID_LEN] != '.')
        return 0;
    const char *node = name + pl + S_RUN_ID_LEN + 1;
    size_t nl = strlen(node);
    return nl > 0 && nl < RB_NAME_MAX && strcmp(node, ".") != 0 && strcmp(node, "..") != 0 &&
           rb_names_span(node) == nl;
}

/* 1 if name is a shared folder ("rackbench.RUN.shared"). */
static int s_is_shared(const char *name)
{
    return strcmp(name + sizeof "rackbench." - 1 + S_RUN_ID_LEN, ".shared") == 0;
}

typedef struct s_walk {
    const rb_cleanup_only_t *only;
    FILE *out;
    rb_cleanup_stats_t *st;
    rb_err_t *err;
    int rc;
    uid_t uid;
} s_walk_t;

static void s_fail(s_walk_t *w, int code)
{
    if (!w->rc)
        w->rc = code;
}

/* 1 if folder fd is held by a running agent (rb_sandbox_rundir locks it). */
static int s_locked(int fd)
{
    return flock(fd, LOCK_EX | LOCK_NB) < 0 && errno == EWOULDBLOCK;
}

/* 1 if a run folder of the run of shared folder name, in folder dfd, is in use. */
static int s_run_busy(int dfd, const char *name)
{
    size_t runlen = sizeof "rackbench." - 1 + S_RUN_ID_LEN;
    int busy = 0, fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    struct dirent *de;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    while (!busy && (de = readdir(d))) {
        if (strncmp(de->d_name, name, runlen) != 0 || !strcmp(de->d_name, name) ||
            !rb_cleanup_name_ok(de->d_name))
            continue;
        int rfd = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (rfd >= 0) {
            busy = s_locked(rfd);
            close(rfd);
        }
    }
    closedir(d);
    return busy;
}

/* Removes leftover folder name in the folder dfd (at path), unless a
 * running agent holds it (or, for a shared folder, a run folder of its run). */
static void s_remove(s_walk_t *w, int dfd, const char *path, const char *name)
{
    char sub[PATH_MAX];
    struct stat st;
    snprintf(sub, sizeof sub, "%s/%s", path, name);
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
        return;
    if (st.st_uid != w->uid) {
        if (w->out)
            fprintf(w->out, "skipped %s: owned by another user (uid %u)\n", sub,
                    (unsigned)st.st_uid);
        w->st->skipped++;
        return;
    }
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        s_fail(w, rb_err_set(w->err, -errno, "open %s: %s", sub, strerror(errno)));
        return;
    }
    if (s_locked(fd) || (s_is_shared(name) && s_run_busy(dfd, name))) {
        close(fd);
        if (w->out)
            fprintf(w->out, "skipped %s: in use by a running agent\n", sub);
        w->st->skipped++;
        return;
    }
    uint64_t files = 0;
    int rc = rb_sandbox_rm_tree(fd, sub, &files, w->err);
    close(fd);
    if (rc == 0 && unlinkat(dfd, name, AT_REMOVEDIR) < 0)
        rc = rb_err_set(w->err, -errno, "remove %s: %s", sub, strerror(errno));
    w->st->files += files;
    if (rc < 0) {
        s_fail(w, rc);
        return;
    }
    w->st->folders++;
    if (w->out)
        fprintf(w->out, "removed %s (%llu files)\n", sub, (unsigned long long)files);
}

/* 1 if leftover name is one the cleanup takes. */
static int s_wanted(const s_walk_t *w, const char *name)
{
    const char *run = name + sizeof "rackbench." - 1, *node = run + S_RUN_ID_LEN + 1;
    if (w->only->run && strncmp(run, w->only->run, S_RUN_ID_LEN) != 0)
        return 0;
    return !w->only->node || (!s_is_shared(name) && strcmp(node, w->only->node) == 0);
}

/* Looks for leftovers in the folder open as dfd: shared folders first
 * (kept while a run folder of their run is in use), then run folders, then
 * the other subfolders, down to S_MAX_DEPTH. Takes over dfd. */
static void s_walk(s_walk_t *w, int dfd, const char *path, int depth)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        s_fail(w, rb_err_set(w->err, -errno, "read %s: %s", path, strerror(errno)));
        close(dfd);
        return;
    }
    for (int pass = 0; pass < 3; pass++) {
        struct dirent *de;
        rewinddir(d);
        while ((de = readdir(d))) {
            const char *name = de->d_name;
            struct stat st;
            if (!strcmp(name, ".") || !strcmp(name, ".."))
                continue;
            int leftover = rb_cleanup_name_ok(name);
            if (pass < 2 && leftover && s_is_shared(name) == !pass) {
                if (s_wanted(w, name))
                    s_remove(w, dfd, path, name);
            } else if (pass == 2 && !leftover && depth < S_MAX_DEPTH &&
                       fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
                char sub[PATH_MAX];
                if (snprintf(sub, sizeof sub, "%s/%s", path, name) >= (int)sizeof sub)
                    continue;
                int cfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (cfd >= 0)
                    s_walk(w, cfd, sub, depth + 1);
            }
        }
    }
    closedir(d);
}

int rb_cleanup_roots(const char *const *roots, int nroots, const rb_cleanup_only_t *only, FILE *out,
                     rb_cleanup_stats_t *st, rb_err_t *err)
{
    static const rb_cleanup_only_t any = {0};
    s_walk_t w = {.only = only ? only : &any, .out = out, .st = st, .err = err, .uid = geteuid()};
    memset(st, 0, sizeof *st);
    for (int i = 0; i < nroots; i++) {
        char real[PATH_MAX];
        if (!realpath(roots[i], real)) {
            s_fail(&w, rb_err_set(err, -errno, "root %s: %s", roots[i], strerror(errno)));
            continue;
        }
        int fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
            s_fail(&w, rb_err_set(err, -errno, "root %s: %s", roots[i], strerror(errno)));
            continue;
        }
        s_walk(&w, fd, real, 0);
    }
    return w.rc;
}

int rb_cleanup_main(const char *const *roots, int nroots, const rb_cleanup_only_t *only)
{
    rb_cleanup_stats_t st;
    rb_err_t err;
    rb_err_clear(&err);
    if (nroots == 0) {
        fprintf(stderr, "rackbench-agent: --cleanup needs at least one --root\n");
        return 2;
    }
    if (only && only->run && (strlen(only->run) != S_RUN_ID_LEN || !s_run_id(only->run))) {
        fprintf(stderr, "rackbench-agent: --run '%s': expected a run id as YYYYMMDD-HHMMSS-xxxx\n",
                only->run);
        return 2;
    }
    if (only && only->node &&
        (!only->node[0] || strlen(only->node) >= RB_NAME_MAX ||
         rb_names_span(only->node) != strlen(only->node))) {
        fprintf(stderr, "rackbench-agent: --name '%s': a node name of [A-Za-z0-9._-]\n",
                only->node);
        return 2;
    }
    int rc = rb_cleanup_roots(roots, nroots, only, stdout, &st, &err);
    printf("cleanup: removed %llu folders (%llu files)", (unsigned long long)st.folders,
           (unsigned long long)st.files);
    if (st.skipped)
        printf(", skipped %llu", (unsigned long long)st.skipped);
    printf("\n");
    fflush(stdout);
    if (rc < 0) {
        fprintf(stderr, "rackbench-agent: cleanup: %s\n", err.msg);
        return 3;
    }
    return 0;
}
