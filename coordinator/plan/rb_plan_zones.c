/* fio's zones in a plan: zonemode (none, strided, zbd), the options of
 * zonemode=zbd (zonecapacity, max_open_zones, job_max_open_zones,
 * read_beyond_wp, zone_reset_threshold, zone_reset_frequency) and sizes
 * counted in zones (fio's z suffix). The strided walk is in
 * agent/workloads/rb_data_dist.c, the zbd zones in rb_data_zbd.c. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_dist.h"
#include "rb_plan_int.h"
#include "rb_units.h"

/* zonemode: none (fio's default), strided, or zbd (zones emulated). */
int rb_opt_value_zonemode(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                          const char *key, const char *val, unsigned line)
{
    (void)opt;
    if (strcmp(val, "none") && strcmp(val, "strided") && strcmp(val, "zbd"))
        return rb_plan_fail(ps, line, "bad value '%.64s' for %s (none, strided or zbd)", val, key);
    o->zone_strided = !strcmp(val, "strided");
    o->zone_zbd = !strcmp(val, "zbd");
    return 0;
}

/* zone_reset_threshold and zone_reset_frequency: fio's fraction from 0 to
 * 1, kept in millionths. */
int rb_opt_value_zone_frac(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                           const char *key, const char *val, unsigned line)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(val, &end);
    if (!*val || end == val || *rb_text_trim(end) || errno || !isfinite(v) || v < 0 || v > 1)
        return rb_plan_fail(ps, line, "bad value '%.64s' for %s (a fraction from 0 to 1)", val,
                            key);
    uint32_t m = (uint32_t)llround(v * 1e6);
    memcpy((char *)&o->spec + opt->off, &m, sizeof m);
    return 0;
}

static const size_t s_zfields[RB_PLAN_ZSLOTS] = {
    offsetof(rb_job_spec_t, size), offsetof(rb_job_spec_t, io_size),
    offsetof(rb_job_spec_t, offset), offsetof(rb_job_spec_t, offset_increment),
    offsetof(rb_job_spec_t, zone_skip)};
static const char *const s_zkeys[RB_PLAN_ZSLOTS] = {"size", "io_size", "offset", "offset_increment",
                                                    "zoneskip"};

int rb_plan_zone_count(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *val,
                       unsigned line)
{
    int slot = -1;
    for (int i = 0; i < RB_PLAN_ZSLOTS; i++)
        if (s_zfields[i] == opt->off)
            slot = i;
    if (slot < 0)
        return 0;
    o->zcount[slot] = 0;
    size_t n = strlen(val);
    if (n < 2 || (val[n - 1] != 'z' && val[n - 1] != 'Z') || !isdigit((unsigned char)val[0]))
        return 0;
    char *end = NULL;
    errno = 0;
    unsigned long long c = strtoull(val, &end, 10);
    if (errno || end != val + n - 1 || (c == 0 && opt->off == offsetof(rb_job_spec_t, size)))
        return rb_plan_fail(ps, line, "bad count of zones '%.64s' for %s (a whole number, then z)",
                            val, opt->key);
    o->zcount[slot] = c ? c : UINT64_MAX; /* 0z: a count, of none */
    memset((char *)&o->spec + opt->off, 0, sizeof(uint64_t));
    return 1;
}

int rb_plan_zone_counts_settle(rb_plan_parser_t *ps, rb_plan_job_t *o, const char *name)
{
    uint64_t zs = o->spec.zone_size;
    int rc = 0;
    for (int i = 0; i < RB_PLAN_ZSLOTS; i++) {
        uint64_t c = o->zcount[i] == UINT64_MAX ? 0 : o->zcount[i];
        if (!o->zcount[i])
            continue;
        unsigned line = rb_plan_job_line(o, s_zkeys[i]);
        if (!zs || (!o->zone_strided && !o->zone_zbd)) {
            rc = rb_plan_fail(ps, line,
                              "job '%s': %s=%" PRIu64 "z counts zones: it needs zonemode=strided "
                              "or zbd, and zonesize",
                              name, s_zkeys[i], c);
            continue;
        }
        if (c > UINT64_MAX / zs) {
            rc = rb_plan_fail(ps, line, "job '%s': %s=%" PRIu64 "z is too large", name, s_zkeys[i],
                              c);
            continue;
        }
        uint64_t bytes = c * zs;
        memcpy((char *)&o->spec + s_zfields[i], &bytes, sizeof bytes);
    }
    return rc;
}

