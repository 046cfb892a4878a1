/* The rules across a job's options (rb_job_rules.h). */
#include "rb_job_rules.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "rb_units.h"

/* Fills out and returns -EINVAL. */
__attribute__((format(printf, 5, 6))) static int s_broken(rb_job_rule_t *out, const char *field,
                                                          const char *opt0, const char *opt1,
                                                          const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->why, sizeof out->why, fmt, ap);
    va_end(ap);
    out->field = field;
    out->opts[0] = opt0;
    out->opts[1] = opt1;
    return -EINVAL;
}

/* One direction's sizes: within bs..bs_max, each a multiple of bs (offsets
 * are in units of it), a split's weights adding up to 100. */
static int s_dir_sizes(const rb_job_spec_t *j, const char *field, uint64_t lo, uint64_t hi,
                       const rb_bs_part_t *split, uint32_t n, rb_job_rule_t *out)
{
    if (!lo && !hi && !n)
        return 0; /* not given: the direction goes by bs and bs_max */
    char a[32], b[32], c[32];
    const char *dir = field[3] == 'r' ? "reads" : field[3] == 'w' ? "writes" : "trims";
    uint32_t sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (split[i].bs < lo || split[i].bs > hi || (j->bs && split[i].bs % j->bs))
            return s_broken(out, field, "bssplit", NULL,
                            "bssplit size %s of %s is not a multiple of the smallest IO size, %s "
                            "(IOs are placed in units of it)",
                            rb_units_fmt_size_exact(a, sizeof a, split[i].bs), dir,
                            rb_units_fmt_size_exact(c, sizeof c, j->bs));
        sum += split[i].perc;
    }
    if (lo < j->bs || hi < lo || hi > j->bs_max || (j->bs && (lo % j->bs || hi % j->bs)))
        return s_broken(out, field, "bs", "bsrange",
                        "the IO sizes of %s (%s to %s) are not multiples of the smallest IO size, "
                        "%s (IOs are placed in units of it)",
                        dir, rb_units_fmt_size_exact(a, sizeof a, lo),
                        rb_units_fmt_size_exact(b, sizeof b, hi),
                        rb_units_fmt_size_exact(c, sizeof c, j->bs));
    if (n && sum != 100)
        return s_broken(out, field, "bssplit", NULL,
                        "bssplit weights add up to %" PRIu32 ", not 100", sum);
    return 0;
}

/* What holds of any job, whatever its pattern: what the wire decoder checks
 * (its messages name the field, so they do not name the job). */
