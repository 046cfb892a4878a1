/* The run folder's two CSV files, samples.csv and telemetry.csv, described
 * once: one table of columns per file (name and meaning, in file order). The
 * writers build the header line from it and print the rows in its order; the
 * readers find a column's field by its place in the table, or map a header
 * line to the table's columns. */
#ifndef RB_CSV_H
#define RB_CSV_H

#include <stdint.h>
#include <stdio.h>

#include "rb_findings.h"
#include "rb_proto.h"

/* The columns every CSV file of a run folder starts with: when and where. */
#define RB_CSV_WHEN_WHERE(X)                                                                       \
    X(T_S, "t_s", "seconds from GO to the interval's end, coordinator clock")                      \
    X(T_UTC_NS, "t_utc_ns", "the interval's end, coordinator clock as UTC ns since the epoch")     \
    X(PHASE, "phase", "phase name")                                                                \
    X(NODE, "node", "node name")

/* samples.csv: one row per node, job and sample interval. */
#define RB_CSV_SAMPLES_COLUMNS(X)                                                                  \
    RB_CSV_WHEN_WHERE(X)                                                                           \
    X(RACK, "rack", "rack of the node")                                                            \
    X(JOB, "job", "job name")                                                                      \
    X(INTERVAL_S, "interval_s", "length of the interval, seconds")                                 \
    X(BYTES, "bytes", "bytes moved in the interval")                                               \
    X(OPS, "ops", "operations completed in the interval")                                          \
    X(ERRORS, "errors", "operations that failed in the interval")                                  \
    X(BW, "bw", "bytes / interval_s")                                                              \
    X(IOPS, "iops", "ops / interval_s")                                                            \
    X(LAT_P50_US, "lat_p50_us", "median latency of the interval, microseconds")                    \
    X(LAT_P99_US, "lat_p99_us", "99th percentile latency of the interval, microseconds")           \
    X(LAT_MAX_US, "lat_max_us", "largest latency of the interval, microseconds")                   \
    X(READ_BYTES, "read_bytes", "of bytes, those read")                                            \
    X(READ_OPS, "read_ops", "of ops, the reads")                                                   \
    X(WRITE_BYTES, "write_bytes", "of bytes, those written")                                       \
    X(WRITE_OPS, "write_ops", "of ops, the writes")                                                \
    X(READ_LAT_P50_US, "read_lat_p50_us", "median latency of the interval's reads, microseconds")  \
    X(READ_LAT_P99_US, "read_lat_p99_us", "99th percentile latency of its reads, microseconds")    \
    X(WRITE_LAT_P50_US, "write_lat_p50_us", "median latency of its writes, microseconds")          \
    X(WRITE_LAT_P99_US, "write_lat_p99_us", "99th percentile latency of its writes, microseconds")

/* latency.csv: one row per node, job, sample interval, direction and kind of
 * latency that completed IO, written only for the jobs that ask for fio's
 * latency or histogram logs (rb_fiolog.h): what those logs are made of. */
#define RB_CSV_LATENCY_COLUMNS(X)                                                                  \
    RB_CSV_WHEN_WHERE(X)                                                                           \
    X(JOB, "job", "job name")                                                                      \
    X(INTERVAL_S, "interval_s", "length of the interval, seconds")                                 \
    X(DIR, "dir", "read, write or trim")                                                           \
    X(KIND, "kind", "lat, slat or clat (fio's three latencies)")                                   \
    X(OPS, "ops", "IOs of the histogram: completed (lat, clat) or submitted (slat)")               \
    X(SUM_NS, "sum_ns", "their latencies added up, ns (sum_ns / ops is the mean)")                 \
    X(MAX_NS, "max_ns", "the largest, ns (the top of its histogram bucket at most)")               \
    X(BUCKETS, "buckets",                                                                          \
      "the histogram: INDEX:COUNT of each bucket that holds IOs, space-separated")

/* telemetry.csv: per node and interval one "host" row, one "dev" row per
 * device and one "nic" row per NIC; a row leaves the other kinds' columns
 * empty (docs/telemetry.md). */
