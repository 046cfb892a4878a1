/* Turns a plan file in fio's job-file syntax into phases of jobs, refusing
 * anything rackbench cannot run with a message that names the line, and
 * noting the fio options it accepts without effect. */
#include "rb_plan.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rb_accept.h"
#include "rb_opt.h"
#include "rb_plan_int.h"
#include "rb_project.h"
#include "rb_units.h"
#include "rb_names.h"

#define S_DEFAULT_INTERVAL_NS RB_PLAN_AUTO_INTERVAL_MAX_NS
#define S_MAX_NOTES           100u /* notes kept; more are counted in one last line */

#define S_MAX_PROBLEMS 100u /* problems listed; more are counted in one last line */

int rb_plan_text_put(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = (*len + n + 1) * 2;
        char *p = realloc(*buf, c);
        if (!p)
            return -ENOMEM;
        *buf = p;
        *cap = c;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
    return 0;
}

/* Appends one line of text (with its '\n') to a growing buffer. 0 or -ENOMEM. */
static int s_append_line(char **buf, size_t *len, size_t *cap, const char *text)
{
    int rc = rb_plan_text_put(buf, len, cap, text, strlen(text));
    return rc < 0 ? rc : rb_plan_text_put(buf, len, cap, "\n", 1);
}

/* Where line (of the expanded text; 0: the whole plan) came from, as
 * "FILE:LINE" or "FILE". */
static void s_where(const rb_plan_parser_t *ps, unsigned line, char *buf, size_t len)
{
    if (line && ps->map && line <= ps->nmap) {
        const rb_plan_srcline_t *m = &ps->map[line - 1];
        if (m->line)
            snprintf(buf, len, "%s:%u", m->file, m->line);
        else
            snprintf(buf, len, "%s", m->file);
    } else if (line) {
        snprintf(buf, len, "%s:%u", ps->source, line);
    } else {
        snprintf(buf, len, "%s", ps->source);
    }
}

/* Keeps "WHERE: what" as a problem of the plan; the first is also err's. */
static int s_problem(rb_plan_parser_t *ps, const char *where, const char *what)
{
    char text[RB_ERR_MSG_MAX + RB_PATH_MAX];
    snprintf(text, sizeof text, "%s: %s", where, what);
    ps->section_failed = true;
    if (ps->nproblems++ < S_MAX_PROBLEMS &&
        s_append_line(&ps->problems, &ps->problems_len, &ps->problems_cap, text) < 0)
        return rb_plan_nomem(ps);
    return rb_err_set(ps->err, -EINVAL, "%s", text);
}

int rb_plan_fail(rb_plan_parser_t *ps, unsigned line, const char *fmt, ...)
{
    char what[RB_ERR_MSG_MAX], where[RB_PATH_MAX + 16];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    s_where(ps, line, where, sizeof where);
    return s_problem(ps, where, what);
}

int rb_plan_fail_at(rb_plan_parser_t *ps, const char *file, unsigned line, const char *fmt, ...)
{
    char what[RB_ERR_MSG_MAX], where[RB_PATH_MAX + 16];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(where, sizeof where, "%s:%u", file, line);
    return s_problem(ps, where, what);
}

int rb_plan_nomem(rb_plan_parser_t *ps)
{
    return rb_err_set(ps->err, -ENOMEM, "%s: out of memory while reading the plan", ps->source);
}

/* Appends one line of text (with its '\n') to the notes. 0 or -ENOMEM. */
static int s_notes_append(rb_plan_parser_t *ps, const char *text)
{
    if (s_append_line(&ps->notes, &ps->notes_len, &ps->notes_cap, text) < 0)
        return rb_plan_nomem(ps);
    return 0;
}

