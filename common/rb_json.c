/* JSON read back from run folders (reports, comparisons, tests) through a
 * small DOM; strict RFC 8259, with line and column in every error. */
#include "rb_json.h"

#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define S_MAX_DEPTH 256 /* reader nesting limit */

typedef struct {
    char *key;  /* member name, NUL-terminated (may hold NULs from \u0000) */
    size_t len; /* its length in bytes */
} s_key_t;

struct rb_json {
    rb_json_type_t type; /* which member of u is valid */
    union {
        int b;      /* RB_JSON_BOOL */
        double num; /* RB_JSON_NUM */
        struct {
            char *p;    /* decoded UTF-8, NUL-terminated */
            size_t len; /* bytes before the terminator */
        } str;          /* RB_JSON_STR */
        struct {
            rb_json_t *items; /* n values, in document order */
            s_key_t *keys;    /* n member names (objects only, NULL for arrays) */
            size_t n;         /* member/element count */
        } c;                  /* RB_JSON_ARR, RB_JSON_OBJ */
    } u;
};

typedef struct {
    const char *start; /* first byte of the text */
    const char *end;   /* one past the last byte */
    const char *p;     /* next byte to read */
    rb_err_t *err;     /* where the first error goes (may be NULL) */
    locale_t loc;      /* C locale for strtod_l, or 0 */
} s_parser_t;

static void s_node_fini(rb_json_t *j)
{
    size_t i;

    switch (j->type) {
    case RB_JSON_STR:
        free(j->u.str.p);
        break;
    case RB_JSON_ARR:
    case RB_JSON_OBJ:
        for (i = 0; i < j->u.c.n; i++) {
            s_node_fini(&j->u.c.items[i]);
            if (j->u.c.keys)
                free(j->u.c.keys[i].key);
        }
        free(j->u.c.items);
        free(j->u.c.keys);
        break;
    default:
        break;
    }
    j->type = RB_JSON_NULL;
}

/* Describes the byte at q for a message: "end of input", "'x'" or "byte 0xNN". */
static const char *s_found(const s_parser_t *ps, const char *q, char *buf, size_t size)
{
    unsigned char c;

    if (q >= ps->end)
        return "end of input";
    c = (unsigned char)*q;
    if (c > 0x20 && c < 0x7f)
        snprintf(buf, size, "'%c'", c);
    else if (c == ' ')
        snprintf(buf, size, "a space");
    else if (c == '\n')
        snprintf(buf, size, "a line break");
    else
        snprintf(buf, size, "byte 0x%02x", c);
    return buf;
}

/* Line and column (1-based; columns count UTF-8 characters, a tab is one) of q. */
static void s_line_col(const s_parser_t *ps, const char *q, size_t *line, size_t *col)
{
    const char *s;

    *line = 1;
    *col = 1;
    for (s = ps->start; s < q && s < ps->end; s++) {
        if (*s == '\n') {
            (*line)++;
            *col = 1;
        } else if (((unsigned char)*s & 0xc0) != 0x80) {
            (*col)++;
        }
    }
}

/* Records "line L column C: <what>" for position q; returns -EINVAL. */
__attribute__((format(printf, 3, 4))) static int s_fail(s_parser_t *ps, const char *q,
                                                        const char *fmt, ...)
{
    char what[256];
    size_t line, col;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    s_line_col(ps, q, &line, &col);
    rb_err_set(ps->err, -EINVAL, "line %zu column %zu: %s", line, col, what);
    return -EINVAL;
}

static int s_nomem(s_parser_t *ps)
{
    rb_err_set(ps->err, -ENOMEM, "out of memory while parsing JSON");
    return -ENOMEM;
}

