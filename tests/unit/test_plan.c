/* Guards the plan parser: every field of a valid plan, every error with its
 * line, fio's [global] rules, print/re-parse round trips, and random damage. */
#include <errno.h>
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

#include "rb_accept.h"
#include "rb_project.h"
#include "rb_dist.h"
#include "rb_plan.h"

#define MS 1000000ull
#define S  1000000000ull

static const char s_full[] = "# rackbench quick plan: write, then read back\n"
                             "; a second comment style\n"
                             "\n"
                             "[global]\n"
                             "directory = /data/bench\n"
                             "bs=1M\n"
                             "direct\n"
                             "sample_interval=500ms\n"
                             "size = 64m ; per worker\n"
                             "\n"
                             "[seqwrite]\n"
                             "rw=write\n"
                             "numjobs=4\n"
                             "runtime=30\n"
                             "time_based\n"
                             "\n"
                             "[bigwrite]\n"
                             "  readwrite = write  \n"
                             "blocksize=128k\n"
                             "size=1G\n"
                             "buffered # use the page cache\n"
                             "directory=/data/other\n"
                             "\n"
                             "[seqread]   ; read it back\n"
                             "stonewall\n"
                             "rw=read\n"
                             "filename_format=$jobname-$jobnum.$filenum.dat\n"
                             "name=readback\n"
                             "runtime=1500ms\n"
                             "description=reads what was written # inline\n"
                             "group_reporting\n"
                             "\t# indented comment\n";

/* Every option rackbench takes, each away from its default somewhere. */
static const char s_every[] = "[global]\n"                             /* 1 */
                              "directory=/data/g\n"                    /* 2 */
                              "ioengine=libaio\n"                      /* 3 */
                              "iodepth=32\n"                           /* 4 */
                              "thread\n"                               /* 5 */
                              "group_reporting\n"                      /* 6 */
                              "\n"                                     /* 7 */
                              "[prep]\n"                               /* 8 */
                              "rw=write\n"                             /* 9 */
                              "bs=64k\n"                               /* 10 */
                              "size=10m\n"                             /* 11 */
                              "nrfiles=4\n"                            /* 12 */
                              "filesize=3m\n"                          /* 13 */
                              "offset=1m\n"                            /* 14 */
                              "numjobs=2\n"                            /* 15 */
                              "direct=1\n"                             /* 16 */
                              "sync=dsync\n"                           /* 17 */
                              "fsync=8\n"                              /* 18 */
                              "fdatasync=16\n"                         /* 19 */
                              "end_fsync=1\n"                          /* 20 */
                              "fsync_on_close\n"                       /* 21 */
                              "ramp_time=2s\n"                         /* 22 */
                              "runtime=1m\n"                           /* 23 */
                              "time_based\n"                           /* 24 */
                              "loops=3\n"                              /* 25 */
                              "randrepeat=0\n"                         /* 26 */
                              "randseed=0xdeadbeef\n"                  /* 27 */
                              "norandommap\n"                          /* 28 */
                              "overwrite=1\n"                          /* 29 */
                              "buffer_pattern=0xdeadbeef\"abc\"-12\n"  /* 30 */
                              "refill_buffers\n"                       /* 31 */
                              "verify=crc32c\n"                        /* 32 */
                              "do_verify=0\n"                          /* 33 */
                              "verify_fatal=1\n"                       /* 34 */
                              "rate=10m\n"                             /* 35 */
                              "filename_format=pre.$jobnum.$filenum\n" /* 36 */
                              "\n"                                     /* 37 */
                              "[mixed]\n"                              /* 38 */
                              "stonewall\n"                            /* 39 */
                              "rw=randrw\n"                            /* 40 */
                              "rwmixwrite=30\n"                        /* 41 */
                              "bsrange=4k-64k\n"                       /* 42 */
                              "filesize=1m\n"                          /* 43 */
                              "nr_files=3\n"                           /* 44 */
                              "ioengine=io_uring\n"                    /* 45 */
                              "zero_buffers\n"                         /* 46 */
                              "directory=\n"                           /* 47 */
                              "filename=/mnt/fast/shared.dat\n"        /* 48 */
                              "clat_percentiles=0\n"                   /* 49 */
                              "\n"                                     /* 50 */
                              "[again]\n"                              /* 51 */
                              "rw=reread\n"                            /* 52 */
                              "size=1000\n"                            /* 53 */
                              "bs=512\n"                               /* 54 */
                              "ioengine=null\n"                        /* 55 */
                              "sync=1\n";                              /* 56 */

/* Acceptance sets around data phases and a metadata job. */
static const char s_accept[] = "[global]\n"
                               "directory=/data/acc\n"
                               "size=1m\n"
                               "[w]\n"
                               "rw=write\n"
                               "[r]\n"
                               "stonewall\n"
                               "rw=read\n"
                               "[r2]\n"
                               "rw=randread\n"
                               "[acceptance]\n"
                               "phases=w,r2\n"
                               "min_aggregate_bw=1.5G\n"
                               "min_node_bw=100M\n"
                               "max_node_spread=12.5%\n"
                               "max_p99_lat=5ms\n"
                               "max_p999_lat=20ms\n"
                               "max_mean_lat=900us\n"
                               "min_iops=2000\n"
                               "min_nodes=4\n"
                               "max_errors=0\n"
                               "[md]\n"
                               "rw=meta\n"
                               "meta_files=10\n"
                               "meta_ops=create,stat\n"
                               "[acceptance md]\n"
                               "phases=md\n"
                               "min_iops=500\n"
                               "[acceptance all]\n"
                               "max_errors=1\n"
                               "min_node_bw=1k\n";

/* The JR5 unit: a [capacity] section over two data phases and a metadata job. */
static const char s_capacity[] = "[global]\n"
                                 "directory=/data/cap\n"
                                 "size=1m\n"
                                 "[w]\n"
                                 "rw=write\n"
                                 "[r]\n"
                                 "stonewall\n"
                                 "rw=read\n"
                                 "[md]\n"
                                 "rw=meta\n"
                                 "meta_files=10\n"
                                 "[capacity]\n"
                                 "disks=48\n"
                                 "disk_size=2T\n"
                                 "raid=raid6\n"
                                 "raid_group=16\n"
                                 "hot_spares_per_group=1\n"
                                 "fs_overhead=1.5%\n"
                                 "usable_per_unit=71TB\n"
                                 "unit_height_u=5\n"
                                 "rack_height_u=41\n"
                                 "derate=0.5\n"
                                 "target_capacity=1P\n"
                                 "target_bw=12GB/s\n"
                                 "phases=w,r\n";

/* A metadata job between two data jobs, mdtest-like. */
static const char s_meta[] = "[global]\n"                                  /* 1 */
                             "directory=/data/md\n"                        /* 2 */
                             "\n"                                          /* 3 */
                             "[prep]\n"                                    /* 4 */
                             "rw=write\n"                                  /* 5 */
                             "size=1m\n"                                   /* 6 */
                             "\n"                                          /* 7 */
                             "[md]\n"                                      /* 8 */
                             "rw=meta\n"                                   /* 9 */
                             "meta_ops=create, stat,rename,read ,delete\n" /* 10 */
                             "meta_files=1k\n"                             /* 11 */
                             "meta_filesize=4k\n"                          /* 12 */
                             "meta_depth=3\n"                              /* 13 */
                             "meta_branch=2\n"                             /* 14 */
                             "meta_order=random\n"                         /* 15 */
                             "meta_sync\n"                                 /* 16 */
                             "numjobs=4\n"                                 /* 17 */
                             "bs=1M\n"                                     /* 18 */
                             "iodepth=8\n"                                 /* 19 */
                             "\n"                                          /* 20 */
                             "[after]\n"                                   /* 21 */
                             "rw=read\n"                                   /* 22 */
                             "size=1m\n";                                  /* 23 */

static rb_plan_t *s_parse_ok(const char *text, size_t len, const char *source)
{
    rb_plan_t *p = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    int rc = rb_plan_parse(text, len, source, &p, &err);
    if (rc != 0)
        fail_msg("parse failed (%d): %s", rc, err.msg);
    assert_non_null(p);
    return p;
}

static rb_plan_t *s_parse_str(const char *text)
{
    return s_parse_ok(text, strlen(text), "t.ini");
}

/* Every field of the wire's job table (RB_JOB_FIELDS), the one that differs named. */
static void s_assert_job_equal(const rb_job_spec_t *a, const rb_job_spec_t *b)
{
    char key[80];
    if (rb_proto_job_diff(a, b, key, sizeof key))
        fail_msg("job '%s': %s differs", a->name, key);
}

static void s_assert_accept_equal(const rb_accept_t *a, const rb_accept_t *b)
{
    if (!a || !b) {
        assert_ptr_equal(a, b);
        return;
    }
    assert_int_equal(a->nsets, b->nsets);
    for (uint32_t i = 0; i < a->nsets; i++) {
        const rb_accept_set_t *x = &a->sets[i], *y = &b->sets[i];
        assert_string_equal(x->name, y->name);
        for (int c = 0; c < RB_ACCEPT_NCHECKS; c++) {
            assert_int_equal(x->limit_line[c] != 0, y->limit_line[c] != 0);
            if (x->limit_line[c])
                assert_int_equal(x->limit[c], y->limit[c]);
        }
        assert_int_equal(x->phases_text != NULL, y->phases_text != NULL);
        assert_int_equal(x->nphases, y->nphases);
        assert_memory_equal(x->phases, y->phases, x->nphases * sizeof *x->phases);
    }
}

static void s_assert_project_equal(const rb_project_t *a, const rb_project_t *b)
{
    if (!a || !b) {
        assert_ptr_equal(a, b);
        return;
    }
    for (int k = 0; k < RB_CAP_NKEYS; k++)
        assert_int_equal(a->key_line[k] != 0, b->key_line[k] != 0);
    assert_int_equal(a->disks, b->disks);
    assert_int_equal(a->disk_size, b->disk_size);
    assert_int_equal(a->raid, b->raid);
    assert_int_equal(a->raid_group, b->raid_group);
    assert_int_equal(a->hot_spares, b->hot_spares);
    assert_int_equal(a->fs_overhead_ppm, b->fs_overhead_ppm);
    assert_int_equal(a->usable_per_unit, b->usable_per_unit);
    assert_int_equal(a->unit_height_u, b->unit_height_u);
    assert_int_equal(a->rack_height_u, b->rack_height_u);
    assert_int_equal(a->units_per_rack, b->units_per_rack);
    assert_int_equal(a->derate_ppm, b->derate_ppm);
    assert_int_equal(a->target_capacity, b->target_capacity);
    assert_int_equal(a->target_bw, b->target_bw);
    assert_int_equal(a->target_iops, b->target_iops);
    assert_int_equal(a->nphases, b->nphases);
    assert_memory_equal(a->phases, b->phases, a->nphases * sizeof *a->phases);
    assert_int_equal(a->has_model, b->has_model);
    assert_int_equal(a->data_disks, b->data_disks);
}

static void s_assert_plan_equal(const rb_plan_t *a, const rb_plan_t *b)
{
    assert_int_equal(a->interval_ns, b->interval_ns);
    s_assert_accept_equal(a->accept, b->accept);
    s_assert_project_equal(a->project, b->project);
    assert_string_equal(a->directory, b->directory);
    assert_int_equal(a->nphases, b->nphases);
    for (uint32_t i = 0; i < a->nphases; i++) {
        assert_string_equal(a->phases[i].name, b->phases[i].name);
        assert_int_equal(a->phases[i].njobs, b->phases[i].njobs);
        for (uint32_t j = 0; j < a->phases[i].njobs; j++)
            s_assert_job_equal(&a->phases[i].jobs[j], &b->phases[i].jobs[j]);
    }
}

/* Prints p into a new string the caller frees. */
static char *s_print(const rb_plan_t *p, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_non_null(f);
    assert_int_equal(rb_plan_print(p, f), 0);
    fclose(f);
    if (len)
        *len = n;
    return buf;
}

static void s_assert_round_trip(const rb_plan_t *p)
{
    size_t len = 0;
    char *text = s_print(p, &len);
    rb_plan_t *q = s_parse_ok(text, len, "printed.ini");
    s_assert_plan_equal(p, q);
    /* printing is stable: the second print equals the first but for the source */
    char *again = s_print(q, NULL);
    assert_string_equal(strchr(text, '\n'), strchr(again, '\n'));
    free(again);
    rb_plan_destroy(&q);
    free(text);
}

static void test_full_plan(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str(s_full);
    assert_string_equal(p->source, "t.ini");
    assert_string_equal(p->text, s_full);
    assert_int_equal(p->interval_ns, 500 * MS);
    assert_string_equal(p->directory, "/data/bench");
    assert_int_equal(p->nphases, 2);

    const rb_phase_spec_t *ph = &p->phases[0];
    assert_string_equal(ph->name, "seqwrite");
    assert_int_equal(ph->njobs, 2);
    const rb_job_spec_t *j = &ph->jobs[0];
    assert_string_equal(j->name, "seqwrite");
    assert_int_equal(j->rw, RB_RW_WRITE);
    assert_int_equal(j->bs, 1u << 20);
    assert_int_equal(j->size, 64u << 20);
    assert_int_equal(j->numjobs, 4);
    assert_int_equal(j->direct, 1);
    assert_int_equal(j->time_based, 1);
    assert_int_equal(j->runtime_ns, 30 * S);
    assert_string_equal(j->directory, "/data/bench");
    assert_string_equal(j->filename_format, "$jobname.$jobnum.$filenum");

    j = &ph->jobs[1];
    assert_string_equal(j->name, "bigwrite");
    assert_int_equal(j->rw, RB_RW_WRITE);
    assert_int_equal(j->bs, 128u << 10);
    assert_int_equal(j->size, 1u << 30);
    assert_int_equal(j->numjobs, 1);
    assert_int_equal(j->direct, 0);
    assert_int_equal(j->time_based, 0);
    assert_int_equal(j->runtime_ns, 0);
    assert_string_equal(j->directory, "/data/other");
    assert_int_equal(rb_plan_phase_workers(ph), 5);

    ph = &p->phases[1];
    assert_string_equal(ph->name, "readback");
    assert_int_equal(ph->njobs, 1);
    j = &ph->jobs[0];
    assert_string_equal(j->name, "readback");
    assert_int_equal(j->rw, RB_RW_READ);
    assert_int_equal(j->bs, 1u << 20);
    assert_int_equal(j->size, 64u << 20);
    assert_int_equal(j->numjobs, 1);
    assert_int_equal(j->direct, 1);
    assert_int_equal(j->time_based, 0);
    assert_int_equal(j->runtime_ns, 1500 * MS);
    assert_string_equal(j->directory, "/data/bench");
    assert_string_equal(j->filename_format, "$jobname-$jobnum.$filenum.dat");
    assert_int_equal(rb_plan_phase_workers(ph), 1);

    rb_plan_destroy(&p);
    assert_null(p);
    rb_plan_destroy(&p); /* safe twice */
    rb_plan_destroy(NULL);
}

static void test_defaults(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[only]\nsize=1M\n");
    assert_int_equal(p->interval_ns, 1 * S);
    assert_string_equal(p->directory, "");
    assert_int_equal(p->nphases, 1);
    const rb_job_spec_t *j = &p->phases[0].jobs[0];
    assert_string_equal(p->phases[0].name, "only");
    assert_int_equal(j->rw, RB_RW_READ);
    assert_int_equal(j->bs, 4096);
    assert_int_equal(j->size, 1u << 20);
    assert_int_equal(j->numjobs, 1);
    assert_int_equal(j->direct, 0);
    assert_int_equal(j->time_based, 0);
    assert_int_equal(j->runtime_ns, 0);
    assert_string_equal(j->directory, "");
    assert_string_equal(j->filename_format, "$jobname.$jobnum.$filenum");
    /* the options fio job files use most, at fio's defaults */
    assert_int_equal(j->bs_max, 4096);
    assert_string_equal(j->filename, "");
    assert_string_equal(j->ioengine, "sync");
    assert_int_equal(j->iodepth, 1);
    assert_int_equal(j->rwmixread, 50);
    assert_int_equal(j->nrfiles, 1);
    assert_int_equal(j->filesize, 0);
    assert_int_equal(j->offset, 0);
    assert_int_equal(j->sync_mode, RB_SYNC_NONE);
    assert_int_equal(j->fsync_every, 0);
    assert_int_equal(j->fdatasync_every, 0);
    assert_int_equal(j->end_fsync, 0);
    assert_int_equal(j->fsync_on_close, 0);
    assert_int_equal(j->ramp_ns, 0);
    assert_int_equal(j->loops, 1);
    assert_int_equal(j->randrepeat, 1);
    assert_int_equal(j->randseed, 0x89);
    assert_int_equal(j->norandommap, 0);
    assert_int_equal(j->overwrite, 0);
    assert_int_equal(j->buffer_mode, RB_BUF_RANDOM);
    assert_int_equal(j->refill_buffers, 0);
    assert_int_equal(j->pattern_len, 0);
    assert_int_equal(j->verify, RB_VERIFY_NONE);
    assert_int_equal(j->do_verify, 1);
    assert_int_equal(j->verify_fatal, 0);
    assert_int_equal(j->rate, 0);
    assert_null(p->notes);
    rb_plan_destroy(&p);
}

/* The same plan with CRLF line ends gives the same result. */
static void test_crlf(void **state)
{
    (void)state;
    size_t n = strlen(s_full);
    char *crlf = malloc(2 * n + 1);
    assert_non_null(crlf);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s_full[i] == '\n')
            crlf[k++] = '\r';
        crlf[k++] = s_full[i];
    }
    crlf[k] = '\0';
    rb_plan_t *a = s_parse_str(s_full);
    rb_plan_t *b = s_parse_str(crlf);
    s_assert_plan_equal(a, b);
    rb_plan_destroy(&a);
    rb_plan_destroy(&b);
    free(crlf);
}

/* fio semantics: a [global] applies to the jobs after it; several accumulate. */
static void test_global_after_job(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\n"
                               "bs=8k\n"
                               "numjobs=2\n"
                               "[a]\n"
                               "size=1M\n"
                               "[global]\n"
                               "bs=16k\n"
                               "rw=write\n"
                               "directory=/late\n"
                               "stonewall\n"
                               "[b]\n"
                               "size=1M\n"
                               "[c]\n"
                               "size=2M\n"
                               "stonewall=0\n");
    assert_int_equal(p->nphases, 2);
    const rb_job_spec_t *a = &p->phases[0].jobs[0];
    assert_string_equal(a->name, "a");
    assert_int_equal(a->bs, 8192);
    assert_int_equal(a->rw, RB_RW_READ);
    assert_int_equal(a->numjobs, 2);
    assert_string_equal(a->directory, "");
    const rb_job_spec_t *b = &p->phases[1].jobs[0];
    assert_string_equal(b->name, "b");
    assert_int_equal(b->bs, 16384);
    assert_int_equal(b->rw, RB_RW_WRITE);
    assert_int_equal(b->numjobs, 2);
    assert_string_equal(b->directory, "/late");
    assert_int_equal(p->phases[1].njobs, 2);
    assert_string_equal(p->phases[1].jobs[1].name, "c");
    assert_string_equal(p->directory, "/late");
    /* job a has no directory although [global] has one: the print must keep it so */
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
}

static void test_fio_style_inline_comments(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("; -- start job file --\n"
                               "[global]\n"
                               "rw=read        ; sequential reads\n"
                               "size=128m      ; per job\n"
                               "bs=1m\n"
                               "direct=1       ; bypass the page cache\n"
                               "group_reporting\n"
                               "\n"
                               "[job1]\n"
                               "numjobs=2      ; two workers\n"
                               "\n"
                               "[job2]\n"
                               "wait_for_previous ; a new phase\n"
                               "rw=write\t; tab before the comment\n"
                               "; -- end job file --\n");
    assert_int_equal(p->nphases, 2);
    const rb_job_spec_t *j1 = &p->phases[0].jobs[0];
    assert_string_equal(j1->name, "job1");
    assert_int_equal(j1->rw, RB_RW_READ);
    assert_int_equal(j1->size, 128u << 20);
    assert_int_equal(j1->bs, 1u << 20);
    assert_int_equal(j1->direct, 1);
    assert_int_equal(j1->numjobs, 2);
    const rb_job_spec_t *j2 = &p->phases[1].jobs[0];
    assert_string_equal(j2->name, "job2");
    assert_int_equal(j2->rw, RB_RW_WRITE);
    assert_int_equal(j2->numjobs, 1);
    rb_plan_destroy(&p);
}

typedef struct {
    const char *text;
    unsigned line; /* 0: a whole-file error, "t.ini: " */
    const char *what;
} s_bad_t;

