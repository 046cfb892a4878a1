/* smartctl --json read into rb_health_t. ATA attributes are found by id (their
 * names vary by vendor); temperature is smartctl's own temperature.current,
 * never attribute 194's packed raw value. Running smartctl is
 * rb_health_read.c's. */
#include "rb_health.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rb_json.h"

#define S_TWO_POW_64 18446744073709551616.0

/* A JSON number as a counter: RB_HEALTH_NA when absent, not a number or
 * negative; past 2^64 held just below RB_HEALTH_NA (a double above 2^53 is
 * already approximate). */
static uint64_t s_u64(const rb_json_t *j)
{
    if (rb_json_type(j) != RB_JSON_NUM)
        return RB_HEALTH_NA;
    double v = rb_json_num(j, -1);
    if (!(v >= 0))
        return RB_HEALTH_NA;
    if (v >= S_TWO_POW_64)
        return RB_HEALTH_NA - 1;
    return (uint64_t)v;
}

/* An ATA attribute's raw count. Some drives pack more than the count into
 * the 48-bit raw value; smartctl's raw.string then starts with the count
 * ("8 (0 3)"), which is taken when the value passes 32 bits. */
static uint64_t s_ata_raw(const rb_json_t *attr)
{
    const rb_json_t *raw = rb_json_get(attr, "raw");
    uint64_t v = s_u64(rb_json_get(raw, "value"));
    const char *s = rb_json_str(rb_json_get(raw, "string"));
    if (v != RB_HEALTH_NA && v > UINT32_MAX && s && isdigit((unsigned char)*s)) {
        char *end;
        errno = 0;
        unsigned long long lead = strtoull(s, &end, 10);
        if (!errno && (*end == ' ' || *end == '\0') && lead < v)
            return lead;
    }
    return v;
}

static void s_copy(char *out, size_t len, const char *s)
{
    snprintf(out, len, "%s", s ? s : "");
}

/* model_name (ATA, NVMe, SCSI before 7.3), scsi_model_name (SCSI from 7.3),
 * else the vendor and product. */
static void s_model(const rb_json_t *root, rb_health_t *h)
{
    const char *m = rb_json_str(rb_json_get(root, "model_name"));
    if (!m)
        m = rb_json_str(rb_json_get(root, "scsi_model_name"));
    if (m) {
        s_copy(h->model, sizeof h->model, m);
        return;
    }
    const char *v = rb_json_str(rb_json_get(root, "scsi_vendor"));
    const char *p = rb_json_str(rb_json_get(root, "scsi_product"));
    if (!v)
        v = rb_json_str(rb_json_get(root, "vendor"));
    if (!p)
        p = rb_json_str(rb_json_get(root, "product"));
    snprintf(h->model, sizeof h->model, "%s%s%s", v ? v : "", v && p ? " " : "", p ? p : "");
}

static void s_ata(const rb_json_t *root, rb_health_t *h)
{
    const rb_json_t *table = rb_json_path(root, "ata_smart_attributes.table");
    for (size_t i = 0; i < rb_json_len(table); i++) {
        const rb_json_t *a = rb_json_at(table, i);
        double id = rb_json_num(rb_json_get(a, "id"), -1);
        switch (id >= 0 && id <= 255 ? (int)id : -1) { /* an id is one byte */
        case 5:
            h->reallocated = s_ata_raw(a);
            break;
        case 197:
            h->pending = s_ata_raw(a);
            break;
        case 198:
            h->offline_unc = s_ata_raw(a);
            break;
        case 199:
            h->crc_errors = s_ata_raw(a);
            break;
        default:
            break;
        }
    }
    uint64_t n = s_u64(rb_json_path(root, "ata_smart_error_log.summary.count"));
    if (n != RB_HEALTH_NA)
        h->error_log = n;
}

static void s_scsi(const rb_json_t *root, rb_health_t *h)
{
    uint64_t g = s_u64(rb_json_get(root, "scsi_grown_defect_list"));
    if (g != RB_HEALTH_NA)
        h->reallocated = g;
    uint64_t r = s_u64(rb_json_path(root, "scsi_error_counter_log.read.total_uncorrected_errors"));
    uint64_t w = s_u64(rb_json_path(root, "scsi_error_counter_log.write.total_uncorrected_errors"));
    if (r != RB_HEALTH_NA || w != RB_HEALTH_NA) {
        r = r == RB_HEALTH_NA ? 0 : r;
        w = w == RB_HEALTH_NA ? 0 : w;
        h->media_errors = r > RB_HEALTH_NA - 1 - w ? RB_HEALTH_NA - 1 : r + w;
    }
}

