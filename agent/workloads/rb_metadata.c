/* rw=meta: one metadata step of mdtest's over a worker's items, each
 * operation timed one by one: files (create, stat, read, write, rename,
 * delete), IO500's find (a walk of the worker's folders, each file read
 * from its directory, stat'd and counted when it matches),
 * directories as items (mkdir, statdir, rmdir) and the worker's tree
 * itself (mktree, rmtree). Folders the step only uses are opened (made
 * when missing) before GO and not measured; the tree steps make and remove
 * them in the measured window. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rb_perm.h"
#include "rb_time.h"
#include "rb_workload.h"

#define S_BUF_BS (1u << 20) /* file contents move this much at a time */
#define S_STAMP  16u        /* a file's first bytes: whose item it is (read_from checks it) */
#define S_DIRFL  (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* Opens directory name inside parent, making it first when make is set. fd or -errno. */
static int s_dir_open(int parent, const char *name, int make)
{
    if (make && mkdirat(parent, name, 0755) < 0 && errno != EEXIST)
        return -errno;
    int fd = openat(parent, name, S_DIRFL);
    return fd < 0 ? -errno : fd;
}

/* The shape below a worker's folder: levels of directories, each directory
 * with width children (a meta_depth × meta_branch tree, meta_dirs flat
 * directories as one level, or none). */
static void s_shape(const rb_job_spec_t *s, uint32_t *levels, uint64_t *width)
{
    *levels = 0;
    *width = 1;
    if (s->meta_depth) {
        *levels = s->meta_depth;
        *width = s->meta_branch ? s->meta_branch : 1;
    } else if (s->meta_dirs > 1) {
        *levels = 1;
        *width = s->meta_dirs;
    }
}

/* Leaf directories of the shape (1 with no levels); 0 when above 1 << 20. */
static uint64_t s_leaves(uint32_t levels, uint64_t width)
{
    uint64_t n = 1;
    for (uint32_t d = 0; d < levels; d++) {
        n *= width;
        if (n > (1u << 20))
            return 0;
    }
    return n;
}

/* The one shared folder: files named after their node (the peer's with
 * read_from), worker and set. */
static int s_shared_setup(rb_worker_t *w, rb_sandbox_t *sb, int rundir, const rb_job_ctx_t *ctx,
                          const char *peer, const char *set, rb_err_t *err)
{
    int fd = rb_sandbox_shared_dir(sb, rundir, ctx->run_id, err);
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
             rb_sandbox_rundir_path(sb, rundir), ctx->run_id);
    snprintf(w->mprefix, sizeof w->mprefix, "%s.%s.%u.", peer[0] ? peer : rb_sandbox_node(sb), set,
             w->index);
    return 0;
}

/* Opens the leaf directories of a worker's items: one shared folder, or
 * "SET.W" in the run folder (another node's with read_from) with its flat
 * folders or tree below it, made here when missing (not measured). The
 * tree steps open only the run folder: they make or remove "SET.W". */
