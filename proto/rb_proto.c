/* The wire codec: turns an rb_msg_t into one msgpack map and back, and is the
 * one place where bytes from a peer are checked, field by field, before any
 * other code sees them. */
#include "rb_proto.h"

#include "rb_job_rules.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <msgpack.h>

/* ---- names ---- */

static const char *const s_type_names[RB_MSG_COUNT] = {
#define RB_X_NAME(e, s) [RB_MSG_##e] = s,
    RB_MSG_TYPES(RB_X_NAME)
#undef RB_X_NAME
};

const char *rb_msg_type_name(rb_msg_type_t t)
{
    if ((unsigned)t >= RB_MSG_COUNT || !s_type_names[t])
        return "?";
    return s_type_names[t];
}

/* Wire names of the enums that travel as strings, indexed by value; NULL for
 * a value with no wire name. */
static const char *const s_rw_names[] = {
    [RB_RW_READ] = "read",           [RB_RW_WRITE] = "write",   [RB_RW_RANDREAD] = "randread",
    [RB_RW_RANDWRITE] = "randwrite", [RB_RW_RW] = "rw",         [RB_RW_RANDRW] = "randrw",
    [RB_RW_REWRITE] = "rewrite",     [RB_RW_REREAD] = "reread", [RB_RW_META] = "meta",
};
static const char *const s_meta_names[] = {
    [RB_META_NONE] = "none",     [RB_META_CREATE] = "create", [RB_META_STAT] = "stat",
    [RB_META_READ] = "read",     [RB_META_WRITE] = "write",   [RB_META_RENAME] = "rename",
    [RB_META_DELETE] = "delete",
};
static const char *const s_sync_names[] = {
    [RB_SYNC_NONE] = "none", [RB_SYNC_SYNC] = "sync", [RB_SYNC_DSYNC] = "dsync"};
static const char *const s_buf_names[] = {
    [RB_BUF_RANDOM] = "random", [RB_BUF_ZERO] = "zero", [RB_BUF_PATTERN] = "pattern"};
static const char *const s_verify_names[] = {
    [RB_VERIFY_NONE] = "none", [RB_VERIFY_CRC32C] = "crc32c"};
static const char *const s_layout_names[] = {
    [RB_LAYOUT_SEGMENTED] = "segmented", [RB_LAYOUT_STRIDED] = "strided"};

#define S_NELEM(a) (sizeof(a) / sizeof((a)[0]))

const char *rb_rw_name(rb_rw_t rw)
{
    return (unsigned)rw < S_NELEM(s_rw_names) ? s_rw_names[rw] : NULL;
}

const char *rb_meta_op_name(rb_meta_op_t op)
{
    return (unsigned)op < S_NELEM(s_meta_names) ? s_meta_names[op] : NULL;
}

rb_meta_op_t rb_meta_op_parse(const char *s)
{
    for (unsigned i = 1; s && i < S_NELEM(s_meta_names); i++)
        if (strcmp(s, s_meta_names[i]) == 0)
            return (rb_meta_op_t)i;
    return RB_META_NONE;
}

const char *rb_layout_mode_name(rb_layout_mode_t m)
{
    return (unsigned)m < S_NELEM(s_layout_names) ? s_layout_names[m] : NULL;
}

int rb_layout_mode_parse(const char *s)
{
    for (unsigned i = 0; s && i < S_NELEM(s_layout_names); i++)
        if (strcmp(s, s_layout_names[i]) == 0)
            return (int)i;
    return -1;
}

rb_rw_t rb_rw_parse(const char *s)
{
    if (!s)
        return RB_RW_NONE;
    for (unsigned i = 0; i < S_NELEM(s_rw_names); i++)
        if (s_rw_names[i] && strcmp(s, s_rw_names[i]) == 0)
            return (rb_rw_t)i;
    return strcmp(s, "readwrite") == 0 ? RB_RW_RW : RB_RW_NONE; /* fio's other spelling */
}

int rb_phase_is_meta(const rb_phase_spec_t *ph)
{
    return ph->njobs && ph->jobs[0].rw == RB_RW_META;
}

int rb_rw_reads(rb_rw_t rw)
{
    return rw == RB_RW_READ || rw == RB_RW_RANDREAD || rw == RB_RW_RW || rw == RB_RW_RANDRW ||
           rw == RB_RW_REREAD;
}

int rb_rw_writes(rb_rw_t rw)
{
    return rw == RB_RW_WRITE || rw == RB_RW_RANDWRITE || rw == RB_RW_RW || rw == RB_RW_RANDRW ||
           rw == RB_RW_REWRITE;
}

int rb_rw_random(rb_rw_t rw)
{
    return rw == RB_RW_RANDREAD || rw == RB_RW_RANDWRITE || rw == RB_RW_RANDRW;
}

/* ---- layouts: every body is described once, and the describing tables drive
 * encoding, decoding and freeing alike ---- */

typedef enum {
    S_U32,      /* uint32_t, within min .. max */
    S_U64,      /* uint64_t, within min .. max */
    S_ERRNO,    /* int32_t, 0 or a negative errno */
    S_I64,      /* int64_t */
    S_BOOL,     /* uint8_t 0 or 1; a msgpack boolean on the wire */
    S_STR,      /* char[size], NUL-terminated, no NUL inside; flags add rules */
    S_ENUM,     /* an enum, as its name in en on the wire */
    S_BIN,      /* uint8_t[size] and a uint32_t length: msgpack bin of at most max bytes */
    S_HIST,     /* rb_hist_t *, a sparse map described by sub */
    S_BUCKETS,  /* rb_hist_t.b: flat [index, count, ...] of the non-empty buckets */
    S_CHECKPTS, /* rb_checkpt_t * and a count: [[t_ns, bytes], ...], t_ns not decreasing */
    S_ARRAY,    /* pointer to elements described by sub, and a count */
    S_INLINE,   /* like S_ARRAY, but the elements live inside the struct */
} s_kind_t;

/* Extra rules of an S_STR. */
enum {
    SF_NONEMPTY = 1, /* "" is refused */
    SF_FILE = 2,     /* one path component: no '/', not "." or ".." */
};

/* An enum that travels as a string. */
typedef struct s_enum {
    const char *what;         /* what it is, for messages: "access pattern" */
    const char *const *names; /* wire name by value; NULL for a value without one */
    unsigned n;               /* entries in names */
} s_enum_t;

typedef struct s_layout s_layout_t;
typedef struct s_ctx s_ctx_t;

typedef struct s_field {
    const char *key;       /* wire key, equal to the struct field's name */
    s_kind_t kind;         /* C type and wire form */
    size_t off;            /* offset of the value, the inline array or the array pointer */
    size_t size;           /* S_STR, S_BIN: capacity (S_STR with the NUL); arrays: element size */
    size_t count_off;      /* arrays, S_BIN: offset of the uint32_t element or byte count */
    uint64_t min;          /* integers: smallest value */
    uint64_t max;          /* integers: largest value; arrays: most elements; S_BIN: most bytes */
    unsigned flags;        /* S_STR: SF_* rules */
    const s_enum_t *en;    /* S_ENUM: names */
    const s_layout_t *sub; /* S_HIST, S_ARRAY, S_INLINE: layout of one element */
} s_field_t;

struct s_layout {
    const s_field_t *fields;                    /* in wire order */
    size_t n;                                   /* entries in fields */
    int (*check)(s_ctx_t *c, const void *base); /* rule across fields, or NULL */
};

static const s_enum_t s_rw_enum = {"access pattern", s_rw_names, S_NELEM(s_rw_names)};
static const s_enum_t s_sync_enum = {"sync mode", s_sync_names, S_NELEM(s_sync_names)};
static const s_enum_t s_buf_enum = {"buffer mode", s_buf_names, S_NELEM(s_buf_names)};
static const s_enum_t s_verify_enum = {"verify method", s_verify_names, S_NELEM(s_verify_names)};
static const s_enum_t s_meta_enum = {"metadata operation", s_meta_names, S_NELEM(s_meta_names)};
static const s_enum_t s_layout_enum = {"shared-file layout", s_layout_names,
                                       S_NELEM(s_layout_names)};

