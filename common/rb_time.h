/* Clocks used everywhere in rackbench: a monotonic clock for every measured
 * interval and a wall clock only for naming runs and stamping reports. */
#ifndef RB_TIME_H
#define RB_TIME_H

#include <stddef.h>
#include <stdint.h>

#define RB_NS_PER_US 1000ULL
#define RB_NS_PER_MS 1000000ULL
#define RB_NS_PER_S  1000000000ULL

/* Nanoseconds on CLOCK_MONOTONIC (never jumps; the clock of all measurements). */
uint64_t rb_time_mono_ns(void);

/* Nanoseconds since the Unix epoch on CLOCK_REALTIME (for labels only). */
uint64_t rb_time_wall_ns(void);

/* Sleeps until the monotonic clock reads t_ns; returns at once if it has passed. */
void rb_time_sleep_until_ns(uint64_t t_ns);

/* wall_ns (since the epoch) as ISO 8601 UTC to the second, "2026-12-01T19:58:37Z",
 * into buf (at least 21 bytes); returns buf. */
char *rb_time_iso(char *buf, size_t len, uint64_t wall_ns);

/* An ISO 8601 UTC time as rb_time_iso writes it, back to ns since the epoch;
 * 0 for NULL or text of another form. */
uint64_t rb_time_iso_parse(const char *iso);

#endif
