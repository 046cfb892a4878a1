/* Reads a plan's acceptance sections, refusing any value that could be read
 * two ways, resolves them against the plan's phases and prints them back.
 * Judging a run against them is analysis/rb_accept_result.c. */
#include "rb_accept.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rb_units.h"
#include "rb_names.h"

#define S_SPREAD_ONE      RB_ACCEPT_SPREAD_ONE
#define S_SPREAD_MAX      (100u * S_SPREAD_ONE) /* 10000% */
#define S_SPREAD_DECIMALS 4                     /* of a percentage: 12.3456% */
#define S_MAX_NODES       100000u               /* as rackbench run's --expect */

static const struct {
    const char *name; /* key in the plan */
    const char *unit; /* of limit and measured in summary.json */
    bool min;         /* passes at or above the limit */
    bool bw;          /* about bandwidth: does not apply to metadata steps */
} s_checks[RB_ACCEPT_NCHECKS] = {
    [RB_ACCEPT_MIN_AGGREGATE_BW] = {"min_aggregate_bw", "B/s", true, true},
    [RB_ACCEPT_MIN_NODE_BW] = {"min_node_bw", "B/s", true, true},
    [RB_ACCEPT_MAX_NODE_SPREAD] = {"max_node_spread", "%", false, true},
    [RB_ACCEPT_MAX_P99_LAT] = {"max_p99_lat", "us", false, false},
    [RB_ACCEPT_MAX_P999_LAT] = {"max_p999_lat", "us", false, false},
    [RB_ACCEPT_MAX_MEAN_LAT] = {"max_mean_lat", "us", false, false},
    [RB_ACCEPT_MIN_IOPS] = {"min_iops", "ops/s", true, false},
    [RB_ACCEPT_MIN_NODES] = {"min_nodes", "nodes", true, false},
    [RB_ACCEPT_MAX_ERRORS] = {"max_errors", "errors", false, false},
    [RB_ACCEPT_MIN_INTERVAL_BW] = {"min_interval_bw", "B/s", true, true},
    [RB_ACCEPT_MIN_SUSTAINED_BW] = {"min_sustained_bw", "B/s", true, true},
    [RB_ACCEPT_MAX_STALL] = {"max_stall", "s", false, true},
    [RB_ACCEPT_MIN_DEVICE_BW] = {"min_device_bw", "B/s", true, true},
    [RB_ACCEPT_MIN_DEVICE_IOPS] = {"min_device_iops", "ops/s", true, false},
    [RB_ACCEPT_MAX_DEVICE_SPREAD] = {"max_device_spread", "%", false, true},
    [RB_ACCEPT_MIN_LINK_BW] = {"min_link_bw", "B/s", true, true},
    [RB_ACCEPT_MIN_NODE_NET_BW] = {"min_node_net_bw", "B/s", true, true},
    [RB_ACCEPT_MAX_LINK_SPREAD] = {"max_link_spread", "%", false, true},
    [RB_ACCEPT_MAX_REALLOCATED_GROWTH] = {"max_reallocated_growth", "sectors", false, false},
    [RB_ACCEPT_MAX_PENDING_GROWTH] = {"max_pending_growth", "sectors", false, false},
    [RB_ACCEPT_MAX_MEDIA_ERRORS_GROWTH] = {"max_media_errors_growth", "errors", false, false},
    [RB_ACCEPT_MAX_DRIVE_TEMPERATURE] = {"max_drive_temperature", "C", false, false},
    [RB_ACCEPT_REQUIRE_SMART_PASS] = {"require_smart_pass", "drives failing", false, false},
};

#define S_CHECK_LIST                                                                               \
    "min_aggregate_bw, min_node_bw, max_node_spread, max_p99_lat, max_p999_lat, max_mean_lat, "    \
    "min_iops, min_nodes, max_errors, min_interval_bw, min_sustained_bw, max_stall, "              \
    "min_device_bw, min_device_iops, max_device_spread, min_link_bw, min_node_net_bw, "            \
    "max_link_spread, max_reallocated_growth, "                                                    \
    "max_pending_growth, max_media_errors_growth, max_drive_temperature, require_smart_pass"
