/* What a write job with verify reads back, as fio's history of the blocks
 * it wrote keeps it. Each completed write joins the history (in issue
 * order when a random map keeps blocks apart, else by file and offset, a
 * block written again counted once, as fio keeps it).
 *
 * verify_backlog and verify_backlog_batch: when the history holds a
 * multiple of verify_backlog blocks after a write, a batch of reads is
 * due, each taking the first block of the history; a batch that finds the
 * history empty waits for the next write.
 *
 * A mix of reads and writes (rw=rw, randrw) without a backlog keeps the
 * whole pass's history, as fio does: its reads are not checked (they find
 * what is there), the blocks it wrote are read back and checked when the
 * pass ends. Either way what is left at the end of a pass is read back
 * then, in the history's order, before the next loop. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rb_data_int.h"
#include "rb_time.h"
#include "rb_verify.h"

#define S_FIRST_ROOM 1024u /* a history without a backlog grows from this */

/* 1 when the history is kept by file and offset rather than in issue order. */
static int s_sorted(const rb_job_spec_t *s)
{
    return !rb_rw_random(s->rw) || s->norandommap;
}

int rb_data_backlog_setup(rb_worker_t *w, rb_err_t *err)
{
    const rb_job_spec_t *s = w->spec;
    if (s->verify == RB_VERIFY_NONE || !s->do_verify || !rb_job_uses_files(s) ||
        !rb_rw_writes(s->rw))
        return 0;
    /* a mix without a backlog reads back at the end of each pass; fio's
     * time_based mix never gets there */
    int mix = rb_rw_reads(s->rw) && !s->time_based;
    if (!s->verify_backlog && !mix)
        return 0;
    uint32_t batch = s->verify_backlog_batch ? s->verify_backlog_batch : s->verify_backlog;
    /* a batch as large as the backlog empties it each time; a smaller one
     * (or none) leaves blocks behind, at most the blocks of a pass */
    uint64_t most = s->verify_backlog && batch >= s->verify_backlog ? s->verify_backlog : w->units;
    if (most > UINT32_MAX - 1)
        most = UINT32_MAX - 1;
    w->vb_most = (uint32_t)most;
    w->vb_cap = w->vb_most < S_FIRST_ROOM ? w->vb_most : S_FIRST_ROOM;
    w->vb_hist = calloc(w->vb_cap, sizeof *w->vb_hist);
    w->vb_buf = rb_worker_aligned((size_t)(s->bs_max > s->bs ? s->bs_max : s->bs));
    if (!w->vb_hist || !w->vb_buf)
        return rb_err_set(err, -ENOMEM, "job %s: out of memory for the history of %llu blocks",
                          s->name, (unsigned long long)w->vb_cap);
    return 0;
}

/* Room for one more entry: the history grows, doubling, up to vb_most.
 * 0, or -1 when it is full (which cannot happen within a pass, see
 * vb_most) or memory ran out (the worker then fails, saying so: a block
 * it wrote would go unchecked). */
static int s_room(rb_worker_t *w)
{
    if (w->vb_len < w->vb_cap)
        return 0;
    if (w->vb_cap >= w->vb_most)
        return -1;
    uint64_t cap = (uint64_t)w->vb_cap * 2;
    if (cap > w->vb_most)
        cap = w->vb_most;
    struct rb_worker_vb *h = realloc(w->vb_hist, cap * sizeof *h);
    if (!h) {
        RB_WORKER_ADD(&w->errors, 1);
        rb_worker_fail(w, -ENOMEM, NULL, 0,
                       "verify: out of memory for the history of %llu blocks written, each to "
                       "be read back",
                       (unsigned long long)cap);
        w->halt = 1;
        return -1;
    }
    w->vb_hist = h;
    w->vb_cap = (uint32_t)cap;
    return 0;
}

/* Adds a written block to the history, in fio's order. A backlog keeps it
 * sorted as it goes (its batches take the first blocks); a mix's history
 * is read only at the end of the pass, and sorted then (s_settle). */
