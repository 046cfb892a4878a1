/* deploy/gluster-lab.sh end to end: a GlusterFS volume (replica 2 on two
 * loop-device bricks) served by glusterd in the host namespace, mounted by 3
 * virtual-rack nodes, each running an agent rooted in its mount; the
 * acceptance plan, scaled down, must pass with every block it reads back
 * verified. While the run holds (a null-engine phase at the end) both bricks
 * must hold every worker's file and the shared file; after it, none; `down`
 * must leave no namespace, loop device, glusterd, mount or state folder.
 * Skipped (exit 77) without root, namespaces, FUSE or glusterd. */
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

#include "it_io500.h"
#include "it_util.h"
#include "rb_json.h"

/* names of its own, so a lab someone keeps up with the defaults is left alone */
#define GL_PREFIX "glit"
#define GL_NODES  3
#define GL_OPTS                                                                                    \
    "--prefix " GL_PREFIX " --subnet 10.81.0 --port 17781 --volume rbglit --brick-size 2G"

static char s_dir[4096], s_state[4200], s_out[4200], s_err[4200];

/* Runs the lab script with the build's binaries and the test's state. */
static int s_lab(const char *args)
{
    return it_sh(s_out, s_err, "env RB_BIN='%s' RB_GLAB_STATE='%s' '%s/deploy/gluster-lab.sh' %s",
                 RB_IT_BIN, s_state, RB_IT_SRC, args);
}

static void s_down(void)
{
    if (s_state[0])
        s_lab("down");
}

/* Regular files of the run below a brick (glusterd's own .glusterfs left
 * out), those named nn.N, and those in the run's shared folder. */
static long s_brick_files(int brick, const char *name)
{
    char b[4400];
    snprintf(b, sizeof b, "%s/bricks/b%d/brick", s_state, brick);
    if (!strcmp(name, "all"))
        return it_sh_number(
            s_dir, "sh -c \"find '%s' -path '%s/.glusterfs' -prune -o -type f -print | wc -l\"", b,
            b);
    if (!strcmp(name, "nn"))
        return it_sh_number(
            s_dir,
            "sh -c \"find '%s' -path '%s/.glusterfs' -prune -o -type f -name 'nn.[0-9]' "
            "-print | wc -l\"",
            b, b);
    return it_sh_number(s_dir,
                        "sh -c \"find '%s' -path '%s/.glusterfs' -prune -o -type f -path "
                        "'*.shared/*' -print | wc -l\"",
                        b, b);
}

