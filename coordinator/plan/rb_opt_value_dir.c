/* The option readers of values per direction, fio's "R[,W[,T]]" form:
 * bs, bsrange, bssplit (sizes by weight), rate and rate_iops, and
 * random_distribution (its zones are per direction). */
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

int rb_opt_value_per_dir(rb_plan_parser_t *ps, unsigned line, const char *key, const char *val,
                         char *buf, size_t len, const char *part[3])
{
    if (strlen(val) >= len)
        return rb_plan_fail(ps, line, "%s=%.64s...: too long", key, val);
    snprintf(buf, len, "%s", val);
    const char *parts[3] = {"", "", ""};
    int n = 0;
    for (char *c = buf, *start = buf;; c++) {
        if (*c != ',' && *c)
            continue;
        if (n == 3)
            return rb_plan_fail(ps, line, "%s=%.64s: more than three values (reads, writes, trims)",
                                key, val);
        bool end = !*c;
        *c = '\0';
        parts[n++] = rb_text_trim(start);
        if (end)
            break;
        start = c + 1;
    }
    for (int i = n; i < 3; i++)
        parts[i] = parts[n - 1];
    for (int i = 0; i < 3; i++)
        part[i] = parts[i];
    return 0;
}

/* bsrange / blocksize_range: "MIN-MAX" or "MIN:MAX" (fio's irange). */
static int s_range_value(rb_plan_parser_t *ps, unsigned line, const char *key, const char *val,
                         uint64_t *min, uint64_t *max)
{
    const char *sep = val[0] ? strpbrk(val + 1, "-:") : NULL;
    if (!sep)
        return rb_plan_fail(ps, line, "bad range '%.64s' for %s (MIN-MAX, such as 4k-64k)", val,
                            key);
    char lo[64], hi[64];
    size_t nlo = (size_t)(sep - val);
    if (nlo >= sizeof lo || strlen(sep + 1) >= sizeof hi)
        return rb_plan_fail(ps, line, "bad range '%.64s' for %s (MIN-MAX, such as 4k-64k)", val,
                            key);
    memcpy(lo, val, nlo);
    lo[nlo] = '\0';
    snprintf(hi, sizeof hi, "%s", sep + 1);
    int rc = rb_opt_value_size(ps, line, key, rb_text_trim(lo), false, min);
    if (rc == 0)
        rc = rb_opt_value_size(ps, line, key, rb_text_trim(hi), false, max);
    if (rc == 0 && *max < *min)
        return rb_plan_fail(
            ps, line, "%s=%.64s: the largest size must not be smaller than the smallest", key, val);
    return rc;
}

/* bsrange per direction; an empty part is bs's ("bsrange=,4k-8k"). */
static int s_bsrange_value(rb_plan_parser_t *ps, unsigned line, const char *key, const char *val,
                           uint64_t min[3], uint64_t max[3])
{
    char buf[256];
    const char *part[3];
    int rc = rb_opt_value_per_dir(ps, line, key, val, buf, sizeof buf, part);
    for (int d = 0; rc == 0 && d < 3; d++) {
        if (!*part[d]) { /* 0: the direction keeps bs */
            min[d] = max[d] = 0;
            continue;
        }
        rc = s_range_value(ps, line, key, part[d], &min[d], &max[d]);
    }
    return rc;
}

/* fio: the later of rwmixread and rwmixwrite decides. */
int rb_opt_value_rwmixwrite(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                            const char *key, const char *val, unsigned line)
{
    uint64_t u = 0;
    int rc = rb_opt_value_uint(ps, line, key, val, opt->min, opt->max, &u);
    if (rc == 0)
        o->spec.rwmixread = 100 - (uint32_t)u;
    return rc;
}

int rb_opt_value_bsrange(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                         const char *key, const char *val, unsigned line)
{
    (void)opt;
    return s_bsrange_value(ps, line, key, val, o->bsrange_min, o->bsrange_max);
}

/* bs / blocksize per direction: "4k", "4k,64k", ",8k" (reads keep 4k),
 * "4k,8k,16k" (trims 16k). */
