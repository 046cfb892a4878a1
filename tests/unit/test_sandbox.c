/* The agent's sandbox and its cleanup: a file planted beside or inside the
 * agent's folders is never opened to write, block devices need
 * --allow-device, the capacity guard gives its figures, and --cleanup
 * removes only what agents left. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rb_cleanup.h"
#include "rb_sandbox.h"

#define S_RUN "20240102-030405-beef"

static char s_dir[PATH_MAX];

/* A fresh folder under the build tree for one test. */
static const char *s_fresh(const char *name)
{
    char cmd[PATH_MAX + 64];
    snprintf(s_dir, sizeof s_dir, "%s/%s", RB_TEST_TMP, name);
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", s_dir, s_dir);
    assert_int_equal(system(cmd), 0);
    return s_dir;
}

static void s_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int s_same(const char *path, const char *text)
{
    char buf[256] = "";
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strcmp(buf, text) == 0;
}

static int s_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* filename=ROOT/victim splits into directory ROOT and name victim: the agent
 * makes its own "victim" in its run folder; the planted one stays as it was. */
static void test_planted_file_not_written(void **state)
{
    (void)state;
    const char *root = s_fresh("planted");
    char victim[PATH_MAX], dir[RB_PATH_MAX], mine[PATH_MAX];
    rb_err_t err;
    rb_err_clear(&err);
    snprintf(victim, sizeof victim, "%s/victim", root);
    s_write(victim, "precious");
    rb_sandbox_t *sb = rb_sandbox_new();
    assert_int_equal(rb_sandbox_add_root(sb, root, &err), 0);
    assert_int_equal(rb_sandbox_resolve(sb, root, dir, sizeof dir, &err), 0);
    int idx = rb_sandbox_rundir(sb, dir, S_RUN, "n1", &err);
    assert_true(idx >= 0);
    int fd = rb_sandbox_open(sb, idx, "victim", O_WRONLY | O_CREAT | O_TRUNC, &err);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "junk", 4), 4);
    close(fd);
    assert_true(s_same(victim, "precious"));
    snprintf(mine, sizeof mine, "%s/rackbench.%s.n1/victim", root, S_RUN);
    assert_true(s_same(mine, "junk"));
    /* names that would leave the run folder are refused */
    assert_int_equal(rb_sandbox_open(sb, idx, "../victim", O_WRONLY, &err), -EINVAL);
    rb_sandbox_destroy(&sb);
    assert_false(s_exists(mine));
    assert_true(s_same(victim, "precious"));
}

/* A planted hard link or symlink in a shared folder is not written through,
 * and a run id that is not a plain name makes no folder. */
static void test_planted_links_refused(void **state)
{
    (void)state;
    const char *root = s_fresh("links");
    char victim[PATH_MAX], shared[PATH_MAX], lnk[PATH_MAX + 32], dir[RB_PATH_MAX];
    char path[RB_PATH_MAX];
    rb_err_t err;
    rb_err_clear(&err);
    snprintf(victim, sizeof victim, "%s/victim", root);
    s_write(victim, "precious");
    snprintf(shared, sizeof shared, "%s/rackbench.%s.shared", root, S_RUN);
    assert_int_equal(mkdir(shared, 0755), 0);
    snprintf(lnk, sizeof lnk, "%s/n1.hard", shared);
    assert_int_equal(link(victim, lnk), 0);
    snprintf(lnk, sizeof lnk, "%s/n1.soft", shared);
    assert_int_equal(symlink(victim, lnk), 0);

    rb_sandbox_t *sb = rb_sandbox_new();
    assert_int_equal(rb_sandbox_add_root(sb, root, &err), 0);
    assert_int_equal(rb_sandbox_resolve(sb, "", dir, sizeof dir, &err), 0);
    assert_int_equal(rb_sandbox_rundir(sb, dir, "../../x", "n1", &err), -EINVAL);
    rb_err_clear(&err);
    int idx = rb_sandbox_rundir(sb, dir, S_RUN, "n1", &err);
    assert_true(idx >= 0);
    int fd = rb_sandbox_open_shared(sb, idx, S_RUN, "n1.hard", O_WRONLY | O_CREAT, path,
                                    sizeof path, &err);
    assert_int_equal(fd, -EPERM);
    assert_non_null(strstr(err.msg, "hard links"));
    rb_err_clear(&err);
    fd = rb_sandbox_open_shared(sb, idx, S_RUN, "n1.soft", O_WRONLY | O_CREAT, path, sizeof path,
                                &err);
    assert_int_equal(fd, -ELOOP);
    /* reading a peer's file never writes */
    assert_int_equal(
        rb_sandbox_open_peer(sb, idx, S_RUN, "n2", "f", O_RDWR, path, sizeof path, &err), -EPERM);
    rb_sandbox_destroy(&sb);
    assert_true(s_same(victim, "precious"));
}