static int s_any(const rb_job_spec_t *j, rb_job_rule_t *out)
{
    if (j->bs_max < j->bs)
        return s_broken(out, "bs_max", "bsrange", NULL, "%" PRIu64 ", below bs %" PRIu64, j->bs_max,
                        j->bs);
    int rc = s_dir_sizes(j, "bs_read", j->bs_read, j->bs_read_max, j->bssplit_read,
                         j->nbssplit_read, out);
    if (rc == 0)
        rc = s_dir_sizes(j, "bs_write", j->bs_write, j->bs_write_max, j->bssplit_write,
                         j->nbssplit_write, out);
    if (rc == 0)
        rc = s_dir_sizes(j, "bs_trim", j->bs_trim, j->bs_trim_max, NULL, 0, out);
    if (rc < 0)
        return rc;
    if (j->buffer_mode == RB_BUF_PATTERN && j->pattern_len == 0)
        return s_broken(out, "pattern", "buffer_pattern", NULL,
                        "empty, but buffer_mode is \"pattern\"");
    if ((j->rw == RB_RW_META) != (j->meta_op != RB_META_NONE))
        return s_broken(out, "meta_op", "rw", NULL, "%s, but rw is %s",
                        rb_meta_op_name(j->meta_op) ? rb_meta_op_name(j->meta_op) : "none",
                        rb_rw_name(j->rw) ? rb_rw_name(j->rw) : "?");
    if (j->lustre_stripe_count > RB_LUSTRE_STRIPE_MAX &&
        j->lustre_stripe_count != RB_LUSTRE_STRIPE_ALL)
        return s_broken(out, "lustre_stripe_count", "lustre_stripe_count", NULL,
                        "%" PRIu32 ", more than %d", j->lustre_stripe_count, RB_LUSTRE_STRIPE_MAX);
    if (j->nice < -20 || j->nice > 19)
        return s_broken(out, "nice", "nice", NULL, "%" PRId64 ", not within -20 .. 19", j->nice);
    if (j->startdelay_max_ns < j->startdelay_ns)
        return s_broken(out, "startdelay_max_ns", "startdelay", NULL,
                        "%" PRIu64 ", below startdelay_ns %" PRIu64, j->startdelay_max_ns,
                        j->startdelay_ns);
    if (!strcmp(j->ioengine, "mmap") && (j->offset || j->offset_increment || j->offset_pct))
        return s_broken(out, j->offset_increment ? "offset_increment" : "offset",
                        j->offset_increment ? "offset_increment" : "offset", "ioengine",
                        "ioengine=mmap with an offset: fio's mmap engine maps its files from "
                        "their start and puts an IO at its offset less the job's, which "
                        "rackbench does not do; use offset=0 or another engine");
    if (!strcmp(j->ioengine, "mmap") && j->create_on_open && !j->device[0])
        return s_broken(out, "create_on_open", "create_on_open", "ioengine",
                        "ioengine=mmap with create_on_open=1: a mapping cannot reach past the "
                        "end of a file made empty, and fio's mmap engine lays its files out");
    if (!strcmp(j->ioengine, "mmap") && rb_rw_trims(j->rw) && !j->device[0])
        return s_broken(out, "rw", "rw", "ioengine",
                        "ioengine=mmap with rw=%s on a file: fio's mmap engine trims with "
                        "BLKDISCARD, which a file refuses (ENOTTY); it trims only devices",
                        rb_rw_name(j->rw));
    if (!strcmp(j->ioengine, "mmap") && (j->direct || j->fsync_every || j->fdatasync_every) &&
        j->bs % 4096)
        return s_broken(out, "bs", "bs", "ioengine",
                        "ioengine=mmap with direct, fsync or fdatasync needs IO sizes of whole "
                        "pages (4096 bytes), as fio's mmap engine does");
    if (!strcmp(j->ioengine, "mmap") && j->sfr_every)
        return s_broken(out, "sfr_every", "sync_file_range", "ioengine",
                        "ioengine=mmap with sync_file_range: fio's mmap engine syncs its "
                        "mapping with msync instead; use fsync or another engine");
    if (j->iodepth > 1 && !strcmp(j->ioengine, "vsync"))
        return s_broken(out, "iodepth", "iodepth", "ioengine",
                        "iodepth=%" PRIu32 " with ioengine=vsync: fio's vsync merges up to iodepth "
                        "adjacent IOs into one call, which rackbench does not yet; use iodepth=1 "
                        "(one IO a call, as here) or ioengine=psync",
                        j->iodepth);
    if (j->iodepth > 1 && !strcmp(j->ioengine, "posixaio") && j->sfr_every)
        return s_broken(out, "sfr_every", "sync_file_range", "iodepth",
                        "sync_file_range with ioengine=posixaio and iodepth=%" PRIu32
                        ": fio queues syncs in the free slots, which rackbench does not; use "
                        "iodepth=1 or another engine",
                        j->iodepth);
    if (j->iodepth > 1 && !strcmp(j->ioengine, "posixaio") &&
        (j->fsync_every || j->fdatasync_every)) {
        const char *opt = j->fsync_every ? "fsync" : "fdatasync";
        return s_broken(out, j->fsync_every ? "fsync_every" : "fdatasync_every", opt, "iodepth",
                        "%s=%" PRIu32 " with ioengine=posixaio and iodepth=%" PRIu32
                        ": fio queues an aio_fsync in every free slot once the N-th write is "
                        "issued (up to iodepth syncs each time), which rackbench does not; use "
                        "iodepth=1 (one sync each time, as here) or another engine",
                        opt, j->fsync_every ? j->fsync_every : j->fdatasync_every, j->iodepth);
    }
    if (j->ss_dur_ns % 1000000000ull || j->ss_dur_ns / 1000000000ull > RB_SS_DUR_MAX_S)
        return s_broken(out, "ss_dur_ns", "steadystate_duration", NULL,
                        "%" PRIu64 ", not a whole number of seconds up to %u", j->ss_dur_ns,
                        RB_SS_DUR_MAX_S);
    if (j->ss_dur_ns && !rb_steady_metric_name((rb_ss_metric_t)j->ss_metric))
        return s_broken(out, "ss_metric", "steadystate", NULL, "%" PRIu32 ", no criterion",
                        j->ss_metric);
    if (j->lat_target_ns && !j->lat_window_ns)
        return s_broken(out, "lat_window_ns", "latency_target", "latency_window",
                        "latency_target without latency_window (the time each depth is judged "
                        "over; fio divides by the IOs of an empty window)");
    if (j->lat_pct > RB_LAT_PCT_MAX)
        return s_broken(out, "lat_pct", "latency_percentile", NULL,
                        "%" PRIu32 " millionths of a percent, above 100%%", j->lat_pct);
    if (j->lustre_stripe_size % 65536)
        return s_broken(out, "lustre_stripe_size", "lustre_stripe_size", NULL,
                        "%" PRIu64 ", not a multiple of 64 KiB", j->lustre_stripe_size);
    return 0;
}