int rb_opt_value_bs(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *key,
                    const char *val, unsigned line)
{
    (void)opt;
    char buf[256];
    const char *part[3];
    uint64_t v[3];
    int rc = rb_opt_value_per_dir(ps, line, key, val, buf, sizeof buf, part);
    for (int d = 0; rc == 0 && d < 3; d++)
        rc = *part[d] ? rb_opt_value_size(ps, line, key, part[d], false, &v[d]) : (v[d] = 4096, 0);
    if (rc < 0)
        return rc;
    o->bs_rw[0] = o->spec.bs = v[0];
    o->bs_rw[1] = v[1];
    o->bs_rw[2] = v[2];
    return 0;
}

/* One direction of bssplit: "SIZE/PERC:SIZE/PERC..."; an empty PERC shares
 * what the others leave, evenly (the last one takes the rest), as fio. */
static int s_bssplit_dir(rb_plan_parser_t *ps, unsigned line, const char *key, char *text,
                         rb_bs_part_t *out, uint32_t *nout)
{
    uint32_t n = 0, sum = 0, blank = 0;
    bool noperc[RB_BSSPLIT_MAX] = {false};
    for (char *tok = text, *next; tok && *tok; tok = next) {
        next = strchr(tok, ':');
        if (next)
            *next++ = '\0';
        if (n == RB_BSSPLIT_MAX)
            return rb_plan_fail(ps, line, "%s: more than %d sizes in one direction", key,
                                RB_BSSPLIT_MAX);
        char *slash = strchr(tok, '/');
        if (slash)
            *slash = '\0';
        uint64_t bs, perc = 0;
        int rc = rb_opt_value_size(ps, line, key, rb_text_trim(tok), false, &bs);
        if (rc < 0)
            return rc;
        const char *p = slash ? rb_text_trim(slash + 1) : "";
        if (*p && rb_units_parse_count(p, 0, 100, &perc) < 0)
            return rb_plan_fail(ps, line, "%s: bad percentage '%.32s' (a whole number 0 .. 100)",
                                key, p);
        noperc[n] = !*p;
        blank += !*p;
        sum += (uint32_t)perc;
        out[n].bs = bs;
        out[n].perc = (uint32_t)perc;
        n++;
    }
    if (sum > 100)
        return rb_plan_fail(ps, line, "%s: the percentages add up to %u, more than 100", key, sum);
    for (uint32_t i = 0, left = 100 - sum, seen = 0; blank && i < n; i++)
        if (noperc[i])
            out[i].perc = ++seen == blank ? left - (blank - 1) * (left / blank) : left / blank;
    uint32_t kept = 0, total = 0;
    for (uint32_t i = 0; i < n; i++) {
        total += out[i].perc;
        if (out[i].perc) /* a size of 0% is never issued */
            out[kept++] = out[i];
    }
    if (n && total != 100)
        return rb_plan_fail(ps, line, "%s: the percentages add up to %u, not 100", key, total);
    *nout = kept;
    return 0;
}

/* bssplit: a weighted list of sizes per direction, "4k/10:64k/90,8k/100". */
int rb_opt_value_bssplit(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                         const char *key, const char *val, unsigned line)
{
    (void)opt;
    char buf[4096], one[2048];
    const char *part[3];
    int rc = rb_opt_value_per_dir(ps, line, key, val, buf, sizeof buf, part);
    for (int d = 0; rc == 0 && d < 2; d++) {
        snprintf(one, sizeof one, "%s", part[d]);
        o->nbssplit[d] = 0;
        rc = s_bssplit_dir(ps, line, key, one, o->bssplit[d], &o->nbssplit[d]);
    }
    return rc;
}

/* rate (bytes/s, fio's size units) and rate_iops (IOs/s) per direction:
 * "1m" caps reads and writes each, "1m,500k" apart, ",500k" writes only.
 * fio reads a count with a k/m suffix by kb_base as it reads a size, so
 * rate_iops=3k is 3072 IOs/s (3000 with kb_base=1000). */
