/* Settles a job on raw block devices against the devices this agent has:
 * fio takes a device's size when size= is not given, and O_DIRECT on a
 * device needs IO aligned to its logical block size. A job on a file an
 * earlier phase wrote takes that file's size the same way. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rb_devjob.h"
#include "rb_job.h"
#include "rb_job_rules.h"
#include "rb_units.h"

int rb_devjob_path(const rb_job_spec_t *js, unsigned i, char *out, size_t len)
{
    const char *p = js->device;
    for (unsigned k = 0; k < i && p; k++) {
        p = strchr(p, ':');
        p = p ? p + 1 : NULL;
    }
    if (!p || !*p)
        return -EINVAL;
    size_t n = strcspn(p, ":");
    if (n + 1 > len)
        return -ENAMETOOLONG;
    memcpy(out, p, n);
    out[n] = '\0';
    return 0;
}

unsigned rb_devjob_count(const rb_job_spec_t *js)
{
    unsigned n = js->device[0] ? 1 : 0;
    for (const char *p = js->device; *p; p++)
        n += *p == ':';
    return n;
}

int rb_devjob_file(const rb_job_spec_t *js, unsigned worker, unsigned i, char *out, size_t len)
{
    unsigned n = rb_devjob_count(js), files = js->nrfiles ? js->nrfiles : 1;
    if (n > files && js->numjobs >= n) /* worker sets, one per device */
        return rb_devjob_path(js, worker / (js->numjobs / n), out, len);
    return rb_devjob_path(js, i, out, len);
}

int rb_devjob_worker_device(const rb_job_spec_t *js, unsigned worker, char *out, size_t len)
{
    unsigned n = rb_devjob_count(js), files = js->nrfiles ? js->nrfiles : 1;
    if (n == 1 || (n > files && js->numjobs >= n))
        return rb_devjob_file(js, worker, 0, out, len);
    return -ENOENT;
}

/* @devices: the allowed idle devices, as a ':' list in js->device. */
static int s_expand_all(rb_sandbox_t *sb, rb_job_spec_t *js, rb_err_t *err)
{
    static char found[RB_SANDBOX_MAX_DEVICES][PATH_MAX];
    int write = rb_rw_writes(js->rw) || rb_rw_trims(js->rw); /* a trim destroys as a write */
    uint32_t n = rb_sandbox_idle_devices(sb, write, found, RB_SANDBOX_MAX_DEVICES);
    char list[RB_PATH_MAX];
    size_t used = 0;
    if (n == 0)
        return rb_err_set(err, -ENODEV,
                          "job %s: filename=%s: no allowed device is idle%s on this agent "
                          "(rackbench-agent --list-devices says why)",
                          js->name, RB_DEVICES_ALL, write ? " and free to write" : "");
    list[0] = '\0';
    for (uint32_t i = 0; i < n; i++) {
        int k = snprintf(list + used, sizeof list - used, "%s%s", i ? ":" : "", found[i]);
        if (k < 0 || (size_t)k >= sizeof list - used)
            return rb_err_set(err, -ENAMETOOLONG, "job %s: the list of devices is too long",
                              js->name);
        used += (size_t)k;
    }
    if (js->offset_increment)
        return rb_err_set(err, -EINVAL,
                          "job %s: offset_increment with filename=%s is not supported yet",
                          js->name, RB_DEVICES_ALL);
    if ((uint64_t)js->numjobs * n > RB_MAX_WORKERS)
        return rb_err_set(err, -E2BIG, "job %s: %u workers on each of %u devices, at most %d",
                          js->name, js->numjobs, n, RB_MAX_WORKERS);
    memcpy(js->device, list, used + 1);
    js->nrfiles = 1;
    js->numjobs *= n; /* worker set k on device k */
    return 0;
}

