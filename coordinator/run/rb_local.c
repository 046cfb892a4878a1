/* --local: the agents the coordinator starts on this machine itself (the
 * embedded default: one box, no set-up), their ephemeral keys, and their
 * exits weighed against their nodes' states. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rb_auth.h"
#include "rb_fs.h"
#include "rb_local.h"
#include "rb_log.h"
#include "rb_report.h"
#include "rb_time.h"

static int s_exit_code(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#define S_EXIT_GRACE_NS (1 * RB_NS_PER_S) /* for an END sent just before a clean exit */

void rb_local_reap(rb_run_ctx_t *r)
{
    uint64_t now = rb_time_mono_ns();
    for (uint32_t i = 0; i < r->nchildren; i++) {
        rb_local_child_t *c = &r->children[i];
        if (c->pid && waitpid(c->pid, &c->status, WNOHANG) == c->pid) {
            c->pid = 0;
            c->exited_ns = now;
        }
        if (c->pid || c->judged)
            continue;
        rb_fleet_node_t *n = rb_fleet_find(&r->fleet, c->name);
        int code = s_exit_code(c->status);
        if (n && n->state == RB_AGENT_ENDED) {
            c->judged = 1;
            continue;
        }
        /* An agent that exits cleanly right after its END: the message may
         * still be on its way through the socket. Wait a moment for it. */
        if (code == 0 && n && n->state != RB_AGENT_GONE && now - c->exited_ns < S_EXIT_GRACE_NS)
            continue;
        c->judged = 1;
        if (n && n->state != RB_AGENT_GONE)
            rb_fleet_node_out(n, RB_NODE_LOST, "local agent process exited with code %d", code);
        else if (!n && r->gathering)
            rb_run_fail(r,
                        "local agent %s exited with code %d before joining (see its message above)",
                        c->name, code);
    }
}

/* Removes the files of a key folder and the folder; -errno of the rmdir. */
static int s_rm_keydir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char path[PATH_MAX + 300];
    while (d && (de = readdir(d)))
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    return rmdir(dir) < 0 ? -errno : 0;
}

/* Removes the local agents' key folder, if any. */
void rb_local_drop_keys(rb_run_ctx_t *r)
{
    if (r->keydir[0]) {
        int rc = s_rm_keydir(r->keydir);
        if (rc < 0)
            rb_warn("cannot remove the local agents' key folder %s: %s", r->keydir, strerror(-rc));
        r->keydir[0] = '\0';
    }
    if (r->keylock >= 0)
        close(r->keylock);
    r->keylock = -1;
}

void rb_local_joined(rb_run_ctx_t *r, const char *name)
{
    char path[PATH_MAX + 300];
    if (!r->o->local || !r->keydir[0])
        return;
    snprintf(path, sizeof path, "%s/%s.key_secret", r->keydir, name);
    unlink(path);
}

/* Removes the key folders in out that no coordinator holds any more: a
 * coordinator holds a flock on its folder while it runs, which the kernel
 * drops when the process dies, however it dies (SIGKILL included). */
static void s_drop_stale_keys(const char *out)
{
    DIR *d = opendir(out);
    struct dirent *de;
    char path[PATH_MAX + 300];
    while (d && (de = readdir(d))) {
        if (strncmp(de->d_name, ".keys-", 6) != 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", out, de->d_name);
        int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0 && s_rm_keydir(path) == 0)
            rb_info("removed %s, the local agents' keys of a coordinator that was killed", path);
        close(fd);
    }
    if (d)
        closedir(d);
}

/* --local: an ephemeral key pair for the coordinator and one per agent, in a
 * 0700 folder beside the run folders: the agents' secret keys and the
 * coordinator's public key, for the agents to read when they start. The
 * folder is made under a name the sweep of stale folders does not look at,
 * locked, then renamed: a folder named .keys-* is always either locked by a
 * live coordinator or stale. */
