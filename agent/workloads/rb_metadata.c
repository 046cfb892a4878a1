/* rw=meta: one metadata operation (create, stat, read, write, rename or
 * delete) over every file of a worker's file set, as mdtest does, timed one
 * by one. The folders are made before GO; only the operations are measured. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rb_perm.h"
#include "rb_time.h"
#include "rb_workload.h"

#define S_BUF_BS (1u << 20) /* file contents move this much at a time */

/* Makes (or finds) directory name inside parent fd and opens it. fd or -errno. */
static int s_mkdir_open(int parent, const char *name)
{
    if (mkdirat(parent, name, 0755) < 0 && errno != EEXIST)
        return -errno;
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

/* Opens the leaf directories of a worker's file set: one shared folder, or
 * "SET.W" in the run folder with meta_dirs flat folders or a meta_depth ×
 * meta_branch tree below it. Made here, before GO: not measured. */
static int s_dirs_setup(rb_worker_t *w, rb_sandbox_t *sb, int rundir, const char *run_id,
                        rb_err_t *err)
{
    const rb_job_spec_t *s = w->spec;
    const char *set = s->filename_format[0] ? s->filename_format : s->name;
    char base[RB_PATH_MAX];
    uint64_t leaves = 1;
    if (s->meta_shared) {
        int fd = rb_sandbox_shared_dir(sb, rundir, run_id, err);
        if (fd < 0)
            return fd;
        w->mdirs = calloc(1, sizeof *w->mdirs);
        if (!w->mdirs) {
            close(fd);
            return rb_err_set(err, -ENOMEM, "out of memory");
        }
        w->mdirs[0] = fd;
        w->nmdirs = 1;
        snprintf(w->mpath, sizeof w->mpath, "%s/../rackbench.%s.shared",
                 rb_sandbox_rundir_path(sb, rundir), run_id);
        snprintf(w->mprefix, sizeof w->mprefix, "%s.%s.%u.", rb_sandbox_node(sb), set, w->index);
        return 0;
    }
    if (s->meta_depth)
        for (uint32_t d = 0; d < s->meta_depth; d++)
            leaves *= s->meta_branch ? s->meta_branch : 1;
    else
        leaves = s->meta_dirs ? s->meta_dirs : 1;
    if (leaves > (1u << 20))
        return rb_err_set(err, -E2BIG, "job %s: %llu directories per worker", s->name,
                          (unsigned long long)leaves);
    w->mdirs = calloc(leaves, sizeof *w->mdirs);
    if (!w->mdirs)
        return rb_err_set(err, -ENOMEM, "out of memory for %llu directories",
                          (unsigned long long)leaves);
    for (uint64_t i = 0; i < leaves; i++)
        w->mdirs[i] = -1;
    w->nmdirs = (uint32_t)leaves;
    snprintf(base, sizeof base, "%s.%u", set, w->index);
    snprintf(w->mpath, sizeof w->mpath, "%s/%s", rb_sandbox_rundir_path(sb, rundir), base);
    int rfd = open(rb_sandbox_rundir_path(sb, rundir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int top = rfd >= 0 ? s_mkdir_open(rfd, base) : -errno;
    if (rfd >= 0)
        close(rfd);
    if (top < 0)
        return rb_err_set(err, top, "folder %s: %s", w->mpath, strerror(-top));
    if (leaves == 1 && !s->meta_depth) {
        w->mdirs[0] = top; /* one folder: the files live in the worker's own */
        snprintf(w->mprefix, sizeof w->mprefix, "f");
        return 0;
    }
    for (uint64_t leaf = 0; leaf < leaves; leaf++) {
        /* leaf number in base meta_branch gives its path down the tree */
        int fd = dup(top);
        uint64_t rest = leaf, div = leaves;
        uint32_t levels = s->meta_depth ? s->meta_depth : 1;
        for (uint32_t d = 0; d < levels && fd >= 0; d++) {
            uint64_t width = s->meta_depth ? (s->meta_branch ? s->meta_branch : 1) : leaves;
            div /= width;
            char name[32];
            snprintf(name, sizeof name, "d%llu", (unsigned long long)(rest / div));
            rest %= div;
            int child = s_mkdir_open(fd, name);
            close(fd);
            fd = child;
        }
        if (fd < 0) {
            close(top);
            return rb_err_set(err, fd, "folders under %s: %s", w->mpath, strerror(-fd));
        }
        w->mdirs[leaf] = fd;
    }
    close(top);
    snprintf(w->mprefix, sizeof w->mprefix, "f");
    return 0;
}

/* Name of file i, in the state an earlier rename left it. */
static void s_meta_name(const rb_worker_t *w, uint64_t i, int renamed, char *out, size_t len)
{
    snprintf(out, len, "%s%llu%s", w->mprefix, (unsigned long long)i, renamed ? ".r" : "");
}

/* Moves len bytes to or from an open file. 0 or -errno. */
static int s_meta_data(rb_worker_t *w, int fd, int write)
{
    uint64_t left = w->spec->meta_filesize;
    while (left) {
        size_t n = left < S_BUF_BS ? (size_t)left : S_BUF_BS;
        ssize_t got = write ? pwrite(fd, w->bufs, n, 0) : read(fd, w->bufs, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -errno;
        if (got == 0)
            break; /* a shorter file reads as what it holds */
        left -= (uint64_t)got;
    }
    return 0;
}

/* One operation on file i; returns bytes moved or -errno. */
static int64_t s_meta_op(rb_worker_t *w, uint64_t i, int *is_read)
{
    const rb_job_spec_t *s = w->spec;
    int dfd = w->mdirs[i % w->nmdirs];
    char name[RB_NAME_MAX * 2], to[RB_NAME_MAX * 2];
    struct stat st;
    int fd, rc = 0;
    *is_read = s->meta_op == RB_META_STAT || s->meta_op == RB_META_READ;
    s_meta_name(w, i, s->meta_renamed, name, sizeof name);
    switch (s->meta_op) {
    case RB_META_CREATE:
    case RB_META_WRITE:
        fd = openat(dfd, name,
                    O_WRONLY | O_NOFOLLOW | O_CLOEXEC |
                        (s->meta_op == RB_META_CREATE ? O_CREAT | O_EXCL : 0),
                    0600);
        if (fd < 0)
            return -errno;
        rc = s_meta_data(w, fd, 1);
        if (rc == 0 && s->meta_sync && fsync(fd) < 0)
            rc = -errno;
        close(fd);
        if (rc == 0 && s->meta_sync && s->meta_op == RB_META_CREATE && fsync(dfd) < 0)
            rc = -errno;
        return rc < 0 ? rc : (int64_t)s->meta_filesize;
    case RB_META_STAT:
        return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
    case RB_META_READ:
        fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return -errno;
        rc = s_meta_data(w, fd, 0);
        close(fd);
        return rc < 0 ? rc : (int64_t)s->meta_filesize;
    case RB_META_RENAME:
        s_meta_name(w, i, 1, to, sizeof to);
        if (renameat(dfd, name, dfd, to) < 0)
            return -errno;
        return s->meta_sync && fsync(dfd) < 0 ? -errno : 0;
    case RB_META_DELETE:
        if (unlinkat(dfd, name, 0) < 0)
            return -errno;
        return s->meta_sync && fsync(dfd) < 0 ? -errno : 0;
    default:
        return -EINVAL;
    }
}

/* The metadata loop: every file of the set once, in order or in a random
 * permutation; a failed operation is counted and named, and the step goes on. */
static void s_meta_run(rb_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    rb_perm_t perm;
    if (s->meta_random)
        rb_perm_init(&perm, s->meta_files, rb_rand_next(&w->rng) ^ s->meta_op);
    for (uint64_t k = 0; k < s->meta_files && !rb_worker_stopped(w); k++) {
        uint64_t i = s->meta_random ? rb_perm_at(&perm, k) : k;
        int is_read;
        uint64_t t0 = rb_time_mono_ns();
        int64_t got = s_meta_op(w, i, &is_read);
        uint64_t t1 = rb_time_mono_ns();
        if (got < 0) {
            char name[RB_NAME_MAX * 2], path[RB_PATH_MAX];
            s_meta_name(w, i, s->meta_renamed, name, sizeof name);
            snprintf(path, sizeof path, "%s/.../%s", w->mpath, name);
            RB_WORKER_ADD(&w->errors, 1);
            rb_worker_fail(w, (int)got, path, 0, "%s: %s", rb_meta_op_name(s->meta_op),
                           strerror((int)-got));
            continue;
        }
        rb_worker_count(w, is_read, (uint64_t)got, t1 - t0, RB_WORKER_NO_SLAT, t1);
    }
}

/* No engine, no IO ring: one buffer for file contents and the folders. */
static int s_setup(rb_worker_t *w, rb_sandbox_t *sb, int rundir, const rb_job_ctx_t *ctx,
                   uint64_t seed, rb_err_t *err)
{
    w->bufs = rb_worker_aligned(S_BUF_BS);
    if (!w->bufs)
        return rb_err_set(err, -ENOMEM, "job %s: out of memory", w->spec->name);
    rb_rand_seed(&w->rng, seed);
    rb_rand_fill(&w->rng, w->bufs, S_BUF_BS);
    return s_dirs_setup(w, sb, rundir, ctx->run_id, err);
}

static void s_fini(rb_worker_t *w)
{
    for (uint32_t i = 0; w->mdirs && i < w->nmdirs; i++)
        if (w->mdirs[i] >= 0)
            close(w->mdirs[i]);
    free(w->mdirs);
    w->mdirs = NULL;
    w->nmdirs = 0;
}

const rb_workload_ops_t rb_metadata_workload = {
    .name = "metadata",
    .setup = s_setup,
    .run = s_meta_run,
    .fini = s_fini,
};
