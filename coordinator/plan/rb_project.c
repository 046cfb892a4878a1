/* Reads a plan's [capacity] section, the description of one unit under test
 * (disks, RAID layout, heights), derives its RAID model, resolves its phases
 * and prints it back normalised. Capacities are in powers of 1000, as disks
 * are sold. What a run makes of it is analysis/rb_project_result.c. */
#include "rb_project.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rb_accept.h"
#include "rb_units.h"

#define S_ONE       RB_PROJECT_ONE
#define S_MAX_BYTES 1000000000000000000ull /* 10^18 = 1000P, for sizes and rates */
#define S_MAX_DISKS 100000u                /* disks in a unit */
#define S_MAX_U     1000u                  /* rack units of a unit or a rack */
#define S_MAX_UNITS 100000u                /* units in a rack */

static const char *const s_keys[RB_CAP_NKEYS] = {
    [RB_CAP_DISKS] = "disks",
    [RB_CAP_DISK_SIZE] = "disk_size",
    [RB_CAP_RAID] = "raid",
    [RB_CAP_RAID_GROUP] = "raid_group",
    [RB_CAP_HOT_SPARES] = "hot_spares_per_group",
    [RB_CAP_FS_OVERHEAD] = "fs_overhead",
    [RB_CAP_USABLE_PER_UNIT] = "usable_per_unit",
    [RB_CAP_UNIT_HEIGHT_U] = "unit_height_u",
    [RB_CAP_RACK_HEIGHT_U] = "rack_height_u",
    [RB_CAP_UNITS_PER_RACK] = "units_per_rack",
    [RB_CAP_DERATE] = "derate",
    [RB_CAP_TARGET_CAPACITY] = "target_capacity",
    [RB_CAP_TARGET_BW] = "target_bw",
    [RB_CAP_TARGET_IOPS] = "target_iops",
    [RB_CAP_PHASES] = "phases",
};

#define S_KEY_LIST                                                                                 \
    "disks, disk_size, raid, raid_group, hot_spares_per_group, fs_overhead, usable_per_unit, "     \
    "unit_height_u, rack_height_u, units_per_rack, derate, target_capacity, target_bw, "           \
    "target_iops, phases"

static const char *const s_raids[RB_RAID_NLEVELS] = {
    [RB_RAID0] = "raid0", [RB_RAID1] = "raid1",   [RB_RAID10] = "raid10", [RB_RAID5] = "raid5",
    [RB_RAID6] = "raid6", [RB_RAIDZ1] = "raidz1", [RB_RAIDZ2] = "raidz2", [RB_RAIDZ3] = "raidz3",
};

#define S_RAID_LIST "raid0, raid1, raid10, raid5, raid6, raidz1, raidz2, raidz3"

const char *rb_project_key_name(rb_cap_key_t k)
{
    return (unsigned)k < RB_CAP_NKEYS ? s_keys[k] : "?";
}

const char *rb_project_raid_name(rb_raid_t r)
{
    return (unsigned)r < RB_RAID_NLEVELS ? s_raids[r] : "?";
}

uint64_t rb_project_raid_parity(rb_raid_t r, uint64_t n)
{
    switch (r) {
    case RB_RAID0:
        return 0;
    case RB_RAID1:
    case RB_RAID10:
        return n / 2;
    case RB_RAID5:
    case RB_RAIDZ1:
        return 1;
    case RB_RAID6:
    case RB_RAIDZ2:
        return 2;
    case RB_RAIDZ3:
        return 3;
    case RB_RAID_NLEVELS:
        break;
    }
    return 0;
}

static bool s_mirror(rb_raid_t r)
{
    return r == RB_RAID1 || r == RB_RAID10;
}

rb_project_t *rb_project_new(const char *source)
{
    rb_project_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->source = strdup(source ? source : "<plan>");
    if (!p->source) {
        free(p);
        return NULL;
    }
    return p;
}

void rb_project_destroy(rb_project_t **pp)
{
    if (!pp || !*pp)
        return;
    rb_project_t *p = *pp;
    free(p->phases_text);
    free(p->phases);
    free(p->source);
    free(p);
    *pp = NULL;
}

int rb_project_section(const char *section)
{
    return section && strcmp(section, "capacity") == 0;
}