/* up 3, the scaled acceptance plan with a hold at the end, checked */
static void test_up_and_run(void **state)
{
    (void)state;
    char plan[4300], runs[4300], folder[4400], args[9000];
    int code = s_lab("up 3 " GL_OPTS);
    assert_int_equal(it_show_failure(code, s_err), 0);

    /* the plan as shipped, sizes scaled down, and a hold while the test
     * looks into the bricks. The bandwidth limits are scaled down with the
     * sizes: 16 MiB a worker measures the lab's start-up more than its
     * bricks, and on a busy machine it missed 80 MiB/s now and then (and
     * 250 file creates a second); the checks that speak of the lab (no
     * errors, every node) stay as shipped. */
    snprintf(plan, sizeof plan, "%s/plan.ini", s_dir);
    code = it_sh(plan, NULL,
                 "sed -e 's/^size=.*/size=16m/' -e 's/^meta_files=.*/meta_files=50/' "
                 "-e 's/^runtime=.*/runtime=3s/' -e 's/^min_aggregate_bw=.*/min_aggregate_bw=1k/' "
                 "-e 's/^min_iops=.*/min_iops=1/' "
                 "'%s/deploy/plans/gluster-acceptance.ini'",
                 RB_IT_SRC);
    assert_int_equal(code, 0);
    code = it_sh(NULL, NULL,
                 "sh -c \"printf '\\n[hold]\\nstonewall\\nrw=randread\\nioengine=null\\n"
                 "verify=0\\ntime_based\\nruntime=10s\\n' >> '%s'\"",
                 plan);
    assert_int_equal(code, 0);

    snprintf(runs, sizeof runs, "%s/runs", s_dir);
    snprintf(args, sizeof args,
             "env RB_BIN='%s' RB_GLAB_STATE='%s' '%s/deploy/gluster-lab.sh' run '%s' --wait 30s "
             "--out '%s'",
             RB_IT_BIN, s_state, RB_IT_SRC, plan, runs);
    int pid = it_sh_bg(s_out, s_err, "%s", args);
    /* every worker's file and the shared file, on both replicas at once,
     * looked for once the hold has started (every phase that writes them
     * has ended, and the run's clean-up has not begun) */
    int held = it_wait_for_text(s_err, "hold: GO", it_deadline(IT_COMMAND_MS));
    long nn[3] = {0}, shared[3] = {0};
    for (int b = 1; b <= 2 && held == 0; b++) {
        nn[b] = s_brick_files(b, "nn");
        shared[b] = s_brick_files(b, "shared");
    }
    code = it_wait(pid);
    assert_int_equal(it_show_failure(code, s_err), 0);
    assert_int_equal(held, 0);
    for (int b = 1; b <= 2; b++) {
        fprintf(stderr, "brick %d in the hold: %ld worker files, %ld shared\n", b, nn[b],
                shared[b]);
        assert_int_equal(nn[b], GL_NODES * 2);
        assert_int_equal(shared[b], 1);
    }

    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);
    assert_string_equal(rb_json_str(rb_json_get(j, "status")), "ok");
    const rb_json_t *nodes = rb_json_get(j, "nodes");
    assert_int_equal(rb_json_len(nodes), GL_NODES);
    for (size_t i = 0; i < GL_NODES; i++)
        assert_string_equal(rb_json_str(rb_json_get(rb_json_at(nodes, i), "status")), "ok");
    const rb_json_t *phases = rb_json_get(j, "phases");
    assert_int_equal(rb_json_len(phases), 13); /* 5 data, 7 metadata steps, the hold */
    for (size_t p = 0; p < rb_json_len(phases); p++) {
        const rb_json_t *ph = rb_json_at(phases, p);
        fprintf(stderr, "phase %s: %.0f bytes, %.0f verify errors\n",
                rb_json_str(rb_json_get(ph, "name")), rb_json_num(rb_json_get(ph, "bytes"), -1),
                rb_json_num(rb_json_get(ph, "verify_errors"), -1));
        assert_int_equal(rb_json_num(rb_json_get(ph, "errors"), -1), 0);
        assert_int_equal(rb_json_num(rb_json_get(ph, "verify_errors"), -1), 0);
        assert_int_equal(rb_json_num(rb_json_path(ph, "coverage.nodes"), 0), GL_NODES);
    }
    rb_json_free(&j);
    char *o = it_read(s_out);
    assert_non_null(strstr(o ? o : "", "acceptance: PASS"));
    assert_non_null(strstr(o ? o : "", "the data of the node 1 further on, verified"));
    free(o);
    /* the run removed its files from the volume */
    assert_int_equal(s_brick_files(1, "all"), 0);
    assert_int_equal(s_brick_files(2, "all"), 0);

    /* the volume is one file system seen from three hosts: 3 x 900 MiB do
     * not fit its 2 GiB, though each node's share alone would, so the run
     * is refused, naming the mount's source: from the nodes' readings taken
     * before their layout, even when a node that looks later finds the
     * others filling the volume and refuses on its own */
    it_write(plan, "[global]\ndirectory=acceptance\nbs=1m\n[w]\nrw=write\nsize=900m\n");
    snprintf(args, sizeof args,
             "env RB_BIN='%s' RB_GLAB_STATE='%s' '%s/deploy/gluster-lab.sh' run '%s' --wait 30s "
             "--out '%s'",
             RB_IT_BIN, s_state, RB_IT_SRC, plan, runs);
    code = it_sh(s_out, s_out, "%s 2>&1", args);
    assert_int_not_equal(code, 0);
    char *e = it_read(s_out);
    if (!strstr(e ? e : "", "fuse.glusterfs") || !strstr(e ? e : "", "is shared by nodes"))
        fprintf(stderr, "shared volume, too big a plan (exit %d):\n%s\n", code, e ? e : "");
    assert_non_null(strstr(e ? e : "", "mounted on every host) is shared by nodes"));
    assert_non_null(strstr(e ? e : "", "fuse.glusterfs"));
    free(e);
    assert_int_equal(s_brick_files(1, "all"), 0);
    assert_int_equal(s_brick_files(2, "all"), 0);
}

/* deploy/plans/io500.ini as shipped, scaled down through its variables,
 * on the lab's volume: IO500's twelve phases (find as its two steps) with
 * no error on every node, find examining every file the create phases
 * made (what it finds depends on how far the stonewalled creates got:
 * "*01*" matches no item below 101), and IO500's three scores worked out by hand from
 * the phases' figures, flagged as not a valid submission. The run leaves nothing on the bricks. */
