/* A job section once read: its options settled as fio settles them, the
 * rules across its options checked (each error naming the line of an option
 * it involves, or the job's), a metadata job expanded into one step per
 * operation, and the job added to its phase. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_job_rules.h"
#include "rb_dist.h"
#include "rb_engine_info.h"
#include "rb_plan_int.h"
#include "rb_units.h"
#include "rb_names.h"

static uint64_t s_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The first line of name in the set, or 0 when it is not in. */
static long s_seen_find(const rb_plan_parser_t *ps, const char *name)
{
    if (!ps->cap_seen)
        return 0;
    for (size_t k = s_hash(name) & (ps->cap_seen - 1); ps->seen[k].line;
         k = (k + 1) & (ps->cap_seen - 1))
        if (!strcmp(ps->seen[k].name, name))
            return ps->seen[k].line;
    return 0;
}

/* Adds name to the set; returns 0 if new, the first line if seen, or -ENOMEM. */
static long s_seen_add(rb_plan_parser_t *ps, const char *name, unsigned line)
{
    long first = s_seen_find(ps, name);
    if (first)
        return first;
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
    while (ps->seen[k].line)
        k = (k + 1) & (ps->cap_seen - 1);
    strcpy(ps->seen[k].name, name); /* caller checked the length */
    ps->seen[k].line = line;
    ps->nseen++;
    return 0;
}

/* Checks the settled job against the rules across its options (shared with
 * the wire decoder); an error names the latest line of an option involved,
 * or the job's section line. */
static int s_rules(rb_plan_parser_t *ps, const rb_plan_job_t *o, unsigned line)
{
    rb_job_rule_t rule;
    if (rb_job_rules_check(&o->spec, &rule) == 0)
        return 0;
    unsigned at = 0;
    for (int i = 0; i < 2; i++) {
        unsigned l = rule.opts[i] ? rb_plan_job_line(o, rule.opts[i]) : 0;
        if (l > at)
            at = l;
    }
    return rb_plan_fail(ps, at ? at : line, "%s", rule.why);
}

/* Settles a metadata job: only the options that shape the file set and its
 * workers are kept, everything about data IO is left at its default, so
 * size is 0 and bs 4k. Errors name the job's section line or the option's. */
static int s_settle_meta(rb_plan_parser_t *ps, rb_plan_job_t *o, const char *name, unsigned line)
{
    const rb_job_spec_t *js = &o->spec;
    if (js->device[0])
        return rb_plan_fail(ps, rb_plan_job_line(o, "filename"),
                            "job '%s': filename=%.64s names block devices, but rw=meta works on "
                            "files of a file system",
                            name, js->device);
    if (js->filename[0])
        return rb_plan_fail(
            ps, rb_plan_job_line(o, "filename"),
            "job '%s': filename= names one file, but rw=meta works on meta_files files "
            "(name their set with filename_format)",
            name);
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
    /* mdtest -e follows -w unless given */
    m.meta_readsize = rb_plan_job_line(o, "meta_readsize") ? js->meta_readsize : js->meta_filesize;
    m.read_shift = js->read_shift; /* its steps that only look (stat, read, statdir) */
    m.read_seed = js->read_seed;
    m.read_reseed = js->read_reseed;
    m.stonewall_ns = o->meta_stonewall_ns; /* its create steps (create, mkdir) */
    m.wearout = o->meta_stonewall_ns != 0;
    m.meta_dirs = js->meta_dirs;
    m.meta_depth = js->meta_depth;
    m.meta_branch = js->meta_branch;
    m.meta_random = js->meta_random;
    m.meta_shared = js->meta_shared;
    m.meta_sync = js->meta_sync;
    m.meta_renamed = js->meta_renamed;
    memcpy(m.meta_find_name, js->meta_find_name, sizeof m.meta_find_name);
    m.meta_find_size = js->meta_find_size;
    m.meta_find_newer = js->meta_find_newer;
    o->spec = m;
    /* the rules see a step: its operation is the first of meta_ops */
    rb_plan_job_t step = *o;
    step.spec.meta_op = o->meta_ops[0];
    if (!rb_meta_op_looks(step.spec.meta_op))
        step.spec.read_shift = 0, step.spec.read_seed = step.spec.read_reseed = 0;
    if (!rb_meta_op_creates(step.spec.meta_op))
        step.spec.stonewall_ns = step.spec.wearout = 0;
    return s_rules(ps, &step, line);
}

