/* mdtest's phases through the whole system (issue 20): the directory and
 * tree steps timed and checked against the file system while the run goes
 * on, meta_stonewall with wear-out (every worker ends at one count, and the
 * later steps work on exactly what was made), mdtest-hard's 3901-byte files
 * checked on disk with a shorter read size (-w / -e), and read_from on the
 * steps that look at the items (mdtest -N): each file's stamp is checked,
 * and a file spoilt on disk is caught by the neighbour that reads it. */
#include <dirent.h>
#include <ftw.h>
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

#define NODES   3
#define WORKERS 2

/* What a walk counts below a folder: directories made by a step (the
 * worker folders "t.N", tree levels "dK", items "fdir.I"), files, and files
 * of some size. */
static struct {
    int tree, items, files, sized;
    long long size;
} s_walk;

static int s_visit(const char *path, const struct stat *st, int type, struct FTW *f)
{
    const char *name = path + f->base;
    if (type == FTW_D) {
        if (!strncmp(name, "t.", 2) || (name[0] == 'd' && name[1] >= '0' && name[1] <= '9'))
            s_walk.tree++;
        else if (!strncmp(name, "fdir.", 5))
            s_walk.items++;
    } else if (type == FTW_F) {
        s_walk.files++;
        s_walk.sized += st->st_size == s_walk.size;
    }
    return 0;
}

static void s_count(const char *path, long long size)
{
    memset(&s_walk, 0, sizeof s_walk);
    s_walk.size = size;
    nftw(path, s_visit, 16, FTW_PHYS);
}

/* Starts `rackbench run --local NODES` of text in a scratch folder. */
typedef struct {
    char dir[4200], data[4200], runs[4200], out[4200], err[4200], folder[4200];
    int pid;
} s_run_t;

static void s_start(s_run_t *r, const char *name, const char *fmt)
{
    char plan[4400], text[8192];
    snprintf(r->dir, sizeof r->dir, "%s", it_scratch(name));
    snprintf(r->data, sizeof r->data, "%s/data", r->dir);
    snprintf(plan, sizeof plan, "%s/plan.ini", r->dir);
    snprintf(text, sizeof text, fmt, r->data, 4 * RB_TEST_TIME_SCALE, 4 * RB_TEST_TIME_SCALE,
             4 * RB_TEST_TIME_SCALE);
    it_write(plan, text);
    snprintf(r->runs, sizeof r->runs, "%s/runs", r->dir);
    snprintf(r->out, sizeof r->out, "%s/stdout", r->dir);
    snprintf(r->err, sizeof r->err, "%s/stderr", r->dir);
    r->pid = it_sh_bg(r->out, r->err, "'%s' run --local %d --quiet --out '%s' '%s'",
                      it_bin("rackbench"), NODES, r->runs, plan);
}

/* A phase of the summary by name. */
/* A hold phase: a null-engine job that keeps the run going while the test
 * looks at the file system. */
#define S_HOLD(name)                                                                               \
    "[" name "]\nrw=randread\nioengine=null\nbs=4k\nsize=1G\ntime_based\nruntime=%ds\n\n"

