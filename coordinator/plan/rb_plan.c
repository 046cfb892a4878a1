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

#define S_DEFAULT_INTERVAL_NS 1000000000ull
#define S_MAX_NOTES           100u /* notes kept; more are counted in one last line */

/* Records "SOURCE:LINE: message" (or "SOURCE: message" when line is 0). */
int rb_plan_fail(rb_plan_parser_t *ps, unsigned line, const char *fmt, ...)
{
    char what[RB_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (line)
        return rb_err_set(ps->err, -EINVAL, "%s:%u: %s", ps->source, line, what);
    return rb_err_set(ps->err, -EINVAL, "%s: %s", ps->source, what);
}

int rb_plan_nomem(rb_plan_parser_t *ps)
{
    return rb_err_set(ps->err, -ENOMEM, "%s: out of memory while reading the plan", ps->source);
}

/* Appends one line of text (with its '\n') to the notes. 0 or -ENOMEM. */
static int s_notes_append(rb_plan_parser_t *ps, const char *text)
{
    size_t n = strlen(text);
    if (ps->notes_len + n + 2 > ps->notes_cap) {
        size_t cap = (ps->notes_len + n + 2) * 2;
        char *p = realloc(ps->notes, cap);
        if (!p)
            return rb_plan_nomem(ps);
        ps->notes = p;
        ps->notes_cap = cap;
    }
    memcpy(ps->notes + ps->notes_len, text, n);
    ps->notes_len += n;
    ps->notes[ps->notes_len++] = '\n';
    ps->notes[ps->notes_len] = '\0';
    return 0;
}

/* Adds the note "SOURCE:LINE: message"; past S_MAX_NOTES only counts it. 0 or -ENOMEM. */
int rb_plan_note(rb_plan_parser_t *ps, unsigned line, const char *fmt, ...)
{
    if (ps->nnotes == S_MAX_NOTES) {
        ps->notes_dropped++;
        return 0;
    }
    char what[RB_ERR_MSG_MAX], text[RB_ERR_MSG_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(text, sizeof text, "%s:%u: %s", ps->source, line, what);
    ps->nnotes++;
    return s_notes_append(ps, text);
}

static char *s_trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\v' ||
                     s[n - 1] == '\f'))
        s[--n] = '\0';
    return s;
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

bool rb_plan_name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

static bool s_is_reserved_section(const char *name)
{
    return !strcmp(name, "acceptance") || !strcmp(name, "capacity") || !strcmp(name, "rack") ||
           (!strncmp(name, "rack", 4) && (name[4] == ' ' || name[4] == '\t'));
}

/* "rack NAME" → NAME (trimmed); NULL for any other section. */
static char *s_rack_section(char *name)
{
    if (strncmp(name, "rack", 4) != 0 || (name[4] != ' ' && name[4] != '\t'))
        return NULL;
    name += 5;
    while (*name == ' ' || *name == '\t')
        name++;
    return name;
}

static uint64_t s_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Adds name to the set; returns 0 if new, the first line if seen, or -ENOMEM. */
static long s_seen_add(rb_plan_parser_t *ps, const char *name, unsigned line)
{
    if ((ps->nseen + 1) * 2 > ps->cap_seen) {
        size_t cap = ps->cap_seen ? ps->cap_seen * 2 : 64;
        rb_plan_seen_t *slots = calloc(cap, sizeof *slots);
        if (!slots)
            return -ENOMEM;
        for (size_t i = 0; i < ps->cap_seen; i++) {
            if (!ps->seen[i].line)
                continue;
            size_t k = s_hash(ps->seen[i].name) & (cap - 1);
            while (slots[k].line)
                k = (k + 1) & (cap - 1);
            slots[k] = ps->seen[i];
        }
        free(ps->seen);
        ps->seen = slots;
        ps->cap_seen = cap;
    }
    size_t k = s_hash(name) & (ps->cap_seen - 1);
    while (ps->seen[k].line) {
        if (!strcmp(ps->seen[k].name, name))
            return ps->seen[k].line;
        k = (k + 1) & (ps->cap_seen - 1);
    }
    strcpy(ps->seen[k].name, name); /* caller checked the length */
    ps->seen[k].line = line;
    ps->nseen++;
    return 0;
}

/* Settles a metadata job: only the options that shape the file set and its
 * workers are kept, everything about data IO is left at its default, so
 * size is 0 and bs 4k. Errors name the job's section line or the option's. */
