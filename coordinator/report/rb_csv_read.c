/* A run folder's CSV files read back (rb_csv_read.h). */
#include "rb_csv_read.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(RB_CSV_SMP_NCOLS <= RB_CSV_READ_COLS && RB_CSV_TEL_NCOLS <= RB_CSV_READ_COLS,
               "a schema has more columns than a reader keeps");

int rb_csv_reader_open(rb_csv_reader_t *c, const char *dir, const rb_csv_schema_t *schema)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/%s", dir, schema->file);
    c->schema = schema;
    c->line = NULL;
    c->cap = 0;
    c->f = fopen(path, "re");
    if (!c->f)
        return -errno;
    c->nhdr = 0;
    if (getline(&c->line, &c->cap, c->f) < 0 || rb_csv_map(schema, c->line, c->idx) <= 0) {
        rb_csv_reader_close(c);
        return -ENODATA;
    }
    for (const char *p = c->line; *p && *p != '\n' && *p != '\r'; p++)
        c->nhdr += *p == ',';
    c->nhdr++;
    return 0;
}

int rb_csv_reader_next(rb_csv_reader_t *c)
{
    while (getline(&c->line, &c->cap, c->f) >= 0) {
        c->line[strcspn(c->line, "\r\n")] = '\0';
        const char *raw[RB_CSV_READ_COLS];
        int n = 0;
        for (char *p = c->line; n < RB_CSV_READ_COLS; n++) {
            raw[n] = p;
            char *comma = strchr(p, ',');
            if (!comma) {
                n++;
                break;
            }
            *comma = '\0';
            p = comma + 1;
        }
        if (n < c->nhdr)
            continue;
        for (uint32_t k = 0; k < c->schema->ncols; k++)
            c->fld[k] = c->idx[k] >= 0 && c->idx[k] < n ? raw[c->idx[k]] : "";
        return 1;
    }
    return 0;
}

void rb_csv_reader_close(rb_csv_reader_t *c)
{
    if (c->f)
        fclose(c->f);
    c->f = NULL;
    free(c->line);
    c->line = NULL;
    c->cap = 0;
}

int rb_sample_row_parse(const char *const *f, rb_sample_row_t *r)
{
    char *end;
    r->t_s = strtod(f[RB_CSV_SMP_T_S], &end);
    if (end == f[RB_CSV_SMP_T_S])
        return 0;
    r->t_utc_ns = strtoull(f[RB_CSV_SMP_T_UTC_NS], NULL, 10);
    snprintf(r->phase, sizeof r->phase, "%s", f[RB_CSV_SMP_PHASE]);
    snprintf(r->node, sizeof r->node, "%s", f[RB_CSV_SMP_NODE]);
    snprintf(r->rack, sizeof r->rack, "%s", f[RB_CSV_SMP_RACK]);
    snprintf(r->job, sizeof r->job, "%s", f[RB_CSV_SMP_JOB]);
    r->interval_s = strtod(f[RB_CSV_SMP_INTERVAL_S], NULL);
    r->bytes = strtod(f[RB_CSV_SMP_BYTES], NULL);
    r->ops = strtod(f[RB_CSV_SMP_OPS], NULL);
    r->errors = strtod(f[RB_CSV_SMP_ERRORS], NULL);
    r->dir_bytes[0] = strtod(f[RB_CSV_SMP_READ_BYTES], NULL);
    r->dir_ops[0] = strtod(f[RB_CSV_SMP_READ_OPS], NULL);
    r->dir_bytes[1] = strtod(f[RB_CSV_SMP_WRITE_BYTES], NULL);
    r->dir_ops[1] = strtod(f[RB_CSV_SMP_WRITE_OPS], NULL);
    r->p50_us = strtod(f[RB_CSV_SMP_LAT_P50_US], NULL);
    r->p99_us = strtod(f[RB_CSV_SMP_LAT_P99_US], NULL);
    r->max_us = strtod(f[RB_CSV_SMP_LAT_MAX_US], NULL);
    r->dir_p50_us[0] = strtod(f[RB_CSV_SMP_READ_LAT_P50_US], NULL);
    r->dir_p99_us[0] = strtod(f[RB_CSV_SMP_READ_LAT_P99_US], NULL);
    r->dir_p50_us[1] = strtod(f[RB_CSV_SMP_WRITE_LAT_P50_US], NULL);
    r->dir_p99_us[1] = strtod(f[RB_CSV_SMP_WRITE_LAT_P99_US], NULL);
    return 1;
}

int rb_sample_row_next(rb_csv_reader_t *c, const char *phase, rb_sample_row_t *r)
{
    while (rb_csv_reader_next(c))
        if (rb_sample_row_parse(c->fld, r) && (!phase || strcmp(r->phase, phase) == 0))
            return 1;
    return 0;
}

void rb_lengths_add(rb_lengths_t *l, double s)
{
    long ms = lround(s * 1000);
    uint32_t i = 0;
    while (i < l->n && l->ms[i] != ms)
        i++;
    if (i == l->n && l->n < RB_LENGTHS)
        l->ms[l->n++] = ms;
    if (i < l->n)
        l->count[i]++;
}

double rb_lengths_mode(const rb_lengths_t *l)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < l->n; i++)
        if (l->count[i] > l->count[best])
            best = i;
    return l->n ? (double)l->ms[best] / 1000 : 0;
}
