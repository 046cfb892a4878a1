/* lfs setstripe for the run folders of a plan that asks for Lustre
 * striping; a fork and exec of the lfs binary, nothing else. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rb_lustre.h"
#include "rb_proto.h"

int rb_lustre_is_on(const char *dir, rb_err_t *err)
{
    struct statfs st;
    if (statfs(dir, &st) < 0)
        return rb_err_set(err, -errno, "statfs %s: %s", dir, strerror(errno));
    return (unsigned long)st.f_type == (unsigned long)RB_LUSTRE_MAGIC;
}

int rb_lustre_setstripe(const char *dir, uint32_t count, uint64_t size, rb_err_t *err)
{
    int on = rb_lustre_is_on(dir, err);
    if (on <= 0)
        return on;
    char c[16], s[32];
    const char *argv[8];
    int n = 0;
    argv[n++] = "lfs";
    argv[n++] = "setstripe";
    if (count) {
        if (count == RB_LUSTRE_STRIPE_ALL)
            snprintf(c, sizeof c, "-1");
        else
            snprintf(c, sizeof c, "%" PRIu32, count);
        argv[n++] = "-c";
        argv[n++] = c;
    }
    if (size) {
        snprintf(s, sizeof s, "%" PRIu64, size);
        argv[n++] = "-S";
        argv[n++] = s;
    }
    argv[n++] = dir;
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid < 0)
        return rb_err_set(err, -errno, "lfs setstripe %s: fork: %s", dir, strerror(errno));
    if (pid == 0) {
        execvp("lfs", (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return rb_err_set(err, -errno, "lfs setstripe %s: wait: %s", dir, strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return rb_err_set(err, -ENOENT, "lfs setstripe %s: no lfs command (lustre-client)", dir);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return rb_err_set(err, -EIO, "lfs setstripe %s: exit status %d", dir,
                          WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    return 1;
}