/* A metadata step: a set of files, flat directories or a tree. */
static int s_meta(const rb_job_spec_t *j, rb_job_rule_t *out)
{
    if (!j->meta_files)
        return s_broken(out, "meta_files", NULL, NULL,
                        "job '%s' has no meta_files (files per worker, required for rw=meta)",
                        j->name);
    if (j->meta_dirs > 1 && j->meta_depth > 0)
        return s_broken(out, "meta_depth", "meta_dirs", "meta_depth",
                        "job '%s': meta_dirs=%" PRIu32 " and meta_depth=%" PRIu32
                        " together (flat directories or a tree, not both)",
                        j->name, j->meta_dirs, j->meta_depth);
    if (j->meta_shared && (j->meta_dirs > 1 || j->meta_depth > 0))
        return s_broken(out, "meta_shared", j->meta_dirs > 1 ? "meta_dirs" : "meta_depth",
                        "meta_shared_dir",
                        "job '%s': meta_shared_dir puts every file in one shared directory: no "
                        "meta_dirs or meta_depth with it",
                        j->name);
    if (j->read_shift && !rb_meta_op_looks(j->meta_op) && j->meta_op != RB_META_NONE)
        return s_broken(out, "read_shift", "read_from", NULL,
                        "job '%s': read_from is for stat, read and statdir steps, not %s", j->name,
                        rb_meta_op_name(j->meta_op));
    if (j->stonewall_ns && !rb_meta_op_creates(j->meta_op) && j->meta_op != RB_META_NONE)
        return s_broken(out, "stonewall_ns", "meta_stonewall", NULL,
                        "job '%s': meta_stonewall is for create and mkdir steps, not %s", j->name,
                        rb_meta_op_name(j->meta_op));
    return 0;
}

/* offset_increment: the last worker's region must end within a file's
 * largest offset; verified blocks must fall where the layout stamps them. */
static int s_increment(const rb_job_spec_t *j, rb_job_rule_t *out)
{
    char a[64], b[64];
    uint64_t inc = j->offset_increment, k = j->numjobs > 1 ? j->numjobs - 1 : 0;
    uint64_t room = (uint64_t)INT64_MAX - (j->size < (uint64_t)INT64_MAX ? j->size : INT64_MAX);
    if (!inc)
        return 0;
    if (j->offset > room || (k && inc > (room - j->offset) / k))
        return s_broken(out, "offset_increment", "offset_increment", "numjobs",
                        "job '%s': offset %s + offset_increment %s × %" PRIu64
                        " workers + size goes past the largest file offset",
                        j->name, rb_units_fmt_size_exact(a, sizeof a, j->offset),
                        rb_units_fmt_size_exact(b, sizeof b, inc), k);
    if (j->verify != RB_VERIFY_NONE && j->bs && inc % j->bs)
        return s_broken(out, "offset_increment", "offset_increment", "verify",
                        "job '%s': with verify, offset_increment %s must be a multiple of bs %s",
                        j->name, rb_units_fmt_size_exact(a, sizeof a, inc),
                        rb_units_fmt_size_exact(b, sizeof b, j->bs));
    return 0;
}

