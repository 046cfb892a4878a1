/* A run folder's CSV files read back by their header lines (rb_csv.h's
 * schemas), and samples.csv's rows as numbers: the readers of
 * rb_result_csv.c (series, rates, telemetry) and rb_result_cut.c (a run
 * that did not finish) share them. */
#ifndef RB_CSV_READ_H
#define RB_CSV_READ_H

#include <stdint.h>
#include <stdio.h>

#include "rb_csv.h"
#include "rb_limits.h"

#define RB_CSV_READ_COLS 64 /* columns of a file read (a schema's and any the file adds) */

/* A CSV file of a run folder read by its header line: each row's fields in
 * the schema's order, whatever order the file has them in ("" for a column
 * the file lacks), so that a folder written with other columns reads too. */
typedef struct rb_csv_reader {
    FILE *f;
    const rb_csv_schema_t *schema;
    int idx[RB_CSV_READ_COLS]; /* per schema column: its place in the file, or -1 */
    int nhdr;                  /* columns of the header: a shorter row is torn */
    char *line;                /* the row read (getline's: any length) */
    size_t cap;
    const char *fld[RB_CSV_READ_COLS]; /* the row's fields, in schema order */
} rb_csv_reader_t;

/* Opens dir's file of schema and reads its header. 0, or -errno (-ENODATA:
 * empty, or no header this build knows). */
int rb_csv_reader_open(rb_csv_reader_t *c, const char *dir, const rb_csv_schema_t *schema);

/* The next whole row (a torn one is passed over): 1 with c->fld set, 0 at the end. */
int rb_csv_reader_next(rb_csv_reader_t *c);

/* Closes c's file and frees its line; safe twice. */
void rb_csv_reader_close(rb_csv_reader_t *c);

/* One samples.csv row as numbers. Latencies in us, 0 where the interval
 * had none (or the folder has no such column). */
typedef struct rb_sample_row {
    double t_s, interval_s;
    uint64_t t_utc_ns; /* the interval's end; 0 unknown */
    char phase[RB_NAME_MAX], node[RB_NAME_MAX], rack[RB_NAME_MAX], job[RB_NAME_MAX];
    double bytes, ops, errors;
    double dir_bytes[2], dir_ops[2]; /* reads' and writes' */
    double p50_us, p99_us, max_us;   /* all of the interval's IOs */
    double dir_p50_us[2], dir_p99_us[2];
} rb_sample_row_t;

/* One samples.csv row's fields (schema order) into r. 1, or 0 when its
 * time is not a number. */
int rb_sample_row_parse(const char *const *f, rb_sample_row_t *r);

/* The next row of phase (NULL: of any phase) in samples.csv (a torn line or
 * another phase's rows are passed over): 1 with r filled, 0 at the end. */
int rb_sample_row_next(rb_csv_reader_t *c, const char *phase, rb_sample_row_t *r);

/* The lengths of a phase's sample rows, to the ms, and how many rows have
 * each: the most common is the phase's interval (its first and last rows, a
 * late node's long one, are the exceptions). */
#define RB_LENGTHS 32
typedef struct rb_lengths {
    long ms[RB_LENGTHS];
    uint64_t count[RB_LENGTHS];
    uint32_t n;
} rb_lengths_t;

void rb_lengths_add(rb_lengths_t *l, double s);

/* The most common length, seconds; 0 without any. */
double rb_lengths_mode(const rb_lengths_t *l);

#endif
