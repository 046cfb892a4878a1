/* What a plan file becomes before its sections are read, as fio prepares a
 * job file: `include FILE` lines replaced by the file, `${VAR}` and fio's
 * `$ncpus`, `$mb_memory`, `$pagesize` replaced in values, and the command
 * line's --set options put at the end of each [global] section. The parser
 * then reads one text, and every line of it remembers the file and line it
 * came from, for messages. The text is bounded (RB_PLAN_MAX_* in
 * rb_plan.h): at a limit, or at an include that cannot be read, expansion
 * stops there; a value given from outside stays one value (no line break);
 * an included file's text is quoted in messages only once it reads as
 * options. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rb_plan_int.h"

#define S_STOP "; the plan is read no further"

/* Expansion ends with the problem rc just recorded: the rest is not read. */
static int s_stopped(rb_plan_parser_t *ps, int rc)
{
    ps->src_stopped = true;
    return rc;
}

/* The bytes the expanded text may reach: RB_PLAN_MAX_EXPANDED, or less
 * where the caller says. */
static size_t s_max_expanded(const rb_plan_parser_t *ps)
{
    uint32_t max = ps->input ? ps->input->max_expanded : 0;
    return max && max < RB_PLAN_MAX_EXPANDED ? max : RB_PLAN_MAX_EXPANDED;
}

/* The expanded text would pass its limit at file:line: said, and expansion
 * stops. -EINVAL. */
static int s_over_size(rb_plan_parser_t *ps, const char *file, unsigned line)
{
    size_t max = s_max_expanded(ps);
    return s_stopped(ps, rb_plan_fail_at(ps, file, line,
                                         "the expanded plan (includes, variables and command-line "
                                         "lines in place) passes the limit of %zu %s here" S_STOP,
                                         max % (1u << 20) ? max : max >> 20,
                                         max % (1u << 20) ? "bytes" : "MiB"));
}

/* Appends n bytes of text and a newline as one line of the expanded text,
 * which came from file:line, whatever the limits. 0 or -ENOMEM. */
static int s_emit_line(rb_plan_parser_t *ps, const char *text, size_t n, const char *file,
                       unsigned line)
{
    if (ps->nmap == ps->cap_map) {
        uint32_t cap = ps->cap_map ? ps->cap_map * 2 : 256;
        rb_plan_srcline_t *m = realloc(ps->map, cap * sizeof *m);
        if (!m)
            return rb_plan_nomem(ps);
        ps->map = m;
        ps->cap_map = cap;
    }
    if (rb_plan_text_put(&ps->work, &ps->work_len, &ps->work_cap, text, n) < 0 ||
        rb_plan_text_put(&ps->work, &ps->work_len, &ps->work_cap, "\n", 1) < 0)
        return rb_plan_nomem(ps);
    ps->map[ps->nmap].file = file;
    ps->map[ps->nmap].line = line;
    ps->map[ps->nmap].failed = false;
    ps->map[ps->nmap].included = ps->src_depth > 0;
    ps->nmap++;
    return 0;
}

/* As s_emit_line within the limits of the expanded text: past them the
 * problem is said at file:line and expansion stops (-EINVAL). */
static int s_emit(rb_plan_parser_t *ps, const char *text, size_t n, const char *file, unsigned line)
{
    if (ps->work_len + n + 1 > s_max_expanded(ps))
        return s_over_size(ps, file, line);
    if (ps->nmap >= RB_PLAN_MAX_LINES)
        return s_stopped(ps, rb_plan_fail_at(ps, file, line,
                                             "the expanded plan passes the limit of %u lines "
                                             "here" S_STOP,
                                             RB_PLAN_MAX_LINES));
    return s_emit_line(ps, text, n, file, line);
}

/* Keeps a copy of a file name for the map; NULL when memory ran out. */
static const char *s_keep_name(rb_plan_parser_t *ps, const char *name)
{
    char **names = realloc(ps->files, (ps->nfiles + 1) * sizeof *names);
    if (!names)
        return NULL;
    ps->files = names;
    names[ps->nfiles] = strdup(name);
    return names[ps->nfiles] ? names[ps->nfiles++] : NULL;
}

