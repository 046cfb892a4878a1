/* What the files of plan/ share while one plan file is read: the parser's
 * state, a job's settings as they are read, the error and note sinks, and
 * the value readers the option table names. Not for use outside plan/. */
#ifndef RB_PLAN_INT_H
#define RB_PLAN_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "rb_opt.h"
#include "rb_plan.h"
#include "rb_text.h"
#include "rb_names.h"

struct rb_accept;
struct rb_project;

#define RB_PLAN_META_NOPS 12u /* operations a metadata job may list, each once */

/* Everything one job section sets, inherited from [global]. */
/* An entry of cmdprio_bssplit as written: cls 0 takes cmdprio_class's. */
typedef struct rb_plan_cmdbs {
    uint64_t bs;
    uint32_t perc;
    uint8_t cls, lvl;
} rb_plan_cmdbs_t;

/* Options that take a count of zones (fio's z suffix): size, io_size,
 * offset, offset_increment and zoneskip. */
#define RB_PLAN_ZSLOTS 5

/* A sweep (sweep_rw, sweep_bs, sweep_numjobs, sweep_iodepth): the lists of
 * values one job is expanded over, one phase per combination. */
#define RB_PLAN_SWEEP_DIMS 4  /* rw, bs, numjobs, iodepth: outermost first */
#define RB_PLAN_SWEEP_MAX  32 /* values a list may hold */
#define RB_PLAN_SWEEP_VAL  24 /* bytes of one value as written, with its NUL */

typedef struct rb_plan_sweep {
    uint32_t n;                                     /* values in the list (0: not swept) */
    char val[RB_PLAN_SWEEP_MAX][RB_PLAN_SWEEP_VAL]; /* each as written, trimmed */
} rb_plan_sweep_t;

typedef struct rb_plan_job {
    rb_job_spec_t spec;                       /* the fields sent to agents; spec.name unused */
    bool stonewall;                           /* starts a new phase */
    unsigned kb_base;                         /* 1024 or 1000: what k, M ... mean in sizes */
    uint64_t bs_rw[3];                        /* bs= for reads [0], writes [1], trims [2] */
    uint64_t bsrange_min[3];                  /* bsrange's smallest IO, per direction */
    uint64_t bsrange_max[3];                  /* bsrange's largest IO, per direction */
    uint32_t nbssplit[2];                     /* bssplit's entries per direction */
    rb_bs_part_t bssplit[2][RB_BSSPLIT_MAX];  /* ... and the entries */
    uint32_t io_size_pct;                     /* io_size=N%: N (1 .. 100), from size; 0: bytes */
    bool lfsr;                                /* random_generator=lfsr: no offset twice */
    bool zone_strided;                        /* zonemode=strided (else none, fio's default) */
    bool zone_zbd;                            /* zonemode=zbd */
    uint64_t zcount[RB_PLAN_ZSLOTS];          /* fio's z suffix: size, io_size, offset,
                                               * offset_increment, zoneskip in zones (0: bytes) */
    bool allrandrepeat;                       /* every generator repeatable, at fio's seed */
    bool serialize_off;                       /* create_serialize=0: files set up at job start */
    uint32_t iterations;                      /* iterations=N: the phase runs N times */
    bool filename_abs;                        /* filename= was an absolute path ... */
    char fn_dir[RB_PATH_MAX];                 /* ... and this is its folder */
    uint32_t device_files;                    /* devices filename= names (its list's length) */
    const char *name;                         /* effective name, points into the work buffer */
    unsigned name_line;                       /* where name was set: section line or name= line */
    rb_meta_op_t meta_ops[RB_PLAN_META_NOPS]; /* rw=meta: the steps, in order */
    uint32_t nmeta_ops;                       /* entries of meta_ops */
    const char *meta_key;                     /* first meta_* option in the job's own section ... */
    unsigned meta_line;                       /* ... and its line (0: none) */
    uint64_t meta_stonewall_ns; /* meta_stonewall: create steps stop there (0: none) */
    uint8_t cmdprio_pct[2];     /* cmdprio_percentage per direction ... */
    uint8_t cmdprio_class[2];   /* ... cmdprio_class (0: fio's RT) ... */
    uint8_t cmdprio_level[2];   /* ... and cmdprio */
    bool cmdprio_bssplit;       /* cmdprio_bssplit is set (not empty) ... */
    uint32_t ncmdbs[2];         /* ... its entries per direction ... */
    rb_plan_cmdbs_t cmdbs[2][RB_CMDPRIO_MAX]; /* ... as written */
    rb_plan_log_t log;   /* fio's logs: prefixes, "" for the job's name where log_want says */
    uint8_t log_want;    /* RB_PLAN_LOG_BW | _IOPS | _LAT | _HIST: the logs asked for */
    bool log_no_per_job; /* per_job_logs=0 */
    rb_plan_sweep_t sweep[RB_PLAN_SWEEP_DIMS]; /* sweep_*: the lists, in nesting order */
    unsigned line[RB_OPT_MAX_ROWS];            /* per table row: the line in effect (0: default) */
} rb_plan_job_t;

