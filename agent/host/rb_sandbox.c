/* Keeps every file the agent makes inside its --root folders, in run folders
 * it made itself, and removes them when a run ends or is abandoned. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "rb_devstack.h"
#include "rb_sandbox.h"
#include "rb_units.h"

typedef struct s_rundir {
    char path[RB_PATH_MAX]; /* DIR/rackbench.RUN.NODE */
    int fd;                 /* O_DIRECTORY fd of path, or -1 once removed */
} s_rundir_t;

#define S_MAX_SHARED 16

/* A block device held for a run. */
typedef struct s_claim {
    rb_device_info_t info; /* its probe */
    int fd;                /* open O_EXCL until cleanup */
    int write;             /* the run may write it */
} s_claim_t;

struct rb_sandbox {
    char node[RB_NAME_MAX]; /* node name, from the first run folder */
    int nshared;            /* shared folders used by the current run */
    char shared[S_MAX_SHARED][RB_PATH_MAX];
    rb_device_allow_t allow; /* --allow-device patterns */
    char sys_root[PATH_MAX]; /* where /sys is read ("" = /sys) */
    uint32_t nclaims;        /* devices held for the current run */
    s_claim_t claims[RB_SANDBOX_MAX_DEVICES];
    uint32_t nroots;                    /* roots added */
    char roots[RB_MAX_ROOTS][PATH_MAX]; /* resolved root paths */
    int nrundirs;                       /* run folders made for the current run */
    s_rundir_t rundirs[RB_SANDBOX_MAX_RUNDIRS];
};

rb_sandbox_t *rb_sandbox_new(void)
{
    return calloc(1, sizeof(rb_sandbox_t));
}

void rb_sandbox_destroy(rb_sandbox_t **p)
{
    if (!p || !*p)
        return;
    uint64_t removed = 0;
    rb_sandbox_cleanup(*p, &removed, NULL);
    free(*p);
    *p = NULL;
}

int rb_sandbox_add_root(rb_sandbox_t *sb, const char *path, rb_err_t *err)
{
    char real[PATH_MAX];
    struct stat st;
    if (sb->nroots >= RB_MAX_ROOTS)
        return rb_err_set(err, -E2BIG, "root %s: at most %d roots", path, RB_MAX_ROOTS);
    if (!realpath(path, real))
        return rb_err_set(err, -errno, "root %s: %s", path, strerror(errno));
    if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
        return rb_err_set(err, -ENOTDIR, "root %s: not a directory", path);
    if (strlen(real) >= RB_PATH_MAX - 80)
        return rb_err_set(err, -ENAMETOOLONG, "root %s: path too long", path);
    snprintf(sb->roots[sb->nroots++], PATH_MAX, "%s", real);
    return 0;
}

uint32_t rb_sandbox_nroots(const rb_sandbox_t *sb)
{
    return sb->nroots;
}

const char *rb_sandbox_root(const rb_sandbox_t *sb, uint32_t i)
{
    return i < sb->nroots ? sb->roots[i] : NULL;
}

static int s_space(const char *path, uint64_t *free_bytes, uint64_t *total_bytes)
{
    struct statvfs v;
    if (statvfs(path, &v) < 0)
        return -errno;
    *free_bytes = (uint64_t)v.f_bavail * v.f_frsize;
    *total_bytes = (uint64_t)v.f_blocks * v.f_frsize;
    return 0;
}

int rb_sandbox_root_info(const rb_sandbox_t *sb, uint32_t i, rb_root_info_t *info)
{
    if (i >= sb->nroots)
        return -EINVAL;
    memset(info, 0, sizeof *info);
    snprintf(info->path, sizeof info->path, "%s", sb->roots[i]);
    return s_space(sb->roots[i], &info->free_bytes, &info->total_bytes);
}