/* A problem at file:line before the expanded text has that line. */
static int s_fail_at(rb_plan_parser_t *ps, const char *file, unsigned line, const char *what)
{
    return rb_plan_fail_at(ps, file, line, "%s", what);
}

/* The value of a reserved keyword of fio on this machine, or -1. */
static long long s_keyword(const char *name, size_t n)
{
    if (n == 5 && !strncmp(name, "ncpus", 5))
        return sysconf(_SC_NPROCESSORS_ONLN);
    if (n == 8 && !strncmp(name, "pagesize", 8))
        return sysconf(_SC_PAGESIZE);
    if (n == 9 && !strncmp(name, "mb_memory", 9)) {
        long long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
        return pages > 0 && size > 0 ? pages / (1048576 / size) : -1;
    }
    return -1;
}

/* What ${name} is: its --var, else the environment's; NULL when neither.
 * *from names where it came from. */
static const char *s_var(const rb_plan_parser_t *ps, const char *name, const char **from)
{
    *from = "--var";
    size_t n = strlen(name);
    for (uint32_t i = ps->input ? ps->input->nvars : 0; i-- > 0;) { /* the last one given */
        if (!strncmp(ps->input->vars[i], name, n) && ps->input->vars[i][n] == '=') {
            for (uint32_t k = 0; k < ps->input->nvars && k < 64; k++) /* each of that name */
                if (!strncmp(ps->input->vars[k], name, n) && ps->input->vars[k][n] == '=')
                    ((rb_plan_parser_t *)ps)->vars_used |= 1ull << k;
            return ps->input->vars[i] + n + 1;
        }
    }
    *from = "the environment";
    return getenv(name);
}

/* Adds v (n bytes) to the value being built in *o, within what the expanded
 * text has left: past it the problem is said and expansion stops. 0,
 * -EINVAL or -ENOMEM. */
static int s_value_put(rb_plan_parser_t *ps, const char *file, unsigned line, char **o, size_t *len,
                       size_t *cap, const char *v, size_t n)
{
    if (ps->work_len + *len + n >= s_max_expanded(ps))
        return s_over_size(ps, file, line);
    return rb_plan_text_put(o, len, cap, v, n) < 0 ? rb_plan_nomem(ps) : 0;
}

/* Expands ${VAR}, ${VAR:-default} and fio's $keywords in a value. A value
 * in which a keyword was replaced and that holds arithmetic becomes a
 * parenthesised expression, as fio evaluates it ("8*$mb_memory"). A
 * variable's value with a line break is refused: it would add lines. The
 * value is quoted in messages when quote is set. *out is the new value
 * (caller frees). 0, -EINVAL with the problem recorded, or -ENOMEM. */
