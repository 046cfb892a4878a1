/* The job-option table (coordinator/plan/rb_opt.h): every row is complete
 * and consistent, its limits are ones the wire decoder accepts, its engine
 * rows name real engines, and docs/plan.md holds exactly the option lists
 * the table writes.
 *
 *   test_opt                  the checks
 *   test_opt --update FILE    rewrites the generated parts of FILE (docs/plan.md) */
#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rb_engine.h"
#include "rb_engine_info.h"
#include "rb_names.h"
#include "rb_opt.h"
#include "rb_plan.h"

#ifndef RB_DOCS_PLAN
#define RB_DOCS_PLAN "docs/plan.md"
#endif

/* The whole of a file, NUL-terminated; NULL if it cannot be read. */
static char *s_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (size_t n; buf && (n = fread(buf + len, 1, cap - len - 1, f)) > 0;) {
        len += n;
        if (len + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* What rb_opt_doc_markdown (docs/plan.md) or rb_proto_doc_markdown
 * (docs/protocol.md) writes for part, in a new string. */
static char *s_generated(const char *part)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    if (rb_opt_doc_markdown(part, f) < 0) {
        fflush(f);
        assert_int_equal(rb_proto_doc_markdown(part, f), 0);
    }
    fclose(f);
    return text;
}

/* The generated parts of the docs, with the file that holds each. */
static const struct {
    const char *const *parts;
    const char *doc;
} s_docs[] = {{rb_opt_doc_parts, RB_DOCS_PLAN}, {rb_proto_doc_parts, RB_DOCS_PROTOCOL}};

/* The text between "<!-- generated: PART -->\n" and "<!-- end: PART -->" in
 * doc: *start and *end point at it; 0, or -1 when the markers are missing. */
static int s_block(const char *doc, const char *part, const char **start, const char **end)
{
    char open[64], close[64];
    snprintf(open, sizeof open, "<!-- generated: %s -->\n", part);
    snprintf(close, sizeof close, "<!-- end: %s -->", part);
    const char *a = strstr(doc, open);
    const char *b = a ? strstr(a, close) : NULL;
    if (!a || !b)
        return -1;
    *start = a + strlen(open);
    *end = b;
    return 0;
}

static void test_docs_match_table(void **state)
{
    (void)state;
    for (size_t d = 0; d < sizeof s_docs / sizeof s_docs[0]; d++) {
        char *doc = s_slurp(s_docs[d].doc);
        assert_non_null(doc);
        for (const char *const *part = s_docs[d].parts; *part; part++) {
            const char *a, *b;
            if (s_block(doc, *part, &a, &b) < 0)
                fail_msg("%s has no <!-- generated: %s --> ... <!-- end: %s --> block",
                         s_docs[d].doc, *part, *part);
            char *want = s_generated(*part);
            if (strlen(want) != (size_t)(b - a) || memcmp(want, a, (size_t)(b - a)) != 0)
                fail_msg("%s's '%s' part differs from its table; run build/bin/test_opt "
                         "--update %s and commit the result",
                         s_docs[d].doc, *part, s_docs[d].doc);
            free(want);
        }
        free(doc);
    }
}

/* The anchor a heading of docs/plan.md gets (as GitHub makes it): lower
 * case, blanks to '-', other characters but '_' and '-' dropped. */
static void s_slug(const char *h, size_t n, char *out, size_t len)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < len; i++) {
        unsigned char c = (unsigned char)h[i];
        if (c == ' ')
            out[k++] = '-';
        else if (isalnum(c) || c == '_' || c == '-')
            out[k++] = (char)tolower(c);
    }
    out[k] = '\0';
}

/* Every row's docs anchor is a heading of docs/plan.md. */
static void test_docs_anchors(void **state)
{
    (void)state;
    char *doc = s_slurp(RB_DOCS_PLAN);
    assert_non_null(doc);
    size_t cap = 1024, n = 0;
    char(*slugs)[128] = calloc(cap, sizeof *slugs);
    assert_non_null(slugs);
    for (const char *p = doc; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (*p != '#')
            continue;
        const char *h = p;
        while (*h == '#')
            h++;
        while (*h == ' ')
            h++;
        const char *e = strchr(h, '\n');
        assert_true(n < cap);
        s_slug(h, e ? (size_t)(e - h) : strlen(h), slugs[n++], sizeof slugs[0]);
    }
    for (size_t i = 0; i < rb_opt_count(); i++) {
        const rb_opt_t *o = rb_opt_at(i);
        size_t k = 0;
        while (o->ref && k < n && strcmp(slugs[k], o->ref))
            k++;
        if (o->ref && k == n)
            fail_msg("option '%s': docs/plan.md has no heading for its anchor #%s", o->key, o->ref);
    }
    free(slugs);
    free(doc);
}