#define S_KEY_LIST S_CHECK_LIST ", phases, iterations"

const char *rb_accept_check_name(rb_accept_check_t c)
{
    return (unsigned)c < RB_ACCEPT_NCHECKS ? s_checks[c].name : "?";
}

bool rb_accept_check_is_run(rb_accept_check_t c)
{
    return c >= RB_ACCEPT_MAX_REALLOCATED_GROWTH && c < RB_ACCEPT_NCHECKS;
}

const char *rb_accept_check_unit(rb_accept_check_t c)
{
    return (unsigned)c < RB_ACCEPT_NCHECKS ? s_checks[c].unit : "?";
}

int rb_accept_check_is_min(rb_accept_check_t c)
{
    return (unsigned)c < RB_ACCEPT_NCHECKS && s_checks[c].min;
}

int rb_accept_check_is_bw(rb_accept_check_t c)
{
    return (unsigned)c < RB_ACCEPT_NCHECKS && s_checks[c].bw;
}

rb_accept_t *rb_accept_new(const char *source)
{
    rb_accept_t *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->source = strdup(source ? source : "<plan>");
    if (!a->source) {
        free(a);
        return NULL;
    }
    return a;
}

void rb_accept_destroy(rb_accept_t **p)
{
    if (!p || !*p)
        return;
    rb_accept_t *a = *p;
    for (uint32_t i = 0; i < a->nsets; i++) {
        free(a->sets[i].phases_text);
        free(a->sets[i].phases);
    }
    free(a->sets);
    free(a->source);
    free(a);
    *p = NULL;
}