static int s_settle_meta(rb_plan_parser_t *ps, rb_plan_job_t *o, const char *name, unsigned line)
{
    const rb_job_spec_t *js = &o->spec;
    if (js->filename[0])
        return rb_plan_fail(
            ps, rb_plan_job_line(o, "filename"),
            "job '%s': filename= names one file, but rw=meta works on meta_files files "
            "(name their set with filename_format)",
            name);
    if (!js->meta_files)
        return rb_plan_fail(
            ps, line, "job '%s' has no meta_files (files per worker, required for rw=meta)", name);
    if (js->meta_dirs > 1 && js->meta_depth > 0)
        return rb_plan_fail(ps,
                            rb_plan_job_line(o, "meta_dirs") > rb_plan_job_line(o, "meta_depth")
                                ? rb_plan_job_line(o, "meta_dirs")
                                : rb_plan_job_line(o, "meta_depth"),
                            "job '%s': meta_dirs=%" PRIu32 " and meta_depth=%" PRIu32
                            " together (flat directories or a tree, not both)",
                            name, js->meta_dirs, js->meta_depth);
    if (js->meta_shared && (js->meta_dirs > 1 || js->meta_depth > 0)) {
        unsigned at = js->meta_dirs > 1 ? rb_plan_job_line(o, "meta_dirs")
                                        : rb_plan_job_line(o, "meta_depth");
        return rb_plan_fail(ps,
                            at > rb_plan_job_line(o, "meta_shared_dir")
                                ? at
                                : rb_plan_job_line(o, "meta_shared_dir"),
                            "job '%s': meta_shared_dir puts every file in one shared directory: no "
                            "meta_dirs or meta_depth with it",
                            name);
    }
    rb_job_spec_t m;
    rb_plan_spec_defaults(&m);
    memcpy(m.name, js->name, sizeof m.name);
    m.rw = RB_RW_META;
    m.numjobs = js->numjobs;
    m.randrepeat = js->randrepeat; /* meta_order=random draws from the job's seed */
    m.randseed = js->randseed;
    memcpy(m.directory, js->directory, sizeof m.directory);
    memcpy(m.filename_format, js->filename_format, sizeof m.filename_format);
    m.meta_files = js->meta_files;
    m.meta_filesize = js->meta_filesize;
    m.meta_dirs = js->meta_dirs;
    m.meta_depth = js->meta_depth;
    m.meta_branch = js->meta_branch;
    m.meta_random = js->meta_random;
    m.meta_shared = js->meta_shared;
    m.meta_sync = js->meta_sync;
    m.meta_renamed = js->meta_renamed;
    o->spec = m;
    return 0;
}

/* Checks the options that work across nodes: a shared file (IOR's N-1),
 * whose data a read gets, stonewalling. Errors name the option's line. */
static int s_settle_across(rb_plan_parser_t *ps, rb_plan_job_t *o, const char *name, unsigned line)
{
    rb_job_spec_t *js = &o->spec;
    char a[64], b[64];
    uint64_t t = js->transfer ? js->transfer : js->bs;
    if (js->read_shift && (!rb_rw_reads(js->rw) || rb_rw_writes(js->rw)))
        return rb_plan_fail(ps, rb_plan_job_line(o, "read_from"),
                            "job '%s': read_from is for jobs that only read (rw=%s writes)", name,
                            rb_rw_name(js->rw));
    if (js->wearout && !js->stonewall_ns)
        return rb_plan_fail(ps, rb_plan_job_line(o, "wearout"),
                            "job '%s': wearout needs stonewall_time", name);
    if (!js->shared_file) {
        if (js->layout != RB_LAYOUT_SEGMENTED && rb_plan_job_line(o, "layout"))
            return rb_plan_fail(
                ps, rb_plan_job_line(o, "layout"),
                "job '%s': layout= is the layout of a shared file (file_per_worker=0)", name);
        if (js->transfer && rb_plan_job_line(o, "transfer"))
            return rb_plan_fail(ps, rb_plan_job_line(o, "transfer"),
                                "job '%s': transfer= is the piece size of a strided shared file "
                                "(file_per_worker=0, layout=strided)",
                                name);
        return 0;
    }
    if (js->filename[0])
        return rb_plan_fail(
            ps,
            rb_plan_job_line(o, "filename") > rb_plan_job_line(o, "file_per_worker")
                ? rb_plan_job_line(o, "filename")
                : rb_plan_job_line(o, "file_per_worker"),
            "job '%s': file_per_worker=0 makes one file for all workers of all nodes; "
            "filename= names a file per node (use one or the other)",
            name);
    if (js->nrfiles != 1)
        return rb_plan_fail(ps,
                            rb_plan_job_line(o, "nrfiles") > rb_plan_job_line(o, "file_per_worker")
                                ? rb_plan_job_line(o, "nrfiles")
                                : rb_plan_job_line(o, "file_per_worker"),
                            "job '%s': file_per_worker=0 makes one file: nrfiles must be 1", name);
    if (js->layout == RB_LAYOUT_STRIDED) {
        unsigned at = rb_plan_job_line(o, "transfer") ? rb_plan_job_line(o, "transfer") : line;
        if (js->bs_max != js->bs || t % js->bs)
            return rb_plan_fail(ps, at,
                                "job '%s': a strided layout needs one block size dividing transfer "
                                "(transfer %s, bs %s)",
                                name, rb_fmt_size_exact(a, sizeof a, t),
                                rb_fmt_size_exact(b, sizeof b, js->bs));
        if (js->size % t)
            return rb_plan_fail(ps, at,
                                "job '%s': size %s per worker is not a whole number of transfer=%s "
                                "pieces",
                                name, rb_fmt_size_exact(a, sizeof a, js->size),
                                rb_fmt_size_exact(b, sizeof b, t));
    } else if (js->transfer && rb_plan_job_line(o, "transfer")) {
        return rb_plan_fail(ps, rb_plan_job_line(o, "transfer"),
                            "job '%s': transfer= is the piece size of layout=strided (this job is "
                            "segmented)",
                            name);
    }
    return 0;
}

