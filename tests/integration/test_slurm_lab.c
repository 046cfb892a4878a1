/* deploy/slurm-lab.sh and deploy/rackbench.sbatch end to end: a Slurm
 * cluster of 3 network namespaces (slurmctld and munged in the host's, a
 * slurmd in each node's, each node with its own host name and loop-device
 * disk), and the batch script submitted to it with sbatch as on a cluster.
 * The job must exit 0 and its run folder must name the 3 nodes, each with
 * its own host name and disk and the plan's bytes; a bad plan must end the
 * job with exit 2 and the plan's line named, before any agent starts;
 * `down` must leave no daemon, namespace, loop device, mount or state
 * folder. Skipped (exit 77) without root, Slurm, munge, namespaces or loop
 * devices. */
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

#include "it_util.h"
#include "rb_json.h"

/* names of its own, so a lab someone keeps up with the defaults is left alone */
#define SL_PREFIX "slit"
#define SL_NODES  3
#define SL_OPTS   "--prefix " SL_PREFIX " --subnet 10.82.0 --port 17817 --size 128M"
#define SL_MIB    8

static char s_dir[4096], s_state[4200], s_out[4200], s_err[4200];
static char s_rundir[256]; /* the lab's folder of sockets (RUNDIR in lab.env) */

/* Runs the lab script from the scratch folder (the submit folder) with the
 * build's binaries and the test's state, for at most limit_s seconds (then
 * 124): a job that hangs fails the test before ctest's own time-out, so
 * that teardown still takes the lab down. */
static int s_lab_within(int limit_s, const char *args)
{
    return it_sh(s_out, s_err,
                 "sh -c \"cd '%s' && exec timeout %d env RB_BIN='%s' RB_SLAB_STATE='%s' "
                 "'%s/deploy/slurm-lab.sh' %s\"",
                 s_dir, limit_s, RB_IT_BIN, s_state, RB_IT_SRC, args);
}

static int s_lab(const char *args)
{
    return s_lab_within(120, args);
}

static void s_down(void)
{
    if (s_state[0])
        s_lab("down");
}

/* The job id in sbatch's "Submitted batch job N" on the lab's stdout, or -1. */
static long s_job_id(void)
{
    char *o = it_read(s_out);
    const char *at = o ? strstr(o, "Submitted batch job ") : NULL;
    long id = at ? strtol(at + strlen("Submitted batch job "), NULL, 10) : -1;
    free(o);
    return id;
}

/* What slurmctld says of a job: `scontrol show job` into out; 0 or -1. */
static int s_scontrol_job(long job, char *out, size_t len)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/scontrol", s_dir);
    if (it_sh(path, NULL, "env SLURM_CONF='%s/slurm.conf' scontrol show job %ld", s_state, job))
        return -1;
    char *t = it_read(path);
    if (!t)
        return -1;
    snprintf(out, len, "%s", t);
    free(t);
    return 0;
}

/* The job's output file (rackbench-N.out in the submit folder), caller frees. */
static char *s_job_output(long job)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/rackbench-%ld.out", s_dir, job);
    return it_read(path);
}