/* 1 if name is one path component: not empty, no '/', not "." or "..". */
static int s_plain_name(const char *name)
{
    return name[0] && !strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

/* After opening fd to write: it must be a regular file with one link, so a
 * planted hard link or special file is never written. fd, or -errno (closed). */
static int s_check_written(int fd, int flags, const char *path, rb_err_t *err)
{
    struct stat st;
    if ((flags & O_ACCMODE) == O_RDONLY && !(flags & (O_CREAT | O_TRUNC)))
        return fd;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return rb_err_set(err, -e, "open %s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode) || st.st_nlink != 1) {
        close(fd);
        return rb_err_set(err, -EPERM, "open %s: %s: the agent writes only files it made", path,
                          S_ISREG(st.st_mode) ? "the file has other hard links"
                                              : "not a regular file");
    }
    return fd;
}

/* 1 if path equals root or lies below it. */
static int s_inside(const char *path, const char *root)
{
    size_t n = strlen(root);
    if (strncmp(path, root, n) != 0)
        return 0;
    return path[n] == '\0' || path[n] == '/' || (n == 1 && root[0] == '/');
}

static void s_roots_list(const rb_sandbox_t *sb, char *out, size_t len)
{
    out[0] = '\0';
    for (uint32_t i = 0; i < sb->nroots; i++) {
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", i ? ", " : "", sb->roots[i]);
    }
}

int rb_sandbox_resolve(const rb_sandbox_t *sb, const char *directory, char *out, size_t outlen,
                       rb_err_t *err)
{
    char want[PATH_MAX], real[PATH_MAX], roots[512];
    if (sb->nroots == 0)
        return rb_err_set(err, -EACCES, "agent has no --root");
    if (!directory[0])
        snprintf(want, sizeof want, "%s", sb->roots[0]);
    else if (directory[0] == '/')
        snprintf(want, sizeof want, "%s", directory);
    else
        snprintf(want, sizeof want, "%s/%s", sb->roots[0], directory);
    if (!realpath(want, real))
        return rb_err_set(err, -errno, "directory %s: %s", want, strerror(errno));
    for (uint32_t i = 0; i < sb->nroots; i++) {
        if (s_inside(real, sb->roots[i])) {
            if (strlen(real) >= outlen)
                return rb_err_set(err, -ENAMETOOLONG, "directory %s: path too long", real);
            snprintf(out, outlen, "%s", real);
            return 0;
        }
    }
    s_roots_list(sb, roots, sizeof roots);
    return rb_err_set(err, -EACCES, "directory %s is outside the agent's roots (%s)", directory,
                      roots);
}

int rb_sandbox_rundir(rb_sandbox_t *sb, const char *resolved_dir, const char *run_id,
                      const char *node, rb_err_t *err)
{
    char path[RB_PATH_MAX];
    if (!s_plain_name(run_id) || !s_plain_name(node))
        return rb_err_set(err, -EINVAL, "run id '%s' or node '%s' is not a plain name", run_id,
                          node);
    int n = snprintf(path, sizeof path, "%s/rackbench.%s.%s", resolved_dir, run_id, node);
    if (n < 0 || (size_t)n >= sizeof path)
        return rb_err_set(err, -ENAMETOOLONG, "run folder under %s: path too long", resolved_dir);
    for (int i = 0; i < sb->nrundirs; i++)
        if (strcmp(sb->rundirs[i].path, path) == 0)
            return i;
    if (sb->nrundirs >= RB_SANDBOX_MAX_RUNDIRS)
        return rb_err_set(err, -E2BIG, "a plan may use at most %d directories",
                          RB_SANDBOX_MAX_RUNDIRS);
    if (mkdir(path, 0700) < 0)
        return rb_err_set(err, -errno, "run folder %s: %s", path,
                          errno == EEXIST ? "already exists (left by another run?)"
                                          : strerror(errno));
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        rmdir(path);
        return rb_err_set(err, -e, "run folder %s: %s", path, strerror(e));
    }
    (void)flock(fd, LOCK_EX | LOCK_NB); /* best effort: marks the run as alive */
    s_rundir_t *rd = &sb->rundirs[sb->nrundirs];
    snprintf(rd->path, sizeof rd->path, "%s", path);
    snprintf(sb->node, sizeof sb->node, "%s", node);
    rd->fd = fd;
    return sb->nrundirs++;
}

