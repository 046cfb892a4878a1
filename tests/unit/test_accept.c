/* Guards the acceptance checks: every key and unit of [acceptance] sections,
 * every error with its line, how phases= names phases, and the verdicts on
 * hand-made phase figures (boundaries, node spread, n/a rows, phases that
 * did not run), down to the table and summary.json object. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rb_accept.h"
#include "rb_json.h"
#include "rb_plan.h"
#include "rb_report.h"

#define GIB (1024ull * 1024 * 1024)
#define MS  1000000ull

/* Two data phases (the second with two jobs) and a metadata job of two steps. */
static const char s_jobs[] = "[global]\n"             /* 1 */
                             "directory=/data\n"      /* 2 */
                             "size=1M\n"              /* 3 */
                             "[stream-write]\n"       /* 4 */
                             "rw=write\n"             /* 5 */
                             "[stream-read]\n"        /* 6 */
                             "stonewall\n"            /* 7 */
                             "rw=read\n"              /* 8 */
                             "[side-read]\n"          /* 9 */
                             "rw=randread\n"          /* 10 */
                             "[md]\n"                 /* 11 */
                             "rw=meta\n"              /* 12 */
                             "meta_ops=create,stat\n" /* 13 */
                             "meta_files=100\n";      /* 14 */

static rb_plan_t *s_parse(const char *tail)
{
    char text[4096];
    snprintf(text, sizeof text, "%s%s", s_jobs, tail);
    rb_plan_t *p = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_plan_parse(text, strlen(text), "t.ini", &p, &err) != 0)
        fail_msg("parse failed: %s", err.msg);
    return p;
}

/* Expects the plan s_jobs + tail to be refused at line with what in the message. */
static void s_expect_error(const char *tail, unsigned line, const char *what)
{
    char text[4096], prefix[64];
    snprintf(text, sizeof text, "%s%s", s_jobs, tail);
    rb_plan_t *p = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    int rc = rb_plan_parse(text, strlen(text), "t.ini", &p, &err);
    if (rc != -EINVAL)
        fail_msg("expected -EINVAL for\n%s\ngot %d (%s)", tail, rc, err.msg);
    assert_null(p);
    snprintf(prefix, sizeof prefix, "t.ini:%u: ", line);
    if (strncmp(err.msg, prefix, strlen(prefix)) != 0 || !strstr(err.msg, what))
        fail_msg("for\n%s\nexpected \"%s...%s\", got \"%s\"", tail, prefix, what, err.msg);
}

