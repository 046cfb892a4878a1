/* `rackbench compare`'s drive health: each drive (node, device and serial)
 * as it was after the last run of each side, its counters compared, the
 * drives whose counters grew between the runs listed, and those found in
 * one run only (rb_compare.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rb_compare.h"
#include "rb_drives.h"

/* Lines of each kind of drive listed in the text (the drives that grew are
 * all listed); the rest counted. */
#define S_TEXT_LINES 16

/* A drive of one run, as it was after it. */
typedef struct s_drv {
    const char *node;
    const rb_health_t *id;   /* who it is: its last reading */
    const rb_health_t *read; /* its counters after the run; NULL: not read then */
    rb_drive_status_t status;
    const char *reason; /* not read: why */
    int matched;        /* found in the other run */
} s_drv_t;

typedef struct s_run_drives {
    rb_drives_t d;
    s_drv_t *v; /* d.n, sorted by node and device */
} s_run_drives_t;

static int s_by_place(const void *x, const void *y)
{
    const s_drv_t *a = x, *b = y;
    int c = strcmp(a->node, b->node);
    return c ? c : strcmp(a->id->dev, b->id->dev);
}

/* The drives of run r, sorted by node and device into out. 0, or -ENOMEM. */
static int s_load(const rb_loaded_run_t *r, s_run_drives_t *out)
{
    memset(out, 0, sizeof *out);
    if (rb_drives_build(&r->res, &out->d) < 0)
        return -ENOMEM;
    if (out->d.n && !(out->v = calloc(out->d.n, sizeof *out->v)))
        return -ENOMEM;
    for (uint32_t i = 0; i < out->d.n; i++) {
        const rb_drive_t *x = &out->d.d[i];
        /* its counters after the run; who it is from the last reading that says */
        const rb_health_t *rd = rb_health_has_counters(x->after) ? x->after : NULL;
        const rb_health_t *id = rd                                  ? rd
                                : rb_health_has_counters(x->before) ? x->before
                                                                    : rb_drive_last(x);
        out->v[i] = (s_drv_t){x->node, id, rd, x->status, x->reason, 0};
    }
    if (out->d.n > 1)
        qsort(out->v, out->d.n, sizeof *out->v, s_by_place);
    return 0;
}

static void s_unload(s_run_drives_t *r)
{
    free(r->v);
    rb_drives_fini(&r->d);
}

/* x's drive in run b: the same node and device, and the same serial where
 * both say one; NULL when b has none. */
static s_drv_t *s_find(s_run_drives_t *b, const s_drv_t *x)
{
    s_drv_t *y = b->d.n ? bsearch(x, b->v, b->d.n, sizeof *b->v, s_by_place) : NULL;
    if (y && x->id->serial[0] && y->id->serial[0] && strcmp(x->id->serial, y->id->serial))
        return NULL; /* another drive in its place */
    return y;
}

/* The counters of x that grew in y, as a bit mask over rb_health_counter_t. */
static uint32_t s_grew(const s_drv_t *x, const s_drv_t *y)
{
    uint32_t grew = 0;
    for (int c = 0; x->read && y->read && c < RB_HC_COUNT; c++) {
        uint64_t u = rb_health_counter(x->read, c), v = rb_health_counter(y->read, c);
        if (u != RB_HEALTH_NA && v != RB_HEALTH_NA && v > u)
            grew |= 1u << c;
    }
    return grew;
}

static void s_json_id(rb_jw_t *w, const s_drv_t *x)
{
    rb_jw_str(w, "node", x->node);
    rb_jw_str(w, "device", x->id->dev);
    rb_jw_str(w, "model", x->id->model);
    rb_jw_str(w, "serial", x->id->serial);
}

/* "local-1 /dev/sda (MODEL, serial S)" into f. */
static void s_text_id(FILE *f, const s_drv_t *x)
{
    char name[RB_DRIVE_NAME_MAX];
    fputs(rb_drive_name(x->node, x->id, 1, name, sizeof name), f);
}

/* The drives of a found in b's run, and b's drives not in a: kind 0 those
 * that grew, 1 those not read on a side, 2 only before, 3 only after. */
