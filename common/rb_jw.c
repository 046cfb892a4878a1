/* The streaming JSON writer (rb_jw.h): summary.json is written here with
 * a stable layout users script against. */
#include "rb_jw.h"
#include "rb_text.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define S_TWO_53 9007199254740992.0

/* printf/strtod follow LC_NUMERIC; JSON always uses '.', so numbers go through the C locale. */
static locale_t s_c_loc;
static pthread_once_t s_c_loc_once = PTHREAD_ONCE_INIT;

static void s_c_loc_init(void)
{
    s_c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

locale_t rb_jw_c_locale(void)
{
    pthread_once(&s_c_loc_once, s_c_loc_init);
    return s_c_loc;
}

void rb_jw_init(rb_jw_t *w, FILE *f)
{
    if (!w)
        return;
    memset(w, 0, sizeof(*w));
    w->f = f;
    w->first[0] = 1;
    if (!f)
        w->err = -EINVAL;
}

/* Keeps the first error; later output is dropped so the document stops where it failed. */
static void s_jw_fail(rb_jw_t *w, int code)
{
    if (!w->err)
        w->err = code;
}

/* A failed stdio call that left errno at 0 counts as -EIO. */
static void s_jw_put(rb_jw_t *w, const char *s, size_t len)
{
    if (w->err || len == 0)
        return;
    errno = 0;
    /* a writer is the one user of its stream: no lock per token */
    if (fwrite_unlocked(s, 1, len, w->f) != len)
        s_jw_fail(w, errno ? -errno : -EIO);
}

static void s_jw_puts(rb_jw_t *w, const char *s)
{
    s_jw_put(w, s, strlen(s));
}

/* Writes s as a JSON string: '"' and '\' escaped, control characters as \u00XX, other bytes
 * (UTF-8 included) unchanged. */
static void s_jw_string(rb_jw_t *w, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const char *run = s;
    const char *p;

    s_jw_put(w, "\"", 1);
    for (p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        char esc[6];
        size_t elen;

        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            elen = 2;
        } else if (c < 0x20) {
            memcpy(esc, "\\u00", 4);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 0xf];
            elen = 6;
        } else {
            continue;
        }
        s_jw_put(w, run, (size_t)(p - run));
        s_jw_put(w, esc, elen);
        run = p + 1;
    }
    s_jw_put(w, run, (size_t)(p - run));
    s_jw_put(w, "\"", 1);
}

/* Two spaces a level of depth, in one write. */
static void s_jw_indent(rb_jw_t *w)
{
    static const char spaces[] = "                                                                ";
    for (size_t left = 2 * (size_t)w->depth; left > 0;) {
        size_t k = left < sizeof spaces - 1 ? left : sizeof spaces - 1;
        s_jw_put(w, spaces, k);
        left -= k;
    }
}

/* Starts a value: separator, newline and indent inside a container, then the member name.
 * Returns 0 if the value may be written, -1 after an error. */
static int s_jw_lead(rb_jw_t *w, const char *key)
{
    if (w->err)
        return -1;
    if (w->depth == 0) {
        /* one top-level value, without a name */
        if (!w->first[0] || key) {
            s_jw_fail(w, -EINVAL);
            return -1;
        }
        w->first[0] = 0;
        return 0;
    }
    s_jw_puts(w, w->first[w->depth] ? "\n" : ",\n");
    w->first[w->depth] = 0;
    s_jw_indent(w);
    if (key) {
        s_jw_string(w, key);
        s_jw_put(w, ": ", 2);
    }
    return w->err ? -1 : 0;
}

static void s_jw_begin(rb_jw_t *w, const char *key, const char *open)
{
    if (!w)
        return;
    if (!w->err && w->depth + 1 >= (int)(sizeof(w->first) / sizeof(w->first[0]))) {
        s_jw_fail(w, -EOVERFLOW);
        return;
    }
    if (s_jw_lead(w, key) < 0)
        return;
    s_jw_puts(w, open);
    w->depth++;
    w->first[w->depth] = 1;
}