static void test_parse(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse("[acceptance]\n"                       /* 15 */
                           "min_aggregate_bw=10G   ; per phase\n" /* 16 */
                           "min_node_bw = 1.2G\n"                 /* 17 */
                           "max_node_spread=25%\n"                /* 18 */
                           "max_p99_lat=5ms\n"                    /* 19 */
                           "max_p999_lat=1.5s\n"                  /* 20 */
                           "max_mean_lat=800us\n"                 /* 21 */
                           "min_iops=20000\n"                     /* 22 */
                           "min_nodes=8\n"                        /* 23 */
                           "max_errors=0\n"                       /* 24 */
                           "phases=stream-write, side-read\n"     /* 25 */
                           "\n"
                           "[acceptance metadata]\n" /* 27 */
                           "phases=md\n"
                           "min_iops=5000\n"
                           "max_mean_lat=2ms\n"
                           "[acceptance nodes]\n"
                           "min_node_bw=100M/s\n"
                           "max_node_spread=7.5%\n");
    assert_int_equal(p->nphases, 4);
    const rb_accept_t *a = p->accept;
    assert_non_null(a);
    assert_int_equal(a->nsets, 3);
    const rb_accept_set_t *s = &a->sets[0];
    assert_string_equal(s->name, "");
    assert_int_equal(s->line, 15);
    assert_int_equal(s->limit[RB_ACCEPT_MIN_AGGREGATE_BW], 10 * GIB);
    assert_int_equal(s->limit_line[RB_ACCEPT_MIN_AGGREGATE_BW], 16);
    /* 1.2 GiB/s = 1288490188.8, to the nearest byte */
    assert_int_equal(s->limit[RB_ACCEPT_MIN_NODE_BW], 1288490189ull);
    assert_int_equal(s->limit[RB_ACCEPT_MAX_NODE_SPREAD], 250000);
    assert_int_equal(s->limit[RB_ACCEPT_MAX_P99_LAT], 5 * MS);
    assert_int_equal(s->limit[RB_ACCEPT_MAX_P999_LAT], 1500 * MS);
    assert_int_equal(s->limit[RB_ACCEPT_MAX_MEAN_LAT], 800000);
    assert_int_equal(s->limit[RB_ACCEPT_MIN_IOPS], 20000);
    assert_int_equal(s->limit[RB_ACCEPT_MIN_NODES], 8);
    assert_int_equal(s->limit[RB_ACCEPT_MAX_ERRORS], 0);
    assert_int_equal(s->limit_line[RB_ACCEPT_MAX_ERRORS], 24);
    /* side-read is the second job of phase stream-read: it names that phase */
    assert_int_equal(s->nphases, 2);
    assert_int_equal(s->phases[0], 0);
    assert_int_equal(s->phases[1], 1);
    /* a metadata job's name stands for all its steps */
    s = &a->sets[1];
    assert_string_equal(s->name, "metadata");
    assert_int_equal(s->nphases, 2);
    assert_string_equal(p->phases[s->phases[0]].name, "md.create");
    assert_string_equal(p->phases[s->phases[1]].name, "md.stat");
    assert_int_equal(s->limit[RB_ACCEPT_MAX_MEAN_LAT], 2 * MS);
    assert_int_equal(s->limit_line[RB_ACCEPT_MIN_AGGREGATE_BW], 0);
    /* no phases=: every phase */
    s = &a->sets[2];
    assert_null(s->phases_text);
    assert_int_equal(s->nphases, 4);
    assert_int_equal(s->limit[RB_ACCEPT_MIN_NODE_BW], 100ull << 20);
    assert_int_equal(s->limit[RB_ACCEPT_MAX_NODE_SPREAD], 75000);

    /* printed normalised, and read back the same */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(rb_plan_print(p, f), 0);
    fclose(f);
    assert_non_null(strstr(text, "\n[acceptance]\nphases=stream-write,stream-read\n"
                                 "min_aggregate_bw=10G\nmin_node_bw=1288490189\n"
                                 "max_node_spread=25%\nmax_p99_lat=5ms\nmax_p999_lat=1500ms\n"
                                 "max_mean_lat=800us\nmin_iops=20000\nmin_nodes=8\n"
                                 "max_errors=0\n"));
    assert_non_null(strstr(text, "\n[acceptance metadata]\nphases=md.create,md.stat\n"
                                 "max_mean_lat=2ms\nmin_iops=5000\n"));
    assert_non_null(strstr(text, "\n[acceptance nodes]\nmin_node_bw=100M\n"
                                 "max_node_spread=7.5%\n"));
    rb_plan_t *q = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    if (rb_plan_parse(text, len, "printed.ini", &q, &err) != 0)
        fail_msg("re-parse failed: %s\n%s", err.msg, text);
    assert_int_equal(q->accept->nsets, 3);
    for (uint32_t i = 0; i < 3; i++) {
        const rb_accept_set_t *x = &p->accept->sets[i], *y = &q->accept->sets[i];
        assert_string_equal(x->name, y->name);
        assert_memory_equal(x->limit, y->limit, sizeof x->limit);
        for (int c = 0; c < RB_ACCEPT_NCHECKS; c++)
            assert_int_equal(x->limit_line[c] != 0, y->limit_line[c] != 0);
        assert_int_equal(x->nphases, y->nphases);
        assert_memory_equal(x->phases, y->phases, x->nphases * sizeof *x->phases);
    }
    rb_plan_destroy(&q);
    free(text);
    rb_plan_destroy(&p);

    /* percentages to four decimals, printed without trailing zeros */
    static const struct {
        const char *in, *out;
        uint64_t millionths;
    } pct[] = {{"0%", "0%", 0},
               {"0.0125%", "0.0125%", 125},
               {"33.3000%", "33.3%", 333000},
               {"100%", "100%", 1000000},
               {"10000%", "10000%", 100000000}};
    for (size_t i = 0; i < sizeof pct / sizeof pct[0]; i++) {
        char tail[128], want[64];
        snprintf(tail, sizeof tail, "[acceptance]\nmax_node_spread=%s\n", pct[i].in);
        p = s_parse(tail);
        assert_int_equal(p->accept->sets[0].limit[RB_ACCEPT_MAX_NODE_SPREAD], pct[i].millionths);
        f = open_memstream(&text, &len);
        assert_int_equal(rb_plan_print(p, f), 0);
        fclose(f);
        snprintf(want, sizeof want, "\nmax_node_spread=%s\n", pct[i].out);
        assert_non_null(strstr(text, want));
        free(text);
        rb_plan_destroy(&p);
    }

    /* a plan without the section has none */
    p = s_parse("");
    assert_null(p->accept);
    rb_plan_destroy(&p);
    /* sections in any place, a job after one */
    p = s_parse("[acceptance]\nmax_errors=0\n[late]\nsize=1M\nstonewall\n");
    assert_int_equal(p->nphases, 5);
    assert_int_equal(p->accept->sets[0].nphases, 5);
    rb_plan_destroy(&p);
}