/* fio's zonemode=strided, as fio 3.33 settles it: zonerange defaults to
 * zonesize; what rackbench does not run yet (several files among them) is
 * refused. */
static int s_settle_strided(rb_plan_parser_t *ps, const rb_plan_job_t *o, rb_job_spec_t *js,
                            const char *name)
{
    unsigned line = rb_plan_job_line(o, "zonemode");
    unsigned size_line = rb_plan_job_line(o, "zonesize");
    if (!js->zone_size)
        return rb_plan_fail(ps, size_line ? size_line : line,
                            "job '%s': zonemode=strided needs zonesize above 0", name);
    if (!js->zone_range)
        js->zone_range = js->zone_size;
    const char *why = NULL;
    bool several = js->bs_max > js->bs || js->nbssplit_read || js->nbssplit_write;
    if (js->nrfiles > 1)
        why = "several files (fio's walk shares one zone count between them)";
    else if (js->rw != RB_RW_READ && js->rw != RB_RW_WRITE && js->rw != RB_RW_RANDREAD &&
             js->rw != RB_RW_RANDWRITE && js->rw != RB_RW_REREAD && js->rw != RB_RW_REWRITE)
        why = "this rw (reads or writes, sequential or random, are)";
    else if (js->seq_add || js->seq_nr > 1 || js->perc_seq_read || js->perc_seq_write)
        why = "rw=X:N or percentage_random";
    else if (js->rand_dist != RB_DIST_RANDOM || js->ba_read || js->ba_write)
        why = "random_distribution or blockalign";
    else if (rb_rw_random(js->rw) && several)
        why = "random IOs of several sizes";
    else if (js->zone_size % js->bs || js->zone_range % js->bs || js->zone_skip % js->bs)
        why = "zonesize, zonerange or zoneskip that are not multiples of bs";
    if (why)
        return rb_plan_fail(ps, line, "job '%s': zonemode=strided with %s is not supported yet",
                            name, why);
    return 0;
}

/* The largest IO of direction d (0 reads, 1 writes, 2 trims). */
static uint64_t s_max_io(const rb_job_spec_t *js, int d)
{
    uint64_t m = d == 2 ? js->bs_trim_max : d ? js->bs_write_max : js->bs_read_max;
    uint32_t n = d == 2 ? 0 : d ? js->nbssplit_write : js->nbssplit_read;
    const rb_bs_part_t *p = d ? js->bssplit_write : js->bssplit_read;
    for (uint32_t i = 0; i < n; i++)
        m = p[i].bs > m ? p[i].bs : m;
    if (!m)
        m = js->bs_max > js->bs ? js->bs_max : js->bs;
    return m;
}

/* fio's zonemode=zbd on zones the agent emulates (zonesize is needed, as
 * fio needs it on a file or a device that is not zoned), with fio's checks
 * of it; what rackbench does not run yet is refused. */
