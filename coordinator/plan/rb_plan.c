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
#include "rb_project.h"
#include "rb_units.h"

#define S_NS_PER_S            1000000000ull
#define S_DEFAULT_INTERVAL_NS S_NS_PER_S
#define S_MIN_INTERVAL_NS     (100ull * 1000000ull)
#define S_MAX_INTERVAL_NS     (3600ull * S_NS_PER_S)
#define S_DEFAULT_BS          4096u
#define S_DEFAULT_FNFMT       "$jobname.$jobnum.$filenum"
#define S_DEFAULT_ENGINE      "sync"
#define S_DEFAULT_RWMIXREAD   50u
#define S_DEFAULT_RANDSEED    0x89u /* fio's default randseed value (the generator is rackbench's) */
#define S_MAX_IODEPTH         65536u
#define S_MAX_NRFILES         65536u /* files per worker (the agent opens them all) */
#define S_MAX_NOTES           100u   /* notes kept; more are counted in one last line */
#define S_RW_LIST             "read, write, randread, randwrite, rw, readwrite, randrw, rewrite, reread, meta"
#define S_META_OP_LIST        "create, stat, read, write, rename, delete"
#define S_META_NOPS           6u     /* operations a metadata job may list, each once */
#define S_META_MAX_DIRS       65536u /* meta_dirs and meta_branch */
#define S_META_MAX_DEPTH      16u
#define S_ENGINE_LIST         "sync, psync, libaio, io_uring, null"

/* Options rackbench understands; aliases map to the same id. */
typedef enum {
    S_O_RW,
    S_O_RWMIXREAD,
    S_O_RWMIXWRITE,
    S_O_BS,
    S_O_BSRANGE,
    S_O_SIZE,
    S_O_FILESIZE,
    S_O_NRFILES,
    S_O_OFFSET,
    S_O_NUMJOBS,
    S_O_IOENGINE,
    S_O_IODEPTH,
    S_O_DIRECT,
    S_O_BUFFERED,
    S_O_SYNC,
    S_O_DSYNC,
    S_O_FSYNC,
    S_O_FDATASYNC,
    S_O_END_FSYNC,
    S_O_FSYNC_ON_CLOSE,
    S_O_RUNTIME,
    S_O_TIME_BASED,
    S_O_RAMP_TIME,
    S_O_LOOPS,
    S_O_RANDREPEAT,
    S_O_RANDSEED,
    S_O_NORANDOMMAP,
    S_O_OVERWRITE,
    S_O_BUFFER_PATTERN,
    S_O_ZERO_BUFFERS,
    S_O_REFILL_BUFFERS,
    S_O_VERIFY,
    S_O_DO_VERIFY,
    S_O_VERIFY_FATAL,
    S_O_RATE,
    S_O_STONEWALL,
    S_O_DIRECTORY,
    S_O_FILENAME,
    S_O_FILENAME_FORMAT,
    S_O_NAME,
    S_O_DESCRIPTION,
    S_O_GROUP_REPORTING,
    S_O_SAMPLE_INTERVAL,
    S_O_FILE_PER_WORKER,
    S_O_LAYOUT,
    S_O_TRANSFER,
    S_O_READ_FROM,
    S_O_STONEWALL_TIME,
    S_O_WEAROUT,
    S_O_DROP_CACHES,
    S_O_LUSTRE_STRIPE_COUNT,
    S_O_LUSTRE_STRIPE_SIZE,
    S_O_META_OPS, /* the meta_* options stay last and together: see s_is_meta_option */
    S_O_META_FILES,
    S_O_META_FILESIZE,
    S_O_META_DIRS,
    S_O_META_DEPTH,
    S_O_META_BRANCH,
    S_O_META_ORDER,
    S_O_META_SHARED_DIR,
    S_O_META_SYNC,
    S_O_META_RENAMED,
} s_opt_id_t;

typedef struct {
    const char *name; /* as written in a plan */
    s_opt_id_t id;    /* what it sets */
    bool flag;        /* may be written bare, meaning =1 */
} s_option_t;

/* Names and aliases as fio spells them (fio's options.c), plus sample_interval. */
static const s_option_t s_options[] = {
    {"rw", S_O_RW, false},
    {"readwrite", S_O_RW, false},
    {"rwmixread", S_O_RWMIXREAD, false},
    {"rwmixwrite", S_O_RWMIXWRITE, false},
    {"bs", S_O_BS, false},
    {"blocksize", S_O_BS, false},
    {"bsrange", S_O_BSRANGE, false},
    {"blocksize_range", S_O_BSRANGE, false},
    {"size", S_O_SIZE, false},
    {"filesize", S_O_FILESIZE, false},
    {"nrfiles", S_O_NRFILES, false},
    {"nr_files", S_O_NRFILES, false},
    {"offset", S_O_OFFSET, false},
    {"fileoffset", S_O_OFFSET, false},
    {"numjobs", S_O_NUMJOBS, false},
    {"ioengine", S_O_IOENGINE, false},
    {"iodepth", S_O_IODEPTH, false},
    {"direct", S_O_DIRECT, true},
    {"buffered", S_O_BUFFERED, true},
    {"sync", S_O_SYNC, true},
    {"dsync", S_O_DSYNC, true},
    {"fsync", S_O_FSYNC, false},
    {"fdatasync", S_O_FDATASYNC, false},
    {"end_fsync", S_O_END_FSYNC, true},
    {"fsync_on_close", S_O_FSYNC_ON_CLOSE, true},
    {"runtime", S_O_RUNTIME, false},
    {"timeout", S_O_RUNTIME, false},
    {"time_based", S_O_TIME_BASED, true},
    {"ramp_time", S_O_RAMP_TIME, false},
    {"loops", S_O_LOOPS, false},
    {"randrepeat", S_O_RANDREPEAT, true},
    {"randseed", S_O_RANDSEED, false},
    {"norandommap", S_O_NORANDOMMAP, true},
    {"overwrite", S_O_OVERWRITE, true},
    {"buffer_pattern", S_O_BUFFER_PATTERN, false},
    {"zero_buffers", S_O_ZERO_BUFFERS, true},
    {"refill_buffers", S_O_REFILL_BUFFERS, true},
    {"verify", S_O_VERIFY, false},
    {"do_verify", S_O_DO_VERIFY, true},
    {"verify_fatal", S_O_VERIFY_FATAL, true},
    {"rate", S_O_RATE, false},
    {"stonewall", S_O_STONEWALL, true},
    {"wait_for_previous", S_O_STONEWALL, true},
    {"directory", S_O_DIRECTORY, false},
    {"filename", S_O_FILENAME, false},
    {"filename_format", S_O_FILENAME_FORMAT, false},
    {"name", S_O_NAME, false},
    {"description", S_O_DESCRIPTION, false},
    {"group_reporting", S_O_GROUP_REPORTING, true},
    {"sample_interval", S_O_SAMPLE_INTERVAL, false},
    /* across nodes, with IOR's meanings */
    {"file_per_worker", S_O_FILE_PER_WORKER, true},
    {"layout", S_O_LAYOUT, false},
    {"transfer", S_O_TRANSFER, false},
    {"read_from", S_O_READ_FROM, false},
    {"stonewall_time", S_O_STONEWALL_TIME, false},
    {"wearout", S_O_WEAROUT, true},
    {"drop_caches", S_O_DROP_CACHES, true},
    /* Lustre striping of the run folder (`lfs setstripe -c -S`) */
    {"lustre_stripe_count", S_O_LUSTRE_STRIPE_COUNT, false},
    {"lustre_stripe_size", S_O_LUSTRE_STRIPE_SIZE, false},
    /* rackbench's metadata workload (rw=meta) */
    {"meta_ops", S_O_META_OPS, false},
    {"meta_files", S_O_META_FILES, false},
    {"meta_filesize", S_O_META_FILESIZE, false},
    {"meta_dirs", S_O_META_DIRS, false},
    {"meta_depth", S_O_META_DEPTH, false},
    {"meta_branch", S_O_META_BRANCH, false},
    {"meta_order", S_O_META_ORDER, false},
    {"meta_shared_dir", S_O_META_SHARED_DIR, true},
    {"meta_sync", S_O_META_SYNC, true},
    {"meta_renamed", S_O_META_RENAMED, true},
};

/* Why an accepted fio option has no effect in rackbench. */
typedef enum { S_IGN_MACHINERY, S_IGN_REPORT, S_IGN_UNITS } s_ign_why_t;

static const char *const s_ign_reason[] = {
    [S_IGN_MACHINERY] = "it only tunes fio's own machinery",
    [S_IGN_REPORT] = "it only shapes fio's own reports and logs",
    [S_IGN_UNITS] = "rackbench sizes are always powers of 1024, as with kb_base=1024",
};

/* fio options that cannot change the IO that reaches the storage: they pick
 * how fio itself runs or what it prints and logs. Any value is accepted. */
typedef struct {
    const char *name;
    s_ign_why_t why;
} s_ignored_t;