const char *rb_sandbox_rundir_path(const rb_sandbox_t *sb, int idx)
{
    return idx >= 0 && idx < sb->nrundirs ? sb->rundirs[idx].path : NULL;
}

int rb_sandbox_rundir_space(const rb_sandbox_t *sb, int idx, uint64_t *free_bytes,
                            uint64_t *total_bytes)
{
    if (idx < 0 || idx >= sb->nrundirs)
        return -EINVAL;
    return s_space(sb->rundirs[idx].path, free_bytes, total_bytes);
}

int rb_sandbox_open(rb_sandbox_t *sb, int idx, const char *name, int flags, rb_err_t *err)
{
    if (idx < 0 || idx >= sb->nrundirs || sb->rundirs[idx].fd < 0)
        return rb_err_set(err, -EINVAL, "file %s: no such run folder", name);
    if (!name[0] || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return rb_err_set(err, -EINVAL, "file name '%s' is not a plain name", name);
    char path[RB_PATH_MAX + RB_NAME_MAX];
    snprintf(path, sizeof path, "%s/%s", sb->rundirs[idx].path, name);
    int fd = openat(sb->rundirs[idx].fd, name, flags | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return rb_err_set(err, -errno, "open %s: %s", path, strerror(errno));
    return s_check_written(fd, flags, path, err);
}

int rb_sandbox_open_existing(const rb_sandbox_t *sb, const char *directory, const char *name,
                             int flags, char *path, size_t pathlen, rb_err_t *err)
{
    char dir[RB_PATH_MAX];
    struct stat st;
    if ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC | O_APPEND)))
        return rb_err_set(err, -EPERM, "file %s: the agent only reads a file it did not make",
                          name);
    if (!name[0] || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return rb_err_set(err, -EINVAL, "file name '%s' is not a plain name", name);
    int rc = rb_sandbox_resolve(sb, directory, dir, sizeof dir, err);
    if (rc < 0)
        return rc;
    int n = snprintf(path, pathlen, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= pathlen)
        return rb_err_set(err, -ENAMETOOLONG, "file %s/%s: path too long", dir, name);
    int fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return rb_err_set(err, -errno, "open %s: %s", path, strerror(errno));
    int e = fstat(fd, &st) < 0 ? errno : S_ISREG(st.st_mode) ? 0 : EINVAL;
    if (e) {
        close(fd);
        return rb_err_set(err, -e, "%s: %s", path,
                          e == EINVAL ? "not a regular file" : strerror(e));
    }
    return fd;
}