/* S_ENUM values are read and written as unsigned int. */
_Static_assert(sizeof(rb_rw_t) == sizeof(unsigned) && sizeof(rb_sync_mode_t) == sizeof(unsigned) &&
                   sizeof(rb_buf_mode_t) == sizeof(unsigned) &&
                   sizeof(rb_verify_t) == sizeof(unsigned) &&
                   sizeof(rb_meta_op_t) == sizeof(unsigned) &&
                   sizeof(rb_layout_mode_t) == sizeof(unsigned),
               "enums travel through an unsigned int");

/* Table entries for field f of struct T; the wire key is the field's name. */
/* clang-format off */
#define S_MEMBER(T, f) (((T *)0)->f)
#define S_AT(T, f, k)  .key = #f, .kind = (k), .off = offsetof(T, f)
#define F_U32R(T, f, mn, mx) {S_AT(T, f, S_U32), .min = (mn), .max = (mx)}
#define F_U32(T, f, mx)      F_U32R(T, f, 0, mx)
#define F_U64(T, f)          {S_AT(T, f, S_U64), .max = UINT64_MAX}
#define F_KIND(T, f, k)      {S_AT(T, f, k), .size = sizeof(S_MEMBER(T, f))}
#define F_STR(T, f, fl)      {S_AT(T, f, S_STR), .size = sizeof(S_MEMBER(T, f)), .flags = (fl)}
#define F_ENUM(T, f, e)      {S_AT(T, f, S_ENUM), .en = &(e)}
#define F_BIN(T, f, cnt) \
    {S_AT(T, f, S_BIN), .size = sizeof(S_MEMBER(T, f)), .count_off = offsetof(T, cnt), \
     .max = sizeof(S_MEMBER(T, f))}
#define F_HIST(T, f)         {S_AT(T, f, S_HIST), .sub = &s_hist_layout}
#define F_ARRAY(T, f, cnt, mx, layout) \
    {S_AT(T, f, S_ARRAY), .size = sizeof(*S_MEMBER(T, f)), .count_off = offsetof(T, cnt), \
     .max = (mx), .sub = &(layout)}
#define F_INLINE(T, f, cnt, mx, layout) \
    {S_AT(T, f, S_INLINE), .size = sizeof(S_MEMBER(T, f)[0]), .count_off = offsetof(T, cnt), \
     .max = (mx), .sub = &(layout)}
#define F_CHECKPTS(T, f, cnt, mx) \
    {S_AT(T, f, S_CHECKPTS), .size = sizeof(*S_MEMBER(T, f)), .count_off = offsetof(T, cnt), \
     .max = (mx)}