static const struct {
    const char *tail; /* after s_jobs' 14 lines */
    unsigned line;
    const char *what;
} s_bad[] = {
    {"[acceptance]\nmin_bw=1G\n", 16,
     "unknown option 'min_bw' in [acceptance] (min_aggregate_bw, min_node_bw"},
    {"[acceptance x]\nsize=1G\n", 16, "unknown option 'size' in [acceptance x]"},
    {"[acceptance]\nmin_iops=1\nmin_iops=2\n", 17,
     "option 'min_iops' is given twice in [acceptance] (first at line 16)"},
    {"[acceptance]\nphases=md\nmin_iops=1\nphases=md\n", 18, "option 'phases' is given twice"},
    {"[acceptance]\nmin_iops\n", 16, "option 'min_iops' needs a value (min_iops=...)"},
    {"[acceptance]\nmin_iops=\n", 16, "option 'min_iops' needs a value"},
    {"[acceptance]\n", 15, "[acceptance] has no checks (min_aggregate_bw"},
    {"[acceptance]\nphases=md\n[x]\nsize=1M\n", 15, "[acceptance] has no checks"},
    {"[acceptance]\nmin_iops=1\n[acceptance]\nmax_errors=0\n", 17,
     "section [acceptance] appears twice (first at line 15)"},
    {"[acceptance a]\nmin_iops=1\n[acceptance  a]\nmax_errors=0\n", 17,
     "section [acceptance a] appears twice (first at line 15)"},
    {"[acceptance a b]\nmin_iops=1\n", 15,
     "acceptance set name 'a b' has a character other than A-Z a-z 0-9 . _ -"},
    /* values */
    {"[acceptance]\nmin_aggregate_bw=fast\n", 16,
     "bad bandwidth 'fast' for min_aggregate_bw (bytes/s: a number with k, M, G, T or P"},
    {"[acceptance]\nmin_aggregate_bw=1.2.3G\n", 16, "bad bandwidth '1.2.3G'"},
    {"[acceptance]\nmin_aggregate_bw=1G/h\n", 16, "bad bandwidth '1G/h'"},
    {"[acceptance]\nmin_aggregate_bw=-1G\n", 16, "bad bandwidth '-1G'"},
    {"[acceptance]\nmin_aggregate_bw=.5G\n", 16, "bad bandwidth '.5G'"},
    {"[acceptance]\nmin_aggregate_bw=5.G\n", 16, "bad bandwidth '5.G'"},
    {"[acceptance]\nmin_node_bw=0\n", 16, "min_node_bw must be greater than 0"},
    {"[acceptance]\nmin_node_bw=0.0000001\n", 16, "min_node_bw must be greater than 0"},
    {"[acceptance]\nmin_node_bw=20000000P\n", 16, "min_node_bw=20000000P is too large"},
    {"[acceptance]\nmax_node_spread=0.25\n", 16,
     "bad value '0.25' for max_node_spread (a percentage with '%', e.g. 25% or 7.5%)"},
    {"[acceptance]\nmax_node_spread=25\n", 16, "bad value '25' for max_node_spread"},
    {"[acceptance]\nmax_node_spread=25 %\n", 16, "bad value '25 %' for max_node_spread"},
    {"[acceptance]\nmax_node_spread=%\n", 16, "bad value '%' for max_node_spread"},
    {"[acceptance]\nmax_node_spread=1.23456%\n", 16,
     "max_node_spread=1.23456% is out of range (0% to 10000%, at most 4 decimals)"},
    {"[acceptance]\nmax_node_spread=10001%\n", 16, "max_node_spread=10001% is out of range"},
    {"[acceptance]\nmax_p99_lat=5\n", 16,
     "bad duration '5' for max_p99_lat (a number with a unit: ns, us, ms or s, e.g. 5ms)"},
    {"[acceptance]\nmax_p999_lat=5 ms\n", 16, "bad duration '5 ms' for max_p999_lat"},
    {"[acceptance]\nmax_mean_lat=0ms\n", 16, "max_mean_lat must be greater than 0"},
    {"[acceptance]\nmin_iops=2.5\n", 16, "bad number '2.5' for min_iops"},
    {"[acceptance]\nmin_iops=20k\n", 16, "bad number '20k' for min_iops"},
    {"[acceptance]\nmin_iops=0\n", 16, "min_iops=0 is out of range (1 or more)"},
    {"[acceptance]\nmin_nodes=0\n", 16, "min_nodes=0 is out of range (1..100000)"},
    {"[acceptance]\nmin_nodes=-1\n", 16, "bad number '-1' for min_nodes"},
    {"[acceptance]\nmax_errors=none\n", 16, "bad number 'none' for max_errors"},
    {"[acceptance]\nmax_errors=99999999999999999999\n", 16, "is too large"},
    /* the drive checks */
    {"[acceptance]\nrequire_smart_pass=yes\n", 16,
     "bad value 'yes' for require_smart_pass (1: every drive's own verdict must be PASSED; 0: "
     "not judged)"},
    {"[acceptance]\nmax_drive_temperature=0\n", 16,
     "bad value '0' for max_drive_temperature (whole degrees Celsius, 1 to 200)"},
    {"[acceptance]\nmax_drive_temperature=45.5\n", 16,
     "bad value '45.5' for max_drive_temperature"},
    {"[acceptance]\nmax_reallocated_growth=-1\n", 16, "bad number '-1' for max_reallocated_growth"},
    {"[acceptance]\nmax_media_errors_growth=some\n", 16,
     "bad number 'some' for max_media_errors_growth"},
    /* phases */
    {"[acceptance]\nmin_iops=1\nphases=stream-write,nope\n", 17,
     "phases: 'nope' in [acceptance] is neither a phase nor a job of the plan (phases: "
     "stream-write, stream-read, md.create, md.stat)"},
    {"[acceptance]\nphases=md.delete\nmin_iops=1\n", 16, "phases: 'md.delete' in [acceptance]"},
    {"[acceptance]\nphases=stream-write,,md\nmin_iops=1\n", 16,
     "phases=stream-write,,md has an empty entry"},
    {"[acceptance]\nphases=md,\nmin_iops=1\n", 16, "has an empty entry"},
    {"[acceptance]\nphases=md, md\nmin_iops=1\n", 16, "phases: 'md' is listed twice"},
    {"[acceptance]\nphases=a/b\nmin_iops=1\n", 16, "phases: 'a/b' is not a phase name"},
    /* bandwidth on metadata steps */
    {"[acceptance]\nphases=stream-write,md.stat\nmin_iops=1\nmin_aggregate_bw=1G\n", 16,
     "phases: 'md.stat' is a metadata step, and min_aggregate_bw (line 18) does not apply to "
     "it"},
    {"[acceptance]\nphases=md\nmax_node_spread=10%\n", 16,
     "phases: 'md.create' is a metadata step, and max_node_spread (line 17)"},
};