/* An engine's own options (rows that name an engine, as fio's ops->options)
 * stand only in a job of that engine, as in fio. */
static int s_engine_options(rb_plan_parser_t *ps, const rb_plan_job_t *o, const char *name)
{
    for (size_t i = 0; i < rb_opt_count(); i++) {
        const rb_opt_t *opt = rb_opt_at(i);
        if (o->line[i] && !rb_opt_of_engine(opt, o->spec.ioengine)) {
            static const char sep[] = " or ioengine=";
            char engines[128]; /* the row's "a,b" said "a or ioengine=b" */
            size_t n = 0;
            for (const char *p = opt->engine; *p && n + sizeof sep < sizeof engines; p++) {
                if (*p == ',') {
                    memcpy(engines + n, sep, sizeof sep - 1);
                    n += sizeof sep - 1;
                } else {
                    engines[n++] = *p;
                }
            }
            engines[n] = '\0';
            return rb_plan_fail(ps, o->line[i],
                                "option '%s' belongs to ioengine=%s (job '%s' has ioengine=%s)",
                                opt->key, engines, name, o->spec.ioengine);
        }
    }
    return 0;
}

/* The IO sizes of each direction, as fio takes them: bssplit wins over
 * bsrange, which wins over bs, wherever each was written. A direction the
 * job does not do takes the other's, so that it bounds nothing. bs and
 * bs_max become the smallest and largest of all (offsets go by bs). */
static void s_settle_sizes(const rb_plan_job_t *o, rb_job_spec_t *js)
{
    uint64_t lo[3], hi[3];
    bool range = rb_plan_job_line(o, "bsrange") != 0, split = rb_plan_job_line(o, "bssplit") != 0;
    for (int d = 0; d < 3; d++) {
        lo[d] = hi[d] = o->bs_rw[d];
        if (range && o->bsrange_min[d]) {
            lo[d] = o->bsrange_min[d];
            hi[d] = o->bsrange_max[d];
        }
        if (split && d < 2 && o->nbssplit[d]) {
            lo[d] = UINT64_MAX;
            hi[d] = 0;
            for (uint32_t i = 0; i < o->nbssplit[d]; i++) {
                lo[d] = o->bssplit[d][i].bs < lo[d] ? o->bssplit[d][i].bs : lo[d];
                hi[d] = o->bssplit[d][i].bs > hi[d] ? o->bssplit[d][i].bs : hi[d];
            }
        }
    }
    bool does[3] = {rb_rw_reads(js->rw) || (js->verify && js->do_verify), rb_rw_writes(js->rw),
                    rb_rw_trims(js->rw)};
    js->nbssplit_read = split ? o->nbssplit[0] : 0;
    js->nbssplit_write = split ? o->nbssplit[1] : 0;
    memcpy(js->bssplit_read, o->bssplit[0], sizeof js->bssplit_read);
    memcpy(js->bssplit_write, o->bssplit[1], sizeof js->bssplit_write);
    if (!does[0] && !does[1] && !does[2])
        does[0] = does[1] = true; /* none (an unset pattern): reads and writes as given */
    if (!does[0] || !does[1]) {   /* the direction it does not do takes the other's */
        int from = does[0] ? 0 : does[1] ? 1 : 2, to = does[0] ? 1 : 0;
        if (!does[0] && !does[1]) { /* trims only: both take the trims' */
            lo[0] = lo[1] = lo[2];
            hi[0] = hi[1] = hi[2];
        } else {
            lo[to] = lo[from];
            hi[to] = hi[from];
        }
        if (from == 0) {
            js->nbssplit_write = js->nbssplit_read;
            memcpy(js->bssplit_write, js->bssplit_read, sizeof js->bssplit_write);
        } else if (from == 1) {
            js->nbssplit_read = js->nbssplit_write;
            memcpy(js->bssplit_read, js->bssplit_write, sizeof js->bssplit_read);
        }
    }
    js->bs_read = lo[0];
    js->bs_read_max = hi[0];
    js->bs_write = lo[1];
    js->bs_write_max = hi[1];
    js->bs_trim = does[2] ? lo[2] : 0;
    js->bs_trim_max = does[2] ? hi[2] : 0;
    js->bs = lo[0] < lo[1] ? lo[0] : lo[1];
    js->bs_max = hi[0] > hi[1] ? hi[0] : hi[1];
    if (does[2]) {
        js->bs = lo[2] < js->bs ? lo[2] : js->bs;
        js->bs_max = hi[2] > js->bs_max ? hi[2] : js->bs_max;
    }
}