static const s_ignored_t s_ignored[] = {
    {"thread", S_IGN_MACHINERY},
    {"gtod_reduce", S_IGN_MACHINERY},
    {"clocksource", S_IGN_MACHINERY},
    {"kb_base", S_IGN_UNITS}, /* only 1024; 1000 changes sizes and is refused */
    {"disable_lat", S_IGN_REPORT},
    {"disable_clat", S_IGN_REPORT},
    {"disable_slat", S_IGN_REPORT},
    {"disable_bw_measurement", S_IGN_REPORT},
    {"disable_bw", S_IGN_REPORT},
    {"lat_percentiles", S_IGN_REPORT},
    {"clat_percentiles", S_IGN_REPORT},
    {"slat_percentiles", S_IGN_REPORT},
    {"percentile_list", S_IGN_REPORT},
    {"significant_figures", S_IGN_REPORT},
    {"unit_base", S_IGN_REPORT},
    {"unified_rw_reporting", S_IGN_REPORT},
    {"new_group", S_IGN_REPORT},
    {"stats", S_IGN_REPORT},
    {"disk_util", S_IGN_REPORT},
    {"bwavgtime", S_IGN_REPORT},
    {"iopsavgtime", S_IGN_REPORT},
    {"error_dump", S_IGN_REPORT},
    {"block_error_percentiles", S_IGN_REPORT},
    {"per_job_logs", S_IGN_REPORT},
    {"write_bw_log", S_IGN_REPORT},
    {"write_lat_log", S_IGN_REPORT},
    {"write_iops_log", S_IGN_REPORT},
    {"write_hist_log", S_IGN_REPORT},
    {"log_avg_msec", S_IGN_REPORT},
    {"log_hist_msec", S_IGN_REPORT},
    {"log_hist_coarseness", S_IGN_REPORT},
    {"log_max_value", S_IGN_REPORT},
    {"log_offset", S_IGN_REPORT},
    {"log_prio", S_IGN_REPORT},
    {"log_entries", S_IGN_REPORT},
    {"log_compression", S_IGN_REPORT},
    {"log_compression_cpus", S_IGN_REPORT},
    {"log_store_compressed", S_IGN_REPORT},
    {"log_unix_epoch", S_IGN_REPORT},
    {"log_alternate_epoch", S_IGN_REPORT},
    {"log_alternate_epoch_clock_id", S_IGN_REPORT},
};

/* fio options that would change what is measured and that rackbench does not
 * run (yet): refused with the option and its line. */
/* clang-format off */
static const char *const s_not_yet[] = {
    /* files and layout */
    "wait_for", "unique_filename", "lockfile", "opendir", "openfiles", "file_service_type",
    "fallocate", "fadvise_hint", "write_hint", "create_serialize", "create_fsync",
    "create_on_open", "create_only", "allow_file_create", "allow_mounted_write", "pre_read",
    "invalidate", "unlink", "unlink_each_loop", "ioscheduler", "file_append", "fill_device",
    "fill_fs", "io_size", "io_limit", "number_ios", "offset_align", "offset_increment",
    /* IO pattern and sizes */
    "rw_sequencer", "bssplit", "bs_unaligned", "blocksize_unaligned", "bs_is_seq_rand", "ba",
    "blockalign", "softrandommap", "random_generator", "random_distribution",
    "percentage_random", "percentage_sequential", "allrandrepeat", "rwmixcycle",
    "write_barrier", "sync_file_range", "atomic", "zonemode", "zonesize", "zonecapacity",
    "zonerange", "zoneskip", "read_beyond_wp", "max_open_zones", "job_max_open_zones",
    "ignore_zone_limits", "zone_reset_threshold", "zone_reset_frequency", "fdp", "fdp_pli",
    /* queueing and engine options */
    "iodepth_batch", "iodepth_batch_submit", "iodepth_batch_complete",
    "iodepth_batch_complete_min", "iodepth_batch_complete_max", "iodepth_low",
    "serialize_overlap", "io_submit_mode", "hipri", "fixedbufs", "registerfiles",
    "sqthread_poll", "sqthread_poll_cpu", "nonvectored", "uncached", "nowait", "force_async",
    "userspace_reap", "cmdprio_percentage", "cmdprio_class", "cmdprio", "cmdprio_bssplit",
    /* buffers and memory */
    "scramble_buffers", "buffer_compress_percentage", "buffer_compress_chunk",
    "dedupe_percentage", "dedupe_global", "dedupe_mode", "dedupe_working_set_percentage",
    "mem", "iomem", "iomem_align", "mem_align", "hugepage-size", "lockmem",
    /* timing, rates, latency */
    "startdelay", "thinktime", "thinktime_spin", "thinktime_blocks", "thinktime_blocks_type",
    "thinktime_iotime", "rate_min", "ratemin", "rate_iops", "rate_iops_min", "rate_process",
    "rate_cycle", "ratecycle", "rate_ignore_thinktime", "max_latency", "latency_target",
    "latency_window", "latency_percentile", "latency_run", "steadystate", "ss",
    "steadystate_duration", "ss_dur", "steadystate_ramp_time", "ss_ramp", "flow_id", "flow",
    "flow_watermark", "flow_sleep",
    /* verification */
    "verify_only", "verify_interval", "verify_offset", "verify_pattern", "verify_dump",
    "verify_async", "verify_async_cpus", "verify_backlog", "verify_backlog_batch",
    "verify_state_save", "verify_state_load", "experimental_verify", "verifysort",
    "verifysort_nr", "trim_percentage", "trim_verify_zero", "trim_backlog",
    "trim_backlog_batch",
    /* processes, CPUs and priorities */
    "nice", "prio", "prioclass", "cpumask", "cpus_allowed", "cpus_allowed_policy",
    "numa_cpu_nodes", "numa_mem_policy", "gtod_cpu", "cgroup", "cgroup_weight",
    "cgroup_nodelete", "uid", "gid", "exitall", "exit_what", "exitall_on_error",
    "continue_on_error", "ignore_error", "exec_prerun", "exec_postrun", "profile",
    "gpu_dev_id",
    /* replay */
    "write_iolog", "read_iolog", "read_iolog_chunked", "replay_no_stall", "replay_redirect",
    "replay_scale", "replay_align", "replay_time_scale", "replay_skip", "merge_blktrace_file",
    "merge_blktrace_scalars", "merge_blktrace_iters",
};
/* clang-format on */

/* fio's verify types other than crc32c: refused by name. */
static const char *const s_fio_verify[] = {
    "md5",      "crc64",    "crc32",    "crc16",    "crc7",   "sha1", "sha256",  "sha512",
    "sha3-224", "sha3-256", "sha3-384", "sha3-512", "xxhash", "meta", "pattern", "null",
};

/* Access patterns by name; the first name of each is the one printed. */
static const struct {
    const char *name;
    rb_rw_t rw;
} s_rw_names[] = {
    {"read", RB_RW_READ},           {"write", RB_RW_WRITE},     {"randread", RB_RW_RANDREAD},
    {"randwrite", RB_RW_RANDWRITE}, {"rw", RB_RW_RW},           {"readwrite", RB_RW_RW},
    {"randrw", RB_RW_RANDRW},       {"rewrite", RB_RW_REWRITE}, {"reread", RB_RW_REREAD},
    {"meta", RB_RW_META},
};

/* fio access patterns rackbench does not run. */
static const char *const s_fio_rw_other[] = {"trim",       "randtrim", "trimwrite", "randtrimwrite",
                                             "filecreate", "filestat", "filedelete"};

/* Everything one job section sets, inherited from [global]. */
typedef struct {
    rb_job_spec_t spec;                 /* the fields sent to agents; spec.name unused */
    bool stonewall;                     /* starts a new phase */
    bool size_set;                      /* size= was given */
    bool bsrange_set;                   /* bsrange= was given: it wins over bs=, as in fio */
    uint64_t bsrange_min;               /* bsrange's smallest IO */
    uint64_t bsrange_max;               /* bsrange's largest IO */
    unsigned dir_line;                  /* line of the directory= in effect (0: none) */
    unsigned nrfiles_line;              /* line of the nrfiles= in effect (0: default) */
    unsigned filename_line;             /* line of the filename= in effect (0: none) */
    bool filename_abs;                  /* filename= was an absolute path ... */
    char fn_dir[RB_PATH_MAX];           /* ... and this is its folder */
    const char *name;                   /* effective name, points into the work buffer */
    unsigned name_line;                 /* where name was set: section line or name= line */
    bool fnfmt_set;                     /* filename_format= was given */
    unsigned fnfmt_line;                /* ... on this line */
    rb_meta_op_t meta_ops[S_META_NOPS]; /* rw=meta: the steps, in order */
    uint32_t nmeta_ops;                 /* entries of meta_ops */
    unsigned meta_dirs_line;            /* line of the meta_dirs= in effect (0: default) */
    unsigned meta_depth_line;           /* line of the meta_depth= in effect (0: default) */
    unsigned meta_shared_line;          /* line of the meta_shared_dir= in effect (0: default) */
    const char *meta_key;               /* first meta_* option in the job's own section ... */
    unsigned meta_line;                 /* ... and its line (0: none) */
    unsigned shared_line;               /* line of the file_per_worker= in effect (0: default) */
    unsigned layout_line;               /* line of the layout= in effect (0: default) */
    unsigned transfer_line;             /* line of the transfer= in effect (0: default) */
    unsigned read_from_line;            /* line of the read_from= in effect (0: default) */
    unsigned wearout_line;              /* line of the wearout= in effect (0: default) */
} s_opts_t;

/* A name seen so far, for duplicate detection; line 0 marks an empty slot. */
typedef struct {
    char name[RB_NAME_MAX];
    unsigned line;
} s_seen_t;

