/* Drive health before and after a run, compared (rb_drives.h). */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_drives.h"
#include "rb_names.h"
#include "rb_text.h"

static const char *const s_counter_names[RB_HC_COUNT] = {
    "reallocated",  "pending",   "offline_uncorrectable", "crc_errors",
    "media_errors", "error_log", "critical_warning",      "percentage_used",
};

const char *rb_health_counter_name(rb_health_counter_t c)
{
    return (unsigned)c < RB_HC_COUNT ? s_counter_names[c] : "?";
}

uint64_t rb_health_counter(const rb_health_t *h, rb_health_counter_t c)
{
    switch (c) {
    case RB_HC_REALLOCATED:
        return h->reallocated;
    case RB_HC_PENDING:
        return h->pending;
    case RB_HC_OFFLINE_UNC:
        return h->offline_unc;
    case RB_HC_CRC_ERRORS:
        return h->crc_errors;
    case RB_HC_MEDIA_ERRORS:
        return h->media_errors;
    case RB_HC_ERROR_LOG:
        return h->error_log;
    case RB_HC_CRITICAL_WARNING:
        return h->critical_warning;
    case RB_HC_PERCENTAGE_USED:
        return h->percentage_used;
    default:
        return RB_HEALTH_NA;
    }
}

const char *rb_drive_status_name(rb_drive_status_t s)
{
    static const char *const names[] = {"ok", "worse", "failing", "not read"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

const rb_health_t *rb_drive_last(const rb_drive_t *d)
{
    return d->after ? d->after : d->before;
}

int rb_health_has_counters(const rb_health_t *h)
{
    return h && !h->reason[0];
}

char *rb_drive_name(const char *node, const rb_health_t *h, int serial, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s (%s%s%s)", node, h->dev, h->model[0] ? h->model : "model unknown",
             serial ? ", serial " : "",
             !serial        ? ""
             : h->serial[0] ? h->serial
                            : "unknown");
    return buf;
}

char *rb_drive_cell(const rb_drive_t *d, rb_health_counter_t c, const char *arrow, char *buf,
                    size_t len)
{
    uint64_t a = d->before ? rb_health_counter(d->before, c) : RB_HEALTH_NA;
    uint64_t b = d->after ? rb_health_counter(d->after, c) : RB_HEALTH_NA;
    if (d->grew & (1u << c))
        snprintf(buf, len, "%llu%s%llu", (unsigned long long)a, arrow, (unsigned long long)b);
    else if (b != RB_HEALTH_NA || a != RB_HEALTH_NA)
        snprintf(buf, len, "%llu", (unsigned long long)(b != RB_HEALTH_NA ? b : a));
    else
        snprintf(buf, len, "-");
    return buf;
}

/* The drive's verdict and counters compared into d. */
static void s_judge(rb_drive_t *d, uint32_t protocol)
{
    const rb_health_t *b = d->before, *a = d->after, *last = rb_drive_last(d);
    d->reason = "";
    if (!rb_health_has_counters(b) || !rb_health_has_counters(a)) {
        d->status = RB_DRIVE_NOT_READ;
        if (last && last->reason[0])
            d->reason = last->reason;
        else if (!a && protocol >= 27)
            d->reason = "no reading after the run (its agent did not end the run)";
        else
            d->reason = !b ? "no reading before the run" : "no reading after the run";
    }
    if (rb_health_has_counters(b) && rb_health_has_counters(a) && b->serial[0] && a->serial[0] &&
        strcmp(b->serial, a->serial)) {
        d->status = RB_DRIVE_NOT_READ; /* not the same drive: nothing to compare */
        size_t len = sizeof "another drive after the run: serial  before,  after" +
                     strlen(b->serial) + strlen(a->serial);
        if ((d->owned = malloc(len))) {
            snprintf(d->owned, len, "another drive after the run: serial %s before, %s after",
                     b->serial, a->serial);
            d->reason = d->owned;
        } else
            d->reason = "another drive after the run (out of memory saying which)";
        return;
    }
    if (rb_health_has_counters(b) && rb_health_has_counters(a)) {
        for (int c = 0; c < RB_HC_COUNT; c++) {
            uint64_t x = rb_health_counter(b, c), y = rb_health_counter(a, c);
            if (x != RB_HEALTH_NA && y != RB_HEALTH_NA && y > x)
                d->grew |= 1u << c;
        }
        d->spare_low = a->available_spare != RB_HEALTH_NA && a->spare_threshold != RB_HEALTH_NA &&
                       a->available_spare <= a->spare_threshold;
        d->status = d->grew || d->spare_low ? RB_DRIVE_WORSE : RB_DRIVE_OK;
    }
    if ((rb_health_has_counters(b) && b->verdict == RB_SMART_FAILED) ||
        (rb_health_has_counters(a) && a->verdict == RB_SMART_FAILED))
        d->status = RB_DRIVE_FAILING;
}

const char *rb_drive_kind(const rb_drive_t *d)
{
    const char *dev = rb_drive_last(d)->dev;
    size_t n = strlen(dev);
    if (n && !strncmp(d->reason, dev, n) && d->reason[n] == ':' && d->reason[n + 1] == ' ')
        return d->reason + n + 2;
    return d->reason;
}

static int s_order(const void *x, const void *y)
{
    static const int rank[] = {
        [RB_DRIVE_FAILING] = 0, [RB_DRIVE_WORSE] = 1, [RB_DRIVE_OK] = 2, [RB_DRIVE_NOT_READ] = 3};
    const rb_drive_t *a = x, *b = y;
    if (rank[a->status] != rank[b->status])
        return rank[a->status] - rank[b->status];
    int c = a->status == RB_DRIVE_NOT_READ ? strcmp(rb_drive_kind(a), rb_drive_kind(b)) : 0;
    c = c ? c : strcmp(a->node, b->node);
    return c ? c : strcmp(rb_drive_last(a)->dev, rb_drive_last(b)->dev);
}

uint32_t rb_drives_group_end(const rb_drives_t *d, uint32_t i)
{
    uint32_t e = i + 1;
    while (e < d->n && d->d[i].status == RB_DRIVE_NOT_READ &&
           !strcmp(rb_drive_kind(&d->d[i]), rb_drive_kind(&d->d[e])))
        e++;
    return e;
}

int rb_drives_build(const rb_run_result_t *r, rb_drives_t *out)
{
    memset(out, 0, sizeof *out);
    uint32_t cap = 0;
    for (uint32_t i = 0; i < r->nnodes; i++)
        cap += r->nodes[i].nhealth[0] + r->nodes[i].nhealth[1];
    if (cap && !(out->d = calloc(cap, sizeof *out->d)))
        return -ENOMEM;
    for (uint32_t i = 0; i < r->nnodes; i++) {
        const rb_report_node_t *n = &r->nodes[i];
        if (!n->nhealth[0] && !n->nhealth[1]) {
            out->nsilent++;
            continue;
        }
        /* the readings before, each with its reading after (by device),
         * among this node's drives only: a fleet's 16,000 nodes of 12
         * drives took minutes when each after looked through all */
        uint32_t first = out->n;
        for (int k = 0; k < 2; k++)
            for (uint32_t j = 0; j < n->nhealth[k]; j++) {
                const rb_health_t *h = &n->health[k][j];
                rb_drive_t *d = NULL;
                for (uint32_t e = first; k == 1 && e < out->n && !d; e++)
                    if (out->d[e].before && !out->d[e].after &&
                        !strcmp(out->d[e].before->dev, h->dev))
                        d = &out->d[e];
                if (!d) {
                    d = &out->d[out->n++];
                    d->node = n->name;
                }
                if (k == 0)
                    d->before = h;
                else
                    d->after = h;
            }
        for (uint32_t e = first; e < out->n; e++)
            s_judge(&out->d[e], n->protocol);
    }
    for (uint32_t e = 0; e < out->n; e++) {
        const rb_health_t *last = rb_drive_last(&out->d[e]);
        out->nunread += out->d[e].status == RB_DRIVE_NOT_READ && !(last && last->no_smart);
        out->nread += out->d[e].status != RB_DRIVE_NOT_READ;
        out->nworse += out->d[e].status == RB_DRIVE_WORSE || out->d[e].status == RB_DRIVE_FAILING;
        out->nbefore += rb_health_has_counters(out->d[e].before);
        out->nafter += out->d[e].after != NULL;
    }
    if (out->n > 1)
        qsort(out->d, out->n, sizeof *out->d, s_order);
    return 0;
}

void rb_drives_fini(rb_drives_t *d)
{
    for (uint32_t i = 0; i < d->n; i++)
        free(d->d[i].owned);
    free(d->d);
    memset(d, 0, sizeof *d);
}

char *rb_drive_evidence(const rb_drive_t *d, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
#define S_ADD(...)                                                                                 \
    do {                                                                                           \
        if (at < len)                                                                              \
            at += (size_t)snprintf(buf + at, len - at, __VA_ARGS__);                               \
    } while (0)
    const rb_health_t *last = rb_drive_last(d);
    if (d->status == RB_DRIVE_FAILING)
        S_ADD("the drive's verdict is FAILING");
    for (int c = 0; c < RB_HC_COUNT; c++)
        if (d->grew & (1u << c))
            S_ADD("%s%s %llu -> %llu", at ? ", " : "", rb_health_counter_name(c),
                  (unsigned long long)rb_health_counter(d->before, c),
                  (unsigned long long)rb_health_counter(d->after, c));
    if (d->spare_low)
        S_ADD("%sspare %llu%% (threshold %llu%%)", at ? ", " : "",
              (unsigned long long)last->available_spare, (unsigned long long)last->spare_threshold);
#undef S_ADD
    return buf;
}

/* ---- summary.json: "drive_health" ---- */

/* Counter key of h, null when the drive does not report it. */
static void s_jw_counter(rb_jw_t *w, const char *key, uint64_t v)
{
    if (v == RB_HEALTH_NA)
        rb_jw_null(w, key);
    else
        rb_jw_u64(w, key, v);
}

static const char *const s_verdicts[] = {"unknown", "passed", "failed"};

/* One reading as an object (NULL: null). */
static void s_jw_reading(rb_jw_t *w, const char *key, const rb_health_t *h)
{
    if (!h) {
        rb_jw_null(w, key);
        return;
    }
    rb_jw_obj_begin(w, key);
    rb_jw_str(w, "device", h->dev);
    rb_jw_str(w, "model", h->model);
    rb_jw_str(w, "serial", h->serial);
    rb_jw_str(w, "protocol", h->protocol);
    rb_jw_str(w, "reason", h->reason[0] ? h->reason : NULL);
    rb_jw_str(w, "verdict", s_verdicts[h->verdict <= RB_SMART_FAILED ? h->verdict : 0]);
    rb_jw_u64(w, "exit_status", h->exit_status);
    rb_jw_bool(w, "no_smart", h->no_smart);
    for (int c = 0; c < RB_HC_COUNT; c++)
        s_jw_counter(w, rb_health_counter_name(c), rb_health_counter(h, c));
    s_jw_counter(w, "available_spare", h->available_spare);
    s_jw_counter(w, "spare_threshold", h->spare_threshold);
    s_jw_counter(w, "temperature", h->temperature);
    s_jw_counter(w, "temperature_max", h->temperature_max);
    s_jw_counter(w, "power_on_hours", h->power_on_hours);
    rb_jw_obj_end(w);
}

int rb_drives_shown(const rb_run_result_t *r)
{
    for (uint32_t i = 0; i < r->nnodes; i++)
        if (r->nodes[i].protocol >= 27 || r->nodes[i].nhealth[0] || r->nodes[i].nhealth[1])
            return 1;
    return 0;
}

int rb_drives_json(rb_jw_t *w, const rb_run_result_t *r)
{
    if (!rb_drives_shown(r))
        return 0;
    rb_drives_t d;
    if (rb_drives_build(r, &d) < 0)
        return -ENOMEM;
    char ev[512];
    rb_jw_obj_begin(w, "drive_health");
    rb_jw_u64(w, "drives_read", d.nread);
    rb_jw_u64(w, "drives_worse", d.nworse);
    rb_jw_u64(w, "drives_not_read", d.n - d.nread);
    rb_jw_u64(w, "nodes_without_readings", d.nsilent);
    rb_jw_arr_begin(w, "drives");
    for (uint32_t i = 0; i < d.n; i++) {
        const rb_drive_t *x = &d.d[i];
        const rb_health_t *last = rb_drive_last(x);
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "node", x->node);
        rb_jw_str(w, "device", last->dev);
        rb_jw_str(w, "model", last->model);
        rb_jw_str(w, "serial", last->serial);
        rb_jw_str(w, "status", rb_drive_status_name(x->status));
        rb_jw_str(w, "reason", x->status == RB_DRIVE_NOT_READ ? x->reason : NULL);
        rb_jw_arr_begin(w, "grew");
        for (int c = 0; c < RB_HC_COUNT; c++)
            if (x->grew & (1u << c))
                rb_jw_str(w, NULL, rb_health_counter_name(c));
        rb_jw_arr_end(w);
        rb_jw_str(w, "evidence", rb_drive_evidence(x, ev, sizeof ev)[0] ? ev : NULL);
        s_jw_reading(w, "before", x->before);
        s_jw_reading(w, "after", x->after);
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
    rb_jw_arr_begin(w, "findings");
    for (uint32_t i = 0; i < d.n; i++) {
        const rb_drive_t *x = &d.d[i];
        if (x->status != RB_DRIVE_WORSE && x->status != RB_DRIVE_FAILING)
            continue;
        const rb_health_t *last = rb_drive_last(x);
        rb_jw_obj_begin(w, NULL);
        rb_jw_str(w, "kind", "drive-health");
        rb_jw_str(w, "node", x->node);
        rb_jw_str(w, "device", last->dev);
        rb_jw_str(w, "model", last->model);
        rb_jw_str(w, "serial", last->serial);
        rb_jw_str(w, "evidence", rb_drive_evidence(x, ev, sizeof ev));
        rb_jw_obj_end(w);
    }
    rb_jw_arr_end(w);
    rb_jw_obj_end(w);
    rb_drives_fini(&d);
    return 0;
}

/* ---- report.txt: "Drive health" ---- */

/* lines of drives not read (one per reason), and disks named on each; the rest counted */
#define S_NOT_READ_LINES 8
#define S_NOT_READ_NAMES 6
#define S_OK_LINES       8 /* drives ok listed, after the worse; the rest counted */

int rb_drives_text(FILE *f, const rb_run_result_t *r)
{
    if (!rb_drives_shown(r))
        return 0;
    rb_drives_t d;
    if (rb_drives_build(r, &d) < 0)
        return -ENOMEM;
    if ((r->live || r->running) && !d.nafter) { /* nothing to compare (yet) */
        fprintf(f, "\nDrive health (smartctl): %u drive%s read before the run, %u not read; %s\n",
                d.nbefore, d.nbefore == 1 ? "" : "s", d.n - d.nbefore,
                r->live ? "each is read again after the run and compared then"
                        : "the run did not finish: they were not read after it");
        rb_drives_fini(&d);
        return 0;
    }
    fprintf(f, "\nDrive health (smartctl, before and after the run): %u read, %u worse", d.nread,
            d.nworse);
    if (d.n - d.nread)
        fprintf(f, ", %u not read", d.n - d.nread);
    if (d.nsilent)
        fprintf(f, "; %u node%s sent no reading", d.nsilent, d.nsilent == 1 ? "" : "s");
    fputc('\n', f);
    if (d.nread) {
        fprintf(f, "  %-10s %-11s %-16s %-20s %-7s %8s %7s %6s %6s %7s %4s %6s\n", "node", "device",
                "model", "serial", "status", "realloc", "pending", "crc", "media", "err.log",
                "maxC", "hours");
        uint32_t ok = 0, hottest = 0;
        for (uint32_t i = 0; i < d.n; i++) {
            const rb_drive_t *x = &d.d[i];
            if (x->status == RB_DRIVE_NOT_READ)
                continue;
            const rb_health_t *h = rb_drive_last(x);
            if (x->status == RB_DRIVE_OK && h->temperature_max != RB_HEALTH_NA &&
                h->temperature_max > hottest)
                hottest = (uint32_t)h->temperature_max;
            if (x->status == RB_DRIVE_OK && ok++ >= S_OK_LINES)
                continue; /* a rack's healthy drives are counted, not listed */
            char c[5][32], t[16] = "-", hours[24] = "-";
            if (h->temperature_max != RB_HEALTH_NA)
                snprintf(t, sizeof t, "%llu", (unsigned long long)h->temperature_max);
            if (h->power_on_hours != RB_HEALTH_NA)
                snprintf(hours, sizeof hours, "%llu", (unsigned long long)h->power_on_hours);
            fprintf(f, "  %-10s %-11s %-16.16s %-20.20s %-7s %8s %7s %6s %6s %7s %4s %6s\n",
                    x->node, h->dev, h->model, h->serial, rb_drive_status_name(x->status),
                    rb_drive_cell(x, RB_HC_REALLOCATED, "->", c[0], sizeof c[0]),
                    rb_drive_cell(x, RB_HC_PENDING, "->", c[1], sizeof c[1]),
                    rb_drive_cell(x, RB_HC_CRC_ERRORS, "->", c[2], sizeof c[2]),
                    rb_drive_cell(x, RB_HC_MEDIA_ERRORS, "->", c[3], sizeof c[3]),
                    rb_drive_cell(x, RB_HC_ERROR_LOG, "->", c[4], sizeof c[4]), t, hours);
        }
        if (ok > S_OK_LINES)
            fprintf(f,
                    "  ... and %u more drives ok (no counter grew; the hottest %u C): "
                    "summary.json and report.html list each\n",
                    ok - S_OK_LINES, hottest);
    }
    char line[1024], ev[512], name[RB_DRIVE_NAME_MAX];
    for (uint32_t i = 0; i < d.n; i++) {
        const rb_drive_t *x = &d.d[i];
        if (x->status != RB_DRIVE_WORSE && x->status != RB_DRIVE_FAILING)
            continue;
        const rb_health_t *h = rb_drive_last(x);
        snprintf(line, sizeof line, "FINDING: drive-health %s: %s",
                 rb_drive_name(x->node, h, 1, name, sizeof name),
                 rb_drive_evidence(x, ev, sizeof ev));
        fputs("  ", f);
        rb_text_wrap(f, line, 2, 4, RB_TEXT_WIDTH);
    }
    /* the drives not read, one line per reason with its disks */
    uint32_t groups = 0;
    for (uint32_t i = 0, e; i < d.n; i = e) {
        const rb_drive_t *x = &d.d[i];
        e = rb_drives_group_end(&d, i);
        if (x->status != RB_DRIVE_NOT_READ || groups++ >= S_NOT_READ_LINES)
            continue;
        size_t at =
            (size_t)snprintf(line, sizeof line, "not read (%u): %s: ", e - i, rb_drive_kind(x));
        for (uint32_t k = i; k < e && k < i + S_NOT_READ_NAMES && at < sizeof line; k++)
            at += (size_t)snprintf(line + at, sizeof line - at, "%s%s %s", k > i ? ", " : "",
                                   d.d[k].node, rb_drive_last(&d.d[k])->dev);
        if (e - i > S_NOT_READ_NAMES && at < sizeof line)
            snprintf(line + at, sizeof line - at, " and %u more", e - i - S_NOT_READ_NAMES);
        fputs("  ", f);
        rb_text_wrap(f, line, 2, 4, RB_TEXT_WIDTH);
    }
    if (groups > S_NOT_READ_LINES)
        fprintf(f, "  ... and %u more reasons disks were not read (summary.json's drive_health)\n",
                groups - S_NOT_READ_LINES);
    rb_drives_fini(&d);
    return 0;
}

/* ---- summary.json read back ---- */

/* Reading o (an object of "before" or "after") into h. */
static void s_read_reading(const rb_json_t *o, rb_health_t *h)
{
    memset(h, 0, sizeof *h);
    rb_json_get_str(o, "device", h->dev, sizeof h->dev);
    rb_json_get_str(o, "model", h->model, sizeof h->model);
    rb_json_get_str(o, "serial", h->serial, sizeof h->serial);
    rb_json_get_str(o, "protocol", h->protocol, sizeof h->protocol);
    rb_json_get_str(o, "reason", h->reason, sizeof h->reason);
    const char *v = rb_json_str(rb_json_get(o, "verdict"));
    for (uint32_t k = 0; v && k <= RB_SMART_FAILED; k++)
        if (!strcmp(v, s_verdicts[k]))
            h->verdict = k;
    h->exit_status = (uint32_t)rb_json_get_u64(o, "exit_status");
    h->no_smart = (uint8_t)rb_json_bool(rb_json_get(o, "no_smart"), 0);
#define S_GET(field, key)                                                                          \
    h->field =                                                                                     \
        rb_json_type(rb_json_get(o, key)) == RB_JSON_NUM ? rb_json_get_u64(o, key) : RB_HEALTH_NA
    S_GET(reallocated, "reallocated");
    S_GET(pending, "pending");
    S_GET(offline_unc, "offline_uncorrectable");
    S_GET(crc_errors, "crc_errors");
    S_GET(media_errors, "media_errors");
    S_GET(error_log, "error_log");
    S_GET(critical_warning, "critical_warning");
    S_GET(percentage_used, "percentage_used");
    S_GET(available_spare, "available_spare");
    S_GET(spare_threshold, "spare_threshold");
    S_GET(temperature, "temperature");
    S_GET(temperature_max, "temperature_max");
    S_GET(power_on_hours, "power_on_hours");
#undef S_GET
}

int rb_drives_read(const rb_json_t *dh, rb_report_node_t *nodes, uint32_t nnodes,
                   rb_health_t **owned)
{
    static const char *const kinds[2] = {"before", "after"};
    const rb_json_t *drives = rb_json_get(dh, "drives");
    size_t n = rb_json_len(drives);
    *owned = NULL;
    for (uint32_t i = 0; i < nnodes; i++)
        nodes[i].nhealth[0] = nodes[i].nhealth[1] = 0;
    if (!n || !nnodes)
        return 0;
    /* each drive's node through a name index, not by a walk over the nodes
     * per drive (16,000 nodes of 12 drives: 6e9 comparisons) */
    rb_names_array_t idx;
    uint32_t *node_of = calloc(n, sizeof *node_of);
    rb_health_t *all = calloc(2 * n, sizeof *all);
    int rc =
        rb_names_array_build(&idx, nodes, sizeof *nodes, offsetof(rb_report_node_t, name), nnodes);
    if (!node_of || !all)
        rc = -ENOMEM;
    for (size_t e = 0; rc == 0 && e < n; e++) {
        node_of[e] =
            rb_names_array_find(&idx, rb_json_str(rb_json_get(rb_json_at(drives, e), "node")));
        for (int k = 0; k < 2 && node_of[e] < nnodes; k++)
            nodes[node_of[e]].nhealth[k] +=
                rb_json_type(rb_json_get(rb_json_at(drives, e), kinds[k])) == RB_JSON_OBJ;
    }
    /* each node's readings before, then after, in the file's order */
    size_t at = 0;
    for (uint32_t i = 0; rc == 0 && i < nnodes; i++)
        for (int k = 0; k < 2; k++) {
            nodes[i].health[k] = nodes[i].nhealth[k] ? all + at : NULL;
            at += nodes[i].nhealth[k];
            nodes[i].nhealth[k] = 0; /* counted again as they are read */
        }
    for (size_t e = 0; rc == 0 && e < n; e++)
        for (int k = 0; k < 2 && node_of[e] < nnodes; k++) {
            const rb_json_t *r = rb_json_get(rb_json_at(drives, e), kinds[k]);
            rb_report_node_t *nd = &nodes[node_of[e]];
            if (rb_json_type(r) == RB_JSON_OBJ)
                s_read_reading(r, &all[(nd->health[k] - all) + nd->nhealth[k]++]);
        }
    rb_names_array_fini(&idx);
    free(node_of);
    if (rc < 0) {
        free(all);
        for (uint32_t i = 0; i < nnodes; i++) {
            nodes[i].nhealth[0] = nodes[i].nhealth[1] = 0;
            nodes[i].health[0] = nodes[i].health[1] = NULL;
        }
        return rc;
    }
    *owned = all;
    return 0;
}

/* ---- acceptance: the checks of the run's drives ---- */

/* Judges check c of set s on the drives d into row. */
static void s_accept_row(const rb_accept_set_t *s, rb_accept_check_t c, const rb_drives_t *d,
                         rb_accept_row_t *row)
{
    static const rb_health_counter_t grows[] = {
        [RB_ACCEPT_MAX_REALLOCATED_GROWTH] = RB_HC_REALLOCATED,
        [RB_ACCEPT_MAX_PENDING_GROWTH] = RB_HC_PENDING,
        [RB_ACCEPT_MAX_MEDIA_ERRORS_GROWTH] = RB_HC_MEDIA_ERRORS,
    };
    *row = (rb_accept_row_t){.set = s->name,
                             .check = c,
                             .phase = "drives",
                             .limit = c == RB_ACCEPT_REQUIRE_SMART_PASS ? 0 : (double)s->limit[c],
                             .measured = NAN,
                             .verdict = RB_ACCEPT_FAIL};
    if (c == RB_ACCEPT_REQUIRE_SMART_PASS && !s->limit[c]) {
        row->verdict = RB_ACCEPT_NA;
        row->note = "not required (require_smart_pass=0)";
        return;
    }
    if (!d->nread) {
        if (d->n && !d->nunread) { /* loop and virtio disks: nothing here has SMART */
            row->verdict = RB_ACCEPT_NA;
            row->note = "no drive here has SMART (loop, virtio, device-mapper or md devices)";
        } else {
            row->note = "no drive's health was read (report.txt's Drive health says why)";
        }
        return;
    }
    const rb_drive_t *worst = NULL;
    double most = -1;
    uint32_t failing = 0;
    for (uint32_t i = 0; i < d->n; i++) {
        const rb_drive_t *x = &d->d[i];
        if (x->status == RB_DRIVE_NOT_READ)
            continue;
        double v = -1;
        if (c == RB_ACCEPT_REQUIRE_SMART_PASS) {
            failing += x->status == RB_DRIVE_FAILING;
            if (x->status == RB_DRIVE_FAILING && !worst)
                worst = x;
            continue;
        }
        if (c == RB_ACCEPT_MAX_DRIVE_TEMPERATURE) {
            uint64_t t = rb_drive_last(x)->temperature_max;
            v = t == RB_HEALTH_NA ? -1 : (double)t;
        } else {
            uint64_t b = rb_health_counter(x->before, grows[c]);
            uint64_t a = rb_health_counter(x->after, grows[c]);
            if (b != RB_HEALTH_NA && a != RB_HEALTH_NA)
                v = a > b ? (double)(a - b) : 0;
        }
        if (v > most) {
            most = v;
            worst = x;
        }
    }
    if (c == RB_ACCEPT_REQUIRE_SMART_PASS) {
        row->measured = failing;
        row->verdict = failing ? RB_ACCEPT_FAIL : RB_ACCEPT_PASS;
    } else if (most < 0) {
        row->verdict = RB_ACCEPT_NA;
        row->note = "no drive read reports it";
        return;
    } else {
        row->measured = most;
        row->verdict = most > (double)s->limit[c] ? RB_ACCEPT_FAIL : RB_ACCEPT_PASS;
    }
    if (d->nunread && row->verdict == RB_ACCEPT_PASS) { /* not judged is not passed */
        row->verdict = RB_ACCEPT_FAIL;
        row->note = "drives that have SMART were not read (report.txt's Drive health says why)";
        snprintf(row->what, sizeof row->what, "%u of %u", d->nunread, d->n);
        return;
    }
    if (worst && row->verdict == RB_ACCEPT_FAIL) {
        const rb_health_t *h = rb_drive_last(worst);
        row->note = c == RB_ACCEPT_REQUIRE_SMART_PASS ? "a drive's own verdict is FAILING"
                                                      : "the worst drive";
        rb_drive_name(worst->node, h, 1, row->what, sizeof row->what);
    }
}

int rb_drives_accept(const rb_accept_t *a, const rb_run_result_t *r, rb_accept_result_t *acc)
{
    uint32_t more = 0;
    for (uint32_t i = 0; a && i < a->nsets; i++)
        for (int c = 0; c < RB_ACCEPT_NCHECKS; c++)
            more += a->sets[i].limit_line[c] && rb_accept_check_is_run(c);
    if (!more)
        return 0;
    rb_drives_t d;
    rb_accept_row_t *rows = realloc(acc->rows, (acc->nrows + more) * sizeof *rows);
    if (!rows || rb_drives_build(r, &d) < 0) {
        if (rows)
            acc->rows = rows;
        return -ENOMEM;
    }
    acc->rows = rows;
    for (uint32_t i = 0; i < a->nsets; i++)
        for (int c = 0; c < RB_ACCEPT_NCHECKS; c++)
            if (a->sets[i].limit_line[c] && rb_accept_check_is_run(c)) {
                rb_accept_row_t *row = &acc->rows[acc->nrows++];
                s_accept_row(&a->sets[i], c, &d, row);
                acc->nfailed += row->verdict == RB_ACCEPT_FAIL;
                acc->nna += row->verdict == RB_ACCEPT_NA;
            }
    rb_drives_fini(&d);
    return 0;
}
