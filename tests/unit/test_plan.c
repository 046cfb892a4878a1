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
#include <unistd.h>

#include <cmocka.h>

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

static void s_assert_job_equal(const rb_job_spec_t *a, const rb_job_spec_t *b)
{
    assert_string_equal(a->name, b->name);
    assert_int_equal(a->rw, b->rw);
    assert_int_equal(a->bs, b->bs);
    assert_int_equal(a->size, b->size);
    assert_int_equal(a->numjobs, b->numjobs);
    assert_int_equal(a->direct, b->direct);
    assert_int_equal(a->time_based, b->time_based);
    assert_int_equal(a->runtime_ns, b->runtime_ns);
    assert_string_equal(a->directory, b->directory);
    assert_string_equal(a->filename_format, b->filename_format);
}

static void s_assert_plan_equal(const rb_plan_t *a, const rb_plan_t *b)
{
    assert_int_equal(a->interval_ns, b->interval_ns);
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
    assert_int_equal(rb_phase_workers(ph), 5);

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
    assert_int_equal(rb_phase_workers(ph), 1);

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
    {"[a]\nsize=1M\n\nioengine=libaio\n", 4, "option 'ioengine' is not supported yet"},
    {"[global]\nrwmixread=70\n[a]\nsize=1M\n", 2, "option 'rwmixread' is not supported yet"},
    {"[a]\nsize=1M\nrw=randread\n", 3, "rw=randread is not supported yet"},
    {"[a]\nsize=1M\nreadwrite=randrw\n", 3, "readwrite=randrw is not supported yet"},
    {"[a]\nsize=1M\nrw=trim\n", 3, "rw=trim is not supported yet"},
    {"[a]\nsize=1M\nrw=sideways\n", 3, "bad value 'sideways' for rw"},
    {"[a]\nsize=1M\nrw=write;x\n", 3, "bad value 'write;x' for rw"},
    {"[a]\nsize=1M\nrw=write:4k\n", 3, "rw=write:4k is not supported yet"},
    {"[a]\nsize=1M\n[acceptance]\nmin_bw=1G\n", 3, "section [acceptance] is not supported yet"},
    {"[capacity]\n", 1, "section [capacity] is not supported yet"},
    {"[global]\n\n[rack r1]\n", 3, "section [rack r1] is not supported yet"},
    {"[a]\nsize=1M\nbs=4q\n", 3, "bad size '4q' for bs"},
    {"[a]\nsize=-1M\n", 2, "bad size '-1M' for size"},
    {"[a]\nsize=1M\nbs=0\n", 3, "bs must be greater than 0"},
    {"[a]\nsize=0\n", 2, "size must be greater than 0"},
    {"[a]\nsize=1M\nbs=4k,8k\n", 3, "not supported yet"},
    {"[a]\nsize=50%\n", 2, "not supported yet"},
    {"[a]\nsize=1M\nnumjobs=0\n", 3, "numjobs=0 is out of range (1..4096)"},
    {"[a]\nsize=1M\nnumjobs=4097\n", 3, "numjobs=4097 is out of range"},
    {"[a]\nsize=1M\nnumjobs=99999999999999999999\n", 3, "out of range"},
    {"[a]\nsize=1M\nnumjobs=-2\n", 3, "bad number '-2' for numjobs"},
    {"[a]\nsize=1M\nruntime=10x\n", 3, "bad duration '10x' for runtime"},
    {"[a]\nsize=1M\nruntime=-5\n", 3, "bad duration '-5' for runtime"},
    {"[global]\nsample_interval=10ms\n[a]\nsize=1M\n", 2, "sample_interval=10ms is out of range"},
    {"[global]\nsample_interval=2h\n[a]\nsize=1M\n", 2, "sample_interval=2h is out of range"},
    {"[a]\nsize=1M\nsample_interval=1s\n", 3, "'sample_interval' belongs in [global]"},
    {"[global]\nname=x\n[a]\nsize=1M\n", 2, "'name' belongs in a job section"},
    {"[a]\n\nbs=1M\nsize=4k\n", 1, "job 'a': bs 1M is larger than size 4k"},
    {"[global]\nbs=4k\n\n[a]\nsize=10k\n", 4, "job 'a': size 10k is not a multiple of bs 4k"},
    {"[a]\nsize=1M\n[b]\nsize=1M\n\n[a]\nsize=1M\n", 6, "duplicate job name 'a' (first at line 1)"},
    {"[a]\nsize=1M\n[b]\nname=a\nsize=1M\n", 3, "duplicate job name 'a'"},
    {"[my job]\nsize=1M\n", 1, "job name 'my job' has a character other than"},
    {"[a]\nname=x/y\nsize=1M\n", 2, "job name 'x/y' has a character other than"},
    {"[a]\nsize=1M\nname = global\n", 3, "job name 'global' is reserved"},
    {"[abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij1234]\nsize=1M\n", 1,
     "is longer than 63 characters"},
    {"[global]\nbs=4k\n\n[a]\nrw=write\n", 4, "job 'a' has no size"},
    {"[a]\nsize=1M\ntime_based\n", 1, "job 'a': time_based needs a runtime"},
    {"[a]\nsize=1M\nruntime=0\ntime_based\n", 1, "time_based needs a runtime"},
    {"[a]\nsize=1M\nsize\n", 3, "option 'size' needs a value"},
    {"[a]\nsize=1M\nfrobnicate\n", 3, "unknown option 'frobnicate'"},
    {"[a\nsize=1M\n", 1, "'[' without ']'"},
    {"[a]\nsize=1M\n[b] junk\n", 3, "text after ']'"},
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
    {"[a]\nsize=1M\ndirectory=/a:/b\n", 3, "separated by ':' are not supported yet"},
    {"[a]\r\nsize=1M\r\nbogus=1\r\n", 3, "unknown option 'bogus'"},
    {"[a]\nsize=1M\n\n\0\n", 4, "NUL byte"},
    {"[global]\nsize=1M\n", 0, "the plan has no jobs"},
    {"", 0, "the plan has no jobs"},
    {"; only comments\n\n", 0, "the plan has no jobs"},
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
    assert_int_equal(rb_phase_workers(&p->phases[0]), RB_MAX_JOBS);
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

static void test_round_trip(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse_str(s_full);
    size_t len = 0;
    char *text = s_print(p, &len);
    /* normalised: every option explicit, one stonewall for two phases */
    assert_non_null(strstr(text, "[global]\nsample_interval=500ms\ndirectory=/data/bench\n"));
    assert_non_null(strstr(text, "\n[seqwrite]\nrw=write\nbs=1M\nsize=64M\nnumjobs=4\ndirect=1\n"
                                 "runtime=30s\ntime_based=1\ndirectory=/data/bench\n"
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
    snprintf(want, sizeof want, "%s:3: unknown option 'iodepht'", path);
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

/* Random damage to a valid plan never crashes; what parses also round-trips. */
static void test_fuzz(void **state)
{
    (void)state;
    static const char alphabet[] = "[]=;# \t\r\n\0abkKmMgG0123456789$/:-._\x80\xff";
    const size_t base = strlen(s_full);
    char buf[4096];
    unsigned accepted = 0;
    for (unsigned iter = 0; iter < 20000; iter++) {
        size_t len = base;
        memcpy(buf, s_full, base);
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
            s_assert_round_trip(p);
            rb_plan_destroy(&p);
        } else {
            assert_int_equal(rc, -EINVAL);
            assert_ptr_equal(p, &sentinel);
            assert_int_equal(strncmp(err.msg, "f.ini:", 6), 0);
        }
    }
    /* the mutations must leave some plans valid, or the round trip is not exercised */
    assert_true(accepted > 100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_plan),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_crlf),
        cmocka_unit_test(test_global_after_job),
        cmocka_unit_test(test_fio_style_inline_comments),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_fuzz),
    };
    return cmocka_run_group_tests_name("plan", tests, NULL, NULL);
}