/* up 3, the batch script with a small O_DIRECT write and read on every node */
static void test_up_and_run(void **state)
{
    (void)state;
    char plan[4300], runs[4300], folder[4400], path[4500], text[8192];
    int code = s_lab("up 3 " SL_OPTS);
    assert_int_equal(it_show_failure(code, s_err), 0);
    snprintf(path, sizeof path, "%s/lab.env", s_state);
    char *env = it_read(path);
    const char *rd = env ? strstr(env, "RUNDIR=") : NULL;
    assert_non_null(rd);
    snprintf(s_rundir, sizeof s_rundir, "%.*s", (int)strcspn(rd + 7, "\n"), rd + 7);
    free(env);
    struct stat st;
    assert_int_equal(stat(s_rundir, &st), 0);

    snprintf(plan, sizeof plan, "%s/plan.ini", s_dir);
    it_write(plan, "[global]\nbs=1M\nsize=8M\ndirect=1\nsample_interval=200ms\n"
                   "filename_format=sl.$jobnum.$filenum\n\n"
                   "[write]\nrw=write\n\n[read]\nstonewall\nrw=read\n");
    code = s_lab_within(90, "run --time=2 plan.ini");
    assert_int_equal(it_show_failure(code, s_err), 0);
    long job = s_job_id();
    assert_true(job > 0);
    assert_int_equal(s_scontrol_job(job, text, sizeof text), 0);
    assert_non_null(strstr(text, "JobState=COMPLETED"));
    assert_non_null(strstr(text, "ExitCode=0:0"));
    assert_non_null(strstr(text, "NumNodes=3"));
    char *o = s_job_output(job);
    assert_non_null(o);
    assert_non_null(strstr(o, "run folder: runs/"));
    free(o);
    /* the job's key folder went with it */
    snprintf(path, sizeof path, "%s/.rackbench-%ld", s_dir, job);
    assert_int_not_equal(stat(path, &st), 0);

    snprintf(runs, sizeof runs, "%s/runs", s_dir);
    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);
    assert_string_equal(rb_json_str(rb_json_get(j, "status")), "ok");
    const rb_json_t *nodes = rb_json_get(j, "nodes");
    assert_int_equal(rb_json_len(nodes), SL_NODES);
    /* every namespace once, by the host name its slurmd's jobs see */
    int seen[SL_NODES] = {0};
    for (size_t i = 0; i < SL_NODES; i++) {
        const rb_json_t *n = rb_json_at(nodes, i);
        const char *name = rb_json_str(rb_json_get(n, "name"));
        assert_non_null(name);
        assert_string_equal(rb_json_str(rb_json_get(n, "status")), "ok");
        assert_string_equal(rb_json_str(rb_json_get(n, "hostname")), name);
        assert_int_equal(strncmp(name, SL_PREFIX, strlen(SL_PREFIX)), 0);
        int k = atoi(name + strlen(SL_PREFIX));
        assert_true(k >= 1 && k <= SL_NODES);
        seen[k - 1]++;
        assert_int_equal(rb_json_num(rb_json_get(n, "removed_files"), -1), 1);
    }
    for (int k = 0; k < SL_NODES; k++)
        assert_int_equal(seen[k], 1);

    const rb_json_t *phases = rb_json_get(j, "phases");
    assert_int_equal(rb_json_len(phases), 2);
    for (size_t p = 0; p < 2; p++) {
        const rb_json_t *ph = rb_json_at(phases, p);
        assert_int_equal(rb_json_num(rb_json_get(ph, "errors"), -1), 0);
        assert_int_equal(rb_json_num(rb_json_get(ph, "bytes"), 0), SL_NODES * SL_MIB * 1048576.0);
        const rb_json_t *pn = rb_json_get(ph, "nodes");
        assert_int_equal(rb_json_len(pn), SL_NODES);
        for (size_t i = 0; i < SL_NODES; i++) {
            const rb_json_t *n = rb_json_at(pn, i);
            assert_string_equal(rb_json_str(rb_json_get(n, "status")), "ok");
            assert_int_equal(rb_json_num(rb_json_get(n, "bytes"), 0), SL_MIB * 1048576.0);
        }
        /* each node measured the disk the lab gave it: its own loop device */
        const rb_json_t *dev = rb_json_get(ph, "devices");
        int own = 0;
        for (size_t d = 0; d < rb_json_len(dev); d++) {
            const char *node = rb_json_str(rb_json_get(rb_json_at(dev, d), "node"));
            const char *name = rb_json_str(rb_json_get(rb_json_at(dev, d), "device"));
            snprintf(path, sizeof path, "%s/rack/%s/loop", s_state, node ? node : "?");
            char *loop = it_read(path);
            assert_non_null(loop);
            loop[strcspn(loop, "\n")] = '\0';
            fprintf(stderr, "phase %zu: %s on %s (%s)\n", p, node, name, loop);
            assert_non_null(name);
            assert_string_equal(loop + strlen("/dev/"), name);
            own++;
            free(loop);
        }
        assert_int_equal(own, SL_NODES);
    }
    rb_json_free(&j);
    snprintf(path, sizeof path, "%s/report.txt", folder);
    assert_int_equal(stat(path, &st), 0);
    assert_true(st.st_size > 0);
}

/* a plan with an unknown option: exit 2 from the job, the line named, no
 * agent started and no run folder */