int rb_sandbox_unlink(rb_sandbox_t *sb, int idx, const char *name, rb_err_t *err)
{
    if (idx < 0 || idx >= sb->nrundirs || sb->rundirs[idx].fd < 0)
        return rb_err_set(err, -EINVAL, "file %s: no such run folder", name);
    if (!name[0] || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return rb_err_set(err, -EINVAL, "file name '%s' is not a plain name", name);
    if (unlinkat(sb->rundirs[idx].fd, name, 0) < 0 && errno != ENOENT)
        return rb_err_set(err, -errno, "remove %s/%s: %s", sb->rundirs[idx].path, name,
                          strerror(errno));
    return 0;
}

int64_t rb_sandbox_file_size(rb_sandbox_t *sb, int idx, const char *name)
{
    struct stat st;
    if (idx < 0 || idx >= sb->nrundirs || sb->rundirs[idx].fd < 0)
        return -EINVAL;
    if (fstatat(sb->rundirs[idx].fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
        return -errno;
    return S_ISREG(st.st_mode) ? (int64_t)st.st_size : -EEXIST;
}

const char *rb_sandbox_node(const rb_sandbox_t *sb)
{
    return sb->node;
}

/* Path of "DIR/rackbench.RUN.WHO" beside run folder idx. 0 or -errno, err set. */
static int s_beside(const rb_sandbox_t *sb, int idx, const char *run_id, const char *who,
                    char *path, size_t len, rb_err_t *err)
{
    if (idx < 0 || idx >= sb->nrundirs)
        return rb_err_set(err, -EINVAL, "folder of %s: no such run folder", who);
    if (!s_plain_name(run_id) || !s_plain_name(who))
        return rb_err_set(err, -EINVAL, "run id '%s' or node '%s' is not a plain name", run_id,
                          who);
    const char *rd = sb->rundirs[idx].path;
    const char *slash = strrchr(rd, '/');
    int n = snprintf(path, len, "%.*s/rackbench.%s.%s", (int)(slash - rd), rd, run_id, who);
    if (n < 0 || (size_t)n >= len)
        return rb_err_set(err, -ENAMETOOLONG, "folder of %s beside %s: path too long", who, rd);
    return 0;
}

int rb_sandbox_shared_dir(rb_sandbox_t *sb, int idx, const char *run_id, rb_err_t *err)
{
    char path[RB_PATH_MAX];
    struct stat st;
    int n = s_beside(sb, idx, run_id, "shared", path, sizeof path, err);
    if (n < 0)
        return n;
    if (mkdir(path, 0755) < 0 && errno != EEXIST)
        return rb_err_set(err, -errno, "shared folder %s: %s", path, strerror(errno));
    if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
        return rb_err_set(err, -ENOTDIR, "shared folder %s: not a plain folder", path);
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return rb_err_set(err, -errno, "shared folder %s: %s", path, strerror(errno));
    int known = 0;
    for (int i = 0; i < sb->nshared; i++)
        known |= strcmp(sb->shared[i], path) == 0;
    if (!known && sb->nshared < S_MAX_SHARED)
        snprintf(sb->shared[sb->nshared++], RB_PATH_MAX, "%s", path);
    return fd;
}

int rb_sandbox_open_shared(rb_sandbox_t *sb, int idx, const char *run_id, const char *name,
                           int flags, char *path, size_t pathlen, rb_err_t *err)
{
    if (!s_plain_name(name))
        return rb_err_set(err, -EINVAL, "file name '%s' is not a plain name", name);
    char dir[RB_PATH_MAX];
    int dfd = s_beside(sb, idx, run_id, "shared", dir, sizeof dir, err);
    if (dfd < 0 || (dfd = rb_sandbox_shared_dir(sb, idx, run_id, err)) < 0)
        return dfd;
    snprintf(path, pathlen, "%s/%s", dir, name);
    int fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC, 0644);
    int e = errno;
    close(dfd);
    if (fd < 0)
        return rb_err_set(err, -e, "open %s: %s", path, strerror(e));
    return s_check_written(fd, flags, path, err);
}

int rb_sandbox_open_peer(rb_sandbox_t *sb, int idx, const char *run_id, const char *peer,
                         const char *name, int flags, char *path, size_t pathlen, rb_err_t *err)
{
    if ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)))
        return rb_err_set(err, -EPERM, "file %s of node %s: another node's files are read only",
                          name, peer);
    if (!s_plain_name(name) || !s_plain_name(peer))
        return rb_err_set(err, -EINVAL, "file '%s' of node '%s': not a plain name", name, peer);
    char dir[RB_PATH_MAX];
    int rc = s_beside(sb, idx, run_id, peer, dir, sizeof dir, err);
    if (rc < 0)
        return rc;
    snprintf(path, pathlen, "%s/%s", dir, name);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0)
        return rb_err_set(err, -errno, "run folder of node %s: %s: %s%s", peer, dir,
                          strerror(errno),
                          errno == ENOENT ? " (read_from needs every node's run folder on one "
                                            "shared file system)"
                                          : "");
    int fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC);
    int e = errno;
    close(dfd);
    if (fd < 0)
        return rb_err_set(err, -e, "open %s (node %s's file): %s", path, peer, strerror(e));
    return fd;
}

