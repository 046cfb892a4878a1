/* Parallel file system patterns through the whole system: three local
 * agents on one folder (standing in for a shared mount) write one shared
 * file segmented and strided, read each other's data back verified, are
 * stopped by stonewall_time (and worn out to the busiest worker), and have
 * small buffered phases called cache-influenced. */
#include <dirent.h>
#include <fcntl.h>
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

#define NODES   3
#define WORKERS 2
#define SIZE    (1u << 20) /* per worker */
#define BS      (64u << 10)
#define PIECE   (128u << 10)

/* A verify header as written on disk (agent/job/rb_verify.c), read independently. */
typedef struct {
    uint32_t magic, crc;
    uint64_t run, file, offset, gen;
    uint32_t len, node;
} s_hdr_t;

/* The file whose name ends with suffix in the run's shared folder under data. */
static int s_find_shared(const char *data, const char *suffix, char *out, size_t len)
{
    DIR *d = opendir(data);
    struct dirent *de;
    int found = 0;
    while (d && (de = readdir(d)) && !found) {
        if (!strstr(de->d_name, ".shared"))
            continue;
        char dir[4400];
        snprintf(dir, sizeof dir, "%s/%s", data, de->d_name);
        DIR *s = opendir(dir);
        struct dirent *f;
        while (s && (f = readdir(s))) {
            size_t n = strlen(f->d_name), k = strlen(suffix);
            if (n > k && !strcmp(f->d_name + n - k, suffix)) {
                snprintf(out, len, "%s/%s", dir, f->d_name);
                found = 1;
            }
        }
        if (s)
            closedir(s);
    }
    if (d)
        closedir(d);
    return found;
}

/* Checks every block of a shared file: it is where the layout puts it and
 * written by the node owning that region. Returns the blocks that are. */
static int s_check_layout(const char *path, int strided)
{
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    assert_int_equal(st.st_size, (off_t)NODES * WORKERS * SIZE);
    int good = 0;
    for (uint64_t off = 0; off < (uint64_t)st.st_size; off += BS) {
        s_hdr_t h;
        assert_int_equal(pread(fd, &h, sizeof h, (off_t)off), (ssize_t)sizeof h);
        uint64_t region = strided ? (off / PIECE) % (NODES * WORKERS) : off / SIZE;
        good += h.magic == 0x31564252u && h.offset == off && h.len == BS &&
                h.node == region / WORKERS + 1;
    }
    close(fd);
    return good;
}

/* Writes the plan text to plan and starts `rackbench run --local nodes` of
 * it in the background, its run folders under dir/runs (runs), its output
 * in out and err (each 4200 bytes); the pid. */
static int s_run_bg(const char *dir, const char *plan, const char *text, int nodes, char *runs,
                    char *out, char *err)
{
    it_write(plan, text);
    snprintf(runs, 4200, "%s/runs", dir);
    snprintf(out, 4200, "%s/stdout", dir);
    snprintf(err, 4200, "%s/stderr", dir);
    return it_sh_bg(out, err, "'%s' run --local %d --quiet --out '%s' '%s'", it_bin("rackbench"),
                    nodes, runs, plan);
}

