/* Tests for rb_json: the summary.json writer's exact layout and numbers, the reader's round trip
 * of everything the writer emits, its error positions, path lookup, file loading, and that
 * truncated or corrupted input is refused without crashing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rb_test.h"

#include <errno.h>
#include <float.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rb_json.h"

#define TWO_53 9007199254740992ULL

/* Output of a writer session kept in memory. */
typedef struct {
    char *buf;  /* open_memstream buffer, NUL-terminated after fclose */
    size_t len; /* bytes written */
    FILE *f;    /* the stream while writing */
    rb_jw_t w;  /* the writer under test */
} memout_t;

static void mem_open(memout_t *m)
{
    memset(m, 0, sizeof(*m));
    m->f = open_memstream(&m->buf, &m->len);
    assert_non_null(m->f);
    rb_jw_init(&m->w, m->f);
}

/* Finishes the document; returns rb_jw_finish's result. */
static int mem_close(memout_t *m)
{
    int rc = rb_jw_finish(&m->w);
    assert_int_equal(fclose(m->f), 0);
    m->f = NULL;
    return rc;
}

static rb_json_t *parse_ok(const char *text)
{
    rb_err_t err;
    rb_json_t *j;

    rb_err_clear(&err);
    j = rb_json_parse(text, strlen(text), &err);
    if (!j)
        fail_msg("parse of '%s' failed: %s", text, err.msg);
    assert_int_equal(err.code, 0);
    return j;
}

/* ---- writer ---- */

static void test_writer_layout(void **state)
{
    memout_t m;
    (void)state;

    mem_open(&m);
    rb_jw_obj_begin(&m.w, NULL);
    rb_jw_str(&m.w, "name", "a\"b");
    rb_jw_arr_begin(&m.w, "xs");
    rb_jw_u64(&m.w, NULL, 1);
    rb_jw_i64(&m.w, NULL, -2);
    rb_jw_obj_begin(&m.w, NULL);
    rb_jw_bool(&m.w, "ok", 1);
    rb_jw_obj_end(&m.w);
    rb_jw_arr_end(&m.w);
    rb_jw_obj_begin(&m.w, "empty");
    rb_jw_obj_end(&m.w);
    rb_jw_arr_begin(&m.w, "none");
    rb_jw_arr_end(&m.w);
    rb_jw_num(&m.w, "mib", 1048576.0);
    rb_jw_num(&m.w, "nan", NAN);
    rb_jw_null(&m.w, "nil");
    rb_jw_obj_end(&m.w);
    assert_int_equal(mem_close(&m), 0);
    assert_string_equal(m.buf, "{\n"
                               "  \"name\": \"a\\\"b\",\n"
                               "  \"xs\": [\n"
                               "    1,\n"
                               "    -2,\n"
                               "    {\n"
                               "      \"ok\": true\n"
                               "    }\n"
                               "  ],\n"
                               "  \"empty\": {},\n"
                               "  \"none\": [],\n"
                               "  \"mib\": 1048576,\n"
                               "  \"nan\": null,\n"
                               "  \"nil\": null\n"
                               "}\n");
    free(m.buf);
}

static void test_writer_escapes(void **state)
{
    memout_t m;
    (void)state;

    mem_open(&m);
    rb_jw_obj_begin(&m.w, NULL);
    rb_jw_str(&m.w, "k\"\\\n",
              "q\" b\\ nl\n tab\t c1\x01 c1f\x1f del\x7f / \xc2\xb5s \xf0\x9f\x98\x80");
    rb_jw_obj_end(&m.w);
    assert_int_equal(mem_close(&m), 0);
    assert_string_equal(m.buf, "{\n  \"k\\\"\\\\\\u000a\": \"q\\\" b\\\\ nl\\u000a tab\\u0009 "
                               "c1\\u0001 c1f\\u001f del\x7f / \xc2\xb5s \xf0\x9f\x98\x80\"\n}\n");
    free(m.buf);
}

/* Writes one double as the only value and returns the text without the final newline. */
static char *num_text(double v)
{
    memout_t m;

    mem_open(&m);
    rb_jw_num(&m.w, NULL, v);
    assert_int_equal(mem_close(&m), 0);
    assert_true(m.len > 0 && m.buf[m.len - 1] == '\n');
    m.buf[m.len - 1] = '\0';
    return m.buf;
}