static void test_io500(void **state)
{
    (void)state;
    char runs[4300], folder[4400];
    snprintf(runs, sizeof runs, "%s/runs-io500", s_dir);
    int code = it_sh(s_out, s_err,
                     "env RB_BIN='%s' RB_GLAB_STATE='%s' DIR=acceptance STONEWALL=1s EASY_SIZE=16m "
                     "HARD_SEGS=200 MD_FILES=2000 '%s/deploy/gluster-lab.sh' run "
                     "'%s/deploy/plans/io500.ini' --wait 30s --out '%s'",
                     RB_IT_BIN, s_state, RB_IT_SRC, RB_IT_SRC, runs);
    assert_int_equal(it_show_failure(code, s_err), 0);
    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);
    const rb_json_t *phases = rb_json_get(j, "phases");
    assert_int_equal(rb_json_len(phases), 13);
    double made = 0, examined = 0;
    for (size_t p = 0; p < rb_json_len(phases); p++) {
        const rb_json_t *ph = rb_json_at(phases, p);
        const char *name = rb_json_str(rb_json_get(ph, "name"));
        assert_int_equal(rb_json_num(rb_json_get(ph, "errors"), -1), 0);
        assert_int_equal(rb_json_num(rb_json_path(ph, "coverage.nodes"), 0), GL_NODES);
        if (strstr(name, ".create"))
            made += rb_json_num(rb_json_get(ph, "ops"), 0);
        if (strstr(name, ".find"))
            examined += rb_json_num(rb_json_get(ph, "ops"), 0);
    }
    const rb_json_t *io = rb_json_get(j, "io500");
    assert_non_null(io);
    fprintf(stderr, "io500 on GlusterFS: %.0f files made, %.0f examined, %.0f found\n", made,
            examined, rb_json_num(rb_json_get(io, "found"), -1));
    assert_true(made > 0 && examined == made);
    it_check_io500(j, "on GlusterFS");
    rb_json_free(&j);
    char *o = it_read(s_out);
    assert_non_null(strstr(o ? o : "", "[SCORE ] Bandwidth "));
    assert_non_null(strstr(o ? o : "", "[INVALID]"));
    free(o);
    assert_int_equal(s_brick_files(1, "all"), 0);
    assert_int_equal(s_brick_files(2, "all"), 0);
}

/* The volume's network shaped to 80 Mbit/s each way at every node (tbf on
 * both ends of each node's veth): a ring network phase measures it, and
 * the direct reads from the volume after it, held by the same link, are
 * network-bound on every node, against that phase and its figure. A ring,
 * not all-to-all: one stream a shaped queue. tbf's queue is one deep
 * tail-drop FIFO (this kernel has no fq_codel), where a stream that
 * starts behind another's full queue can lose its first packets again
 * and again and move nothing for longer than the agents wait: TCP
 * lockout, which the phase would rightly call a failed link. */
static void test_network_bound(void **state)
{
    (void)state;
    char plan[4300], runs[4300], folder[4400];
    for (int i = 1; i <= GL_NODES; i++) {
        int code = it_sh(NULL, s_err,
                         "sh -c 'tc qdisc replace dev rb-%s%d root tbf rate 80mbit burst 256kb "
                         "latency 100ms && ip netns exec %s%d tc qdisc replace dev eth0 root tbf "
                         "rate 80mbit burst 256kb latency 100ms'",
                         GL_PREFIX, i, GL_PREFIX, i);
        assert_int_equal(it_show_failure(code, s_err), 0);
    }
    snprintf(plan, sizeof plan, "%s/net-bound.ini", s_dir);
    it_write(plan, "[global]\ndirectory=acceptance\nbs=1m\ndirect=1\n"
                   "[net]\nnetwork=ring\nruntime=3s\ntime_based\n"
                   "[w]\nstonewall\nrw=write\nsize=4m\n"
                   "[r]\nstonewall\nrw=read\nsize=4m\nruntime=3s\ntime_based\n");
    snprintf(runs, sizeof runs, "%s/runs-net", s_dir);
    int code = it_sh(s_out, s_err,
                     "env RB_BIN='%s' RB_GLAB_STATE='%s' '%s/deploy/gluster-lab.sh' run '%s' "
                     "--wait 30s --out '%s'",
                     RB_IT_BIN, s_state, RB_IT_SRC, plan, runs);
    for (int i = 1; i <= GL_NODES; i++)
        it_sh(NULL, NULL,
              "sh -c 'tc qdisc del dev rb-%s%d root; ip netns exec %s%d tc qdisc del dev eth0 "
              "root'",
              GL_PREFIX, i, GL_PREFIX, i);
    assert_int_equal(it_show_failure(code, s_err), 0);
    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);
    const rb_json_t *net = rb_json_path(rb_json_at(rb_json_get(j, "phases"), 0), "network");
    fprintf(stderr, "links: median %.3f Gbit/s\n",
            rb_json_num(rb_json_get(net, "median_link_gbps"), -1));
    const rb_json_t *fs = rb_json_get(rb_json_at(rb_json_get(j, "phases"), 2), "findings");
    int bound = 0;
    for (size_t i = 0; i < rb_json_len(fs); i++) {
        const rb_json_t *x = rb_json_at(fs, i);
        const char *ev = rb_json_str(rb_json_get(x, "evidence"));
        fprintf(stderr, "r: %s %s: %s\n", rb_json_str(rb_json_get(x, "kind")),
                rb_json_str(rb_json_get(x, "node")), ev ? ev : "");
        if (!strcmp(rb_json_str(rb_json_get(x, "kind")), "network-bound") && ev &&
            strstr(ev, "reads at ") && strstr(ev, "carried in in phase net"))
            bound++;
    }
    rb_json_free(&j);
    assert_int_equal(bound, GL_NODES);
}

