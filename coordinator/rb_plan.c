/* Turns a plan file in fio's job-file syntax into phases of jobs, refusing
 * anything rackbench cannot run with a message that names the line. */
#include "rb_plan.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rb_units.h"

#define S_NS_PER_S            1000000000ull
#define S_DEFAULT_INTERVAL_NS S_NS_PER_S
#define S_MIN_INTERVAL_NS     (100ull * 1000000ull)
#define S_MAX_INTERVAL_NS     (3600ull * S_NS_PER_S)
#define S_DEFAULT_BS          4096u
#define S_DEFAULT_FNFMT       "$jobname.$jobnum.$filenum"

/* Options rackbench understands; aliases map to the same id. */
typedef enum {
    S_O_RW,
    S_O_BS,
    S_O_SIZE,
    S_O_NUMJOBS,
    S_O_DIRECT,
    S_O_BUFFERED,
    S_O_RUNTIME,
    S_O_TIME_BASED,
    S_O_STONEWALL,
    S_O_DIRECTORY,
    S_O_FILENAME_FORMAT,
    S_O_NAME,
    S_O_DESCRIPTION,
    S_O_GROUP_REPORTING,
    S_O_SAMPLE_INTERVAL,
} s_opt_id_t;

typedef struct {
    const char *name; /* as written in a plan */
    s_opt_id_t id;    /* what it sets */
    bool flag;        /* may be written bare, meaning =1 */
} s_option_t;

static const s_option_t s_options[] = {
    {"rw", S_O_RW, false},
    {"readwrite", S_O_RW, false},
    {"bs", S_O_BS, false},
    {"blocksize", S_O_BS, false},
    {"size", S_O_SIZE, false},
    {"numjobs", S_O_NUMJOBS, false},
    {"direct", S_O_DIRECT, true},
    {"buffered", S_O_BUFFERED, true},
    {"runtime", S_O_RUNTIME, false},
    {"time_based", S_O_TIME_BASED, true},
    {"stonewall", S_O_STONEWALL, true},
    {"wait_for_previous", S_O_STONEWALL, true},
    {"directory", S_O_DIRECTORY, false},
    {"filename_format", S_O_FILENAME_FORMAT, false},
    {"name", S_O_NAME, false},
    {"description", S_O_DESCRIPTION, false},
    {"group_reporting", S_O_GROUP_REPORTING, true},
    {"sample_interval", S_O_SAMPLE_INTERVAL, false},
};

/* fio options a job file may well contain that rackbench does not run yet. */
/* clang-format off */
static const char *const s_not_yet[] = {
    "ioengine", "iodepth", "iodepth_batch", "iodepth_batch_complete", "iodepth_low", "rwmixread",
    "rwmixwrite", "fsync", "fdatasync", "sync", "end_fsync", "fsync_on_close", "verify",
    "verify_pattern", "do_verify", "nrfiles", "filesize", "filename", "offset", "offset_increment",
    "loops", "ramp_time", "startdelay", "thread", "norandommap", "randrepeat", "random_generator",
    "random_distribution", "bssplit", "bsrange", "blocksize_range", "blockalign", "ba", "io_size",
    "io_limit", "number_ios", "rate", "rate_iops", "rate_min", "thinktime", "cpus_allowed",
    "cpumask", "numa_cpu_nodes", "invalidate", "unlink", "create_on_open", "fallocate",
    "file_service_type", "zero_buffers", "refill_buffers", "buffer_compress_percentage",
    "dedupe_percentage", "write_bw_log", "write_lat_log", "write_iops_log", "log_avg_msec",
    "per_job_logs", "lockfile", "opendir", "percentage_random", "gtod_reduce", "clocksource",
    "disable_lat", "disable_clat", "disable_slat", "exitall", "exitall_on_error",
    "continue_on_error", "kb_base", "unit_base", "allow_file_create",
    "pre_read", "overwrite", "bs_unaligned", "hugepage-size", "mem", "iomem",
    "ioscheduler", "nice", "prio", "prioclass", "uid", "gid", "stats",
    "significant_figures", "percentile_list", "clat_percentiles", "lat_percentiles",
    "write_hist_log", "serialize_overlap", "scramble_buffers",
};
/* clang-format on */