static void test_writer_numbers(void **state)
{
    static const struct {
        double v;
        const char *text;
    } cases[] = {
        {0.0, "0"},
        {1048576.0, "1048576"},
        {-3.0, "-3"},
        {9007199254740991.0, "9007199254740991"},
        {9007199254740992.0, "9007199254740992"},
        {0.1, "0.1"},
        {-2.5, "-2.5"},
        {1e300, "1e+300"},
        {1e-7, "1e-07"},
        {1.0 / 3.0, "0.3333333333333333"},
        {DBL_MAX, "1.7976931348623157e+308"},
    };
    size_t i;
    char *t;
    (void)state;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        rb_json_t *j;

        t = num_text(cases[i].v);
        assert_string_equal(t, cases[i].text);
        j = parse_ok(t);
        assert_int_equal(rb_json_type(j), RB_JSON_NUM);
        assert_true(rb_json_num(j, -1) == cases[i].v);
        rb_json_free(&j);
        free(t);
    }
    t = num_text(NAN);
    assert_string_equal(t, "null");
    free(t);
    t = num_text(INFINITY);
    assert_string_equal(t, "null");
    free(t);
    t = num_text(-INFINITY);
    assert_string_equal(t, "null");
    free(t);
}

/* Every finite double, whatever its bits, must read back identical. */
static void test_writer_double_round_trip(void **state)
{
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    int i, n = 0;
    (void)state;

    for (i = 0; i < 20000; i++) {
        double v;
        char *t;
        rb_json_t *j;

        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        memcpy(&v, &x, sizeof(v));
        if (!isfinite(v))
            continue;
        t = num_text(v);
        j = parse_ok(t);
        if (rb_json_num(j, NAN) != v)
            fail_msg("%.17g written as '%s' read back as %.17g", v, t, rb_json_num(j, NAN));
        rb_json_free(&j);
        free(t);
        n++;
    }
    assert_true(n > 19000);
}

