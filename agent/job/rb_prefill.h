/* Laying out a file before GO for a phase that reads it, so that the read
 * phase measures the disk and not an empty or cached file. */
#ifndef RB_PREFILL_H
#define RB_PREFILL_H

#include <stdint.h>

#include "rb_err.h"
#include "rb_proto.h"
#include "rb_sandbox.h"

/* How a file is laid out before GO for a phase that reads it. */
typedef struct rb_prefill {
    uint64_t start;    /* first byte of the IO region (the job's offset) */
    uint64_t end;      /* the file must reach this size */
    uint64_t bs;       /* block size, for verify headers */
    int direct;        /* write with O_DIRECT */
    int verify;        /* stamp verify headers on every bs block from start */
    uint64_t run_hash; /* rb_verify_hash(run id) */
    uint32_t node;     /* rank + 1 of this node, for verify headers */
    /* a region of a shared file (rb_job_map): shared, the job, regions, region */
    int shared;
    const rb_job_spec_t *job; /* borrowed from the plan */
    uint32_t nregions, region;
} rb_prefill_t;

/* Writes incompressible data into file name of run folder rundir up to
 * pf->end (from its current end, or all of it when verify headers are
 * needed), fsyncs it and drops it from the page cache, so that a read phase
 * measures the disk. For a shared file, writes this node's region of it in
 * the shared folder (run_id names it). Adds the bytes written to *written.
 * Stops between writes once *stop (read atomically; NULL: never) is set, so
 * that an abort need not wait for a large layout. 0, -ECANCELED when
 * stopped, or -errno. */
int rb_prefill_write(rb_sandbox_t *sb, int rundir, const char *run_id, const char *name,
                     const rb_prefill_t *pf, const int *stop, uint64_t *written, rb_err_t *err);

#endif