static void test_shared_file_and_neighbour_reads(void **state)
{
    (void)state;
    const char *dir = it_scratch("shared");
    char plan[4200], text[8192], runs[4200], out[4200], err[4200], folder[4200];
    char data[4200], seg[4600] = "", str[4600] = "";
    snprintf(data, sizeof data, "%s/data", dir);
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(text, sizeof text,
             "[global]\n"
             "directory=%s\n"
             "bs=64k\n"
             "size=1m\n"
             "direct=1\n"
             "verify=crc32c\n"
             "numjobs=2\n"
             "sample_interval=200ms\n"
             "\n"
             "[seg]\n"
             "rw=write\n"
             "file_per_worker=0\n"
             "filename_format=seg\n"
             "\n"
             "[str]\n"
             "rw=write\n"
             "file_per_worker=0\n"
             "layout=strided\n"
             "transfer=128k\n"
             "filename_format=str\n"
             "\n"
             "[own]\n"
             "rw=write\n"
             "filename_format=own.$jobnum\n"
             "\n"
             "[seg-back]\n"
             "stonewall\n"
             "rw=read\n"
             "file_per_worker=0\n"
             "filename_format=seg\n"
             "read_from=neighbour\n"
             "\n"
             "[str-back]\n"
             "rw=randread\n"
             "file_per_worker=0\n"
             "layout=strided\n"
             "transfer=128k\n"
             "filename_format=str\n"
             "read_from=shift:2\n"
             "\n"
             "[own-back]\n"
             "rw=read\n"
             "filename_format=own.$jobnum\n"
             "read_from=neighbour\n"
             "\n"
             "; keeps the files while the test looks at them\n"
             "[hold]\n"
             "stonewall\n"
             "rw=randread\n"
             "ioengine=null\n"
             "verify=0\n"
             "time_based\n"
             "runtime=%ds\n",
             data, 3 * RB_TEST_TIME_SCALE);
    int pid = s_run_bg(dir, plan, text, NODES, runs, out, err);
    /* the shared files appear at the first phase, complete by the hold: once
     * the coordinator has a sample of the hold phase, every phase that
     * writes them is over (stonewall) and they are still there */
    assert_int_equal(it_wait_for_samples(runs, ",hold,", 1, it_deadline(60000)), 0);
    s_find_shared(data, ".seg", seg, sizeof seg);
    s_find_shared(data, ".str", str, sizeof str);
    assert_true(seg[0] && str[0]);
    assert_non_null(strstr(seg, "/local-1.seg")); /* named after node 0 */
    assert_int_equal(s_check_layout(seg, 0), NODES * WORKERS * SIZE / BS);
    assert_int_equal(s_check_layout(str, 1), NODES * WORKERS * SIZE / BS);
    int code = it_wait(pid);
    assert_int_equal(it_show_failure(code, err), 0);

    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);
    /* every block read back came from the node the plan says, intact */
    const rb_json_t *back = rb_json_path(j, "phases.1");
    assert_string_equal(rb_json_str(rb_json_get(back, "name")), "seg-back");
    assert_int_equal(rb_json_num(rb_json_get(back, "verify_errors"), -1), 0);
    assert_int_equal(rb_json_num(rb_json_get(back, "errors"), -1), 0);
    assert_int_equal(rb_json_num(rb_json_get(back, "read_bytes"), 0), 3.0 * NODES * WORKERS * SIZE);
    assert_string_equal(rb_json_str(rb_json_get(back, "read_from")), "shift:1");
    assert_false(rb_json_bool(rb_json_get(back, "file_per_worker"), 1));
    assert_string_equal(rb_json_str(rb_json_path(j, "phases.0.layout")), "segmented");
    rb_json_free(&j);
    char *o = it_read(out);
    assert_non_null(strstr(o, "seg-back: the data of the node 1 further on, verified"));
    assert_non_null(strstr(o, "one file for all workers, strided in 128k pieces"));
    free(o);
    /* all gone: the lead removed the shared files, each node its own */
    assert_int_equal(it_count_files(data), 0);
    it_rmtree(dir);
}

/* Phase p's read_map checked as IOR's -Z -Z would want it, stricter: a
 * permutation of the NODES4 nodes with no node on its own data; into map,
 * map[i] the rank whose data rank i read. */
#define NODES4 4
static void s_read_map(const rb_json_t *j, int p, const char *name, uint64_t seed, int *map)
{
    char path[64];
    snprintf(path, sizeof path, "phases.%d", p);
    const rb_json_t *ph = rb_json_path(j, path);
    assert_string_equal(rb_json_str(rb_json_get(ph, "name")), name);
    assert_string_equal(rb_json_str(rb_json_get(ph, "read_from")), "random");
    assert_int_equal(rb_json_num(rb_json_get(ph, "read_seed"), -1), (double)seed);
    /* every block came from the node each agent computed, intact, all of it */
    assert_int_equal(rb_json_num(rb_json_get(ph, "verify_errors"), -1), 0);
    assert_int_equal(rb_json_num(rb_json_get(ph, "errors"), -1), 0);
    assert_int_equal(rb_json_num(rb_json_get(ph, "read_bytes"), 0), (double)NODES4 * SIZE);
    const rb_json_t *m = rb_json_get(ph, "read_map");
    int hits[NODES4] = {0};
    for (int i = 0; i < NODES4; i++) {
        char me[16];
        snprintf(me, sizeof me, "local-%d", i + 1);
        const char *from = rb_json_str(rb_json_get(m, me));
        assert_non_null(from);
        assert_int_equal(strncmp(from, "local-", 6), 0);
        map[i] = atoi(from + 6) - 1;
        assert_true(map[i] >= 0 && map[i] < NODES4);
        assert_int_not_equal(map[i], i); /* never its own */
        hits[map[i]]++;
    }
    for (int i = 0; i < NODES4; i++)
        assert_int_equal(hits[i], 1); /* each node's data read once */
}