/* Everything one job section sets, inherited from [global]. */
typedef struct {
    rb_job_spec_t spec; /* the fields sent to agents; spec.name unused */
    bool stonewall;     /* starts a new phase */
    bool size_set;      /* size= was given (required) */
    const char *name;   /* effective name, points into the work buffer */
    unsigned name_line; /* where name was set: section line or name= line */
} s_opts_t;

/* A name seen so far, for duplicate detection; line 0 marks an empty slot. */
typedef struct {
    char name[RB_NAME_MAX];
    unsigned line;
} s_seen_t;

typedef enum { S_SEC_NONE, S_SEC_GLOBAL, S_SEC_JOB } s_section_t;

typedef struct {
    const char *source;          /* borrowed; names the plan in messages */
    rb_err_t *err;               /* borrowed; the caller's error */
    uint64_t interval_ns;        /* [global] sample_interval */
    char directory[RB_PATH_MAX]; /* [global] directory */
    rb_phase_spec_t *phases;     /* owned until handed to the plan */
    uint32_t nphases;            /* entries of phases that are initialised */
    uint32_t cap_phases;         /* allocated entries of phases */
    uint32_t cap_jobs;           /* allocated jobs of the last phase */
    uint32_t phase_workers;      /* sum of numjobs in the last phase */
    s_opts_t global;             /* defaults for jobs that follow */
    s_opts_t job;                /* the job being read */
    s_section_t section;         /* what the current section is */
    unsigned job_line;           /* line of the current job's section header */
    s_seen_t *seen;              /* open-addressing set of job names */
    size_t cap_seen;             /* slots in seen, a power of two or 0 */
    size_t nseen;                /* used slots */
} s_parser_t;

/* Records "SOURCE:LINE: message" (or "SOURCE: message" when line is 0). */
__attribute__((format(printf, 3, 4))) static int s_fail(s_parser_t *ps, unsigned line,
                                                        const char *fmt, ...)
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

static bool s_name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

static bool s_is_reserved_section(const char *name)
{
    return !strcmp(name, "acceptance") || !strcmp(name, "capacity") || !strcmp(name, "rack") ||
           (!strncmp(name, "rack", 4) && (name[4] == ' ' || name[4] == '\t'));
}

static const s_option_t *s_find_option(const char *key)
{
    for (size_t i = 0; i < sizeof s_options / sizeof s_options[0]; i++)
        if (!strcmp(s_options[i].name, key))
            return &s_options[i];
    return NULL;
}

static bool s_is_not_yet(const char *key)
{
    for (size_t i = 0; i < sizeof s_not_yet / sizeof s_not_yet[0]; i++)
        if (!strcmp(s_not_yet[i], key))
            return true;
    return false;
}

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

static int s_unknown_option(s_parser_t *ps, unsigned line, const char *key)
{
    if (s_is_not_yet(key))
        return s_fail(ps, line, "option '%.64s' is not supported yet", key);
    const char *best = NULL;
    size_t cap = strlen(key) <= 4 ? 1 : 2; /* short names are all close to each other */
    size_t best_d = cap + 1;
    for (size_t i = 0; i < sizeof s_options / sizeof s_options[0]; i++) {
        size_t d = s_distance(key, s_options[i].name, cap);
        if (d < best_d) {
            best_d = d;
            best = s_options[i].name;
        }
    }
    if (best)
        return s_fail(ps, line, "unknown option '%.64s' (did you mean '%s'?)", key, best);
    return s_fail(ps, line, "unknown option '%.64s'", key);
}