/* Writes a document with every kind of value and checks the parsed tree value by value. */
static void test_round_trip(void **state)
{
    const char *tricky = "quote\" backslash\\ slash/ nl\n cr\r tab\t bell\x07 esc\x1b "
                         "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";
    const rb_json_t *v, *a, *o;
    rb_json_t *root;
    memout_t m;
    (void)state;

    mem_open(&m);
    rb_jw_obj_begin(&m.w, NULL);
    rb_jw_str(&m.w, "tricky", tricky);
    rb_jw_str(&m.w, "key \"with\"\tescapes", "x");
    rb_jw_str(&m.w, "empty_str", "");
    rb_jw_str(&m.w, "null_str", NULL);
    rb_jw_u64(&m.w, "u0", 0);
    rb_jw_u64(&m.w, "u53", TWO_53);
    rb_jw_u64(&m.w, "umax", UINT64_MAX);
    rb_jw_i64(&m.w, "ineg", -1234567890123LL);
    rb_jw_i64(&m.w, "imin", INT64_MIN);
    rb_jw_num(&m.w, "d01", 0.1);
    rb_jw_num(&m.w, "d1e300", 1e300);
    rb_jw_num(&m.w, "dneg", -0.000123);
    rb_jw_num(&m.w, "dinf", INFINITY);
    rb_jw_bool(&m.w, "t", 1);
    rb_jw_bool(&m.w, "f", 0);
    rb_jw_null(&m.w, "n");
    rb_jw_obj_begin(&m.w, "empty_obj");
    rb_jw_obj_end(&m.w);
    rb_jw_arr_begin(&m.w, "empty_arr");
    rb_jw_arr_end(&m.w);
    rb_jw_arr_begin(&m.w, "nested");
    rb_jw_arr_begin(&m.w, NULL);
    rb_jw_u64(&m.w, NULL, 7);
    rb_jw_arr_begin(&m.w, NULL);
    rb_jw_arr_end(&m.w);
    rb_jw_arr_end(&m.w);
    rb_jw_obj_begin(&m.w, NULL);
    rb_jw_obj_begin(&m.w, "inner");
    rb_jw_str(&m.w, "deep", "yes");
    rb_jw_obj_end(&m.w);
    rb_jw_obj_end(&m.w);
    rb_jw_arr_end(&m.w);
    rb_jw_obj_end(&m.w);
    assert_int_equal(mem_close(&m), 0);

    /* exact integers the reader's doubles cannot hold are checked in the text */
    assert_non_null(strstr(m.buf, "\"umax\": 18446744073709551615,\n"));
    assert_non_null(strstr(m.buf, "\"imin\": -9223372036854775808,\n"));
    assert_non_null(strstr(m.buf, "\"d01\": 0.1,\n"));
    assert_non_null(strstr(m.buf, "\"d1e300\": 1e+300,\n"));

    root = parse_ok(m.buf);
    assert_int_equal(rb_json_type(root), RB_JSON_OBJ);
    assert_int_equal(rb_json_len(root), 19);
    assert_string_equal(rb_json_key_at(root, 0), "tricky");
    assert_string_equal(rb_json_key_at(root, 18), "nested");
    assert_null(rb_json_key_at(root, 19));

    assert_string_equal(rb_json_str(rb_json_get(root, "tricky")), tricky);
    assert_string_equal(rb_json_key_at(root, 1), "key \"with\"\tescapes");
    assert_string_equal(rb_json_str(rb_json_get(root, "key \"with\"\tescapes")), "x");
    assert_string_equal(rb_json_str(rb_json_get(root, "empty_str")), "");
    v = rb_json_get(root, "null_str");
    assert_non_null(v);
    assert_int_equal(rb_json_type(v), RB_JSON_NULL);
    assert_null(rb_json_str(v));

    assert_true(rb_json_num(rb_json_get(root, "u0"), -1) == 0.0);
    assert_true(rb_json_num(rb_json_get(root, "u53"), -1) == 9007199254740992.0);
    assert_true(rb_json_num(rb_json_get(root, "umax"), -1) == 18446744073709551616.0);
    assert_true(rb_json_num(rb_json_get(root, "ineg"), 0) == -1234567890123.0);
    assert_true(rb_json_num(rb_json_get(root, "imin"), 0) == -9223372036854775808.0);
    assert_true(rb_json_num(rb_json_get(root, "d01"), 0) == 0.1);
    assert_true(rb_json_num(rb_json_get(root, "d1e300"), 0) == 1e300);
    assert_true(rb_json_num(rb_json_get(root, "dneg"), 0) == -0.000123);
    assert_int_equal(rb_json_type(rb_json_get(root, "dinf")), RB_JSON_NULL);
    assert_true(rb_json_num(rb_json_get(root, "dinf"), 42.0) == 42.0);

    v = rb_json_get(root, "t");
    assert_int_equal(rb_json_type(v), RB_JSON_BOOL);
    assert_int_equal(rb_json_bool(v, -1), 1);
    v = rb_json_get(root, "f");
    assert_int_equal(rb_json_type(v), RB_JSON_BOOL);
    assert_int_equal(rb_json_bool(v, -1), 0);
    assert_int_equal(rb_json_type(rb_json_get(root, "n")), RB_JSON_NULL);
    assert_non_null(rb_json_get(root, "n"));

    v = rb_json_get(root, "empty_obj");
    assert_int_equal(rb_json_type(v), RB_JSON_OBJ);
    assert_int_equal(rb_json_len(v), 0);
    assert_null(rb_json_key_at(v, 0));
    v = rb_json_get(root, "empty_arr");
    assert_int_equal(rb_json_type(v), RB_JSON_ARR);
    assert_int_equal(rb_json_len(v), 0);
    assert_null(rb_json_at(v, 0));

    v = rb_json_get(root, "nested");
    assert_int_equal(rb_json_type(v), RB_JSON_ARR);
    assert_int_equal(rb_json_len(v), 2);
    a = rb_json_at(v, 0);
    assert_int_equal(rb_json_type(a), RB_JSON_ARR);
    assert_int_equal(rb_json_len(a), 2);
    assert_true(rb_json_num(rb_json_at(a, 0), 0) == 7.0);
    assert_int_equal(rb_json_type(rb_json_at(a, 1)), RB_JSON_ARR);
    assert_int_equal(rb_json_len(rb_json_at(a, 1)), 0);
    o = rb_json_at(v, 1);
    assert_int_equal(rb_json_type(o), RB_JSON_OBJ);
    assert_string_equal(rb_json_str(rb_json_get(rb_json_get(o, "inner"), "deep")), "yes");
    assert_null(rb_json_at(v, 2));

    assert_null(rb_json_get(root, "missing"));
    rb_json_free(&root);
    assert_null(root);
    rb_json_free(&root); /* safe twice */
    free(m.buf);
}