/* Settles what depends on several options (fio semantics) and checks the
 * job as a whole; errors name the job's section line. */
static int s_settle_job(rb_plan_parser_t *ps, rb_plan_job_t *o, const char *name, unsigned line)
{
    rb_job_spec_t *js = &o->spec;
    char a[64], b[64], c[64];

    if (js->rw == RB_RW_META)
        return s_settle_meta(ps, o, name, line);
    if (o->meta_line)
        return rb_plan_fail(ps, o->meta_line,
                            "option '%s' applies only to rw=meta (job '%s' has rw=%s)", o->meta_key,
                            name, rb_rw_name(js->rw));
    js->meta_files = 0; /* [global] meta_* options leave other jobs as they are */
    js->meta_filesize = 0;
    js->meta_dirs = 0;
    js->meta_depth = 0;
    js->meta_branch = 0;
    js->meta_random = 0;
    js->meta_shared = 0;
    js->meta_sync = 0;
    js->meta_renamed = 0;

    /* fio: a filename names the files, so nrfiles is not used */
    if (js->filename[0] && js->nrfiles != 1) {
        int rc =
            rb_plan_note(ps, rb_plan_job_line(o, "nrfiles"),
                         "option 'nrfiles' is ignored in job '%s': filename= names the one file "
                         "its workers share, as in fio",
                         name);
        if (rc < 0)
            return rc;
        js->nrfiles = 1;
    }
    if (o->filename_abs)
        memcpy(js->directory, o->fn_dir, sizeof js->directory);

    if (!rb_plan_job_line(o, "size")) {
        if (!js->filesize)
            return rb_plan_fail(
                ps, line,
                "job '%s' has no size (size= bytes per worker, or filesize= bytes per "
                "file, is required)",
                name);
        if (js->filesize > UINT64_MAX / js->nrfiles)
            return rb_plan_fail(ps, line,
                                "job '%s': filesize %s times nrfiles %" PRIu32 " is too large",
                                name, rb_fmt_size_exact(a, sizeof a, js->filesize), js->nrfiles);
        js->size = js->filesize * js->nrfiles;
    }

    /* fio: a block size range wins over bs */
    if (rb_plan_job_line(o, "bsrange")) {
        js->bs = o->bsrange_min;
        js->bs_max = o->bsrange_max;
    } else {
        js->bs_max = js->bs;
    }
    const char *what = js->bs_max == js->bs ? "bs" : "the largest bsrange block";
    rb_fmt_size_exact(a, sizeof a, js->bs_max);
    if (js->bs_max > js->size)
        return rb_plan_fail(ps, line, "job '%s': %s %s is larger than size %s", name, what, a,
                            rb_fmt_size_exact(b, sizeof b, js->size));
    if (js->filesize && js->bs_max > js->filesize)
        return rb_plan_fail(ps, line, "job '%s': %s %s is larger than filesize %s", name, what, a,
                            rb_fmt_size_exact(b, sizeof b, js->filesize));
    if (!js->filesize && js->bs_max > js->size / js->nrfiles)
        return rb_plan_fail(ps, line,
                            "job '%s': %s %s is larger than each file (size %s / nrfiles %" PRIu32
                            " = %s)",
                            name, what, a, rb_fmt_size_exact(b, sizeof b, js->size), js->nrfiles,
                            rb_fmt_size_exact(c, sizeof c, js->size / js->nrfiles));
    if (js->time_based && js->runtime_ns == 0)
        return rb_plan_fail(ps, line, "job '%s': time_based needs a runtime", name);
    return s_settle_across(ps, o, name, line);
}