/* The first block device in /dev, or "" when the machine shows none. */
static void s_some_blockdev(char *out, size_t len)
{
    static const char *names[] = {"loop0", "vda", "sda", "nvme0n1", "xvda", "zram0"};
    out[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct stat st;
        snprintf(out, len, "/dev/%s", names[i]);
        if (stat(out, &st) == 0 && S_ISBLK(st.st_mode))
            return;
    }
    out[0] = '\0';
}

static void test_devices(void **state)
{
    (void)state;
    const char *root = s_fresh("devices");
    char file[PATH_MAX], dev[64];
    rb_err_t err;
    rb_err_clear(&err);
    snprintf(file, sizeof file, "%s/plain", root);
    s_write(file, "x");
    rb_sandbox_t *sb = rb_sandbox_new();
    assert_int_equal(rb_sandbox_add_root(sb, root, &err), 0);
    assert_int_equal(rb_sandbox_allow_device(sb, file, &err), -ENOTBLK);
    assert_non_null(strstr(err.msg, "not a block device"));
    rb_err_clear(&err);
    assert_int_equal(rb_sandbox_allow_device(sb, "/dev/no-such-disk", &err), -ENOENT);
    rb_err_clear(&err);
    /* plain folders and files are not devices */
    assert_int_equal(rb_sandbox_check_device(sb, root, "plain", &err), 0);
    assert_int_equal(rb_sandbox_check_device(sb, "", "", &err), 0);
    assert_int_equal(rb_sandbox_check_device(sb, "sub", "f", &err), 0);
    s_some_blockdev(dev, sizeof dev);
    if (dev[0]) {
        /* directory=/dev with filename=X names a device the old way */
        assert_int_equal(rb_sandbox_check_device(sb, "/dev", dev + 5, &err), -EACCES);
        assert_non_null(strstr(err.msg, "--allow-device"));
        assert_non_null(strstr(err.msg, dev));
        rb_err_clear(&err);
        assert_int_equal(rb_sandbox_check_device(sb, dev, "", &err), -EACCES);
        rb_err_clear(&err);
        assert_int_equal(rb_sandbox_allow_device(sb, dev, &err), 0);
        assert_int_equal(rb_device_allow_match(rb_sandbox_allowed(sb), dev), 1);
        assert_int_equal(rb_sandbox_check_device(sb, "/dev", dev + 5, &err), -EOPNOTSUPP);
        assert_non_null(strstr(err.msg, "filename="));
        rb_err_clear(&err);
        /* ':wipe' on a pattern takes the count of devices it must match */
        assert_int_equal(rb_sandbox_allow_device(sb, "/dev/loop*:wipe", &err), -EINVAL);
        assert_non_null(strstr(err.msg, "takes the number of devices it must match"));
        rb_err_clear(&err);
        assert_int_equal(rb_sandbox_allow_device(sb, "/dev/loop*:wipe=9999", &err), -EINVAL);
        assert_non_null(strstr(err.msg, "1 to 1024"));
        rb_err_clear(&err);
        assert_int_equal(rb_sandbox_allow_device(sb, "/dev/no-such*", &err), 0);
        assert_int_equal(rb_device_allow_match(rb_sandbox_allowed(sb), "/dev/sdzz"), 0);
    } else {
        printf("no block device in /dev: device checks skipped\n");
    }
    rb_sandbox_destroy(&sb);
}