static void test_dir_and_tree_steps(void **state)
{
    (void)state;
    s_run_t r;
    /* a 2 × 3 tree: the folder, 3 below it, 9 below those: 13 per worker */
    const int tree = WORKERS * NODES * 13, items = WORKERS * NODES * 200;
    s_start(
        &r, "mdtest-dirs",
        "[global]\ndirectory=%s\nnumjobs=2\nsample_interval=200ms\n"
        "meta_files=200\nmeta_depth=2\nmeta_branch=3\n\n" S_HOLD(
            "before") "[t.mktree]\nrw=meta\nmeta_ops=mktree\n\n"
                      "[t.mkdir]\nrw=meta\nmeta_ops=mkdir\n\n" S_HOLD(
                          "made") "[t]\nrw=meta\nmeta_ops=statdir,rmdir,rmtree\n\n" S_HOLD("gone"));
    /* before the tree step: not made (no tree is made before GO) */
    assert_int_equal(it_wait_for_samples(r.runs, ",before,", NODES, it_deadline(20000)), 0);
    s_count(r.data, -1);
    assert_int_equal(s_walk.tree, 0);
    assert_int_equal(s_walk.items, 0);
    /* after mktree and mkdir: every tree directory and every item there */
    assert_int_equal(it_wait_for_samples(r.runs, ",made,", NODES, it_deadline(20000)), 0);
    s_count(r.data, -1);
    assert_int_equal(s_walk.tree, tree);
    assert_int_equal(s_walk.items, items);
    /* after rmdir and rmtree: all gone, while the run folders stay */
    assert_int_equal(it_wait_for_samples(r.runs, ",gone,", NODES, it_deadline(20000)), 0);
    s_count(r.data, -1);
    assert_int_equal(s_walk.tree, 0);
    assert_int_equal(s_walk.items, 0);
    assert_int_equal(it_show_failure(it_wait(r.pid), r.err), 0);
    rb_json_t *j = it_summary(r.runs, r.folder, sizeof r.folder);
    assert_non_null(j);
    const char *names[] = {"t.mktree", "t.mkdir", "t.statdir", "t.rmdir", "t.rmtree"};
    const int ops[] = {tree, items, items, items, tree};
    for (size_t i = 0; i < 5; i++) {
        const rb_json_t *ph = it_phase(j, names[i]);
        assert_int_equal(rb_json_num(rb_json_get(ph, "ops"), 0), ops[i]);
        assert_int_equal(rb_json_num(rb_json_get(ph, "errors"), -1), 0);
        assert_true(rb_json_num(rb_json_get(ph, "iops"), 0) > 0);
        assert_true(rb_json_num(rb_json_get(ph, "window_s"), 0) > 0);
        assert_string_equal(rb_json_str(rb_json_get(ph, "meta_op")), names[i] + 2);
    }
    rb_json_free(&j);
    it_rmtree(r.dir);
}

static void test_stonewall_wearout(void **state)
{
    (void)state;
    s_run_t r;
    /* far more files than a second allows: the stonewall ends the create */
    s_start(&r, "mdtest-stonewall",
            "[global]\ndirectory=%s\nnumjobs=2\n\n"
            "[sw]\nrw=meta\nmeta_ops=create,stat,read,delete\nmeta_files=2000000\n"
            "meta_filesize=16\nmeta_stonewall=1s\n");
    assert_int_equal(it_show_failure(it_wait(r.pid), r.err), 0);
    rb_json_t *j = it_summary(r.runs, r.folder, sizeof r.folder);
    assert_non_null(j);
    const rb_json_t *c = it_phase(j, "sw.create");
    const rb_json_t *pw = rb_json_get(c, "per_worker");
    assert_int_equal(rb_json_len(pw), NODES * WORKERS);
    double each = rb_json_num(rb_json_get(rb_json_at(pw, 0), "ops"), 0);
    assert_true(each > 0 && each < 2000000);
    for (size_t i = 0; i < rb_json_len(pw); i++)
        assert_int_equal(rb_json_num(rb_json_get(rb_json_at(pw, i), "ops"), 0), each);
    double t = rb_json_num(rb_json_get(c, "window_s"), 0);
    assert_true(t >= 0.9 && t < 30.0 * RB_TEST_TIME_SCALE);
    fprintf(stderr, "stonewalled create: %.0f files a worker in %.2f s\n", each, t);
    /* the later steps find exactly what was made: no error, the same count */
    const char *later[] = {"sw.stat", "sw.read", "sw.delete"};
    for (size_t p = 0; p < 3; p++) {
        const rb_json_t *ph = it_phase(j, later[p]);
        assert_int_equal(rb_json_num(rb_json_get(ph, "ops"), 0), each * NODES * WORKERS);
        assert_int_equal(rb_json_num(rb_json_get(ph, "errors"), -1), 0);
    }
    assert_int_equal(rb_json_num(rb_json_get(it_phase(j, "sw.read"), "read_bytes"), 0),
                     each * NODES * WORKERS * 16);
    rb_json_free(&j);
    it_rmtree(r.dir);
}