static const s_bad_t s_bad[] = {
    {"[a]\nsize=1M\niodepht=4\n", 3, "unknown option 'iodepht'"},
    {"[a]\nsize=1M\nruntme=4\n", 3, "unknown option 'runtme' (did you mean 'runtime'?)"},
    {"[a]\nsiez=1M\n", 2, "unknown option 'siez' (did you mean 'size'?)"},
    {"[a]\nsize=1M\nRW=write\n", 3, "unknown option 'RW' (did you mean 'rw'?)"},
    {"[a]\nsize=1M\n\nfile_append=1\n", 4, "option 'file_append' is not supported yet"},
    {"[a]\nsize=1M\n\nfill_device=1\n", 4,
     "job 'a': fill_device with rw=read is not supported yet (only rw=write"},
    {"[a]\nrw=write\nfile_per_worker=0\nfill_device=1\n", 4,
     "fill_device with file_per_worker=0 is not supported yet"},
    {"[a]\nsize=1M\nwrite_hint=big\n", 3, "bad value 'big' for write_hint"},
    {"[global]\nlockmem=1x\n[a]\nsize=1M\n", 2, "bad size '1x' for lockmem"},
    {"[a]\nsize=1M\ncpus_allowed=0-x\n", 3,
     "cpus_allowed=0-x: '0-x' is not a CPU or a range of CPUs from 0 to 1023"},
    {"[a]\nsize=1M\ncpus_allowed=3-1\n", 3, "cpus_allowed=3-1: the range 3-1 goes down"},
    {"[a]\nsize=1M\ncpus_allowed=1024\n", 3, "is not a CPU or a range of CPUs from 0 to 1023"},
    {"[a]\nsize=1M\ncpumask=0\n", 3, "cpumask=0: '0' is not a mask of CPUs"},
    {"[a]\nsize=1M\ncpus_allowed_policy=spread\n", 3, "bad value 'spread' for cpus_allowed_policy"},
    {"[a]\nsize=1M\nrw=filecreate\n", 3, "rw=filecreate is not supported yet"},
    {"[a]\nsize=1M\ndirectory=/a::/b\n", 3,
     "directory '/a::/b': an empty directory in the list (directories are separated by ':')"},
    {"[a]\nsize=1M\ndirectory=/a:\n", 3, "directory '/a:': an empty directory in the list"},
    {"[a]\nrw=meta\nmeta_ops=create\nmeta_files=4\ndirectory=/a:/b\n", 5,
     "job 'a': a list of directories (/a:/b) with rw=meta is not supported yet"},
    {"[a]\nsize=1M\nrw=trim\nbssplit=4k/50:8k/50\n", 4,
     "job 'a': bssplit with rw=trim is not supported yet"},
    {"[a]\nsize=1M\nrw=randtrim\nverify=crc32c\n", 4,
     "job 'a': verify with rw=randtrim is not supported yet"},
    {"[a]\nsize=1M\nrw=trimwrite\nrate=1m\n", 4,
     "job 'a': rate and rate_iops with rw=trimwrite are not supported yet"},
    {"[a]\nsize=1M\nrw=trim\nfile_per_worker=0\n", 4,
     "job 'a': rw=trim trims a node's own files or devices: no file_per_worker=0 with it"},
    {"[a]\nsize=1M\nrw=sideways\n", 3, "bad value 'sideways' for rw"},
    {"[a]\nsize=1M\nrw=write;x\n", 3, "bad value 'write;x' for rw"},
    {"[a]\nsize=1M\n[acceptance]\nmin_bw=1G\n", 4, "unknown option 'min_bw' in [acceptance]"},
    {"[a]\nsize=1M\n[capacity]\nx=1\n", 4, "unknown option 'x' in [capacity] (disks, disk_size"},
    {"[a]\nsize=1M\n[acceptance]\n[b]\nsize=1M\n", 3, "[acceptance] has no checks"},
    {"[a]\nsize=1M\n[acceptance]\nmin_iops=1\nphases=b\n", 5,
     "phases: 'b' in [acceptance] is neither a phase nor a job of the plan (phases: a)"},
    {"[capacity]\n", 1, "[capacity] is empty"},
    {"[a]\nsize=1M\n[capacity]\nunits_per_rack=8\n[capacity]\n", 5,
     "section [capacity] appears twice (first at line 3)"},
    {"[global]\n\n[rack r1]\n", 3, "[rack r1] lists no nodes"},
    {"[a]\nsize=1M\nbs=4q\n", 3, "bad size '4q' for bs"},
    {"[a]\nsize=-1M\n", 2, "bad size '-1M' for size"},
    {"[a]\nsize=1M\nbs=0\n", 3, "bs must be greater than 0"},
    {"[a]\nsize=0\n", 2, "size must be greater than 0"},
    {"[a]\nsize=1M\nbs=4k,6k\nrw=randrw\n", 3,
     "the IO sizes of writes (6k to 6k) are not multiples of the smallest IO size, 4k"},
    {"[a]\nsize=1M\nbssplit=4k/50:6k/50\nrw=randread\n", 3, "bssplit size 6k of reads"},
    {"[a]\nsize=1M\nbs=4k,8k,16k,32k\n", 3, "more than three values"},
    {"[a]\nsize=50%\n", 2, "job 'a': size=50% of a file's size needs the file to be there"},
    {"[a]\nsize=1M\noffset=10%\n", 3, "job 'a': offset=10% of a file's size needs the file"},
    {"[a]\nfilename=/dev/sdb\nsize=0%\n", 3, "size=0 is out of range (1..100)"},
    {"[a]\nfilename=/dev/sdb\noffset=101%\n", 3, "offset=101 is out of range (1..100)"},
    {"[a]\nfilename=/dev/sdb\nsize=5%\nfilesize=1M\n", 3, "size=5% of each device and filesize"},
    {"[a]\nsize=4z\n", 2,
     "job 'a': size=4z counts zones: it needs zonemode=strided or zbd, and zonesize"},
    {"[a]\nsize=1M\nbs=4z\n", 3, "bs=4z: a count of zones (fio's z suffix) is for size, io_size"},
    {"[a]\nsize=0z\n", 2, "bad count of zones '0z' for size"},
    {"[a]\nsize=1M\nnumjobs=0\n", 3, "numjobs=0 is out of range (1..4096)"},
    {"[a]\nsize=1M\nnumjobs=4097\n", 3, "numjobs=4097 is out of range"},
    {"[a]\nsize=1M\nnumjobs=99999999999999999999\n", 3, "out of range"},
    {"[a]\nsize=1M\nnumjobs=-2\n", 3, "bad number '-2' for numjobs"},
    {"[a]\nsize=1M\nruntime=10x\n", 3, "bad duration '10x' for runtime"},
    {"[a]\nsize=1M\nruntime=-5\n", 3, "bad duration '-5' for runtime"},
    {"[global]\nsample_interval=10ms\n[a]\nsize=1M\n", 2, "sample_interval=10ms is out of range"},
    {"[global]\nsample_interval=2h\n[a]\nsize=1M\n", 2, "sample_interval=2h is out of range"},
    {"[a]\nsize=1M\nsample_interval=1s\n", 3, "'sample_interval' belongs in [global]"},
    {"[a]\n\nbs=1M\nsize=4k\n", 1, "job 'a': bs 1M is larger than size 4k"},
    {"[a]\nsize=1M\nname = global\n", 3, "job name 'global' is reserved"},
    {"[abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij1234]\nsize=1M\n", 1,
     "is longer than 63 characters"},
    {"[global]\nbs=4k\n\n[a]\nrw=write\n", 4,
     "job 'a' has no size (size= bytes per worker, or "
     "filesize= bytes per file, is required; fio would take an existing file's size, and "
     "rackbench makes the job's files anew)"},
    {"[w]\nrw=write\nfilename=f\n", 1,
     "job 'w' has no size (size= bytes per worker, or filesize= bytes per file, is required; "
     "fio would take an existing file's size, and rackbench writes only files it makes: "
     "without size= a job may read a file that is there, or one an earlier phase writes)"},
    {"[r]\nfilename=/data/f\nunlink=1\n", 3,
     "job 'r' reads its file f as it is (no size=), which does not go with unlink"},
    {"[w]\nrw=write\nsize=1M\nfilename=f\n[r]\nstonewall\nfilename=f\n", 5,
     "job 'r' has no size: fio takes it from its file f, which an earlier phase writes, only "
     "with create_serialize=0 (else it sets every job's files up before the first job runs); "
     "set create_serialize=0, or give size="},
    {"[w]\nrw=write\nsize=1M\nfilename=f\n[r]\nstonewall\nfilename=f\nnumjobs=2\n"
     "offset_increment=4k\ncreate_serialize=0\n",
     9, "job 'r' takes its size from its file f: offset_increment with it is not supported yet"},
    {"[a]\nsize=1M\ntime_based\n", 1, "job 'a': time_based needs a runtime"},
    {"[a]\nsize=1M\nruntime=0\ntime_based\n", 1, "time_based needs a runtime"},
    {"[a]\nsize=1M\nsize\n", 3, "option 'size' needs a value"},
    {"[a]\nsize=1M\nfrobnicate\n", 3, "unknown option 'frobnicate'"},
    {"[a\nsize=1M\n", 1, "'[' without ']'"},
    {"[a]\nsize=1M\n[ ]\n", 3, "empty section name"},
    {"[a]\nsize=1M\n = 4k\n", 3, "empty option name before '='"},
    {"[a]\nsize=1M\nbs=\n", 3, "option 'bs' has an empty value"},
    {"[a]\nsize=1M\ndirect=maybe\n", 3, "bad value 'maybe' for direct"},
    {"[a]\nsize=1M\nstonewall=2\n", 3, "bad value '2' for stonewall"},
    {"[a]\nsize=1M\ntime_based=yes please\n", 3, "bad value 'yes please' for time_based"},
    {"[global]\ngroup_reporting=all\n", 2, "bad value 'all' for group_reporting"},
    {"size=1M\n[a]\n", 1, "outside any section"},
    {"; comment\n\n  # another\nbs=4k\n[a]\nsize=1M\n", 4, "outside any section"},
    {"[a]\nsize=1M\nfilename_format=x/$jobnum\n", 3, "character '/' is not allowed"},
    {"[a]\nsize=1M\nfilename_format=$job.$jobnum\n", 3, "only $jobname, $jobnum and $filenum"},
    {"[a]\r\nsize=1M\r\nbogus=1\r\n", 3, "unknown option 'bogus'"},
    {"[a]\nsize=1M\n\n\0\n", 4, "NUL byte"},
    {"[global]\nsize=1M\n", 0, "the plan has no jobs"},
    {"", 0, "the plan has no jobs"},
    {"; only comments\n\n", 0, "the plan has no jobs"},
    /* ioengine and iodepth */
    {"[a]\nsize=1M\nnice=20\n", 3, "bad nice=20: a whole number from -20 to 19"},
    {"[a]\nsize=1M\nnice=x\n", 3, "bad nice=x"},
    {"[a]\nsize=1M\nioengine=splice\n", 3,
     "ioengine=splice is not supported (rackbench has sync, psync, libaio, aio, linuxaio, "
     "io_uring, pvsync, pvsync2, vsync, posixaio, mmap, null)"},
    {"[a]\nsize=1M\nioengine=mmap\noffset=4k\n", 4,
     "ioengine=mmap with an offset: fio's mmap engine maps its files from their start"},
    {"[a]\nsize=1M\nioengine=mmap\nrw=randtrim\n", 4,
     "ioengine=mmap with rw=randtrim on a file: fio's mmap engine trims with BLKDISCARD"},
    {"[a]\nsize=1M\nioengine=mmap\nbs=2k\nfsync=4\n", 4,
     "ioengine=mmap with direct, fsync or fdatasync needs IO sizes of whole pages"},
    {"[a]\nsize=1M\nioengine=vsync\niodepth=4\n", 4,
     "iodepth=4 with ioengine=vsync: fio's vsync merges up to iodepth adjacent IOs into one call"},
    {"[a]\nsize=1M\nioengine=posixaio\niodepth=8\nfsync=16\n", 5,
     "fsync=16 with ioengine=posixaio and iodepth=8: fio queues an aio_fsync in every free slot"},
    {"[a]\nsize=1M\nioengine=posixaio\nfdatasync=4\niodepth=2\n", 5,
     "fdatasync=4 with ioengine=posixaio and iodepth=2"},
    {"[global]\nioengine=external:/x.so\n[a]\nsize=1M\n", 2,
     "ioengine=external:/x.so is not supported"},
    {"[a]\nsize=1M\niodepth=0\n", 3, "iodepth=0 is out of range (1..65536)"},
    {"[a]\nsize=1M\niodepth=65537\n", 3, "iodepth=65537 is out of range (1..65536)"},
    {"[a]\nsize=1M\niodepth=deep\n", 3, "bad number 'deep' for iodepth"},
    {"[a]\nsize=1M\niodeth=4\n", 3, "unknown option 'iodeth' (did you mean 'iodepth'?)"},
    {"[a]\nsize=1M\nserialize_overlap=1\n", 3, "option 'serialize_overlap' is not supported yet"},
    /* mixes */
    {"[a]\nsize=1M\nrwmixread=101\n", 3, "rwmixread=101 is out of range (0..100)"},
    {"[a]\nsize=1M\nrwmixwrite=-1\n", 3, "bad number '-1' for rwmixwrite"},
    /* block sizes */
    {"[a]\nsize=1M\nbsrange=8k-4k\n", 3,
     "bsrange=8k-4k: the largest size must not be smaller than the smallest"},
    {"[a]\nsize=1M\nbsrange=4k\n", 3, "bad range '4k' for bsrange"},
    {"[a]\nsize=1M\nbsrange=1k-4k,2k\n", 3, "bad range '2k' for bsrange"},
    {"[a]\nsize=1M\nblocksize_range=0-4k\n", 3, "blocksize_range must be greater than 0"},
    {"[a]\nsize=1M\nbsrange=4k-2M\n", 1,
     "job 'a': the largest bsrange block 2M is larger than size 1M"},
    {"[a]\nsize=1M\nfilesize=4k\nbs=8k\n", 1, "job 'a': bs 8k is larger than filesize 4k"},
    {"[a]\nsize=8k\nnrfiles=4\nbs=4k\n", 1,
     "job 'a': bs 4k is larger than each file (size 8k / nrfiles 4 = 2k)"},
    {"[a]\nsize=1M\nbssplit=4k/50:64k/60\n", 3, "percentages add up to 110, more than 100"},
    {"[a]\nsize=1M\nbssplit=4k/50:64k/40\n", 3, "percentages add up to 90, not 100"},
    {"[a]\nsize=1M\nbssplit=4k/x\n", 3, "bad percentage 'x'"},
    /* sizes, files, offsets */
    {"[a]\nsize=1M\nnrfiles=0\n", 3, "nrfiles=0 is out of range (1..65536)"},
    {"[a]\nsize=1M\nnr_files=65537\n", 3, "nr_files=65537 is out of range (1..65536)"},
    {"[a]\nsize=1M\nfilesize=1M-4M\n", 3,
     "filesize as a range (filesize=1M-4M) is not supported yet"},
    {"[a]\nsize=1M\noffset=-4k\n", 3, "bad size '-4k' for offset"},
    {"[a]\nfilesize=0\n", 1, "job 'a' has no size"},
    {"[a]\nsize=1M\nfill_fs=1\n", 3, "option 'fill_fs' is not supported yet"},
    {"[a]\nsize=1M\nio_size=101%\n", 3, "io_size=101 is out of range (1..100)"},
    {"[a]\nsize=1M\nio_size=0%\n", 3, "io_size=0 is out of range (1..100)"},
    {"[a]\nsize=1M\nio_size=lots\n", 3, "bad size 'lots' for io_size"},
    {"[a]\nsize=1M\nio_limit=1x%\n", 3, "bad number '1x' for io_limit"},
    {"[a]\nsize=1M\nnumber_ios=-3\n", 3, "for number_ios"},
    {"[a]\nsize=1M\nnumber_ios=2%\n", 3, "number_ios as a percentage"},
    {"[a]\nsize=1M\nstartdelay=soon\n", 3, "bad duration 'soon' for startdelay"},
    {"[a]\nsize=1M\nstartdelay=5s-1s\n", 3, "startdelay=5s-1s: the end of the range"},
    {"[a]\nsize=1M\nstartdelay=1s-\n", 3, "for startdelay"},
    {"[a]\nsize=1M\nunlink=maybe\n", 3, "bad value 'maybe' for unlink"},
    {"[a]\nsize=1M\nrw=write\nnumjobs=2\noffset_increment=50%\n", 5,
     "offset_increment as a percentage"},
    {"[a]\nsize=1M\nrw=write\nfile_per_worker=0\noffset_increment=1M\n", 5,
     "offset_increment places the workers"},
    {"[a]\nsize=1M\nrw=write\nnumjobs=3\noffset=1P\noffset_increment=4096P\n", 6,
     "goes past the largest file offset"},
    {"[a]\nsize=1M\nrw=write\nverify=crc32c\nnumjobs=2\noffset_increment=6k\n", 6,
     "offset_increment 6k must be a multiple of bs 4k"},
    {"[a]\nsize=1M\nrw=write\nunlink=1\nfile_per_worker=0\n", 5,
     "the shared file of file_per_worker=0 is removed by node 0"},
    {"[a]\nsize=1M\nrw=read\nread_from=neighbour\nunlink\n", 5, "read_from reads another"},
    {"[a]\nsize=1M\nrw=read\nloops=2\nunlink_each_loop=1\n", 5,
     "unlink_each_loop removes the files rw=read reads"},
    {"[a]\nsize=1M\nrw=randrw\nunlink_each_loop=1\n", 4,
     "unlink_each_loop with a mixed pattern (rw=randrw) is not supported yet"},
    /* syncs */
    {"[a]\nsize=1M\nsync=maybe\n", 3, "bad value 'maybe' for sync (none, sync, dsync, 0 or 1)"},
    {"[a]\nsize=1M\ndsync=2\n", 3, "bad value '2' for dsync"},
    {"[a]\nsize=1M\nfsync=-1\n", 3, "bad number '-1' for fsync"},
    {"[a]\nsize=1M\nfdatasync=4294967296\n", 3,
     "fdatasync=4294967296 is out of range (0..4294967295)"},
    {"[a]\nsize=1M\nend_fsync=often\n", 3, "bad value 'often' for end_fsync"},
    /* time */
    {"[a]\nsize=1M\nramp_time=5x\n", 3, "bad duration '5x' for ramp_time"},
    {"[a]\nsize=1M\ntimeout=soon\n", 3, "bad duration 'soon' for timeout"},
    {"[a]\nsize=1M\nloops=0\n", 3, "loops=0 is out of range (1..4294967295)"},
    {"[a]\nsize=1M\ntimeout=0\ntime_based\n", 1, "job 'a': time_based needs a runtime"},
    /* random */
    {"[a]\nsize=1M\nrandseed=0xZZ\n", 3, "bad number '0xZZ' for randseed"},
    {"[a]\nsize=1M\nrandseed=18446744073709551616\n", 3,
     "randseed=18446744073709551616 is too large"},
    {"[a]\nsize=1M\nrandseed=-1\n", 3, "bad number '-1' for randseed"},
    {"[a]\nsize=1M\nrandrepeat=sometimes\n", 3, "bad value 'sometimes' for randrepeat"},
    {"[a]\nsize=1M\nrw=randread:0\n", 3, "bad count '0'"},
    {"[a]\nsize=1M\nrw=read:x\n", 3, "rw"},
    {"[a]\nsize=1M\nrw=meta:4\n", 3, "rw=meta:4 is not supported yet"},
    {"[a]\nsize=1M\nrw=read:6k\n", 3, "rw=read:6k with a step that is not a multiple of bs"},
    {"[a]\nsize=1M\nverify=md5\nrw=rewrite\nverify_backlog=4\n", 5,
     "job 'a': verify_backlog with rw=rewrite is not supported yet (only with write, "
     "randwrite, rw or randrw)"},
    {"[a]\nsize=1M\nverify=md5\niodepth=4\nrw=randrw\nnorandommap\nverify_backlog=4\n", 7,
     "job 'a': verify_backlog with norandommap at iodepth above 1 is not supported yet"},
    {"[a]\nsize=1M\niodepth_batch_complete_min=0\n", 3, "iodepth_batch_complete_min"},
    {"[a]\nsize=1M\niodepth_low=70000\n", 3, "iodepth_low"},
    {"[a]\nsize=1M\nioengine=mmap\nrw=randrw\ncreate_on_open=1\n", 5,
     "ioengine=mmap with create_on_open=1: a mapping cannot reach"},
    {"[a]\nsize=1M\nverify_backlog=x\n", 3, "verify_backlog"},
    {"[a]\nsize=1M\nrw=read:-8k\noffset=4k\n", 3,
     "with offset or offset_increment is not supported yet"},
    {"[a]\nsize=1M\nrandom_generator=mt\n", 3, "bad value 'mt' for random_generator"},
    {"[a]\nsize=1M\nrw_sequencer=backwards\n", 3, "bad value 'backwards' for rw_sequencer"},
    /* zonemode */
    {"[a]\nsize=1M\nzonemode=zbd\n", 3, "job 'a': zonemode=zbd needs zonesize: rackbench emulates"},
    {"[a]\nsize=1M\nzonemode=zbd\nzonesize=256\n", 4, "zones are at least 512 bytes"},
    {"[a]\nsize=4M\nzonemode=zbd\nzonesize=1M\nzonecapacity=2M\n", 5,
     "job 'a': zonecapacity=2M is larger than zonesize=1M"},
    {"[a]\nsize=4M\nzonemode=zbd\nzonesize=1M\njob_max_open_zones=2\n", 5,
     "job_max_open_zones needs max_open_zones"},
    {"[a]\nsize=4M\nzonemode=zbd\nzonesize=1M\nmax_open_zones=2\njob_max_open_zones=3\n", 6,
     "job_max_open_zones=3 is above max_open_zones=2"},
    {"[a]\nsize=4M\nrw=write\nbs=2M\nzonemode=zbd\nzonesize=1M\n", 4,
     "a write of 2M is larger than zonesize=1M"},
    {"[a]\nsize=4M\nrw=randtrim\nbs=64k\nzonemode=zbd\nzonesize=1M\n", 4,
     "trims of 64k with zonemode=zbd: a trim resets a zone, its size must be zonesize=1M"},
    {"[a]\nsize=4M\nrw=write\nverify=md5\nzonemode=zbd\nzonesize=1M\n", 5,
     "zonemode=zbd with verify (fio resets the zones first"},
    {"[a]\nsize=4M\nnrfiles=2\nzonemode=zbd\nzonesize=1M\n", 4,
     "zonemode=zbd with several files is not supported yet"},
    {"[a]\nsize=4M\nzonemode=zbd\nzonesize=1M\nzone_reset_threshold=1.5\n", 5,
     "bad value '1.5' for zone_reset_threshold (a fraction from 0 to 1)"},
    {"[a]\nsize=4M\nzonemode=zbd\nzonesize=1M\nmax_open_zones=5000\n", 5, "max_open_zones"},
    {"[a]\nsize=1M\nzonemode=stride\n", 3, "bad value 'stride' for zonemode"},
    {"[a]\nsize=1M\nnrfiles=4\nrw=randread\nopenfiles=2\n", 5,
     "job 'a': openfiles=2 below nrfiles=4 with random IO is not supported yet"},
    {"[a]\nsize=1M\nnrfiles=4\nrw=rw\nopenfiles=2\n", 5, "openfiles=2 below nrfiles=4 with a mix"},
    {"[a]\nsize=1M\nzonesize=256k\n", 3,
     "job 'a': zonesize=256k needs zonemode=strided or zbd (fio refuses zonesize with "
     "zonemode=none"},
    {"[a]\nsize=1M\nzonemode=strided\n", 3, "job 'a': zonemode=strided needs zonesize above 0"},
    {"[a]\nsize=1M\nzonemode=strided\nzonesize=0\n", 4,
     "job 'a': zonemode=strided needs zonesize above 0"},
    {"[a]\nsize=1M\nzonesize=1x\n", 3, "bad size '1x' for zonesize"},
    {"[a]\nsize=1M\nrw=randrw\nzonemode=strided\nzonesize=64k\n", 4,
     "zonemode=strided with this rw (reads or writes, sequential or random, are) is not "
     "supported yet"},
    {"[a]\nsize=1M\nnrfiles=2\nzonemode=strided\nzonesize=64k\n", 4,
     "zonemode=strided with several files (fio's walk shares one zone count between them) is "
     "not supported yet"},
    {"[a]\nsize=1M\nzonemode=strided\nzonesize=6k\n", 3,
     "zonesize, zonerange or zoneskip that are not multiples of bs"},
    {"[a]\nsize=1M\nrw=randread\nbsrange=4k-16k\nzonemode=strided\nzonesize=64k\n", 5,
     "zonemode=strided with random IOs of several sizes is not supported yet"},
    {"[a]\nsize=1M\npercentage_random=101\n", 3, "percentage_random"},
    {"[a]\nsize=1M\nrandom_distribution=zipf:1\n", 3,
     "zipf 1 is out of its range (theta > 0, not 1)"},
    {"[a]\nsize=1M\nrandom_distribution=pareto:1.5\n", 3,
     "pareto 1.5 is out of its range (0 < h < 1)"},
    {"[a]\nsize=1M\nrandom_distribution=normal:x\n", 3, "bad number 'x' for normal"},
    {"[a]\nsize=1M\nrandom_distribution=uniform\n", 3,
     "random_distribution=uniform: not a distribution"},
    {"[a]\nsize=1M\nrandom_distribution=zoned:50/5:30/15\n", 3,
     "the zones' shares of the IOs add up to 80, not 100"},
    {"[a]\nsize=1M\nrandom_distribution=zoned:50/60:50/60\n", 3,
     "the zones' sizes add up to 120%, more than 100"},
    {"[a]\nsize=1M\nrandom_distribution=zoned:50\n", 3, "zone '50' is not ACCESS/SIZE"},
    {"[a]\nsize=1M\nrandom_distribution=zoned_abs:100/huge\n", 3, "huge"},
    {"[a]\nsize=1M\nrandom_distribution=zipf:1.2:0.5\n", 3,
     "a center (zipf:N:CENTER) is not supported yet"},
    /* buffers */
    {"[a]\nsize=1M\nbuffer_pattern='file'\n", 3,
     "a pattern read from a file ('NAME') is not supported yet"},
    {"[a]\nsize=1M\nbuffer_pattern=\"abc\n", 3, "a string without its closing '\"'"},
    {"[a]\nsize=1M\nbuffer_pattern=\"\"\n", 3, "an empty string"},
    {"[a]\nsize=1M\nbuffer_pattern=0x\n", 3, "'0x' without hex digits"},
    {"[a]\nsize=1M\nbuffer_pattern=0xZZ\n", 3, "'0x' without hex digits"},
    {"[a]\nsize=1M\nbuffer_pattern=abc\n", 3, "bad value 'abc' for buffer_pattern"},
    {"[a]\nsize=1M\nbuffer_pattern=%o\n", 3, "the %o format is verify_pattern's"},
    {"[a]\nsize=1M\nbuffer_pattern=-\n", 3, "a sign without a number"},
    {"[a]\nsize=1M\nbuffer_pattern=2147483648\n", 3, "a decimal number out of range"},
    {"[a]\nsize=1M\nbuffer_pattern=-2147483649\n", 3, "a decimal number out of range"},
    {"[a]\nsize=1M\nbuffer_pattern=0x"
     "0102030405060708091011121314151617181920212223242526272829303132"
     "333435363738394041424344454647484950515253545556575859606162636465\n",
     3, "is longer than 64 bytes"},
    {"[a]\nsize=1M\ndedupe_mode=workingset\n", 3, "dedupe_mode"},
    {"[a]\nsize=1M\ndedupe_working_set_percentage=101\n", 3, "dedupe_working_set_percentage"},
    {"[a]\nsize=1M\ndedupe_global=2\n", 3, "dedupe_global"},
    {"[a]\nsize=1M\nbuffer_compress_percentage=101\n", 3, "buffer_compress_percentage"},
    {"[a]\nsize=1M\nbuffer_compress_percentage=-1\n", 3, "buffer_compress_percentage"},
    {"[a]\nsize=1M\nbuffer_compress_percentage=half\n", 3, "buffer_compress_percentage"},
    {"[a]\nsize=1M\ndedupe_percentage=150\n", 3, "dedupe_percentage"},
    {"[a]\nsize=1M\nbuffer_compress_chunk=4q\n", 3, "buffer_compress_chunk"},
    {"[a]\nsize=1M\nscramble_buffers=maybe\n", 3, "scramble_buffers"},
    /* verification */
    {"[a]\nsize=1M\nverify=sha3-256\n", 3, "verify=sha3-256 is not supported"},
    {"[a]\nsize=1M\nverify=pattern_hdr\n", 3, "verify=pattern_hdr is not supported"},
    {"[a]\nsize=1M\nverify=pattern\n", 3, "job 'a': verify=pattern needs verify_pattern"},
    {"[a]\nsize=1M\nverify=banana\n", 3, "bad value 'banana' for verify (crc32c, md5, crc32"},
    {"[a]\nsize=1M\nbs=4k\nverify=md5\nverify_interval=3k\n", 5,
     "verify_interval 3k must divide bs 4k"},
    {"[a]\nsize=1M\nbs=4k\nverify=sha512\nverify_interval=64\n", 5,
     "verify=sha512 writes a 112-byte header in every verify_interval, but it is 64"},
    {"[a]\nsize=1M\nbs=32\nverify=md5\n", 4,
     "writes a 64-byte header in every block, but it is 32"},
    {"[a]\nsize=1M\nbs=4k\nverify=sha512\nverify_offset=100\n", 5,
     "verify_offset 100: the 112-byte header of verify=sha512 must move to 112 .. 3984 bytes"},
    {"[a]\nsize=1M\nverify_pattern=%o\nverify=0\n", 4,
     "verify_pattern's %o is the offset verify checks, but verify=0"},
    {"[a]\nsize=1M\nverify\n", 3, "option 'verify' needs a value"},
    {"[a]\nsize=1M\ndo_verify=maybe\n", 3, "bad value 'maybe' for do_verify"},
    {"[a]\nsize=1M\nverify_fatal=2\n", 3, "bad value '2' for verify_fatal"},
    /* rates */
    {"[a]\nsize=1M\nrate=fast\n", 3, "bad size 'fast' for rate"},
    {"[a]\nsize=1M\nrate_iops=1q\n", 3, "bad size '1q' for rate_iops"},
    {"[a]\nsize=1M\nrate=1m,2m,3m,4m\n", 3, "more than three values"},
    /* file names */
    {"[a]\nsize=1M\nfilename=a/b\n", 3, "filename=a/b: a relative name with '/' is not supported"},
    {"[a]\nsize=1M\nfilename=/data/a:/data/b\n", 3, "several files separated by ':'"},
    {"[a]\nsize=1M\nfile_service_type=random\n", 3,
     "file_service_type=random is not supported yet"},
    {"[a]\nsize=1M\nfile_service_type=rr\n", 3, "bad value 'rr' for file_service_type"},
    {"[a]\nsize=1M\nmax_latency=5x\n", 3, "bad duration '5x' for max_latency"},
    {"[a]\nsize=1M\nsync_file_range=flush:4\n", 3, "bad flag 'flush' for sync_file_range"},
    {"[a]\nsize=1M\nsync_file_range=write:0\n", 3, "sync_file_range"},
    {"[a]\nsize=1M\nrw=write\nioengine=mmap\nsync_file_range=write:8\n", 5,
     "ioengine=mmap with sync_file_range"},
    {"[a]\nsize=1M\nfile_service_type=roundrobin:0\n", 3, "file_service_type"},
    {"[a]\nsize=1M\nnrfiles=2\nrw=randread\nfile_service_type=sequential\n", 5,
     "job 'a': file_service_type=sequential with random IO is not supported yet"},
    {"[a]\nsize=1M\nfilename=/dev/sda:/data/b\n", 3, "'/data/b' is not a device under /dev/"},
    {"[a]\nsize=1M\nfilename=/dev/sd a\n", 3, "character ' ' is not allowed in a device path"},
    {"[a]\nsize=1M\nfilename=/dev/../etc/x\n", 3, "'..' is not allowed in a device path"},
    {"[a]\ndirectory=/d\nfilename=/dev/sda\n", 3, "names a device but the job also has directory"},
    {"[a]\nfilename=/dev/sda\nunlink=1\n", 3, "which do not go with unlink"},
    {"[a]\nfilename=/dev/sda\nfile_per_worker=0\n", 3, "which do not go with file_per_worker=0"},
    {"[a]\nfilename=/dev/sda\nio_size=50%\n", 3, "io_size=50% of a device's size"},
    {"[a]\nrw=meta\nmeta_files=4\nfilename=/dev/sda\n", 4, "names block devices, but rw=meta"},
    {"[a]\nsize=1M\nfilename=a\\:b\n", 3, "several files separated by ':'"},
    {"[a]\nsize=1M\nfilename=/data/\n", 3, "filename=/data/ names a folder, not a file"},
    {"[a]\nsize=1M\nfilename=/data/..\n", 3, "names a folder, not a file"},
    {"[a]\nsize=1M\nfilename=-\n", 3, "filename=- (standard input or output) is not supported"},
    {"[a]\nsize=1M\nfilename=my file\n", 3, "character ' ' is not allowed in a file name"},
    {"[global]\ndirectory=/data\n[a]\nsize=1M\nfilename=/mnt/x/f\n", 5,
     "filename=/mnt/x/f is an absolute path but the job also has directory=/data (line 2)"},
    {"[a]\nsize=1M\nfilename=/mnt/x/f\ndirectory=/data\n", 4,
     "directory=/data: the job's filename is an absolute path (line 3)"},
    {"[global]\nfilename=/mnt/x/f\n[a]\nsize=1M\ndirectory=/data\n", 5,
     "the job's filename is an absolute path (line 2)"},
    {"[a]\nsize=1M\nopendir=/data\n", 3, "option 'opendir' is not supported yet"},
    /* fio options that change what is measured */
    {"[a]\nsize=1M\nioscheduler=none\n", 3,
     "job 'a': ioscheduler=none sets the scheduler of the job's block devices (filename=/dev/X); "
     "for files it is not supported yet"},
    {"[a]\nsize=1M\nfilename=/dev/sdz\nioscheduler=mq/deadline\n", 4,
     "ioscheduler 'mq/deadline': a scheduler's name"},
    {"[a]\nsize=1M\nnuma_cpu_nodes=0\n", 3, "option 'numa_cpu_nodes' is not supported yet"},
    {"[a]\nsize=1M\nfadvise_hint=maybe\n", 3, "bad value 'maybe' for fadvise_hint"},
    {"[a]\nsize=1M\ngtod_cpu=1\n", 3, "option 'gtod_cpu' is not supported yet"},
    {"[a]\nsize=1M\nwrite_iolog=x.log\n", 3, "option 'write_iolog' is not supported yet"},
    {"[a]\nsize=1M\nnonvectored\n", 3, "option 'nonvectored' is not supported yet"},
    {"[a]\nsize=1.5k\n", 2, "bad size '1.5k' for size"},
    {"[a]\nsize=2m5\n", 2, "bad size '2m5' for size"},
    {"[a]\nsize=0x\n", 2, "bad size '0x' for size"},
    {"[a]\nsize=1M\nkb_base=12\n", 3, "bad value '12' for kb_base (1024 or 1000)"},
    {"[a]\nsize=1M\nkb_base\n", 3, "option 'kb_base' needs a value"},
    {"[global]\ninclude common.fio\n", 2,
     "include 'common.fio': cannot read common.fio: No such file"},
    {"[a]\nsize=1M\ngtod_reduse=1\n", 3,
     "unknown option 'gtod_reduse' (did you mean 'gtod_reduce'?)"},
    /* metadata jobs (rw=meta) */
    {"[m]\nrw=meta\nmeta_ops=\nmeta_files=1\n", 3, "option 'meta_ops' has an empty value"},
    {"[m]\nrw=meta\nmeta_ops=create,,stat\nmeta_files=1\n", 3,
     "meta_ops=create,,stat has an empty entry (a comma-separated list of create, stat, read, "
     "write, rename, delete, mkdir, statdir, rmdir, mktree, rmtree, find)"},
    {"[m]\nrw=meta\nmeta_ops=create,\nmeta_files=1\n", 3, "has an empty entry"},
    {"[m]\nrw=meta\nmeta_ops= , \nmeta_files=1\n", 3, "has an empty entry"},
    {"[m]\nrw=meta\nmeta_ops=create,list\nmeta_files=1\n", 3,
     "unknown metadata operation 'list' in meta_ops (create, stat, read, write, rename, delete, "
     "mkdir, statdir, rmdir, mktree, rmtree, find)"},
    {"[m]\nrw=meta\nmeta_ops=createeeeeeeeeeeeeeeeeeee\nmeta_files=1\n", 3,
     "unknown metadata operation 'createeeeeeeeeeeeeeeeeeee'"},
    {"[m]\nrw=meta\nmeta_ops=find\nmeta_files=1\nmeta_find_name=a/*01*\n", 5,
     "meta_find_name 'a/*01*': a name pattern has no '/' (find -name)"},
    {"[m]\nrw=meta\nmeta_ops=find\nmeta_files=1\nmeta_find_name="
     "*0123456789012345678901234567890123456789012345678901234567890123*\n",
     5, "meta_find_name is longer than 63 characters"},
    {"[w]\nrw=write\nsize=1m\nmeta_find_size=3901\n", 4,
     "option 'meta_find_size' applies only to rw=meta (job 'w' has rw=write)"},
    {"[m]\nrw=meta\nmeta_ops=stat,create,stat\nmeta_files=1\n", 3,
     "meta_ops=stat,create,stat lists 'stat' twice"},
    {"[m]\nrw=meta\n", 1, "job 'm' has no meta_files (files per worker, required for rw=meta)"},
    {"[global]\nrw=meta\n[m]\nmeta_ops=stat\n", 3, "job 'm' has no meta_files"},
    {"[m]\nrw=meta\nmeta_files=0\n", 3, "meta_files must be greater than 0"},
    {"[m]\nrw=meta\nmeta_files=many\n", 3, "bad size 'many' for meta_files"},
    {"[m]\nrw=meta\nmeta_files=1\nmeta_filesize=big\n", 4, "bad size 'big' for meta_filesize"},
    {"[m]\nrw=meta\nmeta_files=1\nmeta_depth=17\n", 4, "meta_depth=17 is out of range (0..16)"},
    {"[m]\nrw=meta\nmeta_files=1\nmeta_branch=0\n", 4, "meta_branch=0 is out of range (1..65536)"},
    {"[m]\nrw=meta\nmeta_files=1\nmeta_dirs=0\n", 4, "meta_dirs=0 is out of range (1..65536)"},
    {"[m]\nrw=meta\nmeta_files=1\nmeta_dirs=65537\n", 4, "meta_dirs=65537 is out of range"},
    {"[m]\nrw=meta\nmeta_files=1\nmeta_dirs=4\nmeta_depth=2\n", 5,
     "job 'm': meta_dirs=4 and meta_depth=2 together (flat directories or a tree, not both)"},
    {"[global]\nmeta_depth=2\n[m]\nrw=meta\nmeta_dirs=3\nmeta_files=1\n", 5,
     "meta_dirs=3 and meta_depth=2 together"},
    {"[global]\nmeta_dirs=3\n[m]\nrw=meta\nmeta_depth=1\nmeta_files=1\n", 5,
     "meta_dirs=3 and meta_depth=1 together"},
    {"[m]\nrw=meta\nmeta_files=1\nmeta_shared_dir\nmeta_depth=1\n", 5,
     "job 'm': meta_shared_dir puts every file in one shared directory: no meta_dirs or "
     "meta_depth with it"},
    {"[global]\nmeta_dirs=2\n[m]\nrw=meta\nmeta_files=1\nmeta_shared_dir=1\n", 6,
     "meta_shared_dir puts every file in one shared directory"},
    {"[m]\nrw=meta\nmeta_files=1\nmeta_shared_dir=1\nmeta_dirs=3\nmeta_shared_dir=1\n", 6,
     "meta_shared_dir puts every file in one shared directory"},
    {"[m]\nrw=meta\nmeta_files=1\nmeta_order=shuffle\n", 4,
     "bad value 'shuffle' for meta_order (sequential or random)"},
    {"[m]\nrw=meta\nmeta_files=1\nmeta_shared_dir=maybe\n", 4,
     "bad value 'maybe' for meta_shared_dir"},
    {"[m]\nrw=meta\nmeta_files=1\nmeta_sync=2\n", 4, "bad value '2' for meta_sync"},
    {"[m]\nrw=meta\nmeta_files=1\nmeta_renamed=x\n", 4, "bad value 'x' for meta_renamed"},
    {"[m]\nrw=meta\nmeta_files=1\nmeta_ops\n", 4, "option 'meta_ops' needs a value"},
    {"[m]\nrw=meta\nmeta_files=1\nmeta_file=2\n", 4,
     "unknown option 'meta_file' (did you mean 'meta_files'?)"},
    {"[w]\nrw=write\nsize=1m\nmeta_files=10\n", 4,
     "option 'meta_files' applies only to rw=meta (job 'w' has rw=write)"},
    {"[w]\nmeta_sync\nsize=1m\nmeta_files=10\n", 2,
     "option 'meta_sync' applies only to rw=meta (job 'w' has rw=read)"},
    {"[global]\nrw=meta\nmeta_files=1\n[w]\nmeta_order=random\nrw=randrw\nsize=1m\n", 5,
     "option 'meta_order' applies only to rw=meta (job 'w' has rw=randrw)"},
    {"[m]\nrw=meta\nmeta_files=1\nfilename=one.dat\n", 4,
     "job 'm': filename= names one file, but rw=meta works on meta_files files"},
    {"[global]\nfilename=/mnt/x/f\n[m]\nrw=meta\nmeta_files=1\n", 2,
     "job 'm': filename= names one file"},
    {"[m.delete]\nrw=read\nsize=1m\n[m]\nrw=meta\nmeta_files=1\n", 4,
     "duplicate job name 'm.delete' (first at line 1)"},
    {"[m]\nrw=meta\nmeta_files=1\n[m]\nrw=meta\nmeta_ops=write\nmeta_files=1\n", 4,
     "duplicate job name 'm' (first at line 1)"},
    {"[m]\nrw=meta\nmeta_files=1\nmeta_ops=create\n[x]\nname=m.create\nrw=meta\n"
     "meta_files=1\nmeta_ops=create\n",
     5, "duplicate job name 'm.create' (first at line 1)"},
    {"[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\nrw=meta\nmeta_files=1\n"
     "meta_ops=stat,rename\n",
     1,
     "job 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa': step name "
     "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.rename' is longer than 63 "
     "characters"},
    {"[m]\nrw=meta\nmeta_files=1\nname="
     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
     4, "step name 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.create' is longer"},
    {"[aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\nrw=meta\nmeta_files=1\n"
     "filename_format=$jobname.$jobname\n",
     4,
     "filename_format '$jobname.$jobname' with $jobname as "
     "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' is longer than 63 characters"},
    {"[m]\nrw=meta\nmeta_files=1\nfilename_format=a/b\n", 4,
     "filename_format 'a/b': character '/' is not allowed"},
    {"[m]\nrw=filecreate\n", 2, "rw=filecreate is not supported yet"},
    /* across nodes */
    {"[w]\nsize=1m\nrw=write\nread_from=neighbour\n", 4,
     "job 'w': read_from is for jobs that only read (rw=write writes)"},
    {"[r]\nsize=1m\nread_from=shift:x\n", 3,
     "read_from=shift:x: expected self, neighbour, shift:K (K nodes further on) or random"},
    {"[r]\nsize=1m\nread_from_seed=7\n", 3,
     "job 'r': read_from_seed is the seed of read_from=random"},
    {"[r]\nsize=1m\nread_from=random\nread_from_seed=7x\n", 4,
     "read_from_seed=7x: expected a whole number"},
    {"[r]\nsize=1m\nread_from=random\nread_from_seed=--7\n", 4,
     "read_from_seed=--7: expected a whole number"},
    {"[r]\nsize=1m\nread_from=random\nread_from_seed=99999999999999999999\n", 4,
     "read_from_seed=99999999999999999999 is too large"},
    {"[w]\nsize=1m\nrw=write\nread_from=random\n", 4,
     "job 'w': read_from is for jobs that only read (rw=write writes)"},
    {"[r]\nsize=1m\nread_from=next\n", 3, "read_from=next: expected"},
    {"[r]\nsize=1m\nwearout\n", 3, "job 'r': wearout needs stonewall_time"},
    {"[r]\nsize=1m\nlayout=strided\n", 3,
     "layout= is the layout of a shared file (file_per_worker=0)"},
    {"[r]\nsize=1m\nlayout=diagonal\n", 3, "layout=diagonal: expected segmented or strided"},
    {"[r]\nsize=1m\ntransfer=64k\n", 3, "transfer= is the piece size of a strided shared file"},
    {"[r]\nsize=1m\nfile_per_worker=0\ntransfer=64k\n", 4,
     "transfer= is the piece size of layout=strided (this job is segmented)"},
    {"[r]\nsize=1m\nfile_per_worker=0\nnrfiles=2\n", 4,
     "file_per_worker=0 makes one file: nrfiles must be 1"},
    {"[r]\nsize=1m\nfilename=x\nfile_per_worker=0\n", 4,
     "filename= names a file per node (use one or the other)"},
    {"[r]\nsize=1m\nbs=4k\nfile_per_worker=0\nlayout=strided\ntransfer=6k\n", 6,
     "a strided layout needs one block size dividing transfer (transfer 6k, bs 4k)"},
    {"[r]\nsize=100k\nbs=4k\nfile_per_worker=0\nlayout=strided\ntransfer=64k\n", 6,
     "size 100k per worker is not a whole number of transfer=64k pieces"},
    {"[r]\nsize=1m\nstonewall_time=soon\n", 3, "stonewall_time"},
    {"[r]\nsize=1m\nlustre_stripe_size=100k\n", 3, "not a multiple of 64k"},
    {"[r]\nsize=1m\nlustre_stripe_count=70000\n", 3, "lustre_stripe_count"},
    {"[r]\nsize=1m\nlustre_stripe_count=-2\n", 3, "lustre_stripe_count"},
};