static void test_writer_depth(void **state)
{
    memout_t m;
    rb_json_t *j;
    int i;
    (void)state;

    /* 63 levels is the limit and still a valid document */
    mem_open(&m);
    for (i = 0; i < 63; i++)
        rb_jw_arr_begin(&m.w, NULL);
    for (i = 0; i < 63; i++)
        rb_jw_arr_end(&m.w);
    assert_int_equal(mem_close(&m), 0);
    j = parse_ok(m.buf);
    rb_json_free(&j);
    free(m.buf);

    mem_open(&m);
    for (i = 0; i < 64; i++)
        rb_jw_obj_begin(&m.w, i ? "k" : NULL);
    assert_int_equal(m.w.err, -EOVERFLOW);
    for (i = 0; i < 64; i++)
        rb_jw_obj_end(&m.w);
    rb_jw_u64(&m.w, "after", 1);
    assert_int_equal(mem_close(&m), -EOVERFLOW);
    free(m.buf);
}

static void test_writer_misuse(void **state)
{
    memout_t m;
    rb_jw_t w;
    (void)state;

    /* container left open */
    mem_open(&m);
    rb_jw_obj_begin(&m.w, NULL);
    assert_int_equal(mem_close(&m), -EINVAL);
    free(m.buf);

    /* closing more than was opened */
    mem_open(&m);
    rb_jw_arr_begin(&m.w, NULL);
    rb_jw_arr_end(&m.w);
    rb_jw_arr_end(&m.w);
    assert_int_equal(mem_close(&m), -EINVAL);
    free(m.buf);

    /* two top-level values */
    mem_open(&m);
    rb_jw_u64(&m.w, NULL, 1);
    rb_jw_u64(&m.w, NULL, 2);
    assert_int_equal(mem_close(&m), -EINVAL);
    free(m.buf);

    /* a member name outside any object */
    mem_open(&m);
    rb_jw_u64(&m.w, "k", 1);
    assert_int_equal(mem_close(&m), -EINVAL);
    free(m.buf);

    rb_jw_init(&w, NULL);
    rb_jw_u64(&w, NULL, 1);
    assert_int_equal(rb_jw_finish(&w), -EINVAL);

    rb_jw_init(NULL, stdout);
    rb_jw_obj_begin(NULL, NULL);
    rb_jw_str(NULL, "k", "v");
    rb_jw_str(NULL, "k", NULL);
    rb_jw_num(NULL, "k", 1.0);
    rb_jw_obj_end(NULL);
    assert_int_equal(rb_jw_finish(NULL), -EINVAL);
}

static void test_writer_write_failure(void **state)
{
    FILE *f = fopen("/dev/full", "w");
    rb_jw_t w;
    int i;
    (void)state;

    if (!f)
        rb_skip("no /dev/full to write to");
    rb_jw_init(&w, f);
    rb_jw_arr_begin(&w, NULL);
    for (i = 0; i < 10000; i++)
        rb_jw_str(&w, NULL, "fill the stdio buffer so that writes reach the device");
    rb_jw_arr_end(&w);
    assert_int_equal(rb_jw_finish(&w), -ENOSPC);
    fclose(f);

    /* small enough to stay buffered: the failure shows at the flush in rb_jw_finish */
    f = fopen("/dev/full", "w");
    assert_non_null(f);
    rb_jw_init(&w, f);
    rb_jw_u64(&w, NULL, 1);
    assert_int_equal(w.err, 0);
    assert_int_equal(rb_jw_finish(&w), -ENOSPC);
    fclose(f);
}

/* ---- reader ---- */