/* The logs a job asks for (rb_plan_job_t.log_want). */
enum { RB_PLAN_LOG_BW = 1, RB_PLAN_LOG_IOPS = 2, RB_PLAN_LOG_LAT = 4, RB_PLAN_LOG_HIST = 8 };

/* A name seen so far, for duplicate detection; line 0 marks an empty slot. */
typedef struct rb_plan_seen {
    char name[RB_NAME_MAX];
    unsigned line;
} rb_plan_seen_t;

struct rb_plan_section;

/* Where a line of the expanded text came from. */
typedef struct rb_plan_srcline {
    const char *file; /* the plan, an included file, or "--set" */
    unsigned line;
    bool failed;   /* its expansion had a problem (said): the line stands empty */
    bool included; /* from an included file: messages do not quote it */
} rb_plan_srcline_t;

typedef struct rb_plan_parser {
    const char *source;          /* borrowed; names the plan in messages */
    rb_err_t *err;               /* borrowed; the caller's error */
    uint64_t interval_ns;        /* [global] sample_interval */
    uint8_t interval_auto;       /* sample_interval=auto, or not given */
    char directory[RB_PATH_MAX]; /* [global] directory */
    rb_phase_spec_t *phases;     /* owned until handed to the plan */
    uint32_t nphases;            /* entries of phases that are initialised */
    uint32_t cap_phases;         /* allocated entries of phases */
    uint32_t cap_jobs;           /* allocated jobs of the last phase */
    uint32_t phase_workers;      /* sum of numjobs in the last phase */
    struct rb_plan_ph_iter {
        uint32_t n;              /* per phase: iterations=N of its jobs ... */
        unsigned line;           /* ... and the line that set it (0: default) */
        char sweep[RB_NAME_MAX]; /* ... and the sweep that made it ("": none) */
    } * ph_iter;
    char sweep[RB_NAME_MAX];               /* the job being swept into phases ("": none) */
    rb_plan_iter_t *iters;                 /* after rb_plan_iterate: per phase */
    bool iterate_plan;                     /* [global] iterate=plan */
    unsigned iterate_line;                 /* ... its line */
    rb_plan_job_t global;                  /* defaults for jobs that follow */
    rb_plan_job_t job;                     /* the job being read */
    const struct rb_plan_section *section; /* the section being read; NULL before the first */
    bool in_global;                        /* the section is [global] */
    unsigned job_line;                     /* line of the current job's section header */
    bool after_meta;          /* the last job made phases of its own (metadata steps, a sweep):
                               * the next starts a phase */
    rb_plan_seen_t *seen;     /* open-addressing set of job names */
    size_t cap_seen;          /* slots in seen, a power of two or 0 */
    size_t nseen;             /* used slots */
    char *notes;              /* owned until handed to the plan; NUL-terminated */
    size_t notes_len;         /* bytes used in notes, without the NUL */
    size_t notes_cap;         /* bytes allocated for notes */
    unsigned nnotes;          /* notes kept */
    unsigned notes_dropped;   /* notes beyond the limit */
    struct rb_accept *accept; /* [acceptance] sections, owned until handed over */
    rb_plan_rack_t *racks;    /* [rack NAME] sections, owned until handed over */
    uint32_t nracks, cap_racks;
    uint32_t rack_nodes;        /* nodes listed in all of them */
    struct rb_project *project; /* the [capacity] section, owned until handed over */
    rb_plan_log_t *logs;        /* the jobs' fio logs, owned until handed over */
    uint32_t nlogs, cap_logs;
    /* the text read: the plan with its includes, variables and --set options */
    const rb_plan_input_t *input; /* borrowed; NULL: none */
    const char *path;             /* the plan's file (includes are found from it), or NULL */
    char *work;                   /* the expanded text (owned) */
    size_t work_len, work_cap;
    rb_plan_srcline_t *map; /* per line of work: its file and line */
    uint32_t nmap, cap_map;
    char **files; /* the included files' names the map points to (owned) */
    uint32_t nfiles;
    bool expanded;       /* work differs from the plan's text */
    bool host_keywords;  /* $ncpus, $mb_memory or $pagesize was used */
    bool in_global_src;  /* expanding: inside a [global] section */
    bool sets_done_here; /* expanding: that section has its --set lines */
    bool in_job_src;     /* expanding: inside a job section (its --override lines due) */
    uint64_t vars_used;  /* expanding: the --var options a ${NAME} took (bit i: vars[i]) */
    uint32_t nincludes;  /* expanding: include lines read so far, in all files */
    unsigned src_depth;  /* expanding: includes deep of the file being read (0: the plan) */
    bool src_stopped;    /* expanding stopped (a limit, a failed include): the rest is unread */
    char *problems;      /* every problem, one line each (owned until handed over) */
    size_t problems_len, problems_cap;
    unsigned nproblems;   /* problems found */
    bool section_failed;  /* the section being read had a problem: it is not completed */
    bool skip_section;    /* the section's header was refused or --section leaves it out */
    bool *sections_found; /* per --section name: the plan has that job section (owned) */
} rb_plan_parser_t;