/* Parses and expects -EINVAL with "t.ini:LINE: " and what in the message. */
static void s_expect_error(const char *text, size_t len, unsigned line, const char *what)
{
    rb_plan_t sentinel;
    rb_plan_t *p = &sentinel;
    rb_err_t err;
    rb_err_clear(&err);
    int rc = rb_plan_parse(text, len, "t.ini", &p, &err);
    if (rc != -EINVAL)
        fail_msg("expected -EINVAL for %.*s, got %d (%s)", (int)(len > 200 ? 200 : len), text, rc,
                 err.msg);
    assert_int_equal(err.code, -EINVAL);
    assert_ptr_equal(p, &sentinel);
    char prefix[64];
    if (line)
        snprintf(prefix, sizeof prefix, "t.ini:%u: ", line);
    else
        snprintf(prefix, sizeof prefix, "t.ini: ");
    if (strncmp(err.msg, prefix, strlen(prefix)) != 0 || !strstr(err.msg, what))
        fail_msg("for plan\n%.*s\nexpected \"%s...%s\", got \"%s\"", (int)(len > 200 ? 200 : len),
                 text, prefix, what, err.msg);
}

/* iterations=N: a phase repeated as phases of its own, named NAME#k, in a
 * row or (iterate=plan) round by round; what may not repeat is refused. */
static void s_bad_str(const char *text, unsigned line, const char *what)
{
    s_expect_error(text, strlen(text), line, what);
}

static void test_iterations(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nsize=1m\niterations=2\n"
                               "[w]\nrw=write\n[w2]\nrw=write\n"
                               "[r]\nstonewall\nrw=read\niterations=3\n");
    assert_int_equal(p->nphases, 5);
    const char *names[] = {"w#1", "w#2", "r#1", "r#2", "r#3"};
    for (uint32_t i = 0; i < 5; i++) {
        assert_string_equal(p->phases[i].name, names[i]);
        assert_string_equal(p->iters[i].base, i < 2 ? "w" : "r");
        assert_int_equal(p->iters[i].iteration, i < 2 ? i : i - 2);
        assert_int_equal(p->iters[i].iterations, i < 2 ? 2 : 3);
        assert_int_equal(p->iters[i].group, i < 2 ? 0 : 2);
    }
    assert_int_equal(p->phases[1].njobs, 2); /* both jobs of the phase repeat */
    assert_string_equal(p->phases[1].jobs[1].name, "w2");
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    /* the whole plan, round by round; metadata steps may repeat so */
    p = s_parse_str("[global]\nsize=1m\niterations=2\niterate=plan\n"
                    "[w]\nrw=write\n[m]\nrw=meta\nmeta_files=4\n");
    const char *order[] = {"w#1", "m.create#1", "m.stat#1", "m.delete#1",
                           "w#2", "m.create#2", "m.stat#2", "m.delete#2"};
    assert_int_equal(p->nphases, 8);
    for (uint32_t i = 0; i < 8; i++)
        assert_string_equal(p->phases[i].name, order[i]);
    assert_int_equal(p->iters[5].group, 1);
    assert_true(p->iterate_plan);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    /* a plan without iterations keeps its names */
    p = s_parse_str("[w]\nrw=write\nsize=1m\n");
    assert_string_equal(p->phases[0].name, "w");
    assert_int_equal(p->iters[0].iterations, 1);
    rb_plan_destroy(&p);

    s_bad_str("[w]\nrw=write\nsize=1m\niterations=2\n[w2]\nrw=write\nsize=1m\n", 5,
              "job 'w2': iterations=1, but its phase 'w' runs 2 times");
    s_bad_str("[m]\nrw=meta\nmeta_files=2\niterations=2\n", 4,
              "metadata step 'm.create' with iterations=2");
    s_bad_str("[global]\niterate=plan\n[w]\nrw=write\nsize=1m\niterations=2\n"
              "[r]\nstonewall\nrw=read\nsize=1m\n",
              2, "iterate=plan (line 2) repeats the whole plan");
    s_bad_str("[w]\nrw=write\nsize=1m\niterations=200\n[r]\nstonewall\nrw=read\nsize=1m\n"
              "iterations=100\n",
              9, "with iterations the plan has more than 256 phases");
    s_bad_str("[w]\nrw=write\nsize=1m\niterations=0\n", 4, "iterations");
    s_bad_str("[global]\niterate=round\n[w]\nrw=write\nsize=1m\n", 2,
              "iterate=round: expected phase");
    s_bad_str("[w]\nrw=write\nsize=1m\n[acceptance]\niterations=best\nmin_iops=1\n", 5,
              "iterations=best in [acceptance]: expected worst");
}

/* issue 37: sweep_bs x sweep_iodepth expands one job into a stonewalled
 * phase per combination, iodepth fastest, each keeping the job's files; the
 * expansion and its time are noted; bad lists and too many phases are
 * refused naming the key and its line. */
static void test_issue37_sweep(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nsize=1m\nioengine=libaio\ntime_based\nruntime=30s\n"
                               "[r]\nrw=randread\nsweep_bs=4k,64k,1m\nsweep_iodepth=1,8,32\n"
                               "[after]\nrw=write\n");
    assert_int_equal(p->nphases, 10);
    const uint64_t bs[] = {4096, 65536, 1048576};
    const uint32_t qd[] = {1, 8, 32};
    const char *qdn[] = {"1", "8", "32"}, *bsn[] = {"4k", "64k", "1m"};
    for (uint32_t i = 0; i < 9; i++) {
        const rb_phase_spec_t *ph = &p->phases[i];
        char name[64];
        snprintf(name, sizeof name, "r.bs%s.qd%s", bsn[i / 3], qdn[i % 3]);
        assert_string_equal(ph->name, name);
        assert_int_equal(ph->njobs, 1);
        assert_string_equal(ph->jobs[0].name, name);
        assert_int_equal(ph->jobs[0].bs, bs[i / 3]);
        assert_int_equal(ph->jobs[0].bs_write, bs[i / 3]);
        assert_int_equal(ph->jobs[0].iodepth, qd[i % 3]);
        assert_int_equal(ph->jobs[0].rw, RB_RW_RANDREAD);
        assert_string_equal(ph->jobs[0].filename_format, "r.$jobnum.$filenum");
        assert_string_equal(p->iters[i].sweep, "r"); /* the report's matrix finds them */
    }
    assert_string_equal(p->phases[9].name, "after"); /* the next job stands apart */
    assert_string_equal(p->iters[9].sweep, "");
    assert_non_null(p->notes);
    assert_non_null(strstr(p->notes, "t.ini:6: job 'r' sweeps bs (3) x iodepth (3): 9 phases"));
    assert_non_null(strstr(p->notes, "9 x 30 s (runtime and ramp_time) = 4 min 30 s"));
    /* the whole plan's time: [after] is time-based too (from [global]) */
    assert_non_null(strstr(p->notes, "t.ini: the plan's 10 phases take 0 h 05 min 00 s"));
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    /* rw outermost, numjobs inside it; one value alone still applies */
    p = s_parse_str("[j]\nsize=1m\nsweep_rw=read,write\nsweep_numjobs=2,4\nsweep_bs=8k\n");
    assert_int_equal(p->nphases, 4);
    const char *names[] = {"j.read.bs8k.j2", "j.read.bs8k.j4", "j.write.bs8k.j2",
                           "j.write.bs8k.j4"};
    for (uint32_t i = 0; i < 4; i++) {
        assert_string_equal(p->phases[i].name, names[i]);
        assert_int_equal(p->phases[i].jobs[0].numjobs, i % 2 ? 4 : 2);
        assert_int_equal(p->phases[i].jobs[0].rw, i < 2 ? RB_RW_READ : RB_RW_WRITE);
        assert_int_equal(p->phases[i].jobs[0].bs, 8192);
    }
    assert_non_null(strstr(p->notes, "how long depends on the storage"));
    assert_null(strstr(p->notes, "the plan's 4 phases take"));
    rb_plan_destroy(&p);

    /* fio's logs: each phase a job of fio's numbering, its logs its own */
    p = s_parse_str("[r]\nsize=1m\nioengine=libaio\nwrite_bw_log\nsweep_iodepth=1,8\n");
    assert_int_equal(p->nlogs, 2);
    assert_string_equal(p->logs[0].job, "r.qd1");
    assert_string_equal(p->logs[1].job, "r.qd8");
    assert_int_equal(p->logs[1].number, 2);
    assert_string_equal(p->logs[1].bw, "r.qd8");
    rb_plan_destroy(&p);

    s_bad_str("[r]\nsize=1m\nsweep_bs=4k,,1m\n", 3, "sweep_bs=4k,,1m: value 2 is empty");
    s_bad_str("[r]\nsize=1m\nsweep_bs=4k,4q\n", 3, "bad size '4q' for sweep_bs");
    s_bad_str("[r]\nsize=1m\nsweep_iodepth=1,0\n", 3, "sweep_iodepth=0 is out of range");
    s_bad_str("[r]\nsize=1m\nsweep_iodepth=8,8\n", 3, "sweep_iodepth lists '8' twice");
    s_bad_str("[r]\nsize=1m\nsweep_rw=read,meta\n", 3, "a sweep is of data jobs");
    s_bad_str("[r]\nsize=1m\nsweep_bs=4k,8k\nsweep_iodepth=1,8\n", 4,
              "job 'r': sweep_iodepth with ioengine=sync, which does one IO at a time");
    s_bad_str("[global]\nsweep_bs=4k\n[r]\nsize=1m\n", 2,
              "option 'sweep_bs' belongs in a job section");
    s_bad_str("[r]\nsize=1m\nsweep_bs=4k,8k,16k,32k,64k,128k,256k,512k,1m\n"
              "sweep_iodepth=1,2,4,8,16,32\nsweep_numjobs=1,2,4,8,16\n",
              3,
              "job 'r': sweep_bs (9 values, line 3) x sweep_numjobs (5 values, line 5) x "
              "sweep_iodepth (6 values, line 4) make 270 phases, more than the 256");
    /* each phase is checked as a job of its own, and named */
    s_bad_str("[r]\nsize=4k\nsweep_bs=4k,8k\n", 1, "job 'r.bs8k': bs 8k is larger than size 4k");
}

static void test_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof s_bad / sizeof s_bad[0]; i++) {
        size_t len = strlen(s_bad[i].text);
        if (strstr(s_bad[i].what, "NUL"))
            len += 2; /* the text goes on past its NUL */
        s_expect_error(s_bad[i].text, len, s_bad[i].line, s_bad[i].what);
    }
}

/* fio's job-file syntax: every problem in one pass, name= in [global],
 * include, ${VAR}, $keywords, arithmetic, --set and --section. */
static rb_plan_t *s_parse_in(const char *text, rb_plan_input_t *in, const char *path, int want_rc)
{
    rb_plan_t *p = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    int rc = rb_plan_parse_input(text, strlen(text), path ? path : "t.ini", path, in, &p, &err);
    if (rc != want_rc)
        fail_msg("rc %d, not %d: %s\n%s", rc, want_rc, err.msg,
                 in && in->problems ? in->problems : "");
    return p;
}

/* filename= naming raw block devices: a list is the job's nrfiles, size
 * may be left to the devices, and the print gives the list back. */
/* network=: a network job read, its message 128 KiB unless bs= says, the
 * rules of one (one way or both, incast's target, no ramp, no files), and
 * fio's ioengine=net refused naming network=. */
static void test_network_jobs(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[n]\nnetwork=incast\nnet_target=gfs1\nrw=rw\nnumjobs=4\n"
                               "runtime=5s\ntime_based\n[r]\nstonewall\nnetwork=ring\npingpong\n"
                               "bs=64\nsize=1m\n");
    assert_non_null(p);
    const rb_job_spec_t *n = &p->phases[0].jobs[0], *r = &p->phases[1].jobs[0];
    assert_int_equal(n->network, RB_NET_INCAST);
    assert_string_equal(n->net_target, "gfs1");
    assert_int_equal(n->rw, RB_RW_RW);
    assert_int_equal(n->bs, 128u << 10);
    assert_int_equal(n->numjobs, 4);
    assert_int_equal(r->network, RB_NET_RING);
    assert_int_equal(r->pingpong, 1);
    assert_int_equal(r->bs, 64);
    assert_int_equal(r->size, 1u << 20);
    rb_plan_destroy(&p);
    s_bad_str("[n]\nnetwork=incast\nruntime=1s\n", 2, "network=incast needs net_target=NODE");
    s_bad_str("[n]\nnetwork=pairs\nnet_target=a\nruntime=1s\n", 3,
              "net_target is the node of network=incast");
    s_bad_str("[n]\nnetwork=pairs\nrw=randwrite\nruntime=1s\n", 3, "not rw=randwrite");
    s_bad_str("[n]\nnetwork=pairs\nruntime=1s\nramp_time=1s\n", 4, "no ramp_time");
    s_bad_str("[n]\nnetwork=pairs\nruntime=1s\nnumjobs=65\n", 4, "numjobs=65 streams a link");
    s_bad_str("[n]\nnetwork=pairs\n", 1, "needs size= (bytes a stream sends) or runtime=");
    s_bad_str("[n]\nnetwork=pairs\nruntime=1s\nverify=md5\n", 2, "no files, devices, verify");
    s_bad_str("[n]\nnetwork=mesh\nruntime=1s\n", 2, "network");
    s_bad_str("[n]\nioengine=net\nhostname=h\nport=1\nrw=write\nsize=1m\n", 2,
              "ioengine=net: fio's network engine");
}

static void test_devices(void **state)
{
    (void)state;
    const char *text = "[global]\nbs=64k\nfile_service_type=roundrobin\n[w]\nrw=write\nnrfiles=7\n"
                       "filename=/dev/loop0:/dev/disk/by-id/x-1\n[r]\nrw=read\nsize=1M\n"
                       "filename=@devices\n";
    rb_plan_t *p = s_parse_in(text, NULL, NULL, 0);
    assert_non_null(p);
    const rb_job_spec_t *w = &p->phases[0].jobs[0], *r = &p->phases[0].jobs[1];
    assert_string_equal(w->device, "/dev/loop0:/dev/disk/by-id/x-1");
    assert_string_equal(w->filename, "");
    assert_int_equal(w->nrfiles, 2);
    assert_int_equal(w->size, 0);
    assert_string_equal(r->device, "@devices");
    assert_int_equal(r->nrfiles, 1);
    assert_int_equal(r->size, 1 << 20);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    rb_plan_print(p, f);
    fclose(f);
    assert_non_null(strstr(out, "filename=/dev/loop0:/dev/disk/by-id/x-1\n"));
    assert_non_null(strstr(out, "filename=@devices\n"));
    rb_plan_t *again = s_parse_in(out, NULL, NULL, 0);
    assert_non_null(again);
    assert_string_equal(again->phases[0].jobs[0].device, w->device);
    assert_int_equal(again->phases[0].jobs[0].size, 0);
    free(out);
    rb_plan_destroy(&again);
    rb_plan_destroy(&p);
}