/* Appends js to the last phase, or to a new one; errors name line. */
static int s_add_job(rb_plan_parser_t *ps, const rb_job_spec_t *js, bool new_phase, unsigned line)
{
    const char *name = js->name;
    if (ps->nphases == 0 || new_phase) {
        if (ps->nphases == RB_MAX_PHASES)
            return rb_plan_fail(ps, line, "job '%s' starts phase %u, more than %u phases", name,
                                ps->nphases + 1, RB_MAX_PHASES);
        if (ps->nphases == ps->cap_phases) {
            uint32_t cap = ps->cap_phases ? ps->cap_phases * 2 : 4;
            rb_phase_spec_t *ph = realloc(ps->phases, cap * sizeof *ph);
            if (!ph)
                return rb_plan_nomem(ps);
            ps->phases = ph;
            ps->cap_phases = cap;
        }
        rb_phase_spec_t *ph = &ps->phases[ps->nphases++];
        memset(ph, 0, sizeof *ph);
        memcpy(ph->name, name, strlen(name) + 1);
        ps->cap_jobs = 0;
        ps->phase_workers = 0;
    }
    rb_phase_spec_t *ph = &ps->phases[ps->nphases - 1];
    if (ph->njobs == RB_MAX_JOBS)
        return rb_plan_fail(ps, line, "job '%s': phase '%s' has more than %u jobs", name, ph->name,
                            RB_MAX_JOBS);
    if (ps->phase_workers + js->numjobs > RB_MAX_WORKERS)
        return rb_plan_fail(ps, line,
                            "job '%s': phase '%s' would run %u workers per agent, more than %u "
                            "(sum of numjobs)",
                            name, ph->name, ps->phase_workers + js->numjobs, RB_MAX_WORKERS);
    if (ph->njobs == ps->cap_jobs) {
        uint32_t cap = ps->cap_jobs ? ps->cap_jobs * 2 : 4;
        rb_job_spec_t *jobs = realloc(ph->jobs, cap * sizeof *jobs);
        if (!jobs)
            return rb_plan_nomem(ps);
        ph->jobs = jobs;
        ps->cap_jobs = cap;
    }
    ph->jobs[ph->njobs++] = *js;
    ps->phase_workers += js->numjobs;
    return 0;
}

/* Adds a name to the set of job names; 0, or -EINVAL naming the first use. */
static int s_name_unique(rb_plan_parser_t *ps, const char *name, unsigned line)
{
    long first = s_seen_add(ps, name, line);
    if (first < 0)
        return rb_plan_nomem(ps);
    if (first > 0)
        return rb_plan_fail(ps, line, "duplicate job name '%s' (first at line %ld)", name, first);
    return 0;
}

/* filename_format of a metadata job: the job's name J unless given, and $jobname
 * read as J, so that every step works on the same files. */
static int s_meta_fnfmt(rb_plan_parser_t *ps, rb_plan_job_t *o, const char *base, size_t base_len)
{
    rb_job_spec_t *js = &o->spec;
    char out[RB_NAME_MAX];
    size_t n = 0;
    if (!rb_plan_job_line(o, "filename_format")) {
        memcpy(js->filename_format, base, base_len); /* base_len < RB_NAME_MAX */
        js->filename_format[base_len] = '\0';
        return 0;
    }
    for (const char *c = js->filename_format; *c;) {
        const char *add = c;
        size_t len = 1;
        if (!strncmp(c, "$jobname", 8)) {
            add = base;
            len = base_len;
            c += 8;
        } else {
            c++;
        }
        if (n + len >= sizeof out)
            return rb_plan_fail(ps, rb_plan_job_line(o, "filename_format"),
                                "filename_format '%s' with $jobname as '%.*s' is longer than %d "
                                "characters",
                                js->filename_format, (int)base_len, base, RB_NAME_MAX - 1);
        memcpy(out + n, add, len);
        n += len;
    }
    out[n] = '\0';
    memcpy(js->filename_format, out, n + 1);
    return 0;
}

/* Expands a metadata job J into one phase per operation of meta_ops, named
 * "J.OP". A section "J.OP" with the single operation OP is that step of job J
 * itself (it is how rb_plan_print writes steps). */