/* Records "SOURCE:LINE: message" as -EINVAL. */
__attribute__((format(printf, 4, 5))) static int s_fail(const rb_project_t *p, rb_err_t *err,
                                                        unsigned line, const char *fmt, ...)
{
    char what[RB_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return rb_err_set(err, -EINVAL, "%s:%u: %s", p->source, line, what);
}

static int s_nomem(const rb_project_t *p, rb_err_t *err)
{
    return rb_err_set(err, -ENOMEM, "%s: out of memory while reading the plan", p->source);
}

int rb_project_begin(rb_project_t *p, unsigned line, rb_err_t *err)
{
    if (p->line)
        return s_fail(p, err, line,
                      "section [capacity] appears twice (first at line %u): a plan describes one "
                      "unit",
                      p->line);
    p->line = line;
    return 0;
}

/* ---- values ---- */

/* A decimal number, fractions allowed, times a unit: none or B (bytes), k M G
 * T P (powers of 1000, optionally with B), Ki Mi Gi Ti Pi (powers of 1024,
 * optionally with B), any case; with per_s, an optional "/s". Rounded to the
 * nearest whole. 0, -EINVAL, or -ERANGE above S_MAX_BYTES. */
static int s_parse_amount(const char *s, bool per_s, uint64_t *out)
{
    static const struct {
        const char *name;
        uint64_t scale;
    } units[] = {
        {"", 1},
        {"b", 1},
        {"k", 1000ull},
        {"kb", 1000ull},
        {"m", 1000000ull},
        {"mb", 1000000ull},
        {"g", 1000000000ull},
        {"gb", 1000000000ull},
        {"t", 1000000000000ull},
        {"tb", 1000000000000ull},
        {"p", 1000000000000000ull},
        {"pb", 1000000000000000ull},
        {"ki", 1ull << 10},
        {"kib", 1ull << 10},
        {"mi", 1ull << 20},
        {"mib", 1ull << 20},
        {"gi", 1ull << 30},
        {"gib", 1ull << 30},
        {"ti", 1ull << 40},
        {"tib", 1ull << 40},
        {"pi", 1ull << 50},
        {"pib", 1ull << 50},
    };
    size_t len = strlen(s);
    if (per_s && len >= 2 && strcasecmp(s + len - 2, "/s") == 0)
        len -= 2;
    rb_decimal_t d;
    size_t used;
    int rc = rb_units_parse_decimal(s, len, S_MAX_BYTES, &d, &used);
    if (rc < 0)
        return rc;
    const char *p = s + used, *end = s + len;
    char unit[8];
    size_t ulen = (size_t)(end - p);
    if (ulen >= sizeof unit)
        return -EINVAL;
    memcpy(unit, p, ulen);
    unit[ulen] = '\0';
    uint64_t scale = 0;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcasecmp(unit, units[i].name) == 0)
            scale = units[i].scale;
    if (!scale)
        return -EINVAL;
    return rb_units_decimal_scale(&d, scale, S_MAX_BYTES, out);
}

/* An operation rate: a decimal number, fractions allowed, with none or k,
 * M, G (powers of 1000, any case), rounded to the nearest whole: "50000",
 * "50k", "1.5M". 0, -EINVAL, or -ERANGE above S_MAX_BYTES. */
static int s_parse_rate(const char *s, uint64_t *out)
{
    static const char suffixes[] = "kmg";
    size_t len = strlen(s);
    rb_decimal_t d;
    size_t used;
    int rc = rb_units_parse_decimal(s, len, S_MAX_BYTES, &d, &used);
    if (rc < 0)
        return rc;
    uint64_t scale = 1;
    if (used + 1 == len) {
        const char *at = strchr(suffixes, s[used] | 0x20);
        if (!at || !*at)
            return -EINVAL;
        for (const char *q = suffixes; q <= at; q++)
            scale *= 1000;
    } else if (used != len) {
        return -EINVAL;
    }
    return rb_units_decimal_scale(&d, scale, S_MAX_BYTES, out);
}

/* Checks the syntax of a phases= list (rb_accept_phase_list_check). */
static int s_phase_list(const rb_project_t *p, rb_err_t *err, unsigned line, const char *val)
{
    char why[RB_ERR_MSG_MAX];
    return rb_accept_phase_list_check(val, why, sizeof why) < 0 ? s_fail(p, err, line, "%s", why)
                                                                : 0;
}

/* DIGITS[.DIGITS] into millionths: with pct, a percentage ending in '%'
 * with at most 4 decimals (8.25% = 82500); else a plain number with at most
 * 6 decimals (0.5 = 500000). 0, -EINVAL or -ERANGE (too many decimals, or
 * far too large). */