/* Records a problem at file:line of a source (before the expanded text has
 * that line); returns -EINVAL. */
__attribute__((format(printf, 4, 5))) int rb_plan_fail_at(rb_plan_parser_t *ps, const char *file,
                                                          unsigned line, const char *fmt, ...);

/* Evaluates fio's arithmetic "(EXPR)" (rb_plan_expr.c): whole numbers with
 * size suffixes in powers of kb_base, + - * / % ^. 0, or -EINVAL/-ERANGE
 * with *why saying what is wrong. */
int rb_plan_expr_eval(const char *text, unsigned kb_base, uint64_t *out, const char **why);

/* Appends n bytes of s to the growing NUL-terminated text *buf (len bytes
 * used, cap allocated). 0 or -ENOMEM. */
int rb_plan_text_put(char **buf, size_t *len, size_t *cap, const char *s, size_t n);

/* Expands the plan's text into ps->work (rb_plan_source.c): includes,
 * variables, keywords, --set. 0, or -EINVAL (problems recorded) / -ENOMEM. */
int rb_plan_source_expand(rb_plan_parser_t *ps, const char *text, size_t len);

/* Records "SOURCE:LINE: message" (or "SOURCE: message" when line is 0) as
 * the parser's error; returns -EINVAL. */
__attribute__((format(printf, 3, 4))) int rb_plan_fail(rb_plan_parser_t *ps, unsigned line,
                                                       const char *fmt, ...);

/* Records that memory ran out; returns -ENOMEM. */
int rb_plan_nomem(rb_plan_parser_t *ps);

/* Adds the note "SOURCE:LINE: message" (past the limit only counts it). 0 or -ENOMEM. */
__attribute__((format(printf, 3, 4))) int rb_plan_note(rb_plan_parser_t *ps, unsigned line,
                                                       const char *fmt, ...);

/* The line where the job's option key was set (0: its default), by table row. */
unsigned rb_plan_job_line(const rb_plan_job_t *o, const char *key);