/* fio's openfiles and file_service_type: with one file, or openfiles 0 or
 * at least the worker's files, they change nothing (0 then); else the
 * worker's sequential round robin follows them. What rackbench does not
 * run that way yet is refused. */
static int s_settle_files(rb_plan_parser_t *ps, const rb_plan_job_t *o, rb_job_spec_t *js,
                          const char *name)
{
    uint32_t files = js->nrfiles ? js->nrfiles : 1;
    if (!js->openfiles || js->openfiles >= files || js->rw == RB_RW_META)
        js->openfiles = 0;
    if (files == 1 || js->rw == RB_RW_META)
        js->fs_nr = 0;
    if (!js->openfiles && !js->fs_nr)
        return 0;
    const char *why = rb_rw_random(js->rw)                              ? "random IO"
                      : js->rw == RB_RW_RW || js->rw == RB_RW_TRIMWRITE ? "a mix"
                      : js->seq_add                                     ? "rw=X:N steps"
                      : js->shared_file                                 ? "file_per_worker=0"
                                                                        : NULL;
    if (!why)
        return 0;
    const char *key = js->openfiles ? "openfiles" : "file_service_type";
    char what[64];
    if (js->openfiles)
        snprintf(what, sizeof what, "openfiles=%" PRIu32 " below nrfiles=%" PRIu32, js->openfiles,
                 files);
    else
        snprintf(what, sizeof what, "file_service_type=%s",
                 js->fs_nr == RB_FS_SEQUENTIAL ? "sequential" : "roundrobin:N");
    return rb_plan_fail(ps, rb_plan_job_line(o, key),
                        "job '%s': %s with %s is not supported yet (sequential reads, writes or "
                        "trims are)",
                        name, what, why);
}

/* Settles what depends on several options (fio semantics) and checks the
 * job as a whole; errors name the job's section line. */
/* A network job (network=): no files; a message of bs bytes, 128 KiB
 * unless given (iperf3's default: fio's 4 KiB would measure the system
 * calls), each stream sending size bytes or for runtime. */
static int s_settle_net(rb_plan_parser_t *ps, rb_plan_job_t *o, const char *name, unsigned line)
{
    rb_job_spec_t *js = &o->spec;
    if (o->meta_line)
        return rb_plan_fail(ps, o->meta_line,
                            "option '%s' applies only to rw=meta (job '%s' is "
                            "a network job)",
                            o->meta_key, name);
    if (!rb_plan_job_line(o, "bs") && !rb_plan_job_line(o, "blocksize"))
        o->bs_rw[0] = o->bs_rw[1] = o->bs_rw[2] = 128u << 10;
    s_settle_sizes(o, js);
    return s_rules(ps, o, line);
}

