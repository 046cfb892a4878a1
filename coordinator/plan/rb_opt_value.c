/* The value readers of the job-option table's RB_OPT_CUSTOM rows: values
 * that are more than a size, a duration, a number, a boolean or a name
 * (fio's patterns, ranges, file names, lists), and options whose value
 * sets more than one field. Each reads into a job's settings (rb_plan_job_t)
 * and names the plan's line when it refuses a value. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "rb_engine_info.h"
#include "rb_plan_int.h"
#include "rb_units.h"
#include "rb_names.h"

#define S_RW_LIST                                                                                  \
    "read, write, randread, randwrite, rw, readwrite, randrw, rewrite, reread, trim, randtrim, "   \
    "trimwrite, randtrimwrite, meta"
#define S_META_OP_LIST                                                                             \
    "create, stat, read, write, rename, delete, mkdir, statdir, rmdir, mktree, rmtree, find"
#define S_MIN_INTERVAL_NS (100ull * 1000000ull)
#define S_MAX_INTERVAL_NS (3600ull * 1000000000ull)

/* fio access patterns rackbench does not run. */
static const char *const s_fio_rw_other[] = {"filecreate", "filestat", "filedelete"};

static bool s_in_list(const char *const *list, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(list[i], key))
            return true;
    return false;
}

int rb_opt_whole(const char *val, long long lo, long long hi, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(val, &end, 10);
    if (errno || end == val || *end || v < lo || v > hi)
        return -EINVAL;
    *out = v;
    return 0;
}

int rb_opt_hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* randseed: decimal or 0x hexadecimal, any 64-bit value. */
static int s_seed_value(rb_plan_parser_t *ps, unsigned line, const char *key, const char *val,
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
        return rb_plan_fail(ps, line, "bad number '%.64s' for %s", val, key);
    for (; *c; c++) {
        int d = rb_opt_hexval(*c);
        if (d < 0 || (unsigned)d >= base)
            return rb_plan_fail(
                ps, line, "bad number '%.64s' for %s (decimal, or hexadecimal with 0x)", val, key);
        if (n > (UINT64_MAX - (uint64_t)d) / base)
            return rb_plan_fail(ps, line, "%s=%.64s is too large", key, val);
        n = n * base + (uint64_t)d;
    }
    *out = n;
    return 0;
}

int rb_opt_value_rw(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *key,
                    const char *val, unsigned line)
{
    o->spec.seq_add = o->spec.seq_back = o->spec.seq_nr = 0; /* a later rw= starts over */
    for (size_t i = 0; i < opt->nnames; i++) {
        if (!strcmp(opt->names[i].name, val)) {
            o->spec.rw = (rb_rw_t)opt->names[i].value;
            return 0;
        }
    }
    /* fio's "randread:8" / "write:4k" offset modifier */
    if (strchr(val, ':'))
        return rb_opt_value_rw_modifier(ps, o, opt, key, val, line);
    if (s_in_list(s_fio_rw_other, sizeof s_fio_rw_other / sizeof s_fio_rw_other[0], val))
        return rb_plan_fail(ps, line, "%s=%.64s is not supported yet (%s)", key, val, S_RW_LIST);
    return rb_plan_fail(ps, line, "bad value '%.64s' for %s (%s)", val, key, S_RW_LIST);
}

/* fio's sync=: none/0, sync/1, dsync, and the booleans of older fio. */
static int s_sync_value(rb_plan_parser_t *ps, unsigned line, const char *key, const char *val,
                        rb_sync_mode_t *out)
{
    int b = 0;
    if (!strcmp(val, "none")) {
        *out = RB_SYNC_NONE;
    } else if (!strcmp(val, "sync")) {
        *out = RB_SYNC_SYNC;
    } else if (!strcmp(val, "dsync")) {
        *out = RB_SYNC_DSYNC;
    } else if (rb_units_parse_bool(val, &b) == 0) {
        *out = b ? RB_SYNC_SYNC : RB_SYNC_NONE;
    } else {
        return rb_plan_fail(ps, line, "bad value '%.64s' for %s (none, sync, dsync, 0 or 1)", val,
                            key);
    }
    return 0;
}