#define RB_CSV_TELEMETRY_COLUMNS(X)                                                                \
    RB_CSV_WHEN_WHERE(X)                                                                           \
    X(KIND, "kind", "host, dev or nic")                                                            \
    X(NAME, "name", "device or NIC name")                                                          \
    X(PARENT, "parent", "dev: the device it is a member of (md, dm), or empty")                    \
    X(MEMBER, "member", "dev: 1 for a member of parent, else 0")                                   \
    X(RD_BPS, "rd_bps", "dev: bytes read per second")                                              \
    X(WR_BPS, "wr_bps", "dev: bytes written per second")                                           \
    X(RD_IOPS, "rd_iops", "dev: reads per second")                                                 \
    X(WR_IOPS, "wr_iops", "dev: writes per second")                                                \
    X(UTIL_PCT, "util_pct", "dev: % of the interval busy")                                         \
    X(QUEUE_DEPTH, "queue_depth", "dev: mean requests in flight")                                  \
    X(AWAIT_MS, "await_ms", "dev: mean time a request took, ms")                                   \
    X(RD_BYTES, "rd_bytes", "dev: bytes read in the interval")                                     \
    X(WR_BYTES, "wr_bytes", "dev: bytes written in the interval")                                  \
    X(RX_BPS, "rx_bps", "nic: bytes received per second")                                          \
    X(TX_BPS, "tx_bps", "nic: bytes sent per second")                                              \
    X(SPEED_MBPS, "speed_mbps", "nic: link speed, Mbit/s (0 unknown)")                             \
    X(CPU_USER, "cpu_user", "host: % user CPU")                                                    \
    X(CPU_SYSTEM, "cpu_system", "host: % system CPU")                                              \
    X(CPU_IOWAIT, "cpu_iowait", "host: % iowait")                                                  \
    X(CPU_IDLE, "cpu_idle", "host: % idle")                                                        \
    X(CPU_IRQ, "cpu_irq", "host: % irq and softirq")                                               \
    X(NCPU, "ncpu", "host: CPUs online")                                                           \
    X(LOAD1, "load1", "host: 1-minute load average")                                               \
    X(CTXT_PER_S, "ctxt_per_s", "host: context switches per second")                               \
    X(CACHED, "cached", "host: page cache, bytes")                                                 \
    X(DIRTY, "dirty", "host: dirty pages, bytes")                                                  \
    X(WRITEBACK, "writeback", "host: pages under writeback, bytes")

/* A table row as an enum member (RB_CSV_SMP_BYTES, RB_CSV_TEL_UTIL_PCT, ...). */
#define RB_CSV_ENUM_SMP(id, name, doc) RB_CSV_SMP_##id,
#define RB_CSV_ENUM_TEL(id, name, doc) RB_CSV_TEL_##id,
#define RB_CSV_ENUM_LAT(id, name, doc) RB_CSV_LAT_##id,

/* samples.csv's columns: RB_CSV_SMP_T_S, ... each one's field index. */
typedef enum { RB_CSV_SAMPLES_COLUMNS(RB_CSV_ENUM_SMP) RB_CSV_SMP_NCOLS } rb_csv_smp_col_t;

/* telemetry.csv's columns: RB_CSV_TEL_T_S, ... each one's field index. */
typedef enum { RB_CSV_TELEMETRY_COLUMNS(RB_CSV_ENUM_TEL) RB_CSV_TEL_NCOLS } rb_csv_tel_col_t;

/* latency.csv's columns: RB_CSV_LAT_T_S, ... each one's field index. */
typedef enum { RB_CSV_LATENCY_COLUMNS(RB_CSV_ENUM_LAT) RB_CSV_LAT_NCOLS } rb_csv_lat_col_t;

/* One file's table of columns. */
typedef struct rb_csv_schema {
    const char *file;         /* "samples.csv" */
    uint32_t ncols;           /* columns */
    const char *const *names; /* ncols names, in file order */
    const char *const *docs;  /* ncols meanings, for people */
} rb_csv_schema_t;

extern const rb_csv_schema_t rb_csv_samples;   /* samples.csv */
extern const rb_csv_schema_t rb_csv_telemetry; /* telemetry.csv */
extern const rb_csv_schema_t rb_csv_latency;   /* latency.csv */

/* Writes schema's header line (the names, comma-separated, and a newline)
 * to f. 0 or -EIO. */
int rb_csv_header(const rb_csv_schema_t *schema, FILE *f);

/* The place (0-based) of the column called name in a header line (with or
 * without its newline), or -ENOENT. */
int rb_csv_index(const char *header, const char *name);

/* Maps a header line to schema's columns: idx[c] gets the place of column c
 * in the line, or -1 when it lacks it (idx holds schema->ncols entries).
 * Returns how many columns were found. */
int rb_csv_map(const rb_csv_schema_t *schema, const char *header, int *idx);

/* One row of samples.csv: one node, job and interval; utc_ns its end on the
 * wall clock (t_utc_ns). */
void rb_csv_samples_row(FILE *f, double t_s, uint64_t utc_ns, const char *phase, const char *node,
                        const char *rack, const char *job, double interval_s,
                        const rb_job_stat_t *js);

/* The rows of latency.csv of one node's job and interval: one per direction
 * and kind of js that holds IOs; utc_ns as above. */
void rb_csv_latency_rows(FILE *f, double t_s, uint64_t utc_ns, const char *phase, const char *node,
                         const char *job, double interval_s, const rb_job_stat_t *js);

/* The rows of telemetry.csv of one node's host telemetry of one interval:
 * one "host" row (CPU, memory), one per device, one per NIC; utc_ns as above. */
void rb_csv_telemetry_rows(FILE *f, double t_s, uint64_t utc_ns, const char *phase,
                           const char *node, const rb_telem_t *t);

/* Adds to ts (node node) the rows rb_csv_telemetry_rows() writes for t, with
 * the values a reader of telemetry.csv gets from them, so that findings made
 * from memory are those made from the file. 0 or -ENOMEM. */
int rb_csv_telemetry_series(rb_findings_tel_series_t *ts, uint32_t node, double t_s,
                            double interval_s, const rb_telem_t *t);

/* A time as samples.csv and telemetry.csv give it back: t_s printed with
 * their 3 decimals and read again, so that figures made from the rows in
 * memory are those a reader of the files makes. */
double rb_csv_time(double t_s);

#endif