/* With direct, every IO size and offset a multiple of the device's logical block size. */
static int s_aligned(const rb_job_spec_t *js, const char *path, uint32_t lbs, rb_err_t *err)
{
    static const char *const what[] = {
        "bs",     "the largest IO size", "bs (reads)", "bs (writes)",
        "offset", "offset_increment",    "bs (trims)", "the largest trim"};
    uint64_t v[] = {js->bs,     js->bs_max,           js->bs_read, js->bs_write,
                    js->offset, js->offset_increment, js->bs_trim, js->bs_trim_max};
    /* BLKDISCARD takes whole logical blocks, direct or not */
    int trims = rb_rw_trims(js->rw);
    for (size_t i = 0; (js->direct || trims) && i < sizeof v / sizeof v[0]; i++) {
        char a[64], b[64];
        if (v[i] % lbs == 0)
            continue;
        return rb_err_set(err, -EINVAL,
                          "job %s: %s %s is not a multiple of the logical block size of %s (%s): "
                          "%s needs it",
                          js->name, what[i], rb_units_fmt_size_exact(a, sizeof a, v[i]), path,
                          rb_units_fmt_size_exact(b, sizeof b, lbs),
                          js->direct ? "direct IO on a device" : "a trim (BLKDISCARD)");
    }
    for (uint32_t i = 0; js->direct && i < js->nbssplit_read + js->nbssplit_write; i++) {
        uint64_t bs = i < js->nbssplit_read ? js->bssplit_read[i].bs
                                            : js->bssplit_write[i - js->nbssplit_read].bs;
        char a[64], b[64];
        if (bs % lbs)
            return rb_err_set(err, -EINVAL,
                              "job %s: bssplit size %s is not a multiple of the logical block "
                              "size of %s (%s): direct IO on a device needs it",
                              js->name, rb_units_fmt_size_exact(a, sizeof a, bs), path,
                              rb_units_fmt_size_exact(b, sizeof b, lbs));
    }
    return 0;
}

/* fio's offset=N% (the device's N%, rounded up to bs, then each worker's
 * offset_increment) and size=N% (N% of the device, within it from the
 * offset on, rounded down to bs), now that the device's size is known. */
static int s_percent(rb_job_spec_t *js, uint64_t dsize, uint64_t *last, rb_err_t *err)
{
    uint64_t bs = js->bs ? js->bs : 1;
    if (js->offset_pct) {
        uint64_t off = dsize / 100 * js->offset_pct + dsize % 100 * js->offset_pct / 100;
        js->offset = (off + bs - 1) / bs * bs;
        *last = js->offset + (uint64_t)(js->numjobs ? js->numjobs - 1 : 0) * js->offset_increment;
        js->offset_pct = 0;
    }
    if (js->size_pct && *last < dsize) {
        uint64_t fs = dsize / 100 * js->size_pct + dsize % 100 * js->size_pct / 100;
        if (fs > dsize - *last)
            fs = dsize - *last;
        if (fs < bs)
            return rb_err_set(err, -EINVAL,
                              "job %s: size=%" PRIu32 "%% of its device leaves less than one block "
                              "from the offset on",
                              js->name, js->size_pct);
        js->filesize = fs - fs % bs;
        js->size = js->filesize * js->nrfiles;
        js->size_pct = 0;
    }
    return 0;
}