static int s_expand_value(rb_plan_parser_t *ps, const char *file, unsigned line, const char *val,
                          bool quote, char **out)
{
    char *o = NULL;
    size_t len = 0, cap = 0;
    int keyword = 0, rc = rb_plan_text_put(&o, &len, &cap, "", 0) < 0 ? rb_plan_nomem(ps) : 0;
    const char *shown = quote ? val : "the value";
    for (const char *c = val; *c && rc == 0;) {
        if (c[0] == '$' && c[1] == '{') {
            const char *end = strchr(c + 2, '}');
            if (!end) {
                rc = rb_plan_fail_at(ps, file, line, "'${' without '}' in '%.64s'", shown);
                break;
            }
            size_t n = (size_t)(end - c - 2);
            char name[256];
            if (n >= sizeof name) {
                rc = rb_plan_fail_at(ps, file, line, "variable name too long in '%.64s'", shown);
                break;
            }
            memcpy(name, c + 2, n);
            name[n] = '\0';
            char *dflt = strstr(name, ":-");
            if (dflt) {
                *dflt = '\0';
                dflt += 2;
            }
            const char *from, *v = s_var(ps, name, &from);
            if ((!v || !*v) && dflt)
                v = dflt;
            if (!v) {
                rc = rb_plan_fail_at(ps, file, line,
                                     "variable '%s' is not set (pass --var %s=VALUE, set it in "
                                     "the environment, or give it a default as ${%s:-VALUE})",
                                     name, name, name);
                break;
            }
            if (strpbrk(v, "\n\r")) {
                rc = rb_plan_fail_at(ps, file, line,
                                     "variable '%s' (from %s) holds a line break: a value may "
                                     "not hold a newline or a carriage return, which would add "
                                     "options or sections to the plan",
                                     name, from);
                break;
            }
            rc = s_value_put(ps, file, line, &o, &len, &cap, v, strlen(v));
            c = end + 1;
            continue;
        }
        if (c[0] == '$' && isalpha((unsigned char)c[1])) {
            size_t n = 1;
            while (isalnum((unsigned char)c[n]) || c[n] == '_')
                n++;
            long long k = s_keyword(c + 1, n - 1);
            if (k >= 0) {
                char num[32];
                snprintf(num, sizeof num, "%lld", k);
                rc = s_value_put(ps, file, line, &o, &len, &cap, num, strlen(num));
                keyword = 1;
                ps->host_keywords = true;
                c += n;
                continue;
            }
        }
        rc = s_value_put(ps, file, line, &o, &len, &cap, c, 1);
        c++;
    }
    if (rc == 0 && keyword && o[0] != '(' && strpbrk(o, "+-*/%^")) {
        char *w = malloc(len + 3);
        if (!w) {
            rc = rb_plan_nomem(ps);
        } else {
            snprintf(w, len + 3, "(%s)", o);
            free(o);
            o = w;
        }
    }
    if (rc < 0) {
        free(o);
        return rc;
    }
    *out = o;
    return 0;
}

/* Command-line options as lines of the plan, each marked with its option
 * and place ("--set:2") for the messages about it. */
static int s_emit_lines(rb_plan_parser_t *ps, const char *const *lines, uint32_t n, const char *opt)
{
    for (uint32_t i = 0; i < n; i++) {
        int rc = s_emit(ps, lines[i], strlen(lines[i]), opt, i + 1);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* The --override options as lines at the end of a job section. */
static int s_emit_overrides(rb_plan_parser_t *ps)
{
    ps->in_job_src = false;
    return ps->input ? s_emit_lines(ps, ps->input->overrides, ps->input->noverrides, "--override")
                     : 0;
}

/* The --set options as lines at the end of a [global] section. */
static int s_emit_sets(rb_plan_parser_t *ps)
{
    ps->sets_done_here = true;
    return ps->input ? s_emit_lines(ps, ps->input->sets, ps->input->nsets, "--set") : 0;
}

static int s_expand(rb_plan_parser_t *ps, const char *text, size_t len, const char *file,
                    const char *dir, unsigned depth);

/* A UTF-8 byte-order mark at the start of a file is not part of its text. */
static void s_skip_bom(const char **text, size_t *len)
{
    if (*len >= 3 && !memcmp(*text, "\xEF\xBB\xBF", 3)) {
        *text += 3;
        *len -= 3;
    }
}

/* What a file that is not a regular one is, for messages. */
static const char *s_kind(mode_t mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
                            : "not a regular file";
}

/* Opens path, a regular file of at most RB_PLAN_MAX_BYTES, and reads it
 * whole into *buf (caller frees; *got bytes). Anything else is refused
 * before an open could block (a FIFO with no writer): checked by stat,
 * opened without blocking, and checked again on what was opened. 0, or
 * -errno with *why saying what is wrong. */
static int s_read_regular(const char *path, char **buf, size_t *got, char *why, size_t whylen)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        int e = errno;
        snprintf(why, whylen, "%s", strerror(e));
        return -e;
    }
    int fd = S_ISREG(st.st_mode) ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) : -1;
    if (S_ISREG(st.st_mode) && fd < 0) {
        int e = errno;
        snprintf(why, whylen, "%s", strerror(e));
        return -e;
    }
    if (fd >= 0 && fstat(fd, &st) < 0)
        st.st_mode = 0;
    if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > RB_PLAN_MAX_BYTES) {
        if (!S_ISREG(st.st_mode))
            snprintf(why, whylen, "%s, and an include reads regular files only",
                     s_kind(st.st_mode));
        else
            snprintf(why, whylen, "%jd bytes, more than the limit of %u of a plan file",
                     (intmax_t)st.st_size, RB_PLAN_MAX_BYTES);
        if (fd >= 0)
            close(fd);
        return S_ISREG(st.st_mode) ? -EFBIG : -EINVAL;
    }
    char *b = malloc((size_t)st.st_size + 1);
    size_t n = 0;
    while (b && n < (size_t)st.st_size) {
        ssize_t r = read(fd, b + n, (size_t)st.st_size - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int e = errno;
            snprintf(why, whylen, "%s", strerror(e));
            free(b);
            close(fd);
            return -e;
        }
        if (r == 0)
            break; /* it shrank: what is there */
        n += (size_t)r;
    }
    close(fd);
    if (!b) {
        snprintf(why, whylen, "out of memory");
        return -ENOMEM;
    }
    *buf = b;
    *got = n;
    return 0;
}

