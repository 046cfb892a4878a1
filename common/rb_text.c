/* Wrapping text at a width, trimming it, and how far apart two words are (rb_text.h). */
#include "rb_text.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

/* Where to break s, at most cap columns of it on this line: at the last
 * double space within cap (a gap between fields), else after the last ", "
 * or "; " (between clauses), in the second half or the last quarter of the
 * line;
 * else at the last space within cap, else at the first space after it (a
 * word longer than the line); strlen(s) when there is no space at all. */
static size_t s_break(const char *s, size_t cap)
{
    size_t gap = 0, clause = 0, space = 0;
    for (size_t i = 1; i <= cap && s[i]; i++) {
        if (s[i] != ' ')
            continue;
        if (s[i - 1] == ' ')
            gap = i - 1;
        else
            space = i;
        if (s[i - 1] == ',' || s[i - 1] == ';')
            clause = i;
    }
    if (gap && gap >= cap / 2)
        return gap;
    if (clause && clause >= cap * 3 / 4)
        return clause;
    if (space)
        return space;
    const char *sp = strchr(s, ' ');
    return sp ? (size_t)(sp - s) : strlen(s);
}

void rb_text_wrap(FILE *f, const char *text, size_t col, size_t indent, size_t width)
{
    const char *s = text;
    for (;;) {
        size_t cap = width > col ? width - col : 1, n = strlen(s);
        if (n <= cap) {
            fprintf(f, "%s\n", s);
            return;
        }
        size_t b = s_break(s, cap);
        fprintf(f, "%.*s\n", (int)b, s);
        s += b;
        s += strspn(s, " ");
        if (!*s)
            return;
        fprintf(f, "%*s", (int)indent, "");
        col = indent;
    }
}

size_t rb_text_distance(const char *a, const char *b, size_t cap)
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

char *rb_text_trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\v' ||
                     s[n - 1] == '\f'))
        s[--n] = '\0';
    return s;
}

char *rb_text_u64(char *end, uint64_t v)
{
    char *p = end;
    *p = '\0';
    do
        *--p = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    return p;
}

int rb_text_fixed_units(double x, unsigned places, uint64_t *units)
{
    static const double p10[] = {1, 10, 100, 1e3, 1e4, 1e5, 1e6};
    if (places >= sizeof p10 / sizeof p10[0] || !(x >= 0) || signbit(x))
        return -1;
    /* x * 10^places is off the exact product by at most 2^-53 of it: under
     * 1.2e-5 units below 1e11, so away from a tie it rounds the same way */
    double s = x * p10[places];
    if (!(s < 1e11))
        return -1;
    double whole = floor(s), frac = s - whole;
    if (fabs(frac - 0.5) < 1e-4)
        return -1;
    *units = (uint64_t)whole + (frac > 0.5);
    return 0;
}

int rb_text_fixed(char *buf, size_t cap, double x, unsigned places)
{
    uint64_t u;
    char t[40];
    if (rb_text_fixed_units(x, places, &u) < 0 || cap < sizeof t)
        return snprintf(buf, cap, "%.*f", (int)places, x);
    size_t k = 0; /* digits, lowest first, with the point after places of them */
    for (unsigned i = 0; i < places; i++, u /= 10)
        t[k++] = (char)('0' + u % 10);
    if (places)
        t[k++] = '.';
    do
        t[k++] = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    for (size_t i = 0; i < k; i++)
        buf[i] = t[k - 1 - i];
    buf[k] = '\0';
    return (int)k;
}