/* down removes everything, and a second down is harmless */
static void test_down(void **state)
{
    (void)state;
    assert_int_equal(it_show_failure(s_lab("down"), s_err), 0);
    assert_int_equal(
        it_sh_number(s_dir, "sh -c \"ip netns list | grep -c '^%s[0-9]' || true\"", GL_PREFIX), 0);
    assert_int_equal(it_sh_number(s_dir, "sh -c \"losetup -a | grep -cF '%s/' || true\"", s_state),
                     0);
    assert_int_equal(
        it_sh_number(s_dir, "sh -c \"grep -cF '%s/' /proc/self/mounts || true\"", s_state), 0);
    assert_int_equal(
        it_sh_number(s_dir, "sh -c \"ls -d /etc/netns/%s[0-9]* 2>/dev/null | wc -l\"", GL_PREFIX),
        0);
    assert_int_equal(
        it_sh_number(s_dir, "sh -c \"gluster volume list 2>/dev/null | grep -c rbglit || true\""),
        0);
    assert_int_equal(it_count_matching("rackbench-agent", s_state, NULL), 0);
    assert_int_equal(it_count_matching("gluster", s_state, NULL), 0);
    assert_int_equal(it_count_matching("glusterfs", "rbglit", NULL), 0);
    struct stat st;
    assert_int_not_equal(stat(s_state, &st), 0);
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
        printf("skipped: needs root (glusterd, network namespaces, loop devices, mounts)\n");
        return 77;
    }
    snprintf(s_dir, sizeof s_dir, "%s", it_scratch("gluster-lab"));
    snprintf(s_out, sizeof s_out, "%s/stdout", s_dir);
    snprintf(s_err, sizeof s_err, "%s/stderr", s_dir);
    if (it_sh(NULL, NULL, "sh -c 'command -v glusterd && command -v mount.glusterfs'") != 0) {
        printf("skipped: no glusterd or mount.glusterfs (glusterfs-server, glusterfs-client)\n");
        return 77;
    }
    if (it_sh(NULL, NULL, "test -c /dev/fuse") != 0) {
        printf("skipped: no /dev/fuse\n");
        return 77;
    }
    if (it_sh(NULL, NULL,
              "sh -c 'ip netns add " GL_PREFIX "probe && ip netns del " GL_PREFIX "probe'") != 0) {
        printf("skipped: 'ip netns add' does not work here\n");
        return 77;
    }
    if (it_sh(NULL, NULL, "sh -c 'losetup -f && command -v mkfs.ext4'") != 0) {
        printf("skipped: no free loop device or no mkfs.ext4 here\n");
        return 77;
    }
    snprintf(s_state, sizeof s_state, "%s/state", s_dir);
    /* a lab a crashed earlier run left would block up */
    s_down();
    atexit(s_down);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_up_and_run),
        cmocka_unit_test(test_io500),
        cmocka_unit_test(test_network_bound),
        cmocka_unit_test(test_down),
    };
    int failed = cmocka_run_group_tests(tests, NULL, s_teardown);
    if (!failed)
        it_rmtree(s_dir);
    return failed;
}