/* 1 if filename= names raw block devices: "@devices", or a path (or the
 * first of a ':' list) under /dev/. */
static int s_names_device(const char *val)
{
    return !strcmp(val, RB_DEVICES_ALL) || !strncmp(val, "/dev/", 5);
}

/* A filename= that fio would not put below directory= while the job has
 * one: the problem, naming both lines. */
static int s_directory_too(rb_plan_parser_t *ps, const rb_plan_job_t *o, unsigned line,
                           const char *key, const char *val, const char *what)
{
    return rb_plan_fail(ps, line,
                        "%s=%.64s %s but the job also has directory=%.64s (line %u), which fio "
                        "would put in front of it: give one of them (directory= empty clears it)",
                        key, val, what, o->spec.directory, rb_plan_job_line(o, "directory"));
}

/* filename=/dev/X[:/dev/Y...] or filename=@devices: raw block devices, each
 * an absolute path under /dev/ of plain characters; the agent checks that it
 * may use them. nrfiles becomes the count, as fio's list sets it. */
static int s_device_value(rb_plan_parser_t *ps, rb_plan_job_t *o, unsigned line, const char *key,
                          const char *val)
{
    size_t len = strlen(val);
    uint32_t n = 1;
    if (len >= RB_PATH_MAX)
        return rb_plan_fail(ps, line, "%s: the device list is longer than %d characters", key,
                            RB_PATH_MAX - 1);
    if (o->spec.directory[0])
        return s_directory_too(ps, o, line, key, val, "names a device");
    if (strcmp(val, RB_DEVICES_ALL) != 0) {
        for (const char *p = val; *p;) {
            const char *end = strchr(p, ':');
            size_t plen = end ? (size_t)(end - p) : strlen(p);
            if (plen < 6 || strncmp(p, "/dev/", 5) != 0)
                return rb_plan_fail(ps, line,
                                    "%s=%.64s: '%.*s' is not a device under /dev/ (a list "
                                    "separated by ':' names raw block devices only)",
                                    key, val, (int)(plen > 64 ? 64 : plen), p);
            for (size_t i = 0; i < plen; i++)
                if (!rb_names_char(p[i]) && p[i] != '/')
                    return rb_plan_fail(
                        ps, line,
                        "%s=%.64s: character '%c' is not allowed in a device path (only "
                        "A-Z a-z 0-9 . _ - /)",
                        key, val, isprint((unsigned char)p[i]) ? p[i] : '?');
            if (strstr(p, "/..") && strstr(p, "/..") < p + plen)
                return rb_plan_fail(ps, line, "%s=%.64s: '..' is not allowed in a device path", key,
                                    val);
            if (!end)
                break;
            p = end + 1;
            n++;
        }
    }
    memcpy(o->spec.device, val, len + 1);
    o->spec.filename[0] = '\0';
    o->filename_abs = false;
    o->device_files = n;
    return 0;
}

/* filename=: a plain name in the job's directory, or an absolute path split
 * into its folder and name. "" clears it. */