static int s_finish_meta(rb_plan_parser_t *ps, rb_plan_job_t *o, unsigned line)
{
    rb_job_spec_t *js = &o->spec;
    const char *name = js->name;
    size_t len = strlen(name), base_len = len;
    if (o->nmeta_ops == 1) {
        const char *op = rb_meta_op_name(o->meta_ops[0]);
        size_t n = strlen(op);
        if (len > n + 1 && name[len - n - 1] == '.' && !strcmp(name + len - n, op))
            base_len = len - n - 1;
    }
    int rc = s_meta_fnfmt(ps, o, name, base_len);
    if (rc == 0)
        rc = s_name_unique(ps, name, line);
    uint8_t renamed = js->meta_renamed;
    for (uint32_t i = 0; i < o->nmeta_ops && rc == 0; i++) {
        rb_job_spec_t step = *js;
        const char *op = rb_meta_op_name(o->meta_ops[i]);
        if (base_len == len) {
            if (len + 1 + strlen(op) >= RB_NAME_MAX)
                return rb_plan_fail(ps, o->name_line,
                                    "job '%s': step name '%s.%s' is longer than %d characters",
                                    name, name, op, RB_NAME_MAX - 1);
            snprintf(step.name, sizeof step.name, "%s.%s", name, op);
            rc = s_name_unique(ps, step.name, line);
            if (rc < 0)
                return rc;
        }
        step.meta_op = o->meta_ops[i];
        step.meta_renamed = renamed;
        rc = s_add_job(ps, &step, true, line);
        if (o->meta_ops[i] == RB_META_RENAME)
            renamed = 1;
    }
    ps->after_meta = true;
    return rc;
}

/* Checks the job just read and appends it to its phase. */
static int s_finish_job(rb_plan_parser_t *ps)
{
    rb_plan_job_t *o = &ps->job;
    rb_job_spec_t *js = &o->spec;
    unsigned line = ps->job_line;
    const char *name = o->name;
    size_t len = strlen(name);

    if (len == 0)
        return rb_plan_fail(ps, o->name_line, "job name is empty");
    if (len >= RB_NAME_MAX)
        return rb_plan_fail(ps, o->name_line, "job name '%.40s...' is longer than %d characters",
                            name, RB_NAME_MAX - 1);
    for (const char *c = name; *c; c++)
        if (!rb_plan_name_char(*c))
            return rb_plan_fail(ps, o->name_line,
                                "job name '%s' has a character other than A-Z a-z 0-9 . _ -", name);
    if (!strcmp(name, "global") || s_is_reserved_section(name))
        return rb_plan_fail(ps, o->name_line, "job name '%s' is reserved", name);
    memcpy(js->name, name, len + 1);

    int rc = s_settle_job(ps, o, name, line);
    if (rc < 0)
        return rc;

    if (js->rw == RB_RW_META)
        return s_finish_meta(ps, o, line);
    rc = s_name_unique(ps, name, line);
    if (rc < 0)
        return rc;
    bool new_phase = o->stonewall || ps->after_meta;
    ps->after_meta = false;
    return s_add_job(ps, js, new_phase, line);
}

static void s_racks_free(rb_plan_rack_t *racks, uint32_t n)
{
    for (uint32_t i = 0; racks && i < n; i++)
        free(racks[i].nodes);
    free(racks);
}

const char *rb_plan_rack_of(const rb_plan_t *p, const char *node)
{
    for (uint32_t r = 0; p && r < p->nracks; r++)
        for (uint32_t i = 0; i < p->racks[r].nnodes; i++)
            if (!strcmp(p->racks[r].nodes[i], node))
                return p->racks[r].name;
    return NULL;
}

/* Starts [rack NAME] at line. */
static int s_rack_begin(rb_plan_parser_t *ps, char *name, unsigned line)
{
    size_t len = strlen(name);
    if (!len || len >= RB_NAME_MAX ||
        strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                     "0123456789._-") != len)
        return rb_plan_fail(ps, line, "rack name '%.64s': use 1-%d of A-Z a-z 0-9 . _ -", name,
                            RB_NAME_MAX - 1);
    for (uint32_t i = 0; i < ps->nracks; i++)
        if (!strcmp(ps->racks[i].name, name))
            return rb_plan_fail(ps, line, "[rack %s] again (first at line %u)", name,
                                ps->racks[i].line);
    if (ps->nracks == RB_PLAN_MAX_RACKS)
        return rb_plan_fail(ps, line, "more than %d [rack] sections", RB_PLAN_MAX_RACKS);
    if (ps->nracks == ps->cap_racks) {
        uint32_t cap = ps->cap_racks ? 2 * ps->cap_racks : 8;
        rb_plan_rack_t *r = realloc(ps->racks, cap * sizeof *r);
        if (!r)
            return rb_plan_nomem(ps);
        ps->racks = r;
        ps->cap_racks = cap;
    }
    rb_plan_rack_t *r = &ps->racks[ps->nracks++];
    memset(r, 0, sizeof *r);
    memcpy(r->name, name, len + 1);
    r->line = line;
    return 0;
}