static void test_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof s_bad / sizeof s_bad[0]; i++)
        s_expect_error(s_bad[i].tail, s_bad[i].line, s_bad[i].what);
    /* "acceptancex" is an ordinary job name; "acceptance" is reserved */
    rb_plan_t *p = s_parse("[acceptancex]\n");
    assert_null(p->accept);
    rb_plan_destroy(&p);
    s_expect_error("[x]\nname=acceptance\n", 16, "job name 'acceptance' is reserved");

    /* a bandwidth check where every phase is a metadata step can never be judged */
    const char *meta = "[m]\nrw=meta\nmeta_files=1\n[acceptance]\nmin_iops=1\nmin_node_bw=1G\n";
    rb_plan_t *q = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    assert_int_equal(rb_plan_parse(meta, strlen(meta), "m.ini", &q, &err), -EINVAL);
    assert_string_equal(err.msg, "m.ini:6: min_node_bw in [acceptance] applies to no phase: every "
                                 "phase is a metadata step, which is measured in operations "
                                 "(use min_iops)");
    /* too many sets */
    char big[16384];
    size_t n = 0;
    n += (size_t)snprintf(big + n, sizeof big - n, "[w]\nsize=1M\n");
    for (int i = 0; i <= RB_ACCEPT_MAX_SETS; i++)
        n += (size_t)snprintf(big + n, sizeof big - n, "[acceptance s%d]\nmax_errors=0\n", i);
    rb_err_clear(&err);
    assert_int_equal(rb_plan_parse(big, n, "b.ini", &q, &err), -EINVAL);
    assert_non_null(strstr(err.msg, "more than 64 acceptance sections"));
}

/* Hand-made figures of one phase. */
typedef struct {
    rb_phase_agg_t agg;
    rb_agg_node_t nodes[8];
} s_phase_t;

static void s_phase(s_phase_t *ph, const char *name, double aggregate_bw, double iops,
                    const double *node_bw, const rb_node_status_t *status, uint32_t nnodes)
{
    memset(ph, 0, sizeof *ph);
    snprintf(ph->agg.name, sizeof ph->agg.name, "%s", name);
    rb_hist_init(&ph->agg.hist);
    ph->agg.aggregate_bw = aggregate_bw;
    ph->agg.iops = iops;
    ph->agg.nnodes = nnodes;
    ph->agg.nodes = ph->nodes;
    for (uint32_t i = 0; i < nnodes; i++) {
        snprintf(ph->nodes[i].name, sizeof ph->nodes[i].name, "n%u", i);
        ph->nodes[i].bw = node_bw[i];
        ph->nodes[i].status = status ? status[i] : RB_NODE_OK;
    }
}

static const rb_accept_row_t *s_row(const rb_accept_result_t *r, const char *set, const char *phase,
                                    rb_accept_check_t c)
{
    for (uint32_t i = 0; i < r->nrows; i++)
        if (!strcmp(r->rows[i].set, set) && !strcmp(r->rows[i].phase, phase) &&
            r->rows[i].check == c)
            return &r->rows[i];
    fail_msg("no row %s/%s/%s", set, phase, rb_accept_check_name(c));
    return NULL;
}

