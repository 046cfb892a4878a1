/* The job-option table: one row per plan option of [global] and job
 * sections. A row says the option's key and fio's other names for it, the
 * kind of value, the field of rb_job_spec_t it fills, its limits and default,
 * where it may stand, which engine it belongs to, and one line of doc. The
 * parser, the defaults, `rackbench check`'s normalised print and the option
 * lists of docs/plan.md all come from it (docs/hacking.md: "Adding a plan
 * option"). fio's options that rackbench accepts without effect, and those it
 * does not run yet, are rows too, so that every fio name is known once. */
#ifndef RB_OPT_H
#define RB_OPT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rb_proto.h"

/* Rows in the table at the most (a job's settings keep a line per row). */
#define RB_OPT_MAX_ROWS 320

typedef enum rb_opt_kind {
    RB_OPT_SIZE,     /* uint64_t bytes with fio's units ("4k", "1M") */
    RB_OPT_DURATION, /* uint64_t ns; a bare number is seconds, as in fio */
    RB_OPT_COUNT,    /* a whole number min..max into a uint32_t or uint64_t */
    RB_OPT_BOOL,     /* uint8_t 0 or 1 (1/0, true/false, yes/no, on/off) */
    RB_OPT_INVBOOL,  /* a boolean stored inverted (buffered=1 is direct=0) */
    RB_OPT_ENUM,     /* one of the row's names, into an unsigned (enum) field */
    RB_OPT_CUSTOM,   /* read by the row's own parse function */
    RB_OPT_IGNORED,  /* fio's: accepted with a note, changes nothing here */
    RB_OPT_NOT_YET,  /* fio's: changes what is measured, refused for now */
} rb_opt_kind_t;

/* Where an option may stand and how it is written and printed. */
enum {
    RB_OPT_F_BARE = 1u << 0,       /* may be written without a value, meaning 1 */
    RB_OPT_F_GLOBAL = 1u << 1,     /* [global] only */
    RB_OPT_F_JOB = 1u << 2,        /* job sections only */
    RB_OPT_F_EMPTY = 1u << 3,      /* an empty value is allowed (it clears the option) */
    RB_OPT_F_ZERO = 1u << 4,       /* a size or count of 0 is allowed */
    RB_OPT_F_META = 1u << 5,       /* belongs to rw=meta (meta_*): refused in other jobs */
    RB_OPT_F_NOPRINT = 1u << 6,    /* not in a data job's normalised print */
    RB_OPT_F_PRINT_META = 1u << 7, /* in a metadata step's normalised print */
    RB_OPT_F_BARE_EMPTY = 1u << 8, /* written bare, the value is "" (not "1") */
};

/* Why an accepted fio option has no effect here (RB_OPT_IGNORED rows). */
typedef enum {
    RB_OPT_WHY_MACHINERY, /* it picks how fio itself runs */
    RB_OPT_WHY_REPORT,    /* it shapes fio's own reports and logs */
    RB_OPT_WHY_REGISTER,  /* io_uring's registration: rackbench always registers */
    RB_OPT_WHY_ZONED,     /* a zoned device's own limits: rackbench's zones are emulated */
    RB_OPT_NWHYS
} rb_opt_why_t;

/* The area of an option not supported yet (RB_OPT_NOT_YET rows), for the docs. */
typedef enum {
    RB_OPT_AREA_FILES,
    RB_OPT_AREA_PATTERN,
    RB_OPT_AREA_QUEUE,
    RB_OPT_AREA_BUFFERS,
    RB_OPT_AREA_TIMING,
    RB_OPT_AREA_VERIFY,
    RB_OPT_AREA_PROCESS,
    RB_OPT_AREA_REPLAY,
    RB_OPT_NAREAS
} rb_opt_area_t;

/* A name of an RB_OPT_ENUM value; the first name of a value is the one printed. */
typedef struct rb_opt_name {
    const char *name;
    unsigned value;
} rb_opt_name_t;

struct rb_plan_parser;
struct rb_plan_job;
typedef struct rb_opt rb_opt_t;

/* Reads val (never NULL; "1" for a bare flag) into the job o. Returns 0, or
 * -EINVAL (-ENOMEM) having recorded "SOURCE:LINE: why" with rb_plan_fail. */
typedef int rb_opt_parse_fn(struct rb_plan_parser *ps, struct rb_plan_job *o, const rb_opt_t *opt,
                            const char *key, const char *val, unsigned line);