/* Reads an include file into the expanded text. An include that cannot be
 * read, or one past a limit, is a problem that stops expansion. */
static int s_include(rb_plan_parser_t *ps, const char *name, const char *file, unsigned line,
                     const char *dir, unsigned depth)
{
    char path[RB_PATH_MAX], why[128];
    if (!*name)
        return s_stopped(ps, s_fail_at(ps, file, line, "'include' without a file name" S_STOP));
    if (++ps->nincludes > RB_PLAN_MAX_INCLUDES)
        return s_stopped(ps, rb_plan_fail_at(ps, file, line,
                                             "include '%s': more than %u includes in all (the "
                                             "limit)" S_STOP,
                                             name, RB_PLAN_MAX_INCLUDES));
    if (depth >= RB_PLAN_MAX_INCLUDE_DEPTH)
        return s_stopped(ps, rb_plan_fail_at(ps, file, line,
                                             "include '%s': more than %u nested includes (the "
                                             "limit; does it include itself?)" S_STOP,
                                             name, RB_PLAN_MAX_INCLUDE_DEPTH));
    if (name[0] == '/' || !dir || !*dir)
        snprintf(path, sizeof path, "%s", name);
    else if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return s_stopped(
            ps, rb_plan_fail_at(ps, file, line, "include '%.64s': path too long" S_STOP, name));
    char *buf = NULL;
    size_t got = 0;
    int rc = s_read_regular(path, &buf, &got, why, sizeof why);
    if (rc == -ENOMEM)
        return rb_plan_nomem(ps);
    if (rc < 0)
        return s_stopped(ps,
                         rb_plan_fail_at(ps, file, line, "include '%s': cannot read %s: %s" S_STOP,
                                         name, path, why));
    const char *kept = s_keep_name(ps, path);
    char subdir[RB_PATH_MAX];
    snprintf(subdir, sizeof subdir, "%s", path);
    char *slash = strrchr(subdir, '/');
    if (slash)
        *slash = '\0';
    else
        subdir[0] = '\0';
    const char *text = buf;
    s_skip_bom(&text, &got);
    rc = kept ? s_expand(ps, text, got, kept, subdir, depth + 1) : rb_plan_nomem(ps);
    free(buf);
    return rc;
}

/* 1 when a line of an included file (its leading blanks skipped) reads as
 * one of a plan's options: blank, a comment, or NAME or NAME=VALUE with
 * NAME as an option's ([a-z0-9_]). */
static bool s_option_shaped(const char *s)
{
    static const char blanks[] = " \t\r\v\f";
    s += strspn(s, blanks);
    if (!*s || *s == ';' || *s == '#')
        return true;
    size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_");
    if (!n)
        return false;
    size_t gap = strspn(s + n, blanks);
    char c = s[n + gap];
    return !c || c == '=' || (gap && (c == ';' || c == '#'));
}