static int s_parse_fixed(const char *s, bool pct, uint64_t *out)
{
    return rb_units_parse_fixed(s, pct ? 4 : 6, pct ? "%" : "", 1000000, out);
}

#define S_AMOUNT_HELP                                                                              \
    "a number with k, M, G, T or P (powers of 1000, as disks are sold; TB and PB too) or KiB, "    \
    "MiB, GiB, TiB, PiB (powers of 1024)"

/* Reads val of key k into p. Longer than a hundred lines on purpose: one
 * case per [capacity] key, so each key's syntax, range and message read
 * side by side. 0, or -EINVAL naming the key and the line. */
static int s_value(rb_project_t *p, rb_err_t *err, unsigned line, rb_cap_key_t k, const char *key,
                   const char *val)
{
    uint64_t v = 0;
    int rc;
    switch (k) {
    case RB_CAP_DISKS:
        rc = rb_units_parse_count(val, 1, S_MAX_DISKS, &v);
        if (rc == -ERANGE)
            return s_fail(p, err, line, "disks=%.64s is out of range (1..%u)", val, S_MAX_DISKS);
        if (rc < 0)
            return s_fail(p, err, line, "bad number '%.64s' for disks (disks in one unit)", val);
        p->disks = v;
        return 0;
    case RB_CAP_RAID_GROUP:
        rc = rb_units_parse_count(val, 1, S_MAX_DISKS, &v);
        if (rc == -ERANGE)
            return s_fail(p, err, line, "raid_group=%.64s is out of range (1..%u)", val,
                          S_MAX_DISKS);
        if (rc < 0)
            return s_fail(p, err, line,
                          "bad number '%.64s' for raid_group (disks in one RAID group, hot "
                          "spares not counted)",
                          val);
        p->raid_group = v;
        return 0;
    case RB_CAP_HOT_SPARES:
        rc = rb_units_parse_count(val, 0, S_MAX_DISKS, &v);
        if (rc == -ERANGE)
            return s_fail(p, err, line, "hot_spares_per_group=%.64s is out of range (0..%u)", val,
                          S_MAX_DISKS);
        if (rc < 0)
            return s_fail(p, err, line, "bad number '%.64s' for hot_spares_per_group", val);
        p->hot_spares = v;
        return 0;
    case RB_CAP_UNIT_HEIGHT_U:
    case RB_CAP_RACK_HEIGHT_U:
        rc = rb_units_parse_count(val, 1, S_MAX_U, &v);
        if (rc == -ERANGE)
            return s_fail(p, err, line, "%s=%.64s is out of range (1..%u)", key, val, S_MAX_U);
        if (rc < 0)
            return s_fail(p, err, line,
                          "bad number '%.64s' for %s (whole rack units, e.g. 5 for a 5U box)", val,
                          key);
        if (k == RB_CAP_UNIT_HEIGHT_U)
            p->unit_height_u = v;
        else
            p->rack_height_u = v;
        return 0;
    case RB_CAP_UNITS_PER_RACK:
        rc = rb_units_parse_count(val, 1, S_MAX_UNITS, &v);
        if (rc == -ERANGE)
            return s_fail(p, err, line, "units_per_rack=%.64s is out of range (1..%u)", val,
                          S_MAX_UNITS);
        if (rc < 0)
            return s_fail(p, err, line, "bad number '%.64s' for units_per_rack", val);
        p->units_per_rack = v;
        return 0;
    case RB_CAP_DISK_SIZE:
    case RB_CAP_USABLE_PER_UNIT:
    case RB_CAP_TARGET_CAPACITY:
        rc = s_parse_amount(val, false, &v);
        if (rc == -ERANGE)
            return s_fail(p, err, line, "%s=%.64s is too large (at most 1000P)", key, val);
        if (rc < 0)
            return s_fail(p, err, line,
                          "bad size '%.64s' for %s (bytes: " S_AMOUNT_HELP ", e.g. 2T)", val, key);
        if (v == 0)
            return s_fail(p, err, line, "%s must be greater than 0", key);
        if (k == RB_CAP_DISK_SIZE)
            p->disk_size = v;
        else if (k == RB_CAP_USABLE_PER_UNIT)
            p->usable_per_unit = v;
        else
            p->target_capacity = v;
        return 0;
    case RB_CAP_TARGET_BW:
        rc = s_parse_amount(val, true, &v);
        if (rc == -ERANGE)
            return s_fail(p, err, line, "target_bw=%.64s is too large (at most 1000P/s)", val);
        if (rc < 0)
            return s_fail(p, err, line,
                          "bad bandwidth '%.64s' for target_bw (bytes/s: " S_AMOUNT_HELP
                          ", and an optional /s, e.g. 100G or 100GB/s)",
                          val);
        if (v == 0)
            return s_fail(p, err, line, "target_bw must be greater than 0");
        p->target_bw = v;
        return 0;
    case RB_CAP_TARGET_IOPS:
        rc = s_parse_rate(val, &v);
        if (rc == -ERANGE)
            return s_fail(p, err, line, "target_iops=%.64s is too large (at most 1000000000G)",
                          val);
        if (rc < 0)
            return s_fail(p, err, line,
                          "bad rate '%.64s' for target_iops (IO operations a second: a number "
                          "with k, M or G, powers of 1000, e.g. 500k)",
                          val);
        if (v == 0)
            return s_fail(p, err, line, "target_iops must be greater than 0");
        p->target_iops = v;
        return 0;
    case RB_CAP_RAID:
        for (int r = 0; r < RB_RAID_NLEVELS; r++) {
            if (strcasecmp(val, s_raids[r]) == 0) {
                p->raid = (rb_raid_t)r;
                return 0;
            }
        }
        return s_fail(p, err, line, "raid=%.64s is not supported (%s)", val, S_RAID_LIST);
    case RB_CAP_FS_OVERHEAD:
        rc = s_parse_fixed(val, true, &v);
        if (rc == -EINVAL)
            return s_fail(p, err, line,
                          "bad value '%.64s' for fs_overhead (a percentage with '%%', e.g. 8%% "
                          "or 2.5%%)",
                          val);
        if (rc < 0 || v >= S_ONE)
            return s_fail(p, err, line,
                          "fs_overhead=%.64s is out of range (0%% to below 100%%, at most 4 "
                          "decimals)",
                          val);
        p->fs_overhead_ppm = v;
        return 0;
    case RB_CAP_DERATE:
        rc = s_parse_fixed(val, strchr(val, '%') != NULL, &v);
        if (rc == -EINVAL)
            return s_fail(p, err, line,
                          "bad value '%.64s' for derate (a share of the measured throughput: "
                          "0.5, or 50%%)",
                          val);
        if (rc < 0 || v == 0 || v > S_ONE)
            return s_fail(p, err, line,
                          "derate=%.64s is out of range (greater than 0, at most 1 or 100%%; at "
                          "most 6 decimals)",
                          val);
        p->derate_ppm = v;
        return 0;
    case RB_CAP_PHASES:
    case RB_CAP_NKEYS:
        break;
    }
    return s_fail(p, err, line, "unknown option '%s' in [capacity] (%s)", key, S_KEY_LIST);
}