/* IOR's -Z -X on four nodes: every node reads another's files, each node's
 * once (the files' atime says each was read, the bytes that each was read
 * once), the same mapping for the same seed, another for another seed, and
 * a negative seed reseeded with each iteration. */
static void test_random_reads(void **state)
{
    (void)state;
    const char *dir = it_scratch("random");
    char plan[4200], text[8192], runs[4200], out[4200], err[4200], folder[4200], data[4200];
    snprintf(data, sizeof data, "%s/data", dir);
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(text, sizeof text,
             "[global]\ndirectory=%s\nbs=64k\nsize=1m\ndirect=1\nverify=crc32c\n"
             "sample_interval=200ms\nfilename_format=own\n"
             "[w]\nrw=write\ndo_verify=0\n"
             "[r8]\nstonewall\nrw=read\nread_from=random\nread_from_seed=8\n"
             "; keeps the files while the test looks at their atime\n"
             "[hold]\nstonewall\nrw=randread\nioengine=null\nverify=0\ntime_based\n"
             "runtime=%ds\n"
             "[again]\nstonewall\nrw=randread\nread_from=random\nread_from_seed=8\n"
             "[r7]\nstonewall\nrw=read\nread_from=random\nread_from_seed=7\n"
             "[neg]\nstonewall\nrw=read\nread_from=random\nread_from_seed=-7\n"
             "iterations=2\n",
             data, 3 * RB_TEST_TIME_SCALE);
    int pid = s_run_bg(dir, plan, text, NODES4, runs, out, err);
    assert_int_equal(it_wait_for_samples(runs, ",hold,", 1, it_deadline(60000)), 0);
    /* r8 has read each node's file (relatime: the first read after the write
     * moves atime past mtime), and read 4 files' worth in all: each once */
    assert_int_equal(it_sh_number(dir,
                                  "find '%s' -name own -type f -printf '%%A@ %%T@\\n' | "
                                  "awk '$1 > $2 { n++ } END { print n + 0 }'",
                                  data),
                     NODES4);
    int code = it_wait(pid);
    assert_int_equal(it_show_failure(code, err), 0);
    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);
    int r8[NODES4], again[NODES4], r7[NODES4], n1[NODES4], n2[NODES4];
    s_read_map(j, 1, "r8", 8, r8);
    s_read_map(j, 3, "again", 8, again);
    s_read_map(j, 4, "r7", 7, r7);
    s_read_map(j, 5, "neg#1", 7, n1);
    s_read_map(j, 6, "neg#2", 8, n2);
    assert_memory_equal(r8, again, sizeof r8); /* same seed, same mapping */
    assert_memory_equal(r7, n1, sizeof r7);
    assert_memory_equal(r8, n2, sizeof r8); /* -X -7: 7, then 8 */
    assert_memory_not_equal(r7, r8, sizeof r7);
    rb_json_free(&j);
    char *o = it_read(out);
    assert_non_null(strstr(o, "the data of the next node in a random cycle through the nodes "
                              "(seed 8), verified"));
    free(o);
    assert_int_equal(it_count_files(data), 0);
    it_rmtree(dir);
}

/* A per_worker figure of phase p. */
static double s_worker_num(const rb_json_t *j, int p, size_t w, const char *key)
{
    char path[64];
    snprintf(path, sizeof path, "phases.%d.per_worker.%zu.%s", p, w, key);
    return rb_json_num(rb_json_path(j, path), -1);
}