/* Records "SOURCE:LINE: message" as -EINVAL. */
__attribute__((format(printf, 4, 5))) static int s_fail(const rb_accept_t *a, rb_err_t *err,
                                                        unsigned line, const char *fmt, ...)
{
    char what[RB_ERR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return rb_err_set(err, -EINVAL, "%s:%u: %s", a->source, line, what);
}

static int s_nomem(const rb_accept_t *a, rb_err_t *err)
{
    return rb_err_set(err, -ENOMEM, "%s: out of memory while reading the plan", a->source);
}

/* "[acceptance]" or "[acceptance NAME]", for messages. */
static const char *s_label(const rb_accept_set_t *s, char *buf, size_t len)
{
    if (s->name[0])
        snprintf(buf, len, "[acceptance %s]", s->name);
    else
        snprintf(buf, len, "[acceptance]");
    return buf;
}

const char *rb_accept_section(const char *section)
{
    static const char word[] = "acceptance";
    const size_t n = sizeof word - 1;
    if (!section || strncmp(section, word, n) != 0)
        return NULL;
    if (section[n] == '\0')
        return section + n;
    if (section[n] != ' ' && section[n] != '\t')
        return NULL;
    const char *name = section + n;
    while (*name == ' ' || *name == '\t')
        name++;
    return name;
}

int rb_accept_begin(rb_accept_t *a, const char *name, unsigned line, rb_err_t *err)
{
    size_t len = strlen(name);
    if (len >= RB_NAME_MAX)
        return s_fail(a, err, line, "acceptance set name '%.40s...' is longer than %d characters",
                      name, RB_NAME_MAX - 1);
    for (const char *c = name; *c; c++)
        if (!rb_names_char(*c))
            return s_fail(a, err, line,
                          "acceptance set name '%s' has a character other than A-Z a-z 0-9 . _ -",
                          name);
    for (uint32_t i = 0; i < a->nsets; i++) {
        if (strcmp(a->sets[i].name, name) == 0) {
            char label[RB_NAME_MAX + 16];
            return s_fail(a, err, line, "section %s appears twice (first at line %u)",
                          s_label(&a->sets[i], label, sizeof label), a->sets[i].line);
        }
    }
    if (a->nsets == RB_ACCEPT_MAX_SETS)
        return s_fail(a, err, line, "more than %u acceptance sections", RB_ACCEPT_MAX_SETS);
    rb_accept_set_t *sets = realloc(a->sets, (a->nsets + 1) * sizeof *sets);
    if (!sets)
        return s_nomem(a, err);
    a->sets = sets;
    rb_accept_set_t *s = &a->sets[a->nsets++];
    memset(s, 0, sizeof *s);
    memcpy(s->name, name, len + 1);
    s->line = line;
    s->sustained_window_ns = RB_ACCEPT_SUSTAINED_WINDOW_NS;
    return 0;
}

/* A bandwidth: a decimal number, fractions allowed, with rackbench's size
 * units (powers of 1024, rb_units_parse_size's suffixes) and an optional "/s";
 * rounded to the nearest byte per second. 0, -EINVAL or -ERANGE. */
/* "10Gbit", "940Mbit/s": bits a second, powers of 1000, into bytes/s. */
static int s_parse_bits(const char *s, size_t len, uint64_t *out)
{
    static const char pre[] = "kmgtp";
    char num[32];
    size_t nd = 0;
    while (nd < len && ((s[nd] >= '0' && s[nd] <= '9') || s[nd] == '.'))
        nd++;
    if (nd == 0 || nd >= sizeof num || len - nd > 1)
        return -EINVAL;
    uint64_t scale = 1;
    if (len - nd == 1) {
        const char *p = strchr(pre, s[nd] | 0x20);
        if (!p)
            return -EINVAL;
        for (const char *q = pre; q <= p; q++)
            scale *= 1000;
    }
    memcpy(num, s, nd);
    num[nd] = '\0';
    rb_decimal_t d;
    size_t used;
    uint64_t bits = 0;
    int rc = rb_units_parse_decimal(num, nd, UINT64_MAX, &d, &used);
    if (rc == 0 && used != nd)
        rc = -EINVAL;
    if (rc == 0)
        rc = rb_units_decimal_scale(&d, scale, UINT64_MAX, &bits);
    *out = bits / 8;
    return rc;
}

static int s_parse_bw(const char *s, uint64_t *out)
{
    char num[32], unit[16] = "1";
    size_t len = strlen(s);
    if (len >= 2 && strcasecmp(s + len - 2, "/s") == 0)
        len -= 2;
    if (len > 3 && strncasecmp(s + len - 3, "bit", 3) == 0)
        return s_parse_bits(s, len - 3, out);
    size_t nd = 0;
    while (nd < len && ((s[nd] >= '0' && s[nd] <= '9') || s[nd] == '.'))
        nd++;
    if (nd == 0 || nd >= sizeof num || len - nd + 1 >= sizeof unit)
        return -EINVAL;
    memcpy(num, s, nd);
    num[nd] = '\0';
    memcpy(unit + 1, s + nd, len - nd);
    unit[len - nd + 1] = '\0';
    uint64_t scale = 0;
    int rc = rb_units_parse_size(unit, &scale); /* "1k" is the suffix's value */
    if (rc < 0)
        return rc;
    rb_decimal_t d; /* the number: DIGITS or DIGITS.DIGITS */
    size_t used;
    if ((rc = rb_units_parse_decimal(num, nd, UINT64_MAX, &d, &used)) < 0)
        return rc;
    if (used != nd)
        return -EINVAL;
    return rb_units_decimal_scale(&d, scale, UINT64_MAX, out);
}

/* Checks the syntax of a phases= list: comma-separated names, none empty, none twice. */
static int s_check_phase_list(const rb_accept_t *a, rb_err_t *err, unsigned line, const char *val)
{
    char why[RB_ERR_MSG_MAX];
    return rb_accept_phase_list_check(val, why, sizeof why) < 0 ? s_fail(a, err, line, "%s", why)
                                                                : 0;
}

int rb_accept_phase_list_check(const char *val, char *why, size_t whylen)
{
    const char *p = val;
    for (;;) {
        size_t n = strcspn(p, ",");
        const char *b = p, *e = p + n;
        while (b < e && (*b == ' ' || *b == '\t'))
            b++;
        while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        if (b == e) {
            snprintf(why, whylen,
                     "phases=%.200s has an empty entry (a comma-separated list of phase or job "
                     "names)",
                     val);
            return -EINVAL;
        }
        if ((size_t)(e - b) >= RB_NAME_MAX) {
            snprintf(why, whylen, "phases: name '%.40s...' is longer than %d characters", b,
                     RB_NAME_MAX - 1);
            return -EINVAL;
        }
        for (const char *c = b; c < e; c++)
            if (!rb_names_char(*c) && *c != '#') { /* NAME#k: one iteration */
                snprintf(why, whylen,
                         "phases: '%.*s' is not a phase name (A-Z a-z 0-9 . _ - #, separated by "
                         "',')",
                         (int)(e - b), b);
                return -EINVAL;
            }
        /* the same name earlier in the list? */
        for (const char *q = val; q < p;) {
            size_t m = strcspn(q, ",");
            const char *qb = q, *qe = q + m;
            while (qb < qe && (*qb == ' ' || *qb == '\t'))
                qb++;
            while (qe > qb && (qe[-1] == ' ' || qe[-1] == '\t'))
                qe--;
            if (qe - qb == e - b && memcmp(qb, b, (size_t)(e - b)) == 0) {
                snprintf(why, whylen, "phases: '%.*s' is listed twice", (int)(e - b), b);
                return -EINVAL;
            }
            q += m + 1;
        }
        if (!p[n])
            break;
        p += n + 1;
    }
    return 0;
}

/* A percentage with up to S_SPREAD_DECIMALS decimals and a '%' into
 * millionths. 0, -EINVAL (no '%', junk) or -ERANGE (too many decimals or too large). */
static int s_parse_spread(const char *s, uint64_t *out)
{
    uint64_t v;
    int rc =
        rb_units_parse_fixed(s, S_SPREAD_DECIMALS, "%", S_SPREAD_MAX / (S_SPREAD_ONE / 100), &v);
    if (rc < 0)
        return rc;
    if (v > S_SPREAD_MAX)
        return -ERANGE;
    *out = v;
    return 0;
}

/* min_sustained_bw's value: BANDWIDTH or BANDWIDTH/WINDOW, WINDOW a duration
 * with its unit ("1G/10s", "500M/s/30s"; "1G/s" is a bandwidth alone), the
 * window into *window_ns (left as it is without one). 0 or -EINVAL/-ERANGE
 * with err set. */
static int s_sustained(const rb_accept_t *a, rb_err_t *err, unsigned line, const char *key,
                       const char *val, uint64_t *out, uint64_t *window_ns)
{
    char bw[64];
    const char *slash = strrchr(val, '/');
    size_t n = strlen(val);
    if (slash && slash[1] >= '0' && slash[1] <= '9') {
        n = (size_t)(slash - val);
        int rc = rb_units_parse_duration_ns(slash + 1, 0, window_ns);
        if (rc < 0 || *window_ns == 0)
            return s_fail(a, err, line,
                          "bad window '%.64s' for %s (BANDWIDTH/WINDOW, the window a duration "
                          "with its unit greater than 0, e.g. 1G/10s)",
                          slash + 1, key);
    }
    if (n >= sizeof bw)
        return s_fail(a, err, line, "bad bandwidth '%.64s' for %s", val, key);
    memcpy(bw, val, n);
    bw[n] = '\0';
    int rc = s_parse_bw(bw, out);
    if (rc == -ERANGE)
        return s_fail(a, err, line, "%s=%.64s is too large", key, val);
    if (rc < 0)
        return s_fail(a, err, line,
                      "bad bandwidth '%.64s' for %s (bytes/s with k, M, G, T or P and an optional "
                      "/s, then an optional /WINDOW: e.g. 1G/10s)",
                      val, key);
    if (*out == 0)
        return s_fail(a, err, line, "%s must be greater than 0", key);
    return 0;
}

static int s_value(const rb_accept_t *a, rb_err_t *err, unsigned line, rb_accept_check_t c,
                   const char *key, const char *val, uint64_t *out)
{
    int rc;
    switch (c) {
    case RB_ACCEPT_MIN_SUSTAINED_BW:
        return s_sustained(a, err, line, key, val, out, &a->sets[a->nsets - 1].sustained_window_ns);
    case RB_ACCEPT_MAX_STALL:
        rc = rb_units_parse_duration_ns(val, 0, out);
        if (rc == -ERANGE)
            return s_fail(a, err, line, "%s=%.64s is too large", key, val);
        if (rc < 0)
            return s_fail(a, err, line,
                          "bad duration '%.64s' for %s (a number with a unit: ms or s, e.g. 2s; "
                          "0s allows no stall)",
                          val, key);
        return 0;
    case RB_ACCEPT_MIN_INTERVAL_BW:
    case RB_ACCEPT_MIN_AGGREGATE_BW:
    case RB_ACCEPT_MIN_NODE_BW:
    case RB_ACCEPT_MIN_DEVICE_BW:
    case RB_ACCEPT_MIN_LINK_BW:
    case RB_ACCEPT_MIN_NODE_NET_BW:
        rc = s_parse_bw(val, out);
        if (rc == -ERANGE)
            return s_fail(a, err, line, "%s=%.64s is too large", key, val);
        if (rc < 0)
            return s_fail(a, err, line,
                          "bad bandwidth '%.64s' for %s (bytes/s: a number with k, M, G, T or P, "
                          "powers of 1024, and an optional /s, e.g. 1.5G; or bits a second: "
                          "10Gbit, 940Mbit, powers of 1000)",
                          val, key);
        if (*out == 0)
            return s_fail(a, err, line, "%s must be greater than 0", key);
        return 0;
    case RB_ACCEPT_MAX_NODE_SPREAD:
    case RB_ACCEPT_MAX_DEVICE_SPREAD:
    case RB_ACCEPT_MAX_LINK_SPREAD:
        rc = s_parse_spread(val, out);
        if (rc == -ERANGE)
            return s_fail(a, err, line,
                          "%s=%.64s is out of range (0%% to 10000%%, at most %d decimals)", key,
                          val, S_SPREAD_DECIMALS);
        if (rc < 0)
            return s_fail(a, err, line,
                          "bad value '%.64s' for %s (a percentage with '%%', e.g. 25%% or 7.5%%)",
                          val, key);
        return 0;
    case RB_ACCEPT_MAX_P99_LAT:
    case RB_ACCEPT_MAX_P999_LAT:
    case RB_ACCEPT_MAX_MEAN_LAT:
        rc = rb_units_parse_duration_ns(val, 0, out);
        if (rc == -ERANGE)
            return s_fail(a, err, line, "%s=%.64s is too large", key, val);
        if (rc < 0)
            return s_fail(a, err, line,
                          "bad duration '%.64s' for %s (a number with a unit: ns, us, ms or s, "
                          "e.g. 5ms)",
                          val, key);
        if (*out == 0)
            return s_fail(a, err, line, "%s must be greater than 0", key);
        return 0;
    case RB_ACCEPT_MIN_IOPS:
    case RB_ACCEPT_MIN_DEVICE_IOPS:
        rc = rb_units_parse_count(val, 1, UINT64_MAX, out);
        if (rc == -ERANGE)
            return s_fail(a, err, line, "%s=%.64s is out of range (1 or more)", key, val);
        if (rc < 0)
            return s_fail(a, err, line, "bad number '%.64s' for %s (whole operations per second)",
                          val, key);
        return 0;
    case RB_ACCEPT_MIN_NODES:
        rc = rb_units_parse_count(val, 1, S_MAX_NODES, out);
        if (rc == -ERANGE)
            return s_fail(a, err, line, "%s=%.64s is out of range (1..%u)", key, val, S_MAX_NODES);
        if (rc < 0)
            return s_fail(a, err, line, "bad number '%.64s' for %s", val, key);
        return 0;
    case RB_ACCEPT_REQUIRE_SMART_PASS:
        if (strcmp(val, "0") != 0 && strcmp(val, "1") != 0)
            return s_fail(a, err, line,
                          "bad value '%.64s' for %s (1: every drive's own verdict must be PASSED; "
                          "0: not judged)",
                          val, key);
        *out = val[0] == '1';
        return 0;
    case RB_ACCEPT_MAX_DRIVE_TEMPERATURE:
        rc = rb_units_parse_count(val, 1, 200, out);
        if (rc < 0)
            return s_fail(a, err, line,
                          "bad value '%.64s' for %s (whole degrees Celsius, 1 to 200)", val, key);
        return 0;
    case RB_ACCEPT_MAX_REALLOCATED_GROWTH:
    case RB_ACCEPT_MAX_PENDING_GROWTH:
    case RB_ACCEPT_MAX_MEDIA_ERRORS_GROWTH:
    case RB_ACCEPT_MAX_ERRORS:
        rc = rb_units_parse_count(val, 0, UINT64_MAX, out);
        if (rc == -ERANGE)
            return s_fail(a, err, line, "%s=%.64s is too large", key, val);
        if (rc < 0)
            return s_fail(a, err, line, "bad number '%.64s' for %s", val, key);
        return 0;
    case RB_ACCEPT_NCHECKS:
        break;
    }
    return s_fail(a, err, line, "unknown check '%s'", key);
}

int rb_accept_option(rb_accept_t *a, const char *key, const char *val, unsigned line, rb_err_t *err)
{
    if (a->nsets == 0)
        return s_fail(a, err, line, "option '%.64s' is outside an [acceptance] section", key);
    rb_accept_set_t *s = &a->sets[a->nsets - 1];
    char label[RB_NAME_MAX + 16];
    s_label(s, label, sizeof label);

    if (strcmp(key, "iterations") == 0) {
        if (s->iter_line)
            return s_fail(a, err, line, "option '%s' is given twice in %s (first at line %u)", key,
                          label, s->iter_line);
        if (!val || (strcmp(val, "worst") && strcmp(val, "mean")))
            return s_fail(a, err, line,
                          "iterations=%.64s in %s: expected worst (every iteration must pass) "
                          "or mean (the mean of a repeated phase's iterations is judged)",
                          val ? val : "", label);
        s->iter_mean = !strcmp(val, "mean");
        s->iter_line = line;
        return 0;
    }
    bool phases = strcmp(key, "phases") == 0;
    int c = -1;
    for (int i = 0; i < RB_ACCEPT_NCHECKS && !phases; i++)
        if (strcmp(key, s_checks[i].name) == 0)
            c = i;
    if (!phases && c < 0)
        return s_fail(a, err, line, "unknown option '%.64s' in %s (%s)", key, label, S_KEY_LIST);
    unsigned first = phases ? s->phases_line : s->limit_line[c];
    if (first)
        return s_fail(a, err, line, "option '%s' is given twice in %s (first at line %u)", key,
                      label, first);
    if (!val || !*val)
        return s_fail(a, err, line, "option '%s' needs a value (%s=...)", key, key);
    if (phases) {
        int rc = s_check_phase_list(a, err, line, val);
        if (rc < 0)
            return rc;
        s->phases_text = strdup(val);
        if (!s->phases_text)
            return s_nomem(a, err);
        s->phases_line = line;
        return 0;
    }
    uint64_t v = 0;
    int rc = s_value(a, err, line, (rb_accept_check_t)c, key, val, &v);
    if (rc < 0)
        return rc;
    s->limit[c] = v;
    s->limit_line[c] = line;
    return 0;
}

int rb_accept_end(rb_accept_t *a, rb_err_t *err)
{
    if (a->nsets == 0)
        return 0;
    const rb_accept_set_t *s = &a->sets[a->nsets - 1];
    for (int c = 0; c < RB_ACCEPT_NCHECKS; c++)
        if (s->limit_line[c])
            return 0;
    char label[RB_NAME_MAX + 16];
    return s_fail(a, err, s->line, "%s has no checks (%s)", s_label(s, label, sizeof label),
                  S_CHECK_LIST);
}

uint32_t rb_accept_match_phases(const char *name, const rb_phase_spec_t *phases, uint32_t nphases,
                                bool *hit)
{
    for (uint32_t p = 0; p < nphases; p++) {
        if (strcmp(phases[p].name, name) == 0) {
            hit[p] = true;
            return 1;
        }
    }
    uint32_t n = 0; /* a job's phase: each of its iterations */
    for (uint32_t p = 0; p < nphases; p++) {
        for (uint32_t j = 0; j < phases[p].njobs; j++) {
            if (strcmp(phases[p].jobs[j].name, name) == 0) {
                hit[p] = true;
                n++;
                break;
            }
        }
    }
    if (n)
        return n;
    size_t len = strlen(name);
    for (uint32_t p = 0; p < nphases; p++) {
        const char *op =
            rb_phase_spec_is_meta(&phases[p]) ? rb_meta_op_name(phases[p].jobs[0].meta_op) : NULL;
        if (op && strncmp(phases[p].name, name, len) == 0 && phases[p].name[len] == '.' &&
            strcmp(phases[p].name + len + 1, op) == 0) {
            hit[p] = true;
            n++;
        }
    }
    return n;
}

/* The plan's phase names, comma-separated, cut to fit len. */
static void s_phase_names(char *buf, size_t len, const rb_phase_spec_t *phases, uint32_t nphases)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t p = 0; p < nphases; p++) {
        size_t n = strlen(phases[p].name);
        if (used + n + 8 >= len) {
            snprintf(buf + used, len - used, ", ...");
            return;
        }
        used += (size_t)snprintf(buf + used, len - used, "%s%s", p ? ", " : "", phases[p].name);
    }
}

