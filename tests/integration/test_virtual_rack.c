/* deploy/virtual-rack.sh end to end: a rack of 4 network namespaces, each
 * with its own loop-device file system and a daemon agent, driven by a
 * coordinator over tcp on a bridge, then removed. The run must report every
 * node with its rack and bytes and a start skew; `down` must leave no
 * namespace, loop device, agent or state folder behind. Needs root and
 * working `ip netns` and loop devices, else it is skipped (exit 77). */
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

/* a prefix, subnet and port of its own, so a rack someone keeps up with the
 * defaults is left alone */
#define VR_PREFIX "vrit"
#define VR_NODES  4
#define VR_OPTS   "--prefix " VR_PREFIX " --subnet 10.79.0 --port 17771 --size 128M"

static char s_dir[4096], s_state[4200], s_out[4200], s_err[4200];

/* Runs the script with the build's binaries and the test's state folder. */
static int s_vrack(const char *args)
{
    return it_sh(s_out, s_err, "env RB_BIN='%s' RB_VRACK_STATE='%s' '%s/deploy/virtual-rack.sh' %s",
                 RB_IT_BIN, s_state, RB_IT_SRC, args);
}

static void s_down(void)
{
    if (s_state[0])
        s_vrack("down --prefix " VR_PREFIX);
}

/* Lines of a command's output that contain needle (at a line's start when
 * at_start) followed by a digit; -1 if the command failed. */
static int s_lines(const char *cmd, const char *needle, int at_start)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/lines", s_dir);
    if (it_sh(path, NULL, "%s", cmd) != 0)
        return -1;
    char *t = it_read(path);
    int n = 0;
    for (char *line = t; line && *line;) {
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        for (char *hit = strstr(line, needle); hit; hit = strstr(hit + 1, needle)) {
            const char *after = hit + strlen(needle);
            if ((!at_start || hit == line) && *after >= '0' && *after <= '9') {
                n++;
                break;
            }
        }
        line = end ? end + 1 : line + strlen(line);
    }
    free(t);
    return n;
}

/* up, a write then a read of 16 MiB per node, checked in summary.json */
static void test_up_and_run(void **state)
{
    (void)state;
    char plan[4300], runs[4300], folder[4400];
    int code = s_vrack("up 4 " VR_OPTS);
    assert_int_equal(it_show_failure(code, s_err), 0);
    /* a second up says the rack exists and changes nothing */
    code = s_vrack("up 4 " VR_OPTS);
    assert_int_equal(code, 1);
    char *err = it_read(s_err);
    assert_non_null(strstr(err ? err : "", "exists already"));
    free(err);

    snprintf(plan, sizeof plan, "%s/plan.ini", s_dir);
    snprintf(runs, sizeof runs, "%s/runs", s_dir);
    it_write(plan, "[global]\nbs=1M\nsize=16M\ndirect=1\nsample_interval=200ms\n"
                   "filename_format=vr.$jobnum.$filenum\n\n"
                   "[write]\nrw=write\n\n[read]\nstonewall\nrw=read\n");
    char args[9000];
    snprintf(args, sizeof args, "run '%s' --quiet --wait 20s --out '%s'", plan, runs);
    code = s_vrack(args);
    assert_int_equal(it_show_failure(code, s_err), 0);

    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);
    assert_string_equal(rb_json_str(rb_json_get(j, "status")), "ok");
    const rb_json_t *nodes = rb_json_get(j, "nodes");
    assert_int_equal(rb_json_len(nodes), VR_NODES);
    for (size_t i = 0; i < VR_NODES; i++) {
        const rb_json_t *n = rb_json_at(nodes, i);
        assert_string_equal(rb_json_str(rb_json_get(n, "status")), "ok");
        assert_string_equal(rb_json_str(rb_json_get(n, "rack")), "vrack");
        assert_non_null(strstr(rb_json_str(rb_json_get(n, "name")), VR_PREFIX));
    }
    const rb_json_t *phases = rb_json_get(j, "phases");
    assert_int_equal(rb_json_len(phases), 2);
    for (size_t p = 0; p < 2; p++) {
        const rb_json_t *ph = rb_json_at(phases, p);
        double skew = rb_json_num(rb_json_get(ph, "start_skew_s"), -1);
        fprintf(stderr, "phase %s: start skew %.3f ms\n", rb_json_str(rb_json_get(ph, "name")),
                skew * 1e3);
        assert_true(skew >= 0 && skew < 0.050);
        assert_int_equal(rb_json_num(rb_json_get(ph, "bytes"), 0), VR_NODES * 16.0 * 1048576);
        assert_int_equal(rb_json_num(rb_json_path(ph, "coverage.nodes"), 0), VR_NODES);
        const rb_json_t *pn = rb_json_get(ph, "nodes");
        assert_int_equal(rb_json_len(pn), VR_NODES);
        for (size_t i = 0; i < VR_NODES; i++) {
            const rb_json_t *n = rb_json_at(pn, i);
            assert_string_equal(rb_json_str(rb_json_get(n, "status")), "ok");
            assert_string_equal(rb_json_str(rb_json_get(n, "rack")), "vrack");
            assert_int_equal(rb_json_num(rb_json_get(n, "bytes"), 0), 16.0 * 1048576);
            assert_true(rb_json_num(rb_json_get(n, "bw"), 0) > 0);
        }
    }
    rb_json_free(&j);
}

/* down removes everything, and a second down is harmless */
static void test_down(void **state)
{
    (void)state;
    char images[4400];
    assert_int_equal(it_show_failure(s_vrack("down"), s_err), 0);
    assert_int_equal(s_lines("ip netns list", VR_PREFIX, 1), 0);
    snprintf(images, sizeof images, "%s/" VR_PREFIX, s_state);
    assert_int_equal(s_lines("losetup -a", images, 0), 0);
    assert_int_equal(s_lines("ip -o link show", "rb-" VR_PREFIX, 0), 0);
    assert_int_equal(s_lines("ip -o link show", "rb" VR_PREFIX, 0), 0);
    assert_int_equal(it_count_matching("rackbench-agent", s_state, NULL), 0);
    struct stat st;
    assert_int_not_equal(stat(s_state, &st), 0);
    assert_int_equal(it_show_failure(s_vrack("down"), s_err), 0);
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
        printf("skipped: needs root (network namespaces, loop devices, mounts)\n");
        return 77;
    }
    snprintf(s_dir, sizeof s_dir, "%s", it_scratch("vrack"));
    snprintf(s_out, sizeof s_out, "%s/stdout", s_dir);
    snprintf(s_err, sizeof s_err, "%s/stderr", s_dir);
    if (it_sh(NULL, NULL,
              "sh -c 'ip netns add " VR_PREFIX "probe && ip netns del " VR_PREFIX "probe'") != 0) {
        printf("skipped: 'ip netns add' does not work here\n");
        return 77;
    }
    if (it_sh(NULL, NULL, "sh -c 'losetup -f && command -v mkfs.ext4'") != 0) {
        printf("skipped: no free loop device or no mkfs.ext4 here\n");
        return 77;
    }
    snprintf(s_state, sizeof s_state, "%s/state", s_dir);
    /* a rack a crashed earlier run left with this prefix would block up */
    s_down();
    atexit(s_down);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_up_and_run),
        cmocka_unit_test(test_down),
    };
    int failed = cmocka_run_group_tests(tests, NULL, s_teardown);
    if (!failed)
        it_rmtree(s_dir);
    return failed;
}