/* clang-format on */
#define S_LAYOUT(name, check, ...)                                                                 \
    static const s_field_t name##_fields[] = {__VA_ARGS__};                                        \
    static const s_layout_t name = {name##_fields, sizeof(name##_fields) / sizeof(s_field_t), check}

static int s_check_hist(s_ctx_t *c, const void *base);
static int s_check_job(s_ctx_t *c, const void *base);
static int s_check_phase(s_ctx_t *c, const void *base);
static int s_check_plan(s_ctx_t *c, const void *base);
static int s_check_job_stat(s_ctx_t *c, const void *base);
static int s_check_worker(s_ctx_t *c, const void *base);

S_LAYOUT(s_hist_layout, s_check_hist, F_U64(rb_hist_t, count), F_U64(rb_hist_t, sum),
         F_U64(rb_hist_t, min), F_U64(rb_hist_t, max), F_KIND(rb_hist_t, b, S_BUCKETS));

S_LAYOUT(s_root_layout, NULL, F_STR(rb_root_info_t, path, 0), F_U64(rb_root_info_t, free_bytes),
         F_U64(rb_root_info_t, total_bytes));

S_LAYOUT(
    s_job_layout, s_check_job, F_STR(rb_job_spec_t, name, 0), F_ENUM(rb_job_spec_t, rw, s_rw_enum),
    F_U64(rb_job_spec_t, bs), F_U64(rb_job_spec_t, bs_max), F_U64(rb_job_spec_t, size),
    F_U32(rb_job_spec_t, numjobs, RB_MAX_WORKERS), F_KIND(rb_job_spec_t, direct, S_BOOL),
    F_KIND(rb_job_spec_t, time_based, S_BOOL), F_U64(rb_job_spec_t, runtime_ns),
    F_STR(rb_job_spec_t, directory, 0), F_STR(rb_job_spec_t, filename_format, 0),
    F_STR(rb_job_spec_t, filename, SF_FILE), F_STR(rb_job_spec_t, ioengine, SF_FILE | SF_NONEMPTY),
    F_U32R(rb_job_spec_t, iodepth, 1, RB_IODEPTH_MAX), F_U32(rb_job_spec_t, rwmixread, 100),
    F_U32R(rb_job_spec_t, nrfiles, 1, RB_NRFILES_MAX), F_U64(rb_job_spec_t, filesize),
    F_U64(rb_job_spec_t, offset), F_ENUM(rb_job_spec_t, sync_mode, s_sync_enum),
    F_U32(rb_job_spec_t, fsync_every, UINT32_MAX),
    F_U32(rb_job_spec_t, fdatasync_every, UINT32_MAX), F_KIND(rb_job_spec_t, end_fsync, S_BOOL),
    F_KIND(rb_job_spec_t, fsync_on_close, S_BOOL), F_U64(rb_job_spec_t, ramp_ns),
    F_U32R(rb_job_spec_t, loops, 1, UINT32_MAX), F_KIND(rb_job_spec_t, randrepeat, S_BOOL),
    F_U64(rb_job_spec_t, randseed), F_KIND(rb_job_spec_t, norandommap, S_BOOL),
    F_KIND(rb_job_spec_t, overwrite, S_BOOL), F_ENUM(rb_job_spec_t, buffer_mode, s_buf_enum),
    F_KIND(rb_job_spec_t, refill_buffers, S_BOOL), F_BIN(rb_job_spec_t, pattern, pattern_len),
    F_ENUM(rb_job_spec_t, verify, s_verify_enum), F_KIND(rb_job_spec_t, do_verify, S_BOOL),
    F_KIND(rb_job_spec_t, verify_fatal, S_BOOL), F_U64(rb_job_spec_t, rate),
    F_ENUM(rb_job_spec_t, meta_op, s_meta_enum), F_U64(rb_job_spec_t, meta_files),
    F_U64(rb_job_spec_t, meta_filesize), F_U32(rb_job_spec_t, meta_dirs, RB_META_DIRS_MAX),
    F_U32(rb_job_spec_t, meta_depth, RB_META_DEPTH_MAX),
    F_U32(rb_job_spec_t, meta_branch, RB_META_DIRS_MAX), F_KIND(rb_job_spec_t, meta_random, S_BOOL),
    F_KIND(rb_job_spec_t, meta_shared, S_BOOL), F_KIND(rb_job_spec_t, meta_sync, S_BOOL),
    F_KIND(rb_job_spec_t, meta_renamed, S_BOOL), F_KIND(rb_job_spec_t, shared_file, S_BOOL),
    F_ENUM(rb_job_spec_t, layout, s_layout_enum), F_U64(rb_job_spec_t, transfer),
    F_U32(rb_job_spec_t, read_shift, UINT32_MAX), F_U64(rb_job_spec_t, stonewall_ns),
    F_KIND(rb_job_spec_t, wearout, S_BOOL), F_KIND(rb_job_spec_t, drop_caches, S_BOOL),
    F_U32(rb_job_spec_t, lustre_stripe_count, UINT32_MAX),
    F_U64(rb_job_spec_t, lustre_stripe_size));

S_LAYOUT(s_phase_layout, s_check_phase, F_STR(rb_phase_spec_t, name, 0),
         F_ARRAY(rb_phase_spec_t, jobs, njobs, RB_MAX_JOBS, s_job_layout));

S_LAYOUT(s_job_stat_layout, s_check_job_stat, F_U32(rb_job_stat_t, job, RB_MAX_JOBS - 1),
         F_U64(rb_job_stat_t, bytes), F_U64(rb_job_stat_t, ops), F_U64(rb_job_stat_t, errors),
         F_U64(rb_job_stat_t, read_bytes), F_U64(rb_job_stat_t, read_ops),
         F_U64(rb_job_stat_t, verify_errors), F_HIST(rb_job_stat_t, hist));

S_LAYOUT(s_worker_layout, s_check_worker, F_U32(rb_worker_stat_t, job, RB_MAX_JOBS - 1),
         F_U32(rb_worker_stat_t, worker, RB_MAX_WORKERS - 1), F_U64(rb_worker_stat_t, t_start_ns),
         F_U64(rb_worker_stat_t, t_end_ns), F_U64(rb_worker_stat_t, bytes),
         F_U64(rb_worker_stat_t, ops), F_U64(rb_worker_stat_t, errors),
         F_U64(rb_worker_stat_t, read_bytes), F_U64(rb_worker_stat_t, read_ops),
         F_U64(rb_worker_stat_t, verify_errors),
         F_CHECKPTS(rb_worker_stat_t, checkpts, ncheckpts, RB_MAX_CHECKPTS),
         F_U64(rb_worker_stat_t, sw_t_ns), F_U64(rb_worker_stat_t, sw_bytes),
         F_U64(rb_worker_stat_t, sw_ops));

S_LAYOUT(s_peer_layout, NULL, F_U32(rb_peer_t, shift, UINT32_MAX),
         F_STR(rb_peer_t, name, SF_NONEMPTY));

/* Message bodies, named after the enum so that the X-macro table can list them. */
S_LAYOUT(s_body_HELLO, NULL, F_STR(rb_msg_hello_t, name, 0), F_STR(rb_msg_hello_t, rack, 0),
         F_STR(rb_msg_hello_t, hostname, 0), F_STR(rb_msg_hello_t, agent_version, 0),
         F_U32(rb_msg_hello_t, pid, UINT32_MAX), F_U32(rb_msg_hello_t, cores, UINT32_MAX),
         F_U64(rb_msg_hello_t, ram_bytes), F_U64(rb_msg_hello_t, cache_bytes),
         F_INLINE(rb_msg_hello_t, roots, nroots, RB_MAX_ROOTS, s_root_layout));

S_LAYOUT(s_body_PING, NULL, F_U32(rb_msg_ping_t, seq, UINT32_MAX),
         F_U64(rb_msg_ping_t, t_coord_ns));

S_LAYOUT(s_body_PONG, NULL, F_U32(rb_msg_pong_t, seq, UINT32_MAX), F_U64(rb_msg_pong_t, t_coord_ns),
         F_U64(rb_msg_pong_t, t_agent_ns));

S_LAYOUT(s_body_PLAN, s_check_plan, F_STR(rb_msg_plan_t, run_id, 0),
         F_U64(rb_msg_plan_t, interval_ns), F_U32(rb_msg_plan_t, node_rank, UINT32_MAX - 1),
         F_U32R(rb_msg_plan_t, nnodes, 1, UINT32_MAX), F_STR(rb_msg_plan_t, lead, 0),
         F_INLINE(rb_msg_plan_t, peers, npeers, RB_MAX_PEERS, s_peer_layout),
         F_ARRAY(rb_msg_plan_t, phases, nphases, RB_MAX_PHASES, s_phase_layout));

S_LAYOUT(s_body_READY, NULL, F_STR(rb_msg_ready_t, run_id, 0),
         F_U64(rb_msg_ready_t, prefill_bytes));

S_LAYOUT(s_body_REFUSED, NULL, F_STR(rb_msg_reason_t, run_id, 0),
         F_KIND(rb_msg_reason_t, code, S_ERRNO), F_STR(rb_msg_reason_t, reason, 0));
#define s_body_ABORT s_body_REFUSED
#define s_body_ERROR s_body_REFUSED

S_LAYOUT(s_body_GO, NULL, F_STR(rb_msg_go_t, run_id, 0),
         F_U32(rb_msg_go_t, phase, RB_MAX_PHASES - 1), F_U64(rb_msg_go_t, t_go_ns),
         F_KIND(rb_msg_go_t, offset_ns, S_I64));

S_LAYOUT(s_telem_dev_layout, NULL, F_STR(rb_telem_dev_t, name, SF_NONEMPTY),
         F_STR(rb_telem_dev_t, parent, 0), F_KIND(rb_telem_dev_t, member, S_BOOL),
         F_U64(rb_telem_dev_t, rd_bps), F_U64(rb_telem_dev_t, wr_bps),
         F_U64(rb_telem_dev_t, rd_iops), F_U64(rb_telem_dev_t, wr_iops),
         F_U32(rb_telem_dev_t, util_pm, 1000), F_U64(rb_telem_dev_t, qdepth_m),
         F_U64(rb_telem_dev_t, await_us), F_U64(rb_telem_dev_t, rd_bytes),
         F_U64(rb_telem_dev_t, wr_bytes));

S_LAYOUT(s_telem_nic_layout, NULL, F_STR(rb_telem_nic_t, name, SF_NONEMPTY),
         F_U64(rb_telem_nic_t, rx_bps), F_U64(rb_telem_nic_t, tx_bps),
         F_U32(rb_telem_nic_t, speed_mbps, UINT32_MAX));

S_LAYOUT(s_telem_layout, NULL, F_U32(rb_telem_t, user_pm, 1000), F_U32(rb_telem_t, system_pm, 1000),
         F_U32(rb_telem_t, iowait_pm, 1000), F_U32(rb_telem_t, idle_pm, 1000),
         F_U32(rb_telem_t, irq_pm, 1000), F_U32(rb_telem_t, ncpu, UINT32_MAX),
         F_U32(rb_telem_t, load1_m, UINT32_MAX), F_U64(rb_telem_t, ctxt_per_s),
         F_U64(rb_telem_t, cached), F_U64(rb_telem_t, dirty), F_U64(rb_telem_t, writeback),
         F_INLINE(rb_telem_t, devs, ndevs, RB_TELEM_DEVS, s_telem_dev_layout),
         F_INLINE(rb_telem_t, nics, nnics, RB_TELEM_NICS, s_telem_nic_layout));

S_LAYOUT(s_body_SAMPLE, NULL, F_STR(rb_msg_sample_t, run_id, 0),
         F_U32(rb_msg_sample_t, phase, RB_MAX_PHASES - 1), F_U32(rb_msg_sample_t, seq, UINT32_MAX),
         F_U64(rb_msg_sample_t, t_start_ns), F_U64(rb_msg_sample_t, t_end_ns),
         F_ARRAY(rb_msg_sample_t, jobs, njobs, RB_MAX_JOBS, s_job_stat_layout),
         F_ARRAY(rb_msg_sample_t, telem, ntelem, 1, s_telem_layout));

S_LAYOUT(s_body_DONE, NULL, F_STR(rb_msg_done_t, run_id, 0),
         F_U32(rb_msg_done_t, phase, RB_MAX_PHASES - 1), F_KIND(rb_msg_done_t, status, S_ERRNO),
         F_STR(rb_msg_done_t, error, 0), F_STR(rb_msg_done_t, error_path, 0),
         F_U64(rb_msg_done_t, error_offset),
         F_ARRAY(rb_msg_done_t, workers, nworkers, RB_MAX_WORKERS, s_worker_layout),
         F_ARRAY(rb_msg_done_t, jobs, njobs, RB_MAX_JOBS, s_job_stat_layout),
         F_KIND(rb_msg_done_t, caches_dropped, S_BOOL),
         F_KIND(rb_msg_done_t, drop_status, S_ERRNO));

S_LAYOUT(s_body_STONEWALL, NULL, F_STR(rb_msg_wear_t, run_id, 0),
         F_U32(rb_msg_wear_t, phase, RB_MAX_PHASES - 1), F_U32(rb_msg_wear_t, job, RB_MAX_JOBS - 1),
         F_U64(rb_msg_wear_t, ops));
#define s_body_WEAROUT s_body_STONEWALL

S_LAYOUT(s_body_HEARTBEAT, NULL, F_U64(rb_msg_heartbeat_t, t_ns));

S_LAYOUT(s_body_END, NULL, F_STR(rb_msg_end_t, run_id, 0), F_U64(rb_msg_end_t, removed_files),
         F_KIND(rb_msg_end_t, status, S_ERRNO));

static const s_layout_t *const s_bodies[RB_MSG_COUNT] = {
#define RB_X_BODY(e, s) [RB_MSG_##e] = &s_body_##e,
    RB_MSG_TYPES(RB_X_BODY)
#undef RB_X_BODY
};

/* The size of each type's member of rb_msg_t.u: decoding and rb_msg_fini
 * clear that much, not the whole union (65 KiB, the HELLO's size) for every
 * SAMPLE, which at 16,000 agents a second cost the coordinator about 2 GB/s
 * of memset. */
static const size_t s_body_sizes[RB_MSG_COUNT] = {
    [RB_MSG_HELLO] = sizeof(rb_msg_hello_t),    [RB_MSG_PING] = sizeof(rb_msg_ping_t),
    [RB_MSG_PONG] = sizeof(rb_msg_pong_t),      [RB_MSG_PLAN] = sizeof(rb_msg_plan_t),
    [RB_MSG_READY] = sizeof(rb_msg_ready_t),    [RB_MSG_REFUSED] = sizeof(rb_msg_reason_t),
    [RB_MSG_GO] = sizeof(rb_msg_go_t),          [RB_MSG_SAMPLE] = sizeof(rb_msg_sample_t),
    [RB_MSG_DONE] = sizeof(rb_msg_done_t),      [RB_MSG_HEARTBEAT] = sizeof(rb_msg_heartbeat_t),
    [RB_MSG_ABORT] = sizeof(rb_msg_reason_t),   [RB_MSG_ERROR] = sizeof(rb_msg_reason_t),
    [RB_MSG_STONEWALL] = sizeof(rb_msg_wear_t), [RB_MSG_WEAROUT] = sizeof(rb_msg_wear_t),
    [RB_MSG_END] = sizeof(rb_msg_end_t),
};

static size_t s_msg_used(rb_msg_type_t t)
{
    size_t body = t > RB_MSG_NONE && t < RB_MSG_COUNT && s_body_sizes[t]
                      ? s_body_sizes[t]
                      : sizeof(((rb_msg_t *)0)->u);
    return offsetof(rb_msg_t, u) + body;
}

/* ---- context shared by encoding and decoding: where we are, for messages ---- */

#define S_MAX_DEPTH 8

struct s_ctx {
    rb_err_t *err;    /* where failures go (may be NULL) */
    const char *type; /* wire name of the message; NULL while unknown */
    int code;         /* what a bad field returns: -EINVAL encoding, -EBADMSG decoding */
    int depth;        /* entries used in at[] */
    struct {
        const char *key; /* array or map field entered */
        long idx;        /* element index, -1 for a map */
    } at[S_MAX_DEPTH];   /* path from the message map to the current map */
};

static void s_enter(s_ctx_t *c, const char *key, long idx)
{
    if (c->depth < S_MAX_DEPTH) {
        c->at[c->depth].key = key;
        c->at[c->depth].idx = idx;
    }
    c->depth++;
}

static void s_leave(s_ctx_t *c)
{
    c->depth--;
}

static size_t s_path_add(char *p, size_t cap, size_t n, const char *key, long idx)
{
    if (key && n < cap)
        n += (size_t)snprintf(p + n, cap - n, "%s%s", n ? "." : "", key);
    if (idx >= 0 && n < cap)
        n += (size_t)snprintf(p + n, cap - n, "[%ld]", idx);
    return n;
}

/* Records "TYPE: field 'path.key[idx]': what" and returns c->code. */
static int s_fail(s_ctx_t *c, const char *key, long idx, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int s_fail(s_ctx_t *c, const char *key, long idx, const char *fmt, ...)
{
    char path[256] = "", what[512];
    size_t n = 0;
    for (int i = 0; i < c->depth && i < S_MAX_DEPTH; i++)
        n = s_path_add(path, sizeof path, n, c->at[i].key, c->at[i].idx);
    s_path_add(path, sizeof path, n, key, idx);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    rb_err_set(c->err, c->code, "%s: field '%s': %s", c->type ? c->type : "message", path, what);
    return c->code;
}

/* An integer outside its field's range: "0 out of range (min 1, max 65536)". */
static int s_fail_range(s_ctx_t *c, const char *key, long idx, uint64_t v, uint64_t min,
                        uint64_t max)
{
    if (min == 0)
        return s_fail(c, key, idx, "%" PRIu64 " out of range (max %" PRIu64 ")", v, max);
    return s_fail(c, key, idx, "%" PRIu64 " out of range (min %" PRIu64 ", max %" PRIu64 ")", v,
                  min, max);
}

static int s_nomem(s_ctx_t *c)
{
    rb_err_set(c->err, -ENOMEM, "%s: out of memory", c->type ? c->type : "message");
    return -ENOMEM;
}

/* Copies at most cap-1 bytes of untrusted text for a message, '?' for the unprintable. */
static const char *s_printable(char *dst, size_t cap, const char *src, size_t len)
{
    size_t i;
    for (i = 0; i < len && i + 1 < cap; i++)
        dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? src[i] : '?';
    dst[i] = '\0';
    return dst;
}

static void *s_ptr(const void *base, const s_field_t *f)
{
    return (char *)base + f->off;
}

static uint32_t *s_count(const void *base, const s_field_t *f)
{
    return (uint32_t *)((char *)base + f->count_off);
}

/* Element array of an S_ARRAY or S_INLINE field. */
static char *s_elems(const void *base, const s_field_t *f)
{
    char *elems;
    if (f->kind == S_INLINE)
        return s_ptr(base, f);
    memcpy(&elems, s_ptr(base, f), sizeof elems);
    return elems;
}

/* A histogram's buckets must add up to its count. min and max are not checked
 * against each other or the buckets: a delta taken while a worker records may
 * be a value apart, and percentiles clamp to them only when min <= max. */
static int s_check_hist(s_ctx_t *c, const void *base)
{
    const rb_hist_t *h = base;
    uint64_t sum = 0;
    bool over = false;
    for (unsigned i = 0; i < RB_HIST_NBUCKETS; i++) {
        over |= h->b[i] > UINT64_MAX - sum;
        sum += h->b[i];
    }
    if (over || sum != h->count)
        return s_fail(c, "count", -1, "%" PRIu64 ", but the buckets sum to %s%" PRIu64, h->count,
                      over ? "more than " : "", sum);
    return 0;
}

/* Rules of an S_STR beyond its bound (its flags); what is wrong, or NULL. */
static const char *s_str_rule(const s_field_t *f, const char *s)
{
    if ((f->flags & SF_NONEMPTY) && !*s)
        return "empty";
    if ((f->flags & SF_FILE) && strchr(s, '/'))
        return "contains '/'; a file name, not a path, is expected";
    if ((f->flags & SF_FILE) && (!strcmp(s, ".") || !strcmp(s, "..")))
        return "'.' and '..' are not file names";
    return NULL;
}

/* A job's rules across fields: a size range that is one, a pattern to repeat,
 * Lustre striping lfs accepts. */
/* The rules of any job, a part of the plan's own (rb_job_rules.h). */
static int s_check_job(s_ctx_t *c, const void *base)
{
    rb_job_rule_t rule;
    if (rb_job_rules_check_wire(base, &rule) == 0)
        return 0;
    return s_fail(c, rule.field, -1, "%s", rule.why);
}

/* Reads are a part of all IO: read_bytes <= bytes, read_ops <= ops. */
static int s_check_reads(s_ctx_t *c, uint64_t bytes, uint64_t ops, uint64_t read_bytes,
                         uint64_t read_ops)
{
    if (read_bytes > bytes)
        return s_fail(c, "read_bytes", -1, "%" PRIu64 ", more than bytes %" PRIu64, read_bytes,
                      bytes);
    if (read_ops > ops)
        return s_fail(c, "read_ops", -1, "%" PRIu64 ", more than ops %" PRIu64, read_ops, ops);
    return 0;
}

static int s_check_job_stat(s_ctx_t *c, const void *base)
{
    const rb_job_stat_t *js = base;
    return s_check_reads(c, js->bytes, js->ops, js->read_bytes, js->read_ops);
}

static int s_check_worker(s_ctx_t *c, const void *base)
{
    const rb_worker_stat_t *w = base;
    return s_check_reads(c, w->bytes, w->ops, w->read_bytes, w->read_ops);
}

/* The workers of a phase on one agent must fit in one DONE message. */
static int s_check_phase(s_ctx_t *c, const void *base)
{
    const rb_phase_spec_t *ph = base;
    uint64_t workers = 0;
    for (uint32_t i = 0; i < ph->njobs && ph->jobs; i++)
        workers += ph->jobs[i].numjobs;
    if (workers > RB_MAX_WORKERS)
        return s_fail(c, "jobs", -1, "numjobs add up to %" PRIu64 " workers, more than %d", workers,
                      RB_MAX_WORKERS);
    return 0;
}

/* A node's place is inside the run. */
static int s_check_plan(s_ctx_t *c, const void *base)
{
    const rb_msg_plan_t *p = base;
    if (p->node_rank >= p->nnodes)
        return s_fail(c, "node_rank", -1, "%" PRIu32 ", not below nnodes %" PRIu32, p->node_rank,
                      p->nnodes);
    return 0;
}

int rb_proto_job_limits(size_t off, uint64_t *min, uint64_t *max)
{
    for (size_t i = 0; i < s_job_layout.n; i++) {
        const s_field_t *f = &s_job_layout.fields[i];
        if (f->off != off || (f->kind != S_U32 && f->kind != S_U64))
            continue;
        *min = f->min;
        *max = f->max;
        return 0;
    }
    return -ENOENT;
}

/* ---- freeing ---- */

static void s_free_fields(const s_layout_t *l, void *base)
{
    for (size_t i = 0; i < l->n; i++) {
        const s_field_t *f = &l->fields[i];
        void *p = s_ptr(base, f);
        if (f->kind == S_HIST) {
            free(*(rb_hist_t **)p);
            *(rb_hist_t **)p = NULL;
        } else if (f->kind == S_CHECKPTS) {
            free(*(rb_checkpt_t **)p);
            *(rb_checkpt_t **)p = NULL;
            *s_count(base, f) = 0;
        } else if (f->kind == S_ARRAY || f->kind == S_INLINE) {
            char *elems = s_elems(base, f);
            uint32_t n = *s_count(base, f);
            if (f->kind == S_INLINE && n > f->max)
                n = (uint32_t)f->max;
            for (uint32_t j = 0; elems && j < n; j++)
                s_free_fields(f->sub, elems + (size_t)j * f->size);
            if (f->kind == S_ARRAY) {
                free(elems);
                elems = NULL;
                memcpy(p, &elems, sizeof elems);
            }
            *s_count(base, f) = 0;
        }
    }
}

void rb_phases_free(rb_phase_spec_t **phases, uint32_t nphases)
{
    if (!phases || !*phases)
        return;
    for (uint32_t i = 0; i < nphases; i++)
        s_free_fields(&s_phase_layout, &(*phases)[i]);
    free(*phases);
    *phases = NULL;
}

void rb_msg_fini(rb_msg_t *m)
{
    if (!m)
        return;
    if (m->type > RB_MSG_NONE && m->type < RB_MSG_COUNT)
        s_free_fields(s_bodies[m->type], &m->u);
    memset(m, 0, s_msg_used(m->type)); /* what decoding filled */
}

/* ---- encoding ---- */

typedef struct s_enc {
    s_ctx_t c;          /* path and error */
    msgpack_sbuffer sb; /* the frame being built */
    msgpack_packer pk;  /* writes into sb */
    int packrc;         /* nonzero once a write into sb failed */
} s_enc_t;

static const rb_hist_t s_empty_hist = {.min = UINT64_MAX};

static void s_put_str(s_enc_t *e, const char *s, size_t len)
{
    e->packrc |= msgpack_pack_str_with_body(&e->pk, s, len);
}

static void s_put_u64(s_enc_t *e, uint64_t v)
{
    e->packrc |= msgpack_pack_uint64(&e->pk, v);
}

static int s_enc_fields(s_enc_t *e, const s_layout_t *l, const void *base, const char *type);

static int s_enc_hist(s_enc_t *e, const s_field_t *f, const rb_hist_t *h)
{
    if (!h)
        h = &s_empty_hist; /* no latency recorded: travels as an empty histogram */
    s_enter(&e->c, f->key, -1);
    int rc = s_enc_fields(e, f->sub, h, NULL);
    s_leave(&e->c);
    return rc;
}

static int s_enc_field(s_enc_t *e, const s_field_t *f, const void *base)
{
    const void *p = s_ptr(base, f);
    const char *k = f->key;
    switch (f->kind) {
    case S_U32:
    case S_U64: {
        uint64_t v = f->kind == S_U32 ? *(const uint32_t *)p : *(const uint64_t *)p;
        if (v < f->min || v > f->max)
            return s_fail_range(&e->c, k, -1, v, f->min, f->max);
        s_put_u64(e, v);
        return 0;
    }
    case S_ERRNO:
        if (*(const int32_t *)p > 0)
            return s_fail(&e->c, k, -1, "%" PRId32 " is not 0 or a negative errno",
                          *(const int32_t *)p);
        e->packrc |= msgpack_pack_int64(&e->pk, *(const int32_t *)p);
        return 0;
    case S_I64:
        e->packrc |= msgpack_pack_int64(&e->pk, *(const int64_t *)p);
        return 0;
    case S_BOOL:
        if (*(const uint8_t *)p > 1)
            return s_fail(&e->c, k, -1, "%u is not 0 or 1", *(const uint8_t *)p);
        e->packrc |= *(const uint8_t *)p ? msgpack_pack_true(&e->pk) : msgpack_pack_false(&e->pk);
        return 0;
    case S_STR: {
        size_t n = strnlen(p, f->size);
        if (n == f->size)
            return s_fail(&e->c, k, -1, "not NUL-terminated within its %zu bytes", f->size);
        const char *bad = s_str_rule(f, p);
        if (bad)
            return s_fail(&e->c, k, -1, "%s", bad);
        s_put_str(e, p, n);
        return 0;
    }
    case S_ENUM: {
        unsigned v;
        memcpy(&v, p, sizeof v);
        const char *name = v < f->en->n ? f->en->names[v] : NULL;
        if (!name)
            return s_fail(&e->c, k, -1, "unknown %s %u", f->en->what, v);
        s_put_str(e, name, strlen(name));
        return 0;
    }
    case S_BIN: {
        uint32_t n = *s_count(base, f);
        if (n > f->max)
            return s_fail(&e->c, k, -1, "%" PRIu32 " bytes, more than the bound of %" PRIu64, n,
                          f->max);
        e->packrc |= msgpack_pack_bin_with_body(&e->pk, p, n);
        return 0;
    }
    case S_HIST:
        return s_enc_hist(e, f, *(rb_hist_t *const *)p);
    case S_BUCKETS: {
        const uint64_t *b = p;
        size_t used = 0;
        for (unsigned i = 0; i < RB_HIST_NBUCKETS; i++)
            used += b[i] != 0;
        e->packrc |= msgpack_pack_array(&e->pk, 2 * used);
        for (unsigned i = 0; i < RB_HIST_NBUCKETS; i++) {
            if (b[i]) {
                s_put_u64(e, i);
                s_put_u64(e, b[i]);
            }
        }
        return 0;
    }
    case S_CHECKPTS: {
        const rb_checkpt_t *cp = *(rb_checkpt_t *const *)p;
        uint32_t n = *s_count(base, f);
        if (n > f->max)
            return s_fail(&e->c, k, -1, "%" PRIu32 " entries, more than the bound of %" PRIu64, n,
                          f->max);
        if (n && !cp)
            return s_fail(&e->c, k, -1, "%" PRIu32 " entries but no array", n);
        e->packrc |= msgpack_pack_array(&e->pk, n);
        for (uint32_t i = 0; i < n; i++) {
            if (i > 0 && cp[i].t_ns < cp[i - 1].t_ns) {
                s_enter(&e->c, k, i);
                s_fail(&e->c, "t_ns", -1, "%" PRIu64 " before the previous checkpoint's %" PRIu64,
                       cp[i].t_ns, cp[i - 1].t_ns);
                s_leave(&e->c);
                return e->c.code;
            }
            e->packrc |= msgpack_pack_array(&e->pk, 2);
            s_put_u64(e, cp[i].t_ns);
            s_put_u64(e, cp[i].bytes);
        }
        return 0;
    }
    case S_ARRAY:
    case S_INLINE: {
        const char *elems = s_elems(base, f);
        uint32_t n = *s_count(base, f);
        if (n > f->max)
            return s_fail(&e->c, k, -1, "%" PRIu32 " entries, more than the bound of %" PRIu64, n,
                          f->max);
        if (n && !elems)
            return s_fail(&e->c, k, -1, "%" PRIu32 " entries but no array", n);
        e->packrc |= msgpack_pack_array(&e->pk, n);
        for (uint32_t i = 0; i < n; i++) {
            s_enter(&e->c, k, i);
            int rc = s_enc_fields(e, f->sub, elems + (size_t)i * f->size, NULL);
            s_leave(&e->c);
            if (rc < 0)
                return rc;
        }
        return 0;
    }
    }
    return s_fail(&e->c, k, -1, "unknown field kind"); /* unreachable */
}

/* Packs a map of l's fields; a message map (type given) starts with "v" and "t". */
static int s_enc_fields(s_enc_t *e, const s_layout_t *l, const void *base, const char *type)
{
    int rc;
    e->packrc |= msgpack_pack_map(&e->pk, l->n + (type ? 2 : 0));
    if (type) {
        s_put_str(e, "v", 1);
        s_put_u64(e, RB_PROTO_VERSION);
        s_put_str(e, "t", 1);
        s_put_str(e, type, strlen(type));
    }
    for (size_t i = 0; i < l->n; i++) {
        s_put_str(e, l->fields[i].key, strlen(l->fields[i].key));
        if ((rc = s_enc_field(e, &l->fields[i], base)) < 0)
            return rc;
    }
    return l->check ? l->check(&e->c, base) : 0;
}

int rb_msg_encode(const rb_msg_t *m, void **buf, size_t *len, rb_err_t *err)
{
    *buf = NULL;
    *len = 0;
    if (!m || m->type <= RB_MSG_NONE || m->type >= RB_MSG_COUNT)
        return rb_err_set(err, -EINVAL, "cannot encode a message of unknown type %d",
                          m ? (int)m->type : -1);

    s_enc_t e = {.c = {.err = err, .type = s_type_names[m->type], .code = -EINVAL}};
    const s_layout_t *l = s_bodies[m->type];
    msgpack_sbuffer_init(&e.sb);
    msgpack_packer_init(&e.pk, &e.sb, msgpack_sbuffer_write);

    int rc = s_enc_fields(&e, l, &m->u, e.c.type);
    if (rc == 0 && e.packrc)
        rc = s_nomem(&e.c);
    if (rc == 0 && e.sb.size > RB_PROTO_MAX_FRAME)
        rc = rb_err_set(err, -EMSGSIZE, "%s: frame of %zu bytes exceeds the limit of %u bytes",
                        e.c.type, e.sb.size, RB_PROTO_MAX_FRAME);
    if (rc < 0) {
        msgpack_sbuffer_destroy(&e.sb);
        return rc;
    }
    *len = e.sb.size;
    *buf = msgpack_sbuffer_release(&e.sb);
    return 0;
}

/* ---- decoding ---- */

#define S_SCAN_DEPTH 16 /* nested containers; messages use 5, msgpack-c allows 32 */

/* Walks one msgpack value without building it. msgpack-c allocates a
 * container's declared size before reading its elements, so a 5-byte header
 * announcing 2^32 elements would ask for ~100 GB; here every declared element
 * must fit in the bytes left, which bounds what msgpack-c allocates by the
 * frame size. Nesting deeper than S_SCAN_DEPTH is refused too. Returns the
 * bytes used, or -1 (truncated or invalid) with the offset of the value at fault in *bad. */
static long s_scan(const uint8_t *p, size_t len, size_t *bad)
{
    uint64_t left[S_SCAN_DEPTH + 1] = {1}; /* values still to read per open container */
    uint64_t pending = 1;                  /* sum of left[] */
    int top = 0;                           /* left[0]: the frame, holding one value */
    size_t i = 0, start = 0;               /* read offset; offset of the current value */
    while (top >= 0) {
        if (left[top] == 0) {
            top--;
            continue;
        }
        if (i >= len)
            goto fail;
        start = i;
        uint8_t t = p[i++];
        uint64_t skip = 0, items = 0;
        unsigned nlen = 0; /* bytes of a length or count field */
        unsigned mult = 0; /* 0: the length counts bytes; 1: array elements; 2: map pairs */
        bool container = false;
        left[top]--;
        pending--;
        if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3)
            continue;
        if (t <= 0x8f) {
            items = 2u * (t & 0x0f);
            container = true;
        } else if (t <= 0x9f) {
            items = t & 0x0f;
            container = true;
        } else if (t <= 0xbf) {
            skip = t & 0x1f;
        } else {
            /* clang-format off */
            switch (t) {
            case 0xc4: case 0xd9: nlen = 1; break;            /* bin8, str8 */
            case 0xc5: case 0xda: nlen = 2; break;            /* bin16, str16 */
            case 0xc6: case 0xdb: nlen = 4; break;            /* bin32, str32 */
            case 0xc7: nlen = 1; skip = 1; break;             /* ext8 and its type byte */
            case 0xc8: nlen = 2; skip = 1; break;             /* ext16 */
            case 0xc9: nlen = 4; skip = 1; break;             /* ext32 */
            case 0xcc: case 0xd0: skip = 1; break;            /* 8-bit integers */
            case 0xcd: case 0xd1: skip = 2; break;            /* 16-bit integers */
            case 0xca: case 0xce: case 0xd2: skip = 4; break; /* 32-bit numbers */
            case 0xcb: case 0xcf: case 0xd3: skip = 8; break; /* 64-bit numbers */
            case 0xd4: skip = 2; break;                       /* fixext 1..16 with type */
            case 0xd5: skip = 3; break;
            case 0xd6: skip = 5; break;
            case 0xd7: skip = 9; break;
            case 0xd8: skip = 17; break;
            case 0xdc: nlen = 2; mult = 1; break;             /* array16 */
            case 0xdd: nlen = 4; mult = 1; break;             /* array32 */
            case 0xde: nlen = 2; mult = 2; break;             /* map16 */
            case 0xdf: nlen = 4; mult = 2; break;             /* map32 */
            default: goto fail;                               /* 0xc1 is never used */
            }
            /* clang-format on */
        }
        if (nlen) {
            if (len - i < nlen)
                goto fail;
            uint64_t n = 0;
            for (unsigned j = 0; j < nlen; j++)
                n = n << 8 | p[i++];
            if (mult) {
                items = n * mult;
                container = true;
            } else {
                skip += n;
            }
        }
        if (skip > len - i)
            goto fail;
        i += (size_t)skip;
        if (container) {
            if (top >= S_SCAN_DEPTH)
                goto fail;
            left[++top] = items;
            pending += items;
            if (pending > len - i) /* each value takes at least one byte */
                goto fail;
        }
    }
    return (long)i;
fail:
    *bad = start;
    return -1;
}

static const char *s_what(const msgpack_object *o)
{
    switch (o->type) {
    case MSGPACK_OBJECT_NIL:
        return "nil";
    case MSGPACK_OBJECT_BOOLEAN:
        return "boolean";
    case MSGPACK_OBJECT_POSITIVE_INTEGER:
        return "unsigned integer";
    case MSGPACK_OBJECT_NEGATIVE_INTEGER:
        return "negative integer";
    case MSGPACK_OBJECT_FLOAT32:
    case MSGPACK_OBJECT_FLOAT64:
        return "float";
    case MSGPACK_OBJECT_STR:
        return "string";
    case MSGPACK_OBJECT_ARRAY:
        return "array";
    case MSGPACK_OBJECT_MAP:
        return "map";
    case MSGPACK_OBJECT_BIN:
        return "binary";
    case MSGPACK_OBJECT_EXT:
        return "extension";
    }
    return "unknown";
}

/* Value of key in a map (the first if repeated), NULL if absent; *times says how often. */
static const msgpack_object *s_lookup(const msgpack_object *map, const char *key, unsigned *times)
{
    const msgpack_object *val = NULL;
    size_t klen = strlen(key);
    *times = 0;
    for (uint32_t i = 0; i < map->via.map.size; i++) {
        const msgpack_object *k = &map->via.map.ptr[i].key;
        if (k->type == MSGPACK_OBJECT_STR && k->via.str.size == klen &&
            memcmp(k->via.str.ptr, key, klen) == 0 && (*times)++ == 0)
            val = &map->via.map.ptr[i].val;
    }
    return val;
}

/* Value of key in a map; missing or given twice is an error. */
static int s_find(s_ctx_t *c, const msgpack_object *map, const char *key,
                  const msgpack_object **val)
{
    unsigned times;
    *val = s_lookup(map, key, &times);
    if (times > 1)
        return s_fail(c, key, -1, "given %u times", times);
    return *val ? 0 : s_fail(c, key, -1, "missing");
}

static int s_get_uint(s_ctx_t *c, const msgpack_object *o, const char *key, long idx, uint64_t min,
                      uint64_t max, uint64_t *out)
{
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
        return s_fail(c, key, idx, "expected unsigned integer, got %" PRId64, o->via.i64);
    if (o->type != MSGPACK_OBJECT_POSITIVE_INTEGER)
        return s_fail(c, key, idx, "expected unsigned integer, got %s", s_what(o));
    if (o->via.u64 < min || o->via.u64 > max)
        return s_fail_range(c, key, idx, o->via.u64, min, max);
    *out = o->via.u64;
    return 0;
}

static int s_get_int(s_ctx_t *c, const msgpack_object *o, const char *key, int64_t min, int64_t max,
                     int64_t *out)
{
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER && o->via.u64 <= (uint64_t)max)
        *out = (int64_t)o->via.u64;
    else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER && o->via.i64 >= min)
        *out = o->via.i64;
    else if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER)
        return s_fail(c, key, -1, "%" PRIu64 " out of range (max %" PRId64 ")", o->via.u64, max);
    else if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER)
        return s_fail(c, key, -1, "%" PRId64 " out of range (min %" PRId64 ")", o->via.i64, min);
    else
        return s_fail(c, key, -1, "expected integer, got %s", s_what(o));
    return 0;
}