int rb_project_option(rb_project_t *p, const char *key, const char *val, unsigned line,
                      rb_err_t *err)
{
    if (!p->line)
        return s_fail(p, err, line, "option '%.64s' is outside a [capacity] section", key);
    int k = -1;
    for (int i = 0; i < RB_CAP_NKEYS; i++)
        if (strcmp(key, s_keys[i]) == 0)
            k = i;
    if (k < 0)
        return s_fail(p, err, line, "unknown option '%.64s' in [capacity] (%s)", key, S_KEY_LIST);
    if (p->key_line[k])
        return s_fail(p, err, line, "option '%s' is given twice in [capacity] (first at line %u)",
                      key, p->key_line[k]);
    if (!val || !*val)
        return s_fail(p, err, line, "option '%s' needs a value (%s=...)", key, key);
    if (k == RB_CAP_PHASES) {
        int rc = s_phase_list(p, err, line, val);
        if (rc < 0)
            return rc;
        if (!(p->phases_text = strdup(val)))
            return s_nomem(p, err);
    } else {
        int rc = s_value(p, err, line, (rb_cap_key_t)k, key, val);
        if (rc < 0)
            return rc;
    }
    p->key_line[k] = line;
    return 0;
}

/* The RAID model's keys that were given without disks, disk_size or raid:
 * -EINVAL naming what is missing. Else fills the model. */