typedef enum {
    S_SEC_NONE,
    S_SEC_GLOBAL,
    S_SEC_JOB,
    S_SEC_ACCEPT,
    S_SEC_RACK,
    S_SEC_CAPACITY
} s_section_t;

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
    bool after_meta;             /* the last job was a metadata job: the next starts a phase */
    s_seen_t *seen;              /* open-addressing set of job names */
    size_t cap_seen;             /* slots in seen, a power of two or 0 */
    size_t nseen;                /* used slots */
    char *notes;                 /* owned until handed to the plan; NUL-terminated */
    size_t notes_len;            /* bytes used in notes, without the NUL */
    size_t notes_cap;            /* bytes allocated for notes */
    unsigned nnotes;             /* notes kept */
    unsigned notes_dropped;      /* notes beyond S_MAX_NOTES */
    rb_accept_t *accept;         /* [acceptance] sections, owned until handed to the plan */
    rb_plan_rack_t *racks;       /* [rack NAME] sections, owned until handed to the plan */
    uint32_t nracks, cap_racks;
    uint32_t rack_nodes;   /* nodes listed in all of them */
    rb_project_t *project; /* the [capacity] section, owned until handed to the plan */
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

static int s_nomem(s_parser_t *ps)
{
    return rb_err_set(ps->err, -ENOMEM, "%s: out of memory while reading the plan", ps->source);
}