static int s_get_str(s_ctx_t *c, const msgpack_object *o, const char *key, char *dst, size_t cap)
{
    if (o->type != MSGPACK_OBJECT_STR)
        return s_fail(c, key, -1, "expected string, got %s", s_what(o));
    uint32_t n = o->via.str.size;
    if (n >= cap)
        return s_fail(c, key, -1, "string of %" PRIu32 " bytes, longer than its bound of %zu", n,
                      cap - 1);
    if (n && memchr(o->via.str.ptr, '\0', n))
        return s_fail(c, key, -1, "string contains a NUL byte");
    if (n)
        memcpy(dst, o->via.str.ptr, n);
    dst[n] = '\0';
    return 0;
}

static int s_get_array(s_ctx_t *c, const msgpack_object *o, const char *key, uint64_t max,
                       const msgpack_object_array **out)
{
    if (o->type != MSGPACK_OBJECT_ARRAY)
        return s_fail(c, key, -1, "expected array, got %s", s_what(o));
    if (o->via.array.size > max)
        return s_fail(c, key, -1, "%" PRIu32 " entries, more than the bound of %" PRIu64,
                      o->via.array.size, max);
    *out = &o->via.array;
    return 0;
}

static int s_dec_fields(s_ctx_t *c, const s_layout_t *l, const msgpack_object *map, void *base);