/* One line of a file: an include, a header, a value to expand, or as it is. */
static int s_expand_line(rb_plan_parser_t *ps, char *raw, const char *file, unsigned line,
                         const char *dir, unsigned depth)
{
    const char *s = raw;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!strncmp(s, "include", 7) && (s[7] == ' ' || s[7] == '\t')) {
        char name[RB_PATH_MAX];
        snprintf(name, sizeof name, "%s", s + 8);
        return s_include(ps, rb_text_trim(name), file, line, dir, depth);
    }
    if (*s == '[') {
        if (depth > 0)
            return s_fail_at(ps, file, line, "an included file may not hold [sections]");
        if (ps->in_global_src && !ps->sets_done_here) {
            int rc = s_emit_sets(ps);
            if (rc < 0)
                return rc;
        }
        if (ps->in_job_src) {
            int rc = s_emit_overrides(ps);
            if (rc < 0)
                return rc;
        }
        const char *close = strchr(s, ']');
        ps->in_global_src = close && (size_t)(close - s) == 7 && !strncmp(s, "[global]", 8);
        if (close && !ps->in_global_src) {
            char name[RB_PATH_MAX];
            snprintf(name, sizeof name, "%.*s", (int)(close - s - 1), s + 1);
            ps->in_job_src = !rb_plan_section_reserved(rb_text_trim(name));
        }
        ps->sets_done_here = false;
        return s_emit(ps, raw, strlen(raw), file, line);
    }
    if (depth > 0 && !s_option_shaped(s))
        return s_stopped(ps, s_fail_at(ps, file, line,
                                       "not an option line (an included file holds NAME=VALUE "
                                       "options, comments and includes; its text is not shown "
                                       "as it does not read as a plan)" S_STOP));
    const char *eq = strchr(s, '=');
    const char *dollar = strchr(s, '$');
    if (*s == ';' || *s == '#' || !eq || !dollar || dollar < eq)
        return s_emit(ps, raw, strlen(raw), file, line);
    /* a value to expand: the part before a comment, as the parser cuts it */
    size_t n = strlen(s);
    for (const char *c = eq; *c; c++)
        if ((*c == ';' || *c == '#') && (c[-1] == ' ' || c[-1] == '\t')) {
            n = (size_t)(c - s);
            break;
        }
    char *val = strndup(eq + 1, n - (size_t)(eq + 1 - s)), *exp = NULL;
    if (!val)
        return rb_plan_nomem(ps);
    int rc = s_expand_value(ps, file, line, rb_text_trim(val), depth == 0, &exp);
    free(val);
    if (rc < 0)
        return rc;
    char *out = NULL;
    size_t olen = 0, ocap = 0;
    if (rb_plan_text_put(&out, &olen, &ocap, s, (size_t)(eq + 1 - s)) < 0 ||
        rb_plan_text_put(&out, &olen, &ocap, exp, strlen(exp)) < 0) {
        free(out);
        free(exp);
        return rb_plan_nomem(ps);
    }
    free(exp);
    ps->expanded = true;
    rc = s_emit(ps, out, olen, file, line);
    free(out);
    return rc;
}

/* Expands the lines of a file (depth includes deep) in their order, until
 * the end or until expansion stops. A line with a problem stands empty and
 * marked, so that its section is not completed. 0 or -ENOMEM. */