/* Appends one line of text (with its '\n') to the notes. 0 or -ENOMEM. */
static int s_notes_append(s_parser_t *ps, const char *text)
{
    size_t n = strlen(text);
    if (ps->notes_len + n + 2 > ps->notes_cap) {
        size_t cap = (ps->notes_len + n + 2) * 2;
        char *p = realloc(ps->notes, cap);
        if (!p)
            return s_nomem(ps);
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
__attribute__((format(printf, 3, 4))) static int s_note(s_parser_t *ps, unsigned line,
                                                        const char *fmt, ...)
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

static bool s_in_list(const char *const *list, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(list[i], key))
            return true;
    return false;
}

static const s_option_t *s_find_option(const char *key)
{
    for (size_t i = 0; i < sizeof s_options / sizeof s_options[0]; i++)
        if (!strcmp(s_options[i].name, key))
            return &s_options[i];
    return NULL;
}

static const s_ignored_t *s_find_ignored(const char *key)
{
    for (size_t i = 0; i < sizeof s_ignored / sizeof s_ignored[0]; i++)
        if (!strcmp(s_ignored[i].name, key))
            return &s_ignored[i];
    return NULL;
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
    if (s_in_list(s_not_yet, sizeof s_not_yet / sizeof s_not_yet[0], key))
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
    for (size_t i = 0; i < sizeof s_ignored / sizeof s_ignored[0]; i++) {
        size_t d = s_distance(key, s_ignored[i].name, cap);
        if (d < best_d) {
            best_d = d;
            best = s_ignored[i].name;
        }
    }
    if (best)
        return s_fail(ps, line, "unknown option '%.64s' (did you mean '%s'?)", key, best);
    return s_fail(ps, line, "unknown option '%.64s'", key);
}

/* Accepts a fio option that has no effect here, with a note. kb_base is
 * checked: only the default 1024 leaves sizes as rackbench reads them. */
static int s_ignore(s_parser_t *ps, unsigned line, const s_ignored_t *ig, const char *key,
                    const char *val)
{
    if (ig->why == S_IGN_UNITS) {
        if (!val || !*val)
            return s_fail(ps, line, "option '%s' needs a value (%s=...)", key, key);
        if (!strcmp(val, "1000"))
            return s_fail(ps, line,
                          "%s=1000 is not supported yet (rackbench sizes are powers of 1024)", key);
        if (strcmp(val, "1024") != 0)
            return s_fail(ps, line, "bad value '%.64s' for %s (1024 or 1000)", val, key);
    }
    return s_note(ps, line, "option '%s' is ignored: %s", key, s_ign_reason[ig->why]);
}

/* A size with fio's units; 0 only when zero_ok. */
static int s_size_value(s_parser_t *ps, unsigned line, const char *key, const char *val,
                        bool zero_ok, uint64_t *out)
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
    if (*out == 0 && !zero_ok)
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

/* A boolean option into a uint8_t field. */
static int s_bool_field(s_parser_t *ps, unsigned line, const char *key, const char *val,
                        uint8_t *out)
{
    bool b = false;
    int rc = s_bool_value(ps, line, key, val, &b);
    if (rc == 0)
        *out = b ? 1 : 0;
    return rc;
}

/* A decimal whole number from min to max. */
static int s_uint_value(s_parser_t *ps, unsigned line, const char *key, const char *val,
                        uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t n = 0;
    bool over = false;
    for (const char *c = val; *c; c++) {
        if (*c < '0' || *c > '9')
            return s_fail(ps, line, "bad number '%.64s' for %s", val, key);
        if (!over) {
            n = n * 10 + (uint64_t)(*c - '0');
            over = n > max;
        }
    }
    if (over || n < min)
        return s_fail(ps, line, "%s=%.64s is out of range (%" PRIu64 "..%" PRIu64 ")", key, val,
                      min, max);
    *out = n;
    return 0;
}

static int s_u32_field(s_parser_t *ps, unsigned line, const char *key, const char *val,
                       uint32_t min, uint32_t max, uint32_t *out)
{
    uint64_t n = 0;
    int rc = s_uint_value(ps, line, key, val, min, max, &n);
    if (rc == 0)
        *out = (uint32_t)n;
    return rc;
}

static int s_hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* randseed: decimal or 0x hexadecimal, any 64-bit value. */
static int s_seed_value(s_parser_t *ps, unsigned line, const char *key, const char *val,
                        uint64_t *out)
{
    const char *c = val;
    unsigned base = 10;
    uint64_t n = 0;
    if (c[0] == '0' && (c[1] == 'x' || c[1] == 'X')) {
        base = 16;
        c += 2;
    }
    if (!*c)
        return s_fail(ps, line, "bad number '%.64s' for %s", val, key);
    for (; *c; c++) {
        int d = s_hexval(*c);
        if (d < 0 || (unsigned)d >= base)
            return s_fail(ps, line, "bad number '%.64s' for %s (decimal, or hexadecimal with 0x)",
                          val, key);
        if (n > (UINT64_MAX - (uint64_t)d) / base)
            return s_fail(ps, line, "%s=%.64s is too large", key, val);
        n = n * base + (uint64_t)d;
    }
    *out = n;
    return 0;
}

static int s_rw_value(s_parser_t *ps, unsigned line, const char *key, const char *val, rb_rw_t *out)
{
    for (size_t i = 0; i < sizeof s_rw_names / sizeof s_rw_names[0]; i++) {
        if (!strcmp(s_rw_names[i].name, val)) {
            *out = s_rw_names[i].rw;
            return 0;
        }
    }
    /* fio's "randread:8" / "write:4k" offset modifier, or a fio pattern rackbench lacks */
    if (strchr(val, ':') ||
        s_in_list(s_fio_rw_other, sizeof s_fio_rw_other / sizeof s_fio_rw_other[0], val))
        return s_fail(ps, line, "%s=%.64s is not supported yet (%s)", key, val, S_RW_LIST);
    return s_fail(ps, line, "bad value '%.64s' for %s (%s)", val, key, S_RW_LIST);
}

static int s_ioengine_value(s_parser_t *ps, unsigned line, const char *key, const char *val,
                            char *out)
{
    static const char *const engines[] = {"sync", "libaio", "io_uring", "null"};
    const char *name = !strcmp(val, "psync") ? "sync" : val; /* pread/pwrite is what sync does */
    for (size_t i = 0; i < sizeof engines / sizeof engines[0]; i++) {
        if (!strcmp(engines[i], name)) {
            snprintf(out, RB_ENGINE_NAME_MAX, "%s", engines[i]);
            return 0;
        }
    }
    return s_fail(ps, line, "%s=%.64s is not supported (rackbench has %s)", key, val,
                  S_ENGINE_LIST);
}

/* bsrange / blocksize_range: "MIN-MAX" or "MIN:MAX" (fio's irange), one range for all directions.
 */
static int s_bsrange_value(s_parser_t *ps, unsigned line, const char *key, const char *val,
                           uint64_t *min, uint64_t *max)
{
    if (strchr(val, ',') || strchr(val, '/'))
        return s_fail(ps, line, "%s with several ranges (%s=%.64s) is not supported yet", key, key,
                      val);
    const char *sep = val[0] ? strpbrk(val + 1, "-:") : NULL;
    if (!sep)
        return s_fail(ps, line, "bad range '%.64s' for %s (MIN-MAX, such as 4k-64k)", val, key);
    char lo[64], hi[64];
    size_t nlo = (size_t)(sep - val);
    if (nlo >= sizeof lo || strlen(sep + 1) >= sizeof hi)
        return s_fail(ps, line, "bad range '%.64s' for %s (MIN-MAX, such as 4k-64k)", val, key);
    memcpy(lo, val, nlo);
    lo[nlo] = '\0';
    snprintf(hi, sizeof hi, "%s", sep + 1);
    int rc = s_size_value(ps, line, key, s_trim(lo), false, min);
    if (rc == 0)
        rc = s_size_value(ps, line, key, s_trim(hi), false, max);
    if (rc == 0 && *max < *min)
        return s_fail(ps, line, "%s=%.64s: the largest size must not be smaller than the smallest",
                      key, val);
    return rc;
}

/* fio's sync=: none/0, sync/1, dsync, and the booleans of older fio. */
static int s_sync_value(s_parser_t *ps, unsigned line, const char *key, const char *val,
                        rb_sync_mode_t *out)
{
    int b = 0;
    if (!strcmp(val, "none")) {
        *out = RB_SYNC_NONE;
    } else if (!strcmp(val, "sync")) {
        *out = RB_SYNC_SYNC;
    } else if (!strcmp(val, "dsync")) {
        *out = RB_SYNC_DSYNC;
    } else if (rb_parse_bool(val, &b) == 0) {
        *out = b ? RB_SYNC_SYNC : RB_SYNC_NONE;
    } else {
        return s_fail(ps, line, "bad value '%.64s' for %s (none, sync, dsync, 0 or 1)", val, key);
    }
    return 0;
}

static int s_verify_value(s_parser_t *ps, unsigned line, const char *key, const char *val,
                          rb_verify_t *out)
{
    if (!strcmp(val, "crc32c") || !strcmp(val, "crc32c-intel")) {
        *out = RB_VERIFY_CRC32C;
        return 0;
    }
    if (!strcmp(val, "0") || !strcmp(val, "none")) {
        *out = RB_VERIFY_NONE;
        return 0;
    }
    if (s_in_list(s_fio_verify, sizeof s_fio_verify / sizeof s_fio_verify[0], val))
        return s_fail(ps, line, "%s=%.64s is not supported (rackbench has crc32c, or 0 for none)",
                      key, val);
    return s_fail(ps, line, "bad value '%.64s' for %s (crc32c, or 0 for none)", val, key);
}

/* fio's pattern syntax, without files and formats: any sequence of 0x hex
 * bytes, "quoted text" and decimal numbers (INT_MIN..INT_MAX, written
 * little-endian in as few bytes as hold them, 0 as one byte), so
 * 0xdeadbeef"abc"-12 is 4 + 3 + 4 bytes. */
static int s_pattern_value(s_parser_t *ps, unsigned line, const char *key, const char *val,
                           uint8_t *out, uint32_t *out_len)
{
    uint8_t buf[RB_PATTERN_MAX];
    size_t n = 0;
    const char *c = val;
    while (*c) {
        size_t need = 0;
        if (*c == '"') {
            const char *end = strchr(c + 1, '"');
            if (!end)
                return s_fail(ps, line, "%s=%.64s: a string without its closing '\"'", key, val);
            need = (size_t)(end - c - 1);
            if (need == 0)
                return s_fail(ps, line, "%s=%.64s: an empty string \"\"", key, val);
            if (n + need > sizeof buf)
                goto too_long;
            memcpy(buf + n, c + 1, need);
            n += need;
            c = end + 1;
        } else if (*c == '\'') {
            return s_fail(ps, line,
                          "%s=%.64s: a pattern read from a file ('NAME') is not supported yet "
                          "(give the bytes as 0x..., \"text\" or a number)",
                          key, val);
        } else if (c[0] == '0' && (c[1] == 'x' || c[1] == 'X')) {
            const char *h = c + 2;
            size_t nd = 0;
            while (s_hexval(h[nd]) >= 0)
                nd++;
            if (nd > 0 && (h[nd] == 'x' || h[nd] == 'X') && h[nd - 1] == '0')
                nd--; /* "0xff0x14": the last 0 starts the next number */
            if (nd == 0)
                return s_fail(ps, line, "%s=%.64s: '0x' without hex digits", key, val);
            need = (nd + 1) / 2;
            if (n + need > sizeof buf)
                goto too_long;
            size_t i = 0;
            if (nd % 2) /* an odd digit count: the first digit is a byte of its own */
                buf[n++] = (uint8_t)s_hexval(h[i++]);
            for (; i < nd; i += 2)
                buf[n++] = (uint8_t)(s_hexval(h[i]) << 4 | s_hexval(h[i + 1]));
            c = h + nd;
        } else if (*c == '-' || *c == '+' || (*c >= '0' && *c <= '9')) {
            bool neg = *c == '-';
            const char *d = (*c == '-' || *c == '+') ? c + 1 : c;
            uint64_t v = 0;
            size_t nd = 0;
            /* digits up to a "0x" that starts the next number, as fio reads "-100xab" */
            while (d[nd] >= '0' && d[nd] <= '9' &&
                   !(d[nd] == '0' && (d[nd + 1] == 'x' || d[nd + 1] == 'X'))) {
                if (v <= (uint64_t)INT_MAX + 1)
                    v = v * 10 + (uint64_t)(d[nd] - '0');
                nd++;
            }
            if (nd == 0)
                return s_fail(ps, line, "%s=%.64s: a sign without a number", key, val);
            if (v > (neg ? (uint64_t)INT_MAX + 1 : (uint64_t)INT_MAX))
                return s_fail(ps, line, "%s=%.64s: a decimal number out of range (%d..%d)", key,
                              val, INT_MIN, INT_MAX);
            uint32_t u = neg ? (uint32_t)(0u - (uint32_t)v) : (uint32_t)v;
            uint8_t le[4];
            size_t nb = 0;
            do {
                le[nb++] = (uint8_t)(u & 0xff);
                u >>= 8;
            } while (u);
            if (n + nb > sizeof buf)
                goto too_long;
            memcpy(buf + n, le, nb);
            n += nb;
            c = d + nd;
        } else {
            return s_fail(ps, line,
                          "bad value '%.64s' for %s (0x hex bytes, \"text\" or a decimal number, "
                          "such as 0xdeadbeef)",
                          val, key);
        }
    }
    memset(out, 0, RB_PATTERN_MAX);
    memcpy(out, buf, n);
    *out_len = (uint32_t)n;
    return 0;
too_long:
    return s_fail(ps, line, "%s=%.64s is longer than %d bytes", key, val, RB_PATTERN_MAX);
}

/* filename=: a plain name in the job's directory, or an absolute path split
 * into its folder and name. "" clears it. */
static int s_filename_value(s_parser_t *ps, s_opts_t *o, unsigned line, const char *key,
                            const char *val)
{
    if (!*val) {
        o->spec.filename[0] = '\0';
        o->filename_abs = false;
        o->filename_line = 0;
        return 0;
    }
    if (strchr(val, ':'))
        return s_fail(ps, line,
                      "%s=%.64s: several files separated by ':' are not supported yet (one "
                      "file only)",
                      key, val);
    const char *slash = strrchr(val, '/');
    if (slash && val[0] != '/')
        return s_fail(ps, line,
                      "%s=%.64s: a relative name with '/' is not supported (a plain name in the "
                      "job's directory, or an absolute path)",
                      key, val);
    const char *base = slash ? slash + 1 : val;
    size_t len = strlen(base);
    if (len == 0)
        return s_fail(ps, line, "%s=%.64s names a folder, not a file", key, val);
    if (len >= RB_NAME_MAX)
        return s_fail(ps, line, "%s: the file name '%.40s...' is longer than %d characters", key,
                      base, RB_NAME_MAX - 1);
    if (!strcmp(base, ".") || !strcmp(base, ".."))
        return s_fail(ps, line, "%s=%.64s names a folder, not a file", key, val);
    if (!strcmp(base, "-"))
        return s_fail(ps, line, "%s=- (standard input or output) is not supported", key);
    for (const char *c = base; *c; c++)
        if (!s_name_char(*c))
            return s_fail(ps, line,
                          "%s=%.64s: character '%c' is not allowed in a file name (only A-Z a-z "
                          "0-9 . _ -)",
                          key, val, isprint((unsigned char)*c) ? *c : '?');
    if (slash) {
        size_t dlen = slash == val ? 1 : (size_t)(slash - val);
        if (dlen >= RB_PATH_MAX)
            return s_fail(ps, line, "%s: the folder is longer than %d characters", key,
                          RB_PATH_MAX - 1);
        if (o->spec.directory[0])
            return s_fail(ps, line,
                          "%s=%.64s is an absolute path but the job also has directory=%.64s "
                          "(line %u), which fio would put in front of it: give one of them "
                          "(directory= empty clears it)",
                          key, val, o->spec.directory, o->dir_line);
        memcpy(o->fn_dir, val, dlen);
        o->fn_dir[dlen] = '\0';
    }
    memcpy(o->spec.filename, base, len + 1);
    o->filename_abs = slash != NULL;
    o->filename_line = line;
    return 0;
}

static int s_directory_value(s_parser_t *ps, s_opts_t *o, unsigned line, const char *val)
{
    size_t len = strlen(val);
    if (len >= RB_PATH_MAX)
        return s_fail(ps, line, "directory is longer than %d characters", RB_PATH_MAX - 1);
    if (strchr(val, ':'))
        return s_fail(ps, line,
                      "directory '%.64s': several directories separated by ':' are not "
                      "supported yet",
                      val);
    if (len && o->filename_abs)
        return s_fail(ps, line,
                      "directory=%.64s: the job's filename is an absolute path (line %u), which "
                      "fio would put after it: give one of them",
                      val, o->filename_line);
    memcpy(o->spec.directory, val, len + 1);
    o->dir_line = line;
    if (ps->section == S_SEC_GLOBAL)
        memcpy(ps->directory, val, len + 1);
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

/* meta_ops: a comma-separated list of metadata operations, each at most once, in the order
 * they run. */
static int s_meta_ops_value(s_parser_t *ps, s_opts_t *o, unsigned line, const char *key,
                            const char *val)
{
    rb_meta_op_t ops[S_META_NOPS];
    uint32_t n = 0;
    for (const char *c = val;;) {
        const char *end = strchr(c, ',');
        size_t len = end ? (size_t)(end - c) : strlen(c);
        while (len && (*c == ' ' || *c == '\t')) {
            c++;
            len--;
        }
        while (len && (c[len - 1] == ' ' || c[len - 1] == '\t'))
            len--;
        if (!len)
            return s_fail(ps, line, "%s=%.64s has an empty entry (a comma-separated list of %s)",
                          key, val, S_META_OP_LIST);
        char word[16];
        rb_meta_op_t op = RB_META_NONE;
        if (len < sizeof word) {
            memcpy(word, c, len);
            word[len] = '\0';
            op = rb_meta_op_parse(word);
        }
        if (op == RB_META_NONE)
            return s_fail(ps, line, "unknown metadata operation '%.*s' in %s (%s)",
                          (int)(len > 32 ? 32 : len), c, key, S_META_OP_LIST);
        for (uint32_t i = 0; i < n; i++)
            if (ops[i] == op)
                return s_fail(ps, line, "%s=%.64s lists '%s' twice (each operation runs once)", key,
                              val, rb_meta_op_name(op));
        ops[n++] = op; /* at most S_META_NOPS: each of them once */
        if (!end)
            break;
        c = end + 1;
    }
    memcpy(o->meta_ops, ops, n * sizeof ops[0]);
    o->nmeta_ops = n;
    return 0;
}

/* read_from=self|neighbour|neighbor|shift:K → how many nodes on (0 = self). */
static int s_read_from_value(s_parser_t *ps, unsigned line, const char *key, const char *val,
                             uint32_t *shift)
{
    if (!strcmp(val, "self")) {
        *shift = 0;
        return 0;
    }
    if (!strcmp(val, "neighbour") || !strcmp(val, "neighbor")) {
        *shift = 1;
        return 0;
    }
    if (!strncmp(val, "shift:", 6)) {
        uint64_t k;
        const char *v = val + 6;
        if (rb_parse_size(v, &k) == 0 && strspn(v, "0123456789") == strlen(v) && k < UINT32_MAX) {
            *shift = (uint32_t)k;
            return 0;
        }
    }
    return s_fail(ps, line, "%s=%.64s: expected self, neighbour or shift:K (K nodes further on)",
                  key, val);
}

static int s_meta_order_value(s_parser_t *ps, unsigned line, const char *key, const char *val,
                              uint8_t *random)
{
    if (!strcmp(val, "sequential"))
        *random = 0;
    else if (!strcmp(val, "random"))
        *random = 1;
    else
        return s_fail(ps, line, "bad value '%.64s' for %s (sequential or random)", val, key);
    return 0;
}

static bool s_is_meta_option(s_opt_id_t id)
{
    return id >= S_O_META_OPS && id <= S_O_META_RENAMED;
}

/* Applies key=val to o (the defaults when in [global]). */
static int s_apply(s_parser_t *ps, s_opts_t *o, const s_option_t *opt, const char *key,
                   const char *val, unsigned line)
{
    rb_job_spec_t *js = &o->spec;
    bool in_global = ps->section == S_SEC_GLOBAL;
    bool b = false;
    uint32_t u = 0;
    int rc = 0;

    if (!*val && opt->id != S_O_DESCRIPTION && opt->id != S_O_DIRECTORY && opt->id != S_O_FILENAME)
        return s_fail(ps, line, "option '%s' has an empty value", key);
    /* a job's own meta_* option needs rw=meta, checked once the job is read */
    if (s_is_meta_option(opt->id) && !in_global && !o->meta_line) {
        o->meta_key = opt->name;
        o->meta_line = line;
    }
    switch (opt->id) {
    case S_O_RW:
        return s_rw_value(ps, line, key, val, &js->rw);
    case S_O_RWMIXREAD:
        return s_u32_field(ps, line, key, val, 0, 100, &js->rwmixread);
    case S_O_RWMIXWRITE: /* fio: the later of rwmixread and rwmixwrite decides */
        rc = s_u32_field(ps, line, key, val, 0, 100, &u);
        if (rc == 0)
            js->rwmixread = 100 - u;
        return rc;
    case S_O_BS:
        return s_size_value(ps, line, key, val, false, &js->bs);
    case S_O_BSRANGE:
        rc = s_bsrange_value(ps, line, key, val, &o->bsrange_min, &o->bsrange_max);
        if (rc == 0)
            o->bsrange_set = true;
        return rc;
    case S_O_SIZE:
        rc = s_size_value(ps, line, key, val, false, &js->size);
        if (rc == 0)
            o->size_set = true;
        return rc;
    case S_O_FILESIZE:
        if (val[0] >= '0' && val[0] <= '9' && strpbrk(val, "-:"))
            return s_fail(ps, line, "%s as a range (%s=%.64s) is not supported yet", key, key, val);
        return s_size_value(ps, line, key, val, true, &js->filesize);
    case S_O_NRFILES:
        rc = s_u32_field(ps, line, key, val, 1, S_MAX_NRFILES, &js->nrfiles);
        if (rc == 0)
            o->nrfiles_line = line;
        return rc;
    case S_O_OFFSET:
        return s_size_value(ps, line, key, val, true, &js->offset);
    case S_O_NUMJOBS:
        return s_u32_field(ps, line, key, val, 1, RB_MAX_WORKERS, &js->numjobs);
    case S_O_IOENGINE:
        return s_ioengine_value(ps, line, key, val, js->ioengine);
    case S_O_IODEPTH:
        return s_u32_field(ps, line, key, val, 1, S_MAX_IODEPTH, &js->iodepth);
    case S_O_DIRECT:
    case S_O_BUFFERED:
        rc = s_bool_value(ps, line, key, val, &b);
        if (rc == 0)
            js->direct = (opt->id == S_O_DIRECT) ? b : !b;
        return rc;
    case S_O_SYNC:
        return s_sync_value(ps, line, key, val, &js->sync_mode);
    case S_O_DSYNC:
        rc = s_bool_value(ps, line, key, val, &b);
        if (rc == 0 && b)
            js->sync_mode = RB_SYNC_DSYNC;
        else if (rc == 0 && js->sync_mode == RB_SYNC_DSYNC)
            js->sync_mode = RB_SYNC_NONE;
        return rc;
    case S_O_FSYNC:
        return s_u32_field(ps, line, key, val, 0, UINT32_MAX, &js->fsync_every);
    case S_O_FDATASYNC:
        return s_u32_field(ps, line, key, val, 0, UINT32_MAX, &js->fdatasync_every);
    case S_O_END_FSYNC:
        return s_bool_field(ps, line, key, val, &js->end_fsync);
    case S_O_FSYNC_ON_CLOSE:
        return s_bool_field(ps, line, key, val, &js->fsync_on_close);
    case S_O_RUNTIME:
        return s_duration_value(ps, line, key, val, &js->runtime_ns);
    case S_O_TIME_BASED:
        return s_bool_field(ps, line, key, val, &js->time_based);
    case S_O_RAMP_TIME:
        return s_duration_value(ps, line, key, val, &js->ramp_ns);
    case S_O_LOOPS:
        return s_u32_field(ps, line, key, val, 1, UINT32_MAX, &js->loops);
    case S_O_RANDREPEAT:
        return s_bool_field(ps, line, key, val, &js->randrepeat);
    case S_O_RANDSEED:
        return s_seed_value(ps, line, key, val, &js->randseed);
    case S_O_NORANDOMMAP:
        return s_bool_field(ps, line, key, val, &js->norandommap);
    case S_O_OVERWRITE:
        return s_bool_field(ps, line, key, val, &js->overwrite);
    case S_O_BUFFER_PATTERN:
        rc = s_pattern_value(ps, line, key, val, js->pattern, &js->pattern_len);
        if (rc == 0)
            js->buffer_mode = RB_BUF_PATTERN;
        return rc;
    case S_O_ZERO_BUFFERS: /* the later of zero_buffers and buffer_pattern decides */
        rc = s_bool_value(ps, line, key, val, &b);
        if (rc == 0 && b) {
            js->buffer_mode = RB_BUF_ZERO;
            js->pattern_len = 0;
            memset(js->pattern, 0, sizeof js->pattern);
        } else if (rc == 0 && js->buffer_mode == RB_BUF_ZERO) {
            js->buffer_mode = RB_BUF_RANDOM;
        }
        return rc;
    case S_O_REFILL_BUFFERS:
        return s_bool_field(ps, line, key, val, &js->refill_buffers);
    case S_O_VERIFY:
        return s_verify_value(ps, line, key, val, &js->verify);
    case S_O_DO_VERIFY:
        return s_bool_field(ps, line, key, val, &js->do_verify);
    case S_O_VERIFY_FATAL:
        return s_bool_field(ps, line, key, val, &js->verify_fatal);
    case S_O_RATE:
        return s_size_value(ps, line, key, val, true, &js->rate);
    case S_O_STONEWALL:
        rc = s_bool_value(ps, line, key, val, &b);
        if (rc == 0)
            o->stonewall = b;
        return rc;
    case S_O_DIRECTORY:
        return s_directory_value(ps, o, line, val);
    case S_O_FILENAME:
        return s_filename_value(ps, o, line, key, val);
    case S_O_FILENAME_FORMAT:
        rc = s_filename_format_value(ps, line, val, js->filename_format);
        if (rc == 0) {
            o->fnfmt_set = true;
            o->fnfmt_line = line;
        }
        return rc;
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
    case S_O_FILE_PER_WORKER:
        rc = s_bool_value(ps, line, key, val, &b);
        if (rc == 0) {
            js->shared_file = !b;
            o->shared_line = line;
        }
        return rc;
    case S_O_LAYOUT: {
        int m = rb_layout_mode_parse(val);
        if (m < 0)
            return s_fail(ps, line, "%s=%.64s: expected segmented or strided", key, val);
        js->layout = (rb_layout_mode_t)m;
        o->layout_line = line;
        return 0;
    }
    case S_O_TRANSFER:
        rc = s_size_value(ps, line, key, val, false, &js->transfer);
        if (rc == 0)
            o->transfer_line = line;
        return rc;
    case S_O_READ_FROM:
        rc = s_read_from_value(ps, line, key, val, &js->read_shift);
        if (rc == 0)
            o->read_from_line = line;
        return rc;
    case S_O_STONEWALL_TIME:
        return s_duration_value(ps, line, key, val, &js->stonewall_ns);
    case S_O_WEAROUT:
        rc = s_bool_field(ps, line, key, val, &js->wearout);
        if (rc == 0)
            o->wearout_line = line;
        return rc;
    case S_O_DROP_CACHES:
        return s_bool_field(ps, line, key, val, &js->drop_caches);
    case S_O_LUSTRE_STRIPE_COUNT:
        if (!strcmp(val, "-1")) {
            js->lustre_stripe_count = RB_LUSTRE_STRIPE_ALL;
            return 0;
        }
        return s_u32_field(ps, line, key, val, 0, RB_LUSTRE_STRIPE_MAX, &js->lustre_stripe_count);
    case S_O_LUSTRE_STRIPE_SIZE:
        rc = s_size_value(ps, line, key, val, true, &js->lustre_stripe_size);
        if (rc == 0 && js->lustre_stripe_size % 65536)
            return s_fail(ps, line, "%s=%.64s: not a multiple of 64k (lfs setstripe -S)", key, val);
        return rc;
    case S_O_META_OPS:
        return s_meta_ops_value(ps, o, line, key, val);
    case S_O_META_FILES:
        return s_size_value(ps, line, key, val, false, &js->meta_files);
    case S_O_META_FILESIZE:
        return s_size_value(ps, line, key, val, true, &js->meta_filesize);
    case S_O_META_DIRS:
        rc = s_u32_field(ps, line, key, val, 1, S_META_MAX_DIRS, &js->meta_dirs);
        if (rc == 0)
            o->meta_dirs_line = line;
        return rc;
    case S_O_META_DEPTH:
        rc = s_u32_field(ps, line, key, val, 0, S_META_MAX_DEPTH, &js->meta_depth);
        if (rc == 0)
            o->meta_depth_line = line;
        return rc;
    case S_O_META_BRANCH:
        return s_u32_field(ps, line, key, val, 1, S_META_MAX_DIRS, &js->meta_branch);
    case S_O_META_ORDER:
        return s_meta_order_value(ps, line, key, val, &js->meta_random);
    case S_O_META_SHARED_DIR:
        rc = s_bool_field(ps, line, key, val, &js->meta_shared);
        if (rc == 0)
            o->meta_shared_line = line;
        return rc;
    case S_O_META_SYNC:
        return s_bool_field(ps, line, key, val, &js->meta_sync);
    case S_O_META_RENAMED:
        return s_bool_field(ps, line, key, val, &js->meta_renamed);
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

static void s_spec_defaults(rb_job_spec_t *js);

/* Settles a metadata job: only the options that shape the file set and its
 * workers are kept, everything about data IO is left at its default, so
 * size is 0 and bs 4k. Errors name the job's section line or the option's. */
static int s_settle_meta(s_parser_t *ps, s_opts_t *o, const char *name, unsigned line)
{
    const rb_job_spec_t *js = &o->spec;
    if (js->filename[0])
        return s_fail(ps, o->filename_line,
                      "job '%s': filename= names one file, but rw=meta works on meta_files files "
                      "(name their set with filename_format)",
                      name);
    if (!js->meta_files)
        return s_fail(ps, line,
                      "job '%s' has no meta_files (files per worker, required for rw=meta)", name);
    if (js->meta_dirs > 1 && js->meta_depth > 0)
        return s_fail(
            ps, o->meta_dirs_line > o->meta_depth_line ? o->meta_dirs_line : o->meta_depth_line,
            "job '%s': meta_dirs=%" PRIu32 " and meta_depth=%" PRIu32
            " together (flat directories or a tree, not both)",
            name, js->meta_dirs, js->meta_depth);
    if (js->meta_shared && (js->meta_dirs > 1 || js->meta_depth > 0)) {
        unsigned at = js->meta_dirs > 1 ? o->meta_dirs_line : o->meta_depth_line;
        return s_fail(ps, at > o->meta_shared_line ? at : o->meta_shared_line,
                      "job '%s': meta_shared_dir puts every file in one shared directory: no "
                      "meta_dirs or meta_depth with it",
                      name);
    }
    rb_job_spec_t m;
    s_spec_defaults(&m);
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
static int s_settle_across(s_parser_t *ps, s_opts_t *o, const char *name, unsigned line)
{
    rb_job_spec_t *js = &o->spec;
    char a[64], b[64];
    uint64_t t = js->transfer ? js->transfer : js->bs;
    if (js->read_shift && (!rb_rw_reads(js->rw) || rb_rw_writes(js->rw)))
        return s_fail(ps, o->read_from_line,
                      "job '%s': read_from is for jobs that only read (rw=%s writes)", name,
                      rb_rw_name(js->rw));
    if (js->wearout && !js->stonewall_ns)
        return s_fail(ps, o->wearout_line, "job '%s': wearout needs stonewall_time", name);
    if (!js->shared_file) {
        if (js->layout != RB_LAYOUT_SEGMENTED && o->layout_line)
            return s_fail(ps, o->layout_line,
                          "job '%s': layout= is the layout of a shared file (file_per_worker=0)",
                          name);
        if (js->transfer && o->transfer_line)
            return s_fail(ps, o->transfer_line,
                          "job '%s': transfer= is the piece size of a strided shared file "
                          "(file_per_worker=0, layout=strided)",
                          name);
        return 0;
    }
    if (js->filename[0])
        return s_fail(ps, o->filename_line > o->shared_line ? o->filename_line : o->shared_line,
                      "job '%s': file_per_worker=0 makes one file for all workers of all nodes; "
                      "filename= names a file per node (use one or the other)",
                      name);
    if (js->nrfiles != 1)
        return s_fail(ps, o->nrfiles_line > o->shared_line ? o->nrfiles_line : o->shared_line,
                      "job '%s': file_per_worker=0 makes one file: nrfiles must be 1", name);
    if (js->layout == RB_LAYOUT_STRIDED) {
        unsigned at = o->transfer_line ? o->transfer_line : line;
        if (js->bs_max != js->bs || t % js->bs)
            return s_fail(ps, at,
                          "job '%s': a strided layout needs one block size dividing transfer "
                          "(transfer %s, bs %s)",
                          name, rb_fmt_size_exact(a, sizeof a, t),
                          rb_fmt_size_exact(b, sizeof b, js->bs));
        if (js->size % t)
            return s_fail(ps, at,
                          "job '%s': size %s per worker is not a whole number of transfer=%s "
                          "pieces",
                          name, rb_fmt_size_exact(a, sizeof a, js->size),
                          rb_fmt_size_exact(b, sizeof b, t));
    } else if (js->transfer && o->transfer_line) {
        return s_fail(ps, o->transfer_line,
                      "job '%s': transfer= is the piece size of layout=strided (this job is "
                      "segmented)",
                      name);
    }
    return 0;
}

/* Settles what depends on several options (fio semantics) and checks the
 * job as a whole; errors name the job's section line. */
static int s_settle_job(s_parser_t *ps, s_opts_t *o, const char *name, unsigned line)
{
    rb_job_spec_t *js = &o->spec;
    char a[64], b[64], c[64];

    if (js->rw == RB_RW_META)
        return s_settle_meta(ps, o, name, line);
    if (o->meta_line)
        return s_fail(ps, o->meta_line, "option '%s' applies only to rw=meta (job '%s' has rw=%s)",
                      o->meta_key, name, rb_rw_name(js->rw));
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
        int rc = s_note(ps, o->nrfiles_line,
                        "option 'nrfiles' is ignored in job '%s': filename= names the one file "
                        "its workers share, as in fio",
                        name);
        if (rc < 0)
            return rc;
        js->nrfiles = 1;
    }
    if (o->filename_abs)
        memcpy(js->directory, o->fn_dir, sizeof js->directory);

    if (!o->size_set) {
        if (!js->filesize)
            return s_fail(ps, line,
                          "job '%s' has no size (size= bytes per worker, or filesize= bytes per "
                          "file, is required)",
                          name);
        if (js->filesize > UINT64_MAX / js->nrfiles)
            return s_fail(ps, line, "job '%s': filesize %s times nrfiles %" PRIu32 " is too large",
                          name, rb_fmt_size_exact(a, sizeof a, js->filesize), js->nrfiles);
        js->size = js->filesize * js->nrfiles;
    }

    /* fio: a block size range wins over bs */
    if (o->bsrange_set) {
        js->bs = o->bsrange_min;
        js->bs_max = o->bsrange_max;
    } else {
        js->bs_max = js->bs;
    }
    const char *what = js->bs_max == js->bs ? "bs" : "the largest bsrange block";
    rb_fmt_size_exact(a, sizeof a, js->bs_max);
    if (js->bs_max > js->size)
        return s_fail(ps, line, "job '%s': %s %s is larger than size %s", name, what, a,
                      rb_fmt_size_exact(b, sizeof b, js->size));
    if (js->filesize && js->bs_max > js->filesize)
        return s_fail(ps, line, "job '%s': %s %s is larger than filesize %s", name, what, a,
                      rb_fmt_size_exact(b, sizeof b, js->filesize));
    if (!js->filesize && js->bs_max > js->size / js->nrfiles)
        return s_fail(ps, line,
                      "job '%s': %s %s is larger than each file (size %s / nrfiles %" PRIu32
                      " = %s)",
                      name, what, a, rb_fmt_size_exact(b, sizeof b, js->size), js->nrfiles,
                      rb_fmt_size_exact(c, sizeof c, js->size / js->nrfiles));
    if (js->time_based && js->runtime_ns == 0)
        return s_fail(ps, line, "job '%s': time_based needs a runtime", name);
    return s_settle_across(ps, o, name, line);
}

/* Appends js to the last phase, or to a new one; errors name line. */
static int s_add_job(s_parser_t *ps, const rb_job_spec_t *js, bool new_phase, unsigned line)
{
    const char *name = js->name;
    if (ps->nphases == 0 || new_phase) {
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
        memcpy(ph->name, name, strlen(name) + 1);
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

/* Adds a name to the set of job names; 0, or -EINVAL naming the first use. */
static int s_name_unique(s_parser_t *ps, const char *name, unsigned line)
{
    long first = s_seen_add(ps, name, line);
    if (first < 0)
        return s_nomem(ps);
    if (first > 0)
        return s_fail(ps, line, "duplicate job name '%s' (first at line %ld)", name, first);
    return 0;
}

/* filename_format of a metadata job: the job's name J unless given, and $jobname
 * read as J, so that every step works on the same files. */
static int s_meta_fnfmt(s_parser_t *ps, s_opts_t *o, const char *base, size_t base_len)
{
    rb_job_spec_t *js = &o->spec;
    char out[RB_NAME_MAX];
    size_t n = 0;
    if (!o->fnfmt_set) {
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
            return s_fail(ps, o->fnfmt_line,
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
static int s_finish_meta(s_parser_t *ps, s_opts_t *o, unsigned line)
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
                return s_fail(ps, o->name_line,
                              "job '%s': step name '%s.%s' is longer than %d characters", name,
                              name, op, RB_NAME_MAX - 1);
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
static int s_rack_begin(s_parser_t *ps, const char *name, unsigned line)
{
    size_t len = strlen(name);
    if (!len || len >= RB_NAME_MAX ||
        strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                     "0123456789._-") != len)
        return s_fail(ps, line, "rack name '%.64s': use 1-%d of A-Z a-z 0-9 . _ -", name,
                      RB_NAME_MAX - 1);
    for (uint32_t i = 0; i < ps->nracks; i++)
        if (!strcmp(ps->racks[i].name, name))
            return s_fail(ps, line, "[rack %s] again (first at line %u)", name, ps->racks[i].line);
    if (ps->nracks == RB_PLAN_MAX_RACKS)
        return s_fail(ps, line, "more than %d [rack] sections", RB_PLAN_MAX_RACKS);
    if (ps->nracks == ps->cap_racks) {
        uint32_t cap = ps->cap_racks ? 2 * ps->cap_racks : 8;
        rb_plan_rack_t *r = realloc(ps->racks, cap * sizeof *r);
        if (!r)
            return s_nomem(ps);
        ps->racks = r;
        ps->cap_racks = cap;
    }
    rb_plan_rack_t *r = &ps->racks[ps->nracks++];
    memset(r, 0, sizeof *r);
    memcpy(r->name, name, len + 1);
    r->line = line;
    ps->section = S_SEC_RACK;
    return 0;
}

/* Adds one node name to the current rack. */
static int s_rack_add(s_parser_t *ps, const char *node, unsigned line)
{
    rb_plan_rack_t *r = &ps->racks[ps->nracks - 1];
    size_t len = strlen(node);
    if (!len || len >= RB_NAME_MAX ||
        strspn(node, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                     "0123456789._-") != len)
        return s_fail(ps, line, "[rack %s]: node name '%.64s': use 1-%d of A-Z a-z 0-9 . _ -",
                      r->name, node, RB_NAME_MAX - 1);
    for (uint32_t k = 0; k < ps->nracks; k++)
        for (uint32_t i = 0; i < ps->racks[k].nnodes; i++)
            if (!strcmp(ps->racks[k].nodes[i], node))
                return s_fail(ps, line, "node %s is already in [rack %s] (line %u)", node,
                              ps->racks[k].name, ps->racks[k].line);
    if (ps->rack_nodes == RB_PLAN_MAX_RACK_NODES)
        return s_fail(ps, line, "more than %d nodes in [rack] sections", RB_PLAN_MAX_RACK_NODES);
    char(*n)[RB_NAME_MAX] = realloc(r->nodes, (r->nnodes + 1) * sizeof *n);
    if (!n)
        return s_nomem(ps);
    r->nodes = n;
    memcpy(r->nodes[r->nnodes++], node, len + 1);
    ps->rack_nodes++;
    return 0;
}

/* nodes=a,b,c of a [rack NAME] section; "node[01-08]" stands for node01 ..
 * node08 (the width of the first number is kept). */
static int s_rack_option(s_parser_t *ps, const char *key, char *val, unsigned line)
{
    if (strcmp(key, "nodes") != 0)
        return s_fail(ps, line, "[rack %s]: unknown option '%.64s' (a rack has nodes=a,b,c)",
                      ps->racks[ps->nracks - 1].name, key);
    if (!val || !*val)
        return s_fail(ps, line, "nodes= needs node names: nodes=a,b,c");
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
            return s_fail(ps, line, "nodes: '%.64s': a range is written prefix[01-16]suffix", name);
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

/* Completes the section being read: its job, its acceptance set, its rack. */
static int s_end_section(s_parser_t *ps)
{
    if (ps->section == S_SEC_JOB)
        return s_finish_job(ps);
    if (ps->section == S_SEC_ACCEPT)
        return rb_accept_end(ps->accept, ps->err);
    if (ps->section == S_SEC_RACK && !ps->racks[ps->nracks - 1].nnodes)
        return s_fail(ps, ps->racks[ps->nracks - 1].line, "[rack %s] lists no nodes (nodes=a,b,c)",
                      ps->racks[ps->nracks - 1].name);
    if (ps->section == S_SEC_CAPACITY)
        return rb_project_end(ps->project, ps->err);
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
    const char *set = rb_accept_section(name);
    char *rack = s_rack_section(name);
    int capacity = rb_project_section(name);
    if (!set && !rack && !capacity && s_is_reserved_section(name))
        return s_fail(ps, line, "section [%.64s] is not supported yet", name);
    int rc = s_end_section(ps);
    if (rc < 0)
        return rc;
    if (rack)
        return s_rack_begin(ps, rack, line);
    if (set) {
        if (!ps->accept && !(ps->accept = rb_accept_new(ps->source)))
            return s_nomem(ps);
        ps->section = S_SEC_ACCEPT;
        return rb_accept_begin(ps->accept, set, line, ps->err);
    }
    if (capacity) {
        if (!ps->project && !(ps->project = rb_project_new(ps->source)))
            return s_nomem(ps);
        ps->section = S_SEC_CAPACITY;
        return rb_project_begin(ps->project, line, ps->err);
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
    if (!strncmp(s, "include", 7) && (s[7] == ' ' || s[7] == '\t'))
        return s_fail(ps, line, "fio's 'include FILE' is not supported yet (put the options here)");
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
    if (ps->section == S_SEC_ACCEPT)
        return rb_accept_option(ps->accept, key, val, line, ps->err);
    if (ps->section == S_SEC_RACK)
        return s_rack_option(ps, key, val, line);
    if (ps->section == S_SEC_CAPACITY)
        return rb_project_option(ps->project, key, val, line, ps->err);
    const s_option_t *opt = s_find_option(key);
    if (!opt) {
        const s_ignored_t *ig = s_find_ignored(key);
        if (ig)
            return s_ignore(ps, line, ig, key, val);
        return s_unknown_option(ps, line, key);
    }
    if (!val) {
        if (!opt->flag)
            return s_fail(ps, line, "option '%s' needs a value (%s=...)", key, key);
        val = "1";
    }
    s_opts_t *o = ps->section == S_SEC_GLOBAL ? &ps->global : &ps->job;
    return s_apply(ps, o, opt, key, val, line);
}

/* A job description with every default; the meta_* fields are zero until rw=meta. */
static void s_spec_defaults(rb_job_spec_t *js)
{
    memset(js, 0, sizeof *js);
    js->rw = RB_RW_READ;
    js->bs = S_DEFAULT_BS;
    js->bs_max = S_DEFAULT_BS;
    js->numjobs = 1;
    memcpy(js->filename_format, S_DEFAULT_FNFMT, sizeof S_DEFAULT_FNFMT);
    memcpy(js->ioengine, S_DEFAULT_ENGINE, sizeof S_DEFAULT_ENGINE);
    js->iodepth = 1;
    js->rwmixread = S_DEFAULT_RWMIXREAD;
    js->nrfiles = 1;
    js->sync_mode = RB_SYNC_NONE;
    js->loops = 1;
    js->randrepeat = 1;
    js->randseed = S_DEFAULT_RANDSEED;
    js->buffer_mode = RB_BUF_RANDOM;
    js->verify = RB_VERIFY_NONE;
    js->do_verify = 1;
}

static void s_defaults(s_opts_t *o)
{
    memset(o, 0, sizeof *o);
    s_spec_defaults(&o->spec);
    o->spec.meta_dirs = 1;
    o->spec.meta_branch = 1;
    static const rb_meta_op_t ops[] = {RB_META_CREATE, RB_META_STAT, RB_META_DELETE};
    memcpy(o->meta_ops, ops, sizeof ops);
    o->nmeta_ops = sizeof ops / sizeof ops[0];
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
    int rc = s_end_section(ps);
    if (rc < 0)
        return rc;
    if (ps->nphases == 0)
        return s_fail(ps, 0, "the plan has no jobs (add a [job] section with at least size=)");
    if (ps->accept && (rc = rb_accept_resolve(ps->accept, ps->phases, ps->nphases, ps->err)) < 0)
        return rc;
    if (ps->project && (rc = rb_project_resolve(ps->project, ps->phases, ps->nphases, ps->err)) < 0)
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

static const char *s_rw_print_name(rb_rw_t rw)
{
    for (size_t i = 0; i < sizeof s_rw_names / sizeof s_rw_names[0]; i++)
        if (s_rw_names[i].rw == rw)
            return s_rw_names[i].name;
    return "read";
}

/* Writes one step of a metadata job as a section of its own, named "J.OP" with
 * meta_ops=OP, which re-reads to the same step; data IO options are defaults. */
static void s_print_meta_step(const rb_plan_t *p, const rb_job_spec_t *js, bool stonewall, FILE *f)
{
    char a[64];
    const char *op = rb_meta_op_name(js->meta_op);
    fprintf(f, "\n[%s]\n", js->name);
    if (stonewall)
        fprintf(f, "stonewall\n");
    fprintf(f, "rw=meta\n");
    fprintf(f, "meta_ops=%s\n", op ? op : "create");
    fprintf(f, "meta_files=%" PRIu64 "\n", js->meta_files);
    fprintf(f, "meta_filesize=%s\n", rb_fmt_size_exact(a, sizeof a, js->meta_filesize));
    fprintf(f, "meta_dirs=%" PRIu32 "\n", js->meta_dirs);
    fprintf(f, "meta_depth=%" PRIu32 "\n", js->meta_depth);
    fprintf(f, "meta_branch=%" PRIu32 "\n", js->meta_branch);
    fprintf(f, "meta_order=%s\n", js->meta_random ? "random" : "sequential");
    fprintf(f, "meta_shared_dir=%d\n", js->meta_shared ? 1 : 0);
    fprintf(f, "meta_sync=%d\n", js->meta_sync ? 1 : 0);
    fprintf(f, "meta_renamed=%d\n", js->meta_renamed ? 1 : 0);
    fprintf(f, "numjobs=%" PRIu32 "\n", js->numjobs);
    fprintf(f, "randrepeat=%d\n", js->randrepeat ? 1 : 0);
    fprintf(f, "randseed=%" PRIu64 "\n", js->randseed);
    if (js->directory[0] || p->directory[0])
        fprintf(f, "directory=%s\n", js->directory);
    fprintf(f, "filename_format=%s\n", js->filename_format);
}

/* Writes one job with every option explicit, in an order that re-reads to the same job. */
static void s_print_job(const rb_plan_t *p, const rb_job_spec_t *js, bool stonewall, FILE *f)
{
    static const char *const sync_names[] = {
        [RB_SYNC_NONE] = "none", [RB_SYNC_SYNC] = "sync", [RB_SYNC_DSYNC] = "dsync"};
    char a[64], b[64];
    fprintf(f, "\n[%s]\n", js->name);
    if (stonewall)
        fprintf(f, "stonewall\n");
    fprintf(f, "rw=%s\n", s_rw_print_name(js->rw));
    fprintf(f, "rwmixread=%" PRIu32 "\n", js->rwmixread);
    fprintf(f, "bs=%s\n", rb_fmt_size_exact(a, sizeof a, js->bs));
    fprintf(f, "bsrange=%s-%s\n", rb_fmt_size_exact(a, sizeof a, js->bs),
            rb_fmt_size_exact(b, sizeof b, js->bs_max > js->bs ? js->bs_max : js->bs));
    fprintf(f, "size=%s\n", rb_fmt_size_exact(a, sizeof a, js->size));
    fprintf(f, "filesize=%s\n", rb_fmt_size_exact(a, sizeof a, js->filesize));
    fprintf(f, "nrfiles=%" PRIu32 "\n", js->nrfiles);
    fprintf(f, "offset=%s\n", rb_fmt_size_exact(a, sizeof a, js->offset));
    fprintf(f, "numjobs=%" PRIu32 "\n", js->numjobs);
    fprintf(f, "ioengine=%s\n", js->ioengine[0] ? js->ioengine : S_DEFAULT_ENGINE);
    fprintf(f, "iodepth=%" PRIu32 "\n", js->iodepth);
    fprintf(f, "direct=%d\n", js->direct ? 1 : 0);
    fprintf(f, "sync=%s\n",
            (unsigned)js->sync_mode <= RB_SYNC_DSYNC ? sync_names[js->sync_mode] : "none");
    fprintf(f, "fsync=%" PRIu32 "\n", js->fsync_every);
    fprintf(f, "fdatasync=%" PRIu32 "\n", js->fdatasync_every);
    fprintf(f, "end_fsync=%d\n", js->end_fsync ? 1 : 0);
    fprintf(f, "fsync_on_close=%d\n", js->fsync_on_close ? 1 : 0);
    fprintf(f, "runtime=%s\n", s_fmt_duration(a, sizeof a, js->runtime_ns));
    fprintf(f, "time_based=%d\n", js->time_based ? 1 : 0);
    fprintf(f, "ramp_time=%s\n", s_fmt_duration(a, sizeof a, js->ramp_ns));
    fprintf(f, "loops=%" PRIu32 "\n", js->loops);
    fprintf(f, "randrepeat=%d\n", js->randrepeat ? 1 : 0);
    fprintf(f, "randseed=%" PRIu64 "\n", js->randseed);
    fprintf(f, "norandommap=%d\n", js->norandommap ? 1 : 0);
    fprintf(f, "overwrite=%d\n", js->overwrite ? 1 : 0);
    fprintf(f, "zero_buffers=%d\n", js->buffer_mode == RB_BUF_ZERO ? 1 : 0);
    if (js->buffer_mode == RB_BUF_PATTERN && js->pattern_len) {
        fprintf(f, "buffer_pattern=0x");
        for (uint32_t i = 0; i < js->pattern_len && i < RB_PATTERN_MAX; i++)
            fprintf(f, "%02x", js->pattern[i]);
        fprintf(f, "\n");
    }
    fprintf(f, "refill_buffers=%d\n", js->refill_buffers ? 1 : 0);
    fprintf(f, "verify=%s\n", js->verify == RB_VERIFY_CRC32C ? "crc32c" : "0");
    fprintf(f, "do_verify=%d\n", js->do_verify ? 1 : 0);
    fprintf(f, "verify_fatal=%d\n", js->verify_fatal ? 1 : 0);
    fprintf(f, "rate=%s\n", rb_fmt_size_exact(a, sizeof a, js->rate));
    fprintf(f, "file_per_worker=%d\n", js->shared_file ? 0 : 1);
    if (js->shared_file) {
        fprintf(f, "layout=%s\n", rb_layout_mode_name(js->layout));
        if (js->layout == RB_LAYOUT_STRIDED && js->transfer)
            fprintf(f, "transfer=%s\n", rb_fmt_size_exact(a, sizeof a, js->transfer));
    }
    if (js->read_shift)
        fprintf(f, "read_from=shift:%" PRIu32 "\n", js->read_shift);
    else
        fprintf(f, "read_from=self\n");
    fprintf(f, "stonewall_time=%s\n", s_fmt_duration(a, sizeof a, js->stonewall_ns));
    fprintf(f, "wearout=%d\n", js->wearout ? 1 : 0);
    fprintf(f, "drop_caches=%d\n", js->drop_caches ? 1 : 0);
    /* only when set: they concern Lustre alone */
    if (js->lustre_stripe_count == RB_LUSTRE_STRIPE_ALL)
        fprintf(f, "lustre_stripe_count=-1\n");
    else if (js->lustre_stripe_count)
        fprintf(f, "lustre_stripe_count=%" PRIu32 "\n", js->lustre_stripe_count);
    if (js->lustre_stripe_size)
        fprintf(f, "lustre_stripe_size=%s\n",
                rb_fmt_size_exact(a, sizeof a, js->lustre_stripe_size));
    /* an unset directory is written empty when [global] sets one, so it is not inherited */
    if (js->directory[0] || p->directory[0])
        fprintf(f, "directory=%s\n", js->directory);
    fprintf(f, "filename=%s\n", js->filename);
    fprintf(f, "filename_format=%s\n", js->filename_format);
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
            if (ph->jobs[j].rw == RB_RW_META)
                s_print_meta_step(p, &ph->jobs[j], i > 0 && j == 0, f);
            else
                s_print_job(p, &ph->jobs[j], i > 0 && j == 0, f);
        }
    }
    if (rb_accept_print(p->accept, p->phases, p->nphases, f) < 0)
        return -EIO;
    for (uint32_t r = 0; r < p->nracks; r++) {
        fprintf(f, "\n[rack %s]\nnodes=", p->racks[r].name);
        for (uint32_t i = 0; i < p->racks[r].nnodes; i++)
            fprintf(f, "%s%s", i ? "," : "", p->racks[r].nodes[i]);
        fprintf(f, "\n");
    }
    if (rb_project_print(p->project, p->phases, p->nphases, f) < 0)
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