static void test_space(void **state)
{
    (void)state;
    rb_err_t err;
    const uint64_t G = 1ull << 30;
    rb_err_clear(&err);
    /* 100 GiB file system, 10 GiB free: 5% reserve is 5 GiB */
    assert_int_equal(rb_sandbox_space_check("/fs", 5 * G, 10 * G, 100 * G, 5, &err), 0);
    assert_int_equal(rb_sandbox_space_check("/fs", 5 * G + 1, 10 * G, 100 * G, 5, &err), -ENOSPC);
    assert_non_null(strstr(err.msg, "/fs: the plan needs"));
    assert_non_null(strstr(err.msg, "(5%) must stay free"));
    rb_err_clear(&err);
    assert_int_equal(rb_sandbox_space_check("/fs", 10 * G, 10 * G, 100 * G, 0, &err), 0);
    assert_int_equal(rb_sandbox_space_check("/fs", 10 * G + 1, 10 * G, 100 * G, 0, &err), -ENOSPC);
    rb_err_clear(&err);
    assert_int_equal(rb_sandbox_space_check("/fs", 0, 10 * G, 100 * G, 10, &err), 0);
    assert_int_equal(rb_sandbox_space_check("/fs", 1, 10 * G, 100 * G, 10, &err), -ENOSPC);
    rb_err_clear(&err);
    assert_int_equal(rb_sandbox_space_check("/fs", 1, 10 * G, 100 * G, 90, &err), -ENOSPC);
}

static void test_cleanup_names(void **state)
{
    (void)state;
    assert_true(rb_cleanup_name_ok("rackbench." S_RUN ".node-1"));
    assert_true(rb_cleanup_name_ok("rackbench." S_RUN ".shared"));
    assert_false(rb_cleanup_name_ok("rackbench." S_RUN "."));
    assert_false(rb_cleanup_name_ok("rackbench." S_RUN));
    assert_false(rb_cleanup_name_ok("rackbench.notes"));
    assert_false(rb_cleanup_name_ok("rackbench.20240102-030405-BEEF.n1"));
    assert_false(rb_cleanup_name_ok("rackbench.2024010-030405-beef.n1"));
    assert_false(rb_cleanup_name_ok("rackbench." S_RUN ".n 1"));
    assert_false(rb_cleanup_name_ok("xrackbench." S_RUN ".n1"));
}

static void s_mkdir(const char *root, const char *name)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", root, name);
    assert_int_equal(mkdir(p, 0755), 0);
}

static void s_file(const char *root, const char *name)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", root, name);
    s_write(p, "data");
}

/* Leftovers of crashed runs go (run folders, shared folders, deeper ones
 * too); an unrelated folder, a file, look-alike names, a symlink named as a
 * leftover and the folder of a live run stay. */
