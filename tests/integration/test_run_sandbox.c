/* The agent's sandbox through the real binaries: a plan naming a file
 * planted in the agent's root writes its own file instead, a plan that
 * would eat into the --reserve is refused with the figures, a plan naming a
 * block device needs --allow-device, and `rackbench-agent --cleanup`
 * removes what a crashed run left and nothing else. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cmocka.h>

#include "rb_test.h"

#include "it_util.h"

typedef struct paths {
    char dir[4096], data[4200], plan[4200], runs[4200], out[4200], err[4200];
    char ep[4300], aout[4300], aerr[4300];
} paths_t;

static void s_paths(paths_t *p, const char *name)
{
    snprintf(p->dir, sizeof p->dir, "%s", it_scratch(name));
    snprintf(p->data, sizeof p->data, "%s/data", p->dir);
    snprintf(p->plan, sizeof p->plan, "%s/plan.ini", p->dir);
    snprintf(p->runs, sizeof p->runs, "%s/runs", p->dir);
    snprintf(p->out, sizeof p->out, "%s/stdout", p->dir);
    snprintf(p->err, sizeof p->err, "%s/stderr", p->dir);
    snprintf(p->ep, sizeof p->ep, "ipc://%s/coord.sock", p->dir);
    snprintf(p->aout, sizeof p->aout, "%s/agent.out", p->dir);
    snprintf(p->aerr, sizeof p->aerr, "%s/agent.err", p->dir);
    it_sh(NULL, NULL, "mkdir -p '%s'", p->data);
}

static int s_contains(const char *path, const char *needle)
{
    char *t = it_read(path);
    int found = t && strstr(t, needle);
    if (!found)
        fprintf(stderr, "'%s' not in %s:\n%s\n", needle, path, t ? t : "(unreadable)");
    free(t);
    return found;
}

/* Runs the plan on one agent started with extra options; returns the
 * coordinator's exit code, the agent's in *agent_code. */
static int s_run_one(paths_t *p, const char *agent_opts, int *agent_code)
{
    int agent =
        it_sh_bg(p->aout, p->aerr, "'%s' --coordinator '%s' --name solo --root '%s' --once %s",
                 it_bin("rackbench-agent"), p->ep, p->data, agent_opts);
    int code = it_sh(p->out, p->err, "'%s' run --expect 1 --wait 20s --bind '%s' --out '%s' '%s'",
                     it_bin("rackbench"), p->ep, p->runs, p->plan);
    *agent_code = it_wait(agent);
    return code;
}

/* filename= naming a file planted in the root: the agent writes a file of
 * that name in its own run folder; the planted one is never opened to write. */
static void test_planted_file(void **state)
{
    (void)state;
    paths_t p;
    char victim[4300], text[9000];
    s_paths(&p, "sandbox-planted");
    snprintf(victim, sizeof victim, "%s/victim.dat", p.data);
    it_write(victim, "precious\n");
    snprintf(text, sizeof text,
             "[w]\nrw=write\nbs=4k\nsize=64k\nfilename=%s\n\n[r]\nstonewall\nrw=read\nbs=4k\n"
             "size=64k\nfilename=%s\n",
             victim, victim);
    it_write(p.plan, text);
    int agent_code;
    int code = s_run_one(&p, "", &agent_code);
    assert_int_equal(it_show_failure(code, p.err), 0);
    assert_int_equal(agent_code, 0);
    char *t = it_read(victim);
    assert_non_null(t);
    assert_string_equal(t, "precious\n");
    free(t);
    assert_int_equal(it_count_files(p.data), 1); /* the run's own file is gone */
    it_rmtree(p.dir);
}

/* A plan that leaves less than --reserve free is refused with the figures. */
static void test_reserve(void **state)
{
    (void)state;
    paths_t p;
    char text[9000];
    struct statvfs v;
    s_paths(&p, "sandbox-reserve");
    assert_int_equal(statvfs(p.data, &v), 0);
    uint64_t total = (uint64_t)v.f_blocks * v.f_frsize, fr = (uint64_t)v.f_bavail * v.f_frsize;
    if (fr < total / 100 * 3 + (1u << 20)) {
        printf("file system almost full: reserve test skipped\n");
        it_rmtree(p.dir);
        return;
    }
    /* leaves 3% free: under the default 5% */
    uint64_t size = (fr - total / 100 * 3) / 4096 * 4096;
    snprintf(text, sizeof text, "[w]\nrw=write\nbs=4k\nsize=%llu\n", (unsigned long long)size);
    it_write(p.plan, text);
    int agent_code;
    int code = s_run_one(&p, "", &agent_code);
    assert_int_equal(code, 3);
    assert_int_equal(agent_code, 3);
    assert_true(s_contains(p.err, "(5%) must stay free"));
    assert_true(s_contains(p.err, "the plan needs"));
    /* the figure in the message is the agent's --reserve */
    code = s_run_one(&p, "--reserve 50%", &agent_code);
    assert_int_equal(code, 3);
    assert_true(s_contains(p.err, "(50%) must stay free"));
    assert_int_equal(it_count_files(p.data), 0);

    /* bad values are usage errors */
    code = it_sh(p.out, p.err, "'%s' --coordinator '%s' --name n --root '%s' --reserve 91",
                 it_bin("rackbench-agent"), p.ep, p.data);
    assert_int_equal(code, 2);
    assert_true(s_contains(p.err, "--reserve 91: expected 0 to 90"));
    code = it_sh(p.out, p.err, "'%s' --coordinator '%s' --name n --root '%s' --reserve lots",
                 it_bin("rackbench-agent"), p.ep, p.data);
    assert_int_equal(code, 2);
    it_rmtree(p.dir);
}