/* Sets js to every option's default, as the table gives them. */
void rb_plan_spec_defaults(rb_job_spec_t *js);

/* Sets o to a job's settings before any option: the table's defaults, no lines. */
void rb_plan_job_defaults(rb_plan_job_t *o);

/* Reads key=val into the job o through the option's row; val is NULL for a
 * bare key. 0, or -EINVAL/-ENOMEM with the error recorded. */
int rb_opt_apply(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *key,
                 const char *val, unsigned line);

/* The generic readers, for value readers that need them. */
int rb_opt_value_size(rb_plan_parser_t *ps, unsigned line, const char *key, const char *val,
                      bool zero_ok, uint64_t *out);
int rb_opt_value_bool(rb_plan_parser_t *ps, unsigned line, const char *key, const char *val,
                      bool *out);
int rb_opt_value_uint(rb_plan_parser_t *ps, unsigned line, const char *key, const char *val,
                      uint64_t min, uint64_t max, uint64_t *out);
int rb_opt_value_duration(rb_plan_parser_t *ps, unsigned line, const char *key, const char *val,
                          uint64_t *out);

/* The value of a hex digit, or -1. */
int rb_opt_hexval(char c);

/* val as a whole number (decimal, an optional sign) from lo to hi into
 * *out: 0, or -EINVAL when it is not one or out of range. */
int rb_opt_whole(const char *val, long long lo, long long hi, long long *out);

/* Value readers of the RB_OPT_CUSTOM rows (rb_opt_value.c; patterns and
 * verify: rb_opt_value_data.c). */
rb_opt_parse_fn rb_opt_value_rw, rb_opt_value_layout, rb_opt_value_rwmixwrite, rb_opt_value_bsrange,
    rb_opt_value_filesize, rb_opt_value_ioengine, rb_opt_value_sync, rb_opt_value_dsync,
    rb_opt_value_seed, rb_opt_value_allrandrepeat, rb_opt_value_create_serialize,
    rb_opt_value_ioscheduler, rb_opt_value_pattern, rb_opt_value_zero_buffers, rb_opt_value_verify,
    rb_opt_value_verify_pattern, rb_opt_value_stonewall, rb_opt_value_directory,
    rb_opt_value_filename, rb_opt_value_filename_format, rb_opt_value_meta_find_name,
    rb_opt_value_name, rb_opt_value_description, rb_opt_value_file_service_type,
    rb_opt_value_group_reporting, rb_opt_value_sample_interval, rb_opt_value_read_from,
    rb_opt_value_read_from_seed, rb_opt_value_lustre_stripe_count, rb_opt_value_lustre_stripe_size,
    rb_opt_value_meta_ops, rb_opt_value_kb_base, rb_opt_value_bs, rb_opt_value_bssplit,
    rb_opt_value_io_size, rb_opt_value_startdelay, rb_opt_value_rate, rb_opt_value_iterations,
    rb_opt_value_iterate, rb_opt_value_meta_stonewall, rb_opt_value_usec, rb_opt_value_size_pct,
    rb_opt_value_random_distribution, rb_opt_value_rw_modifier, rb_opt_value_rw_sequencer,
    rb_opt_value_percentage_random, rb_opt_value_blockalign, rb_opt_value_random_generator,
    rb_opt_value_cpus, rb_opt_value_zonemode, rb_opt_value_steadystate, rb_opt_value_ss_dur,
    rb_opt_value_ss_ramp, rb_opt_value_buffer_pct, rb_opt_value_sqpoll_cpu, rb_opt_value_flow,
    rb_opt_value_nice, rb_opt_value_wait_for, rb_opt_value_net_target, rb_opt_value_prio,
    rb_opt_value_cmdprio, rb_opt_value_cmdprio_bssplit, rb_opt_value_continue_on_error,
    rb_opt_value_ignore_error, rb_opt_value_lat_pct, rb_opt_value_zone_frac,
    rb_opt_value_max_latency, rb_opt_value_sync_file_range, rb_opt_value_log,
    rb_opt_value_log_avg_msec, rb_opt_value_log_flag, rb_opt_value_sweep;