/* Adds one node name to the current rack. */
static int s_rack_add(rb_plan_parser_t *ps, const char *node, unsigned line)
{
    rb_plan_rack_t *r = &ps->racks[ps->nracks - 1];
    size_t len = strlen(node);
    if (!len || len >= RB_NAME_MAX ||
        strspn(node, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                     "0123456789._-") != len)
        return rb_plan_fail(ps, line, "[rack %s]: node name '%.64s': use 1-%d of A-Z a-z 0-9 . _ -",
                            r->name, node, RB_NAME_MAX - 1);
    for (uint32_t k = 0; k < ps->nracks; k++)
        for (uint32_t i = 0; i < ps->racks[k].nnodes; i++)
            if (!strcmp(ps->racks[k].nodes[i], node))
                return rb_plan_fail(ps, line, "node %s is already in [rack %s] (line %u)", node,
                                    ps->racks[k].name, ps->racks[k].line);
    if (ps->rack_nodes == RB_PLAN_MAX_RACK_NODES)
        return rb_plan_fail(ps, line, "more than %d nodes in [rack] sections",
                            RB_PLAN_MAX_RACK_NODES);
    char(*n)[RB_NAME_MAX] = realloc(r->nodes, (r->nnodes + 1) * sizeof *n);
    if (!n)
        return rb_plan_nomem(ps);
    r->nodes = n;
    memcpy(r->nodes[r->nnodes++], node, len + 1);
    ps->rack_nodes++;
    return 0;
}

/* nodes=a,b,c of a [rack NAME] section; "node[01-08]" stands for node01 ..
 * node08 (the width of the first number is kept). */