/* Every phase passes and fails exactly at its limits. */
static void test_eval_boundaries(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse("[acceptance]\n"
                           "phases=stream-write,stream-read\n"
                           "min_aggregate_bw=1000\n"
                           "min_iops=20\n"
                           "max_p99_lat=5ms\n"
                           "max_mean_lat=5ms\n"
                           "max_errors=2\n"
                           "min_nodes=3\n");
    static s_phase_t ph[4];
    const double bw[] = {400, 300, 300};
    /* stream-write: everything exactly at the limit passes */
    s_phase(&ph[0], "stream-write", 1000, 20, bw, NULL, 3);
    for (int i = 0; i < 10; i++)
        rb_hist_record(&ph[0].agg.hist, 5 * MS);
    ph[0].agg.errors = 1;
    ph[0].agg.verify_errors = 1;
    /* stream-read: everything just past the limit fails */
    const rb_node_status_t st[] = {RB_NODE_OK, RB_NODE_OK, RB_NODE_FAILED};
    s_phase(&ph[1], "stream-read", 999.999, 19.99, bw, st, 3);
    for (int i = 0; i < 10; i++)
        rb_hist_record(&ph[1].agg.hist, 5 * MS + 1);
    ph[1].agg.errors = 2;
    ph[1].agg.verify_errors = 1;
    rb_phase_agg_t aggs[4];
    for (int i = 0; i < 2; i++)
        aggs[i] = ph[i].agg;

    rb_accept_result_t r;
    assert_int_equal(rb_accept_result_eval(p->accept, p->phases, p->iters, p->nphases, aggs, 2, &r),
                     0);
    assert_int_equal(r.nrows, 12);
    assert_int_equal(r.nna, 0);
    assert_int_equal(r.nfailed, 6);
    for (uint32_t i = 0; i < 6; i++) {
        assert_string_equal(r.rows[i].phase, "stream-write");
        assert_int_equal(r.rows[i].verdict, RB_ACCEPT_PASS);
        assert_null(r.rows[i].note);
        assert_string_equal(r.rows[i + 6].phase, "stream-read");
        assert_int_equal(r.rows[i + 6].verdict, RB_ACCEPT_FAIL);
    }
    /* rows in check order; limits and measured values in summary.json's units */
    assert_int_equal(r.rows[0].check, RB_ACCEPT_MIN_AGGREGATE_BW);
    assert_int_equal(r.rows[1].check, RB_ACCEPT_MAX_P99_LAT);
    assert_int_equal(r.rows[4].check, RB_ACCEPT_MIN_NODES);
    assert_int_equal(r.rows[5].check, RB_ACCEPT_MAX_ERRORS);
    const rb_accept_row_t *x = s_row(&r, "", "stream-write", RB_ACCEPT_MAX_P99_LAT);
    assert_float_equal(x->limit, 5000.0, 1e-9);
    assert_float_equal(x->measured, 5000.0, 1e-9);
    x = s_row(&r, "", "stream-write", RB_ACCEPT_MAX_ERRORS);
    assert_float_equal(x->measured, 2, 0);
    x = s_row(&r, "", "stream-read", RB_ACCEPT_MAX_ERRORS);
    assert_float_equal(x->measured, 3, 0); /* errors and verify errors */
    x = s_row(&r, "", "stream-read", RB_ACCEPT_MIN_NODES);
    assert_float_equal(x->measured, 2, 0); /* the failed node did not complete */
    x = s_row(&r, "", "stream-read", RB_ACCEPT_MAX_P99_LAT);
    assert_float_equal(x->measured, 5000.001, 1e-9);
    char buf[128];
    assert_string_equal(rb_accept_result_verdict(&r, buf, sizeof buf),
                        "acceptance: FAIL (6 of 12 checks failed)");
    rb_accept_result_fini(&r);
    rb_accept_result_fini(&r);

    /* the same figures for both phases: a pass */
    aggs[1] = ph[0].agg;
    assert_int_equal(rb_accept_result_eval(p->accept, p->phases, p->iters, p->nphases, aggs, 2, &r),
                     0);
    assert_int_equal(r.nfailed, 0);
    assert_string_equal(rb_accept_result_verdict(&r, buf, sizeof buf),
                        "acceptance: PASS (12 checks)");
    rb_accept_result_fini(&r);

    /* the run stopped after the first phase: the second fails with nothing measured */
    assert_int_equal(rb_accept_result_eval(p->accept, p->phases, p->iters, p->nphases, aggs, 1, &r),
                     0);
    assert_int_equal(r.nfailed, 6);
    x = s_row(&r, "", "stream-read", RB_ACCEPT_MAX_ERRORS);
    assert_true(isnan(x->measured));
    assert_int_equal(x->verdict, RB_ACCEPT_FAIL);
    assert_string_equal(x->note, "the phase did not run");
    rb_accept_result_fini(&r);
    rb_plan_destroy(&p);
}