static void test_fio_syntax(void **state)
{
    (void)state;
    /* every problem at once, in file order, each with its line */
    rb_plan_input_t in = {0};
    s_parse_in("[global]\nbs=4q\n[a]\nsize=1M\niodepth=x\nrw=reed\n[b]\nsize=1M\nfoo=1\n", &in,
               NULL, -EINVAL);
    assert_int_equal(in.nproblems, 4);
    assert_string_equal(in.problems, "t.ini:2: bad size '4q' for bs (a whole number, or 0x "
                                     "hexadecimal, with k, M, G, T or P)\n"
                                     "t.ini:5: bad number 'x' for iodepth\n"
                                     "t.ini:6: bad value 'reed' for rw (read, write, randread, "
                                     "randwrite, rw, readwrite, randrw, rewrite, reread, trim, "
                                     "randtrim, trimwrite, randtrimwrite, meta)\n"
                                     "t.ini:9: unknown option 'foo'\n");
    rb_plan_input_fini(&in);

    /* a job that fails its end checks leaves the next job its own lines:
     * each problem at its line, in its job (the next header was once
     * skipped, its lines going to the failed job) */
    s_parse_in("[a]\nsize=1M\nfixedbufs\n[b]\nsize=1M\nioengine=libaio\nregisterfiles\n", &in, NULL,
               -EINVAL);
    assert_int_equal(in.nproblems, 2);
    assert_string_equal(in.problems, "t.ini:3: option 'fixedbufs' belongs to ioengine=io_uring "
                                     "(job 'a' has ioengine=sync)\n"
                                     "t.ini:7: option 'registerfiles' belongs to "
                                     "ioengine=io_uring (job 'b' has ioengine=libaio)\n");
    rb_plan_input_fini(&in);

    /* name= in [global] names no job, as in fio */
    rb_plan_t *p = s_parse_in("[global]\nname=all\n[a]\nsize=1M\n", NULL, NULL, 0);
    assert_string_equal(p->phases[0].jobs[0].name, "a");
    assert_non_null(strstr(p->notes, "t.ini:2: option 'name' in [global] names no job"));
    rb_plan_destroy(&p);

    /* ${VAR}, with a default, and unset */
    setenv("RB_TEST_SIZE", "2M", 1);
    unsetenv("RB_TEST_UNSET");
    p = s_parse_in("[a]\nsize=${RB_TEST_SIZE}\nbs=${RB_TEST_UNSET:-8k}\n", NULL, NULL, 0);
    assert_int_equal(p->phases[0].jobs[0].size, 2 << 20);
    assert_int_equal(p->phases[0].jobs[0].bs, 8 << 10);
    assert_non_null(strstr(p->text, "size=2M\n")); /* the run folder keeps what ran */
    /* the live page shows the plan as written (issue 33) */
    assert_string_equal(p->written, "[a]\nsize=${RB_TEST_SIZE}\nbs=${RB_TEST_UNSET:-8k}\n");
    rb_plan_destroy(&p);
    /* --var gives ${NAME} before the environment; --override wins over a
     * job's own option, --set does not; an unused --var is a problem */
    {
        static const char *const vars[] = {"RB_TEST_UNSET=8k", "HOME=/x"};
        static const char *const over[] = {"size=2M"};
        static const char *const sets[] = {"size=4M"};
        rb_plan_input_t vin = {
            .vars = vars, .nvars = 1, .overrides = over, .noverrides = 1, .sets = sets, .nsets = 1};
        p = s_parse_in("[global]\nsize=1M\n[a]\nsize=8M\nbs=${RB_TEST_UNSET}\n[b]\n", &vin, NULL,
                       0);
        assert_int_equal(p->phases[0].jobs[0].bs, 8192);
        assert_int_equal(p->phases[0].jobs[0].size, 2 << 20);
        assert_int_equal(p->phases[0].jobs[1].size, 2 << 20);
        assert_non_null(strstr(p->text, "[a]\nsize=8M\nbs=8k\nsize=2M\n"));
        rb_plan_destroy(&p);
        rb_plan_input_fini(&vin);
        vin.nvars = 2; /* HOME: in the environment, and in no ${} of the plan */
        s_parse_in("[a]\nsize=1M\nbs=${RB_TEST_UNSET}\n", &vin, NULL, -EINVAL);
        assert_non_null(strstr(vin.problems, "--var:2: HOME: the plan has no ${HOME}"));
        rb_plan_input_fini(&vin);
    }
    s_parse_in("[a]\nsize=1M\nbs=${RB_TEST_UNSET}\n", &in, NULL, -EINVAL);
    assert_int_equal(in.nproblems, 1);
    assert_non_null(
        strstr(in.problems,
               "t.ini:3: variable 'RB_TEST_UNSET' is not set (pass --var RB_TEST_UNSET=VALUE"));
    rb_plan_input_fini(&in);

    /* fio's keywords and arithmetic */
    long page = sysconf(_SC_PAGESIZE);
    p = s_parse_in("[a]\nsize=64*$pagesize\nbs=(2*2k)\niodepth=(3+1)*2\nruntime=(1500000)\n"
                   "time_based\n",
                   NULL, NULL, -EINVAL);
    assert_null(p);
    p = s_parse_in("[a]\nsize=64*$pagesize\nbs=(2*2k)\niodepth=(2^3)\nruntime=(1500000)\n"
                   "time_based\n",
                   NULL, NULL, 0);
    assert_int_equal(p->phases[0].jobs[0].size, 64 * page);
    assert_int_equal(p->phases[0].jobs[0].bs, 4096);
    assert_int_equal(p->phases[0].jobs[0].iodepth, 8);
    assert_int_equal(p->phases[0].jobs[0].runtime_ns, 1500000000ull);
    assert_true(p->host_keywords);
    rb_plan_destroy(&p);

    /* --set goes at the end of [global] (or in one of its own); --section keeps jobs */
    const char *sets[] = {"size=3M", "bs=64k"};
    const char *secs[] = {"b"};
    rb_plan_input_t in2 = {.sets = sets, .nsets = 2, .sections = secs, .nsections = 1};
    p = s_parse_in("[global]\nsize=1M\n[a]\nrw=write\n[b]\nrw=read\nstonewall\n", &in2, NULL, 0);
    assert_int_equal(p->nphases, 1);
    assert_int_equal(p->phases[0].njobs, 1);
    assert_string_equal(p->phases[0].jobs[0].name, "b");
    assert_int_equal(p->phases[0].jobs[0].size, 3 << 20);
    assert_int_equal(p->phases[0].jobs[0].bs, 64 << 10);
    rb_plan_destroy(&p);
    rb_plan_input_t in3 = {.sets = sets, .nsets = 1};
    p = s_parse_in("[a]\nrw=write\n", &in3, NULL, 0);
    assert_int_equal(p->phases[0].jobs[0].size, 3 << 20);
    rb_plan_destroy(&p);
    const char *nosec[] = {"zz"};
    rb_plan_input_t in4 = {.sections = nosec, .nsections = 1};
    s_parse_in("[a]\nsize=1M\n", &in4, NULL, -EINVAL);
    assert_non_null(strstr(in4.problems, "--section zz: the plan has no job section [zz]"));
    rb_plan_input_fini(&in4);
    const char *badset[] = {"sise=1M"};
    rb_plan_input_t in5 = {.sets = badset, .nsets = 1};
    s_parse_in("[a]\nsize=1M\n", &in5, NULL, -EINVAL);
    assert_non_null(strstr(in5.problems, "--set:1: unknown option 'sise' (did you mean 'size'?)"));
    rb_plan_input_fini(&in5);

    /* include, relative to the including file, nested; problems name the file and line */
    char dir[] = "/tmp/rb-test-include-XXXXXX", path[256], text[1024];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/glob.fio", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "; shared\nbs=16k\ninclude deeper.fio\n");
    fclose(f);
    snprintf(path, sizeof path, "%s/deeper.fio", dir);
    f = fopen(path, "w");
    fprintf(f, "iodepth=4\nbogus=1\n");
    fclose(f);
    snprintf(path, sizeof path, "%s/main.fio", dir);
    snprintf(text, sizeof text, "[global]\ninclude glob.fio\n[a]\nsize=1M\n");
    s_parse_in(text, &in, path, -EINVAL);
    char want[512];
    snprintf(want, sizeof want, "%s/deeper.fio:2: unknown option 'bogus'", dir);
    assert_non_null(strstr(in.problems, want));
    rb_plan_input_fini(&in);
    snprintf(path, sizeof path, "%s/deeper.fio", dir);
    f = fopen(path, "w");
    fprintf(f, "iodepth=4\n");
    fclose(f);
    snprintf(path, sizeof path, "%s/main.fio", dir);
    p = s_parse_in(text, NULL, path, 0);
    assert_int_equal(p->phases[0].jobs[0].bs, 16 << 10);
    assert_int_equal(p->phases[0].jobs[0].iodepth, 4);
    rb_plan_destroy(&p);
    snprintf(path, sizeof path, "%s/deeper.fio", dir);
    f = fopen(path, "w");
    fprintf(f, "include deeper.fio\n");
    fclose(f);
    snprintf(path, sizeof path, "%s/main.fio", dir);
    s_parse_in(text, &in, path, -EINVAL);
    assert_non_null(strstr(in.problems, "nested includes"));
    rb_plan_input_fini(&in);
    snprintf(path, sizeof path, "%s/deeper.fio", dir);
    f = fopen(path, "w");
    fprintf(f, "[sneaky]\n");
    fclose(f);
    snprintf(path, sizeof path, "%s/main.fio", dir);
    s_parse_in(text, &in, path, -EINVAL);
    assert_non_null(strstr(in.problems, "deeper.fio:1: an included file may not hold [sections]"));
    rb_plan_input_fini(&in);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Appends to a growing buffer. */
typedef struct {
    char *buf;
    size_t len, cap;
} s_buf_t;

__attribute__((format(printf, 2, 3))) static void s_add(s_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->len + (size_t)n + 1 > b->cap) {
        b->cap = (b->len + (size_t)n + 1) * 2;
        b->buf = realloc(b->buf, b->cap);
        assert_non_null(b->buf);
    }
    va_start(ap, fmt);
    vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static void test_limits(void **state)
{
    (void)state;
    s_buf_t b = {0};

    /* RB_MAX_PHASES phases are fine; one more is refused on the job that starts it */
    for (unsigned i = 0; i < RB_MAX_PHASES; i++)
        s_add(&b, "[p%u]\nsize=4k\nstonewall\n", i);
    rb_plan_t *p = s_parse_ok(b.buf, b.len, "t.ini");
    assert_int_equal(p->nphases, RB_MAX_PHASES);
    rb_plan_destroy(&p);
    s_add(&b, "[over]\nsize=4k\nstonewall\n");
    s_expect_error(b.buf, b.len, 3 * RB_MAX_PHASES + 1, "more than 256 phases");

    /* RB_MAX_JOBS jobs in one phase are fine; one more is refused */
    b.len = 0;
    for (unsigned i = 0; i < RB_MAX_JOBS; i++)
        s_add(&b, "[j%u]\nsize=4k\n", i);
    p = s_parse_ok(b.buf, b.len, "t.ini");
    assert_int_equal(p->nphases, 1);
    assert_int_equal(p->phases[0].njobs, RB_MAX_JOBS);
    assert_int_equal(rb_plan_phase_workers(&p->phases[0]), RB_MAX_JOBS);
    rb_plan_destroy(&p);
    s_add(&b, "[over]\nsize=4k\n");
    s_expect_error(b.buf, b.len, 2 * RB_MAX_JOBS + 1, "more than 256 jobs");

    /* workers per phase are bounded by RB_MAX_WORKERS */
    s_expect_error("[a]\nsize=4k\nnumjobs=4000\n[b]\nsize=4k\nnumjobs=97\n",
                   strlen("[a]\nsize=4k\nnumjobs=4000\n[b]\nsize=4k\nnumjobs=97\n"), 4,
                   "4097 workers per agent, more than 4096");

    /* exactly RB_PLAN_MAX_BYTES is read; one byte more is refused */
    b.len = 0;
    s_add(&b, "[a]\nsize=1M\n");
    while (b.len < RB_PLAN_MAX_BYTES - 100)
        s_add(&b, "# padding padding padding padding padding padding padding padding\n");
    while (b.len < RB_PLAN_MAX_BYTES - 1)
        s_add(&b, "#");
    s_add(&b, "\n");
    assert_int_equal(b.len, RB_PLAN_MAX_BYTES);
    p = s_parse_ok(b.buf, b.len, "t.ini");
    rb_plan_destroy(&p);
    s_add(&b, "\n");
    s_expect_error(b.buf, b.len, 0, "more than the limit of 1048576");
    free(b.buf);
}

/* Writes text to dir/name. */
static void s_put_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_true(f && fputs(text, f) >= 0 && fclose(f) == 0);
}

/* Removes the folder dir and all in it. */
static void s_rm_tree(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Parses text as the plan dir/main.fio (with in, or NULL), which must be
 * refused with a problem holding want, where "@" stands for dir, and no
 * problem holding hidden (when given). Returns how many problems. */
static unsigned s_refused(const char *dir, const char *text, rb_plan_input_t *in, const char *want,
                          const char *hidden)
{
    char path[512], w[640];
    rb_plan_input_t none = {0};
    if (!in)
        in = &none;
    snprintf(path, sizeof path, "%s/main.fio", dir);
    const char *at = strchr(want, '@');
    if (at)
        snprintf(w, sizeof w, "%.*s%s%s", (int)(at - want), want, dir, at + 1);
    else
        snprintf(w, sizeof w, "%s", want);
    rb_plan_t *p = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    int rc = rb_plan_parse_input(text, strlen(text), path, path, in, &p, &err);
    rb_plan_destroy(&p);
    unsigned n = in->nproblems;
    const char *got = in->problems ? in->problems : err.msg;
    if (rc != -EINVAL || !strstr(got, w) || (hidden && strstr(got, hidden)))
        fail_msg("rc %d; want '%s'%s%s in:\n%s", rc, w, hidden ? ", not " : "",
                 hidden ? hidden : "", got);
    rb_plan_input_fini(in);
    return n;
}

/* Issue 33: expansion is bounded (nesting, includes in all, size), an
 * include that fails stops it, an include is of a regular file, refused
 * before its open could block; each problem names its limit and line. */
static void test_issue33_expansion_bounds(void **state)
{
    (void)state;
    char dir[] = "/tmp/rb-test-i33-XXXXXX", path[512];
    assert_non_null(mkdtemp(dir));

    /* a file that includes itself three times: k^16 includes once, now 16;
     * the rest is not read (bogus= is not reached) */
    s_put_file(dir, "self.fio", "include self.fio\ninclude self.fio\ninclude self.fio\n");
    assert_int_equal(s_refused(dir, "[global]\ninclude self.fio\n[a]\nsize=1M\nbogus=1\n", NULL,
                               "@/self.fio:1: include 'self.fio': more than 16 nested includes "
                               "(the limit",
                               NULL),
                     1);

    /* a fan-out: at most 1024 include lines in all */
    s_buf_t b = {0};
    s_put_file(dir, "leaf.fio", "bs=4k\n");
    for (int i = 0; i < 1100; i++)
        s_add(&b, "include leaf.fio\n");
    s_put_file(dir, "fan.fio", b.buf);
    free(b.buf);
    assert_int_equal(s_refused(dir, "[global]\ninclude fan.fio\n[a]\nsize=1M\n", NULL,
                               "@/fan.fio:1024: include 'leaf.fio': more than 1024 includes", NULL),
                     1);

    /* an include that cannot be read stops expansion; --section is not
     * said missing of a plan read in part */
    static const char *const secs[] = {"later"};
    rb_plan_input_t in = {.sections = secs, .nsections = 1};
    assert_int_equal(s_refused(dir, "[global]\ninclude nothere.fio\n[later]\nsize=1M\nbogus=1\n",
                               &in, "main.fio:2: include 'nothere.fio': cannot read", NULL),
                     1);

    /* a FIFO (an open would block), a device, a directory: refused unopened */
    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    s_refused(dir, "[global]\ninclude fifo\n[a]\nsize=1M\n", NULL,
              "main.fio:2: include 'fifo': cannot read @/fifo: a FIFO, and an include reads "
              "regular files only; the plan is read no further",
              NULL);
    s_refused(dir, "[global]\ninclude /dev/null\n[a]\nsize=1M\n", NULL, "a character device", NULL);
    s_refused(dir, "[global]\ninclude .\n[a]\nsize=1M\n", NULL, "a directory", NULL);

    /* description=${A} over and over: the expanded text stops at its limit
     * (64 MiB, lowered here to 64 KiB to keep the test quick) */
    char big[16385];
    memset(big, 'x', 16384);
    big[16384] = '\0';
    setenv("RB_TEST_BIG", big, 1);
    b = (s_buf_t){0};
    s_add(&b, "[a]\nsize=1M\n");
    for (int i = 0; i < 100; i++)
        s_add(&b, "description=${RB_TEST_BIG}\n");
    rb_plan_input_t small = {.max_expanded = 64 << 10};
    assert_int_equal(s_refused(dir, b.buf, &small,
                               "main.fio:6: the expanded plan (includes, variables and "
                               "command-line lines in place) passes the limit of 65536 bytes here",
                               NULL),
                     1);
    free(b.buf);
    unsetenv("RB_TEST_BIG");
    s_rm_tree(dir);
}

/* Issue 33: a value given from outside the plan (environment, --var,
 * --set, --override) is one value: no line break, no line of its own. */
static void test_issue33_values_stay_values(void **state)
{
    (void)state;
    const char *plan = "[w]\nrw=write\nsize=1M\ndescription=${RB_TEST_NL}\n";
    setenv("RB_TEST_NL", "a\nrw=read", 1);
    assert_int_equal(s_refused("/tmp", plan, NULL,
                               "main.fio:4: variable 'RB_TEST_NL' (from the environment) holds "
                               "a line break",
                               NULL),
                     1);
    unsetenv("RB_TEST_NL");
    static const char *const vars[] = {"RB_TEST_NL=x\r[evil]"};
    rb_plan_input_t vin = {.vars = vars, .nvars = 1};
    s_refused("/tmp", plan, &vin, "main.fio:4: variable 'RB_TEST_NL' (from --var) holds", "evil");

    static const char *const sets[] = {"bs=4k", "[evil]", "iodepth=1\nrw=read"};
    rb_plan_input_t sin = {.sets = sets, .nsets = 3};
    assert_int_equal(s_refused("/tmp", "[w]\nrw=write\nsize=1M\n", &sin,
                               "--set:2: --set KEY=VALUE is one option: it may not hold a newline",
                               NULL),
                     2);
    sin.sets = sets + 1;
    sin.nsets = 2;
    s_refused("/tmp", "[w]\nrw=write\nsize=1M\n", &sin, "--set:2: --set KEY=VALUE", NULL);
    static const char *const over[] = {" [x]"};
    rb_plan_input_t oin = {.sets = sets + 1, .nsets = 1, .overrides = over, .noverrides = 1};
    assert_int_equal(s_refused("/tmp", "[w]\nrw=write\nsize=1M\n", &oin,
                               "--override:1: --override KEY=VALUE", NULL),
                     2);
}

/* Issue 33: a message about an included file names its file and line, and
 * quotes its text only where it reads as a plan's options. */
static void test_issue33_include_not_echoed(void **state)
{
    (void)state;
    char dir[] = "/tmp/rb-test-i33q-XXXXXX";
    assert_non_null(mkdtemp(dir));
    s_put_file(dir, "shadow", "root:$y$j9T$secret:19000:0:99999:7:::\nsize=2\n");
    assert_int_equal(s_refused(dir, "[global]\ninclude shadow\n[a]\nsize=1M\n", NULL,
                               "@/shadow:1: not an option line", "secret"),
                     1);
    /* before any section, and an option's value */
    s_put_file(dir, "env", "# settings\ndb_password=hunter2\nTOKEN=abc\n");
    s_refused(dir, "include env\n[a]\nsize=1M\n", NULL,
              "@/env:2: an included option is outside any section", "hunter2");
    s_refused(dir, "include env\n[a]\nsize=1M\n", NULL, "@/env:3: not an option line", "TOKEN");
    s_refused(dir, "[a]\nsize=1M\ninclude env\n", NULL, "@/env:2: unknown option 'db_password'",
              "hunter2");
    s_put_file(dir, "brace", "description=${oops\n");
    s_refused(dir, "[a]\nsize=1M\ninclude brace\n", NULL, "'${' without '}' in 'the value'",
              "oops");
    /* the plan's own messages quote it as before */
    s_refused(dir, "[a]\nsize=1M\ndescription=${oops\n", NULL, "in '${oops'", NULL);
    s_refused(dir, "db_password=hunter2\n[a]\nsize=1M\n", NULL,
              "'db_password=hunter2' is outside any section", NULL);
    s_rm_tree(dir);
}

/* Issue 33: a UTF-8 byte-order mark may start a plan or an included file. */
static void test_issue33_bom(void **state)
{
    (void)state;
    char dir[] = "/tmp/rb-test-i33b-XXXXXX", path[512];
    assert_non_null(mkdtemp(dir));
    s_put_file(dir, "bom.fio",
               "\xEF\xBB\xBF"
               "bs=8k\n");
    snprintf(path, sizeof path, "%s/main.fio", dir);
    rb_plan_t *p = s_parse_in("\xEF\xBB\xBF[a]\nsize=1M\ninclude bom.fio\n", NULL, path, 0);
    assert_int_equal(p->phases[0].jobs[0].bs, 8192);
    rb_plan_destroy(&p);
    s_rm_tree(dir);
}

/* Issue 33: a plan that would run longer than a day without a runtime
 * saying so gets a note; one whose runtime says so does not. */
static void test_issue33_long_plans_noted(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[w]\nrw=write\nsize=1M\nrate=1\n");
    assert_non_null(p->notes);
    assert_non_null(strstr(p->notes, "t.ini: the plan would run for 12.1 days at least"));
    assert_non_null(
        strstr(p->notes, "job 'w': 12.1 days for 1.00 MiB per worker, its writes at rate=1"));
    rb_plan_destroy(&p);
    p = s_parse_str("[r]\nrw=read\nsize=1M\nloops=4294967295\n");
    assert_non_null(p->notes);
    assert_non_null(strstr(p->notes, "would run for 3.03 days at least"));
    assert_non_null(strstr(p->notes, "4.00 PiB per worker, even at 16.0 GiB/s"));
    rb_plan_destroy(&p);
    p = s_parse_str("[m]\nrw=randrw\nsize=1G\nrate_iops=1,0\nbs=4k\n"); /* 131072 reads */
    assert_non_null(p->notes);
    assert_non_null(
        strstr(p->notes, "1.52 days for 1.00 GiB per worker, its reads at rate_iops=1"));
    rb_plan_destroy(&p);
    /* phases add up: two of 18 hours */
    p = s_parse_str("[a]\nrw=write\nsize=64800k\nrate=1k\n[b]\nstonewall\nrw=read\nsize=64800k\n"
                    "rate=1k\n");
    assert_non_null(p->notes);
    assert_non_null(strstr(p->notes, "1.5 days"));
    rb_plan_destroy(&p);
    /* a runtime says how long; a short plan needs no word */
    const char *quiet[] = {"[w]\nrw=write\nsize=1M\nrate=1\nruntime=10s\n",
                           "[w]\nrw=write\nsize=1M\nrate=1\ntime_based\nruntime=3d\n",
                           "[w]\nrw=write\nsize=1M\nrate=1k\n",
                           "[w]\nrw=write\nsize=1M\nrate=1\nioengine=null\n"};
    for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++) {
        p = s_parse_str(quiet[i]);
        if (p->notes && strstr(p->notes, "would run"))
            fail_msg("%s: %s", quiet[i], p->notes);
        rb_plan_destroy(&p);
    }
}

static const uint8_t s_every_pattern[] = {0xde, 0xad, 0xbe, 0xef, 'a', 'b',
                                          'c',  0xf4, 0xff, 0xff, 0xff};

static void test_every_option(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str(s_every);
    assert_int_equal(p->nphases, 2);
    assert_string_equal(p->directory, "/data/g");

    const rb_job_spec_t *j = &p->phases[0].jobs[0];
    assert_string_equal(j->name, "prep");
    assert_int_equal(j->rw, RB_RW_WRITE);
    assert_int_equal(j->bs, 64 << 10);
    assert_int_equal(j->bs_max, 64 << 10);
    assert_int_equal(j->size, 10 << 20);
    assert_int_equal(j->nrfiles, 4);
    assert_int_equal(j->filesize, 3 << 20);
    assert_int_equal(j->offset, 1 << 20);
    assert_int_equal(j->numjobs, 2);
    assert_string_equal(j->ioengine, "libaio");
    assert_int_equal(j->iodepth, 32);
    assert_int_equal(j->direct, 1);
    assert_int_equal(j->sync_mode, RB_SYNC_DSYNC);
    assert_int_equal(j->fsync_every, 8);
    assert_int_equal(j->fdatasync_every, 16);
    assert_int_equal(j->end_fsync, 1);
    assert_int_equal(j->fsync_on_close, 1);
    assert_int_equal(j->ramp_ns, 2 * S);
    assert_int_equal(j->runtime_ns, 60 * S);
    assert_int_equal(j->time_based, 1);
    assert_int_equal(j->loops, 3);
    assert_int_equal(j->randrepeat, 0);
    assert_int_equal(j->randseed, 0xdeadbeefull);
    assert_int_equal(j->norandommap, 1);
    assert_int_equal(j->overwrite, 1);
    assert_int_equal(j->buffer_mode, RB_BUF_PATTERN);
    assert_int_equal(j->pattern_len, sizeof s_every_pattern);
    assert_memory_equal(j->pattern, s_every_pattern, sizeof s_every_pattern);
    assert_int_equal(j->refill_buffers, 1);
    assert_int_equal(j->verify, RB_VERIFY_CRC32C);
    assert_int_equal(j->do_verify, 0);
    assert_int_equal(j->verify_fatal, 1);
    assert_int_equal(j->rate, 10 << 20);
    assert_string_equal(j->directory, "/data/g");
    assert_string_equal(j->filename, "");
    assert_string_equal(j->filename_format, "pre.$jobnum.$filenum");

    j = &p->phases[1].jobs[0];
    assert_string_equal(j->name, "mixed");
    assert_int_equal(j->rw, RB_RW_RANDRW);
    assert_int_equal(j->rwmixread, 70);
    assert_int_equal(j->bs, 4 << 10);
    assert_int_equal(j->bs_max, 64 << 10);
    assert_int_equal(j->filesize, 1 << 20);
    assert_int_equal(j->nrfiles, 1); /* filename= names the one file, as in fio */
    assert_int_equal(j->size, 1 << 20);
    assert_string_equal(j->ioengine, "io_uring");
    assert_int_equal(j->iodepth, 32);
    assert_int_equal(j->buffer_mode, RB_BUF_ZERO);
    assert_int_equal(j->pattern_len, 0);
    assert_string_equal(j->directory, "/mnt/fast");
    assert_string_equal(j->filename, "shared.dat");
    assert_int_equal(j->sync_mode, RB_SYNC_NONE);

    j = &p->phases[1].jobs[1];
    assert_string_equal(j->name, "again");
    assert_int_equal(j->rw, RB_RW_REREAD);
    assert_int_equal(j->size, 1000); /* not a multiple of bs: fio rounds the IO down */
    assert_int_equal(j->bs, 512);
    assert_string_equal(j->ioengine, "null");
    assert_int_equal(j->sync_mode, RB_SYNC_SYNC);

    assert_non_null(p->notes);
    assert_string_equal(p->notes,
                        "t.ini:5: option 'thread' is ignored: it only tunes fio's own machinery\n"
                        "t.ini:49: option 'clat_percentiles' is ignored: it only shapes fio's "
                        "own reports and logs\n"
                        /* noted when the job is complete, so after its own lines */
                        "t.ini:44: option 'nrfiles' is ignored in job 'mixed': filename= names "
                        "the one file its workers share, as in fio\n");
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
}

/* fio's other names for the same options give the same plan. */
static void test_aliases(void **state)
{
    (void)state;
    rb_plan_t *a = s_parse_str("[x]\nrw=rw\nbs=8k\nbsrange=8k-16k\nsize=1M\nnrfiles=2\noffset=4k\n"
                               "runtime=5\nioengine=sync\nverify=crc32c\nrwmixread=30\n"
                               "stonewall\n");
    rb_plan_t *b = s_parse_str("[x]\nreadwrite=readwrite\nblocksize=8k\n"
                               "blocksize_range=8k:16k\nsize=1M\nnr_files=2\nfileoffset=4k\n"
                               "timeout=5s\nioengine=psync\nverify=crc32c-intel\nrwmixwrite=70\n"
                               "wait_for_previous\n");
    s_assert_plan_equal(a, b);
    const rb_job_spec_t *j = &b->phases[0].jobs[0];
    assert_int_equal(j->rw, RB_RW_RW);
    assert_string_equal(j->ioengine, "sync");
    assert_int_equal(j->rwmixread, 30);
    assert_int_equal(j->bs_max, 16 << 10);
    rb_plan_destroy(&a);
    rb_plan_destroy(&b);

    /* every access pattern by name */
    static const struct {
        const char *name;
        rb_rw_t rw;
    } pats[] = {
        {"read", RB_RW_READ},           {"write", RB_RW_WRITE},     {"randread", RB_RW_RANDREAD},
        {"randwrite", RB_RW_RANDWRITE}, {"rw", RB_RW_RW},           {"readwrite", RB_RW_RW},
        {"randrw", RB_RW_RANDRW},       {"rewrite", RB_RW_REWRITE}, {"reread", RB_RW_REREAD}};
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "[x]\nsize=1M\nrw=%s\n", pats[i].name);
        rb_plan_t *p = s_parse_str(text);
        assert_int_equal(p->phases[0].jobs[0].rw, pats[i].rw);
        s_assert_round_trip(p);
        rb_plan_destroy(&p);
    }

    /* the later of rwmixread and rwmixwrite decides, as in fio */
    rb_plan_t *p = s_parse_str("[x]\nsize=1M\nrw=randrw\nrwmixread=90\nrwmixwrite=25\n"
                               "[y]\nsize=1M\nrw=randrw\nrwmixwrite=25\nrwmixread=90\n");
    assert_int_equal(p->phases[0].jobs[0].rwmixread, 75);
    assert_int_equal(p->phases[0].jobs[1].rwmixread, 90);
    rb_plan_destroy(&p);
}

/* The job file of issue "velocibunny": a plain fio random-read job runs as is. */
static void test_velocibunny(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[random]\n"
                               "rw=randread\n"
                               "size=8g\n"
                               "directory=/data\n"
                               "iodepth=192\n"
                               "direct=1\n"
                               "blocksize=8k\n"
                               "numjobs=16\n"
                               "nrfiles=2\n"
                               "group_reporting\n");
    assert_int_equal(p->nphases, 1);
    assert_int_equal(p->phases[0].njobs, 1);
    const rb_job_spec_t *j = &p->phases[0].jobs[0];
    assert_string_equal(j->name, "random");
    assert_int_equal(j->rw, RB_RW_RANDREAD);
    assert_int_equal(j->size, 8ull << 30);
    assert_string_equal(j->directory, "/data");
    assert_int_equal(j->iodepth, 192);
    assert_int_equal(j->direct, 1);
    assert_int_equal(j->bs, 8192);
    assert_int_equal(j->bs_max, 8192);
    assert_int_equal(j->numjobs, 16);
    assert_int_equal(j->nrfiles, 2);
    assert_int_equal(j->filesize, 0); /* each file gets size / nrfiles = 4 GiB */
    assert_string_equal(j->ioengine, "sync");
    assert_int_equal(rb_plan_phase_workers(&p->phases[0]), 16);
    /* the job keeps its iodepth, as fio's options do; the note says what runs */
    assert_non_null(p->notes);
    assert_non_null(strstr(p->notes, "job 'random': iodepth=192 with ioengine=sync, which does "
                                     "one IO at a time: the queue depth is 1"));
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
}