/* unlink and unlink_each_loop remove the job's own files, one node's. */
static int s_unlink(const rb_job_spec_t *j, rb_job_rule_t *out)
{
    const char *opt = j->unlink_each_loop ? "unlink_each_loop" : "unlink";
    if (!j->unlink && !j->unlink_each_loop)
        return 0;
    if (j->shared_file)
        return s_broken(out, j->unlink_each_loop ? "unlink_each_loop" : "unlink", opt,
                        "file_per_worker",
                        "job '%s': %s removes a node's own files; the shared file of "
                        "file_per_worker=0 is removed by node 0 at the end of the run",
                        j->name, opt);
    if (j->read_shift)
        return s_broken(out, j->unlink_each_loop ? "unlink_each_loop" : "unlink", opt, "read_from",
                        "job '%s': %s removes the job's own files, but read_from reads another "
                        "node's",
                        j->name, opt);
    if (j->unlink_each_loop && !rb_rw_writes(j->rw) && j->loops > 1 && !j->time_based)
        return s_broken(out, "unlink_each_loop", "unlink_each_loop", "loops",
                        "job '%s': unlink_each_loop removes the files rw=%s reads before its next "
                        "loop (fio fails there: the file is gone); it is for jobs that write",
                        j->name, rb_rw_name(j->rw));
    if (j->unlink_each_loop && (j->rw == RB_RW_RW || j->rw == RB_RW_RANDRW))
        return s_broken(out, "unlink_each_loop", "unlink_each_loop", "rw",
                        "job '%s': unlink_each_loop with a mixed pattern (rw=%s) is not "
                        "supported yet",
                        j->name, rb_rw_name(j->rw));
    return 0;
}

/* Block sizes within the files, and time_based with a runtime. */
static int s_sizes(const rb_job_spec_t *j, rb_job_rule_t *out)
{
    char a[64], b[64], c[64];
    const char *what = j->bs_max == j->bs ? "bs" : "the largest bsrange block";
    rb_units_fmt_size_exact(a, sizeof a, j->bs_max);
    /* the size of its devices, or of the file an earlier phase writes: the
     * agent checks there */
    if ((!j->size && j->device[0]) || rb_job_file_sized(j))
        return j->time_based && j->runtime_ns == 0
                   ? s_broken(out, "runtime_ns", NULL, NULL, "job '%s': time_based needs a runtime",
                              j->name)
                   : s_increment(j, out);
    if (j->bs_max > j->size)
        return s_broken(out, "bs_max", NULL, NULL, "job '%s': %s %s is larger than size %s",
                        j->name, what, a, rb_units_fmt_size_exact(b, sizeof b, j->size));
    if (j->filesize && j->bs_max > j->filesize)
        return s_broken(out, "bs_max", NULL, NULL, "job '%s': %s %s is larger than filesize %s",
                        j->name, what, a, rb_units_fmt_size_exact(b, sizeof b, j->filesize));
    if (!j->filesize && j->nrfiles && j->bs_max > j->size / j->nrfiles)
        return s_broken(out, "bs_max", NULL, NULL,
                        "job '%s': %s %s is larger than each file (size %s / nrfiles %" PRIu32
                        " = %s)",
                        j->name, what, a, rb_units_fmt_size_exact(b, sizeof b, j->size), j->nrfiles,
                        rb_units_fmt_size_exact(c, sizeof c, j->size / j->nrfiles));
    if (j->time_based && j->runtime_ns == 0)
        return s_broken(out, "runtime_ns", NULL, NULL, "job '%s': time_based needs a runtime",
                        j->name);
    return s_increment(j, out);
}

/* An option a kind of job does not go with: its field, option and words. */
typedef struct {
    const char *field, *opt, *what;
} s_not_t;

/* The first of the n options that is set (set[i] not 0), or -1. */
static int s_first_set(const uint64_t *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (set[i])
            return (int)i;
    return -1;
}

/* Raw block devices (filename=/dev/X): nothing that makes, removes or
 * stripes files, and no file shared across nodes. */