static void s_jw_end(rb_jw_t *w, const char *close)
{
    if (!w || w->err)
        return;
    if (w->depth == 0) {
        s_jw_fail(w, -EINVAL);
        return;
    }
    w->depth--;
    if (!w->first[w->depth + 1]) {
        /* non-empty: the closing bracket gets its own line; empty containers stay "{}" */
        s_jw_put(w, "\n", 1);
        s_jw_indent(w);
    }
    s_jw_puts(w, close);
}

void rb_jw_obj_begin(rb_jw_t *w, const char *key)
{
    s_jw_begin(w, key, "{");
}

void rb_jw_obj_end(rb_jw_t *w)
{
    s_jw_end(w, "}");
}

void rb_jw_arr_begin(rb_jw_t *w, const char *key)
{
    s_jw_begin(w, key, "[");
}

void rb_jw_arr_end(rb_jw_t *w)
{
    s_jw_end(w, "]");
}

/* Writes a value that is already JSON text (number or literal). */
static void s_jw_raw(rb_jw_t *w, const char *key, const char *text)
{
    if (!w || s_jw_lead(w, key) < 0)
        return;
    s_jw_puts(w, text);
}

void rb_jw_str(rb_jw_t *w, const char *key, const char *val)
{
    if (!val) {
        s_jw_raw(w, key, "null");
        return;
    }
    if (!w || s_jw_lead(w, key) < 0)
        return;
    s_jw_string(w, val);
}

void rb_jw_u64(rb_jw_t *w, const char *key, uint64_t val)
{
    char buf[32];
    s_jw_raw(w, key, rb_text_u64(buf + sizeof buf - 1, val));
}

void rb_jw_i64(rb_jw_t *w, const char *key, int64_t val)
{
    char buf[32];
    char *p = rb_text_u64(buf + sizeof buf - 1, val < 0 ? 0 - (uint64_t)val : (uint64_t)val);
    if (val < 0)
        *--p = '-';
    s_jw_raw(w, key, p);
}

/* Formats a finite double: integral values below 2^53 as plain integers, others with the
 * fewest of 15..17 significant digits that read back to the same double. */
static void s_fmt_double(char *buf, size_t size, double val)
{
    locale_t c = rb_jw_c_locale();
    locale_t old = c ? uselocale(c) : (locale_t)0;
    int prec;

    if (val == floor(val) && fabs(val) < S_TWO_53) {
        snprintf(buf, size, "%.0f", val);
    } else {
        for (prec = 15; prec <= 17; prec++) {
            snprintf(buf, size, "%.*g", prec, val);
            if (strtod(buf, NULL) == val)
                break;
        }
    }
    if (c)
        uselocale(old);
}

void rb_jw_num(rb_jw_t *w, const char *key, double val)
{
    char buf[40];

    if (!isfinite(val)) {
        s_jw_raw(w, key, "null");
        return;
    }
    s_fmt_double(buf, sizeof(buf), val);
    s_jw_raw(w, key, buf);
}

void rb_jw_bool(rb_jw_t *w, const char *key, int val)
{
    s_jw_raw(w, key, val ? "true" : "false");
}

void rb_jw_null(rb_jw_t *w, const char *key)
{
    s_jw_raw(w, key, "null");
}

int rb_jw_finish(rb_jw_t *w)
{
    if (!w)
        return -EINVAL;
    if (!w->err && w->depth != 0)
        s_jw_fail(w, -EINVAL); /* containers left open */
    if (w->err)
        return w->err;
    s_jw_put(w, "\n", 1);
    errno = 0;
    if (!w->err && fflush(w->f) != 0)
        s_jw_fail(w, errno ? -errno : -EIO);
    if (!w->err && ferror(w->f))
        s_jw_fail(w, -EIO);
    return w->err;
}