static int s_rack_option(rb_plan_parser_t *ps, char *key, char *val, unsigned line)
{
    if (strcmp(key, "nodes") != 0)
        return rb_plan_fail(ps, line, "[rack %s]: unknown option '%.64s' (a rack has nodes=a,b,c)",
                            ps->racks[ps->nracks - 1].name, key);
    if (!val || !*val)
        return rb_plan_fail(ps, line, "nodes= needs node names: nodes=a,b,c");
    for (char *save = NULL, *t = strtok_r(val, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *name = s_trim(t), *lb = strchr(name, '['), *rb = lb ? strchr(lb, ']') : NULL;
        unsigned lo, hi;
        int w1 = 0, w2 = 0;
        if (!lb) {
            int rc = s_rack_add(ps, name, line);
            if (rc < 0)
                return rc;
            continue;
        }
        if (!rb || sscanf(lb, "[%u%n-%u%n]", &lo, &w1, &hi, &w2) != 2 || lb[w2] != ']' || hi < lo ||
            hi - lo >= RB_PLAN_MAX_RACK_NODES)
            return rb_plan_fail(ps, line, "nodes: '%.64s': a range is written prefix[01-16]suffix",
                                name);
        for (unsigned i = lo; i <= hi; i++) {
            char one[RB_NAME_MAX * 2];
            snprintf(one, sizeof one, "%.*s%0*u%s", (int)(lb - name), name, w1 - 1, i, rb + 1);
            int rc = s_rack_add(ps, one, line);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
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
    return strcmp(name, "global") != 0 && !s_is_reserved_section(name);
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

static int s_global_end(rb_plan_parser_t *ps)
{
    (void)ps;
    return 0;
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
    return rb_accept_begin(ps->accept, arg, line, ps->err);
}

static int s_accept_option(rb_plan_parser_t *ps, char *key, char *val, unsigned line)
{
    return rb_accept_option(ps->accept, key, val, line, ps->err);
}

static int s_accept_end(rb_plan_parser_t *ps)
{
    return rb_accept_end(ps->accept, ps->err);
}

static int s_accept_resolve(rb_plan_parser_t *ps)
{
    return ps->accept ? rb_accept_resolve(ps->accept, ps->phases, ps->nphases, ps->err) : 0;
}

static int s_accept_print(const rb_plan_t *p, FILE *f)
{
    return rb_accept_print(p->accept, p->phases, p->nphases, f);
}

/* [rack NAME] */
static bool s_rack_match(char *name, char **arg)
{
    *arg = s_rack_section(name);
    return *arg != NULL;
}

static int s_rack_end(rb_plan_parser_t *ps)
{
    if (!ps->racks[ps->nracks - 1].nnodes)
        return rb_plan_fail(ps, ps->racks[ps->nracks - 1].line,
                            "[rack %s] lists no nodes (nodes=a,b,c)",
                            ps->racks[ps->nracks - 1].name);
    return 0;
}

static int s_rack_print(const rb_plan_t *p, FILE *f)
{
    for (uint32_t r = 0; r < p->nracks; r++) {
        fprintf(f, "\n[rack %s]\nnodes=", p->racks[r].name);
        for (uint32_t i = 0; i < p->racks[r].nnodes; i++)
            fprintf(f, "%s%s", i ? "," : "", p->racks[r].nodes[i]);
        fprintf(f, "\n");
    }
    return 0;
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
    return rb_project_begin(ps->project, line, ps->err);
}

static int s_capacity_option(rb_plan_parser_t *ps, char *key, char *val, unsigned line)
{
    return rb_project_option(ps->project, key, val, line, ps->err);
}

static int s_capacity_end(rb_plan_parser_t *ps)
{
    return rb_project_end(ps->project, ps->err);
}

static int s_capacity_resolve(rb_plan_parser_t *ps)
{
    return ps->project ? rb_project_resolve(ps->project, ps->phases, ps->nphases, ps->err) : 0;
}

static int s_capacity_print(const rb_plan_t *p, FILE *f)
{
    return rb_project_print(p->project, p->phases, p->nphases, f);
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
} rb_plan_section_t;

/* In the order the normalised print writes them; [global] and jobs first. */
static const rb_plan_section_t s_sections[] = {
    {"[global]", s_global_match, s_global_begin, s_job_option, s_global_end, NULL, NULL},
    {"job", s_job_match, s_job_begin, s_job_option, s_finish_job, NULL, NULL},
    {"[acceptance]", s_accept_match, s_accept_begin, s_accept_option, s_accept_end,
     s_accept_resolve, s_accept_print},
    {"[rack]", s_rack_match, s_rack_begin, s_rack_option, s_rack_end, NULL, s_rack_print},
    {"[capacity]", s_capacity_match, s_capacity_begin, s_capacity_option, s_capacity_end,
     s_capacity_resolve, s_capacity_print},
};

#define S_NSECTIONS (sizeof s_sections / sizeof s_sections[0])

/* Completes the section being read. */
static int s_end_section(rb_plan_parser_t *ps)
{
    return ps->section ? ps->section->end(ps) : 0;
}

static int s_section(rb_plan_parser_t *ps, char *s, unsigned line)
{
    char *close = strchr(s, ']');
    if (!close)
        return rb_plan_fail(ps, line, "'[' without ']'");
    if (*s_trim(close + 1))
        return rb_plan_fail(ps, line, "text after ']'");
    *close = '\0';
    char *name = s_trim(s + 1);
    if (!*name)
        return rb_plan_fail(ps, line, "empty section name '[]'");
    const rb_plan_section_t *sec = NULL;
    char *arg = NULL;
    /* a job section is any name no other kind of section takes */
    for (int fallback = 0; fallback < 2 && !sec; fallback++)
        for (size_t i = 0; i < S_NSECTIONS && !sec; i++)
            if ((s_sections[i].match == s_job_match) == fallback && s_sections[i].match(name, &arg))
                sec = &s_sections[i];
    if (!sec)
        return rb_plan_fail(ps, line, "section [%.64s] is not supported yet", name);
    int rc = s_end_section(ps);
    if (rc < 0)
        return rc;
    ps->section = sec;
    return sec->begin(ps, arg, line);
}

static int s_line(rb_plan_parser_t *ps, char *raw, unsigned line)
{
    s_strip_comment(raw);
    char *s = s_trim(raw);
    if (!*s)
        return 0;
    if (*s == '[')
        return s_section(ps, s, line);
    if (!strncmp(s, "include", 7) && (s[7] == ' ' || s[7] == '\t'))
        return rb_plan_fail(ps, line,
                            "fio's 'include FILE' is not supported yet (put the options here)");
    if (!ps->section)
        return rb_plan_fail(ps, line,
                            "'%.64s' is outside any section (start with [global] or [job])", s);

    char *eq = strchr(s, '=');
    char *val = NULL;
    if (eq) {
        *eq = '\0';
        val = s_trim(eq + 1);
    }
    char *key = s_trim(s);
    if (!*key)
        return rb_plan_fail(ps, line, "empty option name before '='");
    return ps->section->option(ps, key, val, line);
}

static int s_parse_all(rb_plan_parser_t *ps, char *work, size_t len)
{
    unsigned line = 0;
    char *p = work, *end = work + len;
    while (p < end) {
        line++;
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *next = nl ? nl + 1 : end;
        if (nl)
            *nl = '\0';
        int rc = s_line(ps, p, line);
        if (rc < 0)
            return rc;
        p = next;
    }
    int rc = s_end_section(ps);
    if (rc < 0)
        return rc;
    if (ps->nphases == 0)
        return rb_plan_fail(ps, 0,
                            "the plan has no jobs (add a [job] section with at least size=)");
    for (size_t i = 0; i < S_NSECTIONS; i++)
        if (s_sections[i].resolve && (rc = s_sections[i].resolve(ps)) < 0)
            return rc;
    if (ps->notes_dropped) {
        char text[RB_ERR_MSG_MAX];
        snprintf(text, sizeof text, "%s: %u more notes like these", ps->source, ps->notes_dropped);
        return s_notes_append(ps, text);
    }
    return 0;
}

int rb_plan_parse(const char *text, size_t len, const char *source, rb_plan_t **out, rb_err_t *err)
{
    rb_plan_parser_t ps;
    memset(&ps, 0, sizeof ps);
    ps.source = source ? source : "<plan>";
    ps.err = err;
    ps.interval_ns = S_DEFAULT_INTERVAL_NS;
    rb_plan_job_defaults(&ps.global);

    if (!out || (!text && len))
        return rb_err_set(err, -EINVAL, "%s: no plan text given", ps.source);
    if (len > RB_PLAN_MAX_BYTES)
        return rb_plan_fail(&ps, 0, "the plan is %zu bytes, more than the limit of %u", len,
                            RB_PLAN_MAX_BYTES);
    const char *nul = len ? memchr(text, '\0', len) : NULL;
    if (nul) {
        unsigned line = 1;
        for (const char *c = text; c < nul; c++)
            line += *c == '\n';
        return rb_plan_fail(&ps, line, "NUL byte in the plan (not a text file?)");
    }

    rb_plan_t *plan = calloc(1, sizeof *plan);
    char *work = malloc(len + 1);
    if (plan) {
        plan->source = strdup(ps.source);
        plan->text = malloc(len + 1);
    }
    if (!plan || !work || !plan->source || !plan->text) {
        free(work);
        rb_plan_destroy(&plan);
        return rb_plan_nomem(&ps);
    }
    if (len) {
        memcpy(plan->text, text, len);
        memcpy(work, text, len);
    }
    plan->text[len] = '\0';
    work[len] = '\0';

    int rc = s_parse_all(&ps, work, len);
    free(work);
    free(ps.seen);
    if (rc < 0) {
        if (ps.phases)
            rb_phases_free(&ps.phases, ps.nphases);
        free(ps.notes);
        rb_accept_destroy(&ps.accept);
        s_racks_free(ps.racks, ps.nracks);
        rb_project_destroy(&ps.project);
        rb_plan_destroy(&plan);
        return rc;
    }
    plan->interval_ns = ps.interval_ns;
    memcpy(plan->directory, ps.directory, sizeof plan->directory);
    plan->nphases = ps.nphases;
    plan->phases = ps.phases;
    plan->notes = ps.notes;
    plan->accept = ps.accept;
    plan->racks = ps.racks;
    plan->nracks = ps.nracks;
    plan->project = ps.project;
    *out = plan;
    return 0;
}

int rb_plan_load(const char *path, rb_plan_t **out, rb_err_t *err)
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
    int rc = rb_plan_parse(buf, len, path, out, err);
    free(buf);
    return rc;
}

void rb_plan_destroy(rb_plan_t **p)
{
    if (!p || !*p)
        return;
    rb_plan_t *plan = *p;
    if (plan->phases)
        rb_phases_free(&plan->phases, plan->nphases);
    free(plan->source);
    free(plan->text);
    free(plan->notes);
    rb_accept_destroy(&plan->accept);
    s_racks_free(plan->racks, plan->nracks);
    rb_project_destroy(&plan->project);
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
    rb_opt_print_global(p->interval_ns, p->directory, f);
    for (uint32_t i = 0; i < p->nphases; i++) {
        const rb_phase_spec_t *ph = &p->phases[i];
        for (uint32_t j = 0; j < ph->njobs; j++) {
            const rb_job_spec_t *js = &ph->jobs[j];
            fprintf(f, "\n[%s]\n", js->name);
            if (i > 0 && j == 0)
                fprintf(f, "stonewall\n");
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

uint32_t rb_phase_workers(const rb_phase_spec_t *ph)
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