/* The job's fio logs into the plan's list (rb_opt_value_log.c), its number
 * in the plan given. 0 or -ENOMEM. */
int rb_opt_value_log_settle(rb_plan_parser_t *ps, const rb_plan_job_t *o, uint32_t number);

/* fio's z suffix (rb_plan_zones.c): 1 when val is a count of zones ("128z")
 * for the row opt, kept until the zone size is known, its field 0; 0 when
 * it is not (any count kept before for the row is dropped); -EINVAL said. */
int rb_plan_zone_count(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *val,
                       unsigned line);

/* The job's counts of zones as bytes, once its options are read
 * (rb_plan_zones.c). 0, or -EINVAL with the line named. */
int rb_plan_zone_counts_settle(rb_plan_parser_t *ps, rb_plan_job_t *o, const char *name);

/* fio's zonemode=strided and zonemode=zbd, as fio 3.33 settles them, with
 * what rackbench does not run refused (rb_plan_zones.c). 0, or -EINVAL. */
int rb_plan_zones_settle(rb_plan_parser_t *ps, const rb_plan_job_t *o, rb_job_spec_t *js,
                         const char *name);

/* wait_for of job o, once read: the job it names must be one read before
 * it (rb_opt_value_flow.c). 0, or -EINVAL with the problem added. */
int rb_opt_value_wait_for_settle(rb_plan_parser_t *ps, const rb_plan_job_t *o);

/* steadystate's and latency_target's options, and rate_min's, checked
 * together and against rw=meta (rb_opt_value.c). 0, or -EINVAL recorded. */
int rb_opt_timing_settle(rb_plan_parser_t *ps, const rb_plan_job_t *o, const char *name);

/* 1 when a job of an earlier phase writes js's filename= in its directory,
 * so that js may take its size from the file (rb_opt_value_size.c). */
int rb_opt_size_from_file(const rb_plan_parser_t *ps, const rb_job_spec_t *js, bool new_phase);

/* Settles the job's cmdprio options into spec's entries (rb_opt_value_prio.c):
 * fio's RT class when none is given; cmdprio_percentage and cmdprio_bssplit
 * together are refused. 0, or -EINVAL recorded. */
int rb_opt_prio_settle(rb_plan_parser_t *ps, rb_plan_job_t *o, const char *name);

/* Reads val by the kind of row opt into o's field (rb_opt_read.c); line 0
 * for the table's defaults. 0 or -errno with the problem added. */
int rb_opt_read_kind(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *key,
                     const char *val, unsigned line);

/* fio's per-direction values "R[,W[,T]]" (rb_opt_value_dir.c): an empty part
 * is the default (""), and the last part given goes on to the directions
 * after it, unless the value ends in a comma. part[0] (reads), part[1]
 * (writes) and part[2] (trims) point into buf (len bytes). 0, or -EINVAL. */
int rb_opt_value_per_dir(rb_plan_parser_t *ps, unsigned line, const char *key, const char *val,
                         char *buf, size_t len, const char *part[3]);

/* Repeats the phases read as their iterations= ask (rb_plan_iterate.c): each
 * phase N times in a row, or with iterate=plan the whole plan N times; the
 * copies of a phase repeated are named "NAME#1" .. "NAME#N". *out gets one
 * entry per phase after (caller frees). 0, or -EINVAL / -ENOMEM recorded. */
int rb_plan_iterate(rb_plan_parser_t *ps, rb_plan_iter_t **out);

/* The phases a sweep of job o makes (rb_plan_sweep.c): the product of its
 * lists' lengths; 0 when it sweeps nothing. */
uint32_t rb_plan_sweep_count(const rb_plan_job_t *o);

/* Checks that the sweep of job o (read, not yet settled) fits the plan's
 * phases, naming its keys, their lines and the count. 0, or -EINVAL. */
int rb_plan_sweep_check(rb_plan_parser_t *ps, const rb_plan_job_t *o, const char *name);

/* Makes *c combination k (0 .. count-1) of job o's sweep: o with that
 * combination's values read in (at their sweep_* lines, so that a problem
 * names them) and named "BASE.RW.bsB.jN.qdD" after what is swept. 0, or
 * -EINVAL recorded. */