static void s_nvme(const rb_json_t *root, rb_health_t *h)
{
    const rb_json_t *log = rb_json_get(root, "nvme_smart_health_information_log");
    if (!log)
        return;
    h->media_errors = s_u64(rb_json_get(log, "media_errors"));
    h->error_log = s_u64(rb_json_get(log, "num_err_log_entries"));
    h->critical_warning = s_u64(rb_json_get(log, "critical_warning"));
    h->percentage_used = s_u64(rb_json_get(log, "percentage_used"));
    h->available_spare = s_u64(rb_json_get(log, "available_spare"));
    h->spare_threshold = s_u64(rb_json_get(log, "available_spare_threshold"));
}

void rb_health_clear(rb_health_t *h)
{
    memset(h, 0, sizeof *h);
    h->verdict = RB_SMART_UNKNOWN;
    h->reallocated = h->pending = h->offline_unc = h->crc_errors = RB_HEALTH_NA;
    h->media_errors = h->error_log = h->critical_warning = RB_HEALTH_NA;
    h->percentage_used = h->available_spare = h->spare_threshold = RB_HEALTH_NA;
    h->temperature = h->temperature_max = h->power_on_hours = RB_HEALTH_NA;
}

/* Not read: every counter NA (as rb_health_clear left them), and why in smartctl's
 * first message. */
static void s_unread(const rb_json_t *root, rb_health_t *h)
{
    const char *m = rb_json_str(rb_json_path(root, "smartctl.messages.0.string"));
    h->protocol[0] = '\0';
    if (m && *m)
        s_copy(h->reason, sizeof h->reason, m);
    else
        snprintf(h->reason, sizeof h->reason,
                 "smartctl read nothing from the disk and said nothing (exit status %u)",
                 h->exit_status);
}

/* Whether smartctl found a device but read nothing of it. */
static int s_nothing(const rb_health_t *h)
{
    const uint64_t c[] = {h->reallocated,      h->pending,         h->offline_unc,
                          h->crc_errors,       h->media_errors,    h->error_log,
                          h->critical_warning, h->percentage_used, h->available_spare,
                          h->temperature,      h->power_on_hours};
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        if (c[i] != RB_HEALTH_NA)
            return 0;
    return h->verdict == RB_SMART_UNKNOWN && !h->model[0] && !h->serial[0];
}

int rb_health_parse(const char *json, size_t len, rb_health_t *h)
{
    rb_err_t err;
    rb_err_clear(&err);
    rb_health_clear(h);
    rb_json_t *root = rb_json_parse(json ? json : "", json ? len : 0, &err);
    if (!root || rb_json_type(root) != RB_JSON_OBJ) {
        snprintf(h->reason, sizeof h->reason, "smartctl's output is not JSON (%s)",
                 root ? "not an object" : err.msg);
        rb_json_free(&root);
        return -EBADMSG;
    }
    uint64_t es = s_u64(rb_json_path(root, "smartctl.exit_status"));
    h->exit_status = es == RB_HEALTH_NA || es > UINT32_MAX ? 0 : (uint32_t)es;
    const rb_json_t *dev = rb_json_get(root, "device");
    const rb_json_t *status = rb_json_get(root, "smart_status");
    if (!dev && !status) {
        s_unread(root, h);
        rb_json_free(&root);
        return 0;
    }
    s_copy(h->protocol, sizeof h->protocol, rb_json_str(rb_json_get(dev, "protocol")));
    s_model(root, h);
    s_copy(h->serial, sizeof h->serial, rb_json_str(rb_json_get(root, "serial_number")));
    int passed = rb_json_bool(rb_json_get(status, "passed"), -1);
    h->verdict = passed == 1 ? RB_SMART_PASSED : passed == 0 ? RB_SMART_FAILED : RB_SMART_UNKNOWN;
    s_ata(root, h);
    s_scsi(root, h);
    s_nvme(root, h);
    h->temperature = s_u64(rb_json_path(root, "temperature.current"));
    h->temperature_max = h->temperature;
    h->power_on_hours = s_u64(rb_json_path(root, "power_on_time.hours"));
    if (s_nothing(h)) /* a type found, then refused: "please try adding '-d megaraid,N'" */
        s_unread(root, h);
    rb_json_free(&root);
    return 0;
}