static int s_resolve_set(rb_accept_t *a, rb_accept_set_t *s, const rb_phase_spec_t *phases,
                         uint32_t nphases, bool *hit, rb_err_t *err)
{
    char label[RB_NAME_MAX + 16];
    s_label(s, label, sizeof label);
    memset(hit, 0, nphases * sizeof *hit);
    if (!s->phases_text) {
        for (uint32_t p = 0; p < nphases; p++)
            hit[p] = true;
    } else {
        const char *q = s->phases_text;
        for (;;) {
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
                s_phase_names(known, sizeof known, phases, nphases);
                return s_fail(a, err, s->phases_line,
                              "phases: '%s' in %s is neither a phase nor a job of the plan "
                              "(phases: %s)",
                              name, label, known);
            }
            if (!q[m])
                break;
            q += m + 1;
        }
        /* a bandwidth limit named for a metadata step is a mistake, not a pass */
        for (uint32_t p = 0; p < nphases; p++) {
            if (!hit[p] || !rb_phase_spec_is_meta(&phases[p]))
                continue;
            for (int c = 0; c < RB_ACCEPT_NCHECKS; c++)
                if (s->limit_line[c] && s_checks[c].bw)
                    return s_fail(a, err, s->phases_line,
                                  "phases: '%s' is a metadata step, and %s (line %u) does not "
                                  "apply to it: metadata steps are measured in operations "
                                  "(min_iops), so put them in an [acceptance NAME] set of their "
                                  "own",
                                  phases[p].name, s_checks[c].name, s->limit_line[c]);
        }
    }
    s->nphases = 0;
    free(s->phases);
    s->phases = malloc((nphases ? nphases : 1) * sizeof *s->phases);
    if (!s->phases)
        return s_nomem(a, err);
    bool data = false;
    for (uint32_t p = 0; p < nphases; p++) {
        if (hit[p]) {
            s->phases[s->nphases++] = p;
            data = data || !rb_phase_spec_is_meta(&phases[p]);
        }
    }
    /* every check must apply to some phase, or it could never fail */
    for (int c = 0; c < RB_ACCEPT_NCHECKS && !data; c++)
        if (s->limit_line[c] && s_checks[c].bw)
            return s_fail(a, err, s->limit_line[c],
                          "%s in %s applies to no phase: every phase is a metadata step, which "
                          "is measured in operations (use min_iops)",
                          s_checks[c].name, label);
    return 0;
}