int rb_local_keys(rb_run_ctx_t *r, zcert_t *server, zcertstore_t *store, rb_err_t *err)
{
    const char *out = r->o->out_dir ? r->o->out_dir : "runs";
    char path[PATH_MAX + 100], made[PATH_MAX];
    int rc = rb_fs_mkdirs(out); /* before the run folder, which comes after the bind */
    if (rc < 0)
        return rb_err_set(err, rc, "--out %s: %s", out, strerror(-rc));
    s_drop_stale_keys(out);
    snprintf(made, sizeof made, "%s/.new-keys-XXXXXX", out);
    if (!mkdtemp(made))
        return rb_err_set(err, -errno, "cannot make a key folder in %s: %s", out, strerror(errno));
    r->keylock = open(made, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    snprintf(r->keydir, sizeof r->keydir, "%s/.keys-%s-%s", out, r->run_id,
             made + strlen(out) + strlen("/.new-keys-"));
    if (r->keylock < 0 || flock(r->keylock, LOCK_EX) < 0 || rename(made, r->keydir) < 0) {
        int e = errno;
        rmdir(made);
        r->keydir[0] = '\0';
        return rb_err_set(err, -e, "cannot lock a key folder in %s: %s", out, strerror(e));
    }
    snprintf(path, sizeof path, "%s/coordinator.key", r->keydir);
    if (rb_auth_save(server, path, 0, err) < 0)
        return err->code;
    for (uint32_t i = 0; i < r->o->local; i++) {
        if (rb_run_interrupted)
            return rb_err_set(err, -EINTR, "interrupted while making the local agents' keys");
        zcert_t *cert = zcert_new();
        if (!cert)
            return rb_err_set(err, -ENOMEM, "cannot make a key pair");
        snprintf(path, sizeof path, "%s/local-%u.key_secret", r->keydir, i + 1);
        zcert_set_meta(cert, "name", "local-%u", i + 1);
        rc = rb_auth_save(cert, path, 1, err);
        if (rc == 0)
            zcertstore_insert(store, &cert);
        zcert_destroy(&cert);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int s_agent_bin(const rb_run_opts_t *o, char *out, size_t len)
{
    if (o->agent_bin) {
        snprintf(out, len, "%s", o->agent_bin);
        return 0;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0)
        return -errno;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash)
        *slash = '\0';
    snprintf(out, len, "%s/rackbench-agent", self);
    return access(out, X_OK) == 0 ? 0 : -errno;
}

/* An --agent-arg for the agent called name: each "{node}" in arg becomes
 * name, so that each agent of --local can be given its own devices. */
static const char *s_node_arg(const char *arg, const char *name, char *out, size_t len)
{
    size_t o = 0;
    for (const char *p = arg; *p && o + 1 < len;) {
        if (!strncmp(p, "{node}", 6)) {
            int w = snprintf(out + o, len - o, "%s", name);
            o = w > 0 && o + (size_t)w < len ? o + (size_t)w : len - 1;
            p += 6;
        } else {
            out[o++] = *p++;
        }
    }
    out[o] = '\0';
    return out;
}

/* Adds folder dir (absolute) to the roots, unless it is one or below one. */
static int s_add_root(rb_run_ctx_t *r, const char *dir, size_t len, rb_err_t *err)
{
    while (len > 1 && dir[len - 1] == '/')
        len--;
    if (!len)
        return 0;
    for (uint32_t i = 0; i < r->nroots; i++) {
        size_t n = strlen(r->roots[i]);
        if (n <= len && !strncmp(dir, r->roots[i], n) && (dir[n] == '/' || n == len || n == 1))
            return 0;
    }
    if (r->nroots == RB_MAX_ROOTS)
        return rb_err_set(err, -E2BIG,
                          "the plan's jobs write to more than %d folders, the most a local agent "
                          "takes as roots (%.*s is one too many)",
                          RB_MAX_ROOTS, (int)len, dir);
    if (len >= sizeof r->roots[0])
        return rb_err_set(err, -ENAMETOOLONG, "folder %.64s...: path too long", dir);
    snprintf(r->roots[r->nroots++], sizeof r->roots[0], "%.*s", (int)len, dir);
    return 0;
}

/* Each folder of a directory list ("/a:/b"). */
static int s_add_dirs(rb_run_ctx_t *r, const char *list, rb_err_t *err)
{
    int rc = 0;
    for (const char *d = list; *d && rc == 0;) {
        size_t n = strcspn(d, ":");
        rc = s_add_root(r, d, n, err);
        d += n + (d[n] == ':');
    }
    return rc;
}

int rb_local_roots(rb_run_ctx_t *r, rb_err_t *err)
{
    const rb_plan_t *p = r->plan;
    int devices = p->nphases > 0, rc = 0;
    if (!r->roots && !(r->roots = calloc(RB_MAX_ROOTS, sizeof *r->roots)))
        return rb_err_set(err, -ENOMEM, "out of memory");
    r->nroots = 0;
    rc = s_add_dirs(r, p->directory, err);
    for (uint32_t i = 0; rc == 0 && i < p->nphases; i++) {
        for (uint32_t j = 0; rc == 0 && j < p->phases[i].njobs; j++) {
            const rb_job_spec_t *js = &p->phases[i].jobs[j];
            devices = devices && (js->device[0] != '\0' || js->network);
            if (js->device[0] || js->network)
                continue;
            if (js->directory[0])
                rc = s_add_dirs(r, js->directory, err);
            else if (js->filename[0] == '/' && strncmp(js->filename, "/dev/", 5) != 0)
                rc =
                    s_add_root(r, js->filename, (size_t)(strrchr(js->filename, '/') - js->filename),
                               err); /* fio writes an absolute filename where it says */
        }
    }
    /* raw devices and networks only: the agents make no files, only their run
     * folders, which go */
    if (rc == 0 && devices && !r->nroots) {
        const char *out = r->o->out_dir ? r->o->out_dir : "runs";
        rc = s_add_root(r, out, strlen(out), err);
    }
    return rc;
}

int rb_local_start(rb_run_ctx_t *r)
{
    char bin[PATH_MAX];
    const rb_run_opts_t *o = r->o;
    int rc = s_agent_bin(o, bin, sizeof bin);
    if (rc < 0) {
        rb_run_fail(r, "cannot find rackbench-agent beside rackbench (%s); use --agent-bin",
                    strerror(-rc));
        return rc;
    }
    for (uint32_t k = 0; k < r->nroots; k++) {
        if ((rc = rb_fs_mkdirs(r->roots[k])) < 0) {
            rb_run_fail(r, "directory %s: %s", r->roots[k], strerror(-rc));
            return rc;
        }
    }
    r->children = calloc(o->local, sizeof *r->children);
    if (!r->children)
        return -ENOMEM;
    char hb[32], lost[32];
    snprintf(hb, sizeof hb, "%llums", (unsigned long long)(o->heartbeat_ns / RB_NS_PER_MS));
    snprintf(lost, sizeof lost, "%llums", (unsigned long long)(o->lost_after_ns / RB_NS_PER_MS));
    fflush(NULL);
    for (uint32_t i = 0; i < o->local; i++) {
        if (rb_run_interrupted) {
            rb_run_fail(r, "interrupted while starting the local agents (%u of %u started)", i,
                        o->local);
            return -EINTR;
        }
        rb_local_child_t *c = &r->children[i];
        snprintf(c->name, sizeof c->name, "local-%u", i + 1);
        const char *argv[] = {bin,
                              "--coordinator",
                              r->endpoint,
                              "--name",
                              c->name,
                              "--rack",
                              "local",
                              "--once",
                              "--heartbeat",
                              hb,
                              "--lost-after",
                              lost,
                              o->verbose ? "--verbose" : "--quiet",
                              NULL,
                              NULL,
                              NULL,
                              NULL,
                              [17 + RB_RUN_AGENT_ARGS_MAX + 2 * RB_MAX_ROOTS] = NULL};
        char key[PATH_MAX], ckey[PATH_MAX];
        size_t na = 13;
        for (uint32_t k = 0; k < r->nroots; k++) { /* each root, before the keys */
            argv[na++] = "--root";
            argv[na++] = r->roots[k];
        }
        if (o->insecure) {
            argv[na++] = "--insecure";
        } else {
            snprintf(key, sizeof key, "%s/%s.key_secret", r->keydir, c->name);
            snprintf(ckey, sizeof ckey, "%s/coordinator.key", r->keydir);
            argv[na] = "--key";
            argv[na + 1] = key;
            argv[na + 2] = "--coordinator-key";
            argv[na + 3] = ckey;
            na += 4;
        }
        static char args[RB_RUN_AGENT_ARGS_MAX][PATH_MAX]; /* the child copies them at fork */
        for (uint32_t k = 0; k < o->nagent_args; k++)      /* after the keys, before the NULL */
            argv[na + k] = s_node_arg(o->agent_args[k], c->name, args[k], sizeof args[k]);
        pid_t pid = fork();
        if (pid < 0) {
            rb_run_fail(r, "cannot start local agent %s: %s", c->name, strerror(errno));
            return -errno;
        }
        if (pid == 0) {
            /* The agent goes when we go, even if we are killed. */
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            /* Its own process group: a Ctrl-C reaches the coordinator only,
             * which stops the run in order and collects what was done. */
            setpgid(0, 0);
            execv(bin, (char *const *)argv);
            fprintf(stderr, "rackbench: cannot run %s: %s\n", bin, strerror(errno));
            _exit(127);
        }
        c->pid = pid;
        r->nchildren++;
    }
    return 0;
}

/* A local agent that ended the run but then exited with an error (a failed
 * clean-up, a sanitizer report) spoils the run as much as an IO error. */
static void s_check_child_exits(rb_run_ctx_t *r)
{
    for (uint32_t i = 0; i < r->nchildren; i++) {
        rb_local_child_t *c = &r->children[i];
        rb_fleet_node_t *n = rb_fleet_find(&r->fleet, c->name);
        int code = s_exit_code(c->status);
        if (c->pid || !n || n->status != RB_NODE_OK || code == 0)
            continue;
        n->status = RB_NODE_FAILED;
        snprintf(n->error, sizeof n->error, "local agent process exited with code %d", code);
        rb_warn("local agent %s exited with code %d", c->name, code);
    }
}

/* Local agents that did not confirm their clean-up (killed, lost, or a
 * removal that failed): once none of them runs, the run's folders under the
 * local root go with `rackbench-agent --cleanup --run RUN`, the agent's own
 * rules (names, owner, locks, no symlink followed), and the nodes say so. */
static void s_clean_after(rb_run_ctx_t *r)
{
    char names[256] = "", bin[PATH_MAX], line[512] = "", buf[4096];
    uint32_t left = 0;
    size_t o = 0;
    for (uint32_t i = 0; i < r->nchildren; i++) {
        rb_fleet_node_t *n = rb_fleet_find(&r->fleet, r->children[i].name);
        if (!n || n->cleanup != RB_CLEANUP_UNCONFIRMED)
            continue;
        int w = snprintf(names + o, sizeof names - o, "%s%s", left ? ", " : "", n->hello.name);
        o = w > 0 && o + (size_t)w < sizeof names ? o + (size_t)w : o;
        left++;
    }
    if (!left || !r->run_id[0] || !r->nroots)
        return;
    int pfd[2];
    if (s_agent_bin(r->o, bin, sizeof bin) < 0 || pipe2(pfd, O_CLOEXEC) < 0) {
        rb_warn("local agents %s did not clean up, and no rackbench-agent can: their files may "
                "remain under %s (rackbench-agent --cleanup --root %s --run %s)",
                names, r->roots[0], r->roots[0], r->run_id);
        return;
    }
    const char *argv[4 + 2 * RB_MAX_ROOTS + 1] = {bin, "--cleanup", "--run", r->run_id};
    for (uint32_t k = 0; k < r->nroots; k++) {
        argv[4 + 2 * k] = "--root";
        argv[5 + 2 * k] = r->roots[k];
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(pfd[1], STDOUT_FILENO);
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    close(pfd[1]);
    ssize_t got;
    while (pid > 0 && (got = read(pfd[0], buf, sizeof buf - 1)) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            break;
        buf[got] = '\0';
        char *last = strstr(buf, "cleanup: ");
        if (last)
            snprintf(line, sizeof line, "%.*s", (int)strcspn(last, "\n"), last);
    }
    close(pfd[0]);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || s_exit_code(status) != 0) {
        rb_warn("local agents %s did not clean up, and removing their files failed (%s): run "
                "rackbench-agent --cleanup --root %s --run %s",
                names, pid < 0 ? strerror(errno) : "see above", r->roots[0], r->run_id);
        return;
    }
    for (uint32_t i = 0; i < r->nchildren; i++) {
        rb_fleet_node_t *n = rb_fleet_find(&r->fleet, r->children[i].name);
        if (n && n->cleanup == RB_CLEANUP_UNCONFIRMED)
            n->cleanup = RB_CLEANUP_BY_COORDINATOR;
    }
    rb_warn("local agent%s %s did not clean up: the coordinator removed what run %s left under "
            "%s (%s)",
            left == 1 ? "" : "s", names, r->run_id, r->roots[0],
            line[0] ? line + strlen("cleanup: ") : "done");
}

void rb_local_stop(rb_run_ctx_t *r)
{
    /* Agents that confirmed the end exit by themselves; the others are told to. */
    for (uint32_t i = 0; i < r->nchildren; i++) {
        rb_local_child_t *c = &r->children[i];
        rb_fleet_node_t *n = rb_fleet_find(&r->fleet, c->name);
        if (c->pid && (!n || n->state != RB_AGENT_ENDED))
            kill(c->pid, SIGTERM);
    }
    uint64_t deadline = rb_time_mono_ns() + 5 * RB_NS_PER_S;
    for (;;) {
        uint32_t alive = 0;
        for (uint32_t i = 0; i < r->nchildren; i++) {
            rb_local_child_t *c = &r->children[i];
            if (c->pid && waitpid(c->pid, &c->status, WNOHANG) == c->pid)
                c->pid = 0;
            alive += c->pid != 0;
        }
        if (!alive)
            break;
        if (rb_time_mono_ns() > deadline) {
            for (uint32_t i = 0; i < r->nchildren; i++)
                if (r->children[i].pid) {
                    rb_warn("local agent %s still running; killing it", r->children[i].name);
                    kill(r->children[i].pid, SIGKILL);
                    waitpid(r->children[i].pid, &r->children[i].status, 0);
                    r->children[i].pid = 0;
                }
            break;
        }
        usleep(10000);
    }
    s_check_child_exits(r);
    s_clean_after(r);
}