static void s_skip_ws(s_parser_t *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int s_hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Reads the 4 hex digits after "\u" at q (q points at the backslash). Returns 0..0xffff or -1. */
static long s_read_u4(const s_parser_t *ps, const char *q)
{
    long v = 0;
    int i;

    if (ps->end - q < 6 || q[0] != '\\' || q[1] != 'u')
        return -1;
    for (i = 2; i < 6; i++) {
        int h = s_hexval(q[i]);
        if (h < 0)
            return -1;
        v = (v << 4) | h;
    }
    return v;
}

static size_t s_put_utf8(char *out, unsigned long cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* Parses a string at ps->p (on the opening quote) into a new NUL-terminated buffer.
 * Bytes >= 0x80 are copied as they are (UTF-8 is not validated). About a
 * hundred lines: every escape of RFC 8259, \u surrogate pairs among them, is
 * decoded in the one copying loop, which reads best whole. */
static int s_parse_string(s_parser_t *ps, char **out, size_t *out_len)
{
    const char *open = ps->p;
    const char *q = open + 1;
    const char *close;
    char *buf, *o;

    /* find the closing quote first: the decoded text is never longer than the raw one */
    while (q < ps->end && *q != '"') {
        if (*q == '\\' && ++q >= ps->end)
            break;
        q++;
    }
    if (q >= ps->end) {
        size_t line, col;

        s_line_col(ps, open, &line, &col);
        return s_fail(ps, ps->end,
                      "expected '\"' to close the string opened at line %zu column %zu, "
                      "found end of input",
                      line, col);
    }
    close = q;
    buf = malloc((size_t)(close - open));
    if (!buf)
        return s_nomem(ps);
    o = buf;
    for (q = open + 1; q < close;) {
        unsigned char c = (unsigned char)*q;
        char fb[16];
        long cp, lo;

        if (c < 0x20) {
            free(buf);
            return s_fail(ps, q, "control character 0x%02x in a string must be escaped", c);
        }
        if (c != '\\') {
            *o++ = (char)c;
            q++;
            continue;
        }
        switch (q[1]) { /* q + 1 < close: the scan above skipped the byte after '\' */
        case '"':
        case '\\':
        case '/':
            *o++ = q[1];
            break;
        case 'b':
            *o++ = '\b';
            break;
        case 'f':
            *o++ = '\f';
            break;
        case 'n':
            *o++ = '\n';
            break;
        case 'r':
            *o++ = '\r';
            break;
        case 't':
            *o++ = '\t';
            break;
        case 'u':
            cp = s_read_u4(ps, q);
            if (cp < 0 || q + 6 > close) {
                free(buf);
                return s_fail(ps, q, "expected 4 hex digits after \\u");
            }
            if (cp >= 0xdc00 && cp <= 0xdfff) {
                free(buf);
                return s_fail(ps, q, "low surrogate \\u%04lx without a high surrogate before it",
                              cp);
            }
            if (cp >= 0xd800 && cp <= 0xdbff) {
                lo = q + 12 <= close ? s_read_u4(ps, q + 6) : -1;
                if (lo < 0xdc00 || lo > 0xdfff) {
                    free(buf);
                    return s_fail(ps, q, "expected a low surrogate \\uDC00-\\uDFFF after \\u%04lx",
                                  cp);
                }
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                q += 6;
            }
            o += s_put_utf8(o, (unsigned long)cp);
            q += 6;
            continue;
        default:
            free(buf);
            return s_fail(ps, q,
                          "invalid escape: expected one of \\\" \\\\ \\/ \\b \\f \\n \\r "
                          "\\t \\u after '\\', found %s",
                          s_found(ps, q + 1, fb, sizeof(fb)));
        }
        q += 2;
    }
    *o = '\0';
    *out = buf;
    *out_len = (size_t)(o - buf);
    ps->p = close + 1;
    return 0;
}

static int s_is_digit(const s_parser_t *ps, const char *q)
{
    return q < ps->end && *q >= '0' && *q <= '9';
}

/* Validates a number token per RFC 8259, then converts it with strtod. */
static int s_parse_number(s_parser_t *ps, double *out)
{
    const char *s = ps->p;
    const char *q = s;
    char small[64], fb[16];
    char *tok;
    size_t len;

    if (q < ps->end && *q == '-')
        q++;
    if (!s_is_digit(ps, q))
        return s_fail(ps, q, "expected a digit after '-', found %s",
                      s_found(ps, q, fb, sizeof(fb)));
    if (*q == '0') {
        if (s_is_digit(ps, q + 1))
            return s_fail(ps, q, "numbers must not have a leading zero");
        q++;
    } else {
        while (s_is_digit(ps, q))
            q++;
    }
    if (q < ps->end && *q == '.') {
        q++;
        if (!s_is_digit(ps, q))
            return s_fail(ps, q, "expected a digit after '.', found %s",
                          s_found(ps, q, fb, sizeof(fb)));
        while (s_is_digit(ps, q))
            q++;
    }
    if (q < ps->end && (*q == 'e' || *q == 'E')) {
        q++;
        if (q < ps->end && (*q == '+' || *q == '-'))
            q++;
        if (!s_is_digit(ps, q))
            return s_fail(ps, q, "expected a digit in the exponent, found %s",
                          s_found(ps, q, fb, sizeof(fb)));
        while (s_is_digit(ps, q))
            q++;
    }

    len = (size_t)(q - s);
    tok = len < sizeof(small) ? small : malloc(len + 1);
    if (!tok)
        return s_nomem(ps);
    memcpy(tok, s, len);
    tok[len] = '\0';
    *out = ps->loc ? strtod_l(tok, NULL, ps->loc) : strtod(tok, NULL);
    if (tok != small)
        free(tok);
    if (isinf(*out))
        return s_fail(ps, s, "number out of the range of a double");
    ps->p = q;
    return 0;
}

static int s_parse_value(s_parser_t *ps, rb_json_t *out, int depth);

/* Appends *v (moved) and, for objects, key to the growing container c with capacity *cap. */
static int s_append(s_parser_t *ps, rb_json_t *c, size_t *cap, rb_json_t *v, char *key, size_t klen)
{
    if (c->u.c.n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 4;
        rb_json_t *items;

        if (ncap > SIZE_MAX / sizeof(rb_json_t))
            return s_nomem(ps);
        items = realloc(c->u.c.items, ncap * sizeof(rb_json_t));
        if (!items)
            return s_nomem(ps);
        c->u.c.items = items;
        if (c->type == RB_JSON_OBJ) {
            s_key_t *keys = realloc(c->u.c.keys, ncap * sizeof(s_key_t));
            if (!keys)
                return s_nomem(ps);
            c->u.c.keys = keys;
        }
        *cap = ncap;
    }
    if (c->type == RB_JSON_OBJ) {
        c->u.c.keys[c->u.c.n].key = key;
        c->u.c.keys[c->u.c.n].len = klen;
    }
    c->u.c.items[c->u.c.n++] = *v;
    return 0;
}

/* Parses an array or object at ps->p (on '[' or '{') into out. */
static int s_parse_container(s_parser_t *ps, rb_json_t *out, int depth)
{
    int is_obj = *ps->p == '{';
    char close = is_obj ? '}' : ']';
    size_t cap = 0;
    char fb[16];
    int rc;

    if (depth >= S_MAX_DEPTH)
        return s_fail(ps, ps->p, "nesting deeper than %d levels", S_MAX_DEPTH);
    memset(out, 0, sizeof(*out));
    out->type = is_obj ? RB_JSON_OBJ : RB_JSON_ARR;
    ps->p++;
    s_skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return 0;
    }
    for (;;) {
        rb_json_t v;
        char *key = NULL;
        size_t klen = 0;

        if (is_obj) {
            if (ps->p >= ps->end || *ps->p != '"') {
                rc = s_fail(ps, ps->p, "expected a member name in double quotes%s, found %s",
                            out->u.c.n ? "" : " or '}'", s_found(ps, ps->p, fb, sizeof(fb)));
                goto fail;
            }
            rc = s_parse_string(ps, &key, &klen);
            if (rc < 0)
                goto fail;
            s_skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':') {
                free(key);
                rc = s_fail(ps, ps->p, "expected ':' after the member name, found %s",
                            s_found(ps, ps->p, fb, sizeof(fb)));
                goto fail;
            }
            ps->p++;
            s_skip_ws(ps);
        }
        rc = s_parse_value(ps, &v, depth + 1);
        if (rc < 0) {
            free(key);
            goto fail;
        }
        rc = s_append(ps, out, &cap, &v, key, klen);
        if (rc < 0) {
            s_node_fini(&v);
            free(key);
            goto fail;
        }
        s_skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            s_skip_ws(ps);
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            return 0;
        }
        rc = s_fail(ps, ps->p, "expected ',' or '%c', found %s", close,
                    s_found(ps, ps->p, fb, sizeof(fb)));
        goto fail;
    }