static int s_size_value(s_parser_t *ps, unsigned line, const char *key, const char *val,
                        uint64_t *out)
{
    int rc = rb_parse_size(val, out);
    if (rc == -ERANGE)
        return s_fail(ps, line, "%s=%.64s is too large", key, val);
    if (rc < 0) {
        if (strchr(val, '%'))
            return s_fail(ps, line, "%s as a percentage (%s=%.64s) is not supported yet", key, key,
                          val);
        if (strchr(val, ',') || strchr(val, ':'))
            return s_fail(ps, line, "%s with several values (%s=%.64s) is not supported yet", key,
                          key, val);
        return s_fail(ps, line, "bad size '%.64s' for %s (a whole number with k, M, G, T or P)",
                      val, key);
    }
    if (*out == 0)
        return s_fail(ps, line, "%s must be greater than 0", key);
    return 0;
}

static int s_duration_value(s_parser_t *ps, unsigned line, const char *key, const char *val,
                            uint64_t *out)
{
    int rc = rb_parse_duration_ns(val, S_NS_PER_S, out);
    if (rc == -ERANGE)
        return s_fail(ps, line, "%s=%.64s is too large", key, val);
    if (rc < 0)
        return s_fail(ps, line,
                      "bad duration '%.64s' for %s (a number of seconds, or with ns, us, ms, s, "
                      "m, h, d)",
                      val, key);
    return 0;
}

static int s_bool_value(s_parser_t *ps, unsigned line, const char *key, const char *val, bool *out)
{
    int b = 0;
    if (rb_parse_bool(val, &b) < 0)
        return s_fail(ps, line, "bad value '%.64s' for %s (1/0, true/false, yes/no, on/off)", val,
                      key);
    *out = b != 0;
    return 0;
}

static int s_rw_value(s_parser_t *ps, unsigned line, const char *key, const char *val, rb_rw_t *out)
{
    static const char *const fio_rw[] = {"randread",  "randwrite", "rw",
                                         "readwrite", "randrw",    "trim",
                                         "randtrim",  "trimwrite", "randtrimwrite"};
    if (!strcmp(val, "read")) {
        *out = RB_RW_READ;
        return 0;
    }
    if (!strcmp(val, "write")) {
        *out = RB_RW_WRITE;
        return 0;
    }
    bool known = strchr(val, ':') != NULL; /* fio's "write:4k" offset modifier */
    for (size_t i = 0; i < sizeof fio_rw / sizeof fio_rw[0]; i++)
        if (!strcmp(fio_rw[i], val))
            known = true;
    if (known)
        return s_fail(ps, line, "%s=%.64s is not supported yet (read or write)", key, val);
    return s_fail(ps, line, "bad value '%.64s' for %s (read or write)", val, key);
}

static int s_numjobs_value(s_parser_t *ps, unsigned line, const char *key, const char *val,
                           uint32_t *out)
{
    uint64_t n = 0;
    const char *c = val;
    if (!*c)
        return s_fail(ps, line, "bad number '' for %s", key);
    for (; *c; c++) {
        if (*c < '0' || *c > '9')
            return s_fail(ps, line, "bad number '%.64s' for %s", val, key);
        n = n * 10 + (uint64_t)(*c - '0');
        if (n > RB_MAX_WORKERS)
            break;
    }
    if (n < 1 || n > RB_MAX_WORKERS)
        return s_fail(ps, line, "%s=%.64s is out of range (1..%u)", key, val, RB_MAX_WORKERS);
    *out = (uint32_t)n;
    return 0;
}