static int s_model(rb_project_t *p, rb_err_t *err)
{
    static const rb_cap_key_t model_keys[] = {RB_CAP_DISKS,      RB_CAP_DISK_SIZE,
                                              RB_CAP_RAID,       RB_CAP_RAID_GROUP,
                                              RB_CAP_HOT_SPARES, RB_CAP_FS_OVERHEAD};
    static const rb_cap_key_t needed[] = {RB_CAP_DISKS, RB_CAP_DISK_SIZE, RB_CAP_RAID};
    unsigned first = 0;
    rb_cap_key_t first_key = RB_CAP_DISKS;
    for (size_t i = 0; i < sizeof model_keys / sizeof model_keys[0]; i++) {
        unsigned l = p->key_line[model_keys[i]];
        if (l && (!first || l < first)) {
            first = l;
            first_key = model_keys[i];
        }
    }
    if (!first)
        return 0;
    char missing[96] = "";
    size_t used = 0;
    for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++)
        if (!p->key_line[needed[i]])
            used += (size_t)snprintf(missing + used, sizeof missing - used,
                                     "%s%s=", used ? ", " : "", s_keys[needed[i]]);
    if (used)
        return s_fail(p, err, first,
                      "%s= in [capacity] belongs to the RAID model, which also needs %s (or leave "
                      "the model out and give usable_per_unit=, what df shows on a unit)",
                      s_keys[first_key], missing);

    /* a group is a slice of the unit's disks: its hot spares, its parity
     * (or mirror) disks and its data disks (JR5: 16 = 1 + 2 + 13) */
    const unsigned group_line = p->key_line[RB_CAP_RAID_GROUP];
    const unsigned spare_line = p->key_line[RB_CAP_HOT_SPARES];
    if (!group_line)
        p->raid_group = p->disks; /* one group of every disk */
    const unsigned at = group_line ? group_line : p->key_line[RB_CAP_DISKS];
    const char *raid = s_raids[p->raid];
    if (p->raid_group > p->disks)
        return s_fail(p, err, at,
                      "%" PRIu64 " disks do not hold one group of raid_group=%" PRIu64
                      " (a group counts its hot spares, parity and data disks)",
                      p->disks, p->raid_group);
    if (p->hot_spares >= p->raid_group)
        return s_fail(p, err, spare_line,
                      "hot_spares_per_group=%" PRIu64 " leaves no disk of a group of %" PRIu64
                      " for the array",
                      p->hot_spares, p->raid_group);
    uint64_t members = p->raid_group - p->hot_spares;
    if (s_mirror(p->raid) && members % 2)
        return s_fail(p, err, group_line ? group_line : at,
                      "%s mirrors disks in pairs, but a group has %" PRIu64
                      " disks in its array (raid_group=%" PRIu64 " - hot_spares_per_group=%" PRIu64
                      "): an odd number",
                      raid, members, p->raid_group, p->hot_spares);
    uint64_t parity = rb_project_raid_parity(p->raid, members);
    if (members <= parity)
        return s_fail(p, err, group_line ? group_line : at,
                      "a group of %" PRIu64 " disks with %" PRIu64 " hot spare%s leaves no data "
                      "disk in %s (%" PRIu64 " parity disk%s a group)",
                      p->raid_group, p->hot_spares, p->hot_spares == 1 ? "" : "s", raid, parity,
                      parity == 1 ? "" : "s");
    p->groups = p->disks / p->raid_group;
    p->parity_per_group = parity;
    p->data_disks = p->groups * (members - parity);
    p->unused_disks = p->disks - p->groups * p->raid_group;
    p->has_model = 1;
    return 0;
}

int rb_project_end(rb_project_t *p, rb_err_t *err)
{
    if (!p || !p->line)
        return 0;
    bool any = false;
    for (int k = 0; k < RB_CAP_NKEYS; k++)
        any = any || p->key_line[k];
    if (!any)
        return s_fail(p, err, p->line,
                      "[capacity] is empty (describe the unit: disks=, disk_size= and raid=, or "
                      "usable_per_unit=; and units_per_rack=, or unit_height_u= and "
                      "rack_height_u=)");
    int rc = s_model(p, err);
    if (rc < 0)
        return rc;

    const unsigned uh = p->key_line[RB_CAP_UNIT_HEIGHT_U], rh = p->key_line[RB_CAP_RACK_HEIGHT_U];
    const unsigned upr = p->key_line[RB_CAP_UNITS_PER_RACK];
    if ((uh != 0) != (rh != 0) && !upr)
        return s_fail(p, err, uh ? uh : rh,
                      "%s= needs %s= too to count the units in a rack (or give units_per_rack=)",
                      uh ? "unit_height_u" : "rack_height_u",
                      uh ? "rack_height_u" : "unit_height_u");
    if (uh && rh) {
        if (p->unit_height_u > p->rack_height_u)
            return s_fail(p, err, uh,
                          "unit_height_u=%" PRIu64 " is taller than rack_height_u=%" PRIu64,
                          p->unit_height_u, p->rack_height_u);
        uint64_t fit = p->rack_height_u / p->unit_height_u;
        if (upr && p->units_per_rack > fit)
            return s_fail(p, err, upr,
                          "units_per_rack=%" PRIu64 " of unit_height_u=%" PRIu64 " need %" PRIu64
                          "U, more than rack_height_u=%" PRIu64,
                          p->units_per_rack, p->unit_height_u, p->units_per_rack * p->unit_height_u,
                          p->rack_height_u);
        if (!upr)
            p->units_per_rack = fit;
    }
    const unsigned tc = p->key_line[RB_CAP_TARGET_CAPACITY];
    if (tc && !p->has_model && !p->key_line[RB_CAP_USABLE_PER_UNIT])
        return s_fail(p, err, tc,
                      "target_capacity needs the unit's capacity: usable_per_unit= (what df "
                      "shows on a unit), or disks=, disk_size= and raid=");
    return 0;
}

