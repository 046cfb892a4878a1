/* The reader and print of fio's error options: continue_on_error (which
 * classes of IO errors a job goes on after) and ignore_error (per class,
 * which errnos). What they mean is in docs/plan.md; the agent applies them
 * in workloads/rb_data.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rb_plan_int.h"

/* fio's names of continue_on_error, the print's name first for each value. */
static const struct {
    const char *name;
    uint32_t bits;
} s_classes[] = {{"none", 0},
                 {"read", RB_ERR_CLASS_READ},
                 {"write", RB_ERR_CLASS_WRITE},
                 {"io", RB_ERR_CLASS_READ | RB_ERR_CLASS_WRITE},
                 {"verify", RB_ERR_CLASS_VERIFY},
                 {"all", RB_ERR_CLASS_ALL},
                 {"0", 0},
                 {"1", RB_ERR_CLASS_ALL}};
#define S_NCLASSES (sizeof s_classes / sizeof s_classes[0])

/* Sets class c's list of js (0 reads, 1 writes, 2 verify) to the n errnos
 * of e, the other classes' lists kept. */
static void s_set_list(rb_job_spec_t *js, unsigned c, const uint8_t *e, uint32_t n)
{
    uint8_t lists[3][RB_IGNORE_ERR_MAX];
    uint32_t counts[3];
    for (unsigned k = 0; k < 3; k++) {
        const uint8_t *l = NULL;
        counts[k] = rb_job_ignore_list(js, k, &l);
        memcpy(lists[k], l, counts[k]);
    }
    memcpy(lists[c], e, n);
    counts[c] = n;
    uint32_t at = 3;
    for (unsigned k = 0; k < 3; k++) {
        js->ignore_error[k] = (uint8_t)counts[k];
        memcpy(js->ignore_error + at, lists[k], counts[k]);
        at += counts[k];
    }
    js->ignore_error_len = at;
}

/* The errno a name (ENOSPC) or a number names, or -1. */
static int s_errno(const char *tok)
{
    if (tok[0] == 'E') {
        for (int e = 1; e < 256; e++) {
            const char *n = strerrorname_np(e);
            if (n && !strcmp(n, tok))
                return e;
        }
        return -1;
    }
    char *end = NULL;
    errno = 0;
    long v = strtol(tok, &end, 10);
    if (errno || end == tok || *end || v < 1 || v > 255)
        return -1;
    return (int)v;
}

int rb_opt_value_continue_on_error(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                                   const char *key, const char *val, unsigned line)
{
    (void)opt;
    for (size_t i = 0; i < S_NCLASSES; i++)
        if (!strcmp(val, s_classes[i].name)) {
            o->spec.continue_on_error = s_classes[i].bits;
            return 0;
        }
    return rb_plan_fail(ps, line, "%s=%.64s: not one of none, read, write, io, verify, all, 0 or 1",
                        key, val);
}

/* READ[,WRITE[,VERIFY]], each a list of errnos by name or number split by
 * ':'; an empty part leaves its class alone. As in fio, a class given a list
 * is one the job goes on after. */
int rb_opt_value_ignore_error(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                              const char *key, const char *val, unsigned line)
{
    (void)opt;
    char part[256];
    const char *p = val;
    int bad = 0;
    for (int c = 0; *p || c == 0; c++) {
        size_t n = strcspn(p, ",");
        if (c > 2)
            return rb_plan_fail(ps, line, "%s=%.64s: more than 3 lists (read, write, verify)", key,
                                val);
        if (n >= sizeof part)
            return rb_plan_fail(ps, line, "%s=%.64s: a list too long", key, val);
        memcpy(part, p, n);
        part[n] = '\0';
        p += n + (p[n] == ',');
        if (!n)
            continue;
        uint8_t got[RB_IGNORE_ERR_MAX];
        uint32_t k = 0;
        for (char *save = NULL, *t = strtok_r(part, ":", &save); t;
             t = strtok_r(NULL, ":", &save)) {
            int e = s_errno(t);
            if (e < 0) {
                rb_plan_fail(ps, line,
                             "%s=%.64s: unknown error %.32s (an errno name such as "
                             "ENOSPC, or its number)",
                             key, val, t);
                bad = 1;
                continue;
            }
            if (k == RB_IGNORE_ERR_MAX)
                return rb_plan_fail(ps, line, "%s=%.64s: more than %d errors in a list", key, val,
                                    RB_IGNORE_ERR_MAX);
            got[k++] = (uint8_t)e;
        }
        if (!k && !bad)
            return rb_plan_fail(ps, line, "%s=%.64s: an empty list", key, val);
        s_set_list(&o->spec, (unsigned)c, got, k);
        o->spec.continue_on_error |= 1u << c;
    }
    return bad ? -EINVAL : 0;
}

/* The lists of ignore_error, each class's errnos by name. */
static void s_print_lists(const rb_job_spec_t *js, FILE *f)
{
    fprintf(f, "ignore_error=");
    for (int c = 0; c < 3; c++) {
        const uint8_t *list = NULL;
        uint32_t len = rb_job_ignore_list(js, (unsigned)c, &list);
        for (uint32_t i = 0; i < len; i++) {
            const char *n = strerrorname_np(list[i]);
            if (n)
                fprintf(f, "%s%s", i ? ":" : "", n);
            else
                fprintf(f, "%s%u", i ? ":" : "", list[i]);
        }
        fprintf(f, "%s", c < 2 ? "," : "\n");
    }
}

/* continue_on_error and ignore_error, in an order that reads back the same:
 * a class with a list goes on by the list, the rest by the smallest of
 * fio's names that holds them. */
void rb_opt_print_errors(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    const uint8_t *l = NULL;
    uint32_t listed = 0;
    for (unsigned c = 0; c < 3; c++)
        listed |= rb_job_ignore_list(js, c, &l) ? 1u << c : 0;
    uint32_t v = js->continue_on_error;
    if (listed & ~v) {
        /* a continue_on_error after the lists took some classes back */
        s_print_lists(js, f);
        for (size_t i = 0; i < S_NCLASSES; i++)
            if (s_classes[i].bits == v) {
                fprintf(f, "%s=%s\n", opt->key, s_classes[i].name);
                return;
            }
        return;
    }
    uint32_t rest = v & ~listed;
    for (size_t i = 0; rest && i < S_NCLASSES; i++)
        if ((s_classes[i].bits & rest) == rest && !(s_classes[i].bits & ~v)) {
            fprintf(f, "%s=%s\n", opt->key, s_classes[i].name);
            break;
        }
    if (listed)
        s_print_lists(js, f);
}