static void test_hard_sizes_on_disk(void **state)
{
    (void)state;
    s_run_t r;
    const int n = NODES * WORKERS * 100;
    s_start(&r, "mdtest-sizes",
            "[global]\ndirectory=%s\nnumjobs=2\nsample_interval=200ms\n"
            "meta_files=100\nmeta_filesize=3901\nmeta_shared_dir=1\n\n"
            "[h.create]\nrw=meta\nmeta_ops=create\n\n" S_HOLD(
                "look") "[h.read]\nrw=meta\n"
                        "meta_ops=read\n\n"
                        "[e]\nrw=meta\nmeta_ops=read\nmeta_readsize=1000\nfilename_format=h\n\n"
                        "[h.delete]\nrw=meta\nmeta_ops=delete\n\n" S_HOLD("u1") S_HOLD("u2"));
    assert_int_equal(it_wait_for_samples(r.runs, ",look,", NODES, it_deadline(20000)), 0);
    s_count(r.data, 3901);
    assert_int_equal(s_walk.files, n);
    assert_int_equal(s_walk.sized, n); /* every one 3901 bytes, as mdtest -w 3901 */
    assert_int_equal(it_show_failure(it_wait(r.pid), r.err), 0);
    rb_json_t *j = it_summary(r.runs, r.folder, sizeof r.folder);
    assert_non_null(j);
    assert_int_equal(rb_json_num(rb_json_get(it_phase(j, "h.create"), "bytes"), 0), n * 3901.0);
    assert_int_equal(rb_json_num(rb_json_get(it_phase(j, "h.read"), "read_bytes"), 0), n * 3901.0);
    assert_int_equal(rb_json_num(rb_json_get(it_phase(j, "e.read"), "read_bytes"), 0), n * 1000.0);
    for (int p = 0; p < 2; p++) {
        const rb_json_t *ph = it_phase(j, p ? "e.read" : "h.read");
        assert_int_equal(rb_json_num(rb_json_get(ph, "errors"), -1), 0);
        assert_int_equal(rb_json_num(rb_json_get(ph, "ops"), 0), n);
    }
    rb_json_free(&j);
    s_count(r.data, -1);
    assert_int_equal(s_walk.files, 0);
    it_rmtree(r.dir);
}

/* find steps over mdtest-hard's files, each worker on its neighbour's:
 * every file examined once, and found what matches all of name, size and
 * newer (names end in the item's number: "*.1?" is items 10 .. 19); a find
 * told of fewer files still walks them all. */
static void test_find_counts(void **state)
{
    (void)state;
    s_run_t r;
    const int n = NODES * WORKERS * 100;
    s_start(&r, "mdtest-find",
            "[global]\ndirectory=%s\nnumjobs=2\nsample_interval=200ms\n"
            "meta_files=100\nmeta_filesize=3901\nmeta_shared_dir=1\nread_from=neighbour\n\n"
            "[h.create]\nrw=meta\nmeta_ops=create\n\n"
            "[h.find]\nrw=meta\nmeta_ops=find\nmeta_find_name=*.1?\nmeta_find_size=3901\n"
            "meta_find_newer=1\n\n"
            "[any]\nrw=meta\nmeta_ops=find\nfilename_format=h\n\n"
            "[small]\nrw=meta\nmeta_ops=find\nfilename_format=h\nmeta_find_size=3900\n\n"
            "[walk]\nrw=meta\nmeta_ops=find\nfilename_format=h\nmeta_files=10\n\n"
            "[h.delete]\nrw=meta\nmeta_ops=delete\n");
    assert_int_equal(it_show_failure(it_wait(r.pid), r.err), 0);
    rb_json_t *j = it_summary(r.runs, r.folder, sizeof r.folder);
    assert_non_null(j);
    /* walk: a find reads the folder, so it examines every file there, not
     * the meta_files it was told of */
    const char *steps[] = {"h.find", "any.find", "small.find", "walk.find"};
    const double found[] = {NODES * WORKERS * 10, n, 0, n};
    for (int i = 0; i < 4; i++) {
        const rb_json_t *ph = it_phase(j, steps[i]);
        assert_int_equal(rb_json_num(rb_json_get(ph, "errors"), -1), 0);
        assert_int_equal(rb_json_num(rb_json_get(ph, "ops"), 0), n);
        assert_int_equal(rb_json_num(rb_json_get(ph, "found"), -1), found[i]);
    }
    rb_json_free(&j);
    char report[4400];
    snprintf(report, sizeof report, "%s/report.txt", r.folder);
    char *t = it_read(report);
    assert_non_null(t);
    assert_non_null(strstr(t, "found                        60 of 600 files examined"));
    free(t);
    it_rmtree(r.dir);
}