/* (max - min) / median over the nodes that completed; min_node_bw counts the others as 0. */
static void test_eval_nodes(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse("[acceptance]\n"
                           "phases=stream-write,stream-read\n"
                           "min_node_bw=75\n"
                           "max_node_spread=25%\n");
    static s_phase_t ph[2];
    rb_phase_agg_t aggs[2];
    rb_accept_result_t r;

    /* odd count: median 100, (100 - 75) / 100 = 25%: both pass at the limit */
    const double odd[] = {100, 75, 100};
    s_phase(&ph[0], "stream-write", 1, 1, odd, NULL, 3);
    /* even count: median (80 + 100) / 2 = 90, (120 - 74) / 90 = 51.1% */
    const double even[] = {120, 74, 100, 80};
    s_phase(&ph[1], "stream-read", 1, 1, even, NULL, 4);
    aggs[0] = ph[0].agg;
    aggs[1] = ph[1].agg;
    assert_int_equal(rb_accept_result_eval(p->accept, p->phases, p->iters, p->nphases, aggs, 2, &r),
                     0);
    assert_int_equal(r.nrows, 4);
    const rb_accept_row_t *x = s_row(&r, "", "stream-write", RB_ACCEPT_MAX_NODE_SPREAD);
    assert_float_equal(x->measured, 25.0, 1e-9);
    assert_float_equal(x->limit, 25.0, 1e-12);
    assert_int_equal(x->verdict, RB_ACCEPT_PASS);
    x = s_row(&r, "", "stream-write", RB_ACCEPT_MIN_NODE_BW);
    assert_float_equal(x->measured, 75, 0);
    assert_int_equal(x->verdict, RB_ACCEPT_PASS);
    x = s_row(&r, "", "stream-read", RB_ACCEPT_MAX_NODE_SPREAD);
    assert_float_equal(x->measured, 46.0 / 90.0 * 100, 1e-9);
    assert_int_equal(x->verdict, RB_ACCEPT_FAIL);
    x = s_row(&r, "", "stream-read", RB_ACCEPT_MIN_NODE_BW);
    assert_float_equal(x->measured, 74, 0);
    assert_int_equal(x->verdict, RB_ACCEPT_FAIL);
    rb_accept_result_fini(&r);

    /* a lost node: min_node_bw sees 0 and fails, saying why; the spread is
     * over the nodes that completed (120, 100, 80: 40%) */
    const rb_node_status_t st[] = {RB_NODE_OK, RB_NODE_LOST, RB_NODE_OK, RB_NODE_OK};
    s_phase(&ph[1], "stream-read", 1, 1, even, st, 4);
    aggs[1] = ph[1].agg;
    assert_int_equal(rb_accept_result_eval(p->accept, p->phases, p->iters, p->nphases, aggs, 2, &r),
                     0);
    x = s_row(&r, "", "stream-read", RB_ACCEPT_MIN_NODE_BW);
    assert_float_equal(x->measured, 0, 0);
    assert_int_equal(x->verdict, RB_ACCEPT_FAIL);
    assert_string_equal(x->note, "a node did not complete the phase and counts as 0");
    x = s_row(&r, "", "stream-read", RB_ACCEPT_MAX_NODE_SPREAD);
    assert_float_equal(x->measured, 40.0, 1e-9);
    assert_string_equal(x->note, "over the nodes that completed the phase");
    rb_accept_result_fini(&r);

    /* one node: no spread; no node completed: nothing to measure, a fail */
    s_phase(&ph[0], "stream-write", 1, 1, odd, NULL, 1);
    const rb_node_status_t gone[] = {RB_NODE_FAILED, RB_NODE_MISSING};
    s_phase(&ph[1], "stream-read", 1, 1, odd, gone, 2);
    aggs[0] = ph[0].agg;
    aggs[1] = ph[1].agg;
    assert_int_equal(rb_accept_result_eval(p->accept, p->phases, p->iters, p->nphases, aggs, 2, &r),
                     0);
    x = s_row(&r, "", "stream-write", RB_ACCEPT_MAX_NODE_SPREAD);
    assert_float_equal(x->measured, 0, 0);
    assert_int_equal(x->verdict, RB_ACCEPT_PASS);
    x = s_row(&r, "", "stream-read", RB_ACCEPT_MAX_NODE_SPREAD);
    assert_true(isnan(x->measured));
    assert_int_equal(x->verdict, RB_ACCEPT_FAIL);
    assert_string_equal(x->note, "no node completed the phase");
    rb_accept_result_fini(&r);

    /* every node moved nothing: spread 0, not a division by zero */
    const double zero[] = {0, 0};
    s_phase(&ph[0], "stream-write", 0, 0, zero, NULL, 2);
    aggs[0] = ph[0].agg;
    assert_int_equal(rb_accept_result_eval(p->accept, p->phases, p->iters, p->nphases, aggs, 2, &r),
                     0);
    x = s_row(&r, "", "stream-write", RB_ACCEPT_MAX_NODE_SPREAD);
    assert_float_equal(x->measured, 0, 0);
    x = s_row(&r, "", "stream-write", RB_ACCEPT_MIN_NODE_BW);
    assert_int_equal(x->verdict, RB_ACCEPT_FAIL);
    rb_accept_result_fini(&r);
    rb_plan_destroy(&p);
}

/* issue 37: min_device_bw and min_device_iops name the disk they measured,
 * node and device as the report's disks table does; the mean of
 * iterations names none. */
static void test_eval_devices(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse("[acceptance]\n"
                           "phases=stream-write\n"
                           "min_device_bw=100\n"
                           "min_device_iops=10\n");
    static s_phase_t ph[2];
    rb_phase_agg_t aggs[2];
    rb_agg_disk_t d[3];
    memset(d, 0, sizeof d);
    const double bw[3] = {150, 90, 120}, iops[3] = {30, 40, 5};
    for (int i = 0; i < 3; i++) {
        snprintf(d[i].node, sizeof d[i].node, "n%d", i);
        static const char *path[] = {"/dev/disk/by-id/wwn-0", "/dev/disk/by-id/wwn-1",
                                     "/dev/disk/by-id/wwn-2"};
        d[i].id.path = path[i];
        snprintf(d[i].id.name, sizeof d[i].id.name, "sd%c", 'a' + i);
        d[i].bw = bw[i];
        d[i].iops = iops[i];
    }
    d[2].id.name[0] = '\0'; /* no kernel name: its path */
    const double nodes[] = {100, 100, 100};
    s_phase(&ph[0], "stream-write", 1, 1, nodes, NULL, 3);
    s_phase(&ph[1], "stream-read", 1, 1, nodes, NULL, 3);
    aggs[0] = ph[0].agg;
    aggs[1] = ph[1].agg;
    aggs[0].ndisks = 3;
    aggs[0].disks = d;
    rb_accept_result_t r;
    assert_int_equal(rb_accept_result_eval(p->accept, p->phases, p->iters, p->nphases, aggs, 2, &r),
                     0);
    char note[sizeof r.rows[0].what + 128];
    const rb_accept_row_t *x = s_row(&r, "", "stream-write", RB_ACCEPT_MIN_DEVICE_BW);
    assert_int_equal(x->verdict, RB_ACCEPT_FAIL);
    assert_string_equal(rb_accept_row_note(x, note, sizeof note), "the slowest disk: n1 sdb");
    x = s_row(&r, "", "stream-write", RB_ACCEPT_MIN_DEVICE_IOPS);
    assert_string_equal(rb_accept_row_note(x, note, sizeof note),
                        "the disk of fewest IOPS: n2 /dev/disk/by-id/wwn-2");
    rb_accept_result_fini(&r);
    /* no raw disk: the note alone */
    aggs[0].ndisks = 0;
    assert_int_equal(rb_accept_result_eval(p->accept, p->phases, p->iters, p->nphases, aggs, 2, &r),
                     0);
    x = s_row(&r, "", "stream-write", RB_ACCEPT_MIN_DEVICE_BW);
    assert_string_equal(rb_accept_row_note(x, note, sizeof note), "the phase ran on no raw device");
    rb_accept_result_fini(&r);
    rb_plan_destroy(&p);
}