static void test_rows_complete(void **state)
{
    (void)state;
    assert_true(rb_opt_count() > 0);
    assert_true(rb_opt_count() <= RB_OPT_MAX_ROWS);
    for (size_t i = 0; i < rb_opt_count(); i++) {
        const rb_opt_t *o = rb_opt_at(i);
        assert_int_equal(rb_opt_index(o), i);
        if (o->kind == RB_OPT_IGNORED || o->kind == RB_OPT_NOT_YET)
            continue;
        if (!o->type || !o->doc || !o->ref)
            fail_msg("option '%s' lacks its type, doc or docs anchor", o->key);
        if (o->kind != RB_OPT_CUSTOM && o->size != 1 && o->size != 4 && o->size != 8)
            fail_msg("option '%s' is read by kind but has no 1, 4 or 8-byte field", o->key);
        if (o->kind == RB_OPT_CUSTOM && !o->parse)
            fail_msg("custom option '%s' has no parse function", o->key);
        if (o->kind == RB_OPT_ENUM && !o->nnames)
            fail_msg("option '%s' is an enum without names", o->key);
        if (o->kind == RB_OPT_COUNT && o->min > o->max)
            fail_msg("option '%s': min %llu above max %llu", o->key, (unsigned long long)o->min,
                     (unsigned long long)o->max);
        if (o->off + o->size > sizeof(rb_job_spec_t))
            fail_msg("option '%s': its field is outside rb_job_spec_t", o->key);
    }
}

/* Every key and alias names one row. */
static void test_names_unique(void **state)
{
    (void)state;
    for (size_t i = 0; i < rb_opt_count(); i++) {
        const rb_opt_t *o = rb_opt_at(i);
        if (rb_opt_find(o->key) != o)
            fail_msg("'%s' finds another row first: it is in the table twice", o->key);
        char alias[64];
        for (const char *c = o->aliases; c && *c;) {
            const char *end = strchr(c, ',');
            size_t n = end ? (size_t)(end - c) : strlen(c);
            assert_true(n < sizeof alias);
            memcpy(alias, c, n);
            alias[n] = '\0';
            if (rb_opt_find(alias) != o)
                fail_msg("alias '%s' of '%s' finds another row", alias, o->key);
            c = end ? end + 1 : NULL;
        }
    }
}

/* The decoder accepts every value the plan accepts, up to the same maximum. */
static void test_wire_limits(void **state)
{
    (void)state;
    unsigned checked = 0;
    for (size_t i = 0; i < rb_opt_count(); i++) {
        const rb_opt_t *o = rb_opt_at(i);
        if (o->kind != RB_OPT_COUNT || !o->size)
            continue;
        uint64_t min = 0, max = 0;
        if (rb_proto_job_limits(o->off, &min, &max) < 0)
            fail_msg("option '%s': the wire has no integer field at its offset", o->key);
        if (min > o->min || max != o->max)
            fail_msg("option '%s': plan %llu..%llu, wire %llu..%llu", o->key,
                     (unsigned long long)o->min, (unsigned long long)o->max,
                     (unsigned long long)min, (unsigned long long)max);
        checked++;
    }
    assert_true(checked >= 10);
}

/* An engine's own options name an engine both sides know. */
static void test_engine_rows(void **state)
{
    (void)state;
    unsigned n = 0;
    for (size_t i = 0; i < rb_opt_count(); i++) {
        const rb_opt_t *o = rb_opt_at(i);
        if (!o->engine)
            continue;
        char list[128];
        snprintf(list, sizeof list, "%s", o->engine);
        for (char *save = NULL, *e = strtok_r(list, ",", &save); e; e = strtok_r(NULL, ",", &save))
            if (!rb_engine_info_find(e) || !rb_opt_of_engine(o, e))
                fail_msg("option '%s' belongs to engine '%s', which is not in rb_engine_info",
                         o->key, e);
        n++;
    }
    assert_true(n > 0);
    assert_false(rb_engine_info_moves_data("null"));
    assert_true(rb_engine_info_moves_data("sync"));
    assert_string_equal(rb_engine_info_find("psync")->name, "sync");
}