int rb_sandbox_rm_tree(int fd, const char *path, uint64_t *removed, rb_err_t *err)
{
    int rc = 0, dfd = dup(fd);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return rb_err_set(err, -errno, "clean %s: %s", path, strerror(errno));
    }
    struct dirent *de;
    while ((de = readdir(d))) {
        struct stat st;
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
            char sub[RB_PATH_MAX];
            snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
            int cfd = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (cfd >= 0) {
                int r = rb_sandbox_rm_tree(cfd, sub, removed, err);
                close(cfd);
                if (r < 0 && !rc)
                    rc = r;
            }
            if (unlinkat(fd, de->d_name, AT_REMOVEDIR) < 0 && !rc)
                rc = rb_err_set(err, -errno, "remove %s: %s", sub, strerror(errno));
        } else if (unlinkat(fd, de->d_name, 0) == 0) {
            __atomic_add_fetch(removed, 1, __ATOMIC_RELAXED); /* read as it goes */
        } else if (!rc) {
            rc = rb_err_set(err, -errno, "remove %s/%s: %s", path, de->d_name, strerror(errno));
        }
    }
    closedir(d);
    return rc;
}

/* Removes this node's files from a shared folder, and the folder once empty. */
static int s_clean_shared(rb_sandbox_t *sb, const char *path, uint64_t *removed, rb_err_t *err)
{
    int rc = 0;
    size_t nl = strlen(sb->node);
    DIR *d = opendir(path);
    if (!d)
        return errno == ENOENT ? 0 : rb_err_set(err, -errno, "clean %s: %s", path, strerror(errno));
    struct dirent *de;
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, sb->node, nl) != 0 || de->d_name[nl] != '.')
            continue;
        if (unlinkat(dirfd(d), de->d_name, 0) == 0)
            __atomic_add_fetch(removed, 1, __ATOMIC_RELAXED); /* read as it goes */
        else if (!rc)
            rc = rb_err_set(err, -errno, "remove %s/%s: %s", path, de->d_name, strerror(errno));
    }
    closedir(d);
    rmdir(path); /* fails while other agents still have files there */
    return rc;
}

int rb_sandbox_cleanup(rb_sandbox_t *sb, uint64_t *removed, rb_err_t *err)
{
    int rc = 0;
    for (int i = 0; i < sb->nshared; i++) {
        int r = s_clean_shared(sb, sb->shared[i], removed, err);
        if (r < 0 && !rc)
            rc = r;
    }
    sb->nshared = 0;
    for (int i = 0; i < sb->nrundirs; i++) {
        s_rundir_t *rd = &sb->rundirs[i];
        if (rd->fd < 0)
            continue;
        int r = rb_sandbox_rm_tree(rd->fd, rd->path, removed, err);
        if (r < 0 && !rc)
            rc = r;
        close(rd->fd);
        rd->fd = -1;
        if (rmdir(rd->path) < 0 && !rc)
            rc = rb_err_set(err, -errno, "remove %s: %s", rd->path, strerror(errno));
    }
    sb->nrundirs = 0;
    for (uint32_t i = 0; i < sb->nclaims; i++)
        close(sb->claims[i].fd);
    sb->nclaims = 0;
    return rc;
}

int rb_sandbox_allow_device(rb_sandbox_t *sb, const char *arg, rb_err_t *err)
{
    return rb_device_allow_add(&sb->allow, arg, err);
}

void rb_sandbox_allow_open_writers(rb_sandbox_t *sb, int on)
{
    sb->allow.open_writers = on;
}

const rb_device_allow_t *rb_sandbox_allowed(const rb_sandbox_t *sb)
{
    return &sb->allow;
}

void rb_sandbox_set_sys_root(rb_sandbox_t *sb, const char *sys_root)
{
    snprintf(sb->sys_root, sizeof sb->sys_root, "%s", sys_root ? sys_root : "");
}

static const char *s_sys(const rb_sandbox_t *sb)
{
    return sb->sys_root[0] ? sb->sys_root : "/sys";
}

const char *rb_sandbox_sys_root(const rb_sandbox_t *sb)
{
    return s_sys(sb);
}

static s_claim_t *s_claim_find(rb_sandbox_t *sb, const char *real)
{
    for (uint32_t i = 0; i < sb->nclaims; i++)
        if (strcmp(sb->claims[i].info.path, real) == 0)
            return &sb->claims[i];
    return NULL;
}