fail:
    s_node_fini(out);
    return rc;
}

/* Matches the literal word at ps->p. */
static int s_parse_literal(s_parser_t *ps, const char *word)
{
    size_t len = strlen(word);

    if ((size_t)(ps->end - ps->p) < len || memcmp(ps->p, word, len) != 0)
        return s_fail(ps, ps->p, "expected '%s'", word);
    ps->p += len;
    return 0;
}

/* Parses one value at ps->p (whitespace already skipped). depth counts enclosing containers. */
static int s_parse_value(s_parser_t *ps, rb_json_t *out, int depth)
{
    char fb[16];
    int rc;

    memset(out, 0, sizeof(*out));
    if (ps->p >= ps->end)
        return s_fail(ps, ps->p, "expected a value, found end of input");
    switch (*ps->p) {
    case '{':
    case '[':
        return s_parse_container(ps, out, depth);
    case '"':
        rc = s_parse_string(ps, &out->u.str.p, &out->u.str.len);
        if (rc == 0)
            out->type = RB_JSON_STR;
        return rc;
    case 't':
    case 'f':
        out->u.b = *ps->p == 't';
        rc = s_parse_literal(ps, out->u.b ? "true" : "false");
        if (rc == 0)
            out->type = RB_JSON_BOOL;
        return rc;
    case 'n':
        return s_parse_literal(ps, "null");
    default:
        if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9')) {
            rc = s_parse_number(ps, &out->u.num);
            if (rc == 0)
                out->type = RB_JSON_NUM;
            return rc;
        }
        return s_fail(ps, ps->p, "expected a value, found %s", s_found(ps, ps->p, fb, sizeof(fb)));
    }
}