static int s_dec_hist(s_ctx_t *c, const s_field_t *f, const msgpack_object *o, rb_hist_t **hp)
{
    rb_hist_t *h = calloc(1, sizeof *h);
    if (!h)
        return s_nomem(c);
    *hp = h; /* owned by the message from now on, freed by rb_msg_fini() on failure too */
    s_enter(c, f->key, -1);
    int rc = s_dec_fields(c, f->sub, o, h);
    s_leave(c);
    return rc;
}

static int s_dec_buckets(s_ctx_t *c, const s_field_t *f, const msgpack_object *o, uint64_t *b)
{
    const msgpack_object_array *a;
    int rc = s_get_array(c, o, f->key, 2 * RB_HIST_NBUCKETS, &a);
    if (rc < 0)
        return rc;
    if (a->size % 2)
        return s_fail(c, f->key, -1, "odd length %" PRIu32 ", expected [index, count] pairs",
                      a->size);
    uint64_t idx, n, prev = 0;
    for (uint32_t i = 0; i < a->size; i += 2) {
        if ((rc = s_get_uint(c, &a->ptr[i], f->key, i, 0, RB_HIST_NBUCKETS - 1, &idx)) < 0 ||
            (rc = s_get_uint(c, &a->ptr[i + 1], f->key, i + 1, 0, UINT64_MAX, &n)) < 0)
            return rc;
        if (i > 0 && idx <= prev)
            return s_fail(c, f->key, i, "bucket index %" PRIu64 " not above the previous %" PRIu64,
                          idx, prev);
        if (n == 0)
            return s_fail(c, f->key, i + 1, "empty bucket %" PRIu64 " listed", idx);
        prev = idx;
        b[idx] = n;
    }
    return 0;
}