static void test_stonewall_and_cache(void **state)
{
    (void)state;
    const char *dir = it_scratch("stonewall");
    char plan[4200], text[8192], runs[4200], out[4200], err[4200], folder[4200];
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(text, sizeof text,
             "[global]\n"
             "directory=%s/data\n"
             "numjobs=2\n"
             "bs=64k\n"
             "sample_interval=250ms\n"
             "\n"
             "; stopped at 1 s, long before 1 GiB at 8 MiB/s\n"
             "[sw]\n"
             "rw=write\n"
             "direct=1\n"
             "size=1g\n"
             "rate=8m\n"
             "stonewall_time=1s\n"
             "\n"
             "; worn out: every worker goes on to the busiest one's count\n"
             "[wo]\n"
             "stonewall\n"
             "rw=randread\n"
             "ioengine=null\n"
             "size=1g\n"
             "bs=4k\n"
             "time_based\n"
             "runtime=%ds\n"
             "stonewall_time=1s\n"
             "wearout\n"
             "\n"
             "; small and buffered: the page cache\n"
             "[small]\n"
             "stonewall\n"
             "rw=write\n"
             "size=1m\n"
             "filename_format=small.$jobnum\n"
             "\n"
             "[small-back]\n"
             "stonewall\n"
             "rw=read\n"
             "size=1m\n"
             "loops=2\n"
             "drop_caches\n"
             "filename_format=small.$jobnum\n"
             "\n"
             "; a worn-out write leaves every worker's region short but even;\n"
             "; the read of it (another node's) reads that much, verified\n"
             "[wo-write]\n"
             "stonewall\n"
             "rw=write\n"
             "direct=1\n"
             "size=64m\n"
             "rate=4m\n"
             "verify=crc32c\n"
             "stonewall_time=1s\n"
             "wearout\n"
             "file_per_worker=0\n"
             "layout=strided\n"
             "transfer=128k\n"
             "filename_format=wo\n"
             "\n"
             "[wo-read]\n"
             "stonewall\n"
             "rw=read\n"
             "direct=1\n"
             "size=64m\n"
             "verify=crc32c\n"
             "file_per_worker=0\n"
             "layout=strided\n"
             "transfer=128k\n"
             "filename_format=wo\n"
             "read_from=neighbour\n",
             dir, 30 * RB_TEST_TIME_SCALE);
    it_write(plan, text);
    snprintf(runs, sizeof runs, "%s/runs", dir);
    snprintf(out, sizeof out, "%s/stdout", dir);
    snprintf(err, sizeof err, "%s/stderr", dir);
    int code = it_sh(out, err, "'%s' run --local %d --quiet --out '%s' '%s'", it_bin("rackbench"),
                     NODES, runs, plan);
    assert_int_equal(it_show_failure(code, err), 0);
    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);
    /* every worker stopped at 1 s, long before its 128 s of data: within a
     * sample interval of it, with room for a slow machine */
    assert_int_equal(rb_json_len(rb_json_path(j, "phases.0.per_worker")), NODES * WORKERS);
    for (size_t w = 0; w < NODES * WORKERS; w++) {
        double t = s_worker_num(j, 0, w, "time_s");
        assert_true(t > 0.95 && t < 1.0 + 0.5 * RB_TEST_TIME_SCALE);
        assert_true(s_worker_num(j, 0, w, "bytes") < 16.0 * (1 << 20));
    }
    assert_int_equal(rb_json_num(rb_json_path(j, "phases.0.stonewall_time.stopped_workers"), 0),
                     NODES * WORKERS);
    assert_int_equal(rb_json_num(rb_json_path(j, "phases.0.stonewall_time.limit_s"), 0), 1);
    /* wear-out: all end with the busiest worker's ops, long before the 30 s
     * runtime (both scaled) */
    double most = rb_json_num(rb_json_path(j, "phases.1.stonewall_time.worker_ops.max"), 0);
    double least = rb_json_num(rb_json_path(j, "phases.1.stonewall_time.worker_ops.min"), 0);
    assert_true(most > 0 && least <= most);
    assert_true(rb_json_bool(rb_json_path(j, "phases.1.stonewall_time.wearout"), 0));
    for (size_t w = 0; w < NODES * WORKERS; w++) {
        assert_int_equal(s_worker_num(j, 1, w, "ops"), most);
        assert_true(s_worker_num(j, 1, w, "time_s") < 10 * RB_TEST_TIME_SCALE);
    }
    /* buffered 2 MiB a node: the cache; the direct phase is not flagged */
    assert_false(rb_json_bool(rb_json_path(j, "phases.0.cache_influenced"), 1));
    assert_true(rb_json_bool(rb_json_path(j, "phases.2.cache_influenced"), 0));
    assert_int_equal(rb_json_num(rb_json_path(j, "phases.2.cache.buffered_bytes_per_node"), 0),
                     WORKERS * (1 << 20));
    /* read twice after a drop: still the cache on the second pass */
    assert_true(rb_json_bool(rb_json_path(j, "phases.3.cache_influenced"), 0));
    double dropped = rb_json_num(rb_json_path(j, "phases.3.cache.dropped_nodes"), -1);
    double failed = rb_json_num(rb_json_path(j, "phases.3.cache.drop_failed_nodes"), -1);
    assert_int_equal(dropped + failed, NODES);
    if (geteuid() == 0)
        assert_int_equal(dropped, NODES);
    /* what the worn-out write wrote, and no more, is read back intact (its
     * bytes also count its do_verify read-back, as fio's) */
    double written = rb_json_num(rb_json_path(j, "phases.4.write_bytes"), 0);
    assert_int_equal(rb_json_num(rb_json_path(j, "phases.4.read_bytes"), -1), written);
    assert_true(written > 0 && written < NODES * WORKERS * 64.0 * (1 << 20));
    assert_int_equal(rb_json_num(rb_json_path(j, "phases.4.errors"), -1), 0);
    assert_int_equal(rb_json_num(rb_json_path(j, "phases.5.read_bytes"), 0), written);
    assert_int_equal(rb_json_num(rb_json_path(j, "phases.5.verify_errors"), -1), 0);
    assert_int_equal(rb_json_num(rb_json_path(j, "phases.5.errors"), -1), 0);
    rb_json_free(&j);
    char *o = it_read(out);
    assert_non_null(strstr(o, "CACHE-INFLUENCED"));
    assert_non_null(strstr(o, "stonewall_time"));
    assert_non_null(strstr(o, "the figures above include the wear-out"));
    free(o);
    it_rmtree(dir);
}

