/* One table of the renderings of a run: text, json, csv, html, and fio's
 * JSON (fio-json, fio-json+), each with its --output-format name, the file
 * a run leaves in its folder and the function that writes it. `rackbench
 * report --output-format` and `rackbench run --output-format` look a
 * rendering up here, and a run writes its folder by going through the same
 * rows. */
#ifndef RB_REPORTER_H
#define RB_REPORTER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rb_err.h"
#include "rb_report.h"

/* A rendering of a run. Writes r to f; run_dir is the run folder, for the
 * renderings that also read samples.csv or plan.ini from it. 0 or -errno. */
typedef int (*rb_reporter_fn)(const rb_run_result_t *r, const char *run_dir, FILE *f);

/* One row of the table. */
typedef struct rb_reporter {
    const char *name;      /* --format's word: "text", "json", "csv", "html", "fio-json"... */
    const char *file;      /* what a run leaves in its folder ("report.txt"); NULL: nothing */
    int durable;           /* 1: rewritten while readers may look, so written aside,
                            * synced and renamed into place (summary.json) */
    rb_reporter_fn render; /* writes the rendering */
} rb_reporter_t;

/* Rows in the table, and row i of them (NULL past the end), in the order
 * the usage lists them: text, json, csv, html, fio-json, fio-json+. */
size_t rb_reporter_count(void);
const rb_reporter_t *rb_reporter_at(size_t i);

/* The row whose name is name, or NULL. */
const rb_reporter_t *rb_reporter_find(const char *name);

/* The names for a message into buf: "text, json, ... or fio-json+"; returns buf. */
const char *rb_reporter_names(char *buf, size_t len);

/* Reads a list of renderings as fio's --output-format takes one: names of
 * the table, comma-separated ("fio-json,text"), into out (at most max rows,
 * in the list's order; *n gets how many). 0, or -EINVAL with err saying
 * "unknown format 'NAME'; expected text, json, ... or fio-json+, or a comma
 * list of them" (or that there are more than max). */
int rb_reporter_list(const char *list, const rb_reporter_t **out, uint32_t max, uint32_t *n,
                     rb_err_t *err);

/* Writes rep's rendering of r into run_dir/rep->file (durable rows aside,
 * synced and renamed). 0, -EINVAL for a row without a file, or -EIO with
 * err saying "cannot write PATH: why". */
int rb_reporter_write(const rb_reporter_t *rep, const rb_run_result_t *r, const char *run_dir,
                      rb_err_t *err);

#endif