/* The first block device in /dev, or "". */
static void s_some_blockdev(char *out, size_t len)
{
    static const char *names[] = {"loop0", "vda", "sda", "nvme0n1", "xvda", "zram0"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct stat st;
        snprintf(out, len, "/dev/%s", names[i]);
        if (stat(out, &st) == 0 && S_ISBLK(st.st_mode))
            return;
    }
    out[0] = '\0';
}

/* --allow-device must name a block device (or a pattern); a plan naming a
 * device that is not allowed is refused, naming it and the option. */
static void test_devices(void **state)
{
    (void)state;
    paths_t p;
    char dev[64], text[9000];
    s_paths(&p, "sandbox-devices");
    int code = it_sh(p.out, p.err, "'%s' --coordinator '%s' --name n --root '%s' --allow-device %s",
                     it_bin("rackbench-agent"), p.ep, p.data, p.plan);
    assert_int_equal(code, 2);
    it_write(p.plan, "x");
    code = it_sh(p.out, p.err, "'%s' --coordinator '%s' --name n --root '%s' --allow-device %s",
                 it_bin("rackbench-agent"), p.ep, p.data, p.plan);
    assert_int_equal(code, 2);
    assert_true(s_contains(p.err, "not a block device"));
    s_some_blockdev(dev, sizeof dev);
    if (!dev[0]) {
        printf("no block device in /dev: refusal test skipped\n");
        it_rmtree(p.dir);
        return;
    }
    snprintf(text, sizeof text, "[w]\nrw=read\nbs=4k\nsize=64k\nfilename=%s\n", dev);
    it_write(p.plan, text);
    int agent_code;
    code = s_run_one(&p, "", &agent_code);
    assert_int_equal(code, 3);
    assert_true(s_contains(p.err, "--allow-device"));
    assert_true(s_contains(p.err, dev));
    /* IO on allowed devices, and what the agent refuses on them, is
     * test_raw_devices' (on loop devices of its own) */
    it_rmtree(p.dir);
}

/* --cleanup: only what agents left goes, with a report; exit 0. */
static void test_cleanup(void **state)
{
    (void)state;
    paths_t p;
    char other[4300];
    s_paths(&p, "sandbox-cleanup");
    snprintf(other, sizeof other, "%s/other", p.dir);
    static const char *const dirs[] = {"rackbench.20240101-010101-00aa.n1/sub",
                                       "rackbench.20240101-010101-00aa.shared",
                                       "keep/rackbench.20240101-010101-00ab.n2", "rackbench.mine"};
    static const char *const files[] = {
        "rackbench.20240101-010101-00aa.n1/f", "rackbench.20240101-010101-00aa.n1/sub/g",
        "rackbench.20240101-010101-00aa.shared/n1.f", "keep/notes.txt", "rackbench.txt"};
    char path[4400];
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        it_sh(NULL, NULL, "mkdir -p '%s/%s'", p.data, dirs[i]);
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", p.data, files[i]);
        it_write(path, "x\n");
    }
    it_sh(NULL, NULL, "mkdir -p '%s'", other);
    snprintf(path, sizeof path, "%s/f", other);
    it_write(path, "x\n");
    int code = it_sh(p.out, p.err, "'%s' --cleanup --root '%s' --root '%s'",
                     it_bin("rackbench-agent"), p.data, other);
    assert_int_equal(it_show_failure(code, p.err), 0);
    assert_true(s_contains(p.out, "removed 3 folders (3 files)"));
    assert_true(s_contains(p.out, "rackbench.20240101-010101-00aa.n1 (2 files)"));
    assert_true(s_contains(p.out, "keep/rackbench.20240101-010101-00ab.n2 (0 files)"));
    assert_int_equal(it_count_files(p.data), 2); /* keep/notes.txt, rackbench.txt */
    assert_int_equal(it_count_files(other), 1);
    struct stat st;
    snprintf(path, sizeof path, "%s/rackbench.mine", p.data);
    assert_int_equal(stat(path, &st), 0);
    /* nothing left: exit 0 again; no root: usage error; a bad root: 3 */
    code = it_sh(p.out, p.err, "'%s' --cleanup --root '%s'", it_bin("rackbench-agent"), p.data);
    assert_int_equal(code, 0);
    assert_true(s_contains(p.out, "removed 0 folders"));
    code = it_sh(p.out, p.err, "'%s' --cleanup", it_bin("rackbench-agent"));
    assert_int_equal(code, 2);
    code = it_sh(p.out, p.err, "'%s' --cleanup --root '%s/nope'", it_bin("rackbench-agent"), p.dir);
    assert_int_equal(code, 3);
    assert_true(s_contains(p.err, "nope"));
    it_rmtree(p.dir);
}