static int s_device(const rb_job_spec_t *j, rb_job_rule_t *out)
{
    static const s_not_t no[] = {
        {"shared_file", "file_per_worker", "file_per_worker=0 (one file for every node)"},
        {"read_shift", "read_from", "read_from (another node's files)"},
        {"unlink", "unlink", "unlink (a device is never removed)"},
        {"unlink_each_loop", "unlink_each_loop", "unlink_each_loop (a device is never removed)"},
        {"lustre_stripe_count", "lustre_stripe_count", "Lustre striping"},
        {"lustre_stripe_size", "lustre_stripe_size", "Lustre striping"},
    };
    uint64_t set[] = {j->shared_file,      j->read_shift,          j->unlink,
                      j->unlink_each_loop, j->lustre_stripe_count, j->lustre_stripe_size};
    int i = j->device[0] ? s_first_set(set, sizeof set / sizeof set[0]) : -1;
    return i < 0 ? 0
                 : s_broken(out, no[i].field, no[i].opt, "filename",
                            "job '%s': filename=%.64s names block devices, which do not go with "
                            "%s",
                            j->name, j->device, no[i].what);
}

/* Across nodes: a shared file (IOR's N-1), whose data a read gets, stonewalling. */
static int s_across(const rb_job_spec_t *j, rb_job_rule_t *out)
{
    char a[64], b[64];
    uint64_t t = j->transfer ? j->transfer : j->bs;
    if (j->read_shift && (!rb_rw_reads(j->rw) || rb_rw_writes(j->rw)))
        return s_broken(out, "read_shift", "read_from", NULL,
                        "job '%s': read_from is for jobs that only read (rw=%s writes)", j->name,
                        rb_rw_name(j->rw));
    if (j->wearout && !j->stonewall_ns)
        return s_broken(out, "wearout", "wearout", NULL, "job '%s': wearout needs stonewall_time",
                        j->name);
    int rc = s_unlink(j, out);
    if (rc < 0)
        return rc;
    if (j->shared_file && j->offset_increment)
        return s_broken(out, "offset_increment", "offset_increment", "file_per_worker",
                        "job '%s': offset_increment places the workers of a job in their files; "
                        "those of file_per_worker=0 have their regions by layout=",
                        j->name);
    if (!j->shared_file) {
        if (j->layout != RB_LAYOUT_SEGMENTED)
            return s_broken(out, "layout", "layout", NULL,
                            "job '%s': layout= is the layout of a shared file (file_per_worker=0)",
                            j->name);
        if (j->transfer)
            return s_broken(out, "transfer", "transfer", NULL,
                            "job '%s': transfer= is the piece size of a strided shared file "
                            "(file_per_worker=0, layout=strided)",
                            j->name);
        return 0;
    }
    if (j->filename[0])
        return s_broken(out, "filename", "filename", "file_per_worker",
                        "job '%s': file_per_worker=0 makes one file for all workers of all nodes; "
                        "filename= names a file per node (use one or the other)",
                        j->name);
    if (j->nrfiles != 1)
        return s_broken(out, "nrfiles", "nrfiles", "file_per_worker",
                        "job '%s': file_per_worker=0 makes one file: nrfiles must be 1", j->name);
    if (j->layout == RB_LAYOUT_STRIDED) {
        if (j->bs_max != j->bs || !j->bs || t % j->bs)
            return s_broken(out, "transfer", "transfer", NULL,
                            "job '%s': a strided layout needs one block size dividing transfer "
                            "(transfer %s, bs %s)",
                            j->name, rb_units_fmt_size_exact(a, sizeof a, t),
                            rb_units_fmt_size_exact(b, sizeof b, j->bs));
        if (j->size % t)
            return s_broken(out, "transfer", "transfer", NULL,
                            "job '%s': size %s per worker is not a whole number of transfer=%s "
                            "pieces",
                            j->name, rb_units_fmt_size_exact(a, sizeof a, j->size),
                            rb_units_fmt_size_exact(b, sizeof b, t));
    } else if (j->transfer) {
        return s_broken(out, "transfer", "transfer", NULL,
                        "job '%s': transfer= is the piece size of layout=strided (this job is "
                        "segmented)",
                        j->name);
    }
    return 0;
}

/* Trims (rw=trim, randtrim, trimwrite, randtrimwrite): what rackbench does
 * not do with them yet, and what they cannot go with. */