int rb_project_resolve(rb_project_t *p, const rb_phase_spec_t *phases, uint32_t nphases,
                       rb_err_t *err)
{
    if (!p || !p->line)
        return 0;
    bool *hit = calloc(nphases ? nphases : 1, sizeof *hit);
    free(p->phases);
    p->phases = malloc((nphases ? nphases : 1) * sizeof *p->phases);
    p->nphases = 0;
    if (!hit || !p->phases) {
        free(hit);
        return s_nomem(p, err);
    }
    int rc = 0;
    const unsigned pl = p->key_line[RB_CAP_PHASES];
    if (!p->phases_text) {
        for (uint32_t i = 0; i < nphases; i++)
            hit[i] = !rb_phase_spec_is_meta(&phases[i]);
    } else {
        for (const char *q = p->phases_text; rc == 0;) {
            char name[RB_NAME_MAX];
            size_t m = strcspn(q, ",");
            const char *b = q, *e = q + m;
            while (b < e && (*b == ' ' || *b == '\t'))
                b++;
            while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
                e--;
            snprintf(name, sizeof name, "%.*s", (int)(e - b), b);
            if (rb_accept_match_phases(name, phases, nphases, hit) == 0) {
                char known[600];
                size_t used = 0;
                known[0] = '\0';
                for (uint32_t i = 0; i < nphases && used + RB_NAME_MAX + 8 < sizeof known; i++)
                    used += (size_t)snprintf(known + used, sizeof known - used, "%s%s",
                                             i ? ", " : "", phases[i].name);
                rc = s_fail(p, err, pl,
                            "phases: '%s' in [capacity] is neither a phase nor a job of the plan "
                            "(phases: %s)",
                            name, known);
            }
            if (!q[m])
                break;
            q += m + 1;
        }
        for (uint32_t i = 0; i < nphases && rc == 0; i++)
            if (hit[i] && rb_phase_spec_is_meta(&phases[i]))
                rc = s_fail(p, err, pl,
                            "phases: '%s' is a metadata step: it is measured in operations, not "
                            "bytes, so it gives no throughput to project",
                            phases[i].name);
    }
    for (uint32_t i = 0; i < nphases; i++)
        if (hit[i])
            p->phases[p->nphases++] = i;
    free(hit);
    if (rc < 0)
        return rc;
    if (p->nphases == 0) {
        static const rb_cap_key_t bw_keys[] = {RB_CAP_TARGET_BW, RB_CAP_TARGET_IOPS, RB_CAP_DERATE};
        for (size_t i = 0; i < sizeof bw_keys / sizeof bw_keys[0]; i++)
            if (p->key_line[bw_keys[i]])
                return s_fail(p, err, p->key_line[bw_keys[i]],
                              "%s in [capacity] applies to no phase: every phase of the plan is "
                              "a metadata step, which moves no bytes to project",
                              s_keys[bw_keys[i]]);
    }
    return 0;
}

/* ---- printing the section ---- */

/* An amount in the unit that keeps it exact, choosing the shorter of powers
 * of 1000 ("2TB") and of 1024 ("60TiB"), decimal on a tie; s_parse_amount
 * reads it back. */