static int s_settle_zbd(rb_plan_parser_t *ps, const rb_plan_job_t *o, rb_job_spec_t *js,
                        const char *name)
{
    char a[64], b[64];
    unsigned line = rb_plan_job_line(o, "zonemode");
    unsigned zl = rb_plan_job_line(o, "zonesize");
    uint64_t zs = js->zone_size;
    js->zone_size = 0; /* not strided */
    if (!zs)
        return rb_plan_fail(ps, zl ? zl : line,
                            "job '%s': zonemode=zbd needs zonesize: rackbench emulates the zones "
                            "over the file or device, as fio does on one that is not zoned",
                            name);
    if (zs < 512)
        return rb_plan_fail(ps, zl, "job '%s': zonesize=%s: zones are at least 512 bytes", name,
                            rb_units_fmt_size_exact(a, sizeof a, zs));
    js->zbd_zone = zs;
    if (js->zbd_cap > zs)
        return rb_plan_fail(ps, rb_plan_job_line(o, "zonecapacity"),
                            "job '%s': zonecapacity=%s is larger than zonesize=%s", name,
                            rb_units_fmt_size_exact(a, sizeof a, js->zbd_cap),
                            rb_units_fmt_size_exact(b, sizeof b, zs));
    if (js->zone_range) {
        int rc =
            rb_plan_note(ps, rb_plan_job_line(o, "zonerange"),
                         "job '%s': zonerange has no effect with zonemode=zbd, as in fio", name);
        if (rc < 0)
            return rc;
        js->zone_range = 0;
    }
    if (js->zbd_job_max_open && !js->zbd_max_open)
        return rb_plan_fail(ps, rb_plan_job_line(o, "job_max_open_zones"),
                            "job '%s': job_max_open_zones needs max_open_zones (fio: it cannot be "
                            "used without a global open zones limit)",
                            name);
    if (js->zbd_job_max_open > js->zbd_max_open)
        return rb_plan_fail(ps, rb_plan_job_line(o, "job_max_open_zones"),
                            "job '%s': job_max_open_zones=%" PRIu32
                            " is above max_open_zones=%" PRIu32,
                            name, js->zbd_job_max_open, js->zbd_max_open);
    if (rb_rw_writes(js->rw) && s_max_io(js, 1) > zs)
        return rb_plan_fail(ps, rb_plan_job_line(o, "bs"),
                            "job '%s': a write of %s is larger than zonesize=%s (fio fails it: "
                            "the IO would cross its zone)",
                            name, rb_units_fmt_size_exact(a, sizeof a, s_max_io(js, 1)),
                            rb_units_fmt_size_exact(b, sizeof b, zs));
    if (rb_rw_trims(js->rw)) {
        uint64_t t = js->bs_trim ? js->bs_trim : js->bs;
        if (s_max_io(js, 2) != t)
            return rb_plan_fail(ps, rb_plan_job_line(o, "bs"),
                                "job '%s': trims of several sizes with zonemode=zbd (fio refuses "
                                "bsrange and bssplit for them)",
                                name);
        if (t != zs)
            return rb_plan_fail(ps, rb_plan_job_line(o, "bs"),
                                "job '%s': trims of %s with zonemode=zbd: a trim resets a zone, "
                                "its size must be zonesize=%s (fio refuses it too)",
                                name, rb_units_fmt_size_exact(a, sizeof a, t),
                                rb_units_fmt_size_exact(b, sizeof b, zs));
    }
    const char *why = NULL;
    if (js->verify != RB_VERIFY_NONE)
        why = "verify (fio resets the zones first and reads back in the order written)";
    else if (js->nrfiles > 1 || o->device_files > 1)
        why = "several files";
    else if (js->shared_file)
        why = "file_per_worker=0";
    else if (js->rw == RB_RW_TRIMWRITE || js->rw == RB_RW_RANDTRIMWRITE || js->rw == RB_RW_REREAD ||
             js->rw == RB_RW_REWRITE || js->rw == RB_RW_META)
        why = "this rw (reads, writes, trims and their mixes are)";
    else if (js->seq_add)
        why = "rw=X:N steps";
    else if (js->zone_skip)
        why = "zoneskip";
    else if (js->offset_increment % zs)
        why = "an offset_increment that is not a multiple of zonesize";
    if (why)
        return rb_plan_fail(ps, line, "job '%s': zonemode=zbd with %s is not supported yet", name,
                            why);
    return 0;
}