int rb_devjob_claim(rb_sandbox_t *sb, rb_job_spec_t *js, rb_err_t *err)
{
    char path[RB_PATH_MAX], a[64], b[64];
    int write = rb_rw_writes(js->rw) || rb_rw_trims(js->rw); /* a trim destroys as a write */
    uint64_t dsize = 0, last = js->offset +
                               (uint64_t)(js->numjobs ? js->numjobs - 1 : 0) * js->offset_increment;
    if (strcmp(js->device, RB_DEVICES_ALL) == 0 && s_expand_all(sb, js, err) < 0)
        return err->code;
    unsigned ndev = rb_devjob_count(js);
    for (uint32_t i = 0; i < ndev; i++) {
        if (rb_devjob_path(js, i, path, sizeof path) < 0)
            return rb_err_set(err, -EINVAL, "job %s: filename=%.64s names %" PRIu32 " devices",
                              js->name, js->device, i);
        const rb_device_info_t *d = rb_sandbox_claim_device(sb, path, write, err);
        if (!d)
            return err->code ? err->code : -EACCES;
        if (rb_rw_trims(js->rw) && !d->discard)
            return rb_err_set(err, -EOPNOTSUPP,
                              "job %s: rw=%s trims, but device %s (%s) takes no discards (its "
                              "queue/discard_max_bytes is 0)",
                              js->name, rb_rw_name(js->rw), path, d->path);
        int rc = s_aligned(js, path, d->lbs, err);
        if (rc < 0)
            return rc;
        if (!js->size && !js->filesize && i > 0 && d->size != dsize)
            return rb_err_set(err, -EINVAL,
                              "job %s: its devices are of different sizes (%s before, %s is %s): "
                              "give size=",
                              js->name, rb_units_fmt_size_exact(a, sizeof a, dsize), path,
                              rb_units_fmt_size_exact(b, sizeof b, d->size));
        if (i == 0 || d->size < dsize)
            dsize = d->size;
    }
    if (s_percent(js, dsize, &last, err) < 0)
        return err->code;
    if (!js->size && !js->filesize) {
        if (last >= dsize)
            return rb_err_set(err, -EINVAL, "job %s: offset %s is past the end of its device (%s)",
                              js->name, rb_units_fmt_size_exact(a, sizeof a, last),
                              rb_units_fmt_size_exact(b, sizeof b, dsize));
        js->filesize = dsize - last; /* fio: the device's size from the offset on */
        js->size = js->filesize * js->nrfiles;
        js->dev_sized = 1; /* each worker from its own offset (rb_data_files.c) */
    } else if (last + rb_job_filesize(js) > dsize) {
        return rb_err_set(err, -EINVAL,
                          "job %s: offset %s and %s per device go past the end of its device "
                          "(%s)",
                          js->name, rb_units_fmt_size_exact(a, sizeof a, last),
                          rb_units_fmt_size_exact(b, sizeof b, rb_job_filesize(js)),
                          rb_units_fmt_size_exact(path, sizeof path, dsize));
    }
    rb_job_rule_t rule;
    if (rb_job_rules_check(js, &rule) < 0)
        return rb_err_set(err, -EINVAL, "%s", rule.why);
    return 0;
}

/* The size of js's file: where it is (existing), or in run folder rundir;
 * or -errno with why set. */
static int64_t s_file_size(rb_sandbox_t *sb, const rb_job_spec_t *js, int rundir, rb_err_t *why)
{
    struct stat st;
    char path[RB_PATH_MAX];
    if (!js->existing) {
        int64_t n = rb_sandbox_file_size(sb, rundir, js->filename);
        return n >= 0 ? n
                      : rb_err_set(why, (int)n, "%s: %s", js->filename,
                                   n == -EEXIST ? "not a regular file" : strerror((int)-n));
    }
    int fd =
        rb_sandbox_open_existing(sb, js->directory, js->filename, O_RDONLY, path, sizeof path, why);
    if (fd < 0)
        return fd;
    int rc = fstat(fd, &st) < 0 ? rb_err_set(why, -errno, "%s: %s", path, strerror(errno)) : 0;
    close(fd);
    return rc < 0 ? rc : (int64_t)st.st_size;
}

int rb_devjob_file_size(rb_sandbox_t *sb, rb_job_spec_t *js, int rundir, rb_err_t *err)
{
    char a[64], b[64], c[64];
    if (!rb_job_file_sized(js))
        return 0;
    rb_err_t why;
    rb_err_clear(&why);
    int64_t got = s_file_size(sb, js, rundir, &why);
    if (got < 0)
        return rb_err_set(err, (int)got,
                          "job %s has no size=, and fio takes it from its file, which is not "
                          "there (%s)%s",
                          js->name, why.msg,
                          js->existing ? "" : ": the earlier phase that writes it left none");
    uint64_t size = (uint64_t)got, bs = js->bs ? js->bs : 1;
    uint64_t left = size > js->offset ? size - js->offset : 0;
    left -= left % bs;
    if (left < (js->bs_max > bs ? js->bs_max : bs))
        return rb_err_set(err, -EINVAL,
                          "job %s has no size=, and its file %s is %s: from offset %s on it "
                          "holds no whole block of %s",
                          js->name, js->filename, rb_units_fmt_size_exact(a, sizeof a, size),
                          rb_units_fmt_size_exact(b, sizeof b, js->offset),
                          rb_units_fmt_size_exact(c, sizeof c, js->bs_max > bs ? js->bs_max : bs));
    js->filesize = left;
    js->size = left;   /* one file, filename=, for all the job's workers */
    js->dev_sized = 1; /* its workers know the file's own end (rb_data_files.c) */
    rb_job_rule_t rule;
    if (rb_job_rules_check(js, &rule) < 0)
        return rb_err_set(err, -EINVAL, "%s", rule.why);
    return 0;
}