const rb_device_info_t *rb_sandbox_claim_device(rb_sandbox_t *sb, const char *path, int write,
                                                rb_err_t *err)
{
    char real[PATH_MAX], why[1024] = "";
    const char *what = write ? "written" : "read";
    if (!realpath(path, real)) {
        rb_err_set(err, -errno, "device %s: %s", path, strerror(errno));
        return NULL;
    }
    s_claim_t *c = s_claim_find(sb, real);
    if (c) {
        if (write && !c->write) {
            int rc = rb_device_refusal(&sb->allow, &c->info, 'w', why, sizeof why);
            if (rc < 0) {
                rb_err_set(err, rc, "device %s (%s) may not be %s: %s", path, real, what, why);
                return NULL;
            }
            c->write = 1;
        }
        return &c->info;
    }
    if (sb->nclaims >= RB_SANDBOX_MAX_DEVICES) {
        rb_err_set(err, -E2BIG, "device %s: a plan may use at most %d devices", path,
                   RB_SANDBOX_MAX_DEVICES);
        return NULL;
    }
    c = &sb->claims[sb->nclaims];
    if (!rb_device_allow_match(&sb->allow, real)) { /* not even probed */
        rb_err_set(err, -EACCES,
                   "device %s (%s) may not be %s: not allowed on this agent (start it with "
                   "--allow-device %s)",
                   path, real, what, real);
        return NULL;
    }
    /* opened once and held exclusively (no mount, md or other exclusive
     * user meanwhile); every check runs on what is held, which the workers
     * open again through /proc/self/fd: a node swapped after this open
     * changes nothing */
    c->fd = open(real, O_RDONLY | O_EXCL | O_CLOEXEC | O_NONBLOCK);
    if (c->fd < 0) {
        int e = errno;
        if (e == EBUSY &&
            rb_device_probe(real, s_sys(sb), RB_DEV_PROBE_EXCL, NULL, &c->info, NULL) == 0 &&
            rb_device_refusal(&sb->allow, &c->info, write ? 'w' : 'r', why, sizeof why) < 0) {
            rb_err_set(err, -EBUSY, "device %s (%s) may not be %s: %s", path, real, what, why);
            return NULL;
        }
        rb_err_set(
            err, e == EBUSY ? -EBUSY : -e, "device %s (%s) may not be %s: %s", path, real, what,
            e == EBUSY ? "it is open exclusively elsewhere (O_EXCL: device busy)" : strerror(e));
        return NULL;
    }
    int rc = rb_device_probe_fd(c->fd, real, s_sys(sb), NULL, &c->info, err);
    if (rc == 0)
        rc = rb_device_refusal(&sb->allow, &c->info, write ? 'w' : 'r', why, sizeof why);
    if (rc < 0) {
        rb_err_set(err, rc, "device %s (%s) may not be %s: %s", path, real, what,
                   why); /* first wins */
        close(c->fd);
        return NULL;
    }
    c->write = write;
    sb->nclaims++;
    return &c->info;
}

int rb_sandbox_open_device(rb_sandbox_t *sb, const char *path, int flags, rb_err_t *err)
{
    char real[PATH_MAX], self[64];
    if (!realpath(path, real))
        return rb_err_set(err, -errno, "device %s: %s", path, strerror(errno));
    s_claim_t *c = s_claim_find(sb, real);
    int writes = (flags & O_ACCMODE) != O_RDONLY;
    if (!c || (writes && !c->write) || (flags & (O_CREAT | O_TRUNC)))
        return rb_err_set(err, -EPERM, "device %s (%s): not claimed for %s by this run", path, real,
                          writes ? "writing" : "reading");
    /* the very device held, whatever its path leads to now */
    snprintf(self, sizeof self, "/proc/self/fd/%d", c->fd);
    int fd = open(self, flags | O_CLOEXEC);
    if (fd < 0)
        return rb_err_set(err, -errno, "open device %s: %s", real, strerror(errno));
    return fd;
}