static int s_dec_checkpts(s_ctx_t *c, const s_field_t *f, const msgpack_object *o, void *base)
{
    const msgpack_object_array *a;
    int rc = s_get_array(c, o, f->key, f->max, &a);
    if (rc < 0 || a->size == 0)
        return rc;
    rb_checkpt_t *cp = calloc(a->size, sizeof *cp);
    if (!cp)
        return s_nomem(c);
    *(rb_checkpt_t **)s_ptr(base, f) = cp;
    *s_count(base, f) = a->size;
    for (uint32_t i = 0; i < a->size && rc == 0; i++) {
        const msgpack_object *e = &a->ptr[i];
        s_enter(c, f->key, i);
        if (e->type != MSGPACK_OBJECT_ARRAY || e->via.array.size != 2)
            rc = s_fail(c, NULL, -1, "expected [t_ns, bytes], got %s", s_what(e));
        else if ((rc = s_get_uint(c, &e->via.array.ptr[0], "t_ns", -1, 0, UINT64_MAX,
                                  &cp[i].t_ns)) == 0 &&
                 (rc = s_get_uint(c, &e->via.array.ptr[1], "bytes", -1, 0, UINT64_MAX,
                                  &cp[i].bytes)) == 0 &&
                 i > 0 && cp[i].t_ns < cp[i - 1].t_ns)
            rc = s_fail(c, "t_ns", -1, "%" PRIu64 " before the previous checkpoint's %" PRIu64,
                        cp[i].t_ns, cp[i - 1].t_ns);
        s_leave(c);
    }
    return rc;
}