static void s_push(rb_worker_t *w, uint32_t f, uint64_t off, uint64_t len)
{
    const rb_job_spec_t *s = w->spec;
    struct rb_worker_vb e = {f, (uint32_t)len, off};
    uint32_t at = w->vb_len;
    if (s_sorted(s) && s->verify_backlog) {
        /* by file and offset; the same block again replaces the old entry */
        while (at > 0 && (w->vb_hist[at - 1].file > f ||
                          (w->vb_hist[at - 1].file == f && w->vb_hist[at - 1].off >= off)))
            at--;
        if (at < w->vb_len && w->vb_hist[at].file == f && w->vb_hist[at].off == off) {
            w->vb_hist[at] = e;
            return;
        }
    }
    if (s_room(w) < 0)
        return;
    memmove(&w->vb_hist[at + 1], &w->vb_hist[at], (w->vb_len - at) * sizeof e);
    w->vb_hist[at] = e;
    w->vb_len++;
}

static int s_by_place(const void *a, const void *b, void *arg)
{
    const struct rb_worker_vb *h = arg;
    const struct rb_worker_vb *x = &h[*(const uint32_t *)a], *y = &h[*(const uint32_t *)b];
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* A mix's history, appended in the order written, put in fio's order at
 * the end of the pass: by file and offset, the last write of a block
 * kept. Left in the order written when memory runs out. */
static void s_settle(rb_worker_t *w)
{
    if (!s_sorted(w->spec) || w->spec->verify_backlog || w->vb_len < 2)
        return;
    uint32_t *idx = malloc((size_t)w->vb_len * sizeof *idx);
    struct rb_worker_vb *out = malloc((size_t)w->vb_len * sizeof *out);
    if (idx && out) {
        for (uint32_t i = 0; i < w->vb_len; i++)
            idx[i] = i;
        qsort_r(idx, w->vb_len, sizeof *idx, s_by_place, w->vb_hist);
        uint32_t n = 0;
        for (uint32_t i = 0; i < w->vb_len; i++) {
            const struct rb_worker_vb *e = &w->vb_hist[idx[i]];
            if (n && out[n - 1].file == e->file && out[n - 1].off == e->off)
                n--; /* written again: the later write is the one to check */
            out[n++] = *e;
        }
        memcpy(w->vb_hist, out, (size_t)n * sizeof *out);
        w->vb_len = n;
    }
    free(idx);
    free(out);
}

/* Reads back and checks block e. 0, or -1 when the worker must stop (a
 * failed read, or a mismatch with verify_fatal). */
static int s_check(rb_worker_t *w, struct rb_worker_vb e)
{
    const rb_job_spec_t *s = w->spec;
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
    if (!s->verify_backlog)
        return;   /* a mix: read back when the pass ends */
    int read = 0; /* a batch starts only after a write, as in fio */
    for (;;) {
        if (!w->vb_batch && !read && w->vb_len && w->vb_len % s->verify_backlog == 0)
            w->vb_batch = s->verify_backlog_batch ? s->verify_backlog_batch : s->verify_backlog;
        if (!w->vb_batch || !w->vb_len || rb_worker_stopped(w))
            return;
        struct rb_worker_vb e = w->vb_hist[0];
        memmove(&w->vb_hist[0], &w->vb_hist[1], (--w->vb_len) * sizeof e);
        if (s_check(w, e) < 0)
            return;
        w->vb_batch--;
        read = 1;
    }
}

void rb_data_backlog_drain(rb_worker_t *w)
{
    if (!w->vb_hist)
        return;
    s_settle(w);
    for (uint32_t i = 0; i < w->vb_len && !w->halt && !rb_worker_stopped(w); i++)
        if (s_check(w, w->vb_hist[i]) < 0)
            break;
    w->vb_len = 0;
}

void rb_data_backlog_fini(rb_worker_t *w)
{
    free(w->vb_hist);
    free(w->vb_buf);
    w->vb_hist = NULL;
    w->vb_buf = NULL;
    w->vb_len = w->vb_cap = w->vb_most = w->vb_batch = 0;
}
