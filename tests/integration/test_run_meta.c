/* Metadata steps through the whole system: three local agents create, stat
 * and delete files in one shared folder (mdtest-hard style) and each in
 * their own folders (bonnie++ style), with a barrier between steps. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "it_util.h"
#include "rb_json.h"

/* The one folder named rackbench.*.shared under data, and its file count. */
static int s_shared_files(const char *data, char *found, size_t len)
{
    DIR *d = opendir(data);
    struct dirent *de;
    int n = -1;
    while (d && (de = readdir(d))) {
        if (!strstr(de->d_name, ".shared"))
            continue;
        snprintf(found, len, "%s/%s", data, de->d_name);
        n = it_count_files(found);
    }
    if (d)
        closedir(d);
    return n;
}

/* The shared folder a wait looks for, and what it saw last. */
typedef struct {
    const char *data; /* the agents' root */
    char *found;      /* the shared folder's path, when there is one */
    size_t len;       /* of found */
    int n;            /* its file count, -1 while there is none */
} s_shared_t;

static int s_all_shared(void *arg)
{
    s_shared_t *w = arg;
    w->n = s_shared_files(w->data, w->found, w->len);
    return w->n == 6000;
}

static void test_meta_shared_and_private(void **state)
{
    (void)state;
    const char *dir = it_scratch("meta");
    char plan[4200], text[8192], runs[4200], out[4200], err[4200], folder[4200];
    char data[4200], shared[4400] = "";
    snprintf(data, sizeof data, "%s/data", dir);
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(text, sizeof text,
             "[global]\n"
             "directory=%s\n"
             "numjobs=2\n"
             "\n"
             "[hard]\n"
             "rw=meta\n"
             "meta_ops=create\n"
             "meta_files=1000\n"
             "meta_shared_dir=1\n"
             "\n"
             "; keeps the run going while the test counts the shared folder\n"
             "[hold]\n"
             "rw=randread\n"
             "ioengine=null\n"
             "bs=4k\n"
             "size=1G\n"
             "time_based\n"
             "runtime=%ds\n"
             "\n"
             "[easy]\n"
             "rw=meta\n"
             "meta_ops=create,stat,read,delete\n"
             "meta_files=500\n"
             "meta_filesize=4k\n"
             "meta_dirs=4\n"
             "meta_order=random\n",
             data, 3 * RB_TEST_TIME_SCALE);
    it_write(plan, text);
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    int pid = it_sh_bg(out, err, "'%s' run --local 3 --quiet --out '%s' '%s'", it_bin("rackbench"),
                       runs, plan);
    /* all 3 agents × 2 workers × 1000 files, in one folder, none lost to a collision */
    s_shared_t w = {.data = data, .found = shared, .len = sizeof shared, .n = -1};
    if (it_wait_until(s_all_shared, &w, it_deadline(30000)) < 0)
        fprintf(stderr, "the shared folder held %d files at the deadline\n", w.n);
    assert_int_equal(w.n, 6000);
    int code = it_wait(pid);
    assert_int_equal(it_show_failure(code, err), 0);
    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);
    const rb_json_t *phases = rb_json_get(j, "phases");
    assert_int_equal(rb_json_len(phases), 6); /* hard.create, hold, easy × 4 */
    const char *names[] = {"hard.create", "hold",      "easy.create",
                           "easy.stat",   "easy.read", "easy.delete"};
    const double ops[] = {6000, -1, 3000, 3000, 3000, 3000};
    for (size_t p = 0; p < 6; p++) {
        const rb_json_t *ph = rb_json_at(phases, p);
        assert_string_equal(rb_json_str(rb_json_get(ph, "name")), names[p]);
        if (ops[p] < 0)
            continue;
        assert_int_equal(rb_json_num(rb_json_get(ph, "ops"), 0), ops[p]);
        assert_int_equal(rb_json_num(rb_json_get(ph, "errors"), -1), 0);
        assert_true(rb_json_num(rb_json_get(ph, "iops"), 0) > 0);
        assert_string_equal(rb_json_str(rb_json_get(ph, "rw")), "meta");
        assert_int_equal(rb_json_len(rb_json_get(ph, "per_worker")), 6);
    }
    assert_string_equal(rb_json_str(rb_json_path(j, "phases.3.meta_op")), "stat");
    assert_string_equal(rb_json_str(rb_json_path(j, "phases.3.meta_order")), "random");
    assert_int_equal(rb_json_num(rb_json_path(j, "phases.4.read_bytes"), 0), 3000 * 4096);
    rb_json_free(&j);
    /* the bonnie++-style table */
    char *o = it_read(out);
    assert_non_null(strstr(o, "metadata, operations/s"));
    assert_non_null(strstr(o, "easy"));
    free(o);
    /* nothing left: shared folder and private ones */
    assert_int_equal(it_count_files(data), 0);
    assert_int_equal(access(shared, F_OK), -1);
    it_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_meta_shared_and_private),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