/* The agent's engines and the table both sides share agree: every engine in
 * the table that this build has is named alike and moves data alike. */
static void test_engines_agree(void **state)
{
    (void)state;
    unsigned found = 0;
    for (size_t i = 0; i < rb_engine_info_count(); i++) {
        const rb_engine_info_t *info = rb_engine_info_at(i);
        const rb_engine_ops_t *ops = rb_engine_find(info->name);
        if (!ops)
            continue; /* not built here (no libaio or liburing) */
        found++;
        assert_string_equal(ops->name, info->name);
        if ((!(ops->flags & RB_ENGINE_F_NO_DATA)) != (rb_engine_info_moves_data(info->name) != 0))
            fail_msg("engine %s: the agent's no-data flag and proto's table disagree", info->name);
    }
    assert_true(found >= 2); /* sync and null are always built */
}

/* An option each kind: the default comes from the table, and a value set
 * in a plan reaches its field through the same row. */
static void test_defaults_and_fields(void **state)
{
    (void)state;
    static const char plan[] = "[a]\nsize=1M\n\n[b]\nsize=1M\niodepth=7\nbuffered=0\n"
                               "rwmixwrite=30\nfile_per_worker=1\n";
    rb_plan_t *p = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    assert_int_equal(rb_plan_parse(plan, sizeof plan - 1, "t.ini", &p, &err), 0);
    const rb_job_spec_t *a = &p->phases[0].jobs[0], *b = &p->phases[0].jobs[1];
    assert_int_equal(a->bs, 4096);
    assert_int_equal(a->iodepth, 1);
    assert_int_equal(a->rwmixread, 50);
    assert_int_equal(a->randseed, 0x89);
    assert_string_equal(a->ioengine, "sync");
    assert_string_equal(a->filename_format, "$jobname.$jobnum.$filenum");
    assert_int_equal(b->iodepth, 7);
    assert_int_equal(b->direct, 1);
    assert_int_equal(b->rwmixread, 70);
    assert_int_equal(b->shared_file, 0);
    rb_plan_destroy(&p);
}

/* fio's log_issue_time (issue times in fio's latency logs) changes no IO:
 * it is accepted with a note naming it and its line, as the table says. */
static void test_ignored_with_note(void **state)
{
    (void)state;
    static const char plan[] = "[a]\nsize=1M\nlog_issue_time=1\n";
    rb_plan_t *p = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    assert_int_equal(rb_plan_parse(plan, sizeof plan - 1, "t.ini", &p, &err), 0);
    assert_non_null(p->notes);
    assert_string_equal(p->notes, "t.ini:3: option 'log_issue_time' is ignored: it only shapes "
                                  "fio's own reports and logs\n");
    rb_plan_destroy(&p);
    /* verify_dump only writes files of a mismatch's blocks beside fio */
    static const char dump[] = "[a]\nsize=1M\nverify=crc32c\nverify_dump=1\n";
    assert_int_equal(rb_plan_parse(dump, sizeof dump - 1, "t.ini", &p, &err), 0);
    assert_non_null(p->notes);
    assert_string_equal(p->notes, "t.ini:4: option 'verify_dump' is ignored: it only shapes "
                                  "fio's own reports and logs\n");
    rb_plan_destroy(&p);
}

/* An engine's own option (fixedbufs, io_uring's) is accepted in a job of
 * that engine, with a note, and refused in a job of another, naming it. */