static int s_dirs_setup(rb_worker_t *w, rb_sandbox_t *sb, int rundir, const rb_job_ctx_t *ctx,
                        rb_err_t *err)
{
    const rb_job_spec_t *s = w->spec;
    const char *set = s->filename_format[0] ? s->filename_format : s->name;
    const char *peer = s->read_shift ? rb_job_peer(ctx, s->read_shift) : "";
    char base[RB_PATH_MAX];
    uint32_t levels;
    uint64_t width;
    snprintf(w->mprefix, sizeof w->mprefix, "f");
    if (s->meta_shared)
        return s_shared_setup(w, sb, rundir, ctx, peer, set, err);
    s_shape(s, &levels, &width);
    uint64_t leaves = s_leaves(levels, width);
    if (!leaves)
        return rb_err_set(err, -E2BIG, "job %s: more than %u directories per worker", s->name,
                          1u << 20);
    snprintf(base, sizeof base, "%s.%u", set, w->index);
    snprintf(w->mpath, sizeof w->mpath, "%s/%s", rb_sandbox_rundir_path(sb, rundir), base);
    int top;
    if (peer[0]) {
        top = rb_sandbox_open_peer(sb, rundir, ctx->run_id, peer, base, S_DIRFL, w->mpath,
                                   sizeof w->mpath, err);
        if (top < 0)
            return top;
    } else {
        int rfd = open(rb_sandbox_rundir_path(sb, rundir), S_DIRFL);
        if (rfd < 0)
            return rb_err_set(err, -errno, "run folder %s: %s", rb_sandbox_rundir_path(sb, rundir),
                              strerror(errno));
        if (rb_meta_op_tree(s->meta_op)) {
            w->mtop = rfd; /* the step makes or removes SET.W itself */
            return 0;
        }
        top = s_dir_open(rfd, base, 1);
        close(rfd);
        if (top < 0)
            return rb_err_set(err, top, "folder %s: %s", w->mpath, strerror(-top));
    }
    if (s->meta_op == RB_META_FIND)
        levels = 0, leaves = 1; /* find walks down from the worker's folder itself */
    w->mdirs = calloc(leaves, sizeof *w->mdirs);
    if (!w->mdirs) {
        close(top);
        return rb_err_set(err, -ENOMEM, "out of memory for %llu directories",
                          (unsigned long long)leaves);
    }
    for (uint64_t i = 0; i < leaves; i++)
        w->mdirs[i] = -1;
    w->nmdirs = (uint32_t)leaves;
    if (!levels) {
        w->mdirs[0] = top; /* one folder: the items live in the worker's own */
        return 0;
    }
    for (uint64_t leaf = 0; leaf < leaves; leaf++) {
        /* leaf number in base width gives its path down the tree */
        int fd = dup(top);
        uint64_t rest = leaf, div = leaves;
        for (uint32_t d = 0; d < levels && fd >= 0; d++) {
            div /= width;
            char name[32];
            snprintf(name, sizeof name, "d%llu", (unsigned long long)(rest / div));
            rest %= div;
            int child = s_dir_open(fd, name, !peer[0]);
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
    return 0;
}

/* Name of item i: a file in the state an earlier rename left it, or a directory. */
static void s_meta_name(const rb_worker_t *w, uint64_t i, char *out, size_t len)
{
    const rb_job_spec_t *s = w->spec;
    int dir =
        s->meta_op == RB_META_MKDIR || s->meta_op == RB_META_STATDIR || s->meta_op == RB_META_RMDIR;
    if (dir)
        snprintf(out, len, "%sdir.%llu", w->mprefix, (unsigned long long)i);
    else
        snprintf(out, len, "%s%llu%s", w->mprefix, (unsigned long long)i,
                 s->meta_renamed ? ".r" : "");
}

/* The stamp of item i of worker index on node tag: what its first bytes hold. */
static void s_stamp(const rb_worker_t *w, uint32_t tag, uint64_t i, uint64_t out[2])
{
    out[0] = w->run_hash ^ ((uint64_t)tag << 32 | w->index);
    out[1] = i;
}

/* Writes meta_filesize bytes (mdtest -w), item i's stamp first. Bytes or -errno. */
static int64_t s_write_data(rb_worker_t *w, int fd, uint64_t i)
{
    uint64_t left = w->spec->meta_filesize, moved = 0;
    if (left >= S_STAMP) {
        uint64_t st[2];
        s_stamp(w, w->node_tag, i, st);
        memcpy(w->bufs, st, sizeof st);
    }
    while (left) {
        size_t n = left < S_BUF_BS ? (size_t)left : S_BUF_BS;
        ssize_t got = write(fd, w->bufs, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got < 0 ? -errno : -EIO;
        left -= (uint64_t)got;
        moved += (uint64_t)got;
    }
    return (int64_t)moved;
}

/* Reads up to meta_readsize bytes (mdtest -e) and checks the stamp: the
 * item must be the one of the node whose items the step works on. Bytes
 * read (a shorter file reads as what it holds) or -errno. */
static int64_t s_read_data(rb_worker_t *w, int fd, uint64_t i, const char *name)
{
    const rb_job_spec_t *s = w->spec;
    uint64_t left = s->meta_readsize, moved = 0;
    while (left) {
        size_t n = left < S_BUF_BS ? (size_t)left : S_BUF_BS;
        ssize_t got = read(fd, w->bufs, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -errno;
        if (got == 0)
            break;
        if (!moved && (size_t)got >= S_STAMP && s->meta_filesize >= S_STAMP) {
            uint64_t want[2], have[2];
            s_stamp(w, w->expect, i, want);
            memcpy(have, w->bufs, sizeof have);
            if (memcmp(want, have, sizeof want)) {
                uint64_t x = have[0] ^ w->run_hash;
                char path[RB_PATH_MAX];
                snprintf(path, sizeof path, "%s/.../%s", w->mpath, name);
                RB_WORKER_ADD(&w->verify_errors, 1);
                RB_WORKER_ADD(&w->errors, 1);
                rb_worker_fail(w, -EBADMSG, path, 0,
                               "verify: holds item %llu of node rank %u worker %u, not item %llu "
                               "of node rank %u worker %u",
                               (unsigned long long)have[1], (unsigned)(x >> 32) - 1,
                               (unsigned)(x & 0xffffffffu), (unsigned long long)i, w->expect - 1,
                               w->index);
            }
        }
        left -= (uint64_t)got;
        moved += (uint64_t)got;
    }
    return (int64_t)moved;
}

/* fsync of a directory after it changed, with meta_sync. 0 or -errno. */
static int s_dir_sync(const rb_worker_t *w, int dfd)
{
    return w->spec->meta_sync && fsync(dfd) < 0 ? -errno : 0;
}

/* find: counts the file name (stat st) in found when it matches every
 * meta_find_* (find -name P -size Nc -newer REF). */
static void s_find_match(rb_worker_t *w, const char *name, const struct stat *st)
{
    const rb_job_spec_t *s = w->spec;
    uint64_t mtime = (uint64_t)st->st_mtim.tv_sec * 1000000000ull + (uint64_t)st->st_mtim.tv_nsec;
    if (S_ISREG(st->st_mode) &&
        (!s->meta_find_size || (uint64_t)st->st_size == s->meta_find_size) &&
        (!s->meta_find_newer || mtime > w->since_ns) &&
        (!s->meta_find_name[0] || fnmatch(s->meta_find_name, name, 0) == 0))
        w->found++;
}

/* One operation on item i; returns bytes moved or -errno. */
static int64_t s_meta_op(rb_worker_t *w, uint64_t i, const char *name)
{
    const rb_job_spec_t *s = w->spec;
    int dfd = w->mdirs[i % w->nmdirs];
    char to[RB_NAME_MAX * 2 + 8];
    struct stat st;
    int fd;
    int64_t got;
    switch (s->meta_op) {
    case RB_META_CREATE:
    case RB_META_WRITE:
        fd = openat(dfd, name,
                    O_WRONLY | O_NOFOLLOW | O_CLOEXEC |
                        (s->meta_op == RB_META_CREATE ? O_CREAT | O_EXCL : 0),
                    0600);
        if (fd < 0)
            return -errno;
        got = s_write_data(w, fd, i);
        if (got >= 0 && s->meta_sync && fsync(fd) < 0)
            got = -errno;
        close(fd);
        if (got >= 0 && s->meta_op == RB_META_CREATE) {
            int rc = s_dir_sync(w, dfd);
            got = rc < 0 ? rc : got;
        }
        return got;
    case RB_META_STAT:
    case RB_META_STATDIR:
        return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
    case RB_META_READ:
        fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            return -errno;
        got = s_read_data(w, fd, i, name);
        close(fd);
        return got;
    case RB_META_RENAME:
        snprintf(to, sizeof to, "%s.r", name);
        if (renameat(dfd, name, dfd, to) < 0)
            return -errno;
        return s_dir_sync(w, dfd);
    case RB_META_DELETE:
        if (unlinkat(dfd, name, 0) < 0)
            return -errno;
        return s_dir_sync(w, dfd);
    case RB_META_MKDIR:
        if (mkdirat(dfd, name, 0755) < 0)
            return -errno;
        return s_dir_sync(w, dfd);
    case RB_META_RMDIR:
        if (unlinkat(dfd, name, AT_REMOVEDIR) < 0)
            return -errno;
        return s_dir_sync(w, dfd);
    default:
        return -EINVAL;
    }
}

/* Counts a failed operation on name below dir and records the first. */
static void s_failed(rb_worker_t *w, int rc, const char *dir, const char *name)
{
    char path[RB_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    RB_WORKER_ADD(&w->errors, 1);
    rb_worker_fail(w, rc, path, 0, "%s: %s", rb_meta_op_name(w->spec->meta_op), strerror(-rc));
}

/* One directory of the tree, made or removed (and synced with meta_sync),
 * timed and counted; a failure is counted and recorded. 0 or -errno. */
static int s_tree_op(rb_worker_t *w, int parent, const char *path, const char *name, int remove)
{
    uint64_t t0 = rb_time_mono_ns();
    int rc = (remove ? unlinkat(parent, name, AT_REMOVEDIR) : mkdirat(parent, name, 0755)) < 0
                 ? -errno
                 : s_dir_sync(w, parent);
    uint64_t t1 = rb_time_mono_ns();
    if (rc < 0) {
        s_failed(w, rc, path, name);
        return rc;
    }
    rb_worker_count(w, RB_DIR_WRITE, 0, t1 - t0, RB_WORKER_NO_SLAT, t1);
    return 0;
}

/* mktree (remove 0): makes directory name in parent and, above the last
 * level, its width children below it. rmtree (remove 1): the same tree
 * removed, its children first (leaves first, as mdtest). Each directory is
 * one timed operation. 0 or -errno. */
static int s_tree_walk(rb_worker_t *w, int parent, const char *path, const char *name,
                       uint32_t level, uint32_t levels, uint64_t width, int remove)
{
    if (rb_worker_stopped(w))
        return -ECANCELED;
    int rc = remove ? 0 : s_tree_op(w, parent, path, name, 0);
    if (rc == 0 && level < levels) {
        char sub[RB_PATH_MAX];
        int fd = openat(parent, name, S_DIRFL);
        if (fd < 0) {
            rc = -errno;
            s_failed(w, rc, path, name);
            return rc;
        }
        snprintf(sub, sizeof sub, "%s/%s", path, name);
        for (uint64_t k = 0; k < width && rc == 0; k++) {
            char child[32];
            snprintf(child, sizeof child, "d%llu", (unsigned long long)k);
            rc = s_tree_walk(w, fd, sub, child, level + 1, levels, width, remove);
        }
        close(fd);
    }
    return rc == 0 && remove ? s_tree_op(w, parent, path, name, 1) : rc;
}

/* The tree steps: the worker's folder "SET.W" and everything below it. */
static void s_tree_run(rb_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    const char *set = s->filename_format[0] ? s->filename_format : s->name;
    char base[RB_PATH_MAX], parent[RB_PATH_MAX];
    uint32_t levels;
    uint64_t width;
    s_shape(s, &levels, &width);
    snprintf(base, sizeof base, "%s.%u", set, w->index);
    snprintf(parent, sizeof parent, "%.*s", (int)(strlen(w->mpath) - strlen(base) - 1), w->mpath);
    if (s->meta_op == RB_META_MKTREE)
        s_tree_walk(w, w->mtop, parent, base, 0, levels, width, 0);
    else
        s_tree_walk(w, w->mtop, parent, base, 0, levels, width, 1);
}

/* At meta_stonewall: what is done by now is the stonewall figure; with
 * wearout, waits for the count every worker goes on to. 1 to go on. */
static int s_at_stonewall(rb_worker_t *w, uint64_t now)
{
    w->sw_t = w->t_end ? w->t_end : now;
    w->sw_bytes = rb_worker_bytes(w);
    w->sw_ops = rb_worker_ops(w);
    w->sw_at = UINT64_MAX;
    return w->spec->wearout && now < w->deadline && rb_worker_wait_target(w);
}

/* Whether the walk stops before its next entry: the step ends, the
 * stonewall holds it, or wearout's count is reached. */
static int s_find_stop(rb_worker_t *w)
{
    uint64_t now = rb_time_mono_ns();
    return rb_worker_stopped(w) || (now >= w->sw_at && !s_at_stonewall(w, now)) ||
           rb_worker_ops(w) >= w->op_limit;
}

/* find's walk of the directory dfd (at path) and every folder below it, as
 * IO500's pfind: each entry is read (readdir), stat'd and matched; a file
 * is one timed operation (its readdir and stat), a folder is walked in
 * turn. In the shared folder a worker examines the files of its own
 * prefix and leaves the rest to their workers. 0, or -ECANCELED once the
 * walk is to stop. */
static int s_find_walk(rb_worker_t *w, int dfd, const char *path, uint32_t depth)
{
    int fd = dup(dfd);
    DIR *d = fd < 0 ? NULL : fdopendir(fd);
    if (!d) {
        int rc = -errno;
        if (fd >= 0)
            close(fd);
        s_failed(w, rc, path, ".");
        return 0;
    }
    size_t plen = strlen(w->mprefix);
    int rc = 0;
    while (rc == 0) {
        if (s_find_stop(w)) {
            rc = -ECANCELED;
            break;
        }
        uint64_t t0 = rb_time_mono_ns();
        errno = 0;
        const struct dirent *e = readdir(d);
        if (!e) {
            if (errno)
                s_failed(w, -errno, path, ".");
            break;
        }
        const char *n = e->d_name;
        if (n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2])))
            continue;
        if (w->spec->meta_shared && e->d_type != DT_DIR && strncmp(n, w->mprefix, plen) != 0)
            continue;
        struct stat st;
        if (fstatat(dirfd(d), n, &st, AT_SYMLINK_NOFOLLOW) < 0) {
            s_failed(w, -errno, path, n);
            continue;
        }
        uint64_t t1 = rb_time_mono_ns();
        if (!S_ISDIR(st.st_mode)) {
            s_find_match(w, n, &st);
            rb_worker_count(w, RB_DIR_READ, 0, t1 - t0, RB_WORKER_NO_SLAT, t1);
            continue;
        }
        char sub[RB_PATH_MAX];
        int child = depth < 64 ? openat(dirfd(d), n, S_DIRFL) : -1;
        if (child < 0) {
            s_failed(w, depth < 64 ? -errno : -ELOOP, path, n);
            continue;
        }
        snprintf(sub, sizeof sub, "%s/%s", path, n);
        rc = s_find_walk(w, child, sub, depth + 1);
        close(child);
    }
    closedir(d);
    return rc;
}

/* The item loop: every item once, in order or in a random permutation, up
 * to the stonewall and the wearout count; a failed operation is counted and
 * named, and the step goes on. */
static void s_meta_run(rb_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    rb_perm_t perm;
    if (rb_meta_op_tree(s->meta_op)) {
        s_tree_run(w);
        return;
    }
    if (s->meta_op == RB_META_FIND) {
        s_find_walk(w, w->mdirs[0], w->mpath, 0);
        return;
    }
    if (s->meta_random)
        rb_perm_init(&perm, w->mcount, rb_rand_next(&w->rng) ^ s->meta_op);
    for (uint64_t k = 0; k < w->mcount && !rb_worker_stopped(w); k++) {
        uint64_t i = s->meta_random ? rb_perm_at(&perm, k) : k;
        char name[RB_NAME_MAX * 2];
        uint64_t t0 = rb_time_mono_ns();
        if (t0 >= w->sw_at && !s_at_stonewall(w, t0))
            break;
        if (rb_worker_ops(w) >= w->op_limit)
            break; /* wearout: the busiest worker's count is reached */
        s_meta_name(w, i, name, sizeof name);
        t0 = rb_time_mono_ns();
        int64_t got = s_meta_op(w, i, name);
        uint64_t t1 = rb_time_mono_ns();
        if (got < 0) {
            char dir[RB_PATH_MAX];
            snprintf(dir, sizeof dir, "%s/...", w->mpath);
            s_failed(w, (int)got, dir, name);
            continue;
        }
        rb_worker_count(w, rb_meta_op_looks(s->meta_op) ? RB_DIR_READ : RB_DIR_WRITE, (uint64_t)got,
                        t1 - t0, RB_WORKER_NO_SLAT, t1);
    }
}

/* No engine, no IO ring: one buffer for file contents and the folders. A
 * step after a stonewalled create works on the items that step made. */
static int s_setup(rb_worker_t *w, rb_sandbox_t *sb, int rundir, const rb_job_ctx_t *ctx,
                   uint64_t seed, rb_err_t *err)
{
    w->mtop = -1;
    w->mcount = w->spec->meta_files;
    if (ctx->caps && ctx->caps[w->job] && ctx->caps[w->job] < w->mcount)
        w->mcount = ctx->caps[w->job];
    w->bufs = rb_worker_aligned(S_BUF_BS);
    if (!w->bufs)
        return rb_err_set(err, -ENOMEM, "job %s: out of memory", w->spec->name);
    rb_rand_seed(&w->rng, seed);
    rb_rand_fill(&w->rng, w->bufs, S_BUF_BS);
    return s_dirs_setup(w, sb, rundir, ctx, err);
}

static void s_fini(rb_worker_t *w)
{
    for (uint32_t i = 0; w->mdirs && i < w->nmdirs; i++)
        if (w->mdirs[i] >= 0)
            close(w->mdirs[i]);
    free(w->mdirs);
    w->mdirs = NULL;
    w->nmdirs = 0;
    if (w->mtop > 0) /* 0: a zeroed worker that setup never saw */
        close(w->mtop);
    w->mtop = -1;
}

const rb_workload_ops_t rb_metadata_workload = {
    .name = "metadata",
    .setup = s_setup,
    .run = s_meta_run,
    .fini = s_fini,
};