/* IO500's ior-hard: 47,008-byte transfers (not a block multiple) into one
 * shared file, N-1 strided; the file read back block by block from outside
 * the run is where the layout puts each piece, written by the node owning
 * it, and the neighbour's read of it verifies. */
static void test_ior_hard_pieces(void **state)
{
    (void)state;
    const uint64_t bs = 47008, pieces = 40, w = NODES * WORKERS;
    const char *dir = it_scratch("shared-hard");
    char plan[4200], text[8192], runs[4200], out[4200], err[4200], folder[4200];
    char data[4200], hard[4600] = "";
    snprintf(data, sizeof data, "%s/data", dir);
    snprintf(plan, sizeof plan, "%s/plan.ini", dir);
    snprintf(text, sizeof text,
             "[global]\ndirectory=%s\nbs=47008\nsize=%llu\nverify=crc32c\nnumjobs=2\n"
             "sample_interval=200ms\nfile_per_worker=0\nlayout=strided\n"
             "filename_format=hard\n\n"
             "[hard-write]\nrw=write\nend_fsync=1\n\n"
             "[hold]\nstonewall\nrw=randread\nioengine=null\nverify=0\nfile_per_worker=1\n"
             "layout=segmented\nfilename_format=hold\ntime_based\nruntime=%ds\n\n"
             "[hard-read]\nstonewall\nrw=read\nread_from=neighbour\n",
             data, (unsigned long long)(pieces * bs), 3 * RB_TEST_TIME_SCALE);
    int pid = s_run_bg(dir, plan, text, NODES, runs, out, err);
    assert_int_equal(it_wait_for_samples(runs, ",hold,", 1, it_deadline(60000)), 0);
    s_find_shared(data, ".hard", hard, sizeof hard);
    assert_true(hard[0]);
    int fd = open(hard, O_RDONLY);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    assert_int_equal(st.st_size, (off_t)(w * pieces * bs));
    uint64_t good = 0;
    for (uint64_t off = 0; off < (uint64_t)st.st_size; off += bs) {
        s_hdr_t h;
        assert_int_equal(pread(fd, &h, sizeof h, (off_t)off), (ssize_t)sizeof h);
        uint64_t region = (off / bs) % w; /* piece k of region g at (k × W + g) × 47008 */
        good += h.magic == 0x31564252u && h.offset == off && h.len == bs &&
                h.node == region / WORKERS + 1;
    }
    close(fd);
    assert_int_equal(good, w * pieces);
    assert_int_equal(it_show_failure(it_wait(pid), err), 0);
    rb_json_t *j = it_summary(runs, folder, sizeof folder);
    assert_non_null(j);
    const rb_json_t *back = rb_json_path(j, "phases.2");
    assert_string_equal(rb_json_str(rb_json_get(back, "name")), "hard-read");
    assert_int_equal(rb_json_num(rb_json_get(back, "verify_errors"), -1), 0);
    assert_int_equal(rb_json_num(rb_json_get(back, "errors"), -1), 0);
    assert_int_equal(rb_json_num(rb_json_get(back, "read_bytes"), 0), (double)(w * pieces * bs));
    rb_json_free(&j);
    it_rmtree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shared_file_and_neighbour_reads),
        cmocka_unit_test(test_stonewall_and_cache),
        cmocka_unit_test(test_ior_hard_pieces),
        cmocka_unit_test(test_random_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