/* Spoils the stamp of one file of local-2's first worker: its neighbour
 * (local-1, read_from=neighbour) reads it. */
static int s_spoil(const char *data)
{
    char path[4600];
    DIR *d = opendir(data);
    struct dirent *de;
    int done = -1;
    while (d && (de = readdir(d)))
        if (strstr(de->d_name, ".local-2")) {
            snprintf(path, sizeof path, "%s/%s/x.0/f7", data, de->d_name);
            FILE *f = fopen(path, "r+");
            if (f) {
                done = fwrite("0123456789abcdef", 1, 16, f) == 16 ? 0 : -1;
                fclose(f);
            }
        }
    if (d)
        closedir(d);
    return done;
}

static void test_read_from_neighbour(void **state)
{
    (void)state;
    s_run_t r;
    const int n = NODES * WORKERS * 100;
    const char *fmt =
        "[global]\ndirectory=%s\nnumjobs=2\nsample_interval=200ms\n"
        "meta_files=100\nmeta_filesize=3901\nread_from=neighbour\n\n"
        "[x.create]\nrw=meta\nmeta_ops=create\n\n" S_HOLD(
            "spoil") "[x]\nrw=meta\nmeta_ops=stat,read,delete\n\n" S_HOLD("u1") S_HOLD("u2");
    /* as written: every node stats and reads its neighbour's files, stamps good */
    s_start(&r, "mdtest-neighbour", fmt);
    assert_int_equal(it_show_failure(it_wait(r.pid), r.err), 0);
    rb_json_t *j = it_summary(r.runs, r.folder, sizeof r.folder);
    assert_non_null(j);
    const char *names[] = {"x.create", "x.stat", "x.read", "x.delete"};
    for (size_t p = 0; p < 4; p++) {
        const rb_json_t *ph = it_phase(j, names[p]);
        assert_int_equal(rb_json_num(rb_json_get(ph, "ops"), 0), n);
        assert_int_equal(rb_json_num(rb_json_get(ph, "errors"), -1), 0);
    }
    assert_int_equal(rb_json_num(rb_json_get(it_phase(j, "x.read"), "read_bytes"), 0), n * 3901.0);
    rb_json_free(&j);
    it_rmtree(r.dir);
    /* one file spoilt on disk: local-1, which reads local-2's, says so; the run fails */
    s_start(&r, "mdtest-neighbour-bad", fmt);
    assert_int_equal(it_wait_for_samples(r.runs, ",spoil,", NODES, it_deadline(20000)), 0);
    assert_int_equal(s_spoil(r.data), 0);
    int code = it_wait(r.pid);
    char *e = it_read(r.err);
    assert_non_null(e);
    if (code != 3 || !strstr(e, "verify") || !strstr(e, ".local-2/x.0"))
        fprintf(stderr, "exit %d, stderr:\n%s\n", code, e);
    assert_int_equal(code, 3);
    assert_non_null(strstr(e, "verify"));
    assert_non_null(strstr(e, ".local-2/x.0"));
    free(e);
    it_rmtree(r.dir);
}

/* deploy/plans/io500.ini at lab scale on --local 4, with a hold phase
 * after find (the files stay while it runs): IO500's phases in order, find
 * finding what GNU find finds in the same folders (find -name '*01*' -size
 * 3901c -newer a file made before the run), the scores from the phases,
 * flagged not valid. */