static int s_filename_format_value(s_parser_t *ps, unsigned line, const char *val, char *out)
{
    static const char *const vars[] = {"$jobname", "$jobnum", "$filenum"};
    size_t len = strlen(val);
    if (len >= RB_NAME_MAX)
        return s_fail(ps, line, "filename_format is longer than %d characters", RB_NAME_MAX - 1);
    for (const char *c = val; *c;) {
        if (*c == '$') {
            size_t n = 0;
            for (size_t i = 0; i < sizeof vars / sizeof vars[0] && !n; i++)
                if (!strncmp(c, vars[i], strlen(vars[i])))
                    n = strlen(vars[i]);
            if (!n)
                return s_fail(ps, line,
                              "filename_format '%s': only $jobname, $jobnum and $filenum may be "
                              "used",
                              val);
            c += n;
        } else if (s_name_char(*c)) {
            c++;
        } else {
            return s_fail(ps, line,
                          "filename_format '%s': character '%c' is not allowed (only A-Z a-z "
                          "0-9 . _ - and $jobname, $jobnum, $filenum)",
                          val, isprint((unsigned char)*c) ? *c : '?');
        }
    }
    memcpy(out, val, len + 1);
    return 0;
}

/* Applies key=val to o (the defaults when in [global]). */
static int s_apply(s_parser_t *ps, s_opts_t *o, const s_option_t *opt, const char *key,
                   const char *val, unsigned line)
{
    bool in_global = ps->section == S_SEC_GLOBAL;
    bool b = false;
    int rc = 0;

    if (!*val && opt->id != S_O_DESCRIPTION && opt->id != S_O_DIRECTORY)
        return s_fail(ps, line, "option '%s' has an empty value", key);
    switch (opt->id) {
    case S_O_RW:
        return s_rw_value(ps, line, key, val, &o->spec.rw);
    case S_O_BS:
        return s_size_value(ps, line, key, val, &o->spec.bs);
    case S_O_SIZE:
        rc = s_size_value(ps, line, key, val, &o->spec.size);
        if (rc == 0)
            o->size_set = true;
        return rc;
    case S_O_NUMJOBS:
        return s_numjobs_value(ps, line, key, val, &o->spec.numjobs);
    case S_O_DIRECT:
    case S_O_BUFFERED:
        rc = s_bool_value(ps, line, key, val, &b);
        if (rc == 0)
            o->spec.direct = (opt->id == S_O_DIRECT) ? b : !b;
        return rc;
    case S_O_RUNTIME:
        return s_duration_value(ps, line, key, val, &o->spec.runtime_ns);
    case S_O_TIME_BASED:
        rc = s_bool_value(ps, line, key, val, &b);
        if (rc == 0)
            o->spec.time_based = b;
        return rc;
    case S_O_STONEWALL:
        rc = s_bool_value(ps, line, key, val, &b);
        if (rc == 0)
            o->stonewall = b;
        return rc;
    case S_O_DIRECTORY: {
        size_t len = strlen(val);
        if (len >= RB_PATH_MAX)
            return s_fail(ps, line, "directory is longer than %d characters", RB_PATH_MAX - 1);
        if (strchr(val, ':'))
            return s_fail(ps, line,
                          "directory '%.64s': several directories separated by ':' are not "
                          "supported yet",
                          val);
        memcpy(o->spec.directory, val, len + 1);
        if (in_global)
            memcpy(ps->directory, val, len + 1);
        return 0;
    }
    case S_O_FILENAME_FORMAT:
        return s_filename_format_value(ps, line, val, o->spec.filename_format);
    case S_O_NAME:
        if (in_global)
            return s_fail(ps, line, "option 'name' belongs in a job section, not in [global]");
        o->name = val;
        o->name_line = line;
        return 0;
    case S_O_DESCRIPTION:
        return 0; /* free text, not used */
    case S_O_GROUP_REPORTING:
        return s_bool_value(ps, line, key, val, &b); /* rackbench always groups */
    case S_O_SAMPLE_INTERVAL:
        if (!in_global)
            return s_fail(ps, line, "option 'sample_interval' belongs in [global]");
        rc = s_duration_value(ps, line, key, val, &ps->interval_ns);
        if (rc == 0 && (ps->interval_ns < S_MIN_INTERVAL_NS || ps->interval_ns > S_MAX_INTERVAL_NS))
            return s_fail(ps, line, "sample_interval=%.64s is out of range (100ms..1h)", val);
        return rc;
    }
    return s_fail(ps, line, "internal error: option '%s' has no handler", key);
}