static int s_expand(rb_plan_parser_t *ps, const char *text, size_t len, const char *file,
                    const char *dir, unsigned depth)
{
    unsigned line = 0, outer = ps->src_depth;
    const char *p = text, *end = text + len;
    int rc = 0;
    if (depth > 0)
        ps->expanded = true;
    ps->src_depth = depth;
    while (p < end && !ps->src_stopped && rc == 0) {
        line++;
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((nl ? nl : end) - p);
        char *raw = strndup(p, n);
        if (!raw) {
            rc = rb_plan_nomem(ps);
            break;
        }
        if (!memchr(p, '\0', n))
            rc = s_expand_line(ps, raw, file, line, dir, depth);
        else if (depth == 0)
            rc = rb_plan_fail_at(ps, file, line, "NUL byte in the plan (not a text file?)");
        else
            rc = s_stopped(ps, rb_plan_fail_at(ps, file, line,
                                               "NUL byte in an included file (not a text "
                                               "file?)" S_STOP));
        free(raw);
        if (rc < 0 && rc != -ENOMEM && (rc = s_emit_line(ps, "", 0, file, line)) == 0)
            ps->map[ps->nmap - 1].failed = true;
        p = nl ? nl + 1 : end;
    }
    ps->src_depth = outer;
    return rc;
}

/* The --set and --override lines, each one line of the plan: none may hold
 * a line break or begin a section. 0, or -EINVAL with each said. */
static int s_check_lines(rb_plan_parser_t *ps, const char *const *lines, uint32_t n,
                         const char *opt)
{
    int rc = 0;
    for (uint32_t i = 0; i < n && rc != -ENOMEM; i++)
        if (strpbrk(lines[i], "\n\r") || lines[i][strspn(lines[i], " \t")] == '[')
            rc = rb_plan_fail_at(ps, opt, i + 1,
                                 "%s KEY=VALUE is one option: it may not hold a newline or a "
                                 "carriage return, nor begin with '['",
                                 opt);
    return rc;
}

int rb_plan_source_expand(rb_plan_parser_t *ps, const char *text, size_t len)
{
    const rb_plan_input_t *in = ps->input;
    char dir[RB_PATH_MAX] = "";
    if (ps->path) {
        snprintf(dir, sizeof dir, "%s", ps->path);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        else
            dir[0] = '\0';
    }
    s_skip_bom(&text, &len);
    if (in) { /* every bad line said, and none read: lest they add lines of their own */
        int a = s_check_lines(ps, in->sets, in->nsets, "--set");
        int b = a == -ENOMEM ? a : s_check_lines(ps, in->overrides, in->noverrides, "--override");
        if (a < 0 || b < 0)
            return s_stopped(ps, a == -ENOMEM || b == -ENOMEM ? -ENOMEM : -EINVAL);
    }
    if (in && in->nsets) {
        ps->expanded = true;
        /* no [global] before the first job: the options go in one of their own */
        const char *c = text, *end = text + len;
        bool global_first = false;
        while (c < end) {
            const char *nl = memchr(c, '\n', (size_t)(end - c));
            const char *e = nl ? nl : end, *s = c;
            while (s < e && (*s == ' ' || *s == '\t'))
                s++;
            if (s < e && *s == '[') {
                global_first = e - s >= 8 && !strncmp(s, "[global]", 8);
                break;
            }
            c = nl ? nl + 1 : end;
        }
        if (!global_first) {
            int rc = s_emit(ps, "[global]", 8, "--set", 0);
            if (rc == 0)
                rc = s_emit_sets(ps);
            if (rc < 0)
                return rc;
        }
    }
    if (in && in->noverrides)
        ps->expanded = true;
    int rc = s_expand(ps, text, len, ps->source, dir, 0);
    if (rc < 0 || ps->src_stopped)
        return rc < 0 ? rc : -EINVAL; /* the rest is not read: nothing more to add or say */
    if (ps->in_global_src && !ps->sets_done_here)
        rc = s_emit_sets(ps);
    if (rc == 0 && ps->in_job_src)
        rc = s_emit_overrides(ps);
    /* a --var no ${NAME} takes is a mistake, said: never a value dropped */
    for (uint32_t i = 0; rc == 0 && in && i < in->nvars && i < 64; i++) {
        int n = (int)strcspn(in->vars[i], "=");
        if (!(ps->vars_used >> i & 1) &&
            rb_plan_fail_at(ps, "--var", i + 1, "%.*s: the plan has no ${%.*s}", n, in->vars[i], n,
                            in->vars[i]) == -ENOMEM)
            rc = -ENOMEM;
    }
    return rc;
}