static int s_settle_job(rb_plan_parser_t *ps, rb_plan_job_t *o, const char *name, unsigned line)
{
    rb_job_spec_t *js = &o->spec;
    char a[64];
    int from = 0; /* the size of a file an earlier phase writes */

    int rc = rb_plan_zone_counts_settle(ps, o, name); /* 128z: bytes, before sizes count */
    if (rc == 0)
        rc = s_engine_options(ps, o, name);
    if (rc == 0)
        rc = rb_opt_timing_settle(ps, o, name);
    if (rc == 0)
        rc = rb_opt_prio_settle(ps, o, name);
    if (rc < 0)
        return rc;
    if (js->rw == RB_RW_META)
        return s_settle_meta(ps, o, name, line);
    if (js->network)
        return s_settle_net(ps, o, name, line);
    if (o->meta_line)
        return rb_plan_fail(ps, o->meta_line,
                            "option '%s' applies only to rw=meta (job '%s' has rw=%s)", o->meta_key,
                            name, rb_rw_name(js->rw));
    js->meta_files = 0; /* [global] meta_* options leave other jobs as they are */
    js->meta_filesize = 0;
    js->meta_readsize = 0;
    js->meta_dirs = 0;
    js->meta_depth = 0;
    js->meta_branch = 0;
    js->meta_random = 0;
    js->meta_shared = 0;
    js->meta_sync = 0;
    js->meta_renamed = 0;
    js->meta_find_name[0] = '\0';
    js->meta_find_size = 0;
    js->meta_find_newer = 0;

    /* fio's buffer contents: buffer_compress_percentage or dedupe_percentage,
     * even at 0, end scramble_buffers; a compression below 100 refills every
     * write unless refill_buffers is set either way. */
    if (rb_plan_job_line(o, "buffer_compress_percentage") ||
        rb_plan_job_line(o, "dedupe_percentage"))
        js->scramble = 0;
    if (js->compress_pct && js->compress_pct < 100 && !rb_plan_job_line(o, "refill_buffers"))
        js->refill_buffers = 1;

    /* fio caps the depth of an engine that does one IO at a time, and says so;
     * the agent keeps one slot and one buffer per worker (the job keeps its
     * iodepth, as fio's job options do) */
    if (js->iodepth > 1 && rb_engine_info_depth(js->ioengine, js->iodepth) == 1) {
        unsigned at = rb_plan_job_line(o, "iodepth");
        rc = rb_plan_note(ps, at ? at : o->name_line,
                          "job '%s': iodepth=%u with ioengine=%s, which does one IO at a time: "
                          "the queue depth is 1, one buffer per worker (fio caps it too)",
                          name, js->iodepth, js->ioengine[0] ? js->ioengine : "sync");
        if (rc < 0)
            return rc;
    }
    if (!js->batch_submit) /* fio: iodepth_batch_submit=0 submits the whole depth at once */
        js->batch_submit = js->iodepth;
    if (o->allrandrepeat) /* fio: every generator at its fixed seed, whatever randrepeat says */
        js->randrepeat = 1, js->randseed = 0x89;
    /* fio: a job named after a device, without filename (nor directory), goes to
     * that device; fio checks it is one, rackbench takes a path under /dev/ */
    if (!js->filename[0] && !js->device[0] && !js->directory[0] && js->nrfiles == 1 &&
        !strncmp(o->name, "/dev/", 5)) {
        rc = rb_plan_note(ps, o->name_line,
                          "job '%s' has no filename: it goes to the device %s, as fio's job "
                          "named after a device does",
                          name, o->name);
        if (rc < 0)
            return rc;
        rc = rb_opt_value_filename(ps, o, NULL, "filename", o->name, o->name_line);
        if (rc < 0)
            return rc;
    }

    /* fio: a filename names the files, so nrfiles is not used */
    if (js->filename[0] && js->nrfiles != 1) {
        rc = rb_plan_note(ps, rb_plan_job_line(o, "nrfiles"),
                          "option 'nrfiles' is ignored in job '%s': filename= names the one file "
                          "its workers share, as in fio",
                          name);
        if (rc < 0)
            return rc;
        js->nrfiles = 1;
    }
    if (o->filename_abs)
        memcpy(js->directory, o->fn_dir, sizeof js->directory);
    /* fio: a list of files in filename= is the job's nrfiles */
    if (js->device[0]) {
        if (rb_plan_job_line(o, "nrfiles") && js->nrfiles != o->device_files) {
            rc = rb_plan_note(ps, rb_plan_job_line(o, "nrfiles"),
                              "option 'nrfiles' is ignored in job '%s': filename= names its "
                              "%" PRIu32 " device(s), as in fio",
                              name, o->device_files);
            if (rc < 0)
                return rc;
        }
        js->nrfiles = o->device_files ? o->device_files : 1;
    }

    if (!rb_plan_job_line(o, "size") && js->device[0] && !js->filesize) {
        js->size = 0; /* each device's size, as the agent finds it */
    } else if (!rb_plan_job_line(o, "size") && js->fill_device && !js->filesize) {
        js->size = RB_FILL_SIZE; /* fio: until the file system is full */
    } else if (!rb_plan_job_line(o, "size") && !js->filesize &&
               ((from = rb_opt_size_from_file(ps, js, o->stonewall || ps->after_meta)) ||
                (js->filename[0] && !rb_rw_writes(js->rw) && !rb_rw_trims(js->rw)))) {
        if (from && !o->serialize_off) /* fio sets files up before any job runs: none there yet */
            return rb_plan_fail(ps, line,
                                "job '%s' has no size: fio takes it from its file %s, which an "
                                "earlier phase writes, only with create_serialize=0 (else it "
                                "sets every job's files up before the first job runs); set "
                                "create_serialize=0, or give size=",
                                name, js->filename);
        js->size = 0;         /* fio: the file's size, as the earlier phase leaves it or as it is */
        js->existing = !from; /* a reader of a file that is there before the run */
        if (js->offset_increment || o->io_size_pct)
            return rb_plan_fail(
                ps, rb_plan_job_line(o, o->io_size_pct ? "io_size" : "offset_increment"),
                "job '%s' takes its size from its file %s: %s with it is not "
                "supported yet (give size=)",
                name, js->filename, o->io_size_pct ? "io_size=N%" : "offset_increment");
    } else if (!rb_plan_job_line(o, "size")) {
        if (!js->filesize)
            return rb_plan_fail(
                ps, line,
                "job '%s' has no size (size= bytes per worker, or filesize= bytes per "
                "file, is required; fio would take an existing file's size, and %s)",
                name,
                js->filename[0] ? "rackbench writes only files it makes: without size= a job "
                                  "may read a file that is there, or one an earlier phase writes"
                                : "rackbench makes the job's files anew");
        if (js->filesize > UINT64_MAX / js->nrfiles)
            return rb_plan_fail(
                ps, line, "job '%s': filesize %s times nrfiles %" PRIu32 " is too large", name,
                rb_units_fmt_size_exact(a, sizeof a, js->filesize), js->nrfiles);
        js->size = js->filesize * js->nrfiles;
    }

    /* size=N% and offset=N%: of a device, settled by the agent that holds it */
    for (int k = 0; k < 2; k++) {
        const char *key = k ? "offset" : "size";
        uint32_t pct = k ? js->offset_pct : js->size_pct;
        if (pct && !js->device[0])
            return rb_plan_fail(ps, rb_plan_job_line(o, key),
                                "job '%s': %s=%u%% of a file's size needs the file to be there "
                                "before the job, and rackbench makes its files anew (fio refuses "
                                "a file that is not there, EINVAL); it takes N%% of a device "
                                "(filename=/dev/X)",
                                name, key, pct);
    }
    if (js->size_pct && js->filesize)
        return rb_plan_fail(ps, rb_plan_job_line(o, "size"),
                            "job '%s': size=%u%% of each device and filesize= together are not "
                            "supported",
                            name, js->size_pct);

    /* fio: io_size=N% is N% of size */
    if (o->io_size_pct && !js->size)
        return rb_plan_fail(ps, rb_plan_job_line(o, "io_size"),
                            "job '%s': io_size=%u%% of a device's size is not supported (give "
                            "size= or io_size= in bytes)",
                            name, o->io_size_pct);
    if (o->io_size_pct)
        js->io_size = js->size / 100 * o->io_size_pct + js->size % 100 * o->io_size_pct / 100;

    if (rb_rw_trims(js->rw) && rb_plan_job_line(o, "bssplit"))
        return rb_plan_fail(ps, rb_plan_job_line(o, "bssplit"),
                            "job '%s': bssplit with rw=%s is not supported yet (bs= or bsrange= "
                            "give the trims' sizes)",
                            name, rb_rw_name(js->rw));
    s_settle_sizes(o, js);
    if (js->rand_dist != RB_DIST_RANDOM)
        js->norandommap = 1; /* fio: a skewed distribution has no random map */
    /* fio's lfsr never draws a block twice: the random map does the same */
    if (o->lfsr && js->rand_dist == RB_DIST_RANDOM)
        js->norandommap = 0;
    /* fio: blockalign other than the smallest bs turns off the random map */
    uint64_t *ba[3] = {&js->ba_read, &js->ba_write, &js->ba_trim};
    bool aligned = false;
    for (int d = 0; d < 3; d++) {
        if (*ba[d] == js->bs)
            *ba[d] = 0;
        aligned |= *ba[d] != 0;
    }
    if (aligned && rb_rw_random(js->rw) && !js->norandommap) {
        rc = rb_plan_note(ps, rb_plan_job_line(o, "blockalign"),
                          "job '%s': blockalign turns off the random map (norandommap), as in fio",
                          name);
        if (rc < 0)
            return rc;
        js->norandommap = 1;
    }
    if (js->seq_add && ((js->seq_back && (js->offset || js->offset_increment)) ||
                        rb_rw_trims(js->rw) || js->seq_add % js->bs))
        return rb_plan_fail(ps, rb_plan_job_line(o, "rw"),
                            "job '%s': rw=%s:%s%s with %s is not supported yet", name,
                            rb_rw_name(js->rw), js->seq_back ? "-" : "",
                            rb_units_fmt_size_exact(a, sizeof a, js->seq_add),
                            js->seq_add % js->bs  ? "a step that is not a multiple of bs"
                            : rb_rw_trims(js->rw) ? "trims"
                                                  : "offset or offset_increment");
    rc = rb_plan_zones_settle(ps, o, js, name);
    if (rc == 0)
        rc = s_settle_files(ps, o, js, name);
    if (rc < 0)
        return rc;
    return s_rules(ps, o, line);
}