static int s_filename_value(rb_plan_parser_t *ps, rb_plan_job_t *o, unsigned line, const char *key,
                            const char *val)
{
    if (!*val) {
        o->spec.filename[0] = '\0';
        o->spec.device[0] = '\0';
        o->filename_abs = false;
        return 0;
    }
    if (s_names_device(val))
        return s_device_value(ps, o, line, key, val);
    o->spec.device[0] = '\0';
    if (strchr(val, ':'))
        return rb_plan_fail(ps, line,
                            "%s=%.64s: several files separated by ':' are not supported yet (one "
                            "file only)",
                            key, val);
    const char *slash = strrchr(val, '/');
    if (slash && val[0] != '/')
        return rb_plan_fail(
            ps, line,
            "%s=%.64s: a relative name with '/' is not supported (a plain name in the "
            "job's directory, or an absolute path)",
            key, val);
    const char *base = slash ? slash + 1 : val;
    size_t len = strlen(base);
    if (len == 0)
        return rb_plan_fail(ps, line, "%s=%.64s names a folder, not a file", key, val);
    if (len >= RB_NAME_MAX)
        return rb_plan_fail(ps, line, "%s: the file name '%.40s...' is longer than %d characters",
                            key, base, RB_NAME_MAX - 1);
    if (!strcmp(base, ".") || !strcmp(base, ".."))
        return rb_plan_fail(ps, line, "%s=%.64s names a folder, not a file", key, val);
    if (!strcmp(base, "-"))
        return rb_plan_fail(ps, line, "%s=- (standard input or output) is not supported", key);
    for (const char *c = base; *c; c++)
        if (!rb_names_char(*c))
            return rb_plan_fail(
                ps, line,
                "%s=%.64s: character '%c' is not allowed in a file name (only A-Z a-z "
                "0-9 . _ -)",
                key, val, isprint((unsigned char)*c) ? *c : '?');
    if (slash) {
        size_t dlen = slash == val ? 1 : (size_t)(slash - val);
        if (dlen >= RB_PATH_MAX)
            return rb_plan_fail(ps, line, "%s: the folder is longer than %d characters", key,
                                RB_PATH_MAX - 1);
        if (o->spec.directory[0])
            return s_directory_too(ps, o, line, key, val, "is an absolute path");
        memcpy(o->fn_dir, val, dlen);
        o->fn_dir[dlen] = '\0';
    }
    memcpy(o->spec.filename, base, len + 1);
    o->filename_abs = slash != NULL;
    return 0;
}

static int s_directory_value(rb_plan_parser_t *ps, rb_plan_job_t *o, unsigned line, const char *val)
{
    size_t len = strlen(val);
    if (len >= RB_PATH_MAX)
        return rb_plan_fail(ps, line, "directory is longer than %d characters", RB_PATH_MAX - 1);
    /* fio's list "/a:/b": the job's workers (clones) go to them in turn */
    uint32_t n = 1;
    for (const char *c = val; *c; c++) {
        if (*c != ':')
            continue;
        if (c == val || !c[1] || c[1] == ':')
            return rb_plan_fail(ps, line,
                                "directory '%.64s': an empty directory in the list (directories "
                                "are separated by ':')",
                                val);
        if (++n > RB_DIRS_MAX)
            return rb_plan_fail(ps, line, "directory '%.64s...': more than %d directories", val,
                                RB_DIRS_MAX);
    }
    if (len && o->spec.device[0])
        return rb_plan_fail(ps, line,
                            "directory=%.64s: the job's filename names a device (line %u), "
                            "which fio would put it in front of: give one of them",
                            val, rb_plan_job_line(o, "filename"));
    if (len && o->filename_abs)
        return rb_plan_fail(
            ps, line,
            "directory=%.64s: the job's filename is an absolute path (line %u), which "
            "fio would put after it: give one of them",
            val, rb_plan_job_line(o, "filename"));
    memcpy(o->spec.directory, val, len + 1);
    if (ps->in_global)
        memcpy(ps->directory, val, len + 1);
    return 0;
}