/* Writes the option's "key=value" lines for js, or nothing when it has
 * nothing to say; global_dir is [global]'s directory ("" if none). */
typedef void rb_opt_print_fn(const rb_opt_t *opt, const rb_job_spec_t *js, const char *global_dir,
                             FILE *f);

struct rb_opt {
    const char *key;            /* as written in a plan and printed */
    const char *aliases;        /* fio's other names, comma-separated, or NULL */
    rb_opt_kind_t kind;         /* the value and how it is read */
    unsigned flags;             /* RB_OPT_F_* */
    size_t off;                 /* the field of rb_job_spec_t it fills ... */
    size_t size;                /* ... and its size; 0: no field of its own */
    uint64_t min, max;          /* RB_OPT_COUNT: the range */
    const rb_opt_name_t *names; /* RB_OPT_ENUM: the names ... */
    size_t nnames;              /* ... and how many */
    rb_opt_parse_fn *parse;     /* RB_OPT_CUSTOM, or a check after the generic read; or NULL */
    rb_opt_print_fn *print;     /* the print, when the generic one by kind does not fit */
    const char *def;            /* the default as plan text, read by the parser; NULL: 0 */
    const char *type;           /* the docs' type column ("size", "1 .. 65536") */
    const char *def_doc;        /* the docs' default column; NULL: `def` */
    const char *doc;            /* one line: what it does */
    const char *ref;            /* the anchor of its section in docs/plan.md, or NULL */
    const char *engine; /* the engines whose option it is (as fio's ops->options), comma-separated,
                           or NULL */
    unsigned group;     /* RB_OPT_IGNORED: rb_opt_why_t; RB_OPT_NOT_YET: rb_opt_area_t */
    const char *fills;  /* the wire fields of the job (RB_JOB_FIELDS) it fills beside its own
                           field, comma-separated; "" for a row that fills none, shaping the
                           plan itself (phases, reports); NULL: only its field */
};

/* The row of key or of one of its aliases; NULL when neither rackbench nor fio has it. */
const rb_opt_t *rb_opt_find(const char *key);

/* Rows in the table, and row i (0 .. rb_opt_count() - 1) in table order. */
size_t rb_opt_count(void);
const rb_opt_t *rb_opt_at(size_t i);

/* The index of a row (for a job's per-row lines). */
size_t rb_opt_index(const rb_opt_t *opt);

/* 1 if the row is an option of engine (or of every engine: a row naming
 * none), else 0. */
int rb_opt_of_engine(const rb_opt_t *opt, const char *engine);

/* The closest known name (an option, an alias or an ignored fio option) to
 * a mistyped key, copied into buf; returns buf, or NULL when none is close. */
const char *rb_opt_suggest(const char *key, char *buf, size_t len);

/* Why an ignored fio option has no effect, as a note says it. */
const char *rb_opt_why_text(rb_opt_why_t why);

/* Writes [global]'s own lines: sample_interval, and directory when set. */
/* interval_ns 0: sample_interval=auto. */
void rb_opt_print_global(uint64_t interval_ns, const char *directory, FILE *f);

/* Writes a data job's options, every one explicit, in table order. */
void rb_opt_print_job(const rb_job_spec_t *js, const char *global_dir, FILE *f);

/* Writes a metadata step's options (the rows marked RB_OPT_F_PRINT_META),
 * meta_ops naming the step's one operation. */
void rb_opt_print_meta_step(const rb_job_spec_t *js, const char *global_dir, FILE *f);

struct rb_jw;

/* Writes a job's options into the open JSON object of w, as `rackbench
 * check` prints them (the same rows, keys and values, in table order; each
 * value a string in plan notation). 0, or -ENOMEM. */
int rb_opt_json_job(struct rb_jw *w, const rb_job_spec_t *js, const char *global_dir);

/* Writes one generated part of docs/plan.md, the Markdown it holds between
 * "<!-- generated: PART -->" and "<!-- end: PART -->": "options" (the table
 * of options), "ignored" (fio's accepted with a note) or "not-yet" (fio's
 * refused for now). 0, or -EINVAL for another part. */
int rb_opt_doc_markdown(const char *part, FILE *f);

/* The parts rb_opt_doc_markdown writes, NULL-terminated. */
extern const char *const rb_opt_doc_parts[];

/* Names of RB_OPT_ENUM rows: the name printed for value v, or NULL. */
const char *rb_opt_enum_name(const rb_opt_t *opt, unsigned v);

#endif