static void test_bad_plan(void **state)
{
    (void)state;
    char plan[4300], text[8192];
    snprintf(plan, sizeof plan, "%s/bad.ini", s_dir);
    it_write(plan, "[global]\nbs=1M\nsize=8M\nno_such_option=3\n\n[write]\nrw=write\n");
    it_sh(NULL, NULL, "rm -rf '%s/runs'", s_dir);
    int code = s_lab_within(60, "run --time=2 bad.ini");
    assert_int_equal(code, 2);
    long job = s_job_id();
    assert_true(job > 0);
    assert_int_equal(s_scontrol_job(job, text, sizeof text), 0);
    assert_non_null(strstr(text, "JobState=FAILED"));
    assert_non_null(strstr(text, "ExitCode=2:0"));
    char *o = s_job_output(job);
    assert_non_null(o);
    fprintf(stderr, "job %ld said: %s", job, o);
    assert_non_null(strstr(o, "bad.ini:4: unknown option 'no_such_option'"));
    assert_null(strstr(o, "rackbench-agent["));
    free(o);
    char runs[4300];
    snprintf(runs, sizeof runs, "%s/runs", s_dir);
    assert_int_equal(it_count_files(runs), 0);
}

/* down removes everything, and a second down is harmless */
static void test_down(void **state)
{
    (void)state;
    assert_int_equal(it_show_failure(s_lab("down"), s_err), 0);
    assert_int_equal(
        it_sh_number(s_dir, "sh -c \"ip netns list | grep -c '^%s[0-9]' || true\"", SL_PREFIX), 0);
    assert_int_equal(it_sh_number(s_dir, "sh -c \"losetup -a | grep -cF '%s/' || true\"", s_state),
                     0);
    assert_int_equal(
        it_sh_number(s_dir, "sh -c \"grep -cF '%s/' /proc/self/mounts || true\"", s_state), 0);
    assert_int_equal(
        it_sh_number(s_dir, "sh -c \"ls -d /etc/netns/%s[0-9]* 2>/dev/null | wc -l\"", SL_PREFIX),
        0);
    assert_int_equal(it_sh_number(s_dir,
                                  "sh -c \"ip -o link show | grep -c 'rb-\\?%s[0-9]' || true\"",
                                  SL_PREFIX),
                     0);
    assert_int_equal(it_count_matching("slurm", s_state, NULL), 0);
    assert_int_equal(it_count_matching("munged", s_state, NULL), 0);
    assert_int_equal(it_count_matching("rackbench-agent", "tcp://" SL_PREFIX, NULL), 0);
    struct stat st;
    assert_int_not_equal(stat(s_state, &st), 0);
    assert_true(s_rundir[0] == '/');
    assert_int_not_equal(stat(s_rundir, &st), 0);
    assert_int_equal(it_show_failure(s_lab("down"), s_err), 0);
}

static int s_teardown(void **state)
{
    (void)state;
    s_down();
    return 0;
}

int main(void)
{
    if (geteuid() != 0) {
        printf("skipped: needs root (Slurm's daemons, network namespaces, loop devices, mounts)\n");
        return 77;
    }
    snprintf(s_dir, sizeof s_dir, "%s", it_scratch("slurm-lab"));
    snprintf(s_out, sizeof s_out, "%s/stdout", s_dir);
    snprintf(s_err, sizeof s_err, "%s/stderr", s_dir);
    if (it_sh(NULL, NULL,
              "sh -c 'command -v sbatch && command -v slurmctld && command -v slurmd && "
              "command -v munged'") != 0) {
        printf("skipped: no sbatch, slurmctld, slurmd or munged (slurm-client, slurmctld, slurmd, "
               "munge)\n");
        it_rmtree(s_dir);
        return 77;
    }
    if (it_sh(NULL, NULL,
              "sh -c 'ip netns add " SL_PREFIX "probe && ip netns del " SL_PREFIX "probe'") != 0) {
        printf("skipped: 'ip netns add' does not work here\n");
        it_rmtree(s_dir);
        return 77;
    }
    if (it_sh(NULL, NULL, "sh -c 'losetup -f && command -v mkfs.ext4 && command -v unshare'") !=
        0) {
        printf("skipped: no free loop device, mkfs.ext4 or unshare here\n");
        it_rmtree(s_dir);
        return 77;
    }
    snprintf(s_state, sizeof s_state, "%s/state", s_dir);
    /* a lab a crashed earlier run left would block up */
    s_down();
    atexit(s_down);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_up_and_run),
        cmocka_unit_test(test_bad_plan),
        cmocka_unit_test(test_down),
    };
    int failed = cmocka_run_group_tests(tests, NULL, s_teardown);
    if (!failed) {
        s_state[0] = '\0'; /* down already ran (teardown): none at exit */
        it_rmtree(s_dir);
    }
    return failed;
}