static void test_parse_values(void **state)
{
    rb_json_t *j;
    const rb_json_t *v;
    char deep[512 + 1];
    rb_err_t err;
    (void)state;

    j = parse_ok("\"\\ud83d\\ude00 \\u00e9\\u00E9 \\u20ac \\/ \\\" \\\\ \\b\\f\\n\\r\\t \\u0041\"");
    assert_string_equal(rb_json_str(j),
                        "\xf0\x9f\x98\x80 \xc3\xa9\xc3\xa9 \xe2\x82\xac / \" \\ \b\f\n\r\t A");
    rb_json_free(&j);

    /* raw UTF-8 passes through */
    j = parse_ok("[\"\xc2\xb5s\"]");
    assert_string_equal(rb_json_str(rb_json_at(j, 0)), "\xc2\xb5s");
    rb_json_free(&j);

    /* duplicate keys: all kept in order, rb_json_get finds the first */
    j = parse_ok("{\"a\":1,\"b\":[],\"a\":2}");
    assert_int_equal(rb_json_len(j), 3);
    assert_true(rb_json_num(rb_json_get(j, "a"), 0) == 1.0);
    assert_string_equal(rb_json_key_at(j, 0), "a");
    assert_string_equal(rb_json_key_at(j, 1), "b");
    assert_string_equal(rb_json_key_at(j, 2), "a");
    assert_true(rb_json_num(rb_json_at(j, 2), 0) == 2.0);
    rb_json_free(&j);

    j = parse_ok(" \t\r\n[ -0 , 1E5,1e-5 ,123.456e+2, -12.5E-1, 0.5, 1e-400 ] \n");
    assert_int_equal(rb_json_len(j), 7);
    v = rb_json_at(j, 0);
    assert_true(rb_json_num(v, 1) == 0.0 && signbit(rb_json_num(v, 1)));
    assert_true(rb_json_num(rb_json_at(j, 1), 0) == 1e5);
    assert_true(rb_json_num(rb_json_at(j, 2), 0) == 1e-5);
    assert_true(rb_json_num(rb_json_at(j, 3), 0) == 12345.6);
    assert_true(rb_json_num(rb_json_at(j, 4), 0) == -1.25);
    assert_true(rb_json_num(rb_json_at(j, 5), 0) == 0.5);
    assert_true(rb_json_num(rb_json_at(j, 6), 1) == 0.0);
    rb_json_free(&j);

    j = parse_ok("[true,false,null]");
    assert_int_equal(rb_json_bool(rb_json_at(j, 0), -1), 1);
    assert_int_equal(rb_json_bool(rb_json_at(j, 1), -1), 0);
    assert_int_equal(rb_json_type(rb_json_at(j, 2)), RB_JSON_NULL);
    assert_int_equal(rb_json_bool(rb_json_at(j, 2), -1), -1);
    rb_json_free(&j);

    /* scalars at top level, and a byte order mark */
    j = parse_ok("42");
    assert_true(rb_json_num(j, 0) == 42.0);
    rb_json_free(&j);
    j = parse_ok("\xef\xbb\xbf{\"a\":\"b\"}");
    assert_string_equal(rb_json_str(rb_json_get(j, "a")), "b");
    rb_json_free(&j);

    /* the text need not be NUL-terminated: only len bytes count */
    rb_err_clear(&err);
    j = rb_json_parse("[1]]]garbage", 3, &err);
    assert_non_null(j);
    assert_int_equal(rb_json_len(j), 1);
    rb_json_free(&j);
    rb_err_clear(&err);
    j = rb_json_parse("12345", 2, &err);
    assert_true(rb_json_num(j, 0) == 12.0);
    rb_json_free(&j);

    /* exactly 256 levels is accepted */
    memset(deep, '[', 256);
    memset(deep + 256, ']', 256);
    deep[512] = '\0';
    j = parse_ok(deep);
    for (v = j; rb_json_len(v) == 1; v = rb_json_at(v, 0))
        ;
    assert_int_equal(rb_json_type(v), RB_JSON_ARR);
    rb_json_free(&j);
}

/* One bad input and the exact message it must produce. */
typedef struct {
    const char *text;
    size_t len; /* 0: strlen(text) */
    const char *msg;
} bad_case_t;

static void check_bad(const char *text, size_t len, const char *msg)
{
    rb_err_t err;
    rb_json_t *j;

    rb_err_clear(&err);
    j = rb_json_parse(text, len, &err);
    if (j) {
        rb_json_free(&j);
        fail_msg("'%s' parsed but should fail with: %s", text, msg);
    }
    assert_int_equal(err.code, -EINVAL);
    if (strcmp(err.msg, msg) != 0)
        fail_msg("input '%s'\n  got:      %s\n  expected: %s", text, err.msg, msg);
}