int rb_plan_sweep_pick(rb_plan_parser_t *ps, const rb_plan_job_t *o, uint32_t k, rb_plan_job_t *c);

/* Notes the expansion of job base's sweep: its count of phases, and the
 * time they take when each is time-based (runtime and ramp_time, as
 * settled in spec). 0 or -ENOMEM. */
int rb_plan_sweep_note(rb_plan_parser_t *ps, const rb_plan_job_t *o, const char *base,
                       const rb_job_spec_t *spec, unsigned line);

/* 1 for a section name that only a reserved section may use (acceptance,
 * capacity, rack ...), whether rackbench has that section or not. */
bool rb_plan_section_reserved(const char *name);

/* Completes the job section being read (rb_plan_job.c): settles, checks and
 * adds it (or its metadata steps) to the plan's phases. */
int rb_plan_job_finish(rb_plan_parser_t *ps);

/* Notes a plan whose jobs, bound by their bytes and rate caps with no
 * runtime, would run longer than a day (rb_plan_time.c). 0 or -ENOMEM. */
int rb_plan_time_note(rb_plan_parser_t *ps);

/* [rack NAME] sections (rb_plan_rack.c), as handlers of the section table. */
bool rb_plan_rack_match(char *name, char **arg);
int rb_plan_rack_begin(rb_plan_parser_t *ps, char *name, unsigned line);
int rb_plan_rack_option(rb_plan_parser_t *ps, char *key, char *val, unsigned line);
int rb_plan_rack_end(rb_plan_parser_t *ps);
int rb_plan_rack_print(const rb_plan_t *p, FILE *f);

/* Frees n racks and their node lists; safe on NULL. */
void rb_plan_racks_free(rb_plan_rack_t *racks, uint32_t n);

/* The print functions the table's rows name (rb_opt_print.c). */
rb_opt_print_fn rb_opt_print_bs, rb_opt_print_bssplit, rb_opt_print_bsrange, rb_opt_print_u64,
    rb_opt_print_ioengine, rb_opt_print_zero_buffers, rb_opt_print_pattern, rb_opt_print_layout,
    rb_opt_print_transfer, rb_opt_print_read_from, rb_opt_print_read_from_seed,
    rb_opt_print_stripe_count, rb_opt_print_stripe_size, rb_opt_print_directory, rb_opt_print_str,
    rb_opt_print_size, rb_opt_print_enum, rb_opt_print_meta_op, rb_opt_print_startdelay,
    rb_opt_print_rate, rb_opt_print_filename, rb_opt_print_job_size, rb_opt_print_create_serialize,
    rb_opt_print_meta_readsize, rb_opt_print_meta_stonewall, rb_opt_print_thinktime,
    rb_opt_print_offset, rb_opt_print_advice, rb_opt_print_random_distribution, rb_opt_print_rw,
    rb_opt_print_rw_sequencer, rb_opt_print_percentage_random, rb_opt_print_blockalign,
    rb_opt_print_if_set, rb_opt_print_fallocate, rb_opt_print_scramble, rb_opt_print_buffer_pct,
    rb_opt_print_compress_chunk, rb_opt_print_dedupe, rb_opt_print_cpus, rb_opt_print_zonemode,
    rb_opt_print_zone_size, rb_opt_print_steadystate, rb_opt_print_rate_floor,
    rb_opt_print_rate_cycle, rb_opt_print_exit_what, rb_opt_print_sqpoll_cpu, rb_opt_print_flow,
    rb_opt_print_nice, rb_opt_print_prio, rb_opt_print_cmdprio, rb_opt_print_errors,
    rb_opt_print_enum_if_set, rb_opt_print_lat, rb_opt_print_if_changed, rb_opt_print_zbd,
    rb_opt_print_file_service, rb_opt_print_max_latency, rb_opt_print_sync_file_range;

/* The row's field (1, 4 or 8 bytes) of js as a number. */
uint64_t rb_opt_load(const rb_job_spec_t *js, const rb_opt_t *opt);

#endif
