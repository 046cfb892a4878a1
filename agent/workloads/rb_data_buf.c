/* A write's buffer as the job asks for it (rb_data_int.h): fio's buffer
 * contents, scramble_buffers and the verify header. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "rb_data_int.h"
#include "rb_fill.h"
#include "rb_rand.h"
#include "rb_verify.h"

/* fio's scramble_buffers: each 512 bytes of a buffer used again get their
 * offset in one of their 64-byte lines and the worker's stamp at the end
 * of their first line, so that no two blocks are alike; a buffer shorter
 * than 512 bytes gets both at its start. */
static void s_scramble(const rb_worker_t *w, rb_engine_io_t *io)
{
    uint64_t stamp = w->run_hash ^ ((uint64_t)w->index << 32);
    uint8_t *p = io->buf;
    if (io->len < 512) {
        if (io->len >= 16) {
            uint64_t tag[2] = {io->off, stamp ^ w->pass};
            memcpy(p, tag, sizeof tag);
        }
        return;
    }
    unsigned line = (unsigned)((io->off >> 9) ^ w->pass) & 7;
    for (uint64_t at = 0; at + 512 <= io->len; at += 512) {
        uint64_t off = io->off + at, tail[2] = {stamp, w->pass};
        memcpy(p + at + line * 64, &off, sizeof off);
        memcpy(p + at + 48, tail, sizeof tail);
    }
}

/* Fills a write buffer: contents per buffer_mode, compressible or deduped
 * as asked, scrambled when used again, and a verify header when asked. */
void rb_data_prepare_write(rb_worker_t *w, rb_engine_io_t *io, const rb_worker_file_t *f)
{
    const rb_job_spec_t *s = w->spec;
    bool fill = rb_fill_wanted(s);
    if (s->refill_buffers && fill)
        rb_fill_buf(&w->fill, io->buf, io->len);
    else if (s->refill_buffers && s->buffer_mode == RB_BUF_RANDOM)
        rb_rand_fill(&w->rng, io->buf, io->len);
    if (rb_verify_writes(s))
        rb_verify_stamp(s, io->buf, io->len, w->run_hash, w->node_tag, f->hash, io->off, w->pass);
    else if (s->pattern_ofs)
        rb_verify_fill(s, io->buf, io->len, io->off);
    else if (s->scramble && !s->refill_buffers && !fill && s->buffer_mode == RB_BUF_RANDOM)
        s_scramble(w, io);
}