rb_json_t *rb_json_parse(const char *text, size_t len, rb_err_t *err)
{
    s_parser_t ps;
    rb_json_t *root;
    char fb[16];

    if (!text && len > 0) {
        rb_err_set(err, -EINVAL, "no text to parse");
        return NULL;
    }
    if (!text)
        text = "";
    /* RFC 8259 lets parsers ignore a UTF-8 byte order mark */
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
        text += 3;
        len -= 3;
    }
    ps.start = text;
    ps.end = text + len;
    ps.p = text;
    ps.err = err;
    ps.loc = rb_jw_c_locale();

    root = malloc(sizeof(*root));
    if (!root) {
        s_nomem(&ps);
        return NULL;
    }
    s_skip_ws(&ps);
    if (s_parse_value(&ps, root, 0) < 0) {
        free(root);
        return NULL;
    }
    s_skip_ws(&ps);
    if (ps.p < ps.end) {
        s_fail(&ps, ps.p, "expected end of input after the value, found %s",
               s_found(&ps, ps.p, fb, sizeof(fb)));
        rb_json_free(&root);
        return NULL;
    }
    return root;
}

rb_json_t *rb_json_load(const char *path, rb_err_t *err)
{
    rb_err_t perr;
    rb_json_t *j;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    FILE *f;

    if (!path) {
        rb_err_set(err, -EINVAL, "no JSON file path given");
        return NULL;
    }
    f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        rb_err_set(err, -e, "cannot open JSON file '%s': %s", path, strerror(e));
        return NULL;
    }
    for (;;) {
        size_t got;

        if (len == cap) {
            size_t ncap = cap ? cap * 2 : 65536;
            char *nbuf = ncap > cap ? realloc(buf, ncap) : NULL;

            if (!nbuf) {
                free(buf);
                fclose(f);
                rb_err_set(err, -ENOMEM, "cannot read JSON file '%s': out of memory", path);
                return NULL;
            }
            buf = nbuf;
            cap = ncap;
        }
        got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        int e = errno ? errno : EIO;

        free(buf);
        fclose(f);
        rb_err_set(err, -e, "cannot read JSON file '%s': %s", path, strerror(e));
        return NULL;
    }
    fclose(f);

    rb_err_clear(&perr);
    j = rb_json_parse(buf, len, &perr);
    free(buf);
    if (!j)
        rb_err_set(err, perr.code ? perr.code : -EINVAL, "%s: %s", path, perr.msg);
    return j;
}