static void test_sizes(void **state)
{
    (void)state;
    /* a size that is not a multiple of bs is fine: the IO rounds down to whole blocks */
    rb_plan_t *p = s_parse_str("[global]\nbs=4k\n\n[a]\nsize=10k\n");
    assert_int_equal(p->phases[0].jobs[0].size, 10 << 10);
    assert_int_equal(p->phases[0].jobs[0].bs, 4 << 10);
    rb_plan_destroy(&p);

    /* suffixes as fio reads them: "Xib" takes the other base, "X", "Xb" and
     * "Xi" take kb_base; 0x is hexadecimal; kb_base applies to what follows */
    static const struct {
        const char *text;
        uint64_t bytes;
    } fio_sizes[] = {
        {"[a]\nbs=1000\nsize=4KiB\n", 4000},
        {"[a]\nbs=1000\nsize=4Ki\n", 4096},
        {"[a]\nbs=1000\nsize=4kb\n", 4096},
        {"[a]\nbs=1000\nsize=2MiB\n", 2000000},
        {"[a]\nbs=1000\nsize=2mi\n", 2 << 20},
        {"[a]\nbs=1000\nsize=0x1000\n", 4096},
        {"[a]\nbs=1000\nsize=1000b\n", 1000},
        {"[a]\nbs=1000\nkb_base=1000\nsize=4k\n", 4000},
        {"[a]\nbs=1000\nkb_base=1000\nsize=4KiB\n", 4096},
        {"[global]\nkb_base=1000\n[a]\nsize=1M\n", 1000000},
        {"[a]\nbs=1000\nsize=1M\nkb_base=1000\n", 1 << 20},
    };
    for (size_t i = 0; i < sizeof fio_sizes / sizeof fio_sizes[0]; i++) {
        p = s_parse_str(fio_sizes[i].text);
        assert_int_equal(p->phases[0].jobs[0].size, fio_sizes[i].bytes);
        s_assert_round_trip(p);
        rb_plan_destroy(&p);
    }

    /* sizes per direction (bs=R,W), weights (bssplit), and a direction the
     * job does not do taking the other's */
    p = s_parse_str("[a]\nrw=rw\nbs=8k,32k\nsize=1M\n");
    assert_int_equal(p->phases[0].jobs[0].bs_read, 8 << 10);
    assert_int_equal(p->phases[0].jobs[0].bs_write, 32 << 10);
    assert_int_equal(p->phases[0].jobs[0].bs, 8 << 10);
    assert_int_equal(p->phases[0].jobs[0].bs_max, 32 << 10);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
    p = s_parse_str("[a]\nrw=randrw\nbssplit=4k/50:8k/:64k/,16k/100\nsize=1M\n");
    const rb_job_spec_t *js = &p->phases[0].jobs[0];
    assert_int_equal(js->nbssplit_read, 3);
    assert_int_equal(js->bssplit_read[1].bs, 8 << 10);
    assert_int_equal(js->bssplit_read[1].perc, 25);
    assert_int_equal(js->bssplit_read[2].perc, 25);
    assert_int_equal(js->nbssplit_write, 1);
    assert_int_equal(js->bs_write, 16 << 10);
    assert_int_equal(js->bs_read_max, 64 << 10);
    assert_int_equal(js->bs, 4 << 10);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
    p = s_parse_str("[a]\nrw=read\nbs=4k,64k\nsize=1M\n");
    assert_int_equal(p->phases[0].jobs[0].bs_max, 4 << 10);
    assert_int_equal(p->phases[0].jobs[0].bs_trim, 0); /* no trims: none of their own */
    rb_plan_destroy(&p);
    /* fio's directory list: kept whole, the agent spreads the workers over it */
    p = s_parse_str("[a]\nsize=1M\nnumjobs=3\ndirectory=/d1:/d2:/d3\n");
    assert_string_equal(p->phases[0].jobs[0].directory, "/d1:/d2:/d3");
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
    /* trims: the third part of bs (the last part given goes on, as in fio);
     * trims only, and reads and writes take the trims' sizes */
    p = s_parse_str("[a]\nrw=trimwrite\nbs=4k,8k,16k\nsize=1M\n");
    js = &p->phases[0].jobs[0];
    assert_int_equal(js->bs_write, 8 << 10);
    assert_int_equal(js->bs_read, 8 << 10);
    assert_int_equal(js->bs_trim, 16 << 10);
    assert_int_equal(js->bs, 8 << 10);
    assert_int_equal(js->bs_max, 16 << 10);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
    p = s_parse_str("[a]\nrw=randtrim\nbs=4k,64k\nsize=1M\n");
    js = &p->phases[0].jobs[0];
    assert_int_equal(js->bs_trim, 64 << 10);
    assert_int_equal(js->bs_read, 64 << 10);
    assert_int_equal(js->bs, 64 << 10);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
    p = s_parse_str("[a]\nrw=trim\nbsrange=4k-8k,4k-8k,16k-32k\nsize=1M\n");
    js = &p->phases[0].jobs[0];
    assert_int_equal(js->bs_trim, 16 << 10);
    assert_int_equal(js->bs_trim_max, 32 << 10);
    assert_int_equal(js->bs_max, 32 << 10);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
    p = s_parse_str("[a]\nrw=randwrite\nbsrange=1k-4k,2k-8k\nsize=1M\n");
    assert_int_equal(p->phases[0].jobs[0].bs_write, 2 << 10);
    assert_int_equal(p->phases[0].jobs[0].bs_write_max, 8 << 10);
    assert_int_equal(p->phases[0].jobs[0].bs, 2 << 10);
    rb_plan_destroy(&p);

    /* rate and rate_iops cap reads and writes each, or apart (R,W), as fio */
    p = s_parse_str("[a]\nrw=randrw\nsize=1M\nrate=1m,500k\nrate_iops=,200\n");
    assert_int_equal(p->phases[0].jobs[0].rate, 1 << 20);
    assert_int_equal(p->phases[0].jobs[0].rate_write, 500 << 10);
    assert_int_equal(p->phases[0].jobs[0].rate_iops, 0);
    assert_int_equal(p->phases[0].jobs[0].rate_iops_write, 200);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    /* issue 37: rate_iops takes fio's k/m suffixes, by kb_base as fio */
    p = s_parse_str("[a]\nrw=randread\nsize=1M\nrate_iops=3k,1m\n");
    assert_int_equal(p->phases[0].jobs[0].rate_iops, 3072);
    assert_int_equal(p->phases[0].jobs[0].rate_iops_write, 1 << 20);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
    p = s_parse_str("[a]\nkb_base=1000\nrw=randread\nsize=1M\nrate_iops=3k\n");
    assert_int_equal(p->phases[0].jobs[0].rate_iops, 3000);
    rb_plan_destroy(&p);

    /* filesize alone: size is filesize x nrfiles; with size too, both are kept */
    p = s_parse_str("[a]\nfilesize=3M\nnrfiles=5\n[b]\nfilesize=3M\nsize=1M\nnrfiles=2\n");
    assert_int_equal(p->phases[0].jobs[0].size, 15 << 20);
    assert_int_equal(p->phases[0].jobs[0].filesize, 3 << 20);
    assert_int_equal(p->phases[0].jobs[1].size, 1 << 20);
    assert_int_equal(p->phases[0].jobs[1].filesize, 3 << 20);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    /* bsrange wins over bs wherever each is written, as in fio */
    p = s_parse_str("[global]\nbsrange=4k-16k\n[a]\nsize=1M\nbs=64k\n[b]\nsize=1M\n"
                    "[c]\nsize=1M\nbs=8k\n");
    assert_int_equal(p->phases[0].jobs[0].bs, 4 << 10);
    assert_int_equal(p->phases[0].jobs[0].bs_max, 16 << 10);
    assert_int_equal(p->phases[0].jobs[1].bs_max, 16 << 10);
    rb_plan_destroy(&p);
    p = s_parse_str("[c]\nsize=1M\nbs=8k\n");
    assert_int_equal(p->phases[0].jobs[0].bs_max, 8 << 10);
    rb_plan_destroy(&p);

    /* offset and rate take 0; the largest values survive */
    p = s_parse_str("[a]\nsize=1M\noffset=0\nrate=0\n[b]\nsize=1M\noffset=16P\nrate=1T\n"
                    "randseed=18446744073709551615\nloops=4294967295\nfsync=4294967295\n"
                    "iodepth=65536\nnrfiles=65536\nsize=64G\n");
    assert_int_equal(p->phases[0].jobs[0].offset, 0);
    assert_int_equal(p->phases[0].jobs[1].offset, 16ull << 50);
    assert_int_equal(p->phases[0].jobs[1].rate, 1ull << 40);
    assert_int_equal(p->phases[0].jobs[1].randseed, UINT64_MAX);
    assert_int_equal(p->phases[0].jobs[1].loops, UINT32_MAX);
    assert_int_equal(p->phases[0].jobs[1].iodepth, 65536);
    assert_int_equal(p->phases[0].jobs[1].nrfiles, 65536);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
}

static void test_filename(void **state)
{
    (void)state;
    /* a plain name sits in the job's directory; an absolute one is split */
    rb_plan_t *p = s_parse_str("[global]\ndirectory=/data\n"
                               "[a]\nsize=1M\nfilename=shared.0\n"
                               "[b]\nsize=1M\ndirectory=\nfilename=/mnt/nvme0/fio-test.dat\n"
                               "[c]\nsize=1M\ndirectory=\nfilename=/top\n"
                               "[d]\nsize=1M\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_string_equal(j[0].directory, "/data");
    assert_string_equal(j[0].filename, "shared.0");
    assert_string_equal(j[1].directory, "/mnt/nvme0");
    assert_string_equal(j[1].filename, "fio-test.dat");
    assert_string_equal(j[2].directory, "/");
    assert_string_equal(j[2].filename, "top");
    assert_string_equal(j[3].directory, "/data");
    assert_string_equal(j[3].filename, "");
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    /* an absolute name in [global] holds for the jobs; filename= clears it */
    p = s_parse_str("[global]\nfilename=/mnt/x/f\n[a]\nsize=1M\n[b]\nsize=1M\nfilename=\n"
                    "[c]\nsize=1M\nfilename=g\n");
    j = p->phases[0].jobs;
    assert_string_equal(j[0].directory, "/mnt/x");
    assert_string_equal(j[0].filename, "f");
    assert_string_equal(j[1].directory, "");
    assert_string_equal(j[1].filename, "");
    assert_string_equal(j[2].directory, "");
    assert_string_equal(j[2].filename, "g");
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    /* nrfiles does not apply to a named file: noted with its own line */
    p = s_parse_str("[global]\nnrfiles=4\n[a]\nsize=1M\nfilename=one\n[b]\nsize=1M\n");
    assert_int_equal(p->phases[0].jobs[0].nrfiles, 1);
    assert_int_equal(p->phases[0].jobs[1].nrfiles, 4);
    assert_string_equal(p->notes, "t.ini:2: option 'nrfiles' is ignored in job 'a': filename= "
                                  "names the one file its workers share, as in fio\n");
    rb_plan_destroy(&p);
}

static void test_buffers(void **state)
{
    (void)state;
    static const struct {
        const char *value;
        uint8_t bytes[16];
        uint32_t len;
    } cases[] = {
        {"0xdeadbeef", {0xde, 0xad, 0xbe, 0xef}, 4},
        {"0XAbC", {0x0a, 0xbc}, 2}, /* an odd digit count: the first digit is a byte */
        {"\"abcd\"", {'a', 'b', 'c', 'd'}, 4},
        {"66", {0x42}, 1},
        {"256", {0x00, 0x01}, 2},
        {"0", {0x00}, 1},
        {"-12", {0xf4, 0xff, 0xff, 0xff}, 4},
        {"+7", {0x07}, 1},
        {"2147483647", {0xff, 0xff, 0xff, 0x7f}, 4},
        {"-2147483648", {0x00, 0x00, 0x00, 0x80}, 4},
        {"0xff0x14", {0xff, 0x14}, 2},
        {"-100xab\"1\"", {0xf6, 0xff, 0xff, 0xff, 0xab, '1'}, 6},
        {"\"123\"0xFFeeCC", {'1', '2', '3', 0xff, 0xee, 0xcc}, 6},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "[a]\nsize=1M\nbuffer_pattern=%s\n", cases[i].value);
        rb_plan_t *p = s_parse_str(text);
        const rb_job_spec_t *j = &p->phases[0].jobs[0];
        assert_int_equal(j->buffer_mode, RB_BUF_PATTERN);
        if (j->pattern_len != cases[i].len)
            fail_msg("buffer_pattern=%s: %u bytes, want %u", cases[i].value, j->pattern_len,
                     cases[i].len);
        assert_memory_equal(j->pattern, cases[i].bytes, cases[i].len);
        s_assert_round_trip(p);
        rb_plan_destroy(&p);
    }

    /* 64 bytes fit */
    rb_plan_t *p = s_parse_str("[a]\nsize=1M\nbuffer_pattern=\"0123456789abcdef0123456789abcdef"
                               "0123456789abcdef0123456789abcdef\"\n");
    assert_int_equal(p->phases[0].jobs[0].pattern_len, RB_PATTERN_MAX);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    /* the later of zero_buffers and buffer_pattern decides; zero_buffers=0 undoes zero_buffers */
    p = s_parse_str("[a]\nsize=1M\nbuffer_pattern=0x11\nzero_buffers\n"
                    "[b]\nsize=1M\nzero_buffers\nbuffer_pattern=0x11\n"
                    "[c]\nsize=1M\nzero_buffers\nzero_buffers=0\n"
                    "[d]\nsize=1M\nbuffer_pattern=0x11\nzero_buffers=0\nrefill_buffers\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_int_equal(j[0].buffer_mode, RB_BUF_ZERO);
    assert_int_equal(j[0].pattern_len, 0);
    assert_int_equal(j[1].buffer_mode, RB_BUF_PATTERN);
    assert_int_equal(j[1].pattern_len, 1);
    assert_int_equal(j[2].buffer_mode, RB_BUF_RANDOM);
    assert_int_equal(j[3].buffer_mode, RB_BUF_PATTERN);
    assert_int_equal(j[3].refill_buffers, 1);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
}

static void test_sync_and_verify(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        rb_sync_mode_t mode;
    } cases[] = {
        {"sync=none", RB_SYNC_NONE},
        {"sync=0", RB_SYNC_NONE},
        {"sync=sync", RB_SYNC_SYNC},
        {"sync=1", RB_SYNC_SYNC},
        {"sync", RB_SYNC_SYNC},
        {"sync=true", RB_SYNC_SYNC},
        {"sync=dsync", RB_SYNC_DSYNC},
        {"dsync", RB_SYNC_DSYNC},
        {"dsync=1", RB_SYNC_DSYNC},
        {"dsync=1\ndsync=0", RB_SYNC_NONE},
        {"sync=1\ndsync=0", RB_SYNC_SYNC},
        {"dsync\nsync=off", RB_SYNC_NONE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "[a]\nsize=1M\n%s\n", cases[i].line);
        rb_plan_t *p = s_parse_str(text);
        if (p->phases[0].jobs[0].sync_mode != cases[i].mode)
            fail_msg("'%s' gave sync mode %d, want %d", cases[i].line,
                     (int)p->phases[0].jobs[0].sync_mode, (int)cases[i].mode);
        s_assert_round_trip(p);
        rb_plan_destroy(&p);
    }

    rb_plan_t *p = s_parse_str("[a]\nsize=1M\nverify=crc32c\n[b]\nsize=1M\nverify=crc32c\n"
                               "verify=0\n[c]\nsize=1M\nverify=none\ndo_verify\nverify_fatal\n");
    assert_int_equal(p->phases[0].jobs[0].verify, RB_VERIFY_CRC32C);
    assert_int_equal(p->phases[0].jobs[1].verify, RB_VERIFY_NONE);
    assert_int_equal(p->phases[0].jobs[2].verify, RB_VERIFY_NONE);
    assert_int_equal(p->phases[0].jobs[2].do_verify, 1);
    assert_int_equal(p->phases[0].jobs[2].verify_fatal, 1);
    rb_plan_destroy(&p);

    /* fio's other methods; verify_pattern sets verify=pattern unless a method is set */
    p = s_parse_str("[a]\nsize=1M\nverify=md5\nverify_interval=512\nverify_offset=64\n"
                    "verify_pattern=0xaa\"b\"%o\n[b]\nsize=1M\nverify_pattern=0xaa555aa5\n"
                    "[c]\nsize=1M\nverify=xxhash\n[d]\nsize=1M\nverify=null\n");
    const rb_job_spec_t *a = &p->phases[0].jobs[0], *b = &p->phases[0].jobs[1];
    assert_int_equal(a->verify, RB_VERIFY_MD5);
    assert_int_equal(a->verify_interval, 512);
    assert_int_equal(a->verify_offset, 64);
    assert_int_equal(a->pattern_len, 10);
    assert_memory_equal(a->pattern,
                        "\xaa"
                        "b\0\0\0\0\0\0\0\0",
                        10);
    assert_int_equal(a->pattern_ofs, 1u << 2);
    assert_int_equal(a->buffer_mode, RB_BUF_PATTERN);
    assert_int_equal(b->verify, RB_VERIFY_PATTERN);
    assert_int_equal(b->pattern_len, 4);
    assert_int_equal(b->pattern_ofs, 0);
    assert_int_equal(p->phases[0].jobs[2].verify, RB_VERIFY_XXHASH);
    assert_int_equal(p->phases[0].jobs[3].verify, RB_VERIFY_NULL);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
}

/* fio options that only tune fio are accepted, each with a note naming its line. */
/* fio's job names as they are: any printable character (made '_' where
 * rackbench uses the name), a section name twice (each its own job, the
 * later one NAME-K with NAME's files), text after ']' (a note). */
static void test_job_names_as_fio(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[punch hole-fuzzer]\nsize=1M\n[/dev/sdb]\nsize=1M\n"
                               "[a]\nsize=1M\n[a]\nsize=2M\n[a-2]\nsize=3M\n[b] trailing\n"
                               "size=1M\n[c]\nname=a\nsize=1M\nfilename_format=x.$jobname\n");
    assert_int_equal(p->nphases, 1);
    const rb_phase_spec_t *ph = &p->phases[0];
    assert_int_equal(ph->njobs, 7);
    assert_string_equal(ph->jobs[0].name, "punch_hole-fuzzer");
    assert_string_equal(ph->jobs[1].name, "_dev_sdb");
    assert_string_equal(ph->jobs[1].device, "/dev/sdb"); /* as fio, where it is one */
    assert_string_equal(ph->jobs[2].name, "a");
    assert_string_equal(ph->jobs[2].filename_format, "$jobname.$jobnum.$filenum");
    assert_string_equal(ph->jobs[3].name, "a-2");
    assert_int_equal(ph->jobs[3].size, 2 << 20);
    assert_string_equal(ph->jobs[3].filename_format, "a.$jobnum.$filenum");
    assert_string_equal(ph->jobs[4].name, "a-2-2"); /* [a-2] was taken by then */
    assert_string_equal(ph->jobs[4].filename_format, "a-2.$jobnum.$filenum");
    assert_string_equal(ph->jobs[5].name, "b");
    assert_string_equal(ph->jobs[6].name, "a-3");
    assert_string_equal(ph->jobs[6].filename_format, "x.a");
    assert_string_equal(
        p->notes,
        "t.ini:1: job name 'punch hole-fuzzer' is 'punch_hole-fuzzer' in the reports and file "
        "names (A-Z a-z 0-9 . _ - kept, any other character made '_')\n"
        "t.ini:3: job name '/dev/sdb' is '_dev_sdb' in the reports and file names (A-Z a-z 0-9 "
        ". _ - kept, any other character made '_')\n"
        "t.ini:3: job '_dev_sdb' has no filename: it goes to the device /dev/sdb, as fio's job "
        "named after a device does\n"
        "t.ini:7: job name 'a' is taken (line 5): fio runs each section as a job of its own; "
        "this one is 'a-2' in the reports and keeps the files of 'a'\n"
        "t.ini:9: job name 'a-2' is taken (line 7): fio runs each section as a job of its own; "
        "this one is 'a-2-2' in the reports and keeps the files of 'a-2'\n"
        "t.ini:11: text after ']' ('trailing') is not part of the name\n"
        "t.ini:14: job name 'a' is taken (line 5): fio runs each section as a job of its own; "
        "this one is 'a-3' in the reports and keeps the files of 'a'\n");
    /* the print names each job once, and reads back to the same plan */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(rb_plan_print(p, f), 0);
    fclose(f);
    assert_non_null(strstr(text, "\n[a-2-2]\n"));
    rb_plan_t *q = s_parse_str(text);
    assert_int_equal(q->phases[0].njobs, 7);
    assert_string_equal(q->phases[0].jobs[4].name, "a-2-2");
    rb_plan_destroy(&q);
    free(text);
    rb_plan_destroy(&p);
}

/* size=N% and offset=N% of a device: carried to the agent, printed back. */
static void test_device_percent(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[a]\nfilename=/dev/sdb\nrw=write\nbs=64k\nsize=30%\noffset=10%\n");
    const rb_job_spec_t *js = &p->phases[0].jobs[0];
    assert_int_equal(js->size_pct, 30);
    assert_int_equal(js->offset_pct, 10);
    assert_int_equal(js->size, 0);
    assert_int_equal(js->offset, 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(rb_plan_print(p, f), 0);
    fclose(f);
    assert_non_null(strstr(text, "\nsize=30%\n"));
    assert_non_null(strstr(text, "\noffset=10%\n"));
    rb_plan_t *q = s_parse_str(text);
    assert_int_equal(q->phases[0].jobs[0].size_pct, 30);
    assert_int_equal(q->phases[0].jobs[0].offset_pct, 10);
    rb_plan_destroy(&q);
    free(text);
    rb_plan_destroy(&p);

    /* invalidate and fadvise_hint: fio's defaults, printed only away from them */
    p = s_parse_str("[a]\nsize=1M\n[b]\nsize=1M\ninvalidate=0\nfadvise_hint=random\n");
    assert_int_equal(p->phases[0].jobs[0].invalidate, 1);
    assert_int_equal(p->phases[0].jobs[0].fadvise_hint, RB_FADVISE_PATTERN);
    assert_int_equal(p->phases[0].jobs[1].invalidate, 0);
    assert_int_equal(p->phases[0].jobs[1].fadvise_hint, RB_FADVISE_RANDOM);
    f = open_memstream(&text, &len);
    assert_int_equal(rb_plan_print(p, f), 0);
    fclose(f);
    assert_null(strstr(text, "invalidate=1"));
    assert_non_null(strstr(text, "\ninvalidate=0\nfadvise_hint=random\n"));
    free(text);
    rb_plan_destroy(&p);
}

/* fio's log options stay in the plan's list of logs (never on the wire):
 * prefixes, the job's name for a bare one, the job's number, the window,
 * the epoch and per_job_logs inherited from [global], the histogram log's
 * window and coarseness, log_max_value, log_offset and each direction's
 * block size; a prefix naming a folder or a coarseness above 6 is refused
 * with its line. */
static void test_fio_logs(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\n"
                               "size=1M\n"
                               "log_avg_msec=2000\n"
                               "log_unix_epoch=1\n"
                               "[a]\n"
                               "[b]\n"
                               "write_bw_log=rr\n"
                               "write_iops_log\n"
                               "[c]\n"
                               "per_job_logs=0\n"
                               "write_lat_log=\n"
                               "write_hist_log=h\n"
                               "log_hist_msec=500\n"
                               "log_hist_coarseness=3\n"
                               "log_max_value=1\n"
                               "log_offset\n"
                               "rw=randrw\n"
                               "bs=4k,64k\n");
    assert_null(p->notes);
    assert_int_equal(p->nlogs, 2);
    const rb_plan_log_t *b = &p->logs[0], *c = &p->logs[1];
    assert_string_equal(b->job, "b");
    assert_int_equal(b->number, 2);
    assert_string_equal(b->bw, "rr");
    assert_string_equal(b->iops, "b");
    assert_string_equal(b->lat, "");
    assert_int_equal(b->avg_ms, 2000);
    assert_true(b->unix_epoch && b->per_job);
    assert_string_equal(c->job, "c");
    assert_int_equal(c->number, 3);
    assert_string_equal(c->lat, "c");
    assert_string_equal(c->bw, "");
    assert_false(c->per_job);
    assert_string_equal(c->hist, "h");
    assert_int_equal(c->hist_ms, 500);
    assert_int_equal(c->coarseness, 3);
    assert_true(c->max_value && c->offset);
    assert_false(b->max_value || b->offset);
    assert_string_equal(b->hist, "");
    assert_int_equal(b->hist_ms, 0);
    assert_int_equal(c->bs[0], 4096);
    assert_int_equal(c->bs[1], 65536);
    /* nothing of it reaches the jobs the agents get */
    rb_plan_t *q = s_parse_str("[global]\nsize=1M\n[a]\n[b]\n[c]\nrw=randrw\nbs=4k,64k\n");
    s_assert_plan_equal(p, q);
    rb_plan_destroy(&q);
    rb_plan_destroy(&p);

    rb_err_t err;
    rb_err_clear(&err);
    const char *bad = "[a]\nsize=1M\nwrite_bw_log=../x\n";
    assert_int_equal(rb_plan_parse(bad, strlen(bad), "t.ini", &p, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "t.ini:3: write_bw_log: '../x' names a folder"));
    rb_err_clear(&err);
    bad = "[a]\nsize=1M\nlog_avg_msec=-5\n";
    assert_int_equal(rb_plan_parse(bad, strlen(bad), "t.ini", &p, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "t.ini:3:"));
    assert_non_null(strstr(err.msg, "log_avg_msec"));
    rb_err_clear(&err);
    bad = "[a]\nsize=1M\nwrite_hist_log\nlog_hist_coarseness=7\n";
    assert_int_equal(rb_plan_parse(bad, strlen(bad), "t.ini", &p, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "t.ini:4:"));
    assert_non_null(strstr(err.msg, "log_hist_coarseness"));
}

static void test_ignored_notes(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\n"
                               "thread\n"
                               "gtod_reduce=1\n"
                               "clocksource=cpu\n"
                               "[a]\n"
                               "size=1M\n"
                               "clat_percentiles=0\n"
                               "log_prio=1\n"
                               "disable_slat=1\n");
    assert_non_null(p->notes);
    assert_string_equal(
        p->notes, "t.ini:2: option 'thread' is ignored: it only tunes fio's own machinery\n"
                  "t.ini:3: option 'gtod_reduce' is ignored: it only tunes fio's own machinery\n"
                  "t.ini:4: option 'clocksource' is ignored: it only tunes fio's own machinery\n"
                  "t.ini:7: option 'clat_percentiles' is ignored: it only shapes fio's own "
                  "reports and logs\n"
                  "t.ini:8: option 'log_prio' is ignored: it only shapes fio's own reports "
                  "and logs\n"
                  "t.ini:9: option 'disable_slat' is ignored: it only shapes fio's own reports "
                  "and logs\n");
    /* the job is what it would be without them */
    rb_plan_t *q = s_parse_str("[a]\nsize=1M\n");
    s_assert_plan_equal(p, q);
    assert_null(q->notes);
    rb_plan_destroy(&q);
    rb_plan_destroy(&p);

    /* every name on the list is accepted, bare or with a value */
    static const char *const names[] = {"thread",
                                        "gtod_reduce",
                                        "clocksource",
                                        "disable_lat",
                                        "disable_clat",
                                        "disable_slat",
                                        "disable_bw_measurement",
                                        "disable_bw",
                                        "lat_percentiles",
                                        "clat_percentiles",
                                        "slat_percentiles",
                                        "percentile_list",
                                        "significant_figures",
                                        "unit_base",
                                        "unified_rw_reporting",
                                        "new_group",
                                        "stats",
                                        "disk_util",
                                        "bwavgtime",
                                        "iopsavgtime",
                                        "error_dump",
                                        "block_error_percentiles",
                                        "log_prio",
                                        "log_entries",
                                        "log_compression",
                                        "log_compression_cpus",
                                        "log_store_compressed",
                                        "log_alternate_epoch",
                                        "log_alternate_epoch_clock_id"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char text[160], want[160];
        snprintf(text, sizeof text, "[a]\nsize=1M\n%s\n%s=99.5:99.9\n", names[i], names[i]);
        p = s_parse_str(text);
        snprintf(want, sizeof want, "t.ini:4: option '%s' is ignored:", names[i]);
        assert_non_null(strstr(p->notes, want));
        rb_plan_destroy(&p);
    }

    /* many notes are kept up to 100, then counted */
    s_buf_t b = {0};
    s_add(&b, "[a]\nsize=1M\n");
    for (unsigned i = 0; i < 150; i++)
        s_add(&b, "thread\n");
    p = s_parse_ok(b.buf, b.len, "t.ini");
    unsigned lines = 0;
    for (const char *c = p->notes; *c; c++)
        lines += *c == '\n';
    assert_int_equal(lines, 101);
    assert_non_null(strstr(p->notes, "t.ini:102: option 'thread'"));
    assert_null(strstr(p->notes, "t.ini:103: option 'thread'"));
    assert_non_null(strstr(p->notes, "\nt.ini: 50 more notes like these\n"));
    rb_plan_destroy(&p);
    free(b.buf);
}

