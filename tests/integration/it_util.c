/* Shared helpers of the integration tests (see it_util.h). */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
/* cmocka.h after what it needs */
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "it_util.h"
#include "rb_json.h"
#include "rb_time.h"

const char *it_scratch(const char *test_name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/scratch-%s-%d", RB_IT_TMP, test_name, (int)getpid());
    it_rmtree(path);
    mkdir(RB_IT_TMP, 0755);
    if (mkdir(path, 0755) < 0) {
        fprintf(stderr, "cannot make %s: %s\n", path, strerror(errno));
        abort();
    }
    return path;
}

static int s_rm(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(p) < 0 ? 0 : 0;
}

void it_rmtree(const char *path)
{
    nftw(path, s_rm, 16, FTW_DEPTH | FTW_PHYS);
}

void it_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s: %s\n", path, strerror(errno));
        abort();
    }
}

char *it_read(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t n;
    while (buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (cap - len < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* Starts "exec CMD >out 2>err" under /bin/sh; returns its pid. */
static int s_spawn(const char *out_path, const char *err_path, const char *fmt, va_list ap)
{
    char cmd[8192], line[9000];
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    snprintf(line, sizeof line, "exec %s >'%s' 2>'%s'", cmd, out_path ? out_path : "/dev/null",
             err_path ? err_path : "/dev/null");
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", line, (char *)NULL);
        _exit(127);
    }
    return (int)pid;
}

int it_sh(const char *out_path, const char *err_path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int pid = s_spawn(out_path, err_path, fmt, ap);
    va_end(ap);
    return pid < 0 ? -1 : it_wait(pid);
}

int it_sh_bg(const char *out_path, const char *err_path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int pid = s_spawn(out_path, err_path, fmt, ap);
    va_end(ap);
    return pid;
}

int it_wait(int pid)
{
    int code = it_wait_exit(pid, it_deadline(IT_COMMAND_MS));
    return code == -ETIMEDOUT ? -1 : code;
}

uint64_t it_deadline(unsigned ms)
{
    return rb_time_mono_ns() + (uint64_t)ms * RB_TEST_TIME_SCALE * RB_NS_PER_MS;
}

int it_wait_until(int (*ready)(void *arg), void *arg, uint64_t deadline)
{
    for (;;) {
        int past = rb_time_mono_ns() >= deadline;
        if (ready(arg))
            return 0;
        if (past)
            return -ETIMEDOUT;
        uint64_t next = rb_time_mono_ns() + 10 * RB_NS_PER_MS;
        rb_time_sleep_until_ns(next < deadline ? next : deadline);
    }
}

/* What a samples wait looks for, and what it saw last. */
typedef struct {
    const char *runs_dir; /* its one run folder holds the samples.csv */
    const char *text;     /* what to find */
    int want;             /* at least this many times */
    int seen;             /* found the last time it looked */
} s_find_t;

static int s_holds(void *arg)
{
    s_find_t *f = arg;
    char folder[4096], samples[4200];
    if (it_run_folder(f->runs_dir, folder, sizeof folder) < 0)
        return 0;
    snprintf(samples, sizeof samples, "%s/samples.csv", folder);
    char *t = it_read(samples);
    f->seen = 0;
    for (const char *c = t; c && (c = strstr(c, f->text)); c++)
        f->seen++;
    free(t);
    return f->seen >= f->want;
}

int it_wait_for_samples(const char *runs_dir, const char *text, int n, uint64_t deadline)
{
    s_find_t f = {.runs_dir = runs_dir, .text = text, .want = n};
    int rc = it_wait_until(s_holds, &f, deadline);
    if (rc < 0)
        fprintf(stderr, "samples.csv in %s holds '%s' %d times, not %d, at the deadline\n",
                runs_dir, text, f.seen, n);
    return rc;
}

/* What a text wait looks for: a needle in a file. */
typedef struct {
    const char *path;
    const char *text;
} s_text_t;

static int s_has_text(void *arg)
{
    const s_text_t *x = arg;
    char *t = it_read(x->path);
    int found = t && strstr(t, x->text);
    free(t);
    return found;
}

int it_wait_for_text(const char *path, const char *text, uint64_t deadline)
{
    s_text_t x = {.path = path, .text = text};
    int rc = it_wait_until(s_has_text, &x, deadline);
    if (rc < 0) {
        char *t = it_read(path);
        fprintf(stderr, "'%s' not in %s at the deadline:\n%s\n", text, path,
                t ? t : "(unreadable)");
        free(t);
    }
    return rc;
}

/* A file count to reach below a path, and the last count. */
typedef struct {
    const char *path; /* the folder */
    int want;         /* at least this many files */
    int seen;         /* the last count */
} s_files_t;

static int s_enough_files(void *arg)
{
    s_files_t *f = arg;
    f->seen = it_count_files(f->path);
    return f->seen >= f->want;
}

int it_wait_for_files(const char *path, int n, uint64_t deadline)
{
    s_files_t f = {.path = path, .want = n};
    if (it_wait_until(s_enough_files, &f, deadline) < 0) {
        fprintf(stderr, "%d files below %s, not %d, at the deadline\n", f.seen, path, n);
        return -ETIMEDOUT;
    }
    return f.seen;
}

int it_wait_exit(int pid, uint64_t deadline)
{
    int st;
    for (;;) {
        pid_t r = waitpid((pid_t)pid, &st, WNOHANG);
        if (r == (pid_t)pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (r < 0 && errno != EINTR)
            return -1;
        if (rb_time_mono_ns() >= deadline) {
            fprintf(stderr, "pid %d still running at its deadline: killed\n", pid);
            kill((pid_t)pid, SIGKILL);
            while (waitpid((pid_t)pid, &st, 0) < 0 && errno == EINTR)
                ;
            return -ETIMEDOUT;
        }
        uint64_t next = rb_time_mono_ns() + 10 * RB_NS_PER_MS;
        rb_time_sleep_until_ns(next < deadline ? next : deadline);
    }
}

/* The command line of pid with its NULs as spaces, into cmd; its ppid into
 * *ppid. 0, or -1 when the process is gone. */
static int s_proc(int pid, char *cmd, size_t len, int *ppid)
{
    char path[64], stat[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *rp = strrchr(stat, ')'); /* the name may hold spaces and parentheses */
    if (!rp || sscanf(rp + 1, " %*c %d", ppid) != 1)
        return -1;
    snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
    f = fopen(path, "r");
    if (!f)
        return -1;
    n = fread(cmd, 1, len - 1, f);
    fclose(f);
    for (size_t i = 0; i < n; i++)
        if (cmd[i] == '\0')
            cmd[i] = ' ';
    cmd[n] = '\0';
    return n > 0 ? 0 : -1;
}

/* Calls visit(pid, arg) for every process whose parent is parent (any
 * parent when parent is 0) and whose command line holds every word. */
static int s_each(int parent, const char **words, int nw, void (*visit)(int pid, void *arg),
                  void *arg)
{
    int found = 0;
    DIR *d = opendir("/proc");
    struct dirent *de;
    while (d && (de = readdir(d))) {
        char cmd[8192];
        int pid = atoi(de->d_name), ppid = 0;
        if (pid <= 0 || pid == getpid() || s_proc(pid, cmd, sizeof cmd, &ppid) < 0)
            continue;
        if (parent && ppid != parent)
            continue;
        int all = 1;
        for (int i = 0; i < nw && all; i++)
            all = strstr(cmd, words[i]) != NULL;
        if (all) {
            found++;
            if (visit)
                visit(pid, arg);
        }
    }
    if (d)
        closedir(d);
    return found;
}

static int s_words(const char **words, const char *word, va_list ap)
{
    int nw = 0;
    for (const char *w = word; w && nw < 16; w = va_arg(ap, const char *))
        words[nw++] = w;
    return nw;
}

int it_count_matching(const char *word, ...)
{
    const char *words[16];
    va_list ap;
    va_start(ap, word);
    int nw = s_words(words, word, ap);
    va_end(ap);
    return s_each(0, words, nw, NULL, NULL);
}

static void s_keep(int pid, void *arg)
{
    *(int *)arg = pid;
}

int it_child_matching(int parent, const char *word, ...)
{
    const char *words[16];
    int pid = 0;
    va_list ap;
    va_start(ap, word);
    int nw = s_words(words, word, ap);
    va_end(ap);
    int n = s_each(parent, words, nw, s_keep, &pid);
    return n > 1 ? -1 : pid;
}

typedef struct {
    int sig, signalled;
} s_kill_t;

static void s_kill(int pid, void *arg)
{
    s_kill_t *k = arg;
    k->signalled += kill(pid, k->sig) == 0;
}

int it_kill_tree(int parent, int sig)
{
    s_kill_t k = {.sig = sig};
    if (parent <= 0)
        return 0;
    s_each(parent, NULL, 0, s_kill, &k);
    k.signalled += kill(parent, sig) == 0;
    return k.signalled;
}

static int s_nfiles;

static int s_count(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)p;
    (void)st;
    (void)ftw;
    if (flag == FTW_F || flag == FTW_SL)
        s_nfiles++;
    return 0;
}

int it_count_files(const char *path)
{
    s_nfiles = 0;
    nftw(path, s_count, 16, FTW_PHYS);
    return s_nfiles;
}

int it_run_folder(const char *runs_dir, char *out, size_t len)
{
    DIR *d = opendir(runs_dir);
    struct dirent *de;
    int n = 0;
    if (!d)
        return -1;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(out, len, "%s/%s", runs_dir, de->d_name);
        n++;
    }
    closedir(d);
    return n == 1 ? 0 : -1;
}

const char *it_bin(const char *name)
{
    static char path[2][4096];
    int i = strcmp(name, "rackbench") == 0 ? 0 : 1;
    snprintf(path[i], sizeof path[i], "%s/%s", RB_IT_BIN, name);
    return path[i];
}

long it_sh_number(const char *dir, const char *fmt, ...)
{
    char path[4300], cmd[8000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    snprintf(path, sizeof path, "%s/count", dir);
    if (it_sh(path, NULL, "%s", cmd) != 0)
        return -1;
    char *t = it_read(path);
    long n = t ? strtol(t, NULL, 10) : -1;
    free(t);
    return n;
}

int it_show_failure(int code, const char *err_path)
{
    if (code != 0) {
        char *e = it_read(err_path);
        fprintf(stderr, "rackbench exited %d:\n%s\n", code, e ? e : "");
        free(e);
    }
    return code;
}

struct rb_json *it_summary(const char *runs_dir, char *folder, size_t len)
{
    char path[4400];
    rb_err_t e;
    rb_err_clear(&e);
    if (it_run_folder(runs_dir, folder, len) < 0) {
        fprintf(stderr, "no single run folder in %s\n", runs_dir);
        return NULL;
    }
    snprintf(path, sizeof path, "%s/summary.json", folder);
    rb_json_t *j = rb_json_load(path, &e);
    if (!j)
        fprintf(stderr, "%s\n", e.msg);
    return j;
}

int it_run_tests(const char *name, const struct CMUnitTest *tests, size_t n, int argc, char **argv)
{
    unsigned k = 1, parts = 1;
    if (argc > 1 && (sscanf(argv[1], "%u/%u", &k, &parts) != 2 || !parts || !k || k > parts)) {
        fprintf(stderr, "%s: '%s' is not a part K/N of the cases\n", name, argv[1]);
        return 2;
    }
    size_t from = n * (k - 1) / parts, to = n * k / parts;
    const char *only = getenv("RB_IT_CASE"); /* one case (a glob) of them, to chase it */
    if (only && *only)
        cmocka_set_test_filter(only);
    return _cmocka_run_group_tests(name, tests + from, to - from, NULL, NULL);
}