static void test_parse_errors(void **state)
{
    static const bad_case_t cases[] = {
        {"", 0, "line 1 column 1: expected a value, found end of input"},
        {"  \n  ", 0, "line 2 column 3: expected a value, found end of input"},
        {"{\"a\": \"abc", 0,
         "line 1 column 11: expected '\"' to close the string opened at line 1 column 7, "
         "found end of input"},
        {"\"abc\\", 0,
         "line 1 column 6: expected '\"' to close the string opened at line 1 column 1, "
         "found end of input"},
        {"[\"a\\qb\"]", 0,
         "line 1 column 4: invalid escape: expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t "
         "\\u after '\\', found 'q'"},
        {"[1, 2,]", 0, "line 1 column 7: expected a value, found ']'"},
        {"{\"a\":1,}", 0, "line 1 column 8: expected a member name in double quotes, found '}'"},
        {"{,}", 0, "line 1 column 2: expected a member name in double quotes or '}', found ','"},
        {"{\"a\" 1}", 0, "line 1 column 6: expected ':' after the member name, found '1'"},
        {"{\"a\"}", 0, "line 1 column 5: expected ':' after the member name, found '}'"},
        {"01", 0, "line 1 column 1: numbers must not have a leading zero"},
        {"[-01]", 0, "line 1 column 3: numbers must not have a leading zero"},
        {"\"\\ud800\"", 0,
         "line 1 column 2: expected a low surrogate \\uDC00-\\uDFFF after \\ud800"},
        {"\"x\\ud800\\u0041\"", 0,
         "line 1 column 3: expected a low surrogate \\uDC00-\\uDFFF after \\ud800"},
        {"\"\\udc00\"", 0,
         "line 1 column 2: low surrogate \\udc00 without a high surrogate before it"},
        {"\"\\u12G4\"", 0, "line 1 column 2: expected 4 hex digits after \\u"},
        {"\"\\u12\"", 0, "line 1 column 2: expected 4 hex digits after \\u"},
        {"{} x", 0, "line 1 column 4: expected end of input after the value, found 'x'"},
        {"1 2", 0, "line 1 column 3: expected end of input after the value, found '2'"},
        {"[1]\n\n]", 0, "line 3 column 1: expected end of input after the value, found ']'"},
        {"{\n  \"a\": tru\n}", 0, "line 2 column 8: expected 'true'"},
        {"nul", 0, "line 1 column 1: expected 'null'"},
        {"[\"a\tb\"]", 0, "line 1 column 4: control character 0x09 in a string must be escaped"},
        {"-", 0, "line 1 column 2: expected a digit after '-', found end of input"},
        {"-x", 0, "line 1 column 2: expected a digit after '-', found 'x'"},
        {"1.", 0, "line 1 column 3: expected a digit after '.', found end of input"},
        {"[1.e5]", 0, "line 1 column 4: expected a digit after '.', found 'e'"},
        {"1e+", 0, "line 1 column 4: expected a digit in the exponent, found end of input"},
        {"1e400", 0, "line 1 column 1: number out of the range of a double"},
        {"NaN", 0, "line 1 column 1: expected a value, found 'N'"},
        {"+1", 0, "line 1 column 1: expected a value, found '+'"},
        {".5", 0, "line 1 column 1: expected a value, found '.'"},
        {"['a']", 0, "line 1 column 2: expected a value, found '''"},
        {"[1 2]", 0, "line 1 column 4: expected ',' or ']', found '2'"},
        {"[1", 0, "line 1 column 3: expected ',' or ']', found end of input"},
        {"{\"a\":1 \"b\":2}", 0, "line 1 column 8: expected ',' or '}', found '\"'"},
        {"{1:2}", 0, "line 1 column 2: expected a member name in double quotes or '}', found '1'"},
        {"[\0]", 3, "line 1 column 2: expected a value, found byte 0x00"},
        {"[\"\xc3\xa9\", x]", 0, "line 1 column 7: expected a value, found 'x'"},
        {"\xef\xbb\xbf x", 0, "line 1 column 2: expected a value, found 'x'"},
    };
    char bomb[1000];
    size_t i;
    (void)state;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        check_bad(cases[i].text, cases[i].len ? cases[i].len : strlen(cases[i].text), cases[i].msg);

    memset(bomb, '[', sizeof(bomb));
    check_bad(bomb, sizeof(bomb), "line 1 column 257: nesting deeper than 256 levels");
    memset(bomb, '{', sizeof(bomb));
    check_bad(bomb, sizeof(bomb),
              "line 1 column 2: expected a member name in double quotes or '}', found '{'");
}

static void test_parse_null_args(void **state)
{
    rb_err_t err;
    (void)state;

    /* rb_json_parse tolerates a NULL err and NULL text */
    assert_null(rb_json_parse("[", 1, NULL));
    assert_null(rb_json_parse(NULL, 0, NULL));
    rb_err_clear(&err);
    assert_null(rb_json_parse(NULL, 5, &err));
    assert_int_equal(err.code, -EINVAL);
}

/* Every proper prefix of a writer document and random corruptions of it must be refused (or
 * parsed) cleanly; run under ASan this is a small fuzz pass. */
