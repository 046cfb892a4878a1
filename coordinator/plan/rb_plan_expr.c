/* fio's arithmetic in option values: where a number is wanted, a value in
 * parentheses is an expression of whole numbers (each with fio's size
 * suffixes) and + - * / % ^ with the usual precedence, ^ binding tightest
 * and to the right. Results are whole and not negative, as the options
 * they fill. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "rb_plan_int.h"
#include "rb_units.h"

#define S_DEPTH_MAX 64 /* nested parentheses at the most */

typedef struct {
    const char *p;   /* next character */
    unsigned kb;     /* kb_base for suffixes */
    const char *why; /* what went wrong */
    unsigned depth;
} s_expr_t;

static void s_blank(s_expr_t *e)
{
    while (*e->p == ' ' || *e->p == '\t')
        e->p++;
}

static int s_sum(s_expr_t *e, __int128 *out);

/* A number with its suffix, or a parenthesised sum. */
static int s_atom(s_expr_t *e, __int128 *out)
{
    s_blank(e);
    if (*e->p == '(') {
        if (++e->depth > S_DEPTH_MAX) {
            e->why = "too many nested parentheses";
            return -EINVAL;
        }
        e->p++;
        int rc = s_sum(e, out);
        if (rc < 0)
            return rc;
        s_blank(e);
        if (*e->p != ')') {
            e->why = "a '(' without its ')'";
            return -EINVAL;
        }
        e->p++;
        e->depth--;
        return 0;
    }
    if (*e->p == '-') { /* a sign: the result must still not be negative */
        e->p++;
        int rc = s_atom(e, out);
        *out = -*out;
        return rc;
    }
    char tok[64];
    size_t n = 0;
    while (isalnum((unsigned char)e->p[n]) && n < sizeof tok - 1) {
        tok[n] = e->p[n];
        n++;
    }
    tok[n] = '\0';
    uint64_t v;
    if (!n || rb_units_parse_fio_size(tok, e->kb, &v) < 0) {
        e->why = n ? "a term is not a whole number with a size suffix" : "a term is missing";
        return -EINVAL;
    }
    e->p += n;
    *out = v;
    return 0;
}

/* a ^ b ^ c, to the right. */
static int s_power(s_expr_t *e, __int128 *out)
{
    int rc = s_atom(e, out);
    if (rc < 0)
        return rc;
    s_blank(e);
    if (*e->p != '^')
        return 0;
    e->p++;
    __int128 x;
    if ((rc = s_power(e, &x)) < 0)
        return rc;
    if (x < 0 || x > 64) {
        e->why = "an exponent is not from 0 to 64";
        return -EINVAL;
    }
    __int128 r = 1;
    for (int i = 0; i < (int)x; i++) {
        r *= *out;
        if (r > (__int128)UINT64_MAX || r < -(__int128)UINT64_MAX) {
            e->why = "the result is too large";
            return -ERANGE;
        }
    }
    *out = r;
    return 0;
}

static int s_product(s_expr_t *e, __int128 *out)
{
    int rc = s_power(e, out);
    for (;;) {
        if (rc < 0)
            return rc;
        s_blank(e);
        char op = *e->p;
        if (op != '*' && op != '/' && op != '%')
            return 0;
        e->p++;
        __int128 x;
        if ((rc = s_power(e, &x)) < 0)
            return rc;
        if (op != '*' && x == 0) {
            e->why = "a division by 0";
            return -EINVAL;
        }
        *out = op == '*' ? *out * x : op == '/' ? *out / x : *out % x;
        if (*out > (__int128)UINT64_MAX || *out < -(__int128)UINT64_MAX) {
            e->why = "the result is too large";
            return -ERANGE;
        }
    }
}

static int s_sum(s_expr_t *e, __int128 *out)
{
    int rc = s_product(e, out);
    for (;;) {
        if (rc < 0)
            return rc;
        s_blank(e);
        char op = *e->p;
        if (op != '+' && op != '-')
            return 0;
        e->p++;
        __int128 x;
        if ((rc = s_product(e, &x)) < 0)
            return rc;
        *out = op == '+' ? *out + x : *out - x;
        if (*out > (__int128)UINT64_MAX || *out < -(__int128)UINT64_MAX) {
            e->why = "the result is too large";
            return -ERANGE;
        }
    }
}

int rb_plan_expr_eval(const char *text, unsigned kb_base, uint64_t *out, const char **why)
{
    s_expr_t e = {.p = text, .kb = kb_base, .why = NULL};
    __int128 v;
    int rc = s_atom(&e, &v);
    if (rc == 0) {
        s_blank(&e);
        if (*e.p) {
            e.why = "text after the closing ')'";
            rc = -EINVAL;
        } else if (v < 0) {
            e.why = "the result is negative";
            rc = -EINVAL;
        }
    }
    if (rc < 0) {
        *why = e.why ? e.why : "not an expression";
        return rc;
    }
    *out = (uint64_t)v;
    return 0;
}