int rb_opt_value_rate(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt, const char *key,
                      const char *val, unsigned line)
{
    char buf[256];
    const char *part[3];
    uint64_t v[2] = {0, 0};
    bool iops = !strcmp(opt->key, "rate_iops") || !strcmp(opt->key, "rate_iops_min");
    bool min = !strcmp(opt->key, "rate_min") || !strcmp(opt->key, "rate_iops_min");
    int rc = rb_opt_value_per_dir(ps, line, key, val, buf, sizeof buf, part);
    for (int d = 0; rc == 0 && d < 2; d++)
        if (*part[d])
            rc = rb_opt_value_size(ps, line, key, part[d], true, &v[d]);
    if (rc < 0)
        return rc;
    if (min && iops) {
        o->spec.rate_iops_min = v[0];
        o->spec.rate_iops_min_write = v[1];
    } else if (min) {
        o->spec.rate_min = v[0];
        o->spec.rate_min_write = v[1];
    } else if (iops) {
        o->spec.rate_iops = v[0];
        o->spec.rate_iops_write = v[1];
    } else {
        o->spec.rate = v[0];
        o->spec.rate_write = v[1];
    }
    return 0;
}

/* One direction of a zoned distribution: "ACCESS/SIZE:ACCESS/SIZE...", SIZE
 * in % of the range (zoned) or a size (zoned_abs). The shares of the IOs add
 * up to 100; a blank or 0 % size shares what the others leave, as fio. */
static int s_zones_dir(rb_plan_parser_t *ps, unsigned line, const char *key, char *text, bool abs,
                       rb_zone_t *out, uint32_t *nout)
{
    uint32_t n = 0, access = 0, blank = 0;
    uint64_t sized = 0;
    for (char *tok = text, *next; tok && *tok; tok = next) {
        next = strchr(tok, ':');
        if (next)
            *next++ = '\0';
        if (n == RB_ZONES_MAX)
            return rb_plan_fail(ps, line, "%s: more than %d zones in one direction", key,
                                RB_ZONES_MAX);
        char *slash = strchr(tok, '/');
        if (!slash)
            return rb_plan_fail(ps, line, "%s: zone '%.32s' is not ACCESS/SIZE (such as 60/10)",
                                key, tok);
        *slash = '\0';
        uint64_t a, size = 0;
        const char *ztext = rb_text_trim(slash + 1);
        if (rb_units_parse_count(rb_text_trim(tok), 0, 100, &a) < 0)
            return rb_plan_fail(ps, line, "%s: bad share of the IOs '%.32s' (0 .. 100)", key, tok);
        if (abs && rb_opt_value_size(ps, line, key, ztext, false, &size) < 0)
            return -EINVAL;
        if (!abs && *ztext && rb_units_parse_count(ztext, 0, 100, &size) < 0)
            return rb_plan_fail(ps, line, "%s: bad size '%.32s' (0 .. 100 %% of the range)", key,
                                ztext);
        blank += !abs && !size;
        sized += size;
        access += (uint32_t)a;
        out[n++] = (rb_zone_t){.size = size, .access = (uint32_t)a};
    }
    if (access != 100)
        return rb_plan_fail(ps, line, "%s: the zones' shares of the IOs add up to %u, not 100", key,
                            access);
    if (!abs && sized > 100)
        return rb_plan_fail(ps, line, "%s: the zones' sizes add up to %" PRIu64 "%%, more than 100",
                            key, sized);
    for (uint32_t i = 0, left = (uint32_t)(100 - sized), seen = 0; blank && i < n; i++)
        if (!out[i].size)
            out[i].size = ++seen == blank ? left - (blank - 1) * (left / blank) : left / blank;
    *nout = n;
    return 0;
}

/* zipf:THETA, pareto:H, normal:PCT: the number, in millionths, in its range
 * as fio checks it; def without one. */
static int s_dist_number(rb_plan_parser_t *ps, unsigned line, const char *key, const char *name,
                         const char *text, double def, uint32_t *ppm)
{
    double v = def;
    char *end = NULL;
    if (text) {
        v = strtod(text, &end);
        if (end == text || *rb_text_trim(end))
            return rb_plan_fail(ps, line, "%s: bad number '%.32s' for %s", key, text, name);
    }
    bool ok = !strcmp(name, "zipf")     ? v > 0 && v != 1.0 && v <= 100
              : !strcmp(name, "pareto") ? v > 0 && v < 1
                                        : v >= 0 && v < 100;
    if (!ok)
        return rb_plan_fail(ps, line, "%s: %s %.32s is out of its range (%s)", key, name,
                            text ? text : "",
                            !strcmp(name, "zipf")     ? "theta > 0, not 1"
                            : !strcmp(name, "pareto") ? "0 < h < 1"
                                                      : "0 <= deviation < 100");
    *ppm = (uint32_t)llround(v * 1e6);
    return 0;
}