static int s_trims(const rb_job_spec_t *j, rb_job_rule_t *out)
{
    if (!rb_rw_trims(j->rw))
        return 0;
    if (j->verify != RB_VERIFY_NONE)
        return s_broken(out, "verify", "verify", "rw",
                        "job '%s': verify with rw=%s is not supported yet (fio's trim_verify_* "
                        "options neither)",
                        j->name, rb_rw_name(j->rw));
    if (j->rate || j->rate_write || j->rate_iops || j->rate_iops_write)
        return s_broken(out, j->rate || j->rate_write ? "rate" : "rate_iops",
                        j->rate || j->rate_write ? "rate" : "rate_iops", "rw",
                        "job '%s': rate and rate_iops with rw=%s are not supported yet (trims "
                        "have no cap of their own here)",
                        j->name, rb_rw_name(j->rw));
    if (j->rate_min || j->rate_min_write || j->rate_iops_min || j->rate_iops_min_write)
        return s_broken(out, j->rate_min || j->rate_min_write ? "rate_min" : "rate_iops_min",
                        j->rate_min || j->rate_min_write ? "rate_min" : "rate_iops_min", "rw",
                        "job '%s': rate_min and rate_iops_min with rw=%s are not supported yet "
                        "(trims have no floor of their own here)",
                        j->name, rb_rw_name(j->rw));
    if (j->shared_file || j->read_shift)
        return s_broken(out, j->shared_file ? "shared_file" : "read_shift",
                        j->shared_file ? "file_per_worker" : "read_from", "rw",
                        "job '%s': rw=%s trims a node's own files or devices: no %s with it",
                        j->name, rb_rw_name(j->rw),
                        j->shared_file ? "file_per_worker=0" : "read_from");
    return 0;
}

/* rate_min and rate_iops_min: a floor above its direction's cap could never
 * be met, which fio refuses before it runs. */
static int s_rate_floors(const rb_job_spec_t *j, rb_job_rule_t *out)
{
    const struct {
        uint64_t floor, cap;
        const char *field, *opt, *cap_opt, *dir;
    } f[] = {
        {j->rate_min, j->rate, "rate_min", "rate_min", "rate", "reads"},
        {j->rate_min_write, j->rate_write, "rate_min_write", "rate_min", "rate", "writes"},
        {j->rate_iops_min, j->rate_iops, "rate_iops_min", "rate_iops_min", "rate_iops", "reads"},
        {j->rate_iops_min_write, j->rate_iops_write, "rate_iops_min_write", "rate_iops_min",
         "rate_iops", "writes"},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].cap && f[i].floor > f[i].cap)
            return s_broken(out, f[i].field, f[i].opt, f[i].cap_opt,
                            "job '%s': %s of %s (%" PRIu64 "/s) exceeds %s (%" PRIu64
                            "/s): the minimum could never be met",
                            j->name, f[i].opt, f[i].dir, f[i].floor, f[i].cap_opt, f[i].cap);
    return 0;
}

/* verify: verify_backlog on writes and mixes, not where a block written
 * again may be read back in flight; the header fits its interval, which divides the block; the
 * header moved by verify_offset stays whole and apart from where it was;
 * verify=pattern has a pattern, and %o has a verify to serve. */