void rb_json_free(rb_json_t **j)
{
    if (!j || !*j)
        return;
    s_node_fini(*j);
    free(*j);
    *j = NULL;
}

rb_json_type_t rb_json_type(const rb_json_t *j)
{
    return j ? j->type : RB_JSON_NULL;
}

/* First member of obj named key[0..len). */
static const rb_json_t *s_get(const rb_json_t *obj, const char *key, size_t len)
{
    size_t i;

    if (!obj || obj->type != RB_JSON_OBJ || !key)
        return NULL;
    for (i = 0; i < obj->u.c.n; i++) {
        const s_key_t *k = &obj->u.c.keys[i];
        if (k->len == len && memcmp(k->key, key, len) == 0)
            return &obj->u.c.items[i];
    }
    return NULL;
}

const rb_json_t *rb_json_get(const rb_json_t *obj, const char *key)
{
    return key ? s_get(obj, key, strlen(key)) : NULL;
}

size_t rb_json_len(const rb_json_t *j)
{
    if (!j || (j->type != RB_JSON_ARR && j->type != RB_JSON_OBJ))
        return 0;
    return j->u.c.n;
}

/* Arrays give their i-th element; objects their i-th member value (pairs with rb_json_key_at). */
const rb_json_t *rb_json_at(const rb_json_t *arr, size_t i)
{
    if (!arr || (arr->type != RB_JSON_ARR && arr->type != RB_JSON_OBJ) || i >= arr->u.c.n)
        return NULL;
    return &arr->u.c.items[i];
}

const char *rb_json_key_at(const rb_json_t *obj, size_t i)
{
    if (!obj || obj->type != RB_JSON_OBJ || i >= obj->u.c.n)
        return NULL;
    return obj->u.c.keys[i].key;
}

double rb_json_num(const rb_json_t *j, double dflt)
{
    return j && j->type == RB_JSON_NUM ? j->u.num : dflt;
}

const char *rb_json_str(const rb_json_t *j)
{
    return j && j->type == RB_JSON_STR ? j->u.str.p : NULL;
}

int rb_json_bool(const rb_json_t *j, int dflt)
{
    return j && j->type == RB_JSON_BOOL ? j->u.b : dflt;
}

uint64_t rb_json_get_u64(const rb_json_t *o, const char *key)
{
    double v = rb_json_num(rb_json_get(o, key), 0);
    return v > 0 ? (uint64_t)llround(v) : 0;
}

void rb_json_get_str(const rb_json_t *o, const char *key, char *out, size_t len)
{
    const char *v = rb_json_str(rb_json_get(o, key));
    snprintf(out, len, "%s", v ? v : "");
}

/* Each dot-separated segment is a member name in an object (so "0" finds a member named "0")
 * or a decimal index in an array. Member names containing '.' cannot be reached this way; use
 * rb_json_get. An empty path is the root itself; an empty segment finds nothing. */
const rb_json_t *rb_json_path(const rb_json_t *root, const char *path)
{
    const rb_json_t *cur = root;
    const char *seg = path;

    if (!root || !path)
        return NULL;
    if (*path == '\0')
        return root;
    for (;;) {
        const char *dot = strchr(seg, '.');
        size_t len = dot ? (size_t)(dot - seg) : strlen(seg);

        if (len == 0)
            return NULL;
        if (cur->type == RB_JSON_OBJ) {
            cur = s_get(cur, seg, len);
        } else if (cur->type == RB_JSON_ARR) {
            size_t idx = 0, k;

            for (k = 0; k < len; k++) {
                if (seg[k] < '0' || seg[k] > '9')
                    return NULL;
                if (idx > (SIZE_MAX - 9) / 10)
                    return NULL; /* far past any array length */
                idx = idx * 10 + (size_t)(seg[k] - '0');
            }
            cur = rb_json_at(cur, idx);
        } else {
            return NULL;
        }
        if (!cur)
            return NULL;
        if (!dot)
            return cur;
        seg = dot + 1;
    }
}