static void test_engine_options(void **state)
{
    (void)state;
    static const char ok[] = "[a]\nsize=1M\nioengine=io_uring\nfixedbufs\n";
    static const char bad[] = "[global]\nregisterfiles=1\n[a]\nsize=1M\nioengine=libaio\n";
    rb_plan_t *p = NULL;
    rb_err_t err;
    rb_err_clear(&err);
    assert_int_equal(rb_plan_parse(ok, sizeof ok - 1, "t.ini", &p, &err), 0);
    assert_non_null(p->notes);
    assert_non_null(
        strstr(p->notes, "t.ini:4: option 'fixedbufs' is ignored: rackbench's io_uring"));
    rb_plan_destroy(&p);
    assert_int_equal(rb_plan_parse(bad, sizeof bad - 1, "t.ini", &p, &err), -EINVAL);
    assert_null(p);
    assert_string_equal(err.msg, "t.ini:2: option 'registerfiles' belongs to ioengine=io_uring "
                                 "(job 'a' has ioengine=libaio)");
}

/* Rewrites the generated parts of path. */
/* The option table names the wire fields each row fills (its own, and
 * .fills): every field of the wire's job is filled by some row, every row
 * that is run fills a field or says it fills none (""), and every name in
 * a .fills is a field of the wire. */
static void test_wire_fields_filled(void **state)
{
    (void)state;
    for (size_t i = 0; i < rb_proto_job_nfields(); i++) {
        size_t off;
        const char *key = rb_proto_job_field(i, &off, NULL);
        int filled = 0;
        for (size_t r = 0; r < rb_opt_count() && !filled; r++) {
            const rb_opt_t *o = rb_opt_at(r);
            filled = (o->size && o->off == off) || rb_names_in_list(o->fills, key);
        }
        if (!filled)
            fail_msg("wire field '%s' is filled by no plan option: give it a row (J(%s)) or "
                     "name it in the .fills of the row that settles it",
                     key, key);
    }
    for (size_t r = 0; r < rb_opt_count(); r++) {
        const rb_opt_t *o = rb_opt_at(r);
        if (!o->size && !o->fills && o->kind != RB_OPT_IGNORED && o->kind != RB_OPT_NOT_YET)
            fail_msg("option '%s' names no wire field: J(field), .fills, or .fills = \"\"", o->key);
        for (const char *p = o->fills; p && *p;) {
            const char *e = strchr(p, ',');
            char k[64];
            snprintf(k, sizeof k, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
            int known = 0;
            for (size_t i = 0; i < rb_proto_job_nfields() && !known; i++)
                known = !strcmp(rb_proto_job_field(i, NULL, NULL), k);
            if (!known)
                fail_msg("option '%s' fills '%s', which is no wire field", o->key, k);
            p = e ? e + 1 : p + strlen(p);
        }
    }
}

/* Rewrites the generated parts that path holds (docs/plan.md's or
 * docs/protocol.md's). */
static int s_update(const char *path)
{
    char *doc = s_slurp(path);
    if (!doc) {
        fprintf(stderr, "test_opt: cannot read %s\n", path);
        return 2;
    }
    int found = 0;
    for (size_t d = 0; d < sizeof s_docs / sizeof s_docs[0]; d++)
        for (const char *const *part = s_docs[d].parts; *part; part++) {
            const char *a, *b;
            if (s_block(doc, *part, &a, &b) < 0)
                continue;
            char *gen = s_generated(*part);
            size_t head = (size_t)(a - doc), glen = strlen(gen), tail = strlen(b);
            char *out = malloc(head + glen + tail + 1);
            memcpy(out, doc, head);
            memcpy(out + head, gen, glen);
            memcpy(out + head + glen, b, tail + 1);
            free(gen);
            free(doc);
            doc = out;
            found++;
        }
    FILE *f = found ? fopen(path, "wb") : NULL;
    if (!f || fputs(doc, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "test_opt: %s %s\n", found ? "cannot write" : "no generated block in",
                path);
        free(doc);
        return 2;
    }
    free(doc);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--update"))
        return s_update(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_complete),       cmocka_unit_test(test_names_unique),
        cmocka_unit_test(test_wire_limits),         cmocka_unit_test(test_engine_rows),
        cmocka_unit_test(test_defaults_and_fields), cmocka_unit_test(test_docs_match_table),
        cmocka_unit_test(test_docs_anchors),        cmocka_unit_test(test_wire_fields_filled),
        cmocka_unit_test(test_engines_agree),       cmocka_unit_test(test_ignored_with_note),
        cmocka_unit_test(test_engine_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