static int s_filename_format_value(rb_plan_parser_t *ps, unsigned line, const char *val, char *out)
{
    static const char *const vars[] = {"$jobname", "$jobnum", "$filenum"};
    size_t len = strlen(val);
    if (len >= RB_NAME_MAX)
        return rb_plan_fail(ps, line, "filename_format is longer than %d characters",
                            RB_NAME_MAX - 1);
    for (const char *c = val; *c;) {
        if (*c == '$') {
            size_t n = 0;
            for (size_t i = 0; i < sizeof vars / sizeof vars[0] && !n; i++)
                if (!strncmp(c, vars[i], strlen(vars[i])))
                    n = strlen(vars[i]);
            if (!n)
                return rb_plan_fail(
                    ps, line,
                    "filename_format '%s': only $jobname, $jobnum and $filenum may be "
                    "used",
                    val);
            c += n;
        } else if (rb_names_char(*c)) {
            c++;
        } else {
            return rb_plan_fail(ps, line,
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
static int s_meta_ops_value(rb_plan_parser_t *ps, rb_plan_job_t *o, unsigned line, const char *key,
                            const char *val)
{
    rb_meta_op_t ops[RB_PLAN_META_NOPS];
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
            return rb_plan_fail(ps, line,
                                "%s=%.64s has an empty entry (a comma-separated list of %s)", key,
                                val, S_META_OP_LIST);
        char word[16];
        rb_meta_op_t op = RB_META_NONE;
        if (len < sizeof word) {
            memcpy(word, c, len);
            word[len] = '\0';
            op = rb_meta_op_parse(word);
        }
        if (op == RB_META_NONE)
            return rb_plan_fail(ps, line, "unknown metadata operation '%.*s' in %s (%s)",
                                (int)(len > 32 ? 32 : len), c, key, S_META_OP_LIST);
        for (uint32_t i = 0; i < n; i++)
            if (ops[i] == op)
                return rb_plan_fail(ps, line,
                                    "%s=%.64s lists '%s' twice (each operation runs once)", key,
                                    val, rb_meta_op_name(op));
        ops[n++] = op; /* at most RB_PLAN_META_NOPS: each of them once */
        if (!end)
            break;
        c = end + 1;
    }
    memcpy(o->meta_ops, ops, n * sizeof ops[0]);
    o->nmeta_ops = n;
    return 0;
}

/* ---- the rows' readers ---- */

int rb_opt_value_filesize(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                          const char *key, const char *val, unsigned line)
{
    (void)opt;
    if (val[0] >= '0' && val[0] <= '9' && strpbrk(val, "-:"))
        return rb_plan_fail(ps, line, "%s as a range (%s=%.64s) is not supported yet", key, key,
                            val);
    return rb_opt_value_size(ps, line, key, val, true, &o->spec.filesize);
}

/* cpus_allowed (a list) and cpumask (a bit mask): the later one in the job wins, as in fio. */
int rb_opt_value_cpus(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *key,
                      const char *val, unsigned line)
{
    (void)opt;
    char why[160];
    int rc = !strcmp(key, "cpumask") ? rb_cpus_parse_mask(val, o->spec.cpus, why, sizeof why)
                                     : rb_cpus_parse_list(val, o->spec.cpus, why, sizeof why);
    if (rc < 0)
        return rb_plan_fail(ps, line, "%s=%.64s: %s", key, val, why);
    o->spec.cpus_len = rb_cpus_len(o->spec.cpus, RB_CPUS_BYTES);
    return 0;
}

/* io_uring's sqthread_poll_cpu: the CPU its submission thread is bound to
 * (with sqthread_poll; as in fio, alone it binds nothing). */
int rb_opt_value_sqpoll_cpu(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                            const char *key, const char *val, unsigned line)
{
    uint64_t cpu = 0;
    int rc = rb_opt_value_uint(ps, line, key, val, opt->min, opt->max, &cpu);
    if (rc < 0)
        return rc;
    o->spec.sqpoll_cpu = (uint32_t)cpu;
    o->spec.sqpoll_aff = 1;
    return 0;
}

/* sync and psync are one engine here: pread/pwrite is what sync does. */
int rb_opt_value_ioengine(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                          const char *key, const char *val, unsigned line)
{
    (void)opt;
    const rb_engine_info_t *e = rb_engine_info_find(val);
    if (!e && (!strcmp(val, "net") || !strcmp(val, "netsplice")))
        return rb_plan_fail(ps, line,
                            "%s=%s: fio's network engine streams to a hostname= and port= it is "
                            "given; rackbench streams between the agents of its run, which it "
                            "proves to each other: a job with network=pairs, ring, all-to-all, "
                            "incast (net_target=NODE) or bisection, numjobs streams a link, bs "
                            "bytes a message, and pingpong=1 for round trips",
                            key, val);
    if (!e) {
        char list[256];
        return rb_plan_fail(ps, line, "%s=%.64s is not supported (rackbench has %s)", key, val,
                            rb_engine_info_list(list, sizeof list));
    }
    snprintf(o->spec.ioengine, sizeof o->spec.ioengine, "%s", e->name);
    return 0;
}

int rb_opt_value_sync(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *key,
                      const char *val, unsigned line)
{
    (void)opt;
    return s_sync_value(ps, line, key, val, &o->spec.sync_mode);
}

int rb_opt_value_dsync(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *key,
                       const char *val, unsigned line)
{
    (void)opt;
    bool b = false;
    int rc = rb_opt_value_bool(ps, line, key, val, &b);
    if (rc == 0 && b)
        o->spec.sync_mode = RB_SYNC_DSYNC;
    else if (rc == 0 && o->spec.sync_mode == RB_SYNC_DSYNC)
        o->spec.sync_mode = RB_SYNC_NONE;
    return rc;
}

int rb_opt_value_seed(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *key,
                      const char *val, unsigned line)
{
    (void)opt;
    return s_seed_value(ps, line, key, val, &o->spec.randseed);
}

/* ioscheduler: a scheduler's name as sysfs lists them (letters, digits, - and _). */
int rb_opt_value_ioscheduler(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                             const char *key, const char *val, unsigned line)
{
    (void)opt;
    size_t n = strlen(val);
    if (n >= sizeof o->spec.ioscheduler ||
        strspn(val, "abcdefghijklmnopqrstuvwxyz0123456789-_") != n)
        return rb_plan_fail(ps, line,
                            "%s '%s': a scheduler's name (letters, digits, '-', '_'; at most %zu)",
                            key, val, sizeof o->spec.ioscheduler - 1);
    snprintf(o->spec.ioscheduler, sizeof o->spec.ioscheduler, "%s", val);
    return 0;
}

int rb_opt_value_allrandrepeat(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                               const char *key, const char *val, unsigned line)
{
    (void)opt;
    return rb_opt_value_bool(ps, line, key, val, &o->allrandrepeat);
}

/* create_serialize: rackbench lays files out before GO either way (noted);
 * fio's 0 also lets a job without size= take its file's size at its start. */
int rb_opt_value_create_serialize(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                                  const char *key, const char *val, unsigned line)
{
    (void)opt;
    bool on = true;
    int rc = rb_opt_value_bool(ps, line, key, val, &on);
    if (rc < 0)
        return rc;
    o->serialize_off = !on;
    return rb_plan_note(ps, line,
                        "option '%s' changes no IO: rackbench lays every file a phase reads out "
                        "before GO, one after another (fio's create_serialize=1), where fio's 0 "
                        "writes the same bytes from each job's own thread; its 0 also lets a job "
                        "without size= take it from the file an earlier phase writes, as fio's",
                        key);
}

int rb_opt_value_stonewall(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                           const char *key, const char *val, unsigned line)
{
    (void)opt;
    return rb_opt_value_bool(ps, line, key, val, &o->stonewall);
}

int rb_opt_value_directory(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                           const char *key, const char *val, unsigned line)
{
    (void)opt;
    (void)key;
    return s_directory_value(ps, o, line, val);
}

int rb_opt_value_filename(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                          const char *key, const char *val, unsigned line)
{
    (void)opt;
    return s_filename_value(ps, o, line, key, val);
}

int rb_opt_value_filename_format(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                                 const char *key, const char *val, unsigned line)
{
    (void)opt;
    (void)key;
    return s_filename_format_value(ps, line, val, o->spec.filename_format);
}

/* meta_find_name: an fnmatch pattern of a file's name, as find -name. */
int rb_opt_value_meta_find_name(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                                const char *key, const char *val, unsigned line)
{
    (void)opt;
    if (strlen(val) >= sizeof o->spec.meta_find_name)
        return rb_plan_fail(ps, line, "%s is longer than %zu characters", key,
                            sizeof o->spec.meta_find_name - 1);
    if (strchr(val, '/'))
        return rb_plan_fail(ps, line, "%s '%s': a name pattern has no '/' (find -name)", key, val);
    snprintf(o->spec.meta_find_name, sizeof o->spec.meta_find_name, "%s", val);
    return 0;
}

int rb_opt_value_name(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *key,
                      const char *val, unsigned line)
{
    (void)opt;
    if (ps->in_global) /* fio names each job by its section, whatever [global] says */
        return rb_plan_note(ps, line,
                            "option '%s' in [global] names no job: each job is named by "
                            "its section, as in fio",
                            key);
    o->name = val;
    o->name_line = line;
    return 0;
}

/* file_service_type: roundrobin[:N] (N IOs on a file, then the next; fio's
 * default is one), or sequential (each file to its end); fio's random and
 * its distributions are not supported yet. */
int rb_opt_value_file_service_type(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                                   const char *key, const char *val, unsigned line)
{
    (void)opt;
    char name[32];
    const char *colon = strchr(val, ':');
    size_t n = colon ? (size_t)(colon - val) : strlen(val);
    snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), val);
    uint64_t nr = 1;
    if (colon && rb_opt_value_uint(ps, line, key, colon + 1, 1, UINT32_MAX - 1, &nr) < 0)
        return -EINVAL;
    if (!strcmp(name, "roundrobin")) {
        o->spec.fs_nr = nr > 1 ? (uint32_t)nr : 0;
        return 0;
    }
    if (!strcmp(name, "sequential")) {
        o->spec.fs_nr = RB_FS_SEQUENTIAL;
        return 0;
    }
    if (!strcmp(name, "random") || !strcmp(name, "zipf") || !strcmp(name, "pareto") ||
        !strcmp(name, "normal") || !strcmp(name, "gauss"))
        return rb_plan_fail(ps, line,
                            "%s=%.64s is not supported yet: a worker goes over its files round "
                            "robin (roundrobin[:N]) or one after the other (sequential)",
                            key, val);
    return rb_plan_fail(ps, line,
                        "bad value '%.64s' for %s (roundrobin[:N], sequential, random, zipf, "
                        "pareto, normal or gauss)",
                        val, key);
}

void rb_opt_print_file_service(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd,
                               FILE *f)
{
    (void)gd;
    if (js->fs_nr == RB_FS_SEQUENTIAL)
        fprintf(f, "%s=sequential\n", opt->key);
    else if (js->fs_nr > 1)
        fprintf(f, "%s=roundrobin:%" PRIu32 "\n", opt->key, js->fs_nr);
}

/* Free text, not used. */
int rb_opt_value_description(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                             const char *key, const char *val, unsigned line)
{
    (void)ps, (void)o, (void)opt, (void)key, (void)val, (void)line;
    return 0;
}

/* rackbench always groups; the value must still be a boolean. */
int rb_opt_value_group_reporting(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                                 const char *key, const char *val, unsigned line)
{
    (void)o, (void)opt;
    bool b = false;
    return rb_opt_value_bool(ps, line, key, val, &b);
}

int rb_opt_value_sample_interval(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                                 const char *key, const char *val, unsigned line)
{
    (void)o, (void)opt;
    if (strcmp(val, "auto") == 0) {
        ps->interval_auto = 1;
        ps->interval_ns = RB_PLAN_AUTO_INTERVAL_MAX_NS;
        return 0;
    }
    ps->interval_auto = 0;
    int rc = rb_opt_value_duration(ps, line, key, val, &ps->interval_ns);
    if (rc == 0 && (ps->interval_ns < S_MIN_INTERVAL_NS || ps->interval_ns > S_MAX_INTERVAL_NS))
        return rb_plan_fail(ps, line, "sample_interval=%.64s is out of range (100ms..1h)", val);
    return rc;
}

int rb_opt_value_lustre_stripe_count(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                                     const char *key, const char *val, unsigned line)
{
    uint64_t n = 0;
    if (!strcmp(val, "-1")) {
        o->spec.lustre_stripe_count = RB_LUSTRE_STRIPE_ALL;
        return 0;
    }
    int rc = rb_opt_value_uint(ps, line, key, val, opt->min, opt->max, &n);
    if (rc == 0)
        o->spec.lustre_stripe_count = (uint32_t)n;
    return rc;
}

int rb_opt_value_lustre_stripe_size(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                                    const char *key, const char *val, unsigned line)
{
    (void)opt;
    int rc = rb_opt_value_size(ps, line, key, val, true, &o->spec.lustre_stripe_size);
    if (rc == 0 && o->spec.lustre_stripe_size % 65536)
        return rb_plan_fail(ps, line, "%s=%.64s: not a multiple of 64k (lfs setstripe -S)", key,
                            val);
    return rc;
}

int rb_opt_value_meta_ops(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                          const char *key, const char *val, unsigned line)
{
    (void)opt;
    return s_meta_ops_value(ps, o, line, key, val);
}

/* Only the default 1024 leaves sizes as rackbench reads them. */
int rb_opt_value_meta_stonewall(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                                const char *key, const char *val, unsigned line)
{
    (void)opt;
    return rb_opt_value_duration(ps, line, key, val, &o->meta_stonewall_ns);
}

int rb_opt_value_kb_base(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                         const char *key, const char *val, unsigned line)
{
    (void)opt;
    if (strcmp(val, "1000") != 0 && strcmp(val, "1024") != 0)
        return rb_plan_fail(ps, line, "bad value '%.64s' for %s (1024 or 1000)", val, key);
    o->kb_base = val[3] == '4' ? 1024 : 1000;
    return 0;
}

/* startdelay: a duration, or a range "MIN-MAX" (or "MIN:MAX", fio's irange)
 * from which each worker draws its own. */
int rb_opt_value_startdelay(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                            const char *key, const char *val, unsigned line)
{
    (void)opt;
    const char *sep = val[0] ? strpbrk(val + 1, "-:") : NULL;
    uint64_t lo = 0, hi = 0;
    if (!sep) {
        if (rb_opt_value_duration(ps, line, key, val, &lo) < 0)
            return -EINVAL;
        o->spec.startdelay_ns = o->spec.startdelay_max_ns = lo;
        return 0;
    }
    char a[64], b[64];
    size_t na = (size_t)(sep - val);
    if (na >= sizeof a || strlen(sep + 1) >= sizeof b)
        return rb_plan_fail(ps, line, "bad range '%.64s' for %s (MIN-MAX, such as 1s-5s)", val,
                            key);
    memcpy(a, val, na);
    a[na] = '\0';
    snprintf(b, sizeof b, "%s", sep + 1);
    if (rb_opt_value_duration(ps, line, key, rb_text_trim(a), &lo) < 0 ||
        rb_opt_value_duration(ps, line, key, rb_text_trim(b), &hi) < 0)
        return -EINVAL;
    if (hi < lo)
        return rb_plan_fail(ps, line, "%s=%.64s: the end of the range must not be before its start",
                            key, val);
    o->spec.startdelay_ns = lo;
    o->spec.startdelay_max_ns = hi;
    return 0;
}

int rb_opt_value_iterations(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                            const char *key, const char *val, unsigned line)
{
    uint64_t n = 0;
    int rc = rb_opt_value_uint(ps, line, key, val, opt->min, opt->max, &n);
    if (rc == 0)
        o->iterations = (uint32_t)n;
    return rc;
}

int rb_opt_value_iterate(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                         const char *key, const char *val, unsigned line)
{
    (void)o, (void)opt;
    if (strcmp(val, "phase") && strcmp(val, "plan"))
        return rb_plan_fail(ps, line,
                            "%s=%.64s: expected phase (each phase N times in a row) or "
                            "plan (the whole plan N times)",
                            key, val);
    ps->iterate_plan = !strcmp(val, "plan");
    ps->iterate_line = line;
    return 0;
}

int rb_opt_value_usec(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *key,
                      const char *val, unsigned line)
{
    uint64_t ns = 0;
    /* fio: a bare number (or an expression) is microseconds */
    int rc = val[0] == '(' ? rb_opt_value_duration(ps, line, key, val, &ns)
                           : rb_units_parse_duration_ns(val, 1000, &ns);
    if (rc == -ERANGE)
        return rb_plan_fail(ps, line, "%s=%.64s is too large", key, val);
    if (rc < 0 && val[0] != '(')
        return rb_plan_fail(ps, line,
                            "bad duration '%.64s' for %s (a number of microseconds, or with ns, "
                            "us, ms, s, m, h, d)",
                            val, key);
    if (rc < 0)
        return rc;
    memcpy((char *)&o->spec + opt->off, &ns, sizeof ns);
    return 0;
}

/* rate_min and rate_iops_min judge a data job's bandwidth or IOPS: a
 * metadata job has neither. */
static int s_rate_floors_meta(rb_plan_parser_t *ps, const rb_plan_job_t *o, const char *name)
{
    const rb_job_spec_t *js = &o->spec;
    if (js->rw != RB_RW_META ||
        !(js->rate_min || js->rate_min_write || js->rate_iops_min || js->rate_iops_min_write))
        return 0;
    const char *key = js->rate_min || js->rate_min_write ? "rate_min" : "rate_iops_min";
    return rb_plan_fail(ps, rb_plan_job_line(o, key),
                        "job '%s': %s judges a data job's bandwidth or IOPS, rw=meta has neither",
                        name, key);
}

/* steadystate and steadystate_ramp_time need steadystate_duration (fio's 0: no judgement),
 * said rather than dropped; rw=meta has no IOPS to judge, nor a depth to target. */
static int s_steady(rb_plan_parser_t *ps, const rb_plan_job_t *o, const char *name)
{
    const rb_job_spec_t *js = &o->spec;
    if (js->ss_dur_ns && js->rw == RB_RW_META)
        return rb_plan_fail(ps, rb_plan_job_line(o, "steadystate_duration"),
                            "job '%s': steadystate judges a data job's IOPS or bandwidth, "
                            "rw=meta has neither",
                            name);
    if (js->lat_target_ns && js->rw == RB_RW_META)
        return rb_plan_fail(ps, rb_plan_job_line(o, "latency_target"),
                            "job '%s': latency_target sets a data job's depth, not rw=meta's",
                            name);
    if (js->ss_dur_ns)
        return 0;
    const char *keys[] = {"steadystate", "steadystate_ramp_time"};
    for (int i = 0; i < 2; i++)
        if (rb_plan_job_line(o, keys[i]))
            return rb_plan_fail(ps, rb_plan_job_line(o, keys[i]),
                                "job '%s': %s does nothing without steadystate_duration (ss_dur): "
                                "set the window, in whole seconds",
                                name, keys[i]);
    return 0;
}

/* The timing options of job o that only make sense together or on a data
 * job (rb_plan_int.h). */
/* thinktime_iotime: nothing without thinktime (as in fio, with a note);
 * with it, thinktime_blocks counts only when the plan sets it (fio's
 * default of one IO would think after every IO). */
static int s_think_iotime(rb_plan_parser_t *ps, const rb_plan_job_t *o, const char *name)
{
    rb_job_spec_t *js = (rb_job_spec_t *)&o->spec;
    if (!js->thinktime_iotime_ns)
        return 0;
    if (!js->thinktime_ns) {
        js->thinktime_iotime_ns = 0;
        return rb_plan_note(ps, rb_plan_job_line(o, "thinktime_iotime"),
                            "job '%s': thinktime_iotime has no effect without thinktime, as in fio",
                            name);
    }
    if (!rb_plan_job_line(o, "thinktime_blocks"))
        js->thinktime_blocks = 0;
    return 0;
}

int rb_opt_timing_settle(rb_plan_parser_t *ps, const rb_plan_job_t *o, const char *name)
{
    int rc = s_steady(ps, o, name);
    if (rc == 0)
        rc = s_think_iotime(ps, o, name);
    return rc == 0 ? s_rate_floors_meta(ps, o, name) : rc;
}