static int s_dec_elems(s_ctx_t *c, const s_field_t *f, const msgpack_object *o, void *base)
{
    const msgpack_object_array *a;
    int rc = s_get_array(c, o, f->key, f->max, &a);
    if (rc < 0)
        return rc;
    char *elems = s_ptr(base, f);
    if (f->kind == S_ARRAY) {
        elems = a->size ? calloc(a->size, f->size) : NULL;
        if (a->size && !elems)
            return s_nomem(c);
        memcpy(s_ptr(base, f), &elems, sizeof elems);
    }
    *s_count(base, f) = a->size; /* before filling, so that a failure frees what was filled */
    for (uint32_t i = 0; i < a->size && rc == 0; i++) {
        s_enter(c, f->key, i);
        rc = s_dec_fields(c, f->sub, &a->ptr[i], elems + (size_t)i * f->size);
        s_leave(c);
    }
    return rc;
}

/* One of the enum's wire names, exactly; anything else is refused with the names allowed. */
static int s_dec_enum(s_ctx_t *c, const s_field_t *f, const msgpack_object *o, void *p)
{
    if (o->type != MSGPACK_OBJECT_STR)
        return s_fail(c, f->key, -1, "expected string, got %s", s_what(o));
    char allowed[160] = "", shown[40];
    size_t used = 0;
    for (unsigned v = 0; v < f->en->n; v++) {
        const char *name = f->en->names[v];
        if (!name)
            continue;
        if (strlen(name) == o->via.str.size && memcmp(name, o->via.str.ptr, o->via.str.size) == 0) {
            memcpy(p, &v, sizeof v);
            return 0;
        }
        if (used < sizeof allowed)
            used += (size_t)snprintf(allowed + used, sizeof allowed - used, "%s\"%s\"",
                                     used ? ", " : "", name);
    }
    return s_fail(c, f->key, -1, "unknown %s '%s%s' (one of %s)", f->en->what,
                  s_printable(shown, sizeof shown, o->via.str.ptr, o->via.str.size),
                  o->via.str.size >= sizeof shown ? "..." : "", allowed);
}

