/* Write buffers that compress and dedupe as fio's (rb_fill.h). A unique
 * buffer is a run of chunks, each (100 - pct) % random bytes then pct %
 * fixed bytes; a repeated buffer replays the generator from where the last
 * unique buffer began, so it is that buffer byte for byte. */
#include "rb_fill.h"

#include <string.h>

bool rb_fill_wanted(const rb_job_spec_t *js)
{
    return js->compress_pct || js->dedupe_pct;
}

void rb_fill_init(rb_fill_t *f, const rb_job_spec_t *js, uint64_t min_write, uint64_t seed)
{
    memset(f, 0, sizeof *f);
    rb_rand_seed(&f->rng, seed);
    rb_rand_seed(&f->pick, seed ^ 0x6a09e667f3bcc909ull);
    f->last = f->rng;
    f->pct = js->compress_pct > 100 ? 100 : js->compress_pct;
    f->dedupe = js->dedupe_pct > 100 ? 100 : js->dedupe_pct;
    f->chunk = js->compress_chunk;
    if (f->chunk == 0 || (min_write && f->chunk > min_write))
        f->chunk = min_write ? min_write : 1;
    if (js->buffer_mode == RB_BUF_PATTERN && js->pattern_len) {
        f->pattern = js->pattern;
        f->pattern_len = js->pattern_len;
    }
}

/* len fixed bytes: the pattern from its start, or zeros. */
static void s_fixed(const rb_fill_t *f, uint8_t *p, size_t len)
{
    if (!f->pattern) {
        memset(p, 0, len);
        return;
    }
    while (len) {
        size_t n = len < f->pattern_len ? len : f->pattern_len;
        memcpy(p, f->pattern, n);
        p += n;
        len -= n;
    }
}

/* One buffer from generator r. */
static void s_make(const rb_fill_t *f, rb_rand_t *r, uint8_t *p, size_t len)
{
    if (!f->pct) {
        rb_rand_fill(r, p, len);
        return;
    }
    while (len) {
        size_t c = f->chunk < len ? (size_t)f->chunk : len;
        size_t rnd = (size_t)((uint64_t)c * (100 - f->pct) / 100);
        rb_rand_fill(r, p, rnd);
        s_fixed(f, p + rnd, c - rnd);
        p += c;
        len -= c;
    }
}

void rb_fill_buf(rb_fill_t *f, void *buf, size_t len)
{
    if (f->dedupe && rb_rand_next(&f->pick) % 100 < f->dedupe) {
        rb_rand_t r = f->last;
        s_make(f, &r, buf, len);
        return;
    }
    f->last = f->rng;
    s_make(f, &f->rng, buf, len);
}
