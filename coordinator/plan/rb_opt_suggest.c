/* "did you mean": the option nearest to a key the table does not know, by
 * edit distance over the keys and fio's other names (rb_opt_suggest). */
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "rb_plan_int.h"

/* Edit distance of two short strings ignoring case, a swap of neighbours
 * counting as one edit; returns cap+1 when larger than cap. */
static size_t s_distance(const char *a, const char *b, size_t cap)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 32 || lb > 32 || (la > lb ? la - lb : lb - la) > cap)
        return cap + 1;
    size_t d[33][33];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            char ai = (char)tolower((unsigned char)a[i - 1]);
            char bj = (char)tolower((unsigned char)b[j - 1]);
            size_t best = d[i - 1][j - 1] + (ai != bj);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
                tolower((unsigned char)a[i - 2]) == bj && d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

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
            size_t d = s_distance(key, name, cap);
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