static void test_io500_local(void **state)
{
    (void)state;
    char dir[4200], runs[4200], out[4200], err[4200], folder[4200], plan[4300], ref[4300];
    snprintf(dir, sizeof dir, "%s", it_scratch("mdtest-io500"));
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    snprintf(plan, sizeof plan, "%s/io500.ini", dir);
    snprintf(ref, sizeof ref, "%s/timestamp", dir);
    snprintf(folder, sizeof folder, "%s/deploy/plans/io500.ini", RB_IT_SRC);
    char *text = it_read(folder);
    assert_non_null(text);
    char *at = strstr(text, "\n[ior-easy-read]");
    assert_non_null(at);
    char *held = malloc(strlen(text) + 256);
    assert_non_null(held);
    /* ior-easy-read stonewalled: a phase of its own, not the hold's */
    sprintf(held, "%.*s\n" S_HOLD("hold") "[ior-easy-read]\nstonewall%s", (int)(at - text), text,
            4 * RB_TEST_TIME_SCALE, at + strlen("\n[ior-easy-read]"));
    it_write(plan, held);
    free(held);
    free(text);
    it_write(ref, "IO500's timestamp file\n");
    usleep(20000); /* past the coarse clock's tick: every file is newer */
    int pid = it_sh_bg(out, err,
                       "env DIR='%s/data' STONEWALL=1s EASY_SIZE=16m HARD_SEGS=400 MD_FILES=200000 "
                       "'%s' run '%s' --local 4 --out '%s'",
                       dir, it_bin("rackbench"), plan, runs);
    assert_int_equal(it_wait_for_samples(runs, ",hold,", 4, it_deadline(60000)), 0);
    char cmd[13000];
    snprintf(cmd, sizeof cmd, "find '%s/data' -name '*01*' -size 3901c -newer '%s' | wc -l", dir,
             ref);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    long gnu = -1;
    assert_int_equal(fscanf(p, "%ld", &gnu), 1);
    pclose(p);
    assert_int_equal(it_show_failure(it_wait(pid), err), 0);
    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);
    const char *order[] = {"ior-easy-write",
                           "mdtest-easy.create",
                           "ior-hard-write",
                           "mdtest-hard.create",
                           "mdtest-easy.find",
                           "mdtest-hard.find",
                           "hold",
                           "ior-easy-read",
                           "mdtest-easy.stat",
                           "ior-hard-read",
                           "mdtest-hard.stat",
                           "mdtest-easy.delete",
                           "mdtest-hard.read",
                           "mdtest-hard.delete"};
    const rb_json_t *phases = rb_json_get(j, "phases");
    assert_int_equal(rb_json_len(phases), 14);
    for (size_t i = 0; i < 14; i++) {
        const rb_json_t *ph = rb_json_at(phases, i);
        assert_string_equal(rb_json_str(rb_json_get(ph, "name")), order[i]);
        assert_int_equal(rb_json_num(rb_json_get(ph, "errors"), -1), 0);
    }
    /* every file made examined once; found as GNU find counts them */
    double made = rb_json_num(rb_json_get(it_phase(j, "mdtest-easy.create"), "ops"), 0) +
                  rb_json_num(rb_json_get(it_phase(j, "mdtest-hard.create"), "ops"), 0);
    double examined = rb_json_num(rb_json_get(it_phase(j, "mdtest-easy.find"), "ops"), 0) +
                      rb_json_num(rb_json_get(it_phase(j, "mdtest-hard.find"), "ops"), 0);
    double found = rb_json_num(rb_json_get(rb_json_get(j, "io500"), "found"), -1);
    fprintf(stderr, "find: %.0f of %.0f files found (GNU find: %ld), %.0f made\n", found, examined,
            gnu, made);
    assert_true(examined == made);
    assert_true(gnu > 0);
    assert_true(found == (double)gnu);
    assert_true(rb_json_num(rb_json_get(it_phase(j, "mdtest-easy.find"), "found"), -1) == 0);
    it_check_io500(j, "on a local rack");
    rb_json_free(&j);
    char *o = it_read(out);
    assert_non_null(o);
    assert_non_null(strstr(o, "[SCORE ] Bandwidth "));
    assert_non_null(strstr(o, "[INVALID]"));
    assert_non_null(strstr(o, "[FIND  ]"));
    assert_non_null(strstr(o, "NOT a valid IO500 submission"));
    free(o);
    it_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dir_and_tree_steps),  cmocka_unit_test(test_stonewall_wearout),
        cmocka_unit_test(test_hard_sizes_on_disk),  cmocka_unit_test(test_find_counts),
        cmocka_unit_test(test_read_from_neighbour), cmocka_unit_test(test_io500_local),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