static void s_list(rb_jw_t *w, FILE *f, int json, int kind, s_run_drives_t *a, s_run_drives_t *b)
{
    static const char *const keys[] = {"grew", "not_read", "only_before", "only_after"};
    static const char *const heads[] = {"GREW", "NOT READ", "ONLY BEFORE", "ONLY AFTER"};
    uint32_t shown = 0, more = 0;
    if (json)
        rb_jw_arr_begin(w, keys[kind]);
    s_run_drives_t *from = kind == 3 ? b : a;
    for (uint32_t i = 0; i < from->d.n; i++) {
        const s_drv_t *x = &from->v[i], *y = kind < 2 ? s_find(b, x) : NULL;
        uint32_t grew = y ? s_grew(x, y) : 0;
        if ((kind == 0 && !grew) || (kind == 1 && (!y || (x->read && y->read))) ||
            (kind >= 2 && x->matched))
            continue;
        if (!json && kind && shown >= S_TEXT_LINES) {
            more++;
            continue;
        }
        shown++;
        if (json) {
            rb_jw_obj_begin(w, NULL);
            s_json_id(w, x);
            if (kind == 0) {
                rb_jw_str(w, "status_before", rb_drive_status_name(x->status));
                rb_jw_str(w, "status_after", rb_drive_status_name(y->status));
                rb_jw_arr_begin(w, "counters");
                for (int c = 0; c < RB_HC_COUNT; c++)
                    if (grew & (1u << c)) {
                        rb_jw_obj_begin(w, NULL);
                        rb_jw_str(w, "name", rb_health_counter_name(c));
                        rb_jw_u64(w, "before", rb_health_counter(x->read, c));
                        rb_jw_u64(w, "after", rb_health_counter(y->read, c));
                        rb_jw_obj_end(w);
                    }
                rb_jw_arr_end(w);
            } else if (kind == 1) {
                rb_jw_str(w, "before", x->read ? NULL : x->reason);
                rb_jw_str(w, "after", y->read ? NULL : y->reason);
            }
            rb_jw_obj_end(w);
            continue;
        }
        fprintf(f, "  %s ", heads[kind]);
        s_text_id(f, x);
        if (kind == 0) {
            int first = 1;
            for (int c = 0; c < RB_HC_COUNT; c++)
                if (grew & (1u << c)) {
                    fprintf(f, "%s%s %llu -> %llu", first ? ": " : ", ", rb_health_counter_name(c),
                            (unsigned long long)rb_health_counter(x->read, c),
                            (unsigned long long)rb_health_counter(y->read, c));
                    first = 0;
                }
            if (y->status == RB_DRIVE_FAILING)
                fputs("; FAILING after", f);
        } else if (kind == 1) {
            fprintf(f, ": %s", !x->read ? x->reason : y->reason);
        }
        fputc('\n', f);
    }
    if (json)
        rb_jw_arr_end(w);
    else if (more)
        fprintf(f, "  ... and %u more %s (--output-format json lists them)\n", more,
                kind == 1   ? "not read"
                : kind == 2 ? "only before"
                            : "only after");
}

int rb_compare_drives(rb_jw_t *w, FILE *f, int json, const rb_loaded_run_t *before,
                      const rb_loaded_run_t *after)
{
    s_run_drives_t a = {0}, b = {0};
    int rc = -ENOMEM;
    if (s_load(before, &a) < 0 || s_load(after, &b) < 0)
        goto out;
    uint32_t both = 0, grew = 0;
    for (uint32_t i = 0; i < a.d.n; i++) {
        s_drv_t *y = s_find(&b, &a.v[i]);
        if (!y)
            continue;
        a.v[i].matched = y->matched = 1;
        both++;
        grew += s_grew(&a.v[i], y) != 0;
    }
    if (!a.d.n && !b.d.n) { /* neither run read its drives (agents before protocol 27) */
        if (json)
            rb_jw_null(w, "drive_health");
        rc = 0;
        goto out;
    }
    if (json) {
        rb_jw_obj_begin(w, "drive_health");
        rb_jw_str(w, "before", before->res.run_id);
        rb_jw_str(w, "after", after->res.run_id);
        rb_jw_u64(w, "drives_in_both", both);
        rb_jw_u64(w, "drives_grew", grew);
    } else {
        fprintf(f,
                "\ndrive health  (each drive's counters after %s against after %s: %u drive%s in "
                "both, %u grew, %u only before, %u only after)\n",
                before->res.run_id, after->res.run_id, both, both == 1 ? "" : "s", grew,
                a.d.n - both, b.d.n - both);
    }
    for (int kind = 0; kind < 4; kind++)
        s_list(w, f, json, kind, &a, &b);
    if (json)
        rb_jw_obj_end(w);
    rc = 0;
out:
    s_unload(&a);
    s_unload(&b);
    return rc;
}