/* Appends js to the last phase, or to a new one; errors name line. */
static int s_add_job(rb_plan_parser_t *ps, const rb_plan_job_t *o, const rb_job_spec_t *js,
                     bool new_phase, unsigned line)
{
    const char *name = js->name;
    unsigned iline = rb_plan_job_line(o, "iterations");
    if (ps->nphases == 0 || new_phase) {
        if (ps->nphases == RB_MAX_PHASES)
            return rb_plan_fail(ps, line, "job '%s' starts phase %u, more than %u phases", name,
                                ps->nphases + 1, RB_MAX_PHASES);
        if (ps->nphases == ps->cap_phases) {
            uint32_t cap = ps->cap_phases ? ps->cap_phases * 2 : 4;
            rb_phase_spec_t *ph = realloc(ps->phases, cap * sizeof *ph);
            if (ph)
                ps->phases = ph;
            struct rb_plan_ph_iter *it = realloc(ps->ph_iter, cap * sizeof *it);
            if (it)
                ps->ph_iter = it;
            if (!ph || !it)
                return rb_plan_nomem(ps);
            ps->cap_phases = cap;
        }
        ps->ph_iter[ps->nphases] =
            (struct rb_plan_ph_iter){o->iterations ? o->iterations : 1, iline, ""};
        memcpy(ps->ph_iter[ps->nphases].sweep, ps->sweep, sizeof ps->sweep);
        rb_phase_spec_t *ph = &ps->phases[ps->nphases++];
        memset(ph, 0, sizeof *ph);
        memcpy(ph->name, name, strlen(name) + 1);
        ps->cap_jobs = 0;
        ps->phase_workers = 0;
    }
    rb_phase_spec_t *ph = &ps->phases[ps->nphases - 1];
    uint32_t want = o->iterations ? o->iterations : 1;
    if (ps->ph_iter[ps->nphases - 1].n != want)
        return rb_plan_fail(ps, iline ? iline : line,
                            "job '%s': iterations=%u, but its phase '%s' runs %u times (every "
                            "job of a phase repeats with it: set iterations on its first job, "
                            "or give each its own phase with stonewall)",
                            name, want, ph->name, ps->ph_iter[ps->nphases - 1].n);
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

/* filename_format with $jobname read as base (base_len characters); 0, or
 * -EINVAL when the result is too long. */
static int s_fnfmt_jobname(rb_plan_parser_t *ps, rb_plan_job_t *o, const char *base,
                           size_t base_len)
{
    rb_job_spec_t *js = &o->spec;
    char out[RB_NAME_MAX];
    size_t n = 0;
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

/* filename_format of a metadata job: the job's name J unless given, and $jobname
 * read as J, so that every step works on the same files. */
static int s_meta_fnfmt(rb_plan_parser_t *ps, rb_plan_job_t *o, const char *base, size_t base_len)
{
    rb_job_spec_t *js = &o->spec;
    if (!rb_plan_job_line(o, "filename_format")) {
        memcpy(js->filename_format, base, base_len); /* base_len < RB_NAME_MAX */
        js->filename_format[base_len] = '\0';
        return 0;
    }
    return s_fnfmt_jobname(ps, o, base, base_len);
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
        if (rb_meta_op_tree(step.meta_op) && step.meta_shared) {
            unsigned at = rb_plan_job_line(o, "meta_shared_dir");
            return rb_plan_fail(ps, at ? at : line,
                                "job '%s': meta_ops=%s makes or removes each worker's own tree; "
                                "meta_shared_dir=1 has one shared directory, made before GO",
                                name, op);
        }
        if (!rb_meta_op_looks(step.meta_op)) /* another node's files are only looked at */
            step.read_shift = 0, step.read_seed = step.read_reseed = 0;
        if (!rb_meta_op_creates(step.meta_op)) {
            step.stonewall_ns = 0; /* later steps find what the stonewalled one made */
            step.wearout = 0;
        }
        rc = s_add_job(ps, o, &step, true, line);
        if (o->meta_ops[i] == RB_META_RENAME)
            renamed = 1;
    }
    ps->after_meta = true;
    return rc;
}

/* The name rackbench gives the job in reports, CSV files, metric labels and
 * file names: fio's name with every character outside A-Z a-z 0-9 . _ - made
 * '_' (into key, RB_NAME_MAX bytes). true when a character was changed. */
static bool s_name_key(const char *name, char *key)
{
    bool changed = false;
    size_t i = 0;
    for (; name[i]; i++) {
        key[i] = rb_names_char(name[i]) ? name[i] : '_';
        changed |= key[i] != name[i];
    }
    key[i] = '\0';
    return changed;
}

/* fio runs every section as a job of its own, whatever its name: a data job
 * whose name is taken is named NAME-K (the first K from 2 that is free) and
 * keeps NAME's files ($jobname of filename_format read as NAME, as fio
 * would). 0, or -EINVAL when NAME-K does not fit. */
static int s_name_free(rb_plan_parser_t *ps, rb_plan_job_t *o, unsigned line)
{
    rb_job_spec_t *js = &o->spec;
    char base[RB_NAME_MAX];
    long first = s_seen_find(ps, js->name);
    if (first == 0)
        return 0;
    memcpy(base, js->name, sizeof base);
    for (unsigned k = 2;; k++) {
        if ((size_t)snprintf(js->name, sizeof js->name, "%s-%u", base, k) >= sizeof js->name)
            return rb_plan_fail(ps, line,
                                "duplicate job name '%s' (first at line %ld): '%s-%u' is longer "
                                "than %d characters",
                                base, first, base, k, RB_NAME_MAX - 1);
        if (!s_seen_find(ps, js->name))
            break;
    }
    int rc = rb_plan_note(ps, line,
                          "job name '%s' is taken (line %ld): fio runs each section as a job of "
                          "its own; this one is '%s' in the reports and keeps the files of '%s'",
                          base, first, js->name, base);
    return rc < 0 ? rc : s_fnfmt_jobname(ps, o, base, strlen(base));
}

/* The number of the next job, as fio numbers its jobs' logs: 1, 2, ... in
 * the order of the job file. */
static uint32_t s_job_number(const rb_plan_parser_t *ps)
{
    uint32_t number = 1;
    for (uint32_t p = 0; p < ps->nphases; p++)
        number += ps->phases[p].njobs;
    return number;
}

/* Expands a job with sweep_* lists into one stonewalled phase per
 * combination (rb_plan_sweep.c), each settled and checked as a job of its
 * own and keeping the job's files ($jobname read as the job's name). */
static int s_finish_sweep(rb_plan_parser_t *ps, rb_plan_job_t *o, unsigned line)
{
    const char *name = o->spec.name;
    int rc = rb_plan_sweep_check(ps, o, name);
    if (rc == 0)
        rc = s_name_free(ps, o, o->name_line);
    if (rc == 0)
        rc = s_name_unique(ps, name, line);
    if (rc == 0)
        rc = rb_opt_value_wait_for_settle(ps, o);
    rb_plan_job_t *c = rc == 0 ? malloc(sizeof *c) : NULL;
    if (rc == 0 && !c)
        return rb_plan_nomem(ps);
    snprintf(ps->sweep, sizeof ps->sweep, "%s", name);
    for (uint32_t k = 0, n = rb_plan_sweep_count(o); k < n && rc == 0; k++) {
        rc = rb_plan_sweep_pick(ps, o, k, c);
        if (rc == 0 && c->spec.rw == RB_RW_META)
            rc = rb_plan_fail(ps, rb_plan_job_line(o, "rw"),
                              "job '%s': rw=meta makes phases of its own (meta_ops); a sweep "
                              "is of data jobs",
                              name);
        if (rc == 0)
            rc = s_settle_job(ps, c, c->spec.name, line);
        if (rc == 0)
            rc = s_name_unique(ps, c->spec.name, line);
        if (rc == 0)
            rc = s_fnfmt_jobname(ps, c, name, strlen(name));
        if (rc == 0 && k == 0)
            rc = rb_plan_sweep_note(ps, o, name, &c->spec, line);
        if (rc == 0) /* each phase is a job of fio's numbering, its logs its own */
            rc = rb_opt_value_log_settle(ps, c, s_job_number(ps));
        if (rc == 0)
            rc = s_add_job(ps, c, &c->spec, true, line);
    }
    free(c);
    ps->sweep[0] = '\0';
    ps->after_meta = true;
    return rc;
}

/* Checks the job just read and appends it to its phase. */
int rb_plan_job_finish(rb_plan_parser_t *ps)
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
    if (s_name_key(name, js->name) &&
        rb_plan_note(ps, o->name_line,
                     "job name '%s' is '%s' in the reports and file names (A-Z a-z 0-9 . _ - "
                     "kept, any other character made '_')",
                     name, js->name) < 0)
        return -ENOMEM;
    if (!strcmp(js->name, "global") || rb_plan_section_reserved(js->name))
        return rb_plan_fail(ps, o->name_line, "job name '%s' is reserved", js->name);
    name = js->name;
    if (rb_plan_sweep_count(o))
        return s_finish_sweep(ps, o, line);

    int rc = s_settle_job(ps, o, name, line);
    if (rc < 0)
        return rc;

    if (js->rw == RB_RW_META)
        return s_finish_meta(ps, o, line);
    rc = s_name_free(ps, o, o->name_line);
    if (rc == 0)
        rc = s_name_unique(ps, name, line);
    if (rc < 0)
        return rc;
    bool new_phase = o->stonewall || ps->after_meta;
    ps->after_meta = false;
    rc = rb_opt_value_wait_for_settle(ps, o);
    if (rc == 0)
        rc = rb_opt_value_log_settle(ps, o, s_job_number(ps));
    return rc < 0 ? rc : s_add_job(ps, o, js, new_phase, line);
}