/* test_reserve_shared_filesystem: two --local agents whose roots are one
 * small tmpfs. A plan that fits one agent but not two is refused before GO
 * with the file system, the nodes, the need and the free space; no phase
 * runs, no file stays. The same plan on one agent, and a smaller one on
 * two, run. */
static char s_mounted[4200];

static int s_unmount(void **state)
{
    (void)state;
    if (s_mounted[0])
        it_sh(NULL, NULL, "umount '%s'", s_mounted);
    s_mounted[0] = '\0';
    return 0;
}

static int s_run_local(paths_t *p, int nodes, const char *size)
{
    char text[9000];
    snprintf(text, sizeof text, "[global]\ndirectory=%s\nbs=64k\nsize=%s\n[w]\nrw=write\n", p->data,
             size);
    it_write(p->plan, text);
    it_rmtree(p->runs);
    return it_sh(p->out, p->err, "'%s' run --local %d --out '%s' '%s'", it_bin("rackbench"), nodes,
                 p->runs, p->plan);
}

static void test_reserve_shared_filesystem(void **state)
{
    (void)state;
    paths_t p;
    s_paths(&p, "sandbox-reserve-shared");
    if (it_sh(NULL, p.err, "mount -t tmpfs -o size=8m rbtest '%s'", p.data) != 0) {
        it_rmtree(p.dir);
        rb_skip("cannot mount a tmpfs (not root?)");
    }
    snprintf(s_mounted, sizeof s_mounted, "%s", p.data);
    /* 5 MiB each: one agent leaves 3 MiB of 8 (over the 5% reserve), two need 10 */
    int code = s_run_local(&p, 2, "5M");
    assert_int_equal(code, 3);
    assert_true(s_contains(p.err, "the file system of "));
    assert_true(s_contains(p.err, "is shared by nodes local-1, local-2"));
    assert_true(s_contains(p.err, "together the plan needs 10.0 MiB there"));
    assert_true(s_contains(p.err, "are free and"));
    assert_true(s_contains(p.err, "must stay free (--reserve)"));
    char *sum = NULL, folder[4200];
    assert_int_equal(it_run_folder(p.runs, folder, sizeof folder), 0);
    char path[8400];
    snprintf(path, sizeof path, "%s/summary.json", folder);
    sum = it_read(path);
    assert_non_null(sum);
    assert_non_null(strstr(sum, "is shared by nodes local-1, local-2"));
    assert_non_null(strstr(sum, "\"phases\": []"));
    free(sum);
    assert_int_equal(it_count_files(p.data), 0);
    /* inodes count as bytes do: a metadata plan that makes more files than
     * the file system has inodes is refused before anything is made */
    assert_int_equal(it_sh(NULL, p.err, "mount -o remount,nr_inodes=1000 '%s'", p.data), 0);
    it_write(p.plan, "[global]\nrw=meta\nmeta_files=2000\n[md]\n");
    it_rmtree(p.runs);
    char dirarg[4200];
    snprintf(dirarg, sizeof dirarg, "--set directory=%s", p.data);
    code = it_sh(p.out, p.err, "'%s' run --local 1 %s --out '%s' '%s'", it_bin("rackbench"), dirarg,
                 p.runs, p.plan);
    assert_int_equal(code, 3);
    assert_true(s_contains(p.err, "the plan makes up to 2002 files and folders"));
    assert_true(s_contains(p.err, "inodes are free"));
    assert_int_equal(it_count_files(p.data), 0);
    /* one agent alone fits; two with 3 MiB each fit too */
    assert_int_equal(it_show_failure(s_run_local(&p, 1, "5M"), p.err), 0);
    assert_int_equal(it_show_failure(s_run_local(&p, 2, "3M"), p.err), 0);
    assert_int_equal(it_count_files(p.data), 0);
    s_unmount(NULL);
    it_rmtree(p.dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_planted_file),
        cmocka_unit_test(test_reserve),
        cmocka_unit_test_teardown(test_reserve_shared_filesystem, s_unmount),
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_cleanup),
    };
    return rb_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