static void test_parse_truncated_and_corrupt(void **state)
{
    const char *doc =
        "{\n  \"name\": \"w\\u00e9\\ud83d\\ude00\\n\",\n  \"phases\": [\n    {\n      \"bs\": "
        "4096,\n      \"lat\": [0.1, -2.5e-3, 1e300, true, false, null],\n      \"e\": {}\n    "
        "}\n  ],\n  \"x\": []\n}\n";
    size_t len = strlen(doc), cut;
    uint64_t x = 88172645463325252ULL;
    char *buf = malloc(len);
    int i;
    (void)state;

    assert_non_null(buf);
    for (cut = 0; cut < len - 1; cut++) {
        rb_err_t err;
        rb_json_t *j;

        memcpy(buf, doc, cut); /* heap copy of exactly cut bytes: ASan sees any overread */
        rb_err_clear(&err);
        j = rb_json_parse(buf, cut, &err);
        if (j)
            fail_msg("prefix of %zu bytes parsed", cut);
        assert_int_equal(err.code, -EINVAL);
        assert_memory_equal(err.msg, "line ", 5);
    }
    for (i = 0; i < 50000; i++) {
        rb_json_t *j;
        int k, flips;

        memcpy(buf, doc, len);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        flips = 1 + (int)(x % 4);
        for (k = 0; k < flips; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            buf[(x >> 8) % len] = "\"\\[]{},:0-eE.u\x01\x80 x9"[(x >> 40) % 20];
        }
        j = rb_json_parse(buf, (size_t)((x >> 20) % (len + 1)), NULL);
        rb_json_free(&j);
    }
    free(buf);
}

static void test_path(void **state)
{
    rb_json_t *j = parse_ok("{\"phases\":[{\"name\":\"w\",\"lat_us\":{\"p99\":12.5}},"
                            "{\"name\":\"r\",\"lat_us\":{\"p99\":7}}],"
                            "\"0\":\"zero\",\"a.b\":1,\"a\":{\"b\":2}}");
    (void)state;

    assert_true(rb_json_num(rb_json_path(j, "phases.0.lat_us.p99"), 0) == 12.5);
    assert_true(rb_json_num(rb_json_path(j, "phases.1.lat_us.p99"), 0) == 7.0);
    assert_string_equal(rb_json_str(rb_json_path(j, "phases.1.name")), "r");
    assert_int_equal(rb_json_len(rb_json_path(j, "phases")), 2);
    assert_ptr_equal(rb_json_path(j, ""), j);
    /* digits on an object are a member name; dotted member names are not reachable */
    assert_string_equal(rb_json_str(rb_json_path(j, "0")), "zero");
    assert_true(rb_json_num(rb_json_path(j, "a.b"), 0) == 2.0);

    assert_null(rb_json_path(j, "phases.2"));
    assert_null(rb_json_path(j, "phases.2.lat_us"));
    assert_null(rb_json_path(j, "phases.18446744073709551615"));
    assert_null(rb_json_path(j, "phases.18446744073709551617")); /* 2^64 + 1 must not wrap to 1 */
    assert_null(rb_json_path(j, "phases.99999999999999999999999999"));
    assert_null(rb_json_path(j, "phases.-1"));
    assert_null(rb_json_path(j, "phases.x"));
    assert_null(rb_json_path(j, "phases.1x"));
    assert_null(rb_json_path(j, "phases..0"));
    assert_null(rb_json_path(j, "phases."));
    assert_null(rb_json_path(j, ".phases"));
    assert_null(rb_json_path(j, "phases.0.name.x"));
    assert_null(rb_json_path(j, "nope"));
    assert_null(rb_json_path(j, NULL));
    assert_null(rb_json_path(NULL, "phases"));
    rb_json_free(&j);
}

static void test_accessors_tolerate_null(void **state)
{
    rb_json_t *j = parse_ok("{\"s\":\"v\",\"n\":3}");
    (void)state;

    assert_int_equal(rb_json_type(NULL), RB_JSON_NULL);
    assert_null(rb_json_get(NULL, "a"));
    assert_null(rb_json_get(j, NULL));
    assert_int_equal(rb_json_len(NULL), 0);
    assert_null(rb_json_at(NULL, 0));
    assert_null(rb_json_key_at(NULL, 0));
    assert_true(rb_json_num(NULL, 1.5) == 1.5);
    assert_null(rb_json_str(NULL));
    assert_int_equal(rb_json_bool(NULL, 7), 7);
    rb_json_free(NULL);

    /* type mismatches give the defaults */
    assert_null(rb_json_str(rb_json_get(j, "n")));
    assert_true(rb_json_num(rb_json_get(j, "s"), -1) == -1);
    assert_int_equal(rb_json_len(rb_json_get(j, "s")), 0);
    assert_null(rb_json_get(rb_json_get(j, "s"), "x"));
    assert_null(rb_json_at(rb_json_get(j, "n"), 0));
    /* objects can be walked by position */
    assert_string_equal(rb_json_str(rb_json_at(j, 0)), "v");
    assert_null(rb_json_at(j, 2));
    rb_json_free(&j);
}