int rb_accept_resolve(rb_accept_t *a, const rb_phase_spec_t *phases, uint32_t nphases,
                      rb_err_t *err)
{
    bool *hit = calloc(nphases ? nphases : 1, sizeof *hit);
    if (!hit)
        return s_nomem(a, err);
    int rc = 0;
    for (uint32_t i = 0; i < a->nsets && rc == 0; i++)
        rc = s_resolve_set(a, &a->sets[i], phases, nphases, hit, err);
    free(hit);
    return rc;
}

/* Millionths as a percentage, without trailing zeros ("25%", "7.5%"). */
static const char *s_fmt_spread(char *buf, size_t len, uint64_t millionths)
{
    const uint64_t per = S_SPREAD_ONE / 100;
    uint64_t whole = millionths / per, frac = millionths % per;
    if (frac == 0) {
        snprintf(buf, len, "%" PRIu64 "%%", whole);
        return buf;
    }
    char digits[8];
    snprintf(digits, sizeof digits, "%0*" PRIu64, S_SPREAD_DECIMALS, frac);
    for (size_t n = strlen(digits); n > 0 && digits[n - 1] == '0'; n--)
        digits[n - 1] = '\0';
    snprintf(buf, len, "%" PRIu64 ".%s%%", whole, digits);
    return buf;
}