uint32_t rb_sandbox_idle_devices(rb_sandbox_t *sb, int write, char (*out)[PATH_MAX], uint32_t max)
{
    static char all[1024][PATH_MAX];
    uint32_t n = rb_device_list(s_sys(sb), all, 1024), k = 0;
    rb_devwriters_t *w = malloc(sizeof *w); /* read once for every device (NULL: each reads) */
    if (w)
        rb_devwriters_scan(w);
    for (uint32_t i = 0; i < n && k < max; i++) {
        rb_device_info_t d;
        char why[1024], real[PATH_MAX];
        /* one this run holds already (an earlier job's): idle for the run, as it was then */
        const s_claim_t *c = realpath(all[i], real) ? s_claim_find(sb, real) : NULL;
        if (c && rb_device_refusal(&sb->allow, &c->info, write ? 'w' : 'r', why, sizeof why) == 0)
            snprintf(out[k++], PATH_MAX, "%s", c->info.path);
        if (c)
            continue;
        if (!rb_device_allow_match(&sb->allow, all[i]) ||
            rb_device_probe(all[i], s_sys(sb), RB_DEV_PROBE_EXCL, w, &d, NULL) < 0 ||
            rb_device_refusal(&sb->allow, &d, write ? 'w' : 'r', why, sizeof why) < 0)
            continue;
        snprintf(out[k++], PATH_MAX, "%s", d.path);
    }
    free(w);
    return k;
}

/* 1 with the resolved path in real if path leads to a block device. */
static int s_is_blockdev(const char *path, char *real)
{
    struct stat st;
    return realpath(path, real) && stat(real, &st) == 0 && S_ISBLK(st.st_mode);
}

int rb_sandbox_check_device(const rb_sandbox_t *sb, const char *directory, const char *filename,
                            rb_err_t *err)
{
    char dir[PATH_MAX], path[PATH_MAX + RB_NAME_MAX], real[PATH_MAX];
    const char *named = path;
    if (directory[0] == '/' || sb->nroots == 0)
        snprintf(dir, sizeof dir, "%s", directory);
    else
        snprintf(dir, sizeof dir, "%s%s%s", sb->roots[0], directory[0] ? "/" : "", directory);
    snprintf(path, sizeof path, "%s/%s", dir, filename);
    if (!filename[0] || !s_is_blockdev(path, real)) {
        named = dir;
        if (!dir[0] || !s_is_blockdev(dir, real))
            return 0;
    }
    if (rb_device_allow_match(&sb->allow, real))
        return rb_err_set(err, -EOPNOTSUPP,
                          "device %s (%s) is named through directory=: name a raw device with "
                          "filename=%s",
                          named, real, real);
    return rb_err_set(err, -EACCES,
                      "device %s (%s) is a block device this agent may not use: start it with "
                      "--allow-device %s to allow it",
                      named, real, real);
}

int rb_sandbox_space_check(const char *path, uint64_t need, uint64_t free_bytes,
                           uint64_t total_bytes, unsigned reserve_pct, rb_err_t *err)
{
    char sneed[32], sfree[32], sres[32];
    uint64_t reserve = total_bytes / 100 * reserve_pct;
    if (need <= free_bytes && free_bytes - need >= reserve)
        return 0;
    return rb_err_set(err, -ENOSPC,
                      "%s: the plan needs %s, %s are free and %s (%u%%) must stay free "
                      "(--reserve)",
                      path, rb_units_fmt_size(sneed, sizeof sneed, (double)need),
                      rb_units_fmt_size(sfree, sizeof sfree, (double)free_bytes),
                      rb_units_fmt_size(sres, sizeof sres, (double)reserve), reserve_pct);
}

int rb_sandbox_check_space(const rb_sandbox_t *sb, int idx, uint64_t need, unsigned reserve_pct,
                           rb_err_t *err)
{
    uint64_t fr = 0, total = 0;
    if (rb_sandbox_rundir_space(sb, idx, &fr, &total) < 0)
        return 0;
    return rb_sandbox_space_check(sb->rundirs[idx].path, need, fr, total, reserve_pct, err);
}
