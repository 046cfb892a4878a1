/* A job on raw block devices (filename=/dev/X[:/dev/Y...]): its devices
 * claimed from the sandbox for the run, its size settled from theirs, its
 * block sizes checked against their logical block size. */
#ifndef RB_DEVJOB_H
#define RB_DEVJOB_H

#include <stddef.h>

#include "rb_proto.h"
#include "rb_sandbox.h"

/* Device i (0 .. nrfiles-1) of js's device list into out. 0, or -EINVAL
 * when there is no such entry, -ENAMETOOLONG. */
int rb_devjob_path(const rb_job_spec_t *js, unsigned i, char *out, size_t len);

/* Devices in js's list (':'-separated entries). */
unsigned rb_devjob_count(const rb_job_spec_t *js);

/* The device of file i of worker w: entry i of the list, or, when the list
 * has more devices than the job has files (@devices: one worker set per
 * device), the device of w's set. 0 or -errno as rb_devjob_path. */
int rb_devjob_file(const rb_job_spec_t *js, unsigned worker, unsigned i, char *out, size_t len);

/* Claims every device of js (for write when it writes), and settles js: with
 * no size, each device's size from offset on (they must be of one size);
 * with one, it must fit on each. With direct, IO sizes and offsets must be
 * multiples of each device's logical block size. @devices becomes the list
 * of the allowed idle devices, with numjobs workers on each (numjobs times
 * their count in all). 0 or -errno with err naming the job, the
 * device and why. */
int rb_devjob_claim(rb_sandbox_t *sb, rb_job_spec_t *js, rb_err_t *err);

/* The one device worker `worker` of js runs on into out: with one device,
 * or one worker set per device. -ENOENT when it has none or goes over
 * several (its files on different devices). */
int rb_devjob_worker_device(const rb_job_spec_t *js, unsigned worker, char *out, size_t len);

/* fio's size of an existing file, at the start of js's phase: a job with
 * filename= and size 0 (the plan found an earlier phase that writes the
 * file) takes the file's size in run folder rundir from its offset on,
 * rounded down to whole bs blocks, as fio ends a file at the first block
 * that would go past its end. 0 (nothing to do for any other job) or -errno
 * with err naming the job, the file and why. */
int rb_devjob_file_size(rb_sandbox_t *sb, rb_job_spec_t *js, int rundir, rb_err_t *err);

#endif