/* Bandwidth rows of metadata steps are n/a when phases= is left to its
 * default; a latency check with nothing recorded fails; named sets add rows. */
static void test_eval_na_and_sets(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse("[acceptance]\n"
                           "min_aggregate_bw=1k\n"
                           "max_p99_lat=1s\n"
                           "[acceptance md]\n"
                           "phases=md\n"
                           "min_iops=100\n");
    static s_phase_t ph[4];
    const double bw[] = {2048};
    rb_phase_agg_t aggs[4];
    for (int i = 0; i < 4; i++) {
        s_phase(&ph[i], p->phases[i].name, i < 2 ? 2048 : 0, 150, bw, NULL, 1);
        if (i != 1)
            rb_hist_record(&ph[i].agg.hist, 1000);
        aggs[i] = ph[i].agg;
    }
    rb_accept_result_t r;
    assert_int_equal(rb_accept_result_eval(p->accept, p->phases, p->iters, p->nphases, aggs, 4, &r),
                     0);
    assert_int_equal(r.nrows, 4 * 2 + 2);
    assert_int_equal(r.nna, 2);
    assert_int_equal(r.nfailed, 1);
    const rb_accept_row_t *x = s_row(&r, "", "md.create", RB_ACCEPT_MIN_AGGREGATE_BW);
    assert_int_equal(x->verdict, RB_ACCEPT_NA);
    assert_true(isnan(x->measured));
    assert_string_equal(x->note, "bandwidth does not apply to a metadata step");
    x = s_row(&r, "", "md.stat", RB_ACCEPT_MAX_P99_LAT);
    assert_int_equal(x->verdict, RB_ACCEPT_PASS);
    /* stream-read recorded no latency: not a silent pass */
    x = s_row(&r, "", "stream-read", RB_ACCEPT_MAX_P99_LAT);
    assert_int_equal(x->verdict, RB_ACCEPT_FAIL);
    assert_true(isnan(x->measured));
    assert_string_equal(x->note, "no latency was recorded");
    x = s_row(&r, "md", "md.stat", RB_ACCEPT_MIN_IOPS);
    assert_int_equal(x->verdict, RB_ACCEPT_PASS);
    assert_float_equal(x->measured, 150, 0);
    char buf[128];
    assert_string_equal(rb_accept_result_verdict(&r, buf, sizeof buf),
                        "acceptance: FAIL (1 of 8 checks failed; 2 not applicable)");

    /* what the report makes of it: the table, the verdict, the JSON object */
    rb_run_result_t res = {.run_id = "r1",
                           .plan_source = "t.ini",
                           .nphases = 4,
                           .specs = p->phases,
                           .phases = aggs,
                           .accept = &r,
                           .units = RB_UNITS_BOTH};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(rb_report_text(&res, f), 0);
    fclose(f);
    assert_non_null(strstr(text, "\nacceptance\n  set  phase         check             limit"));
    assert_non_null(strstr(text,
                           "\n  -    stream-write  min_aggregate_bw  >= 1.00 KiB/s (1.02 kB/s)"
                           "  2.00 KiB/s (2.05 kB/s)  PASS\n"));
    assert_non_null(strstr(text, "\n  -    stream-read   max_p99_lat       <= 1.00 s"));
    assert_non_null(strstr(text, "FAIL  (no latency was recorded)\n"));
    assert_non_null(strstr(text, "n/a   (bandwidth does not apply to a metadata step)\n"));
    assert_non_null(strstr(text, "\n  md   md.stat       min_iops          >= 100 IOPS"));
    assert_non_null(strstr(text, "\nacceptance: FAIL (1 of 8 checks failed; 2 not applicable)\n"));
    free(text);
    /* in one unit (IEC, the default) */
    res.units = RB_UNITS_IEC;
    f = open_memstream(&text, &len);
    assert_int_equal(rb_report_text(&res, f), 0);
    fclose(f);
    assert_non_null(strstr(text, "min_aggregate_bw  >= 1.00 KiB/s  2.00 KiB/s  PASS\n"));
    assert_null(strstr(text, "kB/s"));
    free(text);

    f = open_memstream(&text, &len);
    assert_int_equal(rb_report_json(&res, f), 0);
    fclose(f);
    rb_err_t err;
    rb_err_clear(&err);
    rb_json_t *j = rb_json_parse(text, len, &err);
    if (!j)
        fail_msg("summary.json: %s", err.msg);
    const rb_json_t *acc = rb_json_get(j, "acceptance");
    assert_false(rb_json_bool(rb_json_get(acc, "passed"), 1));
    const rb_json_t *checks = rb_json_get(acc, "checks");
    assert_int_equal(rb_json_len(checks), 10);
    const rb_json_t *c0 = rb_json_at(checks, 0);
    assert_int_equal(rb_json_type(rb_json_get(c0, "set")), RB_JSON_NULL);
    assert_string_equal(rb_json_str(rb_json_get(c0, "name")), "min_aggregate_bw");
    assert_string_equal(rb_json_str(rb_json_get(c0, "phase")), "stream-write");
    assert_float_equal(rb_json_num(rb_json_get(c0, "limit"), 0), 1024, 0);
    assert_float_equal(rb_json_num(rb_json_get(c0, "measured"), 0), 2048, 0);
    assert_true(rb_json_bool(rb_json_get(c0, "passed"), 0));
    assert_string_equal(rb_json_str(rb_json_get(c0, "unit")), "B/s");
    const rb_json_t *na = rb_json_at(checks, 4); /* md.create min_aggregate_bw */
    assert_string_equal(rb_json_str(rb_json_get(na, "phase")), "md.create");
    assert_int_equal(rb_json_type(rb_json_get(na, "passed")), RB_JSON_NULL);
    assert_int_equal(rb_json_type(rb_json_get(na, "measured")), RB_JSON_NULL);
    const rb_json_t *last = rb_json_at(checks, 9);
    assert_string_equal(rb_json_str(rb_json_get(last, "set")), "md");
    assert_string_equal(rb_json_str(rb_json_get(last, "unit")), "ops/s");
    rb_json_free(&j);
    free(text);

    /* no acceptance in the plan: "acceptance": null */
    res.accept = NULL;
    f = open_memstream(&text, &len);
    assert_int_equal(rb_report_json(&res, f), 0);
    fclose(f);
    j = rb_json_parse(text, len, &err);
    assert_non_null(j);
    assert_int_equal(rb_json_type(rb_json_get(j, "acceptance")), RB_JSON_NULL);
    rb_json_free(&j);
    free(text);
    rb_accept_result_fini(&r);
    rb_plan_destroy(&p);
}