static int s_verify(const rb_job_spec_t *j, rb_job_rule_t *out)
{
    char a[32], b[32];
    const char *m = rb_verify_name(j->verify);
    uint32_t hl = rb_verify_hdr_len(j->verify);
    uint64_t unit = j->verify_interval ? j->verify_interval : j->bs;
    if (j->pattern_ofs && j->verify == RB_VERIFY_NONE)
        return s_broken(out, "pattern_ofs", "verify_pattern", "verify",
                        "job '%s': verify_pattern's %%o is the offset verify checks, but verify=0",
                        j->name);
    int vb = j->verify_backlog && j->verify != RB_VERIFY_NONE && j->do_verify;
    if (vb && rb_rw_writes(j->rw) && j->rw != RB_RW_WRITE && j->rw != RB_RW_RANDWRITE &&
        j->rw != RB_RW_RW && j->rw != RB_RW_RANDRW)
        return s_broken(out, "verify_backlog", "verify_backlog", "rw",
                        "job '%s': verify_backlog with rw=%s is not supported yet (only with "
                        "write, randwrite, rw or randrw)",
                        j->name, rb_rw_name(j->rw));
    if (vb && j->iodepth > 1 && j->norandommap && rb_rw_random(j->rw))
        return s_broken(out, "verify_backlog", "verify_backlog", "norandommap",
                        "job '%s': verify_backlog with norandommap at iodepth above 1 is not "
                        "supported yet (a block written again could be read back while its new "
                        "write is in flight)",
                        j->name);
    if (j->verify == RB_VERIFY_PATTERN && (j->buffer_mode != RB_BUF_PATTERN || !j->pattern_len))
        return s_broken(out, "verify", "verify", NULL,
                        "job '%s': verify=pattern needs verify_pattern (the bytes to check)",
                        j->name);
    if (!hl)
        return 0;
    if (j->verify_interval && (j->verify_interval > j->bs || j->bs % j->verify_interval))
        return s_broken(out, "verify_interval", "verify_interval", "bs",
                        "job '%s': verify_interval %s must divide bs %s", j->name,
                        rb_units_fmt_size_exact(a, sizeof a, j->verify_interval),
                        rb_units_fmt_size_exact(b, sizeof b, j->bs));
    if (unit < hl)
        return s_broken(out, "verify", "verify", j->verify_interval ? "verify_interval" : "bs",
                        "job '%s': verify=%s writes a %" PRIu32 "-byte header in every %s, but "
                        "it is %s",
                        j->name, m, hl, j->verify_interval ? "verify_interval" : "block",
                        rb_units_fmt_size_exact(a, sizeof a, unit));
    if (j->verify_offset && (j->verify_offset < hl || j->verify_offset > unit - hl))
        return s_broken(out, "verify_offset", "verify_offset", NULL,
                        "job '%s': verify_offset %s: the %" PRIu32 "-byte header of verify=%s "
                        "must move to %" PRIu32 " .. %s bytes into its %s",
                        j->name, rb_units_fmt_size_exact(a, sizeof a, j->verify_offset), hl, m, hl,
                        rb_units_fmt_size_exact(b, sizeof b, unit - hl),
                        j->verify_interval ? "interval" : "block");
    return 0;
}

/* A directory list ("/a:/b", fio's): each worker's files in one of them;
 * not yet what shares or looks across them. */
static int s_dirs(const rb_job_spec_t *j, rb_job_rule_t *out)
{
    if (!strchr(j->directory, ':'))
        return 0;
    const char *what = j->rw == RB_RW_META ? "rw=meta"
                       : j->shared_file    ? "file_per_worker=0"
                       : j->read_shift     ? "read_from"
                                           : NULL;
    if (what)
        return s_broken(out, "directory", "directory", NULL,
                        "job '%s': a list of directories (%.64s) with %s is not supported yet",
                        j->name, j->directory, what);
    return 0;
}

/* fill_device: sequential writes to the job's own files, until ENOSPC;
 * ioscheduler: of the job's devices. */
static int s_fill(const rb_job_spec_t *j, rb_job_rule_t *out)
{
    if (j->ioscheduler[0] && !j->device[0])
        return s_broken(out, "ioscheduler", "ioscheduler", "filename",
                        "job '%s': ioscheduler=%s sets the scheduler of the job's block devices "
                        "(filename=/dev/X); for files it is not supported yet",
                        j->name, j->ioscheduler);
    if (!j->fill_device)
        return 0;
    if (j->rw != RB_RW_WRITE)
        return s_broken(out, "fill_device", "fill_device", "rw",
                        "job '%s': fill_device with rw=%s is not supported yet (only rw=write: "
                        "sequential writes until the file system is full)",
                        j->name, rb_rw_name(j->rw));
    if (j->shared_file)
        return s_broken(out, "fill_device", "fill_device", "file_per_worker",
                        "job '%s': fill_device with file_per_worker=0 is not supported yet",
                        j->name);
    return 0;
}

/* A file that is there before the run (existing): read in place, never
 * written, removed or shared with other nodes' workers. */
static int s_existing(const rb_job_spec_t *j, rb_job_rule_t *out)
{
    static const s_not_t no[] = {
        {"unlink", "unlink", "unlink (the agent removes only files it made)"},
        {"unlink_each_loop", "unlink_each_loop", "unlink_each_loop (the same)"},
        {"shared_file", "file_per_worker", "file_per_worker=0"},
        {"read_shift", "read_from", "read_from (another node's files)"},
    };
    uint64_t set[] = {j->unlink, j->unlink_each_loop, j->shared_file, j->read_shift};
    if (!j->existing)
        return 0;
    if (rb_rw_writes(j->rw) || rb_rw_trims(j->rw) || j->device[0] || !j->filename[0])
        return s_broken(out, "existing", NULL, "rw",
                        "job '%s': a file that is there before the run is only read (rw=%s), "
                        "by name",
                        j->name, rb_rw_name(j->rw));
    int i = s_first_set(set, sizeof set / sizeof set[0]);
    return i < 0 ? 0
                 : s_broken(out, no[i].field, no[i].opt, "size",
                            "job '%s' reads its file %s as it is (no size=), which does not go "
                            "with %s",
                            j->name, j->filename, no[i].what);
}

