/* "did you mean": the option nearest to a key the table does not know, by
 * edit distance over the keys and fio's other names (rb_opt_suggest). */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rb_plan_int.h"
#include "rb_text.h"

/* The best of o's names for key so far: copies it into best (len bytes) and updates *best_d. */
static void s_suggest_row(const rb_opt_t *o, const char *key, size_t cap, char *best, size_t len,
                          size_t *best_d)
{
    char name[64];
    const char *c = o->key;
    for (bool first = true; c && *c; first = false) {
        const char *end = first ? NULL : strchr(c, ',');
        size_t n = end ? (size_t)(end - c) : strlen(c);
        if (n < sizeof name) {
            memcpy(name, c, n);
            name[n] = '\0';
            size_t d = rb_text_distance(key, name, cap);
            if (d < *best_d) {
                *best_d = d;
                snprintf(best, len, "%s", name);
            }
        }
        c = first ? o->aliases : (end ? end + 1 : NULL);
    }
}

const char *rb_opt_suggest(const char *key, char *buf, size_t len)
{
    size_t cap = strlen(key) <= 4 ? 1 : 2; /* short names are all close to each other */
    size_t best_d = cap + 1;
    if (!len)
        return NULL;
    buf[0] = '\0';
    /* rackbench's options first, then fio's ignored ones; never one not supported yet */
    for (size_t i = 0; i < rb_opt_count(); i++)
        if (rb_opt_at(i)->kind != RB_OPT_IGNORED && rb_opt_at(i)->kind != RB_OPT_NOT_YET)
            s_suggest_row(rb_opt_at(i), key, cap, buf, len, &best_d);
    for (size_t i = 0; i < rb_opt_count(); i++)
        if (rb_opt_at(i)->kind == RB_OPT_IGNORED)
            s_suggest_row(rb_opt_at(i), key, cap, buf, len, &best_d);
    return buf[0] ? buf : NULL;
}
