/* fio's verify_backlog and verify_backlog_batch: a write job with verify
 * reads back what it wrote while it writes. Each completed write joins a
 * history (in issue order when a random map keeps blocks apart, else by
 * file and offset, a block written again counted once, as fio keeps it);
 * when the history holds a multiple of verify_backlog blocks after a
 * write, a batch of reads is due, each taking the first block of the
 * history; a batch that finds the history empty waits for the next write.
 * What is left at the end of a pass is read back then, in the same order. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rb_data_int.h"
#include "rb_time.h"
#include "rb_verify.h"

int rb_data_backlog_setup(rb_worker_t *w, rb_err_t *err)
{
    const rb_job_spec_t *s = w->spec;
    if (!s->verify_backlog || s->verify == RB_VERIFY_NONE || !s->do_verify || !rb_job_uses_files(s))
        return 0;
    uint32_t batch = s->verify_backlog_batch ? s->verify_backlog_batch : s->verify_backlog;
    /* a batch as large as the backlog empties it each time; a smaller one
     * leaves blocks behind, at most the blocks of a pass */
    uint64_t cap = batch >= s->verify_backlog ? s->verify_backlog : w->units;
    if (cap > UINT32_MAX - 1)
        cap = UINT32_MAX - 1;
    w->vb_cap = (uint32_t)cap;
    w->vb_hist = calloc(cap, sizeof *w->vb_hist);
    w->vb_buf = rb_worker_aligned((size_t)s->bs_max);
    if (!w->vb_hist || !w->vb_buf)
        return rb_err_set(err, -ENOMEM, "job %s: out of memory for verify_backlog's %llu blocks",
                          s->name, (unsigned long long)cap);
    return 0;
}

/* Adds a written block to the history, in fio's order. */
static void s_push(rb_worker_t *w, uint32_t f, uint64_t off, uint64_t len)
{
    const rb_job_spec_t *s = w->spec;
    struct rb_worker_vb e = {f, (uint32_t)len, off};
    uint32_t at = w->vb_len;
    if (!rb_rw_random(s->rw) || s->norandommap) {
        /* by file and offset; the same block again replaces the old entry */
        while (at > 0 && (w->vb_hist[at - 1].file > f ||
                          (w->vb_hist[at - 1].file == f && w->vb_hist[at - 1].off >= off)))
            at--;
        if (at < w->vb_len && w->vb_hist[at].file == f && w->vb_hist[at].off == off) {
            w->vb_hist[at] = e;
            return;
        }
    }
    if (w->vb_len == w->vb_cap)
        return; /* cannot happen within a pass: see the capacity */
    memmove(&w->vb_hist[at + 1], &w->vb_hist[at], (w->vb_len - at) * sizeof e);
    w->vb_hist[at] = e;
    w->vb_len++;
}

/* Reads back and checks the first block of the history. 0, or -1 when the
 * worker must stop (a failed read, or a mismatch with verify_fatal). */
static int s_pop(rb_worker_t *w)
{
    const rb_job_spec_t *s = w->spec;
    struct rb_worker_vb e = w->vb_hist[0];
    memmove(&w->vb_hist[0], &w->vb_hist[1], (--w->vb_len) * sizeof e);
    rb_worker_file_t *f = &w->files[e.file];
    uint64_t t0 = rb_time_mono_ns();
    ssize_t n = pread(f->fd, w->vb_buf, e.len, (off_t)e.off);
    if (n != (ssize_t)e.len) {
        RB_WORKER_ADD(&w->errors, 1);
        rb_worker_fail(w, n < 0 ? -errno : -ENODATA, f->path, e.off, "verify read: %s",
                       n < 0 ? strerror(errno) : "short read");
        w->halt = 1;
        return -1;
    }
    uint64_t t1 = rb_time_mono_ns();
    w->vb_bytes += e.len;
    if (w->t_start)
        rb_worker_count(w, RB_DIR_READ, e.len, t1 - t0, RB_WORKER_NO_SLAT, t1);
    char why[240];
    if (rb_verify_check(s, w->vb_buf, e.len, w->run_hash, w->expect, f->hash, e.off, why,
                        sizeof why)) {
        RB_WORKER_ADD(&w->verify_errors, 1);
        RB_WORKER_ADD(&w->errors, 1);
        rb_worker_fail(w, -EBADMSG, f->path, e.off, "verify: %s", why);
        if (s->verify_fatal) {
            w->halt = 1;
            return -1;
        }
    }
    return 0;
}

void rb_data_backlog_wrote(rb_worker_t *w, uint32_t f, uint64_t off, uint64_t len)
{
    const rb_job_spec_t *s = w->spec;
    if (!w->vb_hist)
        return;
    s_push(w, f, off, len);
    int read = 0; /* a batch starts only after a write, as in fio */
    for (;;) {
        if (!w->vb_batch && !read && w->vb_len && w->vb_len % s->verify_backlog == 0)
            w->vb_batch = s->verify_backlog_batch ? s->verify_backlog_batch : s->verify_backlog;
        if (!w->vb_batch || !w->vb_len || rb_worker_stopped(w))
            return;
        if (s_pop(w) < 0)
            return;
        w->vb_batch--;
        read = 1;
    }
}

void rb_data_backlog_drain(rb_worker_t *w)
{
    while (w->vb_hist && w->vb_len && !w->halt && !rb_worker_stopped(w))
        if (s_pop(w) < 0)
            break;
    w->vb_len = 0;
}

void rb_data_backlog_fini(rb_worker_t *w)
{
    free(w->vb_hist);
    free(w->vb_buf);
    w->vb_hist = NULL;
    w->vb_buf = NULL;
    w->vb_len = w->vb_cap = w->vb_batch = 0;
}