/* A network job (network=): streams between the run's nodes, no files. */
static int s_net(const rb_job_spec_t *j, rb_job_rule_t *out)
{
    if (j->network > RB_NET_BISECTION)
        return s_broken(out, "network", "network", NULL, "job '%s': no such pattern", j->name);
    if (j->rw != RB_RW_READ && j->rw != RB_RW_WRITE && j->rw != RB_RW_RW)
        return s_broken(out, "rw", "rw", "network",
                        "job '%s': a network job streams one way (rw=write or read) or both "
                        "ways (rw=rw), not rw=%s",
                        j->name, rb_rw_name(j->rw) ? rb_rw_name(j->rw) : "?");
    if ((j->network == RB_NET_INCAST) != (j->net_target[0] != '\0'))
        return s_broken(out, "net_target", "net_target", "network",
                        j->network == RB_NET_INCAST
                            ? "job '%s': network=incast needs net_target=NODE, the node every "
                              "other one streams to"
                            : "job '%s': net_target is the node of network=incast",
                        j->name);
    if (!j->numjobs || j->numjobs > RB_NET_STREAMS_MAX)
        return s_broken(out, "numjobs", "numjobs", "network",
                        "job '%s': numjobs=%" PRIu32 " streams a link: 1 to %d", j->name,
                        j->numjobs, RB_NET_STREAMS_MAX);
    if (!j->bs || j->bs > RB_NET_MSG_MAX || j->bs_max != j->bs)
        return s_broken(out, "bs", "bs", "network",
                        "job '%s': a network job's message is one bs of 1 byte to 16 MiB", j->name);
    if (!j->size && !j->runtime_ns)
        return s_broken(
            out, "size", "size", "runtime",
            "job '%s': a network job needs size= (bytes a stream sends) or runtime=", j->name);
    if (j->ramp_ns || j->stonewall_ns)
        return s_broken(out, j->ramp_ns ? "ramp_ns" : "stonewall_ns",
                        j->ramp_ns ? "ramp_time" : "stonewall_time", "network",
                        "job '%s': a network job counts from its first byte: no %s (not yet)",
                        j->name, j->ramp_ns ? "ramp_time" : "stonewall_time");
    if (j->filename[0] || j->device[0] || j->verify || j->shared_file || j->rate || j->rate_write)
        return s_broken(out, "network", "network", NULL,
                        "job '%s': a network job has no files, devices, verify or rates (not "
                        "yet)",
                        j->name);
    return 0;
}

int rb_job_rules_check_wire(const rb_job_spec_t *js, rb_job_rule_t *out)
{
    memset(out, 0, sizeof *out);
    return s_any(js, out);
}

int rb_job_rules_check(const rb_job_spec_t *js, rb_job_rule_t *out)
{
    memset(out, 0, sizeof *out);
    int rc = s_any(js, out);
    if (rc == 0)
        rc = s_dirs(js, out);
    if (rc == 0 && (js->read_seed || js->read_reseed) && js->read_shift != RB_READ_RANDOM)
        rc = s_broken(out, "read_seed", "read_from_seed", "read_from",
                      "job '%s': read_from_seed is the seed of read_from=random", js->name);
    if (rc == 0 && js->network)
        return s_net(js, out);
    if (rc == 0 && js->rw == RB_RW_META)
        return s_meta(js, out);
    if (rc == 0)
        rc = s_device(js, out);
    if (rc == 0)
        rc = s_trims(js, out);
    if (rc == 0)
        rc = s_sizes(js, out);
    if (rc == 0)
        rc = s_verify(js, out);
    if (rc == 0)
        rc = s_rate_floors(js, out);
    if (rc == 0)
        rc = s_across(js, out);
    if (rc == 0)
        rc = s_fill(js, out);
    if (rc == 0)
        rc = s_existing(js, out);
    return rc;
}