static void s_assert_codec_accepts(const rb_plan_t *p);

/* [rack NAME] sections: names, ranges, one rack a node, printed back. */
static void test_racks(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[w]\nsize=1m\n[rack east]\nnodes=jr5-[08-10], spare\n"
                               "nodes=extra\n[rack west]\nnodes=w1\n");
    assert_int_equal(p->nracks, 2);
    assert_string_equal(p->racks[0].name, "east");
    assert_int_equal(p->racks[0].nnodes, 5);
    assert_string_equal(p->racks[0].nodes[0], "jr5-08");
    assert_string_equal(p->racks[0].nodes[2], "jr5-10");
    assert_string_equal(p->racks[0].nodes[3], "spare");
    assert_string_equal(rb_plan_rack_of(p, "extra"), "east");
    assert_string_equal(rb_plan_rack_of(p, "w1"), "west");
    assert_null(rb_plan_rack_of(p, "jr5-11"));
    size_t len;
    char *text = s_print(p, &len);
    assert_non_null(strstr(text, "\n[rack east]\nnodes=jr5-08,jr5-09,jr5-10,spare,extra\n"));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
    static const struct {
        const char *text;
        unsigned line;
        const char *what;
    } bad[] = {
        {"[w]\nsize=1m\n[rack a]\nnodes=x\n[rack b]\nnodes=y,x\n", 6,
         "node x is already in [rack a] (line 3)"},
        {"[w]\nsize=1m\n[rack a]\n", 3, "[rack a] lists no nodes"},
        {"[w]\nsize=1m\n[rack a]\nnodes=n[3-1]\n", 4, "a range is written prefix[01-16]suffix"},
        {"[w]\nsize=1m\n[rack a]\nnode=x\n", 4, "unknown option 'node'"},
        {"[w]\nsize=1m\n[rack a/b]\nnodes=x\n", 3, "rack name 'a/b'"},
        {"[w]\nsize=1m\n[rack a]\nnodes=x\n[rack a]\nnodes=y\n", 5,
         "[rack a] again (first at line 3)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        s_expect_error(bad[i].text, strlen(bad[i].text), bad[i].line, bad[i].what);
}

/* Lustre striping: -1 for every OST, a size; printed only when set, and
 * both survive print and the codec. */
/* random_distribution: fio's defaults, zones per direction (a blank size
 * takes the rest), no random map with a skewed one, and the round trip. */
static void test_random_distribution(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nsize=4m\nrw=randread\n"
                               "[a]\nrandom_distribution=zipf\n"
                               "[b]\nrandom_distribution=pareto:0.9\n"
                               "[c]\nrandom_distribution=gauss:10\n"
                               "[d]\nrandom_distribution=zoned:50/5:30/15:20/,90/25:10/\n"
                               "[e]\nrandom_distribution=zoned_abs:60/1m:40/3m\n"
                               "[f]\nrandom_distribution=random\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_int_equal(p->phases[0].njobs, 6);
    assert_int_equal(j[0].rand_dist, RB_DIST_ZIPF);
    assert_int_equal(j[0].rand_dist_ppm, 1100000);
    assert_int_equal(j[0].norandommap, 1);
    assert_int_equal(j[1].rand_dist, RB_DIST_PARETO);
    assert_int_equal(j[1].rand_dist_ppm, 900000);
    assert_int_equal(j[2].rand_dist, RB_DIST_NORMAL);
    assert_int_equal(j[2].rand_dist_ppm, 10000000);
    assert_int_equal(j[3].rand_dist, RB_DIST_ZONED);
    assert_int_equal(j[3].nzones_read, 3);
    assert_int_equal(j[3].zones_read[2].size, 80);
    assert_int_equal(j[3].zones_read[2].access, 20);
    assert_int_equal(j[3].nzones_write, 2);
    assert_int_equal(j[3].zones_write[1].size, 75);
    assert_int_equal(j[3].nzones_trim, 2); /* the last given goes on, as fio */
    assert_int_equal(j[4].rand_dist, RB_DIST_ZONED_ABS);
    assert_int_equal(j[4].zones_read[1].size, 3 << 20);
    assert_int_equal(j[5].rand_dist, RB_DIST_RANDOM);
    assert_int_equal(j[5].norandommap, 0);
    char *text = s_print(p, NULL);
    assert_non_null(
        strstr(text, "random_distribution=zoned:50/5:30/15:20/80,90/25:10/75,90/25:10/75\n"));
    assert_non_null(strstr(text, "random_distribution=zipf:1.1\n"));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
}

/* steadystate, ss_dur and ss_ramp: fio's names and default criterion, a
 * limit as a value, a % or bytes/s; printed only with a window; the bad
 * values named at their line. */
/* fio's buffer contents: compression below 100 refills unless refill_buffers
 * says otherwise, dedupe_percentage refills, either one ends scrambling. */
static void test_buffer_contents(void **state)
{
    (void)state;
    rb_plan_t *p =
        s_parse_str("[global]\nsize=4m\nrw=write\n"
                    "[a]\nbuffer_compress_percentage=50\nbuffer_compress_chunk=4k\n"
                    "[b]\nrefill_buffers=0\nbuffer_compress_percentage=25\n"
                    "[c]\ndedupe_percentage=30\n"
                    "[d]\nbuffer_compress_percentage=0\n"
                    "[e]\nscramble_buffers=0\n"
                    "[f]\nbuffer_compress_percentage=100\n"
                    "[g]\ndedupe_percentage=40\nrefill_buffers=0\nbuffer_compress_chunk=0\n"
                    "[h]\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_int_equal(p->phases[0].njobs, 8);
    assert_int_equal(j[0].compress_pct, 50);
    assert_int_equal(j[0].compress_chunk, 4096);
    assert_int_equal(j[0].refill_buffers, 1);
    assert_int_equal(j[0].scramble, 0);
    assert_int_equal(j[1].compress_pct, 25);
    assert_int_equal(j[1].refill_buffers, 0); /* set, even before */
    assert_int_equal(j[1].compress_chunk, 512);
    assert_int_equal(j[2].dedupe_pct, 30);
    assert_int_equal(j[2].refill_buffers, 1);
    assert_int_equal(j[2].scramble, 0);
    assert_int_equal(j[3].compress_pct, 0);
    assert_int_equal(j[3].refill_buffers, 0);
    assert_int_equal(j[3].scramble, 0); /* set at 0, it still ends scrambling */
    assert_int_equal(j[4].scramble, 0);
    assert_int_equal(j[5].compress_pct, 100);
    assert_int_equal(j[5].refill_buffers, 0); /* all fixed: nothing to refill */
    assert_int_equal(j[6].refill_buffers, 0); /* the later line */
    assert_int_equal(j[6].compress_chunk, 0);
    assert_int_equal(j[7].scramble, 1);
    assert_int_equal(j[7].compress_pct, 0);
    assert_int_equal(j[7].dedupe_pct, 0);
    char *text = s_print(p, NULL);
    assert_non_null(strstr(text, "scramble_buffers=0\nbuffer_compress_percentage=50\n"
                                 "buffer_compress_chunk=4k\nrefill_buffers=1\n"));
    assert_non_null(strstr(text, "dedupe_percentage=40\nrefill_buffers=0\n"));
    const char *h = strstr(text, "[h]");
    assert_non_null(h);
    assert_null(strstr(h, "scramble_buffers"));
    assert_null(strstr(h, "compress"));
    assert_null(strstr(h, "dedupe"));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
}

/* dedupe_mode, dedupe_working_set_percentage, dedupe_global: fio's defaults
 * (repeat, 5, 0) unprinted, others printed and read back. */
static void test_dedupe_mode(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nsize=4m\nrw=write\ndedupe_percentage=50\n"
                               "[a]\ndedupe_mode=working_set\n"
                               "dedupe_working_set_percentage=50\ndedupe_global\n"
                               "[b]\ndedupe_mode=repeat\ndedupe_working_set_percentage=0\n"
                               "[c]\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_int_equal(p->phases[0].njobs, 3);
    assert_int_equal(j[0].dedupe_mode, RB_DEDUPE_WORKING_SET);
    assert_int_equal(j[0].dedupe_ws_pct, 50);
    assert_int_equal(j[0].dedupe_global, 1);
    assert_int_equal(j[1].dedupe_mode, RB_DEDUPE_REPEAT);
    assert_int_equal(j[1].dedupe_ws_pct, 0);
    assert_int_equal(j[2].dedupe_ws_pct, RB_DEDUPE_WS_PCT_DEF);
    assert_int_equal(j[2].dedupe_global, 0);
    char *text = s_print(p, NULL);
    assert_non_null(strstr(text, "dedupe_percentage=50\ndedupe_mode=working_set\n"
                                 "dedupe_working_set_percentage=50\ndedupe_global=1\n"));
    assert_non_null(strstr(text, "dedupe_percentage=50\ndedupe_working_set_percentage=0\n"));
    const char *c = strstr(text, "[c]");
    assert_non_null(c);
    assert_null(strstr(c, "dedupe_mode"));
    assert_null(strstr(c, "dedupe_working"));
    assert_null(strstr(c, "dedupe_global"));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
}

static void test_steadystate(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nsize=4m\nrw=randread\ntime_based\nruntime=1m\n"
                               "[a]\nss=iops:5%\nss_dur=3\nss_ramp=2s\n"
                               "[b]\nsteadystate=bw_slope:10m\nsteadystate_duration=1m\n"
                               "[c]\nss_dur=10\n"
                               "[d]\nss=iops_slope:0.5\nss_dur=4s\n"
                               "[e]\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_int_equal(p->phases[0].njobs, 5);
    assert_int_equal(j[0].ss_metric, RB_SS_IOPS);
    assert_int_equal(j[0].ss_pct, 1);
    assert_int_equal(j[0].ss_limit, 5000000);
    assert_int_equal(j[0].ss_dur_ns, 3000000000ull);
    assert_int_equal(j[0].ss_ramp_ns, 2000000000ull);
    assert_int_equal(j[1].ss_metric, RB_SS_BW_SLOPE);
    assert_int_equal(j[1].ss_pct, 0);
    assert_int_equal(j[1].ss_limit, 10485760ull * 1000000);
    assert_int_equal(j[1].ss_dur_ns, 60000000000ull);
    assert_int_equal(j[2].ss_metric, RB_SS_IOPS_SLOPE); /* fio's default: iops_slope:0.01% */
    assert_int_equal(j[2].ss_pct, 1);
    assert_int_equal(j[2].ss_limit, 10000);
    assert_int_equal(j[3].ss_limit, 500000);
    assert_int_equal(j[4].ss_dur_ns, 0);
    char *text = s_print(p, NULL);
    assert_non_null(strstr(text, "steadystate=iops:5%\nsteadystate_duration=3s\n"
                                 "steadystate_ramp_time=2s\n"));
    assert_non_null(strstr(text, "steadystate=bw_slope:10485760\nsteadystate_duration=60s\n"));
    assert_non_null(strstr(text, "steadystate=iops_slope:0.01%\n"));
    assert_non_null(strstr(text, "steadystate=iops_slope:0.5\n"));
    const char *e = strstr(text, "[e]");
    assert_non_null(e);
    assert_null(strstr(e, "steadystate")); /* no window, no lines */
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    static const struct {
        const char *text;
        unsigned line;
        const char *what;
    } bad[] = {
        {"[w]\nsize=1m\nss=iops:5%\n", 3, "steadystate does nothing without steadystate_duration"},
        {"[w]\nsize=1m\nss_ramp=5\n", 3, "steadystate_ramp_time does nothing without"},
        {"[w]\nsize=1m\nss=lat:5%\nss_dur=3\n", 3, "bad criterion 'lat' for ss"},
        {"[w]\nsize=1m\nss=iops\nss_dur=3\n", 3, "ss=iops has no limit"},
        {"[w]\nsize=1m\nss=iops:-2%\nss_dur=3\n", 3, "bad limit in ss=iops:-2%"},
        {"[w]\nsize=1m\nss=iops:x\nss_dur=3\n", 3, "bad limit in ss=iops:x"},
        {"[w]\nsize=1m\nss=bw:-1m\nss_dur=3\n", 3, "bad limit in ss=bw:-1m"},
        {"[w]\nsize=1m\nss_dur=2500ms\n", 3, "ss_dur=2500ms is not a whole number of seconds"},
        {"[w]\nsize=1m\nss_dur=-3\n", 3, "ss_dur"},
        {"[w]\nsize=1m\nss_dur=2d\n", 3, "ss_dur=2d is more than 86400s"},
        {"[w]\nrw=meta\nmeta_files=4\nss_dur=3\n", 4, "rw=meta has neither"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        s_expect_error(bad[i].text, strlen(bad[i].text), bad[i].line, bad[i].what);
}

/* latency_target, latency_window, latency_percentile and latency_run: a bare
 * number is microseconds, as in fio; each printed away from its default (the
 * window with its target); a target
 * without its window, a percentile above 100 and a metadata job refused at
 * their lines. */
static void test_latency_target(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nsize=4m\n"
                               "[a]\nlatency_target=500000\nlatency_window=5000\n"
                               "latency_percentile=99.9\n"
                               "[b]\nlatency_target=9ms\nlatency_window=300ms\nlatency_run\n"
                               "[c]\nlatency_percentile=50\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_int_equal(j[0].lat_target_ns, 500000000ull);
    assert_int_equal(j[0].lat_window_ns, 5000000ull);
    assert_int_equal(j[0].lat_pct, 99900000u);
    assert_int_equal(j[0].lat_run, 0);
    assert_int_equal(j[1].lat_target_ns, 9000000ull);
    assert_int_equal(j[1].lat_pct, RB_LAT_PCT_MAX); /* fio's default: 100 */
    assert_int_equal(j[1].lat_run, 1);
    assert_int_equal(j[2].lat_target_ns, 0);
    char *text = s_print(p, NULL);
    assert_non_null(strstr(text, "latency_target=500ms\nlatency_window=5ms\n"
                                 "latency_percentile=99.9\n"));
    assert_non_null(strstr(text, "latency_target=9ms\nlatency_window=300ms\nlatency_run=1\n"));
    const char *c = strstr(text, "[c]");
    assert_non_null(c);
    assert_null(strstr(c, "latency_target")); /* no target: no target, no window */
    assert_null(strstr(c, "latency_window"));
    assert_non_null(strstr(c, "latency_percentile=50\n"));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    static const struct {
        const char *text;
        unsigned line;
        const char *what;
    } bad[] = {
        {"[w]\nsize=1m\nlatency_target=2ms\n", 3, "latency_target without latency_window"},
        {"[w]\nsize=1m\nlatency_percentile=101\n", 3,
         "bad value '101' for latency_percentile (a percentage from 0 to 100)"},
        {"[w]\nsize=1m\nlatency_percentile=x\n", 3, "bad value 'x' for latency_percentile"},
        {"[w]\nsize=1m\nlatency_target=fast\n", 3, "bad duration 'fast' for latency_target"},
        {"[w]\nrw=meta\nmeta_files=4\nlatency_target=5\nlatency_window=5ms\n", 4,
         "latency_target sets a data job's depth, not rw=meta's"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        s_expect_error(bad[i].text, strlen(bad[i].text), bad[i].line, bad[i].what);
}

/* rate_min (ratemin), rate_iops_min and rate_cycle (ratecycle): fio's names,
 * per direction, printed only when set; a floor above its cap refused at its
 * line, as fio refuses it; bad values named at their line. */
static void test_rate_floors(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nsize=4m\nrw=randrw\ntime_based\nruntime=1m\n"
                               "[a]\nrate=4m\nrate_min=1m\n"
                               "[b]\nratemin=1m,2m\nratecycle=500\n"
                               "[c]\nrate_iops=100,200\nrate_iops_min=50,200\nrate_cycle=0\n"
                               "[d]\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_int_equal(j[0].rate_min, 1048576);
    assert_int_equal(j[0].rate_min_write, 1048576);
    assert_int_equal(j[0].rate_cycle_ms, 1000); /* fio's default */
    assert_int_equal(j[1].rate_min, 1048576);
    assert_int_equal(j[1].rate_min_write, 2097152);
    assert_int_equal(j[1].rate_cycle_ms, 500);
    assert_int_equal(j[2].rate_iops_min, 50);
    assert_int_equal(j[2].rate_iops_min_write, 200);
    assert_int_equal(j[2].rate_cycle_ms, 0);
    assert_int_equal(j[3].rate_min, 0);
    assert_int_equal(j[3].rate_iops_min, 0);
    char *text = s_print(p, NULL);
    assert_non_null(strstr(text, "rate=4M\nrate_iops=0\nrate_min=1M\n"));
    assert_non_null(strstr(text, "rate_min=1M,2M\nrate_cycle=500\n"));
    assert_non_null(strstr(text, "rate_iops_min=50,200\nrate_cycle=0\n"));
    const char *d = strstr(text, "[d]");
    assert_non_null(d);
    assert_null(strstr(d, "rate_min"));
    assert_null(strstr(d, "rate_cycle"));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    static const struct {
        const char *text;
        unsigned line;
        const char *what;
    } bad[] = {
        {"[w]\nsize=1m\nrw=write\nrate=1m\nrate_min=2m\n", 5,
         "rate_min of reads (2097152/s) exceeds rate (1048576/s)"},
        {"[w]\nsize=1m\nrate_iops=10,100\nrate_iops_min=20\n", 4,
         "rate_iops_min of reads (20/s) exceeds rate_iops (10/s)"},
        {"[w]\nsize=1m\nrate_min=fast\n", 3, "rate_min"},
        {"[w]\nsize=1m\nrate_iops_min=-5\n", 3, "rate_iops_min"},
        {"[w]\nsize=1m\nrate_cycle=soon\n", 3, "rate_cycle"},
        {"[w]\nsize=1m\nrw=trim\nrate_min=1m\n", 4, "rate_min and rate_iops_min with rw=trim"},
        {"[w]\nrw=meta\nmeta_files=4\nrate_iops_min=5\n", 4,
         "rate_iops_min judges a data job's bandwidth or IOPS, rw=meta has neither"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        s_expect_error(bad[i].text, strlen(bad[i].text), bad[i].line, bad[i].what);
}

/* A job without size= whose filename= an earlier phase writes takes the
 * file's size (fio's size of an existing file): size 0 for its agent to
 * settle, not printed, so that the print reads back the same. A reader of a
 * file nothing writes reads it as it is (existing). */
static void test_size_from_file(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nbs=64k\nfilename=data.tmp\ncreate_serialize=0\n"
                               "[w]\nrw=write\nfill_device=1\n"
                               "[r]\nstonewall\nrw=read\noffset=128k\n");
    assert_int_equal(p->nphases, 2);
    const rb_job_spec_t *r = &p->phases[1].jobs[0];
    assert_int_equal(r->size, 0);
    assert_int_equal(r->filesize, 0);
    assert_int_equal(r->offset, 128 << 10);
    char *text = s_print(p, NULL);
    const char *rs = strstr(text, "[r]");
    assert_non_null(rs);
    assert_null(strstr(rs, "\nsize="));
    free(text);
    s_assert_round_trip(p);
    assert_int_equal(r->existing, 0);
    rb_plan_destroy(&p);
    /* a reader of a file nothing in the plan writes: the file as it is */
    p = s_parse_str("[r]\nfilename=/srv/data.bin\nrw=randread\n[w]\nsize=1m\nrw=write\n");
    r = &p->phases[0].jobs[0];
    assert_int_equal(r->existing, 1);
    assert_int_equal(r->size, 0);
    assert_string_equal(r->directory, "/srv");
    assert_string_equal(r->filename, "data.bin");
    assert_int_equal(p->phases[0].jobs[1].existing, 0);
    text = s_print(p, NULL);
    assert_null(strstr(text, "create_serialize"));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
}

/* hipri (io_uring, pvsync2), sqthread_poll and sqthread_poll_cpu (io_uring):
 * read into the job, printed only when set; on another engine refused at
 * their line naming the engines that have them; bad values name the option
 * and the line. */
/* fill_device: no size= means fio's "until full" (not printed, so that the
 * print reads back the same); a size given stays. write_hint: fio's names,
 * printed only when set. create_serialize: accepted with a note. */
static void test_fill_device_write_hint(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nrw=write\ncreate_serialize=0\n"
                               "[a]\nfill_device=1\nwrite_hint=short\n"
                               "[b]\nfill_device=1\nsize=8m\n"
                               "[c]\nsize=8m\nwrite_hint=extreme\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_int_equal(j[0].fill_device, 1);
    assert_int_equal(j[0].size, RB_FILL_SIZE);
    assert_int_equal(j[0].write_hint, RB_WRITE_HINT_SHORT);
    assert_int_equal(j[1].size, 8 << 20);
    assert_int_equal(j[1].write_hint, 0);
    assert_int_equal(j[2].fill_device, 0);
    assert_int_equal(j[2].write_hint, RB_WRITE_HINT_EXTREME);
    char *text = s_print(p, NULL);
    const char *b = strstr(text, "[b]");
    assert_non_null(b);
    assert_null(strstr(text, "size=1E"));
    assert_non_null(strstr(text, "write_hint=short\n"));
    char *c = strstr(text, "[c]");
    assert_non_null(c);
    assert_non_null(strstr(c, "write_hint=extreme\n"));
    *c = '\0';
    assert_non_null(strstr(b, "size=8M\n"));
    assert_null(strstr(b, "write_hint"));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
    /* nice: read and printed as set; mem and friends accepted with a note */
    p = s_parse_str("[global]\nsize=1m\nnice=-5\nmem=shmhuge\niomem_align=4k\n[a]\n[b]\nnice=0\n");
    assert_int_equal(p->phases[0].jobs[0].nice, -5);
    assert_int_equal(p->phases[0].jobs[1].nice, 0);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
    /* allrandrepeat: repeatable at the default seed, whatever randrepeat says */
    p = s_parse_str("[global]\nsize=1m\nallrandrepeat=1\n[a]\nrandrepeat=0\nrandseed=5\n"
                    "[b]\nallrandrepeat=0\nrandrepeat=0\n");
    j = p->phases[0].jobs;
    assert_int_equal(j[0].randrepeat, 1);
    assert_int_equal(j[0].randseed, 0x89);
    assert_int_equal(j[1].randrepeat, 0);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
}

static void test_engine_options(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nsize=4m\nrw=read\n"
                               "[a]\nioengine=io_uring\ndirect=1\nhipri\nsqthread_poll=1\n"
                               "sqthread_poll_cpu=1\n"
                               "[b]\nioengine=pvsync2\nhipri=1\n"
                               "[c]\nioengine=io_uring\nsqthread_poll_cpu=0\n"
                               "[d]\nioengine=io_uring\nhipri=0\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_int_equal(j[0].hipri, 1);
    assert_int_equal(j[0].sqpoll, 1);
    assert_int_equal(j[0].sqpoll_aff, 1);
    assert_int_equal(j[0].sqpoll_cpu, 1);
    assert_int_equal(j[1].hipri, 1);
    assert_int_equal(j[1].sqpoll, 0);
    assert_int_equal(j[2].sqpoll, 0); /* CPU 0 is a CPU: set, but binds only with the thread */
    assert_int_equal(j[2].sqpoll_aff, 1);
    assert_int_equal(j[2].sqpoll_cpu, 0);
    assert_int_equal(j[3].hipri, 0);
    char *text = s_print(p, NULL);
    assert_non_null(strstr(text, "hipri=1\nsqthread_poll=1\nsqthread_poll_cpu=1\n"));
    assert_non_null(strstr(text, "sqthread_poll_cpu=0\n"));
    const char *d = strstr(text, "[d]");
    assert_non_null(d);
    assert_null(strstr(d, "hipri"));
    assert_null(strstr(d, "sqthread"));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    static const struct {
        const char *text;
        unsigned line;
        const char *what;
    } bad[] = {
        {"[w]\nsize=1m\nhipri\n", 3,
         "option 'hipri' belongs to ioengine=io_uring or ioengine=pvsync2 (job 'w' has "
         "ioengine=sync)"},
        {"[w]\nsize=1m\nioengine=libaio\nsqthread_poll\n", 4,
         "option 'sqthread_poll' belongs to ioengine=io_uring (job 'w' has ioengine=libaio)"},
        {"[w]\nsize=1m\nioengine=pvsync2\nsqthread_poll_cpu=1\n", 4,
         "option 'sqthread_poll_cpu' belongs to ioengine=io_uring (job 'w' has "
         "ioengine=pvsync2)"},
        {"[w]\nsize=1m\nioengine=io_uring\nhipri=maybe\n", 4, "bad value 'maybe' for hipri"},
        {"[w]\nsize=1m\nioengine=io_uring\nsqthread_poll=2\n", 4,
         "bad value '2' for sqthread_poll"},
        {"[w]\nsize=1m\nioengine=io_uring\nsqthread_poll_cpu=x\n", 4,
         "bad number 'x' for sqthread_poll_cpu"},
        {"[w]\nsize=1m\nioengine=io_uring\nsqthread_poll_cpu=1024\n", 4,
         "sqthread_poll_cpu=1024 is out of range (0..1023)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        s_expect_error(bad[i].text, strlen(bad[i].text), bad[i].line, bad[i].what);
}

/* flow, flow_id, flow_sleep and wait_for: read into the job, printed only
 * when set; a negative flow wraps as fio's unsigned weight; wait_for names a
 * job read before it, in its phase or an earlier one, else it is refused at
 * its line. */
static void test_flow_wait_for(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nsize=4m\nrw=read\nflow_sleep=1000\n"
                               "[a]\nflow=8\nflow_id=3\n"
                               "[b]\nflow=-2\nwait_for=a\n"
                               "[c]\nstonewall\nwait_for=b\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_int_equal(j[0].flow, 8);
    assert_int_equal(j[0].flow_id, 3);
    assert_int_equal(j[0].flow_sleep_us, 1000);
    assert_int_equal(j[1].flow, UINT32_MAX - 1);
    assert_string_equal(j[1].wait_for, "a");
    assert_string_equal(j[0].wait_for, "");
    assert_string_equal(p->phases[1].jobs[0].wait_for, "b");
    assert_int_equal(p->phases[1].jobs[0].flow, 0);
    char *text = s_print(p, NULL);
    assert_non_null(strstr(text, "flow=8\nflow_id=3\nflow_sleep=1000\n"));
    assert_non_null(strstr(text, "wait_for=a\nflow=-2\nflow_sleep=1000\n"));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    static const struct {
        const char *text;
        unsigned line;
        const char *what;
    } bad[] = {
        {"[w]\nsize=1m\nwait_for=r\n[r]\nsize=1m\n", 3, "wait_for=r: no job 'r' before this one"},
        {"[w]\nsize=1m\nwait_for=nobody\n", 3, "wait_for=nobody: no job 'nobody'"},
        {"[w]\nsize=1m\nwait_for=w\n", 3, "job 'w' cannot wait for itself"},
        {"[w]\nsize=1m\nflow=1001\n", 3, "bad flow=1001"},
        {"[w]\nsize=1m\nflow=much\n", 3, "bad flow=much"},
        {"[w]\nsize=1m\nflow_sleep=-1\n", 3, "flow_sleep"},
        {"[w]\nsize=1m\nflow_id=x\n", 3, "flow_id"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        s_expect_error(bad[i].text, strlen(bad[i].text), bad[i].line, bad[i].what);
}

/* prio and prioclass (the workers' own priority: class << 13 | level, a
 * class of 0 or none best effort, as fio's ioprio_set), and libaio's and
 * io_uring's cmdprio options settled into the entries the agent draws from:
 * fio's RT class when none is given, bssplit entries at 0% dropped; printed
 * so that they read back the same; bad values and combinations refused at
 * their line. */
static void test_ioprio(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nsize=4m\nrw=randrw\nioengine=libaio\n"
                               "[a]\nprio=5\ncmdprio_percentage=20,30\ncmdprio=1,2\n"
                               "cmdprio_class=,3\n"
                               "[b]\nprioclass=3\nbssplit=64k/40:1m/60,1m/100\n"
                               "cmdprio_bssplit=64k/25/1/1:64k/75/3/2:1m/0,1m/0\n"
                               "[c]\nioengine=io_uring\nprioclass=1\nprio=0\n"
                               "cmdprio_bssplit=4k/10\ncmdprio_class=2\ncmdprio=4\n"
                               "[d]\nioengine=sync\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_int_equal(j[0].ioprio, (2u << 13) | 5);
    assert_int_equal(j[0].ncmdprio_read, 1);
    assert_int_equal(j[0].cmdprio_read[0].bs, 0);
    assert_int_equal(j[0].cmdprio_read[0].perc, 20);
    assert_int_equal(j[0].cmdprio_read[0].prio, (1u << 13) | 1);
    assert_int_equal(j[0].cmdprio_write[0].perc, 30);
    assert_int_equal(j[0].cmdprio_write[0].prio, (3u << 13) | 2);
    assert_int_equal(j[1].ioprio, 3u << 13);
    assert_int_equal(j[1].ncmdprio_read, 2);
    assert_int_equal(j[1].ncmdprio_write, 0);
    assert_int_equal(j[1].cmdprio_read[1].bs, 65536);
    assert_int_equal(j[1].cmdprio_read[1].perc, 75);
    assert_int_equal(j[1].cmdprio_read[1].prio, (3u << 13) | 2);
    assert_int_equal(j[2].ioprio, 1u << 13);
    assert_int_equal(j[2].ncmdprio_read, 1);
    assert_int_equal(j[2].ncmdprio_write, 1);
    assert_int_equal(j[2].cmdprio_write[0].prio, (2u << 13) | 4);
    assert_int_equal(j[3].ioprio, 0);
    assert_int_equal(j[3].ncmdprio_read + j[3].ncmdprio_write, 0);
    char *text = s_print(p, NULL);
    assert_non_null(strstr(text, "cmdprio_percentage=20,30\ncmdprio_class=1,3\ncmdprio=1,2\n"));
    assert_non_null(strstr(text, "cmdprio_bssplit=65536/25/1/1:65536/75/3/2,,\n"));
    assert_non_null(strstr(text, "prioclass=2\nprio=5\n"));
    const char *d = strstr(text, "[d]");
    assert_non_null(d);
    assert_null(strstr(d, "prio"));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    static const struct {
        const char *text;
        unsigned line;
        const char *what;
    } bad[] = {
        {"[w]\nsize=1m\nprio=8\n", 3, "prio=8 is out of range (0..7)"},
        {"[w]\nsize=1m\nprioclass=4\n", 3, "prioclass=4 is out of range (0..3)"},
        {"[w]\nsize=1m\ncmdprio_percentage=20\n", 3,
         "option 'cmdprio_percentage' belongs to ioengine=libaio or ioengine=io_uring"},
        {"[w]\nsize=1m\nioengine=libaio\ncmdprio_percentage=101\n", 4,
         "cmdprio_percentage=101 is out of range (0..100)"},
        {"[w]\nsize=1m\nioengine=libaio\ncmdprio_class=0\n", 4,
         "cmdprio_class=0 is out of range (1..3)"},
        {"[w]\nsize=1m\nioengine=libaio\ncmdprio=9\n", 4, "cmdprio=9 is out of range (0..7)"},
        {"[w]\nsize=1m\nioengine=libaio\ncmdprio_bssplit=4k/60/1\n", 4,
         "cmdprio_bssplit: bad entry"},
        {"[w]\nsize=1m\nioengine=libaio\ncmdprio_bssplit=4k/60/1/1:4k/50/2/1\n", 4,
         "cmdprio_bssplit: the percentages of size 4096 add up to 110, more than 100"},
        {"[w]\nsize=1m\nioengine=libaio\ncmdprio_bssplit=4k/60/4/1\n", 4,
         "cmdprio_bssplit=4 is out of range (1..3)"},
        {"[w]\nsize=1m\nioengine=io_uring\ncmdprio_percentage=5\ncmdprio_bssplit=4k/10\n", 5,
         "cmdprio_percentage (line 4) and cmdprio_bssplit are mutually exclusive"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        s_expect_error(bad[i].text, strlen(bad[i].text), bad[i].line, bad[i].what);
}

/* exitall and exit_what: a boolean and fio's three names, printed only away
 * from the defaults; another name refused at its line. */
static void test_exitall(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nsize=4m\nrw=read\n"
                               "[a]\nexitall\n"
                               "[b]\nexitall=1\nexit_what=stonewall\n"
                               "[c]\nexitall=true\nexit_what=all\n"
                               "[d]\nexit_what=group\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_int_equal(j[0].exitall, 1);
    assert_int_equal(j[0].exit_what, RB_EXIT_GROUP);
    assert_int_equal(j[1].exit_what, RB_EXIT_STONEWALL);
    assert_int_equal(j[2].exit_what, RB_EXIT_ALL);
    assert_int_equal(j[3].exitall, 0);
    char *text = s_print(p, NULL);
    assert_non_null(strstr(text, "exitall=1\nexit_what=stonewall\n"));
    assert_non_null(strstr(text, "exitall=1\nexit_what=all\n"));
    const char *d = strstr(text, "[d]");
    assert_non_null(d);
    assert_null(strstr(d, "exit"));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
    const char *bad = "[w]\nsize=1m\nexitall\nexit_what=everything\n";
    s_expect_error(bad, strlen(bad), 4, "exit_what");
    const char *bad2 = "[w]\nsize=1m\nexitall=maybe\n";
    s_expect_error(bad2, strlen(bad2), 3, "exitall");
}

/* continue_on_error's names, ignore_error's lists (making their classes go
 * on, as in fio), exitall_on_error, the print and the round trip; bad values
 * named with their line, every one of a plan at once. */
static void test_error_options(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nsize=4m\nrw=write\n"
                               "[a]\ncontinue_on_error=write\n"
                               "[b]\nignore_error=,ENOSPC:EIO,\n"
                               "[c]\ncontinue_on_error=all\nignore_error=,28\n"
                               "[d]\ncontinue_on_error=1\nexitall_on_error\n"
                               "[e]\nignore_error=EIO\ncontinue_on_error=none\n"
                               "[f]\ncontinue_on_error=io\nignore_error=,,EILSEQ\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_int_equal(j[0].continue_on_error, RB_ERR_CLASS_WRITE);
    const uint8_t *l = NULL;
    assert_int_equal(rb_job_ignore_list(&j[0], 1, &l), 0);
    assert_int_equal(j[1].continue_on_error, RB_ERR_CLASS_WRITE);
    assert_int_equal(rb_job_ignore_list(&j[1], 1, &l), 2);
    assert_int_equal(l[0], ENOSPC);
    assert_int_equal(l[1], EIO);
    assert_int_equal(rb_job_ignore_list(&j[1], 0, &l), 0);
    assert_int_equal(j[2].continue_on_error, RB_ERR_CLASS_ALL);
    assert_int_equal(rb_job_ignore_list(&j[2], 1, &l), 1);
    assert_int_equal(l[0], ENOSPC);
    assert_int_equal(j[3].continue_on_error, RB_ERR_CLASS_ALL);
    assert_int_equal(j[3].exitall_on_error, 1);
    assert_int_equal(j[4].continue_on_error, 0);
    assert_int_equal(rb_job_ignore_list(&j[4], 0, &l), 1);
    assert_int_equal(rb_job_ignore_list(&j[5], 2, &l), 1);
    assert_int_equal(l[0], EILSEQ);
    assert_int_equal(j[5].continue_on_error, RB_ERR_CLASS_ALL);
    char *text = s_print(p, NULL);
    assert_non_null(strstr(text, "continue_on_error=write\n"));
    assert_non_null(strstr(text, "ignore_error=,ENOSPC:EIO,\n"));
    assert_non_null(strstr(text, "continue_on_error=all\nignore_error=,ENOSPC,\n"));
    assert_non_null(strstr(text, "exitall_on_error=1\n"));
    assert_non_null(strstr(text, "ignore_error=EIO,,\ncontinue_on_error=none\n"));
    assert_non_null(strstr(text, "continue_on_error=io\nignore_error=,,EILSEQ\n"));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
    const char *bad = "[w]\nsize=1m\ncontinue_on_error=sometimes\n";
    s_expect_error(bad, strlen(bad), 3, "continue_on_error");
    const char *bad2 = "[w]\nsize=1m\nignore_error=ENOPE\n";
    s_expect_error(bad2, strlen(bad2), 3, "ENOPE");
    const char *bad3 = "[w]\nsize=1m\nignore_error=5,5,5,5\n";
    s_expect_error(bad3, strlen(bad3), 3, "ignore_error");
    const char *bad4 = "[w]\nsize=1m\nignore_error=,0\n";
    s_expect_error(bad4, strlen(bad4), 3, "ignore_error");
}

/* rw's modifier, rw_sequencer and percentage_random, and the round trip. */
static void test_rw_modifiers(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nsize=4m\n"
                               "[a]\nrw=write:4k\n"
                               "[b]\nrw=read:-8k\n"
                               "[c]\nrw=randread:8\nrw_sequencer=identical\n"
                               "[d]\nrw=randrw\npercentage_random=30,90\n"
                               "[e]\nrw=randwrite\npercentage_sequential=25\n"
                               "[f]\nrw=read:8k\nrw=read\n"
                               "[g]\nrw=randrw\nbs=16k\nba=4k,8k\n"
                               "[h]\nrw=randread\nblockalign=4k\n"
                               "[i]\nrw=randread\nnorandommap\nrandom_generator=lfsr\n"
                               "[k]\nrw=randread\nnorandommap\nrandom_generator=tausworthe64\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_int_equal(j[0].rw, RB_RW_WRITE);
    assert_int_equal(j[0].seq_add, 4096);
    assert_int_equal(j[0].seq_back, 0);
    assert_int_equal(j[1].seq_add, 8192);
    assert_int_equal(j[1].seq_back, 1);
    assert_int_equal(j[2].rw, RB_RW_RANDREAD);
    assert_int_equal(j[2].seq_nr, 8);
    assert_int_equal(j[2].seq_identical, 1);
    assert_int_equal(j[3].perc_seq_read, 70);
    assert_int_equal(j[3].perc_seq_write, 10);
    assert_int_equal(j[3].perc_seq_trim, 10);
    assert_int_equal(j[4].perc_seq_write, 25);
    assert_int_equal(j[5].seq_add, 0); /* a later rw= starts over */
    assert_int_equal(j[6].ba_read, 4096);
    assert_int_equal(j[6].ba_write, 8192);
    assert_int_equal(j[6].ba_trim, 8192);
    assert_int_equal(j[6].norandommap, 1); /* as fio */
    assert_int_equal(j[7].ba_read, 0);     /* the same as bs: nothing changes */
    assert_int_equal(j[7].norandommap, 0);
    assert_int_equal(j[8].norandommap, 0); /* lfsr: no block twice, as fio's */
    assert_int_equal(j[9].norandommap, 1);
    char *text = s_print(p, NULL);
    assert_non_null(strstr(text, "rw=read:-8k\n"));
    assert_non_null(strstr(text, "rw=randread:8\n"));
    assert_non_null(strstr(text, "rw_sequencer=identical\n"));
    assert_non_null(strstr(text, "percentage_random=30,90,90\n"));
    assert_non_null(strstr(text, "blockalign=4k,8k,8k\n"));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
}

/* zonemode=strided, zonesize, zonerange and zoneskip as fio 3.33 reads
 * them: zonerange defaults to zonesize, zonerange and zoneskip alone are
 * noted and change nothing; the print and the round trip. */
static void test_zones(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nsize=4m\n"
                               "[a]\nzonemode=strided\nzonesize=256k\nzoneskip=1m\n"
                               "[b]\nrw=randwrite\nzonemode=strided\nzonesize=64k\nzonerange=1m\n"
                               "[c]\nzonerange=1m\nzoneskip=0\n"
                               "[e]\nzonemode=strided\nzonesize=64k\nzonemode=none\nzonesize=0\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_int_equal(j[0].zone_size, 256 << 10);
    assert_int_equal(j[0].zone_range, 256 << 10);
    assert_int_equal(j[0].zone_skip, 1 << 20);
    assert_int_equal(j[1].zone_size, 64 << 10);
    assert_int_equal(j[1].zone_range, 1 << 20);
    assert_int_equal(j[1].zone_skip, 0);
    for (int k = 2; k < 4; k++) {
        assert_int_equal(j[k].zone_size, 0);
        assert_int_equal(j[k].zone_range, 0);
        assert_int_equal(j[k].zone_skip, 0);
    }
    assert_non_null(p->notes);
    assert_non_null(strstr(p->notes, "t.ini:13: job 'c': zonerange and zoneskip have no effect "
                                     "without zonemode=strided, as in fio\n"));
    char *text = s_print(p, NULL);
    assert_non_null(strstr(text, "zonemode=strided\nzonesize=256k\nzonerange=256k\nzoneskip=1M\n"));
    assert_non_null(strstr(text, "zonemode=strided\nzonesize=64k\nzonerange=1M\nzoneskip=0\n"));
    free(text);
    s_assert_round_trip(p);
    s_assert_codec_accepts(p);
    rb_plan_destroy(&p);
}

/* zonemode=zbd: zonesize moves to zbd_zone, the z suffix counts zones of
 * it (fio's zbd-rand-write-trim-gc), its options print and read back, and
 * they do nothing (a note each) without zonemode=zbd. */
static void test_zbd(void **state)
{
    (void)state;
    rb_plan_t *p =
        s_parse_str("[global]\nzonemode=zbd\nzonesize=256M\nfilename=/dev/sdb\n"
                    "offset=524z\n"
                    "[w]\nrw=randwrite\nbs=2M\nsize=128z\nmax_open_zones=32\n"
                    "job_max_open_zones=4\nzonecapacity=128M\nzone_reset_threshold=0.5\n"
                    "zone_reset_frequency=0.01\n"
                    "[r]\nrw=read\nread_beyond_wp=1\nio_size=2z\n"
                    "[t]\nrw=randtrim\nbs=256M\nsize=128z\n"
                    "[n]\nzonemode=none\nzonesize=0\nsize=1M\noffset=0\nmax_open_zones=3\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_int_equal(j[0].zone_size, 0); /* not strided */
    assert_int_equal(j[0].zbd_zone, 256ull << 20);
    assert_int_equal(j[0].offset, 524ull * (256ull << 20));
    assert_int_equal(j[0].size, 128ull * (256ull << 20));
    assert_int_equal(j[0].zbd_max_open, 32);
    assert_int_equal(j[0].zbd_job_max_open, 4);
    assert_int_equal(j[0].zbd_cap, 128ull << 20);
    assert_int_equal(j[0].zbd_reset_thr, 500000);
    assert_int_equal(j[0].zbd_reset_freq, 10000);
    assert_int_equal(j[1].zbd_beyond_wp, 1);
    assert_int_equal(j[1].io_size, 2ull * (256ull << 20));
    assert_int_equal(j[2].bs_trim ? j[2].bs_trim : j[2].bs, 256ull << 20);
    assert_int_equal(j[3].zbd_zone, 0);
    assert_int_equal(j[3].zbd_max_open, 0);
    assert_non_null(strstr(p->notes, "job 'n': max_open_zones has no effect without zonemode=zbd"));
    char *text = s_print(p, NULL);
    assert_non_null(strstr(text, "zonemode=zbd\nzonesize=256M\n"));
    assert_non_null(strstr(text, "zonecapacity=128M\n"));
    assert_non_null(strstr(text, "max_open_zones=32\n"));
    assert_non_null(strstr(text, "zone_reset_frequency=0.01\n"));
    free(text);
    s_assert_round_trip(p);
    s_assert_codec_accepts(p);
    rb_plan_destroy(&p);
}

/* openfiles and file_service_type: kept below nrfiles, printed and read
 * back; at or above nrfiles, or with one file, they change nothing. */
static void test_file_service(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nsize=1M\nnrfiles=4\n"
                               "[a]\nfile_service_type=roundrobin:4\nopenfiles=2\n"
                               "max_latency=10,2ms\n"
                               "[b]\nfile_service_type=sequential\nopenfiles=4\n"
                               "rw=write\nsync_file_range=wait_before,write:8\n"
                               "thinktime=1ms\nthinktime_iotime=2\nthinktime_blocks=5\n"
                               "[c]\nnrfiles=1\nfile_service_type=sequential\n"
                               "thinktime=1ms\nthinktime_iotime=500ms\n"
                               "[d]\nthinktime_iotime=1\n"
                               "[e]\nthinktime=1ms\nthinktime_iotime=1\nthinktime_blocks=1\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_int_equal(j[0].fs_nr, 4);
    assert_int_equal(j[0].openfiles, 2);
    assert_int_equal(j[1].fs_nr, RB_FS_SEQUENTIAL);
    assert_int_equal(j[1].openfiles, 0);
    assert_int_equal(j[2].fs_nr, 0);
    assert_int_equal(j[0].max_lat_read_ns, 10000);
    assert_int_equal(j[0].max_lat_write_ns, 2000000);
    assert_int_equal(j[0].max_lat_trim_ns, 2000000);
    assert_int_equal(j[1].sfr_every, 8);
    assert_int_equal(j[1].sfr_flags, 3);
    assert_int_equal(j[1].thinktime_iotime_ns, 2000000000ull);
    assert_int_equal(j[1].thinktime_blocks, 5);
    assert_int_equal(j[2].thinktime_iotime_ns, 500000000ull);
    assert_int_equal(j[2].thinktime_blocks, 0); /* by time alone, as fio */
    assert_int_equal(j[3].thinktime_iotime_ns, 0);
    assert_int_equal(j[4].thinktime_blocks, 1); /* set: it counts too */
    assert_non_null(strstr(p->notes, "job 'd': thinktime_iotime has no effect without thinktime"));
    char *text = s_print(p, NULL);
    assert_non_null(strstr(text, "file_service_type=roundrobin:4\n"));
    assert_non_null(strstr(text, "openfiles=2\n"));
    assert_non_null(strstr(text, "file_service_type=sequential\n"));
    assert_non_null(strstr(text, "max_latency=10us,2ms,2ms\n"));
    assert_non_null(strstr(text, "sync_file_range=wait_before,write:8\n"));
    assert_non_null(strstr(text, "thinktime_blocks=5\nthinktime_iotime=2s\n"));
    assert_non_null(strstr(text, "thinktime=1ms\nthinktime_iotime=500ms\n"));
    free(text);
    s_assert_round_trip(p);
    s_assert_codec_accepts(p);
    rb_plan_destroy(&p);
}

/* fio's job named after a device (disk-zone-profile.fio's [/dev/sdb])
 * without filename goes to it; with a directory, or a filename, it does not. */
static void test_job_named_after_device(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[/dev/sdb]\nrw=read\n"
                               "[/dev/sdc]\nfilename=/dev/sdd\n"
                               "[/dev/sde]\ndirectory=/tmp/x\nsize=1m\n");
    const rb_job_spec_t *j = p->phases[0].jobs;
    assert_string_equal(j[0].device, "/dev/sdb");
    assert_int_equal(j[0].size, 0); /* the device's size, as the agent finds it */
    assert_string_equal(j[1].device, "/dev/sdd");
    assert_string_equal(j[2].device, "");
    assert_non_null(strstr(p->notes, "t.ini:1: job '_dev_sdb' has no filename: it goes to the "
                                     "device /dev/sdb, as fio's job named after a device does\n"));
    assert_null(strstr(p->notes, "device /dev/sdc"));
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
}

static void test_lustre_stripes(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nsize=4m\nlustre_stripe_count=-1\n"
                               "[a]\nrw=write\nlustre_stripe_size=4m\n"
                               "[b]\nstonewall\nrw=read\nlustre_stripe_count=8\n"
                               "[c]\nstonewall\nrw=read\nlustre_stripe_count=0\n");
    const rb_job_spec_t *a = &p->phases[0].jobs[0], *b = &p->phases[1].jobs[0];
    const rb_job_spec_t *c = &p->phases[2].jobs[0];
    assert_int_equal(a->lustre_stripe_count, RB_LUSTRE_STRIPE_ALL);
    assert_int_equal(a->lustre_stripe_size, 4 << 20);
    assert_int_equal(b->lustre_stripe_count, 8);
    assert_int_equal(b->lustre_stripe_size, 0);
    assert_int_equal(c->lustre_stripe_count, 0);
    size_t len;
    char *text = s_print(p, &len);
    assert_non_null(strstr(text, "drop_caches=0\nlustre_stripe_count=-1\nlustre_stripe_size=4M\n"));
    assert_non_null(strstr(
        text, "drop_caches=0\nlustre_stripe_count=8\nunlink=0\nunlink_each_loop=0\nfilename="));
    free(text);
    s_assert_round_trip(p);
    s_assert_codec_accepts(p);
    rb_plan_destroy(&p);
}

/* fio's number_ios, io_size (io_limit, a share of size), unlink,
 * unlink_each_loop, startdelay (a range too) and offset_increment: their
 * values, their print, and both survive print and the codec. */
static void test_io_limits_and_files(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nbs=4k\nsize=1M\nrw=write\n"
                               "[a]\nnumber_ios=1k\nio_size=4M\nunlink\nstartdelay=1500ms\n"
                               "[b]\nio_limit=25%\nunlink_each_loop=1\nstartdelay=1s-5s\n"
                               "numjobs=4\nfilename=one\noffset=8k\noffset_increment=2M\n"
                               "[c]\nfilesize=3M\nnrfiles=2\nio_size=10%\nstartdelay=2:3\n"
                               "[d]\nio_size=10%\nio_size=12k\n");
    const rb_job_spec_t *a = &p->phases[0].jobs[0], *b = &p->phases[0].jobs[1];
    const rb_job_spec_t *c = &p->phases[0].jobs[2], *d = &p->phases[0].jobs[3];
    assert_int_equal(a->number_ios, 1024);
    assert_int_equal(a->io_size, 4 << 20);
    assert_true(a->unlink);
    assert_false(a->unlink_each_loop);
    assert_int_equal(a->startdelay_ns, 1500 * MS);
    assert_int_equal(a->startdelay_max_ns, 1500 * MS);
    assert_int_equal(a->offset_increment, 0);
    assert_int_equal(b->number_ios, 0);
    assert_int_equal(b->io_size, 256 << 10);
    assert_false(b->unlink);
    assert_true(b->unlink_each_loop);
    assert_int_equal(b->startdelay_ns, 1 * S);
    assert_int_equal(b->startdelay_max_ns, 5 * S);
    assert_int_equal(b->offset, 8 << 10);
    assert_int_equal(b->offset_increment, 2 << 20);
    /* a share of size (not of filesize), rounded down as fio */
    assert_int_equal(c->size, 1 << 20);
    assert_int_equal(c->filesize, 3 << 20);
    assert_int_equal(c->io_size, 104857);
    assert_int_equal(c->startdelay_ns, 2 * S);
    assert_int_equal(c->startdelay_max_ns, 3 * S);
    assert_int_equal(d->io_size, 12 << 10); /* the later value wins */
    size_t len;
    char *text = s_print(p, &len);
    assert_non_null(strstr(text, "size=1M\nfilesize=0\nio_size=4M\nnumber_ios=1024\n"));
    assert_non_null(strstr(text, "time_based=0\nstartdelay=1500ms\nramp_time=0\n"));
    assert_non_null(strstr(text, "unlink=1\nunlink_each_loop=0\n"));
    assert_non_null(strstr(text, "io_size=256k\nnumber_ios=0\n"));
    assert_non_null(strstr(text, "offset=8k\noffset_increment=2M\nnumjobs=4\n"));
    assert_non_null(strstr(text, "startdelay=1s-5s\n"));
    assert_non_null(strstr(text, "unlink=0\nunlink_each_loop=1\n"));
    free(text);
    s_assert_round_trip(p);
    s_assert_codec_accepts(p);
    rb_plan_destroy(&p);
}

/* IOR's patterns: N-1 strided with a transfer, reads from another node,
 * stonewalling with wear-out, the page cache dropped; all survive print. */
static void test_across_nodes(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nbs=64k\nsize=4m\nfile_per_worker=0\n"
                               "[n1]\nrw=write\nlayout=strided\ntransfer=256k\n"
                               "stonewall_time=20s\nwearout\n"
                               "[seg]\nstonewall\nrw=write\n"
                               "[back]\nstonewall\nrw=read\nfile_per_worker=1\n"
                               "read_from=neighbour\ndrop_caches\n"
                               "[far]\nrw=randread\nfile_per_worker=1\nread_from=shift:3\n");
    const rb_job_spec_t *n1 = &p->phases[0].jobs[0], *seg = &p->phases[1].jobs[0];
    const rb_job_spec_t *back = &p->phases[2].jobs[0], *far = &p->phases[2].jobs[1];
    assert_true(n1->shared_file);
    assert_int_equal(n1->layout, RB_LAYOUT_STRIDED);
    assert_int_equal(n1->transfer, 256 << 10);
    assert_int_equal(n1->stonewall_ns, 20 * S);
    assert_true(n1->wearout);
    assert_true(seg->shared_file);
    assert_int_equal(seg->layout, RB_LAYOUT_SEGMENTED);
    assert_int_equal(seg->transfer, 0);
    assert_false(back->shared_file);
    assert_int_equal(back->read_shift, 1);
    assert_true(back->drop_caches);
    assert_int_equal(far->read_shift, 3);
    assert_false(far->drop_caches);
    size_t len;
    char *text = s_print(p, &len);
    assert_non_null(strstr(text, "file_per_worker=0\nlayout=strided\ntransfer=256k\n"
                                 "read_from=self\nstonewall_time=20s\nwearout=1\n"));
    assert_non_null(strstr(text, "read_from=shift:1\n"));
    free(text);
    s_assert_round_trip(p);
    s_assert_codec_accepts(p);
    rb_plan_destroy(&p);
}

/* IOR's -Z -X: read_from=random with its seed; a negative seed is reseeded
 * with each iteration, as IOR's -X -N; both survive print. */
static void test_read_random(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nbs=64k\nsize=4m\n"
                               "[r]\nrw=read\nread_from=random\nread_from_seed=7\n"
                               "[n]\nstonewall\nrw=read\nread_from=random\nread_from_seed=-7\n"
                               "iterations=3\n"
                               "[d]\nstonewall\nrw=read\nread_from=random\n");
    assert_int_equal(p->nphases, 5);
    const rb_job_spec_t *r = &p->phases[0].jobs[0], *d = &p->phases[4].jobs[0];
    assert_int_equal(r->read_shift, RB_READ_RANDOM);
    assert_int_equal(rb_job_read_seed(r), 7);
    assert_false(r->read_reseed);
    for (uint32_t k = 0; k < 3; k++) {
        const rb_job_spec_t *n = &p->phases[1 + k].jobs[0];
        assert_int_equal(n->read_shift, RB_READ_RANDOM);
        assert_true(n->read_reseed);
        assert_int_equal(n->read_seed, 7);
        assert_int_equal(rb_job_read_seed(n), 7 + k); /* IOR: -X -7 gives 7, 8, 9 */
    }
    assert_int_equal(rb_job_read_seed(d), 0);
    size_t len;
    char *text = s_print(p, &len);
    assert_non_null(strstr(text, "read_from=random\nread_from_seed=7\n"));
    assert_non_null(strstr(text, "read_from=random\nread_from_seed=-7\n"));
    assert_non_null(strstr(text, "read_from=random\nread_from_seed=0\n"));
    free(text);
    s_assert_round_trip(p);
    s_assert_codec_accepts(p);
    rb_plan_destroy(&p);
    /* a metadata job's steps that look take it; the others drop it */
    p = s_parse_str("[md]\nrw=meta\nmeta_files=10\nmeta_ops=create,stat,delete\n"
                    "read_from=random\nread_from_seed=-3\n");
    assert_int_equal(p->phases[0].jobs[0].read_shift, 0);
    assert_int_equal(p->phases[0].jobs[0].read_seed, 0);
    assert_int_equal(p->phases[1].jobs[0].read_shift, RB_READ_RANDOM);
    assert_int_equal(rb_job_read_seed(&p->phases[1].jobs[0]), 3);
    assert_int_equal(p->phases[2].jobs[0].read_shift, 0);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
}

static void test_round_trip(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str(s_full);
    size_t len = 0;
    char *text = s_print(p, &len);
    /* normalised: every option explicit, one stonewall for two phases */
    assert_non_null(strstr(text, "[global]\nsample_interval=500ms\ndirectory=/data/bench\n"));
    assert_non_null(strstr(
        text, "\n[seqwrite]\nrw=write\nrwmixread=50\nbs=1M\nbsrange=1M-1M\n"
              "size=64M\nfilesize=0\nio_size=0\nnumber_ios=0\nnrfiles=1\noffset=0\n"
              "offset_increment=0\nnumjobs=4\n"
              "ioengine=sync\niodepth=1\ndirect=1\nsync=none\nfsync=0\n"
              "fdatasync=0\nend_fsync=0\nfsync_on_close=0\nruntime=30s\n"
              "time_based=1\nstartdelay=0\nramp_time=0\nloops=1\nrandrepeat=1\n"
              "randseed=137\nnorandommap=0\noverwrite=0\nzero_buffers=0\n"
              "refill_buffers=0\nverify=0\ndo_verify=1\nverify_fatal=0\n"
              "verify_interval=0\nverify_offset=0\nverify_backlog=0\nverify_backlog_batch=0\n"
              "rate=0\nrate_iops=0\nfile_per_worker=1\nread_from=self\nstonewall_time=0\n"
              "wearout=0\ndrop_caches=0\nunlink=0\nunlink_each_loop=0\n"
              "directory=/data/bench\nfilename=\n"
              "filename_format=$jobname.$jobnum.$filenum\n"));
    assert_non_null(strstr(text, "\n[readback]\nstonewall\nrw=read\n"));
    assert_non_null(strstr(text, "runtime=1500ms\n"));
    const char *sw = strstr(text, "\nstonewall\n");
    assert_non_null(sw);
    assert_null(strstr(sw + 1, "\nstonewall\n"));
    assert_int_equal(text[0], ';');
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    /* odd but valid values survive too */
    p = s_parse_str("[global]\nsample_interval=1.25s\n[x]\nsize=1000\nbs=8\nruntime=1.5us\n"
                    "[y]\nsize=3G\nbs=3M\nruntime=7ns\n[z]\nwait_for_previous\nsize=5k\nbs=1k\n"
                    "directory=/with space/dir\nrw=write\n");
    assert_int_equal(p->interval_ns, 1250 * MS);
    assert_int_equal(p->phases[0].jobs[1].runtime_ns, 7);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    /* every option away from its default */
    p = s_parse_str(s_every);
    text = s_print(p, &len);
    assert_non_null(strstr(text,
                           "\n[prep]\nrw=write\nrwmixread=50\nbs=64k\nbsrange=64k-64k\n"
                           "size=10M\nfilesize=3M\nio_size=0\nnumber_ios=0\nnrfiles=4\noffset=1M\n"
                           "offset_increment=0\nnumjobs=2\n"
                           "ioengine=libaio\niodepth=32\ndirect=1\nsync=dsync\nfsync=8\n"
                           "fdatasync=16\nend_fsync=1\nfsync_on_close=1\nruntime=60s\n"
                           "time_based=1\nstartdelay=0\nramp_time=2s\nloops=3\nrandrepeat=0\n"
                           "randseed=3735928559\nnorandommap=1\noverwrite=1\n"
                           "zero_buffers=0\nbuffer_pattern=0xdeadbeef616263f4ffffff\n"
                           "refill_buffers=1\nverify=crc32c\ndo_verify=0\n"
                           "verify_fatal=1\nverify_interval=0\nverify_offset=0\nverify_backlog=0\n"
                           "verify_backlog_batch=0\nrate=10M\nrate_"
                           "iops=0\nfile_per_worker=1\nread_from=self\n"
                           "stonewall_time=0\nwearout=0\ndrop_caches=0\nunlink=0\n"
                           "unlink_each_loop=0\ndirectory=/data/g\nfilename=\n"
                           "filename_format=pre.$jobnum.$filenum\n"));
    assert_non_null(strstr(text, "\n[mixed]\nstonewall\nrw=randrw\nrwmixread=70\nbs=4k\n"
                                 "bsrange=4k-64k\n"));
    assert_non_null(strstr(text, "zero_buffers=1\nrefill_buffers=0\n"));
    assert_non_null(strstr(text, "directory=/mnt/fast\nfilename=shared.dat\n"));
    assert_non_null(strstr(text, "\n[again]\nrw=reread\n"));
    assert_null(strstr(text, "thread"));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    /* acceptance sections come last, normalised: phases by phase name, exact limits */
    p = s_parse_str(s_accept);
    text = s_print(p, &len);
    assert_non_null(strstr(text, "\n[acceptance]\nphases=w,r\nmin_aggregate_bw=1536M\n"
                                 "min_node_bw=100M\nmax_node_spread=12.5%\nmax_p99_lat=5ms\n"
                                 "max_p999_lat=20ms\nmax_mean_lat=900us\nmin_iops=2000\n"
                                 "min_nodes=4\nmax_errors=0\n"));
    assert_non_null(strstr(text, "\n[acceptance md]\nphases=md.create,md.stat\nmin_iops=500\n"));
    assert_non_null(strstr(text, "\n[acceptance all]\nmin_node_bw=1k\nmax_errors=1\n"));
    assert_true(strstr(text, "[acceptance]") > strstr(text, "[md.stat]"));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    /* [capacity] comes after acceptance, normalised: decimal sizes as TB, binary
     * ones as TiB, fractions exact, phases by phase name, the model in comments */
    p = s_parse_str("[global]\nsize=1m\n[w]\nrw=write\n[r]\nstonewall\nrw=read\n"
                    "[capacity]\n"
                    "phases = r , w\n"
                    "target_bw=1.5GB/s\n"
                    "disk_size=2t\n"
                    "disks=48\n"
                    "raid=RAID6\n"
                    "raid_group=16\n"
                    "hot_spares_per_group=1\n"
                    "fs_overhead=8.25%\n"
                    "usable_per_unit=64.5TiB\n"
                    "unit_height_u=5\n"
                    "rack_height_u=41\n"
                    "units_per_rack=7\n"
                    "derate=50%\n"
                    "target_capacity=1.5P\n"
                    "[acceptance]\nmax_errors=0\n");
    text = s_print(p, &len);
    assert_non_null(strstr(text, "\n[acceptance]\nmax_errors=0\n\n[capacity]\ndisks=48\n"
                                 "disk_size=2TB\nraid=raid6\nraid_group=16\n"
                                 "hot_spares_per_group=1\nfs_overhead=8.25%\n"
                                 "usable_per_unit=66048GiB\nunit_height_u=5\nrack_height_u=41\n"
                                 "units_per_rack=7\nderate=0.5\ntarget_capacity=1500TB\n"
                                 "target_bw=1500MB/s\nphases=w,r\n"
                                 "; raid6: 3 groups of 16 = 1 hot spare + 2 parity + 13 data "
                                 "disks; 39 data disks x 2 TB\n"));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
    /* every data phase by default; units a rack from the heights */
    p = s_parse_str("[w]\nsize=1m\n[capacity]\nusable_per_unit=1000000\nunit_height_u=4\n"
                    "rack_height_u=42\n");
    text = s_print(p, &len);
    assert_non_null(strstr(text, "\n[capacity]\nusable_per_unit=1MB\nunit_height_u=4\n"
                                 "rack_height_u=42\n; 10 units a rack (42U / 4U)\n"
                                 "; throughput from the data phases: w\n"));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    /* an empty directory= in a job keeps the agent's first root despite [global] */
    p = s_parse_str("[global]\ndirectory=/g\n[a]\nsize=4k\ndirectory=\n[b]\nsize=4k\n");
    assert_string_equal(p->phases[0].jobs[0].directory, "");
    assert_string_equal(p->phases[0].jobs[1].directory, "/g");
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
}

static void test_load(void **state)
{
    (void)state;
    rb_plan_t *p = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    const char *missing = "/nonexistent-rackbench-dir/plan.ini";
    int rc = rb_plan_load(missing, &p, &err);
    assert_int_equal(rc, -ENOENT);
    assert_null(p);
    assert_non_null(strstr(err.msg, missing));

    rb_err_clear(&err);
    rc = rb_plan_load("/", &p, &err);
    assert_true(rc < 0);
    assert_null(p);
    assert_non_null(strstr(err.msg, "/"));

    char path[] = "/tmp/test_plan_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, s_full, strlen(s_full)), (ssize_t)strlen(s_full));
    close(fd);
    rb_err_clear(&err);
    rc = rb_plan_load(path, &p, &err);
    if (rc != 0)
        fail_msg("load failed: %s", err.msg);
    assert_string_equal(p->source, path);
    assert_string_equal(p->text, s_full);
    assert_int_equal(p->nphases, 2);
    rb_plan_destroy(&p);

    /* a bad plan on disk is named by its path */
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("[a]\nsize=1M\niodepht=4\n", f);
    fclose(f);
    rb_err_clear(&err);
    rc = rb_plan_load(path, &p, &err);
    assert_int_equal(rc, -EINVAL);
    char want[128];
    snprintf(want, sizeof want, "%s:3: unknown option 'iodepht' (did you mean 'iodepth'?)", path);
    assert_string_equal(err.msg, want);
    unlink(path);
}

static uint64_t s_rng = 0x9e3779b97f4a7c15ull;

static uint64_t s_rand(void)
{
    s_rng ^= s_rng << 13;
    s_rng ^= s_rng >> 7;
    s_rng ^= s_rng << 17;
    return s_rng;
}

/* Random damage to a valid plan never crashes; what parses also round-trips.
 * Returns how many damaged plans were still accepted. */
static unsigned s_fuzz(const char *seed, unsigned iters)
{
    static const char alphabet[] = "[]=;# \t\r\n\0abkKmMgG0123456789$/:-._\x80\xff\"'x";
    const size_t base = strlen(seed);
    char buf[4096];
    unsigned accepted = 0;
    assert_true(base < sizeof buf);
    for (unsigned iter = 0; iter < iters; iter++) {
        size_t len = base;
        memcpy(buf, seed, base);
        unsigned nmut = 1 + (unsigned)(s_rand() % 4);
        for (unsigned m = 0; m < nmut; m++) {
            size_t at = len ? (size_t)(s_rand() % len) : 0;
            char c = alphabet[s_rand() % (sizeof alphabet - 1)];
            switch (s_rand() % 6) {
            case 0: /* replace a byte */
                if (len)
                    buf[at] = c;
                break;
            case 1: /* insert a byte */
                if (len < sizeof buf) {
                    memmove(buf + at + 1, buf + at, len - at);
                    buf[at] = c;
                    len++;
                }
                break;
            case 2: { /* delete a run */
                size_t n = (size_t)(s_rand() % 16);
                if (n > len - at)
                    n = len - at;
                memmove(buf + at, buf + at + n, len - at - n);
                len -= n;
                break;
            }
            case 3: { /* duplicate a run somewhere else */
                size_t n = (size_t)(s_rand() % 64);
                if (n > len - at)
                    n = len - at;
                if (len + n <= sizeof buf) {
                    size_t to = (size_t)(s_rand() % (len + 1));
                    char tmp[64];
                    memcpy(tmp, buf + at, n);
                    memmove(buf + to + n, buf + to, len - to);
                    memcpy(buf + to, tmp, n);
                    len += n;
                }
                break;
            }
            case 4: /* cut the end */
                len = at;
                break;
            default: /* flip a bit */
                if (len)
                    buf[at] ^= (char)(1u << (s_rand() % 8));
                break;
            }
        }
        rb_plan_t sentinel;
        rb_plan_t *p = &sentinel;
        rb_err_t err;
        rb_err_clear(&err);
        int rc = rb_plan_parse(buf, len, "f.ini", &p, &err);
        if (rc == 0) {
            accepted++;
            assert_true(p->nphases >= 1);
            for (const char *c = p->notes; c && *c; c = strchr(c, '\n') + 1)
                assert_int_equal(strncmp(c, "f.ini:", 6), 0); /* whole lines, each named */
            s_assert_round_trip(p);
            rb_plan_destroy(&p);
        } else {
            assert_int_equal(rc, -EINVAL);
            assert_ptr_equal(p, &sentinel);
            assert_int_equal(strncmp(err.msg, "f.ini:", 6), 0);
        }
    }
    return accepted;
}

/* The wire codec takes the plan's jobs as they are. */
static void s_assert_codec_accepts(const rb_plan_t *p)
{
    rb_msg_t m, d;
    memset(&m, 0, sizeof m);
    m.type = RB_MSG_PLAN;
    snprintf(m.u.plan.run_id, sizeof m.u.plan.run_id, "run1");
    m.u.plan.interval_ns = p->interval_ns;
    m.u.plan.nnodes = 1;
    m.u.plan.nphases = p->nphases;
    m.u.plan.phases = p->phases;
    void *buf = NULL;
    size_t len = 0;
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_msg_encode(&m, &buf, &len, &err) != 0)
        fail_msg("encode: %s", err.msg);
    if (rb_msg_decode(buf, len, &d, &err) != 0)
        fail_msg("decode: %s", err.msg);
    assert_int_equal(d.u.plan.nphases, p->nphases);
    for (uint32_t i = 0; i < p->nphases; i++)
        for (uint32_t j = 0; j < p->phases[i].njobs; j++)
            s_assert_job_equal(&d.u.plan.phases[i].jobs[j], &p->phases[i].jobs[j]);
    rb_msg_fini(&d);
    free(buf);
}

static void test_meta_expansion(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        rb_meta_op_t op;
        uint8_t renamed;
    } steps[] = {
        {"md.create", RB_META_CREATE, 0}, {"md.stat", RB_META_STAT, 0},
        {"md.rename", RB_META_RENAME, 0}, {"md.read", RB_META_READ, 1},
        {"md.delete", RB_META_DELETE, 1},
    };
    rb_plan_t *p = s_parse_str(s_meta);
    assert_int_equal(p->nphases, 7);
    assert_string_equal(p->phases[0].name, "prep");
    assert_int_equal(p->phases[0].njobs, 1);
    assert_int_equal(p->phases[0].jobs[0].meta_op, RB_META_NONE);
    assert_int_equal(p->phases[0].jobs[0].meta_files, 0);
    assert_int_equal(p->phases[0].jobs[0].meta_dirs, 0);
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        const rb_phase_spec_t *ph = &p->phases[1 + i];
        assert_string_equal(ph->name, steps[i].name);
        assert_int_equal(ph->njobs, 1);
        const rb_job_spec_t *js = &ph->jobs[0];
        assert_string_equal(js->name, steps[i].name);
        assert_int_equal(js->rw, RB_RW_META);
        assert_int_equal(js->meta_op, steps[i].op);
        assert_int_equal(js->meta_renamed, steps[i].renamed);
        assert_int_equal(js->meta_files, 1024);
        assert_int_equal(js->meta_filesize, 4096);
        assert_int_equal(js->meta_dirs, 1);
        assert_int_equal(js->meta_depth, 3);
        assert_int_equal(js->meta_branch, 2);
        assert_int_equal(js->meta_random, 1);
        assert_int_equal(js->meta_shared, 0);
        assert_int_equal(js->meta_sync, 1);
        assert_int_equal(js->numjobs, 4);
        assert_string_equal(js->filename_format, "md");
        assert_string_equal(js->directory, "/data/md");
        /* data IO options do not apply: the defaults, whatever the job said */
        assert_int_equal(js->size, 0);
        assert_int_equal(js->bs, 4096);
        assert_int_equal(js->bs_max, 4096);
        assert_int_equal(js->iodepth, 1);
        assert_string_equal(js->ioengine, "sync");
        assert_int_equal(js->nrfiles, 1);
        assert_int_equal(js->loops, 1);
    }
    /* a job after a metadata job starts a new phase without stonewall */
    assert_string_equal(p->phases[6].name, "after");
    assert_int_equal(p->phases[6].jobs[0].rw, RB_RW_READ);
    assert_int_equal(p->phases[6].jobs[0].meta_files, 0);
    s_assert_round_trip(p);
    s_assert_codec_accepts(p);
    rb_plan_destroy(&p);

    /* a metadata job after data jobs starts a new phase too; one without a rename is never
     * renamed; data jobs around it still share their phases as before */
    p = s_parse_str("[a]\nsize=1m\n[b]\nsize=1m\n[m]\nrw=meta\nmeta_files=8\n"
                    "meta_ops=write,create,read\n[c]\nsize=1m\n[d]\nsize=1m\n");
    assert_int_equal(p->nphases, 5);
    assert_int_equal(p->phases[0].njobs, 2);
    assert_string_equal(p->phases[1].name, "m.write");
    assert_string_equal(p->phases[2].name, "m.create");
    assert_string_equal(p->phases[3].name, "m.read");
    for (uint32_t i = 1; i <= 3; i++)
        assert_int_equal(p->phases[i].jobs[0].meta_renamed, 0);
    assert_string_equal(p->phases[4].name, "c");
    assert_int_equal(p->phases[4].njobs, 2);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    /* two metadata jobs one after the other; renamed from the step after the rename on */
    p = s_parse_str("[x]\nrw=meta\nmeta_files=2\nmeta_ops=rename\n"
                    "[y]\nrw=meta\nmeta_files=2\nmeta_ops=create,rename,stat,delete\n");
    assert_int_equal(p->nphases, 5);
    assert_string_equal(p->phases[0].name, "x.rename");
    assert_int_equal(p->phases[0].jobs[0].meta_renamed, 0);
    assert_string_equal(p->phases[0].jobs[0].filename_format, "x");
    static const uint8_t renamed[] = {0, 0, 1, 1};
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(p->phases[1 + i].jobs[0].meta_renamed, renamed[i]);
        assert_string_equal(p->phases[1 + i].jobs[0].filename_format, "y");
    }
    s_assert_round_trip(p);
    s_assert_codec_accepts(p);
    rb_plan_destroy(&p);

    /* too many steps for the phase limit: the error names the job that goes over */
    s_buf_t b = {0};
    for (unsigned i = 0; i < 43; i++)
        s_add(&b, "[m%u]\nrw=meta\nmeta_files=1\nmeta_ops=create,stat,read,write,rename,delete\n",
              i);
    s_expect_error(b.buf, b.len, 1 + 42 * 4, "job 'm42.rename' starts phase 257, more than 256");
    free(b.buf);
}

static void test_meta_defaults(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[m]\nrw=meta\nmeta_files=10\n");
    assert_int_equal(p->nphases, 3);
    static const char *const names[] = {"m.create", "m.stat", "m.delete"};
    static const rb_meta_op_t ops[] = {RB_META_CREATE, RB_META_STAT, RB_META_DELETE};
    for (uint32_t i = 0; i < 3; i++) {
        const rb_job_spec_t *js = &p->phases[i].jobs[0];
        assert_string_equal(p->phases[i].name, names[i]);
        assert_int_equal(js->meta_op, ops[i]);
        assert_int_equal(js->meta_files, 10);
        assert_int_equal(js->meta_filesize, 0);
        assert_int_equal(js->meta_dirs, 1);
        assert_int_equal(js->meta_depth, 0);
        assert_int_equal(js->meta_branch, 1);
        assert_int_equal(js->meta_random, 0);
        assert_int_equal(js->meta_shared, 0);
        assert_int_equal(js->meta_sync, 0);
        assert_int_equal(js->meta_renamed, 0);
        assert_int_equal(js->numjobs, 1);
        assert_int_equal(js->randseed, 0x89);
        assert_string_equal(js->filename_format, "m");
        assert_string_equal(js->directory, "");
    }
    s_assert_round_trip(p);
    s_assert_codec_accepts(p);
    rb_plan_destroy(&p);

    /* meta options in [global] are inherited by metadata jobs and leave the others alone;
     * an explicit filename_format is kept, $jobname read as the job's name */
    p = s_parse_str("[global]\n"
                    "meta_files=5\nmeta_ops=write\nmeta_filesize=1k\nmeta_dirs=16\n"
                    "meta_shared_dir\nmeta_order=sequential\nfilename_format=$jobname-set.$jobnum\n"
                    "[data]\nsize=1m\n"
                    "[md]\nrw=meta\nmeta_shared_dir=0\nmeta_dirs=1\nmeta_depth=16\n"
                    "[md2]\nrw=meta\nmeta_sync=yes\nmeta_dirs=1\n");
    assert_int_equal(p->nphases, 3);
    const rb_job_spec_t *d = &p->phases[0].jobs[0];
    assert_int_equal(d->meta_files, 0);
    assert_int_equal(d->meta_dirs, 0);
    assert_int_equal(d->meta_shared, 0);
    assert_string_equal(d->filename_format, "$jobname-set.$jobnum");
    const rb_job_spec_t *m = &p->phases[1].jobs[0];
    assert_string_equal(m->name, "md.write");
    assert_int_equal(m->meta_op, RB_META_WRITE);
    assert_int_equal(m->meta_files, 5);
    assert_int_equal(m->meta_filesize, 1024);
    assert_int_equal(m->meta_dirs, 1);
    assert_int_equal(m->meta_depth, 16);
    assert_int_equal(m->meta_shared, 0);
    assert_string_equal(m->filename_format, "md-set.$jobnum");
    const rb_job_spec_t *m2 = &p->phases[2].jobs[0];
    assert_string_equal(m2->name, "md2.write");
    assert_int_equal(m2->meta_dirs, 1);
    assert_int_equal(m2->meta_shared, 1);
    assert_int_equal(m2->meta_sync, 1);
    assert_string_equal(m2->filename_format, "md2-set.$jobnum");
    s_assert_round_trip(p);
    rb_plan_destroy(&p);

    /* a section named J.OP with the single operation OP is that step of J: its files are J's,
     * so steps written one by one share their files; meta_renamed may be given */
    p = s_parse_str("[t.create]\nrw=meta\nmeta_files=3\nmeta_ops=create\nmeta_depth=2\n"
                    "[t.rename]\nrw=meta\nmeta_files=3\nmeta_ops=rename\nmeta_depth=2\n"
                    "[t.delete]\nrw=meta\nmeta_files=3\nmeta_ops=delete\nmeta_depth=2\n"
                    "meta_renamed\n"
                    "[u.stat]\nrw=meta\nmeta_files=3\nmeta_ops=create\n");
    assert_int_equal(p->nphases, 4);
    assert_string_equal(p->phases[0].name, "t.create");
    assert_string_equal(p->phases[1].name, "t.rename");
    assert_string_equal(p->phases[2].name, "t.delete");
    for (uint32_t i = 0; i < 3; i++) {
        assert_string_equal(p->phases[i].jobs[0].filename_format, "t");
        assert_int_equal(p->phases[i].jobs[0].meta_renamed, i == 2);
    }
    assert_string_equal(p->phases[3].name, "u.stat.create");
    assert_string_equal(p->phases[3].jobs[0].filename_format, "u.stat");
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
}

static void test_meta_print(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\ndirectory=/d\n[m]\nrw=meta\nmeta_files=2k\n"
                               "meta_ops=create,rename\nmeta_filesize=8k\nmeta_branch=3\n");
    char *text = s_print(p, NULL);
    static const char want[] = "\n[m.rename]\n"
                               "stonewall\n"
                               "rw=meta\n"
                               "meta_ops=rename\n"
                               "meta_files=2048\n"
                               "meta_filesize=8k\n"
                               "meta_dirs=1\n"
                               "meta_depth=0\n"
                               "meta_branch=3\n"
                               "meta_order=sequential\n"
                               "meta_shared_dir=0\n"
                               "meta_sync=0\n"
                               "meta_renamed=0\n"
                               "numjobs=1\n"
                               "randrepeat=1\n"
                               "randseed=137\n"
                               "directory=/d\n"
                               "filename_format=m\n";
    if (!strstr(text, want))
        fail_msg("printed plan lacks the rename step:\n%s", text);
    assert_non_null(strstr(text, "\n[m.create]\nrw=meta\nmeta_ops=create\n"));
    assert_null(strstr(text, "\nbs="));
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
}

/* A find step prints its meta_find_* (only when set) and reads back the same. */
static void test_meta_find_print(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str("[global]\nmeta_files=10\n[h.create]\nrw=meta\nmeta_ops=create\n"
                               "[h.find]\nrw=meta\nmeta_ops=find\nmeta_find_name=*01*\n"
                               "meta_find_size=3901\nmeta_find_newer\n");
    const rb_job_spec_t *f = &p->phases[1].jobs[0];
    assert_int_equal(f->meta_op, RB_META_FIND);
    assert_string_equal(f->meta_find_name, "*01*");
    assert_int_equal(f->meta_find_size, 3901);
    assert_int_equal(f->meta_find_newer, 1);
    assert_int_equal(f->read_shift, 0);
    char *text = s_print(p, NULL);
    assert_non_null(strstr(text, "meta_renamed=0\nmeta_find_name=*01*\nmeta_find_size=3901\n"
                                 "meta_find_newer=1\n"));
    /* the create step sets none of them: it prints none */
    const char *create = strstr(text, "[h.create]"), *find = strstr(text, "[h.find]");
    assert_non_null(create);
    assert_non_null(find);
    const char *first = strstr(create, "meta_find");
    assert_true(first > find);
    free(text);
    s_assert_round_trip(p);
    rb_plan_destroy(&p);
}

static void test_fuzz(void **state)
{
    (void)state;
    /* the mutations must leave some plans valid, or the round trip is not exercised */
    assert_true(s_fuzz(s_full, 20000) > 100);
    assert_true(s_fuzz(s_every, 20000) > 100);
    assert_true(s_fuzz(s_meta, 20000) > 100);
    assert_true(s_fuzz(s_accept, 20000) > 100);
    assert_true(s_fuzz(s_capacity, 20000) > 100);
}

/* test_plan --mutations: only the mutation run (the fuzz tier); otherwise
 * every case but it (the unit tier). */
int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--mutations") == 0) {
        const struct CMUnitTest mutations[] = {cmocka_unit_test(test_fuzz)};
        return cmocka_run_group_tests_name("plan mutations", mutations, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_plan),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_crlf),
        cmocka_unit_test(test_global_after_job),
        cmocka_unit_test(test_fio_style_inline_comments),
        cmocka_unit_test(test_error_options),
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_network_jobs),
        cmocka_unit_test(test_fio_syntax),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_issue33_expansion_bounds),
        cmocka_unit_test(test_issue33_values_stay_values),
        cmocka_unit_test(test_issue33_include_not_echoed),
        cmocka_unit_test(test_issue33_bom),
        cmocka_unit_test(test_issue33_long_plans_noted),
        cmocka_unit_test(test_every_option),
        cmocka_unit_test(test_aliases),
        cmocka_unit_test(test_velocibunny),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_filename),
        cmocka_unit_test(test_buffers),
        cmocka_unit_test(test_sync_and_verify),
        cmocka_unit_test(test_job_names_as_fio),
        cmocka_unit_test(test_device_percent),
        cmocka_unit_test(test_ignored_notes),
        cmocka_unit_test(test_fio_logs),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_across_nodes),
        cmocka_unit_test(test_read_random),
        cmocka_unit_test(test_iterations),
        cmocka_unit_test(test_issue37_sweep),
        cmocka_unit_test(test_lustre_stripes),
        cmocka_unit_test(test_random_distribution),
        cmocka_unit_test(test_rw_modifiers),
        cmocka_unit_test(test_zones),
        cmocka_unit_test(test_zbd),
        cmocka_unit_test(test_file_service),
        cmocka_unit_test(test_job_named_after_device),
        cmocka_unit_test(test_io_limits_and_files),
        cmocka_unit_test(test_racks),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_meta_expansion),
        cmocka_unit_test(test_meta_defaults),
        cmocka_unit_test(test_meta_print),
        cmocka_unit_test(test_meta_find_print),
        cmocka_unit_test(test_steadystate),
        cmocka_unit_test(test_latency_target),
        cmocka_unit_test(test_buffer_contents),
        cmocka_unit_test(test_dedupe_mode),
        cmocka_unit_test(test_rate_floors),
        cmocka_unit_test(test_exitall),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_engine_options),
        cmocka_unit_test(test_flow_wait_for),
        cmocka_unit_test(test_ioprio),
        cmocka_unit_test(test_fill_device_write_hint),
        cmocka_unit_test(test_size_from_file),
    };
    return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
