/* A run in fio's own JSON (`--output-format=json` and `json+`), so that the
 * tools made for fio's output read rackbench's: one entry of "jobs" per
 * phase and job over the whole cluster, and "client_stats" as fio's
 * client/server mode gives it, an entry per node and phase with its
 * "hostname" and an "All clients" entry per phase (docs/report-schema.md,
 * "fio's JSON"). */
#ifndef RB_FIOJSON_H
#define RB_FIOJSON_H

#include <stdio.h>

#include "rb_report.h"

/* Writes r to f as fio's JSON; plus = 1 adds json+'s "bins" (each latency
 * histogram's buckets, key the bucket's midpoint in ns). The bandwidth and
 * IOPS samples come from run_dir/samples.csv (NULL, or no such file: none).
 * 0 or -errno. */
int rb_fiojson_render(const rb_run_result_t *r, const char *run_dir, int plus, FILE *f);

#endif