static const char *s_fmt_amount(char *buf, size_t len, uint64_t v, const char *per)
{
    static const char *const dec[] = {"kB", "MB", "GB", "TB", "PB"};
    static const char *const bin[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
    char d[40], b[40];
    uint64_t x = v;
    int u = -1;
    while (u + 1 < 5 && x && x % 1000 == 0) {
        x /= 1000;
        u++;
    }
    snprintf(d, sizeof d, "%" PRIu64 "%s%s", x, u < 0 ? "" : dec[u], per);
    x = v;
    u = -1;
    while (u + 1 < 5 && x && x % 1024 == 0) {
        x /= 1024;
        u++;
    }
    snprintf(b, sizeof b, "%" PRIu64 "%s%s", x, u < 0 ? "" : bin[u], per);
    snprintf(buf, len, "%s", strlen(b) < strlen(d) ? b : d);
    return buf;
}

/* An operation rate exactly, in the largest power of 1000 that keeps it
 * whole ("500k", "1500", "2M"); s_parse_rate reads it back. */
static const char *s_fmt_rate(char *buf, size_t len, uint64_t v)
{
    static const char *const suffix[] = {"", "k", "M", "G"};
    int u = 0;
    while (u < 3 && v && v % 1000 == 0) {
        v /= 1000;
        u++;
    }
    snprintf(buf, len, "%" PRIu64 "%s", v, suffix[u]);
    return buf;
}

/* Millionths as a fixed-point number without trailing zeros; with pct, as a
 * percentage ("8%", "2.5%"), else as a fraction of 1 ("0.5", "1"). */
const char *rb_project_fixed_text(char *buf, size_t len, uint64_t millionths, bool pct)
{
    const uint64_t one = pct ? S_ONE / 100 : S_ONE;
    const int decimals = pct ? 4 : 6;
    uint64_t whole = millionths / one, frac = millionths % one;
    if (frac == 0) {
        snprintf(buf, len, "%" PRIu64 "%s", whole, pct ? "%" : "");
        return buf;
    }
    char digits[16];
    snprintf(digits, sizeof digits, "%0*" PRIu64, decimals, frac);
    for (size_t n = strlen(digits); n > 0 && digits[n - 1] == '0'; n--)
        digits[n - 1] = '\0';
    snprintf(buf, len, "%" PRIu64 ".%s%s", whole, digits, pct ? "%" : "");
    return buf;
}

/* v with three significant digits and a unit of powers of base: "568 TB",
 * "1.50 GB/s", "71.0 TB"; whole numbers below 1000 of their unit stay whole. */
const char *rb_project_human(char *buf, size_t len, double v, bool binary, const char *per)
{
    static const char *const dec[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
    static const char *const bin[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    const double base = binary ? 1024.0 : 1000.0;
    if (isnan(v)) {
        snprintf(buf, len, "-");
        return buf;
    }
    int u = 0;
    double x = v;
    while (x >= base && u < 6) {
        x /= base;
        u++;
    }
    const char *name = binary ? bin[u] : dec[u];
    if (x == floor(x) && x < 1000)
        snprintf(buf, len, "%.0f %s%s", x, name, per);
    else if (x >= 99.95)
        snprintf(buf, len, "%.0f %s%s", x, name, per);
    else if (x >= 9.995)
        snprintf(buf, len, "%.1f %s%s", x, name, per);
    else
        snprintf(buf, len, "%.2f %s%s", x, name, per);
    return buf;
}

/* "raid6: 3 groups of 16 = 1 hot spare + 2 parity + 13 data disks; 39 data
 * disks x 2 TB", for sources and comments. */
const char *rb_project_model_words(char *buf, size_t len, const rb_project_t *p)
{
    char d[48];
    uint64_t data = p->groups ? p->data_disks / p->groups : 0;
    size_t n =
        (size_t)snprintf(buf, len, "%s: %" PRIu64 " group%s of %" PRIu64 " = ", s_raids[p->raid],
                         p->groups, p->groups == 1 ? "" : "s", p->raid_group);
    if (n < len && p->hot_spares)
        n += (size_t)snprintf(buf + n, len - n, "%" PRIu64 " hot spare%s + ", p->hot_spares,
                              p->hot_spares == 1 ? "" : "s");
    if (n < len && p->parity_per_group)
        n += (size_t)snprintf(buf + n, len - n, "%" PRIu64 " %s + ", p->parity_per_group,
                              s_mirror(p->raid) ? "mirror" : "parity");
    if (n < len)
        n += (size_t)snprintf(buf + n, len - n,
                              "%" PRIu64 " data disk%s; %" PRIu64 " data disks x %s", data,
                              data == 1 ? "" : "s", p->data_disks,
                              rb_project_human(d, sizeof d, (double)p->disk_size, false, ""));
    if (n < len && p->unused_disks)
        snprintf(buf + n, len - n, "; %" PRIu64 " disk%s left over", p->unused_disks,
                 p->unused_disks == 1 ? "" : "s");
    return buf;
}

int rb_project_print(const rb_project_t *p, const rb_phase_spec_t *phases, uint32_t nphases,
                     FILE *f)
{
    if (!p || !p->line)
        return 0;
    char buf[64], words[RB_PROJECT_SOURCE_MAX];
    fprintf(f, "\n[capacity]\n");
    for (int k = 0; k < RB_CAP_NKEYS; k++) {
        if (!p->key_line[k])
            continue;
        switch ((rb_cap_key_t)k) {
        case RB_CAP_DISKS:
            fprintf(f, "disks=%" PRIu64 "\n", p->disks);
            break;
        case RB_CAP_DISK_SIZE:
            fprintf(f, "disk_size=%s\n", s_fmt_amount(buf, sizeof buf, p->disk_size, ""));
            break;
        case RB_CAP_RAID:
            fprintf(f, "raid=%s\n", s_raids[p->raid]);
            break;
        case RB_CAP_RAID_GROUP:
            fprintf(f, "raid_group=%" PRIu64 "\n", p->raid_group);
            break;
        case RB_CAP_HOT_SPARES:
            fprintf(f, "hot_spares_per_group=%" PRIu64 "\n", p->hot_spares);
            break;
        case RB_CAP_FS_OVERHEAD:
            fprintf(f, "fs_overhead=%s\n",
                    rb_project_fixed_text(buf, sizeof buf, p->fs_overhead_ppm, true));
            break;
        case RB_CAP_USABLE_PER_UNIT:
            fprintf(f, "usable_per_unit=%s\n",
                    s_fmt_amount(buf, sizeof buf, p->usable_per_unit, ""));
            break;
        case RB_CAP_UNIT_HEIGHT_U:
            fprintf(f, "unit_height_u=%" PRIu64 "\n", p->unit_height_u);
            break;
        case RB_CAP_RACK_HEIGHT_U:
            fprintf(f, "rack_height_u=%" PRIu64 "\n", p->rack_height_u);
            break;
        case RB_CAP_UNITS_PER_RACK:
            fprintf(f, "units_per_rack=%" PRIu64 "\n", p->units_per_rack);
            break;
        case RB_CAP_DERATE:
            fprintf(f, "derate=%s\n", rb_project_fixed_text(buf, sizeof buf, p->derate_ppm, false));
            break;
        case RB_CAP_TARGET_CAPACITY:
            fprintf(f, "target_capacity=%s\n",
                    s_fmt_amount(buf, sizeof buf, p->target_capacity, ""));
            break;
        case RB_CAP_TARGET_BW:
            fprintf(f, "target_bw=%s\n", s_fmt_amount(buf, sizeof buf, p->target_bw, "/s"));
            break;
        case RB_CAP_TARGET_IOPS:
            fprintf(f, "target_iops=%s\n", s_fmt_rate(buf, sizeof buf, p->target_iops));
            break;
        case RB_CAP_PHASES:
            fprintf(f, "phases=");
            for (uint32_t i = 0; i < p->nphases; i++)
                if (p->phases[i] < nphases)
                    fprintf(f, "%s%s", i ? "," : "", phases[p->phases[i]].name);
            fputc('\n', f);
            break;
        case RB_CAP_NKEYS:
            break;
        }
    }
    /* what the section means, for the reader; comments, so re-reading ignores them */
    if (p->has_model)
        fprintf(f, "; %s\n", rb_project_model_words(words, sizeof words, p));
    if (p->units_per_rack && !p->key_line[RB_CAP_UNITS_PER_RACK])
        fprintf(f, "; %" PRIu64 " units a rack (%" PRIu64 "U / %" PRIu64 "U)\n", p->units_per_rack,
                p->rack_height_u, p->unit_height_u);
    if (!p->units_per_rack)
        fprintf(f, "; no units a rack given: per-rack figures will be left out\n");
    if (!p->key_line[RB_CAP_PHASES]) {
        fprintf(f, "; throughput from the data phases:");
        for (uint32_t i = 0; i < p->nphases; i++)
            if (p->phases[i] < nphases)
                fprintf(f, "%s%s", i ? ", " : " ", phases[p->phases[i]].name);
        fprintf(f, "%s\n", p->nphases ? "" : " none");
    }
    return ferror(f) ? -EIO : 0;
}