/* min_interval_bw, min_sustained_bw (its window) and max_stall: parsed,
 * printed back, and judged on the cluster's bandwidth per interval; a phase
 * without such intervals fails them with nothing measured. */
static void test_stall_checks(void **state)
{
    (void)state;
    rb_plan_t *p = s_parse("[acceptance]\n" /* 15 */
                           "phases=stream-write,stream-read\n"
                           "min_interval_bw=100\n"
                           "min_sustained_bw=200/3s\n"
                           "max_stall=2s\n");
    const rb_accept_set_t *set = &p->accept->sets[0];
    assert_int_equal(set->limit[RB_ACCEPT_MIN_SUSTAINED_BW], 200);
    assert_int_equal(set->sustained_window_ns, 3000 * MS);
    assert_int_equal(set->limit[RB_ACCEPT_MAX_STALL], 2000 * MS);
    char out[4096] = "";
    FILE *f = fmemopen(out, sizeof out, "w");
    assert_non_null(f);
    assert_int_equal(rb_accept_print(p->accept, p->phases, p->nphases, f), 0);
    fclose(f);
    assert_non_null(strstr(out, "min_interval_bw=100\nmin_sustained_bw=200/3s\nmax_stall=2s\n"));

    static s_phase_t ph[2];
    const double bw[] = {300, 300, 300};
    s_phase(&ph[0], "stream-write", 900, 1, bw, NULL, 3);
    s_phase(&ph[1], "stream-read", 900, 1, bw, NULL, 3);
    /* 300 each second, then 100 for 2 s (a stall of 2 s), then 300 again */
    double pts[] = {300, 300, 100, 100, 300, 300};
    ph[0].agg.bw_points = pts;
    ph[0].agg.nbw_points = 6;
    ph[0].agg.bw_point_s = 1;
    ph[0].agg.max_stall_s = 2;
    rb_phase_agg_t aggs[2] = {ph[0].agg, ph[1].agg};
    rb_accept_result_t r;
    assert_int_equal(rb_accept_result_eval(p->accept, p->phases, p->iters, p->nphases, aggs, 2, &r),
                     0);
    assert_int_equal(r.nrows, 6);
    const rb_accept_row_t *x = s_row(&r, "", "stream-write", RB_ACCEPT_MIN_INTERVAL_BW);
    assert_float_equal(x->measured, 100, 1e-9);
    assert_int_equal(x->verdict, RB_ACCEPT_PASS);
    x = s_row(&r, "", "stream-write", RB_ACCEPT_MIN_SUSTAINED_BW);
    assert_float_equal(x->measured, 500 / 3.0, 1e-9); /* 300, 100, 100 */
    assert_int_equal(x->verdict, RB_ACCEPT_FAIL);
    x = s_row(&r, "", "stream-write", RB_ACCEPT_MAX_STALL);
    assert_float_equal(x->limit, 2, 1e-12);
    assert_float_equal(x->measured, 2, 1e-12);
    assert_int_equal(x->verdict, RB_ACCEPT_PASS); /* at the limit */
    /* no intervals: nothing measured, a fail with why */
    x = s_row(&r, "", "stream-read", RB_ACCEPT_MAX_STALL);
    assert_true(isnan(x->measured));
    assert_int_equal(x->verdict, RB_ACCEPT_FAIL);
    assert_string_equal(x->note, "no samples of every node's IO");
    assert_int_equal(r.nfailed, 4);
    rb_accept_result_fini(&r);
    rb_plan_destroy(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),           cmocka_unit_test(test_errors),
        cmocka_unit_test(test_eval_boundaries), cmocka_unit_test(test_eval_nodes),
        cmocka_unit_test(test_eval_devices),    cmocka_unit_test(test_eval_na_and_sets),
        cmocka_unit_test(test_stall_checks),
    };
    return cmocka_run_group_tests_name("accept", tests, NULL, NULL);
}