/* zbd's own options without zonemode=zbd: fio leaves them unused. */
static int s_zbd_unused(rb_plan_parser_t *ps, const rb_plan_job_t *o, rb_job_spec_t *js,
                        const char *name)
{
    static const char *const keys[] = {"zonecapacity",         "max_open_zones",
                                       "job_max_open_zones",   "read_beyond_wp",
                                       "zone_reset_threshold", "zone_reset_frequency"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        unsigned at = rb_plan_job_line(o, keys[i]);
        if (!at)
            continue;
        int rc = rb_plan_note(ps, at, "job '%s': %s has no effect without zonemode=zbd, as in fio",
                              name, keys[i]);
        if (rc < 0)
            return rc;
    }
    js->zbd_zone = js->zbd_cap = 0;
    js->zbd_max_open = js->zbd_job_max_open = 0;
    js->zbd_beyond_wp = 0;
    js->zbd_reset_thr = js->zbd_reset_freq = 0;
    return 0;
}

int rb_plan_zones_settle(rb_plan_parser_t *ps, const rb_plan_job_t *o, rb_job_spec_t *js,
                         const char *name)
{
    char a[64];
    if (!o->zone_zbd) {
        int rc = s_zbd_unused(ps, o, js, name);
        if (rc < 0)
            return rc;
    }
    if (o->zone_zbd)
        return s_settle_zbd(ps, o, js, name);
    if (o->zone_strided)
        return s_settle_strided(ps, o, js, name);
    if (js->zone_size)
        return rb_plan_fail(ps, rb_plan_job_line(o, "zonesize"),
                            "job '%s': zonesize=%s needs zonemode=strided or zbd (fio refuses "
                            "zonesize with zonemode=none, its default)",
                            name, rb_units_fmt_size_exact(a, sizeof a, js->zone_size));
    if (js->zone_range || js->zone_skip) {
        unsigned at = rb_plan_job_line(o, js->zone_range ? "zonerange" : "zoneskip");
        int rc = rb_plan_note(ps, at,
                              "job '%s': zonerange and zoneskip have no effect without "
                              "zonemode=strided, as in fio",
                              name);
        if (rc < 0)
            return rc;
    }
    js->zone_range = js->zone_skip = 0;
    return 0;
}

/* zonemode=strided or zbd when the job has zones; nothing for none, the default. */
void rb_opt_print_zonemode(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    (void)gd;
    if (js->zone_size || js->zbd_zone)
        fprintf(f, "%s=%s\n", opt->key, js->zbd_zone ? "zbd" : "strided");
}

/* zonesize with zones; zonerange and zoneskip only with strided ones. */
void rb_opt_print_zone_size(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    char a[64];
    (void)gd;
    if (js->zone_size)
        fprintf(f, "%s=%s\n", opt->key, rb_units_fmt_size_exact(a, sizeof a, rb_opt_load(js, opt)));
    else if (js->zbd_zone && opt->off == offsetof(rb_job_spec_t, zone_size))
        fprintf(f, "%s=%s\n", opt->key, rb_units_fmt_size_exact(a, sizeof a, js->zbd_zone));
}

/* zonemode=zbd's options, when set. */
void rb_opt_print_zbd(const rb_opt_t *opt, const rb_job_spec_t *js, const char *gd, FILE *f)
{
    char a[64];
    (void)gd;
    uint64_t v = rb_opt_load(js, opt);
    if (!js->zbd_zone || !v)
        return;
    if (opt->off == offsetof(rb_job_spec_t, zbd_cap))
        fprintf(f, "%s=%s\n", opt->key, rb_units_fmt_size_exact(a, sizeof a, v));
    else if (opt->off == offsetof(rb_job_spec_t, zbd_reset_thr) ||
             opt->off == offsetof(rb_job_spec_t, zbd_reset_freq))
        fprintf(f, "%s=%.12g\n", opt->key, (double)v / 1e6);
    else
        fprintf(f, "%s=%" PRIu64 "\n", opt->key, v);
}
