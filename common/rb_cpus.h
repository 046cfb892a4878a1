/* CPU sets as fio's job files give them: a list ("0,2-3,8": cpus_allowed)
 * or a bit mask (cpumask), kept as a bitmap of RB_CPUS_MAX bits in
 * RB_CPUS_BYTES bytes (CPU c is bit c % 8 of byte c / 8), the form a job
 * carries on the wire. */
#ifndef RB_CPUS_H
#define RB_CPUS_H

#include <stddef.h>
#include <stdint.h>

#include "rb_limits.h"

#define RB_CPUS_BYTES (RB_CPUS_MAX / 8)

/* Reads list s ("N", "N-M", comma-separated, blanks allowed around them)
 * into mask (RB_CPUS_BYTES, cleared first). 0, or -EINVAL with why (len
 * bytes) saying what is wrong. */
int rb_cpus_parse_list(const char *s, uint8_t *mask, char *why, size_t len);

/* Reads mask s, a whole number (decimal, or 0x hexadecimal) whose bit c is
 * CPU c, into mask (RB_CPUS_BYTES, cleared first). 0, or -EINVAL with why. */
int rb_cpus_parse_mask(const char *s, uint8_t *mask, char *why, size_t len);

/* Bytes of mask up to its last CPU (0: none set). */
uint32_t rb_cpus_len(const uint8_t *mask, uint32_t bytes);

/* CPUs set in the first bytes of mask. */
uint32_t rb_cpus_count(const uint8_t *mask, uint32_t bytes);

/* The CPU of the n-th CPU set (from 0) in mask; -1 when there are fewer. */
int rb_cpus_nth(const uint8_t *mask, uint32_t bytes, uint32_t n);

/* mask as a list ("0,2-3,8"; "" when none) into buf of len bytes; returns buf. */
char *rb_cpus_fmt(const uint8_t *mask, uint32_t bytes, char *buf, size_t len);

#endif