static void test_cleanup_only_leftovers(void **state)
{
    (void)state;
    char a[PATH_MAX], b[PATH_MAX], outside[PATH_MAX], p[PATH_MAX * 2], dir[RB_PATH_MAX];
    const char *base = s_fresh("cleanup");
    snprintf(a, sizeof a, "%s/a", base);
    snprintf(b, sizeof b, "%s/b", base);
    snprintf(outside, sizeof outside, "%s/outside", base);
    assert_int_equal(mkdir(a, 0755), 0);
    assert_int_equal(mkdir(b, 0755), 0);
    assert_int_equal(mkdir(outside, 0755), 0);
    s_file(outside, "keep");
    /* leftovers */
    s_mkdir(a, "rackbench." S_RUN ".n1");
    s_file(a, "rackbench." S_RUN ".n1/w.0.0");
    s_mkdir(a, "rackbench." S_RUN ".n1/sub");
    s_file(a, "rackbench." S_RUN ".n1/sub/f");
    s_mkdir(a, "rackbench." S_RUN ".shared");
    s_file(a, "rackbench." S_RUN ".shared/n1.x");
    s_file(a, "rackbench." S_RUN ".shared/n2.x");
    s_mkdir(b, "deep");
    s_mkdir(b, "deep/rackbench.20230101-000000-0001.n2");
    s_file(b, "deep/rackbench.20230101-000000-0001.n2/f");
    /* not leftovers */
    s_mkdir(a, "mine");
    s_file(a, "mine/rackbench.notes");
    s_file(a, "rackbench." S_RUN ".n3"); /* a file, not a folder */
    s_mkdir(a, "rackbench.something");
    snprintf(p, sizeof p, "%s/rackbench.20230101-000000-0002.n9", b);
    assert_int_equal(symlink(outside, p), 0);

    /* a live run: its run folder is held, so it and its shared folder stay */
    rb_err_t err;
    rb_err_clear(&err);
    rb_sandbox_t *sb = rb_sandbox_new();
    assert_int_equal(rb_sandbox_add_root(sb, b, &err), 0);
    assert_int_equal(rb_sandbox_resolve(sb, "", dir, sizeof dir, &err), 0);
    int idx = rb_sandbox_rundir(sb, dir, "20230101-000000-0003", "live", &err);
    assert_true(idx >= 0);
    int sfd = rb_sandbox_shared_dir(sb, idx, "20230101-000000-0003", &err);
    assert_true(sfd >= 0);
    close(sfd);

    const char *roots[] = {a, b};
    rb_cleanup_stats_t st;
    char report[8192] = "";
    /* one node's run folders (an agent at its start): no shared folder, no other node's */
    rb_cleanup_only_t node = {.node = "n2"};
    assert_int_equal(rb_cleanup_roots(roots, 2, &node, NULL, &st, &err), 0);
    assert_int_equal(st.folders, 1);
    assert_int_equal(st.files, 1);
    snprintf(p, sizeof p, "%s/rackbench." S_RUN ".n1", a);
    assert_true(s_exists(p));
    /* one run's folders (the coordinator after its --local agents) */
    rb_cleanup_only_t run = {.run = S_RUN};
    FILE *out = fmemopen(report, sizeof report, "w");
    assert_int_equal(rb_cleanup_roots(roots, 2, &run, out, &st, &err), 0);
    fclose(out);
    assert_int_equal(st.folders, 2);
    assert_int_equal(st.files, 4);
    assert_int_equal(st.skipped, 0);
    assert_non_null(strstr(report, "removed "));
    assert_non_null(strstr(report, "rackbench." S_RUN ".n1 (2 files)"));
    /* the rest: what a live run holds stays */
    out = fmemopen(report, sizeof report, "w");
    assert_int_equal(rb_cleanup_roots(roots, 2, NULL, out, &st, &err), 0);
    fclose(out);
    assert_int_equal(st.folders, 0);
    assert_int_equal(st.skipped, 2);
    assert_non_null(strstr(report, "in use by a running agent"));

    snprintf(p, sizeof p, "%s/rackbench." S_RUN ".n1", a);
    assert_false(s_exists(p));
    snprintf(p, sizeof p, "%s/rackbench." S_RUN ".shared", a);
    assert_false(s_exists(p));
    snprintf(p, sizeof p, "%s/deep/rackbench.20230101-000000-0001.n2", b);
    assert_false(s_exists(p));
    snprintf(p, sizeof p, "%s/deep", b);
    assert_true(s_exists(p));
    snprintf(p, sizeof p, "%s/mine/rackbench.notes", a);
    assert_true(s_exists(p));
    snprintf(p, sizeof p, "%s/rackbench." S_RUN ".n3", a);
    assert_true(s_exists(p));
    snprintf(p, sizeof p, "%s/rackbench.something", a);
    assert_true(s_exists(p));
    snprintf(p, sizeof p, "%s/rackbench.20230101-000000-0002.n9", b);
    assert_true(s_exists(p));
    snprintf(p, sizeof p, "%s/keep", outside);
    assert_true(s_exists(p));
    assert_non_null(rb_sandbox_rundir_path(sb, idx));
    assert_true(s_exists(rb_sandbox_rundir_path(sb, idx)));
    snprintf(p, sizeof p, "%s/rackbench.20230101-000000-0003.shared", b);
    assert_true(s_exists(p));

    /* once the run ends, a second cleanup finds nothing to do */
    rb_sandbox_destroy(&sb);
    assert_int_equal(rb_cleanup_roots(roots, 2, NULL, NULL, &st, &err), 0);
    assert_int_equal(st.folders, 0);
    assert_int_equal(st.skipped, 0);
    /* a root that does not exist is an error, named */
    const char *bad[] = {"/no/such/root"};
    assert_int_equal(rb_cleanup_roots(bad, 1, NULL, NULL, &st, &err), -ENOENT);
    assert_non_null(strstr(err.msg, "/no/such/root"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_planted_file_not_written),
        cmocka_unit_test(test_planted_links_refused),
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_space),
        cmocka_unit_test(test_cleanup_names),
        cmocka_unit_test(test_cleanup_only_leftovers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