/* random_distribution: random, zipf[:THETA], pareto[:H], normal[:PCT] (or
 * gauss), zoned:ZONES[,ZONES[,ZONES]] and zoned_abs:ZONES..., per direction
 * as fio's R,W,T. fio's defaults: theta 1.1, h 0.2, deviation 0. */
int rb_opt_value_random_distribution(rb_plan_parser_t *ps, rb_plan_job_t *o, const rb_opt_t *opt,
                                     const char *key, const char *val, unsigned line)
{
    (void)opt;
    static const struct {
        const char *name;
        rb_dist_kind_t kind;
        double def;
    } kinds[] = {{"random", RB_DIST_RANDOM, 0},      {"zipf", RB_DIST_ZIPF, 1.1},
                 {"pareto", RB_DIST_PARETO, 0.2},    {"normal", RB_DIST_NORMAL, 0},
                 {"gauss", RB_DIST_NORMAL, 0},       {"zoned", RB_DIST_ZONED, 0},
                 {"zoned_abs", RB_DIST_ZONED_ABS, 0}};
    rb_job_spec_t *js = &o->spec;
    char name[16], buf[4096], one[2048];
    const char *colon = strchr(val, ':'), *arg = colon ? colon + 1 : NULL;
    size_t len = colon ? (size_t)(colon - val) : strlen(val);
    snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), val);
    size_t k = 0;
    while (k < sizeof kinds / sizeof kinds[0] && strcmp(kinds[k].name, rb_text_trim(name)))
        k++;
    if (k == sizeof kinds / sizeof kinds[0])
        return rb_plan_fail(ps, line,
                            "%s=%.64s: not a distribution (random, zipf:THETA, pareto:H, "
                            "normal:PCT, zoned:ZONES, zoned_abs:ZONES)",
                            key, val);
    js->rand_dist = kinds[k].kind;
    js->rand_dist_ppm = 0;
    js->nzones_read = js->nzones_write = js->nzones_trim = 0;
    if (kinds[k].kind == RB_DIST_RANDOM)
        return arg ? rb_plan_fail(ps, line, "%s=%.64s: random takes no value", key, val) : 0;
    if (kinds[k].kind != RB_DIST_ZONED && kinds[k].kind != RB_DIST_ZONED_ABS) {
        if (arg && strchr(arg, ':'))
            return rb_plan_fail(ps, line, "%s=%.64s: a center (%s:N:CENTER) is not supported yet",
                                key, val, kinds[k].name);
        return s_dist_number(ps, line, key, kinds[k].name, arg, kinds[k].def, &js->rand_dist_ppm);
    }
    if (!arg || !arg[strspn(arg, " \t")])
        return rb_plan_fail(ps, line, "%s=%.64s: no zones (such as zoned:60/10:40/90)", key, val);
    const char *part[3];
    rb_zone_t *zones[3] = {js->zones_read, js->zones_write, js->zones_trim};
    uint32_t *nzones[3] = {&js->nzones_read, &js->nzones_write, &js->nzones_trim};
    int rc = rb_opt_value_per_dir(ps, line, key, arg, buf, sizeof buf, part);
    for (int d = 0; rc == 0 && d < 3; d++) {
        snprintf(one, sizeof one, "%s", part[d]);
        if (!*one)
            return rb_plan_fail(ps, line, "%s=%.64s: no zones for %s", key, val,
                                d == 0   ? "reads"
                                : d == 1 ? "writes"
                                         : "trims");
        rc = s_zones_dir(ps, line, key, one, kinds[k].kind == RB_DIST_ZONED_ABS, zones[d],
                         nzones[d]);
    }
    return rc;
}