/* Adds the note "SOURCE:LINE: message"; past S_MAX_NOTES only counts it. 0 or -ENOMEM. */
int rb_plan_note(rb_plan_parser_t *ps, unsigned line, const char *fmt, ...)
{
    if (ps->nnotes == S_MAX_NOTES) {
        ps->notes_dropped++;
        return 0;
    }
    char what[RB_ERR_MSG_MAX], where[RB_PATH_MAX + 16], text[RB_ERR_MSG_MAX + RB_PATH_MAX + 32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    s_where(ps, line, where, sizeof where);
    snprintf(text, sizeof text, "%s: %s", where, what);
    ps->nnotes++;
    return s_notes_append(ps, text);
}

/* Cuts a ';' or '#' comment: at the start of the line or after whitespace. */
static void s_strip_comment(char *s)
{
    for (char *c = s; *c; c++) {
        if ((*c == ';' || *c == '#') && (c == s || c[-1] == ' ' || c[-1] == '\t')) {
            *c = '\0';
            return;
        }
    }
}

/* name is word, or word and more after a blank ("capacity x": a job name
 * may have spaces now, but this one is a mistyped section of rackbench's) */
static bool s_word(const char *name, const char *word)
{
    size_t n = strlen(word);
    return !strncmp(name, word, n) && (!name[n] || name[n] == ' ' || name[n] == '\t');
}

bool rb_plan_section_reserved(const char *name)
{
    return s_word(name, "acceptance") || s_word(name, "capacity") || s_word(name, "rack");
}

/* ---- sections ---- */

/* [global]: the defaults of the jobs that follow. */
static bool s_global_match(char *name, char **arg)
{
    *arg = name;
    return !strcmp(name, "global");
}

static int s_global_begin(rb_plan_parser_t *ps, char *arg, unsigned line)
{
    (void)arg, (void)line;
    ps->in_global = true;
    return 0;
}

/* A job section: any name that is not reserved. */
static bool s_job_match(char *name, char **arg)
{
    *arg = name;
    return strcmp(name, "global") != 0 && !rb_plan_section_reserved(name);
}

static int s_job_begin(rb_plan_parser_t *ps, char *arg, unsigned line)
{
    ps->in_global = false;
    ps->job = ps->global;
    ps->job.name = arg;
    ps->job.name_line = line;
    ps->job_line = line;
    return 0;
}

/* key=val of [global] or a job, through the option table. */
static int s_job_option(rb_plan_parser_t *ps, char *key, char *val, unsigned line)
{
    const rb_opt_t *opt = rb_opt_find(key);
    if (!opt) {
        char best[64];
        if (rb_opt_suggest(key, best, sizeof best))
            return rb_plan_fail(ps, line, "unknown option '%.64s' (did you mean '%s'?)", key, best);
        return rb_plan_fail(ps, line, "unknown option '%.64s'", key);
    }
    return rb_opt_apply(ps, ps->in_global ? &ps->global : &ps->job, opt, key, val, line);
}

/* The jobs' phases. */
static void s_jobs_destroy(rb_plan_t *p)
{
    if (p->phases)
        rb_phase_specs_free(&p->phases, p->nphases);
}

static int s_global_end(rb_plan_parser_t *ps)
{
    (void)ps;
    return 0;
}

/* A section module's answer (rb_accept, rb_project keep their own
 * rb_err_t): its "SOURCE:LINE: what" becomes a problem of the plan at that
 * line, so that it is listed with the others and its line mapped. */
static int s_adopt(rb_plan_parser_t *ps, int rc, const rb_err_t *e)
{
    if (rc >= 0)
        return rc;
    if (rc == -ENOMEM)
        return rb_plan_nomem(ps);
    const char *m = e->msg;
    size_t n = strlen(ps->source);
    unsigned line = 0;
    if (!strncmp(m, ps->source, n) && m[n] == ':') {
        m += n + 1;
        char *end;
        unsigned long l = strtoul(m, &end, 10);
        if (end != m && end[0] == ':') {
            line = (unsigned)l;
            m = end + 1;
        }
        while (*m == ' ')
            m++;
    }
    return rb_plan_fail(ps, line, "%s", m);
}

/* [acceptance] and [acceptance NAME]: rb_accept.h. */
static bool s_accept_match(char *name, char **arg)
{
    const char *set = rb_accept_section(name);
    *arg = (char *)set;
    return set != NULL;
}

static int s_accept_begin(rb_plan_parser_t *ps, char *arg, unsigned line)
{
    if (!ps->accept && !(ps->accept = rb_accept_new(ps->source)))
        return rb_plan_nomem(ps);
    rb_err_t e;
    rb_err_clear(&e);
    return s_adopt(ps, rb_accept_begin(ps->accept, arg, line, &e), &e);
}

static int s_accept_option(rb_plan_parser_t *ps, char *key, char *val, unsigned line)
{
    rb_err_t e;
    rb_err_clear(&e);
    return s_adopt(ps, rb_accept_option(ps->accept, key, val, line, &e), &e);
}

static int s_accept_end(rb_plan_parser_t *ps)
{
    rb_err_t e;
    rb_err_clear(&e);
    return s_adopt(ps, rb_accept_end(ps->accept, &e), &e);
}

static int s_accept_resolve(rb_plan_parser_t *ps)
{
    if (!ps->accept)
        return 0;
    rb_err_t e;
    rb_err_clear(&e);
    return s_adopt(ps, rb_accept_resolve(ps->accept, ps->phases, ps->nphases, &e), &e);
}

static int s_accept_print(const rb_plan_t *p, FILE *f)
{
    return rb_accept_print(p->accept, p->phases, p->nphases, f);
}

static void s_accept_destroy(rb_plan_t *p)
{
    rb_accept_destroy(&p->accept);
}

/* [capacity]: rb_project.h. */
static bool s_capacity_match(char *name, char **arg)
{
    *arg = name;
    return rb_project_section(name) != 0;
}

static int s_capacity_begin(rb_plan_parser_t *ps, char *arg, unsigned line)
{
    (void)arg;
    if (!ps->project && !(ps->project = rb_project_new(ps->source)))
        return rb_plan_nomem(ps);
    rb_err_t e;
    rb_err_clear(&e);
    return s_adopt(ps, rb_project_begin(ps->project, line, &e), &e);
}

static int s_capacity_option(rb_plan_parser_t *ps, char *key, char *val, unsigned line)
{
    rb_err_t e;
    rb_err_clear(&e);
    return s_adopt(ps, rb_project_option(ps->project, key, val, line, &e), &e);
}

static int s_capacity_end(rb_plan_parser_t *ps)
{
    rb_err_t e;
    rb_err_clear(&e);
    return s_adopt(ps, rb_project_end(ps->project, &e), &e);
}

static int s_capacity_resolve(rb_plan_parser_t *ps)
{
    if (!ps->project)
        return 0;
    rb_err_t e;
    rb_err_clear(&e);
    return s_adopt(ps, rb_project_resolve(ps->project, ps->phases, ps->nphases, &e), &e);
}

static int s_capacity_print(const rb_plan_t *p, FILE *f)
{
    return rb_project_print(p->project, p->phases, p->nphases, f);
}

static void s_capacity_destroy(rb_plan_t *p)
{
    rb_project_destroy(&p->project);
}

static void s_rack_destroy(rb_plan_t *p)
{
    rb_plan_racks_free(p->racks, p->nracks);
    p->racks = NULL;
    p->nracks = 0;
}

/* A kind of section: how its header is recognised, read, completed, checked
 * against the plan's phases once all is read, and printed. */
typedef struct rb_plan_section {
    const char *what;                                                         /* for messages */
    bool (*match)(char *name, char **arg);                                    /* header → NAME */
    int (*begin)(rb_plan_parser_t *ps, char *arg, unsigned line);             /* a header */
    int (*option)(rb_plan_parser_t *ps, char *key, char *val, unsigned line); /* key[=val] */
    int (*end)(rb_plan_parser_t *ps);          /* its last line read */
    int (*resolve)(rb_plan_parser_t *ps);      /* every section read; or NULL */
    int (*print)(const rb_plan_t *p, FILE *f); /* after the jobs, in table order; or NULL */
    void (*destroy)(rb_plan_t *p);             /* frees what it put in the plan; or NULL */
} rb_plan_section_t;

/* In the order the normalised print writes them; [global] and jobs first. */
static const rb_plan_section_t s_sections[] = {
    {"[global]", s_global_match, s_global_begin, s_job_option, s_global_end, NULL, NULL, NULL},
    {"job", s_job_match, s_job_begin, s_job_option, rb_plan_job_finish, NULL, NULL, s_jobs_destroy},
    {"[acceptance]", s_accept_match, s_accept_begin, s_accept_option, s_accept_end,
     s_accept_resolve, s_accept_print, s_accept_destroy},
    {"[rack]", rb_plan_rack_match, rb_plan_rack_begin, rb_plan_rack_option, rb_plan_rack_end, NULL,
     rb_plan_rack_print, s_rack_destroy},
    {"[capacity]", s_capacity_match, s_capacity_begin, s_capacity_option, s_capacity_end,
     s_capacity_resolve, s_capacity_print, s_capacity_destroy},
};

#define S_NSECTIONS (sizeof s_sections / sizeof s_sections[0])

/* Completes the section being read. */
static int s_end_section(rb_plan_parser_t *ps)
{
    /* a section with a problem is not completed: its checks would only
     * repeat the problem in other words */
    int rc = ps->section && !ps->section_failed && !ps->skip_section ? ps->section->end(ps) : 0;
    ps->section_failed = false;
    return rc;
}

/* 1 when --section leaves the job section name out. */
static bool s_left_out(rb_plan_parser_t *ps, const char *name)
{
    const rb_plan_input_t *in = ps->input;
    if (!in || !in->nsections)
        return false;
    bool out = true;
    for (uint32_t i = 0; i < in->nsections; i++)
        if (!strcmp(in->sections[i], name)) {
            out = false;
            if (ps->sections_found)
                ps->sections_found[i] = true;
        }
    return out;
}

static int s_section(rb_plan_parser_t *ps, char *s, unsigned line)
{
    /* a section that failed its end checks is a problem already listed: the
     * next header is read all the same, lest its lines go to that section */
    if (s_end_section(ps) == -ENOMEM)
        return -ENOMEM;
    ps->section = NULL;
    ps->skip_section = true; /* until the header is read */
    char *close = strrchr(s, ']');
    if (!close)
        return rb_plan_fail(ps, line, "'[' without ']'");
    /* fio reads the rest of the line into the name; it is a note here */
    const char *after = rb_text_trim(close + 1);
    if (*after &&
        rb_plan_note(ps, line, "text after ']' ('%.64s') is not part of the name", after) < 0)
        return -ENOMEM;
    *close = '\0';
    char *name = rb_text_trim(s + 1);
    if (!*name)
        return rb_plan_fail(ps, line, "empty section name '[]'");
    const rb_plan_section_t *sec = NULL;
    char *arg = NULL;
    /* a job section is any name no other kind of section takes */
    for (int fallback = 0; fallback < 2 && !sec; fallback++)
        for (size_t i = 0; i < S_NSECTIONS && !sec; i++)
            if ((s_sections[i].match == s_job_match) == fallback && s_sections[i].match(name, &arg))
                sec = &s_sections[i];
    if (!sec && (s_word(name, "acceptance") || s_word(name, "capacity")))
        return rb_plan_fail(ps, line,
                            "section [%.64s]: [%s] takes no name (a job's name may not begin "
                            "with it)",
                            name, s_word(name, "capacity") ? "capacity" : "acceptance");
    if (!sec)
        return rb_plan_fail(ps, line, "section [%.64s] is not supported yet", name);
    ps->section = sec;
    ps->skip_section = false;
    if (sec->match == s_job_match && s_left_out(ps, name)) {
        ps->skip_section = true; /* --section: read as fio does, not at all */
        return 0;
    }
    int rc = sec->begin(ps, arg, line);
    if (rc < 0)
        ps->skip_section = true; /* a header refused: its lines are not read */
    return rc;
}

static int s_line(rb_plan_parser_t *ps, char *raw, unsigned line)
{
    if (ps->map && line <= ps->nmap && ps->map[line - 1].failed) {
        ps->section_failed = true; /* its problem is said already */
        return 0;
    }
    s_strip_comment(raw);
    char *s = rb_text_trim(raw);
    if (!*s)
        return 0;
    if (*s == '[')
        return s_section(ps, s, line);
    if (ps->skip_section)
        return 0; /* the header was refused, or --section leaves the job out */
    if (!ps->section && ps->map && line <= ps->nmap && ps->map[line - 1].included)
        return rb_plan_fail(ps, line,
                            "an included option is outside any section (include the file after "
                            "[global] or a job's header)");
    if (!ps->section)
        return rb_plan_fail(ps, line,
                            "'%.64s' is outside any section (start with [global] or [job])", s);

    char *eq = strchr(s, '=');
    char *val = NULL;
    if (eq) {
        *eq = '\0';
        val = rb_text_trim(eq + 1);
    }
    char *key = rb_text_trim(s);
    if (!*key)
        return rb_plan_fail(ps, line, "empty option name before '='");
    return ps->section->option(ps, key, val, line);
}

/* --section names a job section the plan does not have: said, as fio would
 * run nothing. */
static void s_check_sections(rb_plan_parser_t *ps)
{
    const rb_plan_input_t *in = ps->input;
    for (uint32_t i = 0; in && ps->sections_found && !ps->src_stopped && i < in->nsections; i++)
        if (!ps->sections_found[i])
            (void)rb_plan_fail(ps, 0, "--section %s: the plan has no job section [%s]",
                               in->sections[i], in->sections[i]);
}

/* Reads every line, going on after a problem so that all of them are said
 * at once; only running out of memory stops it. */
static int s_parse_all(rb_plan_parser_t *ps, char *work, size_t len)
{
    unsigned line = 0;
    char *p = work, *end = work + len;
    int rc;
    while (p < end) {
        line++;
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *next = nl ? nl + 1 : end;
        if (nl)
            *nl = '\0';
        if ((rc = s_line(ps, p, line)) == -ENOMEM)
            return rc;
        p = next;
    }
    if ((rc = s_end_section(ps)) == -ENOMEM)
        return rc;
    s_check_sections(ps);
    if (ps->nproblems)
        return -EINVAL; /* the checks across sections would repeat them */
    if (ps->nphases == 0)
        return rb_plan_fail(ps, 0,
                            "the plan has no jobs (add a [job] section with at least size=)");
    if ((rc = rb_plan_iterate(ps, &ps->iters)) < 0)
        return rc;
    for (size_t i = 0; i < S_NSECTIONS; i++)
        if (s_sections[i].resolve && (rc = s_sections[i].resolve(ps)) < 0)
            return rc;
    if ((rc = rb_plan_time_note(ps)) < 0)
        return rc;
    if (ps->notes_dropped) {
        char text[RB_ERR_MSG_MAX];
        snprintf(text, sizeof text, "%s: %u more notes like these", ps->source, ps->notes_dropped);
        return s_notes_append(ps, text);
    }
    return 0;
}

/* Hands the problems to in (when given), with a last line counting those
 * past the limit; frees them otherwise. */
static void s_hand_problems(rb_plan_parser_t *ps, rb_plan_input_t *in)
{
    if (ps->nproblems > S_MAX_PROBLEMS) {
        char text[128];
        snprintf(text, sizeof text, "%s: %u more problems", ps->source,
                 ps->nproblems - S_MAX_PROBLEMS);
        (void)s_append_line(&ps->problems, &ps->problems_len, &ps->problems_cap, text);
    }
    if (in) {
        free(in->problems);
        in->problems = ps->problems;
        in->nproblems = ps->nproblems;
    } else {
        free(ps->problems);
    }
    ps->problems = NULL;
}

/* Frees what the parser holds apart from the plan. */
static void s_parser_fini(rb_plan_parser_t *ps)
{
    free(ps->work);
    free(ps->map);
    free(ps->ph_iter);
    for (uint32_t i = 0; i < ps->nfiles; i++)
        free(ps->files[i]);
    free(ps->files);
    free(ps->seen);
    free(ps->sections_found);
    free(ps->problems);
}

int rb_plan_parse_input(const char *text, size_t len, const char *source, const char *path,
                        rb_plan_input_t *in, rb_plan_t **out, rb_err_t *err)
{
    rb_plan_parser_t ps;
    memset(&ps, 0, sizeof ps);
    ps.source = source ? source : "<plan>";
    ps.path = path;
    ps.input = in;
    ps.err = err;
    ps.interval_ns = S_DEFAULT_INTERVAL_NS;
    ps.interval_auto = 1;
    rb_plan_job_defaults(&ps.global);

    int rc = 0;
    if (!out || (!text && len)) {
        rc = rb_err_set(err, -EINVAL, "%s: no plan text given", ps.source);
    } else if (len > RB_PLAN_MAX_BYTES) {
        rc = rb_plan_fail(&ps, 0, "the plan is %zu bytes, more than the limit of %u", len,
                          RB_PLAN_MAX_BYTES);
    } else if (memchr(text ? text : "", '\0', len)) {
        unsigned line = 1;
        for (const char *c = text; *c; c++)
            line += *c == '\n';
        rc = rb_plan_fail(&ps, line, "NUL byte in the plan (not a text file?)");
    }
    if (rc == 0 && in && in->nsections &&
        !(ps.sections_found = calloc(in->nsections, sizeof *ps.sections_found)))
        rc = rb_plan_nomem(&ps);
    if (rc == 0)
        rc = rb_plan_source_expand(&ps, text ? text : "", len);
    rb_plan_t *plan = NULL;
    if (rc == -ENOMEM || (rc < 0 && !ps.nproblems)) {
        s_hand_problems(&ps, in);
        s_parser_fini(&ps);
        return rc;
    }
    plan = calloc(1, sizeof *plan);
    if (plan) {
        plan->source = strdup(ps.source);
        /* the run folder keeps what ran: the expanded text when it differs */
        plan->text = ps.expanded ? strdup(ps.work ? ps.work : "") : strndup(text ? text : "", len);
        plan->written = strndup(text ? text : "", len);
    }
    if (!plan || !plan->source || !plan->text || !plan->written) {
        rb_plan_destroy(&plan);
        rc = rb_plan_nomem(&ps);
        s_hand_problems(&ps, in);
        s_parser_fini(&ps);
        return rc;
    }
    plan->host_keywords = ps.host_keywords;

    rc = s_parse_all(&ps, ps.work ? ps.work : plan->text, ps.work ? ps.work_len : 0);
    if (rc == 0 && ps.nproblems)
        rc = -EINVAL;
    /* what was read goes to the plan, which on failure frees it all */
    plan->interval_ns = ps.interval_ns;
    plan->interval_auto = ps.interval_auto;
    memcpy(plan->directory, ps.directory, sizeof plan->directory);
    plan->nphases = ps.nphases;
    plan->phases = ps.phases;
    plan->iters = ps.iters;
    plan->iterate_plan = ps.iterate_plan;
    plan->notes = ps.notes;
    plan->accept = ps.accept;
    plan->racks = ps.racks;
    plan->nracks = ps.nracks;
    plan->project = ps.project;
    plan->logs = ps.logs;
    plan->nlogs = ps.nlogs;
    s_hand_problems(&ps, in);
    s_parser_fini(&ps);
    if (rc < 0) {
        rb_plan_destroy(&plan);
        return rc;
    }
    *out = plan;
    return 0;
}

int rb_plan_parse(const char *text, size_t len, const char *source, rb_plan_t **out, rb_err_t *err)
{
    return rb_plan_parse_input(text, len, source, NULL, NULL, out, err);
}

void rb_plan_input_fini(rb_plan_input_t *in)
{
    if (!in)
        return;
    free(in->problems);
    in->problems = NULL;
    in->nproblems = 0;
}

int rb_plan_load(const char *path, rb_plan_t **out, rb_err_t *err)
{
    return rb_plan_load_input(path, NULL, out, err);
}

int rb_plan_load_input(const char *path, rb_plan_input_t *in, rb_plan_t **out, rb_err_t *err)
{
    if (!path || !out)
        return rb_err_set(err, -EINVAL, "no plan path given");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return rb_err_set(err, -e, "%s: cannot open the plan: %s", path, strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return rb_err_set(err, -e, "%s: cannot stat the plan: %s", path, strerror(e));
    }
    if (S_ISREG(st.st_mode) && (uint64_t)st.st_size > RB_PLAN_MAX_BYTES) {
        close(fd);
        return rb_err_set(err, -EINVAL, "%s: the plan is %jd bytes, more than the limit of %u",
                          path, (intmax_t)st.st_size, RB_PLAN_MAX_BYTES);
    }
    /* Read up to one byte past the limit so that an oversized pipe is seen too. */
    size_t cap = RB_PLAN_MAX_BYTES + 1, len = 0;
    if (S_ISREG(st.st_mode) && (size_t)st.st_size + 1 < cap)
        cap = (size_t)st.st_size + 1;
    char *buf = malloc(cap);
    if (!buf) {
        close(fd);
        return rb_err_set(err, -ENOMEM, "%s: out of memory reading the plan", path);
    }
    for (;;) {
        if (len == cap) {
            if (cap > RB_PLAN_MAX_BYTES)
                break;
            size_t ncap = cap * 2 > RB_PLAN_MAX_BYTES + 1 ? RB_PLAN_MAX_BYTES + 1 : cap * 2;
            char *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                close(fd);
                return rb_err_set(err, -ENOMEM, "%s: out of memory reading the plan", path);
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return rb_err_set(err, -e, "%s: cannot read the plan: %s", path, strerror(e));
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    int rc = rb_plan_parse_input(buf, len, path, path, in, out, err);
    free(buf);
    return rc;
}

void rb_plan_destroy(rb_plan_t **p)
{
    if (!p || !*p)
        return;
    rb_plan_t *plan = *p;
    free(plan->source);
    free(plan->text);
    free(plan->written);
    free(plan->notes);
    free(plan->iters);
    free(plan->logs);
    for (size_t i = 0; i < S_NSECTIONS; i++)
        if (s_sections[i].destroy)
            s_sections[i].destroy(plan);
    free(plan);
    *p = NULL;
}

int rb_plan_print(const rb_plan_t *p, FILE *f)
{
    if (!p || !f)
        return -EINVAL;
    fprintf(f, "; rackbench plan, normalised from ");
    for (const char *c = p->source ? p->source : "<plan>"; *c; c++)
        fputc(isprint((unsigned char)*c) ? *c : '?', f);
    fprintf(f, "\n; every option is explicit; a job with stonewall starts a new phase\n");
    fprintf(f, "[global]\n");
    rb_opt_print_global(p->interval_auto ? 0 : p->interval_ns, p->directory, f);
    if (p->iterate_plan)
        fprintf(f, "iterate=plan\n");
    for (uint32_t i = 0; i < p->nphases; i++) {
        const rb_phase_spec_t *ph = &p->phases[i];
        const rb_plan_iter_t *it = p->iters ? &p->iters[i] : NULL;
        if (it && it->iteration > 0)
            continue; /* a repetition: iterations= of its first says it */
        for (uint32_t j = 0; j < ph->njobs; j++) {
            const rb_job_spec_t *js = &ph->jobs[j];
            fprintf(f, "\n[%s]\n", js->name);
            if (i > 0 && j == 0)
                fprintf(f, "stonewall\n");
            if (it && it->iterations > 1)
                fprintf(f, "iterations=%u\n", it->iterations);
            if (js->rw == RB_RW_META)
                rb_opt_print_meta_step(js, p->directory, f);
            else
                rb_opt_print_job(js, p->directory, f);
        }
    }
    for (size_t i = 0; i < S_NSECTIONS; i++)
        if (s_sections[i].print && s_sections[i].print(p, f) < 0)
            return -EIO;
    if (fflush(f) != 0 || ferror(f))
        return -EIO;
    return 0;
}

uint32_t rb_plan_phase_workers(const rb_phase_spec_t *ph)
{
    uint32_t n = 0;
    if (!ph)
        return 0;
    for (uint32_t i = 0; i < ph->njobs; i++)
        n += ph->jobs[i].numjobs;
    return n;
}

static int s_absolute(char *dir, size_t len, rb_err_t *err)
{
    char cwd[RB_PATH_MAX], abs[RB_PATH_MAX * 2];
    if (!dir[0] || dir[0] == '/')
        return 0;
    if (!getcwd(cwd, sizeof cwd))
        return rb_err_set(err, -errno, "cannot read the current folder: %s", strerror(errno));
    snprintf(abs, sizeof abs, "%s/%s", cwd, dir);
    if (strlen(abs) >= len)
        return rb_err_set(err, -ENAMETOOLONG, "directory %s: path too long", abs);
    snprintf(dir, len, "%s", abs);
    return 0;
}

int rb_plan_absolute_dirs(rb_plan_t *p, rb_err_t *err)
{
    int rc = s_absolute(p->directory, sizeof p->directory, err);
    for (uint32_t i = 0; rc == 0 && i < p->nphases; i++)
        for (uint32_t j = 0; rc == 0 && j < p->phases[i].njobs; j++)
            rc = s_absolute(p->phases[i].jobs[j].directory, sizeof p->phases[i].jobs[j].directory,
                            err);
    return rc;
}