static int s_dec_field(s_ctx_t *c, const s_field_t *f, const msgpack_object *o, void *base)
{
    void *p = s_ptr(base, f);
    uint64_t u;
    int64_t i;
    int rc;
    switch (f->kind) {
    case S_U32:
        if ((rc = s_get_uint(c, o, f->key, -1, f->min, f->max, &u)) == 0)
            *(uint32_t *)p = (uint32_t)u;
        return rc;
    case S_U64:
        return s_get_uint(c, o, f->key, -1, f->min, f->max, (uint64_t *)p);
    case S_ERRNO:
        if ((rc = s_get_int(c, o, f->key, INT32_MIN, 0, &i)) == 0)
            *(int32_t *)p = (int32_t)i;
        return rc;
    case S_I64:
        return s_get_int(c, o, f->key, INT64_MIN, INT64_MAX, (int64_t *)p);
    case S_BOOL:
        if (o->type != MSGPACK_OBJECT_BOOLEAN)
            return s_fail(c, f->key, -1, "expected boolean, got %s", s_what(o));
        *(uint8_t *)p = o->via.boolean ? 1 : 0;
        return 0;
    case S_STR: {
        const char *bad;
        if ((rc = s_get_str(c, o, f->key, p, f->size)) == 0 && (bad = s_str_rule(f, p)))
            rc = s_fail(c, f->key, -1, "%s", bad);
        return rc;
    }
    case S_ENUM:
        return s_dec_enum(c, f, o, p);
    case S_BIN:
        if (o->type != MSGPACK_OBJECT_BIN)
            return s_fail(c, f->key, -1, "expected binary, got %s", s_what(o));
        if (o->via.bin.size > f->max)
            return s_fail(c, f->key, -1, "%" PRIu32 " bytes, more than the bound of %" PRIu64,
                          o->via.bin.size, f->max);
        if (o->via.bin.size)
            memcpy(p, o->via.bin.ptr, o->via.bin.size);
        *s_count(base, f) = o->via.bin.size;
        return 0;
    case S_HIST:
        return s_dec_hist(c, f, o, (rb_hist_t **)p);
    case S_BUCKETS:
        return s_dec_buckets(c, f, o, p);
    case S_CHECKPTS:
        return s_dec_checkpts(c, f, o, base);
    case S_ARRAY:
    case S_INLINE:
        return s_dec_elems(c, f, o, base);
    }
    return s_fail(c, f->key, -1, "unknown field kind"); /* unreachable */
}

static int s_dec_fields(s_ctx_t *c, const s_layout_t *l, const msgpack_object *map, void *base)
{
    if (map->type != MSGPACK_OBJECT_MAP)
        return s_fail(c, NULL, -1, "expected map, got %s", s_what(map));
    for (size_t i = 0; i < l->n; i++) {
        const msgpack_object *v;
        int rc = s_find(c, map, l->fields[i].key, &v);
        if (rc == 0)
            rc = s_dec_field(c, &l->fields[i], v, base);
        if (rc < 0)
            return rc;
    }
    return l->check ? l->check(c, base) : 0;
}

/* Checks "v" and "t" of the message map and sets m->version and m->type. The
 * version comes first: a peer of another version may send types or keys this
 * build does not know, and the user must hear about the version. */
static int s_dec_header(s_ctx_t *c, const msgpack_object *root, rb_msg_t *m)
{
    const msgpack_object *v, *t;
    unsigned times;
    int rc = s_find(c, root, "v", &v);
    if (rc < 0)
        return rc;
    if (v->type != MSGPACK_OBJECT_POSITIVE_INTEGER || v->via.u64 == 0)
        return s_fail(c, "v", -1, "expected a positive integer, got %s", s_what(v));
    t = s_lookup(root, "t", &times);
    for (int i = RB_MSG_NONE + 1; t && t->type == MSGPACK_OBJECT_STR && i < RB_MSG_COUNT; i++) {
        if (strlen(s_type_names[i]) == t->via.str.size &&
            memcmp(s_type_names[i], t->via.str.ptr, t->via.str.size) == 0) {
            m->type = (rb_msg_type_t)i;
            c->type = s_type_names[i];
        }
    }
    if (v->via.u64 != RB_PROTO_VERSION)
        return rb_err_set(
            c->err, -EPROTO, "%s%sprotocol version %" PRIu64 " from peer, this build speaks %d",
            c->type ? c->type : "", c->type ? ": " : "", v->via.u64, RB_PROTO_VERSION);
    if ((rc = s_find(c, root, "t", &t)) < 0)
        return rc;
    if (t->type != MSGPACK_OBJECT_STR)
        return s_fail(c, "t", -1, "expected string, got %s", s_what(t));
    if (!c->type) {
        char name[40];
        return rb_err_set(c->err, -EBADMSG, "message: unknown type '%s'",
                          s_printable(name, sizeof name, t->via.str.ptr, t->via.str.size));
    }
    m->version = RB_PROTO_VERSION;
    return 0;
}

int rb_msg_decode(const void *buf, size_t len, rb_msg_t *m, rb_err_t *err)
{
    memset(m, 0, offsetof(rb_msg_t, u)); /* the body once its type is known */
    if (len > RB_PROTO_MAX_FRAME)
        return rb_err_set(err, -EMSGSIZE, "message: frame of %zu bytes exceeds the limit of %u",
                          len, RB_PROTO_MAX_FRAME);
    if (!buf || len == 0)
        return rb_err_set(err, -EBADMSG, "message: empty frame");
    size_t bad = 0;
    long used = s_scan(buf, len, &bad);
    if (used < 0)
        return rb_err_set(
            err, -EBADMSG,
            "message: malformed, truncated or too deeply nested msgpack at byte %zu of %zu", bad,
            len);
    if ((size_t)used != len)
        return rb_err_set(err, -EBADMSG, "message: %zu trailing bytes after the message",
                          len - (size_t)used);

    msgpack_unpacked u;
    size_t off = 0;
    msgpack_unpacked_init(&u);
    msgpack_unpack_return ur = msgpack_unpack_next(&u, buf, len, &off);
    s_ctx_t c = {.err = err, .code = -EBADMSG};
    int rc;
    if (ur == MSGPACK_UNPACK_NOMEM_ERROR)
        rc = s_nomem(&c);
    else if (ur != MSGPACK_UNPACK_SUCCESS || off != len)
        rc = rb_err_set(err, -EBADMSG, "message: malformed msgpack");
    else if (u.data.type != MSGPACK_OBJECT_MAP)
        rc = rb_err_set(err, -EBADMSG, "message: expected a map, got %s", s_what(&u.data));
    else {
        rc = s_dec_header(&c, &u.data, m);
        if (m->type != RB_MSG_NONE) /* rb_msg_fini frees from it, on failure too */
            memset(&m->u, 0, s_msg_used(m->type) - offsetof(rb_msg_t, u));
        if (rc == 0)
            rc = s_dec_fields(&c, s_bodies[m->type], &u.data, &m->u);
    }
    msgpack_unpacked_destroy(&u);
    if (rc < 0)
        rb_msg_fini(m);
    return rc < 0 ? rc : 0;
}