int rb_accept_print(const rb_accept_t *a, const rb_phase_spec_t *phases, uint32_t nphases, FILE *f)
{
    if (!a)
        return 0;
    for (uint32_t i = 0; i < a->nsets; i++) {
        const rb_accept_set_t *s = &a->sets[i];
        char buf[64], label[RB_NAME_MAX + 16];
        fprintf(f, "\n%s\n", s_label(s, label, sizeof label));
        if (s->iter_line)
            fprintf(f, "iterations=%s\n", s->iter_mean ? "mean" : "worst");
        if (s->phases_text) {
            fprintf(f, "phases=");
            for (uint32_t k = 0; k < s->nphases; k++)
                if (s->phases[k] < nphases)
                    fprintf(f, "%s%s", k ? "," : "", phases[s->phases[k]].name);
            fputc('\n', f);
        }
        for (int c = 0; c < RB_ACCEPT_NCHECKS; c++) {
            if (!s->limit_line[c])
                continue;
            uint64_t v = s->limit[c];
            switch ((rb_accept_check_t)c) {
            case RB_ACCEPT_MIN_AGGREGATE_BW:
            case RB_ACCEPT_MIN_NODE_BW:
            case RB_ACCEPT_MIN_INTERVAL_BW:
            case RB_ACCEPT_MIN_DEVICE_BW:
            case RB_ACCEPT_MIN_LINK_BW:
            case RB_ACCEPT_MIN_NODE_NET_BW:
                rb_units_fmt_size_exact(buf, sizeof buf, v);
                break;
            case RB_ACCEPT_MIN_SUSTAINED_BW: {
                char win[32];
                rb_units_fmt_size_exact(buf, sizeof buf, v);
                rb_units_fmt_duration_exact(win, sizeof win, s->sustained_window_ns);
                size_t used = strlen(buf);
                snprintf(buf + used, sizeof buf - used, "/%s", win);
                break;
            }
            case RB_ACCEPT_MAX_STALL:
                if (v)
                    rb_units_fmt_duration_exact(buf, sizeof buf, v);
                else
                    snprintf(buf, sizeof buf, "0s");
                break;
            case RB_ACCEPT_MAX_NODE_SPREAD:
            case RB_ACCEPT_MAX_DEVICE_SPREAD:
            case RB_ACCEPT_MAX_LINK_SPREAD:
                s_fmt_spread(buf, sizeof buf, v);
                break;
            case RB_ACCEPT_MAX_P99_LAT:
            case RB_ACCEPT_MAX_P999_LAT:
            case RB_ACCEPT_MAX_MEAN_LAT:
                if (v)
                    rb_units_fmt_duration_exact(buf, sizeof buf, v);
                else
                    snprintf(buf, sizeof buf, "0s"); /* as this print has always written 0 */
                break;
            default:
                snprintf(buf, sizeof buf, "%" PRIu64, v);
                break;
            }
            fprintf(f, "%s=%s\n", s_checks[c].name, buf);
        }
    }
    return ferror(f) ? -EIO : 0;
}