static uint64_t s_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Adds name to the set; returns 0 if new, the first line if seen, or -ENOMEM. */
static long s_seen_add(s_parser_t *ps, const char *name, unsigned line)
{
    if ((ps->nseen + 1) * 2 > ps->cap_seen) {
        size_t cap = ps->cap_seen ? ps->cap_seen * 2 : 64;
        s_seen_t *slots = calloc(cap, sizeof *slots);
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

static int s_nomem(s_parser_t *ps)
{
    return rb_err_set(ps->err, -ENOMEM, "%s: out of memory while reading the plan", ps->source);
}

/* Checks the job just read and appends it to its phase. */
static int s_finish_job(s_parser_t *ps)
{
    s_opts_t *o = &ps->job;
    rb_job_spec_t *js = &o->spec;
    unsigned line = ps->job_line;
    const char *name = o->name;
    size_t len = strlen(name);

    if (len == 0)
        return s_fail(ps, o->name_line, "job name is empty");
    if (len >= RB_NAME_MAX)
        return s_fail(ps, o->name_line, "job name '%.40s...' is longer than %d characters", name,
                      RB_NAME_MAX - 1);
    for (const char *c = name; *c; c++)
        if (!s_name_char(*c))
            return s_fail(ps, o->name_line,
                          "job name '%s' has a character other than A-Z a-z 0-9 . _ -", name);
    if (!strcmp(name, "global") || s_is_reserved_section(name))
        return s_fail(ps, o->name_line, "job name '%s' is reserved", name);
    memcpy(js->name, name, len + 1);

    if (!o->size_set)
        return s_fail(ps, line, "job '%s' has no size (size= is required: bytes per worker)", name);
    char a[64], b[64];
    if (js->bs > js->size)
        return s_fail(ps, line, "job '%s': bs %s is larger than size %s", name,
                      rb_fmt_size_exact(a, sizeof a, js->bs),
                      rb_fmt_size_exact(b, sizeof b, js->size));
    if (js->size % js->bs)
        return s_fail(ps, line, "job '%s': size %s is not a multiple of bs %s", name,
                      rb_fmt_size_exact(b, sizeof b, js->size),
                      rb_fmt_size_exact(a, sizeof a, js->bs));
    if (js->time_based && js->runtime_ns == 0)
        return s_fail(ps, line, "job '%s': time_based needs a runtime", name);

    long first = s_seen_add(ps, name, line);
    if (first < 0)
        return s_nomem(ps);
    if (first > 0)
        return s_fail(ps, line, "duplicate job name '%s' (first at line %ld)", name, first);

    if (ps->nphases == 0 || o->stonewall) {
        if (ps->nphases == RB_MAX_PHASES)
            return s_fail(ps, line, "job '%s' starts phase %u, more than %u phases", name,
                          ps->nphases + 1, RB_MAX_PHASES);
        if (ps->nphases == ps->cap_phases) {
            uint32_t cap = ps->cap_phases ? ps->cap_phases * 2 : 4;
            rb_phase_spec_t *ph = realloc(ps->phases, cap * sizeof *ph);
            if (!ph)
                return s_nomem(ps);
            ps->phases = ph;
            ps->cap_phases = cap;
        }
        rb_phase_spec_t *ph = &ps->phases[ps->nphases++];
        memset(ph, 0, sizeof *ph);
        memcpy(ph->name, name, len + 1);
        ps->cap_jobs = 0;
        ps->phase_workers = 0;
    }
    rb_phase_spec_t *ph = &ps->phases[ps->nphases - 1];
    if (ph->njobs == RB_MAX_JOBS)
        return s_fail(ps, line, "job '%s': phase '%s' has more than %u jobs", name, ph->name,
                      RB_MAX_JOBS);
    if (ps->phase_workers + js->numjobs > RB_MAX_WORKERS)
        return s_fail(ps, line,
                      "job '%s': phase '%s' would run %u workers per agent, more than %u "
                      "(sum of numjobs)",
                      name, ph->name, ps->phase_workers + js->numjobs, RB_MAX_WORKERS);
    if (ph->njobs == ps->cap_jobs) {
        uint32_t cap = ps->cap_jobs ? ps->cap_jobs * 2 : 4;
        rb_job_spec_t *jobs = realloc(ph->jobs, cap * sizeof *jobs);
        if (!jobs)
            return s_nomem(ps);
        ph->jobs = jobs;
        ps->cap_jobs = cap;
    }
    ph->jobs[ph->njobs++] = *js;
    ps->phase_workers += js->numjobs;
    return 0;
}

static int s_section(s_parser_t *ps, char *s, unsigned line)
{
    char *close = strchr(s, ']');
    if (!close)
        return s_fail(ps, line, "'[' without ']'");
    if (*s_trim(close + 1))
        return s_fail(ps, line, "text after ']'");
    *close = '\0';
    char *name = s_trim(s + 1);
    if (!*name)
        return s_fail(ps, line, "empty section name '[]'");
    if (s_is_reserved_section(name))
        return s_fail(ps, line, "section [%.64s] is not supported yet", name);
    if (ps->section == S_SEC_JOB) {
        int rc = s_finish_job(ps);
        if (rc < 0)
            return rc;
    }
    if (!strcmp(name, "global")) {
        ps->section = S_SEC_GLOBAL;
        return 0;
    }
    ps->section = S_SEC_JOB;
    ps->job = ps->global;
    ps->job.name = name;
    ps->job.name_line = line;
    ps->job_line = line;
    return 0;
}

static int s_line(s_parser_t *ps, char *raw, unsigned line)
{
    s_strip_comment(raw);
    char *s = s_trim(raw);
    if (!*s)
        return 0;
    if (*s == '[')
        return s_section(ps, s, line);
    if (ps->section == S_SEC_NONE)
        return s_fail(ps, line, "'%.64s' is outside any section (start with [global] or [job])", s);

    char *eq = strchr(s, '=');
    char *val = NULL;
    if (eq) {
        *eq = '\0';
        val = s_trim(eq + 1);
    }
    char *key = s_trim(s);
    if (!*key)
        return s_fail(ps, line, "empty option name before '='");
    const s_option_t *opt = s_find_option(key);
    if (!opt)
        return s_unknown_option(ps, line, key);
    if (!val) {
        if (!opt->flag)
            return s_fail(ps, line, "option '%s' needs a value (%s=...)", key, key);
        val = "1";
    }
    s_opts_t *o = ps->section == S_SEC_GLOBAL ? &ps->global : &ps->job;
    return s_apply(ps, o, opt, key, val, line);
}

static void s_defaults(s_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->spec.rw = RB_RW_READ;
    o->spec.bs = S_DEFAULT_BS;
    o->spec.numjobs = 1;
    memcpy(o->spec.filename_format, S_DEFAULT_FNFMT, sizeof S_DEFAULT_FNFMT);
    o->name = "";
}

static int s_parse_all(s_parser_t *ps, char *work, size_t len)
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
    if (ps->section == S_SEC_JOB) {
        int rc = s_finish_job(ps);
        if (rc < 0)
            return rc;
    }
    if (ps->nphases == 0)
        return s_fail(ps, 0, "the plan has no jobs (add a [job] section with at least size=)");
    return 0;
}

int rb_plan_parse(const char *text, size_t len, const char *source, rb_plan_t **out, rb_err_t *err)
{
    s_parser_t ps;
    memset(&ps, 0, sizeof ps);
    ps.source = source ? source : "<plan>";
    ps.err = err;
    ps.interval_ns = S_DEFAULT_INTERVAL_NS;
    s_defaults(&ps.global);

    if (!out || (!text && len))
        return rb_err_set(err, -EINVAL, "%s: no plan text given", ps.source);
    if (len > RB_PLAN_MAX_BYTES)
        return s_fail(&ps, 0, "the plan is %zu bytes, more than the limit of %u", len,
                      RB_PLAN_MAX_BYTES);
    const char *nul = len ? memchr(text, '\0', len) : NULL;
    if (nul) {
        unsigned line = 1;
        for (const char *c = text; c < nul; c++)
            line += *c == '\n';
        return s_fail(&ps, line, "NUL byte in the plan (not a text file?)");
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
        return s_nomem(&ps);
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
        rb_plan_destroy(&plan);
        return rc;
    }
    plan->interval_ns = ps.interval_ns;
    memcpy(plan->directory, ps.directory, sizeof plan->directory);
    plan->nphases = ps.nphases;
    plan->phases = ps.phases;
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
    free(plan);
    *p = NULL;
}

/* A duration in the largest unit that keeps it exact; rb_parse_duration_ns reads it back. */
static const char *s_fmt_duration(char *buf, size_t len, uint64_t ns)
{
    static const struct {
        uint64_t ns;
        const char *suffix;
    } units[] = {{S_NS_PER_S, "s"}, {1000000, "ms"}, {1000, "us"}, {1, "ns"}};
    if (ns == 0) {
        snprintf(buf, len, "0");
        return buf;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (ns % units[i].ns == 0) {
            snprintf(buf, len, "%" PRIu64 "%s", ns / units[i].ns, units[i].suffix);
            break;
        }
    }
    return buf;
}

int rb_plan_print(const rb_plan_t *p, FILE *f)
{
    char a[64];
    if (!p || !f)
        return -EINVAL;
    fprintf(f, "; rackbench plan, normalised from ");
    for (const char *c = p->source ? p->source : "<plan>"; *c; c++)
        fputc(isprint((unsigned char)*c) ? *c : '?', f);
    fprintf(f, "\n; every option is explicit; a job with stonewall starts a new phase\n");
    fprintf(f, "[global]\nsample_interval=%s\n", s_fmt_duration(a, sizeof a, p->interval_ns));
    if (p->directory[0])
        fprintf(f, "directory=%s\n", p->directory);
    for (uint32_t i = 0; i < p->nphases; i++) {
        const rb_phase_spec_t *ph = &p->phases[i];
        for (uint32_t j = 0; j < ph->njobs; j++) {
            const rb_job_spec_t *js = &ph->jobs[j];
            const char *rw = js->rw == RB_RW_WRITE ? "write" : "read";
            fprintf(f, "\n[%s]\n", js->name);
            if (i > 0 && j == 0)
                fprintf(f, "stonewall\n");
            fprintf(f, "rw=%s\n", rw);
            fprintf(f, "bs=%s\n", rb_fmt_size_exact(a, sizeof a, js->bs));
            fprintf(f, "size=%s\n", rb_fmt_size_exact(a, sizeof a, js->size));
            fprintf(f, "numjobs=%" PRIu32 "\n", js->numjobs);
            fprintf(f, "direct=%d\n", js->direct ? 1 : 0);
            fprintf(f, "runtime=%s\n", s_fmt_duration(a, sizeof a, js->runtime_ns));
            fprintf(f, "time_based=%d\n", js->time_based ? 1 : 0);
            /* an unset directory is written empty when [global] sets one, so it is not inherited */
            if (js->directory[0] || p->directory[0])
                fprintf(f, "directory=%s\n", js->directory);
            fprintf(f, "filename_format=%s\n", js->filename_format);
        }
    }
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