static void test_load(void **state)
{
    const char *missing = "/nonexistent-rackbench-dir/summary.json";
    char path[] = "/tmp/rb_test_json_XXXXXX";
    const char *good = "{\"ok\": true}\n";
    const char *bad = "{\n  \"a\": 1,\n}\n";
    rb_err_t err;
    rb_json_t *j;
    int fd;
    (void)state;

    rb_err_clear(&err);
    assert_null(rb_json_load(missing, &err));
    assert_int_equal(err.code, -ENOENT);
    assert_non_null(strstr(err.msg, missing));
    assert_non_null(strstr(err.msg, strerror(ENOENT)));

    rb_err_clear(&err);
    assert_null(rb_json_load("/", &err));
    assert_int_equal(err.code, -EISDIR);
    assert_non_null(strstr(err.msg, "'/'"));

    rb_err_clear(&err);
    assert_null(rb_json_load(NULL, &err));
    assert_int_equal(err.code, -EINVAL);

    fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, good, strlen(good)), (ssize_t)strlen(good));
    rb_err_clear(&err);
    j = rb_json_load(path, &err);
    assert_non_null(j);
    assert_int_equal(rb_json_bool(rb_json_get(j, "ok"), 0), 1);
    rb_json_free(&j);

    assert_int_equal(ftruncate(fd, 0), 0);
    assert_int_equal(pwrite(fd, bad, strlen(bad), 0), (ssize_t)strlen(bad));
    rb_err_clear(&err);
    assert_null(rb_json_load(path, &err));
    assert_int_equal(err.code, -EINVAL);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(
        strstr(err.msg, "line 3 column 1: expected a member name in double quotes, found '}'"));

    assert_int_equal(ftruncate(fd, 0), 0);
    rb_err_clear(&err);
    assert_null(rb_json_load(path, &err));
    assert_non_null(strstr(err.msg, "line 1 column 1: expected a value, found end of input"));
    close(fd);
    unlink(path);
}

/* A locale with a decimal comma: one installed, or de_DE compiled by
 * localedef (Debian's locales) into the test's own folder and found through
 * LOCPATH. 1 when LC_NUMERIC is now such a locale. */
static int s_comma_locale(void)
{
    static const char *names[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (setlocale(LC_NUMERIC, names[i]))
            return 1;
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "mkdir -p '%s' && localedef -i de_DE -f UTF-8 -c '%s/de_DE.UTF-8' >/dev/null 2>&1",
             RB_TEST_TMP, RB_TEST_TMP);
    /* made by an earlier run, or now (glibc remembers a locale it did not
     * find: it is looked up once, after it is made) */
    if (access(RB_TEST_TMP "/de_DE.UTF-8/LC_NUMERIC", R_OK) != 0 && system(cmd) != 0)
        return 0;
    setenv("LOCPATH", RB_TEST_TMP, 1);
    int ok = setlocale(LC_NUMERIC, "de_DE.UTF-8") != NULL;
    unsetenv("LOCPATH");
    return ok;
}

/* Numbers must use '.' whatever LC_NUMERIC says. */
static void test_locale_independent(void **state)
{
    char *t;
    rb_json_t *j;
    (void)state;

    if (!s_comma_locale())
        rb_skip("no locale with a decimal comma, and localedef (locales) cannot make one");
    assert_string_equal(localeconv()->decimal_point, ",");
    t = num_text(0.25);
    j = parse_ok("[0.5]");
    setlocale(LC_NUMERIC, "C");
    assert_string_equal(t, "0.25");
    assert_true(rb_json_num(rb_json_at(j, 0), 0) == 0.5);
    rb_json_free(&j);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_layout),
        cmocka_unit_test(test_writer_escapes),
        cmocka_unit_test(test_writer_numbers),
        cmocka_unit_test(test_writer_double_round_trip),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_writer_depth),
        cmocka_unit_test(test_writer_misuse),
        cmocka_unit_test(test_writer_write_failure),
        cmocka_unit_test(test_parse_values),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_null_args),
        cmocka_unit_test(test_parse_truncated_and_corrupt),
        cmocka_unit_test(test_path),
        cmocka_unit_test(test_accessors_tolerate_null),
        cmocka_unit_test(test_load),
        cmocka_unit_test(test_locale_independent),
    };

    return rb_test_exit(cmocka_run_group_tests_name("rb_json", tests, NULL, NULL));
}
